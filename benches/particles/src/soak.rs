//! Soak: steps the fireworks show, the sand box and the box rain for a long time (100,000
//! steps each by default) and prints the engine's footprint at the start and the end: resident
//! memory, bytes the GPU allocator holds, non-finite state components and the population.
//!
//! ```text
//! cargo run --release -p wgphys-particle-bench --bin soak -- [--steps N] [--every N]
//!     [--scenes fireworks,sand,rain] [--cpu]
//! ```

use wgphys::gpu::GpuContext;
use wgphys::scenes::soak::{soak, SoakPlan, SoakSample, SoakScene};
use wgphys::Backend;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut steps = 100_000u64;
    let mut every = 10_000u64;
    let mut scenes = SoakScene::ALL.to_vec();
    let mut cpu = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--steps" => steps = args.next().ok_or("--steps needs a number")?.parse()?,
            "--every" => every = args.next().ok_or("--every needs a number")?.parse()?,
            "--cpu" => cpu = true,
            "--scenes" => {
                let list = args.next().ok_or("--scenes needs a list")?;
                scenes = list
                    .split(',')
                    .map(|n| {
                        SoakScene::ALL
                            .into_iter()
                            .find(|s| s.name() == n)
                            .ok_or(format!("unknown scene {n:?}: fireworks, sand or rain"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            other => {
                return Err(format!(
                    "unknown argument {other:?}; flags: --steps N --every N --scenes a,b --cpu"
                )
                .into())
            }
        }
    }
    let backend = if cpu {
        Backend::Cpu
    } else {
        let ctx = GpuContext::new()?;
        println!("adapter: {}", ctx.describe());
        Backend::Gpu(ctx)
    };
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    let show = |name: &str, s: &SoakSample| {
        let gpu = s
            .gpu_bytes
            .map_or("n/a".to_string(), |b| format!("{:.2} MiB", mib(b)));
        println!(
            "{name} step {:>7}: resident {:8.2} MiB, GPU allocator {gpu}, non-finite {}, population {}",
            s.step,
            mib(s.resident_bytes),
            s.non_finite,
            s.population
        );
    };
    println!("| scene | steps | resident MiB (start → end) | GPU allocator MiB (start → end) | non-finite (worst) | population (start → end) | s |");
    let mut rows = Vec::new();
    for scene in scenes {
        let t = std::time::Instant::now();
        let warmup = 1_000.min(steps);
        let plan = SoakPlan {
            steps,
            warmup,
            every,
            paced: false,
        };
        let r = soak(scene, backend.clone(), plan, |s| show(scene.name(), s))?;
        let gpu = match (r.start.gpu_bytes, r.end.gpu_bytes) {
            (Some(a), Some(b)) => format!("{:.2} → {:.2}", mib(a), mib(b)),
            _ => "n/a".into(),
        };
        rows.push(format!(
            "| {} | {steps} | {:.1} → {:.1} | {gpu} | {} | {} → {} | {:.0} |",
            scene.name(),
            mib(r.start.resident_bytes),
            mib(r.end.resident_bytes),
            r.worst_non_finite,
            r.start.population,
            r.end.population,
            t.elapsed().as_secs_f64()
        ));
    }
    for row in rows {
        println!("{row}");
    }
    Ok(())
}
