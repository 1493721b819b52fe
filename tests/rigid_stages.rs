//! Per-stage parity of the rigid stages the world owns (`rigid_integrate`, `wake_mark`,
//! `wake_apply`, `sleep`): seeded random bodies, run on the GPU and on the CPU twin, compared
//! field by field with named tolerances. Also the smallest use of the pass runner
//! (`GpuRigid::run`), which the other rigid parity tests share.

mod common;

use common::{gpu, Rng};
use glam::{Vec3, Vec4};
use wgphys::grid::GridSpec;
use wgphys::rigid::gpu::{GpuRigid, GpuRigidSizes, Pass};
use wgphys::rigid::math::{cols_of, quat_normalize};
use wgphys::rigid::types::*;
use wgphys::rigid::{integrate, sleep};

#[path = "rigid_stages/integrate_model.rs"]
mod integrate_model;

use common::error_model::cost::{CONTRACT, DIV, DOT3, LENGTH, ROUND};
use common::error_model::UNIT_ROUNDOFF as U;

fn random_body(rng: &mut Rng, i: u32) -> GpuBody {
    let mut v = || rng.vec3(-5.0, 5.0);
    let q = quat_normalize(v().extend(1.0));
    let inertia = glam::Mat3::from_diagonal(Vec3::new(0.5, 1.0, 2.0));
    let mut b = GpuBody {
        pos: v().extend(0.5),
        orient: q,
        lin_vel: v().extend(0.95),
        ang_vel: v().extend(0.8),
        inv_inertia: cols_of(inertia),
        force: v().extend(0.0),
        torque: v().extend(0.0),
        acc: Vec4::new(0.0, -9.81, 0.0, 0.0),
        last_acc: Vec4::new(0.0, 0.0, 0.0, 1.0),
        kind: [body_kind::DYNAMIC, body_kind::STATIC, body_kind::KINEMATIC]
            [(i % 7).min(2) as usize],
        awake: u32::from(i % 5 != 4),
        can_sleep: 1,
        flags: 0,
        ..Default::default()
    };
    b.inv_inertia_world = integrate::world_inverse_inertia(b.orient, &b.inv_inertia);
    b
}

fn sizes(bodies: u32) -> GpuRigidSizes {
    GpuRigidSizes {
        bodies,
        shapes: 16,
        pairs: bodies,
        solver_words: u64::from(bodies) * u64::from(wgphys::rigid::solver::solver_record_rows()),
        pair_scratch_words: 64,
        grid: GridSpec::new(1.0, 64).expect("grid"),
        block_bins: 0,
    }
}

/// Every field of a body that `what` does not compute, exactly.
fn assert_unchanged(what: &str, i: usize, g: &GpuBody, c: &GpuBody) {
    assert_eq!(
        (g.inv_inertia, g.acc, g.kind, g.awake, g.can_sleep, g.flags),
        (c.inv_inertia, c.acc, c.kind, c.awake, c.can_sleep, c.flags),
        "{what}: body {i}: inv_inertia, acc, kind, awake, can_sleep, flags"
    );
    assert_eq!(
        (g.pos.w, g.lin_vel.w, g.ang_vel.w),
        (c.pos.w, c.lin_vel.w, c.ang_vel.w),
        "{what}: body {i}: inverse mass and dampings (copied)"
    );
}

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
        integrate::rigid_integrate(&params, &mut want);
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

#[test]
fn wake_and_sleep_match_the_cpu_twin() {
    let mut rng = Rng::new(11);
    let n = 300u32;
    let mut bodies: Vec<GpuBody> = (0..n).map(|i| random_body(&mut rng, i)).collect();
    for b in bodies.iter_mut().step_by(3) {
        b.lin_vel = Vec4::new(0.01, 0.0, 0.0, b.lin_vel.w);
        b.ang_vel = Vec4::new(0.0, 0.0, 0.0, b.ang_vel.w);
        b.last_acc.w = 0.01;
    }
    // A chain of manifolds between random bodies.
    let manifolds: Vec<GpuManifold> = (0..n)
        .map(|k| GpuManifold {
            body_a: k,
            body_b: (k * 7 + 3) % n,
            count: k % 2,
            ..Default::default()
        })
        .collect();
    let params = GpuRigidParams {
        dt: 1.0 / 60.0,
        body_count: n,
        pair_capacity: n,
        sleep_epsilon: 0.3,
        sleep_bias: 0.5f32.powf(1.0 / 60.0),
        ..Default::default()
    };
    let mut g = GpuRigid::new(&gpu(), sizes(n)).expect("gpu backend");
    let mut counters = vec![0u32; counter::LEN];
    counters[counter::PAIRS] = n;
    g.write(&g.params, &[params]);
    g.write(&g.bodies, &bodies);
    g.write(&g.manifolds, &manifolds);
    g.write(&g.counters, &counters);
    g.write(&g.claims, &vec![0u32; n as usize]);
    g.run(&[
        Pass::over("wake_mark", n),
        Pass::over("wake_apply", n),
        Pass::over("sleep", n),
    ])
    .expect("run");
    let got: Vec<GpuBody> = g.read(&g.bodies, n as usize).expect("read");
    let got_counters: Vec<u32> = g.read(&g.counters, counter::LEN).expect("read");
    let mut claims = vec![0u32; n as usize];
    sleep::wake_mark(&params, &bodies, &manifolds, n, &mut claims);
    sleep::wake_apply(&params, &mut bodies, &claims);
    let bodies_before = bodies.clone();
    let awake = sleep::sleep(&params, &mut bodies);
    assert!(claims.iter().any(|&c| c != 0), "the scene wakes someone");
    assert!(
        bodies
            .iter()
            .any(|b| b.kind == body_kind::DYNAMIC && b.awake == 0),
        "and someone sleeps"
    );
    assert_eq!(got_counters[counter::AWAKE], awake, "awake count");
    // The motion bias·motion + (1 − bias)·(v·v + ω·ω): two DOT3s and their sum (ROUND) of the
    // current motion, (1 − bias) the same bits on both sides, two products that may be fused
    // into the sum (ROUND + CONTRACT each) and the sum (ROUND): 14u of the larger of the two
    // terms. Whether a body sleeps is decided by it against the sleep epsilon: the scene's
    // bodies must be clear of it by more than that.
    const MOTION: f64 = 2.0 * DOT3 + ROUND + 2.0 * (ROUND + CONTRACT) + ROUND;
    for (i, (a, b)) in got.iter().zip(&bodies).enumerate() {
        assert_eq!(a.awake, b.awake, "body {i} awake");
        // The sleep stage ends the step: every accumulator is cleared, asleep or not.
        assert_eq!(a.force, Vec4::ZERO, "body {i}: force cleared by sleep");
        assert_eq!(
            b.force,
            Vec4::ZERO,
            "body {i}: force cleared by the CPU sleep"
        );
        assert_eq!(
            (a.force, a.torque),
            (b.force, b.torque),
            "body {i}: accumulators"
        );
        // Velocities are kept or zeroed (a sleeper's), position and orientation untouched.
        assert_eq!(
            (a.lin_vel, a.ang_vel, a.pos, a.orient, a.inv_inertia_world),
            (b.lin_vel, b.ang_vel, b.pos, b.orient, b.inv_inertia_world),
            "body {i}: velocities, pose and world inertia"
        );
        assert_eq!(
            a.last_acc.truncate(),
            b.last_acc.truncate(),
            "body {i}: last acceleration"
        );
        let before = &bodies_before[i];
        let (v, w) = (before.lin_vel.truncate(), before.ang_vel.truncate());
        let current = f64::from(v.dot(v) + w.dot(w));
        let scale = (f64::from(params.sleep_bias * before.last_acc.w))
            .abs()
            .max(current);
        let bound = (MOTION * U * scale) as f32;
        assert!(
            (a.last_acc.w - b.last_acc.w).abs() <= bound,
            "body {i}: motion gpu {} cpu {} (bound {bound:e})",
            a.last_acc.w,
            b.last_acc.w
        );
        if before.kind == body_kind::DYNAMIC && before.awake != 0 && before.can_sleep != 0 {
            let motion = f64::from(b.last_acc.w);
            assert!(
                (motion - f64::from(params.sleep_epsilon)).abs() > 2.0 * MOTION * U * scale
                    || b.awake != 0,
                "body {i}: the scene's motion {motion} is within rounding of the sleep epsilon"
            );
        }
        assert_unchanged("wake and sleep", i, a, b);
    }
}

#[test]
fn rigid_forces_match_the_cpu_twin() {
    use wgphys::rigid::forces::{rigid_forces, Explosion};
    let mut rng = Rng::new(5);
    let n = 500u32;
    let mut bodies: Vec<GpuBody> = (0..n).map(|i| random_body(&mut rng, i)).collect();
    for b in &mut bodies {
        // Spread the bodies over the shell, the implosion ring and the chimney.
        b.pos = (rng.vec3(-9.0, 9.0)).extend(b.pos.w);
    }
    let e = Explosion::at(Vec3::new(0.5, 0.0, -0.5))
        .to_gpu(0.3)
        .expect("explosion");
    let params = GpuRigidParams {
        body_count: n,
        sleep_epsilon: 0.3,
        ..Default::default()
    };
    let mut g = GpuRigid::new(&gpu(), sizes(n)).expect("gpu backend");
    g.write(&g.params, &[params]);
    g.write(&g.explosion, &[e]);
    g.write(&g.bodies, &bodies);
    g.run(&[Pass::over("rigid_forces", n)]).expect("run");
    let got: Vec<GpuBody> = g.read(&g.bodies, n as usize).expect("read");
    let before = bodies.clone();
    rigid_forces(&params, &e, &mut bodies);
    let pushed = bodies
        .iter()
        .filter(|b| b.force.truncate().length() > 100.0)
        .count();
    assert!(pushed > 10, "the shell reaches some bodies ({pushed})");
    // The explosion's force f = Σ dir·(magnitude), dir = rel/|rel| (ROUND of rel, LENGTH, DIV:
    // 24u of each term), the shock's magnitude peak·(1 − v·dir/speed) (DOT3, DIV, ROUND, ROUND:
    // 17u) times the ramp's 1 − (st − d)/kw (ROUND, DIV, ROUND: 11u) and the fade (the same bits),
    // the products and sums of the terms (ROUND each: 12u): 64u of |f|; then the accumulator
    // force + f (ROUND of it). On the ramps the magnitude moves by peak·δ/kw for a difference δ
    // in the distance d (ROUND of rel and LENGTH: 17u·d), large relative to the force near the
    // ramp's foot: that on top. The torque r × f: the arm r = quat_rotate(q, arm direction)
    // (QUAT 34u, the direction's LENGTH + DIV 22u of |r|), the cross product (CONTRACT + ROUND),
    // f's difference times |r|: 123u of |r|·|f|, the ramp's times |r|, ROUND of the accumulator.
    const FORCE: f64 = 64.0;
    const TORQUE: f64 = 34.0 + LENGTH + DIV + CONTRACT + ROUND + FORCE;
    let (peak, kw) = (f64::from(e.shock.z), f64::from(e.misc.x * e.shock.y));
    let arm = f64::from(e.misc.z);
    for (i, (a, b)) in got.iter().zip(&bodies).enumerate() {
        let d = f64::from((b.pos.truncate() - e.detonation.truncate()).length());
        let ramp = peak * (ROUND + LENGTH) * U * d / kw;
        let f = f64::from((b.force - before[i].force).abs().max_element());
        let inf = |v: Vec4| f64::from(v.abs().max_element());
        let force_bound = ((FORCE * f + ROUND * inf(b.force)) * U + ramp) as f32;
        let torque_bound =
            ((TORQUE * arm * f * 3f64.sqrt() + ROUND * inf(b.torque)) * U + ramp * arm) as f32;
        for (what, g, c, bound) in [
            ("force", a.force, b.force, force_bound),
            ("torque", a.torque, b.torque, torque_bound),
        ] {
            assert!(
                (g - c).abs().max_element() <= bound,
                "body {i} field {what}: gpu {g:?} cpu {c:?} (bound {bound:e})"
            );
        }
        // Everything else is the input's, or set alike (a woken body's motion 2·epsilon).
        assert_eq!(
            (
                a.pos,
                a.orient,
                a.lin_vel,
                a.ang_vel,
                a.inv_inertia_world,
                a.last_acc
            ),
            (
                b.pos,
                b.orient,
                b.lin_vel,
                b.ang_vel,
                b.inv_inertia_world,
                b.last_acc
            ),
            "body {i}: pose, velocities, world inertia, last acceleration"
        );
        assert_unchanged("forces", i, a, b);
    }
}

/// The corrected concussion profile (catalogue §14.3 errata): zero ahead of the ramp, rising
/// linearly over k·w to the peak at the back of the wave st, flat over the thickness w, falling
/// linearly to zero over k·w; a body moving outwards at the wave's speed feels nothing.
#[test]
fn concussion_shell_has_the_corrected_piecewise_profile() {
    use wgphys::rigid::forces::{explosion_force, Explosion};
    let mut ex = Explosion::at(Vec3::ZERO);
    ex.implosion_duration = 0.0;
    ex.convection_duration = 0.0;
    ex.concussion_duration = 100.0;
    let (t, speed, w, k, peak) = (1.0f32, 20.0f32, 1.0f32, 1.0f32, ex.peak_concussion_force);
    let e = ex.to_gpu(t).expect("explosion");
    let st = speed * t;
    let at = |d: f32| explosion_force(&e, Vec3::new(d, 0.0, 0.0), Vec3::ZERO).x;
    let tol = 1e-3 * peak;
    assert!(
        at(st - k * w - 0.01).abs() < tol,
        "nothing behind the rising ramp"
    );
    assert!(
        (at(st - 0.5 * k * w) - 0.5 * peak).abs() < tol,
        "half way up the ramp"
    );
    assert!(
        (at(st + 0.5 * w) - peak).abs() < tol,
        "peak inside the shell"
    );
    assert!(
        (at(st + w + 0.5 * k * w) - 0.5 * peak).abs() < tol,
        "half way down the tail"
    );
    assert!(
        at(st + w + k * w + 0.01).abs() < tol,
        "nothing ahead of the tail"
    );
    let riding = explosion_force(
        &e,
        Vec3::new(st + 0.5 * w, 0.0, 0.0),
        Vec3::new(speed, 0.0, 0.0),
    );
    assert!(
        riding.length() < tol,
        "a body riding the wave feels no push: {riding:?}"
    );
}

/// The solver's records are laid out by row (`solve.wgsl` `SOLVE_RECORD_ROWS`), so a `solver`
/// buffer smaller than `pairs × solver_record_rows()` would let one position's rows run into the
/// next: building refuses it and names the field, and one row fewer than the minimum is enough.
#[test]
fn a_solver_buffer_too_small_for_the_pairs_is_refused() {
    let mut small = sizes(32);
    small.solver_words -= 1;
    match GpuRigid::new(&gpu(), small) {
        Err(wgphys::Error::InvalidInput { what, .. }) => {
            assert_eq!(what, "GpuRigidSizes::solver_words")
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a solver buffer one row short was accepted"),
    }
    assert!(GpuRigid::new(&gpu(), sizes(32)).is_ok());
}
