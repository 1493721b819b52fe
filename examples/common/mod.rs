//! What every example uses: command-line parsing ([`Cli`]), the orbit camera ([`OrbitCamera`]),
//! the device, an offscreen target with a PNG writer ([`Offscreen`]), the render plumbing
//! (pipelines, uniforms, line vertices, uploads) and the loops that run an [`App`]: in a winit
//! window, or headless into a PNG ([`run_app`]).
//!
//! Each family of examples adds its own module, which an example declares beside this one
//! (`mod common;` and, say, `#[path = "common/rigid/mod.rs"] mod rigid;`), so a demo compiles
//! only what it draws with:
//!
//! - `particles/`: the sprite renderer of `ballistics` (additive sprites with an afterglow,
//!   drawn from the engine's render buffers), its `Demo` trait and `run`;
//! - `aggregate/`: shaded balls with depth, rods, cables and markers placed on the GPU from the
//!   engine's positions (`bridge`, `platform`, `blob`, `sand`);
//! - `rigid/`: every shape slot drawn by reading the engine's shapes and bodies in the vertex
//!   shader, with shadows (`pyramid`, `stacks`, `explosion`, `bigballistics`, `ragdoll`, `chain`);
//! - `fx/`: the HDR effects renderer of `fireworks` and `effects` (ribbons through the trails,
//!   soft and stretched sprites, sorted smoke, a lit scene, bloom).
//!
//! Pieces that only some examples use sit beside this file, and whoever uses one declares it
//! with `#[path]`: `lines.rs` (`segment`, for the examples that build scenery lines),
//! `cli_option.rs` (a demo's own options: `pyramid`, `ragdoll`, and the `fx` family),
//! `joint_state.rs` (joints read back for a headless summary: `ragdoll`, `chain`), `depth.rs`
//! (the depth target and the storage-buffer layout entry, declared by the `aggregate`, `rigid`
//! and `fx` families), and in `aggregate/`, `rig.rs` (`blob`, `bridge`, `platform`) and `deck.rs`
//! (`bridge`, `platform`). So every example compiles exactly what it uses, with no dead code.
//!
//! A family's WGSL lives in `.wgsl` files beside its Rust, loaded with `include_str!`;
//! `tests/examples_wgsl.rs` validates every one with naga.
//!
//! The pieces here live in private modules re-exported at this level: `cli`, `camera`,
//! `plumbing` (pipelines, uniforms, uploads), `device`, `offscreen`, `app` ([`App`]) and `run`
//! (the headless and windowed loops).

mod app;
mod camera;
mod cli;
mod device;
mod offscreen;
mod plumbing;
mod run;

pub use app::*;
pub use camera::*;
pub use cli::*;
pub use device::*;
pub use offscreen::Offscreen;
pub use plumbing::*;
pub use run::*;

use std::error::Error;

use wgphys::scenes::DT;

/// The error type of the examples' setup and loops.
pub type BoxError = Box<dyn Error>;

/// Frames rendered headless when `--frames` is not given.
pub const DEFAULT_FRAMES: u32 = 240;
/// Size of the headless image and of the window's initial client area.
pub const WIDTH: u32 = 1280;
/// See [`WIDTH`].
pub const HEIGHT: u32 = 720;
/// Most simulation steps one window frame may catch up on (the rest of the backlog is dropped).
const MAX_STEPS_PER_FRAME: u32 = 8;
