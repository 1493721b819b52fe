// Stages `warm_start`, `colour_manifolds`, `solve_prepare`, `solve_warm_apply`,
// `solve_velocity`, `solve_position` and the single-workgroup `solve_velocity_fused` /
// `solve_position_fused`: the contact solver. CPU twin: src/rigid/solver.rs, same names and
// operation order; read its module docs for why it is shaped so.
//
// Reads: params, bodies, manifolds (points, normal, friction in normal.w, restitution in
// material.x, features), manifolds_prev and counters[SOLVE_COUNTER_PREV_PAIRS] (warm start),
// counters[COUNTER_PAIRS]. Writes: manifolds[k].impulses (accumulated, the next step's warm
// start) and .colour, claims (zero on every body a manifold claims, on entry and on exit),
// order, solver rows, bodies (velocities, poses, world inverse inertia of dynamic bodies),
// counters COLOURS, UNCOLOURED, MANIFOLDS, INDIRECT, COLOUR_START and
// SOLVE_COUNTER_PREV_PAIRS.
//
// A colour is a batch of manifolds sharing no dynamic body, so one thread per manifold may
// write its bodies without atomics; colours run one after the other (one dispatch each, or a
// storage barrier in the fused single-workgroup kernels). The last colour collects what the
// independent colours could not hold and is solved by one thread in index order.

/// Counters word holding the pair count of the step that wrote `manifolds_prev`
/// (src/rigid/solver.rs COUNTER_PREV_PAIRS; tests/rigid_solver.rs checks they agree).
const SOLVE_COUNTER_PREV_PAIRS: u32 = 6u;
/// vec4 rows per contact point (solver.rs ROWS_PER_POINT). Per point, from its base:
/// 0: r_a, normal velocity target; 1: r_b, penetration at prepare; 2: tangent 1, slope bias
/// along it (0: no slope fix, see solver.rs); 3: tangent 2, slope bias (0); 4: anchor in a's
/// frame, K00; 5: anchor in b's frame, K01; 6: K⁻¹ column 0, K02; 7: K⁻¹ column 1, K11;
/// 8: K⁻¹ column 2, K22. K is the velocity change per unit impulse in the contact basis
/// (normal, tangent 1, tangent 2); the velocity rows use its diagonal.
const SOLVE_ROWS_PER_POINT: u32 = 9u;
/// Colouring sub-rounds per colour (solver.rs COLOUR_SUBROUNDS).
const SOLVE_COLOUR_SUBROUNDS: u32 = 16u;
/// Claim word of a free body / of a body taken by the colour being built.
const SOLVE_CLAIM_FREE: u32 = 0u;
const SOLVE_CLAIM_TAKEN: u32 = 0xffffffffu;

/// A body as the solver sees it (solver.rs SolveBody).
struct SolveBody {
    pos: vec3<f32>,
    orient: vec4<f32>,
    lin_vel: vec3<f32>,
    ang_vel: vec3<f32>,
    inv_mass: f32,
    inv_inertia: mat3x3<f32>,
    body_inv_inertia: mat3x3<f32>,
    last_acc: vec3<f32>,
    is_dyn: bool,
}

/// The two tangents of a contact basis.
struct SolveBasis {
    t1: vec3<f32>,
    t2: vec3<f32>,
}

fn solve_is_dynamic(i: u32) -> bool {
    if (i == NONE || i >= params.body_count) {
        return false;
    }
    return bodies[i].kind == BODY_DYNAMIC && bodies[i].awake != 0u;
}

fn solve_load(i: u32) -> SolveBody {
    var s: SolveBody;
    s.pos = vec3<f32>(0.0);
    s.orient = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    s.lin_vel = vec3<f32>(0.0);
    s.ang_vel = vec3<f32>(0.0);
    s.inv_mass = 0.0;
    s.inv_inertia = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    s.body_inv_inertia = s.inv_inertia;
    s.last_acc = vec3<f32>(0.0);
    s.is_dyn = false;
    if (i == NONE || i >= params.body_count) {
        return s;
    }
    let b = bodies[i];
    s.pos = b.pos.xyz;
    s.orient = b.orient;
    s.lin_vel = b.lin_vel.xyz;
    s.ang_vel = b.ang_vel.xyz;
    if (b.kind == BODY_DYNAMIC && b.awake != 0u) {
        s.inv_mass = b.pos.w;
        s.inv_inertia = mat3_cols(b.inv_inertia_world);
        s.body_inv_inertia = mat3_cols(b.inv_inertia);
        s.last_acc = b.last_acc.xyz;
        s.is_dyn = true;
    }
    return s;
}

fn solve_store(i: u32, s: SolveBody) {
    if (!s.is_dyn || i == NONE) {
        return;
    }
    bodies[i].lin_vel = vec4<f32>(s.lin_vel, bodies[i].lin_vel.w);
    bodies[i].ang_vel = vec4<f32>(s.ang_vel, bodies[i].ang_vel.w);
    bodies[i].pos = vec4<f32>(s.pos, bodies[i].pos.w);
    bodies[i].orient = s.orient;
    bodies[i].inv_inertia_world = array<vec4<f32>, 3>(
        vec4<f32>(s.inv_inertia[0], 0.0),
        vec4<f32>(s.inv_inertia[1], 0.0),
        vec4<f32>(s.inv_inertia[2], 0.0),
    );
}

fn solve_awake_dynamic(i: u32) -> bool {
    return solve_is_dynamic(i) && bodies[i].awake != 0u;
}

fn solve_needs(m: Manifold) -> bool {
    return m.count > 0u && (solve_awake_dynamic(m.body_a) || solve_awake_dynamic(m.body_b));
}

/// The book's contact basis; t2 is n × t1 written out (see solver.rs contact_basis).
fn solve_basis(n: vec3<f32>) -> SolveBasis {
    if (abs(n.x) > abs(n.y)) {
        let s = 1.0 / sqrt(n.z * n.z + n.x * n.x);
        let t0 = vec3<f32>(n.z * s, 0.0, -n.x * s);
        let t1 = vec3<f32>(n.y * t0.z, n.z * t0.x - n.x * t0.z, -n.y * t0.x);
        return SolveBasis(t0, t1);
    }
    let s = 1.0 / sqrt(n.z * n.z + n.y * n.y);
    let t0 = vec3<f32>(0.0, -n.z * s, n.y * s);
    let t1 = vec3<f32>(n.y * t0.z - n.z * t0.y, -n.x * t0.z, n.x * t0.y);
    return SolveBasis(t0, t1);
}

/// Inverse by the columns' cross products, zero when singular (solver.rs mat3_inverse_or_zero).
fn solve_inverse(c0: vec3<f32>, c1: vec3<f32>, c2: vec3<f32>) -> mat3x3<f32> {
    let r0 = cross(c1, c2);
    let r1 = cross(c2, c0);
    let r2 = cross(c0, c1);
    let det = dot(c2, r2);
    // 1.17549435e-38 is f32::MIN_POSITIVE; the second test rejects NaN and infinity.
    if (abs(det) <= 1.17549435e-38 || !(abs(det) <= 3.40282347e+38)) {
        return mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    }
    let inv = 1.0 / det;
    return mat3x3<f32>(
        vec3<f32>(r0.x, r1.x, r2.x) * inv,
        vec3<f32>(r0.y, r1.y, r2.y) * inv,
        vec3<f32>(r0.z, r1.z, r2.z) * inv,
    );
}

/// (r × e_i)·I⁻¹(r × e_j) as column i (solver.rs angular_row).
fn solve_angular_rows(r: vec3<f32>, ii: mat3x3<f32>, e0: vec3<f32>, e1: vec3<f32>, e2: vec3<f32>) -> mat3x3<f32> {
    let u0 = ii * cross(r, e0);
    let u1 = ii * cross(r, e1);
    let u2 = ii * cross(r, e2);
    return mat3x3<f32>(
        vec3<f32>(dot(cross(r, e0), u0), dot(cross(r, e0), u1), dot(cross(r, e0), u2)),
        vec3<f32>(dot(cross(r, e1), u0), dot(cross(r, e1), u1), dot(cross(r, e1), u2)),
        vec3<f32>(dot(cross(r, e2), u0), dot(cross(r, e2), u1), dot(cross(r, e2), u2)),
    );
}

/// Unique, order-independent claim priority (solver.rs claim_priority).
fn solve_priority(k: u32) -> u32 {
    let mask = 0x7fffffffu;
    var x = (k + 1u) & mask;
    x = x ^ (x >> 16u);
    x = (x * 0x045d9f3bu) & mask;
    x = x ^ (x >> 16u);
    x = (x * 0x045d9f3bu) & mask;
    x = x ^ (x >> 16u);
    return x;
}

fn solve_manifold_count() -> u32 {
    return min(min(atomicLoad(&counters[COUNTER_PAIRS]), params.pair_capacity), arrayLength(&manifolds));
}

fn solve_row_base(k: u32, i: u32) -> u32 {
    return (k * MAX_POINTS + i) * SOLVE_ROWS_PER_POINT;
}

fn solve_key_less(a0: u32, a1: u32, b0: u32, b1: u32) -> bool {
    return a0 < b0 || (a0 == b0 && a1 < b1);
}

// ---------------------------------------------------------------------------------------------
// warm_start: one thread per manifold slot.

@compute @workgroup_size(RIGID_WG)
fn warm_start(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= solve_manifold_count()) {
        return;
    }
    let m = manifolds[k];
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
        var lo = 0u;
        var hi = prev_count;
        while (lo < hi) {
            let mid = (lo + hi) / 2u;
            let q = manifolds_prev[mid];
            if (solve_key_less(min(q.shape_a, q.shape_b), max(q.shape_a, q.shape_b), key0, key1)) {
                lo = mid + 1u;
            } else {
                hi = mid;
            }
        }
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
// colour_manifolds: one workgroup. Sub-rounds of claim / check / release per colour, separated
// by barriers, then a counting sort where thread t owns a contiguous range of manifolds (so the
// order inside a colour is the index order, the same as the CPU's).

var<workgroup> colour_winners: atomic<u32>;
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

/// The dynamic bodies a manifold claims (NONE where none; a body paired with itself once).
fn colour_bodies(m: Manifold) -> vec2<u32> {
    var d = vec2<u32>(NONE, NONE);
    if (solve_is_dynamic(m.body_a)) {
        d.x = m.body_a;
    }
    if (m.body_b != m.body_a && solve_is_dynamic(m.body_b)) {
        d.y = m.body_b;
    }
    return d;
}

fn colour_is_candidate(m: Manifold) -> bool {
    if (m.colour != NONE || !solve_needs(m)) {
        return false;
    }
    let d = colour_bodies(m);
    if (d.x != NONE && atomicLoad(&claims[d.x]) == SOLVE_CLAIM_TAKEN) {
        return false;
    }
    if (d.y != NONE && atomicLoad(&claims[d.y]) == SOLVE_CLAIM_TAKEN) {
        return false;
    }
    return true;
}

fn colour_holds(d: vec2<u32>, p: u32) -> bool {
    return (d.x == NONE || atomicLoad(&claims[d.x]) == p) && (d.y == NONE || atomicLoad(&claims[d.y]) == p);
}

@compute @workgroup_size(RIGID_WG)
fn colour_manifolds(@builtin(local_invocation_index) t: u32) {
    let n = solve_manifold_count();
    // Start: nothing coloured, every claimed body free (other stages, e.g. wake_mark, use
    // `claims` too; all writers store the same 0, so the result is order-independent); count
    // what needs solving.
    for (var k = t; k < n; k += RIGID_WG) {
        manifolds[k].colour = NONE;
        let m = manifolds[k];
        let d = colour_bodies(m);
        if (d.x != NONE) {
            atomicStore(&claims[d.x], SOLVE_CLAIM_FREE);
        }
        if (d.y != NONE) {
            atomicStore(&claims[d.y], SOLVE_CLAIM_FREE);
        }
        if (m.count > 0u) {
            atomicAdd(&colour_manifold_total, 1u);
        }
        if (solve_needs(m)) {
            atomicAdd(&colour_left, 1u);
        }
    }
    colour_sync();
    if (t == 0u) {
        colour_flag = atomicLoad(&colour_left);
        atomicStore(&colour_left, 0u);
    }
    workgroupBarrier();
    var c = 0u;
    loop {
        if (workgroupUniformLoad(&colour_flag) == 0u || c >= MAX_COLOURS - 1u) {
            break;
        }
        var sub = 0u;
        loop {
            // Phase 1: candidates claim with max. Phase 1 changes no TAKEN word, so the
            // candidate test (no body taken) reads the same in every order.
            for (var k = t; k < n; k += RIGID_WG) {
                let m = manifolds[k];
                if (colour_is_candidate(m)) {
                    let d = colour_bodies(m);
                    let p = solve_priority(k);
                    if (d.x != NONE) {
                        atomicMax(&claims[d.x], p);
                    }
                    if (d.y != NONE) {
                        atomicMax(&claims[d.y], p);
                    }
                }
            }
            colour_sync();
            // Phase 2: a candidate that holds all its bodies takes the colour (the candidate
            // flag is recomputed: TAKEN words appear only below, and only on bodies a winner
            // holds, which a loser cannot hold). Winners mark after everyone has checked.
            var won = false;
            for (var k = t; k < n; k += RIGID_WG) {
                let m = manifolds[k];
                if (colour_is_candidate(m) && colour_holds(colour_bodies(m), solve_priority(k))) {
                    manifolds[k].colour = c;
                    atomicAdd(&colour_winners, 1u);
                }
            }
            colour_sync();
            for (var k = t; k < n; k += RIGID_WG) {
                let m = manifolds[k];
                if (m.colour == c) {
                    let d = colour_bodies(m);
                    if (d.x != NONE) {
                        atomicStore(&claims[d.x], SOLVE_CLAIM_TAKEN);
                    }
                    if (d.y != NONE) {
                        atomicStore(&claims[d.y], SOLVE_CLAIM_TAKEN);
                    }
                }
            }
            colour_sync();
            // Phase 3: losers release what they hold, so every word is FREE or TAKEN.
            for (var k = t; k < n; k += RIGID_WG) {
                let m = manifolds[k];
                if (m.colour == NONE && solve_needs(m)) {
                    let d = colour_bodies(m);
                    let p = solve_priority(k);
                    if (d.x != NONE && atomicLoad(&claims[d.x]) == p) {
                        atomicStore(&claims[d.x], SOLVE_CLAIM_FREE);
                    }
                    if (d.y != NONE && atomicLoad(&claims[d.y]) == p) {
                        atomicStore(&claims[d.y], SOLVE_CLAIM_FREE);
                    }
                }
            }
            colour_sync();
            if (t == 0u) {
                colour_flag = atomicLoad(&colour_winners);
                atomicStore(&colour_winners, 0u);
            }
            workgroupBarrier();
            sub += 1u;
            if (workgroupUniformLoad(&colour_flag) == 0u || sub >= SOLVE_COLOUR_SUBROUNDS) {
                break;
            }
        }
        // Release this colour's bodies and count what is left.
        for (var k = t; k < n; k += RIGID_WG) {
            let m = manifolds[k];
            if (m.colour == c) {
                let d = colour_bodies(m);
                if (d.x != NONE) {
                    atomicStore(&claims[d.x], SOLVE_CLAIM_FREE);
                }
                if (d.y != NONE) {
                    atomicStore(&claims[d.y], SOLVE_CLAIM_FREE);
                }
            } else if (m.colour == NONE && solve_needs(m)) {
                atomicAdd(&colour_left, 1u);
            }
        }
        colour_sync();
        if (t == 0u) {
            colour_flag = atomicLoad(&colour_left);
            atomicStore(&colour_left, 0u);
        }
        workgroupBarrier();
        c += 1u;
    }
    // Leftovers go to the sequential colour.
    for (var k = t; k < n; k += RIGID_WG) {
        let m = manifolds[k];
        if (m.colour == NONE && solve_needs(m)) {
            manifolds[k].colour = MAX_COLOURS - 1u;
            atomicAdd(&colour_left, 1u);
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
    if (t == 0u) {
        var start = 0u;
        for (var col = 0u; col < MAX_COLOURS; col++) {
            colour_starts[col] = start;
            start += colour_totals[col];
        }
        colour_starts[MAX_COLOURS] = start;
        let uncoloured = atomicLoad(&colour_left);
        var used = c;
        if (uncoloured > 0u) {
            used = MAX_COLOURS;
        }
        atomicStore(&counters[COUNTER_COLOURS], used);
        atomicStore(&counters[COUNTER_UNCOLOURED], uncoloured);
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
        if (t == MAX_COLOURS - 1u) {
            groups = min(total, 1u);
        }
        atomicStore(&counters[COUNTER_INDIRECT + 3u * t], groups);
        atomicStore(&counters[COUNTER_INDIRECT + 3u * t + 1u], 1u);
        atomicStore(&counters[COUNTER_INDIRECT + 3u * t + 2u], 1u);
    }
    for (var k = lo; k < hi; k++) {
        let col = manifolds[k].colour;
        if (col != NONE) {
            let slot = colour_starts[col] + colour_hist[col * RIGID_WG + t];
            colour_hist[col * RIGID_WG + t] += 1u;
            order[slot] = k;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// solve_prepare: one thread per manifold slot.

@compute @workgroup_size(RIGID_WG)
fn solve_prepare(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= solve_manifold_count()) {
        return;
    }
    let m = manifolds[k];
    if (m.colour == NONE) {
        // A manifold that needs solving but got no colour would be skipped silently: count it
        // (software adapters cut long loops in colour_manifolds short on huge scenes).
        if (solve_needs(m)) {
            atomicAdd(&counters[COUNTER_UNSOLVED], 1u);
        }
        return;
    }
    let a = solve_load(m.body_a);
    let b = solve_load(m.body_b);
    let n = m.normal.xyz;
    let basis = solve_basis(n);
    let t1 = basis.t1;
    let t2 = basis.t2;
    let dt = params.dt;
    let restitution = m.material.x;
    let inv_mass = a.inv_mass + b.inv_mass;
    let acc = (a.last_acc - b.last_acc) * dt;
    let vel_from_acc = dot(acc, n);
    // No slope fix (see solver.rs solve_prepare).
    let acc_t1 = 0.0 * dot(acc, t1);
    let acc_t2 = 0.0 * dot(acc, t2);
    let count = min(m.count, MAX_POINTS);
    for (var i = 0u; i < count; i++) {
        let p = m.points[i];
        let point = p.xyz;
        let ra = point - a.pos;
        let rb = point - b.pos;
        let la = quat_rotate_inv(a.orient, ra);
        let lb = quat_rotate_inv(b.orient, rb);
        let ka = solve_angular_rows(ra, a.inv_inertia, n, t1, t2);
        let kb = solve_angular_rows(rb, b.inv_inertia, n, t1, t2);
        let k0 = ka[0] + kb[0] + vec3<f32>(inv_mass, 0.0, 0.0);
        let k1 = ka[1] + kb[1] + vec3<f32>(0.0, inv_mass, 0.0);
        let k2 = ka[2] + kb[2] + vec3<f32>(0.0, 0.0, inv_mass);
        let kinv = solve_inverse(k0, k1, k2);
        let dv = (a.lin_vel + cross(a.ang_vel, ra)) - (b.lin_vel + cross(b.ang_vel, rb));
        let vn = dot(dv, n);
        let pen = p.w;
        var c = restitution;
        if (-(vn - vel_from_acc) < params.restitution_cutoff) {
            c = 0.0;
        }
        var goal = -c * (vn - vel_from_acc);
        // Speculative point: close the gap, or bounce now if it closes within this step.
        if (pen < 0.0 && (c <= 0.0 || vn * dt >= pen)) {
            goal = pen / dt;
        }
        let base = solve_row_base(k, i);
        solver[base] = vec4<f32>(ra, goal);
        solver[base + 1u] = vec4<f32>(rb, pen);
        solver[base + 2u] = vec4<f32>(t1, acc_t1);
        solver[base + 3u] = vec4<f32>(t2, acc_t2);
        solver[base + 4u] = vec4<f32>(la, k0.x);
        solver[base + 5u] = vec4<f32>(lb, k0.y);
        solver[base + 6u] = vec4<f32>(kinv[0], k0.z);
        solver[base + 7u] = vec4<f32>(kinv[1], k1.y);
        solver[base + 8u] = vec4<f32>(kinv[2], k2.z);
    }
}

// ---------------------------------------------------------------------------------------------
// Per-manifold solver bodies, shared by the per-colour and the fused entry points.

fn solve_apply(a: ptr<function, SolveBody>, b: ptr<function, SolveBody>, g: vec3<f32>, ra: vec3<f32>, rb: vec3<f32>) {
    (*a).lin_vel += g * (*a).inv_mass;
    (*a).ang_vel += (*a).inv_inertia * cross(ra, g);
    (*b).lin_vel -= g * (*b).inv_mass;
    (*b).ang_vel -= (*b).inv_inertia * cross(rb, g);
}

fn solve_warm_manifold(k: u32) {
    let m = manifolds[k];
    var a = solve_load(m.body_a);
    var b = solve_load(m.body_b);
    let n = m.normal.xyz;
    let count = min(m.count, MAX_POINTS);
    for (var i = 0u; i < count; i++) {
        let base = solve_row_base(k, i);
        let ra = solver[base].xyz;
        let rb = solver[base + 1u].xyz;
        let t1 = solver[base + 2u].xyz;
        let t2 = solver[base + 3u].xyz;
        let imp = m.impulses[i];
        let g = n * imp.x + t1 * imp.y + t2 * imp.z;
        solve_apply(&a, &b, g, ra, rb);
    }
    solve_store(m.body_a, a);
    solve_store(m.body_b, b);
}

fn solve_velocity_manifold(k: u32) {
    let m = manifolds[k];
    var a = solve_load(m.body_a);
    var b = solve_load(m.body_b);
    let n = m.normal.xyz;
    let mu = m.normal.w;
    let count = min(m.count, MAX_POINTS);
    for (var i = 0u; i < count; i++) {
        let base = solve_row_base(k, i);
        let r0 = solver[base];
        let ra = r0.xyz;
        let goal = r0.w;
        let rb = solver[base + 1u].xyz;
        let r2 = solver[base + 2u];
        let r3 = solver[base + 3u];
        let t1 = r2.xyz;
        let t2 = r3.xyz;
        let kn = vec3<f32>(solver[base + 4u].w, solver[base + 5u].w, solver[base + 6u].w);
        let i0 = solver[base + 6u].xyz;
        let i1 = solver[base + 7u].xyz;
        let i2 = solver[base + 8u].xyz;
        // Friction first, then the normal row, each with its own effective mass (solver.rs).
        let k11 = solver[base + 7u].w;
        let k22 = solver[base + 8u].w;
        let old0 = m.impulses[i].xyz;
        let dv = (a.lin_vel + cross(a.ang_vel, ra)) - (b.lin_vel + cross(b.ang_vel, rb));
        let vt1 = dot(dv, t1) + r2.w;
        let vt2 = dot(dv, t2) + r3.w;
        var tan = vec2<f32>(old0.y, old0.z);
        if (k11 > 0.0) {
            tan.x = tan.x - vt1 / k11;
        }
        if (k22 > 0.0) {
            tan.y = tan.y - vt2 / k22;
        }
        let limit = mu * old0.x;
        let planar = length(tan);
        if (planar > limit) {
            var scale = 0.0;
            if (planar > 0.0) {
                scale = limit / planar;
            }
            tan = tan * scale;
        }
        let gt = t1 * (tan.x - old0.y) + t2 * (tan.y - old0.z);
        solve_apply(&a, &b, gt, ra, rb);
        let dv2 = (a.lin_vel + cross(a.ang_vel, ra)) - (b.lin_vel + cross(b.ang_vel, rb));
        let vn = dot(dv2, n);
        var normal = old0.x;
        if (kn.x > 0.0) {
            normal = max(old0.x + (goal - vn) / kn.x, 0.0);
        }
        // Keep the accumulated pair inside the cone when the normal row lowered λn.
        var kept = tan;
        let planar2 = length(kept);
        if (planar2 > mu * normal) {
            var scale2 = 0.0;
            if (planar2 > 0.0) {
                scale2 = mu * normal / planar2;
            }
            kept = kept * scale2;
        }
        let acc_imp = vec3<f32>(normal, kept.x, kept.y);
        let old = vec3<f32>(old0.x, tan.x, tan.y);
        let inc = acc_imp - old;
        let g = n * inc.x + t1 * inc.y + t2 * inc.z;
        solve_apply(&a, &b, g, ra, rb);
        manifolds[k].impulses[i] = vec4<f32>(acc_imp, 0.0);
    }
    solve_store(m.body_a, a);
    solve_store(m.body_b, b);
}

fn solve_project_body(s: ptr<function, SolveBody>, n: vec3<f32>, lin_move: f32, ang_move: f32, u: vec3<f32>, ang: f32) {
    (*s).pos += n * lin_move;
    if (ang > 0.0 && ang_move != 0.0) {
        let rot = u * (ang_move / ang);
        (*s).orient = quat_normalize(quat_add_scaled((*s).orient, rot, 1.0));
        let r = quat_to_mat3((*s).orient);
        (*s).inv_inertia = r * (*s).body_inv_inertia * transpose(r);
    }
}

/// The book's over-rotation limit (solver.rs limit_angular): returns (linear, angular).
fn solve_limit_angular(lin: f32, ang: f32, limit: f32) -> vec2<f32> {
    if (abs(ang) > limit) {
        let total = lin + ang;
        var a = -limit;
        if (ang >= 0.0) {
            a = limit;
        }
        return vec2<f32>(total - a, a);
    }
    return vec2<f32>(lin, ang);
}

fn solve_position_manifold(k: u32) {
    let m = manifolds[k];
    var a = solve_load(m.body_a);
    var b = solve_load(m.body_b);
    let n = m.normal.xyz;
    let count = min(m.count, MAX_POINTS);
    for (var i = 0u; i < count; i++) {
        let base = solve_row_base(k, i);
        let pen0 = solver[base + 1u].w;
        let la = solver[base + 4u].xyz;
        let lb = solver[base + 5u].xyz;
        let ra = quat_rotate(a.orient, la);
        let rb = quat_rotate(b.orient, lb);
        let pen = pen0 - dot(n, (a.pos + ra) - (b.pos + rb));
        let c = params.position_relax * (pen - params.position_slop);
        if (c <= 0.0) {
            continue;
        }
        let ua = a.inv_inertia * cross(ra, n);
        let ub = b.inv_inertia * cross(rb, n);
        let ang_a = dot(cross(ua, ra), n);
        let ang_b = dot(cross(ub, rb), n);
        let total = a.inv_mass + ang_a + b.inv_mass + ang_b;
        if (total <= 0.0) {
            continue;
        }
        let mv_a = solve_limit_angular(c * a.inv_mass / total, c * ang_a / total, params.angular_limit * length(ra));
        let mv_b = solve_limit_angular(-c * b.inv_mass / total, -c * ang_b / total, params.angular_limit * length(rb));
        solve_project_body(&a, n, mv_a.x, mv_a.y, ua, ang_a);
        solve_project_body(&b, n, mv_b.x, mv_b.y, ub, ang_b);
    }
    solve_store(m.body_a, a);
    solve_store(m.body_b, b);
}

// ---------------------------------------------------------------------------------------------
// Per-colour entry points: indirect dispatch with counters[COUNTER_INDIRECT + 3c]; group 1
// holds the colour. Thread t solves order[start + t]; the sequential colour runs in thread 0.

const SOLVE_STAGE_WARM: u32 = 0u;
const SOLVE_STAGE_VELOCITY: u32 = 1u;
const SOLVE_STAGE_POSITION: u32 = 2u;

fn solve_one(stage: u32, k: u32) {
    if (stage == SOLVE_STAGE_WARM) {
        solve_warm_manifold(k);
    } else if (stage == SOLVE_STAGE_VELOCITY) {
        solve_velocity_manifold(k);
    } else {
        solve_position_manifold(k);
    }
}

fn solve_colour_thread(stage: u32, c: u32, t: u32) {
    if (c >= MAX_COLOURS) {
        return;
    }
    let start = atomicLoad(&counters[COUNTER_COLOUR_START + c]);
    let end = atomicLoad(&counters[COUNTER_COLOUR_START + c + 1u]);
    if (c == MAX_COLOURS - 1u) {
        if (t == 0u) {
            for (var s = start; s < end; s++) {
                solve_one(stage, order[s]);
            }
        }
        return;
    }
    if (start + t < end) {
        solve_one(stage, order[start + t]);
    }
}

@compute @workgroup_size(RIGID_WG)
fn solve_warm_apply(@builtin(global_invocation_id) gid: vec3<u32>) {
    solve_colour_thread(SOLVE_STAGE_WARM, pass_info.colour, gid.x);
}

@compute @workgroup_size(RIGID_WG)
fn solve_velocity(@builtin(global_invocation_id) gid: vec3<u32>) {
    solve_colour_thread(SOLVE_STAGE_VELOCITY, pass_info.colour, gid.x);
}

@compute @workgroup_size(RIGID_WG)
fn solve_position(@builtin(global_invocation_id) gid: vec3<u32>) {
    solve_colour_thread(SOLVE_STAGE_POSITION, pass_info.colour, gid.x);
}

// ---------------------------------------------------------------------------------------------
// Fused entry points: one workgroup walks colours (and iterations) with a storage barrier
// between colours, so a small scene solves in one dispatch instead of one per colour.

var<workgroup> solve_colours_used: u32;

fn solve_fused_colours(stage: u32, t: u32, used: u32) {
    for (var c = 0u; c < used; c++) {
        let start = atomicLoad(&counters[COUNTER_COLOUR_START + c]);
        let end = atomicLoad(&counters[COUNTER_COLOUR_START + c + 1u]);
        if (c == MAX_COLOURS - 1u) {
            if (t == 0u) {
                for (var s = start; s < end; s++) {
                    solve_one(stage, order[s]);
                }
            }
        } else {
            for (var s = start + t; s < end; s += RIGID_WG) {
                solve_one(stage, order[s]);
            }
        }
        storageBarrier();
        workgroupBarrier();
    }
}

fn solve_load_colours(t: u32) -> u32 {
    if (t == 0u) {
        solve_colours_used = min(atomicLoad(&counters[COUNTER_COLOURS]), MAX_COLOURS);
    }
    return workgroupUniformLoad(&solve_colours_used);
}

@compute @workgroup_size(RIGID_WG)
fn solve_velocity_fused(@builtin(local_invocation_index) t: u32) {
    let used = solve_load_colours(t);
    solve_fused_colours(SOLVE_STAGE_WARM, t, used);
    for (var it = 0u; it < params.velocity_iterations; it++) {
        solve_fused_colours(SOLVE_STAGE_VELOCITY, t, used);
    }
}

@compute @workgroup_size(RIGID_WG)
fn solve_position_fused(@builtin(local_invocation_index) t: u32) {
    let used = solve_load_colours(t);
    for (var it = 0u; it < params.position_iterations; it++) {
        solve_fused_colours(SOLVE_STAGE_POSITION, t, used);
    }
}
