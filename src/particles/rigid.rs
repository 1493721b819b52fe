//! Particles against a rigid world's shapes: the CPU twin of stage `rigid_contacts`
//! (`shaders/particles/rigid.wgsl`), same names, same operation order, on the rigid world's
//! host tables. See [`crate::particles::ParticleWorld::step_with_rigid`] for what it does and
//! what it costs.

use super::cpu::CpuState;
use super::types::{GpuParams, KIND_CURVES_SHIFT};
use crate::colliders::GpuCollider;
use crate::colliders::{collider_contact, collider_in_reach, collider_kind, resolve_contact};
use crate::rigid::types::{shape_kind, GpuBody, GpuShape};
use crate::rounding as fm;
use glam::{Vec3, Vec4, Vec4Swizzles};

/// Most shape slots of a rigid world a particle world collides with: every particle tests
/// every slot's bounding sphere (O(particles × shapes) per step; on the GPU from tiles of 64
/// in workgroup memory), which is only affordable for a few hundred shapes.
pub const MAX_RIGID_SHAPES: u32 = 1024;

fn quat_rotate(q: Vec4, v: Vec3) -> Vec3 {
    let t = 2.0 * fm::cross(q.xyz(), v);
    fm::madd3(t, q.w, v) + fm::cross(q.xyz(), t)
}

fn rigid_quat_mul(a: Vec4, b: Vec4) -> Vec4 {
    let v = fm::madd3(a.xyz(), b.w, b.xyz() * a.w) + fm::cross(a.xyz(), b.xyz());
    v.extend(a.w * b.w - fm::dot(a.xyz(), b.xyz()))
}

/// Shape `s` as a static collider of its world pose, for a particle at `p` (twin of
/// `rigid_shape_collider`): kind 0 for a shape that collides with nothing here (removed, a
/// hull, or of a body out of range). A sphere is a sphere collider, a box a box, a capsule the
/// sphere about the point of its segment nearest `p`, a half-space a half-space and a plane the
/// half-space of the side `p` is on.
pub fn rigid_shape_collider(s: &GpuShape, bodies: &[GpuBody], p: Vec3) -> GpuCollider {
    let mut c = GpuCollider {
        restitution: s.material.y,
        friction: s.material.x,
        q: Vec4::W,
        ..Default::default()
    };
    let Some(b) = bodies.get(s.body as usize) else {
        return c;
    };
    // A sensor (material w) pushes nothing, particles included.
    if s.kind == 0 || s.kind > shape_kind::PLANE || s.material.w != 0.0 {
        return c;
    }
    let mut centre = b.pos.xyz();
    if s.offset_pos.xyz() != Vec3::ZERO {
        centre += quat_rotate(b.orient, s.offset_pos.xyz());
    }
    let mut q = b.orient;
    if s.offset_rot != Vec4::W {
        q = rigid_quat_mul(b.orient, s.offset_rot);
    }
    match s.kind {
        shape_kind::SPHERE => {
            c.kind = collider_kind::SPHERE;
            c.a = centre.extend(s.dims.x);
        }
        shape_kind::BOX => {
            c.kind = collider_kind::BOX;
            c.a = centre.extend(0.0);
            c.b = s.dims.xyz().extend(0.0);
            c.q = q;
        }
        shape_kind::CAPSULE => {
            let axis = quat_rotate(q, Vec3::new(0.0, s.dims.y, 0.0));
            let len2 = fm::dot(axis, axis);
            let mut t = 0.0;
            if len2 > 0.0 {
                t = fm::div(fm::dot(p - centre, axis), len2).clamp(-1.0, 1.0);
            }
            c.kind = collider_kind::SPHERE;
            c.a = fm::madd3(axis, t, centre).extend(s.dims.x);
        }
        _ => {
            let n = quat_rotate(q, s.dims.xyz());
            let mut a = n.extend(s.dims.w + fm::dot(n, centre));
            if s.kind == shape_kind::PLANE && fm::dot(n, p) - a.w < 0.0 {
                a = -a;
            }
            c.kind = collider_kind::HALF_SPACE;
            c.a = a;
        }
    }
    c
}

/// Shape `s`'s bounding sphere (twin of `rigid_shape_bound`): its centre (xyz) and radius (w:
/// the sphere's radius; the box's half extents' length; the capsule's radius + half segment),
/// or w = −1 for a shape that collides with nothing here, −2 for a half-space or plane (always
/// in reach).
pub fn rigid_shape_bound(s: &GpuShape, bodies: &[GpuBody]) -> Vec4 {
    let Some(b) = bodies.get(s.body as usize) else {
        return Vec4::new(0.0, 0.0, 0.0, -1.0);
    };
    if s.kind == 0 || s.kind > shape_kind::PLANE || s.material.w != 0.0 {
        return Vec4::new(0.0, 0.0, 0.0, -1.0);
    }
    if s.kind >= shape_kind::HALF_SPACE {
        return Vec4::new(0.0, 0.0, 0.0, -2.0);
    }
    let mut centre = b.pos.xyz();
    if s.offset_pos.xyz() != Vec3::ZERO {
        centre += quat_rotate(b.orient, s.offset_pos.xyz());
    }
    let bound = match s.kind {
        shape_kind::BOX => fm::length(s.dims.xyz()),
        shape_kind::CAPSULE => s.dims.x + s.dims.y,
        _ => s.dims.x,
    };
    centre.extend(bound)
}

/// Whether a shape of bounding sphere `b` ([`rigid_shape_bound`]) may touch a sphere of radius
/// `r` at `p` within `slop` (twin of `rigid_bound_near`): true for every shape
/// [`collider_in_reach`] accepts, so skipping the others leaves the same bits. Within the
/// bounding sphere + r + slop, with [`crate::colliders::REACH_SLACK`] on the squared distance:
/// for a sphere or a box `collider_in_reach`'s own test; a capsule's collider, the sphere about
/// the point of the segment nearest `p`, is within the segment's half length of the centre.
pub fn rigid_bound_near(b: Vec4, p: Vec3, r: f32, slop: f32) -> bool {
    if b.w == -2.0 {
        return true;
    }
    let d = p - b.xyz();
    let ext = b.w + r + slop;
    b.w >= 0.0 && fm::dot(d, d) <= ext * ext * crate::colliders::REACH_SLACK
}

/// Stage `rigid_contacts`: every live particle against the first `params.rigid_shape_count`
/// shape slots of `shapes`, on the bodies of `bodies` (twin of `rigid_contacts` in rigid.wgsl).
pub fn rigid_contacts(
    s: &mut CpuState,
    params: &GpuParams,
    bodies: &[GpuBody],
    shapes: &[GpuShape],
) {
    let dt = params.dt;
    let slop = params.contact_slop;
    let shapes = &shapes[..(params.rigid_shape_count as usize).min(shapes.len())];
    // The GPU's tiles of bounding spheres, all at once (they do not depend on the particle).
    let bounds: Vec<Vec4> = shapes
        .iter()
        .map(|shape| rigid_shape_bound(shape, bodies))
        .collect();
    for i in 0..s.counters.live as usize {
        let av = s.acc[i];
        let inv_mass = av.w;
        if inv_mass <= 0.0 {
            continue;
        }
        let r = s.size[i];
        let mut p = s.pos[i].xyz();
        let mut v = s.vel[i].xyz();
        let near = |c: &GpuCollider, p: Vec3| c.kind != 0 && collider_in_reach(c, p, r, slop);
        if !bounds.iter().any(|&b| rigid_bound_near(b, p, r, slop)) {
            continue;
        }
        let eslot = s.life[i].kind >> KIND_CURVES_SHIFT;
        let acc_total = av.xyz() + super::cpu::field_acceleration(params, p, v, inv_mass, eslot);
        let mut touched = false;
        for (shape, &bound) in shapes.iter().zip(&bounds) {
            if !rigid_bound_near(bound, p, r, slop) {
                continue;
            }
            let c = rigid_shape_collider(shape, bodies, p);
            if !near(&c, p) {
                continue;
            }
            let contact = collider_contact(&c, p, r);
            if contact.w > -slop {
                let b = &bodies[shape.body as usize];
                let vs = b.lin_vel.xyz() + fm::cross(b.ang_vel.xyz(), p - b.pos.xyz());
                let moving = vs != Vec3::ZERO;
                let mut vr = if moving { v - vs } else { v };
                resolve_contact(&mut p, &mut vr, &c, contact, acc_total, dt);
                v = if moving { vr + vs } else { vr };
                touched = true;
            }
        }
        if touched {
            s.pos[i] = p.extend(s.pos[i].w);
            s.vel[i] = v.extend(s.vel[i].w);
        }
    }
}
