//! Kinematic targets: a kinematic body told where to be after the next step moves there with
//! the velocities that take it there (so what it touches is pushed and carried as by a body
//! moving, not teleported), then stops unless given another target.
//!
//! At the step that follows [`RigidWorld::set_kinematic_target`] the body is written at its
//! start pose with the linear velocity (target − start)/dt and the angular velocity of the
//! rotation from the start orientation to the target's over dt; the step integrates it there
//! (to rounding, and to the first-order error of the orientation update for a large turn). At
//! the step after, it is written exactly at its target, which is the start pose of a new target
//! or, without one, where it stays, its velocities zero. The start pose of a body not moving
//! to a target is the host's copy (what was last written or read: on the GPU, read the bodies
//! first if it moved by a velocity you set).

use super::*;
use crate::rigid::math::quat_mul;

/// A kinematic body moving to its target: slot, generation, target position and orientation.
pub(super) type Move = (u32, u32, Vec3, Vec4);

/// The world's kinematic targets.
#[derive(Default)]
pub(super) struct KinematicTargets {
    /// Targets set since the last step, by slot (the last set wins).
    pub(super) queued: Vec<Move>,
    /// The bodies the last step moved to a target.
    pub(super) moving: Vec<Move>,
}

impl RigidWorld {
    /// Moves a kinematic body to `position` and `rotation` over the next step (see the module
    /// docs), and wakes what it touches as it moves.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for a body that is not kinematic, a
    /// non-finite position or a zero or non-finite rotation.
    pub fn set_kinematic_target(
        &mut self,
        h: BodyHandle,
        position: Vec3,
        rotation: glam::Quat,
    ) -> Result<()> {
        let i = self.check(h)?;
        if self.bodies[i].kind != body_kind::KINEMATIC {
            return Err(Error::InvalidInput {
                what: "kinematic target",
                value: format!("body {} is not kinematic", h.index),
                fix: "give targets to bodies made with RigidBody::kinematic(); move others with \
                      set_position and set_rotation",
            });
        }
        crate::error::finite3("kinematic target position", position)?;
        let q = crate::rigid::model::unit_quat("kinematic target rotation", rotation)?;
        let t = &mut self.kinematic.queued;
        t.retain(|m| m.0 != i as u32);
        t.push((i as u32, self.generations[i], position, q));
        Ok(())
    }

    /// Writes this step's kinematic motion (called by the step with its dt).
    pub(super) fn kinematic_to_velocities(&mut self, dt: f32) {
        if self.kinematic.queued.is_empty() && self.kinematic.moving.is_empty() {
            return;
        }
        let live = |w: &Self, m: &Move| {
            w.alive.get(m.0 as usize) == Some(&true) && w.generations[m.0 as usize] == m.1
        };
        let queued = std::mem::take(&mut self.kinematic.queued);
        let moving = std::mem::take(&mut self.kinematic.moving);
        // Those that reached a target last step sit exactly at it.
        for m in &moving {
            if !live(self, m) {
                continue;
            }
            let i = m.0 as usize;
            self.write_field(i, offset_of!(GpuBody, pos), m.2);
            // A kinematic body's inverse inertia is zero in any orientation: only the pose moves.
            self.write_field(i, offset_of!(GpuBody, orient), m.3);
            if !queued.iter().any(|q| q.0 == m.0) {
                self.write_field(i, offset_of!(GpuBody, lin_vel), Vec3::ZERO);
                self.write_field(i, offset_of!(GpuBody, ang_vel), Vec3::ZERO);
            }
        }
        for m in queued {
            if !live(self, &m) {
                continue;
            }
            let i = m.0 as usize;
            let b = self.bodies[i];
            let v = (m.2 - b.pos.xyz()) / dt;
            // The rotation from the start orientation to the target's, the short way round.
            let mut d = quat_mul(
                m.3,
                Vec4::new(-b.orient.x, -b.orient.y, -b.orient.z, b.orient.w),
            );
            if d.w < 0.0 {
                d = -d;
            }
            let s = d.xyz().length();
            let w = if s > 0.0 {
                d.xyz() / s * (2.0 * s.atan2(d.w) / dt)
            } else {
                Vec3::ZERO
            };
            self.write_field(i, offset_of!(GpuBody, lin_vel), v);
            self.write_field(i, offset_of!(GpuBody, ang_vel), w);
            // The integrator moves awake bodies only.
            self.write_field(i, offset_of!(GpuBody, awake), 1u32);
            self.kinematic.moving.push(m);
        }
    }
}
