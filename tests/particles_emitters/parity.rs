//! The GPU's emitted particles against the CPU twin's, every field, with the emission model's
//! bounds (tests/common/error_model.rs).

use super::*;

/// Every shape and both velocity modes, moved and turned, with bursts: the GPU's emitted
/// particles match the CPU twin's slot by slot over 40 steps, every field: ids, kinds, ages and
/// own accelerations exactly; positions, velocities, lifetimes, sizes, colours and inverse
/// masses within the error model (tests/common/error_model.rs): one draw of each
/// ([`error_model::emission::spawn`], the largest over the seven emitters), then the
/// integration of at most 39 steps under gravity with damping 0.8 ([`error_model::step_model`],
/// worst case, which covers the damping factor's systematic part) carrying the draw's
/// position difference and its velocity difference times the time flown, ≤ 39·dt. No field or
/// collider: nothing amplifies a difference. Bit-identical on a rerun of the GPU.
#[test]
fn gpu_emitters_match_the_cpu_twin_and_rerun_identically() {
    let shapes = [
        EmitShape::Point,
        EmitShape::Sphere { radius: 1.5 },
        EmitShape::Shell { radius: 2.0 },
        EmitShape::Disc { radius: 3.0 },
        EmitShape::Cone {
            half_angle: 0.3,
            height: 2.0,
        },
        EmitShape::Box {
            half_extents: Vec3::new(1.0, 0.5, 2.0),
        },
        EmitShape::Segment {
            a: Vec3::new(-1.0, 0.0, 0.0),
            b: Vec3::new(1.0, 2.0, 0.5),
        },
    ];
    let emitters: Vec<Emitter> = shapes
        .iter()
        .enumerate()
        .map(|(i, shape)| {
            let f = i as f32;
            let velocity = if i % 2 == 0 {
                EmitVelocity::Directional {
                    direction: Vec3::new(f - 3.0, 2.0, 1.0),
                    spread: 0.2 * f,
                    speed: (1.0, 5.0),
                }
            } else {
                EmitVelocity::Radial { speed: (0.5, 4.0) }
            };
            Emitter {
                rate: 30.0 + 17.0 * f,
                bursts: vec![Burst {
                    time: 0.1 * f,
                    count: 3 + i as u32,
                }],
                shape: *shape,
                velocity,
                lifetime: (0.3, 2.0),
                size: (0.01, 0.05),
                colour: (Vec4::new(1.0, 0.5, 0.0, 1.0), Vec4::new(0.2, 0.2, 1.0, 0.5)),
                inverse_mass: (0.5, 2.0),
                damping: 0.8,
                position: Vec3::new(f, 0.5 * f, -f),
                rotation: Quat::from_euler(glam::EulerRot::XYZ, 0.1 * f, 0.3, -0.2 * f),
                acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                ..Emitter::default()
            }
        })
        .collect();
    const STEPS: u32 = 40;
    let run = |backend: Backend, rounding: CpuRounding| -> Snapshot {
        let mut w = world(backend, 8192);
        w.set_cpu_rounding(rounding);
        for e in &emitters {
            w.add_emitter(e.clone()).expect("emitter");
        }
        for _ in 0..STEPS {
            w.step(DT).expect("step");
        }
        w.read_snapshot().expect("snapshot")
    };
    let g = run(Backend::Gpu(gpu()), CpuRounding::Separate);
    assert!(g.len() > 300, "the emitters ran: {} live", g.len());
    // At most (30 + 17·6)·40/60 + 9 draws of one emitter, under 1,000 in the run.
    let draws = 1_000;
    let spawn = emitters
        .iter()
        .map(|e| {
            let r = gpu_record(e);
            error_model::emission::spawn(&r, 0.0, f64::from(e.position.length()), draws)
        })
        .fold(error_model::emission::Spawn::default(), |m, s| {
            error_model::emission::Spawn {
                pos: m.pos.max(s.pos),
                vel: m.vel.max(s.vel),
                lifetime: m.lifetime.max(s.lifetime),
                size: m.size.max(s.size),
                colour: m.colour.max(s.colour),
                inverse_mass: m.inverse_mass.max(s.inverse_mass),
                speed: m.speed.max(s.speed),
            }
        });
    // A particle drawn in step s has been integrated STEPS − s ≤ 39 times, at lane speeds up to
    // its draw's 5 m/s plus 39 steps of gravity, positions within 6.4 + 2.4 m of the emitters'
    // (their positions and shapes) plus its flight.
    let k = STEPS - 1;
    let flight = f64::from(k) / 60.0;
    let v = spawn.speed + 9.81 * flight;
    let m = error_model::step_model(k, v, 9.81, 1.0 / 60.0);
    let u = error_model::UNIT_ROUNDOFF;
    let p_max = 8.8 + v * flight;
    let tol = SnapTol {
        pos: Tol {
            rel: 0.0,
            abs: (spawn.pos + flight * spawn.vel + (m[0] * p_max + m[1]) * u) as f32,
        },
        vel: Tol {
            rel: 0.0,
            abs: (spawn.vel + (m[2] * v + m[3]) * u) as f32,
        },
        // The acceleration is the emitter's, copied; its w the inverse mass, one draw.
        acc: Tol {
            rel: 0.0,
            abs: spawn.inverse_mass as f32,
        },
        colour: Tol {
            rel: 0.0,
            abs: spawn.colour as f32,
        },
        size: Tol {
            rel: 0.0,
            abs: spawn.size as f32,
        },
        // age + dt per step from 0, the same operands: exact.
        age: Tol::EXACT,
        lifetime: Tol {
            rel: 0.0,
            abs: spawn.lifetime as f32,
        },
    };
    // The twin both ways against the same bounds (its draws are the same either way; its
    // integration rounds as Mesa or as NVIDIA may).
    for rounding in [CpuRounding::Separate, CpuRounding::Fused] {
        let c = run(Backend::Cpu, rounding);
        let e = compare_snapshots(&format!("emitters ({rounding:?} CPU)"), &g, &c, tol);
        eprintln!(
            "[measure] emitters, GPU vs CPU ({rounding:?}) after 40 steps: {e}(bounds: pos {:.2e} \
             m, vel {:.2e} m/s)",
            tol.pos.abs, tol.vel.abs
        );
    }
    let again = run(Backend::Gpu(gpu()), CpuRounding::Separate);
    assert_eq!(g, again, "a GPU rerun is bit-identical");
}
