//! End to end: 300 steps (5 s) of the fireworks show and of the particle fountain on the GPU and
//! on the CPU twin. Every step: identical counters (live count, deaths, spawns, serials). Every
//! 50 steps, every field of every slot: the same id and kind, and the age, lifetime, own
//! acceleration, colour, size, position and velocity each within its bound from the error model
//! (tests/common/error_model.rs), written beside it below.

mod common;

use common::error_model::cost::{CONTRACT, DIV, ROUND};
use common::error_model::{trajectory_drift, Divergence, Drift, UNIT_ROUNDOFF};
use common::*;
use wgphys::particles::ParticleWorld;
use wgphys::scenes;
use wgphys::CpuRounding;

const STEPS: u64 = 300;
const CHECK_EVERY: u64 = 50;
const DT: f64 = 1.0 / 60.0;

/// The bounds of one scene: position and velocity per slot (with the decisions of model 3), and
/// the other fields' tolerances.
struct Bounds {
    pos: f32,
    vel: f32,
    divergence: Option<Divergence>,
    /// Acceleration, colour, size, age, lifetime (pos and vel are checked with `divergence`).
    rest: SnapTol,
}

/// The fireworks show's bounds.
///
/// * Position and velocity: model 2 with the damping factor's systematic part
///   ([`trajectory_drift`]): a lineage (a shell, its children, theirs) lives at most the run's
///   300 steps; besides the damping factor pow(d, dt), the velocity update rounds three times per
///   step (a·dt or its contraction, the sum, the product with the factor) at speeds up to
///   90 m/s (a 60 m/s shell's child launched at up to 28 m/s on top), the position once at up to
///   200 m (the shells' apex); at most 1,000 trajectories in a run (98 live at once). Nothing in
///   the show amplifies a difference (no colliders, no fields). A burst copies its parent's
///   position and velocity into its children and adds the launch velocity
///   vmin + (vmax − vmin)·u: CONTRACT of the spread (≤ 40 m/s), ROUND of the launch (≤ 60 m/s),
///   ROUND of the sum (≤ 90 m/s), a difference made once per burst (a lineage bursts at most
///   twice: 1 → 5 → 3) and carried to the end of the run (the damping factor ≤ 1 never grows
///   it): into the velocity as is, into the position times the time left, ≤ 300·dt.
/// * Its one decision, a particle dying below y = 0, would show in the counters, which must
///   match exactly: the model puts a flip at ~10⁻² per run (a few hundred crossings at
///   |v|·dt ≥ 0.3 m each, a drift of 10 µm). A fuse runs out when age ≥ lifetime, with the age
///   exact on both sides and a child's lifetime an ulp apart at most: a flip needs the age to
///   land within that ulp, ~10⁻⁷ per child.
/// * Lifetime: a shell's is drawn on the host (the same bits on both sides); a child's is
///   amin + (amax − amin)·u, CONTRACT + ROUND of the lifetime (amax − amin is the same bits).
/// * Colour: rule.colour·clamp(1 − age/lifetime, 0, 1), recomputed every step from the exact
///   age: the quotient's DIV and the lifetime's CONTRACT + ROUND (of age/lifetime < 1 for a live
///   firework), ROUND of the difference and ROUND of the product (colours ≤ 1), absolute.
/// * Age: one correctly rounded add of dt per step, the same operands: exact. Acceleration (the
///   rule's gravity, inverse mass 1) and size are copied from the rule: exact.
fn fireworks_bounds() -> Bounds {
    let Drift { pos, vel } = trajectory_drift(300, DT, 90.0, 200.0, 3, 1_000);
    let burst = 2.0 * (CONTRACT * 40.0 + ROUND * 60.0 + ROUND * 90.0) * UNIT_ROUNDOFF;
    let u = |x: f64| (x * UNIT_ROUNDOFF) as f32;
    Bounds {
        pos: (pos + burst * 300.0 * DT) as f32,
        vel: (vel + burst) as f32,
        divergence: None,
        rest: SnapTol {
            colour: Tol {
                rel: 0.0,
                abs: u(DIV + CONTRACT + 3.0 * ROUND),
            },
            lifetime: Tol {
                rel: u(CONTRACT + ROUND),
                abs: 0.0,
            },
            ..SnapTol::EXACT
        },
    }
}

/// The ground's restitution and friction in the fountain (`scenes::fountain_config`).
const GROUND_E: f64 = 0.5;
const GROUND_MU: f64 = 0.3;

/// The fountain's bounds.
///
/// * Position and velocity: model 2 with the damping factor's systematic part
///   ([`trajectory_drift`]): drops live 240 steps; the velocity update rounds three times per
///   step besides the damping factor (v + a·dt, a multiply and an add or one fused
///   multiply-add, then the product with the factor), and once more for the field sum
///   a + g + drag and the drag law's own evaluation (their differences, ≤ 40u of the drag's
///   0.35 m/s² and ROUND of ≤ 10 m/s², times dt, are below one rounding of the speed: counted as
///   one), at speeds up to 11.1 m/s (launch speed at most √(11² + 1.2²)); the position once at up
///   to 8 m from the origin; ~4,820 drops live at once. The drag is contracting (its Jacobian's
///   eigenvalues are −(k1 + k2·s) and −(k1 + 2k2·s)).
/// * The ground: the push-out p + n·pen projects a resolved centre onto the plane (its normal
///   component's difference is dropped, the rest kept), and a bounce scales the normal
///   velocity's difference δn by e and adds at most μ(1 + e)·δn to the tangential one (the
///   friction's reach μ(1 + e)|vn|). A difference added at a rate ε per step over the drop's N
///   steps reaches the normal component at bounce b as at most Σ_j e^(b − j)·ε·n_j (n_j steps
///   before bounce j), so all bounces together add at most μ(1 + e)·ε·N/(1 − e) to the
///   tangential part, however many there are: the drift times A = 1 + μ(1 + e)/(1 − e) = 1.9.
/// * Decisions ([`FOUNTAIN_DIVERGENCE`]): a drop whose contact test (penetration > −slop) went
///   the other way, or that bounced off the sphere (a curved surface turns a position
///   difference δ into a direction difference δ/R), may leave these bounds.
/// * Lifetime (4 s), colour, size and acceleration are the host's spawn, copied: exact. Age: one
///   correctly rounded add of dt per step: exact.
fn fountain_bounds() -> Bounds {
    let Drift { pos, vel } = trajectory_drift(240, DT, 11.1, 8.0, 4, 5_000);
    let amplify = 1.0 + GROUND_MU * (1.0 + GROUND_E) / (1.0 - GROUND_E);
    Bounds {
        pos: (amplify * pos) as f32,
        vel: (amplify * vel) as f32,
        divergence: Some(FOUNTAIN_DIVERGENCE),
        rest: SnapTol::EXACT,
    }
}

/// Model 3 for the fountain: a drop whose contact test went the other way is a step ahead or
/// behind in its bounce, one step of its travel after restitution: (1 + e)·v·dt ≤ 1.6 ×
/// 11.1 m/s / 60 ≈ 0.3 m; its velocity, at the step between, differs by what the bounce changes,
/// (1 + e)(1 + μ)·|v| ≤ max(1.5 × 1.3, 1.6 × 1.1) × 11.1 ≈ 21.7 m/s (the ground's e = 0.5,
/// μ = 0.3; the sphere's e = 0.6, μ = 0.1). At most 1% of the drops: the model expects a handful
/// of flips per run (a few thousand bounces, each flipping with probability ~2δ/(|v|·dt) ~ 10⁻³
/// for a drift δ of µm); a stage that is wrong moves every drop it touches.
const FOUNTAIN_DIVERGENCE: Divergence = Divergence {
    worth: 0.3,
    vel_worth: 21.7,
    share: 0.01,
};

fn run(
    name: &str,
    mut g: ParticleWorld,
    mut c: ParticleWorld,
    tick: impl Fn(&mut ParticleWorld),
    b: &Bounds,
) {
    let (mut worst, mut rest) = ((0.0f32, 0.0f32), SnapErr::default());
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
        // Ids and kinds exactly, the other fields within `rest`; positions and velocities below,
        // slot by slot, with the decisions taken the other way.
        let checked_below = Tol {
            rel: 0.0,
            abs: f32::INFINITY,
        };
        rest.merge(compare_snapshots(
            &what,
            &sg,
            &sc,
            SnapTol {
                pos: checked_below,
                vel: checked_below,
                ..b.rest
            },
        ));
        let (mut diverged, mut worst_diverged) = (0usize, (0.0f32, 0.0f32));
        for i in 0..sg.len() {
            assert_eq!(
                (sg.pos[i].w, sg.vel[i].w),
                (sc.pos[i].w, sc.vel[i].w),
                "{what}: slot {i} (pos.w, vel.w): copied"
            );
            let dp = (sg.pos[i] - sc.pos[i]).truncate().abs().max_element();
            let dv = (sg.vel[i] - sc.vel[i]).truncate().abs().max_element();
            if dp <= b.pos && dv <= b.vel {
                worst = (worst.0.max(dp), worst.1.max(dv));
                continue;
            }
            let Some(div) = b.divergence else {
                panic!(
                    "{what}: slot {i}: pos gpu {} vs cpu {} (|diff| {dp:e}, bound {:e}), vel gpu \
                     {} vs cpu {} (|diff| {dv:e}, bound {:e})",
                    sg.pos[i], sc.pos[i], b.pos, sg.vel[i], sc.vel[i], b.vel
                );
            };
            assert!(
                dp <= div.worth && dv <= div.vel_worth,
                "{what}: slot {i}: pos gpu {} vs cpu {} (|diff| {dp:e}), vel gpu {} vs cpu {} \
                 (|diff| {dv:e}), beyond what a decision taken the other way is worth ({:e} m, \
                 {:e} m/s)",
                sg.pos[i],
                sc.pos[i],
                sg.vel[i],
                sc.vel[i],
                div.worth,
                div.vel_worth
            );
            diverged += 1;
            worst_diverged = (worst_diverged.0.max(dp), worst_diverged.1.max(dv));
        }
        if let Some(div) = b.divergence {
            assert!(
                diverged <= div.max_slots(sg.len()),
                "{what}: {diverged} of {} slots beyond the drift bounds {:e} m, {:e} m/s (at most \
                 {})",
                sg.len(),
                b.pos,
                b.vel,
                div.max_slots(sg.len())
            );
            if diverged > 0 {
                eprintln!(
                    "[measure] {what}: {diverged} divergent slot(s), largest {:e} m, {:e} m/s",
                    worst_diverged.0, worst_diverged.1
                );
            }
        }
    }
    assert!(
        max_live >= 50,
        "{name}: at most {max_live} particles alive; the scene did not run"
    );
    eprintln!(
        "[measure] {name}: max drift {:.3e} m (bound {:.3e}), {:.3e} m/s (bound {:.3e}) over \
         {STEPS} steps, peak live {max_live}; {rest}",
        worst.0, b.pos, worst.1, b.vel
    );
}

fn fireworks(rounding: CpuRounding) {
    let (g, mut c) = pair(&scenes::fireworks_config(20_000, 3));
    c.set_cpu_rounding(rounding);
    run(
        &format!("fireworks ({rounding:?} CPU)"),
        g,
        c,
        |w| scenes::fireworks_tick(w).expect("launch"),
        &fireworks_bounds(),
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
        &fountain_bounds(),
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
