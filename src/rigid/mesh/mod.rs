//! Level geometry cooked on the host: static triangle meshes ([`TriMesh`]) and heightfields
//! ([`HeightField`]), with the structures a query or a narrow phase walks (a stackless BVH for
//! a mesh, the cell grid for a heightfield) and the internal-edge flags that keep a body from
//! bumping on the seams between triangles (DESIGN.md, "Shapes are data").
//!
//! Building and checking a mesh or heightfield, its bounding-volume hierarchy, edge flags, ray
//! casts and box queries against it, and a ball's and a capsule's contacts with a triangle
//! under the internal-edge rule. A world takes them as static colliders
//! ([`crate::rigid::Collider::trimesh`], [`crate::rigid::Collider::heightfield`]), stored as
//! words of its hull store (`layout.rs`); the narrow phase's pairs with them are
//! `crate::rigid::narrow`'s `mesh.rs`.
//!
//! | file | what |
//! |---|---|
//! | `collider.rs` | [`crate::rigid::Collider::trimesh`], [`crate::rigid::Collider::heightfield`] |
//! | `layout.rs` | the stored words of a mesh or heightfield, and their decoder and walks |
//! | `bvh.rs` | [`Bvh`], binned-SAH build, stackless walks for boxes and rays |
//! | `contact.rs` | [`closest_on_triangle`], [`sphere_triangle`] and [`capsule_triangle`] with the internal-edge rule |
//! | `edges.rs` | [`classify_edges`]: boundary, convex, flat and concave edges |
//! | `heightfield.rs` | [`HeightField`]: a grid of heights, two triangles a cell, holes |
//! | `mod.rs` | [`TriMesh`], the triangle ray test |

mod bvh;
mod collider;
mod contact;
mod edges;
mod heightfield;
pub mod layout;

pub use bvh::{Aabb, Bvh, BvhNode, BINS, LEAF_SIZE};
pub use contact::{
    capsule_triangle, capsule_triangle_slots, closest_on_triangle, closest_segments,
    region_is_active, sphere_triangle, TriangleContact, TriangleRegion,
};
pub use edges::{active_bits, classify_edges, fold_bits, EdgeKind, ACTIVE_ANGLE_DEG};
pub use heightfield::HeightField;

use crate::error::{Error, Result};
use glam::Vec3;

/// Triangles one mesh may hold (indices and BVH ranges are `u32`; leaves name positions).
pub const MAX_TRIANGLES: usize = 1 << 24;

/// A ray's hit on a triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleHit {
    /// Ray parameter of the hit (the distance for a unit direction).
    pub t: f32,
    /// The triangle's index (in the mesh's own numbering, after degenerate triangles were
    /// dropped; a heightfield's numbering for a heightfield).
    pub triangle: u32,
    /// The triangle's unit normal by its winding (counter-clockwise seen from its front),
    /// whichever side the ray came from.
    pub normal: Vec3,
}

/// Where `origin + t·dir` crosses triangle `(a, b, c)`, for `t` in `[0, max_t]`, from either
/// side; `None` for a miss or a ray in the triangle's plane. Möller–Trumbore: the barycentric
/// coordinates from two cross products, the hit accepted on the edges inclusively (so a ray
/// through a shared edge hits one of the two triangles at least).
pub fn ray_triangle(origin: Vec3, dir: Vec3, max_t: f32, a: Vec3, b: Vec3, c: Vec3) -> Option<f32> {
    let e1 = b - a;
    let e2 = c - a;
    let p = dir.cross(e2);
    let det = e1.dot(p);
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let inv = 1.0 / det;
    let s = origin - a;
    let u = s.dot(p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = dir.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(q) * inv;
    (t >= 0.0 && t <= max_t).then_some(t)
}

/// A static triangle mesh: vertices, triangles, the BVH over them and each triangle's
/// active-edge bits ([`classify_edges`]), one-sided ([`active_bits`]) and two-sided
/// ([`fold_bits`]).
///
/// A mesh is one-sided unless made two-sided ([`TriMesh::with_two_sided`]): a shape whose
/// centre lies behind a triangle's plane then meets the triangle's back, as a shape in front
/// meets its front (the triangle turned round), where a one-sided mesh lets it through. A
/// two-sided mesh smooths its flat seams only, its folds active from both sides
/// ([`fold_bits`]). Rays hit both sides of either kind.
///
/// Degenerate triangles (two equal indices, or corners on a line to rounding) are dropped when the mesh is built
/// and counted ([`TriMesh::dropped`]); everything else wrong is an error.
#[derive(Clone, Debug, PartialEq)]
pub struct TriMesh {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    bvh: Bvh,
    /// Bits 0–2: the active edges one-sided ([`active_bits`]); bits 3–5: two-sided
    /// ([`fold_bits`]).
    active: Vec<u8>,
    dropped: u32,
    two_sided: bool,
}

impl TriMesh {
    /// Builds a mesh from vertices and triangles (three vertex indices each, counter-clockwise
    /// seen from the front).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for no vertices or triangles, a non-finite vertex, an index past
    /// the vertices, or no triangle left with an area; [`Error::TooMany`] beyond
    /// [`MAX_TRIANGLES`].
    pub fn new(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Result<TriMesh> {
        if vertices.is_empty() || triangles.is_empty() {
            return Err(Error::InvalidInput {
                what: "triangle mesh",
                value: format!("{} vertices, {} triangles", vertices.len(), triangles.len()),
                fix: "give at least three vertices and one triangle",
            });
        }
        if triangles.len() > MAX_TRIANGLES {
            return Err(Error::TooMany {
                what: "triangles in one mesh",
                count: triangles.len(),
                max: MAX_TRIANGLES as u32,
                fix: "split the level into several meshes",
            });
        }
        if let Some((i, v)) = vertices.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(Error::InvalidInput {
                what: "triangle mesh vertex",
                value: format!("vertex {i} = {v}"),
                fix: "pass finite coordinates",
            });
        }
        if let Some((t, tri)) = triangles
            .iter()
            .enumerate()
            .find(|(_, tri)| tri.iter().any(|&i| i as usize >= vertices.len()))
        {
            return Err(Error::InvalidInput {
                what: "triangle mesh index",
                value: format!("triangle {t} = {tri:?} with {} vertices", vertices.len()),
                fix: "index vertices from 0 to vertices.len() - 1",
            });
        }
        let kept: Vec<[u32; 3]> = triangles
            .iter()
            .copied()
            .filter(|t| !degenerate(vertices, t))
            .collect();
        if kept.is_empty() {
            return Err(Error::InvalidInput {
                what: "triangle mesh",
                value: format!("all {} triangles have no area", triangles.len()),
                fix: "give triangles whose three vertices are not on one line",
            });
        }
        let dropped = (triangles.len() - kept.len()) as u32;
        // Each triangle's box, padded by a few ulps of its largest coordinate: the walks cull
        // with these boxes and then test the triangle itself, and the ray test accepts a
        // point on an edge within its own rounding, which must not fall outside a box.
        let boxes: Vec<Aabb> = kept
            .iter()
            .map(|t| padded(triangle_box(vertices, t)))
            .collect();
        let bvh = Bvh::build(&boxes);
        let kinds = classify_edges(vertices, &kept);
        let active = active_bits(&kinds)
            .iter()
            .zip(fold_bits(&kinds))
            .map(|(one, two)| one | two << 3)
            .collect();
        Ok(TriMesh {
            vertices: vertices.to_vec(),
            triangles: kept,
            bvh,
            active,
            dropped,
            two_sided: false,
        })
    }

    /// The mesh made two-sided (`true`) or one-sided (`false`, as built): see the type's
    /// docs. A thin wall, a floating platform or a cave ceiling a body may meet from either
    /// side wants two sides; a closed level surface, whose inside nothing should reach, one.
    #[must_use]
    pub fn with_two_sided(mut self, on: bool) -> TriMesh {
        self.two_sided = on;
        self
    }

    /// Whether shapes meet the triangles' backs too ([`TriMesh::with_two_sided`]).
    pub fn is_two_sided(&self) -> bool {
        self.two_sided
    }

    /// The vertices.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// The triangles kept (degenerate ones dropped), as vertex indices.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Triangle `t`'s corners; `None` past the last triangle.
    pub fn triangle(&self, t: u32) -> Option<[Vec3; 3]> {
        let tri = self.triangles.get(t as usize)?;
        Some(tri.map(|i| self.vertices[i as usize]))
    }

    /// How many degenerate triangles were dropped when the mesh was built.
    pub fn dropped(&self) -> u32 {
        self.dropped
    }

    /// The hierarchy over the triangles.
    pub fn bvh(&self) -> &Bvh {
        &self.bvh
    }

    /// Triangle `t`'s active-edge bits (bit e: the edge from vertex e to e + 1 may push): for
    /// a one-sided mesh its convex edges and boundaries, for a two-sided one every edge but the
    /// flat ones (see the type's docs); 0 past the last triangle.
    pub fn active_edges(&self, t: u32) -> u8 {
        let a = self.active.get(t as usize).copied().unwrap_or(0);
        if self.two_sided {
            a >> 3
        } else {
            a & 7
        }
    }

    /// The box around the whole mesh.
    pub fn aabb(&self) -> Aabb {
        self.bvh.nodes[0].bounds
    }

    /// The triangles whose own boxes (the box of their three corners) overlap `query`,
    /// ascending.
    pub fn query_aabb(&self, query: &Aabb) -> Vec<u32> {
        let mut out = Vec::new();
        self.bvh.query_aabb(query, |k| {
            let t = self.bvh.order[k as usize];
            if triangle_box(&self.vertices, &self.triangles[t as usize]).overlaps(query) {
                out.push(t);
            }
        });
        out.sort_unstable();
        out
    }

    /// The nearest triangle `origin + t·dir` crosses for `t` in `[0, max_t]`, from either
    /// side; ties go to the lower triangle index.
    pub fn cast_ray(&self, origin: Vec3, dir: Vec3, max_t: f32) -> Option<TriangleHit> {
        let mut best: Option<TriangleHit> = None;
        self.bvh.query_ray(origin, dir, max_t, |k, t_max| {
            let tri = self.bvh.order[k as usize];
            let [a, b, c] = self.triangles[tri as usize].map(|i| self.vertices[i as usize]);
            if let Some(t) = ray_triangle(origin, dir, t_max, a, b, c) {
                let better = best.is_none_or(|h| t < h.t || (t == h.t && tri < h.triangle));
                if better {
                    best = Some(TriangleHit {
                        t,
                        triangle: tri,
                        normal: (b - a).cross(c - a).normalize(),
                    });
                }
            }
            best.map_or(t_max, |h| h.t)
        });
        best
    }
}

/// The box of a triangle's three corners.
pub fn triangle_box(vertices: &[Vec3], t: &[u32; 3]) -> Aabb {
    t.iter()
        .fold(Aabb::EMPTY, |b, &i| b.with(vertices[i as usize]))
}

/// `b` grown on every side by 8 ulps of its largest coordinate (see [`TriMesh::new`]).
fn padded(b: Aabb) -> Aabb {
    let pad = 8.0 * f32::EPSILON * b.min.abs().max(b.max.abs()).max_element();
    Aabb {
        min: b.min - Vec3::splat(pad),
        max: b.max + Vec3::splat(pad),
    }
}

/// Whether a triangle has two equal indices or no area to speak of: the sine of its angle at
/// the first corner below 64 ulps (`|e1 × e2| ≤ 64·ε·|e1|·|e2|`), where the cross product is
/// rounding and its normal would point anywhere (three points on a line, rounded, land here).
fn degenerate(vertices: &[Vec3], t: &[u32; 3]) -> bool {
    if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
        return true;
    }
    let [a, b, c] = t.map(|i| vertices[i as usize]);
    let (e1, e2) = (b - a, c - a);
    let n = e1.cross(e2).length();
    let scale = e1.length() * e2.length();
    !(n.is_normal() && n > 64.0 * f32::EPSILON * scale)
}
