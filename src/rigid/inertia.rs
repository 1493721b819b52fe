//! Inertia tensors about the centre of mass, for the solids of the book's appendix A
//! (catalogue §18 A) and the solid capsule (articles 002-8), plus the parallel-axis theorem, the
//! rotation of a tensor into another frame, and the checked inversion a body stores.
//!
//! Every helper takes the body's mass and its dimensions and returns a [`Mat3`] in the shape's
//! own frame with its origin at the centre of mass. The tensor convention is the book's:
//! diagonal moments `I_a = ∫ (b² + c²) dm` and off-diagonal entries `−I_ab = −∫ a·b dm`, so the
//! tensor maps an angular velocity to an angular momentum. The principal-axis solids here all
//! have zero products of inertia.
//!
//! The helpers are plain formulas: they do not validate their inputs (a negative mass gives a
//! negative tensor). [`inverse_inertia`] is the boundary that rejects what no body may carry, so
//! the inverse a body stores is always finite and positive definite.
//!
//! Corrections applied (catalogue §20 and 002-8):
//! - the cone's `I_zz` is printed as `3/5·mh² + 3/20·mr²` in the book; by the cone's symmetry
//!   about its axis it equals `I_xx = 3/80·mh² + 3/20·mr²`, which is what [`cone`] returns;
//! - the capsule uses the full-precision π rather than the article's 10-digit literal, and its
//!   hemispheres are moved from their own centres of mass (3R/8 from the flat face) with the
//!   parallel-axis theorem, which is what 002-8 derives; with H = 0 it reduces to a solid sphere.

use glam::{DMat3, Mat3, Vec3, Vec4};

use super::math::quat_to_mat3;
use crate::error::{Error, Result};

/// Solid sphere of radius `r`: `2/5·m·r²` about every axis.
pub fn solid_sphere(mass: f32, r: f32) -> Mat3 {
    Mat3::from_diagonal(Vec3::splat(0.4 * mass * r * r))
}

/// Thin spherical shell (hollow sphere) of radius `r`: `2/3·m·r²` about every axis.
pub fn hollow_sphere(mass: f32, r: f32) -> Mat3 {
    Mat3::from_diagonal(Vec3::splat(2.0 / 3.0 * mass * r * r))
}

/// Solid cuboid with **half** extents `half` (the [`super::types::shape_kind::BOX`] convention).
///
/// The book's table uses full extents `d = 2·half`: `I_xx = m(d_y² + d_z²)/12`, which is
/// `m(h_y² + h_z²)/3` in half extents.
pub fn cuboid(mass: f32, half: Vec3) -> Mat3 {
    let d = 2.0 * half;
    let (x2, y2, z2) = (d.x * d.x, d.y * d.y, d.z * d.z);
    Mat3::from_diagonal(Vec3::new(y2 + z2, x2 + z2, x2 + y2) * (mass / 12.0))
}

/// Solid ellipsoid with semi-axes `radii` along x, y and z: `I_xx = m(r_y² + r_z²)/5`, and so on.
pub fn ellipsoid(mass: f32, radii: Vec3) -> Mat3 {
    let r2 = radii * radii;
    Mat3::from_diagonal(Vec3::new(r2.y + r2.z, r2.x + r2.z, r2.x + r2.y) * (mass / 5.0))
}

/// Solid cylinder with its axis along y, radius `r` and full height `h`:
/// `I_xx = I_zz = m·h²/12 + m·r²/4`, `I_yy = m·r²/2`.
pub fn cylinder(mass: f32, r: f32, h: f32) -> Mat3 {
    let side = mass * h * h / 12.0 + mass * r * r / 4.0;
    Mat3::from_diagonal(Vec3::new(side, 0.5 * mass * r * r, side))
}

/// Thick-walled tube (a cylinder with a coaxial cylindrical hole), axis y, outer radius
/// `r_outer`, inner radius `r_inner` and full height `h`:
/// `I_xx = I_zz = m·h²/12 + m(r_o² + r_i²)/4`, `I_yy = m(r_o² + r_i²)/2`.
/// `r_inner = 0` gives [`cylinder`]; `r_inner → r_outer` gives a thin pipe.
pub fn tube(mass: f32, r_outer: f32, r_inner: f32, h: f32) -> Mat3 {
    let rr = r_outer * r_outer + r_inner * r_inner;
    let side = mass * h * h / 12.0 + mass * rr / 4.0;
    Mat3::from_diagonal(Vec3::new(side, 0.5 * mass * rr, side))
}

/// Height of a solid cone's centre of mass above its base: `h/4`. A cone whose tensor comes
/// from [`cone`] has its base centre at `(0, −h/4, 0)` and its tip at `(0, 3h/4, 0)`.
pub fn cone_com_height(h: f32) -> f32 {
    0.25 * h
}

/// Solid right circular cone, tip along +y, base radius `r`, height `h`, about its centre of
/// mass ([`cone_com_height`] above the base): `I_xx = I_zz = 3/80·m·h² + 3/20·m·r²`,
/// `I_yy = 3/10·m·r²`. The book prints a different `I_zz` (an erratum, see the module docs); the
/// cone is symmetric about y, so `I_zz = I_xx`.
pub fn cone(mass: f32, r: f32, h: f32) -> Mat3 {
    let side = 3.0 / 80.0 * mass * h * h + 3.0 / 20.0 * mass * r * r;
    Mat3::from_diagonal(Vec3::new(side, 0.3 * mass * r * r, side))
}

/// Height of a solid hemisphere's centre of mass above its flat face: `3r/8`.
pub fn hemisphere_com_height(r: f32) -> f32 {
    0.375 * r
}

/// Solid hemisphere of radius `r`, flat face in the xz plane and dome toward +y, about its centre
/// of mass ([`hemisphere_com_height`] above the face): `I_xx = I_zz = 83/320·m·r²`,
/// `I_yy = 2/5·m·r²`. (About the centre of the flat face every axis gives `2/5·m·r²`; moving the
/// x and z axes to the centre of mass subtracts `m(3r/8)²`.)
pub fn hemisphere(mass: f32, r: f32) -> Mat3 {
    let side = 83.0 / 320.0 * mass * r * r;
    Mat3::from_diagonal(Vec3::new(side, 0.4 * mass * r * r, side))
}

/// Solid capsule (the [`super::types::shape_kind::CAPSULE`] convention: segment along y,
/// `radius`, `half_length` half the segment, so the cylinder is `2·half_length` tall), with
/// uniform density and total `mass`. See [`capsule_from_density`] for the formula.
pub fn capsule(mass: f32, radius: f32, half_length: f32) -> Mat3 {
    let h = 2.0 * half_length;
    // Masses of the cylinder and of each hemisphere are proportional to their volumes,
    // πR²H and (2/3)πR³; π cancels.
    let total = h + 4.0 / 3.0 * radius;
    if total == 0.0 {
        return Mat3::ZERO;
    }
    let m_cyl = mass * h / total;
    let m_hemi = mass * (2.0 / 3.0 * radius) / total;
    capsule_parts(m_cyl, m_hemi, radius, h)
}

/// Mass and inertia tensor of a solid capsule from its cylinder height `h` (the segment length,
/// without the caps), `radius` and `density`, following 002-8: with `m_c = π·h·R²·ρ` and
/// `m_h = (2/3)·π·R³·ρ` per hemisphere,
/// `I_yy = m_c·R²/2 + 2·(2/5)·m_h·R²` and
/// `I_xx = I_zz = m_c(R²/4 + h²/12) + 2·[(2/5)·m_h·R² + m_h(h²/4 + 3hR/8)]`,
/// the hemisphere terms being `83/320·m_h·R²` about their own centre of mass plus the
/// parallel-axis shift `m_h(h/2 + 3R/8)²`. Returns `(mass, tensor)`; the centre of mass is at
/// the origin.
pub fn capsule_from_density(h: f32, radius: f32, density: f32) -> (f32, Mat3) {
    let pi = std::f32::consts::PI;
    let m_cyl = pi * h * radius * radius * density;
    let m_hemi = 2.0 / 3.0 * pi * radius * radius * radius * density;
    (
        m_cyl + 2.0 * m_hemi,
        capsule_parts(m_cyl, m_hemi, radius, h),
    )
}

/// The capsule tensor from its part masses (shared by both constructors so they agree).
fn capsule_parts(m_cyl: f32, m_hemi: f32, r: f32, h: f32) -> Mat3 {
    let r2 = r * r;
    let yy = m_cyl * r2 / 2.0 + 2.0 * (0.4 * m_hemi * r2);
    let xx = m_cyl * (r2 / 4.0 + h * h / 12.0)
        + 2.0 * (0.4 * m_hemi * r2 + m_hemi * (h * h / 4.0 + 3.0 * h * r / 8.0));
    Mat3::from_diagonal(Vec3::new(xx, yy, xx))
}

/// Parallel-axis theorem (Steiner): the tensor about a reference point P of a body whose centre
/// of mass lies at `offset` from P: `I + m(|d|²·E − d·dᵀ)` with `d = offset`. Use it to sum the parts of a compound body about its common
/// centre of mass; the input must be about the part's own centre of mass.
pub fn parallel_axis(i_com: Mat3, mass: f32, offset: Vec3) -> Mat3 {
    let d = offset;
    let dd = d.dot(d);
    let shift = Mat3::from_diagonal(Vec3::splat(dd)) - Mat3::from_cols(d * d.x, d * d.y, d * d.z);
    i_com + shift * mass
}

/// The tensor of a body rotated by the unit quaternion `q` (x, y, z, w), expressed in the outer
/// frame: `R·I·Rᵀ`. Use it for a shape with an `offset_rot` before [`parallel_axis`].
pub fn rotate(i: Mat3, q: Vec4) -> Mat3 {
    let r = quat_to_mat3(q);
    r * i * r.transpose()
}

/// Smallest Cholesky pivot accepted, relative to the largest diagonal entry. Below this the
/// tensor's condition number exceeds what f32 can invert meaningfully (about 1/ε of f32), so the
/// body would spin on rounding noise.
const MIN_PIVOT_RATIO: f64 = 1e-7;

/// Relative asymmetry accepted (rounding of [`rotate`] and sums stays far below it).
const SYMMETRY_TOLERANCE: f64 = 1e-4;

/// The inverse of an inertia tensor, for a body's `inv_inertia`. Rejects, with
/// [`Error::InvalidInput`] naming the fix: non-finite entries, an asymmetric matrix, and a tensor
/// that is not positive definite or so ill-conditioned that f32 cannot invert it (zero, negative
/// or near-zero moments, for example a zero mass or a degenerate shape). Static and kinematic
/// bodies do not need this: they store a zero inverse tensor directly.
///
/// The checks and the inversion run in f64 so that a valid but anisotropic tensor (a long thin
/// rod) is not rejected for rounding.
pub fn inverse_inertia(i: Mat3) -> Result<Mat3> {
    let bad = |fix: &'static str| Error::InvalidInput {
        what: "inertia tensor",
        value: format!("{:?}", i.to_cols_array_2d()),
        fix,
    };
    if !i.is_finite() {
        return Err(bad(
            "pass finite entries (not NaN or infinity); check the mass and the shape's dimensions",
        ));
    }
    let m = i.as_dmat3();
    let scale = m.x_axis.x.abs().max(m.y_axis.y.abs()).max(m.z_axis.z.abs());
    let asym = (m.y_axis.x - m.x_axis.y)
        .abs()
        .max((m.z_axis.x - m.x_axis.z).abs())
        .max((m.z_axis.y - m.y_axis.z).abs());
    if asym > SYMMETRY_TOLERANCE * scale {
        return Err(bad(
            "an inertia tensor is symmetric (I_ab = I_ba); build it with the wgphys::rigid::inertia helpers",
        ));
    }
    // Cholesky pivots of the symmetric part: all positive ⇔ positive definite. Relative to the
    // largest moment so units and mass scale do not matter.
    let (a, b, c) = (m.x_axis.x, m.y_axis.x, m.z_axis.x);
    let (d, e, f) = (m.y_axis.y, m.z_axis.y, m.z_axis.z);
    let p1 = a;
    let l21 = if p1 > 0.0 { b / p1 } else { 0.0 };
    let l31 = if p1 > 0.0 { c / p1 } else { 0.0 };
    let p2 = d - l21 * b;
    let l32 = if p2 > 0.0 { (e - l31 * b) / p2 } else { 0.0 };
    let p3 = f - l31 * c - l32 * (e - l31 * b);
    let min_pivot = MIN_PIVOT_RATIO * scale;
    if !(scale > 0.0 && p1 > min_pivot && p2 > min_pivot && p3 > min_pivot) {
        return Err(bad(
            "the tensor must be positive definite with every principal moment > 0: give a \
             positive mass and non-degenerate dimensions (a static body stores a zero inverse \
             tensor instead)",
        ));
    }
    let inv: DMat3 = m.inverse();
    let inv = (inv + inv.transpose()) * 0.5;
    let out = inv.as_mat3();
    if !out.is_finite() {
        return Err(bad(
            "the tensor's inverse overflows f32; use larger moments",
        ));
    }
    Ok(out)
}
