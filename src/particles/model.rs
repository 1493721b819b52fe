//! Public particle-world types: what a user spawns, the fields and colliders that act on it, and
//! the world's configuration. Each converts to its GPU mirror in one place.

use super::types::{collider_kind, GpuCollider, GpuField, GpuLife, GpuSpawnRecord};
use crate::error::{finite, finite3, non_negative, positive, Error, Result};
use glam::{Quat, Vec3, Vec4};

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
    /// Fraction of velocity kept per second, in [0, 1]; 1 is no damping (v *= dᵗ).
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
    /// Sets the fraction of velocity kept per second.
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

/// A force field acting on every particle.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ForceField {
    /// Uniform acceleration, independent of mass (m/s²).
    Gravity(Vec3),
    /// Drag force −(k1|v| + k2|v|²) v̂ (book §5.2.2).
    Drag {
        /// Linear coefficient, N·s/m.
        k1: f32,
        /// Quadratic coefficient, N·s²/m².
        k2: f32,
    },
    /// Drag against moving air: the drag law on the velocity relative to `velocity`.
    Wind {
        /// Air velocity, m/s.
        velocity: Vec3,
        /// Linear coefficient.
        k1: f32,
        /// Quadratic coefficient.
        k2: f32,
    },
    /// Softened inverse-square pull towards `centre`: a = s·d/(|d|² + r²)^{3/2}.
    Attractor {
        /// Centre, metres.
        centre: Vec3,
        /// Strength s in m³/s² (negative repels).
        strength: f32,
        /// Softening radius r, metres (> 0 keeps the pull finite at the centre).
        softening: f32,
    },
    /// Curl-noise turbulence: a = strength · curl N((p − scroll·t) / scale), N three value-noise
    /// potentials on a lattice of spacing `scale`. Divergence free (it stirs without bunching
    /// particles), deterministic (a function of position and time), mass independent.
    Turbulence {
        /// Size of the eddies (the lattice spacing), metres (> 0).
        scale: f32,
        /// Acceleration scale, m/s² (the curl's typical size is a few units).
        strength: f32,
        /// Velocity the pattern drifts with, m/s.
        scroll: Vec3,
    },
    /// A vortex around the line through `centre` along `axis`: tangential acceleration
    /// a = s·(n × d)/sqrt(|n × d|² + r²), d = p − centre: s far from the axis, 0 on it.
    Vortex {
        /// A point on the axis, metres.
        centre: Vec3,
        /// Axis direction (normalised for you; turns counter-clockwise about it for s > 0).
        axis: Vec3,
        /// Strength s, m/s².
        strength: f32,
        /// Softening radius r, metres (> 0 keeps it finite near the axis).
        softening: f32,
    },
}

/// A softening radius: positive and finite, so the field stays finite at its centre or axis.
fn softening_radius(what: &'static str, r: f32) -> Result<()> {
    if !(r > 0.0 && r.is_finite()) {
        return Err(Error::InvalidInput {
            what,
            value: format!("{r}"),
            fix: "pass a positive softening radius so the field stays finite at its centre",
        });
    }
    Ok(())
}

impl ForceField {
    /// The field given in a frame at `position` turned by `rotation`, in world coordinates:
    /// points (centres) are moved and turned, directions (gravity, wind, the vortex axis, the
    /// turbulence scroll) turned; drag and the turbulence lattice do not depend on the frame.
    pub fn in_frame(self, position: Vec3, rotation: glam::Quat) -> ForceField {
        let point = |p: Vec3| position + rotation * p;
        match self {
            Self::Gravity(g) => Self::Gravity(rotation * g),
            Self::Drag { .. } => self,
            Self::Wind { velocity, k1, k2 } => Self::Wind {
                velocity: rotation * velocity,
                k1,
                k2,
            },
            Self::Attractor {
                centre,
                strength,
                softening,
            } => Self::Attractor {
                centre: point(centre),
                strength,
                softening,
            },
            Self::Turbulence {
                scale,
                strength,
                scroll,
            } => Self::Turbulence {
                scale,
                strength,
                scroll: rotation * scroll,
            },
            Self::Vortex {
                centre,
                axis,
                strength,
                softening,
            } => Self::Vortex {
                centre: point(centre),
                axis: rotation * axis,
                strength,
                softening,
            },
        }
    }

    pub(crate) fn to_gpu(self) -> Result<GpuField> {
        Ok(match self {
            Self::Gravity(g) => {
                finite3("field.gravity", g)?;
                GpuField {
                    kind: 1,
                    v: g.extend(0.0),
                    ..Default::default()
                }
            }
            Self::Drag { k1, k2 } => {
                non_negative("field.drag.k1", k1)?;
                non_negative("field.drag.k2", k2)?;
                GpuField {
                    kind: 2,
                    k1,
                    k2,
                    ..Default::default()
                }
            }
            Self::Wind { velocity, k1, k2 } => {
                finite3("field.wind.velocity", velocity)?;
                non_negative("field.wind.k1", k1)?;
                non_negative("field.wind.k2", k2)?;
                GpuField {
                    kind: 3,
                    k1,
                    k2,
                    v: velocity.extend(0.0),
                    ..Default::default()
                }
            }
            Self::Attractor {
                centre,
                strength,
                softening,
            } => {
                finite3("field.attractor.centre", centre)?;
                finite("field.attractor.strength", strength)?;
                softening_radius("field.attractor.softening", softening)?;
                GpuField {
                    kind: 4,
                    radius: softening,
                    v: centre.extend(strength),
                    ..Default::default()
                }
            }
            Self::Turbulence {
                scale,
                strength,
                scroll,
            } => {
                positive("field.turbulence.scale", scale)?;
                finite("field.turbulence.strength", strength)?;
                finite3("field.turbulence.scroll", scroll)?;
                GpuField {
                    kind: 5,
                    k1: 1.0 / scale,
                    k2: strength,
                    v: scroll.extend(0.0),
                    ..Default::default()
                }
            }
            Self::Vortex {
                centre,
                axis,
                strength,
                softening,
            } => {
                finite3("field.vortex.centre", centre)?;
                finite3("field.vortex.axis", axis)?;
                finite("field.vortex.strength", strength)?;
                let n = axis.normalize_or_zero();
                if n == Vec3::ZERO {
                    return Err(Error::InvalidInput {
                        what: "field.vortex.axis",
                        value: format!("{axis}"),
                        fix: "pass a non-zero axis direction",
                    });
                }
                softening_radius("field.vortex.softening", softening)?;
                GpuField {
                    kind: 6,
                    radius: softening,
                    v: centre.extend(strength),
                    w: n.extend(0.0),
                    ..Default::default()
                }
            }
        })
    }
}

/// The shape of a static collider.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ColliderShape {
    /// Solid below the plane n·p = offset (n is normalised for you).
    HalfSpace {
        /// Outward normal.
        normal: Vec3,
        /// Plane offset along the normal.
        offset: f32,
    },
    /// Solid sphere.
    Sphere {
        /// Centre.
        centre: Vec3,
        /// Radius (> 0).
        radius: f32,
    },
    /// Solid oriented box.
    Box {
        /// Centre.
        centre: Vec3,
        /// Half extents (each > 0).
        half_extents: Vec3,
        /// Orientation.
        rotation: Quat,
    },
}

/// A static collider with its material.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Collider {
    /// Its shape.
    pub shape: ColliderShape,
    /// Coefficient of restitution in [0, 1].
    pub restitution: f32,
    /// Coulomb friction coefficient (>= 0).
    pub friction: f32,
}

impl Collider {
    /// The ground plane y = 0, solid below.
    pub fn ground(restitution: f32, friction: f32) -> Self {
        Self {
            shape: ColliderShape::HalfSpace {
                normal: Vec3::Y,
                offset: 0.0,
            },
            restitution,
            friction,
        }
    }

    pub(crate) fn to_gpu(self) -> Result<GpuCollider> {
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(Error::InvalidInput {
                what: "collider.restitution",
                value: format!("{}", self.restitution),
                fix: "pass a coefficient of restitution in [0, 1]",
            });
        }
        non_negative("collider.friction", self.friction)?;
        let base = GpuCollider {
            restitution: self.restitution,
            friction: self.friction,
            ..Default::default()
        };
        Ok(match self.shape {
            ColliderShape::HalfSpace { normal, offset } => {
                finite3("collider.normal", normal)?;
                finite("collider.offset", offset)?;
                let n = normal.try_normalize().ok_or(Error::InvalidInput {
                    what: "collider.normal",
                    value: format!("{normal:?}"),
                    fix: "pass a non-zero normal",
                })?;
                GpuCollider {
                    kind: collider_kind::HALF_SPACE,
                    a: n.extend(offset),
                    ..base
                }
            }
            ColliderShape::Sphere { centre, radius } => {
                finite3("collider.centre", centre)?;
                positive("collider.radius", radius)?;
                GpuCollider {
                    kind: collider_kind::SPHERE,
                    a: centre.extend(radius),
                    ..base
                }
            }
            ColliderShape::Box {
                centre,
                half_extents,
                rotation,
            } => {
                finite3("collider.centre", centre)?;
                finite3("collider.half_extents", half_extents)?;
                if half_extents.min_element() <= 0.0 {
                    return Err(Error::InvalidInput {
                        what: "collider.half_extents",
                        value: format!("{half_extents:?}"),
                        fix: "every half extent must be > 0",
                    });
                }
                let q = Vec4::from(rotation);
                if !q.is_finite() || q.length_squared() < 1e-12 {
                    return Err(Error::InvalidInput {
                        what: "collider.rotation",
                        value: format!("{rotation:?}"),
                        fix: "pass a finite, non-zero quaternion",
                    });
                }
                GpuCollider {
                    kind: collider_kind::BOX,
                    a: centre.extend(0.0),
                    b: half_extents.extend(0.0),
                    q: q.normalize(),
                    ..base
                }
            }
        })
    }
}

/// An axis-aligned box outside which particles die.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KillBounds {
    /// Lower corner.
    pub min: Vec3,
    /// Upper corner.
    pub max: Vec3,
}
