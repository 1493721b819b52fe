// Hull–hull contact manifold (and hull–box, the box the scaled unit cube): SAT, then the
// incident face clipped against the reference face's side planes, reduced to four points like
// box–box, or one edge–edge contact. CPU twin: src/rigid/hull/manifold.rs (read its docs: the
// feature ids, the point codes, the redundant-point pass, the reduction), same operation order.
// The clipping buffers hold HULL_MAX_CLIP points (prelude): 32 incident vertices and one more
// per reference side.

const HM_FEATURE_EDGE: u32 = 0x80000000u;
const HM_FEATURE_REF_B: u32 = 0x40000000u;
/// manifold.rs `VERTEX_NEAR` and `STRAIGHT`.
const HM_VERTEX_NEAR: f32 = 0.05;
const HM_STRAIGHT: f32 = 1e-3;
/// The clipping polygon's two halves.
const HM_POLY: u32 = 2u * HULL_MAX_CLIP;

struct HullManifold {
    count: u32,
    normal: vec3<f32>,
    points: array<vec4<f32>, 4>,
    features: array<u32, 4>,
}

/// Adds a point; an id already taken gets 4096 added (manifold.rs `HullManifold::add`).
fn hm_add(m: ptr<function, HullManifold>, p: vec3<f32>, depth: f32, feature: u32) {
    var f = feature;
    for (var r = 0u; r < 4u; r++) {
        var dup = false;
        for (var i = 0u; i < min((*m).count, 4u); i++) {
            if ((*m).features[i] == f) {
                dup = true;
            }
        }
        if (!dup) {
            break;
        }
        f += 4096u;
    }
    if ((*m).count < 4u) {
        let c = (*m).count;
        (*m).points[c] = vec4<f32>(p, depth);
        (*m).features[c] = f;
        (*m).count += 1u;
    }
}

fn hm_line_pair(l0: u32, l1: u32) -> u32 {
    return min(l0, l1) | (max(l0, l1) << 6u);
}

fn hm_shared_line(c1: u32, c2: u32) -> u32 {
    let l0 = c1 & 63u;
    if (l0 == (c2 & 63u) || l0 == (c2 >> 6u)) {
        return l0;
    }
    return c1 >> 6u;
}

/// One Sutherland–Hodgman step: the part of poly[src..src + n] with side·p ≤ off into
/// poly[dst..], codes in w (manifold.rs `clip`); returns the new count.
fn hm_clip(poly: ptr<function, array<vec4<f32>, HM_POLY>>, src: u32, n: u32, dst: u32,
           side: vec3<f32>, off: f32, line: u32) -> u32 {
    var out = 0u;
    for (var e = 0u; e < n; e++) {
        let cur = (*poly)[src + e];
        let nxt = (*poly)[src + (e + 1u) % n];
        let dc = dot(side, cur.xyz) - off;
        let dn = dot(side, nxt.xyz) - off;
        if (dc <= 0.0 && out < HULL_MAX_CLIP) {
            (*poly)[dst + out] = cur;
            out += 1u;
        }
        if (((dc < 0.0 && dn > 0.0) || (dc > 0.0 && dn < 0.0)) && out < HULL_MAX_CLIP) {
            let t = dc / (dc - dn);
            let p = cur.xyz + (nxt.xyz - cur.xyz) * t;
            let code = hm_line_pair(hm_shared_line(u32(cur.w), u32(nxt.w)), line);
            (*poly)[dst + out] = vec4<f32>(p, f32(code));
            out += 1u;
        }
    }
    return out;
}

/// Four spread points of poly[at..at + n] (manifold.rs `reduce4`).
fn hm_reduce4(poly: ptr<function, array<vec4<f32>, HM_POLY>>, at: u32,
              depth: ptr<function, array<f32, HULL_MAX_CLIP>>, n: u32,
              normal: vec3<f32>) -> vec4<u32> {
    var i0 = 0u;
    for (var k = 1u; k < n; k++) {
        if (hull_beats((*depth)[k], (*depth)[i0])) {
            i0 = k;
        }
    }
    let q0 = (*poly)[at + i0].xyz;
    var i1 = i0;
    var far = 0.0;
    for (var k = 0u; k < n; k++) {
        let e = (*poly)[at + k].xyz - q0;
        let d2 = dot(e, e);
        if (hull_beats(d2, far)) {
            far = d2;
            i1 = k;
        }
    }
    let q1 = (*poly)[at + i1].xyz - q0;
    var i2 = i0;
    var amax = 0.0;
    for (var k = 0u; k < n; k++) {
        let a = abs(dot(cross(q1, (*poly)[at + k].xyz - q0), normal));
        if (hull_beats(a, amax)) {
            amax = a;
            i2 = k;
        }
    }
    let q2 = (*poly)[at + i2].xyz - q0;
    let s = select(-1.0, 1.0, dot(cross(q1, q2), normal) >= 0.0);
    var i3 = i0;
    var out_best = 0.0;
    for (var k = 0u; k < n; k++) {
        let r = (*poly)[at + k].xyz - q0;
        let a01 = s * dot(cross(q1, r), normal);
        let a12 = s * dot(cross(q2 - q1, r - q1), normal);
        let a20 = s * dot(cross(-q2, r - q2), normal);
        let outside = -min(min(a01, a12), a20);
        if (hull_beats(outside, out_best)) {
            out_best = outside;
            i3 = k;
        }
    }
    return vec4<u32>(i0, i1, i2, i3);
}

/// Incident vertex k of loop `face` of hull hi, in the reference hull's frame.
fn hm_inc_vertex(hi: HullRef, face: vec2<u32>, k: u32, inc_in_ref: HullFrame) -> vec3<f32> {
    return hull_frame_point(inc_in_ref, hull_vertex(hi, hull_loop_vertex(hi, face, k)));
}

/// Face contacts of reference face rf of hull hr (placed by fr) against hull hi (placed by fi);
/// flag is the feature id's top bit (manifold.rs `face_contacts`).
fn hm_face_contacts(m: ptr<function, HullManifold>, margin: f32, hr: HullRef, fr: HullFrame,
                    rf: u32, hi: HullRef, fi: HullFrame, flag: u32) {
    let inc_in_ref = hull_frame_relative(fr, fi);
    let pl = hull_plane(hr, rf);
    let n_ref = pl.xyz;
    let d_ref = pl.w;
    var inc = 0u;
    var inc_dot = dot(hull_frame_dir(inc_in_ref, hull_plane(hi, 0u).xyz), n_ref);
    for (var k = 1u; k < min(hi.face_count, HULL_MAX_FACES); k++) {
        let dk = dot(hull_frame_dir(inc_in_ref, hull_plane(hi, k).xyz), n_ref);
        if (hull_beats(-dk, -inc_dot)) {
            inc = k;
            inc_dot = dk;
        }
    }
    let inc_face = hull_face(hi, inc);
    let ni = min(inc_face.y, HULL_MAX_FACE_VERTICES);
    var poly: array<vec4<f32>, HM_POLY>;
    var shortest = 3.40282347e38;
    for (var k = 0u; k < ni; k++) {
        let v = hm_inc_vertex(hi, inc_face, k, inc_in_ref);
        poly[k] = vec4<f32>(v, f32(hm_line_pair((k + ni - 1u) % ni, k)));
    }
    for (var k = 0u; k < ni; k++) {
        let e = poly[(k + 1u) % ni].xyz - poly[k].xyz;
        shortest = min(shortest, dot(e, e));
    }
    let near = HM_VERTEX_NEAR * sqrt(shortest);
    let ref_face = hull_face(hr, rf);
    let nr = min(ref_face.y, HULL_MAX_FACE_VERTICES);
    var n = ni;
    var src = 0u;
    for (var s = 0u; s < nr; s++) {
        let v0 = hull_vertex(hr, hull_loop_vertex(hr, ref_face, s));
        let v1 = hull_vertex(hr, hull_loop_vertex(hr, ref_face, (s + 1u) % nr));
        let side = cross(v1 - v0, n_ref);
        n = hm_clip(&poly, src, n, HULL_MAX_CLIP - src, side, dot(side, v0), 32u + s);
        src = HULL_MAX_CLIP - src;
    }
    if (n > 4u) {
        let straight = HM_STRAIGHT * sqrt(shortest);
        let dst = HULL_MAX_CLIP - src;
        var m_cnt = 0u;
        for (var k = 0u; k < n; k++) {
            let p = poly[src + k].xyz;
            var prev = poly[src + n - 1u].xyz;
            if (m_cnt > 0u) {
                prev = poly[dst + m_cnt - 1u].xyz;
            }
            let next = poly[src + (k + 1u) % n].xyz;
            let e = next - prev;
            let l2 = dot(e, e);
            let off = cross(p - prev, e);
            let d_prev = dot(p - prev, p - prev);
            let redundant = d_prev < near * near || dot(off, off) < straight * straight * l2;
            let left = m_cnt + (n - k);
            if (redundant && left > 4u) {
                continue;
            }
            poly[dst + m_cnt] = poly[src + k];
            m_cnt += 1u;
        }
        n = m_cnt;
        src = dst;
    }
    let dst = HULL_MAX_CLIP - src;
    var dep: array<f32, HULL_MAX_CLIP>;
    var kept = 0u;
    for (var k = 0u; k < n; k++) {
        let p = poly[src + k].xyz;
        let depth = d_ref - dot(p, n_ref);
        if (depth > -margin) {
            var code = u32(poly[src + k].w);
            for (var j = 0u; j < ni; j++) {
                let v = hm_inc_vertex(hi, inc_face, j, inc_in_ref);
                let e = p - v;
                if (dot(e, e) < near * near) {
                    code = hm_line_pair((j + ni - 1u) % ni, j);
                    break;
                }
            }
            poly[dst + kept] = vec4<f32>(p + n_ref * (depth * 0.5), f32(code));
            dep[kept] = depth;
            kept += 1u;
        }
    }
    let top = flag | (rf << 24u) | (inc << 18u);
    if (kept == 0u) {
        var best = 0u;
        var best_d = -3.40282347e38;
        for (var k = 0u; k < ni; k++) {
            let v = hm_inc_vertex(hi, inc_face, k, inc_in_ref);
            let dk = d_ref - dot(v, n_ref);
            if (k == 0u || hull_beats(dk, best_d)) {
                best = k;
                best_d = dk;
            }
        }
        if (best_d > -margin) {
            let v = hm_inc_vertex(hi, inc_face, best, inc_in_ref);
            let code = hm_line_pair((best + ni - 1u) % ni, best);
            hm_add(m, hull_frame_point(fr, v + n_ref * (best_d * 0.5)), best_d, top | code);
        }
        return;
    }
    var picks = vec4<u32>(0u, 1u, 2u, 3u);
    if (kept > 4u) {
        picks = hm_reduce4(&poly, dst, &dep, kept, n_ref);
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
            let q = poly[dst + k];
            hm_add(m, hull_frame_point(fr, q.xyz), dep[k], top | u32(q.w));
        }
    }
}

/// Hull–hull manifold of ha placed by fa and hb placed by fb (manifold.rs `hull_hull`).
fn hull_hull(ha: HullRef, fa: HullFrame, hb: HullRef, fb: HullFrame,
             margin: f32) -> HullManifold {
    var m: HullManifold;
    m.count = 0u;
    let sat = hull_sat(ha, fa, hb, fb, margin);
    if (!sat.ok) {
        return m;
    }
    m.normal = sat.normal;
    if (sat.kind == SAT_EDGE) {
        let b_in_a = hull_frame_relative(fa, fb);
        let ea = hull_edge(ha, sat.index_a);
        let eb = hull_edge(hb, sat.index_b);
        let c = nc_closest_segments(
            hull_vertex(ha, ea.x),
            hull_vertex(ha, ea.y),
            hull_frame_point(b_in_a, hull_vertex(hb, eb.x)),
            hull_frame_point(b_in_a, hull_vertex(hb, eb.y)),
        );
        hm_add(&m, hull_frame_point(fa, (c.a + c.b) * 0.5), -sat.separation,
               HM_FEATURE_EDGE | (sat.index_a << 16u) | sat.index_b);
    } else if (sat.kind == SAT_FACE_A) {
        hm_face_contacts(&m, margin, ha, fa, sat.index_a, hb, fb, 0u);
    } else {
        hm_face_contacts(&m, margin, hb, fb, sat.index_b, ha, fa, HM_FEATURE_REF_B);
    }
    if (m.count == 0u) {
        m.normal = vec3<f32>(0.0);
    }
    return m;
}
