//! The CPU twin of the grid build: the same stages as `shaders/grid/grid_build.wgsl`
//! (`grid_keys`, the radix sort, `grid_ranges`) on plain slices, and the neighbour search that
//! the CPU collision stage and the tests use.
//!
//! The GPU's `grid_clear` stage has no twin here: a CPU build starts from a fresh zeroed table,
//! which is the state `grid_clear` restores.

use super::{cell_of, key_is_repeat, neighbour_keys, GridSpec};
use crate::error::{Error, Result};
use crate::gpu::sort::sort_pairs_cpu;
use glam::{Vec4, Vec4Swizzles};

/// A built grid: the particles in (key, index) order and every key's range of sorted positions.
/// [`crate::grid::GpuGrid::read`] returns the same structure, bit for bit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuGrid {
    /// The particles' keys in sorted order (length n).
    pub sorted_keys: Vec<u32>,
    /// The particle index at each sorted position: indices ordered by (key, index) (length n).
    pub sorted_index: Vec<u32>,
    /// Per key, the first sorted position of its particles; 0 for an empty key
    /// (length table_size).
    pub cell_start: Vec<u32>,
    /// Per key, one past the last sorted position of its particles; 0 for an empty key
    /// (length table_size).
    pub cell_end: Vec<u32>,
}

/// Stage `grid_keys`: the key of each particle's cell (from `xyz`), paired with its index.
pub fn grid_keys(positions: &[Vec4], spec: &GridSpec) -> (Vec<u32>, Vec<u32>) {
    let keys = positions
        .iter()
        .map(|p| super::cell_key(cell_of(p.xyz(), spec.cell_size), spec.table_size))
        .collect();
    let values = (0..positions.len() as u32).collect();
    (keys, values)
}

/// Stage `grid_ranges`: writes each key's `[start, end)` of sorted positions into tables that
/// hold 0 for every key (a key's first position sets its start, its last sets its end).
pub fn grid_ranges(sorted_keys: &[u32], cell_start: &mut [u32], cell_end: &mut [u32]) {
    let n = sorted_keys.len();
    for (s, &k) in sorted_keys.iter().enumerate() {
        if s == 0 || sorted_keys[s - 1] != k {
            cell_start[k as usize] = s as u32;
        }
        if s + 1 == n || sorted_keys[s + 1] != k {
            cell_end[k as usize] = s as u32 + 1;
        }
    }
}

impl CpuGrid {
    /// Builds the grid of `positions` (xyz used; w ignored) on the CPU.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for an invalid spec (see [`GridSpec::validate`]) or more than
    /// `u32::MAX` positions.
    pub fn build(positions: &[Vec4], spec: &GridSpec) -> Result<Self> {
        spec.validate()?;
        if u32::try_from(positions.len()).is_err() {
            return Err(Error::InvalidInput {
                what: "grid positions",
                value: format!("{} positions", positions.len()),
                fix: "build a grid of at most u32::MAX particles",
            });
        }
        let (keys, values) = grid_keys(positions, spec);
        let (sorted_keys, sorted_index) = sort_pairs_cpu(&keys, &values, spec.key_bits())?;
        let table = spec.table_size as usize;
        let mut cell_start = vec![0; table];
        let mut cell_end = vec![0; table];
        grid_ranges(&sorted_keys, &mut cell_start, &mut cell_end);
        Ok(Self {
            sorted_keys,
            sorted_index,
            cell_start,
            cell_end,
        })
    }

    /// The sorted positions `[start, end)` of the particles whose cell hashes to `key`; empty
    /// for an empty key or one outside the table.
    pub fn key_range(&self, key: u32) -> std::ops::Range<usize> {
        let k = key as usize;
        match (self.cell_start.get(k), self.cell_end.get(k)) {
            (Some(&s), Some(&e)) => s as usize..e as usize,
            _ => 0..0,
        }
    }

    /// Calls `f(j)` for every particle `j != i` in the 27 cells around particle `i`'s cell whose
    /// distance to `i` is at most `radius` (tested as `|p_j - p_i|² <= radius²` on xyz).
    ///
    /// The order is deterministic: stencil cells with `dz` outermost and `dx` innermost (each
    /// from -1 to 1), a key already visited in this query skipped (two cells may share a key),
    /// and within a key, sorted order. With `radius <= cell_size` every pair within `radius` is
    /// found, except that a pair within a few ULPs of exactly `cell_size` apart can land two
    /// cells apart by rounding; keep `radius` a hair below `cell_size` if such pairs matter.
    /// `positions` and `spec` must be the ones the grid was built from.
    ///
    /// # Panics
    /// If `i` or an index stored in the grid is out of range of `positions`.
    pub fn for_each_neighbour(
        &self,
        positions: &[Vec4],
        spec: &GridSpec,
        i: usize,
        radius: f32,
        mut f: impl FnMut(usize),
    ) {
        let pi = positions[i].xyz();
        let r2 = radius * radius;
        let keys = neighbour_keys(cell_of(pi, spec.cell_size), spec.table_size);
        for m in 0..keys.len() {
            if key_is_repeat(&keys, m) {
                continue;
            }
            for s in self.key_range(keys[m]) {
                let j = self.sorted_index[s] as usize;
                if j != i && (positions[j].xyz() - pi).length_squared() <= r2 {
                    f(j);
                }
            }
        }
    }
}
