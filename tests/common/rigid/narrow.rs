//! Helpers shared by `rigid_narrow` and `rigid_narrow_random`: bodies and shapes of every kind,
//! narrow-phase parameters, a two-shape collision, and tolerance checks.

use glam::{Vec3, Vec4};
use wgphys::rigid::material::Combine;
use wgphys::rigid::math::QUAT_IDENTITY;
use wgphys::rigid::narrow::collide_shapes;
use wgphys::rigid::types::*;

pub fn body(pos: Vec3, q: Vec4) -> GpuBody {
    GpuBody {
        pos: pos.extend(1.0),
        orient: q,
        kind: body_kind::DYNAMIC,
        awake: 1,
        ..Default::default()
    }
}

pub fn shape(kind: u32, body: u32, dims: Vec4) -> GpuShape {
    GpuShape {
        kind,
        body,
        group: 1,
        mask: 1,
        offset_rot: QUAT_IDENTITY,
        dims,
        material: Vec4::new(0.5, 0.5, 0.0, 0.0),
        ..Default::default()
    }
}

pub fn sphere(body: u32, r: f32) -> GpuShape {
    shape(shape_kind::SPHERE, body, Vec4::new(r, 0.0, 0.0, 0.0))
}

pub fn cuboid(body: u32, h: Vec3) -> GpuShape {
    shape(shape_kind::BOX, body, h.extend(0.0))
}

pub fn capsule(body: u32, r: f32, half: f32) -> GpuShape {
    shape(shape_kind::CAPSULE, body, Vec4::new(r, half, 0.0, 0.0))
}

pub fn params(margin: f32) -> GpuRigidParams {
    GpuRigidParams {
        contact_margin: margin,
        pair_capacity: 1 << 20,
        combine_friction: Combine::Average.code(),
        combine_restitution: Combine::Average.code(),
        ..Default::default()
    }
}

/// Collides shapes 0 and 1 of a two-shape scene, each on its own body.
pub fn collide2(sa: GpuShape, ba: GpuBody, sb: GpuShape, bb: GpuBody, margin: f32) -> GpuManifold {
    let mut sa = sa;
    let mut sb = sb;
    sa.body = 0;
    sb.body = 1;
    collide_shapes(&params(margin), &[sa, sb], &[ba, bb], &[], &[], 0, 1)
}

pub fn near(got: f32, want: f32, tol: f32, what: &str) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, want {want} (tol {tol})"
    );
}

pub fn near3(got: Vec3, want: Vec3, tol: f32, what: &str) {
    assert!(
        (got - want).abs().max_element() <= tol,
        "{what}: got {got:?}, want {want:?} (tol {tol})"
    );
}

pub fn points(m: &GpuManifold) -> Vec<Vec4> {
    m.points[..m.count as usize].to_vec()
}

pub const ID: Vec4 = QUAT_IDENTITY;
