//! Several steps recorded into one caller's encoder before one submit, with edits between the
//! recordings, give the state the same `step()` calls give, bit for bit, on one adapter: for the
//! particle, aggregate and rigid worlds, with 1, 2 and 5 steps per submit.
//!
//! Each world's uploads (the step's parameters, spawns, removals, edits) are recorded into the
//! encoder as copies, so they keep their place between the steps; before that, a second step
//! in one encoder ran with the last step's uniforms and lost the spawns of the first.

mod common;

use glam::Vec3;
use wgphys::aggregate::{AggregateWorld, ParticleId};
use wgphys::gpu::GpuContext;
use wgphys::particles::{Particle, ParticleHandle, ParticleWorld};
use wgphys::rigid::forces::Explosion;
use wgphys::rigid::types::GpuBody;
use wgphys::rigid::RigidWorld;
use wgphys::scenes;
use wgphys::scenes::rigid as rigid_scenes;
use wgphys::Backend;

const STEPS: u64 = 20;
const PER_SUBMIT: [u64; 3] = [1, 2, 5];

/// Runs `STEPS` steps of `world`: `edit(world, step)` before each, then either `step()` or,
/// with `per_submit = Some(k)`, `encode(world, encoder)` into an encoder submitted every `k`
/// steps (and once more at the end).
fn drive<W>(
    ctx: &GpuContext,
    world: &mut W,
    per_submit: Option<u64>,
    mut edit: impl FnMut(&mut W, u64),
    mut step: impl FnMut(&mut W),
    mut encode: impl FnMut(&mut W, &mut wgpu::CommandEncoder),
) {
    let new_encoder = || {
        ctx.device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("caller"),
            })
    };
    let mut encoder = new_encoder();
    for s in 0..STEPS {
        edit(world, s);
        match per_submit {
            None => step(world),
            Some(k) => {
                encode(world, &mut encoder);
                if (s + 1) % k == 0 {
                    let full = std::mem::replace(&mut encoder, new_encoder());
                    ctx.queue.submit([full.finish()]);
                }
            }
        }
    }
    ctx.queue.submit([encoder.finish()]);
}

/// Fireworks launched by the show, plus one particle spawned every step and the one spawned
/// three steps before removed; status reads on (every step copies the counters).
#[test]
fn particle_world_steps_per_encoder_match_step() {
    let ctx = common::gpu();
    let run = |per_submit: Option<u64>| {
        let mut world = ParticleWorld::new(
            Backend::Gpu(ctx.clone()),
            scenes::fireworks_config(4096, 11),
        )
        .expect("world");
        let mut handles: Vec<ParticleHandle> = Vec::new();
        drive(
            &ctx,
            &mut world,
            per_submit,
            |w, s| {
                scenes::fireworks_tick(w).expect("launch");
                let p = Particle::new(Vec3::new(s as f32, 1.0, 0.0))
                    .with_velocity(Vec3::new(0.0, 2.0, 0.0));
                handles.push(w.spawn(p).expect("spawn"));
                if s >= 3 {
                    w.remove(handles[(s - 3) as usize]).expect("remove");
                }
            },
            |w| {
                w.step(scenes::DT).expect("step");
            },
            |w, e| {
                w.encode_step(scenes::DT, e).expect("encode");
            },
        );
        let alive: Vec<bool> = handles.iter().map(|&h| world.contains(h)).collect();
        (world.read_snapshot().expect("read"), alive)
    };
    let (reference, alive) = run(None);
    assert_eq!(
        alive.iter().filter(|&&a| a).count(),
        3,
        "the last three spawns are alive"
    );
    assert!(
        reference.len() > 3,
        "the show launched fireworks ({} live)",
        reference.len()
    );
    for k in PER_SUBMIT {
        let (got, got_alive) = run(Some(k));
        assert_eq!(got_alive, alive, "{k} steps per submit: handle liveness");
        assert_eq!(got, reference, "{k} steps per submit: particle state");
    }
}

/// Sand poured every fourth step (adding particles between recordings); a grain added at step
/// 9, its acceleration set at step 12 and the grain removed at step 15.
#[test]
fn aggregate_world_steps_per_encoder_match_step() {
    let ctx = common::gpu();
    let radius = 0.05;
    let run = |per_submit: Option<u64>| {
        let mut world =
            scenes::aggregate::sand(Backend::Gpu(ctx.clone()), 512, radius).expect("sand");
        let mut extra: Option<ParticleId> = None;
        drive(
            &ctx,
            &mut world,
            per_submit,
            |w: &mut AggregateWorld, s| {
                if s % 4 == 0 {
                    scenes::aggregate::sand_pour(w, 49, radius, s as u32).expect("pour");
                }
                match (s, extra) {
                    (9, _) => {
                        let p = Particle::new(Vec3::new(0.0, 0.3, 0.0)).with_size(radius);
                        extra = Some(w.add_particle(p).expect("add"));
                    }
                    (12, Some(id)) => w
                        .set_acceleration(id, Vec3::new(0.0, 5.0, 0.0))
                        .expect("acc"),
                    (15, Some(id)) => w.remove_particle(id).expect("remove"),
                    _ => {}
                }
            },
            |w| {
                w.step(scenes::DT).expect("step");
            },
            |w, e| {
                w.encode_step(scenes::DT, e).expect("encode");
            },
        );
        world.read_snapshot().expect("read")
    };
    let reference = run(None);
    assert!(reference.pos.len() > 200, "the pour added grains");
    for k in PER_SUBMIT {
        let got = run(Some(k));
        let same = got.pos == reference.pos && got.vel == reference.vel;
        assert!(
            same,
            "{k} steps per submit: grain state differs from step()"
        );
    }
}

/// A small pyramid: a box added at step 5, a velocity set at step 8, a body removed at step 12
/// and an explosion running from step 3 (its clock advances every step).
#[test]
fn rigid_world_steps_per_encoder_match_step() {
    let ctx = common::gpu();
    let run = |per_submit: Option<u64>| {
        let (mut world, boxes) =
            rigid_scenes::pyramid(Backend::Gpu(ctx.clone()), 4, 0.5).expect("pyramid");
        drive(
            &ctx,
            &mut world,
            per_submit,
            |w: &mut RigidWorld, s| match s {
                3 => w
                    .set_explosion(Some(Explosion::at(Vec3::new(0.0, 0.2, 1.5))))
                    .expect("explosion"),
                5 => {
                    rigid_scenes::add_box(
                        w,
                        Vec3::new(3.0, 2.0, 0.0),
                        Vec3::splat(0.3),
                        glam::Quat::IDENTITY,
                    )
                    .expect("box");
                }
                8 => w
                    .set_linear_velocity(boxes[0], Vec3::new(0.5, 0.0, 0.0))
                    .expect("velocity"),
                12 => w.remove_body(boxes[9]).expect("remove"),
                _ => {}
            },
            |w| {
                w.step(scenes::DT).expect("step");
            },
            |w, e| {
                w.encode_step(scenes::DT, e).expect("encode");
            },
        );
        world.read_bodies().expect("bodies")
    };
    let reference = run(None);
    let bytes = |b: &[GpuBody]| bytemuck::cast_slice::<GpuBody, u8>(b).to_vec();
    let moved = reference
        .iter()
        .any(|b| b.lin_vel.truncate().length() > 0.1);
    assert!(moved, "the explosion and the set velocity moved bodies");
    for k in PER_SUBMIT {
        let got = run(Some(k));
        assert!(
            bytes(&got) == bytes(&reference),
            "{k} steps per submit: bodies differ from step()"
        );
    }
}

/// A recording bigger than the ring keeps ([`wgphys::gpu::upload::KEEP_MAX_BYTES`]: a bulk
/// spawn of a big cloud) lands whole and in order, from a buffer of its own that the ring does
/// not hold afterwards; small recordings reuse a ring buffer no bigger than the limit.
#[test]
fn a_big_upload_lands_and_is_not_kept() {
    use wgphys::gpu::buffer;
    use wgphys::gpu::upload::{StepUploads, KEEP_MAX_BYTES};
    let ctx = common::gpu();
    let words = (KEEP_MAX_BYTES / 4 + 1000) as usize;
    let dst = buffer::zeroed(
        &ctx.device,
        "big_upload_dst",
        4 * words as u64,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
    );
    let uploads = StepUploads::new(&ctx, "big_upload");
    let data: Vec<u32> = (0..words as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    // Two writes to one place in one recording: the later one must win.
    uploads.write(&dst, 0, &[7u32; 16]);
    uploads.write(&dst, 0, &data);
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    uploads.record(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    let back: Vec<u32> = buffer::read_vec(&ctx.device, &ctx.queue, &dst, words).expect("read");
    assert!(back == data, "the big upload did not land whole");
    assert_eq!(
        uploads.held_bytes(),
        0,
        "the ring kept the big upload's buffer"
    );
    uploads.write(&dst, 0, &[1u32, 2, 3]);
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    uploads.record(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    let back: Vec<u32> = buffer::read_vec(&ctx.device, &ctx.queue, &dst, 4).expect("read");
    assert_eq!(back, [1, 2, 3, data[3]]);
    let held = uploads.held_bytes();
    assert!(
        held > 0 && held <= KEEP_MAX_BYTES,
        "ring holds {held} bytes"
    );
}
