//! Leading a moving target: where to aim so that a projectile meets it (articles 002-2, 002-7).
//!
//! A projectile leaves the shooter at time 0 with speed `s` in a direction still to be chosen;
//! the target moves with constant velocity. Working relative to the shooter (`R = q − p`, the
//! target's offset, and `V = v − u`, its velocity relative to the shooter, because the
//! projectile inherits the shooter's velocity as a thrown or fired object does), the projectile
//! can reach every point of a sphere of radius `s·t` at time t, and the target is at `R + V·t`.
//! They meet when `|R + V·t|² = s²·t²`:
//!
//! `(V·V − s²)·t² + 2(R·V)·t + R·R = 0`.
//!
//! The earliest meeting is the smallest positive root. The articles' own cases, with their
//! errata corrected:
//!
//! - `V·V = s²` makes the equation linear, `t = −R·R / (2R·V)`; 002-2's direct solution divided
//!   by zero there (erratum 6). The stable quadratic formula of [`super::roots`] yields that root
//!   without a special case, and an exact zero leading coefficient is dropped before it.
//! - `R = 0` (shooter on the target) has no aim direction and no positive meeting time, so it
//!   reports no shot, as 002-7 does.
//! - No positive root (the target recedes faster than the projectile flies) reports no shot.
//! - 002-2's fixed-point iteration stops on `|Δt| < tolerance`; its `t − old_t < EPSILON`
//!   without `abs` stopped after two steps whenever t decreased (erratum 6).
//!
//! With gravity `g` acting on the projectile (not on the target), the projectile reaches the
//! sphere of radius `s·t` centred on `½·g·t²`, so `|R + V·t − ½·g·t²|² = s²·t²`: a quartic in t
//! that the articles do not give, solved by [`super::roots::real_roots_in`]. Its smallest
//! positive root is the flat (fast) arc; a larger root, where there is one, is the lob.
//!
//! Inputs and outputs are `f32` like the engine's bodies; the arithmetic is `f64` because the
//! leading coefficient `V·V − s²` cancels when the speeds are close, which is exactly the case
//! the articles single out.

use crate::error::{finite3, positive, Result};
use crate::gameplay::roots::{quadratic_roots, real_roots_in};
use glam::{DVec3, Vec3};

/// The one firing the projectile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shooter {
    /// Where the projectile starts, in metres.
    pub position: Vec3,
    /// The shooter's velocity in m/s. The projectile inherits it (its world velocity is this plus
    /// `projectile_speed` along the aim), so pass zero for a weapon that does not.
    pub velocity: Vec3,
    /// The projectile's speed relative to the shooter in m/s; must be positive.
    pub projectile_speed: f32,
}

/// The one to be hit, moving with constant velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    /// Where it is at time 0, in metres.
    pub position: Vec3,
    /// Its constant velocity in m/s.
    pub velocity: Vec3,
}

/// Where and when to shoot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aim {
    /// Seconds from firing until the projectile meets the target.
    pub time: f32,
    /// Where the target (and the projectile) will be then, in world space.
    pub point: Vec3,
    /// Unit direction to fire in, relative to the shooter: the projectile's world velocity at
    /// launch is `shooter.velocity + projectile_speed · direction`.
    pub direction: Vec3,
}

/// The relative problem in f64: target offset, relative velocity and speed, checked.
struct Relative {
    offset: DVec3,
    velocity: DVec3,
    speed: f64,
}

impl Relative {
    fn new(shooter: &Shooter, target: &Target) -> Result<Self> {
        finite3("shooter.position", shooter.position)?;
        finite3("shooter.velocity", shooter.velocity)?;
        positive("shooter.projectile_speed", shooter.projectile_speed)?;
        finite3("target.position", target.position)?;
        finite3("target.velocity", target.velocity)?;
        Ok(Relative {
            offset: target.position.as_dvec3() - shooter.position.as_dvec3(),
            velocity: target.velocity.as_dvec3() - shooter.velocity.as_dvec3(),
            speed: f64::from(shooter.projectile_speed),
        })
    }

    /// The aim that sends the projectile to the target's relative position `hit` at time `t`.
    fn aim(&self, target: &Target, t: f64, hit: DVec3) -> Aim {
        let point = target.position.as_dvec3() + target.velocity.as_dvec3() * t;
        Aim {
            time: t as f32,
            point: point.as_vec3(),
            direction: hit.normalize_or_zero().as_vec3(),
        }
    }
}

/// The earliest intercept of a target moving in a straight line by a projectile flying straight
/// at constant speed (002-2's direct solution, 002-7's edge cases).
///
/// Returns `Ok(None)` when no shot can reach the target: it recedes at least as fast as the
/// projectile flies, or it sits on the shooter. Errors on a NaN or infinite field or a
/// projectile speed that is not positive.
pub fn intercept(shooter: &Shooter, target: &Target) -> Result<Option<Aim>> {
    let rel = Relative::new(shooter, target)?;
    if rel.offset == DVec3::ZERO {
        return Ok(None);
    }
    let a = rel.velocity.length_squared() - rel.speed * rel.speed;
    let b = 2.0 * rel.offset.dot(rel.velocity);
    let c = rel.offset.length_squared();
    let earliest = quadratic_roots(a, b, c)?
        .into_iter()
        .find(|&t| t > 0.0 && t.is_finite());
    Ok(earliest.map(|t| rel.aim(target, t, rel.offset + rel.velocity * t)))
}

/// The earliest intercept when gravity `gravity` (m/s², for example `(0, −9.81, 0)`) bends the
/// projectile's path and the target still moves in a straight line.
///
/// The smallest positive root of the quartic is the flat, fast arc. `Ok(None)` when no launch
/// direction reaches the target (out of range, or sitting on the shooter). With zero gravity this
/// is [`intercept`]. Errors as [`intercept`] does, and on a non-finite gravity.
pub fn intercept_ballistic(
    shooter: &Shooter,
    target: &Target,
    gravity: Vec3,
) -> Result<Option<Aim>> {
    let rel = Relative::new(shooter, target)?;
    finite3("gravity", gravity)?;
    if rel.offset == DVec3::ZERO {
        return Ok(None);
    }
    let (r, v, g, s) = (rel.offset, rel.velocity, gravity.as_dvec3(), rel.speed);
    // |R + V·t − ½g·t²|² − s²·t², expanded, lowest degree first.
    let quartic = [
        r.length_squared(),
        2.0 * r.dot(v),
        v.length_squared() - r.dot(g) - s * s,
        -v.dot(g),
        0.25 * g.length_squared(),
    ];
    let earliest = real_roots_in(&quartic, 0.0, f64::INFINITY)?
        .into_iter()
        .find(|&t| t > 0.0);
    Ok(earliest.map(|t| rel.aim(target, t, r + v * t - 0.5 * g * t * t)))
}

/// 002-2's first-order lead: the flight time to where the target is now, `t = |R|/s`, then aim at
/// where the target will be after that time.
///
/// Cheap and good when the target is slow next to the projectile or crosses the line of sight;
/// it misses by about `|V|·(t_true − t)` otherwise, which a game may want. `Ok(None)` when the
/// target sits on the shooter. Errors as [`intercept`] does.
pub fn lead_first_order(shooter: &Shooter, target: &Target) -> Result<Option<Aim>> {
    let rel = Relative::new(shooter, target)?;
    if rel.offset == DVec3::ZERO {
        return Ok(None);
    }
    let t = rel.offset.length() / rel.speed;
    Ok(Some(rel.aim(target, t, rel.offset + rel.velocity * t)))
}

/// 002-2's iterative lead: repeat `t ← |R + V·t|/s` from `t = 0` until `|Δt| < tolerance` seconds.
///
/// The iteration contracts, and so converges to [`intercept`]'s time, when the target is slower
/// than the projectile (`|V| < s`: the map's slope is at most `|V|/s`); otherwise it may
/// oscillate or diverge, and after `max_iterations` steps without meeting the tolerance it gives
/// `Ok(None)`. `Ok(None)` too when the target sits on the shooter. Errors as [`intercept`] does,
/// and on a tolerance that is not positive.
pub fn lead_iterative(
    shooter: &Shooter,
    target: &Target,
    tolerance: f32,
    max_iterations: u32,
) -> Result<Option<Aim>> {
    let rel = Relative::new(shooter, target)?;
    positive("lead_iterative.tolerance", tolerance)?;
    if rel.offset == DVec3::ZERO {
        return Ok(None);
    }
    let mut t = 0.0_f64;
    for _ in 0..max_iterations {
        let next = (rel.offset + rel.velocity * t).length() / rel.speed;
        let change = (next - t).abs();
        t = next;
        if change < f64::from(tolerance) {
            return Ok(Some(rel.aim(target, t, rel.offset + rel.velocity * t)));
        }
    }
    Ok(None)
}
