//! Convex-hull scenes: the convex pile of the benchmark (Box3D's `convex_pile`: hulls of 32
//! random points on a sphere of radius 2 in a grid of columns, falling into a pit) and the rock
//! pit of the `rocks` example (rocks of 8 to 32 points poured into a pit). Every rock is cooked
//! by quickhull from seeded points (`crate::rng::rng_unit`), so the examples, the tests and the
//! benchmark build the same rocks on every run.

use crate::error::Result;
use crate::rigid::{BodyHandle, Collider, RigidBody, RigidWorld};
use crate::rng::rng_unit;
use crate::Backend;
use glam::{Quat, Vec3};

use super::rigid::{config, FRICTION};

/// Density of the rocks, kg/m³.
pub const ROCK_DENSITY: f32 = 2500.0;

/// A point on the unit sphere from two uniform numbers (uniform on the sphere).
fn on_sphere(u: f32, v: f32) -> Vec3 {
    let z = 2.0 * u - 1.0;
    let r = (1.0 - z * z).max(0.0).sqrt();
    let phi = std::f32::consts::TAU * v;
    Vec3::new(r * phi.cos(), r * phi.sin(), z)
}

/// Rock `i` of `seed`: `points` points on the unit sphere scaled by `radii` (per axis), cooked
/// by quickhull and centred on its centre of mass, friction [`FRICTION`]. Seeded points on a
/// sphere are never coplanar in practice; should a draw fail, the next draw of the same rock
/// is taken.
///
/// # Errors
/// Quickhull's, if eight draws in a row fail.
pub fn rock(seed: u32, i: u32, points: u32, radii: Vec3) -> Result<Collider> {
    let mut last = None;
    for attempt in 0..8u32 {
        let pts: Vec<Vec3> = (0..points)
            .map(|k| {
                let at = attempt * 64 + k;
                on_sphere(rng_unit(seed, i, at, 0), rng_unit(seed, i, at, 1)) * radii
            })
            .collect();
        match Collider::convex_hull(&pts) {
            Ok(c) => return Ok(c.centred().material(FRICTION, 0.0)),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or(crate::Error::InvalidInput {
        what: "rock",
        value: format!("rock {i} of seed {seed}"),
        fix: "use another seed",
    }))
}

/// A static pit: a ground box whose top is y = 0 and four walls `height` tall around a square
/// floor of inner half width `half_width`.
fn add_pit(world: &mut RigidWorld, half_width: f32, height: f32) -> Result<()> {
    let t = 1.0;
    world.add_body(
        RigidBody::fixed().position(Vec3::new(0.0, -t, 0.0)),
        &[
            Collider::cuboid(Vec3::new(half_width + 2.0 * t, t, half_width + 2.0 * t))
                .material(FRICTION, 0.0),
        ],
    )?;
    for (dx, dz) in [(1.0f32, 0.0f32), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)] {
        let at = Vec3::new(dx * (half_width + t), 0.5 * height, dz * (half_width + t));
        let ext = Vec3::new(
            if dx == 0.0 { half_width + 2.0 * t } else { t },
            0.5 * height,
            if dz == 0.0 { half_width + 2.0 * t } else { t },
        );
        world.add_body(
            RigidBody::fixed().position(at),
            &[Collider::cuboid(ext).material(FRICTION, 0.0)],
        )?;
    }
    Ok(())
}

/// Adds rock collider `c` as a dynamic body of [`ROCK_DENSITY`] at `at`, turned by `q`.
fn add_rock(world: &mut RigidWorld, c: Collider, at: Vec3, q: Quat) -> Result<BodyHandle> {
    let mass = ROCK_DENSITY * c.shape.volume();
    world.add_body(
        RigidBody::dynamic().position(at).rotation(q).mass(mass),
        &[c],
    )
}

/// A seeded turn of body `i`.
fn turn(seed: u32, i: u32) -> Quat {
    let axis = on_sphere(rng_unit(seed, i, 1 << 20, 0), rng_unit(seed, i, 1 << 20, 1));
    Quat::from_axis_angle(axis, rng_unit(seed, i, 1 << 20, 2) * std::f32::consts::TAU)
}

/// The convex pile (Box3D's `convex_pile` benchmark): `nx × nz` columns of `layers` hulls,
/// each of 32 random points on a sphere of radius 2 (its own hull), 4.5 m apart, falling into a
/// pit as wide as the grid. Returns the world and the hulls, bottom layer first.
///
/// # Errors
/// World construction errors.
pub fn convex_pile(
    backend: Backend,
    nx: u32,
    nz: u32,
    layers: u32,
    seed: u32,
) -> Result<(RigidWorld, Vec<BodyHandle>)> {
    let n = nx * nz * layers;
    let mut cfg = config(n + 8);
    cfg.pair_capacity = 16 * (n + 8);
    let mut world = RigidWorld::new(backend, cfg)?;
    let spacing = 4.5;
    let half_width = 0.5 * spacing * nx.max(nz) as f32;
    add_pit(&mut world, half_width, 20.0)?;
    let mut rocks = Vec::with_capacity(n as usize);
    for i in 0..n {
        let layer = i / (nx * nz);
        let (ix, iz) = ((i % (nx * nz)) % nx, (i % (nx * nz)) / nx);
        let at = Vec3::new(
            -half_width + spacing * (ix as f32 + 0.5),
            2.5 + spacing * layer as f32,
            -half_width + spacing * (iz as f32 + 0.5),
        );
        let c = rock(seed, i, 32, Vec3::splat(2.0))?;
        rocks.push(add_rock(&mut world, c, at, turn(seed, i))?);
    }
    Ok((world, rocks))
}

/// The rock pit of the `rocks` example: `n` rocks of 8 to 32 points, radii 0.25 to 0.6 m along
/// each axis, poured in a column of layers of 10 × 10, 1.6 m apart, into a 16 m wide pit with
/// walls 2.5 m high (2,000 rocks heap up to about them). Returns the world and the rocks,
/// bottom layer first.
///
/// # Errors
/// World construction errors.
pub fn rock_pit(backend: Backend, n: u32, seed: u32) -> Result<(RigidWorld, Vec<BodyHandle>)> {
    let mut cfg = config(n + 8);
    cfg.pair_capacity = 16 * (n + 8);
    let mut world = RigidWorld::new(backend, cfg)?;
    let half_width = 8.0;
    add_pit(&mut world, half_width, 2.5)?;
    let per_row = 10u32;
    let spacing = 2.0 * half_width / per_row as f32;
    let mut rocks = Vec::with_capacity(n as usize);
    for i in 0..n {
        let layer = i / (per_row * per_row);
        let (ix, iz) = (
            (i % (per_row * per_row)) % per_row,
            (i % (per_row * per_row)) / per_row,
        );
        let at = Vec3::new(
            -half_width + spacing * (ix as f32 + 0.5),
            1.0 + spacing * layer as f32,
            -half_width + spacing * (iz as f32 + 0.5),
        );
        let points = 8 + (rng_unit(seed, i, 1 << 21, 0) * 25.0) as u32;
        let radii = Vec3::new(
            0.25 + 0.35 * rng_unit(seed, i, 1 << 21, 1),
            0.25 + 0.35 * rng_unit(seed, i, 1 << 21, 2),
            0.25 + 0.35 * rng_unit(seed, i, 1 << 21, 3),
        );
        let c = rock(seed, i, points.min(32), radii)?;
        rocks.push(add_rock(&mut world, c, at, turn(seed, i))?);
    }
    Ok((world, rocks))
}
