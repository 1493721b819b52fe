//! GJK distance between two convex shapes (Gilbert, Johnson, Keerthi 1988, in van den Bergen's
//! form; catalogue 001-A): the distance, the closest points and the separating normal, or a
//! verdict that the cores overlap (then [`super::epa()`] finds the depth).
//!
//! The iteration keeps a point v of the Minkowski difference A − B (first the difference of the
//! shapes' centres, then the point of the current simplex closest to the origin). Each step
//! takes w = s_A(−v) − s_B(v), the support of A − B towards the origin. |v| is an upper bound on
//! the distance and v·w/|v| a lower bound; the loop stops when they are within the tolerance,
//! when the simplex holds the origin (4 points), when |v| falls within the tolerance (touching:
//! treated as overlap), or when rounding stops |v| from shrinking (the last simplex is kept).
//! The sub-simplex solvers (segment, triangle, tetrahedron) find the closest point of the
//! simplex to the origin by Voronoi regions, branch by branch (Ericson 2005 §5.1), and keep only
//! the vertices that support it, with their barycentric weights, from which the closest points
//! on A and B follow.
//!
//! The cores (point, segment, box, hull) are polytopes, so GJK ends in finitely many steps in
//! exact arithmetic; the radii are subtracted afterwards. All points are taken relative to shape
//! b's frame origin, so the rounding depends on the pair's size and separation, not on where the
//! pair is in the world.
//!
//! Tolerance: the stop test allows a gap of `GJK_REL_TOL · L` between the bounds, with L = the
//! distance between the shapes' centres plus both core bounds (the size of the support points
//! w). The dot products v·v and v·w round at a few ulps of |v|·L, and the support points
//! themselves carry the rotation's rounding, a few ulps of L; 1e-5 (about 84 ulps) is well
//! above that floor, so the loop ends by convergence rather than by the iteration cap, and it
//! is far below any contact margin.
//!
//! WGSL: the simplex is a struct of fixed arrays of 4; the loop runs at most
//! [`GJK_MAX_ITERATIONS`] times; no recursion.

// Index loops, as the WGSL twin writes them.
#![allow(clippy::needless_range_loop)]

use glam::Vec3;

use super::support::ConvexShape;
use glam::UVec4;

/// Most GJK iterations. Each adds a support point of a polytope with at most 64 + 64 vertices
/// per shape; convergence within the tolerance takes far fewer (typically under 10).
pub const GJK_MAX_ITERATIONS: u32 = 64;
/// Stop when the upper and lower distance bounds are within this fraction of the pair's scale
/// (see the module docs).
pub const GJK_REL_TOL: f32 = 1e-5;

/// A GJK simplex: up to 4 points of A − B with the support points of A and B that made them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Simplex {
    /// Points in use, 0..=4.
    pub count: u32,
    /// Points of A − B (relative to [`GjkOutput::origin`]).
    pub w: [Vec3; 4],
    /// The support points on A (relative to the same origin).
    pub a: [Vec3; 4],
    /// The support points on B (relative to the same origin).
    pub b: [Vec3; 4],
}

impl Simplex {
    fn push(&mut self, w: Vec3, a: Vec3, b: Vec3) {
        let k = (self.count as usize).min(3);
        self.w[k] = w;
        self.a[k] = a;
        self.b[k] = b;
        self.count = k as u32 + 1;
    }

    /// Keeps the vertices `idx[..n]` in that order.
    fn keep(&mut self, idx: [usize; 3], n: u32) {
        let old = *self;
        for k in 0..(n as usize).min(3) {
            self.w[k] = old.w[idx[k]];
            self.a[k] = old.a[idx[k]];
            self.b[k] = old.b[idx[k]];
        }
        self.count = n;
    }
}

/// What GJK found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GjkOutput {
    /// Distance between the shapes (core distance minus both radii; negative when only the radii
    /// overlap). When `overlap` is set the cores intersect and this is −(ra + rb).
    pub distance: f32,
    /// Distance between the cores (0 on overlap).
    pub core_distance: f32,
    /// Closest point on shape a's surface (world).
    pub point_a: Vec3,
    /// Closest point on shape b's surface (world).
    pub point_b: Vec3,
    /// Unit normal from b to a (pushes a away); zero on overlap.
    pub normal: Vec3,
    /// The cores intersect, or are within the tolerance of touching: use EPA for the depth.
    pub overlap: bool,
    /// Iterations run.
    pub iterations: u32,
    /// The final simplex (relative to `origin`), EPA's start.
    pub simplex: Simplex,
    /// World point the simplex is relative to (shape b's frame origin).
    pub origin: Vec3,
    /// The distance tolerance used, `GJK_REL_TOL · L`.
    pub tolerance: f32,
}

/// The pair's scale L: centre distance plus both core bounds (see the module docs).
pub(crate) fn pair_scale(a: &ConvexShape, b: &ConvexShape) -> f32 {
    (a.centre() - b.centre()).length() + a.core_bound() + b.core_bound()
}

/// GJK distance between shapes `a` and `b` (see the module docs).
pub fn gjk(store: &[UVec4], a: &ConvexShape, b: &ConvexShape) -> GjkOutput {
    let origin = b.frame.pos;
    let ca = a.centre() - origin;
    let cb = b.centre() - origin;
    let scale = pair_scale(a, b);
    let tol = GJK_REL_TOL * scale;
    let mut s = Simplex::default();
    let mut v = ca - cb;
    let mut pa = ca;
    let mut pb = cb;
    let mut dist2 = v.dot(v);
    let mut overlap = dist2 <= tol * tol;
    let mut iterations = 0u32;
    if !overlap {
        for it in 0..GJK_MAX_ITERATIONS {
            iterations = it + 1;
            let sa = a.support(store, -v) - origin;
            let sb = b.support(store, v) - origin;
            let w = sa - sb;
            if dist2 - v.dot(w) <= tol * dist2.sqrt() {
                break;
            }
            let mut repeat = false;
            for k in 0..s.count as usize {
                if s.w[k] == w {
                    repeat = true;
                }
            }
            if repeat {
                break;
            }
            let prev = s;
            s.push(w, sa, sb);
            let mut lam = [0.0f32; 4];
            let inside = solve(&mut s, &mut lam, tol);
            if inside {
                overlap = true;
                break;
            }
            let mut nv = Vec3::ZERO;
            let mut na = Vec3::ZERO;
            let mut nb = Vec3::ZERO;
            for k in 0..s.count as usize {
                nv += s.w[k] * lam[k];
                na += s.a[k] * lam[k];
                nb += s.b[k] * lam[k];
            }
            let nd2 = nv.dot(nv);
            if nd2 >= dist2 && prev.count > 0 {
                // Rounding stopped the progress: keep the previous simplex and point. (The first
                // point may be farther than the centres' difference it replaces.)
                s = prev;
                break;
            }
            v = nv;
            pa = na;
            pb = nb;
            dist2 = nd2;
            if dist2 <= tol * tol {
                overlap = true;
                break;
            }
        }
    }
    let ra = a.radius();
    let rb = b.radius();
    if overlap {
        return GjkOutput {
            distance: -(ra + rb),
            core_distance: 0.0,
            point_a: pa + origin,
            point_b: pb + origin,
            normal: Vec3::ZERO,
            overlap: true,
            iterations,
            simplex: s,
            origin,
            tolerance: tol,
        };
    }
    let d = dist2.sqrt();
    let n = v / d;
    GjkOutput {
        distance: d - ra - rb,
        core_distance: d,
        point_a: pa - n * ra + origin,
        point_b: pb + n * rb + origin,
        normal: n,
        overlap: false,
        iterations,
        simplex: s,
        origin,
        tolerance: tol,
    }
}

/// Reduces `s` to the sub-simplex supporting its point closest to the origin, writing the
/// barycentric weights to `lam`. Returns true when the origin lies inside a tetrahedron.
fn solve(s: &mut Simplex, lam: &mut [f32; 4], tol: f32) -> bool {
    match s.count {
        1 => {
            lam[0] = 1.0;
            false
        }
        2 => {
            solve_segment(s, lam);
            false
        }
        3 => {
            solve_triangle(s, lam);
            false
        }
        _ => solve_tetrahedron(s, lam, tol),
    }
}

/// Closest point of the segment p–q to the origin: (t, point), the point p + t(q − p).
fn segment_closest(p: Vec3, q: Vec3) -> (f32, Vec3) {
    let pq = q - p;
    let num = -p.dot(pq);
    if num <= 0.0 {
        return (0.0, p);
    }
    let den = pq.dot(pq);
    if num >= den {
        return (1.0, q);
    }
    let t = num / den;
    (t, p + pq * t)
}

/// Segment w0–w1.
fn solve_segment(s: &mut Simplex, lam: &mut [f32; 4]) {
    let (t, _) = segment_closest(s.w[0], s.w[1]);
    if t <= 0.0 {
        s.keep([0, 0, 0], 1);
        lam[0] = 1.0;
    } else if t >= 1.0 {
        s.keep([1, 0, 0], 1);
        lam[0] = 1.0;
    } else {
        lam[0] = 1.0 - t;
        lam[1] = t;
    }
}

/// Keeps edge (i, j) of the simplex with weight t on j.
fn keep_edge(s: &mut Simplex, lam: &mut [f32; 4], i: usize, j: usize, t: f32) {
    s.keep([i, j, 0], 2);
    lam[0] = 1.0 - t;
    lam[1] = t;
}

/// Triangle w0 w1 w2, by its seven Voronoi regions (vertices, edges, face).
fn solve_triangle(s: &mut Simplex, lam: &mut [f32; 4]) {
    let a = s.w[0];
    let b = s.w[1];
    let c = s.w[2];
    let ab = b - a;
    let ac = c - a;
    let d1 = -ab.dot(a);
    let d2 = -ac.dot(a);
    if d1 <= 0.0 && d2 <= 0.0 {
        s.keep([0, 0, 0], 1);
        lam[0] = 1.0;
        return;
    }
    let d3 = -ab.dot(b);
    let d4 = -ac.dot(b);
    if d3 >= 0.0 && d4 <= d3 {
        s.keep([1, 0, 0], 1);
        lam[0] = 1.0;
        return;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let den = d1 - d3;
        let t = if den > 0.0 { d1 / den } else { 0.0 };
        keep_edge(s, lam, 0, 1, t);
        return;
    }
    let d5 = -ab.dot(c);
    let d6 = -ac.dot(c);
    if d6 >= 0.0 && d5 <= d6 {
        s.keep([2, 0, 0], 1);
        lam[0] = 1.0;
        return;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let den = d2 - d6;
        let t = if den > 0.0 { d2 / den } else { 0.0 };
        keep_edge(s, lam, 0, 2, t);
        return;
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let den = (d4 - d3) + (d5 - d6);
        let t = if den > 0.0 { (d4 - d3) / den } else { 0.0 };
        keep_edge(s, lam, 1, 2, t);
        return;
    }
    let sum = va + vb + vc;
    if sum > 0.0 {
        let v = vb / sum;
        let w = vc / sum;
        lam[0] = 1.0 - v - w;
        lam[1] = v;
        lam[2] = w;
        return;
    }
    // A triangle with no area (rounding put it in no region): its closest edge.
    let mut best_i = 0usize;
    let mut best_j = 1usize;
    let (mut best_t, p) = segment_closest(a, b);
    let mut best_d = p.dot(p);
    let pairs = [(0usize, 2usize), (1, 2)];
    for (i, j) in pairs {
        let (t, q) = segment_closest(s.w[i], s.w[j]);
        let dq = q.dot(q);
        if dq < best_d {
            best_d = dq;
            best_i = i;
            best_j = j;
            best_t = t;
        }
    }
    keep_edge(s, lam, best_i, best_j, best_t);
    if best_t <= 0.0 {
        s.keep([0, 0, 0], 1);
        lam[0] = 1.0;
    } else if best_t >= 1.0 {
        s.keep([1, 0, 0], 1);
        lam[0] = 1.0;
    }
}

/// Tetrahedron w0..w3: the origin is inside unless it lies outside some face (on the other side
/// from the fourth vertex); then the closest of those faces' triangles. A tetrahedron whose
/// height above a face is within `tol` is flat and cannot hold the origin: all four faces are
/// tried.
fn solve_tetrahedron(s: &mut Simplex, lam: &mut [f32; 4], tol: f32) -> bool {
    const FACES: [[usize; 4]; 4] = [[0, 1, 2, 3], [0, 2, 3, 1], [0, 3, 1, 2], [1, 3, 2, 0]];
    let mut outside = [false; 4];
    let mut any = false;
    let mut flat = false;
    for (f, idx) in FACES.iter().enumerate() {
        let p = s.w[idx[0]];
        let n = (s.w[idx[1]] - p).cross(s.w[idx[2]] - p);
        let so = -n.dot(p);
        let sl = n.dot(s.w[idx[3]] - p);
        let nl = n.dot(n).sqrt();
        // NaN (no area) counts as flat too.
        let solid = sl.abs() > tol * nl;
        if !solid {
            flat = true;
        }
        outside[f] = so * sl < 0.0;
        any = any || outside[f];
    }
    if !any && !flat {
        return true;
    }
    let mut best = Simplex::default();
    let mut best_lam = [0.0f32; 4];
    let mut best_d = f32::MAX;
    for (f, idx) in FACES.iter().enumerate() {
        if !(outside[f] || flat) {
            continue;
        }
        let mut t = *s;
        t.keep([idx[0], idx[1], idx[2]], 3);
        let mut tl = [0.0f32; 4];
        solve_triangle(&mut t, &mut tl);
        let mut p = Vec3::ZERO;
        for k in 0..t.count as usize {
            p += t.w[k] * tl[k];
        }
        let d = p.dot(p);
        if d < best_d {
            best_d = d;
            best = t;
            best_lam = tl;
        }
    }
    *s = best;
    *lam = best_lam;
    false
}
