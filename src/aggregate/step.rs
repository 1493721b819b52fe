//! The aggregate step as data: [`AggStage`], the stages in execution order, and
//! [`AggStep::sequence`], the stages one step runs for what the world holds. The GPU encode
//! (`GpuAggregate::encode`) and the CPU step both walk that sequence, so the order is written
//! once; the GPU's timing spans carry each stage's [`AggStage::name`].

/// The aggregate stages, in the order a step runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggStage {
    /// Each particle's generator forces (gathered), the fields, the integrator.
    Integrate,
    /// The grid over the particles: cell keys, stable radix sort, cell ranges.
    GridBuild,
    /// The spatial order of the particles on the GPU (`near_keys`, its sort, `near_gather`,
    /// `near_cells`); the CPU twin keeps particle order and computes the same bits.
    NearOrder,
    /// Each particle's collide candidates for the step.
    NearList,
    /// Jacobi iterations of particle–particle and particle–collider contacts.
    Collide,
    /// Back from the spatial order into particle order (GPU only, as `NearOrder`).
    NearScatter,
    /// Cables and rods in coloured batches.
    Links,
}

impl AggStage {
    /// Every stage, in execution order.
    pub const ALL: [AggStage; 7] = [
        AggStage::Integrate,
        AggStage::GridBuild,
        AggStage::NearOrder,
        AggStage::NearList,
        AggStage::Collide,
        AggStage::NearScatter,
        AggStage::Links,
    ];

    /// The stage's name, of its timing span and its CPU twin (`agg_integrate`, `near_list`,
    /// `collide`, `solve_links` are the WGSL entry points of the ones with one kernel).
    pub fn name(self) -> &'static str {
        match self {
            AggStage::Integrate => "integrate",
            AggStage::GridBuild => "grid_build",
            AggStage::NearOrder => "near_order",
            AggStage::NearList => "near_list",
            AggStage::Collide => "collide",
            AggStage::NearScatter => "near_scatter",
            AggStage::Links => "links",
        }
    }
}

/// What a step of an aggregate world runs, from what the world holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AggStep {
    /// Contacts are solved: particle–particle collisions or static colliders.
    pub collide: bool,
    /// Particle–particle collisions on the grid (and at least one particle).
    pub gridded: bool,
    /// Links are solved this step.
    pub links: bool,
}

impl AggStep {
    /// The stages this step runs, in the order of [`AggStage::ALL`].
    pub fn sequence(&self) -> Vec<AggStage> {
        AggStage::ALL
            .into_iter()
            .filter(|&s| match s {
                AggStage::Integrate => true,
                AggStage::GridBuild
                | AggStage::NearOrder
                | AggStage::NearList
                | AggStage::NearScatter => self.collide && self.gridded,
                AggStage::Collide => self.collide,
                AggStage::Links => self.links,
            })
            .collect()
    }
}
