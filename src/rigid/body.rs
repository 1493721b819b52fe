//! Typed views of the bodies a world reads back: [`Body`], one body's state in the terms of
//! [`super::RigidBody`] (a `Quat`, a mass, a kind, `awake` as a `bool`), and [`BodySnapshot`],
//! every live body as of one step, whether it came back through the asynchronous body ring
//! ([`super::RigidWorld::latest_bodies`]) or from a blocking read
//! ([`super::RigidWorld::read_snapshot`]).
//!
//! A snapshot keeps the generation of each slot it copied, so a handle answers only for the
//! body it named when the copy was taken: a slot freed before the copy reads as `None`, and a
//! body added later in a reused slot is not reported under the old handle (nor the old body
//! under the new one).

use super::model::{BodyHandle, BodyKind};
use super::types::{body_kind, GpuBody};
use glam::{Quat, Vec3};
use std::sync::Arc;

/// One body's state, read back: the typed form of [`GpuBody`].
///
/// `#[non_exhaustive]`: read its fields; build one with [`Body::from_gpu`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Body {
    /// The body this describes.
    pub handle: BodyHandle,
    /// How it moves.
    pub kind: BodyKind,
    /// The body's origin in the world (m): the point its colliders, joint frames and generator
    /// points are placed from, as [`super::RigidBody::position`] (see [`super::mass`] on the
    /// origin and the centre of mass).
    pub position: Vec3,
    /// The body's centre of mass in the world (m): the point it turns about. It is
    /// [`Body::position`] for a body whose colliders balance about its origin, and for static
    /// and kinematic bodies.
    pub centre_of_mass: Vec3,
    /// Orientation (the engine keeps it unit length).
    pub rotation: Quat,
    /// Linear velocity of the centre of mass (m/s).
    pub linear_velocity: Vec3,
    /// Angular velocity in world space (rad/s).
    pub angular_velocity: Vec3,
    /// Mass (kg). Static and kinematic bodies have an infinite mass and read 0 here, as in
    /// rapier's `RigidBody::mass`; [`Body::inverse_mass`] is 0 for them too.
    pub mass: f32,
    /// Inverse mass (1/kg), as the solver uses it: 0 for static and kinematic bodies.
    pub inverse_mass: f32,
    /// Linear damping: the fraction of the linear velocity kept per second, in (0, 1] (1 = none;
    /// rapier's linear damping c corresponds to about e^(−c)), as
    /// [`super::RigidBody::linear_damping`].
    pub linear_damping: f32,
    /// Angular damping: the fraction of the angular velocity kept per second, in (0, 1]
    /// (1 = none; rapier's angular damping c corresponds to about e^(−c)).
    pub angular_damping: f32,
    /// The body's constant acceleration (the world's gravity unless the body set its own).
    pub acceleration: Vec3,
    /// Whether it is awake (static bodies never are).
    pub awake: bool,
    /// Whether it may fall asleep.
    pub can_sleep: bool,
    /// Whether continuous collision is on for it.
    pub ccd: bool,
}

impl Body {
    /// The typed view of `raw`, the record of `handle`'s slot (from
    /// [`super::RigidWorld::read_bodies`] at [`BodyHandle::index`], for example), for a body
    /// whose centre of mass is its origin: a raw record holds the centre's position (see
    /// [`super::mass`]). Nothing checks that the record is that body's: a [`BodySnapshot`]
    /// and the world's reads do, and they also place the origin.
    #[must_use]
    pub fn from_gpu(handle: BodyHandle, raw: &GpuBody) -> Self {
        Self::from_record(handle, raw, Vec3::ZERO)
    }

    /// The typed view of `raw` for a body whose centre of mass is at `centre` in its frame.
    pub(crate) fn from_record(handle: BodyHandle, raw: &GpuBody, centre: Vec3) -> Self {
        let inverse_mass = raw.pos.w;
        let centre_of_mass = raw.pos.truncate();
        Self {
            handle,
            kind: match raw.kind {
                body_kind::DYNAMIC => BodyKind::Dynamic,
                body_kind::KINEMATIC => BodyKind::Kinematic,
                _ => BodyKind::Static,
            },
            position: centre_of_mass - super::math::quat_rotate(raw.orient, centre),
            centre_of_mass,
            rotation: Quat::from_vec4(raw.orient),
            linear_velocity: raw.lin_vel.truncate(),
            angular_velocity: raw.ang_vel.truncate(),
            mass: if inverse_mass > 0.0 {
                1.0 / inverse_mass
            } else {
                0.0
            },
            inverse_mass,
            linear_damping: raw.lin_vel.w,
            angular_damping: raw.ang_vel.w,
            acceleration: raw.acc.truncate(),
            awake: raw.awake != 0,
            can_sleep: raw.can_sleep != 0,
            ccd: raw.flags & 1 != 0,
        }
    }

    /// The velocity of the world point `point` carried by the body: v + ω × (p − c), c the
    /// centre of mass.
    pub fn velocity_at_point(&self, point: Vec3) -> Vec3 {
        self.linear_velocity + self.angular_velocity.cross(point - self.centre_of_mass)
    }

    /// Whether forces and contacts move it.
    pub fn is_dynamic(&self) -> bool {
        self.kind == BodyKind::Dynamic
    }
}

/// Every live body of a world as of the end of one step (see the module docs). Cheap to
/// clone: the records are shared.
#[derive(Clone, Debug)]
pub struct BodySnapshot {
    step: u64,
    world: u32,
    bodies: Arc<[GpuBody]>,
    /// Each slot's generation when the copy was taken; `None` for a free slot.
    generations: Arc<[Option<u32>]>,
    /// Each slot's centre of mass in its body's frame when the copy was taken; empty when
    /// every centre was zero (a slot past the end reads zero).
    centres: Arc<[Vec3]>,
}

impl BodySnapshot {
    /// A snapshot of `bodies` (slot order) after step `step` of world `world`, whose slots held
    /// the bodies of `generations` (`None`: free) with their centres of mass at `centres` in
    /// their frames (empty: all zero).
    pub(crate) fn new(
        step: u64,
        world: u32,
        bodies: Arc<[GpuBody]>,
        generations: Arc<[Option<u32>]>,
        centres: Arc<[Vec3]>,
    ) -> Self {
        Self {
            step,
            world,
            bodies,
            generations,
            centres,
        }
    }

    fn centre(&self, i: usize) -> Vec3 {
        self.centres.get(i).copied().unwrap_or(Vec3::ZERO)
    }

    /// The step whose end this describes (0: before the first step).
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The body `h` names as of [`BodySnapshot::step`]; `None` when `h` is another world's, or
    /// its slot held no body or another body (one removed, or added since) when the copy was
    /// taken.
    pub fn get(&self, h: BodyHandle) -> Option<Body> {
        let i = h.index as usize;
        if h.world != self.world || self.generations.get(i).copied().flatten() != Some(h.generation)
        {
            return None;
        }
        self.bodies
            .get(i)
            .map(|raw| Body::from_record(h, raw, self.centre(i)))
    }

    /// The live bodies, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = Body> + '_ {
        self.generations
            .iter()
            .zip(self.bodies.iter())
            .enumerate()
            .filter_map(|(i, (g, raw))| {
                let generation = (*g)?;
                let handle = BodyHandle {
                    index: i as u32,
                    generation,
                    world: self.world,
                };
                Some(Body::from_record(handle, raw, self.centre(i)))
            })
    }

    /// Live bodies in the snapshot.
    pub fn len(&self) -> usize {
        self.generations.iter().filter(|g| g.is_some()).count()
    }

    /// Whether it holds no live body.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The raw records of every slot, live or free, in slot order (as
    /// [`super::RigidWorld::read_bodies`] returns them): their positions are the bodies'
    /// centres of mass (see [`super::mass`]).
    pub fn raw(&self) -> &[GpuBody] {
        &self.bodies
    }
}
