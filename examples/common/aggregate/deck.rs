//! What the deck demos share (`bridge`, `platform`): a load's place on a deck of particle pairs
//! ([`deck_weights`]), and [`Attach`] points that stay fixed (anchors, hinges) or blend several
//! particles (the load's marker). Such a demo declares this module beside the family and
//! `rig.rs` (`#[path = "common/aggregate/deck.rs"] mod deck;`).

use glam::Vec3;
use wgphys::aggregate::ParticleId;

use crate::aggregate::Attach;
use crate::rig::NONE;

impl Attach {
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
