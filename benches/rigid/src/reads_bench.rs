//! Reading every body's pose each frame (issue 34): the host's milliseconds per frame when a
//! game steps a world and then reads all its poses, in three ways:
//! - **tracked** (GPU): `set_body_tracking(true)`, then `poll_bodies()` after each `step`: the
//!   newest copy that has landed, a frame or two old, without a stall;
//! - **blocking** (GPU): `read_snapshot()` after each `step`: the poses of this step, waiting
//!   for the device;
//! - **cpu**: the CPU twin, whose `latest_bodies()` is the state now.
//!
//! The scene is the pyramid of `scenes::rigid` nearest to `--bodies` boxes (default 5,000:
//! 99 rows, 4,950 boxes) on a half-space. Each frame steps once at 1/60 s and reads every box's
//! position through its handle (summing them, so the reads are not optimised away). A frame's
//! host time runs from the `step` call to the last pose read, its read time from the return of
//! `step` to the last pose read; the lag is how many steps the poses read are behind the world.
//! A step itself may wait when the host is several steps ahead of the device (the upload
//! ring's bound), so on a software adapter the frame time is the device's pace either way; the
//! read time is what the way of reading adds.
//!
//! ```text
//! cargo run --release -p wgphys-rigid-bench --bin reads_bench
//! ```

use std::time::Instant;
use wgphys::rigid::{BodyHandle, RigidWorld};
use wgphys::Backend;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

struct Args {
    bodies: u32,
    frames: usize,
    gpu: bool,
    cpu: bool,
}

fn parse() -> Res<Args> {
    let mut a = Args {
        bodies: 5_000,
        frames: 60,
        gpu: true,
        cpu: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--bodies" => a.bodies = value()?.parse()?,
            "--frames" => a.frames = value()?.parse::<usize>()?.max(1),
            "--no-gpu" => a.gpu = false,
            "--no-cpu" => a.cpu = false,
            "--quick" => {
                a.bodies = 500;
                a.frames = 8;
            }
            other => {
                return Err(format!(
                    "unknown flag {other}: --bodies N, --frames N, --no-gpu, --no-cpu, --quick"
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

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Tracked,
    Blocking,
    Cpu,
}

/// Runs `frames` frames of step-then-read-every-pose and prints the row.
fn run(mode: Mode, backend: Backend, a: &Args) -> Res<()> {
    let rows = ((2.0 * f64::from(a.bodies)).sqrt()).round().max(1.0) as u32;
    let (mut w, boxes): (RigidWorld, Vec<BodyHandle>) =
        wgphys::scenes::rigid::pyramid(backend, rows, 0.5)?;
    if mode == Mode::Tracked {
        w.set_body_tracking(true);
    }
    let mut ms = Vec::with_capacity(a.frames);
    let mut read_ms = Vec::with_capacity(a.frames);
    let mut lags = Vec::with_capacity(a.frames);
    let mut missing = 0usize;
    let mut checksum = 0.0f64;
    let start = Instant::now();
    for _ in 0..a.frames {
        let t = Instant::now();
        w.step(1.0 / 60.0)?;
        let r = Instant::now();
        let snapshot = match mode {
            Mode::Tracked => w.poll_bodies(),
            Mode::Blocking => Some(w.read_snapshot()?),
            Mode::Cpu => w.latest_bodies(),
        };
        // Before the first copy lands a game would draw the poses it set: count those frames.
        match snapshot {
            Some(s) => {
                for &h in &boxes {
                    match s.get(h) {
                        Some(b) => checksum += f64::from(b.position.y),
                        None => missing += 1,
                    }
                }
                lags.push((w.steps() - s.step()) as f64);
            }
            None => missing += boxes.len(),
        }
        read_ms.push(r.elapsed().as_secs_f64() * 1e3);
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let wall = start.elapsed().as_secs_f64() * 1e3 / a.frames as f64;
    let name = match mode {
        Mode::Tracked => "GPU, tracked (poll_bodies)",
        Mode::Blocking => "GPU, blocking (read_snapshot)",
        Mode::Cpu => "CPU twin (latest_bodies)",
    };
    let lag = if lags.is_empty() {
        "-".to_string()
    } else {
        format!("{:.0}", median(lags))
    };
    println!(
        "| {} | {name} | {:.3} | {:.2} | {wall:.2} | {lag} | {missing} | {checksum:.3e} |",
        boxes.len(),
        median(read_ms),
        median(ms)
    );
    Ok(())
}

fn main() -> Res<()> {
    let a = parse()?;
    println!(
        "| boxes | read | read ms/frame (median) | host ms/frame (median) | wall ms/frame (mean) | lag (steps) | poses \
         not yet read | Σy |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    if a.gpu {
        let ctx = wgphys::gpu::GpuContext::new()?;
        eprintln!("adapter: {}", ctx.describe());
        run(Mode::Tracked, Backend::Gpu(ctx.clone()), &a)?;
        run(Mode::Blocking, Backend::Gpu(ctx), &a)?;
    }
    if a.cpu {
        run(Mode::Cpu, Backend::Cpu, &a)?;
    }
    Ok(())
}
