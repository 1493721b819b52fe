//! The benchmark's command line: which scenes, sizes and engines to run, how many steps, and
//! the solver settings a run may change ([`Tuning`]).

use crate::{Res, Scene};

pub(crate) struct Args {
    pub(crate) quick: bool,
    pub(crate) sizes: Vec<u32>,
    pub(crate) scenes: Vec<Scene>,
    pub(crate) gpu: bool,
    pub(crate) cpu: bool,
    pub(crate) rapier: bool,
    pub(crate) rapier_default: bool,
    pub(crate) steps: Option<usize>,
    pub(crate) warmup: Option<usize>,
    pub(crate) markdown: Option<String>,
    /// Print wgphys' step report (read back now) every this many steps (diagnostics).
    pub(crate) report_every: Option<usize>,
    /// Relax iterations per substep instead of `RigidConfig`'s default (rapier "matched"
    /// follows), for comparisons at another iteration count; colour slots instead of its
    /// default.
    pub(crate) relax: Tuning,
}

/// Solver settings a run may change from `RigidConfig`'s defaults.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tuning {
    pub(crate) relax: Option<u32>,
    pub(crate) colour_slots: Option<u32>,
    /// `--blocks`: the block solver (`RigidConfig::with_blocks`; `--relax` then counts rounds).
    pub(crate) blocks: bool,
    /// `--block-sweeps N`: sweeps per block and relax round instead of `with_blocks`' 3.
    pub(crate) block_sweeps: Option<u32>,
    /// `--block-cells N`: the blocks' edge in grid cells instead of `with_blocks`' 16.
    pub(crate) block_cells: Option<u32>,
    /// `--substeps N`: solver substeps per step instead of `RigidConfig`'s 4.
    pub(crate) substeps: Option<u32>,
    /// `--contact-hertz F`: the soft contact's stiffness instead of `RigidConfig`'s 60 Hz.
    pub(crate) contact_hertz: Option<f32>,
    /// `--dispatch-timing`: a timestamp before every dispatch, printed per entry point (a
    /// profile: the timestamps cost time, so the row's wall time is not the step's).
    pub(crate) dispatch_timing: bool,
    /// `--submit-whole`: `RigidWorld::set_submit_by_phase(false)`, one submission per step
    /// (the default on a hardware adapter submits each phase as it is recorded).
    pub(crate) submit_whole: bool,
    /// `--block-stage`: `RigidWorld::set_block_staging(true)`, the block solver's bins solved
    /// against a workgroup copy of their bodies (with `--blocks`).
    pub(crate) block_stage: bool,
    /// `--pipelined N`: steps of the back-to-back measurement after a GPU row instead of 30
    /// (0 skips it: at 100k on a software adapter 30 steps take minutes).
    pub(crate) pipelined: Option<usize>,
    /// `--record-probe N`: after a GPU row, N steps recorded into encoders that are finished
    /// and dropped, never submitted; prints the median host time of `encode_step` and of
    /// `CommandEncoder::finish` (where wgpu turns the passes into the backend's commands), so
    /// a row's host time splits into recording and submitting. 0 (the default) skips it.
    pub(crate) record_probe: usize,
}

pub(crate) fn parse_args() -> Res<Args> {
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
        "--blocks",
        "--block-sweeps",
        "--block-cells",
        "--substeps",
        "--contact-hertz",
        "--dispatch-timing",
        "--submit-whole",
        "--block-stage",
        "--pipelined",
        "--record-probe",
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
                | "--block-sweeps"
                | "--block-cells"
                | "--substeps"
                | "--contact-hertz"
                | "--pipelined"
                | "--record-probe"
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
                "hulls" | "convex_pile" => Ok(Scene::ConvexPile),
                "convex_vs_mesh" => Ok(Scene::ConvexVsMesh),
                "terrain" => Ok(Scene::Terrain),
                "joint_grid" => Ok(Scene::JointGrid),
                "ragdoll_rain" => Ok(Scene::RagdollRain),
                "fleet" | "wavy_sea" => Ok(Scene::Fleet),
                _ => Err(format!(
                    "unknown scene {n:?} (pyramid, rain, hulls, convex_vs_mesh, terrain, joint_grid, \
                     ragdoll_rain, fleet)"
                )),
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
            blocks: flag("--blocks"),
            block_sweeps: value("--block-sweeps")?.map(|s| s.parse()).transpose()?,
            block_cells: value("--block-cells")?.map(|s| s.parse()).transpose()?,
            substeps: value("--substeps")?.map(|s| s.parse()).transpose()?,
            contact_hertz: value("--contact-hertz")?.map(|s| s.parse()).transpose()?,
            dispatch_timing: flag("--dispatch-timing"),
            submit_whole: flag("--submit-whole"),
            block_stage: flag("--block-stage"),
            pipelined: value("--pipelined")?.map(|s| s.parse()).transpose()?,
            record_probe: value("--record-probe")?
                .map(|s| s.parse())
                .transpose()?
                .unwrap_or(0),
        },
    })
}
