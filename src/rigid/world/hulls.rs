//! The world's hull store: every distinct hull its colliders use, stored once (by its `Arc`)
//! in one [`HullStore`], mirrored into the GPU's `hulls` buffer as bodies are added. A hull
//! stays stored while the world lives, so a body added again with the same collider costs
//! nothing; a world that churns through many distinct hulls grows by each (share one
//! `Collider`'s hull between bodies to avoid that). Removing or reshaping a collider does not
//! free its hull's words either. A loaded world reads its hulls back once
//! ([`WorldHulls::register_loaded`]), so the same rule holds after a load.

use super::*;
use crate::rigid::hull::{Hull, HullStore, MAX_HULL_WORD};
use glam::UVec4;
use std::collections::HashMap;
use std::sync::Arc;

/// The hulls of a world (see the module docs).
#[derive(Default)]
pub(super) struct WorldHulls {
    pub(super) store: HullStore,
    /// Header word of each stored hull, by the address of its `Arc`'s hull (kept alive in
    /// `kept`, so an address is never reused while the world holds it).
    pub(super) at: HashMap<usize, u32>,
    pub(super) kept: Vec<Arc<Hull>>,
    /// Words already written to the GPU.
    pub(super) uploaded: usize,
    /// The store came from a saved world: it holds hulls no `Arc` in `kept` names.
    pub(super) loaded: bool,
    /// Triangle meshes and heightfields stored (`world/level.rs`).
    pub(super) level: super::level::WorldLevel,
}

impl WorldHulls {
    /// The words.
    pub(super) fn words(&self) -> &[UVec4] {
        &self.store
    }

    /// Whether a convex hull may be stored (the narrow stage then runs `narrow_hull` on the
    /// GPU). A loaded store counts: its hulls are not named by `kept`.
    pub(super) fn convex(&self) -> bool {
        !self.kept.is_empty() || self.loaded
    }

    fn key(hull: &Arc<Hull>) -> usize {
        Arc::as_ptr(hull) as usize
    }

    /// The header word of `hull` when this world stores it.
    pub(super) fn header_of(&self, hull: &Arc<Hull>) -> Option<u32> {
        self.at.get(&Self::key(hull)).copied()
    }

    /// Checks that the colliders' hulls not stored yet fit the store.
    pub(super) fn check(&self, colliders: &[Collider]) -> Result<()> {
        self.check_level(colliders)?;
        let mut words = self.store.len() as u64;
        let mut seen = Vec::new();
        for c in colliders {
            if let Shape::ConvexHull { hull } = &c.shape {
                let k = Self::key(hull);
                if !self.at.contains_key(&k) && !seen.contains(&k) {
                    seen.push(k);
                    words += u64::from(hull.words());
                }
            }
        }
        if words > u64::from(MAX_HULL_WORD) {
            return Err(Error::TooMany {
                what: "hull words in one world",
                count: words as usize,
                max: MAX_HULL_WORD,
                fix: "share hulls between bodies (clone one Collider), or simplify them",
            });
        }
        Ok(())
    }

    /// Stores the hulls of `colliders` not stored yet and points each hull shape of `shapes`
    /// (one per collider, in order) at its hull's header.
    pub(super) fn store(&mut self, colliders: &[Collider], shapes: &mut [GpuShape]) -> Result<()> {
        self.store_level(colliders, shapes)?;
        for (c, s) in colliders.iter().zip(shapes.iter_mut()) {
            if let Shape::ConvexHull { hull } = &c.shape {
                let k = Self::key(hull);
                let base = match self.at.get(&k) {
                    Some(&base) => base,
                    None => {
                        let base = self.store.add(hull)?.base;
                        self.at.insert(k, base);
                        self.kept.push(hull.clone());
                        base
                    }
                };
                s.dims.x = base as f32;
            }
        }
        Ok(())
    }

    /// Reads back each distinct hull the shapes of a loaded world name (header words `bases`)
    /// and keeps it, so that [`WorldHulls::hull_at`] hands out one `Arc` per stored hull, and a
    /// collider read back from a loaded world and added again (or cast) is the stored hull,
    /// not a second copy.
    #[cfg(feature = "serde")]
    pub(super) fn register_loaded(&mut self, bases: impl IntoIterator<Item = u32>) -> Result<()> {
        for base in bases {
            if self.at.values().any(|&b| b == base) {
                continue;
            }
            let hull = self.hull_at(base)?;
            self.at.insert(Self::key(&hull), base);
            self.kept.push(hull);
        }
        Ok(())
    }

    /// The hull whose header is at word `base`: the `Arc` a collider brought, or, for a hull of
    /// a loaded world, the stored one read back ([`Hull::from_words`]: equal to the one saved,
    /// in a new `Arc`).
    pub(super) fn hull_at(&self, base: u32) -> Result<Arc<Hull>> {
        if let Some(h) = self
            .kept
            .iter()
            .find(|h| self.at.get(&Self::key(h)) == Some(&base))
        {
            return Ok(h.clone());
        }
        Hull::from_words(&self.store, base)
            .map(Arc::new)
            .ok_or_else(|| Error::InvalidInput {
                what: "hull collider",
                value: format!("header word {base} of the world's hull store"),
                fix: "the shape names no stored hull: the world's state is corrupt",
            })
    }

    /// Writes the words not on the GPU yet.
    pub(super) fn upload(&mut self, rigid: &mut GpuRigid) -> Result<()> {
        if self.uploaded < self.store.len() {
            rigid.write_hulls(&self.store, self.uploaded)?;
            self.uploaded = self.store.len();
        }
        Ok(())
    }
}
