//! The book's sailboat (catalogue §8, Fig 11.3): a catamaran floating on four buoyancy points
//! (fore and aft on each hull), driven by a sail and steered by a rudder that doubles as the
//! daggerboard, both angled surfaces, in a wind that changes slowly ([`Wind`]). And
//! [`fleet`]: many such boats on a wavy sea ([`Fleet::waves`]), the benchmark's load.

use crate::error::Result;
use crate::rigid::{BodyHandle, Collider, ForceGen, ForceGenHandle, RigidBody, RigidWorld};
use glam::{Mat3, Quat, Vec3};

/// The catamaran: its body and generators.
#[derive(Clone, Debug)]
pub struct Catamaran {
    /// The boat (200 kg).
    pub body: BodyHandle,
    /// The sail, an angled surface (turned about the mast, +y).
    pub sail: ForceGenHandle,
    /// The rudder and daggerboard, an angled surface in the water (turned about +y).
    pub rudder: ForceGenHandle,
    /// Four buoyancy points: fore and aft on each hull.
    pub floats: [ForceGenHandle; 4],
}

/// The sail's tensor in its own frame: it pushes along its normal (z) against the air's
/// velocity across it (the book's `[[0,0,0],[0,0,0],[0,0,−1]]`, made stronger so that the boat
/// sails in a breeze).
pub fn sail_tensor() -> Mat3 {
    Mat3::from_diagonal(Vec3::new(-0.5, 0.0, -40.0))
}

/// The rudder's tensor in its own frame: the water resists motion across the board (z) much
/// more than along it (x).
pub fn rudder_tensor() -> Mat3 {
    Mat3::from_diagonal(Vec3::new(-20.0, -50.0, -600.0))
}

/// The hulls' half size and their offset across the boat (±z).
pub const HULL_HALF: Vec3 = Vec3::new(2.0, 0.25, 0.25);
/// How far apart the hulls' centres are across the boat, m.
pub const HULL_SPACING: f32 = 2.0;

/// Adds a catamaran at `at` heading along +x, its sail and rudder straight, in still air.
///
/// # Errors
/// As [`RigidWorld::add_body`] and [`RigidWorld::add_force_generator`].
pub fn catamaran(w: &mut RigidWorld, at: Vec3, heading: f32) -> Result<Catamaran> {
    // The shipped demo: 200 kg, the inertia of a 4 × 2 × 2 m block of 100 kg, damping 0.8.
    let inertia = Mat3::from_diagonal(Vec3::new(8.0, 20.0, 20.0) * (100.0 / 12.0));
    let half_gap = 0.5 * HULL_SPACING;
    let body = RigidBody::dynamic()
        .position(at)
        .rotation(Quat::from_rotation_y(heading))
        .mass(200.0)
        .inertia(inertia)
        // The book's model: its mass and inertia are about the body's origin, whatever the
        // colliders that draw it weigh.
        .centre_of_mass(Vec3::ZERO)
        .damping(0.8, 0.8)
        .can_sleep(false);
    let colliders = [
        Collider::cuboid(HULL_HALF).at(Vec3::new(0.0, 0.0, half_gap), Quat::IDENTITY),
        Collider::cuboid(HULL_HALF).at(Vec3::new(0.0, 0.0, -half_gap), Quat::IDENTITY),
        Collider::cuboid(Vec3::new(0.8, 0.05, half_gap))
            .at(Vec3::new(0.0, 0.3, 0.0), Quat::IDENTITY),
        Collider::cuboid(Vec3::new(0.05, 1.5, 0.05)).at(Vec3::new(0.3, 1.8, 0.0), Quat::IDENTITY),
    ];
    let body = w.add_body(body, &colliders)?;
    let sail = w.add_force_generator(ForceGen::angled_aero(
        body,
        sail_tensor(),
        Quat::IDENTITY,
        Vec3::new(0.0, 1.5, 0.0),
    ))?;
    let rudder = w.add_force_generator(ForceGen::angled_aero(
        body,
        rudder_tensor(),
        Quat::IDENTITY,
        Vec3::new(-1.8, -0.4, 0.0),
    ))?;
    // Each point lifts up to ρ·V·g = 981 N: the four float the 1962 N boat half submerged.
    let float = |x: f32, z: f32| ForceGen::buoyancy(body, Vec3::new(x, 0.0, z), 0.5, 0.1, 0.0);
    let mut floats = Vec::with_capacity(4);
    for (x, z) in [
        (1.2, half_gap),
        (-1.2, half_gap),
        (1.2, -half_gap),
        (-1.2, -half_gap),
    ] {
        floats.push(w.add_force_generator(float(x, z))?);
    }
    let floats = [floats[0], floats[1], floats[2], floats[3]];
    Ok(Catamaran {
        body,
        sail,
        rudder,
        floats,
    })
}

/// Adds the sea: a static plane at y = 0 that collides with nothing (drawn, not felt; the
/// buoyancy generators are the water).
///
/// # Errors
/// As [`RigidWorld::add_body`].
pub fn add_water(w: &mut RigidWorld) -> Result<BodyHandle> {
    w.add_body(
        RigidBody::fixed(),
        &[Collider::plane(Vec3::Y, 0.0).groups(1, 0)],
    )
}

/// The book's wind: recency-weighted, changing slowly and randomly (a seeded, deterministic
/// walk, so every run sees the same weather).
#[derive(Clone, Copy, Debug)]
pub struct Wind {
    /// The wind now, m/s.
    pub now: Vec3,
    target: Vec3,
    state: u64,
}

impl Wind {
    /// A wind blowing `now`, changing with seed `seed`.
    #[must_use]
    pub fn new(now: Vec3, seed: u64) -> Self {
        Self {
            now,
            target: now,
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        }
    }

    fn unit(&mut self) -> f32 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        (self.state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }

    /// One step of `dt`: the target wanders by a random horizontal nudge, and the wind follows
    /// it with a time constant of 5 s.
    pub fn step(&mut self, dt: f32) -> Vec3 {
        let nudge = Vec3::new(self.unit(), 0.0, self.unit());
        self.target = (self.target + nudge * (2.0 * dt)).clamp_length(2.0, 8.0);
        self.now += (self.target - self.now) * (dt / 5.0);
        self.now
    }
}

/// Many boats on a wavy sea: each a [`Catamaran`] (two aerodynamic surfaces, four buoyancy
/// points).
pub struct Fleet {
    /// The boats, in rows along x.
    pub boats: Vec<Catamaran>,
    /// Each boat's float positions in the world when placed (for the waves' phase).
    spots: Vec<Vec3>,
}

/// Adds `count` catamarans in a square grid 8 m apart, headings varied, on water at y = 0
/// (no water plane: the benchmark draws nothing).
///
/// # Errors
/// As [`catamaran`].
pub fn fleet(w: &mut RigidWorld, count: u32) -> Result<Fleet> {
    let side = (count as f32).sqrt().ceil() as u32;
    let mut boats = Vec::with_capacity(count as usize);
    let mut spots = Vec::with_capacity(count as usize);
    for i in 0..count {
        let at = Vec3::new(8.0 * (i % side) as f32, 0.0, 8.0 * (i / side) as f32);
        let boat = catamaran(w, at, 0.37 * i as f32)?;
        w.set_generator_wind(boat.sail, Vec3::new(5.0, 0.0, 2.0))?;
        boats.push(boat);
        spots.push(at);
    }
    Ok(Fleet { boats, spots })
}

impl Fleet {
    /// The sea's height at `p` at time `t`: two crossing swells of 0.3 m and 0.15 m.
    pub fn wave(p: Vec3, t: f32) -> f32 {
        0.3 * (0.25 * p.x + 1.1 * t).sin() + 0.15 * (0.4 * p.z - 0.7 * t).sin()
    }

    /// Moves the water under every float to the waves' height at time `t` (each buoyancy
    /// generator's water height, an upload of its record; none is rebuilt).
    ///
    /// # Errors
    /// As [`RigidWorld::set_generator_water_height`].
    pub fn waves(&self, w: &mut RigidWorld, t: f32) -> Result<()> {
        for (boat, at) in self.boats.iter().zip(&self.spots) {
            for (k, f) in boat.floats.iter().enumerate() {
                let x = if k % 2 == 0 { 1.2 } else { -1.2 };
                w.set_generator_water_height(*f, Self::wave(*at + Vec3::new(x, 0.0, 0.0), t))?;
            }
        }
        Ok(())
    }
}
