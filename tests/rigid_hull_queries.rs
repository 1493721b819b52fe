//! Convex hull queries: mass properties against closed forms, GJK against exact distances, EPA
//! against the brute-force SAT depth, and the SAT manifold (resting hulls, box–box agreement,
//! edge contacts, feature ids under jitter, the four-point reduction, speculative contacts).
//! Conservative advancement is `rigid_hull_ca.rs`. Each test compares with an independent reference (brute force or
//! a closed form, in f64, in `rigid_hull/reference.rs`), and every tolerance says why it is that
//! size.

#[path = "rigid_hull/reference.rs"]
mod reference;

use glam::{DVec3, Mat3, Quat, Vec3, Vec4Swizzles};
use reference::*;
use wgphys::error::Error;
use wgphys::rigid::hull::*;

// ---------------------------------------------------------------------------------------------
// Mass properties.

/// Relative tolerance of mass properties of a hull whose input coordinates were rounded to f32:
/// each coordinate moves by up to ε/2·|x|max, which changes a volume or second moment (degree 3
/// or 5 in the coordinates, measured from a centre at distance |x|max) by at most about
/// 5·(ε/2)·|x|max/size relative; plus the final rounding to f32 (ε/2) and the f64 sums
/// (negligible). 8 instead of 5 leaves room for the rotation's own rounding of the inputs.
fn mass_tol(max_coord: f32, size: f32) -> f64 {
    8.0 * (EPS / 2.0) * max_coord as f64 / size as f64 + 2.0 * EPS
}

fn assert_mat_close(a: Mat3, b: glam::DMat3, rel: f64, what: &str) {
    let scale = b.to_cols_array().iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for (x, y) in a.to_cols_array().iter().zip(b.to_cols_array()) {
        assert!(
            (*x as f64 - y).abs() <= rel * scale,
            "{what}: {a:?} vs {b:?} (rel tol {rel:e})"
        );
    }
}

#[test]
fn mass_properties_match_closed_forms() {
    let mut rng = Rng::new(10);
    let rho = 2.5f32;
    // Boxes: V = 8·hx·hy·hz, I = m/3 · diag(hy² + hz², hx² + hz², hx² + hy²) in the box frame.
    for trial in 0..10 {
        let h = Vec3::new(
            rng.range(0.3, 2.0),
            rng.range(0.3, 2.0),
            rng.range(0.3, 2.0),
        );
        let (q, c) = if trial == 0 {
            (Quat::IDENTITY, Vec3::ZERO)
        } else {
            (rng.rotation(), Vec3::new(3.0, -2.0, 5.0) * rng.f())
        };
        let pts: Vec<Vec3> = cube_points(1.0).iter().map(|p| q * (*p * h) + c).collect();
        let hull = convex_hull(&pts).unwrap();
        let mp = mass_properties(&hull, rho).unwrap();
        let max_coord = pts.iter().fold(0.0f32, |m, p| m.max(p.abs().max_element()));
        let tol = mass_tol(max_coord, h.min_element());
        let v = 8.0 * h.x as f64 * h.y as f64 * h.z as f64;
        assert!(
            (mp.volume as f64 - v).abs() <= tol * v,
            "volume {} vs {v}",
            mp.volume
        );
        assert!((mp.mass as f64 - v * rho as f64).abs() <= tol * v * rho as f64);
        assert!((mp.centre - c).length() as f64 <= tol * h.min_element() as f64);
        let m = v * rho as f64;
        let hd = h.as_dvec3();
        let local = glam::DMat3::from_diagonal(
            DVec3::new(
                hd.y * hd.y + hd.z * hd.z,
                hd.x * hd.x + hd.z * hd.z,
                hd.x * hd.x + hd.y * hd.y,
            ) * (m / 3.0),
        );
        let r = glam::DMat3::from_quat(q.as_dquat());
        assert_mat_close(mp.inertia, r * local * r.transpose(), tol, "box inertia");
    }
    // Regular tetrahedron of edge L: V = L³/(6√2), I = m·L²/20 about every axis.
    let s = 0.7f32;
    let tet: Vec<Vec3> = [(1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)]
        .iter()
        .map(|&(x, y, z)| Vec3::new(x as f32, y as f32, z as f32) * s)
        .collect();
    let mp = mass_properties(&convex_hull(&tet).unwrap(), rho).unwrap();
    let l = 2.0 * 2f64.sqrt() * s as f64;
    let v = l.powi(3) / (6.0 * 2f64.sqrt());
    let tol = mass_tol(s, s);
    assert!((mp.volume as f64 - v).abs() <= tol * v);
    let i = v * rho as f64 * l * l / 20.0;
    assert_mat_close(
        mp.inertia,
        glam::DMat3::from_diagonal(DVec3::splat(i)),
        tol,
        "tetrahedron",
    );
    // Corner tetrahedron (0, a·x, a·y, a·z): about the origin ∫x² = a⁵/60, ∫xy = a⁵/120, so
    // I_o = ρ·a⁵·(1/30 on the diagonal, −1/120 off it); centre a/4·(1,1,1); I_c by the parallel
    // axis theorem.
    let a = 1.3f32;
    let corner = [Vec3::ZERO, Vec3::X * a, Vec3::Y * a, Vec3::Z * a];
    let mp = mass_properties(&convex_hull(&corner).unwrap(), rho).unwrap();
    let ad = a as f64;
    let r = rho as f64;
    let v = ad.powi(3) / 6.0;
    let d = r * ad.powi(5) / 30.0;
    let o = -r * ad.powi(5) / 120.0;
    let io = glam::DMat3::from_cols(
        DVec3::new(d, o, o),
        DVec3::new(o, d, o),
        DVec3::new(o, o, d),
    );
    let c = DVec3::splat(ad / 4.0);
    let m = v * r;
    let ic = io
        - (glam::DMat3::from_diagonal(DVec3::splat(c.dot(c)))
            - glam::DMat3::from_cols(c * c.x, c * c.y, c * c.z))
            * m;
    let tol = mass_tol(a, a);
    assert!((mp.volume as f64 - v).abs() <= tol * v);
    assert!((mp.centre.as_dvec3() - c).length() <= tol * ad);
    assert_mat_close(mp.inertia, ic, tol, "corner tetrahedron");
    // Regular octahedron |x| + |y| + |z| ≤ a: V = 4a³/3, ∫x² = 2a⁵/15, I = m·a²/5.
    let a = 0.9f32;
    let oct = [
        Vec3::X,
        Vec3::NEG_X,
        Vec3::Y,
        Vec3::NEG_Y,
        Vec3::Z,
        Vec3::NEG_Z,
    ]
    .map(|p| p * a);
    let mp = mass_properties(&convex_hull(&oct).unwrap(), rho).unwrap();
    let ad = a as f64;
    let v = 4.0 * ad.powi(3) / 3.0;
    let tol = mass_tol(a, a);
    assert!((mp.volume as f64 - v).abs() <= tol * v);
    let i = v * rho as f64 * ad * ad / 5.0;
    assert_mat_close(
        mp.inertia,
        glam::DMat3::from_diagonal(DVec3::splat(i)),
        tol,
        "octahedron",
    );
    // Errors, not panics: a bad density; a 1e-20 hull whose volume underflows f32.
    let cube = Hull::cuboid(Vec3::ONE).unwrap();
    assert!(matches!(
        mass_properties(&cube, 0.0),
        Err(Error::InvalidInput { .. })
    ));
    assert!(matches!(
        mass_properties(&cube, f32::NAN),
        Err(Error::InvalidInput { .. })
    ));
    let tiny = convex_hull(&cube_points(1e-20)).unwrap();
    assert!(matches!(
        mass_properties(&tiny, 1.0),
        Err(Error::InvalidInput { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// GJK and EPA.

/// Rounding budget of world-space reference comparisons: the shapes' f32 placement (a rotation
/// from a quaternion, a product and a sum: a few ulps of |pos| + |v| per coordinate, for each
/// shape) and GJK's own sums of support points; 16 ulps of L = |pos_a| + |pos_b| + both radii.
fn placement_err(fa: &Frame, fb: &Frame, ra: f32, rb: f32) -> f64 {
    16.0 * EPS * (fa.pos.length() + fb.pos.length() + ra + rb) as f64
}

fn random_frame(rng: &mut Rng, spread: f32) -> Frame {
    Frame::new(rng.in_ball() * spread, rng.rotation())
}

/// GJK on thousands of random hull pairs against the exact distance (vertex–face both ways and
/// edge–edge, f64). GJK's |v| is an upper bound within its stopping gap (`g.tolerance`) of the
/// distance; the closest points lie on the shapes and span the distance along the normal.
#[test]
fn gjk_matches_exact_distance_on_random_hull_pairs() {
    let mut rng = Rng::new(20);
    let mut store = HullStore::new();
    let hulls: Vec<(Hull, HullRef)> = (0..60)
        .map(|_| {
            let h = random_hull(&mut rng, 20, 1.0);
            let r = store.add(&h).unwrap();
            (h, r)
        })
        .collect();
    let (mut separated, mut overlapping) = (0, 0);
    for pair in 0..3000 {
        let (ha, ra) = &hulls[rng.int(0, hulls.len())];
        let (hb, rb) = &hulls[rng.int(0, hulls.len())];
        // Near pairs (many overlap) and far ones.
        let spread = if pair % 2 == 0 { 1.0 } else { 3.0 };
        let fa = random_frame(&mut rng, spread);
        let fb = random_frame(&mut rng, spread);
        let a = ConvexShape::hull(fa, *ra);
        let b = ConvexShape::hull(fb, *rb);
        let g = gjk(&store, &a, &b);
        let wa = world(ha, &fa);
        let wb = world(hb, &fb);
        let err = placement_err(
            &fa,
            &fb,
            ha.radius() + ha.centre().length(),
            hb.radius() + hb.centre().length(),
        );
        let sat = brute_sat(&wa, &wb, 0.0);
        if g.overlap {
            assert!(
                sat <= g.tolerance as f64 + err,
                "GJK overlap but SAT gap {sat}"
            );
            overlapping += 1;
            continue;
        }
        assert!(
            sat > -err,
            "GJK separated ({}) but SAT overlap {sat}",
            g.distance
        );
        let exact = polyhedra_distance(&wa, &wb);
        let d = g.distance as f64;
        assert!(
            d >= exact - err && d <= exact + g.tolerance as f64 + err,
            "gjk {d} exact {exact} tol {}",
            g.tolerance
        );
        let pa = g.point_a.as_dvec3();
        let pb = g.point_b.as_dvec3();
        assert!(outside(pa, &wa) <= err && outside(pb, &wb) <= err);
        assert!(((pa - pb).length() - d).abs() <= err);
        assert!(((pa - pb).dot(g.normal.as_dvec3()) - d).abs() <= err);
        separated += 1;
    }
    assert!(
        separated > 1000 && overlapping > 300,
        "{separated} / {overlapping}"
    );
}

/// GJK between a hull and a sphere, a capsule or a box, against exact distances: point to
/// polyhedron, segment to polyhedron (ends against faces, segment against edges; intersection
/// by clipping), polyhedron to polyhedron.
#[test]
fn gjk_mixed_shapes_match_exact_distance() {
    let mut rng = Rng::new(21);
    let mut store = HullStore::new();
    let hull = random_hull(&mut rng, 16, 1.0);
    let hr = store.add(&hull).unwrap();
    let mut counts = [0usize; 3];
    for trial in 0..3000 {
        let fa = random_frame(&mut rng, 3.0);
        let fb = random_frame(&mut rng, 3.0);
        let wb = world(&hull, &fb);
        let b = ConvexShape::hull(fb, hr);
        let r = rng.range(0.05, 0.5);
        let kind = trial % 3;
        let (a, exact_core, core_hits, rad_a) = match kind {
            0 => {
                let c = fa.pos.as_dvec3();
                (
                    ConvexShape::sphere(fa, r),
                    point_distance(c, &wb),
                    point_distance(c, &wb) == 0.0,
                    0.0,
                )
            }
            1 => {
                let hl = rng.range(0.1, 1.0);
                let e0 = fa.point(Vec3::new(0.0, -hl, 0.0)).as_dvec3();
                let e1 = fa.point(Vec3::new(0.0, hl, 0.0)).as_dvec3();
                let hits = segment_hits(e0, e1, &wb);
                (
                    ConvexShape::capsule(fa, hl, r),
                    segment_polyhedron_distance(e0, e1, &wb),
                    hits,
                    hl,
                )
            }
            _ => {
                let h = Vec3::new(
                    rng.range(0.1, 0.8),
                    rng.range(0.1, 0.8),
                    rng.range(0.1, 0.8),
                );
                let wa = box_world(&fa, h);
                let gap = brute_sat(&wa, &wb, 0.0);
                let exact = if gap > 0.0 {
                    polyhedra_distance(&wa, &wb)
                } else {
                    0.0
                };
                (ConvexShape::cuboid(fa, h), exact, gap <= 0.0, h.length())
            }
        };
        let g = gjk(&store, &a, &b);
        let r = a.radius();
        let err = placement_err(&fa, &fb, rad_a + r, hull.radius() + hull.centre().length());
        if g.overlap {
            assert!(
                core_hits || exact_core <= g.tolerance as f64 + err,
                "kind {kind}: {exact_core}"
            );
            continue;
        }
        assert!(
            !core_hits || g.core_distance as f64 <= g.tolerance as f64 + err,
            "kind {kind}"
        );
        let d = g.core_distance as f64;
        assert!(
            d >= exact_core - err && d <= exact_core + g.tolerance as f64 + err,
            "kind {kind}: gjk {d} exact {exact_core}"
        );
        // One f32 subtraction of numbers below 8: well under 1e-6.
        assert!(
            (g.distance - (g.core_distance - r)).abs() <= 1e-6 * (1.0 + r),
            "{} {} {r}",
            g.distance,
            g.core_distance
        );
        let pb = g.point_b.as_dvec3();
        assert!(outside(pb, &wb) <= err);
        counts[kind] += 1;
    }
    assert!(counts.iter().all(|&c| c > 500), "{counts:?}");
}

/// EPA on overlapping hull pairs against the brute-force SAT depth (the largest projection gap
/// over all face normals and edge crosses is minus the depth, exactly, for polyhedra): EPA's
/// face distance is a lower bound within its stopping gap, and its normal is a direction of
/// that overlap. The library's pruned SAT queries give the same separation as the brute force.
#[test]
fn epa_depth_matches_sat_depth() {
    let mut rng = Rng::new(22);
    let mut store = HullStore::new();
    let hulls: Vec<(Hull, HullRef)> = (0..40)
        .map(|_| {
            let h = random_hull(&mut rng, 20, 1.0);
            let r = store.add(&h).unwrap();
            (h, r)
        })
        .collect();
    let mut compared = 0;
    for _ in 0..3000 {
        let (ha, ra) = &hulls[rng.int(0, hulls.len())];
        let (hb, rb) = &hulls[rng.int(0, hulls.len())];
        let fa = random_frame(&mut rng, 1.0);
        let fb = random_frame(&mut rng, 1.0);
        let wa = world(ha, &fa);
        let wb = world(hb, &fb);
        let gap = brute_sat(&wa, &wb, 0.0);
        if gap >= 0.0 {
            continue;
        }
        let depth = -gap;
        let a = ConvexShape::hull(fa, *ra);
        let b = ConvexShape::hull(fb, *rb);
        let e = penetration(&store, &a, &b).expect("hulls have volume");
        let g = gjk(&store, &a, &b);
        let err = placement_err(
            &fa,
            &fb,
            ha.radius() + ha.centre().length(),
            hb.radius() + hb.centre().length(),
        );
        let tol = g.tolerance as f64;
        assert!(e.converged, "EPA ran out after {} steps", e.iterations);
        let d = e.depth as f64;
        assert!(
            d <= depth + err && d >= depth - tol - err,
            "epa {d} sat {depth} tol {tol}"
        );
        // Overlap along EPA's normal: at least the depth (the depth is the least overlap), and
        // within the gap of it.
        let along = -projection_gap(&wa, &wb, e.normal.as_dvec3());
        assert!(
            along >= depth - err && along <= depth + tol + err,
            "along {along} depth {depth}"
        );
        let (qa, qb, qe) = hull_queries(&store, ra, &fa, rb, &fb);
        let best = qa.separation.max(qb.separation).max(qe.separation) as f64;
        let brute = brute_sat(&wa, &wb, 1e-6);
        assert!((best - brute).abs() <= err, "sat {best} brute {brute}");
        compared += 1;
    }
    assert!(compared > 1000, "{compared}");
}

/// EPA's fallback: two round 34-vertex hulls (a sphere's points cooked to the face limit) in
/// deep overlap need more than the 32-vertex polytope to reach the 1e-5 gap in some poses;
/// whether converged or not, the face distance is a lower bound on the depth and the shapes
/// overlap along the normal by at least that much; converged results are also within the gap.
#[test]
fn epa_falls_back_to_the_best_face() {
    let mut rng = Rng::new(23);
    let sphere: Vec<Vec3> = (0..500).map(|_| rng.on_sphere()).collect();
    let round = convex_hull_with(&sphere, &HullOptions::default().simplify_to(64)).unwrap();
    let (store, r) = HullStore::single(&round).unwrap();
    let mut fallbacks = 0;
    for _ in 0..300 {
        let fa = random_frame(&mut rng, 0.6);
        let fb = random_frame(&mut rng, 0.6);
        let wa = world(&round, &fa);
        let wb = world(&round, &fb);
        let depth = -brute_sat(&wa, &wb, 0.0);
        let a = ConvexShape::hull(fa, r);
        let b = ConvexShape::hull(fb, r);
        let g = gjk(&store, &a, &b);
        assert!(g.overlap);
        let e = epa(&store, &a, &b, &g).unwrap();
        let err = placement_err(&fa, &fb, 1.0, 1.0);
        let d = e.depth as f64;
        assert!(
            d.is_finite() && d <= depth + err,
            "epa {d} above the depth {depth}"
        );
        let along = -projection_gap(&wa, &wb, e.normal.as_dvec3());
        assert!(
            along >= d - err,
            "overlap {along} along the normal below {d}"
        );
        if e.converged {
            assert!(d >= depth - g.tolerance as f64 - err);
        } else {
            fallbacks += 1;
        }
    }
    // Coverage: the fallback path ran (32 vertices cannot resolve every pose of two round
    // 34-vertex hulls to 1e-5 of their size).
    assert!(fallbacks > 0);
}

// ---------------------------------------------------------------------------------------------
// SAT and the manifold.

/// A random hull resting on one of its faces on a large slab, 0.01 deep: the normal is the
/// slab's up (from b, the slab, to a, the hull), every contact is 0.01 deep, halfway between
/// the surfaces, inside that face's polygon, and there are min(face size, 4) of them with
/// distinct ids.
#[test]
fn sat_resting_hull_has_its_points_on_the_face() {
    let mut rng = Rng::new(30);
    let slab = Hull::cuboid(Vec3::new(20.0, 0.5, 20.0)).unwrap();
    for trial in 0..200 {
        let hull = random_hull(&mut rng, 20, 1.0);
        let mut store = HullStore::new();
        let ra = store.add(&hull).unwrap();
        let rb = store.add(&slab).unwrap();
        let f = rng.int(0, hull.faces().len());
        let pl = hull.planes()[f];
        let q = Quat::from_rotation_y(rng.range(0.0, std::f32::consts::TAU))
            * Quat::from_rotation_arc(pl.xyz(), Vec3::NEG_Y);
        let pen = 0.01f32;
        let pos = Vec3::new(rng.range(-1.0, 1.0), pl.w - pen, rng.range(-1.0, 1.0));
        let fa = Frame::new(pos, q);
        let fb = Frame::new(Vec3::new(0.0, -0.5, 0.0), Quat::IDENTITY);
        let m = hull_hull(&store, &ra, &fa, &rb, &fb, 0.02);
        let face: Vec<DVec3> = hull
            .face_loop(f)
            .iter()
            .map(|&i| fa.point(hull.vertices()[i as usize]).as_dvec3())
            .collect();
        // The face's world normal is −y to the rounding of the rotation (a few ulps), and its
        // vertices sit at −pen to the rounding of a unit-size placement.
        let err = 16.0 * EPS * (1.0 + pos.length() as f64 + hull.radius() as f64);
        // The normal is a unit face normal rotated by an f32 matrix made from a quaternion: a
        // few ulps per component (or exactly +y when the slab's face is the reference).
        assert!(
            (m.normal - Vec3::Y).length() < 16.0 * f32::EPSILON,
            "trial {trial}: normal {:?}",
            m.normal
        );
        assert_eq!(m.count as usize, face.len().min(4), "trial {trial}");
        for k in 0..m.count as usize {
            let p = m.points[k].xyz().as_dvec3();
            assert!(
                (m.points[k].w as f64 - pen as f64).abs() <= err,
                "depth {}",
                m.points[k].w
            );
            assert!((p.y + pen as f64 / 2.0).abs() <= err, "height {}", p.y);
            let n = DVec3::NEG_Y;
            for e in 0..face.len() {
                let a = face[e];
                let b = face[(e + 1) % face.len()];
                let s = (b - a).cross(n).normalize();
                assert!(s.dot(p - a) <= err, "trial {trial}: point outside the face");
            }
            for j in 0..k {
                assert_ne!(m.features[j], m.features[k]);
            }
        }
    }
}

/// A cube-like hull against a box (as an 8-vertex hull), random poses: the unbiased SAT
/// separation equals the analytic 15-axis box–box value; the biased choice (faces of a, then
/// of b, then edges) picks the same group as box–box's rule, and the boxes overlap along the
/// chosen normal by that group's amount.
#[test]
fn sat_cube_hull_agrees_with_box_box() {
    let mut rng = Rng::new(31);
    let (mut compared, mut chosen) = (0, 0);
    for _ in 0..3000 {
        let ha = Vec3::new(
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
        );
        let hb = Vec3::new(
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
        );
        let mut store = HullStore::new();
        let ra = store.add(&Hull::cuboid(ha).unwrap()).unwrap();
        let rb = store.add(&Hull::cuboid(hb).unwrap()).unwrap();
        let fa = random_frame(&mut rng, 1.0);
        let fb = random_frame(&mut rng, 1.0);
        let groups = box_box_groups(
            fa.pos.as_dvec3(),
            mat64(fa.rot),
            ha.as_dvec3(),
            fb.pos.as_dvec3(),
            mat64(fb.rot),
            hb.as_dvec3(),
        );
        let analytic = -groups.iter().map(|g| g.0).fold(f64::MAX, f64::min);
        let (qa, qb, qe) = hull_queries(&store, &ra, &fa, &rb, &fb);
        let ours = qa.separation.max(qb.separation).max(qe.separation) as f64;
        let err = placement_err(&fa, &fb, ha.length(), hb.length());
        assert!(
            (ours - analytic).abs() <= err,
            "sat {ours} analytic {analytic}"
        );
        compared += 1;
        if analytic >= 0.0 {
            continue;
        }
        // Box–box's choice: a later group wins when shallower by 0.05·|o| + 0.005·h_min.
        let hmin = ha.min_element().min(hb.min_element()) as f64;
        let mut g = 0;
        let mut close = false;
        for k in 1..3 {
            let bar = groups[g].0 - (0.05 * groups[g].0.abs() + 0.005 * hmin);
            // Within rounding of the bar (ours and the analytic value each within `err` of
            // the truth), either choice is right.
            close |= (groups[k].0 - bar).abs() <= 2.0 * err;
            if groups[k].0 < bar {
                g = k;
            }
        }
        let sat = hull_sat(&store, &ra, &fa, &rb, &fb, 0.0).expect("overlapping");
        if close {
            continue;
        }
        assert_eq!(sat.kind, g as u32, "groups {groups:?}");
        let wa = box_world(&fa, ha);
        let wb = box_world(&fb, hb);
        let along = -projection_gap(&wa, &wb, sat.normal.as_dvec3());
        assert!(
            (along - groups[g].0).abs() <= err,
            "overlap {along} vs {}",
            groups[g].0
        );
        let t = (fa.pos - fb.pos).as_dvec3();
        assert!(
            sat.normal.as_dvec3().dot(t) >= -err,
            "normal points from a to b"
        );
        chosen += 1;
    }
    assert!(compared == 3000 && chosen > 1000, "{chosen}");
}

/// Two unit cubes crossed edge on edge (a turned 45° about z, b turned 45° about x above it),
/// 0.02 deep: one edge–edge contact, 0.02 deep, halfway between the edges, normal −y.
#[test]
fn sat_edge_edge_contact() {
    let cube = Hull::cuboid(Vec3::splat(0.5)).unwrap();
    let (store, r) = HullStore::single(&cube).unwrap();
    let pen = 0.02f32;
    let top = 0.5 * 2f32.sqrt();
    let fa = Frame::new(
        Vec3::ZERO,
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
    );
    let fb = Frame::new(
        Vec3::new(0.0, 2.0 * top - pen, 0.0),
        Quat::from_rotation_x(std::f32::consts::FRAC_PI_4),
    );
    let m = hull_hull(&store, &r, &fa, &r, &fb, 0.01);
    assert_eq!(m.count, 1);
    assert_ne!(m.features[0] & FEATURE_EDGE, 0);
    // Rounding of sin/cos 45° and of the placement: a few ulps of the unit size.
    let err = 1e-6;
    assert!((m.normal - Vec3::NEG_Y).length() < err as f32);
    assert!((m.points[0].w - pen).abs() < err as f32);
    let expect = Vec3::new(0.0, top - pen / 2.0, 0.0);
    assert!(
        (m.points[0].xyz() - expect).length() < err as f32,
        "{:?}",
        m.points[0]
    );
}

/// Feature ids stay the same from frame to frame while a box jitters (1e-4 in position and
/// angle) on a slab, and while it jitters stacked flush on an equal box, where its corners
/// cross the sides of the face below from one frame to the next.
#[test]
fn sat_feature_ids_stable_under_jitter() {
    let mut rng = Rng::new(32);
    let cube = Hull::cuboid(Vec3::splat(0.5)).unwrap();
    let slab = Hull::cuboid(Vec3::new(10.0, 0.5, 10.0)).unwrap();
    for below in [&slab, &cube] {
        let mut store = HullStore::new();
        let ra = store.add(&cube).unwrap();
        let rb = store.add(below).unwrap();
        let fb = Frame::new(Vec3::new(0.0, -0.5, 0.0), Quat::IDENTITY);
        let mut first: Option<Vec<u32>> = None;
        for _ in 0..60 {
            let j = 1e-4;
            let pos = Vec3::new(
                rng.range(-j, j),
                0.5 - 0.005 + rng.range(-j, j),
                rng.range(-j, j),
            );
            let q = Quat::from_scaled_axis(rng.on_sphere() * rng.range(0.0, j));
            let m = hull_hull(&store, &ra, &Frame::new(pos, q), &rb, &fb, 0.01);
            assert_eq!(m.count, 4);
            let mut ids = m.features.to_vec();
            ids.sort_unstable();
            match &first {
                None => first = Some(ids),
                Some(f) => assert_eq!(&ids, f),
            }
        }
    }
}

/// An octagonal prism lying on its octagon, tilted 0.01 rad, 0.01 deep: 8 clipped points
/// reduced to 4 that include the deepest and span at least the inscribed square
/// (1/√2 ≈ 0.7071 of the octagon's area, the most four of its corners can cover), less
/// rounding.
#[test]
fn sat_reduces_to_four_spread_points() {
    let mut pts = Vec::new();
    for k in 0..8 {
        let a = k as f32 * std::f32::consts::TAU / 8.0 + 0.1;
        pts.push(Vec3::new(a.cos(), -0.25, a.sin()));
        pts.push(Vec3::new(a.cos(), 0.25, a.sin()));
    }
    let prism = convex_hull(&pts).unwrap();
    let slab = Hull::cuboid(Vec3::new(10.0, 0.5, 10.0)).unwrap();
    let mut store = HullStore::new();
    let ra = store.add(&prism).unwrap();
    let rb = store.add(&slab).unwrap();
    let q = Quat::from_rotation_x(0.01);
    let fa = Frame::new(Vec3::new(0.0, 0.25 - 0.01, 0.0), q);
    let fb = Frame::new(Vec3::new(0.0, -0.5, 0.0), Quat::IDENTITY);
    let m = hull_hull(&store, &ra, &fa, &rb, &fb, 0.05);
    assert_eq!(m.count, 4);
    let deepest = pts.iter().map(|p| -fa.point(*p).y).fold(f32::MIN, f32::max);
    let got = (0..4).map(|k| m.points[k].w).fold(f32::MIN, f32::max);
    // Both depths come from the same f32 placement of unit-size data: ulps of 1.
    assert!((got - deepest).abs() < 1e-6, "{got} vs {deepest}");
    let quad: Vec<DVec3> = (0..4).map(|k| m.points[k].xyz().as_dvec3()).collect();
    let oct: Vec<DVec3> = pts
        .iter()
        .step_by(2)
        .map(|p| fa.point(*p).as_dvec3())
        .collect();
    // The contacts are midpoints, moved off the vertices along the (possibly 0.01-rad tilted)
    // normal by half a depth of 0.01 at most: 5e-5 sideways, a 1e-4 relative change of area
    // at worst; 1e-3 covers that.
    let ratio = polygon_area(&quad, DVec3::Y) / polygon_area(&oct, DVec3::Y);
    assert!(
        ratio >= std::f64::consts::FRAC_1_SQRT_2 - 1e-3,
        "area ratio {ratio}"
    );
}

/// Speculative contacts: cubes 0.005 apart make contacts with penetration −0.005 under a
/// margin of 0.01, none under a margin of 0.004.
#[test]
fn sat_margin() {
    let cube = Hull::cuboid(Vec3::splat(0.5)).unwrap();
    let (store, r) = HullStore::single(&cube).unwrap();
    let fa = Frame::new(Vec3::new(0.1, 1.005, 0.2), Quat::IDENTITY);
    let fb = Frame::IDENTITY;
    let m = hull_hull(&store, &r, &fa, &r, &fb, 0.01);
    assert_eq!(m.count, 4);
    for k in 0..4 {
        // 1.005 − 1 rounds at a few ulps of 1.
        assert!((m.points[k].w + 0.005).abs() < 1e-6);
    }
    assert_eq!(hull_hull(&store, &r, &fa, &r, &fb, 0.004).count, 0);
}
