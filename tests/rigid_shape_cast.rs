//! Shape casts (`RigidWorld::cast_shape`, issue 34, item 5): closed forms, sampled sweeps on
//! random scenes (the cast shape stepped along its path in small increments, its separation
//! from every collider computed by independent geometry, not the engine's GJK), the bodies as
//! they moved on both backends, and bad input refused with the world unchanged.

mod common;

use common::rigid::*;
use common::Rng;
use glam::{Quat, Vec3};
use wgphys::rigid::types::GpuBody;
use wgphys::rigid::{
    BodyHandle, Collider, QueryFilter, RigidBody, RigidWorld, Shape, CAST_REL_TOLERANCE,
};
use wgphys::{Backend, Error};

/// Signed distance from local point `p` to the box of half extents `h` (negative inside).
fn sd_box(p: Vec3, h: Vec3) -> f32 {
    let q = p.abs() - h;
    q.max(Vec3::ZERO).length() + q.max_element().min(0.0)
}

/// Distance from `p` to the segment `a`–`b`.
fn point_segment(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let u = if ab.length_squared() > 0.0 {
        ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (a + ab * u)).length()
}

/// The minimum over u in [0, 1] of a convex function of u, by ternary search (200 rounds
/// shrink the interval by (2/3)^200, far below f32 resolution).
fn min_convex(f: impl Fn(f32) -> f32) -> f32 {
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    for _ in 0..200 {
        let (a, b) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if f(a) <= f(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    f(0.0).min(f(1.0)).min(f(0.5 * (lo + hi)))
}

/// A solid in world space, for the independent separation below.
#[derive(Clone, Copy, Debug)]
enum Solid {
    Ball(Vec3, f32),
    /// Centre, rotation, half extents.
    Cube(Vec3, Quat, Vec3),
    /// End points and radius.
    Pill(Vec3, Vec3, f32),
    /// p·n <= w is solid.
    Half(Vec3, f32),
    /// p·n = w.
    Sheet(Vec3, f32),
}

impl Solid {
    fn moved(self, by: Vec3) -> Solid {
        match self {
            Solid::Ball(c, r) => Solid::Ball(c + by, r),
            Solid::Cube(c, q, h) => Solid::Cube(c + by, q, h),
            Solid::Pill(a, b, r) => Solid::Pill(a + by, b + by, r),
            s => s,
        }
    }
    fn corners(c: Vec3, q: Quat, h: Vec3) -> [Vec3; 8] {
        std::array::from_fn(|k| {
            let s = Vec3::new(
                if k & 1 == 0 { -1.0 } else { 1.0 },
                if k & 2 == 0 { -1.0 } else { 1.0 },
                if k & 4 == 0 { -1.0 } else { 1.0 },
            );
            c + q * (s * h)
        })
    }
}

/// Separation of two solids (the caster `a` bounded): the distance between them when apart,
/// at most 0 when they overlap. Box–box is the separating-axis bound (the largest gap along the
/// 15 axes): at most the distance, negative exactly when they overlap.
fn separation(a: Solid, b: Solid) -> f32 {
    use Solid::*;
    let sd_cube = |p: Vec3, c: Vec3, q: Quat, h: Vec3| sd_box(q.inverse() * (p - c), h);
    match (a, b) {
        (Ball(c, r), Ball(c2, r2)) => (c - c2).length() - r - r2,
        (Ball(c, r), Cube(c2, q, h)) | (Cube(c2, q, h), Ball(c, r)) => sd_cube(c, c2, q, h) - r,
        (Ball(c, r), Pill(p, q, r2)) | (Pill(p, q, r2), Ball(c, r)) => {
            point_segment(c, p, q) - r - r2
        }
        (Pill(p, q, r), Pill(p2, q2, r2)) => {
            min_convex(|u| point_segment(p + (q - p) * u, p2, q2)) - r - r2
        }
        (Pill(p, q, r), Cube(c, o, h)) | (Cube(c, o, h), Pill(p, q, r)) => {
            min_convex(|u| sd_cube(p + (q - p) * u, c, o, h)) - r
        }
        (Cube(c, q, h), Cube(c2, q2, h2)) => {
            let ra = [q * Vec3::X, q * Vec3::Y, q * Vec3::Z];
            let rb = [q2 * Vec3::X, q2 * Vec3::Y, q2 * Vec3::Z];
            let mut axes: Vec<Vec3> = ra.iter().chain(&rb).copied().collect();
            for x in ra {
                for y in rb {
                    let n = x.cross(y);
                    if n.length() > 1e-4 {
                        axes.push(n.normalize());
                    }
                }
            }
            let (ca, cb) = (Solid::corners(c, q, h), Solid::corners(c2, q2, h2));
            axes.iter()
                .map(|n| {
                    let span = |cs: &[Vec3; 8]| {
                        cs.iter()
                            .map(|p| n.dot(*p))
                            .fold((f32::MAX, f32::MIN), |(l, u), v| (l.min(v), u.max(v)))
                    };
                    let ((la, ua), (lb, ub)) = (span(&ca), span(&cb));
                    (lb - ua).max(la - ub)
                })
                .fold(f32::MIN, f32::max)
        }
        (s, Half(n, w)) => match s {
            Ball(c, r) => n.dot(c) - w - r,
            Pill(p, q, r) => n.dot(p).min(n.dot(q)) - w - r,
            Cube(c, q, h) => {
                Solid::corners(c, q, h)
                    .iter()
                    .map(|p| n.dot(*p))
                    .fold(f32::MAX, f32::min)
                    - w
            }
            _ => unreachable!("casters are bounded"),
        },
        (s, Sheet(n, w)) => {
            let (lo, hi) = match s {
                Ball(c, r) => (n.dot(c) - r, n.dot(c) + r),
                Pill(p, q, r) => (n.dot(p).min(n.dot(q)) - r, n.dot(p).max(n.dot(q)) + r),
                Cube(c, q, h) => Solid::corners(c, q, h)
                    .iter()
                    .map(|p| n.dot(*p))
                    .fold((f32::MAX, f32::MIN), |(l, u), v| (l.min(v), u.max(v))),
                _ => unreachable!("casters are bounded"),
            };
            (lo - w).max(w - hi)
        }
        _ => unreachable!("casters are bounded"),
    }
}

fn random_rotation(rng: &mut Rng) -> Quat {
    Quat::from_axis_angle(
        rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y),
        rng.range(0.0, 3.0),
    )
}

/// A random scene: a ground half-space (y ≤ −5), a two-sided wall x = 7.5 and 24 balls, boxes,
/// capsules and box-shaped hulls turned at random in [−4, 4]³, fixed or dynamic. Returns each
/// collider's solid by body: the planes in world space, the others in their body's frame
/// (place them with [`posed`]).
fn random_scene(
    backend: Backend,
    rng: &mut Rng,
    dynamic: bool,
) -> (RigidWorld, Vec<(BodyHandle, Solid)>) {
    let mut w = RigidWorld::new(backend, config(32)).unwrap();
    let mut solids = Vec::new();
    let ground = Collider::new(Shape::HalfSpace {
        normal: Vec3::Y,
        offset: -5.0,
    });
    let h = w.add_body(RigidBody::fixed(), &[ground]).unwrap();
    solids.push((h, Solid::Half(Vec3::Y, -5.0)));
    let wall = Collider::new(Shape::Plane {
        normal: Vec3::X,
        offset: 7.5,
    });
    let h = w.add_body(RigidBody::fixed(), &[wall]).unwrap();
    solids.push((h, Solid::Sheet(Vec3::X, 7.5)));
    for k in 0..24 {
        let c = rng.vec3(-4.0, 4.0);
        let q = random_rotation(rng);
        let (collider, solid) = match k % 4 {
            0 => {
                let r = rng.range(0.2, 0.8);
                (Collider::sphere(r), Solid::Ball(Vec3::ZERO, r))
            }
            1 => {
                let h = rng.vec3(0.15, 0.7);
                (
                    Collider::cuboid(h),
                    Solid::Cube(Vec3::ZERO, Quat::IDENTITY, h),
                )
            }
            2 => {
                let (r, hh) = (rng.range(0.15, 0.5), rng.range(0.0, 0.8));
                let a = Vec3::new(0.0, hh, 0.0);
                (Collider::capsule_y(hh, r), Solid::Pill(-a, a, r))
            }
            _ => {
                let h = rng.vec3(0.15, 0.7);
                let corners = Solid::corners(Vec3::ZERO, Quat::IDENTITY, h);
                let hull = Collider::convex_hull(&corners).unwrap();
                (hull, Solid::Cube(Vec3::ZERO, Quat::IDENTITY, h))
            }
        };
        let body = if dynamic {
            RigidBody::dynamic()
        } else {
            RigidBody::fixed()
        };
        let h = w
            .add_body(body.position(c).rotation(q), &[collider])
            .unwrap();
        solids.push((h, solid));
    }
    (w, solids)
}

/// A body-frame solid placed by its body's pose (planes are in world space already).
fn posed(s: Solid, b: &GpuBody) -> Solid {
    let (p, q) = (b.pos.truncate(), Quat::from_vec4(b.orient).normalize());
    match s {
        Solid::Ball(c, r) => Solid::Ball(p + q * c, r),
        Solid::Cube(c, o, h) => Solid::Cube(p + q * c, q * o, h),
        Solid::Pill(a, e, r) => Solid::Pill(p + q * a, p + q * e, r),
        s => s,
    }
}

/// A random caster: its shape, the solid it is at `at` turned by `q`, and its bound.
fn random_caster(rng: &mut Rng, at: Vec3, q: Quat) -> (Shape, Solid, f32) {
    match rng.below(3) {
        0 => {
            let radius = rng.range(0.2, 0.6);
            (Shape::Sphere { radius }, Solid::Ball(at, radius), radius)
        }
        1 => {
            let h = rng.vec3(0.15, 0.5);
            let s = Shape::Cuboid { half_extents: h };
            (s, Solid::Cube(at, q, h), h.length())
        }
        _ => {
            let (radius, half_height) = (rng.range(0.15, 0.4), rng.range(0.1, 0.5));
            let a = q * Vec3::new(0.0, half_height, 0.0);
            let s = Shape::Capsule {
                radius,
                half_height,
            };
            (s, Solid::Pill(at - a, at + a, radius), radius + half_height)
        }
    }
}

/// The bound of a scene solid about its centre (the engine's bounding radius).
fn bound(s: Solid) -> f32 {
    match s {
        Solid::Ball(_, r) => r,
        Solid::Cube(_, _, h) => h.length(),
        Solid::Pill(a, b, r) => 0.5 * (b - a).length() + r,
        _ => 0.0,
    }
}

/// Casts 20 random shapes from 9 m out towards the middle of the scene whose colliders are
/// `solids` (world space) and checks each against its sampled sweep (see
/// [`casts_agree_with_sampled_sweeps_on_random_scenes`]); counts hits and misses.
fn check_casts(w: &RigidWorld, solids: &[(BodyHandle, Solid)], rng: &mut Rng, n: &mut [u32; 2]) {
    // The sampling step, and the overlap allowed (see the test's docs).
    const STEP: f32 = 0.01;
    const EPS: f32 = 2e-4;
    for _ in 0..20 {
        let from = rng.vec3(-1.0, 1.0).normalize_or(Vec3::Z) * 9.0;
        let aim = rng.vec3(-3.0, 3.0);
        let d = (aim - from).normalize();
        let q = random_rotation(rng);
        let (shape, solid, caster_bound) = random_caster(rng, from, q);
        let max = 18.0;
        let hit = w
            .cast_shape(&shape, from, q, d, max, &QueryFilter::new())
            .unwrap();
        let end = hit.map_or(max, |h| h.distance);
        let mut s = 0.0;
        while s < end - EPS {
            for (h, target) in solids {
                let g = separation(solid.moved(d * s), *target);
                assert!(
                    g > -EPS,
                    "{shape:?} overlaps {h:?} ({target:?}) by {g} at {s}, before {hit:?}"
                );
            }
            s += STEP;
        }
        let Some(hit) = hit else {
            n[1] += 1;
            continue;
        };
        n[0] += 1;
        let (_, target) = solids.iter().find(|(h, _)| *h == hit.body).unwrap();
        // The cast's stop tolerance (`cast_tolerance` in shape_cast.rs).
        let (lo, hi) = (
            caster_bound.min(bound(*target)),
            caster_bound.max(bound(*target)),
        );
        let tol = (CAST_REL_TOLERANCE * lo).max(8.0 * f32::EPSILON * hi);
        let g = separation(solid.moved(d * hit.distance), *target);
        assert!(
            g <= tol + EPS,
            "{shape:?} is {g} from {target:?} at the reported {}",
            hit.distance
        );
        assert!((hit.normal.length() - 1.0).abs() < 1e-4, "{hit:?}");
        if hit.distance > 0.0 {
            assert!(hit.normal.dot(d) <= 1e-4, "the normal faces the caster");
        }
    }
}

/// Sampled sweeps against the cast on random static scenes. The sweep steps the caster by 1 cm
/// and computes its separation from every collider with the independent geometry above.
/// Checked:
/// (a) no sample before the reported distance overlaps any collider the filter sees (the cast
///     does not pass through anything), and a miss overlaps nothing along the whole path;
/// (b) at the reported distance the caster is within the cast's stop tolerance
///     (`CAST_REL_TOLERANCE` × the smaller bound) of the reported collider: the first touching
///     sample lies within one step after it, since a translation by δ changes a separation by
///     at most δ.
///
/// ε = 2e-4 m: the advancement steps by GJK distances accurate to 1e-5 of the pair's scale
/// (under 20 m here, so 2e-4 m), and the independent geometry rounds at 1e-6 m.
#[test]
fn casts_agree_with_sampled_sweeps_on_random_scenes() {
    let mut rng = Rng::new(0x5ca7_0001);
    let mut n = [0u32; 2];
    for _ in 0..6 {
        let (mut w, solids) = random_scene(Backend::Cpu, &mut rng, false);
        let bodies = w.read_bodies().unwrap();
        let solids: Vec<_> = solids
            .iter()
            .map(|&(h, s)| (h, posed(s, &bodies[h.index() as usize])))
            .collect();
        check_casts(&w, &solids, &mut rng, &mut n);
    }
    // Both outcomes occur, so neither branch is vacuous.
    assert!(n[0] > 20 && n[1] > 5, "{} hits, {} misses", n[0], n[1]);
}

/// The same sampled sweeps after the dynamic bodies fell and tumbled for 20 steps, on both
/// backends: the casts read the bodies where they moved (on the GPU, the copy body tracking
/// brought back, else a blocking read), and the sweeps place the solids by those same poses.
#[test]
fn casts_agree_with_sampled_sweeps_after_motion() {
    for (name, backend) in backends() {
        let mut rng = Rng::new(0x5ca7_0002);
        let mut n = [0u32; 2];
        for _ in 0..2 {
            let (mut w, solids) = random_scene(backend.clone(), &mut rng, true);
            w.set_body_tracking(true);
            run(&mut w, 20, DT);
            let polled = w.poll_bodies().map(|s| s.raw().to_vec());
            let bodies = match polled {
                Some(b) if b.len() == w.slots() as usize => b,
                _ => w.read_bodies().unwrap(),
            };
            let moved = bodies.iter().any(|b| b.lin_vel.truncate().length() > 0.1);
            assert!(moved, "{name}: the bodies fell");
            let solids: Vec<_> = solids
                .iter()
                .map(|&(h, s)| (h, posed(s, &bodies[h.index() as usize])))
                .collect();
            check_casts(&w, &solids, &mut rng, &mut n);
        }
        assert!(
            n[0] > 5 && n[1] > 2,
            "{name}: {} hits, {} misses",
            n[0],
            n[1]
        );
    }
}

/// Closed forms: a ball of radius 0.25 moved along x towards a ball of radius 1 at the origin
/// from x = −5 touches after 5 − 1.25 m; a box of half height 0.5 dropped from y = 3 onto the
/// ground y = 0 after 2.5 m; a capsule lying along x (turned a quarter about z), radius 0.2,
/// dropped from y = 4 onto a box whose top is at y = 1 after 4 − 0.2 − 1 m. Each hit names the
/// right body. The advancement stops within `CAST_REL_TOLERANCE` of the bounds before the
/// contact (under 2.5e-4 m for these sizes), and GJK's distances it steps by are good to 1e-5
/// of the pair's scale (5e-5 m here) either way: 3e-4 m. The plane's is exact to rounding
/// (1e-5 m).
#[test]
fn closed_forms() {
    let mut w = RigidWorld::new(Backend::Cpu, config(8)).unwrap();
    let ground = w
        .add_body(
            RigidBody::fixed(),
            &[Collider::new(Shape::HalfSpace {
                normal: Vec3::Y,
                offset: 0.0,
            })],
        )
        .unwrap();
    let ball = w
        .add_body(
            RigidBody::fixed().position(Vec3::new(0.0, 10.0, 0.0)),
            &[Collider::sphere(1.0)],
        )
        .unwrap();
    let block = w
        .add_body(
            RigidBody::fixed().position(Vec3::new(20.0, 0.5, 0.0)),
            &[Collider::cuboid(Vec3::splat(0.5))],
        )
        .unwrap();
    let f = QueryFilter::new();
    let sphere = Shape::Sphere { radius: 0.25 };
    let at = Vec3::new(-5.0, 10.0, 0.0);
    let hit = w
        .cast_shape(&sphere, at, Quat::IDENTITY, Vec3::X, 20.0, &f)
        .unwrap()
        .unwrap();
    assert_eq!(hit.body, ball);
    assert!((hit.distance - 3.75).abs() <= 3e-4, "{hit:?}");
    assert!((hit.normal + Vec3::X).length() < 1e-3, "{hit:?}");
    assert!((hit.point - Vec3::new(-1.0, 10.0, 0.0)).length() < 1e-3);
    let cube = Shape::Cuboid {
        half_extents: Vec3::splat(0.5),
    };
    let at = Vec3::new(-10.0, 3.0, 0.0);
    let hit = w
        .cast_shape(&cube, at, Quat::IDENTITY, -Vec3::Y, 20.0, &f)
        .unwrap()
        .unwrap();
    assert_eq!(hit.body, ground);
    assert!((hit.distance - 2.5).abs() <= 1e-5, "{hit:?}");
    assert!((hit.normal - Vec3::Y).length() < 1e-6 && hit.point.y.abs() < 1e-5);
    let pill = Shape::Capsule {
        radius: 0.2,
        half_height: 0.6,
    };
    let q = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let at = Vec3::new(20.0, 4.0, 0.0);
    let hit = w
        .cast_shape(&pill, at, q, -Vec3::Y, 20.0, &f)
        .unwrap()
        .unwrap();
    assert_eq!(hit.body, block);
    assert!((hit.distance - 2.8).abs() <= 3e-4, "{hit:?}");
    assert!((hit.normal - Vec3::Y).length() < 1e-3, "{hit:?}");
    // Too short to reach, and excluding the block: the ground 1.8 m further down.
    assert_eq!(w.cast_shape(&pill, at, q, -Vec3::Y, 2.5, &f).unwrap(), None);
    let past = w
        .cast_shape(&pill, at, q, -Vec3::Y, 20.0, &f.clone().exclude(block))
        .unwrap()
        .unwrap();
    assert_eq!(past.body, ground);
    assert!((past.distance - 3.8).abs() <= 1e-5, "{past:?}");
    // Starting inside the ball: distance 0, the normal against the motion.
    let inside = w
        .cast_shape(
            &sphere,
            Vec3::new(0.0, 10.5, 0.0),
            Quat::IDENTITY,
            Vec3::X,
            5.0,
            &f,
        )
        .unwrap()
        .unwrap();
    assert_eq!((inside.body, inside.distance), (ball, 0.0));
    assert_eq!(inside.normal, -Vec3::X);
    // A hull the world stores casts as its box would: the same distance onto the ground.
    let corners = Solid::corners(Vec3::ZERO, Quat::IDENTITY, Vec3::splat(0.5));
    let hull = Collider::convex_hull(&corners).unwrap();
    w.add_body(
        RigidBody::fixed().position(Vec3::new(-30.0, 5.0, 0.0)),
        std::slice::from_ref(&hull),
    )
    .unwrap();
    let at = Vec3::new(-10.0, 3.0, 0.0);
    let by_hull = w
        .cast_shape(&hull.shape, at, Quat::IDENTITY, -Vec3::Y, 20.0, &f)
        .unwrap()
        .unwrap();
    assert_eq!(by_hull.body, ground);
    assert!((by_hull.distance - 2.5).abs() <= 1e-5, "{by_hull:?}");
}

/// After a ball (r = 0.5) fell onto the ground, a ball of radius 0.25 cast down from y = 10
/// meets it on both backends (the GPU reading the copy its body tracking brought back, no
/// blocking read): after 10 − 0.25 − 1 m, give or take the contact margin it rests within,
/// and the ground after 9.75 m when the ball is excluded.
#[test]
fn casts_see_where_the_bodies_moved() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(8)).unwrap();
        let ground = w
            .add_body(
                RigidBody::fixed(),
                &[Collider::new(Shape::HalfSpace {
                    normal: Vec3::Y,
                    offset: 0.0,
                })],
            )
            .unwrap();
        let ball = w
            .add_body(
                RigidBody::dynamic().position(Vec3::new(0.0, 3.0, 0.0)),
                &[Collider::sphere(0.5)],
            )
            .unwrap();
        w.set_body_tracking(true);
        run(&mut w, 120, DT);
        w.poll_bodies();
        let s = Shape::Sphere { radius: 0.25 };
        let at = Vec3::new(0.0, 10.0, 0.0);
        let f = QueryFilter::new();
        let hit = w
            .cast_shape(&s, at, Quat::IDENTITY, -Vec3::Y, 20.0, &f)
            .unwrap()
            .unwrap();
        assert_eq!(hit.body, ball, "{name}");
        let margin = w.config().contact_margin;
        assert!((hit.distance - 8.75).abs() <= margin, "{name}: {hit:?}");
        let under = w
            .cast_shape(&s, at, Quat::IDENTITY, -Vec3::Y, 20.0, &f.exclude(ball))
            .unwrap()
            .unwrap();
        assert_eq!(under.body, ground, "{name}");
        assert!((under.distance - 9.75).abs() <= 1e-5, "{name}: {under:?}");
    }
}

/// Bad input is refused with a clear error, and the world is unchanged.
#[test]
fn bad_casts_are_refused() {
    let mut w = RigidWorld::new(Backend::Cpu, config(8)).unwrap();
    w.add_body(
        RigidBody::dynamic().position(Vec3::Y),
        &[Collider::sphere(0.5)],
    )
    .unwrap();
    let before = hash_bodies(&w.read_bodies().unwrap());
    let ok = Shape::Sphere { radius: 0.5 };
    let (p, q, d, f) = (
        Vec3::new(0.0, 5.0, 0.0),
        Quat::IDENTITY,
        -Vec3::Y,
        QueryFilter::new(),
    );
    let what = |r: Result<_, Error>| match r {
        Err(Error::InvalidInput { what, .. }) => what,
        other => panic!("accepted: {other:?}"),
    };
    let other = Collider::convex_hull(&Solid::corners(Vec3::ZERO, q, Vec3::ONE)).unwrap();
    for (shape, want) in [
        (Shape::Sphere { radius: 0.0 }, "shape cast shape"),
        (
            Shape::Cuboid {
                half_extents: Vec3::new(1.0, 0.0, 1.0),
            },
            "shape cast shape",
        ),
        (
            Shape::Capsule {
                radius: 0.0,
                half_height: 1.0,
            },
            "shape cast shape",
        ),
        (
            Shape::HalfSpace {
                normal: Vec3::Y,
                offset: 0.0,
            },
            "shape cast shape",
        ),
        (Shape::Sphere { radius: -1.0 }, "sphere radius"),
        (other.shape.clone(), "shape cast hull"),
    ] {
        assert_eq!(
            what(w.cast_shape(&shape, p, q, d, 10.0, &f)),
            want,
            "{shape:?}"
        );
    }
    assert_eq!(
        what(w.cast_shape(&ok, p, q, Vec3::ZERO, 10.0, &f)),
        "shape cast direction"
    );
    assert_eq!(
        what(w.cast_shape(&ok, p, q, Vec3::NAN, 10.0, &f)),
        "shape cast direction"
    );
    assert_eq!(
        what(w.cast_shape(&ok, Vec3::INFINITY, q, d, 10.0, &f)),
        "shape cast position"
    );
    let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    assert_eq!(
        what(w.cast_shape(&ok, p, zero, d, 10.0, &f)),
        "shape cast rotation"
    );
    for max in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert_eq!(
            what(w.cast_shape(&ok, p, q, d, max, &f)),
            "shape cast max_distance"
        );
    }
    for f in [
        QueryFilter::new().groups(0, u32::MAX),
        QueryFilter::new().groups(u32::MAX, 0),
    ] {
        assert_eq!(
            what(w.cast_shape(&ok, p, q, d, 10.0, &f)),
            "query filter groups"
        );
    }
    assert_eq!(hash_bodies(&w.read_bodies().unwrap()), before);
    // The same world still answers a good cast.
    assert!(w.cast_shape(&ok, p, q, d, 10.0, &f).unwrap().is_some());
}

/// A small probe cast onto a level-sized floor box (1 km across) stops where it touches, not a
/// fraction of the floor's size early: straight down onto the top, and sliding in over the
/// floor's edge, where the gap closes nonlinearly and the advancement needs several steps.
/// Within 1 mm of the touching distance found by bisection on the exact box distance (the stop
/// tolerance there is 8 ulps of the floor's 707 m bound, 0.67 mm; GJK's distances at 500 m
/// coordinates round to about 6e-5 m).
#[test]
fn a_probe_stops_on_a_large_floor() {
    let mut w = RigidWorld::new(Backend::Cpu, config(8)).unwrap();
    let (centre, half) = (Vec3::new(0.0, -0.5, 0.0), Vec3::new(500.0, 0.5, 500.0));
    w.add_body(
        RigidBody::fixed().position(centre),
        &[Collider::cuboid(half)],
    )
    .unwrap();
    let f = QueryFilter::new();
    let r = 0.25;
    for (from, d) in [
        (Vec3::new(3.0, 5.0, -7.0), -Vec3::Y),
        (
            Vec3::new(500.9, 1.0, 2.0),
            Vec3::new(-1.0, -0.35, 0.0).normalize(),
        ),
    ] {
        let hit = w
            .cast_shape(
                &Shape::Sphere { radius: r },
                from,
                Quat::IDENTITY,
                d,
                20.0,
                &f,
            )
            .unwrap()
            .expect("the floor is in the way");
        // The first touch: the last s with a positive gap, by bisection in f64 on the box's
        // exact distance.
        let gap = |s: f64| {
            let c = (from.as_dvec3() + d.as_dvec3() * s) - centre.as_dvec3();
            let q = c.abs() - half.as_dvec3();
            q.max(glam::DVec3::ZERO).length() + q.max_element().min(0.0) - f64::from(r)
        };
        let (mut lo, mut hi) = (0.0f64, 20.0f64);
        // Walk to the first overlapping sample, then bisect.
        let mut s = 0.0;
        while gap(s) > 0.0 {
            s += 1e-3;
        }
        hi = hi.min(s);
        lo = lo.max(s - 1e-3);
        for _ in 0..60 {
            let m = 0.5 * (lo + hi);
            if gap(m) > 0.0 {
                lo = m;
            } else {
                hi = m;
            }
        }
        assert!(
            (f64::from(hit.distance) - lo).abs() <= 1e-3,
            "from {from} along {d}: stopped at {} for {lo}",
            hit.distance
        );
    }
}
