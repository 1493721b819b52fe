//! The contact solver of the soft step, CPU twin of `shaders/rigid/solve.wgsl`: warm starting,
//! per-contact preparation, and the per-colour stages the substeps run (`solve_warm_apply`,
//! `solve_contact`, `solve_relax`, then `solve_restitution`: in [`velocity`], over the
//! contacts packed four to a SIMD vector) and the optional `solve_position` (the book's
//! non-linear projection with the angular limit). The colouring
//! that makes the batches is in [`super::colour`]; the order the stages run in is written once,
//! in [`super::step`]. Every stage has the name and the operation order of its WGSL twin.
//!
//! Why it is shaped so:
//! - The book resolves one worst contact at a time (catalogue §14.4), which is sequential. A GPU
//!   solves many contacts at once, which is only sound when no two of them touch the same
//!   *dynamic* body, so manifolds are coloured and a colour is a batch: inside a batch the order
//!   does not matter, so the CPU loop over a batch and the GPU's parallel threads agree.
//! - Contacts are found once per step and solved in every substep (Box2D v3's soft step): each
//!   point keeps its anchors in both bodies' frames, so its overlap follows the bodies as they
//!   move. The biased iteration pushes an overlap out through a soft constraint (a spring of
//!   `contact_hertz` with a damping ratio, written implicitly, see [`soft_contact`]); the relax
//!   iterations then solve the same rows rigidly without the bias, so the push-out's speed does
//!   not carry on as a bounce, and they carry a stack's load.
//! - A contact's lever arm follows the contact, not the material ([`arm`]): a round surface
//!   (a sphere, a capsule's) anchors its centre and steps back out to the contact along the
//!   normal, so a ball turning within a step keeps its arm under its centre and rolls. An arm
//!   to a point of the ball rolled away from the contact: the normal impulse there braked the
//!   turning (a ball rolled at 3 m/s kept 47% of its speed after 2 s) and the apparent gap
//!   pulled it into the ground. A flat surface anchors the contact point, which turns with the
//!   body (a box tipping over an edge).
//! - Impulses are accumulated per point and clamped as accumulated values (normal ≥ 0, friction
//!   inside the disc μ·λn), which is what converges and what the next step warm-starts from.
//!   Each point solves its normal row, then its friction rows, each with its own effective mass
//!   (the diagonal of the book's velocity change per unit impulse K in the contact basis). The
//!   book's coupled 3×3 friction solve was tried first: its clamp is not a projection, and a box
//!   resting on a slope at tan θ = 0.8 μ rocked and crept. Only K's diagonal is stored (three
//!   rows of 16 bytes per point: the two anchors in body space, the start velocity, the
//!   penetration and the diagonal); the arms come from the anchors at the bodies' current
//!   orientations and the tangents from [`contact_basis`], so a pair slot costs 192 bytes. The
//!   GPU stores them by the contact's position in the colouring's order, beside a header, the
//!   normal and the material ([`solver_record_rows`]: 240 bytes), so a sweep's threads read
//!   consecutive rows and no sweep reads `order` or a manifold's header.
//! - Rolling resistance (a material's, off by default) is one more row per manifold after its
//!   points: an angular impulse against the relative rolling, clamped by the coefficient times
//!   the round radius times the normal impulse (Box2D v3's rule), accumulated in
//!   `GpuManifold::rolling` and warm-started like the others.
//! - Accumulated impulses live in `GpuManifold::impulses` (contact basis), so the next step's
//!   warm start needs no write-back stage.
//!
//! Body conventions: a body index of [`NONE`] is the static world; static and kinematic bodies
//! take part with zero inverse mass and inertia (a kinematic body keeps its velocity), and only
//! dynamic bodies are written. Sleeping dynamic bodies count as static (the wake stages, which
//! run before the solver, wake those that something presses on); a manifold is solved when it
//! has points and at least one awake dynamic body.

use super::math::{mat3_cols, quat_add_scaled, quat_normalize, quat_rotate, quat_to_mat3};
use super::types::*;
use crate::rounding;
use glam::{Mat3, Vec3, Vec4, Vec4Swizzles};

pub mod block;
mod lanes;
mod prepare;
pub mod velocity;
pub use prepare::{solve_prepare, warm_start};
pub use velocity::VelocitySet;

pub use super::colour::{
    claim_priority, colour, colour_in, tail_colour, Colouring, COLOUR_FUSED_MAX_MANIFOLDS,
    COLOUR_ROUNDS, COLOUR_ROUNDS_OVER_ALL, SEQUENTIAL_COLOUR, TAIL_MAX_MANIFOLDS,
};

/// Counters word where the colouring stage leaves this step's pair count, which the next step's
/// `warm_start` reads as the length of `manifolds_prev`. The host must not clear it between
/// steps (clearing it only turns warm starting off for one step).
pub const COUNTER_PREV_PAIRS: usize = 6;
/// `vec4` rows of solver data per contact point (see `solve.wgsl` for the layout).
pub const ROWS_PER_POINT: u32 = 3;
/// Pair capacities up to this use the fused single-workgroup passes (all colours and iterations
/// in one dispatch); larger ones dispatch one pass per colour per iteration.
pub const FUSED_MAX_MANIFOLDS: u32 = 4096;

/// Solver rows per manifold of the CPU twin's `rows` (`solve_prepare`), by manifold slot.
pub fn solver_rows_per_manifold() -> u32 {
    ROWS_PER_POINT * MAX_POINTS
}

/// `vec4` rows of the GPU's record of one contact (`SOLVE_RECORD_ROWS` in `solve.wgsl`): a
/// header (the bodies, the manifold's slot, the point count and dynamic bits), the normal and
/// friction, the material (restitution, the round radii of `solver::arm`, rolling resistance),
/// and [`ROWS_PER_POINT`] per point, stored by the contact's position in the colouring's order,
/// so a sweep's threads read consecutive rows. Sizes the `solver` buffer: `pair_capacity ×`
/// this `vec4`s.
pub fn solver_record_rows() -> u32 {
    3 + ROWS_PER_POINT * MAX_POINTS
}

/// What the solver did in one call of [`solve`] (and what the GPU leaves in `counters`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SolveReport {
    /// Manifolds with at least one point.
    pub manifolds: u32,
    /// Colours in use (batches per iteration).
    pub colours: u32,
    /// Manifolds that found no independent colour and were put in [`SEQUENTIAL_COLOUR`]
    /// (solved correctly, but by one thread). Non-zero means a body has more contacts than
    /// `MAX_COLOURS − 1` colours can separate.
    pub uncoloured: u32,
    /// Colouring rounds that coloured something.
    pub rounds: u32,
}

// ---------------------------------------------------------------------------------------------
// Shared helpers (twins of the helpers at the top of solve.wgsl).

/// A body as the solver sees it: non-dynamic bodies have zero inverse mass and inertia and no
/// acceleration, the static world (`NONE`) is all zero at the origin.
#[derive(Clone, Copy, Debug)]
struct SolveBody {
    pos: Vec3,
    orient: Vec4,
    lin_vel: Vec3,
    ang_vel: Vec3,
    inv_mass: f32,
    inv_inertia: Mat3,
    body_inv_inertia: Mat3,
    dynamic: bool,
}

fn load_body(bodies: &[GpuBody], i: u32) -> SolveBody {
    let mut s = SolveBody {
        pos: Vec3::ZERO,
        orient: Vec4::new(0.0, 0.0, 0.0, 1.0),
        lin_vel: Vec3::ZERO,
        ang_vel: Vec3::ZERO,
        inv_mass: 0.0,
        inv_inertia: Mat3::ZERO,
        body_inv_inertia: Mat3::ZERO,
        dynamic: false,
    };
    let Some(b) = (if i == NONE {
        None
    } else {
        bodies.get(i as usize)
    }) else {
        return s;
    };
    s.pos = b.pos.xyz();
    s.orient = b.orient;
    s.lin_vel = b.lin_vel.xyz();
    s.ang_vel = b.ang_vel.xyz();
    if b.kind == body_kind::DYNAMIC && b.awake != 0 {
        s.inv_mass = b.pos.w;
        s.inv_inertia = mat3_cols(&b.inv_inertia_world);
        s.body_inv_inertia = mat3_cols(&b.inv_inertia);
        s.dynamic = true;
    }
    s
}

/// Writes back what the solver changes (velocities, pose, world inverse inertia), dynamic only.
fn store_body(bodies: &mut [GpuBody], i: u32, s: &SolveBody) {
    if !s.dynamic || i == NONE {
        return;
    }
    if let Some(b) = bodies.get_mut(i as usize) {
        b.lin_vel = s.lin_vel.extend(b.lin_vel.w);
        b.ang_vel = s.ang_vel.extend(b.ang_vel.w);
        b.pos = s.pos.extend(b.pos.w);
        b.orient = s.orient;
        b.inv_inertia_world = [
            s.inv_inertia.x_axis.extend(0.0),
            s.inv_inertia.y_axis.extend(0.0),
            s.inv_inertia.z_axis.extend(0.0),
        ];
    }
}

/// The book's contact basis (`calculateContactBasis`): two tangents from the world axis that
/// is least parallel to the normal. The second tangent is n × t0 written out; the catalogue's
/// first branch prints its x as n.y·t0.x, which is not orthogonal to n, so n.y·t0.z is used.
pub fn contact_basis(n: Vec3) -> (Vec3, Vec3) {
    // a·b − c·d as rounding::madd(a, b, −(c·d)), the sums of squares as one madd.
    let diff = |a: f32, b: f32, c: f32, d: f32| rounding::madd(a, b, -(c * d));
    if n.x.abs() > n.y.abs() {
        let s = rounding::div(1.0, rounding::sqrt(rounding::madd(n.x, n.x, n.z * n.z)));
        let t0 = Vec3::new(n.z * s, 0.0, -n.x * s);
        let t1 = Vec3::new(n.y * t0.z, diff(n.z, t0.x, n.x, t0.z), -n.y * t0.x);
        (t0, t1)
    } else {
        let s = rounding::div(1.0, rounding::sqrt(rounding::madd(n.y, n.y, n.z * n.z)));
        let t0 = Vec3::new(0.0, -n.z * s, n.y * s);
        let t1 = Vec3::new(diff(n.y, t0.z, n.z, t0.y), -n.x * t0.z, n.x * t0.y);
        (t0, t1)
    }
}

/// Velocity change along `e_j` per unit impulse along `e_i` from one body's rotation:
/// (r × e_i)·I⁻¹(r × e_j), an entry of the book's Cᵀ·(−[r]×·I⁻¹·[r]×)·C written per axis so
/// that the matrix is symmetric by construction.
fn angular_row(r: Vec3, ii: Mat3, e: [Vec3; 3]) -> [Vec3; 3] {
    let c = e.map(|e| rounding::cross(r, e));
    let u = c.map(|c| rounding::mat3_mul(ii, c));
    c.map(|ci| {
        Vec3::new(
            rounding::dot(ci, u[0]),
            rounding::dot(ci, u[1]),
            rounding::dot(ci, u[2]),
        )
    })
}

/// `math::quat_rotate_inv` in the twin's rounding (`crate::rounding`): v turned by the inverse
/// of the unit quaternion q, t = 2 u × v, v + w·t + u × t with u = −q.xyz. The narrow phase and
/// the other stages keep `math::quat_rotate`, as written, on their hot paths.
fn turn_back(q: Vec4, v: Vec3) -> Vec3 {
    let u = -q.xyz();
    let t = 2.0 * rounding::cross(u, v);
    rounding::madd3(t, q.w, v) + rounding::cross(u, t)
}

/// The arm of a contact point from a body's centre of mass at orientation `q` (WGSL
/// `solve_arm`): the anchor turned by `q`, then `round` back along the normal (see
/// [`point_rounds`]; 0 for a flat surface). A round surface's anchor is its centre
/// (`centre_anchor`), so within a step the arm stays at the contact point while a ball or a
/// capsule turns under it (it rolls; an arm to a point of the body would roll away from the
/// contact, and the normal impulse there would brake the turning), and the overlap follows the
/// centre. A flat surface's anchor is the contact point, a point of the body that turns with it
/// (a box tipping over an edge). The velocity stages compute it in their lanes
/// (`solver::velocity`) with the same operations.
pub fn arm(q: Vec4, anchor: Vec3, n: Vec3, round: f32) -> Vec3 {
    let r = quat_rotate(q, anchor);
    if round != 0.0 {
        r - n * round
    } else {
        r
    }
}

/// The anchor `solve_prepare` keeps for a contact point at world arm `r` from a body of
/// orientation `q` (the inverse of [`arm`]): the round surface's centre `r + n·round`, or the
/// point itself when `round` is 0, in the body's frame.
fn centre_anchor(q: Vec4, r: Vec3, n: Vec3, round: f32) -> Vec3 {
    if round != 0.0 {
        turn_back(q, rounding::madd3(n, round, r))
    } else {
        turn_back(q, r)
    }
}

/// How far a round surface's centre lies from a contact point along the normal (WGSL
/// `solve_round`): its radius less half the penetration `pen0` at prepare (the narrow phase puts
/// the point halfway between the two surfaces), 0 for a flat surface (radius 0).
pub fn centre_distance(radius: f32, pen0: f32) -> f32 {
    if radius != 0.0 {
        radius - 0.5 * pen0
    } else {
        0.0
    }
}

/// The `round` of [`arm`] for body a and body b of a contact point of penetration `pen0` at
/// prepare, in a manifold of `material` (the radii in y and z): a's centre lies along +n, b's
/// along −n.
pub fn point_rounds(material: Vec4, pen0: f32) -> (f32, f32) {
    (
        centre_distance(material.y, pen0),
        -centre_distance(material.z, pen0),
    )
}

fn row(rows: &[Vec4], i: usize) -> Vec4 {
    rows.get(i).copied().unwrap_or(Vec4::ZERO)
}

fn set_row(rows: &mut [Vec4], i: usize, v: Vec4) {
    if let Some(r) = rows.get_mut(i) {
        *r = v;
    }
}

fn point_base(k: usize, i: usize) -> usize {
    (k * MAX_POINTS as usize + i) * ROWS_PER_POINT as usize
}

fn search_key(m: &GpuManifold) -> (u32, u32) {
    (m.shape_a.min(m.shape_b), m.shape_a.max(m.shape_b))
}

// ---------------------------------------------------------------------------------------------
// Stages.

/// The soft contact of Box2D v3's soft step for a substep of `h` seconds, as
/// (bias rate, mass scale, impulse scale, `max_push_out`): a spring of `hertz` (capped at a
/// quarter of the substep rate, above which the implicit spring no longer tracks) with damping
/// ratio `zeta`, written implicitly so it is stable at any stiffness. With ω = 2π·hertz,
/// a₁ = 2ζ + hω, a₂ = hω·a₁, a₃ = 1 / (1 + a₂): bias rate ω / a₁, mass scale a₂·a₃, impulse
/// scale a₃. The solver's normal impulse is
/// `−m_eff · mass_scale · (v_n + bias) − impulse_scale · λ` with
/// `bias = max(bias_rate · s, −max_push_out)` for an overlap s < 0.
pub fn soft_contact(hertz: f32, zeta: f32, max_push_out: f32, h: f32) -> Vec4 {
    let hertz = hertz.min(0.25 / h);
    let omega = 2.0 * std::f32::consts::PI * hertz;
    let a1 = 2.0 * zeta + h * omega;
    let a2 = h * omega * a1;
    let a3 = 1.0 / (1.0 + a2);
    Vec4::new(omega / a1, a2 * a3, a3, max_push_out)
}

/// Stage `solve_position` for colour `c`, one iteration: the book's non-linear projection per
/// point. The penetration is recomputed from the bodies' current poses and the anchors saved at
/// prepare time (pen = pen₀ − n·(anchor_a − anchor_b)); `position_relax × (pen − slop)` is split
/// between linear and angular movement by inertia, the angular part limited to
/// `angular_limit × |r|` (the excess moved linearly), and applied to positions and orientations.
pub fn solve_position(
    params: &GpuRigidParams,
    colouring: &Colouring,
    c: u32,
    bodies: &mut [GpuBody],
    manifolds: &[GpuManifold],
    rows: &[Vec4],
) {
    for &k in colouring.batch(c) {
        // The projection is the contacts'; a joint's slot has none.
        if let Some(m) = manifolds.get(k as usize).filter(|m| m.joint == 0) {
            position_manifold(params, bodies, m, k as usize, rows);
        }
    }
}

/// Applies one body's share of a projection: `lin_move` along n, and `ang_move` as the rotation
/// I⁻¹(r × n)/angular inertia per unit move (`u / ang`), added to the quaternion by the ½ rule.
fn project_body(s: &mut SolveBody, n: Vec3, lin_move: f32, ang_move: f32, u: Vec3, ang: f32) {
    s.pos += n * lin_move;
    if ang > 0.0 && ang_move != 0.0 {
        let rot = u * (ang_move / ang);
        s.orient = quat_normalize(quat_add_scaled(s.orient, rot, 1.0));
        s.inv_inertia = world_inverse_inertia(s.orient, &s.body_inv_inertia);
    }
}

fn world_inverse_inertia(q: Vec4, inv_body: &Mat3) -> Mat3 {
    let r = quat_to_mat3(q);
    r * *inv_body * r.transpose()
}

/// The book's over-rotation limit: |angular move| ≤ limit, the rest moved linearly.
fn limit_angular(lin: f32, ang: f32, limit: f32) -> (f32, f32) {
    if ang.abs() > limit {
        let total = lin + ang;
        let a = if ang >= 0.0 { limit } else { -limit };
        (total - a, a)
    } else {
        (lin, ang)
    }
}

fn position_manifold(
    params: &GpuRigidParams,
    bodies: &mut [GpuBody],
    m: &GpuManifold,
    k: usize,
    rows: &[Vec4],
) {
    let mut a = load_body(bodies, m.body_a);
    let mut b = load_body(bodies, m.body_b);
    let n = m.normal.xyz();
    for i in 0..m.count.min(MAX_POINTS) as usize {
        let base = point_base(k, i);
        let r1 = row(rows, base + 1);
        let pen0 = r1.w;
        let (round_a, round_b) = point_rounds(m.material, pen0);
        let ra = arm(a.orient, row(rows, base).xyz(), n, round_a);
        let rb = arm(b.orient, r1.xyz(), n, round_b);
        let pen = pen0 - n.dot((a.pos + ra) - (b.pos + rb));
        let c = params.position_relax * (pen - params.position_slop);
        if c <= 0.0 {
            continue;
        }
        let ua = a.inv_inertia * ra.cross(n);
        let ub = b.inv_inertia * rb.cross(n);
        let ang_a = ua.cross(ra).dot(n);
        let ang_b = ub.cross(rb).dot(n);
        let total = a.inv_mass + ang_a + b.inv_mass + ang_b;
        if total <= 0.0 {
            continue;
        }
        let (lin_a, am_a) = limit_angular(
            c * a.inv_mass / total,
            c * ang_a / total,
            params.angular_limit * ra.length(),
        );
        let (lin_b, am_b) = limit_angular(
            -c * b.inv_mass / total,
            -c * ang_b / total,
            params.angular_limit * rb.length(),
        );
        project_body(&mut a, n, lin_a, am_a, ua, ang_a);
        project_body(&mut b, n, lin_b, am_b, ub, ang_b);
    }
    store_body(bodies, m.body_a, &a);
    store_body(bodies, m.body_b, &b);
}

/// The solver part of one step on the CPU, for tests and tools: `warm_start`, `colour`,
/// `solve_prepare`, then the world's own [`super::step::cpu_solve`] (the substeps, restitution
/// and the optional projection) with no shapes: the world's step without the collide stages,
/// the sweep of fast spheres and sleeping. `manifolds` were found at the bodies' poses when the step starts; `prev` is last
/// step's manifolds (sorted by shape pair, as the broad phase leaves them).
pub fn solve(
    params: &GpuRigidParams,
    bodies: &mut [GpuBody],
    manifolds: &mut [GpuManifold],
    prev: &[GpuManifold],
) -> SolveReport {
    warm_start(params, manifolds, prev);
    let batches = super::colour::Batches::colour(params, bodies, manifolds);
    let mut rows = vec![Vec4::ZERO; manifolds.len() * solver_rows_per_manifold() as usize];
    solve_prepare(params, bodies, manifolds, &mut rows);
    let batches = super::step::cpu_solve(params, batches, bodies, &[], manifolds, &rows);
    let colouring = batches.colouring();
    SolveReport {
        manifolds: colouring.manifolds,
        colours: batches.colours(),
        uncoloured: colouring.uncoloured,
        rounds: colouring.rounds,
    }
}
