//! Stage `rigid_forces` (`src/rigid/forces.rs`, `shaders/rigid/forces.wgsl`): the three-phase
//! explosion (catalogue §14.3) on seeded random bodies, GPU against the CPU twin, and its
//! corrected concussion profile. The explosion a player sees is in `rigid_world`.

mod common;

use common::error_model::cost::{CONTRACT, DIV, LENGTH, ROUND};
use common::error_model::UNIT_ROUNDOFF as U;
use common::rigid::stages::{assert_unchanged, random_body, sizes};
use common::{gpu, Rng};
use glam::{Vec3, Vec4};
use wgphys::rigid::gpu::{GpuRigid, Pass};
use wgphys::rigid::types::*;

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
