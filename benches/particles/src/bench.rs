//! The benchmark: one table of ms/step for the GPU and CPU paths.
//!
//! Rows: the particle cloud (integrate + forces + colliders, `scenes::cloud_config`) at 10k,
//! 100k and 1M particles, a busy fireworks show at steady state, and a GPU emitter at steady
//! state (n particles a second into a pool of n). GPU time comes from
//! timestamp queries where the adapter has them (the GPU rows also show wall time per step with
//! a wait after each submit). Medians over the measured steps, after warm-up.
//!
//! `bench ARGS` below is `cargo run --release -p wgphys-particle-bench --bin bench -- ARGS`:
//!
//! ```text
//! bench                                                # full table
//! bench --quick                                        # 10k only, a few steps (CI)
//! bench --sizes 1000000,10000000 --no-cpu              # big GPU rows
//! bench --sizes 100000,1000000 --particles-only        # scaling
//! bench --grains-only --no-cpu                         # grain scaling, 100k vs 1M
//! bench --grains-only --grain-sizes 100000             # grains, GPU and CPU
//! bench --pile 100000 --no-cpu                         # a poured heap's quality
//! bench --sizes 3000000,10000000,3000000 --particles-only --no-cpu --probe-after
//!     # the cloud's bytes through a bare kernel after the cloud rows
//! bench --sizes 10000000 --particles-only --no-cpu --spawn-chunk 1000000
//!     # the cloud spawned a million a step (no upload above that)
//! ```
//!
//! `--pile N [--settle S[,S2,...]] [--no-gpu]` pours N grains of radius 2 cm into the sand box
//! (`scenes::pile::pour`, 100 a sheet every third step), lets them settle for S s (5 by
//! default; a list measures the same pour after each time) and prints the heap's quality
//! (`scenes::pile::pile_metrics`): mean and worst overlap of touching pairs, mean kinetic
//! energy, angle of repose, height.

mod stream;

use std::time::Instant;
use wgphys::aggregate::AggregateWorld;
use wgphys::gpu::GpuContext;
use wgphys::grid::{GpuGrid, GridSpec};
use wgphys::particles::{EmitShape, EmitVelocity, Emitter, ForceField, ParticleWorld, WorldConfig};
use wgphys::scenes;
use wgphys::scenes::aggregate as agg;
use wgphys::Backend;

struct Row {
    scene: String,
    size: String,
    backend: &'static str,
    ms_gpu: Option<f64>,
    ms_wall: f64,
    live: u32,
    dispatches: String,
}

/// The table's rows, each printed as it is measured (a long run that is cut short still shows
/// what it measured), and again together at the end.
struct Rows {
    rows: Vec<Row>,
    start: Instant,
}

impl Rows {
    fn push(&mut self, r: Row) {
        println!(
            "[{:.1} s] {} {} {}: GPU {} ms, wall {:.3} ms",
            self.start.elapsed().as_secs_f64(),
            r.scene,
            r.size,
            r.backend,
            r.ms_gpu.map_or("–".to_string(), |g| format!("{g:.3}")),
            r.ms_wall
        );
        self.rows.push(r);
    }
}

/// GPU ms per stage (a collide iteration is a stage of its own), medians over the steps.
type StageMs = Vec<(String, f64)>;

/// (GPU ms from timestamps where the adapter has them, wall ms, dispatches, GPU ms per stage
/// where the adapter writes timestamps inside passes) per step, medians.
fn measure_agg(
    world: &mut AggregateWorld,
    warm: usize,
    steps: usize,
) -> wgphys::Result<(Option<f64>, f64, u32, Option<StageMs>)> {
    let timed = world.enable_gpu_timing();
    for _ in 0..warm {
        world.step(scenes::DT)?;
    }
    world.wait()?;
    let mut wall = Vec::with_capacity(steps);
    let mut gpu = Vec::with_capacity(steps);
    let mut stages: Vec<(String, Vec<f64>)> = Vec::new();
    for _ in 0..steps {
        let t0 = Instant::now();
        world.step(scenes::DT)?;
        world.wait()?;
        wall.push(t0.elapsed().as_secs_f64() * 1e3);
        if timed {
            gpu.push(world.last_step_gpu_ms()?);
            if let Ok(per) = world.last_step_stage_ms() {
                for (k, (stage, i, ms)) in per.into_iter().enumerate() {
                    let name = if i > 0 {
                        format!("{stage} {i}")
                    } else {
                        stage.to_string()
                    };
                    if stages.len() <= k {
                        stages.push((name, Vec::new()));
                    }
                    stages[k].1.push(ms);
                }
            }
        }
    }
    let stages =
        (!stages.is_empty()).then(|| stages.into_iter().map(|(n, v)| (n, median(v))).collect());
    Ok((
        timed.then(|| median(gpu)),
        median(wall),
        world.last_dispatches(),
        stages,
    ))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    v[v.len() / 2]
}

fn measure(
    world: &mut ParticleWorld,
    warm: usize,
    steps: usize,
    tick: &mut dyn FnMut(&mut ParticleWorld) -> wgphys::Result<()>,
) -> wgphys::Result<(Option<f64>, f64)> {
    let timed = world.enable_gpu_timing();
    for _ in 0..warm {
        tick(world)?;
        world.step(scenes::DT)?;
    }
    world.wait()?;
    let mut wall = Vec::with_capacity(steps);
    let mut gpu = Vec::with_capacity(steps);
    for _ in 0..steps {
        tick(world)?;
        let t0 = Instant::now();
        world.step(scenes::DT)?;
        world.wait()?;
        wall.push(t0.elapsed().as_secs_f64() * 1e3);
        if timed {
            gpu.push(world.last_step_gpu_ms()?);
        }
    }
    Ok((timed.then(|| median(gpu)), median(wall)))
}

/// The `--pile` rows: pour, then measure after each of the settling times in `settle` (seconds
/// after the pour, increasing; one pour serves them all), on each backend asked for (the GPU
/// context only when a GPU row is).
fn pile(
    n: u32,
    settle: &[f32],
    no_cpu: bool,
    no_gpu: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    const RADIUS: f32 = 0.02;
    let mut backends = Vec::new();
    if !no_gpu {
        let ctx = GpuContext::new()?;
        println!("wgphys bench — adapter: {}", ctx.describe());
        backends.push(("gpu", Backend::Gpu(ctx)));
    }
    if !no_cpu {
        backends.push(("cpu", Backend::Cpu));
    }
    let settle_steps: Vec<u32> = settle.iter().map(|s| (s * 60.0).round() as u32).collect();
    if settle_steps.windows(2).any(|w| w[1] < w[0]) {
        return Err("--settle: give the settling times in increasing order".into());
    }
    for (name, backend) in backends {
        let start = Instant::now();
        let (mut world, mut steps) = scenes::pile::pour(
            backend,
            n,
            RADIUS,
            settle_steps.first().copied().unwrap_or(0),
        )?;
        for (k, &target) in settle_steps.iter().enumerate() {
            if k > 0 {
                for _ in settle_steps[k - 1]..target {
                    world.step(scenes::DT)?;
                    steps += 1;
                }
            }
            let secs = start.elapsed().as_secs_f64();
            let snap = world.read_snapshot()?;
            let m = scenes::pile::pile_metrics(
                &snap.pos,
                &snap.vel,
                RADIUS,
                world.config().contact_slop,
            )?;
            println!(
                "pile {n} ({name}), settled {:.0} s: {steps} steps in {secs:.1} s; {} touching \
                 pairs, mean overlap {:.3}% of a diameter (worst {:.1}%), mean kinetic energy \
                 {:.2e} J/kg, angle of repose {}, height {:.3} m",
                f64::from(target) / 60.0,
                m.touching_pairs,
                100.0 * m.mean_overlap,
                100.0 * m.worst_overlap,
                m.mean_kinetic_energy,
                m.repose_degrees
                    .map_or("– (no flank)".to_string(), |a| format!("{a:.1}°")),
                m.height
            );
        }
    }
    Ok(())
}

/// The comma-separated sizes after `flag`, if it was given.
fn size_list(args: &[String], flag: &str) -> Result<Option<Vec<u32>>, Box<dyn std::error::Error>> {
    let Some(i) = args.iter().position(|a| a == flag) else {
        return Ok(None);
    };
    let list = args.get(i + 1).ok_or(format!("{flag} needs a list"))?;
    Ok(Some(
        list.split(',').map(str::parse).collect::<Result<_, _>>()?,
    ))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let no_cpu = args.iter().any(|a| a == "--no-cpu");
    let particles_only = args.iter().any(|a| a == "--particles-only");
    let probe_after = args.iter().any(|a| a == "--probe-after");
    let spawn_chunk: Option<u32> = match args.iter().position(|a| a == "--spawn-chunk") {
        Some(i) => Some(
            args.get(i + 1)
                .ok_or("--spawn-chunk needs a count")?
                .parse()
                .map_err(|e| format!("--spawn-chunk: {e}"))?,
        ),
        None => None,
    };
    // Only the colliding-grain rows (100k and 1M): the aggregate scaling check.
    let grains_only = args.iter().any(|a| a == "--grains-only");
    let mut sizes: Vec<u32> = if quick {
        vec![10_000]
    } else {
        vec![10_000, 100_000, 1_000_000]
    };
    if let Some(list) = size_list(&args, "--sizes")? {
        sizes = list;
    }
    if let Some(i) = args.iter().position(|a| a == "--pile") {
        let n: u32 = args
            .get(i + 1)
            .ok_or("--pile needs a grain count")?
            .parse()?;
        let settle: Vec<f32> = match args.iter().position(|a| a == "--settle") {
            Some(j) => args
                .get(j + 1)
                .ok_or("--settle needs seconds (a comma-separated list for several)")?
                .split(',')
                .map(str::parse)
                .collect::<Result<_, _>>()?,
            None => vec![5.0],
        };
        let no_gpu = args.iter().any(|a| a == "--no-gpu");
        return pile(n, &settle, no_cpu, no_gpu);
    }
    let (warm, steps) = if quick { (3, 5) } else { (10, 40) };
    let ctx = GpuContext::new()?;
    println!("wgphys bench — adapter: {}", ctx.describe());
    println!(
        "timestamp queries: {}",
        if ctx.timestamps {
            "yes"
        } else {
            "no (GPU column empty)"
        }
    );
    println!("{warm} warm-up steps, median of {steps} steps, dt = 1/60 s");
    let mut rows = Rows {
        rows: Vec::new(),
        start: Instant::now(),
    };
    let mut noop = |_: &mut ParticleWorld| Ok(());
    if grains_only {
        sizes.clear();
    }
    for &n in &sizes {
        let backends: Vec<(&'static str, Backend)> = if no_cpu || n > 2_000_000 {
            vec![("gpu", Backend::Gpu(ctx.clone()))]
        } else {
            vec![("gpu", Backend::Gpu(ctx.clone())), ("cpu", Backend::Cpu)]
        };
        for (name, backend) in backends {
            let mut world = ParticleWorld::new(
                backend,
                WorldConfig {
                    status_interval: 0,
                    ..scenes::cloud_config(n, 7)
                },
            )?;
            // The spawn step (or steps: `--spawn-chunk N` spawns N a step, so no upload is
            // bigger than N records).
            let chunk = spawn_chunk.unwrap_or(n).max(1);
            let mut start = 0;
            while start < n {
                let end = n.min(start.saturating_add(chunk));
                scenes::cloud_spawn_range(&mut world, start..end)?;
                world.step(scenes::DT)?;
                start = end;
            }
            let (g, w) = measure(
                &mut world,
                warm,
                if name == "cpu" && n >= 1_000_000 {
                    steps / 4
                } else {
                    steps
                },
                &mut noop,
            )?;
            let live = world.read_status()?.live;
            rows.push(Row {
                scene: "cloud: integrate+forces+colliders".into(),
                size: format!("{n}"),
                backend: name,
                ms_gpu: g,
                ms_wall: w,
                live,
                dispatches: "1".into(),
            });
        }
    }
    if probe_after && !sizes.is_empty() {
        // The cloud's bytes through a bare kernel on the same device, after the cloud worlds
        // above (issue 10's cliff: the worlds' own doing, or the device's state after them).
        let probe = stream::Probe::new(&ctx, true)?;
        for &n in &sizes {
            let ms = probe.median_ms(&ctx, n, "split", 30)?;
            let bytes = stream::BYTES_PER_ELEMENT * u64::from(n);
            println!(
                "stream probe after the cloud rows, {n} elements (random data, six buffers): \
                 GPU {ms:.3} ms, {:.2} TB/s",
                bytes as f64 / (ms * 1e-3) / 1e12
            );
        }
    }
    let per_step = if quick { 5 } else { 40 };
    for (name, backend) in [("gpu", Backend::Gpu(ctx.clone())), ("cpu", Backend::Cpu)] {
        if grains_only || (no_cpu && name == "cpu") {
            continue;
        }
        let mut world = ParticleWorld::new(
            backend,
            WorldConfig {
                status_interval: 0,
                ..scenes::fireworks_config(1 << 20, 11)
            },
        )?;
        let mut tick = |w: &mut ParticleWorld| scenes::fireworks_busy_tick(w, per_step);
        // Reach steady state: the longest chain (type 7 then 8) lives about 5.5 s.
        for _ in 0..if quick { 30 } else { 400 } {
            tick(&mut world)?;
            world.step(scenes::DT)?;
        }
        let (g, w) = measure(&mut world, warm, steps, &mut tick)?;
        let live = world.read_status()?.live;
        rows.push(Row {
            scene: format!("fireworks show, {per_step} launches/step"),
            size: "steady".into(),
            backend: name,
            ms_gpu: g,
            ms_wall: w,
            live,
            dispatches: "6".into(),
        });
    }
    // GPU emitters at steady state: one emitter spawning n particles a second that live 0.9 to
    // 1 s (so about 0.95 n live), with a colour gradient and turbulence, into a pool of n.
    for &n in &sizes {
        if grains_only || particles_only {
            break;
        }
        for (name, backend) in [("gpu", Backend::Gpu(ctx.clone())), ("cpu", Backend::Cpu)] {
            if name == "cpu" && (no_cpu || n > 1_000_000) {
                continue;
            }
            let mut world = ParticleWorld::new(
                backend,
                WorldConfig {
                    capacity: n,
                    status_interval: 0,
                    fields: vec![ForceField::Turbulence {
                        scale: 2.0,
                        strength: 3.0,
                        scroll: glam::Vec3::Y,
                    }],
                    ..WorldConfig::default()
                },
            )?;
            world.add_emitter(Emitter {
                rate: n as f32,
                shape: EmitShape::Sphere { radius: 5.0 },
                velocity: EmitVelocity::Radial { speed: (1.0, 3.0) },
                lifetime: (0.9, 1.0),
                colour_over_life: Some(vec![
                    (0.0, glam::Vec4::ONE),
                    (0.5, glam::Vec4::new(1.0, 0.5, 0.1, 1.0)),
                    (1.0, glam::Vec4::ZERO),
                ]),
                acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                ..Emitter::default()
            })?;
            // Steady state after one lifetime.
            for _ in 0..if quick { 10 } else { 70 } {
                world.step(scenes::DT)?;
            }
            let (g, w) = measure(&mut world, warm, steps, &mut noop)?;
            let live = world.read_status()?.live;
            rows.push(Row {
                scene: format!("emitter: {n}/s, curves, turbulence"),
                size: format!("{n}"),
                backend: name,
                ms_gpu: g,
                ms_wall: w,
                live,
                dispatches: "7".into(),
            });
        }
    }
    // Mass-aggregate rows: wall time per step (submit + wait); lavapipe runs on the host CPU,
    // so wall time there is GPU time plus a small submit cost.
    let mut grain_sizes: Vec<u32> = if quick {
        vec![10_000]
    } else {
        vec![100_000, 1_000_000]
    };
    if let Some(list) = size_list(&args, "--grain-sizes")? {
        grain_sizes = list;
    }
    for &n in grain_sizes.iter().filter(|_| !particles_only) {
        for (name, backend) in [("gpu", Backend::Gpu(ctx.clone())), ("cpu", Backend::Cpu)] {
            if no_cpu && name == "cpu" {
                continue;
            }
            let mut world = agg::granular_block(backend, n, 0.02)?;
            // Colliding grains are slow on software adapters and on the CPU: few steps at 1M,
            // except in --grains-only runs, which time the same steps at both sizes so the
            // scaling ratio compares the same phase of the scene.
            let few = n >= 1_000_000 && !grains_only;
            let (g, w, d, per_stage) = measure_agg(
                &mut world,
                if few { 1 } else { warm.min(5) },
                if few { 3 } else { steps / 4 },
            )?;
            if let Some(per) = per_stage {
                let list: Vec<String> = per.iter().map(|(s, ms)| format!("{s} {ms:.3}")).collect();
                println!("GPU ms per stage (grains {n}, {name}): {}", list.join(", "));
            }
            rows.push(Row {
                scene: "grains: grid + 16 collide iterations".into(),
                size: format!("{n}"),
                backend: name,
                ms_gpu: g,
                ms_wall: w,
                live: n,
                dispatches: d.to_string(),
            });
        }
    }
    for &n in grain_sizes
        .iter()
        .filter(|_| !grains_only && !particles_only)
    {
        let spec = GridSpec::new(0.04, (2 * n).next_power_of_two())?;
        let world = agg::granular_block(Backend::Gpu(ctx.clone()), n, 0.02)?;
        let mut grid = GpuGrid::new(&ctx, n, spec)?;
        let positions = world.render_buffers().ok_or("a GPU world")?.positions;
        let mut times = Vec::new();
        for k in 0..(warm + steps) {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            grid.encode_build(&mut enc, positions, n)?;
            let t0 = Instant::now();
            ctx.queue.submit([enc.finish()]);
            ctx.wait()?;
            if k >= warm {
                times.push(t0.elapsed().as_secs_f64() * 1e3);
            }
        }
        rows.push(Row {
            scene: "grid build alone (keys, radix sort, ranges)".into(),
            size: format!("{n}"),
            backend: "gpu",
            ms_gpu: None,
            ms_wall: median(times),
            live: n,
            dispatches: grid.dispatches().to_string(),
        });
    }
    let cloth_side: u32 = if quick { 50 } else { 160 };
    for (name, backend) in [("gpu", Backend::Gpu(ctx.clone())), ("cpu", Backend::Cpu)] {
        if particles_only || grains_only || (no_cpu && name == "cpu") {
            continue;
        }
        let mut world = agg::cloth(backend, cloth_side)?;
        let springs = 4 * cloth_side * cloth_side - 6 * cloth_side + 2;
        let (g, w, d, _) = measure_agg(&mut world, warm, steps)?;
        rows.push(Row {
            scene: format!("cloth: {springs} damped springs"),
            size: format!("{}", cloth_side * cloth_side),
            backend: name,
            ms_gpu: g,
            ms_wall: w,
            live: cloth_side * cloth_side,
            dispatches: d.to_string(),
        });
    }

    println!();
    println!("| scene | size | backend | live | dispatches/step (GPU) | GPU ms/step (timestamps) | wall ms/step | particles/s |");
    println!("|---|---|---|---|---|---|---|---|");
    for r in &rows.rows {
        let ms = r.ms_gpu.filter(|_| r.backend == "gpu").unwrap_or(r.ms_wall);
        let rate = f64::from(r.live) / (ms / 1e3);
        let gpu = r
            .ms_gpu
            .filter(|_| r.backend == "gpu")
            .map_or("–".to_string(), |g| format!("{g:.3}"));
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.3} | {:.3e} |",
            r.scene,
            r.size,
            r.backend,
            r.live,
            if r.backend == "gpu" {
                r.dispatches.as_str()
            } else {
                "–"
            },
            gpu,
            r.ms_wall,
            rate
        );
    }
    Ok(())
}
