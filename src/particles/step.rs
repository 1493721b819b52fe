//! The particle step as data: [`ParticleStage`], the stages in execution order, and
//! [`ParticleStep::sequence`], the stages one step runs for what the world holds. The GPU
//! encode (`GpuParticles::encode`) and the CPU step (`run_cpu_step`) both walk that sequence, so
//! the order is written once; each stage's WGSL entry point, compute-pass dispatch and CPU twin
//! carry its [`ParticleStage::name`].

/// The particle stages, in the order a step runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParticleStage {
    /// Forces, integration, colliders, depth collider, ageing, life curves, death and payload
    /// flags (one fused kernel).
    Integrate,
    /// A grid over a rigid world's shapes' bounds at their bodies' present poses
    /// ([`crate::particles::RigidLookup::Cells`]).
    RigidCells,
    /// Contacts with the rigid shapes of each particle's cell of that grid (and the large
    /// ones), in slot order: the same as [`ParticleStage::RigidContacts`].
    RigidContactsCells,
    /// Contacts with every shape of a rigid world (spheres, boxes, capsules, half-spaces,
    /// planes) at their bodies' poses, with the surface velocity of a moving body
    /// ([`crate::particles::ParticleWorld::step_with_rigid`]; [`crate::particles::RigidLookup::All`]).
    RigidContacts,
    /// Per-block totals of deaths and payload children.
    ScanReduce,
    /// Exclusive scan of the block totals; plans how many spawns fit.
    ScanBlocks,
    /// Records holes; writes firework and sub-emitter children to staging.
    Emit,
    /// Draws the emitters' particles for this step into staging.
    SpawnEmitted,
    /// Moves survivors into holes so live particles stay packed.
    Compact,
    /// Moves the survivors' trails with them.
    TrailCompact,
    /// Appends staged spawns; publishes the live count and the indirect arguments.
    Append,
    /// Starts the appended particles' trails.
    TrailAppend,
    /// Each live particle's position into its trail.
    TrailPush,
    /// View-depth keys for the back-to-front order.
    DepthKeys,
    /// Each emitter's box over its live particles.
    EmitterBounds,
    /// The boxes into the public buffer.
    BoundsPublish,
    /// The radix sort of the depth keys (the back-to-front order).
    ViewSort,
}

impl ParticleStage {
    /// Every stage, in execution order.
    pub const ALL: [ParticleStage; 17] = [
        ParticleStage::Integrate,
        ParticleStage::RigidCells,
        ParticleStage::RigidContactsCells,
        ParticleStage::RigidContacts,
        ParticleStage::ScanReduce,
        ParticleStage::ScanBlocks,
        ParticleStage::Emit,
        ParticleStage::SpawnEmitted,
        ParticleStage::Compact,
        ParticleStage::TrailCompact,
        ParticleStage::Append,
        ParticleStage::TrailAppend,
        ParticleStage::TrailPush,
        ParticleStage::DepthKeys,
        ParticleStage::EmitterBounds,
        ParticleStage::BoundsPublish,
        ParticleStage::ViewSort,
    ];

    /// The stage's name: its WGSL entry point and its CPU twin's function (the view sort's is
    /// the radix sort's own kernels).
    pub fn name(self) -> &'static str {
        match self {
            ParticleStage::Integrate => "integrate",
            ParticleStage::RigidCells => "rigid_cells",
            ParticleStage::RigidContactsCells => "rigid_contacts_cells",
            ParticleStage::RigidContacts => "rigid_contacts",
            ParticleStage::ScanReduce => "scan_reduce",
            ParticleStage::ScanBlocks => "scan_blocks",
            ParticleStage::Emit => "emit",
            ParticleStage::SpawnEmitted => "spawn_emitted",
            ParticleStage::Compact => "compact",
            ParticleStage::TrailCompact => "trail_compact",
            ParticleStage::Append => "append",
            ParticleStage::TrailAppend => "trail_append",
            ParticleStage::TrailPush => "trail_push",
            ParticleStage::DepthKeys => "depth_keys",
            ParticleStage::ViewSort => "view_sort",
            ParticleStage::EmitterBounds => "emitter_bounds",
            ParticleStage::BoundsPublish => "bounds_publish",
        }
    }

    /// The compute pass the stage's dispatches go into on the GPU (the view sort records its
    /// own passes).
    pub fn pass(self) -> &'static str {
        match self {
            ParticleStage::EmitterBounds | ParticleStage::BoundsPublish => {
                "wgphys:pass:emitter_bounds"
            }
            ParticleStage::ViewSort => "wgphys:pass:view_sort",
            _ => "wgphys:pass:particle_step",
        }
    }
}

/// What a step of a particle world runs, from what the world holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParticleStep {
    /// Something may die or spawn (lifetimes, emitters, fireworks, kill bounds, spawns or
    /// removals): the lifecycle stages run; without it a step is the one integrate dispatch.
    pub lifecycle: bool,
    /// The emitters draw particles this step.
    pub emitted: bool,
    /// Particles keep trails (`WorldConfig::trail_length` > 0).
    pub trails: bool,
    /// The back-to-front order is on (`ParticleWorld::set_view_sort`).
    pub view_sort: bool,
    /// The world has emitter slots, whose boxes are reduced after the step.
    pub bounds: bool,
    /// The step collides the particles with a rigid world's shapes.
    pub rigid: bool,
    /// ... through a grid over them ([`crate::particles::RigidLookup::Cells`]).
    pub rigid_cells: bool,
}

impl ParticleStep {
    /// The stages this step runs, in the order of [`ParticleStage::ALL`].
    pub fn sequence(&self) -> Vec<ParticleStage> {
        ParticleStage::ALL
            .into_iter()
            .filter(|&s| self.runs(s))
            .collect()
    }

    fn runs(&self, stage: ParticleStage) -> bool {
        use ParticleStage::*;
        match stage {
            Integrate => true,
            RigidCells | RigidContactsCells => self.rigid && self.rigid_cells,
            RigidContacts => self.rigid && !self.rigid_cells,
            ScanReduce | ScanBlocks | Emit | Compact | Append => self.lifecycle,
            SpawnEmitted => self.lifecycle && self.emitted,
            TrailCompact | TrailAppend => self.lifecycle && self.trails,
            TrailPush => self.trails,
            DepthKeys | ViewSort => self.view_sort,
            EmitterBounds | BoundsPublish => self.bounds,
        }
    }
}
