//! # 1. The three worlds, and when to use each
//!
//! wgphys is three engines, each a world type you build with a [`Backend`](crate::Backend) and
//! a configuration and advance with `step(dt)`. The worlds share nothing while they run: a
//! particle does not hit a rigid body, and an aggregate's rod does not hold a rigid box. Several
//! worlds may live side by side on one device (one [`GpuContext`](crate::gpu::GpuContext),
//! cloned into each), and a frame may step any of them.
//!
//! | | [`ParticleWorld`](crate::particles::ParticleWorld) | [`AggregateWorld`](crate::aggregate::AggregateWorld) | [`RigidWorld`](crate::rigid::RigidWorld) |
//! |---|---|---|---|
//! | an object is | a point with a radius, a colour and a lifetime | a point in a fixed slot | a body with orientation and inertia, with colliders |
//! | objects interact | never with each other | through springs, cables, rods and (optionally) contacts | through contacts and joints |
//! | static obstacles | [`particles::ParticleCollider`](crate::particles::ParticleCollider): half-spaces, spheres, boxes; the depth buffer | the same colliders | fixed bodies with any collider |
//! | you hold | a [`ParticleHandle`](crate::particles::ParticleHandle) for host spawns only | a [`ParticleId`](crate::aggregate::ParticleId): slot, generation and world | a [`BodyHandle`](crate::rigid::BodyHandle): slot and generation |
//! | gravity by default | none | none | [`RigidConfig::gravity`](crate::rigid::RigidConfig::gravity), (0, −9.81, 0) |
//! | when full | grows with `auto_grow` (off by default) or [`grow`](crate::particles::ParticleWorld::grow) | never grows | grows with `auto_grow` (on by default) |
//! | `step` returns | a [`particles::ParticleStepReport`](crate::particles::ParticleStepReport) | an [`AggregateStepReport`](crate::aggregate::AggregateStepReport) | a [`rigid::RigidStepReport`](crate::rigid::RigidStepReport) |
//!
//! ## Particles: [`ParticleWorld`](crate::particles::ParticleWorld)
//!
//! For effects: sparks, smoke, rain, debris, fireworks, anything made of many points that do
//! not push on one another. Each particle moves under the world's force fields
//! ([`ForceField`](crate::particles::ForceField): gravity, drag, wind, an attractor, curl-noise
//! turbulence, a vortex) plus its own constant acceleration, bounces on or rests on the static
//! colliders, ages, and dies when its lifetime runs out, when it leaves the kill bounds, or
//! when you remove it. Particles come from three sources:
//!
//! - the host: [`spawn`](crate::particles::ParticleWorld::spawn) queues a
//!   [`Particle`](crate::particles::Particle) and returns a handle for removing it;
//! - fireworks: [`launch`](crate::particles::ParticleWorld::launch) and
//!   [`spawn_firework`](crate::particles::ParticleWorld::spawn_firework) start a firework whose
//!   payload the step spawns when its fuse runs out, on the device without the host's help on
//!   the GPU (the book's nine rules, or your own
//!   [`FireworkRules`](crate::fireworks::FireworkRules));
//! - GPU emitters: [`add_emitter`](crate::particles::ParticleWorld::add_emitter) takes an
//!   [`Emitter`](crate::particles::Emitter) (a rate, bursts, a shape, ranges for every
//!   attribute, colour and size curves, local fields); its particles are drawn on the device, so
//!   nothing per particle is uploaded, and they have no handles.
//!
//! The live particles are kept packed in slots `[0, live)`: when a particle dies, a survivor
//! from the end moves into its slot. That is what lets a renderer draw them with one indirect
//! draw and no readback ([`ch3_drawing`](super::ch3_drawing)); it also means a particle has no
//! fixed slot. You name a host-spawned particle by its handle; in a
//! [`Snapshot`](crate::particles::Snapshot) it is the slot whose `life.id` is the handle's
//! [`id`](crate::particles::ParticleHandle::id).
//!
//! ```
//! use glam::Vec3;
//! use wgphys::Backend;
//! use wgphys::particles::{ParticleCollider, Emitter, ForceField, Particle, ParticleWorld, WorldConfig};
//!
//! let mut world = ParticleWorld::new(
//!     Backend::Cpu,
//!     WorldConfig {
//!         capacity: 1024,
//!         fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
//!         colliders: vec![ParticleCollider::ground(0.3, 0.5)], // friction, then restitution
//!         ..WorldConfig::default()
//!     },
//! )?;
//! let ball = world.spawn(Particle::new(Vec3::new(0.0, 1.0, 0.0)).with_size(0.1))?;
//! // The world's gravity field pulls the emitter's particles too (`Emitter::acceleration`,
//! // zero by default, would add to it).
//! world.add_emitter(Emitter { rate: 120.0, ..Emitter::default() })?;
//! for _ in 0..10 {
//!     world.step(1.0 / 60.0)?;
//! }
//! let snapshot = world.read_snapshot()?; // the live particles, in slot order
//! assert_eq!(snapshot.len(), 1 + 20); // the ball and 10 steps of 2 emitted particles
//! let slot = snapshot.life.iter().position(|l| l.id == ball.id()).expect("alive");
//! assert!(snapshot.pos[slot].y < 1.0); // it is falling
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## Mass aggregates: [`AggregateWorld`](crate::aggregate::AggregateWorld)
//!
//! For structures of point masses held together: a rope bridge, a cloth of springs, a soft
//! blob, a chain of rods, and, with [`Collisions`](crate::aggregate::Collisions) on, granular
//! matter such as a pile of sand (grains that collide with each other on a uniform grid). A
//! particle ([`Particle`](crate::particles::Particle), the same type as above, without a
//! lifetime) sits in a fixed slot for its whole life: [`ParticleId::index`] is its index in
//! every buffer. A removed particle's slot is reused by a later add, with the slot's
//! generation bumped, so the removed particle's handle is refused
//! ([`Error::StaleHandle`](crate::Error::StaleHandle)) rather than reaching the new one;
//! generators and links are handled alike. Particles are
//! joined by force generators ([`ForceGenerator`](crate::aggregate::ForceGenerator): springs,
//! anchored springs, bungees, buoyancy, stiff springs) and by links
//! ([`Link`](crate::aggregate::Link): cables and rods, to another particle or a fixed anchor),
//! which are hard constraints solved in coloured batches.
//!
//! The capacity is fixed when the world is built ([`AggregateConfig::capacity`]); the world
//! never grows. A step returns an
//! [`AggregateStepReport`](crate::aggregate::AggregateStepReport): what the host knows of the
//! step (live particles, links, colours, dispatches); there is no pool to overflow once the
//! particles are in.
//!
//! [`ParticleId::index`]: crate::aggregate::ParticleId::index
//! [`AggregateConfig::capacity`]: crate::aggregate::AggregateConfig::capacity
//!
//! ```
//! use glam::Vec3;
//! use wgphys::Backend;
//! use wgphys::aggregate::{AggregateConfig, AggregateWorld, ForceGenerator, Link};
//! use wgphys::particles::{ForceField, Particle};
//!
//! let mut world = AggregateWorld::new(
//!     Backend::Cpu,
//!     AggregateConfig {
//!         capacity: 16,
//!         fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
//!         ..AggregateConfig::default()
//!     },
//! )?;
//! let top = world.add_particle(Particle::new(Vec3::new(0.0, 2.0, 0.0)).with_inverse_mass(0.0))?;
//! let bob = world.add_particle(Particle::new(Vec3::new(1.0, 2.0, 0.0)))?;
//! let tail = world.add_particle(Particle::new(Vec3::new(2.0, 2.0, 0.0)))?;
//! world.add_link(Link::Rod { a: top, b: bob, length: 1.0 })?; // a pendulum on a rod
//! let spring = ForceGenerator::Spring { a: bob, b: tail, stiffness: 50.0, rest_length: 1.0 };
//! world.add_generator(spring)?;
//! for _ in 0..30 {
//!     world.step(1.0 / 60.0)?;
//! }
//! let s = world.read_snapshot()?; // every slot, removed ones included (pos.w = 0)
//! let rod = (s.pos[bob.index() as usize] - s.pos[top.index() as usize]).truncate().length();
//! assert!((rod - 1.0).abs() < 1e-3);
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## Rigid bodies: [`RigidWorld`](crate::rigid::RigidWorld)
//!
//! For objects that turn as well as move: crates, balls, stacks, ragdolls, doors on hinges. A
//! body ([`RigidBody`](crate::rigid::RigidBody): dynamic, fixed or
//! kinematic) carries one or more colliders ([`rigid::Collider`](crate::rigid::Collider):
//! sphere, box, capsule, and for fixed bodies half-spaces and planes), each with its friction,
//! restitution, rolling resistance and collision groups. The world finds the contacts, solves
//! them with friction in a soft, substepped solver (Box2D v3's), puts resting bodies to sleep,
//! sweeps fast spheres that ask for it ([`RigidBody::ccd`](crate::rigid::RigidBody::ccd)) so
//! they do not tunnel, and offers:
//!
//! - joints: ball, hinge, fixed, slider and distance joints with limits, motors, springs and
//!   breaking ([`ch8_joints`](super::ch8_joints));
//! - fracture: [`RigidBody::breakable`](crate::rigid::RigidBody::breakable) boxes split into 8
//!   when struck hard enough;
//! - ray casts ([`RigidWorld::cast_ray`](crate::rigid::RigidWorld::cast_ray)), forces and
//!   torques for the next step, the book's three-phase explosion
//!   ([`RigidWorld::set_explosion`](crate::rigid::RigidWorld::set_explosion)).
//!
//! ```
//! use glam::Vec3;
//! use wgphys::Backend;
//! use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
//!
//! let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?;
//! world.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])?;
//! let ball = world.add_body(
//!     RigidBody::dynamic().position(Vec3::new(0.0, 1.0, 0.0)).mass(2.0),
//!     &[Collider::sphere(0.25)],
//! )?;
//! for _ in 0..60 {
//!     world.step(1.0 / 60.0)?;
//! }
//! let b = world.body(ball)?; // position, rotation, velocities, mass, awake
//! assert!((b.position.y - 0.25).abs() < 0.01); // resting on the ground
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## Which one
//!
//! - Many points that only need to look right and never touch each other: particles (a
//!   million of them under gravity, drag and colliders take 0.05 ms a step on an H100; README,
//!   Benchmarks).
//! - Points tied together, or grains that pile up: an aggregate.
//! - Anything whose orientation matters, that stacks, rolls or hangs on joints: rigid bodies.
//!
//! A game usually has one of each it needs: a rigid world for the props, a particle world for
//! sparks and smoke, an aggregate for a rope bridge. Each world runs the same stages on either backend
//! ([`ch2_backends`](super::ch2_backends)).
