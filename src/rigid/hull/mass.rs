//! Volume, centre of mass and inertia tensor of a solid hull of uniform density, by tetrahedral
//! decomposition: every face is fanned into triangles, and each triangle with a reference point
//! r makes a tetrahedron whose signed volume and second moment have closed forms. Summing signed
//! tetrahedra is exact for any closed polyhedron (the parts outside cancel), so the result is
//! exact up to rounding. Host-side, in f64.
//!
//! For the tetrahedron (0, a, b, c) with D = a·(b × c) (six times its signed volume):
//! - volume D/6, first moment D/24 · (a + b + c);
//! - second moment ∫ x xᵀ dV = D/120 · (a aᵀ + b bᵀ + c cᵀ + s sᵀ), s = a + b + c (the canonical
//!   tetrahedron's 1/60 on the diagonal and 1/120 off it, mapped by the linear map [a b c]).
//!
//! The reference point is the mean of the vertices, so the sums stay near the size of the hull
//! and nothing cancels catastrophically however far the hull sits from its origin. The second
//! moment C about the centre of mass c follows from C_r − V·(c − r)(c − r)ᵀ, and the inertia
//! tensor is I = tr(C)·1 − C, times the density.

use glam::{DMat3, DVec3, Mat3, Vec3};

use super::layout::Hull;
use crate::error::{positive, Error, Result};

/// Mass properties of a solid hull.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Mass: density × volume.
    pub mass: f32,
    /// Volume.
    pub volume: f32,
    /// Centre of mass (the hull's local frame).
    pub centre: Vec3,
    /// Inertia tensor about the centre of mass, axes of the hull's frame.
    pub inertia: Mat3,
}

/// Volume, centre of mass and second moment ∫ (x − c)(x − c)ᵀ dV about it, of the solid bounded
/// by the outward-wound polygon `loops` over `v` (density 1).
pub(crate) fn volume_moments(v: &[DVec3], loops: &[Vec<u32>]) -> (f64, DVec3, DMat3) {
    let mut r = DVec3::ZERO;
    for p in v {
        r += *p;
    }
    r /= v.len().max(1) as f64;
    let mut vol6 = 0.0f64;
    let mut first24 = DVec3::ZERO;
    let mut second120 = DMat3::ZERO;
    for lp in loops {
        if lp.len() < 3 {
            continue;
        }
        let a = v[lp[0] as usize] - r;
        for k in 1..lp.len() - 1 {
            let b = v[lp[k] as usize] - r;
            let c = v[lp[k + 1] as usize] - r;
            let d = a.dot(b.cross(c));
            let s = a + b + c;
            vol6 += d;
            first24 += s * d;
            second120 += (outer(a, a) + outer(b, b) + outer(c, c) + outer(s, s)) * d;
        }
    }
    let volume = vol6 / 6.0;
    if volume == 0.0 {
        return (0.0, r, DMat3::ZERO);
    }
    let c = first24 / 24.0 / volume;
    let second = second120 / 120.0 - outer(c, c) * volume;
    (volume, r + c, second)
}

/// The inertia tensor of mass 1 spread uniformly over a solid of `volume` whose second moment
/// about its centre of mass is `second`: (tr(C)·1 − C)/V.
pub(crate) fn unit_inertia(volume: f64, second: &DMat3) -> Mat3 {
    let tr = second.x_axis.x + second.y_axis.y + second.z_axis.z;
    ((DMat3::from_diagonal(DVec3::splat(tr)) - *second) * (1.0 / volume)).as_mat3()
}

fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// Mass, volume, centre of mass and inertia tensor (about the centre of mass) of `hull` as a
/// solid of uniform `density`. Errors for a density that is not finite and positive, and for
/// results that are not finite normal f32 numbers (a hull too small or too large for f32 mass
/// properties, for example 1e-20 across: its volume underflows).
pub fn mass_properties(hull: &Hull, density: f32) -> Result<MassProperties> {
    positive("hull density", density)?;
    let v: Vec<DVec3> = hull.vertices.iter().map(|p| p.as_dvec3()).collect();
    let loops: Vec<Vec<u32>> = (0..hull.faces.len())
        .map(|f| hull.face_loop(f).to_vec())
        .collect();
    let (volume, centre, second) = volume_moments(&v, &loops);
    let rho = f64::from(density);
    let tr = second.x_axis.x + second.y_axis.y + second.z_axis.z;
    let inertia = (DMat3::from_diagonal(DVec3::splat(tr)) - second) * rho;
    let mass = volume * rho;
    let out = MassProperties {
        mass: mass as f32,
        volume: volume as f32,
        centre: centre.as_vec3(),
        inertia: inertia.as_mat3(),
    };
    let normal = |x: f32| x.is_normal() && x > 0.0;
    let diag = [
        out.inertia.x_axis.x,
        out.inertia.y_axis.y,
        out.inertia.z_axis.z,
    ];
    if !(normal(out.mass)
        && normal(out.volume)
        && out.centre.is_finite()
        && out.inertia.is_finite()
        && diag.iter().all(|&d| normal(d)))
    {
        return Err(Error::InvalidInput {
            what: "hull mass properties",
            value: format!("volume {volume:e}, mass {mass:e} (not representable as f32)"),
            fix: "scale the hull or the density so that mass and inertia are normal f32 numbers",
        });
    }
    Ok(out)
}
