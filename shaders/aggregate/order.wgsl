// The spatial order the collide iterations run in when the world has a grid, and the passes
// that move the particles' state into it and back. Every step, after the grid build:
//
// 1. `near_keys`: each particle's sort key, the Morton code of its 2x2x2-cell block (8 bits per
//    axis, so blocks 256 apart share a code); a stable radix sort (crate::gpu::sort) of
//    (key, particle) gives `order`: slot s holds particle order[s], nearby particles in nearby
//    slots, in particle order within a block.
// 2. `near_gather`: slot s gets its particle's state, packed as the collide loop reads a
//    neighbour: near_out[s] (position, radius; -1 for a removed particle), near_out[n + s]
//    (velocity, inverse mass), near_acc_out[s] (own acceleration; w: the square of it with the
//    gravity fields, what the collide loop's impact test reads); and near_slot[i] = s.
// 3. `near_cells`: per grid key, the slots of its particles in the grid's order, in one 8-byte
//    entry: inline for a key holding one or two particles, (a, a) or (a, b), else
//    (first, CELL_LISTED + count), the slots being cell_slots[first..first + count], where
//    cell_slots[k] is the slot of the grid's k-th sorted particle. A neighbour cell then costs
//    the collide loop one read at a random place (the key's entry) instead of three (the
//    range's start and end, and the particle index in the grid's order).
// 4. the collide iterations (`collide_near` in collide.wgsl), ping-ponging near_in/near_out;
// 5. `near_scatter`: each particle's position and velocity back into its own slot of pos/vel.
//
// Why positions and velocities share one binding (near_in / near_out, each 2n vec4s, the
// velocities in the second half): WebGPU's default limits allow 8 storage buffers per shader
// stage, and with separate arrays `near_gather` and `collide_near` bound 9. Halves keep the
// layout the collide loop reads (positions contiguous, 16 bytes per neighbour test; the
// velocity read only for a neighbour in reach) and cost one add of the uniform n per velocity
// index, and one change fixes both kernels. The alternatives cost more: the colliders in a
// uniform free a binding in `collide_near` only and cap the colliders; `order` and `near_slot`
// as halves of one binding need a copy out of the sort (which owns `order`); positions and
// velocities interleaved would read twice the bytes per rejected neighbour. The price is one
// binding of 32 bytes per particle slot, checked against the device when the world is built
// (Error::CapacityTooLarge).
//
// Why not the grid's own order: it is hashed, so a cell's 26 neighbours lie at random places
// in it and threads in that order would read every neighbour from memory (particles shuffled
// at random run the million-grain step 2.1x slower on lavapipe). Particle order is only as
// coherent as the particles were added: at a million grains even a lattice order leaves a
// whole z-plane of grains between two reads of one cell.
//
// The order is a schedule: each collide thread reads the previous iterate and writes only its
// own slot, so any order computes the same bits; the stable sort makes it deterministic anyway.
// CPU twins: src/aggregate/cpu.rs `near_key`, `near_order` and `near_cells`.

/// Spreads the low 8 bits of x so that bit k lands on bit 3k.
fn near_spread(x_in: u32) -> u32 {
    var x = x_in & 0xffu;
    x = (x | (x << 8u)) & 0x0000f00fu;
    x = (x | (x << 4u)) & 0x000c30c3u;
    x = (x | (x << 2u)) & 0x00249249u;
    return x;
}

/// The 24-bit sort key of a particle at `p`: the Morton code of its 2x2x2-cell block.
fn near_key(p: vec3<f32>, inv_cell_size: f32) -> u32 {
    let b = bitcast<vec3<u32>>(grid_cell(p, inv_cell_size)) >> vec3<u32>(1u);
    return near_spread(b.x) | (near_spread(b.y) << 1u) | (near_spread(b.z) << 2u);
}

@compute @workgroup_size(WG)
fn near_keys(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.n) {
        return;
    }
    order_keys[i] = near_key(pos_in[i].xyz, params.inv_cell_size);
    order_ids[i] = i;
}

@compute @workgroup_size(WG)
fn near_gather(@builtin(global_invocation_id) gid: vec3<u32>) {
    let s = gid.x;
    if (s >= params.n) {
        return;
    }
    let i = order[s];
    let pv = pos_in[i];
    let av = acc[i];
    near_out[s] = vec4<f32>(pv.xyz, select(-1.0, radius[i], pv.w != 0.0));
    near_out[params.n + s] = vec4<f32>(vel_in[i].xyz, av.w);
    let a = with_gravity(av.xyz);
    near_acc_out[s] = vec4<f32>(av.xyz, dot(a, a));
    near_slot[i] = s;
}

/// Thread k writes grid key k's entry and, for k < n, cell_slots[k], the slot of the grid's
/// k-th sorted particle; threads stride over tables larger than the dispatch.
@compute @workgroup_size(WG)
fn near_cells(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let table = params.table_mask + 1u;
    let stride = groups.x * WG;
    for (var k = gid.x; k < max(table, params.n); k = k + stride) {
        if (k < params.n) {
            cell_slots_out[k] = near_slot[grid_sorted[k]];
        }
        if (k < table) {
            let first = grid_start[k];
            let count = grid_end[k] - first;
            var c = vec2<u32>(first, CELL_LISTED + count);
            if (count == 1u) {
                let a = near_slot[grid_sorted[first]];
                c = vec2<u32>(a, a);
            } else if (count == 2u) {
                c = vec2<u32>(near_slot[grid_sorted[first]], near_slot[grid_sorted[first + 1u]]);
            }
            cells_out[k] = c;
        }
    }
}

@compute @workgroup_size(WG)
fn near_scatter(@builtin(global_invocation_id) gid: vec3<u32>) {
    let s = gid.x;
    if (s >= params.n) {
        return;
    }
    let i = order[s];
    pos_out[i] = vec4<f32>(near_in[s].xyz, pos_in[i].w);
    vel_out[i] = vec4<f32>(near_in[params.n + s].xyz, vel_in[i].w);
}
