//! A deterministic hashed uniform grid for particle–particle neighbour search, built on the GPU
//! ([`GpuGrid`]) or the CPU ([`CpuGrid`]) with the same stages and bit-identical results.
//!
//! A point `p` lies in cell `c = floor(p / cell_size)`; cells hash into a table of
//! `table_size` keys ([`cell_key`]: the hash of the cell's 4×4×4 block above the cell's place in
//! the block, masked to the table). A build:
//!
//! 1. `grid_keys`: the key of every particle, paired with its index;
//! 2. a stable radix sort of the pairs by key ([`crate::gpu::sort`]), so particles with equal
//!    keys stay in index order and the sorted order is unique;
//! 3. `grid_ranges`: for every key, the range `[cell_start[key], cell_end[key])` of sorted
//!    positions holding its particles. **Empty keys have `cell_start == cell_end == 0`.**
//!
//! A neighbour search visits the 27 cells around a particle's cell (see
//! [`CpuGrid::for_each_neighbour`], and `shaders/grid/grid_common.wgsl` for the WGSL loop).
//! Different cells can share a key; the search skips a key it already visited, and the distance
//! test drops the other cells' particles. It finds every pair closer than `cell_size`, so pick
//! `cell_size` at least the largest interaction distance.

pub mod cpu;
pub mod gpu;

pub use cpu::CpuGrid;
pub use gpu::GpuGrid;

use crate::error::{Error, Result};
use glam::{IVec3, Vec3};

/// The three odd multipliers of the cell hash (Teschner et al. 2003), emitted into WGSL as
/// `GRID_HASH_P0..2`.
pub const HASH_PRIMES: [u32; 3] = [73_856_093, 19_349_663, 83_492_791];
/// The multipliers of the lowbias32 finalizer that mixes the hash (emitted as
/// `GRID_HASH_M0..1`).
pub const HASH_MIX: [u32; 2] = [0x7feb_352d, 0x846c_a68b];
/// Cells in the neighbour stencil: the 3x3x3 block around a cell.
pub const STENCIL: usize = 27;

/// The grid's shape: cell size and the number of table keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridSpec {
    /// Edge length of a cubic cell, in world units. At least the largest interaction distance
    /// (for colliding spheres, twice the largest radius).
    pub cell_size: f32,
    /// Keys in the hash table, a power of two. About twice the particle count keeps hash
    /// collisions rare; smaller tables save memory and clearing time but put more unrelated
    /// particles in each key.
    pub table_size: u32,
}

impl GridSpec {
    /// A validated spec.
    ///
    /// # Errors
    /// As [`GridSpec::validate`].
    pub fn new(cell_size: f32, table_size: u32) -> Result<Self> {
        let spec = Self {
            cell_size,
            table_size,
        };
        spec.validate()?;
        Ok(spec)
    }

    /// Checks that `cell_size` is a finite number greater than 0 whose reciprocal is finite,
    /// and that `table_size` is a power of two (1 included).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] naming the field.
    pub fn validate(&self) -> Result<()> {
        if !(self.cell_size.is_finite()
            && self.cell_size > 0.0
            && (1.0 / self.cell_size).is_finite())
        {
            return Err(Error::InvalidInput {
                what: "grid cell_size",
                value: format!("{}", self.cell_size),
                fix: "pass a finite cell size greater than 0 (and not subnormal), at least the \
                      largest interaction distance, for example twice the largest particle radius",
            });
        }
        if !self.table_size.is_power_of_two() {
            return Err(Error::InvalidInput {
                what: "grid table_size",
                value: self.table_size.to_string(),
                fix: "pass a power of two (1, 2, 4, ...), for example the particle count times 2 \
                      rounded up with u32::next_power_of_two",
            });
        }
        Ok(())
    }

    /// `table_size - 1`: the mask that turns a hash into a key.
    pub fn table_mask(&self) -> u32 {
        self.table_size.wrapping_sub(1)
    }

    /// `1 / cell_size`, the factor [`cell_of`] multiplies by (the GPU receives this same value).
    pub fn inv_cell_size(&self) -> f32 {
        1.0 / self.cell_size
    }

    /// Key bits the radix sort orders by: `log2(table_size)`, at least 1.
    pub fn key_bits(&self) -> u32 {
        self.table_size.trailing_zeros().max(1)
    }
}

fn flush_subnormal(v: Vec3) -> Vec3 {
    Vec3::select(v.abs().cmplt(Vec3::splat(f32::MIN_POSITIVE)), Vec3::ZERO, v)
}

/// The cell of point `p`: `floor(p / cell_size)`, computed as `floor(p * (1 / cell_size))`.
///
/// Identical to WGSL `grid_cell` given `1 / cell_size`: subnormal coordinates and products
/// count as zero (as on CPU adapters that flush denormals), and cells beyond the `i32` range
/// clamp to its ends, so far-away points share the outermost cells.
pub fn cell_of(p: Vec3, cell_size: f32) -> IVec3 {
    cell_at(p, 1.0 / cell_size)
}

/// [`cell_of`] from the inverse cell size (`GridSpec::inv_cell_size`, the value the GPU's
/// `grid_cell` multiplies by), bit for bit the same cell.
pub fn cell_at(p: Vec3, inv_cell_size: f32) -> IVec3 {
    let q = flush_subnormal(flush_subnormal(p) * inv_cell_size);
    // 2147483520 is the largest f32 below 2^31: every clamped value converts exactly.
    q.floor()
        .clamp(Vec3::splat(-2_147_483_648.0), Vec3::splat(2_147_483_520.0))
        .as_ivec3()
}

/// The full 32-bit hash of a cell: the coordinates times [`HASH_PRIMES`], xored, then mixed by
/// the lowbias32 finalizer so every output bit depends on every input bit.
pub fn cell_hash(c: IVec3) -> u32 {
    let [p0, p1, p2] = HASH_PRIMES;
    let [m0, m1] = HASH_MIX;
    let mut h = (c.x as u32).wrapping_mul(p0)
        ^ (c.y as u32).wrapping_mul(p1)
        ^ (c.z as u32).wrapping_mul(p2);
    h ^= h >> 16;
    h = h.wrapping_mul(m0);
    h ^= h >> 15;
    h = h.wrapping_mul(m1);
    h ^= h >> 16;
    h
}

/// The table key of cell `c`, `table_size` a power of two: the [`cell_hash`] of its block of
/// 4×4×4 cells (`c >> 2`, rounding down) above the six low bits, which hold the cell's place in
/// the block (`c & 3` per axis, x lowest), masked to the table. The cells of a block sit side
/// by side in the table, so a search around a point reads a few runs of it instead of 27 to 64
/// scattered places (a million grains' table is 16 MB, read at random it outgrew the caches).
/// Blocks still land at random, so collisions stay as rare as with a hash of the cell.
pub fn cell_key(c: IVec3, table_size: u32) -> u32 {
    let o = c & IVec3::splat(3);
    let low = o.x as u32 | (o.y as u32) << 2 | (o.z as u32) << 4;
    ((cell_hash(c >> 2) << 6) | low) & table_size.wrapping_sub(1)
}

/// The `m`-th cell (`m < 27`) of the stencil around `c`: `dz` outermost, `dx` innermost, each
/// from -1 to 1. Coordinates wrap at the `i32` range, as in WGSL.
pub fn neighbour_cell(c: IVec3, m: usize) -> IVec3 {
    let o = IVec3::new((m % 3) as i32, (m / 3 % 3) as i32, (m / 9) as i32) - IVec3::ONE;
    c.wrapping_add(o)
}

/// The keys of the 27 stencil cells around `c`, in stencil order.
pub fn neighbour_keys(c: IVec3, table_size: u32) -> [u32; STENCIL] {
    std::array::from_fn(|m| cell_key(neighbour_cell(c, m), table_size))
}

/// Whether `keys[m]` already appeared at an earlier stencil index; a search skips it then,
/// because its particles were visited with the earlier one.
pub fn key_is_repeat(keys: &[u32; STENCIL], m: usize) -> bool {
    keys[..m].contains(&keys[m])
}
