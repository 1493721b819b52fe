//! What an aggregate demo hands the renderer: [`Attach`] points placed from particle positions,
//! and [`LinkLine`]s between them. The demos that build them declare the constructors with
//! their other helpers (`rig.rs`, `deck.rs`).

/// A point placed on the GPU from particle positions: `offset` plus `weight[k]` times the
/// position of particle `index[k]` (unused slots hold `u32::MAX`). As a link end, `size` is the line width
/// in pixels; as a marker, the ball's radius in metres. 64 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Attach {
    /// Particle slots (`u32::MAX`: unused).
    pub index: [u32; 4],
    /// Weights of those particles' positions.
    pub weight: [f32; 4],
    /// Added to the weighted sum, metres.
    pub offset: [f32; 3],
    /// Line width (pixels) or ball radius (metres).
    pub size: f32,
    /// Linear RGBA.
    pub colour: [f32; 4],
}

/// A line segment between two attached points.
pub type LinkLine = [Attach; 2];
