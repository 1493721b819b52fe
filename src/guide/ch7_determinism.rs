//! # 7. Determinism and parity
//!
//! Three different promises, worth keeping apart:
//!
//! 1. **The CPU twin is deterministic everywhere.** The same calls with the same time steps give
//!    the same bits on every run and on every machine with IEEE `f32` arithmetic and the same
//!    maths library (Rust never fuses floating-point operations on its own; the golden hashes
//!    below assume glibc's `powf`, `cosf` and `sinf`, as on x86_64 Linux). The twin runs on
//!    one thread, and its four-lane SIMD contact solver performs the same operations as one
//!    contact at a time.
//! 2. **A GPU run is deterministic on its adapter.** Two runs of the same program on one
//!    adapter and driver give bit-identical state. No kernel uses floating-point atomics, and
//!    everything that depends on the order threads finish in is put in a canonical order:
//!    spawns and firework children get their slots from prefix sums, the grids are built by
//!    stable radix sorts, the broad phase writes sorted, unique pairs, the contact colouring is
//!    deterministic, and random numbers are a counter-based hash of
//!    (seed, id, step), the same on the CPU and the GPU. Recording steps into your own encoder
//!    gives the same bits as `step()` ([`ch4_encoding`](super::ch4_encoding)), and settings
//!    that only change how work is dispatched (the rigid world's `colour_slots`, submitting by
//!    phase, block staging) do not change a bit.
//! 3. **GPU and CPU agree within bounds, not bits.** WGSL lets a compiler fuse `a * b + c`,
//!    divide through a reciprocal (2.5 ulp) and approximate `sqrt`, `pow`, `sin` and `cos`;
//!    different adapters make different choices, and the CPU twin makes none. Each step's
//!    results differ in the last bits, and chaotic scenes (a pile, a struck stack) grow those
//!    differences into different outcomes within seconds. Do not run a networked lockstep game on
//!    GPU worlds on different machines; run its authoritative world on the CPU twin.
//!
//! ## The CPU twin
//!
//! Every stage a GPU step runs is a WGSL entry point and a Rust function of the same name
//! ([`crate::particles::cpu`], [`crate::aggregate::cpu`], the stage modules of
//! [`crate::rigid`]), run in the same order: both backends walk one stage list
//! ([`ParticleStep::sequence`](crate::particles::ParticleStep::sequence),
//! [`AggStep::sequence`](crate::aggregate::AggStep::sequence),
//! `rigid::step::sequence`), and the tests hold the stages each
//! backend ran to it (`last_stages`, `cpu_stage_trace`, `step_plan`). The twin is the
//! reference the GPU is tested against, and a complete backend of its own.
//!
//! ## [`CpuRounding`](crate::CpuRounding)
//!
//! The twin can round two ways:
//!
//! - [`Separate`](crate::CpuRounding::Separate), the default: every operation rounded as
//!   written, left to right. This is how Mesa's software adapters evaluate `+`, `−` and `*`, and
//!   it is the mode the golden hashes pin.
//! - [`Fused`](crate::CpuRounding::Fused): `a * b + c` as one fused multiply-add (dot products as
//!   a chain of them), `a / b` as `a * (1 / b)`, `sqrt(x)` as `x * (1 / sqrt(x))`: one rounding
//!   a GPU compiler such as NVIDIA's may choose. Not the worst case WGSL allows; a second,
//!   different rounding of the same stages.
//!
//! Set it per world ([`WorldConfig::cpu_rounding`](crate::particles::WorldConfig::cpu_rounding),
//! [`AggregateConfig::cpu_rounding`](crate::aggregate::AggregateConfig::cpu_rounding),
//! [`RigidConfig::cpu_rounding`](crate::rigid::RigidConfig::cpu_rounding); the particle and
//! aggregate worlds also have `set_cpu_rounding`), or around direct calls of a twin's stage
//! functions with `wgphys::rounding::with_cpu_rounding`. The GPU backend
//! ignores it. In the rigid world it covers the integrators and the contact solver; the narrow
//! phase, continuous collision and the gyroscopic solve round as written in both modes. Use it
//! to check that something you rely on (a test's tolerance, a puzzle that must be solvable)
//! holds for more than one rounding: a bound that holds only for one is a bound tuned to one
//! adapter.
//!
//! ```
//! use glam::Vec3;
//! use wgphys::rigid::types::GpuBody;
//! use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
//! use wgphys::{Backend, CpuRounding};
//!
//! fn run(rounding: CpuRounding) -> wgphys::Result<Vec<GpuBody>> {
//!     let config = RigidConfig { cpu_rounding: rounding, ..RigidConfig::default() };
//!     let mut world = RigidWorld::new(Backend::Cpu, config)?;
//!     world.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])?;
//!     for i in 0..4 {
//!         let at = Vec3::new(0.1 * i as f32, 0.6 + 1.1 * i as f32, 0.0);
//!         let body = RigidBody::dynamic().position(at).angular_velocity(Vec3::new(0.0, 0.5, 1.0));
//!         world.add_body(body, &[Collider::cuboid(Vec3::splat(0.5))])?;
//!     }
//!     for _ in 0..60 {
//!         world.step(1.0 / 60.0)?;
//!     }
//!     world.read_bodies()
//! }
//!
//! let (a, b) = (run(CpuRounding::Separate)?, run(CpuRounding::Separate)?);
//! let bits = |v: &[GpuBody]| bytemuck::cast_slice::<GpuBody, u8>(v).to_vec();
//! assert_eq!(bits(&a), bits(&b)); // a rerun: the same bits
//! let fused = run(CpuRounding::Fused)?;
//! assert_ne!(bits(&a), bits(&fused)); // another rounding: other bits...
//! let apart = a.iter().zip(&fused).map(|(x, y)| (x.pos - y.pos).length()).fold(0.0, f32::max);
//! assert!(apart < 1e-3); // ...close by
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## Golden hashes
//!
//! A golden hash is the FNV-1a hash of the `to_bits()` of every field of the state after a
//! fixed scene and number of steps on the CPU twin, pinned in a test: the fireworks show, a
//! fountain and an emitter scene after 300 steps (`tests/particles_determinism.rs`), a rain of
//! boxes after 120 steps (`tests/rigid_step.rs`) and ragdolls on stairs
//! (`tests/rigid_joints_parity.rs`). They pin the simulation's arithmetic and operation order:
//! a change that moves one changes the behaviour of every program, and is re-minted only on
//! purpose, with the reason in the commit. Beside them, the GPU determinism tests run a scene
//! twice on one adapter and require the same bits.
//!
//! ## What the GPU-against-CPU tests check
//!
//! The parity tests (README, "What the GPU-against-CPU tests check") run each stage, and whole
//! scenes, on the GPU and on the twin, and compare every field of the state: for a particle
//! its id, kind, age, lifetime, acceleration, inverse mass, colour, size, position and velocity
//! and the pool's counters; for a rigid body its pose, velocities, inverse inertias,
//! accumulators, motion and flags; for a manifold its ids, features, normal, points and
//! impulses. Each field's bound comes from an error model written beside the test
//! (`tests/common/error_model.rs`), never from what one adapter printed:
//!
//! - exact, where the operations are exact or are copies (ids, kinds, counters, ages, flags);
//! - for one evaluation of a stage, each operation's possible difference (a fused
//!   multiply-add, WGSL's division, `sqrt`, `pow`, `cos`, `sin`) times what it rounds, summed
//!   along the stage;
//! - over many steps, the rounding drift as a random walk, plus the damping factor `pow(d, dt)`
//!   whose difference repeats every step and adds up linearly;
//! - where the dynamics amplify a difference (a vortex's gradient, a contact), a running bound
//!   along the twin's trajectory, or the twin (or an `f64` mirror of it) run again with every
//!   operation moved within what it may differ by, the bound being the spread;
//! - where a decision may go the other way (a contact test, a link at its length, a separating
//!   axis), a divergence only within what the decision is worth, and only where the model says
//!   the decision was within rounding.
//!
//! They run on Mesa's lavapipe and llvmpipe, most of them with the twin in both roundings
//! against the same bounds. What they do not claim: the bounds are argued for a compiler that
//! fuses (NVIDIA's) but run on Mesa's adapters; the twin's narrow phase rounds only as written;
//! the sand box is compared for 45 steps within a hundredth of a grain's radius, a budget
//! rather than a rounding model; the sub-emitters' impact test compares counts, not the
//! children's state.
