//! The block order of the contact solver: CPU twin of `colour_keys` in block mode and of
//! `block_ranges` (shaders/rigid/colour.wgsl), and of the order the `solve_*_block` entry points
//! (shaders/rigid/solve.wgsl) visit the contacts in.
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
//! none holds (bodies more than a cell apart, compound bodies, and the colouring's sequential
//! colour, whose contacts share bodies) go to one leftover bin that one workgroup solves.
//! A contact with one dynamic body belongs to that body's block in the first partition.
//!
//! Bins. A partition's blocks are hashed into `block_bins` bins (a power of two), one workgroup
//! each; two blocks in one bin are solved by one workgroup, colour by colour, which is sound
//! because a colour never holds two contacts of one dynamic body.
//!
//! The order. Contacts are sorted by (bin, colour, slot): the key `(bin << COLOUR_BITS) |
//! colour` and a stable radix sort of the slots, whose output is the solver's `order`. A step
//! then solves, per partition (the leftover bin last), each bin's colours in order: once per
//! stage sweep for warm apply, the biased iteration and restitution; `block_sweeps` times for a
//! relax round. Bins of a partition share no dynamic body, so whichever order they run in, the
//! bits are the same on the CPU and on any GPU.

use super::Colouring;
use crate::grid::{cell_at, cell_hash};
use crate::rigid::types::*;
use glam::{IVec3, Vec4Swizzles};
use std::ops::Range;

/// Partitions of the grid into blocks (each shifted by a quarter block).
pub const PARTITIONS: u32 = 4;
/// Low key bits holding the colour (colours are below [`MAX_COLOURS`] = 32).
pub const COLOUR_BITS: u32 = 5;

/// The bin that holds the contacts no partition's block holds (after the `PARTITIONS ×
/// bins` bins of the partitions).
pub fn leftover_bin(bins: u32) -> u32 {
    PARTITIONS * bins
}

/// The key of a slot with nothing to solve: after every bin.
pub fn empty_key(bins: u32) -> u32 {
    (leftover_bin(bins) + 1) << COLOUR_BITS
}

/// Key bits the block sort orders by for `bins` bins per partition.
pub fn key_bits(bins: u32) -> u32 {
    COLOUR_BITS + (32 - (leftover_bin(bins) + 1).leading_zeros())
}

/// Bins per partition for a world of `bodies` body slots: about one per 32 bodies (a wall's
/// 8-cell block holds about 64 boxes), a power of two, at most `2^14`. Only bins that hold
/// contacts launch a workgroup (`block_ranges` lists them).
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

/// The sort key of manifold `m` of colour `colour` (twin of `block_key` in colour.wgsl).
pub fn block_key(params: &GpuRigidParams, bodies: &[GpuBody], m: &GpuManifold, colour: u32) -> u32 {
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
    let mut bin = leftover_bin(bins);
    if colour != super::SEQUENTIAL_COLOUR {
        if a && b {
            let (ca, cb) = (cell(m.body_a), cell(m.body_b));
            for part in 0..PARTITIONS {
                let block = block_of(ca, part, shift);
                if block == block_of(cb, part, shift) {
                    bin = bin_of(block, part, bins);
                    break;
                }
            }
        } else if a || b {
            let one = if a { m.body_a } else { m.body_b };
            bin = bin_of(block_of(cell(one), 0, shift), 0, bins);
        }
    }
    (bin << COLOUR_BITS) | colour
}

/// The block solver's order for one step.
#[derive(Clone, Debug, Default)]
pub struct BlockOrder {
    /// The contacts as batches: batch `j` (a "colour" of this [`Colouring`], for
    /// [`super::VelocitySet`]) is one bin's contacts of one colour, in slot order; batches in
    /// (bin, colour) order.
    pub batches: Colouring,
    /// Per non-empty bin, in bin order: which partition it belongs to (`PARTITIONS` for the
    /// leftover bin) and its batches.
    pub bins: Vec<(u32, Range<u32>)>,
}

/// Sorts `colouring`'s contacts into blocks (see the module docs).
pub fn block_order(
    params: &GpuRigidParams,
    bodies: &[GpuBody],
    manifolds: &[GpuManifold],
    colouring: &Colouring,
) -> BlockOrder {
    let bins = params.block_bins.max(1);
    let mut keyed: Vec<(u32, u32)> = colouring
        .order
        .iter()
        .filter_map(|&k| {
            let m = manifolds.get(k as usize)?;
            let c = *colouring.colours.get(k as usize)?;
            Some((block_key(params, bodies, m, c), k))
        })
        .collect();
    keyed.sort_unstable();
    let mut order = Vec::with_capacity(keyed.len());
    let mut start = vec![0u32];
    let mut colours = vec![NONE; colouring.colours.len()];
    let mut out_bins: Vec<(u32, Range<u32>)> = Vec::new();
    let mut last: Option<u32> = None;
    for (key, k) in keyed {
        if last.is_some_and(|l| l != key) {
            start.push(order.len() as u32);
        }
        let batch = start.len() as u32 - 1;
        let bin = key >> COLOUR_BITS;
        if last.is_none_or(|l| l >> COLOUR_BITS != bin) {
            out_bins.push(((bin / bins).min(PARTITIONS), batch..batch));
        }
        if let Some(b) = out_bins.last_mut() {
            b.1.end = batch + 1;
        }
        last = Some(key);
        order.push(k);
        if let Some(c) = colours.get_mut(k as usize) {
            *c = batch;
        }
    }
    if !order.is_empty() {
        start.push(order.len() as u32);
    }
    BlockOrder {
        batches: Colouring {
            colours,
            order,
            colour_count: start.len() as u32 - 1,
            colour_start: start,
            uncoloured: colouring.uncoloured,
            manifolds: colouring.manifolds,
            colours_wanted: colouring.colours_wanted,
            rounds: colouring.rounds,
            tail: colouring.tail,
        },
        bins: out_bins,
    }
}
