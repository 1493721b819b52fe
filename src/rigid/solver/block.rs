//! The block order of the contact solver: CPU twin of the colouring with blocks (`colour_keys`
//! in block mode, the sort by bin and `block_colour`, shaders/rigid/colour.wgsl), and of the
//! order the `solve_*_block` entry points (shaders/rigid/solve_block.wgsl) visit the contacts in.
//!
//! Why blocks. Swept colour by colour over the whole scene, one relax sweep costs one dispatch
//! per colour (about nine for a wall of boxes), and a tall wall needs eight sweeps per substep
//! to stand: 288 of a 5k-box step's 441 dispatches, each a global barrier. Cut into blocks of
//! `2^block_shift` grid cells along each axis, a block's contacts can be swept several times in
//! one workgroup, colour after colour with a workgroup barrier between, while the other blocks
//! do the same: a dispatch per partition instead of one per colour and sweep.
//!
//! Which contacts a block owns. A contact belongs to a block when both its dynamic bodies' cells
//! (their centres, in the broad phase's grid) lie in it, so that no two workgroups of one
//! dispatch write one body. Four partitions of the grid into blocks, each shifted by a quarter
//! of a block along every axis, take turns: a contact goes to the first partition in which one
//! block holds both bodies. Two bodies in touching cells (the grid's cell is a bounding
//! diameter, so touching shapes of one-shape bodies are) are split by at most one of the four
//! partitions' block boundaries per axis, so one of the four always holds them: the contacts
//! none holds (bodies more than a cell apart, compound bodies) go to one leftover bin that one
//! workgroup solves. A contact with one dynamic body belongs to that body's block in the first
//! partition.
//!
//! Bins. A partition's blocks are hashed into `block_bins` bins (a power of two), one workgroup
//! each; two blocks in one bin are solved by one workgroup, colour by colour, which is sound
//! because a colour never holds two contacts of one dynamic body.
//!
//! Colours per bin. A bin's contacts are swept by one workgroup and share bodies with no other
//! bin of its partition, so a bin is coloured on its own: first fit in the sorted order ([`sort_key`]), a contact
//! taking the lowest colour none of its dynamic bodies' earlier contacts in the bin has (a
//! 32-bit mask per body and partition), or [`super::SEQUENTIAL_COLOUR`], solved by one thread,
//! when all are taken. One GPU thread per bin does it in one dispatch (`block_colour`), where
//! the colouring of the whole scene takes 33 dispatches of Jones–Plassmann rounds. A limit of
//! software adapters: Mesa's lavapipe and llvmpipe end an invocation's loops after 65,535
//! iterations in all, so a bin of more than about 20,000 contacts (its thread walks it three
//! times) is not coloured whole there, and `RigidStepReport::unsolved` counts what was left (a
//! wall's bins hold tens of contacts; a bin that large needs thousands of bodies in one
//! block).
//!
//! The order. Contacts are sorted by (bin, bucket, slot): the key is the bin and a bucket
//! drawn from the slot ([`sort_key`]), and a stable radix sort of the slots gives `order`;
//! `block_colour` colours each bin in that order, then orders its contacts by colour
//! (stably). A step solves, per partition (the leftover bin last), each bin's colours in
//! order: once per stage sweep for warm apply, the biased iteration and restitution;
//! `block_sweeps` times for a relax round. Bins of a partition share no dynamic body, so
//! whichever order they run in, the bits are the same on the CPU and on any GPU.

use super::Colouring;
use crate::grid::{cell_at, cell_hash};
use crate::rigid::colour::is_contact;
use crate::rigid::types::*;
use glam::{IVec3, Vec4Swizzles};
use std::ops::Range;

/// Partitions of the grid into blocks (each shifted by a quarter block).
pub const PARTITIONS: u32 = 4;

/// The bin that holds the contacts no partition's block holds (after the `PARTITIONS ×
/// bins` bins of the partitions).
pub fn leftover_bin(bins: u32) -> u32 {
    PARTITIONS * bins
}

/// Bits the sort key is filled up to with shuffle bits ([`shuffle_bits`]): two passes of the
/// CPU adapters' 8-bit digits, four of the GPUs' 4-bit ones.
pub const KEY_BITS: u32 = 16;

/// Low bits of the sort key that shuffle a bin's contacts ([`sort_key`]): what the bins leave
/// of [`KEY_BITS`], at least 1 and at most 5 (5 for 256 bins per partition, 3 for 1,024, 1
/// from 4,096).
pub fn shuffle_bits(bins: u32) -> u32 {
    let bin_bits = 32 - (leftover_bin(bins) + 1).leading_zeros();
    KEY_BITS.saturating_sub(bin_bits).clamp(1, 5)
}

/// The sort key of slot `k` in bin `bin` of a solver of `bins` bins per partition: the bin,
/// then one of `2^shuffle_bits(bins)` buckets drawn from the slot's
/// [`super::claim_priority`] (highest first), so that first fit visits a bin's contacts
/// shuffled, not in the broad phase's order (cell by cell). In slot order the colours follow
/// the wall's rows and the 200-row wall drifts three times as far (median 35 mm against 11.5
/// mm on the CPU twin, t = 1 → 1.5 s); 32 buckets drift as little as the full priority order,
/// 8 buckets 11.8 mm, 2 buckets 12.6 mm (and the 100-row wall: 1.8, 2.0 and 2.0 mm).
pub fn sort_key(bin: u32, k: u32, bins: u32) -> u32 {
    let bits = shuffle_bits(bins);
    let bucket = (super::claim_priority(k) >> (31 - bits)) & ((1 << bits) - 1);
    (bin << bits) | ((1 << bits) - 1 - bucket)
}

/// The sort key of a slot with nothing to solve: after every bin.
pub fn empty_key(bins: u32) -> u32 {
    (leftover_bin(bins) + 1) << shuffle_bits(bins)
}

/// Key bits the sort by bin orders by for `bins` bins per partition.
pub fn key_bits(bins: u32) -> u32 {
    32 - empty_key(bins).leading_zeros()
}

/// Bins per partition for a world of `bodies` body slots: about one per 32 bodies (a wall's
/// 8-cell block holds about 64 boxes), a power of two, at most `2^14`. Only bins that hold
/// contacts launch a workgroup (`block_colour` lists them).
pub fn bins_for(bodies: u32) -> u32 {
    (bodies / 32).clamp(1, 1 << 14).next_power_of_two()
}

fn dynamic(bodies: &[GpuBody], i: u32) -> bool {
    bodies
        .get(i as usize)
        .is_some_and(|b| b.kind == body_kind::DYNAMIC && b.awake != 0)
}

/// The block holding `cell` in partition `part`: the cell shifted by `part` quarter blocks,
/// divided by the block edge (rounding down).
fn block_of(cell: IVec3, part: u32, shift: u32) -> IVec3 {
    let step = ((1u32 << shift) / PARTITIONS * part) as i32;
    cell.wrapping_add(IVec3::splat(step)) >> shift as i32
}

fn bin_of(block: IVec3, part: u32, bins: u32) -> u32 {
    part * bins + (cell_hash(block) & (bins - 1))
}

/// The sort key of manifold `m`, which needs solving: its bin (twin of `block_key` in
/// colour.wgsl).
pub fn block_key(params: &GpuRigidParams, bodies: &[GpuBody], m: &GpuManifold) -> u32 {
    let bins = params.block_bins.max(1);
    let shift = params.block_shift;
    let cell = |i: u32| {
        let p = bodies
            .get(i as usize)
            .map_or(glam::Vec3::ZERO, |b| b.pos.xyz());
        cell_at(p, params.inv_cell_size)
    };
    let a = dynamic(bodies, m.body_a);
    let b = m.body_b != m.body_a && dynamic(bodies, m.body_b);
    if a && b {
        let (ca, cb) = (cell(m.body_a), cell(m.body_b));
        for part in 0..PARTITIONS {
            let block = block_of(ca, part, shift);
            if block == block_of(cb, part, shift) {
                return bin_of(block, part, bins);
            }
        }
    } else if a || b {
        let one = if a { m.body_a } else { m.body_b };
        return bin_of(block_of(cell(one), 0, shift), 0, bins);
    }
    leftover_bin(bins)
}

/// The block solver's order for one step.
#[derive(Clone, Debug, Default)]
pub struct BlockOrder {
    /// The contacts as batches: batch `j` (a "colour" of this [`Colouring`], for
    /// [`super::VelocitySet`]) is one bin's contacts of one colour, in the sorted order; batches in
    /// (bin, colour) order. Its `uncoloured`, `manifolds` and `colours_wanted` are the
    /// colouring's (no rounds, no tail).
    pub batches: Colouring,
    /// Per non-empty bin, in bin order: which partition it belongs to (`PARTITIONS` for the
    /// leftover bin) and its batches.
    pub bins: Vec<(u32, Range<u32>)>,
    /// Colours in use: the highest colour of any bin, plus one.
    pub colours: u32,
}

/// Stage `colour` with blocks (GPU: `colour_init`, `colour_keys`, the sort by bin and
/// `block_colour`): every manifold's colour (written into `GpuManifold::colour` too, [`NONE`]
/// when it needs no solving) and the block order (see the module docs).
pub fn block_colour(
    params: &GpuRigidParams,
    bodies: &[GpuBody],
    manifolds: &mut [GpuManifold],
) -> BlockOrder {
    let bins = params.block_bins.max(1);
    let sequential = super::SEQUENTIAL_COLOUR;
    let shuffle = shuffle_bits(bins);
    crate::rigid::colour::mark_dynamic(bodies, manifolds);
    let mut keyed: Vec<(u32, u32)> = Vec::new();
    for (k, m) in manifolds.iter_mut().enumerate() {
        m.colour = NONE;
        if crate::rigid::colour::needs_solve(bodies, m) {
            let bin = block_key(params, bodies, m);
            keyed.push((sort_key(bin, k as u32, bins), k as u32));
        }
    }
    keyed.sort_unstable();
    let dyn_of = |i: u32| dynamic(bodies, i).then_some(i as usize);
    // Colour masks per partition (the leftover bin last) and body.
    let mut masks = vec![0u32; (PARTITIONS as usize + 1) * bodies.len()];
    let mut colours = vec![NONE; manifolds.len()];
    let mut order = Vec::with_capacity(keyed.len());
    let mut start = vec![0u32];
    let mut out_bins: Vec<(u32, Range<u32>)> = Vec::new();
    let (mut used, mut uncoloured) = (0u32, 0u32);
    let mut at = 0;
    while at < keyed.len() {
        let bin = keyed[at].0 >> shuffle;
        let end = at
            + keyed[at..]
                .iter()
                .take_while(|e| e.0 >> shuffle == bin)
                .count();
        let part = (bin / bins).min(PARTITIONS);
        let base = part as usize * bodies.len();
        let mut bin_colours = Vec::with_capacity(end - at);
        for &(_, k) in &keyed[at..end] {
            let m = &mut manifolds[k as usize];
            let a = dyn_of(m.body_a);
            let b = if m.body_b == m.body_a {
                None
            } else {
                dyn_of(m.body_b)
            };
            let taken = [a, b]
                .iter()
                .flatten()
                .fold(0u32, |acc, &d| acc | masks[base + d]);
            let c = (!taken).trailing_zeros().min(sequential);
            if c < sequential {
                for &d in [a, b].iter().flatten() {
                    masks[base + d] |= 1 << c;
                }
            }
            m.colour = c;
            bin_colours.push(c);
            used = used.max(c + 1);
            uncoloured += u32::from(c == sequential);
        }
        let first = start.len() as u32 - 1;
        for c in 0..MAX_COLOURS {
            let before = order.len();
            for (&(_, k), &kc) in keyed[at..end].iter().zip(&bin_colours) {
                if kc == c {
                    order.push(k);
                    colours[k as usize] = start.len() as u32 - 1;
                }
            }
            if order.len() > before {
                start.push(order.len() as u32);
            }
        }
        out_bins.push((part, first..start.len() as u32 - 1));
        at = end;
    }
    let manifold_count = manifolds.iter().filter(|m| is_contact(m)).count() as u32;
    BlockOrder {
        batches: Colouring {
            colours,
            order,
            colour_count: start.len() as u32 - 1,
            colour_start: start,
            uncoloured,
            manifolds: manifold_count,
            colours_wanted: used,
            rounds: 0,
            tail: 0,
        },
        bins: out_bins,
        colours: used,
    }
}
