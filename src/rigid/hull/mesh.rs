//! [`convex_mesh`]: a hull from a polyhedron made elsewhere, and the checks every cooked hull
//! passes (`check_hull`, `check_limits`). Host-side only.
//!
//! The input is checked in the order a user would fix it: finite vertices; faces of at least
//! three in-range, distinct indices; every vertex on some face; closed (every directed edge used
//! once and its reverse by another face); a sphere-like surface (V − E + F = 2); each face
//! planar; the whole convex (every vertex behind every face plane). Each failure names the face,
//! edge or vertex. The faces are then fan-triangulated and merged again like a quickhull's
//! (coplanar neighbours become one polygon, a vertex on a straight edge is dropped), so a
//! triangulated export of a box becomes the 6-quad box. Tolerances: see `faces.rs`.

use glam::{DVec3, Vec3};

use super::faces::{base_tolerance, hull_from_loops, merge_triangles, plane64, CHECK_FACTOR};
use super::layout::{Hull, MAX_FACE_VERTICES, MAX_HULL_FACES, MAX_HULL_VERTICES};
use crate::error::{finite3, Error, Result};

/// A hull from `vertices` and face loops `faces` (vertex indices, counter-clockwise seen from
/// outside). Errors name what failed: an index out of range, an unused vertex, an open or
/// doubled edge, a non-planar face, a vertex in front of a face (not convex, or faces wound
/// clockwise), or a limit ([`MAX_HULL_VERTICES`], [`MAX_HULL_FACES`], [`MAX_FACE_VERTICES`])
/// exceeded after coplanar faces are merged.
pub fn convex_mesh<F: AsRef<[u32]>>(vertices: &[Vec3], faces: &[F]) -> Result<Hull> {
    let err = |value: String, fix: &'static str| Error::InvalidInput {
        what: "convex mesh",
        value,
        fix,
    };
    if vertices.len() < 4 || faces.len() < 4 {
        return Err(err(
            format!("{} vertices and {} faces", vertices.len(), faces.len()),
            "a closed polyhedron needs at least 4 vertices and 4 faces",
        ));
    }
    for v in vertices {
        finite3("convex mesh vertex", *v)?;
    }
    let nv = vertices.len();
    let mut used = vec![false; nv];
    for (f, face) in faces.iter().enumerate() {
        let lp = face.as_ref();
        if lp.len() < 3 {
            return Err(err(
                format!("face {f} has {} vertices", lp.len()),
                "give every face at least 3 vertices",
            ));
        }
        for (k, &i) in lp.iter().enumerate() {
            if i as usize >= nv {
                return Err(err(
                    format!("face {f} uses vertex {i} but there are {nv} vertices"),
                    "use vertex indices below the vertex count",
                ));
            }
            if lp[..k].contains(&i) {
                return Err(err(
                    format!("face {f} uses vertex {i} twice"),
                    "list each vertex of a face once",
                ));
            }
            used[i as usize] = true;
        }
    }
    if let Some(v) = used.iter().position(|&u| !u) {
        return Err(err(
            format!("vertex {v} is on no face"),
            "remove vertices that no face uses",
        ));
    }
    let mut dir = std::collections::HashMap::new();
    let mut edge_count = 0usize;
    for (f, face) in faces.iter().enumerate() {
        let lp = face.as_ref();
        for k in 0..lp.len() {
            let e = (lp[k], lp[(k + 1) % lp.len()]);
            if let Some(g) = dir.insert(e, f) {
                return Err(err(
                    format!("edge {}→{} is used by faces {g} and {f} in the same direction", e.0, e.1),
                    "wind every face counter-clockwise seen from outside, and share each edge by exactly two faces",
                ));
            }
            edge_count += 1;
        }
    }
    for (f, face) in faces.iter().enumerate() {
        let lp = face.as_ref();
        for k in 0..lp.len() {
            let (a, b) = (lp[k], lp[(k + 1) % lp.len()]);
            if !dir.contains_key(&(b, a)) {
                return Err(err(
                    format!("edge {a}→{b} of face {f} has no neighbouring face (the mesh is open)"),
                    "close the mesh: every edge must be shared by exactly two faces",
                ));
            }
        }
    }
    let euler = nv as i64 - (edge_count / 2) as i64 + faces.len() as i64;
    if euler != 2 {
        return Err(err(
            format!("V − E + F = {euler}, not 2"),
            "pass one closed surface without holes or handles",
        ));
    }

    let tol = base_tolerance(vertices);
    let check = CHECK_FACTOR * tol;
    let dv: Vec<DVec3> = vertices.iter().map(|v| v.as_dvec3()).collect();
    let mut inward = 0usize;
    let mut first_bad: Option<(usize, usize, f64)> = None;
    for (f, face) in faces.iter().enumerate() {
        let poly: Vec<DVec3> = face.as_ref().iter().map(|&i| dv[i as usize]).collect();
        let n = super::faces::newell_normal(&poly);
        if n == DVec3::ZERO {
            return Err(err(
                format!("face {f} has no area"),
                "remove degenerate faces",
            ));
        }
        let d = poly.iter().map(|q| n.dot(*q)).sum::<f64>() / poly.len() as f64;
        for (k, q) in poly.iter().enumerate() {
            let off = (n.dot(*q) - d).abs();
            if off > check {
                return Err(err(
                    format!(
                        "face {f} is not planar: its vertex {} is {off:e} from the face's plane \
                         (tolerance {check:e})",
                        face.as_ref()[k]
                    ),
                    "split non-planar faces into triangles",
                ));
            }
        }
        let (mut front, mut behind) = (0usize, 0usize);
        for (v, q) in dv.iter().enumerate() {
            let h = n.dot(*q) - d;
            if h > check {
                front += 1;
                if first_bad.is_none() {
                    first_bad = Some((f, v, h));
                }
            } else if h < -check {
                behind += 1;
            }
        }
        // Every other vertex in front and none behind: the face is wound inwards.
        if front > 0 && behind == 0 {
            inward += 1;
        }
    }
    if let Some((f, v, h)) = first_bad {
        let fix = if 2 * inward > faces.len() {
            "most faces face inwards: wind the faces counter-clockwise seen from outside"
        } else {
            "pass a convex polyhedron (or build one from the points with convex_hull)"
        };
        return Err(err(
            format!("not convex: vertex {v} is {h:e} in front of face {f} (tolerance {check:e})"),
            fix,
        ));
    }

    let mut tris = Vec::new();
    for face in faces {
        let lp = face.as_ref();
        for k in 1..lp.len() - 1 {
            tris.push([lp[0], lp[k], lp[k + 1]]);
        }
    }
    let loops = merge_triangles(&dv, &tris, tol).map_err(|m| {
        err(
            m,
            "pass a closed convex polyhedron with outward-wound faces",
        )
    })?;
    let hull = hull_from_loops(vertices, &loops, tol)?;
    check_limits(&hull, "simplify the mesh, or cook it from its vertices with convex_hull_with(.., HullOptions::default().simplify_to(64))")?;
    Ok(hull)
}

/// The hull's sizes against the layout's limits.
pub(crate) fn check_limits(h: &Hull, fix: &'static str) -> Result<()> {
    let sizes: Vec<usize> = h.faces.iter().map(|f| f.count as usize).collect();
    check_counts(h.vertices.len(), &sizes, fix)
}

/// A vertex count and face sizes against the layout's limits.
pub(crate) fn check_counts(vertices: usize, face_sizes: &[usize], fix: &'static str) -> Result<()> {
    if vertices > MAX_HULL_VERTICES as usize {
        return Err(Error::TooMany {
            what: "hull vertices",
            count: vertices,
            max: MAX_HULL_VERTICES,
            fix,
        });
    }
    if face_sizes.len() > MAX_HULL_FACES as usize {
        return Err(Error::TooMany {
            what: "hull faces",
            count: face_sizes.len(),
            max: MAX_HULL_FACES,
            fix,
        });
    }
    if let Some(&n) = face_sizes.iter().find(|&&n| n > MAX_FACE_VERTICES as usize) {
        return Err(Error::TooMany {
            what: "vertices on one hull face",
            count: n,
            max: MAX_FACE_VERTICES,
            fix,
        });
    }
    Ok(())
}

/// The checks every cooked hull passes, at tolerance `tol` (a distance): at least 4 vertices and
/// faces; loops of at least 3 distinct in-range vertices; unit, finite planes; each face's
/// vertices within `tol` of its plane; each face a convex polygon (every loop vertex within
/// `tol` behind each side's plane); every vertex within `tol` behind every face plane; every
/// edge stored once with two different faces; V − E + F = 2. `Err` says which failed.
pub(crate) fn check_hull(h: &Hull, tol: f64) -> Result<(), String> {
    let nv = h.vertices.len();
    let nf = h.faces.len();
    if nv < 4 || nf < 4 || h.planes.len() != nf {
        return Err(format!(
            "{nv} vertices, {nf} faces, {} planes",
            h.planes.len()
        ));
    }
    let dv: Vec<DVec3> = h.vertices.iter().map(|v| v.as_dvec3()).collect();
    for f in 0..nf {
        let lp = h.face_loop(f);
        if lp.len() < 3 || lp.len() != h.faces[f].count as usize {
            return Err(format!("face {f} has a loop of {} vertices", lp.len()));
        }
        for (k, &i) in lp.iter().enumerate() {
            if i as usize >= nv || lp[..k].contains(&i) {
                return Err(format!("face {f} has a bad or repeated vertex {i}"));
            }
        }
        let pl = h.planes[f];
        let (n, d) = plane64(pl);
        // A unit vector rounded to f32 is within a few ulps of length 1.
        if !pl.is_finite() || (n.length() - 1.0).abs() > 8.0 * f64::from(f32::EPSILON) {
            return Err(format!("face {f} has a bad plane {pl:?}"));
        }
        for &i in lp {
            let off = (n.dot(dv[i as usize]) - d).abs();
            if off > tol {
                return Err(format!("face {f}: vertex {i} is {off:e} off its plane"));
            }
        }
        for k in 0..lp.len() {
            let a = dv[lp[k] as usize];
            let b = dv[lp[(k + 1) % lp.len()] as usize];
            let s = (b - a).cross(n);
            let sl = s.length();
            if sl <= 0.0 {
                return Err(format!("face {f} has a zero-length side"));
            }
            for &i in lp {
                let out = s.dot(dv[i as usize] - a) / sl;
                if out > tol {
                    return Err(format!(
                        "face {f} is not a convex polygon ({out:e} at vertex {i})"
                    ));
                }
            }
        }
        for (i, q) in dv.iter().enumerate() {
            let h = n.dot(*q) - d;
            if h > tol {
                return Err(format!("vertex {i} is {h:e} in front of face {f}"));
            }
        }
    }
    for (e, edge) in h.edges.iter().enumerate() {
        if edge.f0 == edge.f1 || edge.f0 as usize >= nf || edge.f1 as usize >= nf {
            return Err(format!("edge {e} joins faces {} and {}", edge.f0, edge.f1));
        }
    }
    if 2 * h.edges.len() != h.indices.len() {
        return Err(format!(
            "{} edges for {} loop indices",
            h.edges.len(),
            h.indices.len()
        ));
    }
    let euler = nv as i64 - h.edges.len() as i64 + nf as i64;
    if euler != 2 {
        return Err(format!("V − E + F = {euler}"));
    }
    Ok(())
}
