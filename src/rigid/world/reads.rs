//! Typed reads of the bodies: the body ring, which brings copies of the bodies buffer back a
//! frame or two late without stalling a step (the counters' [`StatusRing`], a second one), and
//! the reads built on it.
//!
//! Why it is shaped so: a copy is recorded after the step's passes, into the encoder that holds
//! the step (the world's own, or the caller's with `encode_step`), and its slot is mapped when
//! that encoder is submitted, so no slot is mapped while an unsubmitted encoder still writes
//! it, and no step waits for one. The host notes, at the same moment, which body each slot held
//! (the generations), since removals and additions made after the copy is recorded reach the
//! device only after it. On the CPU every read is the current state.

use super::*;
use crate::rigid::body::{Body, BodySnapshot};
use std::sync::Arc;

/// Which body each slot held when a copy was recorded, and each slot's centre of mass in its
/// body's frame then (empty: all zero).
pub(super) type SlotsAt = (Arc<[Option<u32>]>, Arc<[Vec3]>);

/// The body ring and what it brought back (`RigidWorld::reads`).
pub(super) struct BodyReads {
    ring: StatusRing,
    /// The generations and centres of mass of the copies in flight, by step.
    pending: Vec<(u64, SlotsAt)>,
    /// [`RigidWorld::request_bodies`]: the next step copies.
    requested: bool,
    /// [`RigidWorld::set_body_tracking`]: every step copies.
    tracking: bool,
    /// The newest copy that landed, or the newest blocking read.
    latest: Option<BodySnapshot>,
}

impl BodyReads {
    pub(super) fn new() -> Self {
        Self {
            ring: StatusRing::new("rigid_body_reads"),
            pending: Vec::new(),
            requested: false,
            tracking: false,
            latest: None,
        }
    }

    /// Whether the next step copies the bodies.
    pub(super) fn wanted(&self) -> bool {
        self.requested || self.tracking
    }

    /// Records into `encoder`, after step `step`'s passes, the copy of the body records of
    /// `slots` into a free slot of the ring (`slots.0.len()` records).
    pub(super) fn record(
        &mut self,
        r: &GpuRigid,
        encoder: &mut wgpu::CommandEncoder,
        step: u64,
        slots: SlotsAt,
    ) {
        let generations = &slots.0;
        self.requested = false;
        let bytes = (generations.len() * std::mem::size_of::<GpuBody>()) as u64;
        let bodies = &r.bodies;
        self.ring
            .record(&r.ctx.device, encoder, step, 0, bytes, |encoder, slot| {
                if bytes > 0 {
                    encoder.copy_buffer_to_buffer(bodies, 0, slot, 0, bytes);
                }
            });
        self.pending.push((step, slots));
    }

    /// Takes in the copies that have landed, without blocking.
    pub(super) fn poll(&mut self, device: &wgpu::Device, world: u32) {
        let Self {
            ring,
            pending,
            latest,
            ..
        } = self;
        ring.poll(device, |step, _, bytes| {
            let Some(at) = pending.iter().position(|(s, _)| *s == step) else {
                return;
            };
            let (generations, centres) = pending[at].1.clone();
            // Copies older than this one whose maps failed never land.
            pending.retain(|(s, _)| *s > step);
            let n = generations.len() * std::mem::size_of::<GpuBody>();
            let Some(words) = bytes.get(..n) else {
                return;
            };
            // One copy out of the mapped range (which need not be aligned for a cast).
            let bodies: Arc<[GpuBody]> = words
                .chunks_exact(std::mem::size_of::<GpuBody>())
                .map(bytemuck::pod_read_unaligned)
                .collect();
            let snapshot = BodySnapshot::new(step, world, bodies, generations, centres);
            keep_newer(latest, snapshot);
        });
        if ring.in_flight() == 0 {
            // Copies whose encoders were dropped unsubmitted: their slots are free again.
            pending.clear();
        }
    }

    /// Copies in flight (recorded and not yet landed).
    pub(super) fn in_flight(&self) -> usize {
        self.ring.in_flight()
    }
}

/// Makes `snapshot` the newest unless `latest` describes a later step.
fn keep_newer(latest: &mut Option<BodySnapshot>, snapshot: BodySnapshot) {
    if latest.as_ref().is_none_or(|l| l.step() <= snapshot.step()) {
        *latest = Some(snapshot);
    }
}

impl RigidWorld {
    /// Each body slot's generation now, `None` for a free slot: what a copy of the bodies taken
    /// now holds.
    pub(super) fn slot_generations(&self) -> Arc<[Option<u32>]> {
        self.generations
            .iter()
            .zip(&self.alive)
            .map(|(&g, &alive)| alive.then_some(g))
            .collect()
    }

    /// Asks the next step (`step` or `encode_step`) to copy every body into the body ring; the
    /// copy lands a frame or two later, without stalling anything, and
    /// [`latest_bodies`](Self::latest_bodies) then returns it. On the CPU backend the reads are
    /// immediate and this does nothing.
    pub fn request_bodies(&mut self) {
        self.reads.requested = true;
    }

    /// Copies every body into the body ring at every step while `on` (see
    /// [`request_bodies`](Self::request_bodies)): what a game that reads bodies each frame
    /// turns on. Each copy moves every body slot (240 bytes each) on the device.
    pub fn set_body_tracking(&mut self, on: bool) {
        self.reads.tracking = on;
    }

    /// Whether every step copies the bodies ([`set_body_tracking`](Self::set_body_tracking)).
    pub fn body_tracking(&self) -> bool {
        self.reads.tracking
    }

    /// Copies of the bodies recorded and not yet taken in (GPU; 0 on the CPU). The ring grows
    /// to hold as many as there are steps in flight, so no step waits for one.
    pub fn body_reads_in_flight(&self) -> usize {
        self.reads.in_flight()
    }

    /// The newest bodies the host has, without blocking. On the GPU: the newest copy that has
    /// landed (as of the last `step`, `encode_step`, [`poll_bodies`](Self::poll_bodies) or
    /// [`poll_reports`](Self::poll_reports)), a frame or two behind
    /// [`steps`](Self::steps), or the newest blocking read
    /// ([`read_snapshot`](Self::read_snapshot), [`read_bodies`](Self::read_bodies)) if that is
    /// newer; `None` before either. On the CPU: the bodies now.
    pub fn latest_bodies(&self) -> Option<BodySnapshot> {
        match &self.engine {
            Engine::Cpu(_) => Some(self.snapshot_of(self.bodies.clone())),
            Engine::Gpu(_) => self.reads.latest.clone(),
        }
    }

    /// Takes in the copies of the bodies that have landed, without blocking, and returns the
    /// newest bodies the host has ([`latest_bodies`](Self::latest_bodies)).
    pub fn poll_bodies(&mut self) -> Option<BodySnapshot> {
        if let Engine::Gpu(g) = &self.engine {
            self.reads.poll(&g.rigid.ctx.device, self.tag);
        }
        self.latest_bodies()
    }

    /// One body's state, typed, without blocking. On the GPU it comes from the newest copy the
    /// host has ([`latest_bodies`](Self::latest_bodies)): a frame or two old when the world
    /// copies its bodies ([`set_body_tracking`](Self::set_body_tracking),
    /// [`request_bodies`](Self::request_bodies)), as of the last blocking read otherwise. A body
    /// that copy does not hold (none landed yet, or the body was added since) is read from
    /// the host's copy: what the host last wrote or read. On the CPU it is the state now.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed body or another world's handle.
    pub fn body(&self, h: BodyHandle) -> Result<Body> {
        let i = self.check(h)?;
        if let (Engine::Gpu(_), Some(latest)) = (&self.engine, &self.reads.latest) {
            if let Some(b) = latest.get(h) {
                return Ok(b);
            }
        }
        Ok(Body::from_record(h, &self.bodies[i], self.centre_at(i)))
    }

    /// One body's state now, typed (blocking on the GPU: it reads the body slots up to the
    /// body's; tests and tools).
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; GPU readback errors.
    pub fn read_body(&mut self, h: BodyHandle) -> Result<Body> {
        let raw = self.body_raw(h)?;
        Ok(Body::from_record(h, &raw, self.centre_at(h.index as usize)))
    }

    /// One body's raw record now (blocking on the GPU: it reads the body slots up to the
    /// body's; tests and tools): the centre of mass's position (see [`crate::rigid::mass`])
    /// and the inverse mass, the orientation (x, y, z, w),
    /// velocities and damping, `awake` as a `u32`. [`read_body`](Self::read_body) is the typed
    /// form, [`body`](Self::body) the one that does not block.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; GPU readback errors.
    pub fn body_raw(&mut self, h: BodyHandle) -> Result<GpuBody> {
        let i = self.check(h)?;
        if let Engine::Gpu(g) = &self.engine {
            let all: Vec<GpuBody> = g.rigid.read(&g.rigid.bodies, i + 1)?;
            if let Some(b) = all.get(i) {
                self.bodies[i] = *b;
                self.query_epoch = self.query_epoch.wrapping_add(1);
            }
        }
        Ok(self.bodies[i])
    }

    /// Every live body now, typed (blocking on the GPU; tests, tools, saving): one copy of
    /// every slot, which also becomes the world's newest copy
    /// ([`latest_bodies`](Self::latest_bodies)). Removed slots are left out.
    ///
    /// # Errors
    /// GPU readback errors.
    pub fn read_snapshot(&mut self) -> Result<BodySnapshot> {
        let bodies = self.read_bodies()?;
        Ok(self.snapshot_of(bodies))
    }

    /// Reads every body slot (blocking on the GPU), in slot order, raw: removed slots read as
    /// zeroed static bodies, so index them by [`BodyHandle::index`] of live handles only
    /// ([`read_snapshot`](Self::read_snapshot) is the typed form, which skips them). On the GPU
    /// the read also becomes the world's newest copy of the bodies.
    ///
    /// # Errors
    /// GPU readback errors.
    pub fn read_bodies(&mut self) -> Result<Vec<GpuBody>> {
        if let Engine::Gpu(g) = &self.engine {
            self.bodies = g.rigid.read(&g.rigid.bodies, self.bodies.len())?;
            self.query_epoch = self.query_epoch.wrapping_add(1);
            let snapshot = self.snapshot_of(self.bodies.clone());
            keep_newer(&mut self.reads.latest, snapshot);
        }
        Ok(self.bodies.clone())
    }

    /// A snapshot of `bodies` (every slot, now) at the current step.
    fn snapshot_of(&self, bodies: Vec<GpuBody>) -> BodySnapshot {
        let (generations, centres) = (self.slot_generations(), self.centres_now());
        BodySnapshot::new(self.steps, self.tag, bodies.into(), generations, centres)
    }

    /// Which body each slot holds now and each slot's centre of mass (what a copy of the
    /// bodies taken now holds).
    pub(super) fn slots_now(&mut self) -> SlotsAt {
        (self.slot_generations(), self.shared_centres())
    }
}
