//! The CPU twin's step (every stage in order on the world's state) and the checks that turn a
//! world's fields and colliders into their GPU records.

use super::*;
use crate::particles::cpu::{self, StepInputs};
use crate::particles::step::{ParticleStage, ParticleStep};

/// Every stage of `stages.sequence()` in order, by its CPU twin; returns the stages run. The
/// back-to-front order is computed after the step (`sort_cpu`, the twin of `depth_keys` and the
/// view sort together), an emitter's box when it is read (`read_emitter_bounds`).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_cpu_step(
    s: &mut CpuState,
    params: &GpuParams,
    stages: ParticleStep,
    spawns: &[GpuSpawnRecord],
    removals: &[u32],
    colliders: &[GpuCollider],
    rules: &[GpuRule],
    payloads: &[GpuPayload],
    emitters: &[GpuEmitter],
    curves: &[GpuCurves],
    depth: Option<(
        &crate::particles::depth::GpuDepth,
        &crate::particles::depth::DepthImage,
    )>,
    (trails, k): (&mut [glam::Vec4], u32),
    rigid: Option<(
        &[crate::rigid::types::GpuBody],
        &[crate::rigid::types::GpuShape],
    )>,
) -> Vec<ParticleStage> {
    use crate::particles::trails::{trail_append, trail_compact, trail_push};
    let k = k as usize;
    s.staging[..spawns.len()].copy_from_slice(spawns);
    let inp = StepInputs {
        params,
        colliders,
        rules,
        payloads,
        removals,
        emitters,
        curves,
        depth,
    };
    let sequence = stages.sequence();
    let mut grid = crate::particles::rigid_cells::RigidCellsGrid::default();
    for &stage in &sequence {
        use ParticleStage::*;
        match stage {
            Integrate => cpu::integrate(s, &inp),
            RigidCells => {
                if let Some((bodies, shapes)) = rigid {
                    grid = crate::particles::rigid_cells::rigid_cells(s, params, bodies, shapes);
                }
            }
            RigidContactsCells => {
                if let Some((bodies, shapes)) = rigid {
                    use crate::particles::rigid_cells::rigid_contacts_cells;
                    rigid_contacts_cells(s, params, bodies, shapes, &grid);
                }
            }
            RigidContacts => {
                if let Some((bodies, shapes)) = rigid {
                    crate::particles::rigid::rigid_contacts(s, params, bodies, shapes);
                }
            }
            ScanReduce => cpu::scan_reduce(s),
            ScanBlocks => cpu::scan_blocks(s, params),
            Emit => cpu::emit(s, &inp),
            SpawnEmitted => cpu::spawn_emitted(s, &inp),
            Compact => cpu::compact(s),
            TrailCompact => trail_compact(s, trails, k),
            Append => cpu::append(s),
            TrailAppend => trail_append(s, trails, k),
            TrailPush => trail_push(s, trails, k, params.step),
            DepthKeys | EmitterBounds | BoundsPublish | ViewSort => {}
        }
    }
    sequence
}

pub(super) fn fields_to_gpu(fields: &[ForceField]) -> Result<[GpuField; MAX_FIELDS as usize]> {
    if fields.len() > MAX_FIELDS as usize {
        return Err(Error::TooManyFields {
            count: fields.len(),
            max: MAX_FIELDS,
        });
    }
    let mut out = [GpuField::default(); MAX_FIELDS as usize];
    for (o, f) in out.iter_mut().zip(fields) {
        *o = f.to_gpu()?;
    }
    Ok(out)
}

/// What a step of a world holding these runs (see [`crate::particles::step::ParticleStep`]).
pub(super) fn stages_of(
    config: &WorldConfig,
    params: &GpuParams,
    lifecycle: bool,
    view_sort: bool,
    emitters: &[crate::particles::emitter::EmitterSlot],
) -> crate::particles::step::ParticleStep {
    crate::particles::step::ParticleStep {
        lifecycle,
        emitted: params.emitted > 0,
        trails: config.trail_length > 0,
        view_sort,
        bounds: !emitters.is_empty(),
        rigid: params.rigid_shape_count > 0,
        rigid_cells: params.rigid_buckets > 0,
    }
}
