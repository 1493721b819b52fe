//! Rigid bodies (book Parts III–V): bodies with spheres, boxes, capsules and planes, a GPU broad
//! phase over shape AABBs on a uniform grid, a narrow phase with SAT box–box, and a contact
//! solver of per-contact impulses in coloured batches, with sleeping, continuous collision for
//! fast spheres and ray casts. Every GPU stage has a CPU twin of the same name.
//!
//! A step, in order (each a labelled compute pass on the GPU and a function of the same name on
//! the CPU):
//!
//! | stage | does |
//! |---|---|
//! | `rigid_integrate` | forces → velocities → positions (the book's order), derived data |
//! | `shape_aabbs` | world pose, bounding sphere and AABB of every shape |
//! | grid build | cell keys of shape centres, stable radix sort, cell ranges |
//! | `broad_count` / `broad_scan` / `broad_write` | sorted, de-duplicated shape pairs |
//! | `narrow` | one manifold of up to four contacts per pair |
//! | `colour_*` | deterministic colouring of manifolds (no two in a batch share a dynamic body) |
//! | `solve_velocity` × colours × iterations | impulses with friction, warm started |
//! | `solve_position` × colours × iterations | non-linear projection with the angular limit |
//! | `sleep` | recency-weighted motion, sleep and wake |

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
pub mod types;
mod world;

pub use explosion::Explosion;
pub use material::Combine;
pub use model::{BodyHandle, BodyKind, Collider, RigidBody, RigidConfig, Shape};
pub use world::{RigidWorld, StepReport};
