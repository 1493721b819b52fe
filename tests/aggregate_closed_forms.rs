//! Closed forms and physical invariants of the mass-aggregate world, on the CPU and on the GPU
//! where it is cheap: a spring's period, the fake stiff spring's damped oscillation, buoyant
//! equilibrium, rods and cables under load, Newton's cradle, the improved damped spring's
//! one-step closure, the two link orders' common rest state, and a pile of grains at rest.

mod common;

use common::*;
use glam::{DVec3, Vec3, Vec4Swizzles};
use std::f64::consts::TAU;
use wgphys::aggregate::{
    AggSnapshot, AggregateConfig, AggregateWorld, ForceGenerator, Link, ParticleId, ResolveOrder,
};
use wgphys::particles::{Backend, ColliderShape, ForceField, Particle};
use wgphys::scenes::aggregate as sc;

const G: f32 = 9.81;

fn world(backend: Backend, config: AggregateConfig) -> AggregateWorld {
    AggregateWorld::new(backend, config).expect("world")
}

fn gravity() -> Vec<ForceField> {
    vec![ForceField::Gravity(Vec3::new(0.0, -G, 0.0))]
}

/// Steps `steps` times, calling `each(step, snapshot)` after every step (1-based).
fn run(w: &mut AggregateWorld, dt: f32, steps: u32, mut each: impl FnMut(u32, &AggSnapshot)) {
    for s in 1..=steps {
        w.step(dt).expect("step");
        each(s, &w.read_snapshot().expect("snapshot"));
    }
}

fn d3(v: Vec3) -> DVec3 {
    v.as_dvec3()
}

// ---------------------------------------------------------------------------------------------
// Spring period
// ---------------------------------------------------------------------------------------------

/// Three particles, each on its own anchored spring (rest length 1 m, released from rest 0.5 m
/// stretched along a skew direction), no gravity, no damping: the period is 2π√(m/k).
///
/// Semi-implicit Euler oscillates at ω_h = (2/h)·asin(ωh/2), slower than ω by (ωh)²/24 to
/// first order: with h = 1/480 s and ω ≤ 20 rad/s that is 8e-5 of the period, so 1% is the
/// issue's requirement with a wide margin for the crossing interpolation (linear between
/// samples, error O((ωh)²) of a step). Against 2π/ω_h itself the period must agree to 5e-6,
/// which tells semi-implicit Euler from the book's order. The amplitude must also survive: semi-implicit Euler
/// keeps a spring's energy (its amplitude oscillates by ~ωh/2 within a period but does not
/// drift), so the last period's extremes are within 1% of the first's.
#[test]
fn anchored_spring_period() {
    const PERIOD_TOL: f64 = 0.01;
    const AMPLITUDE_TOL: f64 = 0.01;
    // Against semi-implicit Euler's own period 2π/ω_h the only errors are the crossing
    // interpolation (x is linear near a zero up to O((ωh)³)) and f32 rounding of the
    // positions: measured 2.2e-7 on both backends. The book's order (explicit Euler) runs
    // slower by (ωh)²·3/8, at least 4e-5 here.
    const DISCRETE_TOL: f64 = 5e-6;
    let dt = 1.0f32 / 480.0;
    // 2.5 s: at least two periods of the slowest oscillator.
    let steps = 1200;
    // (mass kg, stiffness N/m): periods 1 s, 1.26 s, 0.31 s.
    let cases = [(1.0f32, (TAU * TAU) as f32), (2.0, 50.0), (0.5, 200.0)];
    let dir = Vec3::new(1.0, 2.0, -2.0) / 3.0;
    for (name, backend) in backends() {
        let mut w = world(
            backend,
            AggregateConfig {
                capacity: 3,
                ..Default::default()
            },
        );
        let mut anchors = Vec::new();
        for (k, &(m, stiffness)) in cases.iter().enumerate() {
            let anchor = Vec3::new(5.0 * k as f32, 1.0, -2.0);
            let p = w
                .add_particle(Particle::new(anchor + dir * 1.5).with_mass(m))
                .expect("particle");
            w.add_generator(ForceGenerator::AnchoredSpring {
                particle: p,
                anchor,
                stiffness,
                rest_length: 1.0,
            })
            .expect("spring");
            anchors.push(anchor);
        }
        let mut prev = vec![0.5f64; cases.len()];
        let mut crossings: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
        let mut extremes: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
        run(&mut w, dt, steps, |s, snap| {
            for k in 0..cases.len() {
                let x = f64::from((snap.pos[k].xyz() - anchors[k]).length()) - 1.0;
                if (prev[k] < 0.0) != (x < 0.0) {
                    // Linear interpolation of the zero crossing between the two samples.
                    let frac = prev[k] / (prev[k] - x);
                    crossings[k].push((f64::from(s) - 1.0 + frac) * f64::from(dt));
                }
                extremes[k].push(x.abs());
                prev[k] = x;
            }
        });
        for (k, &(m, stiffness)) in cases.iter().enumerate() {
            let want = TAU * (f64::from(m) / f64::from(stiffness)).sqrt();
            let c = &crossings[k];
            assert!(
                c.len() >= 4,
                "{name}: oscillator {k} crossed zero only {} times in {steps} steps",
                c.len()
            );
            // Consecutive crossings are half a period apart.
            let got = 2.0 * (c[c.len() - 1] - c[0]) / (c.len() - 1) as f64;
            let err = (got - want).abs() / want;
            // The exact period of semi-implicit Euler: 2π/ω_h.
            let omega = (f64::from(stiffness) / f64::from(m)).sqrt();
            let h = f64::from(dt);
            let discrete = TAU / (2.0 / h * (omega * h / 2.0).asin());
            let err_h = (got - discrete).abs() / discrete;
            eprintln!(
                "[measure] {name}: oscillator {k} (m {m}, k {stiffness}): period {got:.7} s vs \
                 2π√(m/k) = {want:.7} s (rel err {err:.2e}), vs 2π/ω_h = {discrete:.7} s (rel \
                 err {err_h:.2e})"
            );
            assert!(
                err_h <= DISCRETE_TOL,
                "{name}: oscillator {k} (m {m}, k {stiffness}): period {got} s vs semi-implicit \
                 Euler's 2π/ω_h = {discrete} s (relative error {err_h:e}); the integrator is not \
                 semi-implicit Euler"
            );
            assert!(
                err <= PERIOD_TOL,
                "{name}: oscillator {k} (m {m}, k {stiffness}): period {got} s vs 2π√(m/k) = {want} s (relative error {err:e})"
            );
            // Extremes of |x| over the first and last period.
            let per = (want / f64::from(dt)).ceil() as usize;
            let e = &extremes[k];
            let first = e[..per].iter().copied().fold(0.0, f64::max);
            let last = e[e.len() - per..].iter().copied().fold(0.0, f64::max);
            assert!(
                (first - 0.5).abs() <= AMPLITUDE_TOL * 0.5 && (last - first).abs() <= AMPLITUDE_TOL * first,
                "{name}: oscillator {k}: amplitude {first} m in the first period, {last} m in the last (released at 0.5 m)"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Fake stiff spring
// ---------------------------------------------------------------------------------------------

/// The fake stiff spring (book §6.3) follows a damped harmonic oscillator p̈ = −k·p − d·ṗ in
/// closed form. When nothing else acts, the positions it produces at the step times must be
/// samples of such an oscillator: x_n = e^{−d·t_n/2}(A·cos γt_n + B·sin γt_n), γ = √(k − d²/4),
/// for constants A, B fixed by the first two samples. Equivalently every three consecutive
/// samples obey x_{n+1} = 2e^{−dh/2}cos(γh)·x_n − e^{−dh}·x_{n−1}: the envelope decays as
/// e^{−d·t/2} and the phase turns at γ, whatever the step.
///
/// Checked per component at every step for 5 s at the game step h = 1/60 s, where a fake
/// spring is meant to be used (k = 40 /s², d = 1 /s: about one oscillation per second, γh =
/// 0.105), from a skew start with a skew velocity.
#[test]
fn fake_spring_samples_the_damped_oscillator() {
    // Sampled positions are rounded to f32 each step (relative 6e-8) and the recurrence
    // neither damps nor grows rounding (it is the oscillator's own), so the error stays within
    // ~steps × ulp: 300 × 1.2e-7 × 1 m ≈ 4e-5 m; A and B from two rounded samples add
    // 1/sin(γh) ≈ 10 ulps. 1e-4 of the 1 m amplitude covers both; the fake spring's error
    // under a wrong integrator coupling is tens of percent.
    const SAMPLE_TOL: f64 = 1e-4;
    let dt = 1.0f32 / 60.0;
    let steps = 300;
    let (k, d) = (40.0f32, 1.0f32);
    let anchor = Vec3::new(0.5, 2.0, -1.0);
    let p0 = Vec3::new(0.6, -0.3, 0.2);
    let v0 = Vec3::new(-1.0, 0.5, 2.0);
    for (name, backend) in backends() {
        let mut w = world(
            backend,
            AggregateConfig {
                capacity: 1,
                ..Default::default()
            },
        );
        let p = w
            .add_particle(Particle::new(anchor + p0).with_velocity(v0).with_mass(3.0))
            .expect("particle");
        w.add_generator(ForceGenerator::FakeSpring {
            particle: p,
            anchor,
            stiffness: k,
            damping: d,
        })
        .expect("fake spring");
        let mut xs = vec![d3(p0)];
        run(&mut w, dt, steps, |_, s| {
            xs.push(d3(s.pos[0].xyz() - anchor))
        });
        let (h, kf, df) = (f64::from(dt), f64::from(k), f64::from(d));
        let gamma = (kf - df * df / 4.0).sqrt();
        // A, B from x_0 and x_1: x_0 = A, x_1 = e^{−dh/2}(A cos γh + B sin γh).
        let a = xs[0];
        let b = (xs[1] * (df * h / 2.0).exp() - a * (gamma * h).cos()) / (gamma * h).sin();
        let mut worst = 0.0f64;
        for (n, x) in xs.iter().enumerate() {
            let t = n as f64 * h;
            let want = (a * (gamma * t).cos() + b * (gamma * t).sin()) * (-df * t / 2.0).exp();
            let err = (*x - want).abs().max_element();
            worst = worst.max(err);
            assert!(
                err <= SAMPLE_TOL,
                "{name}: step {n} (t = {t:.3} s): position relative to the anchor {x:?} vs the \
                 damped oscillator's sample {want:?} (|diff| {err:e}; envelope e^(-d t/2) = {:.4})",
                (-df * t / 2.0).exp()
            );
        }
        eprintln!("[measure] {name}: fake spring, largest distance from the oscillator's samples {worst:e} m");
    }
}

/// A fake spring with d² ≥ 4k has no oscillation to follow, but it is still a spring: the
/// over-damped oscillator (k = 1 /s², d = 3 /s) released 1 m from its anchor creeps back to it,
/// x(t) = 1.171·e^{−0.382 t} − 0.171·e^{−2.618 t}, 0.79 m after 1 s. The generator must either
/// be refused when added (naming the damping) or pull; it must not be accepted and do nothing.
#[test]
fn overdamped_fake_spring_is_refused_or_pulls() {
    let anchor = Vec3::new(0.0, 1.0, 0.0);
    for (name, backend) in backends() {
        let mut w = world(
            backend,
            AggregateConfig {
                capacity: 1,
                ..Default::default()
            },
        );
        let p = w
            .add_particle(Particle::new(anchor + Vec3::X))
            .expect("particle");
        let added = w.add_generator(ForceGenerator::FakeSpring {
            particle: p,
            anchor,
            stiffness: 1.0,
            damping: 3.0,
        });
        if let Err(e) = added {
            assert!(
                matches!(e, wgphys::Error::InvalidInput { what, .. } if what.contains("damping")),
                "{name}: an over-damped fake spring was refused with {e:?}; the error should name the damping"
            );
            continue;
        }
        for _ in 0..60 {
            w.step(1.0 / 60.0).expect("step");
        }
        let x = (w.read_snapshot().expect("snapshot").pos[0].xyz() - anchor).length();
        assert!(
            x < 0.9,
            "{name}: an over-damped fake spring was accepted but after 1 s its particle is still \
             {x} m from the anchor (released at 1 m; the over-damped oscillator is at 0.79 m)"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Buoyancy
// ---------------------------------------------------------------------------------------------

/// Bodies of volume V under gravity g in a liquid of density ρ settle where buoyancy carries
/// their weight: submerged fraction d = m/(ρV), height y = y_w + s − 2·s·d. Three bodies (d =
/// 0.2, 0.5, 0.8) dropped from above the surface, damped by a linear Drag generator at 70% of
/// critical damping of the buoyancy spring (stiffness ρVg/2s), for 8 s.
#[test]
fn buoyant_bodies_settle_at_the_equilibrium_depth() {
    // At rest the step is a fixed point: buoyancy ρVg·frac = m·g up to the rounding of frac =
    // (y_w + s − y)/2s (a few ulps of 0.25 m, 1e-7 m). After 8 s the damped oscillation has
    // decayed by at least e^−27 (ζωt for the heaviest body) from a 1 m drop. Measured: 3e-8 m
    // on both backends. A micrometre covers rounding with room to spare and is ten thousand
    // times below the error of a missing g or a wrong fraction (centimetres).
    const DEPTH_TOL: f32 = 1e-6;
    let (rho, volume, s, yw) = (1000.0f32, 0.002f32, 0.25f32, 0.0f32);
    let masses = [0.4f32, 1.0, 1.6];
    let k_buoy = rho * volume * G / (2.0 * s);
    for (name, backend) in backends() {
        let mut w = world(
            backend,
            AggregateConfig {
                capacity: 3,
                fields: gravity(),
                ..Default::default()
            },
        );
        for (i, &m) in masses.iter().enumerate() {
            let p = w
                .add_particle(Particle::new(Vec3::new(i as f32, 1.0, 0.5)).with_mass(m))
                .expect("body");
            w.add_generator(ForceGenerator::Buoyancy {
                particle: p,
                max_depth: s,
                volume,
                water_height: yw,
                density: rho,
                gravity: G,
            })
            .expect("buoyancy");
            w.add_generator(ForceGenerator::Drag {
                particle: p,
                k1: 2.0 * 0.7 * (k_buoy * m).sqrt(),
                k2: 0.0,
            })
            .expect("drag");
        }
        for _ in 0..480 {
            w.step(1.0 / 60.0).expect("step");
        }
        let snap = w.read_snapshot().expect("snapshot");
        for (i, &m) in masses.iter().enumerate() {
            let d = m / (rho * volume);
            let want = yw + s - 2.0 * s * d;
            let got = snap.pos[i];
            eprintln!(
                "[measure] {name}: body {i} (d = {d}): y {} vs {want} ({:e} m off), speed {:e}",
                got.y,
                (got.y - want).abs(),
                snap.vel[i].xyz().length()
            );
            assert!(
                (got.y - want).abs() <= DEPTH_TOL,
                "{name}: body {i} (mass {m} kg, submerged fraction {d}): rests at y = {} m, \
                 equilibrium y_w + s − 2sd = {want} m",
                got.y
            );
            assert_eq!(
                (got.x, got.z),
                (i as f32, 0.5),
                "{name}: body {i}: buoyancy and gravity are vertical, x and z must not move"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rods and cables under load
// ---------------------------------------------------------------------------------------------

/// The worst link of `snap`: (largest relative rod length error, its link index) and (largest
/// relative cable excess over the maximum length, its link index).
fn link_errors(snap: &AggSnapshot, links: &[(Link, usize, Option<usize>)]) -> [(f32, usize); 2] {
    let mut worst = [(0.0f32, 0usize); 2];
    for (k, (l, a, b)) in links.iter().enumerate() {
        let pa = snap.pos[*a].xyz();
        let other = |anchor: Vec3| b.map_or(anchor, |b| snap.pos[b].xyz());
        let (e, slot) = match *l {
            Link::Rod { length, .. } => (
                ((pa - other(Vec3::ZERO)).length() - length).abs() / length,
                0,
            ),
            Link::AnchoredRod { anchor, length, .. } => {
                (((pa - other(anchor)).length() - length).abs() / length, 0)
            }
            Link::Cable { max_length, .. } => (
                ((pa - other(Vec3::ZERO)).length() - max_length) / max_length,
                1,
            ),
            Link::AnchoredCable {
                anchor, max_length, ..
            } => (((pa - other(anchor)).length() - max_length) / max_length, 1),
        };
        if e > worst[slot].0 {
            worst[slot] = (e, k);
        }
    }
    worst
}

/// Tracks the worst link error over a run: (error, link, step) for rods and for cables.
#[derive(Default)]
struct WorstLinks([(f32, usize, u32); 2]);

impl WorstLinks {
    fn update(&mut self, step: u32, snap: &AggSnapshot, links: &[(Link, usize, Option<usize>)]) {
        for (w, (e, k)) in self.0.iter_mut().zip(link_errors(snap, links)) {
            if e > w.0 {
                *w = (e, k, step);
            }
        }
    }
}

/// Builds `specs` (rods/cables by particle index) in `w`, returning them with their indices.
fn add_links(
    w: &mut AggregateWorld,
    ids: &[ParticleId],
    specs: &[(bool, usize, Option<usize>, Vec3, f32)],
) -> Vec<(Link, usize, Option<usize>)> {
    specs
        .iter()
        .map(|&(rod, a, b, anchor, length)| {
            let l = match (rod, b) {
                (true, Some(b)) => Link::Rod {
                    a: ids[a],
                    b: ids[b],
                    length,
                },
                (false, Some(b)) => Link::Cable {
                    a: ids[a],
                    b: ids[b],
                    max_length: length,
                    restitution: 0.3,
                },
                (true, None) => Link::AnchoredRod {
                    particle: ids[a],
                    anchor,
                    length,
                },
                (false, None) => Link::AnchoredCable {
                    particle: ids[a],
                    anchor,
                    max_length: length,
                    restitution: 0.3,
                },
            };
            w.add_link(l).expect("link");
            (l, a, b)
        })
        .collect()
}

/// Relative tolerance of a rod's length under load, every step: the requirement.
const ROD_TOL: f32 = 1e-3;
/// How far a cable may exceed its maximum length, relative, every step: the same requirement as
/// a rod's (a cable is a one-sided rod), the solver being the same.
const CABLE_TOL: f32 = 1e-3;

/// Particles 0..=n hanging from `anchor`: 0 on its own link of `len0` to the anchor (a
/// pendulum), 1..=n a horizontal chain of `n` links of 0.5 m from the anchor (1 kg each), all
/// released at rest. Returns the world's particles and the link list.
fn pendulum_and_chain(
    w: &mut AggregateWorld,
    anchor: Vec3,
    rods: bool,
    bob: Particle,
    len0: f32,
    n: usize,
) -> Vec<(Link, usize, Option<usize>)> {
    let mut ps = vec![bob];
    for i in 1..=n {
        ps.push(Particle::new(anchor + Vec3::new(0.0, 0.0, 0.5 * i as f32)));
    }
    let ids = w.add_particles(&ps).expect("particles");
    let mut specs = vec![(rods, 0, None, anchor, len0), (rods, 1, None, anchor, 0.5)];
    for i in 1..n {
        specs.push((rods, i, Some(i + 1), Vec3::ZERO, 0.5));
    }
    add_links(w, &ids, &specs)
}

/// A pendulum (a 10 kg bob on a 1 m anchored rod, released horizontally) and a chain of four
/// 1 kg particles on four 0.5 m rods from the same anchor, released horizontally, so the swing
/// loads every rod with several times its weight. Every step for 5 s, every rod within 1e-3
/// of its length. Default settings: 8 link iterations, 60 Hz.
#[test]
fn rods_keep_their_length_under_load() {
    let anchor = Vec3::new(0.0, 3.0, 0.0);
    // Both backends run before anything is asserted, so a failure reports both.
    let mut results = Vec::new();
    for (name, backend) in backends() {
        let mut w = world(
            backend,
            AggregateConfig {
                capacity: 8,
                fields: gravity(),
                ..Default::default()
            },
        );
        let bob = Particle::new(anchor + Vec3::new(1.0, 0.0, 0.0)).with_mass(10.0);
        let links = pendulum_and_chain(&mut w, anchor, true, bob, 1.0, 4);
        let (mut worst, mut lowest) = (WorstLinks::default(), f32::INFINITY);
        run(&mut w, 1.0 / 60.0, 300, |s, snap| {
            worst.update(s, snap, &links);
            lowest = lowest.min(snap.pos[0].y).min(snap.pos[4].y);
        });
        let (e, k, s) = worst.0[0];
        eprintln!(
            "[measure] {name}: rods, largest relative length error {e:e} (link {k}, step {s})"
        );
        results.push((name, e, k, s, lowest));
    }
    for (name, e, k, s, lowest) in results {
        // The load is real: the pendulum and the chain swung down.
        assert!(
            lowest < anchor.y - 0.9,
            "{name}: neither the pendulum nor the chain swung below y = {}",
            anchor.y - 0.9
        );
        assert!(
            e <= ROD_TOL,
            "{name}: rod {k} (0 the pendulum, 1..=4 the chain from the anchor down) is off its \
             length by {e:e} relative at step {s} (tolerance {ROD_TOL:e})"
        );
    }
}

/// A 2 kg mass dropped from beside its anchor on a 1.5 m cable (restitution 0.3) jerks it taut
/// at ~5 m/s, and a chain of four 1 kg particles on 0.5 m cables swings from horizontal. Every
/// step for 4 s, no cable longer than its maximum by more than 1e-3.
#[test]
fn cables_never_exceed_their_length() {
    let anchor = Vec3::new(0.0, 3.0, 0.0);
    let mut results = Vec::new();
    for (name, backend) in backends() {
        let mut w = world(
            backend,
            AggregateConfig {
                capacity: 8,
                fields: gravity(),
                ..Default::default()
            },
        );
        let bob = Particle::new(anchor + Vec3::new(0.2, 0.0, 0.0)).with_mass(2.0);
        let links = pendulum_and_chain(&mut w, anchor, false, bob, 1.5, 4);
        let (mut worst, mut taut) = (WorstLinks::default(), 0u32);
        run(&mut w, 1.0 / 60.0, 240, |s, snap| {
            worst.update(s, snap, &links);
            if (snap.pos[0].xyz() - anchor).length() > 1.5 * 0.999 {
                taut += 1;
            }
        });
        let (e, k, s) = worst.0[1];
        eprintln!("[measure] {name}: cables, largest relative excess {e:e} (link {k}, step {s})");
        results.push((name, e, k, s, taut));
    }
    for (name, e, k, s, taut) in results {
        assert!(
            taut > 10,
            "{name}: the dropped mass's cable was taut in only {taut} steps; the load never came on"
        );
        assert!(
            e <= CABLE_TOL,
            "{name}: cable {k} (0 the dropped mass, 1..=4 the chain from the anchor down) \
             exceeds its maximum length by {e:e} relative at step {s} (tolerance {CABLE_TOL:e})"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Newton's cradle
// ---------------------------------------------------------------------------------------------

/// Five touching balls (restitution 1, no friction, no gravity), the first moving at 1 m/s:
/// the momentum passes down the row to the last ball, which leaves at 1 m/s while the others
/// stop; total momentum is conserved.
#[test]
fn newtons_cradle_passes_the_momentum_to_the_last_ball() {
    // 1% of v0: an elastic chain that leaks a few percent to the middle balls (the Jacobi
    // averaging splitting impulses) is what this test exists to catch.
    const CRADLE_TOL: f32 = 0.01;
    let (count, r, v0) = (5u32, 0.5f32, 1.0f32);
    // Every engaged contact exchanges equal and opposite velocity changes between equal masses
    // (n, vn and the share are computed from negated inputs on the two sides, so they match bit
    // for bit under any rounding), and a contact that does not close (a pair just pushed apart,
    // which rounding may read as overlapping by a few ulps) takes no part in the velocity
    // average, so the two grains of an impact divide by the same count. Total
    // momentum then changes only by the rounding of the two velocity updates, ≤ u·(|v_a| +
    // |v_b|) ≤ 2u·v0 per contact and iteration, for any rounding the two sides use (error
    // model, tests/common/error_model.rs: a conservation law gets the worst case, every
    // rounding aligned): 30 steps × 8 iterations × 4 contacts, plus the test's own sum of five
    // velocities. An impulse given to one ball and not the other costs ~v0.
    let steps = 30u32;
    let momentum_tol =
        (f64::from(steps * 8 * (count - 1)) * 2.0 * error_model::UNIT_ROUNDOFF * f64::from(v0)
            + error_model::sum_bound(count, f64::from(v0))) as f32;
    // Also started as rounding may leave a row of touching balls: each overlapping the next
    // by 4e-7 m (three to six ulps of the balls' x), the depth at which NVIDIA's rounding of
    // the first push-out left the H200's cradle. Those contacts do not close, and must not
    // change what an impact's velocity change is divided by.
    const ULPS_OVERLAP: f32 = -4e-7;
    let mut runs: Vec<_> = backends()
        .into_iter()
        .flat_map(|(name, b)| {
            [
                (
                    name.to_string(),
                    b.clone(),
                    wgphys::CpuRounding::Separate,
                    0.0,
                ),
                (
                    format!("{name} overlapping"),
                    b,
                    wgphys::CpuRounding::Separate,
                    ULPS_OVERLAP,
                ),
            ]
        })
        .collect();
    runs.push((
        "cpu fused".into(),
        Backend::Cpu,
        wgphys::CpuRounding::Fused,
        0.0,
    ));
    for (name, backend, rounding, gap) in runs {
        let mut w = sc::cradle_spaced(backend, count, r, v0, gap, rounding).expect("cradle");
        let mut snap = w.read_snapshot().expect("snapshot");
        let mut worst = 0.0f32;
        for s in 1..=steps {
            w.step(1.0 / 60.0).expect("step");
            snap = w.read_snapshot().expect("snapshot");
            let p: f32 = snap.vel.iter().map(|v| v.x).sum();
            let py: f32 = snap.vel.iter().map(|v| v.y.abs() + v.z.abs()).sum();
            worst = worst.max((p - v0).abs()).max(py);
            assert!(
                (p - v0).abs() <= momentum_tol && py <= momentum_tol,
                "{name} step {s}: total momentum ({p}, ·) vs {v0} (off-axis {py})"
            );
        }
        let v: Vec<f32> = snap.vel.iter().map(|v| v.x).collect();
        eprintln!(
            "[measure] {name}: cradle velocities after {steps} steps {v:?}, largest momentum \
             error {worst:e} (bound {momentum_tol:e})"
        );
        let last = count as usize - 1;
        assert!(
            (v[last] - v0).abs() <= CRADLE_TOL * v0,
            "{name}: last ball leaves at {} m/s, the first arrived at {v0} m/s (all: {v:?})",
            v[last]
        );
        for (i, vi) in v.iter().enumerate().take(last) {
            assert!(
                vi.abs() <= CRADLE_TOL * v0,
                "{name}: ball {i} still moves at {vi} m/s after passing the momentum on (all: {v:?})"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Improved damped spring
// ---------------------------------------------------------------------------------------------

/// The improved damped spring (articles 002-12) with C_k = C_d = 1 under semi-implicit Euler:
/// stretched and at rest, it closes the gap in one step (the length reaches the rest length)
/// and stops in the next (the velocity reaches zero), then stays. Anchored (m_red = m) and
/// between two particles of masses 1 and 3 (m_red = 3/4, the centre of mass keeps its
/// velocity).
#[test]
fn improved_damped_spring_closes_the_gap_in_one_step() {
    // The step computes x/dt² then multiplies by dt twice: a few ulps of the 1.75 m length
    // (ulp 1.2e-7) after step 1; velocities x/dt ≈ 45 m/s cancel to zero at step 2 up to a few
    // ulps of 45 m/s (3.8e-6 each). A spring that is off by one step is off by metres.
    const LENGTH_TOL: f32 = 1e-6;
    const SPEED_TOL: f32 = 2e-5;
    let dt = 1.0f32 / 60.0;
    let anchor = Vec3::new(1.0, 2.0, 3.0);
    let dir = Vec3::new(2.0, -1.0, 2.0) / 3.0;
    for (name, backend) in backends() {
        let mut w = world(
            backend,
            AggregateConfig {
                capacity: 3,
                ..Default::default()
            },
        );
        let ids = w
            .add_particles(&[
                Particle::new(anchor + dir * 1.75).with_mass(2.0),
                Particle::new(Vec3::new(-3.0, 0.0, 0.0)).with_velocity(Vec3::new(0.0, 0.0, 1.0)),
                Particle::new(Vec3::new(-3.0, 0.0, 0.0) + dir * 2.5)
                    .with_velocity(Vec3::new(0.0, 0.0, 1.0))
                    .with_mass(3.0),
            ])
            .expect("particles");
        w.add_generator(ForceGenerator::AnchoredDampedSpring {
            particle: ids[0],
            anchor,
            rest_length: 1.0,
            stiffness: 1.0,
            damping: 1.0,
        })
        .expect("anchored spring");
        w.add_generator(ForceGenerator::DampedSpring {
            a: ids[1],
            b: ids[2],
            rest_length: 1.0,
            stiffness: 1.0,
            damping: 1.0,
        })
        .expect("spring");
        let com_v = |s: &AggSnapshot| (s.vel[1].xyz() + 3.0 * s.vel[2].xyz()) / 4.0;
        run(&mut w, dt, 6, |s, snap| {
            let len0 = (snap.pos[0].xyz() - anchor).length();
            let len1 = (snap.pos[1].xyz() - snap.pos[2].xyz()).length();
            for (k, len) in [("anchored", len0), ("two-particle", len1)] {
                assert!(
                    (len - 1.0).abs() <= LENGTH_TOL,
                    "{name}: step {s}: {k} spring is {len} m long, rest length 1 m"
                );
            }
            let v0 = snap.vel[0].xyz().length();
            let vrel = (snap.vel[1].xyz() - snap.vel[2].xyz()).length();
            if s == 1 {
                assert!(
                    v0 > 10.0 && vrel > 10.0,
                    "{name}: step 1 should move the ends at (0.75 m or 1.5 m)/dt; speeds {v0}, {vrel}"
                );
            } else {
                assert!(
                    v0 <= SPEED_TOL && vrel <= SPEED_TOL,
                    "{name}: step {s}: anchored speed {v0} m/s, relative speed {vrel} m/s; both \
                     must be zero from step 2"
                );
            }
            assert!(
                (com_v(snap) - Vec3::new(0.0, 0.0, 1.0)).length() <= SPEED_TOL,
                "{name}: step {s}: the pair's centre of mass moves at {:?}, it started at (0, 0, 1)",
                com_v(snap)
            );
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Link resolution orders
// ---------------------------------------------------------------------------------------------

/// A chain hanging between two anchors: an anchored rod, then alternating rods and cables
/// (0.5 m each), and an anchored cable from the last particle to a second anchor 2.5 m away,
/// released horizontally and strongly damped (5% of the velocity kept per second). After 10 s
/// the CPU world with the book's most-severe-first resolver and the one with the GPU's coloured
/// batches must both be at rest, in the same shape.
#[test]
fn both_link_orders_settle_to_the_same_rest_state() {
    // The rest shape is fixed by the lengths, the anchors and gravity; what the two resolvers
    // leave unresolved each step (at most ~1e-3 of a length, see the rod test) may differ.
    // A millimetre is that much of a 0.5 m link, and a hundredth of one: a different
    // equilibrium (a cable slack in one, taut in the other) is centimetres away.
    const REST_TOL: f32 = 1e-3;
    // At rest: no particle moves more than 10 µm over the last second.
    const REST_DRIFT: f32 = 1e-5;
    let (a, b) = (Vec3::new(0.0, 3.0, 0.0), Vec3::new(2.5, 3.0, 0.0));
    let rest = |order: ResolveOrder| {
        let mut w = world(
            Backend::Cpu,
            AggregateConfig {
                capacity: 8,
                fields: gravity(),
                order,
                ..Default::default()
            },
        );
        let ps: Vec<Particle> = (0..6)
            .map(|i| {
                Particle::new(a + Vec3::new(0.5 * (i + 1) as f32, 0.0, 0.0)).with_damping(0.05)
            })
            .collect();
        let ids = w.add_particles(&ps).expect("particles");
        let mut specs = vec![(true, 0, None, a, 0.5)];
        for i in 0..5usize {
            specs.push((i.is_multiple_of(2), i, Some(i + 1), Vec3::ZERO, 0.5));
        }
        specs.push((false, 5, None, b, 0.5));
        let links = add_links(&mut w, &ids, &specs);
        for _ in 0..540 {
            w.step(1.0 / 60.0).expect("step");
        }
        let before = w.read_snapshot().expect("snapshot");
        for _ in 0..60 {
            w.step(1.0 / 60.0).expect("step");
        }
        let s = w.read_snapshot().expect("snapshot");
        let [rod, cable] = link_errors(&s, &links);
        let (drift, i) = max_pos_diff(&before, &s);
        eprintln!(
            "[measure] {order:?} at rest: worst rod error {:e}, cable excess {:e}, drift over \
             the last second {drift:e} m",
            rod.0, cable.0
        );
        assert!(
            drift <= REST_DRIFT,
            "{order:?}: slot {i} still moved {drift} m over the last second of 10"
        );
        s
    };
    let (batches, severe) = (
        rest(ResolveOrder::Batches),
        rest(ResolveOrder::MostSevereFirst),
    );
    let (d, i) = max_pos_diff(&batches, &severe);
    eprintln!("[measure] link orders: rest states {d:e} m apart (slot {i})");
    assert!(
        d <= REST_TOL,
        "rest states differ by {d} m at slot {i}: batches {:?}, most severe first {:?}",
        batches.pos[i].xyz(),
        severe.pos[i].xyz()
    );
    // The chain hangs: its middle sags well below the anchors.
    let sag = 3.0 - batches.pos[2].y;
    assert!(sag > 0.5, "the chain's middle sags only {sag} m");
}

// ---------------------------------------------------------------------------------------------
// A pile at rest
// ---------------------------------------------------------------------------------------------

/// 500 grains of radius 5 cm poured into the sand box 50 at a time (all in by step 28), then
/// left for 10 s in all: the pile must come to rest, and no grain may leave the box.
///
/// "At rest" is a mean kinetic energy below that of a 1 kg grain at 1 cm/s (5e-5 J): gravity
/// adds g·dt = 16 cm/s every step and the contacts must take it out again, so a resting pile's
/// residual speeds are far below that; a grain creeping at 1 cm/s moves its own radius in 5 s.
/// The pile must be at rest in most of the seconds after the pour, 3 to 10 (their median),
/// not in a chosen one: grains that lose their footing slide down the heap now and then, a
/// physical event whose timing any change to the solver reshuffles (see below).
///
/// Per unit mass the bound is a mean speed of 1 cm/s; the kinetic energy is measured per grain
/// as ½|v|² (the scene's grains have unit mass).
///
/// And the pile must not squash itself: the mean overlap of touching pairs (centres closer than
/// a diameter plus the contact slop) stays under 5% of a diameter. A position solver that
/// cannot hold a pile's weight within its iterations lets the grains sink into each other
/// instead (issue 3 measured 32% of a diameter in a 100k-grain pour with velocity impulses).
///
/// Issue 3: with velocity impulses alone the Jacobi iterations left grains with velocities
/// their positions never showed (a grain pushed out of its neighbours kept falling at about
/// g·dt), and the mean kinetic energy stayed near 1e-3 J, 20–30× over the bound. Resting
/// contacts are now position based and the velocity follows the corrections (see
/// `shaders/aggregate/collide.wgsl`). Measured on the CPU (the GPU paths run the same steps):
/// 3.7e-6 J after 10 s and mean overlap 8e-5 of a diameter; by second 5.6e-4, 1.2e-4, then
/// between 5e-7 and 8e-5 J. The seconds over the bound are small avalanches: grains that lose
/// their footing slide down the top of the heap (these grains do not roll; friction 0.5 holds
/// them on slopes up to 27°), or one slips into a gap between grains on the floor as they
/// spread. Issue 10's candidate lists (`near_list`) changed which grains slide when, not how
/// often: run on to 60 s, seconds 3 to 60 were above the bound 11 times of 58 with the old
/// stencil (median 4.2e-6 J, worst 9.1e-4) and 12 with the lists (median 4.6e-6 J, worst
/// 1.7e-3), and the 10th second of the lists was one of them (4.3e-4 J, one grain sliding at
/// 0.63 m/s) where the old stencil's was quiet. Hence the median.
#[test]
fn a_pile_of_grains_comes_to_rest_inside_the_box() {
    const REST_KE: f32 = 0.5 * 0.01 * 0.01;
    // Mean overlap of touching pairs at rest, as a fraction of a diameter.
    const REST_OVERLAP: f32 = 0.05;
    // Contacts with the walls are resolved last in each iteration, exactly; a micrometre covers
    // rounding.
    const WALL_TOL: f32 = 1e-6;
    let (capacity, radius) = (500u32, 0.05f32);
    let mut w = sc::sand(Backend::Cpu, capacity, radius).expect("sand");
    let walls: Vec<(Vec3, f32)> = w
        .config()
        .colliders
        .iter()
        .map(|c| match c.shape {
            ColliderShape::HalfSpace { normal, offset } => (normal.normalize(), offset),
            _ => panic!("the sand box is made of half-spaces"),
        })
        .collect();
    let mut history = Vec::new();
    for s in 0..600u32 {
        if s.is_multiple_of(3) && w.len() < capacity {
            sc::sand_pour(&mut w, 50, radius, s).expect("pour");
        }
        w.step(1.0 / 60.0).expect("step");
        let snap = w.read_snapshot().expect("snapshot");
        for (i, p) in snap.pos.iter().enumerate() {
            for (k, &(n, offset)) in walls.iter().enumerate() {
                let gap = n.dot(p.xyz()) - offset;
                assert!(
                    gap >= radius - WALL_TOL,
                    "step {}: grain {i} at {:?} is {gap} m from wall {k} (normal {n:?}); its radius is {radius} m",
                    s + 1,
                    p.xyz()
                );
            }
        }
        if (s + 1).is_multiple_of(60) {
            let ke = snap
                .vel
                .iter()
                .map(|v| 0.5 * v.xyz().length_squared())
                .sum::<f32>()
                / snap.vel.len() as f32;
            history.push(((s + 1) / 60, ke));
        }
    }
    eprintln!("[measure] pile of {capacity}: mean kinetic energy per grain by second {history:?}");
    let snap = w.read_snapshot().expect("snapshot");
    assert_eq!(snap.pos.len(), capacity as usize, "all grains poured");
    let n = snap.vel.len() as f32;
    let ke = snap
        .vel
        .iter()
        .map(|v| 0.5 * v.xyz().length_squared())
        .sum::<f32>()
        / n;
    let (vmax, i) = snap
        .vel
        .iter()
        .enumerate()
        .map(|(i, v)| (v.xyz().length(), i))
        .fold((0.0, 0), |m, x| if x.0 > m.0 { x } else { m });
    // Seconds 3 to 10: the pour is over (all grains are in by step 28) and the heap has had a
    // second to land.
    let mut settled: Vec<f32> = history[2..].iter().map(|&(_, ke)| ke).collect();
    settled.sort_by(f32::total_cmp);
    let median = 0.5 * (settled[settled.len() / 2 - 1] + settled[settled.len() / 2]);
    assert!(
        median <= REST_KE,
        "the pile does not come to rest: median kinetic energy of seconds 3 to 10 {median:e} J \
         per grain (bound {REST_KE:e} J, 1 kg at 1 cm/s); at 10 s {ke:e} J, fastest grain {i} \
         at {vmax} m/s; by second: {history:?}"
    );
    let slop = w.config().contact_slop;
    let m = wgphys::scenes::pile::pile_metrics(&snap.pos, &snap.vel, radius, slop)
        .expect("a finite pile");
    let (pairs, mean) = (m.touching_pairs, m.mean_overlap);
    assert!(pairs > 0, "no two grains touch: the grains did not pile up");
    eprintln!(
        "[measure] pile of {capacity} at rest: {pairs} touching pairs, mean overlap {mean:e} of \
         a diameter (worst {:e}), mean kinetic energy {ke:e} J, fastest grain {vmax} m/s, \
         angle of repose {:?}°",
        m.worst_overlap, m.repose_degrees
    );
    assert!(
        mean <= REST_OVERLAP,
        "the pile squashes itself: mean overlap of its {pairs} touching pairs is {mean} of a \
         diameter (bound {REST_OVERLAP}); worst {}",
        m.worst_overlap
    );
}
