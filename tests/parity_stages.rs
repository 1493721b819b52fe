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

use common::error_model::cost::{CONTRACT, DIV, DOT3, LENGTH, POW, ROUND, SQRT};
use common::*;
use glam::{EulerRot, Quat, Vec3, Vec4};
use wgphys::particles::types::GPU_ID_BIT;
use wgphys::particles::{
    Collider, ColliderShape, ForceField, Particle, ParticleHandle, ParticleWorld, Snapshot,
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

/// What one velocity update v ← (v + a·dt)·pow(d, dt) may differ by, relative to the new
/// velocity: ROUND of the sum, POW of the damping factor, ROUND of the product (the damping
/// factor is at most 1, so the sum's difference reaches the result at most as large). A side
/// that contracts the sum into a fused multiply-add adds CONTRACT of |a·dt| on top.
const STEP_V: f64 = ROUND + POW + ROUND;

/// `(rel, abs)` in units of u.
const fn tol(rel: f64, abs: f64) -> Tol {
    Tol {
        rel: (rel * U) as f32,
        abs: (abs * U) as f32,
    }
}

/// The model after `k` integration steps without colliders (the book's order: p ← p + v·dt
/// with the old velocity, then the velocity update), for lane speeds up to `v` and
/// accelerations up to `a` that every side computes alike. `[pos rel, pos abs, vel rel, vel
/// abs]`, in units of u:
///
/// * velocity: each step adds STEP_V of |v_j| and CONTRACT of |a·dt|, and carries the previous
///   difference through the damping factor (≤ 1); since keep·|v_{j−1}| ≤ |v_j| + |a·dt|, after
///   k steps that is k·STEP_V of |v_k| and c_k of |a·dt|, with c_1 = CONTRACT and
///   c_j = c_{j−1} + (j − 1)·STEP_V + CONTRACT;
/// * position: each step rounds the sum (ROUND of |p_j| ≤ |p_k| + (k − j)·v·dt), may contract
///   v·dt (CONTRACT of v·dt), and adds the previous step's velocity difference times dt.
const fn step_model(k: u32, v: f64, a: f64) -> [f64; 4] {
    let kf = k as f64;
    let (mut c, mut sum_c, mut j) = (0.0, 0.0, 1);
    while j <= k {
        if j > 1 {
            sum_c += c;
        }
        c += (j - 1) as f64 * STEP_V + CONTRACT;
        j += 1;
    }
    let pos_abs =
        (ROUND * kf * (kf - 1.0) / 2.0 + CONTRACT * kf + STEP_V * kf * (kf - 1.0) / 2.0) * v * DT64
            + sum_c * a * DT64 * DT64;
    [ROUND * kf, pos_abs, STEP_V * kf, c * a * DT64]
}

/// [`step_model`] as the snapshot's tolerances; everything else is copied or exact (ages add dt
/// the same way on both sides).
const fn steps_tol(k: u32, v: f64, a: f64) -> SnapTol {
    let m = step_model(k, v, a);
    SnapTol {
        pos: tol(m[0], m[1]),
        vel: tol(m[2], m[3]),
        other: Tol::EXACT,
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

/// What the drag law's evaluation −u·((k1·s + k2·s²)/s)·w (s = length(u)) may differ by,
/// relative to its value: LENGTH of s, which reaches the result only through k2·s (≤ the
/// factor k1 + k2·s), the factor's three roundings (k1·s, k2·s, the product or a contraction,
/// the sum: 3·ROUND), its division (DIV), and the two products with u and w (2·ROUND).
const DRAG_COST: f64 = LENGTH + 3.0 * ROUND + DIV + 2.0 * ROUND;

/// What the attractor's d·(s / (r²·√r²)), r² = dot(d, d) + ρ², may differ by, relative to its
/// value: r² DOT3 + CONTRACT + ROUND (the softening added by a multiply-add), once in r² and
/// half of it through the root, SQRT, ROUND of the product, DIV, ROUND of the product with d.
const ATTRACTOR_COST: f64 = 1.5 * (DOT3 + CONTRACT + ROUND) + SQRT + ROUND + DIV + ROUND;

/// The model for one step with `fields` on [`random_particle`]s: [`step_model`] with the total
/// acceleration A = a + Σ fields in place of a (positions as without fields: the book's order
/// moves them with the old velocity), plus dt times what the fields' evaluation may differ by:
/// each field's cost times its largest lane value (drag and wind at the largest speed and
/// inverse mass, the attractor at its peak |s|·0.385/ρ², at r = ρ/√2), and, once any field
/// differs, ROUND of the running sum for each field added to the acceleration.
fn forces_tol(fields: &[ForceField]) -> SnapTol {
    let speed = 3f64.sqrt() * V_LANE;
    let drag = |lane: f64, speed: f64, k1: f32, k2: f32| {
        let factor = f64::from(k1) + f64::from(k2) * speed;
        (lane * factor * W_MAX, DRAG_COST)
    };
    let (mut total, mut differ) = (A_LANE, 0.0);
    for field in fields {
        let (peak, cost) = match *field {
            ForceField::Gravity(g) => (f64::from(g.abs().max_element()), 0.0),
            ForceField::Drag { k1, k2 } => drag(V_LANE, speed, k1, k2),
            ForceField::Wind { velocity, k1, k2 } => drag(
                V_LANE + f64::from(velocity.abs().max_element()),
                speed + f64::from(velocity.length()),
                k1,
                k2,
            ),
            ForceField::Attractor {
                strength,
                softening,
                ..
            } => (
                0.385 * f64::from(strength.abs()) / f64::from(softening * softening),
                ATTRACTOR_COST,
            ),
            ref other => panic!("no error model for {other:?}"),
        };
        total += peak;
        differ += cost * peak;
    }
    if differ > 0.0 {
        differ += ROUND * fields.len() as f64 * total;
    }
    let m = step_model(1, V_LANE, total);
    SnapTol {
        pos: tol(m[0], m[1]),
        vel: tol(m[2], m[3] + differ * DT64),
        other: Tol::EXACT,
    }
}

/// Restitution and friction of the colliders here at their largest ([`half_space`],
/// [`sphere`], [`rotated_box`]).
const E_MAX: f64 = 0.7;
const MU_MAX: f64 = 0.5;

/// What `quat_rotate(q, v)` may differ by, per lane, in units of u·|v| (|q| = 1): t =
/// 2·cross(q, v), each lane a·b − c·d contracted or not (CONTRACT + ROUND of values ≤ |v|,
/// doubled: 6); v + q.w·t (CONTRACT of |t| ≤ 2, ROUND of ≤ 3: 8, and t's 6); cross(q, t) (its
/// own 6, and t's 6 through it, ≤ √3·6 as a vector); the final sum (ROUND): 34 in all.
const QUAT: f64 = 34.0;

/// The model for one step against the colliders of `collider_case`, at the magnitudes of the
/// four cases (centres within 9.6 m of the origin after a step, speeds up to
/// |v| ≤ √3·(20 + 19.81·dt) m/s, accelerations |a + g| ≤ √(10² + 19.81² + 10²) m/s²).
///
/// The contact's normal n may differ by (u, unit vector): 0 on a half-space (the host's
/// normalised normal, copied); on a box face LENGTH + DIV for the local normal diff/|diff| and
/// QUAT for its rotation; on a sphere 2·|Δd|/|d| + LENGTH + DIV for d = p − c, which
/// [`well_conditioned`] keeps at |d| ≥ 1 m, where |Δd| (ROUND of |p| ≤ |c| + 1 and of |d|, and
/// CONTRACT of |v·dt|) makes it less than the box's. The response
/// (`error_model::contact_response`) maps the integration's velocity difference with Lipschitz
/// constant L_V, the normal's with N_SENS times the speed, and adds its own roundings.
///
/// Velocities: L_V·STEP_V (the integration's difference) + the response's roundings + N_SENS
/// times the normal's, all of the speed. Positions: the push-out p + n·pen adds to the
/// integration's difference (ROUND of |p|, CONTRACT of v·dt) the depth's difference (per shape
/// below), pen times the normal's, CONTRACT of pen and ROUND of the result; the largest of the
/// three shapes. Free particles keep [`INTEGRATE`]'s relative parts.
fn colliders_tol() -> SnapTol {
    let speed = 3f64.sqrt() * (V_LANE + (A_LANE + 9.81) * DT64);
    let accel = (2.0 * A_LANE * A_LANE + (A_LANE + 9.81).powi(2)).sqrt();
    let [l_v, n_sens, resolve] = error_model::contact_response(E_MAX, MU_MAX);
    let box_normal = QUAT + LENGTH + DIV;
    // The resting-contact fix's dot(a, n)·dt: DOT3 + ROUND of |a|·dt and the normal's
    // difference, times e and the friction's μ.
    let rest = E_MAX * (1.0 + MU_MAX) * accel * DT64 * (box_normal + DOT3 + ROUND);
    let vel_abs = (l_v * STEP_V + resolve + n_sens * box_normal) * speed + rest;

    // An integrated centre's difference.
    let moved = |p: f64| ROUND * p + CONTRACT * speed * DT64;
    // Half-space (the lowest corners of the "half-space" and "all" boxes: |p| ≤ 9.6 m, the
    // offset 4.5 m, depth ≤ 6.1 m): pen = r − (dot(n, p) − offset), DOT3 of |p|, ROUND of the
    // difference and of pen.
    let (p, off, pen) = (9.6, 4.5, 6.1);
    let pen_diff = moved(p) + DOT3 * p + ROUND * (p + off) + ROUND * pen;
    let half_space = moved(p) + pen_diff + CONTRACT * pen + ROUND * (p + pen);
    // Sphere ("all": centre 3.54 m from the origin, radius 2 m; "sphere": 0.4 m, 2.5 m): at
    // |d| ≥ 1 m the depth R + r − |d| is at most 2 m; d = p − c ROUND of |d| ≤ 3 m, |d| LENGTH.
    let (c, d_max, pen) = (3.54, 3.0, 2.0);
    let d_diff = |d: f64| moved(c + d) + ROUND * d;
    let normal = 2.0 * d_diff(1.0) + LENGTH + DIV;
    let pen_diff = d_diff(d_max) + LENGTH * d_max + ROUND * (d_max + pen);
    let sphere = moved(c + d_max) + pen * normal + pen_diff + CONTRACT * pen + ROUND * (c + d_max);
    // Box ("rotated box": |p| ≤ 3.8 m, |p − c| ≤ |h| + r ≤ 3.2 m; depth ≤ min h + r = 1.5 m):
    // the local position quat_rotate(conj, p − c) (ROUND + QUAT of |p − c|), then |diff|
    // (LENGTH of ≤ r) or the face depth (ROUND), ROUND of pen.
    let (p, local, pen) = (3.8, 3.2, 1.5);
    let pen_diff = moved(p) + (ROUND + QUAT) * local + LENGTH * 0.5 + 2.0 * ROUND * pen;
    let boxed = moved(p) + pen * box_normal + pen_diff + CONTRACT * pen + ROUND * p;
    let pos_abs = half_space.max(sphere).max(boxed);

    let free = step_model(1, V_LANE, A_LANE + 9.81);
    SnapTol {
        pos: tol(free[0], pos_abs),
        vel: tol(free[2], vel_abs),
        other: Tol::EXACT,
    }
}

/// Launch velocities (lane bound) and gravity of the fireworks spawned by
/// `firework_burst_spawns_identical_children`.
const FW_V: f64 = 10.0;
const FW_G: f64 = 9.81;
/// The book's rules: the widest launch range of a lane (vmax − vmin, types 4 and 5) and the
/// fastest launch lane (type 7), m/s.
const RULE_SPREAD: f64 = 40.0;
const RULE_V: f64 = 60.0;

/// The parents before they burst: at most two integration steps ([`step_model`]), and their
/// colour rule.colour·clamp(1 − age/lifetime, 0, 1) with age/lifetime ≤ 1 and colours ≤ 1:
/// DIV, ROUND of the difference, ROUND of the product, absolute.
const FIREWORK_PARENTS: SnapTol = {
    let m = step_model(2, FW_V + 2.0 * FW_G * DT64, FW_G);
    SnapTol {
        pos: tol(m[0], m[1]),
        vel: tol(m[2], m[3]),
        other: tol(0.0, DIV + 2.0 * ROUND),
    }
};

/// The children: their parent's position after three steps ([`step_model`]); velocity =
/// parent v + (vmin + (vmax − vmin)·u), the parent's difference after three steps (absolute, at
/// parent speeds ≤ 10.5 m/s), the launch's multiply-add (CONTRACT of ≤ 40 m/s and ROUND of
/// ≤ 60 m/s) and ROUND of the sum; lifetime = amin + (amax − amin)·u, CONTRACT + ROUND of the
/// lifetime; colour, size and acceleration copied from the rule.
const FIREWORK_CHILDREN: SnapTol = {
    let v = FW_V + 3.0 * FW_G * DT64;
    let m = step_model(3, v, FW_G);
    SnapTol {
        pos: tol(m[0], m[1]),
        vel: tol(
            ROUND,
            m[2] * v + m[3] + CONTRACT * RULE_SPREAD + ROUND * RULE_V,
        ),
        other: tol(CONTRACT + ROUND, 0.0),
    }
};

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

#[test]
fn integrate_alone() {
    integrate_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn integrate_alone_fused_cpu() {
    integrate_case(CpuRounding::Fused);
}

fn integrate_case(rounding: CpuRounding) {
    // Tolerance of the f64 reference check, either side: the f32 update rounds v·dt and the
    // sum (u each, of values ≤ |p0| + |v0·dt|), a·dt, the sum and the product (u each, of
    // values ≤ |v0| + |a·dt|), and the damping factor is within 5 ulp of pow's exact value on
    // a GPU (cost::POW less glibc's ulp: 10u, of |v1| ≤ |v0| + |a·dt|): 13u of the terms'
    // magnitudes.
    const REFERENCE_REL: f64 = 13.0 * U;
    for n in SIZES {
        let mut rng = Rng::new(0x1_0000 + u64::from(n));
        let ps: Vec<Particle> = (0..n)
            .map(|_| random_particle(&mut rng, -50.0, 50.0))
            .collect();
        let (mut g, mut c) = spawn_both(&config(n), &ps, rounding);
        let (sg, sc) = step_and_compare(
            &format!("integrate n={n} ({rounding:?} CPU)"),
            &mut g,
            &mut c,
            INTEGRATE,
        );
        // Physics: one step of the book's integrator, p1 = p0 + v0 dt, v1 = (v0 + a dt) d^dt,
        // evaluated in f64; immovable particles (inverse mass 0) do not move at all.
        for (i, p) in ps.iter().enumerate() {
            for (name, s) in [("gpu", &sg), ("cpu", &sc)] {
                if p.inverse_mass == 0.0 {
                    assert_eq!(
                        s.pos[i].truncate(),
                        p.position,
                        "{name} n={n}: immovable slot {i} pos moved"
                    );
                    assert_eq!(
                        s.vel[i].truncate(),
                        p.velocity,
                        "{name} n={n}: immovable slot {i} vel changed"
                    );
                    continue;
                }
                let dt = f64::from(DT);
                let keep = f64::from(p.damping).powf(dt);
                for k in 0..3 {
                    let (p0, v0, a) = (
                        f64::from(p.position[k]),
                        f64::from(p.velocity[k]),
                        f64::from(p.acceleration[k]),
                    );
                    let want_p = p0 + v0 * dt;
                    let want_v = (v0 + a * dt) * keep;
                    let tol_p = REFERENCE_REL * (p0.abs() + (v0 * dt).abs());
                    let tol_v = REFERENCE_REL * (v0.abs() + (a * dt).abs());
                    let (got_p, got_v) = (f64::from(s.pos[i][k]), f64::from(s.vel[i][k]));
                    assert!(
                        (got_p - want_p).abs() <= tol_p,
                        "{name} n={n}: slot {i} pos[{k}] {got_p} vs f64 {want_p}"
                    );
                    assert!(
                        (got_v - want_v).abs() <= tol_v,
                        "{name} n={n}: slot {i} vel[{k}] {got_v} vs f64 {want_v}"
                    );
                }
            }
        }
    }
}

fn force_case(name: &str, fields: Vec<ForceField>, seed: u64, rounding: CpuRounding) {
    let tol = forces_tol(&fields);
    for n in SIZES {
        let mut rng = Rng::new(seed + u64::from(n));
        let ps: Vec<Particle> = (0..n)
            .map(|_| random_particle(&mut rng, -20.0, 20.0))
            .collect();
        let cfg = WorldConfig {
            fields: fields.clone(),
            ..config(n)
        };
        let (mut g, mut c) = spawn_both(&cfg, &ps, rounding);
        let (_, sc) = step_and_compare(
            &format!("forces {name} n={n} ({rounding:?} CPU)"),
            &mut g,
            &mut c,
            tol,
        );
        // The fields must act: most movable, undamped-to-zero particles leave the field-free
        // update (v0 + a dt) d^dt by far more than the tolerance (1e-4 m/s is ~25x it).
        let (mut acted, mut eligible) = (0, 0);
        for (i, p) in ps
            .iter()
            .enumerate()
            .filter(|(_, p)| p.inverse_mass > 0.0 && p.damping > 0.0)
        {
            let free = (p.velocity + p.acceleration * DT) * p.damping.powf(DT);
            eligible += 1;
            acted += usize::from((sc.vel[i].truncate() - free).length() > 1e-4);
        }
        assert!(
            2 * acted >= eligible,
            "forces {name} n={n}: the fields changed only {acted} of {eligible} velocities"
        );
    }
}

fn gravity_fields() -> Vec<ForceField> {
    vec![
        ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0)),
        ForceField::Gravity(Vec3::new(1.5, 0.0, -0.5)),
    ]
}

#[test]
fn forces_gravity() {
    force_case("gravity", gravity_fields(), 0x2_0000, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn forces_gravity_fused_cpu() {
    force_case("gravity", gravity_fields(), 0x2_0000, CpuRounding::Fused);
}

fn drag_fields() -> Vec<ForceField> {
    vec![ForceField::Drag { k1: 0.3, k2: 0.05 }]
}

#[test]
fn forces_drag() {
    force_case("drag", drag_fields(), 0x3_0000, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn forces_drag_fused_cpu() {
    force_case("drag", drag_fields(), 0x3_0000, CpuRounding::Fused);
}

fn wind_fields() -> Vec<ForceField> {
    vec![ForceField::Wind {
        velocity: Vec3::new(5.0, 0.0, -3.0),
        k1: 0.2,
        k2: 0.02,
    }]
}

#[test]
fn forces_wind() {
    force_case("wind", wind_fields(), 0x4_0000, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn forces_wind_fused_cpu() {
    force_case("wind", wind_fields(), 0x4_0000, CpuRounding::Fused);
}

fn attractor_fields() -> Vec<ForceField> {
    vec![
        ForceField::Attractor {
            centre: Vec3::new(1.0, 2.0, 3.0),
            strength: 500.0,
            softening: 0.5,
        },
        ForceField::Attractor {
            centre: Vec3::new(-4.0, 0.0, 1.0),
            strength: -200.0,
            softening: 1.0,
        },
    ]
}

#[test]
fn forces_attractor() {
    force_case(
        "attractor",
        attractor_fields(),
        0x5_0000,
        CpuRounding::Separate,
    );
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn forces_attractor_fused_cpu() {
    force_case(
        "attractor",
        attractor_fields(),
        0x5_0000,
        CpuRounding::Fused,
    );
}

fn all_fields() -> Vec<ForceField> {
    vec![
        ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0)),
        ForceField::Drag { k1: 0.1, k2: 0.01 },
        ForceField::Wind {
            velocity: Vec3::new(2.0, 1.0, 0.0),
            k1: 0.05,
            k2: 0.0,
        },
        ForceField::Attractor {
            centre: Vec3::ZERO,
            strength: 100.0,
            softening: 1.0,
        },
    ]
}

#[test]
fn forces_all_kinds_together() {
    force_case("all", all_fields(), 0x6_0000, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn forces_all_kinds_together_fused_cpu() {
    force_case("all", all_fields(), 0x6_0000, CpuRounding::Fused);
}

fn half_space(offset: f32) -> Collider {
    Collider {
        shape: ColliderShape::HalfSpace {
            normal: Vec3::new(0.2, 1.0, -0.1),
            offset,
        },
        restitution: 0.6,
        friction: 0.4,
    }
}

fn sphere(centre: Vec3, radius: f32) -> Collider {
    Collider {
        shape: ColliderShape::Sphere { centre, radius },
        restitution: 0.7,
        friction: 0.2,
    }
}

fn rotated_box(centre: Vec3, half_extents: Vec3) -> Collider {
    Collider {
        shape: ColliderShape::Box {
            centre,
            half_extents,
            rotation: Quat::from_euler(EulerRot::XYZ, 0.3, 0.7, -0.4),
        },
        restitution: 0.4,
        friction: 0.5,
    }
}

/// Signed penetration of a ball of radius `r` at `p` into a collider, written independently of
/// the engine (positive: overlapping).
fn penetration(c: &Collider, p: Vec3, r: f32) -> f32 {
    match c.shape {
        ColliderShape::HalfSpace { normal, offset } => r - (normal.normalize().dot(p) - offset),
        ColliderShape::Sphere { centre, radius } => radius + r - (p - centre).length(),
        ColliderShape::Box {
            centre,
            half_extents,
            rotation,
        } => {
            let l = rotation.normalize().inverse() * (p - centre);
            let outside = (l.abs() - half_extents).max(Vec3::ZERO).length();
            if outside > 0.0 {
                r - outside
            } else {
                r + (half_extents - l.abs()).min_element()
            }
        }
    }
}

/// Whether a ball of radius `r` centred at `p` gives a contact whose outcome is a
/// well-conditioned function of `p`.
///
/// Three configurations are not, on any hardware. The contact test `penetration > −slop` is a
/// decision: a centre within rounding of it is resolved on one side and not on the other (model
/// 3 of tests/common/error_model.rs). Beside a box's edge or corner the normal is
/// `diff / |diff|` of a short vector whose components carry the rounding of the box-local
/// position (an ulp of ~2 m is 2.4e-7), so its direction is only good to ulp/|diff| — arbitrarily
/// bad as the centre nears the edge; and inside the box the exit face is the smallest depth, a
/// choice that flips on a rounding error when two depths tie. The random inputs avoid these by a
/// wide margin (`EDGE_MARGIN`, a thousand times the depth's difference in [`colliders_tol`]), so
/// the comparison measures arithmetic, not luck. A sphere's normal d/|d| carries the centre's
/// rounding divided by |d|: the inputs stay 1 m from its centre, where that is below a box
/// normal's difference ([`colliders_tol`]). Faces of boxes and half-spaces are well-conditioned
/// everywhere.
fn well_conditioned(c: &Collider, p: Vec3, r: f32) -> bool {
    const EDGE_MARGIN: f32 = 1e-3;
    let slop = WorldConfig::default().contact_slop;
    if (penetration(c, p, r) + slop).abs() <= EDGE_MARGIN {
        return false;
    }
    match c.shape {
        ColliderShape::HalfSpace { .. } => true,
        ColliderShape::Sphere { centre, .. } => (p - centre).length() > 1.0,
        ColliderShape::Box {
            centre,
            half_extents,
            rotation,
        } => {
            let l = (rotation.normalize().inverse() * (p - centre)).abs();
            let out = l - half_extents;
            let outside_axes = (0..3).filter(|&k| out[k] > -EDGE_MARGIN).count();
            if out.max_element() > 0.0 {
                // Outside: fine in a face region (one axis out, the others clearly in), or far
                // enough away that no particle reaches it (radius 0.5 + slop).
                outside_axes <= 1 || out.max(Vec3::ZERO).length() > 1.0
            } else {
                let mut d = [-out.x, -out.y, -out.z];
                d.sort_by(f32::total_cmp);
                d[1] - d[0] > EDGE_MARGIN
            }
        }
    }
}

/// After the contact stage no particle overlaps a lone collider by more than this: the push-out
/// lands on the surface up to rounding of coordinates below 8 m (ulp 4.8e-7), a few ulps.
const RESOLVED_OVERLAP: f32 = 1e-5;

/// Particles start in the box `lo..hi`, chosen per case so that a good share of them overlap a
/// collider after one free-flight step. In the case with several colliders the shapes are at
/// least 1.6 m apart (more than two radii plus a step's travel), so a particle meets at most one.
fn collider_case(
    name: &str,
    colliders: Vec<Collider>,
    lo: Vec3,
    hi: Vec3,
    seed: u64,
    rounding: CpuRounding,
) {
    for n in SIZES {
        let mut rng = Rng::new(seed + u64::from(n));
        let ps: Vec<Particle> = (0..n)
            .map(|_| loop {
                let p = random_particle(&mut rng, 0.0, 1.0);
                let p = Particle {
                    position: lo + (hi - lo) * p.position,
                    ..p
                };
                if colliders
                    .iter()
                    .all(|c| well_conditioned(c, p.position + p.velocity * DT, p.size))
                {
                    break p;
                }
            })
            .collect();
        let cfg = WorldConfig {
            colliders: colliders.clone(),
            fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
            ..config(n)
        };
        let (mut g, mut c) = spawn_both(&cfg, &ps, rounding);
        let (sg, sc) = step_and_compare(
            &format!("colliders {name} n={n} ({rounding:?} CPU)"),
            &mut g,
            &mut c,
            colliders_tol(),
        );
        // The case must exercise contacts: count particles whose free-flight position (p + v dt)
        // overlaps a collider.
        let hits = ps
            .iter()
            .filter(|p| {
                p.inverse_mass > 0.0
                    && colliders
                        .iter()
                        .any(|col| penetration(col, p.position + p.velocity * DT, p.size) > 0.0)
            })
            .count();
        if n >= 63 {
            assert!(hits * 5 >= n as usize, "colliders {name} n={n}: only {hits} particles touch a collider; the case tests nothing");
        }
        // Physics: nothing movable is left overlapping a collider.
        for (label, s) in [("gpu", &sg), ("cpu", &sc)] {
            for (i, p) in ps.iter().enumerate().filter(|(_, p)| p.inverse_mass > 0.0) {
                for (k, col) in colliders.iter().enumerate() {
                    let pen = penetration(col, s.pos[i].truncate(), p.size);
                    assert!(pen <= RESOLVED_OVERLAP, "{label} colliders {name} n={n}: slot {i} still overlaps collider {k} by {pen} m");
                }
            }
        }
    }
}

fn half_space_case(rounding: CpuRounding) {
    collider_case(
        "half-space",
        vec![half_space(0.5)],
        Vec3::splat(-4.0),
        Vec3::splat(4.0),
        0x7_0000,
        rounding,
    );
}

#[test]
fn colliders_half_space() {
    half_space_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn colliders_half_space_fused_cpu() {
    half_space_case(CpuRounding::Fused);
}

fn sphere_case(rounding: CpuRounding) {
    let c = Vec3::new(0.3, -0.2, 0.1);
    collider_case(
        "sphere",
        vec![sphere(c, 2.5)],
        c - 2.5,
        c + 2.5,
        0x8_0000,
        rounding,
    );
}

#[test]
fn colliders_sphere() {
    sphere_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn colliders_sphere_fused_cpu() {
    sphere_case(CpuRounding::Fused);
}

fn rotated_box_case(rounding: CpuRounding) {
    let c = Vec3::new(0.5, -0.2, 0.3);
    collider_case(
        "rotated box",
        vec![rotated_box(c, Vec3::new(2.0, 1.0, 1.5))],
        c - 2.2,
        c + 2.2,
        0x9_0000,
        rounding,
    );
}

#[test]
fn colliders_rotated_box() {
    rotated_box_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn colliders_rotated_box_fused_cpu() {
    rotated_box_case(CpuRounding::Fused);
}

/// A tilted ground below a sphere and a rotated box side by side (gaps of 1.9 m and more).
fn all_colliders_case(rounding: CpuRounding) {
    let colliders = vec![
        half_space(-4.5),
        sphere(Vec3::new(-3.5, 0.5, 0.0), 2.0),
        rotated_box(Vec3::new(3.5, 0.5, 0.0), Vec3::new(1.5, 1.0, 1.2)),
    ];
    collider_case(
        "all",
        colliders,
        Vec3::new(-6.0, -6.0, -3.0),
        Vec3::new(6.0, 3.0, 3.0),
        0xa_0000,
        rounding,
    );
}

#[test]
fn colliders_all_together() {
    all_colliders_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn colliders_all_together_fused_cpu() {
    all_colliders_case(CpuRounding::Fused);
}

/// `n` fireworks of random types with fuses of 2.5 steps all burst in the 4th step (ages after
/// the integrate steps are 1, 2, 3 dt); their children land in the pool in the same step.
#[test]
fn firework_burst_spawns_identical_children() {
    firework_burst_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn firework_burst_spawns_identical_children_fused_cpu() {
    firework_burst_case(CpuRounding::Fused);
}

fn firework_burst_case(rounding: CpuRounding) {
    let rules = wgphys::fireworks::FireworkRules::book();
    let children = |ty: u32| -> u32 {
        rules.rules[ty as usize - 1]
            .payload
            .iter()
            .map(|&(_, c)| c)
            .sum()
    };
    for n in SIZES {
        let mut rng = Rng::new(0xb_0000 + u64::from(n));
        let fw: Vec<(u32, Vec3, Vec3)> = (0..n)
            .map(|_| {
                (
                    1 + rng.below(9),
                    rng.vec3(-20.0, 20.0) + Vec3::new(0.0, 40.0, 0.0),
                    rng.vec3(-10.0, 10.0),
                )
            })
            .collect();
        let wanted: u32 = fw.iter().map(|f| children(f.0)).sum();
        // The largest case holds fewer children than wanted, so overflow is compared too.
        let capacity = if n > 10_000 { 2 * n } else { n + wanted };
        let (mut g, mut c) = pair(&WorldConfig {
            capacity,
            seed: 77,
            ..WorldConfig::default()
        });
        c.set_cpu_rounding(rounding);
        for &(ty, p, v) in &fw {
            g.spawn_firework(ty, p, v, 2.5 * DT).unwrap();
            c.spawn_firework(ty, p, v, 2.5 * DT).unwrap();
        }
        let label = |s: u32| format!("fireworks n={n} step {s} ({rounding:?} CPU)");
        for s in 1..=3 {
            g.step(DT).unwrap();
            c.step(DT).unwrap();
            let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
            assert_eq!(
                sc.len(),
                n as usize,
                "{}: no firework may burst before its fuse",
                label(s)
            );
            let e = compare_snapshots(&label(s), &sg, &sc, FIREWORK_PARENTS);
            assert_counters_eq(
                &label(s),
                &g.read_counters().unwrap(),
                &c.read_counters().unwrap(),
            );
            report(&label(s), e);
        }
        g.step(DT).unwrap();
        c.step(DT).unwrap();
        let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
        let e = compare_snapshots(&label(4), &sg, &sc, FIREWORK_CHILDREN);
        let (cg, cc) = (g.read_counters().unwrap(), c.read_counters().unwrap());
        assert_counters_eq(&label(4), &cg, &cc);
        report(&label(4), e);

        // Bookkeeping: every parent died, every child was wanted, as many as fit were accepted.
        let accepted = wanted.min(capacity);
        assert_eq!(cc.dead, n, "{}: counters.dead", label(4));
        assert_eq!(
            cc.children_wanted,
            wanted,
            "{}: counters.children_wanted",
            label(4)
        );
        assert_eq!(
            cc.spawn_accepted,
            accepted,
            "{}: counters.spawn_accepted",
            label(4)
        );
        assert_eq!(cc.live, accepted, "{}: counters.live", label(4));
        assert_eq!(
            cc.dropped_total,
            wanted - accepted,
            "{}: counters.dropped_total",
            label(4)
        );
        assert_eq!(cc.next_serial, wanted, "{}: counters.next_serial", label(4));
        // Children: serial ids in payload-rank order, their type's colour, size and fuse range.
        let mut slot = 0usize;
        'parents: for &(ty, ..) in &fw {
            let first = slot;
            for &(cty, count) in &rules.rules[ty as usize - 1].payload {
                for _ in 0..count {
                    if slot >= accepted as usize {
                        break 'parents;
                    }
                    let r = &rules.rules[cty as usize - 1];
                    let l = sc.life[slot];
                    assert_eq!(
                        l.id,
                        GPU_ID_BIT | slot as u32,
                        "{}: slot {slot} life.id",
                        label(4)
                    );
                    assert_eq!(l.kind, cty, "{}: slot {slot} life.kind", label(4));
                    assert!(
                        l.lifetime >= r.age.0 && l.lifetime <= r.age.1,
                        "{}: slot {slot} life.lifetime {} outside {:?}",
                        label(4),
                        l.lifetime,
                        r.age
                    );
                    assert_eq!(
                        sc.colour[slot],
                        r.colour,
                        "{}: slot {slot} colour",
                        label(4)
                    );
                    assert_eq!(sc.size[slot], r.size, "{}: slot {slot} size", label(4));
                    assert_eq!(
                        sc.pos[slot],
                        sc.pos[first],
                        "{}: slot {slot} pos differs from its sibling at {first}",
                        label(4)
                    );
                    slot += 1;
                }
            }
        }
    }
}

/// The lifecycle stages at scale: random lifetimes and random removals kill particles across
/// many scan blocks; survivors compact into the holes and the slot order must be identical.
#[test]
fn deaths_and_removals_compact_identically() {
    deaths_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn deaths_and_removals_compact_identically_fused_cpu() {
    deaths_case(CpuRounding::Fused);
}

fn deaths_case(rounding: CpuRounding) {
    for n in SIZES {
        let mut rng = Rng::new(0xc_0000 + u64::from(n));
        let ps: Vec<Particle> = (0..n)
            .map(|_| {
                let p = random_particle(&mut rng, -50.0, 50.0);
                if rng.chance(0.3) {
                    p.with_lifetime(DT * (0.5 + rng.below(3) as f32))
                } else {
                    p
                }
            })
            .collect();
        let (mut g, mut c, handles) = spawn_both_with_handles(&config(n), &ps, rounding);
        for s in 0..3 {
            let label = format!("deaths n={n} step {s} ({rounding:?} CPU)");
            let live: Vec<u32> = c
                .read_snapshot()
                .unwrap()
                .life
                .iter()
                .map(|l| l.id)
                .collect();
            let mut removed = Vec::new();
            for &id in &live {
                let (hg, hc) = handles[id as usize];
                if rng.chance(0.2) && c.contains(hc) {
                    g.remove(hg).unwrap();
                    c.remove(hc).unwrap();
                    removed.push(id);
                }
            }
            let (sg, sc) = step_and_compare(&label, &mut g, &mut c, THREE_STEPS);
            let ids: std::collections::HashSet<u32> = sc.life.iter().map(|l| l.id).collect();
            assert_eq!(
                ids.len(),
                sc.len(),
                "{label}: duplicate ids after compaction"
            );
            assert_eq!(
                sg.len(),
                c.read_counters().unwrap().live as usize,
                "{label}: snapshot length vs counters.live"
            );
            for id in removed {
                assert!(
                    !ids.contains(&id),
                    "{label}: removed id {id} is still in the pool"
                );
            }
        }
    }
}
