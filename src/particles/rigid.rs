//! Particles against a rigid world's shapes: the CPU twin of stage `rigid_contacts`
//! (`shaders/particles/rigid.wgsl`), same names, same operation order, on the rigid world's
//! host tables. See [`crate::particles::ParticleWorld::step_with_rigid`] for what it does and
//! what it costs.

use super::cpu::CpuState;
use super::types::{GpuParams, KIND_CURVES_SHIFT, MAX_EMITTERS};
use crate::colliders::GpuCollider;
use crate::colliders::{collider_contact, collider_in_reach, collider_kind, resolve_contact};
use crate::rigid::types::{shape_kind, GpuBody, GpuShape};
use crate::rounding as fm;
use glam::{Vec3, Vec4, Vec4Swizzles};

/// Most shape slots of a rigid world a particle world collides with by brute force
/// ([`super::RigidLookup::All`]): every particle tests every slot's bounding sphere
/// (O(particles × shapes) per step; on the GPU from tiles of 64 in workgroup memory), which is
/// only affordable for a few hundred shapes. The grid ([`super::RigidLookup::Cells`], the
/// default) takes up to [`super::rigid_cells::MAX_RIGID_CELL_SHAPES`].
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

/// The collision group and mask of particles carrying emitter tag `tag` (0: no emitter, else
/// the emitter's slot plus one; twin of `particle_groups`): [`GpuParams::rigid_groups`]' pair,
/// tags past [`MAX_EMITTERS`] read as the last.
pub fn particle_groups(params: &GpuParams, tag: u32) -> (u32, u32) {
    let e = tag.min(MAX_EMITTERS) as usize;
    let q = params.rigid_groups[e / 2];
    (q[2 * (e % 2)], q[2 * (e % 2) + 1])
}

/// Whether a particle of collision `(group, mask)` and shape `s` may collide (twin of
/// `rigid_groups_meet`): as two rigid shapes, `(group & s.mask) != 0 && (s.group & mask) != 0`.
pub fn rigid_groups_meet(s: &GpuShape, (group, mask): (u32, u32)) -> bool {
    (group & s.mask) != 0 && (s.group & mask) != 0
}

/// One live, movable particle through stage `rigid_contacts` (either lookup): its state as the
/// contacts move it, and what the contact rules read of it.
pub(crate) struct Spark {
    pub p: Vec3,
    pub v: Vec3,
    r: f32,
    inv_mass: f32,
    acc: Vec3,
    tag: u32,
    groups: (u32, u32),
    /// The resting-contact fix's acceleration, at the integrated state (computed at the first
    /// shape in reach, before any contact moved the particle).
    acc_total: Option<Vec3>,
    pub touched: bool,
}

impl Spark {
    /// Particle `i` of `s`, or `None` for one that does not move (inverse mass 0).
    pub fn of(s: &CpuState, params: &GpuParams, i: usize) -> Option<Spark> {
        let av = s.acc[i];
        if av.w <= 0.0 || av.w.is_nan() {
            return None;
        }
        let tag = s.life[i].kind >> KIND_CURVES_SHIFT;
        Some(Spark {
            p: s.pos[i].xyz(),
            v: s.vel[i].xyz(),
            r: s.size[i],
            inv_mass: av.w,
            acc: av.xyz(),
            tag,
            groups: particle_groups(params, tag),
            acc_total: None,
            touched: false,
        })
    }

    /// Writes the particle back when a contact moved it.
    pub fn store(&self, s: &mut CpuState, i: usize) {
        if self.touched {
            s.pos[i] = self.p.extend(s.pos[i].w);
            s.vel[i] = self.v.extend(s.vel[i].w);
        }
    }

    /// Shape `shape` of bounding sphere `bound` against the particle (twin of `rigid_touch`):
    /// skipped out of reach of the bound or of the groups, else its collider resolved in the
    /// frame of its body's surface. Returns whether it touched.
    pub fn touch(
        &mut self,
        params: &GpuParams,
        shape: &GpuShape,
        bound: Vec4,
        bodies: &[GpuBody],
    ) -> bool {
        let (r, slop) = (self.r, params.contact_slop);
        if !rigid_bound_near(bound, self.p, r, slop) || !rigid_groups_meet(shape, self.groups) {
            return false;
        }
        let acc_total = *self.acc_total.get_or_insert_with(|| {
            self.acc
                + super::cpu::field_acceleration(params, self.p, self.v, self.inv_mass, self.tag)
        });
        let c = rigid_shape_collider(shape, bodies, self.p);
        if c.kind == 0 || !collider_in_reach(&c, self.p, r, slop) {
            return false;
        }
        let contact = collider_contact(&c, self.p, r);
        if contact.w <= -slop {
            return false;
        }
        let b = &bodies[shape.body as usize];
        let vs = b.lin_vel.xyz() + fm::cross(b.ang_vel.xyz(), self.p - b.pos.xyz());
        let moving = vs != Vec3::ZERO;
        let mut vr = if moving { self.v - vs } else { self.v };
        resolve_contact(&mut self.p, &mut vr, &c, contact, acc_total, params.dt);
        self.v = if moving { vr + vs } else { vr };
        self.touched = true;
        true
    }
}

/// Stage `rigid_contacts`: every live particle against the first `params.rigid_shape_count`
/// shape slots of `shapes`, on the bodies of `bodies` (twin of `rigid_contacts` in rigid.wgsl),
/// every slot in order: the brute force [`super::rigid_cells::rigid_contacts_cells`] equals.
pub fn rigid_contacts(
    s: &mut CpuState,
    params: &GpuParams,
    bodies: &[GpuBody],
    shapes: &[GpuShape],
) {
    let shapes = &shapes[..(params.rigid_shape_count as usize).min(shapes.len())];
    // The GPU's tiles of bounding spheres, all at once (they do not depend on the particle).
    let bounds: Vec<Vec4> = shapes
        .iter()
        .map(|shape| rigid_shape_bound(shape, bodies))
        .collect();
    for i in 0..s.counters.live as usize {
        let Some(mut spark) = Spark::of(s, params, i) else {
            continue;
        };
        for (shape, &bound) in shapes.iter().zip(&bounds) {
            spark.touch(params, shape, bound, bodies);
        }
        spark.store(s, i);
    }
}
