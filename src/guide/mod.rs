//! # A guide to wgphys
//!
//! This module holds no code: it is the crate's user guide, one chapter per submodule, for a
//! Rust programmer new to the engine. The reference documentation of each type is where it
//! lives ([`crate::particles`], [`crate::aggregate`], [`crate::rigid`], [`crate::gpu`]); the
//! chapters say how the pieces fit, what to choose, and why. Every Rust example in them is a
//! doctest: those on [`crate::Backend::Cpu`] run in `cargo test --doc`, those that need a GPU
//! are compiled but not run.
//!
//! 1. [`ch1_worlds`]: the three worlds ([`crate::particles::ParticleWorld`],
//!    [`crate::aggregate::AggregateWorld`], [`crate::rigid::RigidWorld`]) and when to use each.
//! 2. [`ch2_backends`]: choosing [`crate::Backend::Cpu`] or [`crate::Backend::Gpu`], making a
//!    [`crate::gpu::GpuContext`] or wrapping your renderer's device, software adapters.
//! 3. [`ch3_drawing`]: drawing from the engine's buffers in your own render pass, with no
//!    readback.
//! 4. [`ch4_encoding`]: recording steps into your own command encoder, and what the returned
//!    report describes.
//! 5. [`ch5_reading`]: reading results without stalling the GPU; which calls block and when that
//!    is fine; broken joints and fractures.
//! 6. [`ch6_capacity`]: capacities, growth, reports and advice; what is never dropped silently.
//! 7. [`ch7_determinism`]: bit-identical reruns, the CPU twin, [`crate::CpuRounding`], golden
//!    hashes and what the GPU-against-CPU tests check.
//! 8. [`ch8_joints`]: joints and fracture: kinds, placement, stiffness and stretch, breaking,
//!    the collision filter.
//! 9. [`ch9_from_rapier`]: the conventions a rapier user trips over.
//! 10. [`ch10_saving`]: saving and loading worlds (the `serde` feature): what a save holds, the
//!     two formats, handles after a load, bad files.
//! 11. [`ch11_levels`]: levels: triangle meshes and heightfields, one or two sides, seams,
//!     fast bodies and queries against them, and what they cost.
//!
//! Conventions used throughout: SI units (metres, seconds, kilograms, newtons), y up (every
//! default gravity is (0, −9.81, 0)), `glam` vectors, quaternions stored as (x, y, z, w), and
//! every fallible call returning [`crate::Result`], whose [`crate::Error`] says what was wrong
//! and how to fix it and leaves the world as it was (the exceptions are named where they
//! matter).

pub mod ch10_saving;
pub mod ch11_levels;
pub mod ch1_worlds;
pub mod ch2_backends;
pub mod ch3_drawing;
pub mod ch4_encoding;
pub mod ch5_reading;
pub mod ch6_capacity;
pub mod ch7_determinism;
pub mod ch8_joints;
pub mod ch9_from_rapier;
