//! # 6. Capacities, reports and growth
//!
//! A GPU world works in buffers of a fixed size: kernels cannot allocate. So every world has
//! capacities, and the question is what happens when something does not fit. The engine's rule:
//! nothing is dropped without being counted. Where the host can tell at once, the call fails
//! with an error and changes nothing; where only the device can tell (a step whose firework
//! burst needs more slots than are free), the step does what fits, counts the rest, and the
//! report says so and names the knob to turn. With `auto_grow`, the world then grows so the
//! next steps fit.
//!
//! ## The particle pool
//!
//! [`WorldConfig::capacity`](crate::particles::WorldConfig::capacity) slots (default 65,536).
//! The host counts the particles it knows of (live handles and queued spawns and launches):
//!
//! - [`spawn`](crate::particles::ParticleWorld::spawn) into a pool that count says is full is
//!   [`Error::Full`](crate::Error::Full), unless
//!   [`auto_grow`](crate::particles::WorldConfig::auto_grow) is on (it is off by default), in
//!   which case the pool doubles first;
//! - more spawns queued for one step than the capacity is
//!   [`Error::SpawnQueueFull`](crate::Error::SpawnQueueFull): step to flush them.
//!
//! Particles the host does not count, firework payloads, sub-emitter children and emitted
//! particles, can still fill the pool. Each step gives its free slots first to the host's
//! queue (in the order queued), then to firework and sub-emitter children, then to the
//! emitters; what does not fit is refused and counted in the pool's
//! [`Status`](crate::particles::Status): `dropped_total` (since the world was made),
//! `host_dropped_total` (of those, the host's spawns, whose handles then end and are listed by
//! [`refused_spawns`](crate::particles::ParticleWorld::refused_spawns)) and
//! `wanted_capacity` (the largest live count wanted when room ran out).
//! [`Status::advice`](crate::particles::Status::advice) turns that into a sentence. With
//! `auto_grow` the world grows when a status shows new refusals, to at least `wanted_capacity`
//! and twice the capacity (a power of two, at most what the device holds), and the report's
//! [`grew_to`](crate::particles::ParticleStepReport::grew_to) says so. The particles refused before the
//! growth stay refused: growth is for the steps after.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::{Backend, Error};
//! use wgphys::particles::{Emitter, Particle, ParticleWorld, WorldConfig};
//!
//! let config = WorldConfig { capacity: 8, ..WorldConfig::default() };
//! let mut world = ParticleWorld::new(Backend::Cpu, config.clone())?;
//! for i in 0..8 {
//!     world.spawn(Particle::new(Vec3::new(i as f32, 0.0, 0.0)))?;
//! }
//! // Nine spawns queued for one step would not fit in 8 slots whatever happened:
//! let ninth = world.spawn(Particle::new(Vec3::ZERO));
//! assert!(matches!(ninth, Err(Error::SpawnQueueFull { .. })));
//! world.step(1.0 / 60.0)?;
//! // Now the 8 are in the pool, and the host knows it is full:
//! let ninth = world.spawn(Particle::new(Vec3::ZERO));
//! assert!(matches!(ninth, Err(Error::Full { .. }))); // nothing changed
//!
//! // An emitter's particles are not counted by the host: the step refuses and counts them.
//! world.add_emitter(Emitter { rate: 600.0, ..Emitter::default() })?; // 10 a step
//! let report = world.step(1.0 / 60.0)?;
//! let status = report.status.expect("the CPU knows its status after every step");
//! assert_eq!((status.live, status.dropped_total), (8, 10));
//! assert!(status.advice().expect("overflowed").contains("WorldConfig::capacity"));
//!
//! // The same with auto_grow: the pool grows after the step that overflowed.
//! let mut world = ParticleWorld::new(Backend::Cpu, WorldConfig { auto_grow: true, ..config })?;
//! world.add_emitter(Emitter { rate: 600.0, ..Emitter::default() })?;
//! let report = world.step(1.0 / 60.0)?;
//! assert_eq!(report.grew_to, Some(16));
//! assert_eq!(world.capacity(), 16);
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! Fixed tables have their own limits, each an error when exceeded (they live in uniform
//! blocks on the GPU): 16 force fields, shared with the emitters' local fields
//! ([`Error::TooManyFields`](crate::Error::TooManyFields)); 256 static colliders, 64 emitters
//! (a removed emitter holds its slot until its particles have died), 128 firework rules and
//! 1024 payload entries ([`Error::TooMany`](crate::Error::TooMany)); 64 trail positions and 8
//! curve keys ([`Error::InvalidInput`](crate::Error::InvalidInput)). A capacity whose buffers
//! the device cannot hold is [`Error::CapacityTooLarge`](crate::Error::CapacityTooLarge),
//! naming the largest that fits.
//!
//! ## The aggregate world
//!
//! [`AggregateConfig::capacity`](crate::aggregate::AggregateConfig::capacity) slots (default
//! 4096), fixed for the world's life. Adding past it is [`Error::Full`](crate::Error::Full)
//! ([`add_particles`](crate::aggregate::AggregateWorld::add_particles) checks the whole batch
//! first and adds none). A removed particle's slot is reused by a later add, so size the
//! capacity for the most particles the world holds at once. A step has nothing to overflow.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::{Backend, Error};
//! use wgphys::aggregate::{AggregateConfig, AggregateWorld};
//! use wgphys::particles::Particle;
//!
//! let config = AggregateConfig { capacity: 2, ..AggregateConfig::default() };
//! let mut world = AggregateWorld::new(Backend::Cpu, config)?;
//! let a = world.add_particle(Particle::new(Vec3::ZERO))?;
//! world.add_particle(Particle::new(Vec3::X))?;
//! assert!(matches!(world.add_particle(Particle::new(Vec3::Y)), Err(Error::Full { .. })));
//! world.remove_particle(a)?;
//! assert_eq!((world.len(), world.slots()), (1, 2)); // live particles; slots in use
//! let b = world.add_particle(Particle::new(Vec3::Y))?; // into the removed slot
//! assert_eq!((b.index(), b.generation()), (a.index(), a.generation() + 1));
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## The rigid world
//!
//! [`RigidConfig`](crate::rigid::RigidConfig) sizes four kinds of slot, and
//! [`auto_grow`](crate::rigid::RigidConfig::auto_grow) is **on** by default:
//!
//! | slots | default | when full |
//! |---|---|---|
//! | bodies, `body_capacity` | 1024 | `add_body` grows them (a power of two), or is [`Error::Full`](crate::Error::Full) without `auto_grow` |
//! | shapes, `shape_capacity` | 0: twice the bodies | as bodies |
//! | joints, `joint_capacity` | 0: none until the first joint | `add_joint` grows them (at least 16), or [`Error::Full`](crate::Error::Full) |
//! | pairs, `pair_capacity` | 0: eight per shape | the step keeps what fits and reports the rest |
//!
//! Growing rebuilds the world's GPU buffers at the new size and copies the state across on the
//! device; a renderer bound to the old buffers must bind the new ones
//! ([`ch3_drawing`](super::ch3_drawing)).
//!
//! The pair slots hold the shape pairs the broad phase finds each step. Only the device knows
//! how many there are, so an overflow is reported, not refused: the
//! [`RigidStepReport`](crate::rigid::RigidStepReport) has `pairs` (kept) and `pairs_wanted` (found), the
//! pairs beyond the capacity are missing from that step only (they are found again the next),
//! and [`RigidStepReport::advice`](crate::rigid::RigidStepReport::advice) names
//! `RigidConfig::pair_capacity`. With `auto_grow` the world grows the pair slots from every
//! report that shows an overflow, to half again what was wanted (within what the device binds,
//! [`max_pairs`](crate::rigid::RigidWorld::max_pairs)), so a scene that piles up loses pairs for
//! a frame or two at most; [`grow_pairs`](crate::rigid::RigidWorld::grow_pairs) grows them
//! ahead of time. The same reports say when the solver's single-workgroup tail held too many
//! contacts (`tail`; `auto_grow` adds a dispatch per colour for the next steps), when a
//! software adapter's loop limit cut the broad phase short (`broad_truncated`) and when a
//! colouring kernel was cut short (`unsolved`); `advice` covers the last two as well.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::{Backend, Error};
//! use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
//!
//! let config = RigidConfig { body_capacity: 2, auto_grow: false, ..RigidConfig::default() };
//! let mut world = RigidWorld::new(Backend::Cpu, config)?;
//! let ball = || (RigidBody::dynamic(), [Collider::sphere(0.5)]);
//! for _ in 0..2 {
//!     let (body, colliders) = ball();
//!     world.add_body(body, &colliders)?;
//! }
//! let (body, colliders) = ball();
//! let third = world.add_body(body, &colliders);
//! assert!(matches!(third, Err(Error::Full { .. })));
//! assert_eq!(world.len(), 2); // unchanged
//!
//! // Eight balls in one spot make 28 pairs; a world with 4 pair slots keeps 4 and says so.
//! let config = RigidConfig { pair_capacity: 4, auto_grow: false, ..RigidConfig::default() };
//! let mut world = RigidWorld::new(Backend::Cpu, config)?;
//! for i in 0..8 {
//!     let (body, colliders) = ball();
//!     world.add_body(body.position(Vec3::new(0.0, 0.1 * i as f32, 0.0)), &colliders)?;
//! }
//! let report = world.step(1.0 / 60.0)?;
//! assert_eq!((report.pairs, report.pairs_wanted), (4, 28));
//! assert!(report.advice().expect("overflowed").contains("pair_capacity"));
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## What is never dropped silently
//!
//! - Particles: every refused spawn, host or device, is counted in the
//!   [`Status`](crate::particles::Status); every ended host handle is listed once
//!   ([`refused_spawns`](crate::particles::ParticleWorld::refused_spawns),
//!   [`killed_by_bounds`](crate::particles::ParticleWorld::killed_by_bounds)).
//! - Rigid pairs: every pair found beyond the capacity is counted in `pairs_wanted`.
//! - Reports: the status ring grows rather than skip a step's counters, so `auto_grow` and
//!   the event lists see every step, however many steps you keep in flight.
//! - Broken joints and fractures: each is handed out once, also when a step has more than its
//!   counters list (64 joints, 16 fractures): then the world reads the table for the rest.
//! - Fracture pieces that do not fit (a full world without `auto_grow`): the block stays whole
//!   and struck, the call that took in the report returns [`Error::Full`](crate::Error::Full),
//!   and the block splits once there is room. Note that this error comes from `step`,
//!   `encode_step` or `poll_reports` *after* the step was taken: unlike other errors, it does
//!   not mean the world is unchanged.
//! - Lost devices and validation errors: [`Error::Gpu`](crate::Error::Gpu) from the next call.
