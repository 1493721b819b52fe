// Curl noise for the turbulence field: three value-noise potentials (channels 0, 1, 2) on the
// integer lattice, each with its analytic gradient, and their curl, which is divergence free.
// Lattice values come from the integer hash of rng.wgsl, so the field is a pure function of the
// position, identical on every adapter up to float rounding. CPU twin: src/noise.rs, the same
// operations in the same order.

/// The lattice value of channel `ch` at integer point `c`, uniform in [-1, 1).
fn noise_lattice(c: vec3<i32>, ch: u32) -> f32 {
    let h = hash_u32(
        (bitcast<u32>(c.x) * 0x8da6b343u) ^ (bitcast<u32>(c.y) * 0xd8163841u)
            ^ (bitcast<u32>(c.z) * 0xcb1ab31fu) ^ (ch * 0x165667b1u),
    );
    return f32(h >> 8u) * (2.0 / 16777216.0) - 1.0;
}

/// Value noise of channel `ch` at `x` with quintic fades: (value, d/dx, d/dy, d/dz).
fn noise_value_grad(x: vec3<f32>, ch: u32) -> vec4<f32> {
    let fl = floor(x);
    let i = vec3<i32>(fl);
    let f = x - fl;
    let u = f * f * f * (f * (f * 6.0 - 15.0) + 10.0);
    let du = 30.0 * f * f * (f * (f - 2.0) + 1.0);
    let c000 = noise_lattice(i, ch);
    let c100 = noise_lattice(i + vec3<i32>(1, 0, 0), ch);
    let c010 = noise_lattice(i + vec3<i32>(0, 1, 0), ch);
    let c110 = noise_lattice(i + vec3<i32>(1, 1, 0), ch);
    let c001 = noise_lattice(i + vec3<i32>(0, 0, 1), ch);
    let c101 = noise_lattice(i + vec3<i32>(1, 0, 1), ch);
    let c011 = noise_lattice(i + vec3<i32>(0, 1, 1), ch);
    let c111 = noise_lattice(i + vec3<i32>(1, 1, 1), ch);
    let k1 = c100 - c000;
    let k2 = c010 - c000;
    let k3 = c001 - c000;
    let k4 = c000 - c100 - c010 + c110;
    let k5 = c000 - c010 - c001 + c011;
    let k6 = c000 - c100 - c001 + c101;
    let k7 = -c000 + c100 + c010 - c110 + c001 - c101 - c011 + c111;
    let value = c000 + k1 * u.x + k2 * u.y + k3 * u.z + k4 * u.x * u.y + k5 * u.y * u.z
        + k6 * u.z * u.x + k7 * u.x * u.y * u.z;
    let gx = du.x * (k1 + k4 * u.y + k6 * u.z + k7 * u.y * u.z);
    let gy = du.y * (k2 + k5 * u.z + k4 * u.x + k7 * u.z * u.x);
    let gz = du.z * (k3 + k6 * u.x + k5 * u.y + k7 * u.x * u.y);
    return vec4<f32>(value, gx, gy, gz);
}

/// The curl of the potential (noise 0, noise 1, noise 2) at `x`, in noise units.
fn curl_noise(x: vec3<f32>) -> vec3<f32> {
    let g1 = noise_value_grad(x, 0u).yzw;
    let g2 = noise_value_grad(x, 1u).yzw;
    let g3 = noise_value_grad(x, 2u).yzw;
    return vec3<f32>(g3.y - g2.z, g1.z - g3.x, g2.x - g1.y);
}
