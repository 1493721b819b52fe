//! Saving and loading whole worlds (`wgphys::save`, issue 39): the time and the bytes of a save
//! and a load, in the binary and the text format, of a rigid world (`--bodies`, default 100k:
//! the pyramid of `scenes::rigid` at the nearest row count, stepped `--steps` times so its
//! manifolds are warm) on the CPU twin and on the GPU (its readback and upload included).
//!
//! ```text
//! cargo run --release -p wgphys-rigid-bench --features save --bin save_bench -- --bodies 100000
//! ```
//!
//! Each figure is the median of `--runs` (default 5) runs. A save is checked by loading it and
//! comparing the bodies bit for bit.

use std::time::Instant;
use wgphys::rigid::RigidWorld;
use wgphys::save::SaveFormat;
use wgphys::Backend;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

struct Args {
    bodies: u32,
    steps: usize,
    runs: usize,
    gpu: bool,
    cpu: bool,
}

fn parse() -> Res<Args> {
    let mut a = Args {
        bodies: 100_000,
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
            "--steps" => a.steps = value()?.parse()?,
            "--runs" => a.runs = value()?.parse::<usize>()?.max(1),
            "--no-gpu" => a.gpu = false,
            "--no-cpu" => a.cpu = false,
            "--quick" => {
                a.bodies = 2_000;
                a.runs = 1;
            }
            other => {
                return Err(format!(
                    "unknown flag {other}: --bodies N, --steps N, --runs N, --no-gpu, --no-cpu, --quick"
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

fn rigid(name: &str, backend: Backend, a: &Args) -> Res<()> {
    // rows·(rows + 1)/2 boxes, the nearest to the size asked for.
    let rows = ((2.0 * f64::from(a.bodies)).sqrt()).round().max(1.0) as u32;
    let (mut w, _) = wgphys::scenes::rigid::pyramid(backend.clone(), rows, 0.5)?;
    for _ in 0..a.steps {
        w.step(1.0 / 60.0)?;
    }
    let n = w.len();
    for (fname, format) in [("binary", SaveFormat::Binary), ("text", SaveFormat::Text)] {
        let (save_ms, bytes) = timed(a.runs, || Ok(w.save(format)?))?;
        let (load_ms, mut loaded) =
            timed(a.runs, || Ok(RigidWorld::load(backend.clone(), &bytes)?))?;
        let same = bytemuck_bits(&w.read_bodies()?) == bytemuck_bits(&loaded.read_bodies()?);
        println!(
            "| rigid pyramid | {n} bodies | {name} | {fname} | {save_ms:.1} | {load_ms:.1} | {} | {} |",
            bytes.len(),
            if same { "bit-equal" } else { "DIFFERS" }
        );
        if !same {
            return Err("a loaded world's bodies differ from the saved world's".into());
        }
    }
    Ok(())
}

fn bytemuck_bits(b: &[wgphys::rigid::types::GpuBody]) -> Vec<u32> {
    bytemuck::cast_slice(b).to_vec()
}

fn main() -> Res<()> {
    let a = parse()?;
    println!("| world | size | backend | format | save ms | load ms | bytes | check |");
    println!("|---|---|---|---|---|---|---|---|");
    if a.cpu {
        rigid("cpu", Backend::Cpu, &a)?;
    }
    if a.gpu {
        let ctx = wgphys::gpu::GpuContext::new()?;
        println!("<!-- adapter: {} -->", ctx.describe());
        rigid("gpu", Backend::Gpu(ctx), &a)?;
    }
    Ok(())
}
