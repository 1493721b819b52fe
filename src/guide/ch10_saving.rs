//! # 10. Saving and loading worlds
//!
//! With the `serde` feature every world saves its whole state and loads it back:
//! `RigidWorld::save` / `RigidWorld::load`, and their siblings on
//! [`ParticleWorld`](crate::particles::ParticleWorld) and
//! [`AggregateWorld`](crate::aggregate::AggregateWorld) (the module `wgphys::save` holds the
//! formats; these items exist, and their docs show, with the feature on). A save is what a game checkpoints, what
//! a bug report attaches, and where a replay starts.
//!
//! ```toml
//! wgphys = { version = "0.1", features = ["serde"] }
//! ```
//!
//! ## What a save holds
//!
//! Everything a step reads that earlier calls or steps wrote: the bodies, colliders, joints and
//! force generators (particles, emitters, links) with their free slots and generations, the
//! capacities as they have grown, the step count, and what carries from one step to the next
//! (the last step's contacts with their warm-start impulses, random counters, emitter clocks).
//! It does not hold settings of the process rather than the world: the GPU device, timing, the
//! body-tracking ring of [`set_body_tracking`](crate::rigid::RigidWorld::set_body_tracking).
//!
//! On the GPU, `save` waits for the device, lets the reports in flight land (a joint that broke,
//! a block that shattered, a buffer that must grow) and reads the state back: it blocks, as a
//! checkpoint may. A loaded world continues **bit-identically** on the backend and adapter it
//! was saved from, and within the GPU/CPU parity bound ([chapter 7](super::ch7_determinism)) on
//! the other: a save of the GPU loads on [`Backend::Cpu`](crate::Backend::Cpu) for a test or a
//! server.
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! use wgphys::prelude::*;
//! use wgphys::save::SaveFormat;
//! let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?;
//! let ball = world.add_body(
//!     RigidBody::dynamic().position(Vec3::new(0.0, 3.0, 0.0)),
//!     &[Collider::sphere(0.5)],
//! )?;
//! for _ in 0..30 {
//!     world.step(1.0 / 60.0)?;
//! }
//! let checkpoint = world.save(SaveFormat::Binary)?;
//! let mut replay = RigidWorld::load(Backend::Cpu, &checkpoint)?;
//! // The loaded world's handles are its own; the slots and generations are the saved ones.
//! let again = replay.body_handle_at(ball.index()).expect("the ball's slot");
//! for _ in 0..30 {
//!     world.step(1.0 / 60.0)?;
//!     replay.step(1.0 / 60.0)?;
//! }
//! assert_eq!(world.body(ball)?.position, replay.body(again)?.position);
//! # }
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## Two formats
//!
//! `SaveFormat::Binary` is compact and fast (about 0.9 kB a
//! resting box with its contacts). `SaveFormat::Text` starts
//! with a line `wgphys-save 2 rigid` and then holds the same state as RON, to read, diff or edit;
//! its numbers are written in the shortest form that reads back to the same bits, so a text save
//! loads to exactly the state a binary one does. `load` tells the two apart by their first bytes.
//!
//! ## Handles
//!
//! A handle names a slot, its generation and the world that issued it. A loaded world is
//! another world: the saved world's handles are not its handles (they are refused as stale, as
//! another world's are). The slots, ids and generations are kept, so each world finds the
//! loaded handle of a saved one: [`RigidWorld::body_handle_at`](crate::rigid::RigidWorld::body_handle_at)
//! with the saved handle's [`index`](crate::rigid::BodyHandle::index),
//! [`ParticleWorld::particle_handle`](crate::particles::ParticleWorld::particle_handle) and
//! [`emitter_handle`](crate::particles::ParticleWorld::emitter_handle) with a saved id. The
//! aggregate world's ids are plain slots and stay valid in the loaded world. Serialising a
//! rigid handle (with the feature) writes its slot and generation only.
//!
//! The GPU worlds save between steps: submit the encoders that hold `encode_step` calls before
//! calling `save`. Not saved: a particle world's depth collider (a texture of your renderer:
//! set it again after loading), timing, and the body-tracking and snapshot settings.
//!
//! ## Bad files
//!
//! A file from a newer version of the format, one for another kind of world, a truncated or
//! corrupt file, or one holding a value a world refuses (a NaN, a shape naming a body that does
//! not exist) is an [`Error::Load`](crate::Error::Load) naming the field (`header.version`,
//! `bodies[3]`, `shapes.body[0]`). The state is checked before any world is built, so a refused
//! file leaves nothing behind, and no bytes make `load` panic (the tests flip random bits in
//! saves thousands of times).
