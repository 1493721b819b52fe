//! Stage `generators` on the GPU against its CPU twin: the stage alone on seeded random bodies
//! and generators, body slot for body slot; a scene with every kind stepped 60 times on both
//! backends (and the twin in both roundings) while controls, the wind, an anchor and the water
//! change between steps; two GPU runs bit-identical.

mod common;

use common::error_model::UNIT_ROUNDOFF as U;
use common::rigid::stages::{random_body, sizes};
use common::rigid::*;
use common::{shared_gpu as gpu, Rng};
use glam::{Mat3, Quat, Vec3, Vec4Swizzles};
use wgphys::rigid::generators::{build_index, generator_force, generators};
use wgphys::rigid::gpu::{GpuRigid, GpuRigidSizes, Pass};
use wgphys::rigid::types::*;
use wgphys::rigid::{BodyHandle, Collider, ForceGen, ForceGenHandle, RigidConfig, RigidWorld};
use wgphys::{Backend, CpuRounding};

fn random_tensor(rng: &mut Rng) -> Mat3 {
    Mat3::from_cols(
        rng.vec3(-1.0, 1.0),
        rng.vec3(-1.0, 1.0),
        rng.vec3(-1.0, 1.0),
    )
}

/// A seeded random generator of every kind on random bodies (a spring's two differ).
fn random_generator(rng: &mut Rng, n: u32, k: u32, h: BodyHandle) -> GpuForceGen {
    // `to_gpu` takes the body slots separately and never reads the handles: any live one will
    // do for building the description.
    let handle = |_: u32| h;
    let a = rng.below(n);
    let b = (a + 1 + rng.below(n - 1)) % n;
    let p = rng.vec3(-1.0, 1.0);
    let gen = match k % 7 {
        0 => ForceGen::Spring {
            a: handle(a),
            point_a: p,
            b: handle(b),
            point_b: rng.vec3(-1.0, 1.0),
            stiffness: rng.range(1.0, 50.0),
            rest_length: rng.range(0.0, 2.0),
        },
        1 => ForceGen::anchored_spring(handle(a), p, rng.vec3(-5.0, 5.0), 20.0, 1.0),
        2 => ForceGen::aero(handle(a), random_tensor(rng), p).with_wind(rng.vec3(-3.0, 3.0)),
        3 => ForceGen::AeroControl {
            body: handle(a),
            min: random_tensor(rng),
            base: random_tensor(rng),
            max: random_tensor(rng),
            point: p,
            wind: rng.vec3(-3.0, 3.0),
            control: rng.range(-1.0, 1.0),
        },
        4 => ForceGen::angled_aero(
            handle(a),
            random_tensor(rng),
            Quat::from_axis_angle(rng.vec3(-1.0, 1.0).normalize(), rng.range(0.0, 3.0)),
            p,
        ),
        5 => ForceGen::thrust(handle(a), rng.vec3(-20.0, 20.0), p),
        _ => ForceGen::buoyancy(
            handle(a),
            p,
            rng.range(0.2, 2.0),
            rng.range(0.1, 1.0),
            rng.range(-5.0, 5.0),
        ),
    };
    let other = if k.is_multiple_of(7) { Some(b) } else { None };
    gen.to_gpu(a, other, 9.81).expect("a valid generator")
}

/// The stage alone on 300 seeded random bodies (every kind, some asleep) and 600 random
/// generators: each body's velocity and spin from the GPU against the twin's. A body's error:
/// each generator's force passes through up to three quaternion rotations (34u each, catalogue
/// of `common::error_model`), a tensor product (DOT3 + ROUND), the point velocity (ω × r:
/// CONTRACT + ROUND) and the spring's length and division (LENGTH + DIV): at most 150u of
/// |f_k|·(1 + |r|) with |r| ≤ √3; the sum over a body's generators adds ROUND per term; m⁻¹·h
/// and I⁻¹·τ·h add DOT3 + 2·ROUND, and the final v + Δv ROUND of |v'|. So the bound is
/// U·(160·Σ|Δv_k| + 2·|v'|), Σ|Δv_k| each generator's own velocity change (its force, and
/// torque through I⁻¹, times h), from the twin's `generator_force`. Every other field is
/// unchanged bit for bit.
#[test]
fn the_generators_stage_matches_the_cpu_twin_slot_for_slot() {
    let mut rng = Rng::new(38);
    let n = 300u32;
    let mut w = RigidWorld::new(Backend::Cpu, config(1)).expect("world");
    let h = w
        .add_body(free_body(Vec3::ZERO, 1.0), &[Collider::sphere(0.1)])
        .expect("body");
    let mut bodies: Vec<GpuBody> = (0..n).map(|i| random_body(&mut rng, i)).collect();
    let gens: Vec<GpuForceGen> = (0..2 * n)
        .map(|k| random_generator(&mut rng, n, k, h))
        .collect();
    let index = build_index(&gens, n);
    let params = GpuRigidParams {
        body_count: n,
        dt: 1.0 / 240.0,
        ..Default::default()
    };
    let mut g = GpuRigid::new(
        &gpu(),
        GpuRigidSizes {
            generators: gens.len() as u32,
            ..sizes(n)
        },
    )
    .expect("gpu backend");
    g.write(&g.params, &[params]);
    g.write(&g.bodies, &bodies);
    g.write(&g.force_gens, &gens);
    g.write(&g.generator_index, &index);
    g.run(&[Pass::over("generators", n)]).expect("run");
    let got: Vec<GpuBody> = g.read(&g.bodies, n as usize).expect("read");
    let before = bodies.clone();
    generators(&params, &gens, &index, &mut bodies);
    let mut moved = 0;
    for (i, (a, c)) in got.iter().zip(&bodies).enumerate() {
        let b = &before[i];
        let (start, end) = (index[1 + i] as usize, index[2 + i] as usize);
        let (mut dv, mut dw) = (0.0f64, 0.0f64);
        for &k in &index[start..end] {
            let (f, t) = generator_force(&gens[k as usize], i as u32, &before);
            let iw = Mat3::from_cols(
                b.inv_inertia_world[0].xyz(),
                b.inv_inertia_world[1].xyz(),
                b.inv_inertia_world[2].xyz(),
            );
            dv += f64::from(f.length() * b.pos.w * params.dt);
            dw += f64::from((iw * t).length() + (iw * f).length() * 3f32.sqrt())
                * f64::from(params.dt);
        }
        let vb = (U * (160.0 * dv + 2.0 * f64::from(c.lin_vel.xyz().length()))) as f32;
        let wb = (U * (160.0 * dw + 2.0 * f64::from(c.ang_vel.xyz().length()))) as f32;
        let (ev, ew) = (
            (a.lin_vel.xyz() - c.lin_vel.xyz()).length(),
            (a.ang_vel.xyz() - c.ang_vel.xyz()).length(),
        );
        assert!(
            ev <= vb,
            "body {i} lin_vel: gpu {:?} cpu {:?} (bound {vb:e})",
            a.lin_vel,
            c.lin_vel
        );
        assert!(
            ew <= wb,
            "body {i} ang_vel: gpu {:?} cpu {:?} (bound {wb:e})",
            a.ang_vel,
            c.ang_vel
        );
        assert_eq!(a.lin_vel.w, c.lin_vel.w, "body {i} damping");
        let rest = |x: &GpuBody| GpuBody {
            lin_vel: glam::Vec4::ZERO,
            ang_vel: glam::Vec4::ZERO,
            ..*x
        };
        assert_eq!(
            rest(a),
            rest(c),
            "body {i}: the fields the stage does not write"
        );
        if c.lin_vel != b.lin_vel {
            moved += 1;
        }
    }
    // One body in seven is dynamic (`random_body`), four in five of those awake: 34 of 300.
    assert!(moved > 25, "the generators pushed {moved} bodies");
}

/// Every kind in motion, no contacts: a pair of boxes on a spring tumbling, a ball on a spring
/// to an anchor that moves, a falling plate with a drag tensor off its centre, a wing body with
/// two control surfaces whose controls change, an angled sail turning in a wind that changes,
/// and a raft on four buoyancy points in waves (the water height changes every step).
struct Scene {
    w: RigidWorld,
    anchor: ForceGenHandle,
    wings: [ForceGenHandle; 2],
    sail: ForceGenHandle,
    floats: Vec<ForceGenHandle>,
}

fn scene(backend: Backend, rounding: CpuRounding) -> Scene {
    let cfg = RigidConfig {
        cpu_rounding: rounding,
        ..config(16)
    };
    let mut w = RigidWorld::new(backend, cfg).expect("world");
    let boxy = |w: &mut RigidWorld, at: Vec3, m: f32, q: Quat| -> BodyHandle {
        w.add_body(
            free_body(at, m).rotation(q),
            &[Collider::cuboid(Vec3::new(0.4, 0.2, 0.3))],
        )
        .expect("box")
    };
    let a = boxy(
        &mut w,
        Vec3::new(0.0, 10.0, 0.0),
        1.0,
        Quat::from_rotation_z(0.3),
    );
    let b = boxy(&mut w, Vec3::new(1.5, 10.5, 0.2), 2.0, Quat::IDENTITY);
    w.add_force_generator(ForceGen::spring(
        a,
        Vec3::new(0.3, 0.1, 0.0),
        b,
        Vec3::new(-0.2, 0.0, 0.1),
        40.0,
        1.0,
    ))
    .expect("spring");
    let ball = boxy(&mut w, Vec3::new(4.0, 10.0, 0.0), 1.0, Quat::IDENTITY);
    let anchor = w
        .add_force_generator(ForceGen::anchored_spring(
            ball,
            Vec3::new(0.0, 0.2, 0.0),
            Vec3::new(4.0, 11.0, 0.0),
            30.0,
            0.5,
        ))
        .expect("anchored");
    let plate = boxy(
        &mut w,
        Vec3::new(8.0, 20.0, 0.0),
        1.0,
        Quat::from_rotation_x(0.2),
    );
    w.add_force_generator(ForceGen::aero(
        plate,
        Mat3::from_diagonal(Vec3::new(-0.1, -2.0, -0.1)),
        Vec3::new(0.2, 0.0, 0.1),
    ))
    .expect("plate");
    let plane = boxy(&mut w, Vec3::new(12.0, 30.0, 0.0), 2.5, Quat::IDENTITY);
    w.set_linear_velocity(plane, Vec3::new(-10.0, 0.0, 0.0))
        .expect("fly");
    let wing = |z: f32| {
        let (min, base, max) = wgphys::scenes::flight::wing_tensors();
        ForceGen::aero_control(plane, min, base, max, Vec3::new(-1.0, 0.0, z))
    };
    let wings = [
        w.add_force_generator(wing(2.0)).expect("wing"),
        w.add_force_generator(wing(-2.0)).expect("wing"),
    ];
    let boat = boxy(
        &mut w,
        Vec3::new(16.0, 0.0, 0.0),
        200.0,
        Quat::from_rotation_x(0.1),
    );
    let sail = w
        .add_force_generator(
            ForceGen::angled_aero(
                boat,
                Mat3::from_diagonal(Vec3::new(0.0, 0.0, -50.0)),
                Quat::IDENTITY,
                Vec3::new(0.0, 2.0, 0.0),
            )
            .with_wind(Vec3::new(3.0, 0.0, 4.0)),
        )
        .expect("sail");
    let floats = [(-1.0, -0.5), (-1.0, 0.5), (1.0, -0.5), (1.0, 0.5)]
        .map(|(x, z)| {
            w.add_force_generator(ForceGen::buoyancy(
                boat,
                Vec3::new(x, 0.0, z),
                0.5,
                0.1,
                0.0,
            ))
            .expect("float")
        })
        .to_vec();
    Scene {
        w,
        anchor,
        wings,
        sail,
        floats,
    }
}

/// Steps the scene `steps` times from step `from`, changing the controls, the wind, the
/// anchor and the waves between steps as the demos do.
fn run_scene(s: &mut Scene, from: usize, steps: usize) {
    for k in from..from + steps {
        let t = k as f32 * DT;
        let c = (0.7 * t).sin();
        s.w.set_generator_control(s.wings[0], c).expect("control");
        s.w.set_generator_control(s.wings[1], -c).expect("control");
        s.w.set_generator_wind(s.sail, Vec3::new(3.0 * t.cos(), 0.0, 4.0))
            .expect("wind");
        s.w.set_generator_orientation(s.sail, Quat::from_rotation_y(0.5 * t))
            .expect("turn");
        s.w.set_generator_anchor(s.anchor, Vec3::new(4.0 + t, 11.0, 0.0))
            .expect("anchor");
        for (i, f) in s.floats.iter().enumerate() {
            s.w.set_generator_water_height(*f, 0.1 * (2.0 * t + i as f32).sin())
                .expect("wave");
        }
        s.w.step(DT).expect("step");
    }
}

/// The bound on a GPU-against-CPU difference of the scene after 60 steps, relative to the
/// scale (5 m for positions, the largest speed or spin for velocities), argued as
/// `rigid_joints_parity.rs`'s PARITY: per substep a body's generators are some 150 roundings of
/// 2⁻²⁴ (or a few ulp where a GPU contracts), the integrator a hundred more; 4 substeps a step
/// give about 1e3 roundings, 6e-5 of scale if none cancelled. The free motion under these
/// forces is smooth and does not amplify a difference over 1 s (the springs and the floats are
/// stable oscillators, the drag damps, the tumbling boxes' Lyapunov time is longer than the
/// second simulated), so 60 steps add to at most 60 × 6e-5 = 4e-3 of scale if every rounding
/// had the same sign; 1e-3 allows a quarter of that worst case.
const PARITY: f32 = 1e-3;

fn compare(a: &[GpuBody], b: &[GpuBody], what: &str) {
    let vmax = b
        .iter()
        .map(|x| x.lin_vel.xyz().length())
        .fold(1.0f32, f32::max);
    let wmax = b
        .iter()
        .map(|x| x.ang_vel.xyz().length())
        .fold(1.0f32, f32::max);
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let p = (x.pos.xyz() - y.pos.xyz()).length();
        let q = 2.0 * (quat(x).inverse() * quat(y)).xyz().length().min(1.0).asin();
        let v = (x.lin_vel.xyz() - y.lin_vel.xyz()).length() / vmax;
        let w = (x.ang_vel.xyz() - y.ang_vel.xyz()).length() / wmax;
        assert!(
            p <= PARITY * 5.0,
            "{what}: body {i} position differs by {p} m"
        );
        assert!(
            q <= PARITY,
            "{what}: body {i} orientation differs by {q} rad"
        );
        assert!(
            v <= PARITY,
            "{what}: body {i} velocity differs by {v} of the largest"
        );
        assert!(
            w <= PARITY,
            "{what}: body {i} spin differs by {w} of the largest"
        );
        assert_eq!(
            (x.awake, x.kind, x.pos.w),
            (y.awake, y.kind, y.pos.w),
            "{what}: body {i}"
        );
        // The fields no stage computes from the motion: the same bits.
        assert_eq!(
            (
                x.inv_inertia,
                x.acc,
                x.force,
                x.torque,
                x.can_sleep,
                x.flags
            ),
            (
                y.inv_inertia,
                y.acc,
                y.force,
                y.torque,
                y.can_sleep,
                y.flags
            ),
            "{what}: body {i}: inertia, acceleration, accumulators, flags"
        );
        // The world inverse inertia R·I⁻¹·Rᵀ follows the orientation: a turn by q rad moves
        // it by at most 2q of its largest entry; the last acceleration is acc + f/m (no user
        // force here: exact), its w the motion average, a mean of v² + ω² (relative PARITY of
        // the largest speed squared, twice).
        let scale = y
            .inv_inertia_world
            .iter()
            .map(|c| c.abs().max_element())
            .fold(0.0, f32::max);
        for k in 0..3 {
            let d = (x.inv_inertia_world[k] - y.inv_inertia_world[k])
                .abs()
                .max_element();
            assert!(
                d <= 2.0 * PARITY * scale,
                "{what}: body {i} inv_inertia_world differs by {d}"
            );
        }
        assert_eq!(
            x.last_acc.xyz(),
            y.last_acc.xyz(),
            "{what}: body {i} last_acc"
        );
        let motion = 2.0 * PARITY * (vmax * vmax + wmax * wmax);
        assert!(
            (x.last_acc.w - y.last_acc.w).abs() <= motion,
            "{what}: body {i} motion {} vs {}",
            x.last_acc.w,
            y.last_acc.w
        );
    }
}

#[test]
fn a_scene_with_every_generator_steps_alike_on_both_backends() {
    let mut g = scene(Backend::Gpu(gpu()), CpuRounding::Separate);
    let mut c = scene(Backend::Cpu, CpuRounding::Separate);
    let mut f = scene(Backend::Cpu, CpuRounding::Fused);
    for s in [&mut g, &mut c, &mut f] {
        run_scene(s, 0, 60);
    }
    let bc = c.w.read_bodies().expect("cpu");
    compare(&g.w.read_bodies().expect("gpu"), &bc, "gpu vs cpu");
    compare(
        &f.w.read_bodies().expect("fused"),
        &bc,
        "fused vs separate cpu",
    );
    // The scene moved: the plate fell slower than free fall (9.8 m/s after 1 s), the boat floats.
    assert!(
        bc[3].pos.y < 19.0 && bc[3].lin_vel.y > -9.0,
        "the plate fell under drag: {:?}",
        bc[3]
    );
    assert!(bc[5].pos.y.abs() < 1.0, "the boat floats ({})", bc[5].pos.y);
}

#[test]
fn gpu_runs_with_generators_are_bit_identical() {
    let mut a = scene(Backend::Gpu(gpu()), CpuRounding::Separate);
    let mut b = scene(Backend::Gpu(gpu()), CpuRounding::Separate);
    run_scene(&mut a, 0, 40);
    run_scene(&mut b, 0, 40);
    assert_eq!(
        hash_bodies(&a.w.read_bodies().expect("a")),
        hash_bodies(&b.w.read_bodies().expect("b"))
    );
}
