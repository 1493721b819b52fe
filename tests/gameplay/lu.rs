//! Crout LU (002-9): the catalogue's example, error bounds from the condition number, random
//! matrices against Gaussian elimination written here, singular and bad input.

use crate::support::{gamma, Rng};
use wgphys::gameplay::LuDecomposition;
use wgphys::Error;

/// ‖M‖∞ of a row-major n×n matrix: the largest absolute row sum.
fn norm_inf(n: usize, m: &[f64]) -> f64 {
    (0..n)
        .map(|i| m[i * n..(i + 1) * n].iter().map(|v| v.abs()).sum::<f64>())
        .fold(0.0, f64::max)
}

fn vec_norm_inf(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

fn multiply(n: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            c[i * n + j] = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
        }
    }
    c
}

fn apply(n: usize, a: &[f64], x: &[f64]) -> Vec<f64> {
    (0..n)
        .map(|i| (0..n).map(|k| a[i * n + k] * x[k]).sum())
        .collect()
}

/// What the backward error of LU is measured against: κ∞(A) from the computed inverse, and
/// ρ = ‖|L|·|U|‖∞/‖A‖∞, the growth of the factors (Higham, Thm 9.4: the computed solution
/// solves (A + ΔA)x̂ = b with |ΔA| ≤ γ₃ₙ|L||U|, so ‖x − x̂‖/‖x̂‖ ≤ κ·γ₃ₙ·ρ to first order).
struct Conditioning {
    kappa: f64,
    growth: f64,
}

fn conditioning(n: usize, a: &[f64], lu: &LuDecomposition) -> Conditioning {
    let abs = |m: Vec<f64>| m.into_iter().map(f64::abs).collect::<Vec<_>>();
    let lu_abs = multiply(n, &abs(lu.lower()), &abs(lu.upper()));
    Conditioning {
        kappa: norm_inf(n, a) * norm_inf(n, &lu.inverse()),
        growth: norm_inf(n, &lu_abs) / norm_inf(n, a),
    }
}

/// Gaussian elimination with partial pivoting on the augmented matrix, row operations only:
/// the brute-force reference, written independently of the library's Crout recurrences.
/// Returns the solution and the determinant.
fn gaussian_elimination(n: usize, a: &[f64], b: &[f64]) -> (Vec<f64>, f64) {
    let mut m: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            let mut row = a[i * n..(i + 1) * n].to_vec();
            row.push(b[i]);
            row
        })
        .collect();
    let mut det = 1.0;
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&x, &y| m[x][col].abs().total_cmp(&m[y][col].abs()))
            .unwrap();
        if pivot != col {
            m.swap(pivot, col);
            det = -det;
        }
        det *= m[col][col];
        for row in col + 1..n {
            let factor = m[row][col] / m[col][col];
            let pivot_row = m[col].clone();
            for (x, p) in m[row][col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= factor * p;
            }
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let sum: f64 = (i + 1..n).map(|k| m[i][k] * x[k]).sum();
        x[i] = (m[i][n] - sum) / m[i][i];
    }
    (x, det)
}

const CATALOGUE_A: [f64; 9] = [3.0, -0.1, -0.2, 0.1, 7.0, -0.3, 0.3, -0.2, 10.0];

#[test]
fn catalogue_example() {
    let lu = LuDecomposition::new("catalogue A", 3, &CATALOGUE_A).unwrap();
    // Column 1's largest entry is already on top, and so is column 2's (7.00333 > 0.19): no
    // row swaps, so the factors are the article's unpivoted ones.
    assert_eq!(lu.permutation(), &[0, 1, 2]);
    // The catalogue prints L and U rounded; each tolerance is half a unit in its last digit.
    let (l, u) = (lu.lower(), lu.upper());
    let expected_l = [
        (0, 3.0, 1e-15),
        (3, 0.1, 1e-15),
        (4, 7.00333, 5e-6),
        (6, 0.3, 1e-15),
        (7, -0.19, 1e-15),
        (8, 10.01204, 5e-6),
    ];
    for (k, v, tol) in expected_l {
        // The entries with tolerance 1e-15 are exact in decimal (3, 0.1, 0.3; and −0.19 =
        // −0.2 + 0.3·0.1/3), computed with a handful of roundings of numbers below 1.
        assert!((l[k] - v).abs() <= tol, "L[{k}] = {} vs {v}", l[k]);
    }
    for (k, v) in [(1, -0.033333), (2, -0.066667), (5, -0.041885)] {
        assert!((u[k] - v).abs() <= 5e-7, "U[{k}] = {} vs {v}", u[k]);
    }
    for k in [0, 4, 8] {
        assert_eq!(u[k], 1.0, "Crout's U has a unit diagonal");
    }

    let x = lu.solve(&[7.85, -19.3, 71.4]).unwrap();
    let c = conditioning(3, &CATALOGUE_A, &lu);
    // First-order forward error κ·γ₃ₙ·ρ, plus κ·2u for A's and b's decimal entries being
    // rounded to binary on input; doubled for the second-order terms.
    let bound = 2.0 * c.kappa * (gamma(9) * c.growth + f64::EPSILON) * 7.0;
    for (xi, e) in x.iter().zip([3.0, -2.5, 7.0]) {
        assert!((xi - e).abs() <= bound, "x = {x:?}, bound {bound:e}");
    }
    // det A is the product of L's diagonal. The catalogue's factors 7.00333 and 10.01204 are
    // rounded to half a unit in their last digit, 7e-7 and 5e-7 relative: 1.2e-6 together, so
    // 3e-6 covers the product of the printed values.
    let catalogue_det = 3.0 * 7.00333 * 10.01204;
    assert!((lu.determinant() - catalogue_det).abs() <= 3e-6 * catalogue_det);
}

#[test]
fn inverse_times_matrix_is_identity() {
    let mut rng = Rng::new(0x5eed_0301);
    let mut cases: Vec<(usize, Vec<f64>)> = vec![(3, CATALOGUE_A.to_vec())];
    for n in [2, 5, 8, 12] {
        cases.push((n, (0..n * n).map(|_| rng.range(-1.0, 1.0)).collect()));
    }
    for (n, a) in cases {
        let lu = LuDecomposition::new("random A", n, &a).unwrap();
        let x = lu.inverse();
        let c = conditioning(n, &a, &lu);
        // Each column solves (A + ΔA_k)·x_k = e_k with |ΔA_k| ≤ γ₃ₙ·|L|·|U| (backward
        // stability), so the right residual is ‖AX − I‖ ≤ γ₃ₙ·ρ·‖A‖·‖X‖ = γ₃ₙ·ρ·κ. The left
        // residual follows from the identity XA − I = A⁻¹·(AX − I)·A: at most κ times that.
        // The test's own products round by γₙ·‖A‖‖X‖ = γₙ·κ. Doubled for second order.
        let right_bound = 2.0 * c.kappa * (gamma(3 * n) * c.growth + gamma(n));
        let left_bound = c.kappa * right_bound;
        for (product, bound, side) in [
            (multiply(n, &a, &x), right_bound, "AX"),
            (multiply(n, &x, &a), left_bound, "XA"),
        ] {
            for i in 0..n {
                for j in 0..n {
                    let target = if i == j { 1.0 } else { 0.0 };
                    let err = (product[i * n + j] - target).abs();
                    assert!(
                        err <= bound,
                        "n {n}: ({side})[{i}][{j}] off by {err:e}, bound {bound:e}"
                    );
                }
            }
        }
    }
}

#[test]
fn random_matrices_against_gaussian_elimination() {
    let mut rng = Rng::new(0x5eed_0302);
    for case in 0..300 {
        let n = 1 + case % 12;
        let a: Vec<f64> = (0..n * n).map(|_| rng.range(-1.0, 1.0)).collect();
        let b: Vec<f64> = (0..n).map(|_| rng.range(-10.0, 10.0)).collect();
        let lu = LuDecomposition::new("random A", n, &a).unwrap();
        let x = lu.solve(&b).unwrap();
        let (reference, det) = gaussian_elimination(n, &a, &b);
        let c = conditioning(n, &a, &lu);
        // Both pick the same pivots (Crout's l_ij for i ≥ j is elimination's column entry),
        // so both have growth ρ and each is within κ·γ₃ₙ·ρ of the true x (relative, ∞-norm):
        // twice that between them, doubled for second order.
        let scale = vec_norm_inf(&reference);
        let bound = 4.0 * c.kappa * gamma(3 * n) * c.growth * scale;
        for (xi, ri) in x.iter().zip(&reference) {
            assert!(
                (xi - ri).abs() <= bound,
                "case {case} n {n}: {xi} vs {ri}, bound {bound:e}"
            );
        }
        // Backward stability, independent of κ: ‖Ax − b‖ ≤ γ₃ₙ·‖|L||U|‖·‖x‖, plus the
        // rounding γₙ·‖A‖‖x‖ of the test's own product; doubled.
        let residual: Vec<f64> = apply(n, &a, &x)
            .iter()
            .zip(&b)
            .map(|(p, q)| p - q)
            .collect();
        let allowed =
            2.0 * (gamma(3 * n) * c.growth + gamma(n)) * norm_inf(n, &a) * vec_norm_inf(&x);
        assert!(
            vec_norm_inf(&residual) <= allowed,
            "case {case}: residual {residual:?}"
        );
        // det(A + ΔA) = det A·(1 + tr(A⁻¹ΔA) + …), |tr(A⁻¹ΔA)| ≤ n·κ·γ₃ₙ·ρ; the product of n
        // pivots adds γₙ. Two methods, doubled for second order.
        let det_bound = 4.0 * (n as f64 * c.kappa * gamma(3 * n) * c.growth + gamma(n)) * det.abs();
        assert!(
            (lu.determinant() - det).abs() <= det_bound,
            "case {case}: det {} vs {det}",
            lu.determinant()
        );
    }
}

#[test]
fn determinants_and_pivoting() {
    // ad − bc = 4·3 − 3·6 = −6; the pivot swap makes the sign matter. Every operation is exact.
    let lu = LuDecomposition::new("2x2", 2, &[4.0, 3.0, 6.0, 3.0]).unwrap();
    assert_eq!(lu.determinant(), -6.0);
    // A zero in the top-left corner: unpivoted Crout divides by it (the article's MATLAB
    // lucrout); pivoting swaps the rows. Exact.
    let swap = LuDecomposition::new("swap", 2, &[0.0, 1.0, 1.0, 0.0]).unwrap();
    assert_eq!(swap.solve(&[2.0, 3.0]).unwrap(), vec![3.0, 2.0]);
    assert_eq!(swap.determinant(), -1.0);
    let cycle =
        LuDecomposition::new("cycle", 3, &[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]).unwrap();
    assert_eq!(cycle.determinant(), 1.0);
    // Triangular: the diagonal's product, 2·3·4, exact.
    let tri =
        LuDecomposition::new("tri", 3, &[2.0, 0.0, 0.0, 1.0, 3.0, 0.0, 5.0, 6.0, 4.0]).unwrap();
    assert_eq!(tri.determinant(), 24.0);
    let one = LuDecomposition::new("1x1", 1, &[5.0]).unwrap();
    assert_eq!(one.solve(&[10.0]).unwrap(), vec![2.0]);
    assert_eq!(one.inverse(), vec![0.2]);
    assert_eq!(one.dimension(), 1);
}

#[test]
fn singular_matrices_are_refused_by_name() {
    // Rank 2: row 3 = 2·row 2 − row 1. Elimination in f64 leaves a last pivot of ~1e-16 rather
    // than 0; the tolerance n·ε·max|a| = 6e-15 must catch it.
    for (n, a) in [
        (3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]),
        (2, vec![0.0; 4]),
        (3, vec![1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 0.5, 0.1, 0.7]),
        (3, vec![0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.5, 0.7, 0.9]),
    ] {
        match LuDecomposition::new("test.matrix", n, &a) {
            Err(Error::InvalidInput {
                what: "test.matrix",
                value,
                ..
            }) => {
                assert!(value.contains("singular"), "{value}");
            }
            other => panic!("{a:?} accepted: {other:?}"),
        }
    }
    // Near-singular but a genuine pivot of 1e-10, far above 2·ε: accepted, and solved as
    // accurately as its κ ≈ 4e10 allows. x = (1, 2), b = A·x (rounded).
    let a = [1.0, 1.0, 1.0, 1.0 + 1e-10];
    let lu = LuDecomposition::new("near", 2, &a).unwrap();
    let x = lu.solve(&[3.0, 3.0 + 2e-10]).unwrap();
    let c = conditioning(2, &a, &lu);
    // κ·(γ₆·ρ + ε for the rounded b and 1 + 1e-10), doubled: about 1e-4 relative.
    let bound = 2.0 * c.kappa * (gamma(6) * c.growth + f64::EPSILON) * 2.0;
    assert!(
        (x[0] - 1.0).abs() <= bound && (x[1] - 2.0).abs() <= bound,
        "{x:?} bound {bound:e}"
    );
}

#[test]
fn bad_input() {
    assert!(matches!(
        LuDecomposition::new("m", 0, &[]),
        Err(Error::InvalidInput { what: "m", .. })
    ));
    assert!(matches!(
        LuDecomposition::new("m", 2, &[1.0, 2.0, 3.0]),
        Err(Error::InvalidInput { what: "m", .. })
    ));
    match LuDecomposition::new("m", 2, &[1.0, f64::NAN, 3.0, 4.0]) {
        Err(Error::InvalidInput {
            what: "m", value, ..
        }) => assert!(value.contains("(0, 1)"), "{value}"),
        other => panic!("{other:?}"),
    }
    let lu = LuDecomposition::new("m", 2, &[1.0, 0.0, 0.0, 1.0]).unwrap();
    assert!(lu.solve(&[1.0]).is_err());
    assert!(lu.solve(&[1.0, f64::INFINITY]).is_err());
}
