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
//! - [`rigid`] (ch. 10–16): rigid bodies with spheres, boxes, capsules and planes, a GPU broad
//!   phase, SAT box–box contacts, a coloured per-contact impulse solver with friction, warm
//!   starting and substeps, sleeping, continuous collision for fast spheres, and ray casts.
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
pub mod colliders;
pub mod effect;
pub mod error;
pub mod fields;
pub mod gameplay;
pub mod gpu;
pub mod grid;
pub mod guide;
pub mod noise;
pub mod particles;
pub mod rigid;
pub mod rng;
pub mod rounding;
pub mod scenes;
pub mod shaders;

pub use backend::Backend;
pub use error::{Error, Result};
pub use particles::fireworks;
pub use rounding::CpuRounding;

/// The README's Rust examples, compiled as doctests so the README stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
