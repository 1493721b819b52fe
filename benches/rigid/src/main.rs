//! The rigid-body benchmark: the same scenes in wgphys (GPU path and CPU twin) and in rapier3d,
//! side by side in one run, printed as one table.
//!
//! Scenes (built by `wgphys::scenes::rigid`, copied body by body into a wgphys world with
//! [`PAIRS_PER_BODY`] pair slots per body, and mirrored from the same body and shape tables into
//! rapier, so every engine starts from the same poses, sizes and masses):
//!
//! - **pyramid**: `pyramid(rows, half = 0.5)`, rows chosen so rows·(rows+1)/2 is the size
//!   (100, 200 and 447 rows for 5k, 20k and 100k). Stability: the largest displacement of any
//!   box between t = 1 s and the last step (a resting pyramid should not move).
//! - **rain**: `box_rain(n, half = 0.5, half_width, seed 7)`, the container sized for about four
//!   layers of falling boxes. Stability: the largest speed of any box after the last step and
//!   the mean height of the boxes' centres.
//!
//! Timing: every engine steps `--warmup` steps (pipeline compiles on the GPU), then the median
//! wall time of each remaining step is reported. GPU steps are followed by `GpuContext::wait`,
//! so a GPU figure is submit + execution + wait (the rigid world records no timestamps yet).
//! dt = 1/60 s.
//!
//! rapier3d configuration (see `rapier_params`): wgphys runs a soft step, `substeps` (default
//! 4) × (biased iterations (1) + relax iterations (8)), collision detection once per step.
//! rapier's TGS-soft solver has the same shape: its `num_solver_iterations` is the number of
//! substeps, each running `num_internal_pgs_iterations` biased velocity iterations and
//! `num_internal_stabilization_iterations` unbiased ones. The "matched" rows use wgphys'
//! substeps × (biased + relax); the "default" rows keep rapier's recommended 4 substeps ×
//! (1 + 1). Friction 0.9 combined by geometric mean (wgphys' default
//! rule), restitution 0 averaged, density from the wgphys masses, sleeping on in both engines,
//! CCD off (wgphys runs it for flagged spheres only).
//!
//! ```text
//! cargo run --release -p wgphys-rigid-bench                       # 5k, 20k, 100k
//! cargo run --release -p wgphys-rigid-bench -- --quick            # CI smoke run (< 2 min)
//! cargo run --release -p wgphys-rigid-bench -- --sizes 5000,20000 --scenes pyramid --no-cpu
//! cargo run --release -p wgphys-rigid-bench -- --markdown target/rigid.md
//! # diagnostics: wgphys' step report every step, and a check of the colouring
//! cargo run --release -p wgphys-rigid-bench -- --sizes 11000 --scenes pyramid --no-rapier \
//!     --steps 2 --warmup 0 --report-every 1
//! ```
//!
//! Other flags: `--no-gpu`, `--no-cpu`, `--no-rapier`, `--no-rapier-default`, `--relax N`
//! (relax iterations per substep instead of the default 8; rapier "matched" follows),
//! `--colour-slots N` (solver dispatches per sweep instead of the default 8).

use rapier3d::prelude as rp;
use std::error::Error;
use std::fmt::Write as _;
use std::time::Instant;
use wgphys::gpu::GpuContext;
use wgphys::particles::Backend;
use wgphys::rigid::types::{body_kind, shape_kind, GpuBody};
use wgphys::rigid::{Collider, RigidBody, RigidWorld};
use wgphys::scenes::rigid as scenes;

type Res<T> = Result<T, Box<dyn Error>>;

const DT: f32 = 1.0 / 60.0;
const HALF: f32 = 0.5;
const SEED: u32 = 7;
/// The step after which the pyramid's boxes should be at rest (t = 1 s).
const SETTLE_STEP: usize = 60;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scene {
    Pyramid,
    Rain,
}

impl Scene {
    fn name(self) -> &'static str {
        match self {
            Scene::Pyramid => "pyramid",
            Scene::Rain => "box rain",
        }
    }
}

struct Args {
    quick: bool,
    sizes: Vec<u32>,
    scenes: Vec<Scene>,
    gpu: bool,
    cpu: bool,
    rapier: bool,
    rapier_default: bool,
    steps: Option<usize>,
    warmup: Option<usize>,
    markdown: Option<String>,
    /// Print wgphys' step report (read back now) every this many steps (diagnostics).
    report_every: Option<usize>,
    /// Relax iterations per substep instead of `RigidConfig`'s default (rapier "matched"
    /// follows), for comparisons at another iteration count; colour slots instead of its
    /// default.
    relax: Tuning,
}

/// Solver settings a run may change from `RigidConfig`'s defaults.
#[derive(Clone, Copy, Debug, Default)]
struct Tuning {
    relax: Option<u32>,
    colour_slots: Option<u32>,
}

fn parse_args() -> Res<Args> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let value = |name: &str| -> Res<Option<&String>> {
        match args.iter().position(|a| a == name) {
            Some(i) => Ok(Some(
                args.get(i + 1)
                    .ok_or_else(|| format!("{name} needs a value"))?,
            )),
            None => Ok(None),
        }
    };
    let known = [
        "--quick",
        "--no-gpu",
        "--no-cpu",
        "--no-rapier",
        "--no-rapier-default",
        "--sizes",
        "--scenes",
        "--steps",
        "--warmup",
        "--markdown",
        "--report-every",
        "--relax",
        "--colour-slots",
    ];
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if !known.contains(&a.as_str()) {
            return Err(format!("unknown argument {a:?}; flags: {}", known.join(" ")).into());
        }
        i += if matches!(
            a.as_str(),
            "--sizes"
                | "--scenes"
                | "--steps"
                | "--warmup"
                | "--markdown"
                | "--report-every"
                | "--relax"
                | "--colour-slots"
        ) {
            2
        } else {
            1
        };
    }
    let quick = flag("--quick");
    let sizes = match value("--sizes")? {
        Some(s) => s.split(',').map(str::parse).collect::<Result<_, _>>()?,
        None if quick => vec![500],
        None => vec![5_000, 20_000, 100_000],
    };
    let scenes = match value("--scenes")? {
        Some(s) => s
            .split(',')
            .map(|n| match n {
                "pyramid" => Ok(Scene::Pyramid),
                "rain" | "box_rain" => Ok(Scene::Rain),
                _ => Err(format!("unknown scene {n:?} (pyramid, rain)")),
            })
            .collect::<Result<_, _>>()?,
        None => vec![Scene::Pyramid, Scene::Rain],
    };
    Ok(Args {
        quick,
        sizes,
        scenes,
        gpu: !flag("--no-gpu"),
        cpu: !flag("--no-cpu"),
        rapier: !flag("--no-rapier"),
        rapier_default: !flag("--no-rapier") && !flag("--no-rapier-default"),
        steps: value("--steps")?.map(|s| s.parse()).transpose()?,
        warmup: value("--warmup")?.map(|s| s.parse()).transpose()?,
        markdown: value("--markdown")?.cloned(),
        report_every: value("--report-every")?.map(|s| s.parse()).transpose()?,
        relax: Tuning {
            relax: value("--relax")?.map(|s| s.parse()).transpose()?,
            colour_slots: value("--colour-slots")?.map(|s| s.parse()).transpose()?,
        },
    })
}

/// One engine's result on one scene.
struct Row {
    scene: Scene,
    bodies: usize,
    engine: String,
    steps: usize,
    timed: usize,
    ms: f64,
    stability: String,
    awake: String,
    dispatches: String,
    /// Host ms to record and submit one step (median), GPU rows only.
    host_ms: String,
    /// GPU ms per step from timestamp queries (median), per phase, GPU rows where the adapter
    /// has timestamps.
    gpu_ms: String,
    colours: String,
}

/// Where the dynamic bodies are and how fast they move, engine-neutral.
#[derive(Clone, Copy)]
struct State {
    pos: [f32; 3],
    speed: f32,
}

/// The stability figure from the state at t = 1 s (if reached) and at the end.
fn stability(scene: Scene, settled: Option<&[State]>, end: &[State]) -> String {
    match scene {
        Scene::Pyramid => match settled {
            Some(s) => {
                let drifts: Vec<f64> = s
                    .iter()
                    .zip(end)
                    .map(|(a, b)| {
                        let d = [
                            a.pos[0] - b.pos[0],
                            a.pos[1] - b.pos[1],
                            a.pos[2] - b.pos[2],
                        ];
                        f64::from((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt())
                    })
                    .collect();
                let max = drifts.iter().copied().fold(0.0, f64::max);
                let moved = drifts.iter().filter(|&&d| d > 0.01).count();
                format!(
                    "max drift {:.1} mm, median {:.2} mm, {moved} moved > 1 cm",
                    max * 1e3,
                    median(drifts) * 1e3
                )
            }
            None => "– (run shorter than 1 s)".into(),
        },
        Scene::Rain => {
            let vmax = end.iter().map(|s| s.speed).fold(0.0f32, f32::max);
            let mean_y = end.iter().map(|s| s.pos[1]).sum::<f32>() / end.len().max(1) as f32;
            format!("max speed {vmax:.3} m/s, mean height {mean_y:.2} m")
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

/// Pair (and manifold) slots per body slot given to the benchmark's wgphys worlds (grown by
/// `auto_grow` when a step finds more pairs). The scenes' own capacities (16 per body for the
/// pyramid and the rain) need 224 B of manifold per pair slot, which is more than lavapipe's
/// 128 MiB storage binding from about 37k bodies on.
const PAIRS_PER_BODY: u32 = 4;

/// Builds the wgphys scene (on the CPU, with `scenes::rigid`), then rebuilds it on `backend`
/// with [`PAIRS_PER_BODY`]; returns the world and the dynamic bodies' slots.
fn build(scene: Scene, n: u32, backend: Backend, relax: Tuning) -> Res<(RigidWorld, Vec<usize>)> {
    let (mut source, handles) = match scene {
        Scene::Pyramid => scenes::pyramid(Backend::Cpu, pyramid_rows(n), HALF)?,
        Scene::Rain => scenes::box_rain(Backend::Cpu, n, HALF, rain_half_width(n), SEED)?,
    };
    let slots: Vec<usize> = handles.iter().map(|h| h.index() as usize).collect();
    let mut config = source.config().clone();
    config.pair_capacity = PAIRS_PER_BODY * config.body_capacity;
    if let Some(r) = relax.relax {
        config.relax_iterations = r;
    }
    if let Some(c) = relax.colour_slots {
        config.colour_slots = c;
    }
    let mut world = RigidWorld::new(backend, config)?;
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
    Ok((world, slots))
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

fn run_wgphys(
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
    let (mut world, slots) = build(scene, n, backend, relax)?;
    let timed_gpu = world.enable_gpu_timing();
    let mut gpu_ms: Vec<Vec<(&'static str, f64)>> = Vec::with_capacity(steps);
    let mut stage_ms: Vec<Vec<(&'static str, f64)>> = Vec::with_capacity(steps);
    let mut times = Vec::with_capacity(steps);
    let mut host = Vec::with_capacity(steps);
    let mut settled = None;
    for k in 1..=steps {
        let t0 = Instant::now();
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
            }
        }
        if k == SETTLE_STEP {
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
    let bodies = world.read_bodies()?;
    let end = wg_states(&bodies, &slots);
    if end
        .iter()
        .any(|s| !s.pos.iter().all(|x| x.is_finite()) || !s.speed.is_finite())
    {
        eprintln!("warning: wgphys produced non-finite body state ({scene:?}, {n})");
    }
    let report = world.read_report()?;
    let awake = slots.iter().filter(|&&i| bodies[i].awake != 0).count();
    let engine = match ctx {
        Some(c) => format!("wgphys GPU ({})", c.describe()),
        None => "wgphys CPU twin (1 thread)".into(),
    };
    let colours = if report.uncoloured > 0 {
        format!("{} (+{} uncoloured)", report.colours, report.uncoloured)
    } else {
        report.colours.to_string()
    };
    Ok(Row {
        scene,
        bodies: slots.len(),
        engine,
        steps,
        timed: times.len(),
        ms: median(times),
        stability: stability(scene, settled.as_deref(), &end),
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

/// rapier's integration parameters for the wgphys configuration `config`: "matched" maps
/// substeps → `num_solver_iterations`, biased velocity iterations →
/// `num_internal_pgs_iterations` and relax iterations → `num_internal_stabilization_iterations`
/// (both solvers are soft steps: biased, then unbiased); otherwise rapier's defaults
/// (4 substeps of 1 + 1) with our dt.
fn rapier_params(config: &wgphys::rigid::RigidConfig, matched: bool) -> rp::IntegrationParameters {
    let mut p = rp::IntegrationParameters {
        dt: DT,
        ..Default::default()
    };
    if matched {
        p.num_solver_iterations = config.substeps as usize;
        p.num_internal_pgs_iterations = config.velocity_iterations as usize;
        p.num_internal_stabilization_iterations = config.relax_iterations as usize;
    }
    p
}

fn combine(c: wgphys::rigid::Combine) -> Res<rp::CoefficientCombineRule> {
    use wgphys::rigid::Combine as C;
    Ok(match c {
        C::Average => rp::CoefficientCombineRule::Average,
        C::Min => rp::CoefficientCombineRule::Min,
        C::Geometric => rp::CoefficientCombineRule::GeometricMean,
        other => return Err(format!("rapier has no combine rule like {other:?}").into()),
    })
}

/// Mirrors a wgphys world (bodies, boxes and the ground plane) into a rapier world. Returns the
/// rapier world and, for each wgphys body slot, its rapier handle.
fn mirror(world: &mut RigidWorld) -> Res<(rp::PhysicsWorld, Vec<Option<rp::RigidBodyHandle>>)> {
    let config = world.config().clone();
    let bodies = world.read_bodies()?;
    let shapes = world.shapes().to_vec();
    let mut rw = rp::PhysicsWorld::new();
    rw.gravity = rp::Vector::new(config.gravity.x, config.gravity.y, config.gravity.z);
    let friction_rule = combine(config.combine_friction)?;
    let restitution_rule = combine(config.combine_restitution)?;
    // Extent of the scene, for the ground cuboid standing in for the half-space.
    let reach = bodies
        .iter()
        .map(|b| b.pos.x.abs().max(b.pos.z.abs()))
        .fold(10.0f32, f32::max)
        * 2.0
        + 100.0;
    let mut handles = vec![None; bodies.len()];
    for (i, b) in bodies.iter().enumerate() {
        let mine: Vec<_> = shapes
            .iter()
            .filter(|s| s.kind != 0 && s.body as usize == i)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let pos = rp::Vector::new(b.pos.x, b.pos.y, b.pos.z);
        let rot = rp::Rotation::from_xyzw(b.orient.x, b.orient.y, b.orient.z, b.orient.w);
        let builder = match b.kind {
            body_kind::DYNAMIC => rp::RigidBodyBuilder::dynamic(),
            body_kind::KINEMATIC => rp::RigidBodyBuilder::kinematic_velocity_based(),
            _ => rp::RigidBodyBuilder::fixed(),
        }
        .pose(rp::Pose::from_parts(pos, rot));
        let h = rw.insert_body(builder);
        let mass = if b.kind == body_kind::DYNAMIC && b.pos.w > 0.0 {
            1.0 / b.pos.w
        } else {
            0.0
        };
        let n_shapes = mine.len() as f32;
        for s in mine {
            let offset = rp::Pose::from_parts(
                rp::Vector::new(s.offset_pos.x, s.offset_pos.y, s.offset_pos.z),
                rp::Rotation::from_xyzw(
                    s.offset_rot.x,
                    s.offset_rot.y,
                    s.offset_rot.z,
                    s.offset_rot.w,
                ),
            );
            let c = match s.kind {
                shape_kind::BOX => {
                    rp::ColliderBuilder::cuboid(s.dims.x, s.dims.y, s.dims.z).position(offset)
                }
                shape_kind::SPHERE => rp::ColliderBuilder::ball(s.dims.x).position(offset),
                shape_kind::CAPSULE => {
                    rp::ColliderBuilder::capsule_y(s.dims.y, s.dims.x).position(offset)
                }
                shape_kind::HALF_SPACE => {
                    // The half-space p·n <= d, as a thick static slab (the scenes' planes are
                    // the ground, n = +y).
                    if (s.dims.y - 1.0).abs() > 1e-6 {
                        return Err("only a +y ground plane is mirrored into rapier".into());
                    }
                    rp::ColliderBuilder::cuboid(reach, 1.0, reach).position(
                        rp::Pose::from_translation(rp::Vector::new(0.0, s.dims.w - 1.0, 0.0)),
                    )
                }
                k => return Err(format!("shape kind {k} is not mirrored into rapier").into()),
            }
            .friction(s.material.x)
            .restitution(s.material.y)
            .friction_combine_rule(friction_rule)
            .restitution_combine_rule(restitution_rule);
            let c = if mass > 0.0 {
                c.mass(mass / n_shapes)
            } else {
                c
            };
            rw.insert_collider(c, Some(h));
        }
        handles[i] = Some(h);
    }
    Ok((rw, handles))
}

fn rapier_states(
    rw: &rp::PhysicsWorld,
    handles: &[Option<rp::RigidBodyHandle>],
    slots: &[usize],
) -> Vec<State> {
    slots
        .iter()
        .filter_map(|&i| handles.get(i).copied().flatten())
        .filter_map(|h| rw.bodies.get(h))
        .map(|b| {
            let t = b.translation();
            State {
                pos: [t.x, t.y, t.z],
                speed: b.linvel().length(),
            }
        })
        .collect()
}

fn run_rapier(
    scene: Scene,
    n: u32,
    matched: bool,
    steps: usize,
    warmup: usize,
    relax: Tuning,
) -> Res<Row> {
    let (mut source, slots) = build(scene, n, Backend::Cpu, relax)?;
    let params = rapier_params(source.config(), matched);
    let (mut rw, handles) = mirror(&mut source)?;
    rw.integration_parameters = params;
    let mut times = Vec::with_capacity(steps);
    let mut settled = None;
    for k in 1..=steps {
        let t0 = Instant::now();
        rw.step();
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if k > warmup {
            times.push(ms);
        }
        if k == SETTLE_STEP {
            settled = Some(rapier_states(&rw, &handles, &slots));
        }
    }
    let end = rapier_states(&rw, &handles, &slots);
    let awake = slots
        .iter()
        .filter_map(|&i| handles.get(i).copied().flatten())
        .filter_map(|h| rw.bodies.get(h))
        .filter(|b| !b.is_sleeping())
        .count();
    let p = &rw.integration_parameters;
    Ok(Row {
        scene,
        bodies: slots.len(),
        engine: format!(
            "rapier3d 0.36 {} ({} substep × {} PGS + {} stab., 1 thread)",
            if matched { "matched" } else { "default" },
            p.num_solver_iterations,
            p.num_internal_pgs_iterations,
            p.num_internal_stabilization_iterations
        ),
        steps,
        timed: times.len(),
        ms: median(times),
        stability: stability(scene, settled.as_deref(), &end),
        awake: awake.to_string(),
        dispatches: "–".into(),
        host_ms: "–".into(),
        gpu_ms: "–".into(),
        colours: "–".into(),
    })
}

fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| scene | bodies | engine / backend | steps (timed) | ms/step (median) | bodies·steps/s | \
         stability | awake at end | dispatches/step | host ms/step (record + submit) | \
         GPU ms/step (timestamps) | colours |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let rate = r.bodies as f64 / (r.ms / 1e3);
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} ({}) | {:.2} | {:.3e} | {} | {} | {} | {} | {} | {} |",
            r.scene.name(),
            r.bodies,
            r.engine,
            r.steps,
            r.timed,
            r.ms,
            rate,
            r.stability,
            r.awake,
            r.dispatches,
            r.host_ms,
            r.gpu_ms,
            r.colours
        );
    }
    s
}

fn main() -> Res<()> {
    let args = parse_args()?;
    let ctx = if args.gpu {
        Some(GpuContext::new()?)
    } else {
        None
    };
    let adapter = ctx
        .as_ref()
        .map_or("none (--no-gpu)".into(), |c| c.describe());
    println!("wgphys rigid bench — adapter: {adapter}");
    let default_steps = |scene: Scene| match (scene, args.quick) {
        (_, true) => 70,
        (Scene::Pyramid, false) => 120,
        (Scene::Rain, false) => 180,
    };
    let warmup = args.warmup.unwrap_or(if args.quick { 5 } else { 10 });
    println!(
        "dt = 1/60 s; {warmup} warm-up steps, then the median of the rest; steps per scene: {}",
        args.steps.map_or(
            format!(
                "pyramid {}, rain {}",
                default_steps(Scene::Pyramid),
                default_steps(Scene::Rain)
            ),
            |s| s.to_string()
        )
    );
    let mut rows = Vec::new();
    for &scene in &args.scenes {
        for &n in &args.sizes {
            let steps = args.steps.unwrap_or(default_steps(scene)).max(warmup + 1);
            let mut run = |what: &str, r: Res<Row>| -> Res<()> {
                // A failed engine gives a row saying why; the others still run.
                let row = r.unwrap_or_else(|e| Row {
                    scene,
                    bodies: n as usize,
                    engine: format!("{what}: FAILED"),
                    steps,
                    timed: 0,
                    ms: f64::NAN,
                    stability: format!("error: {e}"),
                    awake: "–".into(),
                    dispatches: "–".into(),
                    host_ms: "–".into(),
                    gpu_ms: "–".into(),
                    colours: "–".into(),
                });
                eprintln!(
                    "{} {} {}: {:.2} ms/step, {}",
                    scene.name(),
                    row.bodies,
                    row.engine,
                    row.ms,
                    row.stability
                );
                rows.push(row);
                Ok(())
            };
            if let Some(c) = &ctx {
                run(
                    "wgphys GPU",
                    run_wgphys(
                        scene,
                        n,
                        Some(c),
                        steps,
                        warmup,
                        args.report_every,
                        args.relax,
                    ),
                )?;
            }
            if args.cpu {
                run(
                    "wgphys CPU twin",
                    run_wgphys(scene, n, None, steps, warmup, args.report_every, args.relax),
                )?;
            }
            if args.rapier {
                run(
                    "rapier3d matched",
                    run_rapier(scene, n, true, steps, warmup, args.relax),
                )?;
            }
            if args.rapier_default {
                run(
                    "rapier3d default",
                    run_rapier(scene, n, false, steps, warmup, args.relax),
                )?;
            }
        }
    }
    let t = table(&rows);
    println!();
    print!("{t}");
    if let Some(path) = &args.markdown {
        let md = format!(
            "Adapter: {adapter}. dt = 1/60 s, {warmup} warm-up steps, median of the rest.\n\n{t}"
        );
        std::fs::write(path, md)?;
        println!("\nwritten to {path}");
    }
    Ok(())
}
