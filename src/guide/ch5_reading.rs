//! # 5. Reading results without stalls
//!
//! On the GPU a step is recorded and submitted; the device runs it later, while the host goes
//! on to the next frame. Anything the host reads from the device must wait for that work to
//! finish and come back: the host stalls until the GPU has caught up, and the GPU then idles
//! while the host records the next frame: the two take turns instead of working at once. The
//! engine is built so that a frame needs none: the renderer draws from the device's
//! buffers ([`ch3_drawing`](super::ch3_drawing)), and what the host must know comes back
//! asynchronously, a frame or two late.
//!
//! ## What comes back by itself
//!
//! A GPU step copies its counters into a ring of small mappable buffers, mapped when the step's
//! submission completes (every rigid step; particle steps as
//! [`status_interval`](crate::particles::WorldConfig::status_interval) says, and every step
//! with host spawns). The next `step`, `encode_step` or `poll_reports` call takes in every
//! copy that has landed, without waiting, in step order, and acts on each:
//!
//! | world | without blocking |
//! |---|---|
//! | particles | [`latest_status`](crate::particles::ParticleWorld::latest_status), [`poll_reports`](crate::particles::ParticleWorld::poll_reports), [`latest_snapshot`](crate::particles::ParticleWorld::latest_snapshot), [`poll_snapshot`](crate::particles::ParticleWorld::poll_snapshot) (copies of the live particles, when asked for), [`refused_spawns`](crate::particles::ParticleWorld::refused_spawns), [`killed_by_bounds`](crate::particles::ParticleWorld::killed_by_bounds), [`contains`](crate::particles::ParticleWorld::contains) |
//! | rigid | [`report`](crate::rigid::RigidWorld::report), [`poll_reports`](crate::rigid::RigidWorld::poll_reports), [`body`](crate::rigid::RigidWorld::body), [`latest_bodies`](crate::rigid::RigidWorld::latest_bodies), [`poll_bodies`](crate::rigid::RigidWorld::poll_bodies), [`take_broken_joints`](crate::rigid::RigidWorld::take_broken_joints), [`take_fractures`](crate::rigid::RigidWorld::take_fractures), [`shapes`](crate::rigid::RigidWorld::shapes), [`cast_ray`](crate::rigid::RigidWorld::cast_ray) (on the host's copy) |
//! | aggregate | [`latest_snapshot`](crate::aggregate::AggregateWorld::latest_snapshot), [`poll_snapshot`](crate::aggregate::AggregateWorld::poll_snapshot) (copies of the state, when asked for; a step has no counters the host needs) |
//!
//! [`ParticleWorld::contains`](crate::particles::ParticleWorld::contains) needs no readback
//! for the deaths the host can predict: it advances each handle's age with the same `f32` sums
//! as the device, so it knows the step a lifetime runs out in. Two deaths only the step can see
//! (a spawn refused for lack of room, a particle killed by the kill bounds) end a handle when
//! the step's counters land, and are listed by `refused_spawns` and `killed_by_bounds` for the
//! call that took them in. Both backends decide the same deaths; the CPU reports them at the
//! end of the step, the GPU a frame or two later.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::Backend;
//! use wgphys::particles::{KillBounds, Particle, ParticleWorld, WorldConfig};
//!
//! let mut world = ParticleWorld::new(
//!     Backend::Cpu,
//!     WorldConfig {
//!         kill_bounds: Some(KillBounds { min: Vec3::splat(-1.0), max: Vec3::splat(1.0) }),
//!         ..WorldConfig::default()
//!     },
//! )?;
//! let fast = world.spawn(Particle::new(Vec3::ZERO).with_velocity(Vec3::X * 100.0))?;
//! let short = world.spawn(Particle::new(Vec3::ZERO).with_lifetime(0.04))?;
//! let report = world.step(1.0 / 60.0)?; // joins the pool at the end of this step
//! assert_eq!(report.killed_by_bounds, 0);
//! let report = world.step(1.0 / 60.0)?; // `fast` leaves the box
//! assert_eq!(report.killed_by_bounds, 1);
//! assert_eq!(world.killed_by_bounds(), &[fast][..]);
//! world.step(1.0 / 60.0)?;
//! let report = world.step(1.0 / 60.0)?; // `short` has lived 0.05 s of its 0.04
//! assert!(!world.contains(short)); // known without a readback
//! assert!(!world.contains(fast));
//! assert_eq!(report.status.map(|s| s.live), Some(0));
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! On the GPU the same program learns of `fast` a frame or two later. To know every step's
//! outcome at a point of your choosing (a test, the end of a level), wait for the device and
//! poll: after [`ParticleWorld::wait`](crate::particles::ParticleWorld::wait) and
//! [`poll_reports`](crate::particles::ParticleWorld::poll_reports), `contains` answers for
//! every step taken, as the CPU's does after each step. The rigid world's
//! [`RigidWorld::wait`](crate::rigid::RigidWorld::wait) does the same: after it,
//! [`RigidWorld::poll_reports`](crate::rigid::RigidWorld::poll_reports) returns the newest
//! report.
//!
//! ```no_run
//! use wgphys::Backend;
//! use wgphys::gpu::GpuContext;
//! use wgphys::rigid::{RigidConfig, RigidWorld};
//!
//! let ctx = GpuContext::new()?;
//! let mut world = RigidWorld::new(Backend::Gpu(ctx.clone()), RigidConfig::default())?;
//! for _ in 0..10 {
//!     world.step(1.0 / 60.0)?; // each returns the newest report that has landed
//! }
//! ctx.wait()?; // blocks: for tests and tools, not every frame
//! let report = world.poll_reports()?;
//! assert_eq!(report.step, 10);
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## Bodies, a frame or two late
//!
//! The bodies come back the same way when asked for: with
//! [`set_body_tracking(true)`](crate::rigid::RigidWorld::set_body_tracking) every step, and
//! after [`request_bodies`](crate::rigid::RigidWorld::request_bodies) the next one, records a
//! copy of the bodies buffer after its passes, into the encoder that holds the step (the
//! world's own, or yours with `encode_step`), into a ring of mappable buffers mapped when that
//! encoder is submitted. No step waits for a copy: when every buffer of the ring is still in
//! flight the ring grows by one. [`latest_bodies`](crate::rigid::RigidWorld::latest_bodies)
//! returns the newest copy that has landed as a [`BodySnapshot`](crate::rigid::BodySnapshot):
//! the step it describes ([`step`](crate::rigid::BodySnapshot::step), a frame or two behind
//! [`steps`](crate::rigid::RigidWorld::steps)), each body typed as a
//! [`Body`](crate::rigid::Body) by handle ([`get`](crate::rigid::BodySnapshot::get)) and the
//! live bodies in slot order ([`iter`](crate::rigid::BodySnapshot::iter)).
//! [`body(h)`](crate::rigid::RigidWorld::body) reads one body from it, with `&self`.
//!
//! A snapshot knows which body each slot held when its copy was taken: a body removed before
//! the copy is not in it, and a body added later in the same slot is not reported under the
//! old handle. On the CPU backend the same calls answer with the state now, at the current
//! step, without being asked.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::Backend;
//! use wgphys::rigid::{BodyKind, Collider, RigidBody, RigidConfig, RigidWorld};
//!
//! let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?; // or the GPU
//! world.set_body_tracking(true); // a copy of the bodies at every step (GPU)
//! let ball = world.add_body(
//!     RigidBody::dynamic().position(Vec3::new(0.0, 5.0, 0.0)).mass(2.0),
//!     &[Collider::sphere(0.5)],
//! )?;
//! let crate_ = world.add_body(RigidBody::fixed(), &[Collider::cuboid(Vec3::ONE)])?;
//! for _ in 0..30 {
//!     world.step(1.0 / 60.0)?; // never waits for a copy
//!     let Some(bodies) = world.latest_bodies() else {
//!         continue; // the GPU's first copies are still in flight
//!     };
//!     assert!(bodies.step() <= world.steps());
//!     let b = bodies.get(ball).expect("the ball was live when the copy was taken");
//!     assert_eq!((b.kind, b.mass, b.awake), (BodyKind::Dynamic, 2.0, true));
//! }
//! assert_eq!(world.body(crate_)?.mass, 0.0); // a fixed body's infinite mass reads 0
//! world.remove_body(crate_)?;
//! world.step(1.0 / 60.0)?;
//! let bodies = world.latest_bodies().expect("the CPU answers at once");
//! assert!(bodies.get(crate_).is_none()); // removed before this copy
//! assert_eq!(bodies.iter().count(), 1);
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! The particle and aggregate worlds copy their state the same way:
//! `set_snapshot_tracking(true)` ([particles](crate::particles::ParticleWorld::set_snapshot_tracking),
//! [aggregate](crate::aggregate::AggregateWorld::set_snapshot_tracking)) or
//! `request_snapshot`, then `latest_snapshot` returns the newest copy that has landed with the
//! step it describes (the state now on the CPU). A particle copy takes every slot of the
//! capacity, since only the device knows how many are live when the copy is recorded; the
//! host keeps the live ones.
//!
//! ## Broken joints and fractures
//!
//! Events that change the world come back the same way, and each is handed out exactly once:
//!
//! - [`RigidWorld::take_broken_joints`](crate::rigid::RigidWorld::take_broken_joints) returns
//!   the joints that broke since the last call. A broken joint stops acting from the step it
//!   broke in, but stays in the world (`contains_joint` is true, `joint_feedback` gives the
//!   step it broke at) until you remove it. A step lists up to 64 broken joints in its
//!   counters; if one breaks more, the next call reads the joint table for the rest, which is
//!   why it returns a `Result`.
//! - [`RigidWorld::take_fractures`](crate::rigid::RigidWorld::take_fractures) returns the
//!   breakable blocks that split since the last call, with the handles of their 8 pieces. The
//!   split itself happens when the report of the step that struck the block is taken in (in
//!   `step`, `encode_step` or `poll_reports`): on the CPU right after that step, on the GPU a
//!   frame or two later, reading the block's state from the device first (one blocking read
//!   per split, paid only when something breaks). See [`ch8_joints`](super::ch8_joints).
//!
//! ```
//! use glam::Vec3;
//! use wgphys::Backend;
//! use wgphys::rigid::{Collider, Joint, RigidBody, RigidConfig, RigidWorld};
//!
//! let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?;
//! let weight = world.add_body(
//!     RigidBody::dynamic().position(Vec3::new(0.0, 1.0, 0.0)).mass(50.0),
//!     &[Collider::cuboid(Vec3::splat(0.2))],
//! )?;
//! // Holds up to 100 N; the weight pulls with 490 N.
//! let hook = world.add_joint(
//!     None,
//!     weight,
//!     Joint::ball(Vec3::new(0.0, 1.2, 0.0)).with_breaking(100.0, f32::INFINITY),
//! )?;
//! let report = world.step(1.0 / 60.0)?;
//! assert_eq!(report.joints_broken, 1);
//! assert_eq!(world.take_broken_joints()?, vec![hook]);
//! assert!(world.take_broken_joints()?.is_empty()); // handed out once
//! assert_eq!(world.joint_feedback(hook)?.broken_at, Some(1));
//! world.remove_joint(hook)?; // frees its slot
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## Contact events and queries
//!
//! [`set_contact_events(true)`](crate::rigid::RigidWorld::set_contact_events) adds the
//! `contact_events` stage: each step lists the pairs of shapes whose contact started or stopped
//! (sensors' overlaps among them) in its counters, so they come back with the report, without
//! a stall, and [`take_contact_events`](crate::rigid::RigidWorld::take_contact_events) hands
//! each out once with the bodies' handles. A GPU step lists 256; a step with more (a pile
//! landing) says how many it could not list in `RigidStepReport::contact_events_missed`.
//! Scene queries ([`cast_ray_filtered`](crate::rigid::RigidWorld::cast_ray_filtered),
//! `cast_ray_all`, `intersect_point`, `intersect_aabb`, and the shape cast
//! [`cast_shape`](crate::rigid::RigidWorld::cast_shape)) never block: they read the newest
//! bodies the host has, which with body tracking on is the copy that landed a frame or two ago,
//! through a host copy of the broad phase's grid over them.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::Backend;
//! use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
//!
//! let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?;
//! world.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])?;
//! // A trigger volume above the ground, and a ball dropped through it.
//! let trigger = world.add_body(
//!     RigidBody::fixed().position(Vec3::new(0.0, 2.0, 0.0)),
//!     &[Collider::cuboid(Vec3::splat(0.5)).sensor(true)],
//! )?;
//! world.add_body(
//!     RigidBody::dynamic().position(Vec3::new(0.0, 4.0, 0.0)),
//!     &[Collider::sphere(0.25)],
//! )?;
//! world.set_contact_events(true);
//! let mut entered = None;
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0)?;
//!     for e in world.take_contact_events() {
//!         if e.sensor && e.started && e.bodies.0 == Some(trigger) {
//!             entered.get_or_insert(e.step);
//!         }
//!     }
//! }
//! assert!(entered.is_some(), "the ball passed through the trigger");
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## The blocking reads, and when they are fine
//!
//! These submit whatever is queued, wait for the device and copy back (on the CPU they are
//! plain copies):
//!
//! | world | blocking on the GPU |
//! |---|---|
//! | particles | [`read_snapshot`](crate::particles::ParticleWorld::read_snapshot), [`read_status`](crate::particles::ParticleWorld::read_status), [`read_counters`](crate::particles::ParticleWorld::read_counters), [`read_trails`](crate::particles::ParticleWorld::read_trails), [`read_order`](crate::particles::ParticleWorld::read_order), [`read_emitter_bounds`](crate::particles::ParticleWorld::read_emitter_bounds), [`last_step_gpu_ms`](crate::particles::ParticleWorld::last_step_gpu_ms) |
//! | aggregate | [`read_snapshot`](crate::aggregate::AggregateWorld::read_snapshot), [`last_step_gpu_ms`](crate::aggregate::AggregateWorld::last_step_gpu_ms) |
//! | rigid | [`read_body`](crate::rigid::RigidWorld::read_body), [`read_snapshot`](crate::rigid::RigidWorld::read_snapshot), [`body_raw`](crate::rigid::RigidWorld::body_raw), [`read_bodies`](crate::rigid::RigidWorld::read_bodies), [`read_report`](crate::rigid::RigidWorld::read_report), [`read_manifolds`](crate::rigid::RigidWorld::read_manifolds), [`joint`](crate::rigid::RigidWorld::joint), [`joint_feedback`](crate::rigid::RigidWorld::joint_feedback), [`joint_state`](crate::rigid::RigidWorld::joint_state), [`read_joints`](crate::rigid::RigidWorld::read_joints), `last_step_*_ms` |
//!
//! They are the right tool where a stall costs nothing: tests, tools and benchmarks, loading
//! and saving, a debug overlay you turn on, and rare events (the player clicked a crate:
//! `read_body(h)` once). They are the wrong tool every frame for many objects: if game logic
//! needs the bodies on the host every frame, track them (above) and read
//! [`latest_bodies`](crate::rigid::RigidWorld::latest_bodies), or run that world on the CPU.
//! [`read_bodies`](crate::rigid::RigidWorld::read_bodies) is the raw form: every slot's
//! [`GpuBody`](crate::rigid::types::GpuBody) in slot order, removed slots as zeroed static
//! bodies; [`read_snapshot`](crate::rigid::RigidWorld::read_snapshot) is the typed one, which
//! leaves them out. Either also becomes the world's newest copy, so `body(h)` answers from it.
//!
//! Two host-side conveniences use the host's copy of the bodies and so see the GPU state only
//! as of your last blocking read: [`cast_ray`](crate::rigid::RigidWorld::cast_ray) and the pose that
//! [`add_force_at_point`](crate::rigid::RigidWorld::add_force_at_point) takes the lever arm
//! from. Call `read_bodies` first when the bodies have moved far since.
