//! Per-stage parity: the GPU kernels against the CPU twin on seeded random input of 1, 63, 1000
//! and 65537 particles (one particle, less than a workgroup, several workgroups, and one past a
//! 64-block boundary), slot by slot, with named tolerances; the integer bookkeeping (ids, kinds,
//! counters) must be identical.
//!
//! Every case first spawns its particles and takes one step, after which both pools must hold
//! exactly what was spawned, bit for bit (the `append` stage copies, it does not compute). The
//! stage under test then runs for one step.

mod common;

use common::*;
use glam::{EulerRot, Quat, Vec3, Vec4};
use wgphys::particles::types::GPU_ID_BIT;
use wgphys::particles::{
    Collider, ColliderShape, ForceField, Particle, ParticleHandle, ParticleWorld, Snapshot,
    WorldConfig,
};

const DT: f32 = 1.0 / 60.0;
const SIZES: [u32; 4] = [1, 63, 1000, 65537];

/// One integration step, no fields or colliders. Measured on lavapipe and llvmpipe: positions
/// bit-identical, velocities at most 3.8e-6 apart (two ulps at 16–32 m/s; the GPU's `pow(d, dt)`
/// for the damping factor differs from glibc's `powf` by an ulp or so, and it may fuse `v + a*dt`),
/// 19% of this tolerance. 1e-6 relative is eight ulps, and the absolute 4e-6 (one ulp at 32 m/s, the scale of the random
/// velocities) covers a velocity cancelling to near zero (v + a*dt ≈ 0), whose rounding error is
/// an ulp of the operands, not of the result. Any real change to the update (a missing dt, a
/// wrong damping exponent) is off by orders of magnitude more.
const INTEGRATE: Tol = Tol {
    rel: 1e-6,
    abs: 4e-6,
};

/// `INTEGRATE` grown linearly for the three steps of the lifecycle case (per-step errors add;
/// damping only shrinks them). Measured: 1.1e-5 after three steps, 19% of this tolerance.
const THREE_STEPS: Tol = Tol {
    rel: 3e-6,
    abs: 1.2e-5,
};

/// One step with force fields. Drag and the attractor add a `length`/`sqrt` and a division
/// (correctly rounded on the CPU, within a few ulps on a GPU) before the acceleration is scaled
/// by dt. Measured: velocities at most 3.8e-6 apart (10% of this tolerance), positions
/// identical. Twice `INTEGRATE`.
const FORCES: Tol = Tol {
    rel: 2e-6,
    abs: 8e-6,
};

/// One step with colliders: contact normals come from `length`, quaternion rotations and a
/// division, then restitution and friction rescale the velocity, a dozen roundings in all.
/// Measured (on well-conditioned contacts, see `well_conditioned`): velocities at most 7.6e-6
/// (lavapipe) and 8.6e-6 (llvmpipe) apart, two ulps at 32 m/s and 37% of this tolerance;
/// positions 9.5e-7. Four ulps at 32 m/s absolute, 4e-6 relative.
const COLLIDERS: Tol = Tol {
    rel: 4e-6,
    abs: 1.6e-5,
};

/// Firework children: velocity = parent v + vmin + (vmax - vmin) * u and lifetime = amin +
/// (amax - amin) * u, multiply-adds the GPU may fuse, over parents integrated for three steps.
/// The book's launch speeds reach 60 m/s, where an ulp is 7.6e-6. Measured: 5.7e-6 on
/// velocities (30% of this tolerance), 3.8e-6 on positions, lifetimes and colours identical.
/// Two ulps at 64 m/s.
const FIREWORKS: Tol = Tol {
    rel: 2e-6,
    abs: 1.6e-5,
};

fn report(label: &str, e: SnapErr) {
    eprintln!("[measure] {label}: {e}");
}

/// A random particle: position in a 100 m box, speeds to 20 m/s, own accelerations to 10 m/s²,
/// damping in [0, 1] (exact 0 and 1 included), masses 0.1–100 kg, one in ten immovable.
fn random_particle(rng: &mut Rng, pos_lo: f32, pos_hi: f32) -> Particle {
    let damping = match rng.below(10) {
        0 => 1.0,
        1 => 0.0,
        _ => rng.unit(),
    };
    let p = Particle::new(rng.vec3(pos_lo, pos_hi))
        .with_velocity(rng.vec3(-20.0, 20.0))
        .with_acceleration(rng.vec3(-10.0, 10.0))
        .with_damping(damping)
        .with_size(rng.range(0.01, 0.5))
        .with_colour(Vec4::new(rng.unit(), rng.unit(), rng.unit(), 1.0));
    if rng.chance(0.1) {
        p.with_inverse_mass(0.0)
    } else {
        p.with_mass(rng.range(0.1, 100.0))
    }
}

/// Spawns `particles` on both backends and steps once; checks both pools hold exactly what was
/// spawned, in spawn order, with ids 0..n.
fn spawn_both(config: &WorldConfig, particles: &[Particle]) -> (ParticleWorld, ParticleWorld) {
    let (g, c, _) = spawn_both_with_handles(config, particles);
    (g, c)
}

/// As [`spawn_both`], also returning each particle's (gpu, cpu) handle.
fn spawn_both_with_handles(
    config: &WorldConfig,
    particles: &[Particle],
) -> (
    ParticleWorld,
    ParticleWorld,
    Vec<(ParticleHandle, ParticleHandle)>,
) {
    let (mut g, mut c) = pair(config);
    let mut handles = Vec::with_capacity(particles.len());
    for (i, p) in particles.iter().enumerate() {
        let hg = g.spawn(*p).expect("gpu spawn");
        let hc = c.spawn(*p).expect("cpu spawn");
        assert_eq!(
            (hg.id(), hc.id()),
            (i as u32, i as u32),
            "handle ids are issued in spawn order"
        );
        handles.push((hg, hc));
    }
    g.step(DT).expect("gpu step");
    c.step(DT).expect("cpu step");
    let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
    compare_snapshots("after spawn (append copies)", &sg, &sc, SnapTol::EXACT);
    assert_counters_eq(
        "after spawn",
        &g.read_counters().unwrap(),
        &c.read_counters().unwrap(),
    );
    for (i, p) in particles.iter().enumerate() {
        assert_eq!(sc.life[i].id, i as u32, "after spawn: slot {i} life.id");
        assert_eq!(
            sc.pos[i],
            p.position.extend(1.0),
            "after spawn: slot {i} pos"
        );
        assert_eq!(
            sc.vel[i],
            p.velocity.extend(p.damping),
            "after spawn: slot {i} vel"
        );
        assert_eq!(
            sc.acc[i],
            p.acceleration.extend(p.inverse_mass),
            "after spawn: slot {i} acc"
        );
        assert_eq!(sc.colour[i], p.colour, "after spawn: slot {i} colour");
        assert_eq!(sc.size[i], p.size, "after spawn: slot {i} size");
        let l = sc.life[i];
        assert_eq!(
            (l.age, l.kind),
            (0.0, 0),
            "after spawn: slot {i} (life.age, life.kind)"
        );
        match p.lifetime {
            Some(t) => assert_eq!(l.lifetime, t, "after spawn: slot {i} life.lifetime"),
            None => assert!(
                l.lifetime < 0.0,
                "after spawn: slot {i} life.lifetime {} of an immortal particle is not negative",
                l.lifetime
            ),
        }
    }
    (g, c, handles)
}

/// Steps both worlds once and compares everything; returns the snapshots (gpu, cpu).
fn step_and_compare(
    label: &str,
    g: &mut ParticleWorld,
    c: &mut ParticleWorld,
    tol: Tol,
) -> (Snapshot, Snapshot) {
    g.step(DT).expect("gpu step");
    c.step(DT).expect("cpu step");
    let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
    let e = compare_snapshots(
        label,
        &sg,
        &sc,
        SnapTol {
            pos: tol,
            vel: tol,
            other: Tol::EXACT,
        },
    );
    assert_counters_eq(
        label,
        &g.read_counters().unwrap(),
        &c.read_counters().unwrap(),
    );
    report(label, e);
    (sg, sc)
}

fn config(n: u32) -> WorldConfig {
    WorldConfig {
        capacity: n,
        ..WorldConfig::default()
    }
}

#[test]
fn integrate_alone() {
    // Tolerance of the f64 reference check: the f32 update rounds at most 4 times per
    // component (v*dt, +, a*dt, +, *keep) plus powf's error (< 1 ulp in glibc), so 8 units of
    // roundoff relative to the largest term, and the same absolute floor as INTEGRATE.
    const REFERENCE_REL: f64 = 8.0 * U;
    for n in SIZES {
        let mut rng = Rng::new(0x1_0000 + u64::from(n));
        let ps: Vec<Particle> = (0..n)
            .map(|_| random_particle(&mut rng, -50.0, 50.0))
            .collect();
        let (mut g, mut c) = spawn_both(&config(n), &ps);
        let (sg, sc) = step_and_compare(&format!("integrate n={n}"), &mut g, &mut c, INTEGRATE);
        // Physics: one step of the book's integrator, p1 = p0 + v0 dt, v1 = (v0 + a dt) d^dt,
        // evaluated in f64; immovable particles (inverse mass 0) do not move at all.
        for (i, p) in ps.iter().enumerate() {
            for (name, s) in [("gpu", &sg), ("cpu", &sc)] {
                if p.inverse_mass == 0.0 {
                    assert_eq!(
                        s.pos[i].truncate(),
                        p.position,
                        "{name} n={n}: immovable slot {i} pos moved"
                    );
                    assert_eq!(
                        s.vel[i].truncate(),
                        p.velocity,
                        "{name} n={n}: immovable slot {i} vel changed"
                    );
                    continue;
                }
                let dt = f64::from(DT);
                let keep = f64::from(p.damping).powf(dt);
                for k in 0..3 {
                    let (p0, v0, a) = (
                        f64::from(p.position[k]),
                        f64::from(p.velocity[k]),
                        f64::from(p.acceleration[k]),
                    );
                    let want_p = p0 + v0 * dt;
                    let want_v = (v0 + a * dt) * keep;
                    let tol_p =
                        REFERENCE_REL * (p0.abs() + (v0 * dt).abs()) + f64::from(INTEGRATE.abs);
                    let tol_v =
                        REFERENCE_REL * (v0.abs() + (a * dt).abs()) + f64::from(INTEGRATE.abs);
                    let (got_p, got_v) = (f64::from(s.pos[i][k]), f64::from(s.vel[i][k]));
                    assert!(
                        (got_p - want_p).abs() <= tol_p,
                        "{name} n={n}: slot {i} pos[{k}] {got_p} vs f64 {want_p}"
                    );
                    assert!(
                        (got_v - want_v).abs() <= tol_v,
                        "{name} n={n}: slot {i} vel[{k}] {got_v} vs f64 {want_v}"
                    );
                }
            }
        }
    }
}

fn force_case(name: &str, fields: Vec<ForceField>, seed: u64) {
    for n in SIZES {
        let mut rng = Rng::new(seed + u64::from(n));
        let ps: Vec<Particle> = (0..n)
            .map(|_| random_particle(&mut rng, -20.0, 20.0))
            .collect();
        let cfg = WorldConfig {
            fields: fields.clone(),
            ..config(n)
        };
        let (mut g, mut c) = spawn_both(&cfg, &ps);
        let (_, sc) = step_and_compare(&format!("forces {name} n={n}"), &mut g, &mut c, FORCES);
        // The fields must act: most movable, undamped-to-zero particles leave the field-free
        // update (v0 + a dt) d^dt by far more than the tolerance (1e-4 m/s is ~25x it).
        let (mut acted, mut eligible) = (0, 0);
        for (i, p) in ps
            .iter()
            .enumerate()
            .filter(|(_, p)| p.inverse_mass > 0.0 && p.damping > 0.0)
        {
            let free = (p.velocity + p.acceleration * DT) * p.damping.powf(DT);
            eligible += 1;
            acted += usize::from((sc.vel[i].truncate() - free).length() > 1e-4);
        }
        assert!(
            2 * acted >= eligible,
            "forces {name} n={n}: the fields changed only {acted} of {eligible} velocities"
        );
    }
}

#[test]
fn forces_gravity() {
    force_case(
        "gravity",
        vec![
            ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0)),
            ForceField::Gravity(Vec3::new(1.5, 0.0, -0.5)),
        ],
        0x2_0000,
    );
}

#[test]
fn forces_drag() {
    force_case(
        "drag",
        vec![ForceField::Drag { k1: 0.3, k2: 0.05 }],
        0x3_0000,
    );
}

#[test]
fn forces_wind() {
    force_case(
        "wind",
        vec![ForceField::Wind {
            velocity: Vec3::new(5.0, 0.0, -3.0),
            k1: 0.2,
            k2: 0.02,
        }],
        0x4_0000,
    );
}

#[test]
fn forces_attractor() {
    force_case(
        "attractor",
        vec![
            ForceField::Attractor {
                centre: Vec3::new(1.0, 2.0, 3.0),
                strength: 500.0,
                softening: 0.5,
            },
            ForceField::Attractor {
                centre: Vec3::new(-4.0, 0.0, 1.0),
                strength: -200.0,
                softening: 1.0,
            },
        ],
        0x5_0000,
    );
}

#[test]
fn forces_all_kinds_together() {
    force_case(
        "all",
        vec![
            ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0)),
            ForceField::Drag { k1: 0.1, k2: 0.01 },
            ForceField::Wind {
                velocity: Vec3::new(2.0, 1.0, 0.0),
                k1: 0.05,
                k2: 0.0,
            },
            ForceField::Attractor {
                centre: Vec3::ZERO,
                strength: 100.0,
                softening: 1.0,
            },
        ],
        0x6_0000,
    );
}

fn half_space(offset: f32) -> Collider {
    Collider {
        shape: ColliderShape::HalfSpace {
            normal: Vec3::new(0.2, 1.0, -0.1),
            offset,
        },
        restitution: 0.6,
        friction: 0.4,
    }
}

fn sphere(centre: Vec3, radius: f32) -> Collider {
    Collider {
        shape: ColliderShape::Sphere { centre, radius },
        restitution: 0.7,
        friction: 0.2,
    }
}

fn rotated_box(centre: Vec3, half_extents: Vec3) -> Collider {
    Collider {
        shape: ColliderShape::Box {
            centre,
            half_extents,
            rotation: Quat::from_euler(EulerRot::XYZ, 0.3, 0.7, -0.4),
        },
        restitution: 0.4,
        friction: 0.5,
    }
}

/// Signed penetration of a ball of radius `r` at `p` into a collider, written independently of
/// the engine (positive: overlapping).
fn penetration(c: &Collider, p: Vec3, r: f32) -> f32 {
    match c.shape {
        ColliderShape::HalfSpace { normal, offset } => r - (normal.normalize().dot(p) - offset),
        ColliderShape::Sphere { centre, radius } => radius + r - (p - centre).length(),
        ColliderShape::Box {
            centre,
            half_extents,
            rotation,
        } => {
            let l = rotation.normalize().inverse() * (p - centre);
            let outside = (l.abs() - half_extents).max(Vec3::ZERO).length();
            if outside > 0.0 {
                r - outside
            } else {
                r + (half_extents - l.abs()).min_element()
            }
        }
    }
}

/// Whether a centre at `p` gives a contact whose outcome is a well-conditioned function of `p`.
///
/// Two box configurations are not, on any hardware: beside an edge or corner the normal is
/// `diff / |diff|` of a short vector whose components carry the rounding of the box-local
/// position (an ulp of ~2 m is 2.4e-7), so its direction is only good to ulp/|diff| — arbitrarily
/// bad as the centre nears the edge; and inside the box the exit face is the smallest depth, a
/// choice that flips on a rounding error when two depths tie. The random inputs avoid both by a
/// wide margin (`EDGE_MARGIN`), so the comparison measures arithmetic, not luck. Faces of boxes,
/// spheres (away from the centre) and half-spaces are well-conditioned everywhere.
fn well_conditioned(c: &Collider, p: Vec3) -> bool {
    const EDGE_MARGIN: f32 = 1e-3;
    match c.shape {
        ColliderShape::HalfSpace { .. } => true,
        ColliderShape::Sphere { centre, .. } => (p - centre).length() > 0.1,
        ColliderShape::Box {
            centre,
            half_extents,
            rotation,
        } => {
            let l = (rotation.normalize().inverse() * (p - centre)).abs();
            let out = l - half_extents;
            let outside_axes = (0..3).filter(|&k| out[k] > -EDGE_MARGIN).count();
            if out.max_element() > 0.0 {
                // Outside: fine in a face region (one axis out, the others clearly in), or far
                // enough away that no particle reaches it (radius 0.5 + slop).
                outside_axes <= 1 || out.max(Vec3::ZERO).length() > 1.0
            } else {
                let mut d = [-out.x, -out.y, -out.z];
                d.sort_by(f32::total_cmp);
                d[1] - d[0] > EDGE_MARGIN
            }
        }
    }
}

/// After the contact stage no particle overlaps a lone collider by more than this: the push-out
/// lands on the surface up to rounding of coordinates below 8 m (ulp 4.8e-7), a few ulps.
const RESOLVED_OVERLAP: f32 = 1e-5;

/// Particles start in the box `lo..hi`, chosen per case so that a good share of them overlap a
/// collider after one free-flight step. In the case with several colliders the shapes are at
/// least 1.6 m apart (more than two radii plus a step's travel), so a particle meets at most one.
fn collider_case(name: &str, colliders: Vec<Collider>, lo: Vec3, hi: Vec3, seed: u64) {
    for n in SIZES {
        let mut rng = Rng::new(seed + u64::from(n));
        let ps: Vec<Particle> = (0..n)
            .map(|_| loop {
                let p = random_particle(&mut rng, 0.0, 1.0);
                let p = Particle {
                    position: lo + (hi - lo) * p.position,
                    ..p
                };
                if colliders
                    .iter()
                    .all(|c| well_conditioned(c, p.position + p.velocity * DT))
                {
                    break p;
                }
            })
            .collect();
        let cfg = WorldConfig {
            colliders: colliders.clone(),
            fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
            ..config(n)
        };
        let (mut g, mut c) = spawn_both(&cfg, &ps);
        let (sg, sc) = step_and_compare(
            &format!("colliders {name} n={n}"),
            &mut g,
            &mut c,
            COLLIDERS,
        );
        // The case must exercise contacts: count particles whose free-flight position (p + v dt)
        // overlaps a collider.
        let hits = ps
            .iter()
            .filter(|p| {
                p.inverse_mass > 0.0
                    && colliders
                        .iter()
                        .any(|col| penetration(col, p.position + p.velocity * DT, p.size) > 0.0)
            })
            .count();
        if n >= 63 {
            assert!(hits * 5 >= n as usize, "colliders {name} n={n}: only {hits} particles touch a collider; the case tests nothing");
        }
        // Physics: nothing movable is left overlapping a collider.
        for (label, s) in [("gpu", &sg), ("cpu", &sc)] {
            for (i, p) in ps.iter().enumerate().filter(|(_, p)| p.inverse_mass > 0.0) {
                for (k, col) in colliders.iter().enumerate() {
                    let pen = penetration(col, s.pos[i].truncate(), p.size);
                    assert!(pen <= RESOLVED_OVERLAP, "{label} colliders {name} n={n}: slot {i} still overlaps collider {k} by {pen} m");
                }
            }
        }
    }
}

#[test]
fn colliders_half_space() {
    collider_case(
        "half-space",
        vec![half_space(0.5)],
        Vec3::splat(-4.0),
        Vec3::splat(4.0),
        0x7_0000,
    );
}

#[test]
fn colliders_sphere() {
    let c = Vec3::new(0.3, -0.2, 0.1);
    collider_case("sphere", vec![sphere(c, 2.5)], c - 2.5, c + 2.5, 0x8_0000);
}

#[test]
fn colliders_rotated_box() {
    let c = Vec3::new(0.5, -0.2, 0.3);
    collider_case(
        "rotated box",
        vec![rotated_box(c, Vec3::new(2.0, 1.0, 1.5))],
        c - 2.2,
        c + 2.2,
        0x9_0000,
    );
}

/// A tilted ground below a sphere and a rotated box side by side (gaps of 1.9 m and more).
#[test]
fn colliders_all_together() {
    let colliders = vec![
        half_space(-4.5),
        sphere(Vec3::new(-3.5, 0.5, 0.0), 2.0),
        rotated_box(Vec3::new(3.5, 0.5, 0.0), Vec3::new(1.5, 1.0, 1.2)),
    ];
    collider_case(
        "all",
        colliders,
        Vec3::new(-6.0, -6.0, -3.0),
        Vec3::new(6.0, 3.0, 3.0),
        0xa_0000,
    );
}

/// `n` fireworks of random types with fuses of 2.5 steps all burst in the 4th step (ages after
/// the integrate steps are 1, 2, 3 dt); their children land in the pool in the same step.
#[test]
fn firework_burst_spawns_identical_children() {
    let rules = wgphys::fireworks::FireworkRules::book();
    let children = |ty: u32| -> u32 {
        rules.rules[ty as usize - 1]
            .payload
            .iter()
            .map(|&(_, c)| c)
            .sum()
    };
    for n in SIZES {
        let mut rng = Rng::new(0xb_0000 + u64::from(n));
        let fw: Vec<(u32, Vec3, Vec3)> = (0..n)
            .map(|_| {
                (
                    1 + rng.below(9),
                    rng.vec3(-20.0, 20.0) + Vec3::new(0.0, 40.0, 0.0),
                    rng.vec3(-10.0, 10.0),
                )
            })
            .collect();
        let wanted: u32 = fw.iter().map(|f| children(f.0)).sum();
        // The largest case holds fewer children than wanted, so overflow is compared too.
        let capacity = if n > 10_000 { 2 * n } else { n + wanted };
        let (mut g, mut c) = pair(&WorldConfig {
            capacity,
            seed: 77,
            ..WorldConfig::default()
        });
        for &(ty, p, v) in &fw {
            g.spawn_firework(ty, p, v, 2.5 * DT).unwrap();
            c.spawn_firework(ty, p, v, 2.5 * DT).unwrap();
        }
        let label = |s: u32| format!("fireworks n={n} step {s}");
        for s in 1..=3 {
            g.step(DT).unwrap();
            c.step(DT).unwrap();
            let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
            assert_eq!(
                sc.len(),
                n as usize,
                "{}: no firework may burst before its fuse",
                label(s)
            );
            let e = compare_snapshots(
                &label(s),
                &sg,
                &sc,
                SnapTol {
                    pos: FIREWORKS,
                    vel: FIREWORKS,
                    other: FIREWORKS,
                },
            );
            assert_counters_eq(
                &label(s),
                &g.read_counters().unwrap(),
                &c.read_counters().unwrap(),
            );
            report(&label(s), e);
        }
        g.step(DT).unwrap();
        c.step(DT).unwrap();
        let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
        let e = compare_snapshots(
            &label(4),
            &sg,
            &sc,
            SnapTol {
                pos: FIREWORKS,
                vel: FIREWORKS,
                other: FIREWORKS,
            },
        );
        let (cg, cc) = (g.read_counters().unwrap(), c.read_counters().unwrap());
        assert_counters_eq(&label(4), &cg, &cc);
        report(&label(4), e);

        // Bookkeeping: every parent died, every child was wanted, as many as fit were accepted.
        let accepted = wanted.min(capacity);
        assert_eq!(cc.dead, n, "{}: counters.dead", label(4));
        assert_eq!(
            cc.children_wanted,
            wanted,
            "{}: counters.children_wanted",
            label(4)
        );
        assert_eq!(
            cc.spawn_accepted,
            accepted,
            "{}: counters.spawn_accepted",
            label(4)
        );
        assert_eq!(cc.live, accepted, "{}: counters.live", label(4));
        assert_eq!(
            cc.dropped_total,
            wanted - accepted,
            "{}: counters.dropped_total",
            label(4)
        );
        assert_eq!(cc.next_serial, wanted, "{}: counters.next_serial", label(4));
        // Children: serial ids in payload-rank order, their type's colour, size and fuse range.
        let mut slot = 0usize;
        'parents: for &(ty, ..) in &fw {
            let first = slot;
            for &(cty, count) in &rules.rules[ty as usize - 1].payload {
                for _ in 0..count {
                    if slot >= accepted as usize {
                        break 'parents;
                    }
                    let r = &rules.rules[cty as usize - 1];
                    let l = sc.life[slot];
                    assert_eq!(
                        l.id,
                        GPU_ID_BIT | slot as u32,
                        "{}: slot {slot} life.id",
                        label(4)
                    );
                    assert_eq!(l.kind, cty, "{}: slot {slot} life.kind", label(4));
                    assert!(
                        l.lifetime >= r.age.0 && l.lifetime <= r.age.1,
                        "{}: slot {slot} life.lifetime {} outside {:?}",
                        label(4),
                        l.lifetime,
                        r.age
                    );
                    assert_eq!(
                        sc.colour[slot],
                        r.colour,
                        "{}: slot {slot} colour",
                        label(4)
                    );
                    assert_eq!(sc.size[slot], r.size, "{}: slot {slot} size", label(4));
                    assert_eq!(
                        sc.pos[slot],
                        sc.pos[first],
                        "{}: slot {slot} pos differs from its sibling at {first}",
                        label(4)
                    );
                    slot += 1;
                }
            }
        }
    }
}

/// The lifecycle stages at scale: random lifetimes and random removals kill particles across
/// many scan blocks; survivors compact into the holes and the slot order must be identical.
#[test]
fn deaths_and_removals_compact_identically() {
    for n in SIZES {
        let mut rng = Rng::new(0xc_0000 + u64::from(n));
        let ps: Vec<Particle> = (0..n)
            .map(|_| {
                let p = random_particle(&mut rng, -50.0, 50.0);
                if rng.chance(0.3) {
                    p.with_lifetime(DT * (0.5 + rng.below(3) as f32))
                } else {
                    p
                }
            })
            .collect();
        let (mut g, mut c, handles) = spawn_both_with_handles(&config(n), &ps);
        for s in 0..3 {
            let label = format!("deaths n={n} step {s}");
            let live: Vec<u32> = c
                .read_snapshot()
                .unwrap()
                .life
                .iter()
                .map(|l| l.id)
                .collect();
            let mut removed = Vec::new();
            for &id in &live {
                let (hg, hc) = handles[id as usize];
                if rng.chance(0.2) && c.contains(hc) {
                    g.remove(hg).unwrap();
                    c.remove(hc).unwrap();
                    removed.push(id);
                }
            }
            let (sg, sc) = step_and_compare(&label, &mut g, &mut c, THREE_STEPS);
            let ids: std::collections::HashSet<u32> = sc.life.iter().map(|l| l.id).collect();
            assert_eq!(
                ids.len(),
                sc.len(),
                "{label}: duplicate ids after compaction"
            );
            assert_eq!(
                sg.len(),
                c.read_counters().unwrap().live as usize,
                "{label}: snapshot length vs counters.live"
            );
            for id in removed {
                assert!(
                    !ids.contains(&id),
                    "{label}: removed id {id} is still in the pool"
                );
            }
        }
    }
}
