//! The asynchronous status ring of a GPU particle world: each step that asks for it copies the
//! counters (and the handle deaths) into a slot mapped when its submission is done, so nothing
//! waits and no step's counters are lost, however many steps go into one encoder.

use super::*;
use std::sync::atomic::AtomicU8;

/// An asynchronous counters read: copied at one step and mapped when the submission that holds
/// the copy is done (`map_buffer_on_submit`), so a slot is never mapped while an unsubmitted
/// encoder still copies into it, however many steps go into one encoder.
pub(super) struct StatusSlot {
    pub(super) buffer: wgpu::Buffer,
    pub(super) state: SlotState,
    pub(super) map: Arc<AtomicU8>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum SlotState {
    Free,
    /// (host step, handle deaths the copy has room for).
    Mapping(u64, u32),
}

/// `StatusSlot::map` values.
pub(super) const MAP_PENDING: u8 = 0;
pub(super) const MAP_READY: u8 = 1;
/// The map failed, or the encoder was dropped without a submit: the slot is free again.
pub(super) const MAP_GONE: u8 = 2;

/// Marks a status slot's map as gone if its callback is dropped without running.
pub(super) struct MapGuard(pub(super) Arc<AtomicU8>);

impl Drop for MapGuard {
    fn drop(&mut self) {
        let _ = self
            .0
            .compare_exchange(MAP_PENDING, MAP_GONE, Ordering::AcqRel, Ordering::Acquire);
    }
}

/// What one asynchronous status read brings back.
pub struct Landed {
    /// The host step it describes.
    pub step: u64,
    /// The counters after that step.
    pub counters: GpuCounters,
    /// Host ids of the particles with handles the bounds killed in that step, ascending.
    pub deaths: Vec<u32>,
}

impl GpuParticles {
    /// A free status slot with room for the counters and `deaths` handle deaths, adding one
    /// when all are in flight (the ring grows to the number of steps in flight and is reused
    /// from then on, so no step's counters are skipped); a free slot too small is replaced.
    pub(super) fn free_status_slot(&mut self, deaths: u32) -> usize {
        let bytes = size_of::<GpuCounters>() as u64 + 4 * (1 + u64::from(deaths));
        let fresh = |ctx: &GpuContext| StatusSlot {
            buffer: buffer::zeroed(&ctx.device, "status", bytes, U::MAP_READ | U::COPY_DST),
            state: SlotState::Free,
            map: Arc::new(AtomicU8::new(MAP_GONE)),
        };
        let free = self.status.iter().position(|s| s.state == SlotState::Free);
        match free {
            Some(i) => {
                if self.status[i].buffer.size() < bytes {
                    self.status[i] = fresh(&self.ctx);
                }
                i
            }
            None => {
                self.status.push(fresh(&self.ctx));
                self.status.len() - 1
            }
        }
    }

    /// Advances the asynchronous status reads without blocking; returns every one that landed,
    /// oldest first.
    pub fn poll_status(&mut self) -> Vec<Landed> {
        let _ = self.ctx.device.poll(wgpu::PollType::Poll);
        let mut landed: Vec<Landed> = Vec::new();
        for slot in &mut self.status {
            let SlotState::Mapping(step, room) = slot.state else {
                continue;
            };
            match slot.map.load(Ordering::Acquire) {
                MAP_GONE => slot.state = SlotState::Free,
                MAP_READY => {
                    if let Ok(view) = slot.buffer.get_mapped_range(..) {
                        let at = size_of::<GpuCounters>();
                        let counters: GpuCounters = bytemuck::pod_read_unaligned(&view[..at]);
                        let word = |k: usize| -> u32 {
                            view.get(at + 4 * k..at + 4 * k + 4)
                                .map_or(0, bytemuck::pod_read_unaligned)
                        };
                        let mut deaths = Vec::new();
                        if room > 0 {
                            let n = word(0).min(room) as usize;
                            deaths = (1..=n).map(word).collect();
                            deaths.sort_unstable();
                        }
                        drop(view);
                        landed.push(Landed {
                            step,
                            counters,
                            deaths,
                        });
                    }
                    slot.buffer.unmap();
                    slot.state = SlotState::Free;
                }
                _ => {}
            }
        }
        landed.sort_by_key(|l| l.step);
        landed
    }
}
