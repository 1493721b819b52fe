//! Public particle-world types: what a user spawns, and the
//! world's configuration (fields and colliders are `crate::fields` and `crate::colliders`). Each converts to its GPU mirror in one place.

use super::types::{GpuLife, GpuSpawnRecord};
use crate::error::{finite3, Error, Result};
use glam::{Vec3, Vec4};

/// A particle to spawn (book ch. 3): a point mass with its own constant acceleration.
///
/// ```
/// use wgphys::particles::Particle;
/// use glam::Vec3;
/// let p = Particle::new(Vec3::new(0.0, 1.5, 0.0))
///     .with_velocity(Vec3::new(0.0, 0.0, 35.0))
///     .with_acceleration(Vec3::new(0.0, -1.0, 0.0))
///     .with_damping(0.99)
///     .with_mass(2.0);
/// assert_eq!(p.inverse_mass, 0.5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle {
    /// Position, metres.
    pub position: Vec3,
    /// Velocity, m/s.
    pub velocity: Vec3,
    /// Constant acceleration (usually gravity), m/s².
    pub acceleration: Vec3,
    /// Damping: the fraction of velocity kept per second, in [0, 1] (v *= dᵗ); 1 is no damping,
    /// the default. Not a rate: rapier's linear damping c corresponds to about e^(−c).
    pub damping: f32,
    /// 1/mass in 1/kg; 0 makes the particle immovable.
    pub inverse_mass: f32,
    /// Seconds to live; `None` lives until removed.
    pub lifetime: Option<f32>,
    /// Linear RGBA colour.
    pub colour: Vec4,
    /// Radius in metres: the sprite half-extent and the collision radius.
    pub size: f32,
}

impl Particle {
    /// A 1 kg particle at rest at `position`, no damping, white, 5 cm radius, immortal.
    #[must_use]
    pub fn new(position: Vec3) -> Self {
        Self {
            position,
            velocity: Vec3::ZERO,
            acceleration: Vec3::ZERO,
            damping: 1.0,
            inverse_mass: 1.0,
            lifetime: None,
            colour: Vec4::ONE,
            size: 0.05,
        }
    }
    /// Sets the velocity.
    #[must_use]
    pub fn with_velocity(mut self, v: Vec3) -> Self {
        self.velocity = v;
        self
    }
    /// Sets the constant acceleration.
    #[must_use]
    pub fn with_acceleration(mut self, a: Vec3) -> Self {
        self.acceleration = a;
        self
    }
    /// Sets the damping: the fraction of velocity kept per second, in [0, 1] (1 = none;
    /// rapier's linear damping c corresponds to about e^(−c)).
    #[must_use]
    pub fn with_damping(mut self, d: f32) -> Self {
        self.damping = d;
        self
    }
    /// Sets the mass in kg (stored as its inverse; zero, negative or NaN is rejected at spawn).
    #[must_use]
    pub fn with_mass(mut self, m: f32) -> Self {
        // +inf gives 0 (the book's infinite mass); zero, negative or NaN give NaN, which
        // `validate` refuses.
        self.inverse_mass = if m > 0.0 { 1.0 / m } else { f32::NAN };
        self
    }
    /// Sets the inverse mass; 0 makes the particle immovable.
    #[must_use]
    pub fn with_inverse_mass(mut self, w: f32) -> Self {
        self.inverse_mass = w;
        self
    }
    /// Sets the lifetime in seconds.
    #[must_use]
    pub fn with_lifetime(mut self, seconds: f32) -> Self {
        self.lifetime = Some(seconds);
        self
    }
    /// Sets the colour.
    #[must_use]
    pub fn with_colour(mut self, c: Vec4) -> Self {
        self.colour = c;
        self
    }
    /// Sets the radius.
    #[must_use]
    pub fn with_size(mut self, r: f32) -> Self {
        self.size = r;
        self
    }

    /// Checks every field, naming the first bad one.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for a non-finite vector, a damping outside [0, 1], a negative or
    /// NaN inverse mass (zero, negative or NaN mass), a non-positive lifetime or a negative size.
    pub fn validate(&self) -> Result<()> {
        finite3("particle.position", self.position)?;
        finite3("particle.velocity", self.velocity)?;
        finite3("particle.acceleration", self.acceleration)?;
        if !(0.0..=1.0).contains(&self.damping) {
            return Err(Error::InvalidInput {
                what: "particle.damping",
                value: format!("{}", self.damping),
                fix: "damping is the fraction of velocity kept per second: pass a value in [0, 1]",
            });
        }
        if !(self.inverse_mass >= 0.0 && self.inverse_mass.is_finite()) {
            return Err(Error::InvalidInput {
                what: "particle.inverse_mass",
                value: format!("{}", self.inverse_mass),
                fix:
                    "mass must be positive and finite; use inverse_mass 0 for an immovable particle",
            });
        }
        if let Some(l) = self.lifetime {
            if !(l > 0.0 && l.is_finite()) {
                return Err(Error::InvalidInput {
                    what: "particle.lifetime",
                    value: format!("{l}"),
                    fix: "pass a positive finite number of seconds, or None to live until removed",
                });
            }
        }
        if !(self.size >= 0.0 && self.size.is_finite()) {
            return Err(Error::InvalidInput {
                what: "particle.size",
                value: format!("{}", self.size),
                fix: "pass a finite radius >= 0",
            });
        }
        if !self.colour.is_finite() {
            return Err(Error::InvalidInput {
                what: "particle.colour",
                value: format!("{:?}", self.colour),
                fix: "pass finite colour components",
            });
        }
        Ok(())
    }

    /// The staging record for this particle with the given id.
    pub(crate) fn record(&self, id: u32) -> GpuSpawnRecord {
        GpuSpawnRecord {
            pos: self.position.extend(1.0),
            vel: self.velocity.extend(self.damping),
            acc: self.acceleration.extend(self.inverse_mass),
            colour: self.colour,
            life: GpuLife {
                age: 0.0,
                lifetime: self.lifetime.unwrap_or(-1.0),
                kind: 0,
                id,
            },
            size: self.size,
            _pad: [0; 3],
        }
    }
}

/// A handle to a particle spawned from the host, for removal. It names its world, so a
/// handle from another world is refused rather than removing a stranger.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParticleHandle {
    pub(crate) id: u32,
    pub(crate) world: u32,
}

impl ParticleHandle {
    /// The id stored with the particle (`Life::id`).
    pub fn id(self) -> u32 {
        self.id
    }
}

/// An axis-aligned box outside which particles die.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KillBounds {
    /// Lower corner.
    pub min: Vec3,
    /// Upper corner.
    pub max: Vec3,
}
