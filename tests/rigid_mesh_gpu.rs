//! Pairs with level geometry on the GPU against the CPU twin: the narrow stage (`narrow` then
//! `narrow_mesh`, whose `mesh.wgsl` walks the stored mesh's BVH or the heightfield's cells)
//! every field of every manifold of spheres, boxes, capsules and hulls scattered over a bumpy
//! triangle mesh and a bumpy heightfield; and a pile on both steps to the same bits twice.
//!
//! **The model** (`rigid_hull_gpu.rs` argues it for hull pairs, whose chain this is): a contact
//! comes from the poses through the shape taken into the geometry's frame (a turn and a sum),
//! the triangle's plane and the SAT's dot products (or a ball's closest point on the triangle,
//! a few products and a division), a clip's interpolation and the turn back to the world:
//! within the 128u of the scene's extent of that model's longest chain. The twin is run again
//! with every pose and size moved by a uniform draw within that chain (the geometry's stored
//! words are the same bits on both sides and are not moved, but its body's pose is), and each
//! field's bound per pair is the RMS over the draws of its difference from the unperturbed
//! twin times the Gaussian factor one of them exceeds with probability 10⁻³. A pair whose count
//! or feature ids change in any draw sits within rounding of a decision (which triangle's
//! contact is deepest, which clipped point survives the margin): it is counted as divergent,
//! and at most 5% may be.

mod common;

use common::error_model::UNIT_ROUNDOFF as U;
use common::rigid::draws::{bounds, narrow_backend, perturbed, random_quat, Chain};
use common::rigid::narrow::{body, shape};
use common::{gpu, Rng};
use glam::{Vec3, Vec4};
use wgphys::rigid::gpu::Pass;
use wgphys::rigid::hull::{convex_hull, HullStore};
use wgphys::rigid::material::Combine;
use wgphys::rigid::mesh::layout::{heightfield_words, mesh_words};
use wgphys::rigid::mesh::{HeightField, TriMesh};
use wgphys::rigid::narrow::narrow;
use wgphys::rigid::types::*;

/// The longest chain of roundings from the poses to a contact: 128 units u of the scene's
/// extent (see the module docs), 7 m: the grounds' centres at ±4 m, shapes within 3 m of them.
const CHAIN: Chain = Chain {
    k: 128.0,
    extent: 7.0,
};
/// Perturbed runs of the twin.
const DRAWS: u64 = 16;

fn bump(x: f32, z: f32) -> f32 {
    0.3 * (1.3 * x).sin() * (0.7 * z).cos()
}

/// A bumpy mesh (shape 0, at x = −4) and a bumpy heightfield (shape 1, at x = +4) on static
/// bodies, and `n` convex shapes over them, close to their surfaces so that most touch.
fn scene(
    rng: &mut Rng,
    n: u32,
    store: &mut HullStore,
    kinds: &[u32],
    big: bool,
    two_sided: bool,
) -> (Vec<GpuBody>, Vec<GpuShape>) {
    let cells = 12u32;
    let mut v = Vec::new();
    for r in 0..=cells {
        for c in 0..=cells {
            let (x, z) = (c as f32 * 0.5 - 3.0, r as f32 * 0.5 - 3.0);
            v.push(Vec3::new(x, bump(x, z), z));
        }
    }
    let id = |r: u32, c: u32| r * (cells + 1) + c;
    let mut t = Vec::new();
    for r in 0..cells {
        for c in 0..cells {
            t.push([id(r, c), id(r + 1, c), id(r + 1, c + 1)]);
            t.push([id(r, c), id(r + 1, c + 1), id(r, c + 1)]);
        }
    }
    let mesh = TriMesh::new(&v, &t)
        .expect("mesh")
        .with_two_sided(two_sided);
    let samples = cells + 1;
    let heights: Vec<f32> = (0..samples * samples)
        .map(|i| {
            let (c, r) = (i % samples, i / samples);
            bump(c as f32 * 0.5 - 3.0, r as f32 * 0.5 - 3.0)
        })
        .collect();
    let field = HeightField::with_holes(
        samples,
        samples,
        &heights,
        Vec3::new(6.0, 1.0, 6.0),
        &[(3, 4)],
    )
    .expect("field");
    let mesh_at = store.push_words(&mesh_words(&mesh)).expect("mesh words");
    let field_at = store
        .push_words(&heightfield_words(&field))
        .expect("field words");
    let mut bodies = vec![
        GpuBody {
            kind: body_kind::STATIC,
            awake: 0,
            ..body(Vec3::new(-4.0, 0.0, 0.0), Vec4::W)
        },
        GpuBody {
            kind: body_kind::STATIC,
            awake: 0,
            ..body(
                Vec3::new(4.0, 0.0, 0.0),
                glam::Quat::from_rotation_y(0.3).into(),
            )
        },
    ];
    let mut shapes = vec![
        shape(
            shape_kind::MESH,
            0,
            Vec4::new(mesh_at as f32, 5.0, 0.0, 0.0),
        ),
        shape(
            shape_kind::HEIGHTFIELD,
            1,
            Vec4::new(field_at as f32, 5.0, 0.0, 0.0),
        ),
    ];
    for i in 0..n {
        let kind = kinds[i as usize % kinds.len()];
        let side = if (i / 4) % 2 == 0 { -4.0 } else { 4.0 };
        let (x, z) = (rng.range(-2.5, 2.5), rng.range(-2.5, 2.5));
        let size = if big {
            rng.range(0.4, 0.8)
        } else {
            rng.range(0.15, 0.4)
        };
        // With a two-sided mesh every other eight shapes (four by the mesh, four by the
        // heightfield, one of each kind) are under the ground, each centre at least a
        // fifth of its size (3 cm) below: the triangles lie within curvature × cell² / 8 =
        // 0.3·1.3²·0.5²/8 = 1.6 cm of `bump`, so the centre is behind the triangles under it.
        let y = if two_sided && (i / 8) % 2 == 1 {
            bump(x, z) - size * rng.range(0.2, 1.1)
        } else {
            bump(x, z) + size * rng.range(-0.3, 1.1)
        };
        let at = Vec3::new(side + x, y, z);
        let dims = match kind {
            shape_kind::SPHERE => Vec4::new(size, 0.0, 0.0, 0.0),
            shape_kind::BOX => (rng.vec3(0.5, 1.0) * size).extend(0.0),
            shape_kind::CAPSULE => Vec4::new(0.5 * size, rng.range(0.0, 0.4), 0.0, 0.0),
            _ => {
                let pts: Vec<Vec3> = (0..if big { 24 } else { 12 })
                    .map(|_| rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y) * size)
                    .collect();
                let h = convex_hull(&pts).expect("rock");
                let at = store.add(&h).expect("store").base;
                Vec4::new(
                    at as f32,
                    h.centre().length() + h.radius(),
                    h.inner_radius(),
                    0.0,
                )
            }
        };
        bodies.push(body(at, random_quat(rng)));
        let mut s = shape(kind, bodies.len() as u32 - 1, dims);
        s.material = Vec4::new(rng.unit(), rng.unit(), 0.0, 0.0);
        shapes.push(s);
    }
    (bodies, shapes)
}

/// The narrow stage's pairs with a mesh or heightfield on the GPU against the twin, every field
/// of every manifold, at margins 0, 2 cm and 10 cm; every convex kind touches both grounds.
#[test]
fn narrow_mesh_pairs_match_the_cpu_twin() {
    use shape_kind::*;
    narrow_parity(71..74, &[SPHERE, BOX, CAPSULE, HULL], false, false);
}

/// The same with the mesh two-sided and every other shape under the grounds: those under the
/// mesh meet its triangles' backs (turned round, their edge bits renumbered), those under the
/// one-sided heightfield meet nothing.
#[test]
fn narrow_two_sided_mesh_pairs_match_the_cpu_twin() {
    use shape_kind::*;
    narrow_parity(91..94, &[SPHERE, BOX, CAPSULE, HULL], false, true);
}

/// Boxes and hulls only, so every group of eight invocations is eight polytope pairs, about
/// half of them (each shape is listed with the near and the far ground) against several
/// triangles. Mesa's software adapters break a group's loops after 65,535
/// trips in all; a polytope–triangle test that projected the polytope on every axis (over a
/// thousand trips for these 12-point rocks) ran past that with a few triangles a pair, and the
/// pairs cut short kept one contact where the twin has up to four. Every field must match here
/// as above.
#[test]
fn full_groups_of_polytope_pairs_match_the_cpu_twin() {
    use shape_kind::*;
    narrow_parity(81..84, &[BOX, HULL], true, false);
}

/// Every pair of `kinds` scattered shapes (seeds `seeds`) with the mesh and the heightfield,
/// GPU against twin (see the two tests above).
fn narrow_parity(seeds: std::ops::Range<u64>, kinds: &[u32], big: bool, two_sided: bool) {
    for seed in seeds {
        let margin = [0.0f32, 0.02, 0.1][(seed % 3) as usize];
        let mut rng = Rng::new(seed);
        let mut store = HullStore::new();
        // Half the shapes under the grounds in a two-sided run: more of them, so that every
        // kind meets each ground from above and the mesh from below.
        let shapes = if two_sided { 64 } else { 40 };
        let (bodies, shapes) = scene(&mut rng, shapes, &mut store, kinds, big, two_sided);
        let n = shapes.len() as u32;
        // Every convex shape with both grounds (half of them far apart: empty manifolds),
        // listed both ways round so the narrow phase's reordering is exercised.
        let mut pairs = Vec::new();
        for a in 2..n {
            pairs.push([a, 0]);
            pairs.push([1, a]);
        }
        pairs.pop();
        let cap = pairs.len() as u32 + 5;
        let params = GpuRigidParams {
            contact_margin: margin,
            pair_capacity: cap,
            shape_count: n,
            body_count: bodies.len() as u32,
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
        g.run(&[
            Pass::over("narrow", cap),
            Pass::over("narrow_hull", cap),
            Pass::over("narrow_mesh", cap),
        ])
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
        let mut divergent = vec![false; pairs.len()];
        let mut draws = Vec::new();
        let mut prng = Rng::new(seed ^ 0x3e5);
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
        let mut touching_under = std::collections::BTreeSet::new();
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
            // Friction, restitution, radii: the narrow kernel's rules, unchanged by
            // narrow_mesh (rigid_hull_gpu.rs: 32u).
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
            // Shapes under the grounds (two-sided runs): the convex shape's index from 2 on.
            let under = two_sided && ((c.shape_a - 2) / 8) % 2 == 1;
            if c.count > 0 && !under {
                touching.insert(kinds);
            }
            if c.count > 0 && under && kinds.1 == shape_kind::MESH {
                // Under the mesh (not rotated, so `bump` is its surface) a shape meets the
                // triangles' backs. (The heightfield is turned about y, so `bump` at a shape's
                // offset is not the height under it: one placed "under" it may lie over its
                // front.)
                touching_under.insert(kinds.0);
            }
        }
        eprintln!(
            "[measure] narrow_mesh seed {seed}: {flagged} of {} pairs within rounding of a \
             decision; pair kinds touching {touching:?}",
            pairs.len()
        );
        assert!(
            flagged * 20 <= pairs.len(),
            "seed {seed}: {flagged} divergent pairs"
        );
        use shape_kind::*;
        for kinds in kinds.iter().flat_map(|&k| [(k, MESH), (k, HEIGHTFIELD)]) {
            assert!(
                touching.contains(&kinds),
                "seed {seed}: no touching {kinds:?} pair"
            );
        }
        if two_sided {
            assert_eq!(
                touching_under.len(),
                kinds.len(),
                "seed {seed}: kinds meeting the mesh's backs {touching_under:?}"
            );
        }
    }
}

/// A pile of spheres, boxes, capsules and hulls falling onto a bumpy mesh and a bumpy
/// heightfield steps to the same bits twice on the GPU (the walks and reductions have no
/// order that depends on the device's scheduling).
#[test]
fn a_pile_on_level_geometry_steps_to_the_same_bits_twice_on_the_gpu() {
    use common::rigid::hash_bodies;
    use glam::Quat;
    use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
    use wgphys::Backend;
    let run = || {
        let mut w =
            RigidWorld::new(Backend::Gpu(gpu()), RigidConfig::default()).expect("gpu world");
        let mut rng = Rng::new(5);
        let cells = 12u32;
        let (mut v, mut t) = (Vec::new(), Vec::new());
        for r in 0..=cells {
            for c in 0..=cells {
                let (x, z) = (c as f32 * 0.5 - 3.0, r as f32 * 0.5 - 3.0);
                v.push(Vec3::new(x, bump(x, z), z));
            }
        }
        let id = |r: u32, c: u32| r * (cells + 1) + c;
        for r in 0..cells {
            for c in 0..cells {
                t.push([id(r, c), id(r + 1, c), id(r + 1, c + 1)]);
                t.push([id(r, c), id(r + 1, c + 1), id(r, c + 1)]);
            }
        }
        let s = cells + 1;
        let heights: Vec<f32> = (0..s * s)
            .map(|i| bump((i % s) as f32 * 0.5 - 3.0, (i / s) as f32 * 0.5 - 3.0))
            .collect();
        w.add_body(
            RigidBody::fixed().position(Vec3::new(-3.5, 0.0, 0.0)),
            &[Collider::trimesh(&v, &t).expect("mesh")],
        )
        .expect("mesh body");
        w.add_body(
            RigidBody::fixed().position(Vec3::new(3.5, 0.0, 0.0)),
            &[Collider::heightfield(s, s, &heights, Vec3::new(6.0, 1.0, 6.0)).expect("field")],
        )
        .expect("field body");
        for i in 0..24 {
            let side = if i % 2 == 0 { -3.5 } else { 3.5 };
            let p = Vec3::new(
                side + rng.range(-2.0, 2.0),
                0.8 + 0.3 * i as f32,
                rng.range(-2.0, 2.0),
            );
            let c = match (i / 2) % 4 {
                0 => Collider::sphere(0.2),
                1 => Collider::cuboid(Vec3::splat(0.15)),
                2 => Collider::capsule_y(0.15, 0.1),
                _ => {
                    let pts: Vec<Vec3> = (0..12)
                        .map(|_| rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y) * 0.2)
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
        for _ in 0..60 {
            w.step(1.0 / 60.0).expect("step");
        }
        let bodies = w.read_bodies().expect("bodies");
        // Nothing fell through: the grounds' lowest point is at y = −0.3, and a body resting
        // on them has its centre above their surface.
        for b in &bodies[2..] {
            assert!(b.pos.y > -0.3, "a body fell through: {:?}", b.pos);
        }
        hash_bodies(&bodies)
    };
    let (a, b) = (run(), run());
    println!("gpu level pile hash after 60 steps: {a:#018x}");
    assert_eq!(
        a, b,
        "two GPU runs of the same pile on level geometry differ"
    );
}
