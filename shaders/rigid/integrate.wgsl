// Stages `integrate_velocity` and `integrate_position`: one thread per body, the book's
// integrator (catalogue §7) split in two around the velocity solver. The first half turns
// forces into velocities (last-frame acceleration, angular acceleration from the world inverse
// inertia, damping as d^dt, cleared accumulators); the second moves the body with the solved
// velocity (position from the *new* velocity, orientation by addScaledVector, then the derived
// data). Between them the contacts are found at the step's start positions and the solver
// removes the velocity gravity added to resting bodies, so a resting stack does not sink by
// g·dt² every step only to be pushed back out (the book's order does that, and the pushing
// makes tall stacks creep). Sleeping and static bodies keep their state; kinematic bodies move
// by their velocity only. CPU twins: src/rigid/cpu.rs.

/// R·I⁻¹·Rᵀ as three columns.
fn world_inverse_inertia(q: vec4<f32>, inv_body: array<vec4<f32>, 3>) -> array<vec4<f32>, 3> {
    let r = quat_to_mat3(q);
    let m = r * mat3_cols(inv_body) * transpose(r);
    return array<vec4<f32>, 3>(vec4<f32>(m[0], 0.0), vec4<f32>(m[1], 0.0), vec4<f32>(m[2], 0.0));
}

// Stage `step_start`: one thread per body, once per step before the collide stages: clears
// the wake flag of `claims` and the counters the step's stages add to. CPU twin: cpu.rs.
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
    }
}

/// Newton iterations of the gyroscopic midpoint solve (cpu.rs GYROSCOPIC_ITERATIONS; the
/// shader tests check they agree).
const GYROSCOPIC_ITERATIONS: u32 = 3u;

/// The gyroscopic term over h in the body frame by the implicit midpoint rule, which keeps
/// angular momentum and energy (cpu.rs `gyroscopic`, same operations).
fn gyroscopic(q: vec4<f32>, inv_body: array<vec4<f32>, 3>, w: vec3<f32>, h: f32) -> vec3<f32> {
    let inv = mat3_inverse(mat3_cols(inv_body));
    if (!inv.ok) {
        return w;
    }
    let inertia = inv.m;
    let w0 = quat_rotate_inv(q, w);
    let half = 0.5 * h;
    var x = w0;
    for (var it = 0u; it < GYROSCOPIC_ITERATIONS; it++) {
        let m = 0.5 * (w0 + x);
        let l = inertia * m;
        let g = inertia * (x - w0) + h * cross(m, l);
        let j = mat3x3<f32>(
            inertia[0] + half * (cross(m, inertia[0]) - cross(l, vec3<f32>(1.0, 0.0, 0.0))),
            inertia[1] + half * (cross(m, inertia[1]) - cross(l, vec3<f32>(0.0, 1.0, 0.0))),
            inertia[2] + half * (cross(m, inertia[2]) - cross(l, vec3<f32>(0.0, 0.0, 1.0))),
        );
        let ji = mat3_inverse(j);
        if (!ji.ok) {
            return w;
        }
        x = x - ji.m * g;
    }
    return quat_rotate(q, x);
}

// Stage `integrate_velocity`: the first half of the integrator, every substep. The force and
// torque accumulators act for the whole step (the sleep stage clears them after the last
// substep). CPU twin: cpu.rs.
@compute @workgroup_size(RIGID_WG)
fn integrate_velocity(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.body_count) {
        return;
    }
    var b = bodies[i];
    if (b.kind == BODY_DYNAMIC && b.awake != 0u) {
        let dt = params.dt;
        var v = b.lin_vel.xyz;
        var w = b.ang_vel.xyz;
        let last_acc = b.acc.xyz + b.force.xyz * b.pos.w;
        let ang_acc = mat3_cols(b.inv_inertia_world) * b.torque.xyz;
        v = v + last_acc * dt;
        w = w + ang_acc * dt;
        w = gyroscopic(b.orient, b.inv_inertia, w, dt);
        v = v * pow(b.lin_vel.w, dt);
        w = w * pow(b.ang_vel.w, dt);
        b.last_acc = vec4<f32>(last_acc, b.last_acc.w);
        b.lin_vel = vec4<f32>(v, b.lin_vel.w);
        b.ang_vel = vec4<f32>(w, b.ang_vel.w);
        bodies[i] = b;
    }
}

// Stage `integrate_position`: the second half, after the velocity solver. CPU twin: cpu.rs.
@compute @workgroup_size(RIGID_WG)
fn integrate_position(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.body_count) {
        return;
    }
    var b = bodies[i];
    if (b.kind == BODY_STATIC || b.awake == 0u) {
        return;
    }
    let dt = params.dt;
    let p = b.pos.xyz + b.lin_vel.xyz * dt;
    let q = quat_normalize(quat_add_scaled(b.orient, b.ang_vel.xyz, dt));
    b.pos = vec4<f32>(p, b.pos.w);
    b.orient = q;
    b.inv_inertia_world = world_inverse_inertia(q, b.inv_inertia);
    bodies[i] = b;
}

fn sleeping_dynamic(b: u32) -> bool {
    return bodies[b].kind == BODY_DYNAMIC && bodies[b].awake == 0u;
}

/// Whether awake body w presses on a sleeper: it moves (cpu.rs `presses`).
fn presses(w: u32) -> bool {
    let v = bodies[w].lin_vel.xyz;
    let a = bodies[w].ang_vel.xyz;
    return dot(v, v) + dot(a, a) > params.sleep_epsilon;
}

// Stage `wake_mark`: one thread per pair slot; marks sleepers that awake bodies press on in
// `claims` (cleared by step_start). Reads state no thread of this pass writes, writes
// only claims, so the result does not depend on thread order. CPU twin: cpu.rs `wake_mark`.
@compute @workgroup_size(RIGID_WG)
fn wake_mark(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    let n = min(atomicLoad(&counters[COUNTER_PAIRS]), params.pair_capacity);
    if (k >= n) {
        return;
    }
    let m = manifolds[k];
    if (m.count == 0u || m.body_a == NONE || m.body_b == NONE) {
        return;
    }
    if (bodies[m.body_a].awake != 0u && sleeping_dynamic(m.body_b) && presses(m.body_a)) {
        atomicMax(&claims[m.body_b], 1u);
    }
    if (bodies[m.body_b].awake != 0u && sleeping_dynamic(m.body_a) && presses(m.body_b)) {
        atomicMax(&claims[m.body_a], 1u);
    }
}

// Stage `wake_apply`: one thread per body. CPU twin: cpu.rs `wake_apply`.
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

// Stage `sleep`: one thread per body, once per step after the substeps; clears the force
// accumulators and counts awake bodies in counters[COUNTER_AWAKE] (an
// integer sum, order-independent). CPU twin: cpu.rs `sleep`.
@compute @workgroup_size(RIGID_WG)
fn sleep(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.body_count) {
        return;
    }
    var b = bodies[i];
    // The step's forces have acted in every substep; the next step starts from none.
    b.force = vec4<f32>(0.0);
    b.torque = vec4<f32>(0.0);
    if (b.kind != BODY_DYNAMIC || b.awake == 0u) {
        bodies[i] = b;
        return;
    }
    let v = b.lin_vel.xyz;
    let w = b.ang_vel.xyz;
    let current = dot(v, v) + dot(w, w);
    var motion = params.sleep_bias * b.last_acc.w + (1.0 - params.sleep_bias) * current;
    if (b.can_sleep != 0u && motion < params.sleep_epsilon) {
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
