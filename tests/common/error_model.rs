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
//! One evaluation (a single stage run once, tests/particles_parity_stages.rs and tests/aggregate_parity.rs)
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

/// Model 2 for a trajectory whose velocity update is v ← (v + a·dt)·pow(d, dt), as
/// [`random_walk_drift`] for the roundings that change from step to step (`random_ops` of them
/// per step: the product a·dt or its contraction, the sum, the product with the damping factor)
/// plus the damping factor's own difference, which does not: `pow(d, dt)` of the same d and dt
/// every step differs between the sides by the same amount every step (up to [`cost::POW`]
/// relative), so it adds up linearly, not as a walk: the velocity's difference gains POW·u·|v|
/// each step (the factor is at most 1, so an earlier difference never grows), n·POW·u·v_max
/// after n steps, and the position's dt times the sum of those, dt·POW·u·v_max·n(n + 1)/2.
/// Returns both bounds (position m, velocity m/s) that none of `slots` trajectories exceeds with
/// probability above 10⁻³ (the random part; the systematic part is a worst case).
pub fn trajectory_drift(
    steps: u32,
    dt: f64,
    v_max: f64,
    p_max: f64,
    random_ops: u32,
    slots: u32,
) -> Drift {
    let n = f64::from(steps);
    let tail = tail_factor(f64::from(slots), 1e-3);
    let sigma_v = 2.0 * UNIT_ROUNDOFF * v_max * (f64::from(random_ops) / 3.0).sqrt();
    let sys = cost::POW * UNIT_ROUNDOFF * v_max;
    Drift {
        pos: random_walk_drift(steps, dt, v_max, p_max, random_ops, slots)
            + dt * sys * n * (n + 1.0) / 2.0,
        vel: tail * sigma_v * n.sqrt() + sys * n,
    }
}

/// A trajectory's drift bounds: position (m) and velocity (m/s).
#[derive(Clone, Copy, Debug)]
pub struct Drift {
    pub pos: f64,
    pub vel: f64,
}

/// What one velocity update v ← (v + a·dt)·pow(d, dt) may differ by in one evaluation (model 1),
/// relative to the new velocity: ROUND of the sum, POW of the damping factor, ROUND of the
/// product (the damping factor is at most 1, so the sum's difference reaches the result at most
/// as large). A side that contracts the sum into a fused multiply-add adds CONTRACT of |a·dt|
/// on top.
pub const STEP_V: f64 = cost::ROUND + cost::POW + cost::ROUND;

/// Model 1 after `k` integration steps of `dt` without colliders (the book's order: p ← p + v·dt
/// with the old velocity, then the velocity update), for lane speeds up to `v` and accelerations
/// up to `a` that every side computes alike; worst case, all aligned (so it covers the damping
/// factor's systematic difference too). `[pos rel, pos abs, vel rel, vel abs]`, in units of u:
///
/// * velocity: each step adds STEP_V of |v_j| and CONTRACT of |a·dt|, and carries the previous
///   difference through the damping factor (≤ 1); since keep·|v_{j−1}| ≤ |v_j| + |a·dt|, after
///   k steps that is k·STEP_V of |v_k| and c_k of |a·dt|, with c_1 = CONTRACT and
///   c_j = c_{j−1} + (j − 1)·STEP_V + CONTRACT;
/// * position: each step rounds the sum (ROUND of |p_j| ≤ |p_k| + (k − j)·v·dt), may contract
///   v·dt (CONTRACT of v·dt), and adds the previous step's velocity difference times dt.
pub const fn step_model(k: u32, v: f64, a: f64, dt: f64) -> [f64; 4] {
    use cost::{CONTRACT, ROUND};
    let kf = k as f64;
    let (mut c, mut sum_c, mut j) = (0.0, 0.0, 1);
    while j <= k {
        if j > 1 {
            sum_c += c;
        }
        c += (j - 1) as f64 * STEP_V + CONTRACT;
        j += 1;
    }
    let pos_abs =
        (ROUND * kf * (kf - 1.0) / 2.0 + CONTRACT * kf + STEP_V * kf * (kf - 1.0) / 2.0) * v * dt
            + sum_c * a * dt * dt;
    [ROUND * kf, pos_abs, STEP_V * kf, c * a * dt]
}

/// Model 3: how many slots may have taken a decision the other way, and what it may cost.
#[derive(Clone, Copy, Debug)]
pub struct Divergence {
    /// A divergent slot's largest position difference, m: what the decision is worth.
    pub worth: f32,
    /// A divergent slot's largest velocity difference, m/s.
    pub vel_worth: f32,
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

/// Model 1 for one particle an emitter draws (`emitted_record_at` in shaders/particles/
/// emitter.wgsl; its twin in src/particles/emitter.rs): per lane, what each field of the spawn
/// record may differ by between the GPU and the twin, absolute.
///
/// The uniforms come from the same integer hash on both sides (the same bits); `2·a − 1`,
/// `1 − 2·a` and `π·(2·b − 1)` are exact or one product of the same operands (the same bits).
/// What differs: every `lo + (hi − lo)·u` may be contracted (CONTRACT of |hi − lo|, then ROUND of
/// the value; exact when lo = hi, the product being 0), `sqrt`, `pow` and the products after
/// them (SQRT, POW, ROUND), `cos` and `sin` ([`cost::TRIG_ABS`], absolute), the rotations by the
/// emitter's quaternion ([`EMIT_ROTATE`]) and the roots of 1 − z² and 1 − c² (below).
pub mod emission {
    use super::cost::{CONTRACT, DIV, LENGTH, POW, ROUND, SQRT, TRIG_ABS};
    use super::UNIT_ROUNDOFF as U;
    use wgphys::particles::emitter::{shape_code, velocity_code};
    use wgphys::particles::types::GpuEmitter;

    /// `emit_rotate(q, v)` = v + 2·q.xyz × (q.xyz × v + w·v), per lane, in units of u·|v|
    /// (|q| = 1): q × v (two products of values ≤ |v|, one contractible, CONTRACT + ROUND: 3),
    /// adding w·v (CONTRACT of ≤ |v|, ROUND of |t| ≤ √2·|v|: 3.8), so t per lane 6.8; q × t (its
    /// own 3 of |t|: 4.2, and t's difference through it, ≤ √3·6.8 = 11.8), doubled (exact): 32;
    /// adding v (ROUND of the result, ≤ |v|: 2): 34, taken as 35. A difference of v passes
    /// through the rotation at most as its length, ≤ √3 times its largest lane.
    pub const EMIT_ROTATE: f64 = 35.0;

    /// The root s = √(1 − x²) of an x on the 2⁻²⁴ grid below 1 (emit_unit_dir's z = 1 − 2a,
    /// the cap's c), absolute, the same x on both sides: x·x rounds (or is contracted into the
    /// subtraction) with an error at most min(k²u², u/2) for x = 1 − k·u, and s² ≈ 2ku, so
    /// through the root (× 1/(2s)) at most u^(3/4)/(4·2^(1/4)) over all k (≈ 13u, at
    /// k = 1/√(2u)); then SQRT of s ≤ 1 and ROUND of the subtraction where x² < 1/2 (not exact
    /// there).
    pub fn root_of_one_minus_square() -> f64 {
        U.powf(0.75) / (4.0 * 2f64.powf(0.25)) + (SQRT + ROUND) * U
    }

    /// `emit_unit_dir(a, b)`'s largest lane difference: s·cos φ and s·sin φ, the root's
    /// difference plus TRIG_ABS and ROUND of the product (s ≤ 1); z exact.
    pub fn unit_dir() -> f64 {
        root_of_one_minus_square() + (TRIG_ABS + ROUND) * U
    }

    /// The directional cap's largest lane difference (unit direction before the rotation):
    /// c = 1 − u₃·w (w = 1 − cos spread, the same bits) may be contracted: CONTRACT of ≤ w and
    /// ROUND of c, and when the two sides' c round to neighbours (probability at most p = 1 − c
    /// per particle: the product's rounding, ≤ u·p, over c's ulp, u) its one ulp passes into
    /// s = √(1 − c²) as c·u/s ≤ u/√p. That exceeds δ only for p < u²/δ², so among `particles`
    /// draws (p uniform on [0, w]) some particle does with probability at most
    /// particles·(u²/δ²)²/(2w): δ = u/(2·10⁻³·w/particles)^(1/4) is exceeded with probability
    /// below 10⁻³ per run. Then the root's own difference, TRIG_ABS and ROUND of s·cos φ.
    pub fn cap(one_minus_cos: f64, particles: u32) -> f64 {
        if one_minus_cos == 0.0 {
            return 0.0; // c = 1 exactly, s = 0: the same bits
        }
        let flip = U / (2e-3 * one_minus_cos / f64::from(particles)).powf(0.25);
        let c = (CONTRACT * one_minus_cos + ROUND) * U;
        c.max(flip + root_of_one_minus_square() + (TRIG_ABS + ROUND) * U)
    }

    /// `lo + (hi − lo)·u`: CONTRACT of |hi − lo| and ROUND of the value; 0 when lo = hi.
    pub fn lerp(lo: f32, hi: f32) -> f64 {
        if lo == hi {
            return 0.0;
        }
        let (lo, hi) = (f64::from(lo), f64::from(hi));
        (CONTRACT * (hi - lo).abs() + ROUND * lo.abs().max(hi.abs())) * U
    }

    /// What an emitted particle's fields may differ by, per lane, absolute.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Spawn {
        pub pos: f64,
        pub vel: f64,
        pub lifetime: f64,
        pub size: f64,
        pub colour: f64,
        pub inverse_mass: f64,
        /// The largest speed it may be given, m/s.
        pub speed: f64,
    }

    /// The local start point's largest lane difference and the largest |local| of the shape.
    fn shape(e: &GpuEmitter) -> (f64, f64) {
        let a = e.shape_a.truncate().as_dvec3();
        match e.shape {
            // unit_dir·(a·pow(u₀, 1/3)): the direction's difference times the radius, POW and
            // ROUND of the radius, ROUND of the product.
            shape_code::SPHERE => (a.x * (unit_dir() + (POW + 2.0 * ROUND) * U), a.x),
            shape_code::SHELL => (a.x * (unit_dir() + ROUND * U), a.x),
            // r = a·√u₀ (SQRT + ROUND), r·cos φ (TRIG_ABS + ROUND).
            shape_code::DISC => (a.x * (SQRT + ROUND + TRIG_ABS + ROUND) * U, a.x),
            // t = pow(u₀, 1/3), r = a.x·t·√u₁: POW + 2 ROUND + SQRT, then r·cos φ; y = a.y·t.
            shape_code::CONE => (
                (a.x * (POW + 3.0 * ROUND + SQRT + TRIG_ABS)).max(a.y * (POW + ROUND)) * U,
                a.truncate().length(),
            ),
            // a·(2u − 1): one product of the same operands.
            shape_code::BOX => (0.0, a.length()),
            shape_code::SEGMENT => {
                let b = e.shape_b.truncate().as_dvec3();
                let far = a.length().max(b.length());
                (
                    (CONTRACT * (b - a).abs().max_element() + ROUND * far) * U,
                    far,
                )
            }
            _ => (0.0, 0.0),
        }
    }

    /// The model for a particle `e` draws around an origin that differs by `origin_diff` per
    /// lane (0 for the emitter's own position, the host's bits), at most `origin_max` from the
    /// world's origin, one of at most `particles` draws in the run (for [`cap`]).
    pub fn spawn(e: &GpuEmitter, origin_diff: f64, origin_max: f64, particles: u32) -> Spawn {
        let (local, extent) = shape(e);
        let pos = origin_diff
            + 3f64.sqrt() * local
            + EMIT_ROTATE * U * extent
            + ROUND * U * (origin_max + extent);
        // The unit direction before its rotation, largest lane difference.
        let d = if e.velocity == velocity_code::RADIAL {
            if extent == 0.0 {
                unit_dir() // a point: local = 0, the fallback direction
            } else {
                // d = local/|local|: twice |Δlocal|/|local| (the numerator's and the length's),
                // LENGTH + DIV. |local| may be small; the shapes here scale their difference
                // with it (a sphere's and a disc's lanes are relative to their radius, a box's
                // is 0), so the ratio is the shape's relative difference.
                let rel = match e.shape {
                    shape_code::SPHERE => unit_dir() + (POW + 2.0 * ROUND) * U,
                    shape_code::SHELL => unit_dir() + ROUND * U,
                    shape_code::DISC => (SQRT + ROUND + TRIG_ABS + ROUND) * U,
                    shape_code::BOX => 0.0,
                    other => panic!("no radial model for shape {other}"),
                };
                2.0 * 3f64.sqrt() * rel + (LENGTH + DIV) * U
            }
        } else {
            cap(1.0 - f64::from(e.position.w), particles)
        };
        let dir = 3f64.sqrt() * d + EMIT_ROTATE * U;
        let speed = f64::from(e.speed_life.x.max(e.speed_life.y));
        let colour = (0..4)
            .map(|k| lerp(e.colour_min[k], e.colour_max[k]))
            .fold(0.0, f64::max);
        Spawn {
            pos,
            vel: speed * dir + lerp(e.speed_life.x, e.speed_life.y) + ROUND * U * speed,
            lifetime: lerp(e.speed_life.z, e.speed_life.w),
            size: lerp(e.size_mass.x, e.size_mass.y),
            colour,
            inverse_mass: lerp(e.size_mass.z, e.size_mass.w),
            speed,
        }
    }
}

/// Model 2 by propagation (the link solve's and the rigid integrator's models): a mirror of a
/// stage in f64, run once as written (`exact`) and again with every elementary operation's
/// result moved by a uniform draw within what it may differ by between the sides (`drawn`):
/// ±ROUND·u for `+` and `−`, ±(ROUND + CONTRACT)·u for a product (it may be fused into the add
/// that follows), DIV, SQRT and POW for the rest, each relative to the operation's own result,
/// so a cancellation downstream keeps the products' differences. The decisions of the mirror go
/// whichever way their perturbed values say. A bound is the RMS over the draws of the
/// difference from the exact run, times [`tail_factor`].
pub struct Perturbed {
    rng: Option<super::Rng>,
}

impl Perturbed {
    pub fn exact() -> Self {
        Self { rng: None }
    }
    pub fn drawn(seed: u64) -> Self {
        Self {
            rng: Some(super::Rng::new(seed)),
        }
    }
    /// `x` moved by a uniform draw of ±cost·u of itself (as written: `x`).
    pub fn r(&mut self, x: f64, cost: f64) -> f64 {
        match &mut self.rng {
            None => x,
            Some(rng) => x * (1.0 + cost * UNIT_ROUNDOFF * (2.0 * f64::from(rng.unit()) - 1.0)),
        }
    }
    pub fn add(&mut self, a: f64, b: f64) -> f64 {
        self.r(a + b, cost::ROUND)
    }
    pub fn sub(&mut self, a: f64, b: f64) -> f64 {
        self.r(a - b, cost::ROUND)
    }
    pub fn mul(&mut self, a: f64, b: f64) -> f64 {
        self.r(a * b, cost::ROUND + cost::CONTRACT)
    }
    pub fn div(&mut self, a: f64, b: f64) -> f64 {
        self.r(a / b, cost::DIV)
    }
    pub fn sqrt(&mut self, a: f64) -> f64 {
        self.r(a.sqrt(), cost::SQRT)
    }
    pub fn pow(&mut self, a: f64, b: f64) -> f64 {
        self.r(a.powf(b), cost::POW)
    }
    pub fn add3(&mut self, a: glam::DVec3, b: glam::DVec3) -> glam::DVec3 {
        glam::DVec3::new(self.add(a.x, b.x), self.add(a.y, b.y), self.add(a.z, b.z))
    }
    pub fn sub3(&mut self, a: glam::DVec3, b: glam::DVec3) -> glam::DVec3 {
        glam::DVec3::new(self.sub(a.x, b.x), self.sub(a.y, b.y), self.sub(a.z, b.z))
    }
    pub fn scale3(&mut self, a: glam::DVec3, s: f64) -> glam::DVec3 {
        glam::DVec3::new(self.mul(a.x, s), self.mul(a.y, s), self.mul(a.z, s))
    }
    /// `a·s + c` per lane.
    pub fn madd3(&mut self, a: glam::DVec3, s: f64, c: glam::DVec3) -> glam::DVec3 {
        let p = self.scale3(a, s);
        self.add3(p, c)
    }
    pub fn dot3(&mut self, a: glam::DVec3, b: glam::DVec3) -> f64 {
        let (x, y, z) = (self.mul(a.x, b.x), self.mul(a.y, b.y), self.mul(a.z, b.z));
        let s = self.add(x, y);
        self.add(s, z)
    }
    pub fn cross3(&mut self, a: glam::DVec3, b: glam::DVec3) -> glam::DVec3 {
        let mut lane = |p: f64, q: f64, r: f64, s: f64| {
            let (x, y) = (self.mul(p, q), self.mul(r, s));
            self.sub(x, y)
        };
        glam::DVec3::new(
            lane(a.y, b.z, a.z, b.y),
            lane(a.z, b.x, a.x, b.z),
            lane(a.x, b.y, a.y, b.x),
        )
    }
    /// `m * v` (columns scaled and summed in order).
    pub fn mat3_mul(&mut self, m: glam::DMat3, v: glam::DVec3) -> glam::DVec3 {
        let a = self.scale3(m.x_axis, v.x);
        let b = self.madd3(m.y_axis, v.y, a);
        self.madd3(m.z_axis, v.z, b)
    }
}
