// Stages `warm_start`, `solve_prepare`, and the per-colour solver stages of the
// soft step: `solve_warm_apply`, `solve_contact` (biased), `solve_relax`, `solve_restitution`
// and `solve_position` (the optional book projection), each with a single-workgroup `_fused`
// entry for small scenes and a single-workgroup `_tail` entry for the colours after the
// per-colour dispatches of a sweep (the block solver's entries: solve_block.wgsl, which counts
// its staged bins in counters STAGED_BINS and UNSTAGED_BINS). CPU twin: src/rigid/solver.rs,
// same names and operation order; read its module docs for why it is shaped so.
//
// Reads: params, bodies, manifolds (points, normal, friction in normal.w, restitution in
// material.x, features, the `dynamic` bits the colouring wrote), manifolds_prev and
// counters[SOLVE_COUNTER_PREV_PAIRS] (warm start), counters[COUNTER_PAIRS]. Writes:
// manifolds[k].impulses (accumulated, the next step's warm start; w: the largest normal
// impulse of the step) and .colour, claims (zero on every body a manifold claims, on entry
// and on exit), order, the solver's records (`solver`, by position in `order`; the sweeps read
// them through `solver_rows` and reach a manifold only for its impulses), bodies (velocities,
// poses, world inverse inertia of dynamic bodies), counters COLOURS, UNCOLOURED, TAIL,
// MANIFOLDS, INDIRECT, COLOUR_START and SOLVE_COUNTER_PREV_PAIRS.
//
// A colour is a batch of manifolds sharing no dynamic body, so one thread per manifold may
// write its bodies without atomics; colours run one after the other (one dispatch each, or a
// storage barrier in the fused single-workgroup kernels). The last colour collects what the
// independent colours could not hold and is solved by one thread in index order.

/// Counters word holding the pair count of the step that wrote `manifolds_prev`
/// (src/rigid/solver.rs COUNTER_PREV_PAIRS; tests/rigid_solver.rs checks they agree).
const SOLVE_COUNTER_PREV_PAIRS: u32 = 6u;
/// vec4 rows per contact point (solver.rs ROWS_PER_POINT). Per point, from its base:
/// 0: anchor in a's frame, normal velocity target; 1: anchor in b's frame, penetration at
/// prepare; 2: the diagonal of K (normal, tangent 1, tangent 2), 0. (The largest normal impulse
/// the substeps applied, which restitution needs, rides in the fourth word of the point's
/// accumulated impulse, so a sweep stores one vec4 per point.) K is the velocity change per
/// unit impulse in the contact basis; the arms come from the anchors turned by the bodies'
/// current orientations (which the velocity iterations do not change; see solve_arm) and the
/// tangents from solve_basis(normal), so neither is stored.
const SOLVE_ROWS_PER_POINT: u32 = 3u;
/// `solve_prepare` writes the rows of the contacts the sweeps solve into `solver` (u32 words, so
/// the header's integers never pass through a float; the other rows are f32 bits) by their
/// position s in `order` (the colouring's order), one array per row (row r of position s at
/// r × stride + s, the stride being the buffer's length over SOLVE_RECORD_ROWS), so the threads of
/// a sweep, which take consecutive positions, read consecutive vec4s, and a sweep reads neither
/// `order` nor a manifold's header. Row SOLVE_ROW_HEAD: body_a, body_b, the manifold's slot k
/// and its point count | dynamic bits << 16 (u32s); SOLVE_ROW_NORMAL: the normal, friction (w);
/// SOLVE_ROW_MATERIAL: restitution, the radii of a's and b's round surfaces (solve_arms),
/// rolling resistance; from row SOLVE_ROW_POINTS, SOLVE_ROWS_PER_POINT per point, the rows above. The
/// accumulated impulses stay in manifolds[k]. (The CPU twin keeps its rows
/// by slot and packs its own copy in the solver's order: solver/velocity.rs.)
const SOLVE_RECORD_ROWS: u32 = SOLVE_ROW_POINTS + SOLVE_ROWS_PER_POINT * MAX_POINTS;
const SOLVE_ROW_HEAD: u32 = 0u;
const SOLVE_ROW_NORMAL: u32 = 1u;
const SOLVE_ROW_MATERIAL: u32 = 2u;
const SOLVE_ROW_POINTS: u32 = 3u;
/// Colouring rounds (solver.rs COLOUR_ROUNDS): manifolds still waiting after them go to the
/// sequential colour.
const SOLVE_COLOUR_ROUNDS: u32 = 32u;
/// The colour solved by one thread in index order: the manifolds no independent colour holds
/// (colour.rs `SEQUENTIAL_COLOUR`).
fn sequential_colour() -> u32 {
    return MAX_COLOURS - 1u;
}

/// The first colour the tail entries solve, after `params.colour_slots − 1` per-colour
/// dispatches (colour.rs `tail_colour`).
fn tail_colour() -> u32 {
    let slots = params.colour_slots;
    return select(slots, MAX_COLOURS, slots == 0u || slots > MAX_COLOURS) - 1u;
}

/// A body as the solver sees it (solver.rs SolveBody); `lin_w` and `ang_w` are the fourth
/// words of its velocity vec4s, written back as they were read.
struct SolveBody {
    pos: vec3<f32>,
    orient: vec4<f32>,
    lin_vel: vec3<f32>,
    ang_vel: vec3<f32>,
    lin_w: f32,
    ang_w: f32,
    inv_mass: f32,
    inv_inertia: mat3x3<f32>,
    body_inv_inertia: mat3x3<f32>,
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

/// Bits of `Manifold.dynamic` (types.rs MANIFOLD_DYNAMIC_A / _B), which the colouring writes
/// (`colour_reset`): body_a, body_b is moved by the solver (dynamic and awake).
const SOLVE_DYNAMIC_A: u32 = 1u;
const SOLVE_DYNAMIC_B: u32 = 2u;

/// A body the solver does not move (no inverse mass or inertia) at pose (`pos`, `orient`) with
/// velocities `lin` and `ang` (their fourth words kept for the store); a caller that moves it
/// sets `inv_mass`, `inv_inertia` and `is_dyn` (solve_load_velocity, and the block solver's
/// workgroup copy, block_load).
fn solve_body_posed(pos: vec4<f32>, orient: vec4<f32>, lin: vec4<f32>, ang: vec4<f32>) -> SolveBody {
    let zero = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    return SolveBody(pos.xyz, orient, lin.xyz, ang.xyz, lin.w, ang.w, 0.0, zero, zero, false);
}

/// Body i as the solver stages see it, read field by field; `dynamic` (for the sweeps, the
/// manifold's `dynamic` bits, which the colouring wrote from the body's kind and awake flag)
/// says whether the solver moves it. A static, kinematic or sleeping body, or none, has no
/// inverse mass. It reads the pose (whose fourth word is the inverse mass), the velocities and,
/// for a moved body, the world inverse inertia: 4 to 7 of a body's 16 vec4s, and no load waits
/// on another (the kind and awake flag come with the manifold). On lavapipe a sweep costs about
/// its memory accesses (BENCHMARKS.md, 2026-11-27, `6e8cf12`); the 5k wall's relax sweeps took a median
/// 53.5 ms a step with a field-by-field load against 59 ms with a whole-struct load (2026-11-27,
/// `7b9c45c`).
fn solve_load_velocity(i: u32, dynamic: bool) -> SolveBody {
    if (i == NONE || i >= params.body_count) {
        return solve_body_posed(vec4<f32>(0.0), vec4<f32>(0.0, 0.0, 0.0, 1.0), vec4<f32>(0.0), vec4<f32>(0.0));
    }
    let pos = bodies[i].pos;
    var s = solve_body_posed(pos, bodies[i].orient, bodies[i].lin_vel, bodies[i].ang_vel);
    if (dynamic) {
        s.inv_mass = pos.w;
        s.inv_inertia = mat3_cols(bodies[i].inv_inertia_world);
        s.is_dyn = true;
    }
    return s;
}

/// [`solve_load_velocity`], deciding from the body itself whether the solver moves it
/// (`solve_prepare` and the position projection).
fn solve_load_posed(i: u32) -> SolveBody {
    return solve_load_velocity(i, solve_is_dynamic(i));
}

/// [`solve_load_posed`] and the body-frame inverse inertia, for the position projection.
fn solve_load(i: u32) -> SolveBody {
    var s = solve_load_posed(i);
    if (s.is_dyn) {
        s.body_inv_inertia = mat3_cols(bodies[i].inv_inertia);
    }
    return s;
}

/// What the sweeps read of the contact at position s besides its points (`solve_prepare` wrote
/// it from manifolds[k]; see SOLVE_RECORD_ROWS).
struct SolveHead {
    body_a: u32,
    body_b: u32,
    k: u32,
    count: u32,
    dynamic: u32,
    normal: vec3<f32>,
    mu: f32,
    /// Restitution, the radii of a's and b's round surfaces (0 for flat ones; solve_arms), and
    /// the rolling resistance (the most rolling torque per unit normal impulse).
    material: vec4<f32>,
}

/// Row r of position s's record.
fn solve_row(s: u32, r: u32) -> vec4<f32> {
    return bitcast<vec4<f32>>(solver_rows[r * solve_record_stride() + s]);
}

/// The distance between a record's rows: the buffer holds SOLVE_RECORD_ROWS arrays of it.
fn solve_record_stride() -> u32 {
    return arrayLength(&solver_rows) / SOLVE_RECORD_ROWS;
}

/// Row r (below SOLVE_ROWS_PER_POINT) of point i of position s's record.
fn solve_point_row(s: u32, i: u32, r: u32) -> vec4<f32> {
    return solve_row(s, SOLVE_ROW_POINTS + i * SOLVE_ROWS_PER_POINT + r);
}

fn solve_head(s: u32) -> SolveHead {
    let h = solver_rows[SOLVE_ROW_HEAD * solve_record_stride() + s];
    let n = solve_row(s, SOLVE_ROW_NORMAL);
    let mat = solve_row(s, SOLVE_ROW_MATERIAL);
    return SolveHead(h.x, h.y, h.z, h.w & 0xffffu, h.w >> 16u, n.xyz, n.w, mat);
}

/// The arm of a contact point from a body's centre of mass at orientation q (solver.rs `arm`):
/// the anchor turned by q, then `round` back along the normal (solve_round; 0 for a flat
/// surface). A round surface's anchor is its centre, so within a step the arm stays at the
/// contact point while a ball or a capsule turns under it (it rolls; an arm to a point of the
/// body would roll away from the contact, and the normal impulse there would brake the
/// turning), and the overlap follows the centre. A flat surface's anchor is the contact point
/// itself, a point of the body that turns with it (a box tipping over an edge).
fn solve_arm(q: vec4<f32>, anchor: vec3<f32>, n: vec3<f32>, round: f32) -> vec3<f32> {
    let r = quat_rotate(q, anchor);
    return select(r, r - n * round, round != 0.0);
}

/// How far a round surface's centre lies from a contact point along the normal (solver.rs
/// `centre_distance`): its radius less half the penetration pen0 at prepare (the point is
/// halfway between the two surfaces); 0 for a flat surface (radius 0). Body a's centre is that
/// far along +n, body b's along −n.
fn solve_round(radius: f32, pen0: f32) -> f32 {
    return select(0.0, radius - 0.5 * pen0, radius != 0.0);
}

/// Both arms of a point whose rows are r0, r1 (its anchors, pen0 in r1.w), for a contact with
/// header h, at orientations qa and qb.
struct SolveArms {
    a: vec3<f32>,
    b: vec3<f32>,
}

fn solve_arms(h: SolveHead, qa: vec4<f32>, qb: vec4<f32>, r0: vec4<f32>, r1: vec4<f32>) -> SolveArms {
    let ra = solve_arm(qa, r0.xyz, h.normal, solve_round(h.material.y, r1.w));
    let rb = solve_arm(qb, r1.xyz, h.normal, -solve_round(h.material.z, r1.w));
    return SolveArms(ra, rb);
}

/// The contact at position s's bodies as the velocity sweeps see them.
fn solve_load_a(h: SolveHead) -> SolveBody {
    return solve_load_velocity(h.body_a, (h.dynamic & SOLVE_DYNAMIC_A) != 0u);
}

fn solve_load_b(h: SolveHead) -> SolveBody {
    return solve_load_velocity(h.body_b, (h.dynamic & SOLVE_DYNAMIC_B) != 0u);
}

// What the velocity stages change (solver.rs `store_velocity`): the velocities, with the fourth
// words read with them.
fn solve_store_velocity(i: u32, s: SolveBody) {
    if (!s.is_dyn || i == NONE) {
        return;
    }
    bodies[i].lin_vel = vec4<f32>(s.lin_vel, s.lin_w);
    bodies[i].ang_vel = vec4<f32>(s.ang_vel, s.ang_w);
}

// Velocities, pose and world inverse inertia (the position projection).
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

/// Whether a manifold needs solving: it has points and a body the solver moves (its `dynamic`
/// bits, which the colouring's `colour_reset` wrote for every slot this step; colour.rs
/// `needs_solve`).
fn solve_needs(m: Manifold) -> bool {
    return m.count > 0u && (m.dynamic & (SOLVE_DYNAMIC_A | SOLVE_DYNAMIC_B)) != 0u;
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

/// The manifold slots the step filled: the contacts, then the joints (COUNTER_SLOTS).
fn solve_manifold_count() -> u32 {
    return min(min(atomicLoad(&counters[COUNTER_SLOTS]), params.pair_capacity), arrayLength(&manifolds));
}

fn solve_key_less(a0: u32, a1: u32, b0: u32, b1: u32) -> bool {
    return a0 < b0 || (a0 == b0 && a1 < b1);
}

/// The first of the last step's first `n` manifolds (sorted by shape pair) whose pair is not
/// below (key0, key1): `n` when there is none.
fn solve_prev_lower_bound(key0: u32, key1: u32, n: u32) -> u32 {
    var lo = 0u;
    var hi = n;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        let q = manifolds_prev[mid];
        if (solve_key_less(min(q.shape_a, q.shape_b), max(q.shape_a, q.shape_b), key0, key1)) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// ---------------------------------------------------------------------------------------------
// Per-manifold solver bodies, shared by the per-colour and the fused entry points.

fn solve_apply(a: ptr<function, SolveBody>, b: ptr<function, SolveBody>, g: vec3<f32>, ra: vec3<f32>, rb: vec3<f32>) {
    (*a).lin_vel += g * (*a).inv_mass;
    (*a).ang_vel += (*a).inv_inertia * cross(ra, g);
    (*b).lin_vel -= g * (*b).inv_mass;
    (*b).ang_vel -= (*b).inv_inertia * cross(rb, g);
}

// solve_warm_apply on the bodies of the contact at position s (see solve_velocity_bodies).
fn solve_warm_bodies(s: u32, h: SolveHead, a: ptr<function, SolveBody>, b: ptr<function, SolveBody>) {
    let n = h.normal;
    let basis = solve_basis(n);
    let t1 = basis.t1;
    let t2 = basis.t2;
    var total = 0.0;
    for (var i = 0u; i < h.count; i++) {
        let arms = solve_arms(h, (*a).orient, (*b).orient, solve_point_row(s, i, 0u), solve_point_row(s, i, 1u));
        let imp = manifolds[h.k].impulses[i];
        let g = n * imp.x + t1 * imp.y + t2 * imp.z;
        solve_apply(a, b, g, arms.a, arms.b);
        total += imp.x;
    }
    if (params.fracture != 0u) {
        // The step's normal impulse so far, a substep late (fracture.wgsl).
        manifolds[h.k].rolling.z += total;
    }
    if (h.material.w > 0.0) {
        let roll = manifolds[h.k].rolling;
        solve_apply_angular(a, b, t1 * roll.x + t2 * roll.y);
    }
}

/// Applies angular impulse `g` (world): +g on a, −g on b.
fn solve_apply_angular(a: ptr<function, SolveBody>, b: ptr<function, SolveBody>, g: vec3<f32>) {
    (*a).ang_vel += (*a).inv_inertia * g;
    (*b).ang_vel -= (*b).inv_inertia * g;
}

/// Rolling resistance on the bodies of the contact with header `h`, after its points' rows
/// (solver.rs `rolling_row`): an angular impulse against the relative rolling ω_a − ω_b about
/// each tangent, with its own effective mass, accumulated and clamped to the disc
/// `material.w · Σλn` (Box2D v3's bound: the coefficient times the radius times the normal
/// impulse the points carry now). Spin about the normal is not resisted.
fn solve_rolling_bodies(h: SolveHead, total_normal: f32, t1: vec3<f32>, t2: vec3<f32>, a: ptr<function, SolveBody>, b: ptr<function, SolveBody>) {
    let old = manifolds[h.k].rolling;
    let k1 = dot(t1, (*a).inv_inertia * t1) + dot(t1, (*b).inv_inertia * t1);
    let k2 = dot(t2, (*a).inv_inertia * t2) + dot(t2, (*b).inv_inertia * t2);
    let dw = (*a).ang_vel - (*b).ang_vel;
    var roll = old.xy;
    if (k1 > 0.0) {
        roll.x = roll.x - dot(dw, t1) / k1;
    }
    if (k2 > 0.0) {
        roll.y = roll.y - dot(dw, t2) / k2;
    }
    roll = solve_clamp_disc(roll, h.material.w * total_normal);
    solve_apply_angular(a, b, t1 * (roll.x - old.x) + t2 * (roll.y - old.y));
    manifolds[h.k].rolling = vec4<f32>(roll, old.zw);
}

/// An accumulated pair of impulses clamped to the disc of radius `limit` (friction's cone,
/// rolling resistance's bound), scaled towards 0 when outside it.
fn solve_clamp_disc(v: vec2<f32>, limit: f32) -> vec2<f32> {
    let planar = length(v);
    if (planar > limit) {
        var scale = 0.0;
        if (planar > 0.0) {
            scale = limit / planar;
        }
        return v * scale;
    }
    return v;
}

fn solve_relative_velocity(a: SolveBody, b: SolveBody, ra: vec3<f32>, rb: vec3<f32>) -> vec3<f32> {
    return (a.lin_vel + cross(a.ang_vel, ra)) - (b.lin_vel + cross(b.ang_vel, rb));
}

// solve_contact (use_bias) and solve_relax (not): the normal row of the soft contact on the
// overlap tracked from the anchors, then rigid friction clamped to the disc (solver.rs).
fn solve_contact_bodies(s: u32, h: SolveHead, use_bias: bool, a: ptr<function, SolveBody>, b: ptr<function, SolveBody>) {
    let n = h.normal;
    let mu = h.mu;
    let basis = solve_basis(n);
    let t1 = basis.t1;
    let t2 = basis.t2;
    var soft = params.soft;
    if (!((*a).is_dyn && (*b).is_dyn)) {
        soft = params.soft_static;
    }
    var total_normal = 0.0;
    for (var i = 0u; i < h.count; i++) {
        let r0 = solve_point_row(s, i, 0u);
        let r1 = solve_point_row(s, i, 1u);
        let kd = solve_point_row(s, i, 2u);
        let arms = solve_arms(h, (*a).orient, (*b).orient, r0, r1);
        let ra = arms.a;
        let rb = arms.b;
        let pen = r1.w - dot(n, ((*a).pos + ra) - ((*b).pos + rb));
        let sep = params.position_slop - pen;
        var bias = 0.0;
        var mass_scale = 1.0;
        var impulse_scale = 0.0;
        if (sep > 0.0) {
            bias = sep * params.inv_dt;
        } else if (use_bias) {
            bias = max(soft.x * sep, -soft.w);
            mass_scale = soft.y;
            impulse_scale = soft.z;
        }
        let old4 = manifolds[h.k].impulses[i];
        let old = old4.xyz;
        let vn = dot(solve_relative_velocity(*a, *b, ra, rb), n);
        var normal = old.x;
        if (kd.x > 0.0) {
            normal = max(old.x - mass_scale * (vn + bias) / kd.x - impulse_scale * old.x, 0.0);
        }
        solve_apply(a, b, n * (normal - old.x), ra, rb);
        let dv = solve_relative_velocity(*a, *b, ra, rb);
        var tan = vec2<f32>(old.y, old.z);
        if (kd.y > 0.0) {
            tan.x = tan.x - dot(dv, t1) / kd.y;
        }
        if (kd.z > 0.0) {
            tan.y = tan.y - dot(dv, t2) / kd.z;
        }
        tan = solve_clamp_disc(tan, mu * normal);
        let g = t1 * (tan.x - old.y) + t2 * (tan.y - old.z);
        solve_apply(a, b, g, ra, rb);
        manifolds[h.k].impulses[i] = vec4<f32>(normal, tan.x, tan.y, max(old4.w, normal));
        total_normal += normal;
    }
    if (h.material.w > 0.0) {
        solve_rolling_bodies(h, total_normal, t1, t2, a, b);
    }
}

// solve_restitution: once per step, −e·v_n(start) for points that closed fast and pushed.
// Leaves `a` and `b` as they were when the manifold has no restitution.
fn solve_restitution_bodies(s: u32, h: SolveHead, a: ptr<function, SolveBody>, b: ptr<function, SolveBody>) {
    let e = h.material.x;
    if (e <= 0.0) {
        return;
    }
    let n = h.normal;
    let mu = h.mu;
    let basis = solve_basis(n);
    let t1 = basis.t1;
    let t2 = basis.t2;
    for (var i = 0u; i < h.count; i++) {
        let r0 = solve_point_row(s, i, 0u);
        let r1 = solve_point_row(s, i, 1u);
        let kd = solve_point_row(s, i, 2u);
        let vn0 = r0.w;
        let old = manifolds[h.k].impulses[i];
        if (-vn0 < params.restitution_cutoff || old.w <= 0.0 || kd.x <= 0.0) {
            continue;
        }
        let arms = solve_arms(h, (*a).orient, (*b).orient, r0, r1);
        let ra = arms.a;
        let rb = arms.b;
        let vn = dot(solve_relative_velocity(*a, *b, ra, rb), n);
        let normal = max(old.x - (vn + e * vn0) / kd.x, 0.0);
        // Keep the accumulated pair inside the cone when the bounce lowered λn.
        let tan = vec2<f32>(old.y, old.z);
        let planar = length(tan);
        var kept = tan;
        if (planar > mu * normal) {
            var scale = 0.0;
            if (planar > 0.0) {
                scale = mu * normal / planar;
            }
            kept = kept * scale;
        }
        let g = n * (normal - old.x) + t1 * (kept.x - tan.x) + t2 * (kept.y - tan.y);
        solve_apply(a, b, g, ra, rb);
        manifolds[h.k].impulses[i] = vec4<f32>(normal, kept.x, kept.y, old.w);
    }
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

fn solve_position_manifold(s: u32) {
    let h = solve_head(s);
    if (h.count == 0u) {
        // A joint's slot: the projection is the contacts'.
        return;
    }
    var a = solve_load(h.body_a);
    var b = solve_load(h.body_b);
    let n = h.normal;
    for (var i = 0u; i < h.count; i++) {
        let r1 = solve_point_row(s, i, 1u);
        let pen0 = r1.w;
        let arms = solve_arms(h, a.orient, b.orient, solve_point_row(s, i, 0u), r1);
        let ra = arms.a;
        let rb = arms.b;
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
    solve_store(h.body_a, a);
    solve_store(h.body_b, b);
}

// ---------------------------------------------------------------------------------------------
// Per-colour entry points: indirect dispatch with counters[COUNTER_INDIRECT + 3c]; group 1
// holds the colour. Thread t solves the contact at position start + t of `order` (its record);
// the sequential colour runs in thread 0.

const SOLVE_STAGE_WARM: u32 = 0u;
const SOLVE_STAGE_CONTACT: u32 = 1u;
const SOLVE_STAGE_RELAX: u32 = 2u;
const SOLVE_STAGE_RESTITUTION: u32 = 3u;
const SOLVE_STAGE_POSITION: u32 = 4u;

/// The restitution of the contact at position s (its manifold's material.x, in its record's
/// material row).
fn solve_restitution_of(s: u32) -> f32 {
    return solve_row(s, SOLVE_ROW_MATERIAL).x;
}

/// Whether a velocity stage leaves the contact at position s alone (restitution without
/// restitution): its bodies are then neither loaded nor stored.
fn solve_skips(stage: u32, s: u32) -> bool {
    return stage == SOLVE_STAGE_RESTITUTION && solve_restitution_of(s) <= 0.0;
}

/// Whether the velocity sweeps carry the joint rows: set false (a pipeline-overridable constant)
/// for worlds without joints, whose kernels are then as small as before joints existed; on a
/// software adapter the joint rows' code alone slowed every sweep of the 5k wall by half
/// (solve_relax 46 → 74 ms a step on lavapipe, 2026-11-29). Twin: none (the CPU twin's order
/// is the same either way; a slot with no points and no joint is skipped on both paths).
override SOLVE_JOINTS: bool = true;

/// A velocity stage's work on the bodies `a` and `b` of the contact at position s (whose header
/// is `h`), wherever they were loaded from (the bodies buffer here, a block's workgroup copy in
/// solve_block.wgsl).
fn solve_velocity_bodies(stage: u32, s: u32, h: SolveHead, a: ptr<function, SolveBody>, b: ptr<function, SolveBody>) {
    // A joint's slot (joint.wgsl) has no points; its record's header says so. Without joints
    // the pipeline is compiled with SOLVE_JOINTS false, so the joint rows' code is not in it.
    if (h.count == 0u) {
        if (SOLVE_JOINTS) {
            let j = manifolds[h.k].joint;
            if (j == 0u || j > params.joint_count) {
                return;
            }
            if (stage == SOLVE_STAGE_WARM) {
                joint_warm_bodies(j - 1u, a, b);
            } else if (stage != SOLVE_STAGE_RESTITUTION) {
                joint_solve_bodies(j - 1u, stage == SOLVE_STAGE_CONTACT, a, b);
            }
        }
        return;
    }
    if (stage == SOLVE_STAGE_WARM) {
        solve_warm_bodies(s, h, a, b);
    } else if (stage == SOLVE_STAGE_RESTITUTION) {
        solve_restitution_bodies(s, h, a, b);
    } else {
        solve_contact_bodies(s, h, stage == SOLVE_STAGE_CONTACT, a, b);
    }
}

/// One stage on the contact at position s of `order`.
fn solve_one(stage: u32, s: u32) {
    if (stage == SOLVE_STAGE_POSITION) {
        solve_position_manifold(s);
        return;
    }
    if (solve_skips(stage, s)) {
        return;
    }
    let h = solve_head(s);
    var a = solve_load_a(h);
    var b = solve_load_b(h);
    solve_velocity_bodies(stage, s, h, &a, &b);
    solve_store_velocity(h.body_a, a);
    solve_store_velocity(h.body_b, b);
}

/// Thread t of a per-colour dispatch: one contact of colour c. The sequential colour (whose
/// contacts share bodies) is always the tail entry's (a per-colour dispatch names colours
/// below `tail_colour()`, which is at most the sequential colour), so it has no loop here.
/// That loop never ran, but its copy of the stage's code slowed the kernel on lavapipe: the
/// 5k wall's relax sweeps took a median 129 ms a step with it, 112 ms without (BENCHMARKS.md,
/// 2026-11-27, `f3b1e53`).
fn solve_colour_thread(stage: u32, c: u32, t: u32) {
    if (c >= sequential_colour()) {
        return;
    }
    let start = counters_read[COUNTER_COLOUR_START + c];
    let end = counters_read[COUNTER_COLOUR_START + c + 1u];
    if (start + t < end) {
        solve_one(stage, start + t);
    }
}

// solve_contact also runs the solve_warm_apply stage, chosen by its pass record (`warm`, a
// uniform, so every invocation takes the same branch): lavapipe ran a warm-apply entry point
// of its own three to four times slower per dispatch, empty dispatches included. The warm
// stage is the lighter of the two, so sharing the pipeline costs the contact sweep nothing
// where registers are what limit a dispatch.
@compute @workgroup_size(RIGID_WG)
fn solve_contact(@builtin(global_invocation_id) gid: vec3<u32>) {
    let stage = select(SOLVE_STAGE_CONTACT, SOLVE_STAGE_WARM, pass_info.warm != 0u);
    solve_colour_thread(stage, pass_info.colour, gid.x);
}

@compute @workgroup_size(RIGID_WG)
fn solve_relax(@builtin(global_invocation_id) gid: vec3<u32>) {
    solve_colour_thread(SOLVE_STAGE_RELAX, pass_info.colour, gid.x);
}

@compute @workgroup_size(RIGID_WG)
fn solve_restitution(@builtin(global_invocation_id) gid: vec3<u32>) {
    solve_colour_thread(SOLVE_STAGE_RESTITUTION, pass_info.colour, gid.x);
}

@compute @workgroup_size(RIGID_WG)
fn solve_position(@builtin(global_invocation_id) gid: vec3<u32>) {
    solve_colour_thread(SOLVE_STAGE_POSITION, pass_info.colour, gid.x);
}

// ---------------------------------------------------------------------------------------------
// Fused entry points: one workgroup walks colours (and iterations) with a storage barrier
// between colours, so a small scene solves in one dispatch instead of one per colour.

var<workgroup> solve_colours_used: u32;

/// Thread t of a workgroup of `threads` solves its share of positions start..end, one colour's
/// contacts; the sequential colour's (which share bodies) all in thread 0, in order.
fn solve_run(stage: u32, t: u32, threads: u32, start: u32, end: u32, sequential: bool) {
    if (sequential) {
        if (t == 0u) {
            for (var s = start; s < end; s++) {
                solve_one(stage, s);
            }
        }
    } else {
        for (var s = start + t; s < end; s += threads) {
            solve_one(stage, s);
        }
    }
}

fn solve_fused_colours(stage: u32, t: u32, first: u32, used: u32) {
    for (var c = first; c < used; c++) {
        let start = counters_read[COUNTER_COLOUR_START + c];
        let end = counters_read[COUNTER_COLOUR_START + c + 1u];
        solve_run(stage, t, RIGID_WG, start, end, c == sequential_colour());
        storageBarrier();
        workgroupBarrier();
    }
}

fn solve_load_colours(t: u32) -> u32 {
    if (t == 0u) {
        solve_colours_used = min(counters_read[COUNTER_COLOURS], MAX_COLOURS);
    }
    return workgroupUniformLoad(&solve_colours_used);
}

// One substep's warm start and biased iterations in one dispatch.
@compute @workgroup_size(RIGID_WG)
fn solve_contact_fused(@builtin(local_invocation_index) t: u32) {
    let used = solve_load_colours(t);
    solve_fused_colours(SOLVE_STAGE_WARM, t, 0u, used);
    for (var it = 0u; it < params.velocity_iterations; it++) {
        solve_fused_colours(SOLVE_STAGE_CONTACT, t, 0u, used);
    }
}

@compute @workgroup_size(RIGID_WG)
fn solve_relax_fused(@builtin(local_invocation_index) t: u32) {
    let used = solve_load_colours(t);
    for (var it = 0u; it < params.relax_iterations; it++) {
        solve_fused_colours(SOLVE_STAGE_RELAX, t, 0u, used);
    }
}

@compute @workgroup_size(RIGID_WG)
fn solve_restitution_fused(@builtin(local_invocation_index) t: u32) {
    solve_fused_colours(SOLVE_STAGE_RESTITUTION, t, 0u, solve_load_colours(t));
}

@compute @workgroup_size(RIGID_WG)
fn solve_position_fused(@builtin(local_invocation_index) t: u32) {
    let used = solve_load_colours(t);
    for (var it = 0u; it < params.position_iterations; it++) {
        solve_fused_colours(SOLVE_STAGE_POSITION, t, 0u, used);
    }
}

// ---------------------------------------------------------------------------------------------
// Tail entry points: after the per-colour dispatches of colours 0..tail_colour(), one
// workgroup solves the colours from tail_colour() on, one after the other with a barrier
// between them, in one dispatch (one sweep of one stage).

@compute @workgroup_size(RIGID_WG)
fn solve_warm_apply_tail(@builtin(local_invocation_index) t: u32) {
    solve_fused_colours(SOLVE_STAGE_WARM, t, tail_colour(), solve_load_colours(t));
}

@compute @workgroup_size(RIGID_WG)
fn solve_contact_tail(@builtin(local_invocation_index) t: u32) {
    solve_fused_colours(SOLVE_STAGE_CONTACT, t, tail_colour(), solve_load_colours(t));
}

@compute @workgroup_size(RIGID_WG)
fn solve_relax_tail(@builtin(local_invocation_index) t: u32) {
    solve_fused_colours(SOLVE_STAGE_RELAX, t, tail_colour(), solve_load_colours(t));
}

@compute @workgroup_size(RIGID_WG)
fn solve_restitution_tail(@builtin(local_invocation_index) t: u32) {
    solve_fused_colours(SOLVE_STAGE_RESTITUTION, t, tail_colour(), solve_load_colours(t));
}

@compute @workgroup_size(RIGID_WG)
fn solve_position_tail(@builtin(local_invocation_index) t: u32) {
    solve_fused_colours(SOLVE_STAGE_POSITION, t, tail_colour(), solve_load_colours(t));
}
