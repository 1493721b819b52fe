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
//! the unit roundoff, `|fl₁(x) − fl₂(x)| ≤ k·2u·|x|`, k = 1 for one rounding each side, 3–6
//! for the approximate built-ins ([`cost`] lists each). Sums of n terms (dot products, the
//! neighbour sums of a grain) are bounded as if reassociated: (n − 1)·u·Σ|xᵢ| each side.
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
//! One evaluation (a single stage run once, tests/parity_stages.rs and tests/aggregate_parity.rs)
//! gets the first-order worst case of model 1's per-operation differences: every operation
//! along the stage's chain costs its [`cost`] times the largest value it rounds in the case,
//! times the sensitivity of the compared result to that value, and the costs add (all aligned).
//! A difference in an operation's operands travels on by the derivative; the response maps of
//! contacts and links are Lipschitz, and their constants appear where they are used. Where a
//! response is steep (a normal d/|d| of a short d, a depth ramp) or discontinuous (a decision),
//! the test either keeps its random inputs away from it by a margin the model sets (the
//! comparison then measures arithmetic, not luck), or counts the slots as divergent (model 3).
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

/// The contact response `resolve_contact` (src/colliders.rs; colliders.wgsl) with restitution
/// `e` and friction `mu`, as the model sees it: `[L_V, N_SENS, ROUNDS]`. The new velocity is
/// Lipschitz in the old one with constant at most L_V = 1 + e + μ(1 + e) (the normal part scaled
/// by e; the tangential part shrunk by the friction's reach μ·(1 + e)·|vn|, a projection,
/// 1-Lipschitz, whose radius is itself Lipschitz in vn); sensitive to the contact normal by
/// N_SENS = L_V + 1 + e times the speed (through vn = v·n, vt = v − n·vn and n·new_vn); and its
/// own roundings add ROUNDS (units of u) of the speed, each through what follows it: vn's DOT3
/// (times L_V), the rebound −e·vn and the resting-contact multiply-add (ROUND + CONTRACT + ROUND,
/// times e and the friction's 1 + μ), vt (CONTRACT + ROUND), |vt| (LENGTH, through μ·X·vt/|vt|
/// ≤ |vt|), X = new_vn − vn (ROUND, times μ), μ·X (ROUND), |vt| − μ·X (CONTRACT + ROUND), the
/// division (DIV) and the final multiply-add (CONTRACT + ROUND).
pub fn contact_response(e: f64, mu: f64) -> [f64; 3] {
    use cost::*;
    let l_v = 1.0 + e + mu * (1.0 + e);
    let rounds = l_v * DOT3
        + (1.0 + mu) * e * (ROUND + CONTRACT + ROUND)
        + (CONTRACT + ROUND)
        + LENGTH
        + mu * (1.0 + e) * ROUND
        + ROUND
        + (CONTRACT + ROUND)
        + DIV
        + (CONTRACT + ROUND);
    [l_v, l_v + 1.0 + e, rounds]
}

/// What one operation's result may differ by between the GPU (any adapter within WGSL's
/// accuracy) and the CPU twin (either [`wgphys::CpuRounding`]), in units of u times its value
/// (model 1). The parity bounds of single stages sum them along the stage's operations.
pub mod cost {
    /// A correctly rounded `+`, `-` or `*` whose operands differ between the sides (or might):
    /// each side rounds by at most u. With the same operands both sides round alike, but a
    /// bound that also holds against an exact (f64) reference counts every operation.
    pub const ROUND: f64 = 2.0;
    /// What `a * b + c` contracted into one fused multiply-add on one side (NVIDIA, the twin's
    /// `Fused`) and not on the other adds, relative to the product a·b: the product's own
    /// rounding, skipped by one side; on top of ROUND of the sum.
    pub const CONTRACT: f64 = 1.0;
    /// A three-term dot product, relative to Σ|xᵢ·yᵢ|: three roundings each side (products and
    /// sums, separate or fused, in any order), 3u each.
    pub const DOT3: f64 = 6.0;
    /// `x / y`: 2.5 ulp on the GPU, 1 ulp for the twin's reciprocal and multiply: 3.5 ulp.
    pub const DIV: f64 = 7.0;
    /// `sqrt`: inherited from `1 / inverseSqrt` on the GPU, 2 + 2.5 ulp; the twin's
    /// `x * (1 / sqrt(x))` 1.5 ulp: 6 ulp.
    pub const SQRT: f64 = 12.0;
    /// `length` of a vec3: the dot of three squares (DOT3 of the square, halved by the square
    /// root) and SQRT.
    pub const LENGTH: f64 = DOT3 / 2.0 + SQRT;
    /// `pow(d, dt)`, a damping factor (d ≥ 2⁻²⁴, dt = 1/60, so y = dt·log2(d) ≥ −0.4): the
    /// GPU's exp2(y) to 3 + 2|y| ulp, log2's 3 ulp (2⁻²¹ absolute near 1) passing through y as
    /// ln 2·|y|·3 ulp ≤ 1 ulp, glibc's powf 1 ulp: 6 ulp.
    pub const POW: f64 = 12.0;
    /// `exp(x)` for |x| ≤ 0.5: 3 + 2|x| ulp on the GPU, 1 ulp on the CPU: 5 ulp.
    pub const EXP: f64 = 10.0;
    /// `cos` and `sin` of an angle in [−π, π], absolute (not relative to the value): what GPU
    /// hardware delivers, about 2⁻²¹ (NVIDIA's special-function unit; Mesa's software adapters
    /// are accurate to an ulp), taken as 10u = 2⁻²⁰·⁷. WGSL allows 2⁻¹¹, under which no
    /// ulp-level parity of a trigonometric stage holds at all; the model takes the hardware's.
    pub const TRIG_ABS: f64 = 10.0;
}
