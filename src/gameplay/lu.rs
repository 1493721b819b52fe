//! Crout LU decomposition with partial pivoting: solve `A·x = b`, invert, take determinants
//! (article 002-9).
//!
//! Crout fixes the diagonal of U to 1 (Doolittle fixes L's instead) and builds the factors a
//! column of L, then a row of U, at a time:
//!
//! - `l_ij = a_ij − Σ_{k<j} l_ik·u_kj` for i ≥ j,
//! - `u_jk = (a_jk − Σ_{i<j} l_ji·u_ik) / l_jj` for k > j,
//!
//! both stored in one n×n array (L on and below the diagonal, U above it). The article's recipe
//! has no pivoting and fails on a zero `l_jj` even for a well-posed system such as
//! `[[0, 1], [1, 0]]`; as the article itself says pivoting is needed, the row with the largest
//! `|l_ij|` in column j is swapped up before the row of U is formed, giving `P·A = L·U`. Solving
//! is then `L·d = P·b` (forward substitution) and `U·x = d` (back substitution, no division since
//! diag(U) = 1). The inverse solves `A·x = e_k` for each unit vector; the determinant is the
//! product of L's diagonal with the permutation's sign.
//!
//! The numbers are `f64`: the matrices solved here (Witkin's `J·W·Jᵀ`, user systems) are small
//! and solved on the host, where f64 costs nothing extra, and LU's error grows with the condition
//! number, so the eight extra digits of f64 over f32 are the margin that keeps a moderately
//! ill-conditioned constraint system usable.
//!
//! **When is a matrix singular?** In floating point a pivot is rarely exactly 0, so "singular"
//! has to mean "within rounding of a singular matrix". LU with partial pivoting is backward
//! stable: the computed factors are the exact factors of some `A + ΔA` with
//! `|ΔA| ≤ γ_n·|L|·|U|` entrywise, `γ_n = n·u/(1 − n·u)`, `u = ε/2` (Higham, *Accuracy and
//! Stability of Numerical Algorithms*, Thm 9.3). For the small, well-scaled systems met here the
//! growth of `|L|·|U|` over `|A|` is modest, so ΔA is of the order of `n·u·max|a_ij|`. Changing
//! the pivot's row by that much can make the pivot exactly 0, so a pivot `|l_jj| ≤ n·ε·max|a_ij|`
//! (twice that size, for the growth) is indistinguishable from a zero one and the matrix is
//! refused as singular. This catches matrices singular up to rounding (a repeated constraint, a
//! zero row, a row that is a sum of others); it is not a condition estimate, and a matrix that
//! passes may still be ill-conditioned: the relative error of a solution is about `κ(A)·n·ε`.

use crate::error::{Error, Result};

/// The Crout factors `P·A = L·U` (diag(U) = 1) of a square matrix, ready to solve with any
/// number of right-hand sides.
#[derive(Clone, Debug, PartialEq)]
pub struct LuDecomposition {
    n: usize,
    /// L on and below the diagonal, U strictly above it, row-major, rows already permuted.
    factors: Vec<f64>,
    /// Row i of `P·A` is row `permutation[i]` of A.
    permutation: Vec<usize>,
    /// +1 or −1: the sign of the permutation, for the determinant.
    permutation_sign: f64,
}

impl LuDecomposition {
    /// Factors the n×n matrix `entries` (row-major, `n·n` values). `name` names the matrix in
    /// errors, for example `"witkin.constraint_matrix"`.
    ///
    /// Errors (`Error::InvalidInput` naming the matrix) when n is 0, the length is not `n·n`,
    /// an entry is NaN or infinite, or the matrix is singular up to rounding (a pivot
    /// `|l_jj| ≤ n·ε·max|a_ij|`; see the module docs).
    pub fn new(name: &'static str, n: usize, entries: &[f64]) -> Result<Self> {
        if n == 0 || n.checked_mul(n) != Some(entries.len()) {
            return Err(Error::InvalidInput {
                what: name,
                value: format!("{} entries for n = {n}", entries.len()),
                fix: "pass n >= 1 and exactly n*n entries, row-major",
            });
        }
        if let Some((index, value)) = entries.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(Error::InvalidInput {
                what: name,
                value: format!("entry ({}, {}) = {value}", index / n, index % n),
                fix: "pass finite entries (not NaN or infinity)",
            });
        }
        let largest = entries.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        let tolerance = n as f64 * f64::EPSILON * largest;

        let mut f = entries.to_vec();
        let mut permutation: Vec<usize> = (0..n).collect();
        let mut permutation_sign = 1.0;
        for j in 0..n {
            // Column j of L, for every row not yet pivoted.
            for i in j..n {
                let sum: f64 = (0..j).map(|k| f[i * n + k] * f[k * n + j]).sum();
                f[i * n + j] -= sum;
            }
            let pivot_row = (j..n)
                .max_by(|&a, &b| f[a * n + j].abs().total_cmp(&f[b * n + j].abs()))
                .unwrap_or(j);
            let pivot = f[pivot_row * n + j];
            if pivot.abs() <= tolerance {
                return Err(Error::InvalidInput {
                    what: name,
                    value: format!(
                        "{n}x{n} matrix with pivot {pivot:e} in column {j} (largest entry \
                         {largest:e}): singular up to rounding"
                    ),
                    fix: "make the rows independent: remove a redundant or duplicated row \
                          (constraint), or regularize",
                });
            }
            if pivot_row != j {
                for k in 0..n {
                    f.swap(j * n + k, pivot_row * n + k);
                }
                permutation.swap(j, pivot_row);
                permutation_sign = -permutation_sign;
            }
            // Row j of U, right of the diagonal.
            for k in j + 1..n {
                let sum: f64 = (0..j).map(|i| f[j * n + i] * f[i * n + k]).sum();
                f[j * n + k] = (f[j * n + k] - sum) / pivot;
            }
        }
        Ok(LuDecomposition {
            n,
            factors: f,
            permutation,
            permutation_sign,
        })
    }

    /// The matrix's dimension n.
    pub fn dimension(&self) -> usize {
        self.n
    }

    /// The row permutation P as indices: row i of `P·A` is row `permutation()[i]` of A.
    pub fn permutation(&self) -> &[usize] {
        &self.permutation
    }

    /// L (lower triangular, row-major n×n) of `P·A = L·U`.
    pub fn lower(&self) -> Vec<f64> {
        let n = self.n;
        let mut l = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                l[i * n + j] = self.factors[i * n + j];
            }
        }
        l
    }

    /// U (upper triangular with unit diagonal, row-major n×n) of `P·A = L·U`.
    pub fn upper(&self) -> Vec<f64> {
        let n = self.n;
        let mut u = vec![0.0; n * n];
        for i in 0..n {
            u[i * n + i] = 1.0;
            for j in i + 1..n {
                u[i * n + j] = self.factors[i * n + j];
            }
        }
        u
    }

    /// Solves `A·x = b`. Errors when `b` does not have n entries or holds a NaN or infinity.
    pub fn solve(&self, b: &[f64]) -> Result<Vec<f64>> {
        if b.len() != self.n {
            return Err(Error::InvalidInput {
                what: "lu.solve right-hand side",
                value: format!("{} entries for n = {}", b.len(), self.n),
                fix: "pass exactly n entries, one per row of the matrix",
            });
        }
        if let Some(v) = b.iter().find(|v| !v.is_finite()) {
            return Err(Error::InvalidInput {
                what: "lu.solve right-hand side",
                value: format!("{v}"),
                fix: "pass finite entries (not NaN or infinity)",
            });
        }
        let mut x: Vec<f64> = self.permutation.iter().map(|&i| b[i]).collect();
        self.substitute(&mut x);
        Ok(x)
    }

    /// Forward then back substitution in place: `x` holds `P·b` on entry and the solution on
    /// exit.
    fn substitute(&self, x: &mut [f64]) {
        let (n, f) = (self.n, &self.factors);
        for i in 0..n {
            let sum: f64 = (0..i).map(|j| f[i * n + j] * x[j]).sum();
            x[i] = (x[i] - sum) / f[i * n + i];
        }
        for i in (0..n).rev() {
            let sum: f64 = (i + 1..n).map(|j| f[i * n + j] * x[j]).sum();
            x[i] -= sum;
        }
    }

    /// The inverse `A⁻¹`, row-major n×n, built a column at a time by solving `A·x = e_k`.
    pub fn inverse(&self) -> Vec<f64> {
        let n = self.n;
        let mut inverse = vec![0.0; n * n];
        let mut column = vec![0.0; n];
        for k in 0..n {
            for (i, c) in column.iter_mut().enumerate() {
                *c = if self.permutation[i] == k { 1.0 } else { 0.0 };
            }
            self.substitute(&mut column);
            for (i, c) in column.iter().enumerate() {
                inverse[i * n + k] = *c;
            }
        }
        inverse
    }

    /// `det A`: the product of L's diagonal (U's is 1) times the sign of the row permutation.
    /// Never 0, since singular matrices are refused when factoring; it may overflow to ±∞ for
    /// large matrices with large entries.
    pub fn determinant(&self) -> f64 {
        let n = self.n;
        (0..n).fold(self.permutation_sign, |d, i| d * self.factors[i * n + i])
    }
}
