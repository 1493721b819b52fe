//! Shared test helpers: a seeded generator, so every random case is reproducible.

/// SplitMix64: a small, well-mixed, seedable generator (no dependency needed).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * unit
    }

    pub fn dvec3(&mut self, lo: f64, hi: f64) -> glam::DVec3 {
        glam::DVec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }
}

/// `γ_n = n·u/(1 − n·u)` with `u = ε/2`: Higham's constant for n rounded operations.
pub fn gamma(n: usize) -> f64 {
    let nu = n as f64 * f64::EPSILON / 2.0;
    nu / (1.0 - nu)
}
