//! The CPU twin of the particle stages: the same functions as `shaders/particles/*.wgsl`, the
//! same names, the same operation order, on plain slices. It is a real backend (no adapter
//! needed, cheap for small scenes) and the reference the parity tests compare the GPU against.

use super::types::*;
pub use crate::colliders::{collider_contact, collider_in_reach, resolve_contact, REACH_SLACK};
pub use crate::fields::field_accel_one;
use crate::rng::rng_unit;
use crate::rounding as fm;
use glam::{Vec3, Vec4, Vec4Swizzles};

/// Particle state in structure-of-arrays form, as on the GPU; `[0, counters.live)` is live.
#[derive(Clone, Debug, Default)]
pub struct CpuState {
    /// Position (xyz), w = 1.
    pub pos: Vec<Vec4>,
    /// Velocity (xyz), damping (w: the fraction of velocity kept per second, 1 = none).
    pub vel: Vec<Vec4>,
    /// Acceleration (xyz), inverse mass (w).
    pub acc: Vec<Vec4>,
    /// Age, lifetime, kind, id.
    pub life: Vec<GpuLife>,
    /// Colour.
    pub colour: Vec<Vec4>,
    /// Radius.
    pub size: Vec<f32>,
    /// Per-particle flags from `integrate`: dead bit | killed by the bounds << 1 | payload
    /// count << 2.
    pub flags: Vec<u32>,
    /// Per-block (dead, payload) totals, then their exclusive scan.
    pub block_sums: Vec<[u32; 2]>,
    /// Dead slots below `survivors`, by rank.
    pub hole_slot: Vec<u32>,
    /// Spawns waiting to be appended.
    pub staging: Vec<GpuSpawnRecord>,
    /// Pool counters.
    pub counters: GpuCounters,
    /// Host ids of the particles with handles the bounds killed in the last step (`emit`
    /// appends them in slot order; the GPU's order is the device's).
    pub deaths: Vec<u32>,
}

impl CpuState {
    /// Empty state with room for `capacity` particles.
    ///
    /// # Errors
    /// [`crate::Error::HostMemory`] when the host cannot allocate the arrays.
    pub fn new(capacity: u32) -> crate::Result<Self> {
        let mut s = Self::default();
        s.resize(capacity)?;
        Ok(s)
    }

    /// Bytes of host memory the arrays take per particle.
    pub const BYTES_PER_PARTICLE: u64 =
        (4 * 16 + 16 + 4 + 4 + 4 + std::mem::size_of::<GpuSpawnRecord>()) as u64;

    /// Grows every array to `capacity` (never shrinks), reserving first so an allocation
    /// failure is an error, not an abort.
    ///
    /// # Errors
    /// [`crate::Error::HostMemory`] when the host cannot allocate the arrays.
    pub fn resize(&mut self, capacity: u32) -> crate::Result<()> {
        let n = capacity as usize;
        let oom = |_| crate::Error::HostMemory {
            capacity,
            bytes: u64::from(capacity) * Self::BYTES_PER_PARTICLE,
        };
        fn grow<T: Clone>(
            v: &mut Vec<T>,
            n: usize,
            fill: T,
        ) -> Result<(), std::collections::TryReserveError> {
            v.try_reserve_exact(n.saturating_sub(v.len()))?;
            v.resize(n.max(v.len()), fill);
            Ok(())
        }
        grow(&mut self.pos, n, Vec4::ZERO).map_err(oom)?;
        grow(&mut self.vel, n, Vec4::ZERO).map_err(oom)?;
        grow(&mut self.acc, n, Vec4::ZERO).map_err(oom)?;
        grow(&mut self.life, n, GpuLife::default()).map_err(oom)?;
        grow(&mut self.colour, n, Vec4::ZERO).map_err(oom)?;
        grow(&mut self.size, n, 0.0).map_err(oom)?;
        grow(&mut self.flags, n, 0).map_err(oom)?;
        grow(
            &mut self.block_sums,
            n.div_ceil(BLOCK as usize).max(1),
            [0; 2],
        )
        .map_err(oom)?;
        grow(&mut self.hole_slot, n, 0).map_err(oom)?;
        grow(&mut self.staging, n, GpuSpawnRecord::default()).map_err(oom)?;
        Ok(())
    }
}

/// The read-only inputs of a step (the CPU side of `Params` and the static tables).
pub struct StepInputs<'a> {
    /// The uniform block.
    pub params: &'a GpuParams,
    /// Colliders.
    pub colliders: &'a [GpuCollider],
    /// Firework rules.
    pub rules: &'a [GpuRule],
    /// Payload entries.
    pub payloads: &'a [GpuPayload],
    /// Sorted ids to remove.
    pub removals: &'a [u32],
    /// The emitter table.
    pub emitters: &'a [GpuEmitter],
    /// The life curves, one per emitter slot.
    pub curves: &'a [GpuCurves],
    /// The depth collider and its depths, when on.
    pub depth: Option<(&'a super::depth::GpuDepth, &'a super::depth::DepthImage)>,
}

/// The fields acting on a particle of emitter slot `eslot` − 1 (0: not an emitter's): every
/// global field and that emitter's local ones, summed in table order.
pub(crate) fn field_acceleration(
    params: &GpuParams,
    p: Vec3,
    v: Vec3,
    inv_mass: f32,
    eslot: u32,
) -> Vec3 {
    let mut a = Vec3::ZERO;
    for fld in &params.fields[..params.field_count as usize] {
        let tag = fld.kind >> FIELD_EMITTER_SHIFT;
        if tag == 0 || tag == eslot {
            a += field_accel_one(fld, p, v, inv_mass);
        }
    }
    a
}

/// Stage `integrate`: forces, integration (book order), colliders, ageing, death and payloads.
pub fn integrate(s: &mut CpuState, inp: &StepInputs) {
    let params = inp.params;
    let dt = params.dt;
    for i in 0..s.counters.live as usize {
        let mut life_i = s.life[i];
        let pv = s.pos[i];
        let vv = s.vel[i];
        let av = s.acc[i];
        let r = s.size[i];
        let mut p = pv.xyz();
        let mut v = vv.xyz();
        let inv_mass = av.w;
        let mut hit = false;
        let mut depth_kill = false;

        let removed = !inp.removals.is_empty() && inp.removals.binary_search(&life_i.id).is_ok();
        life_i.age += dt;
        let mut dead = removed || (life_i.lifetime >= 0.0 && life_i.age >= life_i.lifetime);

        if inv_mass > 0.0 {
            let eslot = life_i.kind >> KIND_CURVES_SHIFT;
            let acc_total = av.xyz() + field_acceleration(params, p, v, inv_mass, eslot);
            p = fm::madd3(v, dt, p);
            v = fm::madd3(acc_total, dt, v);
            let keep = if vv.w > 0.0 { vv.w.powf(dt) } else { 0.0 };
            v *= keep;
            for col in &inp.colliders[..params.collider_count as usize] {
                if !collider_in_reach(col, p, r, params.contact_slop) {
                    continue;
                }
                let contact = collider_contact(col, p, r);
                if contact.w > -params.contact_slop {
                    hit = hit || fm::dot(v, contact.xyz()) < 0.0;
                    resolve_contact(&mut p, &mut v, col, contact, acc_total, dt);
                }
            }
            if let Some((d, image)) = inp.depth {
                let contact = super::depth::depth_contact(d, image, p, r);
                let reach = params.contact_slop.max(fm::length(acc_total) * dt * dt);
                if contact.w > -reach {
                    hit = hit || fm::dot(v, contact.xyz()) < 0.0;
                    let surface = GpuCollider {
                        kind: collider_kind::HALF_SPACE,
                        restitution: d.restitution,
                        friction: d.friction,
                        ..Default::default()
                    };
                    resolve_contact(&mut p, &mut v, &surface, contact, acc_total, dt);
                    depth_kill = d.flags & 2 != 0;
                }
            }
        }
        dead = dead || depth_kill;

        let mut bounds = false;
        if params.kill_bounds != 0
            && (p.cmplt(params.kill_min.xyz()).any() || p.cmpgt(params.kill_max.xyz()).any())
        {
            bounds = !dead && life_i.kind == 0 && life_i.id & GPU_ID_BIT == 0;
            dead = true;
        }
        let mut payload = 0;
        let firework = life_i.kind & KIND_FIREWORK_MASK;
        if firework != 0 {
            dead = dead || p.y < 0.0;
            let rule = &inp.rules[firework as usize - 1];
            if dead && !removed {
                payload = rule.children;
            }
            let mut t = 1.0;
            if life_i.lifetime > 0.0 {
                t = (1.0 - life_i.age / life_i.lifetime).clamp(0.0, 1.0);
            }
            s.colour[i] = rule.colour * t;
        }

        // Sub-emitters: children on death, or on striking a collider (it lives on).
        let eslot = (life_i.kind >> KIND_CURVES_SHIFT) as usize;
        if let Some(e) = eslot.checked_sub(1).and_then(|e| inp.emitters.get(e)) {
            if firework == 0 && !removed {
                if dead && e.sub[0] != 0 {
                    payload = e.sub[1];
                } else if !dead && hit && e.sub[2] != 0 {
                    payload = e.sub[3];
                }
            }
        }
        // Life curves (an emitter's colour gradient and size curve), at the new age.
        let curve_set = life_i.kind >> KIND_CURVES_SHIFT;
        if let Some(c) = (curve_set as usize)
            .checked_sub(1)
            .and_then(|set| inp.curves.get(set))
        {
            let t = (life_i.age / life_i.lifetime).clamp(0.0, 1.0);
            if c.counts[0] != 0 {
                s.colour[i] = super::emitter::curve_colour(c, t);
            }
            if c.counts[1] != 0 {
                s.size[i] = super::emitter::curve_size(c, t);
            }
        }
        s.pos[i] = p.extend(pv.w);
        s.vel[i] = v.extend(vv.w);
        s.life[i] = life_i;
        if params.lifecycle != 0 {
            s.flags[i] = if dead {
                1 | (u32::from(bounds) << 1)
            } else {
                0
            } | (payload << 2);
        }
    }
}

fn flag_pair(s: &CpuState, i: usize) -> [u32; 2] {
    if i >= s.counters.live as usize {
        return [0, 0];
    }
    let f = s.flags[i];
    [f & 1, f >> 2]
}

fn add(a: [u32; 2], b: [u32; 2]) -> [u32; 2] {
    [a[0].wrapping_add(b[0]), a[1].wrapping_add(b[1])]
}

/// Stage `scan_reduce`: (dead, payload) totals per block.
pub fn scan_reduce(s: &mut CpuState) {
    let blocks = s.counters.live.div_ceil(BLOCK) as usize;
    for b in 0..blocks {
        let mut sum = [0, 0];
        for i in b * BLOCK as usize..(b + 1) * BLOCK as usize {
            sum = add(sum, flag_pair(s, i));
        }
        s.block_sums[b] = sum;
    }
}

/// Stage `scan_blocks`: exclusive scan of the block totals, then plan the pool.
pub fn scan_blocks(s: &mut CpuState, params: &GpuParams) {
    let blocks = s.counters.live.div_ceil(BLOCK) as usize;
    let mut run = [0, 0];
    for b in 0..blocks {
        let v = s.block_sums[b];
        s.block_sums[b] = run;
        run = add(run, v);
    }
    plan_pool(&mut s.counters, params, run);
    s.deaths.clear();
}

fn plan_pool(c: &mut GpuCounters, params: &GpuParams, total: [u32; 2]) {
    let survivors = c.live - total[0];
    let host = params.host_spawn;
    let wanted = host + total[1] + params.emitted;
    let room = params.capacity - survivors;
    let accepted = wanted.min(room);
    c.dead = total[0];
    c.survivors = survivors;
    c.movers = 0;
    c.children_wanted = total[1];
    c.spawn_wanted = wanted;
    c.spawn_accepted = accepted;
    c.emitted = params.emitted;
    if accepted < wanted {
        // Totals since creation saturate instead of wrapping (WGSL `saturating_add`).
        c.dropped_total = c.dropped_total.saturating_add(wanted - accepted);
        c.host_dropped_total = c
            .host_dropped_total
            .saturating_add(host - host.min(accepted));
        c.overflow_steps = c.overflow_steps.saturating_add(1);
        c.wanted_capacity = c.wanted_capacity.max(survivors.saturating_add(wanted));
    }
}

/// Exclusive (dead, payload) prefix of every live slot, from the scanned block totals.
fn prefixes(s: &CpuState) -> Vec<[u32; 2]> {
    let live = s.counters.live as usize;
    let mut out = Vec::with_capacity(live);
    let mut run = [0, 0];
    for i in 0..live {
        if i % BLOCK as usize == 0 {
            run = s.block_sums[i / BLOCK as usize];
        }
        out.push(run);
        run = add(run, flag_pair(s, i));
    }
    out
}

fn emit_children(
    s: &mut CpuState,
    inp: &StepInputs,
    i: usize,
    first_slot: u32,
    accepted: u32,
    first_serial: u32,
) {
    let params = inp.params;
    if s.life[i].kind & KIND_FIREWORK_MASK == 0 {
        emit_sub_children(s, inp, i, first_slot, accepted, first_serial);
        return;
    }
    let parent_p = s.pos[i].xyz();
    let parent_v = s.vel[i].xyz();
    let rule = &inp.rules[(s.life[i].kind & KIND_FIREWORK_MASK) as usize - 1];
    let mut n = 0u32;
    for e in 0..rule.payload_len {
        let payload = inp.payloads[(rule.payload_start + e) as usize];
        let cr = &inp.rules[payload.ty as usize - 1];
        for _ in 0..payload.count {
            let slot = first_slot + n;
            let serial = first_serial.wrapping_add(n);
            n += 1;
            if slot >= accepted {
                return;
            }
            let u = |k| rng_unit(params.seed, serial, params.step, k);
            let lifetime = cr.age_min + (cr.age_max - cr.age_min) * u(0);
            let v = parent_v
                + (cr.vel_min.xyz()
                    + (cr.vel_max.xyz() - cr.vel_min.xyz()) * Vec3::new(u(1), u(2), u(3)));
            s.staging[slot as usize] = GpuSpawnRecord {
                pos: parent_p.extend(1.0),
                vel: v.extend(cr.damping),
                acc: cr.gravity.xyz().extend(1.0),
                colour: cr.colour,
                life: GpuLife {
                    age: 0.0,
                    lifetime,
                    kind: payload.ty,
                    id: GPU_ID_BIT | (serial & !GPU_ID_BIT),
                },
                size: cr.size,
                _pad: [0; 3],
            };
        }
    }
}

/// Stage `emit`: record holes, write firework children to staging, and list the handle deaths
/// by the bounds.
pub fn emit(s: &mut CpuState, inp: &StepInputs) {
    let pre = prefixes(s);
    let survivors = s.counters.survivors as usize;
    let accepted = s.counters.spawn_accepted;
    let serial0 = s.counters.next_serial;
    for (i, run) in pre.iter().enumerate() {
        let f = flag_pair(s, i);
        if f[0] == 1 {
            if s.flags[i] & 2 != 0 {
                // Killed by the bounds while the host holds its handle: list its id.
                s.deaths.push(s.life[i].id);
            }
            if i < survivors {
                s.hole_slot[run[0] as usize] = i as u32;
            }
        }
        if f[1] > 0 {
            emit_children(
                s,
                inp,
                i,
                inp.params.host_spawn + run[1],
                accepted,
                serial0.wrapping_add(run[1]),
            );
        }
        if i == survivors {
            s.counters.movers = run[0];
        }
    }
}

/// A sub-emitter's children of emitted particle `i`, drawn around it (the CPU twin of
/// `emit_sub_children`).
fn emit_sub_children(
    s: &mut CpuState,
    inp: &StepInputs,
    i: usize,
    first_slot: u32,
    accepted: u32,
    first_serial: u32,
) {
    let params = inp.params;
    let parent = (s.life[i].kind >> KIND_CURVES_SHIFT) as usize;
    let Some(sub) = parent
        .checked_sub(1)
        .and_then(|e| inp.emitters.get(e))
        .map(|e| e.sub)
    else {
        return;
    };
    let (child, count) = if s.flags[i] & 1 != 0 {
        (sub[0], sub[1])
    } else {
        (sub[2], sub[3])
    };
    let Some(slot_e) = (child as usize).checked_sub(1) else {
        return;
    };
    let Some(e) = inp.emitters.get(slot_e) else {
        return;
    };
    let origin = s.pos[i].xyz();
    for c in 0..count {
        let slot = first_slot + c;
        if slot >= accepted {
            return;
        }
        s.staging[slot as usize] = super::emitter::emitted_record_at(
            e,
            inp.curves.get(slot_e),
            params.seed,
            first_serial.wrapping_add(c),
            params.step,
            origin,
        );
    }
}

/// The moves of the compaction, as (from, to): the k-th live slot at or above `survivors`
/// goes to the k-th hole below it (ranks from the same prefix sums as on the GPU).
pub(crate) fn compaction_moves(s: &CpuState) -> Vec<(usize, usize)> {
    let pre = prefixes(s);
    let survivors = s.counters.survivors as usize;
    let movers = s.counters.movers as usize;
    pre.iter()
        .enumerate()
        .skip(survivors)
        .filter(|&(i, _)| flag_pair(s, i)[0] == 0)
        .map(|(i, run)| {
            let rank = (i - survivors) - (run[0] as usize - movers);
            (i, s.hole_slot[rank] as usize)
        })
        .collect()
}

/// Stage `compact`: move live particles at or above `survivors` into the holes below it.
pub fn compact(s: &mut CpuState) {
    for (i, dst) in compaction_moves(s) {
        s.pos[dst] = s.pos[i];
        s.vel[dst] = s.vel[i];
        s.acc[dst] = s.acc[i];
        s.life[dst] = s.life[i];
        s.colour[dst] = s.colour[i];
        s.size[dst] = s.size[i];
    }
}

/// Stage `spawn_emitted`: the particles the emitters want this step, drawn into
/// `staging[host_spawn + children + k]` while the slot fits, emitter by emitter (see
/// [`super::emitter::emitted_record`]).
pub fn spawn_emitted(s: &mut CpuState, inp: &StepInputs) {
    let params = inp.params;
    let c = s.counters;
    let n = inp.emitters.len().min(params.emitter_count as usize);
    let first = |e: usize| params.emit_first[e / 4][e % 4];
    for e in 0..n {
        let end = if e + 1 < n {
            first(e + 1)
        } else {
            params.emitted
        };
        for k in first(e)..end {
            let slot = params.host_spawn + c.children_wanted + k;
            if slot >= c.spawn_accepted {
                return;
            }
            let serial = c
                .next_serial
                .wrapping_add(c.children_wanted)
                .wrapping_add(k);
            s.staging[slot as usize] = super::emitter::emitted_record(
                &inp.emitters[e],
                inp.curves.get(e),
                params.seed,
                serial,
                params.step,
            );
        }
    }
}

/// Stage `append`: copy accepted spawns behind the survivors and publish the live count.
pub fn append(s: &mut CpuState) {
    let accepted = s.counters.spawn_accepted as usize;
    let survivors = s.counters.survivors as usize;
    for j in 0..accepted {
        let rec = s.staging[j];
        let dst = survivors + j;
        s.pos[dst] = rec.pos;
        s.vel[dst] = rec.vel;
        s.acc[dst] = rec.acc;
        s.life[dst] = rec.life;
        s.colour[dst] = rec.colour;
        s.size[dst] = rec.size;
    }
    let c = &mut s.counters;
    let live = (survivors + accepted) as u32;
    c.live = live;
    c.next_serial = c
        .next_serial
        .wrapping_add(c.children_wanted)
        .wrapping_add(c.emitted);
    c.step += 1;
    c.step_args = [live.div_ceil(WG), 1, 1, live.div_ceil(BLOCK), 1, 1];
    c.draw_args = [6, live, 0, 0];
}

/// Stages `emitter_bounds` and `bounds_publish` for one emitter slot: the box of the live
/// particles that name `slot` in their kind, as (min.xyz, 1) and (max.xyz, 1), or (+∞, 0) and
/// (−∞, 0) when there are none. Minimum and maximum are exact, so this is the GPU's result.
pub fn emitter_bounds(s: &CpuState, slot: usize) -> (Vec4, Vec4) {
    let mut lo = Vec3::INFINITY;
    let mut hi = Vec3::NEG_INFINITY;
    let mut any = false;
    for i in 0..s.counters.live as usize {
        if (s.life[i].kind >> KIND_CURVES_SHIFT) as usize == slot + 1 {
            let p = s.pos[i].xyz();
            lo = lo.min(p);
            hi = hi.max(p);
            any = true;
        }
    }
    let w = if any { 1.0 } else { 0.0 };
    (lo.extend(w), hi.extend(w))
}
