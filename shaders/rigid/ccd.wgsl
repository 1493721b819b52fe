// Stage `ccd`: continuous collision for fast bodies (articles 001-A, time of impact).
// One thread per body, right after rigid_integrate (same dt) and before shape_aabbs. Reads
// params, shapes, bodies; writes only bodies[i].pos.xyz of CCD bodies that hit something.
//
// A sphere of radius r swept along a segment hits a shape exactly when the segment, as a ray,
// enters the shape grown by r (Minkowski sum): sphere, capsule, shifted half-space, thickened
// plane, rounded box (three face-grown boxes plus twelve edge capsules). Exact closed forms,
// so no iteration. Targets that are CCD bodies are skipped, so no thread reads a body another
// thread writes (race-free, deterministic). The body goes back to where its sphere first sinks
// skin = ½·min(position_slop, r) into the target, keeping its velocity for the solver. Boxes,
// capsules and hulls (and spheres against hulls) are swept by conservative advancement instead
// (hull/ca.wgsl over GJK), to within ½·position_slop of the target; half-spaces and planes by
// their exact linear gap.
// Why each choice: see src/rigid/ccd.rs. CPU twin: src/rigid/ccd.rs `ccd` and the ray core in
// src/rigid/ray.rs, same operation order. A hit is vec4(normal, t); t < 0 is a miss.

const CCD_FLAG: u32 = 1u;
const CCD_MISS: vec4<f32> = vec4<f32>(0.0, 0.0, 0.0, -1.0);
// Twin of ray.rs PARALLEL_EPS: direction components below this are parallel to a slab.
const CCD_PARALLEL_EPS: f32 = 1e-12;
// Twin of ccd.rs CA_MIN_TOLERANCE: the least stopping tolerance of conservative advancement.
const CCD_CA_MIN_TOLERANCE: f32 = 1e-4;

/// Whether the sweep carries conservative advancement (boxes, capsules and hulls swept, and
/// spheres against hulls): set false (a pipeline-overridable constant) for worlds with neither
/// hulls nor a CCD body of another shape than a sphere, whose kernel is then the sphere sweep
/// alone; on a software adapter the advancement's code alone made the stage 8 times slower on
/// the 5k wall, where no body sweeps (0.84 → 6.9 ms a step on lavapipe, 2026-11-29).
override CCD_CONVEX: bool = true;

/// Whether the advancement also sweeps against triangle meshes and heightfields: set true only
/// for worlds holding level geometry (pipeline variant `CCD_LEVEL`). Its walks are compiled
/// out otherwise: on a software adapter their code alone, never run, changed which sweeps of a
/// crowded scene finished within the adapter's loop limit.
override CCD_LEVEL: bool = false;

fn ccd_is_ccd_body(b: Body) -> bool {
    return b.kind == BODY_DYNAMIC && b.awake != 0u && (b.flags & CCD_FLAG) != 0u;
}

fn ccd_filter_pass(a: Shape, b: Shape) -> bool {
    // A sensor stops no sweep.
    return (a.group & b.mask) != 0u && (b.group & a.mask) != 0u
        && a.material.w == 0.0 && b.material.w == 0.0;
}

/// Ray (o, unit d) against the sphere of centre c and radius r; inside gives t = 0, normal −d.
fn ccd_ray_sphere(o: vec3<f32>, d: vec3<f32>, c: vec3<f32>, r: f32, max_t: f32) -> vec4<f32> {
    let m = o - c;
    let cc = dot(m, m) - r * r;
    if (cc <= 0.0) {
        return vec4<f32>(-d, 0.0);
    }
    let hb = dot(m, d);
    if (hb >= 0.0 || r <= 0.0) {
        return CCD_MISS;
    }
    // Discriminant from the closest-approach offset: accurate for far rays.
    let f = m - d * hb;
    let disc = r * r - dot(f, f);
    if (disc < 0.0) {
        return CCD_MISS;
    }
    var t = -hb - sqrt(disc);
    if (t > max_t) {
        return CCD_MISS;
    }
    t = max(t, 0.0);
    return vec4<f32>((m + d * t) * (1.0 / r), t);
}

/// Ray against the capsule a–b of radius r: finite cylinder ∪ two end spheres.
fn ccd_ray_capsule(
    o: vec3<f32>,
    d: vec3<f32>,
    a: vec3<f32>,
    b: vec3<f32>,
    r: f32,
    max_t: f32,
) -> vec4<f32> {
    let e = b - a;
    let ee = dot(e, e);
    let m = o - a;
    let me = dot(m, e);
    var s0 = 0.0;
    if (ee > 0.0) {
        s0 = clamp(me / ee, 0.0, 1.0);
    }
    let q = m - e * s0;
    if (dot(q, q) <= r * r) {
        return vec4<f32>(-d, 0.0);
    }
    if (r <= 0.0) {
        return CCD_MISS;
    }
    var best = CCD_MISS;
    if (ee > 0.0) {
        let de = dot(d, e);
        let w = m - e * (me / ee);
        let v = d - e * (de / ee);
        let qa = dot(v, v);
        let hb = dot(w, v);
        let qc = dot(w, w) - r * r;
        if (qa > CCD_PARALLEL_EPS && qc > 0.0 && hb < 0.0) {
            let disc = hb * hb - qa * qc;
            if (disc >= 0.0) {
                var t = (-hb - sqrt(disc)) / qa;
                let s = (me + t * de) / ee;
                if (s >= 0.0 && s <= 1.0 && t <= max_t) {
                    t = max(t, 0.0);
                    best = vec4<f32>((w + v * t) * (1.0 / r), t);
                }
            }
        }
    }
    let ha = ccd_ray_sphere(o, d, a, r, max_t);
    if (ha.w >= 0.0 && (best.w < 0.0 || ha.w < best.w)) {
        best = ha;
    }
    let hb2 = ccd_ray_sphere(o, d, b, r, max_t);
    if (hb2.w >= 0.0 && (best.w < 0.0 || hb2.w < best.w)) {
        best = hb2;
    }
    return best;
}

/// Slab test against the box [−h, h]; the normal is the entering axis, facing the ray.
fn ccd_ray_slab(o: vec3<f32>, d: vec3<f32>, h: vec3<f32>, max_t: f32) -> vec4<f32> {
    var t_in = -3.40282347e38;
    var t_out = max_t;
    var n = vec3<f32>(0.0);
    for (var i = 0u; i < 3u; i = i + 1u) {
        let oi = o[i];
        let di = d[i];
        let hi = h[i];
        if (abs(di) < CCD_PARALLEL_EPS) {
            if (abs(oi) > hi) {
                return CCD_MISS;
            }
            continue;
        }
        let inv = 1.0 / di;
        var t1 = (-hi - oi) * inv;
        var t2 = (hi - oi) * inv;
        if (t1 > t2) {
            let tmp = t1;
            t1 = t2;
            t2 = tmp;
        }
        if (t1 > t_in) {
            t_in = t1;
            n = vec3<f32>(0.0);
            n[i] = select(1.0, -1.0, di > 0.0);
        }
        t_out = min(t_out, t2);
        if (t_in > t_out) {
            return CCD_MISS;
        }
    }
    if (t_out < 0.0) {
        return CCD_MISS;
    }
    if (t_in <= 0.0) {
        return vec4<f32>(-d, 0.0);
    }
    return vec4<f32>(n, t_in);
}

/// Ray against the box of half extents h grown by r (rounded box).
fn ccd_ray_box(o: vec3<f32>, d: vec3<f32>, h: vec3<f32>, r: f32, max_t: f32) -> vec4<f32> {
    let ex = max(abs(o) - h, vec3<f32>(0.0));
    if (dot(ex, ex) <= r * r) {
        return vec4<f32>(-d, 0.0);
    }
    if (r <= 0.0) {
        return ccd_ray_slab(o, d, h, max_t);
    }
    var best = CCD_MISS;
    for (var axis = 0u; axis < 3u; axis = axis + 1u) {
        var g = h;
        g[axis] = g[axis] + r;
        let hit = ccd_ray_slab(o, d, g, max_t);
        if (hit.w >= 0.0 && (best.w < 0.0 || hit.w < best.w)) {
            best = hit;
        }
    }
    for (var axis = 0u; axis < 3u; axis = axis + 1u) {
        let j = (axis + 1u) % 3u;
        let k = (axis + 2u) % 3u;
        for (var corner = 0u; corner < 4u; corner = corner + 1u) {
            var a = vec3<f32>(0.0);
            a[j] = select(h[j], -h[j], (corner & 1u) == 0u);
            a[k] = select(h[k], -h[k], (corner & 2u) == 0u);
            var b = a;
            a[axis] = -h[axis];
            b[axis] = h[axis];
            let hit = ccd_ray_capsule(o, d, a, b, r, max_t);
            if (hit.w >= 0.0 && (best.w < 0.0 || hit.w < best.w)) {
                best = hit;
            }
        }
    }
    return best;
}

/// Ray against the half-space p·n <= w.
fn ccd_ray_half_space(o: vec3<f32>, d: vec3<f32>, n: vec3<f32>, w: f32, max_t: f32) -> vec4<f32> {
    let s = dot(o, n) - w;
    if (s <= 0.0) {
        return vec4<f32>(-d, 0.0);
    }
    let dn = dot(d, n);
    if (dn >= 0.0) {
        return CCD_MISS;
    }
    let t = -s / dn;
    if (t > max_t) {
        return CCD_MISS;
    }
    return vec4<f32>(n, t);
}

/// Ray against the plane p·n = w thickened to |p·n − w| <= r; the normal faces the ray.
fn ccd_ray_plane(
    o: vec3<f32>,
    d: vec3<f32>,
    n: vec3<f32>,
    w: f32,
    r: f32,
    max_t: f32,
) -> vec4<f32> {
    let s = dot(o, n) - w;
    if (abs(s) <= r) {
        return vec4<f32>(-d, 0.0);
    }
    let dn = dot(d, n);
    var t: f32;
    var normal: vec3<f32>;
    if (s > 0.0) {
        if (dn >= 0.0) {
            return CCD_MISS;
        }
        t = (r - s) / dn;
        normal = n;
    } else {
        if (dn <= 0.0) {
            return CCD_MISS;
        }
        t = (-r - s) / dn;
        normal = -n;
    }
    if (t > max_t) {
        return CCD_MISS;
    }
    return vec4<f32>(normal, t);
}

/// Ray (local frame of the shape) against the shape grown by `inflate`.
fn ccd_ray_local(
    kind: u32,
    dims: vec4<f32>,
    inflate: f32,
    o: vec3<f32>,
    d: vec3<f32>,
    max_t: f32,
) -> vec4<f32> {
    switch kind {
        case SHAPE_SPHERE: {
            return ccd_ray_sphere(o, d, vec3<f32>(0.0), dims.x + inflate, max_t);
        }
        case SHAPE_BOX: {
            return ccd_ray_box(o, d, dims.xyz, inflate, max_t);
        }
        case SHAPE_CAPSULE: {
            let a = vec3<f32>(0.0, -dims.y, 0.0);
            let b = vec3<f32>(0.0, dims.y, 0.0);
            return ccd_ray_capsule(o, d, a, b, dims.x + inflate, max_t);
        }
        case SHAPE_HALF_SPACE: {
            return ccd_ray_half_space(o, d, dims.xyz, dims.w + inflate, max_t);
        }
        case SHAPE_PLANE: {
            return ccd_ray_plane(o, d, dims.xyz, dims.w, inflate, max_t);
        }
        default: {
            return CCD_MISS;
        }
    }
}

/// ccd.rs `inner_radius`: the ball a shape certainly holds about its origin.
fn ccd_inner_radius(s: Shape) -> f32 {
    switch s.kind {
        case SHAPE_SPHERE, SHAPE_CAPSULE: {
            return s.dims.x;
        }
        case SHAPE_BOX: {
            return min(min(s.dims.x, s.dims.y), s.dims.z);
        }
        case SHAPE_HULL: {
            return s.dims.z;
        }
        default: {
            return 0.0;
        }
    }
}

/// Conservative advancement of convex shape a (of shape own, at its end pose) swept back along
/// its body's motion (centre, disp, theta, arm) against tgt at pose tp: the fraction, or −1
/// (ccd.rs `convex_toi`).
fn ccd_convex_toi(own: Shape, a: ConvexShape, centre: vec3<f32>, disp: vec3<f32>,
                  theta: vec3<f32>, arm: f32, tgt: Shape, tp: NcPose) -> f32 {
    let gap = 0.5 * max(params.position_slop, 0.0);
    let tol = max(gap, CCD_CA_MIN_TOLERANCE);
    if (tgt.kind == SHAPE_MESH || tgt.kind == SHAPE_HEIGHTFIELD) {
        if (CCD_LEVEL) {
            return ccd_level_toi(a, centre, disp, theta, arm, tgt, tp, gap, tol);
        }
        return -1.0;
    }
    let start = a.frame.pos - disp;
    var b: ConvexShape;
    var plane = vec4<f32>(0.0);
    let plane_target = tgt.kind == SHAPE_HALF_SPACE || tgt.kind == SHAPE_PLANE;
    if (plane_target) {
        var n = quat_rotate(tp.rot, tgt.dims.xyz);
        var w = tgt.dims.w + dot(n, tp.pos);
        if (tgt.kind == SHAPE_PLANE && dot(n, start) - w < 0.0) {
            n = -n;
            w = -w;
        }
        plane = vec4<f32>(n, w);
    } else {
        let reach = broad_bounding_radius(own.kind, own.dims)
            + broad_bounding_radius(tgt.kind, tgt.dims)
            + sqrt(dot(theta, theta)) * arm + gap + tol;
        let near = nc_closest_on_segment(tp.pos, start, a.frame.pos);
        let off = tp.pos - near;
        if (dot(off, off) > reach * reach) {
            return -1.0;
        }
        b = nc_convex_of(tgt, tp);
    }
    return ca_sweep_toi(a, centre, disp, theta, arm, plane_target, b, plane, gap, tol);
}

/// One triangle of level geometry in ccd_level_toi (ccd.rs `level_toi`'s `each`): the
/// earlier of `best` and the triangle's fraction.
fn ccd_triangle_toi(best: f32, a: ConvexShape, centre: vec3<f32>, disp: vec3<f32>,
                    theta: vec3<f32>, arm: f32, t: MeshTriangle, tp: NcPose, s: vec3<f32>,
                    query: MeshAabb, gap: f32, tol: f32) -> f32 {
    let box = MeshAabb(min(min(t.a, t.b), t.c), max(max(t.a, t.b), t.c));
    if (!mesh_aabb_overlaps(box, query)) {
        return best;
    }
    let e1 = t.b - t.a;
    let e2 = t.c - t.a;
    let n = cross(e1, e2);
    if (dot(n, s - t.a) < 0.0) {
        return best;
    }
    let frame = HullFrame(
        tp.pos + quat_rotate(tp.rot, t.a),
        mat3x3<f32>(quat_rotate(tp.rot, e1), quat_rotate(tp.rot, e2), quat_rotate(tp.rot, n)),
    );
    let f = ca_sweep_toi(a, centre, disp, theta, arm, false, cs_triangle(frame), vec4<f32>(0.0),
                         gap, tol);
    if (f >= 0.0 && f < best) {
        return f;
    }
    return best;
}

/// Conservative advancement against a triangle mesh or heightfield (ccd.rs `level_toi`): the
/// earliest fraction over the triangles the swept bounding sphere may reach, or −1.
fn ccd_level_toi(a: ConvexShape, centre: vec3<f32>, disp: vec3<f32>, theta: vec3<f32>,
                 arm: f32, tgt: Shape, tp: NcPose, gap: f32, tol: f32) -> f32 {
    let start = a.frame.pos - disp;
    let reach = cs_core_bound(a) + a.dims.w + sqrt(dot(theta, theta)) * arm + gap + tol;
    let s = quat_rotate_inv(tp.rot, start - tp.pos);
    let e = quat_rotate_inv(tp.rot, a.frame.pos - tp.pos);
    let query = MeshAabb(min(s, e) - vec3<f32>(reach), max(s, e) + vec3<f32>(reach));
    var best = 2.0;
    let block = u32(tgt.dims.x);
    if (tgt.kind == SHAPE_MESH) {
        let mr = mesh_ref(block);
        var walk = mesh_walk_start();
        while (mesh_next_leaf(mr, query, &walk)) {
            for (var j = 0u; j < walk.count; j++) {
                let t = mesh_facing(mr, walk.first + j, s);
                best = ccd_triangle_toi(best, a, centre, disp, theta, arm, t, tp, s, query, gap,
                                        tol);
            }
        }
    } else {
        let f = heightfield_ref(block);
        let hc = heightfield_cells(f, query);
        for (var n = 0u; n < heightfield_cell_count(hc); n++) {
            let k = heightfield_cell(hc, n);
            for (var h = 0u; h < 2u; h++) {
                let t = heightfield_triangle(f, 2u * k + h);
                if (t.edges != 0xffffffffu) {
                    best = ccd_triangle_toi(best, a, centre, disp, theta, arm, t, tp, s, query,
                                            gap, tol);
                }
            }
        }
    }
    return select(-1.0, best, best <= 1.0);
}

@compute @workgroup_size(RIGID_WG)
fn ccd(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.body_count) {
        return;
    }
    let b = bodies[i];
    if (!ccd_is_ccd_body(b)) {
        return;
    }
    let disp = b.lin_vel.xyz * params.dt;
    let p1 = b.pos.xyz;
    let slop = max(params.position_slop, 0.0);
    var best_frac = 1.0;
    var best_pos = p1;
    var best_turn = vec3<f32>(0.0);
    for (var si = 0u; si < params.shape_count; si = si + 1u) {
        let own = shapes[si];
        let swept = own.kind == SHAPE_SPHERE || own.kind == SHAPE_BOX
            || own.kind == SHAPE_CAPSULE || own.kind == SHAPE_HULL;
        if (own.body != i || !swept) {
            continue;
        }
        let round = own.kind == SHAPE_SPHERE;
        var theta = vec3<f32>(0.0);
        if (!round) {
            theta = ca_integrator_turn(b.ang_vel.xyz * params.dt);
        }
        let c1 = p1 + quat_rotate(b.orient, own.offset_pos.xyz);
        let arm = sqrt(dot(c1 - p1, c1 - p1)) + broad_bounding_radius(own.kind, own.dims);
        let r_in = ccd_inner_radius(own);
        let reach = sqrt(dot(disp, disp)) + sqrt(dot(theta, theta)) * arm;
        if ((round && dot(disp, disp) <= r_in * r_in) || (!round && reach <= r_in)) {
            continue;
        }
        let c0 = c1 - disp;
        let r = own.dims.x;
        let skin = 0.5 * min(slop, r);
        let rs = r - skin;
        let own_rot = quat_mul(b.orient, own.offset_rot);
        for (var ti = 0u; ti < params.shape_count; ti = ti + 1u) {
            let tgt = shapes[ti];
            if (tgt.kind == 0u || tgt.body == i || !ccd_filter_pass(own, tgt)) {
                continue;
            }
            var tb: Body;
            if (tgt.body == NONE) {
                tb.orient = vec4<f32>(0.0, 0.0, 0.0, 1.0);
            } else if (tgt.body < params.body_count) {
                tb = bodies[tgt.body];
            } else {
                continue;
            }
            if (ccd_is_ccd_body(tb)) {
                continue;
            }
            var moved = vec3<f32>(0.0);
            if (tgt.body != NONE && tb.kind != BODY_STATIC && tb.awake != 0u) {
                moved = tb.lin_vel.xyz * params.dt;
            }
            // World pose of the tgt shape (twin of ray.rs shape_pose).
            let c = tb.pos.xyz + quat_rotate(tb.orient, tgt.offset_pos.xyz);
            let q = quat_mul(tb.orient, tgt.offset_rot);
            let s0 = c0 + moved;
            let rel = c1 - s0;
            let len2 = dot(rel, rel);
            if (len2 <= 0.0 && all(theta == vec3<f32>(0.0))) {
                continue;
            }
            var frac: f32;
            let convex_target = tgt.kind == SHAPE_HULL || tgt.kind == SHAPE_MESH
                || tgt.kind == SHAPE_HEIGHTFIELD;
            if (round && !convex_target) {
                // The exact sweep of a sphere.
                let len = sqrt(len2);
                let dir = rel * (1.0 / len);
                let o = quat_rotate_inv(q, s0 - c);
                let d = quat_rotate_inv(q, dir);
                let hit = ccd_ray_local(tgt.kind, tgt.dims, rs, o, d, len);
                if (hit.w <= 0.0) {
                    continue;
                }
                frac = hit.w / len;
            } else if (CCD_CONVEX) {
                let a = nc_convex_of(own, NcPose(c1, own_rot));
                frac = ccd_convex_toi(own, a, p1, rel, theta, arm, tgt, NcPose(c, q));
                if (frac < 0.0) {
                    continue;
                }
            } else {
                continue;
            }
            if (frac < best_frac) {
                best_frac = frac;
                best_pos = p1 + ((s0 + rel * frac) - c1);
                best_turn = theta * -(1.0 - frac);
            }
        }
    }
    if (best_frac < 1.0) {
        bodies[i].pos = vec4<f32>(best_pos, b.pos.w);
        if (any(best_turn != vec3<f32>(0.0))) {
            bodies[i].orient = quat_normalize(quat_mul(ca_quat_from_rotation(best_turn), b.orient));
        }
    }
}
