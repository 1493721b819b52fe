//! GPU host code of the rigid domain: one explicit bind-group layout shared by every rigid
//! kernel (group 0: the world's buffers; group 1: the per-colour [`GpuPass`] uniform with a
//! dynamic offset), the composed shader, and the step recorder. The stages and their order
//! match `RigidWorld::step` on the CPU.

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
    pub const LARGE: u32 = 5;
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
}

const RW: &str = "storage, read_write";
const RO: &str = "storage, read";

macro_rules! decl {
    ($index:expr, $name:literal, $space:expr, $ty:literal) => {
        BindingDecl {
            index: $index,
            name: $name,
            space: $space,
            ty: $ty,
        }
    };
}

/// The rigid domain's group-0 bindings, emitted into the WGSL prelude. Every rigid kernel sees
/// all of them (one explicit layout; 16 storage buffers, the most GL adapters allow per stage).
///
/// | binding | holds |
/// |---|---|
/// | `shape_pos` | per shape: world centre (xyz), bounding-sphere radius (w); the grid's input |
/// | `shape_xf` | per shape, 3 words: world rotation quaternion, AABB min (w: 1 large), AABB max |
/// | `large` | host-written indices of large shapes (planes, half-spaces, bigger than a cell) |
/// | `pairs` | shape pairs (a < b), sorted by a then b |
/// | `counters` | see [`counter`] |
/// | `manifolds` | one per pair slot |
/// | `manifolds_prev` | last step's manifolds, for warm starting |
/// | `solver` | per-manifold solver rows (layout owned by `solve.wgsl` / `solver.rs`) |
/// | `claims` | per body, colouring claims (atomicMin) |
/// | `order` | manifold indices sorted by colour |
/// | `pair_scratch` | per shape pair counts, then offsets (broad phase) |
pub const BINDINGS: &[BindingDecl] = &[
    decl!(binding::PARAMS, "params", "uniform", "RigidParams"),
    decl!(binding::BODIES, "bodies", RW, "array<Body>"),
    decl!(binding::SHAPES, "shapes", RO, "array<Shape>"),
    decl!(binding::SHAPE_POS, "shape_pos", RW, "array<vec4<f32>>"),
    decl!(binding::SHAPE_XF, "shape_xf", RW, "array<vec4<f32>>"),
    decl!(binding::LARGE, "large", RO, "array<u32>"),
    decl!(binding::PAIRS, "pairs", RW, "array<vec2<u32>>"),
    decl!(binding::COUNTERS, "counters", RW, "array<atomic<u32>>"),
    decl!(binding::MANIFOLDS, "manifolds", RW, "array<Manifold>"),
    decl!(binding::MANIFOLDS_PREV, "manifolds_prev", RO, "array<Manifold>"),
    decl!(binding::SOLVER, "solver", RW, "array<vec4<f32>>"),
    decl!(binding::CLAIMS, "claims", RW, "array<atomic<u32>>"),
    decl!(binding::ORDER, "order", RW, "array<u32>"),
    decl!(binding::GRID_SORTED, "grid_sorted", RO, "array<u32>"),
    decl!(binding::GRID_START, "grid_start", RO, "array<u32>"),
    decl!(binding::GRID_END, "grid_end", RO, "array<u32>"),
    decl!(binding::PAIR_SCRATCH, "pair_scratch", RW, "array<u32>"),
];

/// The group-1 declaration: the per-colour pass uniform, bound with a dynamic offset.
const PASS_DECL: &str = "@group(1) @binding(0) var<uniform> pass_info: Pass;\n";

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
        ("COUNTER_INDIRECT", counter::INDIRECT as u32),
        ("COUNTER_COLOUR_START", counter::COLOUR_START as u32),
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
            include_str!("../../shaders/rigid/broad.wgsl"),
            include_str!("../../shaders/rigid/narrow.wgsl"),
            include_str!("../../shaders/rigid/solve.wgsl"),
            include_str!("../../shaders/rigid/ccd.wgsl"),
        ],
    )
}
