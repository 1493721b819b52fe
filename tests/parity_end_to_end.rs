//! End to end: 300 steps (5 s) of the fireworks show and of the particle fountain on the GPU and
//! on the CPU twin. Every step: identical counters (live count, deaths, spawns, serials). Every
//! 50 steps: the same id, kind and age in every slot, and positions within the drift budget.

mod common;

use common::*;
use wgphys::particles::ParticleWorld;
use wgphys::scenes;

const STEPS: u64 = 300;
const CHECK_EVERY: u64 = 50;

/// Position drift budget of the fireworks show after up to 300 steps, metres.
///
/// Each step the two sides may round differently by about an ulp (the GPU's `pow` for the
/// damping factor, fused multiply-adds), and nothing in the show amplifies a difference: there
/// are no colliders, and a burst copies its parent's state into the children. So the drift grows
/// about linearly with the steps a particle and its ancestors lived. Shells rise up to ~200 m,
/// where an ulp is 1.5e-5 m, so 300 steps give a worst case of ~5e-3 m. Measured: 3.3e-5 m on
/// lavapipe and llvmpipe (two ulps at the top of the show). The budget, a millimetre, is 30× the
/// measurement, five times below the worst case, and a thousandth of what one wrong step costs.
const FIREWORKS_DRIFT: f32 = 1e-3;

/// Position drift budget of the fountain after up to 300 steps, metres.
///
/// Drops live 240 steps below ~8 m, where an ulp is 4.8e-7 m, so an ulp of disagreement per step
/// accumulates to at most ~1.1e-4 m, more only if a bounce off the sphere (R = 0.8 m) amplifies a
/// difference. Measured: 3.3e-6 m (lavapipe) and 4.8e-6 m (llvmpipe). The budget of 1e-4 m is
/// 20× the measurement and the linear worst case; a bounce resolved one step apart on the two
/// sides would cost centimetres.
const FOUNTAIN_DRIFT: f32 = 1e-4;

fn run(
    name: &str,
    mut g: ParticleWorld,
    mut c: ParticleWorld,
    tick: impl Fn(&mut ParticleWorld),
    budget: f32,
) {
    let mut worst = 0.0f32;
    let mut max_live = 0;
    for s in 1..=STEPS {
        tick(&mut g);
        tick(&mut c);
        g.step(scenes::DT).expect("gpu step");
        c.step(scenes::DT).expect("cpu step");
        // The counters are 64 bytes: compare them every step, the state every CHECK_EVERY.
        let what = format!("{name} step {s}");
        let (cg, cc) = (g.read_counters().unwrap(), c.read_counters().unwrap());
        assert_counters_eq(&what, &cg, &cc);
        if s % CHECK_EVERY != 0 {
            continue;
        }
        let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
        assert_eq!(
            sg.len(),
            cg.live as usize,
            "{what}: snapshot length vs counters.live"
        );
        max_live = max_live.max(sg.len());
        let loose = Tol {
            rel: 0.0,
            abs: budget,
        };
        // Ids, kinds and positions are checked slot by slot; velocities, colours and ages carry
        // the same drift divided by dt or faded by age, so the position budget is the one stated.
        let e = compare_snapshots(
            &what,
            &sg,
            &sc,
            SnapTol {
                pos: loose,
                vel: Tol {
                    rel: 0.0,
                    abs: f32::INFINITY,
                },
                other: Tol {
                    rel: 0.0,
                    abs: f32::INFINITY,
                },
            },
        );
        worst = worst.max(e.pos.abs);
        for i in 0..sg.len() {
            assert_eq!(
                sg.life[i].age.to_bits(),
                sc.life[i].age.to_bits(),
                "{what}: slot {i} life.age (ages add dt the same way on both)"
            );
        }
    }
    assert!(
        max_live >= 50,
        "{name}: at most {max_live} particles alive; the scene did not run"
    );
    eprintln!("[measure] {name}: max position drift {worst:.3e} m over {STEPS} steps (budget {budget:e}), peak live {max_live}");
}

#[test]
fn fireworks_show_gpu_matches_cpu() {
    let (g, c) = pair(&scenes::fireworks_config(20_000, 3));
    run(
        "fireworks",
        g,
        c,
        |w| scenes::fireworks_tick(w).expect("launch"),
        FIREWORKS_DRIFT,
    );
}

#[test]
fn fountain_gpu_matches_cpu() {
    let (g, c) = pair(&scenes::fountain_config(8192, 5));
    run(
        "fountain",
        g,
        c,
        |w| scenes::fountain_tick(w, 20).expect("spawn"),
        FOUNTAIN_DRIFT,
    );
}
