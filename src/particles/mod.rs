//! Particles (book ch. 3): a pool of point masses with force fields, static colliders, ageing,
//! removal by handle and fireworks, on the GPU or on the CPU twin.
//!
//! The stages of a step, in order ([`step::ParticleStage`]; the GPU encode and the CPU step both
//! walk [`step::ParticleStep::sequence`]; each stage a WGSL entry point of its name, dispatched
//! in the pass [`step::ParticleStage::pass`] names, and a function of the same name in [`cpu`]
//! or [`trails`]):
//!
//! | stage | does |
//! |---|---|
//! | `integrate` | forces, integration, colliders, depth collider, ageing, life curves, death and payload flags (one fused kernel) |
//! | `rigid_cells` | with a rigid world and [`RigidLookup::Cells`]: a grid over its shapes' bounds at their present poses |
//! | `rigid_contacts_cells`, `rigid_contacts` | with a rigid world: contacts with the shapes of each particle's cell, or with every shape |
//! | `scan_reduce` | per-block totals of deaths and payload children |
//! | `scan_blocks` | exclusive scan of the block totals; plans how many spawns fit |
//! | `emit` | records holes; writes firework and sub-emitter children to staging |
//! | `spawn_emitted` | draws the emitters' particles for this step into staging |
//! | `compact`, `trail_compact` | moves survivors (and their trails) into holes so live particles stay packed |
//! | `append`, `trail_append` | appends staged spawns; publishes live count and indirect args |
//! | `trail_push` | each live particle's position into its trail |
//! | `depth_keys` | view-depth keys for the back-to-front order |
//! | `emitter_bounds`, `bounds_publish` | each emitter's box (own pass) |
//! | `view_sort` | the radix sort of the depth keys |
//!
//! The lifecycle stages are skipped when nothing can die or spawn (no lifetimes, emitters,
//! fireworks, kill bounds, spawns or removals): then a step is one dispatch.

mod config;
#[doc(hidden)]
pub mod cpu;
#[doc(hidden)]
pub mod depth;
#[doc(hidden)]
pub mod emitter;
pub mod fireworks;
#[doc(hidden)]
pub mod gpu;
mod ledger;
mod model;
mod report;
#[doc(hidden)]
pub mod rigid;
#[doc(hidden)]
pub mod rigid_cells;
#[doc(hidden)]
pub mod shader;
#[doc(hidden)]
pub mod step;
#[doc(hidden)]
pub mod trails;
pub mod types;
#[doc(hidden)]
pub mod view_sort;
mod world;

pub use crate::colliders::{ColliderShape, ParticleCollider};
pub use crate::fields::ForceField;
pub use depth::{DepthCollider, DepthImage, DepthSource};
pub use emitter::{Burst, EmitShape, EmitVelocity, Emitter, EmitterHandle, SubTrigger};
pub use model::{KillBounds, Particle, ParticleHandle};
pub use rigid_cells::RigidLookup;
pub use step::{ParticleStage, ParticleStep};
pub use view_sort::ViewSort;
pub use world::{ParticleStepReport, ParticleWorld, RenderBuffers, Status, WorldConfig};

use glam::Vec4;
use types::GpuLife;

/// A copy of the live particles' state, in slot order (the same layout on both backends).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Position (xyz), w = 1.
    pub pos: Vec<Vec4>,
    /// Velocity (xyz), damping (w: the fraction of velocity kept per second, 1 = none).
    pub vel: Vec<Vec4>,
    /// Acceleration (xyz), inverse mass (w).
    pub acc: Vec<Vec4>,
    /// Age, lifetime, kind, id.
    pub life: Vec<GpuLife>,
    /// Colour.
    pub colour: Vec<Vec4>,
    /// Radius.
    pub size: Vec<f32>,
}

impl Snapshot {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.pos.len()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }
}
