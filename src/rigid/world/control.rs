//! Setting a body's state and pushing it: velocities, position, forces and torques at the
//! centre or at a point, waking. Each call checks the handle and the value first and changes
//! nothing on an error; on the GPU it writes the one field it changed.

use super::*;

impl RigidWorld {
    /// Writes one field of body `i` on both the host copy and (on the GPU) the device.
    pub(super) fn write_field<T: bytemuck::Pod>(&mut self, i: usize, offset: usize, value: T) {
        self.query_epoch = self.query_epoch.wrapping_add(1);
        let bytes = bytemuck::bytes_of_mut(&mut self.bodies[i]);
        bytes[offset..offset + std::mem::size_of::<T>()]
            .copy_from_slice(bytemuck::bytes_of(&value));
        if let Engine::Gpu(g) = &self.engine {
            g.rigid.write_at(
                &g.rigid.bodies,
                body_offset(i as u32) + offset as u64,
                &[value],
            );
        }
    }

    pub(super) fn wake_index(&mut self, i: usize) {
        if self.bodies[i].kind == body_kind::DYNAMIC {
            self.write_field(i, offset_of!(GpuBody, awake), 1u32);
            let motion = 2.0 * self.config.sleep_epsilon;
            self.write_field(i, offset_of!(GpuBody, last_acc) + 12, motion);
        }
    }

    /// Wakes a sleeping body (the book's setAwake(true)).
    ///
    /// # Errors
    /// [`Error::StaleHandle`].
    pub fn wake(&mut self, h: BodyHandle) -> Result<()> {
        let i = self.check(h)?;
        self.wake_index(i);
        Ok(())
    }

    /// Sets a body's linear velocity and wakes it.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite velocity.
    pub fn set_linear_velocity(&mut self, h: BodyHandle, v: Vec3) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("linear velocity", v)?;
        self.write_field(i, offset_of!(GpuBody, lin_vel), v);
        self.wake_index(i);
        Ok(())
    }

    /// Sets a body's angular velocity (world) and wakes it.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite velocity.
    pub fn set_angular_velocity(&mut self, h: BodyHandle, w: Vec3) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("angular velocity", w)?;
        self.write_field(i, offset_of!(GpuBody, ang_vel), w);
        self.wake_index(i);
        Ok(())
    }

    /// Moves a body's origin to `p` (teleport) and wakes it. For a body whose centre of mass
    /// is off its origin ([`crate::rigid::mass`]) the record's position is placed by the
    /// body's orientation, read from the device first on the GPU (blocking).
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite position; GPU readback
    /// errors.
    pub fn set_position(&mut self, h: BodyHandle, p: Vec3) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("position", p)?;
        if self.centre_at(i) != Vec3::ZERO {
            self.sync_body(i)?;
        }
        let at = self.centre_position(i, p, self.bodies[i].orient);
        crate::error::finite3("position", at)?;
        self.write_field(i, offset_of!(GpuBody, pos), at);
        self.wake_index(i);
        Ok(())
    }

    /// Adds a force through the centre of mass for the next step, and wakes the body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite force.
    pub fn add_force(&mut self, h: BodyHandle, f: Vec3) -> Result<()> {
        self.add_force_at_point(h, f, None)
    }

    /// Adds a force at a world point (force plus the torque (p − c) × f about the body's centre
    /// of mass c) for the next step, and wakes the body. On the GPU the centre is the host's
    /// last known one (the last `read_bodies`, or where it was added) — read first if it moved
    /// far.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for non-finite input.
    pub fn add_force_at_point(
        &mut self,
        h: BodyHandle,
        f: Vec3,
        point: Option<Vec3>,
    ) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("force", f)?;
        let torque = match point {
            Some(p) => {
                crate::error::finite3("force point", p)?;
                (p - self.bodies[i].pos.xyz()).cross(f)
            }
            None => Vec3::ZERO,
        };
        let force = self.bodies[i].force + f.extend(0.0);
        let torque = self.bodies[i].torque + torque.extend(0.0);
        self.write_field(i, offset_of!(GpuBody, force), force);
        self.write_field(i, offset_of!(GpuBody, torque), torque);
        self.forced.push(i);
        self.wake_index(i);
        Ok(())
    }

    /// Adds a force (world direction) at a point given in the body's own frame, for the next
    /// step, and wakes the body (the book's addForceAtBodyPoint). On the GPU the body's pose is
    /// the host's last known one, as for [`RigidWorld::add_force_at_point`].
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for non-finite input.
    pub fn add_force_at_body_point(
        &mut self,
        h: BodyHandle,
        f: Vec3,
        body_point: Vec3,
    ) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("body point", body_point)?;
        let b = self.bodies[i];
        // The point is given from the body's origin; the record is at its centre of mass.
        let arm = body_point - self.centre_at(i);
        let world = b.pos.xyz() + crate::rigid::math::quat_rotate(b.orient, arm);
        self.add_force_at_point(h, f, Some(world))
    }

    /// Adds a torque (world) for the next step, and wakes the body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a non-finite torque.
    pub fn add_torque(&mut self, h: BodyHandle, t: Vec3) -> Result<()> {
        let i = self.check(h)?;
        crate::error::finite3("torque", t)?;
        let torque = self.bodies[i].torque + t.extend(0.0);
        self.write_field(i, offset_of!(GpuBody, torque), torque);
        self.forced.push(i);
        self.wake_index(i);
        Ok(())
    }
}
