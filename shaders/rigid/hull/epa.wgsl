// EPA, the expanding polytope algorithm: penetration depth and normal of two shapes whose cores
// overlap, from GJK's final simplex. CPU twin: src/rigid/hull/epa.rs (read its docs: the
// polytope's bounds, the fallback to the best face), same operation order. The polytope lives in
// fixed private arrays of EPA_MAX_VERTICES, EPA_MAX_FACES and EPA_MAX_EDGES (prelude).

/// A face distance no face can have (epa.rs `FAR`).
const EPA_FAR: f32 = 3.0e38;

/// The polytope in as few arrays as its data allows (epa.rs `Polytope`): a vertex is its two
/// support points (w = a − b), a face its vertices with a visibility flag (w) and its unit
/// normal with its signed distance (w).
struct EpaPolytope {
    a: array<vec3<f32>, EPA_MAX_VERTICES>,
    b: array<vec3<f32>, EPA_MAX_VERTICES>,
    nv: u32,
    f: array<vec4<u32>, EPA_MAX_FACES>,
    nd: array<vec4<f32>, EPA_MAX_FACES>,
    nf: u32,
}

struct EpaOutput {
    // false: A − B is flat (the Rust `None`)
    ok: bool,
    depth: f32,
    normal: vec3<f32>,
    point_a: vec3<f32>,
    point_b: vec3<f32>,
    converged: bool,
    iterations: u32,
}

fn epa_w(p: ptr<function, EpaPolytope>, i: u32) -> vec3<f32> {
    return (*p).a[i] - (*p).b[i];
}

fn epa_set_face(p: ptr<function, EpaPolytope>, k: u32, i: u32, j: u32, l: u32) {
    let q = epa_w(p, i);
    let nn = cross(epa_w(p, j) - q, epa_w(p, l) - q);
    let len2 = dot(nn, nn);
    (*p).f[k] = vec4<u32>(i, j, l, 0u);
    if (len2 > 0.0) {
        let n = nn / sqrt(len2);
        (*p).nd[k] = vec4<f32>(n, dot(n, q));
    } else {
        (*p).nd[k] = vec4<f32>(0.0, 0.0, 0.0, EPA_FAR);
    }
}

/// The fixed search directions: the axes and the cube diagonals (epa.rs `DIRS`).
fn epa_dir(k: u32) -> vec3<f32> {
    switch k {
        case 0u: { return vec3<f32>(1.0, 0.0, 0.0); }
        case 1u: { return vec3<f32>(-1.0, 0.0, 0.0); }
        case 2u: { return vec3<f32>(0.0, 1.0, 0.0); }
        case 3u: { return vec3<f32>(0.0, -1.0, 0.0); }
        case 4u: { return vec3<f32>(0.0, 0.0, 1.0); }
        case 5u: { return vec3<f32>(0.0, 0.0, -1.0); }
        case 6u: { return vec3<f32>(1.0, 1.0, 1.0); }
        case 7u: { return vec3<f32>(-1.0, -1.0, -1.0); }
        case 8u: { return vec3<f32>(1.0, 1.0, -1.0); }
        case 9u: { return vec3<f32>(-1.0, -1.0, 1.0); }
        case 10u: { return vec3<f32>(1.0, -1.0, 1.0); }
        case 11u: { return vec3<f32>(-1.0, 1.0, -1.0); }
        case 12u: { return vec3<f32>(-1.0, 1.0, 1.0); }
        default: { return vec3<f32>(1.0, -1.0, -1.0); }
    }
}

const EPA_DIRS: u32 = 14u;

/// How much new extent w adds to the first `count` points (epa.rs `extent`).
fn epa_extent(p: ptr<function, EpaPolytope>, count: u32, w: vec3<f32>) -> f32 {
    if (count == 0u) {
        return 1.0;
    }
    if (count == 1u) {
        let d = w - epa_w(p, 0u);
        return sqrt(dot(d, d));
    }
    if (count == 2u) {
        let e = epa_w(p, 1u) - epa_w(p, 0u);
        let l = sqrt(dot(e, e));
        if (l > 0.0) {
            let c = cross(w - epa_w(p, 0u), e);
            return sqrt(dot(c, c)) / l;
        }
        return 0.0;
    }
    let n = cross(epa_w(p, 1u) - epa_w(p, 0u), epa_w(p, 2u) - epa_w(p, 0u));
    let l = sqrt(dot(n, n));
    if (l > 0.0) {
        return abs(dot(n, w - epa_w(p, 0u)) / l);
    }
    return 0.0;
}

/// The polytope face nearest the origin (the first of equal ones).
fn epa_nearest(p: ptr<function, EpaPolytope>) -> u32 {
    var best = 0u;
    for (var k = 1u; k < (*p).nf; k++) {
        if ((*p).nd[k].w < (*p).nd[best].w) {
            best = k;
        }
    }
    return best;
}

/// EPA from GJK's output g for shapes a and b whose cores overlap (epa.rs `epa`).
fn epa(a: ConvexShape, b: ConvexShape, g: GjkOutput) -> EpaOutput {
    var out: EpaOutput;
    out.ok = false;
    let origin = g.origin;
    let tol = GJK_REL_TOL * gjk_pair_scale(a, b);
    var p: EpaPolytope;
    p.nv = 0u;
    p.nf = 0u;
    for (var k = 0u; k < min(g.simplex.count, 4u); k++) {
        let w = g.simplex.w[k];
        if (p.nv == 0u || epa_extent(&p, p.nv, w) > tol) {
            p.a[p.nv] = g.simplex.a[k];
            p.b[p.nv] = g.simplex.b[k];
            p.nv += 1u;
        }
    }
    for (var grow = 0u; grow < 4u; grow++) {
        if (p.nv >= 4u) {
            break;
        }
        var best_e = tol;
        var best_a = vec3<f32>(0.0);
        var best_b = vec3<f32>(0.0);
        for (var k = 0u; k < EPA_DIRS + 2u; k++) {
            var dir: vec3<f32>;
            if (k < EPA_DIRS) {
                dir = epa_dir(k);
            } else if (p.nv == 3u) {
                let n = cross(epa_w(&p, 1u) - epa_w(&p, 0u), epa_w(&p, 2u) - epa_w(&p, 0u));
                dir = select(-n, n, k == EPA_DIRS);
            } else {
                continue;
            }
            let sa = cs_support(a, dir) - origin;
            let sb = cs_support(b, -dir) - origin;
            let e = epa_extent(&p, p.nv, sa - sb);
            if (e > best_e) {
                best_e = e;
                best_a = sa;
                best_b = sb;
            }
        }
        if (best_e <= tol) {
            return out;
        }
        p.a[p.nv] = best_a;
        p.b[p.nv] = best_b;
        p.nv += 1u;
    }
    // The tetrahedron, each face wound away from the opposite vertex.
    for (var k = 0u; k < 4u; k++) {
        var t: vec4<u32>;
        switch k {
            case 0u: { t = vec4<u32>(0u, 1u, 2u, 3u); }
            case 1u: { t = vec4<u32>(0u, 3u, 1u, 2u); }
            case 2u: { t = vec4<u32>(1u, 3u, 2u, 0u); }
            default: { t = vec4<u32>(0u, 2u, 3u, 1u); }
        }
        let q = epa_w(&p, t.x);
        let n = cross(epa_w(&p, t.y) - q, epa_w(&p, t.z) - q);
        if (dot(n, epa_w(&p, t.w) - q) > 0.0) {
            epa_set_face(&p, k, t.x, t.z, t.y);
        } else {
            epa_set_face(&p, k, t.x, t.y, t.z);
        }
    }
    p.nf = 4u;

    var converged = false;
    var iterations = 0u;
    var best = 0u;
    // Boundary edges, i | j << 16.
    var edges: array<u32, EPA_MAX_EDGES>;
    for (var it = 0u; it < EPA_MAX_ITERATIONS; it++) {
        iterations = it + 1u;
        best = epa_nearest(&p);
        let n = p.nd[best].xyz;
        let sa = cs_support(a, n) - origin;
        let sb = cs_support(b, -n) - origin;
        let w = sa - sb;
        if (dot(n, w) - p.nd[best].w <= tol) {
            converged = true;
            break;
        }
        if (p.nv >= EPA_MAX_VERTICES) {
            break;
        }
        var ne = 0u;
        var nvis = 0u;
        var room = true;
        for (var k = 0u; k < p.nf; k++) {
            let nd = p.nd[k];
            let visible = nd.w < EPA_FAR && dot(nd.xyz, w) - nd.w > 0.0;
            p.f[k].w = select(0u, 1u, visible);
            if (!visible) {
                continue;
            }
            nvis += 1u;
            let fk = p.f[k];
            for (var e = 0u; e < 3u; e++) {
                let i = fk[e];
                let j = fk[(e + 1u) % 3u];
                var found = EPA_MAX_EDGES;
                for (var m = 0u; m < ne; m++) {
                    if (edges[m] == (j | (i << 16u))) {
                        found = m;
                    }
                }
                if (found < EPA_MAX_EDGES) {
                    ne -= 1u;
                    edges[found] = edges[ne];
                } else if (ne < EPA_MAX_EDGES) {
                    edges[ne] = i | (j << 16u);
                    ne += 1u;
                } else {
                    room = false;
                }
            }
        }
        if (!room || ne < 3u || p.nf - nvis + ne > EPA_MAX_FACES) {
            break;
        }
        let vi = p.nv;
        p.a[p.nv] = sa;
        p.b[p.nv] = sb;
        p.nv += 1u;
        var kept = 0u;
        for (var k = 0u; k < p.nf; k++) {
            if (p.f[k].w == 0u) {
                p.f[kept] = p.f[k];
                p.nd[kept] = p.nd[k];
                kept += 1u;
            }
        }
        p.nf = kept;
        for (var e = 0u; e < ne; e++) {
            let k = p.nf;
            epa_set_face(&p, k, edges[e] & 0xffffu, edges[e] >> 16u, vi);
            p.nf += 1u;
        }
    }
    if (!converged) {
        best = epa_nearest(&p);
    }
    let n = p.nd[best].xyz;
    let depth = p.nd[best].w;
    // Barycentric weights of the origin's projection n·depth on the face.
    let fi = p.f[best];
    let wi = epa_w(&p, fi.x);
    let wj = epa_w(&p, fi.y);
    let wl = epa_w(&p, fi.z);
    let q = n * depth;
    var li = max(dot(cross(wj - q, wl - q), n), 0.0);
    var lj = max(dot(cross(wl - q, wi - q), n), 0.0);
    var ll = max(dot(cross(wi - q, wj - q), n), 0.0);
    let sum = li + lj + ll;
    if (sum > 0.0) {
        li /= sum;
        lj /= sum;
        ll /= sum;
    } else {
        li = 1.0;
        lj = 0.0;
        ll = 0.0;
    }
    let pa = p.a[fi.x] * li + p.a[fi.y] * lj + p.a[fi.z] * ll;
    let pb = p.b[fi.x] * li + p.b[fi.y] * lj + p.b[fi.z] * ll;
    let ra = a.dims.w;
    let rb = b.dims.w;
    out.ok = true;
    out.depth = depth + ra + rb;
    out.normal = -n;
    out.point_a = pa + n * ra + origin;
    out.point_b = pb - n * rb + origin;
    out.converged = converged;
    out.iterations = iterations;
    return out;
}
