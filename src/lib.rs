//! # wgphys
//!
//! A physics engine whose simulation runs in WGSL compute shaders through wgpu, with a CPU
//! reference path that runs the same stages in the same order.
//!
//! This release holds three engines of Millington's *Game Physics Engine Development*:
//!
//! - [`particles`] (ch. 3–4): a particle pool with force fields, static colliders, lifetimes and
//!   removal by handle, and the book's fireworks with payloads spawned on the GPU. Live particles
//!   stay packed in the front of public buffers that a renderer draws with `draw_indirect`, so no
//!   frame needs a readback.
//! - [`aggregate`] (ch. 5–8): particles joined by springs, cables and rods, colliding with each
//!   other on a GPU uniform grid.
//! - [`rigid`] (ch. 10–17): rigid bodies with spheres, boxes, capsules and planes, a GPU broad
//!   phase, SAT box–box contacts, a coloured impulse solver of contacts and joints (ball, hinge,
//!   fixed, slider, distance; limits, motors, springs, breaking) with friction, rolling, warm
//!   starting and substeps, sleeping, fracture, continuous collision for fast spheres, and ray
//!   casts.
//!
//! ## One shape for the three worlds
//!
//! Every world is built with `new(backend, config)`, advanced with `step(dt)`, and records a
//! step into a caller's encoder with `encode_step(dt, &mut encoder)`; both return the world's
//! report ([`particles::ParticleStepReport`], [`aggregate::AggregateStepReport`],
//! [`rigid::RigidStepReport`], each `#[non_exhaustive]`). On the CPU backend, `encode_step` runs the
//! step at once, exactly as `step` does, and leaves the encoder alone; it returns the same
//! report. Objects are named by handles carrying their slot, the slot's generation and their
//! world ([`rigid::BodyHandle`], [`rigid::ColliderHandle`], [`rigid::JointHandle`],
//! [`aggregate::ParticleId`], [`aggregate::LinkId`],
//! [`aggregate::GeneratorId`]; the particle world's [`particles::ParticleHandle`] is an id
//! never reused): a removed object's handle, or another world's, is
//! [`Error::StaleHandle`] naming the kind of handle, and changes nothing. `len()` is the live
//! objects of the rigid and aggregate worlds (`slots()` the slots in use, removed ones
//! included); the particle world's live count is in its status
//! ([`particles::Status::live`]), known on the GPU a frame late. `buffers_generation()` counts
//! the times a buffer `render_buffers()` hands out was replaced, on every world.
//!
//! The defaults that differ between the worlds, and why (none is changed by making the worlds
//! alike, since each would change every result built on it):
//!
//! | default | particles | aggregate | rigid | why |
//! |---|---|---|---|---|
//! | capacity | 65,536 particles | 4,096 slots | 1,024 bodies | effects spawn many short-lived points; a structure's particles are placed once; bodies cost the most per slot |
//! | grows when full | no (`auto_grow: false`) | never (no growth) | yes (`auto_grow: true`) | a full effect drops spawns (a status says how many) rather than stall a frame; an aggregate's slots are placed by the program; a body added to a full rigid world must not be lost |
//! | damping (fraction of velocity kept per second) | 1 (none) | 1 (none) | 0.99 linear and angular | points under fields follow their closed forms exactly; a stack of bodies needs a little damping to come to rest |
//! | gravity | none (add a field) | none (add a field) | (0, −9.81, 0) in the configuration | particles and aggregates take any mix of force fields; bodies nearly always fall |
//! | status read back | every step (`status_interval: 1`) | nothing to read: the report is the host's | every step | |
//!
//! [`prelude`] brings in what most programs use; the crate re-exports the [`glam`] and [`wgpu`]
//! it is built on, so a program uses the same versions (`wgphys::glam::Vec3`).
//!
//! ```no_run
//! use wgphys::Backend;
//! use wgphys::particles::{ParticleWorld, WorldConfig};
//! let ctx = wgphys::gpu::GpuContext::new()?;
//! let mut world = ParticleWorld::new(Backend::Gpu(ctx), WorldConfig::default())?;
//! world.launch(1)?;
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0)?;
//! }
//! # Ok::<(), wgphys::Error>(())
//! ```
#![warn(missing_docs)]

pub mod aggregate;
pub mod backend;
#[doc(hidden)]
pub mod colliders;
pub mod effect;
pub mod error;
#[doc(hidden)]
pub mod fields;
pub mod gameplay;
pub mod gpu;
#[doc(hidden)]
pub mod grid;
pub mod guide;
#[doc(hidden)]
pub mod noise;
pub mod particles;
pub mod rigid;
#[doc(hidden)]
pub mod rng;
#[doc(hidden)]
pub mod rounding;
#[cfg(feature = "serde")]
pub mod save;
pub mod scenes;
#[doc(hidden)]
pub mod shaders;

pub use backend::Backend;
pub use error::{Error, Result};
/// The math types of the API (`Vec3`, `Quat`, ...), the version wgphys is built on.
pub use glam;
/// The GPU API wgphys is built on, the version its buffers and encoders come from.
pub use wgpu;

/// What most programs use: the worlds, their configurations and descriptions, handles and
/// reports, the backend and the error type, and glam's vector and quaternion types.
///
/// ```
/// use wgphys::prelude::*;
/// let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?;
/// let ball = world.add_body(
///     RigidBody::dynamic().position(Vec3::new(0.0, 2.0, 0.0)),
///     &[Collider::sphere(0.5)],
/// )?;
/// world.step(1.0 / 60.0)?;
/// assert!(world.body(ball)?.position.y < 2.0);
/// # Ok::<(), wgphys::Error>(())
/// ```
pub mod prelude {
    pub use crate::aggregate::{
        AggregateConfig, AggregateStepReport, AggregateWorld, ForceGenerator, GeneratorId, Link,
        LinkId, ParticleId,
    };
    pub use crate::gpu::GpuContext;
    pub use crate::particles::{
        Burst, EmitShape, EmitVelocity, Emitter, EmitterHandle, ForceField, Particle,
        ParticleCollider, ParticleHandle, ParticleStepReport, ParticleWorld, WorldConfig,
    };
    pub use crate::rigid::{
        Body, BodyHandle, BodyKind, BodySnapshot, Collider, ColliderHandle, ContactEvent, Joint,
        JointHandle, QueryFilter, QueryHit, Ray, RigidBody, RigidConfig, RigidStepReport,
        RigidWorld, Shape, ShapeCastHit,
    };
    pub use crate::{Backend, CpuRounding, Error, Result};
    pub use glam::{Quat, Vec3, Vec4};
}
pub use particles::fireworks;
pub use rounding::CpuRounding;

/// The README's Rust examples, compiled as doctests so the README stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
