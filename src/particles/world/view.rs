//! The back-to-front order for alpha blending (see [`crate::particles::view_sort`]).

use super::*;
use crate::particles::view_sort::{cpu_order, ViewSort};

impl ParticleWorld {
    /// Orders the live particles back to front along the camera's view direction, from the
    /// next step on, every step (`None` turns it off). On the GPU the order is built on the
    /// device after each step (the `depth_keys` stage, then a radix sort over the pool's
    /// capacity) and published in [`RenderBuffers::order`]; call this again when the camera
    /// moves. It costs a radix sort of the whole pool per step: turn it on for what you blend.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for a non-finite eye or a zero direction (nothing changes);
    /// [`Error::CapacityTooLarge`] when the device cannot hold the sort's buffers.
    pub fn set_view_sort(&mut self, view: Option<ViewSort>) -> Result<()> {
        let gpu = view.map(ViewSort::to_gpu).transpose()?;
        if let Engine::Gpu(g) = &mut self.engine {
            g.set_view_sort(gpu)?;
        }
        self.view = gpu;
        if gpu.is_none() {
            self.order.clear();
        }
        Ok(())
    }

    /// The back-to-front order after the last step: the slots of the live particles, the
    /// farthest first (ties in slot order). `None` when the order is off. Blocks on the GPU.
    ///
    /// # Errors
    /// [`Error::Gpu`] on readback failure.
    pub fn read_order(&self) -> Result<Option<Vec<u32>>> {
        if self.view.is_none() {
            return Ok(None);
        }
        match &self.engine {
            Engine::Cpu(_) => Ok(Some(self.order.clone())),
            Engine::Gpu(g) => {
                let live = g.read_counters()?.live;
                g.read_order(live)
            }
        }
    }

    /// The CPU twin's order, after a step.
    pub(super) fn sort_cpu(&mut self) -> Result<()> {
        if let (Some(view), Engine::Cpu(s)) = (&self.view, &self.engine) {
            self.order = cpu_order(view, &s.pos, s.counters.live, self.capacity)?;
        }
        Ok(())
    }
}
