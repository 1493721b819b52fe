//! Each body's centre of mass in its frame, and the conversions between the body's origin
//! (what the user places, reads and moves) and its centre (what the GPU record holds and the
//! solver turns the body about). The rules are `rigid::mass`'s, "The body's origin and its
//! centre of mass".
//!
//! A body's centre is fixed when it is added and moves only when its colliders change
//! ([`RigidWorld::move_centre`], called by the collider edits of `world/colliders.rs`): the
//! record's position moves by the shift turned into the world, the new centre takes the
//! velocity of that point of the body, and everything kept relative to the centre (the shapes'
//! offsets, the joints' anchors, the generators' points) moves back by the shift, so nothing
//! the user placed moves in the world. On the GPU the body is read first (blocking), since the
//! shift is turned by its current orientation.

use super::*;
use crate::rigid::math::quat_rotate;
use std::sync::Arc;

impl RigidWorld {
    /// Sets body slot `i`'s centre (the slot exists).
    pub(super) fn set_centre_slot(&mut self, i: usize, centre: Vec3) {
        if self.centres[i] != centre {
            self.centres[i] = centre;
            self.centres_shared = None;
        }
    }

    /// Body slot `i`'s centre of mass in its frame (zero past the end).
    pub(super) fn centre_at(&self, i: usize) -> Vec3 {
        self.centres.get(i).copied().unwrap_or(Vec3::ZERO)
    }

    /// The centres as the body snapshots share them: empty while every centre is zero (the
    /// snapshots read a missing centre as zero), else one per slot. Kept until a centre
    /// changes.
    pub(super) fn shared_centres(&mut self) -> Arc<[Vec3]> {
        let shared = self.centres_now();
        self.centres_shared = Some(shared.clone());
        shared
    }

    /// [`Self::shared_centres`] without keeping it.
    pub(super) fn centres_now(&self) -> Arc<[Vec3]> {
        if let Some(shared) = &self.centres_shared {
            shared.clone()
        } else if self.centres.iter().all(|c| *c == Vec3::ZERO) {
            Arc::from([])
        } else {
            self.centres.as_slice().into()
        }
    }

    /// The world position of body slot `i`'s origin when its record is `raw`.
    pub(super) fn origin_of(&self, i: usize, raw: &GpuBody) -> Vec3 {
        raw.pos.xyz() - quat_rotate(raw.orient, self.centre_at(i))
    }

    /// The record's position (the centre's) of body slot `i` with its origin at `origin` and
    /// its orientation `orient`.
    pub(super) fn centre_position(&self, i: usize, origin: Vec3, orient: Vec4) -> Vec3 {
        origin + quat_rotate(orient, self.centre_at(i))
    }

    /// Brings the host's copy of body slot `i` up to the device's (blocking; GPU only, and
    /// only once the world has stepped).
    pub(super) fn sync_body(&mut self, i: usize) -> Result<()> {
        if self.steps > 0 {
            if let Engine::Gpu(g) = &self.engine {
                let all: Vec<GpuBody> = g.rigid.read(&g.rigid.bodies, i + 1)?;
                if let Some(b) = all.get(i) {
                    self.bodies[i] = *b;
                    self.query_epoch = self.query_epoch.wrapping_add(1);
                }
            }
        }
        Ok(())
    }

    /// Moves body slot `b`'s centre of mass to `centre` (in its frame), keeping the body's
    /// origin, motion and everything attached to it where they are (see the module docs). The
    /// caller has brought the host's copy of the body up to date ([`Self::sync_body`]).
    pub(super) fn move_centre(&mut self, b: usize, centre: Vec3) -> Result<()> {
        let d = centre - self.centres[b];
        if d == Vec3::ZERO {
            return Ok(());
        }
        let generators: Vec<usize> = (0..self.generators.records.len())
            .filter(|&i| {
                let r = &self.generators.records[i];
                self.generators.described[i].is_some()
                    && (r.body_a as usize == b || r.body_b as usize == b)
            })
            .collect();
        let body = self.bodies[b];
        let shift = quat_rotate(body.orient, d);
        let pos = (body.pos.xyz() + shift).extend(body.pos.w);
        let v = body.lin_vel.xyz() + body.ang_vel.xyz().cross(shift);
        self.write_field(b, offset_of!(GpuBody, pos), pos);
        self.write_field(b, offset_of!(GpuBody, lin_vel), v);
        for id in self.body_shapes[b].clone() {
            self.shapes[id as usize].offset_pos -= d.extend(0.0);
            self.write_shape(id);
        }
        self.plan_dirty = true;
        self.shift_joint_anchors(b as u32, d);
        // The new centre is in place before the generators' points are taken from it.
        self.set_centre_slot(b, centre);
        for i in generators {
            if let Some(g) = self.generators.described[i] {
                let record = self.generator_record(&g)?;
                self.generators.records[i] = record;
                self.generators.edited.push(i as u32);
            }
        }
        Ok(())
    }

    /// Derives every live dynamic body's centre again from its mass specification and its
    /// colliders' parts (a loaded world, whose records already hold the centres).
    #[cfg(feature = "serde")]
    pub(super) fn recompute_centres(&mut self) -> Result<()> {
        self.centres = vec![Vec3::ZERO; self.bodies.len()];
        self.centres_shared = None;
        for b in 0..self.bodies.len() {
            if self.alive[b] && self.bodies[b].kind == body_kind::DYNAMIC {
                let parts: Vec<_> = self.body_shapes[b]
                    .iter()
                    .map(|&id| self.shape_mass[id as usize])
                    .collect();
                let props = crate::rigid::mass::mass_properties(&self.mass_specs[b], &parts)?;
                self.centres[b] = props.centre;
            }
        }
        Ok(())
    }
}
