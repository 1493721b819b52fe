// Stage `generators`: one thread per body, every substep before `integrate_velocity`. An awake
// dynamic body walks its list in the generator index (word 0: the bodies listed; words
// 1..=n + 1: each body's first position and the end; then generator slots, body by body, a
// two-body spring under both bodies), sums each generator's force and torque on it in list
// order, and adds f·m⁻¹·h to its velocity and I⁻¹·τ·h to its spin. A gather: no atomics, and
// only this body's velocities are written, while other bodies are read through their position
// and orientation alone, so the threads do not race. CPU twin: src/rigid/generators/mod.rs,
// the same operations in the same order. Relative air velocity is the point's velocity minus
// the wind (the book adds the wind: catalogue §20 erratum 12).

struct GenForce {
    f: vec3<f32>,
    t: vec3<f32>,
}

/// A generator's record without its tensors.
struct GenHead {
    kind: u32,
    body_a: u32,
    body_b: u32,
    point_a: vec4<f32>,
    point_b: vec4<f32>,
    wind: vec4<f32>,
    orient: vec4<f32>,
}

/// The tensor of an aerodynamic record: the base, or a control surface's base interpolated
/// towards the minimum by −c (c < 0) or the maximum by c (c > 0).
fn aero_tensor(gi: u32, kind: u32, c: f32) -> mat3x3<f32> {
    let t0 = force_gens[gi].tensor[0].xyz;
    let t1 = force_gens[gi].tensor[1].xyz;
    let t2 = force_gens[gi].tensor[2].xyz;
    if (kind != FORCE_GEN_AERO_CONTROL || c == 0.0) {
        return mat3x3<f32>(t0, t1, t2);
    }
    var to = 6u;
    var s = c;
    if (c < 0.0) {
        to = 3u;
        s = -c;
    }
    return mat3x3<f32>(
        (force_gens[gi].tensor[to].xyz - t0) * s + t0,
        (force_gens[gi].tensor[to + 1u].xyz - t1) * s + t1,
        (force_gens[gi].tensor[to + 2u].xyz - t2) * s + t2,
    );
}

/// The world position of another body's point (its position and orientation only).
fn gen_world_point(j: u32, p: vec3<f32>) -> vec3<f32> {
    return bodies[j].pos.xyz + quat_rotate(bodies[j].orient, p);
}

/// Generator `gi`'s force and torque on body `i` (`b`). The record is read field by field:
/// copying it whole (224 bytes, most of it tensors) cost lavapipe a third of the stage.
fn generator_force(gi: u32, i: u32, b: Body) -> GenForce {
    let none = GenForce(vec3<f32>(0.0), vec3<f32>(0.0));
    let head = vec3<u32>(force_gens[gi].kind, force_gens[gi].body_a, force_gens[gi].body_b);
    let g = GenHead(head.x, head.y, head.z, force_gens[gi].point_a, force_gens[gi].point_b,
        force_gens[gi].wind, force_gens[gi].orient);
    if (g.kind == FORCE_GEN_SPRING || g.kind == FORCE_GEN_ANCHORED_SPRING) {
        var own = g.point_a.xyz;
        var other = g.point_b.xyz;
        if (g.kind == FORCE_GEN_SPRING) {
            if (i == g.body_a) {
                other = gen_world_point(g.body_b, g.point_b.xyz);
            } else {
                own = g.point_b.xyz;
                other = gen_world_point(g.body_a, g.point_a.xyz);
            }
        }
        let r = quat_rotate(b.orient, own);
        let d = (b.pos.xyz + r) - other;
        let l = length(d);
        if (l <= 0.0) {
            return none;
        }
        let m = -g.point_a.w * (l - g.point_b.w) / l;
        let f = d * m;
        return GenForce(f, cross(r, f));
    }
    if (g.kind == FORCE_GEN_AERO || g.kind == FORCE_GEN_AERO_CONTROL
        || g.kind == FORCE_GEN_ANGLED_AERO) {
        let r = quat_rotate(b.orient, g.point_a.xyz);
        let v = (b.lin_vel.xyz + cross(b.ang_vel.xyz, r)) - g.wind.xyz;
        var frame = b.orient;
        if (g.kind == FORCE_GEN_ANGLED_AERO) {
            frame = quat_mul(b.orient, g.orient);
        }
        let local = quat_rotate_inv(frame, v);
        let f = quat_rotate(frame, aero_tensor(gi, g.kind, g.wind.w) * local);
        return GenForce(f, cross(r, f));
    }
    if (g.kind == FORCE_GEN_BUOYANCY) {
        let r = quat_rotate(b.orient, g.point_a.xyz);
        let y = b.pos.y + r.y;
        let s = g.point_a.w;
        let top = g.wind.x + s;
        if (y >= top) {
            return none;
        }
        let d = min((top - y) / (2.0 * s), 1.0);
        let f = vec3<f32>(0.0, g.wind.y * g.point_b.w * g.wind.z * d, 0.0);
        return GenForce(f, cross(r, f));
    }
    if (g.kind == FORCE_GEN_THRUST) {
        let r = quat_rotate(b.orient, g.point_a.xyz);
        let f = quat_rotate(b.orient, g.point_b.xyz);
        return GenForce(f, cross(r, f));
    }
    return none;
}

@compute @workgroup_size(RIGID_WG)
fn generators(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.body_count || i >= generator_index[0]) {
        return;
    }
    let b = bodies[i];
    let start = generator_index[1u + i];
    let end = generator_index[2u + i];
    if (b.kind != BODY_DYNAMIC || b.awake == 0u || start == end) {
        return;
    }
    var f = vec3<f32>(0.0);
    var t = vec3<f32>(0.0);
    for (var k = start; k < end; k++) {
        let e = generator_force(generator_index[k], i, b);
        f = f + e.f;
        t = t + e.t;
    }
    let dt = params.dt;
    let acc = f * b.pos.w;
    let ang = mat3_cols(b.inv_inertia_world) * t;
    bodies[i].lin_vel = vec4<f32>(acc * dt + b.lin_vel.xyz, b.lin_vel.w);
    bodies[i].ang_vel = vec4<f32>(ang * dt + b.ang_vel.xyz, b.ang_vel.w);
}
