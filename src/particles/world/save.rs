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
use crate::particles::fireworks::MAX_CHILDREN_PER_RULE;
use crate::particles::view_sort::GpuView;
use crate::save::{self, check, load_error, SaveFormat, WorldKind};
use glam::Vec4;
use serde::{Deserialize, Serialize};

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
    /// xyz in m/s, w: damping.
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
    /// [`SaveFormat::Text`]: RON to read or diff), for [`ParticleWorld::load`].
    ///
    /// A GPU world first waits for the device and takes in every status read that has landed
    /// (adding to [`ParticleWorld::refused_spawns`] and [`ParticleWorld::killed_by_bounds`], as
    /// [`ParticleWorld::poll_reports`] does without clearing them), then reads the live
    /// particles back (blocking); save between steps, with every encoder holding
    /// [`ParticleWorld::encode_step`] calls submitted. The depth collider is not saved (set it
    /// again after loading).
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
                EmitterSlot::Retired { until, curves } => SavedSlot::Retired {
                    until: *until,
                    curves: curves.clone(),
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

/// `values` are finite, or an error at `path`.
fn finite_at(path: impl FnOnce() -> String, values: &[f32]) -> Result<()> {
    match values.iter().find(|v| !v.is_finite()) {
        Some(v) => Err(load_error(
            path(),
            format!("{v} is not a finite number: {FIX}"),
        )),
        None => Ok(()),
    }
}

fn finite4_at(path: impl FnOnce() -> String, v: Vec4) -> Result<()> {
    finite_at(path, &v.to_array())
}

/// A record's `kind`: its firework type names a rule (or is 0) and its emitter part a slot of
/// the table (or is 0).
fn check_kind(path: impl Fn() -> String, kind: u32, rules: usize, slots: usize) -> Result<()> {
    let firework = (kind & KIND_FIREWORK_MASK) as usize;
    if firework > rules {
        return Err(load_error(
            path(),
            format!("firework type {firework} but the world has {rules} firework rules: {FIX}"),
        ));
    }
    let slot = (kind >> KIND_CURVES_SHIFT) as usize;
    if slot > slots {
        return Err(load_error(
            path(),
            format!(
                "emitter slot {} but the emitter table has {slots} slots: {FIX}",
                slot - 1
            ),
        ));
    }
    Ok(())
}

/// A particle's or a queued spawn's record: its vectors (named as in the file), size and life.
fn check_record(
    field: &str,
    i: usize,
    vectors: [(&str, Vec4); 4],
    size: f32,
    life: &GpuLife,
    tables: (usize, usize),
) -> Result<()> {
    let at = |name: &str| format!("{field}[{i}].{name}");
    for (name, v) in vectors {
        finite4_at(|| at(name), v)?;
    }
    finite_at(|| at("size"), &[size])?;
    finite_at(|| at("life.age"), &[life.age])?;
    finite_at(|| at("life.lifetime"), &[life.lifetime])?;
    check_kind(|| at("life.kind"), life.kind, tables.0, tables.1)
}

impl SavedWorld {
    /// Checks the state as the API checks its input, naming the first bad field; returns the
    /// emitter table's slots.
    fn check(&self) -> Result<Vec<EmitterSlot>> {
        let config = self.check_config()?;
        let (rules, capacity, k) = config;
        let slots = self.check_emitters()?;
        let tables = (rules, slots.len());
        // The pool.
        let live = self.counters.live as usize;
        check::same_len("particles", self.particles.len(), "counters.live", live)?;
        if live > capacity as usize {
            return Err(load_error(
                "particles",
                format!("{live} live particles but the capacity is {capacity}: {FIX}"),
            ));
        }
        let n = self.counters.live;
        let fresh = self.counters.step_args == [0; 6] && self.counters.draw_args == [0; 4];
        let published = self.counters.step_args == [n.div_ceil(WG), 1, 1, n.div_ceil(BLOCK), 1, 1]
            && self.counters.draw_args == [6, n, 0, 0];
        if !(published || (fresh && n == 0)) {
            return Err(load_error(
                "counters.step_args",
                format!(
                    "the dispatch and draw arguments {:?} {:?} are not those of {n} live \
                     particles: {FIX}",
                    self.counters.step_args, self.counters.draw_args
                ),
            ));
        }
        for (i, p) in self.particles.iter().enumerate() {
            let vectors = [
                ("position", p.position),
                ("velocity", p.velocity),
                ("acceleration", p.acceleration),
                ("colour", p.colour),
            ];
            check_record("particles", i, vectors, p.size, &p.life, tables)?;
            check::same_len(
                &format!("particles[{i}].trail"),
                p.trail.len(),
                "config.trail_length",
                k,
            )?;
            for (j, t) in p.trail.iter().enumerate() {
                check::finite4(&format!("particles[{i}].trail"), j, &[*t])?;
            }
        }
        // The queue.
        if self.spawns.len() > capacity as usize {
            return Err(load_error(
                "spawns",
                format!(
                    "{} queued spawns but a step takes at most the capacity, {capacity}: {FIX}",
                    self.spawns.len()
                ),
            ));
        }
        let h = &self.handles;
        if h.next_id > GPU_ID_BIT {
            return Err(load_error(
                "handles.next_id",
                format!(
                    "{} is above the 2^31 host ids a world issues: {FIX}",
                    h.next_id
                ),
            ));
        }
        for (j, w) in h.live.windows(2).enumerate() {
            if w[0] >= w[1] {
                return Err(load_error(
                    format!("handles.live[{}]", j + 1),
                    format!(
                        "ids must ascend without repeats ({} then {}): {FIX}",
                        w[0], w[1]
                    ),
                ));
            }
        }
        for (j, &id) in h.live.iter().enumerate() {
            check::index("handles.live", j, id, h.next_id as usize, "host ids issued")?;
        }
        for (i, s) in self.spawns.iter().enumerate() {
            let vectors = [
                ("pos", s.pos),
                ("vel", s.vel),
                ("acc", s.acc),
                ("colour", s.colour),
            ];
            check_record("spawns", i, vectors, s.size, &s.life, tables)?;
            if s.life.id != LAUNCH_ID && h.live.binary_search(&s.life.id).is_err() {
                return Err(load_error(
                    format!("spawns[{i}].life.id"),
                    format!("{} is not a live handle (handles.live): {FIX}", s.life.id),
                ));
            }
        }
        for (i, g) in h.expiry.iter().enumerate() {
            if !(g.age.is_finite() && g.age >= 0.0) {
                return Err(load_error(
                    format!("handles.expiry[{i}].age"),
                    format!("{} is not an age (finite, >= 0): {FIX}", g.age),
                ));
            }
            for (j, &(_, l)) in g.members.iter().enumerate() {
                lifetime(|| format!("handles.expiry[{i}].members[{j}]"), l)?;
            }
        }
        for (j, &(_, l)) in h.pending_expiry.iter().enumerate() {
            lifetime(|| format!("handles.pending_expiry[{j}]"), l)?;
        }
        for (j, (s, _)) in h.ledger.iter().enumerate() {
            if *s > self.step {
                return Err(load_error(
                    format!("handles.ledger[{j}]"),
                    format!("step {s} is after the {} steps taken: {FIX}", self.step),
                ));
            }
        }
        if !(self.clock.is_finite() && self.clock >= 0.0) {
            return Err(load_error(
                "clock",
                format!("{} is not a time (finite, >= 0): {FIX}", self.clock),
            ));
        }
        if let Some(v) = &self.view {
            finite4_at(|| "view.eye".into(), v.eye)?;
            finite4_at(|| "view.forward".into(), v.forward)?;
            if v.forward.truncate() == glam::Vec3::ZERO {
                return Err(load_error(
                    "view.forward",
                    format!("a zero view direction: {FIX}"),
                ));
            }
        }
        Ok(slots)
    }

    /// The configuration's checks (those of [`ParticleWorld::new`], naming the field); returns
    /// (firework rules, capacity, trail length).
    fn check_config(&self) -> Result<(usize, u32, usize)> {
        let c = &self.config;
        let bad = |field: String| move |e: Error| load_error(field, format!("{e}"));
        if c.capacity == 0 || c.capacity >= GPU_ID_BIT {
            return Err(load_error(
                "config.capacity",
                format!(
                    "{} is not a capacity (1 to 2^31 - 1 particles): {FIX}",
                    c.capacity
                ),
            ));
        }
        if c.trail_length > MAX_TRAIL {
            return Err(load_error(
                "config.trail_length",
                format!("{} is above MAX_TRAIL ({MAX_TRAIL}): {FIX}", c.trail_length),
            ));
        }
        if !(c.contact_slop >= 0.0 && c.contact_slop.is_finite()) {
            return Err(load_error(
                "config.contact_slop",
                format!("{} is not a distance (finite, >= 0): {FIX}", c.contact_slop),
            ));
        }
        if let Some(kb) = c.kill_bounds {
            finite_at(|| "config.kill_bounds.min".into(), &kb.min.to_array())?;
            finite_at(|| "config.kill_bounds.max".into(), &kb.max.to_array())?;
        }
        if c.fields.len() > MAX_FIELDS as usize {
            return Err(load_error(
                "config.fields",
                format!(
                    "{} fields, above MAX_FIELDS ({MAX_FIELDS}): {FIX}",
                    c.fields.len()
                ),
            ));
        }
        for (i, f) in c.fields.iter().enumerate() {
            f.to_gpu().map_err(bad(format!("config.fields[{i}]")))?;
        }
        colliders_to_gpu(&c.colliders).map_err(bad("config.colliders".into()))?;
        for (i, col) in c.colliders.iter().enumerate() {
            col.to_gpu()
                .map_err(bad(format!("config.colliders[{i}]")))?;
        }
        c.fireworks
            .to_gpu()
            .map_err(bad("config.fireworks".into()))?;
        Ok((c.fireworks.rules.len(), c.capacity, c.trail_length as usize))
    }

    /// The emitter table's checks (those of `add_emitter` and `set_sub_emitter`), and its slots
    /// with each emitter's records made again from its description.
    fn check_emitters(&self) -> Result<Vec<EmitterSlot>> {
        if self.emitters.len() > MAX_EMITTERS as usize {
            return Err(load_error(
                "emitters",
                format!(
                    "{} slots, above MAX_EMITTERS ({MAX_EMITTERS}): {FIX}",
                    self.emitters.len()
                ),
            ));
        }
        let mut local_fields = 0;
        let mut ids = Vec::new();
        let mut slots = Vec::with_capacity(self.emitters.len());
        for (i, s) in self.emitters.iter().enumerate() {
            let at = |name: &str| format!("emitters[{i}].{name}");
            let bad = |name: &str| {
                let field = at(name);
                move |e: Error| load_error(field, format!("{e}"))
            };
            slots.push(match s {
                SavedSlot::Free => EmitterSlot::Free,
                SavedSlot::Retired { until, curves } => {
                    if until.is_nan() {
                        return Err(load_error(at("until"), format!("NaN: {FIX}")));
                    }
                    let c = curves;
                    for (name, keys) in [
                        ("curves.colour", &c.colour[..]),
                        ("curves.colour_t", &c.colour_t[..]),
                        ("curves.size", &c.size[..]),
                        ("curves.size_t", &c.size_t[..]),
                    ] {
                        for (j, v) in keys.iter().enumerate() {
                            check::finite4(&at(name), j, &[*v])?;
                        }
                    }
                    for j in 0..2 {
                        if c.counts[j] > MAX_CURVE_KEYS {
                            return Err(load_error(
                                format!("emitters[{i}].curves.counts[{j}]"),
                                format!(
                                    "{} keys, above MAX_CURVE_KEYS ({MAX_CURVE_KEYS}): {FIX}",
                                    c.counts[j]
                                ),
                            ));
                        }
                    }
                    EmitterSlot::Retired {
                        until: *until,
                        curves: curves.clone(),
                    }
                }
                SavedSlot::Used(e) => {
                    let gpu = e.desc.to_gpu().map_err(bad("desc"))?;
                    let curves = e.desc.curves().map_err(bad("desc"))?;
                    let rotation = e.desc.rotation.normalize();
                    for (j, f) in e.desc.fields.iter().enumerate() {
                        f.in_frame(e.desc.position, rotation)
                            .to_gpu()
                            .map_err(bad(&format!("desc.fields[{j}]")))?;
                    }
                    local_fields += e.desc.fields.len();
                    for (name, sub) in [("on_death", e.on_death), ("on_impact", e.on_impact)] {
                        if let Some((_, n)) = sub.filter(|s| s.1 > MAX_CHILDREN_PER_RULE) {
                            return Err(load_error(
                                at(name),
                                format!(
                                    "{n} children, above MAX_CHILDREN_PER_RULE \
                                     ({MAX_CHILDREN_PER_RULE}): {FIX}"
                                ),
                            ));
                        }
                    }
                    if !(e.time.is_finite() && e.time >= 0.0) {
                        return Err(load_error(
                            at("time"),
                            format!("{} is not a time (finite, >= 0): {FIX}", e.time),
                        ));
                    }
                    if ids.contains(&e.id) {
                        return Err(load_error(
                            at("id"),
                            format!("emitter id {} is used twice: {FIX}", e.id),
                        ));
                    }
                    ids.push(e.id);
                    EmitterSlot::Used(Box::new(EmitterState {
                        id: e.id,
                        desc: e.desc.clone(),
                        gpu,
                        curves,
                        on_death: e.on_death,
                        on_impact: e.on_impact,
                        active: e.active,
                        time: e.time,
                        from_rate: e.from_rate,
                    }))
                }
            });
        }
        let fields = self.config.fields.len() + local_fields;
        if fields > MAX_FIELDS as usize {
            return Err(load_error(
                "emitters",
                format!(
                    "the world's and the emitters' fields are {fields}, above MAX_FIELDS \
                     ({MAX_FIELDS}): {FIX}"
                ),
            ));
        }
        Ok(slots)
    }
}

/// A handle's lifetime: positive and finite (as `Particle::validate` holds it).
fn lifetime(path: impl FnOnce() -> String, l: f32) -> Result<()> {
    if l > 0.0 && l.is_finite() {
        Ok(())
    } else {
        Err(load_error(
            path(),
            format!("lifetime {l} is not positive and finite: {FIX}"),
        ))
    }
}
