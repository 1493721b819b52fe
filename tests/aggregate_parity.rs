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
//!
//! Every comparison runs twice against the same bounds: with the CPU twin rounding as Mesa's
//! software adapters do (`CpuRounding::Separate`) and as NVIDIA's may (`CpuRounding::Fused`, the
//! `*_fused_cpu` tests). The generators' and the collide stage's bounds are the error model's
//! (tests/common/error_model.rs), per slot; the link solve's are not (see [`LINK_POS`]).

mod common;

use common::error_model::cost::{CONTRACT, DIV, DOT3, LENGTH, POW, ROUND};
use common::*;
use glam::{DVec3, Vec3, Vec4Swizzles};
use wgphys::aggregate::{
    AggSnapshot, AggregateConfig, AggregateWorld, Collisions, ForceGenerator, Link, ParticleId,
};
use wgphys::particles::{Backend, Collider, ForceField, Particle};
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
    let mut g = AggregateWorld::new(Backend::Gpu(gpu()), config.clone()).expect("gpu world");
    let mut c = AggregateWorld::new(Backend::Cpu, config.clone()).expect("cpu world");
    c.set_cpu_rounding(rounding);
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

impl Kind {
    /// What one generator's force may differ by, in units of u times its scale (the second
    /// value of [`reference_force`]: the magnitudes its f32 evaluation rounds, as a force),
    /// between the two sides or between either side and the f64 reference: the error model's
    /// per-operation costs (tests/common/error_model.rs), every operation counted at least at
    /// ROUND, whether or not its operands already differ, so that the reference is just another
    /// evaluation.
    fn cost(self) -> f64 {
        match self {
            // Hooke, f = −d·k·(1 − l0/len): d = pa − pb (ROUND of |d| = len, reaching f at most
            // k·(1 + l0/len) strong), len (LENGTH, reaching f through k·l0/len), n = d/len
            // (DIV), x = len − l0, k·x, n·(k·x) (ROUND each), the last four of k·|x|:
            // 2·(len + l0) + 15·l0 + 13·|x| ≤ 30·(len + l0) of k, within the scale.
            Kind::Spring | Kind::AnchoredSpring | Kind::Bungee | Kind::AnchoredBungee => {
                ROUND + LENGTH + DIV + 3.0 * ROUND
            }
            // frac = (y_w + s − y)/(2s): two differences (ROUND of values ≤ |y_w| + s + |y|,
            // over 2s: within the scale), DIV; frac·ρ·V·g, three products (ROUND each).
            Kind::Buoyancy => 2.0 * ROUND + DIV + 3.0 * ROUND,
            // target = p·c1 − (p − v·dt)·e2, c1 = 2·exp(−d·dt/2)·cos(γ·dt), e2 = exp(−d·dt):
            // c1 EXP + TRIG_ABS + ROUND and γ's difference through sin(γ·dt)·γ·dt ≤ 0.03 (1);
            // p·c1 two ROUNDs more (p = pa − anchor, the product), of |p·c1| ≤ 2|p|: 54·|p|;
            // q = p − v·dt ROUND of |p|, CONTRACT + ROUND of |v·dt|, ROUND of |q|, times e2
            // EXP + ROUND: 14·|q| ≤ 14·(|p| + |v|·dt); the difference (CONTRACT of 2|p|, ROUND of
            // |target|), target − p (ROUND of |target| + |p|): 74·|p| + 4·|target| +
            // 17·|v|·dt. The velocity change is dt·w·f = (target − p)/dt − v (dt² ROUND, DIV,
            // the second DIV, ROUND of the difference, f = a/w DIV, of |a|·dt ≤ (|target| +
            // |p|)/dt + |v|): 92·|p|/dt + 22·|target|/dt + 33·|v| ≤ 46 of the scale (as a
            // velocity: (|pa| + |anchor| + |p| + |c| + |target|)/dt + |v|, |p| ≤ |pa| +
            // |anchor|).
            Kind::FakeSpring => 46.0,
            // f = −n·(T1 + T2), T1 = m_red/dt²·k·x, T2 = m_red/dt·c·vrel: n ROUND (d) + LENGTH +
            // DIV = 24; m_red = 1/(wa + wb) ROUND + DIV, over dt² ROUND + DIV, times k and x
            // ROUND each: 22 of |T1| and x's 17 of len (ROUND of d, LENGTH); m_red/dt DIV, times
            // c and vrel ROUND each: 20 of |T2|, vrel = dot(va − vb, n) ROUND + DOT3 and n's 24:
            // 32 of |va − vb|; the sum CONTRACT + ROUND, the product with n ROUND and n's 24:
            // 68 of m_red·k·(len + l0)/dt², 80 of m_red·c·|va − vb|/dt, within 80 of the scale.
            Kind::DampedSpring | Kind::AnchoredDampedSpring => 80.0,
            // g / w.
            Kind::Gravity => DIV,
            // −v·((k1·s + k2·s²)/s), s = length(v): LENGTH (reaching the factor through k2·s
            // only), the factor's three roundings, DIV, ROUND of the product with v.
            Kind::Drag => LENGTH + 3.0 * ROUND + DIV + ROUND,
        }
    }
}

/// What one velocity update v ← (v + a·dt)·pow(d, dt) may differ by, relative to the new
/// velocity: ROUND of the sum, POW of the damping factor, ROUND of the product; a side that
/// contracts the sum adds CONTRACT of |a·dt|.
const STEP_V: f64 = ROUND + POW + ROUND;

/// What the step around the generators may differ by, in units of u of the slot's velocity
/// scale: a = a_own + F·w (CONTRACT + ROUND), v + a·dt (CONTRACT), then STEP_V; the gathered
/// sum F of m forces adds ROUND of the running sum per term after the first.
const AGG_STEP: f64 = CONTRACT + ROUND + CONTRACT + STEP_V;

/// Every slot's f64 reference step (semi-implicit Euler with the summed generator forces,
/// v1 = (v0 + (a_own + w·Σf)·dt)·d^dt, p1 = p0 + v1·dt) and the model's bound on what an f32
/// step may differ from it or from another f32 step by: velocities AGG_STEP of the slot's
/// scale |v0| + |a_own·dt| + S, S = w·dt·Σ scale over the m generator terms it gathers, and the
/// kind's cost plus ROUND·(m − 1) of S; positions that times dt, ROUND of |p0| + |v1|·dt and
/// CONTRACT of |v1|·dt. Immovable slots: exact (`None`).
struct Expected {
    slots: Vec<Option<(DVec3, DVec3, f64, f64)>>,
}

fn expected_step(kind: Kind, ps: &[Particle], gens: &[ForceGenerator]) -> Expected {
    let dt = f64::from(DT);
    let n = ps.len();
    let (mut force, mut scale, mut terms) = (vec![DVec3::ZERO; n], vec![0.0f64; n], vec![0u32; n]);
    let w = |id: ParticleId| f64::from(ps[id.index() as usize].inverse_mass);
    for g in gens {
        let (f, s) = reference_force(g, ps, dt);
        let (a, b) = g.particles();
        force[a.index() as usize] += f;
        scale[a.index() as usize] += s * w(a) * dt;
        terms[a.index() as usize] += 1;
        if let Some(b) = b {
            // The second end gets the opposite force.
            force[b.index() as usize] -= f;
            scale[b.index() as usize] += s * w(b) * dt;
            terms[b.index() as usize] += 1;
        }
    }
    let slots = ps
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if p.inverse_mass == 0.0 {
                return None;
            }
            let w = f64::from(p.inverse_mass);
            let keep = f64::from(p.damping).powf(dt);
            let v0 = d3(p.velocity);
            let a = d3(p.acceleration) + force[i] * w;
            let v1 = (v0 + a * dt) * keep;
            let p1 = d3(p.position) + v1 * dt;
            let sv = v0.abs().max_element() + (d3(p.acceleration) * dt).abs().max_element();
            let gather = ROUND * f64::from(terms[i].saturating_sub(1));
            let tol_v = (AGG_STEP * (sv + scale[i]) + (kind.cost() + gather) * scale[i]) * U;
            let tol_p = tol_v * dt
                + (ROUND * (p.position.abs().max_element() as f64 + v1.length() * dt)
                    + CONTRACT * v1.length() * dt)
                    * U;
            Some((p1, v1, tol_p, tol_v))
        })
        .collect();
    Expected { slots }
}

/// Checks one step of `snap` against the f64 reference within the model; immovable particles
/// stay exactly where they were. Returns the largest share of the bound used.
fn check_reference(label: &str, snap: &AggSnapshot, ps: &[Particle], exp: &Expected) -> f64 {
    let mut used = 0.0f64;
    for (i, (p, slot)) in ps.iter().zip(&exp.slots).enumerate() {
        let (gp, gv) = (snap.pos[i].xyz(), snap.vel[i].xyz());
        let Some((p1, v1, tol_p, tol_v)) = *slot else {
            assert_eq!(gp, p.position, "{label}: immovable slot {i} pos moved");
            assert_eq!(gv, p.velocity, "{label}: immovable slot {i} vel changed");
            continue;
        };
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

/// One step of `agg_integrate` with random generators of `kind`, GPU vs CPU and both vs the f64
/// reference, each slot within the model's bound ([`expected_step`]).
fn generator_case(kind: Kind, seed: u64, rounding: CpuRounding) {
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
        let (mut g, mut c) = both(&config, rounding, &ps, |w, _| {
            for gen in &gens {
                w.add_generator(*gen).expect("add_generator");
            }
        });
        let label = format!("{kind:?} n={n} generators={count} ({rounding:?} CPU)");
        g.step(DT).expect("gpu step");
        c.step(DT).expect("cpu step");
        let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
        let exp = expected_step(kind, &ps, &gens);
        let [dp, dv, used] = check_parity(&label, &sg, &sc, &exp);
        let used_c = check_reference(&format!("cpu {label}"), &sc, &ps, &exp);
        let used_g = check_reference(&format!("gpu {label}"), &sg, &ps, &exp);
        eprintln!(
            "[measure] {label}: pos max |diff| {dp:.2e}, vel max |diff| {dv:.2e} ({:.1}% of the \
             model); vs f64 reference, cpu {:.1}% gpu {:.1}%",
            100.0 * used,
            100.0 * used_c,
            100.0 * used_g
        );
        // The generators must act: particles they touch leave the generator-free update by far
        // more than any bound (1e-3 m/s).
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

#[test]
fn generator_spring() {
    generator_case(Kind::Spring, 0xa_0100, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_spring_fused_cpu() {
    generator_case(Kind::Spring, 0xa_0100, CpuRounding::Fused);
}

#[test]
fn generator_anchored_spring() {
    generator_case(Kind::AnchoredSpring, 0xa_0200, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_anchored_spring_fused_cpu() {
    generator_case(Kind::AnchoredSpring, 0xa_0200, CpuRounding::Fused);
}

#[test]
fn generator_bungee() {
    generator_case(Kind::Bungee, 0xa_0300, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_bungee_fused_cpu() {
    generator_case(Kind::Bungee, 0xa_0300, CpuRounding::Fused);
}

#[test]
fn generator_anchored_bungee() {
    generator_case(Kind::AnchoredBungee, 0xa_0400, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_anchored_bungee_fused_cpu() {
    generator_case(Kind::AnchoredBungee, 0xa_0400, CpuRounding::Fused);
}

#[test]
fn generator_buoyancy() {
    generator_case(Kind::Buoyancy, 0xa_0500, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_buoyancy_fused_cpu() {
    generator_case(Kind::Buoyancy, 0xa_0500, CpuRounding::Fused);
}

#[test]
fn generator_fake_spring() {
    generator_case(Kind::FakeSpring, 0xa_0600, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_fake_spring_fused_cpu() {
    generator_case(Kind::FakeSpring, 0xa_0600, CpuRounding::Fused);
}

#[test]
fn generator_damped_spring() {
    generator_case(Kind::DampedSpring, 0xa_0700, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_damped_spring_fused_cpu() {
    generator_case(Kind::DampedSpring, 0xa_0700, CpuRounding::Fused);
}

#[test]
fn generator_anchored_damped_spring() {
    generator_case(Kind::AnchoredDampedSpring, 0xa_0800, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_anchored_damped_spring_fused_cpu() {
    generator_case(Kind::AnchoredDampedSpring, 0xa_0800, CpuRounding::Fused);
}

#[test]
fn generator_gravity() {
    generator_case(Kind::Gravity, 0xa_0900, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_gravity_fused_cpu() {
    generator_case(Kind::Gravity, 0xa_0900, CpuRounding::Fused);
}

#[test]
fn generator_drag() {
    generator_case(Kind::Drag, 0xa_0a00, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_drag_fused_cpu() {
    generator_case(Kind::Drag, 0xa_0a00, CpuRounding::Fused);
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

fn link_case(n: u32, iterations: u32, anchored: bool, seed: u64, rounding: CpuRounding) {
    let mut rng = Rng::new(seed);
    let (ps, links) = link_network(&mut rng, n, anchored);
    let config = AggregateConfig {
        capacity: n,
        link_iterations: iterations,
        ..Default::default()
    };
    let (mut g, mut c) = both(&config, rounding, &ps, |w, ids| {
        for l in &links {
            w.add_link(l.link(ids)).expect("add_link");
        }
    });
    let label = format!(
        "links n={n} links={} iterations={iterations} anchored={anchored} ({rounding:?} CPU)",
        links.len(),
    );
    let (sg, sc) = if iterations == 1 {
        step_compare(&label, &mut g, &mut c, LINK_POS, LINK_VEL)
    } else {
        // Positions slot by slot; velocities with the decisions taken the other way.
        let any = Tol {
            rel: 0.0,
            abs: f32::INFINITY,
        };
        let (sg, sc) = step_compare(&label, &mut g, &mut c, LINK_POS, any);
        link_decisions(&label, &ps, &sg, &sc);
        (sg, sc)
    };
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

/// Position tolerance of a link solve (one or eight iterations over ~9 colours), slot by slot:
/// eight ulps at 4 m absolute and four ulps relative in the 4 m box. Not the error model's
/// number: the model's first-order worst case does not stay near any such bound here. A solve
/// is a chain of visits, each moving its link's ends by a depth measured along the normal of
/// positions earlier visits moved; each visit's rounding (LENGTH of a length up to ~8 m, the
/// normal's LENGTH + DIV and two DIVs of a depth up to ~2.4 m: ~200u, 1e-5 m) passes on to every
/// particle downstream at full weight (a visit maps its ends' differences to a convex
/// combination along the link, but a compressed rod stretches them across it by up to
/// 1 + 2s(L/len − 1)), so ~10 colours give ~1e-4 m for one iteration, ten times this bound, and
/// more with every iteration. What a run uses is printed; one iteration measured 4.8e-7 m with
/// the fused twin, eight 2.2e-6 m or less over 400 seeds with the fused twin, except one network
/// at 6.0e-5 m (compressed rods stretching a difference). Reported with this change, for a
/// running error bound (the model along the solve's actual visits) to replace it.
const LINK_POS: Tol = Tol {
    rel: 2e-6,
    abs: 4e-6,
};

/// Velocity tolerance of one link solve (one iteration), slot by slot: eight ulps at 4 m/s
/// absolute and 2e-6 relative. Not the error model's number either: a visit's impulse is
/// (1 + e)·s·(v_a − v_b)·n along the link's normal n, and n carries its ends' position
/// difference divided by the link's length, so the velocity takes up to 4·|v_a − v_b| times the
/// positions' difference over the length: the shortest links here (a few tenths of a metre),
/// relative speeds up to 3.5 m/s and the positions' worst case above (1e-5 m per colour) give
/// ~5e-4 m/s per visit per colour before it and ~3e-2 m/s over an iteration, no bound at all.
/// One iteration measured 1.2e-6 m/s with the fused twin. Reported with this change, with
/// [`LINK_POS`]. More iterations: [`link_decisions`].
const LINK_VEL: Tol = Tol {
    rel: 2e-6,
    abs: 4e-6,
};

/// Model 3 (tests/common/error_model.rs) for a solve of more than one iteration. After the first
/// iteration a resolved link's length equals its rest length to the last bit, unless a later
/// colour moved its ends: whether a rod then pushes or pulls (len < L or len > L: its normal
/// flips, and with it which sign of the ends' relative normal speed it removes) and whether a
/// cable is taut (len ≥ L) is decided by rounding. A decision taken the other way changes the
/// ends' velocities by up to (1 + e)·|(v_a − v_b)·n| ≤ 2·|v_a − v_b| ≤ 4 times the largest speed
/// (the worth), and later visits pass that on through the links the ends share. Positions do
/// not depend on these decisions (a rod's move n·pen = normal·(len − L) either way, a cable's
/// depth is 0 at the threshold), so they stay within [`LINK_POS`] slot by slot.
///
/// How many slots: the decisions are coin flips where a link sits at its length, and one flip
/// spreads through the network for the remaining iterations, so the model bounds what a slot's
/// velocity may differ by, not how many slots differ (with the fused twin against lavapipe,
/// over 400 networks like these: no slot in 258, at most 8 in 397, 87 of 300 at most). Any
/// number of slots may therefore diverge here; what catches a wrong stage in a solve of several
/// iterations is the positions slot by slot (they do not depend on the decisions), both sides'
/// momentum (checked separately), and the one-iteration test's velocities slot by slot.
fn link_decisions(label: &str, ps: &[Particle], sg: &AggSnapshot, sc: &AggSnapshot) {
    let speeds = ps
        .iter()
        .map(|p| p.velocity)
        .chain(sg.vel.iter().chain(&sc.vel).map(|v| v.xyz()))
        .map(Vec3::length);
    let div = error_model::Divergence {
        worth: 4.0 * speeds.fold(0.0, f32::max),
        share: 1.0,
    };
    let (mut diverged, mut worst) = (0usize, 0.0f32);
    for i in 0..sg.vel.len() {
        let (a, b) = (sg.vel[i].xyz(), sc.vel[i].xyz());
        if (0..3).all(|k| {
            (a[k] - b[k]).abs() <= LINK_VEL.abs + LINK_VEL.rel * a[k].abs().max(b[k].abs())
        }) {
            continue;
        }
        let d = (a - b).abs().max_element();
        assert!(
            d <= div.worth,
            "{label}: slot {i} vel gpu {a} vs cpu {b}, |diff| {d:e} beyond what a decision taken \
             the other way is worth ({:e})",
            div.worth
        );
        diverged += 1;
        worst = worst.max(d);
    }
    let allowed = div.max_slots(sg.vel.len());
    assert!(
        diverged <= allowed,
        "{label}: {diverged} of {} slots with velocities beyond {LINK_VEL:?} (at most {allowed})",
        sg.vel.len()
    );
    eprintln!(
        "[measure] {label}: {diverged} slot(s) with a link decided the other way, largest \
         velocity difference {worst:e} m/s (at most {allowed} slots, each within {:e})",
        div.worth
    );
}

#[test]
fn links_one_iteration() {
    link_case(300, 1, false, 0xb_0100, CpuRounding::Separate);
    link_case(300, 1, true, 0xb_0200, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn links_one_iteration_fused_cpu() {
    link_case(300, 1, false, 0xb_0100, CpuRounding::Fused);
    link_case(300, 1, true, 0xb_0200, CpuRounding::Fused);
}

#[test]
fn links_eight_iterations() {
    link_case(300, 8, false, 0xb_0300, CpuRounding::Separate);
    link_case(300, 8, true, 0xb_0400, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model): the fused twin
/// decides a few links the other way (model 3, [`link_decisions`]).
#[test]
fn links_eight_iterations_fused_cpu() {
    link_case(300, 8, false, 0xb_0300, CpuRounding::Fused);
    link_case(300, 8, true, 0xb_0400, CpuRounding::Fused);
}

// ---------------------------------------------------------------------------------------------
// Collisions
// ---------------------------------------------------------------------------------------------

/// `COLLIDE_REST_DEPTH` (src/aggregate/model.rs): the depth, as a fraction of the two radii,
/// from which a resting contact counts fully towards its grain's engaged contacts.
const REST_DEPTH: f32 = 1.0 / 1024.0;
/// `COLLIDE_RELAXATION` (src/aggregate/model.rs).
const RELAXATION: f64 = 1.5;
/// The grains' gravity (`grain_config`), m/s².
const GRAIN_G: f32 = 9.81;

/// The square of the speed that separates an impact from a resting contact for two grains
/// under gravity alone (`impact_speed2`): (2·dt·g)².
fn impact_speed2() -> f32 {
    let s = 2.0 * DT * GRAIN_G;
    s * s
}

/// A grain after the integrate stage (semi-implicit Euler under gravity): (p1, v1).
fn free_flight(p: &Particle) -> (Vec3, Vec3) {
    if p.inverse_mass == 0.0 {
        return (p.position, p.velocity);
    }
    let v = p.velocity + Vec3::new(0.0, -GRAIN_G, 0.0) * DT;
    (p.position + v * DT, v)
}

/// Whether the collide stage's response to the pair `a`, `b` is a smooth function of their
/// state after the integrate stage. Three windows are not, on any hardware (rounding within
/// them moves the response by more than the model can bound, or by a whole decision; model 3
/// of tests/common/error_model.rs): the reach rr + slop, where a closing contact switches on
/// whole; a contact within reach but not penetrating past the depth ramp (rr·2⁻¹⁰), whose
/// count moves by its depth over rr·2⁻¹⁰, ~10⁴ per metre (and a lone closing one gets the whole
/// impact response as soon as it closes faster than the impact speed: count = wi, dv ∝ wi);
/// and an impact weight on its ramp, vn² between the impact speed² and twice it, whose
/// response moves by ~10² times vn's difference. The grains avoid all three by margins far
/// beyond the differences [`collide_model`] bounds (1e-5 m, 1e-2 m/s), so the comparison
/// measures arithmetic, not luck.
fn smooth_pair(a: &Particle, b: &Particle) -> bool {
    const DEPTH_MARGIN: f32 = 1e-5;
    const SPEED_MARGIN: f32 = 1e-2;
    let ((pa, va), (pb, vb)) = (free_flight(a), free_flight(b));
    let rr = a.size + b.size;
    let d = pa - pb;
    let pen = rr - d.length();
    let slop = AggregateConfig::default().contact_slop;
    if pen < -slop - DEPTH_MARGIN {
        return true;
    }
    if pen < rr * REST_DEPTH + DEPTH_MARGIN {
        return false;
    }
    let closing = -(va - vb).dot(d.normalize());
    let (lo, hi) = (impact_speed2().sqrt(), (2.0 * impact_speed2()).sqrt());
    closing < lo - SPEED_MARGIN || closing > hi + SPEED_MARGIN
}

/// `n` random grains of radius 5–8 cm in a 1.2 m × 0.95 m × 1.2 m box above the floor: about a
/// third of the box filled, so most grains overlap two or three others. Speeds to 2 m/s, masses
/// 0.1–1 kg, one grain in twenty immovable. A grain is drawn again until its contacts with
/// those drawn before are [`smooth_pair`]s and it is clear of the floor's reach (the same
/// decision as a grain's: r − y against −slop, with the same margin).
fn random_grains(rng: &mut Rng, n: u32, radius: Option<f32>) -> Vec<Particle> {
    let mut grains: Vec<Particle> = Vec::with_capacity(n as usize);
    while grains.len() < n as usize {
        let r = radius.unwrap_or_else(|| rng.range(0.05, 0.08));
        let p = Particle::new(Vec3::new(
            rng.range(-0.6, 0.6),
            rng.range(0.05, 1.0),
            rng.range(-0.6, 0.6),
        ))
        .with_velocity(rng.vec3(-2.0, 2.0))
        .with_size(r);
        let p = if rng.chance(0.05) {
            p.with_inverse_mass(0.0)
        } else {
            p.with_mass(rng.range(0.1, 1.0))
        };
        let floor = r - free_flight(&p).0.y + AggregateConfig::default().contact_slop;
        if floor.abs() > 1e-5 && grains.iter().all(|q| smooth_pair(&p, q)) {
            grains.push(p);
        }
    }
    grains
}

/// The collide stage's model for one Jacobi iteration over grains drawn by [`random_grains`]
/// (every contact out of reach, or penetrating past the depth ramp and closing slower than the
/// impact speed or faster than √2 times it: each contact is a whole impact or a whole resting
/// contact, and a grain's count is its number of contacts, on both sides alike), per grain,
/// first order, worst case, from the error model's costs (tests/common/error_model.rs):
///
/// * the integrate stage: a velocity difference of STEP_V = ROUND + POW + ROUND of |v1| and
///   CONTRACT of g·dt, a position difference of dt times that, ROUND of |p1| and CONTRACT of
///   |v1|·dt;
/// * each contact with grain j: d = p − p_j (both grains' differences and ROUND of |d|), |d|
///   (LENGTH), the depth (ROUND), the normal d/|d| (2·|Δd|/|d| + LENGTH + DIV: a short d
///   carries the positions' difference as a direction), the relative velocity (both grains'
///   differences and ROUND), vn = rel·n (DOT3, and |rel| times the normal's), the share
///   w/(w + w_j) (ROUND + DIV);
/// * an impact's velocity change −(1 + e)·vn·n less the friction's projection of vt onto the
///   ball of radius μ·(1 + e)·|vn|: Lipschitz (1 + e) + 1 + μ(1 + e) in the relative velocity,
///   2(1 + e) + 2 + μ(1 + e) times |rel| in the normal, and its eleven roundings of values up to
///   (1 + e)(1 + μ)·|rel| (as `contact_response`'s); its push-out n·pen·share (the normal's and
///   the depth's differences, ROUND);
/// * a resting contact's correction n·pen − vt·(dt·min(|vt|·dt, μ·pen)/(|vt|·dt)): the normal's,
///   (1 + μ) times the depth's, dt times vt's, and its roundings (ROUND of pen; μ·pen's LENGTH,
///   three ROUNDs, DIV, CONTRACT + ROUND);
/// * the sums over the grain's m contacts (a multiply-add each, CONTRACT + ROUND of the running
///   sum), k = 1/max(m/1.5, 1) (two DIVs), the resting sum times k (ROUND), v += dv/m + dpk/dt
///   and p += dp/m + dpk (DIV each, two ROUNDs each): the resting corrections reach the
///   velocity divided by dt;
/// * the floor, for a grain the contacts may bring within its reach: `contact_response` on the
///   velocity (its normal copied), the depth's difference (ROUND of y and of the depth) on the
///   position.
///
/// Immovable grains: exact (`None`).
fn collide_model(ps: &[Particle], config: &AggregateConfig) -> Expected {
    let col = config.collisions.expect("collisions");
    let (e, mu) = (f64::from(col.restitution), f64::from(col.friction));
    let floor = &config.colliders[0];
    let [floor_lv, _, floor_rounds] =
        error_model::contact_response(f64::from(floor.restitution), f64::from(floor.friction));
    let slop = f64::from(config.contact_slop);
    let (dt, g) = (f64::from(DT), f64::from(GRAIN_G));
    let flights: Vec<(DVec3, DVec3)> = ps
        .iter()
        .map(|p| {
            let (p1, v1) = free_flight(p);
            (d3(p1), d3(v1))
        })
        .collect();
    let integrated: Vec<(f64, f64)> = ps
        .iter()
        .zip(&flights)
        .map(|(p, (p1, v1))| {
            if p.inverse_mass == 0.0 {
                return (0.0, 0.0);
            }
            let dv = (STEP_V * v1.abs().max_element() + CONTRACT * g * dt) * U;
            let dp = dv * dt
                + (ROUND * p1.abs().max_element() + CONTRACT * v1.abs().max_element() * dt) * U;
            (dp, dv)
        })
        .collect();
    let l_res = (1.0 + e) + 1.0 + mu * (1.0 + e);
    let n_res = 2.0 * (1.0 + e) + 2.0 + mu * (1.0 + e);
    let r_res = (1.0 + e)
        * (1.0 + mu)
        * (l_res * DOT3
            + 2.0 * (1.0 + mu) * ROUND
            + ROUND
            + (CONTRACT + ROUND)
            + LENGTH
            + ROUND
            + DIV
            + (CONTRACT + ROUND));
    let r_dpc = ROUND + mu * (LENGTH + 3.0 * ROUND + DIV + CONTRACT + ROUND);
    let acc = CONTRACT + ROUND;
    let slots = ps
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if p.inverse_mass == 0.0 {
                return None;
            }
            let ((p1, v1), (dp1, dv1)) = (flights[i], integrated[i]);
            let w = f64::from(p.inverse_mass);
            // Sums of magnitudes and of differences: impacts (dv, dp) and resting (dr).
            let [mut dv_sum, mut dv_err, mut dp_sum, mut dp_err, mut dr_sum, mut dr_err] = [0.0; 6];
            let mut m = 0u32;
            for (j, q) in ps.iter().enumerate() {
                let rr = f64::from(p.size + q.size);
                let d = p1 - flights[j].0;
                let dist = d.length();
                let pen = rr - dist;
                if j == i || pen <= -slop {
                    continue;
                }
                let rel = v1 - flights[j].1;
                let (rel_len, vn) = (rel.length(), rel.dot(d / dist));
                let share = w / (w + f64::from(q.inverse_mass));
                let dd = dp1 + integrated[j].0 + ROUND * U * dist;
                let dpen = dd + (LENGTH + ROUND) * U * dist;
                let dn = 2.0 * dd / dist + (LENGTH + DIV) * U;
                let drel = dv1 + integrated[j].1 + ROUND * U * rel_len;
                let dvn = drel + rel_len * dn + DOT3 * U * rel_len;
                let dshare = (ROUND + DIV) * U * share;
                if vn < 0.0 && vn * vn > f64::from(impact_speed2()) {
                    let mag = (1.0 + e) * (1.0 + mu) * rel_len;
                    dv_err += (l_res * drel + n_res * rel_len * dn + r_res * U * rel_len) * share
                        + mag * dshare;
                    dv_sum += mag * share;
                    dp_err +=
                        pen * share * dn + share * dpen + pen * dshare + ROUND * U * pen * share;
                    dp_sum += pen * share;
                } else {
                    let dvt = dvn + drel + rel_len * dn + (CONTRACT + ROUND) * U * rel_len;
                    let dpc = pen * dn + (1.0 + mu) * dpen + dt * dvt + r_dpc * U * pen;
                    dr_err += dpc * share + (1.0 + mu) * pen * dshare;
                    dr_sum += (1.0 + mu) * pen * share;
                }
                m += 1;
            }
            let (mut dp, mut dv, mut moved, mut speed) = (dp1, dv1, 0.0, v1.length());
            if m > 0 {
                let mf = f64::from(m);
                dv_err += acc * U * mf * dv_sum;
                dp_err += acc * U * mf * dp_sum;
                dr_err += acc * U * mf * dr_sum;
                let k = 1.0 / (mf / RELAXATION).max(1.0);
                let dk = 2.0 * DIV * U * k;
                let dpk = dr_sum * k;
                let dpk_err = dr_err * k + dr_sum * dk + ROUND * U * dpk;
                speed += dv_sum / mf + dpk / dt;
                moved = dp_sum / mf + dpk;
                dv += dv_err / mf
                    + DIV * U * dv_sum / mf
                    + dpk_err / dt
                    + DIV * U * dpk / dt
                    + 2.0 * ROUND * U * speed;
                dp += dp_err / mf
                    + DIV * U * dp_sum / mf
                    + dpk_err
                    + 2.0 * ROUND * U * (p1.abs().max_element() + moved);
            }
            let r = f64::from(p.size);
            if r - (p1.y - moved) > -slop {
                // The floor's normal is copied; its resting-contact fix rounds g·dt's dot.
                let (fe, fmu) = (f64::from(floor.restitution), f64::from(floor.friction));
                dv = floor_lv * dv
                    + floor_rounds * U * speed
                    + fe * (1.0 + fmu) * g * dt * (DOT3 + ROUND) * U;
                // The depth r − y carries the position's difference (and ROUND of y and of the
                // depth), and the push-out adds it again.
                let depth = r + moved;
                dp = 2.0 * dp
                    + ROUND * U * (p1.y.abs() + moved + depth)
                    + (CONTRACT + ROUND) * U * depth;
            }
            Some((p1, v1, dp, dv))
        })
        .collect();
    Expected { slots }
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
    rounding: CpuRounding,
) -> (f64, f64) {
    let label = &format!("{label} ({rounding:?} CPU)");
    let (mut g, mut c) = both(config, rounding, ps, |_, _| {});
    g.step(DT).expect("gpu step");
    c.step(DT).expect("cpu step");
    let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
    let [dp, dv, used] = check_parity(label, &sg, &sc, &collide_model(ps, config));
    eprintln!(
        "[measure] {label}: pos max |diff| {dp:.2e}, vel max |diff| {dv:.2e} ({:.1}% of the \
         model)",
        100.0 * used
    );
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

// More iterations per step are compared end to end, with a drift budget, in
// `aggregate_end_to_end.rs`: after the first iteration the grains' contacts sit wherever it
// left them, in the windows [`smooth_pair`] keeps the inputs out of.

/// The collide stage alone (one Jacobi iteration), GPU vs CPU, on 1 and 400 random overlapping
/// grains; then the same grains with four iterations, where the CPU and the GPU must each
/// remove more overlap than one iteration did.
#[test]
fn collide_stage() {
    collide_stage_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn collide_stage_fused_cpu() {
    collide_stage_case(CpuRounding::Fused);
}

fn collide_stage_case(rounding: CpuRounding) {
    let mut rng = Rng::new(0xc_0100);
    let ps = random_grains(&mut rng, 1, None);
    collide_case(
        "collide n=1 iterations=1",
        &ps,
        &grain_config(1, 0.2, 1),
        rounding,
    );
    let mut rng = Rng::new(0xc_0200);
    let ps = random_grains(&mut rng, 400, None);
    let (before, one) = collide_case(
        "collide n=400 iterations=1",
        &ps,
        &grain_config(400, 0.2, 1),
        rounding,
    );
    // Four iterations: no parity (see above), but more overlap removed on both sides
    // (the CPU twin rounding as in the one-iteration comparison).
    let config = AggregateConfig {
        cpu_rounding: rounding,
        ..grain_config(400, 0.2, 4)
    };
    for (name, backend) in backends() {
        let mut w = AggregateWorld::new(backend, config.clone()).expect("world");
        w.add_particles(&ps).expect("add_particles");
        w.step(DT).expect("step");
        let s = w.read_snapshot().expect("snapshot");
        let radius: Vec<f32> = ps.iter().map(|p| p.size).collect();
        let four = total_overlap(&s.pos.iter().map(|p| p.xyz()).collect::<Vec<_>>(), &radius);
        eprintln!("[measure] collide n=400 {name} ({rounding:?} CPU): overlap {before:.4} m -> {one:.4} m (1 iteration) -> {four:.4} m (4 iterations)");
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
    automatic_cell_size_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn collide_with_automatic_cell_size_fused_cpu() {
    automatic_cell_size_case(CpuRounding::Fused);
}

fn automatic_cell_size_case(rounding: CpuRounding) {
    let mut rng = Rng::new(0xc_0300);
    let ps = random_grains(&mut rng, 400, Some(0.06));
    collide_case(
        "collide n=400 automatic cell size",
        &ps,
        &grain_config(400, 0.0, 1),
        rounding,
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
