//! How good a heap of grains is: what a poured pile is judged by once it settles, for the
//! benchmark's pour and the tests. A pile that holds its weight has touching pairs that barely
//! overlap (a solver that runs out of iterations lets grains sink into each other); a pile at
//! rest has almost no kinetic energy; and a heap of grains that slide without rolling stands at
//! an angle of repose set by friction (the flank of a heap of grains with Coulomb friction μ and
//! no rolling resistance is at most about atan μ steep).

use crate::{Error, Result};
use glam::{Vec3, Vec4, Vec4Swizzles};
use std::collections::{BTreeMap, HashMap};

/// What [`pile_metrics`] measures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PileMetrics {
    /// Grains measured.
    pub grains: usize,
    /// Pairs whose centres are closer than a diameter plus the contact slop.
    pub touching_pairs: u64,
    /// Mean overlap of the touching pairs (a diameter minus the distance, at least 0), as a
    /// fraction of a diameter.
    pub mean_overlap: f32,
    /// Largest overlap of a pair, as a fraction of a diameter.
    pub worst_overlap: f32,
    /// Mean kinetic energy per unit mass, ½|v|² averaged over the grains (J/kg).
    pub mean_kinetic_energy: f32,
    /// The heap's angle of repose in degrees: the slope of its flank, fitted to the top surface
    /// (the highest grain in rings around the heap's axis) between 20% and 80% of its height.
    /// `None` when the grains stand less than a diameter high or the flank has fewer than three
    /// rings (a layer, not a heap).
    pub repose_degrees: Option<f32>,
    /// Height of the highest grain's centre above the lowest one's.
    pub height: f32,
}

/// Measures a pile of grains of `radius` from their positions (xyz) and velocities (xyz);
/// `slop` is the distance beyond touching that still counts as a contact (the world's
/// `contact_slop`). The heap's axis is the vertical through the grains' mean x and z.
///
/// # Errors
/// [`Error::InvalidInput`] for a radius that is not positive and finite, a negative or
/// non-finite slop, velocities that do not match the positions one for one, or a non-finite
/// position or velocity (a world that blew up is not a pile).
pub fn pile_metrics(pos: &[Vec4], vel: &[Vec4], radius: f32, slop: f32) -> Result<PileMetrics> {
    check_input(pos, vel, radius, slop)?;
    let diameter = 2.0 * radius;
    let reach = diameter + slop;
    // Pairs closer than `reach`, from a hash of cells of that size (i64 cells: any finite
    // position has one, and the neighbour offsets saturate instead of overflowing).
    let cell = |p: Vec3| {
        let c = (p / reach).floor();
        (c.x as i64, c.y as i64, c.z as i64)
    };
    let mut cells: HashMap<(i64, i64, i64), Vec<usize>> = HashMap::new();
    for (i, p) in pos.iter().enumerate() {
        cells.entry(cell(p.xyz())).or_default().push(i);
    }
    let (mut sum, mut pairs, mut worst) = (0.0f64, 0u64, 0.0f32);
    for (i, p) in pos.iter().enumerate() {
        let (cx, cy, cz) = cell(p.xyz());
        for dx in -1..=1i64 {
            for dy in -1..=1i64 {
                for dz in -1..=1i64 {
                    let key = (
                        cx.saturating_add(dx),
                        cy.saturating_add(dy),
                        cz.saturating_add(dz),
                    );
                    let Some(list) = cells.get(&key) else {
                        continue;
                    };
                    for &j in list.iter().filter(|&&j| j > i) {
                        let d = (p.xyz() - pos[j].xyz()).length();
                        if d < reach {
                            let overlap = (diameter - d).max(0.0);
                            sum += f64::from(overlap);
                            pairs += 1;
                            worst = worst.max(overlap);
                        }
                    }
                }
            }
        }
    }
    let n = vel.len().max(1) as f64;
    let ke = vel
        .iter()
        .map(|v| 0.5 * f64::from(v.xyz().length_squared()))
        .sum::<f64>()
        / n;
    let (low, high) = pos.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(p.y), hi.max(p.y))
    });
    Ok(PileMetrics {
        grains: pos.len(),
        touching_pairs: pairs,
        mean_overlap: if pairs > 0 {
            (sum / pairs as f64) as f32 / diameter
        } else {
            0.0
        },
        worst_overlap: worst / diameter,
        mean_kinetic_energy: ke as f32,
        repose_degrees: repose_angle(pos, radius),
        height: if pos.is_empty() { 0.0 } else { high - low },
    })
}

fn check_input(pos: &[Vec4], vel: &[Vec4], radius: f32, slop: f32) -> Result<()> {
    if !(radius > 0.0 && radius.is_finite()) {
        return Err(Error::InvalidInput {
            what: "pile radius",
            value: radius.to_string(),
            fix: "give the grains' radius, positive and finite",
        });
    }
    if !(slop >= 0.0 && slop.is_finite()) {
        return Err(Error::InvalidInput {
            what: "pile contact slop",
            value: slop.to_string(),
            fix: "give the world's contact_slop, zero or more and finite",
        });
    }
    if pos.len() != vel.len() {
        return Err(Error::InvalidInput {
            what: "pile velocities",
            value: format!("{} velocities for {} positions", vel.len(), pos.len()),
            fix: "pass one velocity per position, as AggregateWorld::read_snapshot gives them",
        });
    }
    if let Some((i, p)) = pos.iter().enumerate().find(|(_, p)| !p.xyz().is_finite()) {
        return Err(Error::InvalidInput {
            what: "pile position",
            value: format!("grain {i} at {p}"),
            fix: "measure a world whose state is finite",
        });
    }
    if let Some((i, v)) = vel.iter().enumerate().find(|(_, v)| !v.xyz().is_finite()) {
        return Err(Error::InvalidInput {
            what: "pile velocity",
            value: format!("grain {i} moving at {v}"),
            fix: "measure a world whose state is finite",
        });
    }
    Ok(())
}

/// The flank's slope: the top surface is the highest grain centre in rings one diameter wide
/// around the axis; a least-squares line through the rings whose top lies between 20% and 80%
/// of the heap's height (the cap and the foot are not flank) gives the angle.
fn repose_angle(pos: &[Vec4], radius: f32) -> Option<f32> {
    if pos.is_empty() {
        return None;
    }
    let n = pos.len() as f32;
    let centre = pos.iter().fold(Vec3::ZERO, |s, p| s + p.xyz()) / n;
    let floor = pos.iter().fold(f32::MAX, |lo, p| lo.min(p.y));
    let ring_width = 2.0 * radius;
    // Sparse rings: a grain far from the heap costs one entry, not a ring per diameter.
    let mut top: BTreeMap<u64, f32> = BTreeMap::new();
    for p in pos {
        let rho = ((p.x - centre.x).powi(2) + (p.z - centre.z).powi(2)).sqrt();
        let ring = (rho / ring_width) as u64;
        let h = top.entry(ring).or_insert(f32::MIN);
        *h = h.max(p.y - floor);
    }
    let height = top.values().copied().fold(0.0f32, f32::max);
    if height < 2.0 * radius {
        // One layer of grains: no heap to have a flank.
        return None;
    }
    let flank: Vec<(f32, f32)> = top
        .iter()
        .filter(|&(_, &h)| h >= 0.2 * height && h <= 0.8 * height)
        .map(|(&ring, &h)| ((ring as f32 + 0.5) * ring_width, h))
        .collect();
    if flank.len() < 3 {
        return None;
    }
    let m = flank.len() as f32;
    let (sx, sy) = flank
        .iter()
        .fold((0.0, 0.0), |(sx, sy), &(x, y)| (sx + x, sy + y));
    let (mx, my) = (sx / m, sy / m);
    let (sxy, sxx) = flank.iter().fold((0.0, 0.0), |(sxy, sxx), &(x, y)| {
        (sxy + (x - mx) * (y - my), sxx + (x - mx) * (x - mx))
    });
    if sxx <= 0.0 {
        return None;
    }
    Some((-sxy / sxx).atan().to_degrees())
}

/// Grains per sheet of [`pour`]: a 10 × 10 nozzle.
pub const POUR_SHEET: u32 = 100;

/// Pours `count` grains of `radius` into the sand box ([`super::aggregate::sand`]) a sheet of
/// [`POUR_SHEET`] every third step (as fast as the nozzle clears), then lets the heap settle
/// for `settle_steps` steps of 1/60 s. Returns the world and the steps it ran.
///
/// # Errors
/// Propagates world errors.
pub fn pour(
    backend: crate::Backend,
    count: u32,
    radius: f32,
    settle_steps: u32,
) -> crate::Result<(crate::aggregate::AggregateWorld, u32)> {
    let mut world = super::aggregate::sand(backend, count, radius)?;
    let mut step = 0u32;
    while (world.len() as u32) < count {
        if step.is_multiple_of(3) {
            let sheet = POUR_SHEET.min(count - world.len() as u32);
            super::aggregate::sand_pour(&mut world, sheet, radius, step)?;
        }
        world.step(super::DT)?;
        step += 1;
    }
    for _ in 0..settle_steps {
        world.step(super::DT)?;
        step += 1;
    }
    Ok((world, step))
}
