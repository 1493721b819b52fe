// Trails: the last TRAIL positions of every live particle, in the public `trails` buffer, slot
// s's ring at [s·K, s·K + K) (K = params.trail_length), the entry for step n (1-based) at
// (n − 1) mod K. Three stages keep the rings with their particles:
//   trail_compact  after `compact`: each moved particle's ring moves with it (the same
//                  mover-to-hole pairing, from the same prefix sums)
//   trail_append   after `append`: a new particle's ring is filled with its first position
//   trail_push     every step, last: each live particle's position into its ring's slot for
//                  this step
// CPU twin: src/particles/trails.rs, the same stages.

fn trail_copy(dst: u32, src: u32) {
    let k = params.trail_length;
    for (var t = 0u; t < k; t = t + 1u) {
        trails[dst * k + t] = trails[src * k + t];
    }
}

@compute @workgroup_size(WG)
fn trail_compact(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
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
            trail_copy(scratch[hole_base() + rank], i);
        }
        run = run + vals[k];
    }
}

@compute @workgroup_size(WG)
fn trail_append(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    if (j < counters.spawn_accepted) {
        let dst = counters.survivors + j;
        let p = staging[j].pos;
        let k = params.trail_length;
        for (var t = 0u; t < k; t = t + 1u) {
            trails[dst * k + t] = p;
        }
    }
}

@compute @workgroup_size(WG)
fn trail_push(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < counters.live) {
        let k = params.trail_length;
        trails[i * k + params.step % k] = pos[i];
    }
}
