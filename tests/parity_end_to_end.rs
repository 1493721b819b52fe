//! End to end: 300 steps (5 s) of the fireworks show and of the particle fountain on the GPU and
//! on the CPU twin. Every step: identical counters (live count, deaths, spawns, serials). Every
//! 50 steps: the same id, kind and age in every slot, and positions within the drift budget.

mod common;

use common::*;
use wgphys::particles::ParticleWorld;
use wgphys::scenes;
use wgphys::CpuRounding;

const STEPS: u64 = 300;
const CHECK_EVERY: u64 = 50;

/// Position drift budget of the fireworks show, metres, from the error model's rounding drift
/// (`tests/common/error_model.rs`, model 2): 300 steps; the velocity update rounds three times
/// per step (v + a·dt and the damping factor) at speeds up to 90 m/s (a 60 m/s shell's child
/// launched at up to 28 m/s on top), the position once at up to 200 m (the shells' apex); at
/// most 1,000 trajectories in a run (98 live at once). Nothing in the show amplifies a difference (no colliders; a burst copies its
/// parent's state into the children). Its one decision, a particle dying below y = 0, would
/// show in the counters, which must match exactly: the model puts a flip at ~10⁻² per run
/// (a few hundred crossings at |v|·dt ≥ 0.3 m each, a drift of 10 µm).
fn fireworks_drift() -> f32 {
    error_model::random_walk_drift(300, 1.0 / 60.0, 90.0, 200.0, 3, 1_000) as f32
}

/// Position drift budget of the fountain, metres, from the error model's rounding drift
/// (`tests/common/error_model.rs`, model 2): drops live 240 steps; the velocity update rounds
/// three times per step (v + a·dt, a multiply and an add or one fused multiply-add, then the
/// damping factor) at speeds up to 11.1 m/s (launch speed at most √(11² + 1.2²)), the position
/// once at up to 8 m from the origin; ~4,820 drops live at once. Bounces off the ground (a
/// plane) do not amplify a difference; a bounce off the sphere, or a contact decided a step
/// apart, makes a slot divergent (model 3, [`FOUNTAIN_DIVERGENCE`]).
fn fountain_drift() -> f32 {
    error_model::random_walk_drift(240, 1.0 / 60.0, 11.1, 8.0, 3, 5_000) as f32
}

/// Model 3 for the fountain: a drop whose contact test (penetration > −slop) went the other way
/// is a step ahead or behind in its bounce, one step of its travel after restitution:
/// (1 + e)·v·dt ≤ 1.6 × 11.1 m/s / 60 ≈ 0.3 m. At most 1% of the drops: the model expects a
/// handful of flips per run (a few thousand bounces, each flipping with probability
/// ~2δ/(|v|·dt) ~ 10⁻³ for a drift δ of µm); a stage that is wrong moves every drop it touches.
const FOUNTAIN_DIVERGENCE: error_model::Divergence = error_model::Divergence {
    worth: 0.3,
    share: 0.01,
};

fn run(
    name: &str,
    mut g: ParticleWorld,
    mut c: ParticleWorld,
    tick: impl Fn(&mut ParticleWorld),
    budget: f32,
    divergence: Option<error_model::Divergence>,
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
        // Ids, kinds and ages are checked slot by slot (exact); positions against the drift
        // budget, or, for at most the divergence's share of the slots, its worth. Velocities,
        // colours and ages carry the same drift divided by dt or faded by age, so the
        // position budget is the one stated.
        let any = Tol {
            rel: 0.0,
            abs: f32::INFINITY,
        };
        compare_snapshots(
            &what,
            &sg,
            &sc,
            SnapTol {
                pos: any,
                vel: any,
                other: any,
            },
        );
        let (mut diverged, mut worst_diverged) = (0usize, 0.0f32);
        let mut e = SnapErr::default();
        for i in 0..sg.len() {
            let d = (sg.pos[i] - sc.pos[i]).abs().max_element();
            if d <= budget {
                e.pos.abs = e.pos.abs.max(d);
                continue;
            }
            let Some(div) = divergence else {
                panic!(
                    "{what}: slot {i} pos: gpu {} vs cpu {}, |diff| {d:e} > budget {budget:e}",
                    sg.pos[i], sc.pos[i]
                );
            };
            assert!(
                d <= div.worth,
                "{what}: slot {i} pos: gpu {} vs cpu {}, |diff| {d:e} beyond what a decision \
                 taken the other way is worth ({:e})",
                sg.pos[i],
                sc.pos[i],
                div.worth
            );
            diverged += 1;
            worst_diverged = worst_diverged.max(d);
        }
        if let Some(div) = divergence {
            assert!(
                diverged <= div.max_slots(sg.len()),
                "{what}: {diverged} of {} slots beyond the drift budget {budget:e} (at most {})",
                sg.len(),
                div.max_slots(sg.len())
            );
            if diverged > 0 {
                eprintln!(
                    "[measure] {what}: {diverged} divergent slot(s), largest {worst_diverged:e} m"
                );
            }
        }
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

fn fireworks(rounding: CpuRounding) {
    let (g, mut c) = pair(&scenes::fireworks_config(20_000, 3));
    c.set_cpu_rounding(rounding);
    run(
        &format!("fireworks ({rounding:?} CPU)"),
        g,
        c,
        |w| scenes::fireworks_tick(w).expect("launch"),
        fireworks_drift(),
        None,
    );
}

fn fountain(rounding: CpuRounding) {
    let (g, mut c) = pair(&scenes::fountain_config(8192, 5));
    c.set_cpu_rounding(rounding);
    run(
        &format!("fountain ({rounding:?} CPU)"),
        g,
        c,
        |w| scenes::fountain_tick(w, 20).expect("spawn"),
        fountain_drift(),
        Some(FOUNTAIN_DIVERGENCE),
    );
}

#[test]
fn fireworks_show_gpu_matches_cpu() {
    fireworks(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn fireworks_show_gpu_matches_fused_cpu() {
    fireworks(CpuRounding::Fused);
}

#[test]
fn fountain_gpu_matches_cpu() {
    fountain(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn fountain_gpu_matches_fused_cpu() {
    fountain(CpuRounding::Fused);
}
