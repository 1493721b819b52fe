//! The error model every GPU/CPU parity bound and every conservation bound of the tests comes
//! from. A bound is the model's number for the operations the stage performs, never what one
//! adapter printed; a measurement is printed beside it (`[measure]` lines) only to show how
//! much of it is used.
//!
//! # What may differ between the two sides
//!
//! WGSL fixes the value of `+`, `-` and `*` (correctly rounded), but leaves the rest to the
//! implementation (WGSL § "Floating Point Accuracy"): `a * b + c` may be contracted into one
//! fused multiply-add (NVIDIA does; Mesa's lavapipe and llvmpipe do not), `x / y` is accurate to
//! 2.5 ulp, `inverseSqrt` to 2 ulp, `sqrt` inherits from `1 / inverseSqrt`, `length` from
//! `sqrt(dot)`, `pow` from `exp2(y * log2(x))`. So one operation's result may differ between
//! the GPU and the CPU twin by up to a few units in the last place of its value: with u = 2⁻²⁴
//! the unit roundoff, `|fl₁(x) − fl₂(x)| ≤ k·2u·|x|`, k = 1 for one rounding each side, 2–3
//! for the approximate built-ins. Sums of n terms (dot products, the neighbour sums of a grain)
//! are bounded as if reassociated: (n − 1)·u·Σ|xᵢ| each side.
//!
//! The CPU twin runs both ways ([`wgphys::CpuRounding`]): `Separate` rounds as Mesa does,
//! `Fused` contracts every multiply-add and divides by a reciprocal, as NVIDIA may. Every bound
//! below is checked against the GPU with both (the `*_fused_*` tests), so a bound that holds for
//! one rounding only fails in CI, not on a user's GPU.
//!
//! # Three kinds of bound
//!
//! 1. **Exact.** Integer state (ids, kinds, counters, spawn and death counts), ages (`age + dt`
//!    is one correctly rounded add on both sides) and anything copied: bit for bit.
//! 2. **Rounding drift** ([`random_walk_drift`]). Over many steps, the per-step differences of a
//!    trajectory add up. Each step's difference is a few roundings of the velocity update,
//!    independent from step to step and as likely up as down (the probabilistic model of
//!    rounding error: Higham and Mary, "A new approach to probabilistic rounding error
//!    analysis", 2019), so a velocity difference grows like √n and a position difference like
//!    dt·√(n³/3). The bound is that standard deviation times the factor that one slot of the
//!    whole scene exceeds with probability below 10⁻³ per run (Gaussian tail, [`tail_factor`]).
//!    A worst-case bound (all roundings aligned, linear in n for velocities, n² for positions)
//!    is orders of magnitude looser and never met by rounding.
//! 3. **Decisions** ([`Divergence`]). A branch on a computed value (a collider's contact test
//!    `penetration > −slop`, a particle crossing y = 0) can go different ways on the two sides
//!    when the value is within the drift of its threshold. The trajectories then differ by what
//!    the decision is worth, for a bounce about one step of the particle's travel, not by
//!    rounding. How often: a decision flips when the two sides' values straddle the threshold,
//!    with probability about 2δ/(|v|·dt) for a drift δ and a value sweeping |v|·dt per step;
//!    with δ of a few µm and a few thousand bounces that is a handful of slots per run. A
//!    parity test allows at most [`Divergence::max_slots`] such slots, each within the decision's
//!    worth; a defect in a stage moves every slot that runs through it, hundreds at once.
//!
//! Surfaces that curve amplify a position difference at a bounce (a sphere of radius R turns a
//! position error δ into a direction error δ/R); slots that bounce off one late in the run may
//! leave the drift bound and are counted as divergent, within the same worth.

/// The unit roundoff of f32, u = 2⁻²⁴.
pub const UNIT_ROUNDOFF: f64 = f32::EPSILON as f64 / 2.0;

/// How many standard deviations one of `samples` Gaussian values exceeds with probability at
/// most `p` in all: the z with 2·samples·Φ(−z) ≤ p (Φ's tail bounded by φ(z)/z).
pub fn tail_factor(samples: f64, p: f64) -> f64 {
    let target = p / (2.0 * samples);
    let mut z = 1.0f64;
    // φ(z)/z is decreasing for z ≥ 1: step up until it is below the target.
    while (-0.5 * z * z).exp() / (z * (2.0 * std::f64::consts::PI).sqrt()) > target {
        z += 0.01;
    }
    z
}

/// The rounding drift of a position after `steps` steps of `dt` (model 2 above): each step
/// the velocity update rounds `ops_per_step` times on each side at speeds up to `v_max`, and
/// the position update once at distances up to `p_max` from the origin, each difference
/// uniform in ±2u·|value| (variance (2u·|value|)²/3); the position sums the velocity
/// differences (dt·√(n³/3)) and its own (√n). Returns the bound that none of `slots`
/// trajectories exceeds with probability above 10⁻³.
pub fn random_walk_drift(
    steps: u32,
    dt: f64,
    v_max: f64,
    p_max: f64,
    ops_per_step: u32,
    slots: u32,
) -> f64 {
    let n = f64::from(steps);
    let sigma_v = 2.0 * UNIT_ROUNDOFF * v_max * (f64::from(ops_per_step) / 3.0).sqrt();
    let sigma_p = 2.0 * UNIT_ROUNDOFF * p_max / 3f64.sqrt();
    let sigma = ((dt * sigma_v).powi(2) * n * n * n / 3.0 + sigma_p * sigma_p * n).sqrt();
    tail_factor(f64::from(slots), 1e-3) * sigma
}

/// Model 3: how many slots may have taken a decision the other way, and what it may cost.
#[derive(Clone, Copy, Debug)]
pub struct Divergence {
    /// A divergent slot's largest position difference, m: what the decision is worth.
    pub worth: f32,
    /// The share of the live slots that may diverge.
    pub share: f32,
}

impl Divergence {
    /// Slots allowed to diverge among `live`: the share, at least one.
    pub fn max_slots(&self, live: usize) -> usize {
        ((self.share * live as f32) as usize).max(1)
    }
}

/// The worst-case error of the sum of `n` terms, each side rounding in any order: (n − 1)·u·Σ|x|
/// per side, so twice that between two sides.
pub fn sum_bound(n: u32, abs_sum: f64) -> f64 {
    2.0 * f64::from(n.saturating_sub(1)) * UNIT_ROUNDOFF * abs_sum
}
