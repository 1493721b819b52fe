// Stage `agg_integrate`: force generators, force fields and the integrator, one thread per
// particle. Reads the previous state (pos_in, vel_in) and writes the next (pos_out, vel_out),
// so every generator sees the same positions whatever order threads run in.
// Springs are gathered per particle from a CSR list (gen_offsets/gen_refs): each spring is
// evaluated once by each end, with the same arithmetic, and the second end negates it. No float
// atomics, and the force on both ends is exactly opposite.
// CPU twin: src/aggregate/cpu.rs `agg_integrate`.

/// Force that generator `g` puts on its particle `a`, given both ends' state (for anchored and
/// one-particle kinds, the `b` values are the anchor at rest with zero inverse mass).
fn gen_force(g: Gen, pa: vec3<f32>, va: vec3<f32>, wa: f32, pb: vec3<f32>, vb: vec3<f32>, wb: f32, dt: f32) -> vec3<f32> {
    let kind = g.kind;
    if (kind == 9u) {
        if (wa > 0.0) {
            return g.anchor.xyz / wa;
        }
        return vec3<f32>(0.0);
    }
    if (kind == 10u) {
        let speed = length(va);
        if (speed > 0.0) {
            return -va * ((g.k.x * speed + g.k.y * speed * speed) / speed);
        }
        return vec3<f32>(0.0);
    }
    if (kind == 5u) {
        // Buoyancy, corrected: submerged fraction (y_w + s - y) / 2s, force rho V g per unit.
        let s = g.k.x;
        let y = pa.y;
        let yw = g.k.z;
        if (y >= yw + s) {
            return vec3<f32>(0.0);
        }
        var frac = 1.0;
        if (y > yw - s) {
            frac = (yw + s - y) / (2.0 * s);
        }
        return vec3<f32>(0.0, frac * g.k.w * g.k.y * g.anchor.x, 0.0);
    }
    if (kind == 6u) {
        // Fake stiff spring: the damped oscillator's closed-form position after dt, reached by
        // the acceleration a = (p_t - p) / dt^2 - v / dt (the book's precedence erratum fixed).
        if (wa <= 0.0) {
            return vec3<f32>(0.0);
        }
        let k = g.k.x;
        let damp = g.k.z;
        let disc = 4.0 * k - damp * damp;
        if (disc <= 0.0) {
            return vec3<f32>(0.0);
        }
        let gamma = 0.5 * sqrt(disc);
        let p = pa - g.anchor.xyz;
        var target_p: vec3<f32>;
        if (params.integrator == 0u) {
            // The book: the closed form continued from (p, v).
            let c = p * (damp / (2.0 * gamma)) + va / gamma;
            target_p = (p * cos(gamma * dt) + c * sin(gamma * dt)) * exp(-0.5 * damp * dt);
        } else {
            // Semi-implicit Euler stores the step's mean velocity, so continue the oscillator's
            // exact two-step recurrence from the last two positions, p and p - v dt: the
            // samples then follow the damped oscillator exactly.
            target_p = p * (2.0 * exp(-0.5 * damp * dt) * cos(gamma * dt)) - (p - va * dt) * exp(-damp * dt);
        }
        let accel = (target_p - p) / (dt * dt) - va / dt;
        return accel / wa;
    }
    let d = pa - pb;
    let len = length(d);
    if (len <= 0.0) {
        return vec3<f32>(0.0);
    }
    let n = d / len;
    let x = len - g.k.y;
    if (kind == 1u || kind == 2u) {
        return -n * (g.k.x * x);
    }
    if (kind == 3u || kind == 4u) {
        if (x <= 0.0) {
            return vec3<f32>(0.0);
        }
        return -n * (g.k.x * x);
    }
    if (kind == 7u || kind == 8u) {
        // Improved damped spring: coefficients relative to m_red/dt^2 and m_red/dt.
        let wsum = wa + wb;
        if (wsum <= 0.0) {
            return vec3<f32>(0.0);
        }
        let m_red = 1.0 / wsum;
        let vrel = dot(va - vb, n);
        return -n * (m_red / (dt * dt) * g.k.x * x + m_red / dt * g.k.z * vrel);
    }
    return vec3<f32>(0.0);
}

fn gen_force_on(index: u32, side: u32) -> vec3<f32> {
    let g = gens[index];
    let pa = pos_in[g.a].xyz;
    let va = vel_in[g.a].xyz;
    let wa = acc[g.a].w;
    var pb = g.anchor.xyz;
    var vb = vec3<f32>(0.0);
    var wb = 0.0;
    if (g.b != NONE) {
        pb = pos_in[g.b].xyz;
        vb = vel_in[g.b].xyz;
        wb = acc[g.b].w;
    }
    let f = gen_force(g, pa, va, wa, pb, vb, wb, params.dt);
    return select(f, -f, side == 1u);
}

@compute @workgroup_size(WG)
fn agg_integrate(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.n) {
        return;
    }
    let dt = params.dt;
    let pv = pos_in[i];
    let vv = vel_in[i];
    let av = acc[i];
    var p = pv.xyz;
    var v = vv.xyz;
    let w = av.w;
    if (pv.w != 0.0 && w > 0.0) {
        var f = vec3<f32>(0.0);
        for (var r = gen_offsets[i]; r < gen_offsets[i + 1u]; r = r + 1u) {
            let entry = gen_refs[r];
            f = f + gen_force_on(entry >> 1u, entry & 1u);
        }
        var a = av.xyz + f * w;
        for (var k = 0u; k < params.field_count; k = k + 1u) {
            a = a + field_accel_one(params.fields[k], p, v, w);
        }
        var keep = 0.0;
        if (vv.w > 0.0) {
            keep = pow(vv.w, dt);
        }
        if (params.integrator == 0u) {
            p = p + v * dt;
            v = (v + a * dt) * keep;
        } else {
            v = (v + a * dt) * keep;
            p = p + v * dt;
        }
    }
    pos_out[i] = vec4<f32>(p, pv.w);
    vel_out[i] = vec4<f32>(v, vv.w);
}
