//! The rigid world: bodies and colliders in fixed slots (host tables rebuilt when they change),
//! and `step`, which runs the step of [`super::step`] on the chosen backend. Setting and pushing
//! bodies lives in `world/control.rs`, growing the slots in `world/capacity.rs`.

use super::broad::{self, BroadPlan};
use super::forces::Explosion;
use super::gpu::{GpuRigid, GpuRigidSizes};
use super::model::*;
pub use super::report::RigidStepReport;
use super::report::{report_from_counters, STATUS_BYTES};
use super::solver;
use super::step::cpu::StepInputs;
use super::step::{cpu_step, fused_solver, CpuRigid, StepPlan, StepShape};
use super::types::*;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::gpu::status::StatusRing;
use crate::grid::GridSpec;
use glam::{Vec3, Vec4, Vec4Swizzles};
use std::mem::offset_of;
use std::sync::atomic::{AtomicU32, Ordering};

mod capacity;
mod centre;
mod colliders;
mod config;
mod control;
mod device;
pub(crate) use device::ParticleTables;
mod events;
mod fracture;
mod generators;
mod hulls;
mod joints;
mod kinematic;
mod level;
mod queries;
mod query_grid;
mod reads;
mod render;
mod reports;
#[cfg(feature = "serde")]
mod save;
mod setters;
mod shape_cast;
mod timing;
use capacity::sizes;
use config::validate_config;
pub use fracture::Fracture;
use joints::JointTable;
pub use queries::{QueryFilter, QueryHit};
pub use render::RigidRenderBuffers;
pub use shape_cast::{ShapeCastHit, CAST_MAX_ITERATIONS, CAST_REL_TOLERANCE};

static NEXT_WORLD: AtomicU32 = AtomicU32::new(1);

struct GpuEngine {
    rigid: GpuRigid,
    /// Every step's counters, recorded by `step` or into a caller's encoder, read a frame or two
    /// late without blocking.
    status: StatusRing,
    /// [`RigidWorld::set_submit_by_phase`].
    submit_by_phase: bool,
    /// [`RigidWorld::set_block_staging`].
    block_staging: bool,
    /// [`RigidWorld::buffers_generation`].
    generation: u64,
}

enum Engine {
    Cpu(Box<CpuRigid>),
    Gpu(Box<GpuEngine>),
}

/// Rigid bodies with colliders, contacts, friction and sleeping (book Parts III–V), on the GPU
/// or on the CPU twin.
pub struct RigidWorld {
    config: RigidConfig,
    tag: u32,
    engine: Engine,
    /// Host copy of the bodies. Authoritative on the CPU; on the GPU it holds what the host last
    /// wrote or read, and edits are written field by field so GPU state is never overwritten.
    bodies: Vec<GpuBody>,
    /// Body slots given a force or torque since the last step: on the GPU the host copy clears
    /// only these after recording a step (clearing every body's accumulators cost 2.7 ms of
    /// host time a step at 100k bodies).
    forced: Vec<usize>,
    generations: Vec<u32>,
    alive: Vec<bool>,
    free_bodies: Vec<u32>,
    body_shapes: Vec<Vec<u32>>,
    shapes: Vec<GpuShape>,
    /// The hulls the shapes name (`world/hulls.rs`).
    hulls: hulls::WorldHulls,
    free_shapes: Vec<u32>,
    /// Each shape slot's generation, raised when its collider is removed, so a
    /// [`ColliderHandle`] of a removed collider is refused (`world/colliders.rs`).
    shape_generations: Vec<u32>,
    /// Each shape slot's part in its body's mass (`rigid::mass`).
    shape_mass: Vec<crate::rigid::mass::ShapeMass>,
    /// What the user set of each body slot's mass properties (`rigid::mass`).
    mass_specs: Vec<crate::rigid::mass::MassSpec>,
    /// Each body slot's centre of mass in its frame (`world/centre.rs`): the record's position
    /// is the centre's and its shapes' offsets are taken from it (zero for static and kinematic
    /// bodies and free slots).
    centres: Vec<Vec3>,
    /// `centres` as the body snapshots share it, rebuilt when a centre changed (`None`); empty
    /// while every centre is zero.
    centres_shared: Option<std::sync::Arc<[Vec3]>>,
    /// Shapes that are boxes or capsules of CCD bodies (see [`StepShape::ccd_convex`]), kept by
    /// `add_body` and `remove_body`: a body's CCD flag is set only when it is made.
    ccd_convex_shapes: u32,
    plan: BroadPlan,
    plan_dirty: bool,
    steps: u64,
    report: RigidStepReport,
    explosion: Option<(Explosion, f32)>,
    body_capacity: u32,
    shape_capacity: u32,
    pair_capacity: u32,
    /// Large shapes the broad phase's scratch is sized for.
    large_capacity: u32,
    /// Colour slots the solver dispatches per sweep: `RigidConfig::colour_slots`, grown by
    /// `auto_grow` when the tail holds too much.
    colour_slots: u32,
    /// The step that first ran with the current `colour_slots` (a GPU report is a step or two
    /// old: only one of a later step says whether the slots are enough).
    colour_slots_since: u64,
    /// The joints (`world/joints.rs`).
    joints: JointTable,
    /// The force generators (`world/generators.rs`).
    generators: generators::GeneratorTable,
    /// Breakable bodies and their splits (`world/fracture.rs`).
    fracture: fracture::Fractures,
    /// The body ring and the newest bodies read (`world/reads.rs`).
    reads: reads::BodyReads,
    /// Impulses for the next step (`world/setters.rs`).
    impulses: Vec<setters::Impulse>,
    /// Contact events (`world/events.rs`).
    events: events::ContactEvents,
    /// Kinematic targets (`world/kinematic.rs`).
    kinematic: kinematic::KinematicTargets,
    /// The host's scene-query index (`world/query_grid.rs`).
    query_cache: queries::QueryCache,
    /// Advanced whenever the host's bodies or shapes change (the query index's key).
    query_epoch: u64,
}

fn grid_spec(cell_size: f32, shape_capacity: u32) -> Result<GridSpec> {
    GridSpec::new(
        cell_size,
        // At most 2^31 before rounding up, so the power of two cannot overflow.
        shape_capacity
            .max(1)
            .saturating_mul(2)
            .min(1 << 31)
            .next_power_of_two()
            .max(64),
    )
}

impl RigidWorld {
    /// Builds an empty world.
    ///
    /// # Errors
    /// [`Error::InvalidCapacity`] for a zero body capacity, [`Error::InvalidInput`] for bad
    /// configuration values, GPU errors from creating buffers.
    pub fn new(backend: Backend, config: RigidConfig) -> Result<Self> {
        if config.body_capacity == 0 {
            return Err(Error::InvalidCapacity {
                capacity: 0,
                reason: "a rigid world needs at least one body slot".into(),
            });
        }
        validate_config(&config)?;
        let body_capacity = config.body_capacity;
        let shape_capacity = if config.shape_capacity == 0 {
            body_capacity.saturating_mul(2)
        } else {
            config.shape_capacity
        };
        let pair_capacity = if config.pair_capacity == 0 {
            shape_capacity.saturating_mul(8)
        } else {
            config.pair_capacity
        };
        let plan = BroadPlan {
            cell_size: 1.0,
            large: Vec::new(),
        };
        if let Backend::Gpu(ctx) = &backend {
            // One colour of manifolds must fit one dispatch (see `max_pairs`).
            let groups = ctx.device.limits().max_compute_workgroups_per_dimension;
            let most = u64::from(groups) * u64::from(RIGID_WG);
            if u64::from(pair_capacity) > most {
                return Err(Error::InvalidCapacity {
                    capacity: pair_capacity,
                    reason: format!(
                        "pair_capacity (or 8 per shape slot when it is 0) above {most}: the \
                         solver dispatches one workgroup per {RIGID_WG} contact manifolds of \
                         a colour and this device allows {groups} workgroups per dispatch; set \
                         RigidConfig::pair_capacity to at most {most}"
                    ),
                });
            }
        }
        let engine = match backend {
            Backend::Cpu => Engine::Cpu(Box::default()),
            Backend::Gpu(ctx) => Engine::Gpu(Box::new(GpuEngine {
                rigid: ctx.checked("a rigid world", || {
                    ctx.require("a rigid world", &super::gpu::kernel_needs()?)?;
                    GpuRigid::new(
                        &ctx,
                        sizes(
                            body_capacity,
                            shape_capacity,
                            pair_capacity,
                            plan.cell_size,
                            0,
                            block_bins(&config, body_capacity),
                            (config.joint_capacity, config.generator_capacity),
                        )?,
                    )
                })?,
                status: StatusRing::new("rigid_status"),
                submit_by_phase: ctx.submits_overlap(),
                block_staging: false,
                generation: 0,
            })),
        };
        Ok(Self {
            colour_slots: config.colour_slots,
            colour_slots_since: 0,
            joints: JointTable::new(config.joint_capacity),
            generators: generators::GeneratorTable::new(config.generator_capacity),
            fracture: fracture::Fractures::default(),
            reads: reads::BodyReads::new(),
            impulses: Vec::new(),
            events: events::ContactEvents::default(),
            kinematic: kinematic::KinematicTargets::default(),
            query_cache: queries::QueryCache::default(),
            query_epoch: 0,
            config,
            tag: NEXT_WORLD.fetch_add(1, Ordering::Relaxed),
            engine,
            bodies: Vec::new(),
            generations: Vec::new(),
            alive: Vec::new(),
            free_bodies: Vec::new(),
            body_shapes: Vec::new(),
            shapes: Vec::new(),
            hulls: hulls::WorldHulls::default(),
            free_shapes: Vec::new(),
            shape_generations: Vec::new(),
            shape_mass: Vec::new(),
            mass_specs: Vec::new(),
            centres: Vec::new(),
            centres_shared: None,
            ccd_convex_shapes: 0,
            plan,
            plan_dirty: true,
            forced: Vec::new(),
            steps: 0,
            report: RigidStepReport::default(),
            explosion: None,
            body_capacity,
            shape_capacity,
            pair_capacity,
            large_capacity: 0,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &RigidConfig {
        &self.config
    }

    /// Live bodies.
    pub fn len(&self) -> usize {
        self.alive.iter().filter(|&&a| a).count()
    }

    /// Whether the world has no bodies.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Body slots in use (live or freed), the `n` of [`RigidWorld::read_bodies`].
    pub fn slots(&self) -> u32 {
        self.bodies.len() as u32
    }

    /// Colour slots the solver dispatches per sweep now (`RigidConfig::colour_slots`, one more
    /// with `auto_grow` each time a step's tail held more than
    /// [`solver::TAIL_MAX_MANIFOLDS`] contacts).
    pub fn colour_slots(&self) -> u32 {
        self.colour_slots
    }

    /// Pair slots now: `RigidConfig::pair_capacity`, or more after `auto_grow` or
    /// [`RigidWorld::grow_pairs`]. The manifolds have these and one slot per joint slot
    /// ([`RigidWorld::joint_capacity`]).
    pub fn pair_capacity(&self) -> u32 {
        self.pair_capacity
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Adds a body with its colliders. Everything is validated before anything changes.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for bad values (non-finite numbers, zero or negative sizes or
    /// mass, zero quaternion, singular inertia, a plane on a moving body);
    /// [`Error::Full`] when the world is full and `auto_grow` is off.
    pub fn add_body(&mut self, body: RigidBody, colliders: &[Collider]) -> Result<BodyHandle> {
        self.on_device("adding a rigid body", |w| {
            w.add_body_unguarded(body, colliders)
        })
    }

    fn add_body_unguarded(
        &mut self,
        body: RigidBody,
        colliders: &[Collider],
    ) -> Result<BodyHandle> {
        let (mut record, centre) =
            body.to_gpu(colliders, self.config.gravity, self.config.sleep_epsilon)?;
        let index = match self.free_bodies.last() {
            Some(&i) => i,
            None => self.bodies.len() as u32,
        };
        let mut gpu_shapes = colliders
            .iter()
            .map(|c| c.to_gpu(index, body.kind))
            .collect::<Result<Vec<_>>>()?;
        for s in &mut gpu_shapes {
            s.offset_pos -= centre.extend(0.0);
        }
        self.hulls.check(colliders)?;
        let need_bodies = if self.free_bodies.is_empty() {
            self.bodies.len() as u32 + 1
        } else {
            self.bodies.len() as u32
        };
        let reuse = self.free_shapes.len().min(gpu_shapes.len());
        let need_shapes = self.shapes.len() as u32 + (gpu_shapes.len() - reuse) as u32;
        self.ensure_capacity(need_bodies, need_shapes)?;
        self.hulls.store(colliders, &mut gpu_shapes)?;
        if let Engine::Gpu(g) = &mut self.engine {
            self.hulls.upload(&mut g.rigid)?;
        }
        self.free_bodies.pop();
        if body.kind == BodyKind::Static {
            record.awake = 0;
        }
        let spec = body.mass_spec()?;
        let shape_ids: Vec<u32> = gpu_shapes
            .into_iter()
            .zip(colliders)
            .map(|(s, c)| self.fill_shape_slot(s, c.mass_part()))
            .collect();
        let burst = body.breaking.map(|(_, burst)| burst);
        let slot = index as usize;
        if self.fracture.burst.len() <= slot {
            self.fracture.burst.resize(slot + 1, None);
        }
        self.fracture.burst[slot] = burst;
        self.ccd_convex_shapes += self.ccd_convex_count(&record, &shape_ids);
        if index as usize == self.bodies.len() {
            self.bodies.push(record);
            self.generations.push(0);
            self.alive.push(true);
            self.body_shapes.push(shape_ids.clone());
            self.mass_specs.push(spec);
            self.centres.push(Vec3::ZERO);
        } else {
            let i = index as usize;
            self.bodies[i] = record;
            self.generations[i] = self.generations[i].wrapping_add(1);
            self.alive[i] = true;
            self.body_shapes[i] = shape_ids.clone();
            self.mass_specs[i] = spec;
        }
        self.set_centre_slot(slot, centre);
        self.plan_dirty = true;
        self.query_epoch = self.query_epoch.wrapping_add(1);
        if let Engine::Gpu(g) = &mut self.engine {
            let r = &g.rigid;
            r.write_at(&r.bodies, body_offset(index), &[record]);
            for &id in &shape_ids {
                r.write_at(&r.shapes, shape_offset(id), &[self.shapes[id as usize]]);
            }
        }
        Ok(BodyHandle {
            index,
            generation: self.generations[index as usize],
            world: self.tag,
        })
    }

    fn check(&self, h: BodyHandle) -> Result<usize> {
        let i = h.index as usize;
        if h.world == self.tag
            && i < self.alive.len()
            && self.alive[i]
            && self.generations[i] == h.generation
        {
            Ok(i)
        } else {
            Err(Error::StaleHandle {
                kind: "rigid body",
                id: h.index,
            })
        }
    }

    /// Whether `h` names a live body of this world.
    pub fn contains(&self, h: BodyHandle) -> bool {
        self.check(h).is_ok()
    }

    /// Removes a body, its colliders, and the joints and force generators attached to it
    /// (their handles, and its colliders' [`ColliderHandle`]s, go stale); its slot is reused by a later `add_body`.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed body or another world's handle.
    pub fn remove_body(&mut self, h: BodyHandle) -> Result<()> {
        let i = self.check(h)?;
        let gone = self.ccd_convex_count(&self.bodies[i], &self.body_shapes[i]);
        self.ccd_convex_shapes = self.ccd_convex_shapes.saturating_sub(gone);
        self.alive[i] = false;
        self.free_bodies.push(i as u32);
        let removed = GpuBody {
            kind: body_kind::STATIC,
            awake: 0,
            ..Default::default()
        };
        self.bodies[i] = removed;
        self.remove_joints_of(i as u32);
        self.remove_generators_of(i as u32);
        if let Some(b) = self.fracture.burst.get_mut(i) {
            *b = None;
        }
        self.mass_specs[i] = Default::default();
        self.set_centre_slot(i, Vec3::ZERO);
        let ids = std::mem::take(&mut self.body_shapes[i]);
        for &id in &ids {
            self.free_shape_slot(id);
        }
        self.plan_dirty = true;
        self.query_epoch = self.query_epoch.wrapping_add(1);
        if let Engine::Gpu(g) = &mut self.engine {
            let r = &g.rigid;
            r.write_at(&r.bodies, body_offset(i as u32), &[removed]);
            for &id in &ids {
                r.write_at(&r.shapes, shape_offset(id), &[self.shapes[id as usize]]);
            }
        }
        Ok(())
    }

    fn params(&self, dt: f32) -> GpuRigidParams {
        let c = &self.config;
        let sub_dt = dt / c.substeps as f32;
        GpuRigidParams {
            dt: sub_dt,
            body_count: self.bodies.len() as u32,
            shape_count: self.shapes.len() as u32,
            pair_capacity: self.slot_capacity(),
            velocity_iterations: c.velocity_iterations,
            position_iterations: c.position_iterations,
            large_count: self.plan.large.len() as u32,
            combine_friction: c.combine_friction.code(),
            combine_restitution: c.combine_restitution.code(),
            restitution_cutoff: c.restitution_cutoff,
            inv_cell_size: 1.0 / self.plan.cell_size,
            table_mask: grid_spec(self.plan.cell_size, self.shape_capacity)
                .map(|s| s.table_mask())
                .unwrap_or(0),
            contact_margin: c.contact_margin,
            angular_limit: c.angular_limit,
            position_relax: c.position_relax,
            position_slop: c.position_slop,
            sleep_epsilon: c.sleep_epsilon,
            // The sleep stage runs once per step, after the substeps.
            sleep_bias: c.sleep_base_bias.powf(dt),
            step: self.steps as u32,
            warm_start: u32::from(c.warm_start),
            substeps: c.substeps,
            // With blocks, a relax iteration is a round of `block_sweeps` sweeps per block; a
            // scene small enough for the fused solver runs as many whole sweeps instead.
            relax_iterations: if c.block_cells > 0 && !self.blocks_run() {
                c.relax_iterations * c.block_sweeps
            } else {
                c.relax_iterations
            },
            colour_slots: self.colour_slots,
            inv_dt: 1.0 / sub_dt,
            soft: solver::soft_contact(
                c.contact_hertz,
                c.contact_damping_ratio,
                c.max_push_out,
                sub_dt,
            ),
            soft_static: solver::soft_contact(
                2.0 * c.contact_hertz,
                c.contact_damping_ratio,
                c.max_push_out,
                sub_dt,
            ),
            block_shift: if self.blocks_run() {
                c.block_cells.trailing_zeros()
            } else {
                0
            },
            block_bins: block_bins(c, self.body_capacity),
            block_sweeps: c.block_sweeps,
            joint_count: self.joints.slots(),
            joint_capacity: self.joints.capacity,
            joint_filter_size: self.joints.filter.len() as u32,
            fracture: u32::from(self.fracture.any()),
            _pad2: 0,
            joint_soft: super::joint::solve::soft(
                c.joint_hertz,
                c.joint_damping_ratio,
                sub_dt,
                1.0 / sub_dt,
            ),
        }
    }

    fn replan(&mut self) -> Result<()> {
        if !self.plan_dirty {
            return Ok(());
        }
        let plan = broad::plan_grid(&self.shapes, self.config.contact_margin);
        let large_capacity =
            broad::large_capacity_hint(self.shape_capacity).max(self.large_capacity);
        let cell_changed =
            plan.cell_size != self.plan.cell_size || plan.large.len() as u32 > large_capacity;
        self.large_capacity = large_capacity.max(plan.large.len() as u32);
        self.plan = plan;
        self.plan_dirty = false;
        let at = self.current_sizes()?;
        if let Engine::Gpu(g) = &mut self.engine {
            if cell_changed {
                let n = (self.bodies.len(), self.joints.slots() as usize);
                capacity::rebuild(g, n, &self.shapes, at)?;
                self.joints.filter_dirty = true;
            }
            // The large list heads `pair_scratch` (see shaders/rigid/broad.wgsl).
            g.rigid.write(&g.rigid.pair_scratch, &self.plan.large);
        }
        Ok(())
    }

    /// Advances the world by `dt` seconds: the stages listed in [`super`], in order, `substeps`
    /// times. On the GPU nothing is read back; the report comes from the counters a frame or two
    /// late.
    ///
    /// # Errors
    /// [`Error::InvalidTimeStep`] for a dt that is not positive and finite; GPU errors.
    pub fn step(&mut self, dt: f32) -> Result<RigidStepReport> {
        self.advance(dt, None)
    }

    /// Records one step of `dt` seconds into the caller's `encoder` (GPU) without submitting,
    /// so a renderer can put the physics and its own passes into one submission; several
    /// steps may be recorded into one encoder.
    ///
    /// On the CPU backend, `encode_step` runs the step at once, exactly as `step` does, and
    /// leaves the encoder alone; it returns the same report.
    ///
    /// The step's parameters and the edits made before it (bodies added, removed or set) are
    /// recorded into `encoder` as copies ahead of the step's passes, so any number of steps and
    /// edits recorded into one encoder run in the order they were made, as the same `step()`
    /// calls would. Each encoded step also copies its counters into the world's status ring,
    /// mapped when the encoder's submission is done: the report returned is the newest that has
    /// landed (a frame or two old, as [`RigidWorld::step`]'s), and with `auto_grow` a report of
    /// overflowing pairs grows the pair buffer, so a renderer that only encodes loses no pair
    /// for more than a few frames and is told when it does.
    ///
    /// # Errors
    /// As [`RigidWorld::step`].
    pub fn encode_step(
        &mut self,
        dt: f32,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<RigidStepReport> {
        self.advance(dt, Some(encoder))
    }

    fn advance(
        &mut self,
        dt: f32,
        encoder: Option<&mut wgpu::CommandEncoder>,
    ) -> Result<RigidStepReport> {
        match &self.engine {
            Engine::Gpu(g) => {
                let ctx = g.rigid.ctx.clone();
                ctx.guard("a rigid step", || self.advance_unguarded(dt, encoder))
            }
            Engine::Cpu(_) => self.advance_unguarded(dt, encoder),
        }
    }

    fn advance_unguarded(
        &mut self,
        dt: f32,
        encoder: Option<&mut wgpu::CommandEncoder>,
    ) -> Result<RigidStepReport> {
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(Error::InvalidTimeStep(dt));
        }
        self.impulses_to_forces(dt);
        self.kinematic_to_velocities(dt);
        self.replan()?;
        self.upload_joint_filter();
        self.upload_generators();
        let params = self.params(dt);
        let shape = self.step_shape();
        self.steps += 1;
        let explosion = match &mut self.explosion {
            Some((e, t)) => {
                let g = e.to_gpu(*t)?;
                *t += dt;
                g
            }
            None => GpuExplosion::default(),
        };
        // Which body each slot holds as the step's copy of the bodies is recorded (GPU).
        let gpu = matches!(self.engine, Engine::Gpu(_));
        let slots = (gpu && self.reads.wanted()).then(|| self.slots_now());
        let landed = match &mut self.engine {
            Engine::Cpu(c) => {
                let spec = grid_spec(self.plan.cell_size, self.shape_capacity)?;
                let _rounding = crate::rounding::scope(self.config.cpu_rounding);
                let inputs = StepInputs {
                    params: &params,
                    explosion: &explosion,
                    spec: &spec,
                    plan: &self.plan,
                    hulls: self.hulls.words(),
                    joint_filter: &self.joints.filter,
                    generators: (&self.generators.records, &self.generators.index),
                    events: self.events.on,
                };
                let joints = &mut self.joints.table;
                let mut report = cpu_step(c, &inputs, &mut self.bodies, &self.shapes, joints)?;
                self.query_epoch = self.query_epoch.wrapping_add(1);
                report.step = self.steps;
                let broken = std::mem::take(&mut c.broken);
                self.joints.note_broken(&broken, self.tag);
                self.fracture
                    .note_events(self.steps, std::mem::take(&mut c.fractures));
                let events = std::mem::take(&mut c.events);
                self.events.note(self.steps, events.into_iter());
                vec![report]
            }
            Engine::Gpu(g) => {
                let step = self.steps;
                let mut own = None;
                let submits = encoder.is_none();
                let encoder = match encoder {
                    Some(encoder) => encoder,
                    None => own.insert(g.rigid.ctx.device.create_command_encoder(
                        &wgpu::CommandEncoderDescriptor {
                            label: Some("wgphys:rigid_step"),
                        },
                    )),
                };
                gpu_encode(g, &params, &explosion, shape, encoder, step, submits)?;
                if let Some(slots) = slots {
                    self.reads.record(&g.rigid, encoder, step, slots);
                }
                if let Some(encoder) = own {
                    g.rigid.ctx.queue.submit([encoder.finish()]);
                }
                self.reads.poll(&g.rigid.ctx.device, self.tag);
                // The sleep stage clears the accumulators on the device; mirror that.
                for &i in &self.forced {
                    if let Some(b) = self.bodies.get_mut(i) {
                        b.force = Vec4::ZERO;
                        b.torque = Vec4::ZERO;
                    }
                }
                self.forced.clear();
                return self.poll_reports();
            }
        };
        self.forced.clear();
        self.take_reports(landed)?;
        self.split_struck()?;
        Ok(self.report)
    }

    /// Whether this step's sweeps run block by block: blocks are on and the world has more pair
    /// slots than the one-workgroup solver takes (`step::block_solver` reads the same from the
    /// parameters this sets).
    fn blocks_run(&self) -> bool {
        self.config.block_cells > 0 && !fused_solver(self.slot_capacity())
    }

    /// Manifold slots: the pair slots and one per joint slot.
    fn slot_capacity(&self) -> u32 {
        self.pair_capacity.saturating_add(self.joints.capacity)
    }

    /// The shapes among `ids` that are boxes or capsules, if `body` has the CCD flag (see
    /// [`StepShape::ccd_convex`]).
    fn ccd_convex_count(&self, body: &GpuBody, ids: &[u32]) -> u32 {
        if body.flags & super::ccd::CCD_FLAG == 0 {
            return 0;
        }
        ids.iter()
            .filter_map(|&id| self.shapes.get(id as usize))
            .filter(|s| s.kind == shape_kind::BOX || s.kind == shape_kind::CAPSULE)
            .count() as u32
    }

    /// Runs `f` inside the device's error scopes on the GPU ([`crate::gpu::GpuContext::guard`]),
    /// so that a device error while `f` creates, writes or reads the engine's buffers (a lost
    /// device, a buffer the device could not allocate) is an [`Error::Gpu`] naming `what`, not
    /// wgpu's panic.
    fn on_device<T>(&mut self, what: &str, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        match &self.engine {
            Engine::Gpu(g) => {
                let ctx = g.rigid.ctx.clone();
                ctx.guard(what, || f(self))
            }
            Engine::Cpu(_) => f(self),
        }
    }

    /// Sets off an explosion now (catalogue §14.3), replacing any running one; `None` stops it.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for bad explosion parameters.
    pub fn set_explosion(&mut self, explosion: Option<Explosion>) -> Result<()> {
        if let Some(e) = &explosion {
            e.to_gpu(0.0)?;
        }
        self.explosion = explosion.map(|e| (e, 0.0));
        Ok(())
    }

    /// The GPU backend with its writers (engine internals, tests and tools); a renderer binds
    /// [`RigidWorld::render_buffers`] instead. `None` on the CPU.
    #[doc(hidden)]
    pub fn gpu(&self) -> Option<&GpuRigid> {
        match &self.engine {
            Engine::Gpu(g) => Some(&g.rigid),
            Engine::Cpu(_) => None,
        }
    }

    /// Casts a ray against every collider (on the host copy of the bodies: call
    /// [`RigidWorld::read_bodies`] first on the GPU if they moved).
    ///
    /// Build the ray with [`super::ray::Ray::new`], which refuses bad input.
    pub fn cast_ray(&self, ray: &super::ray::Ray) -> Option<super::ray::RayHit> {
        super::ray::cast_ray(ray, &self.shapes, &self.bodies, self.hulls.words())
    }
}

fn body_offset(i: u32) -> u64 {
    u64::from(i) * std::mem::size_of::<GpuBody>() as u64
}

fn shape_offset(i: u32) -> u64 {
    u64::from(i) * std::mem::size_of::<GpuShape>() as u64
}

/// Bins per partition of the block solver for `bodies` body slots (0 with blocks off).
fn block_bins(c: &RigidConfig, bodies: u32) -> u32 {
    if c.block_cells > 0 {
        solver::block::bins_for(bodies)
    } else {
        0
    }
}

/// Records step `step` (all substeps) into `encoder` from the cached plan for `shape`, then the
/// copy of its counters into the status ring, mapped when `encoder` is submitted. `own`: the
/// world's own step, whose phases go to the GPU as they are recorded (when the world submits by
/// phase).
fn gpu_encode(
    g: &mut GpuEngine,
    params: &GpuRigidParams,
    explosion: &GpuExplosion,
    shape: StepShape,
    encoder: &mut wgpu::CommandEncoder,
    step: u64,
    own: bool,
) -> Result<()> {
    let r = &mut g.rigid;
    r.write(&r.params, &[*params]);
    r.write(&r.explosion, &[*explosion]);
    if own && g.submit_by_phase {
        r.submit_step_by_phase(encoder, shape)?;
    } else {
        r.encode_step(encoder, shape)?;
    }
    let counters = &r.counters;
    g.status.record(
        &r.ctx.device,
        encoder,
        step,
        0,
        STATUS_BYTES,
        |encoder, slot| encoder.copy_buffer_to_buffer(counters, 0, slot, 0, STATUS_BYTES),
    );
    Ok(())
}
