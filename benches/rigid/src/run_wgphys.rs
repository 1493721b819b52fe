//! The wgphys side: the scene rebuilt on a backend with [`PAIRS_PER_BODY`] pair slots per body,
//! stepped and timed ([`run_wgphys`]), GPU phases included where the adapter has timestamps.

use std::time::Instant;

use glam::{Quat, Vec4Swizzles};
use wgphys::gpu::GpuContext;
use wgphys::rigid::types::{body_kind, shape_kind, GpuBody};
use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
use wgphys::scenes::joints::RagdollRain;
use wgphys::scenes::rigid as scenes;
use wgphys::Backend;

use crate::args::Tuning;
use crate::joints::{build_jointed, worst_gap, Link, RECYCLE_EVERY};
use crate::report::{joint_figures, median, stability, Row, State};
use crate::{Res, Scene, DT, HALF, SEED, SETTLE_STEP};

/// Pair (and manifold) slots per body slot given to the benchmark's wgphys worlds (grown by
/// `auto_grow` when a step finds more pairs). The scenes' own capacities (16 per body for the
/// pyramid and the rain) need 224 B of manifold per pair slot, which is more than lavapipe's
/// 128 MiB storage binding from about 37k bodies on.
pub(crate) const PAIRS_PER_BODY: u32 = 4;

/// A scene built on a backend: the world, the dynamic bodies' slots, the joints (jointed
/// scenes) and the rain's ragdolls (the ragdoll rain).
pub(crate) struct Built {
    pub(crate) world: RigidWorld,
    pub(crate) slots: Vec<usize>,
    pub(crate) links: Vec<Link>,
    pub(crate) rain: Option<RagdollRain>,
    /// The fleet, whose waves move before every step.
    pub(crate) fleet: Option<wgphys::scenes::sailing::Fleet>,
}

/// Builds the wgphys scene: the box scenes on the CPU with `scenes::rigid`, then rebuilt body
/// by body on `backend` with [`PAIRS_PER_BODY`]; the jointed scenes straight on `backend`
/// (`joints::build_jointed`).
pub(crate) fn build(scene: Scene, n: u32, backend: Backend, relax: Tuning) -> Res<Built> {
    let (mut source, handles) = match scene {
        Scene::Pyramid => scenes::pyramid(Backend::Cpu, pyramid_rows(n), HALF)?,
        Scene::Rain => scenes::box_rain(Backend::Cpu, n, HALF, rain_half_width(n), SEED)?,
        Scene::ConvexPile => {
            // Hulls are the world's data: built on the backend itself, not rebuilt.
            let (world, handles) =
                wgphys::scenes::rocks::convex_pile(backend, 8, 8, (n / 64).max(1), SEED)?;
            return Ok(Built {
                world,
                slots: handles.iter().map(|h| h.index() as usize).collect(),
                links: Vec::new(),
                rain: None,
                fleet: None,
            });
        }
        Scene::ConvexVsMesh | Scene::Terrain => {
            return crate::level::build_level(scene, n, backend);
        }
        Scene::JointGrid | Scene::RagdollRain => return build_jointed(scene, n, backend, relax),
        Scene::Fleet => return crate::fleet::build_fleet(n, backend, relax),
    };
    let slots: Vec<usize> = handles.iter().map(|h| h.index() as usize).collect();
    let mut config = source.config().clone();
    config.pair_capacity = PAIRS_PER_BODY * config.body_capacity;
    let mut world = RigidWorld::new(backend, tuned(config, relax))?;
    copy_bodies(&mut source, &mut world)?;
    Ok(Built {
        world,
        slots,
        links: Vec::new(),
        rain: None,
        fleet: None,
    })
}

/// `config` with the run's solver settings.
pub(crate) fn tuned(mut config: RigidConfig, relax: Tuning) -> RigidConfig {
    if relax.blocks {
        config = config.with_blocks();
    }
    if let Some(r) = relax.relax {
        config.relax_iterations = r;
    }
    if let Some(c) = relax.colour_slots {
        config.colour_slots = c;
    }
    if let Some(s) = relax.block_sweeps {
        config.block_sweeps = s;
    }
    if let Some(c) = relax.block_cells {
        config.block_cells = c;
    }
    if let Some(s) = relax.substeps {
        config.substeps = s;
    }
    if let Some(h) = relax.contact_hertz {
        config.contact_hertz = h;
    }
    config
}

/// Rebuilds `source` body by body in `world` (the same slots).
fn copy_bodies(source: &mut RigidWorld, world: &mut RigidWorld) -> Res<()> {
    let bodies = source.read_bodies()?;
    let shapes = source.shapes().to_vec();
    for (i, b) in bodies.iter().enumerate() {
        let colliders = shapes
            .iter()
            .filter(|s| s.kind != 0 && s.body as usize == i)
            .map(|s| {
                if s.offset_pos.truncate() != glam::Vec3::ZERO {
                    return Err("shape offsets are not rebuilt".into());
                }
                let c = match s.kind {
                    shape_kind::BOX => Collider::cuboid(s.dims.truncate()),
                    shape_kind::SPHERE => Collider::sphere(s.dims.x),
                    shape_kind::HALF_SPACE => Collider::half_space(s.dims.truncate(), s.dims.w),
                    k => return Err(format!("shape kind {k} is not rebuilt").into()),
                };
                Ok(c.material(s.material.x, s.material.y))
            })
            .collect::<Res<Vec<_>>>()?;
        let body = if b.kind == body_kind::DYNAMIC {
            RigidBody::dynamic().mass(1.0 / b.pos.w)
        } else {
            RigidBody::fixed()
        }
        .position(b.pos.truncate())
        .rotation(glam::Quat::from_vec4(b.orient));
        let h = world.add_body(body, &colliders)?;
        if h.index() as usize != i {
            return Err("rebuilt world's slots differ from the scene's".into());
        }
    }
    Ok(())
}

/// Rows of a pyramid of about `n` boxes: rows·(rows+1)/2 ≈ n.
fn pyramid_rows(n: u32) -> u32 {
    (((8.0 * f64::from(n) + 1.0).sqrt() - 1.0) / 2.0)
        .round()
        .max(1.0) as u32
}

/// Inner half width of the rain container: about four layers of boxes at the scene's spacing of
/// three half sizes.
fn rain_half_width(n: u32) -> f32 {
    let per_row = (f64::from(n) / 4.0).sqrt().ceil().max(1.0) as f32;
    0.5 * per_row * 3.0 * HALF + 0.01
}

fn wg_states(bodies: &[GpuBody], slots: &[usize]) -> Vec<State> {
    slots
        .iter()
        .map(|&i| {
            let b = &bodies[i];
            State {
                pos: [b.pos.x, b.pos.y, b.pos.z],
                speed: b.lin_vel.truncate().length(),
            }
        })
        .collect()
}

pub(crate) fn run_wgphys(
    scene: Scene,
    n: u32,
    ctx: Option<&GpuContext>,
    steps: usize,
    warmup: usize,
    report_every: Option<usize>,
    relax: Tuning,
) -> Res<Row> {
    let backend = match ctx {
        Some(c) => Backend::Gpu(c.clone()),
        None => Backend::Cpu,
    };
    let Built {
        mut world,
        slots,
        links,
        mut rain,
        fleet,
    } = build(scene, n, backend, relax)?;
    if relax.submit_whole {
        world.set_submit_by_phase(false);
    }
    if relax.block_stage {
        world.set_block_staging(true);
    }
    let timed_gpu = if relax.dispatch_timing {
        world.enable_gpu_dispatch_timing()
    } else {
        world.enable_gpu_timing()
    };
    let mut dispatch_ms: Vec<Vec<(&'static str, u32, f64)>> = Vec::new();
    let mut gpu_ms: Vec<Vec<(&'static str, f64)>> = Vec::with_capacity(steps);
    let mut stage_ms: Vec<Vec<(&'static str, f64)>> = Vec::with_capacity(steps);
    let mut times = Vec::with_capacity(steps);
    let mut host = Vec::with_capacity(steps);
    let mut settled = None;
    for k in 1..=steps {
        let t0 = Instant::now();
        if let Some(f) = &fleet {
            f.waves(&mut world, k as f32 * DT)?;
        }
        world.step(DT)?;
        if k > warmup {
            // From the first encode to the return of `submit` (and the non-blocking poll of
            // the status ring): what the host spends per step before the GPU has finished.
            host.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        if let Some(c) = ctx {
            c.wait()?;
        }
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if k > warmup {
            times.push(ms);
            if timed_gpu {
                gpu_ms.push(world.last_step_phase_ms()?);
                if let Ok(stages) = world.last_step_stage_ms() {
                    stage_ms.push(stages);
                }
                if relax.dispatch_timing {
                    dispatch_ms.push(world.last_step_dispatch_ms()?);
                }
            }
        }
        // The rain's ragdolls are dropped again between timed steps (a read back).
        if let Some(rain) = rain.as_mut().filter(|_| k.is_multiple_of(RECYCLE_EVERY)) {
            rain.recycle(&mut world)?;
        }
        // The drift is measured from t = 1 s to the last step: none when that is t = 1 s.
        if k == SETTLE_STEP && steps > SETTLE_STEP {
            settled = Some(wg_states(&world.read_bodies()?, &slots));
        }
        if report_every.is_some_and(|e| e > 0 && k % e == 0) {
            let r = world.read_report()?;
            let b = world.read_bodies()?;
            let low = slots
                .iter()
                .map(|&i| b[i].pos.y)
                .fold(f32::INFINITY, f32::min);
            // Colouring check: manifolds of one (parallel) colour must not share a dynamic body.
            let mut seen = std::collections::HashMap::new();
            let mut clashes = 0u32;
            let mut coloured = 0u32;
            let mut first_left = None;
            for (slot, m) in world.read_manifolds()?.into_iter().enumerate() {
                if m.colour >= wgphys::rigid::solver::SEQUENTIAL_COLOUR {
                    if m.count > 0 && first_left.is_none() {
                        first_left = Some((slot, m.colour));
                    }
                    continue;
                }
                coloured += 1;
                let mut ends = [m.body_a, m.body_b];
                ends.sort_unstable();
                if ends[0] == ends[1] {
                    continue;
                }
                for body in ends {
                    let dynamic = b
                        .get(body as usize)
                        .is_some_and(|x| x.kind == body_kind::DYNAMIC);
                    if dynamic && seen.insert((m.colour, body), ()).is_some() {
                        clashes += 1;
                    }
                }
            }
            eprintln!(
                "  step {k}: {:.1} ms, {r:?}, lowest centre y {low:.3}, dispatches {:?}, \
                 {coloured} manifolds in parallel colours, {clashes} share a body with another \
                 of their colour; first contact manifold left out (slot, colour): {first_left:?}",
                ms,
                world.dispatches_per_step()
            );
        }
    }
    if let Some(first) = stage_ms.first() {
        let parts: Vec<String> = (0..first.len())
            .map(|i| {
                let ms = median(
                    stage_ms
                        .iter()
                        .filter_map(|p| p.get(i).map(|x| x.1))
                        .collect(),
                );
                format!("{} {ms:.3}", first[i].0)
            })
            .collect();
        println!(
            "GPU ms per stage, median over {} steps ({scene:?}, {n}): {}",
            stage_ms.len(),
            parts.join(", ")
        );
    }
    print_dispatch_ms(&dispatch_ms, scene, n);
    let bodies = world.read_bodies()?;
    let end = wg_states(&bodies, &slots);
    if end
        .iter()
        .any(|s| !s.pos.iter().all(|x| x.is_finite()) || !s.speed.is_finite())
    {
        eprintln!("warning: wgphys produced non-finite body state ({scene:?}, {n})");
    }
    let report = world.read_report()?;
    if relax.block_stage {
        println!(
            "block staging ({scene:?}, {n}): {} bins staged and {} solved from the buffer in the \
             last step",
            report.staged_bins, report.unstaged_bins
        );
    }
    let awake = slots.iter().filter(|&&i| bodies[i].awake != 0).count();
    let pipelined = relax.pipelined.unwrap_or(PIPELINED_STEPS);
    if let (Some(c), true) = (ctx, pipelined > 0) {
        // Steps recorded and submitted back to back, waiting once at the end, as a game loop
        // that reads nothing back each frame runs them: the host records step k + 1 while the
        // GPU runs step k, so a step costs about the larger of the two.
        let t0 = Instant::now();
        for _ in 0..pipelined {
            world.step(DT)?;
        }
        c.wait()?;
        let ms = t0.elapsed().as_secs_f64() * 1e3 / pipelined as f64;
        println!(
            "pipelined ({scene:?}, {n}): {pipelined} steps submitted back to back, \
             {ms:.2} ms/step"
        );
    }
    if let (Some(c), true) = (ctx, relax.record_probe > 0) {
        record_probe(&mut world, c, relax.record_probe, scene, n)?;
    }
    let engine = match ctx {
        Some(c) => format!("wgphys GPU ({})", c.describe()),
        None => "wgphys CPU twin (1 thread)".into(),
    };
    // The colouring's rounds that coloured something (Jones–Plassmann; 0 with blocks, which
    // colour each bin in one pass).
    let rounds = if report.rounds > 0 {
        format!(", {} rounds", report.rounds)
    } else {
        String::new()
    };
    let colours = if report.uncoloured > 0 {
        format!(
            "{} (+{} uncoloured{rounds})",
            report.colours, report.uncoloured
        )
    } else if rounds.is_empty() {
        report.colours.to_string()
    } else {
        format!("{} ({})", report.colours, &rounds[2..])
    };
    Ok(Row {
        scene,
        bodies: slots.len(),
        engine,
        steps,
        timed: times.len(),
        ms: median(times),
        stability: stability(scene, n, settled.as_deref(), &end)
            + &joint_figures(
                &links,
                worst_gap(&links, |i| {
                    bodies
                        .get(i)
                        .map(|b| (b.pos.xyz(), Quat::from_vec4(b.orient)))
                }),
                rain.as_ref(),
            ),
        awake: format!("{awake} ({} manifolds)", report.manifolds),
        dispatches: match (world.dispatches_per_step(), world.passes_per_step()) {
            (Some(d), Some(p)) => format!("{d} in {p} passes"),
            _ => "–".into(),
        },
        host_ms: if ctx.is_some() {
            format!("{:.3}", median(host))
        } else {
            "–".into()
        },
        gpu_ms: gpu_phases(&gpu_ms),
        colours,
    })
}

/// Steps of the pipelined measurement after a GPU row's timed steps.
const PIPELINED_STEPS: usize = 30;

/// Prints each entry point's median GPU ms per step (and its dispatches) under dispatch
/// timing, the costliest first.
fn print_dispatch_ms(steps: &[Vec<(&'static str, u32, f64)>], scene: Scene, n: u32) {
    let Some(first) = steps.first() else {
        return;
    };
    let mut rows: Vec<(&'static str, u32, f64)> = first
        .iter()
        .map(|&(entry, count, _)| {
            let ms = median(
                steps
                    .iter()
                    .filter_map(|s| s.iter().find(|e| e.0 == entry).map(|e| e.2))
                    .collect(),
            );
            (entry, count, ms)
        })
        .collect();
    rows.sort_by(|a, b| b.2.total_cmp(&a.2));
    let total: f64 = rows.iter().map(|r| r.2).sum();
    let parts: Vec<String> = rows
        .iter()
        .map(|(e, c, ms)| format!("{e} ×{c} {ms:.3} ({:.1} µs each)", ms * 1e3 / f64::from(*c)))
        .collect();
    println!(
        "GPU ms per entry point, median over {} steps ({scene:?}, {n}; sum {total:.3}): {}",
        steps.len(),
        parts.join(", ")
    );
}

/// "total (phase a + phase b)": the median of each phase's GPU ms and of their sum.
fn gpu_phases(steps: &[Vec<(&'static str, f64)>]) -> String {
    let Some(first) = steps.first() else {
        return "–".into();
    };
    let total = median(steps.iter().map(|p| p.iter().map(|x| x.1).sum()).collect());
    let parts: Vec<String> = (0..first.len())
        .map(|i| {
            let ms = median(steps.iter().filter_map(|p| p.get(i).map(|x| x.1)).collect());
            let name = first[i].0.trim_start_matches("wgphys:pass:rigid_");
            format!("{name} {ms:.3}")
        })
        .collect();
    format!("{total:.3} ({})", parts.join(" + "))
}

/// `--record-probe`: `steps` steps recorded into encoders that are finished and dropped, never
/// submitted (the world's GPU state is of no further use after this: its buffers saw none of
/// these steps, so it runs last). Prints the median host milliseconds of `encode_step` (the
/// engine's recording: uploads, passes, dispatches) and of `finish` (wgpu's validation, usage
/// tracking and barriers, and the driver's command recording).
fn record_probe(
    world: &mut wgphys::rigid::RigidWorld,
    ctx: &GpuContext,
    steps: usize,
    scene: Scene,
    n: u32,
) -> Res<()> {
    let mut encode = Vec::with_capacity(steps);
    let mut finish = Vec::with_capacity(steps);
    let mut total = Vec::with_capacity(steps);
    for _ in 0..steps {
        let t0 = Instant::now();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        world.encode_step(DT, &mut encoder)?;
        let t1 = Instant::now();
        let commands = encoder.finish();
        let t2 = Instant::now();
        drop(commands);
        encode.push((t1 - t0).as_secs_f64() * 1e3);
        finish.push((t2 - t1).as_secs_f64() * 1e3);
        total.push((t2 - t0).as_secs_f64() * 1e3);
    }
    println!(
        "record probe ({scene:?}, {n}): {steps} steps recorded and not submitted, median host \
         ms: encode_step {:.3}, finish {:.3}, both {:.3}",
        median(encode),
        median(finish),
        median(total)
    );
    Ok(())
}
