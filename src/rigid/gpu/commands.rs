//! Driving a [`GpuRigid`] by hand: its accessors, recording passes, the colour sort, the grid
//! and the indirect copy, queued writes and blocking reads.

use super::program::Variant;
use super::*;

impl GpuRigid {
    /// Group 0 for `entry` as the passes recorded next see it.
    pub(super) fn group0(&self, entry: &str) -> Option<&wgpu::BindGroup> {
        self.bind0
            .get(self.program.class(entry))
            .map(|pair| &pair[self.flip])
    }

    /// The sizes this backend was built with.
    pub fn sizes(&self) -> GpuRigidSizes {
        self.sizes
    }

    /// The grid over shape centres.
    pub fn grid(&self) -> &GpuGrid {
        &self.grid
    }

    /// The colouring's sort of pair slots by colour (its output buffer is
    /// [`order`](Self::order)).
    pub fn colour_sort(&self) -> &GpuRadixSort {
        &self.colour_sort
    }

    /// Compiles the pipeline of every entry point of the rigid shader now (see
    /// [`crate::rigid::RigidWorld::precompile`]).
    pub fn compile_all(&mut self) {
        let mut entries: Vec<&'static str> = self.program.class_of.keys().copied().collect();
        entries.sort_unstable();
        for entry in entries {
            self.pipeline(entry, 0);
            self.pipeline(entry, Variant::ALL);
        }
    }

    /// Compiles the pipeline of every entry point of the rigid shader in the variant the steps
    /// of a world of `shape` use (which optional code its kernels carry: joint rows, convex
    /// sweeps, sweeps against level geometry), the variant [`Self::compile_all`] may not
    /// cover (see [`crate::rigid::RigidWorld::precompile`]).
    pub fn compile_for(&mut self, shape: &crate::rigid::step::StepShape) {
        let variant = Variant::of(shape);
        let mut entries: Vec<&'static str> = self.program.class_of.keys().copied().collect();
        entries.sort_unstable();
        for entry in entries {
            self.pipeline(entry, variant);
        }
    }

    /// Compiles `entry`'s pipeline in `variant` (`program::Variant`) unless it is compiled.
    pub(super) fn pipeline(&mut self, entry: &'static str, variant: u8) {
        if !self.pipelines.contains_key(&(entry, variant)) {
            let p = self.program.pipeline(&self.ctx.device, entry, variant);
            self.pipelines.insert((entry, variant), p);
        }
    }

    /// Records the queued writes, then `passes` in order, each in its own labelled compute
    /// pass.
    pub fn record(&mut self, encoder: &mut wgpu::CommandEncoder, passes: &[Pass]) {
        self.uploads.record(encoder);
        // Passes recorded one by one (tests and tools) carry every optional part.
        for p in passes {
            self.pipeline(p.entry, Variant::ALL);
        }
        for p in passes {
            let Some(pipeline) = self.pipelines.get(&(p.entry, Variant::ALL)) else {
                continue;
            };
            let label = format!("wgphys:pass:{}", p.entry);
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(&label),
                timestamp_writes: None,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, self.group0(p.entry), &[]);
            let offset = (p.colour.min(PASS_RECORDS - 1) as u64 * PASS_STRIDE) as u32;
            pass.set_bind_group(1, &self.bind1, &[offset]);
            match p.dispatch {
                PassDispatch::Direct(x) => {
                    if x > 0 {
                        pass.dispatch_workgroups(x, 1, 1);
                    }
                }
                PassDispatch::Indirect(word) => {
                    pass.dispatch_workgroups_indirect(&self.indirect, 4 * u64::from(word));
                }
            }
        }
    }

    /// Records the colouring's sort of the first `slots` pair slots by colour in a compute pass
    /// of its own (the step records it inside its collide pass; tests that record stage by
    /// stage call this between `colour_keys` and `colour_ranges`).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when `slots` exceeds the pair capacity.
    pub fn record_colour_sort(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        slots: u32,
    ) -> Result<()> {
        self.uploads.record(encoder);
        self.colour_sort.encode(encoder, slots)
    }

    /// Copies the counters into the indirect-argument buffer (after the broad phase, before the
    /// per-pair passes; after the colouring passes, before the indirect solver passes). Writes
    /// queued before it are recorded first, so the copy sees them.
    pub fn record_indirect_copy(&self, encoder: &mut wgpu::CommandEncoder) {
        self.uploads.record(encoder);
        encoder.copy_buffer_to_buffer(
            &self.counters,
            0,
            &self.indirect,
            0,
            4 * counter::LEN as u64,
        );
    }

    /// Swaps the roles of `manifolds` and `manifolds_prev` for the passes recorded next: call
    /// once per (sub)step, before its narrow phase, so the solver warm-starts from the previous
    /// (sub)step's manifolds.
    pub fn flip_manifolds(&mut self) {
        self.flip ^= 1;
    }

    /// The buffer the passes recorded next see as `manifolds` (this step's output).
    pub fn current_manifolds(&self) -> &wgpu::Buffer {
        if self.flip == 0 {
            &self.manifolds
        } else {
            &self.manifolds_prev
        }
    }

    /// Records a grid build over the first `n` shape centres.
    ///
    /// # Errors
    /// As [`GpuGrid::encode_build`].
    pub fn record_grid(&mut self, encoder: &mut wgpu::CommandEncoder, n: u32) -> Result<()> {
        self.uploads.record(encoder);
        self.grid.encode_build(encoder, &self.shape_pos, n)
    }

    /// Queues `data` for the start of `buffer`: it is copied in at the head of the next
    /// recording (a step, [`record`](Self::record), [`record_grid`](Self::record_grid)) or
    /// before the next [`read`](Self::read), in order with the steps around it.
    pub fn write<T: bytemuck::Pod>(&self, buffer: &wgpu::Buffer, data: &[T]) {
        self.write_at(buffer, 0, data);
    }

    /// Queues `data` for byte `offset` of `buffer` (as [`write`](Self::write)).
    pub fn write_at<T: bytemuck::Pod>(&self, buffer: &wgpu::Buffer, offset: u64, data: &[T]) {
        self.uploads.write(buffer, offset, data);
    }

    /// Makes this backend (just built by [`resized`](Self::resized)) carry on from `old`: the
    /// first `bodies` body records, the counters and the last step's manifolds are copied on
    /// the device at the head of this backend's next recording, after everything `old` still
    /// had queued, and so are the first `joints` joints (their impulses and feedback are the
    /// device's). Nothing is read
    /// back, so steps recorded into an encoder not yet submitted keep their effect. The hull
    /// store comes along whole (its buffer as large as `old`'s).
    ///
    /// # Errors
    /// GPU errors from making the bind groups over a larger hull buffer.
    pub fn carry_from(&mut self, old: &mut GpuRigid, bodies: usize, joints: usize) -> Result<()> {
        let label = "wgphys:upload:rigid";
        let older = std::mem::replace(&mut old.uploads, StepUploads::new(&old.ctx, label));
        self.uploads.adopt(older);
        let body_bytes = (bodies * size_of::<GpuBody>()) as u64;
        self.uploads.copy(&old.bodies, &self.bodies, body_bytes);
        self.uploads
            .copy(&old.counters, &self.counters, 4 * counter::LEN as u64);
        // The last step's manifolds, the next step's warm start and contact events (a slot
        // names shapes and bodies, which keep their slots; the slots only grow).
        let slots = old.sizes.pairs.min(self.sizes.pairs) as u64;
        let manifold_bytes = slots * size_of::<GpuManifold>() as u64;
        if manifold_bytes > 0 {
            self.uploads.copy(
                old.current_manifolds(),
                self.current_manifolds(),
                manifold_bytes,
            );
        }
        let joint_bytes = (joints.min(old.sizes.joints as usize) * size_of::<GpuJoint>()) as u64;
        if joint_bytes > 0 {
            self.uploads.copy(&old.joints, &self.joints, joint_bytes);
        }
        if old.hull_capacity > self.hull_capacity {
            let bytes = 16 * old.hull_capacity;
            self.hulls = buffer::zeroed(&self.ctx.device, "rigid_hulls", bytes, STATE);
            self.hull_capacity = old.hull_capacity;
            self.bind0 = self.bind_groups()?;
        }
        self.uploads
            .copy(&old.hulls, &self.hulls, 16 * old.hull_capacity);
        self.hull_words = old.hull_words;
        Ok(())
    }

    /// Records the queued writes into `encoder` (the head of a step).
    pub fn record_uploads(&self, encoder: &mut wgpu::CommandEncoder) {
        self.uploads.record(encoder);
    }

    /// Reads the first `n` elements of `buffer`, blocking.
    ///
    /// # Errors
    /// [`Error::Gpu`] when the readback fails.
    pub fn read<T: bytemuck::Pod>(&self, buffer: &wgpu::Buffer, n: usize) -> Result<Vec<T>> {
        // The queued writes go first, inside the same error scopes as the readback.
        crate::gpu::context::scoped(&self.ctx.device, "a rigid readback", || {
            self.uploads.submit();
            buffer::read_vec(&self.ctx.device, &self.ctx.queue, buffer, n)
        })
    }

    /// Runs `passes` in one submission and waits (tests and tools; `step` records into one
    /// encoder instead).
    ///
    /// # Errors
    /// [`Error::Gpu`] when the device is lost.
    pub fn run(&mut self, passes: &[Pass]) -> Result<()> {
        let mut encoder = self
            .ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("wgphys:rigid_run"),
            });
        self.record(&mut encoder, passes);
        self.ctx.queue.submit([encoder.finish()]);
        self.ctx.wait()
    }
}
