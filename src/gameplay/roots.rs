//! Real roots of low-degree polynomials, for the intercept and intersection helpers.
//!
//! Article 002-11 reduces every intersection to "substitute the parametric curve into the
//! implicit one, then find the real roots of a polynomial in t", and names bisection, regula falsi
//! and Newton for degrees above two. Closed forms for the cubic and quartic exist but lose most of
//! their digits near multiple roots, so degrees above two are solved here by isolation instead:
//! between two consecutive real roots of p′ the polynomial p is monotonic, so each such interval
//! holds at most one root, and a sign change brackets it. The roots of p′ come from the same
//! procedure one degree down, ending at the quadratic, which has a closed form that is stable
//! when written as `q = −(b + sign(b)·√disc)/2`, roots `q/a` and `c/q` (no cancellation between
//! `−b` and `√disc`). Inside a bracket a safeguarded Newton iteration converges quadratically and
//! falls back to bisection when a Newton step leaves the bracket.
//!
//! A value is taken as zero when it is within the rounding error of its own evaluation (Horner's
//! bound `γ₂ₙ·Σ|cᵢ||t|ⁱ`): that is how a double root (a tangent ray) is found at all, since
//! rounding can lift it just off the axis.
//!
//! Coefficients are given lowest degree first: `c[0] + c[1]·t + c[2]·t² + …`.

use super::check::finite_f64;
use crate::error::{Error, Result};

/// Cap on the bracketing loop. Bisection alone takes any bracket between finite floats down to
/// adjacent floats in at most about 2100 halvings (2·1024 binades of exponent plus 52 bits of
/// mantissa), and Newton steps are only taken when they shrink faster than that, so the cap is
/// never what stops a search on finite input; it only bounds the loop.
const MAX_BRACKET_ITERATIONS: usize = 2200;

/// The highest degree [`real_roots_in`] accepts. Isolation recurses once per degree and the
/// rounding bound grows with it; the intersections here need 4, and a polynomial of degree
/// above a few dozen is better served by a companion-matrix eigenvalue solver.
pub const MAX_DEGREE: usize = 32;

/// Evaluates the polynomial `c[0] + c[1]·t + …` at `t` by Horner's rule.
pub fn evaluate(coefficients: &[f64], t: f64) -> f64 {
    coefficients.iter().rev().fold(0.0, |acc, &c| acc * t + c)
}

/// Bound on the rounding error of [`evaluate`] at `t`: `γ₂ₙ·Σ|cᵢ||t|ⁱ` (Higham, *Accuracy and
/// Stability of Numerical Algorithms*, eq. 5.3), with n the degree.
fn evaluation_error(coefficients: &[f64], t: f64) -> f64 {
    let n = coefficients.len().saturating_sub(1).max(1) as f64;
    let u = f64::EPSILON / 2.0;
    let gamma = 2.0 * n * u / (1.0 - 2.0 * n * u);
    let magnitude = coefficients
        .iter()
        .rev()
        .fold(0.0, |acc, &c| acc * t.abs() + c.abs());
    gamma * magnitude
}

/// Whether `value = p(t)` is zero up to its own rounding. An evaluation that overflowed is not:
/// its error bound overflows too and would otherwise call every huge value zero.
fn is_zero(p: &[f64], value: f64, t: f64) -> bool {
    let error = evaluation_error(p, t);
    value.is_finite() && error.is_finite() && value.abs() <= error
}

/// Checks every coefficient and drops zero leading coefficients, then scales the rest by a power
/// of two so the largest has magnitude in [1, 2): roots do not change, squares of huge
/// coefficients cannot overflow, and a power of two scales without rounding, so an exact
/// discriminant (a tangent written in small integers) stays exact.
fn normalized(coefficients: &[f64]) -> Result<Vec<f64>> {
    for &c in coefficients {
        finite_f64("polynomial coefficient", c)?;
    }
    let Some(degree) = coefficients.iter().rposition(|&c| c != 0.0) else {
        return Ok(Vec::new());
    };
    let kept = &coefficients[..=degree];
    let largest = kept.iter().fold(0.0_f64, |m, c| m.max(c.abs()));
    // 2^⌊log₂ largest⌋, clamped to the normal range so the power itself is representable.
    let exponent = largest.log2().floor().clamp(-1022.0, 1023.0) as i32;
    let scale = 2f64.powi(exponent);
    Ok(kept.iter().map(|c| c / scale).collect())
}

/// Real roots of `a·t² + b·t + c`, ascending, a double root listed once.
///
/// `a = 0` falls back to the linear root `−c/b`; `a = b = 0` has no isolated root (for `c = 0`
/// every t is a root, which no list can hold) and returns an empty list. A discriminant that is
/// negative by no more than its own rounding error counts as zero, so a tangent reports its
/// double root. Errors only on a coefficient that is NaN or infinite.
pub fn quadratic_roots(a: f64, b: f64, c: f64) -> Result<Vec<f64>> {
    let p = normalized(&[c, b, a])?;
    Ok(quadratic_normalized(&p))
}

/// The quadratic (or lower) case on coefficients already checked and normalized.
fn quadratic_normalized(p: &[f64]) -> Vec<f64> {
    match p.len() {
        0 | 1 => Vec::new(),
        2 => vec![-p[0] / p[1]],
        _ => {
            let (c, b, a) = (p[0], p[1], p[2]);
            let disc = b * b - 4.0 * a * c;
            // b² and 4ac each carry one rounding, the difference one more.
            let disc_error = 3.0 * f64::EPSILON * (b * b + (4.0 * a * c).abs());
            if disc < -disc_error {
                return Vec::new();
            }
            let root_disc = disc.max(0.0).sqrt();
            if root_disc == 0.0 {
                return vec![-b / (2.0 * a)];
            }
            let q = -0.5 * (b + root_disc.copysign(b));
            let (r1, r2) = (q / a, c / q);
            if r1 < r2 {
                vec![r1, r2]
            } else {
                vec![r2, r1]
            }
        }
    }
}

/// Real roots of the polynomial `c[0] + c[1]·t + …` on the whole real line, ascending, each
/// multiple root listed once.
///
/// The zero polynomial returns an empty list (it has no isolated roots). Errors only on a
/// coefficient that is NaN or infinite.
pub fn real_roots(coefficients: &[f64]) -> Result<Vec<f64>> {
    real_roots_in(coefficients, f64::NEG_INFINITY, f64::INFINITY)
}

/// Real roots of the polynomial `c[0] + c[1]·t + …` in the closed interval `[lo, hi]`, ascending,
/// each multiple root listed once. `lo` may be −∞ and `hi` +∞.
///
/// Errors on a non-finite coefficient, a NaN bound, or `lo > hi`.
pub fn real_roots_in(coefficients: &[f64], lo: f64, hi: f64) -> Result<Vec<f64>> {
    if lo.is_nan() || hi.is_nan() || lo > hi {
        return Err(Error::InvalidInput {
            what: "root interval",
            value: format!("[{lo}, {hi}]"),
            fix: "pass lo <= hi, neither NaN (infinite ends are allowed)",
        });
    }
    let p = normalized(coefficients)?;
    if p.len() > MAX_DEGREE + 1 {
        return Err(Error::InvalidInput {
            what: "polynomial degree",
            value: format!("{}", p.len() - 1),
            fix: "pass a polynomial of degree at most 32 (this solver is for low degrees)",
        });
    }
    Ok(roots_normalized(&p, lo, hi))
}

/// Root isolation on a checked, normalized polynomial (leading coefficient non-zero).
fn roots_normalized(p: &[f64], lo: f64, hi: f64) -> Vec<f64> {
    if p.len() <= 3 {
        return quadratic_normalized(p)
            .into_iter()
            .filter(|&t| t >= lo && t <= hi)
            .collect();
    }
    // Cauchy's bound: every root has |t| < 1 + max|cᵢ/cₙ|, so the search never needs infinity.
    let leading = p[p.len() - 1];
    let bound = 1.0
        + p[..p.len() - 1]
            .iter()
            .fold(0.0_f64, |m, c| m.max((c / leading).abs()));
    let (lo, hi) = (lo.max(-bound), hi.min(bound));
    if lo > hi {
        return Vec::new();
    }
    let derivative: Vec<f64> = p
        .iter()
        .enumerate()
        .skip(1)
        .map(|(i, c)| c * i as f64)
        .collect();
    let mut points = vec![lo];
    points.extend(roots_normalized(&derivative, lo, hi));
    points.push(hi);

    let mut roots: Vec<f64> = Vec::new();
    let push = |t: f64, roots: &mut Vec<f64>| {
        // Two reports of one root (an end of one interval, found again from the next) differ by
        // at most the bracket's final width of a few ulps.
        let tolerance = 8.0 * f64::EPSILON * t.abs().max(f64::MIN_POSITIVE);
        if roots
            .last()
            .is_none_or(|&last| (t - last).abs() > tolerance)
        {
            roots.push(t);
        }
    };
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (pa, pb) = (evaluate(p, a), evaluate(p, b));
        let a_is_root = is_zero(p, pa, a);
        let b_is_root = is_zero(p, pb, b);
        if a_is_root {
            push(a, &mut roots);
        } else if !b_is_root && (pa < 0.0) != (pb < 0.0) {
            push(bracketed_root(p, &derivative, a, b, pa), &mut roots);
        }
    }
    if let Some(&last) = points.last() {
        if is_zero(p, evaluate(p, last), last) {
            push(last, &mut roots);
        }
    }
    roots
}

/// The root of a polynomial that is monotonic on `[a, b]` and changes sign there (`pa = p(a)`),
/// by Newton's method kept inside a shrinking bracket.
fn bracketed_root(p: &[f64], derivative: &[f64], mut a: f64, mut b: f64, pa: f64) -> f64 {
    let a_negative = pa < 0.0;
    let mut t = 0.5 * (a + b);
    // Newton is accepted only while it moves less than half as far as the step before (the
    // rule of Numerical Recipes' rtsafe), so slow one-sided convergence turns into bisection.
    let mut previous_step = b - a;
    for _ in 0..MAX_BRACKET_ITERATIONS {
        let pt = evaluate(p, t);
        if is_zero(p, pt, t) {
            return t;
        }
        if (pt < 0.0) == a_negative {
            a = t;
        } else {
            b = t;
        }
        let newton = t - pt / evaluate(derivative, t);
        let next = if newton > a && newton < b && (newton - t).abs() <= 0.5 * previous_step {
            newton
        } else {
            0.5 * (a + b)
        };
        if next <= a || next >= b {
            // No float lies strictly between the bracket's ends: t is as close as f64 gets.
            return t;
        }
        previous_step = (next - t).abs();
        t = next;
    }
    t
}
