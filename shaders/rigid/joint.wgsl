// Joints: stage `joint_slots` (a slot per joint among the manifolds, after the contacts, so one
// colouring colours joints and contacts together and the sweeps solve them in the same batches:
// Box2D v3's constraint graph; and the collision filter of jointed bodies), the joint rows the
// solver's velocity stages run on a joint's slot (`joint_warm_bodies`, `joint_solve_bodies`),
// and stage `joint_break`. CPU twin: src/rigid/joint/solve.rs, the same functions without the
// `joint_` prefix, in the same operation order.
//
// Reads: params, joints, joint_filter, counters[COUNTER_PAIRS]; writes manifolds[P + j] and
// empties filtered contacts (joint_slots), joints[j]'s impulses (the sweeps) and feedback
// (joint_break), counters[COUNTER_JOINTS_BROKEN] and the broken joints' indices from
// counters[COUNTER_JOINT_EVENTS] (joint_break).
//
// Every row is a soft constraint of the substep (Box2D v3's soft step): in the biased sweeps an
// error C is pulled out through a spring of the joint's stiffness (`joint_softness`: bias rate,
// mass scale, impulse scale), in the relax sweeps the row is rigid on the velocity. Accumulated
// impulses are clamped as accumulated values (limits ≥ 0, the motor within its largest torque
// or force over the substep) and warm-started from step to step. A joint's frames are fixed in
// its bodies and recomputed from their current poses in every sweep, so a joint's arm follows
// its body.
//
// What the host owns and what the device owns of a joint: the host writes everything up to
// `impulse_lin` (bodies, kind, flags, frames, softness, limits, drive, breaking); the device
// writes the impulses and `feedback`, whose z word holds the step the joint broke (u32 bits, 0
// while whole), so a host edit never undoes a break.

/// 2π as f32 (the CPU twin's TWO_PI).
const JOINT_TWO_PI: f32 = 6.2831855;

/// Whether joint jt acts: not disabled by the host, not broken.
fn joint_active(jt: Joint) -> bool {
    return (jt.flags & JOINT_FLAG_DISABLED) == 0u && bitcast<u32>(jt.feedback.z) == 0u;
}

// ---------------------------------------------------------------------------------------------
// joint_slots: one thread per joint; joint_slots_filter: one thread per contact slot.

@compute @workgroup_size(RIGID_WG)
fn joint_slots(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    if (j >= params.joint_count) {
        return;
    }
    let k = atomicLoad(&counters[COUNTER_PAIRS]) + j;
    if (k >= params.pair_capacity || k >= arrayLength(&manifolds)) {
        return;
    }
    let jt = joints[j];
    var m: Manifold;
    m.body_a = jt.body_a;
    m.body_b = jt.body_b;
    m.count = select(0u, JOINT_SLOT_COUNT, joint_active(jt));
    m.colour = NONE;
    m.shape_a = NONE;
    m.shape_b = NONE;
    m.joint = j + 1u;
    manifolds[k] = m;
    if (params.warm_start == 0u) {
        joints[j].impulse_lin = vec4<f32>(0.0);
        joints[j].impulse_ang = vec4<f32>(0.0);
        joints[j].impulse_limit = vec4<f32>(0.0);
    }
}

/// The slot of the filter table where the probe for body pair (lo, hi) starts.
fn joint_filter_hash(lo: u32, hi: u32) -> u32 {
    return ((lo * 0x9e3779b1u) ^ (hi * 0x85ebca77u)) & (params.joint_filter_size - 1u);
}

/// Whether an active joint that does not let its bodies collide joins bodies lo < hi: the
/// filter table holds (lo, hi, joint, 0) per such joint, probed linearly from the hash to an
/// empty slot (lo = NONE). The table is at most half full (joint/filter.rs).
fn joint_filtered(lo: u32, hi: u32) -> bool {
    if (params.joint_filter_size == 0u) {
        return false;
    }
    var at = joint_filter_hash(lo, hi);
    for (var probe = 0u; probe < params.joint_filter_size; probe++) {
        let e = joint_filter[at];
        if (e.x == NONE) {
            return false;
        }
        if (e.x == lo && e.y == hi && e.z < params.joint_count && joint_active(joints[e.z])) {
            return true;
        }
        at = (at + 1u) & (params.joint_filter_size - 1u);
    }
    return false;
}

@compute @workgroup_size(RIGID_WG)
fn joint_slots_filter(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= atomicLoad(&counters[COUNTER_PAIRS]) || k >= arrayLength(&manifolds)) {
        return;
    }
    let m = manifolds[k];
    if (m.count == 0u || m.body_a == NONE || m.body_b == NONE) {
        return;
    }
    if (joint_filtered(min(m.body_a, m.body_b), max(m.body_a, m.body_b))) {
        manifolds[k].count = 0u;
    }
}

// ---------------------------------------------------------------------------------------------
// The rows.

/// The soft constraint (bias rate, mass scale, impulse scale, 0) of a spring of `hertz` with
/// damping ratio `zeta` over the substep (joint/solve.rs `soft`: the stiffness capped at half
/// the substep rate, where the contacts' cap is a quarter).
fn joint_soft_of(hertz: f32, zeta: f32) -> vec4<f32> {
    let h = params.dt;
    let hz = min(hertz, 0.5 * params.inv_dt);
    let omega = JOINT_TWO_PI * hz;
    let a1 = 2.0 * zeta + h * omega;
    let a2 = h * omega * a1;
    let a3 = 1.0 / (1.0 + a2);
    return vec4<f32>(omega / a1, a2 * a3, a3, 0.0);
}

/// The joint's own soft constraint, or the world's (RigidConfig::joint_hertz).
fn joint_softness(jt: Joint) -> vec4<f32> {
    if (jt.softness.x > 0.0) {
        return joint_soft_of(jt.softness.x, jt.softness.y);
    }
    return params.joint_soft;
}

/// Where a joint is at the bodies' current poses: the arms to its anchors, the gap d from a's
/// anchor to b's, and the axes of its two frames.
struct JointFrame {
    ra: vec3<f32>,
    rb: vec3<f32>,
    d: vec3<f32>,
    xa: vec3<f32>,
    ya: vec3<f32>,
    za: vec3<f32>,
    xb: vec3<f32>,
    yb: vec3<f32>,
    qa: vec4<f32>,
    qb: vec4<f32>,
}

fn joint_frame(jt: Joint, a: SolveBody, b: SolveBody) -> JointFrame {
    let ra = quat_rotate(a.orient, jt.anchor_a.xyz);
    let rb = quat_rotate(b.orient, jt.anchor_b.xyz);
    let d = (b.pos + rb) - (a.pos + ra);
    let qa = quat_mul(a.orient, jt.rot_a);
    let qb = quat_mul(b.orient, jt.rot_b);
    let xa = quat_rotate(qa, vec3<f32>(1.0, 0.0, 0.0));
    let ya = quat_rotate(qa, vec3<f32>(0.0, 1.0, 0.0));
    let za = quat_rotate(qa, vec3<f32>(0.0, 0.0, 1.0));
    let xb = quat_rotate(qb, vec3<f32>(1.0, 0.0, 0.0));
    let yb = quat_rotate(qb, vec3<f32>(0.0, 1.0, 0.0));
    return JointFrame(ra, rb, d, xa, ya, za, xb, yb, qa, qb);
}

/// The inverse effective mass of an angular row about e: e·I_a⁻¹e + e·I_b⁻¹e.
fn joint_ang_k(a: SolveBody, b: SolveBody, e: vec3<f32>) -> f32 {
    return dot(e, a.inv_inertia * e) + dot(e, b.inv_inertia * e);
}

/// The inverse effective mass of a linear row along n at arms ra, rb.
fn joint_lin_k(a: SolveBody, b: SolveBody, ra: vec3<f32>, rb: vec3<f32>, n: vec3<f32>) -> f32 {
    let ca = cross(ra, n);
    let cb = cross(rb, n);
    return a.inv_mass + b.inv_mass + dot(ca, a.inv_inertia * ca) + dot(cb, b.inv_inertia * cb);
}

/// b's anchor's velocity relative to a's.
fn joint_rel_vel(a: SolveBody, b: SolveBody, ra: vec3<f32>, rb: vec3<f32>) -> vec3<f32> {
    return (b.lin_vel + cross(b.ang_vel, rb)) - (a.lin_vel + cross(a.ang_vel, ra));
}

/// Applies linear impulse p at the arms: +p on b, −p on a.
fn joint_apply_lin(a: ptr<function, SolveBody>, b: ptr<function, SolveBody>, ra: vec3<f32>, rb: vec3<f32>, p: vec3<f32>) {
    (*a).lin_vel -= p * (*a).inv_mass;
    (*a).ang_vel -= (*a).inv_inertia * cross(ra, p);
    (*b).lin_vel += p * (*b).inv_mass;
    (*b).ang_vel += (*b).inv_inertia * cross(rb, p);
}

/// Applies angular impulse l: +l on b, −l on a.
fn joint_apply_ang(a: ptr<function, SolveBody>, b: ptr<function, SolveBody>, l: vec3<f32>) {
    (*a).ang_vel -= (*a).inv_inertia * l;
    (*b).ang_vel += (*b).inv_inertia * l;
}

/// One row's next accumulated impulse for velocity error cdot, error c and inverse effective
/// mass k: through the soft constraint `soft` when `use_soft`, else rigid on the velocity.
fn joint_row(acc: f32, cdot: f32, c: f32, k: f32, soft: vec4<f32>, use_soft: bool) -> f32 {
    if (k <= 0.0) {
        return acc;
    }
    var bias = 0.0;
    var mass_scale = 1.0;
    var impulse_scale = 0.0;
    if (use_soft) {
        bias = soft.x * c;
        mass_scale = soft.y;
        impulse_scale = soft.z;
    }
    return acc - mass_scale * (cdot + bias) / k - impulse_scale * acc;
}

/// A one-sided row (a limit; c ≥ 0 is allowed). Apart (c > 0) it lets the gap close within the
/// substep and no faster (speculative); violated, it pushes back through the soft constraint in
/// the biased sweeps and rigidly in the relax sweeps. The accumulated impulse stays ≥ 0.
fn joint_limit_row(acc: f32, cdot: f32, c: f32, k: f32, soft: vec4<f32>, use_bias: bool) -> f32 {
    if (k <= 0.0) {
        return acc;
    }
    var bias = 0.0;
    var mass_scale = 1.0;
    var impulse_scale = 0.0;
    if (c > 0.0) {
        bias = c * params.inv_dt;
    } else if (use_bias) {
        bias = soft.x * c;
        mass_scale = soft.y;
        impulse_scale = soft.z;
    }
    return max(acc - mass_scale * (cdot + bias) / k - impulse_scale * acc, 0.0);
}

/// A 3-row block (the point, the angular lock): the next accumulated impulse for velocity error
/// cdot and error c with inverse effective mass k (left alone when k is singular: neither body
/// moves).
fn joint_block(acc: vec3<f32>, cdot: vec3<f32>, c: vec3<f32>, k: mat3x3<f32>, soft: vec4<f32>, use_soft: bool) -> vec3<f32> {
    let inv = mat3_inverse(k);
    if (!inv.ok) {
        return acc;
    }
    var bias = vec3<f32>(0.0);
    var mass_scale = 1.0;
    var impulse_scale = 0.0;
    if (use_soft) {
        bias = soft.x * c;
        mass_scale = soft.y;
        impulse_scale = soft.z;
    }
    return acc - mass_scale * (inv.m * (cdot + bias)) - impulse_scale * acc;
}

/// The point's inverse effective mass: column i is (m_a + m_b)·e_i + (I_a⁻¹(r_a × e_i)) × r_a
/// + (I_b⁻¹(r_b × e_i)) × r_b.
fn joint_point_matrix(a: SolveBody, b: SolveBody, ra: vec3<f32>, rb: vec3<f32>) -> mat3x3<f32> {
    let m = a.inv_mass + b.inv_mass;
    var k: mat3x3<f32>;
    for (var i = 0u; i < 3u; i++) {
        var e = vec3<f32>(0.0);
        e[i] = 1.0;
        k[i] = m * e + cross(a.inv_inertia * cross(ra, e), ra) + cross(b.inv_inertia * cross(rb, e), rb);
    }
    return k;
}

/// The hinge angle: b's y axis turned about a's x axis from a's y axis towards a's z axis.
fn joint_hinge_angle(f: JointFrame) -> f32 {
    return atan2(dot(f.yb, f.za), dot(f.yb, f.ya));
}

/// b's twist about the joint's x axis relative to a (the twist of the swing-twist split of
/// qa⁻¹·qb, taken the short way round, in (−π, π]).
fn joint_twist_angle(f: JointFrame) -> f32 {
    var rel = quat_mul(vec4<f32>(-f.qa.xyz, f.qa.w), f.qb);
    if (rel.w < 0.0) {
        rel = -rel;
    }
    return 2.0 * atan2(rel.x, rel.w);
}

/// The rotation vector from a's frame to b's (2 × the vector part of qb·qa⁻¹, the short way
/// round): the angular lock's error.
fn joint_angle_error(f: JointFrame) -> vec3<f32> {
    let q = quat_mul(f.qb, vec4<f32>(-f.qa.xyz, f.qa.w));
    return select(2.0, -2.0, q.w < 0.0) * q.xyz;
}

/// The axis of a joint's axial rows (spring, motor, limits) with a's arm to it and the joint's
/// coordinate along it: a hinge's x axis and angle, a slider's x axis (a's arm reaching b's
/// anchor, r_a + d) and position, a distance joint's direction from a's anchor to b's and
/// length.
struct JointAxis {
    n: vec3<f32>,
    ra: vec3<f32>,
    value: f32,
}

fn joint_axis(jt: Joint, f: JointFrame) -> JointAxis {
    if (jt.kind == JOINT_KIND_DISTANCE) {
        let len = length(f.d);
        var n = f.xa;
        if (len > 0.0) {
            n = f.d / len;
        }
        return JointAxis(n, f.ra, len);
    }
    if (jt.kind == JOINT_KIND_SLIDER) {
        return JointAxis(f.xa, f.ra + f.d, dot(f.d, f.xa));
    }
    return JointAxis(f.xa, f.ra, joint_hinge_angle(f));
}

/// Whether the joint's axial rows are linear (slider, distance) or angular (hinge).
fn joint_axial_linear(jt: Joint) -> bool {
    return jt.kind == JOINT_KIND_SLIDER || jt.kind == JOINT_KIND_DISTANCE;
}

/// Applies axial impulse lambda: along the axis at its arms, or about it.
fn joint_apply_axial(jt: Joint, f: JointFrame, ax: JointAxis, a: ptr<function, SolveBody>, b: ptr<function, SolveBody>, lambda: f32) {
    if (joint_axial_linear(jt)) {
        joint_apply_lin(a, b, ax.ra, f.rb, ax.n * lambda);
    } else {
        joint_apply_ang(a, b, ax.n * lambda);
    }
}

/// The velocity error along the axis.
fn joint_axial_cdot(jt: Joint, f: JointFrame, ax: JointAxis, a: SolveBody, b: SolveBody) -> f32 {
    if (joint_axial_linear(jt)) {
        return dot(joint_rel_vel(a, b, ax.ra, f.rb), ax.n);
    }
    return dot(b.ang_vel - a.ang_vel, ax.n);
}

/// The axis' inverse effective mass.
fn joint_axial_k(jt: Joint, f: JointFrame, ax: JointAxis, a: SolveBody, b: SolveBody) -> f32 {
    if (joint_axial_linear(jt)) {
        return joint_lin_k(a, b, ax.ra, f.rb, ax.n);
    }
    return joint_ang_k(a, b, ax.n);
}

/// Whether the joint has axial rows: a hinge, a slider or a distance joint.
fn joint_has_axis(jt: Joint) -> bool {
    return jt.kind == JOINT_KIND_HINGE || jt.kind == JOINT_KIND_SLIDER || jt.kind == JOINT_KIND_DISTANCE;
}

/// A ball joint's cone row: the axis ê = (x_b × x_a)/|x_b × x_a| and the room c = cone − φ
/// left before the frames' x axes open to the cone's half-angle (dc/dt = (ω_b − ω_a)·ê);
/// ok false when the axes are parallel (no direction to push in, nothing to limit).
struct JointCone {
    e: vec3<f32>,
    c: f32,
    ok: bool,
}

fn joint_cone(jt: Joint, f: JointFrame) -> JointCone {
    let w = cross(f.xb, f.xa);
    let s = length(w);
    if (s <= 0.0) {
        return JointCone(vec3<f32>(0.0), 0.0, false);
    }
    let phi = atan2(s, dot(f.xa, f.xb));
    return JointCone(w / s, jt.limits.x - phi, true);
}

/// A ball joint's twist axis: the normalised sum of the frames' x axes (zero when they are
/// opposite).
fn joint_twist_axis(f: JointFrame) -> vec3<f32> {
    let axis = f.xa + f.xb;
    let len = length(axis);
    if (len <= 0.0) {
        return vec3<f32>(0.0);
    }
    return axis / len;
}

// Where a joint keeps its accumulated impulses (GpuJoint, types.rs):
// - impulse_lin.xyz: the point (ball, hinge, fixed; world), or a slider's two perpendicular
//   rows (y, z: along a's y and z axes); impulse_lin.w: the spring.
// - impulse_ang.xyz: the angular lock (fixed, slider; world), a hinge's two perpendicular rows
//   (y, z: about a's y and z axes), a ball's cone row (x); impulse_ang.w: the motor. A ball's
//   friction (its MOTOR flag) is a world vector in impulse_ang.yzw.
// - impulse_limit: the lower and upper limit (x, y), a ball's lower and upper twist (z, w).

/// Stage solve_warm_apply on a joint's bodies: every accumulated impulse once, along the axes
/// at the current poses.
fn joint_warm_bodies(j: u32, a: ptr<function, SolveBody>, b: ptr<function, SolveBody>) {
    let jt = joints[j];
    let f = joint_frame(jt, *a, *b);
    let kind = jt.kind;
    if (kind == JOINT_KIND_BALL || kind == JOINT_KIND_HINGE || kind == JOINT_KIND_FIXED) {
        joint_apply_lin(a, b, f.ra, f.rb, jt.impulse_lin.xyz);
    }
    if (kind == JOINT_KIND_SLIDER) {
        joint_apply_lin(a, b, f.ra + f.d, f.rb, f.ya * jt.impulse_lin.y + f.za * jt.impulse_lin.z);
    }
    if (kind == JOINT_KIND_FIXED || kind == JOINT_KIND_SLIDER) {
        joint_apply_ang(a, b, jt.impulse_ang.xyz);
    }
    if (kind == JOINT_KIND_HINGE) {
        joint_apply_ang(a, b, f.ya * jt.impulse_ang.y + f.za * jt.impulse_ang.z);
    }
    if (kind == JOINT_KIND_BALL) {
        let cone = joint_cone(jt, f);
        let twist = joint_twist_axis(f);
        joint_apply_ang(a, b, cone.e * jt.impulse_ang.x + twist * (jt.impulse_limit.z - jt.impulse_limit.w));
        if ((jt.flags & JOINT_FLAG_MOTOR) != 0u) {
            joint_apply_ang(a, b, jt.impulse_ang.yzw);
        }
    }
    if (joint_has_axis(jt)) {
        let ax = joint_axis(jt, f);
        let axial = jt.impulse_lin.w + jt.impulse_ang.w + jt.impulse_limit.x - jt.impulse_limit.y;
        joint_apply_axial(jt, f, ax, a, b, axial);
    }
}

/// Stages solve_contact (use_bias) and solve_relax on a joint's bodies: the axial rows (spring,
/// motor, limits), a ball's cone and twist limits, the angular lock, then the point (or a
/// slider's perpendicular rows); the next accumulated impulses go back to joints[j].
fn joint_solve_bodies(j: u32, use_bias: bool, a: ptr<function, SolveBody>, b: ptr<function, SolveBody>) {
    var jt = joints[j];
    let kind = jt.kind;
    let soft = joint_softness(jt);
    let f = joint_frame(jt, *a, *b);
    if (joint_has_axis(jt)) {
        joint_axial_rows(&jt, f, soft, use_bias, a, b);
    }
    if (kind == JOINT_KIND_BALL) {
        if ((jt.flags & JOINT_FLAG_MOTOR) != 0u) {
            joint_ball_friction(&jt, a, b);
        }
        joint_ball_limits(&jt, f, soft, use_bias, a, b);
    }
    // The angular lock: all three axes (fixed, slider), or the two across a hinge's axis.
    if (kind == JOINT_KIND_FIXED || kind == JOINT_KIND_SLIDER) {
        let cdot = (*b).ang_vel - (*a).ang_vel;
        let old = jt.impulse_ang.xyz;
        let k = (*a).inv_inertia + (*b).inv_inertia;
        let next = joint_block(old, cdot, joint_angle_error(f), k, soft, use_bias);
        jt.impulse_ang = vec4<f32>(next, jt.impulse_ang.w);
        joint_apply_ang(a, b, next - old);
    }
    if (kind == JOINT_KIND_HINGE) {
        let err = cross(f.xa, f.xb);
        for (var i = 1u; i < 3u; i++) {
            let e = select(f.za, f.ya, i == 1u);
            let cdot = dot((*b).ang_vel - (*a).ang_vel, e);
            let old = jt.impulse_ang[i];
            let next = joint_row(old, cdot, dot(err, e), joint_ang_k(*a, *b, e), soft, use_bias);
            jt.impulse_ang[i] = next;
            joint_apply_ang(a, b, e * (next - old));
        }
    }
    // The point: the anchors coincide (ball, hinge, fixed); a slider keeps b's anchor on a's
    // axis (the two directions across it).
    if (kind == JOINT_KIND_BALL || kind == JOINT_KIND_HINGE || kind == JOINT_KIND_FIXED) {
        let cdot = joint_rel_vel(*a, *b, f.ra, f.rb);
        let old = jt.impulse_lin.xyz;
        let next = joint_block(old, cdot, f.d, joint_point_matrix(*a, *b, f.ra, f.rb), soft, use_bias);
        jt.impulse_lin = vec4<f32>(next, jt.impulse_lin.w);
        joint_apply_lin(a, b, f.ra, f.rb, next - old);
    }
    if (kind == JOINT_KIND_SLIDER) {
        let arm = f.ra + f.d;
        for (var i = 1u; i < 3u; i++) {
            let e = select(f.za, f.ya, i == 1u);
            let cdot = dot(joint_rel_vel(*a, *b, arm, f.rb), e);
            let old = jt.impulse_lin[i];
            let next = joint_row(old, cdot, dot(f.d, e), joint_lin_k(*a, *b, arm, f.rb, e), soft, use_bias);
            jt.impulse_lin[i] = next;
            joint_apply_lin(a, b, arm, f.rb, e * (next - old));
        }
    }
    joints[j].impulse_lin = jt.impulse_lin;
    joints[j].impulse_ang = jt.impulse_ang;
    joints[j].impulse_limit = jt.impulse_limit;
}

/// The axial rows of a hinge, slider or distance joint, each on the velocities the one before
/// left: the spring to drive.z (soft in every sweep, at the spring's own stiffness), the motor
/// towards drive.x within drive.y × h, then the lower and upper limits.
fn joint_axial_rows(jt: ptr<function, Joint>, f: JointFrame, soft: vec4<f32>, use_bias: bool, a: ptr<function, SolveBody>, b: ptr<function, SolveBody>) {
    let t = *jt;
    let ax = joint_axis(t, f);
    let k = joint_axial_k(t, f, ax, *a, *b);
    if ((t.flags & JOINT_FLAG_SPRING) != 0u) {
        let spring = joint_soft_of(t.softness.z, t.softness.w);
        let cdot = joint_axial_cdot(t, f, ax, *a, *b);
        let old = (*jt).impulse_lin.w;
        let next = joint_row(old, cdot, ax.value - t.drive.z, k, spring, true);
        (*jt).impulse_lin.w = next;
        joint_apply_axial(t, f, ax, a, b, next - old);
    }
    if ((t.flags & JOINT_FLAG_MOTOR) != 0u && k > 0.0) {
        let cdot = joint_axial_cdot(t, f, ax, *a, *b);
        let old = (*jt).impulse_ang.w;
        let most = t.drive.y * params.dt;
        let next = clamp(old - (cdot - t.drive.x) / k, -most, most);
        (*jt).impulse_ang.w = next;
        joint_apply_axial(t, f, ax, a, b, next - old);
    }
    if ((t.flags & JOINT_FLAG_LIMITS) != 0u) {
        let cdot_lo = joint_axial_cdot(t, f, ax, *a, *b);
        let old_lo = (*jt).impulse_limit.x;
        let lo = joint_limit_row(old_lo, cdot_lo, ax.value - t.limits.x, k, soft, use_bias);
        (*jt).impulse_limit.x = lo;
        joint_apply_axial(t, f, ax, a, b, lo - old_lo);
        let cdot_hi = -joint_axial_cdot(t, f, ax, *a, *b);
        let old_hi = (*jt).impulse_limit.y;
        let hi = joint_limit_row(old_hi, cdot_hi, t.limits.y - ax.value, k, soft, use_bias);
        (*jt).impulse_limit.y = hi;
        joint_apply_axial(t, f, ax, a, b, old_hi - hi);
    }
}

/// A ball joint's friction: the relative turning is stopped by an angular impulse of at most
/// drive.y × h (a torque of at most drive.y), accumulated in impulse_ang.yzw and clamped to
/// that ball, so a limb's swing dies away while gravity can still pull it down.
fn joint_ball_friction(jt: ptr<function, Joint>, a: ptr<function, SolveBody>, b: ptr<function, SolveBody>) {
    let inv = mat3_inverse((*a).inv_inertia + (*b).inv_inertia);
    if (!inv.ok) {
        return;
    }
    let old = (*jt).impulse_ang.yzw;
    var next = old - inv.m * ((*b).ang_vel - (*a).ang_vel);
    let most = (*jt).drive.y * params.dt;
    let len = length(next);
    if (len > most) {
        var scale = 0.0;
        if (len > 0.0) {
            scale = most / len;
        }
        next = next * scale;
    }
    (*jt).impulse_ang = vec4<f32>((*jt).impulse_ang.x, next);
    joint_apply_ang(a, b, next - old);
}

/// A ball joint's cone limit (the angle between the frames' x axes at most limits.x, when on)
/// and twist limits (b's twist about the x axes between limits.y and limits.z, when on).
fn joint_ball_limits(jt: ptr<function, Joint>, f: JointFrame, soft: vec4<f32>, use_bias: bool, a: ptr<function, SolveBody>, b: ptr<function, SolveBody>) {
    let t = *jt;
    if ((t.flags & JOINT_FLAG_CONE) != 0u) {
        let cone = joint_cone(t, f);
        if (cone.ok) {
            let cdot = dot((*b).ang_vel - (*a).ang_vel, cone.e);
            let old = (*jt).impulse_ang.x;
            let next = joint_limit_row(old, cdot, cone.c, joint_ang_k(*a, *b, cone.e), soft, use_bias);
            (*jt).impulse_ang.x = next;
            joint_apply_ang(a, b, cone.e * (next - old));
        }
    }
    if ((t.flags & JOINT_FLAG_TWIST) != 0u) {
        let e = joint_twist_axis(f);
        let twist = joint_twist_angle(f);
        let k = joint_ang_k(*a, *b, e);
        let cdot_lo = dot((*b).ang_vel - (*a).ang_vel, e);
        let old_lo = (*jt).impulse_limit.z;
        let lo = joint_limit_row(old_lo, cdot_lo, twist - t.limits.y, k, soft, use_bias);
        (*jt).impulse_limit.z = lo;
        joint_apply_ang(a, b, e * (lo - old_lo));
        let cdot_hi = -dot((*b).ang_vel - (*a).ang_vel, e);
        let old_hi = (*jt).impulse_limit.w;
        let hi = joint_limit_row(old_hi, cdot_hi, t.limits.z - twist, k, soft, use_bias);
        (*jt).impulse_limit.w = hi;
        joint_apply_ang(a, b, e * (old_hi - hi));
    }
}

// ---------------------------------------------------------------------------------------------
// joint_break: one thread per joint, once per step after the substeps: the feedback, the
// breaks, and the sleep coupling of joined bodies (joint_keep_awake).

/// The force (x, N) and torque (y, N·m) joint jt applied in the last substep: its accumulated
/// linear and angular impulses over the substep.
fn joint_load(jt: Joint) -> vec2<f32> {
    let axial = abs(jt.impulse_lin.w + jt.impulse_ang.w + jt.impulse_limit.x - jt.impulse_limit.y);
    var force = length(jt.impulse_lin.xyz);
    var torque = length(jt.impulse_ang.xyz) + abs(jt.impulse_limit.z - jt.impulse_limit.w);
    if (joint_axial_linear(jt)) {
        force = force + axial;
    } else {
        torque = torque + axial;
    }
    return vec2<f32>(force, torque) * params.inv_dt;
}

/// Whether body b is dynamic, awake and moving as `sleep` measures it (at or above the sleep
/// epsilon).
fn joint_moving(b: u32) -> bool {
    return b != NONE && b < params.body_count && bodies[b].kind == BODY_DYNAMIC
        && bodies[b].awake != 0u && sleep_motion(b) >= params.sleep_epsilon;
}

/// Joined bodies sleep together: when either of an active joint's bodies still moves, both are
/// kept from sleeping this step (their wake words raised to SLEEP_KEEP_AWAKE; the wake stages
/// are done with them).
fn joint_keep_awake(jt: Joint) {
    if (jt.body_a == NONE || jt.body_a >= params.body_count || jt.body_b >= params.body_count) {
        return;
    }
    if (joint_moving(jt.body_a) || joint_moving(jt.body_b)) {
        atomicMax(&claims[jt.body_a], SLEEP_KEEP_AWAKE);
        atomicMax(&claims[jt.body_b], SLEEP_KEEP_AWAKE);
    }
}

@compute @workgroup_size(RIGID_WG)
fn joint_break(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    if (j >= params.joint_count) {
        return;
    }
    let jt = joints[j];
    if (!joint_active(jt)) {
        return;
    }
    joint_keep_awake(jt);
    let load = joint_load(jt);
    var feedback = vec4<f32>(load, 0.0, 0.0);
    let by_force = jt.breaking.x > 0.0 && load.x > jt.breaking.x;
    let by_torque = jt.breaking.y > 0.0 && load.y > jt.breaking.y;
    if ((jt.flags & JOINT_FLAG_BREAKABLE) != 0u && (by_force || by_torque)) {
        feedback.z = bitcast<f32>(params.step + 1u);
        let at = atomicAdd(&counters[COUNTER_JOINTS_BROKEN], 1u);
        if (at < JOINT_EVENTS_MAX) {
            atomicStore(&counters[COUNTER_JOINT_EVENTS + at], j);
        }
    }
    joints[j].feedback = feedback;
}
