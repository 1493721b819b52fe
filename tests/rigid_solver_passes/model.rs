//! The error model of a solve's GPU–twin difference (issue 10, item 1): what the compared
//! values may differ by when the two sides round the same WGSL differently.
//!
//! **Where the difference comes from.** Every velocity row of a point reads its penetration
//! `pen = r1.w − n·((pa + ra) − (pb + rb))`, the world anchors rebuilt from the body-frame ones
//! (`solve_prepare` turns `point − pa` into the body frame, the sweeps turn it back). Those
//! world points are metres from the origin while their difference is millimetres, so the
//! roundings of `pa + ra` (an ulp of the position) survive into `pen` unreduced, and the bias
//! turns them into a velocity target (× `inv_dt` for a speculative point, × the soft
//! stiffness otherwise): the twin moves by 5–8e-5 (relative) when every body's position moves
//! by one ulp, and by 1e-7 when every velocity does. So the model is the penetration's rounding
//! alone, propagated by the solve itself.
//!
//! **The penetration's rounding** ([`pen_sigmas`]). WGSL fixes `+`, `−` and `*` (correctly
//! rounded on both sides), so the sides part only where one contracts a product into a sum (a
//! fused multiply-add skips the product's rounding, at most u·|product|), and from there by what
//! that difference does downstream. Per point and body: `point − pa` has no product (the same
//! bits); each of the two quaternion turns (`quat_rotate`: t = 2 q×v, then v + w t + q×t) has
//! five contractible products feeding each component (one in each of t's three components, w t
//! and the cross product's), at up to 2|r| for an anchor of length |r|, so ten differences per
//! component, each uniform in ±2u|r| (variance (2u|r|)²/3, model 2 of `common::error_model`)
//! and independent; then `pa + ra` rounds two slightly different values at the position's
//! magnitude: they round one ulp apart with probability |Δra|/ulp, so the world point's variance
//! gains E|Δra|·ulp(|pa| + |r|) (the amplification: a 1e-7 difference in a 1 m anchor becomes,
//! now and then, a whole ulp of a 5 m position). The difference of the two world points and its
//! dot with the unit normal are at millimetres (left out), and the normal passes a component's
//! variance on unscaled (|n| = 1).
//!
//! **Propagated by the solve** ([`model_tolerance`]): the twin solves again with every point's
//! depth moved by a Gaussian draw of its own σ, sixteen times; the largest relative difference of
//! the compared values (`max_rel_diff`) is taken per draw, and the bound is the RMS of those
//! times the Gaussian factor a single value exceeds with probability 10⁻³
//! (`common::error_model::tail_factor`), field by field ([`super::Solved`]: a body's position,
//! orientation, velocities and world inertia, a point's impulse, its largest normal impulse, a
//! manifold's rolling impulse each get the bound their own spread gives). The response is not
//! linear (a point's friction cone
//! or its speculative branch may flip), which is why the solve itself propagates the draws
//! rather than a derivative.
//!
//! What it gives is printed (`[measure]`) beside the GPU's difference, field by field. On the
//! parity scene (anchors up to metres long, bodies up to 10 m out, rolling resistance on every
//! fourth contact), the whole solve's bounds are 7.9e-7 (position), 2.8e-6 (orientation),
//! 6.2e-5 and 1.8e-4 (linear and angular velocity), 2.9e-6 (world inverse inertia), 2.3e-3 and
//! 1.0e-3 (impulses, largest normal impulse), 1.4e-5 (rolling impulse); lavapipe uses 3–22% of
//! each. One bound for every field (the largest, 2.3e-3, set by the impulses) stood 30 times
//! above what lavapipe's positions, orientations and velocities could differ by; each field now
//! gets its own.
//!
//! Lavapipe differs from the twin rounding as written (`Separate`) about ten times more than
//! the fused twin does (impulses 1.0e-4 against 6.6e-6): not every operation rounds alike on
//! the two (WGSL's `inverseSqrt`, which `quat_normalize` uses, is allowed 2 ulp, the twin's is
//! `1 / sqrt`; the one-batch test, which normalises nothing, differs by 4e-7), and the solve
//! amplifies a last-bit difference wherever it starts. The model covers both: it perturbs
//! what the solve amplifies most, not the operation that differs.

use super::*;

/// Gaussian draws of the penetrations the twin solves (see the module docs).
const MODEL_DRAWS: u64 = 16;

/// Per manifold and point, the σ of the penetration's rounding difference (see the module docs).
fn pen_sigmas(bodies: &[GpuBody], ms: &[GpuManifold]) -> Vec<[f64; 4]> {
    let u = common::error_model::UNIT_ROUNDOFF;
    ms.iter()
        .map(|m| {
            let mut sigma = [0.0; 4];
            for (i, s) in sigma.iter_mut().enumerate().take((m.count as usize).min(4)) {
                let point = m.points[i].xyz();
                let mut var = 0.0;
                for body in [m.body_a, m.body_b] {
                    let Some(b) = bodies.get(body as usize) else {
                        continue; // the world: no anchor to rebuild
                    };
                    let pa = b.pos.xyz();
                    let r = f64::from((point - pa).length());
                    let var_turns = 10.0 * (2.0 * u * r).powi(2) / 3.0;
                    // E|Δ| of a Gaussian of that variance, times one ulp (at most 2u|x|) of the
                    // world point's coordinate.
                    let ulp = 2.0 * u * (f64::from(pa.abs().max_element()) + r);
                    let straddle = (var_turns * 2.0 / std::f64::consts::PI).sqrt() * ulp;
                    var += var_turns + straddle;
                }
                *s = var.sqrt();
            }
            sigma
        })
        .collect()
}

/// The model's bounds for `run` (a solve of the given manifolds, from the same bodies and
/// previous step as `ms` describes) at the manifolds `ms`, field by field (see the module docs).
pub(super) fn model_tolerance(
    bodies: &[GpuBody],
    ms: &[GpuManifold],
    run: impl Fn(&[GpuManifold]) -> (Vec<GpuBody>, Vec<GpuManifold>),
) -> Solved {
    let sigmas = pen_sigmas(bodies, ms);
    let base = run(ms);
    let mut rng = Rng::new(0x5eed);
    let mut sum_sq = [0.0f64; 8];
    for _ in 0..MODEL_DRAWS {
        let mut drawn = ms.to_vec();
        for (m, sigma) in drawn.iter_mut().zip(&sigmas) {
            for (point, s) in m.points.iter_mut().zip(sigma) {
                // Box–Muller: a standard Gaussian from two uniforms in (0, 1].
                let (u1, u2) = (1.0 - f64::from(rng.unit()), f64::from(rng.unit()));
                let g = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                point.w += (g * s) as f32;
            }
        }
        let out = run(&drawn);
        let d = max_rel_diff((&out.0, &out.1), (&base.0, &base.1)).lanes();
        for (acc, x) in sum_sq.iter_mut().zip(d) {
            *acc += f64::from(x).powi(2);
        }
    }
    let tail = common::error_model::tail_factor(1.0, 1e-3);
    Solved::from_lanes(sum_sq.map(|x| (tail * (x / MODEL_DRAWS as f64).sqrt()) as f32))
}
