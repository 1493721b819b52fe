//! Stage `contact_events` (CPU twin of `shaders/rigid/events.wgsl`): the shape pairs whose
//! contact started or stopped this step, found by comparing this step's manifolds with the last
//! step's (both sorted by shape pair, as the warm start searches them). A pair touches when its
//! manifold has a point at or past contact (penetration ≥ 0); joint slots never do.
//!
//! The GPU lists at most [`counter::CONTACT_EVENTS_MAX`] events a step in the counters and
//! counts the rest (`RigidStepReport::contact_events_missed`); the twin lists them all. The world
//! sorts each step's events, so both give the same list when none are missed.

use crate::rigid::types::{counter, GpuManifold, MAX_POINTS};

/// Whether `m` touches (see the module docs).
pub fn touching(m: &GpuManifold) -> bool {
    m.joint == 0
        && m.points[..m.count.min(MAX_POINTS) as usize]
            .iter()
            .any(|p| p.w >= 0.0)
}

fn key(m: &GpuManifold) -> (u32, u32) {
    (m.shape_a.min(m.shape_b), m.shape_a.max(m.shape_b))
}

/// Whether `list` (sorted by shape pair) holds `k` touching.
fn holds_touching(list: &[GpuManifold], k: (u32, u32)) -> bool {
    let at = list.partition_point(|q| key(q) < k);
    list.get(at).is_some_and(|q| key(q) == k && touching(q))
}

/// The events of one step as the GPU words them: (lower shape, higher shape), the higher with
/// [`counter::CONTACT_STOPPED`] for a contact that stopped; started ones first, in manifold
/// order, then stopped ones.
pub fn contact_events(manifolds: &[GpuManifold], prev: &[GpuManifold], out: &mut Vec<[u32; 2]>) {
    for m in manifolds.iter().filter(|m| touching(m)) {
        let k = key(m);
        if !holds_touching(prev, k) {
            out.push([k.0, k.1]);
        }
    }
    for p in prev.iter().filter(|p| touching(p)) {
        let k = key(p);
        if !holds_touching(manifolds, k) {
            out.push([k.0, k.1 | counter::CONTACT_STOPPED]);
        }
    }
}

/// A contact that started or stopped (see [`crate::rigid::RigidWorld::take_contact_events`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactEvent {
    /// The step that found it ([`crate::rigid::RigidWorld::steps`] after that step).
    pub step: u64,
    /// True when the contact started, false when it stopped.
    pub started: bool,
    /// The two shape slots, the lower first.
    pub shapes: (u32, u32),
    /// Their bodies, when they are still in the world as the event is read (a contact that
    /// stopped because a body was removed names no body for it).
    pub bodies: (
        Option<crate::rigid::BodyHandle>,
        Option<crate::rigid::BodyHandle>,
    ),
    /// Whether either shape is a sensor (`Collider::sensor`): the overlap began or ended, and
    /// nothing pushed.
    pub sensor: bool,
}

/// One point of a [`Contact`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// The point in the world.
    pub position: glam::Vec3,
    /// How deep the shapes overlap there (m; negative: a gap inside the contact margin).
    pub depth: f32,
    /// The normal impulse the last step's solver applied there (N·s).
    pub normal_impulse: f32,
    /// The friction impulses along the contact's two tangents (N·s).
    pub tangent_impulse: glam::Vec2,
}

/// The contact between two shapes after the last step (see
/// [`crate::rigid::RigidWorld::contacts`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Contact {
    /// The two shape slots.
    pub shapes: (u32, u32),
    /// Their bodies.
    pub bodies: (
        Option<crate::rigid::BodyHandle>,
        Option<crate::rigid::BodyHandle>,
    ),
    /// The unit normal, pointing from the second shape to the first.
    pub normal: glam::Vec3,
    /// The points (up to four).
    pub points: Vec<ContactPoint>,
    /// Whether the shapes touch (a point at or past contact), as the events count it.
    pub touching: bool,
    /// Whether either shape is a sensor (no impulse was applied).
    pub sensor: bool,
}
