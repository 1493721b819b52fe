//! Level geometry in a world: each distinct triangle mesh and heightfield its colliders use
//! (each `Arc`), stored once as a block of words in the world's hull store
//! (`crate::rigid::mesh::layout`), next to the hulls, so the narrow phase reads it where it
//! reads hulls. As with hulls, a block stays stored while the world lives.
//!
//! Ray casts, shape casts, the world's queries and continuous collision meet it. Limit of this
//! version: a world holding any is not saved (the error says so).

use super::*;
use crate::rigid::hull::MAX_HULL_WORD;
use crate::rigid::mesh::layout::{heightfield_words, mesh_words};
use crate::rigid::mesh::{HeightField, TriMesh};
use std::collections::HashMap;
use std::sync::Arc;

/// The meshes and heightfields of a world's hull store.
#[derive(Default)]
pub(super) struct WorldLevel {
    /// First word of each stored mesh or field, by the address of its `Arc`'s value (kept
    /// alive below, so an address is not reused while the world holds it).
    at: HashMap<usize, u32>,
    meshes: Vec<(u32, Arc<TriMesh>)>,
    fields: Vec<(u32, Arc<HeightField>)>,
}

impl WorldLevel {
    /// Whether any level geometry is stored.
    pub(super) fn any(&self) -> bool {
        !self.at.is_empty()
    }
}

/// The address key and the words of a collider's level geometry, if it has some.
fn level_of(c: &Collider) -> Option<(usize, &Shape)> {
    match &c.shape {
        Shape::TriMesh { mesh } => Some((Arc::as_ptr(mesh) as usize, &c.shape)),
        Shape::HeightField { field } => Some((Arc::as_ptr(field) as usize, &c.shape)),
        _ => None,
    }
}

fn words_of(shape: &Shape) -> Vec<glam::UVec4> {
    match shape {
        Shape::TriMesh { mesh } => mesh_words(mesh),
        Shape::HeightField { field } => heightfield_words(field),
        _ => Vec::new(),
    }
}

fn stored_size(shape: &Shape) -> u64 {
    match shape {
        Shape::TriMesh { mesh } => {
            let n = mesh.triangles().len() as u64;
            3 + 3 * n + 2 * mesh.bvh().nodes.len() as u64
        }
        Shape::HeightField { field } => {
            let samples = u64::from(field.rows()) * u64::from(field.columns());
            4 + samples.div_ceil(4) + u64::from(field.triangle_slots()).div_ceil(32)
        }
        _ => 0,
    }
}

impl hulls::WorldHulls {
    /// Checks that the colliders' level geometry not stored yet fits the store (with the
    /// hulls: [`WorldHulls::check`] counts those after).
    pub(super) fn check_level(&self, colliders: &[Collider]) -> Result<()> {
        let mut words = self.store.len() as u64;
        let mut seen = Vec::new();
        for (k, shape) in colliders.iter().filter_map(level_of) {
            if !self.level.at.contains_key(&k) && !seen.contains(&k) {
                seen.push(k);
                words += stored_size(shape);
            }
        }
        if words > u64::from(MAX_HULL_WORD) {
            return Err(Error::TooMany {
                what: "hull store words in one world (meshes, heightfields and hulls)",
                count: words as usize,
                max: MAX_HULL_WORD,
                fix: "share level geometry between bodies (clone one Collider), or split or \
                      simplify the meshes",
            });
        }
        Ok(())
    }

    /// Stores the colliders' level geometry not stored yet and points each such shape of
    /// `shapes` (one per collider, in order) at its block.
    pub(super) fn store_level(
        &mut self,
        colliders: &[Collider],
        shapes: &mut [GpuShape],
    ) -> Result<()> {
        for (c, s) in colliders.iter().zip(shapes.iter_mut()) {
            let Some((k, shape)) = level_of(c) else {
                continue;
            };
            let base = match self.level.at.get(&k) {
                Some(&b) => b,
                None => {
                    let b = self.store.push_words(&words_of(shape))?;
                    self.level.at.insert(k, b);
                    match shape {
                        Shape::TriMesh { mesh } => self.level.meshes.push((b, mesh.clone())),
                        Shape::HeightField { field } => {
                            self.level.fields.push((b, field.clone()));
                        }
                        _ => {}
                    }
                    b
                }
            };
            s.dims.x = base as f32;
        }
        Ok(())
    }

    /// The mesh whose block starts at word `base`.
    pub(super) fn mesh_at(&self, base: u32) -> Result<Arc<TriMesh>> {
        self.level
            .meshes
            .iter()
            .find(|(b, _)| *b == base)
            .map(|(_, m)| m.clone())
            .ok_or_else(|| corrupt("triangle mesh collider", base))
    }

    /// The heightfield whose block starts at word `base`.
    pub(super) fn heightfield_at(&self, base: u32) -> Result<Arc<HeightField>> {
        self.level
            .fields
            .iter()
            .find(|(b, _)| *b == base)
            .map(|(_, f)| f.clone())
            .ok_or_else(|| corrupt("heightfield collider", base))
    }
}

fn corrupt(what: &'static str, base: u32) -> Error {
    Error::InvalidInput {
        what,
        value: format!("block word {base} of the world's hull store"),
        fix: "the shape names no stored geometry: the world's state is corrupt",
    }
}

impl RigidWorld {
    /// Refuses to save a world holding level geometry (the save format has no place for it
    /// yet).
    #[cfg(feature = "serde")]
    pub(super) fn refuse_level_save(&self) -> Result<()> {
        if self.hulls.level.any() {
            return Err(Error::InvalidInput {
                what: "rigid world save",
                value: "a world holding triangle meshes or heightfields".to_string(),
                fix: "saving level geometry is not supported yet: rebuild the level's static \
                      colliders after loading a world saved without them",
            });
        }
        Ok(())
    }
}
