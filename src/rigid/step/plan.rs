//! The GPU step ([`step_plan`]): each stage's dispatches ([`stage_ops`]) in the order of
//! [`super::sequence`], grouped into compute passes (phases), and what the plan depends on
//! ([`StepShape`]).
//!
//! Why phases: on a real GPU the host's cost of a compute pass (tens of microseconds in wgpu) is
//! larger than most rigid kernels, so every dispatch of a phase goes into one pass; wgpu keeps
//! their order and makes each see the writes of the ones before it. A phase ends only where a
//! copy must run between dispatches: indirect arguments written by a kernel (the per-pair
//! stages' by the broad phase, the solver's by the colouring) are copied to a buffer no kernel
//! binds as writable storage.

use super::{RigidStage, StepPart};
use crate::rigid::broad;
use crate::rigid::gpu::PassDispatch;
use crate::rigid::solver;
use crate::rigid::types::*;

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
    /// Joint slots in use (adds `joint_slots` and `joint_break` when above 0).
    pub joints: u32,
    /// Whether some force generator is attached (adds `generators` to every substep).
    pub generators: bool,
    /// Whether some joint keeps its bodies from colliding (adds `joint_slots_filter`).
    pub joint_filter: bool,
    /// Whether some body may break (adds the `fracture` stage).
    pub fracture: bool,
    /// Colour slots dispatched per sweep (`RigidConfig::colour_slots`, 1..=[`MAX_COLOURS`]).
    pub colour_slots: u32,
    /// Bins per partition when the sweeps run block by block (`solver::block`), else 0.
    pub block_bins: u32,
    /// With blocks, the velocity stages solve each bin against a workgroup copy of its bodies
    /// (their `_staged` entry points; [`crate::rigid::RigidWorld::set_block_staging`]).
    pub block_stage: bool,
    /// Whether the world has convex hulls: the narrow stage then adds the `narrow_hull`
    /// dispatch, which gives hull pairs their contacts (`shaders/rigid/narrow/hull_pairs.wgsl`).
    pub hulls: bool,
    /// Whether the ccd stage may sweep by conservative advancement: the world has hulls or level
    /// geometry, or a CCD body with a box or a capsule (else its kernel is compiled without that
    /// code).
    pub ccd_convex: bool,
    /// Whether the world holds triangle meshes or heightfields: the narrow stage then adds the
    /// `narrow_mesh` dispatch, which gives pairs with level geometry their contacts
    /// (`shaders/rigid/narrow/mesh.wgsl`), and the ccd stage sweeps against them (else its
    /// kernel is compiled without that code). The steps of a world without level geometry
    /// compile neither (`RigidWorld::precompile` compiles every kernel).
    pub level: bool,
    /// Whether contact events are on (the `contact_events` stage runs).
    pub events: bool,
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

    /// The stages the plan runs, in order, each run of consecutive dispatches of one stage
    /// counted once (a sweep's colours, the broad phase's passes, a stage's iterations): what
    /// the CPU step's trace holds for the same step, but for the stages with nothing to do on
    /// the GPU (`rigid_forces` without an explosion, `generators` without generators, the joint
    /// stages without joints, no relax or projection iterations).
    pub fn stage_sequence(&self) -> Vec<RigidStage> {
        let mut out: Vec<RigidStage> = Vec::new();
        for op in self.phases.iter().flat_map(|p| &p.ops) {
            let stage = match op {
                StepOp::Kernel { stage, .. } => *stage,
                StepOp::GridBuild { .. } => RigidStage::GridBuild,
                StepOp::ColourSort { .. } => RigidStage::Colour,
            };
            // The fused contact entry runs the substep's warm start before its iterations.
            let fused_warm =
                matches!(op, StepOp::Kernel { entry, .. } if *entry == "solve_contact_fused");
            if fused_warm && out.last() != Some(&RigidStage::SolveWarmApply) {
                out.push(RigidStage::SolveWarmApply);
            }
            if out.last() != Some(&stage) {
                out.push(stage);
            }
        }
        out
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
/// 2026-11-27, `3d54c37`). Below it (one pass) the capacity is small and the dispatch direct.
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
    // sweep's, empty ones included (BENCHMARKS.md, 2026-11-26, `612d56c`).
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

/// The GPU step for `shape`, built by walking [`super::sequence`] and grouping each stage's
/// dispatches ([`stage_ops`]) into compute passes; `grid_dispatches` and `sort_dispatches` are
/// what one grid build and one colour sort record (for counting).
///
/// Phase `rigid_broad`: `step_start`, `rigid_forces` (with an explosion), `shape_aabbs`, the
/// grid build and the broad phase. Then, after the copy of the indirect arguments, phase
/// `rigid_collide`, its per-pair stages sized by the pairs the broad phase wrote
/// ([`pair_groups`] workgroups, from the indirect arguments): `narrow`, `wake_mark`,
/// `wake_apply`, `warm_start`, the colouring and `solve_prepare`. When the colouring runs in
/// rounds of passes, its rounds after [`solver::COLOUR_ROUNDS_OVER_ALL`] (over the manifolds
/// still waiting, sized by their list), its order and `solve_prepare` go into phase
/// `rigid_colour`, after a copy of the list's indirect arguments. Then, after the copy of the
/// indirect arguments the colouring wrote, phase `rigid_solve`: the substep stages `substeps`
/// times and the finishing stages. Scenes of up to [`solver::FUSED_MAX_MANIFOLDS`] pair slots
/// need no indirect arguments and record everything in one pass, `rigid_collide`.
pub fn step_plan(shape: StepShape, grid_dispatches: u32, sort_dispatches: u32) -> StepPlan {
    let mut phases = Phases::new(fused_solver(shape.pair_capacity));
    for stage in super::sequence(shape.substeps) {
        phases.enter(stage);
        let mut listed = Vec::new();
        stage_ops(stage, &shape, &mut phases.current().ops, &mut listed);
        if !listed.is_empty() {
            phases.open("wgphys:pass:rigid_colour", false, true);
            phases.current().ops.append(&mut listed);
        }
    }
    StepPlan {
        shape,
        phases: phases.done,
        grid_dispatches,
        sort_dispatches,
    }
}

/// The compute passes a plan is cut into as its stages come (see [`step_plan`]).
struct Phases {
    fused: bool,
    done: Vec<StepPhase>,
    in_solve: bool,
}

impl Phases {
    fn new(fused: bool) -> Self {
        let mut p = Self {
            fused,
            done: Vec::new(),
            in_solve: false,
        };
        if fused {
            // One pass; its start swaps the manifolds for the new step.
            p.open("wgphys:pass:rigid_collide", true, false);
        } else {
            p.open("wgphys:pass:rigid_broad", true, false);
        }
        p
    }

    fn open(&mut self, label: &'static str, flip_manifolds: bool, copy_indirect: bool) {
        self.done.push(StepPhase {
            label,
            flip_manifolds,
            copy_indirect,
            ops: Vec::new(),
        });
    }

    fn current(&mut self) -> &mut StepPhase {
        let last = self.done.len() - 1;
        &mut self.done[last]
    }

    /// Opens the pass `stage` starts, where it starts one: the per-pair stages after the copy
    /// of the broad phase's indirect arguments, the solver after the colouring's.
    fn enter(&mut self, stage: RigidStage) {
        if self.fused {
            return;
        }
        if stage == RigidStage::Narrow {
            self.open("wgphys:pass:rigid_collide", false, true);
        } else if stage.part() != StepPart::Collide && !self.in_solve {
            self.in_solve = true;
            self.open("wgphys:pass:rigid_solve", false, true);
        }
    }
}

/// The dispatches of one occurrence of `stage` in the step for `shape`, into `ops`; the
/// colouring's rounds over its waiting list (which need their own indirect arguments, so a
/// pass of their own) into `listed`. A stage with nothing to do this step (`rigid_forces`
/// without an explosion, the joint stages without joints, no relax or projection iterations)
/// records nothing.
pub fn stage_ops(
    stage: RigidStage,
    shape: &StepShape,
    ops: &mut Vec<StepOp>,
    listed: &mut Vec<StepOp>,
) {
    let fused = fused_solver(shape.pair_capacity);
    let per_pair_stage = |stage: RigidStage| per_pair(stage, stage.name(), shape.pair_capacity, 0);
    // Fused scenes run all iterations of a sweep in one dispatch of its fused entry.
    let sweeps = |n: u32| match (fused, n) {
        (_, 0) => 0,
        (true, _) => 1,
        (false, n) => n,
    };
    use RigidStage::*;
    match stage {
        StepStart | IntegrateVelocity | IntegratePosition | Ccd | Sleep => {
            ops.push(over(stage, shape.bodies))
        }
        WakeApply => {
            ops.push(over(stage, shape.bodies));
            // With joints, rounds that wake the sleeping partners of awake bodies' joints
            // (sleep::WAKE_JOINT_ROUNDS).
            if shape.joints > 0 {
                for _ in 0..crate::rigid::sleep::WAKE_JOINT_ROUNDS {
                    let joints = PassDispatch::Direct(shape.joints.div_ceil(RIGID_WG));
                    ops.push(kernel(stage, "wake_joints", joints, 0));
                    ops.push(over(stage, shape.bodies));
                }
            }
        }
        RigidForces => {
            if shape.explosion {
                ops.push(over(stage, shape.bodies));
            }
        }
        Generators => {
            if shape.generators {
                ops.push(over(stage, shape.bodies));
            }
        }
        ShapeAabbs => {
            let (entry, groups) = broad::shape_aabbs_pass(shape.shapes);
            ops.push(kernel(stage, entry, PassDispatch::Direct(groups), 0));
        }
        GridBuild => ops.push(StepOp::GridBuild {
            shapes: shape.shapes,
        }),
        Broad => {
            for (entry, groups) in broad::broad_gpu_passes(shape.shapes, shape.large) {
                ops.push(kernel(stage, entry, PassDispatch::Direct(groups), 0));
            }
        }
        Narrow => {
            ops.push(per_pair_stage(stage));
            if shape.hulls {
                ops.push(per_pair(stage, "narrow_hull", shape.pair_capacity, 0));
            }
            if shape.level {
                ops.push(per_pair(stage, "narrow_mesh", shape.pair_capacity, 0));
            }
        }
        WakeMark | WarmStart => ops.push(per_pair_stage(stage)),
        ContactEvents => {
            if shape.events {
                for entry in ["contact_events", "contact_events_stopped"] {
                    ops.push(per_pair(stage, entry, shape.pair_capacity, 0));
                }
            }
        }
        JointSlots => {
            if shape.joints > 0 {
                if shape.joint_filter {
                    let entry = "joint_slots_filter";
                    ops.push(per_pair(stage, entry, shape.pair_capacity, 0));
                }
                ops.push(over(stage, shape.joints));
            }
        }
        Fracture => {
            if shape.fracture {
                for entry in ["fracture_mark", "fracture_record"] {
                    ops.push(per_pair(stage, entry, shape.pair_capacity, 0));
                }
            }
        }
        JointBreak => {
            if shape.joints > 0 {
                ops.push(over(stage, shape.joints));
            }
        }
        Colour => {
            let block_bins = if fused { 0 } else { shape.block_bins };
            colour_ops(shape.pair_capacity, block_bins, ops, listed);
        }
        SolvePrepare => ops.push(per_pair_stage(stage)),
        SolveWarmApply | SolveRestitution => sweep(stage, shape, ops),
        SolveContact => {
            // The fused entry runs the substep's warm start and every biased iteration.
            let contact_sweeps = if fused { 1 } else { shape.velocity_iterations };
            for _ in 0..contact_sweeps {
                sweep(stage, shape, ops);
            }
        }
        SolveRelax => {
            for _ in 0..sweeps(shape.relax_iterations) {
                sweep(stage, shape, ops);
            }
        }
        SolvePosition => {
            for _ in 0..sweeps(shape.position_iterations) {
                sweep(stage, shape, ops);
            }
        }
    }
}

/// The solver's part of the step, as (the ops from `warm_start` to `solve_prepare` that go
/// into the collide pass, those that go into the colour pass, the substeps and the finishing
/// sweeps without `sleep`), from the same [`stage_ops`] as [`step_plan`] (tests run them on
/// the GPU against [`solver::solve`]). The colour pass is empty unless the colouring runs in
/// rounds of passes: it then starts with the rounds over the manifolds still waiting after
/// [`solver::COLOUR_ROUNDS_OVER_ALL`], whose indirect arguments the copy before it brings.
pub fn solver_ops(shape: &StepShape) -> (Vec<StepOp>, Vec<StepOp>, Vec<StepOp>) {
    let (mut collide, mut colour, mut solve) = (Vec::new(), Vec::new(), Vec::new());
    let solver_stages = super::sequence(shape.substeps)
        .into_iter()
        .skip_while(|&s| s != RigidStage::WarmStart)
        .filter(|&s| s != RigidStage::Sleep);
    for stage in solver_stages {
        let ops = match (stage.part(), colour.is_empty()) {
            (StepPart::Collide, true) => &mut collide,
            (StepPart::Collide, false) => &mut colour,
            _ => &mut solve,
        };
        let mut listed = Vec::new();
        stage_ops(stage, shape, ops, &mut listed);
        colour.append(&mut listed);
    }
    (collide, colour, solve)
}
