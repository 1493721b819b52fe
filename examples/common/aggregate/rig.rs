//! What the aggregate demos that rig particles with links over a ground share (`blob`,
//! `bridge`, `platform`): [`Attach`] points that follow one particle, a ground grid, and the
//! direction keys held down ([`Held`]). Such a demo declares this module beside the family
//! (`#[path = "common/aggregate/rig.rs"] mod rig;`, with `mod aggregate;` and `mod lines;`).

use glam::Vec3;
use wgphys::aggregate::ParticleId;
use winit::keyboard::{Key, NamedKey};

use crate::aggregate::Attach;
use crate::common::LineVertex;
use crate::lines::segment;

/// "No particle" in an [`Attach`] slot.
pub const NONE: u32 = u32::MAX;

impl Attach {
    /// Follows one particle.
    pub fn particle(id: ParticleId, size: f32, colour: [f32; 4]) -> Self {
        Self {
            index: [id.index(), NONE, NONE, NONE],
            weight: [1.0, 0.0, 0.0, 0.0],
            offset: [0.0; 3],
            size,
            colour,
        }
    }
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

/// Direction keys held down: arrows or WASD (Space counts as up/forward), shared by the
/// interactive aggregate demos.
#[derive(Clone, Copy, Debug, Default)]
pub struct Held {
    /// Left arrow or A.
    pub left: bool,
    /// Right arrow or D.
    pub right: bool,
    /// Up arrow, W or Space.
    pub forward: bool,
    /// Down arrow or S.
    pub back: bool,
}

impl Held {
    /// Records a key press or release; other keys are ignored.
    pub fn set(&mut self, key: &Key, pressed: bool) {
        match key {
            Key::Named(NamedKey::ArrowLeft) => self.left = pressed,
            Key::Named(NamedKey::ArrowRight) => self.right = pressed,
            Key::Named(NamedKey::ArrowUp) | Key::Named(NamedKey::Space) => self.forward = pressed,
            Key::Named(NamedKey::ArrowDown) => self.back = pressed,
            Key::Character(c) => match c.to_ascii_lowercase().as_str() {
                "a" => self.left = pressed,
                "d" => self.right = pressed,
                "w" | " " => self.forward = pressed,
                "s" => self.back = pressed,
                _ => {}
            },
            _ => {}
        }
    }

    /// (right − left, back − forward) as −1, 0 or 1 each.
    pub fn axes(self) -> (f32, f32) {
        let f = |b: bool| f32::from(u8::from(b));
        (f(self.right) - f(self.left), f(self.back) - f(self.forward))
    }
}
