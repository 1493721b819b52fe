// Broad phase: stages `shape_aabbs`, `broad_count`, `broad_scan`, `broad_scan_sums`,
// `broad_write`. CPU twin and the full rationale: src/rigid/broad.rs (read its opening comment).
//
// Reads `params`, `bodies` (shape_aabbs only), `shapes`, the large list and the grid
// (`grid_sorted/grid_start/grid_end`, built over `shape_pos` after `shape_aabbs`); writes
// `shape_pos`, `shape_xf`, `pair_scratch`, `pairs` and `counters[COUNTER_PAIRS,
// COUNTER_PAIRS_WANTED, COUNTER_PAIR_GROUPS..+3]`.
//
// `pair_scratch` holds, so that broad_write binds 8 storage buffers (WebGPU's default):
//   [0, large_count)            the large list: ascending large-shape indices, host-written
//   [base, base + items)        per item: its pair count, then (broad_scan) its offset
//   [base + items, + blocks)    per scan block: its sum, then its offset
//   base + items + blocks       the truncation flag; + 1: the pairs wanted (the total)
// with base = large_count. And `shape_aabbs` leaves in the AABB max's w what the pair rule needs
// of the shape's body (1: dynamic, + 2: awake and not static), so the pair kernels read no body.
//
// Work is split into items laid out in output order: one per small shape (partners among the 27
// grid cells and the large list), and per large shape one item per BROAD_CHUNK-wide chunk of
// the shape indices. Counts, an exclusive scan and an ordered write give pairs sorted by (a, b)
// with no float atomics; every kernel strides, so dispatches never exceed 65535 workgroups.

/// Partners a small item collects per round of broad_write (Rust PARTNER_BATCH).
const BROAD_BATCH: u32 = 16u;
/// Shapes per chunk item of a large shape (Rust LARGE_CHUNK).
const BROAD_CHUNK: u32 = 64u;
/// Items each thread of broad_scan takes; a block is RIGID_WG of them (Rust SCAN_BLOCK).
const BROAD_SCAN_PER_THREAD: u32 = 4u;
const BROAD_SCAN_BLOCK: u32 = RIGID_WG * BROAD_SCAN_PER_THREAD;
/// f32::MAX: the AABB of planes, the centre of removed shapes (Rust FAR).
const BROAD_FAR: f32 = 0x1.fffffep+127f;

var<workgroup> broad_wg: array<u32, RIGID_WG>;

/// What the pair test needs of one shape (Rust `Side`); kind 0 when it cannot pair.
struct BroadSide {
    kind: u32,
    body: u32,
    group: u32,
    mask: u32,
    dynamic: bool,
    moving: bool,
}

fn broad_valid_kind(kind: u32) -> bool {
    return kind >= SHAPE_SPHERE && kind <= SHAPE_HEIGHTFIELD;
}

fn broad_is_plane(kind: u32) -> bool {
    return kind == SHAPE_HALF_SPACE || kind == SHAPE_PLANE;
}

fn broad_bounding_radius(kind: u32, dims: vec4<f32>) -> f32 {
    switch kind {
        case SHAPE_SPHERE: { return dims.x; }
        case SHAPE_BOX: { return length(dims.xyz); }
        case SHAPE_CAPSULE: { return dims.x + dims.y; }
        case SHAPE_HULL, SHAPE_MESH, SHAPE_HEIGHTFIELD: { return dims.y; }
        case SHAPE_HALF_SPACE, SHAPE_PLANE: { return BROAD_FAR; }
        default: { return 0.0; }
    }
}

/// World half extents of a bounded shape's AABB before the margin; q its world rotation.
fn broad_half_extent(kind: u32, dims: vec4<f32>, q: vec4<f32>) -> vec3<f32> {
    if (kind == SHAPE_BOX) {
        let r = quat_to_mat3(q);
        return abs(r[0]) * dims.x + abs(r[1]) * dims.y + abs(r[2]) * dims.z;
    }
    if (kind == SHAPE_CAPSULE) {
        let axis = quat_rotate(q, vec3<f32>(0.0, 1.0, 0.0));
        return abs(axis) * dims.y + vec3<f32>(dims.x);
    }
    if (kind == SHAPE_HULL || kind == SHAPE_MESH || kind == SHAPE_HEIGHTFIELD) {
        return vec3<f32>(dims.y);
    }
    return vec3<f32>(dims.x);
}

/// Index of the first entry of the ascending `large` list greater than `i`.
fn broad_large_after(i: u32) -> u32 {
    var lo = 0u;
    var hi = params.large_count;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (pair_scratch[mid] <= i) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

fn broad_in_large(i: u32) -> bool {
    let k = broad_large_after(i);
    return k > 0u && pair_scratch[k - 1u] == i;
}

@compute @workgroup_size(RIGID_WG)
fn shape_aabbs(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let stride = nwg.x * RIGID_WG;
    for (var i = gid.x; i < params.shape_count; i = i + stride) {
        let s = shapes[i];
        let flag = select(0.0, 1.0, broad_in_large(i));
        if (!broad_valid_kind(s.kind) || s.body >= params.body_count) {
            shape_pos[i] = vec4<f32>(BROAD_FAR, BROAD_FAR, BROAD_FAR, 0.0);
            shape_xf[3u * i] = vec4<f32>(0.0, 0.0, 0.0, 1.0);
            shape_xf[3u * i + 1u] = vec4<f32>(BROAD_FAR, BROAD_FAR, BROAD_FAR, flag);
            shape_xf[3u * i + 2u] = vec4<f32>(BROAD_FAR, BROAD_FAR, BROAD_FAR, 0.0);
            continue;
        }
        let body = bodies[s.body];
        let bq = body.orient;
        let q = quat_mul(bq, s.offset_rot);
        let c = body.pos.xyz + quat_rotate(bq, s.offset_pos.xyz);
        let motion = f32(select(0u, 1u, body.kind == BODY_DYNAMIC)
            + select(0u, 2u, body.awake != 0u && body.kind != BODY_STATIC));
        shape_pos[i] = vec4<f32>(c, broad_bounding_radius(s.kind, s.dims));
        shape_xf[3u * i] = q;
        if (broad_is_plane(s.kind)) {
            shape_xf[3u * i + 1u] = vec4<f32>(-BROAD_FAR, -BROAD_FAR, -BROAD_FAR, flag);
            shape_xf[3u * i + 2u] = vec4<f32>(BROAD_FAR, BROAD_FAR, BROAD_FAR, motion);
        } else {
            let e = broad_half_extent(s.kind, s.dims, q) + vec3<f32>(params.contact_margin);
            shape_xf[3u * i + 1u] = vec4<f32>(c - e, flag);
            shape_xf[3u * i + 2u] = vec4<f32>(c + e, motion);
        }
    }
}

fn broad_side(i: u32) -> BroadSide {
    var side = BroadSide(0u, 0u, 0u, 0u, false, false);
    if (i >= params.shape_count) {
        return side;
    }
    let kind = shapes[i].kind;
    let body = shapes[i].body;
    if (!broad_valid_kind(kind) || body >= params.body_count) {
        return side;
    }
    let motion = u32(shape_xf[3u * i + 2u].w);
    side.kind = kind;
    side.body = body;
    side.group = shapes[i].group;
    side.mask = shapes[i].mask;
    side.dynamic = (motion & 1u) != 0u;
    side.moving = (motion & 2u) != 0u;
    return side;
}

fn broad_is_large(i: u32) -> bool {
    return shape_xf[3u * i + 1u].w != 0.0;
}

/// Whether plane shape p (of kind `kind`) touches the AABB of shape x.
fn broad_plane_hits(p: u32, kind: u32, x: u32) -> bool {
    let n = quat_rotate(shape_xf[3u * p], shapes[p].dims.xyz);
    let d = shapes[p].dims.w + dot(n, shape_pos[p].xyz);
    let lo = shape_xf[3u * x + 1u].xyz;
    let hi = shape_xf[3u * x + 2u].xyz;
    let up = n >= vec3<f32>(0.0);
    let below = select(hi, lo, up);
    let above = select(lo, hi, up);
    let m = params.contact_margin;
    if (dot(n, below) > d + m) {
        return false;
    }
    return !(kind == SHAPE_PLANE && dot(n, above) < d - m);
}

fn broad_overlap(a: u32, ka: u32, b: u32, kb: u32) -> bool {
    let pa = broad_is_plane(ka);
    let pb = broad_is_plane(kb);
    if (pa && !pb) {
        return broad_plane_hits(a, ka, b);
    }
    if (pb && !pa) {
        return broad_plane_hits(b, kb, a);
    }
    let alo = shape_xf[3u * a + 1u].xyz;
    let ahi = shape_xf[3u * a + 2u].xyz;
    let blo = shape_xf[3u * b + 1u].xyz;
    let bhi = shape_xf[3u * b + 2u].xyz;
    return all(alo <= bhi) && all(blo <= ahi);
}

/// The pair rule of src/rigid/broad.rs `BroadInput::pair_ok` but the overlap: both shapes
/// valid, of different bodies, in each other's groups, one dynamic and one moving.
fn broad_rule(sa: BroadSide, sb: BroadSide) -> bool {
    return sa.kind != 0u && sb.kind != 0u && sa.body != sb.body
        && (sa.group & sb.mask) != 0u && (sb.group & sa.mask) != 0u
        && (sa.dynamic || sb.dynamic) && (sa.moving || sb.moving);
}

// A pair is `broad_rule` and `broad_overlap`, tested overlap first: most candidates fail it,
// and on lavapipe a test costs its loads (the broad phase of the 5k wall: 7.4 against 10.3 ms
// a step, BENCHMARKS.md 2026-11-27, `6e8cf12`). Where b's side says its kind is none, the rule fails
// whatever the overlap read.

/// The pair of small shape a (side `sa`, AABB (alo, ahi), read once per search) and a
/// small shape b (no plane): b's box (two loads), then b's side (five).
fn broad_pair_small(sa: BroadSide, alo: vec3<f32>, ahi: vec3<f32>, b: u32) -> bool {
    let blo = shape_xf[3u * b + 1u].xyz;
    let bhi = shape_xf[3u * b + 2u].xyz;
    if (!(all(alo <= bhi) && all(blo <= ahi))) {
        return false;
    }
    return broad_rule(sa, broad_side(b));
}

/// The pair of shape a (side `sa`) and any shape b: b's kind and the overlap, then b's side.
fn broad_pair_any(a: u32, sa: BroadSide, b: u32) -> bool {
    if (b >= params.shape_count || !broad_overlap(a, sa.kind, b, shapes[b].kind)) {
        return false;
    }
    return broad_rule(sa, broad_side(b));
}

/// Per thread, BROAD_BATCH slots of workgroup memory: the batch of broad_write, ascending.
/// Workgroup memory rather than a private array: llvmpipe's GL path corrupted a private array
/// under this insertion (a zero appeared and a partner was lost), and software adapters are slow
/// with large private arrays anyway. Each thread uses only its own slice: no barriers.
var<workgroup> broad_batch: array<u32, BROAD_BATCH * RIGID_WG>;

/// Keeps b among the BROAD_BATCH smallest partners in thread `lid`'s batch of `len` entries;
/// returns the new length.
fn broad_keep(lid: u32, len: u32, b: u32) -> u32 {
    let base = lid * BROAD_BATCH;
    var j = len;
    var n = len;
    if (j == BROAD_BATCH) {
        if (b >= broad_batch[base + BROAD_BATCH - 1u]) {
            return n;
        }
        j = BROAD_BATCH - 1u;
    } else {
        n = j + 1u;
    }
    while (j > 0u && broad_batch[base + j - 1u] > b) {
        broad_batch[base + j] = broad_batch[base + j - 1u];
        j = j - 1u;
    }
    broad_batch[base + j] = b;
    return n;
}

/// The first sorted position in [lo, hi) whose shape index is above `after` (a key's range is
/// in ascending shape order: the grid's sort is stable over indices).
fn broad_first_after(lo: u32, hi: u32, after: u32) -> u32 {
    var l = lo;
    var h = hi;
    while (l < h) {
        let mid = (l + h) / 2u;
        if (grid_sorted[mid] <= after) {
            l = mid + 1u;
        } else {
            h = mid;
        }
    }
    return l;
}

/// Partners b > after of small shape a (27 grid cells, small shapes only, then the large
/// list): returns (partners seen, batch length); when `collect`, thread `lid`'s batch keeps the
/// BROAD_BATCH smallest and a sorted range is left once the batch is full and b passes its
/// largest entry (then the count seen is partial).
///
/// Why it is shaped so: llvmpipe and lavapipe break every loop once a shader invocation has
/// run 65535 loop iterations in total (Mesa's loop limiter, shared by all loops), silently. So
/// a search must cost about its candidates and a write round about the partners it returns:
/// ranges are entered by binary search past `after` and left early, and instead of
/// de-duplicating the 27 stencil keys (351 comparisons per search) a candidate counts only in
/// the stencil cell that is its own cell, which also drops shapes of other cells sharing the key.
fn broad_small_search(
    a: u32,
    sa: BroadSide,
    cell: vec3<i32>,
    after: u32,
    collect: bool,
    lid: u32,
) -> vec2<u32> {
    var found = 0u;
    var len = 0u;
    let last = lid * BROAD_BATCH + BROAD_BATCH - 1u;
    let alo = shape_xf[3u * a + 1u].xyz;
    let ahi = shape_xf[3u * a + 2u].xyz;
    for (var m = 0u; m < 27u; m = m + 1u) {
        let nc = grid_neighbour_cell(cell, m);
        let k = grid_key(nc, params.table_mask);
        let end = grid_end[k];
        for (var s = broad_first_after(grid_start[k], end, after); s < end; s = s + 1u) {
            let b = grid_sorted[s];
            if (collect && len == BROAD_BATCH && b >= broad_batch[last]) {
                break;
            }
            if (b >= params.shape_count || broad_is_large(b)) {
                continue;
            }
            if (any(grid_cell(shape_pos[b].xyz, params.inv_cell_size) != nc)) {
                continue;
            }
            if (broad_pair_small(sa, alo, ahi, b)) {
                found = found + 1u;
                if (collect) {
                    len = broad_keep(lid, len, b);
                }
            }
        }
    }
    for (var i = broad_large_after(after); i < params.large_count; i = i + 1u) {
        let b = pair_scratch[i];
        if (collect && len == BROAD_BATCH && b >= broad_batch[last]) {
            break;
        }
        if (broad_pair_any(a, sa, b)) {
            found = found + 1u;
            if (collect) {
                len = broad_keep(lid, len, b);
            }
        }
    }
    return vec2<u32>(found, len);
}

/// The grid cell of shape a's centre.
fn broad_cell_of(a: u32) -> vec3<i32> {
    return grid_cell(shape_pos[a].xyz, params.inv_cell_size);
}

/// Chunks per large shape.
fn broad_chunks() -> u32 {
    return (params.shape_count + BROAD_CHUNK - 1u) / BROAD_CHUNK;
}

/// First word of the item counts in `pair_scratch` (after the large list).
fn broad_base() -> u32 {
    return params.large_count;
}

/// Items: one per small shape, broad_chunks() per large shape.
fn broad_items() -> u32 {
    let k = min(params.large_count, params.shape_count);
    return params.shape_count - k + k * broad_chunks();
}

/// The truncation flag's word in pair_scratch (broad.rs `truncated_word`): 1 when broad_write
/// wrote fewer pairs than broad_count counted this step (the narrow phase reports it).
fn broad_truncated_word() -> u32 {
    let items = broad_items();
    return broad_base() + items + (items + BROAD_SCAN_BLOCK - 1u) / BROAD_SCAN_BLOCK;
}

/// Item t as (shape, chunk); chunk NONE for a small shape's item. Large shape k's items start
/// at large[k] + k·(chunks − 1).
fn broad_item(t: u32) -> vec2<u32> {
    let m1 = max(broad_chunks(), 1u) - 1u;
    var lo = 0u;
    var hi = params.large_count;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (pair_scratch[mid] + mid * m1 <= t) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    if (lo == 0u) {
        return vec2<u32>(t, NONE);
    }
    let start = pair_scratch[lo - 1u] + (lo - 1u) * m1;
    if (t - start <= m1) {
        return vec2<u32>(pair_scratch[lo - 1u], t - start);
    }
    return vec2<u32>(t - lo * m1, NONE);
}

/// The shape range [lo, hi) of large shape l's chunk: shapes above l only.
fn broad_chunk_range(l: u32, chunk: u32) -> vec2<u32> {
    let lo = max(chunk * BROAD_CHUNK, l + 1u);
    let hi = min((chunk + 1u) * BROAD_CHUNK, params.shape_count);
    return vec2<u32>(lo, hi);
}

@compute @workgroup_size(RIGID_WG)
fn broad_count(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let items = broad_items();
    let stride = nwg.x * RIGID_WG;
    for (var t = gid.x; t < items; t = t + stride) {
        let it = broad_item(t);
        var n = 0u;
        if (it.y == NONE) {
            let sa = broad_side(it.x);
            if (sa.kind != 0u) {
                n = broad_small_search(it.x, sa, broad_cell_of(it.x), it.x, false, 0u).x;
            }
        } else {
            let sl = broad_side(it.x);
            if (sl.kind != 0u) {
                let r = broad_chunk_range(it.x, it.y);
                for (var b = r.x; b < r.y; b = b + 1u) {
                    if (broad_pair_any(it.x, sl, b)) {
                        n = n + 1u;
                    }
                }
            }
        }
        pair_scratch[broad_base() + t] = n;
    }
}

/// Exclusive scan of the RIGID_WG values `v` of a workgroup (Hillis–Steele on broad_wg);
/// returns this thread's exclusive prefix; broad_wg[RIGID_WG - 1] then holds the total.
/// Call in uniform control flow.
fn broad_wg_scan(lid: u32, v: u32) -> u32 {
    broad_wg[lid] = v;
    workgroupBarrier();
    for (var d = 1u; d < RIGID_WG; d = d * 2u) {
        var x = 0u;
        if (lid >= d) {
            x = broad_wg[lid - d];
        }
        workgroupBarrier();
        broad_wg[lid] = broad_wg[lid] + x;
        workgroupBarrier();
    }
    return broad_wg[lid] - v;
}

/// Per block of BROAD_SCAN_BLOCK items: exclusive prefix within the block in place, and the
/// block's sum at pair_scratch[items + block].
@compute @workgroup_size(RIGID_WG)
fn broad_scan(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let items = broad_items();
    let blocks = (items + BROAD_SCAN_BLOCK - 1u) / BROAD_SCAN_BLOCK;
    let at = broad_base();
    for (var blk = wid.x; blk < blocks; blk = blk + nwg.x) {
        let base = blk * BROAD_SCAN_BLOCK + lid.x * BROAD_SCAN_PER_THREAD;
        var run = 0u;
        for (var i = 0u; i < BROAD_SCAN_PER_THREAD; i = i + 1u) {
            let t = base + i;
            if (t < items) {
                let c = pair_scratch[at + t];
                pair_scratch[at + t] = run;
                run = run + c;
            }
        }
        let prefix = broad_wg_scan(lid.x, run);
        for (var i = 0u; i < BROAD_SCAN_PER_THREAD; i = i + 1u) {
            let t = base + i;
            if (t < items) {
                pair_scratch[at + t] = pair_scratch[at + t] + prefix;
            }
        }
        if (lid.x == RIGID_WG - 1u) {
            pair_scratch[at + items + blk] = broad_wg[RIGID_WG - 1u];
        }
        workgroupBarrier();
    }
}

/// One workgroup: exclusive scan of the block sums in place, and the totals into the counters
/// (pairs wanted, and pairs written = min(wanted, pair_capacity)).
@compute @workgroup_size(RIGID_WG)
fn broad_scan_sums(@builtin(local_invocation_id) lid: vec3<u32>) {
    let items = broad_items();
    let blocks = (items + BROAD_SCAN_BLOCK - 1u) / BROAD_SCAN_BLOCK;
    let per = (blocks + RIGID_WG - 1u) / RIGID_WG;
    let lo = min(lid.x * per, blocks);
    let hi = min(lo + per, blocks);
    let sums = broad_base() + items;
    var run = 0u;
    for (var b = lo; b < hi; b = b + 1u) {
        let c = pair_scratch[sums + b];
        pair_scratch[sums + b] = run;
        run = run + c;
    }
    let prefix = broad_wg_scan(lid.x, run);
    for (var b = lo; b < hi; b = b + 1u) {
        pair_scratch[sums + b] = pair_scratch[sums + b] + prefix;
    }
    if (lid.x == 0u) {
        pair_scratch[sums + blocks] = 0u; // the truncation flag, set by broad_write
    }
    if (lid.x == RIGID_WG - 1u) {
        let wanted = broad_wg[RIGID_WG - 1u];
        pair_scratch[sums + blocks + 1u] = wanted; // the total, for broad_write's last item
        atomicStore(&counters[COUNTER_PAIRS_WANTED], wanted);
        let pairs = min(wanted, broad_capacity());
        atomicStore(&counters[COUNTER_PAIRS], pairs);
        // The joints' slots follow the contacts' (joint_slots).
        let slots = pairs + params.joint_count;
        atomicStore(&counters[COUNTER_SLOTS], slots);
        // The per-pair stages' indirect arguments (step.rs `pair_groups`): a workgroup per
        // RIGID_WG slots filled, at least one (colour_init also clears counters).
        atomicStore(&counters[COUNTER_PAIR_GROUPS], max((slots + RIGID_WG - 1u) / RIGID_WG, 1u));
        atomicStore(&counters[COUNTER_PAIR_GROUPS + 1u], 1u);
        atomicStore(&counters[COUNTER_PAIR_GROUPS + 2u], 1u);
    }
}

/// The pairs the broad phase may write: the pair slots less those held for joints
/// (broad.rs `broad_capacity`).
fn broad_capacity() -> u32 {
    return params.pair_capacity - min(params.joint_capacity, params.pair_capacity);
}

/// Writes pair (a, b) at slot o when it is below the capacity.
fn broad_emit(o: u32, a: u32, b: u32) {
    if (o < broad_capacity()) {
        pairs[o] = vec2<u32>(a, b);
    }
}

/// Item t's first pair slot; the total for t == items.
fn broad_offset(t: u32, items: u32) -> u32 {
    let base = broad_base();
    let blocks = (items + BROAD_SCAN_BLOCK - 1u) / BROAD_SCAN_BLOCK;
    if (t >= items) {
        return pair_scratch[base + items + blocks + 1u];
    }
    return pair_scratch[base + t] + pair_scratch[base + items + t / BROAD_SCAN_BLOCK];
}

@compute @workgroup_size(RIGID_WG)
fn broad_write(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let items = broad_items();
    let stride = nwg.x * RIGID_WG;
    let flag = broad_truncated_word();
    for (var t = gid.x; t < items; t = t + stride) {
        var o = broad_offset(t, items);
        if (o >= broad_capacity()) {
            continue;
        }
        let o_end = min(broad_offset(t + 1u, items), broad_capacity());
        let it = broad_item(t);
        if (it.y == NONE) {
            let sa = broad_side(it.x);
            if (sa.kind == 0u) {
                continue;
            }
            let cell = broad_cell_of(it.x);
            // Rounds of the BROAD_BATCH smallest partners above the last one written.
            var after = it.x;
            let base = lid.x * BROAD_BATCH;
            loop {
                let len = broad_small_search(it.x, sa, cell, after, true, lid.x).y;
                for (var i = 0u; i < len; i = i + 1u) {
                    broad_emit(o + i, it.x, broad_batch[base + i]);
                }
                o = o + len;
                if (len < BROAD_BATCH || o >= broad_capacity()) {
                    break;
                }
                after = broad_batch[base + BROAD_BATCH - 1u];
            }
        } else {
            let sl = broad_side(it.x);
            if (sl.kind != 0u) {
                let r = broad_chunk_range(it.x, it.y);
                for (var b = r.x; b < r.y; b = b + 1u) {
                    if (broad_pair_any(it.x, sl, b)) {
                        broad_emit(o, it.x, b);
                        o = o + 1u;
                    }
                }
            }
        }
        if (o < o_end) {
            pair_scratch[flag] = 1u;
        }
    }
}
