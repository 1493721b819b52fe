//! Saving and loading whole worlds (`wgphys::save`, issue 39): the time and the bytes of a save
//! and a load, in the binary and the text format, on the CPU twin and on the GPU (its readback
//! and upload included), of
//! - a rigid world (`--bodies`, default 100k): the pyramid of `scenes::rigid` at the nearest
//!   row count with four pair slots a body, stepped `--steps` times so its manifolds are warm;
//! - a particle world (`--particles`, default 1M): an emitter of that many particles a second
//!   living 0.9–1 s with colour curves, stepped 70 times to its steady state (GPU only above
//!   100k, as the particle benchmark runs it);
//! - an aggregate world: `scenes::aggregate::cloth` of `--cloth` particles a side (default 100:
//!   10k particles, about 40k springs), stepped `--steps` times.
//!
//! ```text
//! cargo run --release -p wgphys-rigid-bench --features save --bin save_bench
//! ```
//!
//! Each figure is the median of `--runs` (default 5) runs. A save is checked by loading it and
//! saving the loaded world again: the two saves must be the same bytes.

use std::time::Instant;
use wgphys::rigid::RigidWorld;
use wgphys::save::SaveFormat;
use wgphys::Backend;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

struct Args {
    bodies: u32,
    particles: u32,
    cloth: u32,
    steps: usize,
    runs: usize,
    gpu: bool,
    cpu: bool,
}

fn parse() -> Res<Args> {
    let mut a = Args {
        bodies: 100_000,
        particles: 1 << 20,
        cloth: 100,
        steps: 2,
        runs: 5,
        gpu: true,
        cpu: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--bodies" => a.bodies = value()?.parse()?,
            "--particles" => a.particles = value()?.parse()?,
            "--cloth" => a.cloth = value()?.parse()?,
            "--steps" => a.steps = value()?.parse()?,
            "--runs" => a.runs = value()?.parse::<usize>()?.max(1),
            "--no-gpu" => a.gpu = false,
            "--no-cpu" => a.cpu = false,
            "--quick" => {
                a.bodies = 2_000;
                a.particles = 20_000;
                a.cloth = 20;
                a.runs = 1;
            }
            other => {
                return Err(format!(
                "unknown flag {other}: --bodies N, --particles N, --cloth N, --steps N, --runs N, \
                     --no-gpu, --no-cpu, --quick"
            )
                .into())
            }
        }
    }
    Ok(a)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The median milliseconds of `runs` calls of `f`, and its last result.
fn timed<T>(runs: usize, mut f: impl FnMut() -> Res<T>) -> Res<(f64, T)> {
    let mut ms = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let out = f()?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        last = Some(out);
    }
    Ok((median(ms), last.ok_or("no run")?))
}

/// Times the saves and loads of one world in both formats and prints a row for each.
fn report<W>(
    what: &str,
    size: &str,
    name: &str,
    runs: usize,
    world: &mut W,
    save: impl Fn(&mut W, SaveFormat) -> wgphys::Result<Vec<u8>>,
    load: impl Fn(&[u8]) -> wgphys::Result<W>,
) -> Res<()> {
    for (fname, format) in [("binary", SaveFormat::Binary), ("text", SaveFormat::Text)] {
        let (save_ms, bytes) = timed(runs, || Ok(save(world, format)?))?;
        let (load_ms, mut loaded) = timed(runs, || Ok(load(&bytes)?))?;
        let same = save(&mut loaded, format)? == bytes;
        println!(
            "| {what} | {size} | {name} | {fname} | {save_ms:.1} | {load_ms:.1} | {} | {} |",
            bytes.len(),
            if same { "same bytes" } else { "DIFFERS" }
        );
        if !same {
            return Err(format!("{what} on {name}: a loaded world saves other bytes").into());
        }
    }
    Ok(())
}

fn particles(name: &str, backend: Backend, a: &Args) -> Res<()> {
    use wgphys::particles::{EmitShape, EmitVelocity, Emitter, ParticleWorld, WorldConfig};
    let mut w = ParticleWorld::new(
        backend.clone(),
        WorldConfig {
            capacity: a.particles,
            ..WorldConfig::default()
        },
    )?;
    w.add_emitter(Emitter {
        rate: a.particles as f32,
        shape: EmitShape::Sphere { radius: 5.0 },
        velocity: EmitVelocity::Radial { speed: (1.0, 3.0) },
        lifetime: (0.9, 1.0),
        colour_over_life: Some(vec![(0.0, glam::Vec4::ONE), (1.0, glam::Vec4::ZERO)]),
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..Emitter::default()
    })?;
    for _ in 0..70 {
        w.step(1.0 / 60.0)?;
    }
    let live = w.read_status()?.live;
    let size = format!("{live} live of {}", a.particles);
    report(
        "particle emitter",
        &size,
        name,
        a.runs,
        &mut w,
        |w, f| w.save(f),
        |b| ParticleWorld::load(backend.clone(), b),
    )
}

fn aggregate(name: &str, backend: Backend, a: &Args) -> Res<()> {
    use wgphys::aggregate::AggregateWorld;
    let mut w = wgphys::scenes::aggregate::cloth(backend.clone(), a.cloth)?;
    for _ in 0..a.steps {
        w.step(1.0 / 60.0)?;
    }
    let size = format!("{} particles", a.cloth * a.cloth);
    report(
        "aggregate cloth",
        &size,
        name,
        a.runs,
        &mut w,
        |w, f| w.save(f),
        |b| AggregateWorld::load(backend.clone(), b),
    )
}

fn rigid(name: &str, backend: Backend, a: &Args) -> Res<()> {
    // rows·(rows + 1)/2 boxes, the nearest to the size asked for.
    let rows = ((2.0 * f64::from(a.bodies)).sqrt()).round().max(1.0) as u32;
    // Four pair slots a body, as the rigid benchmark gives its worlds (the default eight per
    // shape slot passes what lavapipe binds at 100k bodies).
    let n = rows * (rows + 1) / 2 + 1;
    let config = wgphys::rigid::RigidConfig {
        pair_capacity: 4 * n,
        ..wgphys::scenes::rigid::config(n)
    };
    let mut w = RigidWorld::new(backend.clone(), config)?;
    wgphys::scenes::rigid::pyramid_in(&mut w, rows, 0.5)?;
    for _ in 0..a.steps {
        w.step(1.0 / 60.0)?;
    }
    let size = format!("{} bodies", w.len());
    report(
        "rigid pyramid",
        &size,
        name,
        a.runs,
        &mut w,
        |w, f| w.save(f),
        |b| RigidWorld::load(backend.clone(), b),
    )
}

fn main() -> Res<()> {
    let a = parse()?;
    println!("| world | size | backend | format | save ms | load ms | bytes | check |");
    println!("|---|---|---|---|---|---|---|---|");
    if a.cpu {
        rigid("cpu", Backend::Cpu, &a)?;
        if a.particles <= 100_000 {
            particles("cpu", Backend::Cpu, &a)?;
        }
        aggregate("cpu", Backend::Cpu, &a)?;
    }
    if a.gpu {
        let ctx = wgphys::gpu::GpuContext::new()?;
        println!("<!-- adapter: {} -->", ctx.describe());
        rigid("gpu", Backend::Gpu(ctx.clone()), &a)?;
        particles("gpu", Backend::Gpu(ctx.clone()), &a)?;
        aggregate("gpu", Backend::Gpu(ctx), &a)?;
    }
    Ok(())
}
