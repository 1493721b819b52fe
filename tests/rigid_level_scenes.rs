//! The level scenes (`scenes::level`, issue 37) at small sizes: bodies dropped on the terrain's
//! heightfield slope never sink through it or leave it and all tumble downhill; bodies dropped
//! on the `convex_vs_mesh` wavy mesh land on it and come to rest; the GPU steps the
//! `convex_vs_mesh` scene as the CPU twin does. Every tolerance says why it is that size.

mod common;

use common::gpu;
use common::rigid::*;
use glam::{Vec3, Vec4Swizzles};
use wgphys::rigid::RigidWorld;
use wgphys::scenes::level::{
    self, convex_vs_mesh, terrain, terrain_height, wavy_height, BOWL_FAR, BOWL_SIDE, SLOPE_HALF,
};
use wgphys::Backend;

/// Centres of the bodies after each of `steps` steps (one row a step).
fn trace(
    w: &mut RigidWorld,
    handles: &[wgphys::rigid::BodyHandle],
    steps: usize,
) -> Vec<Vec<Vec3>> {
    (0..steps)
        .map(|_| {
            w.step(DT).expect("step");
            positions(w, handles)
        })
        .collect()
}

/// How far below the closed-form surface a body's centre may be before it counts as having
/// sunk through. The level's triangles interpolate the closed form linearly, which lies off it
/// by at most curvature × cell² / 8: the slope's largest curvature (0.3·0.9² = 0.24 of the
/// valley's ripple, plus 2c = 0.03) over 0.63 m cells gives 1.3 cm, the bowl's (2D/R² = 0.03)
/// over 1 m cells 0.4 cm. A body at rest has its centre at least its inradius (over 10 cm for
/// every crate, ball and rock here) above the surface less the slop (2 mm); a centre 2 cm
/// below the closed form is therefore a body sunk by more than its inradius: through.
const SUNK: f32 = 0.02;

/// 36 rocks, crates and balls dropped on the terrain's slope, 2 s: every body's centre stays
/// above the level's surface (within [`SUNK`]) and over its footprint at every step, and every
/// body has moved downhill, since the slope is steeper than the friction angle everywhere.
#[test]
fn terrain_bodies_stay_on_the_level_and_tumble_downhill() {
    let mut s = terrain(Backend::Cpu, 36, 7).expect("scene");
    assert_eq!(s.bodies.len(), 36);
    // Two triangles a heightfield cell and a bowl quad, three corners each.
    let (bx, bz) = level::BOWL_QUADS;
    let cells = (level::SLOPE_SAMPLES - 1).pow(2);
    assert_eq!(s.level.len() as u32, 3 * 2 * (cells + bx * bz));
    let start = positions(&mut s.world, &s.bodies);
    let rows = trace(&mut s.world, &s.bodies, 120);
    for (step, row) in rows.iter().enumerate() {
        for (i, p) in row.iter().enumerate() {
            let floor = terrain_height(p.x, p.z);
            assert!(
                p.y > floor - SUNK,
                "step {step}: body {i} at {p} is below the level ({floor})"
            );
            let over = if p.x <= SLOPE_HALF {
                p.x >= -SLOPE_HALF && p.z.abs() <= SLOPE_HALF
            } else {
                p.x <= BOWL_FAR && p.z.abs() <= BOWL_SIDE
            };
            assert!(over, "step {step}: body {i} at {p} left the level");
        }
    }
    // Downhill: the slope falls at 0.32 or more along x everywhere (see `terrain_height`),
    // above the friction coefficient 0.3, so no body can stop on it. The slowest is a crate
    // sliding on the shallowest part: g(sin θ − μ cos θ) = 0.19 m/s² at 0.32, for the 1.4 s
    // left after the 0.6 s fall of the 2 m drop, ½·0.19·1.4² = 0.19 m; 5 cm is a quarter of it.
    let end = rows.last().expect("steps");
    for (i, (a, b)) in start.iter().zip(end).enumerate() {
        assert!(
            b.x - a.x > 0.05,
            "body {i} moved from {a} to {b}, not downhill"
        );
    }
}

/// 16 hulls and boxes dropped 4 m onto the wavy mesh, 2 s, on the CPU twin: every centre stays
/// above the mesh (within [`SUNK`]) at every step, and by the end every body has landed (it sits
/// within its size of the surface) and come to rest.
#[test]
fn convex_vs_mesh_bodies_land_and_come_to_rest() {
    land_and_rest(Backend::Cpu);
}

/// The same on the GPU. On Mesa's software adapters this is where a narrow phase whose
/// polytope–triangle tests ran past the adapters' loop limit showed: crates and rocks sank
/// through the mesh as they landed (see `rigid_mesh_gpu`'s full groups of polytope pairs).
#[test]
fn convex_vs_mesh_bodies_land_and_come_to_rest_on_the_gpu() {
    land_and_rest(Backend::Gpu(gpu()));
}

fn land_and_rest(backend: Backend) {
    let mut s = convex_vs_mesh(backend, 16, 3).expect("scene");
    assert_eq!(s.level.len(), 3 * 20_000);
    let rows = trace(&mut s.world, &s.bodies, 120);
    for (step, row) in rows.iter().enumerate() {
        for (i, p) in row.iter().enumerate() {
            let floor = wavy_height(p.x, p.z);
            assert!(
                p.y > floor - SUNK,
                "step {step}: body {i} at {p} is below the mesh ({floor})"
            );
        }
    }
    for (i, h) in s.bodies.iter().enumerate() {
        let b = s.world.body_raw(*h).expect("body");
        let p = b.pos.xyz();
        // Landed: the centre within the largest body's half diagonal (0.35·√3 = 0.61 m for a
        // crate, a rock's radii are below 0.45 m) of the surface under it.
        let above = p.y - wavy_height(p.x, p.z);
        assert!(
            (0.0..0.61).contains(&above),
            "body {i} at {p} is {above} m above the mesh"
        );
        // Crates (the odd bodies) at rest: the mesh's steepest grade (0.17) is below the
        // friction (0.3), so a crate cannot slide on, and a box cannot roll; one still
        // falling or bouncing from its 5 m/s landing would move at m/s. 0.2 m/s and 1 rad/s
        // allow a crate still settling onto a face 1.3 s after landing. A rock is a rounded
        // hull that may roll on along the waves (nothing resists rolling), so it need only
        // have landed.
        let (v, w) = (b.lin_vel.xyz().length(), b.ang_vel.xyz().length());
        println!("body {i}: {above} m above, |v| {v}, |ω| {w}");
        if i % 2 == 0 {
            continue;
        }
        assert!(v < 0.2 && w < 1.0, "body {i} still moves: |v| {v}, |ω| {w}");
    }
}

/// The bound on the GPU-against-CPU difference of a body's position in the `convex_vs_mesh`
/// scene after 36 steps, m. The first 31 steps are free fall, the same integration on both
/// backends (a few roundings a step: differences of 1e-7 m); from step 32 the crate over the
/// crest (body 5) is in contact with the mesh, where each step's solver (about 1e3 operations,
/// 6e-8 relative each, or a few units in the last place where the GPU contracts a
/// multiply-add) moves it by under 1e-4 of the 0.1 m it moves a step if none cancelled: 1e-5 m
/// a step, 5e-5 m over the five. 1e-4 m is twice that, and a hundredth of the centimetres a
/// contact with another triangle or normal would push a body in one step.
///
/// Past the first landings the backends part as more crates and rocks land and tumble: the
/// last-place differences above grow with every bounce and turn of a tumbling body, and a
/// contact found on one backend a step before the other moves a body by millimetres. What the
/// bodies do from there is checked on each backend by [`convex_vs_mesh_bodies_land_and_come_to_rest`]
/// and its GPU twin, and the contacts themselves, every field, by `rigid_mesh_gpu`.
const PARITY: f32 = 1e-4;

#[test]
fn convex_vs_mesh_gpu_matches_cpu() {
    let mut c = convex_vs_mesh(Backend::Cpu, 9, 5).expect("cpu scene");
    let mut g = convex_vs_mesh(Backend::Gpu(gpu()), 9, 5).expect("gpu scene");
    run(&mut c.world, 36, DT);
    run(&mut g.world, 36, DT);
    let (pc, pg) = (
        positions(&mut c.world, &c.bodies),
        positions(&mut g.world, &g.bodies),
    );
    // The first body met the mesh: after 0.6 s of free fall a body falls at 5.9 m/s, so one
    // falling slower than 5 m/s has been stopped by the mesh.
    let landed = c
        .bodies
        .iter()
        .filter(|h| {
            let b = c.world.body_raw(**h).expect("body");
            b.lin_vel.y > -5.0
        })
        .count();
    assert!(landed >= 1, "no body has reached the mesh");
    let (d, i) = max_move(&pc, &pg);
    println!("largest GPU-CPU difference {d} m (body {i})");
    assert!(d < PARITY, "body {i}: GPU {} vs CPU {}", pg[i], pc[i]);
}
