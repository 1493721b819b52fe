// Stage `fracture` (catalogue §14.2, the book's §17.2.2): once per step after the substeps,
// finds the breakable bodies (a breaking impulse in Body.acc.w > 0) that a contact struck
// harder than that, and lists each once in the counters for the host to split
// (rigid/world/fracture.rs). CPU twin: src/rigid/fracture.rs `detect`, same order of
// operations.
//
// Two entry points, one thread per manifold slot: `fracture_mark` leaves in a struck body's
// wake word of `claims` (step_start clears it; the wake stages are done with it by now) the
// largest impulse (f32 bits, which order as u32s for positive values) of the contacts that
// exceed its threshold; `fracture_record` lets the contact that holds that largest impulse
// claim the body (one compare-exchange: exactly one contact wins) and record the event:
// the body, the contact's strongest point and normal in the body's frame, and the impulse. The
// body's threshold is negated, so it is never listed again while it waits to be split.
//
// A contact's impulse over a step is the sum of its points' normal impulses over the last
// `substeps` substeps, as the warm start applies them (Manifold.rolling.z, added by
// solve_warm_apply while params.fracture is set): the impulse of the step, a substep late (the
// first substep warm-starts from the last step's final impulses, so a blow in the last
// substep of a step counts in the next). A body resting under its weight W has W·dt.
//
// Reads: params, manifolds, counters[COUNTER_SLOTS]; writes claims (word 0 of struck bodies),
// bodies[b].acc.w, counters[COUNTER_FRACTURES] and the events from COUNTER_FRACTURE_EVENTS.

/// A contact manifold's impulse over the step (see the header).
fn fracture_impulse(m: Manifold) -> f32 {
    return m.rolling.z;
}

/// Body b's breaking impulse if it is breakable and not yet struck, else 0.
fn fracture_threshold(b: u32) -> f32 {
    if (b == NONE || b >= params.body_count || bodies[b].kind != BODY_DYNAMIC) {
        return 0.0;
    }
    return max(bodies[b].acc.w, 0.0);
}

/// Manifold k if it is a contact with points (not a joint's slot).
fn fracture_contact(k: u32) -> bool {
    return k < solve_manifold_count() && manifolds[k].count > 0u && manifolds[k].joint == 0u;
}

@compute @workgroup_size(RIGID_WG)
fn fracture_mark(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (!fracture_contact(k)) {
        return;
    }
    let m = manifolds[k];
    let j = fracture_impulse(m);
    for (var side = 0u; side < 2u; side++) {
        let b = select(m.body_b, m.body_a, side == 0u);
        let limit = fracture_threshold(b);
        if (limit > 0.0 && j > limit) {
            atomicMax(&claims[b], bitcast<u32>(j));
        }
    }
}

@compute @workgroup_size(RIGID_WG)
fn fracture_record(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (!fracture_contact(k)) {
        return;
    }
    let m = manifolds[k];
    let j = fracture_impulse(m);
    for (var side = 0u; side < 2u; side++) {
        let b = select(m.body_b, m.body_a, side == 0u);
        let limit = fracture_threshold(b);
        if (!(limit > 0.0 && j > limit)) {
            continue;
        }
        // The contact whose impulse is the body's largest claims it; a weak exchange may fail
        // spuriously, so it is retried while the word still holds that impulse.
        var won = false;
        loop {
            let r = atomicCompareExchangeWeak(&claims[b], bitcast<u32>(j), 0xffffffffu);
            if (r.exchanged || r.old_value != bitcast<u32>(j)) {
                won = r.exchanged;
                break;
            }
        }
        if (!won) {
            continue;
        }
        // The strongest point, in the body's frame.
        var best = 0u;
        for (var i = 1u; i < min(m.count, MAX_POINTS); i++) {
            if (m.impulses[i].w > m.impulses[best].w) {
                best = i;
            }
        }
        let pos = bodies[b].pos.xyz;
        let q = bodies[b].orient;
        let point = quat_rotate_inv(q, m.points[best].xyz - pos);
        let normal = quat_rotate_inv(q, m.normal.xyz);
        bodies[b].acc.w = -limit;
        let at = atomicAdd(&counters[COUNTER_FRACTURES], 1u);
        if (at < FRACTURE_EVENTS_MAX) {
            let base = COUNTER_FRACTURE_EVENTS + at * FRACTURE_EVENT_WORDS;
            atomicStore(&counters[base], b);
            atomicStore(&counters[base + 1u], bitcast<u32>(point.x));
            atomicStore(&counters[base + 2u], bitcast<u32>(point.y));
            atomicStore(&counters[base + 3u], bitcast<u32>(point.z));
            atomicStore(&counters[base + 4u], bitcast<u32>(normal.x));
            atomicStore(&counters[base + 5u], bitcast<u32>(normal.y));
            atomicStore(&counters[base + 6u], bitcast<u32>(normal.z));
            atomicStore(&counters[base + 7u], bitcast<u32>(j));
        }
    }
}
