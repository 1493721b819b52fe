// Stage `narrow`: one thread per pair slot k < min(pairs written, pair capacity), writing
// manifolds[k] with up to four contacts (catalogue §10). Reads shapes, bodies, pairs, counters.
// CPU twin: src/rigid/narrow/mod.rs, same functions in the same operation order (helpers here carry
// an `nc_` prefix so they cannot clash with other stages in the composed module; `nc_x` is the
// twin of Rust `x`). Read the Rust module docs for the method of each shape pair and the
// conventions: normal from b to a, pair reordered so the lower shape kind is a, contacts within
// the contact margin, points halfway between the surfaces. The private arrays are the
// manifold's own four points, the two 8-point polygons of box–box face clipping (a quad
// clipped by four planes has at most 8 corners), and for pairs with a hull (hull_pairs.wgsl)
// those of GJK, EPA and hull face clipping (shaders/rigid/hull/).

// Material combination rules (src/rigid/material.rs `Combine::code`; tests/rigid_narrow.rs
// checks these against the Rust codes).
const COMBINE_MIN: u32 = 0u;
const COMBINE_AVERAGE: u32 = 1u;
const COMBINE_GEOMETRIC: u32 = 2u;
const COMBINE_WEIGHTED_FRICTION: u32 = 3u;
const COMBINE_PIECEWISE_RESTITUTION: u32 = 4u;
const COMBINE_WEIGHTED_RESTITUTION: u32 = 5u;

const NC_SQRT_2: f32 = 1.41421356;
/// Edge crosses with |a × b|² below this are skipped (near-parallel edges).
const NC_PARALLEL_EPS: f32 = 1e-3;
const NC_SEG_EPS: f32 = 1e-12;
const NC_BIAS_REL: f32 = 0.05;
const NC_BIAS_ABS: f32 = 0.005;
const NC_FACE_EPS: f32 = 1e-4;
const NC_BIG: f32 = 1e30;
const NC_VERTEX_NEAR: f32 = 0.05;
const NC_FEATURE_EDGE: u32 = 0x80000000u;

fn nc_weighted(a: f32, wa: f32, b: f32, wb: f32) -> f32 {
    return (a * wa + b * wb) / (wa + wb);
}

/// The narrow phase's order of kinds (types.rs `shape_kind::order`): sphere < box < capsule <
/// hull < half-space < plane.
fn nc_kind_order(kind: u32) -> u32 {
    if (kind == SHAPE_HULL) {
        return SHAPE_CAPSULE * 2u + 1u;
    }
    return kind * 2u;
}

/// The radius of a shape's round surface, 0 for a flat shape (narrow.rs `round_radius`).
fn nc_round_radius(s: Shape) -> f32 {
    if (s.kind == SHAPE_SPHERE || s.kind == SHAPE_CAPSULE) {
        return s.dims.x;
    }
    return 0.0;
}

/// Combines two material values by rule code (unknown codes: average).
fn combine(rule: u32, a: f32, b: f32) -> f32 {
    if (rule == COMBINE_MIN) {
        return min(a, b);
    } else if (rule == COMBINE_GEOMETRIC) {
        return sqrt(max(a * b, 0.0));
    } else if (rule == COMBINE_WEIGHTED_FRICTION) {
        let wa = NC_SQRT_2 * (1.0 - min(max(a, 0.0), 1.0)) + 1.0;
        let wb = NC_SQRT_2 * (1.0 - min(max(b, 0.0), 1.0)) + 1.0;
        return nc_weighted(a, wa, b, wb);
    } else if (rule == COMBINE_PIECEWISE_RESTITUTION) {
        if (a < 0.5 && b < 0.5) {
            return min(a, b);
        } else if (a > 0.5 && b > 0.5) {
            return max(a, b);
        }
        return a + b - 0.5;
    } else if (rule == COMBINE_WEIGHTED_RESTITUTION) {
        let wa = NC_SQRT_2 * abs(2.0 * a - 1.0) + 1.0;
        let wb = NC_SQRT_2 * abs(2.0 * b - 1.0) + 1.0;
        return nc_weighted(a, wa, b, wb);
    }
    return (a + b) * 0.5;
}

struct NcPose {
    pos: vec3<f32>,
    rot: vec4<f32>,
}

struct NcPair {
    a: vec3<f32>,
    b: vec3<f32>,
}

struct NcPlane {
    n: vec3<f32>,
    off: f32,
}

/// World pose of a shape from its body (offset alone for body NONE).
fn nc_shape_pose(s: Shape) -> NcPose {
    if (s.body != NONE && s.body < arrayLength(&bodies)) {
        let bp = bodies[s.body].pos.xyz;
        let bq = bodies[s.body].orient;
        return NcPose(bp + quat_rotate(bq, s.offset_pos.xyz), quat_mul(bq, s.offset_rot));
    }
    return NcPose(s.offset_pos.xyz, s.offset_rot);
}

fn nc_sign_of(x: f32) -> f32 {
    return select(-1.0, 1.0, x >= 0.0);
}

fn nc_unit(v: vec3<f32>) -> vec3<f32> {
    return v / sqrt(dot(v, v));
}

fn nc_with_comp(v: vec3<f32>, i: u32, x: f32) -> vec3<f32> {
    var r = v;
    r[i] = x;
    return r;
}

fn nc_basis(i: u32) -> vec3<f32> {
    return nc_with_comp(vec3<f32>(0.0), i, 1.0);
}

/// Column i of m, by selection (no dynamic matrix indexing).
fn nc_col(m: mat3x3<f32>, i: u32) -> vec3<f32> {
    return select(select(m[2], m[1], i == 1u), m[0], i == 0u);
}

fn nc_clamp_box(p: vec3<f32>, h: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(clamp(p.x, -h.x, h.x), clamp(p.y, -h.y, h.y), clamp(p.z, -h.z, h.z));
}

fn nc_plane_world(pose: NcPose, dims: vec4<f32>) -> NcPlane {
    let n = quat_rotate(pose.rot, dims.xyz);
    return NcPlane(n, dims.w + dot(n, pose.pos));
}

/// Adds a contact; with four already, replaces the shallowest when the new one is deeper.
fn nc_add_contact(m: ptr<function, Manifold>, p: vec3<f32>, pen: f32, feature: u32) {
    let c = (*m).count;
    if (c < 4u) {
        (*m).points[c] = vec4<f32>(p, pen);
        (*m).features[c] = feature;
        (*m).count = c + 1u;
        return;
    }
    var k = 0u;
    for (var i = 1u; i < 4u; i++) {
        if ((*m).points[i].w < (*m).points[k].w) {
            k = i;
        }
    }
    if (pen > (*m).points[k].w) {
        (*m).points[k] = vec4<f32>(p, pen);
        (*m).features[k] = feature;
    }
}

/// Closest points of segments p1–q1 and p2–q2 (clamped form).
fn nc_closest_segments(p1: vec3<f32>, q1: vec3<f32>, p2: vec3<f32>, q2: vec3<f32>) -> NcPair {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = dot(d1, d1);
    let e = dot(d2, d2);
    let f = dot(d2, r);
    var s = 0.0;
    var t = 0.0;
    if (a <= NC_SEG_EPS) {
        if (e > NC_SEG_EPS) {
            t = clamp(f / e, 0.0, 1.0);
        }
    } else {
        let c = dot(d1, r);
        if (e <= NC_SEG_EPS) {
            s = clamp(-c / a, 0.0, 1.0);
        } else {
            let b = dot(d1, d2);
            let denom = a * e - b * b;
            if (denom > 0.0) {
                s = clamp((b * f - c * e) / denom, 0.0, 1.0);
            }
            t = (b * s + f) / e;
            if (t < 0.0) {
                t = 0.0;
                s = clamp(-c / a, 0.0, 1.0);
            } else if (t > 1.0) {
                t = 1.0;
                s = clamp((b - c) / a, 0.0, 1.0);
            }
        }
    }
    return NcPair(p1 + d1 * s, p2 + d2 * t);
}

fn nc_closest_on_segment(p: vec3<f32>, s0: vec3<f32>, s1: vec3<f32>) -> vec3<f32> {
    let d = s1 - s0;
    let l2 = dot(d, d);
    if (l2 <= NC_SEG_EPS) {
        return s0;
    }
    return s0 + d * clamp(dot(p - s0, d) / l2, 0.0, 1.0);
}

/// Larger than best by more than a rounding-sized margin (twin of `beats`).
fn nc_beats(x: f32, best: f32) -> bool {
    return x > best + 1e-5 * (1.0 + abs(best));
}

fn nc_capsule_ends(pose: NcPose, dims: vec4<f32>) -> NcPair {
    let h = quat_rotate(pose.rot, vec3<f32>(0.0, dims.y, 0.0));
    return NcPair(pose.pos - h, pose.pos + h);
}

// ---- Round shapes ---------------------------------------------------------------------------

fn nc_sphere_sphere(m: ptr<function, Manifold>, margin: f32, pa: vec3<f32>, ra: f32,
                    pb: vec3<f32>, rb: f32) {
    let d = pa - pb;
    let d2 = dot(d, d);
    var n = vec3<f32>(0.0, 1.0, 0.0);
    var dist = 0.0;
    if (d2 > 0.0) {
        dist = sqrt(d2);
        n = d / dist;
    }
    let sep = dist - ra - rb;
    if (sep >= margin) {
        return;
    }
    (*m).normal = vec4<f32>(n, 0.0);
    let p = ((pa - n * ra) + (pb + n * rb)) * 0.5;
    nc_add_contact(m, p, -sep, 0u);
}

fn nc_sphere_capsule(m: ptr<function, Manifold>, margin: f32, pa: vec3<f32>, ra: f32,
                     pb: NcPose, dims: vec4<f32>) {
    let e = nc_capsule_ends(pb, dims);
    let c = nc_closest_on_segment(pa, e.a, e.b);
    nc_sphere_sphere(m, margin, pa, ra, c, dims.x);
}

fn nc_sphere_plane(m: ptr<function, Manifold>, margin: f32, p: vec3<f32>, r: f32, n0: vec3<f32>,
                   off: f32, two_sided: bool) {
    var n = n0;
    var dist = dot(n, p) - off;
    if (two_sided && dist < 0.0) {
        n = -n;
        dist = -dist;
    }
    let sep = dist - r;
    if (sep >= margin) {
        return;
    }
    (*m).normal = vec4<f32>(n, 0.0);
    nc_add_contact(m, p - n * ((r + dist) * 0.5), -sep, 0u);
}

fn nc_sphere_box(m: ptr<function, Manifold>, margin: f32, pa: vec3<f32>, r: f32, pb: NcPose,
                 h: vec3<f32>) {
    let rel = quat_rotate_inv(pb.rot, pa - pb.pos);
    let q = nc_clamp_box(rel, h);
    let diff = rel - q;
    let d2 = dot(diff, diff);
    var n_local: vec3<f32>;
    var surface: vec3<f32>;
    var sep: f32;
    if (d2 > 0.0) {
        let d = sqrt(d2);
        n_local = diff / d;
        surface = q;
        sep = d - r;
    } else {
        var k = 0u;
        var best = h.x - abs(rel.x);
        for (var i = 1u; i < 3u; i++) {
            let depth = h[i] - abs(rel[i]);
            if (depth < best) {
                best = depth;
                k = i;
            }
        }
        let s = nc_sign_of(rel[k]);
        n_local = nc_basis(k) * s;
        surface = nc_with_comp(rel, k, s * h[k]);
        sep = -best - r;
    }
    if (sep >= margin) {
        return;
    }
    let n = quat_rotate(pb.rot, n_local);
    (*m).normal = vec4<f32>(n, 0.0);
    let deepest = pa - n * r;
    let on_box = pb.pos + quat_rotate(pb.rot, surface);
    nc_add_contact(m, (deepest + on_box) * 0.5, -sep, 0u);
}

// ---- Boxes, capsules and planes -------------------------------------------------------------

fn nc_box_vertex(h: vec3<f32>, i: u32) -> vec3<f32> {
    let sx = select(1.0, -1.0, (i & 1u) != 0u);
    let sy = select(1.0, -1.0, (i & 2u) != 0u);
    let sz = select(1.0, -1.0, (i & 4u) != 0u);
    return vec3<f32>(h.x * sx, h.y * sy, h.z * sz);
}

fn nc_box_plane(m: ptr<function, Manifold>, margin: f32, pa: NcPose, h: vec3<f32>, n0: vec3<f32>,
                off0: f32, two_sided: bool) {
    var n = n0;
    var off = off0;
    var side = 0u;
    if (two_sided && dot(n, pa.pos) - off < 0.0) {
        n = -n;
        off = -off;
        side = 8u;
    }
    for (var i = 0u; i < 8u; i++) {
        let v = pa.pos + quat_rotate(pa.rot, nc_box_vertex(h, i));
        let depth = off - dot(n, v);
        if (depth > -margin) {
            nc_add_contact(m, v + n * (depth * 0.5), depth, i + side);
        }
    }
    if ((*m).count > 0u) {
        (*m).normal = vec4<f32>(n, 0.0);
    }
}

fn nc_capsule_plane(m: ptr<function, Manifold>, margin: f32, pa: NcPose, dims: vec4<f32>,
                    n0: vec3<f32>, off0: f32, two_sided: bool) {
    var n = n0;
    var off = off0;
    if (two_sided && dot(n, pa.pos) - off < 0.0) {
        n = -n;
        off = -off;
    }
    let r = dims.x;
    let e = nc_capsule_ends(pa, dims);
    let d0 = dot(n, e.a) - off;
    if (d0 - r < margin) {
        nc_add_contact(m, e.a - n * ((r + d0) * 0.5), r - d0, 0u);
    }
    let d1 = dot(n, e.b) - off;
    if (d1 - r < margin) {
        nc_add_contact(m, e.b - n * ((r + d1) * 0.5), r - d1, 1u);
    }
    if ((*m).count > 0u) {
        (*m).normal = vec4<f32>(n, 0.0);
    }
}

fn nc_capsule_capsule(m: ptr<function, Manifold>, margin: f32, pa: NcPose, da: vec4<f32>,
                      pb: NcPose, db: vec4<f32>) {
    let ea = nc_capsule_ends(pa, da);
    let eb = nc_capsule_ends(pb, db);
    let a0 = ea.a;
    let b0 = eb.a;
    let b1 = eb.b;
    let ua = ea.b - a0;
    let ub = b1 - b0;
    let la = dot(ua, ua);
    let lb = dot(ub, ub);
    let cr = cross(ua, ub);
    if (la > NC_SEG_EPS && lb > NC_SEG_EPS && dot(cr, cr) <= NC_PARALLEL_EPS * la * lb) {
        let t0 = clamp(dot(b0 - a0, ua) / la, 0.0, 1.0);
        let t1 = clamp(dot(b1 - a0, ua) / la, 0.0, 1.0);
        if (abs(t1 - t0) * sqrt(la) > 1e-4) {
            let p0 = a0 + ua * t0;
            let p1 = a0 + ua * t1;
            let q0 = nc_closest_on_segment(p0, b0, b1);
            let q1 = nc_closest_on_segment(p1, b0, b1);
            nc_sphere_sphere(m, margin, p0, da.x, q0, db.x);
            let n0 = (*m).normal;
            let c0 = (*m).count;
            nc_sphere_sphere(m, margin, p1, da.x, q1, db.x);
            if ((*m).count > c0) {
                (*m).features[c0] = 1u;
                if (c0 > 0u) {
                    let avg = n0.xyz + (*m).normal.xyz;
                    let l2 = dot(avg, avg);
                    if (l2 > 0.0) {
                        (*m).normal = vec4<f32>(nc_unit(avg), 0.0);
                    } else {
                        (*m).normal = n0;
                    }
                }
            }
            return;
        }
    }
    let c = nc_closest_segments(a0, ea.b, b0, b1);
    nc_sphere_sphere(m, margin, c.a, da.x, c.b, db.x);
}

/// Clips p0 + t·d, t ∈ [0, 1], to the slabs of the two axes other than i: (t0, t1).
fn nc_clip_segment_to_face(p0: vec3<f32>, d: vec3<f32>, h: vec3<f32>, i: u32) -> vec2<f32> {
    var t0 = 0.0;
    var t1 = 1.0;
    for (var k = 1u; k < 3u; k++) {
        let j = (i + k) % 3u;
        let p = p0[j];
        let dj = d[j];
        let hj = h[j];
        if (abs(dj) <= 1e-12) {
            if (abs(p) > hj) {
                t0 = 1.0;
                t1 = 0.0;
            }
        } else {
            let ta = (-hj - p) / dj;
            let tb = (hj - p) / dj;
            t0 = max(t0, min(ta, tb));
            t1 = min(t1, max(ta, tb));
        }
    }
    return vec2<f32>(t0, t1);
}

fn nc_segment_hits_box(p0: vec3<f32>, d: vec3<f32>, h: vec3<f32>) -> bool {
    var t0 = 0.0;
    var t1 = 1.0;
    for (var j = 0u; j < 3u; j++) {
        let p = p0[j];
        let dj = d[j];
        let hj = h[j];
        if (abs(dj) <= 1e-12) {
            if (abs(p) > hj) {
                return false;
            }
        } else {
            let ta = (-hj - p) / dj;
            let tb = (hj - p) / dj;
            t0 = max(t0, min(ta, tb));
            t1 = min(t1, max(ta, tb));
        }
    }
    return t0 <= t1;
}

fn nc_box_edge(h: vec3<f32>, k: u32) -> NcPair {
    let i = k / 4u;
    let j = (i + 1u) % 3u;
    let l = (i + 2u) % 3u;
    let sj = select(1.0, -1.0, (k & 1u) != 0u);
    let sl = select(1.0, -1.0, (k & 2u) != 0u);
    let base = nc_with_comp(nc_with_comp(vec3<f32>(0.0), j, sj * h[j]), l, sl * h[l]);
    return NcPair(nc_with_comp(base, i, -h[i]), nc_with_comp(base, i, h[i]));
}

fn nc_box_capsule(m: ptr<function, Manifold>, margin: f32, pa: NcPose, h: vec3<f32>, pb: NcPose,
                  dims: vec4<f32>) {
    let r = dims.x;
    let w = nc_capsule_ends(pb, dims);
    let p0 = quat_rotate_inv(pa.rot, w.a - pa.pos);
    let p1 = quat_rotate_inv(pa.rot, w.b - pa.pos);
    let d = p1 - p0;
    var face = 3u;
    var face_sign = 1.0;
    if (!nc_segment_hits_box(p0, d, h)) {
        var s = p0;
        var q = nc_clamp_box(p0, h);
        var best = dot(s - q, s - q);
        var feature = 0u;
        let q1 = nc_clamp_box(p1, h);
        let e1 = dot(p1 - q1, p1 - q1);
        if (nc_beats(best, e1)) {
            best = e1;
            s = p1;
            q = q1;
            feature = 1u;
        }
        for (var k = 0u; k < 12u; k++) {
            let edge = nc_box_edge(h, k);
            let c = nc_closest_segments(p0, p1, edge.a, edge.b);
            let e = dot(c.a - c.b, c.a - c.b);
            if (nc_beats(best, e)) {
                best = e;
                s = c.a;
                q = c.b;
                feature = 2u + k;
            }
        }
        let dist = sqrt(best);
        if (dist - r >= margin || dist <= 0.0) {
            return;
        }
        let nl = (s - q) / dist;
        var fi = 0u;
        for (var i = 1u; i < 3u; i++) {
            if (abs(nl[i]) > abs(nl[fi])) {
                fi = i;
            }
        }
        if (abs(nl[fi]) >= 1.0 - NC_FACE_EPS) {
            face = fi;
            face_sign = nc_sign_of(nl[fi]);
        } else {
            let n = -quat_rotate(pa.rot, nl);
            (*m).normal = vec4<f32>(n, 0.0);
            let p = ((s - nl * r) + q) * 0.5;
            nc_add_contact(m, pa.pos + quat_rotate(pa.rot, p), r - dist, feature);
            return;
        }
    } else {
        let c = (p0 + p1) * 0.5;
        let half = d * 0.5;
        let hmin = min(min(h.x, h.y), h.z);
        var best_face = 0u;
        var best_face_o = NC_BIG;
        var best_edge = 3u;
        var best_edge_o = NC_BIG;
        var best_edge_axis = vec3<f32>(1.0, 0.0, 0.0);
        for (var i = 0u; i < 6u; i++) {
            var axis = nc_basis(i % 3u);
            if (i >= 3u) {
                axis = cross(d, axis);
                let l2 = dot(axis, axis);
                if (l2 < NC_PARALLEL_EPS * dot(d, d) || l2 <= 0.0) {
                    continue;
                }
                axis = nc_unit(axis);
            }
            let o = h.x * abs(axis.x) + h.y * abs(axis.y) + h.z * abs(axis.z) + r
                + abs(dot(half, axis))
                - abs(dot(c, axis));
            if (i < 3u) {
                if (o < best_face_o) {
                    best_face_o = o;
                    best_face = i;
                }
            } else if (o < best_edge_o) {
                best_edge_o = o;
                best_edge = i - 3u;
                best_edge_axis = axis;
            }
        }
        if (best_edge_o < best_face_o - (NC_BIAS_REL * abs(best_face_o) + NC_BIAS_ABS * hmin)) {
            var nl = best_edge_axis;
            if (dot(c, nl) < 0.0) {
                nl = -nl;
            }
            let i = best_edge;
            let j = (i + 1u) % 3u;
            let l = (i + 2u) % 3u;
            let base = nc_with_comp(
                nc_with_comp(vec3<f32>(0.0), j, nc_sign_of(nl[j]) * h[j]),
                l,
                nc_sign_of(nl[l]) * h[l],
            );
            let ea = nc_with_comp(base, i, -h[i]);
            let eb = nc_with_comp(base, i, h[i]);
            let cl = nc_closest_segments(p0, p1, ea, eb);
            let n = -quat_rotate(pa.rot, nl);
            (*m).normal = vec4<f32>(n, 0.0);
            let p = ((cl.a - nl * r) + cl.b) * 0.5;
            let sj = select(0u, 1u, nl[j] < 0.0);
            let sl = select(0u, 2u, nl[l] < 0.0);
            nc_add_contact(m, pa.pos + quat_rotate(pa.rot, p), best_edge_o, 2u + 4u * i + sj + sl);
            return;
        }
        face = best_face;
        face_sign = nc_sign_of(c[best_face]);
    }
    let nl = nc_basis(face) * face_sign;
    let n = -quat_rotate(pa.rot, nl);
    let hf = h[face];
    let tt = nc_clip_segment_to_face(p0, d, h, face);
    let t0 = tt.x;
    let t1 = tt.y;
    let code = 16u + 2u * face + select(0u, 1u, face_sign < 0.0);
    if (t0 <= t1) {
        var t = t0;
        for (var e = 0u; e < 2u; e++) {
            if (e == 1u) {
                if (t1 - t0 <= 1e-6) {
                    break;
                }
                t = t1;
            }
            let p = p0 + d * t;
            let height = face_sign * p[face] - hf;
            if (height - r < margin) {
                let on_face = nc_with_comp(p, face, face_sign * hf);
                let mid = ((p - nl * r) + on_face) * 0.5;
                nc_add_contact(m, pa.pos + quat_rotate(pa.rot, mid), r - height, code * 2u + e);
            }
        }
    } else {
        var p = p0;
        if (face_sign * p1[face] < face_sign * p0[face]) {
            p = p1;
        }
        let height = face_sign * p[face] - hf;
        if (height - r < margin) {
            let on_face = nc_with_comp(nc_clamp_box(p, h), face, face_sign * hf);
            let mid = ((p - nl * r) + on_face) * 0.5;
            nc_add_contact(m, pa.pos + quat_rotate(pa.rot, mid), r - height, code * 2u);
        }
    }
    if ((*m).count > 0u) {
        (*m).normal = vec4<f32>(n, 0.0);
    }
}

// ---- The stage ------------------------------------------------------------------------------

/// The manifold of shapes a and b (twin of `collide_shapes`).
fn collide_shapes(a: u32, b: u32) -> Manifold {
    var m: Manifold;
    m.body_a = NONE;
    m.body_b = NONE;
    m.count = 0u;
    m.colour = NONE;
    m.shape_a = a;
    m.shape_b = b;
    let ns = arrayLength(&shapes);
    if (a >= ns || b >= ns) {
        return m;
    }
    let s0 = shapes[a];
    let s1 = shapes[b];
    var ia = a;
    var ib = b;
    var sa = s0;
    var sb = s1;
    if (nc_kind_order(s1.kind) < nc_kind_order(s0.kind)) {
        ia = b;
        ib = a;
        sa = s1;
        sb = s0;
    }
    m.shape_a = ia;
    m.shape_b = ib;
    m.body_a = sa.body;
    m.body_b = sb.body;
    // A sensor's pair is found and reported, never solved (colour.wgsl, solver.wgsl).
    m.dynamic = select(0u, MANIFOLD_SENSOR, sa.material.w != 0.0 || sb.material.w != 0.0);
    let friction = combine(params.combine_friction, sa.material.x, sb.material.x);
    let round_a = nc_round_radius(sa);
    let round_b = nc_round_radius(sb);
    m.material = vec4<f32>(combine(params.combine_restitution, sa.material.y, sb.material.y),
                           round_a, round_b, max(sa.material.z, sb.material.z) * max(round_a, round_b));
    if (sa.body == sb.body && sa.body != NONE) {
        m.normal.w = friction;
        return m;
    }
    let pa = nc_shape_pose(sa);
    let pb = nc_shape_pose(sb);
    let margin = params.contact_margin;
    let ka = sa.kind;
    let kb = sb.kind;
    let b_plane = kb == SHAPE_HALF_SPACE || kb == SHAPE_PLANE;
    if (ka == SHAPE_SPHERE && kb == SHAPE_SPHERE) {
        nc_sphere_sphere(&m, margin, pa.pos, sa.dims.x, pb.pos, sb.dims.x);
    } else if (ka == SHAPE_SPHERE && kb == SHAPE_BOX) {
        nc_sphere_box(&m, margin, pa.pos, sa.dims.x, pb, sb.dims.xyz);
    } else if (ka == SHAPE_SPHERE && kb == SHAPE_CAPSULE) {
        nc_sphere_capsule(&m, margin, pa.pos, sa.dims.x, pb, sb.dims);
    } else if (ka == SHAPE_SPHERE && b_plane) {
        let pl = nc_plane_world(pb, sb.dims);
        nc_sphere_plane(&m, margin, pa.pos, sa.dims.x, pl.n, pl.off, kb == SHAPE_PLANE);
    } else if (ka == SHAPE_BOX && kb == SHAPE_BOX) {
        nc_box_box(&m, margin, pa, sa.dims.xyz, pb, sb.dims.xyz);
    } else if (ka == SHAPE_BOX && kb == SHAPE_CAPSULE) {
        nc_box_capsule(&m, margin, pa, sa.dims.xyz, pb, sb.dims);
    } else if (ka == SHAPE_BOX && b_plane) {
        let pl = nc_plane_world(pb, sb.dims);
        nc_box_plane(&m, margin, pa, sa.dims.xyz, pl.n, pl.off, kb == SHAPE_PLANE);
    } else if (ka == SHAPE_CAPSULE && kb == SHAPE_CAPSULE) {
        nc_capsule_capsule(&m, margin, pa, sa.dims, pb, sb.dims);
    } else if (ka == SHAPE_CAPSULE && b_plane) {
        let pl = nc_plane_world(pb, sb.dims);
        nc_capsule_plane(&m, margin, pa, sa.dims, pl.n, pl.off, kb == SHAPE_PLANE);
    }
    // Pairs with a hull get their contacts from the `narrow_hull` kernel (hull_pairs.wgsl).
    m.normal.w = friction;
    return m;
}

// Each pair is consumed as it is read (its slot set to (NONE, NONE)): a slot that the next
// step's broad_write does not reach, because a software adapter's loop limit cut it short,
// then holds no pair rather than one of this step, which could repeat a pair written elsewhere
// (two manifolds for one pair, solved twice). A consumed slot gives an empty manifold (an index
// out of range). Thread 0 reports the cut in counters[COUNTER_BROAD_TRUNCATED].
@compute @workgroup_size(RIGID_WG)
fn narrow(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k == 0u) {
        atomicStore(&counters[COUNTER_BROAD_TRUNCATED], pair_scratch[broad_truncated_word()]);
    }
    let n = min(min(atomicLoad(&counters[COUNTER_PAIRS]), params.pair_capacity),
                arrayLength(&manifolds));
    if (k >= n) {
        return;
    }
    let pr = pairs[k];
    pairs[k] = vec2<u32>(NONE, NONE);
    manifolds[k] = collide_shapes(pr.x, pr.y);
}
