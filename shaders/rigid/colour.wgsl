// Stage `colour` (colour.rs): the solver's batches, a colour being a set of manifolds that
// share no dynamic body. CPU twin: src/rigid/colour.rs, same algorithm and order.
//
// Jones–Plassmann rounds, which give the greedy colouring in
// decreasing claim priority. In round r every waiting manifold claims its dynamic bodies with
// atomicMax(priority); one that holds all of them is a local maximum (every neighbour of
// higher priority is coloured already), and takes the lowest colour none of its bodies uses
// (a 32-bit colour mask per body). Winners of a round share no body, so the masks they write
// are their own. Integer max and or do not depend on the order of the threads, so the result
// is the same on the CPU and on any GPU, in one workgroup or many.
//
// `colour_reset` also writes each manifold's `dynamic` bits (which of its bodies the solver
// moves: dynamic and awake), read once from the bodies per step; the rounds and the solver's
// sweeps read them with the body ids.
//
// `claims` words: [0, B) belong to the wake stages; [B, 4B) the claim words of rounds r with
// r % 3 = 0, 1, 2; [4B, 5B) the colour masks (B = params.body_count); with blocks, [B, 6B)
// are block_colour's colour masks per partition and the leftover bin. A manifold that loses
// round r clears, for its bodies, the words of a later round before anyone claims them there,
// so no pass is spent clearing them: in one workgroup the words of round r + 1 (claimed after
// a barrier), in passes those of round r + 2 (the pass after next claims them).
//
// Two ways to run it: `colour_manifolds`, one workgroup looping over the rounds (small
// scenes, one dispatch), ending with `colour_finish_body`: leftovers to the sequential colour,
// and a counting sort where thread t owns a contiguous range of manifolds (so the order inside
// a colour is the index order, the same as the CPU's). Or, for large scenes (software adapters
// stop a single invocation's loops after about 65535 iterations), passes: `colour_init`,
// `colour_claim` (round 0) and SOLVE_COLOUR_ROUNDS rounds (round r in group 1: pick round r,
// then the losers claim round r + 1; a manifold's claim depends only on its own pick, and the
// words it claims are neither read nor cleared in that pass): COLOUR_ROUNDS_OVER_ALL
// `colour_round` passes over every slot, the last listing the losers in `order`, then
// `colour_round_listed` passes over that list, after its indirect arguments are copied; then
// `colour_keys` (leftovers, a key per pair slot: its colour, or MAX_COLOURS for none, counted
// per colour), the stable radix sort of (key, slot) (src/gpu/sort.rs, whose output buffer is
// `order`) and `colour_ranges` (one workgroup over the MAX_COLOURS counts): the same order,
// without one workgroup walking every slot (8 ms a step at 100k boxes on an H200).
// With the block solver (params.block_shift > 0, large scenes) a third way, at the end of this
// file: `colour_init`, `colour_keys` (a key per slot: its bin and a shuffle bucket), the sort
// and `block_colour` (each bin coloured by one thread).

var<workgroup> colour_left: atomic<u32>;
var<workgroup> colour_manifold_total: atomic<u32>;
var<workgroup> colour_flag: u32;
var<workgroup> colour_hist: array<u32, MAX_COLOURS * RIGID_WG>; // colour-major
var<workgroup> colour_totals: array<u32, MAX_COLOURS>;
var<workgroup> colour_starts: array<u32, MAX_COLOURS + 1u>;

fn colour_sync() {
    storageBarrier();
    workgroupBarrier();
}

/// The `dynamic` bits of a manifold (solve.wgsl SOLVE_DYNAMIC_A / _B; colour.rs
/// `mark_dynamic`): which of its bodies the solver moves this step (dynamic and awake), read
/// from the bodies once per step by `colour_reset`, so that a colouring round and a solver
/// sweep find them with the body ids.
fn colour_dynamic_bits(m: Manifold) -> u32 {
    if ((m.dynamic & MANIFOLD_SENSOR) != 0u) {
        // A sensor's pair moves no body (narrow.wgsl set the bit).
        return MANIFOLD_SENSOR;
    }
    return select(0u, SOLVE_DYNAMIC_A, solve_is_dynamic(m.body_a))
        | select(0u, SOLVE_DYNAMIC_B, solve_is_dynamic(m.body_b));
}

/// The dynamic bodies a manifold of bodies a and b with `dynamic` bits claims (NONE where none;
/// a body paired with itself once).
fn colour_claimed(a: u32, b: u32, dynamic: u32) -> vec2<u32> {
    var d = vec2<u32>(NONE, NONE);
    if ((dynamic & SOLVE_DYNAMIC_A) != 0u) {
        d.x = a;
    }
    if (b != a && (dynamic & SOLVE_DYNAMIC_B) != 0u) {
        d.y = b;
    }
    return d;
}

fn colour_bodies(m: Manifold) -> vec2<u32> {
    return colour_claimed(m.body_a, m.body_b, m.dynamic);
}

/// What a colouring round needs of slot k that may still wait (`colour_may_wait`): the bodies
/// it claims, read field by field (NONE, NONE: it has no body the solver moves, so it does not
/// wait).
fn colour_round_bodies(k: u32) -> vec2<u32> {
    return colour_claimed(manifolds[k].body_a, manifolds[k].body_b, manifolds[k].dynamic);
}

fn colour_claim_word(d: u32, r: u32) -> u32 {
    return params.body_count * (1u + r % 3u) + d;
}

fn colour_mask_word(d: u32) -> u32 {
    return params.body_count * 4u + d;
}

fn colour_mask(d: u32) -> u32 {
    if (d == NONE) {
        return 0u;
    }
    return atomicLoad(&claims[colour_mask_word(d)]);
}

/// Start: nothing coloured, the manifold's `dynamic` bits written, the claim words and masks
/// of every claimed body cleared.
fn colour_reset(k: u32) {
    manifolds[k].colour = NONE;
    manifolds[k].dynamic = colour_dynamic_bits(manifolds[k]);
    let d = colour_bodies(manifolds[k]);
    for (var e = 0u; e < 2u; e++) {
        if (d[e] != NONE) {
            atomicStore(&claims[colour_claim_word(d[e], 0u)], 0u);
            atomicStore(&claims[colour_claim_word(d[e], 1u)], 0u);
            atomicStore(&claims[colour_claim_word(d[e], 2u)], 0u);
            atomicStore(&claims[colour_mask_word(d[e])], 0u);
            if (params.block_shift > 0u) {
                // block_colour's masks are words [B, 6B): partitions 0..3 and the leftover bin.
                atomicStore(&claims[block_mask_word(d[e], BLOCK_PARTITIONS)], 0u);
            }
        }
    }
}

/// Whether a slot is a contact manifold with points (COUNTER_MANIFOLDS counts these; a joint's
/// slot is not one; colour.rs `is_contact`).
fn colour_contact(m: Manifold) -> bool {
    return m.count > 0u && m.joint == 0u;
}

/// Whether a manifold still waits for a colour: uncoloured and `solve_needs`.
fn colour_waiting(m: Manifold) -> bool {
    return m.colour == NONE && solve_needs(m);
}

/// Whether slot k may still wait, from its first 16 bytes alone: most slots are coloured or
/// have no points after the first rounds, and the rounds visit every slot.
fn colour_may_wait(k: u32) -> bool {
    return manifolds[k].colour == NONE && manifolds[k].count > 0u;
}

/// Round r, phase 1: a waiting manifold claims its bodies.
fn colour_claim_one(k: u32, r: u32) {
    if (!colour_may_wait(k)) {
        return;
    }
    let d = colour_round_bodies(k);
    if (all(d == vec2<u32>(NONE))) {
        return;
    }
    let p = solve_priority(k);
    for (var e = 0u; e < 2u; e++) {
        if (d[e] != NONE) {
            atomicMax(&claims[colour_claim_word(d[e], r)], p);
        }
    }
}

/// Round r, phase 2: a waiting manifold that holds all its bodies takes the lowest free colour;
/// one that does not clears the words of round `clear` (a later round it may claim in).
/// Returns whether it still waits.
fn colour_pick_one(k: u32, r: u32, clear: u32) -> bool {
    if (!colour_may_wait(k)) {
        return false;
    }
    let d = colour_round_bodies(k);
    if (all(d == vec2<u32>(NONE))) {
        return false;
    }
    let p = solve_priority(k);
    var holds = true;
    for (var e = 0u; e < 2u; e++) {
        if (d[e] != NONE && atomicLoad(&claims[colour_claim_word(d[e], r)]) != p) {
            holds = false;
        }
    }
    if (!holds) {
        for (var e = 0u; e < 2u; e++) {
            if (d[e] != NONE) {
                atomicStore(&claims[colour_claim_word(d[e], clear)], 0u);
            }
        }
        return true;
    }
    let free = ~(colour_mask(d.x) | colour_mask(d.y));
    var c = sequential_colour();
    if (free != 0u) {
        c = min(firstTrailingBit(free), sequential_colour());
    }
    if (c < sequential_colour()) {
        for (var e = 0u; e < 2u; e++) {
            if (d[e] != NONE) {
                atomicOr(&claims[colour_mask_word(d[e])], 1u << c);
            }
        }
    }
    manifolds[k].colour = c;
    atomicMax(&counters[COUNTER_COLOURS_WANTED], c + 1u);
    atomicMax(&counters[COUNTER_ROUNDS], r + 1u);
    return false;
}

@compute @workgroup_size(RIGID_WG)
fn colour_manifolds(@builtin(local_invocation_index) t: u32) {
    let n = solve_manifold_count();
    for (var k = t; k < n; k += RIGID_WG) {
        colour_reset(k);
    }
    colour_sync();
    for (var r = 0u; r < SOLVE_COLOUR_ROUNDS; r++) {
        for (var k = t; k < n; k += RIGID_WG) {
            colour_claim_one(k, r);
        }
        colour_sync();
        for (var k = t; k < n; k += RIGID_WG) {
            if (colour_pick_one(k, r, r + 1u)) {
                atomicAdd(&colour_left, 1u);
            }
        }
        colour_sync();
        if (t == 0u) {
            colour_flag = atomicLoad(&colour_left);
            atomicStore(&colour_left, 0u);
        }
        if (workgroupUniformLoad(&colour_flag) == 0u) {
            break;
        }
    }
    colour_finish_body(t, n);
}

@compute @workgroup_size(RIGID_WG)
fn colour_init(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < solve_manifold_count()) {
        colour_reset(gid.x);
    }
    // The per-colour counts `colour_keys` adds to, and the manifold total.
    if (gid.x <= MAX_COLOURS) {
        atomicStore(&counters[COUNTER_COLOUR_COUNT + gid.x], 0u);
    }
    // The listed rounds' list and indirect arguments: empty, no workgroup.
    if (gid.x == 0u) {
        atomicStore(&counters[COUNTER_WAITING_GROUPS], 0u);
        atomicStore(&counters[COUNTER_WAITING_GROUPS + 1u], 1u);
        atomicStore(&counters[COUNTER_WAITING_GROUPS + 2u], 1u);
        atomicStore(&counters[COUNTER_WAITING], 0u);
    }
    if (gid.x == 0u && params.block_shift > 0u) {
        block_init_counters();
    }
}

var<workgroup> colour_wg_counts: array<atomic<u32>, MAX_COLOURS + 1u>;

/// Per pair slot: a waiting manifold goes to the sequential colour, and the slot's sort key is
/// its colour (MAX_COLOURS: none, sorted after every colour); the counts per colour and of
/// manifolds with points go to the counters, through workgroup counts (integer adds, so in any
/// order the same totals). With blocks the key of a manifold to solve is its bin (block_key),
/// its sort value the slot with its dynamic bodies' flags (block_flags); no colour yet.
@compute @workgroup_size(RIGID_WG)
fn colour_keys(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    if (t <= MAX_COLOURS) {
        atomicStore(&colour_wg_counts[t], 0u);
    }
    workgroupBarrier();
    let k = gid.x;
    if (k < params.pair_capacity) {
        var key = colour_empty_key();
        var value = k;
        if (k < solve_manifold_count() && params.block_shift > 0u) {
            let m = manifolds[k];
            if (solve_needs(m)) {
                key = block_sort_key(block_key(m), k);
                value = k | block_flags(m);
            }
            if (colour_contact(m)) {
                atomicAdd(&colour_wg_counts[MAX_COLOURS], 1u);
            }
        } else if (k < solve_manifold_count()) {
            let m = manifolds[k];
            var c = m.colour;
            if (colour_waiting(m)) {
                c = sequential_colour();
                manifolds[k].colour = c;
            }
            if (c != NONE) {
                key = c;
                atomicAdd(&colour_wg_counts[c], 1u);
            }
            if (colour_contact(m)) {
                atomicAdd(&colour_wg_counts[MAX_COLOURS], 1u);
            }
        }
        colour_sort_keys[k] = key;
        colour_sort_values[k] = value;
    }
    workgroupBarrier();
    if (t <= MAX_COLOURS) {
        let c = atomicLoad(&colour_wg_counts[t]);
        if (c > 0u) {
            // With blocks the colours come later (block_colour); the manifolds are counted here.
            let word = select(COUNTER_COLOUR_COUNT + t, COUNTER_MANIFOLDS, params.block_shift > 0u);
            atomicAdd(&counters[word], c);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The block solver's order (params.block_shift > 0; CPU twin: src/rigid/solver/block.rs, whose
// docs say why). A contact's sort key is its bin (the block of the first of BLOCK_PARTITIONS
// partitions, each shifted by a quarter block, that holds both its dynamic bodies' cells,
// hashed into params.block_bins bins, or the leftover bin, after them, when no partition
// holds them) and a shuffle bucket. After the sort, block_colour colours each bin on its own,
// first fit in the sorted order, and orders its contacts by colour: no Jones–Plassmann
// rounds (33 dispatches) with blocks.

const BLOCK_PARTITIONS: u32 = 4u;
/// Bit of a run end (in colour_sort_keys after block_colour) marking the sequential colour's run.
const BLOCK_RUN_SEQUENTIAL: u32 = 0x80000000u;
/// Bits the sort key is filled up to with shuffle bits (solver/block.rs KEY_BITS).
const BLOCK_KEY_BITS: u32 = 16u;
/// The sort value of a contact with blocks: its slot, with its dynamic bodies flagged in the
/// top bits (a: bit 31, b: bit 30), so that block_colour reads no body. Slots stay below 2^30
/// (a manifold takes hundreds of bytes).
const BLOCK_FLAG_A: u32 = 0x80000000u;
const BLOCK_FLAG_B: u32 = 0x40000000u;
const BLOCK_SLOT_MASK: u32 = 0x3fffffffu;

fn block_leftover_bin() -> u32 {
    return BLOCK_PARTITIONS * params.block_bins;
}

/// The block holding `cell` in partition `part`.
fn block_of(cell: vec3<i32>, part: u32) -> vec3<i32> {
    let step = i32(((1u << params.block_shift) / BLOCK_PARTITIONS) * part);
    return (cell + vec3<i32>(step)) >> vec3<u32>(params.block_shift);
}

fn block_bin(block: vec3<i32>, part: u32) -> u32 {
    return part * params.block_bins + (grid_hash(block) & (params.block_bins - 1u));
}

/// The grid cell of body i's centre (the origin's for the static world).
fn block_cell(i: u32) -> vec3<i32> {
    var p = vec3<f32>(0.0);
    if (i < params.body_count) {
        p = bodies[i].pos.xyz;
    }
    return grid_cell(p, params.inv_cell_size);
}

/// The sort key of a manifold to solve with the block solver: its bin (solver/block.rs
/// `block_key`).
fn block_key(m: Manifold) -> u32 {
    let a = solve_is_dynamic(m.body_a);
    let b = m.body_b != m.body_a && solve_is_dynamic(m.body_b);
    var bin = block_leftover_bin();
    if (a && b) {
        let ca = block_cell(m.body_a);
        let cb = block_cell(m.body_b);
        for (var part = 0u; part < BLOCK_PARTITIONS; part++) {
            let blk = block_of(ca, part);
            if (all(blk == block_of(cb, part))) {
                bin = block_bin(blk, part);
                break;
            }
        }
    } else if (a || b) {
        let one = select(m.body_b, m.body_a, a);
        bin = block_bin(block_of(block_cell(one), 0u), 0u);
    }
    return bin;
}

/// The sort key of slot k in bin `bin`: the bin, then a bucket of the slot's claim priority,
/// highest first, so that first fit visits a bin's contacts shuffled (solver/block.rs
/// `sort_key` says why).
fn block_sort_key(bin: u32, k: u32) -> u32 {
    let bits = block_shuffle_bits();
    let buckets = 1u << bits;
    let bucket = (solve_priority(k) >> (31u - bits)) & (buckets - 1u);
    return (bin << bits) | (buckets - 1u - bucket);
}

/// Low sort-key bits that shuffle a bin's contacts: what the bins leave of BLOCK_KEY_BITS, 1
/// to 5 (solver/block.rs `shuffle_bits`).
fn block_shuffle_bits() -> u32 {
    let bin_bits = 32u - countLeadingZeros(block_leftover_bin() + 1u);
    return clamp(max(BLOCK_KEY_BITS, bin_bits) - bin_bits, 1u, 5u);
}

/// The flags of a manifold's dynamic bodies, for its sort value.
fn block_flags(m: Manifold) -> u32 {
    let d = colour_bodies(m);
    return select(0u, BLOCK_FLAG_A, d.x != NONE) | select(0u, BLOCK_FLAG_B, d.y != NONE);
}

/// The key of a slot with nothing to solve (sorted after every other).
fn colour_empty_key() -> u32 {
    if (params.block_shift == 0u) {
        return MAX_COLOURS;
    }
    return (block_leftover_bin() + 1u) << block_shuffle_bits();
}

/// The word of body d's colour mask in partition `part` (BLOCK_PARTITIONS: the leftover bin),
/// in [B, 6B) of `claims`. A dynamic body's contacts of one partition are in one bin, so one
/// thread of block_colour owns the word; colour_init clears it.
fn block_mask_word(d: u32, part: u32) -> u32 {
    return params.body_count * (1u + part) + d;
}

fn block_mask(d: u32, part: u32) -> u32 {
    if (d == NONE) {
        return 0u;
    }
    return atomicLoad(&claims[block_mask_word(d, part)]);
}

fn block_mask_add(d: u32, part: u32, bit: u32) {
    if (d != NONE) {
        let w = block_mask_word(d, part);
        atomicStore(&claims[w], atomicLoad(&claims[w]) | bit);
    }
}

/// The first position in [lo, hi) of the sorted keys whose key is at least `key`.
fn block_lower_bound(key: u32, lo_in: u32, hi_in: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (colour_sorted_keys[mid] < key) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/// Where partition `part`'s list of non-empty bins starts in `blocks` (after the ranges).
fn block_list_base(part: u32) -> u32 {
    return 2u * (block_leftover_bin() + 2u) + part * params.block_bins;
}

/// colour_init's part with blocks (what colour_publish writes without them): the counters
/// block_colour and colour_keys add to, the staged and unstaged bins the solver counts
/// (solve_block.wgsl), the partitions' indirect arguments (x: bins, counted by block_colour)
/// and the pair count the next step's warm start reads.
fn block_init_counters() {
    atomicStore(&counters[COUNTER_COLOURS], 0u);
    atomicStore(&counters[COUNTER_UNCOLOURED], 0u);
    atomicStore(&counters[COUNTER_TAIL], 0u);
    atomicStore(&counters[COUNTER_MANIFOLDS], 0u);
    atomicStore(&counters[COUNTER_STAGED_BINS], 0u);
    atomicStore(&counters[COUNTER_UNSTAGED_BINS], 0u);
    for (var part = 0u; part < BLOCK_PARTITIONS; part++) {
        atomicStore(&counters[COUNTER_INDIRECT + 3u * part], 0u);
        atomicStore(&counters[COUNTER_INDIRECT + 3u * part + 1u], 1u);
        atomicStore(&counters[COUNTER_INDIRECT + 3u * part + 2u], 1u);
    }
    atomicStore(&counters[SOLVE_COUNTER_PREV_PAIRS], solve_manifold_count());
}

/// After the sort by bin, one thread per bin (the leftover bin's included; solver/block.rs
/// `block_colour`):
/// - the bin's range of `order`, blocks[2b] to blocks[2b + 1], found in the sorted keys; a
///   non-empty bin of a partition is appended to the partition's list, whose length is the x
///   argument of the partition's indirect dispatch, so no workgroup is launched for an empty
///   bin (the lists' order depends on the threads and does not matter: bins of a partition
///   share no dynamic body);
/// - its colours, first fit in the sorted order: a contact takes the lowest colour that none of its
///   dynamic bodies' earlier contacts in the bin has (a mask per body and partition), or the
///   sequential colour when all are taken;
/// - its order by colour, stable, through colour_sort_values, and per position the end of its
///   colour's run in colour_sort_keys (BLOCK_RUN_SEQUENTIAL set for the sequential colour), so
///   solve_block walks the runs without a search.
/// A thread walks its bin three times: in a wall a bin holds about 32 bodies' contacts.
@compute @workgroup_size(RIGID_WG)
fn block_colour(@builtin(global_invocation_id) gid: vec3<u32>) {
    let b = gid.x;
    if (b > block_leftover_bin()) {
        return;
    }
    let n = min(params.pair_capacity, arrayLength(&colour_sorted_keys));
    let shuffle = block_shuffle_bits();
    let lo = block_lower_bound(b << shuffle, 0u, n);
    let hi = block_lower_bound((b + 1u) << shuffle, lo, n);
    blocks[2u * b] = lo;
    blocks[2u * b + 1u] = hi;
    if (hi == lo) {
        return;
    }
    let part = min(b / params.block_bins, BLOCK_PARTITIONS);
    if (part < BLOCK_PARTITIONS) {
        let at = atomicAdd(&counters[COUNTER_INDIRECT + 3u * part], 1u);
        blocks[block_list_base(part) + at] = b;
    }
    var counts: array<u32, MAX_COLOURS>;
    for (var i = lo; i < hi; i++) {
        let v = order[i];
        let k = v & BLOCK_SLOT_MASK;
        let da = select(NONE, manifolds[k].body_a, (v & BLOCK_FLAG_A) != 0u);
        let db = select(NONE, manifolds[k].body_b, (v & BLOCK_FLAG_B) != 0u);
        let free = ~(block_mask(da, part) | block_mask(db, part));
        var c = sequential_colour();
        if (free != 0u) {
            c = min(firstTrailingBit(free), sequential_colour());
        }
        if (c < sequential_colour()) {
            block_mask_add(da, part, 1u << c);
            block_mask_add(db, part, 1u << c);
        }
        manifolds[k].colour = c;
        counts[c] += 1u;
        // The colour until the scatter below.
        colour_sort_keys[i] = c;
    }
    var next: array<u32, MAX_COLOURS>;
    var at = lo;
    var used = 0u;
    for (var c = 0u; c < MAX_COLOURS; c++) {
        next[c] = at;
        at += counts[c];
        if (counts[c] > 0u) {
            used = c + 1u;
        }
    }
    for (var i = lo; i < hi; i++) {
        let c = colour_sort_keys[i];
        colour_sort_values[next[c]] = order[i] & BLOCK_SLOT_MASK;
        next[c] += 1u;
    }
    var i = lo;
    for (var c = 0u; c < used; c++) {
        while (i < next[c]) {
            order[i] = colour_sort_values[i];
            colour_sort_keys[i] = next[c] | select(0u, BLOCK_RUN_SEQUENTIAL, c == sequential_colour());
            i++;
        }
    }
    atomicMax(&counters[COUNTER_COLOURS], used);
    atomicMax(&counters[COUNTER_COLOURS_WANTED], used);
    let sequential = counts[sequential_colour()];
    if (sequential > 0u) {
        atomicAdd(&counters[COUNTER_UNCOLOURED], sequential);
    }
}

/// After the sort: the colour ranges, counts and indirect arguments from the per-colour counts.
@compute @workgroup_size(RIGID_WG)
fn colour_ranges(@builtin(local_invocation_index) t: u32) {
    if (t < MAX_COLOURS) {
        colour_totals[t] = atomicLoad(&counters[COUNTER_COLOUR_COUNT + t]);
    }
    if (t == 0u) {
        atomicStore(
            &colour_manifold_total,
            atomicLoad(&counters[COUNTER_COLOUR_COUNT + MAX_COLOURS]),
        );
    }
    workgroupBarrier();
    colour_publish(t, solve_manifold_count());
}

@compute @workgroup_size(RIGID_WG)
fn colour_claim(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < solve_manifold_count()) {
        colour_claim_one(gid.x, pass_info.colour);
    }
}

@compute @workgroup_size(RIGID_WG)
fn colour_round(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = pass_info.colour;
    if (gid.x < solve_manifold_count() && colour_pick_one(gid.x, r, r + 2u)) {
        colour_claim_one(gid.x, r + 1u);
        if (r + 1u == COLOUR_ROUNDS_OVER_ALL) {
            // The last round over every slot lists who still waits for the listed rounds, and
            // sizes their dispatch: the largest list index decides it, whatever the order.
            let i = atomicAdd(&counters[COUNTER_WAITING], 1u);
            order[i] = gid.x;
            atomicMax(&counters[COUNTER_WAITING_GROUPS], i / RIGID_WG + 1u);
        }
    }
}

/// A round after COLOUR_ROUNDS_OVER_ALL: the same as `colour_round`, over the manifolds the
/// last round over every slot listed.
@compute @workgroup_size(RIGID_WG)
fn colour_round_listed(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = pass_info.colour;
    if (gid.x >= atomicLoad(&counters[COUNTER_WAITING])) {
        return;
    }
    let k = order[gid.x];
    if (colour_pick_one(k, r, r + 2u)) {
        colour_claim_one(k, r + 1u);
    }
}

/// Leftovers to the sequential colour, counts, the counting sort into `order`, the colour
/// ranges and the indirect arguments of the per-colour passes.
fn colour_finish_body(t: u32, n: u32) {
    for (var k = t; k < n; k += RIGID_WG) {
        let m = manifolds[k];
        if (colour_waiting(m)) {
            manifolds[k].colour = sequential_colour();
        }
        if (colour_contact(m)) {
            atomicAdd(&colour_manifold_total, 1u);
        }
    }
    // Counting sort: per-thread histograms over a contiguous range.
    for (var i = t; i < MAX_COLOURS * RIGID_WG; i += RIGID_WG) {
        colour_hist[i] = 0u;
    }
    colour_sync();
    let per = (n + RIGID_WG - 1u) / RIGID_WG;
    let lo = min(t * per, n);
    let hi = min(lo + per, n);
    for (var k = lo; k < hi; k++) {
        let col = manifolds[k].colour;
        if (col != NONE) {
            colour_hist[col * RIGID_WG + t] += 1u;
        }
    }
    workgroupBarrier();
    if (t < MAX_COLOURS) {
        var sum = 0u;
        for (var j = 0u; j < RIGID_WG; j++) {
            let v = colour_hist[t * RIGID_WG + j];
            colour_hist[t * RIGID_WG + j] = sum;
            sum += v;
        }
        colour_totals[t] = sum;
    }
    workgroupBarrier();
    colour_publish(t, n);
    for (var k = lo; k < hi; k++) {
        let col = manifolds[k].colour;
        if (col != NONE) {
            let slot = colour_starts[col] + colour_hist[col * RIGID_WG + t];
            colour_hist[col * RIGID_WG + t] += 1u;
            order[slot] = k;
        }
    }
}

/// From `colour_totals` (and `colour_manifold_total`): the colour starts (also left in
/// `colour_starts`), the counters and the indirect arguments of the per-colour passes.
fn colour_publish(t: u32, n: u32) {
    if (t == 0u) {
        var start = 0u;
        var used = 0u;
        for (var col = 0u; col < MAX_COLOURS; col++) {
            colour_starts[col] = start;
            start += colour_totals[col];
            if (colour_totals[col] > 0u) {
                used = col + 1u;
            }
        }
        colour_starts[MAX_COLOURS] = start;
        atomicStore(&counters[COUNTER_COLOURS], used);
        atomicStore(&counters[COUNTER_UNCOLOURED], colour_totals[sequential_colour()]);
        atomicStore(&counters[COUNTER_TAIL], start - colour_starts[tail_colour()]);
        atomicStore(&counters[COUNTER_MANIFOLDS], atomicLoad(&colour_manifold_total));
        atomicStore(&counters[SOLVE_COUNTER_PREV_PAIRS], n);
    }
    workgroupBarrier();
    if (t <= MAX_COLOURS) {
        atomicStore(&counters[COUNTER_COLOUR_START + t], colour_starts[t]);
    }
    if (t < MAX_COLOURS) {
        let total = colour_totals[t];
        var groups = (total + RIGID_WG - 1u) / RIGID_WG;
        if (t == sequential_colour()) {
            groups = min(total, 1u);
        }
        atomicStore(&counters[COUNTER_INDIRECT + 3u * t], groups);
        atomicStore(&counters[COUNTER_INDIRECT + 3u * t + 1u], 1u);
        atomicStore(&counters[COUNTER_INDIRECT + 3u * t + 2u], 1u);
    }
    workgroupBarrier();
}
