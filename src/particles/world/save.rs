//! Saving and loading a particle world (the `serde` feature; the envelope, formats and errors
//! are [`crate::save`]'s).
//!
//! The save holds everything a step reads that an earlier step or call wrote: the configuration
//! (capacity after any growth, seed, fields, colliders, firework rules, kill bounds, trails,
//! rounding), the live particles in slot order with their trails (read back from the device on
//! the GPU), the pool counters (GPU serials, refusal totals), the queued spawns and removals, the
//! host handles with their expiry clocks and the ledger of unconfirmed spawns, the launch
//! counter, the emitter table slot by slot (descriptions, clocks, what their rates have emitted,
//! sub-emitters, retired slots' curves), the world clock and step, and the back-to-front camera.
//!
//! Not saved: the depth collider (the renderer sets it again each frame, a GPU world from its own
//! texture), GPU timing, snapshot-ring settings, and the lists of the last call's refused and
//! bound-killed handles (reports about a call, not state).
//!
//! A loaded world is a new world: handles of the saved one are refused by it. Its particles and
//! emitters keep their ids; [`ParticleWorld::particle_handle`] and
//! [`ParticleWorld::emitter_handle`] give their handles in the loaded world.

use super::*;
use crate::particles::emitter::EmitterSlot;
use crate::particles::view_sort::GpuView;
use crate::save::{self, load_error, SaveFormat, WorldKind};
use glam::Vec4;
use serde::{Deserialize, Serialize};

mod checks;

/// What a corrupt or hand-edited file's error says to do.
const FIX: &str = "the file is corrupt or was edited by hand: load an unedited save";

/// The state of a particle world, as saved.
#[derive(Serialize, Deserialize)]
struct SavedWorld {
    config: WorldConfig,
    /// Steps taken.
    step: u64,
    /// Seconds of world time (the sum of the steps).
    clock: f64,
    /// The pool counters after the last step (`live` is the length of `particles`).
    counters: GpuCounters,
    /// The live particles in slot order.
    particles: Vec<SavedParticle>,
    /// Spawns and launches queued for the next step, in queue order.
    spawns: Vec<GpuSpawnRecord>,
    /// Ids whose removal is queued for the next step.
    removals: Vec<u32>,
    handles: SavedHandles,
    /// Fireworks launched so far (the launch serial).
    launches: u32,
    /// Whether the lifecycle stages run every step.
    mortal: bool,
    /// The newest status known.
    latest: Option<Status>,
    /// The refusal total `auto_grow` has answered.
    seen_dropped: u32,
    /// The next emitter id.
    next_emitter: u32,
    /// The emitter table, slot by slot.
    emitters: Vec<SavedSlot>,
    /// The camera of the back-to-front order, when on.
    view: Option<GpuView>,
}

/// A live particle: its slot's state and trail.
#[derive(Serialize, Deserialize)]
struct SavedParticle {
    /// xyz in metres, w = 1.
    position: Vec4,
    /// xyz in m/s, w: damping (the fraction of velocity kept per second, 1 = none).
    velocity: Vec4,
    /// xyz in m/s², w: inverse mass.
    acceleration: Vec4,
    /// Age, lifetime, kind, id.
    life: GpuLife,
    colour: Vec4,
    size: f32,
    /// `trail_length` positions, in the slot's ring order.
    trail: Vec<Vec4>,
}

/// The host handles.
#[derive(Serialize, Deserialize)]
struct SavedHandles {
    /// The next host id.
    next_id: u32,
    /// Ids of the live host handles, ascending.
    live: Vec<u32>,
    /// Handles in the pool with a lifetime, grouped by the step they joined in.
    expiry: Vec<SavedExpiry>,
    /// (id, lifetime) of queued spawns with a lifetime.
    pending_expiry: Vec<(u32, f32)>,
    /// Spawns whose step's counters had not come back: (step, ids in queue order).
    ledger: Vec<(u64, Vec<u32>)>,
}

/// Handles that joined the pool in one step: their shared age and (id, lifetime), ascending by
/// (lifetime, id).
#[derive(Serialize, Deserialize)]
struct SavedExpiry {
    age: f32,
    members: Vec<(u32, f32)>,
}

/// A slot of the emitter table.
#[derive(Serialize, Deserialize)]
enum SavedSlot {
    Free,
    Used(Box<SavedEmitter>),
    /// A removed emitter whose particles may live until the world clock passes `until`.
    Retired {
        until: f64,
        curves: Box<GpuCurves>,
        /// Its particles' collision group and mask (all bits in a save from before they were).
        #[serde(default = "crate::particles::config::all_groups")]
        groups: (u32, u32),
    },
}

/// An emitter in use.
#[derive(Serialize, Deserialize)]
struct SavedEmitter {
    id: u32,
    desc: Emitter,
    /// (child emitter id, children) on death and on impact.
    on_death: Option<(u32, u32)>,
    on_impact: Option<(u32, u32)>,
    active: bool,
    /// Seconds on its clock.
    time: f64,
    /// Particles its rate has asked for so far.
    from_rate: u64,
}

impl ParticleWorld {
    /// The world's state as bytes in `format` ([`SaveFormat::Binary`]: compact;
    /// [`SaveFormat::Text`]: RON to read or diff), for [`ParticleWorld::load`]: everything the
    /// next step reads that earlier steps and calls wrote (the configuration as it is now, the
    /// live particles with their trails, the pool counters, queued spawns and removals, the host
    /// handles and their expiry, the launch counter, the emitters with their clocks and
    /// sub-emitters, the world clock and step, the view sort's camera).
    ///
    /// A GPU world first waits for the device and takes in every status read that has landed
    /// (adding to [`ParticleWorld::refused_spawns`] and [`ParticleWorld::killed_by_bounds`], as
    /// [`ParticleWorld::poll_reports`] does without clearing them), then reads the live
    /// particles back (blocking); save between steps, with every encoder holding
    /// [`ParticleWorld::encode_step`] calls submitted. Not saved: the depth collider (set it
    /// again after loading), GPU timing and snapshot tracking.
    ///
    /// ```
    /// use wgphys::glam::Vec3;
    /// use wgphys::particles::{Particle, ParticleWorld, WorldConfig};
    /// use wgphys::save::SaveFormat;
    /// use wgphys::Backend;
    /// let config = WorldConfig { capacity: 64, ..WorldConfig::default() };
    /// let mut world = ParticleWorld::new(Backend::Cpu, config)?;
    /// let ball = world.spawn(Particle::new(Vec3::Y).with_velocity(Vec3::X))?;
    /// world.step(1.0 / 60.0)?;
    /// let bytes = world.save(SaveFormat::Binary)?;
    /// let mut copy = ParticleWorld::load(Backend::Cpu, &bytes)?;
    /// // The copy is a new world: the ball's handle there comes from its id.
    /// assert!(!copy.contains(ball));
    /// let ball_copy = copy.particle_handle(ball.id()).expect("the ball is alive in the copy");
    /// world.remove(ball)?;
    /// copy.remove(ball_copy)?;
    /// world.step(1.0 / 60.0)?;
    /// copy.step(1.0 / 60.0)?;
    /// assert_eq!(world.save(SaveFormat::Binary)?, copy.save(SaveFormat::Binary)?);
    /// # Ok::<(), wgphys::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Gpu`] if the device fails; [`Error::InvalidInput`] if the state cannot be
    /// written in `format`.
    pub fn save(&mut self, format: SaveFormat) -> Result<Vec<u8>> {
        if self.is_gpu() {
            self.wait()?;
            self.take_in_reports();
        }
        let state = self.saved_state()?;
        save::encode(WorldKind::Particles, &state, format)
    }

    /// A world holding the state `bytes` saved ([`ParticleWorld::save`], either format), on
    /// `backend`. On the backend it was saved on, it continues bit-identically (the same
    /// adapter for the GPU); on the other, within the backends' usual parity.
    ///
    /// The loaded world is a new world: the saved world's handles are refused by it; its
    /// particles and emitters keep their ids ([`ParticleWorld::particle_handle`],
    /// [`ParticleWorld::emitter_handle`]). The state is checked as the API checks its input
    /// before any world is built.
    ///
    /// # Errors
    /// [`Error::Load`] naming the field for a truncated or corrupt file, a file from a newer
    /// wgphys or for another kind of world, a value the API refuses (a NaN, an index out of
    /// range, lengths that disagree, more particles than the capacity) or a configuration this
    /// backend cannot build; [`Error::Gpu`] if the device fails.
    pub fn load(backend: Backend, bytes: &[u8]) -> Result<Self> {
        let state: SavedWorld = save::decode(WorldKind::Particles, bytes)?;
        let slots = state.check()?;
        let mut world = Self::new(backend, state.config.clone()).map_err(|e| match e {
            Error::Gpu(_) => e,
            other => load_error(
                "config",
                format!("this backend cannot build the saved world: {other}"),
            ),
        })?;
        world.restore(state, slots)?;
        Ok(world)
    }

    fn saved_state(&self) -> Result<SavedWorld> {
        let k = self.config.trail_length as usize;
        let (counters, snap, trails) = match &self.engine {
            Engine::Cpu(s) => {
                let live = s.counters.live as usize;
                let trails = self.trails_cpu.get(..live * k).unwrap_or_default().to_vec();
                (s.counters, self.read_snapshot()?, trails)
            }
            Engine::Gpu(g) => {
                let counters = g.read_counters()?;
                let live = counters.live as usize;
                let snap = g.read_state(live)?;
                let trails = crate::gpu::buffer::read_vec(
                    &g.ctx.device,
                    &g.ctx.queue,
                    &g.bufs.trails,
                    live * k,
                )?;
                (counters, snap, trails)
            }
        };
        let particles = (0..snap.len())
            .map(|i| SavedParticle {
                position: snap.pos[i],
                velocity: snap.vel[i],
                acceleration: snap.acc[i],
                life: snap.life[i],
                colour: snap.colour[i],
                size: snap.size[i],
                trail: trails.get(i * k..(i + 1) * k).unwrap_or_default().to_vec(),
            })
            .collect();
        let mut live: Vec<u32> = self.outstanding.iter().copied().collect();
        live.sort_unstable();
        let expiry = self
            .expiry
            .iter()
            .map(|g| {
                let mut members: Vec<(u32, u32)> = g.members.iter().map(|r| r.0).collect();
                members.sort_unstable();
                SavedExpiry {
                    age: g.age,
                    members: members
                        .into_iter()
                        .map(|(bits, id)| (id, f32::from_bits(bits)))
                        .collect(),
                }
            })
            .collect();
        let emitters = self
            .emitters
            .iter()
            .map(|s| match s {
                EmitterSlot::Free => SavedSlot::Free,
                EmitterSlot::Used(e) => SavedSlot::Used(Box::new(SavedEmitter {
                    id: e.id,
                    desc: e.desc.clone(),
                    on_death: e.on_death,
                    on_impact: e.on_impact,
                    active: e.active,
                    time: e.time,
                    from_rate: e.from_rate,
                })),
                EmitterSlot::Retired {
                    until,
                    curves,
                    groups,
                } => SavedSlot::Retired {
                    until: *until,
                    curves: curves.clone(),
                    groups: *groups,
                },
            })
            .collect();
        Ok(SavedWorld {
            config: self.config.clone(),
            step: self.step,
            clock: self.clock,
            counters,
            particles,
            spawns: self.spawns.clone(),
            removals: self.removals.clone(),
            handles: SavedHandles {
                next_id: self.next_id,
                live,
                expiry,
                pending_expiry: self.pending_expiry.clone(),
                ledger: self.ledger.entries().cloned().collect(),
            },
            launches: self.launches,
            mortal: self.mortal,
            latest: self.latest,
            seen_dropped: self.seen_dropped,
            next_emitter: self.next_emitter,
            emitters,
            view: self.view,
        })
    }

    /// Puts `state` (checked) into this world, just built from its configuration.
    fn restore(&mut self, state: SavedWorld, slots: Vec<EmitterSlot>) -> Result<()> {
        let k = self.config.trail_length as usize;
        let live = state.particles.len();
        let ps = &state.particles;
        let pos: Vec<Vec4> = ps.iter().map(|p| p.position).collect();
        let vel: Vec<Vec4> = ps.iter().map(|p| p.velocity).collect();
        let acc: Vec<Vec4> = ps.iter().map(|p| p.acceleration).collect();
        let life: Vec<GpuLife> = ps.iter().map(|p| p.life).collect();
        let colour: Vec<Vec4> = ps.iter().map(|p| p.colour).collect();
        let size: Vec<f32> = ps.iter().map(|p| p.size).collect();
        let trails: Vec<Vec4> = ps.iter().flat_map(|p| p.trail.iter().copied()).collect();
        let counters = state.counters;
        // A GPU world's emitter boxes as the last step published them (the CPU twin computes
        // them when read; minimum and maximum are exact, so this is the device's result).
        let bounds: Vec<Vec4> = if slots.is_empty() || !self.is_gpu() {
            Vec::new()
        } else {
            let probe = CpuState {
                pos: pos.clone(),
                life: life.clone(),
                counters: GpuCounters {
                    live: live as u32,
                    ..GpuCounters::default()
                },
                ..CpuState::default()
            };
            (0..MAX_EMITTERS as usize)
                .flat_map(|slot| {
                    let (lo, hi) = crate::particles::cpu::emitter_bounds(&probe, slot);
                    [lo, hi]
                })
                .collect()
        };
        match &mut self.engine {
            Engine::Cpu(s) => {
                // `check` held the particles to the capacity the arrays were made for.
                let room = |n: usize| {
                    load_error(
                        "particles",
                        format!("{n} particles do not fit the pool: {FIX}"),
                    )
                };
                s.pos
                    .get_mut(..live)
                    .ok_or_else(|| room(live))?
                    .copy_from_slice(&pos);
                s.vel
                    .get_mut(..live)
                    .ok_or_else(|| room(live))?
                    .copy_from_slice(&vel);
                s.acc
                    .get_mut(..live)
                    .ok_or_else(|| room(live))?
                    .copy_from_slice(&acc);
                s.life
                    .get_mut(..live)
                    .ok_or_else(|| room(live))?
                    .copy_from_slice(&life);
                s.colour
                    .get_mut(..live)
                    .ok_or_else(|| room(live))?
                    .copy_from_slice(&colour);
                s.size
                    .get_mut(..live)
                    .ok_or_else(|| room(live))?
                    .copy_from_slice(&size);
                s.counters = counters;
                self.trails_cpu
                    .get_mut(..live * k)
                    .ok_or_else(|| room(live))?
                    .copy_from_slice(&trails);
            }
            Engine::Gpu(g) => {
                let ctx = g.ctx.clone();
                ctx.guard("loading a particle world", || {
                    let (q, b) = (&g.ctx.queue, &g.bufs);
                    let write = |buf: &wgpu::Buffer, bytes: &[u8]| {
                        if !bytes.is_empty() {
                            q.write_buffer(buf, 0, bytes);
                        }
                    };
                    write(&b.pos, bytemuck::cast_slice(&pos));
                    write(&b.vel, bytemuck::cast_slice(&vel));
                    write(&b.acc, bytemuck::cast_slice(&acc));
                    write(&b.life, bytemuck::cast_slice(&life));
                    write(&b.colour, bytemuck::cast_slice(&colour));
                    write(&b.size, bytemuck::cast_slice(&size));
                    write(&b.trails, bytemuck::cast_slice(&trails));
                    write(&b.counters, bytemuck::bytes_of(&counters));
                    // The next step's indirect arguments, as the last lifecycle step left them.
                    write(&b.args_step, bytemuck::cast_slice(&counters.step_args));
                    write(&b.draw_args, bytemuck::cast_slice(&counters.draw_args));
                    write(&b.emitter_bounds, bytemuck::cast_slice(&bounds));
                    Ok(())
                })?;
            }
        }
        self.step = state.step;
        self.clock = state.clock;
        self.queued_launches = state
            .spawns
            .iter()
            .filter(|s| s.life.id == LAUNCH_ID)
            .count() as u32;
        self.spawns = state.spawns;
        self.removals = state.removals;
        let h = state.handles;
        self.next_id = h.next_id;
        self.outstanding = h.live.into_iter().collect();
        self.expiry = h
            .expiry
            .into_iter()
            .map(|g| ExpiryGroup {
                age: g.age,
                members: g
                    .members
                    .into_iter()
                    .map(|(id, l)| Reverse((l.to_bits(), id)))
                    .collect(),
            })
            .collect();
        self.pending_expiry = h.pending_expiry;
        self.ledger = SpawnLedger::from_entries(h.ledger);
        self.launches = state.launches;
        self.mortal = state.mortal;
        self.latest = state.latest;
        self.seen_dropped = state.seen_dropped;
        self.next_emitter = state.next_emitter;
        self.emitters = slots;
        self.upload_emitters();
        if let Some(view) = state.view {
            if let Engine::Gpu(g) = &mut self.engine {
                g.set_view_sort(Some(view))?;
            }
            self.view = Some(view);
        }
        // The kernels the next step runs (emitters, fields), and the CPU twin's order after
        // the saved step.
        self.precompile()?;
        self.sort_cpu()
    }
}
