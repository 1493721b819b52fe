//! Render and device interop: a world on a caller's device, its step recorded into a caller's
//! encoder, and the render buffers a renderer binds (positions, colours, sizes, draw args).

mod common;

use glam::Vec3;
use wgphys::gpu::buffer::read_vec;
use wgphys::gpu::GpuContext;
use wgphys::particles::{Particle, ParticleWorld, WorldConfig};
use wgphys::scenes;
use wgphys::Backend;

fn caller_device() -> GpuContext {
    // A device the "renderer" made for itself; the engine only borrows it.
    let ctx = common::gpu();
    GpuContext::from_device(ctx.device.clone(), ctx.queue.clone(), ctx.info.clone())
        .expect("the test device has the adapter's limits")
}

/// `encode_step` into the caller's encoder, submitted by the caller, gives bit-identical state
/// to `step` (which submits on its own), step after step of the fireworks show.
#[test]
fn encode_step_into_callers_encoder_matches_step() {
    let ctx = caller_device();
    let config = scenes::fireworks_config(4096, 5);
    let mut own = ParticleWorld::new(Backend::Gpu(ctx.clone()), config.clone()).expect("world");
    let mut borrowed = ParticleWorld::new(Backend::Gpu(ctx.clone()), config).expect("world");
    for _ in 0..150 {
        scenes::fireworks_tick(&mut own).expect("tick");
        scenes::fireworks_tick(&mut borrowed).expect("tick");
        own.step(scenes::DT).expect("step");
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("caller"),
            });
        borrowed
            .encode_step(scenes::DT, &mut encoder)
            .expect("encode");
        ctx.queue.submit([encoder.finish()]);
    }
    let a = own.read_snapshot().expect("read");
    let b = borrowed.read_snapshot().expect("read");
    assert!(
        !a.is_empty(),
        "the show should have live particles after 150 steps"
    );
    assert_eq!(a, b, "encode_step and step diverged");
}

/// The draw arguments hold (6 vertices, live instances, 0, 0), the position, colour and size
/// buffers hold the live particles in slots [0, live), and all three can be bound as vertex
/// buffers.
#[test]
fn render_buffers_describe_the_live_particles() {
    let ctx = caller_device();
    let mut world = ParticleWorld::new(
        Backend::Gpu(ctx.clone()),
        WorldConfig {
            capacity: 64,
            ..WorldConfig::default()
        },
    )
    .expect("world");
    let mut handles = Vec::new();
    for i in 0..10 {
        let p = Particle::new(Vec3::new(i as f32, 2.0, 0.0))
            .with_size(0.1 + i as f32 * 0.01)
            .with_colour(glam::Vec4::new(1.0, 0.5, 0.25, 1.0));
        handles.push(world.spawn(p).expect("spawn"));
    }
    world.step(1e-3).expect("step");
    world.remove(handles[3]).expect("remove");
    world.step(1e-3).expect("step");
    let b = world
        .render_buffers()
        .expect("GPU world has render buffers");
    let velocities = b
        .velocities
        .expect("a particle world publishes its velocities");
    for (name, buf) in [
        ("positions", b.positions),
        ("colours", b.colours),
        ("sizes", b.sizes),
        ("velocities", velocities),
    ] {
        assert!(
            buf.usage()
                .contains(wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::STORAGE),
            "{name} usage {:?}",
            buf.usage()
        );
    }
    assert!(
        b.draw_args.usage().contains(wgpu::BufferUsages::INDIRECT),
        "draw_args usage {:?}",
        b.draw_args.usage()
    );
    let args: Vec<u32> = read_vec(&ctx.device, &ctx.queue, b.draw_args, 4).expect("read");
    assert_eq!(
        args,
        vec![6, 9, 0, 0],
        "draw args after removing one of ten"
    );
    let pos: Vec<glam::Vec4> = read_vec(&ctx.device, &ctx.queue, b.positions, 9).expect("read");
    let sizes: Vec<f32> = read_vec(&ctx.device, &ctx.queue, b.sizes, 9).expect("read");
    let mut xs: Vec<i32> = pos.iter().map(|p| p.x.round() as i32).collect();
    xs.sort_unstable();
    assert_eq!(
        xs,
        vec![0, 1, 2, 4, 5, 6, 7, 8, 9],
        "slots [0, live) hold exactly the live particles"
    );
    for (k, p) in pos.iter().enumerate() {
        let i = p.x.round();
        assert!(
            (sizes[k] - (0.1 + i * 0.01)).abs() < 1e-6,
            "size of slot {k} follows its particle"
        );
        assert_eq!(p.w, 1.0, "position.w of slot {k}");
    }
}

/// `encode_step` on a CPU world runs the step at once, as `step` does (the encoder is left
/// alone): a program that records its steps runs unchanged on the CPU.
#[test]
fn encode_step_on_a_cpu_world_runs_the_step() {
    let ctx = common::gpu();
    let mut world = ParticleWorld::new(Backend::Cpu, WorldConfig::default()).expect("world");
    let mut twin = ParticleWorld::new(Backend::Cpu, WorldConfig::default()).expect("world");
    for w in [&mut world, &mut twin] {
        w.spawn(Particle::new(Vec3::ZERO).with_velocity(Vec3::X))
            .expect("spawn");
    }
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    let encoded = world.encode_step(0.01, &mut encoder).expect("encode");
    let stepped = twin.step(0.01).expect("step");
    assert_eq!(encoded, stepped);
    assert_eq!(encoded.step, 1);
    assert_eq!(
        world.read_snapshot().expect("snapshot"),
        twin.read_snapshot().expect("snapshot")
    );
    ctx.queue.submit([encoder.finish()]);
}

/// With a grid, the aggregate world's spatial order keeps positions and velocities as the two
/// halves of one binding, 32 bytes per particle slot (so that its kernels bind at most 8
/// storage buffers per stage). On a device whose storage binding cannot hold that, the
/// capacity is refused when the world is built, naming the most that fits; that capacity
/// builds and steps, and so does the refused one without a grid (16 bytes per slot).
#[test]
fn an_aggregate_capacity_beyond_the_devices_binding_size_is_refused() {
    use wgphys::aggregate::{AggregateConfig, AggregateWorld, Collisions};
    use wgphys::Error;

    const BINDING: u64 = 1 << 20;
    let (device, queue, info) = common::device_with(|adapter| wgpu::Limits {
        max_storage_buffer_binding_size: BINDING,
        ..adapter
    });
    let ctx =
        GpuContext::from_device(device, queue, info).expect("limits above the engine's needs");
    let most = (BINDING / wgphys::aggregate::gpu::NEAR_STATE_BYTES) as u32;
    let build = |capacity: u32, grid: bool| {
        AggregateWorld::new(
            Backend::Gpu(ctx.clone()),
            AggregateConfig {
                capacity,
                collisions: grid.then(|| Collisions {
                    cell_size: 0.2,
                    table_size: 64,
                    ..Default::default()
                }),
                ..Default::default()
            },
        )
    };
    match build(most + 1, true) {
        Err(
            e @ Error::CapacityTooLarge {
                capacity,
                needed_bytes,
                max_bytes,
                max_capacity,
            },
        ) => {
            assert_eq!(
                (capacity, needed_bytes, max_bytes, max_capacity),
                (most + 1, 32 * u64::from(most + 1), BINDING, most),
                "{e}"
            );
            assert!(e.to_string().contains(&most.to_string()), "{e}");
        }
        other => panic!("capacity {} gave {:?}", most + 1, other.map(|_| ())),
    }
    build(most, true)
        .and_then(|mut w| w.step(1.0 / 60.0))
        .expect("the most that fits, with a grid");
    build(most + 1, false)
        .and_then(|mut w| w.step(1.0 / 60.0))
        .expect("the same capacity without a grid");
}

/// A device that is gone (destroyed here; a lost device behaves the same) makes every world's
/// next step and read an `Error::Gpu` naming the call, never a panic from wgpu's uncaptured-
/// error handler and never a hang. The particle, aggregate and rigid worlds, each on its own
/// device. wgpu reports a destroyed device lost at the first poll after its queue drains (it
/// reports a driver's loss at once), so each device is destroyed and then waited on, as a
/// program that finds its device gone would; `GpuContext::is_lost` then says so.
#[test]
fn a_destroyed_device_gives_errors_not_panics() {
    fn own_device() -> GpuContext {
        GpuContext::new().expect("a second device on the test adapter")
    }
    fn check<T: std::fmt::Debug>(what: &str, r: std::thread::Result<wgphys::Result<T>>) {
        match r {
            Ok(Err(wgphys::Error::Gpu(msg))) => assert!(
                msg.contains("new GpuContext"),
                "{what}: the message says what to do: {msg}"
            ),
            Ok(other) => panic!("{what}: expected Error::Gpu, got {other:?}"),
            Err(_) => panic!("{what}: panicked"),
        }
    }
    fn gone(ctx: &GpuContext) {
        assert!(!ctx.is_lost());
        ctx.device.destroy();
        let _ = ctx.wait();
        assert!(
            ctx.is_lost(),
            "wgpu reports the destroyed device lost once it drains"
        );
    }
    let guard = |f: &mut dyn FnMut() -> wgphys::Result<()>| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
    };

    // A fireworks world that has stepped once, on a device then destroyed.
    let lost_fireworks = || {
        let ctx = own_device();
        let mut w =
            ParticleWorld::new(Backend::Gpu(ctx.clone()), scenes::fireworks_config(1024, 3))
                .expect("world");
        w.launch(1).expect("launch");
        w.step(scenes::DT).expect("step");
        gone(&ctx);
        w
    };
    let mut particles = lost_fireworks();
    check(
        "particle step",
        guard(&mut || particles.step(scenes::DT).map(|_| ())),
    );
    check(
        "particle read",
        guard(&mut || particles.read_snapshot().map(|_| ())),
    );

    // A world first given turbulence after the loss: the step that would compile the
    // integrate kernel's turbulent variant reports the loss too.
    let mut stirred = lost_fireworks();
    stirred
        .set_fields(vec![wgphys::particles::ForceField::Turbulence {
            scale: 1.0,
            strength: 1.0,
            scroll: Vec3::ZERO,
        }])
        .expect("fields are host state");
    check(
        "particle step with new turbulence",
        guard(&mut || stirred.step(scenes::DT).map(|_| ())),
    );

    let ctx = own_device();
    let mut sand =
        scenes::aggregate::sand(Backend::Gpu(ctx.clone()), 256, 0.05).expect("sand world");
    scenes::aggregate::sand_pour(&mut sand, 16, 0.05, 0).expect("pour");
    sand.step(scenes::DT).expect("step");
    gone(&ctx);
    check(
        "aggregate step",
        guard(&mut || sand.step(scenes::DT).map(|_| ())),
    );
    check(
        "aggregate read",
        guard(&mut || sand.read_snapshot().map(|_| ())),
    );

    let ctx = own_device();
    let (mut rigid, _) =
        scenes::rigid::pyramid(Backend::Gpu(ctx.clone()), 3, 0.5).expect("pyramid");
    rigid.step(scenes::DT).expect("step");
    gone(&ctx);
    check(
        "rigid step",
        guard(&mut || rigid.step(scenes::DT).map(|_| ())),
    );
    check("rigid read", guard(&mut || rigid.read_bodies().map(|_| ())));
}

/// A renderer learns when the rigid world's buffers are replaced from `buffers_generation`:
/// growing past the body capacity (auto-grow) makes new buffers and a new generation; steps and
/// edits that fit keep both.
#[test]
fn the_rigid_buffers_generation_marks_replaced_buffers() {
    use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
    let cfg = RigidConfig {
        body_capacity: 4,
        auto_grow: true,
        ..RigidConfig::default()
    };
    let mut w = RigidWorld::new(Backend::Gpu(common::shared_gpu()), cfg).expect("world");
    let ball = |x: f32| RigidBody::dynamic().position(Vec3::new(x, 1.0, 0.0));
    for i in 0..4 {
        w.add_body(ball(i as f32), &[Collider::sphere(0.3)])
            .unwrap();
    }
    w.step(1.0 / 60.0).unwrap();
    let g0 = w.buffers_generation();
    let bodies0 = w.render_buffers().unwrap().bodies.clone();
    assert_eq!(w.render_buffers().unwrap().generation, g0);
    assert_eq!(w.render_buffers().unwrap().shape_slots, 4);
    w.step(1.0 / 60.0).unwrap();
    assert_eq!(
        w.buffers_generation(),
        g0,
        "a step that fits keeps the buffers"
    );
    assert!(*w.render_buffers().unwrap().bodies == bodies0);
    w.add_body(ball(9.0), &[Collider::sphere(0.3)]).unwrap();
    assert!(
        w.buffers_generation() > g0,
        "growing makes a new generation"
    );
    let grown = w.render_buffers().unwrap();
    assert_eq!(grown.generation, w.buffers_generation());
    assert!(*grown.bodies != bodies0, "and new buffers");
    assert_eq!(grown.shape_slots, 5);
    let cpu = RigidWorld::new(Backend::Cpu, RigidConfig::default()).unwrap();
    assert_eq!(cpu.buffers_generation(), 0);
    assert!(cpu.render_buffers().is_none());
}
