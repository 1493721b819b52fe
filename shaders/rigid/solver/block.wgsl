// ---------------------------------------------------------------------------------------------
// Block entry points (params.block_shift > 0; src/rigid/solver/block.rs): one indirect dispatch
// per partition, workgroup g solving the g-th non-empty bin of it (block_colour lists them; the
// leftover bin: one workgroup), `sweeps` times its colours in order with a barrier between
// colours. The bin's range in `order` is blocks[2b] to blocks[2b + 1]; each position of a colour's
// run holds the run's end in colour_sort_keys (block_colour).
//
// The bin's bodies in workgroup memory. A bin's workgroup walks its colours one after another,
// so each colour costs the chain of loads one contact needs (then: order, manifold, bodies; now
// its record's header, then the bodies: solve.wgsl SOLVE_RECORD_ROWS) plus a
// barrier; on an H100 that chain (about 3 µs) is what made a block dispatch last tens of
// microseconds (BENCHMARKS.md, 2026-11-26, `ce68020`). The velocity stages (warm apply, the biased and the
// relax sweeps, restitution) therefore first copy the bin's bodies into workgroup memory
// (`block_table`, a hash table keyed by body index), solve every colour of every sweep against
// that copy, and write the moved bodies' velocities back once at the end. A bin's dynamic
// bodies belong to no other bin of its partition, so no other workgroup of the dispatch reads
// or writes them; bodies the solver does not move (static, kinematic, sleeping) are only read.
// The copy holds exactly what `solve_load_velocity` loads, and a body is stored back into it
// only when the solver moves it, as `solve_store_velocity` does, so the bits are the same as
// solving from the bodies buffer (the same WGSL operations; a driver may contract the two
// inlined copies into fused multiply-adds differently, which WGSL allows, so the equality is a
// test: block_staging_changes_no_bit). A bin with more than BLOCK_STAGE_CONTACTS contacts or
// more bodies than the table takes (BLOCK_TABLE_FILL) is solved from the bodies buffer as
// before. The staged stages have entry points of their own (`_staged`), so that the block
// kernels without staging carry none of the copy's workgroup memory.

// Threads of a block workgroup: one warp on NVIDIA; a bin's colour holds tens of contacts in a
// wall of boxes. lavapipe runs each 8 lanes of a workgroup with barriers as a coroutine, and its
// block sweeps were 2x slower with 64 threads than with 16 (BENCHMARKS.md, "Block solver").
const SOLVE_BLOCK_WG: u32 = 32u;
var<workgroup> solve_block_runs: array<u32, MAX_COLOURS>;
var<workgroup> solve_block_count: u32;

// Slots of the workgroup copy (a power of two): 128 bodies of 112 bytes, their keys and the
// slots of 256 contacts take 15.6 KB of the 16 KB of workgroup memory wgpu's default limits
// allow a kernel.
const BLOCK_TABLE_BITS: u32 = 7u;
const BLOCK_TABLE: u32 = 1u << BLOCK_TABLE_BITS;
// The most bodies a staged bin may have (a staged bin's table is at most seven eighths full,
// so a lookup's probe ends soon; a bin that overflows may fill all 128 slots before it falls
// back), and the most contacts it may have (a bin with more is not tried).
const BLOCK_TABLE_FILL: u32 = 112u;
const BLOCK_STAGE_CONTACTS: u32 = 256u;
// No slot: the body is none or out of range, and solves as `solve_load_velocity` gives it.
const BLOCK_NO_SLOT: u32 = 0xffffu;
// block_insert's answer when the table is full.
const BLOCK_FULL: u32 = 0xfffffu;
// Bit 31 of a key: the solver moves the body (a manifold's `dynamic` bit said so).
const BLOCK_KEY_DYNAMIC: u32 = 0x80000000u;
// Bit 31 of `block_used` (the bodies inserted): some body did not fit.
const BLOCK_USED_FULL: u32 = 0x80000000u;

// A body as `solve_load_velocity` gives it: pose (w: the inverse mass, 0 when not moved),
// orientation, velocities with their fourth words, world inverse inertia (0 when not moved).
struct BlockBody {
    pos: vec4<f32>,
    orient: vec4<f32>,
    lin: vec4<f32>,
    ang: vec4<f32>,
    inertia: array<vec4<f32>, 3>,
}

// Key: body index + 1 (0: empty), bit 31 when the solver moves it.
var<workgroup> block_keys: array<atomic<u32>, BLOCK_TABLE>;
var<workgroup> block_table: array<BlockBody, BLOCK_TABLE>;
// Bodies inserted into the table, and BLOCK_USED_FULL.
var<workgroup> block_used: atomic<u32>;
var<workgroup> block_staged: u32;
// Per position of the bin in `order`: the slots of its manifold's bodies (a | b << 16).
var<workgroup> block_pair_slots: array<u32, BLOCK_STAGE_CONTACTS>;

fn block_hash(body: u32) -> u32 {
    return (body * 0x9e3779b1u) >> (32u - BLOCK_TABLE_BITS);
}

// Puts `body` into the table (once), marking it moved when `dynamic`; its slot, BLOCK_NO_SLOT
// for none, BLOCK_FULL when the table is full.
fn block_insert(body: u32, dynamic: bool) -> u32 {
    if (body == NONE || body >= params.body_count) {
        return BLOCK_NO_SLOT;
    }
    let key = body + 1u;
    var h = block_hash(body);
    var probes = 0u;
    // A weak exchange may fail with the slot still empty: it is retried without counting.
    for (var tries = 0u; tries < 4u * BLOCK_TABLE; tries++) {
        let r = atomicCompareExchangeWeak(&block_keys[h], 0u, key);
        if (r.exchanged || (r.old_value & ~BLOCK_KEY_DYNAMIC) == key) {
            if (r.exchanged && atomicAdd(&block_used, 1u) >= BLOCK_TABLE_FILL) {
                return BLOCK_FULL;
            }
            if (dynamic) {
                atomicOr(&block_keys[h], BLOCK_KEY_DYNAMIC);
            }
            return h;
        }
        if (r.old_value != 0u) {
            probes++;
            if (probes >= BLOCK_TABLE) {
                return BLOCK_FULL;
            }
            h = (h + 1u) & (BLOCK_TABLE - 1u);
        }
    }
    return BLOCK_FULL;
}

// solve_load_velocity from the workgroup copy.
fn block_load(slot: u32, dynamic: bool) -> SolveBody {
    if (slot == BLOCK_NO_SLOT) {
        // What solve_load_velocity gives for no body: no mass, no inertia, not moved.
        return solve_load_velocity(NONE, false);
    }
    let pos = block_table[slot].pos;
    var s = solve_body_posed(pos, block_table[slot].orient, block_table[slot].lin, block_table[slot].ang);
    if (dynamic) {
        s.inv_mass = pos.w;
        s.inv_inertia = mat3_cols(block_table[slot].inertia);
        s.is_dyn = true;
    }
    return s;
}

// solve_store_velocity into the workgroup copy.
fn block_store(slot: u32, s: SolveBody) {
    if (!s.is_dyn || slot == BLOCK_NO_SLOT) {
        return;
    }
    block_table[slot].lin = vec4<f32>(s.lin_vel, s.lin_w);
    block_table[slot].ang = vec4<f32>(s.ang_vel, s.ang_w);
}

// One contact of a velocity stage against the workgroup copy (solve_one's stages but the
// position projection).
// `slots`: the bodies' slots, a | b << 16.
fn block_solve_one(stage: u32, s: u32, slots: u32) {
    if (solve_skips(stage, s)) {
        return;
    }
    let slot_a = slots & 0xffffu;
    let slot_b = slots >> 16u;
    let h = solve_head(s);
    var a = block_load(slot_a, (h.dynamic & SOLVE_DYNAMIC_A) != 0u);
    var b = block_load(slot_b, (h.dynamic & SOLVE_DYNAMIC_B) != 0u);
    solve_velocity_bodies(stage, s, h, &a, &b);
    block_store(slot_a, a);
    block_store(slot_b, b);
}

// Copies bin [start, end)'s bodies into the table; whether they all fit (uniform).
fn block_stage(t: u32, start: u32, end: u32) -> bool {
    for (var h = t; h < BLOCK_TABLE; h += SOLVE_BLOCK_WG) {
        atomicStore(&block_keys[h], 0u);
    }
    if (t == 0u) {
        atomicStore(&block_used, 0u);
    }
    workgroupBarrier();
    var fits = true;
    for (var s = start + t; s < end; s += SOLVE_BLOCK_WG) {
        let h = solve_head(s);
        let a = block_insert(h.body_a, (h.dynamic & SOLVE_DYNAMIC_A) != 0u);
        let b = block_insert(h.body_b, (h.dynamic & SOLVE_DYNAMIC_B) != 0u);
        fits = fits && a != BLOCK_FULL && b != BLOCK_FULL;
        block_pair_slots[s - start] = a | (b << 16u);
    }
    if (!fits) {
        atomicOr(&block_used, BLOCK_USED_FULL);
    }
    workgroupBarrier();
    if (t == 0u) {
        block_staged = select(0u, 1u, (atomicLoad(&block_used) & BLOCK_USED_FULL) == 0u);
    }
    if (workgroupUniformLoad(&block_staged) == 0u) {
        return false;
    }
    for (var h = t; h < BLOCK_TABLE; h += SOLVE_BLOCK_WG) {
        let key = atomicLoad(&block_keys[h]);
        if (key != 0u) {
            let s = solve_load_velocity((key & ~BLOCK_KEY_DYNAMIC) - 1u, (key & BLOCK_KEY_DYNAMIC) != 0u);
            var c: BlockBody;
            c.pos = vec4<f32>(s.pos, s.inv_mass);
            c.orient = s.orient;
            c.lin = vec4<f32>(s.lin_vel, s.lin_w);
            c.ang = vec4<f32>(s.ang_vel, s.ang_w);
            c.inertia = array<vec4<f32>, 3>(
                vec4<f32>(s.inv_inertia[0], 0.0),
                vec4<f32>(s.inv_inertia[1], 0.0),
                vec4<f32>(s.inv_inertia[2], 0.0),
            );
            block_table[h] = c;
        }
    }
    workgroupBarrier();
    return true;
}

// Writes the moved bodies' velocities back (after the last sweep's barrier).
fn block_unstage(t: u32) {
    for (var h = t; h < BLOCK_TABLE; h += SOLVE_BLOCK_WG) {
        let key = atomicLoad(&block_keys[h]);
        if ((key & BLOCK_KEY_DYNAMIC) != 0u) {
            let body = (key & ~BLOCK_KEY_DYNAMIC) - 1u;
            bodies[body].lin_vel = block_table[h].lin;
            bodies[body].ang_vel = block_table[h].ang;
        }
    }
}

// Thread t's share of positions start..end, one colour's contacts against the workgroup copy (the
// sequential colour's, which share bodies, all in thread 0, in order).
// `first`: the bin's first position (where block_pair_slots starts).
fn block_run(stage: u32, t: u32, first: u32, start: u32, end: u32, sequential: bool) {
    if (sequential) {
        if (t == 0u) {
            for (var s = start; s < end; s++) {
                block_solve_one(stage, s, block_pair_slots[s - first]);
            }
        }
    } else {
        for (var s = start + t; s < end; s += SOLVE_BLOCK_WG) {
            block_solve_one(stage, s, block_pair_slots[s - first]);
        }
    }
}

// Bin g of partition `part` (the leftover bin past the partitions): thread 0 lists where each
// colour's run ends (block_colour left the end at every position of a run; a bin holds at most
// MAX_COLOURS runs), so that a run costs the workgroup one barrier, and leaves their count in
// solve_block_count. Returns the bin's first and end position in `order`.
fn solve_block_bin(part: u32, g: u32, t: u32) -> vec2<u32> {
    var bin = block_leftover_bin();
    if (part < BLOCK_PARTITIONS) {
        bin = blocks[block_list_base(part) + g];
    }
    let start = blocks[2u * bin];
    let end = blocks[2u * bin + 1u];
    if (t == 0u) {
        var pos = start;
        var count = 0u;
        while (pos < end && count < MAX_COLOURS) {
            solve_block_runs[count] = colour_sort_keys[pos];
            pos = colour_sort_keys[pos] & ~BLOCK_RUN_SEQUENTIAL;
            count++;
        }
        solve_block_count = count;
    }
    return vec2<u32>(start, end);
}

// `sweeps` times the bin's runs from `start`, each contact's bodies loaded from and stored to
// the bodies buffer.
fn block_sweeps_from_buffers(stage: u32, t: u32, start: u32, count: u32, sweeps: u32) {
    for (var s = 0u; s < sweeps; s++) {
        var pos = start;
        for (var r = 0u; r < count; r++) {
            let run = solve_block_runs[r] & ~BLOCK_RUN_SEQUENTIAL;
            let sequential = (solve_block_runs[r] & BLOCK_RUN_SEQUENTIAL) != 0u;
            solve_run(stage, t, SOLVE_BLOCK_WG, pos, run, sequential);
            storageBarrier();
            workgroupBarrier();
            pos = run;
        }
    }
}

fn solve_block(stage: u32, part: u32, g: u32, t: u32, sweeps: u32) {
    let bin = solve_block_bin(part, g, t);
    let count = workgroupUniformLoad(&solve_block_count);
    block_sweeps_from_buffers(stage, t, bin.x, count, sweeps);
}

// solve_block against a workgroup copy of the bin's bodies when they fit (counted in
// COUNTER_STAGED_BINS, or COUNTER_UNSTAGED_BINS when the bin is solved from the buffers; an
// empty bin, such as a leftover bin with no contacts, counts in neither).
fn solve_block_staged(stage: u32, part: u32, g: u32, t: u32, sweeps: u32) {
    let bin = solve_block_bin(part, g, t);
    let start = bin.x;
    if (t == 0u) {
        let contacts = bin.y - bin.x;
        block_staged = select(0u, 1u, contacts > 0u && contacts <= BLOCK_STAGE_CONTACTS);
        if (contacts > BLOCK_STAGE_CONTACTS) {
            atomicAdd(&counters[COUNTER_UNSTAGED_BINS], 1u);
        }
    }
    let count = workgroupUniformLoad(&solve_block_count);
    var staged = workgroupUniformLoad(&block_staged) != 0u;
    if (staged) {
        staged = block_stage(t, start, bin.y);
        if (t == 0u) {
            atomicAdd(&counters[select(COUNTER_UNSTAGED_BINS, COUNTER_STAGED_BINS, staged)], 1u);
        }
    }
    if (!staged) {
        block_sweeps_from_buffers(stage, t, start, count, sweeps);
        return;
    }
    for (var s = 0u; s < sweeps; s++) {
        var pos = start;
        for (var r = 0u; r < count; r++) {
            let run = solve_block_runs[r] & ~BLOCK_RUN_SEQUENTIAL;
            let sequential = (solve_block_runs[r] & BLOCK_RUN_SEQUENTIAL) != 0u;
            block_run(stage, t, start, pos, run, sequential);
            workgroupBarrier();
            pos = run;
        }
    }
    block_unstage(t);
}

// The warm-apply sweep runs through this entry too (`warm` in its pass record), as with
// solve_contact.
@compute @workgroup_size(SOLVE_BLOCK_WG)
fn solve_contact_block(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let stage = select(SOLVE_STAGE_CONTACT, SOLVE_STAGE_WARM, pass_info.warm != 0u);
    solve_block(stage, pass_info.colour, wg.x, t, 1u);
}

@compute @workgroup_size(SOLVE_BLOCK_WG)
fn solve_relax_block(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    solve_block(SOLVE_STAGE_RELAX, pass_info.colour, wg.x, t, params.block_sweeps);
}

@compute @workgroup_size(SOLVE_BLOCK_WG)
fn solve_restitution_block(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    solve_block(SOLVE_STAGE_RESTITUTION, pass_info.colour, wg.x, t, 1u);
}

@compute @workgroup_size(SOLVE_BLOCK_WG)
fn solve_position_block(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    solve_block(SOLVE_STAGE_POSITION, pass_info.colour, wg.x, t, 1u);
}

// The staged velocity stages (RigidWorld::set_block_staging): their own entry points, so that
// the block kernels without staging carry none of the copy's workgroup memory.
@compute @workgroup_size(SOLVE_BLOCK_WG)
fn solve_contact_block_staged(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let stage = select(SOLVE_STAGE_CONTACT, SOLVE_STAGE_WARM, pass_info.warm != 0u);
    solve_block_staged(stage, pass_info.colour, wg.x, t, 1u);
}

@compute @workgroup_size(SOLVE_BLOCK_WG)
fn solve_relax_block_staged(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    solve_block_staged(SOLVE_STAGE_RELAX, pass_info.colour, wg.x, t, params.block_sweeps);
}

@compute @workgroup_size(SOLVE_BLOCK_WG)
fn solve_restitution_block_staged(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    solve_block_staged(SOLVE_STAGE_RESTITUTION, pass_info.colour, wg.x, t, 1u);
}
