// Lifecycle stages: remove the dead, spawn firework payloads and host spawns, keep the live
// particles packed in [0, live) so a renderer can draw `live` instances straight from the state
// buffers. The pool uses no atomics: every slot comes from an exclusive prefix sum over the
// per-particle flags written by `integrate`, so the layout is a pure function of the input.
// (Only the list of handle deaths for the host takes an atomic count; its order is not state.)
//
//   scan_reduce  per block of BLOCK flags: (dead, payload) totals  -> block_sums
//   scan_blocks  one workgroup: exclusive scan of block_sums; plan the pool (survivors, spawns
//                accepted, overflow) -> counters, args_append
//   emit         per dead slot below `survivors`: record it as a hole; per bursting firework:
//                write its children to staging[host_spawn + payload rank]; per particle with a
//                host handle killed by the bounds: append its id to `deaths` (count, then ids;
//                the order is the device's, the host sorts them)
//   spawn_emitted per particle the emitters want (host-counted, direct dispatch): draw it into
//                staging[host_spawn + children + k] (emitter.wgsl)
//   compact      per live slot at or above `survivors`: move it into the matching hole
//   append       staging[0..accepted) -> slots [survivors, survivors + accepted); publish the
//                new live count, the indirect dispatch and the indirect draw arguments (in
//                `counters`; the host copies them to the indirect buffers after the pass)
//
// flags, block_sums, hole_slot and removals live in the one `scratch` binding (types.wgsl).
//
// Holes and movers pair up by rank: the k-th dead slot below `survivors` receives the k-th live
// particle at or above it. Both ranks come from the same prefix, so no search is needed.
// CPU twin: src/particles/cpu.rs, the same five functions.

var<workgroup> wg_sum: array<vec2<u32>, WG>;
var<workgroup> wg_n: u32;

fn flag_pair(i: u32, live: u32) -> vec2<u32> {
    if (i >= live) {
        return vec2<u32>(0u);
    }
    let f = scratch[i];
    return vec2<u32>(f & 1u, f >> 2u);
}

/// Exclusive scan of one value per thread across the workgroup (Hillis-Steele). After it
/// returns, wg_sum[WG - 1] holds the workgroup total until the next call.
fn workgroup_exclusive_scan(lid: u32, value: vec2<u32>) -> vec2<u32> {
    workgroupBarrier();
    wg_sum[lid] = value;
    workgroupBarrier();
    for (var off = 1u; off < WG; off = off * 2u) {
        var add = vec2<u32>(0u);
        if (lid >= off) {
            add = wg_sum[lid - off];
        }
        workgroupBarrier();
        wg_sum[lid] = wg_sum[lid] + add;
        workgroupBarrier();
    }
    return wg_sum[lid] - value;
}

@compute @workgroup_size(WG)
fn scan_reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let live = counters.live;
    let first = wid.x * BLOCK + lid.x * ITEMS;
    var s = vec2<u32>(0u);
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        s = s + flag_pair(first + k, live);
    }
    let excl = workgroup_exclusive_scan(lid.x, s);
    if (lid.x == WG - 1u) {
        set_block_sum(wid.x, excl + s);
    }
}

@compute @workgroup_size(WG)
fn scan_blocks(@builtin(local_invocation_id) lid: vec3<u32>) {
    if (lid.x == 0u) {
        wg_n = counters.live;
    }
    let live = workgroupUniformLoad(&wg_n);
    let n_blocks = (live + BLOCK - 1u) / BLOCK;
    var carry = vec2<u32>(0u);
    for (var base = 0u; base < n_blocks; base = base + BLOCK) {
        var vals: array<vec2<u32>, ITEMS>;
        var s = vec2<u32>(0u);
        for (var k = 0u; k < ITEMS; k = k + 1u) {
            let b = base + lid.x * ITEMS + k;
            var v = vec2<u32>(0u);
            if (b < n_blocks) {
                v = block_sum(b);
            }
            vals[k] = v;
            s = s + v;
        }
        let excl = workgroup_exclusive_scan(lid.x, s);
        let chunk_total = wg_sum[WG - 1u];
        var run = carry + excl;
        for (var k = 0u; k < ITEMS; k = k + 1u) {
            let b = base + lid.x * ITEMS + k;
            if (b < n_blocks) {
                set_block_sum(b, run);
            }
            run = run + vals[k];
        }
        carry = carry + chunk_total;
    }
    if (lid.x == 0u) {
        plan_pool(live, carry);
    }
}

/// Decides how many spawns fit. Particles already alive keep priority over new ones (the book's
/// hard cap); host spawns come before firework children. Anything refused is counted.
fn plan_pool(live: u32, total: vec2<u32>) {
    let survivors = live - total.x;
    let host = params.host_spawn;
    let wanted = host + total.y + params.emitted;
    let room = params.capacity - survivors;
    let accepted = min(wanted, room);
    counters.dead = total.x;
    counters.survivors = survivors;
    counters.movers = 0u;
    counters.children_wanted = total.y;
    counters.spawn_wanted = wanted;
    counters.spawn_accepted = accepted;
    counters.emitted = params.emitted;
    atomicStore(&deaths[0], 0u);
    if (accepted < wanted) {
        // The totals since creation saturate at u32::MAX instead of wrapping to a small count
        // (cpu.rs `saturating_add`).
        counters.dropped_total = saturating_add(counters.dropped_total, wanted - accepted);
        counters.host_dropped_total = saturating_add(counters.host_dropped_total, host - min(host, accepted));
        counters.overflow_steps = saturating_add(counters.overflow_steps, 1u);
        counters.wanted_capacity = max(counters.wanted_capacity, saturating_add(survivors, wanted));
    }
    args_append[0] = max(1u, (accepted + WG - 1u) / WG);
    args_append[1] = 1u;
    args_append[2] = 1u;
}

fn emit_children(i: u32, first_slot: u32, accepted: u32, first_serial: u32) {
    if ((life[i].kind & KIND_FIREWORK_MASK) == 0u) {
        emit_sub_children(i, first_slot, accepted, first_serial);
        return;
    }
    let parent_p = pos[i].xyz;
    let parent_v = vel[i].xyz;
    let rule = rules[(life[i].kind & KIND_FIREWORK_MASK) - 1u];
    var n = 0u;
    for (var e = 0u; e < rule.payload_len; e = e + 1u) {
        let payload = payload_at(rule.payload_start + e);
        let cr = rules[payload.ty - 1u];
        for (var c = 0u; c < payload.count; c = c + 1u) {
            let slot = first_slot + n;
            let serial = first_serial + n;
            n = n + 1u;
            if (slot >= accepted) {
                return;
            }
            let u0 = rng_unit(params.seed, serial, params.step, 0u);
            let u1 = rng_unit(params.seed, serial, params.step, 1u);
            let u2 = rng_unit(params.seed, serial, params.step, 2u);
            let u3 = rng_unit(params.seed, serial, params.step, 3u);
            let lifetime = cr.age_min + (cr.age_max - cr.age_min) * u0;
            let v = parent_v + (cr.vel_min.xyz + (cr.vel_max.xyz - cr.vel_min.xyz) * vec3<f32>(u1, u2, u3));
            var rec: SpawnRecord;
            rec.pos = vec4<f32>(parent_p, 1.0);
            rec.vel = vec4<f32>(v, cr.damping);
            rec.acc = vec4<f32>(cr.gravity.xyz, 1.0);
            rec.colour = cr.colour;
            rec.life = Life(0.0, lifetime, payload.ty, GPU_ID_BIT | (serial & ~GPU_ID_BIT));
            rec.size = cr.size;
            staging[slot] = rec;
        }
    }
}

/// A sub-emitter's children of emitted particle `i`: the child emitter's particles drawn around
/// the parent's position (its death children when it died this step, else its impact ones).
fn emit_sub_children(i: u32, first_slot: u32, accepted: u32, first_serial: u32) {
    let sub = emitters[(life[i].kind >> KIND_CURVES_SHIFT) - 1u].sub;
    var child = sub.zw;
    if ((scratch[i] & 1u) != 0u) {
        child = sub.xy;
    }
    let e = emitters[child.x - 1u];
    let origin = pos[i].xyz;
    for (var c = 0u; c < child.y; c = c + 1u) {
        let slot = first_slot + c;
        if (slot >= accepted) {
            return;
        }
        staging[slot] = emitted_record_at(e, first_serial + c, origin);
    }
}

/// Loads this thread's ITEMS flags into `vals` and returns the exclusive (dead, payload) prefix
/// of the first of them, using the block offsets left by `scan_blocks`.
fn block_prefix(block: u32, lid: u32, live: u32, vals: ptr<function, array<vec2<u32>, ITEMS>>) -> vec2<u32> {
    let first = block * BLOCK + lid * ITEMS;
    var s = vec2<u32>(0u);
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        (*vals)[k] = flag_pair(first + k, live);
        s = s + (*vals)[k];
    }
    return block_sum(block) + workgroup_exclusive_scan(lid, s);
}

@compute @workgroup_size(WG)
fn emit(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let live = counters.live;
    let first = wid.x * BLOCK + lid.x * ITEMS;
    var vals: array<vec2<u32>, ITEMS>;
    var run = block_prefix(wid.x, lid.x, live, &vals);
    let survivors = counters.survivors;
    let accepted = counters.spawn_accepted;
    let serial0 = counters.next_serial;
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let i = first + k;
        if (i < live) {
            if (vals[k].x == 1u) {
                if ((scratch[i] & 2u) != 0u) {
                    // Killed by the bounds while the host holds its handle: list its id.
                    let at = atomicAdd(&deaths[0], 1u);
                    atomicStore(&deaths[1u + at], life[i].id);
                }
                if (i < survivors) {
                    scratch[hole_base() + run.x] = i;
                }
            }
            if (vals[k].y > 0u) {
                emit_children(i, params.host_spawn + run.y, accepted, serial0 + run.y);
            }
            if (i == survivors) {
                counters.movers = run.x;
            }
        }
        run = run + vals[k];
    }
}

@compute @workgroup_size(WG)
fn compact(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let live = counters.live;
    let first = wid.x * BLOCK + lid.x * ITEMS;
    var vals: array<vec2<u32>, ITEMS>;
    var run = block_prefix(wid.x, lid.x, live, &vals);
    let survivors = counters.survivors;
    let movers = counters.movers;
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let i = first + k;
        if (i < live && i >= survivors && vals[k].x == 0u) {
            let rank = (i - survivors) - (run.x - movers);
            let dst = scratch[hole_base() + rank];
            pos[dst] = pos[i];
            vel[dst] = vel[i];
            acc[dst] = acc[i];
            life[dst] = life[i];
            colour[dst] = colour[i];
            size[dst] = size[i];
        }
        run = run + vals[k];
    }
}

@compute @workgroup_size(WG)
fn append(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    let accepted = counters.spawn_accepted;
    let survivors = counters.survivors;
    if (j < accepted) {
        let rec = staging[j];
        let dst = survivors + j;
        pos[dst] = rec.pos;
        vel[dst] = rec.vel;
        acc[dst] = rec.acc;
        life[dst] = rec.life;
        colour[dst] = rec.colour;
        size[dst] = rec.size;
    }
    if (j == 0u) {
        let live = survivors + accepted;
        counters.live = live;
        counters.next_serial = counters.next_serial + counters.children_wanted + params.emitted;
        counters.step = counters.step + 1u;
        counters.step_args[0] = (live + WG - 1u) / WG;
        counters.step_args[1] = 1u;
        counters.step_args[2] = 1u;
        counters.step_args[3] = (live + BLOCK - 1u) / BLOCK;
        counters.step_args[4] = 1u;
        counters.step_args[5] = 1u;
        counters.draw_args[0] = 6u;
        counters.draw_args[1] = live;
        counters.draw_args[2] = 0u;
        counters.draw_args[3] = 0u;
    }
}

/// a + b, or u32::MAX where the sum would wrap.
fn saturating_add(a: u32, b: u32) -> u32 {
    return a + min(b, 0xffffffffu - a);
}
