//! The asynchronous status reads of a GPU particle world: each step that asks for it copies the
//! counters (and the handle deaths) into a slot of the world's [`StatusRing`], mapped when its
//! submission is done, so nothing waits and no step's counters are lost, however many steps go
//! into one encoder.

use super::*;

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
    /// Records the status copy of step `step` into `encoder`: the counters, then, with `room`
    /// above 0, the count of handle deaths and up to `room` of their ids.
    pub(super) fn record_status(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        step: u64,
        room: u32,
    ) {
        let counters = size_of::<GpuCounters>() as u64;
        let deaths = if room > 0 {
            4 * (1 + u64::from(room))
        } else {
            0
        };
        let (src, deaths_src) = (&self.bufs.counters, &self.bufs.deaths);
        self.status.record(
            &self.ctx.device,
            encoder,
            step,
            room,
            counters + deaths,
            |encoder, slot| {
                encoder.copy_buffer_to_buffer(src, 0, slot, 0, counters);
                if deaths > 0 {
                    encoder.copy_buffer_to_buffer(deaths_src, 0, slot, counters, deaths);
                }
            },
        );
    }

    /// Advances the asynchronous status reads without blocking; returns every one that landed,
    /// oldest first.
    pub fn poll_status(&mut self) -> Vec<Landed> {
        let mut landed: Vec<Landed> = Vec::new();
        self.status.poll(&self.ctx.device, |step, room, view| {
            let at = size_of::<GpuCounters>();
            let Some(head) = view.get(..at) else {
                return;
            };
            let counters: GpuCounters = bytemuck::pod_read_unaligned(head);
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
            landed.push(Landed {
                step,
                counters,
                deaths,
            });
        });
        landed
    }
}
