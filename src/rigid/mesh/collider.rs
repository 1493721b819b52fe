//! The public way to level geometry in a world: [`Collider::trimesh`], [`Collider::heightfield`]
//! and [`Collider::heightfield_with_holes`]. Each cooks and checks its geometry once (a
//! [`TriMesh`] with its BVH and edge flags, a [`HeightField`]) and shares it: the collider holds
//! an `Arc`, and a world stores each distinct one once however many colliders use it.
//!
//! Level geometry is static: it goes on a [`crate::rigid::RigidBody::fixed`] body (a dynamic or
//! kinematic body with one is refused when it is added) and adds no mass. Its triangles are
//! one-sided: a shape whose centre lies behind a triangle's plane makes no contact with it,
//! unless the mesh is two-sided ([`Collider::two_sided_trimesh`], [`TriMesh::with_two_sided`]).

use std::sync::Arc;

use glam::Vec3;

use super::{HeightField, TriMesh};
use crate::error::Result;
use crate::rigid::model::{Collider, Shape};

impl Collider {
    /// A static triangle mesh of `vertices` and `indices` (three vertex indices a triangle,
    /// counter-clockwise seen from the solid side's outside; see [`TriMesh::new`]), friction
    /// 0.5, restitution 0. Degenerate triangles are dropped and counted
    /// ([`TriMesh::dropped`]).
    ///
    /// # Errors
    /// [`crate::Error::InvalidInput`] for no vertices or triangles, a non-finite vertex, an
    /// index past the vertices, or no triangle with an area; [`crate::Error::TooMany`] beyond
    /// [`super::MAX_TRIANGLES`].
    pub fn trimesh(vertices: &[Vec3], indices: &[[u32; 3]]) -> Result<Self> {
        Ok(Self::of_trimesh(Arc::new(TriMesh::new(vertices, indices)?)))
    }

    /// A two-sided static triangle mesh: as [`Collider::trimesh`], but a shape behind a
    /// triangle meets its back instead of passing (a thin wall, a platform, a cave ceiling;
    /// see [`TriMesh::with_two_sided`]).
    ///
    /// # Errors
    /// As [`Collider::trimesh`].
    pub fn two_sided_trimesh(vertices: &[Vec3], indices: &[[u32; 3]]) -> Result<Self> {
        let mesh = TriMesh::new(vertices, indices)?.with_two_sided(true);
        Ok(Self::of_trimesh(Arc::new(mesh)))
    }

    /// A collider of a mesh cooked elsewhere (share one `Arc` between worlds or bodies).
    #[must_use]
    pub fn of_trimesh(mesh: Arc<TriMesh>) -> Self {
        Self::new(Shape::TriMesh { mesh })
    }

    /// A static heightfield of `rows × columns` samples (row-major `heights`, rows along z)
    /// spanning `scale` (the size along x, the height scale, the size along z), centred on the
    /// collider's origin; see [`HeightField::new`]. A heightfield is one-sided: a shape whose
    /// centre is below its surface passes up through it (a surface to meet from both sides is
    /// a mesh, [`Collider::two_sided_trimesh`]).
    ///
    /// # Errors
    /// [`crate::Error::InvalidInput`] for fewer than 2 × 2 samples, a height count other than
    /// `rows·columns`, a height that is not finite, or a scale that is not positive and finite.
    pub fn heightfield(rows: u32, columns: u32, heights: &[f32], scale: Vec3) -> Result<Self> {
        Self::heightfield_with_holes(rows, columns, heights, scale, &[])
    }

    /// [`Collider::heightfield`] with the cells `holes` (`(row, column)` of a cell's first
    /// corner) left open: bodies fall through them.
    ///
    /// # Errors
    /// As [`Collider::heightfield`]; [`crate::Error::InvalidInput`] for a hole outside the
    /// cells.
    pub fn heightfield_with_holes(
        rows: u32,
        columns: u32,
        heights: &[f32],
        scale: Vec3,
        holes: &[(u32, u32)],
    ) -> Result<Self> {
        let field = HeightField::with_holes(rows, columns, heights, scale, holes)?;
        Ok(Self::of_heightfield(Arc::new(field)))
    }

    /// A collider of a heightfield cooked elsewhere.
    #[must_use]
    pub fn of_heightfield(field: Arc<HeightField>) -> Self {
        Self::new(Shape::HeightField { field })
    }
}
