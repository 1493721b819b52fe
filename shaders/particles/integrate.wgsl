// Stage `integrate`: forces, the book's integrator, static colliders, ageing and death, in one
// fused kernel so particle state is read once and written once per step.
// Reads: params, pos, vel, acc, life, size, colliders, rules, the removals in scratch,
// counters.live.
// Writes: pos, vel, life, colour (fireworks, curves), size (curves), the flags in scratch (dead
// bit | killed by the bounds << 1 | payload count << 2; a live particle may have a payload: a
// sub-emitter's children on impact).
// CPU twin: src/particles/cpu.rs `integrate`, same operation order.

/// Acceleration from the force fields acting on a particle of emitter slot `eslot` - 1 (0:
/// not an emitter's): every global field (tag 0) and that emitter's local ones, summed in table
/// order.
// Features a pipeline may be compiled without (src/particles/gpu/integrate.rs): the host runs
// a variant without one only on steps where its branch cannot be taken, so every variant gives
// the same results, and a kernel without the code of what a world does not use runs faster
// (on lavapipe the code costs where it is compiled in, taken or not). FIELD_TURBULENCE is in
// fields.wgsl.
/// The depth collider (`depth.flags` bit 0 may be set).
override DEPTH_COLLIDER: bool = true;
/// Fireworks (a particle's kind may name a firework rule).
override FIREWORKS: bool = true;
/// Emitters' particles (a particle's kind may name an emitter slot: life curves, sub-emitters).
override EMITTERS: bool = true;

fn field_acceleration(p: vec3<f32>, v: vec3<f32>, inv_mass: f32, eslot: u32) -> vec3<f32> {
    var a = vec3<f32>(0.0);
    for (var f = 0u; f < params.field_count; f = f + 1u) {
        let tag = params.fields[f].kind >> FIELD_EMITTER_SHIFT;
        if (tag == 0u || tag == eslot) {
            a = a + field_accel_one(params.fields[f], p, v, inv_mass);
        }
    }
    return a;
}

fn is_removed(id: u32) -> bool {
    // The removal list is sorted: binary search.
    var lo = 0u;
    var hi = params.removal_count;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        let x = scratch[removal_base() + mid];
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

    // Whether it struck a collider this step (approaching it when the contact was resolved),
    // and whether the depth collider killed it.
    var hit = false;
    var depth_kill = false;
    if (inv_mass > 0.0) {
        let acc_total = av.xyz + field_acceleration(p, v, inv_mass, life_i.kind >> KIND_CURVES_SHIFT);
        p = p + v * dt;
        v = v + acc_total * dt;
        var keep = 0.0;
        if (vv.w > 0.0) {
            keep = pow(vv.w, dt);
        }
        v = v * keep;
        // The colliders in table order, behind a first loop that asks only whether any is in
        // reach (`collider_in_reach`; a software adapter runs every branch of a loop's body for
        // all lanes, so most of a cloud, far from every collider, skips the contacts' code).
        var any_near = false;
        for (var c = 0u; c < params.collider_count; c = c + 1u) {
            any_near = any_near | collider_in_reach(colliders[c], p, r, params.contact_slop);
        }
        if (any_near) {
            for (var c = 0u; c < params.collider_count; c = c + 1u) {
                let col = colliders[c];
                if (collider_in_reach(col, p, r, params.contact_slop)) {
                    let contact = collider_contact(col, p, r);
                    if (contact.w > -params.contact_slop) {
                        hit = hit || dot(v, contact.xyz) < 0.0;
                        let b = resolve_contact(Body(p, v), col, contact, acc_total, dt);
                        p = b.p;
                        v = b.v;
                    }
                }
            }
        }
        if (DEPTH_COLLIDER && (depth.flags & 1u) != 0u) {
            let contact = depth_contact(p, r);
            // Touching within a step of its acceleration's travel: a particle resting on a
            // drawn surface (which the step's gravity moves by that much) stays in contact.
            let reach = max(params.contact_slop, length(acc_total) * dt * dt);
            if (contact.w > -reach) {
                hit = hit || dot(v, contact.xyz) < 0.0;
                let surface = Collider(1u, depth.restitution, depth.friction, 0u, vec4<f32>(0.0),
                    vec4<f32>(0.0), vec4<f32>(0.0));
                let b = resolve_contact(Body(p, v), surface, contact, acc_total, dt);
                p = b.p;
                v = b.v;
                depth_kill = (depth.flags & 2u) != 0u;
            }
        }
    }
    dead = dead || depth_kill;

    // A particle the host holds a handle for (a plain particle with a host id) that only the
    // bounds kill is flagged, so `emit` lists it for the host: no other death of it is news to
    // the host (removals and lifetimes it knows itself).
    var bounds = false;
    if (params.kill_bounds != 0u && (any(p < params.kill_min.xyz) || any(p > params.kill_max.xyz))) {
        bounds = !dead && life_i.kind == 0u && (life_i.id & GPU_ID_BIT) == 0u;
        dead = true;
    }
    var payload = 0u;
    let firework = life_i.kind & KIND_FIREWORK_MASK;
    if (FIREWORKS && firework != 0u) {
        // Book 4.2: a firework also bursts when it falls below the ground.
        dead = dead || p.y < 0.0;
        let rule = rules[firework - 1u];
        if (dead && !removed) {
            payload = rule.children;
        }
        var t = 1.0;
        if (life_i.lifetime > 0.0) {
            t = clamp(1.0 - life_i.age / life_i.lifetime, 0.0, 1.0);
        }
        colour[i] = rule.colour * t;
    }

    // Sub-emitters: an emitted particle's children on death, or on striking a collider (then
    // it lives on); they are payload like a firework's, placed by `emit`.
    let eslot = life_i.kind >> KIND_CURVES_SHIFT;
    if (EMITTERS && eslot != 0u && firework == 0u && !removed) {
        let sub = emitters[eslot - 1u].sub;
        if (dead && sub.x != 0u) {
            payload = sub.y;
        } else if (!dead && hit && sub.z != 0u) {
            payload = sub.w;
        }
    }

    // Life curves (an emitter's colour gradient and size curve), at the new age.
    let curve_set = life_i.kind >> KIND_CURVES_SHIFT;
    if (EMITTERS && curve_set != 0u) {
        let cs = curve_set - 1u;
        let t = clamp(life_i.age / life_i.lifetime, 0.0, 1.0);
        if (curves[cs].counts.x != 0u) {
            colour[i] = curve_colour(cs, t);
        }
        if (curves[cs].counts.y != 0u) {
            size[i] = curve_size(cs, t);
        }
    }

    pos[i] = vec4<f32>(p, pv.w);
    vel[i] = vec4<f32>(v, vv.w);
    life[i] = life_i;
    // Only the lifecycle stages read the flags: skip the store when they do not run.
    if (params.lifecycle != 0u) {
        scratch[i] = select(0u, 1u | select(0u, 2u, bounds), dead) | (payload << 2u);
    }
}
