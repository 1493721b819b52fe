//! Particles against many rigid shapes (issue 34, items 4 and 6): the grid of stage
//! `rigid_cells` finds every shape the brute force (`rigid_contacts`) would touch, so the two
//! lookups give the same sparks bit for bit on the CPU and within the GPU-vs-CPU parity bounds
//! on the GPU; collision groups and masks are honoured on both backends (a spark whose groups
//! do not meet a box's falls through it exactly as through nothing); a shower on a box moving
//! across many cells rides it; the groups survive a save.

mod common;

use common::error_model::cost::{CONTRACT, DOT3, LENGTH, ROUND};
use common::error_model::{trajectory_drift, Drift, UNIT_ROUNDOFF};
use common::{shared_gpu, Rng};
use glam::{Quat, Vec3, Vec4, Vec4Swizzles};
use wgphys::particles::cpu::CpuState;
use wgphys::particles::rigid::{rigid_bound_near, rigid_shape_bound};
use wgphys::particles::rigid_cells::{
    bucket_count, cell_hash, cell_of, cell_size, rigid_cells, MAX_RIGID_CELL_SHAPES,
};
use wgphys::particles::types::GpuParams;
use wgphys::particles::{Emitter, Particle, ParticleWorld, RigidLookup, Snapshot, WorldConfig};
use wgphys::rigid::{self, RigidBody, RigidConfig, RigidWorld};
use wgphys::{Backend, Error};

const DT: f32 = 1.0 / 60.0;
const G: Vec3 = Vec3::new(0.0, -9.81, 0.0);

/// A random scene: `small` small shapes (spheres, boxes, capsules, some off their body's
/// origin and turned) on kinematic bodies moving and spinning over a 6 m square, a few fixed
/// ones, two big boxes (bigger than most, so the grid puts them in its large bucket), a ground
/// half-space, a tilted two-sided plane, a sensor, and collision groups drawn from three bits
/// (a few shapes in no group the sparks have).
fn scene(backend: Backend, seed: u64, small: usize) -> RigidWorld {
    let mut rng = Rng::new(seed);
    let mut w = RigidWorld::new(backend, RigidConfig::default()).expect("rigid world");
    for i in 0..small {
        let at = Vec3::new(
            rng.range(-3.0, 3.0),
            rng.range(0.2, 2.0),
            rng.range(-3.0, 3.0),
        );
        let size = rng.range(0.05, 0.2);
        let shape = match i % 3 {
            0 => rigid::Collider::sphere(size),
            1 => rigid::Collider::cuboid(Vec3::new(size, 0.6 * size, 1.3 * size)),
            _ => rigid::Collider::capsule_y(size, 0.5 * size),
        };
        let shape = if i % 4 == 0 {
            shape.at(
                Vec3::new(rng.range(-0.2, 0.2), 0.0, rng.range(-0.2, 0.2)),
                Quat::from_rotation_x(rng.range(-1.0, 1.0)),
            )
        } else {
            shape
        };
        let group = 1 << (i % 3);
        let mask = if i % 7 == 0 { 0b001 } else { 0b111 };
        let body = if i % 5 == 0 {
            RigidBody::fixed()
        } else {
            RigidBody::kinematic()
                .velocity(Vec3::new(rng.range(-1.0, 1.0), 0.0, rng.range(-1.0, 1.0)))
                .angular_velocity(Vec3::new(0.0, rng.range(-2.0, 2.0), 0.0))
        };
        w.add_body(
            body.position(at)
                .rotation(Quat::from_rotation_y(rng.range(-3.0, 3.0))),
            &[shape
                .material(rng.range(0.1, 0.8), rng.range(0.0, 0.5))
                .groups(group, mask)],
        )
        .expect("small shape");
    }
    for (at, half) in [
        (Vec3::new(-4.5, 0.3, 0.0), Vec3::new(1.5, 0.3, 4.0)),
        (Vec3::new(4.5, 0.5, 0.0), Vec3::new(1.5, 0.5, 4.0)),
    ] {
        w.add_body(
            RigidBody::kinematic()
                .position(at)
                .velocity(Vec3::new(0.0, 0.0, 0.3)),
            &[rigid::Collider::cuboid(half).material(0.5, 0.2)],
        )
        .expect("big box");
    }
    w.add_body(
        RigidBody::fixed(),
        &[
            rigid::Collider::half_space(Vec3::Y, 0.0).material(0.6, 0.1),
            rigid::Collider::plane(Vec3::new(0.3, 0.0, 1.0).normalize(), 3.2).material(0.2, 0.4),
            rigid::Collider::cuboid(Vec3::splat(0.5))
                .at(Vec3::new(0.0, 1.0, 0.0), Quat::IDENTITY)
                .sensor(true),
        ],
    )
    .expect("ground");
    w
}

/// A particle world of `lookup` with two emitters (one in group 0b010 colliding only with
/// group 0b010, one in every group) over the scene, direct sparks of the world's own groups
/// (group 0b100), and no static collider.
fn sparks(backend: Backend, lookup: RigidLookup, n: usize, seed: u64) -> ParticleWorld {
    let config = WorldConfig {
        capacity: 4096,
        rigid_lookup: lookup,
        collision_groups: (0b100, 0b101),
        ..WorldConfig::default()
    };
    let mut w = ParticleWorld::new(backend, config).expect("particle world");
    for (at, groups) in [
        (Vec3::new(-1.0, 3.0, 0.0), (0b010, 0b010)),
        (Vec3::new(1.0, 3.0, 0.5), (u32::MAX, u32::MAX)),
    ] {
        w.add_emitter(
            Emitter {
                rate: 600.0,
                position: at,
                lifetime: (1.5, 2.5),
                size: (0.015, 0.04),
                velocity: wgphys::particles::EmitVelocity::Radial { speed: (0.5, 3.0) },
                acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                ..Emitter::default()
            }
            .collision_groups(groups.0, groups.1),
        )
        .expect("emitter");
    }
    let mut rng = Rng::new(seed);
    for _ in 0..n {
        let at = Vec3::new(
            rng.range(-3.5, 3.5),
            rng.range(0.5, 3.0),
            rng.range(-3.5, 3.5),
        );
        let v = Vec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-2.0, 0.5),
            rng.range(-1.0, 1.0),
        );
        w.spawn(
            Particle::new(at)
                .with_velocity(v)
                .with_acceleration(G)
                .with_size(rng.range(0.01, 0.05)),
        )
        .expect("spark");
    }
    w
}

/// Runs `steps` steps of the rigid world and then the particles against it.
fn run(w: &mut ParticleWorld, r: &mut RigidWorld, steps: usize) -> Snapshot {
    for _ in 0..steps {
        r.step(DT).expect("rigid step");
        w.step_with_rigid(DT, r).expect("particle step");
    }
    w.read_snapshot().expect("snapshot")
}

/// Sparks of `a` whose position differs from `b`'s (to show a scene is not vacuous).
fn moved(a: &Snapshot, b: &Snapshot) -> usize {
    (0..a.len().min(b.len()))
        .filter(|&i| a.pos[i] != b.pos[i])
        .count()
}

/// The claim the grid stands on, checked directly on the CPU twin's grid: for random sparks,
/// and sparks placed right at the edge of each shape's reach (its bounding radius + the
/// spark's + the slop, times √REACH_SLACK, along the axes and diagonals, and far from the
/// origin where the roundings are coarse), every shape `rigid_bound_near` accepts is in the
/// bucket of the spark's cell or in the large bucket.
#[test]
fn every_shape_in_reach_is_in_the_sparks_bucket() {
    for (seed, offset) in [(1, Vec3::ZERO), (2, Vec3::new(3.0e4, -1.0e4, 7.5e4))] {
        let mut r = scene(Backend::Cpu, seed, 300);
        let bodies: Vec<_> = r
            .read_bodies()
            .expect("bodies")
            .into_iter()
            .map(|mut b| {
                b.pos += offset.extend(0.0);
                b
            })
            .collect();
        let shapes = r.shapes().to_vec();
        let slop = 1e-4;
        let mut rng = Rng::new(seed + 10);
        let mut probes = Vec::new();
        for s in &shapes {
            let b = rigid_shape_bound(s, &bodies);
            if b.w < 0.0 {
                continue;
            }
            let radius = rng.range(0.0, 0.05);
            let ext = (b.w + radius + slop) * (1.0f32 + 1.0 / 512.0).sqrt();
            for d in [
                Vec3::X,
                -Vec3::Y,
                Vec3::Z,
                Vec3::ONE.normalize(),
                Vec3::new(-1.0, 1.0, -1.0).normalize(),
            ] {
                probes.push((b.xyz() + d * ext, radius));
                probes.push((b.xyz() + d * ext * 0.999_99, radius));
            }
        }
        for _ in 0..2000 {
            let at = Vec3::new(
                rng.range(-4.0, 4.0),
                rng.range(-0.5, 2.5),
                rng.range(-4.0, 4.0),
            );
            probes.push((at + offset, rng.range(0.0, 0.05)));
        }
        let mut state = CpuState::new(probes.len() as u32).expect("state");
        state.counters.live = probes.len() as u32;
        for (i, &(p, radius)) in probes.iter().enumerate() {
            state.pos[i] = p.extend(1.0);
            state.acc[i] = Vec4::new(0.0, -9.81, 0.0, 1.0);
            state.size[i] = radius;
        }
        let buckets = bucket_count(shapes.len());
        let params = GpuParams {
            contact_slop: slop,
            rigid_shape_count: shapes.len() as u32,
            rigid_cell_inv: 1.0 / cell_size(&shapes),
            rigid_buckets: buckets,
            ..bytemuck::Zeroable::zeroed()
        };
        let grid = rigid_cells(&state, &params, &bodies, &shapes);
        let bucket = |h: u32| {
            &grid.entries[grid.start[h as usize] as usize..grid.start[h as usize + 1] as usize]
        };
        let large = bucket(buckets);
        let (mut near, mut in_cells) = (0, 0);
        for &(p, radius) in &probes {
            let home = bucket(cell_hash(cell_of(p, params.rigid_cell_inv), buckets));
            for (k, &b) in grid.bounds.iter().enumerate() {
                if !rigid_bound_near(b, p, radius, slop) {
                    continue;
                }
                // Half-spaces and planes are always in reach (and always in the large bucket).
                near += usize::from(b.w >= 0.0);
                let k = k as u32;
                assert!(
                    home.contains(&k) || large.contains(&k),
                    "seed {seed}: shape {k} (bound {b}) in reach of a spark at {p} (radius \
                     {radius}) is not in its bucket"
                );
                in_cells += usize::from(home.contains(&k));
            }
        }
        assert!(
            // Ten edge probes of each of the 300 small shapes are in its reach: most of those
            // 3000 pairs go through a cell unless the small shapes fell into the large bucket.
            near > 3000 && in_cells > 2000,
            "seed {seed}: {near} pairs of a finite shape in reach, {in_cells} found through \
             cells: the probes test the cells"
        );
    }
}

/// The margin, at its edge: for random bounding spheres (near the origin and 10 km away),
/// spark radii and directions, the farthest spark `rigid_bound_near` still accepts (found by
/// bisection on the f32 distance) lies in the shape's cell range, with the grid's cell size
/// chosen so that a cell boundary falls between the bound's plain reach (radius + spark + slop)
/// and that farthest spark: the case a range without the margin would miss.
#[test]
fn the_margin_covers_the_farthest_spark_in_reach() {
    use wgphys::particles::rigid_cells::{shape_cells, ShapeCells};
    let mut rng = Rng::new(31);
    let slop = 1e-4;
    let (mut cases, mut past_plain) = (0, 0);
    for k in 0..4000 {
        let far = if k % 2 == 0 { 1.0 } else { 1.0e4 };
        let c = Vec3::new(
            rng.range(-50.0, 50.0),
            rng.range(-50.0, 50.0),
            rng.range(-50.0, 50.0),
        ) * far;
        let b = c.extend(rng.range(0.01, 2.0));
        let r = rng.range(0.0, 0.1);
        let axis = [Vec3::X, -Vec3::Y, Vec3::Z][k % 3];
        let d = (axis
            + 0.3
                * Vec3::new(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                ))
        .normalize();
        // The farthest distance along d still in reach.
        let (mut lo, mut hi) = (0.0f32, 2.0 * (b.w + r + slop) + 1.0);
        for _ in 0..64 {
            let mid = 0.5 * (lo + hi);
            if rigid_bound_near(b, c + d * mid, r, slop) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let p = c + d * lo;
        assert!(rigid_bound_near(b, p, r, slop));
        // A cell boundary between the plain reach and the spark along the main axis.
        let i = (0..3)
            .max_by(|&i, &j| d[i].abs().total_cmp(&d[j].abs()))
            .unwrap();
        let plain = c[i] + (b.w + r + slop) * d[i].signum();
        let boundary = 0.5 * (plain + p[i]);
        let m = (boundary.abs() / (3.0 * (b.w + r + slop))).round().max(1.0);
        let inv = m / boundary.abs();
        let cell = cell_of(p, inv);
        match shape_cells(b, r, slop, inv) {
            ShapeCells::Cells { lo, hi } => {
                cases += 1;
                for a in 0..3 {
                    assert!(
                        lo[a] <= cell[a] && cell[a] <= hi[a],
                        "case {k}: the spark at {p} (cell {cell:?}) in reach of {b} is outside \
                         the range {lo:?}..={hi:?}"
                    );
                }
                let plain_cell = (plain * inv).floor() as i32;
                past_plain += usize::from(plain_cell != cell[i]);
            }
            ShapeCells::Large => {}
            ShapeCells::None => panic!("case {k}: a finite shape binned nowhere"),
        }
    }
    // The boundary is placed to separate the two: most cases are the ones that need the margin.
    assert!(
        cases > 3000 && past_plain > cases / 2,
        "{cases} binned, {past_plain} past the plain reach's cell"
    );
}

/// The grid against the brute force on the CPU, on random scenes of 300 and 900 small shapes,
/// two big boxes, a ground, a plane and a sensor, with groups, and on the crowd of big boxes
/// among small spheres (`crowd`; seed 0 below): the same sparks bit for bit
/// after 90 steps (every shape the brute force touches is in the spark's bucket, and the
/// buckets are visited in slot order), and many sparks did touch something.
#[test]
fn cpu_grid_equals_brute_force_bit_for_bit() {
    for (seed, small) in [(3, 300), (4, 900), (0, 0)] {
        let mut results = Vec::new();
        for lookup in [RigidLookup::Cells, RigidLookup::All] {
            let mut r = if small == 0 {
                crowd(Backend::Cpu)
            } else {
                scene(Backend::Cpu, seed, small)
            };
            let mut w = sparks(Backend::Cpu, lookup, 1500, seed);
            results.push(run(&mut w, &mut r, 90));
        }
        let mut r = RigidWorld::new(Backend::Cpu, RigidConfig::default()).unwrap();
        let mut w = sparks(Backend::Cpu, RigidLookup::Cells, 1500, seed);
        let free = run(&mut w, &mut r, 90);
        let (cells, all) = (&results[0], &results[1]);
        assert_eq!(cells.life, all.life, "seed {seed}: the same sparks");
        assert_eq!(cells.pos, all.pos, "seed {seed}: positions");
        assert_eq!(cells.vel, all.vel, "seed {seed}: velocities");
        let touched = moved(cells, &free);
        assert!(
            touched > cells.len() / 2,
            "seed {seed}: only {touched} of {} sparks met a shape",
            cells.len()
        );
    }
}

/// Builds a rigid world on a backend.
type Builder = fn(Backend) -> RigidWorld;

/// 200 fixed shapes, every fourth a box of half extent 0.6–1 m among spheres of 5–10 cm: the
/// cells are sized for the spheres, so the boxes (50, interleaved with the spheres' slots) all
/// go into the large bucket, which the GPU writes in slot order without sorting, and overlap, so
/// the order of their contacts matters.
fn crowd(backend: Backend) -> RigidWorld {
    let mut rng = Rng::new(77);
    let mut w = RigidWorld::new(backend, RigidConfig::default()).expect("rigid world");
    for i in 0..200 {
        let at = Vec3::new(
            rng.range(-3.0, 3.0),
            rng.range(0.0, 1.0),
            rng.range(-3.0, 3.0),
        );
        let shape = if i % 4 == 0 {
            rigid::Collider::cuboid(Vec3::splat(rng.range(0.6, 1.0)))
        } else {
            rigid::Collider::sphere(rng.range(0.05, 0.1))
        };
        w.add_body(
            RigidBody::fixed()
                .position(at)
                .rotation(Quat::from_rotation_y(rng.range(-3.0, 3.0))),
            &[shape.material(0.4, 0.2)],
        )
        .expect("shape");
    }
    w
}

/// The GPU's grid against the CPU twin's on the random scene and on the crowd of big boxes,
/// within the bounds of `gpu_and_cpu_agree_on_a_shower_onto_a_moving_box`
/// (tests/particles_rigid.rs: the same model, speeds ≤ 6 m/s, positions ≤ 4 m, 4 contacts in a
/// row, plus a share of sparks a rounding sent the other way at a decision), and against the
/// GPU's brute force within the same.
#[test]
fn gpu_grid_matches_cpu_and_the_gpu_brute_force() {
    let steps = 60;
    let scenes: [(&str, Builder); 2] = [
        ("random scene", |b| scene(b, 5, 300)),
        ("crowd of big boxes", crowd),
    ];
    for (name, build) in scenes {
        let go = |backend: Backend, lookup| {
            let mut r = build(backend.clone());
            let mut w = sparks(backend, lookup, 1000, 5);
            run(&mut w, &mut r, steps)
        };
        let cpu = go(Backend::Cpu, RigidLookup::Cells);
        let gpu = go(Backend::Gpu(shared_gpu()), RigidLookup::Cells);
        let gpu_all = go(Backend::Gpu(shared_gpu()), RigidLookup::All);
        let Drift { pos, vel } = trajectory_drift(steps as u32, f64::from(DT), 6.0, 4.0, 4, 1000);
        let box_drift = f64::from(steps as u32) * ROUND * 2.0 * UNIT_ROUNDOFF;
        let surface = 2.0 * (DOT3 + LENGTH + CONTRACT) * 4.0 * UNIT_ROUNDOFF;
        let pos_tol = (2.0 * pos + box_drift + surface) as f32;
        let vel_tol = (2.0 * vel + surface / f64::from(DT)) as f32;
        for (what, a, b) in [
            ("gpu vs cpu", &gpu, &cpu),
            ("gpu grid vs gpu brute", &gpu, &gpu_all),
        ] {
            assert_eq!(a.len(), b.len(), "{name}, {what}: live");
            let mut diverged = 0;
            let mut worst = (0.0f32, 0.0f32);
            for i in 0..a.len() {
                assert_eq!(
                    a.life[i].id, b.life[i].id,
                    "{name}, {what}: slot {i}: the same spark"
                );
                let dp = (a.pos[i] - b.pos[i]).abs().max_element();
                let dv = (a.vel[i] - b.vel[i]).abs().max_element();
                if dp <= pos_tol && dv <= vel_tol {
                    worst = (worst.0.max(dp), worst.1.max(dv));
                } else {
                    diverged += 1;
                }
            }
            // As in particles_rigid.rs: at most one spark in 50 a rounding sent the other way
            // at a decision (in reach or not, which face).
            assert!(
                diverged <= a.len() / 50,
                "{name}, {what}: {diverged} sparks diverged"
            );
            eprintln!(
                "{name}, {what}: worst |Δp| {:e} (bound {pos_tol:e}), |Δv| {:e} (bound \
                 {vel_tol:e}), {diverged} diverged",
                worst.0, worst.1
            );
        }
    }
}

/// Groups and masks on both backends: a box in group 0b001 and a shower through it. Sparks
/// whose mask leaves out bit 0 (an emitter's, and the world's own for spawned sparks), and
/// sparks whose group the box's mask leaves out, fall through it exactly as with no box (bit
/// for bit on both backends: the stage writes only a particle that touched a shape); sparks of
/// every group land on it.
#[test]
fn groups_and_masks_are_honoured_on_both_backends() {
    let box_at = Vec3::new(0.0, 0.5, 0.0);
    let rigid = |backend: Backend, mask: u32| {
        let mut r = RigidWorld::new(backend, RigidConfig::default()).unwrap();
        r.add_body(
            RigidBody::fixed().position(box_at),
            &[rigid::Collider::cuboid(Vec3::new(1.0, 0.25, 1.0)).groups(0b001, mask)],
        )
        .unwrap();
        r
    };
    let world = |backend: Backend, spark_groups: (u32, u32)| {
        let config = WorldConfig {
            capacity: 2048,
            collision_groups: spark_groups,
            ..WorldConfig::default()
        };
        let mut w = ParticleWorld::new(backend, config).unwrap();
        w.add_emitter(
            Emitter {
                rate: 300.0,
                shape: wgphys::particles::EmitShape::Disc { radius: 0.8 },
                position: Vec3::new(0.0, 2.0, 0.0),
                acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                ..Emitter::default()
            }
            .collision_groups(spark_groups.0, spark_groups.1),
        )
        .unwrap();
        let mut rng = Rng::new(8);
        for _ in 0..200 {
            let at = Vec3::new(
                rng.range(-0.9, 0.9),
                rng.range(1.2, 2.5),
                rng.range(-0.9, 0.9),
            );
            w.spawn(Particle::new(at).with_acceleration(G).with_size(0.02))
                .unwrap();
        }
        w
    };
    for backend in [Backend::Cpu, Backend::Gpu(shared_gpu())] {
        let name = if matches!(backend, Backend::Cpu) {
            "cpu"
        } else {
            "gpu"
        };
        let steps = 90;
        let alone = {
            let mut w = world(backend.clone(), (u32::MAX, u32::MAX));
            for _ in 0..steps {
                w.step(DT).unwrap();
            }
            w.read_snapshot().unwrap()
        };
        let cases = [
            (
                "mask without the box's group",
                (0b110, 0b110),
                u32::MAX,
                false,
            ),
            (
                "group outside the box's mask",
                (0b010, u32::MAX),
                0b101,
                false,
            ),
            ("every group", (u32::MAX, u32::MAX), u32::MAX, true),
        ];
        for (what, spark_groups, box_mask, lands) in cases {
            let mut r = rigid(backend.clone(), box_mask);
            let mut w = world(backend.clone(), spark_groups);
            // The world's groups only matter for collisions: the emitted sparks are the same.
            let s = run(&mut w, &mut r, steps);
            assert_eq!(s.life, alone.life, "{name}, {what}: the same sparks");
            if lands {
                let on_box = (0..s.len())
                    .filter(|&i| (s.pos[i].y - 0.75).abs() < 0.03)
                    .count();
                assert!(
                    on_box > s.len() / 3 && s.pos != alone.pos,
                    "{name}, {what}: {on_box} of {} sparks on the box",
                    s.len()
                );
            } else {
                assert_eq!(s.pos, alone.pos, "{name}, {what}: positions");
                assert_eq!(s.vel, alone.vel, "{name}, {what}: velocities");
            }
        }
    }
}

/// A shower onto a box moving at 2 m/s among 400 small still spheres (so cells are small:
/// the box crosses many of them in 2 s) rides it, on both backends: every spark resting on the
/// box's top moves with the box's velocity (the contact's surface frame), and the CPU grid
/// equals the CPU brute force bit for bit.
#[test]
fn a_shower_rides_a_box_moving_across_cells() {
    let speed = Vec3::new(2.0, 0.0, 0.0);
    let half = Vec3::new(0.8, 0.25, 0.8);
    let build = |backend: Backend| {
        let mut r = RigidWorld::new(backend, RigidConfig::default()).unwrap();
        r.add_body(
            RigidBody::kinematic()
                .position(Vec3::new(-2.0, 0.5, 0.0))
                .velocity(speed),
            &[rigid::Collider::cuboid(half).material(0.6, 0.0)],
        )
        .unwrap();
        for i in 0..400 {
            let at = Vec3::new((i % 20) as f32 - 10.0, -1.0, (i / 20) as f32 - 10.0);
            r.add_body(
                RigidBody::fixed().position(at),
                &[rigid::Collider::sphere(0.1)],
            )
            .unwrap();
        }
        r
    };
    let mut results = Vec::new();
    for (backend, lookup) in [
        (Backend::Cpu, RigidLookup::Cells),
        (Backend::Cpu, RigidLookup::All),
        (Backend::Gpu(shared_gpu()), RigidLookup::Cells),
    ] {
        let mut r = build(backend.clone());
        let config = WorldConfig {
            capacity: 1024,
            rigid_lookup: lookup,
            ..WorldConfig::default()
        };
        let mut w = ParticleWorld::new(backend.clone(), config).unwrap();
        let mut rng = Rng::new(21);
        for _ in 0..300 {
            let at = Vec3::new(
                rng.range(-2.6, -1.4),
                rng.range(1.0, 1.6),
                rng.range(-0.6, 0.6),
            );
            w.spawn(
                Particle::new(at)
                    .with_velocity(speed)
                    .with_acceleration(G)
                    .with_size(0.02),
            )
            .unwrap();
        }
        let s = run(&mut w, &mut r, 120);
        let centre = r.read_bodies().unwrap()[0].pos.xyz();
        let top = centre.y + half.y + 0.02;
        let mut riding = 0;
        for i in 0..s.len() {
            let p = s.pos[i].xyz();
            let over =
                (p.x - centre.x).abs() < half.x - 0.05 && (p.z - centre.z).abs() < half.z - 0.05;
            if over && (p.y - top).abs() < 2e-3 {
                riding += 1;
                // Resting in the box's frame: its velocity, to the friction's last step of
                // slip (μ g dt = 0.6 · 9.81 / 60 ≈ 0.1 m/s) at most.
                let dv = (s.vel[i].xyz() - speed).length();
                assert!(
                    dv < 0.1,
                    "spark {i} at {p} moves at {} on the box",
                    s.vel[i]
                );
            }
        }
        assert!(
            riding > s.len() / 2 && centre.x > 1.5,
            "{riding} of {} sparks ride the box (now at {centre})",
            s.len()
        );
        results.push(s);
    }
    assert_eq!(results[0].pos, results[1].pos, "cpu grid vs brute force");
    assert_eq!(results[0].vel, results[1].vel, "cpu grid vs brute force");
}

/// The limits: the brute force refuses more than its slots and the grid takes them; the grid
/// refuses more than MAX_RIGID_CELL_SHAPES with the world unchanged.
#[test]
fn shape_limits_are_stated_and_refused_with_nothing_changed() {
    let mut r = RigidWorld::new(Backend::Cpu, RigidConfig::default()).unwrap();
    let shapes: Vec<_> = (0..=MAX_RIGID_CELL_SHAPES)
        .map(|_| rigid::Collider::sphere(0.01))
        .collect();
    r.add_body(
        RigidBody::fixed().position(Vec3::new(0.0, -5.0, 0.0)),
        &shapes,
    )
    .unwrap();
    let mut w = sparks(Backend::Cpu, RigidLookup::Cells, 20, 1);
    w.step(DT).unwrap();
    let before = w.read_snapshot().unwrap();
    let steps = w.steps();
    match w.step_with_rigid(DT, &r) {
        Err(Error::TooMany { count, max, .. }) => {
            assert_eq!(
                (count, max),
                (MAX_RIGID_CELL_SHAPES as usize + 1, MAX_RIGID_CELL_SHAPES)
            );
        }
        other => panic!("not refused: {other:?}"),
    }
    assert_eq!(w.steps(), steps);
    assert_eq!(w.read_snapshot().unwrap(), before);
}

/// The groups are saved: a world with groups on its emitters, on a removed emitter (whose
/// sparks live on) and its own, saved and loaded, goes on against a rigid world bit for bit as
/// the original (with the groups lost, every spark would collide with every shape).
#[cfg(feature = "serde")]
#[test]
fn groups_survive_a_save() {
    use wgphys::save::SaveFormat;
    let (mut ra, mut rb) = (scene(Backend::Cpu, 6, 200), scene(Backend::Cpu, 6, 200));
    let mut w = sparks(Backend::Cpu, RigidLookup::Cells, 400, 6);
    let step = |w: &mut ParticleWorld, n: usize, ra: &mut RigidWorld, rb: &mut RigidWorld| {
        for _ in 0..n {
            ra.step(DT).unwrap();
            rb.step(DT).unwrap();
            w.step_with_rigid(DT, ra).unwrap();
        }
    };
    step(&mut w, 20, &mut ra, &mut rb);
    let first = w.emitter_handle(0).expect("first emitter");
    w.remove_emitter(first).unwrap();
    step(&mut w, 10, &mut ra, &mut rb);
    let text = w.save(SaveFormat::Text).expect("text");
    let binary = w.save(SaveFormat::Binary).expect("binary");
    assert!(String::from_utf8_lossy(&text).contains("Retired("));
    let mut copies: Vec<ParticleWorld> = [&text, &binary]
        .into_iter()
        .map(|b| ParticleWorld::load(Backend::Cpu, b).expect("load"))
        .collect();
    assert_eq!(copies[0].config().collision_groups, (0b100, 0b101));
    for _ in 0..30 {
        ra.step(DT).unwrap();
        rb.step(DT).unwrap();
        w.step_with_rigid(DT, &ra).unwrap();
        for c in &mut copies {
            c.step_with_rigid(DT, &rb).unwrap();
        }
    }
    let original = w.read_snapshot().unwrap();
    for (c, format) in copies.iter_mut().zip(["text", "binary"]) {
        assert_eq!(c.read_snapshot().unwrap(), original, "loaded from {format}");
    }
}

/// The figure for BENCHMARKS.md: `WGPHYS_SPARKS` sparks (1,000,000 by default) falling onto
/// 1,000 kinematic boxes moving at 0.5 m/s over a 64 m × 40 m field, on the GPU: the median
/// milliseconds of a particle step by the wall clock around `step_with_rigid` + `wait` (the
/// rigid world stepped and waited for before each), through the grid and by brute force,
/// and without the rigid world. Run with
/// `cargo test --release --test particles_rigid_lookup figure -- --ignored --nocapture`.
#[test]
#[ignore = "a figure, not a check"]
fn figure_1m_sparks_against_1000_moving_boxes() {
    let n: u32 = std::env::var("WGPHYS_SPARKS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let ctx = shared_gpu();
    let mut r = RigidWorld::new(Backend::Gpu(ctx.clone()), RigidConfig::default()).unwrap();
    for i in 0..1000 {
        let at = Vec3::new(
            (i % 40) as f32 * 1.6 - 32.0,
            0.5,
            (i / 40) as f32 * 1.6 - 20.0,
        );
        r.add_body(
            RigidBody::kinematic()
                .position(at)
                .velocity(Vec3::new(0.5, 0.0, 0.0)),
            &[rigid::Collider::cuboid(Vec3::new(0.5, 0.25, 0.5)).material(0.4, 0.3)],
        )
        .unwrap();
    }
    let mut median = |lookup: Option<RigidLookup>, warm: usize, timed: usize| {
        let config = WorldConfig {
            capacity: n,
            auto_grow: false,
            rigid_lookup: lookup.unwrap_or_default(),
            ..WorldConfig::default()
        };
        let mut w = ParticleWorld::new(Backend::Gpu(ctx.clone()), config).unwrap();
        let mut rng = Rng::new(5);
        for _ in 0..n {
            let at = Vec3::new(
                rng.range(-33.0, 33.0),
                rng.range(0.8, 3.0),
                rng.range(-21.0, 21.0),
            );
            w.spawn(Particle::new(at).with_acceleration(G).with_size(0.02))
                .unwrap();
        }
        let mut times = Vec::new();
        for s in 0..warm + timed {
            r.step(DT).unwrap();
            r.gpu().expect("gpu").ctx.wait().unwrap();
            let t = std::time::Instant::now();
            if lookup.is_some() {
                w.step_with_rigid(DT, &r).unwrap();
            } else {
                w.step(DT).unwrap();
            }
            w.wait().unwrap();
            if s >= warm {
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
        times.sort_by(f64::total_cmp);
        (times[times.len() / 2], times)
    };
    let cells = median(Some(RigidLookup::Cells), 3, 9);
    let without = median(None, 3, 9);
    let all = median(Some(RigidLookup::All), 1, 3);
    eprintln!(
        "{n} sparks, 1000 moving boxes ({}): median ms a particle step: grid {:.1} {:?}, \
         brute force {:.1} {:?}, without the rigid world {:.1} {:?}",
        ctx.info.name, cells.0, cells.1, all.0, all.1, without.0, without.1
    );
}
