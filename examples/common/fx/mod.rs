//! The HDR effects renderer of `fireworks` and `effects` ([`renderer::FxRenderer`]) and the app
//! that runs their demos ([`app::FxDemo`], [`app::run`]): a scene (sky, lit boxes, lines) and
//! particle layers drawn into a float16 target, then bloom and a tone map into the output.
//!
//! A frame:
//!
//! 1. **scene** (`scene.rs`, `scene.wgsl`): sky, boxes and lines into the HDR target and a
//!    `Depth32Float` depth buffer (which is also what the engine's depth collider reads:
//!    [`renderer::FxRenderer::depth_texture`]);
//! 2. **particles** (`sprites.rs`, `sprites.wgsl`), layer by layer, with no depth attachment:
//!    each fragment reads the scene's depth itself, so sprites and ribbons fade out where they
//!    come close to a surface (soft particles) and vanish behind it. A layer is additive
//!    (sparks: camera-facing sprites, optionally stretched along the velocity, and ribbons
//!    through the engine's trails) or alpha-blended in the engine's back-to-front order
//!    (smoke, lit by the frame's lights);
//! 3. **bloom** and the tone map into the target (`bloom.rs`, `bloom.wgsl`).
//!
//! The scene's and the particles' WGSL start with `globals.wgsl`, the frame's uniform block
//! (`wgsl.rs` puts them together). Nothing is read back: every particle count comes from the
//! engine's indirect-draw buffer.

pub mod app;
pub mod bloom;
#[path = "../cli_option.rs"]
pub mod cli_option;
#[path = "../depth.rs"]
mod depth;
pub mod renderer;
pub mod scene;
mod sprites;
mod wgsl;
