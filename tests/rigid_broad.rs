//! The rigid broad phase: the grid broad phase, sweep and prune, the AABB tree and brute force
//! find the same pairs on random scenes of mixed sizes; AABBs contain their shapes; overflow
//! reports the wanted count; pair filters; the grid plan; the item layout; and the tree's
//! updates. The WGSL side and the GPU kernels are in `rigid_broad_gpu`.

mod common;

use common::rigid::broad::{
    body, cpu_aabbs, first_difference, grid_pairs, scene, shape, Rng, Scene, MARGIN,
};
use glam::{Vec3, Vec4, Vec4Swizzles};
use wgphys::rigid::broad::*;
use wgphys::rigid::math::quat_rotate;
use wgphys::rigid::types::*;

fn assert_sorted_unique(what: &str, pairs: &[[u32; 2]]) {
    for w in pairs.windows(2) {
        assert!(w[0] < w[1], "{what}: not strictly sorted at {:?}", w);
    }
    for p in pairs {
        assert!(p[0] < p[1], "{what}: pair {:?} not a < b", p);
    }
}

#[test]
fn grid_sap_tree_and_brute_force_find_the_same_pairs() {
    for (seed, n, side) in [
        (1, 300, 6.0),
        (2, 300, 25.0),
        (3, 1200, 12.0),
        (4, 1200, 60.0),
        (5, 2000, 200.0),
        (6, 40, 3.0),
    ] {
        let s = scene(seed, n, side);
        let c = cpu_aabbs(&s, u32::MAX);
        let input = BroadInput::new(&c.params, &s.bodies, &s.shapes, &c.shape_pos, &c.shape_xf);
        let brute = brute_force_pairs(&input);
        let (grid, wanted) = grid_pairs(&s, &c, &c.shape_pos, &c.shape_xf);
        let sap = sweep_and_prune(&input);
        let tree = AabbTree::from_input(&input).pairs(&input);
        let ctx = format!(
            "seed {seed}, {} shapes, side {side}, cell {}, {} large",
            s.shapes.len(),
            c.plan.cell_size,
            c.plan.large.len()
        );
        eprintln!("{ctx}: {} pairs", brute.len());
        assert!(
            brute.len() > 20,
            "{ctx}: too few pairs ({}) to mean much",
            brute.len()
        );
        assert_sorted_unique(&format!("{ctx} grid"), &grid);
        assert_eq!(wanted as usize, grid.len(), "{ctx}: wanted vs written");
        assert!(
            grid == brute,
            "{ctx}: grid vs brute force: {}",
            first_difference(&grid, &brute)
        );
        assert!(
            sap == brute,
            "{ctx}: SAP vs brute force: {}",
            first_difference(&sap, &brute)
        );
        assert!(
            tree == brute,
            "{ctx}: tree vs brute force: {}",
            first_difference(&tree, &brute)
        );
        // The plan put the huge outliers, not the ordinary spread, in the large list.
        let cap = MIN_LARGE_CAP.max((s.shapes.len() as f64).sqrt().ceil() as usize);
        assert!(
            c.plan.large.len() <= 2 + cap,
            "{ctx}: too many large shapes"
        );
    }
}

/// Points on each shape's surface lie inside its AABB; the AABB of a sphere is exactly
/// r + margin around the centre; planes have infinite boxes; the large flag matches the list.
#[test]
fn aabbs_contain_their_shapes() {
    let s = scene(11, 500, 20.0);
    let c = cpu_aabbs(&s, u32::MAX);
    let mut rng = Rng(99);
    for (i, sh) in s.shapes.iter().enumerate() {
        let lo = c.shape_xf[3 * i + 1];
        let hi = c.shape_xf[3 * i + 2];
        let large = c.plan.large.contains(&(i as u32));
        assert_eq!(lo.w != 0.0, large, "shape {i}: large flag");
        if sh.kind == 0 {
            assert_eq!(c.shape_pos[i].x, FAR, "shape {i}: removed centre");
            continue;
        }
        if is_plane(sh.kind) {
            assert_eq!((lo.x, hi.x), (-f32::MAX, f32::MAX), "shape {i}: plane AABB");
            continue;
        }
        let b = &s.bodies[sh.body as usize];
        let q = c.shape_xf[3 * i];
        let centre = c.shape_pos[i].xyz();
        let expect_centre = b.pos.xyz() + quat_rotate(b.orient, sh.offset_pos.xyz());
        assert!(
            (centre - expect_centre).length() < 1e-4,
            "shape {i}: centre {centre} vs {expect_centre}"
        );
        let d = sh.dims;
        let mut points = Vec::new();
        match sh.kind {
            shape_kind::SPHERE => {
                for _ in 0..32 {
                    points.push(centre + rng.unit_vec() * d.x);
                }
            }
            shape_kind::BOX => {
                for k in 0..8 {
                    let sx = if k & 1 == 0 { -1.0 } else { 1.0 };
                    let sy = if k & 2 == 0 { -1.0 } else { 1.0 };
                    let sz = if k & 4 == 0 { -1.0 } else { 1.0 };
                    points.push(centre + quat_rotate(q, Vec3::new(sx * d.x, sy * d.y, sz * d.z)));
                }
            }
            _ => {
                for _ in 0..32 {
                    let end = if rng.chance(0.5) { d.y } else { -d.y };
                    points.push(
                        centre + quat_rotate(q, Vec3::new(0.0, end, 0.0)) + rng.unit_vec() * d.x,
                    );
                }
            }
        }
        let r = c.shape_pos[i].w;
        let tol = 1e-5 * (1.0 + centre.abs().max_element() + r);
        for p in points {
            assert!(
                p.cmpge(lo.xyz() - Vec3::splat(tol)).all()
                    && p.cmple(hi.xyz() + Vec3::splat(tol)).all(),
                "shape {i} (kind {}): point {p} outside AABB [{lo}, {hi}]",
                sh.kind
            );
        }
        // The AABB is no bigger than the bounding sphere's box, and a sphere's is exact.
        let half = (hi.xyz() - lo.xyz()) * 0.5;
        assert!(
            half.max_element() <= r + MARGIN + tol,
            "shape {i}: AABB half size {half} beyond radius {r} + margin"
        );
        if sh.kind == shape_kind::SPHERE {
            assert!(
                (half - Vec3::splat(d.x + MARGIN)).abs().max_element() <= tol,
                "sphere {i}"
            );
        }
    }
}

#[test]
fn overflow_reports_the_wanted_count_and_writes_a_prefix() {
    let s = scene(21, 600, 10.0);
    let full = cpu_aabbs(&s, u32::MAX);
    let (all, wanted) = grid_pairs(&s, &full, &full.shape_pos, &full.shape_xf);
    assert!(all.len() > 50, "scene has too few pairs ({})", all.len());
    for cap in [0, 1, 17, all.len() as u32 - 1, all.len() as u32] {
        let c = cpu_aabbs(&s, cap);
        let (pairs, w) = grid_pairs(&s, &c, &c.shape_pos, &c.shape_xf);
        assert_eq!(w, wanted, "capacity {cap}: wanted");
        assert_eq!(pairs.len(), cap as usize, "capacity {cap}: written");
        assert_eq!(&pairs[..], &all[..cap as usize], "capacity {cap}: prefix");
    }
}

#[test]
fn pair_filters() {
    // Two overlapping unit spheres on bodies 0 and 1, and the variations of the rule.
    let sphere = |b: u32| shape(shape_kind::SPHERE, b, Vec4::new(1.0, 0.0, 0.0, 0.0));
    let id = Vec4::new(0.0, 0.0, 0.0, 1.0);
    let check = |a: GpuBody, b: GpuBody, sa: GpuShape, sb: GpuShape, expect: bool, what: &str| {
        let s = Scene {
            bodies: vec![a, b],
            shapes: vec![sa, sb],
        };
        let c = cpu_aabbs(&s, 16);
        let input = BroadInput::new(&c.params, &s.bodies, &s.shapes, &c.shape_pos, &c.shape_xf);
        assert_eq!(input.pair_ok(0, 1), expect, "{what}");
        assert_eq!(input.pair_ok(1, 0), expect, "{what} (swapped)");
        let (pairs, _) = grid_pairs(&s, &c, &c.shape_pos, &c.shape_xf);
        assert_eq!(pairs.len(), usize::from(expect), "{what}: grid");
    };
    let dyn_awake = body(body_kind::DYNAMIC, true, Vec3::ZERO, id);
    let dyn_asleep = body(body_kind::DYNAMIC, false, Vec3::X, id);
    let stat = body(body_kind::STATIC, false, Vec3::X, id);
    let kin_awake = body(body_kind::KINEMATIC, true, Vec3::X, id);
    let kin_asleep = body(body_kind::KINEMATIC, false, Vec3::X, id);
    let far = body(body_kind::DYNAMIC, true, Vec3::new(2.03, 0.0, 0.0), id);
    let (s0, s1) = (sphere(0), sphere(1));
    check(dyn_awake, dyn_awake, s0, s1, true, "dynamic-dynamic");
    check(dyn_awake, far, s0, s1, true, "within two margins");
    let mut further = far;
    further.pos.x = 2.0 + 2.0 * MARGIN + 0.01;
    check(dyn_awake, further, s0, s1, false, "beyond two margins");
    check(dyn_awake, stat, s0, s1, true, "dynamic-static");
    check(stat, kin_awake, s0, s1, false, "static-kinematic");
    check(kin_awake, kin_awake, s0, s1, false, "kinematic-kinematic");
    check(dyn_asleep, dyn_asleep, s0, s1, false, "asleep-asleep");
    check(dyn_asleep, dyn_awake, s0, s1, true, "asleep-awake");
    check(dyn_asleep, stat, s0, s1, false, "asleep-static");
    check(
        dyn_asleep,
        kin_asleep,
        s0,
        s1,
        false,
        "asleep-asleep kinematic",
    );
    check(
        dyn_asleep,
        kin_awake,
        s0,
        s1,
        true,
        "awake kinematic wakes a sleeper",
    );
    check(dyn_awake, dyn_awake, s0, sphere(0), false, "same body");
    let mut removed = s1;
    removed.kind = 0;
    check(dyn_awake, dyn_awake, s0, removed, false, "removed shape");
    let mut other = s1;
    other.group = 2;
    other.mask = !1;
    check(dyn_awake, dyn_awake, s0, other, false, "b's mask rejects a");
    other.mask = u32::MAX;
    let mut picky = s0;
    picky.mask = 1;
    check(
        dyn_awake,
        dyn_awake,
        picky,
        other,
        false,
        "a's mask rejects b",
    );
    check(
        dyn_awake,
        dyn_awake,
        s0,
        other,
        true,
        "groups accept each other",
    );
    // Half-space: below vs above; two-sided plane: straddling vs clear of it.
    let ground = shape(shape_kind::HALF_SPACE, 1, Vec4::new(0.0, 1.0, 0.0, 0.0));
    let plane = shape(shape_kind::PLANE, 1, Vec4::new(0.0, 1.0, 0.0, 0.0));
    let at = |y: f32| body(body_kind::DYNAMIC, true, Vec3::new(0.0, y, 0.0), id);
    check(
        at(0.9),
        stat,
        s0,
        ground,
        true,
        "sphere touching the ground",
    );
    check(
        at(-50.0),
        stat,
        s0,
        ground,
        true,
        "sphere deep in the half-space",
    );
    check(at(1.1), stat, s0, ground, false, "sphere above the ground");
    check(
        at(0.5),
        stat,
        s0,
        plane,
        true,
        "sphere straddling the plane",
    );
    check(
        at(-1.1),
        stat,
        s0,
        plane,
        false,
        "sphere below a two-sided plane",
    );
}

#[test]
fn plan_grid_rules() {
    let ball = |r: f32| shape(shape_kind::SPHERE, 0, Vec4::new(r, 0.0, 0.0, 0.0));
    // Equal sizes: one grid, no large shapes.
    let equal: Vec<_> = (0..100).map(|_| ball(0.5)).collect();
    let p = plan_grid(&equal, 0.1);
    assert!(p.large.is_empty(), "equal sizes: {:?}", p.large);
    assert!(
        p.cell_size >= 1.2 && p.cell_size < 1.3,
        "equal sizes: cell {}",
        p.cell_size
    );
    // A few huge outliers and planes go to the large list; the cell fits the rest.
    let mut mixed: Vec<_> = (0..1000).map(|i| ball(0.1 + 0.001 * i as f32)).collect();
    mixed[17] = ball(50.0);
    mixed[500] = ball(80.0);
    mixed.push(shape(shape_kind::HALF_SPACE, 0, Vec4::Y));
    let p = plan_grid(&mixed, 0.0);
    assert_eq!(p.large, vec![17, 500, 1000], "mixed: large");
    assert!(
        p.cell_size >= 2.0 * 1.099 && p.cell_size < 2.4,
        "mixed: cell {}",
        p.cell_size
    );
    // Removed shapes count for nothing; an empty world still has a valid cell.
    let mut gone = ball(1000.0);
    gone.kind = 0;
    assert_eq!(plan_grid(&[gone], 0.0).large, Vec::<u32>::new());
    assert!(plan_grid(&[], 0.0).grid_spec(0).is_ok());
    // Every small shape fits a cell.
    let s = scene(5, 800, 30.0);
    let p = plan_grid(&s.shapes, MARGIN);
    for (i, sh) in s.shapes.iter().enumerate() {
        if sh.kind != 0 && !p.large.contains(&(i as u32)) {
            assert!(
                2.0 * (bounding_radius(sh) + MARGIN) <= p.cell_size,
                "shape {i} too big"
            );
        }
    }
}

/// Items enumerate (shape, chunk) in output order: every small live shape once, every large
/// shape's chunks 0..chunks in order.
#[test]
fn item_layout() {
    for (n, large) in [
        (0u32, vec![]),
        (1, vec![0]),
        (5, vec![]),
        (300, vec![0, 1, 299]),
        (1000, vec![3, 700, 701, 999]),
        (513, vec![0, 256, 512]),
    ] {
        let chunks = large_chunks(n);
        let mut expect = Vec::new();
        for a in 0..n {
            if large.contains(&a) {
                expect.extend((0..chunks).map(|c| (a, c)));
            } else {
                expect.push((a, NONE));
            }
        }
        let items = broad_items(n, large.len() as u32);
        let got: Vec<_> = (0..items).map(|t| broad_item(t, n, &large)).collect();
        assert_eq!(got, expect, "{n} shapes, large {large:?}");
    }
    // 996 small items and 4 large shapes of ceil(1000 / 64) = 16 chunks each.
    assert_eq!(LARGE_CHUNK, 64);
    assert_eq!(broad_items(1000, 4), 996 + 4 * 16);
    // 4 large indices, 1060 items, 5 scan blocks of 256, the flag, the total.
    assert_eq!(pair_scratch_words(1000, 4), 4 + 1060 + 5 + 2);
    assert_eq!(truncated_word(1000, 4), 4 + 1060 + 5);
    // The sizing hint covers every plan of bounded shapes and keeps the scratch linear.
    assert_eq!(large_capacity_hint(1_000_000), 1000 + PLANE_ALLOWANCE);
    assert_eq!(large_capacity_hint(10), 10);
    let words = pair_scratch_words(1_000_000, large_capacity_hint(1_000_000));
    // Linear, not quadratic: 1,016 large shapes × 15,625 chunks + a million small items ≈ 17
    // words per shape (a quadratic sizing would take 1.6e10).
    assert!(
        words < 18_000_000,
        "scratch for a million shapes: {words} words"
    );
    let s = scene(8, 3000, 40.0);
    let planes = s.shapes.iter().filter(|sh| is_plane(sh.kind)).count() as u32;
    let bounded = plan_grid(&s.shapes, MARGIN).large.len() as u32 - planes;
    assert!(bounded + planes <= large_capacity_hint(s.shapes.len() as u32));
}

#[test]
fn tree_insert_remove_update_track_the_scene() {
    let mut s = scene(31, 700, 15.0);
    let c = cpu_aabbs(&s, u32::MAX);
    let input = BroadInput::new(&c.params, &s.bodies, &s.shapes, &c.shape_pos, &c.shape_xf);
    let mut tree = AabbTree::from_input(&input);
    let live = s.shapes.iter().filter(|sh| sh.kind != 0).count();
    assert_eq!(tree.len(), live);
    let mut rng = Rng(7);
    for round in 0..4 {
        // Move a third of the bodies, remove a few shapes, bring a few back.
        for b in s.bodies.iter_mut().skip(1) {
            if rng.chance(0.33) {
                b.pos += rng.vec3(-2.0, 2.0).extend(0.0);
                b.orient = rng.quat();
            }
        }
        for sh in s.shapes.iter_mut().skip(2) {
            if rng.chance(0.03) {
                sh.kind = if sh.kind == 0 { shape_kind::SPHERE } else { 0 };
                sh.dims.x = sh.dims.x.max(0.05);
            }
        }
        let c = cpu_aabbs(&s, u32::MAX);
        let input = BroadInput::new(&c.params, &s.bodies, &s.shapes, &c.shape_pos, &c.shape_xf);
        for (i, sh) in s.shapes.iter().enumerate() {
            let i = i as u32;
            if sh.kind == 0 {
                tree.remove(i);
            } else {
                tree.update(i, input.aabb_min(i), input.aabb_max(i));
            }
        }
        let live = s.shapes.iter().filter(|sh| sh.kind != 0).count();
        assert_eq!(tree.len(), live, "round {round}: tree size");
        let brute = brute_force_pairs(&input);
        let got = tree.pairs(&input);
        assert!(
            got == brute,
            "round {round}: {}",
            first_difference(&got, &brute)
        );
    }
    for i in 0..s.shapes.len() as u32 {
        tree.remove(i);
    }
    assert!(tree.is_empty());
    assert!(!tree.remove(0), "removing twice");
}
