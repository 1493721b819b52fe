//! Time of impact by conservative advancement (catalogue 001-A: Mirtich's thesis §2.3.2, in
//! Coumans's form for constant linear and angular velocity): the first fraction t of a step at
//! which two moving convex shapes come within a target distance.
//!
//! Each shape moves through the step by a [`Sweep`]: its frame origin translates by `lin` and
//! it turns by the rotation vector `ang` about that origin, both linearly in t ∈ [0, 1]. At the
//! current t, GJK gives the distance d and the normal n (from b to a). Along the fixed axis n,
//! the gap between the shapes cannot shrink faster than
//!
//!   μ = (lin_b − lin_a)·n + |ang_a|·r_a + |ang_b|·r_b,
//!
//! where r is the shape's bound about its frame origin ([`ConvexShape::bound`]): a point at
//! distance r turning by angle θ moves at most r·θ, and the gap along n of two convex sets at
//! their closest points is their distance. So advancing t by (d − target)/μ cannot bring them
//! closer than the target. The loop stops when d ≤ target + tolerance (the TOI), when μ ≤ 0
//! (the gap cannot close: `None`), or when t passes 1 (`None`). After
//! [`CA_MAX_ITERATIONS`] steps the current t is returned: still conservative (the shapes are
//! apart by more than the target there), only early. High spin makes μ large and the steps
//! small; that is the method's known cost (001-A).
//!
//! WGSL: a loop of at most [`CA_MAX_ITERATIONS`] GJK calls; the sweep's rotation is a
//! quaternion exponential.

// Index loops, as the WGSL twin writes them.
#![allow(clippy::needless_range_loop)]

use glam::{Quat, Vec3};

use super::gjk::gjk;
use super::support::{ConvexShape, Frame};
use crate::error::{finite3, non_negative, positive, Result};
use glam::UVec4;

/// Most advancement steps.
pub const CA_MAX_ITERATIONS: u32 = 32;

/// A shape's motion through a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweep {
    /// Frame origin at t = 0 (world).
    pub pos: Vec3,
    /// Orientation at t = 0.
    pub rot: Quat,
    /// Displacement of the frame origin over the step (velocity × dt).
    pub lin: Vec3,
    /// Rotation vector over the step (angular velocity × dt), about the frame origin.
    pub ang: Vec3,
}

impl Sweep {
    /// A sweep, checking that every input is finite and the orientation a unit quaternion.
    pub fn new(pos: Vec3, rot: Quat, lin: Vec3, ang: Vec3) -> Result<Self> {
        finite3("sweep position", pos)?;
        finite3("sweep displacement", lin)?;
        finite3("sweep rotation vector", ang)?;
        if !(rot.is_finite() && rot.is_normalized()) {
            return Err(crate::error::Error::InvalidInput {
                what: "sweep orientation",
                value: format!("{rot:?}"),
                fix: "pass a unit quaternion",
            });
        }
        Ok(Self { pos, rot, lin, ang })
    }

    /// The frame at fraction `t` of the step.
    pub fn frame_at(&self, t: f32) -> Frame {
        Frame::new(
            self.pos + self.lin * t,
            Quat::from_scaled_axis(self.ang * t) * self.rot,
        )
    }
}

/// Stop distances for [`time_of_impact`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeOfImpact {
    /// Advance until the shapes are this far apart (for example the linear slop, so the
    /// contact solver sees them touching but not overlapping).
    pub target: f32,
    /// Stop once within target + tolerance.
    pub tolerance: f32,
}

impl TimeOfImpact {
    /// Checks the distances: `target` ≥ 0, `tolerance` > 0, both finite.
    pub fn new(target: f32, tolerance: f32) -> Result<Self> {
        non_negative("time of impact target distance", target)?;
        positive("time of impact tolerance", tolerance)?;
        Ok(Self { target, tolerance })
    }
}

/// What [`time_of_impact`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impact {
    /// Fraction of the step, in [0, 1].
    pub t: f32,
    /// Distance at t (GJK; ≤ 0 if the shapes already overlapped at t = 0).
    pub distance: f32,
    /// Unit normal from b to a at t (zero if they overlapped).
    pub normal: Vec3,
    /// Closest point on a at t (world).
    pub point_a: Vec3,
    /// Closest point on b at t (world).
    pub point_b: Vec3,
    /// GJK calls made.
    pub iterations: u32,
}

/// The first fraction of the step at which shapes `a` and `b` (their frames replaced by the
/// sweeps' frames) come within `stop.target + stop.tolerance`, or `None` if they stay farther
/// apart through the step (see the module docs).
pub fn time_of_impact(
    store: &[UVec4],
    a: &ConvexShape,
    sweep_a: &Sweep,
    b: &ConvexShape,
    sweep_b: &Sweep,
    stop: &TimeOfImpact,
) -> Option<Impact> {
    let mut sa = *a;
    let mut sb = *b;
    let spin = sweep_a.ang.length() * a.bound() + sweep_b.ang.length() * b.bound();
    let rel = sweep_b.lin - sweep_a.lin;
    let mut t = 0.0f32;
    let mut last = None;
    for it in 0..CA_MAX_ITERATIONS {
        sa.frame = sweep_a.frame_at(t);
        sb.frame = sweep_b.frame_at(t);
        let g = gjk(store, &sa, &sb);
        let hit = Impact {
            t,
            distance: g.distance,
            normal: g.normal,
            point_a: g.point_a,
            point_b: g.point_b,
            iterations: it + 1,
        };
        if g.overlap || g.distance <= stop.target + stop.tolerance {
            return Some(hit);
        }
        last = Some(hit);
        let mu = rel.dot(g.normal) + spin;
        if mu <= 0.0 {
            return None;
        }
        t += (g.distance - stop.target) / mu;
        if t >= 1.0 {
            return None;
        }
    }
    last
}

/// Time of impact for the `ccd` stage (WGSL `ca_translation_toi`): shape `a` moves by `disp`
/// through the step (a translation; its orientation stays), shape `b` stays. Conservative
/// advancement as [`time_of_impact`] with no spin: at the current fraction t, GJK's distance d
/// and normal n (b to a) give the closing speed μ = −disp·n, and t advances by (d − target)/μ,
/// which cannot bring the shapes nearer than `target`. Returns the fraction (in [0, 1)) at
/// which they come within `target + tolerance`, or `None` when they do not within the step,
/// when they are not closing there (μ ≤ 0: a shape sliding along another is left alone), or
/// when their cores already overlap at t = 0 (that contact exists; the narrow phase has it).
/// After [`CA_MAX_ITERATIONS`] steps the fraction reached is returned: conservative, only
/// early.
pub fn translation_toi(
    store: &[UVec4],
    a: &ConvexShape,
    disp: Vec3,
    b: &ConvexShape,
    target: f32,
    tolerance: f32,
) -> Option<f32> {
    let mut sa = *a;
    let mut t = 0.0f32;
    for _ in 0..CA_MAX_ITERATIONS {
        sa.frame.pos = a.frame.pos + disp * t;
        let g = gjk(store, &sa, b);
        if g.overlap {
            if t > 0.0 {
                return Some(t);
            }
            return None;
        }
        let mu = -disp.dot(g.normal);
        if mu <= 0.0 {
            return None;
        }
        if g.distance <= target + tolerance {
            return Some(t);
        }
        t += (g.distance - target) / mu;
        if t >= 1.0 {
            return None;
        }
    }
    Some(t)
}
