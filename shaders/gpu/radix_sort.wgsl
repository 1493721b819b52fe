// Stable LSD radix sort of (u32 key, u32 value) pairs: one pass per RADIX_BITS-bit digit of the
// low `key_bits` bits, each pass three stages (host: src/gpu/sort.rs, CPU twin: sort_pairs_cpu):
//
//   sort_count    per block of SORT_BLOCK pairs: how many keys have each digit
//                 reads src_keys, writes digit_counts[digit * blocks + block]
//   sort_scan     one workgroup: exclusive scan of digit_counts in place, digit-major, so entry
//                 (d, b) becomes the first output slot of digit d from block b
//   sort_scatter  per block: rank every pair within its block, stably, and write it to
//                 digit_counts[(d, b)] + rank; reads src_keys/src_values, writes
//                 dst_keys/dst_values
//
// Why it is shaped so: no atomics decide any order. Thread t of a block owns the SORT_ITEMS
// consecutive pairs [t * SORT_ITEMS, (t + 1) * SORT_ITEMS) and counts their digits in its own
// column of workgroup counters; a scan of those counters in (digit, thread) order gives each
// thread the number of equal digits before its chunk, and the thread then walks its chunk in
// order. So a pair's slot depends only on the pairs before it: equal digits keep their input
// order (stable), and the output is a pure function of the input on every adapter.
// The shape (SORT_WG threads of SORT_ITEMS pairs, RADIX digits) is chosen per adapter
// (SortShape in src/gpu/sort.rs). On CPU adapters (lavapipe, llvmpipe) a workgroup runs as
// 8-lane SIMD on one core and every load or store of a lane is an instruction of its own: 8
// threads walking 1,024 pairs each, 8-bit digits, sources read four pairs per load
// (array<vec4<u32>>). On GPUs that serial walk leaves too few threads to hide memory latency:
// 128 threads of 8 pairs, 4-bit digits (the counters stay within 16 KiB of workgroup memory).

struct SortParams {
    // Pairs to sort; slots at or above n are neither read nor written.
    n: u32,
    // Lowest bit of this pass's digit.
    shift: u32,
    // Blocks of SORT_BLOCK pairs: ceil(n / SORT_BLOCK).
    blocks: u32,
    // Only the low key_bits bits of a key take part in the order.
    key_mask: u32,
}

// Per-thread digit counters, digit-major: wg_hist[d * SORT_WG + t] is thread t's counter of
// digit d. Counters live in workgroup memory rather than in a private array: GL drivers lower a
// dynamically indexed private array to a compare-and-select per element.
var<workgroup> wg_hist: array<u32, SORT_HIST>;
var<workgroup> wg_scan: array<u32, SORT_WG>;
var<workgroup> wg_base: array<u32, RADIX>;
var<workgroup> wg_blocks: u32;

fn sort_digit(key: u32) -> u32 {
    return ((key & params.key_mask) >> params.shift) & (RADIX - 1u);
}

/// Exclusive scan of one value per thread across the workgroup (Hillis-Steele). After it
/// returns, wg_scan[SORT_WG - 1] holds the workgroup total until the next call.
fn sort_workgroup_scan(lid: u32, value: u32) -> u32 {
    workgroupBarrier();
    wg_scan[lid] = value;
    workgroupBarrier();
    for (var off = 1u; off < SORT_WG; off = off * 2u) {
        var add = 0u;
        if (lid >= off) {
            add = wg_scan[lid - off];
        }
        workgroupBarrier();
        wg_scan[lid] = wg_scan[lid] + add;
        workgroupBarrier();
    }
    return wg_scan[lid] - value;
}

fn sort_count_one(i: u32, n: u32, key: u32, lid: u32) {
    if (i < n) {
        let e = sort_digit(key) * SORT_WG + lid;
        wg_hist[e] = wg_hist[e] + 1u;
    }
}

/// Counts the digits of this thread's chunk into its column of wg_hist. Keys are loaded four at
/// a time: CPU adapters pay per load instruction, not per byte.
fn sort_count_chunk(first: u32, n: u32, lid: u32) {
    for (var d = 0u; d < RADIX; d = d + 1u) {
        wg_hist[d * SORT_WG + lid] = 0u;
    }
    let end = min(first + SORT_ITEMS, n);
    for (var i = first; i < end; i = i + 4u) {
        let k = src_keys[i / 4u];
        sort_count_one(i, n, k.x, lid);
        sort_count_one(i + 1u, n, k.y, lid);
        sort_count_one(i + 2u, n, k.z, lid);
        sort_count_one(i + 3u, n, k.w, lid);
    }
}

@compute @workgroup_size(SORT_WG)
fn sort_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let first = wid.x * SORT_BLOCK + lid.x * SORT_ITEMS;
    sort_count_chunk(first, params.n, lid.x);
    workgroupBarrier();
    for (var d = lid.x; d < RADIX; d = d + SORT_WG) {
        var s = 0u;
        for (var t = 0u; t < SORT_WG; t = t + 1u) {
            s = s + wg_hist[d * SORT_WG + t];
        }
        digit_counts[d * params.blocks + wid.x] = s;
    }
}

@compute @workgroup_size(SORT_WG)
fn sort_scan(@builtin(local_invocation_id) lid: vec3<u32>) {
    if (lid.x == 0u) {
        wg_blocks = params.blocks;
    }
    let total = workgroupUniformLoad(&wg_blocks) * RADIX;
    var carry = 0u;
    // Chunks of SORT_BLOCK entries, SORT_ITEMS consecutive entries per thread: sum, scan the
    // sums across the workgroup, then rewrite the entries as running exclusive sums.
    for (var base = 0u; base < total; base = base + SORT_BLOCK) {
        let first = base + lid.x * SORT_ITEMS;
        let end = min(first + SORT_ITEMS, total);
        var s = 0u;
        for (var e = first; e < end; e = e + 1u) {
            s = s + digit_counts[e];
        }
        let excl = sort_workgroup_scan(lid.x, s);
        let chunk_total = wg_scan[SORT_WG - 1u];
        var run = carry + excl;
        for (var e = first; e < end; e = e + 1u) {
            let v = digit_counts[e];
            digit_counts[e] = run;
            run = run + v;
        }
        carry = carry + chunk_total;
    }
}

fn sort_place(i: u32, n: u32, key: u32, value: u32, lid: u32) {
    if (i < n) {
        let e = sort_digit(key) * SORT_WG + lid;
        let slot = wg_hist[e];
        wg_hist[e] = slot + 1u;
        dst_keys[slot] = key;
        dst_values[slot] = value;
    }
}

@compute @workgroup_size(SORT_WG)
fn sort_scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = params.n;
    let first = wid.x * SORT_BLOCK + lid.x * SORT_ITEMS;
    sort_count_chunk(first, n, lid.x);
    workgroupBarrier();
    // Flat exclusive scan of wg_hist in (digit, thread) order: thread t scans the RADIX entries
    // [t * RADIX, (t + 1) * RADIX) serially, the workgroup scans the per-thread totals.
    let own = lid.x * RADIX;
    var run = 0u;
    for (var e = 0u; e < RADIX; e = e + 1u) {
        let v = wg_hist[own + e];
        wg_hist[own + e] = run;
        run = run + v;
    }
    let excl = sort_workgroup_scan(lid.x, run);
    for (var e = 0u; e < RADIX; e = e + 1u) {
        wg_hist[own + e] = wg_hist[own + e] + excl;
    }
    workgroupBarrier();
    // wg_hist[d * SORT_WG] is now the number of smaller digits in this block, so subtracting it
    // from the block's global digit offset leaves where this block's run of digit d starts.
    for (var d = lid.x; d < RADIX; d = d + SORT_WG) {
        wg_base[d] = digit_counts[d * params.blocks + wid.x] - wg_hist[d * SORT_WG];
    }
    workgroupBarrier();
    // From here each thread touches only its own column: first it turns it into the output
    // slot of its next pair of each digit, then it bumps an entry per pair written.
    for (var d = 0u; d < RADIX; d = d + 1u) {
        let e = d * SORT_WG + lid.x;
        wg_hist[e] = wg_hist[e] + wg_base[d];
    }
    let end = min(first + SORT_ITEMS, n);
    for (var i = first; i < end; i = i + 4u) {
        let k = src_keys[i / 4u];
        let v = src_values[i / 4u];
        sort_place(i, n, k.x, v.x, lid.x);
        sort_place(i + 1u, n, k.y, v.y, lid.x);
        sort_place(i + 2u, n, k.z, v.z, lid.x);
        sort_place(i + 3u, n, k.w, v.w, lid.x);
    }
}
