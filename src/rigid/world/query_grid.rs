//! The host's query index: the broad phase's hashed grid, built from the same plan
//! ([`broad::plan_grid`] with the world's contact margin: the same cell size and large list)
//! over the bodies a query reads, so scene queries visit the cells near them instead of every
//! shape.
//!
//! Why the answers equal a scan of every shape: a *small* shape sits in the one cell of its
//! centre, and its bounding box (even grown by the margin) spans at most one cell, so it lies
//! within half a cell of its centre on every axis ([`broad`]'s invariant). Whatever a query
//! finds in a small shape (a point inside it, a box meeting its bounding box, a ray's hit point)
//! lies in its bounding box, so the shape's cell is at most one cell away from the cell of that
//! place: a point query visits the 27 cells around the point, a box query the cells the box
//! covers and one more on every side, a ray the 27 cells around every cell it crosses (a 3-D DDA
//! walk). *Large* shapes (planes, half-spaces, the biggest shapes) are tested every time. A
//! shape is taken only through the visited cell that is its own (two cells may share a hash
//! key), so none is tested twice. A box or ray that would visit more cells than there are
//! shapes tests every shape instead (the same answers, at a scan's cost).
//!
//! The index is built on the first query after the bodies moved or the shapes changed, and kept
//! for the next ones (`QueryKey`: the world's count of changes to its host bodies and shapes,
//! or the copy of the bodies from the GPU that the queries read, held so that it stays the same
//! copy).

use super::*;
use crate::grid::{cell_key, cell_of, CpuGrid};
use crate::rigid::ray::Ray;
use glam::IVec3;

/// What an index was built from: the world's change count, the copy of the GPU's bodies read
/// (else the host's), the contact margin, and the counts of shapes and bodies.
#[derive(Clone)]
pub(super) struct QueryKey {
    pub(super) epoch: u64,
    pub(super) snapshot: Option<crate::rigid::BodySnapshot>,
    pub(super) margin: f32,
    pub(super) shapes: usize,
    pub(super) bodies: usize,
}

impl QueryKey {
    fn same(&self, o: &QueryKey) -> bool {
        let snapshots = match (&self.snapshot, &o.snapshot) {
            (None, None) => true,
            // The index holds its copy, so an equal address is the same copy.
            (Some(a), Some(b)) => std::ptr::eq(a.raw().as_ptr(), b.raw().as_ptr()),
            _ => false,
        };
        snapshots
            && self.epoch == o.epoch
            && self.margin.to_bits() == o.margin.to_bits()
            && self.shapes == o.shapes
            && self.bodies == o.bodies
    }
}

/// The index (see the module docs).
pub(super) struct QueryGrid {
    key: QueryKey,
    spec: GridSpec,
    grid: CpuGrid,
    /// The plan's large shapes, ascending.
    pub(super) large: Vec<u32>,
    /// Per shape, its own cell ([`cell_of`] its centre).
    cells: Vec<IVec3>,
    /// `shape_aabbs` output without a margin: per shape, world rotation, AABB min, AABB max.
    pub(super) xf: Vec<Vec4>,
}

impl QueryGrid {
    /// The index of `shapes` posed by `bodies`, planned with `key.margin` as the broad phase
    /// plans.
    pub(super) fn build(shapes: &[GpuShape], bodies: &[GpuBody], key: QueryKey) -> Result<Self> {
        let plan = broad::plan_grid(shapes, key.margin);
        let n = shapes.len();
        // Bounding boxes without the margin (queries test the shapes' own boxes); the centres do
        // not depend on it.
        let params = GpuRigidParams {
            body_count: bodies.len() as u32,
            shape_count: n as u32,
            ..GpuRigidParams::default()
        };
        let mut pos = vec![Vec4::ZERO; n];
        let mut xf = vec![Vec4::ZERO; 3 * n];
        broad::shape_aabbs(&params, bodies, shapes, &plan.large, &mut pos, &mut xf);
        let spec = plan.grid_spec(n as u32)?;
        let grid = CpuGrid::build(&pos, &spec)?;
        let cells = pos
            .iter()
            .map(|p| cell_of(p.xyz(), spec.cell_size))
            .collect();
        Ok(Self {
            key,
            spec,
            grid,
            large: plan.large,
            cells,
            xf,
        })
    }

    /// Whether this index was built for `key`.
    pub(super) fn fits(&self, key: &QueryKey) -> bool {
        self.key.same(key)
    }

    fn is_large(&self, i: u32) -> bool {
        self.large.binary_search(&i).is_ok()
    }

    /// Calls `f` with every small shape whose own cell is `c`.
    fn cell_shapes(&self, c: IVec3, f: &mut impl FnMut(u32)) {
        for s in self.grid.key_range(cell_key(c, self.spec.table_size)) {
            let Some(&i) = self.grid.sorted_index.get(s) else {
                continue;
            };
            if self.cells.get(i as usize) == Some(&c) && !self.is_large(i) {
                f(i);
            }
        }
    }

    /// Every shape that may hold a point of the box `lo..=hi` (the small shapes of the cells
    /// the box covers and one more on every side, then the large list), ascending; every shape
    /// when that is more cells than shapes.
    pub(super) fn box_candidates(&self, lo: Vec3, hi: Vec3) -> Vec<u32> {
        let (a, b) = (self.cell(lo) - 1, self.cell(hi) + 1);
        let cells = (b - a + 1).max(I64x3::splat(0));
        let count = cells.0.iter().map(|&c| c as f64).product::<f64>();
        if count > (self.key.shapes as f64).max(64.0) {
            return (0..self.key.shapes as u32).collect();
        }
        let mut out = Vec::new();
        for z in a.0[2]..=b.0[2] {
            for y in a.0[1]..=b.0[1] {
                for x in a.0[0]..=b.0[0] {
                    if let Some(c) = I64x3([x, y, z]).cell() {
                        self.cell_shapes(c, &mut |i| out.push(i));
                    }
                }
            }
        }
        out.extend_from_slice(&self.large);
        out.sort_unstable();
        out
    }

    fn cell(&self, p: Vec3) -> I64x3 {
        let c = cell_of(p, self.spec.cell_size);
        I64x3([i64::from(c.x), i64::from(c.y), i64::from(c.z)])
    }

    /// Walks `ray` cell by cell (a 3-D DDA over the grid), calling `visit(t_enter, shapes)`
    /// with the entry distance of each crossed cell and the small shapes of the 27 cells around
    /// it not passed before (all 27 for the first cell, then the 9 of the face it moved
    /// towards); stops when `visit` returns false or the ray ends. Returns false
    /// (and calls nothing) when the walk would cross more cells than there are shapes: test
    /// every shape then.
    pub(super) fn walk_ray(&self, ray: &Ray, mut visit: impl FnMut(f32, &[u32]) -> bool) -> bool {
        let cell = self.spec.cell_size;
        let (o, d, max_t) = (ray.origin(), ray.dir(), ray.max_t());
        let span = (d * max_t).abs() / cell;
        let crossings = f64::from(span.x) + f64::from(span.y) + f64::from(span.z) + 1.0;
        if !crossings.is_finite() || crossings > (self.key.shapes as f64).max(64.0) {
            return false;
        }
        let start = cell_of(o, cell);
        // The walk and its stencil stay inside the i32 cells (no wrapping).
        let reach = span.max_element() as i64 + 4;
        if start
            .to_array()
            .iter()
            .any(|&c| i64::from(c).abs() + reach > i64::from(i32::MAX))
        {
            return false;
        }
        let step = IVec3::new(
            if d.x >= 0.0 { 1 } else { -1 },
            if d.y >= 0.0 { 1 } else { -1 },
            if d.z >= 0.0 { 1 } else { -1 },
        );
        let next_t = |c: i32, s: i32, o: f32, d: f32| -> f32 {
            if d == 0.0 {
                return f32::INFINITY;
            }
            let edge = (c + i32::from(s > 0)) as f32 * cell;
            ((edge - o) / d).max(0.0)
        };
        let mut t_next = Vec3::new(
            next_t(start.x, step.x, o.x, d.x),
            next_t(start.y, step.y, o.y, d.y),
            next_t(start.z, step.z, o.z, d.z),
        );
        let t_step = Vec3::splat(cell) / d.abs();
        let mut c = start;
        let mut t_enter = 0.0f32;
        // The axis of the last step: the walk is monotone on every axis, so after a step along
        // it only the 9 stencil cells of the leading face are new.
        let mut entered: Option<usize> = None;
        let mut found = Vec::new();
        // The walk's length bound above also bounds its steps; the cap only guards rounding.
        let cap = crossings as usize + 4;
        for _ in 0..cap {
            if t_enter > max_t {
                break;
            }
            found.clear();
            for m in 0..crate::grid::STENCIL {
                let nc = crate::grid::neighbour_cell(c, m);
                if entered.is_none_or(|a| nc[a] == c[a] + step[a]) {
                    self.cell_shapes(nc, &mut |i| found.push(i));
                }
            }
            if !visit(t_enter, &found) {
                break;
            }
            let axis = if t_next.x <= t_next.y && t_next.x <= t_next.z {
                0
            } else if t_next.y <= t_next.z {
                1
            } else {
                2
            };
            t_enter = t_next[axis];
            t_next[axis] += t_step[axis];
            c[axis] += step[axis];
            entered = Some(axis);
        }
        true
    }
}

/// A cell in 64-bit coordinates, so one past the `i32` range does not wrap.
#[derive(Clone, Copy, Debug, PartialEq)]
struct I64x3([i64; 3]);

impl I64x3 {
    fn splat(v: i64) -> Self {
        Self([v; 3])
    }
    fn max(self, o: Self) -> Self {
        Self(std::array::from_fn(|k| self.0[k].max(o.0[k])))
    }
    /// The cell, when it is in the `i32` range.
    fn cell(self) -> Option<IVec3> {
        let [x, y, z] = self.0.map(i32::try_from);
        Some(IVec3::new(x.ok()?, y.ok()?, z.ok()?))
    }
}

impl std::ops::Sub<i64> for I64x3 {
    type Output = Self;
    fn sub(self, v: i64) -> Self {
        Self(self.0.map(|c| c - v))
    }
}

impl std::ops::Add<i64> for I64x3 {
    type Output = Self;
    fn add(self, v: i64) -> Self {
        Self(self.0.map(|c| c + v))
    }
}

impl std::ops::Sub for I64x3 {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Self(std::array::from_fn(|k| self.0[k] - o.0[k]))
    }
}
