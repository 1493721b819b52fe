// The separating-axis test between two hulls: face normals of both, then the edge pairs that
// build a face of the Minkowski difference (Gauss-map pruning), with the face bias of box–box.
// CPU twin: src/rigid/hull/sat.rs (read its docs), same operation order. Work is in hull a's
// frame, hull b placed in it by `b_in_a`.

/// Relative and absolute parts of the face bias (sat.rs `BIAS_REL`, `BIAS_ABS`).
const SAT_BIAS_REL: f32 = 0.05;
const SAT_BIAS_ABS: f32 = 0.005;
/// Edge pairs with a squared sine below this are skipped (sat.rs `EDGE_PARALLEL`).
const SAT_EDGE_PARALLEL: f32 = 1e-6;
const SAT_NO_AXIS: f32 = -3.0e38;
const SAT_FACE_A: u32 = 0u;
const SAT_FACE_B: u32 = 1u;
const SAT_EDGE: u32 = 2u;

struct SatFace {
    index: u32,
    separation: f32,
}

struct SatEdge {
    edge_a: u32,
    edge_b: u32,
    separation: f32,
    axis: vec3<f32>,
}

struct HullSat {
    // false: an axis separates the hulls by more than the margin (the Rust `None`)
    ok: bool,
    kind: u32,
    index_a: u32,
    index_b: u32,
    separation: f32,
    normal: vec3<f32>,
    axis_a: vec3<f32>,
}

/// Faces of ha against hb placed by b_in_a (sat.rs `query_faces`).
fn sat_query_faces(ha: HullRef, hb: HullRef, b_in_a: HullFrame, margin: f32) -> SatFace {
    var best = SatFace(0u, SAT_NO_AXIS);
    let nf = min(ha.face_count, HULL_MAX_FACES);
    for (var f = 0u; f < nf; f++) {
        let pl = hull_plane(ha, f);
        let n = pl.xyz;
        let v = hull_frame_point(b_in_a, hull_support(hb, hull_frame_inv_dir(b_in_a, -n)));
        let sep = dot(n, v) - pl.w;
        if (f == 0u || hull_beats(sep, best.separation)) {
            best = SatFace(f, sep);
        }
        if (sep > margin) {
            return SatFace(f, sep);
        }
    }
    return best;
}

/// Edge pairs of ha and hb (placed by b_in_a) that build a Minkowski face (sat.rs
/// `query_edges`).
fn sat_query_edges(ha: HullRef, hb: HullRef, b_in_a: HullFrame, margin: f32) -> SatEdge {
    var best = SatEdge(NONE, NONE, SAT_NO_AXIS, vec3<f32>(0.0));
    let ca = ha.centre.xyz;
    let neb = min(hb.edge_count, HULL_MAX_EDGES);
    let nea = min(ha.edge_count, HULL_MAX_EDGES);
    for (var jb = 0u; jb < neb; jb++) {
        let eb = hull_edge(hb, jb);
        let q0 = hull_frame_point(b_in_a, hull_vertex(hb, eb.x));
        let q1 = hull_frame_point(b_in_a, hull_vertex(hb, eb.y));
        let c = -hull_frame_dir(b_in_a, hull_plane(hb, eb.z).xyz);
        let d = -hull_frame_dir(b_in_a, hull_plane(hb, eb.w).xyz);
        let dxc = cross(d, c);
        let eb_dir = q1 - q0;
        for (var ia = 0u; ia < nea; ia++) {
            let ea = hull_edge(ha, ia);
            let a = hull_plane(ha, ea.z).xyz;
            let b = hull_plane(ha, ea.w).xyz;
            let bxa = cross(b, a);
            let cba = dot(c, bxa);
            let dba = dot(d, bxa);
            let adc = dot(a, dxc);
            let bdc = dot(b, dxc);
            if (!(cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0)) {
                continue;
            }
            let p0 = hull_vertex(ha, ea.x);
            let p1 = hull_vertex(ha, ea.y);
            let ea_dir = p1 - p0;
            var axis = cross(ea_dir, eb_dir);
            let l2 = dot(axis, axis);
            if (l2 < SAT_EDGE_PARALLEL * dot(ea_dir, ea_dir) * dot(eb_dir, eb_dir) || l2 <= 0.0) {
                continue;
            }
            axis /= sqrt(l2);
            if (dot(axis, p0 - ca) < 0.0) {
                axis = -axis;
            }
            let sep = dot(axis, q0 - p0);
            if (best.edge_a == NONE || hull_beats(sep, best.separation)) {
                best = SatEdge(ia, jb, sep, axis);
            }
            if (sep > margin) {
                return SatEdge(ia, jb, sep, axis);
            }
        }
    }
    return best;
}

/// SAT for hulls ha (placed by fa) and hb (by fb) with the face bias (sat.rs `hull_sat`).
fn hull_sat(ha: HullRef, fa: HullFrame, hb: HullRef, fb: HullFrame, margin: f32) -> HullSat {
    var out: HullSat;
    out.ok = false;
    let b_in_a = hull_frame_relative(fa, fb);
    let qa = sat_query_faces(ha, hb, b_in_a, margin);
    if (qa.separation > margin) {
        return out;
    }
    let a_in_b = hull_frame_relative(fb, fa);
    let qb = sat_query_faces(hb, ha, a_in_b, margin);
    if (qb.separation > margin) {
        return out;
    }
    let qe = sat_query_edges(ha, hb, b_in_a, margin);
    if (qe.separation > margin) {
        return out;
    }
    var overlap = array<f32, 3>(-qa.separation, -qb.separation, -qe.separation);
    let h = min(ha.aabb_min.w, hb.aabb_min.w);
    var g = 0u;
    for (var k = 1u; k < 3u; k++) {
        if (overlap[k] < overlap[g] - (SAT_BIAS_REL * abs(overlap[g]) + SAT_BIAS_ABS * h)) {
            g = k;
        }
    }
    out.ok = true;
    if (g == 0u) {
        out.kind = SAT_FACE_A;
        out.index_a = qa.index;
        out.index_b = NONE;
        out.separation = qa.separation;
        out.normal = -hull_frame_dir(fa, hull_plane(ha, qa.index).xyz);
        out.axis_a = vec3<f32>(0.0);
    } else if (g == 1u) {
        out.kind = SAT_FACE_B;
        out.index_a = NONE;
        out.index_b = qb.index;
        out.separation = qb.separation;
        out.normal = hull_frame_dir(fb, hull_plane(hb, qb.index).xyz);
        out.axis_a = vec3<f32>(0.0);
    } else {
        out.kind = SAT_EDGE;
        out.index_a = qe.edge_a;
        out.index_b = qe.edge_b;
        out.separation = qe.separation;
        out.normal = -hull_frame_dir(fa, qe.axis);
        out.axis_a = qe.axis;
    }
    return out;
}
