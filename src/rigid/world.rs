//! The rigid world: bodies and colliders in fixed slots (host tables rebuilt when they change),
//! and `step`, a flat list of stages run on the chosen backend.

use super::broad::{self, BroadPlan};
use super::explosion::Explosion;
use super::gpu::{GpuRigid, GpuRigidSizes};
use super::model::*;
use super::step::{StepPlan, StepShape};
use super::types::*;
use super::{ccd, cpu, narrow, solver};
use crate::error::{Error, Result};
use crate::grid::{CpuGrid, GridSpec};
use crate::particles::Backend;
use glam::{Vec3, Vec4, Vec4Swizzles};
use std::mem::offset_of;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

static NEXT_WORLD: AtomicU32 = AtomicU32::new(1);

/// What a step did, from the counters. On the GPU these are read back asynchronously, so a
/// report describes a step a frame or two old ([`StepReport::step`] says which); the CPU's
/// describe the step just taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepReport {
    /// The step (1-based) these counts describe; 0 before the first report arrives.
    pub step: u64,
    /// Shape pairs the broad phase kept.
    pub pairs: u32,
    /// Shape pairs it found; more than `pairs` means the pair buffer overflowed (and was grown
    /// when `auto_grow` is on; the lost pairs are found again next step).
    pub pairs_wanted: u32,
    /// Manifolds with at least one contact point.
    pub manifolds: u32,
    /// Solver colours used.
    pub colours: u32,
    /// Manifolds the colouring could not place within `MAX_COLOURS` (solved serially).
    pub uncoloured: u32,
    /// The colours the colouring asked for (first fit): above `MAX_COLOURS − 1` when some body
    /// had more contacts than the independent colours separate.
    pub colours_wanted: u32,
    /// Colouring rounds that coloured something.
    pub rounds: u32,
    /// Dynamic bodies awake after the step.
    pub awake: u32,
    /// Manifolds that needed solving but got no colour, so were not solved this step. Always 0
    /// on the CPU, and on the GPU unless a colouring kernel was cut short: software adapters
    /// stop very long shader loops, which is why scenes above
    /// [`solver::COLOUR_FUSED_MAX_MANIFOLDS`] pair slots colour in rounds of passes.
    pub unsolved: u32,
}

impl StepReport {
    /// A sentence naming the knob to raise, when something overflowed.
    pub fn advice(&self) -> Option<String> {
        if self.pairs_wanted > self.pairs {
            return Some(format!(
                "the broad phase found {} pairs but holds {}: raise RigidConfig::pair_capacity \
                 (or keep auto_grow on)",
                self.pairs_wanted, self.pairs
            ));
        }
        (self.unsolved > 0).then(|| {
            format!(
                "{} manifolds were not solved (a GPU colouring kernel was cut short): lower \
                 RigidConfig::pair_capacity to what the scene needs, split the scene into \
                 smaller worlds, or use a hardware adapter",
                self.unsolved
            )
        })
    }
}

/// The CPU backend's working arrays.
#[derive(Default)]
struct CpuRigid {
    shape_pos: Vec<Vec4>,
    shape_xf: Vec<Vec4>,
    pairs: Vec<[u32; 2]>,
    manifolds: Vec<GpuManifold>,
    prev: Vec<GpuManifold>,
    claims: Vec<u32>,
    rows: Vec<Vec4>,
}

struct StatusSlot {
    buffer: wgpu::Buffer,
    ready: Arc<AtomicBool>,
    step: Option<u64>,
    mapping: bool,
}

struct GpuEngine {
    rigid: GpuRigid,
    status: Vec<StatusSlot>,
    /// Colours the per-colour solver path dispatches one by one (the rest go to one tail pass),
    /// see [`colour_passes_for`]; changes dispatch counts, never results.
    colour_passes: u32,
    /// The adapter is a CPU (lavapipe, llvmpipe).
    software: bool,
}

/// Colours dispatched one by one before the first status report arrives.
const INITIAL_COLOUR_PASSES: u32 = 12;

/// Colours the per-colour solver path dispatches one by one, given the colours a recent step
/// asked for (`None` before any report): those, on a hardware adapter, so a sweep costs one
/// dispatch per colour in use instead of `MAX_COLOURS`. Software adapters get every colour slot:
/// on lavapipe (Mesa 22.3) a 5k-box pyramid stepped 2–4× slower with the colours in use plus
/// the tail pass than with all 32 colour passes, most of them empty, for a reason inside the
/// driver that we did not pin down.
fn colour_passes_for(software: bool, wanted: Option<u32>) -> u32 {
    match (software, wanted) {
        (true, _) => MAX_COLOURS,
        (false, None) => INITIAL_COLOUR_PASSES,
        (false, Some(w)) => w.clamp(1, solver::SEQUENTIAL_COLOUR),
    }
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
    generations: Vec<u32>,
    alive: Vec<bool>,
    free_bodies: Vec<u32>,
    body_shapes: Vec<Vec<u32>>,
    shapes: Vec<GpuShape>,
    free_shapes: Vec<u32>,
    plan: BroadPlan,
    plan_dirty: bool,
    steps: u64,
    report: StepReport,
    explosion: Option<(Explosion, f32)>,
    body_capacity: u32,
    shape_capacity: u32,
    pair_capacity: u32,
    /// Large shapes the broad phase's scratch is sized for.
    large_capacity: u32,
}

fn grid_spec(cell_size: f32, shape_capacity: u32) -> Result<GridSpec> {
    GridSpec::new(
        cell_size,
        (2 * shape_capacity.max(1)).next_power_of_two().max(64),
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
            2 * body_capacity
        } else {
            config.shape_capacity
        };
        let pair_capacity = if config.pair_capacity == 0 {
            8 * shape_capacity
        } else {
            config.pair_capacity
        };
        let plan = BroadPlan {
            cell_size: 1.0,
            large: Vec::new(),
        };
        let engine = match backend {
            Backend::Cpu => Engine::Cpu(Box::default()),
            Backend::Gpu(ctx) => {
                let software = ctx.info.device_type == wgpu::DeviceType::Cpu;
                Engine::Gpu(Box::new(GpuEngine {
                    rigid: GpuRigid::new(
                        &ctx,
                        sizes(
                            body_capacity,
                            shape_capacity,
                            pair_capacity,
                            plan.cell_size,
                            0,
                        )?,
                    )?,
                    status: Vec::new(),
                    colour_passes: colour_passes_for(software, None),
                    software,
                }))
            }
        };
        Ok(Self {
            config,
            tag: NEXT_WORLD.fetch_add(1, Ordering::Relaxed),
            engine,
            bodies: Vec::new(),
            generations: Vec::new(),
            alive: Vec::new(),
            free_bodies: Vec::new(),
            body_shapes: Vec::new(),
            shapes: Vec::new(),
            free_shapes: Vec::new(),
            plan,
            plan_dirty: true,
            steps: 0,
            report: StepReport::default(),
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
        let mut record = body.to_gpu(colliders, self.config.gravity, self.config.sleep_epsilon)?;
        let index = match self.free_bodies.last() {
            Some(&i) => i,
            None => self.bodies.len() as u32,
        };
        let gpu_shapes = colliders
            .iter()
            .map(|c| c.to_gpu(index, body.kind))
            .collect::<Result<Vec<_>>>()?;
        let need_bodies = if self.free_bodies.is_empty() {
            self.bodies.len() as u32 + 1
        } else {
            self.bodies.len() as u32
        };
        let reuse = self.free_shapes.len().min(gpu_shapes.len());
        let need_shapes = self.shapes.len() as u32 + (gpu_shapes.len() - reuse) as u32;
        self.ensure_capacity(need_bodies, need_shapes)?;
        self.free_bodies.pop();
        if body.kind == BodyKind::Static {
            record.awake = 0;
        }
        let mut shape_ids = Vec::with_capacity(gpu_shapes.len());
        for s in gpu_shapes {
            let id = match self.free_shapes.pop() {
                Some(id) => {
                    self.shapes[id as usize] = s;
                    id
                }
                None => {
                    self.shapes.push(s);
                    self.shapes.len() as u32 - 1
                }
            };
            shape_ids.push(id);
        }
        if index as usize == self.bodies.len() {
            self.bodies.push(record);
            self.generations.push(0);
            self.alive.push(true);
            self.body_shapes.push(shape_ids.clone());
        } else {
            let i = index as usize;
            self.bodies[i] = record;
            self.generations[i] = self.generations[i].wrapping_add(1);
            self.alive[i] = true;
            self.body_shapes[i] = shape_ids.clone();
        }
        self.plan_dirty = true;
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
            Err(Error::StaleHandle(h.index))
        }
    }

    /// Whether `h` names a live body of this world.
    pub fn contains(&self, h: BodyHandle) -> bool {
        self.check(h).is_ok()
    }

    /// Removes a body and its colliders; its slot is reused by a later `add_body`.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed body or another world's handle.
    pub fn remove_body(&mut self, h: BodyHandle) -> Result<()> {
        let i = self.check(h)?;
        self.alive[i] = false;
        self.free_bodies.push(i as u32);
        let removed = GpuBody {
            kind: body_kind::STATIC,
            awake: 0,
            ..Default::default()
        };
        self.bodies[i] = removed;
        let ids = std::mem::take(&mut self.body_shapes[i]);
        for &id in &ids {
            self.shapes[id as usize] = GpuShape {
                body: NONE,
                ..Default::default()
            };
            self.free_shapes.push(id);
        }
        self.plan_dirty = true;
        if let Engine::Gpu(g) = &mut self.engine {
            let r = &g.rigid;
            r.write_at(&r.bodies, body_offset(i as u32), &[removed]);
            for &id in &ids {
                r.write_at(&r.shapes, shape_offset(id), &[self.shapes[id as usize]]);
            }
        }
        Ok(())
    }

    /// Writes one field of body `i` on both the host copy and (on the GPU) the device.
    fn write_field<T: bytemuck::Pod>(&mut self, i: usize, offset: usize, value: T) {
        let bytes = bytemuck::bytes_of_mut(&mut self.bodies[i]);
        bytes[offset..offset + std::mem::size_of::<T>()]
            .copy_from_slice(bytemuck::bytes_of(&value));
        if let Engine::Gpu(g) = &self.engine {
            g.rigid.write_at(
                &g.rigid.bodies,
                body_offset(i as u32) + offset as u64,
                &[value],
            );
        }
    }

    fn wake_index(&mut self, i: usize) {
        if self.bodies[i].kind == body_kind::DYNAMIC {
            self.write_field(i, offset_of!(GpuBody, awake), 1u32);
            let motion = 2.0 * self.config.sleep_epsilon;
            self.write_field(i, offset_of!(GpuBody, last_acc) + 12, motion);
        }
    }

    /// Wakes a sleeping body (the book's setAwake(true)).
    ///
    /// # Errors
    /// [`Error::StaleHandle`].
    pub fn wake(&mut self, h: BodyHandle) -> Result<()> {
        let i = self.check(h)?;
        self.wake_index(i);
        Ok(())
    }

    /// Sets a body's linear velocity and wakes it.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite velocity.
    pub fn set_linear_velocity(&mut self, h: BodyHandle, v: Vec3) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("linear velocity", v)?;
        self.write_field(i, offset_of!(GpuBody, lin_vel), v);
        self.wake_index(i);
        Ok(())
    }

    /// Sets a body's angular velocity (world) and wakes it.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite velocity.
    pub fn set_angular_velocity(&mut self, h: BodyHandle, w: Vec3) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("angular velocity", w)?;
        self.write_field(i, offset_of!(GpuBody, ang_vel), w);
        self.wake_index(i);
        Ok(())
    }

    /// Moves a body (teleport) and wakes it.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite position.
    pub fn set_position(&mut self, h: BodyHandle, p: Vec3) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("position", p)?;
        self.write_field(i, offset_of!(GpuBody, pos), p);
        self.wake_index(i);
        Ok(())
    }

    /// Adds a force through the centre of mass for the next step, and wakes the body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite force.
    pub fn add_force(&mut self, h: BodyHandle, f: Vec3) -> Result<()> {
        self.add_force_at_point(h, f, None)
    }

    /// Adds a force at a world point (force plus the torque (p − centre) × f) for the next step,
    /// and wakes the body. On the GPU the body's position is the host's last known one (the
    /// last `read_bodies`, or where it was added) — read first if it moved far.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for non-finite input.
    pub fn add_force_at_point(
        &mut self,
        h: BodyHandle,
        f: Vec3,
        point: Option<Vec3>,
    ) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("force", f)?;
        let torque = match point {
            Some(p) => {
                crate::error::finite3("force point", p)?;
                (p - self.bodies[i].pos.xyz()).cross(f)
            }
            None => Vec3::ZERO,
        };
        let force = self.bodies[i].force + f.extend(0.0);
        let torque = self.bodies[i].torque + torque.extend(0.0);
        self.write_field(i, offset_of!(GpuBody, force), force);
        self.write_field(i, offset_of!(GpuBody, torque), torque);
        self.wake_index(i);
        Ok(())
    }

    /// Adds a force (world direction) at a point given in the body's own frame, for the next
    /// step, and wakes the body (the book's addForceAtBodyPoint). On the GPU the body's pose is
    /// the host's last known one, as for [`RigidWorld::add_force_at_point`].
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for non-finite input.
    pub fn add_force_at_body_point(
        &mut self,
        h: BodyHandle,
        f: Vec3,
        body_point: Vec3,
    ) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("body point", body_point)?;
        let b = self.bodies[i];
        let world = b.pos.xyz() + super::math::quat_rotate(b.orient, body_point);
        self.add_force_at_point(h, f, Some(world))
    }

    /// Adds a torque (world) for the next step, and wakes the body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite torque.
    pub fn add_torque(&mut self, h: BodyHandle, t: Vec3) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("torque", t)?;
        let torque = self.bodies[i].torque + t.extend(0.0);
        self.write_field(i, offset_of!(GpuBody, torque), torque);
        self.wake_index(i);
        Ok(())
    }

    fn ensure_capacity(&mut self, bodies: u32, shapes: u32) -> Result<()> {
        if bodies <= self.body_capacity && shapes <= self.shape_capacity {
            return Ok(());
        }
        if !self.config.auto_grow {
            let (what, capacity) = if bodies > self.body_capacity {
                (
                    "rigid bodies (RigidConfig::body_capacity)",
                    self.body_capacity,
                )
            } else {
                (
                    "rigid shapes (RigidConfig::shape_capacity)",
                    self.shape_capacity,
                )
            };
            return Err(Error::Full { what, capacity });
        }
        let body_capacity = self.body_capacity.max(bodies.next_power_of_two());
        let shape_capacity = self.shape_capacity.max(shapes.next_power_of_two());
        let pair_capacity = self
            .pair_capacity
            .max(shape_capacity.saturating_mul(4).min(self.max_pairs()));
        self.regrow(body_capacity, shape_capacity, pair_capacity)
    }

    /// Rebuilds the GPU buffers at new sizes, carrying the state over (a blocking readback;
    /// growth is rare).
    fn regrow(
        &mut self,
        body_capacity: u32,
        shape_capacity: u32,
        pair_capacity: u32,
    ) -> Result<()> {
        if let Engine::Gpu(g) = &mut self.engine {
            let n = self.bodies.len();
            let bodies: Vec<GpuBody> = g.rigid.read(&g.rigid.bodies, n)?;
            let mut fresh = g.rigid.resized(sizes(
                body_capacity,
                shape_capacity,
                pair_capacity,
                self.plan.cell_size,
                self.plan.large.len() as u32,
            )?)?;
            fresh.write(&fresh.bodies, &bodies);
            fresh.write(&fresh.shapes, &self.shapes);
            // The counters describe the last step (its report, the previous pair count); the
            // manifolds and their warm-start impulses start afresh at the new size.
            let mut counters: Vec<u32> = g.rigid.read(&g.rigid.counters, counter::LEN)?;
            counters[solver::COUNTER_PREV_PAIRS] = 0;
            fresh.write(&fresh.counters, &counters);
            fresh.timing = g.rigid.timing.take();
            g.rigid = fresh;
            g.status.clear();
            self.bodies = bodies;
            self.plan_dirty = true;
        }
        self.body_capacity = body_capacity;
        self.shape_capacity = shape_capacity;
        self.pair_capacity = pair_capacity;
        Ok(())
    }

    /// Grows the pair (and manifold) buffers to at least `pairs` slots (rounded up to a
    /// multiple of 4096 where the device can bind that many).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when the device cannot bind `pairs` manifolds or their solver
    /// rows (the message names the limit); GPU errors from creating buffers.
    pub fn grow_pairs(&mut self, pairs: u32) -> Result<()> {
        if pairs > self.pair_capacity {
            let rounded = pairs.div_ceil(4096).saturating_mul(4096);
            let target = rounded.min(self.max_pairs()).max(pairs);
            self.regrow(self.body_capacity, self.shape_capacity, target)?;
        }
        Ok(())
    }

    /// The most pair slots this world's device can bind: the manifolds and the solver rows
    /// of every slot must fit one storage binding (`u32::MAX` on the CPU).
    pub fn max_pairs(&self) -> u32 {
        match &self.engine {
            Engine::Cpu(_) => u32::MAX,
            Engine::Gpu(g) => {
                let per_slot = (std::mem::size_of::<GpuManifold>() as u64)
                    .max(16 * u64::from(solver::solver_rows_per_manifold()));
                u32::try_from(g.rigid.ctx.max_binding_bytes() / per_slot).unwrap_or(u32::MAX)
            }
        }
    }

    fn params(&self, dt: f32) -> GpuRigidParams {
        let c = &self.config;
        let sub_dt = dt / c.substeps as f32;
        GpuRigidParams {
            dt: sub_dt,
            body_count: self.bodies.len() as u32,
            shape_count: self.shapes.len() as u32,
            pair_capacity: self.pair_capacity,
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
            relax_iterations: c.relax_iterations,
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
            ..Default::default()
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
        if let Engine::Gpu(g) = &mut self.engine {
            if cell_changed {
                let bodies: Vec<GpuBody> = g.rigid.read(&g.rigid.bodies, self.bodies.len())?;
                let mut fresh = g.rigid.resized(sizes(
                    self.body_capacity,
                    self.shape_capacity,
                    self.pair_capacity,
                    self.plan.cell_size,
                    self.large_capacity,
                )?)?;
                fresh.write(&fresh.bodies, &bodies);
                fresh.write(&fresh.shapes, &self.shapes);
                let mut counters: Vec<u32> = g.rigid.read(&g.rigid.counters, counter::LEN)?;
                counters[solver::COUNTER_PREV_PAIRS] = 0;
                fresh.write(&fresh.counters, &counters);
                fresh.timing = g.rigid.timing.take();
                g.rigid = fresh;
                g.status.clear();
                self.bodies = bodies;
            }
            g.rigid.write(&g.rigid.large, &self.plan.large);
        }
        Ok(())
    }

    /// Advances the world by `dt` seconds: the stages listed in [`super`], in order, `substeps`
    /// times. On the GPU nothing is read back; the report comes from the counters a frame or two
    /// late.
    ///
    /// # Errors
    /// [`Error::InvalidTimeStep`] for a dt that is not positive and finite; GPU errors.
    pub fn step(&mut self, dt: f32) -> Result<StepReport> {
        self.advance(dt, None)
    }

    /// Records one step of `dt` seconds into the caller's `encoder` (GPU) without submitting,
    /// so a renderer can put the physics and its own passes into one submission; several
    /// steps may be recorded into one encoder. On the CPU backend the step runs now and the
    /// encoder is left alone.
    ///
    /// The step's parameters reach the GPU by `queue.write_buffer`, which lands at the next
    /// submit, before any command of it: steps recorded into one encoder share the values the
    /// last of them wrote. Those values are the same for every step except a running
    /// explosion's clock, so while an explosion runs, submit after each recorded step. Encoded
    /// steps copy no counters for [`RigidWorld::report`]; call [`RigidWorld::read_report`]
    /// after the submit to see them.
    ///
    /// # Errors
    /// As [`RigidWorld::step`].
    pub fn encode_step(&mut self, dt: f32, encoder: &mut wgpu::CommandEncoder) -> Result<()> {
        self.advance(dt, Some(encoder)).map(|_| ())
    }

    fn advance(
        &mut self,
        dt: f32,
        encoder: Option<&mut wgpu::CommandEncoder>,
    ) -> Result<StepReport> {
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(Error::InvalidTimeStep(dt));
        }
        self.replan()?;
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
        let report = match &mut self.engine {
            Engine::Cpu(c) => {
                let spec = grid_spec(self.plan.cell_size, self.shape_capacity)?;
                let mut report = cpu_step(
                    c,
                    &params,
                    &explosion,
                    &spec,
                    &self.plan,
                    &mut self.bodies,
                    &self.shapes,
                )?;
                report.step = self.steps;
                report
            }
            Engine::Gpu(g) => {
                let params = GpuRigidParams {
                    colour_passes: g.colour_passes,
                    ..params
                };
                match encoder {
                    Some(encoder) => gpu_encode(g, &params, &explosion, shape, encoder, None)?,
                    None => {
                        let mut encoder = g.rigid.ctx.device.create_command_encoder(
                            &wgpu::CommandEncoderDescriptor {
                                label: Some("wgphys:rigid_step"),
                            },
                        );
                        gpu_encode(
                            g,
                            &params,
                            &explosion,
                            shape,
                            &mut encoder,
                            Some(self.steps),
                        )?;
                        g.rigid.ctx.queue.submit([encoder.finish()]);
                    }
                }
                for b in &mut self.bodies {
                    // The sleep stage clears the accumulators on the device; mirror that.
                    b.force = Vec4::ZERO;
                    b.torque = Vec4::ZERO;
                }
                match poll_status(g) {
                    Some(r) => {
                        g.colour_passes = colour_passes_for(g.software, Some(r.colours_wanted));
                        r
                    }
                    None => self.report,
                }
            }
        };
        self.report = report;
        if report.pairs_wanted > report.pairs && self.config.auto_grow {
            // Half as much again for the pile to settle into, within what the device binds.
            let wanted = report.pairs_wanted;
            let roomy = wanted.saturating_add(wanted / 2).min(self.max_pairs());
            self.grow_pairs(roomy.max(wanted))?;
        }
        Ok(report)
    }

    /// What the GPU step's plan depends on, at the current sizes.
    fn step_shape(&self) -> StepShape {
        let c = &self.config;
        StepShape {
            bodies: self.bodies.len() as u32,
            shapes: self.shapes.len() as u32,
            large: self.plan.large.len() as u32,
            pair_capacity: self.pair_capacity,
            substeps: c.substeps,
            velocity_iterations: c.velocity_iterations,
            relax_iterations: c.relax_iterations,
            position_iterations: c.position_iterations,
            colour_passes: match &self.engine {
                Engine::Gpu(g) => g.colour_passes,
                Engine::Cpu(_) => MAX_COLOURS,
            },
            explosion: self.explosion.is_some(),
        }
    }

    /// The GPU step the next [`RigidWorld::step`] records at the current sizes: its compute
    /// passes and dispatches in order (see [`super::step`]); `None` on the CPU.
    pub fn step_plan(&self) -> Option<StepPlan> {
        match &self.engine {
            Engine::Gpu(g) => Some(g.rigid.plan(self.step_shape())),
            Engine::Cpu(_) => None,
        }
    }

    /// Compute dispatches one [`RigidWorld::step`] records on the GPU, all substeps together,
    /// counted from [`RigidWorld::step_plan`]. Above [`solver::FUSED_MAX_MANIFOLDS`] pair slots
    /// the solver dispatches, per iteration, one indirect pass for each of the colours recent
    /// steps asked for (reported a frame or two late) and one indirect tail pass that runs only
    /// when a later colour has manifolds. Describes the next step at the current sizes; `None`
    /// on the CPU.
    pub fn dispatches_per_step(&self) -> Option<u32> {
        self.step_plan().map(|p| p.dispatches())
    }

    /// Compute passes one [`RigidWorld::step`] records on the GPU (one per phase); `None` on
    /// the CPU.
    pub fn passes_per_step(&self) -> Option<u32> {
        self.step_plan().map(|p| p.passes())
    }

    /// The newest step report.
    pub fn report(&self) -> StepReport {
        self.report
    }

    /// The report of the step just taken, read back now (blocking on the GPU; tests and tools).
    ///
    /// # Errors
    /// GPU readback errors.
    pub fn read_report(&mut self) -> Result<StepReport> {
        if let Engine::Gpu(g) = &self.engine {
            let words: Vec<u32> = g.rigid.read(&g.rigid.counters, counter::INDIRECT)?;
            self.report = report_from_counters(self.steps, &words);
        }
        Ok(self.report)
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

    /// Reads every body slot (blocking on the GPU), in slot order; see [`BodyHandle::index`].
    ///
    /// # Errors
    /// GPU readback errors.
    pub fn read_bodies(&mut self) -> Result<Vec<GpuBody>> {
        if let Engine::Gpu(g) = &self.engine {
            self.bodies = g.rigid.read(&g.rigid.bodies, self.bodies.len())?;
        }
        Ok(self.bodies.clone())
    }

    /// A body's state: position, orientation (x, y, z, w), velocities and whether it is awake
    /// (blocking on the GPU).
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; GPU readback errors.
    pub fn body(&mut self, h: BodyHandle) -> Result<GpuBody> {
        let i = self.check(h)?;
        if let Engine::Gpu(g) = &self.engine {
            let all: Vec<GpuBody> = g.rigid.read(&g.rigid.bodies, i + 1)?;
            if let Some(b) = all.get(i) {
                self.bodies[i] = *b;
            }
        }
        Ok(self.bodies[i])
    }

    /// The shape table, in slot order (kind 0 marks a free slot).
    pub fn shapes(&self) -> &[GpuShape] {
        &self.shapes
    }

    /// The manifolds of the last step and their count (blocking on the GPU).
    ///
    /// # Errors
    /// GPU readback errors.
    pub fn read_manifolds(&mut self) -> Result<Vec<GpuManifold>> {
        match &self.engine {
            Engine::Cpu(c) => Ok(c.manifolds.clone()),
            Engine::Gpu(g) => {
                let counters: Vec<u32> = g.rigid.read(&g.rigid.counters, counter::LEN)?;
                let n = counters[counter::PAIRS].min(self.pair_capacity) as usize;
                g.rigid.read(g.rigid.current_manifolds(), n)
            }
        }
    }

    /// Turns on GPU timestamps for [`RigidWorld::last_step_gpu_ms`] and
    /// [`RigidWorld::last_step_phase_ms`]; false on the CPU or when the adapter has no
    /// timestamp queries.
    pub fn enable_gpu_timing(&mut self) -> bool {
        match &mut self.engine {
            Engine::Gpu(g) => g.rigid.enable_timing(),
            Engine::Cpu(_) => false,
        }
    }

    /// GPU time of the last step in ms, the sum of its phases (blocking; for benchmarks).
    ///
    /// # Errors
    /// [`Error::NeedsGpu`] on the CPU, [`Error::Unsupported`] without timing, [`Error::Gpu`].
    pub fn last_step_gpu_ms(&self) -> Result<f64> {
        Ok(self.last_step_phase_ms()?.iter().map(|(_, ms)| ms).sum())
    }

    /// GPU time of each phase (compute pass) of the last step in ms, labelled as its pass
    /// (`wgphys:pass:rigid_collide`, `wgphys:pass:rigid_solve`); blocking, for benchmarks.
    ///
    /// # Errors
    /// As [`RigidWorld::last_step_gpu_ms`].
    pub fn last_step_phase_ms(&self) -> Result<Vec<(&'static str, f64)>> {
        match &self.engine {
            Engine::Gpu(g) => g.rigid.last_step_phase_ms(),
            Engine::Cpu(_) => Err(Error::NeedsGpu("last_step_gpu_ms")),
        }
    }

    /// The GPU backend, for binding its buffers in a renderer (`bodies`, `shapes`) or recording
    /// into your own encoder; `None` on the CPU.
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
        super::ray::cast_ray(ray, &self.shapes, &self.bodies)
    }
}

fn validate_config(c: &RigidConfig) -> Result<()> {
    use crate::error::{finite3, non_negative, positive};
    finite3("gravity", c.gravity)?;
    if c.substeps == 0 || c.velocity_iterations == 0 {
        return Err(Error::InvalidInput {
            what: "substeps / velocity_iterations",
            value: format!("{} / {}", c.substeps, c.velocity_iterations),
            fix: "use at least one substep and one velocity iteration",
        });
    }
    positive("contact_hertz", c.contact_hertz)?;
    non_negative("contact_damping_ratio", c.contact_damping_ratio)?;
    positive("max_push_out", c.max_push_out)?;
    non_negative("restitution_cutoff", c.restitution_cutoff)?;
    non_negative("contact_margin", c.contact_margin)?;
    positive("angular_limit", c.angular_limit)?;
    non_negative("position_slop", c.position_slop)?;
    non_negative("sleep_epsilon", c.sleep_epsilon)?;
    if !(c.position_relax > 0.0 && c.position_relax <= 1.0) {
        return Err(Error::InvalidInput {
            what: "position_relax",
            value: format!("{}", c.position_relax),
            fix: "pass a fraction in (0, 1]",
        });
    }
    if !(c.sleep_base_bias > 0.0 && c.sleep_base_bias < 1.0) {
        return Err(Error::InvalidInput {
            what: "sleep_base_bias",
            value: format!("{}", c.sleep_base_bias),
            fix: "pass a weight in (0, 1); the book suggests 0.5 to 0.8",
        });
    }
    Ok(())
}

fn body_offset(i: u32) -> u64 {
    u64::from(i) * std::mem::size_of::<GpuBody>() as u64
}

fn shape_offset(i: u32) -> u64 {
    u64::from(i) * std::mem::size_of::<GpuShape>() as u64
}

fn sizes(
    bodies: u32,
    shapes: u32,
    pairs: u32,
    cell_size: f32,
    large: u32,
) -> Result<GpuRigidSizes> {
    let large = large.max(broad::large_capacity_hint(shapes)).min(shapes);
    Ok(GpuRigidSizes {
        bodies,
        shapes,
        pairs,
        solver_words: u64::from(pairs) * u64::from(solver::solver_rows_per_manifold()),
        pair_scratch_words: broad::pair_scratch_words(shapes, large),
        grid: grid_spec(cell_size, shapes)?,
    })
}

/// One CPU step: the stages of [`super::step::step_plan`], in the same order and with the same
/// names (the collide stages once, the solver's substeps, then the finishing stages).
fn cpu_step(
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
    super::explosion::rigid_forces(params, explosion, bodies);
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
    let colouring = solver::colour(bodies, &mut c.manifolds);
    c.rows.clear();
    c.rows.resize(
        c.manifolds.len() * solver::solver_rows_per_manifold() as usize,
        Vec4::ZERO,
    );
    solver::solve_prepare(params, bodies, &c.manifolds, &mut c.rows);
    let colours = 0..colouring.colour_count;
    let (ms, rows) = (&mut c.manifolds, &mut c.rows);
    // The substeps.
    for _ in 0..params.substeps.max(1) {
        cpu::integrate_velocity(params, bodies);
        for k in colours.clone() {
            solver::solve_warm_apply(&colouring, k, bodies, ms, rows);
        }
        for _ in 0..params.velocity_iterations {
            for k in colours.clone() {
                solver::solve_contact(params, &colouring, k, bodies, ms, rows);
            }
        }
        cpu::integrate_position(params, bodies);
        ccd::ccd(params, bodies, shapes);
        for _ in 0..params.relax_iterations {
            for k in colours.clone() {
                solver::solve_relax(params, &colouring, k, bodies, ms, rows);
            }
        }
    }
    // Finish, once per step.
    for k in colours.clone() {
        solver::solve_restitution(params, &colouring, k, bodies, ms, rows);
    }
    for _ in 0..params.position_iterations {
        for k in colours.clone() {
            solver::solve_position(params, &colouring, k, bodies, ms, rows);
        }
    }
    let awake = cpu::sleep(params, bodies);
    Ok(StepReport {
        step: 0,
        pairs: pair_count,
        pairs_wanted: wanted,
        manifolds: colouring.manifolds,
        colours: colouring.colour_count,
        uncoloured: colouring.uncoloured,
        colours_wanted: colouring.colours_wanted,
        rounds: colouring.rounds,
        awake,
        unsolved: 0,
    })
}

/// Records one step (all substeps) into `encoder` from the cached plan for `shape`; with
/// `status`, also copies this step's counters into a free status slot, mapped later without
/// blocking.
fn gpu_encode(
    g: &mut GpuEngine,
    params: &GpuRigidParams,
    explosion: &GpuExplosion,
    shape: StepShape,
    encoder: &mut wgpu::CommandEncoder,
    status: Option<u64>,
) -> Result<()> {
    let r = &mut g.rigid;
    r.write(&r.params, &[*params]);
    r.write(&r.explosion, &[*explosion]);
    r.encode_step(encoder, shape)?;
    let Some(step) = status else {
        return Ok(());
    };
    let slot = match g.status.iter().position(|s| s.step.is_none()) {
        Some(i) => Some(i),
        None if g.status.len() < 3 => {
            g.status.push(StatusSlot {
                buffer: r.ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("wgphys:buffer:rigid_status"),
                    size: STATUS_BYTES,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                ready: Arc::new(AtomicBool::new(false)),
                step: None,
                mapping: false,
            });
            Some(g.status.len() - 1)
        }
        None => None,
    };
    if let Some(i) = slot {
        encoder.copy_buffer_to_buffer(&r.counters, 0, &g.status[i].buffer, 0, STATUS_BYTES);
        g.status[i].step = Some(step);
    }
    Ok(())
}

/// Bytes of the counters the status ring copies (the scalar counters).
const STATUS_BYTES: u64 = 4 * counter::INDIRECT as u64;

/// Starts mapping copied status slots and returns the newest finished report, without blocking.
fn poll_status(g: &mut GpuEngine) -> Option<StepReport> {
    let _ = g.rigid.ctx.device.poll(wgpu::PollType::Poll);
    let mut newest: Option<StepReport> = None;
    for slot in &mut g.status {
        let Some(step) = slot.step else { continue };
        if !slot.mapping {
            let ready = slot.ready.clone();
            ready.store(false, Ordering::Release);
            slot.buffer.map_async(wgpu::MapMode::Read, .., move |r| {
                ready.store(r.is_ok(), Ordering::Release)
            });
            slot.mapping = true;
            continue;
        }
        if !slot.ready.load(Ordering::Acquire) {
            continue;
        }
        if let Ok(view) = slot.buffer.get_mapped_range(..) {
            let words: Vec<u32> = bytemuck::cast_slice(&view[..]).to_vec();
            drop(view);
            let report = report_from_counters(step, &words);
            if newest.is_none_or(|n| report.step > n.step) {
                newest = Some(report);
            }
        }
        slot.buffer.unmap();
        slot.step = None;
        slot.mapping = false;
    }
    newest
}

fn report_from_counters(step: u64, c: &[u32]) -> StepReport {
    let at = |i: usize| c.get(i).copied().unwrap_or(0);
    StepReport {
        step,
        pairs: at(counter::PAIRS),
        pairs_wanted: at(counter::PAIRS_WANTED),
        manifolds: at(counter::MANIFOLDS),
        colours: at(counter::COLOURS),
        uncoloured: at(counter::UNCOLOURED),
        colours_wanted: at(counter::COLOURS_WANTED),
        rounds: at(counter::ROUNDS),
        awake: at(counter::AWAKE),
        unsolved: at(counter::UNSOLVED),
    }
}
