//! One contract for the three worlds (particles, aggregate, rigid), on both backends:
//! `encode_step(dt, encoder)` returns the world's step report; on the CPU it runs the step at
//! once, giving the state and report `step` gives; `len()` counts live items; a buffer a
//! renderer holds is replaced only with `buffers_generation()` bumped.

mod common;

use common::*;
use glam::Vec3;
use wgphys::aggregate::{AggregateConfig, AggregateWorld, Link};
use wgphys::particles::{Particle, ParticleWorld, ViewSort, WorldConfig};
use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
use wgphys::Backend;

const DT: f32 = 1.0 / 60.0;

fn encoder() -> wgpu::CommandEncoder {
    shared_gpu()
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default())
}

fn both() -> [(&'static str, Backend); 2] {
    [("cpu", Backend::Cpu), ("gpu", Backend::Gpu(shared_gpu()))]
}

/// A rope of four particles hanging from an anchor, with a spring along it, under gravity.
fn rope(backend: Backend) -> AggregateWorld {
    let mut w = AggregateWorld::new(
        backend,
        AggregateConfig {
            capacity: 8,
            fields: vec![wgphys::particles::ForceField::Gravity(Vec3::new(
                0.0, -9.81, 0.0,
            ))],
            ..Default::default()
        },
    )
    .expect("world");
    let ids: Vec<_> = (0..4)
        .map(|i| {
            w.add_particle(Particle::new(Vec3::new(0.3 * i as f32, 2.0, 0.0)))
                .expect("particle")
        })
        .collect();
    w.add_link(Link::AnchoredRod {
        particle: ids[0],
        anchor: Vec3::new(0.0, 2.5, 0.0),
        length: 0.5,
    })
    .expect("anchor");
    for k in 1..4 {
        w.add_link(Link::Cable {
            a: ids[k - 1],
            b: ids[k],
            max_length: 0.35,
            restitution: 0.1,
        })
        .expect("cable");
    }
    w.add_generator(wgphys::aggregate::ForceGenerator::Spring {
        a: ids[0],
        b: ids[3],
        stiffness: 5.0,
        rest_length: 0.6,
    })
    .expect("spring");
    w
}

fn rigid(backend: Backend) -> RigidWorld {
    let mut w = RigidWorld::new(
        backend,
        RigidConfig {
            body_capacity: 8,
            ..Default::default()
        },
    )
    .expect("world");
    w.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
        .expect("ground");
    for i in 0..3 {
        w.add_body(
            RigidBody::dynamic().position(Vec3::new(1.2 * i as f32, 1.0 + 0.5 * i as f32, 0.0)),
            &[Collider::sphere(0.5)],
        )
        .expect("ball");
    }
    w
}

fn particles(backend: Backend, capacity: u32, auto_grow: bool) -> ParticleWorld {
    ParticleWorld::new(
        backend,
        WorldConfig {
            capacity,
            auto_grow,
            fields: vec![wgphys::particles::ForceField::Gravity(Vec3::new(
                0.0, -9.81, 0.0,
            ))],
            ..Default::default()
        },
    )
    .expect("world")
}

fn spawn(w: &mut ParticleWorld, n: u32) {
    for i in 0..n {
        w.spawn(Particle::new(Vec3::new(0.1 * i as f32, 1.0, 0.0)).with_velocity(Vec3::X))
            .expect("spawn");
    }
}

/// On the CPU, `encode_step` is `step`: twin worlds, one stepped each way, give bit-equal
/// states and equal reports, step after step, in every world.
#[test]
fn encode_step_on_the_cpu_is_step() {
    let (mut a, mut b) = (rope(Backend::Cpu), rope(Backend::Cpu));
    let (mut p, mut q) = (
        particles(Backend::Cpu, 64, false),
        particles(Backend::Cpu, 64, false),
    );
    spawn(&mut p, 10);
    spawn(&mut q, 10);
    let (mut r, mut s) = (rigid(Backend::Cpu), rigid(Backend::Cpu));
    let mut enc = encoder();
    for k in 0..12 {
        let (ra, rb) = (a.step(DT).expect("step"), a_enc(&mut b, &mut enc));
        assert_eq!(ra, rb, "aggregate step {k}: reports");
        assert_eq!(ra.step, k + 1);
        assert_eq!(
            a.read_snapshot().expect("snapshot"),
            b.read_snapshot().expect("snapshot"),
            "aggregate step {k}"
        );
        let (pa, pb) = (
            p.step(DT).expect("step"),
            q.encode_step(DT, &mut enc).expect("encode"),
        );
        assert_eq!(pa, pb, "particle step {k}: reports");
        assert_eq!(state_hash(&p), state_hash(&q), "particle step {k}");
        let (ra, rb) = (
            r.step(DT).expect("step"),
            s.encode_step(DT, &mut enc).expect("encode"),
        );
        assert_eq!(ra, rb, "rigid step {k}: reports");
        assert_eq!(
            r.read_bodies().expect("bodies"),
            s.read_bodies().expect("bodies"),
            "rigid step {k}"
        );
    }
    // The encoder, which the CPU worlds leave alone, still submits.
    shared_gpu().queue.submit([enc.finish()]);
}

fn a_enc(
    w: &mut AggregateWorld,
    enc: &mut wgpu::CommandEncoder,
) -> wgphys::aggregate::AggregateStepReport {
    w.encode_step(DT, enc).expect("encode")
}

/// The aggregate report says the same on both backends, through `step` and `encode_step`
/// alike: the step count, the live particles, slots, generators and links, and the link
/// colours; only the dispatches are the GPU's own (0 on the CPU).
#[test]
fn aggregate_reports_agree_across_backends() {
    let mut reports = Vec::new();
    for (name, backend) in both() {
        let mut w = rope(backend);
        let mut enc = encoder();
        let mut got = Vec::new();
        for k in 0..6 {
            if k == 3 {
                // A removal shows in the counts: the last particle and its cable.
                let last = w.particle_handle_at(3).expect("particle");
                let cable = w.links().find(|(_, l)| l.particles().1 == Some(last));
                w.remove_link(cable.expect("cable").0)
                    .expect("remove cable");
                let spring = w.generator_handle_at(0).expect("spring");
                w.remove_generator(spring).expect("remove spring");
                w.remove_particle(last).expect("remove particle");
            }
            let r = if k % 2 == 0 {
                w.step(DT).expect("step")
            } else {
                w.encode_step(DT, &mut enc).expect("encode")
            };
            assert_eq!(r.step, k + 1, "{name}");
            match name {
                "cpu" => assert_eq!(r.dispatches, 0, "{name}: {r:?}"),
                _ => assert!(r.dispatches > 0, "{name}: {r:?}"),
            }
            let mut same = r;
            same.dispatches = 0;
            got.push(same);
        }
        shared_gpu().queue.submit([enc.finish()]);
        let (first, last) = (got[0], got[5]);
        assert_eq!(
            [first.particles, first.slots, first.generators, first.links],
            [4, 4, 1, 4],
            "{name}: {first:?}"
        );
        assert_eq!(
            [last.particles, last.slots, last.generators, last.links],
            [3, 4, 0, 3],
            "{name}: {last:?}"
        );
        // A chain: its links alternate between two colours at most.
        assert!(
            first.link_colours >= 1 && first.link_colours <= 2,
            "{first:?}"
        );
        assert_eq!(w.len(), 3);
        assert_eq!(w.slots(), 4);
        reports.push(got);
    }
    assert_eq!(reports[0], reports[1], "the backends' reports differ");
}

/// The particle and rigid reports say the same step on both backends through `encode_step`.
#[test]
fn particle_and_rigid_reports_count_the_same_steps() {
    for (name, backend) in both() {
        let mut p = particles(backend.clone(), 64, false);
        spawn(&mut p, 4);
        let mut r = rigid(backend);
        let mut enc = encoder();
        for k in 1..=4u64 {
            let rep = p.encode_step(DT, &mut enc).expect("encode");
            assert_eq!(rep.step, k, "{name}: particle report {rep:?}");
            r.encode_step(DT, &mut enc).expect("encode");
        }
        shared_gpu().queue.submit([enc.finish()]);
        p.wait().expect("wait");
        assert_eq!(p.steps(), 4, "{name}");
        // The rigid report may be a frame or two late on the GPU, never ahead.
        let rep = r.step(DT).expect("step");
        assert!(rep.step <= 5, "{name}: {rep:?}");
        // Live bodies: the ground and three balls; a removal leaves three.
        assert_eq!(r.len(), 4, "{name}");
        let ball = r.body_handle_at(1).expect("ball");
        r.remove_body(ball).expect("remove");
        assert_eq!(r.len(), 3, "{name}");
    }
}

/// The particle pool's buffers are replaced when it grows (by `grow`, or by `auto_grow` when a
/// spawn does not fit), and `buffers_generation` counts each replacement; a step that grows nothing leaves it
/// alone. The aggregate world's buffers never change: 0 throughout.
#[test]
fn buffers_generation_counts_replaced_buffers() {
    let mut w = particles(Backend::Gpu(shared_gpu()), 64, true);
    assert_eq!(w.buffers_generation(), 0);
    spawn(&mut w, 10);
    for _ in 0..3 {
        w.step(DT).expect("step");
    }
    assert_eq!(w.buffers_generation(), 0, "plain steps replaced a buffer");
    w.grow(128).expect("grow");
    assert_eq!(w.buffers_generation(), 1, "grow made new buffers");
    // With auto_grow, a host spawn that does not fit grows the pool at once (to a power of two
    // at least twice the capacity): 10 + 200 particles in 128 slots grow it once, to 256.
    spawn(&mut w, 200);
    assert_eq!(w.capacity(), 256);
    assert_eq!(
        w.buffers_generation(),
        2,
        "the growth in spawn made new buffers"
    );
    for _ in 0..3 {
        w.step(DT).expect("step");
    }
    assert_eq!(
        w.buffers_generation(),
        2,
        "steps that grow nothing replaced a buffer"
    );
    let buffers = w.render_buffers().expect("buffers").positions.size();
    assert!(buffers >= 16 * 256, "positions hold {buffers} bytes");
    // Turning the back-to-front order on hands out a new buffer (`RenderBuffers::order`);
    // moving the camera, or a step, keeps it.
    let view = |z: f32| ViewSort {
        eye: Vec3::new(0.0, 2.0, z),
        forward: Vec3::new(0.0, 0.0, -1.0),
    };
    assert!(w.render_buffers().expect("buffers").order.is_none());
    w.set_view_sort(Some(view(8.0))).expect("view sort");
    assert_eq!(w.buffers_generation(), 3, "the order buffer is new");
    assert!(w.render_buffers().expect("buffers").order.is_some());
    w.set_view_sort(Some(view(9.0))).expect("view sort");
    w.step(DT).expect("step");
    assert_eq!(w.buffers_generation(), 3, "the same order buffer");
    // On the CPU there are no buffers to replace.
    let mut c = particles(Backend::Cpu, 16, false);
    c.grow(32).expect("grow");
    assert_eq!(c.buffers_generation(), 0);

    for (name, backend) in both() {
        let mut a = rope(backend);
        for _ in 0..3 {
            a.step(DT).expect("step");
        }
        a.add_particle(Particle::new(Vec3::ZERO)).expect("add");
        a.step(DT).expect("step");
        assert_eq!(a.buffers_generation(), 0, "{name}");
    }
}
