//! Ray casts against planes, triangles, spheres, general quadrics and tori, each by substituting
//! the ray into the surface's implicit equation and finding the roots of the polynomial in t
//! (article 002-11).
//!
//! The article's recipe: make the simpler object parametric (the ray `P(t) = O + t·D`) and the
//! other implicit (`f(P) = 0`), substitute, and solve. A surface of degree n gives a polynomial of
//! degree n in t (Bézout: a line meets it in n points, counting complex ones, points at infinity
//! and multiplicity). In homogeneous coordinates `X = (x, y, z, 1)` a plane is a 4-vector `π`
//! with `π·X = 0`, a quadric a symmetric 4×4 matrix Q with `Xᵀ·Q·X = 0`; the ray is
//! `X(t) = (O, 1) + t·(D, 0)`, a point plus a point at infinity. Then
//!
//! - plane: `t = −π·(O,1) / π·(D,0)` (the article's typo `c·y0` is `c·z0` here, erratum 9);
//! - quadric: `(DᵀQD)·t² + 2(DᵀQO)·t + OᵀQO = 0` with the homogeneous O and D, a sphere being
//!   the special case `Q = diag(1, 1, 1, −r²)` about its centre;
//! - torus (major radius R, minor r, about its axis): `(|p|² + R² − r²)² − 4R²·(x² + y²) = 0`, a
//!   quartic in t;
//! - triangle: the plane of its vertices, then the hit point on the inner side of all three edges
//!   (the article's side test with signed distances, in 3D through the plane normal).
//!
//! Each test returns the nearest hit with `t ≥ 0` (t in units of the direction's length; a unit
//! direction makes t a distance), the point, and the unit normal: the gradient of the implicit
//! function, pointing to where it is positive (out of spheres, tori and of quadrics written
//! negative inside). A ray that starts inside a closed surface hits it on the way out. A ray lying
//! in the surface (the polynomial vanishes for every t) never crosses it and is reported as a
//! miss. Roots come from [`super::roots`], which finds the double root of a tangent ray.
//!
//! Everything is `f64`: a torus's quartic loses about half its digits to cancellation in f32.

use super::check::{direction_dvec3, finite_dvec3, positive_f64};
use super::roots::{quadratic_roots, real_roots_in};
use crate::error::{Error, Result};
use glam::{DMat4, DVec3, DVec4};

/// A half-line `origin + t·direction`, t ≥ 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where the ray starts.
    pub origin: DVec3,
    /// Where it goes, any non-zero length; t is measured in units of this length.
    pub direction: DVec3,
}

impl Ray {
    /// The point at parameter t.
    pub fn at(&self, t: f64) -> DVec3 {
        self.origin + self.direction * t
    }

    fn check(&self) -> Result<()> {
        finite_dvec3("ray.origin", self.origin)?;
        direction_dvec3("ray.direction", self.direction)
    }
}

/// Where a ray meets a surface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// The ray parameter, ≥ 0.
    pub t: f64,
    /// The point `origin + t·direction`.
    pub point: DVec3,
    /// The unit surface normal there (the implicit function's gradient direction); zero at a
    /// singular point of the surface, such as a cone's apex, where no normal exists.
    pub normal: DVec3,
}

/// The smallest root ≥ 0 of those given (ascending), as a hit with normal from `gradient`.
fn nearest(ray: &Ray, roots: &[f64], gradient: impl Fn(DVec3) -> DVec3) -> Option<Hit> {
    roots.iter().find(|&&t| t >= 0.0).map(|&t| {
        let point = ray.at(t);
        Hit {
            t,
            point,
            normal: gradient(point).normalize_or_zero(),
        }
    })
}

/// The ray against the plane `π = (a, b, c, d)`, the points with `a·x + b·y + c·z + d = 0`. The
/// normal is `(a, b, c)` normalized, whichever side the ray comes from. Errors on a non-finite
/// input, a zero direction, or a plane whose `(a, b, c)` is zero.
pub fn ray_plane(ray: &Ray, plane: DVec4) -> Result<Option<Hit>> {
    ray.check()?;
    if !plane.is_finite() {
        return Err(Error::InvalidInput {
            what: "plane",
            value: format!("{plane:?}"),
            fix: "pass finite coefficients",
        });
    }
    direction_dvec3("plane normal (a, b, c)", plane.truncate())?;
    let numerator = plane.dot(ray.origin.extend(1.0));
    let denominator = plane.dot(ray.direction.extend(0.0));
    if denominator == 0.0 {
        return Ok(None);
    }
    let t = -numerator / denominator;
    Ok(nearest(ray, &[t], |_| plane.truncate()))
}

/// The ray against the sphere of `radius` about `center`. Errors on a non-finite input, a zero
/// direction or a radius that is not positive.
pub fn ray_sphere(ray: &Ray, center: DVec3, radius: f64) -> Result<Option<Hit>> {
    ray.check()?;
    finite_dvec3("sphere.center", center)?;
    positive_f64("sphere.radius", radius)?;
    let o = ray.origin - center;
    let d = ray.direction;
    let roots = quadratic_roots(d.dot(d), 2.0 * d.dot(o), o.dot(o) - radius * radius)?;
    Ok(nearest(ray, &roots, |p| p - center))
}

/// The ray against the quadric `Xᵀ·Q·X = 0`, `X = (x, y, z, 1)`. Q need not be symmetric (only
/// its symmetric part matters, and that is what is used). Examples: an ellipsoid with semi-axes
/// (a, b, c) is `diag(1/a², 1/b², 1/c², −1)`, an infinite cylinder of radius r about z is
/// `diag(1, 1, 0, −r²)`, a double cone about z is `diag(1, 1, −1, 0)`. Errors on a non-finite
/// input or a zero direction.
pub fn ray_quadric(ray: &Ray, quadric: DMat4) -> Result<Option<Hit>> {
    ray.check()?;
    if !quadric.is_finite() {
        return Err(Error::InvalidInput {
            what: "quadric",
            value: format!("{quadric:?}"),
            fix: "pass a matrix with finite entries",
        });
    }
    let q = (quadric + quadric.transpose()) * 0.5;
    let o = ray.origin.extend(1.0);
    let d = ray.direction.extend(0.0);
    let roots = quadratic_roots(d.dot(q * d), 2.0 * d.dot(q * o), o.dot(q * o))?;
    Ok(nearest(ray, &roots, |p| (q * p.extend(1.0)).truncate()))
}

/// The ray against the triangle `vertices` (either winding; the normal follows the right-hand
/// rule on the given order). Points on an edge count as hits; a ray in the triangle's plane
/// misses. Errors on a non-finite input, a zero direction, or a degenerate triangle (collinear
/// vertices, no plane).
pub fn ray_triangle(ray: &Ray, vertices: [DVec3; 3]) -> Result<Option<Hit>> {
    ray.check()?;
    let [a, b, c] = vertices;
    for v in vertices {
        finite_dvec3("triangle vertex", v)?;
    }
    let normal = (b - a).cross(c - a);
    if normal.length_squared() == 0.0 {
        return Err(Error::InvalidInput {
            what: "triangle",
            value: format!("{vertices:?}"),
            fix: "pass three vertices that are not collinear",
        });
    }
    let plane = normal.extend(-normal.dot(a));
    let Some(hit) = ray_plane(ray, plane)? else {
        return Ok(None);
    };
    let p = hit.point;
    // Inside when p is on the inner (left, seen along the normal) side of all three edges.
    let inside = [(a, b), (b, c), (c, a)]
        .iter()
        .all(|&(from, to)| (to - from).cross(p - from).dot(normal) >= 0.0);
    Ok(inside.then_some(hit))
}

/// Product of two polynomials, lowest degree first.
fn multiply(p: &[f64], q: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; p.len() + q.len() - 1];
    for (i, a) in p.iter().enumerate() {
        for (j, b) in q.iter().enumerate() {
            out[i + j] += a * b;
        }
    }
    out
}

/// The ray against a torus: the circle of radius `major_radius` about `center` in the plane
/// normal to `axis`, swept by a disc of radius `minor_radius`. Errors on a non-finite input, a
/// zero direction or axis, or radii that are not positive. A horn or spindle torus
/// (`minor ≥ major`) is allowed; its self-intersection points have no normal.
///
/// The quartic is formed in the torus's frame with t measured from the ray's point nearest the
/// centre: far-away origins would otherwise make its coefficients huge and cancel on
/// evaluation.
pub fn ray_torus(
    ray: &Ray,
    center: DVec3,
    axis: DVec3,
    major_radius: f64,
    minor_radius: f64,
) -> Result<Option<Hit>> {
    ray.check()?;
    finite_dvec3("torus.center", center)?;
    direction_dvec3("torus.axis", axis)?;
    positive_f64("torus.major_radius", major_radius)?;
    positive_f64("torus.minor_radius", minor_radius)?;
    let z = axis.normalize();
    let x = z.any_orthonormal_vector();
    let y = z.cross(x);
    let to_local = |v: DVec3| DVec3::new(v.dot(x), v.dot(y), v.dot(z));
    let d = to_local(ray.direction);
    let shift = -(ray.origin - center).dot(ray.direction) / ray.direction.length_squared();
    let o = to_local(ray.origin + ray.direction * shift - center);

    let (big, small) = (major_radius * major_radius, minor_radius * minor_radius);
    // s(u) = |p|² + R² − r², ρ(u) = x² + y², with p = o + u·d; f = s² − 4R²·ρ.
    let s = [o.dot(o) + big - small, 2.0 * o.dot(d), d.dot(d)];
    let rho = [
        o.x * o.x + o.y * o.y,
        2.0 * (o.x * d.x + o.y * d.y),
        d.x * d.x + d.y * d.y,
    ];
    let mut quartic = multiply(&s, &s);
    for (k, r) in rho.iter().enumerate() {
        quartic[k] -= 4.0 * big * r;
    }
    let roots: Vec<f64> = real_roots_in(&quartic, -shift, f64::INFINITY)?
        .into_iter()
        .map(|u| (u + shift).max(0.0))
        .collect();
    Ok(nearest(ray, &roots, |p| {
        let local = to_local(p - center);
        let s = local.length_squared() + big - small;
        let g = 4.0 * s * local - 8.0 * big * DVec3::new(local.x, local.y, 0.0);
        x * g.x + y * g.y + z * g.z
    }))
}
