//! The lane rows of the velocity stages (WGSL `solve_contact_bodies`, `solve_rolling_bodies`
//! and their helpers in `shaders/rigid/solver/solver.wgsl`), four contacts at a time.

use super::super::lanes::{Ar, W3};
use super::{Group, Point, Roll, WBody};
use crate::rigid::types::*;
use glam::{BVec4A, Vec4};

/// `math::quat_rotate` per lane: v turned by the unit quaternion (u, w).
pub(super) fn rotate(ar: impl Ar, u: W3, w: Vec4, v: W3) -> W3 {
    let t = ar.cross(u, v).scale(Vec4::splat(2.0));
    ar.madd3(t, w, v).add(ar.cross(u, t))
}

/// [`super::arm`] per lane: the anchor turned by (u, w), then `round` back along n in the lanes
/// where it is not 0.
pub(super) fn arm(ar: impl Ar, u: W3, w: Vec4, anchor: W3, n: W3, round: Vec4) -> W3 {
    let r = rotate(ar, u, w, anchor);
    W3::select(round.cmpne(Vec4::ZERO), ar.madd3(n, -round, r), r)
}

/// WGSL `solve_clamp_disc` per lane: the pair (x, y) scaled towards 0 onto the disc of radius
/// `limit` where it lies outside.
pub(super) fn clamp_disc(ar: impl Ar, x: Vec4, y: Vec4, limit: Vec4) -> (Vec4, Vec4) {
    let zero = Vec4::ZERO;
    let planar = ar.sqrt(ar.madd(y, y, x * x));
    let over = planar.cmpgt(limit);
    let shrink = Vec4::select(planar.cmpgt(zero), ar.div(limit, planar), zero);
    (
        Vec4::select(over, x * shrink, x),
        Vec4::select(over, y * shrink, y),
    )
}

/// Applies angular impulse `g` (world) in the `live` lanes: +g on a, −g on b.
pub(super) fn apply_angular(ar: impl Ar, a: &mut WBody, b: &mut WBody, g: W3, live: BVec4A) {
    let a_ang = a.ang.add(ar.mat(&a.inv_inertia, g));
    let b_ang = b.ang.sub(ar.mat(&b.inv_inertia, g));
    a.ang = W3::select(live, a_ang, a.ang);
    b.ang = W3::select(live, b_ang, b.ang);
}

/// The rolling resistance of a group's contacts (WGSL `solve_rolling_bodies`) in the `live`
/// lanes, after their points: an angular impulse against the relative rolling about each
/// tangent with its own effective mass, accumulated and clamped to the disc
/// `rolling · total_normal`.
pub(super) fn rolling_row(
    ar: impl Ar,
    g: &Group,
    a: &mut WBody,
    b: &mut WBody,
    roll: &mut Roll,
    total_normal: Vec4,
    live: BVec4A,
) {
    let zero = Vec4::ZERO;
    let k1 =
        ar.dot(g.t1, ar.mat(&a.inv_inertia, g.t1)) + ar.dot(g.t1, ar.mat(&b.inv_inertia, g.t1));
    let k2 =
        ar.dot(g.t2, ar.mat(&a.inv_inertia, g.t2)) + ar.dot(g.t2, ar.mat(&b.inv_inertia, g.t2));
    let dw = a.ang.sub(b.ang);
    let old = *roll;
    let x = Vec4::select(k1.cmpgt(zero), old.x - ar.div(ar.dot(dw, g.t1), k1), old.x);
    let y = Vec4::select(k2.cmpgt(zero), old.y - ar.div(ar.dot(dw, g.t2), k2), old.y);
    let (x, y) = clamp_disc(ar, x, y, g.rolling * total_normal);
    let imp = ar.madd3(g.t2, y - old.y, g.t1.scale(x - old.x));
    apply_angular(ar, a, b, imp, live);
    roll.x = Vec4::select(live, x, old.x);
    roll.y = Vec4::select(live, y, old.y);
}

pub(super) fn relative_velocity(ar: impl Ar, a: &WBody, b: &WBody, ra: W3, rb: W3) -> W3 {
    a.lin
        .add(ar.cross(a.ang, ra))
        .sub(b.lin.add(ar.cross(b.ang, rb)))
}

/// Applies impulse `g` (world) at arms ra, rb in the `live` lanes: +g on a, −g on b (the
/// normal pushes a out).
pub(super) fn apply_impulse(
    ar: impl Ar,
    a: &mut WBody,
    b: &mut WBody,
    g: W3,
    ra: W3,
    rb: W3,
    live: BVec4A,
) {
    let a_lin = ar.madd3(g, a.inv_mass, a.lin);
    let a_ang = a.ang.add(ar.mat(&a.inv_inertia, ar.cross(ra, g)));
    let b_lin = ar.madd3(g, -b.inv_mass, b.lin);
    let b_ang = b.ang.sub(ar.mat(&b.inv_inertia, ar.cross(rb, g)));
    a.lin = W3::select(live, a_lin, a.lin);
    a.ang = W3::select(live, a_ang, a.ang);
    b.lin = W3::select(live, b_lin, b.lin);
    b.ang = W3::select(live, b_ang, b.ang);
}

/// One point of `solve_contact` (`use_bias`) or `solve_relax`, in every live lane.
pub(super) fn contact_point(
    ar: impl Ar,
    params: &GpuRigidParams,
    use_bias: bool,
    g: &Group,
    a: &mut WBody,
    b: &mut WBody,
    p: &mut Point,
) {
    let zero = Vec4::ZERO;
    let one = Vec4::ONE;
    let kd = p.kd;
    let s = Vec4::splat(params.position_slop) - p.pen;
    let apart = s.cmpgt(zero);
    let (soft_bias, soft_mass, soft_impulse) = if use_bias {
        ((g.soft[0] * s).max(-g.soft[3]), g.soft[1], g.soft[2])
    } else {
        (zero, one, zero)
    };
    let bias = Vec4::select(apart, s * params.inv_dt, soft_bias);
    let mass_scale = Vec4::select(apart, one, soft_mass);
    let impulse_scale = Vec4::select(apart, zero, soft_impulse);
    let old = p.impulse;
    let vn = ar.dot(relative_velocity(ar, a, b, p.ra, p.rb), g.n);
    // old.x − mass_scale·(vn + bias)/K − impulse_scale·old.x, left to right.
    let pushed = old.x - ar.div(mass_scale * (vn + bias), kd.x);
    let solved = ar.madd(-impulse_scale, old.x, pushed).max(zero);
    let normal = Vec4::select(kd.x.cmpgt(zero), solved, old.x);
    apply_impulse(ar, a, b, g.n.scale(normal - old.x), p.ra, p.rb, p.live);
    let dv = relative_velocity(ar, a, b, p.ra, p.rb);
    let tan_y = Vec4::select(
        kd.y.cmpgt(zero),
        old.y - ar.div(ar.dot(dv, g.t1), kd.y),
        old.y,
    );
    let tan_z = Vec4::select(
        kd.z.cmpgt(zero),
        old.z - ar.div(ar.dot(dv, g.t2), kd.z),
        old.z,
    );
    let (tan_y, tan_z) = clamp_disc(ar, tan_y, tan_z, g.mu * normal);
    let imp = ar.madd3(g.t2, tan_z - old.z, g.t1.scale(tan_y - old.y));
    apply_impulse(ar, a, b, imp, p.ra, p.rb, p.live);
    let new = W3 {
        x: normal,
        y: tan_y,
        z: tan_z,
    };
    p.impulse = W3::select(p.live, new, old);
    p.kd_w = Vec4::select(p.live, p.kd_w.max(normal), p.kd_w);
}
