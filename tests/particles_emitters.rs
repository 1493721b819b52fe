//! GPU emitters: exact emission counts for rates, bursts and pauses over thousands of steps;
//! shape sampling against the shapes' closed-form moments; the GPU's emitted particles against
//! the CPU twin's; bit-identical GPU reruns; bad input refused with the world unchanged.

mod common;

#[path = "particles_emitters/parity.rs"]
mod parity;

use common::*;
use glam::{Quat, Vec3, Vec4};
use wgphys::particles::emitter::{emitted_record, shape_point};
use wgphys::particles::types::{GpuEmitter, GPU_ID_BIT, MAX_EMITTERS};
use wgphys::particles::{
    Burst, EmitShape, EmitVelocity, Emitter, ParticleWorld, Snapshot, WorldConfig,
};
use wgphys::{Backend, CpuRounding, Error};

const DT: f32 = 1.0 / 60.0;

fn world(backend: Backend, capacity: u32) -> ParticleWorld {
    ParticleWorld::new(
        backend,
        WorldConfig {
            capacity,
            seed: 11,
            ..WorldConfig::default()
        },
    )
    .expect("world")
}

/// What the emitter should want in the step covering `[t0, t1)` of its clock: the rate's
/// floor(rate · t1) − floor(rate · t0) plus the bursts in the span (the definition, in f64).
fn expected(rate: f32, bursts: &[Burst], t0: f64, t1: f64) -> u32 {
    let r = f64::from(rate);
    let mut n = (r * t1).floor() as u64 - (r * t0).floor() as u64;
    for b in bursts {
        let t = f64::from(b.time);
        if t0 <= t && t < t1 {
            n += u64::from(b.count);
        }
    }
    n as u32
}

/// 90/s at 60 Hz emits 1, 2, 1, 2, ... (3 every 2 steps, the fraction carried), bursts go off in
/// the step whose span holds them, a paused emitter emits nothing and its clock (so its next
/// burst) waits; every step's count is exact over 2,400 steps, on both backends, and every
/// emitted particle is in the pool (lifetimes outlast the run, the pool has room).
#[test]
fn emission_counts_are_exact_for_rates_bursts_and_pauses() {
    const STEPS: u32 = 2400;
    const PAUSED: std::ops::Range<u32> = 600..700;
    let bursts = vec![
        Burst {
            time: 0.0,
            count: 5,
        },
        Burst {
            time: 1.0,
            count: 7,
        },
        // On the emitter's clock: the pause of 100 steps delays it past step 1,400.
        Burst {
            time: 22.0,
            count: 3,
        },
    ];
    let emitter = Emitter {
        rate: 90.0,
        bursts: bursts.clone(),
        lifetime: (1000.0, 1000.0),
        acceleration: Vec3::ZERO,
        ..Emitter::default()
    };
    for (name, backend) in backends() {
        let mut w = world(backend, 4096);
        let h = w.add_emitter(emitter.clone()).expect("emitter");
        let mut clock = 0.0f64;
        let mut total = 0u32;
        for s in 1..=STEPS {
            let paused = PAUSED.contains(&s);
            if s == PAUSED.start {
                w.set_emitter_active(h, false).expect("pause");
            }
            if s == PAUSED.end {
                w.set_emitter_active(h, true).expect("resume");
            }
            w.step(DT).expect("step");
            let want = if paused {
                0
            } else {
                let t1 = clock + f64::from(DT);
                let n = expected(emitter.rate, &bursts, clock, t1);
                clock = t1;
                n
            };
            let c = w.read_counters().expect("counters");
            assert_eq!(c.emitted, want, "{name} step {s}: emitted");
            total += want;
            assert_eq!(
                c.live, total,
                "{name} step {s}: every emitted particle is in the pool"
            );
            if s <= 4 {
                // 5 from the burst at 0 in step 1, then the rate's 1, 2, 1, 2.
                let rate_part = [1, 2, 1, 2][s as usize - 1];
                assert_eq!(
                    want,
                    rate_part + if s == 1 { 5 } else { 0 },
                    "{name} step {s}"
                );
            }
        }
        // 2,300 steps of emitter time at 90/s and three bursts.
        let ran = f64::from(STEPS - PAUSED.len() as u32) * f64::from(DT);
        assert_eq!(total, (90.0 * ran).floor() as u32 + 15, "{name}: total");
        assert!(clock >= 22.0, "{name}: the last burst was reached");
    }
}

fn emitter_with(shape: EmitShape) -> GpuEmitter {
    gpu_record(&Emitter {
        shape,
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..Emitter::default()
    })
}

/// The record a world uploads for an emitter (the sampling twin's input).
fn gpu_record(e: &Emitter) -> GpuEmitter {
    wgphys::particles::emitter::record(e).expect("valid emitter")
}

/// Mean and mean square per axis of `n` start points.
fn moments(e: &GpuEmitter, n: u32) -> (Vec<Vec3>, Vec3, Vec3) {
    let pts: Vec<Vec3> = (0..n)
        .map(|k| {
            let u = |j: u32| wgphys::rng::rng_unit(77, k, 3, j);
            shape_point(e, u(0), u(1), u(2))
        })
        .collect();
    let mean = pts.iter().copied().sum::<Vec3>() / n as f32;
    let sq = pts.iter().map(|p| *p * *p).sum::<Vec3>() / n as f32;
    (pts, mean, sq)
}

/// Five standard errors: for a statistic of n independent samples whose single-sample variance
/// is at most `var`, |estimate − expectation| <= 5 sqrt(var / n) fails with probability below
/// 1e-6 for any of these near-normal sums (the samples come from the fixed generator, so the
/// outcome is in fact fixed; the bound is what makes it meaningful).
fn five_se(var: f32, n: u32) -> f32 {
    5.0 * (var / n as f32).sqrt()
}

/// Start points lie inside their shape, and their per-axis mean and mean square match the
/// shape's closed forms within five standard errors (20,000 points each).
#[test]
fn shapes_sample_uniformly() {
    const N: u32 = 20_000;
    let slack = 1e-5; // a few ulps of the shape's size, for points on a boundary
                      // (shape, per-axis E[x], E[x²], a bound on the variance of x² (E[x⁴] or a cover), inside?)
    let r = 2.0f32;
    let h = Vec3::new(1.0, 2.0, 0.5);
    let (a, b) = (Vec3::new(-1.0, 0.0, 2.0), Vec3::new(3.0, 1.0, 2.0));
    let (half, height) = (0.4f32, 3.0f32);
    let rb = height * half.tan();
    type Check = Box<dyn Fn(Vec3) -> bool>;
    let cases: Vec<(&str, EmitShape, Vec3, Vec3, Vec3, Check)> = vec![
        (
            // Uniform ball: E[x²] = R²/5, E[x⁴] = 3R⁴/35.
            "sphere",
            EmitShape::Sphere { radius: r },
            Vec3::ZERO,
            Vec3::splat(r * r / 5.0),
            Vec3::splat(3.0 * r.powi(4) / 35.0),
            Box::new(move |p: Vec3| p.length() <= r + slack),
        ),
        (
            // Uniform sphere surface: E[x²] = R²/3, E[x⁴] = R⁴/5.
            "shell",
            EmitShape::Shell { radius: r },
            Vec3::ZERO,
            Vec3::splat(r * r / 3.0),
            Vec3::splat(r.powi(4) / 5.0),
            Box::new(move |p: Vec3| (p.length() - r).abs() <= slack * r),
        ),
        (
            // Uniform disc in xz: E[x²] = R²/4, E[x⁴] = R⁴/8; y = 0.
            "disc",
            EmitShape::Disc { radius: r },
            Vec3::ZERO,
            Vec3::new(r * r / 4.0, 0.0, r * r / 4.0),
            Vec3::new(r.powi(4) / 8.0, 0.0, r.powi(4) / 8.0),
            Box::new(move |p: Vec3| p.y == 0.0 && p.length() <= r + slack),
        ),
        (
            // Uniform box: E[x²] = h²/3, E[x⁴] = h⁴/5.
            "box",
            EmitShape::Box { half_extents: h },
            Vec3::ZERO,
            h * h / 3.0,
            h.powf(4.0) / 5.0,
            Box::new(move |p: Vec3| (p.abs() - h).max_element() <= slack),
        ),
        (
            // Uniform on a segment: mean (a+b)/2, E[x²] = var + mean², var = (b−a)²/12; x² is
            // bounded by max(a², b²)², a cover for E[x⁴].
            "segment",
            EmitShape::Segment { a, b },
            (a + b) / 2.0,
            (b - a) * (b - a) / 12.0 + (a + b) * (a + b) / 4.0,
            (a * a).max(b * b) * (a * a).max(b * b),
            Box::new(move |p: Vec3| {
                let t = (p - a).dot(b - a) / (b - a).length_squared();
                (-slack..=1.0 + slack).contains(&t) && (a + (b - a) * t - p).length() <= slack * 4.0
            }),
        ),
        (
            // Uniform solid cone, apex at 0, axis +y: E[y] = 3H/4, E[y²] = 3H²/5,
            // E[x²] = E[z²] = 3Rb²/20; |x| <= Rb and y <= H cover E[x⁴] and E[y⁴].
            "cone",
            EmitShape::Cone {
                half_angle: half,
                height,
            },
            Vec3::new(0.0, 0.75 * height, 0.0),
            Vec3::new(0.15 * rb * rb, 0.6 * height * height, 0.15 * rb * rb),
            Vec3::new(rb.powi(4), height.powi(4), rb.powi(4)),
            Box::new(move |p: Vec3| {
                (-slack..=height + slack).contains(&p.y)
                    && Vec3::new(p.x, 0.0, p.z).length() <= p.y * half.tan() + slack * 4.0
            }),
        ),
    ];
    for (name, shape, mean_want, sq_want, fourth, inside) in cases {
        let e = emitter_with(shape);
        let (pts, mean, sq) = moments(&e, N);
        if let Some(p) = pts.iter().find(|p| !inside(**p)) {
            panic!("{name}: start point {p} outside the shape");
        }
        for axis in 0..3 {
            // Var(x) <= E[x²]; Var(x²) <= E[x⁴].
            let mean_tol = five_se(sq_want[axis], N) + 1e-6;
            let sq_tol = five_se(fourth[axis], N) + 1e-6;
            assert!(
                (mean[axis] - mean_want[axis]).abs() <= mean_tol,
                "{name} axis {axis}: mean {} vs {} (± {mean_tol})",
                mean[axis],
                mean_want[axis]
            );
            assert!(
                (sq[axis] - sq_want[axis]).abs() <= sq_tol,
                "{name} axis {axis}: mean square {} vs {} (± {sq_tol})",
                sq[axis],
                sq_want[axis]
            );
        }
    }
}

/// Directional velocities lie in the cone of the spread around the direction (turned by the
/// emitter's rotation), with the mean cosine of a uniform cap, (1 + cos α)/2, and speeds in
/// range; radial velocities point away from the origin through the start point.
#[test]
fn velocities_follow_their_mode() {
    const N: u32 = 20_000;
    let spread = 0.5f32;
    let rotation = Quat::from_rotation_z(0.7);
    let direction = Vec3::new(1.0, 1.0, 0.0).normalize();
    let e = gpu_record(&Emitter {
        velocity: EmitVelocity::Directional {
            direction,
            spread,
            speed: (2.0, 5.0),
        },
        rotation,
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..Emitter::default()
    });
    let axis = rotation * direction;
    let mut cos_sum = 0.0f64;
    for k in 0..N {
        let rec = emitted_record(&e, None, 5, k, 9);
        let v = rec.vel.truncate();
        let speed = v.length();
        assert!(
            (2.0 - 1e-5..=5.0 + 1e-5).contains(&speed),
            "speed {speed} outside [2, 5]"
        );
        let c = v.dot(axis) / speed;
        assert!(
            c >= spread.cos() - 1e-5,
            "direction at {} rad from the axis, spread {spread}",
            c.acos()
        );
        cos_sum += f64::from(c);
        assert_eq!(
            rec.life.id & GPU_ID_BIT,
            GPU_ID_BIT,
            "emitted ids are GPU ids"
        );
    }
    // cos θ is uniform on [cos α, 1]: mean (1 + cos α)/2, variance (1 − cos α)²/12.
    let mean = (cos_sum / f64::from(N)) as f32;
    let want = (1.0 + spread.cos()) / 2.0;
    let tol = five_se((1.0 - spread.cos()).powi(2) / 12.0, N);
    assert!(
        (mean - want).abs() <= tol,
        "mean cosine {mean} vs {want} ± {tol}"
    );

    let radial = gpu_record(&Emitter {
        shape: EmitShape::Sphere { radius: 1.0 },
        velocity: EmitVelocity::Radial { speed: (3.0, 3.0) },
        position: Vec3::new(5.0, 1.0, 0.0),
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..Emitter::default()
    });
    for k in 0..1000 {
        let rec = emitted_record(&radial, None, 5, k, 9);
        let out = rec.pos.truncate() - Vec3::new(5.0, 1.0, 0.0);
        let v = rec.vel.truncate();
        assert!(
            (v.length() - 3.0).abs() <= 1e-5,
            "radial speed {}",
            v.length()
        );
        if out.length() > 1e-3 {
            assert!(
                v.normalize().dot(out.normalize()) >= 1.0 - 1e-5,
                "particle {k}: velocity {v} not along {out}"
            );
        }
    }
}

/// Bad emitters are refused naming the field, an emitter beyond the table's size is
/// `Error::TooMany`, a handle removed twice is stale; the world's emitters are as before.
#[test]
fn bad_emitters_are_refused_and_nothing_changes() {
    for (name, backend) in backends() {
        let mut w = world(backend, 64);
        let h = w.add_emitter(Emitter::default()).expect("emitter");
        let bad: Vec<(Emitter, &str)> = vec![
            (
                Emitter {
                    rate: f32::NAN,
                    ..Emitter::default()
                },
                "emitter.rate",
            ),
            (
                Emitter {
                    rate: -1.0,
                    acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                    ..Emitter::default()
                },
                "emitter.rate",
            ),
            (
                Emitter {
                    lifetime: (2.0, 1.0),
                    acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                    ..Emitter::default()
                },
                "emitter.lifetime",
            ),
            (
                Emitter {
                    lifetime: (0.0, 1.0),
                    acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                    ..Emitter::default()
                },
                "emitter.lifetime",
            ),
            (
                Emitter {
                    shape: EmitShape::Sphere { radius: -1.0 },
                    acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                    ..Emitter::default()
                },
                "emitter.shape.radius",
            ),
            (
                Emitter {
                    velocity: EmitVelocity::Directional {
                        direction: Vec3::ZERO,
                        spread: 0.1,
                        speed: (1.0, 2.0),
                    },
                    acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                    ..Emitter::default()
                },
                "emitter.velocity.direction",
            ),
            (
                Emitter {
                    rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                    acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                    ..Emitter::default()
                },
                "emitter.rotation",
            ),
            (
                Emitter {
                    bursts: vec![Burst {
                        time: f32::INFINITY,
                        count: 1,
                    }],
                    ..Emitter::default()
                },
                "emitter.burst.time",
            ),
        ];
        for (e, what) in bad {
            let r = w.add_emitter(e.clone());
            assert!(
                matches!(&r, Err(Error::InvalidInput { what: w, .. }) if *w == what),
                "{name}: {what}: {r:?}"
            );
            let r = w.set_emitter(h, e);
            assert!(
                matches!(&r, Err(Error::InvalidInput { what: w, .. }) if *w == what),
                "{name}: set_emitter {what}: {r:?}"
            );
            assert_eq!(w.emitter_count(), 1, "{name}: {what}: nothing added");
        }
        w.remove_emitter(h).expect("remove");
        assert!(
            matches!(w.remove_emitter(h), Err(Error::StaleHandle { .. })),
            "{name}: removed twice"
        );
        assert!(matches!(
            w.set_emitter_active(h, true),
            Err(Error::StaleHandle { .. })
        ));
        assert!(!w.contains_emitter(h));
        // The removed emitter's slot is held while its particles may live (they name it).
        for _ in 0..MAX_EMITTERS - 1 {
            w.add_emitter(Emitter::default())
                .expect("room in the table");
        }
        let r = w.add_emitter(Emitter::default());
        assert!(
            matches!(&r, Err(Error::TooMany { what: "emitters", max, .. }) if *max == MAX_EMITTERS),
            "{name}: {r:?}"
        );
        assert_eq!(w.emitter_count(), MAX_EMITTERS as usize - 1);
        // Once its longest lifetime (2 s) has passed, the slot is free again.
        for _ in 0..140 {
            w.step(DT).expect("step");
        }
        w.add_emitter(Emitter::default())
            .expect("the retired slot is free after its particles' lifetime");
        assert_eq!(w.emitter_count(), MAX_EMITTERS as usize);
    }
}

/// The piecewise-linear value of `keys` at `t`, held outside them; with two keys at one time
/// the later holds from that time (the definition, in f64).
fn piecewise(keys: &[(f32, f64)], t: f64) -> f64 {
    let mut out = keys[0].1;
    for w in keys.windows(2) {
        let ((t0, v0), (t1, v1)) = ((f64::from(w[0].0), w[0].1), (f64::from(w[1].0), w[1].1));
        if t >= t0 && t < t1 {
            out = v0 + (v1 - v0) * (t - t0) / (t1 - t0);
        }
    }
    if t >= f64::from(keys[keys.len() - 1].0) {
        out = keys[keys.len() - 1].1;
    }
    out
}

/// Life curves: a particle's colour and size follow its emitter's keys from spawn to death.
/// With dt = 1/64 s and a lifetime of exactly 1 s the life fraction after j steps is exactly
/// j/64, so at a key's time the value is the key, bit for bit (the interpolation adds
/// (next − key)·0); between keys it is linear: a subtraction, a division, a multiplication and
/// an addition of values at most 1, each rounding by half an ulp (6e-8), so 4e-7 covers it
/// with or without fused multiply-adds. Two keys at 0.5 make a step: the later holds from 0.5.
/// A fade to alpha 0 is the last key. Both backends; the particles die at the end of their
/// 64th step of life.
#[test]
fn life_curves_hit_their_keys_and_are_linear_between() {
    let dt = 1.0f32 / 64.0;
    let red = Vec4::new(1.0, 0.0, 0.0, 1.0);
    let green = Vec4::new(0.0, 1.0, 0.0, 1.0);
    let blue = Vec4::new(0.0, 0.0, 1.0, 0.5);
    let white = Vec4::ONE;
    let clear = Vec4::new(0.2, 0.1, 0.0, 0.0);
    let colour_keys = vec![
        (0.0, red),
        (0.25, green),
        (0.5, blue),
        (0.5, white),
        (1.0, clear),
    ];
    let size_keys = vec![(0.0, 0.1), (0.75, 0.5), (1.0, 0.3)];
    let emitter = Emitter {
        rate: 0.0,
        bursts: vec![Burst {
            time: 0.0,
            count: 10,
        }],
        lifetime: (1.0, 1.0),
        acceleration: Vec3::ZERO,
        colour_over_life: Some(colour_keys.clone()),
        size_over_life: Some(size_keys.clone()),
        ..Emitter::default()
    };
    for (name, backend) in backends() {
        let mut w = world(backend, 64);
        w.add_emitter(emitter.clone()).expect("emitter");
        for s in 1..=65u32 {
            w.step(dt).expect("step");
            let snap = w.read_snapshot().expect("snapshot");
            if s == 65 {
                assert_eq!(snap.len(), 0, "{name}: the particles die at a life of 1 s");
                break;
            }
            assert_eq!(snap.len(), 10, "{name} step {s}");
            let t = f64::from(s - 1) / 64.0;
            let at_key = |keys: &[(f32, f64)]| keys.iter().any(|k| f64::from(k.0) == t);
            for i in 0..snap.len() {
                assert_eq!(snap.life[i].age, t as f32, "{name} step {s}: age");
                for ch in 0..4 {
                    let keys: Vec<(f32, f64)> = colour_keys
                        .iter()
                        .map(|(kt, c)| (*kt, f64::from(c[ch])))
                        .collect();
                    let want = piecewise(&keys, t);
                    let got = f64::from(snap.colour[i][ch]);
                    let tol = if at_key(&keys) { 0.0 } else { 4e-7 };
                    assert!(
                        (got - want).abs() <= tol,
                        "{name} step {s} (t = {t}): colour channel {ch} {got} vs {want}"
                    );
                }
                let keys: Vec<(f32, f64)> = size_keys
                    .iter()
                    .map(|(kt, v)| (*kt, f64::from(*v)))
                    .collect();
                let want = piecewise(&keys, t);
                let got = f64::from(snap.size[i]);
                let tol = if at_key(&keys) { 0.0 } else { 4e-7 };
                assert!(
                    (got - want).abs() <= tol,
                    "{name} step {s} (t = {t}): size {got} vs {want}"
                );
            }
        }
    }
}

/// Bad curves are refused naming the field: no keys, too many, times out of order or outside
/// [0, 1], a NaN colour, a negative size.
#[test]
fn bad_curves_are_refused() {
    let with = |colour: Option<Vec<(f32, Vec4)>>, size: Option<Vec<(f32, f32)>>| Emitter {
        colour_over_life: colour,
        size_over_life: size,
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..Emitter::default()
    };
    let cases = [
        (with(Some(vec![]), None), "emitter.colour_over_life"),
        (
            with(Some(vec![(0.0, Vec4::ONE); 9]), None),
            "emitter.colour_over_life",
        ),
        (
            with(Some(vec![(0.5, Vec4::ONE), (0.2, Vec4::ONE)]), None),
            "emitter.colour_over_life",
        ),
        (
            with(Some(vec![(1.5, Vec4::ONE)]), None),
            "emitter.colour_over_life",
        ),
        (
            with(Some(vec![(0.0, Vec4::splat(f32::NAN))]), None),
            "emitter.colour_over_life",
        ),
        (with(None, Some(vec![])), "emitter.size_over_life"),
        (
            with(None, Some(vec![(0.0, -1.0)])),
            "emitter.size_over_life",
        ),
        (
            with(None, Some(vec![(f32::NAN, 1.0)])),
            "emitter.size_over_life",
        ),
    ];
    let mut w = world(Backend::Cpu, 16);
    for (e, what) in cases {
        let r = w.add_emitter(e);
        assert!(
            matches!(&r, Err(Error::InvalidInput { what: w, .. }) if *w == what),
            "{what}: {r:?}"
        );
    }
    assert_eq!(w.emitter_count(), 0);
}

/// A removed emitter's particles keep following its life curves, even when another emitter
/// with curves is added after it (the new one does not take its slot while they live).
#[test]
fn a_removed_emitters_particles_keep_its_curves() {
    let dt = 1.0f32 / 64.0;
    let (red, blue, green) = (
        Vec4::new(1.0, 0.0, 0.0, 1.0),
        Vec4::new(0.0, 0.0, 1.0, 1.0),
        Vec4::new(0.0, 1.0, 0.0, 1.0),
    );
    let burst = |colour: Vec<(f32, Vec4)>| Emitter {
        rate: 0.0,
        bursts: vec![Burst {
            time: 0.0,
            count: 4,
        }],
        lifetime: (1.0, 1.0),
        acceleration: Vec3::ZERO,
        colour_over_life: Some(colour),
        ..Emitter::default()
    };
    for (name, backend) in backends() {
        let mut w = world(backend, 64);
        let a = w
            .add_emitter(burst(vec![(0.0, red), (1.0, blue)]))
            .expect("a");
        w.step(dt).expect("step");
        w.remove_emitter(a).expect("remove a");
        w.add_emitter(burst(vec![(0.0, green), (1.0, green)]))
            .expect("b");
        // 32 more steps: A's particles at t = 0.5 (exactly half way, so (red + blue) / 2, which
        // rounds exactly), B's at t = 31/64, all green.
        for _ in 0..32 {
            w.step(dt).expect("step");
        }
        let snap = w.read_snapshot().expect("snapshot");
        assert_eq!(snap.len(), 8, "{name}: four of each");
        let half = Vec4::new(0.5, 0.0, 0.5, 1.0);
        let (mut from_a, mut from_b) = (0, 0);
        for (i, c) in snap.colour.iter().enumerate() {
            if snap.life[i].age == 0.5 {
                assert_eq!(*c, half, "{name}: A's particle {i} follows A's gradient");
                from_a += 1;
            } else {
                assert_eq!(*c, green, "{name}: B's particle {i} follows B's gradient");
                from_b += 1;
            }
        }
        assert_eq!((from_a, from_b), (4, 4), "{name}");
    }
}

/// Each emitter's box after a step is exactly the min and max of its live particles'
/// positions (integer atomics on order-preserving keys lose nothing), on both backends; an
/// emitter with no live particles has none.
#[test]
fn emitter_bounds_are_the_boxes_of_their_particles() {
    for (name, backend) in backends() {
        let mut w = world(backend, 8192);
        let centres = [
            Vec3::new(-5.0, 2.0, 0.0),
            Vec3::new(4.0, -1.0, 3.0),
            Vec3::new(0.0, 8.0, -6.0),
        ];
        let handles: Vec<_> = centres
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                w.add_emitter(Emitter {
                    rate: if i == 2 { 0.0 } else { 400.0 },
                    shape: EmitShape::Sphere {
                        radius: 1.0 + i as f32,
                    },
                    position: c,
                    acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                    ..Emitter::default()
                })
                .expect("emitter")
            })
            .collect();
        for _ in 0..30 {
            w.step(DT).expect("step");
        }
        let snap = w.read_snapshot().expect("snapshot");
        for (i, &h) in handles.iter().enumerate() {
            let slot = w.emitter_slot(h).expect("slot");
            let mine: Vec<Vec3> = (0..snap.len())
                .filter(|&k| snap.life[k].kind >> 16 == slot + 1)
                .map(|k| snap.pos[k].truncate())
                .collect();
            let got = w.read_emitter_bounds(h).expect("bounds");
            if mine.is_empty() {
                assert_eq!(got, None, "{name} emitter {i}: no particles, no box");
                continue;
            }
            let lo = mine.iter().copied().fold(Vec3::INFINITY, Vec3::min);
            let hi = mine.iter().copied().fold(Vec3::NEG_INFINITY, Vec3::max);
            assert_eq!(
                got,
                Some((lo, hi)),
                "{name} emitter {i} ({} particles)",
                mine.len()
            );
        }
        assert!(
            snap.len() > 300,
            "{name}: the emitters ran ({} live)",
            snap.len()
        );
    }
}
