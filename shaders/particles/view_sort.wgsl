// Stage `depth_keys`: keys for ordering the live particles back to front for alpha blending.
// Per slot below the capacity: the view depth d = (p - eye) . forward of a live particle, made
// into a u32 that sorts as d sorts (negatives: every bit flipped; others: the sign bit set) and
// then inverted, so an ascending radix sort puts the farthest first; the slots past the live
// ones get the largest key and sort to the end. The values are the slots. The radix sort of
// src/gpu/sort.rs then orders the pairs stably. CPU twin: src/particles/view_sort.rs.

/// The camera of the order (src/particles/view_sort.rs `GpuView`): 32 bytes.
struct View {
    eye: vec4<f32>,
    forward: vec4<f32>,
}

@compute @workgroup_size(WG)
fn depth_keys(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.capacity) {
        return;
    }
    var key = 0xffffffffu;
    if (i < counters.live) {
        let d = dot(pos[i].xyz - view.eye.xyz, view.forward.xyz);
        let b = bitcast<u32>(d);
        let ascending = select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
        key = ~ascending;
    }
    sort_keys[i] = key;
    sort_values[i] = i;
}
