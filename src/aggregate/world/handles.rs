//! An aggregate world's handles: each table (particles, force generators, links) keeps per slot
//! a generation and the set of removed slots. A later add reuses the lowest removed slot and
//! bumps its generation, so the handle of the removed item (or one from another world, told
//! apart by the world's tag) is refused as [`Error::StaleHandle`] naming the kind of handle,
//! and nothing changes.

use super::*;
use std::collections::BTreeSet;

/// The generations and removed slots of one of the world's tables.
#[derive(Clone, Debug, Default)]
pub(super) struct Slots {
    /// Per slot, how many times it was reused.
    pub(super) generations: Vec<u32>,
    /// The removed slots, reused lowest first (derived from the table: not saved).
    pub(super) free: BTreeSet<u32>,
}

impl Slots {
    /// The slot of a new item: the lowest removed one, its generation bumped, or a new slot at
    /// the end of a table of `len` slots.
    pub(super) fn take(&mut self) -> u32 {
        if let Some(i) = self.free.pop_first() {
            let g = &mut self.generations[i as usize];
            *g = g.wrapping_add(1);
            return i;
        }
        self.generations.push(0);
        self.generations.len() as u32 - 1
    }

    /// Marks slot `i` removed.
    pub(super) fn release(&mut self, i: u32) {
        self.free.insert(i);
    }

    /// The table of a loaded world: the saved generations (all 0 for a file without them) and
    /// the removed slots.
    #[cfg(feature = "serde")]
    pub(super) fn restore(generations: Vec<u32>, removed: impl Iterator<Item = bool>) -> Self {
        let free = removed
            .enumerate()
            .filter(|&(_, r)| r)
            .map(|(i, _)| i as u32)
            .collect();
        Self { generations, free }
    }

    /// Items in use.
    pub(super) fn live(&self) -> u32 {
        (self.generations.len() - self.free.len()) as u32
    }
}

impl AggregateWorld {
    /// The slot of a live particle of this world.
    pub(super) fn particle_slot(&self, h: ParticleId) -> Result<usize> {
        let i = h.index as usize;
        if h.world == self.tag
            && self.alive.get(i) == Some(&true)
            && self.particle_slots.generations.get(i) == Some(&h.generation)
        {
            Ok(i)
        } else {
            Err(Error::StaleHandle {
                kind: ParticleId::KIND,
                id: h.index,
            })
        }
    }

    /// The slot of a live force generator of this world.
    pub(super) fn generator_slot(&self, h: GeneratorId) -> Result<usize> {
        let i = h.index as usize;
        if h.world == self.tag
            && self.gens.get(i).is_some_and(|g| g.kind != 0)
            && self.gen_slots.generations.get(i) == Some(&h.generation)
        {
            Ok(i)
        } else {
            Err(Error::StaleHandle {
                kind: GeneratorId::KIND,
                id: h.index,
            })
        }
    }

    /// The slot of a live link of this world.
    pub(super) fn link_slot(&self, h: LinkId) -> Result<usize> {
        let i = h.index as usize;
        if h.world == self.tag
            && self.links.get(i).is_some_and(Option::is_some)
            && self.link_slots.generations.get(i) == Some(&h.generation)
        {
            Ok(i)
        } else {
            Err(Error::StaleHandle {
                kind: LinkId::KIND,
                id: h.index,
            })
        }
    }

    /// The handle of the live particle in `slot` ([`ParticleId::index`]); `None` for a removed
    /// or unused slot. A loaded world's particles keep their saved slots and generations: this
    /// is the handle for a saved one's index.
    pub fn particle_handle_at(&self, slot: u32) -> Option<ParticleId> {
        let i = slot as usize;
        (self.alive.get(i) == Some(&true)).then(|| ParticleId {
            index: slot,
            generation: self.particle_slots.generations[i],
            world: self.tag,
        })
    }

    /// The handle of the live force generator in `slot` ([`GeneratorId::index`]); `None` for a
    /// removed or unused slot (see [`AggregateWorld::particle_handle_at`]).
    pub fn generator_handle_at(&self, slot: u32) -> Option<GeneratorId> {
        let i = slot as usize;
        self.gens
            .get(i)
            .is_some_and(|g| g.kind != 0)
            .then(|| GeneratorId {
                index: slot,
                generation: self.gen_slots.generations[i],
                world: self.tag,
            })
    }

    /// The handle of the live link in `slot` ([`LinkId::index`]); `None` for a removed or
    /// unused slot (see [`AggregateWorld::particle_handle_at`]).
    pub fn link_handle_at(&self, slot: u32) -> Option<LinkId> {
        let i = slot as usize;
        self.links
            .get(i)
            .is_some_and(Option::is_some)
            .then(|| LinkId {
                index: slot,
                generation: self.link_slots.generations[i],
                world: self.tag,
            })
    }

    /// Whether `h` names a live particle of this world.
    pub fn contains_particle(&self, h: ParticleId) -> bool {
        self.particle_slot(h).is_ok()
    }

    /// The handles of the live particles, in slot order.
    pub fn particle_handles(&self) -> impl Iterator<Item = ParticleId> + '_ {
        (0..self.n).filter_map(|i| self.particle_handle_at(i))
    }

    /// Live particles (removed ones do not count; see [`AggregateWorld::slots`]), as
    /// `RigidWorld::len` counts live bodies.
    pub fn len(&self) -> usize {
        self.particle_slots.live() as usize
    }

    /// Whether the world holds no live particle.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Particle slots in use, removed ones included: the length of
    /// [`AggregateWorld::read_snapshot`]'s arrays and the instance count of the draw arguments.
    /// A removed particle's slot is reused by a later add.
    pub fn slots(&self) -> u32 {
        self.n
    }

    /// Live force generators.
    pub fn generator_count(&self) -> usize {
        self.gen_slots.live() as usize
    }

    /// Live links.
    pub fn link_count(&self) -> usize {
        self.link_slots.live() as usize
    }

    /// The handle of a particle known live in slot `i` (a generator's or link's end).
    pub(super) fn particle_at(&self, i: u32) -> ParticleId {
        ParticleId {
            index: i,
            generation: self.particle_slots.generations[i as usize],
            world: self.tag,
        }
    }
}
