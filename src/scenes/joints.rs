//! Jointed scenes: a hanging chain with a weight, the book's ragdoll of 12 bones and 11 joints
//! (§17.2.1, built of boxes with ball joints at the spine, neck, shoulders and hips and hinges
//! at the elbows and knees, each limited), a flight of stairs, a rope bridge of planks, the
//! joint grid and the ragdoll rain of the benchmarks. Examples, tests and benchmarks build
//! their worlds here.

use super::rigid::FRICTION;
use crate::error::Result;
use crate::rigid::{BodyHandle, Collider, Joint, JointHandle, RigidBody, RigidWorld};
use glam::{Quat, Vec3};

/// A chain hanging from a fixed point.
pub struct Chain {
    /// The links, top first.
    pub links: Vec<BodyHandle>,
    /// The weight at the bottom, if any.
    pub weight: Option<BodyHandle>,
    /// The joints, top first (the world to the first link, ..., the last link to the weight).
    pub joints: Vec<JointHandle>,
}

/// A chain of `links` capsules of length `link` and mass `link_mass` hanging straight down
/// from world point `top` on ball joints at their ends, with a ball of mass `weight` (and
/// radius `link`) on the last one unless `weight` is 0. The links do not sleep.
///
/// # Errors
/// World errors (capacity, bad values).
pub fn chain(
    world: &mut RigidWorld,
    top: Vec3,
    links: u32,
    link: f32,
    link_mass: f32,
    weight: f32,
) -> Result<Chain> {
    let radius = 0.2 * link;
    let mut out = Chain {
        links: Vec::new(),
        weight: None,
        joints: Vec::new(),
    };
    let mut above = None;
    for i in 0..links {
        let centre = top - Vec3::Y * (link * (i as f32 + 0.5));
        let body = world.add_body(
            RigidBody::dynamic()
                .position(centre)
                .mass(link_mass)
                .can_sleep(false),
            &[Collider::capsule(radius, 0.5 * link - radius).material(FRICTION, 0.0)],
        )?;
        let anchor = top - Vec3::Y * (link * i as f32);
        out.joints
            .push(world.add_joint(above, body, Joint::ball(anchor))?);
        out.links.push(body);
        above = Some(body);
    }
    if weight > 0.0 {
        let end = top - Vec3::Y * (link * links as f32);
        let ball = world.add_body(
            RigidBody::dynamic()
                .position(end - Vec3::Y * link)
                .mass(weight)
                .can_sleep(false),
            &[Collider::sphere(link).material(FRICTION, 0.0)],
        )?;
        out.joints
            .push(world.add_joint(above, ball, Joint::ball(end))?);
        out.weight = Some(ball);
    }
    Ok(out)
}

/// One bone of the ragdoll: its centre and half size standing in a T-pose at the origin (y up,
/// facing +z, feet at y = 0) and its mass.
struct Bone {
    centre: Vec3,
    half: Vec3,
    mass: f32,
}

/// The ragdoll's bones in order: pelvis, abdomen, chest, head, right and left upper arm, right
/// and left forearm, right and left thigh, right and left shin (12, 71 kg).
fn bones() -> [Bone; 12] {
    let bone = |x: f32, y: f32, hx: f32, hy: f32, hz: f32, mass: f32| Bone {
        centre: Vec3::new(x, y, 0.0),
        half: Vec3::new(hx, hy, hz),
        mass,
    };
    [
        bone(0.0, 1.0, 0.15, 0.08, 0.1, 10.0),
        bone(0.0, 1.17, 0.14, 0.08, 0.09, 7.0),
        bone(0.0, 1.37, 0.17, 0.11, 0.1, 12.0),
        bone(0.0, 1.62, 0.09, 0.11, 0.1, 5.0),
        bone(0.31, 1.37, 0.12, 0.045, 0.045, 2.5),
        bone(-0.31, 1.37, 0.12, 0.045, 0.045, 2.5),
        bone(0.56, 1.37, 0.12, 0.04, 0.04, 1.5),
        bone(-0.56, 1.37, 0.12, 0.04, 0.04, 1.5),
        bone(0.09, 0.7, 0.065, 0.2, 0.065, 8.0),
        bone(-0.09, 0.7, 0.065, 0.2, 0.065, 8.0),
        bone(0.09, 0.27, 0.055, 0.2, 0.055, 4.0),
        bone(-0.09, 0.27, 0.055, 0.2, 0.055, 4.0),
    ]
}

/// The ragdoll's joints: (bone a, bone b, the joint at the T-pose). Ball joints with cone and
/// twist limits at the spine (2), neck, shoulders and hips; hinges at the elbows (bending
/// forward) and knees (bending back), each limited.
fn ragdoll_joints() -> [(usize, usize, Joint); 11] {
    let spine = |y: f32| {
        Joint::ball(Vec3::new(0.0, y, 0.0))
            .with_axis(Vec3::Y)
            .with_cone(0.35)
            .with_twist(-0.3, 0.3)
    };
    let shoulder = |s: f32| {
        Joint::ball(Vec3::new(0.19 * s, 1.37, 0.0))
            .with_axis(Vec3::X * s)
            .with_cone(1.3)
            .with_twist(-0.8, 0.8)
    };
    // About +y, a forearm along +x turns towards −z at a positive angle, one along −x towards
    // +z: the elbows bend forward.
    let elbow = |s: f32| {
        let (lo, hi) = if s > 0.0 { (-2.4, 0.0) } else { (0.0, 2.4) };
        Joint::hinge(Vec3::new(0.44 * s, 1.37, 0.0), Vec3::Y).with_limits(lo, hi)
    };
    let hip = |s: f32| {
        Joint::ball(Vec3::new(0.09 * s, 0.91, 0.0))
            .with_axis(-Vec3::Y)
            .with_cone(1.1)
            .with_twist(-0.4, 0.4)
    };
    // About +x, a shin hanging down turns towards −z at a positive angle: the knees bend back.
    let knee =
        |s: f32| Joint::hinge(Vec3::new(0.09 * s, 0.485, 0.0), Vec3::X).with_limits(0.0, 2.3);
    [
        (0, 1, spine(1.085)),
        (1, 2, spine(1.255)),
        (2, 3, spine(1.49).with_cone(0.6).with_twist(-0.7, 0.7)),
        (2, 4, shoulder(1.0)),
        (2, 5, shoulder(-1.0)),
        (4, 6, elbow(1.0)),
        (5, 7, elbow(-1.0)),
        (0, 8, hip(1.0)),
        (0, 9, hip(-1.0)),
        (8, 10, knee(1.0)),
        (9, 11, knee(-1.0)),
    ]
}

/// A ragdoll: its bones and joints.
pub struct Ragdoll {
    /// Pelvis, abdomen, chest, head, upper arms, forearms, thighs, shins (right before left).
    pub bones: Vec<BodyHandle>,
    /// The joints (spine 2, neck, shoulders, elbows, hips, knees).
    pub joints: Vec<JointHandle>,
}

/// Bones of a ragdoll.
pub const RAGDOLL_BONES: u32 = 12;
/// Joints of a ragdoll.
pub const RAGDOLL_JOINTS: u32 = 11;

/// Adds the book's ragdoll (12 box bones, 11 joints) standing in a T-pose turned by `rotation`
/// about its feet at `at`, moving at `velocity`.
///
/// # Errors
/// World errors (capacity).
pub fn ragdoll(
    world: &mut RigidWorld,
    at: Vec3,
    rotation: Quat,
    velocity: Vec3,
) -> Result<Ragdoll> {
    let mut bodies = Vec::with_capacity(12);
    for b in bones() {
        bodies.push(
            world.add_body(
                RigidBody::dynamic()
                    .position(at + rotation * b.centre)
                    .rotation(rotation)
                    .velocity(velocity)
                    .mass(b.mass),
                &[Collider::cuboid(b.half).material(0.6, 0.0)],
            )?,
        );
    }
    let mut joints = Vec::with_capacity(11);
    for (a, b, joint) in ragdoll_joints() {
        let joint = joint.transformed(at, rotation);
        joints.push(world.add_joint(Some(bodies[a]), bodies[b], joint)?);
    }
    Ok(Ragdoll {
        bones: bodies,
        joints,
    })
}

/// A flight of `steps` stairs going down along +z from height `steps × rise` at z = 0: static
/// boxes `width` wide, each `rise` high and `run` deep, resting on the ground.
///
/// # Errors
/// World errors.
pub fn stairs(world: &mut RigidWorld, steps: u32, rise: f32, run: f32, width: f32) -> Result<()> {
    for i in 0..steps {
        let height = rise * (steps - i) as f32;
        let centre = Vec3::new(0.0, 0.5 * height, run * (i as f32 + 0.5));
        world.add_body(
            RigidBody::fixed().position(centre),
            &[
                Collider::cuboid(Vec3::new(0.5 * width, 0.5 * height, 0.5 * run))
                    .material(FRICTION, 0.0),
            ],
        )?;
    }
    Ok(())
}

/// A rope bridge: `planks` boards of mass `plank_mass` between two fixed posts `span` apart
/// along x at height `height`, each joined to the next by two ropes (one at each side, hinged
/// plank to plank), the ends hinged to the posts.
///
/// # Errors
/// World errors.
pub fn rope_bridge(
    world: &mut RigidWorld,
    centre: Vec3,
    span: f32,
    planks: u32,
    plank_mass: f32,
) -> Result<Vec<BodyHandle>> {
    let pitch = span / planks as f32;
    let half = Vec3::new(0.42 * pitch, 0.03, 0.6);
    let start = centre - Vec3::X * (0.5 * span);
    let mut boards = Vec::new();
    let mut before = None;
    for i in 0..=planks {
        let x = start + Vec3::X * (pitch * i as f32);
        let hinge = Joint::hinge(x, Vec3::Z).with_softness(30.0, 1.0);
        if i == planks {
            world.add_joint(None, boards[boards.len() - 1], hinge)?;
            break;
        }
        let board = world.add_body(
            RigidBody::dynamic()
                .position(x + Vec3::X * (0.5 * pitch))
                .mass(plank_mass),
            &[Collider::cuboid(half).material(FRICTION, 0.0)],
        )?;
        world.add_joint(before, board, hinge)?;
        boards.push(board);
        before = Some(board);
    }
    Ok(boards)
}

/// The joint grid of the benchmarks (Box3D's `joint_grid`): `n × n` spheres of radius 0.4, 1 m
/// apart in the xy plane, each joined to its right and lower neighbour by a ball joint (about
/// 2n² joints), the top row fixed, none sleeping.
///
/// # Errors
/// World errors.
pub fn joint_grid(world: &mut RigidWorld, n: u32) -> Result<Vec<BodyHandle>> {
    let mut bodies = Vec::with_capacity((n * n) as usize);
    for row in 0..n {
        for col in 0..n {
            let at = Vec3::new(col as f32, -(row as f32), 0.0);
            let body = if row == 0 {
                RigidBody::fixed().position(at)
            } else {
                RigidBody::dynamic().position(at).mass(1.0).can_sleep(false)
            };
            bodies.push(world.add_body(body, &[Collider::sphere(0.4)])?);
        }
    }
    let at = |r: u32, c: u32| bodies[(r * n + c) as usize];
    for row in 0..n {
        for col in 0..n {
            let here = Vec3::new(col as f32, -(row as f32), 0.0);
            if col + 1 < n && row > 0 {
                let mid = here + Vec3::X * 0.5;
                world.add_joint(Some(at(row, col)), at(row, col + 1), Joint::ball(mid))?;
            }
            if row + 1 < n {
                let mid = here - Vec3::Y * 0.5;
                world.add_joint(Some(at(row, col)), at(row + 1, col), Joint::ball(mid))?;
            }
        }
    }
    Ok(bodies)
}
