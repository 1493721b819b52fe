//! The public way to a hull shape: [`Collider::convex_hull`] (quickhull over points),
//! [`Collider::convex_hull_with`] (with [`HullOptions`], such as simplifying to fit the
//! limits) and [`Collider::convex_mesh`] (a polyhedron made elsewhere, checked for convexity).
//! Each cooks and checks the hull once and shares it: the collider holds an `Arc`, and a world
//! stores each distinct hull once however many colliders use it.

use std::sync::Arc;

use glam::Vec3;

use super::{convex_hull_with, convex_mesh, mass_properties, Hull, HullOptions};
use crate::error::Result;
use crate::rigid::model::{Collider, Shape};

impl Collider {
    /// A convex hull of `points` (quickhull; see [`super::convex_hull`]), in the collider's
    /// frame, friction 0.5, restitution 0.
    ///
    /// # Errors
    /// [`crate::Error::InvalidInput`] for fewer than four points, a NaN or infinite point,
    /// points that are all coincident, collinear or coplanar, or a hull too small or too large
    /// for f32 mass properties; [`crate::Error::TooMany`] for a hull beyond the GPU layout's
    /// limits (64 vertices, 64 faces, 32 vertices per face), naming the limit and the fix
    /// ([`Collider::convex_hull_with`] and [`HullOptions::simplify_to`]).
    pub fn convex_hull(points: &[Vec3]) -> Result<Self> {
        Self::convex_hull_with(points, &HullOptions::default())
    }

    /// [`Collider::convex_hull`] with options, for example
    /// `HullOptions::default().simplify_to(32)` to keep at most 32 of the points (the most
    /// extreme first) instead of refusing a hull beyond the limits.
    ///
    /// # Errors
    /// As [`Collider::convex_hull`].
    pub fn convex_hull_with(points: &[Vec3], options: &HullOptions) -> Result<Self> {
        Self::of_hull(convex_hull_with(points, options)?)
    }

    /// A convex polyhedron given by its `vertices` and face loops `faces` (vertex indices,
    /// counter-clockwise seen from outside), checked to be closed, planar-faced and convex
    /// ([`super::convex_mesh`]); coplanar faces are merged.
    ///
    /// # Errors
    /// [`crate::Error::InvalidInput`] naming the face, edge or vertex that fails (an index out
    /// of range, an open or doubled edge, a non-planar face, a vertex in front of a face: not
    /// convex), a NaN vertex, or a hull too small for f32 mass properties;
    /// [`crate::Error::TooMany`] beyond the limits.
    pub fn convex_mesh<F: AsRef<[u32]>>(vertices: &[Vec3], faces: &[F]) -> Result<Self> {
        Self::of_hull(convex_mesh(vertices, faces)?)
    }

    /// A collider of a hull cooked elsewhere (checked again for f32 mass properties).
    ///
    /// # Errors
    /// [`crate::Error::InvalidInput`] for a hull whose mass properties are not normal f32
    /// numbers.
    pub fn hull(hull: Arc<Hull>) -> Result<Self> {
        mass_properties(&hull, 1.0)?;
        Ok(Self::new(Shape::ConvexHull { hull }))
    }

    fn of_hull(hull: Hull) -> Result<Self> {
        Self::hull(Arc::new(hull))
    }
}
