//! Stage `ccd`: continuous collision for fast small spheres (articles 001-A, time of impact).
//!
//! Runs once per (sub)step right after `rigid_integrate` (same `dt`) and before `shape_aabbs`, so
//! the AABBs, the broad phase and the narrow phase all see where it put the bodies. One thread
//! per body on the GPU (`ccd` in `shaders/rigid/ccd.wgsl`), the same operation order here.
//!
//! Reads `params` (`dt`, `body_count`, `shape_count`, `position_slop`), `shapes` and `bodies`;
//! writes only `bodies[i].pos.xyz` of CCD bodies that hit something. The host dispatches
//! `ceil(body_count / RIGID_WG)` workgroups (`Pass::over("ccd", body_count)`); it needs no other
//! buffer (not the grid, the AABBs nor `large`), so it may run before anything derived from the
//! new positions exists.
//!
//! **Which bodies.** Awake dynamic bodies with `flags` bit 0. Each of their sphere shapes whose
//! displacement this step, `lin_vel·dt`, is longer than its radius is swept; slower spheres
//! cannot pass through anything without overlapping it at the end of some step, so the discrete
//! narrow phase already catches them and they are left bit-for-bit untouched. Non-sphere shapes
//! of a CCD body are not swept. The sweep is translational: the integrator moved the body from
//! `pos − lin_vel·dt` to `pos` in a straight line (articles 001-A, linear interpolation over the
//! step), and the sphere's offset is taken at the end orientation (a sphere does not care about
//! its own rotation).
//!
//! **Against what.** Brute force over every shape (CCD bodies are few, and it keeps the stage
//! independent of the broad phase and of stale AABBs): every live shape of another body that
//! passes the group/mask filter, of every kind. A target body that moved this step (awake and
//! not static) is handled in its own frame: the sphere's start is shifted by the target's
//! displacement, which makes linear target motion exact (target rotation during the step is
//! ignored). Targets that are CCD bodies themselves are skipped: their threads may be moving them
//! back at the same moment, and skipping them keeps the GPU free of races and the result
//! identical to this sequential loop; the discrete narrow phase still handles CCD–CCD contacts.
//!
//! **Time of impact.** A sphere of radius r swept along a segment hits a shape exactly when the
//! segment, as a ray, enters the shape grown by r (the Minkowski sum, articles 001-A): a sphere
//! for a sphere (the closed-form quadratic of 001-A), a capsule for a capsule, a shifted plane
//! for a half-space, a slab for a plane, and a rounded box for a box (three face-grown boxes plus
//! twelve edge capsules, which include the corner spheres). The ray core is the one the ray
//! casts use ([`super::ray`]). Each is exact, not an iteration such as conservative advancement,
//! because a sphere's distance function to these shapes is closed-form. Sweeps that start
//! already overlapping are ignored (that contact exists; the narrow phase has it). The earliest
//! time of impact over the body's spheres and all targets wins; ties go to the lower shape index.
//!
//! **Response.** If the earliest time of impact is before the end of the step, the body is put
//! back where its sphere first reaches `skin = ½·min(position_slop, r)` into the target (the
//! sweep uses the radius `r − skin`): the contact then has a real, positive penetration, so the
//! narrow phase reports it whatever the contact margin, yet the penetration is below the slop, so
//! the position solver does not shove the body. Its velocity is kept: the velocity solver then
//! resolves the impact with the right closing speed. The rest of the step's motion is dropped
//! (the usual price of this "rewind to the time of impact" scheme).
//!
//! **Limitations.** Only spheres are swept, only translation is considered (no angular sweep of
//! offset spheres or of rotating targets), CCD bodies are not swept against each other, and a
//! sphere that starts the step already overlapping a target is not swept against that target,
//! so if the solver left it still moving into a thin target it can pass through on the next
//! step. The impact itself (stopping, bouncing, sliding) is the velocity solver's job later in
//! the same step: this stage only makes sure the contact exists.

use glam::{Vec3, Vec4Swizzles};

use super::math::{quat_rotate, quat_rotate_inv};
use super::ray::{ray_local, shape_pose};
use super::types::{body_kind, shape_kind, GpuBody, GpuRigidParams, GpuShape, NONE};

/// Bit of `GpuBody::flags` that turns on continuous collision for a body.
pub const CCD_FLAG: u32 = 1;

/// True for bodies the `ccd` stage may move: awake, dynamic, with [`CCD_FLAG`]. The same test
/// decides which bodies are skipped as targets, so no thread reads a body another thread writes.
fn is_ccd_body(b: &GpuBody) -> bool {
    b.kind == body_kind::DYNAMIC && b.awake != 0 && (b.flags & CCD_FLAG) != 0
}

/// Two shapes collide when each one's group meets the other's mask.
fn filter_pass(a: &GpuShape, b: &GpuShape) -> bool {
    (a.group & b.mask) != 0 && (b.group & a.mask) != 0
}

/// Time of impact of a sphere of `radius` moving in a straight line from `start` to `end`
/// against one (still) shape of `body`: the fraction of the motion in `[0, 1]` at which they
/// first touch, and the target's unit outward normal at the contact, or `None` if they do not
/// touch. A sphere that already overlaps the shape at `start` reports `(0, −direction)` (see
/// [`super::ray`]); with no motion at all the direction is taken as +x. For a sphere target this
/// is the smaller root of the quadratic of articles 001-A.
pub fn sweep_sphere(
    start: Vec3,
    end: Vec3,
    radius: f32,
    shape: &GpuShape,
    body: &GpuBody,
) -> Option<(f32, Vec3)> {
    let rel = end - start;
    let len2 = rel.dot(rel);
    let (dir, len) = if len2 > 0.0 {
        let len = len2.sqrt();
        (rel * (1.0 / len), len)
    } else {
        (Vec3::X, 0.0)
    };
    let (c, q) = shape_pose(shape, body);
    let o = quat_rotate_inv(q, start - c);
    let d = quat_rotate_inv(q, dir);
    let (t, n) = ray_local(shape.kind, shape.dims, radius, o, d, len)?;
    if t <= 0.0 {
        return Some((0.0, -dir));
    }
    Some((t / len, quat_rotate(q, n)))
}

/// CPU twin of the `ccd` kernel: for every CCD body (see the module docs), finds the earliest
/// time of impact of its fast spheres this step and moves the body back to it, keeping its
/// velocity. `bodies` must be the state right after `rigid_integrate` with the same `params.dt`.
pub fn ccd(params: &GpuRigidParams, bodies: &mut [GpuBody], shapes: &[GpuShape]) {
    let body_count = (params.body_count as usize).min(bodies.len());
    for i in 0..body_count {
        if let Some(pos) = ccd_body(params, bodies, shapes, i) {
            bodies[i].pos = pos.extend(bodies[i].pos.w);
        }
    }
}

/// One thread of the kernel: the body's new position, or `None` to leave it alone.
fn ccd_body(
    params: &GpuRigidParams,
    bodies: &[GpuBody],
    shapes: &[GpuShape],
    i: usize,
) -> Option<Vec3> {
    let b = bodies[i];
    if !is_ccd_body(&b) {
        return None;
    }
    let body_count = (params.body_count as usize).min(bodies.len());
    let shape_count = (params.shape_count as usize).min(shapes.len());
    let disp = b.lin_vel.xyz() * params.dt;
    let p1 = b.pos.xyz();
    let slop = params.position_slop.max(0.0);
    let mut best_frac = 1.0f32;
    let mut best_pos = p1;
    for own in &shapes[..shape_count] {
        if own.kind != shape_kind::SPHERE || own.body != i as u32 {
            continue;
        }
        let r = own.dims.x;
        if disp.dot(disp) <= r * r {
            continue;
        }
        let c1 = p1 + quat_rotate(b.orient, own.offset_pos.xyz());
        let c0 = c1 - disp;
        let skin = 0.5 * slop.min(r);
        let rs = r - skin;
        for target in &shapes[..shape_count] {
            if target.kind == 0 || target.body == i as u32 || !filter_pass(own, target) {
                continue;
            }
            let tb = if target.body == NONE {
                GpuBody {
                    orient: super::math::QUAT_IDENTITY,
                    ..GpuBody::default()
                }
            } else if (target.body as usize) < body_count {
                bodies[target.body as usize]
            } else {
                continue;
            };
            if is_ccd_body(&tb) {
                continue;
            }
            let moved = if target.body != NONE && tb.kind != body_kind::STATIC && tb.awake != 0 {
                tb.lin_vel.xyz() * params.dt
            } else {
                Vec3::ZERO
            };
            let (c, q) = shape_pose(target, &tb);
            let s0 = c0 + moved;
            let rel = c1 - s0;
            let len2 = rel.dot(rel);
            if len2 <= 0.0 {
                continue;
            }
            let len = len2.sqrt();
            let dir = rel * (1.0 / len);
            let o = quat_rotate_inv(q, s0 - c);
            let d = quat_rotate_inv(q, dir);
            let Some((t, _)) = ray_local(target.kind, target.dims, rs, o, d, len) else {
                continue;
            };
            if t <= 0.0 {
                continue;
            }
            let frac = t / len;
            if frac < best_frac {
                best_frac = frac;
                best_pos = p1 + ((s0 + rel * frac) - c1);
            }
        }
    }
    if best_frac < 1.0 {
        Some(best_pos)
    } else {
        None
    }
}
