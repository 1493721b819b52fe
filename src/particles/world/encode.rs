//! [`ParticleWorld::encode_step`]: a step recorded into the caller's encoder.

use super::*;

impl ParticleWorld {
    /// Records the step into the caller's encoder instead of submitting it: the step's
    /// uniforms, spawns and removals are recorded into `encoder` as copies ahead of its pass,
    /// so any number of steps may go into one encoder before one submit, with spawns, removals
    /// and launches between them, and give the state the same `step()` calls give.
    ///
    /// On the CPU backend, `encode_step` runs the step at once, exactly as `step` does, and
    /// leaves the encoder alone; it returns the same report.
    ///
    /// # Errors
    /// As [`ParticleWorld::step`].
    pub fn encode_step(
        &mut self,
        dt: f32,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<ParticleStepReport> {
        match self.gpu_context() {
            Some(ctx) => ctx.guard("a particle step", || self.encode_unguarded(dt, encoder)),
            None => self.step_unguarded(dt),
        }
    }

    fn encode_unguarded(
        &mut self,
        dt: f32,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<ParticleStepReport> {
        let (params, lifecycle, want_status) = self.begin_step(dt)?;
        let deaths_room = self.deaths_room();
        if let Engine::Gpu(g) = &mut self.engine {
            let frame = Frame {
                params,
                spawns: &self.spawns,
                removals: &self.removals,
                stages: stages_of(
                    &self.config,
                    &params,
                    lifecycle,
                    self.view.is_some(),
                    &self.emitters,
                ),
                step: self.step + 1,
                want_status,
                deaths_room,
            };
            g.encode(encoder, &frame);
            self.reads.record(g, encoder, self.step + 1, self.capacity);
            self.reads.poll(&g.ctx.device);
        }
        self.finish_step(dt);
        let grew_to = self.maybe_grow()?;
        Ok(ParticleStepReport {
            step: self.step,
            status: self.latest,
            grew_to,
            refused_spawns: self.refused.len() as u32,
            killed_by_bounds: self.killed.len() as u32,
        })
    }
}
