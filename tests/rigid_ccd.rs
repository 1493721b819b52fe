//! The `ccd` stage and its sweeps: sphere time of impact against closed forms, the
//! bullet-through-a-wall case, the bodies the stage leaves alone, and GPU-vs-CPU parity of the
//! stage on a seeded scene.

mod common;

use std::f32::consts::{FRAC_PI_2, PI};

use common::rigid::queries::{body_at, close3, shape};
use common::Rng;
use glam::{Quat, Vec3, Vec4, Vec4Swizzles};
use wgphys::rigid::ccd::{ccd, sweep_sphere, CCD_FLAG};
use wgphys::rigid::math::from_quat;
use wgphys::rigid::types::{body_kind, shape_kind, GpuBody, GpuRigidParams, GpuShape};

// ---------------------------------------------------------------------------------------------
// Scene helpers

fn bullet(pos: Vec3, vel: Vec3) -> GpuBody {
    let mut b = body_at(pos, Quat::IDENTITY, body_kind::DYNAMIC);
    b.lin_vel = vel.extend(1.0);
    b.flags = CCD_FLAG;
    b
}

// ---------------------------------------------------------------------------------------------
// Sweeps and the ccd stage

/// The 001-A circle vectors, in 3D: C1 from (0,0,0) to (10,0,0), r = 1, against a still unit
/// sphere.
#[test]
fn sphere_sphere_toi_matches_the_closed_form() {
    let mut s = shape(shape_kind::SPHERE, 0, Vec4::new(1.0, 0.0, 0.0, 0.0));
    // Put the target shape on an offset in a rotated body, so the pose path is exercised.
    s.offset_pos = Vec4::new(0.0, 1.0, 0.0, 0.0);
    let q = Quat::from_rotation_z(-FRAC_PI_2); // local y → world +x
    let (a, b) = (Vec3::ZERO, Vec3::new(10.0, 0.0, 0.0));
    let at = |c: Vec3| body_at(c - Vec3::X, q, body_kind::STATIC);
    let (t, n) = sweep_sphere(a, b, 1.0, &s, &at(Vec3::new(6.0, 0.0, 0.0))).expect("TOI");
    assert!(
        (t - 0.4).abs() < 1e-6 && close3(n, -Vec3::X, 1e-6),
        "t {t} n {n}"
    );
    let (t, _) = sweep_sphere(a, b, 1.0, &s, &at(Vec3::new(6.0, 2.0, 0.0))).expect("graze");
    // A double root is ill-conditioned: a rounding of ε in the target's pose (it sits on a
    // rotated offset) moves it by about √ε·scale, so this tolerance is √(f32 ε)-sized.
    assert!((t - 0.6).abs() < 2e-3, "grazing double root: t {t}");
    // Without the rotated offset the root is exact.
    let plain = shape(shape_kind::SPHERE, 0, Vec4::new(1.0, 0.0, 0.0, 0.0));
    let still = body_at(Vec3::new(6.0, 2.0, 0.0), Quat::IDENTITY, body_kind::STATIC);
    let (t, _) = sweep_sphere(a, b, 1.0, &plain, &still).expect("graze");
    assert!(
        (t - 0.6).abs() < 1e-6,
        "grazing double root, plain pose: t {t}"
    );
    assert!(sweep_sphere(a, b, 1.0, &s, &at(Vec3::new(6.0, 3.0, 0.0))).is_none());
    // Out of reach within the step, and already overlapping at the start.
    assert!(sweep_sphere(
        a,
        Vec3::new(3.0, 0.0, 0.0),
        1.0,
        &s,
        &at(Vec3::new(6.0, 0.0, 0.0))
    )
    .is_none());
    let (t, _) = sweep_sphere(
        Vec3::new(5.0, 0.0, 0.0),
        b,
        1.0,
        &s,
        &at(Vec3::new(6.0, 0.0, 0.0)),
    )
    .expect("overlap");
    assert_eq!(t, 0.0);
}

#[test]
fn sphere_plane_and_half_space_toi_match_the_closed_form() {
    let ground = body_at(Vec3::ZERO, Quat::IDENTITY, body_kind::STATIC);
    let (h0, h1, r) = (3.0f32, -7.0f32, 0.25f32);
    let want = (h0 - r) / (h0 - h1);
    for kind in [shape_kind::HALF_SPACE, shape_kind::PLANE] {
        let s = shape(kind, 0, Vec4::new(0.0, 1.0, 0.0, 0.0));
        let (t, n) = sweep_sphere(
            Vec3::new(0.0, h0, 0.0),
            Vec3::new(4.0, h1, 1.0),
            r,
            &s,
            &ground,
        )
        .expect("TOI");
        assert!(
            (t - want).abs() < 1e-6 && close3(n, Vec3::Y, 1e-6),
            "kind {kind}: t {t} n {n}"
        );
    }
    // The thin plane from below, tilted 30° about z.
    let tilted = body_at(
        Vec3::ZERO,
        Quat::from_rotation_z(PI / 6.0),
        body_kind::STATIC,
    );
    let s = shape(shape_kind::PLANE, 0, Vec4::new(0.0, 1.0, 0.0, 0.0));
    let n_w = Quat::from_rotation_z(PI / 6.0) * Vec3::Y;
    let (a, b) = (-2.0 * n_w, 3.0 * n_w);
    let (t, n) = sweep_sphere(a, b, r, &s, &tilted).expect("TOI");
    assert!(
        (t - (2.0 - r) / 5.0).abs() < 1e-6 && close3(n, -n_w, 1e-6),
        "t {t} n {n}"
    );
}

#[test]
fn sphere_box_toi_uses_the_rounded_box() {
    // Unit box (half 1), sphere r = 0.5 moving along x from −5 to 5 (10 units) at height (y, z).
    let cases = [
        (0.0, 0.0, Some(0.35)),                                // face: x = −1.5
        (1.3, 0.0, Some(0.36)),                                // edge: (x+1)² + 0.09 = 0.25
        (1.2, 1.2, Some((5.0 - 1.0 - 0.17f32.sqrt()) / 10.0)), // corner
        (1.4, 1.4, None), // inside the inflated AABB but outside the rounded corner
    ];
    for q in [
        Quat::IDENTITY,
        Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 0.8),
    ] {
        let centre = Vec3::new(2.0, -1.0, 0.5);
        let body = body_at(centre, q, body_kind::STATIC);
        let s = shape(shape_kind::BOX, 0, Vec4::new(1.0, 1.0, 1.0, 0.0));
        for (y, z, want) in cases {
            let a = centre + q * Vec3::new(-5.0, y, z);
            let b = centre + q * Vec3::new(5.0, y, z);
            let got = sweep_sphere(a, b, 0.5, &s, &body).map(|h| h.0);
            match (got, want) {
                (Some(t), Some(w)) => assert!((t - w).abs() < 2e-6, "y {y} z {z}: t {t} want {w}"),
                (None, None) => {}
                _ => panic!("y {y} z {z} q {q}: got {got:?}, want {want:?}"),
            }
        }
    }
}

#[test]
fn sphere_capsule_toi_matches_the_closed_form() {
    // Capsule along world z (local y rotated by 90° about x), r 0.3, half length 2.
    let body = body_at(
        Vec3::ZERO,
        Quat::from_rotation_x(FRAC_PI_2),
        body_kind::STATIC,
    );
    let s = shape(shape_kind::CAPSULE, 0, Vec4::new(0.3, 2.0, 0.0, 0.0));
    // Side: approach along x at z = 1: touches at x = −(0.3 + 0.2).
    let (t, n) = sweep_sphere(
        Vec3::new(-4.5, 0.0, 1.0),
        Vec3::new(5.5, 0.0, 1.0),
        0.2,
        &s,
        &body,
    )
    .expect("side");
    assert!(
        (t - 0.4).abs() < 1e-6 && close3(n, -Vec3::X, 1e-5),
        "t {t} n {n}"
    );
    // End cap: approach along z: touches at z = 2.5.
    let (t, n) = sweep_sphere(
        Vec3::new(0.0, 0.0, 7.5),
        Vec3::new(0.0, 0.0, -2.5),
        0.2,
        &s,
        &body,
    )
    .expect("cap");
    assert!(
        (t - 0.5).abs() < 1e-6 && close3(n, Vec3::Z, 1e-5),
        "t {t} n {n}"
    );
}

fn params(dt: f32, bodies: usize, shapes: usize) -> GpuRigidParams {
    GpuRigidParams {
        dt,
        body_count: bodies as u32,
        shape_count: shapes as u32,
        contact_margin: 0.01,
        position_slop: 0.002,
        ..GpuRigidParams::default()
    }
}

/// The catalogue's tunnelling case: a 300 m/s bullet (r = 0.01) against a 5 cm static wall at
/// dt = 1/60 travels 5 m per step, a hundred times the wall's thickness.
#[test]
fn fast_bullet_stops_at_the_wall_face() {
    let dt = 1.0 / 60.0;
    let v = Vec3::new(300.0, 0.0, 0.0);
    let r = 0.01f32;
    let face = -0.025f32;
    for wall_q in [Quat::IDENTITY, Quat::from_rotation_x(0.9)] {
        // The integrator already moved the bullet from x = −2 to x = 3 (through the wall).
        let start = Vec3::new(-2.0, 0.1, -0.2);
        let mut bodies = vec![
            bullet(start + v * dt, v),
            body_at(Vec3::ZERO, wall_q, body_kind::STATIC),
        ];
        let shapes = vec![
            shape(shape_kind::SPHERE, 0, Vec4::new(r, 0.0, 0.0, 0.0)),
            shape(shape_kind::BOX, 1, Vec4::new(0.025, 1.0, 1.0, 0.0)),
        ];
        let p = params(dt, bodies.len(), shapes.len());
        let skin = 0.5 * p.position_slop.min(r);
        let before = bodies.clone();
        ccd(&p, &mut bodies, &shapes, &[]);
        let x = bodies[0].pos.x;
        assert!(
            x >= face - r + skin - 1e-5 && x <= face - r + skin + 1e-5,
            "bullet should sit {skin} into the face at x = {face}: centre x = {x}"
        );
        assert!(x + r < face + 2.0 * skin, "the bullet passed the face");
        assert_eq!(
            bodies[0].pos.yzw(),
            before[0].pos.yzw(),
            "only x moves, inverse mass kept"
        );
        assert_eq!(
            bodies[0].lin_vel, before[0].lin_vel,
            "velocity kept for the solver"
        );
        assert_eq!(bodies[1], before[1], "the wall is untouched");
    }
}

/// Every target kind: the stage places the bullet `skin` into the surface along its path.
#[test]
fn ccd_places_the_sphere_at_contact_for_every_target_kind() {
    let dt = 0.01;
    let r = 0.05f32;
    let v = Vec3::new(0.0, -400.0, 0.0); // 4 m per step
    let targets = [
        (shape_kind::SPHERE, Vec4::new(0.3, 0.0, 0.0, 0.0), 0.3 + r),
        (shape_kind::BOX, Vec4::new(0.5, 0.2, 0.5, 0.0), 0.2 + r),
        (shape_kind::CAPSULE, Vec4::new(0.2, 1.0, 0.0, 0.0), 0.2 + r), // rotated to lie along x
        (shape_kind::HALF_SPACE, Vec4::new(0.0, 1.0, 0.0, 0.0), r),
        (shape_kind::PLANE, Vec4::new(0.0, 1.0, 0.0, 0.0), r),
    ];
    for (kind, dims, contact_y) in targets {
        let q = if kind == shape_kind::CAPSULE {
            Quat::from_rotation_z(FRAC_PI_2)
        } else {
            Quat::IDENTITY
        };
        let mut bodies = vec![
            body_at(Vec3::ZERO, q, body_kind::STATIC),
            bullet(Vec3::new(0.0, 2.0, 0.0) + v * dt, v),
        ];
        let shapes = vec![
            shape(kind, 0, dims),
            shape(shape_kind::SPHERE, 1, Vec4::new(r, 0.0, 0.0, 0.0)),
        ];
        let p = params(dt, 2, 2);
        let skin = 0.5 * p.position_slop.min(r);
        ccd(&p, &mut bodies, &shapes, &[]);
        let y = bodies[1].pos.y;
        assert!(
            (y - (contact_y - skin)).abs() < 2e-5,
            "kind {kind}: bullet centre y = {y}, want {}",
            contact_y - skin
        );
    }
}

#[test]
fn slow_sleeping_unflagged_and_filtered_bodies_are_untouched() {
    let dt = 1.0 / 60.0;
    let wall = shape(shape_kind::BOX, 0, Vec4::new(0.025, 1.0, 1.0, 0.0));
    let ball = |b: u32| shape(shape_kind::SPHERE, b, Vec4::new(0.1, 0.0, 0.0, 0.0));
    let fast = Vec3::new(300.0, 0.0, 0.0);
    let cases: Vec<(&str, GpuBody, GpuShape)> = vec![
        // Travels 0.083 per step < r = 0.1: the discrete phase cannot miss it.
        (
            "slow",
            bullet(Vec3::new(-0.09, 0.0, 0.0), Vec3::new(5.0, 0.0, 0.0)),
            ball(1),
        ),
        (
            "unflagged",
            {
                let mut b = bullet(Vec3::new(3.0, 0.0, 0.0), fast);
                b.flags = 0;
                b
            },
            ball(1),
        ),
        (
            "asleep",
            {
                let mut b = bullet(Vec3::new(3.0, 0.0, 0.0), fast);
                b.awake = 0;
                b
            },
            ball(1),
        ),
        (
            "kinematic",
            {
                let mut b = bullet(Vec3::new(3.0, 0.0, 0.0), fast);
                b.kind = body_kind::KINEMATIC;
                b
            },
            ball(1),
        ),
        ("filtered", bullet(Vec3::new(3.0, 0.0, 0.0), fast), {
            let mut s = ball(1);
            s.group = 2;
            s
        }),
        // Spheres, boxes, capsules and hulls are swept (the last three by conservative
        // advancement, `rigid_hull_world` and `rigid_hull_gpu`); a plane is not.
        (
            "not a swept kind",
            bullet(Vec3::new(3.0, 0.0, 0.0), fast),
            shape(shape_kind::PLANE, 1, Vec4::new(0.0, 1.0, 0.0, 0.0)),
        ),
        // Already touching the face and leaving fast (e.g. after the solver bounced it).
        (
            "leaving",
            bullet(Vec3::new(-0.12, 0.0, 0.0) - fast * dt, -fast),
            ball(1),
        ),
        // Shapes past shape_count are not looked at.
        (
            "counted out",
            bullet(Vec3::new(3.0, 0.0, 0.0), fast),
            ball(1),
        ),
    ];
    for (name, b, s) in cases {
        let mut wall_shape = wall;
        wall_shape.mask = !2; // the "filtered" ball's group
        let mut shapes = vec![wall_shape, s];
        let mut bodies = vec![body_at(Vec3::ZERO, Quat::IDENTITY, body_kind::STATIC), b];
        let mut p = params(dt, 2, 2);
        if name == "counted out" {
            shapes.swap(0, 1);
            p.shape_count = 1;
        }
        let before = bodies.clone();
        ccd(&p, &mut bodies, &shapes, &[]);
        assert_eq!(bodies, before, "{name}: the body should be untouched");
    }
}

#[test]
fn ccd_picks_the_earliest_hit_and_handles_moving_targets() {
    let dt = 0.01;
    let v = Vec3::new(500.0, 0.0, 0.0); // 5 m per step, from x = 0 to x = 5
    let r = 0.02;
    let wall = |b: u32| shape(shape_kind::BOX, b, Vec4::new(0.05, 1.0, 1.0, 0.0));
    let mut bodies = vec![
        body_at(Vec3::new(3.0, 0.0, 0.0), Quat::IDENTITY, body_kind::STATIC),
        body_at(Vec3::new(1.0, 0.0, 0.0), Quat::IDENTITY, body_kind::STATIC),
        bullet(v * dt, v),
    ];
    let shapes = vec![
        wall(0),
        wall(1),
        shape(shape_kind::SPHERE, 2, Vec4::new(r, 0.0, 0.0, 0.0)),
    ];
    let p = params(dt, 3, 3);
    let skin = 0.5 * p.position_slop;
    ccd(&p, &mut bodies, &shapes, &[]);
    assert!(
        (bodies[2].pos.x - (0.95 - r + skin)).abs() < 1e-5,
        "nearest wall: x = {}",
        bodies[2].pos.x
    );

    // A wall moving toward the bullet at 100 m/s (now at x = 2, it was at 3): relative to the
    // wall the bullet starts at x = 1 and the contact is at the wall's current face.
    let mut moving = body_at(
        Vec3::new(2.0, 0.0, 0.0),
        Quat::IDENTITY,
        body_kind::KINEMATIC,
    );
    moving.lin_vel = Vec4::new(-100.0, 0.0, 0.0, 1.0);
    let mut bodies = vec![moving, bullet(v * dt, v)];
    let shapes = vec![
        wall(0),
        shape(shape_kind::SPHERE, 1, Vec4::new(r, 0.0, 0.0, 0.0)),
    ];
    ccd(&params(dt, 2, 2), &mut bodies, &shapes, &[]);
    assert!(
        (bodies[1].pos.x - (1.95 - r + skin)).abs() < 1e-5,
        "moving wall: x = {}",
        bodies[1].pos.x
    );

    // Two bullets do not sweep against each other (the discrete phase handles them).
    let mut bodies = vec![
        bullet(Vec3::new(2.5, 0.0, 0.0), v),
        bullet(Vec3::new(2.5, 0.0, 0.0), -v),
    ];
    let shapes = vec![
        shape(shape_kind::SPHERE, 0, Vec4::new(r, 0.0, 0.0, 0.0)),
        shape(shape_kind::SPHERE, 1, Vec4::new(r, 0.0, 0.0, 0.0)),
    ];
    let before = bodies.clone();
    ccd(&params(dt, 2, 2), &mut bodies, &shapes, &[]);
    assert_eq!(bodies, before);
}

/// A CCD body with two spheres on offsets: the one that leads after the body's rotation hits
/// first, and the body is placed so that sphere sits at the face. Bodies past `body_count` are
/// not looked at.
#[test]
fn ccd_uses_the_leading_sphere_of_a_rotated_body() {
    let dt = 0.01;
    let v = Vec3::new(400.0, 0.0, 0.0);
    let r = 0.05;
    // Rotated 180° about y: the offset (−0.5, 0, 0) now leads along +x.
    let mut b = bullet(Vec3::new(1.0, 0.0, 0.0), v);
    b.orient = from_quat(Quat::from_rotation_y(PI));
    let mut lead = shape(shape_kind::SPHERE, 1, Vec4::new(r, 0.0, 0.0, 0.0));
    lead.offset_pos = Vec4::new(-0.5, 0.0, 0.0, 0.0);
    let mut tail = lead;
    tail.offset_pos = Vec4::new(0.5, 0.0, 0.0, 0.0);
    let wall = shape(shape_kind::BOX, 0, Vec4::new(0.05, 1.0, 1.0, 0.0));
    let shapes = vec![wall, tail, lead];
    let mut bodies = vec![
        body_at(Vec3::new(-1.0, 0.0, 0.0), Quat::IDENTITY, body_kind::STATIC),
        b,
    ];
    let p = params(dt, 2, 3);
    let skin = 0.5 * p.position_slop;
    ccd(&p, &mut bodies, &shapes, &[]);
    // The leading sphere's centre at −1.05 − r + skin; the body centre is 0.5 behind it.
    let want = -1.05 - r + skin - 0.5;
    assert!(
        (bodies[1].pos.x - want).abs() < 1e-5,
        "body x {} want {want}",
        bodies[1].pos.x
    );

    let mut bodies = vec![
        body_at(Vec3::new(-1.0, 0.0, 0.0), Quat::IDENTITY, body_kind::STATIC),
        b,
    ];
    let before = bodies.clone();
    ccd(&params(dt, 1, 3), &mut bodies, &shapes, &[]);
    assert_eq!(bodies, before, "body 1 is past body_count");
}

// ---------------------------------------------------------------------------------------------
// GPU parity

/// A seeded scene for the parity test: `n` bodies (not a multiple of the workgroup size) mixing
/// fast CCD bullets (one or two spheres, offsets), slow ones, asleep and unflagged ones, and
/// static, kinematic and dynamic targets of every shape kind in random orientations.
fn random_ccd_scene(rng: &mut Rng, n: usize) -> (Vec<GpuBody>, Vec<GpuShape>) {
    // Keep the density of the 301-body scene whatever n, so small scenes still collide.
    let spread = 6.0 * (n as f32 / 301.0).cbrt();
    let mut bodies = Vec::with_capacity(n);
    let mut shapes = Vec::new();
    for i in 0..n {
        let q = Quat::from_euler(
            glam::EulerRot::ZYX,
            rng.range(-PI, PI),
            rng.range(-PI, PI),
            rng.range(-PI, PI),
        );
        let pos = rng.vec3(-spread, spread);
        let roll = rng.unit();
        if roll < 0.35 {
            // A bullet: 100–400 m/s aimed roughly through the middle of the scene.
            let speed = rng.range(100.0, 400.0);
            let dir = (rng.vec3(-0.3, 0.3) * spread - pos).normalize_or(Vec3::X);
            let mut b = bullet(pos, dir * speed);
            b.orient = from_quat(q);
            if rng.chance(0.15) {
                b.lin_vel = (dir * 2.0).extend(1.0); // slow: untouched
            }
            if rng.chance(0.1) {
                b.awake = 0;
            }
            bodies.push(b);
            let r = rng.range(0.01, 0.1);
            let mut s = shape(shape_kind::SPHERE, i as u32, Vec4::new(r, 0.0, 0.0, 0.0));
            if rng.chance(0.3) {
                s.offset_pos = rng.vec3(-0.2, 0.2).extend(0.0);
                let mut s2 = s;
                s2.offset_pos = -s.offset_pos;
                shapes.push(s2);
            }
            shapes.push(s);
        } else {
            let kind = if roll < 0.6 {
                body_kind::STATIC
            } else if roll < 0.8 {
                body_kind::KINEMATIC
            } else {
                body_kind::DYNAMIC
            };
            let mut b = body_at(pos, q, kind);
            if kind != body_kind::STATIC {
                b.lin_vel = rng.vec3(-5.0, 5.0).extend(1.0);
            }
            bodies.push(b);
            let k = match rng.below(20) {
                0 => shape_kind::HALF_SPACE,
                1 => shape_kind::PLANE,
                2..=7 => shape_kind::SPHERE,
                8..=13 => shape_kind::CAPSULE,
                _ => shape_kind::BOX,
            };
            let dims = match k {
                shape_kind::SPHERE => Vec4::new(rng.range(0.2, 1.0), 0.0, 0.0, 0.0),
                shape_kind::CAPSULE => {
                    Vec4::new(rng.range(0.1, 0.5), rng.range(0.2, 1.0), 0.0, 0.0)
                }
                shape_kind::BOX => rng.vec3(0.05, 1.0).extend(0.0),
                _ => rng
                    .vec3(-1.0, 1.0)
                    .normalize_or(Vec3::Y)
                    .extend(-spread * rng.range(1.0, 1.3)),
            };
            let mut s = shape(k, i as u32, dims);
            s.offset_pos = rng.vec3(-0.3, 0.3).extend(0.0);
            s.offset_rot = from_quat(Quat::from_rotation_y(rng.range(-1.0, 1.0)));
            shapes.push(s);
        }
    }
    (bodies, shapes)
}

/// Stage `ccd`: the WGSL kernel, run through the rigid pass runner (`GpuRigid::run`, the same
/// explicit layout and bind group the world's step uses), against its CPU twin on seeded random
/// scenes whose body counts are not multiples of the workgroup size.
#[test]
fn ccd_gpu_matches_cpu() {
    use wgphys::grid::GridSpec;
    use wgphys::rigid::gpu::{GpuRigid, GpuRigidSizes, Pass};

    let ctx = common::gpu();
    let mut rng = Rng::new(0xccd0_2026);
    for n in [100usize, 301] {
        let (bodies, shapes) = random_ccd_scene(&mut rng, n);
        let p = params(1.0 / 60.0, bodies.len(), shapes.len());

        let mut cpu = bodies.clone();
        ccd(&p, &mut cpu, &shapes, &[]);
        let moved = cpu
            .iter()
            .zip(&bodies)
            .filter(|(a, b)| a.pos != b.pos)
            .count();
        assert!(
            moved >= n / 20,
            "n {n}: the scene should exercise the stage: {moved} moved"
        );

        let sizes = GpuRigidSizes {
            bodies: n as u32,
            shapes: shapes.len() as u32,
            pairs: 64,
            solver_words: 64 * u64::from(wgphys::rigid::solver::solver_record_rows()),
            pair_scratch_words: 64,
            grid: GridSpec::new(1.0, 64).expect("grid"),
            block_bins: 0,
            joints: 0,
            joint_filter: 0,
            generators: 0,
        };
        let mut g = GpuRigid::new(&ctx, sizes).expect("gpu backend");
        g.write(&g.params, &[p]);
        g.write(&g.bodies, &bodies);
        g.write(&g.shapes, &shapes);
        g.run(&[Pass::over("ccd", n as u32)]).expect("run ccd");
        let gpu: Vec<GpuBody> = g.read(&g.bodies, n).expect("read bodies");

        let mut worst = 0.0f32;
        let exact = gpu.iter().zip(&cpu).filter(|(g, c)| g.pos == c.pos).count();
        for (i, ((g, c), b)) in gpu.iter().zip(&cpu).zip(&bodies).enumerate() {
            // Most bodies agree to 2 ulps; a time of impact at a grazing angle divides by a
            // small n·d (or takes the root of a small discriminant), which amplifies the
            // per-operation differences (FMA contraction, GPU sqrt and division precision) to a
            // few tens of ulps of the swept length. Hence a tolerance that grows with travel.
            let travel = (b.lin_vel.truncate() * p.dt).length();
            let tol = 2e-5 + 4e-6 * travel;
            let err = (g.pos - c.pos).abs().max_element();
            worst = worst.max(err / tol);
            assert!(
                err <= tol,
                "ccd parity n {n}: body {i} field pos: gpu {} cpu {} (was {}), |diff| {err} > {tol}",
                g.pos,
                c.pos,
                b.pos
            );
            let mut g_rest = *g;
            g_rest.pos = c.pos;
            assert_eq!(
                &g_rest, c,
                "ccd parity n {n}: body {i}: fields other than pos changed"
            );
        }
        println!(
            "ccd parity on {}: n {n}, {moved} bodies moved, {exact} bit-identical; worst |diff| \
             {worst:.3} of tolerance",
            ctx.describe()
        );
    }
}
