// Sleeping and waking (catalogue §13): stages `step_start` (clears the wake flags and the step's
// counters), `wake_mark` and `wake_apply` (wake sleepers that awake bodies press on) and
// `sleep` (after the substeps). One thread per body, or per pair slot for `wake_mark`. CPU
// twin: src/rigid/sleep.rs, same operations in the same order.

// Stage `step_start`: one thread per body, once per step before the collide stages: clears
// the wake flag of `claims` and the counters the step's stages add to. CPU twin: sleep.rs.
@compute @workgroup_size(RIGID_WG)
fn step_start(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.body_count) {
        return;
    }
    atomicStore(&claims[i], 0u);
    if (i == 0u) {
        // The sleep stage of this step counts awake bodies from zero.
        atomicStore(&counters[COUNTER_AWAKE], 0u);
        atomicStore(&counters[COUNTER_UNSOLVED], 0u);
        atomicStore(&counters[COUNTER_COLOURS_WANTED], 0u);
        atomicStore(&counters[COUNTER_ROUNDS], 0u);
        atomicStore(&counters[COUNTER_JOINTS_BROKEN], 0u);
        atomicStore(&counters[COUNTER_FRACTURES], 0u);
        atomicStore(&counters[COUNTER_CONTACT_EVENT_COUNT], 0u);
    }
}

fn sleeping_dynamic(b: u32) -> bool {
    return bodies[b].kind == BODY_DYNAMIC && bodies[b].awake == 0u;
}

/// Whether awake body w presses on a sleeper: it moves (sleep.rs `presses`).
fn presses(w: u32) -> bool {
    let v = bodies[w].lin_vel.xyz;
    let a = bodies[w].ang_vel.xyz;
    return dot(v, v) + dot(a, a) > params.sleep_epsilon;
}

// Stage `wake_mark`: one thread per pair slot; marks sleepers that awake bodies press on in
// `claims` (cleared by step_start). Reads state no thread of this pass writes, writes
// only claims, so the result does not depend on thread order. CPU twin: sleep.rs `wake_mark`.
@compute @workgroup_size(RIGID_WG)
fn wake_mark(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    let n = min(atomicLoad(&counters[COUNTER_SLOTS]), params.pair_capacity);
    if (k >= n) {
        return;
    }
    let m = manifolds[k];
    // A sensor's overlap wakes no one (narrow.wgsl marks it).
    if (m.count == 0u || m.body_a == NONE || m.body_b == NONE
        || (m.dynamic & MANIFOLD_SENSOR) != 0u) {
        return;
    }
    if (bodies[m.body_a].awake != 0u && sleeping_dynamic(m.body_b) && presses(m.body_a)) {
        atomicMax(&claims[m.body_b], 1u);
    }
    if (bodies[m.body_b].awake != 0u && sleeping_dynamic(m.body_a) && presses(m.body_b)) {
        atomicMax(&claims[m.body_a], 1u);
    }
}

// Stage `wake_apply`'s rounds over the joints (worlds with joints only): after wake_apply, each
// of WAKE_JOINT_ROUNDS rounds marks the sleeping partners of the active joints of bodies that
// move or were woken this step (their wake word is 1; a round writes only sleepers' words, so
// what it reads no thread of it writes) (this entry, a thread per joint) and wakes them
// (wake_apply again): a jointed structure wakes that many joints deep in the step something
// wakes it, the rest in the next steps. An awake body that neither moves nor was just woken
// wakes no one, so a still structure does not wake its sleeping parts over and over. CPU twin:
// sleep.rs `wake_joints`.
@compute @workgroup_size(RIGID_WG)
fn wake_joints(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    if (j >= params.joint_count) {
        return;
    }
    let jt = joints[j];
    if ((jt.flags & JOINT_FLAG_DISABLED) != 0u || bitcast<u32>(jt.feedback.z) != 0u) {
        return;
    }
    let a = jt.body_a;
    let b = jt.body_b;
    if (a == NONE || b == NONE || a >= params.body_count || b >= params.body_count) {
        return;
    }
    if (wakes_partners(a) && sleeping_dynamic(b)) {
        atomicMax(&claims[b], 1u);
    }
    if (wakes_partners(b) && sleeping_dynamic(a)) {
        atomicMax(&claims[a], 1u);
    }
}

/// Whether awake body w wakes its joints' sleeping partners: it moves, or was woken this step.
fn wakes_partners(w: u32) -> bool {
    return bodies[w].awake != 0u && (presses(w) || atomicLoad(&claims[w]) == 1u);
}

// Stage `wake_apply`: one thread per body. CPU twin: sleep.rs `wake_apply`.
@compute @workgroup_size(RIGID_WG)
fn wake_apply(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.body_count) {
        return;
    }
    if (atomicLoad(&claims[i]) != 0u) {
        bodies[i].awake = 1u;
        bodies[i].last_acc.w = 2.0 * params.sleep_epsilon;
    }
}

/// The value of a body's wake word of `claims` (or above) with which `joint_break` keeps it
/// from sleeping this step (sleep.rs SLEEP_KEEP_AWAKE).
const SLEEP_KEEP_AWAKE: u32 = 2u;

/// The motion `sleep` will give body i this step: the recency-weighted |v|² + |ω|² (sleep.rs
/// `motion`).
fn sleep_motion(i: u32) -> f32 {
    let v = bodies[i].lin_vel.xyz;
    let w = bodies[i].ang_vel.xyz;
    let current = dot(v, v) + dot(w, w);
    return params.sleep_bias * bodies[i].last_acc.w + (1.0 - params.sleep_bias) * current;
}

// Stage `sleep`: one thread per body, once per step after the substeps; clears the force
// accumulators and counts awake bodies in counters[COUNTER_AWAKE] (an
// integer sum, order-independent). A body joined to one that moves stays awake (see
// joint_break), so a jointed structure sleeps as a whole. CPU twin: sleep.rs `sleep`.
@compute @workgroup_size(RIGID_WG)
fn sleep(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.body_count) {
        return;
    }
    let motion0 = sleep_motion(i);
    var b = bodies[i];
    // The step's forces have acted in every substep; the next step starts from none.
    b.force = vec4<f32>(0.0);
    b.torque = vec4<f32>(0.0);
    if (b.kind != BODY_DYNAMIC || b.awake == 0u) {
        bodies[i] = b;
        return;
    }
    var motion = motion0;
    // A body whose joint partner moves stays awake (joint_break marks it; SLEEP_KEEP_AWAKE).
    let kept = params.joint_count > 0u && atomicLoad(&claims[i]) >= SLEEP_KEEP_AWAKE;
    if (b.can_sleep != 0u && motion < params.sleep_epsilon && !kept) {
        b.awake = 0u;
        b.lin_vel = vec4<f32>(0.0, 0.0, 0.0, b.lin_vel.w);
        b.ang_vel = vec4<f32>(0.0, 0.0, 0.0, b.ang_vel.w);
    } else {
        atomicAdd(&counters[COUNTER_AWAKE], 1u);
        if (motion > 10.0 * params.sleep_epsilon) {
            motion = 10.0 * params.sleep_epsilon;
        }
    }
    b.last_acc.w = motion;
    bodies[i] = b;
}
