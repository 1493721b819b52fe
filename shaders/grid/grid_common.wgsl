// Uniform-grid helpers shared by every shader that builds or searches the hashed grid: which
// cell a point is in, the table key of a cell, and the 27-cell neighbour stencil. Functions
// only, no bindings and no entry points, so any domain can include this file; compose it
// through `wgphys::grid::gpu::common_source()`, which puts the GRID_HASH_* constants (defined
// once in src/grid/mod.rs) in front of it. The Rust twins are `cell_of`, `cell_key`,
// `neighbour_keys` and `key_is_repeat` in src/grid/mod.rs; they compute bit-identical results.
//
// Why it is shaped so:
// * `grid_cell` multiplies by a host-computed 1 / cell_size instead of dividing: WGSL allows
//   2.5 ULP of error in a division but requires a correctly rounded product, and one ULP at a
//   cell boundary would put a particle in a different cell on the GPU than on the CPU. Subnormal
//   inputs and products are flushed to zero (CPU adapters such as llvmpipe run with
//   denormals-are-zero; the CPU twin flushes too), and the cell is clamped to the i32 range
//   before conversion.
// * `grid_key` hashes the three coordinates, then mixes the bits (the lowbias32 finalizer) so
//   that the low bits kept by the power-of-two mask depend on every input bit.
//
// Searching neighbours. A build leaves, per table key k, the sorted positions
// [cell_start[k], cell_end[k]) of the particles whose cell hashes to k (an empty key has
// cell_start == cell_end == 0), and sorted_index[s] the particle at sorted position s. Two
// different cells can hash to the same key, so the 27 keys around a cell may repeat, and a key
// must be visited once or its particles would be reported twice. The canonical loop, in the
// same order as the CPU's `CpuGrid::for_each_neighbour` (m = 0..27 runs dz, then dy, then dx
// from -1 to 1; within a key, sorted order):
//
//     let pi = positions[i].xyz;
//     var keys = grid_neighbour_keys(grid_cell(pi, inv_cell_size), table_mask);
//     for (var m = 0u; m < 27u; m = m + 1u) {
//         if (grid_key_is_repeat(&keys, m)) { continue; }
//         let k = keys[m];
//         for (var s = cell_start[k]; s < cell_end[k]; s = s + 1u) {
//             let j = sorted_index[s];
//             let d = positions[j].xyz - pi;
//             if (j != i && dot(d, d) <= radius * radius) { /* j is a neighbour of i */ }
//         }
//     }
//
// The key range may also hold particles of other cells that share the key; the distance test
// drops them. The stencil finds every pair closer than the cell size: choose
// cell_size >= the largest interaction distance.

/// The smallest normal f32 (f32::MIN_POSITIVE); anything smaller in magnitude counts as zero.
const GRID_MIN_NORMAL: f32 = 1.17549435e-38;
/// The largest f32 below 2^31 (2147483520): cells beyond the i32 range clamp to this.
const GRID_MAX_CELL: f32 = 2147483520.0;

fn grid_flush_subnormal(v: vec3<f32>) -> vec3<f32> {
    return select(v, vec3<f32>(0.0), abs(v) < vec3<f32>(GRID_MIN_NORMAL));
}

/// The integer cell of point `p`: floor(p / cell_size), computed as floor(p * inv_cell_size)
/// with the host's inv_cell_size = 1 / cell_size (see the header for why).
fn grid_cell(p: vec3<f32>, inv_cell_size: f32) -> vec3<i32> {
    let q = grid_flush_subnormal(grid_flush_subnormal(p) * inv_cell_size);
    return vec3<i32>(clamp(floor(q), vec3<f32>(-2147483648.0), vec3<f32>(GRID_MAX_CELL)));
}

/// The full 32-bit hash of a cell.
fn grid_hash(c: vec3<i32>) -> u32 {
    let u = bitcast<vec3<u32>>(c);
    var h = (u.x * GRID_HASH_P0) ^ (u.y * GRID_HASH_P1) ^ (u.z * GRID_HASH_P2);
    h = h ^ (h >> 16u);
    h = h * GRID_HASH_M0;
    h = h ^ (h >> 15u);
    h = h * GRID_HASH_M1;
    h = h ^ (h >> 16u);
    return h;
}

/// The table key of a cell (table_mask = table_size - 1): the hash of its block of 4x4x4 cells
/// above the six low bits, which hold the cell's place in the block, so that the cells of a
/// block sit side by side in the table (see src/grid/mod.rs).
fn grid_key(c: vec3<i32>, table_mask: u32) -> u32 {
    let o = bitcast<vec3<u32>>(c) & vec3<u32>(3u);
    let low = o.x | (o.y << 2u) | (o.z << 4u);
    return ((grid_hash(c >> vec3<u32>(2u)) << 6u) | low) & table_mask;
}

/// The m-th cell (m in 0..27) of the 3x3x3 stencil around `c`: dz outermost, dx innermost.
fn grid_neighbour_cell(c: vec3<i32>, m: u32) -> vec3<i32> {
    let o = vec3<i32>(i32(m % 3u), i32((m / 3u) % 3u), i32(m / 9u)) - vec3<i32>(1);
    return c + o;
}

/// The keys of the 27 stencil cells around `c`, in stencil order.
fn grid_neighbour_keys(c: vec3<i32>, table_mask: u32) -> array<u32, 27> {
    var keys: array<u32, 27>;
    for (var m = 0u; m < 27u; m = m + 1u) {
        keys[m] = grid_key(grid_neighbour_cell(c, m), table_mask);
    }
    return keys;
}

/// Whether stencil key m already appeared at an earlier stencil index (then skip it: its
/// particles were visited with the earlier one).
fn grid_key_is_repeat(keys: ptr<function, array<u32, 27>>, m: u32) -> bool {
    let k = (*keys)[m];
    for (var e = 0u; e < m; e = e + 1u) {
        if ((*keys)[e] == k) {
            return true;
        }
    }
    return false;
}
