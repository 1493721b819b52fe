//! The rigid step as data: [`RigidStage`], the stages in execution order, and [`step_plan`], the
//! GPU step they make for a world's current sizes, grouped into compute passes (phases).
//!
//! This list is the one place the GPU order is written: the recorder
//! ([`super::gpu::GpuRigid::encode_step`]) turns it into cached pipelines and dispatches once per
//! change of sizes, and [`StepPlan::dispatches`] and [`StepPlan::passes`] count it. The CPU step
//! (`cpu_step` and [`cpu_solve`], at the end of this file) runs the same stages in the order
//! [`RigidStage::ALL`] gives, and is the one place the CPU order is written.
//!
//! Why phases: on a real GPU the host's cost of a compute pass (tens of microseconds in wgpu) is
//! larger than most rigid kernels, so every dispatch of a phase goes into one pass; wgpu keeps
//! their order and makes each see the writes of the ones before it. A phase ends only where a
//! copy must run between dispatches: indirect arguments written by a kernel (the per-pair
//! stages' by the broad phase, the solver's by the colouring) are copied to a buffer no kernel
//! binds as writable storage.

use super::broad::{self, BroadPlan};
use super::gpu::PassDispatch;
use super::solver;
use super::types::*;
use super::world::StepReport;
use super::{ccd, cpu, explosion, narrow};
use crate::error::Result;
use crate::grid::{CpuGrid, GridSpec};
use glam::Vec4;

/// The rigid stages, in the order a step runs them: the collide stages once, the substep
/// stages `substeps` times, then the finishing stages once (Box2D v3's soft step). Each has one
/// name (see [`RigidStage::name`]) shared by its WGSL entry points, the pipeline labels, the CPU
/// twin and its test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RigidStage {
    /// Clears the wake flags and the step's counters.
    StepStart,
    /// The explosion force generator (only while one is set).
    RigidForces,
    /// World pose, bounding sphere and AABB of every shape.
    ShapeAabbs,
    /// The grid over shape centres: clear, keys, radix sort, cell ranges.
    GridBuild,
    /// Sorted unique shape pairs: `broad_count`, `broad_scan`, `broad_scan_sums`, `broad_write`.
    Broad,
    /// One manifold per pair.
    Narrow,
    /// Marks sleepers that awake bodies press on.
    WakeMark,
    /// Wakes the marked bodies.
    WakeApply,
    /// Last step's accumulated impulses, matched by feature.
    WarmStart,
    /// Greedy colouring into independent batches.
    Colour,
    /// Anchors, effective masses and start velocities per contact point.
    SolvePrepare,
    /// Substep: forces → velocities.
    IntegrateVelocity,
    /// Substep: applies the accumulated impulses, per colour.
    SolveWarmApply,
    /// Substep: biased soft-contact iterations, per colour.
    SolveContact,
    /// Substep: positions from the solved velocities.
    IntegratePosition,
    /// Substep: sweeps fast spheres back to their time of impact.
    Ccd,
    /// Substep: iterations without the soft bias, per colour.
    SolveRelax,
    /// Once per step: restitution from the start velocities, per colour.
    SolveRestitution,
    /// Once per step, optional: the book's non-linear position projection, per colour.
    SolvePosition,
    /// Once per step: clears the force accumulators, recency-weighted motion and sleeping.
    Sleep,
}

impl RigidStage {
    /// Every stage, in execution order (the substep stages once).
    pub const ALL: [RigidStage; 20] = [
        RigidStage::StepStart,
        RigidStage::RigidForces,
        RigidStage::ShapeAabbs,
        RigidStage::GridBuild,
        RigidStage::Broad,
        RigidStage::Narrow,
        RigidStage::WakeMark,
        RigidStage::WakeApply,
        RigidStage::WarmStart,
        RigidStage::Colour,
        RigidStage::SolvePrepare,
        RigidStage::IntegrateVelocity,
        RigidStage::SolveWarmApply,
        RigidStage::SolveContact,
        RigidStage::IntegratePosition,
        RigidStage::Ccd,
        RigidStage::SolveRelax,
        RigidStage::SolveRestitution,
        RigidStage::SolvePosition,
        RigidStage::Sleep,
    ];

    /// The stage's name: its CPU twin's function and the prefix of its WGSL entry points.
    pub fn name(self) -> &'static str {
        match self {
            RigidStage::StepStart => "step_start",
            RigidStage::RigidForces => "rigid_forces",
            RigidStage::ShapeAabbs => "shape_aabbs",
            RigidStage::GridBuild => "grid_build",
            RigidStage::Broad => "broad",
            RigidStage::Narrow => "narrow",
            RigidStage::WakeMark => "wake_mark",
            RigidStage::WakeApply => "wake_apply",
            RigidStage::WarmStart => "warm_start",
            RigidStage::Colour => "colour",
            RigidStage::SolvePrepare => "solve_prepare",
            RigidStage::IntegrateVelocity => "integrate_velocity",
            RigidStage::SolveWarmApply => "solve_warm_apply",
            RigidStage::SolveContact => "solve_contact",
            RigidStage::IntegratePosition => "integrate_position",
            RigidStage::Ccd => "ccd",
            RigidStage::SolveRelax => "solve_relax",
            RigidStage::SolveRestitution => "solve_restitution",
            RigidStage::SolvePosition => "solve_position",
            RigidStage::Sleep => "sleep",
        }
    }

    /// The block solver's entry point of a per-colour stage (`solver::block`; the warm start
    /// rides in `solve_contact_block`); `staged`: the velocity stages' entries that solve each
    /// bin against a workgroup copy of its bodies ([`StepShape::block_stage`]).
    fn block_entry(self, staged: bool) -> Option<&'static str> {
        Some(match (self, staged) {
            (RigidStage::SolveWarmApply | RigidStage::SolveContact, false) => "solve_contact_block",
            (RigidStage::SolveWarmApply | RigidStage::SolveContact, true) => {
                "solve_contact_block_staged"
            }
            (RigidStage::SolveRelax, false) => "solve_relax_block",
            (RigidStage::SolveRelax, true) => "solve_relax_block_staged",
            (RigidStage::SolveRestitution, false) => "solve_restitution_block",
            (RigidStage::SolveRestitution, true) => "solve_restitution_block_staged",
            (RigidStage::SolvePosition, _) => "solve_position_block",
            _ => return None,
        })
    }

    /// The per-colour solver stages' entry points: one colour; all colours with the
    /// iterations in one workgroup (the fused path of small scenes; the warm start rides in
    /// `solve_contact_fused`); and the tail, the colours after a sweep's per-colour dispatches
    /// in one workgroup.
    fn colour_entries(self) -> Option<(&'static str, &'static str, &'static str)> {
        Some(match self {
            RigidStage::SolveWarmApply => ("solve_contact", "", "solve_warm_apply_tail"),
            RigidStage::SolveContact => {
                ("solve_contact", "solve_contact_fused", "solve_contact_tail")
            }
            RigidStage::SolveRelax => ("solve_relax", "solve_relax_fused", "solve_relax_tail"),
            RigidStage::SolveRestitution => (
                "solve_restitution",
                "solve_restitution_fused",
                "solve_restitution_tail",
            ),
            RigidStage::SolvePosition => (
                "solve_position",
                "solve_position_fused",
                "solve_position_tail",
            ),
            _ => return None,
        })
    }
}

/// One step of the plan inside a phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepOp {
    /// A dispatch of a rigid entry point.
    Kernel {
        /// The stage it belongs to.
        stage: RigidStage,
        /// The WGSL entry point.
        entry: &'static str,
        /// How it is launched.
        dispatch: PassDispatch,
        /// The group-1 pass record (colour) it binds.
        record: u32,
    },
    /// The grid build over the first `shapes` shape centres (its own kernels).
    GridBuild {
        /// Shapes in the build.
        shapes: u32,
    },
    /// The colouring's stable sort of the pair slots by colour (the radix sort's kernels),
    /// between `colour_keys` and `colour_ranges`.
    ColourSort {
        /// Pair slots sorted.
        slots: u32,
    },
}

/// A compute pass of the step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepPhase {
    /// The pass label, `wgphys:pass:<phase>`.
    pub label: &'static str,
    /// Swap `manifolds` and `manifolds_prev` before this phase (a new substep's narrow phase
    /// writes the other buffer, and its warm start reads the last one).
    pub flip_manifolds: bool,
    /// Copy the counters into the indirect-argument buffer before this phase.
    pub copy_indirect: bool,
    /// The dispatches, in order.
    pub ops: Vec<StepOp>,
}

/// What the plan depends on; a recorder rebuilds its cache when this changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StepShape {
    /// Body slots in use.
    pub bodies: u32,
    /// Shape slots in use.
    pub shapes: u32,
    /// Large shapes.
    pub large: u32,
    /// Pair (and manifold) slots.
    pub pair_capacity: u32,
    /// Substeps per step.
    pub substeps: u32,
    /// Biased iterations per substep.
    pub velocity_iterations: u32,
    /// Relax iterations per substep.
    pub relax_iterations: u32,
    /// Position-projection iterations per step.
    pub position_iterations: u32,
    /// Whether an explosion runs (adds `rigid_forces`).
    pub explosion: bool,
    /// Colour slots dispatched per sweep (`RigidConfig::colour_slots`, 1..=[`MAX_COLOURS`]).
    pub colour_slots: u32,
    /// Bins per partition when the sweeps run block by block (`solver::block`), else 0.
    pub block_bins: u32,
    /// With blocks, the velocity stages solve each bin against a workgroup copy of its bodies
    /// (their `_staged` entry points; [`super::RigidWorld::set_block_staging`]).
    pub block_stage: bool,
}

/// The most compute passes (phases) a step records: `rigid_broad`, `rigid_collide`,
/// `rigid_colour` (when the colouring runs in rounds of passes) and `rigid_solve` for scenes
/// above [`solver::FUSED_MAX_MANIFOLDS`] pair slots (one pass below).
pub const MAX_PHASES: u32 = 4;

/// The GPU step for one [`StepShape`]: its phases in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepPlan {
    /// The shape it was made for.
    pub shape: StepShape,
    /// The compute passes, in order.
    pub phases: Vec<StepPhase>,
    grid_dispatches: u32,
    sort_dispatches: u32,
}

impl StepPlan {
    /// Compute passes one step records.
    pub fn passes(&self) -> u32 {
        self.phases.len() as u32
    }

    /// Dispatches one step records (a grid build and a colour sort count their own,
    /// `grid_dispatches` and `sort_dispatches` each).
    pub fn dispatches(&self) -> u32 {
        self.phases
            .iter()
            .flat_map(|p| &p.ops)
            .map(|op| self.op_dispatches(op))
            .sum()
    }

    /// Dispatches `op` records.
    pub fn op_dispatches(&self, op: &StepOp) -> u32 {
        match op {
            StepOp::Kernel { .. } => 1,
            StepOp::GridBuild { .. } => self.grid_dispatches,
            StepOp::ColourSort { .. } => self.sort_dispatches,
        }
    }

    /// The stages in the order the plan first runs them (each once).
    pub fn stage_order(&self) -> Vec<RigidStage> {
        let mut order: Vec<RigidStage> = Vec::new();
        for op in self.phases.iter().flat_map(|p| &p.ops) {
            let stage = match op {
                StepOp::Kernel { stage, .. } => *stage,
                StepOp::GridBuild { .. } => RigidStage::GridBuild,
                StepOp::ColourSort { .. } => RigidStage::Colour,
            };
            if !order.contains(&stage) {
                order.push(stage);
            }
        }
        order
    }
}

fn kernel(stage: RigidStage, entry: &'static str, dispatch: PassDispatch, record: u32) -> StepOp {
    StepOp::Kernel {
        stage,
        entry,
        dispatch,
        record,
    }
}

/// The workgroups of a per-pair stage for `pairs` pairs written: one per [`RIGID_WG`], at least
/// one (the x of the triple `broad_scan_sums` writes at [`counter::PAIR_GROUPS`]).
pub fn pair_groups(pairs: u32) -> u32 {
    pairs.div_ceil(RIGID_WG).max(1)
}

/// A stage with a thread per pair slot, after the broad phase. Above the fused size it is
/// sized by the pairs the broad phase wrote ([`counter::PAIR_GROUPS`], copied into the indirect
/// arguments between the broad and the collide pass) instead of by the pair capacity: a
/// software adapter pays for every workgroup it launches, and a pyramid's broad phase fills
/// a third of the default 8 slots per shape, so the per-pair stages of a 5k wall cost 76 ms a
/// step on lavapipe sized by the capacity against 44–47 ms sized by the pairs (BENCHMARKS.md,
/// session 17). Below it (one pass) the capacity is small and the dispatch direct.
fn per_pair(stage: RigidStage, entry: &'static str, pair_capacity: u32, record: u32) -> StepOp {
    let dispatch = if fused_solver(pair_capacity) {
        PassDispatch::Direct(pair_capacity.div_ceil(RIGID_WG).max(1))
    } else {
        PassDispatch::Indirect(counter::PAIR_GROUPS as u32)
    };
    kernel(stage, entry, dispatch, record)
}

fn over(stage: RigidStage, threads: u32) -> StepOp {
    kernel(
        stage,
        stage.name(),
        PassDispatch::Direct(threads.div_ceil(RIGID_WG)),
        0,
    )
}

/// Whether a world with `pair_capacity` pair slots solves in single-workgroup dispatches that
/// walk all colours (and iterations) with a barrier between colours.
pub fn fused_solver(pair_capacity: u32) -> bool {
    pair_capacity <= solver::FUSED_MAX_MANIFOLDS
}

/// Whether the step's sweeps run block by block (`solver::block`): blocks are on
/// (`block_shift > 0`) and the scene is too large for the fused single-workgroup solver.
pub fn block_solver(params: &GpuRigidParams) -> bool {
    params.block_shift > 0 && !fused_solver(params.pair_capacity)
}

/// The colouring's dispatches: `colour_manifolds` (one workgroup) up to
/// [`solver::COLOUR_FUSED_MAX_MANIFOLDS`] pair slots, else `colour_init`, `colour_claim`
/// (round 0) and [`solver::COLOUR_ROUNDS_OVER_ALL`] × `colour_round` over every slot (pick
/// round r, then the losers claim round r + 1; the round in the pass record) into `ops`, then
/// into `listed` the remaining rounds of [`solver::COLOUR_ROUNDS`] as `colour_round_listed`
/// over the manifolds the last round left waiting (sized by [`counter::WAITING_GROUPS`]),
/// `colour_keys`, the sort by colour and `colour_ranges`. With blocks (`block_bins > 0`,
/// [`solver::block`]) `colour_init`, `colour_keys`, the sort by bin and `block_colour`, which
/// colours each bin on its own, all into `ops`.
fn colour_ops(
    pair_capacity: u32,
    block_bins: u32,
    ops: &mut Vec<StepOp>,
    listed: &mut Vec<StepOp>,
) {
    let stage = RigidStage::Colour;
    // colour_keys writes a sort key for every slot (the sort runs over the capacity); the
    // other passes visit the pairs written.
    let per_manifold = PassDispatch::Direct(pair_capacity.div_ceil(RIGID_WG).max(1));
    if pair_capacity <= solver::COLOUR_FUSED_MAX_MANIFOLDS && block_bins == 0 {
        ops.push(kernel(
            stage,
            "colour_manifolds",
            PassDispatch::Direct(1),
            0,
        ));
        return;
    }
    ops.push(per_pair(stage, "colour_init", pair_capacity, 0));
    if block_bins > 0 {
        ops.push(kernel(stage, "colour_keys", per_manifold, 0));
        ops.push(StepOp::ColourSort {
            slots: pair_capacity,
        });
        let bins = solver::block::leftover_bin(block_bins) + 1;
        ops.push(kernel(
            stage,
            "block_colour",
            PassDispatch::Direct(bins.div_ceil(RIGID_WG)),
            0,
        ));
        return;
    }
    ops.push(per_pair(stage, "colour_claim", pair_capacity, 0));
    for r in 0..solver::COLOUR_ROUNDS_OVER_ALL {
        ops.push(per_pair(stage, "colour_round", pair_capacity, r));
    }
    let waiting = PassDispatch::Indirect(counter::WAITING_GROUPS as u32);
    for r in solver::COLOUR_ROUNDS_OVER_ALL..solver::COLOUR_ROUNDS {
        listed.push(kernel(stage, "colour_round_listed", waiting, r));
    }
    listed.push(kernel(stage, "colour_keys", per_manifold, 0));
    listed.push(StepOp::ColourSort {
        slots: pair_capacity,
    });
    listed.push(kernel(stage, "colour_ranges", PassDispatch::Direct(1), 0));
}

/// One sweep of a per-colour stage over every colour: on the fused path one dispatch of its
/// fused entry; else colours `0..colour_slots − 1` one by one, each sized by the indirect
/// arguments the colouring wrote (an unused colour launches no workgroup), then the tail entry
/// (one workgroup) for the colours from `colour_slots − 1` on. No readback decides what to
/// dispatch, and every adapter records the same list.
fn sweep(stage: RigidStage, shape: &StepShape, ops: &mut Vec<StepOp>) {
    let Some((one, fused, tail)) = stage.colour_entries() else {
        return;
    };
    if fused_solver(shape.pair_capacity) {
        if !fused.is_empty() {
            ops.push(kernel(stage, fused, PassDispatch::Direct(1), 0));
        }
        return;
    }
    // The warm-apply colours run through `solve_contact`'s pipeline with `warm = 1` in their
    // pass records (the same operations as an entry point of their own): lavapipe ran every
    // dispatch of a separate warm-apply pipeline three to four times slower than the contact
    // sweep's, empty ones included (BENCHMARKS.md, session 10).
    let record = |c: u32| match stage {
        RigidStage::SolveWarmApply => WARM_PASS_RECORDS + c,
        _ => c,
    };
    if shape.block_bins > 0 {
        // Block by block (solver::block): a dispatch per partition, a workgroup per bin, then
        // the leftover bin in one workgroup; the partition is the record's colour.
        if let Some(entry) = stage.block_entry(shape.block_stage) {
            for part in 0..solver::block::PARTITIONS {
                // The partition's non-empty bins, counted by `block_colour`.
                let word = (counter::INDIRECT + 3 * part as usize) as u32;
                ops.push(kernel(
                    stage,
                    entry,
                    PassDispatch::Indirect(word),
                    record(part),
                ));
            }
            let leftover = record(solver::block::PARTITIONS);
            ops.push(kernel(stage, entry, PassDispatch::Direct(1), leftover));
        }
        return;
    }
    for c in 0..solver::tail_colour(shape.colour_slots) {
        let word = (counter::INDIRECT + 3 * c as usize) as u32;
        ops.push(kernel(stage, one, PassDispatch::Indirect(word), record(c)));
    }
    ops.push(kernel(stage, tail, PassDispatch::Direct(1), 0));
}

/// The GPU step for `shape`; `grid_dispatches` and `sort_dispatches` are what one grid build
/// and one colour sort record (for counting).
///
/// Phase `rigid_broad`: `step_start`, `rigid_forces` (with an explosion), `shape_aabbs`, the
/// grid build and the broad phase. Then, after the copy of the indirect arguments, phase
/// `rigid_collide`, its per-pair stages sized by the pairs the broad phase wrote
/// ([`pair_groups`] workgroups, from the indirect arguments): `narrow`, `wake_mark`,
/// `wake_apply`, `warm_start`, the colouring and `solve_prepare`. When the colouring runs in
/// rounds of passes, its rounds after [`solver::COLOUR_ROUNDS_OVER_ALL`] (over the manifolds
/// still waiting, sized by their list), its order and `solve_prepare` go into phase
/// `rigid_colour`, after a copy of the list's indirect arguments. Then, after the copy of the
/// indirect arguments the colouring wrote, phase `rigid_solve`: `substeps` ×
/// (`integrate_velocity`, `solve_warm_apply`, `velocity_iterations` × `solve_contact`,
/// `integrate_position`, `ccd`, `relax_iterations` × `solve_relax`), then
/// `solve_restitution`, `position_iterations` × `solve_position` and `sleep`. Scenes of up to
/// [`solver::FUSED_MAX_MANIFOLDS`] pair slots need no indirect arguments and record
/// everything in one pass, `rigid_collide`.
pub fn step_plan(shape: StepShape, grid_dispatches: u32, sort_dispatches: u32) -> StepPlan {
    let mut collide = vec![over(RigidStage::StepStart, shape.bodies)];
    if shape.explosion {
        collide.push(over(RigidStage::RigidForces, shape.bodies));
    }
    let (entry, groups) = broad::shape_aabbs_pass(shape.shapes);
    collide.push(kernel(
        RigidStage::ShapeAabbs,
        entry,
        PassDispatch::Direct(groups),
        0,
    ));
    collide.push(StepOp::GridBuild {
        shapes: shape.shapes,
    });
    for (entry, groups) in broad::broad_gpu_passes(shape.shapes, shape.large) {
        collide.push(kernel(
            RigidStage::Broad,
            entry,
            PassDispatch::Direct(groups),
            0,
        ));
    }
    let fused = fused_solver(shape.pair_capacity);
    let mut phases = Vec::new();
    if !fused {
        phases.push(StepPhase {
            label: "wgphys:pass:rigid_broad",
            flip_manifolds: true,
            copy_indirect: false,
            ops: std::mem::take(&mut collide),
        });
    }
    let per_pair_stage = |stage: RigidStage| per_pair(stage, stage.name(), shape.pair_capacity, 0);
    collide.push(per_pair_stage(RigidStage::Narrow));
    collide.push(per_pair_stage(RigidStage::WakeMark));
    collide.push(over(RigidStage::WakeApply, shape.bodies));
    let (mut prepare, colour, mut solve) = solver_ops(&shape);
    collide.append(&mut prepare);
    solve.push(over(RigidStage::Sleep, shape.bodies));
    if fused {
        collide.append(&mut solve);
    }
    phases.push(StepPhase {
        label: "wgphys:pass:rigid_collide",
        flip_manifolds: fused,
        copy_indirect: !fused,
        ops: collide,
    });
    if !colour.is_empty() {
        phases.push(StepPhase {
            label: "wgphys:pass:rigid_colour",
            flip_manifolds: false,
            copy_indirect: true,
            ops: colour,
        });
    }
    if !solve.is_empty() {
        phases.push(StepPhase {
            label: "wgphys:pass:rigid_solve",
            flip_manifolds: false,
            copy_indirect: true,
            ops: solve,
        });
    }
    StepPlan {
        shape,
        phases,
        grid_dispatches,
        sort_dispatches,
    }
}

/// The solver's part of the step, as (the ops up to `solve_prepare` that go into the collide
/// pass, those that go into the colour pass, the substeps and the finishing sweeps):
/// `warm_start`, the colouring, `solve_prepare`; then `substeps` ×
/// (`integrate_velocity`, `solve_warm_apply`, `velocity_iterations` × `solve_contact`,
/// `integrate_position`, `ccd`, `relax_iterations` × `solve_relax`), `solve_restitution`
/// and `position_iterations` × `solve_position` (tests run these on the GPU against
/// [`solver::solve`]). The colour pass is empty unless the colouring runs in rounds of
/// passes: it then starts with the rounds over the manifolds still waiting after
/// [`solver::COLOUR_ROUNDS_OVER_ALL`], whose indirect arguments the copy before it brings.
pub fn solver_ops(shape: &StepShape) -> (Vec<StepOp>, Vec<StepOp>, Vec<StepOp>) {
    let shape = *shape;
    let per_pair_stage = |stage: RigidStage| per_pair(stage, stage.name(), shape.pair_capacity, 0);
    let mut collide = vec![per_pair_stage(RigidStage::WarmStart)];
    let block_bins = if fused_solver(shape.pair_capacity) {
        0
    } else {
        shape.block_bins
    };
    let mut colour = Vec::new();
    colour_ops(shape.pair_capacity, block_bins, &mut collide, &mut colour);
    if colour.is_empty() {
        collide.push(per_pair_stage(RigidStage::SolvePrepare));
    } else {
        colour.push(per_pair_stage(RigidStage::SolvePrepare));
    }
    let mut solve = Vec::new();
    for _ in 0..shape.substeps {
        solve.push(over(RigidStage::IntegrateVelocity, shape.bodies));
        sweep(RigidStage::SolveWarmApply, &shape, &mut solve);
        let contact_sweeps = if fused_solver(shape.pair_capacity) {
            1
        } else {
            shape.velocity_iterations
        };
        for _ in 0..contact_sweeps {
            sweep(RigidStage::SolveContact, &shape, &mut solve);
        }
        solve.push(over(RigidStage::IntegratePosition, shape.bodies));
        solve.push(over(RigidStage::Ccd, shape.bodies));
        let relax_sweeps = match (fused_solver(shape.pair_capacity), shape.relax_iterations) {
            (_, 0) => 0,
            (true, _) => 1,
            (false, n) => n,
        };
        for _ in 0..relax_sweeps {
            sweep(RigidStage::SolveRelax, &shape, &mut solve);
        }
    }
    sweep(RigidStage::SolveRestitution, &shape, &mut solve);
    let position_sweeps = match (fused_solver(shape.pair_capacity), shape.position_iterations) {
        (_, 0) => 0,
        (true, _) => 1,
        (false, n) => n,
    };
    for _ in 0..position_sweeps {
        sweep(RigidStage::SolvePosition, &shape, &mut solve);
    }
    (collide, colour, solve)
}

/// The CPU backend's working arrays.
#[derive(Default)]
pub(crate) struct CpuRigid {
    pub(crate) shape_pos: Vec<Vec4>,
    pub(crate) shape_xf: Vec<Vec4>,
    pub(crate) pairs: Vec<[u32; 2]>,
    pub(crate) manifolds: Vec<GpuManifold>,
    pub(crate) prev: Vec<GpuManifold>,
    pub(crate) claims: Vec<u32>,
    pub(crate) rows: Vec<Vec4>,
}

/// One CPU step: the stages of [`step_plan`], in the same order and with the same names: the
/// collide stages once, then [`cpu_solve`] (the solver's substeps and the finishing stages),
/// then `sleep`.
pub(crate) fn cpu_step(
    c: &mut CpuRigid,
    params: &GpuRigidParams,
    explosion: &GpuExplosion,
    spec: &GridSpec,
    plan: &BroadPlan,
    bodies: &mut [GpuBody],
    shapes: &[GpuShape],
) -> Result<StepReport> {
    let n_shapes = shapes.len();
    c.claims.resize(bodies.len(), 0);
    c.shape_pos.resize(n_shapes, Vec4::ZERO);
    c.shape_xf.resize(3 * n_shapes, Vec4::ZERO);
    // Collide, once per step.
    cpu::step_start(params, &mut c.claims);
    explosion::rigid_forces(params, explosion, bodies);
    broad::shape_aabbs(
        params,
        bodies,
        shapes,
        &plan.large,
        &mut c.shape_pos,
        &mut c.shape_xf,
    );
    let grid = CpuGrid::build(&c.shape_pos, spec)?;
    let input = broad::BroadInput {
        bodies,
        shapes,
        shape_pos: &c.shape_pos,
        shape_xf: &c.shape_xf,
        shape_count: n_shapes as u32,
        body_count: params.body_count,
        margin: params.contact_margin,
    };
    let wanted = broad::broad_pairs(params, &input, &plan.large, &grid, spec, &mut c.pairs);
    std::mem::swap(&mut c.manifolds, &mut c.prev);
    c.manifolds.clear();
    c.manifolds.resize(c.pairs.len(), GpuManifold::default());
    narrow::narrow(
        params,
        shapes,
        bodies,
        &c.shape_pos,
        &c.shape_xf,
        &c.pairs,
        &mut c.manifolds,
    );
    let pair_count = c.pairs.len() as u32;
    cpu::wake_mark(params, bodies, &c.manifolds, pair_count, &mut c.claims);
    cpu::wake_apply(params, bodies, &c.claims);
    solver::warm_start(params, &mut c.manifolds, &c.prev);
    let batches = Batches::colour(params, bodies, &mut c.manifolds);
    c.rows.clear();
    c.rows.resize(
        c.manifolds.len() * solver::solver_rows_per_manifold() as usize,
        Vec4::ZERO,
    );
    solver::solve_prepare(params, bodies, &c.manifolds, &mut c.rows);
    cpu_solve(params, &batches, bodies, shapes, &mut c.manifolds, &c.rows);
    let awake = cpu::sleep(params, bodies);
    Ok(StepReport {
        step: 0,
        pairs: pair_count,
        pairs_wanted: wanted,
        manifolds: batches.colouring().manifolds,
        colours: batches.colours(),
        uncoloured: batches.colouring().uncoloured,
        colours_wanted: batches.colouring().colours_wanted,
        rounds: batches.colouring().rounds,
        tail: batches.colouring().tail,
        awake,
        unsolved: 0,
        staged_bins: 0,
        unstaged_bins: 0,
        broad_truncated: false,
    })
}

/// What the CPU solver sweeps: stage `colour`'s batches.
#[derive(Clone, Debug)]
pub enum Batches {
    /// The colouring of the whole scene, colour after colour.
    Colours(solver::Colouring),
    /// With the block solver ([`block_solver`]): bin by bin, each bin's colours in order.
    Blocks(solver::block::BlockOrder),
}

impl Batches {
    /// Stage `colour` on the CPU: [`solver::block::block_colour`] when the step runs block by
    /// block, else [`solver::colour_in`]; writes every manifold's colour and `dynamic` bits.
    pub fn colour(
        params: &GpuRigidParams,
        bodies: &[GpuBody],
        manifolds: &mut [GpuManifold],
    ) -> Self {
        if block_solver(params) {
            Self::Blocks(solver::block::block_colour(params, bodies, manifolds))
        } else {
            Self::Colours(solver::colour_in(bodies, manifolds, params.colour_slots))
        }
    }

    /// The batches as a colouring (with blocks, a batch is one bin's colour).
    pub fn colouring(&self) -> &solver::Colouring {
        match self {
            Self::Colours(c) => c,
            Self::Blocks(b) => &b.batches,
        }
    }

    /// Colours in use.
    pub fn colours(&self) -> u32 {
        match self {
            Self::Colours(c) => c.colour_count,
            Self::Blocks(b) => b.colours,
        }
    }
}

/// The solver part of the CPU step, after `solve_prepare`: `substeps` × (integrate velocity,
/// warm start, the biased iterations, integrate position, ccd, the relax iterations), then
/// restitution and the optional position projection, each per-colour stage over the batches in
/// order. [`solver::solve`] runs it on hand-built manifolds (tests); `shapes` may be
/// empty there (no sweep for fast spheres).
pub fn cpu_solve(
    params: &GpuRigidParams,
    batches: &Batches,
    bodies: &mut [GpuBody],
    shapes: &[GpuShape],
    ms: &mut [GpuManifold],
    rows: &[Vec4],
) {
    // With blocks (solver::block), the batches are a bin's contacts of one colour, in bin
    // order; a relax round sweeps each bin `block_sweeps` times before the next.
    let colouring = batches.colouring();
    let bins = match batches {
        Batches::Blocks(b) => Some(&b.bins),
        Batches::Colours(_) => None,
    };
    let colours = 0..colouring.colour_count;
    // The velocity stages run over the coloured contacts copied into the solver's order; what
    // they derive from the poses is computed whenever the poses change (the GPU recomputes it
    // in every sweep; same operations, same bits).
    let mut set = solver::VelocitySet::new(params, colouring, bodies, ms, rows);
    // The substeps.
    for _ in 0..params.substeps.max(1) {
        cpu::integrate_velocity(params, bodies);
        set.load_velocities(bodies);
        for k in colours.clone() {
            set.solve_warm_apply(k);
        }
        for _ in 0..params.velocity_iterations {
            for k in colours.clone() {
                set.solve_contact(params, k);
            }
        }
        set.store_velocities(bodies);
        cpu::integrate_position(params, bodies);
        ccd::ccd(params, bodies, shapes);
        set.refresh_poses(bodies);
        set.load_velocities(bodies);
        for _ in 0..params.relax_iterations {
            match bins {
                Some(bins) => {
                    for (_, batches) in bins {
                        for _ in 0..params.block_sweeps {
                            for k in batches.clone() {
                                set.solve_relax(params, k);
                            }
                        }
                    }
                }
                None => {
                    for k in colours.clone() {
                        set.solve_relax(params, k);
                    }
                }
            }
        }
        set.store_velocities(bodies);
    }
    // Finish, once per step.
    for k in colours.clone() {
        set.solve_restitution(params, k);
    }
    set.store_velocities(bodies);
    set.store_impulses(ms);
    for _ in 0..params.position_iterations {
        for k in colours.clone() {
            solver::solve_position(params, colouring, k, bodies, ms, rows);
        }
    }
}
