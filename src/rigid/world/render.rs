//! The buffers a renderer binds to draw a rigid world straight from the GPU
//! ([`RigidWorld::render_buffers`]), read-only: the engine's own writers stay inside.

use super::*;

/// A rigid world's GPU buffers as a renderer binds them, with the WGSL that describes them in
/// [`crate::rigid::wgsl`] (`structs()` for `Body`, `Shape`, `Manifold` and `Joint`,
/// `hull_accessors()` for the hull store). Each buffer has `STORAGE` usage; bind it read-only.
/// The buffers are replaced when the world grows or is loaded: rebuild bind groups when
/// [`generation`](Self::generation) changes.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct RigidRenderBuffers<'a> {
    /// `array<Body>`, one per body slot; a free slot is a static body with `kind` 0 shapes.
    /// A body's `pos` is its centre of mass, and its shapes' `offset_pos` are taken from it
    /// (`rigid::mass`): place a shape at `pos + rotate(orient, offset_pos)`.
    pub bodies: &'a wgpu::Buffer,
    /// `array<Shape>`, one per shape slot; a free slot has kind 0 and draws nothing.
    pub shapes: &'a wgpu::Buffer,
    /// Shape slots in use, from slot 0: draw this many instances.
    pub shape_slots: u32,
    /// The hull store (vertex and face words of every convex hull); `None` when the world has
    /// no hull.
    pub hulls: Option<&'a wgpu::Buffer>,
    /// `array<Manifold>`: the last step's contacts, `counters[COUNTER_PAIRS]` of them (the
    /// constant and the struct are in [`crate::rigid::wgsl::structs`]), for a contact overlay.
    pub manifolds: &'a wgpu::Buffer,
    /// `array<u32>`, the step's counters (`COUNTER_PAIRS`: the manifolds the last step wrote).
    pub counters: &'a wgpu::Buffer,
    /// `array<Joint>`, one per joint slot.
    pub joints: &'a wgpu::Buffer,
    /// Joint slots in use, from slot 0.
    pub joint_slots: u32,
    /// [`RigidWorld::buffers_generation`] when these were handed out.
    pub generation: u64,
}

impl RigidWorld {
    /// The buffers a renderer draws the world from, without a readback (GPU backend; `None`
    /// on the CPU). See [`RigidRenderBuffers`].
    pub fn render_buffers(&self) -> Option<RigidRenderBuffers<'_>> {
        let Engine::Gpu(g) = &self.engine else {
            return None;
        };
        let r = &g.rigid;
        Some(RigidRenderBuffers {
            bodies: &r.bodies,
            shapes: &r.shapes,
            shape_slots: self.shapes.len() as u32,
            hulls: (r.hull_words() > 0).then_some(&r.hulls),
            manifolds: &r.manifolds,
            counters: &r.counters,
            joints: &r.joints,
            joint_slots: self.joints.slots(),
            generation: g.generation,
        })
    }
}
