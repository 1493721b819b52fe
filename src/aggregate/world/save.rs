//! Saving and loading an aggregate world (the `serde` feature; the envelope is
//! [`crate::save`]).
//!
//! The saved state is what carries from one step to the next: the configuration (the CPU
//! twin's rounding included), the grid's cell size (settled by the first particles when the
//! configuration leaves it 0), every slot's position, velocity, acceleration with inverse mass,
//! radius and colour (read back from the device on the GPU), the force generators and links by
//! slot (`None` where one was removed), every slot's generation (so the loaded world reuses
//! removed slots and refuses stale handles as the saved one would), the per-particle link
//! colours `add_link` checks against, the seconds stepped (turbulence drifts with them) and the
//! steps taken. The generator CSR, the
//! coloured link order and the GPU tables are rebuilt from it, as the next step after an edit
//! would; the grid and candidate lists are rebuilt by every step and are not saved.
//!
//! Loading checks everything a world built through the API could not hold (a NaN, a link to a
//! slot that does not exist or was removed or is of another generation, arrays of different
//! lengths, more particles than slots) and refuses it as [`Error::Load`] naming the field, before any world is built.

use super::links::too_many_colours;
use super::*;
use crate::save::{check, decode, encode, load_error, SaveFormat, WorldKind};
use serde::{Deserialize, Serialize};

/// Every slot's state, slot order (`pos.len()` slots in use).
#[derive(Serialize, Deserialize)]
struct ParticlesState {
    /// Position (xyz); w = 1 alive, 0 removed.
    pos: Vec<Vec4>,
    /// Velocity (xyz), damping (w: the fraction of velocity kept per second, 1 = none).
    vel: Vec<Vec4>,
    /// Own acceleration (xyz), inverse mass (w), as the host keeps it.
    acc: Vec<Vec4>,
    /// Collision radius (0 once removed).
    radius: Vec<f32>,
    /// Colour (0 once removed).
    colour: Vec<Vec4>,
}

/// An aggregate world's saved state.
#[derive(Serialize, Deserialize)]
struct AggregateState {
    config: AggregateConfig,
    /// The collision grid's cell size (`None` without particle–particle collisions).
    grid_cell_size: Option<f32>,
    particles: ParticlesState,
    /// By [`GeneratorId`]; `None` where removed.
    generators: Vec<Option<ForceGenerator>>,
    /// By [`LinkId`]; `None` where removed.
    links: Vec<Option<Link>>,
    /// Per slot, the link colours `add_link` sees as taken.
    colour_masks: Vec<u64>,
    /// Seconds stepped.
    time: f64,
    /// Steps taken.
    steps: u64,
    /// Per table, every slot's generation (how many times it was reused).
    generations: Generations,
}

/// Every slot's generation, per table (`world/handles.rs`).
#[derive(Serialize, Deserialize)]
struct Generations {
    /// One per particle slot.
    particles: Vec<u32>,
    /// One per generator slot.
    generators: Vec<u32>,
    /// One per link slot.
    links: Vec<u32>,
}

/// The public form of a stored generator record (the inverse of `ForceGenerator::to_gpu`).
fn generator_from_gpu(g: &GpuGen, particle: impl Fn(u32) -> ParticleId) -> Option<ForceGenerator> {
    use ForceGenerator::*;
    if g.kind == 0 {
        return None;
    }
    let (a, k, anchor) = (particle(g.a), g.k, g.anchor.truncate());
    // A one-ended generator's `b` is NONE and never read.
    let b = if g.b == NONE { a } else { particle(g.b) };
    Some(match g.kind {
        1 => Spring {
            a,
            b,
            stiffness: k.x,
            rest_length: k.y,
        },
        2 => AnchoredSpring {
            particle: a,
            anchor,
            stiffness: k.x,
            rest_length: k.y,
        },
        3 => Bungee {
            a,
            b,
            stiffness: k.x,
            rest_length: k.y,
        },
        4 => AnchoredBungee {
            particle: a,
            anchor,
            stiffness: k.x,
            rest_length: k.y,
        },
        5 => Buoyancy {
            particle: a,
            max_depth: k.x,
            volume: k.y,
            water_height: k.z,
            density: k.w,
            gravity: g.anchor.x,
        },
        6 => FakeSpring {
            particle: a,
            anchor,
            stiffness: k.x,
            damping: k.z,
        },
        7 => DampedSpring {
            a,
            b,
            rest_length: k.y,
            stiffness: k.x,
            damping: k.z,
        },
        8 => AnchoredDampedSpring {
            particle: a,
            anchor,
            rest_length: k.y,
            stiffness: k.x,
            damping: k.z,
        },
        9 => Gravity {
            particle: a,
            g: anchor,
        },
        10 => Drag {
            particle: a,
            k1: k.x,
            k2: k.y,
        },
        _ => return None,
    })
}

/// The names of a generator's or link's particle fields, as its variant spells them.
fn end_names(two_ended: bool) -> (&'static str, &'static str) {
    if two_ended {
        ("a", "b")
    } else {
        ("particle", "")
    }
}

/// `id` names a slot in use that was not removed, of the slot's generation; `table[i].end`
/// names where it was read.
fn live_particle(
    table: &str,
    i: usize,
    end: &str,
    id: ParticleId,
    alive: &[bool],
    generations: &[u32],
) -> Result<()> {
    let at = |field: String| format!("{field}.{end}");
    check::index(table, i, id.index, alive.len(), "particle slots").map_err(|e| match e {
        Error::Load { field, reason } => load_error(at(field), reason),
        other => other,
    })?;
    if !alive[id.index as usize] {
        return Err(load_error(
            at(format!("{table}[{i}]")),
            format!(
                "particle {} was removed: a generator or link can only name a live particle",
                id.index
            ),
        ));
    }
    let slot = generations[id.index as usize];
    if id.generation != slot {
        return Err(load_error(
            at(format!("{table}[{i}]")),
            format!(
                "particle {} of generation {}, but its slot is of generation {slot}: the file \
                 is corrupt",
                id.index, id.generation
            ),
        ));
    }
    Ok(())
}

/// An API check's refusal as a load error at `field`.
fn refused(field: String, e: Error) -> Error {
    load_error(field, e.to_string())
}

impl AggregateState {
    /// Checks the state as the API would have, before any world is built; returns the alive
    /// flags.
    fn check(&self) -> Result<Vec<bool>> {
        let p = &self.particles;
        let n = p.pos.len();
        check::same_len("particles.vel", p.vel.len(), "particles.pos", n)?;
        check::same_len("particles.acc", p.acc.len(), "particles.pos", n)?;
        check::same_len("particles.radius", p.radius.len(), "particles.pos", n)?;
        check::same_len("particles.colour", p.colour.len(), "particles.pos", n)?;
        let capacity = self.config.capacity as usize;
        if n > capacity {
            return Err(load_error(
                "particles.pos",
                format!(
                    "{n} particles but config.capacity is {capacity}: the file is corrupt (a \
                     world never holds more particles than slots)"
                ),
            ));
        }
        let mut alive = Vec::with_capacity(n);
        for i in 0..n {
            check::finite4("particles.pos", i, &[p.pos[i]])?;
            check::finite4("particles.vel", i, &[p.vel[i]])?;
            check::finite4("particles.acc", i, &[p.acc[i]])?;
            check::finite("particles.radius", i, &[p.radius[i]])?;
            check::finite4("particles.colour", i, &[p.colour[i]])?;
            let live = p.pos[i].w == 1.0;
            if !live && p.pos[i].w != 0.0 {
                return Err(load_error(
                    format!("particles.pos[{i}].w"),
                    format!("{}: the alive flag is 1 (alive) or 0 (removed)", p.pos[i].w),
                ));
            }
            if !(0.0..=1.0).contains(&p.vel[i].w) {
                return Err(load_error(
                    format!("particles.vel[{i}].w"),
                    format!(
                        "damping {} is outside [0, 1] (the fraction of velocity kept per second)",
                        p.vel[i].w
                    ),
                ));
            }
            if p.acc[i].w < 0.0 {
                return Err(load_error(
                    format!("particles.acc[{i}].w"),
                    format!("inverse mass {} is negative", p.acc[i].w),
                ));
            }
            if p.radius[i] < 0.0 {
                return Err(load_error(
                    format!("particles.radius[{i}]"),
                    format!("radius {} is negative", p.radius[i]),
                ));
            }
            // What `remove_particle` leaves in a removed slot.
            if !live && (p.acc[i].w != 0.0 || p.radius[i] != 0.0 || p.colour[i] != Vec4::ZERO) {
                return Err(load_error(
                    format!("particles[{i}]"),
                    "a removed particle (pos.w = 0) keeps inverse mass, radius and colour 0: \
                     the file is corrupt",
                ));
            }
            alive.push(live);
        }
        if !(self.time.is_finite() && self.time >= 0.0) {
            return Err(load_error(
                "time",
                format!("{} is not a finite number of seconds >= 0", self.time),
            ));
        }
        if !(self.config.contact_slop.is_finite() && self.config.contact_slop >= 0.0) {
            return Err(load_error(
                "config.contact_slop",
                format!("{} is not a finite distance >= 0", self.config.contact_slop),
            ));
        }
        match (self.config.collisions, self.grid_cell_size) {
            (None, None) => {}
            (Some(c), Some(cell)) => {
                if !(cell.is_finite() && cell > 0.0 && (1.0 / cell).is_finite()) {
                    return Err(load_error(
                        "grid_cell_size",
                        format!("{cell} is not a finite cell size > 0"),
                    ));
                }
                if c.cell_size > 0.0 && c.cell_size != cell {
                    return Err(load_error(
                        "grid_cell_size",
                        format!(
                            "{cell}, but config.collisions.cell_size fixes it at {}",
                            c.cell_size
                        ),
                    ));
                }
                if let Some(i) = (0..n).find(|&i| 2.0 * p.radius[i] > cell) {
                    return Err(load_error(
                        format!("particles.radius[{i}]"),
                        format!(
                            "radius {} is more than half the grid cell {cell}",
                            p.radius[i]
                        ),
                    ));
                }
            }
            (c, _) => {
                return Err(load_error(
                    "grid_cell_size",
                    format!(
                        "{} while config.collisions is {}: the file is corrupt",
                        if self.grid_cell_size.is_some() {
                            "set"
                        } else {
                            "missing"
                        },
                        if c.is_some() { "set" } else { "None" }
                    ),
                ));
            }
        }
        let gens = &self.generations;
        for (field, len, slots, of) in [
            (
                "generations.particles",
                gens.particles.len(),
                n,
                "particles.pos",
            ),
            (
                "generations.generators",
                gens.generators.len(),
                self.generators.len(),
                "generators",
            ),
            (
                "generations.links",
                gens.links.len(),
                self.links.len(),
                "links",
            ),
        ] {
            check::same_len(field, len, of, slots)?;
        }
        for (i, g) in self.generators.iter().enumerate() {
            let Some(g) = g else { continue };
            let (a, b) = g.particles();
            let (na, nb) = end_names(b.is_some());
            live_particle("generators", i, na, a, &alive, &gens.particles)?;
            if let Some(b) = b {
                live_particle("generators", i, nb, b, &alive, &gens.particles)?;
            }
            g.to_gpu()
                .map_err(|e| refused(format!("generators[{i}]"), e))?;
        }
        for (i, l) in self.links.iter().enumerate() {
            let Some(l) = l else { continue };
            let (a, b) = l.particles();
            let (na, nb) = end_names(b.is_some());
            live_particle("links", i, na, a, &alive, &gens.particles)?;
            if let Some(b) = b {
                live_particle("links", i, nb, b, &alive, &gens.particles)?;
            }
            l.to_gpu().map_err(|e| refused(format!("links[{i}]"), e))?;
        }
        // The greedy colouring every step's tables are built with (`rebuild_tables`): a set of
        // links no step could colour is refused at the first link that needs a colour too many.
        let mut used = vec![0u64; n];
        for (i, l) in self.links.iter().enumerate() {
            let Some((a, b)) = l.map(|l| l.particles()) else {
                continue;
            };
            let (a, b) = (a.index as usize, b.map(|b| b.index as usize));
            let mask = used[a] | b.map_or(0, |b| used[b]);
            let c = (!mask).trailing_zeros();
            if c >= MAX_COLOURS {
                return Err(refused(format!("links[{i}]"), too_many_colours()));
            }
            used[a] |= 1 << c;
            if let Some(b) = b {
                used[b] |= 1 << c;
            }
        }
        if self.colour_masks.len() > n {
            return Err(load_error(
                "colour_masks",
                format!(
                    "{} entries for {n} particle slots: the file is corrupt",
                    self.colour_masks.len()
                ),
            ));
        }
        for (field, len) in [
            ("generators", self.generators.len()),
            ("links", self.links.len()),
        ] {
            if len > u32::MAX as usize {
                return Err(load_error(
                    field,
                    format!("{len} entries: ids are 32-bit, at most {}", u32::MAX),
                ));
            }
        }
        Ok(alive)
    }
}

impl AggregateWorld {
    /// The world's full state in `format` (see [`crate::save`]): the configuration,
    /// every particle slot (read back from the device on the GPU, blocking), the force
    /// generators and links by id, and what carries from one step to the next. Load it with
    /// [`AggregateWorld::load`] on either backend; on the same backend the loaded world
    /// continues bit for bit as this one does. On the GPU, submit the encoders given to
    /// [`AggregateWorld::encode_step`] first: the device's state is read as of the last submit.
    /// A world whose state is no longer finite (a blown-up simulation) saves, but does not
    /// load.
    ///
    /// ```
    /// use wgphys::aggregate::{AggregateConfig, AggregateWorld, Link};
    /// use wgphys::glam::Vec3;
    /// use wgphys::particles::Particle;
    /// use wgphys::save::SaveFormat;
    /// use wgphys::Backend;
    /// let mut world = AggregateWorld::new(Backend::Cpu, AggregateConfig::default())?;
    /// let p = world.add_particle(Particle::new(Vec3::ZERO))?;
    /// let rope = world.add_link(Link::AnchoredCable {
    ///     particle: p,
    ///     anchor: Vec3::Y,
    ///     max_length: 2.0,
    ///     restitution: 0.2,
    /// })?;
    /// world.step(1.0 / 60.0)?;
    /// let bytes = world.save(SaveFormat::Binary)?;
    /// let mut copy = AggregateWorld::load(Backend::Cpu, &bytes)?;
    /// // The copy is another world: the saved world's handles are found again by slot.
    /// assert!(copy.remove_link(rope).is_err());
    /// let copy_rope = copy.link_handle_at(rope.index()).expect("the rope's slot");
    /// copy.remove_link(copy_rope)?;
    /// world.remove_link(rope)?;
    /// world.step(1.0 / 60.0)?;
    /// copy.step(1.0 / 60.0)?;
    /// assert_eq!(world.read_snapshot()?, copy.read_snapshot()?);
    /// # Ok::<(), wgphys::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Gpu`] when the readback fails.
    pub fn save(&mut self, format: SaveFormat) -> Result<Vec<u8>> {
        let n = self.n as usize;
        let (pos, vel, radius, colour) = match &self.engine {
            Engine::Cpu(s) => (
                s.pos[..n].to_vec(),
                s.vel[..n].to_vec(),
                s.radius[..n].to_vec(),
                s.colour[..n].to_vec(),
            ),
            Engine::Gpu(g) => {
                let (pos, vel) = g.read(n)?;
                let (d, q) = (&g.ctx.device, &g.ctx.queue);
                (
                    pos,
                    vel,
                    crate::gpu::buffer::read_vec(d, q, &g.radius, n)?,
                    crate::gpu::buffer::read_vec(d, q, &g.colour, n)?,
                )
            }
        };
        let state = AggregateState {
            config: self.config.clone(),
            grid_cell_size: self.grid_spec.map(|s| s.cell_size),
            particles: ParticlesState {
                pos,
                vel,
                acc: self.acc.clone(),
                radius,
                colour,
            },
            generators: self
                .gens
                .iter()
                .map(|g| generator_from_gpu(g, |i| self.particle_at(i)))
                .collect(),
            links: self
                .links
                .iter()
                .map(|l| {
                    l.as_ref()
                        .map(|l| links::link_from_gpu(l, |i| self.particle_at(i)))
                })
                .collect(),
            colour_masks: self.colour_masks.clone(),
            time: self.time,
            steps: self.steps,
            generations: Generations {
                particles: self.particle_slots.generations.clone(),
                generators: self.gen_slots.generations.clone(),
                links: self.link_slots.generations.clone(),
            },
        };
        encode(WorldKind::Aggregate, &state, format)
    }

    /// A world from [`AggregateWorld::save`]'s bytes (either format), on `backend` (not
    /// necessarily the one that saved it). The loaded world is a new world: the saved world's
    /// handles are refused by it ([`Error::StaleHandle`]), and every item keeps its slot and
    /// generation, so [`AggregateWorld::particle_handle_at`],
    /// [`AggregateWorld::generator_handle_at`] and [`AggregateWorld::link_handle_at`] with a
    /// saved handle's [`index`](ParticleId::index) give the loaded world's handle of the same
    /// item (a handle read back with serde is found again the same way). On the backend that saved it the
    /// loaded world continues bit for bit; on the other, within the two backends' usual
    /// difference.
    ///
    /// # Errors
    /// [`Error::Load`] naming the field for a truncated or corrupt file, a file from a newer
    /// version or for another kind of world, or state no world could hold (a NaN, a link to a
    /// slot that does not exist, more particles than slots); GPU or memory errors from building
    /// the world.
    pub fn load(backend: Backend, bytes: &[u8]) -> Result<Self> {
        let state: AggregateState = decode(WorldKind::Aggregate, bytes)?;
        let alive = state.check()?;
        let mut w = Self::new(backend, state.config.clone()).map_err(|e| match e {
            Error::InvalidCapacity { .. } => refused("config.capacity".into(), e),
            Error::TooManyFields { .. } => refused("config.fields".into(), e),
            Error::TooMany { .. } => refused("config.colliders".into(), e),
            Error::InvalidInput { what, .. } => refused(format!("config.{what}"), e),
            other => other,
        })?;
        if let (Some(spec), Some(cell)) = (&mut w.grid_spec, state.grid_cell_size) {
            if spec.cell_size != cell {
                spec.cell_size = cell;
                if let Engine::Gpu(g) = &mut w.engine {
                    g.set_grid_spec(*spec)?;
                }
            }
        }
        let p = state.particles;
        let n = p.pos.len();
        match &mut w.engine {
            Engine::Cpu(s) => {
                s.pos[..n].copy_from_slice(&p.pos);
                s.vel[..n].copy_from_slice(&p.vel);
                s.acc[..n].copy_from_slice(&p.acc);
                s.radius[..n].copy_from_slice(&p.radius);
                s.colour[..n].copy_from_slice(&p.colour);
            }
            Engine::Gpu(g) => {
                // `kill` zeroes a removed slot's whole acceleration on the device; the host
                // keeps its own (the count of own accelerations includes it).
                let acc: Vec<Vec4> = p
                    .acc
                    .iter()
                    .zip(&alive)
                    .map(|(a, &live)| if live { *a } else { Vec4::ZERO })
                    .collect();
                if n > 0 {
                    g.write_particles(0, &p.pos, &p.vel, &acc, &p.radius, &p.colour);
                }
                g.write_draw_args(n as u32);
            }
        }
        w.n = n as u32;
        w.alive = alive;
        w.own_accelerations = p.acc.iter().filter(|a| has_own_acceleration(**a)).count();
        w.acc = p.acc;
        w.gens = state
            .generators
            .iter()
            .map(|g| g.map_or(Ok(GpuGen::default()), ForceGenerator::to_gpu))
            .collect::<Result<_>>()?;
        w.links = state
            .links
            .iter()
            .map(|l| l.map(Link::to_gpu).transpose())
            .collect::<Result<_>>()?;
        // Builds the tables (the colouring was checked), then keeps them stale as after an
        // edit: the next step rebuilds and uploads them, as the saved world's would, and until
        // then `add_link` sees the saved colours.
        w.rebuild_tables().map_err(|e| refused("links".into(), e))?;
        w.colour_masks = state.colour_masks;
        w.dirty = true;
        w.time = state.time;
        w.steps = state.steps;
        let gens = state.generations;
        w.particle_slots = handles::Slots::restore(gens.particles, w.alive.iter().map(|&a| !a));
        w.gen_slots = handles::Slots::restore(gens.generators, w.gens.iter().map(|g| g.kind == 0));
        w.link_slots = handles::Slots::restore(gens.links, w.links.iter().map(Option::is_none));
        Ok(w)
    }
}
