//! Trails (issue 12.6): the last `WorldConfig::trail_length` positions of every live particle,
//! kept with the particle through compaction, in a public buffer a renderer draws as ribbons
//! (see [`super::RenderBuffers::trails`] for the layout). The CPU twin of
//! `shaders/particles/trails.wgsl`: the same three stages.

use super::cpu::{compaction_moves, CpuState};
use glam::Vec4;

/// Stage `trail_compact`: after `compact`, each moved particle's ring moves with it.
pub fn trail_compact(s: &CpuState, trails: &mut [Vec4], k: usize) {
    for (i, dst) in compaction_moves(s) {
        trails.copy_within(i * k..i * k + k, dst * k);
    }
}

/// Stage `trail_append`: after `append`, a new particle's ring holds its first position.
pub fn trail_append(s: &CpuState, trails: &mut [Vec4], k: usize) {
    let survivors = s.counters.survivors as usize;
    for j in 0..s.counters.spawn_accepted as usize {
        let dst = survivors + j;
        trails[dst * k..dst * k + k].fill(s.staging[j].pos);
    }
}

/// Stage `trail_push`: each live particle's position into its ring's entry for `step`
/// (0-based: the steps taken before this one).
pub fn trail_push(s: &CpuState, trails: &mut [Vec4], k: usize, step: u32) {
    let head = (step % k as u32) as usize;
    for i in 0..s.counters.live as usize {
        trails[i * k + head] = s.pos[i];
    }
}
