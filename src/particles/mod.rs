//! Particles (book ch. 3): a pool of point masses with force fields, static colliders, ageing,
//! removal by handle and fireworks, on the GPU or on the CPU twin.
//!
//! The stages of a step, in order (each a labelled compute pass on the GPU and a function of
//! the same name in [`cpu`]):
//!
//! | stage | does |
//! |---|---|
//! | `integrate` | forces, integration, colliders, ageing, death flags (one fused kernel) |
//! | `scan_reduce` | per-block totals of deaths and payload children |
//! | `scan_blocks` | exclusive scan of the block totals; plans how many spawns fit |
//! | `emit` | records holes; writes firework children to staging |
//! | `compact` | moves survivors into holes so live particles stay packed |
//! | `append` | appends staged spawns; publishes live count and indirect args |
//!
//! The five lifecycle stages are skipped when nothing can die or spawn (no lifetimes,
//! fireworks, kill bounds, spawns or removals): then a step is one dispatch.

mod config;
pub mod cpu;
pub mod depth;
pub mod emitter;
pub mod gpu;
mod ledger;
mod model;
mod report;
pub mod shader;
pub mod trails;
pub mod types;
pub mod view_sort;
mod world;

pub use depth::{DepthCollider, DepthImage, DepthSource};
pub use emitter::{Burst, EmitShape, EmitVelocity, Emitter, EmitterHandle, SubTrigger};
pub use model::{Collider, ColliderShape, ForceField, KillBounds, Particle, ParticleHandle};
pub use view_sort::ViewSort;
pub use world::{Backend, ParticleWorld, RenderBuffers, Status, StepReport, WorldConfig};

use glam::Vec4;
use types::GpuLife;

/// A copy of the live particles' state, in slot order (the same layout on both backends).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Position (xyz), w = 1.
    pub pos: Vec<Vec4>,
    /// Velocity (xyz), damping (w).
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
