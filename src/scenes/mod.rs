//! Scenes shared by the examples, tests and benchmarks, so all three run the same workload.

use crate::error::Result;
use crate::particles::{
    ColliderShape, ForceField, KillBounds, Particle, ParticleCollider, ParticleWorld, WorldConfig,
};
use crate::rng::rng_unit;
use glam::{Quat, Vec3, Vec4};

/// The fixed simulation step of the examples and scenes, seconds.
pub const DT: f32 = 1.0 / 60.0;

/// The automatic fireworks show: which types to launch at a given step. Deterministic, so the
/// example, the end-to-end test and the benchmark see the same show.
pub fn show_launches(step: u64) -> Vec<u32> {
    let mut out = Vec::new();
    if step.is_multiple_of(20) {
        out.push(1 + ((step / 20) % 9) as u32);
    }
    if step % 45 == 10 {
        out.push(1);
    }
    if step % 90 == 30 {
        out.push(7);
    }
    out
}

/// A world for the fireworks show: the book's nine rules, no colliders.
#[must_use]
pub fn fireworks_config(capacity: u32, seed: u32) -> WorldConfig {
    WorldConfig {
        capacity,
        seed,
        ..WorldConfig::default()
    }
}

/// Launches what [`show_launches`] says for the world's next step.
///
/// # Errors
/// As [`ParticleWorld::launch`].
pub fn fireworks_tick(world: &mut ParticleWorld) -> Result<()> {
    for ty in show_launches(world.steps()) {
        world.launch(ty)?;
    }
    Ok(())
}

/// A fountain: gravity, light drag, a ground plane with restitution 0.5 and a sphere in the
/// spray; particles live 4 s.
#[must_use]
pub fn fountain_config(capacity: u32, seed: u32) -> WorldConfig {
    WorldConfig {
        capacity,
        seed,
        fields: vec![
            ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0)),
            ForceField::Drag {
                k1: 0.02,
                k2: 0.001,
            },
        ],
        colliders: vec![
            ParticleCollider::ground(0.3, 0.5),
            ParticleCollider {
                shape: ColliderShape::Sphere {
                    centre: Vec3::new(1.5, 1.0, 0.0),
                    radius: 0.8,
                },
                restitution: 0.6,
                friction: 0.1,
            },
        ],
        ..WorldConfig::default()
    }
}

/// Spawns `per_step` fountain drops for the world's next step (random numbers keyed by
/// (seed, drop index, step), so the CPU and GPU worlds get identical drops).
///
/// # Errors
/// As [`ParticleWorld::spawn`].
pub fn fountain_tick(world: &mut ParticleWorld, per_step: u32) -> Result<()> {
    let seed = world.config().seed ^ 0xf0f0_1234;
    let step = world.steps() as u32;
    for i in 0..per_step {
        let u = |k| rng_unit(seed, i, step, k);
        let angle = u(0) * std::f32::consts::TAU;
        let spread = 1.2 * u(1);
        let v = Vec3::new(spread * angle.cos(), 9.0 + 2.0 * u(2), spread * angle.sin());
        let colour = Vec4::new(0.3 + 0.2 * u(3), 0.5 + 0.3 * u(3), 1.0, 1.0);
        world.spawn(
            Particle::new(Vec3::new(0.0, 0.2, 0.0))
                .with_velocity(v)
                .with_lifetime(4.0)
                .with_colour(colour)
                .with_size(0.04),
        )?;
    }
    Ok(())
}

/// The book's four shot types (catalogue §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shot {
    /// 2 kg, 35 m/s, g = 1.
    Pistol,
    /// 200 kg, (0, 30, 40) m/s, g = 20.
    Artillery,
    /// 1 kg, 10 m/s, floats up at 0.6 m/s², damping 0.9.
    Fireball,
    /// 0.1 kg, 100 m/s, no gravity.
    Laser,
}

impl Shot {
    /// All four, in the book's order.
    pub const ALL: [Shot; 4] = [Shot::Pistol, Shot::Artillery, Shot::Fireball, Shot::Laser];

    /// The shot as a particle fired from (0, 1.5, 0), living at most 5 s.
    #[must_use]
    pub fn particle(self) -> Particle {
        let (mass, v, a, d, colour) = match self {
            Shot::Pistol => (
                2.0,
                Vec3::new(0.0, 0.0, 35.0),
                Vec3::new(0.0, -1.0, 0.0),
                0.99,
                Vec4::new(0.9, 0.9, 0.9, 1.0),
            ),
            Shot::Artillery => (
                200.0,
                Vec3::new(0.0, 30.0, 40.0),
                Vec3::new(0.0, -20.0, 0.0),
                0.99,
                Vec4::new(0.6, 0.6, 0.2, 1.0),
            ),
            Shot::Fireball => (
                1.0,
                Vec3::new(0.0, 0.0, 10.0),
                Vec3::new(0.0, 0.6, 0.0),
                0.9,
                Vec4::new(1.0, 0.4, 0.1, 1.0),
            ),
            Shot::Laser => (
                0.1,
                Vec3::new(0.0, 0.0, 100.0),
                Vec3::ZERO,
                0.99,
                Vec4::new(0.2, 1.0, 0.3, 1.0),
            ),
        };
        Particle::new(Vec3::new(0.0, 1.5, 0.0))
            .with_mass(mass)
            .with_velocity(v)
            .with_acceleration(a)
            .with_damping(d)
            .with_lifetime(5.0)
            .with_colour(colour)
            .with_size(0.25)
    }
}

/// The ballistics range: shots die below the ground or beyond z = 200 m (the book's rule).
#[must_use]
pub fn ballistics_config(seed: u32) -> WorldConfig {
    WorldConfig {
        capacity: 1024,
        seed,
        kill_bounds: Some(KillBounds {
            min: Vec3::new(-1000.0, 0.0, -1000.0),
            max: Vec3::new(1000.0, 1000.0, 200.0),
        }),
        ..WorldConfig::default()
    }
}

/// The benchmark cloud: gravity, drag, wind and an attractor over a ground plane, a sphere and a
/// tilted box; `n` immortal particles scattered in a 40 m box above the ground.
#[must_use]
pub fn cloud_config(n: u32, seed: u32) -> WorldConfig {
    WorldConfig {
        capacity: n.max(1),
        seed,
        fields: vec![
            ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0)),
            ForceField::Drag {
                k1: 0.01,
                k2: 0.002,
            },
            ForceField::Wind {
                velocity: Vec3::new(2.0, 0.0, 0.0),
                k1: 0.05,
                k2: 0.0,
            },
            ForceField::Attractor {
                centre: Vec3::new(0.0, 10.0, 0.0),
                strength: 20.0,
                softening: 1.0,
            },
        ],
        colliders: vec![
            ParticleCollider::ground(0.5, 0.4),
            ParticleCollider {
                shape: ColliderShape::Sphere {
                    centre: Vec3::new(-5.0, 2.0, 0.0),
                    radius: 3.0,
                },
                restitution: 0.5,
                friction: 0.2,
            },
            ParticleCollider {
                shape: ColliderShape::Box {
                    centre: Vec3::new(6.0, 1.0, 3.0),
                    half_extents: Vec3::new(3.0, 1.0, 2.0),
                    rotation: Quat::from_rotation_y(0.5),
                },
                restitution: 0.3,
                friction: 0.4,
            },
        ],
        ..WorldConfig::default()
    }
}

/// Spawns the cloud's `n` particles.
///
/// # Errors
/// As [`ParticleWorld::spawn`].
pub fn cloud_spawn(world: &mut ParticleWorld, n: u32) -> Result<()> {
    cloud_spawn_range(world, 0..n)
}

/// Spawns particles `range` of the cloud (particle `i` is the same whichever call spawns it),
/// so a benchmark can spawn a big cloud in parts, a step apart.
///
/// # Errors
/// As [`ParticleWorld::spawn`].
pub fn cloud_spawn_range(world: &mut ParticleWorld, range: std::ops::Range<u32>) -> Result<()> {
    let seed = world.config().seed;
    for i in range {
        let u = |k| rng_unit(seed, i, 0, k);
        let p = Vec3::new(40.0 * u(0) - 20.0, 0.5 + 30.0 * u(1), 40.0 * u(2) - 20.0);
        let v = Vec3::new(4.0 * u(3) - 2.0, 4.0 * u(4) - 2.0, 4.0 * u(5) - 2.0);
        world.spawn(
            Particle::new(p)
                .with_velocity(v)
                .with_damping(0.995)
                .with_size(0.05)
                .with_colour(Vec4::new(u(6), 0.5, 1.0 - u(6), 1.0)),
        )?;
    }
    Ok(())
}

/// A busy fireworks show for benchmarks: `per_step` launches every step, cycling the nine
/// types, so the pool reaches a steady state of bursting, ageing and dying particles.
///
/// # Errors
/// As [`ParticleWorld::launch`].
pub fn fireworks_busy_tick(world: &mut ParticleWorld, per_step: u32) -> Result<()> {
    let step = world.steps();
    for k in 0..per_step {
        let ty = 1 + ((step * u64::from(per_step) + u64::from(k)) % 9) as u32;
        world.launch(ty)?;
    }
    Ok(())
}

pub mod aggregate;
pub mod flight;
pub mod joints;
pub mod level;
pub mod pile;
pub mod rigid;
pub mod rocks;
pub mod sailing;
pub mod soak;

/// Three GPU emitters over a ground plane: a spark fountain (a cone throwing 600 sparks a
/// second upwards within 20°, bouncing), a puff of slow smoke (a ball emitting radially, 60 a
/// second, light and damped), and a ring of embers (a shell) bursting every half second for 3
/// s. Nothing is spawned from the host: every particle is drawn on the device.
///
/// # Errors
/// As [`ParticleWorld::new`] and [`ParticleWorld::add_emitter`].
pub fn emitter_scene(backend: crate::Backend, capacity: u32, seed: u32) -> Result<ParticleWorld> {
    use crate::particles::{Burst, EmitShape, EmitVelocity, Emitter};
    let mut world = ParticleWorld::new(
        backend,
        WorldConfig {
            capacity,
            seed,
            colliders: vec![ParticleCollider::ground(0.2, 0.4)],
            ..WorldConfig::default()
        },
    )?;
    world.add_emitter(Emitter {
        rate: 600.0,
        shape: EmitShape::Cone {
            half_angle: 0.2,
            height: 0.1,
        },
        velocity: EmitVelocity::Directional {
            direction: Vec3::Y,
            spread: 20f32.to_radians(),
            speed: (4.0, 7.0),
        },
        lifetime: (1.0, 2.5),
        size: (0.01, 0.02),
        colour: (Vec4::new(1.0, 0.8, 0.3, 1.0), Vec4::new(1.0, 0.4, 0.1, 1.0)),
        position: Vec3::new(0.0, 0.05, 0.0),
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..crate::particles::Emitter::default()
    })?;
    world.add_emitter(Emitter {
        rate: 60.0,
        shape: EmitShape::Sphere { radius: 0.3 },
        velocity: EmitVelocity::Radial { speed: (0.1, 0.4) },
        lifetime: (2.0, 4.0),
        size: (0.08, 0.15),
        colour: (Vec4::new(0.5, 0.5, 0.5, 0.4), Vec4::new(0.3, 0.3, 0.3, 0.2)),
        inverse_mass: (20.0, 40.0),
        damping: 0.3,
        acceleration: Vec3::new(0.2, 0.6, 0.0),
        position: Vec3::new(-1.5, 0.5, 0.0),
        ..crate::particles::Emitter::default()
    })?;
    world.add_emitter(Emitter {
        rate: 0.0,
        bursts: (0..6)
            .map(|k| Burst {
                time: 0.5 * k as f32,
                count: 120,
            })
            .collect(),
        shape: EmitShape::Shell { radius: 0.2 },
        velocity: EmitVelocity::Radial { speed: (2.0, 2.5) },
        lifetime: (0.8, 1.2),
        size: (0.015, 0.025),
        colour: (Vec4::new(0.3, 0.8, 1.0, 1.0), Vec4::new(0.8, 0.3, 1.0, 1.0)),
        position: Vec3::new(1.5, 2.0, 0.0),
        rotation: Quat::from_rotation_x(0.5),
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..crate::particles::Emitter::default()
    })?;
    Ok(world)
}
