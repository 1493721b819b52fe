//! Stages `wake_mark`, `wake_apply` and `sleep` (`src/rigid/sleep.rs`,
//! `shaders/rigid/sleep.wgsl`): seeded random bodies and contacts, run on the GPU and on the
//! CPU twin, compared field by field with bounds from the error model. The sleeping a player
//! sees (a stack comes to rest and sleeps, a sleeper wakes when hit) is in `rigid_world`.

mod common;

use common::error_model::cost::{CONTRACT, DOT3, ROUND};
use common::error_model::UNIT_ROUNDOFF as U;
use common::rigid::stages::{assert_unchanged, random_body, sizes};
use common::{gpu, Rng};
use glam::Vec4;
use wgphys::rigid::gpu::{GpuRigid, Pass};
use wgphys::rigid::sleep;
use wgphys::rigid::types::*;

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
    counters[counter::SLOTS] = n;
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
    let awake = sleep::sleep(&params, &mut bodies, &claims);
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
