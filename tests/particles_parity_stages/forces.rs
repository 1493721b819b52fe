//! Parity of the force-field stage: gravity, drag, wind and attractor fields, alone and
//! together, with the error model of their evaluation.

use super::*;

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
    // The other fields are exact as in [`steps_tol`]: the fields change only the velocity.
    SnapTol {
        pos: tol(m[0], m[1]),
        vel: tol(m[2], m[3] + differ * DT64),
        ..SnapTol::EXACT
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
