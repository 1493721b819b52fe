//! Turning a body toward a heading with torque, by PID control (article 002-6).
//!
//! The body is turned by applying torque, never by setting its orientation, so the physics stays
//! in charge of how it turns (collisions and other torques still act) and turning is decoupled
//! from moving. Following the article, the controller outputs an angular *acceleration* and the
//! torque is that times the body's inertia, `τ = I·α`, so one set of gains suits light and heavy
//! bodies alike.
//!
//! [`TurnController`] is the 3D form. The heading error is a rotation vector `e = θ·n̂`: the
//! rotation that takes the body's forward axis onto the target direction, with `θ ∈ [0, π]` the
//! angle between them and `n̂` the axis. That is the article's angle wrapped into `[−π, π]`
//! (`AdjustAngle`), in 3D: the error never asks for the long way round. The control law is
//!
//! `α = kp·e + ki·∫e dt − kd·ω`,
//!
//! the derivative taken from the body's angular velocity ω rather than the article's finite
//! difference of the error: for a fixed target `de/dt = −ω` exactly, the body knows ω without a
//! one-step lag, and a jump of the target heading then does not kick the output ("derivative on
//! measurement"). The integral is a running sum clamped in magnitude (anti-windup), so a long
//! stall against an obstacle cannot store a turn that would later overshoot by more than the
//! clamp allows. `α` is clamped to a maximum angular acceleration, as in the article. The
//! integral is `f32` like the rest of the body state; once `e·dt` falls below half an ulp of it
//! the sum stops changing, which leaves a heading error of at most `ulp(∫e)/(2·dt)` (about a
//! microradian at 1 kHz for an integral of 0.03 rad·s): harmless for turning.
//!
//! Units: e in radians, ω in rad/s, kp in 1/s², ki in 1/s³, kd in 1/s, the integral in rad·s,
//! α in rad/s², inertia in kg·m², torque in N·m. Rotating about one principal axis with `ki = 0`,
//! the error obeys `ë + kd·ė + kp·e = 0`: natural frequency `ω_n = √kp`, damping ratio
//! `ζ = kd/(2√kp)`, and a step overshoots by `exp(−πζ/√(1−ζ²))` of the step when `ζ < 1`, not at
//! all when `ζ ≥ 1`. [`PidGains::from_frequency`] sets gains that way.
//!
//! [`WindowedPid`] is the article's scalar `PIDController` (a window of recent error samples, an
//! integral by the composite Simpson rule, a finite-difference derivative, a plant gain), with its
//! erratum 7 corrected: Simpson's rule multiplies by `dt/3`; the article divided by `3·dt`.

use crate::error::{finite, finite3, non_negative, positive, Error, Result};
use glam::{Mat3, Vec3};

/// Proportional, integral and derivative gains, per unit inertia (see the module docs for
/// units).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PidGains {
    /// Proportional gain, 1/s² (angular acceleration per radian of error).
    pub kp: f32,
    /// Integral gain, 1/s³.
    pub ki: f32,
    /// Derivative gain, 1/s.
    pub kd: f32,
}

impl PidGains {
    /// PD gains for a turn with natural frequency `frequency` (rad/s) and damping ratio
    /// `damping_ratio` (1 = critically damped, no overshoot; 0.5 overshoots by about 16%):
    /// `kp = ω²`, `kd = 2ζω`, `ki = 0`. Errors on a frequency that is not positive or a damping
    /// ratio that is negative or not finite.
    pub fn from_frequency(frequency: f32, damping_ratio: f32) -> Result<Self> {
        positive("pid.frequency", frequency)?;
        non_negative("pid.damping_ratio", damping_ratio)?;
        Ok(PidGains {
            kp: frequency * frequency,
            ki: 0.0,
            kd: 2.0 * damping_ratio * frequency,
        })
    }

    fn check(&self) -> Result<()> {
        non_negative("pid.kp", self.kp)?;
        non_negative("pid.ki", self.ki)?;
        non_negative("pid.kd", self.kd)
    }
}

/// A PID controller that turns a body's forward axis toward a target direction with torque.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnController {
    gains: PidGains,
    integral_limit: f32,
    max_angular_acceleration: Option<f32>,
    integral: Vec3,
}

impl TurnController {
    /// A controller with the given gains, a clamp on the magnitude of the error integral (rad·s;
    /// 0 turns the integral off) and an optional clamp on the magnitude of the commanded angular
    /// acceleration (rad/s²). Errors on a negative or non-finite gain or limit, or a maximum
    /// acceleration that is not positive.
    pub fn new(
        gains: PidGains,
        integral_limit: f32,
        max_angular_acceleration: Option<f32>,
    ) -> Result<Self> {
        gains.check()?;
        non_negative("pid.integral_limit", integral_limit)?;
        if let Some(max) = max_angular_acceleration {
            positive("pid.max_angular_acceleration", max)?;
        }
        Ok(TurnController {
            gains,
            integral_limit,
            max_angular_acceleration,
            integral: Vec3::ZERO,
        })
    }

    /// The gains.
    pub fn gains(&self) -> PidGains {
        self.gains
    }

    /// The accumulated error integral (rad·s), never longer than the integral limit.
    pub fn integral(&self) -> Vec3 {
        self.integral
    }

    /// Forgets the accumulated integral, for a new target or after a teleport.
    pub fn reset(&mut self) {
        self.integral = Vec3::ZERO;
    }

    /// The rotation vector (radians times unit axis) that turns `forward` onto `target`; its
    /// length is the angle between them, in `[0, π]`.
    ///
    /// When the two are opposite every axis perpendicular to `forward` is a shortest turn; this
    /// picks one deterministically so the body does not sit still facing away. Errors on a zero
    /// or non-finite vector.
    pub fn heading_error(forward: Vec3, target: Vec3) -> Result<Vec3> {
        let f = unit("pid.forward", forward)?;
        let h = unit("pid.target", target)?;
        let cross = f.cross(h);
        let sin = cross.length();
        let angle = sin.atan2(f.dot(h));
        if sin > 0.0 {
            Ok(cross * (angle / sin))
        } else if f.dot(h) > 0.0 {
            Ok(Vec3::ZERO)
        } else {
            Ok(f.any_orthonormal_vector() * std::f32::consts::PI)
        }
    }

    /// The torque (N·m, world frame) that turns the body toward `target` over the next `dt`
    /// seconds, and the update of the integral.
    ///
    /// `forward` is the body's forward axis in world space (for an orientation `q` and a local
    /// forward axis `f`, `q * f`); `target` the world direction to face; `angular_velocity` the
    /// body's, in rad/s; `inertia` its world-space inertia tensor (kg·m²), `R·I_body·Rᵀ`. For a
    /// 2D body, pass vectors in the xy plane: the torque comes out along z. Errors, leaving the
    /// integral unchanged, on a non-finite input, a zero direction or a `dt` that is not
    /// positive.
    pub fn torque(
        &mut self,
        forward: Vec3,
        target: Vec3,
        angular_velocity: Vec3,
        inertia: Mat3,
        dt: f32,
    ) -> Result<Vec3> {
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(Error::InvalidTimeStep(dt));
        }
        finite3("pid.angular_velocity", angular_velocity)?;
        if !inertia.is_finite() {
            return Err(Error::InvalidInput {
                what: "pid.inertia",
                value: format!("{inertia:?}"),
                fix: "pass the body's world-space inertia tensor with finite entries",
            });
        }
        let error = Self::heading_error(forward, target)?;
        let integral = (self.integral + error * dt).clamp_length_max(self.integral_limit);
        let g = self.gains;
        let mut acceleration = error * g.kp + integral * g.ki - angular_velocity * g.kd;
        if let Some(max) = self.max_angular_acceleration {
            acceleration = acceleration.clamp_length_max(max);
        }
        let torque = inertia * acceleration;
        finite3("pid.torque (overflowed: lower the gains)", torque)?;
        self.integral = integral;
        Ok(torque)
    }
}

/// `v` normalized, or an error naming it when it is zero or not finite.
fn unit(what: &'static str, v: Vec3) -> Result<Vec3> {
    finite3(what, v)?;
    let n = v.normalize_or_zero();
    if n == Vec3::ZERO {
        return Err(Error::InvalidInput {
            what,
            value: format!("{v:?}"),
            fix: "pass a non-zero direction",
        });
    }
    Ok(n)
}

/// The article's scalar PID controller over a sliding window of error samples, in f64 as the
/// article's is. Output is 0 until [`WindowedPid::MIN_SAMPLES`] samples have arrived.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowedPid {
    kp: f64,
    ki: f64,
    kd: f64,
    plant_gain: f64,
    dt: f64,
    max_history: usize,
    samples: Vec<f64>,
}

impl WindowedPid {
    /// Fewer samples than this give no output: the derivative needs two, Simpson's rule three.
    pub const MIN_SAMPLES: usize = 3;

    /// A controller with `gains = [kp, ki, kd]`, sampled every `dt` seconds, keeping the last
    /// `max_history` samples (at least [`Self::MIN_SAMPLES`]; the article uses 7), its output
    /// scaled by `plant_gain` (the article's `K_plant`, default 1). Errors on a non-finite gain,
    /// a `dt` that is not positive, or too short a history.
    pub fn new(gains: [f64; 3], dt: f64, max_history: usize, plant_gain: f64) -> Result<Self> {
        use super::check::{finite_f64, positive_f64};
        finite_f64("windowed_pid.kp", gains[0])?;
        finite_f64("windowed_pid.ki", gains[1])?;
        finite_f64("windowed_pid.kd", gains[2])?;
        finite_f64("windowed_pid.plant_gain", plant_gain)?;
        positive_f64("windowed_pid.dt", dt)?;
        if max_history < Self::MIN_SAMPLES {
            return Err(Error::InvalidInput {
                what: "windowed_pid.max_history",
                value: format!("{max_history}"),
                fix: "keep at least 3 samples (Simpson's rule needs three)",
            });
        }
        Ok(WindowedPid {
            kp: gains[0],
            ki: gains[1],
            kd: gains[2],
            plant_gain,
            dt,
            max_history,
            samples: Vec::with_capacity(max_history),
        })
    }

    /// Adds the newest error sample, drops samples older than the window, and returns the
    /// output `K_plant·(P + I + D)`. Errors, keeping the window unchanged, on a non-finite
    /// sample or an output that overflows.
    pub fn add_sample(&mut self, error: f64) -> Result<f64> {
        super::check::finite_f64("windowed_pid.error", error)?;
        let mut next = self.clone();
        if next.samples.len() == next.max_history {
            next.samples.remove(0);
        }
        next.samples.push(error);
        let output = next.output();
        super::check::finite_f64("windowed_pid output (overflowed: lower the gains)", output)?;
        *self = next;
        Ok(output)
    }

    /// The output for the samples held now (0 with fewer than [`Self::MIN_SAMPLES`]).
    pub fn output(&self) -> f64 {
        let e = &self.samples;
        let n = e.len();
        if n < Self::MIN_SAMPLES {
            return 0.0;
        }
        let p = self.kp * e[n - 1];
        let i = self.ki * self.window_integral();
        let d = self.kd * (e[n - 1] - e[n - 2]) / self.dt;
        self.plant_gain * (p + i + d)
    }

    /// The integral of the error over the window, `∫ e dt` from the oldest sample to the newest.
    ///
    /// Composite Simpson (weights 1, 4, 2, 4, …, 4, 1 times `dt/3`) needs an odd number of
    /// samples; with an even number it covers all but the newest interval, which the trapezoid
    /// rule adds, so every sample is used and the rule stays exact for straight lines.
    pub fn window_integral(&self) -> f64 {
        let e = &self.samples;
        let n = e.len();
        if n < 2 {
            return 0.0;
        }
        let simpson_len = if n % 2 == 1 { n } else { n - 1 };
        let mut simpson = 0.0;
        if simpson_len >= 3 {
            let interior: f64 = (1..simpson_len - 1)
                .map(|k| if k % 2 == 1 { 4.0 } else { 2.0 } * e[k])
                .sum();
            simpson = (e[0] + interior + e[simpson_len - 1]) * self.dt / 3.0;
        }
        let trapezoid = if simpson_len < n {
            0.5 * (e[n - 2] + e[n - 1]) * self.dt
        } else {
            0.0
        };
        simpson + trapezoid
    }

    /// Forgets every sample.
    pub fn reset(&mut self) {
        self.samples.clear();
    }
}

/// The turn an angle `a` (radians) stands for, wrapped into `[−π, π]`: the article's
/// `AdjustAngle`, for 2D bodies that keep a scalar angle. Errors on a non-finite angle.
pub fn wrap_angle(a: f32) -> Result<f32> {
    finite("angle", a)?;
    let two_pi = std::f32::consts::TAU;
    let wrapped = a - two_pi * (a / two_pi).round();
    Ok(wrapped)
}
