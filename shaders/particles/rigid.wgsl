// Stage `rigid_contacts`: the particles against a rigid world's shapes (spheres, boxes,
// capsules, half-spaces and planes; hulls are skipped) at their bodies' poses in the rigid
// world's own `bodies` and `shapes` buffers, bound as they are (nothing is read back). Each
// shape is turned into a static collider of its pose (a capsule into the sphere about the
// point of its segment nearest the particle) and resolved by the static colliders' rules
// (`collider_contact`, `resolve_contact`) in the frame of the body's surface: a moving body's
// surface velocity at the particle is taken off before and put back after, so a particle rests
// on a moving box as on a still one and friction carries it along. Particles only react.
// Runs after `integrate`, over every live particle, every shape slot for each:
// O(particles × shapes), `params.rigid_shape_count` at most `MAX_RIGID_SHAPES`.
// Reads: params, pos, vel, acc, life (the fields' emitter tag), size, counters.live,
// rigid_bodies, rigid_shapes.
// Writes: pos, vel (of the particles that touched a shape).
// CPU twin: src/particles/rigid.rs `rigid_contacts`, same operation order.

fn rigid_quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(
        a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz),
        a.w * b.w - dot(a.xyz, b.xyz),
    );
}

/// Shape `s` as a static collider of its world pose, for a particle at `p` (kind 0: a shape
/// that collides with nothing here: removed, a hull, or of a body out of range). An offset
/// that is the identity is not applied, so a shape at its body's origin has the body's bits.
fn rigid_shape_collider(s: RigidShape, p: vec3<f32>) -> Collider {
    var c = Collider(0u, s.material.y, s.material.x, 0u, vec4<f32>(0.0), vec4<f32>(0.0),
        vec4<f32>(0.0, 0.0, 0.0, 1.0));
    if (s.kind == 0u || s.kind > 5u || s.body >= arrayLength(&rigid_bodies)) {
        return c;
    }
    let b = rigid_bodies[s.body];
    var centre = b.pos.xyz;
    if (any(s.offset_pos.xyz != vec3<f32>(0.0))) {
        centre = centre + quat_rotate(b.orient, s.offset_pos.xyz);
    }
    var q = b.orient;
    if (any(s.offset_rot != vec4<f32>(0.0, 0.0, 0.0, 1.0))) {
        q = rigid_quat_mul(b.orient, s.offset_rot);
    }
    switch s.kind {
        case 1u: {
            c.kind = 2u;
            c.a = vec4<f32>(centre, s.dims.x);
        }
        case 2u: {
            c.kind = 3u;
            c.a = vec4<f32>(centre, 0.0);
            c.b = vec4<f32>(s.dims.xyz, 0.0);
            c.q = q;
        }
        case 3u: {
            let axis = quat_rotate(q, vec3<f32>(0.0, s.dims.y, 0.0));
            let len2 = dot(axis, axis);
            var t = 0.0;
            if (len2 > 0.0) {
                t = clamp(dot(p - centre, axis) / len2, -1.0, 1.0);
            }
            c.kind = 2u;
            c.a = vec4<f32>(centre + axis * t, s.dims.x);
        }
        default: {
            // Half-space or plane: normal and offset in the shape's frame.
            let n = quat_rotate(q, s.dims.xyz);
            var a = vec4<f32>(n, s.dims.w + dot(n, centre));
            if (s.kind == 5u && dot(n, p) - a.w < 0.0) {
                a = -a;
            }
            c.kind = 1u;
            c.a = a;
        }
    }
    return c;
}

@compute @workgroup_size(WG)
fn rigid_contacts(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= counters.live) {
        return;
    }
    let av = acc[i];
    let inv_mass = av.w;
    if (inv_mass <= 0.0) {
        return;
    }
    let dt = params.dt;
    let r = size[i];
    let pv = pos[i];
    let vv = vel[i];
    var p = pv.xyz;
    var v = vv.xyz;
    let slop = params.contact_slop;
    // First only whether any shape is in reach (as `integrate` does for its colliders: a
    // software adapter runs every branch of a loop's body for all lanes).
    var any_near = false;
    for (var s = 0u; s < params.rigid_shape_count; s = s + 1u) {
        let c = rigid_shape_collider(rigid_shapes[s], p);
        any_near = any_near | (c.kind != 0u && collider_in_reach(c, p, r, slop));
    }
    if (!any_near) {
        return;
    }
    // The resting-contact fix reads the acceleration at the integrated state.
    let acc_total = av.xyz + field_acceleration(p, v, inv_mass, life[i].kind >> KIND_CURVES_SHIFT);
    var touched = false;
    for (var s = 0u; s < params.rigid_shape_count; s = s + 1u) {
        let shape = rigid_shapes[s];
        let c = rigid_shape_collider(shape, p);
        if (c.kind != 0u && collider_in_reach(c, p, r, slop)) {
            let contact = collider_contact(c, p, r);
            if (contact.w > -slop) {
                let b = rigid_bodies[shape.body];
                let vs = b.lin_vel.xyz + cross(b.ang_vel.xyz, p - b.pos.xyz);
                let moving = any(vs != vec3<f32>(0.0));
                var vr = v;
                if (moving) {
                    vr = v - vs;
                }
                let res = resolve_contact(Body(p, vr), c, contact, acc_total, dt);
                p = res.p;
                v = res.v;
                if (moving) {
                    v = res.v + vs;
                }
                touched = true;
            }
        }
    }
    if (touched) {
        pos[i] = vec4<f32>(p, pv.w);
        vel[i] = vec4<f32>(v, vv.w);
    }
}
