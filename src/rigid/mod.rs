//! Rigid bodies (book Parts III–V): bodies with spheres, boxes, capsules and planes, a GPU broad
//! phase over shape AABBs on a uniform grid, a narrow phase with SAT box–box, and a contact
//! solver of per-contact impulses in coloured batches, with sleeping, continuous collision for
//! fast spheres and ray casts. Every GPU stage has a CPU twin of the same name.
//!
//! A step is Box2D v3's soft step: collide once, then substep only the solver. In order (each
//! stage a function of the same name on the CPU and WGSL entry points of that name on the GPU,
//! where [`step`] groups them into a few compute passes and lists them as
//! [`step::RigidStage`]):
//!
//! | stage | does |
//! |---|---|
//! | `step_start` | clears the wake flags and the step's counters |
//! | `rigid_forces` | the explosion force generator (only while one is set) |
//! | `shape_aabbs` | world pose, bounding sphere and AABB of every shape |
//! | grid build | cell keys of shape centres, stable radix sort, cell ranges |
//! | `broad_count` / `broad_scan` / `broad_scan_sums` / `broad_write` | sorted, unique shape pairs |
//! | `narrow` | one manifold of up to four contacts per pair |
//! | `wake_mark` / `wake_apply` | wake sleepers that awake bodies press on |
//! | `warm_start` / `colour` / `solve_prepare` | last step's impulses, greedy colouring into batches, anchors and effective masses |
//! | *substeps* × | |
//! | &nbsp;&nbsp;`integrate_velocity` | forces (for the whole step) and gravity → velocities, damping |
//! | &nbsp;&nbsp;`solve_warm_apply` × colours | the accumulated impulses |
//! | &nbsp;&nbsp;`solve_contact` × colours × iterations | the soft contact (biased) with friction in the cone |
//! | &nbsp;&nbsp;`integrate_position` | positions from the solved velocities |
//! | &nbsp;&nbsp;`ccd` | sweeps fast spheres back to their time of impact |
//! | &nbsp;&nbsp;`solve_relax` × colours × iterations | the contact without the bias |
//! | `solve_restitution` × colours | bounces from the start velocities above the cut-off |
//! | `solve_position` × colours × iterations | optional: the book's non-linear projection |
//! | `sleep` | clears the force accumulators; recency-weighted motion, sleep |
//!
//! Contacts are found at the step's start poses; inside the substeps each point's overlap
//! follows the bodies from anchors fixed in each body, so the contacts stay valid while the
//! bodies move. Small scenes run the solver's colours and iterations fused in
//! single-workgroup dispatches; large ones colour in rounds of passes and dispatch per colour
//! (see [`step::step_plan`]), or, with [`RigidConfig::with_blocks`], per partition of the grid
//! into blocks, each block's colours swept in one workgroup (`solve_*_block`, see
//! [`solver::block`]): 5 dispatches a sweep instead of one per colour.

pub mod broad;
pub mod ccd;
pub mod colour;
pub mod cpu;
pub mod explosion;
pub mod gpu;
pub mod inertia;
pub mod material;
pub mod math;
mod model;
pub mod narrow;
pub mod ray;
mod report;
pub mod solver;
pub mod step;
pub mod types;
mod world;

pub use explosion::Explosion;
pub use material::Combine;
pub use model::{BodyHandle, BodyKind, Collider, RigidBody, RigidConfig, Shape};
pub use world::{RigidWorld, StepReport};
