//! Constraint dynamics after Witkin: particles held on wires and at fixed distances by forces
//! solved from Lagrange multipliers each step (article 002-4; Witkin, Gleicher & Welch,
//! "Interactive Dynamics", 1990, and Witkin's course notes on constrained dynamics).
//!
//! Each constraint is an implicit function `c(q) = 0` of the particle positions q. Its
//! Jacobian `J = ∂c/∂q` gives the directions in which the constraint may push (normal to the
//! allowed motion, so the force does no work), and the force is `C = Jᵀ·λ`. Differentiating twice,
//! `c̈ = J·q̈ + J̇·q̇`, and with `q̈ = W·(Q + C)` (W the inverse masses, Q the applied forces) the
//! multipliers solve the linear system
//!
//! `(J·W·Jᵀ)·λ = −J̇·q̇ − J·W·Q − ks·c − kd·ċ`.
//!
//! Without the last two terms this only keeps `c̈ = 0`, and the errors of integration make c
//! drift away from 0. The article adds feedback forces `α·c·∇c + β·ċ·∇c` for that, with "magic"
//! constants; Witkin's notes put the same feedback into the multiplier equation instead, as
//! here, so the constraint error obeys `c̈ + kd·ċ + ks·c = 0`: a damped oscillator of frequency
//! `√ks` and damping ratio `kd/(2√ks)` ([`DriftFeedback::critically_damped`] sets ratio 1),
//! independent of the masses. The system is solved with the Crout LU of [`super::lu`] (`J·W·Jᵀ` is m×m for m
//! constraints; it is symmetric positive definite when the constraints are independent). Each
//! step then integrates by semi-implicit Euler: `v += dt·W·(Q + C)`, then `x += dt·v`.
//!
//! Every constraint function is scaled so that c is, to first order, the geometric error in
//! metres: `(|d|² − r²)/(2r)` for a distance r (Witkin's circle `x² + y² − R²` divided by 2R,
//! which keeps his smooth quadratic form but gives ks and kd the same meaning for every radius).
//!
//! **How large does the drift get?** Semi-implicit Euler enforces `c̈ = −ks·c − kd·ċ` only at the
//! start of each step. Expanding c over one step, a constraint with Hessian H (`I/r` for a
//! distance r) picks up a position error `−½·dt²·vᵀHv` each step and a rate error
//! `dt·Δ(vᵀHv)`. Under the feedback these act as a forcing of about
//! `F = dt·(½·kd·vᵀHv + 1.5·|d(vᵀHv)/dt|)`, and a critically damped oscillator answers a
//! forcing bounded by F with `|c| ≤ F/ks`. So the drift scales with dt and falls as the feedback
//! frequency rises, up to the stability limit of the integrator (keep `frequency·dt` well below
//! 1). With no feedback the position errors add up step after step.
//!
//! State is `f64`: the drift of a constraint over thousands of steps is the quantity users
//! watch, and the LU it feeds is `f64` too. Dense `J·W·Jᵀ` costs O(m³) a step, right for a few
//! dozen constraints (ropes, ragdoll-like toys, beads), not for cloth.

use super::check::{direction_dvec3, finite_dvec3, non_negative_f64, positive_f64};
use super::lu::LuDecomposition;
use crate::error::{Error, Result};
use glam::DVec3;

/// A particle of a [`WitkinSystem`], by its index in the order of [`WitkinSystem::add_particle`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParticleId(pub usize);

/// One scalar constraint `c(q) = 0` on one or two particles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Constraint {
    /// The particle stays at distance `radius` from the fixed point `center`: a bead on a circular
    /// wire for motion in a plane (add [`Constraint::OnPlane`] to hold it in that plane), a
    /// pendulum bob on a rigid rod.
    OnSphere {
        /// The particle held.
        particle: ParticleId,
        /// The fixed point, in metres.
        center: DVec3,
        /// The distance, in metres; positive.
        radius: f64,
    },
    /// The particle stays on the plane through `point` with normal `normal` (any non-zero
    /// length).
    OnPlane {
        /// The particle held.
        particle: ParticleId,
        /// A point of the plane.
        point: DVec3,
        /// The plane's normal; normalized when the constraint is added.
        normal: DVec3,
    },
    /// Two particles stay `length` apart: a massless rigid rod.
    Distance {
        /// One end.
        a: ParticleId,
        /// The other end; must differ from `a`.
        b: ParticleId,
        /// The distance, in metres; positive.
        length: f64,
    },
}

/// The gains that pull a drifting constraint back: `c̈ = −stiffness·c − damping·ċ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DriftFeedback {
    /// ks, in 1/s².
    pub stiffness: f64,
    /// kd, in 1/s.
    pub damping: f64,
}

impl DriftFeedback {
    /// No feedback: the constraints only hold `c̈ = 0`, and their error drifts.
    pub const NONE: DriftFeedback = DriftFeedback {
        stiffness: 0.0,
        damping: 0.0,
    };

    /// Feedback that returns a drifted constraint to 0 as fast as possible without overshoot:
    /// `ks = ω²`, `kd = 2ω` for a frequency ω in rad/s. Keep `ω·dt` well below 1. Errors on a
    /// frequency that is not positive.
    pub fn critically_damped(frequency: f64) -> Result<Self> {
        positive_f64("witkin.feedback.frequency", frequency)?;
        Ok(DriftFeedback {
            stiffness: frequency * frequency,
            damping: 2.0 * frequency,
        })
    }
}

/// What one constraint contributes at the current state.
struct Row {
    /// c(q), metres to first order.
    value: f64,
    /// ċ = J·q̇.
    rate: f64,
    /// J̇·q̇.
    curvature: f64,
    /// The non-zero blocks of J: (particle index, ∂c/∂x of that particle).
    jacobian: [(usize, DVec3); 2],
    /// How many of `jacobian`'s blocks are used.
    blocks: usize,
}

/// Particles, constraints and gravity, stepped by Witkin's method.
#[derive(Clone, Debug, PartialEq)]
pub struct WitkinSystem {
    positions: Vec<DVec3>,
    velocities: Vec<DVec3>,
    inverse_masses: Vec<f64>,
    /// Applied forces for the next step, beyond gravity; cleared by each step.
    forces: Vec<DVec3>,
    constraints: Vec<Constraint>,
    gravity: DVec3,
    feedback: DriftFeedback,
}

impl WitkinSystem {
    /// An empty system with gravitational acceleration `gravity` (m/s²) and drift feedback
    /// `feedback`. Errors on a non-finite gravity or a negative or non-finite gain.
    pub fn new(gravity: DVec3, feedback: DriftFeedback) -> Result<Self> {
        finite_dvec3("witkin.gravity", gravity)?;
        non_negative_f64("witkin.feedback.stiffness", feedback.stiffness)?;
        non_negative_f64("witkin.feedback.damping", feedback.damping)?;
        Ok(WitkinSystem {
            positions: Vec::new(),
            velocities: Vec::new(),
            inverse_masses: Vec::new(),
            forces: Vec::new(),
            constraints: Vec::new(),
            gravity,
            feedback,
        })
    }

    /// Adds a particle and returns its id. Errors, adding nothing, on a non-finite position or
    /// velocity or a mass that is not positive and finite.
    pub fn add_particle(
        &mut self,
        position: DVec3,
        velocity: DVec3,
        mass: f64,
    ) -> Result<ParticleId> {
        finite_dvec3("witkin.particle.position", position)?;
        finite_dvec3("witkin.particle.velocity", velocity)?;
        positive_f64("witkin.particle.mass", mass)?;
        self.positions.push(position);
        self.velocities.push(velocity);
        self.inverse_masses.push(1.0 / mass);
        self.forces.push(DVec3::ZERO);
        Ok(ParticleId(self.positions.len() - 1))
    }

    /// Adds a constraint and returns its index (the order of [`Self::constraint_errors`]). It need
    /// not hold yet: the drift feedback pulls it in. Errors, adding nothing, on a particle id this
    /// system does not have, a distance constraint from a particle to itself, or a non-finite
    /// or non-positive geometric field.
    pub fn add_constraint(&mut self, constraint: Constraint) -> Result<usize> {
        let stored = match constraint {
            Constraint::OnSphere {
                particle,
                center,
                radius,
            } => {
                self.check_particle(particle)?;
                finite_dvec3("witkin.constraint.center", center)?;
                positive_f64("witkin.constraint.radius", radius)?;
                constraint
            }
            Constraint::OnPlane {
                particle,
                point,
                normal,
            } => {
                self.check_particle(particle)?;
                finite_dvec3("witkin.constraint.point", point)?;
                direction_dvec3("witkin.constraint.normal", normal)?;
                let unit = normal.normalize_or_zero();
                direction_dvec3("witkin.constraint.normal (too small to normalize)", unit)?;
                Constraint::OnPlane {
                    particle,
                    point,
                    normal: unit,
                }
            }
            Constraint::Distance { a, b, length } => {
                self.check_particle(a)?;
                self.check_particle(b)?;
                if a == b {
                    return Err(Error::InvalidInput {
                        what: "witkin.constraint.distance ends",
                        value: format!("a = b = {}", a.0),
                        fix: "join two different particles",
                    });
                }
                positive_f64("witkin.constraint.length", length)?;
                constraint
            }
        };
        self.constraints.push(stored);
        Ok(self.constraints.len() - 1)
    }

    fn check_particle(&self, id: ParticleId) -> Result<()> {
        if id.0 < self.positions.len() {
            Ok(())
        } else {
            Err(Error::InvalidInput {
                what: "witkin.constraint particle",
                value: format!("id {} of {} particles", id.0, self.positions.len()),
                fix: "name a particle returned by add_particle on this system",
            })
        }
    }

    /// Adds `force` (N) to the particle for the next step only. Errors, changing nothing, on a
    /// missing particle or a non-finite force.
    pub fn add_force(&mut self, particle: ParticleId, force: DVec3) -> Result<()> {
        self.check_particle(particle)?;
        finite_dvec3("witkin.force", force)?;
        self.forces[particle.0] += force;
        Ok(())
    }

    /// Particle positions, in id order (metres).
    pub fn positions(&self) -> &[DVec3] {
        &self.positions
    }

    /// Particle velocities, in id order (m/s).
    pub fn velocities(&self) -> &[DVec3] {
        &self.velocities
    }

    /// The constraints, in the order they were added (plane normals normalized).
    pub fn constraints(&self) -> &[Constraint] {
        &self.constraints
    }

    /// Each constraint's current value c: to first order its geometric error in metres (distance
    /// off the sphere or plane, stretch of the rod).
    pub fn constraint_errors(&self) -> Vec<f64> {
        self.constraints.iter().map(|c| self.row(c).value).collect()
    }

    /// Kinetic energy `Σ ½·m·|v|²`, in joules.
    pub fn kinetic_energy(&self) -> f64 {
        self.velocities
            .iter()
            .zip(&self.inverse_masses)
            .map(|(v, w)| 0.5 * v.length_squared() / w)
            .sum()
    }

    /// Potential energy in gravity, `−Σ m·g·x`, in joules (zero at the origin).
    pub fn potential_energy(&self) -> f64 {
        self.positions
            .iter()
            .zip(&self.inverse_masses)
            .map(|(x, w)| -self.gravity.dot(*x) / w)
            .sum()
    }

    /// The constraint force on each particle, `Jᵀ·λ`, at the current state with the applied
    /// forces now pending (N). Errors when the constraints are dependent at this state (the
    /// matrix `J·W·Jᵀ` is singular up to rounding), for example a particle on the centre of its
    /// sphere or two constraints that say the same thing.
    pub fn constraint_forces(&self) -> Result<Vec<DVec3>> {
        let applied = self.applied_forces();
        let rows: Vec<Row> = self.constraints.iter().map(|c| self.row(c)).collect();
        let mut forces = vec![DVec3::ZERO; self.positions.len()];
        if rows.is_empty() {
            return Ok(forces);
        }
        let m = rows.len();
        let w = &self.inverse_masses;
        let mut matrix = vec![0.0; m * m];
        let mut rhs = vec![0.0; m];
        for (i, ri) in rows.iter().enumerate() {
            for (j, rj) in rows.iter().enumerate() {
                let mut sum = 0.0;
                for &(p, gi) in &ri.jacobian[..ri.blocks] {
                    for &(q, gj) in &rj.jacobian[..rj.blocks] {
                        if p == q {
                            sum += gi.dot(gj) * w[p];
                        }
                    }
                }
                matrix[i * m + j] = sum;
            }
            let jwq: f64 = ri.jacobian[..ri.blocks]
                .iter()
                .map(|&(p, g)| g.dot(applied[p]) * w[p])
                .sum();
            rhs[i] = -ri.curvature
                - jwq
                - self.feedback.stiffness * ri.value
                - self.feedback.damping * ri.rate;
        }
        let lambda =
            LuDecomposition::new("witkin.constraint_matrix (J·W·Jᵀ)", m, &matrix)?.solve(&rhs)?;
        for (row, l) in rows.iter().zip(lambda) {
            for &(p, g) in &row.jacobian[..row.blocks] {
                forces[p] += g * l;
            }
        }
        Ok(forces)
    }

    /// Advances the system by `dt` seconds: solve the constraint forces, then semi-implicit
    /// Euler. Clears the forces added by [`Self::add_force`].
    ///
    /// Errors, leaving the system exactly as it was, on a `dt` that is not positive and finite,
    /// on dependent constraints (see [`Self::constraint_forces`]), or when the step would make
    /// the state non-finite (a far too large dt or gain).
    pub fn step(&mut self, dt: f64) -> Result<()> {
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(Error::InvalidTimeStep(dt as f32));
        }
        let constraint = self.constraint_forces()?;
        let applied = self.applied_forces();
        let mut velocities = self.velocities.clone();
        let mut positions = self.positions.clone();
        for (i, (v, x)) in velocities.iter_mut().zip(&mut positions).enumerate() {
            *v += (applied[i] + constraint[i]) * (self.inverse_masses[i] * dt);
            *x += *v * dt;
        }
        if let Some(bad) = positions.iter().chain(&velocities).find(|v| !v.is_finite()) {
            return Err(Error::InvalidInput {
                what: "witkin.step state",
                value: format!("{bad:?} after dt = {dt}"),
                fix: "take a smaller dt or lower the drift feedback gains (keep frequency·dt < 1)",
            });
        }
        self.velocities = velocities;
        self.positions = positions;
        self.forces.iter_mut().for_each(|f| *f = DVec3::ZERO);
        Ok(())
    }

    /// Gravity plus the pending applied force, per particle.
    fn applied_forces(&self) -> Vec<DVec3> {
        self.forces
            .iter()
            .zip(&self.inverse_masses)
            .map(|(f, w)| *f + self.gravity / *w)
            .collect()
    }

    /// Value, rate, J̇·q̇ and Jacobian blocks of one constraint at the current state.
    fn row(&self, constraint: &Constraint) -> Row {
        let (x, v) = (&self.positions, &self.velocities);
        match *constraint {
            Constraint::OnSphere {
                particle,
                center,
                radius,
            } => {
                let p = particle.0;
                let d = x[p] - center;
                let grad = d / radius;
                Row {
                    value: (d.length_squared() - radius * radius) / (2.0 * radius),
                    rate: grad.dot(v[p]),
                    curvature: v[p].length_squared() / radius,
                    jacobian: [(p, grad), (p, DVec3::ZERO)],
                    blocks: 1,
                }
            }
            Constraint::OnPlane {
                particle,
                point,
                normal,
            } => {
                let p = particle.0;
                Row {
                    value: normal.dot(x[p] - point),
                    rate: normal.dot(v[p]),
                    curvature: 0.0,
                    jacobian: [(p, normal), (p, DVec3::ZERO)],
                    blocks: 1,
                }
            }
            Constraint::Distance { a, b, length } => {
                let (a, b) = (a.0, b.0);
                let d = x[a] - x[b];
                let w = v[a] - v[b];
                let grad = d / length;
                Row {
                    value: (d.length_squared() - length * length) / (2.0 * length),
                    rate: grad.dot(w),
                    curvature: w.length_squared() / length,
                    jacobian: [(a, grad), (b, -grad)],
                    blocks: 2,
                }
            }
        }
    }
}
