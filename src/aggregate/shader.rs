//! The aggregate domain's WGSL module: its group-0 bindings, named once, and the composition
//! of its stage files.

use super::types::WG;
use super::types::*;
use crate::fields::{FIELD_EMITTER_SHIFT, FIELD_KIND_MASK, MAX_FIELDS};
use crate::gpu::shader::{compose, prelude, BindingDecl};

/// Binding indices of the aggregate domain's group 0, named once.
pub mod binding {
    #![allow(missing_docs)]
    pub const PARAMS: u32 = 0;
    pub const POS_IN: u32 = 1;
    pub const VEL_IN: u32 = 2;
    pub const POS_OUT: u32 = 3;
    pub const VEL_OUT: u32 = 4;
    pub const ACC: u32 = 5;
    pub const RADIUS: u32 = 6;
    pub const GENS: u32 = 7;
    pub const GEN_OFFSETS: u32 = 8;
    pub const GEN_REFS: u32 = 9;
    pub const LINKS: u32 = 10;
    pub const COLOUR_START: u32 = 11;
    pub const COLLIDERS: u32 = 12;
    pub const GRID_SORTED: u32 = 13;
    pub const GRID_START: u32 = 14;
    pub const GRID_END: u32 = 15;
    pub const ORDER_KEYS: u32 = 16;
    pub const ORDER_IDS: u32 = 17;
    pub const ORDER: u32 = 18;
    pub const NEAR_IN: u32 = 19;
    pub const NEAR_OUT: u32 = 20;
    pub const NEAR_ACC: u32 = 21;
    pub const NEAR_ACC_OUT: u32 = 22;
    pub const NEAR_SLOT: u32 = 23;
    pub const CELLS: u32 = 24;
    pub const CELLS_OUT: u32 = 25;
    pub const CELL_SLOTS: u32 = 26;
    pub const CELL_SLOTS_OUT: u32 = 27;
    pub const CANDIDATES: u32 = 28;
    pub const CANDIDATES_OUT: u32 = 29;
}

/// Bits of the spatial order's sort key (`near_key` in shaders/aggregate/order.wgsl): the
/// Morton code of a 2×2×2-cell block, 8 bits per axis, so three radix passes.
pub const NEAR_KEY_BITS: u32 = 24;

/// Bytes per grid key of the collide stage's slot table (`cells`).
pub const CELL_ENTRY_BYTES: u64 = 8;

/// Bytes per particle slot of each of the spatial order's state buffers (`near_in`,
/// `near_out`): slot s's position and radius at vec4 `[s]`, its velocity and inverse mass at
/// `[n + s]`. Positions and velocities are the two halves of one binding so that
/// `near_gather` and `collide_near` bind 8 storage buffers, WebGPU's default limit per stage,
/// instead of 9 (see shaders/aggregate/order.wgsl for why this packing over the others).
pub const NEAR_STATE_BYTES: u64 = 32;

/// The most workgroups `near_cells` dispatches; its threads stride over larger tables.
pub(crate) const MAX_GROUPS: u32 = 65_535;

const RW: &str = "storage, read_write";
/// Inputs no aggregate kernel writes: declared read-only so the compiler may keep them in
/// registers and reorder loads around the output stores.
const RO: &str = "storage, read";

/// The aggregate domain's bindings, emitted into the WGSL prelude.
pub const BINDINGS: &[BindingDecl] = &[
    BindingDecl {
        index: binding::PARAMS,
        name: "params",
        space: "uniform",
        ty: "AggParams",
    },
    BindingDecl {
        index: binding::POS_IN,
        name: "pos_in",
        space: RO,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::VEL_IN,
        name: "vel_in",
        space: RO,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::POS_OUT,
        name: "pos_out",
        space: RW,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::VEL_OUT,
        name: "vel_out",
        space: RW,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::ACC,
        name: "acc",
        space: RO,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::RADIUS,
        name: "radius",
        space: RO,
        ty: "array<f32>",
    },
    BindingDecl {
        index: binding::GENS,
        name: "gens",
        space: RO,
        ty: "array<Gen>",
    },
    BindingDecl {
        index: binding::GEN_OFFSETS,
        name: "gen_offsets",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::GEN_REFS,
        name: "gen_refs",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::LINKS,
        name: "links",
        space: RO,
        ty: "array<Link>",
    },
    BindingDecl {
        index: binding::COLOUR_START,
        name: "colour_start",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::COLLIDERS,
        name: "colliders",
        space: "uniform",
        ty: "array<Collider, MAX_COLLIDERS>",
    },
    BindingDecl {
        index: binding::GRID_SORTED,
        name: "grid_sorted",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::GRID_START,
        name: "grid_start",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::GRID_END,
        name: "grid_end",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::ORDER_KEYS,
        name: "order_keys",
        space: RW,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::ORDER_IDS,
        name: "order_ids",
        space: RW,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::ORDER,
        name: "order",
        space: RO,
        ty: "array<u32>",
    },
    // The spatial order's packed state, positions and velocities as the two halves of one
    // binding (see NEAR_STATE_VEC4S).
    BindingDecl {
        index: binding::NEAR_IN,
        name: "near_in",
        space: RO,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::NEAR_OUT,
        name: "near_out",
        space: RW,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::NEAR_ACC,
        name: "near_acc",
        space: RO,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::NEAR_ACC_OUT,
        name: "near_acc_out",
        space: RW,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::NEAR_SLOT,
        name: "near_slot",
        space: RW,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::CELLS,
        name: "cells",
        space: RO,
        ty: "array<vec2<u32>>",
    },
    BindingDecl {
        index: binding::CELLS_OUT,
        name: "cells_out",
        space: RW,
        ty: "array<vec2<u32>>",
    },
    BindingDecl {
        index: binding::CELL_SLOTS,
        name: "cell_slots",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::CELL_SLOTS_OUT,
        name: "cell_slots_out",
        space: RW,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::CANDIDATES,
        name: "candidates",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::CANDIDATES_OUT,
        name: "candidates_out",
        space: RW,
        ty: "array<u32>",
    },
];

/// The most storage buffers one of the aggregate kernels a world builds binds in a shader stage
/// (layouts are derived per entry point): the integrate, collide and link kernels, and with
/// `gridded` the spatial-order kernels too. Checked against the device before a world is
/// built.
///
/// 8 either way, WebGPU's default `max_storage_buffers_per_shader_stage`, so an aggregate
/// world, gridded or not, builds on a renderer's device made with the default limits:
/// `agg_integrate`, `near_gather` and `collide_near` bind 8, `collide` 7, `near_cells` and
/// `near_scatter` 6, `near_list` and `solve_links` 5, `near_keys` 3 (the spatial-order kernels
/// with positions and velocities in one binding, see [`NEAR_STATE_BYTES`], and `collide_near`
/// reading its particle indices from the candidate lists, see shaders/aggregate/near_list.wgsl).
///
/// # Errors
/// [`crate::Error::Gpu`] if the module does not validate (an engine bug).
pub fn storage_buffers_per_stage(gridded: bool) -> crate::error::Result<u32> {
    static FOUND: std::sync::OnceLock<crate::gpu::shader::StorageBuffers> =
        std::sync::OnceLock::new();
    let found = crate::gpu::shader::storage_buffers_once(&FOUND, shader_source)?;
    let base = found.most(&BASE_ENTRIES);
    Ok(if gridded {
        base.max(found.most(&NEAR_ENTRIES))
    } else {
        base
    })
}

/// What an aggregate world's kernels need of a device, `gridded` or not (a gridded world adds
/// the grid build and the near-list kernels), read from their WGSL once and checked against
/// the device when a world is built.
///
/// # Errors
/// [`crate::Error::Gpu`] if a module does not validate (an engine bug).
pub fn kernel_needs(gridded: bool) -> crate::error::Result<crate::gpu::shader::KernelNeeds> {
    use crate::gpu::shader::{kernel_needs_once, KernelTable};
    static FOUND: std::sync::OnceLock<KernelTable> = std::sync::OnceLock::new();
    let table = kernel_needs_once(&FOUND, shader_source)?;
    let mut needs = table.most(&BASE_ENTRIES);
    if gridded {
        needs = needs
            .max(&table.most(&NEAR_ENTRIES))
            .max(&crate::grid::gpu::kernel_needs()?);
    }
    Ok(needs)
}

/// The kernels every aggregate world runs.
const BASE_ENTRIES: [&str; 3] = ["agg_integrate", "collide", "solve_links"];
/// The kernels a gridded aggregate world adds (beside the grid build).
const NEAR_ENTRIES: [&str; 6] = [
    "near_keys",
    "near_gather",
    "near_cells",
    "near_list",
    "collide_near",
    "near_scatter",
];

/// The composed WGSL module of the aggregate domain.
pub fn shader_source() -> String {
    let consts = [
        ("WG", WG),
        ("MAX_FIELDS", MAX_FIELDS),
        ("MAX_COLLIDERS", crate::colliders::MAX_COLLIDERS),
        ("FIELD_KIND_MASK", FIELD_KIND_MASK),
        ("FIELD_EMITTER_SHIFT", FIELD_EMITTER_SHIFT),
        ("NONE", NONE),
        ("CELL_LISTED", CELL_LISTED),
        ("NEAR_SPAN", super::model::NEAR_SPAN),
        ("NEAR_UNITS", super::model::NEAR_UNITS as u32),
    ];
    // The collide stage's float constants, defined once in model.rs.
    let relaxation = format!(
        "const RELAXATION: f32 = {:?};\nconst REST_DEPTH: f32 = {:?};\n",
        super::model::COLLIDE_RELAXATION,
        super::model::COLLIDE_REST_DEPTH
    );
    compose(
        &(prelude(&consts, BINDINGS) + &relaxation + &crate::colliders::reach_slack_source()),
        &[
            include_str!("../../shaders/aggregate/types.wgsl"),
            include_str!("../../shaders/common/rng.wgsl"),
            include_str!("../../shaders/common/noise.wgsl"),
            include_str!("../../shaders/common/fields.wgsl"),
            include_str!("../../shaders/common/colliders.wgsl"),
            &crate::grid::gpu::common_source(),
            include_str!("../../shaders/aggregate/integrate.wgsl"),
            include_str!("../../shaders/aggregate/links.wgsl"),
            include_str!("../../shaders/aggregate/collide.wgsl"),
            include_str!("../../shaders/aggregate/order.wgsl"),
            include_str!("../../shaders/aggregate/near_list.wgsl"),
        ],
    )
}
