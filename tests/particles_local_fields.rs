//! Per-emitter local fields (`Emitter::fields`): a field given in an emitter's frame acts on
//! that emitter's particles only, follows the emitter when it turns, matches its closed form on
//! both backends, and the GPU matches the CPU twin; bad or too many local fields are refused
//! with nothing changed.

mod common;

use common::*;
use glam::{DVec3, Quat, Vec3, Vec4Swizzles};
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

/// GPU against the CPU twin (both roundings): two emitters spraying through world gravity and
/// drag, one with a local vortex about its own axis, moving and turning every step, for 90
/// steps; every field of every slot compared. The vortex matters (the CPU twin without it ends
/// elsewhere by centimetres).
///
/// Bounds (error model, tests/common/error_model.rs), per particle, along the twin's own
/// trajectory ([`Running`]): a particle starts with its draw's difference
/// ([`error_model::emission::spawn`]) and each step adds the integration's roundings and the
/// fields' evaluation, and carries its position difference into its velocity through the
/// vortex's gradient (at most 2s/√(ρ² + r²) at a distance r from the axis); the drag contracts
/// a velocity difference, it never grows it. The lifetime, size, colour and inverse mass are one
/// draw each (exact where the emitter's range is a single value); the acceleration is copied
/// and the age is one add of dt per step: exact.
#[test]
fn local_fields_on_a_moving_emitter_gpu_matches_cpu() {
    let config = WorldConfig {
        capacity: 512,
        fields: vec![
            ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0)),
            ForceField::Drag {
                k1: DRAG.0,
                k2: DRAG.1,
            },
        ],
        ..WorldConfig::default()
    };
    let vortex = ForceField::Vortex {
        centre: Vec3::ZERO,
        axis: Vec3::Y,
        strength: VORTEX.0,
        softening: VORTEX.1,
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
    let transform = |s: u32| {
        let t = s as f32 * DT;
        (
            Vec3::new(t.sin(), 0.0, t.cos() - 1.0),
            Quat::from_rotation_z(0.3 * t.sin()),
        )
    };
    // The draw model of each emitter: A's position (sin t, 0, cos t − 1) stays within 2 m of
    // the origin, B's is (2, 0, 0); at most 2 × 240 × 1.5 s of draws in the run.
    let draw = |e: Emitter| {
        let r = wgphys::particles::emitter::record(&e).expect("record");
        error_model::emission::spawn(&r, 0.0, 2.0, 720)
    };
    let (draw_a, draw_b) = (draw(spray(vec![vortex])), draw(spray(Vec::new())));
    // Steps the world 90 times; with `bound`, the running bound of every particle too.
    let run = |backend: Backend,
               with_vortex: bool,
               rounding: CpuRounding,
               mut bound: Option<&mut HashMap<u32, Running>>| {
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
        let slot_a = w.emitter_slot(a).expect("slot") + 1;
        let mut before = w.read_snapshot().expect("snapshot");
        for s in 0..90 {
            let (at, rotation) = transform(s);
            w.set_emitter_transform(a, at, rotation).expect("move a");
            w.step(DT).expect("step");
            if let Some(bound) = bound.as_deref_mut() {
                let after = w.read_snapshot().expect("snapshot");
                let axis = (rotation * Vec3::Y).as_dvec3();
                step_bounds(bound, &before, &after, |id_kind| {
                    if id_kind >> KIND_CURVES_SHIFT == slot_a {
                        (draw_a, Some((at.as_dvec3(), axis)))
                    } else {
                        (draw_b, None)
                    }
                });
                before = after;
            }
        }
        w.read_snapshot().expect("snapshot")
    };
    let g = run(Backend::Gpu(gpu()), true, CpuRounding::Separate, None);
    assert!(g.len() > 100, "the emitters ran: {} live", g.len());
    let mut c = g.clone();
    for rounding in [CpuRounding::Separate, CpuRounding::Fused] {
        let mut bound = HashMap::new();
        c = run(Backend::Cpu, true, rounding, Some(&mut bound));
        let what = format!("local vortex, GPU vs CPU ({rounding:?})");
        let (mut used, mut widest) = ([0.0f64; 2], [0.0f64; 2]);
        for i in 0..c.len() {
            let r = &bound[&c.life[i].id];
            let tol = |abs: f64| Tol {
                rel: 0.0,
                abs: abs as f32,
            };
            let mut e = MaxErr::default();
            check_v4(&what, "pos", i, g.pos[i], c.pos[i], tol(r.pos), &mut e);
            used[0] = used[0].max(f64::from(e.used));
            let mut e = MaxErr::default();
            check_v4(&what, "vel", i, g.vel[i], c.vel[i], tol(r.vel), &mut e);
            used[1] = used[1].max(f64::from(e.used));
            widest = [widest[0].max(r.pos), widest[1].max(r.vel)];
            let exact = |x: f64| tol(x.max(0.0));
            check_v4(
                &what,
                "acc",
                i,
                g.acc[i],
                c.acc[i],
                exact(r.inverse_mass),
                &mut e,
            );
            check_v4(
                &what,
                "colour",
                i,
                g.colour[i],
                c.colour[i],
                exact(r.colour),
                &mut e,
            );
            check_f32(
                &what,
                "size",
                i,
                g.size[i],
                c.size[i],
                exact(r.size),
                &mut e,
            );
            check_f32(
                &what,
                "life.age",
                i,
                g.life[i].age,
                c.life[i].age,
                Tol::EXACT,
                &mut e,
            );
            check_f32(
                &what,
                "life.lifetime",
                i,
                g.life[i].lifetime,
                c.life[i].lifetime,
                exact(r.lifetime),
                &mut e,
            );
            assert_eq!(
                (g.life[i].id, g.life[i].kind),
                (c.life[i].id, c.life[i].kind),
                "{what}: slot {i} (id, kind)"
            );
        }
        assert_eq!(g.len(), c.len(), "{what}: live count");
        eprintln!(
            "[measure] {what}: {} live, largest share of the running bound used: pos {:.1}%, \
             vel {:.1}% (widest bounds {:.2e} m, {:.2e} m/s)",
            g.len(),
            100.0 * used[0],
            100.0 * used[1],
            widest[0],
            widest[1]
        );
    }
    let plain = run(Backend::Cpu, false, CpuRounding::Separate, None);
    let moved = (0..c.len())
        .map(|i| (c.pos[i] - plain.pos[i]).xyz().length())
        .fold(0.0f32, f32::max);
    assert!(
        moved > 0.01,
        "the local vortex moved particles by at most {moved} m"
    );
}

/// The world's drag (k1, k2) and the local vortex's (strength, softening) in the test above.
const DRAG: (f32, f32) = (0.05, 0.01);
const VORTEX: (f32, f32) = (6.0, 0.2);

/// A particle's running bound: what its fields may differ by between the GPU and the twin
/// (Euclidean length of the difference for position and velocity, per lane for the rest).
#[derive(Clone, Copy, Debug)]
struct Running {
    pos: f64,
    vel: f64,
    lifetime: f64,
    size: f64,
    colour: f64,
    inverse_mass: f64,
}

/// One step of every particle's running bound, from the twin's state before the step (`before`)
/// to after it (`after`); a particle new in `after` starts with its draw's difference
/// (`origin(kind)`: the draw model of its emitter, and the vortex's centre and axis when that
/// emitter carries it). Per step (the book's order, fields at the old position and velocity):
///
/// * position p ← p + v·dt: the old velocity's difference times dt, ROUND of |p| and CONTRACT of
///   |v|·dt (√3 for the three lanes);
/// * velocity v ← (v + a·dt)·pow(1, dt): the acceleration's difference times dt — the vortex's
///   gradient (≤ 2s/√(ρ² + r²), r the distance from the axis less the position's difference)
///   times the position's difference, and the fields' evaluation: the drag law's DRAG_COST of
///   the drag (≤ (k1 + k2·|v|)·|v|), the vortex's VORTEX_COST of its value (≤ s), ROUND of the
///   running sum per field — then STEP_V of |v| and CONTRACT of |a·dt| (√3 for the lanes). The
///   drag's Jacobian is negative semidefinite (eigenvalues −(k1 + k2|v|), −(k1 + 2k2|v|)), so
///   v + a·dt does not grow a velocity difference through it.
fn step_bounds(
    bound: &mut HashMap<u32, Running>,
    before: &Snapshot,
    after: &Snapshot,
    origin: impl Fn(u32) -> (error_model::emission::Spawn, Option<(DVec3, DVec3)>),
) {
    use error_model::cost::{CONTRACT, DIV, DOT3, LENGTH, ROUND, SQRT};
    const DRAG_COST: f64 = LENGTH + 3.0 * ROUND + DIV + 2.0 * ROUND;
    // d = p − c (ROUND), t = w × d (CONTRACT + ROUND per lane), |t|² + ρ² (DOT3 + CONTRACT +
    // ROUND, half of it through the root), SQRT, DIV, the product (ROUND).
    const VORTEX_COST: f64 =
        ROUND + CONTRACT + ROUND + (DOT3 + CONTRACT + ROUND) / 2.0 + SQRT + DIV + ROUND;
    let u = error_model::UNIT_ROUNDOFF;
    let r3 = 3f64.sqrt();
    let dt = f64::from(DT);
    let old: HashMap<u32, usize> = (0..before.len()).map(|i| (before.life[i].id, i)).collect();
    let mut next = HashMap::with_capacity(after.len());
    for j in 0..after.len() {
        let (id, kind) = (after.life[j].id, after.life[j].kind);
        let (draw, vortex) = origin(kind);
        let Some(&i) = old.get(&id) else {
            // Drawn this step: the draw's per-lane differences, as lengths.
            next.insert(
                id,
                Running {
                    pos: r3 * draw.pos,
                    vel: r3 * draw.vel,
                    lifetime: draw.lifetime,
                    size: draw.size,
                    colour: draw.colour,
                    inverse_mass: draw.inverse_mass,
                },
            );
            continue;
        };
        let r = bound[&id];
        let (p, v) = (
            before.pos[i].truncate().as_dvec3(),
            before.vel[i].truncate().as_dvec3(),
        );
        let (p1, v1) = (
            after.pos[j].truncate().as_dvec3(),
            after.vel[j].truncate().as_dvec3(),
        );
        let speed = v.length();
        let drag = (f64::from(DRAG.0) + f64::from(DRAG.1) * speed) * speed;
        let (mut accel, mut eval, mut gradient, mut fields) =
            (9.81 + drag, DRAG_COST * drag, 0.0, 2.0);
        if let Some((c, axis)) = vortex {
            let (s, rho) = (f64::from(VORTEX.0), f64::from(VORTEX.1));
            let dist = (p - c).cross(axis).length();
            let near = (dist - r.pos).max(0.0);
            gradient = 2.0 * s / (rho * rho + near * near).sqrt();
            accel += s;
            eval += VORTEX_COST * s;
            fields += 1.0;
        }
        eval += ROUND * fields * accel;
        next.insert(
            id,
            Running {
                pos: r.pos + dt * r.vel + r3 * (ROUND * p1.length() + CONTRACT * speed * dt) * u,
                vel: r.vel
                    + dt * (gradient * r.pos + eval * u)
                    + r3 * (error_model::STEP_V * v1.length() + CONTRACT * accel * dt) * u,
                ..r
            },
        );
    }
    *bound = next;
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
