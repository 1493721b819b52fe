//! Convex shapes as support functions (catalogue 001-A): the support point of a shape in a
//! direction d is its point farthest along d. GJK, EPA and conservative advancement see shapes
//! only through [`ConvexShape::support`]. A shape is a core (point, segment, box or hull) in a
//! [`Frame`] plus a radius: a sphere is a point with a radius, a capsule a segment with one.
//! GJK works on the cores and subtracts the radii, which keeps it on polytopes (finite
//! convergence) and keeps curved surfaces exact.
//!
//! WGSL twin: `ConvexShape` is a plain struct with a `kind` switch; the hull support is a linear
//! scan over at most [`MAX_HULL_VERTICES`] vertices read from the store (nexus and Bullet3 OpenCL
//! do the same; a hill-climb over vertex neighbours would need adjacency the layout does not
//! store, and 64 dot products are cheap).

// Index loops, as the WGSL twin writes them.
#![allow(clippy::needless_range_loop)]

use glam::{Mat3, Quat, UVec4, Vec3, Vec4, Vec4Swizzles};

use crate::rigid::math::{from_quat, quat_to_mat3};

use super::layout::{HullRef, HullWords, MAX_HULL_VERTICES};

/// The support vertex of hull `h` in its local direction `d`: a linear scan, the first of equal
/// vertices kept.
pub fn hull_support(store: &[UVec4], h: &HullRef, d: Vec3) -> Vec3 {
    let n = h.vertex_count.min(MAX_HULL_VERTICES);
    let mut best = store.vertex(h, 0);
    let mut best_d = best.dot(d);
    for i in 1..n {
        let v = store.vertex(h, i);
        let dv = v.dot(d);
        if dv > best_d {
            best = v;
            best_d = dv;
        }
    }
    best
}

/// A rigid placement: `world = pos + rot · local`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// World position of the local origin.
    pub pos: Vec3,
    /// Rotation, local to world (columns are the local axes in world space).
    pub rot: Mat3,
}

impl Default for Frame {
    fn default() -> Self {
        Frame::IDENTITY
    }
}

impl Frame {
    /// The identity placement.
    pub const IDENTITY: Frame = Frame {
        pos: Vec3::ZERO,
        rot: Mat3::IDENTITY,
    };

    /// A frame from a position and a unit quaternion.
    pub fn new(pos: Vec3, rot: Quat) -> Frame {
        Frame::from_pose(pos, from_quat(rot))
    }

    /// A frame from a position and a quaternion (x, y, z, w) as the engine stores them; the
    /// matrix is the engine's `quat_to_mat3` (WGSL `quat_to_mat3`).
    pub fn from_pose(pos: Vec3, rot: Vec4) -> Frame {
        Frame {
            pos,
            rot: quat_to_mat3(rot),
        }
    }

    /// Local point to world.
    pub fn point(&self, p: Vec3) -> Vec3 {
        self.pos + self.dir(p)
    }

    /// Local direction to world: the columns weighted by d's components, summed left to right
    /// (WGSL `hull_frame_dir`, written out rather than `rot * d` so both sides add alike).
    pub fn dir(&self, d: Vec3) -> Vec3 {
        self.rot.x_axis * d.x + self.rot.y_axis * d.y + self.rot.z_axis * d.z
    }

    /// World direction to local: rotᵀ·d, one dot product per column (WGSL `d * rot`).
    pub fn inv_dir(&self, d: Vec3) -> Vec3 {
        Vec3::new(
            self.rot.x_axis.dot(d),
            self.rot.y_axis.dot(d),
            self.rot.z_axis.dot(d),
        )
    }

    /// World point to local.
    pub fn inv_point(&self, p: Vec3) -> Vec3 {
        self.inv_dir(p - self.pos)
    }

    /// `other` expressed in this frame: `self.point(rel.point(x)) == other.point(x)`.
    pub fn relative(&self, other: &Frame) -> Frame {
        Frame {
            pos: self.inv_point(other.pos),
            rot: Mat3::from_cols(
                self.inv_dir(other.rot.x_axis),
                self.inv_dir(other.rot.y_axis),
                self.inv_dir(other.rot.z_axis),
            ),
        }
    }
}

/// Core kinds of a [`ConvexShape`].
pub mod core {
    /// A point (a sphere with the radius).
    pub const POINT: u32 = 0;
    /// A segment along local y from −dims.y to +dims.y (a capsule with the radius).
    pub const SEGMENT: u32 = 1;
    /// A box of half extents dims.xyz.
    pub const BOX: u32 = 2;
    /// A hull from a [`crate::rigid::hull::HullStore`].
    pub const HULL: u32 = 3;
    /// A triangle: the frame's origin and the origin plus its first and second columns (a
    /// frame that is not a rotation: [`super::ConvexShape::triangle`]).
    pub const TRIANGLE: u32 = 4;
}

/// A convex shape for GJK, EPA and conservative advancement: a core of kind `kind` placed by
/// `frame`, inflated by the radius `dims.w`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvexShape {
    /// One of [`core`]'s kinds.
    pub kind: u32,
    /// The hull, for [`core::HULL`].
    pub hull: HullRef,
    /// Box half extents (xyz) or segment half length (y); radius (w).
    pub dims: Vec4,
    /// Placement of the core.
    pub frame: Frame,
}

impl ConvexShape {
    /// A sphere of radius `r` centred at `frame.pos`.
    #[must_use]
    pub fn sphere(frame: Frame, r: f32) -> Self {
        Self {
            kind: core::POINT,
            hull: HullRef::default(),
            dims: Vec4::new(0.0, 0.0, 0.0, r),
            frame,
        }
    }

    /// A capsule: the segment ±`half_length` along local y, radius `r` (the engine's capsule).
    #[must_use]
    pub fn capsule(frame: Frame, half_length: f32, r: f32) -> Self {
        Self {
            kind: core::SEGMENT,
            hull: HullRef::default(),
            dims: Vec4::new(0.0, half_length, 0.0, r),
            frame,
        }
    }

    /// A box of half extents `half`.
    #[must_use]
    pub fn cuboid(frame: Frame, half: Vec3) -> Self {
        Self {
            kind: core::BOX,
            hull: HullRef::default(),
            dims: half.extend(0.0),
            frame,
        }
    }

    /// The hull `hull` (from a [`crate::rigid::hull::HullStore`]).
    #[must_use]
    pub fn hull(frame: Frame, hull: HullRef) -> Self {
        Self {
            kind: core::HULL,
            hull,
            dims: Vec4::ZERO,
            frame,
        }
    }

    /// A flat triangle (a level geometry's, for conservative advancement): its corners are
    /// `frame.pos` and `frame.pos` plus `frame.rot`'s first and second columns (its third is
    /// unused). The frame is not a rotation, so only the support function and the bounds
    /// read it, which is all GJK's distance does.
    #[must_use]
    pub fn triangle(frame: Frame) -> Self {
        Self {
            kind: core::TRIANGLE,
            hull: HullRef::default(),
            dims: Vec4::ZERO,
            frame,
        }
    }

    /// The triangle `tri` (corners in a frame placed at `pos`, turned by the quaternion `rot`)
    /// as a [`ConvexShape::triangle`] in the world: its first corner and two edges turned into
    /// the world (the normal as the unused third column).
    #[must_use]
    pub fn triangle_at(pos: Vec3, rot: Vec4, tri: [Vec3; 3]) -> Self {
        use crate::rigid::math::quat_rotate;
        let (e1, e2) = (tri[1] - tri[0], tri[2] - tri[0]);
        Self::triangle(Frame {
            pos: pos + quat_rotate(rot, tri[0]),
            rot: Mat3::from_cols(
                quat_rotate(rot, e1),
                quat_rotate(rot, e2),
                quat_rotate(rot, e1.cross(e2)),
            ),
        })
    }

    /// The radius added around the core.
    pub fn radius(&self) -> f32 {
        self.dims.w
    }

    /// The core's support point in local direction `d` (local frame). Ties keep the first
    /// vertex; a zero component picks the positive side.
    pub fn support_local(&self, store: &[UVec4], d: Vec3) -> Vec3 {
        match self.kind {
            core::SEGMENT => {
                let y = if d.y >= 0.0 {
                    self.dims.y
                } else {
                    -self.dims.y
                };
                Vec3::new(0.0, y, 0.0)
            }
            core::BOX => Vec3::new(
                if d.x >= 0.0 {
                    self.dims.x
                } else {
                    -self.dims.x
                },
                if d.y >= 0.0 {
                    self.dims.y
                } else {
                    -self.dims.y
                },
                if d.z >= 0.0 {
                    self.dims.z
                } else {
                    -self.dims.z
                },
            ),
            core::HULL => hull_support(store, &self.hull, d),
            core::TRIANGLE => {
                // Corners (0, 0, 0), (1, 0, 0), (0, 1, 0) in the frame: the first of equals.
                let mut p = Vec3::ZERO;
                let mut best = 0.0f32;
                if d.x > best {
                    p = Vec3::X;
                    best = d.x;
                }
                if d.y > best {
                    p = Vec3::Y;
                }
                p
            }
            _ => Vec3::ZERO,
        }
    }

    /// The core's support point in world direction `d` (world frame).
    pub fn support(&self, store: &[UVec4], d: Vec3) -> Vec3 {
        self.frame
            .point(self.support_local(store, self.frame.inv_dir(d)))
    }

    /// A point inside the core (world): the hull's centre of mass, else the frame origin.
    pub fn centre(&self) -> Vec3 {
        if self.kind == core::HULL {
            self.frame.point(self.hull.centre.xyz())
        } else {
            self.frame.pos
        }
    }

    /// A bound on the distance from the frame origin to any point of the core.
    pub fn core_bound(&self) -> f32 {
        match self.kind {
            core::SEGMENT => self.dims.y.abs(),
            core::BOX => self.dims.xyz().length(),
            core::HULL => self.hull.centre.xyz().length() + self.hull.centre.w,
            core::TRIANGLE => {
                let (e1, e2) = (self.frame.rot.x_axis, self.frame.rot.y_axis);
                e1.dot(e1).sqrt().max(e2.dot(e2).sqrt())
            }
            _ => 0.0,
        }
    }

    /// A bound on the distance from the frame origin to any point of the shape (core bound plus
    /// radius): the lever arm of conservative advancement.
    pub fn bound(&self) -> f32 {
        self.core_bound() + self.dims.w
    }
}
