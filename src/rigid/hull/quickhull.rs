//! [`convex_hull`]: the hull of a point cloud by quickhull (Barber, Dobkin and Huhdanpaa 1996;
//! catalogue 001-A), cooked on the host in f64 from the f32 points.
//!
//! 1. The initial tetrahedron: the two farthest-apart of the six axis-extreme points, the point
//!    farthest from their line, the point farthest from that plane. If any of these is within
//!    the tolerance, the cloud is a point, a line or a plane and the answer is an error.
//! 2. Every other point goes into the conflict list of the face it is farthest in front of, if
//!    that is more than the tolerance; points within it are on or inside the hull.
//! 3. Repeatedly, the point farthest in front of any face (the "eye") is added: the faces it
//!    sees (more than the tolerance in front) are found by a walk over face neighbours from its
//!    face, their boundary (the horizon) is chained into one loop, a fan of new triangles joins
//!    the eye to the horizon, and the conflict points of the removed faces move to the new
//!    faces they lie in front of. A horizon that is not one simple loop (possible only through
//!    tolerance effects on near-degenerate input) drops the eye instead; the final check then
//!    decides.
//! 4. Coplanar triangles are merged into polygons and the hull is checked (`faces.rs`,
//!    `mesh.rs`): planarity, convexity, every input point inside. A failed check means the
//!    tolerance was too fine for the input's rounding, so the hull is cooked again with a
//!    tolerance 8 times larger, at most three more times; then the error is returned.
//!
//! Adding the farthest point first makes a budgeted run a good simplification:
//! [`HullOptions::simplify_to`] stops quickhull before it adds a vertex beyond the budget (the
//! greedy "most extreme remaining point" rule), so the simplified hull's vertices are input
//! points, a run with a larger budget adds eyes to the same sequence (so its hull contains the
//! smaller one's, and no input point is farther from it), and no input point lies farther in
//! front of a face plane than the first eye left out. If the result
//! breaks a face limit, the budget shrinks by one until it fits (a hull of at most 34 vertices
//! has at most 64 faces of at most 32 vertices, so this ends).
//!
//! Tolerances: `faces.rs` explains the base tolerance (4 ulps of the cloud's magnitude) and the
//! check factor.

use glam::{DVec3, Vec3};

use super::faces::{base_tolerance, hull_from_loops, merge_triangles, plane64, CHECK_FACTOR};
use super::layout::{Hull, MAX_HULL_VERTICES};
use super::mesh::check_counts;
use crate::error::{Error, Result};

/// Cooks with a tolerance this many times larger after a failed check.
const RETRY_GROWTH: f64 = 8.0;
/// Attempts in all (so the largest tolerance is 8³ = 512 times the base, about 2.4e-4 of the
/// cloud's magnitude).
const ATTEMPTS: i32 = 4;
const NONE: usize = usize::MAX;
const FIX_SIMPLIFY: &str =
    "simplify it: convex_hull_with(points, &HullOptions::default().simplify_to(64))";

/// Options for [`convex_hull_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HullOptions {
    max_vertices: Option<u32>,
}

impl HullOptions {
    /// Reduce a hull that has more than `max_vertices` vertices (or breaks a face limit) to at
    /// most `max_vertices` (capped at [`MAX_HULL_VERTICES`]; at least 4) by keeping the most
    /// extreme points first (see the module docs) instead of returning an error.
    #[must_use]
    pub fn simplify_to(mut self, max_vertices: u32) -> Self {
        self.max_vertices = Some(max_vertices);
        self
    }

    /// The vertex budget, if simplifying.
    pub fn max_vertices(&self) -> Option<u32> {
        self.max_vertices
    }
}

/// The convex hull of `points`, with coplanar faces merged into polygons. Errors: fewer than 4
/// points, a non-finite point, points that are all coincident, collinear or coplanar (within
/// the tolerance), or a hull beyond the limits (use [`convex_hull_with`] and
/// [`HullOptions::simplify_to`]).
pub fn convex_hull(points: &[Vec3]) -> Result<Hull> {
    convex_hull_with(points, &HullOptions::default())
}

enum Fail {
    /// The input is degenerate; a larger tolerance cannot help.
    Fatal(Error),
    /// A check failed; a larger tolerance may help.
    Retry(Error),
    /// The merged faces break a limit (found before the costly checks).
    Limits(Error),
}

/// [`convex_hull`] with options.
pub fn convex_hull_with(points: &[Vec3], opts: &HullOptions) -> Result<Hull> {
    if points.len() < 4 {
        return Err(Error::InvalidInput {
            what: "convex hull points",
            value: format!("{} points", points.len()),
            fix: "pass at least 4 points that are not coplanar",
        });
    }
    for (i, p) in points.iter().enumerate() {
        if !p.is_finite() {
            return Err(Error::InvalidInput {
                what: "convex hull point",
                value: format!("point {i} is {p:?}"),
                fix: "pass finite coordinates (not NaN or infinity)",
            });
        }
    }
    let budget_max = match opts.max_vertices {
        Some(m) if m < 4 => {
            return Err(Error::InvalidInput {
                what: "HullOptions::simplify_to",
                value: format!("{m}"),
                fix: "keep at least 4 vertices",
            })
        }
        Some(m) => Some(m.min(MAX_HULL_VERTICES) as usize),
        None => None,
    };
    let pts: Vec<DVec3> = points.iter().map(|p| p.as_dvec3()).collect();
    let base = base_tolerance(points);
    if base <= 0.0 {
        return Err(degenerate("all points are at the origin"));
    }
    let mut last = None;
    for attempt in 0..ATTEMPTS {
        let tol = base * RETRY_GROWTH.powi(attempt);
        match budget_max {
            None => match cook(points, &pts, tol, None) {
                Ok(h) => return Ok(h),
                Err(Fail::Fatal(e) | Fail::Limits(e)) => return Err(e),
                Err(Fail::Retry(e)) => last = Some(e),
            },
            Some(max) => {
                let mut budget = max;
                loop {
                    match cook(points, &pts, tol, Some(budget)) {
                        Ok(h) => return Ok(h),
                        Err(Fail::Limits(e)) => {
                            if budget <= 4 {
                                return Err(e);
                            }
                            budget -= 1;
                        }
                        Err(Fail::Fatal(e)) => return Err(e),
                        Err(Fail::Retry(e)) => {
                            last = Some(e);
                            break;
                        }
                    }
                }
            }
        }
    }
    Err(last.unwrap_or_else(|| degenerate("no valid hull")))
}

fn degenerate(value: &str) -> Error {
    Error::InvalidInput {
        what: "convex hull points",
        value: value.to_string(),
        fix: "pass at least 4 points that are not coplanar (a flat or thin shape needs thickness \
              above float precision)",
    }
}

/// One attempt at tolerance `tol`, keeping at most `budget` vertices if given.
fn cook(points: &[Vec3], pts: &[DVec3], tol: f64, budget: Option<usize>) -> Result<Hull, Fail> {
    let (tris, cut) = quickhull(pts, tol, budget)?;
    let loops = merge_triangles(pts, &tris, tol).map_err(|m| {
        Fail::Retry(Error::InvalidInput {
            what: "convex hull points",
            value: format!("could not merge faces at tolerance {tol:e}: {m}"),
            fix: "the points are degenerate at float precision: remove near-duplicate points",
        })
    })?;
    let mut used: Vec<u32> = loops.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    let sizes: Vec<usize> = loops.iter().map(|l| l.len()).collect();
    check_counts(used.len(), &sizes, FIX_SIMPLIFY).map_err(Fail::Limits)?;
    let hull = hull_from_loops(points, &loops, tol).map_err(Fail::Retry)?;
    if !cut {
        let check = CHECK_FACTOR * tol;
        for (i, p) in pts.iter().enumerate() {
            for (f, pl) in hull.planes.iter().enumerate() {
                let (n, d) = plane64(*pl);
                let h = n.dot(*p) - d;
                if h > check {
                    return Err(Fail::Retry(Error::InvalidInput {
                        what: "convex hull points",
                        value: format!("point {i} is {h:e} outside face {f} at tolerance {check:e}"),
                        fix: "the points are degenerate at float precision: remove near-duplicate points",
                    }));
                }
            }
        }
    }
    Ok(hull)
}

struct Face {
    v: [u32; 3],
    /// Face across edge v[i] → v[i+1].
    adj: [usize; 3],
    n: DVec3,
    d: f64,
    alive: bool,
    outside: Vec<u32>,
    far: f64,
    far_pt: u32,
}

impl Face {
    fn new(pts: &[DVec3], v: [u32; 3]) -> Option<Face> {
        let (a, b, c) = (pts[v[0] as usize], pts[v[1] as usize], pts[v[2] as usize]);
        let n = (b - a).cross(c - a);
        let l = n.length();
        if !(l > 0.0 && l.is_finite()) {
            return None;
        }
        let n = n / l;
        Some(Face {
            v,
            adj: [NONE; 3],
            n,
            d: n.dot(a),
            alive: true,
            outside: Vec::new(),
            far: 0.0,
            far_pt: 0,
        })
    }

    fn dist(&self, p: DVec3) -> f64 {
        self.n.dot(p) - self.d
    }

    fn refresh_far(&mut self, pts: &[DVec3]) {
        self.far = 0.0;
        self.far_pt = 0;
        for &i in &self.outside {
            let h = self.n.dot(pts[i as usize]) - self.d;
            if h > self.far {
                self.far = h;
                self.far_pt = i;
            }
        }
    }
}

fn retry(what: &str) -> Fail {
    Fail::Retry(degenerate(what))
}

/// Quickhull proper: the outward-wound triangles of the hull of `pts` (global indices), and
/// whether the budget stopped it with points still outside.
fn quickhull(
    pts: &[DVec3],
    tol: f64,
    budget: Option<usize>,
) -> Result<(Vec<[u32; 3]>, bool), Fail> {
    let n = pts.len();
    // 1. Initial tetrahedron.
    let mut ext = [0usize; 6];
    for (i, p) in pts.iter().enumerate() {
        for axis in 0..3 {
            if p[axis] < pts[ext[2 * axis]][axis] {
                ext[2 * axis] = i;
            }
            if p[axis] > pts[ext[2 * axis + 1]][axis] {
                ext[2 * axis + 1] = i;
            }
        }
    }
    let (mut i0, mut i1, mut best) = (ext[0], ext[1], -1.0);
    for a in 0..6 {
        for b in a + 1..6 {
            let d = (pts[ext[a]] - pts[ext[b]]).length_squared();
            if d > best {
                best = d;
                i0 = ext[a];
                i1 = ext[b];
            }
        }
    }
    if best.sqrt() <= tol {
        return Err(Fail::Fatal(degenerate(&format!(
            "all {n} points lie within {tol:e} of one point"
        ))));
    }
    let (p0, p1) = (pts[i0], pts[i1]);
    let dir = (p1 - p0).normalize();
    let (mut i2, mut best) = (NONE, tol);
    for (i, p) in pts.iter().enumerate() {
        let d = (*p - p0).cross(dir).length();
        if d > best {
            best = d;
            i2 = i;
        }
    }
    if i2 == NONE {
        return Err(Fail::Fatal(degenerate(&format!(
            "all {n} points lie within {tol:e} of one line"
        ))));
    }
    let nrm = (p1 - p0).cross(pts[i2] - p0).normalize();
    let (mut i3, mut best) = (NONE, tol);
    for (i, p) in pts.iter().enumerate() {
        let d = nrm.dot(*p - p0).abs();
        if d > best {
            best = d;
            i3 = i;
        }
    }
    if i3 == NONE {
        return Err(Fail::Fatal(degenerate(&format!(
            "all {n} points lie within {tol:e} of one plane"
        ))));
    }
    let s = [i0 as u32, i1 as u32, i2 as u32, i3 as u32];
    let mut faces: Vec<Face> = Vec::new();
    for (tri, opp) in [
        ([s[0], s[1], s[2]], s[3]),
        ([s[0], s[3], s[1]], s[2]),
        ([s[1], s[3], s[2]], s[0]),
        ([s[2], s[3], s[0]], s[1]),
    ] {
        let mut f = Face::new(pts, tri).ok_or_else(|| retry("degenerate initial tetrahedron"))?;
        if f.dist(pts[opp as usize]) > 0.0 {
            f = Face::new(pts, [tri[0], tri[2], tri[1]])
                .ok_or_else(|| retry("degenerate initial tetrahedron"))?;
        }
        faces.push(f);
    }
    for f in 0..4 {
        for i in 0..3 {
            let (a, b) = (faces[f].v[i], faces[f].v[(i + 1) % 3]);
            for g in 0..4 {
                for j in 0..3 {
                    if faces[g].v[j] == b && faces[g].v[(j + 1) % 3] == a {
                        faces[f].adj[i] = g;
                    }
                }
            }
        }
    }
    if faces.iter().any(|f| f.adj.contains(&NONE)) {
        return Err(retry("inconsistent initial tetrahedron"));
    }

    // 2. Conflict lists.
    for (i, p) in pts.iter().enumerate() {
        if s.contains(&(i as u32)) {
            continue;
        }
        assign(&mut faces, 0, i as u32, *p, tol);
    }
    let mut heap = std::collections::BinaryHeap::new();
    for (k, f) in faces.iter_mut().enumerate() {
        f.refresh_far(pts);
        if !f.outside.is_empty() {
            heap.push(Far(f.far, std::cmp::Reverse(k)));
        }
    }

    // 3. Add eyes.
    let mut mark: Vec<u32> = vec![0; 4];
    let mut vis: Vec<bool> = vec![false; 4];
    let mut epoch = 0u32;
    let mut on_hull = vec![false; n];
    let mut cut = false;
    loop {
        if let Some(b) = budget {
            on_hull.iter_mut().for_each(|x| *x = false);
            let mut count = 0usize;
            for f in faces.iter().filter(|f| f.alive) {
                for &v in &f.v {
                    if !on_hull[v as usize] {
                        on_hull[v as usize] = true;
                        count += 1;
                    }
                }
            }
            if count >= b {
                cut = faces.iter().any(|f| f.alive && !f.outside.is_empty());
                break;
            }
        }
        // The face with the farthest conflict point (ties: the lower face index); stale heap
        // entries (dead faces, or a farthest point since dropped) are skipped.
        let mut pick = NONE;
        while let Some(Far(d, std::cmp::Reverse(f))) = heap.pop() {
            let face = &faces[f];
            if face.alive && !face.outside.is_empty() && face.far == d {
                pick = f;
                break;
            }
        }
        if pick == NONE {
            break;
        }
        let eye = faces[pick].far_pt;
        let e = pts[eye as usize];

        epoch += 1;
        mark.resize(faces.len(), 0);
        vis.resize(faces.len(), false);
        mark[pick] = epoch;
        vis[pick] = true;
        let mut stack = vec![pick];
        let mut visible = vec![pick];
        let mut horizon: Vec<(u32, u32, usize)> = Vec::new();
        while let Some(f) = stack.pop() {
            for i in 0..3 {
                let g = faces[f].adj[i];
                if mark[g] != epoch {
                    mark[g] = epoch;
                    vis[g] = faces[g].dist(e) > tol;
                    if vis[g] {
                        stack.push(g);
                        visible.push(g);
                    }
                }
                if !vis[g] {
                    horizon.push((faces[f].v[i], faces[f].v[(i + 1) % 3], g));
                }
            }
        }
        let Some(order) = chain(&horizon) else {
            // Not one simple loop: drop the eye (see the module docs).
            faces[pick].outside.retain(|&p| p != eye);
            faces[pick].refresh_far(pts);
            if !faces[pick].outside.is_empty() {
                heap.push(Far(faces[pick].far, std::cmp::Reverse(pick)));
            }
            continue;
        };

        let first = faces.len();
        let h = order.len();
        for (k, &hi) in order.iter().enumerate() {
            let (a, b, g) = horizon[hi];
            let mut f =
                Face::new(pts, [a, b, eye]).ok_or_else(|| retry("degenerate new hull face"))?;
            f.adj = [g, first + (k + 1) % h, first + (k + h - 1) % h];
            for j in 0..3 {
                if faces[g].v[j] == b && faces[g].v[(j + 1) % 3] == a {
                    faces[g].adj[j] = first + k;
                }
            }
            faces.push(f);
        }
        let mut pool = Vec::new();
        for &f in &visible {
            faces[f].alive = false;
            pool.append(&mut faces[f].outside);
        }
        for p in pool {
            if p != eye {
                assign(&mut faces, first, p, pts[p as usize], tol);
            }
        }
        for (k, f) in faces[first..].iter_mut().enumerate() {
            f.refresh_far(pts);
            if !f.outside.is_empty() {
                heap.push(Far(f.far, std::cmp::Reverse(first + k)));
            }
        }
    }
    Ok((faces.iter().filter(|f| f.alive).map(|f| f.v).collect(), cut))
}

/// A heap entry: a face's farthest conflict distance, then the face (lower index first).
#[derive(PartialEq)]
struct Far(f64, std::cmp::Reverse<usize>);

impl Eq for Far {}

impl PartialOrd for Far {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Far {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// Puts point `p` (index `i`) in the conflict list of the face from `from` on that it is
/// farthest in front of, if more than `tol`.
fn assign(faces: &mut [Face], from: usize, i: u32, p: DVec3, tol: f64) {
    let mut best = NONE;
    let mut best_d = tol;
    for (f, face) in faces.iter().enumerate().skip(from) {
        if face.alive {
            let d = face.dist(p);
            if d > best_d {
                best_d = d;
                best = f;
            }
        }
    }
    if best != NONE {
        faces[best].outside.push(i);
    }
}

/// The horizon edges chained into one loop (indices into `horizon`), or `None` when they do not
/// form exactly one simple loop.
fn chain(horizon: &[(u32, u32, usize)]) -> Option<Vec<usize>> {
    let h = horizon.len();
    if h < 3 {
        return None;
    }
    let mut starts: Vec<u32> = horizon.iter().map(|e| e.0).collect();
    starts.sort_unstable();
    starts.dedup();
    if starts.len() != h {
        return None;
    }
    let mut order = Vec::with_capacity(h);
    let mut used = vec![false; h];
    let mut cur = 0usize;
    for _ in 0..h {
        if used[cur] {
            return None;
        }
        used[cur] = true;
        order.push(cur);
        let b = horizon[cur].1;
        cur = horizon.iter().position(|e| e.0 == b)?;
    }
    (cur == 0).then_some(order)
}
