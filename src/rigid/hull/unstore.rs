//! A stored hull read back into a host [`Hull`]: the inverse of [`super::HullStore::add`], for a
//! world loaded from a save, whose store holds hulls no collider's `Arc` names any more.
//!
//! Every field the store keeps is read back bit for bit (vertices, planes, edges, face loops,
//! the header's centre, radii, bounding box and tolerance); the volume and the unit inertia,
//! which the store does not keep, are computed again from the same vertices and loops by the
//! same f64 sums the cooking used (`volume_moments`), so they come out the same too: the hull
//! read back equals the one stored.

use glam::{DVec3, UVec4};

use super::layout::{Hull, HullWords};
use super::mass::{unit_inertia, volume_moments};

impl Hull {
    /// The hull whose header is word `base` of `words` (a [`super::HullStore`]'s), as it was
    /// stored. `None` when `base` names no hull there (counts out of the stored limits).
    pub fn from_words(words: &[UVec4], base: u32) -> Option<Hull> {
        let r = words.hull(base);
        let limits = r.vertex_count <= super::MAX_HULL_VERTICES
            && r.face_count <= super::MAX_HULL_FACES
            && r.edge_count <= super::MAX_HULL_EDGES
            && r.index_count <= super::MAX_HULL_INDICES
            && r.vertex_count >= 4
            && r.face_count >= 4;
        if !limits || base as usize >= words.len() {
            return None;
        }
        let vertices: Vec<_> = (0..r.vertex_count).map(|i| words.vertex(&r, i)).collect();
        let planes = (0..r.face_count).map(|f| words.plane(&r, f)).collect();
        let faces: Vec<_> = (0..r.face_count).map(|f| words.face(&r, f)).collect();
        let edges = (0..r.edge_count).map(|e| words.edge(&r, e)).collect();
        let mut indices = Vec::with_capacity(r.index_count as usize);
        let mut loops = Vec::with_capacity(faces.len());
        for face in &faces {
            let lp: Vec<u32> = (0..face.count)
                .map(|k| words.loop_vertex(&r, face, k))
                .collect();
            if lp.iter().any(|&v| v >= r.vertex_count) {
                return None;
            }
            indices.extend_from_slice(&lp);
            loops.push(lp);
        }
        let dv: Vec<DVec3> = vertices.iter().map(|v| v.as_dvec3()).collect();
        let (volume, _, second) = volume_moments(&dv, &loops);
        Some(Hull {
            vertices,
            planes,
            faces,
            indices,
            edges,
            centre: r.centre.truncate(),
            radius: r.centre.w,
            inner_radius: r.aabb_min.w,
            aabb_min: r.aabb_min.truncate(),
            aabb_max: r.aabb_max.truncate(),
            tolerance: r.aabb_max.w,
            volume: volume as f32,
            unit_inertia: unit_inertia(volume, &second),
        })
    }
}
