//! `#[repr(C)]` mirrors of the particle-domain WGSL structs in `shaders/particles/types.wgsl`.
//! This is their one Rust home; `tests/layout.rs` compares every offset and size with naga's
//! view of the WGSL.

use crate::gpu::layout::gpu_struct;
use bytemuck::{Pod, Zeroable};
use glam::Vec4;

// The structs the particle module shares with the aggregate world (and its WGSL with
// `shaders/common/`): defined once in `crate::fields` and `crate::colliders`.
pub use crate::colliders::{collider_kind, GpuCollider, MAX_COLLIDERS};
pub(crate) use crate::fields::fields_turbulent;
pub use crate::fields::{
    fields_at, GpuField, FIELD_EMITTER_SHIFT, FIELD_KIND_MASK, FIELD_KIND_TURBULENCE, MAX_FIELDS,
};

/// Threads per workgroup for every particle kernel (emitted into the WGSL prelude).
pub const WG: u32 = 256;
/// Flags each thread scans in the lifecycle stages.
pub const ITEMS: u32 = 4;
/// Flags per scan block: `WG * ITEMS`.
pub const BLOCK: u32 = WG * ITEMS;
/// Most firework rules (types) a particle world holds (a uniform table of 96-byte entries: 12
/// KiB).
pub const MAX_RULES: u32 = 128;

/// Most payload entries over all firework rules (a uniform table of 8-byte entries: 8 KiB).
pub const MAX_PAYLOADS: u32 = 1024;
/// Most emitters a particle world holds (a uniform table of 192-byte entries: 12 KiB).
pub const MAX_EMITTERS: u32 = 64;
/// The longest trail a particle keeps ([`super::WorldConfig::trail_length`]).
pub const MAX_TRAIL: u32 = 64;
/// Keys a colour gradient or size curve over a particle's life may have.
pub const MAX_CURVE_KEYS: u32 = 8;
/// `GpuLife::kind` holds the firework type in its low 16 bits and, above them, 1 + the emitter
/// slot whose life curves the particle follows (0: none).
pub const KIND_CURVES_SHIFT: u32 = 16;
/// The firework type's bits of `GpuLife::kind`.
pub const KIND_FIREWORK_MASK: u32 = (1 << KIND_CURVES_SHIFT) - 1;
/// Quads of [`GpuParams::rigid_groups`]: a (group, mask) pair for each emitter tag, 0 (no
/// emitter) to [`MAX_EMITTERS`], two to a quad.
pub const GROUP_QUADS: u32 = MAX_EMITTERS / 2 + 1;
/// Bit 31 marks ids made by the GPU (firework children); host handles keep it clear.
pub const GPU_ID_BIT: u32 = 0x8000_0000;

gpu_struct! {
    /// Per-particle bookkeeping. 16 bytes.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct GpuLife as "Life" {
        /// Seconds since spawn.
        pub age: f32,
        /// Seconds to live; negative means immortal.
        pub lifetime: f32,
        /// Firework type (1-based), 0 for a plain particle.
        pub kind: u32,
        /// Host handle id, or GPU serial with bit 31 set.
        pub id: u32,
    }
}

gpu_struct! {
    /// The per-step uniform block. 1664 bytes.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
    pub struct GpuParams as "Params" {
        /// Step length in seconds.
        pub dt: f32,
        /// Step counter (random-number key).
        pub step: u32,
        /// World seed.
        pub seed: u32,
        /// Pool capacity.
        pub capacity: u32,
        /// Host spawns staged this step.
        pub host_spawn: u32,
        /// Sorted ids to remove this step.
        pub removal_count: u32,
        /// Active entries of `fields`.
        pub field_count: u32,
        /// Colliders in the collider buffer.
        pub collider_count: u32,
        /// Firework rules.
        pub rule_count: u32,
        /// 1 when particles leaving `kill_min..kill_max` die.
        pub kill_bounds: u32,
        /// Distance within which a collider already counts as touching.
        pub contact_slop: f32,
        /// 1 when the lifecycle stages run this step (then `integrate` writes the flags they read).
        pub lifecycle: u32,
        /// Particles the emitters want this step (staged after the firework children).
        pub emitted: u32,
        /// Emitters in the emitter table.
        pub emitter_count: u32,
        /// Positions each particle's trail keeps (0: no trails).
        pub trail_length: u32,
        /// Shape slots of the rigid world the step collides with (stage `rigid_contacts`; 0
        /// without one).
        pub rigid_shape_count: u32,
        /// Lower corner of the kill box.
        pub kill_min: Vec4,
        /// Upper corner of the kill box.
        pub kill_max: Vec4,
        /// Force fields.
        pub fields: [GpuField; MAX_FIELDS as usize],
        /// Where each emitter's particles start among this step's emitted ones (an exclusive
        /// prefix of the counts; emitter e at `emit_first[e / 4][e % 4]`).
        pub emit_first: [[u32; 4]; (MAX_EMITTERS / 4) as usize],
        /// 1 / the cell size of the grid stage `rigid_cells` builds over the rigid shapes (0
        /// without one).
        pub rigid_cell_inv: f32,
        /// Buckets of that grid's hash table, a power of two (0: no grid; stage
        /// `rigid_contacts` tests every shape slot).
        pub rigid_buckets: u32,
        /// Padding.
        pub _pad_rigid: [u32; 2],
        /// The collision group and mask of the particles by the emitter tag they carry above
        /// [`KIND_CURVES_SHIFT`] (0: no emitter, else 1 + the emitter's slot): the pair of tag
        /// `e` at `rigid_groups[e / 2][2 (e % 2)]` and the word after it.
        pub rigid_groups: [[u32; 4]; GROUP_QUADS as usize],
    }
}

gpu_struct! {
    /// A firework rule. 96 bytes.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuRule as "Rule" {
        /// Shortest fuse, seconds.
        pub age_min: f32,
        /// Longest fuse, seconds.
        pub age_max: f32,
        /// Velocity kept per second.
        pub damping: f32,
        /// Particle size (radius).
        pub size: f32,
        /// First payload entry.
        pub payload_start: u32,
        /// Payload entries.
        pub payload_len: u32,
        /// Children in all payload entries.
        pub children: u32,
        /// Padding.
        pub _pad: u32,
        /// Lowest launch velocity (relative to the parent).
        pub vel_min: Vec4,
        /// Highest launch velocity (relative to the parent).
        pub vel_max: Vec4,
        /// Colour at spawn; fades to zero with age.
        pub colour: Vec4,
        /// Acceleration (gravity) of particles of this type.
        pub gravity: Vec4,
    }
}

gpu_struct! {
    /// A payload entry. 8 bytes.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
    pub struct GpuPayload as "Payload" {
        /// Child firework type.
        pub ty: u32,
        /// Children of that type.
        pub count: u32,
    }
}

gpu_struct! {
    /// A particle waiting to be appended. 96 bytes.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct GpuSpawnRecord as "SpawnRecord" {
        /// Position (xyz), w = 1.
        pub pos: Vec4,
        /// Velocity (xyz) and damping (w).
        pub vel: Vec4,
        /// Acceleration (xyz) and inverse mass (w).
        pub acc: Vec4,
        /// Colour.
        pub colour: Vec4,
        /// Age, lifetime, kind, id.
        pub life: GpuLife,
        /// Size (radius).
        pub size: f32,
        /// Padding.
        pub _pad: [u32; 3],
    }
}

gpu_struct! {
    /// Pool counters. 112 bytes.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct GpuCounters as "Counters" {
        /// Live particles, packed in [0, live).
        pub live: u32,
        /// Deaths in the last step.
        pub dead: u32,
        /// Live particles that survived the last step.
        pub survivors: u32,
        /// Survivors moved into holes in the last step.
        pub movers: u32,
        /// Spawns wanted in the last step (host + children).
        pub spawn_wanted: u32,
        /// Spawns that fitted.
        pub spawn_accepted: u32,
        /// Firework children wanted in the last step.
        pub children_wanted: u32,
        /// Next GPU serial for firework children.
        pub next_serial: u32,
        /// Spawns refused for lack of room, since creation.
        pub dropped_total: u32,
        /// Largest live count ever wanted when room ran out.
        pub wanted_capacity: u32,
        /// Lifecycle steps run.
        pub step: u32,
        /// Steps that refused spawns.
        pub overflow_steps: u32,
        /// Host spawns refused for lack of room, since creation.
        pub host_dropped_total: u32,
        /// Particles the emitters wanted in the last step.
        pub emitted: u32,
        /// Padding.
        pub _pad: [u32; 2],
        /// The next step's indirect dispatch arguments (groups of WG, then blocks of BLOCK), as
        /// `append` publishes them; the host copies them into the indirect buffer after the pass.
        pub step_args: [u32; 6],
        /// The indirect draw arguments (6 vertices, `live` instances), copied into `draw_args`.
        pub draw_args: [u32; 4],
        /// Padding.
        pub _pad2: [u32; 2],
    }
}

gpu_struct! {
    /// An emitter's record in the uniform emitter table. 192 bytes. See
    /// [`crate::particles::Emitter`].
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuEmitter as "Emitter" {
        /// Shape code ([`crate::particles::emitter::shape_code`]).
        pub shape: u32,
        /// Velocity mode ([`crate::particles::emitter::velocity_code`]).
        pub velocity: u32,
        /// The `kind` its particles get: 0, or (1 + its slot) << [`KIND_CURVES_SHIFT`] when it has
        /// life curves.
        pub kind: u32,
        /// Padding.
        pub _pad: u32,
        /// Position (xyz); w: the cosine of the directional spread.
        pub position: Vec4,
        /// Orientation (x, y, z, w).
        pub rotation: Vec4,
        /// The rotation from +y to the world direction of a directional emitter (the orientation
        /// for a radial one).
        pub dir_q: Vec4,
        /// Shape size: radius (x) for sphere, shell and disc; base radius and height for the cone;
        /// half extents for the box; one end for the segment.
        pub shape_a: Vec4,
        /// The segment's other end.
        pub shape_b: Vec4,
        /// Speed range (x, y) and lifetime range (z, w).
        pub speed_life: Vec4,
        /// Size range (x, y) and inverse-mass range (z, w).
        pub size_mass: Vec4,
        /// One end of the colour range.
        pub colour_min: Vec4,
        /// The other end.
        pub colour_max: Vec4,
        /// Acceleration (xyz) and damping (w).
        pub accel: Vec4,
        /// Sub-emitters: on death (1 + the child emitter's slot, children each), on impact with a
        /// collider (the same); 0 for none.
        pub sub: [u32; 4],
    }
}

gpu_struct! {
    /// The life curves of an emitter's particles (uniform table, one per emitter slot). 240 bytes.
    /// Times are fractions of the particle's lifetime, ascending, in [0, 1]; values are linear
    /// between keys and held before the first key and after the last.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    pub struct GpuCurves as "Curves" {
        /// Colour keys (linear RGBA).
        pub colour: [Vec4; MAX_CURVE_KEYS as usize],
        /// Their times, four per vector.
        pub colour_t: [Vec4; (MAX_CURVE_KEYS / 4) as usize],
        /// Size (radius) keys, four per vector.
        pub size: [Vec4; (MAX_CURVE_KEYS / 4) as usize],
        /// Their times, four per vector.
        pub size_t: [Vec4; (MAX_CURVE_KEYS / 4) as usize],
        /// Colour keys in use (0: colour untouched), size keys in use (0: size untouched), padding.
        pub counts: [u32; 4],
    }
}
