//! Stage `ccd`: continuous collision for fast bodies (articles 001-A, time of impact): spheres
//! by an exact sweep, boxes, capsules and convex hulls by conservative advancement.
//!
//! Runs once per (sub)step right after `rigid_integrate` (same `dt`) and before `shape_aabbs`, so
//! the AABBs, the broad phase and the narrow phase all see where it put the bodies. One thread
//! per body on the GPU (`ccd` in `shaders/rigid/ccd.wgsl`), the same operation order here.
//!
//! Reads `params` (`dt`, `body_count`, `shape_count`, `position_slop`), `shapes`, `bodies` and
//! the hull store `hulls`; writes only `bodies[i].pos.xyz` and `bodies[i].orient` of CCD bodies
//! that hit something (the orientation only for a turning box, capsule or hull). The host
//! dispatches `ceil(body_count / RIGID_WG)` workgroups (`Pass::over("ccd", body_count)`); it
//! needs no other buffer (not the grid, the AABBs nor `large`), so it may run before anything
//! derived from the new positions exists.
//!
//! **Which bodies.** Awake dynamic bodies with `flags` bit 0. A sphere shape whose
//! displacement this step, `lin_vel·dt`, is longer than its radius is swept; slower spheres
//! cannot pass through anything without overlapping it at the end of some step, so the discrete
//! narrow phase already catches them and they are left bit-for-bit untouched. A box, capsule or
//! hull is swept when its points may move further than the ball it certainly holds
//! ([`inner_radius`]: the smallest half extent, the radius, the hull's inner radius):
//! `|lin_vel·dt| + |θ|·arm`, θ the turn the integrator gave the body and `arm` a bound on the
//! shape's distance from the centre of mass. A sphere's sweep is translational (the integrator
//! moved the body from `pos − lin_vel·dt` to `pos` in a straight line, articles 001-A, and a
//! sphere's offset is taken at the end orientation); the other shapes' sweeps also turn the
//! body back about its centre of mass by the integrator's exact turn
//! ([`super::hull::integrator_turn`]: it adds ½·(ω·h, 0)·q to q and normalizes, a turn of
//! 2·atan(|ω·h|/2)), so the start they sweep from is where the body was.
//!
//! **Against what.** Brute force over every shape (CCD bodies are few, and it keeps the stage
//! independent of the broad phase and of stale AABBs): every live shape of another body that
//! passes the group/mask filter, of every kind. A target body that moved this step (awake and
//! not static) is handled in its own frame: the start is shifted by the target's displacement,
//! which makes linear target motion exact (target rotation during the step is ignored). Targets
//! that are CCD bodies themselves are skipped: their threads may be moving them back at the same
//! moment, and skipping them keeps the GPU free of races and the result identical to this
//! sequential loop; the discrete narrow phase still handles CCD–CCD contacts.
//!
//! **Time of impact.** A sphere of radius r swept along a segment hits a shape exactly when the
//! segment, as a ray, enters the shape grown by r (the Minkowski sum, articles 001-A): a sphere
//! for a sphere (the closed-form quadratic of 001-A), a capsule for a capsule, a shifted plane
//! for a half-space, a slab for a plane, and a rounded box for a box (three face-grown boxes plus
//! twelve edge capsules, which include the corner spheres). The ray core is the one the ray
//! casts use ([`super::ray`]). Sweeps that start already overlapping are ignored (that contact
//! exists; the narrow phase has it). A box, capsule or hull, and a sphere against a hull, is
//! swept by conservative advancement ([`super::hull::sweep_toi`]; GJK's distance to a bounded
//! target, the plane's to a half-space or plane) until it comes within `½·position_slop` of the
//! target (stopping within `max(½·position_slop, CA_MIN_TOLERANCE)` of that), never nearer:
//! against a triangle mesh or heightfield, every shape, spheres included, is advanced against
//! each triangle its swept bounding sphere may reach (`level_toi`; one-sided, as the narrow
//! phase, a two-sided mesh's triangles turned to face the shape; compiled into the GPU kernel only for worlds holding level geometry, WGSL
//! `CCD_LEVEL`),
//! the next step's narrow phase then makes a speculative contact. One already within reach at
//! the start is held there when the motion would carry it further towards the target than that
//! band (a body the solver stopped at one contact while turning its other side into a wall),
//! and left alone otherwise (a body sliding or rolling along a floor). Targets whose bounding
//! sphere stays farther than reach from the swept one are skipped before GJK. The earliest time
//! of impact over the body's shapes and all targets wins; ties go to the lower shape index.
//!
//! **Response.** If the earliest time of impact is before the end of the step, the body is put
//! back there (a sphere where it first reaches `skin = ½·min(position_slop, r)` into the target:
//! the sweep uses the radius `r − skin`, so the contact has a real, positive penetration below
//! the slop; the others at the gap above, position and orientation). Its velocity is kept: the
//! velocity solver then resolves the impact with the right closing speed. The rest of the
//! step's motion is dropped (the usual price of this "rewind to the time of impact" scheme).
//! The world inverse inertia the rest of the substep solves with is the one `rigid_integrate`
//! derived before the rewind.
//!
//! **Limitations.** CCD bodies are not swept against each other, target rotation is ignored, and
//! a shape that starts the step already overlapping a target is not swept against it, so if the
//! solver left it still moving into a thin target it can pass through on the next step. The
//! impact itself (stopping, bouncing, sliding) is the velocity solver's job: this stage only
//! makes sure the contact exists.

use glam::{UVec4, Vec3, Vec4, Vec4Swizzles};

use super::broad::bounding_radius;
use super::hull::{integrator_turn, quat_from_rotation, sweep_toi, ConvexShape, SweepTarget};
use super::math::{quat_mul, quat_normalize, quat_rotate, quat_rotate_inv};
use super::mesh::layout;
use super::mesh::Aabb;
use super::narrow::MESH_MAX_CELLS;
use super::narrow::{convex_of, Pose};
use super::ray::{ray_local, shape_pose};
use super::types::{body_kind, shape_kind, GpuBody, GpuRigidParams, GpuShape, NONE};

/// Bit of `GpuBody::flags` that turns on continuous collision for a body.
pub const CCD_FLAG: u32 = 1;
/// The least stopping tolerance of conservative advancement, metres: the sweep stops within
/// `½·position_slop` (at least this) of its target gap, so it ends even with no slop.
pub const CA_MIN_TOLERANCE: f32 = 1e-4;
/// True for bodies the `ccd` stage may move: awake, dynamic, with [`CCD_FLAG`]. The same test
/// decides which bodies are skipped as targets, so no thread reads a body another thread writes.
fn is_ccd_body(b: &GpuBody) -> bool {
    b.kind == body_kind::DYNAMIC && b.awake != 0 && (b.flags & CCD_FLAG) != 0
}

/// Two shapes collide when each one's group meets the other's mask.
fn filter_pass(a: &GpuShape, b: &GpuShape) -> bool {
    // A sensor stops no sweep.
    (a.group & b.mask) != 0 && (b.group & a.mask) != 0 && a.material.w == 0.0 && b.material.w == 0.0
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
/// time of impact of its fast shapes this step and moves the body back to it, keeping its
/// velocity. `bodies` must be the state right after `rigid_integrate` with the same `params.dt`;
/// `hulls` is the hull store hull shapes name (empty without hulls).
pub fn ccd(params: &GpuRigidParams, bodies: &mut [GpuBody], shapes: &[GpuShape], hulls: &[UVec4]) {
    let body_count = (params.body_count as usize).min(bodies.len());
    for i in 0..body_count {
        if let Some((pos, orient)) = ccd_body(params, bodies, shapes, hulls, i) {
            bodies[i].pos = pos.extend(bodies[i].pos.w);
            bodies[i].orient = orient;
        }
    }
}

/// The body a target shape moves with this step: a world-owned shape's is a body at the origin;
/// `None` for a body index out of range or a CCD body (see the module docs).
fn target_body(params: &GpuRigidParams, bodies: &[GpuBody], target: &GpuShape) -> Option<GpuBody> {
    let body_count = (params.body_count as usize).min(bodies.len());
    let tb = if target.body == NONE {
        GpuBody {
            orient: super::math::QUAT_IDENTITY,
            ..GpuBody::default()
        }
    } else if (target.body as usize) < body_count {
        bodies[target.body as usize]
    } else {
        return None;
    };
    if is_ccd_body(&tb) {
        return None;
    }
    Some(tb)
}

/// The radius of the ball a shape certainly holds about its origin: a sphere's or capsule's
/// radius, a box's smallest half extent, a hull's inner radius (`dims.z`); 0 for other kinds.
/// A shape whose points move less than this in a step cannot pass through anything without
/// overlapping it at the end of some step (the sphere rule of the module docs).
pub fn inner_radius(s: &GpuShape) -> f32 {
    match s.kind {
        shape_kind::SPHERE | shape_kind::CAPSULE => s.dims.x,
        shape_kind::BOX => s.dims.x.min(s.dims.y).min(s.dims.z),
        shape_kind::HULL => s.dims.z,
        _ => 0.0,
    }
}

/// One thread of the kernel: the body's new position and orientation, or `None` to leave it
/// alone. Spheres are swept as before (translation, exact); boxes, capsules and hulls, and
/// spheres against hulls, by conservative advancement with the body's turn.
fn ccd_body(
    params: &GpuRigidParams,
    bodies: &[GpuBody],
    shapes: &[GpuShape],
    hulls: &[UVec4],
    i: usize,
) -> Option<(Vec3, Vec4)> {
    let b = bodies[i];
    if !is_ccd_body(&b) {
        return None;
    }
    let shape_count = (params.shape_count as usize).min(shapes.len());
    let disp = b.lin_vel.xyz() * params.dt;
    let p1 = b.pos.xyz();
    let slop = params.position_slop.max(0.0);
    let mut best_frac = 1.0f32;
    let mut best_pos = p1;
    let mut best_turn = Vec3::ZERO;
    for own in &shapes[..shape_count] {
        if own.body != i as u32 || !swept_kind(own.kind) {
            continue;
        }
        let round = own.kind == shape_kind::SPHERE;
        // A sphere's own turn does not matter (its offset is taken at the end orientation).
        let theta = if round {
            Vec3::ZERO
        } else {
            integrator_turn(b.ang_vel.xyz() * params.dt)
        };
        let c1 = p1 + quat_rotate(b.orient, own.offset_pos.xyz());
        let arm = (c1 - p1).length() + bounding_radius(own);
        let r_in = inner_radius(own);
        let reach = disp.dot(disp).sqrt() + theta.dot(theta).sqrt() * arm;
        if (round && disp.dot(disp) <= r_in * r_in) || (!round && reach <= r_in) {
            continue;
        }
        let c0 = c1 - disp;
        let r = own.dims.x;
        let skin = 0.5 * slop.min(r);
        let rs = r - skin;
        let own_rot = quat_mul(b.orient, own.offset_rot);
        for target in &shapes[..shape_count] {
            if target.kind == 0 || target.body == i as u32 || !filter_pass(own, target) {
                continue;
            }
            let Some(tb) = target_body(params, bodies, target) else {
                continue;
            };
            let moved = if target.body != NONE && tb.kind != body_kind::STATIC && tb.awake != 0 {
                tb.lin_vel.xyz() * params.dt
            } else {
                Vec3::ZERO
            };
            let (c, q) = shape_pose(target, &tb);
            let s0 = c0 + moved;
            let rel = c1 - s0;
            let len2 = rel.dot(rel);
            if len2 <= 0.0 && theta == Vec3::ZERO {
                continue;
            }
            let frac = if round && !convex_target(target.kind) {
                // The exact sweep of a sphere.
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
                t / len
            } else {
                let end = Pose {
                    pos: c1,
                    rot: own_rot,
                };
                let a = convex_of(hulls, own, end);
                let sweep = Sweep3 {
                    centre: p1,
                    disp: rel,
                    theta,
                    arm,
                };
                match convex_toi(
                    params,
                    hulls,
                    own,
                    &a,
                    &sweep,
                    target,
                    Pose { pos: c, rot: q },
                ) {
                    Some(t) => t,
                    None => continue,
                }
            };
            if frac < best_frac {
                best_frac = frac;
                best_pos = p1 + ((s0 + rel * frac) - c1);
                best_turn = theta * -(1.0 - frac);
            }
        }
    }
    if best_frac < 1.0 {
        let orient = if best_turn == Vec3::ZERO {
            b.orient
        } else {
            quat_normalize(quat_mul(quat_from_rotation(best_turn), b.orient))
        };
        Some((best_pos, orient))
    } else {
        None
    }
}

/// Targets a sphere is swept against by conservative advancement rather than its exact sweep:
/// hulls and level geometry.
fn convex_target(kind: u32) -> bool {
    matches!(
        kind,
        shape_kind::HULL | shape_kind::MESH | shape_kind::HEIGHTFIELD
    )
}

/// The kinds the stage sweeps.
fn swept_kind(kind: u32) -> bool {
    matches!(
        kind,
        shape_kind::SPHERE | shape_kind::BOX | shape_kind::CAPSULE | shape_kind::HULL
    )
}

/// A body's motion over the step as [`sweep_toi`] takes it: the centre of mass at the end, the
/// displacement (relative to the target), the turn, and the bound on its shape's distance from
/// the centre.
struct Sweep3 {
    centre: Vec3,
    disp: Vec3,
    theta: Vec3,
    arm: f32,
}

impl Sweep3 {
    /// [`sweep_toi`] of `a` along this sweep against `t`.
    fn toi(
        &self,
        hulls: &[UVec4],
        a: &ConvexShape,
        t: &SweepTarget,
        gap: f32,
        tol: f32,
    ) -> Option<f32> {
        sweep_toi(
            hulls,
            a,
            self.centre,
            self.disp,
            self.theta,
            self.arm,
            t,
            gap,
            tol,
        )
    }
}

/// Conservative advancement of the convex shape `a` (of shape `own`, at its end pose) swept
/// back along `sweep` against `target` at pose `tp`: the fraction at which the gap first falls
/// to `½·position_slop` (within `max(½·position_slop, CA_MIN_TOLERANCE)`), or `None` (see
/// [`sweep_toi`]). A half-space or plane is swept against as its plane (a plane on the side of
/// the shape's start); a bounded target whose bounding sphere stays farther from the swept
/// bounding sphere than the gap is skipped before GJK.
#[allow(clippy::too_many_arguments)]
fn convex_toi(
    params: &GpuRigidParams,
    hulls: &[UVec4],
    own: &GpuShape,
    a: &ConvexShape,
    sweep: &Sweep3,
    target: &GpuShape,
    tp: Pose,
) -> Option<f32> {
    let gap = 0.5 * params.position_slop.max(0.0);
    let tol = gap.max(CA_MIN_TOLERANCE);
    if target.kind == shape_kind::MESH || target.kind == shape_kind::HEIGHTFIELD {
        return level_toi(hulls, a, sweep, target, tp, gap, tol);
    }
    let start = a.frame.pos - sweep.disp;
    let t = if target.kind == shape_kind::HALF_SPACE || target.kind == shape_kind::PLANE {
        let mut n = quat_rotate(tp.rot, target.dims.xyz());
        let mut w = target.dims.w + n.dot(tp.pos);
        if target.kind == shape_kind::PLANE && n.dot(start) - w < 0.0 {
            n = -n;
            w = -w;
        }
        SweepTarget::Plane(n, w)
    } else {
        let reach = bounding_radius(own)
            + bounding_radius(target)
            + sweep.theta.dot(sweep.theta).sqrt() * sweep.arm
            + gap
            + tol;
        let near = super::narrow::closest_on_segment(tp.pos, start, a.frame.pos);
        let off = tp.pos - near;
        if off.dot(off) > reach * reach {
            return None;
        }
        SweepTarget::Convex(convex_of(hulls, target, tp))
    };
    sweep.toi(hulls, a, &t, gap, tol)
}

/// Conservative advancement of `a` (swept back along `sweep`) against the level geometry
/// `target` at `tp`: the earliest fraction over the triangles its swept bounding sphere may
/// reach, each triangle a flat core for GJK ([`ConvexShape::triangle`]). Triangles are
/// one-sided, as in the narrow phase: one whose plane the shape's centre starts behind is
/// skipped (a two-sided mesh's triangles come turned to face it, `layout::mesh_facing`). The triangles are found as the narrow phase finds them (the BVH walk, the
/// heightfield's cells up to [`MESH_MAX_CELLS`]) in the box of the sweep's start and end
/// spheres, of radius the shape's bound, its turn's reach, the gap and the tolerance.
fn level_toi(
    hulls: &[UVec4],
    a: &ConvexShape,
    sweep: &Sweep3,
    target: &GpuShape,
    tp: Pose,
    gap: f32,
    tol: f32,
) -> Option<f32> {
    let start = a.frame.pos - sweep.disp;
    let reach = a.bound() + sweep.theta.dot(sweep.theta).sqrt() * sweep.arm + gap + tol;
    let s = quat_rotate_inv(tp.rot, start - tp.pos);
    let e = quat_rotate_inv(tp.rot, a.frame.pos - tp.pos);
    let query = Aabb {
        min: s.min(e) - Vec3::splat(reach),
        max: s.max(e) + Vec3::splat(reach),
    };
    let mut best = 2.0f32;
    let mut each = |tri: [Vec3; 3]| {
        let b = Aabb::EMPTY.with(tri[0]).with(tri[1]).with(tri[2]);
        if !b.overlaps(&query) {
            return;
        }
        let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
        if n.dot(s - tri[0]) < 0.0 {
            return;
        }
        let t = SweepTarget::Convex(ConvexShape::triangle_at(tp.pos, tp.rot, tri));
        if let Some(f) = sweep.toi(hulls, a, &t, gap, tol) {
            if f < best {
                best = f;
            }
        }
    };
    let block = target.dims.x as u32;
    layout::visit_triangles(
        hulls,
        target.kind,
        block,
        &query,
        MESH_MAX_CELLS,
        s,
        |tri, _, _| each(tri),
    );
    (best <= 1.0).then_some(best)
}
