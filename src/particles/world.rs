//! The particle world: validation, handles and the host queues in front of the two backends.
//! `step` checks its input, builds the step's uniform block, then runs the backend's stages.

pub use super::config::WorldConfig;
use super::cpu::CpuState;
use super::emitter::{Emitter, EmitterHandle, EmitterState, SubTrigger};
use crate::backend::Backend;
use cpu_step::{fields_to_gpu, run_cpu_step, stages_of};

use super::gpu::{Frame, GpuParticles};
use super::ledger::SpawnLedger;
use super::model::{Particle, ParticleHandle};
pub use super::report::{ParticleStepReport, Status};
use super::types::*;
use super::Snapshot;
use crate::colliders::{colliders_to_gpu, ParticleCollider};
use crate::error::{Error, Result};
use crate::fields::ForceField;
use crate::gpu::GpuContext;
use crate::particles::fireworks::launch_record;
use crate::rng::hash_u32;

mod cpu_step;
mod depth;
mod emitters;
mod encode;
mod handles;
mod read;
mod reads;
mod rigid;
#[cfg(feature = "serde")]
mod save;
mod status;
mod view;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::sync::atomic::{AtomicU32, Ordering};

/// Tags worlds so their handles cannot be mixed up.
static NEXT_WORLD: AtomicU32 = AtomicU32::new(1);

/// Host handles that joined the pool in the same step. They share one age, advanced exactly as
/// the GPU advances a particle's age (`age = age + dt` in f32), so the host knows the step a
/// particle expires in without reading anything back.
struct ExpiryGroup {
    age: f32,
    /// (lifetime bits, id): positive f32 bits order like the values.
    members: BinaryHeap<Reverse<(u32, u32)>>,
}

/// The GPU buffers a renderer binds to draw the particles with no readback.
///
/// Live particles are packed in slots `[0, live)`; `draw_args` holds `live`, so draw with
/// `draw_indirect(draw_args, 0)` and one instance per particle.
#[derive(Clone, Copy, Debug)]
pub struct RenderBuffers<'a> {
    /// `array<vec4<f32>>`: xyz position in metres, w = 1. Usage: STORAGE | VERTEX | COPY_SRC |
    /// COPY_DST; bind as an instance vertex buffer (`Float32x4`, stride 16) or as storage.
    pub positions: &'a wgpu::Buffer,
    /// `array<vec4<f32>>`: linear RGBA (fireworks fade with age). Same usage as `positions`.
    pub colours: &'a wgpu::Buffer,
    /// `array<f32>`: radius in metres (sprite half-extent). Same usage; `Float32`, stride 4.
    pub sizes: &'a wgpu::Buffer,
    /// `array<vec4<f32>>`: velocity in m/s (xyz), damping (w: the fraction of velocity kept per
    /// second). Same usage as `positions` (`Float32x4`, stride 16). For sprites stretched along
    /// their motion, lengthen the quad's axis along the screen-space velocity by `|v|·k`
    /// (motion blur for sparks, streaks for rain) in your vertex shader. `None` for worlds that
    /// are not particle worlds.
    pub velocities: Option<&'a wgpu::Buffer>,
    /// `DrawIndirectArgs` { vertex_count: 6, instance_count: live, first_vertex: 0,
    /// first_instance: 0 }. Usage: STORAGE | INDIRECT | COPY_SRC | COPY_DST.
    pub draw_args: &'a wgpu::Buffer,
    /// With [`ParticleWorld::set_view_sort`] on: `array<u32>`, the slots of the live particles
    /// back to front (the first `live` entries); draw instance k from slot `order[k]` for
    /// alpha blending. Usage: STORAGE | COPY_SRC | COPY_DST.
    pub order: Option<&'a wgpu::Buffer>,
    /// `array<vec4<f32>>`, two per emitter slot ([`ParticleWorld::emitter_slot`]): the box of
    /// the emitter's live particles after the last step, (min.xyz, 1) and (max.xyz, 1), or
    /// (+∞, 0) and (−∞, 0) when it has none; for frustum culling. Usage: STORAGE | COPY_SRC |
    /// COPY_DST. `None` for worlds that are not particle worlds.
    pub emitter_bounds: Option<&'a wgpu::Buffer>,
    /// With [`WorldConfig::trail_length`] K > 0: `array<vec4<f32>>`, K positions per slot, slot
    /// s's trail at `[s·K, s·K + K)`; after n steps the newest position is at `(n − 1) mod K`
    /// and `(n − 1 − j) mod K` is j steps older (a new particle's trail holds its first
    /// position). Draw a ribbon through them, newest first, for the `live` first slots; the
    /// trails move with their particles when the pool is compacted. Usage: STORAGE | VERTEX |
    /// COPY_SRC | COPY_DST.
    pub trails: Option<&'a wgpu::Buffer>,
}

enum Engine {
    Cpu(Box<CpuState>),
    Gpu(Box<GpuParticles>),
}

/// A pool of particles stepped on the GPU or the CPU twin.
pub struct ParticleWorld {
    config: WorldConfig,
    capacity: u32,
    fields: [GpuField; MAX_FIELDS as usize],
    colliders: Vec<GpuCollider>,
    rules: Vec<GpuRule>,
    payloads: Vec<GpuPayload>,
    engine: Engine,
    step: u64,
    /// The snapshot ring (`world/reads.rs`).
    reads: reads::SnapshotReads,
    world_tag: u32,
    spawns: Vec<GpuSpawnRecord>,
    removals: Vec<u32>,
    next_id: u32,
    outstanding: HashSet<u32>,
    expiry: Vec<ExpiryGroup>,
    /// Lifetimes of handles spawned since the last step; their clocks start when they join.
    pending_expiry: Vec<(u32, f32)>,
    launches: u32,
    mortal: bool,
    latest: Option<Status>,
    seen_dropped: u32,
    /// Host spawns waiting for their step's counters (see [`super::ledger`]).
    ledger: SpawnLedger,
    /// Host handles found refused during the last `step` / `encode_step` call.
    refused: Vec<ParticleHandle>,
    /// Host handles whose particles the kill bounds were found to have killed during the last
    /// `step` / `encode_step` call.
    killed: Vec<ParticleHandle>,
    /// Queued spawns without a handle (launches, `spawn_firework`).
    queued_launches: u32,
    /// The emitter table's slots.
    emitters: Vec<super::emitter::EmitterSlot>,
    /// Their GPU records, slot by slot (the CPU twin's table).
    emitter_table: Vec<GpuEmitter>,
    /// Their life curves, slot by slot.
    curve_table: Vec<GpuCurves>,
    /// Seconds of world time (the sum of the steps), for retiring emitter slots.
    clock: f64,
    /// The camera of the back-to-front order, when on.
    view: Option<super::view_sort::GpuView>,
    /// The CPU twin's back-to-front order after the last step.
    order: Vec<u32>,
    /// The CPU twin's trails (`trail_length` positions per slot).
    trails_cpu: Vec<glam::Vec4>,
    /// The CPU twin's depth collider and depths, when on.
    depth_cpu: Option<(super::depth::GpuDepth, super::depth::DepthImage)>,
    /// The next emitter handle id.
    next_emitter: u32,
    /// The stages the CPU twin's last step ran.
    cpu_stages: Vec<super::step::ParticleStage>,
    /// The rigid world of the step being run (`step_with_rigid`), for its length only.
    rigid: Option<rigid::RigidInput>,
}

const LAUNCH_ID: u32 = super::ledger::NO_HANDLE;

impl ParticleWorld {
    /// Builds a world on the given backend.
    ///
    /// # Errors
    /// [`Error::InvalidCapacity`] for capacity 0, [`Error::CapacityTooLarge`] beyond the device's
    /// buffer limit, and [`Error::InvalidInput`] / [`Error::TooManyFields`] for bad fields,
    /// colliders or firework rules.
    pub fn new(backend: Backend, config: WorldConfig) -> Result<Self> {
        if config.capacity == 0 {
            return Err(Error::InvalidCapacity {
                capacity: 0,
                reason: "a pool needs room for at least one particle".into(),
            });
        }
        if config.trail_length > MAX_TRAIL {
            return Err(Error::InvalidInput {
                what: "trail_length",
                value: format!("{}", config.trail_length),
                fix: "keep at most MAX_TRAIL (64) positions per trail",
            });
        }
        if config.capacity >= GPU_ID_BIT {
            return Err(Error::InvalidCapacity {
                capacity: config.capacity,
                reason: "capacity must be below 2^31".into(),
            });
        }
        if !(config.contact_slop >= 0.0 && config.contact_slop.is_finite()) {
            return Err(Error::InvalidInput {
                what: "config.contact_slop",
                value: format!("{}", config.contact_slop),
                fix: "pass a finite distance >= 0",
            });
        }
        if let Some(k) = config.kill_bounds {
            crate::error::finite3("kill_bounds.min", k.min)?;
            crate::error::finite3("kill_bounds.max", k.max)?;
        }
        let fields = fields_to_gpu(&config.fields)?;
        let colliders = colliders_to_gpu(&config.colliders)?;
        let (rules, payloads) = config.fireworks.to_gpu()?;
        let backend_is_cpu = matches!(backend, Backend::Cpu);
        let trail_slots = config.capacity as usize * config.trail_length as usize;
        let engine = match backend {
            Backend::Cpu => Engine::Cpu(Box::new(CpuState::new(config.capacity)?)),
            Backend::Gpu(ctx) => Engine::Gpu(Box::new(ctx.checked("a particle world", || {
                ctx.require("a particle world", &super::shader::kernel_needs()?)?;
                GpuParticles::new(
                    &ctx,
                    config.capacity,
                    &colliders,
                    &rules,
                    &payloads,
                    config.trail_length,
                )
            })?)),
        };
        let mut world = Self {
            capacity: config.capacity,
            config,
            fields,
            colliders,
            rules,
            payloads,
            engine,
            step: 0,
            reads: reads::SnapshotReads::new(),
            world_tag: NEXT_WORLD.fetch_add(1, Ordering::Relaxed),
            spawns: Vec::new(),
            removals: Vec::new(),
            next_id: 0,
            outstanding: HashSet::new(),
            expiry: Vec::new(),
            pending_expiry: Vec::new(),
            launches: 0,
            mortal: false,
            latest: None,
            seen_dropped: 0,
            ledger: SpawnLedger::default(),
            refused: Vec::new(),
            killed: Vec::new(),
            emitters: Vec::new(),
            emitter_table: Vec::new(),
            curve_table: Vec::new(),
            clock: 0.0,
            view: None,
            order: Vec::new(),
            depth_cpu: None,
            trails_cpu: if backend_is_cpu {
                vec![glam::Vec4::ZERO; trail_slots]
            } else {
                Vec::new()
            },
            next_emitter: 0,
            cpu_stages: Vec::new(),
            rigid: None,
            queued_launches: 0,
        };
        // The integrate kernel's variant for the world as configured, compiled now rather than
        // by the first step.
        world.precompile()?;
        Ok(world)
    }

    /// The configuration the world was built with (fields and colliders as last set).
    pub fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// Sets how the CPU twin rounds from the next step on ([`WorldConfig::cpu_rounding`]; the
    /// GPU backend ignores it).
    pub fn set_cpu_rounding(&mut self, rounding: crate::CpuRounding) {
        self.config.cpu_rounding = rounding;
    }

    /// Pool capacity.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.step
    }

    /// Whether this world runs on the GPU.
    pub fn is_gpu(&self) -> bool {
        matches!(self.engine, Engine::Gpu(_))
    }

    /// Queues a particle; it joins the pool at the end of the next step.
    ///
    /// The host counts the particles it knows of (its live handles and the spawns queued), and
    /// refuses a spawn that count says cannot fit ([`Error::Full`], or the pool grows first
    /// with `auto_grow`). Particles the host does not count (firework children, emitters'
    /// particles) can still fill the pool. A step gives its free slots first to its queue
    /// (spawns and launches, in the order they were queued), then to firework and sub-emitter
    /// children, then to the emitters' particles, on both backends; a spawn the step has no
    /// room for is refused there, its handle stops being valid, and the step's report counts
    /// it ([`ParticleStepReport::refused_spawns`], [`ParticleWorld::refused_spawns`]): at the end of
    /// that step on the CPU; on the GPU when the host takes in the step's status, at the first
    /// `step`, `encode_step` or [`ParticleWorld::poll_reports`] call after it lands (a frame
    /// or two later).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] naming the bad field, [`Error::Full`] when the pool is full
    /// and `auto_grow` is off, or [`Error::SpawnQueueFull`] when more than `capacity` spawns
    /// wait for one step. The world is unchanged then.
    pub fn spawn(&mut self, particle: Particle) -> Result<ParticleHandle> {
        particle.validate()?;
        self.check_queue(1)?;
        self.check_room()?;
        if self.next_id >= GPU_ID_BIT {
            return Err(Error::InvalidCapacity {
                capacity: self.capacity,
                reason: "2^31 host handles issued; build a new world".into(),
            });
        }
        let id = self.next_id;
        self.next_id += 1;
        self.spawns.push(particle.record(id));
        self.outstanding.insert(id);
        if let Some(l) = particle.lifetime {
            self.mortal = true;
            self.pending_expiry.push((id, l));
        }
        Ok(ParticleHandle {
            id,
            world: self.world_tag,
        })
    }

    /// Queues the removal of a particle; it goes in the next step.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] when the handle was already removed, has expired, or is not from
    /// this world. Nothing changes then.
    pub fn remove(&mut self, handle: ParticleHandle) -> Result<()> {
        if handle.world != self.world_tag || !self.outstanding.remove(&handle.id) {
            return Err(Error::StaleHandle {
                kind: "particle",
                id: handle.id,
            });
        }
        if let Some(pos) = self.spawns.iter().position(|s| s.life.id == handle.id) {
            // Still queued: it never reached the pool.
            self.spawns.remove(pos);
            self.pending_expiry.retain(|&(id, _)| id != handle.id);
        } else {
            self.removals.push(handle.id);
        }
        Ok(())
    }

    /// Launches a firework of type `ty` (1-based) from the ground, as the book does.
    ///
    /// # Errors
    /// [`Error::UnknownFireworkType`] for a type with no rule; [`Error::SpawnQueueFull`].
    pub fn launch(&mut self, ty: u32) -> Result<()> {
        let max = self.rules.len() as u32;
        if ty == 0 || ty > max {
            return Err(Error::UnknownFireworkType { ty, max });
        }
        self.check_queue(1)?;
        self.check_room()?;
        let rule = self.rules[ty as usize - 1];
        let seed = hash_u32(self.config.seed ^ 0x5bd1_e995);
        let rec = launch_record(&rule, ty, LAUNCH_ID, seed, self.launches, self.step as u32);
        self.launches = self.launches.wrapping_add(1);
        self.spawns.push(rec);
        self.queued_launches += 1;
        self.mortal = true;
        Ok(())
    }

    /// Spawns a firework of type `ty` at `position` with `velocity` and a fuse of `fuse`
    /// seconds (a Catherine wheel, a burst at a click, a test), instead of the book's launcher.
    ///
    /// # Errors
    /// [`Error::UnknownFireworkType`], [`Error::InvalidInput`] for non-finite vectors or a
    /// fuse that is not positive, [`Error::SpawnQueueFull`].
    pub fn spawn_firework(
        &mut self,
        ty: u32,
        position: glam::Vec3,
        velocity: glam::Vec3,
        fuse: f32,
    ) -> Result<()> {
        let max = self.rules.len() as u32;
        if ty == 0 || ty > max {
            return Err(Error::UnknownFireworkType { ty, max });
        }
        crate::error::finite3("firework.position", position)?;
        crate::error::finite3("firework.velocity", velocity)?;
        if !(fuse > 0.0 && fuse.is_finite()) {
            return Err(Error::InvalidInput {
                what: "firework.fuse",
                value: format!("{fuse}"),
                fix: "pass a positive finite number of seconds",
            });
        }
        self.check_queue(1)?;
        self.check_room()?;
        let rule = self.rules[ty as usize - 1];
        self.spawns.push(GpuSpawnRecord {
            pos: position.extend(1.0),
            vel: velocity.extend(rule.damping),
            acc: rule.gravity.truncate().extend(1.0),
            colour: rule.colour,
            life: GpuLife {
                age: 0.0,
                lifetime: fuse,
                kind: ty,
                id: LAUNCH_ID,
            },
            size: rule.size,
            _pad: [0; 3],
        });
        self.queued_launches += 1;
        self.mortal = true;
        Ok(())
    }

    /// Refuses (or, with `auto_grow`, makes room for) one more spawn when the particles the
    /// host knows of already fill the pool.
    fn check_room(&mut self) -> Result<()> {
        // The queued launches are counted as they are queued: scanning the queue here made a
        // bulk spawn of n particles cost n²/2 comparisons (a million-particle cloud never got
        // past its spawn).
        let known = self.outstanding.len() as u64 + u64::from(self.queued_launches);
        if known < u64::from(self.capacity) {
            return Ok(());
        }
        if !self.config.auto_grow {
            return Err(Error::Full {
                what: "particle (WorldConfig::capacity; or ParticleWorld::grow, or auto_grow)",
                capacity: self.capacity,
            });
        }
        // Below 2^31 before rounding up, so the power of two cannot overflow.
        let want = self
            .capacity
            .saturating_mul(2)
            .min(GPU_ID_BIT)
            .next_power_of_two()
            .min(GPU_ID_BIT - 1);
        self.grow(want)
    }

    fn check_queue(&self, more: u32) -> Result<()> {
        let queued = self.spawns.len() as u32;
        if queued + more > self.capacity {
            return Err(Error::SpawnQueueFull {
                queued,
                capacity: self.capacity,
            });
        }
        Ok(())
    }

    /// Compiles the GPU kernels the next step will run for the world as it is now (its force
    /// fields, depth collider, fireworks and emitters), so that the step does not: the
    /// integrate kernel is compiled for the features a step needs (a variant per combination,
    /// each the first time a step needs it). A new world has compiled the one its
    /// configuration needs; call this after adding emitters, turbulence or the depth collider
    /// at load time to move the next compilation there. Nothing to do on the CPU backend.
    ///
    /// # Errors
    /// [`Error::TooManyFields`] as [`ParticleWorld::step`]; [`Error::Gpu`] if the device
    /// fails.
    pub fn precompile(&mut self) -> Result<()> {
        let (fields, count) = self.field_table(self.clock as f32)?;
        let emitters = !self.emitters.is_empty();
        match &mut self.engine {
            Engine::Gpu(g) => {
                let ctx = g.ctx.clone();
                ctx.guard("compiling a particle world's kernels", || {
                    g.precompile(&fields, count, emitters);
                    Ok(())
                })
            }
            Engine::Cpu(_) => Ok(()),
        }
    }

    /// Replaces the force fields.
    ///
    /// # Errors
    /// [`Error::TooManyFields`] (the table holds the emitters' local fields too) or
    /// [`Error::InvalidInput`]; the old fields stay then.
    pub fn set_fields(&mut self, fields: Vec<ForceField>) -> Result<()> {
        Self::fields_fit(fields.len() + self.local_field_count(None))?;
        self.fields = fields_to_gpu(&fields)?;
        self.config.fields = fields;
        Ok(())
    }

    /// Replaces the static colliders.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] naming the bad collider field; the old colliders stay then.
    pub fn set_colliders(&mut self, colliders: Vec<ParticleCollider>) -> Result<()> {
        let gpu = colliders_to_gpu(&colliders)?;
        if let Engine::Gpu(g) = &mut self.engine {
            g.set_colliders(&gpu);
        }
        self.colliders = gpu;
        self.config.colliders = colliders;
        Ok(())
    }

    /// Grows the pool to `capacity`, keeping every live particle.
    ///
    /// # Errors
    /// [`Error::InvalidCapacity`] below the current capacity; [`Error::CapacityTooLarge`]
    /// beyond the device limit (the world is unchanged then).
    pub fn grow(&mut self, capacity: u32) -> Result<()> {
        if capacity < self.capacity || capacity >= GPU_ID_BIT {
            return Err(Error::InvalidCapacity {
                capacity,
                reason: format!(
                    "grow needs a capacity between the current {} and 2^31",
                    self.capacity
                ),
            });
        }
        match &mut self.engine {
            Engine::Cpu(s) => s.resize(capacity)?,
            Engine::Gpu(g) => {
                // Buffers the device cannot allocate are an error, not wgpu's panic.
                let ctx = g.ctx.clone();
                ctx.guard("growing a particle pool", || g.grow(capacity))?
            }
        }
        if matches!(self.engine, Engine::Cpu(_)) {
            let slots = capacity as usize * self.config.trail_length as usize;
            self.trails_cpu.resize(slots, glam::Vec4::ZERO);
        }
        self.capacity = capacity;
        self.config.capacity = capacity;
        Ok(())
    }

    /// Advances the world by `dt` seconds and submits the work (GPU) or runs it (CPU).
    ///
    /// # Errors
    /// [`Error::InvalidTimeStep`] for dt <= 0 or non-finite (nothing is changed, queued spawns
    /// stay queued); [`Error::Gpu`] if the device fails.
    pub fn step(&mut self, dt: f32) -> Result<ParticleStepReport> {
        match self.gpu_context() {
            Some(ctx) => ctx.guard("a particle step", || self.step_unguarded(dt)),
            None => self.step_unguarded(dt),
        }
    }

    /// The device of a GPU world (for error scopes).
    fn gpu_context(&self) -> Option<GpuContext> {
        match &self.engine {
            Engine::Gpu(g) => Some(g.ctx.clone()),
            Engine::Cpu(_) => None,
        }
    }

    fn step_unguarded(&mut self, dt: f32) -> Result<ParticleStepReport> {
        let frame_params = self.begin_step(dt)?;
        let deaths_room = self.deaths_room();
        let grew_to = match &mut self.engine {
            Engine::Cpu(_) => None,
            Engine::Gpu(g) => {
                let mut enc =
                    g.ctx
                        .device
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("wgphys:step"),
                        });
                let frame = Frame {
                    params: frame_params.0,
                    spawns: &self.spawns,
                    removals: &self.removals,
                    stages: stages_of(
                        &self.config,
                        &frame_params.0,
                        frame_params.1,
                        self.view.is_some(),
                        &self.emitters,
                    ),
                    step: self.step + 1,
                    want_status: frame_params.2,
                    deaths_room,
                };
                g.encode(&mut enc, &frame);
                self.reads.record(g, &mut enc, self.step + 1, self.capacity);
                g.ctx.queue.submit([enc.finish()]);
                self.reads.poll(&g.ctx.device);
                None
            }
        };
        let mut deaths = Vec::new();
        if let Engine::Cpu(s) = &mut self.engine {
            let _rounding = crate::rounding::scope(self.config.cpu_rounding);
            let stages = stages_of(
                &self.config,
                &frame_params.0,
                frame_params.1,
                self.view.is_some(),
                &self.emitters,
            );
            self.cpu_stages = run_cpu_step(
                s,
                &frame_params.0,
                stages,
                &self.spawns,
                &self.removals,
                &self.colliders,
                &self.rules,
                &self.payloads,
                &self.emitter_table,
                &self.curve_table,
                self.depth_cpu.as_ref().map(|(d, image)| (d, image)),
                (&mut self.trails_cpu, self.config.trail_length),
                self.rigid.as_ref().and_then(rigid::RigidInput::host),
            );
            deaths = std::mem::take(&mut s.deaths);
            deaths.sort_unstable();
        }
        self.bury(&deaths);
        self.sort_cpu()?;
        self.finish_step(dt);
        let grew_to = grew_to.or(self.maybe_grow()?);
        Ok(ParticleStepReport {
            step: self.step,
            status: self.latest,
            grew_to,
            refused_spawns: self.refused.len() as u32,
            killed_by_bounds: self.killed.len() as u32,
        })
    }

    /// Validates dt, takes in the landed status reads, and builds the step's uniform block.
    fn begin_step(&mut self, dt: f32) -> Result<(GpuParams, bool, bool)> {
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(Error::InvalidTimeStep(dt));
        }
        self.poll_reports();
        self.removals.sort_unstable();
        // Turbulence drifts with the time at the start of the step.
        let time = self.clock as f32;
        let (fields, field_count) = self.field_table(time)?;
        let (emitted, emit_first) = self.emission(dt);
        let lifecycle = self.mortal
            || self.config.kill_bounds.is_some()
            || !self.spawns.is_empty()
            || !self.removals.is_empty()
            || emitted > 0;
        let kill = self.config.kill_bounds;
        let params = GpuParams {
            dt,
            step: self.step as u32,
            seed: self.config.seed,
            capacity: self.capacity,
            host_spawn: self.spawns.len() as u32,
            removal_count: self.removals.len() as u32,
            field_count,
            collider_count: self.colliders.len() as u32,
            rule_count: self.rules.len() as u32,
            kill_bounds: u32::from(kill.is_some()),
            contact_slop: self.config.contact_slop,
            lifecycle: u32::from(lifecycle),
            kill_min: kill.map_or(glam::Vec4::ZERO, |k| k.min.extend(0.0)),
            kill_max: kill.map_or(glam::Vec4::ZERO, |k| k.max.extend(0.0)),
            fields,
            emitted,
            emitter_count: self.emitter_table.len() as u32,
            trail_length: self.config.trail_length,
            rigid_shape_count: self.rigid_shape_count(),
            emit_first,
            rigid_cell_inv: self.rigid_cells().0,
            rigid_buckets: self.rigid_cells().1,
            _pad_rigid: [0; 2],
            rigid_groups: self.rigid_groups(),
        };
        let interval = u64::from(self.config.status_interval);
        // A step with host spawns always copies its counters: they say which spawns fit; and
        // with kill bounds and handles out, its handle deaths.
        let want_status = (interval > 0 && (self.step + 1).is_multiple_of(interval))
            || !self.spawns.is_empty()
            || self.deaths_room() > 0;
        Ok((params, lifecycle, want_status))
    }

    fn finish_step(&mut self, dt: f32) {
        let ids = self.spawns.iter().map(|s| s.life.id).collect();
        self.ledger.record(self.step + 1, ids);
        self.spawns.clear();
        self.queued_launches = 0;
        self.removals.clear();
        self.step += 1;
        // Particles already in the pool aged by dt in this step; those whose age reached their
        // lifetime died in it (the same f32 sum and comparison as `integrate`).
        for group in &mut self.expiry {
            group.age += dt;
            while let Some(Reverse((bits, id))) = group.members.peek().copied() {
                if group.age < f32::from_bits(bits) {
                    break;
                }
                group.members.pop();
                self.outstanding.remove(&id);
            }
        }
        self.expiry.retain(|g| !g.members.is_empty());
        // This step's spawns joined the pool at its end with age 0.
        if !self.pending_expiry.is_empty() {
            let members = self
                .pending_expiry
                .drain(..)
                .map(|(id, l)| Reverse((l.to_bits(), id)))
                .collect();
            self.expiry.push(ExpiryGroup { age: 0.0, members });
        }
        if let Engine::Cpu(s) = &self.engine {
            let c = s.counters;
            self.latest = Some(Status::from_counters(self.step, self.capacity, &c));
            self.settle(self.step, c.spawn_accepted);
        }
    }

    /// Blocks until the GPU has finished all submitted steps (no-op on the CPU).
    ///
    /// # Errors
    /// [`Error::Gpu`] if the device is lost.
    pub fn wait(&self) -> Result<()> {
        match &self.engine {
            Engine::Gpu(g) => g.ctx.wait(),
            Engine::Cpu(_) => Ok(()),
        }
    }
}
