//! Bad input gives a clear, typed error and leaves the world unchanged.
//!
//! "Unchanged" is checked against a control world built and driven identically except for the
//! failed call: right after the call the world's snapshot, counters and step count are what they
//! were before it, and after one more step on both its snapshot and counters equal the control's,
//! bit for bit (so nothing was half-queued by the failed call).

mod common;

use common::*;
use glam::{Quat, Vec3};
use wgphys::particles::{
    ColliderShape, ForceField, Particle, ParticleCollider, ParticleWorld, WorldConfig,
};
use wgphys::Backend;
use wgphys::Error;

const DT: f32 = 1.0 / 60.0;

fn config() -> WorldConfig {
    WorldConfig {
        capacity: 64,
        seed: 9,
        fields: vec![
            ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0)),
            ForceField::Drag { k1: 0.05, k2: 0.01 },
        ],
        colliders: vec![ParticleCollider::ground(0.3, 0.5)],
        ..WorldConfig::default()
    }
}

/// A world that receives the bad calls and its control.
struct Twin {
    name: &'static str,
    w: ParticleWorld,
    control: ParticleWorld,
}

impl Twin {
    fn new(name: &'static str, make: impl Fn() -> Backend) -> Self {
        let mut w = ParticleWorld::new(make(), config()).expect("world");
        let mut control = ParticleWorld::new(make(), config()).expect("control world");
        for i in 0..5 {
            let p = Particle::new(Vec3::new(i as f32, 0.5 + i as f32, 0.0))
                .with_velocity(Vec3::new(1.0, 2.0, -1.0))
                .with_size(0.1);
            w.spawn(p).expect("spawn");
            control.spawn(p).expect("spawn");
        }
        w.launch(1).expect("launch");
        control.launch(1).expect("launch");
        let mut t = Self { name, w, control };
        t.step_both();
        t
    }

    fn step_both(&mut self) {
        self.w.step(DT).expect("step");
        self.control.step(DT).expect("control step");
    }

    /// Applies `call` to both worlds (a legitimate call both must see).
    fn both<T>(&mut self, call: impl Fn(&mut ParticleWorld) -> Result<T, Error>) -> (T, T) {
        (
            call(&mut self.w).expect("call on the world"),
            call(&mut self.control).expect("call on the control"),
        )
    }

    /// Makes a call that must fail with an error `want` accepts, then checks the world is
    /// unchanged.
    fn rejects<T: std::fmt::Debug>(
        &mut self,
        case: &str,
        call: impl FnOnce(&mut ParticleWorld) -> Result<T, Error>,
        want: impl Fn(&Error) -> bool,
    ) {
        let name = self.name;
        let before = self.w.read_snapshot().expect("snapshot");
        let before_counters = self.w.read_counters().expect("counters");
        let before_steps = self.w.steps();
        match call(&mut self.w) {
            Ok(v) => panic!("{name}: {case}: accepted (returned {v:?}); expected an error"),
            Err(e) => {
                assert!(want(&e), "{name}: {case}: wrong error {e:?}");
                assert!(
                    !e.to_string().is_empty(),
                    "{name}: {case}: empty error message"
                );
            }
        }
        assert_eq!(
            self.w.steps(),
            before_steps,
            "{name}: {case}: the step count moved"
        );
        assert_eq!(
            self.w.read_snapshot().expect("snapshot"),
            before,
            "{name}: {case}: the snapshot changed"
        );
        assert_counters_eq(
            &format!("{name}: {case}: counters"),
            &self.w.read_counters().expect("counters"),
            &before_counters,
        );
        self.step_both();
        let (a, b) = (
            self.w.read_snapshot().expect("snapshot"),
            self.control.read_snapshot().expect("snapshot"),
        );
        compare_snapshots(
            &format!("{name}: {case}: one step later, vs the control"),
            &a,
            &b,
            SnapTol::EXACT,
        );
        assert_counters_eq(
            &format!("{name}: {case}: one step later, vs the control"),
            &self.w.read_counters().unwrap(),
            &self.control.read_counters().unwrap(),
        );
    }
}

fn invalid(what: &'static str) -> impl Fn(&Error) -> bool {
    move |e| {
        matches!(e, Error::InvalidInput { what: w, .. } if *w == what)
            && e.to_string().contains(what)
    }
}

fn twins() -> Vec<Twin> {
    vec![
        Twin::new("cpu", || Backend::Cpu),
        Twin::new("gpu", || Backend::Gpu(gpu())),
    ]
}

#[test]
fn non_finite_particle_fields_are_rejected() {
    let ok = Particle::new(Vec3::new(0.0, 1.0, 0.0));
    for mut t in twins() {
        for (case, p, what) in [
            (
                "NaN position",
                Particle {
                    position: Vec3::new(f32::NAN, 0.0, 0.0),
                    ..ok
                },
                "particle.position",
            ),
            (
                "infinite position",
                Particle {
                    position: Vec3::new(0.0, f32::INFINITY, 0.0),
                    ..ok
                },
                "particle.position",
            ),
            (
                "NaN velocity",
                ok.with_velocity(Vec3::new(0.0, 0.0, f32::NAN)),
                "particle.velocity",
            ),
            (
                "infinite velocity",
                ok.with_velocity(Vec3::new(f32::NEG_INFINITY, 0.0, 0.0)),
                "particle.velocity",
            ),
            (
                "NaN acceleration",
                ok.with_acceleration(Vec3::splat(f32::NAN)),
                "particle.acceleration",
            ),
            ("damping 1.5", ok.with_damping(1.5), "particle.damping"),
            ("NaN damping", ok.with_damping(f32::NAN), "particle.damping"),
            ("lifetime 0", ok.with_lifetime(0.0), "particle.lifetime"),
            (
                "infinite lifetime",
                ok.with_lifetime(f32::INFINITY),
                "particle.lifetime",
            ),
            ("negative size", ok.with_size(-0.1), "particle.size"),
            (
                "negative inverse mass",
                ok.with_inverse_mass(-1.0),
                "particle.inverse_mass",
            ),
        ] {
            t.rejects(case, |w| w.spawn(p), invalid(what));
        }
    }
}

/// Zero, negative and NaN masses are all refused, naming the inverse mass (`with_mass` stores
/// 1/m; the doc promises "zero, negative or NaN is rejected at spawn").
#[test]
fn bad_masses_are_rejected() {
    let ok = Particle::new(Vec3::new(0.0, 1.0, 0.0));
    let masses = [0.0f32, -0.0, f32::NAN, -1.0, -2.0, -1e-3, f32::NEG_INFINITY];
    let accepted: Vec<(f32, f32)> = masses
        .iter()
        .map(|&m| (m, ok.with_mass(m)))
        .filter(|(_, p)| p.validate().is_ok())
        .map(|(m, p)| (m, p.inverse_mass))
        .collect();
    assert!(accepted.is_empty(), "with_mass accepts these (mass, stored inverse mass) pairs as valid particles: {accepted:?}");
    for mut t in twins() {
        for m in masses {
            t.rejects(
                &format!("mass {m}"),
                |w| w.spawn(ok.with_mass(m)),
                invalid("particle.inverse_mass"),
            );
        }
    }
}

#[test]
fn bad_time_steps_are_rejected_and_queued_spawns_wait() {
    for mut t in twins() {
        // A spawn queued before the failed steps must survive them and land with the next good
        // step, on both worlds alike.
        t.both(|w| w.spawn(Particle::new(Vec3::new(0.0, 3.0, 0.0))));
        for dt in [
            0.0f32,
            -0.0,
            -DT,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ] {
            t.rejects(
                &format!("dt = {dt}"),
                |w| w.step(dt),
                |e| matches!(e, Error::InvalidTimeStep(x) if x.to_bits() == dt.to_bits()),
            );
        }
    }
}

#[test]
fn stale_handles_are_rejected() {
    for mut t in twins() {
        let (hw, hc) = t.both(|w| w.spawn(Particle::new(Vec3::new(0.0, 2.0, 0.0))));
        t.step_both();
        t.w.remove(hw).expect("first removal");
        t.control.remove(hc).expect("first removal");
        t.rejects(
            "remove twice before the step",
            |w| w.remove(hw),
            |e| {
                *e == Error::StaleHandle {
                    kind: "particle",
                    id: hw.id(),
                }
            },
        );
        t.rejects(
            "remove after the particle left",
            |w| w.remove(hw),
            |e| {
                *e == Error::StaleHandle {
                    kind: "particle",
                    id: hw.id(),
                }
            },
        );
        // A particle removed while still queued never reached the pool: its handle is stale too.
        let (qw, qc) = t.both(|w| w.spawn(Particle::new(Vec3::new(1.0, 2.0, 0.0))));
        t.w.remove(qw).expect("remove queued");
        t.control.remove(qc).expect("remove queued");
        t.rejects(
            "remove a queued particle twice",
            |w| w.remove(qw),
            |e| {
                *e == Error::StaleHandle {
                    kind: "particle",
                    id: qw.id(),
                }
            },
        );
        // An expired particle's handle is stale.
        let (ew, _) =
            t.both(|w| w.spawn(Particle::new(Vec3::new(2.0, 2.0, 0.0)).with_lifetime(DT)));
        t.step_both();
        t.step_both();
        t.rejects(
            "remove an expired particle",
            |w| w.remove(ew),
            |e| {
                *e == Error::StaleHandle {
                    kind: "particle",
                    id: ew.id(),
                }
            },
        );
    }
}

/// `remove` documents StaleHandle for a handle "not from this world". Two worlds issue the same
/// ids, so a handle from one must not remove the other's particle.
#[test]
fn handle_from_another_world_is_rejected() {
    for (name, backend) in backends() {
        let mut a = ParticleWorld::new(backend.clone(), config()).expect("world a");
        let mut b = ParticleWorld::new(backend, config()).expect("world b");
        let _mine = a
            .spawn(Particle::new(Vec3::new(0.0, 1.0, 0.0)))
            .expect("spawn a");
        let theirs = b
            .spawn(Particle::new(Vec3::new(0.0, 1.0, 0.0)))
            .expect("spawn b");
        a.step(DT).unwrap();
        let r = a.remove(theirs);
        a.step(DT).unwrap();
        let live = a.read_snapshot().unwrap().len();
        assert!(
            matches!(r, Err(Error::StaleHandle { .. })) && live == 1,
            "{name}: a handle from world b was accepted by world a ({r:?}) and removed its particle (live now {live})"
        );
    }
}

#[test]
fn unknown_firework_types_are_rejected() {
    let max = wgphys::fireworks::FireworkRules::book().max_type();
    for mut t in twins() {
        for ty in [0, max + 1, u32::MAX] {
            let want = move |e: &Error| *e == Error::UnknownFireworkType { ty, max };
            t.rejects(&format!("launch({ty})"), |w| w.launch(ty), want);
            t.rejects(
                &format!("spawn_firework({ty})"),
                |w| w.spawn_firework(ty, Vec3::Y, Vec3::Y, 1.0),
                want,
            );
        }
        t.rejects(
            "firework at NaN",
            |w| w.spawn_firework(1, Vec3::NAN, Vec3::Y, 1.0),
            invalid("firework.position"),
        );
        t.rejects(
            "firework velocity inf",
            |w| w.spawn_firework(1, Vec3::Y, Vec3::INFINITY, 1.0),
            invalid("firework.velocity"),
        );
        t.rejects(
            "fuse 0",
            |w| w.spawn_firework(1, Vec3::Y, Vec3::Y, 0.0),
            invalid("firework.fuse"),
        );
        t.rejects(
            "fuse NaN",
            |w| w.spawn_firework(1, Vec3::Y, Vec3::Y, f32::NAN),
            invalid("firework.fuse"),
        );
    }
}

#[test]
fn bad_colliders_are_rejected_and_the_old_ones_stay() {
    let ground = ParticleCollider::ground(0.3, 0.5);
    let cases = [
        (
            "zero normal",
            ParticleCollider {
                shape: ColliderShape::HalfSpace {
                    normal: Vec3::ZERO,
                    offset: 0.0,
                },
                ..ground
            },
            "collider.normal",
        ),
        (
            "NaN normal",
            ParticleCollider {
                shape: ColliderShape::HalfSpace {
                    normal: Vec3::NAN,
                    offset: 0.0,
                },
                ..ground
            },
            "collider.normal",
        ),
        (
            "negative radius",
            ParticleCollider {
                shape: ColliderShape::Sphere {
                    centre: Vec3::ZERO,
                    radius: -1.0,
                },
                ..ground
            },
            "collider.radius",
        ),
        (
            "zero radius",
            ParticleCollider {
                shape: ColliderShape::Sphere {
                    centre: Vec3::ZERO,
                    radius: 0.0,
                },
                ..ground
            },
            "collider.radius",
        ),
        (
            "flat box",
            ParticleCollider {
                shape: ColliderShape::Box {
                    centre: Vec3::ZERO,
                    half_extents: Vec3::new(1.0, 0.0, 1.0),
                    rotation: Quat::IDENTITY,
                },
                ..ground
            },
            "collider.half_extents",
        ),
        (
            "zero quaternion",
            ParticleCollider {
                shape: ColliderShape::Box {
                    centre: Vec3::ZERO,
                    half_extents: Vec3::ONE,
                    rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                },
                ..ground
            },
            "collider.rotation",
        ),
        (
            "restitution 2",
            ParticleCollider {
                restitution: 2.0,
                ..ground
            },
            "collider.restitution",
        ),
        (
            "negative friction",
            ParticleCollider {
                friction: -0.1,
                ..ground
            },
            "collider.friction",
        ),
    ];
    for mut t in twins() {
        for (case, bad, what) in cases {
            // The bad collider comes after a good one: nothing of the list may be applied.
            let sphere = ParticleCollider {
                shape: ColliderShape::Sphere {
                    centre: Vec3::new(0.0, 1.0, 0.0),
                    radius: 0.5,
                },
                ..ground
            };
            t.rejects(case, |w| w.set_colliders(vec![sphere, bad]), invalid(what));
            // The same collider in a config is refused by `new`.
            let e = ParticleWorld::new(
                Backend::Cpu,
                WorldConfig {
                    colliders: vec![bad],
                    ..config()
                },
            )
            .err();
            assert!(
                e.as_ref().is_some_and(invalid(what)),
                "{case}: new() with it gave {e:?}"
            );
        }
    }
}

#[test]
fn bad_fields_are_rejected_and_the_old_ones_stay() {
    for mut t in twins() {
        let seventeen = vec![ForceField::Gravity(Vec3::new(0.0, -0.5, 0.0)); 17];
        t.rejects(
            "17 fields",
            |w| w.set_fields(seventeen.clone()),
            |e| *e == Error::TooManyFields { count: 17, max: 16 },
        );
        let e = ParticleWorld::new(
            Backend::Cpu,
            WorldConfig {
                fields: seventeen,
                ..config()
            },
        )
        .err();
        assert_eq!(
            e,
            Some(Error::TooManyFields { count: 17, max: 16 }),
            "new() with 17 fields"
        );
        for (case, f, what) in [
            (
                "NaN gravity",
                ForceField::Gravity(Vec3::NAN),
                "field.gravity",
            ),
            (
                "negative drag",
                ForceField::Drag { k1: -1.0, k2: 0.0 },
                "field.drag.k1",
            ),
            (
                "NaN quadratic drag",
                ForceField::Drag {
                    k1: 0.0,
                    k2: f32::NAN,
                },
                "field.drag.k2",
            ),
            (
                "wind at inf",
                ForceField::Wind {
                    velocity: Vec3::INFINITY,
                    k1: 0.1,
                    k2: 0.0,
                },
                "field.wind.velocity",
            ),
            (
                "attractor softening 0",
                ForceField::Attractor {
                    centre: Vec3::ZERO,
                    strength: 1.0,
                    softening: 0.0,
                },
                "field.attractor.softening",
            ),
            (
                "attractor NaN strength",
                ForceField::Attractor {
                    centre: Vec3::ZERO,
                    strength: f32::NAN,
                    softening: 1.0,
                },
                "field.attractor.strength",
            ),
        ] {
            t.rejects(
                case,
                |w| w.set_fields(vec![ForceField::Gravity(Vec3::new(1.0, 0.0, 0.0)), f]),
                invalid(what),
            );
        }
    }
}

#[test]
fn shrinking_the_pool_is_rejected() {
    for mut t in twins() {
        t.rejects(
            "grow(32) below capacity 64",
            |w| w.grow(32),
            |e| matches!(e, Error::InvalidCapacity { capacity: 32, .. }),
        );
        t.rejects(
            "grow(2^31)",
            |w| w.grow(1 << 31),
            |e| matches!(e, Error::InvalidCapacity { .. }),
        );
    }
}

/// A capacity whose buffers exceed the device limit is refused with the numbers to fix it, at
/// creation and when growing (and the grown-from world keeps working).
#[test]
fn capacity_beyond_the_device_limit_is_a_clean_error() {
    let huge = u32::MAX / 4;
    let ctx = gpu();
    let max_bytes = ctx.max_binding_bytes();
    let check = |e: &Error| match *e {
        Error::CapacityTooLarge {
            capacity,
            needed_bytes,
            max_bytes: m,
            max_capacity,
        } => {
            let per = needed_bytes / u64::from(capacity);
            capacity == huge
                && m == max_bytes
                && needed_bytes > m
                && u64::from(max_capacity) * per <= m
                && (u64::from(max_capacity) + 1) * per > m
        }
        _ => false,
    };
    let e = ParticleWorld::new(
        Backend::Gpu(ctx.clone()),
        WorldConfig {
            capacity: huge,
            ..WorldConfig::default()
        },
    )
    .err();
    assert!(
        e.as_ref().is_some_and(check),
        "new(capacity {huge}) gave {e:?}, device limit {max_bytes} bytes"
    );
    let mut t = Twin::new("gpu", || Backend::Gpu(ctx.clone()));
    t.rejects("grow(u32::MAX / 4)", |w| w.grow(huge), check);
}

#[test]
fn zero_capacity_is_rejected() {
    for (name, backend) in backends() {
        let e = ParticleWorld::new(
            backend,
            WorldConfig {
                capacity: 0,
                ..WorldConfig::default()
            },
        )
        .err();
        assert!(
            matches!(e, Some(Error::InvalidCapacity { capacity: 0, .. })),
            "{name}: capacity 0 gave {e:?}"
        );
    }
}

/// The collider, firework-rule and payload tables are uniform arrays of fixed size (so the
/// kernels fit WebGPU's 8 storage buffers per stage): one entry too many is `Error::TooMany`
/// naming the table and its size, and the old table stays; a table filled to the last entry
/// works, the last entry included.
#[test]
fn tables_beyond_their_uniform_size_are_rejected() {
    use wgphys::fireworks::{FireworkRule, FireworkRules};
    use wgphys::particles::types::{MAX_COLLIDERS, MAX_PAYLOADS, MAX_RULES};
    let far = ParticleCollider {
        shape: ColliderShape::Sphere {
            centre: Vec3::new(0.0, 1000.0, 0.0),
            radius: 0.5,
        },
        ..ParticleCollider::ground(0.0, 0.0)
    };
    let too_many = MAX_COLLIDERS as usize + 1;
    for mut t in twins() {
        t.rejects(
            "one collider too many",
            |w| w.set_colliders(vec![far; too_many]),
            |e| {
                matches!(e, Error::TooMany { what: "colliders", count, max, .. }
                    if *count == too_many && *max == MAX_COLLIDERS)
            },
        );
    }
    // A full table: MAX_COLLIDERS - 1 spheres out of reach, then the ground in the last slot. A
    // particle dropped from 1 m comes to rest on the ground (restitution 0), on both backends.
    for (name, backend) in backends() {
        let mut colliders = vec![far; MAX_COLLIDERS as usize - 1];
        colliders.push(ParticleCollider::ground(0.5, 0.0));
        let mut w = ParticleWorld::new(
            backend,
            WorldConfig {
                colliders,
                ..config()
            },
        )
        .expect("a full collider table is accepted");
        let radius = 0.1;
        w.spawn(Particle {
            size: radius,
            ..Particle::new(Vec3::new(0.0, 1.0, 0.0))
        })
        .expect("spawn");
        for _ in 0..120 {
            w.step(DT).expect("step");
        }
        let s = w.read_snapshot().expect("snapshot");
        let y = s.pos[0].y;
        // At rest the centre sits one radius above the plane: each step's contact puts it back
        // on the surface (p + n·(r − p·n): two roundings of half an ulp of 0.1 ≈ 7.5e-9 each)
        // and restitution 0 leaves no normal speed to carry it off again.
        assert!(
            (y - radius).abs() <= 1e-6,
            "{name}: the ground in the last collider slot holds the particle at y = {y}"
        );
    }
    // Rules and payload entries.
    let rule = |payload: Vec<(u32, u32)>| FireworkRule {
        payload,
        ..FireworkRules::book().rules[0].clone()
    };
    let many_rules = FireworkRules {
        rules: vec![rule(Vec::new()); MAX_RULES as usize + 1],
    };
    let e = ParticleWorld::new(
        Backend::Cpu,
        WorldConfig {
            fireworks: many_rules,
            ..config()
        },
    )
    .err();
    assert!(
        matches!(&e, Some(Error::TooMany { what: "firework rules", count, max, .. })
            if *count == MAX_RULES as usize + 1 && *max == MAX_RULES),
        "{e:?}"
    );
    let entries = MAX_PAYLOADS as usize / 2 + 1;
    let many_entries = FireworkRules {
        rules: vec![rule(vec![(1, 0); entries]), rule(vec![(1, 0); entries])],
    };
    let e = ParticleWorld::new(
        Backend::Cpu,
        WorldConfig {
            fireworks: many_entries,
            ..config()
        },
    )
    .err();
    assert!(
        matches!(&e, Some(Error::TooMany { count, max, .. })
            if *count == 2 * entries && *max == MAX_PAYLOADS),
        "{e:?}"
    );
}
