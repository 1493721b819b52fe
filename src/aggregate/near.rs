//! The spatial order of a gridded aggregate world on the GPU: its sort, the packed state in
//! that order, the grid keys' slot table, the candidate lists of the collide stage, and the
//! kernels that build and use them (shaders/aggregate/order.wgsl and near_list.wgsl). The
//! step that records them is [`GpuAggregate::encode`](super::gpu::GpuAggregate::encode).

use super::shader::{CELL_ENTRY_BYTES, NEAR_KEY_BITS, NEAR_STATE_BYTES};
use crate::error::Result;
use crate::gpu::buffer::{self, STATE};
use crate::gpu::kernel::Kernel;
use crate::gpu::sort::GpuRadixSort;
use crate::gpu::GpuContext;
use crate::grid::GridSpec;

/// The spatial order of a step, read back by [`GpuAggregate::read_near`](super::gpu::GpuAggregate::read_near).
#[derive(Clone, Debug, PartialEq)]
pub struct NearTables {
    /// Slot s holds particle `order[s]`.
    pub order: Vec<u32>,
    /// Per grid key, its particles' slots (see [`cpu::near_cells`](super::cpu::near_cells)).
    pub cells: Vec<[u32; 2]>,
    /// Per grid-sorted position, the particle's slot.
    pub cell_slots: Vec<u32>,
    /// The step's candidate lists, `(2 + list_capacity) × n` words laid out as
    /// shaders/aggregate/near_list.wgsl describes (see [`cpu::near_list`](super::cpu::near_list)).
    pub candidates: Vec<u32>,
    /// Candidates a slot's list holds.
    pub list_capacity: u32,
}

/// Candidates a slot's list holds by default (`near_list`): the sphere around a grain (a radius
/// of 1.25 cells and the slop, the cell a diameter) holds the 6 face neighbours of the
/// scenes' lattice blocks (grains 1.05 diameters apart) and about 9 grains of a dense random
/// pile (at a packing fraction of 0.64 it holds 10 spheres of volume π d³ / 6, the grain
/// itself included); 16 leaves room for squeezed piles before a slot walks the grid instead.
/// 72 bytes a slot with the two header words.
pub const DEFAULT_LIST_CAPACITY: u32 = 16;

/// The spatial order of a world with a grid: its sort, the packed state in that order, the
/// grid keys' slot table, and the kernels that use them (see shaders/aggregate/order.wgsl).
pub(crate) struct Near {
    pub(crate) sort: GpuRadixSort,
    /// The packed state, ping-pong: `2 × capacity` vec4s, slot s's position and radius (-1:
    /// removed) at `[s]` and its velocity and inverse mass at `[n + s]` (one binding for both,
    /// so every aggregate kernel binds at most 8 storage buffers; see order.wgsl).
    pub(crate) state: [wgpu::Buffer; 2],
    /// Own acceleration.
    pub(crate) acc: wgpu::Buffer,
    /// Per particle, its slot.
    pub(crate) slot: wgpu::Buffer,
    /// Per grid key, its particles' slots (`CELL_ENTRY_BYTES` each).
    pub(crate) cells: wgpu::Buffer,
    /// Per grid-sorted position, the particle's slot.
    pub(crate) cell_slots: wgpu::Buffer,
    /// The step's candidate lists (`(2 + list_capacity) × capacity` u32; near_list.wgsl).
    pub(crate) candidates: wgpu::Buffer,
    /// Candidates a slot's list holds.
    pub(crate) list_capacity: u32,
    pub(crate) keys: Kernel,
    pub(crate) gather: Kernel,
    pub(crate) cells_kernel: Kernel,
    pub(crate) list: Kernel,
    /// `collide[shared][k]` reads `state[k]` and writes the other; `collide[1]` is compiled for
    /// a world without own accelerations (`SHARED_ACCELERATION`, collide.wgsl).
    pub(crate) collide: [[Kernel; 2]; 2],
    /// `scatter[k]` reads `state[k]`.
    pub(crate) scatter: [Kernel; 2],
}

impl Near {
    pub(crate) fn new(
        ctx: &GpuContext,
        module: &wgpu::ShaderModule,
        capacity: u32,
        spec: &GridSpec,
        solids: bool,
    ) -> Result<Self> {
        let device = &ctx.device;
        let list_capacity = fitting_list_capacity(ctx, capacity, DEFAULT_LIST_CAPACITY);
        let n = u64::from(capacity);
        let v4 = |name: &str| buffer::zeroed(device, name, 16 * n, STATE);
        let state = |name: &str| buffer::zeroed(device, name, NEAR_STATE_BYTES * n, STATE);
        let u32s = |name: &str| buffer::zeroed(device, name, 4 * n, STATE);
        let collide =
            |shared| super::gpu::collide_kernel(device, module, "collide_near", solids, shared);
        let (own, shared) = (collide(false), collide(true));
        let scatter = Kernel::new(device, module, "near_scatter");
        Ok(Self {
            sort: GpuRadixSort::new(ctx, capacity, NEAR_KEY_BITS)?,
            state: [state("agg_near_state"), state("agg_near_state_next")],
            acc: v4("agg_near_acc"),
            slot: u32s("agg_near_slot"),
            cells: cells_buffer(ctx, spec)?,
            cell_slots: u32s("agg_cell_slots"),
            candidates: candidates_buffer(ctx, capacity, list_capacity)?,
            list_capacity,
            keys: Kernel::new(device, module, "near_keys"),
            gather: Kernel::new(device, module, "near_gather"),
            cells_kernel: Kernel::new(device, module, "near_cells"),
            list: Kernel::new(device, module, "near_list"),
            collide: [[own.sibling(), own], [shared.sibling(), shared]],
            scatter: [scatter.sibling(), scatter],
        })
    }

    /// Dispatches of the order, gather, slot table, candidate lists, `iterations` collide
    /// iterations and scatter for `n > 0` particles.
    pub(crate) fn dispatches(&self, iterations: u32) -> u32 {
        self.sort.dispatches() + 5 + iterations
    }
}

/// The most candidates per slot, up to `wanted`, whose lists fit the device's largest binding
/// for `capacity` slots (each slot also keeps two header words; see near_list.wgsl). The near
/// state already needs 32 bytes a slot, so the headers always fit.
fn fitting_list_capacity(ctx: &GpuContext, capacity: u32, wanted: u32) -> u32 {
    let words = ctx.max_binding_bytes() / (4 * u64::from(capacity.max(1)));
    u32::try_from(words.saturating_sub(2)).map_or(wanted, |k| k.min(wanted))
}

/// The candidate lists' buffer for `capacity` slots of `list_capacity` candidates.
///
/// # Errors
/// [`crate::Error::InvalidInput`] when it exceeds the device's binding limit.
pub(crate) fn candidates_buffer(
    ctx: &GpuContext,
    capacity: u32,
    list_capacity: u32,
) -> Result<wgpu::Buffer> {
    let bytes = 4 * (2 + u64::from(list_capacity)) * u64::from(capacity.max(1));
    if bytes > ctx.max_binding_bytes() {
        return Err(crate::Error::InvalidInput {
            what: "candidate list capacity",
            value: format!(
                "{list_capacity} per slot ({bytes} bytes for {capacity} slots, the device allows {})",
                ctx.max_binding_bytes()
            ),
            fix: "ask for fewer candidates per slot (slots with more walk the grid instead)",
        });
    }
    Ok(buffer::zeroed(&ctx.device, "agg_candidates", bytes, STATE))
}

/// The slot table for a grid of `spec.table_size` keys.
///
/// # Errors
/// [`crate::Error::InvalidInput`] when it exceeds the device's binding limit.
pub(crate) fn cells_buffer(ctx: &GpuContext, spec: &GridSpec) -> Result<wgpu::Buffer> {
    let bytes = CELL_ENTRY_BYTES * u64::from(spec.table_size);
    if bytes > ctx.max_binding_bytes() {
        return Err(crate::Error::InvalidInput {
            what: "grid table_size",
            value: format!(
                "{} ({bytes} bytes for the collide stage's slot table, the device allows {})",
                spec.table_size,
                ctx.max_binding_bytes()
            ),
            fix: "pass a smaller power of two for Collisions::table_size",
        });
    }
    Ok(buffer::zeroed(&ctx.device, "agg_cells", bytes, STATE))
}
