//! Helpers shared by `rigid_queries` and `rigid_ccd`: posed bodies, shapes, and a
//! vector comparison.

use glam::{Quat, Vec3, Vec4};
use wgphys::rigid::math::{from_quat, QUAT_IDENTITY};
use wgphys::rigid::types::{body_kind, GpuBody, GpuShape};

pub fn body_at(pos: Vec3, q: Quat, kind: u32) -> GpuBody {
    GpuBody {
        pos: pos.extend(if kind == body_kind::DYNAMIC { 1.0 } else { 0.0 }),
        orient: from_quat(q),
        lin_vel: Vec4::new(0.0, 0.0, 0.0, 1.0),
        ang_vel: Vec4::new(0.0, 0.0, 0.0, 1.0),
        kind,
        awake: 1,
        can_sleep: 1,
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
        offset_rot: QUAT_IDENTITY,
        dims,
        material: Vec4::new(0.5, 0.2, 0.0, 0.0),
    }
}

pub fn close3(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).abs().max_element() <= tol
}
