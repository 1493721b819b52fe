//! Fracture (catalogue §14.2, the book's §17.2.2): a breakable body, a box with a breaking
//! impulse, splits into 8 boxes when a contact strikes it harder than that. Stage `fracture`
//! finds the struck bodies once per step after the substeps ([`detect`], the twin of
//! `shaders/rigid/fracture.wgsl`, which says how a contact's impulse is measured) and lists
//! them in the counters; the host splits each ([`divide`]) from the report, a frame or two late
//! on the GPU, at once on the CPU (`RigidWorld::take_fractures` hands the pieces out).
//!
//! The split is the book's `divideBlock`, in the block's frame: the axis closest to the
//! contact's normal is cut in half, the other two at the struck point (kept inside the middle
//! 80% of the block, so no piece is a sliver); each of the 8 boxes is a piece whose mass is the
//! block's density times its volume (the printed density and inertia are garbled, catalogue
//! errata; the pieces' inertias are a box's, from their own sizes). Each piece moves with the
//! block's rigid motion at its centre, v + ω × r, plus a burst away from the struck point at
//! the block's burst speed. The book's burst (10 m/s along each piece's direction from the
//! contact) pushes every piece away from the struck face, which gives the pieces momentum the
//! block never had; here the pieces' mass-weighted mean burst is taken out, so the pieces
//! together carry exactly the block's linear momentum and its mass.

use super::math::{quat_rotate, quat_rotate_inv};

/// Pieces whose smallest half size is below this (m) do not break again.
pub const MIN_PIECE_HALF: f32 = 0.05;
use super::types::*;
use glam::{Vec3, Vec4, Vec4Swizzles};
use std::collections::BTreeMap;

/// A struck breakable body, as `fracture_record` lists it: the point struck and the contact's
/// normal, both in the body's frame, and the contact's impulse over the step.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FractureEvent {
    /// The body's slot.
    pub body: u32,
    /// The struck point in the body's frame.
    pub point: Vec3,
    /// The contact's normal in the body's frame (either sign).
    pub normal: Vec3,
    /// The contact's impulse over the step (N·s).
    pub impulse: f32,
}

impl FractureEvent {
    /// Event `i` of a step's counters (`counter::FRACTURE_EVENTS`), if listed.
    pub fn from_counters(counters: &[u32], i: usize) -> Option<Self> {
        let base = counter::FRACTURE_EVENTS + i * counter::FRACTURE_EVENT_WORDS;
        let w = counters.get(base..base + counter::FRACTURE_EVENT_WORDS)?;
        let f = |k: usize| f32::from_bits(w[k]);
        Some(Self {
            body: w[0],
            point: Vec3::new(f(1), f(2), f(3)),
            normal: Vec3::new(f(4), f(5), f(6)),
            impulse: f(7),
        })
    }
}

/// A contact manifold's impulse over the step (WGSL `fracture_impulse`): its normal impulses
/// over the last `substeps` substeps, added by the warm start (`GpuManifold::rolling` z).
pub fn contact_impulse(m: &GpuManifold) -> f32 {
    m.rolling.z
}

/// Body `b`'s breaking impulse if it is a breakable dynamic body not yet struck, else 0.
fn threshold(bodies: &[GpuBody], b: u32) -> f32 {
    match bodies.get(b as usize) {
        Some(body) if body.kind == body_kind::DYNAMIC => body.acc.w.max(0.0),
        _ => 0.0,
    }
}

/// Stage `fracture` (both entry points): every breakable body struck past its breaking
/// impulse, by the contact with the largest impulse (the first such slot on a tie), marked
/// struck (its threshold negated) and listed in body order.
pub fn detect(bodies: &mut [GpuBody], manifolds: &[GpuManifold]) -> Vec<FractureEvent> {
    let mut strongest: BTreeMap<u32, (f32, usize)> = BTreeMap::new();
    for (k, m) in manifolds.iter().enumerate() {
        if m.count == 0 || m.joint != 0 {
            continue;
        }
        let j = contact_impulse(m);
        for b in [m.body_a, m.body_b] {
            let limit = threshold(bodies, b);
            if limit > 0.0 && j > limit {
                let e = strongest.entry(b).or_insert((j, k));
                if j > e.0 {
                    *e = (j, k);
                }
            }
        }
    }
    let mut events = Vec::with_capacity(strongest.len());
    for (b, (j, k)) in strongest {
        let m = &manifolds[k];
        let mut best = 0;
        for i in 1..m.count.min(MAX_POINTS) as usize {
            if m.impulses[i].w > m.impulses[best].w {
                best = i;
            }
        }
        let body = &mut bodies[b as usize];
        let point = quat_rotate_inv(body.orient, m.points[best].xyz() - body.pos.xyz());
        let normal = quat_rotate_inv(body.orient, m.normal.xyz());
        body.acc.w = -body.acc.w;
        events.push(FractureEvent {
            body: b,
            point,
            normal,
            impulse: j,
        });
    }
    events
}

/// One piece of a split block: its centre, half size, mass and velocities, in the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piece {
    /// Centre (world).
    pub centre: Vec3,
    /// Half size (the block's frame; the piece keeps the block's orientation).
    pub half: Vec3,
    /// Mass (kg).
    pub mass: f32,
    /// Linear velocity.
    pub velocity: Vec3,
}

/// The 8 pieces of block `body` (a box of half size `half` at its centre, mass 1/`pos.w`)
/// struck at `event`, bursting apart at `burst` m/s (see the module docs).
pub fn divide(body: &GpuBody, half: Vec3, event: &FractureEvent, burst: f32) -> [Piece; 8] {
    let mass = if body.pos.w > 0.0 {
        1.0 / body.pos.w
    } else {
        0.0
    };
    // The axis the normal lies closest to is cut in half; the others at the struck point,
    // within the middle 80%.
    let n = event.normal.abs();
    let axis = if n.x >= n.y && n.x >= n.z {
        0
    } else if n.y >= n.z {
        1
    } else {
        2
    };
    let mut cut = event.point.clamp(-0.8 * half, 0.8 * half);
    cut[axis] = 0.0;
    let volume = 8.0 * half.x * half.y * half.z;
    let (pos, q) = (body.pos.xyz(), body.orient);
    let (v, w) = (body.lin_vel.xyz(), body.ang_vel.xyz());
    let struck = pos + quat_rotate(q, event.point);
    let mut pieces = [Piece {
        centre: Vec3::ZERO,
        half: Vec3::ZERO,
        mass: 0.0,
        velocity: Vec3::ZERO,
    }; 8];
    for (i, piece) in pieces.iter_mut().enumerate() {
        let mut lo = Vec3::ZERO;
        let mut hi = Vec3::ZERO;
        for a in 0..3 {
            if i & (1 << a) == 0 {
                lo[a] = -half[a];
                hi[a] = cut[a];
            } else {
                lo[a] = cut[a];
                hi[a] = half[a];
            }
        }
        let h = 0.5 * (hi - lo);
        let local = lo + h;
        let r = quat_rotate(q, local);
        piece.centre = pos + r;
        piece.half = h;
        piece.mass = mass * (8.0 * h.x * h.y * h.z) / volume;
        piece.velocity = v + w.cross(r);
    }
    // The burst, less its mass-weighted mean: the pieces fly apart without momentum of their own.
    let dirs: Vec<Vec3> = pieces
        .iter()
        .map(|p| (p.centre - struck).normalize_or_zero())
        .collect();
    let total: f32 = pieces.iter().map(|p| p.mass).sum();
    let mean = if total > 0.0 {
        pieces
            .iter()
            .zip(&dirs)
            .map(|(p, d)| *d * p.mass)
            .sum::<Vec3>()
            / total
    } else {
        Vec3::ZERO
    };
    for (p, d) in pieces.iter_mut().zip(&dirs) {
        p.velocity += burst * (*d - mean);
    }
    pieces
}

/// The pieces' orientation, angular velocity and damping are the block's; what a piece needs
/// besides [`Piece`]: (orientation, angular velocity, damping (linear, angular), acceleration).
pub fn inherited(body: &GpuBody) -> (Vec4, Vec3, (f32, f32), Vec3) {
    (
        body.orient,
        body.ang_vel.xyz(),
        (body.lin_vel.w, body.ang_vel.w),
        body.acc.xyz(),
    )
}
