// Force fields, shared by the particle and aggregate worlds: the table's struct and the
// acceleration one field gives a particle. Functions only (no bindings); each domain loops over
// its own table. CPU twin: src/fields.rs (`field_accel_one`).

/// A force field: 48 bytes. kind (low byte): 1 gravity, 2 drag, 3 wind, 4 attractor,
/// 5 turbulence, 6 vortex; above it, 0 or a local field's emitter tag (1 + slot).
struct Field {
    kind: u32,
    k1: f32,
    k2: f32,
    radius: f32,
    /// gravity: acceleration; wind: air velocity; attractor and vortex: centre (xyz) and
    /// strength (w); turbulence: scroll velocity.
    v: vec4<f32>,
    /// vortex: unit axis (xyz); turbulence: the scroll's offset at this step (xyz), set by
    /// the host each step.
    w: vec4<f32>,
}

/// Whether the pipeline evaluates turbulence fields (kind 5). A host compiles its integrate
/// kernel with `false` while no field of its table is turbulence, so that the noise's code is
/// not in the kernel at all. The results are the same (the branch is never taken there). On
/// lavapipe the 1M cloud's step is 17% faster without it though no lane runs it: the code's
/// presence is what costs (moving the noise out of the field loop behind a test did not help).
/// On a hardware GPU the kernel may need fewer registers without it (not measured).
override FIELD_TURBULENCE: bool = true;
/// Acceleration one force field gives a particle (gravity and the attractor are mass
/// independent; drag and wind are forces, scaled by the inverse mass).
fn field_accel_one(fld: Field, p: vec3<f32>, v: vec3<f32>, inv_mass: f32) -> vec3<f32> {
    // The low bits are the kind; above them a local field's emitter tag, which the caller
    // checks (FIELD_KIND_MASK and FIELD_EMITTER_SHIFT come from src/fields.rs).
    let kind = fld.kind & FIELD_KIND_MASK;
    if (kind == 1u) {
        return fld.v.xyz;
    }
    if (kind == 2u || kind == 3u) {
        // Drag k1|u| + k2|u|^2 against the velocity relative to the air (still air for drag).
        var u = v;
        if (kind == 3u) {
            u = v - fld.v.xyz;
        }
        let speed = length(u);
        if (speed > 0.0) {
            let mag = fld.k1 * speed + fld.k2 * speed * speed;
            return -u * (mag / speed) * inv_mass;
        }
        return vec3<f32>(0.0);
    }
    if (kind == 4u) {
        // Softened inverse-square pull towards the centre.
        let d = fld.v.xyz - p;
        let r2 = dot(d, d) + fld.radius * fld.radius;
        return d * (fld.v.w / (r2 * sqrt(r2)));
    }
    if (FIELD_TURBULENCE && kind == 5u) {
        // Curl-noise turbulence: k1 = 1 / scale, k2 = strength; the noise drifts with the
        // scroll velocity (w.xyz is its offset now). Divergence free, so it stirs without
        // bunching particles up.
        return curl_noise((p - fld.w.xyz) * fld.k1) * fld.k2;
    }
    if (kind == 6u) {
        // Vortex: around the axis w.xyz through v.xyz, tangential, strength v.w at distances
        // well beyond the softening radius, falling to zero on the axis.
        let t = cross(fld.w.xyz, p - fld.v.xyz);
        return t * (fld.v.w / sqrt(dot(t, t) + fld.radius * fld.radius));
    }
    return vec3<f32>(0.0);
}
