// Grid build stages around the radix sort (host: src/grid/gpu.rs, CPU twin: src/grid/cpu.rs):
//
//   grid_clear   reset the table entries the previous build set: for s < built_n[0] (the
//                previous n), cell_start/cell_end[sorted_keys[s]] = 0. Dispatched indirectly
//                from clear_args, which the previous grid_ranges wrote.
//   grid_keys    per particle i: keys[i] = grid_key(grid_cell(positions[i].xyz)), values[i] = i
//                (the radix sort's input buffers)
//   (sort)       stable radix sort of (key, i) by the low log2(table_size) bits: equal keys stay
//                in particle order, so the sorted order is unique
//   grid_ranges  per sorted position s: a key's first position writes cell_start[key] = s, its
//                last writes cell_end[key] = s + 1; thread 0 records n (built_n) and the
//                next build's grid_clear dispatch size (clear_args)
//
// Why it is shaped so: every table entry is written by exactly one thread (the first or last
// position of its run), so the table is a pure function of the sorted keys, with no atomics.
// Empty keys hold start == end == 0, an empty range, so a search loops over
// [cell_start[k], cell_end[k]) without a special case. Clearing the whole table each build would
// cost O(table_size); clearing only the entries the previous build wrote costs O(previous n),
// and keeping that count and its dispatch size on the GPU means no host bookkeeping can drift
// from what the GPU last built (a recorded but never submitted build changes nothing). The
// particle loops stride by the whole dispatch, so counts above 65535 workgroups still work.

struct GridParams {
    // Particles in this build.
    n: u32,
    // table_size - 1.
    table_mask: u32,
    // 1 / cell_size, computed on the host (see grid_common.wgsl).
    inv_cell_size: f32,
    pad: u32,
}

fn grid_groups(count: u32) -> u32 {
    return min((count + GRID_WG - 1u) / GRID_WG, GRID_MAX_GROUPS);
}

@compute @workgroup_size(GRID_WG)
fn grid_clear(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let built = built_n[0];
    let stride = groups.x * GRID_WG;
    for (var s = gid.x; s < built; s = s + stride) {
        let k = sorted_keys[s] & grid_params.table_mask;
        cell_start[k] = 0u;
        cell_end[k] = 0u;
    }
}

@compute @workgroup_size(GRID_WG)
fn grid_keys(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let n = grid_params.n;
    let stride = groups.x * GRID_WG;
    for (var i = gid.x; i < n; i = i + stride) {
        let c = grid_cell(positions[i].xyz, grid_params.inv_cell_size);
        keys[i] = grid_key(c, grid_params.table_mask);
        values[i] = i;
    }
}

@compute @workgroup_size(GRID_WG)
fn grid_ranges(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let n = grid_params.n;
    let stride = groups.x * GRID_WG;
    for (var s = gid.x; s < n; s = s + stride) {
        let k = sorted_keys[s];
        if (s == 0u || sorted_keys[s - 1u] != k) {
            cell_start[k] = s;
        }
        if (s + 1u == n || sorted_keys[s + 1u] != k) {
            cell_end[k] = s + 1u;
        }
    }
    if (gid.x == 0u) {
        clear_args[0] = grid_groups(n);
        clear_args[1] = 1u;
        clear_args[2] = 1u;
        built_n[0] = n;
    }
}
