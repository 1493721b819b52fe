//! Closed forms, on both backends: the book's integrator against its exact discrete solution and
//! against the continuous one, exponential damping, restitution, resting contact, Coulomb
//! friction on an incline, and no tunnelling through a half-space.
//!
//! The integrator (book §3.3) is explicit Euler with the position updated from the old velocity:
//! p += v dt; v += a dt; v *= d^dt. Under constant acceleration g after n steps (t = n dt):
//!   v_n = v0 + g t                                   (exact: the velocity update is exact)
//!   p_n = p0 + v0 t + ½ g t² − ½ g t dt              (the sum of v_k dt for k < n)
//! so the integrator trails the continuous parabola by exactly −½ g t dt: first order in dt.

mod common;

use common::*;
use glam::{Vec3, Vec4Swizzles};
use wgphys::particles::{
    ColliderShape, ForceField, Particle, ParticleCollider, ParticleWorld, Snapshot, WorldConfig,
};
use wgphys::Backend;

fn world(backend: Backend, config: WorldConfig, p: Particle) -> ParticleWorld {
    let mut w = ParticleWorld::new(backend, config).expect("world");
    w.spawn(p).expect("spawn");
    w
}

/// Steps `steps` times after the spawn step, calling `each(n, snapshot)` after each, where n is
/// the number of integration steps the particle has taken.
fn run(w: &mut ParticleWorld, dt: f32, steps: u32, mut each: impl FnMut(u32, &Snapshot)) {
    w.step(dt).expect("spawn step");
    for n in 1..=steps {
        w.step(dt).expect("step");
        let s = w.read_snapshot().expect("snapshot");
        assert_eq!(s.len(), 1, "step {n}: the particle is gone");
        each(n, &s);
    }
}

/// With dt = 1/64 s, g = −8 m/s² and small dyadic starting values, every quantity the
/// integrator forms is a multiple of 2⁻¹² below 2⁸: exactly representable in f32, so every
/// addition and multiplication (fused or not) is exact and the engine must reproduce the discrete
/// closed form bit for bit, on both backends. Damping 1 makes the damping factor 1^dt = 1
/// exactly.
#[test]
fn projectile_matches_the_discrete_closed_form_exactly() {
    let (dt, g) = (1.0 / 64.0, Vec3::new(0.0, -8.0, 0.0));
    let (p0, v0) = (Vec3::new(1.0, 2.0, 0.5), Vec3::new(3.0, 16.0, -2.0));
    for (name, backend) in backends() {
        let mut w = world(
            backend,
            WorldConfig {
                capacity: 4,
                ..WorldConfig::default()
            },
            Particle::new(p0).with_velocity(v0).with_acceleration(g),
        );
        run(&mut w, dt, 256, |n, s| {
            let t = f64::from(n) * f64::from(dt);
            for k in 0..3 {
                let (p0, v0, g, dt) = (
                    f64::from(p0[k]),
                    f64::from(v0[k]),
                    f64::from(g[k]),
                    f64::from(dt),
                );
                let want_p = p0 + v0 * t + 0.5 * g * t * t - 0.5 * g * t * dt;
                let want_v = v0 + g * t;
                assert_eq!(
                    f64::from(s.pos[0][k]),
                    want_p,
                    "{name}: step {n} pos[{k}] vs the discrete closed form"
                );
                assert_eq!(
                    f64::from(s.vel[0][k]),
                    want_v,
                    "{name}: step {n} vel[{k}] vs the closed form"
                );
                // The continuous parabola is off by exactly the first-order term −½ g t dt, which
                // is positive here: the book's integrator lands above the true trajectory.
                let continuous = p0 + v0 * t + 0.5 * g * t * t;
                assert_eq!(
                    f64::from(s.pos[0][k]) - continuous,
                    -0.5 * g * t * dt,
                    "{name}: step {n} pos[{k}] minus the parabola"
                );
            }
        });
    }
}

/// The same with a step and gravity that do round (dt = 1/60 s, g = 9.81 m/s²), over 5 s.
#[test]
fn projectile_within_rounding_of_the_closed_form_and_first_order_of_the_parabola() {
    let (dt, g) = (1.0f32 / 60.0, Vec3::new(0.0, -9.81, 0.0));
    let (p0, v0) = (Vec3::new(-1.0, 1.5, 2.0), Vec3::new(5.0, 20.0, -3.0));
    let steps = 300u32;
    // A priori f32 rounding bound after n steps, per component, with unit roundoff u:
    //  velocity: each step rounds g*dt (the same error every step) and the sum: n u (|v|max + |g dt|);
    //  position: each step rounds v*dt and the sum, and inherits the velocity error times dt:
    //            n u (|p|max + |v|max dt) + dt Σ_k k u (|v|max + |g dt|).
    // |p| stays below 32 m and |v| below 32 m/s in this flight.
    let (pmax, vmax) = (32.0, 32.0);
    let bound = |n: f64, gk: f64| {
        let dtf = f64::from(dt);
        let ev = n * U * (vmax + (gk * dtf).abs());
        let ep =
            n * U * (pmax + vmax * dtf) + dtf * n * (n + 1.0) / 2.0 * U * (vmax + (gk * dtf).abs());
        (ep, ev)
    };
    for (name, backend) in backends() {
        let mut w = world(
            backend,
            WorldConfig {
                capacity: 4,
                ..WorldConfig::default()
            },
            Particle::new(p0).with_velocity(v0).with_acceleration(g),
        );
        let (mut worst_p, mut worst_v) = (0.0f64, 0.0f64);
        run(&mut w, dt, steps, |n, s| {
            let t = f64::from(n) * f64::from(dt);
            for k in 0..3 {
                // The f32 inputs, widened: the closed form of what the engine was given.
                let (p0, v0, gk, dtf) = (
                    f64::from(p0[k]),
                    f64::from(v0[k]),
                    f64::from(g[k]),
                    f64::from(dt),
                );
                let want_p = p0 + v0 * t + 0.5 * gk * t * t - 0.5 * gk * t * dtf;
                let want_v = v0 + gk * t;
                let (ep, ev) = bound(f64::from(n), gk);
                let (dp, dv) = (
                    (f64::from(s.pos[0][k]) - want_p).abs(),
                    (f64::from(s.vel[0][k]) - want_v).abs(),
                );
                assert!(dp <= ep, "{name}: step {n} pos[{k}] is {dp:e} from the discrete closed form (bound {ep:e})");
                assert!(
                    dv <= ev,
                    "{name}: step {n} vel[{k}] is {dv:e} from the closed form (bound {ev:e})"
                );
                worst_p = worst_p.max(dp / ep.max(f64::MIN_POSITIVE));
                worst_v = worst_v.max(dv / ev.max(f64::MIN_POSITIVE));
                // Against the continuous parabola the gap is the first-order term ½|g| t dt, to
                // within the same rounding: not a higher order, not the other sign.
                let continuous = p0 + v0 * t + 0.5 * gk * t * t;
                let gap = f64::from(s.pos[0][k]) - continuous;
                let first_order = -0.5 * gk * t * dtf;
                assert!((gap - first_order).abs() <= ep, "{name}: step {n} pos[{k}]: gap to the parabola {gap:e}, first-order term {first_order:e}");
            }
        });
        eprintln!(
            "[measure] {name} projectile 1/60: worst pos error {:.1}% of bound, vel {:.1}%",
            100.0 * worst_p,
            100.0 * worst_v
        );
    }
}

/// Damping alone: v(t) = v0 d^t and p(t) = p0 + v0 dt (1 − q^n) / (1 − q) with q = d^dt.
#[test]
fn damping_follows_v0_times_d_to_the_t() {
    let dt = 1.0f32 / 60.0;
    let steps = 120u32;
    // Relative error after n steps: each step multiplies by a rounded q (glibc's powf is within
    // an ulp; a GPU `pow` is allowed a few) and rounds the product, so at most n (4u) relative.
    let rel = |n: u32| f64::from(n) * 4.0 * U;
    for d in [0.5f32, 0.9, 0.99] {
        let (p0, v0) = (Vec3::new(0.5, 1.0, -2.0), Vec3::new(4.0, -2.0, 1.0));
        for (name, backend) in backends() {
            let mut w = world(
                backend,
                WorldConfig {
                    capacity: 4,
                    ..WorldConfig::default()
                },
                Particle::new(p0).with_velocity(v0).with_damping(d),
            );
            let mut worst = 0.0f64;
            run(&mut w, dt, steps, |n, s| {
                let q = f64::from(d).powf(f64::from(dt));
                let qn = f64::from(d).powf(f64::from(n) * f64::from(dt));
                for k in 0..3 {
                    let want_v = f64::from(v0[k]) * qn;
                    let want_p = f64::from(p0[k])
                        + f64::from(v0[k]) * f64::from(dt) * (1.0 - qn) / (1.0 - q);
                    let (got_v, got_p) = (f64::from(s.vel[0][k]), f64::from(s.pos[0][k]));
                    let tol_v = rel(n) * f64::from(v0[k]).abs();
                    worst = worst.max((got_v - want_v).abs() / tol_v);
                    let tol_p = rel(n)
                        * (f64::from(p0[k]).abs()
                            + f64::from(v0[k]).abs() * f64::from(n) * f64::from(dt));
                    assert!(
                        (got_v - want_v).abs() <= tol_v,
                        "{name} d={d}: step {n} vel[{k}] {got_v} vs v0 d^t = {want_v}"
                    );
                    assert!(
                        (got_p - want_p).abs() <= tol_p,
                        "{name} d={d}: step {n} pos[{k}] {got_p} vs {want_p}"
                    );
                }
            });
            eprintln!(
                "[measure] {name} damping {d}: worst velocity error {:.1}% of the bound",
                100.0 * worst
            );
        }
    }
    // d = 0 keeps nothing: the velocity is zero after one step, whatever it was.
    for (name, backend) in backends() {
        let mut w = world(
            backend,
            WorldConfig {
                capacity: 4,
                ..WorldConfig::default()
            },
            Particle::new(Vec3::ZERO)
                .with_velocity(Vec3::new(3.0, 4.0, 5.0))
                .with_damping(0.0),
        );
        run(&mut w, dt, 2, |n, s| {
            assert_eq!(
                s.vel[0].xyz(),
                Vec3::ZERO,
                "{name}: d = 0, step {n}: velocity"
            );
        });
    }
}

/// Gravity on a dropped particle, as the book's particles carry it.
const G: f32 = 9.81;

/// Drops a ball of radius `r` from `h` metres above contact onto `ParticleCollider::ground(0, e)` and
/// returns the apex of the first rebound above contact.
fn first_rebound_apex(backend: Backend, h: f32, e: f32, r: f32, dt: f32) -> f32 {
    let cfg = WorldConfig {
        capacity: 4,
        colliders: vec![ParticleCollider::ground(0.0, e)],
        ..WorldConfig::default()
    };
    let mut w = world(
        backend,
        cfg,
        Particle::new(Vec3::new(0.0, r + h, 0.0))
            .with_acceleration(Vec3::new(0.0, -G, 0.0))
            .with_size(r),
    );
    w.step(dt).expect("spawn step");
    let (mut bounced, mut apex) = (false, f32::NEG_INFINITY);
    for n in 0..20_000 {
        w.step(dt).expect("step");
        let s = w.read_snapshot().expect("snapshot");
        let (y, vy) = (s.pos[0].y, s.vel[0].y);
        assert!(
            y >= r - 1e-5,
            "step {n}: the ball sank to {y} (contact at {r})"
        );
        if !bounced {
            bounced = vy > 0.0;
        } else if vy > 0.0 || apex == f32::NEG_INFINITY {
            apex = apex.max(y);
        } else {
            return apex.max(y) - r;
        }
    }
    panic!("no rebound apex within 20000 steps");
}

/// A ball dropped on a plane with restitution e rebounds to e² of its drop height.
///
/// Tolerance: the discrete contact is first order in dt. The ball is caught by the step after it
/// crosses the surface, so its speed there exceeds the true impact speed by up to 1.5 g dt (one
/// step of extra fall, half a step of the integrator's lag), and the resting-contact fix takes
/// e g dt out of the rebound; the rebound speed V = e v is thus off by at most 1.5 e g dt. On the
/// way up the integrator overshoots the apex by ½ V dt. So |Δh| / h' <= 3 e g dt / V + g dt / V,
/// h' = e² h. At dt = 1/600 s and h = 1 m that is 1.3% for e = 0.8 and 2.3% for e = 0.3.
#[test]
fn rebound_height_is_restitution_squared() {
    let (h, r, dt) = (1.0f32, 0.05f32, 1.0f32 / 600.0);
    for e in [0.3f32, 0.5, 0.8] {
        let v_impact = (2.0 * G * h).sqrt();
        let v_rebound = e * v_impact;
        let rel_tol = (3.0 * e * G * dt + G * dt) / v_rebound;
        for (name, backend) in backends() {
            let apex = first_rebound_apex(backend, h, e, r, dt);
            let want = e * e * h;
            let rel = (apex - want).abs() / want;
            eprintln!("[measure] {name} e={e}: rebound {apex:.5} m vs e²h = {want:.5} m ({:.2}%, tolerance {:.2}%)", 100.0 * rel, 100.0 * rel_tol);
            assert!(rel <= rel_tol, "{name} e={e}: rebound apex {apex} m above contact, e²h = {want} m, off by {:.2}% > {:.2}%", 100.0 * rel, 100.0 * rel_tol);
        }
    }
}

/// How far a resting particle may move in 10 s. The resting-contact fix cancels this step's
/// gravity along the normal exactly (it subtracts the same product it added), so nothing moves;
/// the allowance is for a GPU that fuses a multiply-add in that cancellation and leaves a
/// residual velocity of an ulp of g dt (~1e-8 m/s): over 600 steps that is < 1e-7 m. A bound of
/// 1e-6 m still fails on any real drift (the smallest real jitter, one step of g dt², is 2.7e-3).
const REST_DRIFT: f32 = 1e-6;

/// A particle resting on a plane stays there for 10 s, on the ground and on a tilted plane with
/// enough friction to hold it, with gravity as the particle's own acceleration or as a field.
#[test]
fn resting_particle_stays_put_for_ten_seconds() {
    let dt = 1.0f32 / 60.0;
    let r = 0.05f32;
    let theta = 20f32.to_radians();
    let n_tilt = Vec3::new(-theta.sin(), theta.cos(), 0.0);
    let cases = [
        (
            "ground, own acceleration",
            ParticleCollider::ground(0.3, 0.5),
            Vec3::Y,
            false,
        ),
        (
            "ground, gravity field",
            ParticleCollider::ground(0.3, 0.5),
            Vec3::Y,
            true,
        ),
        // tan 20° = 0.36 < μ = 0.5: static friction holds.
        (
            "20° incline, μ 0.5",
            ParticleCollider {
                shape: ColliderShape::HalfSpace {
                    normal: n_tilt,
                    offset: 0.0,
                },
                restitution: 0.5,
                friction: 0.5,
            },
            n_tilt,
            false,
        ),
    ];
    for (case, collider, normal, field) in cases {
        let start = normal * r + Vec3::new(0.0, 0.0, 0.3);
        let g = Vec3::new(0.0, -G, 0.0);
        let (fields, acc) = if field {
            (vec![ForceField::Gravity(g)], Vec3::ZERO)
        } else {
            (vec![], g)
        };
        for (name, backend) in backends() {
            let cfg = WorldConfig {
                capacity: 4,
                colliders: vec![collider],
                fields: fields.clone(),
                ..WorldConfig::default()
            };
            let mut w = world(
                backend,
                cfg,
                Particle::new(start).with_acceleration(acc).with_size(r),
            );
            let mut worst = 0.0f32;
            run(&mut w, dt, 600, |n, s| {
                let p = s.pos[0].xyz();
                worst = worst.max((p - start).length());
                let height = p.dot(normal);
                assert!(
                    height >= r - REST_DRIFT,
                    "{name} {case}: step {n} sank to {height} above the plane (radius {r})"
                );
                assert!(
                    (p - start).length() <= REST_DRIFT,
                    "{name} {case}: step {n} drifted {:e} m",
                    (p - start).length()
                );
            });
            eprintln!("[measure] {name} {case}: largest displacement in 10 s: {worst:e} m");
        }
    }
}

/// Coulomb friction on an incline steeper than the friction angle: the particle slides with
/// acceleration g (sin θ − μ cos θ) and stays on the surface.
///
/// Per step the engine adds g dt, cancels the normal part (resting-contact fix) and removes
/// μ g cos θ dt of tangential speed, so after n steps v_n = n g dt (sin θ − μ cos θ) exactly and
/// the distance slid is g dt² (sin θ − μ cos θ) n (n − 1) / 2. Tolerance: each of the n = 120
/// steps rounds the speed and its increment, and the increment carries the f32 plane normal's
/// angle error, amplified by (cos θ + μ sin θ) / (sin θ − μ cos θ) = 4.2 at 30°, μ 0.3; so at
/// most 4 units of roundoff per step, n × 4u = 2.9e-5 relative. Measured: 7.4e-7.
#[test]
fn friction_slide_on_an_incline_matches_coulomb() {
    const STEPS: u32 = 120;
    const SLIDE_REL: f64 = STEPS as f64 * 4.0 * U;
    let (dt, r, mu) = (1.0f32 / 60.0, 0.05f32, 0.3f32);
    let theta = 30f32.to_radians();
    let normal = Vec3::new(-theta.sin(), theta.cos(), 0.0);
    let downhill = Vec3::new(-theta.cos(), -theta.sin(), 0.0);
    let a = f64::from(G) * (f64::from(theta).sin() - f64::from(mu) * f64::from(theta).cos());
    for (name, backend) in backends() {
        let cfg = WorldConfig {
            capacity: 4,
            colliders: vec![ParticleCollider {
                shape: ColliderShape::HalfSpace {
                    normal,
                    offset: 0.0,
                },
                restitution: 0.4,
                friction: mu,
            }],
            ..WorldConfig::default()
        };
        let start = normal * r;
        let mut w = world(
            backend,
            cfg,
            Particle::new(start)
                .with_acceleration(Vec3::new(0.0, -G, 0.0))
                .with_size(r),
        );
        let mut worst = 0.0f64;
        run(&mut w, dt, STEPS, |n, s| {
            let (p, v) = (s.pos[0].xyz(), s.vel[0].xyz());
            let nf = f64::from(n);
            let want_v = nf * f64::from(dt) * a;
            let want_s = a * f64::from(dt) * f64::from(dt) * nf * (nf - 1.0) / 2.0;
            let got_v = f64::from(v.dot(downhill));
            let got_s = f64::from((p - start).dot(downhill));
            worst = worst.max((got_v - want_v).abs() / want_v);
            assert!(
                (got_v - want_v).abs() <= SLIDE_REL * want_v,
                "{name}: step {n} downhill speed {got_v} vs {want_v}"
            );
            // At n = 1 nothing has slid yet (the position moved with the old, zero velocity):
            // the floor is the rounding of the starting coordinates.
            assert!(
                (got_s - want_s).abs() <= SLIDE_REL * want_s + f64::from(SINK_TOL),
                "{name}: step {n} distance slid {got_s} vs {want_s}"
            );
            let height = p.dot(normal);
            assert!(
                (height - r).abs() <= SINK_TOL,
                "{name}: step {n} left the incline: {height} above it"
            );
        });
        eprintln!("[measure] {name} incline: worst relative speed error {worst:.2e} (tolerance {SLIDE_REL:e})");
    }
}

/// How far below the surface a particle may be found after a step: the push-out puts it on the
/// surface up to the rounding of coordinates below 16 m (ulp 9.5e-7), so a few ulps.
const SINK_TOL: f32 = 1e-5;

/// The normal speed after a 500 m/s bounce is a sum of terms near 500 m/s, where an ulp is
/// 3.1e-5 m/s; a dozen roundings stay below 4e-4. Any error in the restitution law is off by
/// metres per second.
const REBOUND_SPEED_TOL: f32 = 1e-3;

/// Thrown at a half-space at 500 m/s (8 m per step, 160 radii), a particle is never found
/// inside it, and it leaves with the restitution's share of its normal speed.
#[test]
fn fast_particle_never_sinks_through_a_half_space() {
    let dt = 1.0f32 / 60.0;
    let r = 0.05f32;
    let tilted = Vec3::new(0.3, 1.0, 0.2).normalize();
    for (case, normal, offset) in [("ground", Vec3::Y, 0.0f32), ("tilted", tilted, -1.0)] {
        for (name, backend) in backends() {
            let e = 0.5;
            let cfg = WorldConfig {
                capacity: 4,
                colliders: vec![ParticleCollider {
                    shape: ColliderShape::HalfSpace { normal, offset },
                    restitution: e,
                    friction: 0.0,
                }],
                ..WorldConfig::default()
            };
            let start = normal * (offset + 1.0);
            let v0 = -normal * 500.0 + Vec3::new(0.0, 0.0, 3.0).reject_from(normal);
            let mut w = world(
                backend,
                cfg,
                Particle::new(start)
                    .with_velocity(v0)
                    .with_acceleration(Vec3::new(0.0, -G, 0.0))
                    .with_size(r),
            );
            let mut bounced = false;
            run(&mut w, dt, 30, |n, s| {
                let p = s.pos[0].xyz();
                let height = p.dot(normal) - offset;
                assert!(height >= r - SINK_TOL, "{name} {case}: step {n}: centre {height} m above the plane, radius {r}: sank through");
                let vn = s.vel[0].xyz().dot(normal);
                if n == 1 {
                    // Caught on the first step. In exact arithmetic the rebound is e (500 + g_n dt)
                    // less the resting-contact fix e g_n dt: exactly 500 e.
                    assert!(
                        (vn - 500.0 * e).abs() <= REBOUND_SPEED_TOL,
                        "{name} {case}: normal speed after the bounce {vn}, want {}",
                        500.0 * e
                    );
                    bounced = true;
                }
            });
            assert!(bounced, "{name} {case}: never bounced");
        }
    }
}

/// Gravity is counted once: an `Emitter::default()` carries no acceleration of its own, so in a
/// world with a gravity field its particles gain exactly g·dt of downward speed a step (with
/// dt = 1/64 s and g = −8 m/s² the change, −1/8 m/s, is exact in f32), not twice that.
#[test]
fn a_default_emitter_falls_under_the_world_gravity_once() {
    use wgphys::particles::{Burst, EmitVelocity, Emitter};
    let (dt, g) = (1.0 / 64.0, -8.0);
    for (name, backend) in backends() {
        let mut w = ParticleWorld::new(
            backend,
            WorldConfig {
                capacity: 64,
                fields: vec![ForceField::Gravity(Vec3::new(0.0, g, 0.0))],
                ..WorldConfig::default()
            },
        )
        .expect("world");
        w.add_emitter(Emitter {
            rate: 0.0,
            bursts: vec![Burst {
                time: 0.0,
                count: 4,
            }],
            velocity: EmitVelocity::Directional {
                direction: Vec3::Y,
                spread: 0.0,
                speed: (0.0, 0.0),
            },
            ..Emitter::default()
        })
        .expect("emitter");
        w.step(dt).expect("burst step");
        w.step(dt).expect("step");
        let before = w.read_snapshot().expect("snapshot");
        w.step(dt).expect("step");
        let after = w.read_snapshot().expect("snapshot");
        assert_eq!(before.len(), 4, "{name}");
        for i in 0..4 {
            assert_eq!(
                before.acc[i].xyz(),
                Vec3::ZERO,
                "{name}: no acceleration of its own"
            );
            let dv = after.vel[i].y - before.vel[i].y;
            assert_eq!(dv, g * dt, "{name}: particle {i} gained {dv} m/s in a step");
        }
    }
}
