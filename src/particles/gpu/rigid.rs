//! Stages `rigid_cells`, `rigid_contacts_cells` and `rigid_contacts` on the GPU: their
//! kernels, compiled the first time a world steps with a rigid world, bound to the particle
//! state, to the rigid world's own `bodies` and `shapes` buffers (no copy, no readback) and to
//! the grid's buffer, and bound again when one of them is not the one bound.

use super::{binding, Buffers, GpuParticles};
use crate::gpu::buffer;
use crate::gpu::kernel::{Dispatch, Kernel};
use crate::particles::rigid_cells::{CELL_SPAN, HEADER};
use crate::particles::types::WG;

/// The grid stage's kernels, in dispatch order.
#[derive(Debug)]
pub(crate) struct CellKernels {
    reach: Kernel,
    count: Kernel,
    scan: Kernel,
    fill: Kernel,
    sort: Kernel,
    contacts: Kernel,
}

/// The kernels and the rigid buffers they are bound to.
#[derive(Debug)]
pub(crate) struct RigidContacts {
    pub kernel: Kernel,
    cells: CellKernels,
    bodies: wgpu::Buffer,
    shapes: wgpu::Buffer,
    /// The grid (`rigid_cells_buf`, see rigid_cells.wgsl) and its words.
    grid: wgpu::Buffer,
    grid_words: u64,
    /// The step's shape slots and buckets, and the words before the entries (cleared each step).
    shape_count: u32,
    buckets: u32,
}

/// Words of the grid for `shapes` slots and `buckets` buckets, and the words before its entries.
fn grid_words(shapes: u32, buckets: u32) -> (u64, u64) {
    let (n, t) = (u64::from(shapes), u64::from(buckets));
    let head = u64::from(HEADER) + 4 * n + (t + 2) + (t + 1);
    (head + u64::from(CELL_SPAN.pow(3)) * n, head)
}

impl RigidContacts {
    fn bind(&mut self, device: &wgpu::Device, b: &Buffers) {
        use binding::*;
        let (bodies, shapes, grid) = (&self.bodies, &self.shapes, &self.grid);
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
                (RIGID_BODIES, bodies),
                (RIGID_SHAPES, shapes),
            ],
        );
        let c = &mut self.cells;
        c.reach.bind(
            device,
            &[
                (ACC, &b.acc),
                (SIZE, &b.size),
                (COUNTERS, &b.counters),
                (RIGID_CELLS, grid),
            ],
        );
        c.count.bind(
            device,
            &[
                (PARAMS, &b.params),
                (RIGID_BODIES, bodies),
                (RIGID_SHAPES, shapes),
                (RIGID_CELLS, grid),
            ],
        );
        for k in [&mut c.scan, &mut c.fill, &mut c.sort] {
            k.bind(device, &[(PARAMS, &b.params), (RIGID_CELLS, grid)]);
        }
        c.contacts.bind(
            device,
            &[
                (PARAMS, &b.params),
                (POS, &b.pos),
                (VEL, &b.vel),
                (ACC, &b.acc),
                (LIFE, &b.life),
                (SIZE, &b.size),
                (RIGID_BODIES, bodies),
                (RIGID_SHAPES, shapes),
                (RIGID_CELLS_RO, grid),
            ],
        );
    }

    /// Clears the grid's counts ahead of the step's pass (a grid step only).
    pub fn clear(&self, encoder: &mut wgpu::CommandEncoder) {
        let (_, head) = grid_words(self.shape_count, self.buckets);
        encoder.clear_buffer(&self.grid, 0, Some(4 * head));
    }

    /// Records stage `rigid_cells` into `pass` (`particles`: one thread a live particle).
    pub fn dispatch_cells(&self, pass: &mut wgpu::ComputePass<'_>, particles: Dispatch<'_>) {
        let c = &self.cells;
        let shapes = Dispatch::Direct(self.shape_count.div_ceil(WG));
        c.reach.dispatch_in(pass, particles);
        c.count.dispatch_in(pass, shapes);
        c.scan.dispatch_in(pass, Dispatch::Direct(1));
        c.fill.dispatch_in(pass, shapes);
        c.sort
            .dispatch_in(pass, Dispatch::Direct(self.buckets.div_ceil(WG)));
    }

    /// Records stage `rigid_contacts_cells` into `pass`.
    pub fn dispatch_contacts_cells(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        particles: Dispatch<'_>,
    ) {
        self.cells.contacts.dispatch_in(pass, particles);
    }
}

impl GpuParticles {
    /// Binds the rigid stages to a rigid world's `bodies` and `shapes` buffers (which must live
    /// on this world's device) and to a grid of room for `shape_count` slots in `buckets`
    /// buckets, compiling them on first use; nothing is bound again when they are the buffers
    /// bound already and the grid has room.
    pub(crate) fn bind_rigid(
        &mut self,
        bodies: &wgpu::Buffer,
        shapes: &wgpu::Buffer,
        shape_count: u32,
        buckets: u32,
    ) {
        let (words, _) = grid_words(shape_count, buckets);
        if let Some(r) = &mut self.rigid {
            if &r.bodies == bodies && &r.shapes == shapes && r.grid_words >= words {
                r.shape_count = shape_count;
                r.buckets = buckets;
                return;
            }
        }
        let device = &self.ctx.device;
        let (kernel, cells, grid, grid_words) = match self.rigid.take() {
            Some(r) if r.grid_words >= words => (r.kernel, r.cells, r.grid, r.grid_words),
            Some(r) => (r.kernel, r.cells, new_grid(device, words), words),
            None => {
                let k = |name| Kernel::new(device, &self.module, name);
                let cells = CellKernels {
                    reach: k("rigid_cells_reach"),
                    count: k("rigid_cells_count"),
                    scan: k("rigid_cells_scan"),
                    fill: k("rigid_cells_fill"),
                    sort: k("rigid_cells_sort"),
                    contacts: k("rigid_contacts_cells"),
                };
                (k("rigid_contacts"), cells, new_grid(device, words), words)
            }
        };
        let mut r = RigidContacts {
            kernel,
            cells,
            bodies: bodies.clone(),
            shapes: shapes.clone(),
            grid,
            grid_words,
            shape_count,
            buckets,
        };
        r.bind(device, &self.bufs);
        self.rigid = Some(r);
    }

    /// Binds the rigid stages again to this world's (new) buffers, if they are bound.
    pub(crate) fn rebind_rigid(&mut self) {
        if let Some(r) = &mut self.rigid {
            r.bind(&self.ctx.device, &self.bufs);
        }
    }
}

/// A grid buffer of `words` words (at least one).
fn new_grid(device: &wgpu::Device, words: u64) -> wgpu::Buffer {
    buffer::zeroed(
        device,
        "wgphys:particles:rigid_cells",
        4 * words.max(1),
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    )
}
