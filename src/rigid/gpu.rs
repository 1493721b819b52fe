//! GPU host code of the rigid domain: a bind-group layout per kernel holding the group-0
//! bindings that kernel uses (so none binds more than WebGPU's 8 storage buffers per stage;
//! group 1: the per-colour [`GpuPass`] uniform with a dynamic offset), the composed shader, and
//! the step recorder. The stages and their order match `RigidWorld::step` on the CPU.

use super::types::*;
use crate::gpu::shader::{compose, prelude, BindingDecl};

/// Binding indices of the rigid domain's group 0, named once.
pub mod binding {
    #![allow(missing_docs)]
    pub const PARAMS: u32 = 0;
    pub const BODIES: u32 = 1;
    pub const SHAPES: u32 = 2;
    pub const SHAPE_POS: u32 = 3;
    pub const SHAPE_XF: u32 = 4;
    pub const PAIRS: u32 = 6;
    pub const COUNTERS: u32 = 7;
    pub const MANIFOLDS: u32 = 8;
    pub const MANIFOLDS_PREV: u32 = 9;
    pub const SOLVER: u32 = 10;
    pub const CLAIMS: u32 = 11;
    pub const ORDER: u32 = 12;
    pub const GRID_SORTED: u32 = 13;
    pub const GRID_START: u32 = 14;
    pub const GRID_END: u32 = 15;
    pub const PAIR_SCRATCH: u32 = 16;
    pub const COLOUR_KEYS: u32 = 17;
    pub const COLOUR_VALUES: u32 = 18;
}

const RW: &str = "storage, read_write";
const RO: &str = "storage, read";

/// The rigid domain's group-0 bindings, emitted into the WGSL prelude. Each kernel's layout
/// holds only the ones its entry point uses ([`crate::gpu::shader::entry_bindings`]).
///
/// | binding | holds |
/// |---|---|
/// | `shape_pos` | per shape: world centre (xyz), bounding-sphere radius (w); the grid's input |
/// | `shape_xf` | per shape, 3 words: world rotation quaternion, AABB min (w: 1 large), AABB max |
/// | `pairs` | shape pairs (a < b), sorted by a then b |
/// | `counters` | see [`counter`] |
/// | `manifolds` | one per pair slot |
/// | `manifolds_prev` | last step's manifolds, for warm starting |
/// | `solver` | per-manifold solver rows (layout owned by `solve.wgsl` / `solver.rs`) |
/// | `claims` | 5 words per body: the wake stages' word, three colouring claim words, the colour mask |
/// | `order` | manifold indices sorted by colour |
/// | `pair_scratch` | the host-written large list (planes, half-spaces, shapes bigger than a cell), then the broad phase's per-item counts and offsets (see `shaders/rigid/broad.wgsl`) |
/// | `colour_sort_keys`, `colour_sort_values` | per pair slot, its colour and its index: the input of the colour sort, whose output is `order` |
pub const BINDINGS: &[BindingDecl] = &[
    BindingDecl::new(binding::PARAMS, "params", "uniform", "RigidParams"),
    BindingDecl::new(binding::BODIES, "bodies", RW, "array<Body>"),
    BindingDecl::new(binding::SHAPES, "shapes", RO, "array<Shape>"),
    BindingDecl::new(binding::SHAPE_POS, "shape_pos", RW, "array<vec4<f32>>"),
    BindingDecl::new(binding::SHAPE_XF, "shape_xf", RW, "array<vec4<f32>>"),
    BindingDecl::new(binding::PAIRS, "pairs", RW, "array<vec2<u32>>"),
    BindingDecl::new(binding::COUNTERS, "counters", RW, "array<atomic<u32>>"),
    BindingDecl::new(binding::MANIFOLDS, "manifolds", RW, "array<Manifold>"),
    BindingDecl::new(
        binding::MANIFOLDS_PREV,
        "manifolds_prev",
        RO,
        "array<Manifold>",
    ),
    BindingDecl::new(binding::SOLVER, "solver", RW, "array<vec4<f32>>"),
    BindingDecl::new(binding::CLAIMS, "claims", RW, "array<atomic<u32>>"),
    BindingDecl::new(binding::ORDER, "order", RW, "array<u32>"),
    BindingDecl::new(binding::GRID_SORTED, "grid_sorted", RO, "array<u32>"),
    BindingDecl::new(binding::GRID_START, "grid_start", RO, "array<u32>"),
    BindingDecl::new(binding::GRID_END, "grid_end", RO, "array<u32>"),
    BindingDecl::new(binding::PAIR_SCRATCH, "pair_scratch", RW, "array<u32>"),
    BindingDecl::new(binding::COLOUR_KEYS, "colour_sort_keys", RW, "array<u32>"),
    BindingDecl::new(
        binding::COLOUR_VALUES,
        "colour_sort_values",
        RW,
        "array<u32>",
    ),
];

/// Key bits of the colour sort: colours below [`MAX_COLOURS`], and `MAX_COLOURS` itself for a
/// slot without one.
const COLOUR_KEY_BITS: u32 = (MAX_COLOURS + 1).next_power_of_two().trailing_zeros();

/// The group-1 declaration: the per-colour pass uniform, bound with a dynamic offset.
const PASS_DECL: &str = "@group(1) @binding(0) var<uniform> pass_info: Pass;\n\
                         @group(1) @binding(1) var<uniform> explosion: Explosion;\n";

/// The most storage buffers one rigid kernel binds in a shader stage (each kernel's layout
/// holds the bindings its entry point uses), checked against the device before a world is
/// built.
///
/// # Errors
/// [`crate::Error::Gpu`] if the module does not validate (an engine bug).
pub fn storage_buffers_per_stage() -> crate::error::Result<u32> {
    static FOUND: std::sync::OnceLock<crate::gpu::shader::StorageBuffers> =
        std::sync::OnceLock::new();
    Ok(crate::gpu::shader::storage_buffers_once(&FOUND, shader_source)?.most(&[]))
}

/// The group-0 bindings of each rigid entry point (parsed once per process).
fn entry_bindings() -> Result<&'static [(String, Vec<u32>)]> {
    static FOUND: std::sync::OnceLock<Vec<(String, Vec<u32>)>> = std::sync::OnceLock::new();
    if let Some(found) = FOUND.get() {
        return Ok(found);
    }
    let found = crate::gpu::shader::entry_bindings(&shader_source())?;
    Ok(FOUND.get_or_init(|| found))
}

/// The composed WGSL module of the rigid domain.
pub fn shader_source() -> String {
    let consts = [
        ("RIGID_WG", RIGID_WG),
        ("NONE", NONE),
        ("MAX_POINTS", MAX_POINTS),
        ("MAX_COLOURS", MAX_COLOURS),
        ("COUNTER_PAIRS", counter::PAIRS as u32),
        ("COUNTER_PAIRS_WANTED", counter::PAIRS_WANTED as u32),
        ("COUNTER_COLOURS", counter::COLOURS as u32),
        ("COUNTER_UNCOLOURED", counter::UNCOLOURED as u32),
        ("COUNTER_MANIFOLDS", counter::MANIFOLDS as u32),
        ("COUNTER_AWAKE", counter::AWAKE as u32),
        ("COUNTER_UNSOLVED", counter::UNSOLVED as u32),
        ("COUNTER_COLOURS_WANTED", counter::COLOURS_WANTED as u32),
        ("COUNTER_ROUNDS", counter::ROUNDS as u32),
        ("COUNTER_TAIL", counter::TAIL as u32),
        ("COUNTER_INDIRECT", counter::INDIRECT as u32),
        ("COUNTER_COLOUR_START", counter::COLOUR_START as u32),
        ("COUNTER_COLOUR_COUNT", counter::COLOUR_COUNT as u32),
        ("SHAPE_SPHERE", shape_kind::SPHERE),
        ("SHAPE_BOX", shape_kind::BOX),
        ("SHAPE_CAPSULE", shape_kind::CAPSULE),
        ("SHAPE_HALF_SPACE", shape_kind::HALF_SPACE),
        ("SHAPE_PLANE", shape_kind::PLANE),
        ("BODY_DYNAMIC", body_kind::DYNAMIC),
        ("BODY_STATIC", body_kind::STATIC),
        ("BODY_KINEMATIC", body_kind::KINEMATIC),
    ];
    let mut pre = prelude(&consts, BINDINGS);
    pre.push_str(PASS_DECL);
    compose(
        &pre,
        &[
            include_str!("../../shaders/rigid/types.wgsl"),
            include_str!("../../shaders/rigid/math.wgsl"),
            &crate::grid::gpu::common_source(),
            include_str!("../../shaders/rigid/integrate.wgsl"),
            include_str!("../../shaders/common/rng.wgsl"),
            include_str!("../../shaders/rigid/forces.wgsl"),
            include_str!("../../shaders/rigid/broad.wgsl"),
            include_str!("../../shaders/rigid/narrow.wgsl"),
            include_str!("../../shaders/rigid/box_box.wgsl"),
            include_str!("../../shaders/rigid/colour.wgsl"),
            include_str!("../../shaders/rigid/solve.wgsl"),
            include_str!("../../shaders/rigid/ccd.wgsl"),
        ],
    )
}

use super::step::{step_plan, StepOp, StepPlan, StepShape, MAX_PHASES};
use crate::error::{Error, Result};
use crate::gpu::buffer::{self, STATE};
use crate::gpu::sort::GpuRadixSort;
use crate::gpu::timing::StepTimer;
use crate::gpu::upload::StepUploads;
use crate::gpu::GpuContext;
use crate::grid::gpu::GpuGrid;
use crate::grid::GridSpec;
use std::collections::HashMap;
use std::mem::size_of;
use wgpu::BufferUsages as U;

mod record;
use super::step::RigidStage;
use record::CompiledStep;

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
    pub fn direct(entry: &'static str, workgroups: u32) -> Self {
        Self {
            entry,
            dispatch: PassDispatch::Direct(workgroups),
            colour: 0,
        }
    }

    /// A pass over `threads` items at [`RIGID_WG`] threads per workgroup.
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
    /// `vec4<f32>` words of the `solver` buffer.
    pub solver_words: u64,
    /// `u32` words of `pair_scratch`.
    pub pair_scratch_words: u64,
    /// The grid over shape centres.
    pub grid: GridSpec,
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
    pipelines: std::sync::Mutex<HashMap<&'static str, wgpu::ComputePipeline>>,
}

/// The group-0 layout shared by the kernels that use exactly these bindings.
struct LayoutClass {
    bindings: Vec<u32>,
    layout0: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
}

fn layout_entry(b: &BindingDecl) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding: b.index,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: if b.space == "uniform" {
                wgpu::BufferBindingType::Uniform
            } else {
                wgpu::BufferBindingType::Storage {
                    read_only: b.space == RO,
                }
            },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

impl RigidProgram {
    /// Parses the rigid shader and creates a group-0 layout per distinct set of bindings its
    /// entry points use.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the engine's WGSL does not validate (an engine bug).
    pub fn new(ctx: &GpuContext) -> Result<Self> {
        let device = &ctx.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgphys:shader:rigid"),
            source: wgpu::ShaderSource::Wgsl(shader_source().into()),
        });
        let layout1 = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wgphys:bind_group_layout:rigid_pass"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: wgpu::BufferSize::new(size_of::<GpuPass>() as u64),
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let mut classes: Vec<LayoutClass> = Vec::new();
        let mut class_of = HashMap::new();
        for (entry, bindings) in entry_bindings()? {
            let class = match classes.iter().position(|c| c.bindings == *bindings) {
                Some(c) => c,
                None => {
                    let entries: Vec<wgpu::BindGroupLayoutEntry> = BINDINGS
                        .iter()
                        .filter(|b| bindings.contains(&b.index))
                        .map(layout_entry)
                        .collect();
                    let layout0 =
                        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                            label: Some("wgphys:bind_group_layout:rigid"),
                            entries: &entries,
                        });
                    let pipeline_layout =
                        device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                            label: Some("wgphys:pipeline_layout:rigid"),
                            bind_group_layouts: &[Some(&layout0), Some(&layout1)],
                            immediate_size: 0,
                        });
                    classes.push(LayoutClass {
                        bindings: bindings.clone(),
                        layout0,
                        pipeline_layout,
                    });
                    classes.len() - 1
                }
            };
            class_of.insert(entry.as_str(), class);
        }
        Ok(Self {
            module,
            layout1,
            classes,
            class_of,
            pipelines: std::sync::Mutex::new(HashMap::new()),
        })
    }

    /// The layout class of `entry` (0 for a name the shader does not have; creating its
    /// pipeline then fails inside the world's error scope, naming the entry point).
    fn class(&self, entry: &str) -> usize {
        self.class_of.get(entry).copied().unwrap_or(0)
    }

    fn pipeline(&self, device: &wgpu::Device, entry: &'static str) -> wgpu::ComputePipeline {
        let mut map = match self.pipelines.lock() {
            Ok(m) => m,
            Err(poisoned) => poisoned.into_inner(),
        };
        let class = self.class(entry);
        map.entry(entry)
            .or_insert_with(|| {
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&format!("wgphys:pipeline:{entry}")),
                    layout: self.classes.get(class).map(|c| &c.pipeline_layout),
                    module: &self.module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
            .clone()
    }
}

/// The GPU backend of a rigid world: every buffer of [`BINDINGS`], the shape-centre grid, a
/// bind group per kernel layout, and pipelines compiled on first use from the one rigid module.
pub struct GpuRigid {
    /// The device this backend runs on.
    pub ctx: GpuContext,
    sizes: GpuRigidSizes,
    program: std::sync::Arc<RigidProgram>,
    pipelines: HashMap<&'static str, wgpu::ComputePipeline>,
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
    /// Solver rows.
    pub solver: wgpu::Buffer,
    /// Per-body claims (colouring, waking).
    pub claims: wgpu::Buffer,
    /// Manifold indices sorted by colour.
    pub order: wgpu::Buffer,
    /// The large list (host-written, at the head), then the broad phase's scratch.
    pub pair_scratch: wgpu::Buffer,
    /// The indirect arguments of the solver passes, copied from `counters` after colouring (a
    /// dispatch may not read its arguments from a buffer bound as writable storage).
    pub indirect: wgpu::Buffer,
    _pass_records: wgpu::Buffer,
    /// The explosion uniform ([`GpuExplosion`]) the `rigid_forces` stage reads.
    pub explosion: wgpu::Buffer,
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
    /// Host writes (edits, the step's parameters), recorded in order at the head of the next
    /// recording.
    uploads: StepUploads,
}

fn checked_bytes(ctx: &GpuContext, what: &'static str, count: u64, stride: u64) -> Result<u64> {
    let bytes = count.saturating_mul(stride);
    if bytes > ctx.max_binding_bytes() {
        return Err(Error::InvalidInput {
            what,
            value: format!(
                "{count} slots need {bytes} bytes, the device binds at most {}",
                ctx.max_binding_bytes()
            ),
            fix: "lower the capacity",
        });
    }
    Ok(bytes)
}

impl GpuRigid {
    /// Creates every buffer and the bind groups; pipelines are compiled on first use.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when a buffer would exceed the device's binding limit or the grid
    /// spec is invalid.
    pub fn new(ctx: &GpuContext, sizes: GpuRigidSizes) -> Result<Self> {
        Self::with_program(ctx, sizes, std::sync::Arc::new(RigidProgram::new(ctx)?))
    }

    /// A backend of new sizes that shares this one's compiled pipelines (the state is not
    /// copied).
    ///
    /// # Errors
    /// As [`GpuRigid::new`].
    pub fn resized(&self, sizes: GpuRigidSizes) -> Result<Self> {
        Self::with_program(&self.ctx, sizes, self.program.clone())
    }

    fn with_program(
        ctx: &GpuContext,
        sizes: GpuRigidSizes,
        program: std::sync::Arc<RigidProgram>,
    ) -> Result<Self> {
        let device = &ctx.device;
        let body_bytes = checked_bytes(
            ctx,
            "body capacity",
            u64::from(sizes.bodies),
            size_of::<GpuBody>() as u64,
        )?;
        let shape_bytes = checked_bytes(
            ctx,
            "shape capacity",
            u64::from(sizes.shapes),
            size_of::<GpuShape>() as u64,
        )?;
        let xf_bytes = checked_bytes(ctx, "shape capacity", u64::from(sizes.shapes), 48)?;
        let pair_bytes = checked_bytes(ctx, "pair capacity", u64::from(sizes.pairs), 8)?;
        let manifold_bytes = checked_bytes(
            ctx,
            "pair capacity",
            u64::from(sizes.pairs),
            size_of::<GpuManifold>() as u64,
        )?;
        let solver_bytes =
            checked_bytes(ctx, "pair capacity (solver rows)", sizes.solver_words, 16)?;
        let scratch_bytes = checked_bytes(
            ctx,
            "shape capacity (pair scratch)",
            sizes.pair_scratch_words,
            4,
        )?;
        let grid = GpuGrid::new(ctx, sizes.shapes.max(1), sizes.grid)?;
        let layout1 = &program.layout1;
        let params = buffer::zeroed(
            device,
            "rigid_params",
            size_of::<GpuRigidParams>() as u64,
            U::UNIFORM | U::COPY_DST,
        );
        let records: Vec<u8> = (0..MAX_COLOURS)
            .flat_map(|c| {
                let mut rec = vec![0u8; PASS_STRIDE as usize];
                let pass = GpuPass {
                    colour: c,
                    ..Default::default()
                };
                rec[..size_of::<GpuPass>()].copy_from_slice(bytemuck::bytes_of(&pass));
                rec
            })
            .collect();
        let pass_records = buffer::with_data(device, "rigid_pass_records", &records, U::UNIFORM);
        let explosion = buffer::zeroed(
            device,
            "rigid_explosion",
            size_of::<GpuExplosion>() as u64,
            U::UNIFORM | U::COPY_DST,
        );
        let bind1 = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("wgphys:bind_group:rigid_pass"),
            layout: layout1,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &pass_records,
                        offset: 0,
                        size: wgpu::BufferSize::new(size_of::<GpuPass>() as u64),
                    }),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: explosion.as_entire_binding(),
                },
            ],
        });
        let z = |name: &str, bytes: u64| buffer::zeroed(device, name, bytes, STATE);
        let bodies = z("rigid_bodies", body_bytes);
        let shapes = z("rigid_shapes", shape_bytes);
        let shape_pos = z("rigid_shape_pos", 16 * u64::from(sizes.shapes));
        let shape_xf = z("rigid_shape_xf", xf_bytes);
        let pairs = z("rigid_pairs", pair_bytes);
        let counters = z("rigid_counters", 4 * counter::LEN as u64);
        let manifolds = z("rigid_manifolds", manifold_bytes);
        let manifolds_prev = z("rigid_manifolds_prev", manifold_bytes);
        let solver = z("rigid_solver", solver_bytes);
        let claims = z("rigid_claims", 20 * u64::from(sizes.bodies));
        // The colouring's sort by colour, whose output is `order` (see colour.wgsl).
        let colour_sort = GpuRadixSort::new(ctx, sizes.pairs.max(1), COLOUR_KEY_BITS)?;
        let order = colour_sort.sorted_values().clone();
        let pair_scratch = z("rigid_pair_scratch", scratch_bytes);
        let indirect = buffer::zeroed(
            device,
            "rigid_indirect",
            4 * counter::LEN as u64,
            STATE | U::INDIRECT,
        );
        let bind0 = program
            .classes
            .iter()
            .map(|class| {
                [false, true].map(|swap| {
                    let (m, prev) = if swap {
                        (&manifolds_prev, &manifolds)
                    } else {
                        (&manifolds, &manifolds_prev)
                    };
                    Self::make_bind0(
                        device,
                        class,
                        &[
                            &params,
                            &bodies,
                            &shapes,
                            &shape_pos,
                            &shape_xf,
                            &pairs,
                            &counters,
                            m,
                            prev,
                            &solver,
                            &claims,
                            &order,
                            grid.sorted_index(),
                            grid.cell_start(),
                            grid.cell_end(),
                            &pair_scratch,
                            &colour_sort.keys,
                            &colour_sort.values,
                        ],
                    )
                })
            })
            .collect();
        Ok(Self {
            ctx: ctx.clone(),
            sizes,
            program,
            pipelines: HashMap::new(),
            bind0,
            flip: 0,
            bind1,
            params,
            bodies,
            shapes,
            shape_pos,
            shape_xf,
            pairs,
            counters,
            manifolds,
            manifolds_prev,
            solver,
            claims,
            order,
            pair_scratch,
            indirect,
            _pass_records: pass_records,
            explosion,
            grid,
            colour_sort,
            compiled: None,
            timing: None,
            stage_timing: None,
            uploads: StepUploads::new(ctx, "wgphys:upload:rigid"),
        })
    }

    /// Group 0 of one layout class: the buffers of `buffers` (in [`BINDINGS`] order) whose
    /// bindings the class holds.
    fn make_bind0(
        device: &wgpu::Device,
        class: &LayoutClass,
        buffers: &[&wgpu::Buffer],
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = BINDINGS
            .iter()
            .zip(buffers)
            .filter(|(b, _)| class.bindings.contains(&b.index))
            .map(|(b, buf)| wgpu::BindGroupEntry {
                binding: b.index,
                resource: buf.as_entire_binding(),
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("wgphys:bind_group:rigid"),
            layout: &class.layout0,
            entries: &entries,
        })
    }

    /// Group 0 for `entry` as the passes recorded next see it.
    fn group0(&self, entry: &str) -> Option<&wgpu::BindGroup> {
        self.bind0
            .get(self.program.class(entry))
            .map(|pair| &pair[self.flip])
    }

    /// The sizes this backend was built with.
    pub fn sizes(&self) -> GpuRigidSizes {
        self.sizes
    }

    /// The grid over shape centres.
    pub fn grid(&self) -> &GpuGrid {
        &self.grid
    }

    /// The colouring's sort of pair slots by colour (its output buffer is
    /// [`order`](Self::order)).
    pub fn colour_sort(&self) -> &GpuRadixSort {
        &self.colour_sort
    }

    /// Compiles the pipeline of every entry point of the rigid shader now (see
    /// [`crate::rigid::RigidWorld::precompile`]).
    pub fn compile_all(&mut self) {
        let mut entries: Vec<&'static str> = self.program.class_of.keys().copied().collect();
        entries.sort_unstable();
        for entry in entries {
            self.pipeline(entry);
        }
    }

    fn pipeline(&mut self, entry: &'static str) {
        if !self.pipelines.contains_key(entry) {
            let p = self.program.pipeline(&self.ctx.device, entry);
            self.pipelines.insert(entry, p);
        }
    }

    /// Records the queued writes, then `passes` in order, each in its own labelled compute
    /// pass.
    pub fn record(&mut self, encoder: &mut wgpu::CommandEncoder, passes: &[Pass]) {
        self.uploads.record(encoder);
        for p in passes {
            self.pipeline(p.entry);
        }
        for p in passes {
            let Some(pipeline) = self.pipelines.get(p.entry) else {
                continue;
            };
            let label = format!("wgphys:pass:{}", p.entry);
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(&label),
                timestamp_writes: None,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, self.group0(p.entry), &[]);
            let offset = (p.colour.min(MAX_COLOURS - 1) as u64 * PASS_STRIDE) as u32;
            pass.set_bind_group(1, &self.bind1, &[offset]);
            match p.dispatch {
                PassDispatch::Direct(x) => {
                    if x > 0 {
                        pass.dispatch_workgroups(x, 1, 1);
                    }
                }
                PassDispatch::Indirect(word) => {
                    pass.dispatch_workgroups_indirect(&self.indirect, 4 * u64::from(word));
                }
            }
        }
    }

    /// Records the colouring's sort of the first `slots` pair slots by colour in a compute pass
    /// of its own (the step records it inside its collide pass; tests that record stage by
    /// stage call this between `colour_keys` and `colour_ranges`).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when `slots` exceeds the pair capacity.
    pub fn record_colour_sort(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        slots: u32,
    ) -> Result<()> {
        self.uploads.record(encoder);
        self.colour_sort.encode(encoder, slots)
    }

    /// Copies the counters into the indirect-argument buffer (after the colouring passes, before
    /// the indirect solver passes).
    pub fn record_indirect_copy(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.copy_buffer_to_buffer(
            &self.counters,
            0,
            &self.indirect,
            0,
            4 * counter::LEN as u64,
        );
    }

    /// Swaps the roles of `manifolds` and `manifolds_prev` for the passes recorded next: call
    /// once per (sub)step, before its narrow phase, so the solver warm-starts from the previous
    /// (sub)step's manifolds.
    pub fn flip_manifolds(&mut self) {
        self.flip ^= 1;
    }

    /// The buffer the passes recorded next see as `manifolds` (this step's output).
    pub fn current_manifolds(&self) -> &wgpu::Buffer {
        if self.flip == 0 {
            &self.manifolds
        } else {
            &self.manifolds_prev
        }
    }

    /// Records a grid build over the first `n` shape centres.
    ///
    /// # Errors
    /// As [`GpuGrid::encode_build`].
    pub fn record_grid(&mut self, encoder: &mut wgpu::CommandEncoder, n: u32) -> Result<()> {
        self.uploads.record(encoder);
        self.grid.encode_build(encoder, &self.shape_pos, n)
    }

    /// Queues `data` for the start of `buffer`: it is copied in at the head of the next
    /// recording (a step, [`record`](Self::record), [`record_grid`](Self::record_grid)) or
    /// before the next [`read`](Self::read), in order with the steps around it.
    pub fn write<T: bytemuck::Pod>(&self, buffer: &wgpu::Buffer, data: &[T]) {
        self.write_at(buffer, 0, data);
    }

    /// Queues `data` for byte `offset` of `buffer` (as [`write`](Self::write)).
    pub fn write_at<T: bytemuck::Pod>(&self, buffer: &wgpu::Buffer, offset: u64, data: &[T]) {
        self.uploads.write(buffer, offset, data);
    }

    /// Makes this backend (just built by [`resized`](Self::resized)) carry on from `old`: the
    /// first `bodies` body records and the counters are copied on the device at the head of
    /// this backend's next recording, after everything `old` still had queued. Nothing is read
    /// back, so steps recorded into an encoder not yet submitted keep their effect.
    pub fn carry_from(&self, old: &mut GpuRigid, bodies: usize) {
        let label = "wgphys:upload:rigid";
        let older = std::mem::replace(&mut old.uploads, StepUploads::new(&old.ctx, label));
        self.uploads.adopt(older);
        let body_bytes = (bodies * size_of::<GpuBody>()) as u64;
        self.uploads.copy(&old.bodies, &self.bodies, body_bytes);
        self.uploads
            .copy(&old.counters, &self.counters, 4 * counter::LEN as u64);
    }

    /// Records the queued writes into `encoder` (the head of a step).
    pub fn record_uploads(&self, encoder: &mut wgpu::CommandEncoder) {
        self.uploads.record(encoder);
    }

    /// Reads the first `n` elements of `buffer`, blocking.
    ///
    /// # Errors
    /// [`Error::Gpu`] when the readback fails.
    pub fn read<T: bytemuck::Pod>(&self, buffer: &wgpu::Buffer, n: usize) -> Result<Vec<T>> {
        self.uploads.submit();
        buffer::read_vec(&self.ctx.device, &self.ctx.queue, buffer, n)
    }

    /// Runs `passes` in one submission and waits (tests and tools; `step` records into one
    /// encoder instead).
    ///
    /// # Errors
    /// [`Error::Gpu`] when the device is lost.
    pub fn run(&mut self, passes: &[Pass]) -> Result<()> {
        let mut encoder = self
            .ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("wgphys:rigid_run"),
            });
        self.record(&mut encoder, passes);
        self.ctx.queue.submit([encoder.finish()]);
        self.ctx.wait()
    }
}
