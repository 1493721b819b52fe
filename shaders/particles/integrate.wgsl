// Stage `integrate`: forces, the book's integrator, static colliders, ageing and death, in one
// fused kernel so particle state is read once and written once per step.
// Reads: params, pos, vel, acc, life, size, colliders, rules, removals, counters.live.
// Writes: pos, vel, life, colour (fireworks only), flags (dead bit | payload count << 1).
// CPU twin: src/particles/cpu.rs `integrate`, same operation order.

fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

/// Acceleration from the world's force fields (gravity and attractor are mass independent,
/// drag and wind are forces scaled by the inverse mass).
fn field_acceleration(p: vec3<f32>, v: vec3<f32>, inv_mass: f32) -> vec3<f32> {
    var a = vec3<f32>(0.0);
    for (var f = 0u; f < params.field_count; f = f + 1u) {
        let fld = params.fields[f];
        if (fld.kind == 1u) {
            a = a + fld.v.xyz;
        } else if (fld.kind == 2u || fld.kind == 3u) {
            // Drag k1|u| + k2|u|^2 against the velocity relative to the air (still air for drag).
            var u = v;
            if (fld.kind == 3u) {
                u = v - fld.v.xyz;
            }
            let speed = length(u);
            if (speed > 0.0) {
                let mag = fld.k1 * speed + fld.k2 * speed * speed;
                a = a - u * (mag / speed) * inv_mass;
            }
        } else if (fld.kind == 4u) {
            // Softened inverse-square pull towards the centre.
            let d = fld.v.xyz - p;
            let r2 = dot(d, d) + fld.radius * fld.radius;
            a = a + d * (fld.v.w / (r2 * sqrt(r2)));
        }
    }
    return a;
}

/// Penetration (positive when overlapping) and outward normal of a sphere of radius `r` at `p`.
fn collider_contact(c: Collider, p: vec3<f32>, r: f32) -> vec4<f32> {
    if (c.kind == 1u) {
        let n = c.a.xyz;
        return vec4<f32>(n, r - (dot(n, p) - c.a.w));
    }
    if (c.kind == 2u) {
        let d = p - c.a.xyz;
        let len = length(d);
        var n = vec3<f32>(0.0, 1.0, 0.0);
        if (len > 0.0) {
            n = d / len;
        }
        return vec4<f32>(n, c.a.w + r - len);
    }
    // Oriented box: work in box space.
    let conj = vec4<f32>(-c.q.xyz, c.q.w);
    let lp = quat_rotate(conj, p - c.a.xyz);
    let h = c.b.xyz;
    let closest = clamp(lp, -h, h);
    let diff = lp - closest;
    let dist = length(diff);
    if (dist > 0.0) {
        return vec4<f32>(quat_rotate(c.q, diff / dist), r - dist);
    }
    // Centre inside: leave through the nearest face.
    let depth = h - abs(lp);
    var axis = 0u;
    if (depth.y < depth.x) {
        axis = 1u;
    }
    if (depth.z < depth[axis]) {
        axis = 2u;
    }
    var n_local = vec3<f32>(0.0);
    n_local[axis] = select(-1.0, 1.0, lp[axis] >= 0.0);
    return vec4<f32>(quat_rotate(c.q, n_local), depth[axis] + r);
}

struct Body {
    p: vec3<f32>,
    v: vec3<f32>,
}

/// Pushes the particle out along the normal and applies restitution and Coulomb friction. The
/// velocity that this step's acceleration built along the normal is taken out of the rebound
/// (the book's resting-contact fix), so a resting particle stays put instead of jittering.
fn resolve_contact(b_in: Body, c: Collider, contact: vec4<f32>, acc_total: vec3<f32>, dt: f32) -> Body {
    var b = b_in;
    let n = contact.xyz;
    let pen = contact.w;
    if (pen > 0.0) {
        b.p = b.p + n * pen;
    }
    let vn = dot(b.v, n);
    if (vn < 0.0) {
        var new_vn = -c.restitution * vn;
        let acc_vn = dot(acc_total, n) * dt;
        if (acc_vn < 0.0) {
            new_vn = max(new_vn + c.restitution * acc_vn, 0.0);
        }
        let vt = b.v - n * vn;
        let vt_len = length(vt);
        var scale = 0.0;
        if (vt_len > 0.0) {
            scale = max(vt_len - c.friction * (new_vn - vn), 0.0) / vt_len;
        }
        b.v = vt * scale + n * new_vn;
    }
    return b;
}

fn is_removed(id: u32) -> bool {
    // The removal list is sorted: binary search.
    var lo = 0u;
    var hi = params.removal_count;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        let x = removals[mid];
        if (x == id) {
            return true;
        }
        if (x < id) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return false;
}

@compute @workgroup_size(WG)
fn integrate(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= counters.live) {
        return;
    }
    let dt = params.dt;
    var life_i = life[i];
    let pv = pos[i];
    let vv = vel[i];
    let av = acc[i];
    let r = size[i];
    var p = pv.xyz;
    var v = vv.xyz;
    let inv_mass = av.w;

    var removed = false;
    if (params.removal_count > 0u && is_removed(life_i.id)) {
        removed = true;
    }
    life_i.age = life_i.age + dt;
    var dead = removed || (life_i.lifetime >= 0.0 && life_i.age >= life_i.lifetime);

    if (inv_mass > 0.0) {
        let acc_total = av.xyz + field_acceleration(p, v, inv_mass);
        p = p + v * dt;
        v = v + acc_total * dt;
        var keep = 0.0;
        if (vv.w > 0.0) {
            keep = pow(vv.w, dt);
        }
        v = v * keep;
        for (var c = 0u; c < params.collider_count; c = c + 1u) {
            let col = colliders[c];
            let contact = collider_contact(col, p, r);
            if (contact.w > -params.contact_slop) {
                let b = resolve_contact(Body(p, v), col, contact, acc_total, dt);
                p = b.p;
                v = b.v;
            }
        }
    }

    if (params.kill_bounds != 0u && (any(p < params.kill_min.xyz) || any(p > params.kill_max.xyz))) {
        dead = true;
    }
    var payload = 0u;
    if (life_i.kind != 0u) {
        // Book 4.2: a firework also bursts when it falls below the ground.
        dead = dead || p.y < 0.0;
        let rule = rules[life_i.kind - 1u];
        if (dead && !removed) {
            payload = rule.children;
        }
        var t = 1.0;
        if (life_i.lifetime > 0.0) {
            t = clamp(1.0 - life_i.age / life_i.lifetime, 0.0, 1.0);
        }
        colour[i] = rule.colour * t;
    }

    pos[i] = vec4<f32>(p, pv.w);
    vel[i] = vec4<f32>(v, vv.w);
    life[i] = life_i;
    flags[i] = select(0u, 1u | (payload << 1u), dead);
}
