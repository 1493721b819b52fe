//! Particles against a rigid world's shapes through a grid: the CPU twins of stage
//! `rigid_cells` (`shaders/particles/rigid_cells.wgsl`: `rigid_cells_reach`,
//! `rigid_cells_count`, `rigid_cells_scan`, `rigid_cells_fill`, `rigid_cells_sort`) and of
//! stage `rigid_contacts_cells`, same names, same order.
//!
//! Each step the grid is built afresh from the shapes' bounding spheres at their bodies' poses
//! of that moment (the poses `rigid_contacts` reads), so no shape can have moved since it was
//! binned. A shape goes into every cell of a hashed grid (cell size `1 / params.rigid_cell_inv`,
//! `params.rigid_buckets` buckets) that its bounding sphere grown by the reach covers: its
//! radius + the largest radius of a movable live particle (`reach`) + the contact slop, times
//! `1 + 1/256`, plus `2⁻²⁰` of its distance from the origin. A particle visits the bucket of
//! the cell it is in and the large bucket (half-spaces, planes, shapes covering more than
//! [`CELL_SPAN`] cells along an axis, and shapes of non-finite bounds), merged in slot order.
//!
//! Why no shape in reach is missed: [`super::rigid::rigid_bound_near`] accepts a shape only when
//! `|d|² ≤ (b + r + slop)² (1 + 1/512)` in f32 (d the particle's offset from the centre), so
//! each coordinate of d is within `(b + r + slop) · 1.001` of the centre even after the
//! roundings of d and of the squares (a few units of 2⁻²⁴ each); r ≤ reach, and the binning
//! range `c ± e` with `e = (b + reach + slop)(1 + 1/256) + 2⁻²⁰ (|c|∞ + b + reach + slop)`
//! keeps that interval inside it after its own rounding (at most 2⁻²⁴ (|c| + e)). Cell
//! indices are `floor(x · inv)`, monotone in x (a correctly rounded product), so the
//! particle's cell lies in the shape's cell range. Every shape a bucket holds is then tested
//! exactly as the brute force tests it, and a contact that moves the particle into another
//! cell switches to that cell's bucket past the slots done: the same shapes meet the same
//! particle state in the same slot order as in [`super::rigid::rigid_contacts`], bit for bit.

use super::cpu::CpuState;
use super::rigid::{rigid_shape_bound, Spark};
use super::types::GpuParams;
use crate::rigid::types::{shape_kind, GpuBody, GpuShape};
use glam::{Vec3, Vec4, Vec4Swizzles};

/// Most cells a shape covers along an axis before it goes into the large bucket (so at most
/// 27 cells a shape).
pub const CELL_SPAN: u32 = 3;

/// Words before the bounds in the GPU's grid buffer: the live count and the reach's bits.
pub const HEADER: u32 = 4;

/// Most shape slots a particle world collides with through the grid (its buffers take
/// 28 + 4 + 16 words a slot: 12 MiB at this many).
pub const MAX_RIGID_CELL_SHAPES: u32 = 65_536;

/// How stage `rigid_contacts` finds the shapes near a particle
/// ([`super::WorldConfig::rigid_lookup`]); both give the same result, bit for bit on the CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RigidLookup {
    /// A grid over the shapes' bounds, built each step (stages `rigid_cells` and
    /// `rigid_contacts_cells`): each particle tests the shapes of its cell and the large ones;
    /// up to [`MAX_RIGID_CELL_SHAPES`] shape slots.
    #[default]
    Cells,
    /// Every particle tests every shape slot (stage `rigid_contacts`): O(particles × shapes),
    /// up to [`super::rigid::MAX_RIGID_SHAPES`] shape slots.
    All,
}

/// The hash table's buckets for `shape_count` shape slots: a power of two, 8 a slot or more
/// (at least 64), so that distinct cells seldom share one.
pub fn bucket_count(shape_count: usize) -> u32 {
    (shape_count.max(8) * 8).next_power_of_two() as u32
}

/// The grid's cell size for `shapes` (their dimensions only: the poses are on the device):
/// twice the bounding radius three quarters of the finite shapes stay within, so a typical
/// shape with its reach covers two or three cells along an axis and a bucket holds a few
/// shapes, while a few big ones (a floor slab) go into the large bucket instead of making every
/// cell big. 1 m without such shapes. Any positive size gives the same contacts; this one only
/// sets the cost (on lavapipe, 1,000 boxes: a third less time a step than four times the
/// radius). The particles' reach (their largest radius, known only on the device) widens each
/// shape's range, so particles much larger than the shapes (a 1 m smoke puff against 10 cm
/// boxes) send the shapes to the large bucket: the same contacts, at the cost of testing
/// every such shape per particle.
pub fn cell_size(shapes: &[GpuShape]) -> f32 {
    let mut radii: Vec<f32> = shapes
        .iter()
        .filter(|s| {
            (shape_kind::SPHERE..=shape_kind::CAPSULE).contains(&s.kind) && s.material.w == 0.0
        })
        .map(|s| match s.kind {
            shape_kind::BOX => s.dims.xyz().length(),
            shape_kind::CAPSULE => s.dims.x + s.dims.y,
            _ => s.dims.x,
        })
        .filter(|r| r.is_finite() && *r > 0.0)
        .collect();
    if radii.is_empty() {
        return 1.0;
    }
    radii.sort_unstable_by(f32::total_cmp);
    let r = radii[(radii.len() * 3) / 4];
    (2.0 * r).clamp(1e-3, 1e6)
}

/// Where a shape of bounding sphere `b` goes in the grid (twin of `rigid_cells_range`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeCells {
    /// Nowhere: it collides with nothing (w = −1).
    None,
    /// The large bucket.
    Large,
    /// The cells from `lo` to `hi` (inclusive, at most [`CELL_SPAN`] along each axis).
    Cells {
        /// Lowest cell.
        lo: [i32; 3],
        /// Highest cell.
        hi: [i32; 3],
    },
}

/// The cell of the grid of `1 / inv` metres holding `p` (twin of `rigid_cell_of`).
pub fn cell_of(p: Vec3, inv: f32) -> [i32; 3] {
    let c = (p * inv).floor();
    // `as` saturates (NaN to 0), as WGSL's conversion clamps.
    [c.x as i32, c.y as i32, c.z as i32]
}

/// The cells a shape of bounding sphere `b` covers for particles of radius at most `reach`
/// (twin of `rigid_cells_range`; see the module docs for the margin).
pub fn shape_cells(b: Vec4, reach: f32, slop: f32, inv: f32) -> ShapeCells {
    if b.w == -1.0 {
        return ShapeCells::None;
    }
    if b.w < 0.0 {
        return ShapeCells::Large;
    }
    let c = b.xyz();
    let ext = b.w + reach + slop;
    let e = ext * (1.0 + 1.0 / 256.0) + (c.abs().max_element() + ext) * (1.0 / 1_048_576.0);
    // Beyond 1e18 the squares in `rigid_bound_near` overflow and accept everything.
    if !(e < 1e18 && c.is_finite()) {
        return ShapeCells::Large;
    }
    let lo = ((c - Vec3::splat(e)) * inv).floor();
    let hi = ((c + Vec3::splat(e)) * inv).floor();
    if (hi - lo).max_element() > (CELL_SPAN - 1) as f32 {
        return ShapeCells::Large;
    }
    ShapeCells::Cells {
        lo: [lo.x as i32, lo.y as i32, lo.z as i32],
        hi: [hi.x as i32, hi.y as i32, hi.z as i32],
    }
}

/// The bucket of cell `c` among `buckets` (a power of two; twin of `rigid_cell_hash`).
pub fn cell_hash(c: [i32; 3], buckets: u32) -> u32 {
    ((c[0] as u32).wrapping_mul(73_856_093)
        ^ (c[1] as u32).wrapping_mul(19_349_663)
        ^ (c[2] as u32).wrapping_mul(83_492_791))
        & (buckets - 1)
}

/// The grid stage `rigid_cells` builds (the CPU's copy of the GPU's buffer).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RigidCellsGrid {
    /// The largest radius of a live particle that moves (0 for none or only negative radii).
    pub reach: f32,
    /// Each shape slot's bounding sphere ([`rigid_shape_bound`]).
    pub bounds: Vec<Vec4>,
    /// Bucket `h` holds `entries[start[h]..start[h + 1]]`; bucket `params.rigid_buckets` is the
    /// large one.
    pub start: Vec<u32>,
    /// Shape slots, ascending within each bucket (a slot may repeat when two of its cells share
    /// a bucket).
    pub entries: Vec<u32>,
}

/// Calls `f` with the bucket of every cell of `cells` (the large bucket is `buckets`).
fn each_bucket(cells: ShapeCells, buckets: u32, mut f: impl FnMut(u32)) {
    match cells {
        ShapeCells::None => {}
        ShapeCells::Large => f(buckets),
        ShapeCells::Cells { lo, hi } => {
            for x in lo[0]..=hi[0] {
                for y in lo[1]..=hi[1] {
                    for z in lo[2]..=hi[2] {
                        f(cell_hash([x, y, z], buckets));
                    }
                }
            }
        }
    }
}

/// Stage `rigid_cells`: the grid over the first `params.rigid_shape_count` shape slots at
/// their bodies' present poses, for the live particles of `s` (twin of its five kernels:
/// the reach, the counts per bucket, their scan, the fill and the sort of each bucket).
pub fn rigid_cells(
    s: &CpuState,
    params: &GpuParams,
    bodies: &[GpuBody],
    shapes: &[GpuShape],
) -> RigidCellsGrid {
    let shapes = &shapes[..(params.rigid_shape_count as usize).min(shapes.len())];
    let buckets = params.rigid_buckets;
    // rigid_cells_reach: the largest non-negative radius as bits (monotone for them).
    let mut reach_bits = 0u32;
    for i in 0..s.counters.live as usize {
        let bits = s.size[i].to_bits();
        if s.acc[i].w > 0.0 && bits < 0x8000_0000 {
            reach_bits = reach_bits.max(bits);
        }
    }
    let reach = f32::from_bits(reach_bits);
    // rigid_cells_count, rigid_cells_scan (which also writes the large bucket, in slot order),
    // rigid_cells_fill; filling in slot order leaves each bucket ascending, as rigid_cells_sort
    // does.
    let bounds: Vec<Vec4> = shapes
        .iter()
        .map(|shape| rigid_shape_bound(shape, bodies))
        .collect();
    let cells: Vec<ShapeCells> = bounds
        .iter()
        .map(|&b| shape_cells(b, reach, params.contact_slop, params.rigid_cell_inv))
        .collect();
    let mut start = vec![0u32; buckets as usize + 2];
    for &c in &cells {
        each_bucket(c, buckets, |h| start[h as usize] += 1);
    }
    let mut total = 0;
    for v in &mut start {
        let n = *v;
        *v = total;
        total += n;
    }
    let mut cursor = start.clone();
    let mut entries = vec![0u32; total as usize];
    for (slot, &c) in cells.iter().enumerate() {
        each_bucket(c, buckets, |h| {
            entries[cursor[h as usize] as usize] = slot as u32;
            cursor[h as usize] += 1;
        });
    }
    RigidCellsGrid {
        reach,
        bounds,
        start,
        entries,
    }
}

/// Stage `rigid_contacts_cells`: every live particle against the shapes of its cell's bucket
/// and of the large bucket of `grid`, in slot order (twin of `rigid_contacts_cells` in
/// rigid_cells.wgsl): the same contacts as [`super::rigid::rigid_contacts`], bit for bit.
pub fn rigid_contacts_cells(
    s: &mut CpuState,
    params: &GpuParams,
    bodies: &[GpuBody],
    shapes: &[GpuShape],
    grid: &RigidCellsGrid,
) {
    let (buckets, inv) = (params.rigid_buckets, params.rigid_cell_inv);
    let e = &grid.entries;
    let range = |h: u32| (grid.start[h as usize], grid.start[h as usize + 1]);
    let (large, large_end) = range(buckets);
    for i in 0..s.counters.live as usize {
        let Some(mut spark) = Spark::of(s, params, i) else {
            continue;
        };
        let mut home = cell_hash(cell_of(spark.p, inv), buckets);
        let (mut a, mut a_end) = range(home);
        let mut b = large;
        // The next slot to visit: every slot below it is done.
        let mut next = 0u32;
        loop {
            while a < a_end && e[a as usize] < next {
                a += 1;
            }
            while b < large_end && e[b as usize] < next {
                b += 1;
            }
            let slot = match (a < a_end, b < large_end) {
                (true, true) => e[a as usize].min(e[b as usize]),
                (true, false) => e[a as usize],
                (false, true) => e[b as usize],
                (false, false) => break,
            };
            next = slot + 1;
            let k = slot as usize;
            if spark.touch(params, &shapes[k], grid.bounds[k], bodies) {
                // Moved: the rest of the slots come from the bucket of its new cell.
                let h = cell_hash(cell_of(spark.p, inv), buckets);
                if h != home {
                    home = h;
                    (a, a_end) = range(h);
                }
            }
        }
        spark.store(s, i);
    }
}
