//! Reading the aggregate state without stalls: a step asked to (by
//! [`AggregateWorld::request_snapshot`] or [`AggregateWorld::set_snapshot_tracking`]) records a
//! copy of the positions and velocities into a mappable slot of a [`StatusRing`], in the
//! encoder that holds the step, mapped when that encoder is submitted; a later step or
//! [`AggregateWorld::poll_snapshot`] takes in the copies that have landed, without blocking.
//! The rigid world's body ring (`rigid/world/reads.rs`) is the same design. On the CPU every
//! read is the state now.

use super::*;
use crate::gpu::status::StatusRing;

/// The snapshot ring and what it brought back (`AggregateWorld::reads`).
pub(super) struct SnapshotReads {
    ring: StatusRing,
    /// [`AggregateWorld::request_snapshot`]: the next step copies.
    requested: bool,
    /// [`AggregateWorld::set_snapshot_tracking`]: every step copies.
    tracking: bool,
    /// The newest copy that landed and the step it describes.
    latest: Option<(u64, AggSnapshot)>,
}

impl SnapshotReads {
    pub(super) fn new() -> Self {
        Self {
            ring: StatusRing::new("aggregate_snapshot_reads"),
            requested: false,
            tracking: false,
            latest: None,
        }
    }

    /// Records into `encoder`, after step `step`'s passes, the copy of the first `n` slots'
    /// positions and velocities (the tag), if the step was asked to.
    pub(super) fn record(
        &mut self,
        g: &GpuAggregate,
        encoder: &mut wgpu::CommandEncoder,
        step: u64,
        n: u32,
    ) {
        if !(self.requested || self.tracking) {
            return;
        }
        self.requested = false;
        let half = u64::from(n) * std::mem::size_of::<Vec4>() as u64;
        let (pos, vel) = (&g.pos_a, &g.vel_a);
        self.ring.record(
            &g.ctx.device,
            encoder,
            step,
            n,
            2 * half,
            |encoder, slot| {
                if half > 0 {
                    encoder.copy_buffer_to_buffer(pos, 0, slot, 0, half);
                    encoder.copy_buffer_to_buffer(vel, 0, slot, half, half);
                }
            },
        );
    }

    /// Takes in the copies that have landed, without blocking.
    pub(super) fn poll(&mut self, device: &wgpu::Device) {
        let latest = &mut self.latest;
        self.ring.poll(device, |step, n, bytes| {
            let half = n as usize * std::mem::size_of::<Vec4>();
            let (Some(pos), Some(vel)) = (bytes.get(..half), bytes.get(half..2 * half)) else {
                return;
            };
            if latest.as_ref().is_none_or(|(s, _)| *s <= step) {
                *latest = Some((
                    step,
                    AggSnapshot {
                        pos: bytemuck::pod_collect_to_vec(pos),
                        vel: bytemuck::pod_collect_to_vec(vel),
                    },
                ));
            }
        });
    }
}

impl AggregateWorld {
    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Asks the next step (`step` or `encode_step`) to copy the positions and velocities into
    /// the snapshot ring; the copy lands a frame or two later without stalling anything, and
    /// [`latest_snapshot`](Self::latest_snapshot) then returns it. Does nothing on the CPU,
    /// whose reads are immediate.
    pub fn request_snapshot(&mut self) {
        self.reads.requested = true;
    }

    /// Copies the state into the snapshot ring at every step while `on` (see
    /// [`request_snapshot`](Self::request_snapshot)).
    pub fn set_snapshot_tracking(&mut self, on: bool) {
        self.reads.tracking = on;
    }

    /// Copies recorded and not yet taken in (GPU; 0 on the CPU). The ring grows to hold as
    /// many as there are steps in flight, so no step waits for one.
    pub fn snapshot_reads_in_flight(&self) -> usize {
        self.reads.ring.in_flight()
    }

    /// The newest state the host has and the step it describes, without blocking. On the GPU:
    /// the newest copy that has landed (as of the last step or
    /// [`poll_snapshot`](Self::poll_snapshot)), a frame or two behind
    /// [`steps`](Self::steps); `None` before one has. On the CPU: the state now. Slot order,
    /// as [`read_snapshot`](Self::read_snapshot).
    pub fn latest_snapshot(&self) -> Option<(u64, AggSnapshot)> {
        match &self.engine {
            Engine::Cpu(s) => {
                let n = self.n as usize;
                let snapshot = AggSnapshot {
                    pos: s.pos[..n].to_vec(),
                    vel: s.vel[..n].to_vec(),
                };
                Some((self.steps, snapshot))
            }
            Engine::Gpu(_) => self.reads.latest.clone(),
        }
    }

    /// Takes in the copies that have landed, without blocking, and returns the newest state
    /// the host has ([`latest_snapshot`](Self::latest_snapshot)).
    pub fn poll_snapshot(&mut self) -> Option<(u64, AggSnapshot)> {
        if let Engine::Gpu(g) = &self.engine {
            self.reads.poll(&g.ctx.device);
        }
        self.latest_snapshot()
    }
}
