//! Helpers shared by `rigid_broad` and `rigid_broad_gpu`: a seeded generator, random scenes
//! of mixed sizes, and the CPU broad phase (AABBs, the grid pairs) to compare against.

use glam::{Quat, Vec3, Vec4};
use wgphys::grid::{CpuGrid, GridSpec};
use wgphys::rigid::broad::*;
use wgphys::rigid::math::from_quat;
use wgphys::rigid::types::*;

/// SplitMix64: seeded test input, independent of the engine's own generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n)) as u32
    }
    pub fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }
    pub fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }
    pub fn quat(&mut self) -> Vec4 {
        let v = Vec4::new(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        );
        let q = Quat::from_vec4(v).normalize();
        from_quat(q)
    }
    pub fn unit_vec(&mut self) -> Vec3 {
        loop {
            let v = self.vec3(-1.0, 1.0);
            let l = v.length();
            if l > 0.1 && l <= 1.0 {
                return v / l;
            }
        }
    }
}

pub const MARGIN: f32 = 0.02;

#[derive(Clone)]
pub struct Scene {
    pub bodies: Vec<GpuBody>,
    pub shapes: Vec<GpuShape>,
}

pub fn body(kind: u32, awake: bool, pos: Vec3, orient: Vec4) -> GpuBody {
    GpuBody {
        pos: pos.extend(if kind == body_kind::DYNAMIC { 1.0 } else { 0.0 }),
        orient,
        kind,
        awake: u32::from(awake),
        ..GpuBody::default()
    }
}

pub fn shape(kind: u32, body: u32, dims: Vec4) -> GpuShape {
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
pub fn scene(seed: u64, n: u32, side: f32) -> Scene {
    scene_spread(seed, n, side, 100.0)
}

/// As [`scene`], with radii from 0.05 to `0.05 * spread`.
pub fn scene_spread(seed: u64, n: u32, side: f32, spread: f32) -> Scene {
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

pub struct Cpu {
    pub params: GpuRigidParams,
    pub plan: BroadPlan,
    pub spec: GridSpec,
    pub shape_pos: Vec<Vec4>,
    pub shape_xf: Vec<Vec4>,
}

pub fn params_for(s: &Scene, plan: &BroadPlan, spec: &GridSpec, capacity: u32) -> GpuRigidParams {
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

pub fn cpu_aabbs(s: &Scene, capacity: u32) -> Cpu {
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

pub fn grid_pairs(
    s: &Scene,
    c: &Cpu,
    shape_pos: &[Vec4],
    shape_xf: &[Vec4],
) -> (Vec<[u32; 2]>, u32) {
    let input = BroadInput::new(&c.params, &s.bodies, &s.shapes, shape_pos, shape_xf);
    let grid = CpuGrid::build(shape_pos, &c.spec).expect("grid");
    let mut pairs = Vec::new();
    let wanted = broad_pairs(&c.params, &input, &c.plan.large, &grid, &c.spec, &mut pairs);
    (pairs, wanted)
}

pub fn first_difference(a: &[[u32; 2]], b: &[[u32; 2]]) -> String {
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
