//! The gameplay helpers (`wgphys::gameplay`) against closed forms, the catalogue's numeric test
//! vectors (reference/articles-catalogue.md, "Numeric test vectors") and brute force.
//!
//! * `roots`: quadratic closed forms and cancellation, polynomials built from known roots,
//!   double roots, the catalogue's quartic, random quartics against sign changes on a grid.
//! * `intercept`: the catalogue's target-leading table, first-order and iterative leads, moving
//!   shooters, gravity against the range equation and against the residual of random shots.
//! * `pid`: the windowed PID's catalogue vectors and Simpson exactness, the turn controller's
//!   overshoot against the damping-ratio formula, settling in 3D, bias and anti-windup.
//! * `lu`: the catalogue's Crout example, inverse and solutions within condition-number bounds,
//!   random matrices against Gaussian elimination, singular and bad input.
//! * `witkin`: the catalogue's pendulum force, a bead on a tilted wire and a double pendulum over
//!   10 s against the drift bound, momentum and energy, bad input leaving the system unchanged.
//! * `intersect`: the catalogue's homogeneous-geometry vectors, rays against closed forms and
//!   against sampling of the implicit function along the ray.
//!
//! Every tolerance carries a comment saying where its size comes from.

#[path = "gameplay/intercept.rs"]
mod intercept;
#[path = "gameplay/intersect.rs"]
mod intersect;
#[path = "gameplay/lu.rs"]
mod lu;
#[path = "gameplay/pid.rs"]
mod pid;
#[path = "gameplay/roots.rs"]
mod roots;
#[path = "gameplay/support.rs"]
mod support;
#[path = "gameplay/witkin.rs"]
mod witkin;
