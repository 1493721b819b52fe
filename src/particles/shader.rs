//! The particle domain's WGSL: its bindings (named once, emitted into the prelude), the
//! scratch binding's layout, and the composed module.

use super::types::*;
use crate::gpu::shader::{compose, prelude, BindingDecl};

/// Binding indices of the particle domain's group 0, named once.
pub mod binding {
    #![allow(missing_docs)]
    pub const PARAMS: u32 = 0;
    pub const POS: u32 = 1;
    pub const VEL: u32 = 2;
    pub const ACC: u32 = 3;
    pub const LIFE: u32 = 4;
    pub const COLOUR: u32 = 5;
    pub const SIZE: u32 = 6;
    pub const COUNTERS: u32 = 7;
    pub const SCRATCH: u32 = 8;
    pub const STAGING: u32 = 9;
    pub const ARGS_APPEND: u32 = 10;
    pub const COLLIDERS: u32 = 11;
    pub const RULES: u32 = 12;
    pub const PAYLOADS: u32 = 13;
    pub const DEATHS: u32 = 14;
    pub const EMITTERS: u32 = 15;
    pub const CURVES: u32 = 16;
    pub const VIEW: u32 = 17;
    pub const SORT_KEYS: u32 = 18;
    pub const SORT_VALUES: u32 = 19;
    pub const BOUNDS_KEYS: u32 = 20;
    pub const EMITTER_BOUNDS: u32 = 21;
    pub const DEPTH_TEX: u32 = 22;
    pub const DEPTH: u32 = 23;
    pub const TRAILS: u32 = 24;
    pub const RIGID_BODIES: u32 = 25;
    pub const RIGID_SHAPES: u32 = 26;
    pub const RIGID_CELLS: u32 = 27;
    pub const RIGID_CELLS_RO: u32 = 28;
}

const RW: &str = "storage, read_write";

/// The particle domain's bindings, emitted into the WGSL prelude.
///
/// Every kernel binds at most 8 storage buffers (WebGPU's default per stage): the static tables
/// (colliders, firework rules and payloads) are uniform arrays of fixed size
/// ([`MAX_COLLIDERS`], [`MAX_RULES`], [`MAX_PAYLOADS`]), and the per-step arrays of u32 (flags,
/// block sums, holes, removals) share the `scratch` binding ([`ScratchLayout`]).
pub const BINDINGS: &[BindingDecl] = &[
    BindingDecl::new(binding::PARAMS, "params", "uniform", "Params"),
    BindingDecl::new(binding::POS, "pos", RW, "array<vec4<f32>>"),
    BindingDecl::new(binding::VEL, "vel", RW, "array<vec4<f32>>"),
    BindingDecl::new(binding::ACC, "acc", RW, "array<vec4<f32>>"),
    BindingDecl::new(binding::LIFE, "life", RW, "array<Life>"),
    BindingDecl::new(binding::COLOUR, "colour", RW, "array<vec4<f32>>"),
    BindingDecl::new(binding::SIZE, "size", RW, "array<f32>"),
    BindingDecl::new(binding::COUNTERS, "counters", RW, "Counters"),
    BindingDecl::new(binding::SCRATCH, "scratch", RW, "array<u32>"),
    BindingDecl::new(binding::STAGING, "staging", RW, "array<SpawnRecord>"),
    BindingDecl::new(binding::ARGS_APPEND, "args_append", RW, "array<u32>"),
    BindingDecl::new(
        binding::COLLIDERS,
        "colliders",
        "uniform",
        "array<Collider, MAX_COLLIDERS>",
    ),
    BindingDecl::new(binding::RULES, "rules", "uniform", "array<Rule, MAX_RULES>"),
    BindingDecl::new(binding::DEATHS, "deaths", RW, "array<atomic<u32>>"),
    BindingDecl::new(
        binding::EMITTERS,
        "emitters",
        "uniform",
        "array<Emitter, MAX_EMITTERS>",
    ),
    BindingDecl::new(
        binding::CURVES,
        "curves",
        "uniform",
        "array<Curves, MAX_EMITTERS>",
    ),
    BindingDecl::new(binding::VIEW, "view", "uniform", "View"),
    BindingDecl::new(binding::SORT_KEYS, "sort_keys", RW, "array<u32>"),
    BindingDecl::new(binding::SORT_VALUES, "sort_values", RW, "array<u32>"),
    BindingDecl::new(
        binding::BOUNDS_KEYS,
        "bounds_keys",
        RW,
        "array<atomic<u32>>",
    ),
    BindingDecl::new(
        binding::EMITTER_BOUNDS,
        "emitter_bounds_out",
        RW,
        "array<vec4<f32>>",
    ),
    BindingDecl::new(binding::DEPTH_TEX, "depth_tex", "", "texture_2d<f32>"),
    BindingDecl::new(binding::DEPTH, "depth", "uniform", "DepthParams"),
    BindingDecl::new(binding::TRAILS, "trails", RW, "array<vec4<f32>>"),
    BindingDecl::new(
        binding::RIGID_BODIES,
        "rigid_bodies",
        "storage, read",
        "array<RigidBody>",
    ),
    BindingDecl::new(
        binding::RIGID_SHAPES,
        "rigid_shapes",
        "storage, read",
        "array<RigidShape>",
    ),
    BindingDecl::new(
        binding::RIGID_CELLS,
        "rigid_cells_buf",
        RW,
        "array<atomic<u32>>",
    ),
    // The same buffer read-only, for stage `rigid_contacts_cells` (plain loads).
    BindingDecl::new(
        binding::RIGID_CELLS_RO,
        "rigid_cells_ro",
        "storage, read",
        "array<u32>",
    ),
    BindingDecl::new(
        binding::PAYLOADS,
        "payloads",
        "uniform",
        "array<vec4<u32>, PAYLOAD_QUADS>",
    ),
];

/// Where the per-step arrays sit in the `scratch` binding, in u32 words; a function of the
/// capacity alone, computed the same way by `block_base`, `hole_base` and `removal_base` in
/// `shaders/particles/types.wgsl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScratchLayout {
    /// First word of the block sums (the flags take `[0, capacity)`).
    pub block_base: u64,
    /// First word of the hole slots.
    pub hole_base: u64,
    /// First word of the step's removals.
    pub removal_base: u64,
}

impl ScratchLayout {
    /// The layout for a pool of `capacity` particles.
    #[must_use]
    pub fn new(capacity: u32) -> Self {
        let n = u64::from(capacity);
        let block_base = n;
        let hole_base = block_base + 2 * n.div_ceil(u64::from(BLOCK));
        Self {
            block_base,
            hole_base,
            removal_base: hole_base + n,
        }
    }

    /// Bytes of a scratch buffer with room for `removals` ids.
    pub fn bytes(&self, removals: u32) -> u64 {
        4 * (self.removal_base + u64::from(removals))
    }
}

/// What a particle world's kernels need of a device (its back-to-front sort's included),
/// read from their WGSL once and checked against the device when a world is built.
///
/// # Errors
/// [`crate::Error::Gpu`] if a module does not validate (an engine bug).
pub fn kernel_needs() -> crate::error::Result<crate::gpu::shader::KernelNeeds> {
    use crate::gpu::shader::{kernel_needs_once, KernelTable};
    static FOUND: std::sync::OnceLock<KernelTable> = std::sync::OnceLock::new();
    let own = kernel_needs_once(&FOUND, shader_source)?.most(&[]);
    Ok(own.max(&crate::gpu::sort::kernel_needs()?))
}

/// The most storage buffers one of the particle kernels binds in a shader stage (layouts are
/// derived per entry point).
///
/// # Errors
/// [`crate::Error::Gpu`] if the module does not validate (an engine bug).
pub fn storage_buffers_per_stage() -> crate::error::Result<u32> {
    static FOUND: std::sync::OnceLock<crate::gpu::shader::StorageBuffers> =
        std::sync::OnceLock::new();
    Ok(crate::gpu::shader::storage_buffers_once(&FOUND, shader_source)?.most(&[]))
}

/// The composed WGSL module of the particle domain.
pub fn shader_source() -> String {
    let consts = [
        ("WG", WG),
        ("ITEMS", ITEMS),
        ("BLOCK", BLOCK),
        ("MAX_FIELDS", MAX_FIELDS),
        ("FIELD_KIND_MASK", FIELD_KIND_MASK),
        ("FIELD_EMITTER_SHIFT", FIELD_EMITTER_SHIFT),
        ("MAX_COLLIDERS", MAX_COLLIDERS),
        ("MAX_RULES", MAX_RULES),
        ("PAYLOAD_QUADS", MAX_PAYLOADS / 2),
        ("MAX_EMITTERS", MAX_EMITTERS),
        ("EMIT_FIRST_QUADS", MAX_EMITTERS / 4),
        ("GROUP_QUADS", GROUP_QUADS),
        ("RIGID_CELL_SPAN", super::rigid_cells::CELL_SPAN),
        ("RIGID_HEADER", super::rigid_cells::HEADER),
        ("MAX_CURVE_KEYS", MAX_CURVE_KEYS),
        ("CURVE_QUADS", MAX_CURVE_KEYS / 4),
        ("KIND_CURVES_SHIFT", KIND_CURVES_SHIFT),
        ("KIND_FIREWORK_MASK", KIND_FIREWORK_MASK),
        ("BOUNDS_KEYS", 6 * MAX_EMITTERS),
        ("GPU_ID_BIT", GPU_ID_BIT),
    ];
    // WGSL resolves module-scope names in any order, so the prelude may name structs declared
    // later in types.wgsl.
    compose(
        &(prelude(&consts, BINDINGS) + &crate::colliders::reach_slack_source() + &rigid_structs()),
        &[
            include_str!("../../shaders/particles/types.wgsl"),
            include_str!("../../shaders/common/rng.wgsl"),
            include_str!("../../shaders/common/noise.wgsl"),
            include_str!("../../shaders/common/fields.wgsl"),
            include_str!("../../shaders/common/colliders.wgsl"),
            include_str!("../../shaders/particles/integrate.wgsl"),
            include_str!("../../shaders/particles/lifecycle.wgsl"),
            include_str!("../../shaders/particles/emitter.wgsl"),
            include_str!("../../shaders/particles/view_sort.wgsl"),
            include_str!("../../shaders/particles/bounds.wgsl"),
            include_str!("../../shaders/particles/depth.wgsl"),
            include_str!("../../shaders/particles/trails.wgsl"),
            include_str!("../../shaders/particles/rigid.wgsl"),
            include_str!("../../shaders/particles/rigid_cells.wgsl"),
        ],
    )
}

/// The rigid world's `Body` and `Shape` structs, cut from its own WGSL and renamed `RigidBody`
/// and `RigidShape` (the particle module has a `Body` of its own), for stage `rigid_contacts`,
/// which binds the rigid world's buffers: one declaration of each layout, so they cannot drift.
fn rigid_structs() -> String {
    let source = include_str!("../../shaders/rigid/types.wgsl");
    let cut = |name: &str, renamed: &str| -> String {
        let head = format!("struct {name} {{");
        let Some(start) = source.find(&head) else {
            return String::new();
        };
        let end = source[start..]
            .find("\n}")
            .map_or(source.len(), |e| start + e + 2);
        format!("struct {renamed} {{{}\n", &source[start + head.len()..end])
    };
    cut("Body", "RigidBody") + &cut("Shape", "RigidShape")
}
