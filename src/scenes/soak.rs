//! Soak runs: a scene stepped for a long time while the engine's footprint is watched, so a
//! leak (a buffer made per step, a ring that never frees, host memory that only grows) or a
//! state that goes bad (NaN) shows up as a number. Shared by `benches/particles/src/soak.rs` (100,000
//! steps, the figures in BENCHMARKS.md) and the test suite (1,000 steps).
//!
//! Each scene keeps changing what it holds, so the per-step paths that allocate on demand
//! (uploads, status reads, free lists) are exercised the whole time:
//! - **fireworks**: the show's launches, and a host particle spawned each step and removed
//!   60 steps later;
//! - **sand**: grains poured every third step until the box is full, then one grain's push
//!   changed every step;
//! - **rain**: boxes falling into a container; every 30 steps the oldest box is removed and a
//!   new one dropped from above.

use super::rigid as rigid_scenes;
use super::{aggregate, fireworks_config, fireworks_tick, DT};
use crate::aggregate::{AggregateWorld, ParticleId};
use crate::error::Result;
use crate::particles::{Particle, ParticleHandle, ParticleWorld};
use crate::rigid::{BodyHandle, RigidWorld};
use crate::Backend;
use glam::{Quat, Vec3, Vec4};
use std::collections::VecDeque;

/// The scenes a soak can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoakScene {
    /// The fireworks show with host spawns and removals.
    Fireworks,
    /// A sand box filled by pours.
    Sand,
    /// Box rain with boxes replaced.
    Rain,
}

impl SoakScene {
    /// All scenes, in the order the example runs them.
    pub const ALL: [SoakScene; 3] = [SoakScene::Fireworks, SoakScene::Sand, SoakScene::Rain];

    /// The scene's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            SoakScene::Fireworks => "fireworks",
            SoakScene::Sand => "sand",
            SoakScene::Rain => "rain",
        }
    }
}

/// The engine's footprint at one moment of a soak.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SoakSample {
    /// Steps taken.
    pub step: u64,
    /// Resident memory of the process in bytes (`/proc/self/statm`; 0 where unknown).
    pub resident_bytes: u64,
    /// Bytes the device's allocator holds (`wgpu::Device::generate_allocator_report`;
    /// `None` on the CPU and on backends without a report, such as GL).
    pub gpu_bytes: Option<u64>,
    /// Non-finite position or velocity components in the world's state.
    pub non_finite: u64,
    /// The scene's population: live particles, grains or bodies.
    pub population: u64,
}

/// A soak's first and last samples, and the worst NaN count seen.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SoakReport {
    /// After the warm-up.
    pub start: SoakSample,
    /// After the last step.
    pub end: SoakSample,
    /// The most non-finite components any sample saw.
    pub worst_non_finite: u64,
}

/// The world a scene steps.
enum World {
    Particles(Box<ParticleWorld>, VecDeque<ParticleHandle>),
    Sand(Box<AggregateWorld>),
    Rain(Box<RigidWorld>, VecDeque<BodyHandle>),
}

const SAND_CAPACITY: u32 = 2048;
const SAND_RADIUS: f32 = 0.02;
const RAIN_BOXES: u32 = 64;

/// How long a soak runs and when it looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SoakPlan {
    /// Steps in all.
    pub steps: u64,
    /// Steps before the first sample (the start of the comparison).
    pub warmup: u64,
    /// Steps between samples after that (and one at the end).
    pub every: u64,
    /// Wait for the device after every step. Unpaced, the host runs up to
    /// [`crate::gpu::upload::MAX_IN_FLIGHT`] steps ahead of a slow device and the upload rings
    /// grow to that depth at a moment that depends on timing; paced, they stay at their
    /// one-step depth, so "the same bytes at the start and the end" is exact.
    pub paced: bool,
}

/// Runs `scene` on `backend` as `plan` says, sampling after the warm-up and every
/// `plan.every` steps after that (waiting for the device at each sample, so it sees the work
/// done), and calls `on_sample` with each sample.
///
/// # Errors
/// World errors; a sample's readback errors.
pub fn soak(
    scene: SoakScene,
    backend: Backend,
    plan: SoakPlan,
    mut on_sample: impl FnMut(&SoakSample),
) -> Result<SoakReport> {
    let SoakPlan {
        steps,
        warmup,
        every,
        paced,
    } = plan;
    let gpu = match &backend {
        Backend::Gpu(ctx) => Some(ctx.clone()),
        Backend::Cpu => None,
    };
    let mut world = match scene {
        SoakScene::Fireworks => World::Particles(
            Box::new(ParticleWorld::new(backend, fireworks_config(8192, 9))?),
            VecDeque::new(),
        ),
        SoakScene::Sand => World::Sand(Box::new(aggregate::sand(
            backend,
            SAND_CAPACITY,
            SAND_RADIUS,
        )?)),
        SoakScene::Rain => {
            let (w, boxes) = rigid_scenes::box_rain(backend, RAIN_BOXES, 0.2, 1.5, 11)?;
            World::Rain(Box::new(w), boxes.into())
        }
    };
    let mut report = SoakReport::default();
    for step in 0..steps {
        world.advance(step)?;
        if let (true, Some(ctx)) = (paced, &gpu) {
            ctx.wait()?;
        }
        let done = step + 1;
        let due = done == warmup || (done > warmup && (done - warmup).is_multiple_of(every.max(1)));
        if due || done == steps {
            if let Some(ctx) = &gpu {
                ctx.wait()?;
            }
            let mut sample = world.sample()?;
            sample.step = done;
            sample.resident_bytes = resident_bytes();
            sample.gpu_bytes = gpu
                .as_ref()
                .and_then(|c| c.device.generate_allocator_report())
                .map(|r| r.total_allocated_bytes);
            report.worst_non_finite = report.worst_non_finite.max(sample.non_finite);
            if done <= warmup {
                report.start = sample;
            }
            report.end = sample;
            on_sample(&sample);
        }
    }
    Ok(report)
}

impl World {
    /// The scene's edits for step `step`, then the step.
    fn advance(&mut self, step: u64) -> Result<()> {
        match self {
            World::Particles(w, spawned) => {
                fireworks_tick(w)?;
                let x = (step % 17) as f32 - 8.0;
                let p =
                    Particle::new(Vec3::new(x, 1.0, 0.0)).with_velocity(Vec3::new(0.0, 4.0, 0.0));
                spawned.push_back(w.spawn(p)?);
                if spawned.len() > 60 {
                    if let Some(h) = spawned.pop_front() {
                        // A spawn the pool refused has no particle to remove.
                        if w.contains(h) {
                            w.remove(h)?;
                        }
                    }
                }
                w.step(DT)?;
            }
            World::Sand(w) => {
                if step.is_multiple_of(3) && w.len() as u32 + 100 <= SAND_CAPACITY {
                    aggregate::sand_pour(w, 100, SAND_RADIUS, step as u32)?;
                } else if !w.is_empty() {
                    // Once full, an edit per step: a small push on one grain, taken off at the
                    // next step.
                    let slot = (step / 2 % u64::from(w.slots())) as u32;
                    let Some(id) = w.particle_handle_at(slot) else {
                        return Err(crate::Error::StaleHandle {
                            kind: ParticleId::KIND,
                            id: slot,
                        });
                    };
                    let push = if step.is_multiple_of(2) { 0.5 } else { 0.0 };
                    w.set_acceleration(id, Vec3::new(push, 0.0, 0.0))?;
                }
                w.step(DT)?;
            }
            World::Rain(w, boxes) => {
                if step % 30 == 29 {
                    if let Some(oldest) = boxes.pop_front() {
                        w.remove_body(oldest)?;
                    }
                    let x = ((step / 30) % 7) as f32 * 0.3 - 0.9;
                    let turn = Quat::from_rotation_y(step as f32 * 0.1);
                    boxes.push_back(rigid_scenes::add_box(
                        w,
                        Vec3::new(x, 4.0, 0.0),
                        Vec3::splat(0.2),
                        turn,
                    )?);
                }
                w.step(DT)?;
            }
        }
        Ok(())
    }

    fn sample(&mut self) -> Result<SoakSample> {
        let bad = |v: Vec4| {
            v.truncate()
                .to_array()
                .iter()
                .filter(|c| !c.is_finite())
                .count() as u64
        };
        let (non_finite, population) = match self {
            World::Particles(w, _) => {
                let s = w.read_snapshot()?;
                let n = s.pos.iter().chain(&s.vel).map(|&v| bad(v)).sum();
                (n, s.len() as u64)
            }
            World::Sand(w) => {
                let s = w.read_snapshot()?;
                let n = s.pos.iter().chain(&s.vel).map(|&v| bad(v)).sum();
                (n, w.len() as u64)
            }
            World::Rain(w, _) => {
                let b = w.read_bodies()?;
                let n = b
                    .iter()
                    .map(|b| bad(b.pos) + bad(b.lin_vel) + bad(b.ang_vel))
                    .sum();
                (n, w.len() as u64)
            }
        };
        Ok(SoakSample {
            non_finite,
            population,
            ..SoakSample::default()
        })
    }
}

/// Resident set size of this process in bytes, from `/proc/self/statm` in 4 KiB pages (Linux
/// on x86-64 and most arm64 kernels; 0 where the file is missing).
pub fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<u64>().ok())
        })
        .map_or(0, |pages| pages * 4096)
}
