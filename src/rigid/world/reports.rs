//! What the world learns of its steps: the reports the GPU's status ring brings back a frame or
//! two late (and what `auto_grow` does with them), and the blocking reads tests and tools use.

use super::*;

impl RigidWorld {
    /// Takes in the reports of the steps whose counters have landed, without blocking (a GPU
    /// world does so in every `step` and `encode_step`; call this after the last one, or after
    /// [`crate::gpu::GpuContext::wait`], to see the newest). Grows the pair buffer from them as
    /// a step would. Returns the newest report known.
    ///
    /// # Errors
    /// GPU errors from growing the buffers.
    pub fn poll_reports(&mut self) -> Result<RigidStepReport> {
        if let Some(landed) = self.landed_reports() {
            self.take_reports(landed)?;
            self.split_struck()?;
        }
        Ok(self.report)
    }

    /// The reports that have landed since the last poll (GPU), oldest first.
    pub(super) fn landed_reports(&mut self) -> Option<Vec<RigidStepReport>> {
        let Engine::Gpu(g) = &mut self.engine else {
            return None;
        };
        let mut landed = Vec::new();
        let joints = &mut self.joints;
        let fracture = &mut self.fracture;
        let events = &mut self.events;
        let tag = self.tag;
        g.status.poll(&g.rigid.ctx.device, |step, _, words| {
            let counters: &[u32] = bytemuck::cast_slice(words);
            landed.push(report_from_counters(step, counters));
            // Each step's copy lands once, so each broken joint is noted once.
            joints.note_counters(counters, tag);
            fracture.note_counters(step, counters);
            events.note_counters(step, counters);
        });
        Some(landed)
    }

    /// Makes the newest of `reports` (oldest first) the world's report, and acts on all of
    /// them as the step that produced them would have: more colour slots when a tail held too
    /// much, more pair slots when pairs overflowed (`auto_grow`).
    pub(super) fn take_reports(&mut self, reports: Vec<RigidStepReport>) -> Result<()> {
        let mut wanted_pairs = 0;
        for report in reports {
            if report.step >= self.report.step {
                self.report = report;
            }
            if self.config.auto_grow
                && report.tail > solver::TAIL_MAX_MANIFOLDS
                && report.step >= self.colour_slots_since
                && self.colour_slots < MAX_COLOURS
            {
                // The tail (one workgroup) held more than a few rounds of work with the
                // current slots: give the next steps one more per-colour dispatch.
                self.colour_slots += 1;
                self.colour_slots_since = self.steps + 1;
            }
            if report.pairs_wanted > report.pairs {
                wanted_pairs = wanted_pairs.max(report.pairs_wanted);
            }
        }
        if self.config.auto_grow && wanted_pairs > self.pair_capacity {
            // Half as much again for the pile to settle into, within what the device binds;
            // beyond that the pairs stay reported as overflowing (`RigidStepReport::advice`).
            let most = self.max_pairs();
            let roomy = wanted_pairs.saturating_add(wanted_pairs / 2).min(most);
            if roomy > self.pair_capacity {
                self.grow_pairs(roomy)?;
            }
        }
        Ok(())
    }

    /// The newest step report.
    pub fn report(&self) -> RigidStepReport {
        self.report
    }

    /// The report of the step just taken, read back now (blocking on the GPU; tests and tools).
    ///
    /// # Errors
    /// GPU readback errors.
    pub fn read_report(&mut self) -> Result<RigidStepReport> {
        if let Engine::Gpu(g) = &self.engine {
            let words: Vec<u32> = g.rigid.read(&g.rigid.counters, counter::LEN)?;
            self.report = report_from_counters(self.steps, &words);
        }
        Ok(self.report)
    }

    /// The shape table, in slot order (kind 0 marks a free slot).
    pub fn shapes(&self) -> &[GpuShape] {
        &self.shapes
    }

    /// The hull store's words (the host copy of the GPU's `hulls` buffer): a hull shape's
    /// `dims.x` is the word of its header (see `crate::rigid::hull`).
    pub fn hull_words(&self) -> &[glam::UVec4] {
        self.hulls.words()
    }

    /// The manifolds of the last step and their count (blocking on the GPU).
    ///
    /// # Errors
    /// GPU readback errors.
    pub fn read_manifolds(&mut self) -> Result<Vec<GpuManifold>> {
        match &self.engine {
            Engine::Cpu(c) => Ok(c.manifolds.clone()),
            Engine::Gpu(g) => {
                let counters: Vec<u32> = g.rigid.read(&g.rigid.counters, counter::LEN)?;
                let n = counters[counter::SLOTS].min(self.slot_capacity()) as usize;
                g.rigid.read(g.rigid.current_manifolds(), n)
            }
        }
    }
}
