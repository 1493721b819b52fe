//! Reading a world back: counters, the live state, and the buffers a renderer draws from.

use super::*;

impl ParticleWorld {
    /// Reads the raw counters now (blocks on the GPU).
    ///
    /// # Errors
    /// [`Error::Gpu`] on readback failure.
    pub fn read_counters(&self) -> Result<GpuCounters> {
        match &self.engine {
            Engine::Cpu(s) => Ok(s.counters),
            Engine::Gpu(g) => g.read_counters(),
        }
    }

    /// Copies the live particles' state (blocks on the GPU).
    ///
    /// # Errors
    /// [`Error::Gpu`] on readback failure.
    pub fn read_snapshot(&self) -> Result<Snapshot> {
        match &self.engine {
            Engine::Cpu(s) => {
                let n = s.counters.live as usize;
                Ok(Snapshot {
                    pos: s.pos[..n].to_vec(),
                    vel: s.vel[..n].to_vec(),
                    acc: s.acc[..n].to_vec(),
                    life: s.life[..n].to_vec(),
                    colour: s.colour[..n].to_vec(),
                    size: s.size[..n].to_vec(),
                })
            }
            Engine::Gpu(g) => {
                let n = g.read_counters()?.live as usize;
                g.read_state(n)
            }
        }
    }

    /// How many times a buffer [`ParticleWorld::render_buffers`] hands out was replaced: a
    /// growth of the pool ([`ParticleWorld::grow`], or `auto_grow` during a step) makes new
    /// per-particle buffers, and turning the back-to-front order on
    /// ([`ParticleWorld::set_view_sort`]) makes the order buffer. A renderer holding a bind
    /// group of the old ones rebuilds it when this changes (as
    /// [`crate::rigid::RigidWorld::buffers_generation`]). A step that grows nothing leaves it
    /// alone. 0 on the CPU.
    pub fn buffers_generation(&self) -> u64 {
        match &self.engine {
            Engine::Gpu(g) => g.generation,
            Engine::Cpu(_) => 0,
        }
    }

    /// The buffers a renderer draws from (GPU worlds only; `None` on the CPU backend).
    pub fn render_buffers(&self) -> Option<RenderBuffers<'_>> {
        match &self.engine {
            Engine::Gpu(g) => Some(RenderBuffers {
                positions: &g.bufs.pos,
                colours: &g.bufs.colour,
                sizes: &g.bufs.size,
                draw_args: &g.bufs.draw_args,
                order: g.order_buffer(),
                emitter_bounds: Some(&g.bufs.emitter_bounds),
                velocities: Some(&g.bufs.vel),
                trails: (g.trail_length > 0).then_some(&g.bufs.trails),
            }),
            Engine::Cpu(_) => None,
        }
    }

    /// The CPU state (CPU worlds only): lets a CPU-side renderer read the arrays directly.
    pub fn cpu_state(&self) -> Option<&CpuState> {
        match &self.engine {
            Engine::Cpu(s) => Some(s),
            Engine::Gpu(_) => None,
        }
    }

    /// The trails of the live particles, `trail_length` positions per particle in slot order
    /// (see [`RenderBuffers::trails`] for the order within one); empty without trails. Blocks
    /// on the GPU.
    ///
    /// # Errors
    /// [`Error::Gpu`] on readback failure.
    pub fn read_trails(&self) -> Result<Vec<glam::Vec4>> {
        let k = self.config.trail_length as usize;
        match &self.engine {
            Engine::Cpu(s) => Ok(self.trails_cpu[..s.counters.live as usize * k].to_vec()),
            Engine::Gpu(g) => {
                let live = g.read_counters()?.live as usize;
                g.flush_uploads();
                crate::gpu::buffer::read_vec(&g.ctx.device, &g.ctx.queue, &g.bufs.trails, live * k)
            }
        }
    }
}
