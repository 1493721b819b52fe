// Stage `collide`: particle-particle contacts found on the uniform grid, and contacts with the
// static colliders, one thread per particle, Jacobi style: every thread reads the previous
// iterate (pos_in, vel_in) and writes only its own particle (pos_out, vel_out).
//
// Impacts (contacts closing faster than `impact_speed2`'s speed) get the book's velocity
// response (restitution with the resting-contact fix, Coulomb friction) and their penetration
// pushed out; their shares are averaged over the grain's engaged contacts. Without
// acceleration every closing contact is an impact and penetrations are pushed out without
// touching the velocity: the stage is then the book's impulse response alone (Newton's
// cradle).
//
// Resting contacts are position based (Macklin et al., "Unified Particle Physics for
// Real-Time Applications", 2014): the penetration is projected out, friction cancels the
// step's relative tangential displacement (v dt) up to friction x penetration, and the
// velocity follows every such correction (v += dx/dt). So after the last iteration
// v = (x_end - x_start)/dt: a grain held in place by its neighbours is at rest instead of
// keeping a velocity its position never shows, which is what kept a pile jittering. Their
// shares are summed and divided by max(1, n/RELAXATION) over the grain's n engaged contacts
// (averaging with over-relaxation, never above the plain sum), so a grain wedged in a pile is
// not pushed once per neighbour.
//
// The response is continuous in the contacts' speeds and depths, so that one bit of rounding
// cannot change a grain's fate: between the impact speed and sqrt(2) times it a contact is
// part impact, part resting (`impact_weight`), and n counts a resting contact in proportion to
// its depth up to REST_DEPTH x the two radii, a closing one that does not penetrate yet by its
// impact weight (a projected contact is left touching, its depth 0 give or take the last bit).
// Without acceleration the velocity change is averaged over the closing contacts alone
// (`vcount`): a pair just pushed apart touches again at a depth of a few ulps, which NVIDIA's
// rounding makes positive, and counted by that depth it would divide one grain's impulse by
// 1 + 1024 x depth and not its partner's (the cradle gained 3.7e-4 of its momentum so on an
// H200). Its depth still counts in the position average.
//
// A grain's candidates are fixed for the step by `near_list` (near_list.wgsl): the grains within
// a cell size, the slop and a skin of it, as the grid was built. They are
// visited in a fixed order (near_list.wgsl), so the sums are deterministic. Static colliders are applied afterwards, unaveraged,
// so walls stay hard. RELAXATION and REST_DEPTH come from src/aggregate/model.rs.
//
// With the grid (`collide_near`), the iterations run in the spatial order of order.wgsl: slot
// s holds particle order[s], its state packed into near_in (position and radius, or -1 when
// removed, at [s]; velocity and inverse mass at [n + s], the second half of the same binding:
// see order.wgsl) and near_acc (acceleration), and its candidates by slot in `candidates`.
// Thread s handles slot s, so a thread's neighbours sit in nearby
// slots, read by nearby threads. The arithmetic and the visiting order are those of the
// particle-order loop, and coincident grains part by slot, the lower up, which the twin reads
// from the spatial order's keys (cpu.rs `NearList::slot_before`): only where the values are
// read from changes. Without a grid (`collide`: colliders only) thread i handles particle i in place.
// CPU twin: src/aggregate/cpu.rs `collide` (particle order; the same arithmetic).

/// No particle has an own acceleration (the world counts them: AggregateWorld's
/// `own_accelerations`), so every grain's near_acc (own acceleration, and the square of it with
/// the gravity fields) is the same vec4. A `collide_near` compiled with true takes a neighbour's
/// from the grain's own, the same bits, and leaves the read out of the kernel: 16 bytes less
/// for each contact in reach. (On lavapipe a read behind an `if` costs its code even when no lane
/// takes it, so a flag in `params` did not help: BENCHMARKS.md, 2026-11-27, `6242195`.)
override SHARED_ACCELERATION: bool = false;

/// (1 + x/16)^16 with x clamped to [-16, 16]: close to e^x for the small arguments stack
/// scaling uses, and built from one exact scaling, one add and four squarings, which round the
/// same on every adapter and on the CPU (exp() does not: a one-ulp difference changes which
/// contacts count in a Jacobi iteration).
fn stack_weight(x: f32) -> f32 {
    var t = 1.0 + clamp(x, -16.0, 16.0) * 0.0625;
    t = t * t;
    t = t * t;
    t = t * t;
    return t * t;
}

/// A particle's own acceleration `a` plus the gravity fields: `accel_field` of links.wgsl for a
/// value already read.
fn with_gravity(a: vec3<f32>) -> vec3<f32> {
    var t = a;
    for (var k = 0u; k < params.field_count; k = k + 1u) {
        if (params.fields[k].kind == 1u) {
            t = t + params.fields[k].v.xyz;
        }
    }
    return t;
}

/// The square of the impact speed between two grains from the squares `a2_i`, `a2_j` of their
/// field accelerations (own acceleration plus the gravity fields; the spatial order keeps each
/// grain's in near_acc.w): the speed the larger of them adds in two steps; 0 when neither
/// accelerates (then every closing contact is an impact). Squared so that no square root is
/// compared.
fn impact_speed2(a2_i: f32, a2_j: f32) -> f32 {
    let reach = 2.0 * params.dt;
    return reach * reach * max(a2_i, a2_j);
}

/// How much of a contact closing at `vn` is an impact, from 0 (resting) to 1: 0 when parting,
/// 1 when neither grain accelerates (impact2 = 0), else rising linearly in vn^2 from the
/// impact speed to sqrt(2) times it, so that the response stays continuous in vn.
fn impact_weight(vn: f32, impact2: f32) -> f32 {
    if (vn >= 0.0) {
        return 0.0;
    }
    if (impact2 == 0.0) {
        return 1.0;
    }
    return clamp((vn * vn - impact2) / impact2, 0.0, 1.0);
}

/// Whether table collider `c` may touch the grain (`collider_in_reach` of colliders.wgsl).
fn table_collider_in_reach(c: u32, p: vec3<f32>, r: f32) -> bool {
    return collider_in_reach(colliders[c], p, r, params.contact_slop);
}

/// The static colliders, unaveraged, after the particle contacts, in table order. A first loop
/// asks whether any collider is in reach of the grain's position: when none is, none acts and
/// none moves the grain, so the contact loop is skipped and the result is the same bits as
/// running it. Why: a software adapter (lavapipe) evaluates every branch inside a loop for all
/// lanes of a group, so the contact loop cost every grain every collider's whole contact (a
/// third of a collide iteration on the sand box), while an `if` outside any loop is skipped by
/// a group of grains none of which needs it. The table is a uniform array for the same adapter:
/// it reads a uniform with one load where a storage array costs a gather per lane.
fn apply_colliders(b_in: Body, r: f32, a_i: vec3<f32>) -> Body {
    var b = b_in;
    var any_near = false;
    for (var c = 0u; c < params.collider_count; c = c + 1u) {
        any_near = any_near | table_collider_in_reach(c, b.p, r);
    }
    if (any_near) {
        for (var c = 0u; c < params.collider_count; c = c + 1u) {
            if (table_collider_in_reach(c, b.p, r)) {
                let col = colliders[c];
                let contact = collider_contact(col, b.p, r);
                if (contact.w > -params.contact_slop) {
                    b = resolve_contact(b, col, contact, a_i, params.dt);
                }
            }
        }
    }
    return b;
}

/// Without a grid: the colliders alone, thread i on particle i.
@compute @workgroup_size(WG)
fn collide(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.n) {
        return;
    }
    let pv = pos_in[i];
    let vv = vel_in[i];
    var b = Body(pv.xyz, vv.xyz);
    if (pv.w != 0.0 && acc[i].w > 0.0) {
        b = apply_colliders(b, radius[i], accel_field(i));
    }
    pos_out[i] = vec4<f32>(b.p, pv.w);
    vel_out[i] = vec4<f32>(b.v, vv.w);
}

/// A grain's sums over its contacts in one collide iteration.
struct Sums {
    dv: vec3<f32>,
    dp: vec3<f32>,
    dpr: vec3<f32>,
    count: f32,
    // What the velocity change is averaged over: count, less the contacts without
    // acceleration that do not close (see the header).
    vcount: f32,
}

/// The grain in slot s as the collide loop reads it: the iterate's position and velocity,
/// radius, inverse mass, own and field accelerations, and its slot (the tie-break of
/// coincident grains: the slot is at hand where a particle index would cost a read per
/// candidate).
struct Grain {
    p: vec3<f32>,
    v: vec3<f32>,
    r: f32,
    w: f32,
    acc: vec3<f32>,
    a: vec3<f32>,
    // dot(a, a)
    a2: f32,
    slot: u32,
}

/// Adds grain `g`'s contact with the grain in slot t to its sums.
fn near_contact(sums: ptr<function, Sums>, g: Grain, t: u32) {
    let dt = params.dt;
    let pj = near_in[t];
    let rr = g.r + pj.w;
    let d = g.p - pj.xyz;
    let dist2 = dot(d, d);
    let reach = rr + params.contact_slop;
    if (dist2 > reach * reach) {
        return;
    }
    let dist = sqrt(dist2);
    var n: vec3<f32>;
    if (dist > 0.0) {
        n = d / dist;
    } else {
        n = vec3<f32>(0.0, select(-1.0, 1.0, g.slot < t), 0.0);
    }
    let vj = near_in[params.n + t];
    var acc_t = vec4<f32>(g.acc, g.a2);
    if (!SHARED_ACCELERATION) {
        acc_t = near_acc[t];
    }
    let acc_j = acc_t.xyz;
    // Stack scaling: the lower grain counts as heavier by about e^(k dy).
    let wj = vj.w * stack_weight(params.stack_scaling * (pj.y - g.p.y));
    let share = g.w / (g.w + wj);
    let rel = g.v - vj.xyz;
    let vn = dot(rel, n);
    let pen = rr - dist;
    let impact2 = impact_speed2(g.a2, acc_t.w);
    let wi = impact_weight(vn, impact2);
    if (wi > 0.0) {
        var new_vn = -params.restitution * vn;
        // The gravity fields act on both particles alike and cancel here.
        let acc_vn = dot(g.acc - acc_j, n) * dt;
        if (acc_vn < 0.0) {
            new_vn = max(new_vn + params.restitution * acc_vn, 0.0);
        }
        let dvn = new_vn - vn;
        var dvc = n * dvn;
        let vt = rel - n * vn;
        let vt_len = length(vt);
        if (vt_len > 0.0) {
            dvc = dvc - vt * (min(vt_len, params.friction * dvn) / vt_len);
        }
        let sw = share * wi;
        (*sums).dv = (*sums).dv + dvc * sw;
        if (pen > 0.0) {
            (*sums).dp = (*sums).dp + n * (pen * sw);
        }
    }
    if (impact2 == 0.0) {
        // Without acceleration, the book's response alone.
        if (wi > 0.0) {
            (*sums).count = (*sums).count + 1.0;
            (*sums).vcount = (*sums).vcount + 1.0;
        } else if (pen > 0.0) {
            // Weighted by depth as a resting contact is, so that a touching pair that one
            // rounding reads as overlapping by an ulp does not count as a whole contact in the
            // average of its grains.
            let wd = clamp(pen / (rr * REST_DEPTH), 0.0, 1.0);
            (*sums).dp = (*sums).dp + n * (pen * share * wd);
            (*sums).count = (*sums).count + wd;
        }
    } else {
        if (wi < 1.0 && pen > 0.0) {
            var dpc = n * pen;
            let vt = rel - n * vn;
            let slip = length(vt) * dt;
            if (slip > 0.0) {
                dpc = dpc - vt * (dt * min(slip, params.friction * pen) / slip);
            }
            (*sums).dpr = (*sums).dpr + dpc * (share * (1.0 - wi));
        }
        let c = max(wi, clamp(pen / (rr * REST_DEPTH), 0.0, 1.0));
        (*sums).count = (*sums).count + c;
        (*sums).vcount = (*sums).vcount + c;
    }
}

/// With the grid: slot s of the spatial order (see the header), its candidates from the
/// step's near list (near_list.wgsl).
@compute @workgroup_size(WG)
fn collide_near(@builtin(global_invocation_id) gid: vec3<u32>) {
    let s = gid.x;
    let n = params.n;
    if (s >= n) {
        return;
    }
    let dt = params.dt;
    let pv = near_in[s];
    let vv = near_in[n + s];
    let w = vv.w;
    let r = pv.w;
    var p = pv.xyz;
    var v = vv.xyz;
    if (r >= 0.0 && w > 0.0) {
        let acc_s = near_acc[s];
        let acc_i = acc_s.xyz;
        let a_i = with_gravity(acc_i);
        let i = candidates[n + s];
        let g = Grain(p, v, r, w, acc_i, a_i, acc_s.w, s);
        var sums = Sums(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), 0.0, 0.0);
        let listed = candidates[s];
        if (listed <= params.list_capacity) {
            for (var e = 0u; e < listed; e = e + 1u) {
                near_contact(&sums, g, candidates[(2u + e) * n + s]);
            }
        } else {
            // More candidates than the list holds: the same ones, in the same order, from the
            // grid, tested on the positions it was built from.
            let pb = pos_in[i].xyz;
            let box = near_box_cells(pb);
            for (var dz = 0; dz <= box[1].z; dz = dz + 1) {
                for (var dy = 0; dy <= box[1].y; dy = dy + 1) {
                    for (var dx = 0; dx <= box[1].x; dx = dx + 1) {
                        let c = box[0] + vec3<i32>(dx, dy, dz);
                        if (near_cell_out_of_reach(pb, c)) {
                            continue;
                        }
                        let cell = cells[grid_key(c, params.table_mask)];
                        let len = cell_entry_len(cell);
                        for (var e = 0u; e < len; e = e + 1u) {
                            let t = cell_entry_slot(cell, e);
                            if (t != s && near_in[t].w >= 0.0
                                && near_candidate(pb, pos_in[candidates[n + t]].xyz, c)) {
                                near_contact(&sums, g, t);
                            }
                        }
                    }
                }
            }
        }
        if (sums.count > 0.0) {
            let k = 1.0 / max(sums.count / RELAXATION, 1.0);
            // The velocity follows the resting corrections: one division per grain.
            let dpk = sums.dpr * k;
            var dvk = vec3<f32>(0.0);
            if (sums.vcount > 0.0) {
                dvk = sums.dv / sums.vcount;
            }
            v = v + dvk + dpk / dt;
            p = p + sums.dp / sums.count + dpk;
        }
        let b = apply_colliders(Body(p, v), r, a_i);
        p = b.p;
        v = b.v;
    }
    near_out[s] = vec4<f32>(p, pv.w);
    near_out[n + s] = vec4<f32>(v, w);
}
