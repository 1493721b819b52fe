//! The composed WGSL module of the rigid domain and its group-0 bindings: the binding indices,
//! the declarations emitted into the prelude, and the per-entry-point binding sets.

use super::*;
use crate::gpu::shader::{compose, prelude};
use crate::rigid::hull;

/// Binding indices of the rigid domain's group 0, named once.
pub mod binding {
    #![allow(missing_docs)]
    pub const PARAMS: u32 = 0;
    pub const BODIES: u32 = 1;
    pub const SHAPES: u32 = 2;
    pub const SHAPE_POS: u32 = 3;
    pub const SHAPE_XF: u32 = 4;
    pub const HULLS: u32 = 5;
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
    pub const COLOUR_SORTED_KEYS: u32 = 19;
    pub const BLOCKS: u32 = 20;
    pub const SOLVER_ROWS: u32 = 21;
    pub const ORDER_READ: u32 = 22;
    pub const COUNTERS_READ: u32 = 23;
    pub const JOINTS: u32 = 24;
    pub const JOINT_FILTER: u32 = 25;
    pub const FORCE_GENS: u32 = 26;
    pub const GENERATOR_INDEX: u32 = 27;
}

const RW: &str = "storage, read_write";
pub(super) const RO: &str = "storage, read";

/// The rigid domain's group-0 bindings, emitted into the WGSL prelude. Each kernel's layout
/// holds only the ones its entry point uses ([`crate::gpu::shader::entry_bindings`]).
///
/// | binding | holds |
/// |---|---|
/// | `shape_pos` | per shape: world centre (xyz), bounding-sphere radius (w); the grid's input |
/// | `shape_xf` | per shape, 3 words: world rotation quaternion, AABB min (w: 1 large), AABB max |
/// | `hulls` | the hull store: every hull's header, vertices, planes, edges, faces and face loops as `vec4` words (`crate::rigid::hull::layout`) |
/// | `pairs` | shape pairs (a < b), sorted by a then b |
/// | `counters` | see [`counter`] |
/// | `manifolds` | one per pair slot |
/// | `manifolds_prev` | last step's manifolds, for warm starting |
/// | `solver` | the solver's record of each coloured contact, by its position in `order` (`solver::solver_record_rows()` rows; layout owned by `solve.wgsl`) |
/// | `claims` | 6 words per body: the wake stages' word, three colouring claim words, the colour mask; with blocks words 1 to 5 are `block_colour`'s masks per partition and the leftover bin |
/// | `order` | manifold indices sorted by colour |
/// | `pair_scratch` | the host-written large list (planes, half-spaces, shapes bigger than a cell), then the broad phase's per-item counts and offsets (see `shaders/rigid/broad.wgsl`) |
/// | `colour_sort_keys`, `colour_sort_values` | per pair slot, its colour (with the block solver: its bin) and its index: the input of the colour sort, whose output is `order`; with blocks `block_colour` then leaves in the keys, per position of `order`, the end of its colour's run (bit 31: the sequential colour), and uses the values as scratch |
/// | `colour_sorted_keys` | the colour sort's sorted keys (the block solver's bin ranges are found in them) |
/// | `blocks` | per bin of the block solver, its first and end position in `order` |
/// | `joints` | the joint table ([`GpuJoint`]; the host writes each joint's definition, the device its impulses and feedback) |
/// | `joint_filter` | the body pairs whose shapes do not collide because a joint joins them: a hash table of (lower body, higher body, joint, 0), empty slots (NONE, ..) (`rigid::joint` builds it) |
/// | `force_gens` | the force generators ([`GpuForceGen`], host-written only) |
/// | `generator_index` | which generators act on which body (`rigid::generators::build_index`: the count, each body's range, the slots body by body) |
/// | `solver_rows`, `order_read`, `counters_read` | `solver`, `order` and `counters` again, read-only, for the kernels that only read them (the solver's sweeps read `solver_rows` and the colour ranges in `counters_read`, `solve_prepare` reads `order_read`): on Vulkan wgpu orders a dispatch after the one before with a barrier for every read-write storage buffer the two bind, and for none between read-only uses |
pub const BINDINGS: &[BindingDecl] = &[
    BindingDecl::new(binding::PARAMS, "params", "uniform", "RigidParams"),
    BindingDecl::new(binding::BODIES, "bodies", RW, "array<Body>"),
    BindingDecl::new(binding::SHAPES, "shapes", RO, "array<Shape>"),
    BindingDecl::new(binding::SHAPE_POS, "shape_pos", RW, "array<vec4<f32>>"),
    BindingDecl::new(binding::SHAPE_XF, "shape_xf", RW, "array<vec4<f32>>"),
    BindingDecl::new(binding::HULLS, "hulls", RO, "array<vec4<u32>>"),
    BindingDecl::new(binding::PAIRS, "pairs", RW, "array<vec2<u32>>"),
    BindingDecl::new(binding::COUNTERS, "counters", RW, "array<atomic<u32>>"),
    BindingDecl::new(binding::MANIFOLDS, "manifolds", RW, "array<Manifold>"),
    BindingDecl::new(
        binding::MANIFOLDS_PREV,
        "manifolds_prev",
        RO,
        "array<Manifold>",
    ),
    BindingDecl::new(binding::SOLVER, "solver", RW, "array<vec4<u32>>"),
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
    BindingDecl::new(
        binding::COLOUR_SORTED_KEYS,
        "colour_sorted_keys",
        RO,
        "array<u32>",
    ),
    BindingDecl::new(binding::BLOCKS, "blocks", RW, "array<u32>"),
    BindingDecl::new(binding::SOLVER_ROWS, "solver_rows", RO, "array<vec4<u32>>"),
    BindingDecl::new(binding::ORDER_READ, "order_read", RO, "array<u32>"),
    BindingDecl::new(binding::COUNTERS_READ, "counters_read", RO, "array<u32>"),
    BindingDecl::new(binding::JOINTS, "joints", RW, "array<Joint>"),
    BindingDecl::new(
        binding::JOINT_FILTER,
        "joint_filter",
        RO,
        "array<vec4<u32>>",
    ),
    BindingDecl::new(binding::FORCE_GENS, "force_gens", RO, "array<ForceGen>"),
    BindingDecl::new(
        binding::GENERATOR_INDEX,
        "generator_index",
        RO,
        "array<u32>",
    ),
];

/// Key bits of the colour sort: colours below [`MAX_COLOURS`], and `MAX_COLOURS` itself for a
/// slot without one.
pub(super) const COLOUR_KEY_BITS: u32 = (MAX_COLOURS + 1).next_power_of_two().trailing_zeros();

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

/// What a rigid world's kernels need of a device (the grid build and the colour sort
/// included), read from their WGSL once and checked against the device when a world is built;
/// the solver's pass record is one uniform bound with a dynamic offset.
///
/// # Errors
/// [`crate::Error::Gpu`] if a module does not validate (an engine bug).
pub fn kernel_needs() -> crate::error::Result<crate::gpu::shader::KernelNeeds> {
    use crate::gpu::shader::{kernel_needs_once, KernelTable};
    static FOUND: std::sync::OnceLock<KernelTable> = std::sync::OnceLock::new();
    let mut own = kernel_needs_once(&FOUND, shader_source)?.most(&[]);
    own.dynamic_uniforms = 1;
    Ok(own.max(&crate::grid::gpu::kernel_needs()?))
}

/// The group-0 bindings of each rigid entry point (parsed once per process).
pub(super) fn entry_bindings() -> Result<&'static [(String, Vec<u32>)]> {
    static FOUND: std::sync::OnceLock<Vec<(String, Vec<u32>)>> = std::sync::OnceLock::new();
    if let Some(found) = FOUND.get() {
        return Ok(found);
    }
    let found = crate::gpu::shader::entry_bindings(&shader_source())?;
    Ok(FOUND.get_or_init(|| found))
}

/// The constants the rigid domain's WGSL reads (emitted into its prelude, and in front of the
/// structs a renderer includes: `crate::rigid::wgsl::structs`).
pub(crate) fn wgsl_constants() -> Vec<(&'static str, u32)> {
    vec![
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
        ("COUNTER_PAIR_GROUPS", counter::PAIR_GROUPS as u32),
        ("COUNTER_STAGED_BINS", counter::STAGED_BINS as u32),
        ("COUNTER_UNSTAGED_BINS", counter::UNSTAGED_BINS as u32),
        ("COUNTER_INDIRECT", counter::INDIRECT as u32),
        ("COUNTER_COLOUR_START", counter::COLOUR_START as u32),
        ("COUNTER_COLOUR_COUNT", counter::COLOUR_COUNT as u32),
        ("COUNTER_WAITING_GROUPS", counter::WAITING_GROUPS as u32),
        ("COUNTER_WAITING", counter::WAITING as u32),
        ("COUNTER_BROAD_TRUNCATED", counter::BROAD_TRUNCATED as u32),
        ("COUNTER_SLOTS", counter::SLOTS as u32),
        ("COUNTER_JOINTS_BROKEN", counter::JOINTS_BROKEN as u32),
        ("COUNTER_JOINT_EVENTS", counter::JOINT_EVENTS as u32),
        ("JOINT_EVENTS_MAX", counter::JOINT_EVENTS_MAX as u32),
        ("COUNTER_FRACTURES", counter::FRACTURES as u32),
        ("COUNTER_FRACTURE_EVENTS", counter::FRACTURE_EVENTS as u32),
        ("FRACTURE_EVENTS_MAX", counter::FRACTURE_EVENTS_MAX as u32),
        ("FRACTURE_EVENT_WORDS", counter::FRACTURE_EVENT_WORDS as u32),
        (
            "COUNTER_CONTACT_EVENT_COUNT",
            counter::CONTACT_EVENT_COUNT as u32,
        ),
        ("COUNTER_CONTACT_EVENTS", counter::CONTACT_EVENTS as u32),
        ("CONTACT_EVENTS_MAX", counter::CONTACT_EVENTS_MAX as u32),
        ("CONTACT_STOPPED", counter::CONTACT_STOPPED),
        ("MANIFOLD_SENSOR", MANIFOLD_SENSOR),
        ("JOINT_SLOT_COUNT", JOINT_SLOT_COUNT),
        ("JOINT_KIND_BALL", joint_kind::BALL),
        ("JOINT_KIND_HINGE", joint_kind::HINGE),
        ("JOINT_KIND_FIXED", joint_kind::FIXED),
        ("JOINT_KIND_SLIDER", joint_kind::SLIDER),
        ("JOINT_KIND_DISTANCE", joint_kind::DISTANCE),
        ("JOINT_FLAG_DISABLED", joint_flag::DISABLED),
        ("JOINT_FLAG_COLLIDE", joint_flag::COLLIDE),
        ("JOINT_FLAG_LIMITS", joint_flag::LIMITS),
        ("JOINT_FLAG_MOTOR", joint_flag::MOTOR),
        ("JOINT_FLAG_SPRING", joint_flag::SPRING),
        ("JOINT_FLAG_CONE", joint_flag::CONE),
        ("JOINT_FLAG_TWIST", joint_flag::TWIST),
        ("JOINT_FLAG_BREAKABLE", joint_flag::BREAKABLE),
        (
            "COLOUR_ROUNDS_OVER_ALL",
            crate::rigid::colour::COLOUR_ROUNDS_OVER_ALL,
        ),
        ("FORCE_GEN_SPRING", force_gen_kind::SPRING),
        ("FORCE_GEN_ANCHORED_SPRING", force_gen_kind::ANCHORED_SPRING),
        ("FORCE_GEN_AERO", force_gen_kind::AERO),
        ("FORCE_GEN_AERO_CONTROL", force_gen_kind::AERO_CONTROL),
        ("FORCE_GEN_ANGLED_AERO", force_gen_kind::ANGLED_AERO),
        ("FORCE_GEN_BUOYANCY", force_gen_kind::BUOYANCY),
        ("FORCE_GEN_THRUST", force_gen_kind::THRUST),
        ("SHAPE_SPHERE", shape_kind::SPHERE),
        ("SHAPE_BOX", shape_kind::BOX),
        ("SHAPE_CAPSULE", shape_kind::CAPSULE),
        ("SHAPE_HALF_SPACE", shape_kind::HALF_SPACE),
        ("SHAPE_PLANE", shape_kind::PLANE),
        ("SHAPE_HULL", shape_kind::HULL),
        ("SHAPE_MESH", shape_kind::MESH),
        ("SHAPE_HEIGHTFIELD", shape_kind::HEIGHTFIELD),
        ("HULL_HEADER_WORDS", hull::HULL_HEADER_WORDS),
        (
            "MESH_HEADER_WORDS",
            crate::rigid::mesh::layout::MESH_HEADER_WORDS,
        ),
        ("MESH_LEAF_SIZE", crate::rigid::mesh::LEAF_SIZE as u32),
        ("MESH_SOLID", crate::rigid::mesh::layout::HEIGHTFIELD_SOLID),
        ("MESH_MAX_CELLS", crate::rigid::narrow::MESH_MAX_CELLS),
        ("HULL_UNIT_CUBE", hull::UNIT_CUBE),
        ("HULL_MAX_VERTICES", hull::MAX_HULL_VERTICES),
        ("HULL_MAX_FACES", hull::MAX_HULL_FACES),
        ("HULL_MAX_FACE_VERTICES", hull::MAX_FACE_VERTICES),
        ("HULL_MAX_EDGES", hull::MAX_HULL_EDGES),
        ("HULL_MAX_CLIP", hull::manifold::MAX_CLIP as u32),
        ("CORE_POINT", hull::support::core::POINT),
        ("CORE_SEGMENT", hull::support::core::SEGMENT),
        ("CORE_BOX", hull::support::core::BOX),
        ("CORE_HULL", hull::support::core::HULL),
        ("CORE_TRIANGLE", hull::support::core::TRIANGLE),
        ("GJK_MAX_ITERATIONS", hull::gjk::GJK_MAX_ITERATIONS),
        ("EPA_MAX_VERTICES", hull::epa::EPA_MAX_VERTICES as u32),
        ("EPA_MAX_FACES", hull::epa::EPA_MAX_FACES as u32),
        ("EPA_MAX_EDGES", hull::epa::EPA_MAX_EDGES as u32),
        ("EPA_MAX_ITERATIONS", hull::epa::EPA_MAX_ITERATIONS),
        ("CA_MAX_ITERATIONS", hull::ca::CA_MAX_ITERATIONS),
        ("BODY_DYNAMIC", body_kind::DYNAMIC),
        ("BODY_STATIC", body_kind::STATIC),
        ("BODY_KINEMATIC", body_kind::KINEMATIC),
    ]
}

/// The composed WGSL module of the rigid domain.
pub fn shader_source() -> String {
    let mut pre = prelude(&wgsl_constants(), BINDINGS);
    pre.push_str(PASS_DECL);
    compose(
        &pre,
        &[
            include_str!("../../../shaders/rigid/types.wgsl"),
            include_str!("../../../shaders/rigid/math.wgsl"),
            &crate::grid::gpu::common_source(),
            include_str!("../../../shaders/rigid/integrate.wgsl"),
            include_str!("../../../shaders/rigid/sleep.wgsl"),
            include_str!("../../../shaders/common/rng.wgsl"),
            include_str!("../../../shaders/rigid/forces.wgsl"),
            include_str!("../../../shaders/rigid/generators.wgsl"),
            include_str!("../../../shaders/rigid/broad.wgsl"),
            include_str!("../../../shaders/rigid/narrow/narrow.wgsl"),
            include_str!("../../../shaders/rigid/narrow/box_box.wgsl"),
            include_str!("../../../shaders/rigid/narrow/hull_pairs.wgsl"),
            include_str!("../../../shaders/rigid/narrow/mesh.wgsl"),
            include_str!("../../../shaders/rigid/mesh/layout.wgsl"),
            include_str!("../../../shaders/rigid/mesh/contact.wgsl"),
            include_str!("../../../shaders/rigid/hull/hull.wgsl"),
            include_str!("../../../shaders/rigid/hull/gjk.wgsl"),
            include_str!("../../../shaders/rigid/hull/epa.wgsl"),
            include_str!("../../../shaders/rigid/hull/sat.wgsl"),
            include_str!("../../../shaders/rigid/hull/manifold.wgsl"),
            include_str!("../../../shaders/rigid/hull/ca.wgsl"),
            include_str!("../../../shaders/rigid/colour.wgsl"),
            include_str!("../../../shaders/rigid/solver/solver.wgsl"),
            include_str!("../../../shaders/rigid/solver/prepare.wgsl"),
            include_str!("../../../shaders/rigid/solver/block.wgsl"),
            include_str!("../../../shaders/rigid/joint.wgsl"),
            include_str!("../../../shaders/rigid/fracture.wgsl"),
            include_str!("../../../shaders/rigid/events.wgsl"),
            include_str!("../../../shaders/rigid/ccd.wgsl"),
        ],
    )
}
