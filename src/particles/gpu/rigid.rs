//! Stage `rigid_contacts` on the GPU: its kernel, compiled the first time a world steps with a
//! rigid world, bound to the particle state and to the rigid world's own `bodies` and `shapes`
//! buffers (no copy, no readback), and bound again when either buffer is not the one bound.

use super::{binding, Buffers, GpuParticles};
use crate::gpu::kernel::Kernel;

/// The kernel and the rigid buffers it is bound to.
#[derive(Debug)]
pub(crate) struct RigidContacts {
    pub kernel: Kernel,
    bodies: wgpu::Buffer,
    shapes: wgpu::Buffer,
}

impl RigidContacts {
    fn bind(&mut self, device: &wgpu::Device, b: &Buffers) {
        use binding::*;
        self.kernel.bind(
            device,
            &[
                (PARAMS, &b.params),
                (POS, &b.pos),
                (VEL, &b.vel),
                (ACC, &b.acc),
                (LIFE, &b.life),
                (SIZE, &b.size),
                (COUNTERS, &b.counters),
                (RIGID_BODIES, &self.bodies),
                (RIGID_SHAPES, &self.shapes),
            ],
        );
    }
}

impl GpuParticles {
    /// Binds stage `rigid_contacts` to a rigid world's `bodies` and `shapes` buffers (which
    /// must live on this world's device), compiling it on first use; nothing happens when
    /// they are the buffers bound already.
    pub(crate) fn bind_rigid(&mut self, bodies: &wgpu::Buffer, shapes: &wgpu::Buffer) {
        if let Some(r) = &self.rigid {
            if &r.bodies == bodies && &r.shapes == shapes {
                return;
            }
        }
        let kernel = match self.rigid.take() {
            Some(r) => r.kernel,
            None => Kernel::new(&self.ctx.device, &self.module, "rigid_contacts"),
        };
        let mut r = RigidContacts {
            kernel,
            bodies: bodies.clone(),
            shapes: shapes.clone(),
        };
        r.bind(&self.ctx.device, &self.bufs);
        self.rigid = Some(r);
    }

    /// Binds stage `rigid_contacts` again to this world's (new) buffers, if it is bound.
    pub(crate) fn rebind_rigid(&mut self) {
        if let Some(r) = &mut self.rigid {
            r.bind(&self.ctx.device, &self.bufs);
        }
    }
}
