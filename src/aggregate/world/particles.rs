//! An aggregate world's particles: adding (into removed slots first), removing, and setting
//! their state.

use super::*;

impl AggregateWorld {
    /// Adds a particle (its `size` is its collision radius; `lifetime` must be `None`: an
    /// aggregate particle lives until removed). Its [`Particle::damping`] is the fraction of
    /// velocity kept per second, in [0, 1] (1 = none, the default; rapier's linear damping c
    /// corresponds to about e^(−c)).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] naming the bad field; [`Error::Full`] when every slot is taken.
    pub fn add_particle(&mut self, p: Particle) -> Result<ParticleId> {
        let ids = self.add_particles(std::slice::from_ref(&p))?;
        Ok(ids[0])
    }

    /// Adds many particles at once (one upload per buffer on the GPU for those past the last
    /// slot in use). They take the removed slots first, lowest first (each such slot's
    /// generation bumps, so the removed particle's handle stays refused), then new slots. All
    /// are checked first: on an error nothing is added.
    ///
    /// # Errors
    /// As [`AggregateWorld::add_particle`], naming the first bad particle's field.
    pub fn add_particles(&mut self, ps: &[Particle]) -> Result<Vec<ParticleId>> {
        let room = self.config.capacity as usize - self.n as usize + self.particle_slots.free.len();
        if ps.len() > room {
            return Err(Error::Full {
                what: "aggregate particle",
                capacity: self.config.capacity,
            });
        }
        let largest = ps.iter().fold(0.0f32, |m, p| m.max(p.size));
        for p in ps {
            p.validate()?;
            if p.lifetime.is_some() {
                return Err(Error::InvalidInput {
                    what: "particle.lifetime",
                    value: format!("{:?}", p.lifetime),
                    fix: "aggregate particles live until removed: pass None",
                });
            }
        }
        if let Some(spec) = &self.grid_spec {
            let auto = self.config.collisions.is_some_and(|c| c.cell_size <= 0.0) && self.n == 0;
            if !auto && 2.0 * largest > spec.cell_size {
                return Err(Error::InvalidInput {
                    what: "particle.size",
                    value: format!("{largest} (grid cell {})", spec.cell_size),
                    fix: "the collision grid's cell must be at least twice the largest radius: raise Collisions::cell_size",
                });
            }
        }
        if ps.is_empty() {
            return Ok(Vec::new());
        }
        if let (Some(spec), true) = (
            &mut self.grid_spec,
            self.n == 0 && self.config.collisions.is_some_and(|c| c.cell_size <= 0.0),
        ) {
            spec.cell_size = (2.0 * largest).max(1e-6);
            if let Engine::Gpu(g) = &mut self.engine {
                g.set_grid_spec(*spec)?;
            }
        }
        let pos: Vec<Vec4> = ps.iter().map(|p| p.position.extend(1.0)).collect();
        let vel: Vec<Vec4> = ps.iter().map(|p| p.velocity.extend(p.damping)).collect();
        let acc: Vec<Vec4> = ps
            .iter()
            .map(|p| p.acceleration.extend(p.inverse_mass))
            .collect();
        let radius: Vec<f32> = ps.iter().map(|p| p.size).collect();
        let colour: Vec<Vec4> = ps.iter().map(|p| p.colour).collect();
        let slots: Vec<u32> = (0..ps.len()).map(|_| self.particle_slots.take()).collect();
        // The new slots past the end are consecutive: one write per buffer.
        let reused = slots.iter().take_while(|&&i| i < self.n).count();
        let first = self.n;
        for (k, &i) in slots[..reused].iter().enumerate() {
            let i = i as usize;
            // The removed particle's own acceleration is still counted (`remove_particle`
            // keeps it); the new one replaces it.
            self.own_accelerations -= usize::from(has_own_acceleration(self.acc[i]));
            self.own_accelerations += usize::from(has_own_acceleration(acc[k]));
            self.acc[i] = acc[k];
            self.alive[i] = true;
            // The removed particle had no links left: no colour is taken at this slot.
            if let Some(m) = self.colour_masks.get_mut(i) {
                *m = 0;
            }
        }
        match &mut self.engine {
            Engine::Cpu(s) => {
                for (k, &i) in slots.iter().enumerate() {
                    let i = i as usize;
                    s.pos[i] = pos[k];
                    s.vel[i] = vel[k];
                    s.acc[i] = acc[k];
                    s.radius[i] = radius[k];
                    s.colour[i] = colour[k];
                }
            }
            Engine::Gpu(g) => {
                for (k, &i) in slots[..reused].iter().enumerate() {
                    let r = k..k + 1;
                    let (p, v, a) = (&pos[r.clone()], &vel[r.clone()], &acc[r.clone()]);
                    g.write_particles(i, p, v, a, &radius[r.clone()], &colour[r]);
                }
                if reused < slots.len() {
                    let r = reused..;
                    let (p, v, a) = (&pos[r.clone()], &vel[r.clone()], &acc[r.clone()]);
                    g.write_particles(first, p, v, a, &radius[r.clone()], &colour[r]);
                    g.write_draw_args(first + (slots.len() - reused) as u32);
                }
            }
        }
        let fresh = slots.len() - reused;
        self.n += fresh as u32;
        self.alive.extend(std::iter::repeat_n(true, fresh));
        self.own_accelerations += acc[reused..]
            .iter()
            .filter(|a| has_own_acceleration(**a))
            .count();
        self.acc.extend_from_slice(&acc[reused..]);
        self.dirty = true;
        Ok(slots.into_iter().map(|i| self.particle_at(i)).collect())
    }

    /// Removes a particle. Its slot stays in place (indices never shift) but no longer moves,
    /// collides or draws, until a later add reuses it.
    ///
    /// # Errors
    /// [`Error::ParticleInUse`] while generators or links use it; [`Error::StaleHandle`] for a
    /// removed particle or another world's handle. Nothing changes then.
    pub fn remove_particle(&mut self, id: ParticleId) -> Result<()> {
        let i = self.particle_slot(id)?;
        let id = id.index;
        let gens = self
            .gens
            .iter()
            .filter(|g| g.kind != 0 && (g.a == id || g.b == id))
            .count();
        let links = self
            .links
            .iter()
            .flatten()
            .filter(|l| l.a == id || l.b == id)
            .count();
        if gens + links > 0 {
            return Err(Error::ParticleInUse {
                id,
                by: format!("{gens} force generator(s) and {links} link(s)"),
            });
        }
        self.alive[i] = false;
        self.particle_slots.release(id);
        self.acc[i].w = 0.0;
        match &mut self.engine {
            Engine::Cpu(s) => {
                s.pos[i].w = 0.0;
                s.acc[i].w = 0.0;
                s.radius[i] = 0.0;
                s.colour[i] = Vec4::ZERO;
            }
            Engine::Gpu(g) => g.kill(id),
        }
        Ok(())
    }

    /// Sets a particle's inverse mass (0 pins it), for example to put a load on a bridge.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed particle or another world's handle;
    /// [`Error::InvalidInput`] for a negative or non-finite value. Nothing changes then.
    pub fn set_inverse_mass(&mut self, id: ParticleId, inverse_mass: f32) -> Result<()> {
        let i = self.particle_slot(id)?;
        if !(inverse_mass >= 0.0 && inverse_mass.is_finite()) {
            return Err(Error::InvalidInput {
                what: "inverse_mass",
                value: format!("{inverse_mass}"),
                fix: "pass a finite value >= 0 (0 = immovable)",
            });
        }
        self.acc[i].w = inverse_mass;
        match &mut self.engine {
            Engine::Cpu(s) => s.acc[i].w = inverse_mass,
            Engine::Gpu(g) => g.write_acc(id.index, self.acc[i]),
        }
        Ok(())
    }

    /// Sets a particle's own constant acceleration (for example a player's push on the blob,
    /// or gravity that differs per particle).
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed particle or another world's handle;
    /// [`Error::InvalidInput`] for a non-finite vector. Nothing changes then.
    pub fn set_acceleration(&mut self, id: ParticleId, acceleration: Vec3) -> Result<()> {
        let i = self.particle_slot(id)?;
        crate::error::finite3("acceleration", acceleration)?;
        self.own_accelerations -= usize::from(has_own_acceleration(self.acc[i]));
        self.acc[i] = acceleration.extend(self.acc[i].w);
        self.own_accelerations += usize::from(has_own_acceleration(self.acc[i]));
        match &mut self.engine {
            Engine::Cpu(s) => s.acc[i] = self.acc[i],
            Engine::Gpu(g) => g.write_acc(id.index, self.acc[i]),
        }
        Ok(())
    }

    /// Moves a particle (a teleport: its velocity is kept; contacts and links see the new
    /// place from the next step on). Lands in order with the steps on the GPU, as every edit.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed particle or another world's handle;
    /// [`Error::InvalidInput`] for a non-finite position. Nothing changes then.
    pub fn set_position(&mut self, id: ParticleId, position: Vec3) -> Result<()> {
        let i = self.particle_slot(id)?;
        crate::error::finite3("position", position)?;
        match &mut self.engine {
            Engine::Cpu(s) => s.pos[i] = position.extend(s.pos[i].w),
            Engine::Gpu(g) => g.write_xyz(false, id.index, position),
        }
        Ok(())
    }

    /// Sets a particle's velocity (its damping is kept).
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed particle or another world's handle;
    /// [`Error::InvalidInput`] for a non-finite velocity. Nothing changes then.
    pub fn set_velocity(&mut self, id: ParticleId, velocity: Vec3) -> Result<()> {
        let i = self.particle_slot(id)?;
        crate::error::finite3("velocity", velocity)?;
        match &mut self.engine {
            Engine::Cpu(s) => s.vel[i] = velocity.extend(s.vel[i].w),
            Engine::Gpu(g) => g.write_xyz(true, id.index, velocity),
        }
        Ok(())
    }
}
