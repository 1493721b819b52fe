//! The checks of a loaded particle world's state: those the API makes of its input, each
//! refusal an [`Error::Load`] naming the field path (`particles[3].position`), made before any
//! world is built from the state.

use super::*;
use crate::particles::fireworks::MAX_CHILDREN_PER_RULE;
use crate::save::check;

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
    pub(super) fn check(&self) -> Result<Vec<EmitterSlot>> {
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
                SavedSlot::Retired {
                    until,
                    curves,
                    groups,
                } => {
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
                        groups: *groups,
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
