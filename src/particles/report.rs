//! What a particle world reports: the pool's status (live, refused, wanted capacity) and what a
//! step returns.

use super::types::GpuCounters;

/// What the pool looked like after a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Status {
    /// The step (1-based count of steps taken) this status describes.
    pub step: u64,
    /// Pool capacity when read.
    pub capacity: u32,
    /// Live particles.
    pub live: u32,
    /// Particles that died in that step.
    pub died: u32,
    /// Particles spawned in that step.
    pub spawned: u32,
    /// Spawns refused for lack of room since the world was made.
    pub dropped_total: u32,
    /// Of those, spawns the host asked for.
    pub host_dropped_total: u32,
    /// The largest live count wanted when room ran out.
    pub wanted_capacity: u32,
}

impl Status {
    pub(crate) fn from_counters(step: u64, capacity: u32, c: &GpuCounters) -> Self {
        Self {
            step,
            capacity,
            live: c.live,
            died: c.dead,
            spawned: c.spawn_accepted,
            dropped_total: c.dropped_total,
            host_dropped_total: c.host_dropped_total,
            wanted_capacity: c.wanted_capacity,
        }
    }

    /// Whether any spawn was ever refused.
    pub fn overflowed(&self) -> bool {
        self.dropped_total > 0
    }

    /// What to do about an overflow, naming the knob.
    pub fn advice(&self) -> Option<String> {
        self.overflowed().then(|| {
            format!(
                "particle pool full: {} spawns refused ({} from the host); raise \
                 WorldConfig::capacity or call ParticleWorld::grow({}), or set WorldConfig::auto_grow",
                self.dropped_total, self.host_dropped_total, self.wanted_capacity
            )
        })
    }
}

/// What [`super::ParticleWorld::step`] and [`super::ParticleWorld::encode_step`] return.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParticleStepReport {
    /// Steps taken so far, this one included.
    pub step: u64,
    /// The newest pool status known: this step's on the CPU, a frame or more late on the GPU
    /// (`None` until the first asynchronous read lands, or when `status_interval` is 0).
    pub status: Option<Status>,
    /// The new capacity when `auto_grow` grew the pool during this call.
    pub grew_to: Option<u32>,
    /// Host spawns found refused for lack of room during this call (their handles are no
    /// longer valid; [`super::ParticleWorld::refused_spawns`] names them). On the CPU they are the
    /// refusals of this step; on the GPU of the steps whose status landed since the last call.
    pub refused_spawns: u32,
    /// Particles with host handles the kill bounds were found to have killed during this call
    /// (their handles are no longer valid; [`super::ParticleWorld::killed_by_bounds`] names
    /// them), found as the refusals are.
    pub killed_by_bounds: u32,
}
