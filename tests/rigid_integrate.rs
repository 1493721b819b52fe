//! The rigid integrator (stage `integrate_velocity` / `integrate_position`) over whole worlds:
//! torque-free spin about principal axes, the impulse a force delivers for any substep count,
//! and the tennis-racket flip with the implicit gyroscopic term, each against a closed form or
//! a reference solution with the tolerance argued beside it.

mod common;

use common::gpu;
use common::rigid::stages::{assert_unchanged, random_body, sizes};
use common::rigid::*;
use common::Rng;
use glam::{Quat, Vec3, Vec4, Vec4Swizzles};
use wgphys::rigid::gpu::{GpuRigid, Pass};
use wgphys::rigid::types::*;
use wgphys::rigid::{BodyHandle, Collider, RigidBody, RigidConfig, RigidWorld};
use wgphys::Backend;

// ---------------------------------------------------------------------------------------------
// 1. Torque-free spin, forces and the gyroscopic term

/// A torque-free box spinning about a stable principal axis (the major and the minor axis of an
/// asymmetric box) keeps ω and L = I_world·ω to rounding: the gyroscopic term ω × I·ω is zero
/// there, so the implicit step changes nothing but rounding. Spin off a principal axis is the
/// tennis-racket test below.
#[test]
fn torque_free_spin_keeps_angular_momentum() {
    let mut w = RigidWorld::new(Backend::Cpu, config(4)).expect("world");
    let half = Vec3::new(0.1, 0.2, 0.4);
    let q0 = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
    let spin = 5.0;
    // Body x is the major axis (largest moment, m(hy² + hz²)/3), body z the minor one.
    let axes = [("major axis", Vec3::X), ("minor axis", Vec3::Z)];
    let handles: Vec<BodyHandle> = axes
        .iter()
        .enumerate()
        .map(|(k, (_, axis))| {
            w.add_body(
                RigidBody::dynamic()
                    .position(Vec3::new(3.0 * k as f32, 0.0, 0.0))
                    .rotation(q0)
                    .angular_velocity(q0 * *axis * spin)
                    .mass(2.0)
                    .damping(1.0, 1.0)
                    .acceleration(Vec3::ZERO)
                    .can_sleep(false),
                &[Collider::cuboid(half)],
            )
            .expect("box")
        })
        .collect();
    let before = w.read_bodies().expect("bodies");
    let l0: Vec<glam::DVec3> = handles
        .iter()
        .map(|h| spin_momentum(&before[h.index() as usize]))
        .collect();
    // 600 steps = 10 s ≈ 8 turns.
    let steps = 600;
    let mut worst = [0.0f64; 2];
    let mut worst_len = [0.0f64; 2];
    let mut worst_along = [0.0f64; 2];
    for _ in 0..steps {
        w.step(DT).expect("step");
        let b = w.read_bodies().expect("bodies");
        for (k, h) in handles.iter().enumerate() {
            let body = b[h.index() as usize];
            let l = spin_momentum(&body);
            let wd = body.ang_vel.xyz().as_dvec3().normalize();
            let scale = l0[k].length();
            worst[k] = worst[k].max((l - l0[k]).length() / scale);
            worst_len[k] = worst_len[k].max((l.length() - scale).abs() / scale);
            worst_along[k] = worst_along[k].max((l.dot(wd) - l0[k].dot(wd)).abs() / scale);
        }
    }
    // Rounding: each substep turns ω into the body frame and back (two quaternion rotations,
    // about 2ε relative each), adds the gyroscopic correction (zero here up to about ε) and
    // renormalizes the quaternion (ε): at most 6ε per substep, ε = 2⁻²⁴, added up linearly over
    // N = 600 steps × substeps.
    let n = (steps as u32 * w.config().substeps) as f64;
    let bound = 6.0 * n * f64::from(f32::EPSILON) / 2.0;
    for (k, (name, axis)) in axes.iter().enumerate() {
        let w0 = (q0 * *axis).as_dvec3().normalize();
        let perp = (l0[k] - w0 * l0[k].dot(w0)).length() / l0[k].length();
        println!(
            "{name}: |L − L₀|/|L₀| up to {:.3e}, |L| drift {:.3e}, L·ω̂ drift {:.3e} \
             (|L₀⊥ω|/|L₀| = {perp:.3e}; bound {bound:.3e})",
            worst[k], worst_len[k], worst_along[k]
        );
        assert!(perp < 1e-6, "{name} is a principal axis");
        assert!(
            worst[k] < bound && worst_len[k] < bound && worst_along[k] < bound,
            "{name}: L drifted ({} / |L| {} / L·ω̂ {}) with no torque and no damping, more than \
             rounding ({bound})",
            worst[k],
            worst_len[k],
            worst_along[k]
        );
    }
}

/// A force added before each step acts for the whole step, in every substep: a constant force
/// F on a free body for 1 s gives Δv = F·t/m for 1, 4 and 8 substeps, on the CPU and the GPU.
/// The position follows the semi-implicit integrator's sum over the N = 60·substeps substeps of
/// h = t/N: x = Σₖ k·(F/m)·h² = ½·(F/m)·t²·(1 + 1/N).
#[test]
fn a_constant_force_gives_f_t_over_m_for_any_substep_count() {
    let force = Vec3::new(3.0, -2.0, 1.0);
    let mass = 2.0;
    let steps = 60;
    let t = steps as f32 * DT;
    let want_v = force * t / mass;
    for backend in ["cpu", "gpu"] {
        for substeps in [1u32, 4, 8] {
            let cfg = RigidConfig {
                substeps,
                ..config(4)
            };
            let b = if backend == "gpu" {
                Backend::Gpu(gpu())
            } else {
                Backend::Cpu
            };
            let mut w = RigidWorld::new(b, cfg).expect("world");
            let h = w
                .add_body(
                    RigidBody::dynamic()
                        .mass(mass)
                        .damping(1.0, 1.0)
                        .acceleration(Vec3::ZERO)
                        .can_sleep(false),
                    &[Collider::sphere(0.5)],
                )
                .expect("body");
            for _ in 0..steps {
                w.add_force(h, force).expect("force");
                w.step(DT).expect("step");
            }
            let body = w.body_raw(h).expect("body");
            let v = body.lin_vel.xyz();
            let n = (steps as u32 * substeps) as f32;
            let want_x = 0.5 * force / mass * t * t * (1.0 + 1.0 / n);
            // Rounding: v is a sum of N equal increments (F/m)·h, each add rounding by at most
            // ε·|v| (ε = 2⁻²⁴), and h = dt/substeps carries one more ε; x sums N such v·h. So
            // |Δ| ≤ 2·N·ε·|value| for both.
            let eps = f32::EPSILON / 2.0;
            let tol_v = 2.0 * n * eps * want_v.length();
            let tol_x = 2.0 * n * eps * want_x.length();
            assert!(
                (v - want_v).length() <= tol_v,
                "{backend}, {substeps} substeps: v = {v}, want F·t/m = {want_v} (±{tol_v})"
            );
            assert!(
                (body.pos.xyz() - want_x).length() <= tol_x,
                "{backend}, {substeps} substeps: x = {}, want ½(F/m)t²(1 + 1/N) = {want_x} (±{tol_x})",
                body.pos.xyz()
            );
        }
    }
}

/// ω in the body's principal frame (the box axes), in f64.
fn body_omega(b: &GpuBody) -> glam::DVec3 {
    quat(b).as_dquat().normalize().inverse() * b.ang_vel.xyz().as_dvec3()
}

/// Times at which ω_y changes sign, linearly interpolated between samples `dt` apart.
fn sign_changes(samples: &[f64], dt: f64) -> Vec<f64> {
    samples
        .windows(2)
        .enumerate()
        .filter(|(_, w)| (w[0] < 0.0) != (w[1] < 0.0))
        .map(|(k, w)| (k as f64 + w[0] / (w[0] - w[1])) * dt)
        .collect()
}

/// Euler's equations of a free body in its principal frame, I·ω̇ = (I·ω) × ω, integrated by
/// classical RK4 in f64 with step `h` for `t` seconds: the samples of ω_y.
fn euler_reference(inertia: glam::DVec3, w0: glam::DVec3, h: f64, t: f64) -> Vec<f64> {
    let rate = |w: glam::DVec3| (inertia * w).cross(w) / inertia;
    let mut w = w0;
    let mut out = vec![w.y];
    for _ in 0..(t / h).round() as usize {
        let k1 = rate(w);
        let k2 = rate(w + 0.5 * h * k1);
        let k3 = rate(w + 0.5 * h * k2);
        let k4 = rate(w + h * k3);
        w += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
        out.push(w.y);
    }
    out
}

/// The tennis-racket (Dzhanibekov) flip: a free box spun 1% off its intermediate axis tumbles,
/// ω_y changing sign every half period of the motion Euler's equations give, while its angular
/// momentum vector stays put in the world. The book's integrator (ω constant without torque)
/// never flips; the implicit gyroscopic term does.
///
/// Bounds:
/// - Period. Backward Euler is a first-order method: over one period it shifts the phase by at
///   most about h·|ω| of the period (h = dt / substeps, the substep), and its slow loss of
///   energy moves the orbit to one of a slightly different period. So each measured half
///   period lies between the reference half periods of the start's and the end's state
///   (RK4 from the body-frame ω at t = 0 and at the end), widened by h·|ω| of it and by one
///   step for the interpolated crossing times.
/// - Angular momentum. Each substep errs by second-order terms in h·|ω| (the rotation update
///   and the one Newton step), at most h²·|ω|²·|L| each; over N substeps the world-frame L
///   moves at most N·h²·|ω|²·|L|.
#[test]
fn a_box_spun_near_its_intermediate_axis_flips_with_the_euler_period() {
    let half = Vec3::new(0.1, 0.2, 0.4);
    let mass = 2.0f32;
    let q0 = Quat::from_euler(glam::EulerRot::XYZ, 0.4, 0.9, -0.3);
    // 10% off the intermediate axis, towards the major one (an orbit well inside the
    // separatrix, whose period is finite), at 2 rad/s: with the principal moments below, the
    // perturbation grows at 0.6·|ω| and a half period is about 6 s. 16 substeps (h = 1/960 s)
    // keep the truncation bound on L at about a tenth of |L|.
    let wb0 = Vec3::new(0.2, 2.0, 0.0);
    let cfg = RigidConfig {
        substeps: 16,
        ..config(2)
    };
    let mut w = RigidWorld::new(Backend::Cpu, cfg).expect("world");
    let h = w
        .add_body(
            RigidBody::dynamic()
                .rotation(q0)
                .angular_velocity(q0 * wb0)
                .mass(mass)
                .damping(1.0, 1.0)
                .acceleration(Vec3::ZERO)
                .can_sleep(false),
            &[Collider::cuboid(half)],
        )
        .expect("box");
    let start = w.body_raw(h).expect("body");
    let l0 = spin_momentum(&start);
    let steps = 1500;
    let dt = f64::from(DT);
    let mut wy = vec![body_omega(&start).y];
    let mut stray = 0.0f64;
    for _ in 0..steps {
        w.step(DT).expect("step");
        let b = w.body_raw(h).expect("body");
        wy.push(body_omega(&b).y);
        stray = stray.max((spin_momentum(&b) - l0).length());
    }
    let end = w.body_raw(h).expect("body");
    let m = f64::from(mass);
    let s = half.as_dvec3() * 2.0;
    let inertia = glam::DVec3::new(
        s.y * s.y + s.z * s.z,
        s.x * s.x + s.z * s.z,
        s.x * s.x + s.y * s.y,
    ) * (m / 12.0);
    let t_run = steps as f64 * dt;
    let half_periods = |samples: &[f64], step: f64| -> Vec<f64> {
        sign_changes(samples, step)
            .windows(2)
            .map(|p| p[1] - p[0])
            .collect()
    };
    let rk = 1e-4;
    let t_start = half_periods(
        &euler_reference(inertia, wb0.as_dvec3(), rk, 2.0 * t_run),
        rk,
    );
    let t_end = half_periods(
        &euler_reference(inertia, body_omega(&end), rk, 2.0 * t_run),
        rk,
    );
    let measured = half_periods(&wy, dt);
    println!("half periods: measured {measured:?}, Euler from the start {t_start:?}, from the end {t_end:?}; |L − L₀| ≤ {stray:.3e} of |L₀| = {:.3e}", l0.length());
    assert!(
        measured.len() >= 2 && !t_start.is_empty() && !t_end.is_empty(),
        "the box should flip at least three times in {t_run} s: half periods {measured:?}"
    );
    let sub = dt / f64::from(w.config().substeps);
    let spin = wb0.as_dvec3().length();
    let (lo, hi) = (
        t_start[0].min(t_end[0]) * (1.0 - sub * spin) - dt,
        t_start[0].max(t_end[0]) * (1.0 + sub * spin) + dt,
    );
    for (k, t) in measured.iter().enumerate() {
        assert!(
            *t >= lo && *t <= hi,
            "half period {k}: {t:.4} s, Euler's equations give {lo:.4}–{hi:.4} s"
        );
    }
    let n = steps as f64 * f64::from(w.config().substeps);
    let bound = n * sub * sub * spin * spin * l0.length();
    assert!(
        stray <= bound,
        "the angular momentum vector moved {stray:.3e}, more than N·h²·|ω|²·|L| = {bound:.3e}"
    );
}

// ---------------------------------------------------------------------------------------------
// GPU against the CPU twin

#[path = "rigid_integrate/integrate_model.rs"]
mod integrate_model;

/// `integrate_velocity` (with the implicit gyroscopic term: the bodies are asymmetric and spin
/// off their axes) and `integrate_position`, GPU against CPU.
#[test]
fn rigid_integrate_matches_the_cpu_twin() {
    let mut rng = Rng::new(7);
    for n in [1u32, 63, 1000] {
        let bodies: Vec<GpuBody> = (0..n).map(|i| random_body(&mut rng, i)).collect();
        let params = GpuRigidParams {
            dt: 1.0 / 60.0,
            body_count: n,
            ..Default::default()
        };
        let mut g = GpuRigid::new(&gpu(), sizes(n)).expect("gpu backend");
        g.write(&g.params, &[params]);
        g.write(&g.bodies, &bodies);
        g.run(&[
            Pass::over("integrate_velocity", n),
            Pass::over("integrate_position", n),
        ])
        .expect("run");
        let got: Vec<GpuBody> = g.read(&g.bodies, n as usize).expect("read");
        let mut want = bodies.clone();
        wgphys::rigid::integrate::rigid_integrate(&params, &mut want);
        // Each body's bound on each field, from the model (integrate_model.rs); the exact
        // mirror must agree with the twin within it (it models this integrator).
        let (bounds, mirror) = integrate_model::integrate_bounds(&bodies, params.dt);
        let mut used = [0.0f64; 8];
        let names = [
            "pos",
            "orient",
            "lin_vel",
            "ang_vel",
            "last_acc",
            "inv_inertia_world[0]",
            "inv_inertia_world[1]",
            "inv_inertia_world[2]",
        ];
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            let fields = |x: &GpuBody| {
                [
                    x.pos.truncate().extend(0.0),
                    x.orient,
                    x.lin_vel.truncate().extend(0.0),
                    x.ang_vel.truncate().extend(0.0),
                    x.last_acc,
                    x.inv_inertia_world[0],
                    x.inv_inertia_world[1],
                    x.inv_inertia_world[2],
                ]
            };
            let (fa, fb) = (fields(a), fields(b));
            for f in 0..8 {
                let m = mirror[i][f];
                let m = if f == 0 || f == 2 || f == 3 {
                    m.truncate().extend(0.0)
                } else {
                    m
                };
                let d = (fa[f] - fb[f]).abs().max_element() as f64;
                let dm = (fb[f].as_dvec4() - m).abs().max_element();
                assert!(
                    d <= bounds[i][f] && dm <= bounds[i][f],
                    "n={n} body {i} field {}: gpu {:?} cpu {:?} mirror {m:?} (bound {:e})",
                    names[f],
                    fa[f],
                    fb[f],
                    bounds[i][f]
                );
                if d > 0.0 {
                    used[f] = used[f].max(d / bounds[i][f]);
                }
            }
            // Forces act in every substep: integrating leaves the accumulators alone.
            assert_eq!(a.force, b.force, "body {i}: force accumulator kept");
            assert_eq!(a.torque, b.torque, "body {i}: torque accumulator kept");
            assert_unchanged("integrate", i, a, b);
        }
        eprintln!(
            "[measure] rigid integrate n={n}: largest share of a body's bound used: {}",
            names
                .iter()
                .zip(used)
                .map(|(k, x)| format!("{k} {:.0}%", 100.0 * x))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}
