// Box–box contact, part of stage `narrow` (CPU twin: src/rigid/narrow/box_box.rs): the
// separating-axis test over 15 axes, then face clipping or the edge–edge closest points.


struct NcSat {
    found: bool,
    axis: u32,
    normal: vec3<f32>,
    overlap: f32,
}

fn nc_box_radius(r: mat3x3<f32>, h: vec3<f32>, axis: vec3<f32>) -> f32 {
    return h.x * abs(dot(axis, r[0])) + h.y * abs(dot(axis, r[1])) + h.z * abs(dot(axis, r[2]));
}

fn nc_sat_axis(ra: mat3x3<f32>, rb: mat3x3<f32>, i: u32) -> vec3<f32> {
    if (i < 3u) {
        return nc_col(ra, i);
    } else if (i < 6u) {
        return nc_col(rb, i - 3u);
    }
    return cross(nc_col(ra, (i - 6u) / 3u), nc_col(rb, (i - 6u) % 3u));
}

/// SAT over 15 axes with the face bias (twin of `box_box_sat`).
fn nc_box_box_sat(ca: vec3<f32>, ra: mat3x3<f32>, ha: vec3<f32>, cb: vec3<f32>,
                  rb: mat3x3<f32>, hb: vec3<f32>, margin: f32) -> NcSat {
    let t = cb - ca;
    var best = vec3<u32>(0u, 3u, 6u);
    var best_o = vec3<f32>(NC_BIG);
    var best_axis0 = vec3<f32>(0.0);
    var best_axis1 = vec3<f32>(0.0);
    var best_axis2 = vec3<f32>(0.0);
    for (var i = 0u; i < 15u; i++) {
        var axis = nc_sat_axis(ra, rb, i);
        if (i >= 6u) {
            let l2 = dot(axis, axis);
            if (l2 < NC_PARALLEL_EPS) {
                continue;
            }
            axis = nc_unit(axis);
        }
        let o = nc_box_radius(ra, ha, axis) + nc_box_radius(rb, hb, axis) - abs(dot(t, axis));
        if (o < -margin) {
            return NcSat(false, 0u, vec3<f32>(0.0), 0.0);
        }
        let g = select(select(2u, 1u, i < 6u), 0u, i < 3u);
        if (o < best_o[g]) {
            best_o[g] = o;
            best[g] = i;
            if (g == 0u) {
                best_axis0 = axis;
            } else if (g == 1u) {
                best_axis1 = axis;
            } else {
                best_axis2 = axis;
            }
        }
    }
    let hmin = min(min(min(ha.x, ha.y), ha.z), min(min(hb.x, hb.y), hb.z));
    var g = 0u;
    for (var k = 1u; k < 3u; k++) {
        if (best_o[k] < best_o[g] - (NC_BIAS_REL * abs(best_o[g]) + NC_BIAS_ABS * hmin)) {
            g = k;
        }
    }
    var n = select(select(best_axis2, best_axis1, g == 1u), best_axis0, g == 0u);
    if (dot(n, t) > 0.0) {
        n = -n;
    }
    return NcSat(true, best[g], n, best_o[g]);
}

/// One Sutherland–Hodgman step (twin of `clip_polygon`).
fn nc_clip_polygon(src: ptr<function, array<vec4<f32>, 8>>, n: u32,
                   dst: ptr<function, array<vec4<f32>, 8>>, axis: vec3<f32>, sgn: f32,
                   h: f32) -> u32 {
    var out = 0u;
    for (var e = 0u; e < n; e++) {
        let cur = (*src)[e];
        let nxt = (*src)[(e + 1u) % n];
        let dc = sgn * dot(cur.xyz, axis) - h;
        let dn = sgn * dot(nxt.xyz, axis) - h;
        if (dc <= 0.0 && out < 8u) {
            (*dst)[out] = cur;
            out += 1u;
        }
        if ((dc <= 0.0) != (dn <= 0.0) && out < 8u) {
            let t = dc / (dc - dn);
            (*dst)[out] = vec4<f32>(cur.xyz + (nxt.xyz - cur.xyz) * t, 0.0);
            out += 1u;
        }
    }
    return out;
}

/// Face contact id: the incident vertex k when p is within `near` of it, else 4 + the quadrant
/// of p about the clipped polygon's centroid (twin of `face_point_id`).
fn nc_face_point_id(p: vec3<f32>, fc: vec3<f32>, u: vec3<f32>, v: vec3<f32>, near: f32,
                    centre: vec3<f32>, s1: vec3<f32>, s2: vec3<f32>) -> u32 {
    for (var k = 0u; k < 4u; k++) {
        let su = select(1.0, -1.0, k == 1u || k == 2u);
        let sv = select(1.0, -1.0, k >= 2u);
        let e = p - (fc + u * su + v * sv);
        if (dot(e, e) < near * near) {
            return k;
        }
    }
    let d = p - centre;
    return 4u + select(0u, 1u, dot(d, s1) < 0.0) + select(0u, 2u, dot(d, s2) < 0.0);
}

/// Adds a face contact, moving its id up by 16 while another point has it.
fn nc_add_face_contact(m: ptr<function, Manifold>, p: vec3<f32>, pen: f32, feature: u32) {
    var f = feature;
    for (var t = 0u; t < 4u; t++) {
        var dup = false;
        for (var i = 0u; i < min((*m).count, 4u); i++) {
            if ((*m).features[i] == f) {
                dup = true;
            }
        }
        if (!dup) {
            break;
        }
        f += 16u;
    }
    nc_add_contact(m, p, pen, f);
}

/// Vertex–face contacts of a reference face against the incident box's most anti-parallel face.
fn nc_box_face_contacts(m: ptr<function, Manifold>, margin: f32, cr: vec3<f32>, rr: mat3x3<f32>,
                        hr: vec3<f32>, ref_axis: u32, ref_sign: f32, ci: vec3<f32>,
                        ri: mat3x3<f32>, hi: vec3<f32>, code: u32) {
    let n_ref = nc_col(rr, ref_axis) * ref_sign;
    var inc = 0u;
    var inc_dot = dot(ri[0], n_ref);
    for (var k = 1u; k < 3u; k++) {
        let dk = dot(nc_col(ri, k), n_ref);
        if (nc_beats(abs(dk), abs(inc_dot))) {
            inc = k;
            inc_dot = dk;
        }
    }
    let inc_sign = select(1.0, -1.0, inc_dot > 0.0);
    let fc = (ci - cr) + nc_col(ri, inc) * (inc_sign * hi[inc]);
    let u = nc_col(ri, (inc + 1u) % 3u) * hi[(inc + 1u) % 3u];
    let v = nc_col(ri, (inc + 2u) % 3u) * hi[(inc + 2u) % 3u];
    var pa: array<vec4<f32>, 8>;
    var pb: array<vec4<f32>, 8>;
    pa[0] = vec4<f32>(fc + u + v, 0.0);
    pa[1] = vec4<f32>(fc - u + v, 0.0);
    pa[2] = vec4<f32>(fc - u - v, 0.0);
    pa[3] = vec4<f32>(fc + u - v, 0.0);
    let j1 = (ref_axis + 1u) % 3u;
    let j2 = (ref_axis + 2u) % 3u;
    var n = nc_clip_polygon(&pa, 4u, &pb, nc_col(rr, j1), 1.0, hr[j1]);
    n = nc_clip_polygon(&pb, n, &pa, nc_col(rr, j1), -1.0, hr[j1]);
    n = nc_clip_polygon(&pa, n, &pb, nc_col(rr, j2), 1.0, hr[j2]);
    n = nc_clip_polygon(&pb, n, &pa, nc_col(rr, j2), -1.0, hr[j2]);
    let hf = hr[ref_axis];
    var kept = 0u;
    for (var k = 0u; k < n; k++) {
        let p = pa[k];
        let depth = hf - dot(p.xyz, n_ref);
        if (depth > -margin) {
            pa[kept] = p;
            pb[kept] = vec4<f32>(p.xyz + n_ref * (depth * 0.5), depth);
            kept += 1u;
        }
    }
    let inc_code = 2u * inc + select(0u, 1u, inc_sign < 0.0);
    let top = (code << 16u) | (inc_code << 8u);
    let near = NC_VERTEX_NEAR * min(hi[(inc + 1u) % 3u], hi[(inc + 2u) % 3u]);
    let s1 = nc_col(rr, j1);
    let s2 = nc_col(rr, j2);
    var centre = vec3<f32>(0.0);
    for (var k = 0u; k < kept; k++) {
        centre += pa[k].xyz;
    }
    if (kept > 0u) {
        centre /= f32(kept);
    }
    if (kept == 0u) {
        var best = fc + u + v;
        var best_d = hf - dot(best, n_ref);
        var best_id = 0u;
        for (var k = 1u; k < 4u; k++) {
            let su = select(1.0, -1.0, k == 1u || k == 2u);
            let sv = select(1.0, -1.0, k >= 2u);
            let p = fc + u * su + v * sv;
            let dk = hf - dot(p, n_ref);
            if (dk > best_d) {
                best = p;
                best_d = dk;
                best_id = k;
            }
        }
        if (best_d > -margin) {
            nc_add_contact(m, cr + best + n_ref * (best_d * 0.5), best_d, top | best_id);
        }
        return;
    }
    if (kept <= 4u) {
        for (var k = 0u; k < kept; k++) {
            let q = pb[k];
            let id = nc_face_point_id(pa[k].xyz, fc, u, v, near, centre, s1, s2);
            nc_add_face_contact(m, cr + q.xyz, q.w, top | id);
        }
        return;
    }
    // Spread reduction with near-ties to the earlier point (see the Rust twin).
    var i0 = 0u;
    for (var k = 1u; k < kept; k++) {
        if (nc_beats(pb[k].w, pb[i0].w)) {
            i0 = k;
        }
    }
    let q0 = pb[i0].xyz;
    var i1 = i0;
    var far = 0.0;
    for (var k = 0u; k < kept; k++) {
        let e = pb[k].xyz - q0;
        let d2 = dot(e, e);
        if (nc_beats(d2, far)) {
            far = d2;
            i1 = k;
        }
    }
    let q1 = pb[i1].xyz - q0;
    var i2 = i0;
    var amax = 0.0;
    for (var k = 0u; k < kept; k++) {
        let a = abs(dot(cross(q1, pb[k].xyz - q0), n_ref));
        if (nc_beats(a, amax)) {
            amax = a;
            i2 = k;
        }
    }
    let q2 = pb[i2].xyz - q0;
    let s = nc_sign_of(dot(cross(q1, q2), n_ref));
    var i3 = i0;
    var out_best = 0.0;
    for (var k = 0u; k < kept; k++) {
        let p = pb[k].xyz - q0;
        let a01 = s * dot(cross(q1, p), n_ref);
        let a12 = s * dot(cross(q2 - q1, p - q1), n_ref);
        let a20 = s * dot(cross(-q2, p - q2), n_ref);
        let outside = -min(min(a01, a12), a20);
        if (nc_beats(outside, out_best)) {
            out_best = outside;
            i3 = k;
        }
    }
    let picks = vec4<u32>(i0, i1, i2, i3);
    for (var t = 0u; t < 4u; t++) {
        let k = picks[t];
        var dup = false;
        for (var e = 0u; e < t; e++) {
            if (picks[e] == k) {
                dup = true;
            }
        }
        if (!dup) {
            let q = pb[k];
            let id = nc_face_point_id(pa[k].xyz, fc, u, v, near, centre, s1, s2);
            nc_add_face_contact(m, cr + q.xyz, q.w, top | id);
        }
    }
}

fn nc_box_box(m: ptr<function, Manifold>, margin: f32, pa: NcPose, ha: vec3<f32>, pb: NcPose,
              hb: vec3<f32>) {
    let ra = quat_to_mat3(pa.rot);
    let rb = quat_to_mat3(pb.rot);
    let sat = nc_box_box_sat(pa.pos, ra, ha, pb.pos, rb, hb, margin);
    if (!sat.found) {
        return;
    }
    let n = sat.normal;
    (*m).normal = vec4<f32>(n, 0.0);
    if (sat.axis < 3u) {
        let ref_sign = select(1.0, -1.0, dot(nc_col(ra, sat.axis), n) > 0.0);
        let code = 2u * sat.axis + select(0u, 1u, ref_sign < 0.0);
        nc_box_face_contacts(m, margin, pa.pos, ra, ha, sat.axis, ref_sign, pb.pos, rb, hb, code);
    } else if (sat.axis < 6u) {
        let k = sat.axis - 3u;
        let ref_sign = select(1.0, -1.0, dot(nc_col(rb, k), n) < 0.0);
        let code = 2u * sat.axis + select(0u, 1u, ref_sign < 0.0);
        nc_box_face_contacts(m, margin, pb.pos, rb, hb, k, ref_sign, pa.pos, ra, ha, code);
    } else {
        let i = (sat.axis - 6u) / 3u;
        let j = (sat.axis - 6u) % 3u;
        var ea = vec3<f32>(0.0);
        var eb = vec3<f32>(0.0);
        var ida = 4u * i;
        var idb = 4u * j;
        for (var k = 0u; k < 3u; k++) {
            if (k != i) {
                let s = select(1.0, -1.0, dot(nc_col(ra, k), n) > 0.0);
                ea[k] = s * ha[k];
                if (s < 0.0) {
                    ida += select(2u, 1u, k == (i + 1u) % 3u);
                }
            }
            if (k != j) {
                let s = select(1.0, -1.0, dot(nc_col(rb, k), n) < 0.0);
                eb[k] = s * hb[k];
                if (s < 0.0) {
                    idb += select(2u, 1u, k == (j + 1u) % 3u);
                }
            }
        }
        let da = nc_col(ra, i) * ha[i];
        let db = nc_col(rb, j) * hb[j];
        let wa = pa.pos + quat_rotate(pa.rot, ea);
        let wb = pb.pos + quat_rotate(pb.rot, eb);
        let c = nc_closest_segments(wa - da, wa + da, wb - db, wb + db);
        nc_add_contact(m, (c.a + c.b) * 0.5, sat.overlap,
                       NC_FEATURE_EDGE | (sat.axis << 16u) | (ida << 8u) | idb);
    }
    if ((*m).count == 0u) {
        (*m).normal = vec4<f32>(0.0);
    }
}
