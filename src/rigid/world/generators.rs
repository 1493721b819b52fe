//! The world's force generators (stage `generators`, see [`crate::rigid::generators`]):
//! attaching and removing them, changing a control, the wind, an anchor, a surface's
//! orientation or the water height between steps, and the upload before a step. The host owns
//! every record: an edit writes that record alone; a change of the set (or of the body count)
//! rebuilds the per-body index and writes it whole. The slots grow like the joints' (with
//! `auto_grow`, else [`Error::Full`]).

use super::*;
use crate::rigid::generators::{
    build_index, check_control, check_orientation, ForceGen, ForceGenHandle,
};
use crate::rigid::types::GpuForceGen;

/// The generator slots of a world, host side.
#[derive(Default)]
pub(super) struct GeneratorTable {
    /// The records in slot order (kind 0: a free slot).
    pub(super) records: Vec<GpuForceGen>,
    /// What each live slot was made from (its handles, for reading back).
    pub(super) described: Vec<Option<ForceGen>>,
    pub(super) generations: Vec<u32>,
    pub(super) free: Vec<u32>,
    /// Slots on the device.
    pub(super) capacity: u32,
    /// The per-body index ([`build_index`]) as of the last upload.
    pub(super) index: Vec<u32>,
    /// The set changed: rebuild and write the index (and every record) before the next step.
    pub(super) dirty: bool,
    /// Records edited since the last upload.
    pub(super) edited: Vec<u32>,
    /// The device buffer the records were last written to (a rebuilt backend has new, empty
    /// buffers, which get everything again).
    pub(super) uploaded_to: Option<wgpu::Buffer>,
}

impl GeneratorTable {
    pub(super) fn new(capacity: u32) -> Self {
        Self {
            capacity,
            ..Self::default()
        }
    }

    /// Whether a generator is attached (the step then runs the `generators` stage).
    pub(super) fn any(&self) -> bool {
        self.described.iter().any(Option::is_some)
    }

    fn live(&self) -> usize {
        self.described.iter().filter(|d| d.is_some()).count()
    }
}

fn gen_offset(i: u32) -> u64 {
    u64::from(i) * std::mem::size_of::<GpuForceGen>() as u64
}

impl RigidWorld {
    /// Attaches a force generator (see [`ForceGen`] for the kinds) and wakes the bodies it acts
    /// on. It acts every substep on its bodies while they are awake and dynamic; removing a
    /// body removes the generators that act on it (their handles then go stale).
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed body or another world's; [`Error::InvalidInput`]
    /// naming a bad value (NaN anywhere, a control outside [−1, 1], a maximum depth, volume or
    /// density that is not positive, a negative stiffness, a spring from a body to itself);
    /// [`Error::Full`] when the slots are full and `auto_grow` is off. Nothing changes on an
    /// error.
    pub fn add_force_generator(&mut self, generator: ForceGen) -> Result<ForceGenHandle> {
        self.on_device("adding a force generator", |w| {
            w.add_generator_unguarded(generator)
        })
    }

    pub(super) fn generator_record(&self, generator: &ForceGen) -> Result<GpuForceGen> {
        let (a, b) = generator.bodies();
        let ia = self.check(a)?;
        let ib = match b {
            Some(b) => Some(self.check(b)?),
            None => None,
        };
        if ib == Some(ia) {
            return Err(Error::InvalidInput {
                what: "spring bodies",
                value: format!("body {ia} to itself"),
                fix: "join two different bodies, or use ForceGen::anchored_spring for a spring \
                      to a point in the world",
            });
        }
        let g = self.config.gravity.length();
        let mut record = generator.to_gpu(ia as u32, ib.map(|i| i as u32), g)?;
        // Points given in a body's frame are taken from its centre of mass (`rigid::mass`):
        // every kind's `point_a` is on body a; a two-body spring's `point_b` is on body b.
        record.point_a -= self.centre_at(ia).extend(0.0);
        if let Some(ib) = ib {
            if record.kind == force_gen_kind::SPRING {
                record.point_b -= self.centre_at(ib).extend(0.0);
            }
        }
        Ok(record)
    }

    fn add_generator_unguarded(&mut self, generator: ForceGen) -> Result<ForceGenHandle> {
        let record = self.generator_record(&generator)?;
        let t = &self.generators;
        let index = t.free.last().copied().unwrap_or(t.records.len() as u32);
        if index >= t.capacity {
            self.grow_generators(index + 1)?;
        }
        let t = &mut self.generators;
        t.free.pop();
        let i = index as usize;
        if i == t.records.len() {
            t.records.push(record);
            t.described.push(Some(generator));
            t.generations.push(0);
        } else {
            t.records[i] = record;
            t.described[i] = Some(generator);
            t.generations[i] = t.generations[i].wrapping_add(1);
        }
        t.dirty = true;
        self.wake_generator_bodies(&record);
        Ok(ForceGenHandle {
            index,
            generation: self.generators.generations[i],
            world: self.tag,
        })
    }

    /// Grows the generator slots to at least `need` (a power of two, at least 16) when
    /// `auto_grow` is on; on the GPU the backend is rebuilt and every generator written again.
    fn grow_generators(&mut self, need: u32) -> Result<()> {
        if !self.config.auto_grow {
            return Err(Error::Full {
                what: "force generators (RigidConfig::generator_capacity)",
                capacity: self.generators.capacity,
            });
        }
        let before = self.generators.capacity;
        self.generators.capacity = need.clamp(16, 1 << 31).next_power_of_two();
        let (bodies, shapes, pairs) = (self.body_capacity, self.shape_capacity, self.pair_capacity);
        if let Err(e) = self.regrow(bodies, shapes, pairs) {
            self.generators.capacity = before;
            return Err(e);
        }
        Ok(())
    }

    fn check_generator(&self, h: ForceGenHandle) -> Result<usize> {
        let i = h.index as usize;
        let t = &self.generators;
        if h.world == self.tag
            && t.described.get(i).is_some_and(Option::is_some)
            && t.generations[i] == h.generation
        {
            Ok(i)
        } else {
            Err(Error::StaleHandle {
                kind: "force generator",
                id: h.index,
            })
        }
    }

    /// Whether `h` names a live force generator of this world.
    pub fn contains_force_generator(&self, h: ForceGenHandle) -> bool {
        self.check_generator(h).is_ok()
    }

    /// Live force generators.
    pub fn force_generator_count(&self) -> usize {
        self.generators.live()
    }

    /// Force-generator slots now: `RigidConfig::generator_capacity`, or more after `auto_grow`.
    pub fn force_generator_capacity(&self) -> u32 {
        self.generators.capacity
    }

    /// The generator as last set (its control, wind, anchor, water height).
    ///
    /// # Errors
    /// [`Error::StaleHandle`].
    pub fn force_generator(&self, h: ForceGenHandle) -> Result<ForceGen> {
        let i = self.check_generator(h)?;
        self.generators.described[i].ok_or(Error::StaleHandle {
            kind: "force generator",
            id: h.index,
        })
    }

    /// Removes a force generator and wakes its bodies; its slot is reused later.
    ///
    /// # Errors
    /// [`Error::StaleHandle`].
    pub fn remove_force_generator(&mut self, h: ForceGenHandle) -> Result<()> {
        let i = self.check_generator(h)?;
        let record = self.generators.records[i];
        self.free_generator(i);
        self.wake_generator_bodies(&record);
        Ok(())
    }

    fn free_generator(&mut self, i: usize) {
        let t = &mut self.generators;
        t.records[i] = GpuForceGen::default();
        t.described[i] = None;
        t.free.push(i as u32);
        t.dirty = true;
    }

    /// Removes the generators acting on body slot `body` (the body is being removed).
    pub(super) fn remove_generators_of(&mut self, body: u32) {
        for i in 0..self.generators.records.len() {
            let r = &self.generators.records[i];
            if r.kind != 0 && (r.body_a == body || r.body_b == body) {
                self.free_generator(i);
            }
        }
    }

    /// Wakes the bodies `r` acts on, skipping those that never sleep (nothing to write: a
    /// wave that moves the water under ten thousand boats every step then writes only their
    /// generators).
    fn wake_generator_bodies(&mut self, r: &GpuForceGen) {
        for b in [r.body_a, r.body_b] {
            let i = b as usize;
            if self
                .bodies
                .get(i)
                .is_some_and(|x| x.can_sleep != 0 || x.awake == 0)
            {
                self.wake_index(i);
            }
        }
    }

    /// Replaces a generator's description by `generator` (same handle; it may change kind or
    /// bodies) and wakes its bodies, old and new.
    ///
    /// # Errors
    /// As [`RigidWorld::add_force_generator`]; [`Error::StaleHandle`] for `h`. Nothing
    /// changes on an error.
    pub fn set_force_generator(&mut self, h: ForceGenHandle, generator: ForceGen) -> Result<()> {
        let i = self.check_generator(h)?;
        let record = self.generator_record(&generator)?;
        let old = self.generators.records[i];
        let t = &mut self.generators;
        if (old.body_a, old.body_b) != (record.body_a, record.body_b) {
            t.dirty = true;
        }
        t.records[i] = record;
        t.described[i] = Some(generator);
        t.edited.push(i as u32);
        self.wake_generator_bodies(&old);
        self.wake_generator_bodies(&record);
        Ok(())
    }

    /// Edits one generator's description with `edit` (which may refuse it) and writes it.
    fn edit_generator(
        &mut self,
        h: ForceGenHandle,
        edit: impl FnOnce(&mut ForceGen) -> Result<()>,
    ) -> Result<()> {
        let i = self.check_generator(h)?;
        let Some(mut g) = self.generators.described[i] else {
            return Err(Error::StaleHandle {
                kind: "force generator",
                id: h.index,
            });
        };
        edit(&mut g)?;
        self.set_force_generator(h, g)
    }

    /// Sets an `AeroControl` surface's control (−1: the min tensor, 0: the base, 1: the max)
    /// and wakes its body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a control outside [−1, 1] (NaN
    /// included) or a generator of another kind.
    pub fn set_generator_control(&mut self, h: ForceGenHandle, control: f32) -> Result<()> {
        check_control(control)?;
        self.edit_generator(h, |g| match g {
            ForceGen::AeroControl { control: c, .. } => {
                *c = control;
                Ok(())
            }
            _ => Err(wrong_kind(
                "set_generator_control",
                "pass the handle of a ForceGen::AeroControl",
            )),
        })
    }

    /// Sets the wind (the air's velocity in the world) of an aerodynamic generator and wakes
    /// its body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite wind or a generator
    /// that is not aerodynamic.
    pub fn set_generator_wind(&mut self, h: ForceGenHandle, wind: Vec3) -> Result<()> {
        crate::error::finite3("wind", wind)?;
        self.edit_generator(h, |g| match g {
            ForceGen::Aero { wind: w, .. }
            | ForceGen::AeroControl { wind: w, .. }
            | ForceGen::AngledAero { wind: w, .. } => {
                *w = wind;
                Ok(())
            }
            _ => Err(wrong_kind(
                "set_generator_wind",
                "pass the handle of an aerodynamic generator (Aero, AeroControl, AngledAero)",
            )),
        })
    }

    /// Moves an anchored spring's anchor (the book's camera spring) and wakes its body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite anchor or a generator
    /// of another kind.
    pub fn set_generator_anchor(&mut self, h: ForceGenHandle, anchor: Vec3) -> Result<()> {
        crate::error::finite3("anchored spring anchor", anchor)?;
        self.edit_generator(h, |g| match g {
            ForceGen::AnchoredSpring { anchor: a, .. } => {
                *a = anchor;
                Ok(())
            }
            _ => Err(wrong_kind(
                "set_generator_anchor",
                "pass the handle of a ForceGen::AnchoredSpring",
            )),
        })
    }

    /// Turns an `AngledAero` surface (its rotation relative to the body) and wakes its body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a zero or non-finite quaternion or
    /// a generator of another kind.
    pub fn set_generator_orientation(&mut self, h: ForceGenHandle, q: glam::Quat) -> Result<()> {
        check_orientation(q)?;
        self.edit_generator(h, |g| match g {
            ForceGen::AngledAero { orientation, .. } => {
                *orientation = q;
                Ok(())
            }
            _ => Err(wrong_kind(
                "set_generator_orientation",
                "pass the handle of a ForceGen::AngledAero",
            )),
        })
    }

    /// Sets a thrust's force (body frame: a throttle) and wakes its body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite force or a generator
    /// of another kind.
    pub fn set_generator_thrust(&mut self, h: ForceGenHandle, force: Vec3) -> Result<()> {
        crate::error::finite3("thrust force", force)?;
        self.edit_generator(h, |g| match g {
            ForceGen::Thrust { force: f, .. } => {
                *f = force;
                Ok(())
            }
            _ => Err(wrong_kind(
                "set_generator_thrust",
                "pass the handle of a ForceGen::Thrust",
            )),
        })
    }

    /// Sets a buoyancy generator's water height (waves: a height per generator, changed
    /// between steps) and wakes its body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite height or a generator
    /// of another kind.
    pub fn set_generator_water_height(&mut self, h: ForceGenHandle, height: f32) -> Result<()> {
        crate::error::finite("water height", height)?;
        self.edit_generator(h, |g| match g {
            ForceGen::Buoyancy { water_height, .. } => {
                *water_height = height;
                Ok(())
            }
            _ => Err(wrong_kind(
                "set_generator_water_height",
                "pass the handle of a ForceGen::Buoyancy",
            )),
        })
    }

    /// Before a step: rebuilds the index if the set or the body count changed, and on the GPU
    /// writes what changed (everything to a rebuilt backend).
    pub(super) fn upload_generators(&mut self) {
        let bodies = self.bodies.len() as u32;
        let t = &mut self.generators;
        if !t.any() && t.index.is_empty() {
            return;
        }
        let rebuild = t.dirty || t.index.first() != Some(&bodies);
        if rebuild {
            t.index = if t.any() {
                build_index(&t.records, bodies)
            } else {
                Vec::new()
            };
        }
        if let Engine::Gpu(g) = &self.engine {
            let r = &g.rigid;
            let fresh = t.uploaded_to.as_ref() != Some(&r.force_gens);
            if fresh || t.dirty {
                r.write(&r.force_gens, &t.records);
            } else {
                // One write per run of edited slots (gaps of up to 4 unedited records are
                // written along: one copy costs more than a few records).
                t.edited.sort_unstable();
                t.edited.dedup();
                let mut k = 0;
                while k < t.edited.len() {
                    let first = t.edited[k];
                    let mut last = first;
                    while k + 1 < t.edited.len() && t.edited[k + 1] <= last + 5 {
                        k += 1;
                        last = t.edited[k];
                    }
                    let run = &t.records[first as usize..=last as usize];
                    r.write_at(&r.force_gens, gen_offset(first), run);
                    k += 1;
                }
            }
            if fresh || rebuild {
                // An empty set writes a zero count, which the stage reads as "no generators".
                let index = if t.index.is_empty() {
                    vec![0]
                } else {
                    t.index.clone()
                };
                r.write(&r.generator_index, &index);
            }
            t.uploaded_to = Some(r.force_gens.clone());
        }
        t.dirty = false;
        t.edited.clear();
    }
}

fn wrong_kind(call: &'static str, wants: &'static str) -> Error {
    Error::InvalidInput {
        what: call,
        value: "a force generator of another kind".into(),
        fix: wants,
    }
}
