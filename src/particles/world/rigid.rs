//! Particles against a rigid world's shapes ([`ParticleWorld::step_with_rigid`]): which tables
//! the step reads and the checks that both worlds can meet.

use super::*;
use crate::particles::rigid::MAX_RIGID_SHAPES;
use crate::rigid::types::{GpuBody, GpuShape};
use crate::rigid::ParticleTables;
use crate::rigid::RigidWorld;

/// The rigid world of the step being run.
pub(super) enum RigidInput {
    /// On the GPU the kernel is bound to the rigid world's buffers: only the slot count.
    Gpu { shape_count: u32 },
    /// On the CPU, the rigid world's host tables as they were when the step began.
    Cpu {
        bodies: Vec<GpuBody>,
        shapes: Vec<GpuShape>,
    },
}

impl RigidInput {
    /// The CPU twin's tables (none on the GPU).
    pub(super) fn host(&self) -> Option<(&[GpuBody], &[GpuShape])> {
        match self {
            RigidInput::Cpu { bodies, shapes } => Some((bodies, shapes)),
            RigidInput::Gpu { .. } => None,
        }
    }
}

impl ParticleWorld {
    /// Advances the world by `dt` seconds as [`ParticleWorld::step`] does, and collides its
    /// particles with `rigid`'s shapes as they are now (stage `rigid_contacts`, right after
    /// `integrate`).
    ///
    /// Every shape is taken as a static collider at its body's present pose: spheres, boxes,
    /// capsules, half-spaces and planes (convex hulls are skipped), with the restitution and
    /// friction of the shape's material and the particle colliders' contact rules
    /// ([`crate::colliders::resolve_contact`]). A moving body (dynamic or kinematic) lends the
    /// contact its surface velocity at the particle (linear velocity + angular velocity ×
    /// offset from the centre of mass): the contact is resolved in the frame of that surface,
    /// so particles rest on a moving box as on a still one, and friction carries them along.
    /// Collision groups and masks are not read.
    ///
    /// One-way coupling: the particles react, the rigid bodies feel nothing.
    ///
    /// On the GPU no data is read back: the kernel binds the rigid world's own `bodies` and
    /// `shapes` buffers (bound again when they are replaced, see
    /// [`RigidWorld::buffers_generation`]) and reads the poses the device holds when the step
    /// runs, so step the rigid world first in the same queue to collide with its new poses.
    /// On the CPU it copies the rigid world's host tables at the start of the step.
    ///
    /// Cost: every particle tests every shape slot's bounding sphere (on the GPU from tiles of
    /// 64 shapes in workgroup memory), and a workgroup with a particle near a shape tests them
    /// all again to collide: O(particles × shapes) per step, at most [`MAX_RIGID_SHAPES`]
    /// slots. On lavapipe (2 cores) 100k sparks against 100 moving boxes take about 225 ms a
    /// step against 5 ms without the rigid world (BENCHMARKS.md): a spatial lookup is the next
    /// step for larger scenes.
    ///
    /// Differences from a static collider: the contact with a rigid shape comes after the
    /// static colliders and the depth collider, it does not count as a hit for a sub-emitter's
    /// `SubTrigger::Impact`, and its resting-contact fix reads the force fields at the
    /// integrated state.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when the worlds are on different backend kinds or, on the GPU,
    /// not built from one [`crate::gpu::GpuContext`] (or clones of it), [`Error::TooMany`]
    /// beyond [`MAX_RIGID_SHAPES`] shape slots (nothing is changed then); otherwise as
    /// [`ParticleWorld::step`].
    pub fn step_with_rigid(&mut self, dt: f32, rigid: &RigidWorld) -> Result<StepReport> {
        self.rigid = Some(self.attach_rigid(rigid)?);
        let report = self.step(dt);
        self.rigid = None;
        report
    }

    /// As [`ParticleWorld::encode_step`], colliding with `rigid`'s shapes as
    /// [`ParticleWorld::step_with_rigid`] does (recorded into `encoder`: encode the rigid
    /// world's step ahead of it to collide with its new poses).
    ///
    /// On the CPU backend, `encode_step_with_rigid` runs the step at once, exactly as
    /// `step_with_rigid` does, and leaves the encoder alone; it returns the same report.
    ///
    /// # Errors
    /// As [`ParticleWorld::step_with_rigid`].
    pub fn encode_step_with_rigid(
        &mut self,
        dt: f32,
        rigid: &RigidWorld,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<StepReport> {
        self.rigid = Some(self.attach_rigid(rigid)?);
        let report = self.encode_step(dt, encoder);
        self.rigid = None;
        report
    }

    /// Checks that `rigid` can meet this world and binds its buffers (GPU) or copies its
    /// tables (CPU).
    fn attach_rigid(&mut self, rigid: &RigidWorld) -> Result<RigidInput> {
        let tables = rigid.particle_tables();
        let count = match &tables {
            ParticleTables::Gpu { shape_count, .. } => *shape_count,
            ParticleTables::Cpu { shapes, .. } => shapes.len(),
        };
        if count > MAX_RIGID_SHAPES as usize {
            return Err(Error::TooMany {
                what: "rigid shape slots for particles",
                count,
                max: MAX_RIGID_SHAPES,
                fix: "every particle visits every shape slot: collide the particles with a \
                      smaller rigid world, or with static colliders",
            });
        }
        let shape_count = count as u32;
        match (&mut self.engine, tables) {
            (
                Engine::Gpu(g),
                ParticleTables::Gpu {
                    ctx,
                    bodies,
                    shapes,
                    ..
                },
            ) => {
                if !g.ctx.same_as(ctx) {
                    return Err(Error::InvalidInput {
                        what: "rigid world",
                        value: "a rigid world on another GPU context".into(),
                        fix: "build the particle and the rigid world from one GpuContext \
                              (Backend::Gpu(ctx.clone()) for both): the step binds the rigid \
                              world's buffers, which live on its device",
                    });
                }
                g.bind_rigid(bodies, shapes);
                Ok(RigidInput::Gpu { shape_count })
            }
            (Engine::Cpu(_), ParticleTables::Cpu { bodies, shapes }) => Ok(RigidInput::Cpu {
                bodies: bodies.to_vec(),
                shapes: shapes.to_vec(),
            }),
            (engine, _) => Err(Error::InvalidInput {
                what: "rigid world",
                value: if matches!(engine, Engine::Gpu(_)) {
                    "a CPU rigid world for a GPU particle world".into()
                } else {
                    "a GPU rigid world for a CPU particle world".into()
                },
                fix: "build both worlds on the same backend kind (both Backend::Gpu or both \
                      Backend::Cpu)",
            }),
        }
    }

    /// Shape slots of the rigid world of the step being run (0 without one).
    pub(super) fn rigid_shape_count(&self) -> u32 {
        match &self.rigid {
            None => 0,
            Some(RigidInput::Gpu { shape_count }) => *shape_count,
            Some(RigidInput::Cpu { shapes, .. }) => shapes.len() as u32,
        }
    }
}
