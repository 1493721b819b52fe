//! Device work a caller may want up front: compiling every rigid kernel now rather than on
//! first use.

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
}
