//! The CPU twin of the aggregate stages (`shaders/aggregate/*.wgsl`): same names, same
//! operation order, plain slices. `solve_links_most_severe` is the book's sequential resolver,
//! kept as a CPU option and as the reference the batches are tested against.

use super::model::{COLLIDE_RELAXATION, COLLIDE_REST_DEPTH, NEAR_SPAN, NEAR_UNITS};
use super::types::*;
use crate::colliders::{collider_contact, collider_in_reach, resolve_contact, GpuCollider};
use crate::fields::field_accel_one;
use crate::grid::{cell_key, cell_of, CpuGrid, GridSpec};
use crate::rounding as fm;
use glam::{IVec3, Vec3, Vec4, Vec4Swizzles};

/// Aggregate particle state: the current arrays and the scratch arrays the Jacobi stages write.
#[derive(Clone, Debug, Default)]
pub struct AggState {
    /// Position (xyz), w = 1 alive / 0 removed.
    pub pos: Vec<Vec4>,
    /// Velocity (xyz), damping (w: the fraction of velocity kept per second, 1 = none).
    pub vel: Vec<Vec4>,
    /// Acceleration (xyz), inverse mass (w).
    pub acc: Vec<Vec4>,
    /// Radius.
    pub radius: Vec<f32>,
    /// Colour (for drawing).
    pub colour: Vec<Vec4>,
    /// Next-iterate positions.
    pub pos_next: Vec<Vec4>,
    /// Next-iterate velocities.
    pub vel_next: Vec<Vec4>,
}

impl AggState {
    /// Bytes of host memory the arrays take per particle.
    pub const BYTES_PER_PARTICLE: u64 = (6 * 16 + 4) as u64;

    /// Zeroed arrays for `n` particles, reserved first so that an allocation the host cannot
    /// make is an error, not an abort.
    ///
    /// # Errors
    /// [`crate::Error::HostMemory`] when the host cannot allocate the arrays.
    pub fn new(n: u32) -> crate::Result<Self> {
        let oom = |_| crate::Error::HostMemory {
            capacity: n,
            bytes: u64::from(n) * Self::BYTES_PER_PARTICLE,
        };
        fn zeroed<T: Clone>(n: u32, fill: T) -> Result<Vec<T>, std::collections::TryReserveError> {
            let mut v = Vec::new();
            v.try_reserve_exact(n as usize)?;
            v.resize(n as usize, fill);
            Ok(v)
        }
        Ok(Self {
            pos: zeroed(n, Vec4::ZERO).map_err(oom)?,
            vel: zeroed(n, Vec4::ZERO).map_err(oom)?,
            acc: zeroed(n, Vec4::ZERO).map_err(oom)?,
            radius: zeroed(n, 0.0).map_err(oom)?,
            colour: zeroed(n, Vec4::ZERO).map_err(oom)?,
            pos_next: zeroed(n, Vec4::ZERO).map_err(oom)?,
            vel_next: zeroed(n, Vec4::ZERO).map_err(oom)?,
        })
    }
}

/// The static tables a step reads.
pub struct AggInputs<'a> {
    /// Uniform block.
    pub params: &'a GpuAggParams,
    /// Force generators.
    pub gens: &'a [GpuGen],
    /// CSR offsets into `gen_refs`, n + 1 entries.
    pub gen_offsets: &'a [u32],
    /// Generator index << 1 | side.
    pub gen_refs: &'a [u32],
    /// Links sorted by colour.
    pub links: &'a [GpuLink],
    /// Colour c is `links[colour_start[c]..colour_start[c + 1]]`.
    pub colour_start: &'a [u32],
    /// Static colliders.
    pub colliders: &'a [GpuCollider],
}

#[allow(clippy::too_many_arguments)]
fn gen_force(
    g: &GpuGen,
    pa: Vec3,
    va: Vec3,
    wa: f32,
    pb: Vec3,
    vb: Vec3,
    wb: f32,
    dt: f32,
    semi_implicit: bool,
) -> Vec3 {
    let kind = g.kind;
    if kind == 9 {
        return if wa > 0.0 {
            g.anchor.xyz() / wa
        } else {
            Vec3::ZERO
        };
    }
    if kind == 10 {
        let speed = va.length();
        return if speed > 0.0 {
            -va * ((g.k.x * speed + g.k.y * speed * speed) / speed)
        } else {
            Vec3::ZERO
        };
    }
    if kind == 5 {
        let s = g.k.x;
        let y = pa.y;
        let yw = g.k.z;
        if y >= yw + s {
            return Vec3::ZERO;
        }
        let mut frac = 1.0;
        if y > yw - s {
            frac = (yw + s - y) / (2.0 * s);
        }
        return Vec3::new(0.0, frac * g.k.w * g.k.y * g.anchor.x, 0.0);
    }
    if kind == 6 {
        if wa <= 0.0 {
            return Vec3::ZERO;
        }
        let k = g.k.x;
        let damp = g.k.z;
        let disc = 4.0 * k - damp * damp;
        if disc <= 0.0 {
            return Vec3::ZERO;
        }
        let gamma = 0.5 * disc.sqrt();
        let p = pa - g.anchor.xyz();
        let target = if semi_implicit {
            p * (2.0 * (-0.5 * damp * dt).exp() * (gamma * dt).cos())
                - (p - va * dt) * (-damp * dt).exp()
        } else {
            let c = p * (damp / (2.0 * gamma)) + va / gamma;
            (p * (gamma * dt).cos() + c * (gamma * dt).sin()) * (-0.5 * damp * dt).exp()
        };
        let accel = (target - p) / (dt * dt) - va / dt;
        return accel / wa;
    }
    let d = pa - pb;
    let len = fm::length(d);
    if len <= 0.0 {
        return Vec3::ZERO;
    }
    let n = fm::div3(d, len);
    let x = len - g.k.y;
    if kind == 1 || kind == 2 {
        return -n * (g.k.x * x);
    }
    if kind == 3 || kind == 4 {
        return if x <= 0.0 {
            Vec3::ZERO
        } else {
            -n * (g.k.x * x)
        };
    }
    if kind == 7 || kind == 8 {
        let wsum = wa + wb;
        if wsum <= 0.0 {
            return Vec3::ZERO;
        }
        let m_red = 1.0 / wsum;
        let vrel = (va - vb).dot(n);
        return -n * (m_red / (dt * dt) * g.k.x * x + m_red / dt * g.k.z * vrel);
    }
    Vec3::ZERO
}

fn gen_force_on(s: &AggState, inp: &AggInputs, index: u32, side: u32) -> Vec3 {
    let g = &inp.gens[index as usize];
    let a = g.a as usize;
    let (pa, va, wa) = (s.pos[a].xyz(), s.vel[a].xyz(), s.acc[a].w);
    let (mut pb, mut vb, mut wb) = (g.anchor.xyz(), Vec3::ZERO, 0.0);
    if g.b != NONE {
        let b = g.b as usize;
        pb = s.pos[b].xyz();
        vb = s.vel[b].xyz();
        wb = s.acc[b].w;
    }
    let f = gen_force(
        g,
        pa,
        va,
        wa,
        pb,
        vb,
        wb,
        inp.params.dt,
        inp.params.integrator != 0,
    );
    if side == 1 {
        -f
    } else {
        f
    }
}

/// Stage `agg_integrate`: generators (gathered per particle), fields, integrator; writes the
/// next arrays and swaps them in.
pub fn agg_integrate(s: &mut AggState, inp: &AggInputs) {
    let params = inp.params;
    let dt = params.dt;
    for i in 0..params.n as usize {
        let pv = s.pos[i];
        let vv = s.vel[i];
        let av = s.acc[i];
        let mut p = pv.xyz();
        let mut v = vv.xyz();
        let w = av.w;
        if pv.w != 0.0 && w > 0.0 {
            let mut f = Vec3::ZERO;
            for r in inp.gen_offsets[i]..inp.gen_offsets[i + 1] {
                let entry = inp.gen_refs[r as usize];
                f += gen_force_on(s, inp, entry >> 1, entry & 1);
            }
            let mut a = fm::madd3(f, w, av.xyz());
            for fld in &params.fields[..params.field_count as usize] {
                a += field_accel_one(fld, p, v, w);
            }
            let keep = if vv.w > 0.0 { vv.w.powf(dt) } else { 0.0 };
            if params.integrator == 0 {
                p = fm::madd3(v, dt, p);
                v = fm::madd3(a, dt, v) * keep;
            } else {
                v = fm::madd3(a, dt, v) * keep;
                p = fm::madd3(v, dt, p);
            }
        }
        s.pos_next[i] = p.extend(pv.w);
        s.vel_next[i] = v.extend(vv.w);
    }
    swap(s, params.n as usize);
}

fn swap(s: &mut AggState, n: usize) {
    s.pos[..n].swap_with_slice(&mut s.pos_next[..n]);
    s.vel[..n].swap_with_slice(&mut s.vel_next[..n]);
}

/// Twin of `stack_weight` in collide.wgsl: (1 + x/16)^16, x clamped to [-16, 16].
fn stack_weight(x: f32) -> f32 {
    let mut t = 1.0 + x.clamp(-16.0, 16.0) * 0.0625;
    t = t * t;
    t = t * t;
    t = t * t;
    t * t
}

/// The square of the impact speed between `i` (field acceleration `a_i`) and `j`: the speed
/// the larger of their two accelerations adds in two steps. A contact closing faster is an
/// impact; slower contacts are resting contacts, resolved on positions. 0 when neither grain
/// accelerates: then every closing contact is an impact. Squared so that no square root is
/// compared. Twin of `impact_speed2` in collide.wgsl.
fn impact_speed2(params: &GpuAggParams, a2_i: f32, a2_j: f32) -> f32 {
    let reach = 2.0 * params.dt;
    reach * reach * a2_i.max(a2_j)
}

/// How much of a contact closing at `vn` is an impact, from 0 (resting) to 1: 0 when parting,
/// 1 when neither grain accelerates (`impact2` = 0), else rising linearly in vn² from the
/// impact speed to √2 times it. The ramp keeps the response continuous: a contact whose speed
/// crosses the impact speed between iterations changes its response by as little as its speed
/// changed, on every adapter. Twin of `impact_weight` in collide.wgsl.
fn impact_weight(vn: f32, impact2: f32) -> f32 {
    if vn >= 0.0 {
        return 0.0;
    }
    if impact2 == 0.0 {
        return 1.0;
    }
    ((vn * vn - impact2) / impact2).clamp(0.0, 1.0)
}

/// Twin of `near_key` in shaders/aggregate/order.wgsl: the key the GPU sorts particles by to
/// lay out the collide iterations in space, the Morton code of the particle's 2×2×2-cell block
/// (8 bits per axis, [`NEAR_KEY_BITS`](super::gpu::NEAR_KEY_BITS) in all).
pub fn near_key(p: Vec3, spec: &GridSpec) -> u32 {
    fn spread(x: u32) -> u32 {
        let mut x = x & 0xff;
        x = (x | (x << 8)) & 0x0000_f00f;
        x = (x | (x << 4)) & 0x000c_30c3;
        (x | (x << 2)) & 0x0024_9249
    }
    let c = cell_of(p, spec.cell_size);
    let b = [c.x as u32 >> 1, c.y as u32 >> 1, c.z as u32 >> 1];
    spread(b[0]) | (spread(b[1]) << 1) | (spread(b[2]) << 2)
}

/// The GPU's spatial order of `pos` (xyz used): slot s holds particle `order[s]`, particles
/// ordered by ([`near_key`], index). The GPU runs its collide iterations in this order; the
/// result does not depend on it, so [`collide`] visits particles in index order.
pub fn near_order(pos: &[Vec4], spec: &GridSpec) -> Vec<u32> {
    let mut order: Vec<u32> = (0..pos.len() as u32).collect();
    order.sort_by_key(|&i| (near_key(pos[i as usize].xyz(), spec), i));
    order
}

/// Twin of `near_cells` in shaders/aggregate/order.wgsl: per grid key, its particles' slots in
/// the grid's order, one entry of two u32 per key: `[a, a]` for one particle, `[a, b]` for two,
/// else `[first, CELL_LISTED + count]`; and per grid-sorted position, the particle's slot (what
/// a listed entry's range indexes). `slot_of[i]` is particle i's slot.
pub fn near_cells(grid: &CpuGrid, table_size: u32, slot_of: &[u32]) -> (Vec<[u32; 2]>, Vec<u32>) {
    let cell_slots: Vec<u32> = grid
        .sorted_index
        .iter()
        .map(|&i| slot_of[i as usize])
        .collect();
    let cells = (0..table_size)
        .map(|k| {
            let r = grid.key_range(k);
            match r.len() {
                1 => [cell_slots[r.start]; 2],
                2 => [cell_slots[r.start], cell_slots[r.start + 1]],
                len => [r.start as u32, CELL_LISTED + len as u32],
            }
        })
        .collect();
    (cells, cell_slots)
}

/// The step's collide candidates, per particle (twin of `near_list` in
/// shaders/aggregate/near_list.wgsl, by particle index and without a capacity).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NearList {
    /// Particle i's candidates are `entries[start[i]..start[i + 1]]`.
    pub start: Vec<u32>,
    /// Particle indices, in the collide loop's visiting order.
    pub entries: Vec<u32>,
    /// Per particle, the square of its field acceleration (own plus the gravity fields), what
    /// the impact test reads (`near_acc.w` of the spatial order on the GPU).
    pub accel2: Vec<f32>,
    /// Per particle, its spatial-order key ([`near_key`]) as the grid was built: slot order is
    /// (key, particle) order, what the collide stage's tie-break of coincident grains reads.
    pub keys: Vec<u32>,
}

impl NearList {
    /// Whether particle i comes before particle j in the GPU's spatial order (its slot is
    /// lower): the order is a stable sort of the keys, so by key, then by particle.
    pub fn slot_before(&self, i: usize, j: usize) -> bool {
        (self.keys.get(i), i) < (self.keys.get(j), j)
    }

    /// Particle i's candidates.
    pub fn of(&self, i: usize) -> &[u32] {
        match (self.start.get(i), self.start.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.entries[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// Twin of `near_box_cells` (shaders/aggregate/near_list.wgsl): the lowest grid cell of the
/// box of half-side `h` around `p`, and how many cells past it the box reaches along each
/// axis (at most `NEAR_SPAN − 1`).
fn near_box_cells(p: Vec3, h: f32, spec: &GridSpec) -> (IVec3, IVec3) {
    let lo = cell_of(p - Vec3::splat(h), spec.cell_size);
    let hi = cell_of(p + Vec3::splat(h), spec.cell_size);
    let cap = NEAR_SPAN as i32 - 1;
    (
        lo,
        hi.wrapping_sub(lo).clamp(IVec3::ZERO, IVec3::splat(cap)),
    )
}

/// Twin of `near_list` (shaders/aggregate/near_list.wgsl): for each particle that runs
/// contacts (alive, movable), the particles whose positions lie within `params.near_reach` of
/// its own (`grid` built from `s.pos`; distances in whole units, see `near_in_reach`): the candidates of its
/// collide iterations this step, in their visiting order (the cells the box overlaps, z
/// outermost and x innermost, then the grid's order within a cell).
pub fn near_list(s: &AggState, params: &GpuAggParams, grid: &CpuGrid, spec: &GridSpec) -> NearList {
    let mut list = NearList::default();
    near_list_into(&mut list, s, params, grid, spec);
    list
}

/// [`near_list`] into `list`, reusing its storage (the world's CPU step keeps one across steps).
pub fn near_list_into(
    list: &mut NearList,
    s: &AggState,
    params: &GpuAggParams,
    grid: &CpuGrid,
    spec: &GridSpec,
) {
    let n = params.n as usize;
    let h = params.near_reach;
    list.start.clear();
    list.entries.clear();
    list.accel2.clear();
    list.accel2.extend((0..n).map(|i| {
        let a = accel_field(s, params, i);
        a.dot(a)
    }));
    list.keys.clear();
    list.keys
        .extend((0..n).map(|i| near_key(s.pos[i].xyz(), spec)));
    list.start.push(0);
    for i in 0..n {
        let pi = s.pos[i].xyz();
        if s.pos[i].w != 0.0 && s.acc[i].w > 0.0 {
            let (lo, span) = near_box_cells(pi, h, spec);
            for dz in 0..=span.z {
                for dy in 0..=span.y {
                    for dx in 0..=span.x {
                        let c = lo.wrapping_add(IVec3::new(dx, dy, dz));
                        if near_cell_out_of_reach(pi, c, params) {
                            continue;
                        }
                        for &j in &grid.sorted_index[grid.key_range(cell_key(c, spec.table_size))] {
                            let pj = s.pos[j as usize];
                            // The cell test skips a key's grains from other cells (a hash
                            // collision), so each grain is listed once.
                            if j as usize != i
                                && pj.w != 0.0
                                && near_in_reach(pi, pj.xyz(), params)
                                && cell_of(pj.xyz(), spec.cell_size) == c
                            {
                                list.entries.push(j);
                            }
                        }
                    }
                }
            }
        }
        list.start.push(list.entries.len() as u32);
    }
}

/// Twin of `near_cell_out_of_reach` (shaders/aggregate/near_list.wgsl): whether no grain of
/// cell `c` can be within reach of `p`, with the WGSL's margins (skipping changes no list).
fn near_cell_out_of_reach(p: Vec3, c: IVec3, params: &GpuAggParams) -> bool {
    let units = NEAR_UNITS;
    let f = p * params.inv_cell_size;
    let lo = c.as_vec3();
    let gap = (lo - f).max(f - (lo + Vec3::ONE)).max(Vec3::ZERO);
    let margin = Vec3::splat(3.0) + f.abs() * (units / 16384.0);
    let low = (gap * units - margin).max(Vec3::ZERO);
    low.dot(low) > params.near_reach2 as f32 + 4.0
}

/// Twin of `near_in_reach`: whether `a` and `b` are within `params.near_reach` of each other,
/// measured in whole units of `1 / params.near_scale` (an exact integer squared distance).
fn near_in_reach(a: Vec3, b: Vec3, params: &GpuAggParams) -> bool {
    let d = (a - b).abs();
    let h = params.near_reach;
    if !(d.x <= h && d.y <= h && d.z <= h) {
        return false;
    }
    let q = (d * params.near_scale).floor();
    let (x, y, z) = (q.x as u32, q.y as u32, q.z as u32);
    x.wrapping_mul(x)
        .wrapping_add(y.wrapping_mul(y))
        .wrapping_add(z.wrapping_mul(z))
        <= params.near_reach2
}

fn accel_field(s: &AggState, params: &GpuAggParams, i: usize) -> Vec3 {
    let mut a = s.acc[i].xyz();
    for fld in &params.fields[..params.field_count as usize] {
        if fld.kind & crate::fields::FIELD_KIND_MASK == 1 {
            a += fld.v.xyz();
        }
    }
    a
}

/// Stage `collide`: one Jacobi iteration of particle–particle contacts, each particle against
/// its candidates in `near` (the step's [`near_list`]), plus the static colliders; writes the
/// next arrays and swaps them in.
///
/// Impacts (contacts closing faster than `impact_speed2`'s speed) get the book's velocity
/// response with restitution and their penetration pushed out; their shares are averaged over
/// the grain's engaged contacts. Resting contacts are position based (Macklin
/// et al., "Unified Particle Physics for Real-Time Applications", 2014): the penetration is
/// projected out, friction cancels the step's relative tangential displacement (v·dt) up to
/// `friction × penetration`, and the velocity follows every such correction (v += Δx/dt), so
/// after the last iteration v = (x_end − x_start)/dt and a grain held in place by its
/// neighbours is at rest, not moving with a velocity its position never shows. Their shares
/// are summed and divided by max(1, n/`COLLIDE_RELAXATION`) over the grain's n engaged
/// contacts (averaging with over-relaxation, never above the plain sum). Without acceleration
/// the stage is the book's impulse response alone (every closing contact is an impact, and
/// penetrations are pushed out without touching the velocity).
///
/// The response is continuous in the contacts' speeds and depths, so one bit of rounding
/// cannot change a grain's fate: between the impact speed and √2 times it a contact is part
/// impact, part resting (`impact_weight`), and n counts a resting contact in proportion to
/// its depth up to `COLLIDE_REST_DEPTH` × the two radii, and a closing contact that does not
/// penetrate yet by its impact weight.
pub fn collide(s: &mut AggState, inp: &AggInputs, near: Option<&NearList>) {
    let params = inp.params;
    let dt = params.dt;
    let relaxation = COLLIDE_RELAXATION;
    for i in 0..params.n as usize {
        let pv = s.pos[i];
        let vv = s.vel[i];
        let w = s.acc[i].w;
        let r = s.radius[i];
        let mut p = pv.xyz();
        let mut v = vv.xyz();
        if pv.w != 0.0 && w > 0.0 {
            let a_i = accel_field(s, params, i);
            let mut dv = Vec3::ZERO;
            let mut dp = Vec3::ZERO;
            let mut dpr = Vec3::ZERO;
            let mut count = 0.0f32;
            // What the velocity change is averaged over (see collide.wgsl).
            let mut vcount = 0.0f32;
            if let (true, Some(near)) = (params.collisions != 0, near) {
                for &j in near.of(i) {
                    let j = j as usize;
                    let pj = s.pos[j];
                    let rr = r + s.radius[j];
                    let d = p - pj.xyz();
                    let dist2 = fm::dot(d, d);
                    let reach = rr + params.contact_slop;
                    if dist2 > reach * reach {
                        continue;
                    }
                    let dist = fm::sqrt(dist2);
                    // Coincident grains part along ±y, the lower slot of the spatial order up.
                    let mut n =
                        Vec3::new(0.0, if near.slot_before(i, j) { 1.0 } else { -1.0 }, 0.0);
                    if dist > 0.0 {
                        n = fm::div3(d, dist);
                    }
                    let wj = s.acc[j].w * stack_weight(params.stack_scaling * (pj.y - p.y));
                    let share = fm::div(w, w + wj);
                    let rel = v - s.vel[j].xyz();
                    let vn = fm::dot(rel, n);
                    let pen = rr - dist;
                    let impact2 = impact_speed2(params, near.accel2[i], near.accel2[j]);
                    let wi = impact_weight(vn, impact2);
                    if wi > 0.0 {
                        let mut new_vn = -params.restitution * vn;
                        let acc_vn = fm::dot(s.acc[i].xyz() - s.acc[j].xyz(), n) * dt;
                        if acc_vn < 0.0 {
                            new_vn = fm::madd(params.restitution, acc_vn, new_vn).max(0.0);
                        }
                        let dvn = new_vn - vn;
                        let mut dvc = n * dvn;
                        let vt = fm::madd3(n, -vn, rel);
                        let vt_len = fm::length(vt);
                        if vt_len > 0.0 {
                            dvc = fm::madd3(
                                vt,
                                -fm::div(vt_len.min(params.friction * dvn), vt_len),
                                dvc,
                            );
                        }
                        let sw = share * wi;
                        dv = fm::madd3(dvc, sw, dv);
                        if pen > 0.0 {
                            dp = fm::madd3(n, pen * sw, dp);
                        }
                    }
                    if impact2 == 0.0 {
                        // Without acceleration, the book's response alone.
                        if wi > 0.0 {
                            count += 1.0;
                            vcount += 1.0;
                        } else if pen > 0.0 {
                            // Weighted by depth (see collide.wgsl).
                            let wd = (pen / (rr * COLLIDE_REST_DEPTH)).clamp(0.0, 1.0);
                            dp = fm::madd3(n, pen * share * wd, dp);
                            count += wd;
                        }
                    } else {
                        if wi < 1.0 && pen > 0.0 {
                            let mut dpc = n * pen;
                            let vt = fm::madd3(n, -vn, rel);
                            let slip = fm::length(vt) * dt;
                            if slip > 0.0 {
                                dpc = fm::madd3(
                                    vt,
                                    -fm::div(dt * slip.min(params.friction * pen), slip),
                                    dpc,
                                );
                            }
                            dpr = fm::madd3(dpc, share * (1.0 - wi), dpr);
                        }
                        let c = wi.max((pen / (rr * COLLIDE_REST_DEPTH)).clamp(0.0, 1.0));
                        count += c;
                        vcount += c;
                    }
                }
            }
            if count > 0.0 {
                let k = fm::div(1.0, fm::div(count, relaxation).max(1.0));
                // The velocity follows the resting corrections: one division per grain.
                let dpk = dpr * k;
                let dvk = if vcount > 0.0 {
                    fm::div3(dv, vcount)
                } else {
                    Vec3::ZERO
                };
                v = v + dvk + fm::div3(dpk, dt);
                p = p + fm::div3(dp, count) + dpk;
            }
            for col in &inp.colliders[..params.collider_count as usize] {
                if !collider_in_reach(col, p, r, params.contact_slop) {
                    continue;
                }
                let contact = collider_contact(col, p, r);
                if contact.w > -params.contact_slop {
                    resolve_contact(&mut p, &mut v, col, contact, a_i, dt);
                }
            }
        }
        s.pos_next[i] = p.extend(pv.w);
        s.vel_next[i] = v.extend(vv.w);
    }
    swap(s, params.n as usize);
}

/// One link's contact from the current state: (normal towards moving `a`, penetration,
/// restitution), or `None` when the link is satisfied.
fn link_contact(s: &AggState, link: &GpuLink) -> Option<(Vec3, f32, f32)> {
    let pa = s.pos[link.a as usize].xyz();
    let pb = if link.b != NONE {
        s.pos[link.b as usize].xyz()
    } else {
        link.anchor.xyz()
    };
    let d = pb - pa;
    let len = fm::length(d);
    if len <= 0.0 {
        return None;
    }
    let normal = fm::div3(d, len);
    if link.kind == 1 {
        if len < link.length {
            return None;
        }
        return Some((normal, len - link.length, link.restitution));
    }
    if len == link.length {
        return None;
    }
    if len < link.length {
        Some((-normal, link.length - len, 0.0))
    } else {
        Some((normal, len - link.length, 0.0))
    }
}

fn link_sep(s: &AggState, link: &GpuLink, n: Vec3) -> f32 {
    let va = s.vel[link.a as usize].xyz();
    let vb = if link.b != NONE {
        s.vel[link.b as usize].xyz()
    } else {
        Vec3::ZERO
    };
    (va - vb).dot(n)
}

/// Resolves one link with the book's contact model (in the WGSL's operation order).
fn solve_link(s: &mut AggState, params: &GpuAggParams, link: &GpuLink) {
    let a = link.a as usize;
    let wa = s.acc[a].w;
    let wb = if link.b != NONE {
        s.acc[link.b as usize].w
    } else {
        0.0
    };
    let total = wa + wb;
    if total <= 0.0 {
        return;
    }
    let Some((n, pen, e)) = link_contact(s, link) else {
        return;
    };
    let mut pa = s.pos[a].xyz();
    let mut va = s.vel[a].xyz();
    let aa = accel_field(s, params, a);
    let (mut pb, mut vb, ab) = if link.b != NONE {
        let b = link.b as usize;
        (s.pos[b].xyz(), s.vel[b].xyz(), accel_field(s, params, b))
    } else {
        (link.anchor.xyz(), Vec3::ZERO, Vec3::ZERO)
    };
    let sep = fm::dot(va - vb, n);
    if sep <= 0.0 {
        let mut new_sep = -sep * e;
        let acc_caused = fm::dot(aa - ab, n) * params.dt;
        if acc_caused < 0.0 {
            new_sep = fm::madd(e, acc_caused, new_sep).max(0.0);
        }
        let impulse = fm::div(new_sep - sep, total);
        va = fm::madd3(n, impulse * wa, va);
        vb = fm::madd3(n, -(impulse * wb), vb);
    }
    if pen > 0.0 {
        let move_per_w = n * fm::div(pen, total);
        pa = fm::madd3(move_per_w, wa, pa);
        pb = fm::madd3(move_per_w, -wb, pb);
    }
    s.pos[a] = pa.extend(s.pos[a].w);
    s.vel[a] = va.extend(s.vel[a].w);
    if link.b != NONE {
        let b = link.b as usize;
        s.pos[b] = pb.extend(s.pos[b].w);
        s.vel[b] = vb.extend(s.vel[b].w);
    }
}

/// Stage `solve_links`: every iteration runs every colour; a colour's links share no particle.
pub fn solve_links(s: &mut AggState, inp: &AggInputs) {
    let params = inp.params;
    for _ in 0..params.link_iterations {
        for c in 0..params.colour_count as usize {
            for link in &inp.links[inp.colour_start[c] as usize..inp.colour_start[c + 1] as usize] {
                solve_link(s, params, link);
            }
        }
    }
}

/// The book's resolver (§7.3.1): repeatedly resolve the most severe link contact (lowest
/// separating velocity among those closing or penetrating), re-evaluating after each, up to
/// `link_iterations × links` resolutions.
pub fn solve_links_most_severe(s: &mut AggState, inp: &AggInputs) {
    let params = inp.params;
    let limit = params.link_iterations as usize * inp.links.len();
    for _ in 0..limit {
        let mut best: Option<(f32, usize)> = None;
        for (l, link) in inp.links.iter().enumerate() {
            let wa = s.acc[link.a as usize].w;
            let wb = if link.b != NONE {
                s.acc[link.b as usize].w
            } else {
                0.0
            };
            if wa + wb <= 0.0 {
                continue;
            }
            if let Some((n, pen, _)) = link_contact(s, link) {
                let sep = link_sep(s, link, n);
                if (sep < 0.0 || pen > 0.0) && best.is_none_or(|(b, _)| sep < b) {
                    best = Some((sep, l));
                }
            }
        }
        let Some((_, l)) = best else { break };
        solve_link(s, params, &inp.links[l]);
    }
}
