//! The rigid broad phase: the grid broad phase, sweep and prune, the AABB tree and brute force
//! find the same pairs on random scenes of mixed sizes; AABBs contain their shapes; overflow
//! reports the wanted count; the item layout; the WGSL constants against the Rust ones; and the
//! GPU kernels against the CPU twins (identical pairs).

use glam::{Quat, Vec3, Vec4, Vec4Swizzles};
use std::collections::HashMap;
use wgphys::gpu::buffer::{self, STATE};
use wgphys::gpu::kernel::{Dispatch, Kernel};
use wgphys::gpu::GpuContext;
use wgphys::grid::{CpuGrid, GpuGrid, GridSpec};
use wgphys::rigid::broad::*;
use wgphys::rigid::gpu::shader_source;
use wgphys::rigid::math::{from_quat, quat_rotate};
use wgphys::rigid::types::*;

/// SplitMix64: seeded test input, independent of the engine's own generator.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n)) as u32
    }
    fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }
    fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }
    fn quat(&mut self) -> Vec4 {
        let v = Vec4::new(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        );
        let q = Quat::from_vec4(v).normalize();
        from_quat(q)
    }
    fn unit_vec(&mut self) -> Vec3 {
        loop {
            let v = self.vec3(-1.0, 1.0);
            let l = v.length();
            if l > 0.1 && l <= 1.0 {
                return v / l;
            }
        }
    }
}

const MARGIN: f32 = 0.02;

#[derive(Clone)]
struct Scene {
    bodies: Vec<GpuBody>,
    shapes: Vec<GpuShape>,
}

fn body(kind: u32, awake: bool, pos: Vec3, orient: Vec4) -> GpuBody {
    GpuBody {
        pos: pos.extend(if kind == body_kind::DYNAMIC { 1.0 } else { 0.0 }),
        orient,
        kind,
        awake: u32::from(awake),
        ..GpuBody::default()
    }
}

fn shape(kind: u32, body: u32, dims: Vec4) -> GpuShape {
    GpuShape {
        kind,
        body,
        group: 1,
        mask: u32::MAX,
        offset_pos: Vec4::ZERO,
        offset_rot: Vec4::new(0.0, 0.0, 0.0, 1.0),
        dims,
        material: Vec4::ZERO,
    }
}

/// A random scene: a ground half-space and a tilted two-sided plane (static), a few huge static
/// or dynamic boxes, then `n` bodies of 1–2 shapes (spheres, boxes, capsules, radii over 100x)
/// in a cube of side `side` (the density knob), some static, kinematic or asleep, some in other
/// collision groups, some shapes removed.
fn scene(seed: u64, n: u32, side: f32) -> Scene {
    scene_spread(seed, n, side, 100.0)
}

/// As [`scene`], with radii from 0.05 to `0.05 * spread`.
fn scene_spread(seed: u64, n: u32, side: f32, spread: f32) -> Scene {
    let mut rng = Rng(seed);
    let mut s = Scene {
        bodies: Vec::new(),
        shapes: Vec::new(),
    };
    s.bodies.push(body(
        body_kind::STATIC,
        false,
        Vec3::ZERO,
        Vec4::new(0.0, 0.0, 0.0, 1.0),
    ));
    s.shapes.push(shape(
        shape_kind::HALF_SPACE,
        0,
        Vec4::new(0.0, 1.0, 0.0, 0.0),
    ));
    let tilted = Vec3::new(1.0, 0.3, 0.2).normalize();
    let mut wall = shape(shape_kind::PLANE, 0, tilted.extend(side * 0.6));
    wall.offset_pos = Vec4::new(0.0, 0.5, 0.0, 0.0);
    s.shapes.push(wall);
    for i in 0..n {
        let kind = match rng.below(10) {
            0 => body_kind::STATIC,
            1 => body_kind::KINEMATIC,
            _ => body_kind::DYNAMIC,
        };
        let awake = rng.chance(0.75);
        let pos = Vec3::new(
            rng.range(-side / 2.0, side / 2.0),
            rng.range(-1.0, side),
            rng.range(-side / 2.0, side / 2.0),
        );
        let b = s.bodies.len() as u32;
        s.bodies.push(body(kind, awake, pos, rng.quat()));
        // Huge outliers every ~150 bodies; otherwise log-uniform sizes over 100x.
        let huge = i % 150 == 7;
        let count = if rng.chance(0.15) { 2 } else { 1 };
        for _ in 0..count {
            let r = if huge {
                side * 0.3 + 5.0
            } else {
                0.05 * spread.powf(rng.unit())
            };
            let (k, dims) = match rng.below(3) {
                0 => (shape_kind::SPHERE, Vec4::new(r, 0.0, 0.0, 0.0)),
                1 => (
                    shape_kind::BOX,
                    Vec4::new(r, r * rng.range(0.2, 1.0), r * rng.range(0.2, 1.0), 0.0),
                ),
                _ => (
                    shape_kind::CAPSULE,
                    Vec4::new(r * rng.range(0.2, 0.6), r * rng.range(0.3, 1.0), 0.0, 0.0),
                ),
            };
            let mut sh = shape(k, b, dims);
            if count == 2 {
                sh.offset_pos = rng.vec3(-r, r).extend(0.0);
                sh.offset_rot = rng.quat();
            }
            if rng.chance(0.1) {
                sh.group = 2;
                sh.mask = !4;
            } else if rng.chance(0.1) {
                sh.group = 4;
                sh.mask = !2;
            }
            if rng.chance(0.03) {
                sh.kind = 0;
            }
            s.shapes.push(sh);
        }
    }
    s
}

struct Cpu {
    params: GpuRigidParams,
    plan: BroadPlan,
    spec: GridSpec,
    shape_pos: Vec<Vec4>,
    shape_xf: Vec<Vec4>,
}

fn params_for(s: &Scene, plan: &BroadPlan, spec: &GridSpec, capacity: u32) -> GpuRigidParams {
    GpuRigidParams {
        body_count: s.bodies.len() as u32,
        shape_count: s.shapes.len() as u32,
        pair_capacity: capacity,
        large_count: plan.large.len() as u32,
        inv_cell_size: spec.inv_cell_size(),
        table_mask: spec.table_mask(),
        contact_margin: MARGIN,
        ..GpuRigidParams::default()
    }
}

fn cpu_aabbs(s: &Scene, capacity: u32) -> Cpu {
    let plan = plan_grid(&s.shapes, MARGIN);
    let spec = plan.grid_spec(s.shapes.len() as u32).expect("grid spec");
    let params = params_for(s, &plan, &spec, capacity);
    let n = s.shapes.len();
    let mut shape_pos = vec![Vec4::ZERO; n];
    let mut shape_xf = vec![Vec4::ZERO; 3 * n];
    shape_aabbs(
        &params,
        &s.bodies,
        &s.shapes,
        &plan.large,
        &mut shape_pos,
        &mut shape_xf,
    );
    Cpu {
        params,
        plan,
        spec,
        shape_pos,
        shape_xf,
    }
}

fn grid_pairs(s: &Scene, c: &Cpu, shape_pos: &[Vec4], shape_xf: &[Vec4]) -> (Vec<[u32; 2]>, u32) {
    let input = BroadInput::new(&c.params, &s.bodies, &s.shapes, shape_pos, shape_xf);
    let grid = CpuGrid::build(shape_pos, &c.spec).expect("grid");
    let mut pairs = Vec::new();
    let wanted = broad_pairs(&c.params, &input, &c.plan.large, &grid, &c.spec, &mut pairs);
    (pairs, wanted)
}

fn first_difference(a: &[[u32; 2]], b: &[[u32; 2]]) -> String {
    let sa: std::collections::BTreeSet<_> = a.iter().collect();
    let sb: std::collections::BTreeSet<_> = b.iter().collect();
    let only_a: Vec<_> = sa.difference(&sb).take(5).collect();
    let only_b: Vec<_> = sb.difference(&sa).take(5).collect();
    format!(
        "lengths {} vs {}; only in first {:?}; only in second {:?}",
        a.len(),
        b.len(),
        only_a,
        only_b
    )
}

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
    assert_eq!(broad_items(1000, 4), 996 + 4 * 4);
    assert_eq!(pair_scratch_words(1000, 4), 1012 + 4 + 1);
    assert_eq!(truncated_word(1000, 4), 1012 + 4);
    // The sizing hint covers every plan of bounded shapes and keeps the scratch linear.
    assert_eq!(large_capacity_hint(1_000_000), 1000 + PLANE_ALLOWANCE);
    assert_eq!(large_capacity_hint(10), 10);
    let words = pair_scratch_words(1_000_000, large_capacity_hint(1_000_000));
    assert!(
        words < 6_000_000,
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

// ---------------------------------------------------------------------------------------------
// WGSL

fn parse_rigid() -> (naga::Module, naga::valid::ModuleInfo) {
    let src = shader_source();
    let module = naga::front::wgsl::parse_str(&src)
        .unwrap_or_else(|e| panic!("rigid shader: {}", e.emit_to_string(&src)));
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("rigid shader fails validation: {e:?}"));
    (module, info)
}

fn wgsl_u32_const(module: &naga::Module, name: &str) -> u32 {
    let (_, c) = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("const {name} missing from the rigid shader"));
    match module.global_expressions[c.init] {
        naga::Expression::Literal(naga::Literal::U32(v)) => v,
        ref e => panic!("const {name}: not a u32 literal: {e:?}"),
    }
}

#[test]
fn wgsl_constants_and_entry_points_match_the_rust_side() {
    let (module, _) = parse_rigid();
    assert_eq!(wgsl_u32_const(&module, "BROAD_BATCH"), PARTNER_BATCH);
    assert_eq!(wgsl_u32_const(&module, "BROAD_CHUNK"), LARGE_CHUNK);
    assert_eq!(
        wgsl_u32_const(&module, "BROAD_SCAN_PER_THREAD") * RIGID_WG,
        SCAN_BLOCK
    );
    let mut names = vec![shape_aabbs_pass(1).0];
    names.extend(broad_gpu_passes(1, 0).iter().map(|p| p.0));
    for name in names {
        let ep = module
            .entry_points
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("entry point {name} missing"));
        assert_eq!(
            ep.workgroup_size,
            [RIGID_WG, 1, 1],
            "{name}: workgroup size"
        );
    }
    let passes = broad_gpu_passes(1_000_000, 3);
    assert_eq!(
        passes[0],
        ("broad_count", broad_items(1_000_000, 3).div_ceil(RIGID_WG))
    );
    assert_eq!(passes[2], ("broad_scan_sums", 1));
    assert_eq!(broad_gpu_passes(u32::MAX / 2, 0)[0].1, MAX_GROUPS);
}

// ---------------------------------------------------------------------------------------------
// GPU against CPU

fn gpu() -> GpuContext {
    GpuContext::new().expect(
        "no GPU adapter: apt-get install -y mesa-vulkan-drivers (lavapipe) or use WGPU_BACKEND=gl",
    )
}

/// Group-0 bindings each entry point uses, from naga (the derived layouts hold exactly these).
fn used_bindings() -> HashMap<String, Vec<u32>> {
    let (module, info) = parse_rigid();
    let mut out = HashMap::new();
    for (i, ep) in module.entry_points.iter().enumerate() {
        let fi = info.get_entry_point(i);
        let mut used = Vec::new();
        for (h, var) in module.global_variables.iter() {
            if let Some(rb) = &var.binding {
                if rb.group == 0 && !fi[h].is_empty() {
                    used.push(rb.binding);
                }
            }
        }
        out.insert(ep.name.clone(), used);
    }
    out
}

struct GpuRun {
    shape_pos: Vec<Vec4>,
    shape_xf: Vec<Vec4>,
    grid: CpuGrid,
    pairs: Vec<[u32; 2]>,
    counters: [u32; 2],
    scratch: Vec<u32>,
    truncated: u32,
}

fn run_gpu(ctx: &GpuContext, s: &Scene, c: &Cpu) -> GpuRun {
    use wgphys::rigid::gpu::binding as b;
    let dev = &ctx.device;
    let n = s.shapes.len() as u32;
    let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("wgphys:test:rigid"),
        source: wgpu::ShaderSource::Wgsl(shader_source().into()),
    });
    let params = buffer::with_data(
        dev,
        "params",
        bytemuck::bytes_of(&c.params),
        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    );
    let bodies = buffer::with_data(dev, "bodies", bytemuck::cast_slice(&s.bodies), STATE);
    let shapes = buffer::with_data(dev, "shapes", bytemuck::cast_slice(&s.shapes), STATE);
    let shape_pos = buffer::zeroed(dev, "shape_pos", 16 * u64::from(n), STATE);
    let shape_xf = buffer::zeroed(dev, "shape_xf", 48 * u64::from(n), STATE);
    let large = buffer::with_data(dev, "large", bytemuck::cast_slice(&c.plan.large), STATE);
    let pairs = buffer::zeroed(dev, "pairs", 8 * u64::from(c.params.pair_capacity), STATE);
    let counters = buffer::zeroed(dev, "counters", 4 * counter::LEN as u64, STATE);
    let scratch = buffer::zeroed(
        dev,
        "pair_scratch",
        4 * pair_scratch_words(n, c.plan.large.len() as u32),
        STATE,
    );
    let mut grid = GpuGrid::new(ctx, n.max(1), c.spec).expect("GPU grid");
    let uses = used_bindings();
    let kernel = |entry: &'static str, grid: &GpuGrid| {
        let mut k = Kernel::new(dev, &module, entry);
        let all: [(u32, &wgpu::Buffer); 12] = [
            (b::PARAMS, &params),
            (b::BODIES, &bodies),
            (b::SHAPES, &shapes),
            (b::SHAPE_POS, &shape_pos),
            (b::SHAPE_XF, &shape_xf),
            (b::LARGE, &large),
            (b::PAIRS, &pairs),
            (b::COUNTERS, &counters),
            (b::GRID_SORTED, grid.sorted_index()),
            (b::GRID_START, grid.cell_start()),
            (b::GRID_END, grid.cell_end()),
            (b::PAIR_SCRATCH, &scratch),
        ];
        let used = &uses[entry];
        let entries: Vec<_> = all
            .iter()
            .filter(|(i, _)| used.contains(i))
            .copied()
            .collect();
        assert_eq!(entries.len(), used.len(), "{entry}: binds {used:?}");
        k.bind(dev, &entries);
        k
    };
    let submit = |record: &dyn Fn(&mut wgpu::CommandEncoder)| {
        let mut enc = dev.create_command_encoder(&Default::default());
        record(&mut enc);
        ctx.queue.submit([enc.finish()]);
    };
    let (entry, groups) = shape_aabbs_pass(n);
    let k = kernel(entry, &grid);
    submit(&|enc| k.record(enc, Dispatch::Direct(groups), None));
    let mut enc = dev.create_command_encoder(&Default::default());
    grid.encode_build(&mut enc, &shape_pos, n)
        .expect("grid build");
    ctx.queue.submit([enc.finish()]);
    let passes: Vec<_> = broad_gpu_passes(n, c.plan.large.len() as u32)
        .into_iter()
        .map(|(e, g)| (kernel(e, &grid), g))
        .collect();
    submit(&|enc| {
        for (k, g) in &passes {
            k.record(enc, Dispatch::Direct(*g), None);
        }
    });
    let read_vec4 = |buf: &wgpu::Buffer, count: usize| -> Vec<Vec4> {
        buffer::read_vec::<[f32; 4]>(dev, &ctx.queue, buf, count)
            .expect("readback")
            .into_iter()
            .map(Vec4::from_array)
            .collect()
    };
    let cnt: Vec<u32> = buffer::read_vec(dev, &ctx.queue, &counters, 2).expect("counters");
    let shapes_after: Vec<GpuShape> =
        buffer::read_vec(dev, &ctx.queue, &shapes, s.shapes.len()).expect("shapes");
    assert!(
        shapes_after == s.shapes,
        "the broad phase wrote into `shapes`"
    );
    let bodies_after: Vec<GpuBody> =
        buffer::read_vec(dev, &ctx.queue, &bodies, s.bodies.len()).expect("bodies");
    assert!(
        bodies_after == s.bodies,
        "the broad phase wrote into `bodies`"
    );
    let written = cnt[1].min(c.params.pair_capacity) as usize;
    let raw: Vec<[u32; 2]> = buffer::read_vec(dev, &ctx.queue, &pairs, written).expect("pairs");
    let mut run = GpuRun {
        shape_pos: read_vec4(&shape_pos, n as usize),
        shape_xf: read_vec4(&shape_xf, 3 * n as usize),
        grid: grid.read(n).expect("grid readback"),
        pairs: raw,
        scratch: buffer::read_vec(
            dev,
            &ctx.queue,
            &scratch,
            pair_scratch_words(n, c.plan.large.len() as u32) as usize,
        )
        .expect("scratch"),
        truncated: 0,
        counters: [cnt[counter::PAIRS], cnt[counter::PAIRS_WANTED]],
    };
    run.truncated = run.scratch[truncated_word(n, c.plan.large.len() as u32) as usize];
    run
}

fn assert_close(what: &str, gpu: &[Vec4], cpu: &[Vec4]) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: length");
    for (i, (g, c)) in gpu.iter().zip(cpu).enumerate() {
        let tol = 2e-6 * (1.0 + c.abs().max_element().min(1e30));
        let ok = (*g - *c).abs().max_element() <= tol || g == c;
        assert!(ok, "{what}[{i}]: gpu {g}, cpu {c} (tolerance {tol})");
    }
}

/// `shape_aabbs` matches the CPU within a few ULPs (large flags exactly), the grid built over
/// the GPU's `shape_pos` matches the CPU's build, and the pair list and counters equal
/// `broad_pairs` run on the GPU's AABBs, pair for pair, including on overflow.
#[test]
fn gpu_broad_phase_matches_the_cpu() {
    let ctx = gpu();
    eprintln!("adapter: {}", ctx.describe());
    // Densities from packed to sparse, an overflow, a large scene with many large shapes and
    // scan blocks, and a stress scene (radii over 100x, ~100 shapes per cell) that may exceed
    // llvmpipe's loop limit: it must then raise the truncation flag.
    let mut cases = vec![
        (scene(41, 37, 3.0), u32::MAX / 64, false),
        (scene(42, 500, 8.0), u32::MAX / 64, false),
        (scene(43, 900, 40.0), u32::MAX / 64, false),
        (scene(44, 400, 8.0), 100, false),
    ];
    let mut big = scene_spread(45, 12_000, 25.0, 10.0);
    for sh in big.shapes.iter_mut().skip(2).step_by(150) {
        if sh.kind != 0 {
            sh.dims *= 8.0;
        }
    }
    cases.push((big, u32::MAX / 64, false));
    cases.push((scene(46, 12_000, 60.0), u32::MAX / 64, true));
    for (ci, (s, cap, stress)) in cases.iter().enumerate() {
        let mut c = cpu_aabbs(s, 0);
        let full = grid_pairs(s, &c, &c.shape_pos, &c.shape_xf).1;
        c.params.pair_capacity = (*cap).min(full + 10);
        let g = run_gpu(&ctx, s, &c);
        let what = format!(
            "case {ci} ({} shapes, {} large, capacity {}, wanted {full})",
            s.shapes.len(),
            c.plan.large.len(),
            c.params.pair_capacity
        );
        assert_close(&format!("{what}: shape_pos"), &g.shape_pos, &c.shape_pos);
        assert_close(&format!("{what}: shape_xf"), &g.shape_xf, &c.shape_xf);
        for i in 0..s.shapes.len() {
            assert_eq!(
                g.shape_xf[3 * i + 1].w,
                c.shape_xf[3 * i + 1].w,
                "{what}: large flag of shape {i}"
            );
        }
        let cpu_grid = CpuGrid::build(&g.shape_pos, &c.spec).expect("grid");
        if *stress && g.truncated != 0 {
            eprintln!("{what}: truncated by the adapter's loop limit, and flagged");
            continue;
        }
        assert_eq!(g.truncated, 0, "{what}: truncation flag");
        assert!(
            cpu_grid == g.grid,
            "{what}: GPU grid differs from the CPU grid"
        );
        let (pairs, wanted) = grid_pairs(s, &c, &g.shape_pos, &g.shape_xf);
        {
            let input = BroadInput::new(&c.params, &s.bodies, &s.shapes, &g.shape_pos, &g.shape_xf);
            let mut counts = Vec::new();
            broad_count(&input, &c.plan.large, &cpu_grid, &c.spec, &mut counts);
            let items = counts.len();
            let blocks = items.div_ceil(SCAN_BLOCK as usize);
            let mut offsets = counts.clone();
            broad_scan(&mut offsets);
            let gpu_off: Vec<u32> = (0..items)
                .map(|t| g.scratch[t] + g.scratch[items + t / SCAN_BLOCK as usize])
                .collect();
            assert_eq!(
                g.scratch.len(),
                items + blocks + 1,
                "{what}: scratch length"
            );
            if let Some(t) = (0..items).find(|&t| gpu_off[t] != offsets[t]) {
                panic!(
                    "{what}: offset of item {t} ({:?}): gpu {}, cpu {} (count {}); prev gpu {:?}",
                    broad_item(t as u32, s.shapes.len() as u32, &c.plan.large),
                    gpu_off[t],
                    offsets[t],
                    counts[t],
                    &gpu_off[t.saturating_sub(3)..t]
                );
            }
        }
        assert_eq!(g.counters[1], wanted, "{what}: counters[PAIRS_WANTED]");
        assert_eq!(
            g.counters[0],
            wanted.min(c.params.pair_capacity),
            "{what}: counters[PAIRS]"
        );
        if g.pairs != pairs {
            let input = BroadInput::new(&c.params, &s.bodies, &s.shapes, &g.shape_pos, &g.shape_xf);
            let mut offsets = Vec::new();
            broad_count(&input, &c.plan.large, &cpu_grid, &c.spec, &mut offsets);
            let counts = offsets.clone();
            broad_scan(&mut offsets);
            let bad: Vec<usize> = (0..pairs.len())
                .filter(|&i| g.pairs[i] != pairs[i])
                .collect();
            eprintln!("{} bad slots", bad.len());
            let mut seen = std::collections::BTreeSet::new();
            for &i in &bad {
                let t = offsets.partition_point(|&o| o as usize <= i) - 1;
                if seen.insert(t) {
                    let it = broad_item(t as u32, s.shapes.len() as u32, &c.plan.large);
                    let o = offsets[t] as usize;
                    let n = counts[t] as usize;
                    let wrong = (o..o + n).filter(|&k| g.pairs[k] != pairs[k]).count();
                    if let Some(k) = (o..o + n).find(|&k| g.pairs[k] != pairs[k]) {
                        eprintln!(
                            "  first wrong slot {} of item: gpu {:?} cpu {:?}",
                            k - o,
                            &g.pairs[k.saturating_sub(2)..(k + 6).min(o + n)],
                            &pairs[k.saturating_sub(2)..(k + 6).min(o + n)]
                        );
                    }
                    eprintln!(
                        "item {t} {it:?} offset {o} count {n}: {wrong} wrong; gpu {:?} cpu {:?}",
                        &g.pairs[o..(o + n).min(o + 20)],
                        &pairs[o..(o + n).min(o + 20)]
                    );
                }
                if seen.len() > 12 {
                    break;
                }
            }
        }
        assert!(
            g.pairs == pairs,
            "{what}: GPU pairs vs CPU: {}",
            first_difference(&g.pairs, &pairs)
        );
        eprintln!("{what}: {} pairs identical", g.pairs.len());
    }
}

/// The same parity through the world's own GPU host ([`GpuRigid`]: its buffers, bind groups and
/// grid): `shape_aabbs`, the grid build over `shape_pos`, then [`broad_gpu_passes`], as
/// `RigidWorld::step` records them.
#[test]
fn gpu_rigid_host_broad_phase_matches_the_cpu() {
    use wgphys::rigid::gpu::{GpuRigid, GpuRigidSizes, Pass};
    let ctx = gpu();
    for (ci, (s, overflow)) in [(scene(51, 700, 12.0), false), (scene(52, 300, 6.0), true)]
        .iter()
        .enumerate()
    {
        let mut c = cpu_aabbs(s, 0);
        let full = grid_pairs(s, &c, &c.shape_pos, &c.shape_xf).1;
        c.params.pair_capacity = if *overflow { full / 3 } else { full + 5 };
        let n = s.shapes.len() as u32;
        let k = c.plan.large.len() as u32;
        let mut g = GpuRigid::new(
            &ctx,
            GpuRigidSizes {
                bodies: s.bodies.len() as u32,
                shapes: n,
                pairs: c.params.pair_capacity,
                solver_words: 64,
                pair_scratch_words: pair_scratch_words(n, k),
                grid: c.spec,
            },
        )
        .expect("GpuRigid");
        g.write(&g.params, &[c.params]);
        g.write(&g.bodies, &s.bodies);
        g.write(&g.shapes, &s.shapes);
        g.write(&g.large, &c.plan.large);
        let (entry, groups) = shape_aabbs_pass(n);
        g.run(&[Pass::direct(entry, groups)]).expect("shape_aabbs");
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        g.record_grid(&mut enc, n).expect("grid");
        ctx.queue.submit([enc.finish()]);
        let passes: Vec<Pass> = broad_gpu_passes(n, k)
            .into_iter()
            .map(|(e, w)| Pass::direct(e, w))
            .collect();
        g.run(&passes).expect("broad passes");
        let to_vec4 = |v: Vec<[f32; 4]>| v.into_iter().map(Vec4::from_array).collect::<Vec<_>>();
        let shape_pos = to_vec4(g.read(&g.shape_pos, n as usize).expect("shape_pos"));
        let shape_xf = to_vec4(g.read(&g.shape_xf, 3 * n as usize).expect("shape_xf"));
        let counters: Vec<u32> = g.read(&g.counters, 2).expect("counters");
        let written = counters[counter::PAIRS] as usize;
        let pairs: Vec<[u32; 2]> = g.read(&g.pairs, written).expect("pairs");
        let scratch: Vec<u32> = g
            .read(&g.pair_scratch, pair_scratch_words(n, k) as usize)
            .expect("scratch");
        let what = format!(
            "host case {ci} ({n} shapes, capacity {})",
            c.params.pair_capacity
        );
        assert_close(&format!("{what}: shape_pos"), &shape_pos, &c.shape_pos);
        assert_close(&format!("{what}: shape_xf"), &shape_xf, &c.shape_xf);
        let (cpu_pairs, wanted) = grid_pairs(s, &c, &shape_pos, &shape_xf);
        assert_eq!(wanted, full, "{what}: CPU wanted on GPU AABBs");
        assert_eq!(
            counters[counter::PAIRS_WANTED],
            wanted,
            "{what}: PAIRS_WANTED"
        );
        assert_eq!(
            counters[counter::PAIRS],
            wanted.min(c.params.pair_capacity),
            "{what}: PAIRS"
        );
        assert_eq!(
            scratch[truncated_word(n, k) as usize],
            0,
            "{what}: truncation flag"
        );
        assert!(
            pairs == cpu_pairs,
            "{what}: {}",
            first_difference(&pairs, &cpu_pairs)
        );
        eprintln!("{what}: {} pairs identical, {wanted} wanted", pairs.len());
    }
}
