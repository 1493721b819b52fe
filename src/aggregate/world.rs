//! The aggregate world: particles with fixed slots, force generators, links and collisions.
//! Host-side tables (generator CSR, link colours) are rebuilt here when they change; `step`
//! runs the stages on the chosen backend.

use super::cpu::{self, AggInputs, AggState};
use super::gpu::{GpuAggregate, Tables};
use super::model::*;
use super::step::{AggStage, AggStep};
use super::types::*;
use crate::backend::Backend;
use crate::colliders::GpuCollider;
use crate::error::{Error, Result};
use crate::fields::{GpuField, MAX_FIELDS};
use crate::grid::{CpuGrid, GridSpec};
use crate::particles::{Particle, RenderBuffers};
use glam::{Vec3, Vec4};

mod handles;
mod links;
mod particles;
mod reads;
mod report;
#[cfg(feature = "serde")]
mod save;
pub use report::AggregateStepReport;
use std::sync::atomic::{AtomicU32, Ordering};

/// Tags worlds so their handles cannot be mixed up.
static NEXT_WORLD: AtomicU32 = AtomicU32::new(1);

enum Engine {
    Cpu(Box<AggState>),
    Gpu(Box<GpuAggregate>),
}

/// A copy of the aggregate state (slot order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AggSnapshot {
    /// Position (xyz), w = 1 alive / 0 removed.
    pub pos: Vec<Vec4>,
    /// Velocity (xyz), damping (w: the fraction of velocity kept per second, 1 = none).
    pub vel: Vec<Vec4>,
}

/// Whether a slot's own acceleration (the xyz of its `acc` entry) is anything but +0 bit for
/// bit (-0 counts: a neighbour's shared acceleration must be the same bits as its own).
fn has_own_acceleration(a: Vec4) -> bool {
    a.x.to_bits() | a.y.to_bits() | a.z.to_bits() != 0
}

/// Particles, springs, cables, rods and collisions (book Part II) on the GPU or the CPU twin.
pub struct AggregateWorld {
    config: AggregateConfig,
    fields: [GpuField; MAX_FIELDS as usize],
    colliders: Vec<GpuCollider>,
    grid_spec: Option<GridSpec>,
    engine: Engine,
    n: u32,
    alive: Vec<bool>,
    acc: Vec<Vec4>,
    /// Slots whose own acceleration (`acc`'s xyz) is not +0 bit for bit. While there are none,
    /// the GPU's collide iterations take a neighbour's acceleration from the grain's own
    /// ([`GpuAggregate::set_shared_acceleration`]).
    own_accelerations: usize,
    gens: Vec<GpuGen>,
    links: Vec<Option<GpuLink>>,
    /// Per particle, the link colours in use (greedy colouring, kept up to date by `add_link`).
    colour_masks: Vec<u64>,
    sorted_links: Vec<GpuLink>,
    colour_start: Vec<u32>,
    gen_offsets: Vec<u32>,
    gen_refs: Vec<u32>,
    dirty: bool,
    grid_cpu: CpuGrid,
    /// The CPU step's candidate lists, rebuilt in place every step.
    near_cpu: cpu::NearList,
    /// The stages the CPU twin's last step ran.
    cpu_stages: Vec<AggStage>,
    last_dispatches: u32,
    /// Seconds stepped (turbulence fields drift with it).
    time: f64,
    /// Steps taken.
    steps: u64,
    /// The snapshot ring (`world/reads.rs`).
    reads: reads::SnapshotReads,
    /// This world's tag, carried by its handles.
    tag: u32,
    /// The particle slots' generations and removed slots (`world/handles.rs`).
    particle_slots: handles::Slots,
    /// The force generator slots'.
    gen_slots: handles::Slots,
    /// The link slots'.
    link_slots: handles::Slots,
}

impl AggregateWorld {
    /// Builds a world.
    ///
    /// # Errors
    /// [`Error::InvalidCapacity`], [`Error::InvalidInput`] or [`Error::TooManyFields`] for bad
    /// configuration; GPU errors from creating buffers.
    pub fn new(backend: Backend, config: AggregateConfig) -> Result<Self> {
        if config.capacity == 0 {
            return Err(Error::InvalidCapacity {
                capacity: 0,
                reason: "an aggregate world needs at least one particle slot".into(),
            });
        }
        if config.fields.len() > MAX_FIELDS as usize {
            return Err(Error::TooManyFields {
                count: config.fields.len(),
                max: MAX_FIELDS,
            });
        }
        let mut fields = [GpuField::default(); MAX_FIELDS as usize];
        for (o, f) in fields.iter_mut().zip(&config.fields) {
            *o = f.to_gpu()?;
        }
        // A uniform table on the GPU, as in the particle world (shaders/aggregate/collide.wgsl
        // `apply_colliders` says why): both backends refuse more than MAX_COLLIDERS.
        let colliders = crate::colliders::colliders_to_gpu(&config.colliders)?;
        let grid_spec = match config.collisions {
            Some(c) => {
                let finite_non_negative = |x: f32| x >= 0.0 && x.is_finite();
                let ok = (0.0..=1.0).contains(&c.restitution)
                    && finite_non_negative(c.friction)
                    && finite_non_negative(c.stack_scaling);
                if !ok {
                    return Err(Error::InvalidInput {
                        what: "collisions.restitution/friction/stack_scaling",
                        value: format!("{} / {} / {}", c.restitution, c.friction, c.stack_scaling),
                        fix: "restitution in [0, 1]; friction and stack_scaling finite and >= 0",
                    });
                }
                let table_size = if c.table_size == 0 {
                    // At most 2^31 before rounding up, so the power of two cannot overflow.
                    config
                        .capacity
                        .saturating_mul(2)
                        .min(1 << 31)
                        .next_power_of_two()
                } else {
                    c.table_size
                };
                // A cell size of 0 is settled when the first particle arrives (twice its radius).
                let spec = GridSpec {
                    cell_size: if c.cell_size > 0.0 { c.cell_size } else { 1.0 },
                    table_size,
                };
                spec.validate()?;
                Some(spec)
            }
            None => None,
        };
        let config_capacity = config.capacity;
        let mut me = Self {
            time: 0.0,
            steps: 0,
            reads: reads::SnapshotReads::new(),
            tag: NEXT_WORLD.fetch_add(1, Ordering::Relaxed),
            particle_slots: handles::Slots::default(),
            gen_slots: handles::Slots::default(),
            link_slots: handles::Slots::default(),
            fields,
            colliders,
            grid_spec,
            engine: Engine::Cpu(Box::default()),
            n: 0,
            alive: Vec::new(),
            acc: Vec::new(),
            own_accelerations: 0,
            gens: Vec::new(),
            links: Vec::new(),
            colour_masks: Vec::new(),
            sorted_links: Vec::new(),
            colour_start: vec![0],
            gen_offsets: vec![0],
            gen_refs: Vec::new(),
            dirty: false,
            grid_cpu: CpuGrid::default(),
            near_cpu: cpu::NearList::default(),
            cpu_stages: Vec::new(),
            last_dispatches: 0,
            config,
        };
        me.engine = match backend {
            Backend::Cpu => Engine::Cpu(Box::new(AggState::new(config_capacity)?)),
            Backend::Gpu(ctx) => {
                me.rebuild_tables()?;
                let t = Tables {
                    gens: &me.gens,
                    gen_offsets: &me.gen_offsets,
                    gen_refs: &me.gen_refs,
                    links: &me.sorted_links,
                    colour_start: &me.colour_start,
                    colliders: &me.colliders,
                };
                Engine::Gpu(Box::new(ctx.checked("an aggregate world", || {
                    let needs = super::shader::kernel_needs(me.grid_spec.is_some())?;
                    ctx.require("an aggregate world", &needs)?;
                    let turbulence =
                        crate::fields::fields_turbulent(&me.fields, me.config.fields.len());
                    GpuAggregate::new(&ctx, me.config.capacity, me.grid_spec, &t, turbulence)
                })?))
            }
        };
        Ok(me)
    }

    /// The configuration.
    pub fn config(&self) -> &AggregateConfig {
        &self.config
    }

    /// Sets how the CPU twin rounds from the next step on ([`AggregateConfig::cpu_rounding`]; the
    /// GPU backend ignores it).
    pub fn set_cpu_rounding(&mut self, rounding: crate::CpuRounding) {
        self.config.cpu_rounding = rounding;
    }

    /// Dispatches recorded by the last GPU step (0 on the CPU).
    pub fn last_dispatches(&self) -> u32 {
        self.last_dispatches
    }

    /// Rebuilds the generator CSR and the link colouring (greedy, in link order, so the same
    /// links always get the same colours).
    fn rebuild_tables(&mut self) -> Result<()> {
        let n = self.n as usize;
        let mut counts = vec![0u32; n + 1];
        for g in self.gens.iter().filter(|g| g.kind != 0) {
            counts[g.a as usize] += 1;
            if g.b != NONE {
                counts[g.b as usize] += 1;
            }
        }
        let mut offsets = vec![0u32; n + 1];
        for i in 0..n {
            offsets[i + 1] = offsets[i] + counts[i];
        }
        let mut fill = offsets.clone();
        let mut refs = vec![0u32; offsets[n] as usize];
        for (gi, g) in self.gens.iter().enumerate().filter(|(_, g)| g.kind != 0) {
            refs[fill[g.a as usize] as usize] = (gi as u32) << 1;
            fill[g.a as usize] += 1;
            if g.b != NONE {
                refs[fill[g.b as usize] as usize] = ((gi as u32) << 1) | 1;
                fill[g.b as usize] += 1;
            }
        }
        self.gen_offsets = offsets;
        self.gen_refs = refs;

        let (used, mut coloured) = links::colour_greedily(n, self.links.iter().flatten().copied())?;
        coloured.sort_by_key(|(c, _)| *c);
        let colours = coloured.last().map_or(0, |(c, _)| c + 1);
        let mut start = vec![0u32; colours as usize + 1];
        for (c, _) in &coloured {
            start[*c as usize + 1] += 1;
        }
        for c in 0..colours as usize {
            start[c + 1] += start[c];
        }
        self.sorted_links = coloured.into_iter().map(|(_, l)| l).collect();
        self.colour_masks = used;
        self.colour_start = start;
        self.dirty = false;
        Ok(())
    }

    fn params(&self, dt: f32) -> GpuAggParams {
        let (coll, spec) = (self.config.collisions, self.grid_spec);
        let mut p = GpuAggParams {
            dt,
            n: self.n,
            link_count: self.sorted_links.len() as u32,
            colour_count: self.link_colours(),
            link_iterations: self.config.link_iterations,
            collide_iterations: coll.map_or(1, |c| c.iterations.max(1)),
            collider_count: self.colliders.len() as u32,
            field_count: self.config.fields.len() as u32,
            restitution: coll.map_or(0.0, |c| c.restitution),
            friction: coll.map_or(0.0, |c| c.friction),
            inv_cell_size: spec.map_or(1.0, |s| s.inv_cell_size()),
            table_mask: spec.map_or(0, |s| s.table_size - 1),
            contact_slop: self.config.contact_slop,
            near_reach: 0.0,
            list_capacity: 0,
            near_scale: 0.0,
            near_reach2: 0,
            integrator: u32::from(self.config.integrator == Integrator::SemiImplicit),
            collisions: u32::from(coll.is_some()),
            stack_scaling: coll.map_or(0.0, |c| c.stack_scaling),
            fields: crate::fields::fields_at(&self.fields, self.time as f32),
        };
        if let Some(s) = spec {
            p.set_near_reach(s.cell_size, self.config.contact_slop);
        }
        p
    }

    /// Advances by `dt`: integrate (generators, fields), collide (grid + colliders), links;
    /// on the GPU, records the step and submits it.
    ///
    /// # Errors
    /// [`Error::InvalidTimeStep`] (nothing changes); GPU errors.
    pub fn step(&mut self, dt: f32) -> Result<AggregateStepReport> {
        match &self.engine {
            Engine::Gpu(g) => {
                let ctx = g.ctx.clone();
                ctx.guard("an aggregate step", || self.step_unguarded(dt))?;
            }
            Engine::Cpu(_) => self.step_unguarded(dt)?,
        }
        Ok(self.step_report())
    }

    fn step_unguarded(&mut self, dt: f32) -> Result<()> {
        if let Engine::Gpu(g) = &self.engine {
            let mut enc = g
                .ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("wgphys:aggregate_step"),
                });
            self.encode_unguarded(dt, &mut enc)?;
            if let Engine::Gpu(g) = &self.engine {
                g.ctx.queue.submit([enc.finish()]);
            }
            return Ok(());
        }
        self.prepare(dt)?;
        let params = self.params(dt);
        self.time += f64::from(dt);
        let collide = self.config.collisions.is_some() || !self.colliders.is_empty();
        let Engine::Cpu(s) = &mut self.engine else {
            return Ok(());
        };
        let inp = AggInputs {
            params: &params,
            gens: &self.gens,
            gen_offsets: &self.gen_offsets,
            gen_refs: &self.gen_refs,
            links: &self.sorted_links,
            colour_start: &self.colour_start,
            colliders: &self.colliders,
        };
        let _rounding = crate::rounding::scope(self.config.cpu_rounding);
        let stages = AggStep {
            collide,
            gridded: self.grid_spec.is_some() && self.n > 0,
            links: params.link_count > 0 && params.link_iterations > 0,
        };
        let sequence = stages.sequence();
        for &stage in &sequence {
            match stage {
                AggStage::Integrate => cpu::agg_integrate(s, &inp),
                AggStage::GridBuild => {
                    if let Some(spec) = &self.grid_spec {
                        self.grid_cpu = CpuGrid::build(&s.pos[..self.n as usize], spec)?;
                    }
                }
                AggStage::NearList => {
                    if let Some(spec) = &self.grid_spec {
                        cpu::near_list_into(&mut self.near_cpu, s, &params, &self.grid_cpu, spec);
                    }
                }
                AggStage::Collide => {
                    let near = stages.gridded.then_some(&self.near_cpu);
                    for _ in 0..params.collide_iterations {
                        cpu::collide(s, &inp, near);
                    }
                }
                AggStage::Links => match self.config.order {
                    ResolveOrder::Batches => cpu::solve_links(s, &inp),
                    ResolveOrder::MostSevereFirst => cpu::solve_links_most_severe(s, &inp),
                },
                // The CPU twin works in particle order (the GPU's spatial order only moves
                // where the values are read from).
                AggStage::NearOrder | AggStage::NearScatter => {}
            }
        }
        self.cpu_stages = sequence;
        self.steps += 1;
        Ok(())
    }

    fn prepare(&mut self, dt: f32) -> Result<()> {
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(Error::InvalidTimeStep(dt));
        }
        if self.dirty {
            self.rebuild_tables()?;
            if let Engine::Gpu(g) = &mut self.engine {
                g.set_tables(&Tables {
                    gens: &self.gens,
                    gen_offsets: &self.gen_offsets,
                    gen_refs: &self.gen_refs,
                    links: &self.sorted_links,
                    colour_start: &self.colour_start,
                    colliders: &self.colliders,
                });
            }
        }
        Ok(())
    }

    /// Records the step into the caller's encoder instead of submitting it: the step's
    /// parameters and the edits made before it are recorded as copies ahead of its passes, so
    /// any number of steps and edits may go into one encoder before one submit, as the same
    /// `step()` calls.
    ///
    /// On the CPU backend, `encode_step` runs the step at once, exactly as `step` does, and
    /// leaves the encoder alone; it returns the same report.
    ///
    /// # Errors
    /// As [`AggregateWorld::step`].
    pub fn encode_step(
        &mut self,
        dt: f32,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<AggregateStepReport> {
        match &self.engine {
            Engine::Gpu(g) => {
                let ctx = g.ctx.clone();
                ctx.guard("an aggregate step", || self.encode_unguarded(dt, encoder))?;
                Ok(self.step_report())
            }
            Engine::Cpu(_) => self.step(dt),
        }
    }

    fn encode_unguarded(&mut self, dt: f32, encoder: &mut wgpu::CommandEncoder) -> Result<()> {
        self.prepare(dt)?;
        let params = self.params(dt);
        self.time += f64::from(dt);
        let collide = self.config.collisions.is_some() || !self.colliders.is_empty();
        if let Engine::Gpu(g) = &mut self.engine {
            g.set_shared_acceleration(self.own_accelerations == 0);
            self.last_dispatches = g.encode(encoder, &params, collide)?;
            self.steps += 1;
            self.reads.record(g, encoder, self.steps, self.n);
            self.reads.poll(&g.ctx.device);
        }
        Ok(())
    }

    /// The stages the last step ran, in order, on either backend: the stage sequence
    /// `tests/aggregate_step.rs` holds the two backends to.
    #[doc(hidden)]
    pub fn last_stages(&self) -> &[AggStage] {
        match &self.engine {
            Engine::Cpu(_) => &self.cpu_stages,
            Engine::Gpu(g) => &g.last_stages,
        }
    }

    /// Copies positions and velocities (blocks on the GPU).
    ///
    /// # Errors
    /// GPU readback errors.
    pub fn read_snapshot(&self) -> Result<AggSnapshot> {
        let n = self.n as usize;
        match &self.engine {
            Engine::Cpu(s) => Ok(AggSnapshot {
                pos: s.pos[..n].to_vec(),
                vel: s.vel[..n].to_vec(),
            }),
            Engine::Gpu(g) => {
                let (pos, vel) = g.read(n)?;
                Ok(AggSnapshot { pos, vel })
            }
        }
    }

    /// Turns on GPU timestamps for [`AggregateWorld::last_step_gpu_ms`]; false on the CPU or
    /// when the adapter has no timestamp queries.
    pub fn enable_gpu_timing(&mut self) -> bool {
        match &mut self.engine {
            Engine::Gpu(g) => g.enable_timing(),
            Engine::Cpu(_) => false,
        }
    }

    /// GPU time of the last step in ms, from timestamp queries (blocking; for benchmarks).
    ///
    /// # Errors
    /// [`Error::NeedsGpu`] on the CPU, [`Error::Unsupported`] without timing, [`Error::Gpu`].
    pub fn last_step_gpu_ms(&self) -> Result<f64> {
        match &self.engine {
            Engine::Gpu(g) => g.last_step_gpu_ms(),
            Engine::Cpu(_) => Err(Error::NeedsGpu("last_step_gpu_ms")),
        }
    }

    /// GPU milliseconds of each stage of the last step recorded with timing on, in step order
    /// (`integrate`, `grid_build`, `near_order`, `near_list`, `collide` per iteration numbered from 1,
    /// `near_scatter`, `links`; see [`GpuAggregate::last_step_stage_ms`]).
    ///
    /// # Errors
    /// [`Error::NeedsGpu`] on the CPU, [`Error::Unsupported`] without timing or without
    /// timestamps inside passes, [`Error::Gpu`].
    pub fn last_step_stage_ms(&self) -> Result<Vec<(&'static str, u32, f64)>> {
        match &self.engine {
            Engine::Gpu(g) => g.last_step_stage_ms(),
            Engine::Cpu(_) => Err(Error::NeedsGpu("last_step_stage_ms")),
        }
    }

    /// Blocks until the GPU is idle (no-op on the CPU).
    ///
    /// # Errors
    /// [`Error::Gpu`] if the device is lost.
    pub fn wait(&self) -> Result<()> {
        match &self.engine {
            Engine::Gpu(g) => g.ctx.wait(),
            Engine::Cpu(_) => Ok(()),
        }
    }

    /// How many times the world's GPU buffers were replaced, for a renderer holding a bind
    /// group of [`AggregateWorld::render_buffers`] (as [`crate::rigid::RigidWorld::buffers_generation`]).
    /// An aggregate world's particle buffers are made once, for
    /// [`AggregateConfig::capacity`] slots, when the world is built or loaded, and never grow:
    /// this stays 0 (on the CPU too).
    pub fn buffers_generation(&self) -> u64 {
        0
    }

    /// Buffers for drawing the particles (GPU worlds): positions, colours, radii and draw args
    /// with `instance_count` = slots in use (removed particles have radius 0).
    pub fn render_buffers(&self) -> Option<RenderBuffers<'_>> {
        match &self.engine {
            Engine::Gpu(g) => Some(RenderBuffers {
                positions: &g.pos_a,
                colours: &g.colour,
                sizes: &g.radius,
                draw_args: &g.draw_args,
                order: None,
                emitter_bounds: None,
                trails: None,
                velocities: None,
            }),
            Engine::Cpu(_) => None,
        }
    }

    /// The CPU state (CPU worlds only).
    pub fn cpu_state(&self) -> Option<&AggState> {
        match &self.engine {
            Engine::Cpu(s) => Some(s),
            Engine::Gpu(_) => None,
        }
    }
}
