//! The book's flight simulator (catalogue §8, Fig 11.1): a model aircraft whose forces are all
//! force generators of the engine: two wings with control surfaces, a tailplane, a rudder and a
//! propulsion thrust. The values are those of the book's shipped demo.

use crate::error::Result;
use crate::rigid::{BodyHandle, Collider, ForceGen, ForceGenHandle, RigidBody, RigidWorld};
use glam::{Mat3, Vec3};

/// A tensor from its rows as the book prints them.
fn rows(r: [[f32; 3]; 3]) -> Mat3 {
    Mat3::from_cols_array_2d(&r).transpose()
}

/// The wings' tensors at control −1, 0 and 1 (the shipped demo's: lift −1·vₓ, so the aircraft
/// flies along its −x axis; the controls change that by ∓0.5%).
pub fn wing_tensors() -> (Mat3, Mat3, Mat3) {
    let wing = |lift: f32| rows([[0.0, 0.0, 0.0], [lift, -0.5, 0.0], [0.0, 0.0, 0.0]]);
    (wing(-0.995), wing(-1.0), wing(-1.005))
}

/// The rudder's tensors at control −1, 0 and 1 (a side force ±0.01·vₓ).
pub fn rudder_tensors() -> (Mat3, Mat3, Mat3) {
    let rudder = |side: f32| rows([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [side, 0.0, 0.0]]);
    (rudder(0.01), rudder(0.0), rudder(-0.01))
}

/// The tailplane's fixed tensor.
pub fn tail_tensor() -> Mat3 {
    rows([[0.0, 0.0, 0.0], [-1.0, -0.5, 0.0], [0.0, 0.0, -0.1]])
}

/// The propulsion at full throttle, body frame (N).
pub const FULL_THRUST: Vec3 = Vec3::new(-10.0, 0.0, 0.0);

/// The aircraft: its body and its generators.
#[derive(Clone, Copy, Debug)]
pub struct Aircraft {
    /// The body (2.5 kg).
    pub body: BodyHandle,
    /// The left wing (+z), a control surface.
    pub left_wing: ForceGenHandle,
    /// The right wing (−z), a control surface.
    pub right_wing: ForceGenHandle,
    /// The tailplane.
    pub tail: ForceGenHandle,
    /// The rudder, a control surface.
    pub rudder: ForceGenHandle,
    /// The propulsion.
    pub thrust: ForceGenHandle,
}

impl Aircraft {
    /// Sets the controls, each in [−1, 1]: pitch moves both wings alike, roll them in
    /// opposition, yaw the rudder; `throttle` in [0, 1] scales [`FULL_THRUST`].
    ///
    /// # Errors
    /// [`crate::Error::InvalidInput`] for a control out of range.
    pub fn set_controls(
        &self,
        w: &mut RigidWorld,
        pitch: f32,
        roll: f32,
        yaw: f32,
        throttle: f32,
    ) -> Result<()> {
        let clamp = |c: f32| c.clamp(-1.0, 1.0);
        w.set_generator_control(self.left_wing, clamp(pitch + roll))?;
        w.set_generator_control(self.right_wing, clamp(pitch - roll))?;
        w.set_generator_control(self.rudder, yaw)?;
        w.set_generator_thrust(self.thrust, FULL_THRUST * throttle.clamp(0.0, 1.0))
    }
}

/// Adds the book's aircraft at `at`, flying along −x at `speed` m/s, with its colliders (a
/// fuselage, the wings and the tailplane) so it can land.
///
/// # Errors
/// As [`RigidWorld::add_body`] and [`RigidWorld::add_force_generator`].
pub fn aircraft(w: &mut RigidWorld, at: Vec3, speed: f32) -> Result<Aircraft> {
    // The shipped demo: 2.5 kg, the inertia of a 4 × 2 × 2 m block of 1 kg, damping 0.8.
    let inertia = Mat3::from_diagonal(Vec3::new(8.0, 20.0, 20.0) / 12.0);
    let body = RigidBody::dynamic()
        .position(at)
        .velocity(Vec3::new(-speed, 0.0, 0.0))
        .mass(2.5)
        .inertia(inertia)
        // The book's model: its mass and inertia are about the body's origin, whatever the
        // colliders that draw it weigh.
        .centre_of_mass(Vec3::ZERO)
        .damping(0.8, 0.8)
        .can_sleep(false);
    let colliders = [
        Collider::cuboid(Vec3::new(2.0, 0.25, 0.25)),
        Collider::cuboid(Vec3::new(0.4, 0.05, 2.2))
            .at(Vec3::new(-1.0, 0.0, 0.0), glam::Quat::IDENTITY),
        Collider::cuboid(Vec3::new(0.3, 0.04, 0.8))
            .at(Vec3::new(1.8, 0.0, 0.0), glam::Quat::IDENTITY),
        Collider::cuboid(Vec3::new(0.3, 0.4, 0.04))
            .at(Vec3::new(1.8, 0.4, 0.0), glam::Quat::IDENTITY),
    ];
    let body = w.add_body(body, &colliders)?;
    let (min, base, max) = wing_tensors();
    let left_wing = w.add_force_generator(ForceGen::aero_control(
        body,
        min,
        base,
        max,
        Vec3::new(-1.0, 0.0, 2.0),
    ))?;
    let right_wing = w.add_force_generator(ForceGen::aero_control(
        body,
        min,
        base,
        max,
        Vec3::new(-1.0, 0.0, -2.0),
    ))?;
    let tail = w.add_force_generator(ForceGen::aero(
        body,
        tail_tensor(),
        Vec3::new(2.0, 0.0, 0.0),
    ))?;
    let (min, base, max) = rudder_tensors();
    let rudder = w.add_force_generator(ForceGen::aero_control(
        body,
        min,
        base,
        max,
        Vec3::new(2.0, 0.5, 0.0),
    ))?;
    let thrust = w.add_force_generator(ForceGen::thrust(body, FULL_THRUST, Vec3::ZERO))?;
    Ok(Aircraft {
        body,
        left_wing,
        right_wing,
        tail,
        rudder,
        thrust,
    })
}
