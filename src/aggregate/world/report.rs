//! What an aggregate step returns ([`AggregateStepReport`]): what the host knows of the step
//! it just ran, on either backend, with no readback.

use super::*;

/// What [`AggregateWorld::step`] and [`AggregateWorld::encode_step`] return. Every field is
/// known to the host when the step is recorded, so the GPU's report describes the step just
/// recorded, as the CPU's does, with no read from the device; the two backends fill every field
/// alike but [`dispatches`](Self::dispatches).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct AggregateStepReport {
    /// Steps taken so far, this one included ([`AggregateWorld::steps`]).
    pub step: u64,
    /// Live particles ([`AggregateWorld::len`]).
    pub particles: u32,
    /// Particle slots in use, removed ones included ([`AggregateWorld::slots`]).
    pub slots: u32,
    /// Live force generators.
    pub generators: u32,
    /// Live links.
    pub links: u32,
    /// Link colours (batches) the step solved the links in.
    pub link_colours: u32,
    /// Compute dispatches the step recorded on the GPU ([`AggregateWorld::last_dispatches`]);
    /// 0 on the CPU, which dispatches nothing.
    pub dispatches: u32,
}

impl AggregateWorld {
    /// The report of the step just taken.
    pub(super) fn step_report(&self) -> AggregateStepReport {
        let dispatches = match self.engine {
            Engine::Gpu(_) => self.last_dispatches,
            Engine::Cpu(_) => 0,
        };
        AggregateStepReport {
            step: self.steps,
            particles: self.particle_slots.live(),
            slots: self.n,
            generators: self.gen_slots.live(),
            links: self.link_slots.live(),
            link_colours: self.link_colours(),
            dispatches,
        }
    }
}
