//! The CPU step: `cpu_step` walks [`super::sequence`] and calls each stage's CPU twin with the
//! state it reads and writes, so the CPU order is the GPU's (both come from the one sequence;
//! `CpuRigid::trace` records what ran, which `tests/rigid_step.rs` compares with the GPU plan).
//! The solver's stages ([`SolveRun`]) also serve [`crate::rigid::solver::solve`], which runs
//! them on hand-built manifolds.

use super::{RigidStage, StepPart};
use crate::error::Result;
use crate::grid::{CpuGrid, GridSpec};
use crate::rigid::broad::{self, BroadPlan};
use crate::rigid::colour::Batches;
use crate::rigid::joint::solve as joint;
use crate::rigid::solver::{self, VelocitySet};
use crate::rigid::types::*;
use crate::rigid::world::RigidStepReport;
use crate::rigid::{ccd, forces, generators, integrate, narrow, sleep};
use glam::{UVec4, Vec4};

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
    /// The stages the last step ran, in order.
    pub(crate) trace: Vec<RigidStage>,
    /// The joints the last step broke, in index order.
    pub(crate) broken: Vec<u32>,
    /// The blocks the last step struck, in body order.
    pub(crate) fractures: Vec<crate::rigid::fracture::FractureEvent>,
    /// The contact events of the last step (`crate::rigid::events`), as the GPU words them.
    pub(crate) events: Vec<[u32; 2]>,
}

/// What one CPU step reads besides the world's arrays.
pub(crate) struct StepInputs<'a> {
    pub(crate) params: &'a GpuRigidParams,
    pub(crate) explosion: &'a GpuExplosion,
    pub(crate) spec: &'a GridSpec,
    pub(crate) plan: &'a BroadPlan,
    /// The world's hull store (`crate::rigid::hull`).
    pub(crate) hulls: &'a [UVec4],
    /// The joint filter's table (`joint::filter::build`).
    pub(crate) joint_filter: &'a [[u32; 4]],
    /// The force generators and their index (`generators::build_index`; empty: none).
    pub(crate) generators: (&'a [GpuForceGen], &'a [u32]),
    /// Whether contact events are on.
    pub(crate) events: bool,
}

/// One CPU step: every stage of [`super::sequence`], in order, by its CPU twin.
pub(crate) fn cpu_step(
    c: &mut CpuRigid,
    inputs: &StepInputs,
    bodies: &mut [GpuBody],
    shapes: &[GpuShape],
    joints: &mut [GpuJoint],
) -> Result<RigidStepReport> {
    let params = inputs.params;
    let live = joints.len().min(params.joint_count as usize);
    let joints = &mut joints[..live];
    let n_shapes = shapes.len();
    c.claims.resize(bodies.len(), 0);
    c.shape_pos.resize(n_shapes, Vec4::ZERO);
    c.shape_xf.resize(3 * n_shapes, Vec4::ZERO);
    c.trace.clear();
    c.broken.clear();
    c.fractures.clear();
    c.events.clear();
    let mut grid = None;
    let mut wanted = 0;
    let mut batches = None;
    let mut solve: Option<SolveRun> = None;
    let mut awake = 0;
    for stage in super::sequence(params.substeps) {
        c.trace.push(stage);
        match stage {
            RigidStage::StepStart => sleep::step_start(params, &mut c.claims),
            RigidStage::RigidForces => forces::rigid_forces(params, inputs.explosion, bodies),
            RigidStage::ShapeAabbs => broad::shape_aabbs(
                params,
                bodies,
                shapes,
                &inputs.plan.large,
                &mut c.shape_pos,
                &mut c.shape_xf,
            ),
            RigidStage::GridBuild => grid = Some(CpuGrid::build(&c.shape_pos, inputs.spec)?),
            RigidStage::Broad => {
                let input = broad::BroadInput {
                    bodies,
                    shapes,
                    shape_pos: &c.shape_pos,
                    shape_xf: &c.shape_xf,
                    shape_count: n_shapes as u32,
                    body_count: params.body_count,
                    margin: params.contact_margin,
                };
                if let Some(grid) = &grid {
                    let large = &inputs.plan.large;
                    wanted =
                        broad::broad_pairs(params, &input, large, grid, inputs.spec, &mut c.pairs);
                }
            }
            RigidStage::Narrow => {
                std::mem::swap(&mut c.manifolds, &mut c.prev);
                c.manifolds.clear();
                c.manifolds.resize(c.pairs.len(), GpuManifold::default());
                narrow::narrow(
                    params,
                    shapes,
                    bodies,
                    inputs.hulls,
                    &c.shape_pos,
                    &c.shape_xf,
                    &c.pairs,
                    &mut c.manifolds,
                );
            }
            RigidStage::JointSlots => {
                joint::slots_filter(joints, inputs.joint_filter, &mut c.manifolds);
                joint::slots(params, joints, &mut c.manifolds);
            }
            RigidStage::WakeMark => {
                let slots = c.manifolds.len() as u32;
                sleep::wake_mark(params, bodies, &c.manifolds, slots, &mut c.claims);
            }
            RigidStage::WakeApply => {
                sleep::wake_apply(params, bodies, &c.claims);
                if params.joint_count > 0 {
                    for _ in 0..sleep::WAKE_JOINT_ROUNDS {
                        sleep::wake_joints(params, bodies, joints, &mut c.claims);
                        sleep::wake_apply(params, bodies, &c.claims);
                    }
                }
            }
            RigidStage::WarmStart => solver::warm_start(params, &mut c.manifolds, &c.prev),
            RigidStage::ContactEvents => {
                if inputs.events {
                    crate::rigid::events::contact_events(&c.manifolds, &c.prev, &mut c.events);
                }
            }
            RigidStage::Colour => batches = Some(Batches::colour(params, bodies, &mut c.manifolds)),
            RigidStage::SolvePrepare => {
                c.rows.clear();
                c.rows.resize(
                    c.manifolds.len() * solver::solver_rows_per_manifold() as usize,
                    Vec4::ZERO,
                );
                solver::solve_prepare(params, bodies, &c.manifolds, &mut c.rows);
                if let Some(b) = batches.take() {
                    let mut run = SolveRun::new(params, b, bodies, &c.manifolds, &c.rows);
                    run.set.load_joints(joints);
                    solve = Some(run);
                }
            }
            RigidStage::Fracture => {
                if params.fracture != 0 {
                    c.fractures = crate::rigid::fracture::detect(bodies, &c.manifolds);
                }
            }
            RigidStage::JointBreak => {
                if let Some(run) = &solve {
                    run.set.store_joints(joints);
                }
                c.broken = joint::break_joints(params, joints, bodies, &mut c.claims);
            }
            RigidStage::Sleep => awake = sleep::sleep(params, bodies, &c.claims),
            // The bodies hold the substep's velocities here (the last substep's relax stored
            // them; `integrate_velocity` loads them into the solver's set after this).
            RigidStage::Generators => {
                let (gens, index) = inputs.generators;
                generators::generators(params, gens, index, bodies);
            }
            _ => {
                if let Some(run) = &mut solve {
                    run.stage(
                        stage,
                        bodies,
                        (shapes, inputs.hulls),
                        &mut c.manifolds,
                        &c.rows,
                    );
                }
            }
        }
    }
    let mut report = RigidStepReport {
        pairs: c.pairs.len() as u32,
        pairs_wanted: wanted,
        awake,
        joints_broken: c.broken.len() as u32,
        fractures: c.fractures.len() as u32,
        ..RigidStepReport::default()
    };
    if let Some(run) = &solve {
        let colouring = run.batches.colouring();
        report.manifolds = colouring.manifolds;
        report.colours = run.batches.colours();
        report.uncoloured = colouring.uncoloured;
        report.colours_wanted = colouring.colours_wanted;
        report.rounds = colouring.rounds;
        report.tail = colouring.tail;
    }
    Ok(report)
}

/// The solver's stages on the CPU after `solve_prepare`: the substep stages (integrate
/// velocity, warm start, the biased iterations, integrate position, ccd, the relax iterations)
/// and the finishing ones (restitution, the optional projection), each per-colour stage over
/// stage `colour`'s batches in order. The velocity stages run over a [`VelocitySet`], the
/// contacts copied once into the solver's order; what they derive from the poses is computed
/// whenever the poses change (the GPU recomputes it in every sweep; same operations, same
/// bits).
pub struct SolveRun {
    params: GpuRigidParams,
    batches: Batches,
    set: VelocitySet,
}

impl SolveRun {
    /// The run for one step, after `solve_prepare` wrote `rows`.
    pub fn new(
        params: &GpuRigidParams,
        batches: Batches,
        bodies: &[GpuBody],
        manifolds: &[GpuManifold],
        rows: &[Vec4],
    ) -> Self {
        let set = VelocitySet::new(params, batches.colouring(), bodies, manifolds, rows);
        Self {
            params: *params,
            batches,
            set,
        }
    }

    /// The batches the run sweeps.
    pub fn batches(&self) -> &Batches {
        &self.batches
    }

    /// Runs one substep or finishing stage (others are ignored). `shapes` (the shapes and the
    /// hull store) may be empty (no sweep for fast bodies).
    pub fn stage(
        &mut self,
        stage: RigidStage,
        bodies: &mut [GpuBody],
        shapes: (&[GpuShape], &[UVec4]),
        ms: &mut [GpuManifold],
        rows: &[Vec4],
    ) {
        let params = &self.params;
        let set = &mut self.set;
        let colouring = self.batches.colouring();
        let colours = 0..colouring.colour_count;
        match stage {
            RigidStage::IntegrateVelocity => {
                integrate::integrate_velocity(params, bodies);
                set.load_velocities(bodies);
            }
            RigidStage::SolveWarmApply => colours.for_each(|k| set.solve_warm_apply(params, k)),
            RigidStage::SolveContact => {
                for _ in 0..params.velocity_iterations {
                    for k in colours.clone() {
                        set.solve_contact(params, k);
                    }
                }
            }
            RigidStage::IntegratePosition => {
                set.store_velocities(bodies);
                integrate::integrate_position(params, bodies);
            }
            RigidStage::Ccd => {
                ccd::ccd(params, bodies, shapes.0, shapes.1);
                set.refresh_poses(bodies);
                set.load_velocities(bodies);
            }
            RigidStage::SolveRelax => {
                for _ in 0..params.relax_iterations {
                    match &self.batches {
                        // With blocks (solver::block), the batches are a bin's contacts of one
                        // colour, in bin order; a relax round sweeps each bin `block_sweeps`
                        // times before the next.
                        Batches::Blocks(b) => {
                            for (_, batches) in &b.bins {
                                for _ in 0..params.block_sweeps {
                                    for k in batches.clone() {
                                        set.solve_relax(params, k);
                                    }
                                }
                            }
                        }
                        Batches::Colours(_) => {
                            for k in colours.clone() {
                                set.solve_relax(params, k);
                            }
                        }
                    }
                }
                set.store_velocities(bodies);
            }
            RigidStage::SolveRestitution => {
                for k in colours {
                    set.solve_restitution(params, k);
                }
                set.store_velocities(bodies);
                set.store_impulses(ms);
            }
            RigidStage::SolvePosition => {
                for _ in 0..params.position_iterations {
                    for k in colours.clone() {
                        solver::solve_position(params, colouring, k, bodies, ms, rows);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The solver part of the CPU step on given batches, after `solve_prepare`: the substep and
/// finishing stages of [`super::sequence`] except `sleep`, by [`SolveRun`]. [`solver::solve`]
/// runs it on hand-built manifolds (tests); `shapes` may be empty there.
pub fn cpu_solve(
    params: &GpuRigidParams,
    batches: Batches,
    bodies: &mut [GpuBody],
    shapes: &[GpuShape],
    ms: &mut [GpuManifold],
    rows: &[Vec4],
) -> Batches {
    let mut run = SolveRun::new(params, batches, bodies, ms, rows);
    for stage in super::sequence(params.substeps) {
        if stage.part() != StepPart::Collide && stage != RigidStage::Sleep {
            run.stage(stage, bodies, (shapes, &[]), ms, rows);
        }
    }
    run.batches
}
