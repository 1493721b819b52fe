//! [`HeightField`]: terrain as a grid of heights, two triangles a cell, found by cell rather
//! than by a tree.
//!
//! Samples are `rows × columns`, row-major; rows run along z and columns along x. As in
//! rapier, `scale` is the whole field's size: sample `(r, c)` sits at
//! `x = (c / (columns − 1) − ½)·scale.x`, `z = (r / (rows − 1) − ½)·scale.z`,
//! `y = height·scale.y`, so the field is centred on its origin. Cell `(r, c)` (between rows
//! r, r + 1 and columns c, c + 1) is cut along its diagonal from `(r, c)` to `(r + 1, c + 1)`
//! into triangle `2k` = `[(r, c), (r + 1, c), (r + 1, c + 1)]` and triangle `2k + 1` =
//! `[(r, c), (r + 1, c + 1), (r, c + 1)]`, with `k = r·(columns − 1) + c`; both face +y on a
//! flat field. A cell may be a hole: it has no triangles.

use super::{active_bits, classify_edges, ray_triangle, Aabb, TriangleHit};
use crate::error::{Error, Result};
use glam::Vec3;

/// Terrain: heights on a regular grid (see the module docs for the layout), met from above
/// only: one-sided, its triangles facing up (a surface to meet from both sides is a two-sided
/// [`super::TriMesh`]).
#[derive(Clone, Debug, PartialEq)]
pub struct HeightField {
    rows: u32,
    columns: u32,
    heights: Vec<f32>,
    scale: Vec3,
    holes: Vec<bool>,
    active: Vec<u8>,
}

impl HeightField {
    /// A heightfield of `rows × columns` samples (row-major `heights`) spanning `scale`.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for fewer than 2 × 2 samples, a height count other than
    /// `rows·columns`, a height that is not finite, or a scale that is not positive and
    /// finite.
    pub fn new(rows: u32, columns: u32, heights: &[f32], scale: Vec3) -> Result<HeightField> {
        Self::with_holes(rows, columns, heights, scale, &[])
    }

    /// As [`HeightField::new`], with the cells of `holes` (`(row, column)` of the cell's
    /// first corner) left open: a body falls through them.
    ///
    /// # Errors
    /// As [`HeightField::new`]; [`Error::InvalidInput`] for a hole outside the cells.
    pub fn with_holes(
        rows: u32,
        columns: u32,
        heights: &[f32],
        scale: Vec3,
        holes: &[(u32, u32)],
    ) -> Result<HeightField> {
        if rows < 2 || columns < 2 {
            return Err(Error::InvalidInput {
                what: "heightfield size",
                value: format!("{rows} × {columns} samples"),
                fix: "give at least 2 × 2 samples (one cell)",
            });
        }
        // Triangle ids are u32: 2·(rows − 1)·(columns − 1) of them must fit.
        if 2 * (u64::from(rows) - 1) * (u64::from(columns) - 1) > u64::from(u32::MAX) {
            return Err(Error::InvalidInput {
                what: "heightfield size",
                value: format!("{rows} × {columns} samples"),
                fix: "split the terrain into several heightfields of fewer than 2³¹ cells",
            });
        }
        let n = rows as usize * columns as usize;
        if heights.len() != n {
            return Err(Error::InvalidInput {
                what: "heightfield heights",
                value: format!("{} heights for {rows} × {columns} samples", heights.len()),
                fix: "give rows · columns heights, row by row",
            });
        }
        if let Some((i, h)) = heights.iter().enumerate().find(|(_, h)| !h.is_finite()) {
            return Err(Error::InvalidInput {
                what: "heightfield height",
                value: format!(
                    "height {i} (row {}, column {}) = {h}",
                    i / columns as usize,
                    i % columns as usize
                ),
                fix: "pass finite heights; leave cells open with HeightField::with_holes",
            });
        }
        if !(scale.is_finite() && scale.cmpgt(Vec3::ZERO).all()) {
            return Err(Error::InvalidInput {
                what: "heightfield scale",
                value: format!("{scale}"),
                fix: "pass the field's size along x, its height scale and its size along z, all positive",
            });
        }
        let cells = (rows as usize - 1) * (columns as usize - 1);
        let mut hole = vec![false; cells];
        for &(r, c) in holes {
            if r + 1 >= rows || c + 1 >= columns {
                return Err(Error::InvalidInput {
                    what: "heightfield hole",
                    value: format!("cell ({r}, {c}) of {} × {} cells", rows - 1, columns - 1),
                    fix: "name a cell by its first row and column, below rows − 1 and columns − 1",
                });
            }
            hole[(r * (columns - 1) + c) as usize] = true;
        }
        let mut field = HeightField {
            rows,
            columns,
            heights: heights.to_vec(),
            scale,
            holes: hole,
            active: Vec::new(),
        };
        field.active = field.edge_bits();
        Ok(field)
    }

    /// The heights as given, row-major (multiply by `scale.y` for y).
    pub fn heights(&self) -> &[f32] {
        &self.heights
    }

    /// Samples along z.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Samples along x.
    pub fn columns(&self) -> u32 {
        self.columns
    }

    /// The size along x, the height scale and the size along z.
    pub fn scale(&self) -> Vec3 {
        self.scale
    }

    /// Triangle ids run over `0..2·(rows − 1)·(columns − 1)`; a hole's two ids name nothing.
    pub fn triangle_slots(&self) -> u32 {
        2 * (self.rows - 1) * (self.columns - 1)
    }

    /// The sample `(r, c)` in the field's frame.
    pub fn point(&self, r: u32, c: u32) -> Vec3 {
        let h = self.heights[(r * self.columns + c) as usize];
        Vec3::new(
            (c as f32 / (self.columns - 1) as f32 - 0.5) * self.scale.x,
            h * self.scale.y,
            (r as f32 / (self.rows - 1) as f32 - 0.5) * self.scale.z,
        )
    }

    /// Whether the cell of triangle `t` is a hole.
    pub fn is_hole(&self, t: u32) -> bool {
        self.holes.get((t / 2) as usize).copied().unwrap_or(true)
    }

    /// Triangle `t`'s corners (see the module docs), `None` for a hole or an id past the end.
    pub fn triangle(&self, t: u32) -> Option<[Vec3; 3]> {
        if t >= self.triangle_slots() || self.is_hole(t) {
            return None;
        }
        let k = t / 2;
        let (r, c) = (k / (self.columns - 1), k % (self.columns - 1));
        let p = |dr, dc| self.point(r + dr, c + dc);
        Some(if t.is_multiple_of(2) {
            [p(0, 0), p(1, 0), p(1, 1)]
        } else {
            [p(0, 0), p(1, 1), p(0, 1)]
        })
    }

    /// Triangle `t`'s active-edge bits (as [`super::TriMesh::active_edges`]); 0 for a hole.
    pub fn active_edges(&self, t: u32) -> u8 {
        self.active.get(t as usize).copied().unwrap_or(0)
    }

    /// The box around the field.
    pub fn aabb(&self) -> Aabb {
        let (lo, hi) = self
            .heights
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &h| {
                (lo.min(h), hi.max(h))
            });
        Aabb {
            min: Vec3::new(-0.5 * self.scale.x, lo * self.scale.y, -0.5 * self.scale.z),
            max: Vec3::new(0.5 * self.scale.x, hi * self.scale.y, 0.5 * self.scale.z),
        }
    }

    /// The triangles whose boxes overlap `query`, ascending: the cells under the query's
    /// footprint, each kept when its heights reach the query's y range.
    pub fn query_aabb(&self, query: &Aabb) -> Vec<u32> {
        let mut out = Vec::new();
        let Some((r0, r1, c0, c1)) = self.cell_range(query) else {
            return out;
        };
        for r in r0..=r1 {
            for c in c0..=c1 {
                let k = r * (self.columns - 1) + c;
                for t in [2 * k, 2 * k + 1] {
                    if let Some(tri) = self.triangle(t) {
                        let b = tri.iter().fold(Aabb::EMPTY, |b, &p| b.with(p));
                        if b.overlaps(query) {
                            out.push(t);
                        }
                    }
                }
            }
        }
        out
    }

    /// The nearest triangle `origin + t·dir` crosses for `t` in `[0, max_t]`, from either
    /// side, walking the cells the ray's footprint crosses in order (Amanatides–Woo), so the
    /// first cell with a hit holds the nearest one; of a cell's two triangles the nearer hit
    /// wins, the even one on a tie (a hit on a cell's border may be found in either cell).
    pub fn cast_ray(&self, origin: Vec3, dir: Vec3, max_t: f32) -> Option<TriangleHit> {
        cast_ray_cells(
            self.aabb(),
            self.rows - 1,
            self.columns - 1,
            |t| self.triangle(t),
            origin,
            dir,
            max_t,
        )
    }

    /// A cell's size along x and z.
    fn cell_size(&self) -> (f32, f32) {
        (
            self.scale.x / (self.columns - 1) as f32,
            self.scale.z / (self.rows - 1) as f32,
        )
    }

    /// The cells (rows r0..=r1, columns c0..=c1) under `query`'s footprint, `None` when it
    /// misses the field.
    fn cell_range(&self, query: &Aabb) -> Option<(u32, u32, u32, u32)> {
        let b = self.aabb();
        if !b.overlaps(query) {
            return None;
        }
        let (cw, cd) = self.cell_size();
        let idx = |v: f32, lo: f32, size: f32, n: u32| {
            (((v - lo) / size).floor().max(0.0) as u32).min(n - 1)
        };
        Some((
            idx(query.min.z, b.min.z, cd, self.rows - 1),
            idx(query.max.z, b.min.z, cd, self.rows - 1),
            idx(query.min.x, b.min.x, cw, self.columns - 1),
            idx(query.max.x, b.min.x, cw, self.columns - 1),
        ))
    }

    /// Active-edge bits of every triangle slot, classified over the field as one mesh.
    fn edge_bits(&self) -> Vec<u8> {
        let vertices: Vec<Vec3> = (0..self.rows)
            .flat_map(|r| (0..self.columns).map(move |c| (r, c)))
            .map(|(r, c)| self.point(r, c))
            .collect();
        let id = |r: u32, c: u32| r * self.columns + c;
        let mut slots = Vec::new();
        let mut tris = Vec::new();
        for t in 0..self.triangle_slots() {
            if self.is_hole(t) {
                continue;
            }
            let k = t / 2;
            let (r, c) = (k / (self.columns - 1), k % (self.columns - 1));
            tris.push(if t.is_multiple_of(2) {
                [id(r, c), id(r + 1, c), id(r + 1, c + 1)]
            } else {
                [id(r, c), id(r + 1, c + 1), id(r, c + 1)]
            });
            slots.push(t);
        }
        let bits = active_bits(&classify_edges(&vertices, &tris));
        let mut out = vec![0u8; self.triangle_slots() as usize];
        for (t, b) in slots.into_iter().zip(bits) {
            out[t as usize] = b;
        }
        out
    }
}

/// The ray walk of [`HeightField::cast_ray`] over a field of `rows × cols` cells spanning
/// `bounds` (x and z; its y range bounds the heights), with `triangle(t)` giving triangle slot
/// `t`'s corners (`None` for a hole): the cells the ray's footprint crosses, in order
/// (Amanatides–Woo), so the first cell with a hit holds the nearest one; of a cell's two
/// triangles the nearer hit wins, the even one on a tie. Shared by the host field and the
/// world's stored copy (`super::layout`), so both hit the same triangle.
pub(crate) fn cast_ray_cells(
    bounds: Aabb,
    rows: u32,
    cols: u32,
    triangle: impl Fn(u32) -> Option<[Vec3; 3]>,
    origin: Vec3,
    dir: Vec3,
    max_t: f32,
) -> Option<TriangleHit> {
    if rows == 0 || cols == 0 {
        return None;
    }
    let (t_in, t_out) = bounds.ray_interval(origin, dir.recip(), max_t)?;
    let cw = (bounds.max.x - bounds.min.x) / cols as f32;
    let cd = (bounds.max.z - bounds.min.z) / rows as f32;
    let start = origin + dir * t_in;
    let cell =
        |v: f32, lo: f32, size: f32, n: u32| (((v - lo) / size).floor().max(0.0) as u32).min(n - 1);
    let mut c = cell(start.x, bounds.min.x, cw, cols);
    let mut r = cell(start.z, bounds.min.z, cd, rows);
    // Per axis: the step, the ray parameter of the next cell boundary, and the parameter
    // to cross one cell.
    let axis = |d: f32, p: f32, lo: f32, size: f32, i: u32| -> (i32, f32, f32) {
        if d > 0.0 {
            (1, (lo + (i + 1) as f32 * size - p) / d, size / d)
        } else if d < 0.0 {
            (-1, (lo + i as f32 * size - p) / d, -size / d)
        } else {
            (0, f32::INFINITY, f32::INFINITY)
        }
    };
    let (sx, mut next_x, dx) = axis(dir.x, origin.x, bounds.min.x, cw, c);
    let (sz, mut next_z, dz) = axis(dir.z, origin.z, bounds.min.z, cd, r);
    loop {
        let k = r * cols + c;
        let mut best: Option<TriangleHit> = None;
        for t in [2 * k, 2 * k + 1] {
            if let Some([a, b, cc]) = triangle(t) {
                if let Some(th) = ray_triangle(origin, dir, max_t, a, b, cc) {
                    if best.is_none_or(|h| th < h.t) {
                        best = Some(TriangleHit {
                            t: th,
                            triangle: t,
                            normal: (b - a).cross(cc - a).normalize(),
                        });
                    }
                }
            }
        }
        // A hit found in this cell is the nearest: the cells ahead lie at larger t.
        if best.is_some() {
            return best;
        }
        let step_x = next_x <= next_z;
        let t_next = if step_x { next_x } else { next_z };
        if t_next > t_out {
            return None;
        }
        if step_x {
            let n = c as i32 + sx;
            if n < 0 || n >= cols as i32 {
                return None;
            }
            c = n as u32;
            next_x += dx;
        } else {
            let n = r as i32 + sz;
            if n < 0 || n >= rows as i32 {
                return None;
            }
            r = n as u32;
            next_z += dz;
        }
    }
}
