//! What a step did ([`RigidStepReport`]), from the counters a step leaves on the device. On the GPU
//! each step, recorded by the world or into a caller's encoder, copies them into the world's
//! status ring (`crate::gpu::status`), read without blocking a frame or two later.

use super::types::counter;

/// What a step did, from the counters. On the GPU these are read back asynchronously, so a
/// report describes a step a frame or two old ([`RigidStepReport::step`] says which); the CPU's
/// describe the step just taken.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RigidStepReport {
    /// The step (1-based) these counts describe; 0 before the first report arrives.
    pub step: u64,
    /// Shape pairs the broad phase kept.
    pub pairs: u32,
    /// Shape pairs it found; more than `pairs` means the pair buffer overflowed (and was grown
    /// when `auto_grow` is on; the lost pairs are found again next step).
    pub pairs_wanted: u32,
    /// Contact manifolds with at least one point (a joint's slot is not one).
    pub manifolds: u32,
    /// Solver colours used.
    pub colours: u32,
    /// Manifolds the colouring could not place within `MAX_COLOURS` (solved serially).
    pub uncoloured: u32,
    /// The colours the colouring asked for (first fit): above `MAX_COLOURS − 1` when some body
    /// had more contacts than the independent colours separate.
    pub colours_wanted: u32,
    /// Colouring rounds that coloured something.
    pub rounds: u32,
    /// Manifolds in the solver's tail: the colours from `colour_slots − 1` on, which one
    /// workgroup solves after the per-colour dispatches (`auto_grow` adds a slot when it holds
    /// more than [`crate::rigid::solver::TAIL_MAX_MANIFOLDS`]).
    pub tail: u32,
    /// Dynamic bodies awake after the step.
    pub awake: u32,
    /// Manifolds that needed solving but got no colour, so were not solved this step. Always 0
    /// on the CPU, and on the GPU unless a colouring kernel was cut short: software adapters
    /// stop very long shader loops, which is why scenes above
    /// [`crate::rigid::solver::COLOUR_FUSED_MAX_MANIFOLDS`] pair slots colour in rounds of passes.
    pub unsolved: u32,
    /// Bins the block solver's velocity stages solved against a workgroup copy of their
    /// bodies, summed over the step's dispatches ([`super::RigidWorld::set_block_staging`]; 0
    /// with it off, without blocks and on the CPU).
    pub staged_bins: u32,
    /// Bins they solved from the bodies buffer while staging was on: more than 256 contacts or
    /// 112 bodies (or, practically never, a table insert that ran out of retries). If most bins
    /// land here, smaller blocks (`RigidConfig::block_cells`) put fewer contacts in a bin. Empty
    /// bins count in neither.
    pub unstaged_bins: u32,
    /// The broad phase was cut short: a software adapter stops a shader after 65,535 loop
    /// iterations per invocation (Mesa's loop limiter), and a shape with very many neighbours
    /// can reach that, so some of its pairs were not written this step (the narrow phase never
    /// sees a slot left from an earlier step). Always false on the CPU.
    pub broad_truncated: bool,
    /// Joints the step broke (`RigidWorld::take_broken_joints` hands each out once).
    pub joints_broken: u32,
    /// Breakable bodies the step struck past their breaking impulse (split by the world;
    /// `RigidWorld::take_fractures` hands each split out once).
    pub fractures: u32,
    /// Contact events (`RigidWorld::take_contact_events`) the step found but could not list:
    /// the GPU lists at most `counter::CONTACT_EVENTS_MAX` a step. Always 0 on the CPU.
    pub contact_events_missed: u32,
}

impl RigidStepReport {
    /// A sentence naming the knob to raise, when something overflowed.
    pub fn advice(&self) -> Option<String> {
        if self.pairs_wanted > self.pairs {
            return Some(format!(
                "the broad phase found {} pairs but holds {}: raise RigidConfig::pair_capacity \
                 (or keep auto_grow on)",
                self.pairs_wanted, self.pairs
            ));
        }
        if self.broad_truncated {
            return Some(
                "the broad phase was cut short by the adapter's loop limit (software adapters \
                 stop a shader after 65,535 loop iterations), so some pairs were missed this \
                 step: use a hardware adapter, or put fewer shapes in reach of one another (a \
                 crowded grid cell, or a large shape over thousands of small ones)"
                    .to_string(),
            );
        }
        if self.contact_events_missed > 0 {
            return Some(format!(
                "{} contact events were found but not listed (a GPU step lists at most {}): take \
                 them every step with RigidWorld::take_contact_events and expect bursts of \
                 contacts (a pile landing) to exceed it, or read contacts with \
                 RigidWorld::contacts",
                self.contact_events_missed,
                counter::CONTACT_EVENTS_MAX
            ));
        }
        (self.unsolved > 0).then(|| {
            format!(
                "{} manifolds were not solved (a GPU colouring kernel was cut short): lower \
                 RigidConfig::pair_capacity to what the scene needs (with the block solver, \
                 RigidConfig::block_cells), split the scene into smaller worlds, or use a \
                 hardware adapter",
                self.unsolved
            )
        })
    }
}

/// Bytes of the counters a step's status copy takes: every word (`counter::LEN`), so a
/// report can read any counter.
pub(crate) const STATUS_BYTES: u64 = 4 * counter::LEN as u64;

pub(crate) fn report_from_counters(step: u64, c: &[u32]) -> RigidStepReport {
    let at = |i: usize| c.get(i).copied().unwrap_or(0);
    RigidStepReport {
        step,
        pairs: at(counter::PAIRS),
        pairs_wanted: at(counter::PAIRS_WANTED),
        manifolds: at(counter::MANIFOLDS),
        colours: at(counter::COLOURS),
        uncoloured: at(counter::UNCOLOURED),
        colours_wanted: at(counter::COLOURS_WANTED),
        rounds: at(counter::ROUNDS),
        tail: at(counter::TAIL),
        awake: at(counter::AWAKE),
        unsolved: at(counter::UNSOLVED),
        staged_bins: at(counter::STAGED_BINS),
        unstaged_bins: at(counter::UNSTAGED_BINS),
        broad_truncated: at(counter::BROAD_TRUNCATED) != 0,
        joints_broken: at(counter::JOINTS_BROKEN),
        fractures: at(counter::FRACTURES),
        contact_events_missed: at(counter::CONTACT_EVENT_COUNT)
            .saturating_sub(counter::CONTACT_EVENTS_MAX as u32),
    }
}
