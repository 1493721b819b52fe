//! Collider handles (issue 34, item 3), on both backends: colliders read back as they were
//! given and as they were set; a collider removed mid-fall stops colliding, a sensor flag set
//! between steps stops the response, a friction set between steps gives the slide distance
//! v²/(2μg); stale and foreign handles are `StaleHandle { kind: "collider" }` and bad values
//! are refused, the world unchanged; random scenes edited between steps agree between the GPU
//! and the CPU twin; a saved world keeps its colliders (the `serde` feature).

mod common;

use common::rigid::*;
use common::Rng;
use glam::{Quat, Vec3, Vec4Swizzles};
use wgphys::rigid::types::GpuBody;
use wgphys::rigid::{
    BodyHandle, Collider, ColliderHandle, RigidBody, RigidConfig, RigidWorld, Shape,
};
use wgphys::{Backend, Error};

fn read(w: &mut RigidWorld, h: BodyHandle) -> GpuBody {
    w.read_bodies().expect("read")[h.index() as usize]
}

/// Everything a user can read of the world: every body record and every live body's
/// colliders as read back.
fn full_read(w: &mut RigidWorld) -> (Vec<GpuBody>, Vec<Vec<Collider>>) {
    let bodies = w.read_bodies().expect("read");
    let colliders = (0..w.slots())
        .filter_map(|i| w.body_handle_at(i))
        .map(|b| {
            let cs = w.colliders_of(b).expect("colliders");
            cs.iter()
                .map(|&c| w.collider(c).expect("collider"))
                .collect()
        })
        .collect();
    (bodies, colliders)
}

fn is_stale_collider<T: std::fmt::Debug>(r: &Result<T, Error>) -> bool {
    matches!(
        r,
        Err(Error::StaleHandle {
            kind: "collider",
            ..
        })
    )
}

/// A body's colliders read back as given (the rotation normalised as stored, exactly the
/// given one here since it is unit length to the last bit or not: compared by angle); setters
/// read back what they set; colliders_of and collider_body name each other.
#[test]
fn colliders_read_back_as_given_and_as_set() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(8)).expect("world");
        let ball = Collider::sphere(0.5).material(0.3, 0.2);
        let rot = Quat::from_rotation_z(0.3);
        let plank = Collider::cuboid(Vec3::new(0.5, 0.1, 0.2))
            .at(Vec3::new(0.0, 0.7, 0.0), rot)
            .groups(2, 5)
            .density(500.0)
            .rolling_resistance(0.1);
        let b = w
            .add_body(
                free_body(Vec3::Y * 3.0, 2.0),
                &[ball.clone(), plank.clone()],
            )
            .unwrap();
        let cs = w.colliders_of(b).unwrap();
        assert_eq!(cs.len(), 2, "{name}");
        assert_eq!(w.collider(cs[0]).unwrap(), ball, "{name}: the ball");
        let got = w.collider(cs[1]).unwrap();
        assert!(got.rotation.angle_between(rot) < 1e-6, "{name}: rotation");
        assert_eq!(
            Collider {
                rotation: rot,
                ..got
            },
            plank,
            "{name}: the plank"
        );
        for &c in &cs {
            assert_eq!(w.collider_body(c).unwrap(), b, "{name}: collider_body");
            assert!(w.contains_collider(c), "{name}");
        }
        w.set_collider_friction(cs[0], 0.7).unwrap();
        w.set_collider_restitution(cs[0], 0.9).unwrap();
        w.set_collider_rolling_resistance(cs[0], 0.05).unwrap();
        w.set_collider_groups(cs[0], 4, 6).unwrap();
        w.set_collider_sensor(cs[0], true).unwrap();
        w.set_collider_shape(
            cs[0],
            Shape::Capsule {
                radius: 0.2,
                half_height: 0.3,
            },
        )
        .unwrap();
        let set = w.collider(cs[0]).unwrap();
        assert_eq!(
            set,
            Collider::capsule_y(0.3, 0.2)
                .material(0.7, 0.9)
                .rolling_resistance(0.05)
                .groups(4, 6)
                .sensor(true),
            "{name}: read back as set"
        );
        w.step(DT).unwrap();
        assert_eq!(w.collider(cs[0]).unwrap(), set, "{name}: after a step");
        // A collider added takes a new slot and reads back; colliders_of lists it last.
        let extra = Collider::sphere(0.25).at(Vec3::X, Quat::IDENTITY);
        let e = w.add_collider(b, extra.clone()).unwrap();
        assert_eq!(w.colliders_of(b).unwrap(), vec![cs[0], cs[1], e], "{name}");
        assert_eq!(w.collider(e).unwrap(), extra, "{name}: the added collider");
    }
}

/// Removed colliders, colliders of removed bodies and handles of another world are refused as
/// `StaleHandle { kind: "collider" }` by every call, and bad values by every setter, with the
/// world unchanged (a full read, and with `serde` a save, compared before and after); a slot
/// reused by a new collider does not answer to the old handle.
#[test]
fn stale_foreign_and_bad_input_change_nothing() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend.clone(), config(8)).expect("world");
        w.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
            .unwrap();
        let b = w
            .add_body(
                RigidBody::dynamic().position(Vec3::Y),
                &[Collider::sphere(0.5), Collider::cuboid(Vec3::splat(0.3))],
            )
            .unwrap();
        let [keep, gone] = w.colliders_of(b).unwrap()[..] else {
            panic!("two colliders")
        };
        w.remove_collider(gone).unwrap();
        let mut other = RigidWorld::new(backend, config(8)).expect("other world");
        other
            .add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
            .unwrap();
        let ob = other
            .add_body(
                RigidBody::dynamic(),
                &[Collider::sphere(0.5), Collider::cuboid(Vec3::splat(0.3))],
            )
            .unwrap();
        let foreign = other.colliders_of(ob).unwrap()[0];
        w.step(DT).unwrap();
        let before = full_read(&mut w);
        #[cfg(feature = "serde")]
        let saved = w.save(wgphys::save::SaveFormat::Binary).unwrap();
        for h in [gone, foreign] {
            assert!(is_stale_collider(&w.collider(h)), "{name}: {h:?}");
            assert!(is_stale_collider(&w.collider_body(h)), "{name}: {h:?}");
            assert!(is_stale_collider(&w.remove_collider(h)), "{name}: {h:?}");
            assert!(!w.contains_collider(h), "{name}: {h:?}");
            for r in [
                w.set_collider_friction(h, 0.1),
                w.set_collider_restitution(h, 0.1),
                w.set_collider_rolling_resistance(h, 0.1),
                w.set_collider_sensor(h, true),
                w.set_collider_groups(h, 1, 1),
                w.set_collider_shape(h, Shape::Sphere { radius: 1.0 }),
            ] {
                assert!(is_stale_collider(&r), "{name}: {h:?}: {r:?}");
            }
        }
        let bad = |e: &Result<(), Error>| matches!(e, Err(Error::InvalidInput { .. }));
        for (what, r) in [
            ("negative friction", w.set_collider_friction(keep, -0.1)),
            ("NaN friction", w.set_collider_friction(keep, f32::NAN)),
            ("restitution 2", w.set_collider_restitution(keep, 2.0)),
            (
                "negative rolling",
                w.set_collider_rolling_resistance(keep, -1.0),
            ),
            (
                "zero radius",
                w.set_collider_shape(keep, Shape::Sphere { radius: 0.0 }),
            ),
            (
                "a plane on a dynamic body",
                w.set_collider_shape(
                    keep,
                    Shape::Plane {
                        normal: Vec3::Y,
                        offset: 0.0,
                    },
                ),
            ),
            (
                "a plane added to a dynamic body",
                w.add_collider(b, Collider::plane(Vec3::Y, 0.0)).map(|_| ()),
            ),
        ] {
            assert!(bad(&r), "{name}: {what}: {r:?}");
        }
        assert_eq!(full_read(&mut w), before, "{name}: the world changed");
        #[cfg(feature = "serde")]
        assert!(
            w.save(wgphys::save::SaveFormat::Binary).unwrap() == saved,
            "{name}: the save changed"
        );
        // The freed slot taken again: the old handle still refused.
        let again = w.add_collider(b, Collider::sphere(0.1)).unwrap();
        assert_eq!(again.index(), gone.index(), "{name}: the slot is reused");
        assert!(is_stale_collider(&w.collider(gone)), "{name}: reused slot");
        // A removed body's colliders go stale with it.
        w.remove_body(b).unwrap();
        for h in [keep, again] {
            assert!(
                is_stale_collider(&w.collider(h)),
                "{name}: {h:?} of a removed body"
            );
        }
        assert!(w.colliders_of(b).is_err(), "{name}: a removed body");
    }
}

/// Per substep h = dt/4 of free fall from velocity v₀: v += −g·h, then y += v·h. After N
/// substeps: v = v₀ − g·h·N and y = y₀ + v₀·h·N − g·h²·N(N+1)/2.
fn free_fall(y0: f32, v0: f32, steps: usize, substeps: u32) -> (f32, f32) {
    let h = DT / substeps as f32;
    let n = (steps as u32 * substeps) as f32;
    (
        y0 + v0 * h * n - G * h * h * n * (n + 1.0) / 2.0,
        v0 - G * h * n,
    )
}

/// Relative error of the free fall's sums: 4 × 30 substeps each adding one rounded term to y
/// and to v, each rounding at most half an ulp (6e-8) of the running value: 120 × 6e-8 = 7e-6
/// if all had one sign; 1e-5 of the drop leaves room for the GPU's contracted multiply-adds.
const FALL: f32 = 1e-5;

fn assert_falls(w: &mut RigidWorld, b: BodyHandle, what: &str) {
    let rest = read(w, b);
    let (y0, v0) = (rest.pos.y, rest.lin_vel.y);
    let steps = 30;
    run(w, steps, DT);
    let now = read(w, b);
    let (y, v) = free_fall(y0, v0, steps, w.config().substeps);
    let drop = y0 - y;
    assert!(
        (now.pos.y - y).abs() <= FALL * drop.abs().max(y.abs()),
        "{what}: y {} against the free fall's {y}",
        now.pos.y
    );
    assert!(
        (now.lin_vel.y - v).abs() <= FALL * v.abs(),
        "{what}: v {} against the free fall's {v}",
        now.lin_vel.y
    );
    assert!(now.pos.y < -0.5, "{what}: below the floor ({})", now.pos.y);
}

/// A ball resting on the floor whose only collider is removed falls through it in free fall
/// from that step on; its twin that keeps its collider stays on the floor.
#[test]
fn a_ball_whose_collider_is_removed_falls_through_the_floor() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(8)).expect("world");
        w.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
            .unwrap();
        let r = 0.5;
        let ball = w
            .add_body(free_body(Vec3::Y * r, 1.0), &[Collider::sphere(r)])
            .unwrap();
        let twin = w
            .add_body(
                free_body(Vec3::new(3.0, r, 0.0), 1.0),
                &[Collider::sphere(r)],
            )
            .unwrap();
        run(&mut w, 30, DT);
        let only = w.colliders_of(ball).unwrap()[0];
        w.remove_collider(only).unwrap();
        assert!(w.colliders_of(ball).unwrap().is_empty(), "{name}");
        assert_falls(&mut w, ball, &format!("{name}: the ball"));
        // The twin is held by the floor: touching it within the contact margin, and not
        // gaining the g·dt a step that a falling body gains.
        let margin = w.config().contact_margin;
        let t = read(&mut w, twin);
        assert!(
            (t.pos.y - r).abs() <= margin && t.lin_vel.y.abs() < G * DT,
            "{name}: the twin at {} moving at {}",
            t.pos.y,
            t.lin_vel.y
        );
    }
}

/// A ball resting on the floor falls through it in free fall once the floor's collider is made
/// a sensor between steps.
#[test]
fn a_sensor_flag_set_between_steps_stops_the_response() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(8)).expect("world");
        let floor = w
            .add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
            .unwrap();
        let r = 0.5;
        let ball = w
            .add_body(free_body(Vec3::Y * r, 1.0), &[Collider::sphere(r)])
            .unwrap();
        run(&mut w, 30, DT);
        let ground = w.colliders_of(floor).unwrap()[0];
        w.set_collider_sensor(ground, true).unwrap();
        assert_falls(&mut w, ball, &format!("{name}: the ball"));
    }
}

/// A box (half size 0.5, undamped) resting on the floor, given friction μ on both colliders
/// (the geometric mean of μ and μ is μ) and pushed at v₀ = 3 m/s, stops after v₀²/(2μg).
///
/// The tolerance: friction takes μ·g·h off the speed in each substep (the normal impulse per
/// substep holds the weight, m·g·h, on a box at rest), so the box's discrete travel is the sum
/// of v·h over the substeps until the speed reaches 0, which differs from the integral
/// v₀²/(2μg) by less than v₀·h/2 + μ·g·h² (the sum's trapezoid error and the last, partial,
/// substep); plus the first step, whose friction starts from the velocity set: one step of
/// travel, v₀·dt, bounds all of it.
#[test]
fn a_friction_set_between_steps_gives_the_slide_distance() {
    let v0 = 3.0;
    for (name, backend) in backends() {
        for mu in [0.25f32, 0.6] {
            let mut w = RigidWorld::new(backend.clone(), config(8)).expect("world");
            let floor = w
                .add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
                .unwrap();
            let cube = w
                .add_body(
                    free_body(Vec3::Y * 0.5, 1.0),
                    &[Collider::cuboid(Vec3::splat(0.5))],
                )
                .unwrap();
            run(&mut w, 30, DT);
            for body in [floor, cube] {
                let c = w.colliders_of(body).unwrap()[0];
                w.set_collider_friction(c, mu).unwrap();
                assert_eq!(w.collider(c).unwrap().friction, mu);
            }
            let x0 = read(&mut w, cube).pos.x;
            w.set_linear_velocity(cube, Vec3::X * v0).unwrap();
            let want = v0 * v0 / (2.0 * mu * G);
            let steps = (v0 / (mu * G) / DT) as usize + 30;
            run(&mut w, steps, DT);
            let b = read(&mut w, cube);
            let slid = b.pos.x - x0;
            println!("{name} μ {mu}: slid {slid:.4} m, closed form {want:.4} m");
            assert!(
                (slid - want).abs() <= v0 * DT,
                "{name} μ {mu}: slid {slid} m against v²/(2μg) = {want} m"
            );
            assert!(b.lin_vel.x.abs() < 1e-3, "{name} μ {mu}: still moving");
        }
    }
}

/// Random scenes edited between steps (colliders added, removed, resized, made sensors or
/// solid, given other materials) run the same on the GPU and on the CPU twin: the same mass
/// properties bit for bit (computed on the host), the same colliders read back, and poses
/// within the parity budget of `rigid_step`'s pyramid for one contact layer: each body rests
/// alone on the floor (they are 3 m apart and never touch), where each backend may settle
/// anywhere within the position slop, so positions agree within the slop and orientations
/// within the slop over the smallest half size (0.2 m).
#[test]
fn random_edits_agree_between_gpu_and_cpu() {
    for seed in 0..3u64 {
        let [(_, cpu), (_, gpu)] = backends();
        let mut worlds = [scene(cpu, seed), scene(gpu, seed)];
        let mut rng = Rng::new(seed);
        for round in 0..6 {
            for w in &mut worlds {
                run(&mut w.0, 10, DT);
                // The host's copy of the orientations, which an inertia recomputed on the GPU
                // is turned with (the CPU's is current).
                w.0.read_bodies().unwrap();
            }
            let ops: Vec<Edit> = (0..3)
                .map(|_| Edit::random(&mut rng, worlds[0].1.len()))
                .collect();
            for w in &mut worlds {
                for op in &ops {
                    op.apply(&mut w.0, &w.1)
                        .unwrap_or_else(|e| panic!("seed {seed} round {round}: {op:?}: {e}"));
                }
            }
        }
        for w in &mut worlds {
            run(&mut w.0, 40, DT);
        }
        let [(c, bodies), (g, _)] = &mut worlds;
        let (rc, rg) = (full_read(c), full_read(g));
        assert_eq!(rc.1, rg.1, "seed {seed}: colliders");
        let slop = c.config().position_slop;
        for h in bodies.iter() {
            let i = h.index() as usize;
            let (a, b) = (&rc.0[i], &rg.0[i]);
            assert_eq!(
                (a.pos.w, a.inv_inertia),
                (b.pos.w, b.inv_inertia),
                "seed {seed} body {i}: mass properties"
            );
            let dp = (a.pos.xyz() - b.pos.xyz()).length();
            let rel = quat(a).inverse() * quat(b);
            let dq = 2.0 * rel.xyz().length().min(1.0).asin();
            println!("seed {seed} body {i}: |Δp| {dp:.2e} m, angle {dq:.2e} rad");
            assert!(
                dp <= slop,
                "seed {seed} body {i}: positions differ by {dp} m"
            );
            assert!(
                dq <= slop / 0.2,
                "seed {seed} body {i}: angles differ by {dq} rad"
            );
        }
    }
}

/// Six bodies 3 m apart over a floor, each with a box, a sphere or a lying capsule at its
/// centre (sizes 0.2 to 0.5), dropped from up to 1 m.
fn scene(backend: Backend, seed: u64) -> (RigidWorld, Vec<BodyHandle>) {
    let mut w = RigidWorld::new(backend, RigidConfig { ..config(8) }).expect("world");
    w.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
        .unwrap();
    let mut rng = Rng::new(seed ^ 0x5eed);
    let bodies = (0..6)
        .map(|k| {
            let c = random_collider(&mut rng);
            let at = Vec3::new(3.0 * k as f32, 0.6 + rng.range(0.0, 1.0), 0.0);
            w.add_body(RigidBody::dynamic().position(at), &[c]).unwrap()
        })
        .collect();
    (w, bodies)
}

/// A solid at the body's centre, symmetric about the vertical, so it lands flat and stays.
fn random_collider(rng: &mut Rng) -> Collider {
    let size = rng.range(0.2, 0.5);
    let c = match (rng.unit() * 3.0) as u32 {
        0 => Collider::sphere(size),
        1 => Collider::cuboid(Vec3::new(size, 0.2, rng.range(0.2, 0.5))),
        _ => Collider::capsule_y(size, 0.2).at(
            Vec3::ZERO,
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        ),
    };
    c.material(rng.range(0.2, 0.8), rng.range(0.0, 0.3))
}

#[derive(Debug)]
enum Edit {
    Add(usize, Collider),
    Remove(usize),
    Resize(usize, f32),
    Sensor(usize, bool),
    Material(usize, f32, f32),
}

impl Edit {
    fn random(rng: &mut Rng, n: usize) -> Self {
        let body = (rng.unit() * n as f32) as usize % n;
        match (rng.unit() * 5.0) as u32 {
            0 => Edit::Add(body, random_collider(rng)),
            1 => Edit::Remove(body),
            2 => Edit::Resize(body, rng.range(0.2, 0.5)),
            3 => Edit::Sensor(body, rng.unit() < 0.5),
            _ => Edit::Material(body, rng.range(0.2, 0.8), rng.range(0.0, 0.3)),
        }
    }

    /// Applies the edit to the body's first collider (or adds one).
    fn apply(&self, w: &mut RigidWorld, bodies: &[BodyHandle]) -> wgphys::Result<()> {
        let first = |w: &RigidWorld, b: usize| -> Option<ColliderHandle> {
            w.colliders_of(bodies[b]).ok()?.first().copied()
        };
        match self {
            Edit::Add(b, c) => w.add_collider(bodies[*b], c.clone()).map(|_| ()),
            Edit::Remove(b) => first(w, *b).map_or(Ok(()), |c| w.remove_collider(c)),
            Edit::Resize(b, s) => first(w, *b).map_or(Ok(()), |c| {
                let shape = match w.collider(c)?.shape {
                    Shape::Sphere { .. } => Shape::Sphere { radius: *s },
                    Shape::Cuboid { half_extents } => Shape::Cuboid {
                        half_extents: Vec3::new(*s, half_extents.y, half_extents.z),
                    },
                    _ => Shape::Capsule {
                        radius: 0.2,
                        half_height: *s,
                    },
                };
                w.set_collider_shape(c, shape)
            }),
            Edit::Sensor(b, yes) => first(w, *b).map_or(Ok(()), |c| w.set_collider_sensor(c, *yes)),
            Edit::Material(b, f, r) => first(w, *b).map_or(Ok(()), |c| {
                w.set_collider_friction(c, *f)?;
                w.set_collider_restitution(c, *r)
            }),
        }
    }
}

/// A saved world keeps its colliders: the same handles (by slot, `collider_handle_at`), the
/// same colliders read back, the same mass properties, and a collider removed before the save
/// stays removed.
#[cfg(feature = "serde")]
#[test]
fn a_saved_world_keeps_its_colliders() {
    use wgphys::save::SaveFormat;
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend.clone(), config(8)).expect("world");
        let tetra = Collider::convex_hull(&[Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z]).unwrap();
        let b = w
            .add_body(
                RigidBody::dynamic().density(300.0),
                &[Collider::sphere(0.5), Collider::cuboid(Vec3::splat(0.2))],
            )
            .unwrap();
        let h = w.add_collider(b, tetra.density(900.0)).unwrap();
        let gone = w.colliders_of(b).unwrap()[1];
        w.remove_collider(gone).unwrap();
        w.set_collider_friction(h, 0.9).unwrap();
        w.step(DT).unwrap();
        let before = full_read(&mut w);
        for format in [SaveFormat::Binary, SaveFormat::Text] {
            let bytes = w.save(format).unwrap();
            let mut l = RigidWorld::load(backend.clone(), &bytes).unwrap();
            assert_eq!(full_read(&mut l), before, "{name}: {format:?}");
            let lb = l.body_handle_at(b.index()).unwrap();
            let lh = l.collider_handle_at(h.index()).unwrap();
            assert_eq!(l.collider_body(lh).unwrap(), lb, "{name}");
            assert!(l.collider_handle_at(gone.index()).is_none(), "{name}");
            // The loaded world's colliders change like any.
            l.set_collider_restitution(lh, 0.5).unwrap();
            assert_eq!(l.collider(lh).unwrap().restitution, 0.5, "{name}");
            // Its hull read back is the stored one: cast, added again and reshaped to, it
            // stores no second copy.
            let words = l.hull_words().len();
            let hull = l.collider(lh).unwrap();
            let cast = l.cast_shape(
                &hull.shape,
                Vec3::new(0.0, 5.0, 0.0),
                glam::Quat::IDENTITY,
                -Vec3::Y,
                20.0,
                &wgphys::rigid::QueryFilter::new(),
            );
            assert!(cast.is_ok(), "{name}: {cast:?}");
            l.add_collider(lb, hull.clone()).unwrap();
            l.set_collider_shape(lh, hull.shape.clone()).unwrap();
            assert_eq!(l.hull_words().len(), words, "{name}: {format:?}");
        }
    }
}

/// Scene queries see a collider's change at once: a point just outside a ball is found after
/// the ball is made larger, and no longer once its groups leave the filter's, on both backends
/// (the queries keep a grid over the shapes and must build it again).
#[test]
fn queries_see_collider_changes() {
    use wgphys::rigid::QueryFilter;
    for (name, backend) in common::backends() {
        let mut w = RigidWorld::new(backend, RigidConfig::default()).expect("world");
        let ball = w
            .add_body(RigidBody::fixed(), &[Collider::sphere(0.5)])
            .expect("ball");
        let c = w.colliders_of(ball).expect("colliders")[0];
        let point = Vec3::new(0.0, 0.8, 0.0);
        let all = QueryFilter::new();
        assert!(w.intersect_point(point, &all).unwrap().is_empty(), "{name}");
        w.set_collider_shape(c, Shape::Sphere { radius: 1.0 })
            .expect("reshape");
        let hits = w.intersect_point(point, &all).unwrap();
        assert_eq!(hits.len(), 1, "{name}: the larger ball holds the point");
        assert_eq!(hits[0].body, ball);
        w.set_collider_groups(c, 0b10, u32::MAX).expect("groups");
        let ones = QueryFilter::new().groups(0b01, 0b01);
        assert!(
            w.intersect_point(point, &ones).unwrap().is_empty(),
            "{name}: a filter of group 1 does not see group 2"
        );
    }
}
