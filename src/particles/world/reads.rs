//! Reading the live particles without stalls: a step asked to (by
//! [`ParticleWorld::request_snapshot`] or [`ParticleWorld::set_snapshot_tracking`]) records a
//! copy of the counters and of every slot's state into a mappable slot of a [`StatusRing`], in
//! the encoder that holds the step, mapped when that encoder is submitted; a later step or
//! [`ParticleWorld::poll_snapshot`] takes in the copies that have landed, without blocking, and
//! keeps the live particles (the counters' `live` says how many, which only the device knows
//! when the copy is recorded, so the copy takes every slot of the capacity). The rigid world's
//! body ring (`rigid/world/reads.rs`) is the same design. On the CPU every read is the state
//! now.

use super::*;
use crate::gpu::status::StatusRing;

/// The snapshot ring and what it brought back (`ParticleWorld::reads`).
pub(super) struct SnapshotReads {
    ring: StatusRing,
    /// [`ParticleWorld::request_snapshot`]: the next step copies.
    requested: bool,
    /// [`ParticleWorld::set_snapshot_tracking`]: every step copies.
    tracking: bool,
    /// The newest copy that landed and the step it describes.
    latest: Option<(u64, Snapshot)>,
}

/// Bytes per slot of the state a copy takes: position, velocity, acceleration, life, colour
/// (16 each) and size (4).
const SLOT_BYTES: u64 = 5 * 16 + 4;

impl SnapshotReads {
    pub(super) fn new() -> Self {
        Self {
            ring: StatusRing::new("particle_snapshot_reads"),
            requested: false,
            tracking: false,
            latest: None,
        }
    }

    /// Records into `encoder`, after step `step`'s passes, the copy of the counters and the
    /// first `capacity` slots (the tag), if the step was asked to.
    pub(super) fn record(
        &mut self,
        g: &GpuParticles,
        encoder: &mut wgpu::CommandEncoder,
        step: u64,
        capacity: u32,
    ) {
        if !(self.requested || self.tracking) {
            return;
        }
        self.requested = false;
        let head = size_of::<GpuCounters>() as u64;
        let n = u64::from(capacity);
        let b = &g.bufs;
        let parts = [
            (&b.counters, head),
            (&b.pos, 16 * n),
            (&b.vel, 16 * n),
            (&b.acc, 16 * n),
            (&b.life, 16 * n),
            (&b.colour, 16 * n),
            (&b.size, 4 * n),
        ];
        let bytes = head + SLOT_BYTES * n;
        self.ring.record(
            &g.ctx.device,
            encoder,
            step,
            capacity,
            bytes,
            |encoder, slot| {
                let mut at = 0;
                for (src, len) in parts {
                    if len > 0 {
                        encoder.copy_buffer_to_buffer(src, 0, slot, at, len);
                    }
                    at += len;
                }
            },
        );
    }

    /// Takes in the copies that have landed, without blocking.
    pub(super) fn poll(&mut self, device: &wgpu::Device) {
        let latest = &mut self.latest;
        self.ring.poll(device, |step, capacity, bytes| {
            if latest.as_ref().is_some_and(|(s, _)| *s > step) {
                return;
            }
            if let Some(snapshot) = parse(bytes, capacity as usize) {
                *latest = Some((step, snapshot));
            }
        });
    }
}

/// The live particles of a copy of `capacity` slots; `None` for a short copy.
fn parse(bytes: &[u8], capacity: usize) -> Option<Snapshot> {
    let head = size_of::<GpuCounters>();
    let counters: GpuCounters = bytemuck::pod_read_unaligned(bytes.get(..head)?);
    let live = (counters.live as usize).min(capacity);
    let mut at = head;
    let mut part = |width: usize| {
        let start = at;
        at += width * capacity;
        bytes.get(start..start + width * live)
    };
    Some(Snapshot {
        pos: bytemuck::pod_collect_to_vec(part(16)?),
        vel: bytemuck::pod_collect_to_vec(part(16)?),
        acc: bytemuck::pod_collect_to_vec(part(16)?),
        life: bytemuck::pod_collect_to_vec(part(16)?),
        colour: bytemuck::pod_collect_to_vec(part(16)?),
        size: bytemuck::pod_collect_to_vec(part(4)?),
    })
}

impl ParticleWorld {
    /// Asks the next step (`step` or `encode_step`) to copy the live particles into the
    /// snapshot ring; the copy lands a frame or two later without stalling anything, and
    /// [`latest_snapshot`](Self::latest_snapshot) then returns it. The copy moves every slot of
    /// the capacity (84 bytes each) on the device. Does nothing on the CPU, whose reads are
    /// immediate.
    pub fn request_snapshot(&mut self) {
        self.reads.requested = true;
    }

    /// Copies the particles into the snapshot ring at every step while `on` (see
    /// [`request_snapshot`](Self::request_snapshot)).
    pub fn set_snapshot_tracking(&mut self, on: bool) {
        self.reads.tracking = on;
    }

    /// Copies recorded and not yet taken in (GPU; 0 on the CPU). The ring grows to hold as
    /// many as there are steps in flight, so no step waits for one.
    pub fn snapshot_reads_in_flight(&self) -> usize {
        self.reads.ring.in_flight()
    }

    /// The newest live particles the host has and the step they describe, without blocking.
    /// On the GPU: the newest copy that has landed (as of the last step or
    /// [`poll_snapshot`](Self::poll_snapshot)), a frame or two behind
    /// [`steps`](Self::steps); `None` before one has. On the CPU: the state now. In the order
    /// of [`read_snapshot`](Self::read_snapshot).
    pub fn latest_snapshot(&self) -> Option<(u64, Snapshot)> {
        match &self.engine {
            Engine::Cpu(_) => self.read_snapshot().ok().map(|s| (self.step, s)),
            Engine::Gpu(_) => self.reads.latest.clone(),
        }
    }

    /// Takes in the copies that have landed, without blocking, and returns the newest live
    /// particles the host has ([`latest_snapshot`](Self::latest_snapshot)).
    pub fn poll_snapshot(&mut self) -> Option<(u64, Snapshot)> {
        if let Engine::Gpu(g) = &self.engine {
            self.reads.poll(&g.ctx.device);
        }
        self.latest_snapshot()
    }
}
