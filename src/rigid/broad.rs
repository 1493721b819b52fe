//! Broad phase of the rigid domain: stages `shape_aabbs`, `broad_count`, `broad_scan` and
//! `broad_write` (CPU twins of `shaders/rigid/broad.wgsl`), the grid plan, and three CPU
//! alternatives that find the same pair set (sweep and prune, a dynamic AABB tree, brute force)
//! and serve as references (book §12, catalogue §9).
//!
//! # What a pair is
//! Shapes `a < b` form a pair when [`BroadInput::pair_ok`] holds: both shapes are live
//! (kind 1..=8, owning body in range), they belong to different bodies, their groups and masks
//! accept each other (`(a.group & b.mask) != 0 && (b.group & a.mask) != 0`), at least one of the
//! two bodies is dynamic, at least one is *moving* (awake and not static), and their volumes
//! touch:
//! - a plane or half-space against any other kind: the other shape's AABB against the world
//!   plane (a half-space takes any AABB reaching below `offset + margin`; a two-sided plane one
//!   that straddles it within `margin`);
//! - everything else (two planes included): AABB overlap, bounds inclusive.
//!
//! The body rule keeps every pair the book's filters keep (not both static/kinematic, not both
//! asleep, not a sleeping body against a static one) and is explicit about the remaining case:
//! an awake kinematic body *does* pair with a sleeping dynamic one, so a moving platform wakes
//! what it reaches instead of passing through it.
//!
//! AABBs are the shape's tight world box (sphere: r; box: |R|·h; capsule: |axis|·half + r; a
//! hull, a triangle mesh or a heightfield: its bounding sphere about its origin, `dims.y`)
//! grown by `contact_margin` on every side, so pairs within about two margins are found. Planes
//! and half-spaces get ±`f32::MAX` boxes.
//!
//! # Why a grid plus a large list
//! Shapes come in every size (the issue asks for mixed sizes and big static geometry). A
//! uniform grid is cheap when its cell fits the shapes in it and ruinous when one huge shape
//! forces huge cells. So [`plan_grid`] splits the shapes:
//! - **small** shapes (bounding diameter incl. margins at most the cell size) are inserted once,
//!   by their centre, into the hashed grid of `crate::grid`. Two small AABBs that overlap have
//!   centres at most one cell apart on every axis, so the 27-cell stencil finds them.
//! - **large** shapes (planes, half-spaces, the few biggest shapes) are listed in `large`
//!   (ascending indices) and tested against every shape; their cost is one test per shape each.
//!
//! The cell size minimises a cost estimate per shape for a dense pile (the case that matters;
//! sparse scenes are cheap anyway): `DENSE_CANDIDATES · (cell / median diameter)³` candidate
//! tests in the 27 cells, plus one test per large shape. See [`plan_grid`].
//!
//! # Why the GPU passes are shaped so (deterministic, sorted, no float atomics)
//! Pairs come out sorted by (a, b), so the list is the same on every run and on both backends,
//! and later stages can match last step's manifolds by binary search. Work is split into
//! *items* laid out in output order:
//! - a small shape `a` is one item: its partners `b > a` among the 27 cells (small `b` only)
//!   and the large list;
//! - a large shape `l` is [`LARGE_CHUNK`]-wide chunks of the whole index range, one item each
//!   (its partners `b > l` in that chunk), so one huge shape (the ground) is searched by many
//!   threads instead of one thread looping over a million shapes.
//!
//! `broad_count` counts each item's partners, `broad_scan` (per block of [`SCAN_BLOCK`]) and
//! `broad_scan_sums` (one workgroup over the block sums) turn counts into offsets and store the
//! totals in the counters, and `broad_write` writes each item's partners at its offset in
//! ascending `b`. A small item's grid partners arrive in cell order, so `broad_write` collects
//! the [`PARTNER_BATCH`] smallest partners above the last one written (insertion-sorted in the
//! thread's own slice of a workgroup array), writes them and repeats until a round finds fewer:
//! any number of partners per shape is written in order and none is dropped. The batch lives in
//! workgroup memory, not a private array: software adapters are slow with large private arrays,
//! and llvmpipe's GL path corrupted one under this insertion.
//!
//! The 27 stencil cells may share hash keys. Instead of de-duplicating the keys, a candidate
//! counts only when visited through the stencil cell that is its own cell: every shape is in
//! one cell, so it is seen once, and shapes of other cells that share a key are dropped before
//! the pair test. Within a key the grid lists shapes in ascending index (its sort is stable), so
//! a search enters each key's range by binary search past the last partner written and, once
//! the batch is full, leaves the range at the first index above the batch's largest.
//!
//! # Software adapters
//! llvmpipe and lavapipe (Mesa's gallivm) silently break every loop of a shader invocation after
//! 65535 loop iterations in total, all loops together (`LP_MAX_TGSI_LOOP_ITERATIONS`). The
//! search above is shaped to cost about the candidates it visits, which keeps the tests' dense
//! scenes (13 800 shapes, sizes over 100x) exact there. Should a much more crowded cell hit it,
//! `broad_write` notices that an item wrote fewer pairs than `broad_count` counted and sets the
//! truncation flag at [`truncated_word`] in `pair_scratch` (never set on real GPUs).
//!
//! # Host sequence (GPU)
//! 1. [`plan_grid`] on the shapes with `params.contact_margin`; upload `plan.large` to the
//!    head of `pair_scratch`, set `params.large_count = plan.large.len()`, build a [`GridSpec`] with
//!    [`BroadPlan::grid_spec`] (or any table size) and set `params.inv_cell_size =
//!    spec.inv_cell_size()`, `params.table_mask = spec.table_mask()`.
//! 2. [`shape_aabbs_pass`]: `shape_aabbs` over `params.shape_count` shapes.
//! 3. The grid build (`crate::grid::GpuGrid::encode_build`) over the first `shape_count` entries
//!    of `shape_pos` with that spec; bind its `sorted_index`, `cell_start`, `cell_end` as
//!    `grid_sorted`, `grid_start`, `grid_end`.
//! 4. [`broad_gpu_passes`]`(shape_count, large_count)`, in order. `pair_scratch` holds
//!    [`pair_scratch_words`]`(shape capacity, large capacity)` words: size it with
//!    [`large_capacity_hint`] (or the plan's large count when larger; grow when a re-plan
//!    exceeds it), not the shape count, since every large shape adds `shape_count /
//!    LARGE_CHUNK` items. `pairs` holds `params.pair_capacity` slots.
//!    The counters need no clearing: `broad_scan_sums` stores them.
//!
//! # Limits
//! - Small pairs are exact while the float error of the centres stays below the cell slack
//!   (1/64 of a cell): centres within about 60 000 cells of the origin.
//! - The plan is static: re-run [`plan_grid`] (and rewrite the large list) when shapes are added,
//!   removed or resized, with the same margin as `params.contact_margin`.
//! - Counts and offsets are u32; more than `u32::MAX` candidate pairs wraps.

use super::math::{quat_mul, quat_rotate, quat_to_mat3};
use super::types::{body_kind, shape_kind, GpuBody, GpuRigidParams, GpuShape, NONE, RIGID_WG};
use crate::error::Result;
use crate::grid::{cell_key, cell_of, neighbour_cell, CpuGrid, GridSpec, STENCIL};
use glam::{Vec3, Vec4, Vec4Swizzles};

mod reference;
pub use reference::{brute_force_pairs, sweep_and_prune, AabbTree};

/// Partners a small item collects per round in `broad_write` (WGSL `BROAD_BATCH`; the batch
/// takes `4 · PARTNER_BATCH · RIGID_WG` bytes of workgroup memory). Not a bound: a shape with
/// more partners takes more rounds.
pub const PARTNER_BATCH: u32 = 16;
/// Shapes per chunk item of a large shape (WGSL `BROAD_CHUNK`). A chunk's thread tests its
/// shapes one after another, so the chunk sets the longest chain of loads in `broad_count` and
/// `broad_write`: on an H100, 256 took 0.23 ms in each of them for a 5k wall on a ground box,
/// 64 takes 0.09 ms (BENCHMARKS.md, 2026-11-26, `ce68020`). The price is scratch: a large shape adds
/// `shape_count / 64` items (about 17 words per shape slot at a million shapes with
/// [`large_capacity_hint`]).
pub const LARGE_CHUNK: u32 = 64;
/// Items per block of `broad_scan`: [`RIGID_WG`] threads × 4 (WGSL `BROAD_SCAN_BLOCK`).
pub const SCAN_BLOCK: u32 = RIGID_WG * 4;
/// The most workgroups one broad-phase dispatch uses; the kernels stride over larger counts.
pub const MAX_GROUPS: u32 = 65_535;
/// Expected candidate tests per shape in a dense pile when the cell equals the median
/// diameter: 27 cells × about 1.2 shapes per cell (random close packing, ~0.64, of spheres
/// whose diameter is the cell).
pub const DENSE_CANDIDATES: f64 = 32.0;
/// The cell size is the chosen diameter times `1 + CELL_SLACK`, so float rounding of centres
/// and AABBs never puts two touching small shapes two cells apart.
pub const CELL_SLACK: f32 = 1.0 / 64.0;
/// [`plan_grid`] puts at most `max(MIN_LARGE_CAP, ceil(sqrt(n)))` of `n` bounded shapes in
/// the large list.
pub const MIN_LARGE_CAP: usize = 16;
/// Centre and AABB of a removed shape: far away, in a grid cell no real shape shares.
pub const FAR: f32 = f32::MAX;

/// The grid plan: cell size and the large shapes. Recompute when shapes change.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BroadPlan {
    /// Edge of a grid cell. Build the grid over `shape_pos` with this cell size, and set
    /// `params.inv_cell_size` to `1 / cell_size` (as [`GridSpec::inv_cell_size`] computes it).
    pub cell_size: f32,
    /// Large shapes (planes, half-spaces, shapes bigger than a cell), ascending. Upload to the
    /// head of `pair_scratch` and set `params.large_count` to its length.
    pub large: Vec<u32>,
}

impl BroadPlan {
    /// The grid spec for `shape_count` shapes: this plan's cell size and a table of about twice
    /// the shape count (a power of two, at least 2).
    ///
    /// # Errors
    /// As [`GridSpec::new`].
    pub fn grid_spec(&self, shape_count: u32) -> Result<GridSpec> {
        let table = shape_count.max(1).saturating_mul(2).next_power_of_two();
        GridSpec::new(self.cell_size, table)
    }
}

/// Whether a shape kind is a plane or half-space (unbounded, always large).
pub fn is_plane(kind: u32) -> bool {
    kind == shape_kind::HALF_SPACE || kind == shape_kind::PLANE
}

fn valid_kind(kind: u32) -> bool {
    (shape_kind::SPHERE..=shape_kind::HEIGHTFIELD).contains(&kind)
}

/// Radius of the sphere around the shape's centre that encloses it (sphere r, box |h|,
/// capsule r + half length, hull the bound about its origin that the shape keeps in `dims.y`);
/// [`FAR`] for planes and half-spaces, 0 for removed shapes.
pub fn bounding_radius(shape: &GpuShape) -> f32 {
    let d = shape.dims;
    match shape.kind {
        shape_kind::SPHERE => d.x,
        shape_kind::BOX => d.xyz().length(),
        shape_kind::CAPSULE => d.x + d.y,
        shape_kind::HULL | shape_kind::MESH | shape_kind::HEIGHTFIELD => d.y,
        shape_kind::HALF_SPACE | shape_kind::PLANE => FAR,
        _ => 0.0,
    }
}

/// Chooses the grid cell size and the large shapes for `shapes`, whose AABBs will be grown by
/// `margin` (pass `params.contact_margin`).
///
/// The rule: every live shape that is not a plane has a diameter `D = 2·(bounding radius +
/// margin)`. For each distinct diameter `c`, putting every shape with `D > c` (`k` of them) in
/// the large list and using `c` as the cell costs about `DENSE_CANDIDATES · (c / median D)³ + k`
/// tests per shape; the cheapest `c` wins (the larger cell on a tie), with `k` at most
/// `max(MIN_LARGE_CAP, ceil(sqrt(n)))` for `n` bounded shapes. So equal sizes give one
/// grid and no large shapes, and a few huge shapes among many small ones go to the large list,
/// but a size spread that is common (not an outlier) stays in the grid. Planes and half-spaces
/// are always large. The cell is `c · (1 + CELL_SLACK)`, at least `1e-6`; with no grid shape at
/// all it is 1.
pub fn plan_grid(shapes: &[GpuShape], margin: f32) -> BroadPlan {
    let m = if margin.is_finite() {
        margin.max(0.0)
    } else {
        0.0
    };
    let mut large = Vec::new();
    let mut sized: Vec<(f32, u32)> = Vec::new();
    for (i, s) in shapes.iter().enumerate() {
        let i = i as u32;
        if !valid_kind(s.kind) {
            continue;
        }
        if is_plane(s.kind) {
            large.push(i);
            continue;
        }
        let d = 2.0 * (bounding_radius(s).max(0.0) + m);
        // A NaN or infinite size cannot live in a grid cell.
        if d.is_finite() {
            sized.push((d, i));
        } else {
            large.push(i);
        }
    }
    if sized.is_empty() {
        large.sort_unstable();
        return BroadPlan {
            cell_size: 1.0,
            large,
        };
    }
    // Descending by diameter: the first k entries are the k largest.
    sized.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
    let median = f64::from(sized[sized.len() / 2].0).max(1e-30);
    // The large path costs a test per shape for each large shape: cap it so that a wide size
    // spread cannot make the broad phase quadratic in sparse scenes, which the size-only model
    // cannot see.
    let max_large = MIN_LARGE_CAP.max((sized.len() as f64).sqrt().ceil() as usize);
    let mut best = (f64::INFINITY, 0usize);
    for k in 0..sized.len().min(max_large + 1) {
        if k > 0 && sized[k - 1].0 == sized[k].0 {
            continue; // not a distinct diameter: equal shapes share a side
        }
        let ratio = f64::from(sized[k].0) / median;
        let cost = DENSE_CANDIDATES * ratio * ratio * ratio + k as f64;
        if cost < best.0 {
            best = (cost, k);
        }
    }
    let k = best.1;
    large.extend(sized[..k].iter().map(|&(_, i)| i));
    large.sort_unstable();
    BroadPlan {
        cell_size: (sized[k].0 * (1.0 + CELL_SLACK)).max(1e-6),
        large,
    }
}

/// World half extents of a bounded shape's AABB before the margin; `q` its world rotation. A
/// hull's is its bounding sphere's (about the shape's origin, from `dims.y`): it needs no read
/// of the hull store, and for round hulls such as rocks it is no looser than the turned local
/// box (up to √3 times the radius).
pub(crate) fn half_extent(kind: u32, dims: Vec4, q: Vec4) -> Vec3 {
    match kind {
        shape_kind::BOX => {
            let r = quat_to_mat3(q);
            r.x_axis.abs() * dims.x + r.y_axis.abs() * dims.y + r.z_axis.abs() * dims.z
        }
        shape_kind::CAPSULE => {
            let axis = quat_rotate(q, Vec3::Y);
            axis.abs() * dims.y + Vec3::splat(dims.x)
        }
        // Level geometry is bounded the same way: its sphere about the shape's origin
        // (static, so its box is made once per plan; the narrow phase walks the exact
        // triangles).
        shape_kind::HULL | shape_kind::MESH | shape_kind::HEIGHTFIELD => Vec3::splat(dims.y),
        _ => Vec3::splat(dims.x),
    }
}

/// The world plane of a plane or half-space shape: unit normal `n` and offset `d` (world points
/// `p` with `p·n <= d` are inside), from its world centre `centre` (`shape_pos.xyz`) and world
/// rotation `q` (`shape_xf[3i]`). The shape's `dims` are in its own frame, which its
/// `offset_pos`/`offset_rot` place in the body's frame.
pub fn world_plane(dims: Vec4, centre: Vec3, q: Vec4) -> (Vec3, f32) {
    let n = quat_rotate(q, dims.xyz());
    (n, dims.w + n.dot(centre))
}

/// Whether shape `i` is in the ascending `large` list.
fn in_large(large: &[u32], i: u32) -> bool {
    large.binary_search(&i).is_ok()
}

/// Stage `shape_aabbs`: for every shape `i < params.shape_count`, writes `shape_pos[i]` (world
/// centre, bounding radius) and `shape_xf[3i..3i+3]` (world rotation; AABB min with w = 1 when
/// `i` is in the ascending `large` list; AABB max with w = [`motion`] of its body), the AABB
/// grown by `params.contact_margin`.
/// Removed shapes (kind 0 or an unknown kind, or a body index `>= params.body_count`) get a
/// centre and AABB at [`FAR`] and radius 0. Stops at the end of the shortest slice.
pub fn shape_aabbs(
    params: &GpuRigidParams,
    bodies: &[GpuBody],
    shapes: &[GpuShape],
    large: &[u32],
    shape_pos: &mut [Vec4],
    shape_xf: &mut [Vec4],
) {
    let n = (params.shape_count as usize)
        .min(shapes.len())
        .min(shape_pos.len())
        .min(shape_xf.len() / 3);
    let body_count = (params.body_count as usize).min(bodies.len());
    let margin = params.contact_margin;
    for i in 0..n {
        let s = &shapes[i];
        let flag = if in_large(large, i as u32) { 1.0 } else { 0.0 };
        let body = s.body as usize;
        if !valid_kind(s.kind) || body >= body_count {
            shape_pos[i] = Vec4::new(FAR, FAR, FAR, 0.0);
            shape_xf[3 * i] = Vec4::new(0.0, 0.0, 0.0, 1.0);
            shape_xf[3 * i + 1] = Vec4::new(FAR, FAR, FAR, flag);
            shape_xf[3 * i + 2] = Vec4::new(FAR, FAR, FAR, 0.0);
            continue;
        }
        let b = &bodies[body];
        let q = quat_mul(b.orient, s.offset_rot);
        let c = b.pos.xyz() + quat_rotate(b.orient, s.offset_pos.xyz());
        let m = motion(b);
        shape_pos[i] = c.extend(bounding_radius(s));
        shape_xf[3 * i] = q;
        if is_plane(s.kind) {
            shape_xf[3 * i + 1] = Vec4::new(-FAR, -FAR, -FAR, flag);
            shape_xf[3 * i + 2] = Vec4::new(FAR, FAR, FAR, m);
        } else {
            let e = half_extent(s.kind, s.dims, q) + Vec3::splat(margin);
            shape_xf[3 * i + 1] = (c - e).extend(flag);
            shape_xf[3 * i + 2] = (c + e).extend(m);
        }
    }
}

/// What the pair rule needs of a shape's body, as `shape_aabbs` stores it in the AABB max's w
/// (a small integer, exact in f32): 1 when the body is dynamic, plus 2 when it is awake and not
/// static (it can move this step). The pair kernels read it there instead of binding `bodies`,
/// which keeps `broad_write` within WebGPU's 8 storage buffers per stage.
pub fn motion(b: &GpuBody) -> f32 {
    let dynamic = u32::from(b.kind == body_kind::DYNAMIC);
    let moving = u32::from(b.awake != 0 && b.kind != body_kind::STATIC);
    (dynamic + 2 * moving) as f32
}

/// What the pair test needs of one shape (WGSL `BroadSide`).
#[derive(Clone, Copy, Debug, Default)]
struct Side {
    /// Shape kind, 0 when the shape is removed or its body is out of range.
    kind: u32,
    body: u32,
    group: u32,
    mask: u32,
    dynamic: bool,
    /// Awake and not static: the body can move this step.
    moving: bool,
}

/// The broad phase's view of the world after `shape_aabbs`: everything a pair test reads.
#[derive(Clone, Copy, Debug)]
pub struct BroadInput<'a> {
    /// Bodies (only their count: `shape_aabbs` left each shape's body [`motion`] in
    /// `shape_xf`).
    pub bodies: &'a [GpuBody],
    /// Shapes.
    pub shapes: &'a [GpuShape],
    /// `shape_aabbs` output: world centre, bounding radius.
    pub shape_pos: &'a [Vec4],
    /// `shape_aabbs` output: 3 words per shape (rotation, AABB min, AABB max).
    pub shape_xf: &'a [Vec4],
    /// Shapes in use (`params.shape_count`, clamped to the slices).
    pub shape_count: u32,
    /// Bodies in use (`params.body_count`, clamped to the slice).
    pub body_count: u32,
    /// `params.contact_margin`: the slack of the plane tests.
    pub margin: f32,
}

impl<'a> BroadInput<'a> {
    /// The view of a world with `params`, clamping counts to the slices.
    pub fn new(
        params: &GpuRigidParams,
        bodies: &'a [GpuBody],
        shapes: &'a [GpuShape],
        shape_pos: &'a [Vec4],
        shape_xf: &'a [Vec4],
    ) -> Self {
        let n = (params.shape_count as usize)
            .min(shapes.len())
            .min(shape_pos.len())
            .min(shape_xf.len() / 3);
        Self {
            bodies,
            shapes,
            shape_pos,
            shape_xf,
            shape_count: n as u32,
            body_count: (params.body_count as usize).min(bodies.len()) as u32,
            margin: params.contact_margin,
        }
    }

    fn side(&self, i: u32) -> Side {
        let Some(s) = self.shapes.get(i as usize) else {
            return Side::default();
        };
        if !(s.body < self.body_count && valid_kind(s.kind) && i < self.shape_count) {
            return Side::default();
        }
        // The body's motion as `shape_aabbs` left it in the AABB max's w (see [`motion`]).
        let m = self
            .shape_xf
            .get(3 * i as usize + 2)
            .map_or(0, |hi| hi.w as u32);
        Side {
            kind: s.kind,
            body: s.body,
            group: s.group,
            mask: s.mask,
            dynamic: m & 1 != 0,
            moving: m & 2 != 0,
        }
    }

    fn aabb(&self, i: u32) -> (Vec3, Vec3) {
        let i = 3 * i as usize;
        match (self.shape_xf.get(i + 1), self.shape_xf.get(i + 2)) {
            (Some(lo), Some(hi)) => (lo.xyz(), hi.xyz()),
            _ => (Vec3::splat(FAR), Vec3::splat(-FAR)),
        }
    }

    /// AABB min of shape `i` (xyz).
    pub fn aabb_min(&self, i: u32) -> Vec3 {
        self.aabb(i).0
    }

    /// AABB max of shape `i` (xyz).
    pub fn aabb_max(&self, i: u32) -> Vec3 {
        self.aabb(i).1
    }

    /// Whether shape `i` is flagged large by `shape_aabbs` (AABB min's w).
    pub fn is_large(&self, i: u32) -> bool {
        self.shape_xf
            .get(3 * i as usize + 1)
            .is_some_and(|v| v.w != 0.0)
    }

    /// Whether plane shape `p` touches the AABB of shape `x` (WGSL `broad_plane_hits`).
    fn plane_hits(&self, p: u32, kind: u32, x: u32) -> bool {
        let (Some(s), Some(pos), Some(q)) = (
            self.shapes.get(p as usize),
            self.shape_pos.get(p as usize),
            self.shape_xf.get(3 * p as usize),
        ) else {
            return false;
        };
        let (n, d) = world_plane(s.dims, pos.xyz(), *q);
        let (lo, hi) = self.aabb(x);
        let below = Vec3::select(n.cmpge(Vec3::ZERO), lo, hi);
        let above = Vec3::select(n.cmpge(Vec3::ZERO), hi, lo);
        let m = self.margin;
        if n.dot(below) > d + m {
            return false;
        }
        !(kind == shape_kind::PLANE && n.dot(above) < d - m)
    }

    fn overlap(&self, a: u32, ka: u32, b: u32, kb: u32) -> bool {
        let (pa, pb) = (is_plane(ka), is_plane(kb));
        if pa && !pb {
            return self.plane_hits(a, ka, b);
        }
        if pb && !pa {
            return self.plane_hits(b, kb, a);
        }
        let (alo, ahi) = self.aabb(a);
        let (blo, bhi) = self.aabb(b);
        alo.cmple(bhi).all() && blo.cmple(ahi).all()
    }

    fn pair_sides(&self, a: u32, sa: &Side, b: u32, sb: &Side) -> bool {
        sa.kind != 0
            && sb.kind != 0
            && sa.body != sb.body
            && (sa.group & sb.mask) != 0
            && (sb.group & sa.mask) != 0
            && (sa.dynamic || sb.dynamic)
            && (sa.moving || sb.moving)
            && self.overlap(a, sa.kind, b, sb.kind)
    }

    /// Whether shapes `a` and `b` form a pair (the module doc's rule; symmetric). The one
    /// definition every broad phase here uses, mirrored by WGSL `broad_rule` and `broad_overlap`.
    pub fn pair_ok(&self, a: u32, b: u32) -> bool {
        a != b && self.pair_sides(a, &self.side(a), b, &self.side(b))
    }
}

/// Chunks per large shape: `ceil(shape_count / LARGE_CHUNK)`.
pub fn large_chunks(shape_count: u32) -> u32 {
    shape_count.div_ceil(LARGE_CHUNK)
}

/// Items of the broad phase: one per small shape, [`large_chunks`] per large shape.
pub fn broad_items(shape_count: u32, large_count: u32) -> u32 {
    let k = large_count.min(shape_count);
    (shape_count - k).saturating_add(k.saturating_mul(large_chunks(shape_count)))
}

/// Item `t` as (shape, chunk): `chunk` is [`NONE`] for a small shape's item. `large` ascending
/// (WGSL `broad_item`: the same binary search).
pub fn broad_item(t: u32, shape_count: u32, large: &[u32]) -> (u32, u32) {
    let m1 = large_chunks(shape_count).saturating_sub(1);
    // The number of large shapes whose first item is at or before t.
    let (mut lo, mut hi) = (0usize, large.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if large[mid].wrapping_add((mid as u32).wrapping_mul(m1)) <= t {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if lo == 0 {
        return (t, NONE);
    }
    let k = (lo - 1) as u32;
    let start = large[lo - 1].wrapping_add(k.wrapping_mul(m1));
    if t - start <= m1 {
        return (large[lo - 1], t - start);
    }
    (t.wrapping_sub((k + 1).wrapping_mul(m1)), NONE)
}

/// Partners `b > a` of small shape `a` (grid cells, then the large list), unsorted.
fn small_partners(
    input: &BroadInput,
    large: &[u32],
    grid: &CpuGrid,
    spec: &GridSpec,
    a: u32,
    out: &mut Vec<u32>,
) {
    out.clear();
    let sa = input.side(a);
    if sa.kind == 0 {
        return;
    }
    let Some(pa) = input.shape_pos.get(a as usize) else {
        return;
    };
    // As the WGSL: a candidate counts in the stencil cell that is its own cell, so a key shared
    // by two stencil cells needs no de-duplication.
    let cell = cell_of(pa.xyz(), spec.cell_size);
    for m in 0..STENCIL {
        let nc = neighbour_cell(cell, m);
        for s in grid.key_range(cell_key(nc, spec.table_size)) {
            let Some(&b) = grid.sorted_index.get(s) else {
                continue;
            };
            if b <= a || b >= input.shape_count || input.is_large(b) {
                continue;
            }
            let own = input
                .shape_pos
                .get(b as usize)
                .map(|p| cell_of(p.xyz(), spec.cell_size));
            if own != Some(nc) {
                continue;
            }
            if input.pair_sides(a, &sa, b, &input.side(b)) {
                out.push(b);
            }
        }
    }
    let first = large.partition_point(|&l| l <= a);
    for &b in &large[first..] {
        if b < input.shape_count && input.pair_sides(a, &sa, b, &input.side(b)) {
            out.push(b);
        }
    }
}

/// Partners `b > l` of large shape `l` in chunk `chunk`, ascending.
fn large_partners(input: &BroadInput, l: u32, chunk: u32, out: &mut Vec<u32>) {
    out.clear();
    let sl = input.side(l);
    if sl.kind == 0 {
        return;
    }
    let lo = chunk.saturating_mul(LARGE_CHUNK).max(l.saturating_add(1));
    let hi = chunk
        .saturating_add(1)
        .saturating_mul(LARGE_CHUNK)
        .min(input.shape_count);
    for b in lo..hi {
        if input.pair_sides(l, &sl, b, &input.side(b)) {
            out.push(b);
        }
    }
}

/// The partners of item `t`, ascending.
fn item_partners(
    input: &BroadInput,
    large: &[u32],
    grid: &CpuGrid,
    spec: &GridSpec,
    t: u32,
    out: &mut Vec<u32>,
) {
    let (a, chunk) = broad_item(t, input.shape_count, large);
    if chunk == NONE {
        small_partners(input, large, grid, spec, a, out);
        out.sort_unstable();
    } else {
        large_partners(input, a, chunk, out);
    }
}

/// Stage `broad_count`: the partner count of every item into `counts` (resized to
/// [`broad_items`]). `large` ascending, as uploaded; `grid` built over `input.shape_pos` (first
/// `shape_count` entries) with `spec`, whose `inv_cell_size()` and `table_mask()` the GPU gets in
/// `params`.
pub fn broad_count(
    input: &BroadInput,
    large: &[u32],
    grid: &CpuGrid,
    spec: &GridSpec,
    counts: &mut Vec<u32>,
) {
    let items = broad_items(input.shape_count, large.len() as u32);
    counts.clear();
    let mut buf = Vec::new();
    for t in 0..items {
        item_partners(input, large, grid, spec, t, &mut buf);
        counts.push(buf.len() as u32);
    }
}

/// Stage `broad_scan` (with `broad_scan_sums`, its second GPU pass): exclusive prefix sums of
/// `counts` in place, returning the total (wrapping at `u32::MAX`).
pub fn broad_scan(counts: &mut [u32]) -> u32 {
    let mut run = 0u32;
    for c in counts.iter_mut() {
        let v = *c;
        *c = run;
        run = run.wrapping_add(v);
    }
    run
}

/// Stage `broad_write`: each item's partners, ascending, at its offset from `broad_scan`;
/// `pairs` becomes the first `min(total, capacity)` pairs.
#[allow(clippy::too_many_arguments)] // the stage's inputs, as the GPU binds them
pub fn broad_write(
    input: &BroadInput,
    large: &[u32],
    grid: &CpuGrid,
    spec: &GridSpec,
    offsets: &[u32],
    total: u32,
    capacity: u32,
    pairs: &mut Vec<[u32; 2]>,
) {
    let len = total.min(capacity) as usize;
    pairs.clear();
    pairs.resize(len, [NONE, NONE]);
    let mut buf = Vec::new();
    for (t, &offset) in offsets.iter().enumerate() {
        if offset as usize >= len {
            continue;
        }
        item_partners(input, large, grid, spec, t as u32, &mut buf);
        let (a, _) = broad_item(t as u32, input.shape_count, large);
        for (i, &b) in buf.iter().enumerate() {
            if let Some(p) = pairs.get_mut(offset as usize + i) {
                *p = [a, b];
            }
        }
    }
}

/// The whole CPU broad phase after `shape_aabbs` and the grid build: `broad_count`,
/// `broad_scan`, `broad_write`. Writes at most `params.pair_capacity` pairs, sorted by (a, b)
/// with a < b and unique, into `pairs`, and returns the number of pairs wanted (the GPU's
/// `counters[PAIRS_WANTED]`; above the capacity means overflow).
pub fn broad_pairs(
    params: &GpuRigidParams,
    input: &BroadInput,
    large: &[u32],
    grid: &CpuGrid,
    spec: &GridSpec,
    pairs: &mut Vec<[u32; 2]>,
) -> u32 {
    let mut offsets = Vec::new();
    broad_count(input, large, grid, spec, &mut offsets);
    let total = broad_scan(&mut offsets);
    broad_write(
        input,
        large,
        grid,
        spec,
        &offsets,
        total,
        broad_capacity(params),
        pairs,
    );
    total
}

/// The pairs the broad phase may write: the pair slots less those held for joints
/// (`joint_slots` fills them after the contacts); WGSL `broad_capacity`.
pub fn broad_capacity(params: &GpuRigidParams) -> u32 {
    params.pair_capacity.saturating_sub(params.joint_capacity)
}

/// Workgroups for `n` threads (or items) at `per` per group: at least 1, at most
/// [`MAX_GROUPS`] (the kernels stride over the rest).
fn groups(n: u32, per: u32) -> u32 {
    n.div_ceil(per).clamp(1, MAX_GROUPS)
}

/// The `shape_aabbs` pass for `shape_count` shapes: (entry point, workgroups of [`RIGID_WG`]).
/// Record it before the grid build over `shape_pos`.
pub fn shape_aabbs_pass(shape_count: u32) -> (&'static str, u32) {
    ("shape_aabbs", groups(shape_count, RIGID_WG))
}

/// The broad-phase passes after the grid build, in order, as (entry point, workgroups of
/// [`RIGID_WG`] threads): `broad_count`, `broad_scan`, `broad_scan_sums` (one workgroup; it
/// writes `counters[PAIRS]` and `counters[PAIRS_WANTED]`), `broad_write`. Every pass runs even
/// with no shapes, so the counters are always written.
pub fn broad_gpu_passes(shape_count: u32, large_count: u32) -> Vec<(&'static str, u32)> {
    let items = broad_items(shape_count, large_count);
    vec![
        ("broad_count", groups(items, RIGID_WG)),
        ("broad_scan", groups(items, SCAN_BLOCK)),
        ("broad_scan_sums", 1),
        ("broad_write", groups(items, RIGID_WG)),
    ]
}

/// Words (u32) the `pair_scratch` buffer needs for up to `shape_capacity` shapes of which up to
/// `large_capacity` are large: the large list, one count/offset per item, one sum per scan
/// block, the truncation flag (see [`truncated_word`]) and the total. Every part grows with the
/// large count (an item per small shape becomes at least one per large shape), so the words
/// for the capacities hold any smaller count.
pub fn pair_scratch_words(shape_capacity: u32, large_capacity: u32) -> u64 {
    truncated_word(shape_capacity, large_capacity) + 2
}

/// Planes, half-spaces and unbounded shapes [`large_capacity_hint`] allows for.
pub const PLANE_ALLOWANCE: u32 = 16;

/// A large-shape capacity for sizing `pair_scratch` before any plan exists: the most bounded
/// shapes [`plan_grid`] puts in the large list for `shape_capacity` shapes
/// (`max(MIN_LARGE_CAP, ceil(sqrt(shape_capacity)))`) plus [`PLANE_ALLOWANCE`], at most
/// `shape_capacity`. Sizing with `shape_capacity` itself instead makes the scratch grow as
/// `shape_capacity² / LARGE_CHUNK` (625 MB at 100 000 shapes); with this hint it stays near
/// `17 · shape_capacity` words at a million shapes. Grow the buffer when a plan's large list is
/// longer (many planes).
pub fn large_capacity_hint(shape_capacity: u32) -> u32 {
    let bounded = (MIN_LARGE_CAP as u32).max(f64::from(shape_capacity).sqrt().ceil() as u32);
    bounded.saturating_add(PLANE_ALLOWANCE).min(shape_capacity)
}

/// Index in `pair_scratch` of the truncation flag for `shape_count` shapes and `large_count`
/// large ones: `broad_scan_sums` clears it and `broad_write` sets it to 1 when an item wrote
/// fewer pairs than `broad_count` counted. That never happens on a real GPU; llvmpipe and
/// lavapipe break a shader invocation's loops after 65535 iterations in total, which a very
/// crowded grid cell can reach. A test on a software adapter should read it and expect 0.
pub fn truncated_word(shape_count: u32, large_count: u32) -> u64 {
    let items = u64::from(broad_items(shape_count, large_count));
    u64::from(large_count) + items + items.div_ceil(u64::from(SCAN_BLOCK))
}
