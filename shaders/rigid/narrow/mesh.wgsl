// Pairs with level geometry: a sphere, box, capsule or hull against a static triangle mesh or
// heightfield stored in `hulls`. CPU twin: src/rigid/narrow/mesh.rs (the method, the manifold,
// the feature ids), same functions in the same operation order, over the stored words
// (shaders/rigid/mesh/layout.wgsl) and a ball's and a capsule's triangle contacts
// (shaders/rigid/mesh/contact.wgsl). Run by `narrow_mesh` (below), a kernel of its own so the
// steps of worlds without level geometry never run or compile this code (`precompile` compiles
// every kernel).
//
// Loops are bounded for software adapters: the BVH walk makes at most one trip per node, a
// leaf holds at most MESH_LEAF_SIZE triangles, the heightfield walk at most MESH_MAX_CELLS
// cells (both from the prelude; of more, the first row by row from the query's low-z row, each
// row from its low-x end). Mesa's lavapipe also breaks a group's loops after 65,535 trips in all,
// so the polytope–triangle SAT makes one trip per polytope vertex, face and edge (see
// narrow/mesh.rs, "Software adapters").

/// narrow/mesh.rs `MESH_NORMAL_COS`, `MESH_AXIS_REL`, `MESH_AXIS_ABS`.
const MESH_NORMAL_COS: f32 = 0.9063078;
const MESH_AXIS_REL: f32 = 0.05;
const MESH_AXIS_ABS: f32 = 1e-4;
const MESH_CLIP: u32 = HULL_MAX_CLIP + 4u;

struct MeshCandidates {
    n: u32,
    point: array<vec3<f32>, HULL_MAX_CLIP>,
    normal: array<vec3<f32>, HULL_MAX_CLIP>,
    depth: array<f32, HULL_MAX_CLIP>,
    feature: array<u32, HULL_MAX_CLIP>,
}

fn mesh_candidates_add(c: ptr<function, MeshCandidates>, point: vec3<f32>, normal: vec3<f32>,
                       depth: f32, feature: u32) {
    var k = (*c).n;
    if ((*c).n == HULL_MAX_CLIP) {
        k = 0u;
        for (var i = 1u; i < HULL_MAX_CLIP; i++) {
            if ((*c).depth[i] < (*c).depth[k]) {
                k = i;
            }
        }
        if (depth <= (*c).depth[k]) {
            return;
        }
    } else {
        (*c).n += 1u;
    }
    (*c).point[k] = point;
    (*c).normal[k] = normal;
    (*c).depth[k] = depth;
    (*c).feature[k] = feature;
}

struct MeshPolytope {
    hull: HullRef,
    vertex_count: u32,
    face_count: u32,
    vertices: array<vec3<f32>, HULL_MAX_VERTICES>,
    planes: array<vec4<f32>, HULL_MAX_FACES>,
    centre: vec3<f32>,
    size: f32,
}

fn mesh_polytope(p: ptr<function, MeshPolytope>, s: Shape, pose: NcPose) {
    let hull = nc_shape_hull(s);
    (*p).hull = hull;
    (*p).vertex_count = min(hull.vertex_count, HULL_MAX_VERTICES);
    (*p).face_count = min(hull.face_count, HULL_MAX_FACES);
    var size = 0.0;
    for (var i = 0u; i < (*p).vertex_count; i++) {
        let v = hull_vertex(hull, i);
        size = max(size, length(v));
        (*p).vertices[i] = pose.pos + quat_rotate(pose.rot, v);
    }
    for (var f = 0u; f < (*p).face_count; f++) {
        let pl = hull_plane(hull, f);
        let n = quat_rotate(pose.rot, pl.xyz);
        (*p).planes[f] = vec4<f32>(n, pl.w + dot(n, pose.pos));
    }
    var c = hull.centre.xyz;
    if (s.kind == SHAPE_BOX) {
        c = vec3<f32>(0.0);
    }
    (*p).centre = pose.pos + quat_rotate(pose.rot, c);
    (*p).size = size;
}

fn mesh_polytope_interval(p: ptr<function, MeshPolytope>, axis: vec3<f32>) -> vec2<f32> {
    var lo = 3.4e38;
    var hi = -3.4e38;
    for (var i = 0u; i < (*p).vertex_count; i++) {
        let d = dot(axis, (*p).vertices[i]);
        lo = min(lo, d);
        hi = max(hi, d);
    }
    return vec2<f32>(lo, hi);
}

fn mesh_region_code_add(base: u32, region: u32) -> u32 {
    return base + region;
}

fn mesh_add_round(c: ptr<function, MeshCandidates>, centre: vec3<f32>, r: f32,
                  t: TriangleContact, feature: u32) {
    mesh_candidates_add(c, centre - t.normal * (r - 0.5 * t.depth), t.normal, t.depth, feature);
}

fn mesh_round_triangle(c: ptr<function, MeshCandidates>, s: Shape, local: NcPose, margin: f32,
                       t: MeshTriangle, base: u32) {
    if (s.kind == SHAPE_SPHERE) {
        let h = sphere_triangle(local.pos, s.dims.x, t, margin);
        if (h.hit) {
            mesh_add_round(c, local.pos, s.dims.x, h, base + h.region);
        }
        return;
    }
    let ends = nc_capsule_ends(local, s.dims);
    let p0 = ends.a;
    let p1 = ends.b;
    let r = s.dims.x;
    let e0 = sphere_triangle(p0, r, t, margin);
    let e1 = sphere_triangle(p1, r, t, margin);
    // The segment's point nearest any edge of the triangle, between the ends.
    var found = false;
    var best_d = 0.0;
    var mid = vec3<f32>(0.0);
    for (var j = 0u; j < 3u; j++) {
        var s0 = t.a;
        var s1 = t.b;
        if (j == 1u) {
            s0 = t.b;
            s1 = t.c;
        } else if (j == 2u) {
            s0 = t.c;
            s1 = t.a;
        }
        let st = mesh_closest_params(p0, p1, s0, s1);
        if (st.x > 0.0 && st.x < 1.0) {
            let on_capsule = p0 + (p1 - p0) * st.x;
            let dist = length(on_capsule - (s0 + (s1 - s0) * st.y));
            if (!found || dist < best_d) {
                found = true;
                best_d = dist;
                mid = on_capsule;
            }
        }
    }
    if (e0.hit) {
        mesh_add_round(c, p0, r, e0, base + e0.region);
    }
    if (e1.hit) {
        mesh_add_round(c, p1, r, e1, base + 8u + e1.region);
    }
    if (found) {
        let m = sphere_triangle(mid, r, t, margin);
        let deeper = (!e0.hit || m.depth > e0.depth) && (!e1.hit || m.depth > e1.depth);
        if (m.hit && deeper) {
            mesh_add_round(c, mid, r, m, base + 16u + m.region);
        }
    }
}

fn mesh_tri_corner(t: MeshTriangle, j: u32) -> vec3<f32> {
    if (j == 0u) {
        return t.a;
    }
    if (j == 1u) {
        return t.b;
    }
    return t.c;
}

fn mesh_tri_interval(t: MeshTriangle, axis: vec3<f32>) -> vec2<f32> {
    let x = dot(axis, t.a);
    let y = dot(axis, t.b);
    let z = dot(axis, t.c);
    return vec2<f32>(min(min(x, y), z), max(max(x, y), z));
}

fn mesh_better(o: f32, best: f32) -> bool {
    return o < best - (MESH_AXIS_REL * abs(best) + MESH_AXIS_ABS);
}

/// The polytope–triangle SAT so far: the shallowest axis (its overlap, kind, polytope face or
/// edge, triangle edge and contact normal from the triangle towards the polytope), and whether
/// an axis separates the two by more than the margin.
struct MeshSat {
    best: f32,
    axis: u32,
    which: u32,
    tri_edge: u32,
    normal: vec3<f32>,
    apart: bool,
}

/// Weighs one axis of overlap o (normal from the triangle towards the polytope) against the
/// best so far (narrow/mesh.rs `polytope_triangle`'s face and edge loops).
fn mesh_sat_axis(sat: ptr<function, MeshSat>, normal: vec3<f32>, o: f32, margin: f32, axis: u32,
                 which: u32, tri_edge: u32) {
    if (o < -margin) {
        (*sat).apart = true;
        return;
    }
    if (mesh_better(o, (*sat).best)) {
        (*sat).best = o;
        (*sat).axis = axis;
        (*sat).which = which;
        (*sat).tri_edge = tri_edge;
        (*sat).normal = normal;
    }
}

/// The Minkowski-face axis of a polytope edge and a triangle edge, out of the polytope, or zero
/// (narrow/mesh.rs `edge_axis`).
fn mesh_edge_axis(fa: vec3<f32>, fb: vec3<f32>, d: vec3<f32>, te: vec3<f32>,
                  nf: vec3<f32>) -> vec3<f32> {
    let s = dot(fa, te);
    let t = dot(fb, te);
    if (s * t >= 0.0) {
        return vec3<f32>(0.0);
    }
    var x = fb * s - fa * t;
    if (s < 0.0) {
        x = -x;
    }
    if (dot(x, cross(te, nf)) >= 0.0) {
        return vec3<f32>(0.0);
    }
    let c = cross(d, te);
    let l2 = dot(c, c);
    if (l2 <= NC_PARALLEL_EPS * dot(d, d) * dot(te, te)) {
        return vec3<f32>(0.0);
    }
    let u = c / sqrt(l2);
    if (dot(u, x) < 0.0) {
        return -u;
    }
    return u;
}

/// The triangle's feature farthest along n (narrow/mesh.rs `support_region`).
fn mesh_support_region(t: MeshTriangle, n: vec3<f32>, size: f32) -> u32 {
    let s0 = dot(n, t.a);
    let s1 = dot(n, t.b);
    let s2 = dot(n, t.c);
    let top = max(max(s0, s1), s2);
    let m = max(max(abs(t.a), abs(t.b)), abs(t.c));
    let scale = size + max(max(m.x, m.y), m.z);
    let tol = 1e-5 * (1.0 + scale);
    let n0 = top - s0 <= tol;
    let n1 = top - s1 <= tol;
    let n2 = top - s2 <= tol;
    if (n0 && n1 && n2) {
        return REGION_FACE;
    }
    if (n0 && n1) {
        return 1u;
    }
    if (n1 && n2) {
        return 2u;
    }
    if (n0 && n2) {
        return 3u;
    }
    if (n0) {
        return 4u;
    }
    if (n1) {
        return 5u;
    }
    return 6u;
}

fn mesh_clip_side(src: ptr<function, array<vec3<f32>, MESH_CLIP>>, n: u32, side: vec3<f32>,
                  at: vec3<f32>, dst: ptr<function, array<vec3<f32>, MESH_CLIP>>) -> u32 {
    var out = 0u;
    for (var k = 0u; k < n; k++) {
        let cur = (*src)[k];
        let next = (*src)[(k + 1u) % n];
        let dc = dot(side, cur - at);
        let dn = dot(side, next - at);
        if (dc >= 0.0 && out < MESH_CLIP) {
            (*dst)[out] = cur;
            out += 1u;
        }
        if (((dc < 0.0 && dn > 0.0) || (dc > 0.0 && dn < 0.0)) && out < MESH_CLIP) {
            (*dst)[out] = cur + (next - cur) * (dc / (dc - dn));
            out += 1u;
        }
    }
    return out;
}

fn mesh_incident_face_clip(c: ptr<function, MeshCandidates>, p: ptr<function, MeshPolytope>,
                           margin: f32, t: MeshTriangle, nf: vec3<f32>, base: u32) {
    var inc = 0u;
    var low = dot((*p).planes[0].xyz, nf);
    for (var f = 1u; f < (*p).face_count; f++) {
        let d = dot((*p).planes[f].xyz, nf);
        if (nc_beats(-d, -low)) {
            low = d;
            inc = f;
        }
    }
    let h = (*p).hull;
    let face = hull_face(h, inc);
    let nv = min(face.y, HULL_MAX_CLIP);
    var buf_a: array<vec3<f32>, MESH_CLIP>;
    var buf_b: array<vec3<f32>, MESH_CLIP>;
    for (var k = 0u; k < nv; k++) {
        let v = hull_loop_vertex(h, face, k);
        buf_a[k] = (*p).vertices[min(v, 63u)];
    }
    var n = nv;
    for (var j = 0u; j < 3u; j++) {
        let v0 = mesh_tri_corner(t, j);
        let v1 = mesh_tri_corner(t, (j + 1u) % 3u);
        let side = cross(nf, v1 - v0);
        if (j % 2u == 0u) {
            n = mesh_clip_side(&buf_a, n, side, v0, &buf_b);
        } else {
            n = mesh_clip_side(&buf_b, n, side, v0, &buf_a);
        }
    }
    let plane = dot(nf, t.a);
    for (var k = 0u; k < n; k++) {
        let q = buf_b[k];
        let depth = plane - dot(nf, q);
        if (depth > -margin) {
            mesh_candidates_add(c, q + nf * (0.5 * depth), nf, depth, base + 32u + k);
        }
    }
}

fn mesh_triangle_clip(c: ptr<function, MeshCandidates>, p: ptr<function, MeshPolytope>,
                      margin: f32, t: MeshTriangle, f: u32, base: u32) {
    let pl = (*p).planes[f];
    let nfc = pl.xyz;
    let h = (*p).hull;
    let face = hull_face(h, f);
    let nv = min(face.y, HULL_MAX_CLIP);
    var buf_a: array<vec3<f32>, MESH_CLIP>;
    var buf_b: array<vec3<f32>, MESH_CLIP>;
    buf_a[0] = t.a;
    buf_a[1] = t.b;
    buf_a[2] = t.c;
    var n = 3u;
    var src = 0u;
    for (var k = 0u; k < nv; k++) {
        let v0 = (*p).vertices[min(hull_loop_vertex(h, face, k), 63u)];
        let v1 = (*p).vertices[min(hull_loop_vertex(h, face, (k + 1u) % nv), 63u)];
        let side = cross(nfc, v1 - v0);
        if (src == 0u) {
            n = mesh_clip_side(&buf_a, n, side, v0, &buf_b);
        } else {
            n = mesh_clip_side(&buf_b, n, side, v0, &buf_a);
        }
        src = 1u - src;
    }
    for (var k = 0u; k < n; k++) {
        var q = buf_a[k];
        if (src == 1u) {
            q = buf_b[k];
        }
        let depth = pl.w - dot(nfc, q);
        if (depth > -margin) {
            mesh_candidates_add(c, q + nfc * (0.5 * depth), -nfc, depth, base + 128u + k);
        }
    }
}

const MESH_AXIS_TRIANGLE: u32 = 0u;
const MESH_AXIS_FACE: u32 = 1u;
const MESH_AXIS_EDGES: u32 = 2u;

fn mesh_polytope_triangle(c: ptr<function, MeshCandidates>, p: ptr<function, MeshPolytope>,
                          margin: f32, t: MeshTriangle, base: u32) {
    let nf = mesh_normalize_or_zero(cross(t.b - t.a, t.c - t.a));
    if (all(nf == vec3<f32>(0.0)) || dot(nf, (*p).centre - t.a) < 0.0) {
        return;
    }
    let pi = mesh_polytope_interval(p, nf);
    let plane = dot(nf, t.a);
    if (pi.y - plane < -margin) {
        return;
    }
    var sat = MeshSat(plane - pi.x, MESH_AXIS_TRIANGLE, 0u, 0u, nf, false);
    if (sat.best < -margin) {
        return;
    }
    for (var f = 0u; f < (*p).face_count; f++) {
        let pl = (*p).planes[f];
        let ti = mesh_tri_interval(t, pl.xyz);
        mesh_sat_axis(&sat, -pl.xyz, pl.w - ti.x, margin, MESH_AXIS_FACE, f, 0u);
        if (sat.apart) {
            return;
        }
    }
    let h = (*p).hull;
    let ne = min(h.edge_count, HULL_MAX_EDGES);
    let last_face = max((*p).face_count, 1u) - 1u;
    for (var e = 0u; e < ne; e++) {
        let ed = hull_edge(h, e);
        let q0 = (*p).vertices[min(ed.x, 63u)];
        let d = q0 - (*p).vertices[min(ed.y, 63u)];
        let fa = (*p).planes[min(ed.z, last_face)].xyz;
        let fb = (*p).planes[min(ed.w, last_face)].xyz;
        // The three triangle edges written out (no inner loop: fewer trips on software
        // adapters, see the header). A zero axis builds no Minkowski face and is skipped.
        let u0 = mesh_edge_axis(fa, fb, d, t.b - t.a, nf);
        let u1 = mesh_edge_axis(fa, fb, d, t.c - t.b, nf);
        let u2 = mesh_edge_axis(fa, fb, d, t.a - t.c, nf);
        if (any(u0 != vec3<f32>(0.0))) {
            mesh_sat_axis(&sat, -u0, dot(u0, q0 - t.a), margin, MESH_AXIS_EDGES, e, 0u);
        }
        if (any(u1 != vec3<f32>(0.0)) && !sat.apart) {
            mesh_sat_axis(&sat, -u1, dot(u1, q0 - t.b), margin, MESH_AXIS_EDGES, e, 1u);
        }
        if (any(u2 != vec3<f32>(0.0)) && !sat.apart) {
            mesh_sat_axis(&sat, -u2, dot(u2, q0 - t.c), margin, MESH_AXIS_EDGES, e, 2u);
        }
        if (sat.apart) {
            return;
        }
    }
    var axis = sat.axis;
    let which = sat.which;
    let tri_edge = sat.tri_edge;
    var normal = sat.normal;
    let best = sat.best;
    if (axis != MESH_AXIS_TRIANGLE) {
        var region = 1u + tri_edge;
        if (axis != MESH_AXIS_EDGES) {
            region = mesh_support_region(t, normal, (*p).size);
        }
        if (!region_is_active(region, t.edges)) {
            axis = MESH_AXIS_TRIANGLE;
            normal = nf;
        }
    }
    if (axis == MESH_AXIS_TRIANGLE) {
        mesh_incident_face_clip(c, p, margin, t, nf, base);
    } else if (axis == MESH_AXIS_FACE) {
        mesh_triangle_clip(c, p, margin, t, which, base);
    } else {
        let ed = hull_edge(h, which);
        let q0 = (*p).vertices[min(ed.x, 63u)];
        let q1 = (*p).vertices[min(ed.y, 63u)];
        let t0 = mesh_tri_corner(t, tri_edge);
        let t1 = mesh_tri_corner(t, (tri_edge + 1u) % 3u);
        let cp = nc_closest_segments(q0, q1, t0, t1);
        mesh_candidates_add(c, (cp.a + cp.b) * 0.5, normal, best,
                            base + 192u + 16u * tri_edge + (which & 15u));
    }
}

/// One triangle of the geometry against the pair's convex shape (narrow/mesh.rs `each`).
fn mesh_each(c: ptr<function, MeshCandidates>, p: ptr<function, MeshPolytope>, s: Shape,
             local: NcPose, margin: f32, query: MeshAabb, t: MeshTriangle) {
    let lo = min(min(t.a, t.b), t.c);
    let hi = max(max(t.a, t.b), t.c);
    if (!mesh_aabb_overlaps(MeshAabb(lo, hi), query)) {
        return;
    }
    let base = t.id * 256u;
    if (s.kind == SHAPE_BOX || s.kind == SHAPE_HULL) {
        mesh_polytope_triangle(c, p, margin, t, base);
    } else {
        mesh_round_triangle(c, s, local, margin, t, base);
    }
}

fn mesh_finish(m: ptr<function, Manifold>, c: ptr<function, MeshCandidates>, pb: NcPose,
               single: bool) {
    if ((*c).n == 0u) {
        return;
    }
    var i0 = 0u;
    for (var k = 1u; k < (*c).n; k++) {
        if (nc_beats((*c).depth[k], (*c).depth[i0])) {
            i0 = k;
        }
    }
    let n0 = (*c).normal[i0];
    var poly: array<vec4<f32>, HM_POLY>;
    var depth: array<f32, HULL_MAX_CLIP>;
    var origin: array<u32, HULL_MAX_CLIP>;
    var kept = 0u;
    if (single) {
        origin[0] = i0;
        kept = 1u;
    } else {
        for (var k = 0u; k < (*c).n; k++) {
            if (dot((*c).normal[k], n0) >= MESH_NORMAL_COS) {
                poly[kept] = vec4<f32>((*c).point[k], 0.0);
                depth[kept] = (*c).depth[k];
                origin[kept] = k;
                kept += 1u;
            }
        }
    }
    var picks = vec4<u32>(0u, 1u, 2u, 3u);
    if (kept > 4u) {
        picks = hm_reduce4(&poly, 0u, &depth, kept, n0);
    }
    for (var t = 0u; t < min(kept, 4u); t++) {
        let k = picks[t];
        var dup = false;
        for (var u = 0u; u < t; u++) {
            if (picks[u] == k) {
                dup = true;
            }
        }
        if (!dup) {
            let i = origin[k];
            nc_add_contact(m, pb.pos + quat_rotate(pb.rot, (*c).point[i]), (*c).depth[i],
                           (*c).feature[i]);
        }
    }
    (*m).normal = vec4<f32>(quat_rotate(pb.rot, n0), 0.0);
}

/// The manifold of convex shape sa with the mesh or heightfield sb (narrow/mesh.rs
/// `mesh_pair`).
fn nc_mesh_pair(m: ptr<function, Manifold>, margin: f32, sa: Shape, pa: NcPose, sb: Shape,
                pb: NcPose) {
    let ka = sa.kind;
    if (!(ka == SHAPE_SPHERE || ka == SHAPE_BOX || ka == SHAPE_CAPSULE || ka == SHAPE_HULL)) {
        return;
    }
    let conj = vec4<f32>(-pb.rot.xyz, pb.rot.w);
    let local = NcPose(quat_rotate_inv(pb.rot, pa.pos - pb.pos), quat_mul(conj, pa.rot));
    let ext = broad_half_extent(ka, sa.dims, local.rot) + vec3<f32>(margin);
    let query = MeshAabb(local.pos - ext, local.pos + ext);
    var poly: MeshPolytope;
    // A two-sided mesh's triangles face the point the one-sided tests measure from.
    var toward = local.pos;
    if (ka == SHAPE_BOX || ka == SHAPE_HULL) {
        mesh_polytope(&poly, sa, local);
        toward = poly.centre;
    }
    var c: MeshCandidates;
    c.n = 0u;
    let block = u32(sb.dims.x);
    if (sb.kind == SHAPE_MESH) {
        let mr = mesh_ref(block);
        var walk = mesh_walk_start();
        while (mesh_next_leaf(mr, query, &walk)) {
            for (var j = 0u; j < walk.count; j++) {
                let t = mesh_facing(mr, walk.first + j, toward);
                mesh_each(&c, &poly, sa, local, margin, query, t);
            }
        }
    } else if (sb.kind == SHAPE_HEIGHTFIELD) {
        let f = heightfield_ref(block);
        let hc = heightfield_cells(f, query);
        for (var n = 0u; n < heightfield_cell_count(hc); n++) {
            let k = heightfield_cell(hc, n);
            for (var h = 0u; h < 2u; h++) {
                let t = heightfield_triangle(f, 2u * k + h);
                if (t.edges != 0xffffffffu) {
                    mesh_each(&c, &poly, sa, local, margin, query, t);
                }
            }
        }
    }
    mesh_finish(m, &c, pb, ka == SHAPE_SPHERE);
}

/// Whether a manifold's (ordered) shapes make a pair with level geometry.
fn nc_is_mesh_pair(ka: u32, kb: u32) -> bool {
    return kb == SHAPE_MESH || kb == SHAPE_HEIGHTFIELD;
}

// One thread per pair slot k below the pairs `narrow` handled: the contacts of a pair with a
// triangle mesh or heightfield, into the manifold `narrow` left with none (its shapes already in
// the narrow phase's order). Other slots are left alone. Dispatched only in worlds holding level
// geometry, after `narrow_hull` (hull_pairs.wgsl), whose slots it never touches.
@compute @workgroup_size(RIGID_WG)
fn narrow_mesh(@builtin(global_invocation_id) gid: vec3<u32>) {
    let s = nc_slot(gid.x);
    if (!s.ok || !nc_is_mesh_pair(s.sa.kind, s.sb.kind)) {
        return;
    }
    var m = s.m;
    let pa = nc_shape_pose(s.sa);
    nc_mesh_pair(&m, params.contact_margin, s.sa, pa, s.sb, nc_shape_pose(s.sb));
    m.normal.w = s.m.normal.w; // the friction `narrow` combined
    manifolds[gid.x] = m;
}
