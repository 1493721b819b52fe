// Pairs with a hull (part of stage `narrow`): sphere–hull and capsule–hull by GJK and EPA (a
// capsule lying on a face clipped to it), box–hull and hull–hull by SAT with face clipping,
// hull–half-space and hull–plane by the deepest vertices. CPU twin: src/rigid/narrow/hull.rs
// (read its docs: the methods and feature ids), same operation order, over the hull routines of
// shaders/rigid/hull/.
//
// The stage runs as two kernels on the GPU: `narrow` over every pair (a hull pair gets its
// bodies, shapes in the narrow phase's order, materials and friction, and no contacts), then,
// only in worlds with hulls, `narrow_hull` over the same slots, which adds a hull pair's
// contacts to the manifold `narrow` wrote. So the hull routines' code and private arrays (GJK's
// simplex, EPA's polytope, the clipping buffers) stay out of the kernel every world runs, and
// what that kernel computes is unchanged. Pairs with level geometry get theirs from a third
// kernel, `narrow_mesh` (mesh.wgsl), in worlds holding meshes or heightfields.

/// narrow/hull.rs `HULL_FACE_EPS` (box–capsule's FACE_EPS).
const NC_HULL_FACE_EPS: f32 = 1e-4;

/// The hull a shape names: a hull's header (dims.x), or a box as the scaled unit cube.
fn nc_shape_hull(s: Shape) -> HullRef {
    if (s.kind == SHAPE_BOX) {
        return hull_cuboid(s.dims.xyz);
    }
    return hull_ref(u32(s.dims.x));
}

/// The support-function view of a bounded shape at its pose (narrow/hull.rs `convex_of`).
fn nc_convex_of(s: Shape, pose: NcPose) -> ConvexShape {
    let frame = hull_frame(pose.pos, pose.rot);
    switch s.kind {
        case SHAPE_SPHERE: {
            return cs_sphere(frame, s.dims.x);
        }
        case SHAPE_CAPSULE: {
            return cs_capsule(frame, s.dims.y, s.dims.x);
        }
        case SHAPE_BOX: {
            return cs_cuboid(frame, s.dims.xyz);
        }
        default: {
            return cs_hull(frame, hull_ref(u32(s.dims.x)));
        }
    }
}

/// A capsule a whose contact normal n is a face normal of hull b: the segment clipped to that
/// face (narrow/hull.rs `capsule_on_face`). False when nothing was added.
fn nc_capsule_on_face(m: ptr<function, Manifold>, margin: f32, a: ConvexShape, b: ConvexShape,
                      n: vec3<f32>) -> bool {
    let h = b.hull;
    let nl = hull_frame_inv_dir(b.frame, n);
    var face = 0u;
    var best = dot(hull_plane(h, 0u).xyz, nl);
    for (var f = 1u; f < min(h.face_count, HULL_MAX_FACES); f++) {
        let d = dot(hull_plane(h, f).xyz, nl);
        if (nc_beats(d, best)) {
            best = d;
            face = f;
        }
    }
    if (best < 1.0 - NC_HULL_FACE_EPS) {
        return false;
    }
    let pl = hull_plane(h, face);
    let nf = pl.xyz;
    let half = hull_frame_dir(a.frame, vec3<f32>(0.0, a.dims.y, 0.0));
    let p0 = hull_frame_inv_point(b.frame, a.frame.pos - half);
    let d = hull_frame_inv_point(b.frame, a.frame.pos + half) - p0;
    let lp = hull_face(h, face);
    let nv = min(lp.y, HULL_MAX_VERTICES);
    var t0 = 0.0;
    var t1 = 1.0;
    for (var k = 0u; k < nv; k++) {
        let v0 = hull_vertex(h, hull_loop_vertex(h, lp, k));
        let v1 = hull_vertex(h, hull_loop_vertex(h, lp, (k + 1u) % nv));
        let side = cross(v1 - v0, nf);
        let s0 = dot(side, p0 - v0);
        let sd = dot(side, d);
        if (abs(sd) <= 1e-12) {
            if (s0 > 0.0) {
                t0 = 1.0;
                t1 = 0.0;
            }
        } else {
            let t = -s0 / sd;
            if (sd > 0.0) {
                t1 = min(t1, t);
            } else {
                t0 = max(t0, t);
            }
        }
    }
    if (t0 > t1) {
        return false;
    }
    let r = a.dims.w;
    let c0 = (*m).count;
    var t = t0;
    for (var e = 0u; e < 2u; e++) {
        if (e == 1u) {
            if (t1 - t0 <= 1e-6) {
                break;
            }
            t = t1;
        }
        let p = p0 + d * t;
        let height = dot(nf, p) - pl.w;
        if (height - r < margin) {
            let mid = p - nf * ((r + height) * 0.5);
            nc_add_contact(m, hull_frame_point(b.frame, mid), r - height, 2u + 2u * face + e);
        }
    }
    if ((*m).count > c0) {
        (*m).normal = vec4<f32>(hull_frame_dir(b.frame, nf), 0.0);
        return true;
    }
    return false;
}

/// A sphere or capsule a against hull b (narrow/hull.rs `round_hull`).
fn nc_round_hull(m: ptr<function, Manifold>, margin: f32, a: ConvexShape, b: ConvexShape) {
    let g = gjk(a, b);
    var n = g.normal;
    var pen = -g.distance;
    var pa = g.point_a;
    var pb = g.point_b;
    if (g.overlap) {
        let e = epa(a, b, g);
        if (!e.ok) {
            return;
        }
        n = e.normal;
        pen = e.depth;
        pa = e.point_a;
        pb = e.point_b;
    }
    if (-pen >= margin) {
        return;
    }
    if (a.kind == CORE_SEGMENT && nc_capsule_on_face(m, margin, a, b, n)) {
        return;
    }
    (*m).normal = vec4<f32>(n, 0.0);
    nc_add_contact(m, (pa + pb) * 0.5, pen, 0u);
}

/// A hull and a half-space or two-sided plane: the four deepest vertices within the margin
/// (narrow/hull.rs `hull_plane`).
fn nc_hull_plane(m: ptr<function, Manifold>, margin: f32, s: Shape, pa: NcPose, n0: vec3<f32>,
                 off0: f32, two_sided: bool) {
    var n = n0;
    var off = off0;
    var side = 0u;
    if (two_sided && dot(n, pa.pos) - off < 0.0) {
        n = -n;
        off = -off;
        side = 64u;
    }
    let h = nc_shape_hull(s);
    let f = hull_frame(pa.pos, pa.rot);
    for (var i = 0u; i < min(h.vertex_count, HULL_MAX_VERTICES); i++) {
        let v = hull_frame_point(f, hull_vertex(h, i));
        let depth = off - dot(n, v);
        if (depth > -margin) {
            nc_add_contact(m, v + n * (depth * 0.5), depth, i + side);
        }
    }
    if ((*m).count > 0u) {
        (*m).normal = vec4<f32>(n, 0.0);
    }
}

/// The manifold of a pair with a hull (narrow/hull.rs `hull_pair`); sa comes first in the
/// narrow phase's order.
fn nc_hull_pair(m: ptr<function, Manifold>, margin: f32, sa: Shape, pa: NcPose, sb: Shape,
                pb: NcPose) {
    if (sa.kind == SHAPE_HULL && (sb.kind == SHAPE_HALF_SPACE || sb.kind == SHAPE_PLANE)) {
        let pl = nc_plane_world(pb, sb.dims);
        nc_hull_plane(m, margin, sa, pa, pl.n, pl.off, sb.kind == SHAPE_PLANE);
    } else if ((sa.kind == SHAPE_BOX || sa.kind == SHAPE_HULL) && sb.kind == SHAPE_HULL) {
        let hm = hull_hull(nc_shape_hull(sa), hull_frame(pa.pos, pa.rot), nc_shape_hull(sb),
                           hull_frame(pb.pos, pb.rot), margin);
        for (var i = 0u; i < min(hm.count, 4u); i++) {
            nc_add_contact(m, hm.points[i].xyz, hm.points[i].w, hm.features[i]);
        }
        if ((*m).count > 0u) {
            (*m).normal = vec4<f32>(hm.normal, 0.0);
        }
    } else if ((sa.kind == SHAPE_SPHERE || sa.kind == SHAPE_CAPSULE) && sb.kind == SHAPE_HULL) {
        nc_round_hull(m, margin, nc_convex_of(sa, pa), nc_convex_of(sb, pb));
    }
}

/// Whether a manifold's (ordered) shapes make a hull pair.
fn nc_is_hull_pair(ka: u32, kb: u32) -> bool {
    return kb == SHAPE_HULL || (ka == SHAPE_HULL && (kb == SHAPE_HALF_SPACE || kb == SHAPE_PLANE));
}

/// Pair slot k as the kernels after `narrow` read it (`narrow_hull`, `narrow_mesh` in mesh.wgsl):
/// its manifold and ordered shapes; `ok` is false for a slot past the pairs, a shape out of
/// range or two shapes of one body (all left alone).
struct NcSlot {
    ok: bool,
    m: Manifold,
    sa: Shape,
    sb: Shape,
}

fn nc_slot(k: u32) -> NcSlot {
    var slot: NcSlot;
    let n = min(min(atomicLoad(&counters[COUNTER_PAIRS]), params.pair_capacity),
                arrayLength(&manifolds));
    if (k >= n) {
        return slot;
    }
    slot.m = manifolds[k];
    let ns = arrayLength(&shapes);
    if (slot.m.shape_a >= ns || slot.m.shape_b >= ns) {
        return slot;
    }
    slot.sa = shapes[slot.m.shape_a];
    slot.sb = shapes[slot.m.shape_b];
    slot.ok = slot.sa.body != slot.sb.body || slot.sa.body == NONE;
    return slot;
}

// One thread per pair slot k below the pairs `narrow` handled: the contacts of a hull pair,
// into the manifold `narrow` left with none (its shapes already in the narrow phase's order).
// Other slots are left alone (pairs with level geometry are `narrow_mesh`'s, mesh.wgsl).
@compute @workgroup_size(RIGID_WG)
fn narrow_hull(@builtin(global_invocation_id) gid: vec3<u32>) {
    let s = nc_slot(gid.x);
    if (!s.ok || !nc_is_hull_pair(s.sa.kind, s.sb.kind)) {
        return;
    }
    var m = s.m;
    let pa = nc_shape_pose(s.sa);
    nc_hull_pair(&m, params.contact_margin, s.sa, pa, s.sb, nc_shape_pose(s.sb));
    m.normal.w = s.m.normal.w; // the friction `narrow` combined
    manifolds[gid.x] = m;
}
