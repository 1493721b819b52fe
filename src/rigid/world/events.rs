//! Contact events and contact reads: the pairs whose contact started or stopped, gathered from
//! each step (on the GPU from the counters' copy a frame or two late, like the report; on the
//! CPU at once), and the contacts of the last step (a blocking read on the GPU).

use super::*;
use crate::rigid::events::{touching, Contact, ContactEvent, ContactPoint};

/// The world's contact events.
#[derive(Default)]
pub(super) struct ContactEvents {
    /// The `contact_events` stage runs.
    pub(super) on: bool,
    /// Events not yet handed out, in step order.
    pub(super) pending: Vec<(u64, [u32; 2])>,
}

impl ContactEvents {
    /// One step's events as the counters list them.
    pub(super) fn note_counters(&mut self, step: u64, counters: &[u32]) {
        if !self.on {
            return;
        }
        let n = counters
            .get(counter::CONTACT_EVENT_COUNT)
            .map_or(0, |&n| (n as usize).min(counter::CONTACT_EVENTS_MAX));
        let words = counters
            .get(counter::CONTACT_EVENTS..counter::CONTACT_EVENTS + 2 * n)
            .unwrap_or(&[]);
        self.note(step, words.chunks_exact(2).map(|w| [w[0], w[1]]));
    }

    /// One step's events, sorted (the GPU appends them in no particular order): started
    /// before stopped, then by shape pair.
    pub(super) fn note(&mut self, step: u64, events: impl Iterator<Item = [u32; 2]>) {
        let mut these: Vec<[u32; 2]> = events.collect();
        these.sort_by_key(|e| (e[1] & counter::CONTACT_STOPPED, e[0], e[1]));
        self.pending.extend(these.into_iter().map(|e| (step, e)));
    }
}

impl RigidWorld {
    /// Turns contact events on or off. While on, each step runs the `contact_events` stage and
    /// [`RigidWorld::take_contact_events`] hands out the pairs of shapes whose contact started
    /// or stopped. Off by default (the stage then costs nothing).
    pub fn set_contact_events(&mut self, on: bool) {
        self.events.on = on;
        if !on {
            self.events.pending.clear();
        }
    }

    /// Whether contact events are on.
    pub fn contact_events_on(&self) -> bool {
        self.events.on
    }

    /// The contacts that started or stopped since the last call, in step order (within a step:
    /// started first, then by shape pair). A contact starts at the first step whose collision
    /// detection finds its two shapes touching (a point of their manifold at or past contact;
    /// the detection runs at the step's start, on the poses the step before left) and stops at
    /// the first that finds them apart. On the GPU a step's events arrive with its report, a frame or two after
    /// it ran (poll with [`RigidWorld::poll_reports`]); a step that found more than the GPU
    /// lists says how many in `RigidStepReport::contact_events_missed`. On the CPU they are here
    /// as soon as the step returns.
    pub fn take_contact_events(&mut self) -> Vec<ContactEvent> {
        let pending = std::mem::take(&mut self.events.pending);
        pending
            .into_iter()
            .map(|(step, [a, b])| {
                let b_slot = b & !counter::CONTACT_STOPPED;
                ContactEvent {
                    step,
                    started: b & counter::CONTACT_STOPPED == 0,
                    shapes: (a, b_slot),
                    bodies: (self.shape_owner(a), self.shape_owner(b_slot)),
                    sensor: self.is_sensor(a) || self.is_sensor(b_slot),
                }
            })
            .collect()
    }

    /// Whether shape slot `s` is a sensor.
    fn is_sensor(&self, s: u32) -> bool {
        self.shapes
            .get(s as usize)
            .is_some_and(|x| x.material.w != 0.0)
    }

    /// The live body that owns shape slot `s`.
    fn shape_owner(&self, s: u32) -> Option<BodyHandle> {
        let shape = self.shapes.get(s as usize)?;
        if shape.kind == 0 {
            return None;
        }
        self.body_handle_at(shape.body)
    }

    /// The handle of the live body in `slot` ([`BodyHandle::index`]); `None` for a free or
    /// unused slot. A loaded world's handles have their saved slots and generations: this is
    /// the handle for a saved one's index.
    pub fn body_handle_at(&self, slot: u32) -> Option<BodyHandle> {
        let i = slot as usize;
        (self.alive.get(i) == Some(&true)).then(|| BodyHandle {
            index: slot,
            generation: self.generations[i],
            world: self.tag,
        })
    }

    /// The last step's manifolds (the next step's warm start), and on the GPU its counters
    /// (empty on the CPU); blocking on the GPU.
    pub(super) fn last_manifolds(&self) -> Result<(Vec<GpuManifold>, Vec<u32>)> {
        match &self.engine {
            Engine::Cpu(c) => Ok((c.manifolds.clone(), Vec::new())),
            Engine::Gpu(g) => {
                let r = &g.rigid;
                let counters: Vec<u32> = r.read(&r.counters, counter::LEN)?;
                let n = (counters[solver::COUNTER_PREV_PAIRS] as usize)
                    .min(self.slot_capacity() as usize);
                Ok((r.read(r.current_manifolds(), n)?, counters))
            }
        }
    }

    /// The contacts of the last step: every pair of shapes with contact points (within the
    /// contact margin), with the impulses the solver applied. Blocking on the GPU (it reads the
    /// manifolds back).
    ///
    /// # Errors
    /// GPU readback errors.
    pub fn contacts(&mut self) -> Result<Vec<Contact>> {
        let (manifolds, _) = self.last_manifolds()?;
        Ok(manifolds
            .iter()
            .filter(|m| m.joint == 0 && m.count > 0)
            .map(|m| {
                let n = m.normal.xyz();
                let count = m.count.min(MAX_POINTS) as usize;
                Contact {
                    shapes: (m.shape_a, m.shape_b),
                    bodies: (self.body_handle_at(m.body_a), self.body_handle_at(m.body_b)),
                    normal: n,
                    points: (0..count)
                        .map(|i| ContactPoint {
                            position: m.points[i].xyz(),
                            depth: m.points[i].w,
                            normal_impulse: m.impulses[i].x,
                            tangent_impulse: glam::Vec2::new(m.impulses[i].y, m.impulses[i].z),
                        })
                        .collect(),
                    touching: touching(m),
                    sensor: m.dynamic & MANIFOLD_SENSOR != 0,
                }
            })
            .collect())
    }

    /// The contacts of the last step between two bodies (any of their shapes), as
    /// [`RigidWorld::contacts`].
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; GPU readback errors.
    pub fn contacts_between(&mut self, a: BodyHandle, b: BodyHandle) -> Result<Vec<Contact>> {
        self.check(a)?;
        self.check(b)?;
        let pair = |c: &Contact| {
            (c.bodies.0 == Some(a) && c.bodies.1 == Some(b))
                || (c.bodies.0 == Some(b) && c.bodies.1 == Some(a))
        };
        Ok(self.contacts()?.into_iter().filter(pair).collect())
    }
}
