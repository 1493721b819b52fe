//! An aggregate world's force generators and links: adding, moving and removing them, and
//! what the host keeps of them.

use super::*;

impl AggregateWorld {
    /// The links in the world, with their ids (for drawing them).
    pub fn links(&self) -> impl Iterator<Item = (LinkId, Link)> + '_ {
        self.links.iter().enumerate().filter_map(|(i, l)| {
            let id = self.link_handle_at(i as u32)?;
            l.map(|l| (id, link_from_gpu(&l, |i| self.particle_at(i))))
        })
    }

    /// Adds a force generator. It takes the lowest removed generator slot, if any (its
    /// generation bumps), else a new one.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed particle or another world's;
    /// [`Error::InvalidInput`] for bad parameters or a spring from a particle to itself.
    /// Nothing is added then.
    pub fn add_generator(&mut self, g: ForceGenerator) -> Result<GeneratorId> {
        let (a, b) = g.particles();
        self.particle_slot(a)?;
        if let Some(b) = b {
            self.particle_slot(b)?;
        }
        let rec = g.to_gpu()?;
        let i = self.gen_slots.take();
        match self.gens.get_mut(i as usize) {
            Some(slot) => *slot = rec,
            None => self.gens.push(rec),
        }
        self.dirty = true;
        Ok(GeneratorId {
            index: i,
            generation: self.gen_slots.generations[i as usize],
            world: self.tag,
        })
    }

    /// Removes a force generator; its slot is reused by a later `add_generator`.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed generator or another world's handle.
    pub fn remove_generator(&mut self, id: GeneratorId) -> Result<()> {
        let i = self.generator_slot(id)?;
        self.gens[i].kind = 0;
        self.gen_slots.release(id.index);
        self.dirty = true;
        Ok(())
    }

    /// Moves the anchor of an anchored generator (a camera on a spring, a dragged handle).
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed generator or another world's handle;
    /// [`Error::InvalidInput`] for a generator without an anchor or a non-finite anchor.
    /// Nothing changes then.
    pub fn set_anchor(&mut self, id: GeneratorId, anchor: Vec3) -> Result<()> {
        let i = self.generator_slot(id)?;
        crate::error::finite3("anchor", anchor)?;
        let g = &mut self.gens[i];
        if !matches!(g.kind, 2 | 4 | 6 | 8) {
            return Err(Error::InvalidInput {
                what: "generator id",
                value: format!("generator {} has no anchor", id.index),
                fix: "move anchors of anchored springs, bungees, fake springs and damped springs only",
            });
        }
        g.anchor = anchor.extend(g.anchor.w);
        let g = *g;
        if let Engine::Gpu(gpu) = &self.engine {
            if !self.dirty {
                gpu.write_gen(id.index, &g);
            }
        }
        Ok(())
    }

    /// Adds a cable or rod. It takes the lowest removed link slot, if any (its generation
    /// bumps), else a new one.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed particle or another world's;
    /// [`Error::InvalidInput`] for a zero-length rod, a link from a particle to itself or bad
    /// parameters. Nothing is added then.
    pub fn add_link(&mut self, l: Link) -> Result<LinkId> {
        let (a, b) = l.particles();
        self.particle_slot(a)?;
        if let Some(b) = b {
            self.particle_slot(b)?;
        }
        let rec = l.to_gpu()?;
        // Greedy colouring in link order is incremental: the new link takes the lowest colour
        // free at both ends. Check it now so a link that cannot be coloured is refused here
        // (after removals the masks are conservative until the next step recolours).
        let n = self.n as usize;
        self.colour_masks.resize(n, 0);
        let mut mask = self.colour_masks[rec.a as usize];
        if rec.b != NONE {
            mask |= self.colour_masks[rec.b as usize];
        }
        let c = (!mask).trailing_zeros();
        if c >= MAX_COLOURS {
            return Err(too_many_colours());
        }
        // A removed link's slot is reused first, and the tables colour links in slot order, so
        // a link put in a reused slot is coloured before later ones: check the whole greedy
        // pass the next step makes, not just this link's colour (O(links), on reuse only).
        if let Some(&reused) = self.link_slots.free.first() {
            let order = self.links.iter().enumerate().map(|(k, l)| {
                if k == reused as usize {
                    Some(rec)
                } else {
                    *l
                }
            });
            colour_greedily(n, order.flatten())?;
        }
        self.colour_masks[rec.a as usize] |= 1 << c;
        if rec.b != NONE {
            self.colour_masks[rec.b as usize] |= 1 << c;
        }
        let i = self.link_slots.take();
        match self.links.get_mut(i as usize) {
            Some(slot) => *slot = Some(rec),
            None => self.links.push(Some(rec)),
        }
        self.dirty = true;
        Ok(LinkId {
            index: i,
            generation: self.link_slots.generations[i as usize],
            world: self.tag,
        })
    }

    /// Removes a link; its slot is reused by a later `add_link`. The next step colours the
    /// links again in slot order, first fit; first-fit colouring is not monotone, so at a
    /// particle with more than 32 links a removal can push the links after it past the 64
    /// colours, and that step returns the error naming it (remove another link, or fewer links
    /// a particle). Up to 32 links a particle any order fits.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed link or another world's handle.
    pub fn remove_link(&mut self, id: LinkId) -> Result<()> {
        let i = self.link_slot(id)?;
        self.links[i] = None;
        self.link_slots.release(id.index);
        self.dirty = true;
        Ok(())
    }

    /// Number of link colours (batches) in use.
    pub fn link_colours(&self) -> u32 {
        self.colour_start.len() as u32 - 1
    }
}

/// The public form of a stored link; `particle` gives the handle of a slot.
pub(super) fn link_from_gpu(l: &GpuLink, particle: impl Fn(u32) -> ParticleId) -> Link {
    let (a, anchor) = (particle(l.a), l.anchor.truncate());
    match (l.kind, l.b) {
        (1, NONE) => Link::AnchoredCable {
            particle: a,
            anchor,
            max_length: l.length,
            restitution: l.restitution,
        },
        (1, b) => Link::Cable {
            a,
            b: particle(b),
            max_length: l.length,
            restitution: l.restitution,
        },
        (_, NONE) => Link::AnchoredRod {
            particle: a,
            anchor,
            length: l.length,
        },
        (_, b) => Link::Rod {
            a,
            b: particle(b),
            length: l.length,
        },
    }
}

pub(super) fn too_many_colours() -> Error {
    Error::InvalidInput {
        what: "links",
        value: format!("a link that needs more than {MAX_COLOURS} colours (batches)"),
        fix: "join each particle to fewer links (at most 64, fewer where links chain densely)",
    }
}

/// Each particle's mask of the colours its links took, and each link with its colour.
pub(super) type Colouring = (Vec<u64>, Vec<(u32, GpuLink)>);

/// Colours links greedily in the order given (each takes the lowest colour free at both of its
/// particles, among `n`): the particles' colour masks and each link with its colour, or
/// [`too_many_colours`] when one needs more than [`MAX_COLOURS`]. The step's tables and
/// `add_link`'s check both colour this way, so a link `add_link` accepts always fits.
pub(super) fn colour_greedily(n: usize, links: impl Iterator<Item = GpuLink>) -> Result<Colouring> {
    let mut used: Vec<u64> = vec![0; n];
    let mut coloured = Vec::new();
    for l in links {
        let mut mask = used[l.a as usize];
        if l.b != NONE {
            mask |= used[l.b as usize];
        }
        let c = (!mask).trailing_zeros();
        if c >= MAX_COLOURS {
            return Err(too_many_colours());
        }
        used[l.a as usize] |= 1 << c;
        if l.b != NONE {
            used[l.b as usize] |= 1 << c;
        }
        coloured.push((c, l));
    }
    Ok((used, coloured))
}
