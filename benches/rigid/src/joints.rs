//! The jointed scenes: the joint grid and the ragdoll rain (`wgphys::scenes::joints`), built
//! straight on the backend measured ([`build_jointed`]), their joints mirrored into rapier as
//! impulse joints ([`mirror_joints`]), the rain's ragdolls dropped again in rapier as
//! `RagdollRain::recycle` drops them in wgphys ([`recycle_rapier`]), and the joints' worst gap
//! in either engine ([`worst_gap`]).
//!
//! What differs in rapier: its ball joint limits each of its three angles on its own (twist
//! about x, swing about y and about z, each within the cone's half angle), so wgphys' cone
//! becomes a four-sided one that reaches √2 times as far along its diagonals; its joints are
//! as stiff as its solver makes them (natural frequency 10⁶ Hz), wgphys' at most half the
//! substep rate (120 Hz at 4 substeps); its bodies sleep by islands, wgphys' one by one.

use glam::{Quat, Vec3};
use rapier3d::prelude as rp;
use wgphys::rigid::types::{joint_flag, joint_kind, GpuJoint};
use wgphys::rigid::{RigidConfig, RigidWorld};
use wgphys::scenes::joints::{joint_grid, ragdoll_rain, RagdollRain, RAIN_THROW};
use wgphys::scenes::rigid as scenes;
use wgphys::Backend;

use crate::args::Tuning;
use crate::run_wgphys::{tuned, Built, PAIRS_PER_BODY};
use crate::{Res, Scene};

/// The rain drops its ragdolls again every this many steps (between timed steps; a read back
/// each time in wgphys).
pub(crate) const RECYCLE_EVERY: usize = 30;

/// The side of the joint grid for `size` bodies: n with n² nearest `size`.
pub(crate) fn grid_side(size: u32) -> u32 {
    (f64::from(size).sqrt().round() as u32).max(2)
}

/// Ragdolls of the rain for `size` bodies (12 bones each).
pub(crate) fn rain_count(size: u32) -> u32 {
    (size / wgphys::scenes::joints::RAGDOLL_BONES).max(1)
}

/// A joint as both engines see it: the two body slots and the anchors in each body's frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Link {
    pub(crate) a: usize,
    pub(crate) b: usize,
    pub(crate) anchor_a: Vec3,
    pub(crate) anchor_b: Vec3,
}

/// Builds the joint grid (n = [`grid_side`]) or the ragdoll rain ([`rain_count`] ragdolls)
/// straight on `backend`, [`PAIRS_PER_BODY`] pair slots a body plus one a joint.
pub(crate) fn build_jointed(
    scene: Scene,
    size: u32,
    backend: Backend,
    tuning: Tuning,
) -> Res<Built> {
    let (bodies, joints) = match scene {
        Scene::JointGrid => {
            let n = grid_side(size);
            (n * n, 2 * n * n)
        }
        Scene::RagdollRain => {
            let count = rain_count(size);
            (count * 13 + 2, count * 11)
        }
        _ => return Err(format!("{scene:?} is not a jointed scene").into()),
    };
    let mut config = RigidConfig {
        joint_capacity: joints,
        ..scenes::config(bodies)
    };
    config.pair_capacity = PAIRS_PER_BODY * config.body_capacity + joints;
    let mut world = RigidWorld::new(backend, tuned(config, tuning))?;
    let (handles, rain) = match scene {
        Scene::JointGrid => (joint_grid(&mut world, grid_side(size))?, None),
        _ => {
            let rain = ragdoll_rain(&mut world, rain_count(size))?;
            let bones = rain.ragdolls.iter().flat_map(|r| r.bones.clone()).collect();
            (bones, Some(rain))
        }
    };
    let all = world.read_bodies()?;
    let slots = handles
        .iter()
        .map(|h| h.index() as usize)
        .filter(|&i| all[i].pos.w > 0.0)
        .collect();
    let links = world
        .read_joints()?
        .iter()
        .filter(|jt| jt.flags & joint_flag::DISABLED == 0)
        .map(|jt| Link {
            a: jt.body_a as usize,
            b: jt.body_b as usize,
            anchor_a: jt.anchor_a.truncate(),
            anchor_b: jt.anchor_b.truncate(),
        })
        .collect();
    Ok(Built {
        world,
        slots,
        links,
        rain,
        fleet: None,
    })
}

/// The largest distance between a joint's two anchors (m), the bodies at `pose(slot)`.
pub(crate) fn worst_gap(links: &[Link], pose: impl Fn(usize) -> Option<(Vec3, Quat)>) -> f32 {
    links
        .iter()
        .filter_map(|l| {
            let (pa, qa) = pose(l.a)?;
            let (pb, qb) = pose(l.b)?;
            Some((pa + qa * l.anchor_a).distance(pb + qb * l.anchor_b))
        })
        .fold(0.0, f32::max)
}

fn pose_of(anchor: glam::Vec4, rot: glam::Vec4) -> rp::Pose {
    rp::Pose::from_parts(
        rp::Vector::new(anchor.x, anchor.y, anchor.z),
        rp::Rotation::from_xyzw(rot.x, rot.y, rot.z, rot.w),
    )
}

/// Adds each of `world`'s joints to rapier as an impulse joint between the mirrored bodies, in
/// the same frames (anchor and axes in each body's frame), contacts between the two off as in
/// wgphys: a ball joint as a spherical joint (its twist limits on the x angle, its cone's half
/// angle on the y and z angles), a hinge as a revolute joint about the frames' x axis with its
/// limits. Other kinds, and joints to the world, are refused (the scenes have none).
pub(crate) fn mirror_joints(
    joints: &[GpuJoint],
    handles: &[Option<rp::RigidBodyHandle>],
    rw: &mut rp::PhysicsWorld,
) -> Res<()> {
    let handle = |i: u32| {
        handles
            .get(i as usize)
            .copied()
            .flatten()
            .ok_or_else(|| format!("joint body {i} is not mirrored into rapier"))
    };
    for jt in joints {
        if jt.flags & joint_flag::DISABLED != 0 {
            continue;
        }
        let (a, b) = (handle(jt.body_a)?, handle(jt.body_b)?);
        let base = |axes| {
            rp::GenericJointBuilder::new(axes)
                .local_frame1(pose_of(jt.anchor_a, jt.rot_a))
                .local_frame2(pose_of(jt.anchor_b, jt.rot_b))
                .contacts_enabled(jt.flags & joint_flag::COLLIDE != 0)
        };
        let joint = match jt.kind {
            joint_kind::BALL => {
                let mut j = base(rp::JointAxesMask::LOCKED_SPHERICAL_AXES);
                if jt.flags & joint_flag::TWIST != 0 {
                    j = j.limits(rp::JointAxis::AngX, [jt.limits.y, jt.limits.z]);
                }
                if jt.flags & joint_flag::CONE != 0 {
                    let c = jt.limits.x;
                    j = j
                        .limits(rp::JointAxis::AngY, [-c, c])
                        .limits(rp::JointAxis::AngZ, [-c, c]);
                }
                j
            }
            joint_kind::HINGE => {
                let mut j = base(rp::JointAxesMask::LOCKED_REVOLUTE_AXES);
                if jt.flags & joint_flag::LIMITS != 0 {
                    j = j.limits(rp::JointAxis::AngX, [jt.limits.x, jt.limits.y]);
                }
                j
            }
            k => return Err(format!("joint kind {k} is not mirrored into rapier").into()),
        };
        rw.insert_impulse_joint(a, b, joint.build());
    }
    Ok(())
}

/// Drops again, in rapier, the rain's ragdolls due at step `step` (asleep, or past their
/// lifetime), as `RagdollRain::recycle` does in wgphys: every bone moved by its pelvis' offset
/// to the spot, thrown at `RAIN_THROW` without spin, woken.
pub(crate) fn recycle_rapier(
    rain: &mut RagdollRain,
    step: u64,
    handles: &[Option<rp::RigidBodyHandle>],
    rw: &mut rp::PhysicsWorld,
) {
    let body = |h: wgphys::rigid::BodyHandle| handles.get(h.index() as usize).copied().flatten();
    let due = rain.due(step, |i| {
        rain.ragdolls[i]
            .bones
            .iter()
            .filter_map(|&h| body(h).and_then(|r| rw.bodies.get(r)))
            .all(|b| b.is_sleeping())
    });
    for &i in &due {
        let pelvis = body(rain.ragdolls[i].bones[0])
            .and_then(|r| rw.bodies.get(r))
            .map(|b| b.translation());
        let Some(pelvis) = pelvis else {
            continue;
        };
        let offset = rain.spots[i] - Vec3::new(pelvis.x, pelvis.y, pelvis.z);
        for &bone in &rain.ragdolls[i].bones {
            if let Some(b) = body(bone).and_then(|r| rw.bodies.get_mut(r)) {
                let t = b.translation();
                let to = Vec3::new(t.x, t.y, t.z) + offset;
                b.set_translation(rp::Vector::new(to.x, to.y, to.z), true);
                b.set_linvel(
                    rp::Vector::new(RAIN_THROW.x, RAIN_THROW.y, RAIN_THROW.z),
                    true,
                );
                b.set_angvel(rp::Vector::ZERO, true);
            }
        }
        rain.dropped_at[i] = step;
        rain.recycled += 1;
    }
}
