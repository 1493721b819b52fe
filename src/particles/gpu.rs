//! GPU host code for the particle stages: buffers, kernels and the step recorder. The stages and
//! their order match src/particles/cpu.rs; the WGSL lives in shaders/particles/.

use super::depth::GpuDepth;
use super::step::{ParticleStage, ParticleStep};
use super::types::*;
use super::view_sort::{GpuView, GpuViewSort};
use crate::error::{Error, Result};
use crate::gpu::buffer::{self, STATE};
use crate::gpu::kernel::{Dispatch, Kernel};
use crate::gpu::sort::GpuRadixSort;
use crate::gpu::timing::StepTimer;
use crate::gpu::upload::StepUploads;
use crate::gpu::GpuContext;
use std::mem::size_of;
use wgpu::BufferUsages as U;

pub use super::shader::{
    binding, shader_source, storage_buffers_per_stage, ScratchLayout, BINDINGS,
};

use crate::gpu::status::StatusRing;
pub use status::Landed;

mod effects;
mod integrate;
mod rigid;
mod status;

use integrate::{Features, IntegrateKernels};

/// Every buffer of a GPU particle world. The render-facing ones (`pos`, `colour`, `size`,
/// `draw_args`) are documented on [`crate::particles::ParticleWorld::render_buffers`].
#[derive(Debug)]
pub struct Buffers {
    pub(crate) params: wgpu::Buffer,
    pub(crate) pos: wgpu::Buffer,
    pub(crate) vel: wgpu::Buffer,
    pub(crate) acc: wgpu::Buffer,
    pub(crate) life: wgpu::Buffer,
    pub(crate) colour: wgpu::Buffer,
    pub(crate) size: wgpu::Buffer,
    pub(crate) counters: wgpu::Buffer,
    pub(crate) scratch: wgpu::Buffer,
    pub(crate) colliders: wgpu::Buffer,
    pub(crate) rules: wgpu::Buffer,
    pub(crate) payloads: wgpu::Buffer,
    pub(crate) emitters: wgpu::Buffer,
    pub(crate) curves: wgpu::Buffer,
    /// Per emitter slot, six ordered-float keys of its particles' box (see bounds.wgsl).
    pub(crate) bounds_keys: wgpu::Buffer,
    /// Per emitter slot, its particles' box: (min, 1) and (max, 1), or (+inf, 0), (-inf, 0).
    pub(crate) emitter_bounds: wgpu::Buffer,
    /// Trails: `trail_length` positions per slot (see trails.wgsl).
    pub(crate) trails: wgpu::Buffer,
    pub(crate) staging: wgpu::Buffer,
    pub(crate) args_step: wgpu::Buffer,
    pub(crate) args_append: wgpu::Buffer,
    /// The step's handle deaths by the bounds: a count, then that many host ids.
    pub(crate) deaths: wgpu::Buffer,
    pub(crate) draw_args: wgpu::Buffer,
}

/// Bytes of per-particle storage for `capacity` particles, per array, largest first.
pub fn largest_buffer_bytes(capacity: u32) -> u64 {
    u64::from(capacity) * size_of::<GpuSpawnRecord>() as u64
}

struct Kernels {
    scan_reduce: Kernel,
    scan_blocks: Kernel,
    emit: Kernel,
    spawn_emitted: Kernel,
    compact: Kernel,
    append: Kernel,
    depth_keys: Kernel,
    emitter_bounds: Kernel,
    bounds_publish: Kernel,
    trail_compact: Kernel,
    trail_append: Kernel,
    trail_push: Kernel,
}

/// The GPU backend of a particle world.
pub struct GpuParticles {
    pub(crate) ctx: GpuContext,
    pub(crate) capacity: u32,
    pub(crate) bufs: Buffers,
    removal_capacity: u32,
    kernels: Kernels,
    status: StatusRing,
    timing: Option<StepTimer>,
    uploads: StepUploads,
    /// The stages the last encoded step ran, in order.
    pub(crate) last_stages: Vec<ParticleStage>,
    /// The back-to-front order, when on.
    view_sort: Option<GpuViewSort>,
    /// Positions per trail (0: none).
    pub(crate) trail_length: u32,
    /// The depth collider's uniform and the depth texture it reads (a 2x2 stand-in when off).
    depth: wgpu::Buffer,
    depth_view: wgpu::TextureView,
    /// The depth texture `depth_view` shows, when one is set.
    depth_texture: Option<wgpu::Texture>,
    /// Stage `integrate`, compiled for the features a step needs (`integrate::Features`).
    integrate: IntegrateKernels,
    /// The composed module, kept for the integrate kernel's variants.
    module: wgpu::ShaderModule,
    /// Whether the depth collider is on (`set_depth`).
    depth_on: bool,
    /// Whether the world has firework rules.
    fireworks: bool,
    /// Whether the world has had an emitter (`Frame::bounds` on some step).
    emitters_seen: bool,
    /// Stage `rigid_contacts`, once a step has had a rigid world (`rigid.rs`).
    rigid: Option<rigid::RigidContacts>,
    /// How many times a buffer `render_buffers` hands out was replaced (a growth, a new
    /// back-to-front order).
    pub(crate) generation: u64,
}

/// What one step hands to the GPU.
pub struct Frame<'a> {
    /// The uniform block.
    pub params: GpuParams,
    /// Host spawns for staging[0..n).
    pub spawns: &'a [GpuSpawnRecord],
    /// Sorted ids to remove.
    pub removals: &'a [u32],
    /// What the step runs ([`ParticleStep::sequence`]).
    pub stages: ParticleStep,
    /// Host step index (for status bookkeeping).
    pub step: u64,
    /// Whether to copy the counters for an asynchronous status read this step.
    pub want_status: bool,
    /// Handle deaths by the bounds the status copy makes room for (the host handles that may
    /// be in the pool; 0 without kill bounds).
    pub deaths_room: u32,
}

/// The particle state every stage that moves particles binds.
fn state_bindings(b: &Buffers) -> [(u32, &wgpu::Buffer); 6] {
    use binding::*;
    [
        (POS, &b.pos),
        (VEL, &b.vel),
        (ACC, &b.acc),
        (LIFE, &b.life),
        (COLOUR, &b.colour),
        (SIZE, &b.size),
    ]
}

fn storage(ctx: &GpuContext, name: &str, bytes: u64, extra: U) -> wgpu::Buffer {
    buffer::zeroed(&ctx.device, name, bytes, STATE | extra)
}

/// A 2x2 depth texture the integrate kernel binds while no depth collider is set (the
/// collider is off then, so it is never read).
fn stand_in_depth(device: &wgpu::Device) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("wgphys:depth_stand_in"),
            size: wgpu::Extent3d {
                width: 2,
                height: 2,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Depth32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
        .create_view(&wgpu::TextureViewDescriptor::default())
}

impl GpuParticles {
    /// Creates the buffers and kernels for `capacity` particles with the given static tables.
    ///
    /// # Errors
    /// [`Error::CapacityTooLarge`] when a buffer would exceed the device's binding limit.
    pub fn new(
        ctx: &GpuContext,
        capacity: u32,
        colliders: &[GpuCollider],
        rules: &[GpuRule],
        payloads: &[GpuPayload],
        trail_length: u32,
    ) -> Result<Self> {
        check_capacity(ctx, capacity, trail_length)?;
        let device = &ctx.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgphys:shader:particles"),
            source: wgpu::ShaderSource::Wgsl(shader_source().into()),
        });
        let kernels = Kernels {
            scan_reduce: Kernel::new(device, &module, "scan_reduce"),
            scan_blocks: Kernel::new(device, &module, "scan_blocks"),
            emit: Kernel::new(device, &module, "emit"),
            spawn_emitted: Kernel::new(device, &module, "spawn_emitted"),
            depth_keys: Kernel::new(device, &module, "depth_keys"),
            emitter_bounds: Kernel::new(device, &module, "emitter_bounds"),
            bounds_publish: Kernel::new(device, &module, "bounds_publish"),
            trail_compact: Kernel::new(device, &module, "trail_compact"),
            trail_append: Kernel::new(device, &module, "trail_append"),
            trail_push: Kernel::new(device, &module, "trail_push"),
            compact: Kernel::new(device, &module, "compact"),
            append: Kernel::new(device, &module, "append"),
        };
        let bufs = Self::make_buffers(ctx, capacity, colliders, rules, payloads, 64, trail_length);
        let mut me = Self {
            ctx: ctx.clone(),
            capacity,
            bufs,
            removal_capacity: 64,
            kernels,
            status: StatusRing::new("particle_status"),
            timing: None,
            uploads: StepUploads::new(ctx, "wgphys:upload:particles"),
            view_sort: None,
            last_stages: Vec::new(),
            trail_length,
            depth: buffer::zeroed(
                &ctx.device,
                "depth",
                size_of::<GpuDepth>() as u64,
                U::UNIFORM | U::COPY_DST,
            ),
            depth_view: stand_in_depth(&ctx.device),
            depth_texture: None,
            integrate: IntegrateKernels::default(),
            module,
            depth_on: false,
            fireworks: !rules.is_empty(),
            emitters_seen: false,
            rigid: None,
            generation: 0,
        };
        me.bind_all();
        Ok(me)
    }

    fn make_buffers(
        ctx: &GpuContext,
        capacity: u32,
        colliders: &[GpuCollider],
        rules: &[GpuRule],
        payloads: &[GpuPayload],
        removal_capacity: u32,
        trail_length: u32,
    ) -> Buffers {
        let n = u64::from(capacity);
        let d = &ctx.device;
        let v4 = 16 * n;
        let scratch = ScratchLayout::new(capacity).bytes(removal_capacity);
        Buffers {
            params: buffer::zeroed(
                d,
                "params",
                size_of::<GpuParams>() as u64,
                U::UNIFORM | U::COPY_DST,
            ),
            pos: storage(ctx, "pos", v4, U::VERTEX),
            vel: storage(ctx, "vel", v4, U::VERTEX),
            acc: storage(ctx, "acc", v4, U::empty()),
            life: storage(ctx, "life", n * size_of::<GpuLife>() as u64, U::empty()),
            colour: storage(ctx, "colour", v4, U::VERTEX),
            size: storage(ctx, "size", 4 * n, U::VERTEX),
            counters: storage(ctx, "counters", size_of::<GpuCounters>() as u64, U::empty()),
            scratch: storage(ctx, "scratch", scratch, U::empty()),
            colliders: buffer::uniform_table(d, "colliders", colliders, MAX_COLLIDERS),
            rules: buffer::uniform_table(d, "rules", rules, MAX_RULES),
            payloads: buffer::uniform_table(d, "payloads", payloads, MAX_PAYLOADS),
            emitters: buffer::uniform_table::<GpuEmitter>(d, "emitters", &[], MAX_EMITTERS),
            curves: buffer::uniform_table::<GpuCurves>(d, "curves", &[], MAX_EMITTERS),
            bounds_keys: storage(ctx, "bounds_keys", 24 * u64::from(MAX_EMITTERS), U::empty()),
            emitter_bounds: storage(
                ctx,
                "emitter_bounds",
                32 * u64::from(MAX_EMITTERS),
                U::empty(),
            ),
            trails: storage(
                ctx,
                "trails",
                (16 * n * u64::from(trail_length)).max(16),
                U::VERTEX,
            ),
            staging: storage(ctx, "staging", largest_buffer_bytes(capacity), U::empty()),
            args_step: storage(ctx, "args_step", 24, U::INDIRECT),
            args_append: storage(ctx, "args_append", 12, U::INDIRECT),
            draw_args: storage(ctx, "draw_args", 16, U::INDIRECT),
            deaths: storage(ctx, "deaths", 4 * (n + 1), U::empty()),
        }
    }

    fn bind_all(&mut self) {
        use binding::*;
        self.rebind_rigid();
        let b = &self.bufs;
        let d = &self.ctx.device;
        let k = &mut self.kernels;
        let state = state_bindings(b);
        fn join<'a>(
            a: &[(u32, &'a wgpu::Buffer)],
            b: &[(u32, &'a wgpu::Buffer)],
        ) -> Vec<(u32, &'a wgpu::Buffer)> {
            a.iter().chain(b).copied().collect()
        }
        for kernel in self.integrate.compiled_mut() {
            kernel.bind_resources(d, integrate::resources(b, &self.depth, &self.depth_view));
        }

        k.scan_reduce.bind(
            d,
            &[
                (PARAMS, &b.params),
                (COUNTERS, &b.counters),
                (SCRATCH, &b.scratch),
            ],
        );
        k.scan_blocks.bind(
            d,
            &[
                (PARAMS, &b.params),
                (COUNTERS, &b.counters),
                (SCRATCH, &b.scratch),
                (ARGS_APPEND, &b.args_append),
                (DEATHS, &b.deaths),
            ],
        );
        k.emit.bind(
            d,
            &[
                (PARAMS, &b.params),
                (POS, &b.pos),
                (VEL, &b.vel),
                (LIFE, &b.life),
                (COUNTERS, &b.counters),
                (SCRATCH, &b.scratch),
                (STAGING, &b.staging),
                (RULES, &b.rules),
                (PAYLOADS, &b.payloads),
                (DEATHS, &b.deaths),
                (EMITTERS, &b.emitters),
                (CURVES, &b.curves),
            ],
        );
        k.spawn_emitted.bind(
            d,
            &[
                (PARAMS, &b.params),
                (COUNTERS, &b.counters),
                (STAGING, &b.staging),
                (EMITTERS, &b.emitters),
                (CURVES, &b.curves),
            ],
        );
        k.compact.bind(
            d,
            &join(
                &state,
                &[
                    (PARAMS, &b.params),
                    (COUNTERS, &b.counters),
                    (SCRATCH, &b.scratch),
                ],
            ),
        );
        k.trail_compact.bind(
            d,
            &[
                (PARAMS, &b.params),
                (COUNTERS, &b.counters),
                (SCRATCH, &b.scratch),
                (TRAILS, &b.trails),
            ],
        );
        k.trail_append.bind(
            d,
            &[
                (PARAMS, &b.params),
                (COUNTERS, &b.counters),
                (STAGING, &b.staging),
                (TRAILS, &b.trails),
            ],
        );
        k.trail_push.bind(
            d,
            &[
                (PARAMS, &b.params),
                (POS, &b.pos),
                (COUNTERS, &b.counters),
                (TRAILS, &b.trails),
            ],
        );
        k.emitter_bounds.bind(
            d,
            &[
                (POS, &b.pos),
                (LIFE, &b.life),
                (COUNTERS, &b.counters),
                (BOUNDS_KEYS, &b.bounds_keys),
            ],
        );
        k.bounds_publish.bind(
            d,
            &[
                (BOUNDS_KEYS, &b.bounds_keys),
                (EMITTER_BOUNDS, &b.emitter_bounds),
            ],
        );
        if let Some(vs) = &self.view_sort {
            k.depth_keys.bind(
                d,
                &[
                    (PARAMS, &b.params),
                    (POS, &b.pos),
                    (COUNTERS, &b.counters),
                    (VIEW, &vs.view),
                    (SORT_KEYS, &vs.sort.keys),
                    (SORT_VALUES, &vs.sort.values),
                ],
            );
        }
        k.append.bind(
            d,
            &join(
                &state,
                &[
                    (PARAMS, &b.params),
                    (STAGING, &b.staging),
                    (COUNTERS, &b.counters),
                ],
            ),
        );
    }

    /// Grows every per-particle buffer to `capacity`, keeping the live particles and counters.
    ///
    /// # Errors
    /// [`Error::CapacityTooLarge`] beyond the device limit; [`Error::Gpu`] if waiting fails.
    pub fn grow(&mut self, capacity: u32) -> Result<()> {
        check_capacity(&self.ctx, capacity, self.trail_length)?;
        let old = &self.bufs;
        let new = Self::make_buffers(
            &self.ctx,
            capacity,
            &[],
            &[],
            &[],
            self.removal_capacity,
            self.trail_length,
        );
        // The live state moves over by device-side copies recorded at the head of the next
        // step (or submitted before the next read), so steps recorded into an encoder that is
        // not submitted yet keep their effect.
        let n = u64::from(self.capacity);
        for (src, dst, bytes) in [
            (&old.pos, &new.pos, 16 * n),
            (&old.vel, &new.vel, 16 * n),
            (&old.acc, &new.acc, 16 * n),
            (&old.life, &new.life, 16 * n),
            (&old.colour, &new.colour, 16 * n),
            (&old.size, &new.size, 4 * n),
            (
                &old.counters,
                &new.counters,
                size_of::<GpuCounters>() as u64,
            ),
            (&old.args_step, &new.args_step, 24),
            (&old.draw_args, &new.draw_args, 16),
            (
                &old.trails,
                &new.trails,
                16 * n * u64::from(self.trail_length),
            ),
        ] {
            self.uploads.copy(src, dst, bytes);
        }
        let keep = Buffers {
            colliders: old.colliders.clone(),
            rules: old.rules.clone(),
            payloads: old.payloads.clone(),
            emitters: old.emitters.clone(),
            curves: old.curves.clone(),
            emitter_bounds: old.emitter_bounds.clone(),
            ..new
        };
        self.bufs = keep;
        self.capacity = capacity;
        self.generation += 1;
        if let Some(vs) = &mut self.view_sort {
            vs.sort = GpuRadixSort::new(&self.ctx, capacity, 32)?;
        }
        self.bind_all();
        Ok(())
    }

    /// Submits the uploads not yet recorded into a step (a grow's copies), so a readback sees
    /// them.
    pub fn flush_uploads(&self) {
        self.uploads.submit();
    }

    /// Turns on per-step GPU timestamps (first pass start to last pass end), if the adapter
    /// supports them. Returns whether timing is on.
    pub fn enable_timing(&mut self) -> bool {
        self.timing = StepTimer::new(&self.ctx, "step", 1);
        self.timing.is_some()
    }

    /// GPU milliseconds of the last step (blocking readback; benchmarks only).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when timing is off; [`Error::Gpu`] on readback failure.
    pub fn last_step_gpu_ms(&self) -> Result<f64> {
        let t = self
            .timing
            .as_ref()
            .ok_or_else(|| Error::Unsupported("timestamp queries are off or unavailable".into()))?;
        Ok(t.read_ms(&self.ctx)?.iter().sum())
    }

    /// What the integrate kernel of a step must handle, given whether its field table holds
    /// turbulence and whether the world has emitters now.
    fn features(&mut self, turbulence: bool, emitters: bool) -> Features {
        self.emitters_seen |= emitters;
        Features {
            turbulence,
            depth: self.depth_on,
            fireworks: self.fireworks,
            emitters: self.emitters_seen,
        }
    }

    /// Compiles the integrate kernel's variant for a step with the first `count` of `fields`
    /// in the world's present state (see `features`), so that the step does not.
    pub fn precompile(&mut self, fields: &[GpuField], count: u32, emitters: bool) {
        let features = self.features(Features::turbulent(fields, count), emitters);
        let (b, depth, view) = (&self.bufs, &self.depth, &self.depth_view);
        self.integrate
            .variant(&self.ctx.device, &self.module, features, |kernel| {
                kernel.bind_resources(&self.ctx.device, integrate::resources(b, depth, view))
            });
    }

    /// Uploads the frame's inputs and records the step into `encoder` as one compute pass
    /// (`wgphys:pass:particle_step`) holding its dispatches in stage order: `integrate`, then
    /// with the lifecycle `scan_reduce`, `scan_blocks`, `emit`, `spawn_emitted` (when the
    /// emitters want particles), `compact` and `append`. wgpu
    /// keeps the order of dispatches inside a pass and makes each see the writes of the ones
    /// before it (the indirect arguments `scan_blocks` writes included).
    pub fn encode(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &Frame) {
        self.upload(encoder, frame);
        let p = &frame.params;
        let features = self.features(
            Features::turbulent(&p.fields, p.field_count),
            frame.stages.bounds,
        );
        let (b, depth, view) = (&self.bufs, &self.depth, &self.depth_view);
        let integrate =
            self.integrate
                .variant(&self.ctx.device, &self.module, features, |kernel| {
                    kernel.bind_resources(&self.ctx.device, integrate::resources(b, depth, view))
                });
        let sequence = frame.stages.sequence();
        let mut ran = Vec::with_capacity(sequence.len());
        let k = &self.kernels;
        let particles = Dispatch::Indirect(&b.args_step, 0);
        let blocks = Dispatch::Indirect(&b.args_step, 12);
        let appended = Dispatch::Indirect(&b.args_append, 0);
        let pool = Dispatch::Direct(self.capacity.div_ceil(WG));
        // Only slots below the capacity can be accepted: no more threads than that.
        let emitted = Dispatch::Direct(frame.params.emitted.min(self.capacity).div_ceil(WG));
        let emitters = Dispatch::Direct(MAX_EMITTERS.div_ceil(WG));
        let step_pass = ParticleStage::Integrate.pass();
        if let (Some(r), true) = (&self.rigid, sequence.contains(&ParticleStage::RigidCells)) {
            r.clear(encoder);
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(step_pass),
                timestamp_writes: self.timing.as_ref().map(|t| t.writes(0, true, true)),
            });
            for &stage in sequence.iter().filter(|s| s.pass() == step_pass) {
                use ParticleStage::*;
                ran.push(stage);
                match stage {
                    Integrate => integrate.dispatch_in(&mut pass, particles),
                    RigidCells => {
                        if let Some(r) = &self.rigid {
                            r.dispatch_cells(&mut pass, particles)
                        }
                    }
                    RigidContactsCells => {
                        if let Some(r) = &self.rigid {
                            r.dispatch_contacts_cells(&mut pass, particles)
                        }
                    }
                    RigidContacts => {
                        if let Some(r) = &self.rigid {
                            r.kernel.dispatch_in(&mut pass, particles)
                        }
                    }
                    ScanReduce => k.scan_reduce.dispatch_in(&mut pass, blocks),
                    ScanBlocks => k.scan_blocks.dispatch_in(&mut pass, Dispatch::Direct(1)),
                    Emit => k.emit.dispatch_in(&mut pass, blocks),
                    SpawnEmitted => k.spawn_emitted.dispatch_in(&mut pass, emitted),
                    Compact => k.compact.dispatch_in(&mut pass, blocks),
                    TrailCompact => k.trail_compact.dispatch_in(&mut pass, blocks),
                    Append => k.append.dispatch_in(&mut pass, appended),
                    TrailAppend => k.trail_append.dispatch_in(&mut pass, appended),
                    TrailPush => k.trail_push.dispatch_in(&mut pass, pool),
                    DepthKeys => k.depth_keys.dispatch_in(&mut pass, pool),
                    EmitterBounds | BoundsPublish | ViewSort => {}
                }
            }
        }
        if frame.stages.lifecycle {
            // `append` left the next step's indirect arguments in the counters; the indirect
            // buffers take them here, outside the pass (one buffer cannot be a dispatch's
            // indirect source and one of its storage bindings).
            encoder.copy_buffer_to_buffer(
                &b.counters,
                std::mem::offset_of!(GpuCounters, step_args) as u64,
                &b.args_step,
                0,
                24,
            );
            encoder.copy_buffer_to_buffer(
                &b.counters,
                std::mem::offset_of!(GpuCounters, draw_args) as u64,
                &b.draw_args,
                0,
                16,
            );
        }
        let bounds_pass = ParticleStage::EmitterBounds.pass();
        if sequence.contains(&ParticleStage::EmitterBounds) {
            // After the step: the box of each emitter's live particles (bounds.wgsl), over
            // the new live count (the indirect arguments were just copied).
            encoder.clear_buffer(&b.bounds_keys, 0, None);
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(bounds_pass),
                timestamp_writes: None,
            });
            for &stage in sequence.iter().filter(|s| s.pass() == bounds_pass) {
                ran.push(stage);
                match stage {
                    ParticleStage::EmitterBounds => {
                        k.emitter_bounds.dispatch_in(&mut pass, particles)
                    }
                    ParticleStage::BoundsPublish => {
                        k.bounds_publish.dispatch_in(&mut pass, emitters)
                    }
                    _ => {}
                }
            }
        }
        if let (true, Some(vs)) = (sequence.contains(&ParticleStage::ViewSort), &self.view_sort) {
            // The pairs `depth_keys` wrote, sorted over the whole pool (slots past the live ones
            // carry the largest key). The count is the sort's own capacity, which it never
            // refuses.
            let _ = vs.sort.encode(encoder, self.capacity);
            ran.push(ParticleStage::ViewSort);
        }
        self.last_stages = ran;
        if let Some(t) = &self.timing {
            t.resolve(encoder);
        }
        if frame.want_status {
            let room = if frame.stages.lifecycle {
                frame.deaths_room.min(self.capacity)
            } else {
                0
            };
            self.record_status(encoder, frame.step, room);
        }
    }

    /// Records the step's uploads into `encoder` ahead of its pass (see [`StepUploads`]).
    fn upload(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &Frame) {
        self.uploads.write(&self.bufs.params, 0, &[frame.params]);
        self.uploads.write(&self.bufs.staging, 0, frame.spawns);
        if !frame.removals.is_empty() {
            let layout = ScratchLayout::new(self.capacity);
            if frame.removals.len() as u32 > self.removal_capacity {
                // The scratch words hold nothing from one step to the next: a larger buffer
                // replaces it without a copy.
                self.removal_capacity = (frame.removals.len() as u32).next_power_of_two();
                self.bufs.scratch = buffer::zeroed(
                    &self.ctx.device,
                    "scratch",
                    layout.bytes(self.removal_capacity),
                    STATE,
                );
                self.bind_all();
            }
            self.uploads
                .write(&self.bufs.scratch, 4 * layout.removal_base, frame.removals);
        }
        self.uploads.record(encoder);
    }

    /// Blocking read of the counters (tests and explicit reads).
    ///
    /// # Errors
    /// [`Error::Gpu`] on readback failure.
    pub fn read_counters(&self) -> Result<GpuCounters> {
        self.flush_uploads();
        let v: Vec<GpuCounters> =
            buffer::read_vec(&self.ctx.device, &self.ctx.queue, &self.bufs.counters, 1)?;
        v.first()
            .copied()
            .ok_or_else(|| Error::Gpu("empty counters readback".into()))
    }

    /// Blocking read of the first `n` particles' state.
    ///
    /// # Errors
    /// [`Error::Gpu`] on readback failure.
    pub fn read_state(&self, n: usize) -> Result<super::Snapshot> {
        self.flush_uploads();
        let (d, q, b) = (&self.ctx.device, &self.ctx.queue, &self.bufs);
        Ok(super::Snapshot {
            pos: buffer::read_vec(d, q, &b.pos, n)?,
            vel: buffer::read_vec(d, q, &b.vel, n)?,
            acc: buffer::read_vec(d, q, &b.acc, n)?,
            life: buffer::read_vec(d, q, &b.life, n)?,
            colour: buffer::read_vec(d, q, &b.colour, n)?,
            size: buffer::read_vec(d, q, &b.size, n)?,
        })
    }
}

/// The largest capacity `ctx`'s device holds with trails of `trail_length` positions: the
/// staging records and the trail ring are the largest per-particle buffers, and the step
/// dispatches one workgroup per WG slots.
pub fn max_capacity(ctx: &GpuContext, trail_length: u32) -> u32 {
    let max = ctx.max_binding_bytes();
    let per = (size_of::<GpuSpawnRecord>() as u64).max(16 * u64::from(trail_length));
    let groups = u64::from(ctx.device.limits().max_compute_workgroups_per_dimension);
    u32::try_from((max / per).min(groups * u64::from(WG))).unwrap_or(u32::MAX)
}

fn check_capacity(ctx: &GpuContext, capacity: u32, trail_length: u32) -> Result<()> {
    let max = ctx.max_binding_bytes();
    let trail_bytes = 16 * u64::from(capacity) * u64::from(trail_length);
    if trail_bytes > max {
        return Err(Error::CapacityTooLarge {
            capacity,
            needed_bytes: trail_bytes,
            max_bytes: max,
            max_capacity: max_capacity(ctx, trail_length),
        });
    }
    let needed = largest_buffer_bytes(capacity);
    if needed > max {
        let per = size_of::<GpuSpawnRecord>() as u64;
        return Err(Error::CapacityTooLarge {
            capacity,
            needed_bytes: needed,
            max_bytes: max,
            max_capacity: u32::try_from(max / per).unwrap_or(u32::MAX),
        });
    }
    // The step dispatches one workgroup per WG live slots, indirectly: more would exceed the
    // device's workgroups per dispatch (wgpu skips such a dispatch, or without its indirect
    // validation the result is undefined).
    let groups = ctx.device.limits().max_compute_workgroups_per_dimension;
    if capacity.div_ceil(WG) > groups {
        return Err(Error::InvalidCapacity {
            capacity,
            reason: format!(
                "a step dispatches one workgroup per {WG} particles and this device allows {groups} \
                 workgroups per dispatch: use at most {} particles per world",
                u64::from(groups) * u64::from(WG)
            ),
        });
    }
    Ok(())
}
