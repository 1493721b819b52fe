// Stage `rigid_contacts`: the particles against a rigid world's shapes (spheres, boxes,
// capsules, half-spaces and planes; hulls are skipped) at their bodies' poses in the rigid
// world's own `bodies` and `shapes` buffers, bound as they are (nothing is read back). Each
// shape is turned into a static collider of its pose (a capsule into the sphere about the
// point of its segment nearest the particle) and resolved by the static colliders' rules
// (`collider_contact`, `resolve_contact`) in the frame of the body's surface: a moving body's
// surface velocity at the particle is taken off before and put back after, so a particle rests
// on a moving box as on a still one and friction carries it along. Particles only react.
// Runs after `integrate`, over every live particle, every shape slot for each: first each
// slot's bounding sphere (`rigid_shape_bound`, `rigid_bound_near`) from tiles of WG shapes in
// workgroup memory, then, in a workgroup with a particle near a shape, the contacts in slot
// order: O(particles × shapes), `params.rigid_shape_count` at most `MAX_RIGID_SHAPES`
// (RigidLookup::All; the grid of rigid_cells.wgsl is the default). A shape whose collision
// groups do not meet the particle's (`particle_groups`, `rigid_groups_meet`) is skipped.
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
    // A sensor (material w) pushes nothing, particles included.
    if (s.kind == 0u || s.kind > 5u || s.body >= arrayLength(&rigid_bodies) || s.material.w != 0.0) {
        return c;
    }
    // Only the fields read are loaded (a software adapter copies a whole struct otherwise).
    let orient = rigid_bodies[s.body].orient;
    var centre = rigid_bodies[s.body].pos.xyz;
    if (any(s.offset_pos.xyz != vec3<f32>(0.0))) {
        centre = centre + quat_rotate(orient, s.offset_pos.xyz);
    }
    var q = orient;
    if (any(s.offset_rot != vec4<f32>(0.0, 0.0, 0.0, 1.0))) {
        q = rigid_quat_mul(orient, s.offset_rot);
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

/// Shape slot `si`'s bounding sphere for `rigid_bound_near`: its centre (xyz) and radius (w:
/// the sphere's radius; the box's half extents' length; the capsule's radius + half segment),
/// or w = −1 for a shape that collides with nothing here, −2 for a half-space or plane (always
/// in reach). Read field by field (a software adapter copies a whole struct otherwise).
fn rigid_shape_bound(si: u32) -> vec4<f32> {
    let kind = rigid_shapes[si].kind;
    let body = rigid_shapes[si].body;
    if (kind == 0u || kind > 5u || body >= arrayLength(&rigid_bodies)
        || rigid_shapes[si].material.w != 0.0) {
        return vec4<f32>(0.0, 0.0, 0.0, -1.0);
    }
    if (kind >= 4u) {
        return vec4<f32>(0.0, 0.0, 0.0, -2.0);
    }
    let dims = rigid_shapes[si].dims;
    let offset = rigid_shapes[si].offset_pos.xyz;
    var centre = rigid_bodies[body].pos.xyz;
    if (any(offset != vec3<f32>(0.0))) {
        centre = centre + quat_rotate(rigid_bodies[body].orient, offset);
    }
    var bound = dims.x;
    if (kind == 2u) {
        bound = length(dims.xyz);
    } else if (kind == 3u) {
        bound = dims.x + dims.y;
    }
    return vec4<f32>(centre, bound);
}

/// Whether a shape of bounding sphere `b` (`rigid_shape_bound`) may touch a sphere of radius
/// `r` at `p` within `slop`: true for every shape `collider_in_reach` accepts, so skipping the
/// others leaves the same bits. Within the bounding sphere + r + slop, with `REACH_SLACK` on
/// the squared distance: for a sphere or a box `collider_in_reach`'s own test; a capsule's
/// collider, the sphere about the point of the segment nearest `p`, is within the segment's
/// half length of the centre.
fn rigid_bound_near(b: vec4<f32>, p: vec3<f32>, r: f32, slop: f32) -> bool {
    if (b.w == -2.0) {
        return true;
    }
    let d = p - b.xyz;
    let ext = b.w + r + slop;
    return b.w >= 0.0 && dot(d, d) <= ext * ext * REACH_SLACK;
}

/// The collision group (x) and mask (y) of the particles of emitter tag `tag` (0: no emitter,
/// else 1 + the emitter's slot; tags past MAX_EMITTERS read as the last).
fn particle_groups(tag: u32) -> vec2<u32> {
    let e = min(tag, MAX_EMITTERS);
    let q = params.rigid_groups[e / 2u];
    if (e % 2u == 0u) {
        return q.xy;
    }
    return q.zw;
}

/// Whether a particle of collision `groups` (group, mask) and shape slot `si` may collide, as
/// two rigid shapes: (group & shape.mask) != 0 && (shape.group & mask) != 0.
fn rigid_groups_meet(si: u32, groups: vec2<u32>) -> bool {
    return (groups.x & rigid_shapes[si].mask) != 0u && (rigid_shapes[si].group & groups.y) != 0u;
}

/// A particle after `rigid_touch`.
struct RigidTouch {
    p: vec3<f32>,
    v: vec3<f32>,
    touched: bool,
}

/// Shape slot `si` (its bounding sphere in reach: the caller asks `rigid_bound_near` first)
/// against a particle of radius `r` at `p` moving at `v`: skipped out of reach of the groups or
/// of its collider, else its collider resolved in the frame of its body's surface (a moving
/// body's surface velocity at the particle taken off before and put back after).
fn rigid_touch(si: u32, groups: vec2<u32>, p: vec3<f32>, v: vec3<f32>, r: f32,
    acc_total: vec3<f32>) -> RigidTouch {
    var out = RigidTouch(p, v, false);
    let slop = params.contact_slop;
    if (!rigid_groups_meet(si, groups)) {
        return out;
    }
    let shape = rigid_shapes[si];
    let c = rigid_shape_collider(shape, p);
    if (c.kind != 0u && collider_in_reach(c, p, r, slop)) {
        let contact = collider_contact(c, p, r);
        if (contact.w > -slop) {
            let lin = rigid_bodies[shape.body].lin_vel.xyz;
            let ang = rigid_bodies[shape.body].ang_vel.xyz;
            let vs = lin + cross(ang, p - rigid_bodies[shape.body].pos.xyz);
            let moving = any(vs != vec3<f32>(0.0));
            var vr = v;
            if (moving) {
                vr = v - vs;
            }
            let res = resolve_contact(Body(p, vr), c, contact, acc_total, params.dt);
            out.p = res.p;
            out.v = res.v;
            if (moving) {
                out.v = res.v + vs;
            }
            out.touched = true;
        }
    }
    return out;
}

/// A tile of WG shapes' bounding spheres, which the workgroup's particles test from workgroup
/// memory (each thread computes one).
var<workgroup> rigid_tile: array<vec4<f32>, WG>;

/// Whether a particle of the workgroup is near a shape (the second pass runs only then), and
/// that answer as a plain word for `workgroupUniformLoad`.
var<workgroup> rigid_near_seen: atomic<u32>;
var<workgroup> rigid_near_any: u32;

/// Fills `rigid_tile` with the bounding spheres of shape slots `[base, base + WG)` (−1 past
/// the count). Every thread of the workgroup calls it (it holds barriers).
fn rigid_fill_tile(base: u32, li: u32) {
    workgroupBarrier();
    var b = vec4<f32>(0.0, 0.0, 0.0, -1.0);
    if (base + li < params.rigid_shape_count) {
        b = rigid_shape_bound(base + li);
    }
    rigid_tile[li] = b;
    workgroupBarrier();
}

@compute @workgroup_size(WG)
fn rigid_contacts(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    // No early return: every thread takes part in the tiles' barriers.
    let i = gid.x;
    var moves = i < counters.live;
    var av = vec4<f32>(0.0);
    var pv = vec4<f32>(0.0);
    var vv = vec4<f32>(0.0);
    var r = 0.0;
    if (moves) {
        av = acc[i];
        pv = pos[i];
        vv = vel[i];
        r = size[i];
        moves = av.w > 0.0;
    }
    let inv_mass = av.w;
    let dt = params.dt;
    var p = pv.xyz;
    var v = vv.xyz;
    let slop = params.contact_slop;
    let count = params.rigid_shape_count;
    if (li == 0u) {
        atomicStore(&rigid_near_seen, 0u);
    }
    workgroupBarrier();
    // First only whether any shape may be in reach, from the tiles (as `integrate` asks of
    // its colliders first: a software adapter runs every branch of a loop's body for all
    // lanes, and reads workgroup memory far faster than the shapes' buffers).
    var any_near = false;
    for (var base = 0u; base < count; base = base + WG) {
        rigid_fill_tile(base, li);
        let n = min(WG, count - base);
        for (var k = 0u; k < n; k = k + 1u) {
            any_near = any_near | rigid_bound_near(rigid_tile[k], p, r, slop);
        }
    }
    // The contacts, tile by tile, in slot order, when a particle of the workgroup is near a
    // shape.
    moves = moves && any_near;
    if (moves) {
        atomicOr(&rigid_near_seen, 1u);
    }
    workgroupBarrier();
    if (li == 0u) {
        rigid_near_any = atomicLoad(&rigid_near_seen);
    }
    if (workgroupUniformLoad(&rigid_near_any) == 0u) {
        return;
    }
    var acc_total = vec3<f32>(0.0);
    var life_tag = 0u;
    if (moves) {
        // The resting-contact fix reads the acceleration at the integrated state.
        life_tag = life[i].kind >> KIND_CURVES_SHIFT;
        acc_total = av.xyz + field_acceleration(p, v, inv_mass, life_tag);
    }
    let groups = particle_groups(life_tag);
    var touched = false;
    for (var base = 0u; base < count; base = base + WG) {
        rigid_fill_tile(base, li);
        let n = min(WG, count - base);
        for (var k = 0u; k < n; k = k + 1u) {
            if (!moves || !rigid_bound_near(rigid_tile[k], p, r, slop)) {
                continue;
            }
            let t = rigid_touch(base + k, groups, p, v, r, acc_total);
            p = t.p;
            v = t.v;
            touched = touched || t.touched;
        }
    }
    if (touched) {
        pos[i] = vec4<f32>(p, pv.w);
        vel[i] = vec4<f32>(v, vv.w);
    }
}
