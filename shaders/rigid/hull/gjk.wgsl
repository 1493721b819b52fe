// GJK distance between two convex shapes: the distance, closest points and separating normal,
// or a verdict that the cores overlap (then epa.wgsl finds the depth). CPU twin:
// src/rigid/hull/gjk.rs (read its docs: the bounds, the stop tests, the Voronoi-region
// sub-simplex solvers), same operation order. The simplex is a struct of fixed arrays of 4; the
// loop runs at most GJK_MAX_ITERATIONS times (prelude).

/// Stop when the distance bounds are within this fraction of the pair's scale (gjk.rs
/// `GJK_REL_TOL`).
const GJK_REL_TOL: f32 = 1e-5;

struct Simplex {
    count: u32,
    w: array<vec3<f32>, 4>,
    a: array<vec3<f32>, 4>,
    b: array<vec3<f32>, 4>,
}

struct GjkOutput {
    distance: f32,
    core_distance: f32,
    point_a: vec3<f32>,
    point_b: vec3<f32>,
    normal: vec3<f32>,
    overlap: bool,
    iterations: u32,
    simplex: Simplex,
    origin: vec3<f32>,
    tolerance: f32,
}

fn gjk_push(s: ptr<function, Simplex>, w: vec3<f32>, a: vec3<f32>, b: vec3<f32>) {
    let k = min((*s).count, 3u);
    (*s).w[k] = w;
    (*s).a[k] = a;
    (*s).b[k] = b;
    (*s).count = k + 1u;
}

/// Keeps the vertices i0, i1, i2 (the first n of them) in that order.
fn gjk_keep(s: ptr<function, Simplex>, i0: u32, i1: u32, i2: u32, n: u32) {
    let old = *s;
    var idx = array<u32, 3>(i0, i1, i2);
    for (var k = 0u; k < min(n, 3u); k++) {
        (*s).w[k] = old.w[idx[k]];
        (*s).a[k] = old.a[idx[k]];
        (*s).b[k] = old.b[idx[k]];
    }
    (*s).count = n;
}

fn gjk_pair_scale(a: ConvexShape, b: ConvexShape) -> f32 {
    let d = cs_centre(a) - cs_centre(b);
    return sqrt(dot(d, d)) + cs_core_bound(a) + cs_core_bound(b);
}

/// Closest point of the segment p–q to the origin: (t, point) as vec4 (xyz point, w t).
fn gjk_segment_closest(p: vec3<f32>, q: vec3<f32>) -> vec4<f32> {
    let pq = q - p;
    let num = -dot(p, pq);
    if (num <= 0.0) {
        return vec4<f32>(p, 0.0);
    }
    let den = dot(pq, pq);
    if (num >= den) {
        return vec4<f32>(q, 1.0);
    }
    let t = num / den;
    return vec4<f32>(p + pq * t, t);
}

fn gjk_solve_segment(s: ptr<function, Simplex>, lam: ptr<function, array<f32, 4>>) {
    let t = gjk_segment_closest((*s).w[0], (*s).w[1]).w;
    if (t <= 0.0) {
        gjk_keep(s, 0u, 0u, 0u, 1u);
        (*lam)[0] = 1.0;
    } else if (t >= 1.0) {
        gjk_keep(s, 1u, 0u, 0u, 1u);
        (*lam)[0] = 1.0;
    } else {
        (*lam)[0] = 1.0 - t;
        (*lam)[1] = t;
    }
}

fn gjk_keep_edge(s: ptr<function, Simplex>, lam: ptr<function, array<f32, 4>>, i: u32, j: u32,
                 t: f32) {
    gjk_keep(s, i, j, 0u, 2u);
    (*lam)[0] = 1.0 - t;
    (*lam)[1] = t;
}

fn gjk_solve_triangle(s: ptr<function, Simplex>, lam: ptr<function, array<f32, 4>>) {
    let a = (*s).w[0];
    let b = (*s).w[1];
    let c = (*s).w[2];
    let ab = b - a;
    let ac = c - a;
    let d1 = -dot(ab, a);
    let d2 = -dot(ac, a);
    if (d1 <= 0.0 && d2 <= 0.0) {
        gjk_keep(s, 0u, 0u, 0u, 1u);
        (*lam)[0] = 1.0;
        return;
    }
    let d3 = -dot(ab, b);
    let d4 = -dot(ac, b);
    if (d3 >= 0.0 && d4 <= d3) {
        gjk_keep(s, 1u, 0u, 0u, 1u);
        (*lam)[0] = 1.0;
        return;
    }
    let vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        let den = d1 - d3;
        let t = select(0.0, d1 / den, den > 0.0);
        gjk_keep_edge(s, lam, 0u, 1u, t);
        return;
    }
    let d5 = -dot(ab, c);
    let d6 = -dot(ac, c);
    if (d6 >= 0.0 && d5 <= d6) {
        gjk_keep(s, 2u, 0u, 0u, 1u);
        (*lam)[0] = 1.0;
        return;
    }
    let vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        let den = d2 - d6;
        let t = select(0.0, d2 / den, den > 0.0);
        gjk_keep_edge(s, lam, 0u, 2u, t);
        return;
    }
    let va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        let den = (d4 - d3) + (d5 - d6);
        let t = select(0.0, (d4 - d3) / den, den > 0.0);
        gjk_keep_edge(s, lam, 1u, 2u, t);
        return;
    }
    let sum = va + vb + vc;
    if (sum > 0.0) {
        let v = vb / sum;
        let w = vc / sum;
        (*lam)[0] = 1.0 - v - w;
        (*lam)[1] = v;
        (*lam)[2] = w;
        return;
    }
    // A triangle with no area (rounding put it in no region): its closest edge.
    var best_i = 0u;
    var best_j = 1u;
    let p = gjk_segment_closest(a, b);
    var best_t = p.w;
    var best_d = dot(p.xyz, p.xyz);
    for (var k = 0u; k < 2u; k++) {
        let i = k;
        let j = 2u;
        let q = gjk_segment_closest((*s).w[i], (*s).w[j]);
        let dq = dot(q.xyz, q.xyz);
        if (dq < best_d) {
            best_d = dq;
            best_i = i;
            best_j = j;
            best_t = q.w;
        }
    }
    gjk_keep_edge(s, lam, best_i, best_j, best_t);
    if (best_t <= 0.0) {
        gjk_keep(s, 0u, 0u, 0u, 1u);
        (*lam)[0] = 1.0;
    } else if (best_t >= 1.0) {
        gjk_keep(s, 1u, 0u, 0u, 1u);
        (*lam)[0] = 1.0;
    }
}

/// The tetrahedron's four faces: three vertices and the one opposite.
fn gjk_tet_face(f: u32) -> vec4<u32> {
    switch f {
        case 0u: { return vec4<u32>(0u, 1u, 2u, 3u); }
        case 1u: { return vec4<u32>(0u, 2u, 3u, 1u); }
        case 2u: { return vec4<u32>(0u, 3u, 1u, 2u); }
        default: { return vec4<u32>(1u, 3u, 2u, 0u); }
    }
}

/// True when the origin lies inside the tetrahedron; else reduces to the closest face's
/// sub-simplex (gjk.rs `solve_tetrahedron`).
fn gjk_solve_tetrahedron(s: ptr<function, Simplex>, lam: ptr<function, array<f32, 4>>,
                         tol: f32) -> bool {
    var outside = array<bool, 4>(false, false, false, false);
    var any = false;
    var flat = false;
    for (var f = 0u; f < 4u; f++) {
        let idx = gjk_tet_face(f);
        let p = (*s).w[idx.x];
        let n = cross((*s).w[idx.y] - p, (*s).w[idx.z] - p);
        let so = -dot(n, p);
        let sl = dot(n, (*s).w[idx.w] - p);
        let nl = sqrt(dot(n, n));
        let solid = abs(sl) > tol * nl;
        if (!solid) {
            flat = true;
        }
        outside[f] = so * sl < 0.0;
        any = any || outside[f];
    }
    if (!any && !flat) {
        return true;
    }
    var best: Simplex;
    var best_lam = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
    var best_d = 3.40282347e38;
    for (var f = 0u; f < 4u; f++) {
        if (!(outside[f] || flat)) {
            continue;
        }
        let idx = gjk_tet_face(f);
        var t = *s;
        gjk_keep(&t, idx.x, idx.y, idx.z, 3u);
        var tl = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
        gjk_solve_triangle(&t, &tl);
        var p = vec3<f32>(0.0);
        for (var k = 0u; k < t.count; k++) {
            p += t.w[k] * tl[k];
        }
        let d = dot(p, p);
        if (d < best_d) {
            best_d = d;
            best = t;
            best_lam = tl;
        }
    }
    *s = best;
    *lam = best_lam;
    return false;
}

fn gjk_solve(s: ptr<function, Simplex>, lam: ptr<function, array<f32, 4>>, tol: f32) -> bool {
    switch (*s).count {
        case 1u: {
            (*lam)[0] = 1.0;
            return false;
        }
        case 2u: {
            gjk_solve_segment(s, lam);
            return false;
        }
        case 3u: {
            gjk_solve_triangle(s, lam);
            return false;
        }
        default: {
            return gjk_solve_tetrahedron(s, lam, tol);
        }
    }
}

/// GJK distance between shapes a and b (gjk.rs `gjk`).
fn gjk(a: ConvexShape, b: ConvexShape) -> GjkOutput {
    let origin = b.frame.pos;
    let ca = cs_centre(a) - origin;
    let cb = cs_centre(b) - origin;
    let scale = gjk_pair_scale(a, b);
    let tol = GJK_REL_TOL * scale;
    var s: Simplex;
    var v = ca - cb;
    var pa = ca;
    var pb = cb;
    var dist2 = dot(v, v);
    var overlap = dist2 <= tol * tol;
    var iterations = 0u;
    if (!overlap) {
        for (var it = 0u; it < GJK_MAX_ITERATIONS; it++) {
            iterations = it + 1u;
            let sa = cs_support(a, -v) - origin;
            let sb = cs_support(b, v) - origin;
            let w = sa - sb;
            if (dist2 - dot(v, w) <= tol * sqrt(dist2)) {
                break;
            }
            var repeat = false;
            for (var k = 0u; k < s.count; k++) {
                if (all(s.w[k] == w)) {
                    repeat = true;
                }
            }
            if (repeat) {
                break;
            }
            let prev = s;
            gjk_push(&s, w, sa, sb);
            var lam = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
            let inside = gjk_solve(&s, &lam, tol);
            if (inside) {
                overlap = true;
                break;
            }
            var nv = vec3<f32>(0.0);
            var na = vec3<f32>(0.0);
            var nb = vec3<f32>(0.0);
            for (var k = 0u; k < s.count; k++) {
                nv += s.w[k] * lam[k];
                na += s.a[k] * lam[k];
                nb += s.b[k] * lam[k];
            }
            let nd2 = dot(nv, nv);
            if (nd2 >= dist2 && prev.count > 0u) {
                s = prev;
                break;
            }
            v = nv;
            pa = na;
            pb = nb;
            dist2 = nd2;
            if (dist2 <= tol * tol) {
                overlap = true;
                break;
            }
        }
    }
    let ra = a.dims.w;
    let rb = b.dims.w;
    var out: GjkOutput;
    out.iterations = iterations;
    out.simplex = s;
    out.origin = origin;
    out.tolerance = tol;
    if (overlap) {
        out.distance = -(ra + rb);
        out.core_distance = 0.0;
        out.point_a = pa + origin;
        out.point_b = pb + origin;
        out.normal = vec3<f32>(0.0);
        out.overlap = true;
        return out;
    }
    let d = sqrt(dist2);
    let n = v / d;
    out.distance = d - ra - rb;
    out.core_distance = d;
    out.point_a = pa - n * ra + origin;
    out.point_b = pb + n * rb + origin;
    out.normal = n;
    out.overlap = false;
    return out;
}
