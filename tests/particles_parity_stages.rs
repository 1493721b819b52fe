//! Per-stage parity: the GPU kernels against the CPU twin on seeded random input of 1, 63, 1000
//! and 65537 particles (one particle, less than a workgroup, several workgroups, and one past a
//! 64-block boundary), slot by slot, with named tolerances; the integer bookkeeping (ids, kinds,
//! counters) must be identical.
//!
//! Every case first spawns its particles and takes one step, after which both pools must hold
//! exactly what was spawned, bit for bit (the `append` stage copies, it does not compute). The
//! stage under test then runs for one step.
//!
//! Every comparison runs twice against the same bounds: with the CPU twin rounding as Mesa's
//! software adapters do (`CpuRounding::Separate`) and as NVIDIA's may (`CpuRounding::Fused`, the
//! `*_fused_cpu` tests). The bounds are the error model's (tests/common/error_model.rs).

mod common;

#[path = "particles_parity_stages/colliders.rs"]
mod colliders;
#[path = "particles_parity_stages/forces.rs"]
mod forces;
#[path = "particles_parity_stages/integrate.rs"]
mod integrate;
#[path = "particles_parity_stages/lifecycle.rs"]
mod lifecycle;

use common::error_model::cost::{CONTRACT, DIV, DOT3, LENGTH, ROUND, SQRT};
use common::*;
use glam::{EulerRot, Quat, Vec3, Vec4};
use wgphys::particles::types::GPU_ID_BIT;
use wgphys::particles::{
    ColliderShape, ForceField, Particle, ParticleCollider, ParticleHandle, ParticleWorld, Snapshot,
    WorldConfig,
};
use wgphys::CpuRounding;

const DT: f32 = 1.0 / 60.0;
const SIZES: [u32; 4] = [1, 63, 1000, 65537];

// Every bound below is the error model's (tests/common/error_model.rs): one evaluation of the
// stage, each operation along its chain costing what it may differ by between the GPU and the
// CPU twin in either rounding (`error_model::cost`, in units of u = 2⁻²⁴), times the largest
// value it rounds in the case, times the compared result's sensitivity to it; worst case,
// all aligned. The `[measure]` lines print how much of each bound a run uses.

/// Lane bounds of [`random_particle`]'s velocities and own accelerations, m/s and m/s².
const V_LANE: f64 = 20.0;
const A_LANE: f64 = 10.0;
/// The largest inverse mass [`random_particle`] draws (0.1 kg), 1/kg.
const W_MAX: f64 = 10.0;
/// [`DT`] as f64 (the same value).
const DT64: f64 = DT as f64;

use common::error_model::STEP_V;

/// `(rel, abs)` in units of u.
const fn tol(rel: f64, abs: f64) -> Tol {
    Tol {
        rel: (rel * U) as f32,
        abs: (abs * U) as f32,
    }
}

/// The error model's [`error_model::step_model`] at [`DT`]: `k` integration steps without
/// colliders at lane speeds up to `v` and accelerations up to `a`, `[pos rel, pos abs, vel rel,
/// vel abs]` in units of u.
const fn step_model(k: u32, v: f64, a: f64) -> [f64; 4] {
    error_model::step_model(k, v, a, DT64)
}

/// [`step_model`] as the snapshot's tolerances. Every other field is exact, each for its reason:
/// the acceleration (with the inverse mass), colour, size and lifetime are copied from the
/// spawn (no firework rule or life curve recomputes them here), and the age is `age + dt`, one
/// correctly rounded add of the same operands on both sides.
const fn steps_tol(k: u32, v: f64, a: f64) -> SnapTol {
    let m = step_model(k, v, a);
    SnapTol {
        pos: tol(m[0], m[1]),
        vel: tol(m[2], m[3]),
        ..SnapTol::EXACT
    }
}

/// One integration step, no fields or colliders: positions ROUND of |p| (2u, one ulp) and
/// CONTRACT of |v·dt| ≤ 20 m/s × dt; velocities STEP_V = 16u of |v| and CONTRACT of |a·dt| ≤
/// 10 m/s² × dt. Measured on lavapipe and llvmpipe against both roundings of the twin: at most
/// one ulp of position (the fused twin) and three of velocity (5.7e-6 m/s at 16–32 m/s). Any
/// real change to the update (a missing dt, a wrong damping exponent) is off by orders of
/// magnitude more.
const INTEGRATE: SnapTol = steps_tol(1, V_LANE, A_LANE);

/// Three steps of the lifecycle case ([`step_model`] with k = 3): velocities 48u of |v| and
/// 51u of |a·dt|, positions 6u of |p| and 57u of v·dt (v ≤ 20.5 m/s after three steps).
const THREE_STEPS: SnapTol = steps_tol(3, V_LANE + 3.0 * A_LANE * DT64, A_LANE);

fn report(label: &str, e: SnapErr) {
    eprintln!("[measure] {label}: {e}");
}

/// A random particle: position in a 100 m box, speeds to 20 m/s, own accelerations to 10 m/s²,
/// damping in [0, 1] (exact 0 and 1 included), masses 0.1–100 kg, one in ten immovable.
fn random_particle(rng: &mut Rng, pos_lo: f32, pos_hi: f32) -> Particle {
    let damping = match rng.below(10) {
        0 => 1.0,
        1 => 0.0,
        _ => rng.unit(),
    };
    let p = Particle::new(rng.vec3(pos_lo, pos_hi))
        .with_velocity(rng.vec3(-20.0, 20.0))
        .with_acceleration(rng.vec3(-10.0, 10.0))
        .with_damping(damping)
        .with_size(rng.range(0.01, 0.5))
        .with_colour(Vec4::new(rng.unit(), rng.unit(), rng.unit(), 1.0));
    if rng.chance(0.1) {
        p.with_inverse_mass(0.0)
    } else {
        p.with_mass(rng.range(0.1, 100.0))
    }
}

/// Spawns `particles` on both backends, the CPU twin rounding as `rounding` says, and steps
/// once; checks both pools hold exactly what was spawned, in spawn order, with ids 0..n.
fn spawn_both(
    config: &WorldConfig,
    particles: &[Particle],
    rounding: CpuRounding,
) -> (ParticleWorld, ParticleWorld) {
    let (g, c, _) = spawn_both_with_handles(config, particles, rounding);
    (g, c)
}

/// As [`spawn_both`], also returning each particle's (gpu, cpu) handle.
fn spawn_both_with_handles(
    config: &WorldConfig,
    particles: &[Particle],
    rounding: CpuRounding,
) -> (
    ParticleWorld,
    ParticleWorld,
    Vec<(ParticleHandle, ParticleHandle)>,
) {
    let (mut g, mut c) = pair(config);
    c.set_cpu_rounding(rounding);
    let mut handles = Vec::with_capacity(particles.len());
    for (i, p) in particles.iter().enumerate() {
        let hg = g.spawn(*p).expect("gpu spawn");
        let hc = c.spawn(*p).expect("cpu spawn");
        assert_eq!(
            (hg.id(), hc.id()),
            (i as u32, i as u32),
            "handle ids are issued in spawn order"
        );
        handles.push((hg, hc));
    }
    g.step(DT).expect("gpu step");
    c.step(DT).expect("cpu step");
    let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
    compare_snapshots("after spawn (append copies)", &sg, &sc, SnapTol::EXACT);
    assert_counters_eq(
        "after spawn",
        &g.read_counters().unwrap(),
        &c.read_counters().unwrap(),
    );
    for (i, p) in particles.iter().enumerate() {
        assert_eq!(sc.life[i].id, i as u32, "after spawn: slot {i} life.id");
        assert_eq!(
            sc.pos[i],
            p.position.extend(1.0),
            "after spawn: slot {i} pos"
        );
        assert_eq!(
            sc.vel[i],
            p.velocity.extend(p.damping),
            "after spawn: slot {i} vel"
        );
        assert_eq!(
            sc.acc[i],
            p.acceleration.extend(p.inverse_mass),
            "after spawn: slot {i} acc"
        );
        assert_eq!(sc.colour[i], p.colour, "after spawn: slot {i} colour");
        assert_eq!(sc.size[i], p.size, "after spawn: slot {i} size");
        let l = sc.life[i];
        assert_eq!(
            (l.age, l.kind),
            (0.0, 0),
            "after spawn: slot {i} (life.age, life.kind)"
        );
        match p.lifetime {
            Some(t) => assert_eq!(l.lifetime, t, "after spawn: slot {i} life.lifetime"),
            None => assert!(
                l.lifetime < 0.0,
                "after spawn: slot {i} life.lifetime {} of an immortal particle is not negative",
                l.lifetime
            ),
        }
    }
    (g, c, handles)
}

/// Steps both worlds once and compares everything; returns the snapshots (gpu, cpu).
fn step_and_compare(
    label: &str,
    g: &mut ParticleWorld,
    c: &mut ParticleWorld,
    tol: SnapTol,
) -> (Snapshot, Snapshot) {
    g.step(DT).expect("gpu step");
    c.step(DT).expect("cpu step");
    let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
    let e = compare_snapshots(label, &sg, &sc, tol);
    assert_counters_eq(
        label,
        &g.read_counters().unwrap(),
        &c.read_counters().unwrap(),
    );
    report(label, e);
    (sg, sc)
}

fn config(n: u32) -> WorldConfig {
    WorldConfig {
        capacity: n,
        ..WorldConfig::default()
    }
}
