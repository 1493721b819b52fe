//! The level scenes (`--scenes convex_vs_mesh,terrain`): built on the measured backend by
//! `wgphys::scenes::level`, and their static triangle meshes and heightfields mirrored into
//! rapier from the world's own stored words (`wgphys::rigid::mesh::layout`), so rapier collides
//! with the very triangles wgphys does.
//!
//! Heightfield conventions, checked against parry3d 0.31's `shape/heightfield3.rs` (the
//! version rapier3d 0.36 builds on): `HeightField::new(heights_zx: Array2, scale)` takes row
//! `i` along z and column `j` along x, and `scale` is the whole field's size, the sample
//! `(i, j)` at `x = (j/(ncols − 1) − ½)·scale.x`, `z = (i/(nrows − 1) − ½)·scale.z`,
//! `y = height·scale.y`: ours exactly (rows along z, columns along x, centred). parry's
//! `Array2` is column-major (`flat_index = i + j·nrows`), so it is filled by index, not from
//! our row-major slice. A parry cell is cut along (i + 1, j)–(i, j + 1) unless its status has
//! `ZIGZAG_SUBDIVISION`, which cuts it along (i, j)–(i + 1, j + 1) into
//! `[p00, p10, p11]` and `[p00, p11, p01]`: ours, so every cell gets that status (and a hole
//! `CELL_REMOVED`). Both shapes get parry's `FIX_INTERNAL_EDGES`, rapier's counterpart of
//! wgphys' active edges; the mesh's corners are merged again (`MERGE_DUPLICATE_VERTICES`)
//! since the stored triangles carry their own corners and the edge fix needs shared ones.

use rapier3d::parry::shape::{
    HeightField, HeightFieldCellStatus, HeightFieldFlags, SharedShape, TriMeshFlags,
};
use rapier3d::prelude as rp;
use wgphys::rigid::mesh::layout::{heightfield_ref, heightfield_triangle, mesh_ref, mesh_triangle};
use wgphys::rigid::types::GpuShape;
use wgphys::scenes::level;
use wgphys::Backend;

use crate::run_wgphys::Built;
use crate::{Res, Scene, SEED};

/// Builds a level scene of `n` bodies straight on `backend` (the level is the world's data).
pub(crate) fn build_level(scene: Scene, n: u32, backend: Backend) -> Res<Built> {
    let s = match scene {
        Scene::ConvexVsMesh => level::convex_vs_mesh(backend, n, SEED)?,
        _ => level::terrain(backend, n, SEED)?,
    };
    Ok(Built {
        world: s.world,
        slots: s.bodies.iter().map(|h| h.index() as usize).collect(),
        links: Vec::new(),
        rain: None,
        fleet: None,
    })
}

/// A rapier collider of the triangle mesh stored at `shape.dims.x` of the hull store `words`.
pub(crate) fn mesh_collider(words: &[glam::UVec4], shape: &GpuShape) -> Res<rp::ColliderBuilder> {
    let m = mesh_ref(words, shape.dims.x as u32);
    let mut vertices = Vec::with_capacity(3 * m.triangle_count as usize);
    let mut indices = Vec::with_capacity(m.triangle_count as usize);
    for k in 0..m.triangle_count {
        let (corners, _, _) = mesh_triangle(words, &m, k);
        let at = vertices.len() as u32;
        vertices.extend(corners.iter().map(|p| rp::Vector::new(p.x, p.y, p.z)));
        indices.push([at, at + 1, at + 2]);
    }
    let flags = TriMeshFlags::FIX_INTERNAL_EDGES | TriMeshFlags::MERGE_DUPLICATE_VERTICES;
    Ok(
        rp::ColliderBuilder::trimesh_with_flags(vertices, indices, flags)
            .map_err(|e| format!("rapier could not build the mesh: {e:?}"))?,
    )
}

/// A rapier collider of the heightfield stored at `shape.dims.x` of the hull store `words`
/// (see the module docs for the conventions).
pub(crate) fn heightfield_collider(words: &[glam::UVec4], shape: &GpuShape) -> rp::ColliderBuilder {
    let f = heightfield_ref(words, shape.dims.x as u32);
    let (rows, cols) = (f.rows as usize, f.columns as usize);
    let mut heights = rp::Array2::zeros(rows, cols);
    for r in 0..f.rows {
        for c in 0..f.columns {
            let p = wgphys::rigid::mesh::layout::heightfield_point(words, &f, r, c);
            heights[(r as usize, c as usize)] = p.y / f.scale.y;
        }
    }
    let scale = f.scale;
    let mut field = HeightField::with_flags(
        heights,
        rp::Vector::new(scale.x, scale.y, scale.z),
        HeightFieldFlags::FIX_INTERNAL_EDGES,
    );
    for r in 0..rows - 1 {
        for c in 0..cols - 1 {
            let k = (r * (cols - 1) + c) as u32;
            let status = if heightfield_triangle(words, &f, 2 * k).is_some() {
                HeightFieldCellStatus::ZIGZAG_SUBDIVISION
            } else {
                HeightFieldCellStatus::CELL_REMOVED
            };
            field.set_cell_status(r, c, status);
        }
    }
    rp::ColliderBuilder::new(SharedShape::new(field))
}
