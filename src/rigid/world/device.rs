//! Device work a caller may want up front (compiling every rigid kernel now rather than on
//! first use) and how [`RigidWorld::step`] hands its work to the GPU.

use super::*;

impl RigidWorld {
    /// Blocks until the device has finished every step submitted so far (GPU; returns at once
    /// on the CPU), as [`crate::particles::ParticleWorld::wait`] does; then
    /// [`poll_reports`](Self::poll_reports) returns the report of the last step.
    ///
    /// # Errors
    /// [`Error::Gpu`] when the device is lost.
    pub fn wait(&self) -> Result<()> {
        match &self.engine {
            Engine::Gpu(g) => g.rigid.ctx.wait(),
            Engine::Cpu(_) => Ok(()),
        }
    }

    /// How many times the world's GPU buffers were replaced: a growth of its capacities (by
    /// `auto_grow`, [`RigidWorld::grow_pairs`], a grid cell that changed size) or a load makes
    /// new buffers (every buffer of [`RigidWorld::render_buffers`] and the rest), and a
    /// renderer holding a bind group of the old ones rebuilds it when this changes. 0 on the
    /// CPU.
    pub fn buffers_generation(&self) -> u64 {
        match &self.engine {
            Engine::Gpu(g) => g.generation,
            Engine::Cpu(_) => 0,
        }
    }

    /// Compiles every rigid kernel now. Kernels are otherwise compiled the first time a step
    /// needs them (the first explosion, the first colour count above the last, ...), and on a
    /// software adapter one compile can take up to a second: a game calls this while loading.
    /// It also checks every kernel against the device's limits at once, so a device too small
    /// for a kernel a later step would need is an error here. Kernels come in variants by the
    /// optional code they carry (joint rows, convex sweeps, sweeps against level geometry):
    /// the variants with none and with the first two are compiled, and the one this world's
    /// steps use now, so call this once the world's joints, hulls and level geometry are in
    /// (a world that gains them later compiles their variant at its next step). Nothing to do
    /// on the CPU.
    ///
    /// # Errors
    /// [`Error::Gpu`] naming the failure when the device refuses a kernel.
    pub fn precompile(&mut self) -> Result<()> {
        // Plan the step as it stands first: a new grid rebuilds the backend (its grid and sort
        // kernels with it), which the first step would otherwise do.
        self.replan()?;
        let shape = self.step_shape();
        if let Engine::Gpu(g) = &mut self.engine {
            let ctx = g.rigid.ctx.clone();
            ctx.guard("compiling the rigid kernels", || {
                g.rigid.compile_all();
                g.rigid.compile_for(&shape);
                Ok(())
            })?;
        }
        Ok(())
    }

    /// Whether [`RigidWorld::step`] submits the step in parts as it records it: the broad
    /// phase as soon as it is recorded, the phases after it up to the solver's (collide, and
    /// colour when the colouring runs in rounds of passes) as soon as they are, and the solve
    /// phase last, so the GPU runs the first phases while the host records the solver's
    /// dispatches. A small scene's step (one pass) is never split. `false` records the whole
    /// step and submits it once. The same
    /// passes and dispatches run in the same order either way, so the results are the same
    /// bits. The default is on for hardware adapters and off for CPU adapters
    /// ([`crate::gpu::GpuContext::submits_overlap`]: Mesa's lavapipe waits on the host for the
    /// previous submission). Steps recorded with [`RigidWorld::encode_step`] go into the
    /// caller's encoder whole. Nothing to do on the CPU.
    pub fn set_submit_by_phase(&mut self, on: bool) {
        if let Engine::Gpu(g) = &mut self.engine {
            g.submit_by_phase = on;
        }
    }

    /// Whether the block solver ([`RigidConfig::with_blocks`]) copies each bin's bodies into
    /// workgroup memory for its velocity stages (warm apply, the biased and relax sweeps,
    /// restitution), solves every colour of every sweep against the copy, and writes the
    /// moved bodies' velocities back once per dispatch, instead of loading and storing the
    /// bodies of every contact of every colour from the bodies buffer. A bin of more than 256
    /// contacts or 112 bodies is solved from the buffer either way. The same operations on the
    /// same values in the same order, so the same bits (`rigid_solver_passes`'
    /// `block_staging_changes_no_bit`).
    ///
    /// Why: a block's workgroup walks its colours one after another, and on an H100 each
    /// colour cost the chain of dependent loads of one contact, about 3 µs, which made the
    /// block solver slower there than solving colour by colour (BENCHMARKS.md, 2026-11-26, `ce68020`);
    /// with the copy a colour waits on two dependent loads from the buffers instead of three.
    /// Off by default until it has run on a hardware GPU: on lavapipe, where what costs is
    /// the accesses and not their latency, the 5k and 20k walls step within the VM's noise
    /// either way (blocks of 4, 8 or 16 cells, alternated; BENCHMARKS.md, 2026-11-27, `96b75f9`).
    /// [`RigidStepReport::staged_bins`] and [`RigidStepReport::unstaged_bins`] say how many bins were
    /// staged. Nothing to do without blocks or on the CPU.
    pub fn set_block_staging(&mut self, on: bool) {
        if let Engine::Gpu(g) = &mut self.engine {
            g.block_staging = on;
        }
    }

    /// What the GPU step's plan depends on, at the current sizes.
    pub(super) fn step_shape(&self) -> StepShape {
        let c = &self.config;
        StepShape {
            bodies: self.bodies.len() as u32,
            shapes: self.shapes.len() as u32,
            large: self.plan.large.len() as u32,
            pair_capacity: self.slot_capacity(),
            substeps: c.substeps,
            velocity_iterations: c.velocity_iterations,
            relax_iterations: c.relax_iterations,
            position_iterations: c.position_iterations,
            explosion: self.explosion.is_some(),
            joints: self.joints.slots(),
            joint_filter: !self.joints.filter.is_empty(),
            generators: self.generators.any(),
            fracture: self.fracture.any(),
            colour_slots: self.colour_slots,
            block_bins: if self.blocks_run() {
                block_bins(c, self.body_capacity)
            } else {
                0
            },
            block_stage: self.blocks_run()
                && matches!(&self.engine, Engine::Gpu(g) if g.block_staging),
            hulls: self.hulls.convex(),
            ccd_convex: self.hulls.convex() || self.hulls.level.any() || self.ccd_convex_shapes > 0,
            level: self.hulls.level.any(),
            events: self.events.on,
        }
    }
}

/// What a particle world steps against (`ParticleWorld::step_with_rigid`): the GPU's `bodies`
/// and `shapes` buffers and the shape slots in use, or on the CPU the host tables.
pub(crate) enum ParticleTables<'a> {
    /// The GPU's buffers, their context and the shape slots in use.
    Gpu {
        ctx: &'a crate::gpu::GpuContext,
        bodies: &'a wgpu::Buffer,
        shapes: &'a wgpu::Buffer,
        shape_count: usize,
    },
    /// The CPU twin's bodies and shapes.
    Cpu {
        bodies: &'a [GpuBody],
        shapes: &'a [GpuShape],
    },
}

impl RigidWorld {
    /// The tables a particle world collides with (see [`ParticleTables`]).
    pub(crate) fn particle_tables(&self) -> ParticleTables<'_> {
        match &self.engine {
            Engine::Gpu(g) => ParticleTables::Gpu {
                ctx: &g.rigid.ctx,
                bodies: &g.rigid.bodies,
                shapes: &g.rigid.shapes,
                shape_count: self.shapes.len(),
            },
            Engine::Cpu(_) => ParticleTables::Cpu {
                bodies: &self.bodies,
                shapes: &self.shapes,
            },
        }
    }
}
