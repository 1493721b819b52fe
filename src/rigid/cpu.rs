//! CPU twins of the rigid stages the world itself owns: `step_start`, `integrate_velocity`,
//! `integrate_position`, `wake_mark`, `wake_apply` and `sleep` (WGSL in `shaders/rigid/integrate.wgsl`). Same operation order as the WGSL.

use super::math::*;
use super::types::*;
use crate::rounding;
use glam::{Vec3, Vec4, Vec4Swizzles};

/// R·I⁻¹·Rᵀ as three columns.
pub fn world_inverse_inertia(q: Vec4, inv_body: &[Vec4; 3]) -> [Vec4; 3] {
    let r = quat_to_mat3(q);
    cols_of(r * mat3_cols(inv_body) * r.transpose())
}

/// Stage `step_start`, once per step before the collide stages: clears the wake stages'
/// per-body flags in `claims` (the GPU twin also zeroes the step's counters).
pub fn step_start(params: &GpuRigidParams, claims: &mut [u32]) {
    for c in claims.iter_mut().take(params.body_count as usize) {
        *c = 0;
    }
}

/// Newton iterations of [`gyroscopic`]'s implicit midpoint solve. Each iteration squares the
/// relative error of the previous one (Newton's method on a smooth system); from the start
/// value ω_b the first error is about h·|ω| (the change a step makes), so after three it is
/// about (h·|ω|)⁸: below f32's 6e-8 for h·|ω| < 0.12, and 4e-3 of the step's change at the
/// fastest spin the integrator is built for (h·|ω| = 0.5), where the rule's own truncation is
/// larger.
pub const GYROSCOPIC_ITERATIONS: u32 = 3;

/// The gyroscopic term of Euler's equations, I·ω̇ + ω × I·ω = 0, over `h` in the body frame by
/// the implicit midpoint rule: with ω_b = Rᵀω, solve I·(ω' − ω_b) + h·m × I·m = 0 for ω' at the
/// midpoint m = (ω_b + ω')/2, by [`GYROSCOPIC_ITERATIONS`] Newton steps from ω' = ω_b (Jacobian
/// I + h/2·(m× ·I − (I·m)×)). The rule keeps both quadratic invariants of the free motion,
/// |I·ω_b| (angular momentum) and ω_b·I·ω_b (energy), exactly when solved exactly: the change
/// I·(ω' − ω_b) is h·(I·m) × m, perpendicular to both I·m and m. Backward Euler, which the
/// engine used before, lost both (a box spun near its intermediate axis kept 91% of its energy
/// after 5 s at 60 Hz and 4 substeps). A free asymmetric body therefore keeps its angular
/// momentum and tumbles (the tennis-racket flip) with the Euler period, where the book's
/// integrator spins on at constant ω. The orientation update that follows turns the body
/// about ω' itself, which leaves ω' in the body frame unchanged, so the next substep starts
/// from the ω_b this one ended with. Bodies whose body-frame inverse inertia is singular (a
/// locked axis) keep ω, as does a singular Jacobian.
pub fn gyroscopic(q: Vec4, inv_body: &[Vec4; 3], w: Vec3, h: f32) -> Vec3 {
    let Some(inertia) = mat3_inverse(mat3_cols(inv_body)) else {
        return w;
    };
    let w0 = quat_rotate_inv(q, w);
    let half = 0.5 * h;
    let mut x = w0;
    for _ in 0..GYROSCOPIC_ITERATIONS {
        let m = 0.5 * (w0 + x);
        let l = inertia * m;
        let g = inertia * (x - w0) + h * m.cross(l);
        let j = glam::Mat3::from_cols(
            inertia.x_axis + half * (m.cross(inertia.x_axis) - l.cross(Vec3::X)),
            inertia.y_axis + half * (m.cross(inertia.y_axis) - l.cross(Vec3::Y)),
            inertia.z_axis + half * (m.cross(inertia.z_axis) - l.cross(Vec3::Z)),
        );
        match mat3_inverse(j) {
            Some(ji) => x -= ji * g,
            None => return w,
        }
    }
    quat_rotate(q, x)
}

/// Stage `integrate_velocity`, the first half of the book's integrator (catalogue §7, steps
/// 2–6) for every awake body, run every substep: last-frame acceleration, angular acceleration
/// from the world inverse inertia, velocities, the implicit [`gyroscopic`] term, damping as
/// d^dt. The force and torque accumulators act in every substep, so a force added for a step
/// acts for the whole step; [`sleep`] clears them after the last substep. The second half,
/// [`integrate_position`], runs after the velocity solver.
pub fn integrate_velocity(params: &GpuRigidParams, bodies: &mut [GpuBody]) {
    let dt = params.dt;
    for b in bodies.iter_mut().take(params.body_count as usize) {
        if b.kind == body_kind::DYNAMIC && b.awake != 0 {
            let mut v = b.lin_vel.xyz();
            let mut w = b.ang_vel.xyz();
            let last_acc = rounding::madd3(b.force.xyz(), b.pos.w, b.acc.xyz());
            let ang_acc = rounding::mat3_mul(mat3_cols(&b.inv_inertia_world), b.torque.xyz());
            v = rounding::madd3(last_acc, dt, v);
            w = rounding::madd3(ang_acc, dt, w);
            w = gyroscopic(b.orient, &b.inv_inertia, w, dt);
            v *= b.lin_vel.w.powf(dt);
            w *= b.ang_vel.w.powf(dt);
            b.last_acc = last_acc.extend(b.last_acc.w);
            b.lin_vel = v.extend(b.lin_vel.w);
            b.ang_vel = w.extend(b.ang_vel.w);
        }
    }
}

/// Stage `integrate_position`, the second half of the book's integrator (steps 7–9) for every
/// awake dynamic or kinematic body: position from the (solved) velocity, orientation by
/// addScaledVector, then the derived data (normalized orientation, world inverse inertia).
pub fn integrate_position(params: &GpuRigidParams, bodies: &mut [GpuBody]) {
    let dt = params.dt;
    for b in bodies.iter_mut().take(params.body_count as usize) {
        if b.kind == body_kind::STATIC || b.awake == 0 {
            continue;
        }
        let v = b.lin_vel.xyz();
        let w = b.ang_vel.xyz();
        let p = rounding::madd3(v, dt, b.pos.xyz());
        let q = quat_normalize(quat_add_scaled(b.orient, w, dt));
        b.pos = p.extend(b.pos.w);
        b.orient = q;
        b.inv_inertia_world = world_inverse_inertia(q, &b.inv_inertia);
    }
}

/// Both halves of the integrator back to back, the book's `RigidBody::integrate` for a body
/// with no contacts (tests and tools); leaves the accumulators as they are.
pub fn rigid_integrate(params: &GpuRigidParams, bodies: &mut [GpuBody]) {
    integrate_velocity(params, bodies);
    integrate_position(params, bodies);
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
/// the static world never wake). Reads only what the previous stages wrote, so the result does
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
        if m.count == 0 || m.body_a == NONE || m.body_b == NONE {
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

/// Stage `sleep` (catalogue §13), once per step after the substeps; clears every body's force
/// and torque accumulators first. Motion = bias·motion + (1 − bias)·(|v|² + |ω|²); below the
/// sleep epsilon a body that may sleep falls asleep with zero velocities; above ten epsilons the
/// motion is clamped there so a body that stops can fall asleep soon. Returns the awake count.
pub fn sleep(params: &GpuRigidParams, bodies: &mut [GpuBody]) -> u32 {
    let mut awake = 0;
    for b in bodies.iter_mut().take(params.body_count as usize) {
        // The step's forces have acted in every substep; the next step starts from none.
        b.force = Vec4::ZERO;
        b.torque = Vec4::ZERO;
        if b.kind != body_kind::DYNAMIC || b.awake == 0 {
            continue;
        }
        let v = b.lin_vel.xyz();
        let w = b.ang_vel.xyz();
        let current = v.dot(v) + w.dot(w);
        let mut motion = params.sleep_bias * b.last_acc.w + (1.0 - params.sleep_bias) * current;
        if b.can_sleep != 0 && motion < params.sleep_epsilon {
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
