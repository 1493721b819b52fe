//! What a rigid step runs and how long it takes: the GPU plan of passes and dispatches, the CPU
//! twin's stage trace, and GPU timestamps per phase (compute pass), per stage and (for
//! profiling) per dispatch, read back by benchmarks and tools.

use super::*;

impl RigidWorld {
    /// The stages the CPU twin ran in the last step, in order (`None` on the GPU): the
    /// stage sequence `tests/rigid_step.rs` holds against the GPU plan's.
    #[doc(hidden)]
    pub fn cpu_stage_trace(&self) -> Option<&[crate::rigid::step::RigidStage]> {
        match &self.engine {
            Engine::Cpu(c) => Some(&c.trace),
            Engine::Gpu(_) => None,
        }
    }

    /// The GPU step the next [`RigidWorld::step`] records at the current sizes: its compute
    /// passes and dispatches in order (see [`crate::rigid::step`]); `None` on the CPU.
    pub fn step_plan(&self) -> Option<StepPlan> {
        match &self.engine {
            Engine::Gpu(g) => Some(g.rigid.plan(self.step_shape())),
            Engine::Cpu(_) => None,
        }
    }

    /// Compute dispatches one [`RigidWorld::step`] records on the GPU, all substeps together,
    /// counted from [`RigidWorld::step_plan`]. Above [`solver::FUSED_MAX_MANIFOLDS`] pair slots
    /// the solver dispatches, per sweep, one indirect dispatch per colour slot
    /// ([`RigidWorld::colour_slots`]), each sized by the colouring (an empty colour launches no
    /// workgroup).
    /// Describes the next step at the current sizes; `None` on the CPU.
    pub fn dispatches_per_step(&self) -> Option<u32> {
        self.step_plan().map(|p| p.dispatches())
    }

    /// Compute passes one [`RigidWorld::step`] records on the GPU (one per phase); `None` on
    /// the CPU.
    pub fn passes_per_step(&self) -> Option<u32> {
        self.step_plan().map(|p| p.passes())
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
    /// (`wgphys:pass:rigid_broad`, `wgphys:pass:rigid_collide`, `wgphys:pass:rigid_colour` when
    /// the colouring runs in rounds of passes, `wgphys:pass:rigid_solve`; one pass,
    /// `rigid_collide`, for small scenes); blocking, for benchmarks.
    ///
    /// # Errors
    /// As [`RigidWorld::last_step_gpu_ms`].
    pub fn last_step_phase_ms(&self) -> Result<Vec<(&'static str, f64)>> {
        match &self.engine {
            Engine::Gpu(g) => g.rigid.last_step_phase_ms(),
            Engine::Cpu(_) => Err(Error::NeedsGpu("last_step_gpu_ms")),
        }
    }

    /// GPU time of each stage of the last step in ms (summed over the substeps), where the
    /// adapter can write timestamps inside passes; see [`GpuRigid::last_step_stage_ms`].
    ///
    /// # Errors
    /// [`Error::NeedsGpu`] on the CPU, [`Error::Unsupported`] without timing or the adapter
    /// feature, [`Error::Gpu`].
    pub fn last_step_stage_ms(&self) -> Result<Vec<(&'static str, f64)>> {
        match &self.engine {
            Engine::Gpu(g) => g.rigid.last_step_stage_ms(),
            Engine::Cpu(_) => Err(Error::NeedsGpu("last_step_stage_ms")),
        }
    }

    /// Turns on a timestamp before every dispatch of the step (and GPU timing, as
    /// [`RigidWorld::enable_gpu_timing`]), for [`RigidWorld::last_step_dispatch_ms`]; false on
    /// the CPU or where the adapter cannot write timestamps inside passes. A profiling mode:
    /// the timestamps themselves cost time on some GPUs, so wall times measured with it on
    /// are not the step's.
    pub fn enable_gpu_dispatch_timing(&mut self) -> bool {
        match &mut self.engine {
            Engine::Gpu(g) => g.rigid.enable_dispatch_timing(),
            Engine::Cpu(_) => false,
        }
    }

    /// GPU time of the last step per entry point in ms, with how many dispatches of it the step
    /// recorded, in the order the step first reaches them; see
    /// [`GpuRigid::last_step_dispatch_ms`].
    ///
    /// # Errors
    /// [`Error::NeedsGpu`] on the CPU, [`Error::Unsupported`] without dispatch timing,
    /// [`Error::Gpu`].
    pub fn last_step_dispatch_ms(&self) -> Result<Vec<(&'static str, u32, f64)>> {
        match &self.engine {
            Engine::Gpu(g) => g.rigid.last_step_dispatch_ms(),
            Engine::Cpu(_) => Err(Error::NeedsGpu("last_step_dispatch_ms")),
        }
    }
}
