//! The force generators' reference model: the generator kinds, random generators of each, their
//! documented forces in f64, and one reference step with the model's bound on what an f32 step
//! may differ by.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
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
    pub(super) fn two_ended(self) -> bool {
        matches!(self, Kind::Spring | Kind::Bungee | Kind::DampedSpring)
    }
}

/// A random generator of `kind` on random particles of `ids`.
pub(super) fn random_gen(kind: Kind, rng: &mut Rng, ids: &[ParticleId]) -> ForceGenerator {
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
/// What the step around the generators may differ by, in units of u of the slot's velocity
/// scale: a = a_own + F·w (CONTRACT + ROUND), v + a·dt (CONTRACT), then STEP_V; the gathered
/// sum F of m forces adds ROUND of the running sum per term after the first.
const AGG_STEP: f64 = CONTRACT + ROUND + CONTRACT + STEP_V;

pub(super) fn expected_step(kind: Kind, ps: &[Particle], gens: &[ForceGenerator]) -> Expected {
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
pub(super) fn check_reference(
    label: &str,
    snap: &AggSnapshot,
    ps: &[Particle],
    exp: &Expected,
) -> f64 {
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
