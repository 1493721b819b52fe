//! The configuration of a rigid world ([`RigidConfig`]): capacities, gravity, the solver's
//! iterations and stiffness, sleeping, and how the CPU twin rounds.

use glam::Vec3;

/// Configuration of a [`super::RigidWorld`].
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, PartialEq)]
pub struct RigidConfig {
    /// Body slots (grown automatically when full if `auto_grow`).
    pub body_capacity: u32,
    /// Shape slots; 0 means twice the body capacity.
    pub shape_capacity: u32,
    /// Pair and manifold slots; 0 means eight per shape. Memory is the price of spare slots
    /// (about 680 bytes each on the GPU: a pair, two manifolds of 224 bytes for the warm start,
    /// a solver record of 224 bytes) more than time: the GPU step sizes its per-pair stages by the
    /// pairs the broad phase wrote (only the colouring's sort walks every slot). A step that
    /// finds more pairs than slots grows them when `auto_grow` is on.
    pub pair_capacity: u32,
    /// Joint slots (grown automatically when full if `auto_grow`; 0: none until the first
    /// joint). Each holds a joint of 208 bytes and a manifold slot of its own on the GPU.
    pub joint_capacity: u32,
    /// Force-generator slots (grown automatically when full if `auto_grow`; 0: none until the
    /// first generator). Each holds a record of 224 bytes and two index words on the GPU.
    pub generator_capacity: u32,
    /// Grow full buffers (bodies, shapes, pairs, joints, generators) instead of refusing or reporting only.
    pub auto_grow: bool,
    /// Gravity of bodies without their own acceleration.
    pub gravity: Vec3,
    /// Biased velocity iterations of the soft contact per substep (Box2D v3 runs 1).
    pub velocity_iterations: u32,
    /// Relax iterations per substep: rigid velocity iterations without the position bias, which
    /// take out the speed the soft push-out gave and carry the load of a stack. Default 8
    /// (Box2D v3 runs 1): one sweep per colour moves a change of load only a few rows through a
    /// stack, and a 100-row wall of 3D boxes with 4-point contacts needs about 6 to stand still
    /// (median drift between t = 1 s and 1.5 s: 51 mm at 1, 9.7 mm at 4, 4.1 mm at 6, 2.0 mm
    /// at 8, CPU twin). Lower it for speed in shallow scenes. With blocks (`block_cells > 0`)
    /// each is a round in which every block sweeps its own contacts `block_sweeps` times
    /// (scenes small enough for the one-workgroup solver run `relax_iterations × block_sweeps`
    /// whole sweeps instead); see [`RigidConfig::with_blocks`].
    pub relax_iterations: u32,
    /// Edge of the contact solver's blocks in broad-phase grid cells: 0 (the default: every
    /// sweep runs colour by colour over the whole scene, one dispatch per colour), or a power
    /// of two from 4 to 1024. With blocks, a block's contacts are swept in one workgroup, so a
    /// sweep costs 5 dispatches (4 partitions of the grid into blocks and a leftover bin)
    /// instead of one per colour, and a relax round sweeps each block `block_sweeps` times.
    /// See `solver::block` and [`RigidConfig::with_blocks`].
    pub block_cells: u32,
    /// Sweeps of a block's contacts in one relax round (see `relax_iterations`). Default 3.
    pub block_sweeps: u32,
    /// Iterations of the book's non-linear position projection (catalogue §14.4), run once per
    /// step after the substeps. Off (0) by default: the soft contact already pushes overlaps
    /// apart at a bounded speed inside the substeps, and a projection moves bodies without
    /// giving them the matching velocity. Raise it for the book's behaviour.
    pub position_iterations: u32,
    /// Dispatches per solver sweep, 1 to [`super::types::MAX_COLOURS`] (32). A colour is a
    /// batch of contacts that share no moving body; colours `0..colour_slots − 1` are solved
    /// one dispatch each (an empty one launches no workgroup), and the last dispatch is one
    /// workgroup that solves the remaining colours (the tail) one after the other with a
    /// barrier between them. The batches and their order are the same for any value, so the
    /// result is too; fewer slots mean fewer dispatches and more work on the one workgroup.
    /// Default 8: the 100-row wall and the box piles use 8 to 10 colours, the last few small.
    /// With `auto_grow`, a step whose tail held more than
    /// [`super::solver::TAIL_MAX_MANIFOLDS`] contacts adds a slot for the next steps.
    pub colour_slots: u32,
    /// Substeps per step: the solver (integrate velocities, warm start, solve, integrate
    /// positions, relax) runs this many times per step on the contacts found once at its start.
    pub substeps: u32,
    /// Stiffness of the soft contact between two moving bodies as a frequency (Hz), capped at a
    /// quarter of the substep rate; contacts with static, kinematic or sleeping bodies use twice
    /// this (capped the same way). Default 60, the cap at 4 substeps of 1/60 s (Box2D v3's
    /// default is 30): a resting contact under load F sinks F / (m_eff·ω²), and in a 100-row
    /// wall these sags add up row by row; at 30 Hz the wall still moves 9.5 mm between t = 1 s
    /// and 1.5 s, at 60 Hz 2.0 mm.
    pub contact_hertz: f32,
    /// Damping ratio of the soft contact (Box2D v3's default: 10, heavily over-damped, so an
    /// overlap goes away without bouncing).
    pub contact_damping_ratio: f32,
    /// The fastest the soft contact pushes an overlap apart, in m/s (Box2D v3: 3).
    pub max_push_out: f32,
    /// Stiffness of joints without their own ([`super::joint::Joint::with_softness`]) as a
    /// frequency (Hz), capped at half the substep rate (the contacts' cap is a quarter; a
    /// joint's rows stay stable at half and diverge at the full rate, `joint::solve::soft`).
    /// Default `f32::INFINITY`: as stiff as the substep allows, 120 Hz at 4 substeps of 1/60 s
    /// (Box2D v3's `constraintHertz` is 60). A joint stretches under a load F by F/(m·ω²), m
    /// its row's effective mass and ω = 2π·hertz, so a light link holding a heavy load needs
    /// more substeps (`tests/rigid_joints.rs`, the chain).
    pub joint_hertz: f32,
    /// Damping ratio of the joints' soft constraint (Box2D v3's default: 2).
    pub joint_damping_ratio: f32,
    /// Closing speeds below this bounce with no restitution (the book's 0.25 m/s).
    pub restitution_cutoff: f32,
    /// Contacts are made within this gap (the book's pessimistic margin).
    pub contact_margin: f32,
    /// The book's angular limit of position projection.
    pub angular_limit: f32,
    /// Fraction of penetration removed per position iteration.
    pub position_relax: f32,
    /// Penetration left alone (metres).
    pub position_slop: f32,
    /// Recency-weighted |v|² + |ω|² below which a body sleeps.
    pub sleep_epsilon: f32,
    /// Weight of the old motion after one second (the book's baseBias, 0.5–0.8).
    pub sleep_base_bias: f32,
    /// Warm-start the solver with last step's impulses.
    pub warm_start: bool,
    /// Friction combine rule.
    pub combine_friction: super::material::Combine,
    /// Restitution combine rule.
    pub combine_restitution: super::material::Combine,
    /// How the CPU twin rounds (ignored on the GPU): as written, or as a GPU compiler may
    /// (fused multiply-adds, reciprocal division; see [`crate::rounding`]) in the integrators
    /// and the contact solver (`solve_prepare`, the warm start and the velocity stages); the
    /// narrow phase, CCD, the gyroscopic solve and the quaternion helpers of `rigid::math`
    /// round as written in both modes.
    pub cpu_rounding: crate::CpuRounding,
}

impl RigidConfig {
    /// The block solver (`solver::block`): blocks of 16 cells, 3 relax rounds of 3 sweeps per
    /// block, each block's contacts coloured on their own. The 100-row wall's median drift
    /// between t = 1 s and 1.5 s is 1.8 mm (1.9 mm with the default 8 whole sweeps), the
    /// 200-row wall's 11.8 mm (11.5 mm), in 147 to 150 dispatches a step for walls of 5k to 100k
    /// boxes instead of 441 to 485. Off by default, and for a hardware GPU not the faster
    /// choice: on an H100 the 5k wall steps in 14.3 ms against 5.0 ms colour by colour (5.8 ms
    /// with 4-cell blocks), as a block's workgroup runs its colours' contact solves one after
    /// another at a few microseconds each, where a colour dispatch costs about 6 µs in all. On
    /// lavapipe, whose dispatches are what cost, the 20k and 100k walls and the box rain step
    /// 12–30% faster with it (BENCHMARKS.md, "Block solver" and 2026-11-26, `ce68020`).
    #[must_use]
    pub fn with_blocks(mut self) -> Self {
        self.block_cells = 16;
        self.block_sweeps = 3;
        self.relax_iterations = 3;
        self
    }
}

impl Default for RigidConfig {
    fn default() -> Self {
        Self {
            body_capacity: 1024,
            shape_capacity: 0,
            pair_capacity: 0,
            joint_capacity: 0,
            generator_capacity: 0,
            auto_grow: true,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            velocity_iterations: 1,
            relax_iterations: 8,
            block_cells: 0,
            block_sweeps: 3,
            position_iterations: 0,
            substeps: 4,
            colour_slots: 8,
            contact_hertz: 60.0,
            contact_damping_ratio: 10.0,
            max_push_out: 3.0,
            joint_hertz: f32::INFINITY,
            joint_damping_ratio: 2.0,
            restitution_cutoff: 0.25,
            contact_margin: 0.02,
            angular_limit: 0.2,
            position_relax: 0.8,
            position_slop: 0.002,
            sleep_epsilon: 0.05,
            sleep_base_bias: 0.5,
            warm_start: true,
            combine_friction: super::material::Combine::Geometric,
            combine_restitution: super::material::Combine::Average,
            cpu_rounding: crate::CpuRounding::Separate,
        }
    }
}
