//! Jointed scenes: a hanging chain with a weight, the book's ragdoll of 12 bones and 11 joints
//! (§17.2.1, built of boxes with ball joints at the spine, neck, shoulders and hips and hinges
//! at the elbows and knees, each limited), a flight of stairs, a rope bridge of planks, the
//! joint grid and the ragdoll rain of the benchmarks. Examples, tests and benchmarks build
//! their worlds here.

use super::rigid::{add_ground, FRICTION};
use crate::error::Result;
use crate::rigid::{BodyHandle, Collider, Joint, JointHandle, RigidBody, RigidWorld};
use crate::rng::rng_unit;
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
            &[Collider::capsule_y(0.5 * link - radius, radius).material(FRICTION, 0.0)],
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
/// forward) and knees (bending back), each limited and with a little joint friction (1 to
/// 4 N·m), so a ragdoll comes to rest and sleeps instead of rocking on its limits.
fn ragdoll_joints() -> [(usize, usize, Joint); 11] {
    let spine = |y: f32| {
        Joint::ball(Vec3::new(0.0, y, 0.0))
            .with_axis(Vec3::Y)
            .with_cone(0.35)
            .with_twist(-0.3, 0.3)
            .with_friction(4.0)
    };
    let shoulder = |s: f32| {
        Joint::ball(Vec3::new(0.19 * s, 1.37, 0.0))
            .with_axis(Vec3::X * s)
            .with_cone(1.3)
            .with_twist(-0.8, 0.8)
            .with_friction(1.5)
    };
    // About +y, a forearm along +x turns towards −z at a positive angle, one along −x towards
    // +z: the elbows bend forward.
    let elbow = |s: f32| {
        let (lo, hi) = if s > 0.0 { (-2.4, 0.0) } else { (0.0, 2.4) };
        Joint::hinge(Vec3::new(0.44 * s, 1.37, 0.0), Vec3::Y)
            .with_limits(lo, hi)
            .with_friction(1.0)
    };
    let hip = |s: f32| {
        Joint::ball(Vec3::new(0.09 * s, 0.91, 0.0))
            .with_axis(-Vec3::Y)
            .with_cone(1.1)
            .with_twist(-0.4, 0.4)
            .with_friction(4.0)
    };
    // About +x, a shin hanging down turns towards −z at a positive angle: the knees bend back.
    let knee = |s: f32| {
        Joint::hinge(Vec3::new(0.09 * s, 0.485, 0.0), Vec3::X)
            .with_limits(0.0, 2.3)
            .with_friction(2.5)
    };
    [
        (0, 1, spine(1.085)),
        (1, 2, spine(1.255)),
        (
            2,
            3,
            spine(1.49)
                .with_cone(0.6)
                .with_twist(-0.7, 0.7)
                .with_friction(1.5),
        ),
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

/// A rope bridge and the posts it hangs from.
pub struct RopeBridge {
    /// The two static posts, at −x first.
    pub posts: [BodyHandle; 2],
    /// The planks, from −x to +x.
    pub planks: Vec<BodyHandle>,
    /// The hinges, from −x to +x (post to the first plank, plank to plank, the last plank to
    /// the other post).
    pub joints: Vec<JointHandle>,
}

/// A rope bridge: `planks` boards of mass `plank_mass` hanging between two static posts whose
/// inner faces are `span` apart along x, the ends at height `centre.y`. The deck is longer than
/// the span, so it hangs `sag` below the ends at mid-span: the boards are laid on a parabola
/// through the ends and the lowest point, at equal distances along it, each joined to the next
/// (and the end boards to the posts) by a hinge about z at its end, as stiff as the world's
/// joints. The posts stand on y = 0.
///
/// # Errors
/// World errors.
pub fn rope_bridge(
    world: &mut RigidWorld,
    centre: Vec3,
    span: f32,
    planks: u32,
    plank_mass: f32,
    sag: f32,
) -> Result<RopeBridge> {
    let half_span = 0.5 * span;
    let height = |x: f32| centre.y - sag * (1.0 - (x / half_span).powi(2));
    // The hinge points: equal steps of arc length along the parabola, found on a fine sampling
    // of it.
    let samples = 64 * planks.max(1) as usize;
    let at = |k: usize| {
        let x = -half_span + span * k as f32 / samples as f32;
        Vec3::new(centre.x + x, height(x), centre.z)
    };
    let mut arc = vec![0.0f32];
    for k in 1..=samples {
        let last = arc[k - 1];
        arc.push(last + at(k).distance(at(k - 1)));
    }
    let length = arc[samples];
    let mut hinges = Vec::with_capacity(planks as usize + 1);
    let mut k = 0;
    for i in 0..=planks {
        let want = length * i as f32 / planks.max(1) as f32;
        while k < samples && arc[k + 1] < want {
            k += 1;
        }
        let t = if k < samples {
            ((want - arc[k]) / (arc[k + 1] - arc[k]).max(1e-9)).clamp(0.0, 1.0)
        } else {
            0.0
        };
        hinges.push(at(k).lerp(at((k + 1).min(samples)), t));
    }
    let pitch = length / planks.max(1) as f32;
    let half = Vec3::new(0.42 * pitch, 0.03, 0.6);
    let post_half = Vec3::new(0.15, 0.5 * (centre.y + 0.4), half.z + 0.1);
    let mut posts = Vec::with_capacity(2);
    for side in [-1.0f32, 1.0] {
        let x = centre.x + side * (half_span + post_half.x);
        posts.push(world.add_body(
            RigidBody::fixed().position(Vec3::new(x, post_half.y, centre.z)),
            &[Collider::cuboid(post_half).material(FRICTION, 0.0)],
        )?);
    }
    let mut bridge = RopeBridge {
        posts: [posts[0], posts[1]],
        planks: Vec::with_capacity(planks as usize),
        joints: Vec::with_capacity(planks as usize + 1),
    };
    let hinge = |x: Vec3| Joint::hinge(x, Vec3::Z);
    let mut before = bridge.posts[0];
    for i in 0..planks as usize {
        let (a, b) = (hinges[i], hinges[i + 1]);
        let slope = (b - a).y.atan2((b - a).x);
        let board = world.add_body(
            RigidBody::dynamic()
                .position(0.5 * (a + b))
                .rotation(Quat::from_rotation_z(slope))
                .mass(plank_mass),
            &[Collider::cuboid(half).material(FRICTION, 0.0)],
        )?;
        bridge
            .joints
            .push(world.add_joint(Some(before), board, hinge(a))?);
        bridge.planks.push(board);
        before = board;
    }
    let end = hinges[planks as usize];
    bridge
        .joints
        .push(world.add_joint(Some(before), bridge.posts[1], hinge(end))?);
    Ok(bridge)
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

/// The most steps a ragdoll of the rain falls and tumbles before it is dropped again if it has
/// not fallen asleep by then (5 s at 60 Hz); each ragdoll's own lifetime is between half this
/// and this, so the drops spread out in time.
pub const RAIN_LIFETIME: u64 = 300;
/// The rain's spots are this far apart (m) along x and z, and its neighbours in each 2 × 2
/// block of spots are dropped from four heights [`RAIN_LAYER`] apart: a spot has no
/// neighbour at its own height nearer than two pitches, farther than any bone reaches from its
/// pelvis (1 m) twice over, so a ragdoll dropped at its spot meets none of its neighbours
/// there, while they land on one another.
pub const RAIN_PITCH: f32 = 1.1;
/// Between the four heights of the rain's spots (m).
pub const RAIN_LAYER: f32 = 1.5;
/// Each step of the rain's stairs rises this much (m); each is two rows of spots deep.
pub const RAIN_RISE: f32 = 0.4;
/// The velocity a ragdoll of the rain is dropped with: down the stairs.
pub const RAIN_THROW: Vec3 = Vec3::new(0.0, 0.0, 1.5);

/// Ragdolls raining down a flight of stairs (the benchmarks' ragdoll rain, after Box2D v3's
/// `rain`): each has a spot over the stairs and is dropped from it again
/// ([`RagdollRain::recycle`]) once it has fallen asleep or its lifetime after its last drop
/// (at most [`RAIN_LIFETIME`] steps), so the scene keeps falling and piling up.
pub struct RagdollRain {
    /// The ragdolls, row by row from the top of the stairs.
    pub ragdolls: Vec<Ragdoll>,
    /// Where each ragdoll's pelvis is dropped from.
    pub spots: Vec<Vec3>,
    /// The world step of each ragdoll's last drop.
    pub dropped_at: Vec<u64>,
    /// Each ragdoll's lifetime in steps, from half [`RAIN_LIFETIME`] to all of it.
    pub lifetimes: Vec<u64>,
    /// Drops after the first, all ragdolls together.
    pub recycled: u64,
}

/// The rows and columns of the rain's spots for `count` ragdolls: a near-square grid.
pub fn rain_grid(count: u32) -> (u32, u32) {
    let cols = (f64::from(count).sqrt().ceil() as u32).max(1);
    (count.div_ceil(cols).max(1), cols)
}

/// The ground, stairs going down along +z with a step under every two rows of spots, and
/// `count` ragdolls ([`rain_grid`], [`RAIN_PITCH`] apart) dropped from 2.2 m over their step
/// plus one of four heights [`RAIN_LAYER`] apart, lying face down, turned about y, thrown at
/// [`RAIN_THROW`] (the turns and lifetimes from the counter-based hash, seed 7, so every run
/// and engine does the same).
///
/// # Errors
/// World errors.
pub fn ragdoll_rain(world: &mut RigidWorld, count: u32) -> Result<RagdollRain> {
    let (rows, cols) = rain_grid(count);
    let steps = rows.div_ceil(2);
    add_ground(world)?;
    let width = cols as f32 * RAIN_PITCH + 2.0;
    stairs(world, steps, RAIN_RISE, 2.0 * RAIN_PITCH, width)?;
    let mut rain = RagdollRain {
        ragdolls: Vec::with_capacity(count as usize),
        spots: Vec::with_capacity(count as usize),
        dropped_at: vec![world.steps(); count as usize],
        lifetimes: (0..count)
            .map(|i| RAIN_LIFETIME / 2 + (rng_unit(7, i, 0, 1) * (RAIN_LIFETIME / 2) as f32) as u64)
            .collect(),
        recycled: 0,
    };
    for i in 0..count {
        let (row, col) = (i / cols, i % cols);
        let step_top = RAIN_RISE * (steps - row / 2) as f32;
        let layer = (2 * (row % 2) + col % 2) as f32;
        let x = (col as f32 - 0.5 * (cols - 1) as f32) * RAIN_PITCH;
        let z = (row as f32 + 0.5) * RAIN_PITCH;
        let spot = Vec3::new(x, step_top + 2.2 + RAIN_LAYER * layer, z);
        let turn = Quat::from_rotation_y(std::f32::consts::TAU * rng_unit(7, i, 0, 0))
            * Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
        // The pelvis is 1 m above the feet in the T-pose.
        let feet = spot - turn * Vec3::Y;
        rain.ragdolls.push(ragdoll(world, feet, turn, RAIN_THROW)?);
        rain.spots.push(spot);
    }
    Ok(rain)
}

impl RagdollRain {
    /// The ragdolls due to be dropped again at world step `step`: those asleep (`asleep(i)`:
    /// every bone of ragdoll `i` sleeps) and those dropped their lifetime ago or more.
    pub fn due(&self, step: u64, asleep: impl Fn(usize) -> bool) -> Vec<usize> {
        (0..self.ragdolls.len())
            .filter(|&i| step.saturating_sub(self.dropped_at[i]) >= self.lifetimes[i] || asleep(i))
            .collect()
    }

    /// Drops every ragdoll [`RagdollRain::due`] again from its spot: each bone moved by the
    /// pelvis' offset to the spot (the ragdoll keeps its pose, so its joints hold as they
    /// were), thrown at [`RAIN_THROW`] without spin, and woken. Reads the bodies back once
    /// (blocking on the GPU). Returns how many it dropped.
    ///
    /// # Errors
    /// GPU readback errors; stale handles if the ragdolls' bodies were removed.
    pub fn recycle(&mut self, world: &mut RigidWorld) -> Result<usize> {
        let bodies = world.read_snapshot()?;
        // Origins, as set_position takes them (a bone's centre of mass may be off its origin).
        let pos = |h: BodyHandle| bodies.get(h).map_or(Vec3::ZERO, |b| b.position);
        let asleep = |i: usize| {
            self.ragdolls[i]
                .bones
                .iter()
                .all(|&h| bodies.get(h).is_some_and(|b| !b.awake))
        };
        let due = self.due(world.steps(), asleep);
        for &i in &due {
            let offset = self.spots[i] - pos(self.ragdolls[i].bones[0]);
            for &bone in &self.ragdolls[i].bones {
                world.set_position(bone, pos(bone) + offset)?;
                world.set_linear_velocity(bone, RAIN_THROW)?;
                world.set_angular_velocity(bone, Vec3::ZERO)?;
            }
            self.dropped_at[i] = world.steps();
            self.recycled += 1;
        }
        Ok(due.len())
    }
}
