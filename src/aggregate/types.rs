//! `#[repr(C)]` mirrors of `shaders/aggregate/types.wgsl`; checked by the layout test.

use super::model::{NEAR_SKIN, NEAR_UNITS};
use crate::fields::{GpuField, MAX_FIELDS};

/// Threads per workgroup of every aggregate kernel (emitted into the WGSL prelude).
pub const WG: u32 = 256;
use crate::gpu::layout::gpu_struct;
use bytemuck::{Pod, Zeroable};
use glam::Vec4;

/// "No particle": the far end of an anchored generator or link.
pub const NONE: u32 = u32::MAX;

/// The most link colours (batches) the solver keeps; more is an error naming the fix.
pub const MAX_COLOURS: u32 = 64;
/// Marks a listed entry of the collide stage's slot table (`[first, CELL_LISTED + count]`, see
/// `shaders/aggregate/order.wgsl`); emitted into WGSL.
pub const CELL_LISTED: u32 = 0x8000_0000;

gpu_struct! {
    /// Per-step uniform block of the aggregate world. 592 bytes.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
    pub struct GpuAggParams as "AggParams" {
        /// Step length, seconds.
        pub dt: f32,
        /// Particle slots in use.
        pub n: u32,
        /// Links.
        pub link_count: u32,
        /// Link colours.
        pub colour_count: u32,
        /// Constraint iterations per step.
        pub link_iterations: u32,
        /// Collision iterations per step.
        pub collide_iterations: u32,
        /// Static colliders.
        pub collider_count: u32,
        /// Force fields.
        pub field_count: u32,
        /// Particle–particle restitution.
        pub restitution: f32,
        /// Particle–particle Coulomb friction.
        pub friction: f32,
        /// 1 / grid cell size (the grid multiplies by it; see grid_common.wgsl).
        pub inv_cell_size: f32,
        /// Grid hash table size − 1.
        pub table_mask: u32,
        /// Distance within which a contact counts as touching.
        pub contact_slop: f32,
        /// 0: the book's order (position from the old velocity); 1: semi-implicit Euler.
        pub integrator: u32,
        /// 1 when particle–particle collisions run.
        pub collisions: u32,
        /// Stack mass scaling k (1/m); 0 turns it off. See `Collisions::stack_scaling`.
        pub stack_scaling: f32,
        /// The distance within which a grain's neighbours, as the grid was built, are its
        /// candidates for the step (`near_list`): the cell size, the contact slop and the skin
        /// ([`NEAR_SKIN`]), m.
        pub near_reach: f32,
        /// Candidates a slot's list holds on the GPU (`near_list`); a slot with more walks the
        /// grid in the collide stage instead. Set by the GPU backend from its buffers.
        pub list_capacity: u32,
        /// [`NEAR_UNITS`] per cell size, 1/m: the scale at which
        /// `near_list` measures distances in whole units.
        pub near_scale: f32,
        /// The squared candidate distance in those units, rounded down.
        pub near_reach2: u32,
        /// Force fields.
        pub fields: [GpuField; MAX_FIELDS as usize],
    }
}

impl GpuAggParams {
    /// Sets the candidate search of `near_list` for a grid of `cell_size` and a contact slop:
    /// `near_reach` (the cell, the slop and the skin [`NEAR_SKIN`] of a cell), `near_scale`
    /// ([`NEAR_UNITS`] per cell) and `near_reach2` (the reach squared in those units, rounded
    /// down).
    pub fn set_near_reach(&mut self, cell_size: f32, contact_slop: f32) {
        self.near_reach = cell_size * (1.0 + NEAR_SKIN) + contact_slop;
        self.near_scale = NEAR_UNITS / cell_size;
        let r = f64::from(self.near_reach) * f64::from(self.near_scale);
        // About 320 units: the square is far below u32::MAX.
        self.near_reach2 = (r * r).floor().clamp(0.0, f64::from(u32::MAX)) as u32;
    }
}

gpu_struct! {
    /// A force generator. 48 bytes. See `ForceGenerator` for the kinds and parameters.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuGen as "Gen" {
        /// Kind (1 spring … 10 drag).
        pub kind: u32,
        /// First particle.
        pub a: u32,
        /// Second particle or [`NONE`].
        pub b: u32,
        /// Padding.
        pub _pad: u32,
        /// Parameters (meaning per kind).
        pub k: Vec4,
        /// Anchor point or vector parameter.
        pub anchor: Vec4,
    }
}

gpu_struct! {
    /// A link (cable or rod). 48 bytes.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuLink as "Link" {
        /// 1 cable, 2 rod.
        pub kind: u32,
        /// First particle.
        pub a: u32,
        /// Second particle or [`NONE`] (anchored).
        pub b: u32,
        /// Padding.
        pub _pad0: u32,
        /// Cable maximum length or rod length.
        pub length: f32,
        /// Cable restitution (rods: 0).
        pub restitution: f32,
        /// Padding.
        pub _pad1: u32,
        /// Padding.
        pub _pad2: u32,
        /// Anchor point (anchored links).
        pub anchor: Vec4,
    }
}
