//! # 9. Coming from rapier
//!
//! The rigid world's API looks like rapier's in places (builders, handles, fixed and
//! kinematic bodies, collision groups) and differs in conventions that compile either way. The
//! ones that bite:
//!
//! ## Damping is the fraction of velocity kept per second
//!
//! [`RigidBody::damping(linear, angular)`](crate::rigid::RigidBody::damping) takes the
//! fraction of velocity a body keeps after one second, in (0, 1]: each substep multiplies the
//! velocity by `d^dt`. **1.0 is no damping**, and the default is **0.99** (1% lost per
//! second), where rapier's damping is a rate whose default 0 means none. Passing a rapier value
//! such as 0.5 here asks for half the velocity to go every second. A rapier coefficient c
//! (velocity scaled by 1/(1 + c·dt) each step) keeps about exp(−c) per second. The particle
//! and aggregate worlds use the same convention
//! ([`Particle::damping`](crate::particles::Particle::damping),
//! [`Emitter::damping`](crate::particles::Emitter::damping), whose defaults are 1.0).
//!
//! ```
//! use wgphys::rigid::RigidBody;
//!
//! assert_eq!(RigidBody::dynamic().linear_damping, 0.99); // not rapier's 0.0
//! let undamped = RigidBody::dynamic().damping(1.0, 1.0); // rapier's linear_damping(0.0)
//! let c = 0.5f32; // a rapier damping coefficient
//! let like_rapier = RigidBody::dynamic().damping((-c).exp(), (-c).exp());
//! # let _ = (undamped, like_rapier);
//! ```
//!
//! ## Mass from density; the position is the origin
//!
//! As in rapier, a dynamic body with no mass set weighs its solid colliders' volume times their
//! density, 1 kg/m³ by default ([`rigid::mass`](crate::rigid::mass)): a density per collider
//! ([`Collider::density`](crate::rigid::Collider::density)), else the body's
//! ([`RigidBody::density`](crate::rigid::RigidBody::density)), else 1. Sensors have no mass. An
//! explicit [`RigidBody::mass`](crate::rigid::RigidBody::mass) overrides the sum (the inertia is
//! then the colliders' scaled to it), [`RigidBody::inertia`](crate::rigid::RigidBody::inertia)
//! the tensor and [`RigidBody::centre_of_mass`](crate::rigid::RigidBody::centre_of_mass) the
//! centre. A body with no solid collider and no mass set weighs 1 kg. Adding, removing or
//! reshaping a collider ([`RigidWorld::add_collider`](crate::rigid::RigidWorld::add_collider)
//! and its kin) recomputes the mass properties, keeping what was set explicitly.
//!
//! As in rapier, a body's position is its origin, the frame its colliders
//! ([`Collider::at`](crate::rigid::Collider::at)), joint frames and generator points are given
//! in, and the centre of mass is the colliders' mass-weighted centre: a hammer built from its
//! handle's end turns about a point near its head. [`Body::position`](crate::rigid::Body) reads
//! the origin and [`Body::centre_of_mass`](crate::rigid::Body) the centre; the linear velocity
//! is the centre's. The GPU record a renderer reads holds the centre
//! (`GpuBody::pos`), with the shapes' offsets taken from it, so shapes drawn by body and offset
//! land where they are.
//!
//! ```
//! use wgphys::prelude::*;
//!
//! let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?;
//! // A 1 m handle from the origin up, a heavy head on top.
//! let hammer = world.add_body(
//!     RigidBody::dynamic().position(Vec3::new(0.0, 3.0, 0.0)),
//!     &[
//!         Collider::cuboid(Vec3::new(0.05, 0.5, 0.05)).at(Vec3::Y * 0.5, Quat::IDENTITY),
//!         Collider::cuboid(Vec3::new(0.2, 0.1, 0.1))
//!             .density(20.0)
//!             .at(Vec3::Y * 1.1, Quat::IDENTITY),
//!     ],
//! )?;
//! let body = world.body(hammer)?;
//! assert_eq!(body.position, Vec3::new(0.0, 3.0, 0.0));
//! assert!(body.centre_of_mass.y > 3.9); // near the head
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## Argument orders
//!
//! Every (friction, restitution) pair in the API takes friction first and restitution second,
//! as rapier does:
//! [`rigid::Collider::material(friction, restitution)`](crate::rigid::Collider::material)
//! (default 0.5 and 0) and the particle and aggregate worlds' static
//! [`particles::ParticleCollider::ground(friction, restitution)`](crate::particles::ParticleCollider::ground).
//! The rigid world's `Collider` is a shape on a body; the particle and aggregate worlds' static
//! shapes are `ParticleCollider`s.
//!
//! [`Collider::capsule_y(half_height, radius)`](crate::rigid::Collider::capsule_y) takes its
//! two lengths in rapier's order: half the segment between the caps' centres, along the local
//! y axis, then the radius, so `capsule_y(0.5, 0.3)` is 1.6 m tall.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::Backend;
//! use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
//!
//! let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?;
//! let ground = Collider::half_space(Vec3::Y, 0.0).material(0.9, 0.0); // friction, restitution
//! world.add_body(RigidBody::fixed(), &[ground])?;
//! let pill = world.add_body(
//!     RigidBody::dynamic().position(Vec3::new(0.0, 1.0, 0.0)),
//!     &[Collider::capsule_y(0.5, 0.3)], // half height, then radius: 1.6 m tall
//! )?;
//! for _ in 0..90 {
//!     world.step(1.0 / 60.0)?;
//! }
//! assert!((world.body(pill)?.position.y - 0.8).abs() < 0.01); // standing on its end
//!
//! let particle_ground = wgphys::particles::ParticleCollider::ground(0.3, 0.5); // friction, restitution
//! assert_eq!((particle_ground.friction, particle_ground.restitution), (0.3, 0.5));
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! Friction and restitution of a contact combine by world-wide rules,
//! [`RigidConfig::combine_friction`](crate::rigid::RigidConfig::combine_friction) (default
//! [`Combine::Geometric`](crate::rigid::Combine::Geometric), √(a·b)) and
//! [`combine_restitution`](crate::rigid::RigidConfig::combine_restitution) (default
//! [`Combine::Average`](crate::rigid::Combine::Average)); rapier picks a rule per collider and
//! averages both by default. Closing speeds below
//! [`restitution_cutoff`](crate::rigid::RigidConfig::restitution_cutoff) (0.25 m/s) do not
//! bounce.
//!
//! ## Gravity: where it comes from
//!
//! - The rigid world has gravity, [`RigidConfig::gravity`](crate::rigid::RigidConfig::gravity)
//!   (0, −9.81, 0). [`RigidBody::acceleration`](crate::rigid::RigidBody::acceleration)
//!   **replaces** it for one body (it is not a scale: rapier's `gravity_scale(0.0)` is
//!   `.acceleration(Vec3::ZERO)`).
//! - The particle and aggregate worlds have none by default: add
//!   [`ForceField::Gravity`](crate::particles::ForceField::Gravity) to the world's fields, or
//!   give each particle its own constant acceleration.
//! - An [`Emitter`](crate::particles::Emitter)'s particles and a
//!   [`Particle`](crate::particles::Particle) carry an acceleration of their own on top of the
//!   world's fields, zero by default (as bevy_hanabi's effects have no force until you add
//!   one): gravity is counted once, from the world's field. Set an emitter's acceleration
//!   for an effect that falls differently (smoke that rises), not to add gravity again. The
//!   book's firework rules carry the book's own gravity
//!   ([`FireworkRule::gravity`](crate::fireworks::FireworkRule::gravity)) and are meant for a
//!   world without a gravity field.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::particles::{Emitter, Particle};
//!
//! assert_eq!(Emitter::default().acceleration, Vec3::ZERO);
//! assert_eq!(Particle::new(Vec3::ZERO).acceleration, Vec3::ZERO);
//! ```
//!
//! ## Forces last one step; impulses act over the next step
//!
//! [`add_force`](crate::rigid::RigidWorld::add_force),
//! [`add_force_at_point`](crate::rigid::RigidWorld::add_force_at_point) and
//! [`add_torque`](crate::rigid::RigidWorld::add_torque) act during the next step only (in every
//! substep) and are cleared after it, where rapier keeps a force until it is reset: call them
//! every step for a steady push.
//! [`apply_impulse`](crate::rigid::RigidWorld::apply_impulse) (and `apply_torque_impulse`,
//! `apply_impulse_at_point`) changes the momentum by exactly J, but over the next step (as a
//! force J/dt) rather than at once as rapier does: the body's velocity on the GPU is the
//! device's, so the host cannot add to it. A body's pose and properties change between steps
//! with [`set_position`](crate::rigid::RigidWorld::set_position),
//! [`set_rotation`](crate::rigid::RigidWorld::set_rotation),
//! [`set_damping`](crate::rigid::RigidWorld::set_damping),
//! [`set_gravity_scale`](crate::rigid::RigidWorld::set_gravity_scale),
//! [`set_ccd`](crate::rigid::RigidWorld::set_ccd) and
//! [`set_can_sleep`](crate::rigid::RigidWorld::set_can_sleep); a kinematic body follows
//! [`set_kinematic_target`](crate::rigid::RigidWorld::set_kinematic_target) (rapier's
//! `set_next_kinematic_position`) or the velocity you set.
//!
//! ## Handles carry a generation
//!
//! A [`BodyHandle`](crate::rigid::BodyHandle) (and a
//! [`JointHandle`](crate::rigid::JointHandle)) is a slot, the slot's generation and the world
//! it came from. Removing a body frees its slot for the next `add_body`, and the old handle is
//! then refused with [`Error::StaleHandle`](crate::Error::StaleHandle) rather than reaching
//! the slot's new body; a handle from another world is refused too.
//! [`BodyHandle::index`](crate::rigid::BodyHandle::index) is the slot: the index into
//! [`read_bodies`](crate::rigid::RigidWorld::read_bodies) and the GPU `bodies` buffer. Results
//! that name bodies by slot rather than by handle
//! ([`RayHit::body`](crate::rigid::ray::RayHit::body), a manifold's `body_a`, a shape's
//! `body`) are compared with `index()`.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::{Backend, Error};
//! use wgphys::rigid::ray::Ray;
//! use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
//!
//! let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?;
//! let old = world.add_body(RigidBody::fixed(), &[Collider::sphere(1.0)])?;
//! world.remove_body(old)?;
//! let new = world.add_body(RigidBody::fixed(), &[Collider::sphere(1.0)])?;
//! assert_eq!(old.index(), new.index()); // the slot is reused,
//! assert!(matches!(world.body(old), Err(Error::StaleHandle { .. }))); // the old handle is not
//!
//! let ray = Ray::new(Vec3::new(0.0, 5.0, 0.0), -Vec3::Y, f32::INFINITY)?;
//! let hit = world.cast_ray(&ray).expect("the sphere is below");
//! assert_eq!(hit.body, new.index()); // a slot, not a handle
//! assert!((hit.t - 4.0).abs() < 1e-5);
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! The particle world's handles ([`ParticleHandle`](crate::particles::ParticleHandle)) are ids
//! that are never reused, and name no slot (particles move between slots). The aggregate
//! world's [`ParticleId`](crate::aggregate::ParticleId), [`LinkId`](crate::aggregate::LinkId)
//! and [`GeneratorId`](crate::aggregate::GeneratorId) are like a body handle: a slot, the
//! slot's generation and the world they came from.
//!
//! ## Reading a body: a frame late on the GPU, or a blocking read
//!
//! In rapier `bodies[handle].translation()` is a field access. Here
//! [`RigidWorld::body(h)`](crate::rigid::RigidWorld::body) returns a typed
//! [`Body`](crate::rigid::Body) (`position`, `rotation` as a `Quat`, `linear_velocity`,
//! `angular_velocity`, `mass`, `kind`, `awake` as a `bool`) without blocking: on the CPU it is
//! the state now, on the GPU the newest copy the host has, which with
//! [`set_body_tracking`](crate::rigid::RigidWorld::set_body_tracking) on is a frame or two
//! old. [`read_body`](crate::rigid::RigidWorld::read_body) blocks until the device has
//! finished and gives the state now; [`body_raw`](crate::rigid::RigidWorld::body_raw) and
//! [`read_bodies`](crate::rigid::RigidWorld::read_bodies) give the raw
//! [`GpuBody`](crate::rigid::types::GpuBody) records the kernels use. On the CPU all are
//! copies. See [`ch5_reading`](super::ch5_reading), or draw from the buffers
//! ([`ch3_drawing`](super::ch3_drawing)).
//!
//! ```
//! use glam::{Quat, Vec3};
//! use wgphys::Backend;
//! use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
//!
//! let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?;
//! let spinning = RigidBody::dynamic().angular_velocity(Vec3::Y).mass(1.0);
//! let h = world.add_body(spinning, &[Collider::cuboid(Vec3::ONE)])?;
//! world.step(1.0 / 60.0)?;
//! let b = world.body(h)?; // rapier's body.translation(), rotation(), linvel(), angvel()
//! let (position, rotation) = (b.position, b.rotation);
//! let (velocity, spin) = (b.linear_velocity, b.angular_velocity);
//! assert!(position.y < 0.0 && rotation.is_normalized() && velocity.y < 0.0 && spin.y > 0.9);
//! assert_eq!((b.mass, b.awake), (1.0, true)); // a fixed body's mass reads 0, as in rapier
//! let raw = world.body_raw(h)?; // the GPU record: pos.w the inverse mass, orient a Vec4
//! assert_eq!(Quat::from_vec4(raw.orient), rotation);
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## Other differences
//!
//! - Shapes are spheres, boxes ([`Collider::cuboid`](crate::rigid::Collider::cuboid) takes the
//!   half extents as one `Vec3`), capsules along local y, convex hulls, and, for fixed bodies
//!   only, half-spaces, two-sided planes, triangle meshes and heightfields
//!   ([`ch11_levels`](super::ch11_levels): a mesh is one-sided unless made two-sided, and its
//!   internal-edge fix, rapier's `FIX_INTERNAL_EDGES`, is always on).
//!   [`Collider::sensor`](crate::rigid::Collider::sensor) makes a sensor.
//! - Contact events are off until
//!   [`set_contact_events`](crate::rigid::RigidWorld::set_contact_events) turns them on (they
//!   cost a stage); they come with the step's report, a frame late on the GPU
//!   ([`ch5_reading`](super::ch5_reading)). Contacts with their impulses are read with
//!   [`contacts`](crate::rigid::RigidWorld::contacts) (blocking on the GPU).
//! - Scene queries take a [`QueryFilter`](crate::rigid::QueryFilter) and read the newest bodies
//!   the host has; on the GPU turn on body tracking so that is a frame old, not the last
//!   blocking read.
//! - Collision groups follow rapier's interaction groups: two colliders touch when each one's
//!   group bits meet the other's mask bits ([`Collider::groups`](crate::rigid::Collider::groups)).
//! - The step length is passed to every `step(dt)`; substeps, iterations and the contacts'
//!   stiffness are in [`RigidConfig`](crate::rigid::RigidConfig), whose defaults (4 substeps,
//!   8 relax iterations, 60 Hz contacts) are chosen for a 100-row wall of boxes to stand still
//!   and documented field by field.
//! - `auto_grow` is on by default: the world grows rather than refuse a body
//!   ([`ch6_capacity`](super::ch6_capacity)).
