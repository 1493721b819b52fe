//! Code shared by the examples: command-line parsing, an orbit camera, the particle sprite
//! renderer of `ballistics` (its WGSL is [`SHADER`]), an offscreen target with a PNG
//! writer ([`offscreen`]), and the two ways to run a [`Demo`]: in a winit window, or headless
//! into a PNG.
//!
//! The renderer draws particles straight from the engine's buffers
//! ([`ParticleWorld::render_buffers`]): positions, colours and sizes are bound as per-instance
//! vertex buffers and the engine's `draw_args` buffer drives `draw_indirect`, so a frame never
//! reads anything back from the GPU. Each particle is a camera-facing quad (two triangles built
//! from `vertex_index`) with a soft round falloff, blended additively.
//!
//! A short "afterglow" makes motion readable: every frame the sprites are also drawn with `max`
//! blending into a persistence texture that decays exponentially, and that texture is added
//! under the live sprites. It too reads nothing back, and it restarts whenever the camera moves
//! (it is kept in screen space).
//!
//! `fireworks` and `effects` use the HDR effects renderer instead ([`fx`], run by [`fx_app`]):
//! ribbons through the trails, soft and stretched sprites, sorted smoke, bloom.
//!
//! The aggregate examples (`bridge`, `platform`, `blob`, `sand`) use [`aggregate`]: shaded balls
//! with depth, and rods, cables and markers placed on the GPU from the engine's positions.
//! The rigid examples use [`rigid`]: every shape slot drawn by reading the engine's shapes and
//! bodies in the vertex shader, with shadows. All kinds run through the same loops ([`App`],
//! [`run_app`]) and build their pipelines with the same helpers ([`render_pipeline`],
//! [`Uniforms`], [`depth_view`], [`upload`]).
//!
//! The shared pieces live in private modules re-exported here: `cli`, `camera`, `plumbing`
//! (pipelines, uniforms, uploads), `device`, `renderer` (the sprite renderer), `app` ([`Demo`],
//! [`App`]) and `run` (the headless and windowed loops); [`aggregate`] and [`rigid`] re-export
//! their renderers, shaders and helpers from siblings (`aggregate_renderer`, `aggregate_scene`,
//! `aggregate_shader`, `rigid_renderer`, `rigid_mesh`, `rigid_shader`).

// Every example compiles this module and each uses only part of it.
#![allow(dead_code)]

pub mod aggregate;
mod aggregate_renderer;
mod aggregate_scene;
mod aggregate_shader;
mod app;
pub mod bloom;
mod camera;
mod cli;
mod device;
pub mod fx;
pub mod fx_app;
pub mod offscreen;
mod plumbing;
mod renderer;
pub mod rigid;
mod rigid_mesh;
mod rigid_renderer;
mod rigid_shader;
mod run;
pub mod scene;
pub mod sprites;

pub use app::*;
pub use camera::*;
pub use cli::*;
pub use device::*;
pub use offscreen::Offscreen;
pub use plumbing::*;
pub use renderer::*;
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
