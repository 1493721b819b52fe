//! Intersection by polynomials and homogeneous coordinates (002-11): the catalogue's vectors,
//! rays against closed forms, and rays against sampling of the implicit function.

use crate::support::Rng;
use glam::{DMat4, DVec2, DVec3, DVec4};
use wgphys::gameplay::{
    closest_point_on_line, conic_intersections, directed_line, line_circle, line_through, meet,
    ray_plane, ray_quadric, ray_sphere, ray_torus, ray_triangle, signed_distance, to_cartesian,
    Conic, Hit, QuadraticCurve, Ray,
};
use wgphys::Error;

/// A few roundings of numbers of order 10: the size of error a closed form and the library's
/// polynomial route may differ by when both are exact up to rounding.
const CLOSED: f64 = 64.0 * f64::EPSILON * 10.0;

fn ray(o: [f64; 3], d: [f64; 3]) -> Ray {
    Ray {
        origin: DVec3::from_array(o),
        direction: DVec3::from_array(d),
    }
}

fn assert_hit(hit: Option<Hit>, t: f64, normal: [f64; 3]) {
    let hit = hit.unwrap_or_else(|| panic!("expected a hit at t = {t}"));
    assert!((hit.t - t).abs() <= CLOSED, "{hit:?} vs t = {t}");
    assert!(
        (hit.normal - DVec3::from_array(normal)).length() <= CLOSED,
        "{hit:?}"
    );
}

#[test]
fn catalogue_homogeneous_vectors() {
    assert_eq!(
        to_cartesian(DVec3::new(2.0, 3.0, 0.5)),
        Some(DVec2::new(4.0, 6.0))
    );
    assert_eq!(to_cartesian(DVec3::new(1.0, 2.0, 0.0)), None);
    assert_eq!(
        line_through(DVec3::new(0.0, 0.0, 1.0), DVec3::new(1.0, 1.0, 1.0)),
        DVec3::new(-1.0, 1.0, 0.0)
    );
    // x-axis (0, 1, 0) meets y-axis (1, 0, 0) at (0, 0, −1): the origin.
    let origin = meet(DVec3::new(0.0, 1.0, 0.0), DVec3::new(1.0, 0.0, 0.0));
    assert_eq!(origin, DVec3::new(0.0, 0.0, -1.0));
    assert_eq!(to_cartesian(origin), Some(DVec2::ZERO));
    // Parallel lines y = 0 and y = 1 meet at infinity.
    assert_eq!(
        meet(DVec3::new(0.0, 1.0, 0.0), DVec3::new(0.0, 1.0, -1.0)).z,
        0.0
    );
    // Directed line through the origin along +x: (0, 1) is left (+1), (0, −1) right (−1).
    let l = directed_line(DVec2::ZERO, DVec2::X).unwrap();
    assert_eq!(l, DVec3::new(0.0, 1.0, 0.0));
    assert_eq!(signed_distance(l, DVec2::new(0.0, 1.0)).unwrap(), 1.0);
    assert_eq!(signed_distance(l, DVec2::new(0.0, -1.0)).unwrap(), -1.0);
    // (3, 4, −10) and (3, 4): (9 + 16 − 10)/5 = 3, exact.
    assert_eq!(
        signed_distance(DVec3::new(3.0, 4.0, -10.0), DVec2::new(3.0, 4.0)).unwrap(),
        3.0
    );
    assert_eq!(
        closest_point_on_line(DVec3::ZERO, DVec3::X, DVec3::new(3.0, 4.0, 5.0)).unwrap(),
        3.0
    );
    // Line (−2, 0) + t(1, 0) against the unit circle: t = 1, 3; from (−2, 1) it is tangent at
    // t = 2. Integer coefficients, exact square roots: exact.
    assert_eq!(
        line_circle(DVec2::new(-2.0, 0.0), DVec2::X, DVec2::ZERO, 1.0).unwrap(),
        vec![1.0, 3.0]
    );
    assert_eq!(
        line_circle(DVec2::new(-2.0, 1.0), DVec2::X, DVec2::ZERO, 1.0).unwrap(),
        vec![2.0]
    );
    // Plane z = 0 against (0, 0, 5) + t(0, 0, −1): t = 5 at the origin (the c·z0 of erratum 9).
    let hit = ray_plane(
        &ray([0.0, 0.0, 5.0], [0.0, 0.0, -1.0]),
        DVec4::new(0.0, 0.0, 1.0, 0.0),
    )
    .unwrap()
    .unwrap();
    assert_eq!((hit.t, hit.point), (5.0, DVec3::ZERO));
    // Parallel: no intersection.
    assert_eq!(
        ray_plane(
            &ray([0.0, 0.0, 5.0], [1.0, 0.0, 0.0]),
            DVec4::new(0.0, 0.0, 1.0, 0.0)
        )
        .unwrap(),
        None
    );
    assert!(matches!(
        directed_line(DVec2::ZERO, DVec2::ZERO),
        Err(Error::InvalidInput { .. })
    ));
    assert!(signed_distance(DVec3::new(0.0, 0.0, 1.0), DVec2::ZERO).is_err());
}

#[test]
fn conics_against_quadratic_curves() {
    // 002-11's quartic: the unit circle against (2t − 1, 8t² − 9t + 1).
    let circle = Conic::circle(DVec2::ZERO, 1.0);
    let parabola = QuadraticCurve::polynomial([-1.0, 2.0, 0.0], [1.0, -9.0, 8.0]);
    let t = conic_intersections(&circle, &parabola, f64::NEG_INFINITY, f64::INFINITY).unwrap();
    assert_eq!(t.len(), 4, "{t:?}");
    for (found, printed) in t.iter().zip([0.0611803, 0.281471, 0.907348, 1.0]) {
        // Six significant digits printed: half a unit in the last, 5e-7.
        assert!((found - printed).abs() <= 5e-7, "{t:?}");
        // Each is on both curves: the circle's value at the point is a few roundings of 1.
        let p = parabola.point(*found).unwrap();
        assert!(circle.value(p).abs() <= 1e-6, "{p:?}");
    }
    // The catalogue's point at t = 1 is (1, 0).
    assert!((parabola.point(t[3]).unwrap() - DVec2::new(1.0, 0.0)).length() <= 1e-12);

    // A rational quadratic: the circle of radius 2 as (2(1 − t²), 4t, 1 + t²), against the
    // line y = 1 (conic 0x² + … + y − 1 = 0): 4t − (1 + t²) = 0, t = 2 ± √3, at (±√3, 1).
    let rational = QuadraticCurve {
        x: [2.0, 0.0, -2.0],
        y: [0.0, 4.0, 0.0],
        w: [1.0, 0.0, 1.0],
    };
    let line = Conic {
        coefficients: [0.0, 0.0, 0.0, 0.0, 1.0, -1.0],
    };
    let t = conic_intersections(&line, &rational, f64::NEG_INFINITY, f64::INFINITY).unwrap();
    let s3 = 3f64.sqrt();
    assert_eq!(t.len(), 2);
    // Quadratic formula on small integers: a few ulps of 4.
    assert!(
        (t[0] - (2.0 - s3)).abs() <= CLOSED && (t[1] - (2.0 + s3)).abs() <= CLOSED,
        "{t:?}"
    );
    assert!((rational.point(t[0]).unwrap() - DVec2::new(s3, 1.0)).length() <= CLOSED);
    assert!((rational.point(t[1]).unwrap() - DVec2::new(-s3, 1.0)).length() <= CLOSED);
    // The same curve lies on x² + y² = 4: the polynomial vanishes, no isolated roots.
    let on = conic_intersections(&Conic::circle(DVec2::ZERO, 2.0), &rational, -10.0, 10.0).unwrap();
    assert!(on.is_empty(), "{on:?}");
    assert!(conic_intersections(&circle, &parabola, 1.0, 0.0).is_err());
}

#[test]
fn spheres_closed_forms() {
    let unit = |r: Ray| ray_sphere(&r, DVec3::ZERO, 1.0).unwrap();
    assert_hit(
        unit(ray([-5.0, 0.0, 0.0], [1.0, 0.0, 0.0])),
        4.0,
        [-1.0, 0.0, 0.0],
    );
    // From inside, the hit is on the way out.
    assert_hit(
        unit(ray([0.0, 0.0, 0.0], [0.0, 2.0, 0.0])),
        0.5,
        [0.0, 1.0, 0.0],
    );
    // Behind the origin: no hit.
    assert_eq!(unit(ray([5.0, 0.0, 0.0], [1.0, 0.0, 0.0])), None);
    assert_eq!(unit(ray([-5.0, 1.5, 0.0], [1.0, 0.0, 0.0])), None);
    // Tangent: the double root t = 5 at (0, 1, 0).
    assert_hit(
        unit(ray([-5.0, 1.0, 0.0], [1.0, 0.0, 0.0])),
        5.0,
        [0.0, 1.0, 0.0],
    );
    // The quadric diag(1, 1, 1, −r²) translated is the same sphere.
    let center = DVec3::new(1.0, -2.0, 3.0);
    let to = DMat4::from_translation(-center);
    let q = to.transpose() * DMat4::from_diagonal(DVec4::new(1.0, 1.0, 1.0, -4.0)) * to;
    let mut rng = Rng::new(0x5eed_0501);
    let mut hits = 0;
    for _ in 0..500 {
        // Unit rays aimed at the sphere's bounding box: most cross it.
        let origin = rng.dvec3(-6.0, 6.0);
        let aim = center + rng.dvec3(-2.5, 2.5);
        let r = Ray {
            origin,
            direction: (aim - origin).normalize(),
        };
        let a = ray_sphere(&r, center, 2.0).unwrap();
        let b = ray_quadric(&r, q).unwrap();
        match (a, b) {
            (Some(a), Some(b)) => {
                hits += 1;
                // Two formulations of one quadratic whose coefficients (≲ 100, with
                // |o − c| ≲ 13) differ by a few ulps, ~64ε·100 = 1.4e-12, which moves a root by
                // that over the slope |2a·t + b| = 2r·|n̂·d̂| ≥ 0.4 away from grazing: 3.6e-12.
                if a.normal.dot(r.direction).abs() > 0.1 {
                    assert!((a.t - b.t).abs() <= 1e-11, "{a:?} {b:?}");
                    assert!((a.normal - b.normal).length() <= 1e-11);
                }
            }
            (None, None) => {}
            (a, b) => {
                // Only a grazing ray may fall on different sides of tangency: the discriminant
                // is then within rounding of 0, |n̂·d̂| of order √ε.
                let hit = a.or(b).unwrap();
                assert!(hit.normal.dot(r.direction).abs() <= 1e-6, "{a:?} {b:?}");
            }
        }
    }
    assert!(hits > 200, "{hits}");
}

#[test]
fn quadrics_closed_forms() {
    // Ellipsoid with semi-axes (4, 2, 1): along x from −10 it meets x = −4 at t = 6.
    let ellipsoid = DMat4::from_diagonal(DVec4::new(1.0 / 16.0, 0.25, 1.0, -1.0));
    assert_hit(
        ray_quadric(&ray([-10.0, 0.0, 0.0], [1.0, 0.0, 0.0]), ellipsoid).unwrap(),
        6.0,
        [-1.0, 0.0, 0.0],
    );
    assert_hit(
        ray_quadric(&ray([0.0, 0.0, 10.0], [0.0, 0.0, -1.0]), ellipsoid).unwrap(),
        9.0,
        [0.0, 0.0, 1.0],
    );
    // Infinite cylinder of radius 2 about z: a ray along z inside it never meets it (the
    // polynomial is constant), one across it does at |x| = 2.
    let cylinder = DMat4::from_diagonal(DVec4::new(1.0, 1.0, 0.0, -4.0));
    assert_eq!(
        ray_quadric(&ray([0.0, 0.0, -5.0], [0.0, 0.0, 1.0]), cylinder).unwrap(),
        None
    );
    assert_hit(
        ray_quadric(&ray([5.0, 0.0, 7.0], [-1.0, 0.0, 0.0]), cylinder).unwrap(),
        3.0,
        [1.0, 0.0, 0.0],
    );
    // A ray along the wall lies in the surface: a miss, as documented.
    assert_eq!(
        ray_quadric(&ray([2.0, 0.0, -5.0], [0.0, 0.0, 1.0]), cylinder).unwrap(),
        None
    );
    // Double cone x² + y² = z²: a ray up the axis touches only the apex (a double root), where
    // the gradient vanishes and no normal exists.
    let cone = DMat4::from_diagonal(DVec4::new(1.0, 1.0, -1.0, 0.0));
    let apex = ray_quadric(&ray([0.0, 0.0, -1.0], [0.0, 0.0, 1.0]), cone)
        .unwrap()
        .unwrap();
    assert_eq!((apex.t, apex.normal), (1.0, DVec3::ZERO));
    assert!(ray_quadric(
        &ray([0.0; 3], [1.0, 0.0, 0.0]),
        DMat4::from_diagonal(DVec4::splat(f64::NAN))
    )
    .is_err());
}

/// Möller–Trumbore: the barycentric ray–triangle test, an independent reference for the
/// article's plane-then-edges route.
fn moller_trumbore(r: &Ray, [a, b, c]: [DVec3; 3]) -> Option<f64> {
    let (e1, e2) = (b - a, c - a);
    let p = r.direction.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-12 {
        return None;
    }
    let s = r.origin - a;
    let u = s.dot(p) / det;
    let q = s.cross(e1);
    let v = r.direction.dot(q) / det;
    let t = e2.dot(q) / det;
    (u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t >= 0.0).then_some(t)
}

#[test]
fn triangles() {
    let tri = [
        DVec3::ZERO,
        DVec3::new(2.0, 0.0, 0.0),
        DVec3::new(0.0, 2.0, 0.0),
    ];
    assert_hit(
        ray_triangle(&ray([0.5, 0.5, 3.0], [0.0, 0.0, -1.0]), tri).unwrap(),
        3.0,
        [0.0, 0.0, 1.0],
    );
    // On an edge (x + y = 2) counts; just outside does not; behind and parallel miss.
    assert!(ray_triangle(&ray([1.0, 1.0, 3.0], [0.0, 0.0, -1.0]), tri)
        .unwrap()
        .is_some());
    assert!(ray_triangle(&ray([1.01, 1.0, 3.0], [0.0, 0.0, -1.0]), tri)
        .unwrap()
        .is_none());
    assert!(ray_triangle(&ray([0.5, 0.5, 3.0], [0.0, 0.0, 1.0]), tri)
        .unwrap()
        .is_none());
    assert!(ray_triangle(&ray([0.5, 0.5, 0.0], [1.0, 0.0, 0.0]), tri)
        .unwrap()
        .is_none());
    assert!(matches!(
        ray_triangle(
            &ray([0.0; 3], [0.0, 0.0, 1.0]),
            [DVec3::ZERO, DVec3::X, DVec3::X * 2.0]
        ),
        Err(Error::InvalidInput {
            what: "triangle",
            ..
        })
    ));

    let mut rng = Rng::new(0x5eed_0502);
    let mut hits = 0;
    for _ in 0..2000 {
        let t = [
            rng.dvec3(-2.0, 2.0),
            rng.dvec3(-2.0, 2.0),
            rng.dvec3(-2.0, 2.0),
        ];
        // Aimed at a barycentric point with weights in [−0.3, 1.3]: about half inside.
        let (u, v) = (rng.range(-0.3, 1.3), rng.range(-0.3, 1.3));
        let aim = t[0] + (t[1] - t[0]) * u * 0.5 + (t[2] - t[0]) * v * 0.5;
        let origin = rng.dvec3(-5.0, 5.0);
        let r = Ray {
            origin,
            direction: (aim - origin) * rng.range(0.1, 2.0),
        };
        let ours = ray_triangle(&r, t).unwrap().map(|h| h.t);
        let reference = moller_trumbore(&r, t);
        match (ours, reference) {
            (Some(a), Some(b)) => {
                hits += 1;
                // Two routes to one plane crossing. Each rounds the hit's offset along the
                // normal by a few ulps of the lengths involved (origin to vertex, the ray's
                // run, the triangle), 16ε·scale, and dividing by the speed along the normal
                // |n̂·d| turns that into t. Near-parallel rays (|n̂·d̂| ≤ 1e-2) are skipped.
                let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize();
                let cos = n.dot(r.direction.normalize()).abs();
                if cos > 1e-2 {
                    let scale = (r.origin - t[0]).length() + r.direction.length() * b + 8.0;
                    let tol = 2.0 * 16.0 * f64::EPSILON * scale / (cos * r.direction.length());
                    assert!((a - b).abs() <= tol, "{a} vs {b}, tolerance {tol:e}");
                }
            }
            (None, None) => {}
            // The two may disagree only for a point within rounding of an edge; check that the
            // plane point is that close to the boundary by moving the ray a hair.
            (a, b) => {
                let p = r.at(a.or(b).unwrap());
                let edge_distance = [(0, 1), (1, 2), (2, 0)]
                    .iter()
                    .map(|&(i, j)| {
                        let e = t[j] - t[i];
                        (p - t[i]).reject_from(e).length()
                    })
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    edge_distance <= 1e-9,
                    "disagree away from an edge: {a:?} {b:?}"
                );
            }
        }
    }
    assert!(hits > 100, "{hits}");
}

/// The torus function `(|p|² + R² − r²)² − 4R²(x² + y²)` about the z axis.
fn torus_f(p: DVec3, big: f64, small: f64) -> f64 {
    let s = p.length_squared() + big * big - small * small;
    s * s - 4.0 * big * big * (p.x * p.x + p.y * p.y)
}

#[test]
fn tori_closed_forms() {
    let (big, small) = (3.0, 1.0);
    let torus = |r: Ray| ray_torus(&r, DVec3::ZERO, DVec3::Z, big, small).unwrap();
    // Along x through the centre: the outer equator at x = −4, t = 6.
    assert_hit(
        torus(ray([-10.0, 0.0, 0.0], [1.0, 0.0, 0.0])),
        6.0,
        [-1.0, 0.0, 0.0],
    );
    // Starting in the hole, the inner equator at x = 2 (normal toward the hole, −x).
    assert_hit(
        torus(ray([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])),
        2.0,
        [-1.0, 0.0, 0.0],
    );
    // Down the axis: through the hole, a miss.
    assert_eq!(torus(ray([0.0, 0.0, 10.0], [0.0, 0.0, -1.0])), None);
    // Down onto the top of the tube at (3, 0, 1).
    assert_hit(
        torus(ray([3.0, 0.0, 10.0], [0.0, 0.0, -1.0])),
        9.0,
        [0.0, 0.0, 1.0],
    );
    // Grazing the top of the tube: tangent at (3, 0, 1), a double root.
    assert_hit(
        torus(ray([-10.0, 0.0, 1.0], [1.0, 0.0, 0.0])),
        7.0,
        [0.0, 0.0, 1.0],
    );
    // From far away (the shift to the nearest point keeps the quartic well scaled): a unit
    // direction from 1e4 m, t = 1e4 − 4 to the ulps of 1e4.
    let far = torus(ray([-1e4, 0.0, 0.0], [1.0, 0.0, 0.0])).unwrap();
    assert!(
        (far.t - (1e4 - 4.0)).abs() <= 64.0 * f64::EPSILON * 1e4,
        "{far:?}"
    );
    // A tilted, moved torus is the same torus seen in its own frame.
    let center = DVec3::new(1.0, 2.0, -1.0);
    let rotation = glam::DQuat::from_axis_angle(DVec3::new(1.0, 1.0, 0.0).normalize(), 0.7);
    let moved = ray_torus(
        &Ray {
            origin: center + rotation * DVec3::new(3.0, 0.0, 10.0),
            direction: rotation * DVec3::new(0.0, 0.0, -2.0),
        },
        center,
        rotation * DVec3::Z,
        big,
        small,
    )
    .unwrap()
    .unwrap();
    // t = 9/2 with the direction of length 2; rotation and translation round by a few ulps of 10.
    assert!(
        (moved.t - 4.5).abs() <= CLOSED && (moved.normal - rotation * DVec3::Z).length() <= CLOSED,
        "{moved:?}"
    );
    assert!(ray_torus(
        &ray([0.0; 3], [1.0, 0.0, 0.0]),
        DVec3::ZERO,
        DVec3::ZERO,
        3.0,
        1.0
    )
    .is_err());
    assert!(ray_torus(
        &ray([0.0; 3], [1.0, 0.0, 0.0]),
        DVec3::ZERO,
        DVec3::Z,
        3.0,
        -1.0
    )
    .is_err());
}

#[test]
fn tori_against_sampling() {
    // March along random rays, sample the torus function, bisect the first sign change, and
    // compare with the quartic's nearest root.
    let (big, small) = (2.0, 0.7);
    let mut rng = Rng::new(0x5eed_0503);
    let mut hits = 0;
    for case in 0..400 {
        // Aimed at a random point of the torus's bounding box, so most rays cross it.
        let origin = rng.dvec3(-5.0, 5.0);
        let aim = DVec3::new(
            rng.range(-2.7, 2.7),
            rng.range(-2.7, 2.7),
            rng.range(-0.7, 0.7),
        );
        let r = Ray {
            origin,
            direction: (aim - origin).normalize(),
        };
        let found = ray_torus(&r, DVec3::ZERO, DVec3::Z, big, small).unwrap();
        // Every crossing lies within t ≤ |origin| + R + r ≤ 12 of a unit ray.
        let (steps, reach) = (24_000, 12.0);
        let h = reach / steps as f64;
        let sign0 = torus_f(r.origin, big, small) > 0.0;
        let crossing =
            (1..=steps).find(|&k| (torus_f(r.at(k as f64 * h), big, small) > 0.0) != sign0);
        match (found, crossing) {
            (Some(hit), Some(k)) => {
                hits += 1;
                let (mut lo, mut hi) = ((k - 1) as f64 * h, k as f64 * h);
                for _ in 0..60 {
                    let mid = 0.5 * (lo + hi);
                    if (torus_f(r.at(mid), big, small) > 0.0) == sign0 {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                // Away from tangency the crossing is simple, and both sides resolve it to the
                // rounding of f, ~8ε·(|p|² + R² + r²)², over the slope |∇f·d̂| there.
                let p = hit.point;
                let s = p.length_squared() + big * big - small * small;
                let gradient = 4.0 * s * p - 8.0 * big * big * DVec3::new(p.x, p.y, 0.0);
                if hit.normal.dot(r.direction).abs() > 1e-2 {
                    let f_error = 8.0
                        * f64::EPSILON
                        * (p.length_squared() + big * big + small * small).powi(2);
                    let tol = 2.0 * f_error / gradient.dot(r.direction).abs();
                    assert!(
                        (hit.t - lo).abs() <= tol,
                        "case {case}: {} vs {lo}, tolerance {tol:e}",
                        hit.t
                    );
                }
            }
            (None, None) => {}
            // The sampler steps over a pair of crossings closer than its step h = 5e-4, or the
            // quartic finds a tangent, where f does not change sign. A chord of length L meets
            // the surface at |n̂·d̂| ≈ L/(2ρ), ρ ≥ r = 0.7 the smallest radius of curvature, so
            // a chord below h means |n̂·d̂| ≤ 3.6e-4.
            (Some(hit), None) => assert!(
                hit.normal.dot(r.direction).abs() <= 1e-3,
                "case {case}: {hit:?}"
            ),
            (None, Some(k)) => panic!(
                "case {case}: sampling crosses at t ≈ {} but no hit",
                k as f64 * h
            ),
        }
    }
    assert!(hits > 50, "{hits}");
}
