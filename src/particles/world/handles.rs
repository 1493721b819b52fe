//! Host handles: which are alive, and the reports that end them where only the device can
//! tell (a spawn refused for lack of room, a particle killed by the bounds).

use super::*;

impl ParticleWorld {
    /// Whether a handle's particle is alive: from this world, not removed, not past its
    /// lifetime (known exactly, without a readback). Two deaths only the step itself can see
    /// end a handle when the step reports them: a spawn refused for lack of room
    /// ([`ParticleWorld::refused_spawns`]) and a particle killed by the kill bounds
    /// ([`ParticleWorld::killed_by_bounds`]). The CPU reports them at the end of that step; the
    /// GPU when the host takes in the step's counters after they come back (a frame or two
    /// later), at the next `step` / `encode_step` or [`ParticleWorld::poll_reports`] call.
    /// Both backends decide the same deaths (the same `plan_pool`); only when the host learns
    /// of them differs.
    pub fn contains(&self, handle: ParticleHandle) -> bool {
        handle.world == self.world_tag && self.outstanding.contains(&handle.id)
    }

    /// The handle of the live host particle with this id ([`ParticleHandle::id`]), or `None`
    /// when no such particle is alive here. A game that keeps its particles' ids across a save
    /// and a load (`ParticleWorld::save`, `ParticleWorld::load`, the `serde` feature) gets the
    /// loaded world's handles this way (a loaded world is a new world: the old world's handles
    /// are refused by it).
    pub fn particle_handle(&self, id: u32) -> Option<ParticleHandle> {
        self.outstanding.contains(&id).then_some(ParticleHandle {
            id,
            world: self.world_tag,
        })
    }

    /// The handles of the live host particles, by ascending id.
    pub fn particle_handles(&self) -> Vec<ParticleHandle> {
        let mut ids: Vec<u32> = self.outstanding.iter().copied().collect();
        ids.sort_unstable();
        ids.into_iter()
            .map(|id| ParticleHandle {
                id,
                world: self.world_tag,
            })
            .collect()
    }

    /// The host handles found refused for lack of room during the last `step`, `encode_step`
    /// or [`ParticleWorld::poll_reports`] call (see [`ParticleWorld::spawn`]).
    pub fn refused_spawns(&self) -> &[ParticleHandle] {
        &self.refused
    }

    /// The host handles whose particles the kill bounds ([`super::WorldConfig::kill_bounds`])
    /// were found to have killed during the last `step`, `encode_step` or
    /// [`ParticleWorld::poll_reports`] call, ascending: on the CPU in that step, on the GPU in
    /// the steps whose counters came back since the last call. Their handles are no longer
    /// valid.
    pub fn killed_by_bounds(&self) -> &[ParticleHandle] {
        &self.killed
    }

    /// Host spawns whose step's counters have not come back yet (GPU; 0 on the CPU after a
    /// step).
    pub fn spawns_unconfirmed(&self) -> usize {
        self.ledger.waiting()
    }

    /// Takes in the counters of the steps whose status reads have landed, without stepping
    /// and without blocking: their refused spawns and bound kills end their handles now and
    /// are listed by [`ParticleWorld::refused_spawns`] and
    /// [`ParticleWorld::killed_by_bounds`] (which this call clears first, as a step does), and
    /// [`ParticleWorld::latest_status`] moves on. A GPU world otherwise learns them at its next
    /// `step` / `encode_step` call; after [`ParticleWorld::wait`] every submitted step's counters
    /// have landed, so `wait` then `poll_reports` makes [`ParticleWorld::contains`] answer for
    /// every step taken, as the CPU backend's does at the end of each step (nothing is waiting
    /// on the CPU, where this call only clears the two lists).
    pub fn poll_reports(&mut self) {
        self.refused.clear();
        self.killed.clear();
        self.take_in_reports();
    }

    /// [`ParticleWorld::poll_reports`] without clearing the lists first: what lands is added to
    /// them.
    pub(super) fn take_in_reports(&mut self) {
        let landed = match &mut self.engine {
            Engine::Gpu(g) => g.poll_status(),
            Engine::Cpu(_) => Vec::new(),
        };
        for l in landed {
            self.settle(l.step, l.counters.spawn_accepted);
            self.bury(&l.deaths);
            if self.latest.is_none_or(|s| l.step > s.step) {
                self.latest = Some(Status::from_counters(l.step, self.capacity, &l.counters));
            }
        }
    }

    /// Takes the refusals the counters of `step` show into `refused`.
    pub(super) fn settle(&mut self, step: u64, accepted: u32) {
        let tag = self.world_tag;
        let ids = self.ledger.resolve(step, accepted, &mut self.outstanding);
        self.refused
            .extend(ids.into_iter().map(|id| ParticleHandle { id, world: tag }));
    }

    /// Ends the handles of the ids a step's bounds killed (ascending) into `killed`.
    pub(super) fn bury(&mut self, ids: &[u32]) {
        let tag = self.world_tag;
        for &id in ids {
            if self.outstanding.remove(&id) {
                self.killed.push(ParticleHandle { id, world: tag });
            }
        }
    }

    /// Sets the box outside which particles die ([`super::WorldConfig::kill_bounds`]) from the
    /// next step on; `None` turns it off.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for a corner that is not finite; nothing changes then.
    pub fn set_kill_bounds(&mut self, bounds: Option<crate::particles::KillBounds>) -> Result<()> {
        if let Some(k) = bounds {
            crate::error::finite3("kill_bounds.min", k.min)?;
            crate::error::finite3("kill_bounds.max", k.max)?;
        }
        self.config.kill_bounds = bounds;
        Ok(())
    }

    /// Handle deaths a step's status copy must make room for: every outstanding handle when
    /// kill bounds are on (any of them may be in the pool and cross them), else none.
    pub(super) fn deaths_room(&self) -> u32 {
        if self.config.kill_bounds.is_some() {
            u32::try_from(self.outstanding.len()).unwrap_or(u32::MAX)
        } else {
            0
        }
    }
}
