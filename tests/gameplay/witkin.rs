//! Witkin constraint dynamics (002-4): the catalogue's pendulum force, a bead on a tilted wire,
//! a double pendulum, momentum, and bad input that must leave the system unchanged.

use crate::support::Rng;
use glam::DVec3;
use wgphys::gameplay::{Constraint, DriftFeedback, ParticleId, WitkinSystem};
use wgphys::Error;

const G: DVec3 = DVec3::new(0.0, -9.81, 0.0);

#[test]
fn catalogue_pendulum_force() {
    // m = 1 at (2, 0) moving (0, 3) on the circle of radius 2, gravity −9.81 ŷ: the constraint
    // force is the centripetal m·v²/R = 4.5 toward the centre, and cancels nothing of gravity
    // (which is tangent here). λ = −1.125 for Witkin's c = x² + y² − R²; with c scaled by 1/(2R)
    // the multiplier is −4.5, the force the same.
    let mut s = WitkinSystem::new(G, DriftFeedback::critically_damped(10.0).unwrap()).unwrap();
    let p = s
        .add_particle(DVec3::new(2.0, 0.0, 0.0), DVec3::new(0.0, 3.0, 0.0), 1.0)
        .unwrap();
    s.add_constraint(Constraint::OnSphere {
        particle: p,
        center: DVec3::ZERO,
        radius: 2.0,
    })
    .unwrap();
    let f = s.constraint_forces().unwrap();
    // c = ċ = 0 exactly here, so the feedback adds nothing; J = (1, 0, 0), J̇q̇ = 9/2: every
    // operation is exact in binary.
    assert_eq!(f[0], DVec3::new(-4.5, 0.0, 0.0));
}

#[test]
fn force_on_a_sphere_is_centripetal_plus_normal_gravity() {
    // For any state on the sphere (c = 0) moving tangentially (ċ = 0), the constraint force is
    // −m·(|v|²/r + g·n̂)·n̂: the centripetal force minus gravity's normal component.
    let mut rng = Rng::new(0x5eed_0401);
    for _ in 0..100 {
        let center = rng.dvec3(-5.0, 5.0);
        let radius = rng.range(0.5, 3.0);
        let n = rng.dvec3(-1.0, 1.0).normalize();
        let v = rng.dvec3(-4.0, 4.0).reject_from(n);
        let mass = rng.range(0.1, 10.0);
        let mut s = WitkinSystem::new(G, DriftFeedback::NONE).unwrap();
        let p = s.add_particle(center + n * radius, v, mass).unwrap();
        s.add_constraint(Constraint::OnSphere {
            particle: p,
            center,
            radius,
        })
        .unwrap();
        let f = s.constraint_forces().unwrap()[0];
        let expected = -n * mass * (v.length_squared() / radius + G.dot(n));
        // A 1×1 solve and a dozen products of values below ~100: 1e-12 relative to the force
        // scale m·(|v|²/r + g) is a thousand ulps.
        let scale = mass * (v.length_squared() / radius + 9.81);
        assert!(
            (f - expected).length() <= 1e-12 * scale,
            "{f:?} vs {expected:?}"
        );
    }
}

/// The drift bound of the `witkin` module docs: a constraint with Hessian H under
/// semi-implicit Euler is forced by `F = dt·(½·kd·vᵀHv + 1.5·|d(vᵀHv)/dt|)`, and the critically
/// damped error answers with `|c| ≤ F/ks`; doubled for what the first-order analysis drops.
fn drift_bound(dt: f64, feedback: DriftFeedback, vhv: f64, vhv_rate: f64) -> f64 {
    2.0 * dt * (0.5 * feedback.damping * vhv + 1.5 * vhv_rate) / feedback.stiffness
}

/// A bead on a circular wire of radius 1.5 tilted out of every axis plane, released at rest on
/// the wire, run for `seconds`. Returns the largest |c| of the sphere
/// and of the plane constraint.
fn bead_on_wire(feedback: DriftFeedback, dt: f64, seconds: f64) -> (f64, f64) {
    let center = DVec3::new(0.5, 1.0, -0.3);
    let radius = 1.5;
    let normal = DVec3::new(1.0, 2.0, 0.5).normalize();
    let e1 = normal.any_orthonormal_vector();
    let mut s = WitkinSystem::new(G, feedback).unwrap();
    let p = s
        .add_particle(center + e1 * radius, DVec3::ZERO, 1.3)
        .unwrap();
    s.add_constraint(Constraint::OnSphere {
        particle: p,
        center,
        radius,
    })
    .unwrap();
    s.add_constraint(Constraint::OnPlane {
        particle: p,
        point: center,
        normal,
    })
    .unwrap();
    let (mut sphere, mut plane) = (0.0_f64, 0.0_f64);
    for _ in 0..(seconds / dt).round() as usize {
        s.step(dt).unwrap();
        let c = s.constraint_errors();
        sphere = sphere.max(c[0].abs());
        plane = plane.max(c[1].abs());
    }
    (sphere, plane)
}

#[test]
fn bead_stays_on_its_wire() {
    let feedback = DriftFeedback::critically_damped(40.0).unwrap();
    let dt = 1e-3;
    let (sphere, plane) = bead_on_wire(feedback, dt, 10.0);
    // A priori maxima: energy caps v² at v₀² + 2g·(2r) (the most the bead can drop is the
    // wire's diameter) = 4 + 4·9.81·1.5; the bead's acceleration is at most g tangentially plus
    // v²/r toward the centre. For c = (|d|² − r²)/(2r), H = I/r: vᵀHv = v²/r and
    // d(vᵀHv)/dt = 2v·a/r.
    let r = 1.5;
    let v2 = 4.0 + 4.0 * 9.81 * r;
    let a = 9.81 + v2 / r;
    let bound = drift_bound(dt, feedback, v2 / r, 2.0 * v2.sqrt() * a / r);
    assert!(sphere <= bound, "sphere drift {sphere:e} > bound {bound:e}");
    // The plane constraint is linear (H = 0): no forcing at all, only rounding. Positions of
    // ~3 m round by ~4ε·3 ≈ 3e-15 a step, which the feedback holds to kd/(dt·ks) times that,
    // ≈ 1.5e-13; 1e-12 is several times more.
    assert!(plane <= 1e-12, "plane drift {plane:e}");

    // Without feedback nothing pulls c back. Summing the per-step kicks gives
    // c ≈ n·dt²·(½⟨v²/r⟩ − v₀²/r), which for a bead released at rest grows steadily (about
    // 3e-2 m after 10 s, with ⟨v²/r⟩ ≈ 7/s²). The bound must be well below that, or meeting it
    // would say nothing about the feedback.
    let (free_sphere, _) = bead_on_wire(DriftFeedback::NONE, dt, 10.0);
    assert!(
        free_sphere > 5.0 * bound,
        "no-feedback drift {free_sphere:e}, bound {bound:e}"
    );
}

#[test]
fn double_pendulum_drift_and_energy() {
    let feedback = DriftFeedback::critically_damped(50.0).unwrap();
    let dt = 5e-4;
    let (m1, m2, l1, l2) = (1.0, 0.5, 1.0, 0.7);
    let mut s = WitkinSystem::new(G, feedback).unwrap();
    // Both rods horizontal, at rest: chaotic from the start.
    let a = s
        .add_particle(DVec3::new(l1, 0.0, 0.0), DVec3::ZERO, m1)
        .unwrap();
    let b = s
        .add_particle(DVec3::new(l1 + l2, 0.0, 0.0), DVec3::ZERO, m2)
        .unwrap();
    s.add_constraint(Constraint::OnSphere {
        particle: a,
        center: DVec3::ZERO,
        radius: l1,
    })
    .unwrap();
    s.add_constraint(Constraint::Distance { a, b, length: l2 })
        .unwrap();
    let energy0 = s.kinetic_energy() + s.potential_energy();
    // The most potential energy the system can turn into motion: both bobs hanging straight
    // down below the start.
    let available = 9.81 * (m1 * l1 + m2 * (l1 + l2));

    let mut drift = [0.0_f64; 2];
    let mut forcing = [0.0_f64; 2];
    let mut energy_error = 0.0_f64;
    let vhv = |s: &WitkinSystem| {
        let v = s.velocities();
        [
            v[0].length_squared() / l1,
            (v[0] - v[1]).length_squared() / l2,
        ]
    };
    let mut previous = vhv(&s);
    for _ in 0..(10.0 / dt) as usize {
        s.step(dt).unwrap();
        let now = vhv(&s);
        for k in 0..2 {
            // The forcing of the drift bound, from the state: vᵀHv and its rate of change.
            let rate = (now[k] - previous[k]).abs() / dt;
            forcing[k] = forcing[k].max(drift_bound(dt, feedback, now[k].max(previous[k]), rate));
            drift[k] = drift[k].max(s.constraint_errors()[k].abs());
        }
        previous = now;
        energy_error =
            energy_error.max((s.kinetic_energy() + s.potential_energy() - energy0).abs());
        // Energy caps each bob's speed: ½m·v² ≤ available, plus the energy error, which is
        // checked below to stay under 1% of it.
        let v = s.velocities();
        assert!(0.5 * m1 * v[0].length_squared() <= available * 1.01);
        assert!(0.5 * m2 * v[1].length_squared() <= available * 1.01);
    }
    for k in 0..2 {
        assert!(
            drift[k] <= forcing[k],
            "constraint {k}: drift {:e} > bound {:e}",
            drift[k],
            forcing[k]
        );
    }
    // Energy: semi-implicit Euler changes it each step by −½dt²·F_g·a + (the work of the
    // constraint forces). The gravity part telescopes, Σ ½dt²·F_g·a = ½dt·F_g·(v_n − v₀), so it
    // stays below dt·g·Σ mᵢ·vᵢ,max with vᵢ,max = √(2·available/mᵢ): 0.05 J here, 0.3% of the
    // 18 J available. The constraint forces work only through the drift (λ·dc), which the
    // bound above keeps to ~1e-3 m against multipliers of tens of newtons, the same order. Three
    // times the gravity term allows for that; an unstable step or feedback would grow the
    // energy exponentially and pass it within a fraction of a second.
    let gravity_term =
        dt * 9.81 * (m1 * (2.0 * available / m1).sqrt() + m2 * (2.0 * available / m2).sqrt());
    assert!(
        energy_error <= 3.0 * gravity_term,
        "energy error {energy_error} J, gravity term {gravity_term} J"
    );
}

#[test]
fn free_particles_and_rods_keep_momentum() {
    // No constraints: semi-implicit Euler under gravity has the closed form v_n = v₀ + n·dt·g,
    // x_n = x₀ + n·dt·v₀ + dt²·g·n(n + 1)/2.
    let mut s = WitkinSystem::new(G, DriftFeedback::NONE).unwrap();
    let v0 = DVec3::new(1.0, 2.0, 0.0);
    s.add_particle(DVec3::ZERO, v0, 2.0).unwrap();
    let (dt, n) = (0.01, 100);
    for _ in 0..n {
        s.step(dt).unwrap();
    }
    let nf = n as f64;
    let x = v0 * dt * nf + G * dt * dt * nf * (nf + 1.0) / 2.0;
    // n steps, each adding one rounded term to values below 100: n·4ε·100.
    assert!((s.positions()[0] - x).length() <= nf * 4.0 * f64::EPSILON * 100.0);

    // Two particles on a spinning rod, no gravity: the rod's forces are equal and opposite, so
    // total momentum only changes by rounding.
    let mut s =
        WitkinSystem::new(DVec3::ZERO, DriftFeedback::critically_damped(30.0).unwrap()).unwrap();
    let a = s
        .add_particle(DVec3::new(-0.5, 0.0, 0.0), DVec3::new(0.3, -2.0, 0.5), 1.0)
        .unwrap();
    let b = s
        .add_particle(DVec3::new(0.5, 0.0, 0.0), DVec3::new(0.0, 3.0, 0.0), 3.0)
        .unwrap();
    s.add_constraint(Constraint::Distance { a, b, length: 1.0 })
        .unwrap();
    let momentum = |s: &WitkinSystem| s.velocities()[0] * 1.0 + s.velocities()[1] * 3.0;
    let p0 = momentum(&s);
    for _ in 0..5000 {
        s.step(1e-3).unwrap();
    }
    // Each step rounds each velocity update (values ≤ 10) by a few ε: 5000·4ε·10·(1 + 3).
    assert!((momentum(&s) - p0).length() <= 5000.0 * 4.0 * f64::EPSILON * 10.0 * 4.0);
}

#[test]
fn bad_input_leaves_the_system_unchanged() {
    let mut s = WitkinSystem::new(G, DriftFeedback::critically_damped(20.0).unwrap()).unwrap();
    let p = s
        .add_particle(DVec3::new(1.0, 0.0, 0.0), DVec3::ZERO, 1.0)
        .unwrap();
    s.add_constraint(Constraint::OnSphere {
        particle: p,
        center: DVec3::ZERO,
        radius: 1.0,
    })
    .unwrap();
    s.step(1e-3).unwrap();
    let before = s.clone();

    let checks: Vec<(&str, Result<(), Error>)> = vec![
        (
            "NaN position",
            s.add_particle(DVec3::new(f64::NAN, 0.0, 0.0), DVec3::ZERO, 1.0)
                .map(drop),
        ),
        (
            "infinite velocity",
            s.add_particle(DVec3::ZERO, DVec3::splat(f64::INFINITY), 1.0)
                .map(drop),
        ),
        (
            "zero mass",
            s.add_particle(DVec3::ZERO, DVec3::ZERO, 0.0).map(drop),
        ),
        (
            "negative mass",
            s.add_particle(DVec3::ZERO, DVec3::ZERO, -1.0).map(drop),
        ),
        (
            "NaN mass",
            s.add_particle(DVec3::ZERO, DVec3::ZERO, f64::NAN).map(drop),
        ),
        ("dt = 0", s.step(0.0)),
        ("dt < 0", s.step(-1e-3)),
        ("dt NaN", s.step(f64::NAN)),
        ("dt infinite", s.step(f64::INFINITY)),
        (
            "missing particle",
            s.add_constraint(Constraint::OnSphere {
                particle: ParticleId(7),
                center: DVec3::ZERO,
                radius: 1.0,
            })
            .map(drop),
        ),
        (
            "missing rod end",
            s.add_constraint(Constraint::Distance {
                a: p,
                b: ParticleId(1),
                length: 1.0,
            })
            .map(drop),
        ),
        (
            "rod to itself",
            s.add_constraint(Constraint::Distance {
                a: p,
                b: p,
                length: 1.0,
            })
            .map(drop),
        ),
        (
            "zero radius",
            s.add_constraint(Constraint::OnSphere {
                particle: p,
                center: DVec3::ZERO,
                radius: 0.0,
            })
            .map(drop),
        ),
        (
            "zero normal",
            s.add_constraint(Constraint::OnPlane {
                particle: p,
                point: DVec3::ZERO,
                normal: DVec3::ZERO,
            })
            .map(drop),
        ),
        ("NaN force", s.add_force(p, DVec3::new(0.0, f64::NAN, 0.0))),
        (
            "force on missing particle",
            s.add_force(ParticleId(3), DVec3::X),
        ),
    ];
    for (case, result) in checks {
        assert!(
            matches!(
                result,
                Err(Error::InvalidInput { .. }) | Err(Error::InvalidTimeStep(_))
            ),
            "{case}: {result:?}"
        );
        assert_eq!(s, before, "{case} changed the system");
    }
    assert!(WitkinSystem::new(DVec3::splat(f64::NAN), DriftFeedback::NONE).is_err());
    assert!(WitkinSystem::new(
        G,
        DriftFeedback {
            stiffness: -1.0,
            damping: 0.0
        }
    )
    .is_err());

    // The same constraint twice makes J·W·Jᵀ singular: the step is refused, by name.
    s.add_constraint(Constraint::OnSphere {
        particle: p,
        center: DVec3::ZERO,
        radius: 1.0,
    })
    .unwrap();
    let twice = s.clone();
    match s.step(1e-3) {
        Err(Error::InvalidInput { what, .. }) => {
            assert!(what.starts_with("witkin.constraint_matrix"), "{what}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s, twice);

    // A step so large that the state overflows is refused, not stored.
    let mut wild = WitkinSystem::new(G, DriftFeedback::critically_damped(1e150).unwrap()).unwrap();
    let q = wild
        .add_particle(DVec3::new(2.0, 0.0, 0.0), DVec3::ZERO, 1.0)
        .unwrap();
    wild.add_constraint(Constraint::OnSphere {
        particle: q,
        center: DVec3::ZERO,
        radius: 1.0,
    })
    .unwrap();
    let calm = wild.clone();
    assert!(wild.step(1e200).is_err());
    assert_eq!(wild, calm);
}
