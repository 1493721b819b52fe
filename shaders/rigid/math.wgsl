// Quaternion and 3x3 helpers shared by every rigid stage. CPU twin: src/rigid/math.rs, same
// operation order, so parity tolerances stay tight.

/// Rotates v by the unit quaternion q (x, y, z, w): v + w·t + q.xyz × t with t = 2·(q.xyz × v).
fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

/// Rotates v by the inverse of the unit quaternion q.
fn quat_rotate_inv(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    return quat_rotate(vec4<f32>(-q.xyz, q.w), v);
}

/// Hamilton product a·b (apply b, then a).
fn quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(
        a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz),
        a.w * b.w - dot(a.xyz, b.xyz),
    );
}

/// Unit quaternion, or identity when q has zero length.
fn quat_normalize(q: vec4<f32>) -> vec4<f32> {
    let l2 = dot(q, q);
    if (l2 <= 0.0) {
        return vec4<f32>(0.0, 0.0, 0.0, 1.0);
    }
    return q * inverseSqrt(l2);
}

/// The book's addScaledVector: q += ½·(ω·s, 0)·q, not normalized.
fn quat_add_scaled(q: vec4<f32>, w: vec3<f32>, s: f32) -> vec4<f32> {
    let d = quat_mul(vec4<f32>(w * s, 0.0), q);
    return q + 0.5 * d;
}

/// The rotation matrix of a unit quaternion, as columns.
fn quat_to_mat3(q: vec4<f32>) -> mat3x3<f32> {
    return mat3x3<f32>(
        quat_rotate(q, vec3<f32>(1.0, 0.0, 0.0)),
        quat_rotate(q, vec3<f32>(0.0, 1.0, 0.0)),
        quat_rotate(q, vec3<f32>(0.0, 0.0, 1.0)),
    );
}

/// The inverse of m by cofactors; ok false when the determinant is 0 (cpu: math.rs).
struct Mat3Inverse {
    m: mat3x3<f32>,
    ok: bool,
}

fn mat3_inverse(m: mat3x3<f32>) -> Mat3Inverse {
    let r0 = cross(m[1], m[2]);
    let r1 = cross(m[2], m[0]);
    let r2 = cross(m[0], m[1]);
    let det = dot(m[0], r0);
    if (det == 0.0) {
        return Mat3Inverse(m, false);
    }
    return Mat3Inverse(transpose(mat3x3<f32>(r0, r1, r2)) * (1.0 / det), true);
}

/// A 3x3 matrix from three column vec4s (w ignored).
fn mat3_cols(c: array<vec4<f32>, 3>) -> mat3x3<f32> {
    return mat3x3<f32>(c[0].xyz, c[1].xyz, c[2].xyz);
}
