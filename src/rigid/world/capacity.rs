//! Capacity: growing the body, shape and pair slots (keeping every body and shape, on the GPU by
//! rebuilding the backend at the new sizes) and the largest pair count the device can bind.

use super::*;

impl RigidWorld {
    pub(super) fn ensure_capacity(&mut self, bodies: u32, shapes: u32) -> Result<()> {
        if bodies <= self.body_capacity && shapes <= self.shape_capacity {
            return Ok(());
        }
        if !self.config.auto_grow {
            let (what, capacity) = if bodies > self.body_capacity {
                (
                    "rigid bodies (RigidConfig::body_capacity)",
                    self.body_capacity,
                )
            } else {
                (
                    "rigid shapes (RigidConfig::shape_capacity)",
                    self.shape_capacity,
                )
            };
            return Err(Error::Full { what, capacity });
        }
        // At most 2^31 before rounding up, so the power of two cannot overflow.
        let grown = |n: u32| n.min(1 << 31).next_power_of_two();
        let body_capacity = self.body_capacity.max(grown(bodies));
        let shape_capacity = self.shape_capacity.max(grown(shapes));
        let pair_capacity = self
            .pair_capacity
            .max(shape_capacity.saturating_mul(4).min(self.max_pairs()));
        self.regrow(body_capacity, shape_capacity, pair_capacity)
    }

    /// The GPU buffer sizes of the world's capacities, plan and tables as they are now.
    pub(super) fn current_sizes(&self) -> Result<GpuRigidSizes> {
        sizes(
            self.body_capacity,
            self.shape_capacity,
            self.pair_capacity,
            self.plan.cell_size,
            self.large_capacity,
            block_bins(&self.config, self.body_capacity),
            (self.joints.capacity, self.generators.capacity),
        )
    }

    /// Rebuilds the GPU buffers at new sizes, carrying the state over by device-side copies
    /// (see [`rebuild`]).
    pub(super) fn regrow(
        &mut self,
        body_capacity: u32,
        shape_capacity: u32,
        pair_capacity: u32,
    ) -> Result<()> {
        if let Engine::Gpu(g) = &mut self.engine {
            let at = sizes(
                body_capacity,
                shape_capacity,
                pair_capacity,
                self.plan.cell_size,
                self.large_capacity,
                block_bins(&self.config, body_capacity),
                (self.joints.capacity, self.generators.capacity),
            )?;
            let n = (self.bodies.len(), self.joints.slots() as usize);
            rebuild(g, n, &self.shapes, at)?;
            self.plan_dirty = true;
            self.joints.filter_dirty = true;
        }
        self.body_capacity = body_capacity;
        self.shape_capacity = shape_capacity;
        self.pair_capacity = pair_capacity;
        Ok(())
    }

    /// Grows the pair (and manifold) buffers to at least `pairs` slots (rounded up to a
    /// multiple of 4096 where the device can bind that many).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when the device cannot bind `pairs` manifolds or their solver
    /// rows (the message names the limit); GPU errors from creating buffers.
    pub fn grow_pairs(&mut self, pairs: u32) -> Result<()> {
        self.on_device("growing the pair buffer", |w| w.grow_pairs_unguarded(pairs))
    }

    fn grow_pairs_unguarded(&mut self, pairs: u32) -> Result<()> {
        if pairs > self.pair_capacity {
            let rounded = pairs.div_ceil(4096).saturating_mul(4096);
            let target = rounded.min(self.max_pairs()).max(pairs);
            self.regrow(self.body_capacity, self.shape_capacity, target)?;
        }
        Ok(())
    }

    /// The most pair slots this world's device can hold: the manifolds and the solver rows
    /// of every slot must fit one storage binding, and one colour of them must fit one
    /// dispatch (a workgroup per [`RIGID_WG`] manifolds, sized by the colouring's indirect
    /// arguments, at most the device's workgroups per dispatch). `u32::MAX` on the CPU.
    pub fn max_pairs(&self) -> u32 {
        match &self.engine {
            Engine::Cpu(_) => u32::MAX,
            Engine::Gpu(g) => {
                let per_slot = (std::mem::size_of::<GpuManifold>() as u64)
                    .max(16 * u64::from(solver::solver_record_rows()));
                let ctx = &g.rigid.ctx;
                let groups = u64::from(ctx.device.limits().max_compute_workgroups_per_dimension);
                let bound = (ctx.max_binding_bytes() / per_slot).min(groups * u64::from(RIGID_WG));
                u32::try_from(bound).unwrap_or(u32::MAX)
            }
        }
    }
}

/// Rebuilds the GPU backend at `at` sizes, carrying over the first `n.0` bodies, the first
/// `n.1` joints, the counters and the last step's manifolds by device-side copies recorded at
/// the head of the next step (no readback, so steps recorded into a caller's encoder that is
/// not submitted yet keep their effect), and writing `shapes`. The counters describe the last
/// step (its report, its manifold count), so the next step warm-starts and finds its contact
/// events as it would have in the old buffers. Timing stays as it was.
pub(super) fn rebuild(
    g: &mut GpuEngine,
    n: (usize, usize),
    shapes: &[GpuShape],
    at: GpuRigidSizes,
) -> Result<()> {
    let mut fresh = g.rigid.resized(at)?;
    fresh.carry_from(&mut g.rigid, n.0, n.1)?;
    fresh.write(&fresh.shapes, shapes);
    fresh.timing = g.rigid.timing.take();
    fresh.dispatch_timing = g.rigid.dispatch_timing;
    g.rigid = fresh;
    g.generation += 1;
    Ok(())
}

/// The GPU buffer sizes of a world at these capacities (joints and generators as a pair).
pub(super) fn sizes(
    bodies: u32,
    shapes: u32,
    pairs: u32,
    cell_size: f32,
    large: u32,
    block_bins: u32,
    (joints, generators): (u32, u32),
) -> Result<GpuRigidSizes> {
    let large = large.max(broad::large_capacity_hint(shapes)).min(shapes);
    // Each joint slot has a manifold slot after the pairs'.
    let slots = pairs.saturating_add(joints);
    Ok(GpuRigidSizes {
        bodies,
        shapes,
        pairs: slots,
        solver_words: u64::from(slots) * u64::from(solver::solver_record_rows()),
        joints,
        joint_filter: crate::rigid::joint::filter::size_for(joints as usize),
        pair_scratch_words: broad::pair_scratch_words(shapes, large),
        grid: grid_spec(cell_size, shapes)?,
        block_bins,
        generators,
    })
}
