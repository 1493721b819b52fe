// Stages `integrate_velocity` and `integrate_position`: one thread per body, the book's
// integrator (catalogue §7) split in two around the velocity solver. The first half turns
// forces into velocities (last-frame acceleration, angular acceleration from the world inverse
// inertia, damping as d^dt, cleared accumulators); the second moves the body with the solved
// velocity (position from the *new* velocity, orientation by addScaledVector, then the derived
// data). Between them the contacts are found at the step's start positions and the solver
// removes the velocity gravity added to resting bodies, so a resting stack does not sink by
// g·dt² every step only to be pushed back out (the book's order does that, and the pushing
// makes tall stacks creep). Sleeping and static bodies keep their state; kinematic bodies move
// by their velocity only. CPU twin: src/rigid/integrate.rs.

/// R·I⁻¹·Rᵀ as three columns.
fn world_inverse_inertia(q: vec4<f32>, inv_body: array<vec4<f32>, 3>) -> array<vec4<f32>, 3> {
    let r = quat_to_mat3(q);
    let m = r * mat3_cols(inv_body) * transpose(r);
    return array<vec4<f32>, 3>(vec4<f32>(m[0], 0.0), vec4<f32>(m[1], 0.0), vec4<f32>(m[2], 0.0));
}

/// Newton iterations of the gyroscopic midpoint solve (integrate.rs GYROSCOPIC_ITERATIONS; the
/// shader tests check they agree).
const GYROSCOPIC_ITERATIONS: u32 = 3u;

/// The gyroscopic term over h in the body frame by the implicit midpoint rule, which keeps
/// angular momentum and energy (integrate.rs `gyroscopic`, same operations).
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
// substep). CPU twin: integrate.rs.
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

// Stage `integrate_position`: the second half, after the velocity solver. CPU twin: integrate.rs.
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

