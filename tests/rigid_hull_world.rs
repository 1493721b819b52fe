//! Convex hulls in a whole `RigidWorld`, on both backends: a hull box behaves like the analytic
//! box (a 30° slope holds it at μ = 0.6 and lets it slide at g(sin θ − μ cos θ) at μ = 0.5, on
//! a half-space and on a static box), a thrown hull die comes to rest on a face and sleeps, a
//! hull (and a box and a capsule) thrown at 100 m/s at a 5 cm wall does not pass through, a
//! hull body's mass properties are the closed forms, ray casts hit a hull as they hit the box,
//! and bad hull input is refused with a message that names the problem, the world unchanged.
//! Every tolerance says why it is that size.

mod common;

use common::gpu;
use common::rigid::*;
use glam::{Mat3, Quat, Vec3, Vec4Swizzles};
use wgphys::error::Error;
use wgphys::rigid::hull::HullOptions;
use wgphys::rigid::ray::Ray;
use wgphys::rigid::{BodyHandle, Collider, RigidBody, RigidConfig, RigidWorld};
use wgphys::Backend;

fn backends() -> Vec<(&'static str, Backend)> {
    vec![("cpu", Backend::Cpu), ("gpu", Backend::Gpu(gpu()))]
}

/// The eight corners of a box of half extents `h`, as points for quickhull.
fn box_points(h: Vec3) -> Vec<Vec3> {
    (0..8)
        .map(|i| {
            let s = |b: i32| if i & b != 0 { -1.0 } else { 1.0 };
            Vec3::new(h.x * s(1), h.y * s(2), h.z * s(4))
        })
        .collect()
}

/// A box of half extents `h` as a hull collider (quickhull over its corners).
fn hull_box(h: Vec3) -> Collider {
    Collider::convex_hull(&box_points(h)).expect("box hull")
}

// ---------------------------------------------------------------------------------------------
// 1. The slope

/// What the slope is made of.
#[derive(Clone, Copy, Debug)]
enum Ground {
    /// A half-space through the origin (hull–plane contacts).
    HalfSpace,
    /// A static box whose top face is the same plane (box–hull contacts by SAT).
    Slab,
}

/// Steps a cube of half size 0.25 (`body` made by `collider`) resting on a slope of angle θ
/// with friction μ on both surfaces, for `seconds`; returns (time, downhill distance, downhill
/// speed) after every step.
fn slope_run(
    backend: Backend,
    ground: Ground,
    collider: Collider,
    theta: f32,
    mu: f32,
    seconds: f32,
) -> Vec<(f32, f32, f32)> {
    let mut w = RigidWorld::new(backend, config(4)).expect("world");
    let n = Vec3::new(-theta.sin(), theta.cos(), 0.0);
    let down = Vec3::new(-theta.cos(), -theta.sin(), 0.0);
    let rot = Quat::from_rotation_z(theta);
    let slope = match ground {
        Ground::HalfSpace => Collider::half_space(n, 0.0),
        Ground::Slab => Collider::cuboid(Vec3::new(20.0, 1.0, 4.0)).at(-n, rot),
    };
    w.add_body(RigidBody::fixed(), &[slope.material(mu, 0.0)])
        .expect("slope");
    let half = 0.25;
    let b = w
        .add_body(
            RigidBody::dynamic()
                .position(n * half)
                .rotation(rot)
                .mass(1.0)
                .damping(1.0, 1.0)
                .can_sleep(false),
            &[collider.material(mu, 0.0)],
        )
        .expect("box");
    let p0 = n * half;
    let steps = (seconds / DT).round() as usize;
    (1..=steps)
        .map(|k| {
            w.step(DT).expect("step");
            let body = w.body_raw(b).expect("box");
            (
                k as f32 * DT,
                (pos(&body) - p0).dot(down),
                body.lin_vel.xyz().dot(down),
            )
        })
        .collect()
}

/// Least-squares slope of y against x.
fn fit_slope(xy: &[(f32, f32)]) -> f32 {
    let n = xy.len() as f64;
    let (sx, sy) = xy.iter().fold((0.0, 0.0), |(a, b), &(x, y)| {
        (a + f64::from(x), b + f64::from(y))
    });
    let (mx, my) = (sx / n, sy / n);
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for &(x, y) in xy {
        let (dx, dy) = (f64::from(x) - mx, f64::from(y) - my);
        sxy += dx * dy;
        sxx += dx * dx;
    }
    (sxy / sxx) as f32
}

/// A hull box on a 30° slope (tan θ = 0.577) holds at μ = 0.6 and slides at μ = 0.5 with
/// acceleration g(sin θ − μ cos θ) = 0.657 m/s², on a half-space and on a static box, on both
/// backends, as the analytic box does (`rigid_world`'s slope tests, whose tolerances these
/// are).
#[test]
fn hull_box_on_a_30_degree_slope_holds_at_0_6_and_slides_at_0_5() {
    let theta = 30f32.to_radians();
    let h = Vec3::splat(0.25);
    for (name, backend) in backends() {
        for ground in [Ground::HalfSpace, Ground::Slab] {
            // Holds: a box that slid at even 1% of the friction-free g·sin θ would move
            // ½·0.01·4.9·1.5² = 5.5 cm between 0.5 s and 2 s; 0.1 mm leaves room for rounding
            // only (the analytic box's bound).
            let stay = slope_run(backend.clone(), ground, hull_box(h), theta, 0.6, 2.0);
            let s_half = stay.iter().find(|s| s.0 >= 0.5).map_or(0.0, |s| s.1);
            let drift = stay
                .iter()
                .filter(|s| s.0 >= 0.5)
                .map(|s| (s.1 - s_half).abs())
                .fold(0.0, f32::max);
            // The slip before the contact forms: one step of free motion g·sin θ·dt² (1.4 mm)
            // that `rigid_integrate` makes before the first contact is solved, and 0.1 mm.
            let slip = stay.iter().map(|s| s.1.abs()).fold(0.0, f32::max);
            let allowed = G * theta.sin() * DT * DT + 1e-4;
            println!("{name} {ground:?} μ 0.6: drift {drift:e} m, slip {slip:e} m");
            assert!(drift < 1e-4, "{name} {ground:?}: μ = 0.6 drifted {drift} m");
            assert!(
                slip <= allowed,
                "{name} {ground:?}: μ = 0.6 slipped {slip} m"
            );
            // Slides: the speed's slope over t ∈ [0.5, 2] s within 2% of the closed form, as
            // for the analytic box (the friction cone's linearisation and the soft contact's
            // small sag, far below 2%; a wrong normal or lever arm is far above).
            let mu = 0.5;
            let slide = slope_run(backend.clone(), ground, hull_box(h), theta, mu, 2.0);
            let want = G * (theta.sin() - mu * theta.cos());
            let vel: Vec<(f32, f32)> = slide
                .iter()
                .filter(|s| s.0 >= 0.5)
                .map(|s| (s.0, s.2))
                .collect();
            let a = fit_slope(&vel);
            let analytic = slope_run(backend.clone(), ground, Collider::cuboid(h), theta, mu, 2.0);
            let vel_box: Vec<(f32, f32)> = analytic
                .iter()
                .filter(|s| s.0 >= 0.5)
                .map(|s| (s.0, s.2))
                .collect();
            let a_box = fit_slope(&vel_box);
            println!(
                "{name} {ground:?} μ 0.5: hull box {a:.5}, analytic box {a_box:.5}, closed \
                 form {want:.5} m/s²"
            );
            assert!(
                (a - want).abs() <= 0.02 * want,
                "{name} {ground:?}: the hull box slides at {a} m/s², closed form {want}"
            );
            assert!(
                (a - a_box).abs() <= 0.02 * want,
                "{name} {ground:?}: the hull box slides at {a} m/s², the analytic box at {a_box}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 2. The die

/// A die: a cube of half size 0.1 with its corners cut 0.02 deep (24 vertices; 6 squares, 8
/// triangles and 12 thin rectangles), so that it is a hull of its own and not the box.
fn die() -> Collider {
    let (h, c) = (0.1f32, 0.02f32);
    let mut pts = Vec::new();
    for p in box_points(Vec3::splat(h)) {
        for axis in 0..3 {
            let mut q = p;
            q[axis] -= c * p[axis].signum();
            pts.push(q);
        }
    }
    Collider::convex_hull(&pts).expect("die")
}

/// A hull die thrown onto a static box floor with spin comes to rest on one of its six faces
/// and falls asleep, on both backends: after 6 s it is asleep and one of its axes is within
/// 1° of vertical (resting on a corner cut or an edge cut would tilt it 35° or 45°). Why 6 s:
/// the die is still after about 1 s (measured), and the recency-weighted motion the engine puts
/// to sleep by, capped at 10 times the sleep threshold, then falls by the base bias of 0.5 a
/// second: to the threshold in log2(10) = 3.3 s.
#[test]
fn hull_die_thrown_on_the_floor_rests_on_a_face_and_sleeps() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(4)).expect("world");
        w.add_body(
            RigidBody::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            &[Collider::cuboid(Vec3::new(5.0, 0.5, 5.0)).material(0.6, 0.0)],
        )
        .expect("floor");
        let d = w
            .add_body(
                RigidBody::dynamic()
                    .position(Vec3::new(0.0, 0.6, 0.0))
                    .rotation(Quat::from_euler(glam::EulerRot::XYZ, 0.4, 0.9, 0.2))
                    .velocity(Vec3::new(1.5, 1.0, 0.5))
                    .angular_velocity(Vec3::new(8.0, -5.0, 3.0))
                    .mass(0.05),
                &[die().material(0.6, 0.2)],
            )
            .expect("die");
        run(&mut w, 360, DT);
        let b = w.body_raw(d).expect("die");
        let r = Mat3::from_quat(quat(&b).normalize());
        let up = [r.x_axis, r.y_axis, r.z_axis]
            .iter()
            .map(|a| a.y.abs())
            .fold(0.0, f32::max);
        let tilt = up.min(1.0).acos().to_degrees();
        println!(
            "{name}: die at {:?}, tilt {tilt:.3}°, awake {}",
            pos(&b),
            b.awake
        );
        assert!(
            tilt < 1.0,
            "{name}: the die rests tilted {tilt}° (not on a face)"
        );
        // On a face its centre is 0.1 above the floor; the soft contact sinks it a little.
        assert!(
            (pos(&b).y - 0.1).abs() < 5e-3,
            "{name}: die height {:?}",
            pos(&b)
        );
        assert_eq!(b.awake, 0, "{name}: the die is still awake after 6 s");
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Continuous collision

/// A rock (a hull of 20 points on a sphere of radius 0.15, centred), a box of half size 0.1 and
/// a capsule of radius 0.08 thrown at 100 m/s (1.67 m a step, more than 10 times their size) at
/// a static wall 5 cm thick stay on the near side with CCD, on both backends; without CCD the
/// rock passes through (so the scene tests what it means to).
#[test]
fn fast_hulls_boxes_and_capsules_do_not_pass_a_thin_wall() {
    let mut rng = common::Rng::new(7);
    let rock: Vec<Vec3> = (0..20)
        .map(|_| rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y) * 0.15)
        .collect();
    let rock = Collider::convex_hull(&rock).expect("rock").centred();
    let shapes = [
        ("rock", rock),
        ("box", Collider::cuboid(Vec3::splat(0.1))),
        ("capsule", Collider::capsule_y(0.1, 0.08)),
    ];
    for (name, backend) in backends() {
        for (what, collider) in &shapes {
            for ccd in [true, false] {
                if !ccd && *what != "rock" {
                    continue;
                }
                let mut w = RigidWorld::new(
                    backend.clone(),
                    RigidConfig {
                        gravity: Vec3::ZERO,
                        ..config(4)
                    },
                )
                .expect("world");
                w.add_body(
                    RigidBody::fixed().position(Vec3::new(2.0, 0.0, 0.0)),
                    &[Collider::cuboid(Vec3::new(0.025, 2.0, 2.0))],
                )
                .expect("wall");
                let b = w
                    .add_body(
                        RigidBody::dynamic()
                            .rotation(Quat::from_rotation_y(0.3))
                            .velocity(Vec3::new(100.0, 0.0, 0.0))
                            .damping(1.0, 1.0)
                            .ccd(ccd),
                        std::slice::from_ref(collider),
                    )
                    .expect("bullet");
                let mut furthest = f32::MIN;
                for _ in 0..30 {
                    w.step(DT).expect("step");
                    furthest = furthest.max(w.body_raw(b).expect("bullet").pos.x);
                }
                println!("{name} {what} ccd {ccd}: furthest x {furthest:.3}");
                // The wall's near face is at x = 1.975 and the shapes reach at most 0.16 from
                // their centres: a centre past 1.975 has gone into or through the wall.
                if ccd {
                    assert!(
                        furthest < 1.975,
                        "{name} {what}: went to x = {furthest} through the wall"
                    );
                } else {
                    assert!(
                        furthest > 2.2,
                        "{name}: without CCD the rock should pass (x = {furthest})"
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 4. Mass properties, ray casts, bad input

/// The closed-form inertia of a box of mass m and half extents h: m/3·(h_y² + h_z², ...).
fn box_inertia(m: f32, h: Vec3) -> Vec3 {
    Vec3::new(
        h.y * h.y + h.z * h.z,
        h.x * h.x + h.z * h.z,
        h.x * h.x + h.y * h.y,
    ) * (m / 3.0)
}

/// A hull body's inverse inertia is the box's closed form (within 8 ulps: the f64 tetrahedral
/// sums rounded to f32, inverted in f32) about its centre of mass, the hull's centroid,
/// wherever the hull's points sit in the body's frame; the centroid is read back as the body's
/// centre of mass (`centred` moves it to the origin).
#[test]
fn hull_body_mass_properties_are_the_closed_forms() {
    let h = Vec3::new(0.3, 0.2, 0.1);
    let m = 2.0;
    let c = Vec3::new(0.5, -0.25, 0.125);
    let shifted: Vec<Vec3> = box_points(h).iter().map(|p| *p + c).collect();
    let cases = [
        ("centred", hull_box(h), Vec3::ZERO),
        (
            "off its origin",
            Collider::convex_hull(&shifted).expect("hull"),
            c,
        ),
        (
            "off its origin, centred",
            Collider::convex_hull(&shifted).expect("hull").centred(),
            Vec3::ZERO,
        ),
    ];
    for (what, collider, at) in cases {
        let mut w = RigidWorld::new(Backend::Cpu, config(2)).expect("world");
        let b = w
            .add_body(RigidBody::dynamic().mass(m), &[collider])
            .expect("body");
        let body = w.body_raw(b).expect("body");
        // The body turns about the hull's centroid, its centre of mass: the box's own
        // tensor, with no parallel-axis term wherever the hull sits in the body's frame.
        let want = Mat3::from_diagonal(box_inertia(m, h));
        let inv = want.inverse();
        // The centroid is a volume-weighted sum over the hull's tetrahedra: a few dozen f32
        // operations on coordinates below 1 m, so 64 ulps of 1 m.
        let centre = w.body(b).expect("body").centre_of_mass;
        assert!(
            (centre - at).abs().max_element() <= 64.0 * f32::EPSILON,
            "{what}: centre of mass {centre} against {at}"
        );
        for k in 0..3 {
            let got = body.inv_inertia[k].xyz();
            let err = (got - inv.col(k)).abs().max_element();
            assert!(
                err <= 8.0 * f32::EPSILON * inv.col(k).abs().max_element().max(1.0),
                "{what}: inverse inertia column {k} {got:?} vs {:?}",
                inv.col(k)
            );
        }
    }
}

/// Rays against a hull box and against the analytic box in the same place hit at the same
/// distance (within 4 ulps of the ray's reach: both are a slab test of the same planes, in a
/// different order) with the same face normal, and miss alike.
#[test]
fn ray_casts_hit_a_hull_like_the_box() {
    let h = Vec3::new(0.5, 0.3, 0.2);
    let place = RigidBody::fixed()
        .position(Vec3::new(1.0, 2.0, -1.0))
        .rotation(Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 0.2));
    let world_of = |c: Collider| {
        let mut w = RigidWorld::new(Backend::Cpu, config(2)).expect("world");
        w.add_body(place, &[c]).expect("body");
        w
    };
    let (hull, boxed) = (world_of(hull_box(h)), world_of(Collider::cuboid(h)));
    let mut rng = common::Rng::new(3);
    let mut hits = 0;
    for _ in 0..500 {
        let o = Vec3::new(1.0, 2.0, -1.0) + rng.vec3(-1.0, 1.0).normalize_or(Vec3::X) * 3.0;
        let target = Vec3::new(1.0, 2.0, -1.0) + rng.vec3(-0.6, 0.6);
        let ray = Ray::new(o, target - o, 10.0).expect("ray");
        let (a, b) = (hull.cast_ray(&ray), boxed.cast_ray(&ray));
        assert_eq!(a.is_some(), b.is_some(), "one hits, one misses: {ray:?}");
        if let (Some(a), Some(b)) = (a, b) {
            hits += 1;
            assert!(
                (a.t - b.t).abs() <= 4.0 * f32::EPSILON * 13.0,
                "{a:?} vs {b:?}"
            );
            assert!((a.normal - b.normal).length() < 1e-5, "{a:?} vs {b:?}");
        }
    }
    assert!(hits > 200, "only {hits} hits");
}

/// Bad hull input is an error that names the problem (and the limit and the fix where there is
/// one), never a panic; a failed `add_body` leaves the world as it was, its hull store too.
#[test]
fn bad_hull_input_is_refused_and_leaves_the_world_unchanged() {
    let cube = box_points(Vec3::ONE);
    let message = |r: Result<Collider, Error>| match r {
        Ok(_) => panic!("bad input accepted"),
        Err(e) => e.to_string(),
    };
    let mut nan = cube.clone();
    nan[3].y = f32::NAN;
    let e = message(Collider::convex_hull(&nan));
    assert!(e.contains("point 3") && e.contains("finite"), "{e}");
    let flat: Vec<Vec3> = (0..10)
        .map(|i| Vec3::new(i as f32, (i * i) as f32, 0.0))
        .collect();
    let e = message(Collider::convex_hull(&flat));
    assert!(e.contains("plane") && e.contains("coplanar"), "{e}");
    let e = message(Collider::convex_hull(&cube[..3]));
    assert!(e.contains("3 points") && e.contains("at least 4"), "{e}");
    let mut rng = common::Rng::new(11);
    let ball: Vec<Vec3> = (0..200)
        .map(|_| rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y))
        .collect();
    let e = message(Collider::convex_hull(&ball));
    assert!(e.contains("at most 64") && e.contains("simplify_to"), "{e}");
    assert!(Collider::convex_hull_with(&ball, &HullOptions::default().simplify_to(32)).is_ok());
    let quads: [[u32; 4]; 6] = [
        [0, 2, 6, 4],
        [1, 5, 7, 3],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 1, 3, 2],
        [4, 6, 7, 5],
    ];
    assert!(Collider::convex_mesh(&cube, &quads).is_ok());
    let mut out_of_range = quads;
    out_of_range[2][1] = 8;
    let e = message(Collider::convex_mesh(&cube, &out_of_range));
    assert!(e.contains("vertex 8") && e.contains("8 vertices"), "{e}");
    let mut dented = cube.clone();
    dented[0] = Vec3::splat(0.5);
    let e = message(Collider::convex_mesh(&dented, &quads));
    assert!(e.contains("not convex") || e.contains("not planar"), "{e}");
    // A failed add_body (a bad mass) stores no hull and changes nothing.
    let mut w = RigidWorld::new(Backend::Cpu, config(2)).expect("world");
    let ok = w
        .add_body(RigidBody::dynamic(), &[hull_box(Vec3::ONE)])
        .expect("body");
    let words = w.hull_words().len();
    let before: Vec<_> = w.read_bodies().expect("bodies");
    let err = w.add_body(RigidBody::dynamic().mass(f32::NAN), &[die()]);
    assert!(matches!(err, Err(Error::InvalidInput { .. })), "{err:?}");
    assert_eq!(
        w.hull_words().len(),
        words,
        "a refused body stored its hull"
    );
    assert_eq!(w.read_bodies().expect("bodies"), before);
    assert_eq!(w.shapes().len(), 1);
    assert!(w.contains(ok));
    let _: BodyHandle = ok;
}
