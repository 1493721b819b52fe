// Stage `near_list`: once per step, after the spatial order's slot table (order.wgsl), each
// slot writes the slots of the grains it may touch during the step's collide iterations, so
// that the iterations read a short list instead of hashing and deduplicating 27 grid keys and
// reading their entries on every pass.
//
// A grain's candidates are the grains whose positions, as the grid was built, lie within
// `params.near_reach` of its own: the cell size plus the contact slop (every pair within reach
// at the build: a touching pair is at most two radii plus the slop apart) plus a skin of a
// quarter cell (NEAR_SKIN in src/aggregate/model.rs), what a pair may close in by during the
// iterations, which move the grains while the list stays. The search walks the grid cells the
// reach's box overlaps (3 or 4 along each axis, at most NEAR_SPAN) and keeps a key's grains
// whose own cell is the one visited, so a hash collision lists no grain twice.
//
// No rounding may change a list, or a GPU that fuses multiply-adds would list other pairs than
// the CPU. So the distance is measured in whole units (NEAR_UNITS per cell): each coordinate
// difference (exact where it matters) times `near_scale` (one correctly rounded
// multiplication), rounded down; the squared distance in units is then an exact integer,
// compared with `near_reach2`. The sphere of a 2.5-diameter reach holds 6 grains of the scenes'
// lattice blocks and about 9 of a dense pile, against 26 and 33 in the 27 cells the iterations
// walked before.
//
// Layout of `candidates` (u32, written as `candidates_out`, laid out by the step's n): [s] the
// number of candidates of slot s; [n + s] the particle in slot s (order[s], for the collide
// stage's grid walk of a slot with more candidates than its list holds, which tests the
// positions the grid was built from, so that collide_near binds 8 storage buffers, not 9);
// [(2 + e) * n + s]
// for e < list_capacity, the e-th
// candidate's slot, in the collide loop's visiting order (the box's cells z outermost, x
// innermost, then the grid's order within a key). Entry-major, so that a warp reading entry e of consecutive slots
// reads consecutive words. A slot with more candidates than `params.list_capacity` keeps only
// its count; collide_near then walks the grid for it with the same box test on the positions
// the grid was built from (pos_in), and visits the same candidates in the same order.
//
// CPU twin: src/aggregate/cpu.rs `near_list` (by particle, without a capacity).

/// How many particles a slot-table entry (order.wgsl `near_cells`) lists.
fn cell_entry_len(cell: vec2<u32>) -> u32 {
    if (cell.y >= CELL_LISTED) {
        return cell.y - CELL_LISTED;
    }
    return select(2u, 1u, cell.x == cell.y);
}

/// The slot of a slot-table entry's e-th particle.
fn cell_entry_slot(cell: vec2<u32>, e: u32) -> u32 {
    if (cell.y >= CELL_LISTED) {
        return cell_slots[cell.x + e];
    }
    return select(cell.y, cell.x, e == 0u);
}

/// Whether two positions are within `params.near_reach` of each other, measured in whole
/// units of 1/near_scale (see the header): first along each axis (comparisons rather than a
/// max, so that a NaN coordinate keeps the pair out everywhere, and the units below fit a u32),
/// then the squared distance in units, an exact integer.
fn near_in_reach(a: vec3<f32>, b: vec3<f32>) -> bool {
    let d = abs(a - b);
    let h = params.near_reach;
    if (!(d.x <= h && d.y <= h && d.z <= h)) {
        return false;
    }
    let q = vec3<u32>(floor(d * params.near_scale));
    return q.x * q.x + q.y * q.y + q.z * q.z <= params.near_reach2;
}

/// The lowest grid cell of the box around `p` and how many cells past it the box reaches
/// along each axis (at most NEAR_SPAN - 1, so the walk stays bounded at any position).
fn near_box_cells(p: vec3<f32>) -> array<vec3<i32>, 2> {
    let h = vec3<f32>(params.near_reach);
    let lo = grid_cell(p - h, params.inv_cell_size);
    let hi = grid_cell(p + h, params.inv_cell_size);
    return array<vec3<i32>, 2>(lo, clamp(hi - lo, vec3<i32>(0), vec3<i32>(i32(NEAR_SPAN) - 1)));
}

/// Whether no grain of grid cell `c` can be within reach of `p` (so the walk skips the cell,
/// about a quarter of the box's cells: its corners). Conservative: `f` (p in cell units) and
/// the gap to the cell round by at most |f| 2^-23 cells, and a grain's measured distance
/// (near_in_reach) rounds down by less than a unit, so with a margin of three units and
/// |f| 2^-14 cells the lower bound never exceeds any listed grain's measure, whichever way an
/// adapter rounds or fuses this arithmetic; skipping therefore changes no list.
fn near_cell_out_of_reach(p: vec3<f32>, c: vec3<i32>) -> bool {
    let f = p * params.inv_cell_size;
    let lo = vec3<f32>(c);
    let gap = max(vec3<f32>(0.0), max(lo - f, f - (lo + 1.0)));
    let margin = 3.0 + abs(f) * (f32(NEAR_UNITS) / 16384.0);
    let low = max(vec3<f32>(0.0), gap * f32(NEAR_UNITS) - margin);
    return dot(low, low) > f32(params.near_reach2) + 4.0;
}

/// Whether the grain at `q` is within reach of `p` and lies in grid cell `c` (tested in that
/// order: most grains of the cells walked are out of reach).
fn near_candidate(p: vec3<f32>, q: vec3<f32>, c: vec3<i32>) -> bool {
    return near_in_reach(p, q) && all(grid_cell(q, params.inv_cell_size) == c);
}

@compute @workgroup_size(WG)
fn near_list(@builtin(global_invocation_id) gid: vec3<u32>) {
    let s = gid.x;
    let n = params.n;
    if (s >= n) {
        return;
    }
    candidates_out[n + s] = order[s];
    let p = near_in[s].xyz;
    var count = 0u;
    // Removed grains (radius -1) and immovable ones (inverse mass 0) run no contacts.
    if (near_in[s].w >= 0.0 && near_in[n + s].w > 0.0) {
        let box = near_box_cells(p);
        for (var dz = 0; dz <= box[1].z; dz = dz + 1) {
            for (var dy = 0; dy <= box[1].y; dy = dy + 1) {
                for (var dx = 0; dx <= box[1].x; dx = dx + 1) {
                    let c = box[0] + vec3<i32>(dx, dy, dz);
                    if (near_cell_out_of_reach(p, c)) {
                        continue;
                    }
                    let cell = cells[grid_key(c, params.table_mask)];
                    let len = cell_entry_len(cell);
                    for (var e = 0u; e < len; e = e + 1u) {
                        let t = cell_entry_slot(cell, e);
                        let q = near_in[t];
                        if (t != s && q.w >= 0.0 && near_candidate(p, q.xyz, c)) {
                            if (count < params.list_capacity) {
                                candidates_out[(2u + count) * n + s] = t;
                            }
                            count = count + 1u;
                        }
                    }
                }
            }
        }
    }
    candidates_out[s] = count;
}
