//! Determinism: the same scene run twice on the GPU gives identical bits, and the CPU path
//! reproduces golden hashes.
//!
//! The hash is FNV-1a over the `to_bits()` of every field of every live slot, in slot order,
//! followed by the pool counters (see `common::state_hash`).

mod common;

use common::*;
use wgphys::particles::ParticleWorld;
use wgphys::scenes;
use wgphys::Backend;

const STEPS: u64 = 300;

/// Which scene a run steps.
#[derive(Clone, Copy)]
enum Scene {
    Fireworks,
    Fountain,
    Emitters,
}

impl Scene {
    fn world(self, backend: Backend) -> ParticleWorld {
        match self {
            Scene::Fireworks => ParticleWorld::new(backend, scenes::fireworks_config(20_000, 3)),
            Scene::Fountain => ParticleWorld::new(backend, scenes::fountain_config(8192, 5)),
            Scene::Emitters => scenes::emitter_scene(backend, 8192, 7),
        }
        .expect("world")
    }
    fn tick(self, w: &mut ParticleWorld) {
        match self {
            Scene::Fireworks => scenes::fireworks_tick(w).expect("launch"),
            Scene::Fountain => scenes::fountain_tick(w, 20).expect("spawn"),
            Scene::Emitters => {}
        }
    }
}

/// Runs a scene for `STEPS` steps and returns the hash of the final state, plus the hashes at
/// every 50th step (so a mismatch says when the runs parted).
fn run_hashes(scene: Scene, backend: Backend) -> Vec<(u64, u64)> {
    let mut w = scene.world(backend);
    let mut out = Vec::new();
    for s in 1..=STEPS {
        scene.tick(&mut w);
        w.step(scenes::DT).expect("step");
        if s % 50 == 0 {
            out.push((s, state_hash(&w)));
        }
    }
    out
}

fn assert_runs_identical(name: &str, a: &[(u64, u64)], b: &[(u64, u64)]) {
    for (x, y) in a.iter().zip(b) {
        assert_eq!(
            x, y,
            "{name}: two GPU runs differ at step {} (hash {:#018x} vs {:#018x})",
            x.0, x.1, y.1
        );
    }
}

#[test]
fn fireworks_gpu_runs_are_bitwise_identical() {
    let a = run_hashes(Scene::Fireworks, Backend::Gpu(gpu()));
    let b = run_hashes(Scene::Fireworks, Backend::Gpu(gpu()));
    assert_runs_identical("fireworks", &a, &b);
}

#[test]
fn emitters_gpu_runs_are_bitwise_identical() {
    let a = run_hashes(Scene::Emitters, Backend::Gpu(gpu()));
    let b = run_hashes(Scene::Emitters, Backend::Gpu(gpu()));
    assert_runs_identical("emitters", &a, &b);
}

#[test]
fn fountain_gpu_runs_are_bitwise_identical() {
    let a = run_hashes(Scene::Fountain, Backend::Gpu(gpu()));
    let b = run_hashes(Scene::Fountain, Backend::Gpu(gpu()));
    assert_runs_identical("fountain", &a, &b);
}

/// Golden hashes of the CPU path after 300 steps.
///
/// These were minted from the implementation as it stood when the test was written, on purpose:
/// they pin the simulation, so any change to its arithmetic, its operation order, the random
/// numbers, the fireworks rules or the scenes shows up here. They assume IEEE f32 arithmetic
/// without fused multiply-adds (Rust never contracts) and glibc's `powf`, `cosf` and `sinf`
/// (x86_64 Linux, as CI runs); another libm may legitimately mint different values.
const GOLDEN_FIREWORKS: u64 = 0x62a0_fad5_48c7_96d5;
const GOLDEN_FOUNTAIN: u64 = 0xf1fe_88d9_6b18_8497;
/// Minted with the emitters (`scenes::emitter_scene`); re-minted when every emitted particle
/// came to name its emitter's slot in `life.kind` (for its box), which the hash covers.
const GOLDEN_EMITTERS: u64 = 0x7941_ddc7_e0a7_9025;

fn check_golden(name: &str, scene: Scene, golden: u64) {
    let got = run_hashes(scene, Backend::Cpu).last().expect("hashes").1;
    assert_eq!(
        got, golden,
        "{name}: the CPU path no longer reproduces the golden hash. New hash: {got:#018x}. Re-mint \
         only when the change is meant to alter the simulation, and say why in the commit."
    );
}

#[test]
fn fireworks_cpu_golden_hash() {
    check_golden("fireworks", Scene::Fireworks, GOLDEN_FIREWORKS);
}

#[test]
fn fountain_cpu_golden_hash() {
    check_golden("fountain", Scene::Fountain, GOLDEN_FOUNTAIN);
}

#[test]
fn emitters_cpu_golden_hash() {
    check_golden("emitters", Scene::Emitters, GOLDEN_EMITTERS);
}
