//! The rigid-body benchmark: the same scenes in wgphys (GPU path and CPU twin) and in rapier3d,
//! side by side in one run, printed as one table.
//!
//! Scenes (built by `wgphys::scenes::rigid`, copied body by body into a wgphys world with
//! [`PAIRS_PER_BODY`](run_wgphys::PAIRS_PER_BODY) pair slots per body, and mirrored from the
//! same body and shape tables into rapier, so every engine starts from the same poses, sizes and
//! masses):
//!
//! - **pyramid**: `pyramid(rows, half = 0.5)`, rows chosen so rows·(rows+1)/2 is the size
//!   (100, 200 and 447 rows for 5k, 20k and 100k). Stability: the largest displacement of any
//!   box between t = 1 s and the last step (a resting pyramid should not move).
//! - **rain**: `box_rain(n, half = 0.5, half_width, seed 7)`, the container sized for about four
//!   layers of falling boxes. Stability: the largest speed of any box after the last step and
//!   the mean height of the boxes' centres.
//! - **hulls** (`--scenes hulls`, not in the default set): Box3D's convex pile,
//!   `scenes::rocks::convex_pile(8, 8, n / 64, seed 7)`: 8 × 8 columns of hulls of 32 random
//!   points on a sphere of radius 2 (each its own hull), falling into a pit; n = 5120 is
//!   Box3D's 8 × 8 × 80. Built on each backend directly (the hulls are the world's data), and
//!   mirrored into rapier as `ConvexPolyhedron`s of the same vertices (rapier's own quickhull
//!   of them). Stability as for the rain.
//! - **convex_vs_mesh** (`--scenes convex_vs_mesh`, not in the default set): Jolt's
//!   `ConvexVsMesh`, `scenes::level::convex_vs_mesh(n, seed 7)`: n hulls and boxes (1,764 =
//!   42 × 42) dropped from a grid 2 m apart onto a wavy 20,000-triangle mesh 100 m across.
//! - **terrain** (`--scenes terrain`, not in the default set): the `terrain` example's scene,
//!   `scenes::level::terrain(n, seed 7)`: n rocks, crates and balls dropped over a 64 × 64
//!   heightfield slope that runs into a 4,928-triangle mesh bowl.
//!
//!   Both are built on each backend directly (the level is the world's data) and mirrored into
//!   rapier as a `TriMesh` and a `HeightField` of the world's stored triangles, with parry's
//!   internal-edge fix (`level.rs` says how the heightfield's conventions were matched), the
//!   hulls as `ConvexPolyhedron`s. Stability as for the rain. The solver flags (`--relax` and
//!   the others) do not reach them, as for the hulls.
//! - **joint_grid** (`--scenes joint_grid`, not run by default): `scenes::joints::joint_grid(n)`
//!   with n² the nearest square to the size (`--sizes 400,2500,10000`: 20×20, 50×50 and
//!   100×100, Box3D's size): spheres 1 m apart in a vertical plane, each joined to its right and
//!   lower neighbour by a ball joint (2n(n − 1) joints), the top row fixed, none sleeping. The
//!   body count in the table is the n(n − 1) dynamic spheres. Stability: how far the bottom row
//!   hangs below where it was built, the largest speed, the worst gap of a joint.
//! - **ragdoll_rain** (`--scenes ragdoll_rain`, not run by default):
//!   `scenes::joints::ragdoll_rain(size / 12)`, ragdolls of the book (12 boxes, 11 limited
//!   joints) dropped over stairs from four heights, landing on the stairs and on each other;
//!   every 30 steps, between timed steps, those asleep or past their lifetime (2.5 to 5 s)
//!   are dropped again from their spots (`RagdollRain::recycle`, a read back in wgphys; the same
//!   rule in rapier). 300 steps by default. Stability: the largest speed, the mean height, the
//!   worst gap of a joint, the drops after the first.
//!
//! - **fleet** (`--scenes fleet`, not run by default, wgphys only): `scenes::sailing::fleet`,
//!   size catamarans 8 m apart, each with two aerodynamic surfaces (a sail in a wind, a rudder)
//!   and four buoyancy points, on a sea whose two crossing swells move every float's water
//!   height before every step (`Fleet::waves`: an upload of each buoyancy generator's record,
//!   inside the timed step). No contacts. Stability: the largest speed, the mean height.
//!
//! The jointed scenes are built straight on the backend measured (not copied body by body) and
//! mirrored into rapier with its impulse joints (`joints.rs`: a spherical joint with per-angle
//! limits for a ball joint, a revolute joint for a hinge; what differs is said there).
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
//! cargo run --release -p wgphys-rigid-bench -- --sizes 400,2500 --scenes joint_grid
//! cargo run --release -p wgphys-rigid-bench -- --sizes 1200 --scenes ragdoll_rain
//! cargo run --release -p wgphys-rigid-bench -- --sizes 10000 --scenes fleet
//! cargo run --release -p wgphys-rigid-bench -- --sizes 5000,20000 --scenes pyramid --no-cpu
//! cargo run --release -p wgphys-rigid-bench -- --scenes hulls --sizes 5120 --no-rapier-default
//! cargo run --release -p wgphys-rigid-bench -- --scenes convex_vs_mesh --sizes 1764
//! cargo run --release -p wgphys-rigid-bench -- --scenes terrain --sizes 10000
//! cargo run --release -p wgphys-rigid-bench -- --markdown target/rigid.md
//! # diagnostics: wgphys' step report every step, and a check of the colouring
//! cargo run --release -p wgphys-rigid-bench -- --sizes 11000 --scenes pyramid --no-rapier \
//!     --steps 2 --warmup 0 --report-every 1
//! ```
//!
//! Other flags: `--no-gpu`, `--no-cpu`, `--no-rapier`, `--no-rapier-default`, `--relax N`
//! (relax iterations per substep instead of the default 8; rapier "matched" follows),
//! `--colour-slots N` (solver dispatches per sweep instead of the default 8), `--blocks` (the
//! block solver, `RigidConfig::with_blocks`: 3 relax rounds of 3 sweeps per block; `--relax`
//! then counts rounds, and rapier "matched" is not matched: run it with `--no-rapier`),
//! `--block-sweeps N` (sweeps per block and relax round), `--block-cells N` (the blocks' edge in
//! grid cells instead of 16), `--substeps N` (wgphys' solver substeps instead of 4; rapier keeps
//! 4), `--contact-hertz F` (the soft contact's stiffness instead of 60 Hz; rapier keeps its
//! own), `--dispatch-timing` (a GPU timestamp before every dispatch, printed per entry point: a
//! profile; the row's wall time then includes the timestamps' cost), `--submit-whole` (one
//! submission per step; by default a hardware adapter gets each phase as it is recorded),
//! `--block-stage` (with `--blocks`: each bin's bodies copied into workgroup memory for the
//! velocity stages, `RigidWorld::set_block_staging`; prints the bins staged in the last step).
//!
//! After each GPU row's timed steps, 30 more (`--pipelined N`: N; 0 skips them) are submitted
//! back to back with one wait at the end ("pipelined"): what a step costs when the host records
//! the next one while the GPU runs this one. Then, with `--record-probe N`, N steps are recorded
//! into encoders that are finished and dropped, never submitted, and the median host time of
//! `encode_step` and of wgpu's `finish` is printed: the row's host time less these is the
//! submission's.

mod args;
mod fleet;
mod joints;
mod level;
mod report;
mod run_rapier;
mod run_wgphys;

use std::error::Error;
use wgphys::gpu::GpuContext;

use args::parse_args;
use report::{table, Row};
use run_rapier::run_rapier;
use run_wgphys::run_wgphys;

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
    ConvexPile,
    ConvexVsMesh,
    Terrain,
    JointGrid,
    RagdollRain,
    Fleet,
}

impl Scene {
    fn name(self) -> &'static str {
        match self {
            Scene::Pyramid => "pyramid",
            Scene::Rain => "box rain",
            Scene::ConvexPile => "convex pile",
            Scene::ConvexVsMesh => "convex vs mesh",
            Scene::Terrain => "terrain",
            Scene::JointGrid => "joint grid",
            Scene::RagdollRain => "ragdoll rain",
            Scene::Fleet => "fleet on waves",
        }
    }
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
        (Scene::Pyramid | Scene::JointGrid, false) => 120,
        (Scene::Rain, false) => 180,
        (Scene::ConvexPile | Scene::ConvexVsMesh | Scene::Terrain, false) => 120,
        (Scene::RagdollRain, false) => 300,
        (Scene::Fleet, false) => 120,
    };
    let warmup = args.warmup.unwrap_or(if args.quick { 5 } else { 10 });
    println!(
        "dt = 1/60 s; {warmup} warm-up steps, then the median of the rest; steps per scene: {}",
        args.steps.map_or(
            format!(
                "pyramid and joint grid {}, box rain {}, ragdoll rain {}",
                default_steps(Scene::Pyramid),
                default_steps(Scene::Rain),
                default_steps(Scene::RagdollRain)
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
            // The fleet's force generators have no counterpart in rapier's mirror.
            if args.rapier && scene != Scene::Fleet {
                run(
                    "rapier3d matched",
                    run_rapier(scene, n, true, steps, warmup, args.relax),
                )?;
            }
            if args.rapier_default && scene != Scene::Fleet {
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
