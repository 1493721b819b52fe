//! Mass-aggregate physics (book Part II): particles with fixed slots joined by force
//! generators (springs, bungees, buoyancy, stiff springs) and links (cables, rods), colliding
//! with each other on a uniform grid and with static colliders.
//!
//! A step, in order ([`step::AggStage`]; the GPU encode and the CPU step both walk
//! [`step::AggStep::sequence`]; each a timing span of its name on the GPU and a function in
//! [`cpu`]):
//!
//! | stage | does |
//! |---|---|
//! | `integrate` (`agg_integrate`) | gathers each particle's generator forces (CSR, no atomics), adds the fields, integrates |
//! | `grid_build` | cell keys, stable radix sort, cell ranges (see [`crate::grid`]) |
//! | `near_order` | GPU only: the spatial order (`near_keys`, its sort, `near_gather`, `near_cells`) |
//! | `near_list` | with a grid: each particle's collide candidates for the step, the grains within a cell, the slop and a skin of it |
//! | `collide` × k | Jacobi iterations of particle–particle (over the candidates) and particle–collider contacts |
//! | `near_scatter` | GPU only: back to particle order |
//! | `links` (`solve_links`) | cables and rods in coloured batches, every colour every iteration, one dispatch |
//!
//! On the GPU, a world with a grid runs its candidate lists and collide iterations
//! (`near_list`, `collide_near`) in a spatial order of the particles, between a sort, a gather
//! and a scatter (`near_keys`, `near_gather`, `near_cells`, `near_scatter`; see
//! `shaders/aggregate/order.wgsl` and `near_list.wgsl`). The order only moves where the values
//! are read from: the CPU twin computes the same bits in particle order.
//!
//! With the `serde` feature, `AggregateWorld::save` and `AggregateWorld::load` write and
//! read a world's whole state (`wgphys::save`); a loaded world continues bit for bit on the
//! backend that saved it.

#[doc(hidden)]
pub mod cpu;
#[doc(hidden)]
pub mod gpu;
mod model;
mod near;
mod shader;
#[doc(hidden)]
pub mod step;
pub mod types;
mod world;

pub use model::{
    AggregateConfig, Collisions, ForceGenerator, GeneratorId, Integrator, Link, LinkId, ParticleId,
    ResolveOrder, NEAR_SKIN, NEAR_SPAN, NEAR_UNITS,
};
pub use step::{AggStage, AggStep};
pub use world::{AggSnapshot, AggregateStepReport, AggregateWorld};
