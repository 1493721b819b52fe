//! A world's emitters: adding, moving, pausing and removing them, and counting what each
//! emits in a step (the host's part of the `spawn_emitted` stage).

use super::*;
use crate::particles::emitter::{emitter_kind, EmitterSlot};

impl ParticleWorld {
    /// Adds an emitter; it starts emitting in the next step (its clock starts at 0 then).
    /// Emitted particles have no handles (like firework children); a step with no room for
    /// them counts them as refused in the pool's status.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] naming the bad field; [`Error::TooMany`] when all
    /// [`MAX_EMITTERS`] slots are taken (a removed emitter holds its slot until its particles
    /// have died). The world is unchanged then.
    pub fn add_emitter(&mut self, emitter: Emitter) -> Result<EmitterHandle> {
        let gpu = emitter.to_gpu()?;
        let curves = emitter.curves()?;
        self.check_local_fields(&emitter, None)?;
        let clock = self.clock;
        let free = self.emitters.iter().position(|s| match s {
            EmitterSlot::Free => true,
            EmitterSlot::Retired { until, .. } => clock > *until,
            EmitterSlot::Used(_) => false,
        });
        let slot = match free {
            Some(slot) => slot,
            None if self.emitters.len() < MAX_EMITTERS as usize => {
                self.emitters.push(EmitterSlot::Free);
                self.emitters.len() - 1
            }
            None => {
                return Err(Error::TooMany {
                    what: "emitters",
                    count: self.emitter_count() + 1,
                    max: MAX_EMITTERS,
                    fix: "the emitter table is a uniform array of MAX_EMITTERS entries: remove \
                          an emitter first (its slot is free once its particles have died), or \
                          move one emitter between places",
                });
            }
        };
        let id = self.next_emitter;
        self.next_emitter = self.next_emitter.wrapping_add(1);
        self.emitters[slot] = EmitterSlot::Used(Box::new(EmitterState {
            id,
            desc: emitter,
            gpu,
            curves,
            on_death: None,
            on_impact: None,
            active: true,
            time: 0.0,
            from_rate: 0,
        }));
        // Emitted particles die of age: the lifecycle runs from now on.
        self.mortal = true;
        self.upload_emitters();
        Ok(EmitterHandle {
            id,
            world: self.world_tag,
        })
    }

    /// Replaces an emitter's description, keeping its clock (a rate change takes effect from
    /// the next step; bursts already past do not go off again). Particles it emitted before
    /// follow its new life curves.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] naming the bad field (the old
    /// description stays).
    pub fn set_emitter(&mut self, handle: EmitterHandle, emitter: Emitter) -> Result<()> {
        let slot = self.emitter_slot_index(handle)?;
        let gpu = emitter.to_gpu()?;
        let curves = emitter.curves()?;
        self.check_local_fields(&emitter, Some(slot))?;
        if let EmitterSlot::Used(e) = &mut self.emitters[slot] {
            // The rate's count restarts from the clock so a new rate does not owe the old
            // one's particles.
            e.from_rate = (f64::from(emitter.rate) * e.time).floor().max(0.0) as u64;
            e.desc = emitter;
            e.gpu = gpu;
            e.curves = curves;
        }
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
        let desc = match &self.emitters[self.emitter_slot_index(handle)?] {
            EmitterSlot::Used(e) => Emitter {
                position,
                rotation,
                ..e.desc.clone()
            },
            _ => {
                return Err(Error::StaleHandle {
                    kind: "emitter",
                    id: handle.id,
                })
            }
        };
        self.set_emitter(handle, desc)
    }

    /// Pauses (`false`) or resumes (`true`) an emitter: a paused emitter emits nothing and its
    /// clock stands still, so its bursts wait.
    ///
    /// # Errors
    /// [`Error::StaleHandle`].
    pub fn set_emitter_active(&mut self, handle: EmitterHandle, active: bool) -> Result<()> {
        let slot = self.emitter_slot_index(handle)?;
        if let EmitterSlot::Used(e) = &mut self.emitters[slot] {
            e.active = active;
        }
        Ok(())
    }

    /// Removes an emitter; the particles it emitted live on (with its life curves).
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a handle already removed or from another world.
    pub fn remove_emitter(&mut self, handle: EmitterHandle) -> Result<()> {
        let slot = self.emitter_slot_index(handle)?;
        let next = match &self.emitters[slot] {
            // Its particles name the slot (curves, bounds) and live at most the longest
            // lifetime; the ages are f32 sums of the steps, so a margin covers their rounding
            // against this f64 clock.
            EmitterSlot::Used(e) => EmitterSlot::Retired {
                until: self.clock + f64::from(e.desc.lifetime.1) * 1.01 + 0.1,
                curves: Box::new(e.curves.unwrap_or_default()),
                groups: e.desc.collision_groups,
            },
            _ => {
                return Err(Error::StaleHandle {
                    kind: "emitter",
                    id: handle.id,
                })
            }
        };
        self.emitters[slot] = next;
        self.upload_emitters();
        Ok(())
    }

    /// The emitter's slot in the emitter table: its box is entries `2·slot` and `2·slot + 1`
    /// of [`RenderBuffers::emitter_bounds`].
    ///
    /// # Errors
    /// [`Error::StaleHandle`].
    pub fn emitter_slot(&self, handle: EmitterHandle) -> Result<u32> {
        self.emitter_slot_index(handle).map(|s| s as u32)
    }

    /// The box (min, max) of the emitter's live particles after the last step, `None` when it
    /// has none (the stages `emitter_bounds` and `bounds_publish`; blocks on the GPU).
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::Gpu`] on readback failure.
    pub fn read_emitter_bounds(
        &self,
        handle: EmitterHandle,
    ) -> Result<Option<(glam::Vec3, glam::Vec3)>> {
        let slot = self.emitter_slot_index(handle)?;
        let (lo, hi) = match &self.engine {
            Engine::Gpu(g) => {
                g.flush_uploads();
                let all: Vec<glam::Vec4> = crate::gpu::buffer::read_vec(
                    &g.ctx.device,
                    &g.ctx.queue,
                    &g.bufs.emitter_bounds,
                    2 * MAX_EMITTERS as usize,
                )?;
                (all[2 * slot], all[2 * slot + 1])
            }
            Engine::Cpu(s) => crate::particles::cpu::emitter_bounds(s, slot),
        };
        Ok((lo.w != 0.0).then(|| (lo.truncate(), hi.truncate())))
    }

    /// Makes `parent`'s particles emit `count` particles of `child` when they die
    /// ([`SubTrigger::Death`]) or each time they strike a collider ([`SubTrigger::Impact`]),
    /// drawn from the child emitter's description around the parent particle's position (its
    /// own position is not used; give it a rate of 0 to use it only this way). `None` turns the
    /// trigger off. The children are payload like a firework's: counted by the same prefix sum,
    /// placed by `emit` on the GPU, refused with the others when the pool is full. Removing the
    /// child emitter turns the trigger off.
    ///
    /// At most [`crate::particles::fireworks::MAX_CHILDREN_PER_RULE`] children per parent particle, as for a
    /// firework rule: one `emit` thread writes the children of a few consecutive parents one
    /// after the other, and software adapters stop an invocation's loops after about 65,535
    /// iterations (a serial loop that long is slow on any GPU, too). For more, emit more
    /// parents together (a burst of coinciding shells) or chain sub-emitters.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for either handle; [`Error::InvalidInput`] for more children than
    /// the cap (nothing changed then).
    pub fn set_sub_emitter(
        &mut self,
        parent: EmitterHandle,
        trigger: SubTrigger,
        child: Option<(EmitterHandle, u32)>,
    ) -> Result<()> {
        let slot = self.emitter_slot_index(parent)?;
        let sub = match child {
            Some((h, n)) => {
                self.emitter_slot_index(h)?;
                if n > crate::particles::fireworks::MAX_CHILDREN_PER_RULE {
                    return Err(Error::InvalidInput {
                        what: "sub-emitter count",
                        value: format!("{n}"),
                        fix: "emit at most MAX_CHILDREN_PER_RULE (4096) children per parent; for \
                              more, emit several parents together or chain sub-emitters",
                    });
                }
                Some((h.id, n))
            }
            None => None,
        };
        if let EmitterSlot::Used(e) = &mut self.emitters[slot] {
            match trigger {
                SubTrigger::Death => e.on_death = sub,
                SubTrigger::Impact => e.on_impact = sub,
            }
        }
        self.upload_emitters();
        Ok(())
    }

    /// The handle of the emitter with this id ([`EmitterHandle::id`]), or `None` when no such
    /// emitter is in the world (how a loaded world's emitters are found again).
    pub fn emitter_handle(&self, id: u32) -> Option<EmitterHandle> {
        self.emitters
            .iter()
            .any(|s| matches!(s, EmitterSlot::Used(e) if e.id == id))
            .then_some(EmitterHandle {
                id,
                world: self.world_tag,
            })
    }

    /// Whether an emitter handle is valid here.
    pub fn contains_emitter(&self, handle: EmitterHandle) -> bool {
        self.emitter_slot_index(handle).is_ok()
    }

    /// The emitters in the world.
    pub fn emitter_count(&self) -> usize {
        self.emitters
            .iter()
            .filter(|s| matches!(s, EmitterSlot::Used(_)))
            .count()
    }

    fn emitter_slot_index(&self, handle: EmitterHandle) -> Result<usize> {
        if handle.world != self.world_tag {
            return Err(Error::StaleHandle {
                kind: "emitter",
                id: handle.id,
            });
        }
        self.emitters
            .iter()
            .position(|s| matches!(s, EmitterSlot::Used(e) if e.id == handle.id))
            .ok_or(Error::StaleHandle {
                kind: "emitter",
                id: handle.id,
            })
    }

    /// The world's fields and the emitters' local ones share one table: `count` must fit it.
    pub(super) fn fields_fit(count: usize) -> Result<()> {
        if count > MAX_FIELDS as usize {
            return Err(Error::TooManyFields {
                count,
                max: MAX_FIELDS,
            });
        }
        Ok(())
    }

    /// Local fields of the emitters in use, slot by slot, skipping `except`.
    pub(super) fn local_field_count(&self, except: Option<usize>) -> usize {
        self.emitters
            .iter()
            .enumerate()
            .filter(|(slot, _)| Some(*slot) != except)
            .map(|(_, s)| match s {
                EmitterSlot::Used(e) => e.desc.fields.len(),
                _ => 0,
            })
            .sum()
    }

    /// Checks an emitter's local fields (each valid in its frame) and that the field table
    /// holds them beside the world's fields and the other emitters' (`replacing`: the slot whose
    /// fields they replace).
    fn check_local_fields(&self, emitter: &Emitter, replacing: Option<usize>) -> Result<()> {
        let rotation = emitter.rotation.normalize();
        for f in &emitter.fields {
            f.in_frame(emitter.position, rotation).to_gpu()?;
        }
        Self::fields_fit(
            self.config.fields.len() + self.local_field_count(replacing) + emitter.fields.len(),
        )
    }

    /// The step's field table and its length: the world's fields, then each emitter's local
    /// fields in its frame now, tagged with 1 + its slot (they act only on its particles), with
    /// the turbulence offsets at `time`.
    pub(super) fn field_table(&self, time: f32) -> Result<([GpuField; MAX_FIELDS as usize], u32)> {
        let mut table = self.fields;
        let mut n = self.config.fields.len();
        for (slot, s) in self.emitters.iter().enumerate() {
            let EmitterSlot::Used(e) = s else { continue };
            let rotation = e.desc.rotation.normalize();
            for f in &e.desc.fields {
                let entry = table.get_mut(n).ok_or(Error::TooManyFields {
                    count: n + 1,
                    max: MAX_FIELDS,
                })?;
                let mut g = f.in_frame(e.desc.position, rotation).to_gpu()?;
                g.kind |= (slot as u32 + 1) << FIELD_EMITTER_SHIFT;
                *entry = g;
                n += 1;
            }
        }
        Ok((fields_at(&table, time), n as u32))
    }

    pub(super) fn upload_emitters(&mut self) {
        self.emitter_table.clear();
        self.curve_table.clear();
        let slot_of = |id: u32| {
            self.emitters
                .iter()
                .position(|s| matches!(s, EmitterSlot::Used(e) if e.id == id))
        };
        // (1 + the child's slot, children), or zeros when off or the child is gone.
        let sub = |t: Option<(u32, u32)>| match t.and_then(|(id, n)| Some((slot_of(id)?, n))) {
            Some((slot, n)) if n > 0 => [slot as u32 + 1, n],
            _ => [0, 0],
        };
        for (slot, s) in self.emitters.iter().enumerate() {
            let (gpu, curves) = match s {
                EmitterSlot::Used(e) => {
                    let (d, i) = (sub(e.on_death), sub(e.on_impact));
                    (
                        GpuEmitter {
                            kind: emitter_kind(slot),
                            sub: [d[0], d[1], i[0], i[1]],
                            ..e.gpu
                        },
                        e.curves.unwrap_or_default(),
                    )
                }
                EmitterSlot::Retired { curves, .. } => (GpuEmitter::default(), **curves),
                EmitterSlot::Free => (GpuEmitter::default(), GpuCurves::default()),
            };
            self.emitter_table.push(gpu);
            self.curve_table.push(curves);
        }
        if let Engine::Gpu(g) = &mut self.engine {
            g.set_emitters(&self.emitter_table, &self.curve_table);
        }
    }

    /// Advances the world's and every emitter's clock by `dt` and returns the particles wanted
    /// this step and the exclusive prefix of the counts per slot (for
    /// `GpuParams::emit_first`). The total is held below 2^30 so the device's sums of spawns
    /// cannot wrap (a step can accept at most the capacity anyway; the rest are counted as
    /// refused).
    pub(super) fn emission(&mut self, dt: f32) -> (u32, [[u32; 4]; (MAX_EMITTERS / 4) as usize]) {
        const MOST: u64 = 1 << 30;
        self.clock += f64::from(dt);
        let mut first = [[0u32; 4]; (MAX_EMITTERS / 4) as usize];
        let mut total = 0u64;
        for (slot, s) in self.emitters.iter_mut().enumerate() {
            first[slot / 4][slot % 4] = total as u32;
            if let EmitterSlot::Used(e) = s {
                total = (total + e.advance(dt)).min(MOST);
            }
        }
        (total as u32, first)
    }
}
