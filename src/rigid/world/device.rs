//! Device work a caller may want up front (compiling every rigid kernel now rather than on
//! first use) and how [`RigidWorld::step`] hands its work to the GPU.

use super::*;

impl RigidWorld {
    /// Compiles every rigid kernel now. Kernels are otherwise compiled the first time a step
    /// needs them (the first explosion, the first colour count above the last, ...), and on a
    /// software adapter one compile can take up to a second: a game calls this while loading.
    /// It also checks every kernel against the device's limits at once, so a device too small
    /// for a kernel a later step would need is an error here. Nothing to do on the CPU.
    ///
    /// # Errors
    /// [`Error::Gpu`] naming the failure when the device refuses a kernel.
    pub fn precompile(&mut self) -> Result<()> {
        if let Engine::Gpu(g) = &mut self.engine {
            let ctx = g.rigid.ctx.clone();
            ctx.guard("compiling the rigid kernels", || {
                g.rigid.compile_all();
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
}
