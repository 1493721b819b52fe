//! A world's emitters: adding, moving, pausing and removing them, and counting what each
//! emits in a step (the host's part of the `spawn_emitted` stage).

use super::*;

impl ParticleWorld {
    /// Adds an emitter; it starts emitting in the next step (its clock starts at 0 then).
    /// Emitted particles have no handles (like firework children); a step with no room for
    /// them counts them as refused in the pool's status.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] naming the bad field; [`Error::TooMany`] beyond
    /// [`MAX_EMITTERS`]. The world is unchanged then.
    pub fn add_emitter(&mut self, emitter: Emitter) -> Result<EmitterHandle> {
        let gpu = emitter.to_gpu()?;
        if self.emitters.len() >= MAX_EMITTERS as usize {
            return Err(Error::TooMany {
                what: "emitters",
                count: self.emitters.len() + 1,
                max: MAX_EMITTERS,
                fix: "the emitter table is a uniform array of MAX_EMITTERS entries: remove an \
                      emitter first, or move one emitter between places",
            });
        }
        let id = self.next_emitter;
        self.next_emitter = self.next_emitter.wrapping_add(1);
        self.emitters.push(EmitterState {
            id,
            desc: emitter,
            gpu,
            active: true,
            time: 0.0,
            from_rate: 0,
        });
        // Emitted particles die of age: the lifecycle runs from now on.
        self.mortal = true;
        self.upload_emitters();
        Ok(EmitterHandle {
            id,
            world: self.world_tag,
        })
    }

    /// Replaces an emitter's description, keeping its clock (a rate change takes effect from
    /// the next step; bursts already past do not go off again).
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] naming the bad field (the old
    /// description stays).
    pub fn set_emitter(&mut self, handle: EmitterHandle, emitter: Emitter) -> Result<()> {
        let i = self.emitter_index(handle)?;
        let gpu = emitter.to_gpu()?;
        let e = &mut self.emitters[i];
        // The rate's count restarts from the clock so a new rate does not owe the old one's
        // particles.
        e.from_rate = (f64::from(emitter.rate) * e.time).floor().max(0.0) as u64;
        e.desc = emitter;
        e.gpu = gpu;
        self.upload_emitters();
        Ok(())
    }

    /// Moves an emitter (the particles it already emitted stay where they are).
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite position or rotation.
    pub fn set_emitter_transform(
        &mut self,
        handle: EmitterHandle,
        position: glam::Vec3,
        rotation: glam::Quat,
    ) -> Result<()> {
        let i = self.emitter_index(handle)?;
        let desc = Emitter {
            position,
            rotation,
            ..self.emitters[i].desc.clone()
        };
        self.set_emitter(handle, desc)
    }

    /// Pauses (`false`) or resumes (`true`) an emitter: a paused emitter emits nothing and its
    /// clock stands still, so its bursts wait.
    ///
    /// # Errors
    /// [`Error::StaleHandle`].
    pub fn set_emitter_active(&mut self, handle: EmitterHandle, active: bool) -> Result<()> {
        let i = self.emitter_index(handle)?;
        self.emitters[i].active = active;
        Ok(())
    }

    /// Removes an emitter; the particles it emitted live on.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a handle already removed or from another world.
    pub fn remove_emitter(&mut self, handle: EmitterHandle) -> Result<()> {
        let i = self.emitter_index(handle)?;
        self.emitters.remove(i);
        self.upload_emitters();
        Ok(())
    }

    /// Whether an emitter handle is valid here.
    pub fn contains_emitter(&self, handle: EmitterHandle) -> bool {
        self.emitter_index(handle).is_ok()
    }

    /// The emitters, in table order.
    pub fn emitter_count(&self) -> usize {
        self.emitters.len()
    }

    fn emitter_index(&self, handle: EmitterHandle) -> Result<usize> {
        if handle.world != self.world_tag {
            return Err(Error::StaleHandle(handle.id));
        }
        self.emitters
            .iter()
            .position(|e| e.id == handle.id)
            .ok_or(Error::StaleHandle(handle.id))
    }

    fn upload_emitters(&mut self) {
        self.emitter_table = self.emitters.iter().map(|e| e.gpu).collect();
        if let Engine::Gpu(g) = &mut self.engine {
            g.set_emitters(&self.emitter_table);
        }
    }

    /// Advances every emitter's clock by `dt` and returns the particles wanted this step and
    /// the exclusive prefix of the counts per emitter (for `GpuParams::emit_first`). The total
    /// is held below 2^30 so the device's sums of spawns cannot wrap (a step can accept at
    /// most the capacity anyway; the rest are counted as refused).
    pub(super) fn emission(&mut self, dt: f32) -> (u32, [[u32; 4]; (MAX_EMITTERS / 4) as usize]) {
        const MOST: u64 = 1 << 30;
        let mut first = [[0u32; 4]; (MAX_EMITTERS / 4) as usize];
        let mut total = 0u64;
        for (e, state) in self.emitters.iter_mut().enumerate() {
            first[e / 4][e % 4] = total as u32;
            total = (total + state.advance(dt)).min(MOST);
        }
        (total as u32, first)
    }
}
