//! The asynchronous status ring every GPU world reads its counters through: a step records a
//! copy of its counters into a free mappable slot of the ring, in the same encoder as the step,
//! and asks for the slot to be mapped when that encoder's submission is done
//! (`CommandEncoder::map_buffer_on_submit`). A later [`StatusRing::poll`] hands back every copy
//! that has landed, without blocking.
//!
//! Why it is shaped so:
//! - No step waits on a readback, and none is skipped: when every slot is still in flight (a
//!   renderer that records several steps into one encoder, or a GPU that runs a few frames
//!   behind), the ring grows by a slot, so it settles at the number of steps in flight.
//! - A slot is never mapped while an unsubmitted encoder still copies into it: the map is asked
//!   for at the submit, by the encoder that holds the copy. An encoder dropped without a submit
//!   drops the map's callback, whose guard frees the slot.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// What a slot's map callback reported.
const MAP_PENDING: u8 = 0;
const MAP_READY: u8 = 1;
/// The map failed, or the encoder was dropped without a submit: the slot is free again.
const MAP_GONE: u8 = 2;

/// Marks a slot's map as gone if its callback is dropped without running.
struct MapGuard(Arc<AtomicU8>);

impl Drop for MapGuard {
    fn drop(&mut self) {
        let _ = self
            .0
            .compare_exchange(MAP_PENDING, MAP_GONE, Ordering::AcqRel, Ordering::Acquire);
    }
}

struct Slot {
    buffer: wgpu::Buffer,
    /// The step the slot's copy describes and the recorder's tag, while in flight.
    in_flight: Option<(u64, u32)>,
    map: Arc<AtomicU8>,
}

/// A ring of mappable copies of a world's counters (see the module docs).
pub struct StatusRing {
    label: &'static str,
    slots: Vec<Slot>,
}

impl StatusRing {
    /// An empty ring; its buffers are labelled `wgphys:buffer:<label>`.
    #[must_use]
    pub fn new(label: &'static str) -> Self {
        Self {
            label,
            slots: Vec::new(),
        }
    }

    /// Copies taken and not yet handed back by [`StatusRing::poll`].
    pub fn in_flight(&self) -> usize {
        self.slots.iter().filter(|s| s.in_flight.is_some()).count()
    }

    /// Slots in the ring (it grows to the number of steps in flight).
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the ring has no slot yet.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Records into `encoder` the copies of step `step` into a free slot of at least `bytes`
    /// (`copy` receives the slot's buffer and records them), and the slot's map at the
    /// encoder's submit. `tag` comes back with the copy (what the copies hold, for example).
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        step: u64,
        tag: u32,
        bytes: u64,
        copy: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::Buffer),
    ) {
        let i = self.free_slot(device, bytes);
        let slot = &mut self.slots[i];
        copy(encoder, &slot.buffer);
        slot.map.store(MAP_PENDING, Ordering::Release);
        let guard = MapGuard(slot.map.clone());
        encoder.map_buffer_on_submit(&slot.buffer, wgpu::MapMode::Read, .., move |r| {
            let state = if r.is_ok() { MAP_READY } else { MAP_GONE };
            guard.0.store(state, Ordering::Release);
        });
        slot.in_flight = Some((step, tag));
    }

    /// A free slot of at least `bytes`, adding one when every slot is in flight; a free slot
    /// too small is replaced.
    fn free_slot(&mut self, device: &wgpu::Device, bytes: u64) -> usize {
        let label = self.label;
        let fresh = || Slot {
            buffer: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&format!("wgphys:buffer:{label}")),
                size: bytes.max(4).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            in_flight: None,
            map: Arc::new(AtomicU8::new(MAP_GONE)),
        };
        match self.slots.iter().position(|s| s.in_flight.is_none()) {
            Some(i) => {
                if self.slots[i].buffer.size() < bytes {
                    self.slots[i] = fresh();
                }
                i
            }
            None => {
                self.slots.push(fresh());
                self.slots.len() - 1
            }
        }
    }

    /// Polls the device without blocking and hands every copy that has landed to `read` as
    /// (step, tag, bytes), oldest step first; their slots are free again.
    pub fn poll(&mut self, device: &wgpu::Device, mut read: impl FnMut(u64, u32, &[u8])) {
        let _ = device.poll(wgpu::PollType::Poll);
        let mut landed: Vec<(u64, u32, usize)> = Vec::new();
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let Some((step, tag)) = slot.in_flight else {
                continue;
            };
            match slot.map.load(Ordering::Acquire) {
                MAP_GONE => slot.in_flight = None,
                MAP_READY => landed.push((step, tag, i)),
                _ => {}
            }
        }
        landed.sort_unstable();
        for (step, tag, i) in landed {
            let slot = &mut self.slots[i];
            if let Ok(view) = slot.buffer.get_mapped_range(..) {
                read(step, tag, &view[..]);
            }
            slot.buffer.unmap();
            slot.in_flight = None;
        }
    }
}
