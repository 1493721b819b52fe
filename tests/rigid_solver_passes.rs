//! The contact solver's warm start and pass list (`src/rigid/solver.rs`, `src/rigid/step.rs`,
//! `shaders/rigid/solve.wgsl`): warm-start matching of pairs and features, the contact basis,
//! and GPU-vs-CPU parity of the whole solver, in both the fused and the per-colour dispatch
//! modes. The solver's passes, the dispatch budget of a step and the WGSL constants are in
//! `plan`; the block solver in `blocks`, the error model in `model`, the SIMD lanes in `lanes`.

mod common;

use common::rigid::solver::{manifold, params, random_scene};
use common::rigid::stages::sizes as stage_sizes;
use common::{gpu, Rng};
use glam::{Vec3, Vec4, Vec4Swizzles};
use wgphys::grid::GridSpec;
use wgphys::rigid::gpu::{GpuRigid, GpuRigidSizes, Pass, PassDispatch};
use wgphys::rigid::solver::{self, *};
use wgphys::rigid::step::{pair_groups, solver_ops, step_plan, RigidStage, StepOp, StepShape};
use wgphys::rigid::types::*;
use wgphys::rigid::RigidConfig;

// ---------------------------------------------------------------------------------------------
// Warm start and the pass list.

#[test]
fn warm_start_matches_pairs_and_features() {
    let mut p = params(4, 3);
    let pt = [(Vec3::ZERO, 0.01), (Vec3::X, 0.01)];
    let mut prev = vec![
        manifold(0, 1, (0, 1), Vec3::Y, &pt, 0.5, 0.0),
        manifold(0, 2, (0, 4), Vec3::Y, &pt, 0.5, 0.0),
        manifold(1, 3, (2, 5), Vec3::Y, &pt, 0.5, 0.0),
    ];
    for (k, m) in prev.iter_mut().enumerate() {
        m.impulses[0] = Vec4::new(1.0 + k as f32, 0.1, 0.2, 0.0);
        m.impulses[1] = Vec4::new(10.0 + k as f32, 0.0, 0.0, 0.0);
    }
    let mut ms = vec![
        manifold(0, 1, (0, 1), Vec3::Y, &pt, 0.5, 0.0),
        manifold(0, 2, (0, 3), Vec3::Y, &pt, 0.5, 0.0),
        // Same shapes, listed the other way round (keys are the ordered pair).
        manifold(1, 3, (5, 2), Vec3::Y, &pt, 0.5, 0.0),
    ];
    ms[0].features = [1, 7, 0, 0];
    ms[0].points[1] = Vec4::new(5.0, 0.0, 0.0, 0.01);
    // A new feature id at a previous point's place (within max(margin, slop) = 5 mm).
    ms[1].features = [8, 9, 0, 0];
    ms[1].shape_b = 4;
    ms[1].points[1] = Vec4::new(1.004, 0.0, 0.0, 0.01);
    warm_start(&p, &mut ms, &prev);
    assert_eq!(
        ms[1].impulses[1],
        Vec4::new(11.0, 0.0, 0.0, 0.0),
        "feature 9 at 4 mm from prev point 1 matches by position"
    );
    assert_eq!(
        ms[1].impulses[0],
        Vec4::new(2.0, 0.1, 0.2, 0.0),
        "feature 8 at prev point 0 matches by position"
    );
    ms[1].shape_b = 3;
    assert_eq!(
        ms[0].impulses[0],
        Vec4::new(10.0, 0.0, 0.0, 0.0),
        "feature 1 -> prev point 1"
    );
    assert_eq!(ms[0].impulses[1], Vec4::ZERO, "feature 7 is new and far");
    warm_start(&p, &mut ms, &prev);
    assert_eq!(ms[1].impulses[0], Vec4::ZERO, "pair (0, 3) is new");
    let w = ms[2].impulses[0];
    assert!(
        (w - Vec4::new(3.0, 0.1, 0.2, 0.0)).abs().max_element() < 1e-6,
        "{w}"
    );
    p.warm_start = 0;
    warm_start(&p, &mut ms, &prev);
    assert!(ms
        .iter()
        .all(|m| m.impulses.iter().all(|&i| i == Vec4::ZERO)));
    // A normal that turned keeps the world direction of the friction impulse.
    p.warm_start = 1;
    let n1 = Vec3::new(0.1, 1.0, 0.05).normalize();
    let mut ms = vec![manifold(0, 1, (0, 1), n1, &pt, 0.5, 0.0)];
    warm_start(&p, &mut ms, &prev[..1]);
    let (p1, p2) = contact_basis(Vec3::Y);
    let (t1, t2) = contact_basis(n1);
    let world = p1 * 0.1 + p2 * 0.2;
    let got = t1 * ms[0].impulses[0].y + t2 * ms[0].impulses[0].z;
    assert!((got - (world - n1 * world.dot(n1))).length() < 1e-6);
}

#[test]
fn the_contact_basis_is_orthonormal() {
    let mut rng = Rng::new(9);
    for _ in 0..1000 {
        let n = rng.vec3(-1.0, 1.0).normalize_or(Vec3::Z);
        let (t1, t2) = contact_basis(n);
        for (what, v) in [
            ("n·t1", n.dot(t1)),
            ("n·t2", n.dot(t2)),
            ("t1·t2", t1.dot(t2)),
        ] {
            assert!(v.abs() < 1e-5, "{what} = {v} for n {n}");
        }
        assert!((t1.length() - 1.0).abs() < 1e-5 && (t2.length() - 1.0).abs() < 1e-5);
    }
}

// ---------------------------------------------------------------------------------------------
// GPU parity.

struct GpuOut {
    bodies: Vec<GpuBody>,
    manifolds: Vec<GpuManifold>,
    counters: Vec<u32>,
    order: Vec<u32>,
}

/// Runs the solver passes on the GPU through the world's pass runner, with counters[PAIRS] = n
/// and the previous pair count where the solver keeps it.
fn run_gpu(
    p: &GpuRigidParams,
    passes: &[StepOp],
    bodies: &[GpuBody],
    ms: &[GpuManifold],
    prev: &[GpuManifold],
) -> GpuOut {
    let sizes = GpuRigidSizes {
        bodies: bodies.len() as u32,
        shapes: 16,
        pairs: p.pair_capacity,
        solver_words: u64::from(p.pair_capacity) * u64::from(solver_record_rows()),
        pair_scratch_words: 64,
        grid: GridSpec::new(1.0, 64).expect("grid"),
        block_bins: if p.block_shift > 0 { p.block_bins } else { 0 },
        joints: 0,
        joint_filter: 0,
        generators: 0,
    };
    let mut g = GpuRigid::new(&gpu(), sizes).expect("gpu backend");
    g.write(&g.params, &[*p]);
    g.write(&g.bodies, bodies);
    g.write(&g.manifolds, ms);
    g.write(&g.manifolds_prev, prev);
    // wake_mark leaves 1 in claims, and earlier steps their claim words and colour masks; the
    // colouring must not depend on them.
    g.write(&g.claims, &vec![1u32; 4 * bodies.len()]);
    let mut counters = vec![0u32; counter::LEN];
    counters[counter::PAIRS] = ms.len() as u32;
    // No joints: every slot is a contact.
    counters[counter::SLOTS] = ms.len() as u32;
    // What broad_scan_sums leaves for the per-pair stages' indirect dispatches.
    counters[counter::PAIR_GROUPS..counter::PAIR_GROUPS + 3].copy_from_slice(&[
        pair_groups(ms.len() as u32),
        1,
        1,
    ]);
    counters[COUNTER_PREV_PAIRS] = prev.len() as u32;
    g.write(&g.counters, &counters);
    let mut encoder = g
        .ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    // The step copies the counters into the indirect arguments before its collide pass (the
    // per-pair stages), again before its colour pass (the listed colouring rounds) and before
    // its solve pass (the colours' sweeps).
    let (mut copied_pairs, mut copied_waiting, mut copied_colours) = (false, false, false);
    for op in passes {
        let StepOp::Kernel {
            entry,
            dispatch,
            record,
            ..
        } = *op
        else {
            if let StepOp::ColourSort { slots } = *op {
                g.record_colour_sort(&mut encoder, slots)
                    .expect("colour sort");
            }
            continue;
        };
        if let PassDispatch::Indirect(word) = dispatch {
            let copied = match word as usize {
                counter::PAIR_GROUPS => &mut copied_pairs,
                counter::WAITING_GROUPS => &mut copied_waiting,
                _ => &mut copied_colours,
            };
            if !*copied {
                g.record_indirect_copy(&mut encoder);
                *copied = true;
            }
        }
        g.record(
            &mut encoder,
            &[Pass {
                entry,
                dispatch,
                colour: record,
            }],
        );
    }
    g.ctx.queue.submit([encoder.finish()]);
    g.ctx.wait().expect("wait");
    GpuOut {
        bodies: g.read(&g.bodies, bodies.len()).expect("read bodies"),
        manifolds: g.read(&g.manifolds, ms.len()).expect("read manifolds"),
        counters: g.read(&g.counters, counter::LEN).expect("read counters"),
        order: g.read(&g.order, ms.len()).expect("read order"),
    }
}

/// A scene with a hub touching 40 bodies (so the sequential colour is used), random manifolds,
/// and a previous step sharing half of the pairs, sorted by shape pair like the broad phase.
fn parity_scene(rng: &mut Rng) -> (Vec<GpuBody>, Vec<GpuManifold>, Vec<GpuManifold>) {
    let (bodies, mut ms) = random_scene(rng, 60, 110);
    for k in 0..40u32 {
        let other = 10 + k;
        if bodies[other as usize].kind != body_kind::DYNAMIC {
            continue;
        }
        let pa = bodies[0].pos.xyz();
        let n = rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y);
        ms.push(manifold(
            0,
            other,
            (0, 0),
            n,
            &[(pa + n * 0.5, 0.02)],
            0.4,
            0.2,
        ));
    }
    for (k, m) in ms.iter_mut().enumerate() {
        m.shape_a = 2 * k as u32;
        m.shape_b = 2 * k as u32 + 1;
    }
    let mut prev: Vec<GpuManifold> = ms.iter().step_by(2).copied().collect();
    for (k, m) in prev.iter_mut().enumerate() {
        for i in 0..4 {
            m.impulses[i] = Vec4::new(rng.range(0.0, 0.05), rng.range(-0.01, 0.01), 0.0, 0.0);
        }
        m.features.swap(0, 1);
        if k % 3 == 0 {
            // New feature ids at the same places: matched by position.
            m.features = m.features.map(|f| f + 100);
        }
    }
    (bodies, ms, prev)
}

/// [`parity_scene`] with rolling resistance on every fourth contact (a round surface of 0.1 m
/// and 0.005 m of rolling torque per unit normal impulse), so the GPU parity tests solve and
/// compare the rolling rows too (`lanes`' scalar reference has none).
fn rolling_parity_scene(rng: &mut Rng) -> (Vec<GpuBody>, Vec<GpuManifold>, Vec<GpuManifold>) {
    let (bodies, mut ms, prev) = parity_scene(rng);
    for m in ms.iter_mut().skip(1).step_by(4) {
        m.material.y = 0.1;
        m.material.w = 0.005;
    }
    (bodies, ms, prev)
}

/// The fields a solve computes, each with its own bound: a body's position, orientation,
/// linear and angular velocity and world inverse inertia, a point's accumulated impulse (xyz),
/// its largest normal impulse of the step (w, against its own scale so it does not widen the
/// tangents'), and a manifold's rolling impulse. Values are relative to max(|value|, 1).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Solved {
    pub pos: f32,
    pub orient: f32,
    pub lin_vel: f32,
    pub ang_vel: f32,
    pub inv_inertia_world: f32,
    pub impulse: f32,
    pub impulse_w: f32,
    pub rolling: f32,
}

impl Solved {
    const NAMES: [&'static str; 8] = [
        "pos",
        "orient",
        "lin_vel",
        "ang_vel",
        "inv_inertia_world",
        "impulses (xyz)",
        "impulses (largest normal, w)",
        "rolling",
    ];
    fn lanes(&self) -> [f32; 8] {
        [
            self.pos,
            self.orient,
            self.lin_vel,
            self.ang_vel,
            self.inv_inertia_world,
            self.impulse,
            self.impulse_w,
            self.rolling,
        ]
    }
    fn from_lanes(l: [f32; 8]) -> Self {
        Self {
            pos: l[0],
            orient: l[1],
            lin_vel: l[2],
            ang_vel: l[3],
            inv_inertia_world: l[4],
            impulse: l[5],
            impulse_w: l[6],
            rolling: l[7],
        }
    }
}

impl std::fmt::Display for Solved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (name, x) in Self::NAMES.iter().zip(self.lanes()) {
            write!(f, "{name} {x:.1e}  ")?;
        }
        Ok(())
    }
}

fn rel(x: Vec4, y: Vec4) -> f32 {
    (x - y).abs().max_element() / y.abs().max_element().max(1.0)
}

/// The largest relative difference of each solved field between two solves.
fn max_rel_diff(a: (&[GpuBody], &[GpuManifold]), b: (&[GpuBody], &[GpuManifold])) -> Solved {
    let mut d = [0.0f32; 8];
    for (x, y) in a.0.iter().zip(b.0) {
        let iw = (0..3)
            .map(|j| rel(x.inv_inertia_world[j], y.inv_inertia_world[j]))
            .fold(0.0, f32::max);
        for (k, v) in [
            rel(x.pos, y.pos),
            rel(x.orient, y.orient),
            rel(x.lin_vel, y.lin_vel),
            rel(x.ang_vel, y.ang_vel),
            iw,
        ]
        .into_iter()
        .enumerate()
        {
            d[k] = d[k].max(v);
        }
    }
    let w = |v: Vec4| Vec4::new(v.w, 0.0, 0.0, 0.0);
    for (x, y) in a.1.iter().zip(b.1) {
        for i in 0..4 {
            let (p, q) = (x.impulses[i], y.impulses[i]);
            d[5] = d[5].max(rel(p.truncate().extend(0.0), q.truncate().extend(0.0)));
            d[6] = d[6].max(rel(w(p), w(q)));
        }
        d[7] = d[7].max(rel(x.rolling, y.rolling));
    }
    Solved::from_lanes(d)
}

/// GPU against twin after a solve: every solved field within its bound (`tol`, the model's;
/// 0 for a field the passes leave alone, such as the pose after one colour batch), every other
/// field of every body and manifold (copied or set by the colouring) exactly.
fn assert_solve_close(
    what: &str,
    tol: Solved,
    got: (&[GpuBody], &[GpuManifold]),
    want: (&[GpuBody], &[GpuManifold]),
) {
    let d = max_rel_diff(got, want);
    for ((name, x), bound) in Solved::NAMES.iter().zip(d.lanes()).zip(tol.lanes()) {
        assert!(
            x <= bound,
            "{what}: {name} differs by {x:e} (relative), beyond the model's {bound:e}"
        );
    }
    for (i, (g, c)) in got.0.iter().zip(want.0).enumerate() {
        assert_eq!(
            (g.inv_inertia, g.force, g.torque, g.acc, g.last_acc),
            (c.inv_inertia, c.force, c.torque, c.acc, c.last_acc),
            "{what}: body {i}: inv_inertia, force, torque, acc, last_acc (not the solve's)"
        );
        assert_eq!(
            (
                g.kind,
                g.awake,
                g.can_sleep,
                g.flags,
                g.pos.w,
                g.lin_vel.w,
                g.ang_vel.w
            ),
            (
                c.kind,
                c.awake,
                c.can_sleep,
                c.flags,
                c.pos.w,
                c.lin_vel.w,
                c.ang_vel.w
            ),
            "{what}: body {i}: kind, awake, can_sleep, flags, inverse mass, dampings"
        );
    }
    for (k, (g, c)) in got.1.iter().zip(want.1).enumerate() {
        assert_eq!(
            (g.body_a, g.body_b, g.shape_a, g.shape_b, g.count, g.colour, g.dynamic),
            (c.body_a, c.body_b, c.shape_a, c.shape_b, c.count, c.colour, c.dynamic),
            "{what}: manifold {k}: ids, count, colour, dynamic bits"
        );
        assert_eq!(
            (g.normal, g.material, g.points, g.features),
            (c.normal, c.material, c.points, c.features),
            "{what}: manifold {k}: normal, material, points, features (the narrow phase's)"
        );
    }
}

/// All 32 colour slots (the scene wants about 40 colours, so the sequential colour fills).
#[test]
fn the_gpu_solver_matches_the_cpu_twin() {
    gpu_solver_matches_the_cpu_twin_in(0);
}

/// 12 colour slots: colours 0..10 one dispatch each, the other ~30 (and the sequential colour)
/// in the tail, one workgroup (`RigidConfig::colour_slots`).
#[test]
fn the_gpu_solver_matches_the_cpu_twin_in_12_colour_slots() {
    gpu_solver_matches_the_cpu_twin_in(12);
}

/// The same with the book's position projection after the velocity stages (one sweep,
/// `solve_position`; off by default), which reads the body-frame inertia too.
#[test]
fn the_gpu_solver_with_the_position_projection_matches_the_cpu_twin() {
    gpu_solver_matches_the_cpu_twin_with(0, 1);
}

fn gpu_solver_matches_the_cpu_twin_in(slots: u32) {
    gpu_solver_matches_the_cpu_twin_with(slots, 0);
}

fn gpu_solver_matches_the_cpu_twin_with(slots: u32, position_iterations: u32) {
    let mut rng = Rng::new(21);
    let (bodies, ms, prev) = rolling_parity_scene(&mut rng);
    let n = ms.len() as u32;
    let p = GpuRigidParams {
        colour_slots: slots,
        position_iterations,
        ..params(bodies.len() as u32, n + 13)
    };
    let mut want_bodies = bodies.clone();
    let mut want_ms = ms.clone();
    let report = solve(&p, &mut want_bodies, &mut want_ms, &prev);
    assert!(
        report.uncoloured > 0,
        "the scene should overflow into the sequential colour"
    );
    // The same solve rounded as a GPU compiler may (CpuRounding::Fused): the bound has to hold
    // between the twin's two roundings too, not only for the one Mesa shares with the CPU.
    let mut fused_bodies = bodies.clone();
    let mut fused_ms = ms.clone();
    wgphys::rounding::with_cpu_rounding(wgphys::CpuRounding::Fused, || {
        solve(&p, &mut fused_bodies, &mut fused_ms, &prev)
    });
    assert!(
        bytemuck::cast_slice::<GpuBody, u8>(&fused_bodies)
            != bytemuck::cast_slice::<GpuBody, u8>(&want_bodies),
        "the fused twin should round differently somewhere"
    );
    let tol = model_tolerance(&bodies, &ms, |m| {
        let (mut b, mut m) = (bodies.clone(), m.to_vec());
        solve(&p, &mut b, &mut m, &prev);
        (b, m)
    });
    let spread = max_rel_diff((&fused_bodies, &fused_ms), (&want_bodies, &want_ms));
    eprintln!("[measure] whole solve ({slots} slots): the model's bounds {tol}");
    eprintln!("[measure] whole solve ({slots} slots): the twin's two roundings differ by {spread}");
    assert_solve_close(
        "the twin's two roundings",
        tol,
        (&fused_bodies, &fused_ms),
        (&want_bodies, &want_ms),
    );
    let mut cpu_ms = ms.clone();
    solver::warm_start(&p, &mut cpu_ms, &prev);
    let colouring = colour_in(&bodies, &mut cpu_ms, slots);
    assert!(
        colouring.rounds > COLOUR_ROUNDS_OVER_ALL,
        "the scene should need the listed rounds ({} rounds)",
        colouring.rounds
    );
    let mut outputs: Vec<(Vec<GpuBody>, Vec<GpuManifold>)> = Vec::new();
    let per_colour = GpuRigidParams {
        pair_capacity: FUSED_MAX_MANIFOLDS + 1,
        ..p
    };
    let rounds = GpuRigidParams {
        pair_capacity: COLOUR_FUSED_MAX_MANIFOLDS + 1,
        ..p
    };
    let modes = [
        ("fused", p),
        ("fused, again", p),
        ("per-colour", per_colour),
        ("colouring in rounds", rounds),
    ];
    for (mode, mode_params) in &modes {
        // pair_capacity only sizes the buffers, whose extra slots stay empty.
        let passes = solver_passes(mode_params);
        let got = run_gpu(mode_params, &passes, &bodies, &ms, &prev);
        let d = max_rel_diff((&got.bodies, &got.manifolds), (&want_bodies, &want_ms));
        eprintln!("[measure] whole solve ({slots} slots), {mode}: GPU–twin {d}");
        for (word, want, what) in [
            (counter::COLOURS, report.colours, "colours"),
            (counter::UNCOLOURED, report.uncoloured, "uncoloured"),
            (counter::MANIFOLDS, report.manifolds, "manifolds"),
            (counter::ROUNDS, colouring.rounds, "rounds"),
            (counter::TAIL, colouring.tail, "tail"),
            (
                counter::COLOURS_WANTED,
                colouring.colours_wanted,
                "colours wanted",
            ),
            (COUNTER_PREV_PAIRS, n, "pair count kept for warm start"),
        ] {
            assert_eq!(got.counters[word], want, "{mode}: {what}");
        }
        let starts =
            &got.counters[counter::COLOUR_START..=counter::COLOUR_START + MAX_COLOURS as usize];
        assert_eq!(starts, &colouring.colour_start[..], "{mode}: colour starts");
        assert_eq!(
            &got.order[..colouring.order.len()],
            &colouring.order[..],
            "{mode}: order"
        );
        for c in 0..MAX_COLOURS as usize {
            let len = colouring.batch(c as u32).len() as u32;
            let want = if c as u32 == SEQUENTIAL_COLOUR {
                len.min(1)
            } else {
                len.div_ceil(RIGID_WG)
            };
            let w = counter::INDIRECT + 3 * c;
            assert_eq!(
                &got.counters[w..w + 3],
                &[want, 1, 1],
                "{mode}: indirect args of colour {c}"
            );
        }
        assert_solve_close(
            mode,
            tol,
            (&got.bodies, &got.manifolds),
            (&want_bodies, &want_ms),
        );
        outputs.push((got.bodies, got.manifolds));
    }
    // Same adapter, same inputs: bit-identical, whether the colours run as one fused dispatch
    // or one dispatch each, and whether the colouring runs in one workgroup or in rounds of
    // passes.
    for ((mode, _), o) in modes[1..].iter().zip(&outputs[1..]) {
        assert!(
            bytemuck::cast_slice::<GpuBody, u8>(&o.0)
                == bytemuck::cast_slice::<GpuBody, u8>(&outputs[0].0)
                && bytemuck::cast_slice::<GpuManifold, u8>(&o.1)
                    == bytemuck::cast_slice::<GpuManifold, u8>(&outputs[0].1),
            "{mode} is not bit-identical to the first fused run"
        );
    }
}

/// One colour batch alone: prepare, then a single `solve_contact` dispatch of colour 0.
#[test]
fn one_colour_batch_matches_the_cpu_twin() {
    let mut rng = Rng::new(4);
    let (bodies, ms, prev) = rolling_parity_scene(&mut rng);
    let p = GpuRigidParams {
        pair_capacity: FUSED_MAX_MANIFOLDS + 1,
        ..params(bodies.len() as u32, ms.len() as u32)
    };
    let (mut passes, mut colour_pass, _) = solver_ops(&shape_of(&p));
    passes.append(&mut colour_pass);
    passes.push(StepOp::Kernel {
        stage: RigidStage::SolveContact,
        entry: "solve_contact",
        dispatch: PassDispatch::Indirect(counter::INDIRECT as u32),
        record: 0,
    });
    let got = run_gpu(&p, &passes, &bodies, &ms, &prev);
    let one_batch = |ms: &[GpuManifold]| {
        let mut want_bodies = bodies.clone();
        let mut want_ms = ms.to_vec();
        solver::warm_start(&p, &mut want_ms, &prev);
        let c = colour(&want_bodies, &mut want_ms);
        let mut rows = vec![Vec4::ZERO; want_ms.len() * solver_rows_per_manifold() as usize];
        solve_prepare(&p, &want_bodies, &want_ms, &mut rows);
        let mut set = solver::VelocitySet::new(&p, &c, &want_bodies, &want_ms, &rows);
        set.solve_contact(&p, 0);
        set.store_velocities(&mut want_bodies);
        set.store_impulses(&mut want_ms);
        (want_bodies, want_ms, c.batch(0).len())
    };
    let (want_bodies, want_ms, batch) = one_batch(&ms);
    assert!(batch > 10, "colour 0 has {batch} manifolds");
    let tol = model_tolerance(&bodies, &ms, |m| {
        let (b, m, _) = one_batch(m);
        (b, m)
    });
    let d = max_rel_diff((&got.bodies, &got.manifolds), (&want_bodies, &want_ms));
    eprintln!("[measure] one colour batch: GPU–twin {d}");
    eprintln!("[measure] one colour batch: the model's bounds {tol}");
    assert_solve_close(
        "one batch",
        tol,
        (&got.bodies, &got.manifolds),
        (&want_bodies, &want_ms),
    );
}

#[path = "rigid_solver_passes/blocks.rs"]
mod blocks;
#[path = "rigid_solver_passes/plan.rs"]
mod plan;
use plan::{entry, shape_of, solver_passes, solver_passes_staged};
#[path = "rigid_solver_passes/model.rs"]
mod model;
use model::model_tolerance;
#[path = "rigid_solver_passes/lanes.rs"]
mod lanes;

/// The solver's records are laid out by row (`solve.wgsl` `SOLVE_RECORD_ROWS`), so a `solver`
/// buffer smaller than `pairs × solver_record_rows()` would let one position's rows run into the
/// next: building refuses it and names the field, and one row fewer than the minimum is enough.
#[test]
fn a_solver_buffer_too_small_for_the_pairs_is_refused() {
    let mut small = stage_sizes(32);
    small.solver_words -= 1;
    match wgphys::rigid::gpu::GpuRigid::new(&gpu(), small) {
        Err(wgphys::Error::InvalidInput { what, .. }) => {
            assert_eq!(what, "GpuRigidSizes::solver_words")
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a solver buffer one row short was accepted"),
    }
    assert!(wgphys::rigid::gpu::GpuRigid::new(&gpu(), stage_sizes(32)).is_ok());
}
