// Stage `spawn_emitted`: the particles the emitters want this step, drawn on the device. The
// host counts them per emitter (params.emitted in all, emitter e's first at emit_first[e]) and
// dispatches one thread each; thread k finds its emitter, takes the GPU serial
// next_serial + children + k (after this step's firework children) and draws the particle from
// (seed, serial, step, 0..10) into staging[host_spawn + children + k], when that slot fits.
// CPU twin: src/particles/emitter.rs `emitted_record` and src/particles/cpu.rs `spawn_emitted`,
// the same operations in the same order.

const EMIT_PI: f32 = 3.14159265358979;

/// v turned by the unit quaternion q (x, y, z, w).
fn emit_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let u = q.xyz;
    let t = cross(u, v) + v * q.w;
    return v + cross(u, t) * 2.0;
}

/// A uniform unit vector: z = 1 - 2a, longitude π(2b - 1) (inside [-π, π), where WGSL bounds
/// the error of sin and cos).
fn emit_unit_dir(a: f32, b: f32) -> vec3<f32> {
    let z = 1.0 - 2.0 * a;
    let s = sqrt(max(1.0 - z * z, 0.0));
    let phi = EMIT_PI * (2.0 * b - 1.0);
    return vec3<f32>(s * cos(phi), s * sin(phi), z);
}

fn emit_lerp(lo: f32, hi: f32, u: f32) -> f32 {
    return lo + (hi - lo) * u;
}

fn emit_shape_point(e: Emitter, u0: f32, u1: f32, u2: f32) -> vec3<f32> {
    let a = e.shape_a;
    switch (e.shape) {
        case 1u: {
            return emit_unit_dir(u1, u2) * (a.x * pow(u0, 1.0 / 3.0));
        }
        case 2u: {
            return emit_unit_dir(u1, u2) * a.x;
        }
        case 3u: {
            let r = a.x * sqrt(u0);
            let phi = EMIT_PI * (2.0 * u1 - 1.0);
            return vec3<f32>(r * cos(phi), 0.0, r * sin(phi));
        }
        case 4u: {
            let t = pow(u0, 1.0 / 3.0);
            let r = a.x * t * sqrt(u1);
            let phi = EMIT_PI * (2.0 * u2 - 1.0);
            return vec3<f32>(r * cos(phi), a.y * t, r * sin(phi));
        }
        case 5u: {
            return a.xyz * (vec3<f32>(u0, u1, u2) * 2.0 - vec3<f32>(1.0));
        }
        case 6u: {
            let b = e.shape_b.xyz;
            return a.xyz + (b - a.xyz) * u0;
        }
        default: {
            return vec3<f32>(0.0);
        }
    }
}

fn emitted_record(e: Emitter, serial: u32) -> SpawnRecord {
    return emitted_record_at(e, serial, e.position.xyz);
}

/// `emitted_record` with the emitter's shape placed at `origin` (a sub-emitter's children start
/// around their parent).
fn emitted_record_at(e: Emitter, serial: u32, origin: vec3<f32>) -> SpawnRecord {
    let seed = params.seed;
    let step = params.step;
    let local = emit_shape_point(
        e,
        rng_unit(seed, serial, step, 0u),
        rng_unit(seed, serial, step, 1u),
        rng_unit(seed, serial, step, 2u),
    );
    let pos = origin + emit_rotate(e.rotation, local);
    let speed = emit_lerp(e.speed_life.x, e.speed_life.y, rng_unit(seed, serial, step, 5u));
    var dir: vec3<f32>;
    if (e.velocity == 1u) {
        let len = length(local);
        var d: vec3<f32>;
        if (len > 0.0) {
            d = local / len;
        } else {
            d = emit_unit_dir(rng_unit(seed, serial, step, 3u), rng_unit(seed, serial, step, 4u));
        }
        dir = emit_rotate(e.rotation, d);
    } else {
        let c = 1.0 - rng_unit(seed, serial, step, 3u) * (1.0 - e.position.w);
        let s = sqrt(max(1.0 - c * c, 0.0));
        let phi = EMIT_PI * (2.0 * rng_unit(seed, serial, step, 4u) - 1.0);
        dir = emit_rotate(e.dir_q, vec3<f32>(s * cos(phi), c, s * sin(phi)));
    }
    var rec: SpawnRecord;
    rec.pos = vec4<f32>(pos, 1.0);
    rec.vel = vec4<f32>(dir * speed, e.accel.w);
    rec.acc = vec4<f32>(e.accel.xyz, emit_lerp(e.size_mass.z, e.size_mass.w, rng_unit(seed, serial, step, 9u)));
    rec.colour = e.colour_min + (e.colour_max - e.colour_min) * rng_unit(seed, serial, step, 8u);
    rec.life = Life(
        0.0,
        emit_lerp(e.speed_life.z, e.speed_life.w, rng_unit(seed, serial, step, 6u)),
        e.kind,
        GPU_ID_BIT | (serial & ~GPU_ID_BIT),
    );
    rec.size = emit_lerp(e.size_mass.x, e.size_mass.y, rng_unit(seed, serial, step, 7u));
    // Life curves from the first moment: the colour and size at life fraction 0.
    let curve_set = e.kind >> KIND_CURVES_SHIFT;
    if (curve_set != 0u) {
        let cs = curve_set - 1u;
        if (curves[cs].counts.x != 0u) {
            rec.colour = curve_colour(cs, 0.0);
        }
        if (curves[cs].counts.y != 0u) {
            rec.size = curve_size(cs, 0.0);
        }
    }
    return rec;
}

fn emit_first(e: u32) -> u32 {
    return params.emit_first[e / 4u][e % 4u];
}

@compute @workgroup_size(WG)
fn spawn_emitted(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= params.emitted) {
        return;
    }
    let children = counters.children_wanted;
    let slot = params.host_spawn + children + k;
    if (slot >= counters.spawn_accepted) {
        return;
    }
    // The last emitter whose first particle is at or before k.
    var lo = 0u;
    var hi = params.emitter_count;
    while (hi - lo > 1u) {
        let mid = (lo + hi) / 2u;
        if (emit_first(mid) <= k) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    staging[slot] = emitted_record(emitters[lo], counters.next_serial + children + k);
}
