//! Level geometry in a world: each distinct triangle mesh and heightfield its colliders use
//! (each `Arc`), stored once as a block of words in the world's hull store
//! (`crate::rigid::mesh::layout`), next to the hulls, so the narrow phase reads it where it
//! reads hulls. As with hulls, a block stays stored while the world lives.
//!
//! Ray casts, shape casts, the world's queries and continuous collision meet it. A save holds
//! what each block was cooked from ([`SavedLevel`]); a load cooks it again and checks that it
//! comes out as the stored words.

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

/// A stored mesh or heightfield as a save holds it: its word block's first word and what it
/// was cooked from, cooked again when the save is loaded (the cooking is deterministic, so
/// the block comes out as the stored words, which the load checks).
#[cfg(feature = "serde")]
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) enum SavedLevel {
    /// A triangle mesh: its vertices, kept triangles and sides.
    Mesh {
        base: u32,
        vertices: Vec<glam::Vec3>,
        triangles: Vec<[u32; 3]>,
        /// [`TriMesh::with_two_sided`] (absent from saves made before meshes had two sides:
        /// one-sided).
        #[serde(default)]
        two_sided: bool,
    },
    /// A heightfield: its samples, scale and holes (cells by row and column).
    Field {
        base: u32,
        rows: u32,
        columns: u32,
        heights: Vec<f32>,
        scale: glam::Vec3,
        holes: Vec<(u32, u32)>,
    },
}

#[cfg(feature = "serde")]
impl SavedLevel {
    /// The block's first word and the geometry cooked again, or the load error naming
    /// `field` when it does not cook.
    fn cook(&self, field: &str) -> Result<(u32, Shape)> {
        let refused = |e: Error| crate::save::load_error(field, e.to_string());
        Ok(match self {
            Self::Mesh {
                base,
                vertices,
                triangles,
                two_sided,
            } => {
                let mesh = TriMesh::new(vertices, triangles).map_err(refused)?;
                let mesh = Arc::new(mesh.with_two_sided(*two_sided));
                (*base, Shape::TriMesh { mesh })
            }
            Self::Field {
                base,
                rows,
                columns,
                heights,
                scale,
                holes,
            } => (
                *base,
                Shape::HeightField {
                    field: Arc::new(
                        HeightField::with_holes(*rows, *columns, heights, *scale, holes)
                            .map_err(refused)?,
                    ),
                },
            ),
        })
    }

    /// Checks that each saved block cooks again to the words stored at its place in `store`.
    pub(super) fn check_all(saved: &[SavedLevel], store: &[glam::UVec4]) -> Result<()> {
        for (i, s) in saved.iter().enumerate() {
            let field = format!("level[{i}]");
            let (base, shape) = s.cook(&field)?;
            let words = words_of(&shape);
            let end = base as usize + words.len();
            if store.get(base as usize..end) != Some(&words[..]) {
                return Err(crate::save::load_error(
                    field,
                    format!("the geometry cooked again is not the stored block at word {base}"),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(feature = "serde")]
impl hulls::WorldHulls {
    /// The stored meshes and heightfields as a save holds them.
    pub(super) fn saved_level(&self) -> Vec<SavedLevel> {
        let meshes = self.level.meshes.iter().map(|(base, m)| SavedLevel::Mesh {
            base: *base,
            vertices: m.vertices().to_vec(),
            triangles: m.triangles().to_vec(),
            two_sided: m.is_two_sided(),
        });
        let fields = self.level.fields.iter().map(|(base, f)| {
            let cols = f.columns().saturating_sub(1);
            let holes = (0..f.triangle_slots() / 2)
                .filter(|&k| f.is_hole(2 * k))
                .map(|k| (k / cols.max(1), k % cols.max(1)))
                .collect();
            SavedLevel::Field {
                base: *base,
                rows: f.rows(),
                columns: f.columns(),
                heights: f.heights().to_vec(),
                scale: f.scale(),
                holes,
            }
        });
        meshes.chain(fields).collect()
    }

    /// Registers the saved geometry (checked by [`SavedLevel::check_all`]) at its blocks.
    pub(super) fn register_saved_level(&mut self, saved: &[SavedLevel]) -> Result<()> {
        for (i, s) in saved.iter().enumerate() {
            let (base, shape) = s.cook(&format!("level[{i}]"))?;
            match shape {
                Shape::TriMesh { mesh } => {
                    self.level.at.insert(Arc::as_ptr(&mesh) as usize, base);
                    self.level.meshes.push((base, mesh));
                }
                Shape::HeightField { field } => {
                    self.level.at.insert(Arc::as_ptr(&field) as usize, base);
                    self.level.fields.push((base, field));
                }
                _ => {}
            }
        }
        Ok(())
    }
}
