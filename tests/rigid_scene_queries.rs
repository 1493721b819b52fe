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

/// A random scene of mixed sizes for the grid: a ground half-space, one big box (the plan
/// puts it in the large list), and 60 dynamic balls, boxes, capsules and box-shaped hulls of
/// 0.1 to 0.6 m, turned at random, in collision groups 1, 2 or 4, dropped into [−5, 5]³.
fn mixed_scene(backend: Backend, seed: u64) -> RigidWorld {
    let mut rng = common::Rng::new(seed);
    let mut w = RigidWorld::new(backend, config(64)).unwrap();
    w.add_body(
        RigidBody::fixed(),
        &[Collider::half_space(Vec3::new(0.0, 1.0, 0.0), -5.0)],
    )
    .unwrap();
    w.add_body(
        RigidBody::fixed().position(Vec3::new(0.0, -4.0, 0.0)),
        &[Collider::cuboid(Vec3::new(6.0, 0.5, 6.0))],
    )
    .unwrap();
    let corners: Vec<Vec3> = (0..8)
        .map(|k| Vec3::new((k & 1) as f32, (k >> 1 & 1) as f32, (k >> 2) as f32) - 0.5)
        .collect();
    let hull = Collider::convex_hull(&corners).unwrap();
    for k in 0..60 {
        let size = rng.range(0.1, 0.6);
        let c = match k % 4 {
            0 => Collider::sphere(size),
            1 => Collider::cuboid(rng.vec3(0.1, 0.6)),
            2 => Collider::capsule_y(size, size * 0.5),
            _ => hull.clone(),
        };
        let q = glam::Quat::from_axis_angle(
            rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y),
            rng.range(0.0, 3.0),
        );
        let body = RigidBody::dynamic()
            .position(rng.vec3(-5.0, 5.0))
            .rotation(q);
        w.add_body(body, &[c.groups(1 << rng.below(3), u32::MAX)])
            .unwrap();
    }
    w
}

/// Every query through the grid equals a brute-force test of every shape, with the engine's own
/// per-shape tests (`ray_shape`, `shape_aabbs`) on the same bodies, so the answers must be
/// identical, bit for bit and in the same order: rays (all hits and the nearest, short ones
/// walking the grid and long ones testing every shape), points and boxes, with no filter and
/// with a groups filter, on random scenes after the bodies moved (on the GPU, as its body
/// tracking brought them back without a stall).
#[test]
fn grid_queries_equal_brute_force_after_motion() {
    use wgphys::rigid::broad::shape_aabbs;
    use wgphys::rigid::ray::ray_shape;
    use wgphys::rigid::types::GpuRigidParams;
    for (name, backend) in backends() {
        for seed in [11u64, 12] {
            let mut w = mixed_scene(backend.clone(), seed);
            w.set_body_tracking(true);
            run(&mut w, 30, DT);
            // The bodies the queries read: the copy tracking brought back when it holds every
            // slot (on the CPU, the bodies now), else a blocking read (which becomes that copy).
            let polled = w.poll_bodies().map(|s| s.raw().to_vec());
            let bodies = match polled {
                Some(b) if b.len() == w.slots() as usize => b,
                _ => w.read_bodies().unwrap(),
            };
            let shapes = w.shapes().to_vec();
            let words = w.hull_words().to_vec();
            let params = GpuRigidParams {
                body_count: bodies.len() as u32,
                shape_count: shapes.len() as u32,
                ..GpuRigidParams::default()
            };
            let mut pos = vec![glam::Vec4::ZERO; shapes.len()];
            let mut xf = vec![glam::Vec4::ZERO; 3 * shapes.len()];
            shape_aabbs(&params, &bodies, &shapes, &[], &mut pos, &mut xf);
            let mut rng = common::Rng::new(seed ^ 0xabc);
            for filter in [
                QueryFilter::new(),
                QueryFilter::new().groups(u32::MAX, 1 | 4),
            ] {
                let sees = |i: usize| -> Option<BodyHandle> {
                    let s = &shapes[i];
                    let ok = filter
                        .groups
                        .is_none_or(|(g, m)| s.group & m != 0 && g & s.mask != 0);
                    (s.kind != 0 && ok)
                        .then(|| w.body_handle_at(s.body))
                        .flatten()
                };
                for k in 0..40 {
                    let o = rng.vec3(-7.0, 7.0);
                    let d = rng.vec3(-1.0, 1.0).normalize_or(Vec3::X);
                    let len = if k % 4 == 0 {
                        1e4
                    } else {
                        rng.range(1.0, 20.0)
                    };
                    let ray = Ray::new(o, d, len).unwrap();
                    let mut want: Vec<(f32, u32, BodyHandle, Vec3)> = (0..shapes.len())
                        .filter_map(|i| {
                            let h = sees(i)?;
                            let b = &bodies[h.index() as usize];
                            let (t, n) = ray_shape(&ray, &shapes[i], b, &words)?;
                            Some((t, i as u32, h, n))
                        })
                        .collect();
                    want.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                    let got: Vec<(f32, u32, BodyHandle, Vec3)> = w
                        .cast_ray_all(&ray, &filter)
                        .unwrap()
                        .iter()
                        .map(|h| (h.t, h.shape, h.body, h.normal))
                        .collect();
                    assert_eq!(got, want, "{name}: all hits of {ray:?}");
                    let nearest = w.cast_ray_filtered(&ray, &filter).unwrap();
                    assert_eq!(
                        nearest.map(|h| (h.t, h.shape, h.body, h.normal)),
                        want.first().copied(),
                        "{name}: nearest hit of {ray:?}"
                    );
                    let p = rng.vec3(-6.0, 6.0);
                    let probe = Ray::new(p, Vec3::Y, f32::MIN_POSITIVE).unwrap();
                    let want: Vec<(u32, BodyHandle)> = (0..shapes.len())
                        .filter_map(|i| {
                            let h = sees(i)?;
                            let b = &bodies[h.index() as usize];
                            let (t, _) = ray_shape(&probe, &shapes[i], b, &words)?;
                            (t == 0.0).then_some((i as u32, h))
                        })
                        .collect();
                    let got: Vec<(u32, BodyHandle)> = w
                        .intersect_point(p, &filter)
                        .unwrap()
                        .iter()
                        .map(|h| (h.shape, h.body))
                        .collect();
                    assert_eq!(got, want, "{name}: point {p}");
                    let half = if k % 5 == 0 {
                        40.0
                    } else {
                        rng.range(0.0, 1.5)
                    };
                    let (lo, hi) = (p - rng.vec3(0.0, half), p + rng.vec3(0.0, half));
                    let want: Vec<(u32, BodyHandle)> = (0..shapes.len())
                        .filter_map(|i| {
                            let h = sees(i)?;
                            let meets = xf[3 * i + 1].truncate().cmple(hi).all()
                                && xf[3 * i + 2].truncate().cmpge(lo).all();
                            meets.then_some((i as u32, h))
                        })
                        .collect();
                    let got: Vec<(u32, BodyHandle)> = w
                        .intersect_aabb(lo, hi, &filter)
                        .unwrap()
                        .iter()
                        .map(|h| (h.shape, h.body))
                        .collect();
                    assert_eq!(got, want, "{name}: box {lo}..{hi}");
                }
            }
        }
    }
}

/// The host's query index follows every change between queries: a body moved by
/// `set_position`, a step, a body added and one removed are each seen by the next query (on the
/// CPU, whose queries read the bodies now).
#[test]
fn queries_follow_changes_between_them() {
    let mut w = RigidWorld::new(Backend::Cpu, config(8)).unwrap();
    let ball = w
        .add_body(
            RigidBody::fixed().position(Vec3::new(0.0, 3.0, 0.0)),
            &[Collider::sphere(0.5)],
        )
        .unwrap();
    let at = |w: &RigidWorld, p: Vec3| -> Vec<BodyHandle> {
        w.intersect_point(p, &QueryFilter::new())
            .unwrap()
            .iter()
            .map(|h| h.body)
            .collect()
    };
    assert_eq!(at(&w, Vec3::new(0.0, 3.0, 0.0)), [ball]);
    w.set_position(ball, Vec3::new(5.0, 3.0, 0.0)).unwrap();
    assert_eq!(at(&w, Vec3::new(0.0, 3.0, 0.0)), []);
    assert_eq!(at(&w, Vec3::new(5.0, 3.0, 0.0)), [ball]);
    let faller = w
        .add_body(
            free_body(Vec3::new(-5.0, 3.0, 0.0), 1.0),
            &[Collider::sphere(0.5)],
        )
        .unwrap();
    assert_eq!(at(&w, Vec3::new(-5.0, 3.0, 0.0)), [faller]);
    // Free fall for 30 steps of 1/60 s: down by about ½·g·t² = 1.2 m, out of its old place.
    run(&mut w, 30, DT);
    assert_eq!(at(&w, Vec3::new(-5.0, 3.4, 0.0)), []);
    let y = w.body(faller).unwrap().position.y;
    assert_eq!(at(&w, Vec3::new(-5.0, y, 0.0)), [faller]);
    w.remove_body(ball).unwrap();
    assert_eq!(at(&w, Vec3::new(5.0, 3.0, 0.0)), []);
}
