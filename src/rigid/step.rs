//! The rigid step as data: [`RigidStage`], the stages in execution order, and [`step_plan`], the
//! GPU step they make for a world's current sizes, grouped into compute passes (phases).
//!
//! This list is the one place the GPU order is written: the recorder
//! ([`super::gpu::GpuRigid::encode_step`]) turns it into cached pipelines and dispatches once per
//! change of sizes, [`StepPlan::dispatches`] and [`StepPlan::passes`] count it, and the CPU step
//! (`cpu_step` in `world.rs`) runs the same stages in the order [`RigidStage::ALL`] gives.
//!
//! Why phases: on a real GPU the host's cost of a compute pass (tens of microseconds in wgpu) is
//! larger than most rigid kernels, so every dispatch of a phase goes into one pass; wgpu keeps
//! their order and makes each see the writes of the ones before it. A phase ends only where a
//! copy must run between dispatches (the solver's indirect arguments, written by the colouring,
//! are copied to a buffer no kernel binds as writable storage).

use super::broad;
use super::gpu::PassDispatch;
use super::solver::{self, SolverDispatch};
use super::types::*;

/// The rigid stages, in the order a (sub)step runs them. Each has one name (see
/// [`RigidStage::name`]) shared by its WGSL entry points, the pipeline labels, the CPU twin and
/// its test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RigidStage {
    /// The explosion force generator (only while one is set).
    RigidForces,
    /// Forces → velocities (first half of the integrator).
    IntegrateVelocity,
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
    /// Anchors, effective masses and velocity targets per contact point.
    SolvePrepare,
    /// Applies the warm-start impulses, per colour.
    SolveWarmApply,
    /// Velocity iterations, per colour.
    SolveVelocity,
    /// Positions from the solved velocities (second half of the integrator).
    IntegratePosition,
    /// Sweeps fast spheres back to their time of impact.
    Ccd,
    /// Position iterations (the book's non-linear projection), per colour.
    SolvePosition,
    /// Recency-weighted motion and sleeping.
    Sleep,
}

impl RigidStage {
    /// Every stage, in execution order.
    pub const ALL: [RigidStage; 17] = [
        RigidStage::RigidForces,
        RigidStage::IntegrateVelocity,
        RigidStage::ShapeAabbs,
        RigidStage::GridBuild,
        RigidStage::Broad,
        RigidStage::Narrow,
        RigidStage::WakeMark,
        RigidStage::WakeApply,
        RigidStage::WarmStart,
        RigidStage::Colour,
        RigidStage::SolvePrepare,
        RigidStage::SolveWarmApply,
        RigidStage::SolveVelocity,
        RigidStage::IntegratePosition,
        RigidStage::Ccd,
        RigidStage::SolvePosition,
        RigidStage::Sleep,
    ];

    /// The stage's name: its CPU twin's function and the prefix of its WGSL entry points.
    pub fn name(self) -> &'static str {
        match self {
            RigidStage::RigidForces => "rigid_forces",
            RigidStage::IntegrateVelocity => "integrate_velocity",
            RigidStage::ShapeAabbs => "shape_aabbs",
            RigidStage::GridBuild => "grid_build",
            RigidStage::Broad => "broad",
            RigidStage::Narrow => "narrow",
            RigidStage::WakeMark => "wake_mark",
            RigidStage::WakeApply => "wake_apply",
            RigidStage::WarmStart => "warm_start",
            RigidStage::Colour => "colour",
            RigidStage::SolvePrepare => "solve_prepare",
            RigidStage::SolveWarmApply => "solve_warm_apply",
            RigidStage::SolveVelocity => "solve_velocity",
            RigidStage::IntegratePosition => "integrate_position",
            RigidStage::Ccd => "ccd",
            RigidStage::SolvePosition => "solve_position",
            RigidStage::Sleep => "sleep",
        }
    }

    /// The stage a solver entry point of [`solver::solver_gpu_passes`] belongs to.
    pub fn of_solver_entry(entry: &str) -> RigidStage {
        match entry {
            "warm_start" => RigidStage::WarmStart,
            "solve_prepare" => RigidStage::SolvePrepare,
            "solve_warm_apply" | "solve_warm_tail" => RigidStage::SolveWarmApply,
            "solve_velocity" | "solve_velocity_tail" | "solve_velocity_fused" => {
                RigidStage::SolveVelocity
            }
            "solve_position" | "solve_position_tail" | "solve_position_fused" => {
                RigidStage::SolvePosition
            }
            _ => RigidStage::Colour,
        }
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
    /// Velocity iterations per substep.
    pub velocity_iterations: u32,
    /// Position iterations per substep.
    pub position_iterations: u32,
    /// Colours the per-colour solver dispatches one by one.
    pub colour_passes: u32,
    /// Whether an explosion runs (adds `rigid_forces`).
    pub explosion: bool,
}

/// The GPU step for one [`StepShape`]: its phases in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepPlan {
    /// The shape it was made for.
    pub shape: StepShape,
    /// The compute passes, in order.
    pub phases: Vec<StepPhase>,
    grid_dispatches: u32,
}

impl StepPlan {
    /// Compute passes one step records.
    pub fn passes(&self) -> u32 {
        self.phases.len() as u32
    }

    /// Dispatches one step records (a grid build counts its own, `grid_dispatches` each).
    pub fn dispatches(&self) -> u32 {
        self.phases
            .iter()
            .flat_map(|p| &p.ops)
            .map(|op| match op {
                StepOp::Kernel { .. } => 1,
                StepOp::GridBuild { .. } => self.grid_dispatches,
            })
            .sum()
    }

    /// The stages in the order the plan first runs them (each once).
    pub fn stage_order(&self) -> Vec<RigidStage> {
        let mut order: Vec<RigidStage> = Vec::new();
        for op in self.phases.iter().flat_map(|p| &p.ops) {
            let stage = match op {
                StepOp::Kernel { stage, .. } => *stage,
                StepOp::GridBuild { .. } => RigidStage::GridBuild,
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

fn over(stage: RigidStage, threads: u32) -> StepOp {
    kernel(
        stage,
        stage.name(),
        PassDispatch::Direct(threads.div_ceil(RIGID_WG)),
        0,
    )
}

/// The GPU step for `shape`; `grid_dispatches` is what one grid build records (for counting).
///
/// Per substep: one phase `rigid_collide` from the integrator's first half through the
/// colouring and `solve_prepare` (with the fused solver of small scenes, the whole substep),
/// then, for scenes above [`solver::FUSED_MAX_MANIFOLDS`] pair slots, after the copy of the
/// indirect arguments the colouring wrote, one phase `rigid_solve` of the per-colour solver
/// passes, with `integrate_position` and `ccd` between the velocity and the position
/// iterations and `sleep` last (the order of `cpu_step`).
pub fn step_plan(shape: StepShape, grid_dispatches: u32) -> StepPlan {
    let params = GpuRigidParams {
        pair_capacity: shape.pair_capacity,
        velocity_iterations: shape.velocity_iterations,
        position_iterations: shape.position_iterations,
        colour_passes: shape.colour_passes,
        ..Default::default()
    };
    let solver_passes = solver::solver_gpu_passes(&params);
    let mut phases = Vec::new();
    for _ in 0..shape.substeps {
        let mut collide = Vec::new();
        if shape.explosion {
            collide.push(over(RigidStage::RigidForces, shape.bodies));
        }
        collide.push(over(RigidStage::IntegrateVelocity, shape.bodies));
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
        collide.push(over(RigidStage::Narrow, shape.pair_capacity));
        collide.push(over(RigidStage::WakeMark, shape.pair_capacity));
        collide.push(over(RigidStage::WakeApply, shape.bodies));
        let mut solve: Vec<StepOp> = Vec::new();
        let mut moved = false;
        let mut indirect = false;
        for p in &solver_passes {
            let stage = RigidStage::of_solver_entry(p.entry);
            if !moved && stage == RigidStage::SolvePosition {
                push_move(&mut solve, &mut collide, indirect, shape.bodies);
                moved = true;
            }
            let dispatch = match p.dispatch {
                SolverDispatch::Direct(n) => PassDispatch::Direct(n),
                SolverDispatch::Indirect { counter_word } => {
                    indirect = true;
                    PassDispatch::Indirect(counter_word as u32)
                }
            };
            let op = kernel(stage, p.entry, dispatch, p.pass_record);
            if indirect {
                solve.push(op);
            } else {
                collide.push(op);
            }
        }
        if !moved {
            push_move(&mut solve, &mut collide, indirect, shape.bodies);
        }
        let sleep = over(RigidStage::Sleep, shape.bodies);
        if indirect {
            solve.push(sleep);
        } else {
            collide.push(sleep);
        }
        phases.push(StepPhase {
            label: "wgphys:pass:rigid_collide",
            flip_manifolds: true,
            copy_indirect: false,
            ops: collide,
        });
        if !solve.is_empty() {
            phases.push(StepPhase {
                label: "wgphys:pass:rigid_solve",
                flip_manifolds: false,
                copy_indirect: true,
                ops: solve,
            });
        }
    }
    StepPlan {
        shape,
        phases,
        grid_dispatches,
    }
}

/// `integrate_position` and `ccd`, into the solve phase once the solver went indirect.
fn push_move(solve: &mut Vec<StepOp>, collide: &mut Vec<StepOp>, indirect: bool, bodies: u32) {
    let target = if indirect { solve } else { collide };
    target.push(over(RigidStage::IntegratePosition, bodies));
    target.push(over(RigidStage::Ccd, bodies));
}
