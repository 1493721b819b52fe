//! Convex hulls on the GPU against the CPU twin: the narrow stage's hull pairs (`narrow` then
//! `narrow_hull`) every field of every manifold, the `ccd` stage's sweeps of boxes, capsules and
//! hulls by conservative advancement every body, each within bounds from a model of the two
//! sides' roundings; and a hull pile steps to the same bits twice on the GPU.
//!
//! **The model** (as `rigid_narrow_random/parity.rs` argues it for the other pairs). A hull
//! contact is computed from the poses through the same kind of chain as a box–box one: the
//! shapes' world poses (a quaternion turn and a sum), the other hull placed in the reference
//! hull's frame (another turn and sum), the separating axis's dot products (or GJK's and EPA's:
//! sums of support points, the same dot products at each iteration, each iteration's point a
//! convex combination of support points), a clip's interpolation, and the turn back to the
//! world: about 124u of the scene's extent along the longest chain, taken as K = 128. The hull
//! data themselves are the same bits on both sides. The twin is run again with every input moved
//! by a uniform draw within that chain (body and offset positions by ±K·u of the extent per
//! lane, orientations by a turn of ±K·u per quaternion lane, round shapes' and boxes' dimensions
//! by ±K·u of themselves), which moves every contact as much as those roundings could, the
//! iterative routines' stopping points included (GJK, EPA and conservative advancement stop at
//! a tolerance, so a perturbed run may take one iteration more or less, and its spread shows in
//! the draws). Each field's bound for each pair (or body) is the RMS over the draws of its
//! difference from the unperturbed twin, times the Gaussian factor one of them exceeds with
//! probability 10⁻³. A pair whose count or feature ids change in any draw, or a body whose
//! sweep hits in some draws and not others, sits within rounding of a decision: it is counted
//! as divergent, and at most 5% may be.

mod common;

use common::rigid::hash_bodies;
use common::rigid::narrow::{body, shape};
use common::{gpu, Rng};
use glam::{Quat, Vec3, Vec4};
use wgphys::rigid::ccd::ccd;
use wgphys::rigid::gpu::Pass;
use wgphys::rigid::hull::{convex_hull, Hull, HullStore};
use wgphys::rigid::material::Combine;
use wgphys::rigid::narrow::narrow;
use wgphys::rigid::types::*;
use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
use wgphys::Backend;

use common::error_model::UNIT_ROUNDOFF as U;
use common::rigid::draws::{bounds, narrow_backend, perturbed, random_quat, Chain};

/// The longest chain of roundings from the poses to a contact: 128 units u of the scene's
/// extent (see the module docs), 3 m: positions within ±1.5 m, offsets 0.3 m, sizes to 1 m.
const CHAIN: Chain = Chain {
    k: 128.0,
    extent: 3.0,
};
/// Perturbed runs of the twin.
const DRAWS: u64 = 24;

/// A random rock: 8 to 32 points on an ellipsoid of radii 0.3 to 0.8.
fn rock(rng: &mut Rng) -> Hull {
    let n = 8 + rng.below(25) as usize;
    let radii = rng.vec3(0.3, 0.8);
    let pts: Vec<Vec3> = (0..n)
        .map(|_| rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y) * radii)
        .collect();
    convex_hull(&pts).expect("rock")
}

/// A scene of rocks, spheres, boxes, capsules and planes close enough that most pairs touch,
/// with the rocks in `store`.
fn hull_scene(rng: &mut Rng, n: u32, store: &mut HullStore) -> (Vec<GpuBody>, Vec<GpuShape>) {
    let mut bodies = Vec::new();
    let mut shapes = Vec::new();
    for i in 0..n {
        bodies.push(body(rng.vec3(-1.5, 1.5), random_quat(rng)));
        let kinds = [
            shape_kind::HULL,
            shape_kind::SPHERE,
            shape_kind::HULL,
            shape_kind::BOX,
            shape_kind::CAPSULE,
            shape_kind::HULL,
            shape_kind::HALF_SPACE,
            shape_kind::PLANE,
        ];
        let kind = kinds[i as usize % kinds.len()];
        let dims = match kind {
            shape_kind::SPHERE => Vec4::new(rng.range(0.1, 0.6), 0.0, 0.0, 0.0),
            shape_kind::BOX => rng.vec3(0.1, 0.8).extend(0.0),
            shape_kind::CAPSULE => Vec4::new(rng.range(0.1, 0.4), rng.range(0.0, 0.8), 0.0, 0.0),
            shape_kind::HULL => {
                let h = rock(rng);
                let at = store.add(&h).expect("store").base;
                Vec4::new(
                    at as f32,
                    h.centre().length() + h.radius(),
                    h.inner_radius(),
                    0.0,
                )
            }
            _ => {
                let nrm = rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y);
                nrm.extend(rng.range(-0.5, 0.5))
            }
        };
        let mut s = shape(kind, i, dims);
        if i % 3 == 0 {
            s.offset_pos = rng.vec3(-0.3, 0.3).extend(0.0);
            s.offset_rot = random_quat(rng);
        }
        s.material = Vec4::new(rng.unit(), rng.unit(), 0.0, 0.0);
        shapes.push(s);
    }
    (bodies, shapes)
}

/// The narrow stage's hull pairs on the GPU (`narrow` then `narrow_hull`) against the twin,
/// every field of every manifold, three scenes (margins 0, 2 cm, 10 cm); every kind of hull
/// pair touches somewhere.
#[test]
fn narrow_hull_pairs_match_the_cpu_twin() {
    for seed in 41u64..44 {
        let margin = [0.0f32, 0.02, 0.1][(seed % 3) as usize];
        let mut rng = Rng::new(seed);
        let mut store = HullStore::new();
        let n = 48u32;
        let (bodies, shapes) = hull_scene(&mut rng, n, &mut store);
        // Pairs with a hull, a count that is not a multiple of the workgroup.
        let mut pairs = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                let ka = shapes[a as usize].kind;
                let kb = shapes[b as usize].kind;
                if ka == shape_kind::HULL || kb == shape_kind::HULL {
                    pairs.push([a, b]);
                }
            }
        }
        if pairs.len() % 64 == 0 {
            pairs.pop();
        }
        let cap = pairs.len() as u32 + 5;
        let params = GpuRigidParams {
            contact_margin: margin,
            pair_capacity: cap,
            shape_count: n,
            body_count: n,
            combine_friction: Combine::WeightedFriction.code(),
            combine_restitution: Combine::WeightedRestitution.code(),
            ..Default::default()
        };
        let mut g = narrow_backend(n, cap, &store);
        let sentinel = GpuManifold {
            count: 99,
            ..Default::default()
        };
        let mut counters = vec![0u32; counter::LEN];
        counters[counter::PAIRS] = pairs.len() as u32;
        let flat: Vec<u32> = pairs.iter().flatten().copied().collect();
        g.write(&g.params, &[params]);
        g.write(&g.bodies, &bodies);
        g.write(&g.shapes, &shapes);
        g.write(&g.pairs, &flat);
        g.write(&g.counters, &counters);
        g.write(&g.manifolds, &vec![sentinel; cap as usize]);
        g.run(&[Pass::over("narrow", cap), Pass::over("narrow_hull", cap)])
            .expect("run");
        let got: Vec<GpuManifold> = g.read(&g.manifolds, cap as usize).expect("read");
        let mut want = vec![sentinel; cap as usize];
        narrow(
            &params,
            &shapes,
            &bodies,
            &store,
            &[],
            &[],
            &pairs,
            &mut want,
        );
        // The model's draws.
        let mut divergent = vec![false; pairs.len()];
        let mut draws = Vec::new();
        let mut prng = Rng::new(seed ^ 0x9a77);
        for _ in 0..DRAWS {
            let (b, s) = perturbed(&mut prng, CHAIN, &bodies, &shapes);
            let mut m = vec![sentinel; cap as usize];
            narrow(&params, &s, &b, &store, &[], &[], &pairs, &mut m);
            let diffs: Vec<Vec<f32>> = (0..pairs.len())
                .map(|k| {
                    let (p, w) = (&m[k], &want[k]);
                    if (p.count, p.features) != (w.count, w.features) {
                        divergent[k] = true;
                        return vec![0.0; 3];
                    }
                    let mut d = vec![
                        (p.normal - w.normal).truncate().abs().max_element(),
                        0.0,
                        0.0,
                    ];
                    for i in 0..w.count.min(MAX_POINTS) as usize {
                        let (a, c) = (p.points[i], w.points[i]);
                        d[1] = d[1].max((a - c).truncate().abs().max_element());
                        d[2] = d[2].max((a.w - c.w).abs());
                    }
                    d
                })
                .collect();
            draws.push(diffs);
        }
        let bound = bounds(&draws, pairs.len(), 3);
        let mut touching = std::collections::BTreeSet::new();
        let mut flagged = 0;
        for (k, (a, c)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                (a.body_a, a.body_b, a.shape_a, a.shape_b, a.colour),
                (c.body_a, c.body_b, c.shape_a, c.shape_b, c.colour),
                "seed {seed} manifold {k}: ids"
            );
            if k >= pairs.len() {
                assert_eq!(a, c, "seed {seed}: spare slot {k} changed");
                continue;
            }
            if divergent[k] {
                flagged += 1;
                continue;
            }
            let kinds = (
                shapes[c.shape_a as usize].kind,
                shapes[c.shape_b as usize].kind,
            );
            assert_eq!(
                (a.count, a.features),
                (c.count, c.features),
                "seed {seed} manifold {k} kinds {kinds:?}: count, features\ngpu {a:?}\ncpu {c:?}"
            );
            // Friction, restitution, radii: the same rules as the other pairs (the narrow
            // kernel writes them, unchanged by narrow_hull): 32u (parity.rs `MATERIAL`).
            let material = (32.0 * U) as f32;
            assert!((a.material - c.material).abs().max_element() <= material);
            assert!((a.normal.w - c.normal.w).abs() <= material);
            let b = &bound[k];
            let dn = (a.normal - c.normal).truncate().abs().max_element();
            assert!(
                dn <= b[0],
                "seed {seed} manifold {k} {kinds:?}: normal {a:?} vs {c:?} (bound {})",
                b[0]
            );
            for i in 0..MAX_POINTS as usize {
                let (p, q) = (a.points[i], c.points[i]);
                if i >= c.count as usize {
                    assert_eq!(p, q, "seed {seed} manifold {k}: unused point {i}");
                    continue;
                }
                let dp = (p - q).truncate().abs().max_element();
                assert!(
                    dp <= b[1] && (p.w - q.w).abs() <= b[2],
                    "seed {seed} manifold {k} {kinds:?} point {i}: gpu {p:?} cpu {q:?} (bounds {}, {})",
                    b[1],
                    b[2]
                );
            }
            if c.count > 0 {
                touching.insert(kinds);
            }
        }
        eprintln!(
            "[measure] narrow_hull seed {seed}: {flagged} of {} pairs within rounding of a \
             decision; pair kinds touching {touching:?}",
            pairs.len()
        );
        assert!(
            flagged * 20 <= pairs.len(),
            "seed {seed}: {flagged} divergent pairs"
        );
        use shape_kind::*;
        for kinds in [
            (SPHERE, HULL),
            (BOX, HULL),
            (CAPSULE, HULL),
            (HULL, HULL),
            (HULL, HALF_SPACE),
            (HULL, PLANE),
        ] {
            assert!(
                touching.contains(&kinds),
                "seed {seed}: no touching {kinds:?} pair"
            );
        }
    }
}

/// The `ccd` stage on the GPU against the twin: fast boxes, capsules, hulls and spheres (some
/// spinning) swept against static boxes, hulls, half-spaces and planes and a moving box, every
/// body's position and orientation within the model's bounds.
#[test]
fn ccd_sweeps_match_the_cpu_twin() {
    let mut rng = Rng::new(5);
    let mut store = HullStore::new();
    let mut bodies = Vec::new();
    let mut shapes = Vec::new();
    // Targets: bodies 0..8 static or slow, around the origin.
    for i in 0..8u32 {
        let mut b = body(rng.vec3(-2.0, 2.0), random_quat(&mut rng));
        let (kind, dims) = match i % 4 {
            0 => (shape_kind::BOX, rng.vec3(0.05, 0.4).extend(0.0)),
            1 => {
                let h = rock(&mut rng);
                let at = store.add(&h).expect("store").base;
                (
                    shape_kind::HULL,
                    Vec4::new(
                        at as f32,
                        h.centre().length() + h.radius(),
                        h.inner_radius(),
                        0.0,
                    ),
                )
            }
            2 => (shape_kind::HALF_SPACE, Vec3::Y.extend(-3.0)),
            _ => (shape_kind::PLANE, Vec3::X.extend(4.0)),
        };
        if i == 4 {
            b.lin_vel = Vec3::new(0.5, 0.0, 0.0).extend(1.0);
        } else {
            b.kind = body_kind::STATIC;
            b.awake = 0;
        }
        bodies.push(b);
        shapes.push(shape(kind, i, dims));
    }
    // Bullets: 40 bodies flying at 30 to 120 m/s (0.5 to 2 m in a 1/60 s step) that end the
    // step inside or beyond a target, as a tunnelling body does.
    for i in 8..48u32 {
        let t = (i % 8) as usize;
        let (end, dir) = match shapes[t].kind {
            shape_kind::HALF_SPACE => (
                Vec3::new(rng.range(-2.0, 2.0), -3.05, rng.range(-2.0, 2.0)),
                (-Vec3::Y + rng.vec3(-0.5, 0.5)).normalize(),
            ),
            shape_kind::PLANE => (
                Vec3::new(4.05, rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)),
                (Vec3::X + rng.vec3(-0.5, 0.5)).normalize(),
            ),
            _ => (
                bodies[t].pos.truncate() + rng.vec3(-0.3, 0.3),
                rng.vec3(-1.0, 1.0).normalize_or(Vec3::X),
            ),
        };
        let mut b = body(end, random_quat(&mut rng));
        b.lin_vel = (dir * rng.range(30.0, 120.0)).extend(1.0);
        b.ang_vel = (rng.vec3(-1.0, 1.0) * if i % 2 == 0 { 30.0 } else { 0.0 }).extend(1.0);
        b.flags = wgphys::rigid::ccd::CCD_FLAG;
        bodies.push(b);
        let (kind, dims) = match i % 4 {
            0 => (shape_kind::BOX, rng.vec3(0.05, 0.2).extend(0.0)),
            1 => (
                shape_kind::CAPSULE,
                Vec4::new(rng.range(0.05, 0.15), 0.2, 0.0, 0.0),
            ),
            2 => {
                let h = convex_hull(
                    &(0..12)
                        .map(|_| rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y) * 0.15)
                        .collect::<Vec<_>>(),
                )
                .expect("bullet");
                let at = store.add(&h).expect("store").base;
                (
                    shape_kind::HULL,
                    Vec4::new(
                        at as f32,
                        h.centre().length() + h.radius(),
                        h.inner_radius(),
                        0.0,
                    ),
                )
            }
            _ => (shape_kind::SPHERE, Vec4::new(0.1, 0.0, 0.0, 0.0)),
        };
        shapes.push(shape(kind, i, dims));
    }
    let n = bodies.len() as u32;
    let params = GpuRigidParams {
        dt: 1.0 / 60.0,
        body_count: n,
        shape_count: n,
        position_slop: 0.002,
        ..Default::default()
    };
    let mut g = narrow_backend(n, 64, &store);
    g.write(&g.params, &[params]);
    g.write(&g.bodies, &bodies);
    g.write(&g.shapes, &shapes);
    g.run(&[Pass::over("ccd", n)]).expect("run");
    let got: Vec<GpuBody> = g.read(&g.bodies, n as usize).expect("read");
    let mut want = bodies.clone();
    ccd(&params, &mut want, &shapes, &store);
    let moved = |a: &GpuBody, b: &GpuBody| a.pos != b.pos || a.orient != b.orient;
    let mut divergent = vec![false; n as usize];
    let mut draws = Vec::new();
    let mut prng = Rng::new(55);
    for _ in 0..DRAWS {
        let (b, s) = perturbed(&mut prng, CHAIN, &bodies, &shapes);
        let mut m = b.clone();
        ccd(&params, &mut m, &s, &store);
        let diffs: Vec<Vec<f32>> = (0..n as usize)
            .map(|k| {
                // Whether the sweep hit is the decision; the moves are measured from each
                // run's own start.
                if moved(&m[k], &b[k]) != moved(&want[k], &bodies[k]) {
                    divergent[k] = true;
                    return vec![0.0; 2];
                }
                let dp = ((m[k].pos - b[k].pos) - (want[k].pos - bodies[k].pos)).truncate();
                let dq = (m[k].orient - want[k].orient).abs().max_element();
                vec![dp.abs().max_element(), dq]
            })
            .collect();
        draws.push(diffs);
    }
    let bound = bounds(&draws, n as usize, 2);
    let (mut hits, mut flagged) = (0, 0);
    for k in 0..n as usize {
        if divergent[k] {
            flagged += 1;
            continue;
        }
        let (a, c) = (&got[k], &want[k]);
        assert_eq!(
            moved(a, &bodies[k]),
            moved(c, &bodies[k]),
            "body {k}: hit on one side only"
        );
        hits += u32::from(moved(c, &bodies[k]));
        // Model bound plus the rounding of the state itself (a position's last ulp).
        let dp = (a.pos - c.pos).truncate().abs().max_element();
        let dq = (a.orient - c.orient).abs().max_element();
        assert!(
            dp <= bound[k][0] + 4.0 * f32::EPSILON * 5.0 && dq <= bound[k][1] + 4.0 * f32::EPSILON,
            "body {k}: gpu {:?} {:?} cpu {:?} {:?} (bounds {:?})",
            a.pos,
            a.orient,
            c.pos,
            c.orient,
            bound[k]
        );
        assert_eq!(
            (a.lin_vel, a.ang_vel),
            (c.lin_vel, c.ang_vel),
            "body {k}: velocities kept"
        );
    }
    eprintln!(
        "[measure] ccd: {hits} of 40 bullets swept back, {flagged} within rounding of a decision"
    );
    assert!(
        hits >= 10,
        "only {hits} hits: the scene does not test the sweeps"
    );
    assert!(flagged * 20 <= n as usize, "{flagged} divergent bodies");
}

/// A small hull pile (24 rocks of 8 to 32 points falling onto a box floor among spheres and
/// boxes) steps to the same bits twice on the GPU: no float atomics, the same order.
#[test]
fn a_hull_pile_steps_to_the_same_bits_twice_on_the_gpu() {
    let run = || {
        let ctx = gpu();
        let mut w = RigidWorld::new(Backend::Gpu(ctx), RigidConfig::default()).expect("world");
        w.add_body(
            RigidBody::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            &[Collider::cuboid(Vec3::new(4.0, 0.5, 4.0))],
        )
        .expect("floor");
        let mut rng = Rng::new(9);
        for i in 0..32 {
            let p = Vec3::new(
                rng.range(-1.0, 1.0),
                0.5 + 0.4 * i as f32,
                rng.range(-1.0, 1.0),
            );
            let c = match i % 4 {
                0 => Collider::sphere(0.2),
                1 => Collider::cuboid(Vec3::splat(0.15)),
                _ => {
                    let n = 8 + rng.below(25) as usize;
                    let pts: Vec<Vec3> = (0..n)
                        .map(|_| rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y) * 0.25)
                        .collect();
                    Collider::convex_hull(&pts).expect("rock").centred()
                }
            };
            w.add_body(
                RigidBody::dynamic()
                    .position(p)
                    .rotation(Quat::from_rotation_y(i as f32)),
                &[c],
            )
            .expect("body");
        }
        for _ in 0..90 {
            w.step(1.0 / 60.0).expect("step");
        }
        hash_bodies(&w.read_bodies().expect("bodies"))
    };
    let (a, b) = (run(), run());
    println!("gpu hull pile hash after 90 steps: {a:#018x}");
    assert_eq!(a, b, "two GPU runs of the same hull pile differ");
}
