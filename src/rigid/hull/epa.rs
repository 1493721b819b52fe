//! EPA, the expanding polytope algorithm (van den Bergen 2001; catalogue 001-A): penetration
//! depth and normal of two shapes whose cores overlap, starting from GJK's final simplex.
//!
//! The simplex is first grown to a tetrahedron of A − B (support points along the directions
//! that add the most new extent). Then, repeatedly: the polytope face nearest the origin gives a
//! direction n; the support point w of A − B along n is found; if it lies within the tolerance
//! of that face's plane, the face is (to the tolerance) on the boundary of A − B and its
//! distance is the depth. Otherwise w is added: the faces that see it are removed, their
//! boundary edges are kept (an edge shared by two removed faces cancels), and each boundary
//! edge makes a new face with w. The face distance is signed by the polytope's own outward
//! normals, so a polytope whose origin sits on or just outside its boundary (touching shapes)
//! still gives a small, possibly negative, depth.
//!
//! Fixed-size arrays (the WGSL twin's private arrays), with their bounds:
//! - [`EPA_MAX_VERTICES`] = 32 vertices (each with its A and B support points);
//! - [`EPA_MAX_FACES`] = 64 faces: a closed triangulated polytope of V vertices has 2V − 4
//!   faces, at most 60;
//! - [`EPA_MAX_EDGES`] = 96 boundary edges: at most the polytope's 3V − 6 ≤ 90 edges.
//!
//! So only the vertex array can run out: then, or after [`EPA_MAX_ITERATIONS`], or if rounding
//! makes the polytope inconsistent (a horizon that no longer fits), EPA stops and returns the
//! best face found with `converged` false. Its distance is still a lower bound on the depth (the
//! polytope lies inside A − B) and its normal a direction in which the shapes overlap by about
//! that much.
//!
//! Tolerance: the same gap as GJK's, `GJK_REL_TOL · L` (see `gjk.rs`): the face distance and
//! n·w are dot products of unit normals with points of size L.

// Index loops, as the WGSL twin writes them.
#![allow(clippy::needless_range_loop)]

use glam::{Vec3, Vec4, Vec4Swizzles};

use super::gjk::{gjk, pair_scale, GjkOutput, GJK_REL_TOL};
use super::support::ConvexShape;
use glam::UVec4;

/// Most polytope vertices.
pub const EPA_MAX_VERTICES: usize = 32;
/// Most polytope faces (2V − 4 ≤ 60 fit).
pub const EPA_MAX_FACES: usize = 64;
/// Most boundary edges while adding a vertex (3V − 6 ≤ 90 fit).
pub const EPA_MAX_EDGES: usize = 96;
/// Most expansion steps (each adds a vertex, so at most 28 can add one).
pub const EPA_MAX_ITERATIONS: u32 = 32;
/// A face distance no face can have (marks a face with no area).
const FAR: f32 = 3.0e38;

/// What EPA (or [`penetration`]) found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EpaOutput {
    /// Penetration depth of the shapes, radii included (positive when overlapping).
    pub depth: f32,
    /// Unit normal from b to a (pushes a out).
    pub normal: Vec3,
    /// Deepest point of shape a inside b (world, on a's surface).
    pub point_a: Vec3,
    /// Deepest point of shape b inside a (world, on b's surface).
    pub point_b: Vec3,
    /// The support gap fell within the tolerance (false: the best face when EPA ran out of
    /// room or steps).
    pub converged: bool,
    /// Expansion steps run.
    pub iterations: u32,
}

/// The polytope, in as few arrays as its data allows (each private array the WGSL twin indexes
/// costs a software adapter's compiler time in proportion to its length at every access): a
/// vertex is its two support points (w = a − b, recomputed exactly as it was first formed), a
/// face its three vertices with a visibility flag (w) and its unit normal with its signed
/// distance (w).
struct Polytope {
    a: [Vec3; EPA_MAX_VERTICES],
    b: [Vec3; EPA_MAX_VERTICES],
    nv: usize,
    f: [[u32; 4]; EPA_MAX_FACES],
    nd: [Vec4; EPA_MAX_FACES],
    nf: usize,
}

impl Polytope {
    /// Vertex `i` of A − B.
    fn w(&self, i: usize) -> Vec3 {
        self.a[i] - self.b[i]
    }

    /// Sets face k to (i, j, l), with its unit normal and signed distance.
    fn set_face(&mut self, k: usize, i: u32, j: u32, l: u32) {
        let p = self.w(i as usize);
        let nn = (self.w(j as usize) - p).cross(self.w(l as usize) - p);
        let len2 = nn.dot(nn);
        self.f[k] = [i, j, l, 0];
        if len2 > 0.0 {
            let n = nn / len2.sqrt();
            self.nd[k] = n.extend(n.dot(p));
        } else {
            self.nd[k] = Vec4::new(0.0, 0.0, 0.0, FAR);
        }
    }

    /// The face nearest the origin (the first of equal ones).
    fn nearest(&self) -> usize {
        let mut best = 0usize;
        for k in 1..self.nf {
            if self.nd[k].w < self.nd[best].w {
                best = k;
            }
        }
        best
    }
}

/// Fixed search directions for growing a degenerate simplex: the axes and the cube diagonals.
const DIRS: [Vec3; 14] = [
    Vec3::X,
    Vec3::NEG_X,
    Vec3::Y,
    Vec3::NEG_Y,
    Vec3::Z,
    Vec3::NEG_Z,
    Vec3::new(1.0, 1.0, 1.0),
    Vec3::new(-1.0, -1.0, -1.0),
    Vec3::new(1.0, 1.0, -1.0),
    Vec3::new(-1.0, -1.0, 1.0),
    Vec3::new(1.0, -1.0, 1.0),
    Vec3::new(-1.0, 1.0, -1.0),
    Vec3::new(-1.0, 1.0, 1.0),
    Vec3::new(1.0, -1.0, -1.0),
];

/// How much new extent `w` adds to the first `count` points of `p`: distance from the point,
/// the line, or the plane.
fn extent(p: &Polytope, count: usize, w: Vec3) -> f32 {
    match count {
        0 => 1.0,
        1 => (w - p.w(0)).length(),
        2 => {
            let e = p.w(1) - p.w(0);
            let l = e.length();
            if l > 0.0 {
                (w - p.w(0)).cross(e).length() / l
            } else {
                0.0
            }
        }
        _ => {
            let n = (p.w(1) - p.w(0)).cross(p.w(2) - p.w(0));
            let l = n.length();
            if l > 0.0 {
                (n.dot(w - p.w(0)) / l).abs()
            } else {
                0.0
            }
        }
    }
}

/// EPA from GJK's output `g` for shapes `a` and `b` whose cores overlap. `None` when A − B is
/// flat (no volume: two segments, a point and a segment), where depth has no meaning.
pub fn epa(store: &[UVec4], a: &ConvexShape, b: &ConvexShape, g: &GjkOutput) -> Option<EpaOutput> {
    let origin = g.origin;
    let tol = GJK_REL_TOL * pair_scale(a, b);
    let mut p = Polytope {
        a: [Vec3::ZERO; EPA_MAX_VERTICES],
        b: [Vec3::ZERO; EPA_MAX_VERTICES],
        nv: 0,
        f: [[0; 4]; EPA_MAX_FACES],
        nd: [Vec4::ZERO; EPA_MAX_FACES],
        nf: 0,
    };
    // Keep GJK's points that add extent, then grow to a tetrahedron.
    for k in 0..(g.simplex.count as usize).min(4) {
        let w = g.simplex.w[k];
        if p.nv == 0 || extent(&p, p.nv, w) > tol {
            p.a[p.nv] = g.simplex.a[k];
            p.b[p.nv] = g.simplex.b[k];
            p.nv += 1;
        }
    }
    for _ in 0..4 {
        if p.nv >= 4 {
            break;
        }
        // Candidate directions: the fixed set, plus the plane normal for a triangle.
        let mut best_e = tol;
        let mut best = (Vec3::ZERO, Vec3::ZERO);
        for k in 0..DIRS.len() + 2 {
            let dir = if k < DIRS.len() {
                DIRS[k]
            } else if p.nv == 3 {
                let n = (p.w(1) - p.w(0)).cross(p.w(2) - p.w(0));
                if k == DIRS.len() {
                    n
                } else {
                    -n
                }
            } else {
                continue;
            };
            let sa = a.support(store, dir) - origin;
            let sb = b.support(store, -dir) - origin;
            let e = extent(&p, p.nv, sa - sb);
            if e > best_e {
                best_e = e;
                best = (sa, sb);
            }
        }
        if best_e <= tol {
            return None;
        }
        p.a[p.nv] = best.0;
        p.b[p.nv] = best.1;
        p.nv += 1;
    }
    // The tetrahedron, each face wound away from the opposite vertex.
    let tet: [[u32; 4]; 4] = [[0, 1, 2, 3], [0, 3, 1, 2], [1, 3, 2, 0], [0, 2, 3, 1]];
    for (k, t) in tet.iter().enumerate() {
        let q = p.w(t[0] as usize);
        let n = (p.w(t[1] as usize) - q).cross(p.w(t[2] as usize) - q);
        if n.dot(p.w(t[3] as usize) - q) > 0.0 {
            p.set_face(k, t[0], t[2], t[1]);
        } else {
            p.set_face(k, t[0], t[1], t[2]);
        }
    }
    p.nf = 4;

    let mut converged = false;
    let mut iterations = 0u32;
    let mut best = 0usize;
    // Boundary edges, i | j << 16.
    let mut edges = [0u32; EPA_MAX_EDGES];
    for it in 0..EPA_MAX_ITERATIONS {
        iterations = it + 1;
        best = p.nearest();
        let n = p.nd[best].xyz();
        let sa = a.support(store, n) - origin;
        let sb = b.support(store, -n) - origin;
        let w = sa - sb;
        if n.dot(w) - p.nd[best].w <= tol {
            converged = true;
            break;
        }
        if p.nv >= EPA_MAX_VERTICES {
            break;
        }
        // Faces that see w (flagged in f[k][3]), and their boundary.
        let mut ne = 0usize;
        let mut nvis = 0usize;
        let mut room = true;
        for k in 0..p.nf {
            let nd = p.nd[k];
            let visible = nd.w < FAR && nd.xyz().dot(w) - nd.w > 0.0;
            p.f[k][3] = u32::from(visible);
            if !visible {
                continue;
            }
            nvis += 1;
            for e in 0..3 {
                let i = p.f[k][e];
                let j = p.f[k][(e + 1) % 3];
                let mut found = EPA_MAX_EDGES;
                for m in 0..ne {
                    if edges[m] == (j | i << 16) {
                        found = m;
                    }
                }
                if found < EPA_MAX_EDGES {
                    ne -= 1;
                    edges[found] = edges[ne];
                } else if ne < EPA_MAX_EDGES {
                    edges[ne] = i | j << 16;
                    ne += 1;
                } else {
                    room = false;
                }
            }
        }
        if !room || ne < 3 || p.nf - nvis + ne > EPA_MAX_FACES {
            break;
        }
        let vi = p.nv as u32;
        p.a[p.nv] = sa;
        p.b[p.nv] = sb;
        p.nv += 1;
        let mut kept = 0usize;
        for k in 0..p.nf {
            if p.f[k][3] == 0 {
                p.f[kept] = p.f[k];
                p.nd[kept] = p.nd[k];
                kept += 1;
            }
        }
        p.nf = kept;
        for e in 0..ne {
            let k = p.nf;
            p.set_face(k, edges[e] & 0xffff, edges[e] >> 16, vi);
            p.nf += 1;
        }
    }
    if !converged {
        best = p.nearest();
    }
    let n = p.nd[best].xyz();
    let depth = p.nd[best].w;
    // Barycentric weights of the origin's projection n·depth on the face.
    let [i, j, l, _] = p.f[best];
    let (wi, wj, wl) = (p.w(i as usize), p.w(j as usize), p.w(l as usize));
    let q = n * depth;
    let mut li = (wj - q).cross(wl - q).dot(n).max(0.0);
    let mut lj = (wl - q).cross(wi - q).dot(n).max(0.0);
    let mut ll = (wi - q).cross(wj - q).dot(n).max(0.0);
    let sum = li + lj + ll;
    if sum > 0.0 {
        li /= sum;
        lj /= sum;
        ll /= sum;
    } else {
        li = 1.0;
        lj = 0.0;
        ll = 0.0;
    }
    let pa = p.a[i as usize] * li + p.a[j as usize] * lj + p.a[l as usize] * ll;
    let pb = p.b[i as usize] * li + p.b[j as usize] * lj + p.b[l as usize] * ll;
    let ra = a.radius();
    let rb = b.radius();
    Some(EpaOutput {
        depth: depth + ra + rb,
        normal: -n,
        point_a: pa + n * ra + origin,
        point_b: pb - n * rb + origin,
        converged,
        iterations,
    })
}

/// GJK, then EPA if the cores overlap: the signed depth (negative: separated by that much),
/// normal from b to a and the two surface points. `None` only when the cores overlap and A − B
/// is flat (see [`epa`]).
pub fn penetration(store: &[UVec4], a: &ConvexShape, b: &ConvexShape) -> Option<EpaOutput> {
    let g = gjk(store, a, b);
    if g.overlap {
        return epa(store, a, b, &g);
    }
    Some(EpaOutput {
        depth: -g.distance,
        normal: g.normal,
        point_a: g.point_a,
        point_b: g.point_b,
        converged: true,
        iterations: g.iterations,
    })
}
