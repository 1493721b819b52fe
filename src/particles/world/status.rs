//! What the world knows of its pool after a step: the newest status, blocking reads of it,
//! growing from it (`auto_grow`), GPU timing, and the stages the last step ran.

use super::*;

impl ParticleWorld {
    pub(super) fn maybe_grow(&mut self) -> Result<Option<u32>> {
        let Some(st) = self.latest else {
            return Ok(None);
        };
        if !self.config.auto_grow || st.dropped_total == self.seen_dropped {
            return Ok(None);
        }
        self.seen_dropped = st.dropped_total;
        // No further than the device holds: at its limit the pool stays full and the refused
        // spawns stay counted in the status (growing past it would lose the device).
        let device_max = match &self.engine {
            Engine::Gpu(g) => crate::particles::gpu::max_capacity(&g.ctx, self.config.trail_length),
            Engine::Cpu(_) => u32::MAX,
        };
        let want = st
            .wanted_capacity
            .max(self.capacity.saturating_mul(2))
            .min(GPU_ID_BIT)
            .next_power_of_two()
            .min(GPU_ID_BIT - 1)
            .min(device_max);
        if want <= self.capacity {
            return Ok(None);
        }
        self.grow(want)?;
        Ok(Some(want))
    }

    /// The newest status known without blocking (see [`ParticleStepReport::status`]).
    pub fn latest_status(&self) -> Option<Status> {
        self.latest
    }

    /// Reads the pool counters now (blocks on the GPU).
    ///
    /// # Errors
    /// [`Error::Gpu`] on readback failure.
    pub fn read_status(&self) -> Result<Status> {
        let c = self.read_counters()?;
        Ok(Status::from_counters(self.step, self.capacity, &c))
    }

    /// Turns on GPU timestamps for [`ParticleWorld::last_step_gpu_ms`]; false if unavailable.
    pub fn enable_gpu_timing(&mut self) -> bool {
        match &mut self.engine {
            Engine::Gpu(g) => g.enable_timing(),
            Engine::Cpu(_) => false,
        }
    }

    /// GPU time of the last step in ms, from timestamp queries (blocking; for benchmarks).
    ///
    /// # Errors
    /// [`Error::NeedsGpu`], [`Error::Unsupported`] without timing, [`Error::Gpu`].
    pub fn last_step_gpu_ms(&self) -> Result<f64> {
        match &self.engine {
            Engine::Gpu(g) => g.last_step_gpu_ms(),
            Engine::Cpu(_) => Err(Error::NeedsGpu("last_step_gpu_ms")),
        }
    }

    /// The stages the last step ran, in order, on either backend: the stage sequence
    /// `tests/particles_step.rs` holds the two backends to.
    #[doc(hidden)]
    pub fn last_stages(&self) -> &[crate::particles::step::ParticleStage] {
        match &self.engine {
            Engine::Cpu(_) => &self.cpu_stages,
            Engine::Gpu(g) => &g.last_stages,
        }
    }
}
