//! Plane geometry in homogeneous coordinates, and curve–curve intersection by substitution
//! (article 002-11).
//!
//! A point `(x, y)` is any triple `(X, Y, W)` with `x = X/W`, `y = Y/W`; `W = 0` is a point at
//! infinity (a direction). A line is a triple `L = (a, b, c)`, the points with
//! `L·P = a·X + b·Y + c·W = 0`. Then the line through two points is `P₁ × P₂` and the meeting
//! point of two lines is `L₁ × L₂`, with `W = 0` exactly when the lines are parallel: no special
//! case, the point simply lies at infinity. `L·P` for `W = 1` is a scaled signed distance, and
//! dividing by `√(a² + b²)` makes it the distance.
//!
//! For curves the article's method is: write the simpler curve parametrically, the other
//! implicitly, substitute, and find the roots of the polynomial in t. [`conic_intersections`]
//! does this for a conic (circle, ellipse, parabola, hyperbola, line pair) against a curve whose
//! homogeneous coordinates are polynomials of degree ≤ 2 in t (lines, parabolas, and rational
//! quadratics such as exact circle arcs): degree 2 × 2 = 4, so at most four meeting points, as
//! Bézout's theorem counts them.

use super::check::{direction_dvec3, finite_dvec3, finite_f64, positive_f64};
use super::roots::{quadratic_roots, real_roots_in};
use crate::error::{Error, Result};
use glam::{DVec2, DVec3};

/// The line `(a, b, c)` through two homogeneous points: their cross product. Two equal points
/// give the zero triple, which is no line.
pub fn line_through(p: DVec3, q: DVec3) -> DVec3 {
    p.cross(q)
}

/// The homogeneous point where two lines meet: their cross product. `W = 0` when they are
/// parallel (they meet at infinity); the zero triple when they are the same line.
pub fn meet(l: DVec3, m: DVec3) -> DVec3 {
    l.cross(m)
}

/// The Cartesian point of a homogeneous one, `(X/W, Y/W)`, or `None` for a point at infinity
/// (`W = 0`).
pub fn to_cartesian(p: DVec3) -> Option<DVec2> {
    (p.z != 0.0).then(|| DVec2::new(p.x / p.z, p.y / p.z))
}

/// The directed line through `point` along `direction`: `(−v, u, v·x₀ − u·y₀)` for direction
/// `(u, v)`, so that [`signed_distance`] is positive to the left of the direction of travel.
/// Negate the triple for the opposite convention. Errors on a non-finite input or a zero
/// direction.
pub fn directed_line(point: DVec2, direction: DVec2) -> Result<DVec3> {
    finite_dvec3("line.point", point.extend(0.0))?;
    direction_dvec3("line.direction", direction.extend(0.0))?;
    let (u, v) = (direction.x, direction.y);
    Ok(DVec3::new(-v, u, v * point.x - u * point.y))
}

/// Signed distance from `point` to the line `(a, b, c)`: `(a·x + b·y + c)/√(a² + b²)`. Errors on
/// a non-finite input or a line with `a = b = 0` (no direction: not a line of the plane).
pub fn signed_distance(line: DVec3, point: DVec2) -> Result<f64> {
    finite_dvec3("line", line)?;
    finite_dvec3("point", point.extend(0.0))?;
    direction_dvec3("line (a, b)", DVec3::new(line.x, line.y, 0.0))?;
    Ok(line.dot(point.extend(1.0)) / line.truncate().length())
}

/// The parameter t of the point of the 3D line `origin + t·direction` nearest to `point`:
/// `t = a·(Q − P₀)/(a·a)`, which is `a·(Q − P₀)` for a unit direction. Errors on a non-finite
/// input or a zero direction.
pub fn closest_point_on_line(origin: DVec3, direction: DVec3, point: DVec3) -> Result<f64> {
    finite_dvec3("line.origin", origin)?;
    direction_dvec3("line.direction", direction)?;
    finite_dvec3("point", point)?;
    Ok(direction.dot(point - origin) / direction.length_squared())
}

/// The parameters t (ascending) where the line `origin + t·direction` meets the circle of
/// `radius` about `center`: the roots of `A·t² + B·t + C` with `A = |dir|²`,
/// `B = 2·dir·(origin − center)`, `C = |origin − center|² − r²`. A tangent gives its one double
/// root once. Errors on a non-finite input, a zero direction or a radius that is not positive.
pub fn line_circle(
    origin: DVec2,
    direction: DVec2,
    center: DVec2,
    radius: f64,
) -> Result<Vec<f64>> {
    finite_dvec3("line.origin", origin.extend(0.0))?;
    direction_dvec3("line.direction", direction.extend(0.0))?;
    finite_dvec3("circle.center", center.extend(0.0))?;
    positive_f64("circle.radius", radius)?;
    let o = origin - center;
    quadratic_roots(
        direction.length_squared(),
        2.0 * direction.dot(o),
        o.length_squared() - radius * radius,
    )
}

/// An implicit conic `a·x² + b·x·y + c·y² + d·x + e·y + f = 0`, used homogeneously as
/// `a·X² + b·X·Y + c·Y² + d·X·W + e·Y·W + f·W² = 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conic {
    /// Coefficients `[a, b, c, d, e, f]` in the order above.
    pub coefficients: [f64; 6],
}

impl Conic {
    /// The circle of `radius` about `center`: `x² + y² − 2x₀·x − 2y₀·y + x₀² + y₀² − r² = 0`.
    pub fn circle(center: DVec2, radius: f64) -> Conic {
        let (x0, y0) = (center.x, center.y);
        Conic {
            coefficients: [
                1.0,
                0.0,
                1.0,
                -2.0 * x0,
                -2.0 * y0,
                x0 * x0 + y0 * y0 - radius * radius,
            ],
        }
    }

    /// The conic's value at a Cartesian point (0 on the curve).
    pub fn value(&self, p: DVec2) -> f64 {
        let [a, b, c, d, e, f] = self.coefficients;
        a * p.x * p.x + b * p.x * p.y + c * p.y * p.y + d * p.x + e * p.y + f
    }
}

/// A plane curve whose homogeneous coordinates are polynomials of degree ≤ 2 in t, each given
/// lowest degree first: `X(t) = x[0] + x[1]·t + x[2]·t²`, likewise Y and W. `w = [1, 0, 0]` makes it
/// an ordinary polynomial curve (a line or a parabola); a quadratic W gives rational curves such
/// as the exact circle `(1 − t², 2t, 1 + t²)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuadraticCurve {
    /// X(t) coefficients.
    pub x: [f64; 3],
    /// Y(t) coefficients.
    pub y: [f64; 3],
    /// W(t) coefficients.
    pub w: [f64; 3],
}

impl QuadraticCurve {
    /// The polynomial curve `(x(t), y(t))` with `W = 1`.
    #[must_use]
    pub fn polynomial(x: [f64; 3], y: [f64; 3]) -> Self {
        QuadraticCurve {
            x,
            y,
            w: [1.0, 0.0, 0.0],
        }
    }

    /// The Cartesian point at t, or `None` where `W(t) = 0` (a point at infinity).
    pub fn point(&self, t: f64) -> Option<DVec2> {
        let eval = |c: [f64; 3]| c[0] + t * (c[1] + t * c[2]);
        to_cartesian(DVec3::new(eval(self.x), eval(self.y), eval(self.w)))
    }
}

/// Product of two quadratics, lowest degree first.
fn product(p: [f64; 3], q: [f64; 3]) -> [f64; 5] {
    let mut out = [0.0; 5];
    for (i, a) in p.iter().enumerate() {
        for (j, b) in q.iter().enumerate() {
            out[i + j] += a * b;
        }
    }
    out
}

/// The parameters t in `[lo, hi]` (ascending; infinite ends allowed) where `curve` meets
/// `conic`: the real roots of the conic's homogeneous equation with the curve substituted, a
/// polynomial of degree ≤ 4. Roots where the curve's W vanishes are meetings at infinity
/// ([`QuadraticCurve::point`] gives `None` there). A curve lying on the conic makes the
/// polynomial vanish identically and returns no roots. Errors on a non-finite coefficient or
/// interval end that is NaN or reversed.
pub fn conic_intersections(
    conic: &Conic,
    curve: &QuadraticCurve,
    lo: f64,
    hi: f64,
) -> Result<Vec<f64>> {
    for c in conic.coefficients {
        finite_f64("conic coefficient", c)?;
    }
    for c in curve.x.iter().chain(&curve.y).chain(&curve.w) {
        finite_f64("curve coefficient", *c)?;
    }
    if lo.is_nan() || hi.is_nan() || lo > hi {
        return Err(Error::InvalidInput {
            what: "conic_intersections interval",
            value: format!("[{lo}, {hi}]"),
            fix: "pass lo <= hi, neither NaN",
        });
    }
    let [a, b, c, d, e, f] = conic.coefficients;
    let (x, y, w) = (curve.x, curve.y, curve.w);
    let terms = [
        (a, product(x, x)),
        (b, product(x, y)),
        (c, product(y, y)),
        (d, product(x, w)),
        (e, product(y, w)),
        (f, product(w, w)),
    ];
    let mut quartic = [0.0; 5];
    for (k, poly) in terms {
        for (q, p) in quartic.iter_mut().zip(poly) {
            *q += k * p;
        }
    }
    real_roots_in(&quartic, lo, hi)
}
