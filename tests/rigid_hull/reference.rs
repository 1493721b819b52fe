//! Test helpers for `tests/hull.rs`: a seeded generator, and independent f64 reference geometry
//! (exact polyhedron distances, brute-force SAT, brute-force hull facets, the analytic box–box
//! SAT). None of it calls the code under test.
#![allow(dead_code)]

use glam::{DMat3, DVec3, Mat3, Quat, Vec3};
use wgphys::rigid::hull::{Frame, Hull};

/// ε of f32, as f64.
pub const EPS: f64 = f32::EPSILON as f64;

/// SplitMix64: a small seeded generator.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn f(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.f()
    }
    /// Uniform integer in [lo, hi).
    pub fn int(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo) as u64) as usize
    }
    /// Uniform in the unit ball.
    pub fn in_ball(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            if v.length_squared() <= 1.0 {
                return v;
            }
        }
    }
    /// Uniform on the unit sphere.
    pub fn on_sphere(&mut self) -> Vec3 {
        loop {
            let v = self.in_ball();
            let l = v.length();
            if l > 0.1 {
                return v / l;
            }
        }
    }
    /// A uniformly random rotation.
    pub fn rotation(&mut self) -> Quat {
        loop {
            let q = Quat::from_xyzw(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let l = q.length();
            if l > 0.1 && l <= 1.0 {
                return q / l;
            }
        }
    }
}

/// A random convex hull: 4..=max_points points in the unit ball, scaled per axis by
/// [0.3, 1.5) and by `size`.
pub fn random_hull(rng: &mut Rng, max_points: usize, size: f32) -> Hull {
    let n = rng.int(4, max_points + 1);
    let s = Vec3::new(
        rng.range(0.3, 1.5),
        rng.range(0.3, 1.5),
        rng.range(0.3, 1.5),
    ) * size;
    let pts: Vec<Vec3> = (0..n).map(|_| rng.in_ball() * s).collect();
    wgphys::rigid::hull::convex_hull(&pts).expect("random cloud in general position")
}

/// A hull placed in the world, in f64: vertices, face loops, outward planes (unit n, d),
/// edges (vertex pairs).
pub struct World {
    pub v: Vec<DVec3>,
    pub loops: Vec<Vec<usize>>,
    pub planes: Vec<(DVec3, f64)>,
    pub edges: Vec<(usize, usize)>,
}

pub fn mat64(m: Mat3) -> DMat3 {
    DMat3::from_cols(
        m.x_axis.as_dvec3(),
        m.y_axis.as_dvec3(),
        m.z_axis.as_dvec3(),
    )
}

/// `hull` placed by `frame`, computed in f64 from the f32 data (planes refitted from the
/// placed vertices by Newell's method, so they are independent of the hull's stored planes).
pub fn world(hull: &Hull, frame: &Frame) -> World {
    let r = mat64(frame.rot);
    let p = frame.pos.as_dvec3();
    let v: Vec<DVec3> = hull
        .vertices()
        .iter()
        .map(|x| p + r * x.as_dvec3())
        .collect();
    let loops: Vec<Vec<usize>> = (0..hull.faces().len())
        .map(|f| hull.face_loop(f).iter().map(|&i| i as usize).collect())
        .collect();
    let planes = loops
        .iter()
        .map(|lp| {
            let mut n = DVec3::ZERO;
            for k in 0..lp.len() {
                let a = v[lp[k]];
                let b = v[lp[(k + 1) % lp.len()]];
                n += a.cross(b);
            }
            let n = n.normalize();
            let d = lp.iter().map(|&i| n.dot(v[i])).sum::<f64>() / lp.len() as f64;
            (n, d)
        })
        .collect();
    let edges = hull
        .edges()
        .iter()
        .map(|e| (e.v0 as usize, e.v1 as usize))
        .collect();
    World {
        v,
        loops,
        planes,
        edges,
    }
}

/// A box as a [`World`] (8 vertices in the engine's order, 6 faces).
pub fn box_world(frame: &Frame, h: Vec3) -> World {
    let hull = Hull::cuboid(h).unwrap();
    world(&hull, frame)
}

/// Closest point of segment a–b to p.
pub fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let d = b - a;
    let l2 = d.length_squared();
    if l2 == 0.0 {
        return a;
    }
    a + d * ((p - a).dot(d) / l2).clamp(0.0, 1.0)
}

/// Distance between segments p1–q1 and p2–q2 (clamped closest points, f64).
pub fn segment_distance(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    let (s, t);
    if a == 0.0 && e == 0.0 {
        return r.length();
    }
    if a == 0.0 {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e == 0.0 {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let den = a * e - b * b;
            let mut s0 = if den > 0.0 {
                ((b * f - c * e) / den).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t0 = 0.0;
                s0 = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t0 = 1.0;
                s0 = ((b - c) / a).clamp(0.0, 1.0);
            }
            s = s0;
            t = t0;
        }
    }
    ((p1 + d1 * s) - (p2 + d2 * t)).length()
}

/// Distance from p to the convex polygon `lp` of `w` (in its plane or to its boundary).
pub fn point_face_distance(p: DVec3, w: &World, f: usize) -> f64 {
    let lp = &w.loops[f];
    let (n, d) = w.planes[f];
    let h = n.dot(p) - d;
    let q = p - n * h;
    let mut inside = true;
    for k in 0..lp.len() {
        let a = w.v[lp[k]];
        let b = w.v[lp[(k + 1) % lp.len()]];
        if (b - a).cross(q - a).dot(n) < 0.0 {
            inside = false;
        }
    }
    if inside {
        return h.abs();
    }
    let mut best = f64::MAX;
    for k in 0..lp.len() {
        let a = w.v[lp[k]];
        let b = w.v[lp[(k + 1) % lp.len()]];
        best = best.min((p - closest_on_segment(p, a, b)).length());
    }
    best
}

/// Distance from point p to the solid polyhedron (0 inside).
pub fn point_distance(p: DVec3, w: &World) -> f64 {
    if w.planes.iter().all(|(n, d)| n.dot(p) - d <= 0.0) {
        return 0.0;
    }
    (0..w.loops.len())
        .map(|f| point_face_distance(p, w, f))
        .fold(f64::MAX, f64::min)
}

/// Distance from segment a–b to the solid polyhedron, assuming they do not intersect: the
/// endpoints against the faces and the segment against every edge.
pub fn segment_polyhedron_distance(a: DVec3, b: DVec3, w: &World) -> f64 {
    let mut best = point_distance(a, w).min(point_distance(b, w));
    for &(i, j) in &w.edges {
        best = best.min(segment_distance(a, b, w.v[i], w.v[j]));
    }
    best
}

/// Exact distance between two disjoint convex polyhedra: vertex–face both ways and edge–edge.
pub fn polyhedra_distance(a: &World, b: &World) -> f64 {
    let mut best = f64::MAX;
    for p in &a.v {
        for f in 0..b.loops.len() {
            best = best.min(point_face_distance(*p, b, f));
        }
    }
    for p in &b.v {
        for f in 0..a.loops.len() {
            best = best.min(point_face_distance(*p, a, f));
        }
    }
    for &(i, j) in &a.edges {
        for &(k, l) in &b.edges {
            best = best.min(segment_distance(a.v[i], a.v[j], b.v[k], b.v[l]));
        }
    }
    best
}

/// Gap between the projections of `a` and `b` on unit axis u (the larger of both orders):
/// positive when u separates them.
pub fn projection_gap(a: &World, b: &World, u: DVec3) -> f64 {
    let (mut amin, mut amax, mut bmin, mut bmax) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in &a.v {
        let x = u.dot(*p);
        amin = amin.min(x);
        amax = amax.max(x);
    }
    for p in &b.v {
        let x = u.dot(*p);
        bmin = bmin.min(x);
        bmax = bmax.max(x);
    }
    (bmin - amax).max(amin - bmax)
}

/// Brute-force SAT: the largest projection gap over all face normals of both and the cross
/// products of all edge pairs whose squared sine is at least `skip` (0 keeps every non-zero
/// cross). For overlapping polyhedra, minus the penetration depth.
pub fn brute_sat(a: &World, b: &World, skip: f64) -> f64 {
    let mut best = f64::MIN;
    for (n, _) in a.planes.iter().chain(b.planes.iter()) {
        best = best.max(projection_gap(a, b, *n));
    }
    for &(i, j) in &a.edges {
        let ea = a.v[j] - a.v[i];
        for &(k, l) in &b.edges {
            let eb = b.v[l] - b.v[k];
            let c = ea.cross(eb);
            let l2 = c.length_squared();
            if l2 == 0.0 || l2 < skip * ea.length_squared() * eb.length_squared() {
                continue;
            }
            best = best.max(projection_gap(a, b, c / l2.sqrt()));
        }
    }
    best
}

/// Largest signed distance of `p` in front of the planes of `w` (≤ 0 inside).
pub fn outside(p: DVec3, w: &World) -> f64 {
    w.planes
        .iter()
        .map(|(n, d)| n.dot(p) - d)
        .fold(f64::MIN, f64::max)
}

/// The analytic box–box SAT (15 axes) in f64, boxes (centre, rotation, half extents):
/// the smallest overlap per group (a's faces, b's faces, edges), each with its unit axis
/// oriented from b to a. Crosses with squared sine below 1e-6 are skipped.
pub fn box_box_groups(
    ca: DVec3,
    ra: DMat3,
    ha: DVec3,
    cb: DVec3,
    rb: DMat3,
    hb: DVec3,
) -> [(f64, DVec3); 3] {
    let t = cb - ca;
    let radius = |r: &DMat3, h: DVec3, u: DVec3| {
        h.x * u.dot(r.x_axis).abs() + h.y * u.dot(r.y_axis).abs() + h.z * u.dot(r.z_axis).abs()
    };
    let mut out = [(f64::MAX, DVec3::ZERO); 3];
    for i in 0..15 {
        let (g, u) = if i < 3 {
            (0, ra.col(i))
        } else if i < 6 {
            (1, rb.col(i - 3))
        } else {
            let c = ra.col((i - 6) / 3).cross(rb.col((i - 6) % 3));
            if c.length_squared() < 1e-6 {
                continue;
            }
            (2, c.normalize())
        };
        let o = radius(&ra, ha, u) + radius(&rb, hb, u) - t.dot(u).abs();
        if o < out[g].0 {
            let n = if u.dot(t) > 0.0 { -u } else { u };
            out[g] = (o, n);
        }
    }
    out
}

/// Whether segment a–b meets the solid polyhedron (clipped by every face plane).
pub fn segment_hits(a: DVec3, b: DVec3, w: &World) -> bool {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let d = b - a;
    for (n, off) in &w.planes {
        let da = n.dot(a) - off;
        let dd = n.dot(d);
        if dd == 0.0 {
            if da > 0.0 {
                return false;
            }
        } else {
            let t = -da / dd;
            if dd > 0.0 {
                hi = hi.min(t);
            } else {
                lo = lo.max(t);
            }
        }
    }
    lo <= hi
}

/// Area of the convex polygon through `pts` (any order) projected on the plane of normal n.
pub fn polygon_area(pts: &[DVec3], n: DVec3) -> f64 {
    let c = pts.iter().fold(DVec3::ZERO, |s, p| s + *p) / pts.len() as f64;
    let u = n.any_orthonormal_vector();
    let v = n.cross(u);
    let mut ang: Vec<(f64, DVec3)> = pts
        .iter()
        .map(|p| ((*p - c).dot(v).atan2((*p - c).dot(u)), *p))
        .collect();
    ang.sort_by(|x, y| x.0.partial_cmp(&y.0).unwrap());
    let mut area = 0.0;
    for k in 0..ang.len() {
        let a = ang[k].1 - c;
        let b = ang[(k + 1) % ang.len()].1 - c;
        area += a.cross(b).dot(n) / 2.0;
    }
    area.abs()
}

/// The eight corners of a cube of half size `h`, in the engine's box vertex order.
pub fn cube_points(h: f32) -> Vec<Vec3> {
    let mut pts = Vec::new();
    for i in 0..8 {
        let s = |b: i32| if i & b != 0 { -h } else { h };
        pts.push(Vec3::new(s(1), s(2), s(4)));
    }
    pts
}
