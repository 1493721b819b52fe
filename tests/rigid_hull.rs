//! Convex hull cooking: quickhull against brute force and adversarial clouds, `convex_mesh`'s
//! checks, and the store's word layout. Each test compares with an independent reference
//! (brute force or a closed form, in f64, in `rigid_hull/reference.rs`), and every tolerance
//! says why it is that size. The queries (mass properties, GJK, EPA, SAT, the manifold,
//! conservative advancement) are `rigid_hull_queries.rs`.

#[path = "rigid_hull/reference.rs"]
mod reference;

use glam::{DVec3, Quat, Vec3, Vec4Swizzles};
use reference::*;
use wgphys::error::Error;
use wgphys::rigid::hull::*;

/// The cooking tolerance of a cloud: 4 ulps of its magnitude, max|x| + max|y| + max|z| (the
/// library's documented base tolerance, `faces.rs`), and the checks' 4 times that.
fn check_tol(points: &[Vec3]) -> f64 {
    let mut m = DVec3::ZERO;
    for p in points {
        m = m.max(p.as_dvec3().abs());
    }
    16.0 * EPS * (m.x + m.y + m.z)
}

/// Everything a cooked hull must satisfy, checked independently in f64: every point of `cloud`
/// within `tol` behind every face plane; each face planar within `tol`, a convex polygon
/// within `tol`, at most 32 vertices; unit planes; V − E + F = 2; every edge's faces are the
/// faces whose loops hold it in each direction; the limits.
fn assert_valid(h: &Hull, cloud: &[Vec3], tol: f64) {
    let nv = h.vertices().len();
    let nf = h.faces().len();
    assert!(nv >= 4 && nv <= MAX_HULL_VERTICES as usize, "{nv} vertices");
    assert!(nf >= 4 && nf <= MAX_HULL_FACES as usize, "{nf} faces");
    assert_eq!(nv as i64 - h.edges().len() as i64 + nf as i64, 2, "Euler");
    let v: Vec<DVec3> = h.vertices().iter().map(|x| x.as_dvec3()).collect();
    for f in 0..nf {
        let lp = h.face_loop(f);
        assert!(lp.len() >= 3 && lp.len() <= MAX_FACE_VERTICES as usize);
        let pl = h.planes()[f];
        let n = pl.xyz().as_dvec3();
        let d = pl.w as f64;
        // A unit vector rounded to f32 has length 1 within a few ulps.
        assert!((n.length() - 1.0).abs() < 4.0 * EPS, "plane {f} not unit");
        for &i in lp {
            assert!(
                (n.dot(v[i as usize]) - d).abs() <= tol,
                "face {f} not planar"
            );
        }
        for k in 0..lp.len() {
            let a = v[lp[k] as usize];
            let b = v[lp[(k + 1) % lp.len()] as usize];
            let s = (b - a).cross(n).normalize();
            for &i in lp {
                assert!(
                    s.dot(v[i as usize] - a) <= tol,
                    "face {f} not a convex polygon"
                );
            }
        }
        for p in cloud {
            let out = n.dot(p.as_dvec3()) - d;
            assert!(
                out <= tol,
                "point {p:?} is {out:e} outside face {f} (tol {tol:e})"
            );
        }
    }
    for e in h.edges() {
        let l0 = h.face_loop(e.f0 as usize);
        let l1 = h.face_loop(e.f1 as usize);
        let runs = |lp: &[u32], a: u32, b: u32| {
            (0..lp.len()).any(|k| lp[k] == a && lp[(k + 1) % lp.len()] == b)
        };
        assert!(runs(l0, e.v0, e.v1) && runs(l1, e.v1, e.v0), "edge {e:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Quickhull.

/// Brute force over all point triples: a triple whose plane has every other point behind it
/// is a facet of the hull (in general position all facets are triangles). Facets that clear
/// every other point by more than `margin` must appear as hull faces; their vertices must be
/// hull vertices; and every hull vertex must lie on some supporting triple's plane.
#[test]
fn quickhull_matches_brute_force_on_random_clouds() {
    let mut rng = Rng::new(1);
    let mut compared = 0;
    for cloud_id in 0..150 {
        let n = rng.int(4, 36);
        let pts: Vec<Vec3> = if cloud_id % 3 == 0 {
            (0..n).map(|_| rng.on_sphere() * 2.0).collect()
        } else {
            (0..n)
                .map(|_| rng.in_ball() * Vec3::new(1.0, 0.5, 2.0))
                .collect()
        };
        let tol = check_tol(&pts);
        // A decision closer than 10 tolerances to a tie may go either way within tolerance.
        let margin = 10.0 * tol;
        let p: Vec<DVec3> = pts.iter().map(|x| x.as_dvec3()).collect();
        let mut clear_facets = Vec::new();
        let mut support_vertex = vec![false; n];
        for i in 0..n {
            for j in i + 1..n {
                for k in j + 1..n {
                    let nn = (p[j] - p[i]).cross(p[k] - p[i]);
                    if nn.length() == 0.0 {
                        continue;
                    }
                    let u = nn.normalize();
                    for s in [1.0, -1.0] {
                        let u = u * s;
                        let d = u.dot(p[i]);
                        let worst = (0..n)
                            .filter(|&m| m != i && m != j && m != k)
                            .map(|m| u.dot(p[m]) - d)
                            .fold(f64::MIN, f64::max);
                        if worst <= tol {
                            support_vertex[i] = true;
                            support_vertex[j] = true;
                            support_vertex[k] = true;
                        }
                        if worst < -margin {
                            clear_facets.push((u, [i, j, k]));
                        }
                    }
                }
            }
        }
        let hull = match convex_hull(&pts) {
            Ok(h) => h,
            Err(Error::TooMany { .. }) => {
                assert!(clear_facets.len() > MAX_HULL_FACES as usize);
                continue;
            }
            Err(e) => panic!("cloud {cloud_id}: {e}"),
        };
        assert_valid(&hull, &pts, tol);
        // Input in general position cooks at the base tolerance, without a retry (1e-6: the
        // reported tolerance is rounded to f32).
        assert!((hull.tolerance() as f64 - tol).abs() <= 1e-6 * tol);
        let verts: Vec<usize> = hull
            .vertices()
            .iter()
            .map(|v| {
                pts.iter()
                    .position(|q| q == v)
                    .expect("hull vertex is an input point")
            })
            .collect();
        for &vi in &verts {
            assert!(
                support_vertex[vi],
                "cloud {cloud_id}: vertex {vi} supports no plane"
            );
        }
        for (u, tri) in &clear_facets {
            for &t in tri {
                assert!(
                    verts.contains(&t),
                    "cloud {cloud_id}: facet vertex {t} missing"
                );
            }
            // The matching face: its normal agrees with the facet's. The face's normal is the
            // f64 Newell normal of the same three points rounded to f32 (a few ε), so
            // cos ≥ 1 − 1e-6 (an angle of 1.4e-3 rad) leaves a wide margin while still telling
            // apart any two faces of these clouds.
            let found = (0..hull.faces().len()).any(|f| {
                let lp = hull.face_loop(f);
                tri.iter()
                    .all(|&t| lp.iter().any(|&i| verts[i as usize] == t))
                    && hull.planes()[f].xyz().as_dvec3().dot(*u) > 1.0 - 1e-6
            });
            assert!(found, "cloud {cloud_id}: facet {tri:?} is no hull face");
            compared += 1;
        }
    }
    assert!(compared > 1000, "only {compared} facets compared");
}

/// A cube with points on its faces, edges and inside: 8 vertices, 6 quads, 12 edges, planes
/// on the axes; and the same after an f32 rotation and a far translation (rounding makes the
/// face points coplanar only to a few ulps).
#[test]
fn quickhull_cube_with_coplanar_and_collinear_points() {
    let mut rng = Rng::new(2);
    let mut pts = cube_points(1.0);
    for _ in 0..200 {
        let mut p = Vec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        );
        match rng.int(0, 3) {
            0 => {
                let axis = rng.int(0, 3);
                p[axis] = if rng.f() < 0.5 { -1.0 } else { 1.0 };
            }
            1 => {
                let axis = rng.int(0, 3);
                for k in 0..3 {
                    if k != axis {
                        p[k] = if rng.f() < 0.5 { -1.0 } else { 1.0 };
                    }
                }
            }
            _ => {}
        }
        pts.push(p);
    }
    let h = convex_hull(&pts).unwrap();
    assert_eq!(
        (h.vertices().len(), h.faces().len(), h.edges().len()),
        (8, 6, 12)
    );
    for f in 0..6 {
        assert_eq!(h.face_loop(f).len(), 4);
        let n = h.planes()[f].xyz();
        assert_eq!(n.abs().max_element(), 1.0, "axis-aligned normal {n:?}");
    }
    assert_valid(&h, &pts, check_tol(&pts));
    for _ in 0..20 {
        let q = rng.rotation();
        let t = Vec3::new(1000.0, -500.0, 250.0) * rng.f();
        let moved: Vec<Vec3> = pts.iter().map(|p| q * *p + t).collect();
        let h = convex_hull(&moved).unwrap();
        assert_eq!(
            (h.vertices().len(), h.faces().len(), h.edges().len()),
            (8, 6, 12)
        );
        assert_valid(&h, &moved, check_tol(&moved));
    }
}

/// Duplicates (each point three times, and once more moved by one ulp) change nothing.
#[test]
fn quickhull_duplicates() {
    let mut rng = Rng::new(3);
    for _ in 0..20 {
        let base: Vec<Vec3> = (0..20).map(|_| rng.in_ball()).collect();
        let mut pts = Vec::new();
        for p in &base {
            pts.extend([*p, *p, *p]);
            pts.push(Vec3::new(
                f32::from_bits(p.x.to_bits() + 1),
                p.y,
                f32::from_bits(p.z.to_bits() + 1),
            ));
        }
        let a = convex_hull(&base).unwrap();
        let b = convex_hull(&pts).unwrap();
        assert_valid(&b, &pts, check_tol(&pts));
        assert_eq!(a.faces().len(), b.faces().len());
        assert_eq!(a.vertices().len(), b.vertices().len());
    }
}

/// Cocircular points: a cylinder of two 24-point rings has two 24-gon caps and 24 quads; a UV
/// sphere of 8 meridians × 5 latitude rings plus poles is valid with V − E + F = 2.
#[test]
fn quickhull_cocircular() {
    let mut rng = Rng::new(4);
    for trial in 0..10 {
        let q = if trial == 0 {
            Quat::IDENTITY
        } else {
            rng.rotation()
        };
        let mut pts = Vec::new();
        for k in 0..24 {
            let a = k as f32 * std::f32::consts::TAU / 24.0;
            for y in [-0.7, 0.7] {
                pts.push(q * Vec3::new(a.cos(), y, a.sin()));
            }
        }
        let h = convex_hull(&pts).unwrap();
        assert_eq!((h.vertices().len(), h.faces().len()), (48, 26));
        let mut sizes: Vec<usize> = (0..26).map(|f| h.face_loop(f).len()).collect();
        sizes.sort_unstable();
        assert_eq!(sizes[..24], [4; 24]);
        assert_eq!(sizes[24..], [24, 24]);
        assert_valid(&h, &pts, check_tol(&pts));

        let mut pts = vec![q * Vec3::Y, q * Vec3::NEG_Y];
        for ring in 1..6 {
            let lat = ring as f32 * std::f32::consts::PI / 6.0;
            for k in 0..8 {
                let a = k as f32 * std::f32::consts::TAU / 8.0;
                pts.push(q * Vec3::new(lat.sin() * a.cos(), lat.cos(), lat.sin() * a.sin()));
            }
        }
        let h = convex_hull(&pts).unwrap();
        assert_eq!(h.vertices().len(), 42);
        assert_valid(&h, &pts, check_tol(&pts));
    }
}

/// Slivers and extreme scales: a 1 × 1 × 1e-4 slab with points on its faces has 8 vertices and
/// 6 faces; a cube of size 1e-20 or 1e20 is a valid 8-vertex hull (the tolerances scale with
/// the cloud).
#[test]
fn quickhull_slivers_and_scales() {
    let mut rng = Rng::new(5);
    for scale in [
        Vec3::new(1.0, 1e-4, 1.0),
        Vec3::splat(1e-20),
        Vec3::splat(1e20),
    ] {
        let q = rng.rotation();
        let mut pts: Vec<Vec3> = cube_points(1.0).iter().map(|p| q * (*p * scale)).collect();
        for _ in 0..50 {
            let mut p = Vec3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
            p.y = if rng.f() < 0.5 { -1.0 } else { 1.0 };
            pts.push(q * (p * scale));
        }
        let h = convex_hull(&pts).unwrap();
        assert_eq!(
            (h.vertices().len(), h.faces().len()),
            (8, 6),
            "scale {scale:?}"
        );
        assert_valid(&h, &pts, check_tol(&pts));
    }
    // An icosahedron with points on its faces: 12 vertices, 20 triangles.
    let t = (1.0 + 5f32.sqrt()) / 2.0;
    let mut ico = Vec::new();
    for a in [-1.0, 1.0] {
        for b in [-t, t] {
            ico.push(Vec3::new(0.0, a, b));
            ico.push(Vec3::new(a, b, 0.0));
            ico.push(Vec3::new(b, 0.0, a));
        }
    }
    let h0 = convex_hull(&ico).unwrap();
    let mut pts = ico.clone();
    for f in 0..h0.faces().len() {
        let lp = h0.face_loop(f);
        for _ in 0..5 {
            let (u, v) = (rng.f(), rng.f());
            let (u, v) = if u + v > 1.0 {
                (1.0 - u, 1.0 - v)
            } else {
                (u, v)
            };
            let [a, b, c] = [0, 1, 2].map(|k| h0.vertices()[lp[k] as usize]);
            pts.push(a + (b - a) * u + (c - a) * v);
        }
    }
    let h = convex_hull(&pts).unwrap();
    assert_eq!((h.vertices().len(), h.faces().len()), (12, 20));
    assert_valid(&h, &pts, check_tol(&pts));
}

/// Near-degenerate clouds at the edge of the tolerance: slabs whose thickness is a small
/// multiple of the cooking tolerance, box surfaces with one-ulp noise, far-translated
/// cylinders, near-duplicate clusters, points near one line. Each gives a hull valid to its
/// reported tolerance, or an InvalidInput error; never a panic or another error. A hull
/// cooked without a retry reports the base check tolerance; a retry may coarsen it at most
/// 8³ = 512 times (the documented limit).
#[test]
fn quickhull_near_degenerate_stress() {
    let mut rng = Rng::new(9);
    let (mut ok, mut refused, mut retried) = (0, 0, 0);
    for trial in 0..600 {
        let q = rng.rotation();
        let far = Vec3::new(
            rng.range(-1e3, 1e3),
            rng.range(-1e3, 1e3),
            rng.range(-1e3, 1e3),
        );
        let mut pts: Vec<Vec3> = Vec::new();
        match trial % 5 {
            0 => {
                // A slab 1 × 1 × t with t a few base tolerances (4 ulps of the magnitude 2).
                let t = [0.25f32, 1.0, 3.0, 10.0, 100.0][rng.int(0, 5)] * 8.0 * f32::EPSILON;
                for _ in 0..40 {
                    let p = Vec3::new(rng.range(-1.0, 1.0), rng.range(-t, t), rng.range(-1.0, 1.0));
                    pts.push(q * p);
                }
            }
            1 => {
                for _ in 0..60 {
                    let mut p = Vec3::new(
                        rng.range(-1.0, 1.0),
                        rng.range(-0.5, 0.5),
                        rng.range(-0.2, 0.2),
                    );
                    let axis = rng.int(0, 3);
                    p[axis] = [1.0, 0.5, 0.2][axis] * if rng.f() < 0.5 { -1.0 } else { 1.0 };
                    let p = q * p + far;
                    let k = rng.int(0, 3);
                    let mut p2 = p;
                    p2[k] = f32::from_bits(p2[k].to_bits() ^ 1);
                    pts.push(p2);
                }
            }
            2 => {
                let n = rng.int(3, 30);
                for k in 0..n {
                    let a = k as f32 * std::f32::consts::TAU / n as f32;
                    for y in [-0.3, 0.3] {
                        pts.push(q * Vec3::new(a.cos(), y, a.sin()) + far);
                    }
                }
            }
            3 => {
                for _ in 0..8 {
                    let c = rng.in_ball();
                    for _ in 0..5 {
                        let mut p = c;
                        for k in 0..3 {
                            p[k] =
                                f32::from_bits(p[k].to_bits().wrapping_add(rng.int(0, 4) as u32));
                        }
                        pts.push(p);
                    }
                }
            }
            _ => {
                let d = rng.on_sphere();
                let off = rng.on_sphere().cross(d).normalize_or_zero() * rng.range(0.0, 1e-5);
                for _ in 0..30 {
                    pts.push(d * rng.range(-1.0, 1.0) + off * rng.f());
                }
                pts.push(rng.on_sphere() * 1e-6);
            }
        }
        match convex_hull(&pts) {
            Ok(h) => {
                let base = check_tol(&pts);
                let tol = h.tolerance() as f64;
                // 1e-6: the reported tolerance is rounded to f32.
                assert!(
                    tol <= 512.0 * base * (1.0 + 1e-6),
                    "trial {trial}: tolerance {tol}"
                );
                if tol > base * (1.0 + 1e-6) {
                    retried += 1;
                }
                assert_valid(&h, &pts, tol * (1.0 + 1e-6));
                ok += 1;
            }
            Err(Error::InvalidInput { .. }) => refused += 1,
            Err(e) => panic!("trial {trial}: {e}"),
        }
    }
    eprintln!("near-degenerate: {ok} hulls ({retried} after a retry), {refused} refused");
    assert!(ok > 300 && refused > 20, "{ok} / {refused}");
}

fn is_invalid(r: Result<Hull, Error>) -> bool {
    matches!(r, Err(Error::InvalidInput { .. }))
}

/// Degenerate input is an error, never a panic.
#[test]
fn quickhull_errors_for_degenerate_input() {
    let mut rng = Rng::new(6);
    assert!(is_invalid(convex_hull(&[Vec3::X, Vec3::Y, Vec3::Z])));
    assert!(is_invalid(convex_hull(&[Vec3::ONE; 10])));
    assert!(is_invalid(convex_hull(&[Vec3::ZERO; 10])));
    let line: Vec<Vec3> = (0..20)
        .map(|i| Vec3::new(1.0, 2.0, 3.0) * i as f32)
        .collect();
    assert!(is_invalid(convex_hull(&line)));
    let q = rng.rotation();
    let plane: Vec<Vec3> = (0..50)
        .map(|_| q * Vec3::new(rng.range(-1.0, 1.0), 0.0, rng.range(-1.0, 1.0)) + Vec3::ONE)
        .collect();
    assert!(is_invalid(convex_hull(&plane)));
    let mut bad = cube_points(1.0);
    bad[3].y = f32::NAN;
    assert!(is_invalid(convex_hull(&bad)));
    bad[3].y = f32::INFINITY;
    assert!(is_invalid(convex_hull(&bad)));
    assert!(is_invalid(convex_hull_with(
        &cube_points(1.0),
        &HullOptions::default().simplify_to(3)
    )));
}

/// More than 64 vertices is a TooMany error naming the fix; `simplify_to` then keeps at most
/// that many input points in a valid hull inside the full one.
#[test]
fn quickhull_limit_and_simplify() {
    let mut rng = Rng::new(7);
    let pts: Vec<Vec3> = (0..300).map(|_| rng.on_sphere()).collect();
    match convex_hull(&pts) {
        Err(Error::TooMany {
            what,
            count,
            max,
            fix,
        }) => {
            assert!(count > max as usize, "{what}");
            assert!(fix.contains("simplify_to"));
        }
        other => panic!("expected TooMany, got {other:?}"),
    }
    let tol = check_tol(&pts);
    let mut prev_err = f64::MAX;
    let mut prev_verts: Vec<Vec3> = Vec::new();
    for budget in [8u32, 12, 16, 24, 32, 48, 64] {
        let h = convex_hull_with(&pts, &HullOptions::default().simplify_to(budget)).unwrap();
        assert!(h.vertices().len() <= budget as usize);
        assert_valid(&h, h.vertices(), tol);
        for v in h.vertices() {
            assert!(pts.contains(v));
        }
        // Budgets run the same eye sequence, so each hull contains the smaller budget's: on a
        // sphere every point stays extreme, so the vertex sets are nested, and no input point
        // is farther (exact distance) from a larger budget's hull. The tolerance allows for
        // merging moving faces by up to the cooking tolerance.
        for v in &prev_verts {
            assert!(h.vertices().contains(v), "budget {budget} lost {v:?}");
        }
        let w = world(&h, &Frame::IDENTITY);
        let err = pts
            .iter()
            .map(|p| point_distance(p.as_dvec3(), &w))
            .fold(f64::MIN, f64::max);
        assert!(err <= prev_err + tol, "budget {budget}: {err} > {prev_err}");
        prev_err = err;
        prev_verts = h.vertices().to_vec();
    }
}

/// Eight clusters of 12 points, each within ρ of a cube corner (many hull vertices):
/// simplified to 8 it keeps one point per cluster, because a point of an unrepresented cluster
/// lies about a cube edge (≫ ρ) outside any hull missing it while represented clusters are
/// within 2ρ; so every input point is within 2ρ (+ the cooking tolerance) of the result.
#[test]
fn quickhull_simplify_clusters() {
    let mut rng = Rng::new(8);
    let rho = 0.01;
    let mut pts = Vec::new();
    for c in cube_points(1.0) {
        for _ in 0..12 {
            pts.push(c - c.signum() * (rng.on_sphere().abs() * rho));
        }
    }
    // The full hull has more than 8 vertices (or too many), so simplifying does work here.
    match convex_hull(&pts) {
        Ok(full) => assert!(full.vertices().len() > 8),
        Err(Error::TooMany { .. }) => {}
        Err(e) => panic!("{e}"),
    }
    let h = convex_hull_with(&pts, &HullOptions::default().simplify_to(8)).unwrap();
    assert_eq!(h.vertices().len(), 8);
    let w = world(&h, &Frame::IDENTITY);
    for p in &pts {
        assert!(point_distance(p.as_dvec3(), &w) <= 2.0 * rho as f64 + check_tol(&pts));
    }
}

// ---------------------------------------------------------------------------------------------
// convex_mesh.

fn cube_quads() -> Vec<Vec<u32>> {
    vec![
        vec![0, 2, 6, 4],
        vec![1, 5, 7, 3],
        vec![0, 4, 5, 1],
        vec![2, 3, 7, 6],
        vec![0, 1, 3, 2],
        vec![4, 6, 7, 5],
    ]
}

fn mesh_err(r: Result<Hull, Error>, word: &str) {
    match r {
        Err(Error::InvalidInput { value, .. }) => {
            assert!(value.contains(word), "message {value:?} lacks {word:?}")
        }
        other => panic!("expected an error about {word}, got {other:?}"),
    }
}

#[test]
fn convex_mesh_accepts_polyhedra_and_names_failures() {
    let v = cube_points(0.5);
    let h = convex_mesh(&v, &cube_quads()).unwrap();
    assert_eq!((h.vertices().len(), h.faces().len()), (8, 6));
    assert_valid(&h, &v, check_tol(&v));
    // Triangulated: the coplanar pairs merge back into quads.
    let tris: Vec<Vec<u32>> = cube_quads()
        .iter()
        .flat_map(|q| [vec![q[0], q[1], q[2]], vec![q[0], q[2], q[3]]])
        .collect();
    let h = convex_mesh(&v, &tris).unwrap();
    assert_eq!((h.vertices().len(), h.faces().len()), (8, 6));
    // The cuboid constructor gives the same solid.
    let c = Hull::cuboid(Vec3::splat(0.5)).unwrap();
    assert_eq!(
        (c.vertices().len(), c.faces().len(), c.edges().len()),
        (8, 6, 12)
    );

    let mut q = cube_quads();
    q[0][2] = 9;
    mesh_err(convex_mesh(&v, &q), "vertex 9");
    mesh_err(convex_mesh(&v, &cube_quads()[..5]), "open");
    let mut q = cube_quads();
    q[0].reverse();
    mesh_err(convex_mesh(&v, &q), "same direction");
    let inward: Vec<Vec<u32>> = cube_quads()
        .into_iter()
        .map(|mut f| {
            f.reverse();
            f
        })
        .collect();
    match convex_mesh(&v, &inward) {
        Err(Error::InvalidInput { fix, value, .. }) => {
            assert!(fix.contains("counter-clockwise"), "{value} {fix}")
        }
        other => panic!("{other:?}"),
    }
    let mut bent = v.clone();
    bent[0] += Vec3::new(0.0, 0.0, 0.1);
    mesh_err(convex_mesh(&bent, &cube_quads()), "not planar");
    // A dented box: vertex 0 pushed inwards along the diagonal, faces split into triangles
    // (so they stay planar), is not convex.
    let mut dent = v.clone();
    dent[0] *= 0.5;
    mesh_err(convex_mesh(&dent, &tris), "not convex");
    let mut extra = v.clone();
    extra.push(Vec3::ZERO);
    mesh_err(convex_mesh(&extra, &cube_quads()), "on no face");
    // A prism with 40-gon caps has 80 vertices: too many.
    let mut pv = Vec::new();
    for k in 0..40 {
        let a = k as f32 * std::f32::consts::TAU / 40.0;
        pv.push(Vec3::new(a.cos(), -0.5, a.sin()));
        pv.push(Vec3::new(a.cos(), 0.5, a.sin()));
    }
    let mut pf: Vec<Vec<u32>> = vec![
        (0..40).map(|k| 2 * k).collect(),
        (0..40).rev().map(|k| 2 * k + 1).collect(),
    ];
    for k in 0..40u32 {
        let j = (k + 1) % 40;
        pf.push(vec![2 * k, 2 * k + 1, 2 * j + 1, 2 * j]);
    }
    assert!(matches!(convex_mesh(&pv, &pf), Err(Error::TooMany { .. })));
}

// ---------------------------------------------------------------------------------------------
// Layout.

/// A store hands back exactly the hull it was given through the accessors the per-pair routines
/// use (the packed edges, faces and loops unpacked, the header's counts and bounds), every
/// hull's block is `Hull::words` long, the unit cube opens the store and scales to a box, and a
/// header index beyond the store reads zeros instead of panicking.
#[test]
fn layout_store_round_trip() {
    assert_eq!(
        std::mem::size_of::<GpuHullHeader>(),
        16 * HULL_HEADER_WORDS as usize
    );
    let mut rng = Rng::new(50);
    let mut store = HullStore::new();
    let cube = store.hull(UNIT_CUBE);
    assert_eq!(
        (cube.vertex_count, cube.face_count, cube.edge_count),
        (8, 6, 12)
    );
    let hulls: Vec<Hull> = (0..10).map(|_| random_hull(&mut rng, 30, 1.0)).collect();
    let refs: Vec<HullRef> = hulls.iter().map(|h| store.add(h).unwrap()).collect();
    let mut end = Hull::cuboid(Vec3::ONE).unwrap().words();
    for (h, r) in hulls.iter().zip(&refs) {
        assert_eq!(r.base, end, "blocks follow each other");
        end += h.words();
        assert_eq!(store.hull(r.base), *r);
        assert_eq!(r.vertex_count as usize, h.vertices().len());
        assert_eq!(r.face_count as usize, h.faces().len());
        assert_eq!(r.edge_count as usize, h.edges().len());
        assert_eq!(r.index_count as usize, h.indices().len());
        for (i, v) in h.vertices().iter().enumerate() {
            assert_eq!(store.vertex(r, i as u32), *v);
        }
        for f in 0..h.faces().len() {
            assert_eq!(store.plane(r, f as u32), h.planes()[f]);
            let face = store.face(r, f as u32);
            assert_eq!(face, h.faces()[f]);
            let lp: Vec<u32> = (0..face.count)
                .map(|k| store.loop_vertex(r, &face, k))
                .collect();
            assert_eq!(lp, h.face_loop(f));
        }
        for (e, edge) in h.edges().iter().enumerate() {
            assert_eq!(store.edge(r, e as u32), *edge);
        }
        assert_eq!(r.centre.xyz(), h.centre());
        assert_eq!(r.centre.w, h.radius());
        assert_eq!(r.aabb_min.w, h.inner_radius());
        assert_eq!((r.aabb_min.xyz(), r.aabb_max.xyz()), h.aabb());
        assert_eq!(r.aabb_max.w, h.tolerance());
        for v in h.vertices() {
            assert!((*v - h.centre()).length() <= h.radius());
        }
    }
    assert_eq!(store.len() as u32, end);
    // A box is the unit cube scaled: the same vertices and planes as its own 8-vertex hull.
    let half = Vec3::new(0.3, 1.7, 0.05);
    let boxed = HullRef::cuboid(&store, half);
    let own = Hull::cuboid(half).unwrap();
    for (i, v) in own.vertices().iter().enumerate() {
        assert_eq!(store.vertex(&boxed, i as u32), *v);
    }
    for (f, p) in own.planes().iter().enumerate() {
        assert_eq!(store.plane(&boxed, f as u32), *p);
    }
    // Past the end reads zero; sums wrap like WGSL's u32 (never a panic).
    let past = store.hull(store.len() as u32);
    assert_eq!(past.vertex_count, 0);
    assert_eq!(store.vertex(&past, 0), Vec3::ZERO);
    let bogus = HullRef {
        vertex_count: 64,
        face_count: 64,
        edge_count: 126,
        index_count: 252,
        vertices_at: u32::MAX,
        planes_at: u32::MAX - 3,
        edges_at: u32::MAX - 1,
        faces_at: u32::MAX,
        indices_at: u32::MAX,
        ..HullRef::default()
    };
    let _ = store.vertex(&bogus, 5);
    // The per-pair routines run on it without panicking.
    let a = ConvexShape::hull(Frame::IDENTITY, bogus);
    let _ = penetration(&store, &a, &a);
    let _ = hull_hull(
        &store,
        &bogus,
        &Frame::IDENTITY,
        &refs[0],
        &Frame::IDENTITY,
        0.1,
    );
    let _ = hull_hull(
        &store,
        &HullRef::default(),
        &Frame::IDENTITY,
        &bogus,
        &Frame::IDENTITY,
        0.1,
    );
}
