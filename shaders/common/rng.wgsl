// Counter-based random numbers: a pure function of (seed, id, step, k), so the GPU and the CPU
// twin (src/rng.rs) draw identical values in any execution order. The mixer is a 32-bit
// integer avalanche hash; the unit float keeps 24 bits so the conversion is exact on both sides.

fn hash_u32(x_in: u32) -> u32 {
    var x = x_in;
    x = x ^ (x >> 16u);
    x = x * 0x7feb352du;
    x = x ^ (x >> 15u);
    x = x * 0x846ca68bu;
    x = x ^ (x >> 16u);
    return x;
}

fn rng_u32(seed: u32, id: u32, step: u32, k: u32) -> u32 {
    return hash_u32(hash_u32(hash_u32(hash_u32(seed) ^ id) ^ step) ^ k);
}

/// Uniform in [0, 1).
fn rng_unit(seed: u32, id: u32, step: u32, k: u32) -> f32 {
    return f32(rng_u32(seed, id, step, k) >> 8u) * (1.0 / 16777216.0);
}
