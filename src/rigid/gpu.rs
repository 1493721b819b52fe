//! GPU host code of the rigid domain: a bind-group layout per kernel holding the group-0
//! bindings that kernel uses (so none binds more than WebGPU's 8 storage buffers per stage;
//! group 1: the per-colour [`GpuPass`] uniform with a dynamic offset), the composed shader, and
//! the step recorder. The stages and their order match `RigidWorld::step` on the CPU.

use super::step::{step_plan, StepOp, StepPlan, StepShape, MAX_PHASES};
use super::types::*;
use crate::error::{Error, Result};
use crate::gpu::buffer::{self, STATE};
use crate::gpu::shader::BindingDecl;
use crate::gpu::sort::GpuRadixSort;
use crate::gpu::timing::StepTimer;
use crate::gpu::upload::StepUploads;
use crate::gpu::GpuContext;
use crate::grid::gpu::GpuGrid;
use crate::grid::GridSpec;
use std::collections::HashMap;
use std::mem::size_of;
use wgpu::BufferUsages as U;

mod build;
mod commands;
mod program;
mod record;
mod source;

use super::step::RigidStage;
use record::CompiledStep;
pub(crate) use source::wgsl_constants;
pub use source::{binding, kernel_needs, shader_source, storage_buffers_per_stage, BINDINGS};
use source::{entry_bindings, COLOUR_KEY_BITS, RO};

/// How one rigid pass is launched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassDispatch {
    /// A fixed workgroup count.
    Direct(u32),
    /// Workgroup count read on the GPU from the `counters` buffer at this word index (three
    /// u32s: x, y, z), for example `counter::INDIRECT + 3 * colour`.
    Indirect(u32),
}

/// One compute pass of the rigid pipeline: an entry point of the rigid shader, how it is
/// launched, and the colour record (group 1) it sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pass {
    /// WGSL entry point (also the pass label `wgphys:pass:<entry>` and the CPU twin's name).
    pub entry: &'static str,
    /// Launch.
    pub dispatch: PassDispatch,
    /// Which [`GpuPass`] record group 1 points at (the colour a solver pass works on).
    pub colour: u32,
}

impl Pass {
    /// A pass with a fixed workgroup count and colour record 0.
    #[must_use]
    pub fn direct(entry: &'static str, workgroups: u32) -> Self {
        Self {
            entry,
            dispatch: PassDispatch::Direct(workgroups),
            colour: 0,
        }
    }

    /// A pass over `threads` items at [`RIGID_WG`] threads per workgroup.
    #[must_use]
    pub fn over(entry: &'static str, threads: u32) -> Self {
        Self::direct(entry, threads.div_ceil(RIGID_WG))
    }
}

/// Buffer sizes of a [`GpuRigid`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuRigidSizes {
    /// Body slots.
    pub bodies: u32,
    /// Shape slots.
    pub shapes: u32,
    /// Pair (and manifold) slots.
    pub pairs: u32,
    /// 16-byte rows of the `solver` buffer: at least `pairs ×`
    /// [`solver_record_rows`](crate::rigid::solver::solver_record_rows).
    pub solver_words: u64,
    /// `u32` words of `pair_scratch`.
    pub pair_scratch_words: u64,
    /// The grid over shape centres.
    pub grid: GridSpec,
    /// Bins per partition of the block solver (`solver::block`), 0 without it: sizes the
    /// `blocks` buffer and the key bits of the colouring's sort.
    pub block_bins: u32,
    /// Joint slots (`pairs` counts their manifold slots too).
    pub joints: u32,
    /// Slots of the joint filter's table (`rigid::joint::filter`).
    pub joint_filter: u32,
    /// Force-generator slots (`force_gens`; `generator_index` holds `bodies + 2` words and
    /// two per generator).
    pub generators: u32,
}

/// The compiled side of the rigid domain, shared by every [`GpuRigid`] a world makes as it
/// grows: the module, the layouts and the pipelines (compiled once per entry point; on software
/// adapters a compile costs up to a second).
pub struct RigidProgram {
    module: wgpu::ShaderModule,
    layout1: wgpu::BindGroupLayout,
    /// One per distinct set of group-0 bindings among the entry points.
    classes: Vec<LayoutClass>,
    /// Entry point -> index into `classes`.
    class_of: HashMap<&'static str, usize>,
    pipelines: std::sync::Mutex<HashMap<(&'static str, u8), wgpu::ComputePipeline>>,
}

/// The group-0 layout shared by the kernels that use exactly these bindings.
struct LayoutClass {
    bindings: Vec<u32>,
    layout0: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
}

/// The GPU backend of a rigid world: every buffer of [`BINDINGS`], the shape-centre grid, a
/// bind group per kernel layout, and pipelines compiled on first use from the one rigid module.
pub struct GpuRigid {
    /// The device this backend runs on.
    pub ctx: GpuContext,
    sizes: GpuRigidSizes,
    program: std::sync::Arc<RigidProgram>,
    /// By entry point and variant (`program::Variant`).
    pipelines: HashMap<(&'static str, u8), wgpu::ComputePipeline>,
    /// Group 0 per layout class, twice: [0] binds `manifolds` / `manifolds_prev` as named, [1]
    /// swapped, so the warm-start source of a step is the previous step's output without a copy.
    bind0: Vec<[wgpu::BindGroup; 2]>,
    flip: usize,
    bind1: wgpu::BindGroup,
    /// The per-step uniform block.
    pub params: wgpu::Buffer,
    /// Bodies (`array<Body>`): bind it in a renderer as a storage buffer to draw bodies.
    pub bodies: wgpu::Buffer,
    /// Shapes (`array<Shape>`).
    pub shapes: wgpu::Buffer,
    /// Per shape world centre and bounding radius.
    pub shape_pos: wgpu::Buffer,
    /// Per shape world rotation, AABB min, AABB max.
    pub shape_xf: wgpu::Buffer,
    /// Shape pairs.
    pub pairs: wgpu::Buffer,
    /// Counters (see [`counter`]); also the indirect-dispatch arguments of the solver passes.
    pub counters: wgpu::Buffer,
    /// Manifolds, one per pair slot.
    pub manifolds: wgpu::Buffer,
    /// Last step's manifolds.
    pub manifolds_prev: wgpu::Buffer,
    /// The solver's records of the coloured contacts, by position in `order` (`solve.wgsl`
    /// `SOLVE_RECORD_ROWS`).
    pub solver: wgpu::Buffer,
    /// Per-body claims (colouring, waking).
    pub claims: wgpu::Buffer,
    /// Manifold indices sorted by colour (by bin, then colour, with the block solver).
    pub order: wgpu::Buffer,
    /// The block solver's bin ranges in `order` (two words per bin; see `solver::block`).
    pub blocks: wgpu::Buffer,
    /// The large list (host-written, at the head), then the broad phase's scratch.
    pub pair_scratch: wgpu::Buffer,
    /// The indirect arguments of the solver passes, copied from `counters` after colouring (a
    /// dispatch may not read its arguments from a buffer bound as writable storage).
    pub indirect: wgpu::Buffer,
    _pass_records: wgpu::Buffer,
    /// The explosion uniform ([`GpuExplosion`]) the `rigid_forces` stage reads.
    pub explosion: wgpu::Buffer,
    /// The joint table ([`GpuJoint`]).
    pub joints: wgpu::Buffer,
    /// The joint filter's hash table (`rigid::joint::filter`).
    pub joint_filter: wgpu::Buffer,
    /// The force generators ([`GpuForceGen`]), written by the host only.
    pub force_gens: wgpu::Buffer,
    /// Which generators act on which body (`rigid::generators::build_index`).
    pub generator_index: wgpu::Buffer,
    grid: GpuGrid,
    /// The colouring's stable sort of pair slots by colour; its output buffer is `order`.
    colour_sort: GpuRadixSort,
    compiled: Option<CompiledStep>,
    /// Timestamps of each phase of the last step (see [`GpuRigid::enable_timing`]); a world
    /// that rebuilds its backend to grow hands it over.
    pub(crate) timing: Option<StepTimer>,
    /// Timestamps between stages inside the passes, built with the compiled plan when timing
    /// is on and the adapter allows it.
    stage_timing: Option<record::StageTimer>,
    /// A timestamp before every dispatch instead of every stage (profiling); a world that
    /// rebuilds its backend hands it over.
    pub(crate) dispatch_timing: bool,
    /// Host writes (edits, the step's parameters), recorded in order at the head of the next
    /// recording.
    uploads: StepUploads,
    /// The hull store's words (`array<vec4<u32>>`, see `crate::rigid::hull`): grown by
    /// [`GpuRigid::write_hulls`], carried over by a rebuild.
    pub hulls: wgpu::Buffer,
    /// Words `hulls` holds.
    hull_capacity: u64,
    /// Words written to `hulls` ([`GpuRigid::hull_words`]).
    hull_words: u64,
}

/// Words of the smallest `hulls` buffer: the unit cube (52 words) and room to spare.
pub const HULL_MIN_WORDS: u64 = 256;
