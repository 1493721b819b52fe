//! Rigid bodies (book Parts III–V): bodies with spheres, boxes, capsules, convex hulls and
//! planes, a GPU broad phase over shape AABBs on a uniform grid, a narrow phase with SAT
//! box–box and hull–hull and GJK/EPA for round shapes against hulls ([`hull`]), and a contact
//! solver of per-contact impulses in coloured batches, with sleeping, continuous collision for
//! fast bodies and ray casts. Every GPU stage has a CPU twin of the same name. Static triangle
//! meshes and heightfields ([`mesh`]) are static colliders on both backends (their narrow phase
//! is `narrow/mesh.rs` and `shaders/rigid/narrow/mesh.wgsl`, run by `narrow_mesh` on the GPU).
//!
//! A step is Box2D v3's soft step: collide once, then substep only the solver. In order (the
//! order of [`step::RigidStage`], which [`step::sequence`] expands and both backends walk), each
//! stage a function of the same name on the CPU and WGSL entry points of that name on the GPU,
//! with its files (host and CPU twin in `src/rigid/`, WGSL in `shaders/rigid/`, tests in
//! `tests/`):
//!
//! | stage | does | files |
//! |---|---|---|
//! | `step_start` | clears the wake flags and the step's counters | `sleep.rs`, `sleep.wgsl`, `rigid_sleep.rs` |
//! | `rigid_forces` | the explosion force generator (only while one is set) | `forces.rs`, `forces.wgsl`, `rigid_forces.rs` |
//! | `shape_aabbs` | world pose, bounding sphere and AABB of every shape | `broad.rs`, `broad.wgsl`, `rigid_broad*.rs` |
//! | `grid_build` | cell keys of shape centres, stable radix sort, cell ranges | `crate::grid` |
//! | `broad` (`broad_count` / `broad_scan` / `broad_scan_sums` / `broad_write`) | sorted, unique shape pairs | `broad.rs`, `broad.wgsl`, `rigid_broad*.rs` |
//! | `narrow` | one manifold of up to four contacts per pair (second and third kernels, `narrow_hull` and `narrow_mesh`, for pairs with a hull or level geometry) | `narrow/`, `narrow/`, `hull/`, `hull/`, `rigid_narrow*.rs`, `rigid_hull*.rs` |
//! | `joint_slots` (`joint_slots_filter` / `joint_slots`) | a manifold slot per joint after the contacts; contacts between bodies a joint keeps apart emptied | `joint/`, `joint.wgsl`, `rigid_joints*.rs` |
//! | `wake_mark` / `wake_apply` | wake sleepers that awake bodies press on | `sleep.rs`, `sleep.wgsl`, `rigid_sleep.rs` |
//! | `warm_start` | last step's impulses, matched by feature | `solver/`, `solver/solver.wgsl`, `rigid_solver*.rs` |
//! | `contact_events` (`contact_events` / `contact_events_stopped`) | the shape pairs whose contact started or stopped, sensors' overlaps among them (only while contact events are on) | `events.rs`, `world/events.rs`, `events.wgsl`, `rigid_events.rs` |
//! | `colour` | greedy colouring into batches (or bins, with blocks) | `colour.rs`, `colour.wgsl`, `rigid_colour.rs` |
//! | `solve_prepare` | anchors and effective masses | `solver/`, `solver/solver.wgsl`, `rigid_solver*.rs` |
//! | *substeps* × | | |
//! | &nbsp;&nbsp;`generators` | the force generators (springs, aerodynamic surfaces, buoyancy; only while one is attached), gathered per body → velocities | `generators/`, `world/generators.rs`, `generators.wgsl`, `rigid_generators*.rs` |
//! | &nbsp;&nbsp;`integrate_velocity` | forces (for the whole step) and gravity → velocities, the gyroscopic term, damping | `integrate.rs`, `integrate.wgsl`, `rigid_integrate.rs` |
//! | &nbsp;&nbsp;`solve_warm_apply` × colours | the accumulated impulses (contacts and joints) | `solver/velocity/`, `solver/solver.wgsl`, `rigid_solver*.rs` |
//! | &nbsp;&nbsp;`solve_contact` × colours × iterations | the soft contact (biased) with friction in the cone, rolling resistance; the joints' soft rows | `solver/velocity/`, `solver/solver.wgsl`, `rigid_solver*.rs` |
//! | &nbsp;&nbsp;`integrate_position` | positions from the solved velocities | `integrate.rs`, `integrate.wgsl`, `rigid_integrate.rs` |
//! | &nbsp;&nbsp;`ccd` | sweeps fast bodies back to their time of impact | `ccd.rs`, `ccd.wgsl`, `hull/ca.*`, `rigid_ccd.rs`, `rigid_hull_*.rs` |
//! | &nbsp;&nbsp;`solve_relax` × colours × iterations | the contacts and joints without the bias | `solver/velocity/`, `solver/solver.wgsl`, `rigid_solver*.rs` |
//! | `solve_restitution` × colours | bounces from the start velocities above the cut-off | `solver/velocity/`, `solver/solver.wgsl`, `rigid_solver*.rs` |
//! | `solve_position` × colours × iterations | optional: the book's non-linear projection | `solver/`, `solver/solver.wgsl`, `rigid_solver*.rs` |
//! | `fracture` (`fracture_mark` / `fracture_record`) | breakable boxes struck past their breaking impulse, listed for the world to split into 8 | `fracture.rs`, `world/fracture.rs`, `fracture.wgsl`, `rigid_fracture.rs` |
//! | `joint_break` | each joint's force and torque; breakable joints past a threshold broken | `joint/`, `joint.wgsl`, `rigid_joints*.rs` |
//! | `sleep` | clears the force accumulators; recency-weighted motion, sleep | `sleep.rs`, `sleep.wgsl`, `rigid_sleep.rs` |
//!
//! The step itself is `step/` (the stage list, the GPU plan, the CPU driver; `rigid_step.rs`),
//! the GPU host `gpu/`, the world `world/` (`rigid_world.rs`, `rigid_bad_input.rs`,
//! `rigid_reports.rs`; its typed reads of the bodies, [`body`] and `world/reads.rs`, in
//! `rigid_reads.rs`); the block solver's sweeps are `solver/block.rs` and `solver/block.wgsl`.
//!
//! Contacts are found at the step's start poses; inside the substeps each point's overlap
//! follows the bodies from anchors fixed in each body, so the contacts stay valid while the
//! bodies move, and a round surface's lever arm stays at its contact (see [`solver`]). Small
//! scenes run the solver's colours and iterations fused in single-workgroup dispatches; large
//! ones colour in rounds of passes and dispatch per colour (see [`step::step_plan`]), or, with
//! [`RigidConfig::with_blocks`], per partition of the grid into blocks, each block's colours
//! swept in one workgroup (`solve_*_block`, see [`solver::block`]): 5 dispatches a sweep
//! instead of one per colour.

#[doc(hidden)]
pub mod body;
#[doc(hidden)]
pub mod broad;
#[doc(hidden)]
pub mod ccd;
#[doc(hidden)]
pub mod colour;
mod config;
#[doc(hidden)]
pub mod events;
#[doc(hidden)]
pub mod forces;
#[doc(hidden)]
pub mod fracture;
#[doc(hidden)]
pub mod generators;
#[doc(hidden)]
pub mod gpu;
#[doc(hidden)]
pub mod hull;
#[doc(hidden)]
pub mod inertia;
#[doc(hidden)]
pub mod integrate;
#[doc(hidden)]
pub mod joint;
pub mod mass;
#[doc(hidden)]
pub mod material;
#[doc(hidden)]
pub mod math;
pub mod mesh;
mod model;
#[doc(hidden)]
pub mod narrow;
#[doc(hidden)]
pub mod ray;
mod report;
#[doc(hidden)]
pub mod sleep;
#[doc(hidden)]
pub mod solver;
#[doc(hidden)]
pub mod step;
pub mod types;
pub mod wgsl;
mod world;

pub use body::{Body, BodySnapshot};
pub use events::{Contact, ContactEvent, ContactPoint};
pub use forces::Explosion;
pub use fracture::{FractureEvent, Piece};
pub use generators::{ForceGen, ForceGenHandle};
pub use hull::{Hull, HullOptions, MassProperties};
pub use joint::{Joint, JointFeedback, JointHandle, JointKind, JointState};
pub use material::Combine;
pub use model::{BodyHandle, BodyKind, Collider, ColliderHandle, RigidBody, RigidConfig, Shape};
pub use ray::{Ray, RayHit};
pub(crate) use world::ParticleTables;
pub use world::{
    Fracture, QueryFilter, QueryHit, RigidRenderBuffers, RigidStepReport, RigidWorld, ShapeCastHit,
    CAST_MAX_ITERATIONS, CAST_REL_TOLERANCE,
};
