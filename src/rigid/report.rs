//! What a step did ([`StepReport`]) and the GPU's status ring: each step's counters are copied
//! into one of a few mappable slots and read back without blocking a frame or two later, so no
//! step waits on a readback.

use super::types::counter;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What a step did, from the counters. On the GPU these are read back asynchronously, so a
/// report describes a step a frame or two old ([`StepReport::step`] says which); the CPU's
/// describe the step just taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepReport {
    /// The step (1-based) these counts describe; 0 before the first report arrives.
    pub step: u64,
    /// Shape pairs the broad phase kept.
    pub pairs: u32,
    /// Shape pairs it found; more than `pairs` means the pair buffer overflowed (and was grown
    /// when `auto_grow` is on; the lost pairs are found again next step).
    pub pairs_wanted: u32,
    /// Manifolds with at least one contact point.
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
}

impl StepReport {
    /// A sentence naming the knob to raise, when something overflowed.
    pub fn advice(&self) -> Option<String> {
        if self.pairs_wanted > self.pairs {
            return Some(format!(
                "the broad phase found {} pairs but holds {}: raise RigidConfig::pair_capacity \
                 (or keep auto_grow on)",
                self.pairs_wanted, self.pairs
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

/// One slot of the status ring: a mappable copy of a step's counters.
pub(crate) struct StatusSlot {
    pub(crate) buffer: wgpu::Buffer,
    pub(crate) ready: Arc<AtomicBool>,
    pub(crate) step: Option<u64>,
    pub(crate) mapping: bool,
}

/// The index of a free status slot, adding one while the ring holds fewer than three; `None`
/// when all are in flight (that step's counters are then not copied).
pub(crate) fn free_status_slot(
    device: &wgpu::Device,
    status: &mut Vec<StatusSlot>,
) -> Option<usize> {
    match status.iter().position(|s| s.step.is_none()) {
        Some(i) => Some(i),
        None if status.len() < 3 => {
            status.push(StatusSlot {
                buffer: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("wgphys:buffer:rigid_status"),
                    size: STATUS_BYTES,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                ready: Arc::new(AtomicBool::new(false)),
                step: None,
                mapping: false,
            });
            Some(status.len() - 1)
        }
        None => None,
    }
}

/// Bytes of the counters the status ring copies (the scalar counters).
pub(crate) const STATUS_BYTES: u64 = 4 * counter::INDIRECT as u64;

/// Starts mapping copied status slots and returns the newest finished report, without blocking.
pub(crate) fn poll_status(device: &wgpu::Device, status: &mut [StatusSlot]) -> Option<StepReport> {
    let _ = device.poll(wgpu::PollType::Poll);
    let mut newest: Option<StepReport> = None;
    for slot in status.iter_mut() {
        let Some(step) = slot.step else { continue };
        if !slot.mapping {
            let ready = slot.ready.clone();
            ready.store(false, Ordering::Release);
            slot.buffer.map_async(wgpu::MapMode::Read, .., move |r| {
                ready.store(r.is_ok(), Ordering::Release)
            });
            slot.mapping = true;
            continue;
        }
        if !slot.ready.load(Ordering::Acquire) {
            continue;
        }
        if let Ok(view) = slot.buffer.get_mapped_range(..) {
            let words: Vec<u32> = bytemuck::cast_slice(&view[..]).to_vec();
            drop(view);
            let report = report_from_counters(step, &words);
            if newest.is_none_or(|n| report.step > n.step) {
                newest = Some(report);
            }
        }
        slot.buffer.unmap();
        slot.step = None;
        slot.mapping = false;
    }
    newest
}

pub(crate) fn report_from_counters(step: u64, c: &[u32]) -> StepReport {
    let at = |i: usize| c.get(i).copied().unwrap_or(0);
    StepReport {
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
    }
}
