//! Per-stage parity of the mass-aggregate world: the GPU kernels against the CPU twin on seeded
//! random input, slot by slot, with named tolerances.
//!
//! * `agg_integrate`, once per force-generator kind: random particles (1 or 2, 63 and 1000 of
//!   them) and random generators of that kind, several per particle, one step with no links,
//!   fields or collisions. Besides parity, every result is checked against an independent f64
//!   evaluation of the generator's documented formula and one semi-implicit Euler step.
//! * `solve_links`: a random network of rods and cables (anchored and not, some particles
//!   pinned), one step with one link iteration (and with eight), within the bounds of a model
//!   that propagates the operations' differences through the solve itself (`link_model`).
//! * `collide`: a few hundred random overlapping grains over a floor, one step.
//! * `near_list`: the collide stage's candidate lists, exactly, and a slot that walks the grid
//!   instead of its list, bit for bit.
//!
//! Before stepping, both worlds must hold exactly what was added (uploads copy, they do not
//! compute).
//!
//! Every comparison runs twice against the same bounds: with the CPU twin rounding as Mesa's
//! software adapters do (`CpuRounding::Separate`) and as NVIDIA's may (`CpuRounding::Fused`, the
//! `*_fused_cpu` tests). The bounds are the error model's (tests/common/error_model.rs): per slot
//! for the generators and the collide stage, propagated through the solve for the links.

mod common;

#[path = "aggregate_parity/collide.rs"]
mod collide;
#[path = "aggregate_parity/generator_model.rs"]
mod generator_model;
#[path = "aggregate_parity/generators.rs"]
mod generators;
#[path = "aggregate_parity/link_model.rs"]
mod link_model;
#[path = "aggregate_parity/links.rs"]
mod links;
#[path = "aggregate_parity/near_list.rs"]
mod near_list;

use common::error_model::cost::{CONTRACT, DIV, DOT3, LENGTH, POW, ROUND};
use common::*;
use glam::{DVec3, Vec3, Vec4Swizzles};
use wgphys::aggregate::{
    AggSnapshot, AggregateConfig, AggregateWorld, Collisions, ForceGenerator, Link, ParticleId,
};
use wgphys::particles::{ForceField, Particle, ParticleCollider};
use wgphys::Backend;
use wgphys::CpuRounding;

const DT: f32 = 1.0 / 60.0;

fn report(label: &str, e: SnapErr) {
    eprintln!(
        "[measure] {label}: pos max |diff| {:.2e} ({:.0}% of tol), vel max |diff| {:.2e} ({:.0}% of tol)",
        e.pos.abs,
        100.0 * e.pos.used,
        e.vel.abs,
        100.0 * e.vel.used
    );
}

/// Builds the same world on both backends, the CPU twin rounding as `rounding` says, adds
/// `particles` and lets `build` add generators and links to each; checks both hold exactly the
/// particles added. Returns (gpu, cpu).
fn both(
    config: &AggregateConfig,
    rounding: CpuRounding,
    particles: &[Particle],
    build: impl Fn(&mut AggregateWorld, &[ParticleId]),
) -> (AggregateWorld, AggregateWorld) {
    // The process's one context: NVIDIA's driver stopped handing out devices after a dozen
    // tests here, each with its own (H200, driver 580, 2026-11-27, `7b9c45c`).
    let mut g = AggregateWorld::new(Backend::Gpu(shared_gpu()), config.clone()).expect("gpu world");
    let mut c = AggregateWorld::new(Backend::Cpu, config.clone()).expect("cpu world");
    c.set_cpu_rounding(rounding);
    let ig = g.add_particles(particles).expect("gpu add_particles");
    let ic = c.add_particles(particles).expect("cpu add_particles");
    let slots = |ids: &[ParticleId]| -> Vec<(u32, u32)> {
        ids.iter().map(|p| (p.index(), p.generation())).collect()
    };
    assert_eq!(
        slots(&ig),
        slots(&ic),
        "particle slots differ between backends"
    );
    for (k, id) in ic.iter().enumerate() {
        assert_eq!(id.index(), k as u32, "ids are slot indices in add order");
    }
    build(&mut g, &ig);
    build(&mut c, &ic);
    let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
    compare_agg("after upload", &sg, &sc, Tol::EXACT, Tol::EXACT);
    for (i, p) in particles.iter().enumerate() {
        assert_eq!(
            sc.pos[i],
            p.position.extend(1.0),
            "after upload: slot {i} pos"
        );
        assert_eq!(
            sc.vel[i],
            p.velocity.extend(p.damping),
            "after upload: slot {i} vel"
        );
    }
    (g, c)
}

/// Steps both once and compares; returns (gpu, cpu) snapshots.
fn step_compare(
    label: &str,
    g: &mut AggregateWorld,
    c: &mut AggregateWorld,
    pos: Tol,
    vel: Tol,
) -> (AggSnapshot, AggSnapshot) {
    g.step(DT).expect("gpu step");
    c.step(DT).expect("cpu step");
    let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
    let e = compare_agg(label, &sg, &sc, pos, vel);
    report(label, e);
    (sg, sc)
}

// ---------------------------------------------------------------------------------------------
// Shared by the stages' models
// ---------------------------------------------------------------------------------------------

fn d3(v: Vec3) -> DVec3 {
    v.as_dvec3()
}

/// What one velocity update v ← (v + a·dt)·pow(d, dt) may differ by, relative to the new
/// velocity: ROUND of the sum, POW of the damping factor, ROUND of the product; a side that
/// contracts the sum adds CONTRACT of |a·dt|.
const STEP_V: f64 = ROUND + POW + ROUND;

/// Every slot's f64 reference step (semi-implicit Euler with the summed generator forces,
/// v1 = (v0 + (a_own + w·Σf)·dt)·d^dt, p1 = p0 + v1·dt) and the model's bound on what an f32
/// step may differ from it or from another f32 step by: velocities AGG_STEP of the slot's
/// scale |v0| + |a_own·dt| + S, S = w·dt·Σ scale over the m generator terms it gathers, and the
/// kind's cost plus ROUND·(m − 1) of S; positions that times dt, ROUND of |p0| + |v1|·dt and
/// CONTRACT of |v1|·dt. Immovable slots: exact (`None`).
struct Expected {
    slots: Vec<Option<(DVec3, DVec3, f64, f64)>>,
}

/// GPU against CPU, slot by slot within the model's bound (the alive flags and damping bit for
/// bit); returns the largest differences (m, m/s) and the largest share of the bound used.
fn check_parity(label: &str, sg: &AggSnapshot, sc: &AggSnapshot, exp: &Expected) -> [f64; 3] {
    let any = Tol {
        rel: 0.0,
        abs: f32::INFINITY,
    };
    compare_agg(label, sg, sc, any, any);
    let mut out = [0.0f64; 3];
    for (i, slot) in exp.slots.iter().enumerate() {
        let (tol_p, tol_v) = slot.map_or((0.0, 0.0), |s| (s.2, s.3));
        for k in 0..3 {
            let dp = f64::from((sg.pos[i][k] - sc.pos[i][k]).abs());
            let dv = f64::from((sg.vel[i][k] - sc.vel[i][k]).abs());
            assert!(
                dp <= tol_p,
                "{label}: slot {i} pos[{k}]: gpu {} vs cpu {}, |diff| {dp:e} > {tol_p:e}",
                sg.pos[i][k],
                sc.pos[i][k]
            );
            assert!(
                dv <= tol_v,
                "{label}: slot {i} vel[{k}]: gpu {} vs cpu {}, |diff| {dv:e} > {tol_v:e}",
                sg.vel[i][k],
                sc.vel[i][k]
            );
            out[0] = out[0].max(dp);
            out[1] = out[1].max(dv);
            if tol_p > 0.0 {
                out[2] = out[2].max(dp / tol_p).max(dv / tol_v);
            }
        }
    }
    out
}
