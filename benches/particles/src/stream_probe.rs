//! A probe for issue 10's cloud cliff: on an H100 the particle cloud (one dispatch, 120 bytes
//! a particle) streams near the memory's peak up to 3–4M particles and at a third of it from
//! 4–6M on, the cost per particle then flat. This streams the same bytes as the cloud (reads
//! 68 and writes 52 bytes an element, in four `vec4` arrays and two scalar arrays) through one
//! kernel, with the arrays laid out two ways:
//!
//! - `split`: six buffers, one per array, as the particle world allocates them;
//! - `one`: one buffer holding the six arrays one after another, bound as six ranges.
//!
//! If `one` keeps its speed past the size where `split` falls, the cliff comes from the
//! separate allocations (their placement or address translation), not from the kernel.
//! Each size allocates afresh and drops its buffers before the next.
//!
//! ```text
//! cargo run --release -p wgphys-particle-bench --bin stream_probe -- \
//!     --sizes 1000000,3000000,4000000,10000000
//! ```
//!
//! `--upload MB` first writes that many megabytes through one `queue.write_buffer` (as a bulk
//! spawn does) and drops the buffers. `--fill random` fills the arrays with values that differ element by element first (the
//! default, `zeros`, leaves them as allocated: data a GPU may compress).
//!
//! Prints the median GPU time (timestamp queries) of `--steps` dispatches (default 30) after 5
//! warm-up ones, and the bytes moved per second. Needs an adapter with timestamp queries; the
//! software adapters run it, slowly (use small sizes there).

mod stream;

use std::error::Error;
use stream::{Probe, BYTES_PER_ELEMENT};
use wgphys::gpu::GpuContext;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let sizes: Vec<u32> = match value("--sizes") {
        Some(list) => list
            .split(',')
            .map(|s| s.trim().parse::<u32>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("--sizes takes numbers separated by commas: {e}"))?,
        None => vec![1_000_000, 3_000_000, 4_000_000, 6_000_000, 10_000_000],
    };
    let steps: usize = match value("--steps") {
        Some(s) => s.parse().map_err(|e| format!("--steps: {e}"))?,
        None => 30,
    };
    let random = match value("--fill").as_deref() {
        None | Some("zeros") => false,
        Some("random") => true,
        Some(other) => return Err(format!("--fill takes zeros or random, not {other:?}").into()),
    };
    let ctx = GpuContext::new()?;
    println!("stream probe, adapter: {}", ctx.describe());
    println!("data: {}", if random { "random" } else { "zeros" });
    let probe = Probe::new(&ctx, random)?;
    if let Some(mb) = value("--upload") {
        let mb: u64 = mb
            .parse()
            .map_err(|e| format!("--upload takes megabytes: {e}"))?;
        upload(&ctx, mb)?;
        println!("uploaded {mb} MB through one queue.write_buffer first (buffers dropped)");
    }
    println!("| layout | elements | MB moved a dispatch | GPU ms (median) | TB/s |");
    println!("|---|---|---|---|---|");
    for &n in &sizes {
        for layout in ["split", "one"] {
            match probe.median_ms(&ctx, n, layout, steps) {
                Ok(ms) => {
                    let bytes = BYTES_PER_ELEMENT * u64::from(n);
                    println!(
                        "| {layout} | {n} | {:.0} | {ms:.3} | {:.2} |",
                        bytes as f64 / 1e6,
                        bytes as f64 / (ms * 1e-3) / 1e12
                    );
                }
                Err(e) => println!("| {layout} | {n} | – | {e} | – |"),
            }
        }
    }
    Ok(())
}

/// One `queue.write_buffer` of `mb` megabytes into a buffer of its own, waited for, then both
/// dropped: the particle world's bulk spawn uploads its records this way (a 10M cloud, about a
/// gigabyte), and the device ran every kernel slower after such a world (BENCHMARKS.md,
/// 2026-11-27, `7b9c45c`).
fn upload(ctx: &GpuContext, mb: u64) -> Result<(), Box<dyn Error>> {
    let bytes = mb * 1_000_000 / 4 * 4;
    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("stream_probe_upload"),
        size: bytes.max(4),
        usage: wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let data: Vec<u8> = (0..bytes).map(|i| (i % 251) as u8).collect();
    ctx.queue.write_buffer(&buffer, 0, &data);
    ctx.queue.submit([]);
    ctx.wait()?;
    Ok(())
}
