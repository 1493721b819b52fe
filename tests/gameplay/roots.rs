//! Polynomial roots: closed forms, known factors, the catalogue's quartic, brute force.

use crate::support::{gamma, Rng};
use wgphys::gameplay::roots::evaluate;
use wgphys::gameplay::{quadratic_roots, real_roots, real_roots_in};
use wgphys::Error;

/// Coefficients (lowest degree first) of `Π (t − rᵢ)`, by repeated multiplication.
fn from_roots(roots: &[f64]) -> Vec<f64> {
    let mut p = vec![1.0];
    for &r in roots {
        let mut next = vec![0.0; p.len() + 1];
        for (k, c) in p.iter().enumerate() {
            next[k + 1] += c;
            next[k] -= r * c;
        }
        p = next;
    }
    p
}

#[test]
fn quadratic_closed_forms() {
    // (t − 1)(t − 3): every step of the stable formula is exact in binary (disc = 4, √ = 2).
    assert_eq!(quadratic_roots(1.0, -4.0, 3.0).unwrap(), vec![1.0, 3.0]);
    // Linear: a = 0.
    assert_eq!(quadratic_roots(0.0, 2.0, 4.0).unwrap(), vec![-2.0]);
    // Constant and zero polynomials: no isolated root.
    assert!(quadratic_roots(0.0, 0.0, 5.0).unwrap().is_empty());
    assert!(quadratic_roots(0.0, 0.0, 0.0).unwrap().is_empty());
    // (t − 2)²: a double root, listed once, exact (disc = 16 − 16 = 0).
    assert_eq!(quadratic_roots(1.0, -4.0, 4.0).unwrap(), vec![2.0]);
    // t² + 1: none.
    assert!(quadratic_roots(1.0, 0.0, 1.0).unwrap().is_empty());
    assert!(matches!(
        quadratic_roots(f64::NAN, 1.0, 1.0),
        Err(Error::InvalidInput {
            what: "polynomial coefficient",
            ..
        })
    ));
}

#[test]
fn quadratic_small_root_survives_cancellation() {
    // t² − 10⁸·t + 1: the roots are 2/(10⁸ + √(10¹⁶ − 4)) ≈ 10⁻⁸ and its reciprocal. The
    // textbook (−b − √disc)/2a loses ~25% of the small root to cancellation; the stable form
    // computes it as c/q with no subtraction of near-equal numbers.
    let roots = quadratic_roots(1.0, -1e8, 1.0).unwrap();
    let small = 2.0 / (1e8 + (1e16_f64 - 4.0).sqrt());
    let large = 1.0 / small;
    // Both sides take a square root, a sum and a division (three roundings each, with 10¹⁶ − 4
    // exact in f64): 8ε relative covers both.
    assert!(
        (roots[0] - small).abs() <= 8.0 * f64::EPSILON * small,
        "{roots:?}"
    );
    assert!(
        (roots[1] - large).abs() <= 8.0 * f64::EPSILON * large,
        "{roots:?}"
    );
}

#[test]
fn cubics_and_quartics_from_known_roots() {
    let mut rng = Rng::new(0x5eed_0001);
    for case in 0..400 {
        let degree = 3 + case % 2;
        // Roots in [−5, 5], at least 0.1 apart so each is simple and well separated.
        let mut roots: Vec<f64> = Vec::new();
        while roots.len() < degree {
            let r = rng.range(-5.0, 5.0);
            if roots.iter().all(|&q| (q - r).abs() > 0.1) {
                roots.push(r);
            }
        }
        roots.sort_by(f64::total_cmp);
        let p = from_roots(&roots);
        let found = real_roots(&p).unwrap();
        assert_eq!(found.len(), degree, "case {case}: {roots:?} -> {found:?}");
        for (j, (&r, &f)) in roots.iter().zip(&found).enumerate() {
            // Expanding the product rounds each coefficient by at most γ₂ₙ times the matching
            // coefficient of Π(t + |rᵢ|), and evaluating p near r rounds by the same amount, so
            // |p̂(r)| ≤ 2γ₂ₙ·Π(|r| + |rᵢ|). A simple root moves by that over |p′(r)|
            // = Π_{i≠j}|r − rᵢ|; twice that covers the second-order terms.
            let magnitude: f64 = roots.iter().map(|q| r.abs() + q.abs()).product();
            let slope: f64 = roots
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != j)
                .map(|(_, q)| (r - q).abs())
                .product();
            let bound = 2.0 * 2.0 * gamma(2 * degree) * magnitude / slope;
            assert!(
                (f - r).abs() <= bound,
                "case {case}: root {r} found {f}, bound {bound:e}"
            );
        }
    }
}

#[test]
fn catalogue_quartic_circle_against_parabola() {
    // 002-11: 64t⁴ − 144t³ + 101t² − 22t + 1 (the unit circle against (2t − 1, 8t² − 9t + 1)).
    let found = real_roots(&[1.0, -22.0, 101.0, -144.0, 64.0]).unwrap();
    let expected = [0.0611803, 0.281471, 0.907348, 1.0];
    assert_eq!(found.len(), 4, "{found:?}");
    for (f, e) in found.iter().zip(expected) {
        // The catalogue prints six significant digits: half a unit in the last is ≤ 5e-7.
        assert!((f - e).abs() <= 5e-7, "{found:?}");
    }
    // t = 1 is an exact root: p(1) = 64 − 144 + 101 − 22 + 1 = 0 in integers. Its simple-root
    // error is the evaluation bound γ₈·Σ|cᵢ| = γ₈·332 over |p′(1)| = |256 − 432 + 202 − 22| = 4.
    assert!((found[3] - 1.0).abs() <= gamma(8) * 332.0 / 4.0 * 2.0);
}

#[test]
fn double_root_is_found_once() {
    // (t − 1)²(t + 2)(t − 3) = t⁴ − 3t³ − 3t² + 11t − 6.
    let p = [-6.0, 11.0, -3.0, -3.0, 1.0];
    let found = real_roots(&p).unwrap();
    assert_eq!(found.len(), 3, "{found:?}");
    // Simple roots: integer coefficients are exact, so only evaluation rounds: γ₈·Σ|cᵢ||r|ⁱ
    // over |p′(r)|, doubled for second-order terms. p′(−2) = 9·(−3)·… = (−3)²·(−5) = −45,
    // p′(3) = 2²·5 = 20.
    let bound = |r: f64, slope: f64| {
        2.0 * gamma(8) * p.iter().rev().fold(0.0, |a, c| a * r.abs() + c.abs()) / slope
    };
    assert!((found[0] + 2.0).abs() <= bound(-2.0, 45.0), "{found:?}");
    assert!((found[2] - 3.0).abs() <= bound(3.0, 20.0), "{found:?}");
    // A double root moves by √(2·δp/|p″|) for a value error δp: p″(1) = 2·(1 + 2)(1 − 3) = −12,
    // δp ≤ γ₈·Σ|cᵢ| = γ₈·24; doubled for the critical point's own error.
    let double_bound = 2.0 * (2.0 * gamma(8) * 24.0 / 12.0).sqrt();
    assert!((found[1] - 1.0).abs() <= double_bound, "{found:?}");
}

#[test]
fn no_real_roots_and_intervals() {
    // (t² + 1)(t² + 4) = t⁴ + 5t² + 4 has only complex roots.
    assert!(real_roots(&[4.0, 0.0, 5.0, 0.0, 1.0]).unwrap().is_empty());
    // (t − 1)(t − 2)(t − 3) on [1.5, 2.5] holds only 2, and an interval end on a root counts.
    let p = from_roots(&[1.0, 2.0, 3.0]);
    assert_eq!(real_roots_in(&p, 1.5, 2.5).unwrap().len(), 1);
    assert_eq!(real_roots_in(&p, 2.0, 2.0).unwrap(), vec![2.0]);
    // Zero leading coefficients are dropped: 0·t⁴ + 0·t³ + t² − 1.
    assert_eq!(
        real_roots(&[-1.0, 0.0, 1.0, 0.0, 0.0]).unwrap(),
        vec![-1.0, 1.0]
    );
    assert!(real_roots(&[]).unwrap().is_empty());
    // A tiny leading coefficient puts Cauchy's bound near 1e150, where t⁴ overflows; that must
    // not pass for a root. 1e-300·t⁴ + t² − 1 has only the roots of t² − 1 + O(1e-300): ±1, to
    // the rounding of the quadratic part near 1, a few ulps.
    let found = real_roots(&[-1.0, 0.0, 1.0, 0.0, 1e-300]).unwrap();
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        (found[0] + 1.0).abs() <= 4.0 * f64::EPSILON
            && (found[1] - 1.0).abs() <= 4.0 * f64::EPSILON
    );
    // Low degrees only.
    let mut high = vec![0.0; 40];
    high[39] = 1.0;
    high[0] = -1.0;
    assert!(matches!(
        real_roots(&high),
        Err(Error::InvalidInput {
            what: "polynomial degree",
            ..
        })
    ));
    assert!(matches!(
        real_roots_in(&p, 2.0, 1.0),
        Err(Error::InvalidInput {
            what: "root interval",
            ..
        })
    ));
    assert!(real_roots_in(&p, f64::NAN, 1.0).is_err());
    assert!(real_roots(&[1.0, f64::INFINITY]).is_err());
}

#[test]
fn random_quartics_against_sign_changes() {
    let mut rng = Rng::new(0x5eed_0002);
    for case in 0..200 {
        let p: Vec<f64> = (0..5).map(|_| rng.range(-1.0, 1.0)).collect();
        let found = real_roots(&p).unwrap();
        assert!(found.len() <= 4);
        // Every root found is a root: |p(r)| within the evaluation bound γ₈·Σ|cᵢ||r|ⁱ (the
        // search stops there or at adjacent floats, where p can differ by one slope·ulp more).
        for &r in &found {
            let magnitude = p.iter().rev().fold(0.0, |a, c| a * r.abs() + c.abs());
            let slope = evaluate(&[p[1], 2.0 * p[2], 3.0 * p[3], 4.0 * p[4]], r).abs();
            let allowed = gamma(8) * magnitude + slope * 4.0 * f64::EPSILON * r.abs().max(1.0);
            assert!(
                evaluate(&p, r).abs() <= allowed,
                "case {case}: p({r}) = {}",
                evaluate(&p, r)
            );
        }
        // Every sign change on a fine grid over Cauchy's bound brackets a root found.
        let bound = 1.0 + p[..4].iter().fold(0.0_f64, |m, c| m.max((c / p[4]).abs()));
        let n = 20_000;
        let grid = |k: usize| -bound + 2.0 * bound * k as f64 / n as f64;
        for k in 0..n {
            let (a, b) = (grid(k), grid(k + 1));
            if evaluate(&p, a) * evaluate(&p, b) < 0.0 {
                assert!(
                    found.iter().any(|&r| r >= a && r <= b),
                    "case {case}: sign change in [{a}, {b}] but roots {found:?}"
                );
            }
        }
    }
}
