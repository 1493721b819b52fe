//! The tables and optional stages of a GPU particle world that the host sets between steps:
//! emitters and life curves, colliders, the depth collider and the back-to-front order.

use super::*;

impl GpuParticles {
    /// Replaces the emitter table (at most [`MAX_EMITTERS`]; the world checks), in order with
    /// the steps recorded around it.
    pub fn set_emitters(&mut self, emitters: &[GpuEmitter], curves: &[GpuCurves]) {
        let n = emitters.len().min(MAX_EMITTERS as usize);
        if let Some(head) = emitters.get(..n) {
            self.uploads.write(&self.bufs.emitters, 0, head);
        }
        let n = curves.len().min(MAX_EMITTERS as usize);
        if let Some(head) = curves.get(..n) {
            self.uploads.write(&self.bufs.curves, 0, head);
        }
    }

    /// Replaces the collider table (at most [`MAX_COLLIDERS`]; the world checks), in order with
    /// the steps recorded around it.
    pub fn set_colliders(&mut self, colliders: &[GpuCollider]) {
        let n = colliders.len().min(MAX_COLLIDERS as usize);
        if let Some(head) = colliders.get(..n) {
            self.uploads.write(&self.bufs.colliders, 0, head);
        }
    }

    /// Sets the depth collider (`None`: off); see
    /// [`crate::particles::ParticleWorld::set_depth_collider`].
    ///
    /// Passing the texture already bound (a renderer's depth buffer, frame after frame) only
    /// uploads the new record: the view and bind groups are rebuilt when the texture changes.
    pub fn set_depth(&mut self, depth: Option<(&wgpu::Texture, GpuDepth)>) {
        match depth {
            Some((t, record)) => {
                if self.depth_texture.as_ref() != Some(t) {
                    self.depth_view = t.create_view(&wgpu::TextureViewDescriptor {
                        label: Some("wgphys:depth_collider"),
                        aspect: wgpu::TextureAspect::DepthOnly,
                        ..Default::default()
                    });
                    self.depth_texture = Some(t.clone());
                    self.bind_all();
                }
                self.uploads.write(&self.depth, 0, &[record]);
                self.depth_on = record.flags & 1 != 0;
            }
            None => {
                if self.depth_texture.take().is_some() {
                    self.depth_view = stand_in_depth(&self.ctx.device);
                    self.bind_all();
                }
                self.uploads.write(&self.depth, 0, &[GpuDepth::default()]);
                self.depth_on = false;
            }
        }
    }

    /// Turns the back-to-front order on (with this camera) or off; see
    /// [`crate::particles::ParticleWorld::set_view_sort`].
    ///
    /// # Errors
    /// As [`GpuRadixSort::new`] for the pool's capacity.
    pub fn set_view_sort(&mut self, view: Option<GpuView>) -> Result<()> {
        match view {
            None => self.view_sort = None,
            Some(v) => {
                if self.view_sort.is_none() {
                    self.view_sort = Some(GpuViewSort {
                        view: buffer::zeroed(
                            &self.ctx.device,
                            "view",
                            size_of::<GpuView>() as u64,
                            U::UNIFORM | U::COPY_DST,
                        ),
                        sort: GpuRadixSort::new(&self.ctx, self.capacity, 32)?,
                    });
                    // A new order buffer for `render_buffers`.
                    self.generation += 1;
                    self.bind_all();
                }
                if let Some(vs) = &self.view_sort {
                    self.uploads.write(&vs.view, 0, &[v]);
                }
            }
        }
        Ok(())
    }

    /// The slots of the first `n` particles of the back-to-front order (blocking; `None` when
    /// the order is off).
    ///
    /// # Errors
    /// [`Error::Gpu`] on readback failure.
    pub fn read_order(&self, n: u32) -> Result<Option<Vec<u32>>> {
        self.flush_uploads();
        match &self.view_sort {
            None => Ok(None),
            Some(vs) => Ok(Some(vs.sort.read(n)?.1)),
        }
    }

    /// The buffer of the back-to-front order, when on.
    pub fn order_buffer(&self) -> Option<&wgpu::Buffer> {
        self.view_sort.as_ref().map(|vs| vs.sort.sorted_values())
    }
}
