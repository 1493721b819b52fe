//! Rigid-body scenes: the pyramid, towers and stacks, box rain into a container, the book's
//! bigballistic shots and the three-phase explosion. Examples, tests and the benchmark build
//! their worlds here so all three run the same workload.

use crate::error::Result;
use crate::rigid::{BodyHandle, Collider, RigidBody, RigidConfig, RigidWorld};
use crate::rng::rng_unit;
use crate::Backend;
use glam::{Quat, Vec3};

/// Friction of the scenes' boxes and ground (the book's demos use 0.9).
pub const FRICTION: f32 = 0.9;

/// A configuration for `bodies` bodies with the scenes' defaults.
#[must_use]
pub fn config(bodies: u32) -> RigidConfig {
    RigidConfig {
        body_capacity: bodies.max(16),
        ..RigidConfig::default()
    }
}

/// The static ground: a half-space below y = 0.
pub fn add_ground(world: &mut RigidWorld) -> Result<BodyHandle> {
    world.add_body(
        RigidBody::fixed(),
        &[Collider::half_space(Vec3::Y, 0.0).material(FRICTION, 0.0)],
    )
}

/// Adds a dynamic box of half size `half` and density 1000 kg/m³ (unless `mass` is given).
pub fn add_box(world: &mut RigidWorld, at: Vec3, half: Vec3, rotation: Quat) -> Result<BodyHandle> {
    let mass = 1000.0 * 8.0 * half.x * half.y * half.z;
    world.add_body(
        RigidBody::dynamic()
            .position(at)
            .rotation(rotation)
            .mass(mass),
        &[Collider::cuboid(half).material(FRICTION, 0.0)],
    )
}

/// Adds a dynamic sphere of density 1000 kg/m³.
pub fn add_sphere(world: &mut RigidWorld, at: Vec3, radius: f32) -> Result<BodyHandle> {
    let mass = 1000.0 * 4.0 / 3.0 * std::f32::consts::PI * radius.powi(3);
    world.add_body(
        RigidBody::dynamic().position(at).mass(mass),
        &[Collider::sphere(radius).material(FRICTION, 0.0)],
    )
}

/// A pyramid of cubes of half size `half` in the xy plane: `rows` boxes on the ground, one
/// fewer in each row above, each row resting on the one below, centred on x = 0. Returns the
/// world and the boxes (bottom row first).
///
/// # Errors
/// World construction errors.
pub fn pyramid(backend: Backend, rows: u32, half: f32) -> Result<(RigidWorld, Vec<BodyHandle>)> {
    let n = rows * (rows + 1) / 2;
    let mut world = RigidWorld::new(backend, config(n + 1))?;
    let boxes = pyramid_in(&mut world, rows, half)?;
    Ok((world, boxes))
}

/// [`pyramid`] built in a world of your own (its configuration yours): the ground, then the
/// boxes, bottom row first.
///
/// # Errors
/// As [`RigidWorld::add_body`].
pub fn pyramid_in(world: &mut RigidWorld, rows: u32, half: f32) -> Result<Vec<BodyHandle>> {
    let n = rows * (rows + 1) / 2;
    add_ground(world)?;
    let mut boxes = Vec::with_capacity(n as usize);
    let size = 2.0 * half;
    for row in 0..rows {
        let count = rows - row;
        let x0 = -0.5 * (count - 1) as f32 * size;
        for k in 0..count {
            let at = Vec3::new(x0 + k as f32 * size, half + row as f32 * size, 0.0);
            boxes.push(add_box(world, at, Vec3::splat(half), Quat::IDENTITY)?);
        }
    }
    Ok(boxes)
}

/// A tower of `n` cubes of half size `half`, each resting on the one below.
///
/// # Errors
/// World construction errors.
pub fn tower(backend: Backend, n: u32, half: f32) -> Result<(RigidWorld, Vec<BodyHandle>)> {
    let mut world = RigidWorld::new(backend, config(n + 1))?;
    add_ground(&mut world)?;
    let boxes = (0..n)
        .map(|k| {
            let at = Vec3::new(0.0, half + 2.0 * half * k as f32, 0.0);
            add_box(&mut world, at, Vec3::splat(half), Quat::IDENTITY)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((world, boxes))
}

/// Towers of boxes and spheres: four box towers of 4, 8, 12 and 16 cubes (half size 0.5), each
/// capped with a sphere, and a square stack of spheres (3×3, 2×2, 1) nested in the hollows of
/// the layer below, fenced by four static boxes.
///
/// # Errors
/// World construction errors.
pub fn stacks(backend: Backend) -> Result<(RigidWorld, Vec<BodyHandle>)> {
    let mut world = RigidWorld::new(backend, config(128))?;
    add_ground(&mut world)?;
    let mut bodies = Vec::new();
    let half = 0.5;
    for (t, height) in [4u32, 8, 12, 16].into_iter().enumerate() {
        let x = -6.0 + 3.0 * t as f32;
        for k in 0..height {
            let at = Vec3::new(x, half + 2.0 * half * k as f32, 0.0);
            bodies.push(add_box(&mut world, at, Vec3::splat(half), Quat::IDENTITY)?);
        }
        let top = Vec3::new(x, 2.0 * half * height as f32 + 0.4, 0.0);
        bodies.push(add_sphere(&mut world, top, 0.4)?);
    }
    // A fenced pyramid of spheres: layer l is (3 - l)² spheres in the hollows of the one below.
    let r = 0.5;
    let centre = Vec3::new(6.0, 0.0, 0.0);
    for (sx, sz, hx, hz) in [
        (1.0, 0.0, 0.1, 1.6),
        (-1.0, 0.0, 0.1, 1.6),
        (0.0, 1.0, 1.6, 0.1),
        (0.0, -1.0, 1.6, 0.1),
    ] {
        let at = centre + Vec3::new(sx * 1.6, 0.5, sz * 1.6);
        world.add_body(
            RigidBody::fixed().position(at),
            &[Collider::cuboid(Vec3::new(hx, 0.5, hz)).material(FRICTION, 0.0)],
        )?;
    }
    for layer in 0..3u32 {
        let count = 3 - layer;
        let y = r + layer as f32 * r * std::f32::consts::SQRT_2;
        let start = -((count - 1) as f32) * r;
        for i in 0..count {
            for k in 0..count {
                let at =
                    centre + Vec3::new(start + 2.0 * r * i as f32, y, start + 2.0 * r * k as f32);
                bodies.push(add_sphere(&mut world, at, r)?);
            }
        }
    }
    Ok((world, bodies))
}

/// Box rain: a square container (ground and four static walls) of inner half width `half_width`
/// and `n` unit-density cubes of half size `half` in a grid above it, randomly turned (seeded),
/// falling in. Returns the world and the boxes.
///
/// # Errors
/// World construction errors.
pub fn box_rain(
    backend: Backend,
    n: u32,
    half: f32,
    half_width: f32,
    seed: u32,
) -> Result<(RigidWorld, Vec<BodyHandle>)> {
    let mut cfg = config(n + 8);
    cfg.pair_capacity = 16 * (n + 8);
    let mut world = RigidWorld::new(backend, cfg)?;
    add_ground(&mut world)?;
    let wall_h = 2.0 * half_width;
    let t = half.max(0.1);
    for (dx, dz) in [(1.0f32, 0.0f32), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)] {
        let at = Vec3::new(dx * (half_width + t), wall_h, dz * (half_width + t));
        let ext = Vec3::new(
            if dx == 0.0 { half_width + 2.0 * t } else { t },
            wall_h,
            if dz == 0.0 { half_width + 2.0 * t } else { t },
        );
        world.add_body(
            RigidBody::fixed().position(at),
            &[Collider::cuboid(ext).material(FRICTION, 0.0)],
        )?;
    }
    let spacing = 3.0 * half;
    let per_row = ((2.0 * half_width) / spacing).floor().max(1.0) as u32;
    let mut boxes = Vec::with_capacity(n as usize);
    for i in 0..n {
        let layer = i / (per_row * per_row);
        let in_layer = i % (per_row * per_row);
        let (ix, iz) = (in_layer % per_row, in_layer / per_row);
        let at = Vec3::new(
            -half_width + spacing * (ix as f32 + 0.5),
            2.0 * half + spacing * layer as f32 + 1.0,
            -half_width + spacing * (iz as f32 + 0.5),
        );
        let axis = Vec3::new(
            rng_unit(seed, i, 0, 0) - 0.5,
            rng_unit(seed, i, 0, 1) - 0.5,
            rng_unit(seed, i, 0, 2) - 0.5,
        )
        .try_normalize()
        .unwrap_or(Vec3::Y);
        let angle = rng_unit(seed, i, 0, 3) * std::f32::consts::TAU;
        boxes.push(add_box(
            &mut world,
            at,
            Vec3::splat(half),
            Quat::from_axis_angle(axis, angle),
        )?);
    }
    Ok((world, boxes))
}

/// The bigballistic shots (catalogue §3.1, the book's source values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shot {
    /// 1.5 kg at 20 m/s, radius 0.2.
    Pistol,
    /// 200 kg at (0, 30, 40) m/s, radius 0.4.
    Artillery,
    /// 4 kg at (0, −0.5, 10) m/s, radius 0.6, linear damping 0.9.
    Fireball,
    /// 0.1 kg at 100 m/s, radius 0.2.
    Laser,
}

impl Shot {
    /// (mass, velocity, radius, linear damping).
    pub fn parameters(self) -> (f32, Vec3, f32, f32) {
        match self {
            Shot::Pistol => (1.5, Vec3::new(0.0, 0.0, 20.0), 0.2, 0.99),
            Shot::Artillery => (200.0, Vec3::new(0.0, 30.0, 40.0), 0.4, 0.99),
            Shot::Fireball => (4.0, Vec3::new(0.0, -0.5, 10.0), 0.6, 0.9),
            Shot::Laser => (0.1, Vec3::new(0.0, 0.0, 100.0), 0.2, 0.99),
        }
    }
}

/// The bigballistic targets: three 2 m cubes (half size 1) at (0, 1, z) for z = 15, 20, 25 on
/// the ground (the book drops them from y = 3), friction 0.9, restitution 0.1.
///
/// # Errors
/// World construction errors.
pub fn bigballistics(backend: Backend) -> Result<(RigidWorld, Vec<BodyHandle>)> {
    let mut world = RigidWorld::new(backend, config(64))?;
    add_ground(&mut world)?;
    let boxes = [15.0f32, 20.0, 25.0]
        .into_iter()
        .map(|z| {
            world.add_body(
                RigidBody::dynamic()
                    .position(Vec3::new(0.0, 1.0, z))
                    .mass(8.0),
                &[Collider::cuboid(Vec3::ONE).material(FRICTION, 0.1)],
            )
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((world, boxes))
}

/// Fires a shot from (0, 1.5, 0): a rigid sphere with the book's mass, velocity and radius,
/// angular damping 0.8, never sleeping, with continuous collision.
///
/// # Errors
/// World errors (a full world without auto-grow).
pub fn fire(world: &mut RigidWorld, shot: Shot) -> Result<BodyHandle> {
    let (mass, velocity, radius, damping) = shot.parameters();
    world.add_body(
        RigidBody::dynamic()
            .position(Vec3::new(0.0, 1.5, 0.0))
            .velocity(velocity)
            .mass(mass)
            .damping(damping, 0.8)
            .can_sleep(false)
            .ccd(true),
        &[Collider::sphere(radius).material(FRICTION, 0.1)],
    )
}

/// The explosion demo's field (catalogue §14.3; the book's contacts: friction 0.9, restitution
/// 0.6): a square grid of light crates (half size 0.35 m, 30 kg) and balls (radius 0.35 m,
/// 15 kg) alternating like a checkerboard, 1.5 m apart over 15 m, with the middle left clear
/// for a stack of eight crates (2×2, two high) around the origin, where
/// [`crate::rigid::Explosion::at`] is scaled to act. Returns the world and the bodies (the
/// stack first).
///
/// # Errors
/// World construction errors.
pub fn explosion_scene(backend: Backend) -> Result<(RigidWorld, Vec<BodyHandle>)> {
    const HALF: f32 = 0.35;
    const CRATE: f32 = 30.0;
    const BALL: f32 = 15.0;
    const SPACING: f32 = 1.5;
    const N: i32 = 5;
    let mut world = RigidWorld::new(backend, config(160))?;
    add_ground(&mut world)?;
    let crate_at = |world: &mut RigidWorld, at: Vec3| {
        world.add_body(
            RigidBody::dynamic().position(at).mass(CRATE),
            &[Collider::cuboid(Vec3::splat(HALF)).material(FRICTION, 0.6)],
        )
    };
    let mut bodies = Vec::new();
    for layer in 0..2 {
        for (x, z) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
            let at = Vec3::new(x * HALF, HALF + 2.0 * HALF * layer as f32, z * HALF);
            bodies.push(crate_at(&mut world, at)?);
        }
    }
    for i in -N..=N {
        for k in -N..=N {
            if i.abs() <= 1 && k.abs() <= 1 {
                continue;
            }
            let at = Vec3::new(i as f32 * SPACING, HALF, k as f32 * SPACING);
            let body = if (i + k).rem_euclid(2) == 0 {
                crate_at(&mut world, at)?
            } else {
                world.add_body(
                    RigidBody::dynamic().position(at).mass(BALL),
                    &[Collider::sphere(HALF).material(FRICTION, 0.6)],
                )?
            };
            bodies.push(body);
        }
    }
    Ok((world, bodies))
}

/// The fracture demo (catalogue §14.2; the book's contacts: friction 0.9, restitution 0.2): a
/// concrete block of half size 1.5 m and 500 kg on the ground, breaking at 150 N·s with a burst
/// of 3 m/s (the book's 10 m/s is for its 8 m block), so a ball from [`fire_at_block`] (200
/// N·s) splits it, and each piece again while it is big enough
/// ([`crate::rigid::fracture::MIN_PIECE_HALF`]). Returns the world and the block.
///
/// # Errors
/// World construction errors.
pub fn fracture_scene(backend: Backend) -> Result<(RigidWorld, BodyHandle)> {
    let mut world = RigidWorld::new(backend, config(64))?;
    add_ground(&mut world)?;
    let block = world.add_body(
        RigidBody::dynamic()
            .position(Vec3::new(0.0, 1.5, 0.0))
            .mass(500.0)
            .breakable(150.0, 3.0),
        &[Collider::cuboid(Vec3::splat(1.5)).material(FRICTION, 0.2)],
    )?;
    Ok((world, block))
}

/// Fires the book's fracture ball (radius 0.25 m, 5 kg, damping 0.9) from `from` at `target`
/// at 40 m/s (200 N·s), with continuous collision.
///
/// # Errors
/// World errors.
pub fn fire_at_block(world: &mut RigidWorld, from: Vec3, target: Vec3) -> Result<BodyHandle> {
    world.add_body(
        RigidBody::dynamic()
            .position(from)
            .velocity((target - from).normalize_or_zero() * 40.0)
            .mass(5.0)
            .damping(0.9, 0.9)
            .ccd(true),
        &[Collider::sphere(0.25).material(FRICTION, 0.2)],
    )
}
