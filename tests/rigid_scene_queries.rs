//! Scene queries with filters and handles (issue 34, item 5, on the host): rays (nearest and
//! all), points and boxes, against closed forms in a small scene, against an independent brute
//! force (analytic spheres) on random scenes, on the GPU after the bodies moved (read without a
//! stall), and bad filters refused.

mod common;

use common::rigid::*;
use glam::Vec3;
use wgphys::rigid::ray::Ray;
use wgphys::rigid::{BodyHandle, Collider, QueryFilter, RigidBody, RigidWorld};
use wgphys::{Backend, Error};

/// A ground (group 4), a box A on it (group 1, top at y = 1), a ball B above (group 2, centre
/// y = 3, r = 0.5), all filters' masks every bit.
fn scene(backend: Backend) -> (RigidWorld, [BodyHandle; 3]) {
    let mut w = RigidWorld::new(backend, config(8)).expect("world");
    let g = w
        .add_body(
            RigidBody::fixed(),
            &[Collider::half_space(Vec3::Y, 0.0).groups(4, u32::MAX)],
        )
        .unwrap();
    let a = w
        .add_body(
            RigidBody::dynamic().position(Vec3::new(0.0, 0.5, 0.0)),
            &[Collider::cuboid(Vec3::splat(0.5)).groups(1, u32::MAX)],
        )
        .unwrap();
    let b = w
        .add_body(
            RigidBody::dynamic().position(Vec3::new(0.0, 3.0, 0.0)),
            &[Collider::sphere(0.5).groups(2, u32::MAX)],
        )
        .unwrap();
    (w, [g, a, b])
}

fn down() -> Ray {
    Ray::new(Vec3::new(0.0, 10.0, 0.0), -Vec3::Y, 100.0).unwrap()
}

/// Distances along a ray of length 10 m: a few roundings of numbers near 10, 1e-5 m.
const T: f32 = 1e-5;

#[test]
fn rays_points_and_boxes_in_a_small_scene() {
    let (w, [g, a, b]) = scene(Backend::Cpu);
    let all = w.cast_ray_all(&down(), &QueryFilter::new()).unwrap();
    let got: Vec<(BodyHandle, f32)> = all.iter().map(|h| (h.body, h.t)).collect();
    let want = [(b, 6.5), (a, 9.0), (g, 10.0)];
    assert_eq!(got.len(), 3);
    for ((hb, ht), (wb, wt)) in got.iter().zip(want) {
        assert_eq!(*hb, wb);
        assert!((ht - wt).abs() <= T, "{ht} against {wt}");
    }
    assert!(all.iter().all(|h| (h.normal - Vec3::Y).length() < 1e-5));
    // Groups: a query of mask 1|4 does not see the ball (group 2).
    let f = QueryFilter::new().groups(u32::MAX, 1 | 4);
    assert_eq!(w.cast_ray_filtered(&down(), &f).unwrap().unwrap().body, a);
    assert_eq!(
        w.cast_ray_filtered(&down(), &QueryFilter::new().exclude(b))
            .unwrap()
            .unwrap()
            .body,
        a
    );
    let dynamic: Vec<_> = w
        .cast_ray_all(&down(), &QueryFilter::new().dynamic_only())
        .unwrap()
        .iter()
        .map(|h| h.body)
        .collect();
    assert_eq!(dynamic, [b, a]);
    let at = |p: Vec3| -> Vec<BodyHandle> {
        w.intersect_point(p, &QueryFilter::new())
            .unwrap()
            .iter()
            .map(|h| h.body)
            .collect()
    };
    assert_eq!(at(Vec3::new(0.0, 3.2, 0.1)), [b]);
    assert_eq!(at(Vec3::new(0.0, 2.0, 0.0)), []);
    assert_eq!(at(Vec3::new(0.2, 0.5, -0.3)), [a]);
    assert_eq!(at(Vec3::new(5.0, -1.0, 0.0)), [g]);
    let in_box: Vec<_> = w
        .intersect_aabb(
            Vec3::new(-0.1, 0.9, -0.1),
            Vec3::new(0.1, 1.1, 0.1),
            &QueryFilter::new(),
        )
        .unwrap()
        .iter()
        .map(|h| h.body)
        .collect();
    assert_eq!(
        in_box,
        [g, a],
        "the ground's box is the whole half-space; the ball's starts at 2.5"
    );
}

#[test]
fn bad_queries_are_refused() {
    let (w, _) = scene(Backend::Cpu);
    for f in [
        QueryFilter::new().groups(0, 1),
        QueryFilter::new().groups(1, 0),
    ] {
        assert!(matches!(
            w.cast_ray_all(&down(), &f),
            Err(Error::InvalidInput {
                what: "query filter groups",
                ..
            })
        ));
    }
    assert!(w.intersect_point(Vec3::NAN, &QueryFilter::new()).is_err());
    assert!(w
        .intersect_aabb(Vec3::ONE, Vec3::ZERO, &QueryFilter::new())
        .is_err());
    assert!(
        Ray::new(Vec3::ZERO, Vec3::ZERO, 1.0).is_err(),
        "a zero direction"
    );
}

/// Random balls, every query against the analytic answer: a ray meets a ball where
/// |o + t·d − c| = r (the smaller root), a point is in it when |p − c| ≤ r, its box is c ± r.
/// The roots differ from the engine's arithmetic by rounding: 1e-4 m over distances of 10 m.
#[test]
fn queries_match_brute_force_on_random_balls() {
    let mut s = 0x1234_5678_9abc_def1u64;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f32 / (1u64 << 53) as f32
    };
    for _ in 0..20 {
        let mut w = RigidWorld::new(Backend::Cpu, config(40)).unwrap();
        let mut balls = Vec::new();
        for _ in 0..30 {
            let c = Vec3::new(rnd(), rnd(), rnd()) * 8.0 - 4.0;
            let r = 0.2 + 0.6 * rnd();
            let h = w
                .add_body(RigidBody::fixed().position(c), &[Collider::sphere(r)])
                .unwrap();
            balls.push((h, c, r));
        }
        let o = Vec3::new(rnd(), rnd(), -1.0) * 12.0 - Vec3::new(6.0, 6.0, 0.0);
        let d = (Vec3::new(rnd(), rnd(), rnd()) * 2.0 - 1.0 + Vec3::Z * 2.0).normalize();
        let ray = Ray::new(o, d, 40.0).unwrap();
        let mut want: Vec<(f32, BodyHandle)> = balls
            .iter()
            .filter_map(|&(h, c, r)| {
                let m = o - c;
                let b = m.dot(d);
                let disc = b * b - (m.length_squared() - r * r);
                (disc >= 0.0 && -b - disc.sqrt() >= 0.0).then(|| (-b - disc.sqrt(), h))
            })
            .collect();
        want.sort_by(|x, y| x.0.total_cmp(&y.0));
        let got = w.cast_ray_all(&ray, &QueryFilter::new()).unwrap();
        assert_eq!(got.len(), want.len());
        for (g, (t, h)) in got.iter().zip(&want) {
            assert_eq!(g.body, *h);
            assert!((g.t - t).abs() <= 1e-4, "{} against {t}", g.t);
        }
        let p = Vec3::new(rnd(), rnd(), rnd()) * 8.0 - 4.0;
        let mut inside: Vec<BodyHandle> = balls
            .iter()
            .filter(|&&(_, c, r)| (p - c).length() <= r)
            .map(|b| b.0)
            .collect();
        let mut got: Vec<BodyHandle> = w
            .intersect_point(p, &QueryFilter::new())
            .unwrap()
            .iter()
            .map(|h| h.body)
            .collect();
        inside.sort_by_key(|h| h.index());
        got.sort_by_key(|h| h.index());
        assert_eq!(got, inside);
        let (lo, hi) = (p - 1.0, p + 1.0);
        let mut near: Vec<BodyHandle> = balls
            .iter()
            .filter(|&&(_, c, r)| (c - r).cmple(hi).all() && (c + r).cmpge(lo).all())
            .map(|b| b.0)
            .collect();
        let mut got: Vec<BodyHandle> = w
            .intersect_aabb(lo, hi, &QueryFilter::new())
            .unwrap()
            .iter()
            .map(|h| h.body)
            .collect();
        near.sort_by_key(|h| h.index());
        got.sort_by_key(|h| h.index());
        assert_eq!(got, near);
    }
}

/// After the ball fell onto the box, both backends answer from where the bodies are now (the
/// GPU from the copy its body tracking brought back, no blocking read): the ray meets the
/// ball's top at 10 − 2 m, the ball resting on the box within the contact margin.
#[test]
fn queries_see_where_the_bodies_moved() {
    for (name, backend) in backends() {
        let (mut w, [_, a, b]) = scene(backend);
        w.set_body_tracking(true);
        run(&mut w, 120, DT);
        w.poll_bodies();
        let hit = w
            .cast_ray_filtered(&down(), &QueryFilter::new())
            .unwrap()
            .unwrap();
        assert_eq!(hit.body, b, "{name}");
        let margin = w.config().contact_margin;
        assert!((hit.t - 8.0).abs() <= margin, "{name}: t = {}", hit.t);
        let under = w
            .cast_ray_filtered(&down(), &QueryFilter::new().exclude(b))
            .unwrap()
            .unwrap();
        assert_eq!(under.body, a, "{name}");
    }
}
