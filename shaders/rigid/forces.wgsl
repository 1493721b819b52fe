// Stage `rigid_forces`: force generators that act on every body, run before integrate. Today:
// the book's three-phase explosion (catalogue §14.3) with the errata's corrected piecewise
// forms: the concussion shell rises linearly over k·w behind the front, holds the peak over the
// thickness w, and falls linearly to zero over k·w ahead of it; the chimney pushes hardest on
// its axis, f·(1 − d_xz/radius). The force acts at a body point fixed per body (a hashed
// direction times the lever arm), so bodies spin until that point lines up with the force.
// CPU twin: src/rigid/explosion.rs `rigid_forces`. hash_u32 comes from shaders/common/rng.wgsl.

/// The body-space point the explosion pushes on: a hashed direction times the lever arm.
fn explosion_arm(i: u32, arm: f32) -> vec3<f32> {
    let h = vec3<u32>(hash_u32(3u * i), hash_u32(3u * i + 1u), hash_u32(3u * i + 2u));
    let u = vec3<f32>(h >> vec3<u32>(8u)) * (1.0 / 16777216.0) - vec3<f32>(0.5);
    let l = length(u);
    if (l <= 0.0) {
        return vec3<f32>(0.0, arm, 0.0);
    }
    return u * (arm / l);
}

fn explosion_force(e: Explosion, p: vec3<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = e.detonation.w;
    let rel = p - e.detonation.xyz;
    let d = length(rel);
    var dir = vec3<f32>(0.0, 1.0, 0.0);
    if (d > 0.0) {
        dir = rel / d;
    }
    var f = vec3<f32>(0.0);
    if (t < e.implosion.z && d > e.implosion.x && d < e.implosion.y) {
        f = f - dir * e.implosion.w;
    }
    let speed = e.shock.x;
    let w = e.shock.y;
    let kw = e.misc.x * w;
    if (t < e.shock.w && speed > 0.0) {
        let st = speed * t;
        let peak = e.shock.z * max(0.0, 1.0 - dot(v, dir) / speed);
        let fade = clamp(4.0 * (e.shock.w - t) / e.shock.w, 0.0, 1.0);
        var m = 0.0;
        if (d >= st - kw && d < st) {
            m = peak * (1.0 - (st - d) / kw);
        } else if (d >= st && d < st + w) {
            m = peak;
        } else if (d >= st + w && d < st + w + kw) {
            m = peak * (1.0 - (d - st - w) / kw);
        }
        f = f + dir * (m * fade);
    }
    let dxz = length(rel.xz);
    let radius = e.convection.y;
    if (t < e.convection.w && dxz < radius && rel.y < e.convection.z && rel.y > -radius) {
        f = f + dir * (e.convection.x * (1.0 - dxz / radius));
    }
    return f;
}

@compute @workgroup_size(RIGID_WG)
fn rigid_forces(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.body_count || explosion.misc.y == 0.0) {
        return;
    }
    let b = bodies[i];
    if (b.kind != BODY_DYNAMIC) {
        return;
    }
    let f = explosion_force(explosion, b.pos.xyz, b.lin_vel.xyz);
    if (dot(f, f) == 0.0) {
        return;
    }
    let r = quat_rotate(b.orient, explosion_arm(i, explosion.misc.z));
    bodies[i].force = vec4<f32>(b.force.xyz + f, b.force.w);
    bodies[i].torque = vec4<f32>(b.torque.xyz + cross(r, f), b.torque.w);
    if (b.awake == 0u) {
        bodies[i].awake = 1u;
        bodies[i].last_acc.w = 2.0 * params.sleep_epsilon;
    }
}
