// Stage `solve_links`: cables and rods as contacts (book §7.4), resolved by the book's
// contact model (velocity with the resting-contact fix, then interpenetration by inverse mass)
// in coloured batches: links of one colour share no particle, so the threads of a batch never
// touch the same particle and the result does not depend on thread order. One workgroup runs
// every iteration and every colour with barriers in between, so the whole solve is a single
// dispatch however many colours there are. Works in place on pos_out/vel_out.
// CPU twin: src/aggregate/cpu.rs `solve_links` (same batches, same order within a link).

var<workgroup> wg_range: vec2<u32>;

/// Acceleration the particle would have from its own acceleration and the gravity fields: the
/// velocity this builds in one step is taken out of a rebound (the resting-contact fix).
fn accel_field(i: u32) -> vec3<f32> {
    var a = acc[i].xyz;
    for (var k = 0u; k < params.field_count; k = k + 1u) {
        if (params.fields[k].kind == 1u) {
            a = a + params.fields[k].v.xyz;
        }
    }
    return a;
}

fn solve_link(l: u32) {
    let link = links[l];
    var pa = pos_out[link.a].xyz;
    var va = vel_out[link.a].xyz;
    let wa = acc[link.a].w;
    let aa = accel_field(link.a);
    var pb = link.anchor.xyz;
    var vb = vec3<f32>(0.0);
    var wb = 0.0;
    var ab = vec3<f32>(0.0);
    if (link.b != NONE) {
        pb = pos_out[link.b].xyz;
        vb = vel_out[link.b].xyz;
        wb = acc[link.b].w;
        ab = accel_field(link.b);
    }
    let total = wa + wb;
    let d = pb - pa;
    let len = length(d);
    if (total <= 0.0 || len <= 0.0) {
        return;
    }
    let normal = d / len;
    var n = normal;
    var pen = len - link.length;
    var e = link.restitution;
    if (link.kind == 1u) {
        if (len < link.length) {
            return;
        }
    } else {
        if (len == link.length) {
            return;
        }
        e = 0.0;
        if (len < link.length) {
            n = -normal;
            pen = link.length - len;
        }
    }
    let sep = dot(va - vb, n);
    if (sep <= 0.0) {
        var new_sep = -sep * e;
        let acc_caused = dot(aa - ab, n) * params.dt;
        if (acc_caused < 0.0) {
            new_sep = max(new_sep + e * acc_caused, 0.0);
        }
        let impulse = (new_sep - sep) / total;
        va = va + n * (impulse * wa);
        vb = vb - n * (impulse * wb);
    }
    if (pen > 0.0) {
        let move_per_w = n * (pen / total);
        pa = pa + move_per_w * wa;
        pb = pb - move_per_w * wb;
    }
    pos_out[link.a] = vec4<f32>(pa, pos_out[link.a].w);
    vel_out[link.a] = vec4<f32>(va, vel_out[link.a].w);
    if (link.b != NONE) {
        pos_out[link.b] = vec4<f32>(pb, pos_out[link.b].w);
        vel_out[link.b] = vec4<f32>(vb, vel_out[link.b].w);
    }
}

@compute @workgroup_size(WG)
fn solve_links(@builtin(local_invocation_id) lid: vec3<u32>) {
    for (var it = 0u; it < params.link_iterations; it = it + 1u) {
        for (var c = 0u; c < params.colour_count; c = c + 1u) {
            if (lid.x == 0u) {
                wg_range = vec2<u32>(colour_start[c], colour_start[c + 1u]);
            }
            let range = workgroupUniformLoad(&wg_range);
            for (var l = range.x + lid.x; l < range.y; l = l + WG) {
                solve_link(l);
            }
            storageBarrier();
            workgroupBarrier();
        }
    }
}
