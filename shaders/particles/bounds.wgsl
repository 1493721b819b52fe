// Stages `emitter_bounds` and `bounds_publish`: the axis-aligned box of each emitter's live
// particles (a particle names its emitter's slot in life.kind, above KIND_CURVES_SHIFT), for
// frustum culling. Coordinates become u32 keys that order as the floats do, so the box is an
// exact min and max made with integer atomics: per workgroup first (in workgroup memory), then
// one atomicMax per workgroup and key into `bounds_keys` (cleared to 0 = empty before the pass;
// a minimum is kept as the largest inverted key). `bounds_publish` turns the keys back into
// floats: per slot, (min.xyz, 1) and (max.xyz, 1), or (+inf, 0) and (-inf, 0) when empty.
// CPU twin: src/particles/cpu.rs `emitter_bounds`.

var<workgroup> wg_bounds: array<atomic<u32>, BOUNDS_KEYS>;

fn bounds_sortable(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

fn bounds_float(k: u32) -> f32 {
    return bitcast<f32>(select(~k, k & 0x7fffffffu, (k & 0x80000000u) != 0u));
}

@compute @workgroup_size(WG)
fn emitter_bounds(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    for (var k = lid.x; k < BOUNDS_KEYS; k = k + WG) {
        atomicStore(&wg_bounds[k], 0u);
    }
    workgroupBarrier();
    let i = gid.x;
    if (i < counters.live) {
        let slot = life[i].kind >> KIND_CURVES_SHIFT;
        if (slot != 0u && slot <= MAX_EMITTERS) {
            let at = (slot - 1u) * 6u;
            let p = pos[i].xyz;
            for (var c = 0u; c < 3u; c = c + 1u) {
                let key = bounds_sortable(p[c]);
                atomicMax(&wg_bounds[at + c], ~key);
                atomicMax(&wg_bounds[at + 3u + c], key);
            }
        }
    }
    workgroupBarrier();
    for (var k = lid.x; k < BOUNDS_KEYS; k = k + WG) {
        let v = atomicLoad(&wg_bounds[k]);
        if (v != 0u) {
            atomicMax(&bounds_keys[k], v);
        }
    }
}

@compute @workgroup_size(WG)
fn bounds_publish(@builtin(global_invocation_id) gid: vec3<u32>) {
    let e = gid.x;
    if (e >= MAX_EMITTERS) {
        return;
    }
    let at = e * 6u;
    if (atomicLoad(&bounds_keys[at]) == 0u) {
        let inf = bitcast<f32>(0x7f800000u);
        emitter_bounds_out[2u * e] = vec4<f32>(inf, inf, inf, 0.0);
        emitter_bounds_out[2u * e + 1u] = vec4<f32>(-inf, -inf, -inf, 0.0);
        return;
    }
    var lo = vec3<f32>(0.0);
    var hi = vec3<f32>(0.0);
    for (var c = 0u; c < 3u; c = c + 1u) {
        lo[c] = bounds_float(~atomicLoad(&bounds_keys[at + c]));
        hi[c] = bounds_float(atomicLoad(&bounds_keys[at + 3u + c]));
    }
    emitter_bounds_out[2u * e] = vec4<f32>(lo, 1.0);
    emitter_bounds_out[2u * e + 1u] = vec4<f32>(hi, 1.0);
}
