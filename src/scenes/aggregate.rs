//! Mass-aggregate scenes (book ch. 8 demos with the parameters of the book's source, the sand
//! pile, the cloth benchmark and Newton's cradle), shared by examples, tests and benchmarks.

use crate::aggregate::{
    AggregateConfig, AggregateWorld, Collisions, ForceGenerator, Link, ParticleId,
};
use crate::error::Result;
use crate::particles::{ColliderShape, ForceField, Particle, ParticleCollider};
use crate::rng::rng_unit;
use crate::Backend;
use glam::{Vec3, Vec4};

/// Gravity of the book's demos, m/s².
pub const GRAVITY: Vec3 = Vec3::new(0.0, -9.81, 0.0);

/// The rope bridge (book Fig 8.1): 12 particles in pairs along the deck, a rod across each pair,
/// cables between neighbours, and anchored cables to the supports above.
pub struct Bridge {
    /// The world.
    pub world: AggregateWorld,
    /// Deck particles, pair by pair.
    pub deck: Vec<ParticleId>,
}

/// Builds the bridge.
///
/// # Errors
/// Propagates world errors.
pub fn bridge(backend: Backend) -> Result<Bridge> {
    let mut world = AggregateWorld::new(
        backend,
        AggregateConfig {
            capacity: 64,
            fields: vec![ForceField::Gravity(GRAVITY)],
            ..Default::default()
        },
    )?;
    let mut deck = Vec::new();
    for i in 0..12 {
        let x = (i / 2) as f32 * 2.0 - 5.0;
        let z = (i % 2) as f32 * 2.0 - 1.0;
        let colour = Vec4::new(0.8, 0.6, 0.3, 1.0);
        deck.push(
            world.add_particle(
                Particle::new(Vec3::new(x, 4.0, z))
                    .with_damping(0.9)
                    .with_mass(1.0)
                    .with_size(0.2)
                    .with_colour(colour),
            )?,
        );
    }
    for i in 0..6 {
        world.add_link(Link::Rod {
            a: deck[2 * i],
            b: deck[2 * i + 1],
            length: 2.0,
        })?;
    }
    for i in 0..10 {
        world.add_link(Link::Cable {
            a: deck[i],
            b: deck[i + 2],
            max_length: 1.9,
            restitution: 0.3,
        })?;
    }
    for (i, &p) in deck.iter().enumerate() {
        let anchor = Vec3::new((i / 2) as f32 * 2.2 - 5.5, 6.0, (i % 2) as f32 * 1.6 - 0.8);
        let max_length = if i < 6 {
            (i / 2) as f32 * 0.5 + 3.0
        } else {
            5.5 - (i / 2) as f32 * 0.5
        };
        world.add_link(Link::AnchoredCable {
            particle: p,
            anchor,
            max_length,
            restitution: 0.5,
        })?;
    }
    Ok(Bridge { world, deck })
}

/// The bilinear share of a load at (`x`, `z`) that each deck particle carries (pairs of
/// particles per column, columns at `xs`, the pair's sides at z = −1 and +1): the book's
/// "character" weighting, used by [`load_deck`] and by renderers that draw the load.
pub fn deck_weights(columns: usize, x: f32, z: f32, xs: &[f32]) -> Vec<f32> {
    let span = xs[columns - 1] - xs[0];
    let t = ((x - xs[0]) / span * (columns - 1) as f32).clamp(0.0, (columns - 1) as f32 - 1e-3);
    let c = t.floor() as usize;
    let fx = t - c as f32;
    let fz = (z * 0.5 + 0.5).clamp(0.0, 1.0);
    (0..2 * columns)
        .map(|k| {
            let (col, side) = (k / 2, k % 2);
            let wx = if col == c {
                1.0 - fx
            } else if col == c + 1 {
                fx
            } else {
                0.0
            };
            wx * if side == 0 { 1.0 - fz } else { fz }
        })
        .collect()
}

/// Spreads an extra `mass` bilinearly over the four deck particles around (`x`, `z`) (the
/// book's "character" on the bridge): inverse masses become 1/(base + share · mass).
///
/// # Errors
/// Propagates world errors.
pub fn load_deck(
    world: &mut AggregateWorld,
    deck: &[ParticleId],
    base_mass: f32,
    mass: f32,
    x: f32,
    z: f32,
    xs: &[f32],
) -> Result<()> {
    for (&p, w) in deck.iter().zip(deck_weights(deck.len() / 2, x, z, xs)) {
        world.set_inverse_mass(p, 1.0 / (base_mass + mass * w))?;
    }
    Ok(())
}

/// The tilting platform (book Fig 8.2): six particles, fifteen rods, two pivot particles of
/// infinite mass.
pub struct Platform {
    /// The world.
    pub world: AggregateWorld,
    /// The six particles (0 and 1 are the pivots).
    pub particles: Vec<ParticleId>,
}

/// Builds the platform.
///
/// # Errors
/// Propagates world errors.
pub fn platform(backend: Backend) -> Result<Platform> {
    let mut world = AggregateWorld::new(
        backend,
        AggregateConfig {
            capacity: 16,
            fields: vec![ForceField::Gravity(GRAVITY)],
            colliders: vec![ParticleCollider::ground(0.5, 0.0)],
            ..Default::default()
        },
    )?;
    let at = [
        (0.0, 0.0, 1.0),
        (0.0, 0.0, -1.0),
        (-3.0, 2.0, 1.0),
        (-3.0, 2.0, -1.0),
        (4.0, 2.0, 1.0),
        (4.0, 2.0, -1.0),
    ];
    let mut ps = Vec::new();
    for (i, &(x, y, z)) in at.iter().enumerate() {
        let w = if i < 2 { 0.0 } else { 1.0 };
        ps.push(
            world.add_particle(
                Particle::new(Vec3::new(x, y, z))
                    .with_damping(0.9)
                    .with_inverse_mass(w)
                    .with_size(0.2)
                    .with_colour(Vec4::new(0.4, 0.7, 1.0, 1.0)),
            )?,
        );
    }
    let rods = [
        (0, 1),
        (2, 3),
        (4, 5),
        (2, 4),
        (3, 5),
        (0, 2),
        (1, 3),
        (0, 4),
        (1, 5),
        (0, 3),
        (2, 5),
        (1, 2),
        (3, 4),
        (0, 5),
        (1, 4),
    ];
    for (a, b) in rods {
        let length = (at[a].0 - at[b].0, at[a].1 - at[b].1, at[a].2 - at[b].2);
        let length = Vec3::new(length.0, length.1, length.2).length();
        world.add_link(Link::Rod {
            a: ps[a],
            b: ps[b],
            length,
        })?;
    }
    Ok(Platform {
        world,
        particles: ps,
    })
}

/// The blob (book §8.2.3): five particles held by damped springs at their natural distances,
/// under reduced gravity, on box platforms.
pub struct Blob {
    /// The world.
    pub world: AggregateWorld,
    /// The blob's particles (0 is the head the player pushes).
    pub particles: Vec<ParticleId>,
}

/// Builds the blob world.
///
/// # Errors
/// Propagates world errors.
pub fn blob(backend: Backend) -> Result<Blob> {
    let mut colliders = vec![ParticleCollider::ground(0.8, 0.0)];
    for i in 0..10 {
        let x = i as f32 * 4.0 - 18.0;
        let y = 1.0 + 1.5 * ((i as f32) * 0.9).sin().abs();
        colliders.push(ParticleCollider {
            shape: ColliderShape::Box {
                centre: Vec3::new(x, y, 0.0),
                half_extents: Vec3::new(1.6, 0.15, 2.0),
                rotation: glam::Quat::from_rotation_z(0.15 * ((i % 3) as f32 - 1.0)),
            },
            restitution: 0.0,
            friction: 0.8,
        });
    }
    let mut world = AggregateWorld::new(
        backend,
        AggregateConfig {
            capacity: 8,
            fields: vec![ForceField::Gravity(GRAVITY * 0.4)],
            colliders,
            collisions: Some(Collisions {
                cell_size: 1.0,
                table_size: 64,
                restitution: 0.0,
                friction: 0.5,
                iterations: 4,
                stack_scaling: 0.0,
            }),
            ..Default::default()
        },
    )?;
    let mut ps = Vec::new();
    for i in 0..5 {
        let a = i as f32 * std::f32::consts::TAU / 5.0;
        let p = Vec3::new(-18.0 + 0.5 * a.cos(), 4.0 + 0.5 * a.sin(), 0.0);
        ps.push(
            world.add_particle(
                Particle::new(p)
                    .with_damping(0.2)
                    .with_size(0.4)
                    .with_colour(Vec4::new(0.3, 1.0, 0.4, 1.0)),
            )?,
        );
    }
    for i in 0..5 {
        for j in i + 1..5 {
            world.add_generator(ForceGenerator::DampedSpring {
                a: ps[i],
                b: ps[j],
                rest_length: 1.0,
                stiffness: 0.05,
                damping: 0.05,
            })?;
            world.add_link(Link::Cable {
                a: ps[i],
                b: ps[j],
                max_length: 2.0,
                restitution: 0.0,
            })?;
        }
    }
    Ok(Blob {
        world,
        particles: ps,
    })
}

/// The sand box: a 2 m × 2 m container (floor and four walls) with friction; grains are poured
/// in by [`sand_pour`]. Sixteen collide iterations per step with stack scaling 3/r: enough
/// for a poured heap to come to rest within a few seconds (`tests/aggregate_closed_forms.rs`,
/// `a_pile_of_grains_comes_to_rest_inside_the_box`) with a mean overlap under 1% of a diameter
/// in a heap of 100k grains (0.90% against 1.02% at 2/r, 10 s after the pour; 0.57% against
/// 0.72% at 20k). A stronger scaling carries a heap's weight down in fewer iterations but
/// lets it settle more slowly (the 20k heap's kinetic energy 10 s after the pour: 1.1e-5 J/kg
/// at 2/r, 2.0e-5 at 3/r, 3.0e-5 at 4/r); BENCHMARKS.md, 2026-11-27, `f3b1e53`.
///
/// # Errors
/// Propagates world errors.
pub fn sand(backend: Backend, capacity: u32, radius: f32) -> Result<AggregateWorld> {
    let wall = |normal: Vec3, offset: f32| ParticleCollider {
        shape: ColliderShape::HalfSpace { normal, offset },
        restitution: 0.1,
        friction: 0.5,
    };
    let half = 1.0 + 60.0 * radius * (capacity as f32 / 100_000.0).cbrt();
    AggregateWorld::new(
        backend,
        AggregateConfig {
            capacity,
            fields: vec![ForceField::Gravity(GRAVITY)],
            colliders: vec![
                ParticleCollider::ground(0.6, 0.1),
                wall(Vec3::X, -half),
                wall(-Vec3::X, -half),
                wall(Vec3::Z, -half),
                wall(-Vec3::Z, -half),
            ],
            collisions: Some(Collisions {
                cell_size: 2.0 * radius,
                table_size: 0,
                restitution: 0.1,
                friction: 0.5,
                iterations: 16,
                stack_scaling: 3.0 / radius,
            }),
            ..Default::default()
        },
    )
}

/// Pours `count` grains as one sheet from a nozzle above the box centre, falling at 3 m/s
/// (positions jittered by the counter-based generator, so both backends get the same grains).
/// A sheet needs about two steps at 60 Hz to clear the nozzle: pour at most every third step.
///
/// # Errors
/// Propagates world errors (a full world stops pouring with [`crate::Error::Full`]).
pub fn sand_pour(world: &mut AggregateWorld, count: u32, radius: f32, step: u32) -> Result<()> {
    let first = world.len() as u32;
    let side = (count as f32).sqrt().ceil() as u32;
    let mut batch = Vec::with_capacity(count as usize);
    for k in 0..count {
        let id = first + k;
        let u = |c| rng_unit(0x5a4d, id, step, c);
        let (gx, gz) = ((k % side) as f32, (k / side) as f32);
        let p = Vec3::new(
            (gx - side as f32 * 0.5) * 2.2 * radius + 0.2 * radius * u(0),
            0.6 + 0.2 * radius * u(1),
            (gz - side as f32 * 0.5) * 2.2 * radius + 0.2 * radius * u(2),
        );
        let tint = 0.8 + 0.2 * u(3);
        batch.push(
            Particle::new(p)
                .with_velocity(Vec3::new(0.0, -3.0, 0.0))
                .with_size(radius)
                .with_colour(Vec4::new(0.9 * tint, 0.75 * tint, 0.45 * tint, 1.0)),
        );
    }
    world.add_particles(&batch).map(|_| ())
}

/// A square cloth of `side × side` particles joined by structural and shear damped springs
/// (about 4·side² springs), pinned at two corners.
///
/// # Errors
/// Propagates world errors.
pub fn cloth(backend: Backend, side: u32) -> Result<AggregateWorld> {
    let mut world = AggregateWorld::new(
        backend,
        AggregateConfig {
            capacity: side * side,
            fields: vec![ForceField::Gravity(GRAVITY)],
            ..Default::default()
        },
    )?;
    let spacing = 0.05;
    let mut ids = Vec::with_capacity((side * side) as usize);
    for z in 0..side {
        for x in 0..side {
            let pinned = z == 0 && (x == 0 || x == side - 1);
            ids.push(
                world.add_particle(
                    Particle::new(Vec3::new(x as f32 * spacing, 2.0, z as f32 * spacing))
                        .with_damping(0.9)
                        .with_inverse_mass(if pinned { 0.0 } else { 1.0 })
                        .with_size(0.02),
                )?,
            );
        }
    }
    let id = |x: u32, z: u32| ids[(z * side + x) as usize];
    for z in 0..side {
        for x in 0..side {
            let mut spring = |b: ParticleId, l: f32| {
                world
                    .add_generator(ForceGenerator::DampedSpring {
                        a: id(x, z),
                        b,
                        rest_length: l,
                        stiffness: 0.2,
                        damping: 0.2,
                    })
                    .map(|_| ())
            };
            if x + 1 < side {
                spring(id(x + 1, z), spacing)?;
            }
            if z + 1 < side {
                spring(id(x, z + 1), spacing)?;
            }
            if x + 1 < side && z + 1 < side {
                spring(id(x + 1, z + 1), spacing * std::f32::consts::SQRT_2)?;
            }
            if x > 0 && z + 1 < side {
                spring(id(x - 1, z + 1), spacing * std::f32::consts::SQRT_2)?;
            }
        }
    }
    Ok(world)
}

/// Newton's cradle: `count` touching balls of radius `r` in a row along x, no gravity, the
/// first moving at `speed` towards the rest; collisions with restitution 1.
///
/// # Errors
/// Propagates world errors.
pub fn cradle(backend: Backend, count: u32, r: f32, speed: f32) -> Result<AggregateWorld> {
    cradle_rounded(backend, count, r, speed, crate::CpuRounding::Separate)
}

/// [`cradle`] with the CPU twin rounding as `rounding` says (the tests run it both ways).
///
/// # Errors
/// As [`cradle`].
pub fn cradle_rounded(
    backend: Backend,
    count: u32,
    r: f32,
    speed: f32,
    rounding: crate::CpuRounding,
) -> Result<AggregateWorld> {
    cradle_spaced(backend, count, r, speed, 0.0, rounding)
}

/// [`cradle_rounded`] with `gap` metres between neighbouring balls (negative: they overlap),
/// so a test can start the row where another adapter's rounding may leave it, touching give or
/// take a few ulps.
///
/// # Errors
/// As [`cradle`].
pub fn cradle_spaced(
    backend: Backend,
    count: u32,
    r: f32,
    speed: f32,
    gap: f32,
    rounding: crate::CpuRounding,
) -> Result<AggregateWorld> {
    let mut world = AggregateWorld::new(
        backend,
        AggregateConfig {
            cpu_rounding: rounding,
            capacity: count,
            collisions: Some(Collisions {
                cell_size: 2.0 * r,
                table_size: 64,
                restitution: 1.0,
                friction: 0.0,
                iterations: 8,
                stack_scaling: 0.0,
            }),
            ..Default::default()
        },
    )?;
    for i in 0..count {
        let v = if i == 0 {
            Vec3::new(speed, 0.0, 0.0)
        } else {
            Vec3::ZERO
        };
        world.add_particle(
            Particle::new(Vec3::new(i as f32 * (2.0 * r + gap), 0.0, 0.0))
                .with_velocity(v)
                .with_size(r),
        )?;
    }
    Ok(world)
}

/// A block of `n` grains of radius `r` on a lattice (spacing 2.1 r) inside the sand box,
/// settling under gravity: the benchmark workload for particle–particle collisions.
///
/// # Errors
/// Propagates world errors.
pub fn granular_block(backend: Backend, n: u32, r: f32) -> Result<AggregateWorld> {
    let mut world = sand(backend, n, r)?;
    let side = (n as f32).cbrt().ceil() as u32;
    let spacing = 2.1 * r;
    let mut batch = Vec::with_capacity(n as usize);
    for k in 0..n {
        let (x, y, z) = (k % side, (k / side) % side, k / (side * side));
        let u = |c| rng_unit(0xb10c, k, 0, c);
        let p = Vec3::new(
            (x as f32 - side as f32 * 0.5) * spacing + 0.1 * r * u(0),
            r + y as f32 * spacing,
            (z as f32 - side as f32 * 0.5) * spacing + 0.1 * r * u(1),
        );
        batch.push(Particle::new(p).with_size(r));
    }
    world.add_particles(&batch)?;
    Ok(world)
}
