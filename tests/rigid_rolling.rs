//! Round bodies roll and spinning bodies keep their invariants (issue 32), on both backends:
//! a ball rolling on level ground, balls and capsules rolling and sliding down an incline,
//! rolling resistance, and free boxes spun about each principal axis and fast. Every check is
//! a closed form; each tolerance says beside it where it comes from.
//!
//! The scenes run at the world's defaults (60 Hz, 4 substeps, soft contacts, the default
//! slop), with damping off (1.0 kept per second) so that the closed forms need no damping term.

mod common;

use common::rigid::*;
use glam::{DVec3, Quat, Vec3, Vec4Swizzles};
use wgphys::rigid::types::GpuBody;
use wgphys::rigid::{BodyHandle, Collider, RigidBody, RigidConfig, RigidWorld};
use wgphys::Backend;

/// Both backends (the process's shared GPU context for the GPU).
fn backends() -> [(&'static str, Backend); 2] {
    [
        ("cpu", Backend::Cpu),
        ("gpu", Backend::Gpu(common::shared_gpu())),
    ]
}

/// A world at the defaults with a static half-space through the origin whose outward normal is
/// `normal`, of friction `mu`.
fn world_on(backend: Backend, normal: Vec3, mu: f32) -> RigidWorld {
    let mut w = RigidWorld::new(backend, config(4)).expect("world");
    w.add_body(
        RigidBody::fixed(),
        &[Collider::half_space(normal, 0.0).material(mu, 0.0)],
    )
    .expect("ground");
    w
}

/// A ball of radius `r` resting on the surface of normal `n` at `along` from the origin,
/// moving at `v` and spinning at `spin`, undamped and never asleep.
fn ball(r: f32, n: Vec3, along: Vec3, v: Vec3, spin: Vec3) -> RigidBody {
    RigidBody::dynamic()
        .position(along + r * n)
        .velocity(v)
        .angular_velocity(spin)
        .mass(1.0)
        .damping(1.0, 1.0)
        .can_sleep(false)
}

/// The soft contact's sag under a body's own weight on a static surface: g / ω² for the
/// contact's stiffness ω = 2π·f, with f twice `contact_hertz` capped at a quarter of the
/// substep rate (`RigidConfig::contact_hertz`).
fn static_sag(cfg: &RigidConfig, g_normal: f32) -> f32 {
    let h = DT / cfg.substeps as f32;
    let hertz = (2.0 * cfg.contact_hertz).min(0.25 / h);
    let omega = 2.0 * std::f32::consts::PI * hertz;
    g_normal / (omega * omega)
}

/// A 0.25 m ball set rolling at 3 m/s (v = ω·r) on level ground, friction 0.6: rolling needs no
/// friction and no normal torque, so it keeps its speed (issue 32's target: within 1% over 2 s),
/// and its centre stays where the soft contact holds a resting ball: the position slop deep,
/// plus the contact's sag under its weight.
#[test]
fn a_ball_rolling_on_level_ground_keeps_its_speed_and_its_height() {
    let (r, v0) = (0.25f32, 3.0f32);
    for (name, backend) in backends() {
        let mut w = world_on(backend, Vec3::Y, 0.6);
        let cfg = w.config().clone();
        let h = w
            .add_body(
                ball(r, Vec3::Y, Vec3::ZERO, Vec3::X * v0, Vec3::Z * (-v0 / r)),
                &[Collider::sphere(r).material(0.6, 0.0)],
            )
            .expect("ball");
        // The centre settles onto the contact from above: the slop, then the sag. Half the
        // sag again covers the substepped soft contact's approach to its static deflection
        // (over-damped, ζ = 10: it never overshoots), and 1 µm the f32 rounding of a position
        // of a few metres.
        let deepest = cfg.position_slop + 1.5 * static_sag(&cfg, G) + 1e-6;
        let (mut lo, mut hi, mut vy) = (f32::MAX, f32::MIN, 0.0f32);
        let mut last = GpuBody::default();
        for step in 0..120 {
            w.step(DT).expect("step");
            last = w.body_raw(h).expect("body");
            // The first steps lower the ball, placed touching, onto its resting depth.
            if step >= 6 {
                lo = lo.min(last.pos.y - r);
                hi = hi.max(last.pos.y - r);
                vy = vy.max(last.lin_vel.y.abs());
            }
        }
        let speed = last.lin_vel.x;
        let slip = speed + last.ang_vel.z * contact_radius(r, last.pos.y);
        println!(
            "{name}: after 2 s v = {speed:.5} m/s ({:.3}% kept), slip {slip:.2e} m/s, centre \
             {:.3}..{:.3} mm from r, |v_y| <= {vy:.2e}",
            100.0 * speed / v0,
            lo * 1e3,
            hi * 1e3
        );
        assert!(
            (speed - v0).abs() <= 0.01 * v0,
            "{name}: the ball kept {speed} of {v0} m/s after 2 s (issue 32: within 1%)"
        );
        // Rolling without slipping: v = −ω_z·r_c at the contact, to the solver's residual (a
        // rigid friction row leaves at most a rounding of the speed, 1e-5 relative).
        assert!(slip.abs() <= 1e-4 * v0, "{name}: slip {slip} m/s");
        assert!(
            lo >= -deepest && hi <= 0.0,
            "{name}: the centre went {lo}..{hi} m from r; a rolling ball rests between \
             {deepest} m deep and the surface"
        );
        // No hop and no sinking: the vertical speed stays below what one step's fall would give
        // (g·dt); a rolling ball whose arm followed the material would be pulled down by the
        // apparent gap at about ω²·r·dt.
        assert!(vy <= 0.1 * G * DT, "{name}: vertical speed {vy} m/s");
    }
}

/// The distance from a ball's centre to its contact point with a surface `height` below the
/// centre: the narrow phase puts the point halfway between the two surfaces, so the ball rolls
/// about a point half its penetration r − height below the surface.
fn contact_radius(r: f32, height: f32) -> f32 {
    0.5 * (r + height)
}

/// The downhill direction of a slope of angle `theta` whose surface normal is
/// (sin θ, cos θ, 0): it descends towards +x.
fn slope(theta: f32) -> (Vec3, Vec3) {
    let n = Vec3::new(theta.sin(), theta.cos(), 0.0);
    let down = Vec3::new(theta.cos(), -theta.sin(), 0.0);
    (n, down)
}

/// Releases `body` with `collider` on a slope of `theta` and friction `mu`, and returns the
/// (speed along the slope, the contact point's slip speed along the slope, angular speed about
/// the slope's axis) at steps 12 and 60 (t = 0.2 s and 1 s).
fn slope_run(
    backend: Backend,
    theta: f32,
    mu: f32,
    body: RigidBody,
    collider: Collider,
    r: f32,
) -> [(f32, f32, f32); 2] {
    let (n, down) = slope(theta);
    let mut w = world_on(backend, n, mu);
    let h = w
        .add_body(body, &[collider.material(mu, 0.0)])
        .expect("body");
    // Rolling downhill turns the body about n × down (v = ω × r·n).
    let axis = n.cross(down);
    let mut out = [(0.0, 0.0, 0.0); 2];
    for step in 1..=60 {
        w.step(DT).expect("step");
        if step == 12 || step == 60 {
            let b = w.body_raw(h).expect("body");
            let v = b.lin_vel.xyz().dot(down);
            // The contact point's velocity: v + ω × (−r_c·n), along the slope.
            let r_c = contact_radius(r, b.pos.xyz().dot(n));
            let contact = b.lin_vel.xyz() + b.ang_vel.xyz().cross(-r_c * n);
            let spin = b.ang_vel.xyz().dot(axis);
            out[usize::from(step == 60)] = (v, contact.dot(down), spin);
        }
    }
    out
}

/// Acceleration from two samples 48 steps apart.
fn accel(s: [(f32, f32, f32); 2]) -> f32 {
    (s[1].0 - s[0].0) / (48.0 * DT)
}

/// A solid ball and a capsule on its side, released on a 20° slope with friction 0.6 (above
/// the 2/7·tan θ = 0.10 rolling needs): they roll without slipping and accelerate at
/// g·sin θ / (1 + I/(m·r²)), with I about the rolling axis: 2/5·m·r² for the ball, and for the
/// capsule its cylinder's m_c·r²/2 plus its two hemispheres' 2/5·m_h·r² (masses by volume).
#[test]
fn balls_and_capsules_roll_down_an_incline_at_the_closed_form_rate() {
    let theta = 20f32.to_radians();
    let (n, _) = slope(theta);
    let (r, half) = (0.2f32, 0.3f32);
    // Capsule's rolling inertia over m·r², from its volumes (π cancels).
    let (v_cyl, v_caps) = (r * r * 2.0 * half, 4.0 / 3.0 * r * r * r);
    let capsule_ratio = (v_cyl * 0.5 + v_caps * 0.4) / (v_cyl + v_caps);
    let cases = [
        ("ball", Collider::sphere(r), Quat::IDENTITY, 0.4),
        (
            "capsule",
            Collider::capsule_y(half, r),
            // The capsule's axis (local y) along z, across the slope.
            Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
            capsule_ratio,
        ),
    ];
    for (name, backend) in backends() {
        for (shape, collider, rot, ratio) in cases.clone() {
            let body = ball(r, n, Vec3::ZERO, Vec3::ZERO, Vec3::ZERO).rotation(rot);
            let s = slope_run(backend.clone(), theta, 0.6, body, collider, r);
            let want = G * theta.sin() / (1.0 + ratio);
            let got = accel(s);
            println!(
                "{name} {shape}: a = {got:.4} m/s², closed form {want:.4}; slip {:.2e} m/s at \
                 v = {:.3}",
                s[1].1, s[1].0
            );
            // Issue 32's bound, 2%: the soft contact's settling in the first steps is over by
            // the first sample, and the rolling itself adds no error of that order.
            assert!(
                (got - want).abs() <= 0.02 * want,
                "{name} {shape}: rolls down at {got} m/s², closed form {want}"
            );
            // No slip: the contact point moves at a rounding of the body's speed.
            assert!(
                s[1].1.abs() <= 1e-3 * s[1].0.abs(),
                "{name} {shape}: the contact slips at {} m/s (v = {})",
                s[1].1,
                s[1].0
            );
        }
    }
}

/// The same ball with friction 0.05, below the 2/7·tan θ = 0.104 that rolling needs, slides:
/// Coulomb friction μ·m·g·cos θ slows the centre to a = g·(sin θ − μ·cos θ) and spins the ball
/// up at α = μ·m·g·cos θ·r / I = 5/2·μ·g·cos θ / r.
#[test]
fn a_ball_slides_and_spins_up_when_friction_is_too_low_to_roll() {
    let theta = 20f32.to_radians();
    let (n, _) = slope(theta);
    let (r, mu) = (0.2f32, 0.05f32);
    assert!(mu < 2.0 / 7.0 * theta.tan());
    for (name, backend) in backends() {
        let body = ball(r, n, Vec3::ZERO, Vec3::ZERO, Vec3::ZERO);
        let s = slope_run(backend, theta, mu, body, Collider::sphere(r), r);
        let want = G * (theta.sin() - mu * theta.cos());
        let got = accel(s);
        let alpha = (s[1].2 - s[0].2) / (48.0 * DT);
        let want_alpha = 2.5 * mu * G * theta.cos() / r;
        println!("{name}: a = {got:.4} (want {want:.4}), α = {alpha:.4} (want {want_alpha:.4})");
        // 2%, as for rolling (issue 32).
        assert!(
            (got - want).abs() <= 0.02 * want,
            "{name}: slides at {got} m/s², Coulomb gives {want}"
        );
        assert!(
            (alpha.abs() - want_alpha).abs() <= 0.02 * want_alpha,
            "{name}: spins up at {alpha} rad/s², Coulomb gives {want_alpha}"
        );
    }
}

/// Rolling resistance: a solid ball rolled at v on level ground against a resisting torque of
/// c·r·N slows at a = g·c / (1 + I/(m·r²)) = 5/7·g·c (the torque brakes the spin; friction at
/// the contact keeps the roll and passes the braking to the centre), so it stops after
/// d = v² / (2·a).
#[test]
fn rolling_resistance_stops_a_ball_after_the_model_distance() {
    let (r, v0, c) = (0.25f32, 3.0f32, 0.05f32);
    let want = v0 * v0 / (2.0 * 5.0 / 7.0 * G * c);
    let t_stop = v0 / (5.0 / 7.0 * G * c);
    for (name, backend) in backends() {
        let mut w = world_on(backend, Vec3::Y, 0.6);
        let h = w
            .add_body(
                ball(r, Vec3::Y, Vec3::ZERO, Vec3::X * v0, Vec3::Z * (-v0 / r)),
                &[Collider::sphere(r).material(0.6, 0.0).rolling_resistance(c)],
            )
            .expect("ball");
        // A second past the stop: the resistance holds a stopped ball still.
        let steps = ((t_stop + 1.0) / DT) as usize;
        run(&mut w, steps, DT);
        let b = w.body_raw(h).expect("body");
        let d = b.pos.x;
        println!(
            "{name}: stopped after {d:.4} m (model {want:.4} m), v = {}",
            b.lin_vel.x
        );
        // Issue 32's bound, 3%: the model is exact for the continuous motion; the first step's
        // settling onto the slop costs 0.1% of the speed, and stepping the stop itself at most
        // half a step's travel at the end speed (0).
        assert!(
            (d - want).abs() <= 0.03 * want,
            "{name}: the ball stopped after {d} m; the model gives {want} m"
        );
        assert!(
            b.lin_vel.x.abs() < 1e-3,
            "{name}: still moving at {}",
            b.lin_vel.x
        );
    }
}

/// Rolling resistance is off by default: the same roll without it keeps going.
#[test]
fn a_ball_without_rolling_resistance_does_not_stop() {
    let (r, v0) = (0.25f32, 3.0f32);
    let mut w = world_on(Backend::Cpu, Vec3::Y, 0.6);
    let h = w
        .add_body(
            ball(r, Vec3::Y, Vec3::ZERO, Vec3::X * v0, Vec3::Z * (-v0 / r)),
            &[Collider::sphere(r).material(0.6, 0.0)],
        )
        .expect("ball");
    run(&mut w, 600, DT);
    let v = w.body_raw(h).expect("body").lin_vel.x;
    assert!((v - v0).abs() <= 0.01 * v0, "v = {v} after 10 s");
}

// ---------------------------------------------------------------------------------------------
// Spinning bodies

/// A free box with three different principal moments, spun at `wb` (body frame), stepped for
/// `seconds` at `substeps`: (|L|, energy, L) at the start and the largest relative changes of
/// |L| and energy and of the L vector over the run.
fn spin_run(backend: Backend, wb: Vec3, seconds: f32, substeps: u32) -> (f64, f64, f64) {
    let cfg = RigidConfig {
        gravity: Vec3::ZERO,
        substeps,
        ..config(2)
    };
    let mut w = RigidWorld::new(backend, cfg).expect("world");
    let q0 = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
    let h: BodyHandle = w
        .add_body(
            RigidBody::dynamic()
                .rotation(q0)
                .angular_velocity(q0 * wb)
                .mass(2.0)
                .damping(1.0, 1.0)
                .can_sleep(false),
            &[Collider::cuboid(Vec3::new(0.5, 0.3, 0.1))],
        )
        .expect("box");
    let energy = |b: &GpuBody| spin_momentum(b).dot(b.ang_vel.xyz().as_dvec3());
    let start = w.body_raw(h).expect("body");
    let (l0, e0) = (spin_momentum(&start), energy(&start));
    let (mut dl, mut de, mut dv) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..(seconds / DT).round() as usize {
        w.step(DT).expect("step");
        let b = w.body_raw(h).expect("body");
        let l: DVec3 = spin_momentum(&b);
        dl = dl.max((l.length() / l0.length() - 1.0).abs());
        de = de.max((energy(&b) / e0 - 1.0).abs());
        dv = dv.max((l - l0).length() / l0.length());
    }
    (dl, de, dv)
}

/// A free asymmetric box spun at 10 rad/s near each principal axis (1 mrad/s off the other
/// two) for 5 s at the defaults: the implicit midpoint rule keeps |L| and the energy (its two
/// quadratic invariants) to the Newton solve's residual and the f32 rounding of each substep,
/// and the world-frame L vector to the second-order error of the orientation update; issue 32
/// asks 1% for |L| and the energy, 2% for the vector, through the intermediate axis's flips.
#[test]
fn a_free_box_spun_near_each_principal_axis_keeps_its_momentum_and_energy() {
    for (name, backend) in backends() {
        for (axis, wb) in [
            ("major", Vec3::new(0.001, 0.001, 10.0)),
            ("intermediate", Vec3::new(0.001, 10.0, 0.001)),
            ("minor", Vec3::new(10.0, 0.001, 0.001)),
        ] {
            let (dl, de, dv) = spin_run(backend.clone(), wb, 5.0, 4);
            println!("{name} {axis}: |L| {dl:.2e}, energy {de:.2e}, L vector {dv:.2e}");
            assert!(dl <= 0.01, "{name} {axis}: |L| changed by {dl:.3e}");
            assert!(de <= 0.01, "{name} {axis}: the energy changed by {de:.3e}");
            assert!(
                dv <= 0.02,
                "{name} {axis}: the L vector moved by {dv:.3e} of |L|"
            );
        }
    }
}

/// The same box spun so fast that a substep turns it half a radian (h·|ω| = 0.5, 120 rad/s at
/// 60 Hz and 4 substeps), tumbling about no principal axis: the midpoint rule stays stable and
/// keeps |L| and the energy within 1% for 2 s (480 substeps); three Newton steps leave a
/// residual of about (h·|ω|)⁸ = 4e-3 of a substep's change, which the rule's symmetry keeps
/// from accumulating.
#[test]
fn a_box_spun_half_a_radian_a_substep_stays_stable() {
    for (name, backend) in backends() {
        let wb = Vec3::new(70.0, 80.0, 60.0);
        assert!((wb.length() * DT / 4.0 - 0.5).abs() < 0.01);
        let (dl, de, _) = spin_run(backend, wb, 2.0, 4);
        println!("{name}: |L| {dl:.2e}, energy {de:.2e}");
        assert!(
            dl <= 0.01 && de <= 0.01,
            "{name}: |L| {dl:.3e}, energy {de:.3e}"
        );
    }
}
