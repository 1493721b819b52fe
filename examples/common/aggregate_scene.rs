//! What an aggregate demo hands the renderer: [`Attach`] points placed from particle positions,
//! [`LinkLine`]s between them, and helpers that build scenery lines.

use glam::Vec3;
use wgphys::aggregate::ParticleId;
use wgphys::particles::{Collider, ColliderShape};

use super::{segment, LineVertex};

/// "No particle" in an [`Attach`] slot.
const NONE: u32 = u32::MAX;

/// particle `index[k]` (unused slots hold `u32::MAX`). As a link end, `size` is the line width
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

impl Attach {
    /// Follows one particle.
    pub fn particle(id: ParticleId, size: f32, colour: [f32; 4]) -> Self {
        Self::blend(&[(id, 1.0)], Vec3::ZERO, size, colour)
    }

    /// A fixed point (an anchor).
    pub fn point(p: Vec3, size: f32, colour: [f32; 4]) -> Self {
        Self::blend(&[], p, size, colour)
    }

    /// `offset` plus a weighted sum of up to four particles' positions (more are ignored).
    pub fn blend(parts: &[(ParticleId, f32)], offset: Vec3, size: f32, colour: [f32; 4]) -> Self {
        let mut a = Self {
            index: [NONE; 4],
            weight: [0.0; 4],
            offset: offset.to_array(),
            size,
            colour,
        };
        for (k, &(id, w)) in parts.iter().take(4).enumerate() {
            a.index[k] = id.index();
            a.weight[k] = w;
        }
        a
    }
}

/// A line segment between two attached points.
pub type LinkLine = [Attach; 2];

/// Appends the twelve edges of a box collider (an oriented box; other shapes add nothing).
pub fn box_outline(out: &mut Vec<LineVertex>, collider: &Collider, colour: [f32; 4]) {
    if let ColliderShape::Box {
        centre,
        half_extents,
        rotation,
    } = collider.shape
    {
        let corner = |i: u32| {
            let s = Vec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            );
            centre + rotation * (s * half_extents)
        };
        for i in 0..8u32 {
            for bit in [1u32, 2, 4] {
                if i & bit == 0 {
                    segment(out, corner(i), corner(i | bit), colour);
                }
            }
        }
    }
}

/// The four deck particles around a load at (`x`, `z`) and their bilinear shares, exactly as
/// `scenes::aggregate::load_deck` spreads the load: `deck` holds pairs of particles (z = -1
/// first, then z = +1) column by column at the x positions `xs`. A marker blended with these
/// weights sits where the load acts.
pub fn deck_weights(deck: &[ParticleId], xs: &[f32], x: f32, z: f32) -> [(ParticleId, f32); 4] {
    let columns = deck.len() / 2;
    let span = xs[columns - 1] - xs[0];
    let t = ((x - xs[0]) / span * (columns - 1) as f32).clamp(0.0, (columns - 1) as f32 - 1e-3);
    let c = t.floor() as usize;
    let fx = t - c as f32;
    let fz = (z * 0.5 + 0.5).clamp(0.0, 1.0);
    [
        (deck[2 * c], (1.0 - fx) * (1.0 - fz)),
        (deck[2 * c + 1], (1.0 - fx) * fz),
        (deck[2 * c + 2], fx * (1.0 - fz)),
        (deck[2 * c + 3], fx * fz),
    ]
}

/// Appends a square grid on the plane y = `y`: `half` metres each way, lines every `step`.
pub fn ground_grid(out: &mut Vec<LineVertex>, y: f32, half: f32, step: f32, colour: [f32; 4]) {
    let n = (half / step).round() as i32;
    for i in -n..=n {
        let t = i as f32 * step;
        segment(out, Vec3::new(t, y, -half), Vec3::new(t, y, half), colour);
        segment(out, Vec3::new(-half, y, t), Vec3::new(half, y, t), colour);
    }
}
