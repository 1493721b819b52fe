//! The host's account of its spawns: which host handles a step's lifecycle placed and which it
//! refused for lack of room, so a handle never says "alive" for a particle that was not placed.
//!
//! The lifecycle places a step's host spawns first, in queue order, then firework and
//! sub-emitter children, then the emitters' particles; what does not fit is refused from the
//! tail (`plan_pool` in `shaders/particles/lifecycle.wgsl` and its CPU twin). So from one
//! number of that step's counters, `spawn_accepted`, the host knows exactly which of its
//! spawns were refused: those from index `min(host, accepted)` on.
//! The CPU backend knows the counters at the end of the step; the GPU backend when it takes
//! in the step's status copy after it lands (every step with host spawns copies one), at the
//! next step or `poll_reports` call.

use std::collections::{HashSet, VecDeque};

/// The id the host gives spawns that have no handle (launches, `spawn_firework`).
pub(crate) const NO_HANDLE: u32 = u32::MAX;

/// Host spawns waiting for their step's counters.
#[derive(Default)]
pub(crate) struct SpawnLedger {
    /// (step that placed them, their ids in queue order), oldest first.
    waiting: VecDeque<(u64, Vec<u32>)>,
}

impl SpawnLedger {
    /// Notes the spawns `ids` (queue order) of step `step`.
    pub(crate) fn record(&mut self, step: u64, ids: Vec<u32>) {
        if !ids.is_empty() {
            self.waiting.push_back((step, ids));
        }
    }

    /// The entries waiting, oldest first: (step, ids in queue order).
    #[cfg(feature = "serde")]
    pub(crate) fn entries(&self) -> impl Iterator<Item = &(u64, Vec<u32>)> {
        self.waiting.iter()
    }

    /// A ledger holding `entries` (oldest first), as [`SpawnLedger::entries`] listed them.
    #[cfg(feature = "serde")]
    pub(crate) fn from_entries(entries: Vec<(u64, Vec<u32>)>) -> Self {
        Self {
            waiting: entries.into(),
        }
    }

    /// Spawns waiting for their counters.
    pub(crate) fn waiting(&self) -> usize {
        self.waiting.iter().map(|(_, ids)| ids.len()).sum()
    }

    /// Applies the counters of step `step`, whose lifecycle accepted `accepted` spawns (host
    /// spawns first): removes the refused host handles from `alive` and returns their ids.
    /// Entries of earlier steps whose counters never came (an encoder dropped unsubmitted:
    /// those steps never ran, and their spawns were never placed) are refused too.
    pub(crate) fn resolve(
        &mut self,
        step: u64,
        accepted: u32,
        alive: &mut HashSet<u32>,
    ) -> Vec<u32> {
        let mut refused = Vec::new();
        while let Some((s, _)) = self.waiting.front() {
            if *s > step {
                break;
            }
            let Some((s, ids)) = self.waiting.pop_front() else {
                break;
            };
            let kept = if s == step {
                ids.len().min(accepted as usize)
            } else {
                0
            };
            for &id in &ids[kept..] {
                if id != NO_HANDLE && alive.remove(&id) {
                    refused.push(id);
                }
            }
        }
        refused
    }
}
