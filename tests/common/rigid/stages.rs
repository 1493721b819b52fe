//! Helpers of the per-stage parity tests of the stages the rigid world owns
//! (`rigid_integrate`, `rigid_sleep`, `rigid_forces`): seeded random bodies, buffer sizes for
//! the pass runner, and the check of the fields a stage does not compute.

use super::super::Rng;
use glam::{Vec3, Vec4};
use wgphys::grid::GridSpec;
use wgphys::rigid::gpu::GpuRigidSizes;
use wgphys::rigid::integrate;
use wgphys::rigid::math::{cols_of, quat_normalize};
use wgphys::rigid::types::*;

/// A seeded random body: asymmetric, spinning off its axes, of every kind, some asleep.
pub fn random_body(rng: &mut Rng, i: u32) -> GpuBody {
    let mut v = || rng.vec3(-5.0, 5.0);
    let q = quat_normalize(v().extend(1.0));
    let inertia = glam::Mat3::from_diagonal(Vec3::new(0.5, 1.0, 2.0));
    let mut b = GpuBody {
        pos: v().extend(0.5),
        orient: q,
        lin_vel: v().extend(0.95),
        ang_vel: v().extend(0.8),
        inv_inertia: cols_of(inertia),
        force: v().extend(0.0),
        torque: v().extend(0.0),
        acc: Vec4::new(0.0, -9.81, 0.0, 0.0),
        last_acc: Vec4::new(0.0, 0.0, 0.0, 1.0),
        kind: [body_kind::DYNAMIC, body_kind::STATIC, body_kind::KINEMATIC]
            [(i % 7).min(2) as usize],
        awake: u32::from(i % 5 != 4),
        can_sleep: 1,
        flags: 0,
        ..Default::default()
    };
    b.inv_inertia_world = integrate::world_inverse_inertia(b.orient, &b.inv_inertia);
    b
}

/// Buffer sizes for `bodies` bodies (and as many pair slots).
pub fn sizes(bodies: u32) -> GpuRigidSizes {
    GpuRigidSizes {
        bodies,
        shapes: 16,
        pairs: bodies,
        solver_words: u64::from(bodies) * u64::from(wgphys::rigid::solver::solver_record_rows()),
        pair_scratch_words: 64,
        grid: GridSpec::new(1.0, 64).expect("grid"),
        block_bins: 0,
        joints: 0,
        joint_filter: 0,
        generators: 0,
    }
}

/// Every field of a body that `what` does not compute, exactly.
pub fn assert_unchanged(what: &str, i: usize, g: &GpuBody, c: &GpuBody) {
    assert_eq!(
        (g.inv_inertia, g.acc, g.kind, g.awake, g.can_sleep, g.flags),
        (c.inv_inertia, c.acc, c.kind, c.awake, c.can_sleep, c.flags),
        "{what}: body {i}: inv_inertia, acc, kind, awake, can_sleep, flags"
    );
    assert_eq!(
        (g.pos.w, g.lin_vel.w, g.ang_vel.w),
        (c.pos.w, c.lin_vel.w, c.ang_vel.w),
        "{what}: body {i}: inverse mass and dampings (copied)"
    );
}
