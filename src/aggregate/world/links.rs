//! An aggregate world's force generators and links: adding, moving and removing them, and
//! what the host keeps of them.

use super::*;

impl AggregateWorld {
    /// The links in the world, with their ids (for drawing them).
    pub fn links(&self) -> impl Iterator<Item = (LinkId, Link)> + '_ {
        self.links
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.map(|l| (LinkId(i as u32), link_from_gpu(&l))))
    }

    /// Adds a force generator.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for bad parameters, a spring from a particle to itself, or an
    /// unknown particle. Nothing is added then.
    pub fn add_generator(&mut self, g: ForceGenerator) -> Result<GeneratorId> {
        let (a, b) = g.particles();
        self.check_particle("generator particle", a)?;
        if let Some(b) = b {
            self.check_particle("generator second particle", b)?;
        }
        let rec = g.to_gpu()?;
        self.gens.push(rec);
        self.dirty = true;
        Ok(GeneratorId(self.gens.len() as u32 - 1))
    }

    /// Removes a force generator.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for an unknown or already removed id.
    pub fn remove_generator(&mut self, id: GeneratorId) -> Result<()> {
        match self.gens.get_mut(id.0 as usize) {
            Some(g) if g.kind != 0 => {
                g.kind = 0;
                self.dirty = true;
                Ok(())
            }
            _ => Err(Error::InvalidInput {
                what: "generator id",
                value: format!("{}", id.0),
                fix: "pass an id returned by add_generator that has not been removed",
            }),
        }
    }

    /// Moves the anchor of an anchored generator (a camera on a spring, a dragged handle).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for an unknown id or a non-finite anchor.
    pub fn set_anchor(&mut self, id: GeneratorId, anchor: Vec3) -> Result<()> {
        crate::error::finite3("anchor", anchor)?;
        let g = match self.gens.get_mut(id.0 as usize) {
            Some(g) if matches!(g.kind, 2 | 4 | 6 | 8) => g,
            Some(g) if g.kind != 0 => {
                return Err(Error::InvalidInput {
                    what: "generator id",
                    value: format!("generator {} has no anchor", id.0),
                    fix: "move anchors of anchored springs, bungees, fake springs and damped springs only",
                })
            }
            _ => {
                return Err(Error::InvalidInput {
                    what: "generator id",
                    value: format!("{}", id.0),
                    fix: "pass an id returned by add_generator",
                })
            }
        };
        g.anchor = anchor.extend(g.anchor.w);
        let g = *g;
        if let Engine::Gpu(gpu) = &self.engine {
            if !self.dirty {
                gpu.write_gen(id.0, &g);
            }
        }
        Ok(())
    }

    /// Adds a cable or rod.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for a zero-length rod, a link from a particle to itself, bad
    /// parameters or an unknown particle.
    pub fn add_link(&mut self, l: Link) -> Result<LinkId> {
        let (a, b) = l.particles();
        self.check_particle("link particle", a)?;
        if let Some(b) = b {
            self.check_particle("link second particle", b)?;
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
        self.colour_masks[rec.a as usize] |= 1 << c;
        if rec.b != NONE {
            self.colour_masks[rec.b as usize] |= 1 << c;
        }
        self.links.push(Some(rec));
        self.dirty = true;
        Ok(LinkId(self.links.len() as u32 - 1))
    }

    /// Removes a link.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for an unknown or already removed id.
    pub fn remove_link(&mut self, id: LinkId) -> Result<()> {
        match self.links.get_mut(id.0 as usize) {
            Some(slot @ Some(_)) => {
                *slot = None;
                self.dirty = true;
                Ok(())
            }
            _ => Err(Error::InvalidInput {
                what: "link id",
                value: format!("{}", id.0),
                fix: "pass an id returned by add_link that has not been removed",
            }),
        }
    }

    /// Number of link colours (batches) in use.
    pub fn link_colours(&self) -> u32 {
        self.colour_start.len() as u32 - 1
    }
}

/// The public form of a stored link.
pub(super) fn link_from_gpu(l: &GpuLink) -> Link {
    let (a, anchor) = (ParticleId(l.a), l.anchor.truncate());
    match (l.kind, l.b) {
        (1, NONE) => Link::AnchoredCable {
            particle: a,
            anchor,
            max_length: l.length,
            restitution: l.restitution,
        },
        (1, b) => Link::Cable {
            a,
            b: ParticleId(b),
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
            b: ParticleId(b),
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
