//! The rigid step as data: [`RigidStage`], the stages in execution order, and [`sequence`], the
//! order one step runs them in (the substep stages repeated). That order is written once, here:
//! the GPU step ([`plan`]: [`step_plan`] groups the stages' dispatches into compute passes,
//! which the recorder, [`super::gpu::GpuRigid::encode_step`], caches) and the CPU step
//! ([`cpu`]: `cpu_step` calls each stage's twin) both walk [`sequence`], and
//! `tests/rigid_step.rs` checks that the two ran the same stages in the same order.

pub mod cpu;
pub mod plan;

pub use cpu::{cpu_solve, SolveRun};
pub(crate) use cpu::{cpu_step, CpuRigid};
pub use plan::*;

/// The three parts of a step (Box2D v3's soft step): collide once, substep the solver, finish.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepPart {
    /// Once per step, before the substeps: forces, collision detection, waking, the
    /// colouring and the solver's preparation.
    Collide,
    /// `substeps` times: force generators, integrate, solve, integrate, sweep, relax.
    Substep,
    /// Once per step, after the substeps: restitution, the optional projection, sleeping.
    Finish,
}

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
    /// A manifold slot per joint after the contacts (so the colouring and the sweeps take
    /// joints with contacts), and the contacts between bodies a joint keeps apart emptied.
    JointSlots,
    /// Marks sleepers that awake bodies press on.
    WakeMark,
    /// Wakes the marked bodies.
    WakeApply,
    /// Last step's accumulated impulses, matched by feature.
    WarmStart,
    /// The shape pairs whose contact started or stopped this step (only while contact events
    /// are on): `contact_events`, `contact_events_stopped`.
    ContactEvents,
    /// Greedy colouring into independent batches.
    Colour,
    /// Anchors, effective masses and start velocities per contact point.
    SolvePrepare,
    /// Substep: the force generators (springs, aerodynamic surfaces, buoyancy) → velocities
    /// (only while some generator is attached).
    Generators,
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
    /// Once per step: breakable bodies struck past their breaking impulse, listed for the host
    /// to split (`fracture_mark`, `fracture_record`).
    Fracture,
    /// Once per step: each joint's force and torque, and the breakable ones past their
    /// threshold broken.
    JointBreak,
    /// Once per step: clears the force accumulators, recency-weighted motion and sleeping.
    Sleep,
}

impl RigidStage {
    /// Every stage, in execution order (the substep stages once).
    pub const ALL: [RigidStage; 25] = [
        RigidStage::StepStart,
        RigidStage::RigidForces,
        RigidStage::ShapeAabbs,
        RigidStage::GridBuild,
        RigidStage::Broad,
        RigidStage::Narrow,
        RigidStage::JointSlots,
        RigidStage::WakeMark,
        RigidStage::WakeApply,
        RigidStage::WarmStart,
        RigidStage::ContactEvents,
        RigidStage::Colour,
        RigidStage::SolvePrepare,
        RigidStage::Generators,
        RigidStage::IntegrateVelocity,
        RigidStage::SolveWarmApply,
        RigidStage::SolveContact,
        RigidStage::IntegratePosition,
        RigidStage::Ccd,
        RigidStage::SolveRelax,
        RigidStage::SolveRestitution,
        RigidStage::SolvePosition,
        RigidStage::Fracture,
        RigidStage::JointBreak,
        RigidStage::Sleep,
    ];

    /// Which part of the step the stage belongs to.
    pub fn part(self) -> StepPart {
        use RigidStage::*;
        match self {
            Generators | IntegrateVelocity | SolveWarmApply | SolveContact | IntegratePosition
            | Ccd | SolveRelax => StepPart::Substep,
            SolveRestitution | SolvePosition | Fracture | JointBreak | Sleep => StepPart::Finish,
            _ => StepPart::Collide,
        }
    }

    /// The stage's name: its CPU twin's function and the prefix of its WGSL entry points.
    pub fn name(self) -> &'static str {
        match self {
            RigidStage::StepStart => "step_start",
            RigidStage::RigidForces => "rigid_forces",
            RigidStage::ShapeAabbs => "shape_aabbs",
            RigidStage::GridBuild => "grid_build",
            RigidStage::Broad => "broad",
            RigidStage::Narrow => "narrow",
            RigidStage::JointSlots => "joint_slots",
            RigidStage::WakeMark => "wake_mark",
            RigidStage::WakeApply => "wake_apply",
            RigidStage::WarmStart => "warm_start",
            RigidStage::ContactEvents => "contact_events",
            RigidStage::Colour => "colour",
            RigidStage::SolvePrepare => "solve_prepare",
            RigidStage::Generators => "generators",
            RigidStage::IntegrateVelocity => "integrate_velocity",
            RigidStage::SolveWarmApply => "solve_warm_apply",
            RigidStage::SolveContact => "solve_contact",
            RigidStage::IntegratePosition => "integrate_position",
            RigidStage::Ccd => "ccd",
            RigidStage::SolveRelax => "solve_relax",
            RigidStage::SolveRestitution => "solve_restitution",
            RigidStage::SolvePosition => "solve_position",
            RigidStage::Fracture => "fracture",
            RigidStage::JointBreak => "joint_break",
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

/// The stages one step runs, in order: the collide stages, the substep stages `substeps` times
/// (at least once), then the finishing stages. The one source of the step's order for both
/// backends.
pub fn sequence(substeps: u32) -> Vec<RigidStage> {
    let part = |p: StepPart| RigidStage::ALL.into_iter().filter(move |s| s.part() == p);
    let mut out: Vec<RigidStage> = part(StepPart::Collide).collect();
    for _ in 0..substeps.max(1) {
        out.extend(part(StepPart::Substep));
    }
    out.extend(part(StepPart::Finish));
    out
}
