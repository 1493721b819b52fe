//! Counter-based random numbers, the CPU twin of `shaders/common/rng.wgsl`.
//!
//! A draw is a pure function of (seed, id, step, k): no state, so the GPU and the CPU produce the
//! same numbers whatever order threads run in.

/// 32-bit avalanche hash (the same constants as the WGSL).
#[inline]
pub fn hash_u32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// A random u32 keyed by (seed, id, step, k).
#[inline]
pub fn rng_u32(seed: u32, id: u32, step: u32, k: u32) -> u32 {
    hash_u32(hash_u32(hash_u32(hash_u32(seed) ^ id) ^ step) ^ k)
}

/// A uniform f32 in [0, 1) keyed by (seed, id, step, k); 24 bits, exact on CPU and GPU.
#[inline]
pub fn rng_unit(seed: u32, id: u32, step: u32, k: u32) -> f32 {
    (rng_u32(seed, id, step, k) >> 8) as f32 * (1.0 / 16_777_216.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_range_and_spread() {
        let mut sum = 0.0f64;
        for i in 0..10_000 {
            let u = rng_unit(7, i, 3, 0);
            assert!((0.0..1.0).contains(&u));
            sum += f64::from(u);
        }
        let mean = sum / 10_000.0;
        assert!((mean - 0.5).abs() < 0.01, "mean {mean}");
    }
}
