// Stages `warm_start` (last step's impulses, matched by feature) and `solve_prepare` (the
// records the sweeps read, by position in the colouring's order), once per step before the
// substeps. The helpers and the record's layout are solver.wgsl's. CPU twin:
// src/rigid/solver/prepare.rs, same names and operation order.

// ---------------------------------------------------------------------------------------------
// warm_start: one thread per manifold slot.

@compute @workgroup_size(RIGID_WG)
fn warm_start(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= solve_manifold_count()) {
        return;
    }
    let m = manifolds[k];
    if (m.joint != 0u) {
        // A joint's slot keeps its impulses in the joint (joint.wgsl).
        return;
    }
    let count = min(m.count, MAX_POINTS);
    var found = false;
    var p: Manifold;
    if (params.warm_start != 0u && count > 0u) {
        let key0 = min(m.shape_a, m.shape_b);
        let key1 = max(m.shape_a, m.shape_b);
        let prev_count = min(
            min(atomicLoad(&counters[SOLVE_COUNTER_PREV_PAIRS]), params.pair_capacity),
            arrayLength(&manifolds_prev),
        );
        let lo = solve_prev_lower_bound(key0, key1, prev_count);
        if (lo < prev_count) {
            p = manifolds_prev[lo];
            found = min(p.shape_a, p.shape_b) == key0 && max(p.shape_a, p.shape_b) == key1
                && p.body_a == m.body_a && p.body_b == m.body_b;
        }
    }
    let basis = solve_basis(m.normal.xyz);
    var prev_basis = basis;
    if (found) {
        prev_basis = solve_basis(p.normal.xyz);
    }
    // The rolling resistance's impulse, carried through world space like the tangents.
    var roll = vec4<f32>(0.0);
    if (found && m.material.w > 0.0) {
        let tw = prev_basis.t1 * p.rolling.x + prev_basis.t2 * p.rolling.y;
        roll = vec4<f32>(dot(tw, basis.t1), dot(tw, basis.t2), 0.0, 0.0);
    }
    manifolds[k].rolling = roll;
    let radius = max(params.contact_margin, params.position_slop);
    for (var i = 0u; i < MAX_POINTS; i++) {
        var imp = vec4<f32>(0.0);
        if (found && i < count) {
            let pc = min(p.count, MAX_POINTS);
            // Feature id first, else the nearest previous point within the radius.
            var match_j = NONE;
            for (var j = 0u; j < pc; j++) {
                if (p.features[j] == m.features[i]) {
                    match_j = j;
                    break;
                }
            }
            if (match_j == NONE) {
                var best_d2 = radius * radius;
                for (var j = 0u; j < pc; j++) {
                    let d = p.points[j].xyz - m.points[i].xyz;
                    let d2 = dot(d, d);
                    if (d2 < best_d2) {
                        best_d2 = d2;
                        match_j = j;
                    }
                }
            }
            if (match_j != NONE) {
                let old = p.impulses[match_j];
                let tw = prev_basis.t1 * old.y + prev_basis.t2 * old.z;
                imp = vec4<f32>(old.x, dot(tw, basis.t1), dot(tw, basis.t2), 0.0);
            }
        }
        manifolds[k].impulses[i] = imp;
    }
}

// ---------------------------------------------------------------------------------------------
// solve_prepare: thread g checks manifold slot g and writes the record of position g of `order`.
// The coloured manifolds take the first positions of `order` (by colour, or by bin with the
// block solver); a later position may hold a stale index, whose record no sweep reads.

@compute @workgroup_size(RIGID_WG)
fn solve_prepare(@builtin(global_invocation_id) gid: vec3<u32>) {
    let g = gid.x;
    let n = solve_manifold_count();
    if (g >= n) {
        return;
    }
    // A manifold that needs solving but got no colour would be skipped silently: count it
    // (software adapters cut long loops in colour_manifolds short on huge scenes).
    let slot = manifolds[g];
    if (slot.colour == NONE && solve_needs(slot)) {
        atomicAdd(&counters[COUNTER_UNSOLVED], 1u);
    }
    let k = order_read[g];
    if (k < n && manifolds[k].colour != NONE) {
        solve_prepare_record(g, k);
    }
}

/// Writes manifold k's record at position s (SOLVE_RECORD_ROWS).
fn solve_prepare_record(s: u32, k: u32) {
    let stride = arrayLength(&solver) / SOLVE_RECORD_ROWS;
    let m = manifolds[k];
    let a = solve_load_posed(m.body_a);
    let b = solve_load_posed(m.body_b);
    let n = m.normal.xyz;
    let basis = solve_basis(n);
    let t1 = basis.t1;
    let t2 = basis.t2;
    let inv_mass = a.inv_mass + b.inv_mass;
    // A joint's slot records no points: the sweeps see count 0 and solve the joint.
    let count = select(min(m.count, MAX_POINTS), 0u, m.joint != 0u);
    solver[SOLVE_ROW_HEAD * stride + s] = vec4<u32>(m.body_a, m.body_b, k, count | (m.dynamic << 16u));
    solver[SOLVE_ROW_NORMAL * stride + s] = bitcast<vec4<u32>>(m.normal);
    solver[SOLVE_ROW_MATERIAL * stride + s] = bitcast<vec4<u32>>(m.material);
    for (var i = 0u; i < count; i++) {
        let p = m.points[i];
        let point = p.xyz;
        let ra = point - a.pos;
        let rb = point - b.pos;
        // The anchors of solve_arm: a round surface's centre, a flat one's contact point.
        let round_a = solve_round(m.material.y, p.w);
        let round_b = -solve_round(m.material.z, p.w);
        let la = quat_rotate_inv(a.orient, select(ra, ra + n * round_a, round_a != 0.0));
        let lb = quat_rotate_inv(b.orient, select(rb, rb + n * round_b, round_b != 0.0));
        let ka = solve_angular_rows(ra, a.inv_inertia, n, t1, t2);
        let kb = solve_angular_rows(rb, b.inv_inertia, n, t1, t2);
        let k0 = ka[0] + kb[0] + vec3<f32>(inv_mass, 0.0, 0.0);
        let k1 = ka[1] + kb[1] + vec3<f32>(0.0, inv_mass, 0.0);
        let k2 = ka[2] + kb[2] + vec3<f32>(0.0, 0.0, inv_mass);
        let dv = (a.lin_vel + cross(a.ang_vel, ra)) - (b.lin_vel + cross(b.ang_vel, rb));
        let vn = dot(dv, n);
        let row = (SOLVE_ROW_POINTS + i * SOLVE_ROWS_PER_POINT) * stride + s;
        solver[row] = bitcast<vec4<u32>>(vec4<f32>(la, vn));
        solver[row + stride] = bitcast<vec4<u32>>(vec4<f32>(lb, p.w));
        solver[row + 2u * stride] = bitcast<vec4<u32>>(vec4<f32>(k0.x, k1.y, k2.z, 0.0));
    }
}

