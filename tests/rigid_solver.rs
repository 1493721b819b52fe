//! The contact solver (`src/rigid/solver.rs`, `shaders/rigid/solve.wgsl`): closed-form checks on
//! hand-built bodies and manifolds (restitution and its cut-off, resting contact, sliding
//! friction, the friction cone, momentum), and position projection and its angular limit. The
//! colouring is in `rigid_colour`; warm start, the pass list and GPU parity in
//! `rigid_solver_passes`.

mod common;

use common::rigid::solver::{dynamic, manifold, params, random_scene, static_body};
use common::rigid::{DT, G};
use common::Rng;
use glam::{Mat3, Quat, Vec3, Vec4, Vec4Swizzles};
use wgphys::rigid::integrate;
use wgphys::rigid::math::{from_quat, quat_rotate};
use wgphys::rigid::solver::*;
use wgphys::rigid::types::*;

fn sphere(pos: Vec3, mass: f32, r: f32) -> GpuBody {
    dynamic(pos, mass, Vec3::splat(0.4 * mass * r * r), Quat::IDENTITY)
}

fn cuboid(pos: Vec3, mass: f32, half: Vec3) -> GpuBody {
    let s = half * 2.0;
    let i = Vec3::new(
        s.y * s.y + s.z * s.z,
        s.x * s.x + s.z * s.z,
        s.x * s.x + s.y * s.y,
    );
    dynamic(pos, mass, i * (mass / 12.0), Quat::IDENTITY)
}

/// The contacts of a box (body 0, shape 0) with the ground plane y = 0 (the world, shape 1):
/// every corner below the plane, feature = corner index.
fn box_on_ground(b: &GpuBody, half: Vec3, mu: f32, e: f32) -> GpuManifold {
    let mut pts = Vec::new();
    let mut feats = Vec::new();
    for c in 0..8u32 {
        let s = Vec3::new(
            if c & 1 == 0 { -1.0 } else { 1.0 },
            if c & 2 == 0 { -1.0 } else { 1.0 },
            if c & 4 == 0 { -1.0 } else { 1.0 },
        );
        let w = b.pos.xyz() + quat_rotate(b.orient, half * s);
        if w.y <= 0.0 && pts.len() < 4 {
            pts.push((w, -w.y));
            feats.push(c);
        }
    }
    let mut m = manifold(0, NONE, (0, 1), Vec3::Y, &pts, mu, e);
    for (i, f) in feats.iter().enumerate() {
        m.features[i] = *f;
    }
    m
}

// ---------------------------------------------------------------------------------------------
// Closed forms.

#[test]
fn a_ball_bounces_at_e_v_above_the_cutoff_and_stops_below_it() {
    for (v, e, want) in [(5.0f32, 0.5f32, 2.5f32), (3.0, 0.8, 2.4), (0.2, 0.5, 0.0)] {
        let mut bodies = vec![sphere(Vec3::new(0.0, 0.499, 0.0), 2.0, 0.5)];
        bodies[0].lin_vel = Vec4::new(0.0, -v, 0.0, 1.0);
        let mut ms = vec![manifold(
            0,
            NONE,
            (0, 1),
            Vec3::Y,
            &[(Vec3::new(0.0, -0.001, 0.0), 0.001)],
            0.5,
            e,
        )];
        // No slop: a point at 1 mm depth is an overlap, so the soft contact and the relax
        // iterations stop the closing speed; with slop the ball may sink that far first.
        let mut p = params(1, 1);
        p.position_slop = 0.0;
        let report = solve(&p, &mut bodies, &mut ms, &[]);
        assert_eq!(report.manifolds, 1);
        assert_eq!(report.colours, 1);
        let vy = bodies[0].lin_vel.y;
        assert!(
            (vy - want).abs() < 1e-4,
            "v {v} e {e}: leaves at {vy}, want {want}"
        );
        assert!(bodies[0].lin_vel.xz().length() < 1e-6 && bodies[0].ang_vel.xyz().length() < 1e-6);
    }
    // A static body instead of the world, and a ball falling under gravity: restitution
    // reverses the normal velocity the step began with, not the g·dt this step's gravity adds
    // inside the substeps (which is what keeps resting contacts from bouncing).
    let mut bodies = vec![
        static_body(Vec3::new(0.0, -1.0, 0.0)),
        sphere(Vec3::new(0.0, 0.499, 0.0), 1.0, 0.5),
    ];
    bodies[1].lin_vel = Vec4::new(0.0, -5.0, 0.0, 1.0);
    bodies[1].acc = Vec4::new(0.0, -G, 0.0, 0.0);
    let mut ms = vec![manifold(
        1,
        0,
        (0, 1),
        Vec3::Y,
        &[(Vec3::new(0.0, -0.001, 0.0), 0.001)],
        0.0,
        0.5,
    )];
    let mut p = params(2, 1);
    p.position_slop = 0.0;
    solve(&p, &mut bodies, &mut ms, &[]);
    let want = 0.5 * 5.0;
    assert!(
        (bodies[1].lin_vel.y - want).abs() < 1e-4,
        "with last_acc: {} want {want}",
        bodies[1].lin_vel.y
    );
    assert_eq!(bodies[0].lin_vel, Vec4::ZERO, "a static body never moves");
}

#[test]
fn a_dropped_ball_bounces_lower_each_time_and_comes_to_rest() {
    let r = 0.5;
    let mut b = sphere(Vec3::new(0.0, 2.0, 0.0), 1.0, r);
    b.acc = Vec4::new(0.0, -G, 0.0, 0.0);
    let mut p = params(1, 1);
    p.contact_margin = 0.02;
    let mut prev: Vec<GpuManifold> = Vec::new();
    let (mut apexes, mut rising, mut last_y) = (Vec::new(), false, b.pos.y);
    for _ in 0..600 {
        let mut bodies = [b];
        let y = bodies[0].pos.y;
        let mut ms = Vec::new();
        if y - r < p.contact_margin {
            let point = bodies[0].pos.xyz() - Vec3::Y * r;
            ms.push(manifold(
                0,
                NONE,
                (0, 1),
                Vec3::Y,
                &[(point, r - y)],
                0.5,
                0.6,
            ));
        }
        solve(&p, &mut bodies, &mut ms, &prev);
        b = bodies[0];
        if rising && b.pos.y < last_y {
            apexes.push(last_y);
        }
        rising = b.pos.y > last_y;
        last_y = b.pos.y;
        prev = ms;
    }
    assert!(apexes.len() >= 2, "it should bounce: apexes {apexes:?}");
    assert!(
        apexes.windows(2).all(|w| w[1] < w[0]),
        "each bounce lower: {apexes:?}"
    );
    // e = 0.6 on the impact speed less last step's gravity (the resting-contact fix), after a
    // 1.5 m fall; the integrator (velocity first, then position) tops out v·dt/2 below v²/2g.
    let first = apexes[0] - r;
    let v_out = 0.6 * ((2.0 * G * 1.5f32).sqrt() - G * DT);
    let want = v_out * v_out / (2.0 * G) - 0.5 * v_out * DT;
    assert!(
        (first - want).abs() < 0.03,
        "first rebound {first} m, want {want}"
    );
    assert!(
        b.lin_vel.xyz().length() < 1e-3,
        "still moving: {:?}",
        b.lin_vel
    );
    assert!((b.pos.y - r).abs() < 0.01, "rests at {}", b.pos.y);
}

/// Steps a box on the ground: integrate (the world's own stage), contacts, solve; calls `each`
/// after every step with the box and its manifold.
fn run_box(
    p: &GpuRigidParams,
    b: &mut GpuBody,
    half: Vec3,
    mu: f32,
    e: f32,
    steps: usize,
    mut each: impl FnMut(usize, &GpuBody, &[GpuManifold]),
) {
    let mut prev: Vec<GpuManifold> = Vec::new();
    for step in 0..steps {
        let mut bodies = [*b];
        let mut ms = vec![box_on_ground(&bodies[0], half, mu, e)];
        solve(p, &mut bodies, &mut ms, &prev);
        *b = bodies[0];
        each(step, b, &ms);
        prev = ms;
    }
}

#[test]
fn a_box_resting_on_four_contacts_keeps_zero_velocity() {
    let half = Vec3::splat(0.5);
    // Cut-off 0: every closing speed would bounce. The box starts at rest, resting at the slop
    // depth (the overlap the solver leaves alone): gravity's velocity of each step is taken
    // out inside the substeps, and the step begins with none left to bounce.
    let mut p = params(1, 1);
    p.restitution_cutoff = 0.0;
    let mut b = cuboid(Vec3::new(0.0, 0.5 - p.position_slop, 0.0), 1.0, half);
    b.acc = Vec4::new(0.0, -G, 0.0, 0.0);
    let (mut worst_v, mut worst_w) = (0.0f32, 0.0f32);
    let mut counts = Vec::new();
    run_box(&p, &mut b, half, 0.6, 0.5, 240, |step, b, ms| {
        counts.push(ms[0].count);
        if step >= 1 {
            worst_v = worst_v.max(b.lin_vel.xyz().length());
            worst_w = worst_w.max(b.ang_vel.xyz().length());
        }
    });
    assert!(
        counts.iter().skip(1).all(|&c| c == 4),
        "contacts per step {counts:?}"
    );
    assert!(worst_v < 1e-3, "resting box moves at {worst_v} m/s");
    assert!(worst_w < 1e-3, "resting box spins at {worst_w} rad/s");
    let y = b.pos.y;
    assert!(
        y > 0.5 - 0.02 && y < 0.5 + 1e-3,
        "resting box sank or rose: centre at {y}"
    );
}

#[test]
fn a_sliding_box_decelerates_by_mu_g() {
    let half = Vec3::new(0.5, 0.25, 0.5);
    let mu = 0.5;
    let mut b = cuboid(Vec3::new(0.0, 0.25, 0.0), 2.0, half);
    b.acc = Vec4::new(0.0, -G, 0.0, 0.0);
    b.lin_vel = Vec4::new(3.0, 0.0, 0.0, 1.0);
    let p = params(1, 1);
    let steps = 30;
    let mut speeds = Vec::new();
    run_box(&p, &mut b, half, mu, 0.0, steps, |_, b, _| {
        speeds.push(b.lin_vel.x)
    });
    // After the first step (whose contacts appear once gravity has pushed the box in), each
    // step removes μ·g·dt.
    let decel = (speeds[5] - speeds[steps - 1]) / ((steps - 6) as f32 * DT);
    assert!(
        (decel - mu * G).abs() < 0.03 * mu * G,
        "deceleration {decel}, want μg = {}; speeds {speeds:?}",
        mu * G
    );
    assert!(b.lin_vel.z.abs() < 1e-4, "slid sideways: {:?}", b.lin_vel);
}

/// The contacts of the bottom face of box `a` on the top face of box `b` below it (both nearly
/// axis-aligned, shapes a + 1 and b + 1): normal +y from b to a, feature = corner index.
fn box_on_box(bodies: &[GpuBody], a: u32, b: u32, half: Vec3, mu: f32) -> GpuManifold {
    let top = bodies[b as usize].pos.y + half.y;
    let ba = &bodies[a as usize];
    let mut pts = Vec::new();
    let mut feats = Vec::new();
    for c in [0u32, 1, 4, 5] {
        let s = Vec3::new(
            if c & 1 == 0 { -1.0 } else { 1.0 },
            -1.0,
            if c & 4 == 0 { -1.0 } else { 1.0 },
        );
        let w = ba.pos.xyz() + quat_rotate(ba.orient, half * s);
        if w.y <= top {
            pts.push((w, top - w.y));
            feats.push(c);
        }
    }
    let mut m = manifold(a, b, (b + 1, a + 1), Vec3::Y, &pts, mu, 0.0);
    for (i, f) in feats.iter().enumerate() {
        m.features[i] = *f;
    }
    m
}

#[test]
fn a_stack_of_three_boxes_stays_put() {
    let half = Vec3::splat(0.5);
    let mut bodies: Vec<GpuBody> = (0..3)
        .map(|i| {
            let mut b = cuboid(Vec3::new(0.0, 0.5 + i as f32, 0.0), 1.0, half);
            b.acc = Vec4::new(0.0, -G, 0.0, 0.0);
            b
        })
        .collect();
    let p = params(3, 3);
    let mut prev: Vec<GpuManifold> = Vec::new();
    let mut settled: Vec<GpuBody> = Vec::new();
    for step in 0..300 {
        // Ground–box 0 is shape pair (0, 1); box i–box i+1 is (i + 1, i + 2): sorted.
        let mut ground = box_on_ground(&bodies[0], half, 0.6, 0.0);
        ground.body_a = 0;
        let mut ms = vec![ground];
        for i in 0..2 {
            ms.push(box_on_box(&bodies, i + 1, i, half, 0.6));
        }
        let report = solve(&p, &mut bodies, &mut ms, &prev);
        assert_eq!(report.uncoloured, 0);
        prev = ms;
        if step == 100 {
            settled = bodies.clone();
        }
    }
    // The drop settles in a few steps, with millimetres of sideways shift from the order the
    // corners are projected in; after that nothing creeps.
    for (i, b) in bodies.iter().enumerate() {
        let want_y = 0.5 + i as f32;
        assert!(
            b.lin_vel.xyz().length() < 1e-3,
            "box {i} moves: {:?}",
            b.lin_vel
        );
        assert!(
            b.ang_vel.xyz().length() < 1e-3,
            "box {i} spins: {:?}",
            b.ang_vel
        );
        assert!(b.pos.xz().length() < 1e-2, "box {i} shifted: {:?}", b.pos);
        let creep = (b.pos - settled[i].pos).xyz().length();
        assert!(creep < 1e-4, "box {i} crept {creep} m in 200 steps at rest");
        assert!(
            b.pos.y > want_y - 0.03 && b.pos.y < want_y + 1e-3,
            "box {i} at height {}, want about {want_y}",
            b.pos.y
        );
    }
}

#[test]
fn friction_never_leaves_the_cone() {
    let mut rng = Rng::new(11);
    for _ in 0..20 {
        let (mut bodies, mut ms) = random_scene(&mut rng, 30, 60);
        let p = params(30, 60);
        solve(&p, &mut bodies, &mut ms, &[]);
        for (k, m) in ms.iter().enumerate() {
            let mu = m.normal.w;
            for i in 0..m.count as usize {
                let imp = m.impulses[i];
                let planar = (imp.y * imp.y + imp.z * imp.z).sqrt();
                assert!(
                    imp.x >= 0.0,
                    "manifold {k} point {i}: normal impulse {}",
                    imp.x
                );
                assert!(
                    planar <= mu * imp.x * (1.0 + 1e-5) + 1e-7,
                    "manifold {k} point {i}: friction {planar} > μ {mu} × normal {}",
                    imp.x
                );
            }
        }
        assert!(bodies
            .iter()
            .all(|b| b.lin_vel.is_finite() && b.pos.is_finite()));
    }
}

/// Linear and angular momentum (about the origin) of `bodies` with the velocities of `vel`:
/// the poses and inertias are those of `bodies`, so a step's momentum can be taken with the
/// poses its impulses acted at.
fn momentum_with(bodies: &[GpuBody], vel: &[GpuBody]) -> (Vec3, Vec3) {
    let mut lin = Vec3::ZERO;
    let mut ang = Vec3::ZERO;
    for (b, v) in bodies.iter().zip(vel) {
        let m = 1.0 / b.pos.w;
        let p = v.lin_vel.xyz() * m;
        let inertia = Mat3::from_cols(
            b.inv_inertia_world[0].xyz(),
            b.inv_inertia_world[1].xyz(),
            b.inv_inertia_world[2].xyz(),
        )
        .inverse();
        lin += p;
        ang += b.pos.xyz().cross(p) + inertia * v.ang_vel.xyz();
    }
    (lin, ang)
}

#[test]
fn a_free_two_body_collision_conserves_momentum() {
    let mut rng = Rng::new(5);
    for trial in 0..20 {
        let q = |rng: &mut Rng| {
            Quat::from_axis_angle(
                rng.vec3(-1.0, 1.0).normalize_or(Vec3::X),
                rng.range(0.0, 3.0),
            )
        };
        let qa = q(&mut rng);
        let qb = q(&mut rng);
        let mut bodies = vec![
            dynamic(
                Vec3::new(0.0, 1.0, 0.0),
                rng.range(0.5, 3.0),
                rng.vec3(0.2, 1.5),
                qa,
            ),
            dynamic(
                Vec3::new(0.3, -0.8, 0.2),
                rng.range(0.5, 3.0),
                rng.vec3(0.2, 1.5),
                qb,
            ),
        ];
        let n = (bodies[0].pos.xyz() - bodies[1].pos.xyz()).normalize();
        bodies[0].lin_vel = (-n * 4.0 + rng.vec3(-1.0, 1.0)).extend(1.0);
        bodies[1].lin_vel = (n * 3.0 + rng.vec3(-1.0, 1.0)).extend(1.0);
        bodies[0].ang_vel = rng.vec3(-1.0, 1.0).extend(1.0);
        bodies[1].ang_vel = rng.vec3(-1.0, 1.0).extend(1.0);
        let mid = (bodies[0].pos.xyz() + bodies[1].pos.xyz()) * 0.5;
        let pts: Vec<(Vec3, f32)> = (0..3).map(|_| (mid + rng.vec3(-0.2, 0.2), 0.02)).collect();
        // Restitution 0 and no relax iterations: every impulse is applied before the bodies
        // move, while the two anchors of a point still coincide, so each impulse pair has no
        // lever and both momenta are conserved up to rounding. (The relax and restitution
        // passes act after positions moved, at anchors up to |v_rel|·dt apart: Box2D's soft
        // step shares that.)
        let mut ms = vec![manifold(0, 1, (0, 1), n, &pts, 0.7, 0.0)];
        let mut p = params(2, 1);
        p.position_iterations = 0;
        p.relax_iterations = 0;
        // The substep also integrates: its first half turns ω by the gyroscopic term and its
        // second half moves the poses (both checked by the torque-free and tennis-racket tests
        // in rigid_world). The impulses' exchange is measured between the velocities the first
        // half leaves (the same stage run on a copy) and the solved ones, with the poses and
        // inertias the impulses acted at, the step's start (one substep, no gravity).
        let start = bodies.clone();
        let mut integrated = bodies.clone();
        integrate::integrate_velocity(&p, &mut integrated);
        let (l0, a0) = momentum_with(&start, &integrated);
        solve(&p, &mut bodies, &mut ms, &[]);
        let (l1, a1) = momentum_with(&start, &bodies);
        assert!(
            ms[0].impulses[0].x > 0.0,
            "trial {trial}: no impulse, not a collision"
        );
        assert!(
            (l1 - l0).length() < 1e-4 * l0.length().max(1.0),
            "trial {trial}: linear momentum {l0} -> {l1}"
        );
        assert!(
            (a1 - a0).length() < 1e-4 * a0.length().max(1.0),
            "trial {trial}: angular momentum {a0} -> {a1}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Position projection.

#[test]
fn position_projection_respects_the_angular_limit() {
    // A unit cube (m = 1, I = 1/6) with one corner 0.3 below the ground: unlimited, the angular
    // share would be 3/4 of the move (angular inertia 3, linear 1); the limit caps it at
    // 0.2·|r|, the rest moves linearly.
    let half = Vec3::splat(0.5);
    let corner = Vec3::new(0.5, -0.5, 0.5);
    let mut bodies = vec![cuboid(Vec3::ZERO, 1.0, half)];
    let mut ms = vec![manifold(
        0,
        NONE,
        (0, 1),
        Vec3::Y,
        &[(corner, 0.3)],
        0.5,
        0.0,
    )];
    let mut p = params(1, 1);
    p.velocity_iterations = 0;
    p.position_iterations = 1;
    p.position_relax = 1.0;
    p.position_slop = 0.0;
    solve(&p, &mut bodies, &mut ms, &[]);
    let b = bodies[0];
    let limit = p.angular_limit * corner.length();
    let lin = b.pos.y;
    // The angular move is the linearised one, (rotation × r)·n; from identity the quaternion
    // update gives q ∝ (rotation/2, 1).
    let rotation = 2.0 * b.orient.xyz() / b.orient.w;
    let ang = rotation.cross(corner).y;
    assert!(
        (lin - (0.3 - limit)).abs() < 1e-5,
        "linear move {lin}, want {}",
        0.3 - limit
    );
    assert!(
        (ang - limit).abs() < 1e-5,
        "angular move {ang}, limit {limit}"
    );
    let o = b.orient;
    assert!(
        (o.length() - 1.0).abs() < 1e-6,
        "orientation not normalized"
    );
    let want_inertia = integrate::world_inverse_inertia(o, &b.inv_inertia);
    for (c, (got, want)) in b.inv_inertia_world.iter().zip(&want_inertia).enumerate() {
        assert!(
            (*got - *want).abs().max_element() < 1e-5,
            "inv_inertia_world column {c} not updated after the rotation: {got} vs {want}"
        );
    }
    // Without the limit the angular share is 3/4.
    let mut bodies = vec![cuboid(Vec3::ZERO, 1.0, half)];
    p.angular_limit = 100.0;
    solve(&p, &mut bodies, &mut ms, &[]);
    assert!(
        (bodies[0].pos.y - 0.075).abs() < 1e-5,
        "unlimited linear move {}",
        bodies[0].pos.y
    );
}

#[test]
fn position_projection_reduces_penetration() {
    let half = Vec3::splat(0.5);
    let q = Quat::from_rotation_z(0.3) * Quat::from_rotation_x(0.2);
    let mut b = cuboid(Vec3::new(0.0, 0.3, 0.0), 1.0, half);
    b.orient = from_quat(q);
    b.inv_inertia_world = integrate::world_inverse_inertia(b.orient, &b.inv_inertia);
    let mut ms = vec![box_on_ground(&b, half, 0.5, 0.0)];
    let deepest = |b: &GpuBody| {
        (0..8)
            .map(|c| {
                let s = Vec3::new(
                    if c & 1 == 0 { -1.0 } else { 1.0 },
                    if c & 2 == 0 { -1.0 } else { 1.0 },
                    if c & 4 == 0 { -1.0 } else { 1.0 },
                );
                -(b.pos.xyz() + quat_rotate(b.orient, half * s)).y
            })
            .fold(f32::MIN, f32::max)
    };
    let before = deepest(&b);
    let mut p = params(1, 1);
    p.velocity_iterations = 0;
    p.relax_iterations = 0;
    p.position_iterations = 4;
    let mut bodies = vec![b];
    solve(&p, &mut bodies, &mut ms, &[]);
    let after = deepest(&bodies[0]);
    assert!(before > 0.2, "setup: penetration {before}");
    assert!(after < 0.5 * before, "penetration {before} -> {after}");
}
