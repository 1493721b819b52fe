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
//! | `near_list` | with a grid: each particle's collide candidates for the step, the grains within a cell, the slop and a skin of it |
//! | `collide` × k | Jacobi iterations of particle–particle (over the candidates) and particle–collider contacts |
//! | `solve_links` | cables and rods in coloured batches, every colour every iteration, one dispatch |
//!
//! On the GPU, a world with a grid runs its candidate lists and collide iterations
//! (`near_list`, `collide_near`) in a spatial order of the particles, between a sort, a gather
//! and a scatter (`near_keys`, `near_gather`, `near_cells`, `near_scatter`; see
//! `shaders/aggregate/order.wgsl` and `near_list.wgsl`). The order only moves where the values
//! are read from: the CPU twin computes the same bits in particle order.

pub mod cpu;
pub mod gpu;
mod model;
mod near;
mod shader;
pub mod types;
mod world;

pub use model::{
    AggregateConfig, Collisions, ForceGenerator, GeneratorId, Integrator, Link, LinkId, ParticleId,
    ResolveOrder, NEAR_SKIN, NEAR_SPAN, NEAR_UNITS,
};
pub use world::{AggSnapshot, AggregateWorld};
