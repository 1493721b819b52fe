//! Material combination: how the friction and restitution of two touching shapes become the one
//! value a contact uses (articles catalogue 002-1). The narrow phase stores the combined values
//! in every manifold, so the solver never looks at shapes. The WGSL twin is `combine` in
//! `shaders/rigid/narrow.wgsl`, with the same operation order; its rule codes are the
//! `COMBINE_*` constants there and `tests/rigid_narrow.rs` checks they equal [`Combine::code`].
//!
//! The catalogue's requirements: the result lies between the two inputs (`f(x, x) = x`), it is
//! non-decreasing in each input, it has no long flat regions, friction favours the slippy
//! material (`f(0, 1) < 0.5`: ice on rubber slides) and restitution favours the extremes (very
//! bouncy or very dead materials dominate average ones). [`Combine::WeightedFriction`] and
//! [`Combine::WeightedRestitution`] are the recommended rules for each.

use std::f32::consts::SQRT_2;

/// A rule that combines two material values into one.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Combine {
    /// `min(a, b)`. Flat: `f(0.1, 0.1) = f(0.1, 1)`.
    Min,
    /// `(a + b) / 2`.
    Average,
    /// `√(a·b)` (0 when the product is negative). Favours the smaller value, unevenly spaced.
    Geometric,
    /// The catalogue's `f_ws` for friction: `(a·w_a + b·w_b) / (w_a + w_b)` with
    /// `w_x = √2·(1 − x) + 1`. √2 is the largest constant that keeps the rule monotone;
    /// `f_ws(0, 1) = 1/(2 + √2) ≈ 0.293`. Inputs above 1 are weighted as 1 (and below 0 as 0) so
    /// the weights stay positive for grippy materials.
    WeightedFriction,
    /// The catalogue's piecewise `r_pmms` for restitution: `min` when both are below ½, `max`
    /// when both are above ½, `a + b − ½` otherwise. Full range for `r(x, ½)`, flat corners.
    PiecewiseRestitution,
    /// The catalogue's `r_ws` for restitution: `(a·w_a + b·w_b) / (w_a + w_b)` with
    /// `w_x = √2·|2x − 1| + 1`: extremes dominate, continuous everywhere, `r(x, 1 − x) = ½`.
    WeightedRestitution,
}

impl Combine {
    /// Every rule, in code order.
    pub const ALL: [Combine; 6] = [
        Combine::Min,
        Combine::Average,
        Combine::Geometric,
        Combine::WeightedFriction,
        Combine::PiecewiseRestitution,
        Combine::WeightedRestitution,
    ];

    /// The rule's code in `GpuRigidParams::combine_friction` / `combine_restitution`.
    pub const fn code(self) -> u32 {
        match self {
            Combine::Min => 0,
            Combine::Average => 1,
            Combine::Geometric => 2,
            Combine::WeightedFriction => 3,
            Combine::PiecewiseRestitution => 4,
            Combine::WeightedRestitution => 5,
        }
    }

    /// The rule with `code`, or `None` for an unknown code.
    pub const fn from_code(code: u32) -> Option<Combine> {
        match code {
            0 => Some(Combine::Min),
            1 => Some(Combine::Average),
            2 => Some(Combine::Geometric),
            3 => Some(Combine::WeightedFriction),
            4 => Some(Combine::PiecewiseRestitution),
            5 => Some(Combine::WeightedRestitution),
            _ => None,
        }
    }

    /// Applies the rule to `a` and `b`.
    pub fn apply(self, a: f32, b: f32) -> f32 {
        match self {
            Combine::Min => combine_min(a, b),
            Combine::Average => combine_average(a, b),
            Combine::Geometric => combine_geometric(a, b),
            Combine::WeightedFriction => combine_friction_ws(a, b),
            Combine::PiecewiseRestitution => combine_restitution_pmms(a, b),
            Combine::WeightedRestitution => combine_restitution_ws(a, b),
        }
    }
}

/// Combines `a` and `b` by the rule with `code`, as the GPU does. Unknown codes fall back to
/// [`Combine::Average`] on both sides (the host validates codes; this only keeps the shader
/// total).
pub fn combine(code: u32, a: f32, b: f32) -> f32 {
    match Combine::from_code(code) {
        Some(rule) => rule.apply(a, b),
        None => combine_average(a, b),
    }
}

/// `min(a, b)`.
pub fn combine_min(a: f32, b: f32) -> f32 {
    a.min(b)
}

/// `(a + b) / 2`.
pub fn combine_average(a: f32, b: f32) -> f32 {
    (a + b) * 0.5
}

/// `√(a·b)`, 0 when the product is negative.
pub fn combine_geometric(a: f32, b: f32) -> f32 {
    (a * b).max(0.0).sqrt()
}

/// The weighted sum shared by `f_ws` and `r_ws`.
fn weighted(a: f32, wa: f32, b: f32, wb: f32) -> f32 {
    (a * wa + b * wb) / (wa + wb)
}

/// `f_ws`: weights `√2·(1 − x) + 1`, with x clamped to [0, 1] inside the weight only (constant
/// bounds, so `clamp` cannot panic).
pub fn combine_friction_ws(a: f32, b: f32) -> f32 {
    let wa = SQRT_2 * (1.0 - a.clamp(0.0, 1.0)) + 1.0;
    let wb = SQRT_2 * (1.0 - b.clamp(0.0, 1.0)) + 1.0;
    weighted(a, wa, b, wb)
}

/// `r_pmms`: `min` when both are below ½, `max` when both are above ½, `a + b − ½` otherwise
/// (one of them is ½ or they lie on opposite sides, so the result stays between them).
pub fn combine_restitution_pmms(a: f32, b: f32) -> f32 {
    if a < 0.5 && b < 0.5 {
        a.min(b)
    } else if a > 0.5 && b > 0.5 {
        a.max(b)
    } else {
        a + b - 0.5
    }
}

/// `r_ws`: weights `√2·|2x − 1| + 1`.
pub fn combine_restitution_ws(a: f32, b: f32) -> f32 {
    let wa = SQRT_2 * (2.0 * a - 1.0).abs() + 1.0;
    let wb = SQRT_2 * (2.0 * b - 1.0).abs() + 1.0;
    weighted(a, wa, b, wb)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f32, want: f32, what: &str) {
        assert!((got - want).abs() < 1e-4, "{what}: got {got}, want {want}");
    }

    /// The catalogue's numeric test vectors for 002-1.
    #[test]
    fn catalogue_vectors() {
        let f = combine_friction_ws;
        close(f(0.0, 1.0), 0.29289, "f_ws(0,1)");
        close(f(0.1, 1.0), 0.3750, "f_ws(0.1,1)");
        close(f(0.2, 1.0), 0.4555, "f_ws(0.2,1)");
        close(f(0.5, 1.0), 0.6847, "f_ws(0.5,1)");
        close(f(0.0, 0.5), 0.2071, "f_ws(0,0.5)");
        close(f(0.3, 0.7), 0.4669, "f_ws(0.3,0.7)");
        close(f(0.1, 0.9), 0.3675, "f_ws(0.1,0.9)");
        close(f(0.25, 0.75), 0.4482, "f_ws(0.25,0.75)");
        let r = combine_restitution_ws;
        close(r(0.0, 1.0), 0.5, "r_ws(0,1)");
        close(r(0.0, 0.5), 0.14645, "r_ws(0,0.5)");
        close(r(1.0, 0.5), 0.85355, "r_ws(1,0.5)");
        close(r(0.25, 0.5), 0.3423, "r_ws(0.25,0.5)");
        close(r(0.75, 0.5), 0.6577, "r_ws(0.75,0.5)");
        close(r(0.2, 0.3), 0.2459, "r_ws(0.2,0.3)");
        close(r(0.7, 0.9), 0.8153, "r_ws(0.7,0.9)");
        close(r(0.2, 0.9), 0.5749, "r_ws(0.2,0.9)");
        let p = combine_restitution_pmms;
        close(p(0.0, 0.5), 0.0, "r_pmms(0,0.5)");
        close(p(1.0, 0.5), 1.0, "r_pmms(1,0.5)");
        close(p(0.2, 0.3), 0.2, "r_pmms(0.2,0.3)");
        close(p(0.7, 0.9), 0.9, "r_pmms(0.7,0.9)");
        close(p(0.2, 0.9), 0.6, "r_pmms(0.2,0.9)");
        close(p(0.5, 0.5), 0.5, "r_pmms(0.5,0.5)");
        close(p(0.0, 1.0), 0.5, "r_pmms(0,1)");
        close(combine_min(0.1, 0.1), 0.1, "f_min(0.1,0.1)");
        close(combine_min(0.1, 1.0), 0.1, "f_min(0.1,1)");
        close(combine_average(0.0, 1.0), 0.5, "f_aa(0,1)");
        close(combine_geometric(0.0, 1.0), 0.0, "f_ga(0,1)");
        close(combine_geometric(0.2, 1.0), 0.4472, "f_ga(0.2,1)");
        close(
            combine_geometric(0.5, 1.0),
            std::f32::consts::FRAC_1_SQRT_2,
            "f_ga(0.5,1)",
        );
    }

    /// Requirements 1 and 2 of 002-1 on a grid: idempotent, between the inputs, symmetric and
    /// non-decreasing in each input, for every rule; plus the catalogue's identity
    /// `r_ws(x, 1 − x) = ½`.
    #[test]
    fn requirements_hold_on_a_grid() {
        let n = 101;
        for rule in Combine::ALL {
            for i in 0..n {
                let x = i as f32 / (n - 1) as f32;
                close(rule.apply(x, x), x, &format!("{rule:?}({x},{x})"));
                let mut prev = f32::NEG_INFINITY;
                for j in 0..n {
                    let y = j as f32 / (n - 1) as f32;
                    let v = rule.apply(y, x);
                    assert!(
                        v >= x.min(y) - 1e-6 && v <= x.max(y) + 1e-6,
                        "{rule:?}({y},{x}) = {v} is not between the inputs"
                    );
                    close(
                        v,
                        rule.apply(x, y),
                        &format!("{rule:?} symmetric at ({x},{y})"),
                    );
                    assert!(
                        v >= prev - 1e-6,
                        "{rule:?}(., {x}) decreases at {y}: {prev} -> {v}"
                    );
                    prev = v;
                }
            }
        }
        for i in 0..=100 {
            let x = i as f32 / 100.0;
            close(combine_restitution_ws(x, 1.0 - x), 0.5, "r_ws(x,1-x)");
        }
    }

    /// Codes round-trip, unknown codes are refused, and `combine` dispatches by code.
    #[test]
    fn codes_round_trip() {
        for rule in Combine::ALL {
            assert_eq!(Combine::from_code(rule.code()), Some(rule));
            assert_eq!(combine(rule.code(), 0.2, 0.9), rule.apply(0.2, 0.9));
        }
        assert_eq!(Combine::from_code(6), None);
        assert_eq!(combine(99, 0.2, 0.4), combine_average(0.2, 0.4));
    }

    /// Friction above 1 (grippy rubber) keeps a positive weight, so the result stays between.
    #[test]
    fn friction_above_one_stays_between() {
        let v = combine_friction_ws(0.3, 2.5);
        assert!(v > 0.3 && v < 2.5, "f_ws(0.3, 2.5) = {v}");
    }
}
