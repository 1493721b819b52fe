//! Sorting for alpha blending: with a view set, the published order holds every live slot once,
//! farthest first by view depth, after every step (deaths, spawns and compaction in between),
//! and follows the camera when it moves; off, there is no order.

mod common;

use common::*;
use glam::Vec3;
use std::collections::HashSet;
use wgphys::particles::view_sort::depth_key;
use wgphys::particles::{EmitShape, Emitter, Particle, ParticleWorld, ViewSort, WorldConfig};
use wgphys::Backend;
use wgphys::Error;

const DT: f32 = 1.0 / 60.0;

fn world(backend: Backend) -> ParticleWorld {
    let mut w = ParticleWorld::new(
        backend,
        WorldConfig {
            capacity: 4096,
            seed: 21,
            ..WorldConfig::default()
        },
    )
    .expect("world");
    let mut rng = Rng::new(4);
    for i in 0..700 {
        let mut p = Particle::new(rng.vec3(-40.0, 40.0)).with_velocity(rng.vec3(-3.0, 3.0));
        if i % 3 == 0 {
            p.lifetime = Some(rng.range(0.05, 0.4));
        }
        w.spawn(p).expect("spawn");
    }
    w.add_emitter(Emitter {
        rate: 900.0,
        shape: EmitShape::Sphere { radius: 20.0 },
        lifetime: (0.1, 0.3),
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..Emitter::default()
    })
    .expect("emitter");
    w
}

/// Checks `order` against the live particles: a permutation of the live slots, farthest first.
/// On the CPU the keys are non-decreasing exactly (the order is a stable sort of them). The GPU
/// computed its keys from the same f32 positions with a dot product that may round
/// differently (fused or not: three roundings of terms up to 80 m, an ulp there is 7.6e-6):
/// depths recomputed here in f64 are non-increasing within 5e-5 m.
fn check_order(what: &str, w: &ParticleWorld, view: ViewSort, exact: bool) {
    let order = w.read_order().expect("read").expect("the order is on");
    let snap = w.read_snapshot().expect("snapshot");
    assert_eq!(
        order.len(),
        snap.len(),
        "{what}: one entry per live particle"
    );
    let seen: HashSet<u32> = order.iter().copied().collect();
    assert!(
        seen.len() == order.len() && order.iter().all(|&s| (s as usize) < snap.len()),
        "{what}: the order is a permutation of the live slots"
    );
    let f = view.forward.normalize().as_dvec3();
    let depth =
        |slot: u32| (snap.pos[slot as usize].truncate().as_dvec3() - view.eye.as_dvec3()).dot(f);
    let gv = wgphys::particles::view_sort::GpuView {
        eye: view.eye.extend(0.0),
        forward: view.forward.normalize().extend(0.0),
    };
    for k in 1..order.len() {
        let (a, b) = (order[k - 1], order[k]);
        if exact {
            let (ka, kb) = (
                depth_key(&gv, snap.pos[a as usize].truncate()),
                depth_key(&gv, snap.pos[b as usize].truncate()),
            );
            assert!(
                ka < kb || (ka == kb && a < b),
                "{what}: entries {} and {k} out of order (keys {ka} {kb}, slots {a} {b})",
                k - 1
            );
        } else {
            assert!(
                depth(a) >= depth(b) - 5e-5,
                "{what}: entry {} (depth {}) before entry {k} (depth {})",
                k - 1,
                depth(a),
                depth(b)
            );
        }
    }
}

#[test]
fn the_order_is_back_to_front_after_every_step() {
    for (name, backend) in backends() {
        let mut w = world(backend);
        let mut view = ViewSort {
            eye: Vec3::new(0.0, 5.0, 60.0),
            forward: Vec3::new(0.0, -0.1, -1.0),
        };
        w.set_view_sort(Some(view)).expect("view");
        for s in 1..=24 {
            if s == 12 {
                // The camera turns to look along +x from the left.
                view = ViewSort {
                    eye: Vec3::new(-70.0, 0.0, 0.0),
                    forward: Vec3::X,
                };
                w.set_view_sort(Some(view)).expect("view");
            }
            w.step(DT).expect("step");
            if s % 4 == 0 {
                check_order(&format!("{name} step {s}"), &w, view, name == "cpu");
            }
        }
        let live = w.read_snapshot().expect("snapshot").len();
        assert!(live > 500, "{name}: the scene ran ({live} live)");
        w.set_view_sort(None).expect("off");
        w.step(DT).expect("step");
        assert_eq!(w.read_order().expect("read"), None, "{name}: off");
        if let Some(b) = w.render_buffers() {
            assert!(b.order.is_none(), "{name}: no order buffer when off");
        }
    }
}

#[test]
fn a_bad_view_is_refused() {
    let mut w = world(Backend::Cpu);
    for (view, what) in [
        (
            ViewSort {
                eye: Vec3::ZERO,
                forward: Vec3::ZERO,
            },
            "view_sort.forward",
        ),
        (
            ViewSort {
                eye: Vec3::NAN,
                forward: Vec3::Z,
            },
            "view_sort.eye",
        ),
    ] {
        let r = w.set_view_sort(Some(view));
        assert!(
            matches!(&r, Err(Error::InvalidInput { what: w, .. }) if *w == what),
            "{what}: {r:?}"
        );
        assert_eq!(w.read_order().expect("read"), None, "{what}: still off");
    }
}
