//! Gameplay helpers: host-side math that game code puts on top of the physics, from the seed
//! articles of `reference/articles-catalogue.md` (seed 002), with their errata corrected.
//!
//! | Module | What | Article |
//! |---|---|---|
//! | [`intercept`](mod@intercept) | where to aim at a moving target: straight shots (quadratic), shots under gravity (quartic), first-order and iterative leads | 002-2, 002-7 |
//! | [`pid`] | a PID controller that turns a body toward a heading with torque; the article's windowed scalar PID | 002-6 |
//! | [`lu`] | Crout LU decomposition with partial pivoting: solve, inverse, determinant | 002-9 |
//! | [`witkin`] | constraint dynamics by Lagrange multipliers with drift feedback: beads on wires, rods, pendulums | 002-4 |
//! | [`intersect`] | ray casts against planes, triangles, spheres, quadrics and tori by polynomial roots | 002-11 |
//! | [`homogeneous`] | 2D homogeneous points and lines, line–circle, conic against quadratic curves | 002-11 |
//! | [`roots`] | real roots of polynomials (stable quadratic formula; isolation by the derivative's roots above degree 2) | 002-11 |
//!
//! ```
//! use glam::Vec3;
//! use wgphys::gameplay::{intercept, Shooter, Target};
//! // The catalogue's first target-leading vector: a target 10 m away crossing at 1 m/s, shot at
//! // 2 m/s, is met after 10/√3 s.
//! let shooter = Shooter { position: Vec3::ZERO, velocity: Vec3::ZERO, projectile_speed: 2.0 };
//! let target = Target { position: Vec3::new(10.0, 0.0, 0.0), velocity: Vec3::Y };
//! let aim = intercept(&shooter, &target)?.expect("a slower target can always be hit");
//! assert!((aim.time - 5.773503).abs() < 1e-5);
//! // Fire along `aim.direction`; the projectile meets the target at `aim.point`.
//! assert!((aim.point - Vec3::new(10.0, 5.773503, 0.0)).length() < 1e-5);
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! Errata of the articles, and what the helpers do instead:
//!
//! - 002-2: the fixed-point lead stopped on `t − old_t < EPSILON` without `abs`; here
//!   `|Δt| < tolerance`. Its direct solution divided by zero when target and projectile speeds
//!   are equal; here the stable quadratic formula gives the linear root.
//! - 002-6: Simpson's rule multiplied by `1/(3·dt)`; here by `dt/3`, and an even number of
//!   samples adds the newest interval by the trapezoid rule instead of misweighting it.
//! - 002-7: `v_y` for `v_Ty` in the quadratic's `a` (a typo; the vector form is used).
//! - 002-11: the line–plane formula's `c·y0` is `c·z0`; the rational-curve worked example is
//!   inconsistent and is not used (the rational case is tested on an exact circle instead).
//! - 002-4: `T = m·g·cos θ` is a pendulum's tension only at rest; the solver computes the
//!   constraint force from the full state (`J̇·q̇` carries the centripetal part).
//! - 002-9: the article's Crout recipe has no pivoting; here rows are pivoted (`P·A = L·U`).
//!
//! Precision: [`intercept`](mod@intercept) and [`pid`] take and return `f32` glam types, as the engine's bodies
//! are `f32`, and compute the intercept polynomial in `f64`. The solvers ([`lu`], [`witkin`],
//! [`intersect`], [`homogeneous`], [`roots`]) are `f64` throughout: they run on the host, are
//! small, and lose digits to conditioning (LU), accumulated drift (Witkin) or cancellation
//! (quartics) that `f32` cannot spare.
//!
//! Every function returns `Result`: NaN, infinite, zero-length or out-of-range input is an
//! [`crate::error::Error::InvalidInput`] naming the field, never a panic or a NaN answer, and a
//! failed call leaves any state it was given unchanged.

mod check;
pub mod homogeneous;
pub mod intercept;
pub mod intersect;
pub mod lu;
pub mod pid;
pub mod roots;
pub mod witkin;

pub use homogeneous::{
    closest_point_on_line, conic_intersections, directed_line, line_circle, line_through, meet,
    signed_distance, to_cartesian, Conic, QuadraticCurve,
};
pub use intercept::{
    intercept, intercept_ballistic, lead_first_order, lead_iterative, Aim, Shooter, Target,
};
pub use intersect::{ray_plane, ray_quadric, ray_sphere, ray_torus, ray_triangle, Hit, Ray};
pub use lu::LuDecomposition;
pub use pid::{wrap_angle, PidGains, TurnController, WindowedPid};
pub use roots::{quadratic_roots, real_roots, real_roots_in};
pub use witkin::{Constraint, DriftFeedback, ParticleId, WitkinSystem};
