//! The FX renderer's WGSL modules as they are compiled: the scene's and the particle layers'
//! each start with `globals.wgsl` (the frame's uniform block at group 0, binding 0, and the
//! lighting of the scene and the smoke). `tests/examples_wgsl.rs` validates `scene.wgsl` and
//! `sprites.wgsl` through these same functions.

/// The WGSL every module here starts with.
const GLOBALS: &str = include_str!("globals.wgsl");

/// The scene's module: `globals.wgsl`, then `scene.wgsl`.
pub fn scene() -> String {
    format!("{GLOBALS}{}", include_str!("scene.wgsl"))
}

/// The particle layers' module: `globals.wgsl`, then `sprites.wgsl`.
pub fn sprites() -> String {
    format!("{GLOBALS}{}", include_str!("sprites.wgsl"))
}
