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

/// Relative tolerance of one integration step (a few ulps through pow, normalize, R·I·Rᵀ and
/// the gyroscopic term's two cofactor inverses of well-conditioned 3×3 matrices: the random
/// bodies' principal moments are 2, 1 and 0.5, so each inverse at most doubles a relative
/// rounding).
const STEP_TOL: f32 = 2e-6;

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

fn assert_close(what: &str, i: usize, g: Vec4, c: Vec4) {
    let scale = c.abs().max_element().max(1.0);
    assert!(
        (g - c).abs().max_element() <= STEP_TOL * scale,
        "body {i} field {what}: gpu {g:?} cpu {c:?}"
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
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert_close("pos", i, a.pos, b.pos);
            assert_close("orient", i, a.orient, b.orient);
            assert_close("lin_vel", i, a.lin_vel, b.lin_vel);
            assert_close("ang_vel", i, a.ang_vel, b.ang_vel);
            assert_close("last_acc", i, a.last_acc, b.last_acc);
            for k in 0..3 {
                assert_close(
                    "inv_inertia_world",
                    i,
                    a.inv_inertia_world[k],
                    b.inv_inertia_world[k],
                );
            }
            // Forces act in every substep: integrating leaves the accumulators alone.
            assert_eq!(a.force, b.force, "body {i}: force accumulator kept");
            assert_eq!(a.torque, b.torque, "body {i}: torque accumulator kept");
        }
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
    let awake = sleep::sleep(&params, &mut bodies);
    assert!(claims.iter().any(|&c| c != 0), "the scene wakes someone");
    assert!(
        bodies
            .iter()
            .any(|b| b.kind == body_kind::DYNAMIC && b.awake == 0),
        "and someone sleeps"
    );
    assert_eq!(got_counters[counter::AWAKE], awake, "awake count");
    for (i, (a, b)) in got.iter().zip(&bodies).enumerate() {
        assert_eq!(a.awake, b.awake, "body {i} awake");
        // The sleep stage ends the step: every accumulator is cleared, asleep or not.
        assert_eq!(a.force, Vec4::ZERO, "body {i}: force cleared by sleep");
        assert_eq!(
            b.force,
            Vec4::ZERO,
            "body {i}: force cleared by the CPU sleep"
        );
        assert_close("lin_vel", i, a.lin_vel, b.lin_vel);
        assert_close("last_acc (motion)", i, a.last_acc, b.last_acc);
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
    rigid_forces(&params, &e, &mut bodies);
    let pushed = bodies
        .iter()
        .filter(|b| b.force.truncate().length() > 100.0)
        .count();
    assert!(pushed > 10, "the shell reaches some bodies ({pushed})");
    // On the ramps of the shock the force is peak·(1 − (st − d)/kw): a rounding error δ in the
    // distance d (a hardware length() may round differently from the CPU's, a few ulps) moves
    // it by peak·δ/kw, which near the ramp's foot is large relative to the force itself. So the
    // force may differ by that much on top of the step tolerance (the torque by the arm times
    // it).
    let (peak, kw) = (e.shock.z, e.misc.x * e.shock.y);
    let arm = e.misc.z;
    for (i, (a, b)) in got.iter().zip(&bodies).enumerate() {
        let d = (b.pos.truncate() - e.detonation.truncate()).length();
        let ramp = peak * 8.0 * f32::EPSILON * d.max(1.0) / kw;
        let near = |what: &str, g: Vec4, c: Vec4, extra: f32| {
            let scale = c.abs().max_element().max(1.0);
            assert!(
                (g - c).abs().max_element() <= STEP_TOL * scale + extra,
                "body {i} field {what}: gpu {g:?} cpu {c:?}"
            );
        };
        near("force", a.force, b.force, ramp);
        near("torque", a.torque, b.torque, ramp * arm.max(1.0));
        assert_eq!(a.awake, b.awake, "body {i} awake");
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
