//! The CPU twin's step (every stage in order on the world's state) and the checks that turn a
//! world's fields and colliders into their GPU records.

use super::*;
use crate::particles::cpu::{self, StepInputs};

#[allow(clippy::too_many_arguments)]
pub(super) fn run_cpu_step(
    s: &mut CpuState,
    params: &GpuParams,
    lifecycle: bool,
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
) {
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
    cpu::integrate(s, &inp);
    if lifecycle {
        cpu::scan_reduce(s);
        cpu::scan_blocks(s, params);
        cpu::emit(s, &inp);
        cpu::spawn_emitted(s, &inp);
        cpu::compact(s);
        if k > 0 {
            trail_compact(s, trails, k);
        }
        cpu::append(s);
        if k > 0 {
            trail_append(s, trails, k);
        }
    }
    if k > 0 {
        trail_push(s, trails, k, params.step);
    }
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
