//! Mass-aggregate physics (book Part II): particles with fixed slots joined by force
//! generators (springs, bungees, buoyancy, stiff springs) and links (cables, rods), colliding
//! with each other on a uniform grid and with static colliders.
//!
//! A step, in order (each a labelled compute pass on the GPU and a function of the same name in
//! [`cpu`]):
//!
//! | stage | does |
//! |---|---|
//! | `agg_integrate` | gathers each particle's generator forces (CSR, no atomics), adds the fields, integrates |
//! | grid build | cell keys, stable radix sort, cell ranges (see [`crate::grid`]) |
//! | `collide` × k | Jacobi iterations of particle–particle and particle–collider contacts |
//!
//! On the GPU, a world with a grid runs its collide iterations (`collide_near`) in a spatial
//! order of the particles, between a sort, a gather and a scatter (`near_keys`, `near_gather`,
//! `near_cells`, `near_scatter`; see `shaders/aggregate/order.wgsl`). The order only moves
//! where the values are read from: the CPU twin computes the same bits in particle order.
//! | `solve_links` | cables and rods in coloured batches, every colour every iteration, one dispatch |

pub mod cpu;
pub mod gpu;
mod model;
mod shader;
pub mod types;
mod world;

pub use model::{
    AggregateConfig, Collisions, ForceGenerator, GeneratorId, Integrator, Link, LinkId, ParticleId,
    ResolveOrder,
};
pub use world::{AggSnapshot, AggregateWorld};
