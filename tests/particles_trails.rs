//! Trails: every live particle's ring holds its last K positions, newest at (n − 1) mod K
//! after n steps, and its first position for the steps before it lived, through deaths,
//! compaction, host spawns and emitters, bit for bit, on both backends.

mod common;

use common::*;
use glam::Vec4;
use std::collections::HashMap;
use wgphys::particles::{EmitShape, Emitter, Particle, ParticleWorld, WorldConfig};
use wgphys::Backend;
use wgphys::Error;

const K: u32 = 5;

#[test]
fn trails_hold_each_particles_last_positions() {
    for (name, backend) in backends() {
        let mut w = ParticleWorld::new(
            backend,
            WorldConfig {
                capacity: 2048,
                trail_length: K,
                ..WorldConfig::default()
            },
        )
        .expect("world");
        w.add_emitter(Emitter {
            rate: 300.0,
            shape: EmitShape::Sphere { radius: 1.0 },
            lifetime: (0.05, 0.25),
            acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
            ..Emitter::default()
        })
        .expect("emitter");
        let mut rng = Rng::new(8);
        let mut history: HashMap<u32, Vec<Vec4>> = HashMap::new();
        for n in 1..=40u32 {
            for _ in 0..rng.below(6) {
                let mut p = Particle::new(rng.vec3(-2.0, 2.0)).with_velocity(rng.vec3(-1.0, 1.0));
                p.lifetime = Some(rng.range(0.05, 0.3));
                w.spawn(p).expect("spawn");
            }
            w.step(1.0 / 60.0).expect("step");
            let snap = w.read_snapshot().expect("snapshot");
            for (i, life) in snap.life.iter().enumerate() {
                history.entry(life.id).or_default().push(snap.pos[i]);
            }
            let trails = w.read_trails().expect("trails");
            assert_eq!(trails.len(), snap.len() * K as usize, "{name} step {n}");
            for (i, life) in snap.life.iter().enumerate() {
                let h = &history[&life.id];
                for j in 0..K as usize {
                    let want = if j < h.len() {
                        h[h.len() - 1 - j]
                    } else {
                        h[0]
                    };
                    let at = ((n - 1) as usize + K as usize * 8 - j) % K as usize;
                    assert_eq!(
                        trails[i * K as usize + at],
                        want,
                        "{name} step {n}: slot {i} (id {:#x}), {j} steps back",
                        life.id
                    );
                }
            }
        }
        let live = w.read_snapshot().expect("snapshot").len();
        assert!(live > 20, "{name}: the scene ran ({live} live)");
    }
}

#[test]
fn a_trail_too_long_is_refused() {
    let r = ParticleWorld::new(
        Backend::Cpu,
        WorldConfig {
            trail_length: 65,
            ..WorldConfig::default()
        },
    );
    assert!(
        matches!(
            &r,
            Err(Error::InvalidInput {
                what: "trail_length",
                ..
            })
        ),
        "{:?}",
        r.err()
    );
}

/// `auto_grow` stops at the largest pool the device holds. On a device whose storage bindings
/// hold 1 MiB, trails of 64 positions (1 KiB a particle) cap the pool at 1,024 particles: an
/// emitter that wants 4,000 live grows the pool from 256 to exactly that cap and no further,
/// the device stays usable (the world steps and reads back), and the refused spawns stay
/// counted in the status.
#[test]
fn auto_grow_stops_at_what_the_device_holds() {
    let (device, queue, info) = device_with(|l| wgpu::Limits {
        max_storage_buffer_binding_size: 1 << 20,
        max_buffer_size: 1 << 20,
        ..l
    });
    let ctx = wgphys::gpu::GpuContext::from_device(device, queue, info).expect("context");
    let mut w = ParticleWorld::new(
        Backend::Gpu(ctx),
        WorldConfig {
            capacity: 256,
            trail_length: 64,
            auto_grow: true,
            ..WorldConfig::default()
        },
    )
    .expect("world");
    w.add_emitter(Emitter {
        rate: 2000.0,
        lifetime: (2.0, 2.0),
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..Emitter::default()
    })
    .expect("emitter");
    for _ in 0..120 {
        w.step(1.0 / 60.0).expect("step");
    }
    w.read_snapshot().expect("the device still reads back");
    assert_eq!(w.capacity(), 1024, "grown to the device's cap");
    let status = w.read_status().expect("status");
    assert!(
        status.dropped_total > 0,
        "the spawns beyond the cap are counted: {status:?}"
    );
}
