//! PID control (002-6): the windowed scalar controller's catalogue vectors, and the turn
//! controller simulated on a rigid body integrated here.

use crate::support::Rng;
use glam::{DMat3, DQuat, DVec3, Mat3, Quat, Vec3};
use wgphys::gameplay::{wrap_angle, PidGains, TurnController, WindowedPid};
use wgphys::Error;

/// One relative rounding of f32.
const F32_ULP: f32 = f32::EPSILON;

#[test]
fn windowed_pid_catalogue_vectors() {
    // K_p = 1: fewer than three samples give 0, the third gives K_p·e = 0.5.
    let mut p = WindowedPid::new([1.0, 0.0, 0.0], 0.01, 7, 1.0).unwrap();
    assert_eq!(p.add_sample(0.2).unwrap(), 0.0);
    assert_eq!(p.add_sample(0.3).unwrap(), 0.0);
    assert_eq!(p.add_sample(0.5).unwrap(), 0.5);
    // K_d = 1 on [0, 0, 0.01]: (0.01 − 0)/0.01 = 1, one subtraction and one division.
    let mut d = WindowedPid::new([0.0, 0.0, 1.0], 0.01, 7, 1.0).unwrap();
    d.add_sample(0.0).unwrap();
    d.add_sample(0.0).unwrap();
    assert!((d.add_sample(0.01).unwrap() - 1.0).abs() <= 2.0 * f64::EPSILON);
    // K_i = 1 on [1, 1, 1]: Simpson (1 + 4 + 1)·dt/3 = 0.02. The article's code divided by 3·dt
    // and gave 200 (erratum 7). A sum of three terms and two products: 4ε relative.
    let mut i = WindowedPid::new([0.0, 1.0, 0.0], 0.01, 7, 1.0).unwrap();
    for _ in 0..3 {
        i.add_sample(1.0).unwrap();
    }
    assert!(
        (i.output() - 0.02).abs() <= 4.0 * f64::EPSILON * 0.02,
        "{}",
        i.output()
    );
    // The plant gain scales the whole output.
    let mut k = WindowedPid::new([1.0, 0.0, 0.0], 0.01, 7, 2.5).unwrap();
    for e in [0.2, 0.3, 0.5] {
        k.add_sample(e).unwrap();
    }
    assert_eq!(k.output(), 1.25);
}

#[test]
fn windowed_integral_is_simpson() {
    let dt = 0.01;
    // Simpson's rule is exact for cubics: seven samples of t³ at t = k·dt integrate to
    // (6·dt)⁴/4. Seven products and sums of values up to 2e-4: 16ε relative.
    let mut pid = WindowedPid::new([0.0, 1.0, 0.0], dt, 7, 1.0).unwrap();
    for k in 0..7 {
        pid.add_sample((k as f64 * dt).powi(3)).unwrap();
    }
    let exact = (6.0 * dt).powi(4) / 4.0;
    assert!((pid.window_integral() - exact).abs() <= 16.0 * f64::EPSILON * exact);
    // An even count (4): Simpson on the first three plus the trapezoid on the last interval is
    // exact for straight lines: ∫₀^{3dt} t dt = (3dt)²/2.
    let mut even = WindowedPid::new([0.0, 1.0, 0.0], dt, 7, 1.0).unwrap();
    for k in 0..4 {
        even.add_sample(k as f64 * dt).unwrap();
    }
    let exact = (3.0 * dt).powi(2) / 2.0;
    assert!((even.window_integral() - exact).abs() <= 16.0 * f64::EPSILON * exact);
    // The window keeps the last 7 of 10 constant samples: 6 intervals of dt.
    let mut window = WindowedPid::new([0.0, 1.0, 0.0], dt, 7, 1.0).unwrap();
    for _ in 0..10 {
        window.add_sample(1.0).unwrap();
    }
    assert!((window.window_integral() - 6.0 * dt).abs() <= 16.0 * f64::EPSILON * 6.0 * dt);
}

#[test]
fn windowed_pid_bad_input() {
    assert!(WindowedPid::new([0.0; 3], 0.0, 7, 1.0).is_err());
    assert!(WindowedPid::new([f64::NAN, 0.0, 0.0], 0.01, 7, 1.0).is_err());
    assert!(matches!(
        WindowedPid::new([0.0; 3], 0.01, 2, 1.0),
        Err(Error::InvalidInput {
            what: "windowed_pid.max_history",
            ..
        })
    ));
    let mut p = WindowedPid::new([1.0, 0.0, 0.0], 0.01, 7, 1.0).unwrap();
    for e in [0.2, 0.3, 0.5] {
        p.add_sample(e).unwrap();
    }
    let before = p.clone();
    assert!(p.add_sample(f64::NAN).is_err());
    assert_eq!(p, before);
    // Finite gains and samples whose output overflows: refused, window unchanged.
    let mut huge = WindowedPid::new([1e308, 0.0, 0.0], 0.01, 7, 1.0).unwrap();
    huge.add_sample(0.0).unwrap();
    huge.add_sample(0.0).unwrap();
    let before = huge.clone();
    assert!(huge.add_sample(10.0).is_err());
    assert_eq!(huge, before);
}

#[test]
fn angles_wrap_into_half_turns() {
    use std::f32::consts::PI;
    // Each case is one multiply, one round and one fused subtract of values below 8: 8 ulps.
    for (a, w) in [
        (1.5 * PI, -0.5 * PI),
        (-1.5 * PI, 0.5 * PI),
        (0.5, 0.5),
        (7.0, 7.0 - 2.0 * PI),
    ] {
        assert!(
            (wrap_angle(a).unwrap() - w).abs() <= 8.0 * F32_ULP * 8.0,
            "{a} -> {w}"
        );
    }
    assert!(wrap_angle(f32::NAN).is_err());
}

#[test]
fn heading_error_is_the_shortest_turn() {
    use std::f32::consts::{FRAC_PI_2, PI};
    let e = TurnController::heading_error(Vec3::X, Vec3::Y * 3.0).unwrap();
    // atan2 and a scaling by angle/sin: a few ulps of π/2.
    assert!((e - Vec3::Z * FRAC_PI_2).length() <= 4.0 * F32_ULP * PI);
    assert_eq!(
        TurnController::heading_error(Vec3::X, Vec3::X).unwrap(),
        Vec3::ZERO
    );
    // Facing away: a half turn about some axis perpendicular to forward, never a zero torque.
    let back = TurnController::heading_error(Vec3::X, -Vec3::X).unwrap();
    assert!((back.length() - PI).abs() <= 4.0 * F32_ULP * PI && back.dot(Vec3::X).abs() <= 1e-6);
    assert!(matches!(
        TurnController::heading_error(Vec3::ZERO, Vec3::X),
        Err(Error::InvalidInput {
            what: "pid.forward",
            ..
        })
    ));
}

/// A rigid body turned by the controller plus a constant disturbance torque, integrated with
/// semi-implicit Euler on the angular velocity (Euler's equations, gyroscopic term included) and
/// the exact exponential map on the orientation. The body is integrated in f64: in f32 a
/// quaternion cannot turn by less than half an ulp a step, which would stall the body whenever
/// its rotation per step is below ~1e-7 rad and leave a dead band that is the test's, not the
/// controller's. The controller sees the state rounded to f32, as it would in the engine. Calls
/// `observe` after every step.
#[allow(clippy::too_many_arguments)]
fn simulate(
    controller: &mut TurnController,
    body_inertia: Mat3,
    orientation: Quat,
    target: Vec3,
    disturbance: Vec3,
    dt: f32,
    seconds: f32,
    mut observe: impl FnMut(Quat, Vec3, &TurnController),
) -> (Quat, Vec3) {
    let body_inertia = body_inertia.as_dmat3();
    let mut q = orientation.as_dquat();
    let mut omega = DVec3::ZERO;
    let h = f64::from(dt);
    for _ in 0..(seconds / dt).round() as usize {
        let rotation = DMat3::from_quat(q);
        let inertia = rotation * body_inertia * rotation.transpose();
        let forward = (q * DVec3::X).as_vec3();
        let torque = controller
            .torque(forward, target, omega.as_vec3(), inertia.as_mat3(), dt)
            .unwrap()
            .as_dvec3()
            + disturbance.as_dvec3();
        omega += inertia.inverse() * (torque - omega.cross(inertia * omega)) * h;
        q = (DQuat::from_scaled_axis(omega * h) * q).normalize();
        observe(q.as_quat(), omega.as_vec3(), controller);
    }
    (q.as_quat(), omega.as_vec3())
}

/// The signed angle of the body's forward axis about +y (a rotation by θ about y takes +x to
/// (cos θ, 0, −sin θ)).
fn yaw(q: Quat) -> f32 {
    let f = q * Vec3::X;
    (-f.z).atan2(f.x)
}

#[test]
fn overshoot_matches_the_damping_ratio() {
    // Turning about a principal axis (y, inertia 3) the heading error obeys ë + kd·ė + kp·e = 0
    // exactly, so a step from rest overshoots by M = exp(−πζ/√(1 − ζ²)), ζ = kd/(2√kp).
    let inertia = Mat3::from_diagonal(Vec3::new(2.0, 3.0, 5.0));
    let goal = 1.2_f32;
    let target = Quat::from_rotation_y(goal) * Vec3::X;
    for (frequency, zeta) in [(4.0_f32, 0.5_f32), (3.0, 0.3), (6.0, 0.7)] {
        let gains = PidGains::from_frequency(frequency, zeta).unwrap();
        let mut c = TurnController::new(gains, 0.0, None).unwrap();
        let mut peak = f32::MIN;
        let (q, omega) = simulate(
            &mut c,
            inertia,
            Quat::IDENTITY,
            target,
            Vec3::ZERO,
            1e-3,
            10.0,
            |q, _, _| {
                peak = peak.max(yaw(q));
            },
        );
        let zeta_from_gains = gains.kd / (2.0 * gains.kp.sqrt());
        let predicted = (-std::f32::consts::PI * zeta_from_gains
            / (1.0 - zeta_from_gains.powi(2)).sqrt())
        .exp();
        let overshoot = (peak - goal) / goal;
        // Semi-implicit Euler moves the poles: the step matrix [[1 − kp·dt², dt(1 − kd·dt)],
        // [−kp·dt, 1 − kd·dt]] has eigenvalues whose equivalent damping ratio exceeds ζ by
        // O(ω_n·dt), at most 0.0015 for these gains, which moves M by at most 1.3%. ±10% is
        // several times that and still tells ζ from ζ ± 0.05 (which changes M by 17% or more).
        assert!(
            (overshoot - predicted).abs() <= 0.1 * predicted,
            "ω {frequency}, ζ {zeta}: overshoot {overshoot}, predicted {predicted}"
        );
        // After 10 s what is left is the decaying envelope e^{−ζω_n·t}·θ₀/√(1 − ζ²) (1.5e-4 rad
        // for ζω_n = 0.9, far less for the others) plus rounding: the controller sees the
        // forward axis rounded to f32 (6e-8 per component, ~1e-7 rad of heading), so 1e-6.
        let envelope = (-zeta * frequency * 10.0).exp() * goal / (1.0 - zeta * zeta).sqrt();
        assert!(
            (yaw(q) - goal).abs() <= envelope + 1e-6,
            "{}",
            yaw(q) - goal
        );
        // ω decays with the same envelope, scaled by ω_n; rounding is ω_n times 1e-6.
        assert!(omega.length() <= frequency * (envelope + 1e-6));
    }
}

#[test]
fn settles_in_three_dimensions() {
    // A non-symmetric body from random orientations toward random headings: gyroscopic
    // coupling and a turn axis that moves as the body turns make this non-linear, but near the
    // target it is the linear loop again, whose envelope after 15 s, e^{−ζω_n·15} = e^{−36}, is
    // far below f32 resolution. What is left is rounding: the controller sees the forward axis
    // rounded to f32, ~6e-8 per component or ~1e-7 rad of heading, so 1e-6 rad.
    let inertia = Mat3::from_diagonal(Vec3::new(1.0, 2.0, 4.0));
    let gains = PidGains::from_frequency(3.0, 0.8).unwrap();
    let mut rng = Rng::new(0x5eed_0201);
    for _ in 0..20 {
        let axis = rng.dvec3(-1.0, 1.0).as_vec3().normalize();
        let start = Quat::from_axis_angle(axis, rng.range(-3.0, 3.0) as f32);
        let target = rng.dvec3(-1.0, 1.0).as_vec3();
        let mut c = TurnController::new(gains, 0.0, Some(50.0)).unwrap();
        let (q, omega) = simulate(
            &mut c,
            inertia,
            start,
            target,
            Vec3::ZERO,
            1e-3,
            15.0,
            |_, _, _| {},
        );
        let error = TurnController::heading_error(q * Vec3::X, target).unwrap();
        assert!(error.length() <= 1e-6, "{error:?}");
        // ω decays with the same envelope, then rounding: ω_n times the angle tolerance.
        assert!(omega.length() <= 3.0 * 1e-6, "{omega:?}");
    }
}

#[test]
fn integral_removes_bias_within_its_clamp() {
    let inertia = Mat3::from_diagonal(Vec3::new(2.0, 3.0, 5.0));
    let goal = 0.8_f32;
    let target = Quat::from_rotation_y(goal) * Vec3::X;
    // 1.5 N·m about y on inertia 3: 0.5 rad/s² the controller must cancel.
    let disturbance = Vec3::new(0.0, 1.5, 0.0);
    let pd = PidGains {
        kp: 16.0,
        ki: 0.0,
        kd: 8.0,
    };

    // PD alone settles where kp·e cancels it: e = −τ/(I·kp) = −1.5/48 (the article's steady
    // bias). Critically damped at ω_n = 4: after 20 s the transient (1 + 4t)e^{−4t} is 1e-33.
    // The heading the controller sees is rounded to f32 (~1e-7 rad): 1e-6.
    let mut c = TurnController::new(pd, 0.0, None).unwrap();
    let (q, _) = simulate(
        &mut c,
        inertia,
        Quat::IDENTITY,
        target,
        disturbance,
        1e-3,
        20.0,
        |_, _, _| {},
    );
    assert!(
        (yaw(q) - (goal + 1.5 / 48.0)).abs() <= 1e-6,
        "{}",
        yaw(q) - goal
    );

    // With ki = 20 (stable: Routh–Hurwitz needs kd·kp = 128 > ki) the integral cancels the
    // bias. The closed loop's poles are the roots of s³ + 8s² + 16s + 20: −5.85 and
    // −1.07 ± 1.48i, so after 30 s the transient is e^{−32}. What is left is the f32 integral's
    // dead band: once e·dt is below half an ulp of the integral (ulp(0.025) = 2⁻²⁹ in f32) the
    // sum stops changing, so the heading can stay off by up to 2⁻³⁰/dt = 9.3e-7 rad, plus the
    // 1e-7 rad of rounding in the heading itself: 2e-6 bounds both.
    let pid = PidGains { ki: 20.0, ..pd };
    let limit = 1.0;
    let mut c = TurnController::new(pid, limit, None).unwrap();
    let (q, _) = simulate(
        &mut c,
        inertia,
        Quat::IDENTITY,
        target,
        disturbance,
        1e-3,
        30.0,
        |_, _, c| {
            // Clamped to the limit, up to the f32 rounding of clamp_length_max.
            assert!(c.integral().length() <= limit * (1.0 + 4.0 * F32_ULP));
        },
    );
    let dead_band = 2.0 * 2f32.powi(-30) / 1e-3;
    assert!((yaw(q) - goal).abs() <= dead_band, "{}", yaw(q) - goal);
    // The integral holds what cancels the disturbance: ki·∫e = −τ/I, so ∫e = −0.5/20 about y,
    // off by what the residual heading error leaves to kp: kp/ki times the dead band.
    assert!((c.integral() - Vec3::new(0.0, -0.025, 0.0)).length() <= 16.0 / 20.0 * dead_band);

    // A clamp too small to cancel it: the integral saturates at −L·ŷ and the rest is left to
    // kp: kp·e − ki·L = −τ/I, e = (ki·L − τ/I)/kp = (0.2 − 0.5)/16.
    let small = 0.01;
    let mut c = TurnController::new(pid, small, None).unwrap();
    let (q, _) = simulate(
        &mut c,
        inertia,
        Quat::IDENTITY,
        target,
        disturbance,
        1e-3,
        30.0,
        |_, _, c| {
            assert!(c.integral().length() <= small * (1.0 + 4.0 * F32_ULP));
        },
    );
    // The integral is pinned at the clamp, so only the heading's f32 rounding is left: 1e-6.
    assert!(
        (yaw(q) - (goal + 0.3 / 16.0)).abs() <= 1e-6,
        "{}",
        yaw(q) - goal
    );
    assert!((c.integral() - Vec3::new(0.0, -small, 0.0)).length() <= 4.0 * F32_ULP * small);
}

#[test]
fn acceleration_clamp_and_bad_input() {
    let gains = PidGains {
        kp: 100.0,
        ki: 1.0,
        kd: 10.0,
    };
    let mut c = TurnController::new(gains, 1.0, Some(2.0)).unwrap();
    // A half turn asks for 100·π rad/s²; the clamp allows 2. With unit inertia the torque is the
    // acceleration; clamp_length_max rounds by a few ulps.
    let torque = c
        .torque(Vec3::X, -Vec3::X, Vec3::ZERO, Mat3::IDENTITY, 0.01)
        .unwrap();
    assert!(
        (torque.length() - 2.0).abs() <= 4.0 * F32_ULP * 2.0,
        "{torque:?}"
    );
    // Torque is I·α: doubling the inertia doubles it.
    let mut c2 = TurnController::new(gains, 1.0, Some(2.0)).unwrap();
    let torque2 = c2
        .torque(Vec3::X, -Vec3::X, Vec3::ZERO, Mat3::IDENTITY * 2.0, 0.01)
        .unwrap();
    assert!((torque2 - torque * 2.0).length() <= 8.0 * F32_ULP * 4.0);

    let before = c.clone();
    assert!(matches!(
        c.torque(Vec3::X, Vec3::Y, Vec3::ZERO, Mat3::IDENTITY, 0.0),
        Err(Error::InvalidTimeStep(_))
    ));
    assert!(matches!(
        c.torque(
            Vec3::X,
            Vec3::Y,
            Vec3::new(f32::NAN, 0.0, 0.0),
            Mat3::IDENTITY,
            0.01
        ),
        Err(Error::InvalidInput {
            what: "pid.angular_velocity",
            ..
        })
    ));
    assert!(matches!(
        c.torque(Vec3::X, Vec3::ZERO, Vec3::ZERO, Mat3::IDENTITY, 0.01),
        Err(Error::InvalidInput {
            what: "pid.target",
            ..
        })
    ));
    assert!(c
        .torque(
            Vec3::X,
            Vec3::Y,
            Vec3::ZERO,
            Mat3::from_diagonal(Vec3::splat(f32::NAN)),
            0.01
        )
        .is_err());
    assert_eq!(c, before, "a failed call must leave the integral unchanged");

    assert!(PidGains::from_frequency(0.0, 1.0).is_err());
    assert!(PidGains::from_frequency(1.0, -0.1).is_err());
    assert!(TurnController::new(
        PidGains {
            kp: -1.0,
            ki: 0.0,
            kd: 0.0
        },
        0.0,
        None
    )
    .is_err());
    assert!(TurnController::new(gains, f32::NAN, None).is_err());
    assert!(matches!(
        TurnController::new(gains, 1.0, Some(0.0)),
        Err(Error::InvalidInput {
            what: "pid.max_angular_acceleration",
            ..
        })
    ));
}
