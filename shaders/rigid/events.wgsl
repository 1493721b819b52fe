// Stage `contact_events` (`contact_events`, `contact_events_stopped`), once per step after the
// warm start, while contact events are on: the shape pairs whose contact started this step
// (touching now, not in the last step's manifolds) and those whose contact stopped (touching in
// the last step's, not now), appended to the counters (COUNTER_CONTACT_EVENTS, at most
// CONTACT_EVENTS_MAX listed, all counted). Order of the list: none (the host sorts). CPU twin:
// src/rigid/events.rs, same names and tests.

/// Whether manifold `m` touches: a contact slot with a point at or past contact.
fn events_touching(m: Manifold) -> bool {
    if (m.joint != 0u) {
        return false;
    }
    let count = min(m.count, MAX_POINTS);
    for (var i = 0u; i < count; i++) {
        if (m.points[i].w >= 0.0) {
            return true;
        }
    }
    return false;
}

/// Whether `m` is the manifold of pair (key0, key1) and touches.
fn events_same_touching(m: Manifold, key0: u32, key1: u32) -> bool {
    return min(m.shape_a, m.shape_b) == key0 && max(m.shape_a, m.shape_b) == key1
        && events_touching(m);
}

fn events_push(key0: u32, key1: u32) {
    let at = atomicAdd(&counters[COUNTER_CONTACT_EVENT_COUNT], 1u);
    if (at < CONTACT_EVENTS_MAX) {
        atomicStore(&counters[COUNTER_CONTACT_EVENTS + 2u * at], key0);
        atomicStore(&counters[COUNTER_CONTACT_EVENTS + 2u * at + 1u], key1);
    }
}

fn events_prev_count() -> u32 {
    return min(
        min(atomicLoad(&counters[SOLVE_COUNTER_PREV_PAIRS]), params.pair_capacity),
        arrayLength(&manifolds_prev),
    );
}

// One thread per manifold slot of this step: a touching pair the last step's manifolds do not
// hold touching has started.
@compute @workgroup_size(RIGID_WG)
fn contact_events(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= solve_manifold_count()) {
        return;
    }
    let m = manifolds[k];
    if (!events_touching(m)) {
        return;
    }
    let key0 = min(m.shape_a, m.shape_b);
    let key1 = max(m.shape_a, m.shape_b);
    let n = events_prev_count();
    let at = solve_prev_lower_bound(key0, key1, n);
    if (at < n && events_same_touching(manifolds_prev[at], key0, key1)) {
        return;
    }
    events_push(key0, key1);
}

// One thread per manifold slot of the last step: a touching pair this step's manifolds do not
// hold touching has stopped.
@compute @workgroup_size(RIGID_WG)
fn contact_events_stopped(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= events_prev_count()) {
        return;
    }
    let p = manifolds_prev[k];
    if (!events_touching(p)) {
        return;
    }
    let key0 = min(p.shape_a, p.shape_b);
    let key1 = max(p.shape_a, p.shape_b);
    let n = solve_manifold_count();
    // This step's manifolds are sorted by shape pair as the last step's are.
    var lo = 0u;
    var hi = n;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        let q = manifolds[mid];
        if (solve_key_less(min(q.shape_a, q.shape_b), max(q.shape_a, q.shape_b), key0, key1)) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    if (lo < n && events_same_touching(manifolds[lo], key0, key1)) {
        return;
    }
    events_push(key0, key1 | CONTACT_STOPPED);
}
