//! Sleeping and waking (catalogue §13): stage `step_start`, which clears the wake flags and the
//! step's counters, `wake_mark` and `wake_apply`, which wake sleepers that awake bodies press
//! on, and `sleep`, which puts still bodies to sleep after the substeps. WGSL twin:
//! `shaders/rigid/sleep.wgsl`, same operations in the same order; tests: `tests/rigid_sleep.rs`.

use super::types::*;
use glam::{Vec3, Vec4, Vec4Swizzles};

/// Stage `step_start`, once per step before the collide stages: clears the wake stages'
/// per-body flags in `claims` (the GPU twin also zeroes the step's counters).
pub fn step_start(params: &GpuRigidParams, claims: &mut [u32]) {
    for c in claims.iter_mut().take(params.body_count as usize) {
        *c = 0;
    }
}

/// Whether a body takes part in waking: dynamic and asleep.
fn sleeping_dynamic(b: &GpuBody) -> bool {
    b.kind == body_kind::DYNAMIC && b.awake == 0
}

/// Whether the awake body `w` presses on a sleeper hard enough to wake it: it moves (|v|² +
/// |ω|², the sleep metric, above the sleep epsilon). Resting neighbours of a sleeper do not
/// wake it, however deep their contact: a soft contact under a stack's load rests millimetres
/// deep (the load over the contact's stiffness m·ω², see `solver::soft_contact`), so depth is
/// no sign of a contact that needs resolving.
fn presses(params: &GpuRigidParams, w: &GpuBody) -> bool {
    let v = w.lin_vel.xyz();
    let a = w.ang_vel.xyz();
    v.dot(v) + a.dot(a) > params.sleep_epsilon
}

/// Stage `wake_mark`: every manifold with points between an awake body that `presses` on a
/// sleeping dynamic one marks the sleeper in `claims` (the book's matchAwakeState; contacts with
/// the static world never wake); a joint's slot counts as such a manifold. Reads only what the previous stages wrote, so the result does
/// not depend on the order manifolds are visited; a chain of sleepers wakes one link per step.
pub fn wake_mark(
    params: &GpuRigidParams,
    bodies: &[GpuBody],
    manifolds: &[GpuManifold],
    pair_count: u32,
    claims: &mut [u32],
) {
    for m in manifolds
        .iter()
        .take(pair_count.min(params.pair_capacity) as usize)
    {
        // A sensor's overlap wakes no one (the narrow phase marks it).
        if m.count == 0 || m.body_a == NONE || m.body_b == NONE || m.dynamic & MANIFOLD_SENSOR != 0
        {
            continue;
        }
        let (a, b) = (&bodies[m.body_a as usize], &bodies[m.body_b as usize]);
        if a.awake != 0 && sleeping_dynamic(b) && presses(params, a) {
            claims[m.body_b as usize] = 1;
        }
        if b.awake != 0 && sleeping_dynamic(a) && presses(params, b) {
            claims[m.body_a as usize] = 1;
        }
    }
}

/// Wakes a body as the book's setAwake(true): awake, motion = 2·sleep epsilon.
pub fn wake(b: &mut GpuBody, sleep_epsilon: f32) {
    b.awake = 1;
    b.last_acc.w = 2.0 * sleep_epsilon;
}

/// Stage `wake_apply`: wakes every body `wake_mark` marked.
pub fn wake_apply(params: &GpuRigidParams, bodies: &mut [GpuBody], claims: &[u32]) {
    for (b, &c) in bodies
        .iter_mut()
        .zip(claims)
        .take(params.body_count as usize)
    {
        if c != 0 {
            wake(b, params.sleep_epsilon);
        }
    }
}

/// Rounds of `wake_joints` after `wake_apply` in a world with joints: a jointed structure wakes
/// this many joints deep in the step something wakes it (a ragdoll's pelvis reaches a hand in
/// four), the rest in the next steps.
pub const WAKE_JOINT_ROUNDS: u32 = 4;

/// Stage `wake_apply`'s rounds over the joints: every active joint between a body that moves
/// (`presses`) or was woken this step (its wake word 1) and a sleeping dynamic one marks the
/// sleeper (`wake_apply` then wakes it; WGSL `wake_joints`, which says why a still awake body
/// wakes no one). The round reads only words it does not write (awake bodies'), so the order of
/// the joints does not matter.
pub fn wake_joints(
    params: &GpuRigidParams,
    bodies: &[GpuBody],
    joints: &[GpuJoint],
    claims: &mut [u32],
) {
    for jt in joints.iter().take(params.joint_count as usize) {
        if !crate::rigid::joint::solve::active(jt) {
            continue;
        }
        let (a, b) = (jt.body_a as usize, jt.body_b as usize);
        let (Some(ba), Some(bb)) = (bodies.get(a), bodies.get(b)) else {
            continue;
        };
        if a >= params.body_count as usize || b >= params.body_count as usize {
            continue;
        }
        let wakes = |w: &GpuBody, i: usize| w.awake != 0 && (presses(params, w) || claims[i] == 1);
        let (wake_b, wake_a) = (wakes(ba, a), wakes(bb, b));
        if wake_b && sleeping_dynamic(bb) {
            claims[b] = claims[b].max(1);
        }
        if wake_a && sleeping_dynamic(ba) {
            claims[a] = claims[a].max(1);
        }
    }
}

/// The value of a body's wake word (or above) with which `joint_break` keeps it from sleeping
/// this step (WGSL SLEEP_KEEP_AWAKE).
pub const SLEEP_KEEP_AWAKE: u32 = 2;

/// The motion `sleep` gives body `b` this step: bias·motion + (1 − bias)·(|v|² + |ω|²) (WGSL
/// `sleep_motion`).
pub fn motion(params: &GpuRigidParams, b: &GpuBody) -> f32 {
    let v = b.lin_vel.xyz();
    let w = b.ang_vel.xyz();
    let current = v.dot(v) + w.dot(w);
    params.sleep_bias * b.last_acc.w + (1.0 - params.sleep_bias) * current
}

/// Stage `sleep` (catalogue §13), once per step after the substeps; clears every body's force
/// and torque accumulators first. Motion = bias·motion + (1 − bias)·(|v|² + |ω|²); below the
/// sleep epsilon a body that may sleep falls asleep with zero velocities, unless a joint keeps it
/// awake (`claims` at [`SLEEP_KEEP_AWAKE`], from `joint_break`: a body joined to one that moves);
/// above ten epsilons the motion is clamped there so a body that stops can fall asleep soon.
/// Returns the awake count.
pub fn sleep(params: &GpuRigidParams, bodies: &mut [GpuBody], claims: &[u32]) -> u32 {
    let mut awake = 0;
    for (i, b) in bodies
        .iter_mut()
        .enumerate()
        .take(params.body_count as usize)
    {
        let motion0 = motion(params, b);
        // The step's forces have acted in every substep; the next step starts from none.
        b.force = Vec4::ZERO;
        b.torque = Vec4::ZERO;
        if b.kind != body_kind::DYNAMIC || b.awake == 0 {
            continue;
        }
        let mut motion = motion0;
        let kept = params.joint_count > 0 && claims.get(i).is_some_and(|&c| c >= SLEEP_KEEP_AWAKE);
        if b.can_sleep != 0 && motion < params.sleep_epsilon && !kept {
            b.awake = 0;
            b.lin_vel = Vec3::ZERO.extend(b.lin_vel.w);
            b.ang_vel = Vec3::ZERO.extend(b.ang_vel.w);
        } else {
            awake += 1;
            if motion > 10.0 * params.sleep_epsilon {
                motion = 10.0 * params.sleep_epsilon;
            }
        }
        b.last_acc.w = motion;
    }
    awake
}
