//! Rigid bodies (book Parts III–V): bodies with spheres, boxes, capsules and planes, a GPU broad
//! phase over shape AABBs on a uniform grid, a narrow phase with SAT box–box, and a contact
//! solver of per-contact impulses in coloured batches, with sleeping, continuous collision for
//! fast spheres and ray casts. Every GPU stage has a CPU twin of the same name.
//!
//! A step, in order (each stage a function of the same name on the CPU and WGSL entry points of
//! that name on the GPU, where [`step`] groups them into a few compute passes and lists them as
//! [`step::RigidStage`]):
//!
//! | stage | does |
//! |---|---|
//! | `rigid_forces` | the explosion force generator (only while one is set) |
//! | `integrate_velocity` | first half of the book's integrator: forces → velocities, damping |
//! | `shape_aabbs` | world pose, bounding sphere and AABB of every shape |
//! | grid build | cell keys of shape centres, stable radix sort, cell ranges |
//! | `broad_count` / `broad_scan` / `broad_scan_sums` / `broad_write` | sorted, unique shape pairs |
//! | `narrow` | one manifold of up to four contacts per pair |
//! | `wake_mark` / `wake_apply` | wake sleepers that awake bodies press on |
//! | `warm_start` / `colour_manifolds` / `solve_prepare` | last step's impulses, greedy colouring into batches, contact rows |
//! | `solve_velocity` × colours × iterations | impulses with friction clamped to the cone |
//! | `integrate_position` | second half of the integrator: positions from the solved velocities |
//! | `ccd` | sweeps fast spheres back to their time of impact |
//! | `solve_position` × colours × iterations | non-linear projection with the angular limit |
//! | `sleep` | recency-weighted motion, sleep |
//!
//! The list runs `substeps` times per step (4 by default). The integrator is the book's
//! (`RigidBody::integrate`, catalogue §7) split around the velocity solver, so contacts are
//! found at the step's start positions and a resting body never sinks by g·dt² only to be
//! pushed back out (in the book's order, integrate first, tall stacks creep). Small scenes run
//! the solver's colours and iterations fused in single-workgroup dispatches; large ones
//! colour in rounds of passes and dispatch per colour in use (see
//! [`solver::solver_gpu_passes`]).

pub mod broad;
pub mod ccd;
pub mod cpu;
pub mod explosion;
pub mod gpu;
pub mod inertia;
pub mod material;
pub mod math;
mod model;
pub mod narrow;
pub mod ray;
pub mod solver;
pub mod step;
pub mod types;
mod world;

pub use explosion::Explosion;
pub use material::Combine;
pub use model::{BodyHandle, BodyKind, Collider, RigidBody, RigidConfig, Shape};
pub use world::{RigidWorld, StepReport};
