//! How a particle world is built: its configuration and the backend that runs it.

use super::model::KillBounds;
use crate::colliders::ParticleCollider;
use crate::fields::ForceField;
use crate::particles::fireworks::FireworkRules;

/// How a world is built.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WorldConfig {
    /// Particles the pool holds (growable with [`super::ParticleWorld::grow`]).
    pub capacity: u32,
    /// Seed of the counter-based random numbers.
    pub seed: u32,
    /// Force fields acting on every particle (at most [`super::types::MAX_FIELDS`]).
    pub fields: Vec<ForceField>,
    /// Static colliders, applied in this order; at most
    /// [`super::types::MAX_COLLIDERS`] (a uniform table on the GPU; more is
    /// [`crate::Error::TooMany`]).
    pub colliders: Vec<ParticleCollider>,
    /// Firework rule table; [`FireworkRules::book`] by default.
    pub fireworks: FireworkRules,
    /// Particles leaving this box die.
    pub kill_bounds: Option<KillBounds>,
    /// Read the GPU counters back asynchronously every this many steps (0: never). The CPU
    /// backend always knows them.
    pub status_interval: u32,
    /// Grow the pool automatically when a status shows spawns were refused.
    pub auto_grow: bool,
    /// Distance (m) within which a collider counts as touching, so resting particles stay put.
    pub contact_slop: f32,
    /// Positions each particle's trail keeps, for drawing ribbons (0: no trails; at most
    /// [`super::types::MAX_TRAIL`]); see [`super::RenderBuffers::trails`].
    pub trail_length: u32,
    /// How the CPU twin rounds (ignored on the GPU): as written, or as a GPU compiler may
    /// (fused multiply-adds, reciprocal division); see [`crate::rounding`].
    pub cpu_rounding: crate::CpuRounding,
    /// The collision group and mask of the particles no emitter made ([`super::Particle`]s
    /// spawned by the host, firework children): a particle and a rigid shape collide when
    /// `(group & shape.mask) != 0 && (shape.group & mask) != 0`, as two rigid shapes do
    /// ([`super::ParticleWorld::step_with_rigid`]; an emitter's particles take
    /// [`super::Emitter::collision_groups`]). All bits by default: they collide with every
    /// shape whose group and mask are not zero.
    #[cfg_attr(feature = "serde", serde(default = "all_groups"))]
    pub collision_groups: (u32, u32),
    /// How a step with a rigid world finds the shapes near each particle (a grid by default).
    #[cfg_attr(feature = "serde", serde(default))]
    pub rigid_lookup: super::RigidLookup,
}

/// Every group and every mask bit: collide with everything.
pub(crate) fn all_groups() -> (u32, u32) {
    (u32::MAX, u32::MAX)
}

impl Default for WorldConfig {
    fn default() -> Self {
        Self {
            capacity: 65_536,
            seed: 1,
            fields: Vec::new(),
            colliders: Vec::new(),
            fireworks: FireworkRules::book(),
            kill_bounds: None,
            status_interval: 1,
            auto_grow: false,
            contact_slop: 1e-4,
            trail_length: 0,
            cpu_rounding: crate::CpuRounding::Separate,
            collision_groups: all_groups(),
            rigid_lookup: super::RigidLookup::Cells,
        }
    }
}
