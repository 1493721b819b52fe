//! The joints' stages on the CPU, twins of `shaders/rigid/joint.wgsl` with the same names
//! (without the `joint_` prefix) and operation order: `slots` and `slots_filter` (stage
//! `joint_slots`), the rows the solver's velocity stages run on a joint's slot (`warm_bodies`,
//! `solve_bodies`), and `break_joints` (stage `joint_break`). The WGSL file's header says how a
//! joint's rows are built; the functions here are documented where they differ in form.

use super::filter;
use crate::rigid::math::{mat3_inverse, quat_mul, quat_rotate};
use crate::rigid::types::*;
use crate::rounding::{cross, div, div3, dot, length, mat3_mul};
use glam::{Mat3, Vec2, Vec3, Vec4, Vec4Swizzles};

/// 2π as f32 (WGSL `JOINT_TWO_PI`).
const TWO_PI: f32 = 6.283_185_5;

/// Whether `jt` acts: not disabled by the host, not broken (WGSL `joint_active`).
pub fn active(jt: &GpuJoint) -> bool {
    jt.flags & joint_flag::DISABLED == 0 && jt.feedback.z.to_bits() == 0
}

/// Stage `joint_slots`: appends one manifold slot per joint after the `manifolds` the narrow
/// phase wrote (`JOINT_SLOT_COUNT` points for an active joint, none for a disabled or broken
/// one), and clears the impulses when warm starting is off.
pub fn slots(params: &GpuRigidParams, joints: &mut [GpuJoint], manifolds: &mut Vec<GpuManifold>) {
    for (j, jt) in joints.iter_mut().enumerate() {
        if manifolds.len() >= params.pair_capacity as usize {
            break;
        }
        manifolds.push(GpuManifold {
            body_a: jt.body_a,
            body_b: jt.body_b,
            count: if active(jt) { JOINT_SLOT_COUNT } else { 0 },
            colour: NONE,
            shape_a: NONE,
            shape_b: NONE,
            joint: j as u32 + 1,
            ..GpuManifold::default()
        });
        if params.warm_start == 0 {
            jt.impulse_lin = Vec4::ZERO;
            jt.impulse_ang = Vec4::ZERO;
            jt.impulse_limit = Vec4::ZERO;
        }
    }
}

/// Stage `joint_slots`' filter: empties each contact manifold between bodies that an active
/// joint without [`joint_flag::COLLIDE`] joins (`table`: [`filter::build`]'s).
pub fn slots_filter(joints: &[GpuJoint], table: &[[u32; 4]], contacts: &mut [GpuManifold]) {
    if table.is_empty() {
        return;
    }
    for m in contacts.iter_mut() {
        if m.count == 0 || m.body_a == NONE || m.body_b == NONE {
            continue;
        }
        let (lo, hi) = (m.body_a.min(m.body_b), m.body_a.max(m.body_b));
        if filter::filtered(table, joints, lo, hi) {
            m.count = 0;
        }
    }
}

/// A body as a joint's rows see it (WGSL `SolveBody`): pose, velocities, and the inverse mass
/// and world inverse inertia (zero unless the solver moves it).
#[derive(Clone, Copy, Debug)]
pub struct JointBody {
    /// Centre of mass.
    pub pos: Vec3,
    /// Orientation (x, y, z, w).
    pub orient: Vec4,
    /// Linear velocity.
    pub lin: Vec3,
    /// Angular velocity.
    pub ang: Vec3,
    /// Inverse mass.
    pub inv_mass: f32,
    /// World inverse inertia.
    pub inv_inertia: Mat3,
}

/// The soft constraint (bias rate, mass scale, impulse scale, 0) of a spring of `hertz` with
/// damping ratio `zeta` over a substep of `h` seconds (`inv_h` = 1/h as the step computed it):
/// `solver::soft_contact`'s coefficients with the stiffness capped at half the substep rate
/// (WGSL `joint_soft_of`). The contacts' cap is a quarter; a joint's row may be stiffer. A
/// 50-link chain of 0.1 kg links holding 2 kg (and 10 kg) settles at the half-rate cap, and
/// diverges at the full rate (`tests/rigid_joints.rs`). A joint stretches under a load F by
/// F/(m·ω²), m its row's effective mass, ω = 2π·hertz.
pub fn soft(hertz: f32, zeta: f32, h: f32, inv_h: f32) -> Vec4 {
    let hz = hertz.min(0.5 * inv_h);
    let omega = TWO_PI * hz;
    let a1 = 2.0 * zeta + h * omega;
    let a2 = h * omega * a1;
    let a3 = 1.0 / (1.0 + a2);
    Vec4::new(div(omega, a1), a2 * a3, a3, 0.0)
}

/// [`soft`] for the step's substep.
pub fn soft_of(params: &GpuRigidParams, hertz: f32, zeta: f32) -> Vec4 {
    soft(hertz, zeta, params.dt, params.inv_dt)
}

fn softness(params: &GpuRigidParams, jt: &GpuJoint) -> Vec4 {
    if jt.softness.x > 0.0 {
        soft_of(params, jt.softness.x, jt.softness.y)
    } else {
        params.joint_soft
    }
}

/// WGSL `JointFrame`.
#[derive(Clone, Copy, Debug)]
struct Frame {
    ra: Vec3,
    rb: Vec3,
    d: Vec3,
    xa: Vec3,
    ya: Vec3,
    za: Vec3,
    xb: Vec3,
    yb: Vec3,
    qa: Vec4,
    qb: Vec4,
}

fn frame(jt: &GpuJoint, a: &JointBody, b: &JointBody) -> Frame {
    let ra = quat_rotate(a.orient, jt.anchor_a.xyz());
    let rb = quat_rotate(b.orient, jt.anchor_b.xyz());
    let d = (b.pos + rb) - (a.pos + ra);
    let qa = quat_mul(a.orient, jt.rot_a);
    let qb = quat_mul(b.orient, jt.rot_b);
    Frame {
        ra,
        rb,
        d,
        xa: quat_rotate(qa, Vec3::X),
        ya: quat_rotate(qa, Vec3::Y),
        za: quat_rotate(qa, Vec3::Z),
        xb: quat_rotate(qb, Vec3::X),
        yb: quat_rotate(qb, Vec3::Y),
        qa,
        qb,
    }
}

fn ang_k(a: &JointBody, b: &JointBody, e: Vec3) -> f32 {
    dot(e, mat3_mul(a.inv_inertia, e)) + dot(e, mat3_mul(b.inv_inertia, e))
}

fn lin_k(a: &JointBody, b: &JointBody, ra: Vec3, rb: Vec3, n: Vec3) -> f32 {
    let ca = cross(ra, n);
    let cb = cross(rb, n);
    a.inv_mass
        + b.inv_mass
        + dot(ca, mat3_mul(a.inv_inertia, ca))
        + dot(cb, mat3_mul(b.inv_inertia, cb))
}

fn rel_vel(a: &JointBody, b: &JointBody, ra: Vec3, rb: Vec3) -> Vec3 {
    (b.lin + cross(b.ang, rb)) - (a.lin + cross(a.ang, ra))
}

fn apply_lin(a: &mut JointBody, b: &mut JointBody, ra: Vec3, rb: Vec3, p: Vec3) {
    a.lin -= p * a.inv_mass;
    a.ang -= mat3_mul(a.inv_inertia, cross(ra, p));
    b.lin += p * b.inv_mass;
    b.ang += mat3_mul(b.inv_inertia, cross(rb, p));
}

fn apply_ang(a: &mut JointBody, b: &mut JointBody, l: Vec3) {
    a.ang -= mat3_mul(a.inv_inertia, l);
    b.ang += mat3_mul(b.inv_inertia, l);
}

/// (bias, mass scale, impulse scale) of a row: the soft constraint's, or rigid.
fn coefficients(soft: Vec4, c: f32, use_soft: bool) -> (f32, f32, f32) {
    if use_soft {
        (soft.x * c, soft.y, soft.z)
    } else {
        (0.0, 1.0, 0.0)
    }
}

fn row(acc: f32, cdot: f32, c: f32, k: f32, soft: Vec4, use_soft: bool) -> f32 {
    if k <= 0.0 {
        return acc;
    }
    let (bias, mass_scale, impulse_scale) = coefficients(soft, c, use_soft);
    acc - div(mass_scale * (cdot + bias), k) - impulse_scale * acc
}

fn limit_row(
    params: &GpuRigidParams,
    acc: f32,
    cdot: f32,
    c: f32,
    k: f32,
    soft: Vec4,
    use_bias: bool,
) -> f32 {
    if k <= 0.0 {
        return acc;
    }
    let (bias, mass_scale, impulse_scale) = if c > 0.0 {
        (c * params.inv_dt, 1.0, 0.0)
    } else {
        coefficients(soft, c, use_bias)
    };
    (acc - div(mass_scale * (cdot + bias), k) - impulse_scale * acc).max(0.0)
}

fn block(acc: Vec3, cdot: Vec3, c: Vec3, k: Mat3, soft: Vec4, use_soft: bool) -> Vec3 {
    let Some(inv) = mat3_inverse(k) else {
        return acc;
    };
    let (bias, mass_scale, impulse_scale) = if use_soft {
        (soft.x * c, soft.y, soft.z)
    } else {
        (Vec3::ZERO, 1.0, 0.0)
    };
    acc - mass_scale * mat3_mul(inv, cdot + bias) - impulse_scale * acc
}

fn point_matrix(a: &JointBody, b: &JointBody, ra: Vec3, rb: Vec3) -> Mat3 {
    let m = a.inv_mass + b.inv_mass;
    let col = |e: Vec3| {
        m * e
            + cross(mat3_mul(a.inv_inertia, cross(ra, e)), ra)
            + cross(mat3_mul(b.inv_inertia, cross(rb, e)), rb)
    };
    Mat3::from_cols(col(Vec3::X), col(Vec3::Y), col(Vec3::Z))
}

fn hinge_angle(f: &Frame) -> f32 {
    dot(f.yb, f.za).atan2(dot(f.yb, f.ya))
}

fn twist_angle(f: &Frame) -> f32 {
    let mut rel = quat_mul(Vec4::new(-f.qa.x, -f.qa.y, -f.qa.z, f.qa.w), f.qb);
    if rel.w < 0.0 {
        rel = -rel;
    }
    2.0 * rel.x.atan2(rel.w)
}

fn angle_error(f: &Frame) -> Vec3 {
    let q = quat_mul(f.qb, Vec4::new(-f.qa.x, -f.qa.y, -f.qa.z, f.qa.w));
    (if q.w < 0.0 { -2.0 } else { 2.0 }) * q.xyz()
}

/// WGSL `JointAxis`.
#[derive(Clone, Copy, Debug)]
struct Axis {
    n: Vec3,
    ra: Vec3,
    value: f32,
}

fn axis(jt: &GpuJoint, f: &Frame) -> Axis {
    if jt.kind == joint_kind::DISTANCE {
        let len = length(f.d);
        let n = if len > 0.0 { div3(f.d, len) } else { f.xa };
        return Axis {
            n,
            ra: f.ra,
            value: len,
        };
    }
    if jt.kind == joint_kind::SLIDER {
        return Axis {
            n: f.xa,
            ra: f.ra + f.d,
            value: dot(f.d, f.xa),
        };
    }
    Axis {
        n: f.xa,
        ra: f.ra,
        value: hinge_angle(f),
    }
}

/// Whether the joint's axial rows are linear (slider, distance) or angular (hinge).
pub fn axial_linear(jt: &GpuJoint) -> bool {
    jt.kind == joint_kind::SLIDER || jt.kind == joint_kind::DISTANCE
}

fn has_axis(jt: &GpuJoint) -> bool {
    matches!(
        jt.kind,
        joint_kind::HINGE | joint_kind::SLIDER | joint_kind::DISTANCE
    )
}

fn apply_axial(
    jt: &GpuJoint,
    f: &Frame,
    ax: &Axis,
    a: &mut JointBody,
    b: &mut JointBody,
    lambda: f32,
) {
    if axial_linear(jt) {
        apply_lin(a, b, ax.ra, f.rb, ax.n * lambda);
    } else {
        apply_ang(a, b, ax.n * lambda);
    }
}

fn axial_cdot(jt: &GpuJoint, f: &Frame, ax: &Axis, a: &JointBody, b: &JointBody) -> f32 {
    if axial_linear(jt) {
        dot(rel_vel(a, b, ax.ra, f.rb), ax.n)
    } else {
        dot(b.ang - a.ang, ax.n)
    }
}

fn axial_k(jt: &GpuJoint, f: &Frame, ax: &Axis, a: &JointBody, b: &JointBody) -> f32 {
    if axial_linear(jt) {
        lin_k(a, b, ax.ra, f.rb, ax.n)
    } else {
        ang_k(a, b, ax.n)
    }
}

/// WGSL `JointCone`: (axis, room), or `None` when the x axes are parallel.
fn cone(jt: &GpuJoint, f: &Frame) -> Option<(Vec3, f32)> {
    let w = cross(f.xb, f.xa);
    let s = length(w);
    if s <= 0.0 {
        return None;
    }
    let phi = s.atan2(dot(f.xa, f.xb));
    Some((div3(w, s), jt.limits.x - phi))
}

fn twist_axis(f: &Frame) -> Vec3 {
    let axis = f.xa + f.xb;
    let len = length(axis);
    if len <= 0.0 {
        return Vec3::ZERO;
    }
    div3(axis, len)
}

/// Stage `solve_warm_apply` on a joint's bodies (WGSL `joint_warm_bodies`).
pub fn warm_bodies(jt: &GpuJoint, a: &mut JointBody, b: &mut JointBody) {
    let f = frame(jt, a, b);
    let kind = jt.kind;
    if matches!(
        kind,
        joint_kind::BALL | joint_kind::HINGE | joint_kind::FIXED
    ) {
        apply_lin(a, b, f.ra, f.rb, jt.impulse_lin.xyz());
    }
    if kind == joint_kind::SLIDER {
        let p = f.ya * jt.impulse_lin.y + f.za * jt.impulse_lin.z;
        apply_lin(a, b, f.ra + f.d, f.rb, p);
    }
    if kind == joint_kind::FIXED || kind == joint_kind::SLIDER {
        apply_ang(a, b, jt.impulse_ang.xyz());
    }
    if kind == joint_kind::HINGE {
        apply_ang(a, b, f.ya * jt.impulse_ang.y + f.za * jt.impulse_ang.z);
    }
    if kind == joint_kind::BALL {
        let e = cone(jt, &f).map_or(Vec3::ZERO, |c| c.0);
        let twist = twist_axis(&f);
        let l = e * jt.impulse_ang.x + twist * (jt.impulse_limit.z - jt.impulse_limit.w);
        apply_ang(a, b, l);
        if jt.flags & joint_flag::MOTOR != 0 {
            apply_ang(a, b, jt.impulse_ang.yzw());
        }
    }
    if has_axis(jt) {
        let ax = axis(jt, &f);
        let axial = jt.impulse_lin.w + jt.impulse_ang.w + jt.impulse_limit.x - jt.impulse_limit.y;
        apply_axial(jt, &f, &ax, a, b, axial);
    }
}

/// Stages `solve_contact` (`use_bias`) and `solve_relax` on a joint's bodies (WGSL
/// `joint_solve_bodies`); the new accumulated impulses go into `jt`.
pub fn solve_bodies(
    params: &GpuRigidParams,
    jt: &mut GpuJoint,
    use_bias: bool,
    a: &mut JointBody,
    b: &mut JointBody,
) {
    let kind = jt.kind;
    let soft = softness(params, jt);
    let f = frame(jt, a, b);
    if has_axis(jt) {
        axial_rows(params, jt, &f, soft, use_bias, a, b);
    }
    if kind == joint_kind::BALL {
        if jt.flags & joint_flag::MOTOR != 0 {
            ball_friction(params, jt, a, b);
        }
        ball_limits(params, jt, &f, soft, use_bias, a, b);
    }
    if kind == joint_kind::FIXED || kind == joint_kind::SLIDER {
        let cdot = b.ang - a.ang;
        let old = jt.impulse_ang.xyz();
        let k = a.inv_inertia + b.inv_inertia;
        let new = block(old, cdot, angle_error(&f), k, soft, use_bias);
        jt.impulse_ang = new.extend(jt.impulse_ang.w);
        apply_ang(a, b, new - old);
    }
    if kind == joint_kind::HINGE {
        let err = cross(f.xa, f.xb);
        for i in 1..3 {
            let e = if i == 1 { f.ya } else { f.za };
            let cdot = dot(b.ang - a.ang, e);
            let old = jt.impulse_ang[i];
            let new = row(old, cdot, dot(err, e), ang_k(a, b, e), soft, use_bias);
            jt.impulse_ang[i] = new;
            apply_ang(a, b, e * (new - old));
        }
    }
    if matches!(
        kind,
        joint_kind::BALL | joint_kind::HINGE | joint_kind::FIXED
    ) {
        let cdot = rel_vel(a, b, f.ra, f.rb);
        let old = jt.impulse_lin.xyz();
        let k = point_matrix(a, b, f.ra, f.rb);
        let new = block(old, cdot, f.d, k, soft, use_bias);
        jt.impulse_lin = new.extend(jt.impulse_lin.w);
        apply_lin(a, b, f.ra, f.rb, new - old);
    }
    if kind == joint_kind::SLIDER {
        let arm = f.ra + f.d;
        for i in 1..3 {
            let e = if i == 1 { f.ya } else { f.za };
            let cdot = dot(rel_vel(a, b, arm, f.rb), e);
            let old = jt.impulse_lin[i];
            let k = lin_k(a, b, arm, f.rb, e);
            let new = row(old, cdot, dot(f.d, e), k, soft, use_bias);
            jt.impulse_lin[i] = new;
            apply_lin(a, b, arm, f.rb, e * (new - old));
        }
    }
}

fn axial_rows(
    params: &GpuRigidParams,
    jt: &mut GpuJoint,
    f: &Frame,
    soft: Vec4,
    use_bias: bool,
    a: &mut JointBody,
    b: &mut JointBody,
) {
    let t = *jt;
    let ax = axis(&t, f);
    let k = axial_k(&t, f, &ax, a, b);
    if t.flags & joint_flag::SPRING != 0 {
        let spring = soft_of(params, t.softness.z, t.softness.w);
        let cdot = axial_cdot(&t, f, &ax, a, b);
        let old = jt.impulse_lin.w;
        let new = row(old, cdot, ax.value - t.drive.z, k, spring, true);
        jt.impulse_lin.w = new;
        apply_axial(&t, f, &ax, a, b, new - old);
    }
    if t.flags & joint_flag::MOTOR != 0 && k > 0.0 {
        let cdot = axial_cdot(&t, f, &ax, a, b);
        let old = jt.impulse_ang.w;
        let most = t.drive.y * params.dt;
        let new = (old - div(cdot - t.drive.x, k)).clamp(-most, most);
        jt.impulse_ang.w = new;
        apply_axial(&t, f, &ax, a, b, new - old);
    }
    if t.flags & joint_flag::LIMITS != 0 {
        let cdot_lo = axial_cdot(&t, f, &ax, a, b);
        let old_lo = jt.impulse_limit.x;
        let c_lo = ax.value - t.limits.x;
        let lo = limit_row(params, old_lo, cdot_lo, c_lo, k, soft, use_bias);
        jt.impulse_limit.x = lo;
        apply_axial(&t, f, &ax, a, b, lo - old_lo);
        let cdot_hi = -axial_cdot(&t, f, &ax, a, b);
        let old_hi = jt.impulse_limit.y;
        let c_hi = t.limits.y - ax.value;
        let hi = limit_row(params, old_hi, cdot_hi, c_hi, k, soft, use_bias);
        jt.impulse_limit.y = hi;
        apply_axial(&t, f, &ax, a, b, old_hi - hi);
    }
}

/// A ball joint's friction (WGSL `joint_ball_friction`): an angular impulse against the relative
/// turning, accumulated in `impulse_ang` yzw and clamped to drive.y × h.
fn ball_friction(params: &GpuRigidParams, jt: &mut GpuJoint, a: &mut JointBody, b: &mut JointBody) {
    let Some(inv) = mat3_inverse(a.inv_inertia + b.inv_inertia) else {
        return;
    };
    let old = jt.impulse_ang.yzw();
    let mut next = old - mat3_mul(inv, b.ang - a.ang);
    let most = jt.drive.y * params.dt;
    let len = length(next);
    if len > most {
        let scale = if len > 0.0 { div(most, len) } else { 0.0 };
        next *= scale;
    }
    jt.impulse_ang = Vec4::new(jt.impulse_ang.x, next.x, next.y, next.z);
    apply_ang(a, b, next - old);
}

fn ball_limits(
    params: &GpuRigidParams,
    jt: &mut GpuJoint,
    f: &Frame,
    soft: Vec4,
    use_bias: bool,
    a: &mut JointBody,
    b: &mut JointBody,
) {
    let t = *jt;
    if t.flags & joint_flag::CONE != 0 {
        if let Some((e, c)) = cone(&t, f) {
            let cdot = dot(b.ang - a.ang, e);
            let old = jt.impulse_ang.x;
            let new = limit_row(params, old, cdot, c, ang_k(a, b, e), soft, use_bias);
            jt.impulse_ang.x = new;
            apply_ang(a, b, e * (new - old));
        }
    }
    if t.flags & joint_flag::TWIST != 0 {
        let e = twist_axis(f);
        let twist = twist_angle(f);
        let k = ang_k(a, b, e);
        let cdot_lo = dot(b.ang - a.ang, e);
        let old_lo = jt.impulse_limit.z;
        let lo = limit_row(
            params,
            old_lo,
            cdot_lo,
            twist - t.limits.y,
            k,
            soft,
            use_bias,
        );
        jt.impulse_limit.z = lo;
        apply_ang(a, b, e * (lo - old_lo));
        let cdot_hi = -dot(b.ang - a.ang, e);
        let old_hi = jt.impulse_limit.w;
        let hi = limit_row(
            params,
            old_hi,
            cdot_hi,
            t.limits.z - twist,
            k,
            soft,
            use_bias,
        );
        jt.impulse_limit.w = hi;
        apply_ang(a, b, e * (old_hi - hi));
    }
}

/// The force (N) and torque (N·m) `jt` applied in the last substep (WGSL `joint_load`).
pub fn load(params: &GpuRigidParams, jt: &GpuJoint) -> Vec2 {
    let axial =
        (jt.impulse_lin.w + jt.impulse_ang.w + jt.impulse_limit.x - jt.impulse_limit.y).abs();
    let mut force = length(jt.impulse_lin.xyz());
    let mut torque = length(jt.impulse_ang.xyz()) + (jt.impulse_limit.z - jt.impulse_limit.w).abs();
    if axial_linear(jt) {
        force += axial;
    } else {
        torque += axial;
    }
    Vec2::new(force, torque) * params.inv_dt
}

/// Joined bodies sleep together: when either of an active joint's bodies is dynamic, awake and
/// still moving as `sleep` measures it, both are kept from sleeping this step (WGSL
/// `joint_keep_awake`).
fn keep_awake(params: &GpuRigidParams, jt: &GpuJoint, bodies: &[GpuBody], claims: &mut [u32]) {
    let n = params.body_count as usize;
    let (a, b) = (jt.body_a as usize, jt.body_b as usize);
    if jt.body_a == NONE || a >= n || b >= n {
        return;
    }
    let moving = |i: usize| {
        let body = &bodies[i];
        body.kind == body_kind::DYNAMIC
            && body.awake != 0
            && crate::rigid::sleep::motion(params, body) >= params.sleep_epsilon
    };
    if moving(a) || moving(b) {
        let keep = crate::rigid::sleep::SLEEP_KEEP_AWAKE;
        claims[a] = claims[a].max(keep);
        claims[b] = claims[b].max(keep);
    }
}

/// Stage `joint_break`, once per step after the substeps: each active joint's feedback (its
/// force and torque over the last substep), the breakable ones past a threshold marked broken
/// at this step (`feedback.z`; their indices returned in order), and the sleep coupling of
/// joined bodies (`keep_awake`).
pub fn break_joints(
    params: &GpuRigidParams,
    joints: &mut [GpuJoint],
    bodies: &[GpuBody],
    claims: &mut [u32],
) -> Vec<u32> {
    let mut broken = Vec::new();
    for (j, jt) in joints.iter_mut().enumerate() {
        if !active(jt) {
            continue;
        }
        keep_awake(params, jt, bodies, claims);
        let l = load(params, jt);
        let mut feedback = Vec4::new(l.x, l.y, 0.0, 0.0);
        let by_force = jt.breaking.x > 0.0 && l.x > jt.breaking.x;
        let by_torque = jt.breaking.y > 0.0 && l.y > jt.breaking.y;
        if jt.flags & joint_flag::BREAKABLE != 0 && (by_force || by_torque) {
            feedback.z = f32::from_bits(params.step.wrapping_add(1));
            broken.push(j as u32);
        }
        jt.feedback = feedback;
    }
    broken
}
