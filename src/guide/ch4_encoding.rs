//! # 4. Recording steps into your own encoder
//!
//! `step(dt)` records a step into an encoder of the world's own and submits it. A renderer
//! usually wants one submission per frame holding the physics and the passes that draw it, and
//! a fixed-step loop that falls behind wants several steps in that submission. Each world has
//! `encode_step(dt, &mut encoder)` for that:
//!
//! - [`ParticleWorld::encode_step`](crate::particles::ParticleWorld::encode_step) returns a
//!   [`particles::ParticleStepReport`](crate::particles::ParticleStepReport);
//! - [`AggregateWorld::encode_step`](crate::aggregate::AggregateWorld::encode_step) returns
//!   an [`AggregateStepReport`](crate::aggregate::AggregateStepReport);
//! - [`RigidWorld::encode_step`](crate::rigid::RigidWorld::encode_step) returns a
//!   [`rigid::RigidStepReport`](crate::rigid::RigidStepReport).
//!
//! On the CPU backend, `encode_step` runs the step at once, exactly as `step` does, and leaves
//! the encoder alone; it returns the same report. (So a program that records its steps runs
//! unchanged on the CPU.)
//!
//! What a recorded step does, and why you can rely on it:
//!
//! - The step's parameters and every edit made before it (spawns, removals, launches, bodies
//!   added, removed or pushed, joints changed) are recorded into your encoder as buffer copies
//!   ahead of the step's passes, not written through the queue. So any number of steps, with
//!   edits between them, may go into one encoder, and they give the state the same `step()`
//!   calls give (`tests/steps_per_encoder.rs` and `tests/interop.rs` hold that to the bit).
//! - The world counts the step when it is recorded: its step count moves on, the spawn queue
//!   is empty, the next edit belongs to the next step. Submit every encoder you record steps
//!   into, in the order you recorded them; the device runs nothing until you do.
//! - A step copies its counters into the world's status ring in the same encoder (every rigid
//!   step; a particle step every
//!   [`status_interval`](crate::particles::WorldConfig::status_interval) steps, and whenever
//!   it carries host spawns). The copy is mapped when your submission completes, and a later
//!   call takes it in without waiting ([`ch5_reading`](super::ch5_reading)). When all of the
//!   ring's slots are still in flight the ring grows by one rather than skip a step's report,
//!   so it settles at the number of steps you keep in flight.
//! - A render pass recorded after the steps in the same encoder reads what they wrote
//!   ([`ch3_drawing`](super::ch3_drawing)).
//!
//! ```no_run
//! use glam::Vec3;
//! use wgphys::Backend;
//! use wgphys::gpu::GpuContext;
//! use wgphys::particles::{ParticleWorld, WorldConfig};
//! use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
//!
//! const DT: f32 = 1.0 / 60.0;
//! let ctx = GpuContext::new()?;
//! let mut sparks = ParticleWorld::new(Backend::Gpu(ctx.clone()), WorldConfig::default())?;
//! let mut props = RigidWorld::new(Backend::Gpu(ctx.clone()), RigidConfig::default())?;
//! props.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])?;
//!
//! let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
//!     label: Some("frame"),
//! });
//! let steps_due = 2; // a fixed-step loop catching up
//! for _ in 0..steps_due {
//!     sparks.launch(1)?; // an edit between steps is recorded in order
//!     let particles = sparks.encode_step(DT, &mut encoder)?;
//!     let rigid = props.encode_step(DT, &mut encoder)?;
//!     if let Some(advice) = particles.status.and_then(|s| s.advice()) {
//!         eprintln!("{advice}");
//!     }
//!     if let Some(advice) = rigid.advice() {
//!         eprintln!("{advice}");
//!     }
//! }
//! // ... record the render passes that draw `sparks` and `props` here ...
//! ctx.queue.submit([encoder.finish()]);
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## What the returned report describes
//!
//! A GPU step's counters (how many particles live, how many pairs the broad phase found, which
//! joints broke) are only known on the device when the host records the step. The report an
//! `encode_step` or `step` returns is therefore the newest one that has come back, a frame or
//! two old, and the two report types say which step they describe in different ways:
//!
//! - [`particles::ParticleStepReport`](crate::particles::ParticleStepReport): `step` counts the steps taken,
//!   this one included; `status` is the newest pool
//!   [`Status`](crate::particles::Status) known, and *its* `step` is the step it describes
//!   (`None` until the first one lands; how often steps copy their counters is
//!   [`status_interval`](crate::particles::WorldConfig::status_interval), and a step with host
//!   spawns always does).
//!   `refused_spawns` and `killed_by_bounds` count the host handles found dead during this
//!   call, from whichever steps' counters landed; `grew_to` is set when `auto_grow` grew the
//!   pool during this call.
//! - [`rigid::RigidStepReport`](crate::rigid::RigidStepReport): every field describes one step, the one
//!   named by its `step` field (0 before the first report lands). Every step's report is taken
//!   in, none skipped: `auto_grow` acts on each of them even though only the newest is
//!   returned, and broken joints and fractures are collected from each
//!   ([`ch5_reading`](super::ch5_reading)).
//!
//! On the CPU both describe the step just taken. On the GPU, read a report as news about the
//! recent past: good for counters on screen, for advice in a log, for growing a buffer before
//! it overflows again. For a decision that must be made about this very step, read the state
//! (blocking) or use the CPU backend.
//!
//! ## When not to encode
//!
//! `step()` is simpler and, for the rigid world on a hardware adapter, submits the step in
//! parts as it records it, so the GPU starts on the broad phase while the host records the
//! solver ([`RigidWorld::set_submit_by_phase`](crate::rigid::RigidWorld::set_submit_by_phase));
//! a step recorded into your encoder goes whole. Use `encode_step` when the physics must share
//! a submission with your passes, or when you step several times per frame.
