//! Particles against a rigid world's shapes ([`ParticleWorld::step_with_rigid`]): which tables
//! the step reads and the checks that both worlds can meet.

use super::*;
use crate::particles::emitter::EmitterSlot;
use crate::particles::rigid::MAX_RIGID_SHAPES;
use crate::particles::rigid_cells::{bucket_count, cell_size, RigidLookup, MAX_RIGID_CELL_SHAPES};
use crate::particles::types::GROUP_QUADS;
use crate::rigid::types::{GpuBody, GpuShape};
use crate::rigid::ParticleTables;
use crate::rigid::RigidWorld;

/// The rigid world of the step being run.
pub(super) struct RigidInput {
    /// Shape slots the step visits.
    shape_count: u32,
    /// The grid's 1 / cell size and buckets (stage `rigid_cells`), or zeros for the brute force.
    cells: (f32, u32),
    /// On the CPU, the rigid world's host tables as they were when the step began (on the GPU
    /// the kernels are bound to the rigid world's buffers).
    host: Option<(Vec<GpuBody>, Vec<GpuShape>)>,
}

impl RigidInput {
    /// The CPU twin's tables (none on the GPU).
    pub(super) fn host(&self) -> Option<(&[GpuBody], &[GpuShape])> {
        self.host.as_ref().map(|(b, s)| (&b[..], &s[..]))
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
    /// A particle collides with a shape only when their collision groups meet, as two rigid
    /// shapes do: `(group & shape.mask) != 0 && (shape.group & mask) != 0`, the particle's
    /// pair from its emitter ([`crate::particles::Emitter::collision_groups`]) or, for a
    /// particle no emitter made, [`WorldConfig::collision_groups`]. Sensors push nothing.
    ///
    /// One-way coupling: the particles react, the rigid bodies feel nothing.
    ///
    /// On the GPU no data is read back: the kernel binds the rigid world's own `bodies` and
    /// `shapes` buffers (bound again when they are replaced, see
    /// [`RigidWorld::buffers_generation`]) and reads the poses the device holds when the step
    /// runs, so step the rigid world first in the same queue to collide with its new poses.
    /// On the CPU it copies the rigid world's host tables at the start of the step.
    ///
    /// Cost, by [`WorldConfig::rigid_lookup`]: with [`RigidLookup::Cells`] (the default) a
    /// grid over the shapes' bounding spheres at their present poses is built each step (stage
    /// `rigid_cells`, O(shapes + buckets)) and each particle tests the shapes binned in its
    /// cell and the large ones (half-spaces, planes, shapes far bigger than most), in slot
    /// order: up to [`MAX_RIGID_CELL_SHAPES`] slots. With [`RigidLookup::All`] every particle
    /// tests every shape slot's bounding sphere (on the GPU from tiles of 64 shapes in
    /// workgroup memory): O(particles × shapes), at most [`MAX_RIGID_SHAPES`] slots. Both give
    /// the same contacts (bit for bit on the CPU; see [`crate::particles::rigid_cells`]);
    /// BENCHMARKS.md has the figures.
    ///
    /// Differences from a static collider: the contact with a rigid shape comes after the
    /// static colliders and the depth collider, it does not count as a hit for a sub-emitter's
    /// `SubTrigger::Impact`, and its resting-contact fix reads the force fields at the
    /// integrated state.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when the worlds are on different backend kinds or, on the GPU,
    /// not built from one [`crate::gpu::GpuContext`] (or clones of it), [`Error::TooMany`]
    /// beyond the lookup's shape slots (nothing is changed then); otherwise as
    /// [`ParticleWorld::step`].
    pub fn step_with_rigid(&mut self, dt: f32, rigid: &RigidWorld) -> Result<ParticleStepReport> {
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
    ) -> Result<ParticleStepReport> {
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
        let lookup = self.config.rigid_lookup;
        let (max, fix) = match lookup {
            RigidLookup::All => (
                MAX_RIGID_SHAPES,
                "every particle visits every shape slot with RigidLookup::All: use \
                 RigidLookup::Cells (WorldConfig::rigid_lookup), or a smaller rigid world",
            ),
            RigidLookup::Cells => (
                MAX_RIGID_CELL_SHAPES,
                "the grid over the shapes holds at most this many slots: collide the \
                 particles with a smaller rigid world, or with static colliders",
            ),
        };
        if count > max as usize {
            return Err(Error::TooMany {
                what: "rigid shape slots for particles",
                count,
                max,
                fix,
            });
        }
        let shape_count = count as u32;
        let cells = match lookup {
            RigidLookup::Cells if count > 0 => (
                1.0 / cell_size(&rigid.shapes()[..count.min(rigid.shapes().len())]),
                bucket_count(count),
            ),
            _ => (0.0, 0),
        };
        let input = |host| RigidInput {
            shape_count,
            cells,
            host,
        };
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
                g.bind_rigid(bodies, shapes, shape_count, cells.1);
                Ok(input(None))
            }
            (Engine::Cpu(_), ParticleTables::Cpu { bodies, shapes }) => {
                Ok(input(Some((bodies.to_vec(), shapes.to_vec()))))
            }
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
        self.rigid.as_ref().map_or(0, |r| r.shape_count)
    }

    /// The grid's 1 / cell size and buckets for the step being run (zeros: no grid).
    pub(super) fn rigid_cells(&self) -> (f32, u32) {
        self.rigid.as_ref().map_or((0.0, 0), |r| r.cells)
    }

    /// The particles' collision groups and masks by emitter tag
    /// ([`GpuParams::rigid_groups`]): tag 0 the world's, tag 1 + slot the emitter's (a removed
    /// emitter's particles keep its pair).
    pub(super) fn rigid_groups(&self) -> [[u32; 4]; GROUP_QUADS as usize] {
        let mut table = [[0; 4]; GROUP_QUADS as usize];
        let pairs =
            std::iter::once(self.config.collision_groups).chain(self.emitters.iter().map(|slot| {
                match slot {
                    EmitterSlot::Used(e) => e.desc.collision_groups,
                    EmitterSlot::Retired { groups, .. } => *groups,
                    EmitterSlot::Free => crate::particles::config::all_groups(),
                }
            }));
        for (tag, (group, mask)) in pairs.enumerate().take(2 * GROUP_QUADS as usize) {
            table[tag / 2][2 * (tag % 2)] = group;
            table[tag / 2][2 * (tag % 2) + 1] = mask;
        }
        table
    }
}
