//! GPU host code of the grid build: buffers, kernels and the build recorder. The stages match
//! src/grid/cpu.rs; the WGSL lives in shaders/grid/.

use super::cpu::CpuGrid;
use super::{GridSpec, HASH_MIX, HASH_PRIMES};
use crate::error::{Error, Result};
use crate::gpu::buffer::{self, STATE};
use crate::gpu::kernel::{Dispatch, Kernel};
use crate::gpu::shader::{compose, prelude, BindingDecl};
use crate::gpu::sort::GpuRadixSort;
use crate::gpu::upload::StepUploads;
use crate::gpu::GpuContext;
use std::mem::size_of;
use wgpu::BufferUsages as U;

/// Threads per workgroup of the grid kernels (emitted into the WGSL prelude).
pub const GRID_WG: u32 = 256;
/// The most workgroups a grid kernel dispatches; its loops stride over larger counts.
pub const GRID_MAX_GROUPS: u32 = 65_535;

/// Binding indices of the grid build's group 0, named once.
pub mod binding {
    #![allow(missing_docs)]
    pub const PARAMS: u32 = 0;
    pub const POSITIONS: u32 = 1;
    pub const KEYS: u32 = 2;
    pub const VALUES: u32 = 3;
    pub const SORTED_KEYS: u32 = 4;
    pub const CELL_START: u32 = 5;
    pub const CELL_END: u32 = 6;
    pub const CLEAR_ARGS: u32 = 7;
    pub const BUILT_N: u32 = 8;
}

const RW: &str = "storage, read_write";
const RO: &str = "storage, read";

/// The grid build's bindings, emitted into the WGSL prelude.
pub const BINDINGS: &[BindingDecl] = &[
    BindingDecl {
        index: binding::PARAMS,
        name: "grid_params",
        space: "uniform",
        ty: "GridParams",
    },
    BindingDecl {
        index: binding::POSITIONS,
        name: "positions",
        space: RO,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::KEYS,
        name: "keys",
        space: RW,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::VALUES,
        name: "values",
        space: RW,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::SORTED_KEYS,
        name: "sorted_keys",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::CELL_START,
        name: "cell_start",
        space: RW,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::CELL_END,
        name: "cell_end",
        space: RW,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::CLEAR_ARGS,
        name: "clear_args",
        space: RW,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::BUILT_N,
        name: "built_n",
        space: RW,
        ty: "array<u32>",
    },
];

/// Mirror of WGSL `GridParams` in `shaders/grid/grid_build.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuGridParams {
    /// Particles in this build.
    pub n: u32,
    /// `table_size - 1`.
    pub table_mask: u32,
    /// `1 / cell_size`, computed on the host so both backends multiply by the same value.
    pub inv_cell_size: f32,
    /// Padding to 16 bytes.
    pub pad: u32,
}

/// The constants `shaders/grid/grid_common.wgsl` needs, as `(name, value)` for
/// [`crate::gpu::shader::prelude`].
pub fn common_consts() -> [(&'static str, u32); 5] {
    [
        ("GRID_HASH_P0", HASH_PRIMES[0]),
        ("GRID_HASH_P1", HASH_PRIMES[1]),
        ("GRID_HASH_P2", HASH_PRIMES[2]),
        ("GRID_HASH_M0", HASH_MIX[0]),
        ("GRID_HASH_M1", HASH_MIX[1]),
    ]
}

/// `shaders/grid/grid_common.wgsl` with its constants in front: the part another domain's
/// shader composes in to compute cells and keys and to search neighbours. It declares no
/// bindings.
pub fn common_source() -> String {
    compose(
        &prelude(&common_consts(), &[]),
        &[include_str!("../../shaders/grid/grid_common.wgsl")],
    )
}

/// What the grid build's kernels need of a device, its radix sort's included, read from their
/// WGSL once.
///
/// # Errors
/// [`crate::Error::Gpu`] if a module does not validate (an engine bug).
pub fn kernel_needs() -> crate::error::Result<crate::gpu::shader::KernelNeeds> {
    use crate::gpu::shader::{kernel_needs_once, KernelTable};
    static FOUND: std::sync::OnceLock<KernelTable> = std::sync::OnceLock::new();
    let grid = kernel_needs_once(&FOUND, shader_source)?.most(&[]);
    Ok(grid.max(&crate::gpu::sort::kernel_needs()?))
}

/// The composed WGSL module of the grid build.
pub fn shader_source() -> String {
    let consts = [("GRID_WG", GRID_WG), ("GRID_MAX_GROUPS", GRID_MAX_GROUPS)];
    compose(
        &prelude(&consts, BINDINGS),
        &[
            &common_source(),
            include_str!("../../shaders/grid/grid_build.wgsl"),
        ],
    )
}

fn groups(count: u32) -> u32 {
    count.div_ceil(GRID_WG).clamp(1, GRID_MAX_GROUPS)
}

/// A hashed uniform grid built on the GPU for up to `capacity` particles, with every buffer and
/// bind group made at construction (and the positions binding remade only when the positions
/// buffer changes).
///
/// After a build, [`sorted_index`](Self::sorted_index), [`cell_start`](Self::cell_start) and
/// [`cell_end`](Self::cell_end) are ready to bind in a neighbour-search kernel that composes
/// [`common_source`] (see `shaders/grid/grid_common.wgsl` for the loop).
#[derive(Debug)]
pub struct GpuGrid {
    ctx: GpuContext,
    capacity: u32,
    spec: GridSpec,
    sort: GpuRadixSort,
    params: wgpu::Buffer,
    cell_start: wgpu::Buffer,
    cell_end: wgpu::Buffer,
    // The next grid_clear's indirect dispatch (three u32), written by grid_ranges; a buffer of
    // its own, since a dispatch may not bind its indirect buffer as writable storage.
    clear_args: wgpu::Buffer,
    // The n of the last build (one u32), the count grid_clear clears.
    _built_n: wgpu::Buffer,
    positions: Option<wgpu::Buffer>,
    // The n the parameter block holds.
    /// The build's parameters, recorded into the encoder of each build.
    uploads: StepUploads,
    clear: Kernel,
    keys: Kernel,
    ranges: Kernel,
}

impl GpuGrid {
    /// Creates the buffers, kernels and bind groups for grids of up to `capacity` particles.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for an invalid spec (see [`GridSpec::validate`]);
    /// [`Error::InvalidCapacity`] for a capacity of 0; [`Error::CapacityTooLarge`] when the
    /// particle arrays exceed the device's binding limit; [`Error::InvalidInput`] when the table
    /// does.
    pub fn new(ctx: &GpuContext, capacity: u32, spec: GridSpec) -> Result<Self> {
        spec.validate()?;
        let table_bytes = 4 * u64::from(spec.table_size);
        if table_bytes > ctx.max_binding_bytes() {
            return Err(Error::InvalidInput {
                what: "grid table_size",
                value: format!(
                    "{} ({table_bytes} bytes per table, the device allows {})",
                    spec.table_size,
                    ctx.max_binding_bytes()
                ),
                fix: "pass a smaller power of two",
            });
        }
        let sort = GpuRadixSort::new(ctx, capacity, spec.key_bits())?;
        let device = &ctx.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgphys:shader:grid"),
            source: wgpu::ShaderSource::Wgsl(shader_source().into()),
        });
        let params = buffer::zeroed(
            device,
            "grid_params",
            size_of::<GpuGridParams>() as u64,
            U::UNIFORM | U::COPY_DST,
        );
        let cell_start = buffer::zeroed(device, "grid_cell_start", table_bytes, STATE);
        let cell_end = buffer::zeroed(device, "grid_cell_end", table_bytes, STATE);
        // Zeroed: the first grid_clear dispatches no workgroups.
        let clear_args = buffer::zeroed(device, "grid_clear_args", 12, STATE | U::INDIRECT);
        let built_n = buffer::zeroed(device, "grid_built_n", 4, STATE);
        let mut clear = Kernel::new(device, &module, "grid_clear");
        let keys = Kernel::new(device, &module, "grid_keys");
        let mut ranges = Kernel::new(device, &module, "grid_ranges");
        {
            use binding::*;
            let sorted = sort.sorted_keys();
            clear.bind(
                device,
                &[
                    (PARAMS, &params),
                    (SORTED_KEYS, sorted),
                    (CELL_START, &cell_start),
                    (CELL_END, &cell_end),
                    (BUILT_N, &built_n),
                ],
            );
            ranges.bind(
                device,
                &[
                    (PARAMS, &params),
                    (SORTED_KEYS, sorted),
                    (CELL_START, &cell_start),
                    (CELL_END, &cell_end),
                    (CLEAR_ARGS, &clear_args),
                    (BUILT_N, &built_n),
                ],
            );
        }
        Ok(Self {
            ctx: ctx.clone(),
            capacity,
            spec,
            sort,
            params,
            cell_start,
            cell_end,
            clear_args,
            _built_n: built_n,
            positions: None,
            uploads: StepUploads::new(ctx, "wgphys:upload:grid"),
            clear,
            keys,
            ranges,
        })
    }

    /// The most particles one build takes.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// The grid's spec.
    pub fn spec(&self) -> GridSpec {
        self.spec
    }

    /// Dispatches one build records: `grid_clear`, `grid_keys`, three per radix pass and
    /// `grid_ranges`. The sort makes `log2(table_size) / radix_bits` passes, rounded up
    /// ([`SortShape`](crate::gpu::sort::SortShape)): on a CPU adapter 3 for tables of 2^17 to
    /// 2^24 keys, so 12 dispatches for a 1M-particle grid with a 2^21-key table; twice the
    /// passes of half the digits on a GPU.
    pub fn dispatches(&self) -> u32 {
        3 + self.sort.dispatches()
    }

    /// Particle indices in (key, index) order: `array<u32>`, the first n entries valid.
    pub fn sorted_index(&self) -> &wgpu::Buffer {
        self.sort.sorted_values()
    }

    /// The sorted keys: `array<u32>`, the first n entries valid.
    pub fn keys(&self) -> &wgpu::Buffer {
        self.sort.sorted_keys()
    }

    /// Per key, the first sorted position of its particles (0 when empty): `array<u32>` of
    /// `table_size` entries.
    pub fn cell_start(&self) -> &wgpu::Buffer {
        &self.cell_start
    }

    /// Per key, one past the last sorted position of its particles (0 when empty):
    /// `array<u32>` of `table_size` entries.
    pub fn cell_end(&self) -> &wgpu::Buffer {
        &self.cell_end
    }

    /// Records a build of the grid of the first `n` entries of `positions`
    /// (`array<vec4<f32>>`, xyz used) into `encoder`, as one compute pass labelled
    /// `wgphys:pass:grid_build` holding the `grid_clear`, `grid_keys`, `sort_*` and
    /// `grid_ranges` dispatches. Rebinds only when `positions` is not the buffer of the previous
    /// build.
    ///
    /// `n` reaches the GPU as a copy recorded into `encoder` ahead of the pass, so builds of
    /// different counts may be recorded into one encoder. Builds of one grid must execute in
    /// the order they were recorded (each clears what the previous one wrote).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when `n` exceeds the capacity, or `positions` is smaller than
    /// `16 * n` bytes or lacks `STORAGE` usage.
    pub fn encode_build(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        positions: &wgpu::Buffer,
        n: u32,
    ) -> Result<()> {
        self.encode_build_timed(encoder, positions, n, None)
    }

    /// As [`encode_build`](Self::encode_build), writing GPU timestamps at the start and the end
    /// of the build's pass into `(query_set, begin, end)` (needs
    /// `wgpu::Features::TIMESTAMP_QUERY`; see [`GpuContext::timestamps`]).
    ///
    /// # Errors
    /// As [`encode_build`](Self::encode_build).
    pub fn encode_build_timed(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        positions: &wgpu::Buffer,
        n: u32,
        timestamps: Option<(&wgpu::QuerySet, u32, u32)>,
    ) -> Result<()> {
        self.prepare_build(encoder, positions, n)?;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wgphys:pass:grid_build"),
            timestamp_writes: timestamps.map(|(query_set, begin, end)| {
                wgpu::ComputePassTimestampWrites {
                    query_set,
                    beginning_of_pass_write_index: Some(begin),
                    end_of_pass_write_index: Some(end),
                }
            }),
        });
        self.dispatch_build_in(&mut pass, n);
        Ok(())
    }

    /// Checks `n` and `positions`, binds `positions` (when it is not the buffer of the previous
    /// build) and records the copies of the build's parameters into `encoder`. Call before
    /// [`dispatch_build_in`](Self::dispatch_build_in) with the same `n`, outside its pass.
    ///
    /// # Errors
    /// As [`encode_build`](Self::encode_build).
    pub fn prepare_build(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        positions: &wgpu::Buffer,
        n: u32,
    ) -> Result<()> {
        if n > self.capacity {
            return Err(Error::InvalidInput {
                what: "grid particle count n",
                value: format!("{n} (capacity {})", self.capacity),
                fix:
                    "build at most `capacity` particles, or create a GpuGrid with a larger capacity",
            });
        }
        if positions.size() < 16 * u64::from(n) || !positions.usage().contains(U::STORAGE) {
            return Err(Error::InvalidInput {
                what: "grid positions buffer",
                value: format!("{} bytes, usage {:?}", positions.size(), positions.usage()),
                fix: "pass an array<vec4<f32>> storage buffer of at least 16 * n bytes",
            });
        }
        if self.positions.as_ref() != Some(positions) {
            use binding::*;
            self.keys.bind(
                &self.ctx.device,
                &[
                    (PARAMS, &self.params),
                    (POSITIONS, positions),
                    (KEYS, &self.sort.keys),
                    (VALUES, &self.sort.values),
                ],
            );
            self.positions = Some(positions.clone());
        }
        let params = GpuGridParams {
            n,
            table_mask: self.spec.table_mask(),
            inv_cell_size: self.spec.inv_cell_size(),
            pad: 0,
        };
        self.uploads.write(&self.params, 0, &[params]);
        self.uploads.record(encoder);
        self.sort.prepare(encoder, n)
    }

    /// Records the build's dispatches into an open compute pass, after
    /// [`prepare_build`](Self::prepare_build) with the same `n`.
    pub fn dispatch_build_in(&self, pass: &mut wgpu::ComputePass<'_>, n: u32) {
        self.clear
            .dispatch_in(pass, Dispatch::Indirect(&self.clear_args, 0));
        if n > 0 {
            self.keys.dispatch_in(pass, Dispatch::Direct(groups(n)));
        }
        self.sort.dispatch_in(pass, n);
        self.ranges.dispatch_in(pass, Dispatch::Direct(groups(n)));
    }

    /// Blocking read of the grid built from `n` particles (tests and explicit reads).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when `n` exceeds the capacity; [`Error::Gpu`] on readback
    /// failure.
    pub fn read(&self, n: u32) -> Result<CpuGrid> {
        if n > self.capacity {
            return Err(Error::InvalidInput {
                what: "grid read count n",
                value: format!("{n} (capacity {})", self.capacity),
                fix: "read at most `capacity` particles",
            });
        }
        let (d, q) = (&self.ctx.device, &self.ctx.queue);
        let table = self.spec.table_size as usize;
        Ok(CpuGrid {
            sorted_keys: buffer::read_vec(d, q, self.keys(), n as usize)?,
            sorted_index: buffer::read_vec(d, q, self.sorted_index(), n as usize)?,
            cell_start: buffer::read_vec(d, q, &self.cell_start, table)?,
            cell_end: buffer::read_vec(d, q, &self.cell_end, table)?,
        })
    }
}
