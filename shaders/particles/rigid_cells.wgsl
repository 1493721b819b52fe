// Stage `rigid_cells` (kernels `rigid_cells_reach`, `rigid_cells_count`, `rigid_cells_scan`,
// `rigid_cells_fill`, `rigid_cells_sort`) and stage `rigid_contacts_cells`: the particles
// against a rigid world's shapes through a hashed grid over their bounding spheres, built
// afresh each step from the poses the rigid world's `bodies` buffer holds (the poses the
// contacts read), so no shape moved since it was binned. See src/particles/rigid_cells.rs for
// the margin that keeps every shape `rigid_bound_near` accepts in the particle's bucket: the
// contacts are those of `rigid_contacts` (rigid.wgsl), in the same slot order.
//
// `rigid_cells_buf`, in words: [0] the live count, [1] the reach (the largest radius of a
// movable live particle, as bits), then RIGID_HEADER + 4 s the bounding sphere of slot s
// (bits), then `start` (buckets + 2 words: counts, then after the scan each bucket's first
// entry and the total), `cursor` (buckets + 1), and the entries (RIGID_CELL_SPAN³ a slot at
// most). Bucket `params.rigid_buckets` is the large one. The host clears the words before the
// entries ahead of the pass.
// Reads: params, acc, size, counters.live, life, rigid_bodies, rigid_shapes, and the grid
// through `rigid_cells_ro` (the same buffer, read-only) in `rigid_contacts_cells`.
// Writes: rigid_cells_buf; pos, vel (of the particles that touched a shape).
// CPU twin: src/particles/rigid_cells.rs, same names.

fn rigid_cells_start() -> u32 {
    return RIGID_HEADER + 4u * params.rigid_shape_count;
}

fn rigid_cells_cursor() -> u32 {
    return rigid_cells_start() + params.rigid_buckets + 2u;
}

fn rigid_cells_entries() -> u32 {
    return rigid_cells_cursor() + params.rigid_buckets + 1u;
}

fn rigid_cells_word(w: u32) -> u32 {
    return atomicLoad(&rigid_cells_buf[w]);
}

/// Slot `s`'s bounding sphere as `rigid_cells_count` stored it.
fn rigid_cells_bound(s: u32) -> vec4<f32> {
    let w = RIGID_HEADER + 4u * s;
    return vec4<f32>(
        bitcast<f32>(rigid_cells_word(w)),
        bitcast<f32>(rigid_cells_word(w + 1u)),
        bitcast<f32>(rigid_cells_word(w + 2u)),
        bitcast<f32>(rigid_cells_word(w + 3u)),
    );
}

/// Word `w` through the read-only binding (stage `rigid_contacts_cells` only reads the grid:
/// plain loads, which a software adapter runs far faster than atomic ones).
fn rigid_cells_read(w: u32) -> u32 {
    return rigid_cells_ro[w];
}

/// `rigid_cells_bound` through the read-only binding.
fn rigid_cells_bound_ro(s: u32) -> vec4<f32> {
    let w = RIGID_HEADER + 4u * s;
    return bitcast<vec4<f32>>(vec4<u32>(rigid_cells_ro[w], rigid_cells_ro[w + 1u],
        rigid_cells_ro[w + 2u], rigid_cells_ro[w + 3u]));
}

/// The cell holding `p` (the conversion clamps, as Rust's `as` saturates).
fn rigid_cell_of(p: vec3<f32>, inv: f32) -> vec3<i32> {
    return vec3<i32>(floor(p * inv));
}

/// The bucket of cell `c` (buckets a power of two).
fn rigid_cell_hash(c: vec3<i32>, buckets: u32) -> u32 {
    let u = bitcast<vec3<u32>>(c);
    return ((u.x * 73856093u) ^ (u.y * 19349663u) ^ (u.z * 83492791u)) & (buckets - 1u);
}

/// Where a shape goes: kind 0 nowhere, 1 the large bucket, 2 the cells lo..=hi.
struct RigidCellRange {
    kind: u32,
    lo: vec3<i32>,
    hi: vec3<i32>,
}

/// The cells a shape of bounding sphere `b` covers for particles of radius at most `reach`:
/// its sphere grown by reach + slop, times 1 + 1/256, plus 2⁻²⁰ of its distance from the origin.
fn rigid_cells_range(b: vec4<f32>, reach: f32, slop: f32, inv: f32) -> RigidCellRange {
    var out = RigidCellRange(0u, vec3<i32>(0), vec3<i32>(0));
    if (b.w == -1.0) {
        return out;
    }
    out.kind = 1u;
    if (b.w < 0.0) {
        return out;
    }
    let c = b.xyz;
    let ext = b.w + reach + slop;
    let a = abs(c);
    let e = ext * (1.0 + 1.0 / 256.0) + (max(max(a.x, a.y), a.z) + ext) * (1.0 / 1048576.0);
    // Beyond 1e18 the squares of `rigid_bound_near` overflow and accept everything.
    if (!(e < 1e18) || !all(a <= vec3<f32>(3.4028235e38))) {
        return out;
    }
    let lo = floor((c - vec3<f32>(e)) * inv);
    let hi = floor((c + vec3<f32>(e)) * inv);
    let span = hi - lo;
    if (max(max(span.x, span.y), span.z) > f32(RIGID_CELL_SPAN - 1u)) {
        return out;
    }
    out.kind = 2u;
    out.lo = vec3<i32>(lo);
    out.hi = vec3<i32>(hi);
    return out;
}

var<workgroup> rigid_reach_wg: atomic<u32>;

/// The live count into word 0, the largest non-negative radius of a movable live particle
/// (as bits, monotone for those) into word 1.
@compute @workgroup_size(WG)
fn rigid_cells_reach(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let i = gid.x;
    let live = counters.live;
    if (i == 0u) {
        atomicStore(&rigid_cells_buf[0], live);
    }
    if (li == 0u) {
        atomicStore(&rigid_reach_wg, 0u);
    }
    workgroupBarrier();
    if (i < live) {
        let bits = bitcast<u32>(size[i]);
        if (acc[i].w > 0.0 && bits < 0x80000000u) {
            atomicMax(&rigid_reach_wg, bits);
        }
    }
    workgroupBarrier();
    if (li == 0u) {
        atomicMax(&rigid_cells_buf[1], atomicLoad(&rigid_reach_wg));
    }
}

/// Calls for each cell bucket of `range` the count (`fill` false) or the fill of slot `s`.
fn rigid_cells_visit(range: RigidCellRange, s: u32, fill: bool) {
    let buckets = params.rigid_buckets;
    // The large bucket is written by `rigid_cells_scan`, in slot order.
    if (range.kind != 2u) {
        return;
    }
    for (var x = range.lo.x; x <= range.hi.x; x = x + 1) {
        for (var y = range.lo.y; y <= range.hi.y; y = y + 1) {
            for (var z = range.lo.z; z <= range.hi.z; z = z + 1) {
                rigid_cells_put(rigid_cell_hash(vec3<i32>(x, y, z), buckets), s, fill);
            }
        }
    }
}

fn rigid_cells_put(h: u32, s: u32, fill: bool) {
    if (fill) {
        let at = atomicAdd(&rigid_cells_buf[rigid_cells_cursor() + h], 1u);
        atomicStore(&rigid_cells_buf[rigid_cells_entries() + at], s);
    } else {
        atomicAdd(&rigid_cells_buf[rigid_cells_start() + h], 1u);
    }
}

/// Each shape slot's bounding sphere (stored for the fill and the particles) and its count in
/// each bucket it goes into.
@compute @workgroup_size(WG)
fn rigid_cells_count(@builtin(global_invocation_id) gid: vec3<u32>) {
    let s = gid.x;
    if (s >= params.rigid_shape_count) {
        return;
    }
    let b = rigid_shape_bound(s);
    let w = RIGID_HEADER + 4u * s;
    atomicStore(&rigid_cells_buf[w], bitcast<u32>(b.x));
    atomicStore(&rigid_cells_buf[w + 1u], bitcast<u32>(b.y));
    atomicStore(&rigid_cells_buf[w + 2u], bitcast<u32>(b.z));
    atomicStore(&rigid_cells_buf[w + 3u], bitcast<u32>(b.w));
    let reach = bitcast<f32>(rigid_cells_word(1u));
    let range = rigid_cells_range(b, reach, params.contact_slop, params.rigid_cell_inv);
    rigid_cells_visit(range, s, false);
}

var<workgroup> rigid_scan_wg: array<u32, WG>;

/// The inclusive prefix sum over the workgroup of each thread's `x` (every thread calls it).
fn rigid_scan_inclusive(li: u32, x: u32) -> u32 {
    workgroupBarrier();
    rigid_scan_wg[li] = x;
    workgroupBarrier();
    for (var off = 1u; off < WG; off = off * 2u) {
        var add = 0u;
        if (li >= off) {
            add = rigid_scan_wg[li - off];
        }
        workgroupBarrier();
        rigid_scan_wg[li] = rigid_scan_wg[li] + add;
        workgroupBarrier();
    }
    return rigid_scan_wg[li];
}

/// Whether slot `s` goes into the large bucket (from its stored bound).
fn rigid_cells_is_large(s: u32, reach: f32) -> bool {
    let range = rigid_cells_range(rigid_cells_bound(s), reach, params.contact_slop,
        params.rigid_cell_inv);
    return range.kind == 1u;
}

/// One workgroup: the large bucket's count (its slots, counted in chunks of slots), the
/// exclusive scan of the bucket counts into `start` (and `cursor`) with the total after the
/// last bucket, then the large bucket's entries in slot order (each chunk at its offset), so
/// it needs no sort however many it holds.
@compute @workgroup_size(WG)
fn rigid_cells_scan(@builtin(local_invocation_index) li: u32) {
    let n = params.rigid_shape_count;
    let reach = bitcast<f32>(rigid_cells_word(1u));
    let per_slot = (n + WG - 1u) / WG;
    let s0 = min(li * per_slot, n);
    let s1 = min(s0 + per_slot, n);
    var large = 0u;
    for (var s = s0; s < s1; s = s + 1u) {
        large = large + u32(rigid_cells_is_large(s, reach));
    }
    let large_before = rigid_scan_inclusive(li, large) - large;
    let nb = params.rigid_buckets + 1u;
    let base = rigid_cells_start();
    let cur = rigid_cells_cursor();
    if (li == WG - 1u) {
        atomicStore(&rigid_cells_buf[base + params.rigid_buckets], large_before + large);
    }
    storageBarrier();
    workgroupBarrier();
    let per = (nb + WG - 1u) / WG;
    let first = min(li * per, nb);
    let last = min(first + per, nb);
    var sum = 0u;
    for (var h = first; h < last; h = h + 1u) {
        sum = sum + rigid_cells_word(base + h);
    }
    let total = rigid_scan_inclusive(li, sum);
    var run = total - sum;
    for (var h = first; h < last; h = h + 1u) {
        let c = rigid_cells_word(base + h);
        atomicStore(&rigid_cells_buf[base + h], run);
        atomicStore(&rigid_cells_buf[cur + h], run);
        run = run + c;
    }
    if (li == WG - 1u) {
        atomicStore(&rigid_cells_buf[base + nb], total);
    }
    storageBarrier();
    workgroupBarrier();
    var at = rigid_cells_word(base + params.rigid_buckets) + large_before;
    let e = rigid_cells_entries();
    for (var s = s0; s < s1; s = s + 1u) {
        if (rigid_cells_is_large(s, reach)) {
            atomicStore(&rigid_cells_buf[e + at], s);
            at = at + 1u;
        }
    }
}

/// Each shape slot into the buckets it was counted in (in any order; `rigid_cells_sort`
/// orders them).
@compute @workgroup_size(WG)
fn rigid_cells_fill(@builtin(global_invocation_id) gid: vec3<u32>) {
    let s = gid.x;
    if (s >= params.rigid_shape_count) {
        return;
    }
    let reach = bitcast<f32>(rigid_cells_word(1u));
    let range = rigid_cells_range(rigid_cells_bound(s), reach, params.contact_slop,
        params.rigid_cell_inv);
    rigid_cells_visit(range, s, true);
}

/// Each cell bucket's slots ascending (insertion sort: a bucket holds a few; the large bucket
/// is in slot order already).
@compute @workgroup_size(WG)
fn rigid_cells_sort(@builtin(global_invocation_id) gid: vec3<u32>) {
    let h = gid.x;
    if (h >= params.rigid_buckets) {
        return;
    }
    let e = rigid_cells_entries();
    let a = rigid_cells_word(rigid_cells_start() + h);
    let b = rigid_cells_word(rigid_cells_start() + h + 1u);
    for (var k = a + 1u; k < b; k = k + 1u) {
        let key = rigid_cells_word(e + k);
        var j = k;
        loop {
            if (j <= a) {
                break;
            }
            let prev = rigid_cells_word(e + j - 1u);
            if (prev <= key) {
                break;
            }
            atomicStore(&rigid_cells_buf[e + j], prev);
            j = j - 1u;
        }
        atomicStore(&rigid_cells_buf[e + j], key);
    }
}

/// Stage `rigid_contacts_cells`: each live, movable particle against the shapes of its cell's
/// bucket and of the large bucket, merged in slot order (a slot binned twice in one bucket is
/// visited once); a contact that moves it into another cell goes on with that cell's bucket
/// past the slots done.
@compute @workgroup_size(WG)
fn rigid_contacts_cells(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= rigid_cells_read(0u)) {
        return;
    }
    let av = acc[i];
    if (!(av.w > 0.0)) {
        return;
    }
    let pv = pos[i];
    let vv = vel[i];
    let r = size[i];
    var p = pv.xyz;
    var v = vv.xyz;
    let tag = life[i].kind >> KIND_CURVES_SHIFT;
    let groups = particle_groups(tag);
    let slop = params.contact_slop;
    let buckets = params.rigid_buckets;
    let inv = params.rigid_cell_inv;
    let start = rigid_cells_start();
    let e = rigid_cells_entries();
    var home = rigid_cell_hash(rigid_cell_of(p, inv), buckets);
    var a = rigid_cells_read(start + home);
    var a_end = rigid_cells_read(start + home + 1u);
    var b = rigid_cells_read(start + buckets);
    let b_end = rigid_cells_read(start + buckets + 1u);
    // First only whether a shape of the two buckets is in reach (most sparks meet none): a
    // software adapter runs the contact code for every lane of a loop whose body holds it.
    var any_near = false;
    for (var k = a; k < a_end; k = k + 1u) {
        any_near = any_near || rigid_bound_near(rigid_cells_bound_ro(rigid_cells_read(e + k)), p,
            r, slop);
    }
    for (var k = b; k < b_end; k = k + 1u) {
        any_near = any_near || rigid_bound_near(rigid_cells_bound_ro(rigid_cells_read(e + k)), p,
            r, slop);
    }
    if (!any_near) {
        return;
    }
    // The resting-contact fix reads the acceleration at the integrated state.
    let acc_total = av.xyz + field_acceleration(p, v, av.w, tag);
    var next = 0u;
    var touched = false;
    loop {
        while (a < a_end && rigid_cells_read(e + a) < next) {
            a = a + 1u;
        }
        while (b < b_end && rigid_cells_read(e + b) < next) {
            b = b + 1u;
        }
        var slot = 0u;
        if (a < a_end && b < b_end) {
            slot = min(rigid_cells_read(e + a), rigid_cells_read(e + b));
        } else if (a < a_end) {
            slot = rigid_cells_read(e + a);
        } else if (b < b_end) {
            slot = rigid_cells_read(e + b);
        } else {
            break;
        }
        next = slot + 1u;
        if (!rigid_bound_near(rigid_cells_bound_ro(slot), p, r, slop)) {
            continue;
        }
        let t = rigid_touch(slot, groups, p, v, r, acc_total);
        if (t.touched) {
            p = t.p;
            v = t.v;
            touched = true;
            let h = rigid_cell_hash(rigid_cell_of(p, inv), buckets);
            if (h != home) {
                home = h;
                a = rigid_cells_read(start + h);
                a_end = rigid_cells_read(start + h + 1u);
            }
        }
    }
    if (touched) {
        pos[i] = vec4<f32>(p, pv.w);
        vel[i] = vec4<f32>(v, vv.w);
    }
}
