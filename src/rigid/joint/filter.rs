//! The joint filter: the body pairs whose shapes do not collide because a joint joins them
//! (a joint without [`joint_flag::COLLIDE`]). A hash table of `[lower body, higher body,
//! joint, 0]`, probed linearly, at most half full, built on the host whenever the joints change
//! and read by stage `joint_slots` on both backends (WGSL `joint_filtered`). An entry filters
//! only while its joint is active, so a joint that breaks lets its bodies collide again at once,
//! with no rebuild.

use super::solve::active;
use crate::rigid::types::*;

/// An empty slot.
pub const EMPTY: [u32; 4] = [NONE, NONE, NONE, 0];

/// The slot where the probe for bodies `lo < hi` starts in a table of `size` slots (a power of
/// two; WGSL `joint_filter_hash`).
pub fn hash(lo: u32, hi: u32, size: u32) -> u32 {
    (lo.wrapping_mul(0x9e37_79b1) ^ hi.wrapping_mul(0x85eb_ca77)) & (size - 1)
}

/// Slots of the table for `entries` filtered joints: a power of two at least twice as many (0
/// for none).
pub fn size_for(entries: usize) -> u32 {
    if entries == 0 {
        0
    } else {
        (entries as u32).saturating_mul(2).next_power_of_two()
    }
}

/// The table for `joints` (slot order; `live[j]`: slot j holds a joint): one entry per live
/// joint between two bodies that does not let them collide, disabled ones included (an entry
/// filters only while its joint is active, and a disabled joint may be enabled again).
pub fn build(joints: &[GpuJoint], live: &[bool]) -> Vec<[u32; 4]> {
    let filtered: Vec<(u32, &GpuJoint)> = joints
        .iter()
        .enumerate()
        .filter(|(j, jt)| {
            live.get(*j).copied().unwrap_or(false)
                && jt.flags & joint_flag::COLLIDE == 0
                && jt.body_a != NONE
                && jt.body_b != NONE
        })
        .map(|(j, jt)| (j as u32, jt))
        .collect();
    let size = size_for(filtered.len());
    let mut table = vec![EMPTY; size as usize];
    for (j, jt) in filtered {
        let (lo, hi) = (jt.body_a.min(jt.body_b), jt.body_a.max(jt.body_b));
        let mut at = hash(lo, hi, size);
        while table[at as usize][0] != NONE {
            at = (at + 1) & (size - 1);
        }
        table[at as usize] = [lo, hi, j, 0];
    }
    table
}

/// Whether an active joint that does not let its bodies collide joins bodies `lo < hi`.
pub fn filtered(table: &[[u32; 4]], joints: &[GpuJoint], lo: u32, hi: u32) -> bool {
    let size = table.len() as u32;
    if size == 0 {
        return false;
    }
    let mut at = hash(lo, hi, size);
    for _ in 0..size {
        let e = table[at as usize];
        if e[0] == NONE {
            return false;
        }
        if e[0] == lo && e[1] == hi && joints.get(e[2] as usize).is_some_and(active) {
            return true;
        }
        at = (at + 1) & (size - 1);
    }
    false
}
