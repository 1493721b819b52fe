//! Quaternion and 3x3 helpers, the CPU twins of `shaders/rigid/math.wgsl` with the same
//! operation order (glam's own quaternion routines round differently, which would widen parity
//! tolerances). Quaternions are `(x, y, z, w)` in a [`Vec4`].

use glam::{Mat3, Vec3, Vec4, Vec4Swizzles};

/// Identity quaternion.
pub const QUAT_IDENTITY: Vec4 = Vec4::new(0.0, 0.0, 0.0, 1.0);

/// Rotates `v` by the unit quaternion `q`: v + w·t + q.xyz × t with t = 2·(q.xyz × v).
pub fn quat_rotate(q: Vec4, v: Vec3) -> Vec3 {
    let u = q.xyz();
    let t = 2.0 * u.cross(v);
    v + q.w * t + u.cross(t)
}

/// Rotates `v` by the inverse of the unit quaternion `q`.
pub fn quat_rotate_inv(q: Vec4, v: Vec3) -> Vec3 {
    quat_rotate(Vec4::new(-q.x, -q.y, -q.z, q.w), v)
}

/// Hamilton product a·b (apply b, then a).
pub fn quat_mul(a: Vec4, b: Vec4) -> Vec4 {
    let (av, bv) = (a.xyz(), b.xyz());
    (a.w * bv + b.w * av + av.cross(bv)).extend(a.w * b.w - av.dot(bv))
}

/// Unit quaternion, or identity when `q` has zero length.
pub fn quat_normalize(q: Vec4) -> Vec4 {
    let l2 = q.dot(q);
    if l2 <= 0.0 {
        return QUAT_IDENTITY;
    }
    q * (1.0 / l2.sqrt())
}

/// The book's addScaledVector: q += ½·(ω·s, 0)·q, not normalized.
pub fn quat_add_scaled(q: Vec4, w: Vec3, s: f32) -> Vec4 {
    let d = quat_mul((w * s).extend(0.0), q);
    q + 0.5 * d
}

/// The rotation matrix of a unit quaternion.
pub fn quat_to_mat3(q: Vec4) -> Mat3 {
    Mat3::from_cols(
        quat_rotate(q, Vec3::X),
        quat_rotate(q, Vec3::Y),
        quat_rotate(q, Vec3::Z),
    )
}

/// The inverse of `m` by cofactors (rows of m⁻¹ are the crossed column pairs over the
/// determinant), or `None` when the determinant is 0. Inputs are finite (bodies are checked
/// when added), so no other case arises.
pub fn mat3_inverse(m: Mat3) -> Option<Mat3> {
    let (c0, c1, c2) = (m.x_axis, m.y_axis, m.z_axis);
    let r0 = c1.cross(c2);
    let r1 = c2.cross(c0);
    let r2 = c0.cross(c1);
    let det = c0.dot(r0);
    if det == 0.0 {
        return None;
    }
    Some(Mat3::from_cols(r0, r1, r2).transpose() * (1.0 / det))
}

/// A 3x3 matrix from three column `Vec4`s (w ignored).
pub fn mat3_cols(c: &[Vec4; 3]) -> Mat3 {
    Mat3::from_cols(c[0].xyz(), c[1].xyz(), c[2].xyz())
}

/// Three column `Vec4`s (w 0) from a 3x3 matrix.
pub fn cols_of(m: Mat3) -> [Vec4; 3] {
    [
        m.x_axis.extend(0.0),
        m.y_axis.extend(0.0),
        m.z_axis.extend(0.0),
    ]
}

/// A quaternion `Vec4` from glam's `Quat`.
pub fn from_quat(q: glam::Quat) -> Vec4 {
    Vec4::new(q.x, q.y, q.z, q.w)
}
