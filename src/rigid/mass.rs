//! A body's mass properties from its colliders: the mass is each solid collider's volume times
//! its density, summed; the centre of mass is the mass-weighted mean of the colliders' centres;
//! the inertia tensor is each collider's own tensor for its share, moved to that centre with the
//! parallel-axis theorem and summed.
//!
//! The rules, as rapier's:
//! - **Density.** A collider's density is its own ([`super::Collider::density`]), else its
//!   body's ([`super::RigidBody::density`]), else [`DEFAULT_DENSITY`] = 1 kg/m³ (rapier's
//!   default). So a dynamic body with no mass set weighs ρ·V: a unit ball 4/3·π kg, a box of
//!   half extents 0.5 one kilogram.
//! - **Sensors** ([`super::Collider::sensor`]) have no mass: they add nothing to the mass or the
//!   inertia. Planes have no volume and add nothing either.
//! - **An explicit mass** ([`super::RigidBody::mass`]) overrides the sum; the inertia is then the
//!   colliders' tensor scaled to that mass (each collider's share of it is its share of ρ·V).
//! - **An explicit inertia** ([`super::RigidBody::inertia`]) overrides the derived tensor; it is
//!   taken about the centre of mass, in the body's axes.
//! - **An explicit centre of mass** ([`super::RigidBody::centre_of_mass`], in the body's frame)
//!   overrides the derived one; a derived inertia is then taken about it.
//! - **No solid collider** (none, only sensors, or only planes) and no explicit mass: the body
//!   weighs [`FALLBACK_MASS`] = 1 kg with the inertia of a solid ball of radius
//!   [`FALLBACK_RADIUS`] = 1 m (2/5 kg·m²) about its centre of mass, which is its origin
//!   unless set explicitly, so a body whose colliders are all
//!   removed, or that only carries a sensor, still moves sensibly instead of being refused. With
//!   an explicit mass and no solid collider the same ball's inertia is taken for that mass.
//!
//! Every change of the colliders (added, removed, reshaped, made a sensor or a solid) recomputes
//! the body's mass properties by these rules; an explicit mass or inertia is kept as set.
//!
//! # The body's origin and its centre of mass
//! A body's position ([`super::RigidBody::position`], `Body::position`, `set_position`) is its
//! origin, the frame its colliders, joint frames and generator points are given in, as in
//! rapier. The solver works about the centre of mass: a dynamic body's GPU record
//! (`GpuBody::pos`) holds the world position of its centre of mass, and its shapes' offsets
//! (`GpuShape::offset_pos`) are taken from it, so the body turns about its centre of mass and
//! a renderer that places shapes by body and offset draws them where they are. The world keeps
//! each body's centre in its frame and converts at every read and write (`Body::position` is
//! the origin, `Body::centre_of_mass` the centre; linear velocities are the centre's, as in
//! rapier). Static and kinematic bodies have no mass to balance: their centre is their origin.
//!
//! A change of a body's colliders that moves its centre moves the record's position, the
//! shapes' offsets, its joints' anchors and its generators' points by the shift, and gives the
//! new centre the velocity of that point of the body, v + ω × Δ, so the body's motion does
//! not jump.

use super::inertia::{inverse_inertia, parallel_axis, solid_sphere};
use super::model::Shape;
use crate::error::{positive, Result};
use glam::{Mat3, Quat, Vec3};

/// The density of a collider whose own and whose body's density are not set, in kg/m³ (as in
/// rapier).
pub const DEFAULT_DENSITY: f32 = 1.0;

/// The mass (kg) of a dynamic body with no solid collider and no mass set (see the module docs).
pub const FALLBACK_MASS: f32 = 1.0;

/// The radius (m) of the solid ball whose inertia a body with no solid collider takes (see the
/// module docs).
pub const FALLBACK_RADIUS: f32 = 1.0;

/// What the user set of a body's mass properties (kept per body slot by the world, so a change
/// of its colliders recomputes the rest).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MassSpec {
    /// An explicit mass (kg), or `None` for ρ·V.
    pub(crate) mass: Option<f32>,
    /// An explicit body-space inertia tensor, or `None` to derive it.
    pub(crate) inertia: Option<Mat3>,
    /// The body's density (kg/m³) for colliders without their own.
    pub(crate) density: f32,
    /// An explicit centre of mass in the body's frame, or `None` for the colliders' centre.
    pub(crate) centre: Option<Vec3>,
}

impl Default for MassSpec {
    fn default() -> Self {
        Self {
            mass: None,
            inertia: None,
            density: DEFAULT_DENSITY,
            centre: None,
        }
    }
}

/// One collider's part in its body's mass, in the body's frame (kept per shape slot by the
/// world: a hull's figures are its own, so they need not be derived again).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ShapeMass {
    /// Volume (m³); 0 for planes.
    pub(crate) volume: f32,
    /// The solid's centre of mass in the body's frame.
    pub(crate) centre: Vec3,
    /// The solid's inertia about its own centre of mass per kilogram, in the body's axes.
    pub(crate) unit_inertia: Mat3,
    /// The collider's own density, if set.
    pub(crate) density: Option<f32>,
    /// Sensors have no mass.
    pub(crate) sensor: bool,
}

impl ShapeMass {
    /// The part of a collider of `shape` placed at `offset`, `rotation` in its body.
    pub(crate) fn of(
        shape: &Shape,
        offset: Vec3,
        rotation: Quat,
        density: Option<f32>,
        sensor: bool,
    ) -> Self {
        let r = Mat3::from_quat(rotation.normalize());
        Self {
            volume: shape.volume(),
            centre: offset + r * shape.centre_of_mass(),
            unit_inertia: r * shape.inertia(1.0) * r.transpose(),
            density,
            sensor,
        }
    }

    /// Whether the part has mass: a solid (not a sensor) of positive volume.
    fn solid(&self) -> bool {
        !self.sensor && self.volume > 0.0
    }
}

/// Refuses a density that is not positive and finite.
pub(crate) fn check_density(what: &'static str, density: f32) -> Result<()> {
    positive(what, density)
}

/// A dynamic body's mass properties: what the solver needs and where its centre is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MassProps {
    /// Mass (kg).
    pub(crate) mass: f32,
    /// The inverse of the inertia tensor about the centre of mass, in the body's axes.
    pub(crate) inv_inertia: Mat3,
    /// The centre of mass in the body's frame.
    pub(crate) centre: Vec3,
}

/// The mass, the centre of mass and the inverse of the inertia tensor about that centre of a
/// dynamic body of `spec` with the colliders `parts` (see the module docs).
///
/// # Errors
/// [`crate::Error::InvalidInput`] for an explicit mass that is not positive, an explicit centre
/// that is not finite, or a tensor that is not positive definite (an explicit one, or one of a
/// degenerate compound).
pub(crate) fn mass_properties(spec: &MassSpec, parts: &[ShapeMass]) -> Result<MassProps> {
    let solid = || parts.iter().filter(|p| p.solid());
    let own_mass = |p: &ShapeMass| p.density.unwrap_or(spec.density) * p.volume;
    let sum: f32 = solid().map(own_mass).sum();
    let mass = match spec.mass {
        Some(m) => {
            positive("body mass", m)?;
            m
        }
        None if sum > 0.0 => sum,
        None => FALLBACK_MASS,
    };
    positive("body mass", mass)?;
    let centre = match spec.centre {
        Some(c) => {
            crate::error::finite3("body centre of mass", c)?;
            c
        }
        // The density-weighted mean of the solids' centres (the explicit mass scales every
        // share alike, so it does not move the centre). A lone collider at the origin, or
        // colliders placed symmetrically, give exactly zero.
        None if sum > 0.0 => solid().fold(Vec3::ZERO, |acc, p| acc + p.centre * own_mass(p)) / sum,
        None => Vec3::ZERO,
    };
    let inertia = match spec.inertia {
        Some(i) => i,
        None if sum > 0.0 => {
            let scale = mass / sum;
            solid().fold(Mat3::ZERO, |acc, p| {
                let m = own_mass(p) * scale;
                acc + parallel_axis(p.unit_inertia * m, m, p.centre - centre)
            })
        }
        None => solid_sphere(mass, FALLBACK_RADIUS),
    };
    Ok(MassProps {
        mass,
        inv_inertia: inverse_inertia(inertia)?,
        centre,
    })
}
