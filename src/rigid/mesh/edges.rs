//! Internal edges: which triangle edges may push a body (DESIGN.md, "Shapes are data").
//!
//! A body resting on or sliding across a triangle must not be pushed by an edge that the
//! triangle shares with a neighbour continuing the surface (the seam of two coplanar triangles,
//! the bottom of a valley): that edge is *inactive*, and a contact found on it takes the face's
//! normal instead (Jolt's active edges; Box3D's and PhysX's edge flags; catalogue of the
//! anchors, "Internal edges"). An edge is **active** when it is
//! - a boundary (no neighbour), or shared by more than two triangles, or shared with a
//!   neighbour wound the other way (the mesh is not a consistent surface there: be safe);
//! - **convex** with a dihedral angle above [`ACTIVE_ANGLE_DEG`]: the neighbour's far vertex
//!   lies below this triangle's plane and the normals differ by more than that angle.
//!
//! Flat edges (normals within the angle) and concave ones (the neighbour rises above the
//! plane) are inactive. Flags are computed once when a mesh is built, three bits a triangle
//! (bit `e` for the edge from vertex `e` to vertex `(e + 1) % 3`).
//!
//! A two-sided mesh ([`super::TriMesh::with_two_sided`]) keeps every fold active, convex or
//! concave, and only its flat edges inactive ([`fold_bits`]). Its triangles are met from the side
//! the shape is on, decided triangle by triangle, and near a fold a shape can be in front of one
//! face and behind the other (above a box's top, near the edge, it is behind the plane of the
//! side). Flags for "seen from behind" (a convex edge is concave from there) would then describe
//! the wrong side of the fold and replace the edge's true normal with a face normal the shape is
//! nowhere near, a push of about its size. An active fold gives the true closest-point normal
//! from whichever side; a flat edge is flat from both.

use glam::Vec3;
use std::collections::HashMap;

/// Dihedral angle (degrees) below which a convex edge counts as flat: Jolt's default
/// `mActiveEdgeCosThresholdAngle = cos(5°)`.
pub const ACTIVE_ANGLE_DEG: f32 = 5.0;

/// What an edge is, as [`classify_edges`] finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// No neighbour, a non-manifold edge or an inconsistent winding: active.
    Boundary,
    /// Convex beyond [`ACTIVE_ANGLE_DEG`]: active.
    Convex,
    /// Normals within [`ACTIVE_ANGLE_DEG`]: inactive.
    Flat,
    /// The neighbour rises above the plane: inactive.
    Concave,
}

impl EdgeKind {
    /// Whether a contact on such an edge may push along the edge's own normal.
    pub fn is_active(self) -> bool {
        matches!(self, EdgeKind::Boundary | EdgeKind::Convex)
    }

    /// Whether a contact on such an edge of a two-sided mesh may push along the edge's own
    /// normal: every edge but a flat one (see the module docs).
    pub fn is_fold(self) -> bool {
        !matches!(self, EdgeKind::Flat)
    }
}

/// One use of an undirected edge: the triangle, its edge index, and whether the triangle runs
/// along it from the lower vertex index to the higher.
type EdgeUse = (u32, u8, bool);

/// The kind of each edge of each triangle (`[t][e]`, edge e from vertex e to e + 1), for
/// triangles of non-zero area over `vertices`.
pub fn classify_edges(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Vec<[EdgeKind; 3]> {
    // Each undirected edge's uses: (triangle, edge index, whether stored as (a, b) with a < b).
    let mut uses: HashMap<(u32, u32), Vec<EdgeUse>> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        for e in 0..3u8 {
            let (a, b) = (tri[e as usize], tri[(e as usize + 1) % 3]);
            let key = (a.min(b), a.max(b));
            uses.entry(key).or_default().push((t as u32, e, a < b));
        }
    }
    let cos_limit = ACTIVE_ANGLE_DEG.to_radians().cos();
    let normal = |t: u32| {
        let [a, b, c] = triangles[t as usize].map(|i| vertices[i as usize]);
        (b - a).cross(c - a).normalize_or_zero()
    };
    let mut kinds = vec![[EdgeKind::Boundary; 3]; triangles.len()];
    for list in uses.values() {
        // Exactly two uses, wound opposite ways, make a manifold edge; anything else stays a
        // boundary.
        let [(t1, e1, fwd1), (t2, e2, fwd2)] = list[..] else {
            continue;
        };
        if fwd1 == fwd2 {
            continue;
        }
        let (n1, n2) = (normal(t1), normal(t2));
        let far = |t: u32, e: u8| vertices[triangles[t as usize][(e as usize + 2) % 3] as usize];
        let on_edge = vertices[triangles[t1 as usize][e1 as usize] as usize];
        // Which side of triangle 1's plane triangle 2's far vertex lies on (the test is
        // symmetric for a consistent pair up to rounding; both triangles get the same kind).
        let rise = n1.dot(far(t2, e2) - on_edge);
        let kind = if n1.dot(n2) >= cos_limit {
            EdgeKind::Flat
        } else if rise < 0.0 {
            EdgeKind::Convex
        } else {
            EdgeKind::Concave
        };
        kinds[t1 as usize][e1 as usize] = kind;
        kinds[t2 as usize][e2 as usize] = kind;
    }
    kinds
}

/// The three active-edge bits of each triangle (bit e set: edge e is active).
pub fn active_bits(kinds: &[[EdgeKind; 3]]) -> Vec<u8> {
    kinds
        .iter()
        .map(|k| {
            k.iter()
                .enumerate()
                .fold(0u8, |m, (e, kind)| m | (u8::from(kind.is_active()) << e))
        })
        .collect()
}

/// The three active-edge bits of each triangle of a two-sided mesh (bit e set: edge e is not
/// flat; see the module docs).
pub fn fold_bits(kinds: &[[EdgeKind; 3]]) -> Vec<u8> {
    kinds
        .iter()
        .map(|k| {
            k.iter()
                .enumerate()
                .fold(0u8, |m, (e, kind)| m | (u8::from(kind.is_fold()) << e))
        })
        .collect()
}
