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

use glam::{Mat3, Quat, Vec3, Vec4};

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

/// What a shape is swept against by [`sweep_toi`]: a convex shape, or the plane (unit normal,
/// offset) of a half-space, on whose positive side the sweep stays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SweepTarget {
    /// A bounded convex shape, still.
    Convex(ConvexShape),
    /// Points p with p·n ≤ w are solid.
    Plane(Vec3, f32),
}

/// The rotation of the rotation vector `phi` as a quaternion (x, y, z, w); identity for zero.
pub fn quat_from_rotation(phi: Vec3) -> Vec4 {
    let a = phi.dot(phi).sqrt();
    if a <= 0.0 {
        return Vec4::new(0.0, 0.0, 0.0, 1.0);
    }
    let h = 0.5 * a;
    (phi * (h.sin() / a)).extend(h.cos())
}

/// The rotation vector of the turn `rigid_integrate` gives a body of angular velocity ω in a
/// step h, from `w_dt` = ω·h: it adds ½·(ω·h, 0)·q to q and normalizes, which turns q by
/// 2·atan(|ω·h|/2) about ω (not by |ω·h|), so sweeping back by this recovers the start.
pub fn integrator_turn(w_dt: Vec3) -> Vec3 {
    let a = w_dt.dot(w_dt).sqrt();
    if a <= 0.0 {
        return Vec3::ZERO;
    }
    w_dt * (2.0 * (0.5 * a).atan() / a)
}

/// The frame of shape `a` (`end`: its frame at the end of the step) at fraction `t` of a step
/// in which its body, centre of mass `centre` at the end, moved by `disp` and turned by the
/// rotation vector `theta` (world) about that centre: the body turned back by (1 − t)·θ and
/// moved back by (1 − t)·disp.
pub fn sweep_frame(end: &Frame, centre: Vec3, disp: Vec3, theta: Vec3, t: f32) -> Frame {
    let back = 1.0 - t;
    let turn = Frame::from_pose(Vec3::ZERO, quat_from_rotation(theta * -back));
    let c = centre - disp * back;
    Frame {
        pos: c + turn.dir(end.pos - centre),
        rot: Mat3::from_cols(
            turn.dir(end.rot.x_axis),
            turn.dir(end.rot.y_axis),
            turn.dir(end.rot.z_axis),
        ),
    }
}

/// Time of impact for the `ccd` stage (WGSL `ca_sweep_toi`): shape `a` (its frame the end of
/// the step's) swept back along its body's motion (see [`sweep_frame`]) against a still
/// `target`, by conservative advancement as [`time_of_impact`]: at fraction t, the distance d
/// and normal n (target to a) bound the closing speed by μ = −disp·n + |θ|·arm, `arm` bounding
/// the distance of the shape's points from the body's centre, and t advances by
/// (d − gap)/μ, which cannot bring the shapes nearer than `gap`. Returns the fraction (in
/// [0, 1)) at which they come within `gap + tolerance`; `None` when they do not within the
/// step, when their cores already overlap at t = 0 (that contact exists; the narrow phase has
/// it), or when they are within reach at t = 0 but the shape's extent along the normal towards
/// the target grows by less than `gap + tolerance` from start to end (a shape sliding or
/// rolling along a floor is left alone). After
/// [`CA_MAX_ITERATIONS`] steps the fraction reached is returned: conservative, only early.
#[allow(clippy::too_many_arguments)]
pub fn sweep_toi(
    store: &[UVec4],
    a: &ConvexShape,
    centre: Vec3,
    disp: Vec3,
    theta: Vec3,
    arm: f32,
    target: &SweepTarget,
    gap: f32,
    tolerance: f32,
) -> Option<f32> {
    let spin = theta.dot(theta).sqrt() * arm;
    let mut sa = *a;
    let mut t = 0.0f32;
    for _ in 0..CA_MAX_ITERATIONS {
        sa.frame = sweep_frame(&a.frame, centre, disp, theta, t);
        let (distance, normal, overlap) = match target {
            SweepTarget::Convex(b) => {
                let g = gjk(store, &sa, b);
                (g.distance, g.normal, g.overlap)
            }
            SweepTarget::Plane(n, w) => {
                let d = n.dot(sa.support(store, -*n)) - w - sa.radius();
                (d, *n, d <= 0.0)
            }
        };
        if overlap {
            if t > 0.0 {
                return Some(t);
            }
            return None;
        }
        let mu = -disp.dot(normal) + spin;
        if mu <= 0.0 {
            return None;
        }
        if distance <= gap + tolerance {
            if t > 0.0 {
                return Some(t);
            }
            // Within reach at the start: held there only if over the whole motion the shape
            // reaches further towards the target, along the normal, than the stopping band (a
            // shape sliding or rolling on a floor does not; one whose contact point the solver
            // stopped while it turns its other side into a wall does).
            let closes = normal.dot(a.support(store, -normal) - sa.support(store, -normal));
            if closes < -(gap + tolerance) {
                return Some(t);
            }
            return None;
        }
        t += (distance - gap) / mu;
        if t >= 1.0 {
            return None;
        }
    }
    Some(t)
}
