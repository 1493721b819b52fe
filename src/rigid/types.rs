//! `#[repr(C)]` mirrors of `shaders/rigid/types.wgsl`, the one Rust home of the rigid domain's
//! GPU structs; `tests/layout.rs` checks every offset and size against naga's view of the WGSL.
//!
//! Conventions shared by every rigid stage, CPU and GPU:
//! - quaternions are `(x, y, z, w)` in a `Vec4`, unit length after `rigid_integrate`;
//! - a manifold's normal points **from body b to body a** (the direction that pushes body a out),
//!   the book's code convention (catalogue §10); penetration is positive when overlapping;
//! - body index [`NONE`] means "the static world" (no body); static bodies have inverse mass 0
//!   and a zero inverse inertia.

use crate::gpu::layout::gpu_struct;
use bytemuck::{Pod, Zeroable};
use glam::Vec4;

/// "No body / no shape".
pub const NONE: u32 = u32::MAX;
/// Threads per workgroup of every rigid kernel (emitted into the WGSL prelude).
pub const RIGID_WG: u32 = 64;
/// Contact points a manifold holds (box–plane and box–box faces give four).
pub const MAX_POINTS: u32 = 4;
/// The most manifold colours (solver batches); more is reported in the counters.
pub const MAX_COLOURS: u32 = 32;

/// Body kinds (`GpuBody::kind`).
pub mod body_kind {
    /// Moved by forces and contacts.
    pub const DYNAMIC: u32 = 0;
    /// Never moves; infinite mass.
    pub const STATIC: u32 = 1;
    /// Moved by its velocity only; infinite mass for contacts.
    pub const KINEMATIC: u32 = 2;
}

/// Shape kinds (`GpuShape::kind`).
pub mod shape_kind {
    /// `dims.x` radius.
    pub const SPHERE: u32 = 1;
    /// `dims.xyz` half extents.
    pub const BOX: u32 = 2;
    /// `dims.x` radius, `dims.y` half the segment length; the segment runs along local y.
    pub const CAPSULE: u32 = 3;
    /// Solid below the plane: `dims.xyz` unit normal, `dims.w` offset (points p with
    /// p·n <= offset are inside), in the owning body's frame. Static bodies only.
    pub const HALF_SPACE: u32 = 4;
    /// Two-sided thin plane, same parameters as [`HALF_SPACE`]. Static bodies only.
    pub const PLANE: u32 = 5;
    /// A convex hull in the world's hull store (`crate::rigid::hull`): `dims.x` the word index
    /// of its header in the `hulls` buffer (an integer, exact in f32 below
    /// `hull::MAX_HULL_WORD`), `dims.y` a bounding radius about the shape's origin (|centre of
    /// mass| + the hull's radius), `dims.z` the hull's inner radius. It takes the narrow phase's
    /// order between capsules and half-spaces ([`order`]).
    pub const HULL: u32 = 6;
    /// A static triangle mesh in the world's hull store (`crate::rigid::mesh::layout`):
    /// `dims.x` the word index of its block (exact in f32, as a hull's header), `dims.y` a
    /// bounding radius about the shape's origin. Static bodies only; it sorts last in the
    /// narrow phase's order ([`order`]), so a pair with it arrives as (convex shape, mesh).
    pub const MESH: u32 = 7;
    /// A static heightfield in the world's hull store, `dims` as [`MESH`]. Sorts after it.
    pub const HEIGHTFIELD: u32 = 8;

    /// The narrow phase's order of kinds (a pair is turned so that the lower order comes first):
    /// sphere < box < capsule < hull < half-space < plane < mesh < heightfield, twice the
    /// kind itself for all but hulls.
    pub fn order(kind: u32) -> u32 {
        if kind == HULL {
            CAPSULE * 2 + 1
        } else {
            kind.wrapping_mul(2)
        }
    }
}

/// Indices into the `counters` buffer (u32 words).
pub mod counter {
    /// Pairs the broad phase wrote (at most the pair capacity).
    pub const PAIRS: usize = 0;
    /// Pairs the broad phase found; above the capacity means overflow (grow and step again).
    pub const PAIRS_WANTED: usize = 1;
    /// Colours the colouring used.
    pub const COLOURS: usize = 2;
    /// Manifolds no independent colour holds, solved by one thread (0 unless a body has more
    /// contacts than `MAX_COLOURS − 1` colours separate, or the colouring ran out of rounds).
    pub const UNCOLOURED: usize = 3;
    /// Manifolds with at least one point.
    pub const MANIFOLDS: usize = 4;
    /// Bodies awake after the sleep stage.
    pub const AWAKE: usize = 5;
    /// Manifolds that needed solving but were left without a colour (0 unless the colouring
    /// kernel was cut short; word 6 belongs to the solver).
    pub const UNSOLVED: usize = 7;
    /// The highest first-fit colour the colouring asked for, plus one.
    pub const COLOURS_WANTED: usize = 8;
    /// Colouring rounds that coloured something.
    pub const ROUNDS: usize = 9;
    /// Manifolds in the solver's tail (colours from `colour_slots − 1` on, one workgroup).
    pub const TAIL: usize = 10;
    /// The indirect-dispatch triple (x, 1, 1) of the stages that run a thread per pair slot
    /// after the broad phase (`narrow`, `wake_mark`, `warm_start`, the colouring's rounds,
    /// `solve_prepare`): one workgroup per `RIGID_WG` pairs the broad phase wrote, at least one
    /// (`broad_scan_sums` writes it; [`super::super::step::pair_groups`]).
    pub const PAIR_GROUPS: usize = 11;
    /// Bins the block solver's velocity stages solved against a workgroup copy of their bodies
    /// this step, summed over the stages' dispatches (`RigidWorld::set_block_staging`).
    pub const STAGED_BINS: usize = 14;
    /// Bins they solved from the bodies buffer while staging was on: more than 256 contacts
    /// or 112 bodies.
    pub const UNSTAGED_BINS: usize = 15;
    /// First of `MAX_COLOURS` indirect-dispatch triples (x, 1, 1), one per colour.
    pub const INDIRECT: usize = 16;
    /// First of `MAX_COLOURS + 1` colour start offsets into the `order` buffer.
    pub const COLOUR_START: usize = INDIRECT + 3 * super::MAX_COLOURS as usize;
    /// First of `MAX_COLOURS + 1` words the colouring's `colour_keys` pass counts into: the
    /// manifolds of each colour, then those with points.
    pub const COLOUR_COUNT: usize = COLOUR_START + super::MAX_COLOURS as usize + 1;
    /// The indirect-dispatch triple (x, 1, 1) of the colouring's listed rounds: one workgroup
    /// per `RIGID_WG` manifolds still waiting after the rounds over every slot
    /// ([`super::super::colour::COLOUR_ROUNDS_OVER_ALL`]), which list them in `order`.
    pub const WAITING_GROUPS: usize = COLOUR_COUNT + super::MAX_COLOURS as usize + 1;
    /// How many manifolds that list holds.
    pub const WAITING: usize = WAITING_GROUPS + 3;
    /// 1 when `broad_write` was cut short this step (a software adapter's loop limit), so
    /// some pairs were not written; the narrow phase copies it from the broad phase's scratch.
    pub const BROAD_TRUNCATED: usize = WAITING + 1;
    /// Manifold slots the step fills: the contact pairs ([`PAIRS`]) and then one per joint
    /// (`joint_slots`); the stages after the narrow phase run over these.
    pub const SLOTS: usize = BROAD_TRUNCATED + 1;
    /// Joints `joint_break` broke this step; the first [`JOINT_EVENTS_MAX`] of their indices
    /// are at [`JOINT_EVENTS`] (in no particular order).
    pub const JOINTS_BROKEN: usize = SLOTS + 1;
    /// First of [`JOINT_EVENTS_MAX`] words: the indices of the joints that broke this step.
    pub const JOINT_EVENTS: usize = JOINTS_BROKEN + 1;
    /// Broken joints a step lists in the counters (a step that breaks more reports the count,
    /// and the world finds the rest in the joint table).
    pub const JOINT_EVENTS_MAX: usize = 64;
    /// Breakable bodies the `fracture` stage found struck past their breaking impulse this
    /// step; the first [`FRACTURE_EVENTS_MAX`] are listed from [`FRACTURE_EVENTS`].
    pub const FRACTURES: usize = JOINT_EVENTS + JOINT_EVENTS_MAX;
    /// First of [`FRACTURE_EVENTS_MAX`] events of [`FRACTURE_EVENT_WORDS`] words: the body, the
    /// struck point (3, f32 bits) and the contact's normal (3) in the body's frame, and the
    /// impulse (f32 bits).
    pub const FRACTURE_EVENTS: usize = FRACTURES + 1;
    /// Fractures a step lists in the counters (the world finds any more in the bodies).
    pub const FRACTURE_EVENTS_MAX: usize = 16;
    /// Words per fracture event.
    pub const FRACTURE_EVENT_WORDS: usize = 8;
    /// Contact events the `contact_events` stage found this step (while contact events are
    /// on: `RigidWorld::set_contact_events`); the first [`CONTACT_EVENTS_MAX`] are listed from
    /// [`CONTACT_EVENTS`], the count says how many more there were.
    pub const CONTACT_EVENT_COUNT: usize =
        FRACTURE_EVENTS + FRACTURE_EVENTS_MAX * FRACTURE_EVENT_WORDS;
    /// First of [`CONTACT_EVENTS_MAX`] events of two words: the lower and the higher shape slot
    /// of the pair, the higher with [`CONTACT_STOPPED`] set when the contact stopped (in no
    /// particular order).
    pub const CONTACT_EVENTS: usize = CONTACT_EVENT_COUNT + 1;
    /// Contact events a step lists in the counters.
    pub const CONTACT_EVENTS_MAX: usize = 256;
    /// The bit of an event's second word that marks a contact that stopped.
    pub const CONTACT_STOPPED: u32 = 1 << 31;
    /// Words in the counters buffer.
    pub const LEN: usize = 1024;
    const _: () = assert!(CONTACT_EVENTS + 2 * CONTACT_EVENTS_MAX <= LEN);
    const _: () = assert!(TAIL < PAIR_GROUPS && PAIR_GROUPS + 3 <= INDIRECT);
    const _: () = assert!(PAIR_GROUPS + 3 <= STAGED_BINS && UNSTAGED_BINS < INDIRECT);
}

gpu_struct! {
    /// A rigid body. 240 bytes.
    #[repr(C)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuBody as "Body" {
        /// Position of the centre of mass (xyz); inverse mass (w), 0 for static and kinematic.
        pub pos: Vec4,
        /// Orientation quaternion (x, y, z, w).
        pub orient: Vec4,
        /// Linear velocity (xyz); linear damping (w): the fraction of velocity kept per second.
        pub lin_vel: Vec4,
        /// Angular velocity in world space (xyz); angular damping (w), as the linear one.
        pub ang_vel: Vec4,
        /// Inverse inertia tensor in body space, columns (xyz; w 0).
        pub inv_inertia: [Vec4; 3],
        /// Inverse inertia tensor in world space R·I⁻¹·Rᵀ, columns; derived by `rigid_integrate`.
        pub inv_inertia_world: [Vec4; 3],
        /// Force accumulator (xyz, world): it acts in every substep of the step, and the `sleep`
        /// stage clears it at the step's end.
        pub force: Vec4,
        /// Torque accumulator (xyz, world), cleared with the force.
        pub torque: Vec4,
        /// Constant acceleration such as gravity (xyz); the breaking impulse (w, N·s; 0: the body
        /// does not break; negated by the `fracture` stage once struck, until the host splits
        /// it; see [`crate::rigid::fracture`]).
        pub acc: Vec4,
        /// Last step's acceleration acc + force/m (xyz), for the resting-contact fix; recency-weighted
        /// motion for sleeping (w).
        pub last_acc: Vec4,
        /// [`body_kind`].
        pub kind: u32,
        /// 1 awake, 0 asleep.
        pub awake: u32,
        /// 1 when the body may fall asleep.
        pub can_sleep: u32,
        /// Bit 0: continuous collision (the `ccd` stage) for this body.
        pub flags: u32,
    }
}

gpu_struct! {
    /// One collision primitive attached to a body. 80 bytes.
    #[repr(C)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuShape as "Shape" {
        /// [`shape_kind`]; 0 marks a removed shape.
        pub kind: u32,
        /// Owning body.
        pub body: u32,
        /// Collision group bits: two shapes collide when `(a.group & b.mask) != 0` and vice versa.
        pub group: u32,
        /// Collision mask bits.
        pub mask: u32,
        /// Offset of the shape in its body's frame, measured from the body's centre of mass
        /// (`GpuBody::pos`; the collider's offset from the body's origin minus the body's
        /// centre, `rigid::mass`) (xyz); w unused.
        pub offset_pos: Vec4,
        /// Rotation of the shape in its body's frame (quaternion).
        pub offset_rot: Vec4,
        /// Dimensions, per [`shape_kind`].
        pub dims: Vec4,
        /// Friction (x), restitution (y), rolling resistance (z: the coefficient, a length per
        /// unit radius, see `Collider::rolling_resistance`); w: 1 for a sensor
        /// (`Collider::sensor`), else 0.
        pub material: Vec4,
    }
}

gpu_struct! {
    /// One manifold: the contacts between one pair of shapes, in the pair's slot. 240 bytes.
    #[repr(C)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuManifold as "Manifold" {
        /// First body ([`NONE`] for the world).
        pub body_a: u32,
        /// Second body ([`NONE`] for the world).
        pub body_b: u32,
        /// Points in use, 0..=[`MAX_POINTS`].
        pub count: u32,
        /// Solver colour (batch), or [`NONE`] before colouring / when it needs no solving.
        pub colour: u32,
        /// First shape.
        pub shape_a: u32,
        /// Second shape.
        pub shape_b: u32,
        /// Which bodies the solver moves this step (dynamic and awake), written by the colouring
        /// (`colour::mark_dynamic`, the GPU's `colour_reset`): [`MANIFOLD_DYNAMIC_A`] for `body_a`,
        /// [`MANIFOLD_DYNAMIC_B`] for `body_b`. The colouring rounds and the velocity sweeps read
        /// it with the body ids instead of each body's kind and awake flag.
        pub dynamic: u32,
        /// 1 + the joint's index when the slot holds a joint rather than a contact manifold
        /// (`joint_slots` writes the joints after the contacts: [`JOINT_SLOT_COUNT`]); 0 for a
        /// contact manifold.
        pub joint: u32,
        /// Unit normal from b to a (pushes a out), xyz; combined friction (w).
        pub normal: Vec4,
        /// Combined restitution (x); the radius of shape a's and shape b's round surface (y, z;
        /// 0 for a flat shape: the solver keeps a round surface's lever arm at the contact point
        /// as the body turns); rolling resistance (w: the most rolling torque per unit normal
        /// impulse, 0 for none).
        pub material: Vec4,
        /// World contact point (xyz) and penetration (w, positive when overlapping) per point.
        pub points: [Vec4; 4],
        /// Feature id per point (which vertex/edge/face pair made it), for warm-start matching.
        pub features: [u32; 4],
        /// Accumulated impulse per point in the contact basis: normal (x), tangents (y, z); the
        /// largest normal impulse this step's substeps applied (w: 0 after the warm start;
        /// restitution acts only on points that pushed).
        pub impulses: [Vec4; 4],
        /// Accumulated rolling-resistance impulse (an angular impulse on a, its opposite on b) in
        /// the contact basis: about tangent 1 (x) and tangent 2 (y); zw unused. Warm-started like
        /// the impulses; 0 while the manifold has no rolling resistance.
        pub rolling: Vec4,
    }
}

/// [`GpuManifold::dynamic`] bit: the solver moves `body_a`.
pub const MANIFOLD_DYNAMIC_A: u32 = 1;
/// [`GpuManifold::dynamic`] bit: the solver moves `body_b`.
pub const MANIFOLD_DYNAMIC_B: u32 = 2;
/// [`GpuManifold::dynamic`] bit, set by the narrow phase: a shape of the pair is a sensor
/// ([`GpuShape::material`] w ≠ 0), so the manifold reports an overlap (contact events, contact
/// reads) and nothing solves it, wakes with it or stops a sweep at it.
pub const MANIFOLD_SENSOR: u32 = 4;

gpu_struct! {
    /// Per-step uniform block of the rigid world. 176 bytes.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuRigidParams as "RigidParams" {
        /// Step (or substep) length, seconds.
        pub dt: f32,
        /// Body slots in use.
        pub body_count: u32,
        /// Shape slots in use.
        pub shape_count: u32,
        /// Pair (and manifold) slots.
        pub pair_capacity: u32,
        /// Velocity iterations per (sub)step.
        pub velocity_iterations: u32,
        /// Position iterations per (sub)step.
        pub position_iterations: u32,
        /// Large shapes (planes, half-spaces, shapes bigger than a grid cell) in the `large` list.
        pub large_count: u32,
        /// Friction combine rule (see `Combine`).
        pub combine_friction: u32,
        /// Restitution combine rule.
        pub combine_restitution: u32,
        /// Closing speeds below this get no restitution (the book's velocity limit, 0.25 m/s).
        pub restitution_cutoff: f32,
        /// 1 / grid cell size.
        pub inv_cell_size: f32,
        /// Grid hash table size − 1.
        pub table_mask: u32,
        /// Contacts are generated within this distance (pessimistic margin, book §13).
        pub contact_margin: f32,
        /// Largest rotation, in radians times the contact arm, that position projection applies
        /// (the book's angular limit).
        pub angular_limit: f32,
        /// Fraction of the penetration removed per position iteration, 0..=1.
        pub position_relax: f32,
        /// Penetration tolerated without correction (metres).
        pub position_slop: f32,
        /// Recency-weighted motion below this puts a body to sleep.
        pub sleep_epsilon: f32,
        /// baseBias^dt: the weight of the old motion in the recency-weighted average.
        pub sleep_bias: f32,
        /// Step counter (for hashing).
        pub step: u32,
        /// 1 when warm starting is on.
        pub warm_start: u32,
        /// Substeps per step (each runs integrate velocities, warm start, the biased contact
        /// iterations, integrate positions, ccd and the relax iterations).
        pub substeps: u32,
        /// Colour slots the solver dispatches per sweep (`RigidConfig::colour_slots`): colours
        /// `0..colour_slots − 1` one dispatch each, then one workgroup for the rest (the tail).
        /// 0 means [`MAX_COLOURS`].
        pub colour_slots: u32,
        /// Relax iterations (biased off) per substep.
        pub relax_iterations: u32,
        /// 1 / dt (the substep's), so the speculative bias is a multiplication on every adapter.
        pub inv_dt: f32,
        /// The soft contact for the substep (see `solver::soft_contact`): bias rate (1/s), mass
        /// scale, impulse scale, maximum push-out speed (m/s). A `Vec4`, so the block keeps the
        /// 16-byte alignment of its WGSL twin.
        pub soft: Vec4,
        /// The soft contact against static, kinematic and sleeping bodies, twice as stiff (Box2D
        /// v3's rule: the ground must not give way under a stack), same layout as `soft`.
        pub soft_static: Vec4,
        /// log2 of the solver blocks' edge in grid cells (`RigidConfig::block_cells`); 0: the
        /// sweeps run colour by colour over the whole scene instead (see `solver::block`).
        pub block_shift: u32,
        /// Bins per partition of the block solver (a power of two; one workgroup each).
        pub block_bins: u32,
        /// Sweeps a block runs over its contacts in one relax dispatch (`RigidConfig::block_sweeps`).
        pub block_sweeps: u32,
        /// Joints in the joint table (`joint_slots` writes one slot each after the contacts).
        pub joint_count: u32,
        /// Manifold slots held back for joints: the broad phase writes at most
        /// `pair_capacity − joint_capacity` pairs (`pair_capacity` counts both).
        pub joint_capacity: u32,
        /// Slots of the joint filter table (a power of two, or 0 without one): the body pairs
        /// whose shapes do not collide because a joint joins them.
        pub joint_filter_size: u32,
        /// 1 when some body may break: the warm start adds each contact's normal impulses up
        /// over the step (`Manifold.rolling.z`), which the `fracture` stage reads.
        pub fracture: u32,
        /// Padding to 16 bytes.
        pub _pad2: u32,
        /// The soft constraint of joints without their own softness, for the substep
        /// (`RigidConfig::joint_hertz`, `joint_damping_ratio`), as `soft`.
        pub joint_soft: Vec4,
    }
}

gpu_struct! {
    /// Per-dispatch uniform of the solver passes (group 1, dynamic offset, one record every
    /// [`PASS_STRIDE`] bytes, [`PASS_RECORDS`] of them): which colour a solver dispatch works on,
    /// and for the shared sweep entry point which stage. 16 bytes.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuPass as "Pass" {
        /// Colour (batch) this dispatch solves.
        pub colour: u32,
        /// 1 where the `solve_contact` entry point runs the `solve_warm_apply` stage (records
        /// [`WARM_PASS_RECORDS`] on), else 0: see `step::sweep`.
        pub warm: u32,
        /// Padding.
        pub _pad1: u32,
        /// Padding.
        pub _pad2: u32,
    }
}

/// Byte stride of the [`GpuPass`] records (the minimum uniform offset alignment WebGPU allows).
pub const PASS_STRIDE: u64 = 256;

/// The first [`GpuPass`] record of the warm-apply sweep: records `0..MAX_COLOURS` hold colour c
/// for the stage the entry point names, records `WARM_PASS_RECORDS + c` colour c with
/// `warm = 1`.
pub const WARM_PASS_RECORDS: u32 = MAX_COLOURS;

/// [`GpuPass`] records in the pass-record buffer.
pub const PASS_RECORDS: u32 = 2 * MAX_COLOURS;

gpu_struct! {
    /// The three-phase explosion of catalogue §14.3 as the `rigid_forces` stage sees it (group 1,
    /// binding 1). 80 bytes. See `Explosion` for the meaning of every field.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuExplosion as "Explosion" {
        /// Detonation point (xyz); seconds since detonation (w).
        pub detonation: Vec4,
        /// Implosion: min radius, max radius, duration, force.
        pub implosion: Vec4,
        /// Shock wave: speed, thickness, peak force, duration.
        pub shock: Vec4,
        /// Convection chimney: peak force, radius, height, duration.
        pub convection: Vec4,
        /// Tail-off width factor k (x); 1 when active (y); lever arm of the off-centre force point
        /// (z); w unused.
        pub misc: Vec4,
    }
}

/// The `count` of a joint's slot among the manifolds: 1, so the colouring and the waking treat
/// it like a manifold with points; its `joint` field says it is a joint.
pub const JOINT_SLOT_COUNT: u32 = 1;

/// Joint kinds (`GpuJoint::kind`).
pub mod joint_kind {
    /// Ball and socket: the anchors coincide; optional cone and twist limits.
    pub const BALL: u32 = 1;
    /// Hinge about the joint frame's x axis: optional angle limits, motor and spring.
    pub const HINGE: u32 = 2;
    /// Fixed (weld): no relative motion.
    pub const FIXED: u32 = 3;
    /// Slider along the joint frame's x axis: optional limits, motor and spring.
    pub const SLIDER: u32 = 4;
    /// Distance between the anchors: between a minimum and a maximum (a rope: 0 to its
    /// length; a rod: its length), optionally a spring to a rest length.
    pub const DISTANCE: u32 = 5;
}

/// `GpuJoint::flags` bits.
pub mod joint_flag {
    /// Disabled by the host: the joint does not act (a removed joint's slot, or
    /// `RigidWorld::set_joint_enabled(h, false)`). A broken joint is marked by the device in
    /// its feedback instead ([`super::GpuJoint::feedback`]).
    pub const DISABLED: u32 = 1;
    /// The two bodies' shapes collide with each other.
    pub const COLLIDE: u32 = 2;
    /// The limits are on (hinge angle, slider position; a distance joint always has them).
    pub const LIMITS: u32 = 4;
    /// The motor is on.
    pub const MOTOR: u32 = 8;
    /// The spring is on.
    pub const SPRING: u32 = 16;
    /// The ball joint's cone limit is on.
    pub const CONE: u32 = 32;
    /// The ball joint's twist limits are on.
    pub const TWIST: u32 = 64;
    /// The joint may break (a force or torque threshold is set).
    pub const BREAKABLE: u32 = 128;
}

gpu_struct! {
    /// A joint between body a (or the world, [`NONE`]) and body b. 208 bytes. Its frames are
    /// fixed in the bodies: anchors and rotations in each body's frame, so they turn with the
    /// bodies (a joint's arm follows the body). The accumulated impulses are warm-started from
    /// step to step. See [`crate::rigid::joint`].
    #[repr(C)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuJoint as "Joint" {
        /// First body ([`NONE`]: the world).
        pub body_a: u32,
        /// Second body.
        pub body_b: u32,
        /// [`joint_kind`].
        pub kind: u32,
        /// [`joint_flag`] bits.
        pub flags: u32,
        /// The anchor in a's frame, measured from a's centre of mass (xyz; the world's for
        /// [`NONE`]); w unused.
        pub anchor_a: Vec4,
        /// The joint frame's rotation in a's frame (a quaternion; its x axis is the hinge or
        /// slider axis and the cone's axis).
        pub rot_a: Vec4,
        /// The anchor in b's frame, measured from b's centre of mass.
        pub anchor_b: Vec4,
        /// The joint frame's rotation in b's frame.
        pub rot_b: Vec4,
        /// The joint's own soft constraint (hertz, damping ratio; hertz 0: the world's
        /// default), then the spring's (hertz, damping ratio).
        pub softness: Vec4,
        /// Limits: a hinge's lower and upper angle (x, y; radians), a slider's lower and upper
        /// position (x, y; metres), a distance joint's least and greatest length (x, y); a ball
        /// joint's cone half-angle (x) and lower and upper twist angle (y, z).
        pub limits: Vec4,
        /// Motor target speed (rad/s or m/s) and largest torque or force (x, y); the spring's
        /// target (angle, position or rest length) (z); w unused.
        pub drive: Vec4,
        /// Break thresholds: force (N) and torque (N·m) (x, y; 0 or below: never); zw unused.
        pub breaking: Vec4,
        /// Accumulated linear impulse of the point or perpendicular rows (xyz); the spring's
        /// (w).
        pub impulse_lin: Vec4,
        /// Accumulated angular impulse of the locked axes (xyz); the motor's (w).
        pub impulse_ang: Vec4,
        /// Accumulated limit impulses: lower, upper (x, y); the ball's twist lower and upper
        /// (z, w).
        pub impulse_limit: Vec4,
        /// What the last substep of the last step asked of the joint: force (x, N) and torque
        /// (y, N·m); the step it broke (z, the bits of a u32; 0 while whole); w unused.
        pub feedback: Vec4,
    }
}

/// Force-generator kinds (`GpuForceGen::kind`; 0 marks a removed generator's slot).
pub mod force_gen_kind {
    /// A spring between a point of body a and a point of body b.
    pub const SPRING: u32 = 1;
    /// A spring from a point of body a to an anchor fixed in the world (movable between steps).
    pub const ANCHORED_SPRING: u32 = 2;
    /// An aerodynamic tensor in body space.
    pub const AERO: u32 = 3;
    /// An aerodynamic surface whose tensor a control in [−1, 1] interpolates.
    pub const AERO_CONTROL: u32 = 4;
    /// An aerodynamic tensor in a surface frame turned relative to the body.
    pub const ANGLED_AERO: u32 = 5;
    /// A buoyancy point: Archimedes' force on a volume about a centre of buoyancy.
    pub const BUOYANCY: u32 = 6;
    /// A force fixed in the body's frame at a body point (propulsion: catalogue §8,
    /// mini-project 11.1).
    pub const THRUST: u32 = 7;
}

gpu_struct! {
    /// One force generator as the `generators` stage reads it. 224 bytes. The host writes the
    /// whole record (the device never writes it), so a control, the wind, an anchor or the
    /// water height changes by an upload of this record only. See
    /// [`crate::rigid::generators`] for each kind's fields.
    #[repr(C)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuForceGen as "ForceGen" {
        /// [`force_gen_kind`].
        pub kind: u32,
        /// The body it acts on (a spring's first body).
        pub body_a: u32,
        /// A two-body spring's second body; [`NONE`] for the other kinds.
        pub body_b: u32,
        /// Unused (0).
        pub flags: u32,
        /// The point on body a in a's frame, measured from a's centre of mass: a spring's end, an aerodynamic surface's
        /// attachment, the centre of buoyancy (xyz); the spring's stiffness k (N/m) or the
        /// buoyancy's maximum depth (w, m).
        pub point_a: Vec4,
        /// The spring's other end: b's point in b's frame (from b's centre of mass) or the anchor in the world (xyz), or
        /// a thrust's force in the body's frame (xyz, N); the spring's rest length (w, m) or the
        /// buoyancy's volume (w, m³).
        pub point_b: Vec4,
        /// Aerodynamic kinds: the wind, the air's velocity in the world (xyz, m/s), and the
        /// control in [−1, 1] (w). Buoyancy: the water height (x, m), the liquid's density (y,
        /// kg/m³) and the gravity it weighs under (z, m/s²).
        pub wind: Vec4,
        /// An angled surface's orientation relative to the body (a unit quaternion); the
        /// identity for the other kinds.
        pub orient: Vec4,
        /// Aerodynamic tensors in the body's (or the surface's) frame, columns: the base tensor
        /// (0..3), the control's minimum (3..6) and maximum (6..9).
        pub tensor: [Vec4; 9],
    }
}
