//! Per-emitter local fields (`Emitter::fields`): a field given in an emitter's frame acts on
//! that emitter's particles only, follows the emitter when it turns, matches its closed form on
//! both backends, and the GPU matches the CPU twin; bad or too many local fields are refused
//! with nothing changed.

mod common;

use common::*;
use glam::{Quat, Vec3, Vec4Swizzles};
use std::collections::HashMap;
use std::f32::consts::{FRAC_PI_2, PI};
use wgphys::particles::types::{KIND_CURVES_SHIFT, MAX_FIELDS};
use wgphys::particles::{
    Burst, EmitShape, EmitVelocity, Emitter, EmitterHandle, ForceField, ParticleWorld, Snapshot,
    WorldConfig,
};
use wgphys::Backend;
use wgphys::{CpuRounding, Error};

const DT: f32 = 1.0 / 60.0;

/// A burst of `count` particles at t = 0 from a point, straight up at 1 m/s, living long, with
/// no acceleration of their own and no damping.
fn burst(position: Vec3, rotation: Quat, count: u32, fields: Vec<ForceField>) -> Emitter {
    Emitter {
        rate: 0.0,
        bursts: vec![Burst { time: 0.0, count }],
        shape: EmitShape::Point,
        velocity: EmitVelocity::Directional {
            direction: Vec3::Y,
            spread: 0.0,
            speed: (1.0, 1.0),
        },
        lifetime: (100.0, 100.0),
        acceleration: Vec3::ZERO,
        damping: 1.0,
        position,
        rotation,
        fields,
        ..Emitter::default()
    }
}

/// Each live particle's (emitter slot + 1, position, velocity), by id.
fn by_id(s: &Snapshot) -> HashMap<u32, (u32, Vec3, Vec3)> {
    (0..s.len())
        .map(|i| {
            let l = s.life[i];
            (
                l.id,
                (l.kind >> KIND_CURVES_SHIFT, s.pos[i].xyz(), s.vel[i].xyz()),
            )
        })
        .collect()
}

/// Emitter A carries a local gravity of (0, 0, −2) m/s² in its frame, turned 90° about y, so
/// (−2, 0, 0) in the world; emitter B, beside it, carries none. Over 30 steps A's particles
/// gain 30·a·dt of velocity and B's none at all (bit for bit: no field adds anything to them).
/// Then A is turned to 180° about y and its particles gain 30·a'·dt with a' = (0, 0, 2): the
/// field follows the emitter's frame. Both backends.
///
/// Bound (error model, tests/common/error_model.rs): each step adds a·dt to the velocity, one
/// rounding (or one fused multiply-add) of a value below 2 m/s on each side, so 30 steps
/// differ from the exact sum by at most 30 · 2u · 2 m/s ≈ 7e-6 m/s; plus the rounding of the
/// expected a (one quaternion turn, a few ulps of 2 m/s²) times 30·dt.
#[test]
fn a_local_field_acts_on_its_emitters_particles_in_its_frame() {
    let g_local = Vec3::new(0.0, 0.0, -2.0);
    let u = error_model::UNIT_ROUNDOFF as f32;
    let tol = 30.0 * 2.0 * u * 2.0 + 30.0 * DT * 8.0 * u * 2.0;
    for (name, backend) in backends() {
        let mut w = ParticleWorld::new(
            backend,
            WorldConfig {
                capacity: 256,
                ..WorldConfig::default()
            },
        )
        .expect("world");
        let turn = Quat::from_rotation_y(FRAC_PI_2);
        let a = w
            .add_emitter(burst(
                Vec3::ZERO,
                turn,
                20,
                vec![ForceField::Gravity(g_local)],
            ))
            .expect("emitter a");
        let b = w
            .add_emitter(burst(Vec3::new(3.0, 0.0, 0.0), turn, 20, Vec::new()))
            .expect("emitter b");
        let (slot_a, slot_b) = (
            w.emitter_slot(a).expect("slot") + 1,
            w.emitter_slot(b).expect("slot") + 1,
        );
        w.step(DT).expect("step");
        let mut before = by_id(&w.read_snapshot().expect("snapshot"));
        assert_eq!(before.len(), 40, "{name}: both bursts went off");
        for (k, rotation) in [(0, turn), (1, Quat::from_rotation_y(PI))] {
            if k == 1 {
                w.set_emitter_transform(a, Vec3::ZERO, rotation)
                    .expect("turn a");
            }
            let accel = rotation.normalize() * g_local;
            for _ in 0..30 {
                w.step(DT).expect("step");
            }
            let after = by_id(&w.read_snapshot().expect("snapshot"));
            for (id, (slot, _, v1)) in &after {
                let (_, _, v0) = before[id];
                let dv = *v1 - v0;
                if *slot == slot_b {
                    assert_eq!(dv, Vec3::ZERO, "{name}: B's particle {id:#x} was pushed");
                } else {
                    assert_eq!(*slot, slot_a, "{name}: particle {id:#x} of no emitter");
                    let want = accel * (30.0 * DT);
                    assert!(
                        (dv - want).abs().max_element() <= tol,
                        "{name}, turn {k}: A's particle {id:#x} gained {dv} m/s, the field gives \
                         {want} (bound {tol:e})"
                    );
                }
            }
            before = after;
        }
    }
}

/// GPU against the CPU twin (both roundings): two emitters spraying through world gravity and drag, one with a
/// local vortex about its own axis, moving and turning every step, for 90 steps. Positions
/// agree within the error model's rounding drift (model 2: 90 steps, speeds below 10 m/s, within
/// 10 m of the origin, the velocity update rounding about six times a step with the vortex's
/// square root and division, 512 slots); the vortex matters (the CPU twin without it ends
/// elsewhere by centimetres).
#[test]
fn local_fields_on_a_moving_emitter_gpu_matches_cpu() {
    let config = WorldConfig {
        capacity: 512,
        fields: vec![
            ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0)),
            ForceField::Drag { k1: 0.05, k2: 0.01 },
        ],
        ..WorldConfig::default()
    };
    let vortex = ForceField::Vortex {
        centre: Vec3::ZERO,
        axis: Vec3::Y,
        strength: 6.0,
        softening: 0.2,
    };
    let spray = |fields: Vec<ForceField>| Emitter {
        rate: 240.0,
        shape: EmitShape::Disc { radius: 0.3 },
        velocity: EmitVelocity::Directional {
            direction: Vec3::Y,
            spread: 0.4,
            speed: (4.0, 6.0),
        },
        lifetime: (1.0, 1.4),
        acceleration: Vec3::ZERO,
        fields,
        ..Emitter::default()
    };
    let run = |backend: Backend, with_vortex: bool, rounding: CpuRounding| {
        let mut w = ParticleWorld::new(backend, config.clone()).expect("world");
        w.set_cpu_rounding(rounding);
        let fields = if with_vortex {
            vec![vortex]
        } else {
            Vec::new()
        };
        let a: EmitterHandle = w.add_emitter(spray(fields)).expect("a");
        w.add_emitter(Emitter {
            position: Vec3::new(2.0, 0.0, 0.0),
            ..spray(Vec::new())
        })
        .expect("b");
        for s in 0..90 {
            let t = s as f32 * DT;
            let at = Vec3::new(t.sin(), 0.0, t.cos() - 1.0);
            w.set_emitter_transform(a, at, Quat::from_rotation_z(0.3 * t.sin()))
                .expect("move a");
            w.step(DT).expect("step");
        }
        w.read_snapshot().expect("snapshot")
    };
    let g = run(Backend::Gpu(gpu()), true, CpuRounding::Separate);
    let drift = error_model::random_walk_drift(90, f64::from(DT), 10.0, 10.0, 6, 512) as f32;
    let tol = Tol {
        rel: 0.0,
        abs: drift,
    };
    let any = Tol {
        rel: 0.0,
        abs: f32::INFINITY,
    };
    let mut c = g.clone();
    for rounding in [CpuRounding::Separate, CpuRounding::Fused] {
        c = run(Backend::Cpu, true, rounding);
        let e = compare_snapshots(
            &format!("local vortex, GPU vs CPU ({rounding:?})"),
            &g,
            &c,
            SnapTol {
                pos: tol,
                vel: any,
                other: any,
            },
        );
        eprintln!(
            "[measure] local vortex: GPU vs CPU ({rounding:?}) {e} (budget {drift:e} m), {} live",
            g.len()
        );
    }
    assert!(g.len() > 100, "the emitters ran: {} live", g.len());
    let plain = run(Backend::Cpu, false, CpuRounding::Separate);
    let moved = (0..c.len())
        .map(|i| (c.pos[i] - plain.pos[i]).xyz().length())
        .fold(0.0f32, f32::max);
    assert!(
        moved > 0.01,
        "the local vortex moved particles by at most {moved} m"
    );
}

/// A bad local field is refused naming it, and a table over `MAX_FIELDS` (the world's fields
/// and every emitter's local ones share it) is refused, by `add_emitter`, `set_emitter` and
/// `set_fields` alike; the world keeps what it had.
#[test]
fn bad_or_too_many_local_fields_are_refused() {
    for (name, backend) in backends() {
        let mut w = ParticleWorld::new(
            backend,
            WorldConfig {
                capacity: 64,
                fields: vec![ForceField::Gravity(Vec3::NEG_Y); MAX_FIELDS as usize - 2],
                ..WorldConfig::default()
            },
        )
        .expect("world");
        let bad = ForceField::Attractor {
            centre: Vec3::ZERO,
            strength: 1.0,
            softening: 0.0,
        };
        let r = w.add_emitter(burst(Vec3::ZERO, Quat::IDENTITY, 4, vec![bad]));
        assert!(
            matches!(
                r,
                Err(Error::InvalidInput {
                    what: "field.attractor.softening",
                    ..
                })
            ),
            "{name}: {r:?}"
        );
        assert_eq!(w.emitter_count(), 0, "{name}: nothing added");
        let two = vec![ForceField::Drag { k1: 0.1, k2: 0.0 }; 2];
        let e = w
            .add_emitter(burst(Vec3::ZERO, Quat::IDENTITY, 4, two.clone()))
            .expect("two local fields fill the table");
        let r = w.add_emitter(burst(Vec3::ZERO, Quat::IDENTITY, 4, two[..1].to_vec()));
        assert!(
            matches!(r, Err(Error::TooManyFields { count: 17, max: 16 })),
            "{name}: {r:?}"
        );
        let three = vec![ForceField::Drag { k1: 0.1, k2: 0.0 }; 3];
        let r = w.set_emitter(e, burst(Vec3::ZERO, Quat::IDENTITY, 4, three));
        assert!(
            matches!(r, Err(Error::TooManyFields { count: 17, max: 16 })),
            "{name}: {r:?}"
        );
        let r = w.set_fields(vec![
            ForceField::Gravity(Vec3::NEG_Y);
            MAX_FIELDS as usize - 1
        ]);
        assert!(
            matches!(r, Err(Error::TooManyFields { count: 17, max: 16 })),
            "{name}: {r:?}"
        );
        assert_eq!(
            w.config().fields.len(),
            MAX_FIELDS as usize - 2,
            "{name}: the old fields stay"
        );
        assert_eq!(w.emitter_count(), 1, "{name}: one emitter");
        w.step(DT).expect("a full table steps");
    }
}
