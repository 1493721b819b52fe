//! Per-stage parity of the mass-aggregate world: the GPU kernels against the CPU twin on seeded
//! random input, slot by slot, with named tolerances.
//!
//! * `agg_integrate`, once per force-generator kind: random particles (1 or 2, 63 and 1000 of
//!   them) and random generators of that kind, several per particle, one step with no links,
//!   fields or collisions. Besides parity, every result is checked against an independent f64
//!   evaluation of the generator's documented formula and one semi-implicit Euler step.
//! * `solve_links`: a random network of rods and cables (anchored and not, some particles
//!   pinned), one step with one link iteration (and with eight).
//! * `collide`: a few hundred random overlapping grains over a floor, one step.
//!
//! Before stepping, both worlds must hold exactly what was added (uploads copy, they do not
//! compute).

mod common;

use common::*;
use glam::{DVec3, Vec3, Vec4Swizzles};
use wgphys::aggregate::{
    AggSnapshot, AggregateConfig, AggregateWorld, Collisions, ForceGenerator, Link, ParticleId,
};
use wgphys::particles::{Backend, Collider, ForceField, Particle};

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

/// Builds the same world on both backends, adds `particles` and lets `build` add generators and
/// links to each; checks both hold exactly the particles added. Returns (gpu, cpu).
fn both(
    config: &AggregateConfig,
    particles: &[Particle],
    build: impl Fn(&mut AggregateWorld, &[ParticleId]),
) -> (AggregateWorld, AggregateWorld) {
    let mut g = AggregateWorld::new(Backend::Gpu(gpu()), config.clone()).expect("gpu world");
    let mut c = AggregateWorld::new(Backend::Cpu, config.clone()).expect("cpu world");
    let ig = g.add_particles(particles).expect("gpu add_particles");
    let ic = c.add_particles(particles).expect("cpu add_particles");
    assert_eq!(ig, ic, "particle ids differ between backends");
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
// Force generators
// ---------------------------------------------------------------------------------------------

/// A random particle in a 10 m box: speeds to ~9 m/s, own accelerations to 2 m/s², damping in
/// [0.5, 1] (exactly 1 for one in five), masses 0.5–10 kg, one in ten immovable.
fn random_particle(rng: &mut Rng) -> Particle {
    let damping = if rng.chance(0.2) {
        1.0
    } else {
        rng.range(0.5, 1.0)
    };
    let p = Particle::new(rng.vec3(-5.0, 5.0))
        .with_velocity(rng.vec3(-5.0, 5.0))
        .with_acceleration(rng.vec3(-2.0, 2.0))
        .with_damping(damping)
        .with_size(0.1);
    if rng.chance(0.1) {
        p.with_inverse_mass(0.0)
    } else {
        p.with_mass(rng.range(0.5, 10.0))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Spring,
    AnchoredSpring,
    Bungee,
    AnchoredBungee,
    Buoyancy,
    FakeSpring,
    DampedSpring,
    AnchoredDampedSpring,
    Gravity,
    Drag,
}

impl Kind {
    fn two_ended(self) -> bool {
        matches!(self, Kind::Spring | Kind::Bungee | Kind::DampedSpring)
    }
}

/// A random generator of `kind` on random particles of `ids`.
fn random_gen(kind: Kind, rng: &mut Rng, ids: &[ParticleId]) -> ForceGenerator {
    let pick = |rng: &mut Rng| ids[rng.below(ids.len() as u32) as usize];
    let pair = |rng: &mut Rng| {
        let a = pick(rng);
        loop {
            let b = pick(rng);
            if b != a {
                return (a, b);
            }
        }
    };
    match kind {
        Kind::Spring => {
            let (a, b) = pair(rng);
            ForceGenerator::Spring {
                a,
                b,
                stiffness: rng.range(0.0, 50.0),
                rest_length: rng.range(0.0, 4.0),
            }
        }
        Kind::AnchoredSpring => ForceGenerator::AnchoredSpring {
            particle: pick(rng),
            anchor: rng.vec3(-5.0, 5.0),
            stiffness: rng.range(0.0, 50.0),
            rest_length: rng.range(0.0, 4.0),
        },
        // Rest lengths up to 8 m in a 10 m box: a good share of the bungees are slack.
        Kind::Bungee => {
            let (a, b) = pair(rng);
            ForceGenerator::Bungee {
                a,
                b,
                stiffness: rng.range(0.0, 50.0),
                rest_length: rng.range(0.0, 8.0),
            }
        }
        Kind::AnchoredBungee => ForceGenerator::AnchoredBungee {
            particle: pick(rng),
            anchor: rng.vec3(-5.0, 5.0),
            stiffness: rng.range(0.0, 50.0),
            rest_length: rng.range(0.0, 8.0),
        },
        // Surfaces across the box: some bodies above, some partly, some fully submerged.
        Kind::Buoyancy => ForceGenerator::Buoyancy {
            particle: pick(rng),
            max_depth: rng.range(0.1, 3.0),
            volume: rng.range(0.001, 0.01),
            water_height: rng.range(-4.0, 4.0),
            density: rng.range(500.0, 1500.0),
            gravity: 9.81,
        },
        // Mostly under-damped (d < 2√k); one in ten over-damped, where the generator does
        // nothing (no oscillator to follow).
        Kind::FakeSpring => {
            // Underdamped only: an overdamped fake spring is refused by `add_generator`
            // (tests/aggregate_bad_input.rs covers that).
            let k = rng.range(1.0, 100.0);
            let d = rng.range(0.0, 1.9) * k.sqrt();
            ForceGenerator::FakeSpring {
                particle: pick(rng),
                anchor: rng.vec3(-5.0, 5.0),
                stiffness: k,
                damping: d,
            }
        }
        Kind::DampedSpring => {
            let (a, b) = pair(rng);
            ForceGenerator::DampedSpring {
                a,
                b,
                rest_length: rng.range(0.0, 4.0),
                stiffness: rng.unit(),
                damping: rng.unit(),
            }
        }
        Kind::AnchoredDampedSpring => ForceGenerator::AnchoredDampedSpring {
            particle: pick(rng),
            anchor: rng.vec3(-5.0, 5.0),
            rest_length: rng.range(0.0, 4.0),
            stiffness: rng.unit(),
            damping: rng.unit(),
        },
        Kind::Gravity => ForceGenerator::Gravity {
            particle: pick(rng),
            g: rng.vec3(-12.0, 12.0),
        },
        Kind::Drag => ForceGenerator::Drag {
            particle: pick(rng),
            k1: rng.range(0.0, 2.0),
            k2: rng.range(0.0, 0.5),
        },
    }
}

fn d3(v: Vec3) -> DVec3 {
    v.as_dvec3()
}

/// The documented force of `g` on its first particle (f64), and a bound on the magnitude of the
/// f32 intermediates it is computed from, as a force (the scale an f32 evaluation's rounding
/// error is relative to; times w·dt it is a velocity).
fn reference_force(g: &ForceGenerator, ps: &[Particle], dt: f64) -> (DVec3, f64) {
    let st = |id: ParticleId| {
        let p = &ps[id.index() as usize];
        (d3(p.position), d3(p.velocity), f64::from(p.inverse_mass))
    };
    // Hooke-like: the force on `a` from the spring toward `pb`, with the scale of the
    // intermediates (positions, length, rest length) times the stiffness.
    let hooke = |pa: DVec3, pb: DVec3, k: f64, l0: f64, pull_only: bool| {
        let d = pa - pb;
        let len = d.length();
        let x = len - l0;
        let scale = k * (pa.abs().max_element() + pb.abs().max_element() + len + l0);
        if len <= 0.0 || (pull_only && x <= 0.0) {
            (DVec3::ZERO, scale)
        } else {
            (-d / len * (k * x), scale)
        }
    };
    match *g {
        ForceGenerator::Spring {
            a,
            b,
            stiffness,
            rest_length,
        }
        | ForceGenerator::Bungee {
            a,
            b,
            stiffness,
            rest_length,
        } => {
            let pull_only = matches!(g, ForceGenerator::Bungee { .. });
            let ((pa, _, _), (pb, _, _)) = (st(a), st(b));
            hooke(
                pa,
                pb,
                f64::from(stiffness),
                f64::from(rest_length),
                pull_only,
            )
        }
        ForceGenerator::AnchoredSpring {
            particle,
            anchor,
            stiffness,
            rest_length,
        }
        | ForceGenerator::AnchoredBungee {
            particle,
            anchor,
            stiffness,
            rest_length,
        } => {
            let pull_only = matches!(g, ForceGenerator::AnchoredBungee { .. });
            let (pa, _, _) = st(particle);
            hooke(
                pa,
                d3(anchor),
                f64::from(stiffness),
                f64::from(rest_length),
                pull_only,
            )
        }
        ForceGenerator::Buoyancy {
            particle,
            max_depth,
            volume,
            water_height,
            density,
            gravity,
        } => {
            let (pa, _, _) = st(particle);
            let (s, yw) = (f64::from(max_depth), f64::from(water_height));
            let frac = ((yw + s - pa.y) / (2.0 * s)).clamp(0.0, 1.0);
            let full = f64::from(density) * f64::from(volume) * f64::from(gravity);
            let scale = full * (1.0 + (pa.y.abs() + yw.abs() + s) / (2.0 * s));
            (DVec3::new(0.0, frac * full, 0.0), scale)
        }
        ForceGenerator::FakeSpring {
            particle,
            anchor,
            stiffness,
            damping,
        } => {
            let (pa, va, wa) = st(particle);
            let (k, d) = (f64::from(stiffness), f64::from(damping));
            let disc = 4.0 * k - d * d;
            if wa <= 0.0 || disc <= 0.0 {
                return (DVec3::ZERO, 0.0);
            }
            let gamma = 0.5 * disc.sqrt();
            let p = pa - d3(anchor);
            // The default integrator is semi-implicit Euler: the spring continues the damped
            // oscillator's exact two-step recurrence from p and p - v dt.
            let c = p * (d / (2.0 * gamma)) + va / gamma;
            let target = p * (2.0 * (-0.5 * d * dt).exp() * (gamma * dt).cos())
                - (p - va * dt) * (-d * dt).exp();
            let accel = (target - p) / (dt * dt) - va / dt;
            // The velocity change is (target - p)/dt - v: positions over dt (as a force, over
            // w·dt).
            let scale = (pa.abs().max_element()
                + d3(anchor).abs().max_element()
                + p.length()
                + c.length()
                + target.length())
                / dt
                + va.length();
            (accel / wa, scale / (wa * dt))
        }
        ForceGenerator::DampedSpring {
            a,
            b,
            rest_length,
            stiffness,
            damping,
        } => {
            let ((pa, va, wa), (pb, vb, wb)) = (st(a), st(b));
            damped(pa, va, wa, pb, vb, wb, rest_length, stiffness, damping, dt)
        }
        ForceGenerator::AnchoredDampedSpring {
            particle,
            anchor,
            rest_length,
            stiffness,
            damping,
        } => {
            let (pa, va, wa) = st(particle);
            damped(
                pa,
                va,
                wa,
                d3(anchor),
                DVec3::ZERO,
                0.0,
                rest_length,
                stiffness,
                damping,
                dt,
            )
        }
        ForceGenerator::Gravity { particle, g } => {
            let (_, _, wa) = st(particle);
            if wa <= 0.0 {
                return (DVec3::ZERO, 0.0);
            }
            (d3(g) / wa, d3(g).length() / wa)
        }
        ForceGenerator::Drag { particle, k1, k2 } => {
            let (_, va, _) = st(particle);
            let speed = va.length();
            let mag = f64::from(k1) * speed + f64::from(k2) * speed * speed;
            if speed <= 0.0 {
                return (DVec3::ZERO, 0.0);
            }
            (-va / speed * mag, mag)
        }
    }
}

/// The improved damped spring (articles 002-12): f = −(m_red/dt²)·C_k·x − (m_red/dt)·C_d·v_rel
/// along the spring, m_red = 1/(w_a + w_b).
#[allow(clippy::too_many_arguments)]
fn damped(
    pa: DVec3,
    va: DVec3,
    wa: f64,
    pb: DVec3,
    vb: DVec3,
    wb: f64,
    rest_length: f32,
    ck: f32,
    cd: f32,
    dt: f64,
) -> (DVec3, f64) {
    let d = pa - pb;
    let len = d.length();
    let wsum = wa + wb;
    if len <= 0.0 || wsum <= 0.0 {
        return (DVec3::ZERO, 0.0);
    }
    let n = d / len;
    let l0 = f64::from(rest_length);
    let m_red = 1.0 / wsum;
    let (ck, cd) = (f64::from(ck), f64::from(cd));
    let f = -n * (m_red / (dt * dt) * ck * (len - l0) + m_red / dt * cd * (va - vb).dot(n));
    let scale = m_red
        * (ck * (pa.abs().max_element() + pb.abs().max_element() + len + l0) / (dt * dt)
            + cd * (va.length() + vb.length()) / dt);
    (f, scale)
}

/// Reference-check tolerance, in units of roundoff of the scale of the intermediates. A
/// generator's f32 evaluation rounds a dozen times or so (differences, a `length`, a `sqrt`,
/// a division; for the fake spring `cos`/`sin`/`exp` and a division by dt²), the gather sums
/// a handful of forces, and the step rounds four more times, but the errors are rarely all
/// at their largest: measured at most 2.6 units (16% of this) on the CPU and both GPU
/// backends. A wrong sign, a missing factor or a wrong rest length is off by a fraction of the
/// force itself, orders of magnitude more.
const REFERENCE_UNITS: f64 = 16.0;

/// Checks one step of `snap` against the f64 reference: semi-implicit Euler with the summed
/// generator forces, v1 = (v0 + (a_own + w·Σf)·dt)·d^dt, p1 = p0 + v1·dt; immovable
/// particles stay exactly where they were. Returns the largest share of the tolerance used.
fn check_reference(
    label: &str,
    snap: &AggSnapshot,
    ps: &[Particle],
    gens: &[ForceGenerator],
) -> f64 {
    let dt = f64::from(DT);
    let n = ps.len();
    let mut force = vec![DVec3::ZERO; n];
    let mut scale = vec![0.0f64; n];
    let w = |id: ParticleId| f64::from(ps[id.index() as usize].inverse_mass);
    for g in gens {
        let (f, s) = reference_force(g, ps, dt);
        let (a, b) = g.particles();
        force[a.index() as usize] += f;
        scale[a.index() as usize] += s * w(a) * dt;
        if let Some(b) = b {
            // The second end gets the opposite force.
            force[b.index() as usize] -= f;
            scale[b.index() as usize] += s * w(b) * dt;
        }
    }
    let mut used = 0.0f64;
    for (i, p) in ps.iter().enumerate() {
        let (gp, gv) = (snap.pos[i].xyz(), snap.vel[i].xyz());
        if p.inverse_mass == 0.0 {
            assert_eq!(gp, p.position, "{label}: immovable slot {i} pos moved");
            assert_eq!(gv, p.velocity, "{label}: immovable slot {i} vel changed");
            continue;
        }
        let w = f64::from(p.inverse_mass);
        let keep = f64::from(p.damping).powf(dt);
        let v0 = d3(p.velocity);
        let a = d3(p.acceleration) + force[i] * w;
        let v1 = (v0 + a * dt) * keep;
        let p1 = d3(p.position) + v1 * dt;
        let sv = v0.abs().max_element() + (d3(p.acceleration) * dt).abs().max_element() + scale[i];
        let tol_v = REFERENCE_UNITS * U * sv;
        let tol_p =
            REFERENCE_UNITS * U * (p.position.abs().max_element() as f64 + v1.length() * dt)
                + tol_v * dt;
        for k in 0..3 {
            let (dv, dp) = (
                (f64::from(gv[k]) - v1[k]).abs(),
                (f64::from(gp[k]) - p1[k]).abs(),
            );
            assert!(
                dv <= tol_v,
                "{label}: slot {i} vel[{k}] {} vs f64 reference {} (|diff| {dv:e} > {tol_v:e})",
                gv[k],
                v1[k]
            );
            assert!(
                dp <= tol_p,
                "{label}: slot {i} pos[{k}] {} vs f64 reference {} (|diff| {dp:e} > {tol_p:e})",
                gp[k],
                p1[k]
            );
            used = used.max(dv / tol_v).max(dp / tol_p);
        }
    }
    used
}

/// One step of `agg_integrate` with random generators of `kind`, GPU vs CPU and both vs the f64
/// reference; `vel` is the kind's parity tolerance.
fn generator_case(kind: Kind, seed: u64, pos: Tol, vel: Tol) {
    let ids = |n: u32| -> Vec<ParticleId> {
        // Ids are slot indices in add order (checked in `both`); a throwaway world issues them.
        let mut w = AggregateWorld::new(
            Backend::Cpu,
            AggregateConfig {
                capacity: n,
                ..Default::default()
            },
        )
        .expect("id world");
        w.add_particles(&vec![Particle::new(Vec3::ZERO); n as usize])
            .expect("ids")
    };
    let sizes: [u32; 3] = if kind.two_ended() {
        [2, 63, 1000]
    } else {
        [1, 63, 1000]
    };
    for n in sizes {
        let mut rng = Rng::new(seed + u64::from(n));
        let ps: Vec<Particle> = (0..n).map(|_| random_particle(&mut rng)).collect();
        // Three generators per particle on average (at least three in all), so most particles
        // gather several, and two-ended ones are shared by both ends.
        let count = (3 * n).max(3);
        let ids = ids(n);
        let gens: Vec<ForceGenerator> = (0..count)
            .map(|_| random_gen(kind, &mut rng, &ids))
            .collect();
        let config = AggregateConfig {
            capacity: n,
            ..Default::default()
        };
        let (mut g, mut c) = both(&config, &ps, |w, _| {
            for gen in &gens {
                w.add_generator(*gen).expect("add_generator");
            }
        });
        let label = format!("{kind:?} n={n} generators={count}");
        let (sg, sc) = step_compare(&label, &mut g, &mut c, pos, vel);
        let used_c = check_reference(&format!("cpu {label}"), &sc, &ps, &gens);
        let used_g = check_reference(&format!("gpu {label}"), &sg, &ps, &gens);
        eprintln!(
            "[measure] {label}: vs f64 reference, cpu {:.0}% gpu {:.0}% of tol",
            100.0 * used_c,
            100.0 * used_g
        );
        // The generators must act: particles they touch leave the generator-free update by far
        // more than any tolerance (1e-3 m/s).
        let mut touched = vec![false; n as usize];
        for gen in &gens {
            let (a, b) = gen.particles();
            touched[a.index() as usize] = true;
            if let Some(b) = b {
                touched[b.index() as usize] = true;
            }
        }
        let (mut acted, mut eligible) = (0, 0);
        for (i, p) in ps.iter().enumerate() {
            if !touched[i] || p.inverse_mass == 0.0 {
                continue;
            }
            let free = (p.velocity + p.acceleration * DT) * p.damping.powf(DT);
            eligible += 1;
            acted += usize::from((sc.vel[i].xyz() - free).length() > 1e-3);
        }
        assert!(
            2 * acted >= eligible,
            "{label}: the generators changed only {acted} of {eligible} velocities"
        );
    }
}

/// Position tolerance of one `agg_integrate` step: p1 = p0 + v1·dt in a 10 m box, where an ulp
/// is at most 9.5e-7 m. Measured (lavapipe and llvmpipe alike, every kind but the two below):
/// at most 4.8e-7 m, half an ulp at 8 m. Eight ulps relative, and an absolute floor of one ulp
/// at 8 m for coordinates that cancel to near zero.
const GEN_POS: Tol = Tol {
    rel: 1e-6,
    abs: 1e-6,
};

/// Velocity tolerance of one step for the force-based kinds (springs, bungees, buoyancy,
/// gravity, drag): both sides evaluate the same formula in the same order (the CSR gather is
/// the same list), so they differ by the GPU's `length`/`sqrt`/division and fused multiply-adds,
/// an ulp or two of the largest term. Velocities here reach ~40 m/s, where an ulp is 3.8e-6.
/// Measured: at most 1.9e-6 m/s (lavapipe) and 3.8e-6 m/s (llvmpipe, springs, n = 1000), half
/// of the absolute floor. Eight ulps relative and two ulps at 16–32 m/s absolute (v0 + a·dt may
/// cancel to near zero); a wrong sign or coefficient moves a velocity by metres per second.
const GEN_VEL: Tol = Tol {
    rel: 1e-6,
    abs: 8e-6,
};

/// Position tolerance for the fake and the improved damped springs, which aim the step at a
/// target position: the velocity is (target − p)/dt, an ulp of a 10 m position amplified by
/// 1/dt = 60, and the position p + v·dt gets those ulps back. Measured: 4.3e-6 m (fake spring,
/// n = 1000), 1.9e-6 m (damped). Sixteen ulps at 8 m.
const TARGET_POS: Tol = Tol {
    rel: 1e-6,
    abs: 1.6e-5,
};

/// Velocity tolerance for the fake and the improved damped springs: an ulp of position
/// (9.5e-7 m at 8 m, 1.9e-6 m at 16 m for the spring lengths) divided by dt is 5.7e-5–1.1e-4
/// m/s. Measured: 2.7e-4 m/s (fake spring: GPU `cos`/`sin`/`exp` add an ulp or so of the
/// displacement), 1.2e-4 m/s (damped). Sixteen ulps of an 8 m position over dt: 9.2e-4 m/s.
const TARGET_VEL: Tol = Tol {
    rel: 2e-6,
    abs: 9.2e-4,
};

#[test]
fn generator_spring() {
    generator_case(Kind::Spring, 0xa_0100, GEN_POS, GEN_VEL);
}

#[test]
fn generator_anchored_spring() {
    generator_case(Kind::AnchoredSpring, 0xa_0200, GEN_POS, GEN_VEL);
}

#[test]
fn generator_bungee() {
    generator_case(Kind::Bungee, 0xa_0300, GEN_POS, GEN_VEL);
}

#[test]
fn generator_anchored_bungee() {
    generator_case(Kind::AnchoredBungee, 0xa_0400, GEN_POS, GEN_VEL);
}

#[test]
fn generator_buoyancy() {
    generator_case(Kind::Buoyancy, 0xa_0500, GEN_POS, GEN_VEL);
}

#[test]
fn generator_fake_spring() {
    generator_case(Kind::FakeSpring, 0xa_0600, TARGET_POS, TARGET_VEL);
}

#[test]
fn generator_damped_spring() {
    generator_case(Kind::DampedSpring, 0xa_0700, TARGET_POS, TARGET_VEL);
}

#[test]
fn generator_anchored_damped_spring() {
    generator_case(Kind::AnchoredDampedSpring, 0xa_0800, TARGET_POS, TARGET_VEL);
}

#[test]
fn generator_gravity() {
    generator_case(Kind::Gravity, 0xa_0900, GEN_POS, GEN_VEL);
}

#[test]
fn generator_drag() {
    generator_case(Kind::Drag, 0xa_0a00, GEN_POS, GEN_VEL);
}

// ---------------------------------------------------------------------------------------------
// Links
// ---------------------------------------------------------------------------------------------

/// A link by slot indices (ids are issued by each world).
#[derive(Clone, Copy, Debug)]
struct LinkSpec {
    a: u32,
    /// Second particle, or `None` for an anchored link.
    b: Option<u32>,
    anchor: Vec3,
    rod: bool,
    length: f32,
    restitution: f32,
}

impl LinkSpec {
    fn link(&self, ids: &[ParticleId]) -> Link {
        let a = ids[self.a as usize];
        match (self.b, self.rod) {
            (Some(b), true) => Link::Rod {
                a,
                b: ids[b as usize],
                length: self.length,
            },
            (Some(b), false) => Link::Cable {
                a,
                b: ids[b as usize],
                max_length: self.length,
                restitution: self.restitution,
            },
            (None, true) => Link::AnchoredRod {
                particle: a,
                anchor: self.anchor,
                length: self.length,
            },
            (None, false) => Link::AnchoredCable {
                particle: a,
                anchor: self.anchor,
                max_length: self.length,
                restitution: self.restitution,
            },
        }
    }
}

/// A random network in a 4 m box: `n` particles (masses 0.5–5 kg, speeds to 1 m/s, no damping
/// so the integrate stage leaves velocities alone), ~2n rods and cables between random pairs
/// with lengths 70–120% of the current distance (so most are violated), and with `anchored`
/// n/4 anchored rods and cables and one particle in ten pinned.
fn link_network(rng: &mut Rng, n: u32, anchored: bool) -> (Vec<Particle>, Vec<LinkSpec>) {
    let ps: Vec<Particle> = (0..n)
        .map(|_| {
            let p = Particle::new(rng.vec3(-2.0, 2.0))
                .with_velocity(rng.vec3(-1.0, 1.0))
                .with_size(0.05);
            if anchored && rng.chance(0.1) {
                p.with_inverse_mass(0.0)
            } else {
                p.with_mass(rng.range(0.5, 5.0))
            }
        })
        .collect();
    let mut links = Vec::new();
    let mut add = |rng: &mut Rng, a: u32, b: Option<u32>, anchor: Vec3| {
        let other = b.map_or(anchor, |b| ps[b as usize].position);
        let dist = (ps[a as usize].position - other).length();
        let rod = rng.chance(0.5);
        let length = dist
            * if rod {
                rng.range(0.8, 1.2)
            } else {
                rng.range(0.7, 1.1)
            };
        links.push(LinkSpec {
            a,
            b,
            anchor,
            rod,
            length,
            restitution: if rod { 0.0 } else { rng.unit() },
        });
    };
    for a in 0..n {
        for _ in 0..2 {
            let b = rng.below(n);
            if b != a {
                add(rng, a, Some(b), Vec3::ZERO);
            }
        }
    }
    if anchored {
        for _ in 0..n / 4 {
            let (a, anchor) = (rng.below(n), rng.vec3(-2.0, 2.0));
            add(rng, a, None, anchor);
        }
    }
    (ps, links)
}

fn link_case(n: u32, iterations: u32, anchored: bool, seed: u64, pos: Tol, vel: Tol) {
    let mut rng = Rng::new(seed);
    let (ps, links) = link_network(&mut rng, n, anchored);
    let config = AggregateConfig {
        capacity: n,
        link_iterations: iterations,
        ..Default::default()
    };
    let (mut g, mut c) = both(&config, &ps, |w, ids| {
        for l in &links {
            w.add_link(l.link(ids)).expect("add_link");
        }
    });
    let label = format!(
        "links n={n} links={} iterations={iterations} anchored={anchored}",
        links.len(),
    );
    let (sg, sc) = step_compare(&label, &mut g, &mut c, pos, vel);
    assert_eq!(
        g.link_colours(),
        c.link_colours(),
        "{label}: both backends colour the links alike"
    );
    assert!(
        c.link_colours() >= 4,
        "{label}: only {} colours; the case is meant to exercise many batches",
        c.link_colours()
    );
    // The solve must act: most links start violated and many particles move by centimetres or
    // more beyond the free flight p0 + v0·dt.
    let moved = ps
        .iter()
        .enumerate()
        .filter(|(i, p)| (sc.pos[*i].xyz() - (p.position + p.velocity * DT)).length() > 1e-2)
        .count();
    eprintln!(
        "[measure] {label}: {} colours, {moved} of {} particles moved by the links",
        c.link_colours(),
        ps.len()
    );
    assert!(
        2 * moved >= ps.len(),
        "{label}: only {moved} of {} particles were moved by the links",
        ps.len()
    );
    if !anchored {
        // Every link exchanges equal and opposite impulses and mass-weighted position
        // corrections: total momentum and the centre of mass's free flight survive the solve.
        for (name, s) in [("gpu", &sg), ("cpu", &sc)] {
            let (mut p0, mut p1, mut x0, mut x1, mut scale_p, mut scale_x) = (
                DVec3::ZERO,
                DVec3::ZERO,
                DVec3::ZERO,
                DVec3::ZERO,
                0.0f64,
                0.0f64,
            );
            for (i, p) in ps.iter().enumerate() {
                let m = 1.0 / f64::from(p.inverse_mass);
                p0 += d3(p.velocity) * m;
                p1 += d3(s.vel[i].xyz()) * m;
                x0 += (d3(p.position) + d3(p.velocity) * f64::from(DT)) * m;
                x1 += d3(s.pos[i].xyz()) * m;
                scale_p += m * d3(s.vel[i].xyz()).length().max(d3(p.velocity).length());
                scale_x += m * d3(s.pos[i].xyz()).length().max(d3(p.position).length());
            }
            let (dp, dx) = ((p1 - p0).length() / scale_p, (x1 - x0).length() / scale_x);
            eprintln!("[measure] {label} {name}: momentum drift {dp:.2e}, centre-of-mass drift {dx:.2e} (relative)");
            assert!(
                dp <= CONSERVED,
                "{label} {name}: total momentum {p1:?} vs {p0:?} before the solve (relative {dp:e})"
            );
            assert!(
                dx <= CONSERVED,
                "{label} {name}: mass-weighted position sum {x1:?} vs {x0:?} (relative {dx:e})"
            );
        }
    }
}

/// Relative drift of total momentum and of Σ m·p through a link solve. Each link resolution
/// changes the two ends by exactly opposite amounts up to rounding, so each adds an ulp or so
/// of the particles' momentum; with ~4 links per particle and up to eight iterations, that is a
/// few dozen roundings of terms the size of the scale. 1e-5 relative is 80 ulps; an impulse
/// applied to one end only breaks it by the impulse itself, percent of the scale.
const CONSERVED: f64 = 1e-5;

/// Position tolerance of one link solve (one or eight iterations over ~9 colours). Each link
/// takes a `length` (a `sqrt` the GPU may round differently by an ulp), a normal and a division,
/// and moves its ends by the penetration: an ulp of a length of up to 7 m (4.8e-7 m) per link,
/// about four links per particle per iteration. Measured: bit-identical on lavapipe, 6.0e-7 m on
/// llvmpipe (eight iterations; the error does not grow with iterations). Four ulps relative in
/// a 4 m box, eight ulps at 4 m absolute.
const LINK_POS: Tol = Tol {
    rel: 2e-6,
    abs: 4e-6,
};

/// Velocity tolerance of one link solve: impulses on speeds of 1–4 m/s (ulp 2.4e-7–4.8e-7).
/// Measured: bit-identical on lavapipe, 1.1e-6 m/s on llvmpipe (one iteration, anchored), 27%
/// of the absolute floor of eight ulps at 4 m/s.
const LINK_VEL: Tol = Tol {
    rel: 2e-6,
    abs: 4e-6,
};

#[test]
fn links_one_iteration() {
    link_case(300, 1, false, 0xb_0100, LINK_POS, LINK_VEL);
    link_case(300, 1, true, 0xb_0200, LINK_POS, LINK_VEL);
}

#[test]
fn links_eight_iterations() {
    link_case(300, 8, false, 0xb_0300, LINK_POS, LINK_VEL);
    link_case(300, 8, true, 0xb_0400, LINK_POS, LINK_VEL);
}

// ---------------------------------------------------------------------------------------------
// Collisions
// ---------------------------------------------------------------------------------------------

/// `n` random grains of radius 5–8 cm in a 1.2 m × 0.95 m × 1.2 m box above the floor: about a
/// third of the box filled, so most grains overlap two or three others. Speeds to 2 m/s, masses
/// 0.1–1 kg, one grain in twenty immovable.
fn random_grains(rng: &mut Rng, n: u32, radius: Option<f32>) -> Vec<Particle> {
    (0..n)
        .map(|_| {
            let r = radius.unwrap_or_else(|| rng.range(0.05, 0.08));
            let p = Particle::new(Vec3::new(
                rng.range(-0.6, 0.6),
                rng.range(0.05, 1.0),
                rng.range(-0.6, 0.6),
            ))
            .with_velocity(rng.vec3(-2.0, 2.0))
            .with_size(r);
            if rng.chance(0.05) {
                p.with_inverse_mass(0.0)
            } else {
                p.with_mass(rng.range(0.1, 1.0))
            }
        })
        .collect()
}

fn grain_config(n: u32, cell_size: f32, iterations: u32) -> AggregateConfig {
    AggregateConfig {
        capacity: n,
        fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
        colliders: vec![Collider::ground(0.3, 0.5)],
        collisions: Some(Collisions {
            cell_size,
            table_size: 1024,
            restitution: 0.3,
            friction: 0.5,
            iterations,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Total overlap Σ max(0, r_i + r_j − |p_i − p_j|) over all pairs (brute force).
fn total_overlap(pos: &[Vec3], radius: &[f32]) -> f64 {
    let mut sum = 0.0;
    for i in 0..pos.len() {
        for j in i + 1..pos.len() {
            let pen = radius[i] + radius[j] - (pos[i] - pos[j]).length();
            sum += f64::from(pen.max(0.0));
        }
    }
    sum
}

/// One step of the collide stage (`iterations` Jacobi iterations), GPU vs CPU, with the
/// physical checks: the stage removes overlap, nothing ends inside the floor, immovable grains
/// stay put. Returns the total overlap (after the integrate stage, after the collide stage).
fn collide_case(
    label: &str,
    ps: &[Particle],
    config: &AggregateConfig,
    pos: Tol,
    vel: Tol,
) -> (f64, f64) {
    let (mut g, mut c) = both(config, ps, |_, _| {});
    let (sg, sc) = step_compare(label, &mut g, &mut c, pos, vel);
    let radius: Vec<f32> = ps.iter().map(|p| p.size).collect();
    // Overlap after the integrate stage alone (free flight under gravity, semi-implicit Euler),
    // against overlap after the collision iterations.
    let g_acc = Vec3::new(0.0, -9.81, 0.0);
    let free: Vec<Vec3> = ps
        .iter()
        .map(|p| {
            if p.inverse_mass == 0.0 {
                p.position
            } else {
                p.position + (p.velocity + g_acc * DT) * DT
            }
        })
        .collect();
    let before = total_overlap(&free, &radius);
    let mut after_cpu = 0.0;
    for (name, s) in [("gpu", &sg), ("cpu", &sc)] {
        let after = total_overlap(&s.pos.iter().map(|p| p.xyz()).collect::<Vec<_>>(), &radius);
        eprintln!(
            "[measure] {label} {name}: total overlap {before:.4} m before the collide stage, \
             {after:.4} m after"
        );
        assert!(
            after < before || before == 0.0 && after == 0.0,
            "{label} {name}: total overlap {after} m after the collide stage vs {before} m before"
        );
        after_cpu = after;
        for (i, p) in ps.iter().enumerate() {
            if p.inverse_mass == 0.0 {
                assert_eq!(
                    s.pos[i].xyz(),
                    p.position,
                    "{label} {name}: immovable slot {i} moved"
                );
                continue;
            }
            // The floor is applied last in every iteration: nothing ends inside it.
            assert!(
                s.pos[i].y >= p.size - 1e-6,
                "{label} {name}: slot {i} pos.y {} is below its radius {} above the floor",
                s.pos[i].y,
                p.size
            );
        }
    }
    (before, after_cpu)
}

/// Position tolerance of one collide iteration: contact normals from a `sqrt` and a division,
/// corrections split by inverse mass and averaged over the engaged contacts, then the floor.
/// Measured: bit-identical on lavapipe, 3.0e-8 m on llvmpipe. Positions are below 1.2 m (ulp
/// 1.2e-7): eight ulps relative, and 8 ulps at 1 m absolute.
const COLLIDE_POS: Tol = Tol {
    rel: 1e-6,
    abs: 1e-6,
};

/// Velocity tolerance of one collide iteration: a position difference within `COLLIDE_POS`
/// (1e-6 m), seen as a velocity over one step of `DT`. Resting contacts carry the velocity
/// with their position corrections (v += Δx/dt), and a contact counts towards its grain's
/// engaged contacts in proportion to its penetration up to rr·2^-10 (a tenth of a millimetre
/// here), so a position rounding difference δ comes back as about δ/dt in velocity, and
/// through the count as a relative change of about δ·10^4 in the grain's averaged impact
/// velocity. Measured: bit-identical on lavapipe, 1.9e-5 m/s on llvmpipe (a third of this).
///
/// More iterations per step are compared end to end, with a drift budget, in
/// `aggregate_end_to_end.rs`: the stage is continuous in most of its inputs, but a contact
/// that enters reach while closing fast still changes a grain's response on one bit.
const COLLIDE_VEL: Tol = Tol {
    rel: 1e-6,
    abs: COLLIDE_POS.abs / DT,
};

/// The collide stage alone (one Jacobi iteration), GPU vs CPU, on 1 and 400 random overlapping
/// grains; then the same grains with four iterations, where the CPU and the GPU must each
/// remove more overlap than one iteration did.
#[test]
fn collide_stage() {
    let mut rng = Rng::new(0xc_0100);
    let ps = random_grains(&mut rng, 1, None);
    collide_case(
        "collide n=1 iterations=1",
        &ps,
        &grain_config(1, 0.2, 1),
        COLLIDE_POS,
        COLLIDE_VEL,
    );
    let mut rng = Rng::new(0xc_0200);
    let ps = random_grains(&mut rng, 400, None);
    let (before, one) = collide_case(
        "collide n=400 iterations=1",
        &ps,
        &grain_config(400, 0.2, 1),
        COLLIDE_POS,
        COLLIDE_VEL,
    );
    // Four iterations: no parity (see COLLIDE_VEL), but more overlap removed on both sides.
    let config = grain_config(400, 0.2, 4);
    for (name, backend) in backends() {
        let mut w = AggregateWorld::new(backend, config.clone()).expect("world");
        w.add_particles(&ps).expect("add_particles");
        w.step(DT).expect("step");
        let s = w.read_snapshot().expect("snapshot");
        let radius: Vec<f32> = ps.iter().map(|p| p.size).collect();
        let four = total_overlap(&s.pos.iter().map(|p| p.xyz()).collect::<Vec<_>>(), &radius);
        eprintln!("[measure] collide n=400 {name}: overlap {before:.4} m -> {one:.4} m (1 iteration) -> {four:.4} m (4 iterations)");
        assert!(
            four < one,
            "collide n=400 {name}: four iterations leave {four} m of overlap, one left {one} m"
        );
    }
}

/// `Collisions::cell_size: 0` picks twice the first grain's radius when the first particles
/// arrive; the GPU must then build and search the same grid as the CPU.
#[test]
fn collide_with_automatic_cell_size() {
    let mut rng = Rng::new(0xc_0300);
    let ps = random_grains(&mut rng, 400, Some(0.06));
    collide_case(
        "collide n=400 automatic cell size",
        &ps,
        &grain_config(400, 0.0, 1),
        COLLIDE_POS,
        COLLIDE_VEL,
    );
}

/// The spatial order the GPU runs its collide iterations in (shaders/aggregate/order.wgsl) and
/// the grid keys' slot table, read back after one step, against their CPU twins
/// (`cpu::near_order`, `cpu::near_cells`), exactly. Resting immovable grains, so the step's
/// integrate leaves every position as added. A 4096-key table holds keys with one, two and
/// more grains; a 64-key table lists dozens in every key. Coordinates on both sides of zero,
/// some grains coincident, some removed.
#[test]
fn spatial_order_and_slot_table_match_the_cpu_twin() {
    use glam::Vec4;
    use wgphys::aggregate::cpu::{near_cells, near_order};
    use wgphys::aggregate::gpu::{GpuAggregate, Tables};
    use wgphys::aggregate::types::{GpuAggParams, CELL_LISTED};
    use wgphys::grid::{CpuGrid, GridSpec};

    let ctx = gpu();
    let n = 1500u32;
    for (table, seed) in [(4096u32, 0xe0_0001u64), (64, 0xe0_0002)] {
        let spec = GridSpec::new(0.1, table).expect("spec");
        let mut rng = Rng::new(seed);
        let mut pos: Vec<Vec4> = (0..n).map(|_| rng.vec3(-1.4, 1.4).extend(1.0)).collect();
        for k in 0..20 {
            pos[10 * k + 1] = pos[10 * k];
        }
        let radius = vec![0.05f32; n as usize];
        let zero = vec![Vec4::ZERO; n as usize];
        let offsets = vec![0u32; n as usize + 1];
        let tables = Tables {
            gens: &[],
            gen_offsets: &offsets,
            gen_refs: &[],
            links: &[],
            colour_start: &[0],
            colliders: &[],
        };
        let mut g = GpuAggregate::new(&ctx, n, Some(spec), &tables).expect("gpu aggregate");
        g.write_particles(0, &pos, &zero, &zero, &radius, &zero);
        for i in (3..n).step_by(97) {
            g.kill(i);
            pos[i as usize].w = 0.0;
        }
        let mut params: GpuAggParams = bytemuck::Zeroable::zeroed();
        params.dt = DT;
        params.n = n;
        params.collide_iterations = 2;
        params.inv_cell_size = spec.inv_cell_size();
        params.table_mask = spec.table_mask();
        params.collisions = 1;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        g.encode(&mut encoder, &params, true).expect("encode");
        ctx.queue.submit([encoder.finish()]);
        let got = g.read_near(n).expect("read").expect("a world with a grid");

        let order = near_order(&pos, &spec);
        assert_eq!(got.order, order, "table {table}: spatial order");
        let mut slot_of = vec![0u32; n as usize];
        for (s, &i) in order.iter().enumerate() {
            slot_of[i as usize] = s as u32;
        }
        let grid = CpuGrid::build(&pos, &spec).expect("cpu grid");
        let (cells, cell_slots) = near_cells(&grid, table, &slot_of);
        assert_eq!(got.cell_slots, cell_slots, "table {table}: cell_slots");
        assert_eq!(got.cells, cells, "table {table}: slot table");
        let kinds = |pred: &dyn Fn(&[u32; 2]) -> bool| cells.iter().filter(|c| pred(c)).count();
        let one = kinds(&|c| c[1] < CELL_LISTED && c[0] == c[1]);
        let two = kinds(&|c| c[1] < CELL_LISTED && c[0] != c[1]);
        let many = kinds(&|c| c[1] > CELL_LISTED + 2);
        eprintln!("[measure] table {table}: keys with one grain {one}, two {two}, more {many}");
        if table == 4096 {
            assert!(
                one > 0 && two > 0 && many > 0,
                "table {table}: {one} / {two} / {many}"
            );
        } else {
            assert!(many > 0, "table {table}: no listed key");
        }
        // The step left every grain in place and untouched.
        let (p, v) = g.read(n as usize).expect("read state");
        assert_eq!(p, pos, "table {table}: positions after the step");
        assert_eq!(v, zero, "table {table}: velocities after the step");
    }
}
