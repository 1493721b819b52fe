//! Sub-emitters: an emitted particle that dies, or strikes a collider, emits a child emitter's
//! particles around itself, counted and placed like firework children, on both backends, the
//! GPU's bookkeeping identical to the CPU twin's.

mod common;

use common::*;
use glam::Vec3;
use wgphys::particles::{
    Burst, EmitShape, EmitVelocity, Emitter, ParticleCollider, ParticleWorld, SubTrigger,
    WorldConfig,
};
use wgphys::Backend;

fn world(backend: Backend, colliders: Vec<ParticleCollider>) -> ParticleWorld {
    ParticleWorld::new(
        backend,
        WorldConfig {
            capacity: 4096,
            seed: 5,
            colliders,
            ..WorldConfig::default()
        },
    )
    .expect("world")
}

/// A child template: emits nothing by itself (rate 0), long-lived, from a ball of 0.1 m.
fn template() -> Emitter {
    Emitter {
        rate: 0.0,
        shape: EmitShape::Sphere { radius: 0.1 },
        velocity: EmitVelocity::Radial { speed: (0.0, 0.0) },
        lifetime: (10.0, 10.0),
        acceleration: Vec3::ZERO,
        ..Emitter::default()
    }
}

/// 20 resting parents living exactly 0.5 s (32 steps of 1/64 s after the step that spawns
/// them) each leave 3 children on death, all within the child shape's 0.1 m of a parent (plus a
/// few ulps of 5 m); nothing before; after the child emitter is removed, deaths leave none.
#[test]
fn death_children_appear_around_their_parents() {
    let dt = 1.0f32 / 64.0;
    for (name, backend) in backends() {
        let mut w = world(backend, Vec::new());
        let parent = w
            .add_emitter(Emitter {
                rate: 0.0,
                bursts: vec![Burst {
                    time: 0.0,
                    count: 20,
                }],
                shape: EmitShape::Box {
                    half_extents: Vec3::splat(5.0),
                },
                velocity: EmitVelocity::Radial { speed: (0.0, 0.0) },
                lifetime: (0.5, 0.5),
                acceleration: Vec3::ZERO,
                ..Emitter::default()
            })
            .expect("parent");
        let child = w.add_emitter(template()).expect("child");
        w.set_sub_emitter(parent, SubTrigger::Death, Some((child, 3)))
            .expect("sub-emitter");
        w.step(dt).expect("spawn step");
        let parents: Vec<Vec3> = w
            .read_snapshot()
            .expect("snapshot")
            .pos
            .iter()
            .map(|p| p.truncate())
            .collect();
        assert_eq!(parents.len(), 20, "{name}");
        for s in 2..=33 {
            w.step(dt).expect("step");
            let c = w.read_counters().expect("counters");
            if s < 33 {
                assert_eq!((c.live, c.children_wanted), (20, 0), "{name} step {s}");
            } else {
                assert_eq!(
                    (c.dead, c.children_wanted, c.live),
                    (20, 60, 60),
                    "{name} step {s}"
                );
            }
        }
        let kids = w.read_snapshot().expect("snapshot");
        for (k, p) in kids.pos.iter().enumerate() {
            let near = parents
                .iter()
                .map(|q| (p.truncate() - *q).length())
                .fold(f32::INFINITY, f32::min);
            assert!(
                near <= 0.1 + 1e-5,
                "{name}: child {k} is {near} m from every parent"
            );
        }
        // A second burst after the child emitter is gone: its deaths leave nothing.
        w.remove_emitter(child).expect("remove child");
        w.set_emitter(
            parent,
            Emitter {
                rate: 0.0,
                bursts: vec![Burst {
                    time: 0.6,
                    count: 5,
                }],
                lifetime: (0.1, 0.1),
                velocity: EmitVelocity::Radial { speed: (0.0, 0.0) },
                acceleration: Vec3::ZERO,
                ..Emitter::default()
            },
        )
        .expect("re-arm");
        for _ in 0..20 {
            w.step(dt).expect("step");
        }
        let c = w.read_counters().expect("counters");
        assert_eq!(c.live, 60, "{name}: the five died and left no children");
    }
}

/// Particles rain onto the ground and each impact leaves 2 children: the GPU counts the same
/// impacts and children as the CPU twin, step by step (the integer bookkeeping is exact on
/// both), and the children start around the impact points, on the ground.
///
/// Exact counts, because an impact is a decision (the contact test against −slop) that flips
/// only when a drop's penetration lands within the two sides' position difference of its
/// threshold (model 3 of tests/common/error_model.rs): a drop drawn on a 2 m disc (its start
/// differs by the disc's 26u of 2 m, `error_model::emission`) and falling ≤ 25 steps at ≤ 6 m/s
/// differs by a few µm, and it crosses the threshold in steps of v·dt ≥ 5 cm, so a flip has
/// probability about 2·5e-6/0.05 = 2e-4 per impact, under 10⁻² over the run's ~40 impacts.
#[test]
fn impact_children_match_the_cpu_twin() {
    let run = |backend: Backend| -> Vec<(u32, u32)> {
        let mut w = world(backend, vec![ParticleCollider::ground(0.2, 0.5)]);
        let rain = w
            .add_emitter(Emitter {
                rate: 120.0,
                shape: EmitShape::Disc { radius: 2.0 },
                velocity: EmitVelocity::Directional {
                    direction: Vec3::NEG_Y,
                    spread: 0.0,
                    speed: (3.0, 4.0),
                },
                lifetime: (3.0, 3.0),
                position: Vec3::new(0.0, 1.5, 0.0),
                acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                ..Emitter::default()
            })
            .expect("rain");
        let splash = w
            .add_emitter(Emitter {
                shape: EmitShape::Point,
                velocity: EmitVelocity::Directional {
                    direction: Vec3::Y,
                    spread: 0.6,
                    speed: (0.5, 1.0),
                },
                lifetime: (0.2, 0.3),
                ..template()
            })
            .expect("splash");
        w.set_sub_emitter(rain, SubTrigger::Impact, Some((splash, 2)))
            .expect("sub");
        (0..60)
            .map(|_| {
                w.step(1.0 / 60.0).expect("step");
                let c = w.read_counters().expect("counters");
                (c.children_wanted, c.live)
            })
            .collect()
    };
    let (g, c) = (run(Backend::Gpu(gpu())), run(Backend::Cpu));
    assert_eq!(g, c, "impact children per step and live counts, GPU vs CPU");
    let total: u32 = c.iter().map(|x| x.0).sum();
    assert!(total >= 40, "the rain hit the ground: {total} children");
    assert!(c.iter().all(|x| x.0 % 2 == 0), "two children per impact");
}

/// The cap on children per parent is what one `emit` thread can write: 8 parents dying in the
/// same step (consecutive slots, so two threads of four parents each, 16,384 children apiece)
/// with `MAX_CHILDREN_PER_RULE` children each leave every child alive a step later, on both
/// backends (an unwritten child record has a lifetime of 0 and dies at once); one more child
/// per parent is refused with the sub-emitter unchanged.
#[test]
fn a_full_payload_per_parent_is_written_and_more_is_refused() {
    use wgphys::fireworks::MAX_CHILDREN_PER_RULE;
    let cap = MAX_CHILDREN_PER_RULE;
    for (name, backend) in backends() {
        let mut w = ParticleWorld::new(
            backend,
            WorldConfig {
                capacity: 8 * cap + 64,
                seed: 5,
                ..WorldConfig::default()
            },
        )
        .expect("world");
        let parent = w
            .add_emitter(Emitter {
                rate: 0.0,
                bursts: vec![Burst {
                    time: 0.0,
                    count: 8,
                }],
                velocity: EmitVelocity::Radial { speed: (0.0, 0.0) },
                lifetime: (0.05, 0.05),
                acceleration: Vec3::ZERO,
                ..Emitter::default()
            })
            .expect("parent");
        let child = w.add_emitter(template()).expect("child");
        let r = w.set_sub_emitter(parent, SubTrigger::Death, Some((child, cap + 1)));
        assert!(
            matches!(
                r,
                Err(wgphys::Error::InvalidInput {
                    what: "sub-emitter count",
                    ..
                })
            ),
            "{name}: {r:?}"
        );
        w.set_sub_emitter(parent, SubTrigger::Death, Some((child, cap)))
            .expect("a full payload");
        let mut most = 0;
        for _ in 0..8 {
            w.step(1.0 / 60.0).expect("step");
            most = most.max(w.read_counters().expect("counters").live);
        }
        let live = w.read_counters().expect("counters").live;
        assert_eq!(most, 8 * cap, "{name}: every child was spawned");
        assert_eq!(
            live,
            8 * cap,
            "{name}: every child was written and lives on"
        );
    }
}
