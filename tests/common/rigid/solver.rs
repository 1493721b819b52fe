//! Helpers shared by `rigid_solver` and `rigid_solver_passes`: solver parameters, hand-built
//! bodies and manifolds, and a random scene of both.

use super::{DT, G};
use glam::{Mat3, Quat, Vec3, Vec4, Vec4Swizzles};
use wgphys::rigid::integrate;
use wgphys::rigid::math::{cols_of, from_quat};
use wgphys::rigid::solver;
use wgphys::rigid::types::*;

use crate::common::Rng;

pub fn params(bodies: u32, pairs: u32) -> GpuRigidParams {
    GpuRigidParams {
        dt: DT,
        body_count: bodies,
        pair_capacity: pairs,
        velocity_iterations: 4,
        relax_iterations: 2,
        position_iterations: 0,
        inv_dt: 1.0 / DT,
        soft: solver::soft_contact(30.0, 10.0, 3.0, DT),
        soft_static: solver::soft_contact(60.0, 10.0, 3.0, DT),
        restitution_cutoff: 0.25,
        angular_limit: 0.2,
        position_relax: 0.8,
        position_slop: 0.005,
        warm_start: 1,
        substeps: 1,
        ..Default::default()
    }
}

/// A dynamic, awake body with diagonal inertia (kg·m²) rotated by `q`.
pub fn dynamic(pos: Vec3, mass: f32, inertia: Vec3, q: Quat) -> GpuBody {
    let inv = cols_of(Mat3::from_diagonal(inertia.recip()));
    let mut b = GpuBody {
        pos: pos.extend(1.0 / mass),
        orient: from_quat(q),
        lin_vel: Vec4::new(0.0, 0.0, 0.0, 1.0),
        ang_vel: Vec4::new(0.0, 0.0, 0.0, 1.0),
        inv_inertia: inv,
        kind: body_kind::DYNAMIC,
        awake: 1,
        can_sleep: 1,
        ..Default::default()
    };
    b.inv_inertia_world = integrate::world_inverse_inertia(b.orient, &b.inv_inertia);
    b
}

pub fn static_body(pos: Vec3) -> GpuBody {
    GpuBody {
        pos: pos.extend(0.0),
        orient: Vec4::new(0.0, 0.0, 0.0, 1.0),
        kind: body_kind::STATIC,
        ..Default::default()
    }
}

pub fn manifold(
    a: u32,
    b: u32,
    shapes: (u32, u32),
    normal: Vec3,
    points: &[(Vec3, f32)],
    mu: f32,
    e: f32,
) -> GpuManifold {
    let mut m = GpuManifold {
        body_a: a,
        body_b: b,
        count: points.len() as u32,
        colour: NONE,
        shape_a: shapes.0,
        shape_b: shapes.1,
        normal: normal.normalize().extend(mu),
        material: Vec4::new(e, 0.0, 0.0, 0.0),
        ..Default::default()
    };
    for (i, (p, pen)) in points.iter().enumerate() {
        m.points[i] = p.extend(*pen);
        m.features[i] = i as u32;
    }
    m
}

/// Random bodies and manifolds for property tests: `n` bodies (every seventh static, every
/// eleventh kinematic), manifolds between random pairs or with the world.
pub fn random_scene(rng: &mut Rng, n: u32, pairs: u32) -> (Vec<GpuBody>, Vec<GpuManifold>) {
    let mut bodies = Vec::new();
    for i in 0..n {
        let q = Quat::from_axis_angle(
            rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y),
            rng.range(0.0, 3.0),
        );
        let mut b = dynamic(
            rng.vec3(-5.0, 5.0),
            rng.range(0.5, 4.0),
            rng.vec3(0.2, 2.0),
            q,
        );
        b.lin_vel = rng.vec3(-3.0, 3.0).extend(1.0);
        b.ang_vel = rng.vec3(-2.0, 2.0).extend(1.0);
        b.last_acc = Vec4::new(0.0, -G, 0.0, 0.0);
        if i % 7 == 3 {
            b = static_body(b.pos.xyz());
        } else if i % 11 == 5 {
            b.kind = body_kind::KINEMATIC;
            b.pos.w = 0.0;
        }
        bodies.push(b);
    }
    let mut ms = Vec::new();
    for k in 0..pairs {
        let a = (rng.unit() * n as f32) as u32 % n;
        let mut b = (rng.unit() * n as f32) as u32 % n;
        if b == a {
            b = NONE;
        }
        let normal = rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y);
        let pa = bodies[a as usize].pos.xyz();
        let count = 1 + (rng.unit() * 4.0) as usize % 4;
        let pts: Vec<(Vec3, f32)> = (0..count)
            .map(|_| (pa + rng.vec3(-0.6, 0.6), rng.range(-0.01, 0.08)))
            .collect();
        ms.push(manifold(
            a,
            b,
            (k, k + 1),
            normal,
            &pts,
            rng.range(0.0, 1.0),
            rng.range(0.0, 0.6),
        ));
    }
    (bodies, ms)
}
