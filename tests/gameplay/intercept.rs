//! Target leading: the catalogue's table (002-2, 002-7), moving shooters, gravity.

use crate::support::Rng;
use glam::{DVec3, Vec3};
use wgphys::gameplay::{
    intercept, intercept_ballistic, lead_first_order, lead_iterative, Aim, Shooter, Target,
};
use wgphys::Error;

fn at_origin(speed: f32) -> Shooter {
    Shooter {
        position: Vec3::ZERO,
        velocity: Vec3::ZERO,
        projectile_speed: speed,
    }
}

fn target(p: [f32; 2], v: [f32; 2]) -> Target {
    Target {
        position: Vec3::new(p[0], p[1], 0.0),
        velocity: Vec3::new(v[0], v[1], 0.0),
    }
}

/// The catalogue prints seven significant digits (5.773503): half a unit in the last is 5e-7 at
/// this magnitude, and the f32 result adds half an ulp of 10 (4.8e-7).
const TABLE: f32 = 1e-6;

fn assert_aim(aim: Aim, time: f32, point: [f32; 2], speed: f32) {
    assert!((aim.time - time).abs() <= TABLE, "{aim:?}");
    assert!(
        (aim.point - Vec3::new(point[0], point[1], 0.0))
            .abs()
            .max_element()
            <= TABLE,
        "{aim:?}"
    );
    // The shot really arrives: from the origin, speed·t along the direction is the point. The
    // f32 direction and time carry half an ulp each (6e-8 relative), times |point| ≤ 20.
    let flown = aim.direction * speed * aim.time;
    assert!(
        (flown - aim.point).length() <= 4.0 * 6e-8 * 20.0 + TABLE,
        "{aim:?}"
    );
}

#[test]
fn catalogue_table() {
    let a = intercept(&at_origin(2.0), &target([10.0, 0.0], [0.0, 1.0]))
        .unwrap()
        .unwrap();
    assert_aim(a, 5.773503, [10.0, 5.773503], 2.0);
    let a = intercept(&at_origin(5.0), &target([10.0, 0.0], [0.0, 3.0]))
        .unwrap()
        .unwrap();
    assert_aim(a, 2.5, [10.0, 7.5], 5.0);
    let a = intercept(&at_origin(2.0), &target([10.0, 0.0], [1.0, 0.0]))
        .unwrap()
        .unwrap();
    assert_aim(a, 10.0, [20.0, 0.0], 2.0);
    // a = 0 (equal speeds), approaching: the linear root t = −c/b = 5 (erratum 6 divided by 0).
    let a = intercept(&at_origin(1.0), &target([10.0, 0.0], [-1.0, 0.0]))
        .unwrap()
        .unwrap();
    assert_aim(a, 5.0, [5.0, 0.0], 1.0);
    let a = intercept(&at_origin(5.0), &target([3.0, 4.0], [0.0, 0.0]))
        .unwrap()
        .unwrap();
    assert_aim(a, 1.0, [3.0, 4.0], 5.0);
    // Receding faster than the projectile: disc < 0.
    assert_eq!(
        intercept(&at_origin(1.0), &target([10.0, 0.0], [2.0, 0.0])).unwrap(),
        None
    );
    // a = 0, receding: t = −5 < 0.
    assert_eq!(
        intercept(&at_origin(1.0), &target([10.0, 0.0], [1.0, 0.0])).unwrap(),
        None
    );
    // Coincident shooter and target (002-7 returns false).
    assert_eq!(
        intercept(&at_origin(1.0), &target([0.0, 0.0], [1.0, 0.0])).unwrap(),
        None
    );
}

#[test]
fn first_order_and_iterative_leads() {
    let slow = target([10.0, 0.0], [0.0, 1.0]);
    let a = lead_first_order(&at_origin(2.0), &slow).unwrap().unwrap();
    assert!(
        (a.time - 5.0).abs() <= TABLE && (a.point - Vec3::new(10.0, 5.0, 0.0)).length() <= TABLE
    );
    let a = lead_first_order(&at_origin(5.0), &target([10.0, 0.0], [0.0, 3.0]))
        .unwrap()
        .unwrap();
    assert!(
        (a.point - Vec3::new(10.0, 6.0, 0.0)).length() <= TABLE,
        "{a:?}"
    );

    // The map t ↦ |R + V·t|/s has slope at most |V|/s = 1/2 here, so stopping at |Δt| < 1e-6
    // leaves at most 1e-6·(1/2)/(1 − 1/2) = 1e-6 to the fixed point 5.773503 (plus TABLE).
    let a = lead_iterative(&at_origin(2.0), &slow, 1e-6, 100)
        .unwrap()
        .unwrap();
    assert!((a.time - 5.773503).abs() <= 1e-6 + TABLE, "{a:?}");
    // An approaching target makes t decrease from one step to the next: 0, 5, 2.5, 3.75, … →
    // 10/3. The article's stop test without abs() stopped at the first decrease (t = 2.5).
    let approaching = target([10.0, 0.0], [-1.0, 0.0]);
    let a = lead_iterative(&at_origin(2.0), &approaching, 1e-6, 100)
        .unwrap()
        .unwrap();
    assert!((a.time - 10.0 / 3.0).abs() <= 1e-6 + TABLE, "{a:?}");
    // Equal speeds, approaching: the iteration swings 0 ↔ 10 forever (catalogue), so no aim.
    assert_eq!(
        lead_iterative(&at_origin(1.0), &approaching, 1e-6, 100).unwrap(),
        None
    );
    assert!(matches!(
        lead_iterative(&at_origin(1.0), &approaching, 0.0, 100),
        Err(Error::InvalidInput {
            what: "lead_iterative.tolerance",
            ..
        })
    ));
}

/// |R + V·t|² − s²·t², in f64 from the f32 inputs: zero at an intercept, positive before it.
fn miss(shooter: &Shooter, target: &Target, gravity: Vec3, t: f64) -> f64 {
    let r = (target.position - shooter.position).as_dvec3();
    let v = (target.velocity - shooter.velocity).as_dvec3();
    let s = f64::from(shooter.projectile_speed);
    (r + v * t - 0.5 * gravity.as_dvec3() * t * t).length_squared() - s * s * t * t
}

/// Checks that `aim` is a real hit (the projectile's world position equals the target's) and
/// that no earlier time is (the miss function stays positive on a grid before it).
fn assert_earliest_hit(shooter: &Shooter, target: &Target, gravity: Vec3, aim: Aim) {
    let t = f64::from(aim.time);
    let launch = shooter.velocity.as_dvec3()
        + aim.direction.as_dvec3() * f64::from(shooter.projectile_speed);
    let projectile = shooter.position.as_dvec3() + launch * t + 0.5 * gravity.as_dvec3() * t * t;
    let target_then = target.position.as_dvec3() + target.velocity.as_dvec3() * t;
    // The f32 time and direction are rounded to half an ulp (6e-8 relative); the meeting point
    // moves by that times the largest displacement involved. 1e-6 is four such roundings with
    // headroom.
    let scale = (target.position - shooter.position).length() as f64
        + launch.length() * t
        + target.velocity.as_dvec3().length() * t
        + gravity.as_dvec3().length() * t * t;
    assert!(
        (projectile - target_then).length() <= 1e-6 * scale,
        "miss by {} (scale {scale}) {aim:?}",
        (projectile - target_then).length()
    );
    assert!((aim.point.as_dvec3() - target_then).length() <= 1e-6 * scale);
    for k in 1..1000 {
        let earlier = t * 0.999 * k as f64 / 1000.0;
        assert!(
            miss(shooter, target, gravity, earlier) > 0.0,
            "earlier hit at {earlier}"
        );
    }
}

#[test]
fn moving_shooters() {
    // Shooter and target sharing a velocity: relative to the shooter the target stands still,
    // so t = |R|/s and the aim points straight at it.
    let shooter = Shooter {
        position: Vec3::new(1.0, 2.0, 3.0),
        velocity: Vec3::new(4.0, -1.0, 2.0),
        projectile_speed: 10.0,
    };
    let still = Target {
        position: Vec3::new(4.0, 6.0, 3.0),
        velocity: shooter.velocity,
    };
    let a = intercept(&shooter, &still).unwrap().unwrap();
    // |R| = 5, s = 10: t = 0.5 exactly; direction (0.6, 0.8, 0): half-ulp f32 roundings.
    assert!(
        (a.time - 0.5).abs() <= 1e-7 && (a.direction - Vec3::new(0.6, 0.8, 0.0)).length() <= 2e-7
    );

    let mut rng = Rng::new(0x5eed_0101);
    let v = |rng: &mut Rng, k: f64| rng.dvec3(-k, k).as_vec3();
    let mut hits = 0;
    for _ in 0..500 {
        let shooter = Shooter {
            position: v(&mut rng, 100.0),
            velocity: v(&mut rng, 10.0),
            projectile_speed: rng.range(5.0, 30.0) as f32,
        };
        let target = Target {
            position: v(&mut rng, 100.0),
            velocity: v(&mut rng, 20.0),
        };
        match intercept(&shooter, &target).unwrap() {
            Some(aim) => {
                hits += 1;
                assert_earliest_hit(&shooter, &target, Vec3::ZERO, aim);
            }
            // No positive root: the miss function never reaches 0 for t > 0. It is a quadratic
            // with positive value at 0, so it suffices that it is positive at its vertex or
            // that the vertex lies at t ≤ 0, and that it grows (a > 0) or has no real root.
            None => {
                let r = (target.position - shooter.position).as_dvec3();
                let rv = (target.velocity - shooter.velocity).as_dvec3();
                let s = f64::from(shooter.projectile_speed);
                let (a, b, c) = (
                    rv.length_squared() - s * s,
                    2.0 * r.dot(rv),
                    r.length_squared(),
                );
                assert!(
                    a >= 0.0 && (b >= 0.0 || b * b < 4.0 * a * c),
                    "missed a shot: {a} {b} {c}"
                );
            }
        }
    }
    // Speeds up to 30 against targets up to ~35 m/s relative: both outcomes must occur.
    assert!(hits > 100 && hits < 500, "{hits}");
}

#[test]
fn equal_speeds_off_axis() {
    // |V| = s exactly (a = 0): the linear root t = −|R|²/(2R·V). R = (10, 0, 0),
    // V = (−0.6, 0.8, 0): t = −100/(2·−6) = 25/3.
    let target = Target {
        position: Vec3::new(10.0, 0.0, 0.0),
        velocity: Vec3::new(-0.6, 0.8, 0.0),
    };
    let a = intercept(&at_origin(1.0), &target).unwrap().unwrap();
    // 0.6 and 0.8 are not exact in f32, so a is a few 1e-8 rather than 0; the stable formula's
    // root c/q differs from 25/3 by the relative rounding of the inputs (6e-8) times a few.
    assert!(
        (a.time - 25.0 / 3.0).abs() <= 4.0 * 6e-8 * 25.0 / 3.0 + 1e-6,
        "{a:?}"
    );
    assert_earliest_hit(&at_origin(1.0), &target, Vec3::ZERO, a);
}

#[test]
fn gravity_against_the_range_equation() {
    // A target on flat ground d metres away, launch speed s: the flat arc has angle
    // θ = ½·asin(g·d/s²) and flight time d/(s·cos θ).
    let g32 = 9.81_f32;
    let g = f64::from(g32);
    for (d, s) in [(50.0_f32, 30.0_f32), (10.0, 12.0), (80.0, 28.5)] {
        let target = Target {
            position: Vec3::new(d, 0.0, 0.0),
            velocity: Vec3::ZERO,
        };
        let aim = intercept_ballistic(&at_origin(s), &target, Vec3::new(0.0, -g32, 0.0))
            .unwrap()
            .unwrap();
        let (d, s) = (f64::from(d), f64::from(s));
        let theta = 0.5 * (g * d / (s * s)).asin();
        let t = d / (s * theta.cos());
        // f64 throughout, so only the f32 output rounds: half an ulp, 6e-8 relative; 4 ulps.
        assert!(
            (f64::from(aim.time) - t).abs() <= 4.0 * 1.2e-7 * t,
            "{aim:?} vs {t}"
        );
        let expected_dir = DVec3::new(theta.cos(), theta.sin(), 0.0);
        assert!(
            (aim.direction.as_dvec3() - expected_dir).length() <= 4.0 * 1.2e-7,
            "{aim:?}"
        );
    }
    // Out of range: d > s²/g (max range at 45°) has no solution.
    let far = Target {
        position: Vec3::new(100.0, 0.0, 0.0),
        velocity: Vec3::ZERO,
    };
    assert_eq!(
        intercept_ballistic(&at_origin(30.0), &far, Vec3::new(0.0, -9.81, 0.0)).unwrap(),
        None
    );
    // Straight up to height h: s·t − ½g·t² = h, t = (s − √(s² − 2gh))/g.
    let above = Target {
        position: Vec3::new(0.0, 20.0, 0.0),
        velocity: Vec3::ZERO,
    };
    let aim = intercept_ballistic(&at_origin(25.0), &above, Vec3::new(0.0, -g32, 0.0))
        .unwrap()
        .unwrap();
    let t = (25.0 - (625.0 - 2.0 * g * 20.0).sqrt()) / g;
    assert!(
        (f64::from(aim.time) - t).abs() <= 4.0 * 1.2e-7 * t,
        "{aim:?} vs {t}"
    );
}

#[test]
fn gravity_random_shots() {
    let mut rng = Rng::new(0x5eed_0102);
    let v = |rng: &mut Rng, k: f64| rng.dvec3(-k, k).as_vec3();
    let mut hits = 0;
    for _ in 0..300 {
        let shooter = Shooter {
            position: v(&mut rng, 50.0),
            velocity: v(&mut rng, 5.0),
            projectile_speed: rng.range(20.0, 60.0) as f32,
        };
        let target = Target {
            position: v(&mut rng, 50.0),
            velocity: v(&mut rng, 10.0),
        };
        let gravity = Vec3::new(0.0, -9.81, 0.0);
        if let Some(aim) = intercept_ballistic(&shooter, &target, gravity).unwrap() {
            hits += 1;
            assert_earliest_hit(&shooter, &target, gravity, aim);
        }
        // With no gravity the quartic is the quadratic: the same answer as `intercept`.
        let flat = intercept_ballistic(&shooter, &target, Vec3::ZERO).unwrap();
        let straight = intercept(&shooter, &target).unwrap();
        match (flat, straight) {
            (Some(a), Some(b)) => {
                // Two root finders on the same roots, each to a few f64 ulps, then f32 output.
                assert!((a.time - b.time).abs() <= 2.4e-7 * b.time, "{a:?} {b:?}");
            }
            (None, None) => {}
            other => panic!("ballistic and straight disagree: {other:?}"),
        }
    }
    assert!(hits > 50, "{hits}");
}

#[test]
fn bad_input() {
    let t = target([10.0, 0.0], [0.0, 1.0]);
    for speed in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert!(matches!(
            intercept(&at_origin(speed), &t),
            Err(Error::InvalidInput {
                what: "shooter.projectile_speed",
                ..
            })
        ));
    }
    let nan = Target {
        position: Vec3::new(f32::NAN, 0.0, 0.0),
        velocity: Vec3::ZERO,
    };
    assert!(matches!(
        intercept(&at_origin(1.0), &nan),
        Err(Error::InvalidInput {
            what: "target.position",
            ..
        })
    ));
    assert!(matches!(
        intercept_ballistic(&at_origin(1.0), &t, Vec3::new(0.0, f32::INFINITY, 0.0)),
        Err(Error::InvalidInput {
            what: "gravity",
            ..
        })
    ));
    let moving_nan = Shooter {
        velocity: Vec3::new(0.0, f32::NAN, 0.0),
        ..at_origin(1.0)
    };
    assert!(matches!(
        lead_first_order(&moving_nan, &t),
        Err(Error::InvalidInput {
            what: "shooter.velocity",
            ..
        })
    ));
}
