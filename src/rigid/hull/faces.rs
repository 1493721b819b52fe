//! From a closed triangle mesh of hull points to a [`Hull`]: coplanar triangles merged into
//! convex polygon faces, vertices left on a straight edge between two faces dropped, then the
//! planes, unique edges, bounds and centre of mass. Host-side cooking only (it uses the heap and
//! hash maps); nothing here runs per pair.
//!
//! Tolerances. Everything is computed in f64 from the f32 input, so the arithmetic here adds
//! nothing measurable; what a tolerance must cover is the input itself. Points that a user
//! means to be coplanar (the corners of a rotated box, a mesh exported in f32) were rounded to
//! f32 at their absolute coordinates: each coordinate carries up to a few half-ulps, ε/2·|x|
//! per rounding, and a plane distance sums three such terms. [`base_tolerance`] is therefore
//! `BUILD_ULPS · ε · (max|x| + max|y| + max|z|)` with `BUILD_ULPS` = 4: room for about four
//! roundings per coordinate at the cloud's largest magnitude. Points closer than that to a
//! plane count as on it (quickhull's visibility, face merging); finer distinctions are below
//! what the f32 planes the GPU reads can express anyway (their offsets round at ε/2·|d|).
//! The checks a finished hull passes use `CHECK_FACTOR` = 4 times that: a merged face's fitted
//! plane can sit up to one tolerance from the seed plane its vertices were tested against (two
//! in all from a vertex), a point dropped as "on the hull" was within one tolerance of a
//! triangle that a face then replaced, and removing a vertex within one tolerance of an edge's
//! line moves the surface by at most one more.

use std::collections::HashMap;

use glam::{DVec3, Vec3, Vec4};

use super::layout::{Hull, HullEdge, HullFace};
use super::mass::volume_moments;
use super::mesh::check_hull;
use crate::error::{Error, Result};

/// The build tolerance in ulps of the cloud's magnitude (see the module docs).
pub(crate) const BUILD_ULPS: f64 = 4.0;
/// Checks run at this multiple of the build tolerance (see the module docs).
pub(crate) const CHECK_FACTOR: f64 = 4.0;
const NONE: usize = usize::MAX;

/// `BUILD_ULPS · ε_f32 · (max|x| + max|y| + max|z|)` over `points`.
pub(crate) fn base_tolerance(points: &[Vec3]) -> f64 {
    let mut m = DVec3::ZERO;
    for p in points {
        m = m.max(p.as_dvec3().abs());
    }
    BUILD_ULPS * f64::from(f32::EPSILON) * (m.x + m.y + m.z)
}

/// Merges the triangles of a closed, outward-wound triangle mesh of `pts` into convex polygon
/// loops (global point indices, counter-clockwise from outside). Greedy: the largest unmerged
/// triangle seeds a face, and a neighbour joins while all three of its vertices lie within
/// `tol` of the seed's plane and it faces the same way. Each face's boundary is then walked into
/// one loop, and a vertex that only two faces share and that lies within `tol` of the line
/// through its loop neighbours is dropped (a point on an edge, not a corner). `Err` names what
/// went wrong (an open or doubled edge, a face that is not a disc).
pub(crate) fn merge_triangles(
    pts: &[DVec3],
    tris: &[[u32; 3]],
    tol: f64,
) -> Result<Vec<Vec<u32>>, String> {
    let nt = tris.len();
    let mut edge_tri: HashMap<(u32, u32), usize> = HashMap::with_capacity(3 * nt);
    for (t, tri) in tris.iter().enumerate() {
        for i in 0..3 {
            let e = (tri[i], tri[(i + 1) % 3]);
            if edge_tri.insert(e, t).is_some() {
                return Err(format!("edge {}→{} is used twice", e.0, e.1));
            }
        }
    }
    let mut adj = vec![[NONE; 3]; nt];
    for (t, tri) in tris.iter().enumerate() {
        for i in 0..3 {
            let (a, b) = (tri[i], tri[(i + 1) % 3]);
            match edge_tri.get(&(b, a)) {
                Some(&u) => adj[t][i] = u,
                None => return Err(format!("edge {a}→{b} has no neighbour (the mesh is open)")),
            }
        }
    }
    let p = |i: u32| pts[i as usize];
    let area: Vec<DVec3> = tris
        .iter()
        .map(|t| (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0])))
        .collect();
    let mut order: Vec<usize> = (0..nt).collect();
    order.sort_by(|&x, &y| {
        let (lx, ly) = (area[x].length_squared(), area[y].length_squared());
        ly.partial_cmp(&lx)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(x.cmp(&y))
    });

    let mut group = vec![NONE; nt];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &seed in &order {
        if group[seed] != NONE {
            continue;
        }
        let len = area[seed].length();
        if len <= 0.0 {
            // Only zero-area triangles are left and no face took this one.
            return Err(format!("triangle {seed} has no area and lies on no face"));
        }
        let u = area[seed] / len;
        let t = tris[seed];
        let d = (u.dot(p(t[0])) + u.dot(p(t[1])) + u.dot(p(t[2]))) / 3.0;
        let g = groups.len();
        group[seed] = g;
        let mut members = vec![seed];
        let mut next = 0;
        while next < members.len() {
            let cur = members[next];
            next += 1;
            for &nb in &adj[cur] {
                if group[nb] != NONE {
                    continue;
                }
                let tn = tris[nb];
                let on_plane = tn.iter().all(|&v| (u.dot(p(v)) - d).abs() <= tol);
                if on_plane && area[nb].dot(u) >= 0.0 {
                    group[nb] = g;
                    members.push(nb);
                }
            }
        }
        groups.push(members);
    }

    // Boundary loops.
    let mut loops: Vec<Vec<u32>> = Vec::with_capacity(groups.len());
    for (g, members) in groups.iter().enumerate() {
        let mut next: HashMap<u32, u32> = HashMap::new();
        for &t in members {
            for i in 0..3 {
                if group[adj[t][i]] != g {
                    let (a, b) = (tris[t][i], tris[t][(i + 1) % 3]);
                    if next.insert(a, b).is_some() {
                        return Err(format!("face {g} touches itself at vertex {a}"));
                    }
                }
            }
        }
        let Some(&start) = next.keys().min() else {
            return Err(format!("face {g} has no boundary"));
        };
        let mut lp = vec![start];
        let mut v = start;
        for _ in 0..next.len() {
            v = match next.get(&v) {
                Some(&w) => w,
                None => return Err(format!("face {g}'s boundary is open at vertex {v}")),
            };
            if v == start {
                break;
            }
            lp.push(v);
        }
        if v != start || lp.len() != next.len() {
            return Err(format!(
                "face {g} is not a disc (its boundary is not one loop)"
            ));
        }
        loops.push(lp);
    }

    // Drop vertices on a straight edge between two faces.
    loop {
        let mut faces_of: HashMap<u32, Vec<usize>> = HashMap::new();
        for (f, lp) in loops.iter().enumerate() {
            for &v in lp {
                faces_of.entry(v).or_default().push(f);
            }
        }
        let mut removed = false;
        let mut candidates: Vec<u32> = faces_of
            .iter()
            .filter(|(_, fs)| fs.len() == 2)
            .map(|(&v, _)| v)
            .collect();
        candidates.sort_unstable();
        for v in candidates {
            let f = faces_of[&v][0];
            let lp = &loops[f];
            let Some(k) = lp.iter().position(|&x| x == v) else {
                continue;
            };
            let prev = lp[(k + lp.len() - 1) % lp.len()];
            let nxt = lp[(k + 1) % lp.len()];
            if distance_to_line(p(v), p(prev), p(nxt)) <= tol {
                for &ff in &faces_of[&v] {
                    loops[ff].retain(|&x| x != v);
                }
                removed = true;
                break;
            }
        }
        if !removed {
            break;
        }
    }
    for (f, lp) in loops.iter().enumerate() {
        if lp.len() < 3 {
            return Err(format!("face {f} collapsed to {} vertices", lp.len()));
        }
    }
    Ok(loops)
}

/// Distance from `p` to the line through `a` and `b` (to `a` when they coincide).
fn distance_to_line(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let d = b - a;
    let l2 = d.length_squared();
    if l2 <= 0.0 {
        return (p - a).length();
    }
    (p - a).cross(d).length() / l2.sqrt()
}

/// Unit normal of a polygon by Newell's method about its centroid, in f64.
pub(crate) fn newell_normal(pts: &[DVec3]) -> DVec3 {
    let n = pts.len();
    let mut c = DVec3::ZERO;
    for q in pts {
        c += *q;
    }
    c /= n.max(1) as f64;
    let mut nn = DVec3::ZERO;
    for i in 0..n {
        let a = pts[i] - c;
        let b = pts[(i + 1) % n] - c;
        nn += a.cross(b);
    }
    nn.normalize_or_zero()
}

/// Builds a [`Hull`] from polygon loops over `points` (global indices, counter-clockwise from
/// outside): keeps the vertices the loops use (in index order), fits each face's plane (Newell
/// normal, rounded to f32, offset the mean of n·v over the loop), derives the unique edges, the
/// bounds and the centre of mass, and runs [`check_hull`] at `CHECK_FACTOR · tol`. Limits are
/// the caller's to check. `Err` carries the reason as an [`Error::InvalidInput`].
pub(crate) fn hull_from_loops(points: &[Vec3], loops: &[Vec<u32>], tol: f64) -> Result<Hull> {
    let bad = |value: String| Error::InvalidInput {
        what: "convex polyhedron",
        value,
        fix: "pass a closed convex polyhedron (see the message for the failing part)",
    };
    let mut used: Vec<u32> = loops.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    let mut local: HashMap<u32, u32> = HashMap::with_capacity(used.len());
    for (i, &g) in used.iter().enumerate() {
        local.insert(g, i as u32);
    }
    let vertices: Vec<Vec3> = used.iter().map(|&g| points[g as usize]).collect();
    let dv: Vec<DVec3> = vertices.iter().map(|v| v.as_dvec3()).collect();

    let mut faces = Vec::with_capacity(loops.len());
    let mut indices = Vec::new();
    let mut planes = Vec::with_capacity(loops.len());
    let mut local_loops: Vec<Vec<u32>> = Vec::with_capacity(loops.len());
    for lp in loops {
        let ll: Vec<u32> = lp.iter().map(|g| local[g]).collect();
        let poly: Vec<DVec3> = ll.iter().map(|&i| dv[i as usize]).collect();
        let n = newell_normal(&poly);
        if n == DVec3::ZERO {
            return Err(bad(format!("face {} has no area", faces.len())));
        }
        let n32 = n.as_vec3();
        let n64 = n32.as_dvec3();
        let d = poly.iter().map(|q| n64.dot(*q)).sum::<f64>() / poly.len() as f64;
        planes.push(n32.extend(d as f32));
        faces.push(HullFace {
            first: indices.len() as u32,
            count: ll.len() as u32,
        });
        indices.extend_from_slice(&ll);
        local_loops.push(ll);
    }

    let mut dir_face: HashMap<(u32, u32), u32> = HashMap::new();
    for (f, lp) in local_loops.iter().enumerate() {
        for k in 0..lp.len() {
            let e = (lp[k], lp[(k + 1) % lp.len()]);
            if dir_face.insert(e, f as u32).is_some() {
                return Err(bad(format!(
                    "edge {}→{} is used by two faces in the same direction",
                    e.0, e.1
                )));
            }
        }
    }
    let mut edges = Vec::new();
    for (f, lp) in local_loops.iter().enumerate() {
        for k in 0..lp.len() {
            let (a, b) = (lp[k], lp[(k + 1) % lp.len()]);
            let Some(&twin) = dir_face.get(&(b, a)) else {
                return Err(bad(format!("edge {a}→{b} of face {f} has no other face")));
            };
            if a < b {
                edges.push(HullEdge {
                    v0: a,
                    v1: b,
                    f0: f as u32,
                    f1: twin,
                });
            }
        }
    }

    let (volume, centre64, second) = volume_moments(&dv, &local_loops);
    if !(volume > 0.0 && volume.is_finite()) {
        return Err(bad(format!("the solid has volume {volume}")));
    }
    let mut r2: f64 = 0.0;
    let mut lo = Vec3::splat(f32::MAX);
    let mut hi = Vec3::splat(f32::MIN);
    for (v, v64) in vertices.iter().zip(&dv) {
        r2 = r2.max((*v64 - centre64).length_squared());
        lo = lo.min(*v);
        hi = hi.max(*v);
    }
    let mut inner = f64::MAX;
    for pl in &planes {
        let n = DVec3::new(pl.x as f64, pl.y as f64, pl.z as f64);
        inner = inner.min(pl.w as f64 - n.dot(centre64));
    }
    // Bounding radius rounded up by a few ulps so it bounds the f32 vertices about the f32
    // centre; the inner radius rounded down likewise.
    let hull = Hull {
        vertices,
        planes,
        faces,
        indices,
        edges,
        centre: centre64.as_vec3(),
        radius: (r2.sqrt() * (1.0 + 4.0 * f64::from(f32::EPSILON))) as f32,
        inner_radius: (inner.max(0.0) * (1.0 - 4.0 * f64::from(f32::EPSILON))) as f32,
        aabb_min: lo,
        aabb_max: hi,
        tolerance: (CHECK_FACTOR * tol) as f32,
        volume: volume as f32,
        unit_inertia: super::mass::unit_inertia(volume, &second),
    };
    check_hull(&hull, CHECK_FACTOR * tol).map_err(bad)?;
    Ok(hull)
}

/// The plane of `p` as f64 (normal, offset).
pub(crate) fn plane64(p: Vec4) -> (DVec3, f64) {
    (DVec3::new(p.x as f64, p.y as f64, p.z as f64), p.w as f64)
}
