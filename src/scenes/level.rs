//! Level-geometry scenes (issue 37): the `terrain` example's slope and bowl, and Jolt's
//! `ConvexVsMesh` benchmark scene. The level is static: a heightfield slope running down into
//! a triangle-mesh bowl, or one wavy triangle mesh; rocks (hulls, [`super::rocks::rock`]),
//! crates (boxes) and balls (spheres) are dropped on it from a grid. Everything is built from
//! closed-form heights and seeded random numbers (`crate::rng::rng_unit`), so the example, the
//! tests and the benchmark build the same level and bodies on every run.
//!
//! Both scenes return the world-space triangles of the level (position and normal per corner)
//! for a renderer, since a renderer of shapes does not draw meshes or heightfields.

use std::sync::Arc;

use crate::error::Result;
use crate::rigid::mesh::{HeightField, TriMesh};
use crate::rigid::{BodyHandle, Collider, RigidBody, RigidWorld};
use crate::rng::rng_unit;
use crate::Backend;
use glam::{Quat, Vec3};

use super::rigid::config;
use super::rocks::{rock, ROCK_DENSITY};

/// Density of the crates and balls, kg/m³.
pub const CRATE_DENSITY: f32 = 600.0;

/// Samples of the terrain's heightfield along each side.
pub const SLOPE_SAMPLES: u32 = 64;
/// Half the slope's size along x and z, m: the slope spans x, z ∈ [−20, 20].
pub const SLOPE_HALF: f32 = 20.0;
/// Fall of the slope along +x, m per m (22°: 16 m from its top edge to its foot), steeper
/// than [`LEVEL_FRICTION`]'s friction angle (17°), so crates slide as well as rocks and balls
/// roll.
pub const SLOPE_GRADE: f32 = 0.4;
/// Friction of the level and of the scenes' bodies.
pub const LEVEL_FRICTION: f32 = 0.3;
/// The bowl's centre along x, m (its axis is the vertical through (BOWL_X, 0)).
pub const BOWL_X: f32 = 36.0;
/// The bowl's radius where its floor comes back up to y = 0, m.
pub const BOWL_RADIUS: f32 = 16.0;
/// The bowl's depth below y = 0 at its centre, m.
pub const BOWL_DEPTH: f32 = 4.0;
/// The far edge of the bowl's mesh along x, m (it spans x ∈ [SLOPE_HALF, BOWL_FAR]; its
/// floor is 8.25 m up there, above the 16 m fall less the friction's work, so what comes down
/// stays in).
pub const BOWL_FAR: f32 = 64.0;
/// Half the bowl mesh's size along z, m (it spans z ∈ [−BOWL_SIDE, BOWL_SIDE], 8.25 m up at
/// its sides).
pub const BOWL_SIDE: f32 = 28.0;
/// Quads of the bowl's mesh along x and z, 1 m each (two triangles a quad: 4,928 triangles).
pub const BOWL_QUADS: (u32, u32) = (44, 56);

/// One corner of a level triangle in world space, for drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LevelVertex {
    /// Position, m.
    pub position: Vec3,
    /// Unit normal of the surface there (the side bodies rest on).
    pub normal: Vec3,
}

/// A level scene: the world, the level's triangles and the dropped bodies.
pub struct LevelScene {
    /// The world: the static level first, then the bodies.
    pub world: RigidWorld,
    /// The level's world-space triangles, three corners each, counter-clockwise seen from
    /// the side bodies rest on.
    pub level: Vec<LevelVertex>,
    /// The dropped bodies, in the order they were added.
    pub bodies: Vec<BodyHandle>,
}

/// The terrain's height at (x, z): on the slope (x ≤ [`SLOPE_HALF`]) a plane falling at
/// [`SLOPE_GRADE`] along +x, a valley `c·z²` along its middle and bumps that fade out towards
/// its foot (their slope along x at most 0.07 + 0.01, so the fall along x is never below
/// 0.32, steeper than [`LEVEL_FRICTION`]: nothing can stop on the slope); on the bowl (x ≥ [`SLOPE_HALF`]) the paraboloid
/// `D·(ρ²/R² − 1)` about (BOWL_X, 0). The two meet along x = SLOPE_HALF without a step or a
/// kink in z (`c = D/R²` and the bowl's ρ² there is `R² + z²`).
#[must_use]
pub fn terrain_height(x: f32, z: f32) -> f32 {
    let c = BOWL_DEPTH / (BOWL_RADIUS * BOWL_RADIUS);
    if x <= SLOPE_HALF {
        let fade = ((SLOPE_HALF - x) / (2.0 * SLOPE_HALF)).clamp(0.0, 1.0);
        let bumps = 0.15 * (0.45 * x).sin() * (0.35 * z + 0.5).sin() + 0.3 * (0.9 * z).cos();
        SLOPE_GRADE * (SLOPE_HALF - x) + c * z * z + fade * bumps
    } else {
        let (dx, dz) = (x - BOWL_X, z);
        BOWL_DEPTH * ((dx * dx + dz * dz) / (BOWL_RADIUS * BOWL_RADIUS) - 1.0)
    }
}

/// The unit normal of `height` at (x, z), from central differences 1 cm apart.
fn normal_of(height: impl Fn(f32, f32) -> f32, x: f32, z: f32) -> Vec3 {
    let e = 0.01;
    let dx = (height(x + e, z) - height(x - e, z)) / (2.0 * e);
    let dz = (height(x, z + e) - height(x, z - e)) / (2.0 * e);
    Vec3::new(-dx, 1.0, -dz).normalize()
}

/// A grid mesh of `nx × nz` quads over `[x0, x1] × [z0, z1]` with heights `height(x, z)`, two
/// triangles a quad facing +y (rows along z, cut along the diagonal as a heightfield is).
fn grid_mesh(
    (nx, nz): (u32, u32),
    (x0, x1): (f32, f32),
    (z0, z1): (f32, f32),
    height: impl Fn(f32, f32) -> f32,
) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut v = Vec::with_capacity(((nx + 1) * (nz + 1)) as usize);
    for r in 0..=nz {
        for c in 0..=nx {
            let x = x0 + (x1 - x0) * c as f32 / nx as f32;
            let z = z0 + (z1 - z0) * r as f32 / nz as f32;
            v.push(Vec3::new(x, height(x, z), z));
        }
    }
    let id = |r: u32, c: u32| r * (nx + 1) + c;
    let mut t = Vec::with_capacity((2 * nx * nz) as usize);
    for r in 0..nz {
        for c in 0..nx {
            t.push([id(r, c), id(r + 1, c), id(r + 1, c + 1)]);
            t.push([id(r, c), id(r + 1, c + 1), id(r, c + 1)]);
        }
    }
    (v, t)
}

/// Draw corners of `tris` (world space) with normals of `height`'s surface at each corner.
fn draw_corners(
    tris: impl Iterator<Item = [Vec3; 3]>,
    height: impl Fn(f32, f32) -> f32 + Copy,
    out: &mut Vec<LevelVertex>,
) {
    for tri in tris {
        for p in tri {
            out.push(LevelVertex {
                position: p,
                normal: normal_of(height, p.x, p.z),
            });
        }
    }
}

/// What body `i` of a level scene is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Rock,
    Crate,
    Ball,
}

/// Body `i`'s collider and mass: every third a rock, a crate or a ball, sized by the seed.
fn body_shape(seed: u32, i: u32, kinds: &[Kind]) -> Result<(Collider, f32)> {
    let kind = kinds[(i as usize) % kinds.len()];
    let u = |k: u32| rng_unit(seed, i, 1 << 22, k);
    Ok(match kind {
        Kind::Rock => {
            let points = 8 + (u(0) * 17.0) as u32;
            let radii = Vec3::new(0.25 + 0.2 * u(1), 0.25 + 0.2 * u(2), 0.25 + 0.2 * u(3));
            let c = rock(seed, i, points.min(24), radii)?.material(LEVEL_FRICTION, 0.0);
            let m = ROCK_DENSITY * c.shape.volume();
            (c, m)
        }
        Kind::Crate => {
            let half = Vec3::new(0.2 + 0.15 * u(1), 0.2 + 0.15 * u(2), 0.2 + 0.15 * u(3));
            let m = CRATE_DENSITY * 8.0 * half.x * half.y * half.z;
            (Collider::cuboid(half).material(LEVEL_FRICTION, 0.0), m)
        }
        Kind::Ball => {
            let r = 0.2 + 0.15 * u(1);
            let m = CRATE_DENSITY * 4.0 / 3.0 * std::f32::consts::PI * r * r * r;
            (Collider::sphere(r).material(LEVEL_FRICTION, 0.0), m)
        }
    })
}

/// A seeded turn of body `i`.
fn turn(seed: u32, i: u32) -> Quat {
    let u = |k| rng_unit(seed, i, 1 << 23, k);
    let axis = Vec3::new(u(0) - 0.5, u(1) - 0.5, u(2) - 0.5).normalize_or(Vec3::Y);
    Quat::from_axis_angle(axis, u(3) * std::f32::consts::TAU)
}

/// A world for `bodies` bodies and a few static ones, with room for their pairs.
/// Body `i` of a scene (its shape from `kinds`, its turn, both from `seed`), dynamic at `at`.
fn drop_body(
    world: &mut RigidWorld,
    seed: u32,
    i: u32,
    kinds: &[Kind],
    at: Vec3,
) -> Result<BodyHandle> {
    let (c, m) = body_shape(seed, i, kinds)?;
    world.add_body(
        RigidBody::dynamic()
            .position(at)
            .rotation(turn(seed, i))
            .mass(m),
        &[c],
    )
}

fn level_world(backend: Backend, bodies: u32) -> Result<RigidWorld> {
    let mut cfg = config(bodies + 4);
    cfg.pair_capacity = 16 * (bodies + 4);
    RigidWorld::new(backend, cfg)
}

/// The `terrain` scene: a 64 × 64 heightfield slope 40 m across ([`terrain_height`]) falling
/// 16 m along +x into a triangle-mesh bowl ([`BOWL_QUADS`] quads, 4,928 triangles, 4 m deep),
/// with `bodies` rocks, crates and balls (in turn) dropped from a grid of 12 columns along x
/// by up to 24 along z (fewer for fewer bodies, centred on z = 0), 1.5 m apart, over the top
/// of the slope, layer upon layer 1.5 m apart from 2 m above it (far enough apart that no two
/// bodies start overlapping), so they tumble down into the bowl. Deterministic from `seed`.
///
/// # Errors
/// World construction errors.
pub fn terrain(backend: Backend, bodies: u32, seed: u32) -> Result<LevelScene> {
    let mut world = level_world(backend, bodies)?;
    let n = SLOPE_SAMPLES;
    let size = 2.0 * SLOPE_HALF;
    let at = |k: u32| (k as f32 / (n - 1) as f32 - 0.5) * size;
    let mut heights = Vec::with_capacity((n * n) as usize);
    for r in 0..n {
        for c in 0..n {
            heights.push(terrain_height(at(c), at(r)));
        }
    }
    let field = Arc::new(HeightField::new(
        n,
        n,
        &heights,
        Vec3::new(size, 1.0, size),
    )?);
    let (v, t) = grid_mesh(
        BOWL_QUADS,
        (SLOPE_HALF, BOWL_FAR),
        (-BOWL_SIDE, BOWL_SIDE),
        terrain_height,
    );
    let bowl = Arc::new(TriMesh::new(&v, &t)?);
    world.add_body(
        RigidBody::fixed(),
        &[Collider::of_heightfield(field.clone()).material(LEVEL_FRICTION, 0.0)],
    )?;
    world.add_body(
        RigidBody::fixed(),
        &[Collider::of_trimesh(bowl.clone()).material(LEVEL_FRICTION, 0.0)],
    )?;
    let mut level = Vec::new();
    draw_corners(
        (0..field.triangle_slots()).filter_map(|t| field.triangle(t)),
        terrain_height,
        &mut level,
    );
    draw_corners(
        (0..bowl.triangles().len() as u32).filter_map(|t| bowl.triangle(t)),
        terrain_height,
        &mut level,
    );
    let (cols_x, spacing) = (12u32, 1.5f32);
    let cols_z = bodies.div_ceil(cols_x).clamp(1, 24);
    let kinds = [Kind::Rock, Kind::Crate, Kind::Ball];
    let mut handles = Vec::with_capacity(bodies as usize);
    for i in 0..bodies {
        let layer = i / (cols_x * cols_z);
        let (ix, iz) = (
            (i % (cols_x * cols_z)) % cols_x,
            (i % (cols_x * cols_z)) / cols_x,
        );
        let x = -SLOPE_HALF + 1.5 + spacing * ix as f32;
        let z = spacing * (iz as f32 - 0.5 * (cols_z - 1) as f32);
        let top = terrain_height(x, z).max(terrain_height(-SLOPE_HALF + 1.5, z));
        handles.push(drop_body(
            &mut world,
            seed,
            i,
            &kinds,
            Vec3::new(x, top + 2.0 + spacing * layer as f32, z),
        )?);
    }
    Ok(LevelScene {
        world,
        level,
        bodies: handles,
    })
}

/// Quads of the [`convex_vs_mesh`] mesh along each side: 100 × 100, 20,000 triangles.
pub const WAVY_QUADS: u32 = 100;
/// Edge of one quad of the [`convex_vs_mesh`] mesh, m (the mesh spans 100 m).
pub const WAVY_CELL: f32 = 1.0;

/// The height of the [`convex_vs_mesh`] mesh at (x, z): two crossed sine waves, ±0.8 m, whose
/// steepest grade (√(0.14² + 0.1²) = 0.17) is below [`LEVEL_FRICTION`], so bodies can rest.
#[must_use]
pub fn wavy_height(x: f32, z: f32) -> f32 {
    0.4 * (0.35 * x).sin() + 0.4 * (0.25 * z).cos()
}

/// Jolt's `ConvexVsMesh` benchmark scene: a wavy mesh of [`WAVY_QUADS`]² quads (20,000
/// triangles, 100 m across, ±0.8 m of relief, [`wavy_height`]) centred on the origin, with
/// `bodies` hulls and boxes (in turn) dropped from a square grid 2 m apart at y = 2.5 m (their
/// lowest points at least 1.2 m above the mesh; 1,764 = 42 × 42 in the benchmark). Deterministic from `seed`.
///
/// # Errors
/// World construction errors.
pub fn convex_vs_mesh(backend: Backend, bodies: u32, seed: u32) -> Result<LevelScene> {
    let mut world = level_world(backend, bodies)?;
    let half = 0.5 * WAVY_QUADS as f32 * WAVY_CELL;
    let (v, t) = grid_mesh(
        (WAVY_QUADS, WAVY_QUADS),
        (-half, half),
        (-half, half),
        wavy_height,
    );
    let mesh = Arc::new(TriMesh::new(&v, &t)?);
    world.add_body(
        RigidBody::fixed(),
        &[Collider::of_trimesh(mesh.clone()).material(LEVEL_FRICTION, 0.0)],
    )?;
    let mut level = Vec::new();
    draw_corners(
        (0..mesh.triangles().len() as u32).filter_map(|t| mesh.triangle(t)),
        wavy_height,
        &mut level,
    );
    let side = (bodies as f32).sqrt().ceil().max(1.0) as u32;
    let spacing = 2.0;
    let kinds = [Kind::Rock, Kind::Crate];
    let mut handles = Vec::with_capacity(bodies as usize);
    for i in 0..bodies {
        let (ix, iz) = (i % side, i / side);
        let x = spacing * (ix as f32 - 0.5 * (side - 1) as f32);
        let z = spacing * (iz as f32 - 0.5 * (side - 1) as f32);
        handles.push(drop_body(
            &mut world,
            seed,
            i,
            &kinds,
            Vec3::new(x, 2.5, z),
        )?);
    }
    Ok(LevelScene {
        world,
        level,
        bodies: handles,
    })
}
