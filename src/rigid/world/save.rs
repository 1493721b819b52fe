//! Saving and loading a rigid world (the `serde` feature; the formats are [`crate::save`]'s).
//!
//! The state is everything a step reads that earlier calls or steps wrote: the body, shape,
//! joint and generator tables with their free slots and generations, the hull store, the broad
//! phase's plan, the capacities as grown, the step count, a running explosion, fractures not
//! yet handed out, and the last step's manifolds with their warm-start impulses (and, from the
//! GPU, the step counters). On the GPU the device's bodies, joints, counters and manifolds are
//! read back first (blocking), after the reports in flight have landed.
//!
//! A loaded world has a tag of its own: handles of the saved world are not its handles. Its
//! slots and generations are the saved ones, so [`RigidWorld::body_handle_at`] gives the handle
//! of the body in a slot a saved handle named ([`BodyHandle::index`]).

use super::*;
use crate::rigid::fracture::FractureEvent;
use crate::rigid::generators::ForceGen;
use crate::rigid::hull::HullStore;
use crate::rigid::joint::JointHandle;
use crate::rigid::mass::{MassSpec, ShapeMass};
use crate::save::{check, decode, encode, load_error, SaveFormat, WorldKind};
use glam::UVec4;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct RigidState {
    config: RigidConfig,
    capacity: Capacities,
    steps: u64,
    report: RigidStepReport,
    bodies: Vec<GpuBody>,
    generations: Vec<u32>,
    alive: Vec<bool>,
    free_bodies: Vec<u32>,
    forced: Vec<u32>,
    impulses: Vec<(u32, u32, Vec3, Vec3)>,
    contact_events: bool,
    kinematic_queued: Vec<(u32, u32, Vec3, Vec4)>,
    kinematic_moving: Vec<(u32, u32, Vec3, Vec4)>,
    contact_events_pending: Vec<(u64, [u32; 2])>,
    body_shapes: Vec<Vec<u32>>,
    shapes: Vec<GpuShape>,
    free_shapes: Vec<u32>,
    shape_generations: Vec<u32>,
    shape_mass: Vec<ShapeMass>,
    mass_specs: Vec<MassSpec>,
    hulls: Vec<UVec4>,
    /// The meshes and heightfields stored in `hulls`, as they were cooked.
    level: Vec<level::SavedLevel>,
    cell_size: f32,
    large: Vec<u32>,
    explosion: Option<(Explosion, f32)>,
    joints: Joints,
    generators: Generators,
    fracture: Fractures,
    warm: Warm,
}

#[derive(Serialize, Deserialize)]
struct Capacities {
    bodies: u32,
    shapes: u32,
    pairs: u32,
    large: u32,
    joints: u32,
    generators: u32,
    colour_slots: u32,
    colour_slots_since: u64,
}

#[derive(Serialize, Deserialize)]
struct Joints {
    table: Vec<GpuJoint>,
    generations: Vec<u32>,
    alive: Vec<bool>,
    free: Vec<u32>,
    broken: Vec<JointHandle>,
    reported: Vec<bool>,
    scan: bool,
}

#[derive(Serialize, Deserialize)]
struct Generators {
    records: Vec<GpuForceGen>,
    described: Vec<Option<ForceGen>>,
    generations: Vec<u32>,
    free: Vec<u32>,
}

#[derive(Serialize, Deserialize)]
struct Fractures {
    burst: Vec<Option<f32>>,
    pending: Vec<(u64, FractureEvent)>,
    scan: bool,
    done: Vec<Fracture>,
}

/// What carries from the last step into the next: its manifolds (the next step's warm start
/// searches them) and, from the GPU, its counters (empty from the CPU).
#[derive(Serialize, Deserialize)]
struct Warm {
    manifolds: Vec<GpuManifold>,
    counters: Vec<u32>,
}

impl RigidWorld {
    /// The world's whole state in `format` (see [`crate::save`]); [`RigidWorld::load`] builds
    /// a world that continues from it bit-identically on the same backend and adapter. On the
    /// GPU it waits for the device and reads its state back.
    ///
    /// # Errors
    /// GPU readback errors; for [`SaveFormat::Text`], a non-finite value (which only binary
    /// holds).
    pub fn save(&mut self, format: SaveFormat) -> Result<Vec<u8>> {
        let state = self.on_device("saving a rigid world", |w| w.state())?;
        encode(WorldKind::Rigid, &state, format)
    }

    /// A world built from a save of [`RigidWorld::save`] (either format), on `backend`: the
    /// same slots, generations and state, checked like a world built through the API.
    ///
    /// # Errors
    /// [`Error::Load`] naming the field for a truncated, corrupt or newer file, a file of
    /// another kind of world, or a value a world refuses (a NaN, an index out of range);
    /// errors of [`RigidWorld::new`] for the saved configuration on this backend.
    pub fn load(backend: Backend, bytes: &[u8]) -> Result<Self> {
        let s: RigidState = decode(WorldKind::Rigid, bytes)?;
        s.check()?;
        validate_config(&s.config).map_err(|e| load_error("config", e.to_string()))?;
        let cap = &s.capacity;
        let config = RigidConfig {
            body_capacity: cap.bodies,
            shape_capacity: cap.shapes,
            pair_capacity: cap.pairs,
            joint_capacity: cap.joints,
            generator_capacity: cap.generators,
            ..s.config.clone()
        };
        let mut w = RigidWorld::new(backend, config)?;
        w.on_device("loading a rigid world", |w| w.restore(s))?;
        Ok(w)
    }

    fn state(&mut self) -> Result<RigidState> {
        if matches!(self.engine, Engine::Gpu(_)) {
            // The reports in flight land first (a broken joint, a fracture, growth), then the
            // device's state is read.
            self.read_bodies()?;
            self.poll_reports()?;
            self.read_bodies()?;
            self.sync_joints()?;
        }
        let (manifolds, counters) = self.last_manifolds()?;
        let warm = Warm {
            manifolds,
            counters,
        };
        let j = &self.joints;
        let g = &self.generators;
        let f = &self.fracture;
        Ok(RigidState {
            config: self.config.clone(),
            capacity: Capacities {
                bodies: self.body_capacity,
                shapes: self.shape_capacity,
                pairs: self.pair_capacity,
                large: self.large_capacity,
                joints: j.capacity,
                generators: g.capacity,
                colour_slots: self.colour_slots,
                colour_slots_since: self.colour_slots_since,
            },
            steps: self.steps,
            report: self.report,
            bodies: self.bodies.clone(),
            generations: self.generations.clone(),
            alive: self.alive.clone(),
            free_bodies: self.free_bodies.clone(),
            forced: self.forced.iter().map(|&i| i as u32).collect(),
            impulses: self.impulses.clone(),
            contact_events: self.events.on,
            kinematic_queued: self.kinematic.queued.clone(),
            kinematic_moving: self.kinematic.moving.clone(),
            contact_events_pending: self.events.pending.clone(),
            body_shapes: self.body_shapes.clone(),
            shapes: self.shapes.clone(),
            free_shapes: self.free_shapes.clone(),
            shape_generations: self.shape_generations.clone(),
            shape_mass: self.shape_mass.clone(),
            mass_specs: self.mass_specs.clone(),
            hulls: self.hulls.words().to_vec(),
            level: self.hulls.saved_level(),
            cell_size: self.plan.cell_size,
            large: self.plan.large.clone(),
            explosion: self.explosion,
            joints: Joints {
                table: j.table.clone(),
                generations: j.generations.clone(),
                alive: j.alive.clone(),
                free: j.free.clone(),
                broken: j.broken.clone(),
                reported: j.reported.clone(),
                scan: j.scan,
            },
            generators: Generators {
                records: g.records.clone(),
                described: g.described.clone(),
                generations: g.generations.clone(),
                free: g.free.clone(),
            },
            fracture: Fractures {
                burst: f.burst.clone(),
                pending: f.pending.clone(),
                scan: f.scan,
                done: f.done.clone(),
            },
            warm,
        })
    }

    /// Takes over the checked state `s` (the world was just built with its capacities).
    fn restore(&mut self, s: RigidState) -> Result<()> {
        let tag = self.tag;
        let cap = s.capacity;
        self.config = s.config;
        self.steps = s.steps;
        self.report = s.report;
        self.bodies = s.bodies;
        self.query_epoch = self.query_epoch.wrapping_add(1);
        self.generations = s.generations;
        self.alive = s.alive;
        self.free_bodies = s.free_bodies;
        self.forced = s.forced.iter().map(|&i| i as usize).collect();
        self.impulses = s.impulses;
        self.events.on = s.contact_events;
        self.kinematic.queued = s.kinematic_queued;
        self.kinematic.moving = s.kinematic_moving;
        self.events.pending = s.contact_events_pending;
        self.body_shapes = s.body_shapes;
        self.shapes = s.shapes;
        self.free_shapes = s.free_shapes;
        self.shape_generations = s.shape_generations;
        self.shape_mass = s.shape_mass;
        self.mass_specs = s.mass_specs;
        // The records hold the centres of mass; the world's copy of each body's centre in its
        // frame is derived again by the rules that placed them.
        self.recompute_centres()?;
        self.hulls = hulls::WorldHulls {
            store: HullStore::from_words(s.hulls),
            loaded: true,
            ..Default::default()
        };
        let hull_bases: Vec<u32> = self
            .shapes
            .iter()
            .filter(|sh| sh.kind == shape_kind::HULL && sh.body != NONE)
            .map(|sh| sh.dims.x as u32)
            .collect();
        self.hulls.register_loaded(hull_bases)?;
        self.hulls.register_saved_level(&s.level)?;
        self.plan = BroadPlan {
            cell_size: s.cell_size,
            large: s.large,
        };
        self.plan_dirty = false;
        self.large_capacity = cap.large;
        self.colour_slots = cap.colour_slots;
        self.colour_slots_since = cap.colour_slots_since;
        self.explosion = s.explosion;
        let mut joints = JointTable::new(cap.joints);
        joints.table = s.joints.table;
        joints.generations = s.joints.generations;
        joints.alive = s.joints.alive;
        joints.free = s.joints.free;
        joints.broken = s.joints.broken;
        for h in &mut joints.broken {
            h.world = tag;
        }
        joints.reported = s.joints.reported;
        joints.scan = s.joints.scan;
        joints.rebuild_filter();
        self.joints = joints;
        let mut gens = generators::GeneratorTable::new(cap.generators);
        gens.records = s.generators.records;
        gens.described = s.generators.described;
        for h in gens.described.iter_mut().flatten() {
            for b in h.bodies_mut().into_iter().flatten() {
                b.world = tag;
            }
        }
        gens.generations = s.generators.generations;
        gens.free = s.generators.free;
        gens.dirty = true;
        self.generators = gens;
        self.fracture = fracture::Fractures {
            burst: s.fracture.burst,
            pending: s.fracture.pending,
            scan: s.fracture.scan,
            done: s.fracture.done,
        };
        for f in &mut self.fracture.done {
            f.body.world = tag;
            for p in &mut f.pieces {
                p.world = tag;
            }
        }
        self.ccd_convex_shapes = (0..self.bodies.len())
            .filter(|&i| self.alive[i])
            .map(|i| self.ccd_convex_count(&self.bodies[i], &self.body_shapes[i]))
            .sum();
        let warm = s.warm;
        let at = self.current_sizes()?;
        match &mut self.engine {
            Engine::Cpu(c) => c.manifolds = warm.manifolds,
            Engine::Gpu(g) => {
                g.rigid = g.rigid.resized(at)?;
                g.generation += 1;
                let r = &mut g.rigid;
                r.write(&r.bodies, &self.bodies);
                r.write(&r.shapes, &self.shapes);
                if !self.joints.table.is_empty() {
                    r.write(&r.joints, &self.joints.table);
                }
                r.write(&r.pair_scratch, &self.plan.large);
                let mut counters = warm.counters;
                if counters.is_empty() {
                    counters = vec![0; counter::LEN];
                    counters[solver::COUNTER_PREV_PAIRS] = warm.manifolds.len() as u32;
                }
                r.write(&r.counters, &counters);
                if !warm.manifolds.is_empty() {
                    // The next step flips the pair of manifold buffers: what is current now
                    // is its warm-start source.
                    r.write(r.current_manifolds(), &warm.manifolds);
                }
                self.hulls.upload(r)?;
            }
        }
        Ok(())
    }
}

impl RigidState {
    /// Refuses what a world built through the API could not hold, naming the field.
    fn check(&self) -> Result<()> {
        level::SavedLevel::check_all(&self.level, &self.hulls)?;
        let n = self.bodies.len();
        let ns = self.shapes.len();
        let cap = &self.capacity;
        let at_least = |field: &str, capacity: u32, len: usize, what: &str| {
            if (capacity as usize) < len {
                Err(load_error(
                    field,
                    format!("{capacity} slots for {len} {what}: the file is corrupt"),
                ))
            } else {
                Ok(())
            }
        };
        at_least("capacity.bodies", cap.bodies, n, "bodies")?;
        if cap.bodies == 0 {
            return Err(load_error(
                "capacity.bodies",
                "0 body slots: the file is corrupt",
            ));
        }
        at_least("capacity.shapes", cap.shapes, ns, "shapes")?;
        at_least(
            "capacity.joints",
            cap.joints,
            self.joints.table.len(),
            "joints",
        )?;
        let gens = self.generators.records.len();
        at_least("capacity.generators", cap.generators, gens, "generators")?;
        at_least(
            "capacity.large",
            cap.large,
            self.large.len(),
            "large shapes",
        )?;
        at_least(
            "capacity.shapes",
            cap.shapes,
            cap.large as usize,
            "large shapes",
        )?;
        if cap.pairs == 0 {
            return Err(load_error(
                "capacity.pairs",
                "0 pair slots: the file is corrupt",
            ));
        }
        if !(1..=MAX_COLOURS).contains(&cap.colour_slots) {
            return Err(load_error(
                "capacity.colour_slots",
                format!("{} is not in 1..={MAX_COLOURS}", cap.colour_slots),
            ));
        }
        check::same_len("generations", self.generations.len(), "bodies", n)?;
        check::same_len("alive", self.alive.len(), "bodies", n)?;
        check::same_len("body_shapes", self.body_shapes.len(), "bodies", n)?;
        check::same_len("mass_specs", self.mass_specs.len(), "bodies", n)?;
        check::same_len(
            "shape_generations",
            self.shape_generations.len(),
            "shapes",
            ns,
        )?;
        check::same_len("shape_mass", self.shape_mass.len(), "shapes", ns)?;
        for (i, m) in self.mass_specs.iter().enumerate() {
            check::finite("mass_specs", i, &[m.mass.unwrap_or(1.0), m.density])?;
            check::finite(
                "mass_specs",
                i,
                &m.inertia.unwrap_or_default().to_cols_array(),
            )?;
            let c = m.centre.unwrap_or_default();
            check::finite("mass_specs", i, &[c.x, c.y, c.z])?;
            let bad = m.mass.is_some_and(|v| v <= 0.0) || m.density <= 0.0;
            if bad {
                return Err(load_error(
                    format!("mass_specs[{i}]"),
                    format!("{m:?}: a mass or density that is not positive"),
                ));
            }
        }
        for (i, m) in self.shape_mass.iter().enumerate() {
            let c = m.centre;
            check::finite("shape_mass", i, &[m.volume, c.x, c.y, c.z])?;
            check::finite("shape_mass", i, &m.unit_inertia.to_cols_array())?;
            if m.volume < 0.0 || m.density.is_some_and(|d| !(d > 0.0 && d.is_finite())) {
                return Err(load_error(
                    format!("shape_mass[{i}]"),
                    format!("{m:?}: a negative volume or a density that is not positive"),
                ));
            }
        }
        for (i, b) in self.bodies.iter().enumerate() {
            let vectors = [b.pos, b.orient, b.lin_vel, b.ang_vel, b.force, b.torque];
            check::finite4("bodies", i, &vectors)?;
            check::finite4("bodies", i, &b.inv_inertia)?;
            check::finite4("bodies", i, &b.inv_inertia_world)?;
            check::finite4("bodies", i, &[b.acc, b.last_acc])?;
            if b.kind > body_kind::KINEMATIC {
                return Err(load_error(
                    format!("bodies[{i}].kind"),
                    format!("{} is not a body kind (0, 1 or 2)", b.kind),
                ));
            }
        }
        for (field, list, len, what) in [
            ("free_bodies", &self.free_bodies, n, "bodies"),
            ("forced", &self.forced, n, "bodies"),
            ("free_shapes", &self.free_shapes, ns, "shapes"),
            ("large", &self.large, ns, "shapes"),
        ] {
            for (i, &v) in list.iter().enumerate() {
                check::index(field, i, v, len, what)?;
            }
        }
        for (i, (slot, _, j, l)) in self.impulses.iter().enumerate() {
            check::index("impulses", i, *slot, n, "bodies")?;
            check::finite("impulses", i, &[j.x, j.y, j.z, l.x, l.y, l.z])?;
        }
        for (field, list) in [
            ("kinematic_queued", &self.kinematic_queued),
            ("kinematic_moving", &self.kinematic_moving),
        ] {
            for (i, (slot, _, p, q)) in list.iter().enumerate() {
                check::index(field, i, *slot, n, "bodies")?;
                check::finite(field, i, &[p.x, p.y, p.z])?;
                check::finite4(field, i, &[*q])?;
            }
        }
        for (i, ids) in self.body_shapes.iter().enumerate() {
            for &id in ids {
                check::index("body_shapes", i, id, ns, "shapes")?;
            }
        }
        for (i, s) in self.shapes.iter().enumerate() {
            check::finite4(
                "shapes",
                i,
                &[s.offset_pos, s.offset_rot, s.dims, s.material],
            )?;
            if s.kind > shape_kind::HEIGHTFIELD {
                return Err(load_error(
                    format!("shapes[{i}].kind"),
                    format!(
                        "{} is not a shape kind (0 to {})",
                        s.kind,
                        shape_kind::HEIGHTFIELD
                    ),
                ));
            }
            if s.kind == shape_kind::MESH || s.kind == shape_kind::HEIGHTFIELD {
                let base = s.dims.x;
                let mesh = s.kind == shape_kind::MESH;
                let named = self.level.iter().any(|l| match l {
                    level::SavedLevel::Mesh { base: b, .. } => mesh && *b as f32 == base,
                    level::SavedLevel::Field { base: b, .. } => !mesh && *b as f32 == base,
                });
                if !named {
                    return Err(load_error(
                        format!("shapes[{i}].dims.x"),
                        format!("block {base} is not a saved mesh or heightfield"),
                    ));
                }
            }
            if s.kind != 0 {
                check::index("shapes.body", i, s.body, n, "bodies")?;
            }
            if s.kind == shape_kind::HULL {
                let base = s.dims.x;
                if !(base >= 0.0 && (base as usize) < self.hulls.len() && base.fract() == 0.0) {
                    return Err(load_error(
                        format!("shapes[{i}].dims.x"),
                        format!(
                            "hull header {base} is not a word of the {}-word hull store",
                            self.hulls.len()
                        ),
                    ));
                }
            }
        }
        if !(self.cell_size.is_finite() && self.cell_size > 0.0) {
            return Err(load_error(
                "cell_size",
                format!("{} is not a positive cell size", self.cell_size),
            ));
        }
        let body_or_none = |field: &str, i: usize, v: u32| {
            if v == NONE {
                Ok(())
            } else {
                check::index(field, i, v, n, "bodies")
            }
        };
        let j = &self.joints;
        let nj = j.table.len();
        check::same_len(
            "joints.generations",
            j.generations.len(),
            "joints.table",
            nj,
        )?;
        check::same_len("joints.alive", j.alive.len(), "joints.table", nj)?;
        check::same_len("joints.reported", j.reported.len(), "joints.table", nj)?;
        for (i, jt) in j.table.iter().enumerate() {
            body_or_none("joints.table.body_a", i, jt.body_a)?;
            body_or_none("joints.table.body_b", i, jt.body_b)?;
            let rows = [jt.anchor_a, jt.rot_a, jt.anchor_b, jt.rot_b, jt.softness];
            check::finite4("joints.table", i, &rows)?;
            let more = [jt.drive, jt.impulse_lin, jt.impulse_ang, jt.impulse_limit];
            check::finite4("joints.table", i, &more)?;
        }
        for (i, &v) in j.free.iter().enumerate() {
            check::index("joints.free", i, v, nj, "joints")?;
        }
        for (i, h) in j.broken.iter().enumerate() {
            check::index("joints.broken", i, h.index, nj, "joints")?;
        }
        let g = &self.generators;
        check::same_len("generators.described", g.described.len(), "records", gens)?;
        check::same_len(
            "generators.generations",
            g.generations.len(),
            "records",
            gens,
        )?;
        for (i, r) in g.records.iter().enumerate() {
            body_or_none("generators.records.body_a", i, r.body_a)?;
            body_or_none("generators.records.body_b", i, r.body_b)?;
            check::finite4(
                "generators.records",
                i,
                &[r.point_a, r.point_b, r.wind, r.orient],
            )?;
            check::finite4("generators.records", i, &r.tensor)?;
        }
        for (i, &v) in g.free.iter().enumerate() {
            check::index("generators.free", i, v, gens, "generators")?;
        }
        let f = &self.fracture;
        if f.burst.len() > n {
            return Err(load_error(
                "fracture.burst",
                format!(
                    "{} entries for {n} bodies: the file is corrupt",
                    f.burst.len()
                ),
            ));
        }
        for (i, (_, e)) in f.pending.iter().enumerate() {
            check::index("fracture.pending", i, e.body, n, "bodies")?;
        }
        if let Some((e, t)) = &self.explosion {
            e.to_gpu(*t)
                .map_err(|err| load_error("explosion", err.to_string()))?;
        }
        let w = &self.warm;
        let slots = cap.pairs as usize + cap.joints as usize;
        if w.manifolds.len() > slots {
            return Err(load_error(
                "warm.manifolds",
                format!("{} manifolds for {slots} slots", w.manifolds.len()),
            ));
        }
        for (i, m) in w.manifolds.iter().enumerate() {
            body_or_none("warm.manifolds.body_a", i, m.body_a)?;
            body_or_none("warm.manifolds.body_b", i, m.body_b)?;
            for (field, v) in [
                ("warm.manifolds.shape_a", m.shape_a),
                ("warm.manifolds.shape_b", m.shape_b),
            ] {
                if v != NONE && m.joint == 0 {
                    check::index(field, i, v, ns, "shapes")?;
                }
            }
            check::finite4("warm.manifolds", i, &[m.normal, m.material, m.rolling])?;
            check::finite4("warm.manifolds", i, &m.points)?;
            check::finite4("warm.manifolds", i, &m.impulses)?;
            if m.count > MAX_POINTS {
                return Err(load_error(
                    format!("warm.manifolds[{i}].count"),
                    format!("{} points, at most {MAX_POINTS}", m.count),
                ));
            }
        }
        if !(w.counters.is_empty() || w.counters.len() == counter::LEN) {
            return Err(load_error(
                "warm.counters",
                format!("{} words, not {}", w.counters.len(), counter::LEN),
            ));
        }
        Ok(())
    }
}
