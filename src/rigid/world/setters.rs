//! A body's properties between steps: rotation, damping, its own acceleration (gravity scale),
//! continuous collision, sleeping, and impulses. Each call checks the handle and the value
//! first and changes nothing on an error; on the GPU it writes only the fields it changes, so
//! the device's motion of the body is kept.
//!
//! An impulse is the one edit that needs the body's current velocity, which on the GPU only the
//! device knows. So it is queued and given to the next step as a force of J/dt (and a torque
//! of L/dt) through its centre of mass: after that step the body's momentum has changed by
//! exactly J (and its angular momentum by L), as an impulse changes it, on both backends alike;
//! it acts over the step rather than at its start, so the position moves by half of J·dt/m less
//! than it would after an instant kick.

use super::*;
use crate::rigid::model::{check_damping, unit_quat};

/// An impulse queued for the next step: body slot and its generation, linear impulse (N·s),
/// angular impulse (N·m·s), both in the world frame.
pub(super) type Impulse = (u32, u32, Vec3, Vec3);

impl RigidWorld {
    /// Sets a body's orientation (its world inverse inertia with it) about its origin and
    /// wakes it. A body whose centre of mass is off its origin ([`crate::rigid::mass`]) keeps
    /// its origin where it is, so its centre moves; on the GPU it is read from the device
    /// first (blocking).
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a zero or non-finite quaternion
    /// (any other is normalised); GPU readback errors.
    pub fn set_rotation(&mut self, h: BodyHandle, rotation: glam::Quat) -> Result<()> {
        let i = self.check(h)?;
        let q = unit_quat("rotation", rotation)?;
        if self.centre_at(i) != Vec3::ZERO {
            self.sync_body(i)?;
            let b = self.bodies[i];
            let origin = self.origin_of(i, &b);
            let at = self.centre_position(i, origin, q);
            self.write_field(i, offset_of!(GpuBody, pos), at);
        }
        let inv = self.bodies[i].inv_inertia;
        let world = crate::rigid::integrate::world_inverse_inertia(q, &inv);
        self.write_field(i, offset_of!(GpuBody, orient), q);
        self.write_field(i, offset_of!(GpuBody, inv_inertia_world), world);
        self.wake_index(i);
        Ok(())
    }

    /// Sets a body's linear and angular damping: the fraction of its velocity kept per second
    /// (1: none; rapier's damping c is about e^−c here), as `RigidBody::damping`.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a damping outside (0, 1].
    pub fn set_damping(&mut self, h: BodyHandle, linear: f32, angular: f32) -> Result<()> {
        let i = self.check(h)?;
        check_damping("linear damping", linear)?;
        check_damping("angular damping", angular)?;
        self.write_field(i, offset_of!(GpuBody, lin_vel) + 12, linear);
        self.write_field(i, offset_of!(GpuBody, ang_vel) + 12, angular);
        Ok(())
    }

    /// Sets a body's own constant acceleration (in place of the world's gravity, as
    /// `RigidBody::acceleration`), and wakes it.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite acceleration.
    pub fn set_acceleration(&mut self, h: BodyHandle, a: Vec3) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("acceleration", a)?;
        // xyz only: w holds the breaking impulse.
        self.write_field(i, offset_of!(GpuBody, acc), a);
        self.wake_index(i);
        Ok(())
    }

    /// Gives a body `scale` times the world's gravity (0 floats it, −1 makes it rise), as
    /// [`RigidWorld::set_acceleration`] with `scale × RigidConfig::gravity`.
    ///
    /// # Errors
    /// As [`RigidWorld::set_acceleration`].
    pub fn set_gravity_scale(&mut self, h: BodyHandle, scale: f32) -> Result<()> {
        crate::error::finite("gravity scale", scale)?;
        self.set_acceleration(h, self.config.gravity * scale)
    }

    /// Turns continuous collision (the `ccd` stage) on or off for a body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`].
    pub fn set_ccd(&mut self, h: BodyHandle, yes: bool) -> Result<()> {
        let i = self.check(h)?;
        let before = self.ccd_convex_count(&self.bodies[i], &self.body_shapes[i]);
        let flag = super::super::ccd::CCD_FLAG;
        let flags = if yes {
            self.bodies[i].flags | flag
        } else {
            self.bodies[i].flags & !flag
        };
        self.write_field(i, offset_of!(GpuBody, flags), flags);
        let after = self.ccd_convex_count(&self.bodies[i], &self.body_shapes[i]);
        self.ccd_convex_shapes = self.ccd_convex_shapes - before + after;
        Ok(())
    }

    /// Allows or forbids a body to fall asleep; forbidding wakes it.
    ///
    /// # Errors
    /// [`Error::StaleHandle`].
    pub fn set_can_sleep(&mut self, h: BodyHandle, yes: bool) -> Result<()> {
        let i = self.check(h)?;
        self.write_field(i, offset_of!(GpuBody, can_sleep), u32::from(yes));
        if !yes {
            self.wake_index(i);
        }
        Ok(())
    }

    /// Changes a body's momentum by the impulse `j` (N·s, world) through its centre of mass
    /// over the next step (see the module docs), and wakes it.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite impulse.
    pub fn apply_impulse(&mut self, h: BodyHandle, j: Vec3) -> Result<()> {
        self.queue_impulse(h, j, Vec3::ZERO)
    }

    /// Changes a body's angular momentum by `l` (N·m·s, world) over the next step, and wakes
    /// it.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite impulse.
    pub fn apply_torque_impulse(&mut self, h: BodyHandle, l: Vec3) -> Result<()> {
        self.queue_impulse(h, Vec3::ZERO, l)
    }

    /// An impulse `j` at a world point: `j` through the centre of mass and (p − centre) × j
    /// about it, over the next step. On the GPU the centre is the host's last known one, as for
    /// [`RigidWorld::add_force_at_point`].
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for non-finite input.
    pub fn apply_impulse_at_point(&mut self, h: BodyHandle, j: Vec3, point: Vec3) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("impulse point", point)?;
        let arm = point - self.bodies[i].pos.xyz();
        self.queue_impulse(h, j, arm.cross(j))
    }

    fn queue_impulse(&mut self, h: BodyHandle, j: Vec3, l: Vec3) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("impulse", j)?;
        crate::error::finite3("angular impulse", l)?;
        self.impulses.push((i as u32, self.generations[i], j, l));
        self.wake_index(i);
        Ok(())
    }

    /// Turns the queued impulses into this step's forces (called by the step with its dt).
    pub(super) fn impulses_to_forces(&mut self, dt: f32) {
        for (i, generation, j, l) in std::mem::take(&mut self.impulses) {
            let i = i as usize;
            // A body removed since (its slot free or another body's): its impulse goes with it.
            if !self.alive.get(i).copied().unwrap_or(false) || self.generations[i] != generation {
                continue;
            }
            let force = self.bodies[i].force + (j / dt).extend(0.0);
            let torque = self.bodies[i].torque + (l / dt).extend(0.0);
            self.write_field(i, offset_of!(GpuBody, force), force);
            self.write_field(i, offset_of!(GpuBody, torque), torque);
            self.forced.push(i);
        }
    }
}
