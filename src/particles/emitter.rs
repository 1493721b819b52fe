//! GPU emitters: sources that spawn particles on the device at a rate and in bursts, from a
//! shape, with random ranges for every attribute. The host counts how many each emitter emits
//! in a step (exactly: the fraction carries over, so 90/s at 60 Hz is 1, 2, 1, 2, ...); the
//! particles themselves are drawn on the device by the `spawn_emitted` stage from the
//! counter-based generator, keyed by their serial, so nothing per particle is uploaded. This
//! file holds the description, its checks, its GPU record and the CPU twin of the sampling
//! (`shaders/particles/emitter.wgsl` is the WGSL twin, operation for operation).

use super::types::{
    GpuCurves, GpuEmitter, GpuLife, GpuSpawnRecord, GPU_ID_BIT, KIND_CURVES_SHIFT, MAX_CURVE_KEYS,
};
use crate::error::{finite, finite3, non_negative, positive, Error, Result};
use crate::fields::ForceField;
use crate::rng::rng_unit;
use glam::{Quat, Vec3, Vec4};

/// Where an emitter's particles start, in the emitter's frame (y up).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum EmitShape {
    /// The emitter's origin.
    Point,
    /// Uniform in a ball of this radius.
    Sphere {
        /// Radius, metres.
        radius: f32,
    },
    /// Uniform on a sphere of this radius (a spherical shell).
    Shell {
        /// Radius, metres.
        radius: f32,
    },
    /// Uniform on a disc of this radius in the emitter's xz plane.
    Disc {
        /// Radius, metres.
        radius: f32,
    },
    /// Uniform in a solid cone with its apex at the origin, opening along +y.
    Cone {
        /// Half the opening angle, radians, in [0, π/2).
        half_angle: f32,
        /// Height along +y, metres.
        height: f32,
    },
    /// Uniform in a box centred on the origin.
    Box {
        /// Half extents, metres.
        half_extents: Vec3,
    },
    /// Uniform on the segment from `a` to `b`.
    Segment {
        /// One end.
        a: Vec3,
        /// The other end.
        b: Vec3,
    },
}

/// How an emitter's particles start moving (speeds in m/s, drawn uniformly in the range).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum EmitVelocity {
    /// Along `direction` (in the emitter's frame), spread uniformly over the cone of half
    /// angle `spread` around it.
    Directional {
        /// The mean direction (normalised for you).
        direction: Vec3,
        /// Half angle of the cone of directions, radians, in [0, π].
        spread: f32,
        /// Speed range.
        speed: (f32, f32),
    },
    /// Away from the emitter's origin through the particle's start point (a uniform direction
    /// for a particle that starts at the origin).
    Radial {
        /// Speed range.
        speed: (f32, f32),
    },
}

/// A burst: `count` particles at `time` seconds of the emitter's clock.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct Burst {
    /// Emitter time, seconds (the clock starts at 0 when the emitter is added and stops while
    /// it is paused). A burst goes off in the step whose time span `[start, end)` holds it.
    pub time: f32,
    /// Particles.
    pub count: u32,
}

/// A particle emitter: a rate, bursts, a shape, a velocity and the ranges each particle's
/// attributes are drawn from.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct Emitter {
    /// Particles per second, continuously.
    pub rate: f32,
    /// Bursts on the emitter's clock.
    pub bursts: Vec<Burst>,
    /// Where particles start.
    pub shape: EmitShape,
    /// How they start moving.
    pub velocity: EmitVelocity,
    /// Lifetime range, seconds (both > 0).
    pub lifetime: (f32, f32),
    /// Radius range, metres.
    pub size: (f32, f32),
    /// Colour range: each particle's colour is a uniform blend between the two.
    pub colour: (Vec4, Vec4),
    /// Inverse mass range, 1/kg (0 is immovable).
    pub inverse_mass: (f32, f32),
    /// Damping of every particle: the fraction of velocity kept per second, in [0, 1] (1 = none,
    /// the default; rapier's linear damping c corresponds to about e^(−c)).
    pub damping: f32,
    /// Constant acceleration of every particle, m/s², on top of the world's fields; zero by
    /// default (put gravity in the world as [`ForceField::Gravity`], or here for this emitter
    /// alone, not both).
    pub acceleration: Vec3,
    /// The emitter's position in the world.
    pub position: Vec3,
    /// The emitter's orientation in the world (normalised for you).
    pub rotation: Quat,
    /// The colour over each particle's life, as keys (life fraction in [0, 1], ascending;
    /// linear RGBA), linear between keys and held outside them; it replaces the colour range.
    /// `None`: the colour drawn from the range stays. At most [`MAX_CURVE_KEYS`] keys; a fade is
    /// a key with alpha 0 at 1.
    pub colour_over_life: Option<Vec<(f32, Vec4)>>,
    /// The radius over each particle's life, as keys (life fraction, metres), like
    /// `colour_over_life`; it replaces the size range.
    pub size_over_life: Option<Vec<(f32, f32)>>,
    /// Local force fields: they act only on this emitter's particles, on top of the world's
    /// fields, and are given in the emitter's frame (`position`, `rotation`), so a vortex
    /// around the emitter's axis moves and turns with it (see [`ForceField::in_frame`]). They
    /// share the world's table of [`super::types::MAX_FIELDS`] fields.
    pub fields: Vec<ForceField>,
    /// The collision group and mask of its particles against a rigid world's shapes
    /// ([`super::ParticleWorld::step_with_rigid`]): they collide with a shape when
    /// `(group & shape.mask) != 0 && (shape.group & mask) != 0`. All bits by default.
    pub collision_groups: (u32, u32),
}

impl Default for Emitter {
    /// 100 particles per second from a point, straight up at 2 to 3 m/s within 15°, living 1
    /// to 2 s, 2 cm, white, 1 kg, undamped, with no acceleration of their own: a world's gravity
    /// is its [`ForceField::Gravity`] field, as in bevy_hanabi, so it is never counted twice.
    fn default() -> Self {
        Self {
            rate: 100.0,
            bursts: Vec::new(),
            shape: EmitShape::Point,
            velocity: EmitVelocity::Directional {
                direction: Vec3::Y,
                spread: 15f32.to_radians(),
                speed: (2.0, 3.0),
            },
            lifetime: (1.0, 2.0),
            size: (0.02, 0.02),
            colour: (Vec4::ONE, Vec4::ONE),
            inverse_mass: (1.0, 1.0),
            damping: 1.0,
            acceleration: Vec3::ZERO,
            position: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            colour_over_life: None,
            size_over_life: None,
            fields: Vec::new(),
            collision_groups: super::config::all_groups(),
        }
    }
}

impl Emitter {
    /// The emitter with its particles in collision `group`, colliding with the rigid shapes
    /// whose group meets `mask` (see [`Emitter::collision_groups`]).
    #[must_use]
    pub fn collision_groups(mut self, group: u32, mask: u32) -> Self {
        self.collision_groups = (group, mask);
        self
    }
}

/// When a sub-emitter fires (see [`super::ParticleWorld::set_sub_emitter`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SubTrigger {
    /// When the particle dies (of age, the kill bounds; not when removed).
    Death,
    /// Each step the particle strikes a static collider (moving into it), living on.
    Impact,
}

/// A handle to an emitter of a [`super::ParticleWorld`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EmitterHandle {
    pub(crate) id: u32,
    pub(crate) world: u32,
}

impl EmitterHandle {
    /// The emitter's id in its world (ids are never reused within a world, and a loaded world
    /// keeps them: [`super::ParticleWorld::emitter_handle`]).
    pub fn id(self) -> u32 {
        self.id
    }
}

/// Emitter shape codes shared with the WGSL.
pub mod shape_code {
    #![allow(missing_docs)]
    pub const POINT: u32 = 0;
    pub const SPHERE: u32 = 1;
    pub const SHELL: u32 = 2;
    pub const DISC: u32 = 3;
    pub const CONE: u32 = 4;
    pub const BOX: u32 = 5;
    pub const SEGMENT: u32 = 6;
}

/// Velocity mode codes shared with the WGSL.
pub mod velocity_code {
    #![allow(missing_docs)]
    pub const DIRECTIONAL: u32 = 0;
    pub const RADIAL: u32 = 1;
}

fn range(what: &'static str, (lo, hi): (f32, f32), fix: &'static str) -> Result<()> {
    finite(what, lo)?;
    finite(what, hi)?;
    if lo > hi {
        return Err(Error::InvalidInput {
            what,
            value: format!("({lo}, {hi})"),
            fix,
        });
    }
    Ok(())
}

fn unit_rotation(what: &'static str, q: Quat) -> Result<Quat> {
    let len = q.length();
    if !(len.is_finite() && len > 1e-6) {
        return Err(Error::InvalidInput {
            what,
            value: format!("{q:?}"),
            fix: "pass a finite, non-zero quaternion",
        });
    }
    Ok(q / len)
}

impl Emitter {
    /// Checks every field; the first bad one is an [`Error::InvalidInput`] naming it.
    ///
    /// # Errors
    /// [`Error::InvalidInput`].
    pub fn validate(&self) -> Result<()> {
        self.to_gpu().map(|_| ())
    }

    /// The emitter's GPU record (checked).
    pub(crate) fn to_gpu(&self) -> Result<GpuEmitter> {
        non_negative("emitter.rate", self.rate)?;
        for b in &self.bursts {
            non_negative("emitter.burst.time", b.time)?;
        }
        let (shape, a, b) = match self.shape {
            EmitShape::Point => (shape_code::POINT, Vec4::ZERO, Vec4::ZERO),
            EmitShape::Sphere { radius } => {
                non_negative("emitter.shape.radius", radius)?;
                (
                    shape_code::SPHERE,
                    Vec4::new(radius, 0.0, 0.0, 0.0),
                    Vec4::ZERO,
                )
            }
            EmitShape::Shell { radius } => {
                non_negative("emitter.shape.radius", radius)?;
                (
                    shape_code::SHELL,
                    Vec4::new(radius, 0.0, 0.0, 0.0),
                    Vec4::ZERO,
                )
            }
            EmitShape::Disc { radius } => {
                non_negative("emitter.shape.radius", radius)?;
                (
                    shape_code::DISC,
                    Vec4::new(radius, 0.0, 0.0, 0.0),
                    Vec4::ZERO,
                )
            }
            EmitShape::Cone { half_angle, height } => {
                non_negative("emitter.shape.height", height)?;
                if !(0.0..std::f32::consts::FRAC_PI_2).contains(&half_angle) {
                    return Err(Error::InvalidInput {
                        what: "emitter.shape.half_angle",
                        value: format!("{half_angle}"),
                        fix: "pass an angle in radians in [0, π/2)",
                    });
                }
                let r = height * half_angle.tan();
                (shape_code::CONE, Vec4::new(r, height, 0.0, 0.0), Vec4::ZERO)
            }
            EmitShape::Box { half_extents } => {
                finite3("emitter.shape.half_extents", half_extents)?;
                if half_extents.min_element() < 0.0 {
                    return Err(Error::InvalidInput {
                        what: "emitter.shape.half_extents",
                        value: format!("{half_extents}"),
                        fix: "pass half extents >= 0",
                    });
                }
                (shape_code::BOX, half_extents.extend(0.0), Vec4::ZERO)
            }
            EmitShape::Segment { a, b } => {
                finite3("emitter.shape.a", a)?;
                finite3("emitter.shape.b", b)?;
                (shape_code::SEGMENT, a.extend(0.0), b.extend(0.0))
            }
        };
        let rotation = unit_rotation("emitter.rotation", self.rotation)?;
        let (velocity, dir_q, spread, speed) = match self.velocity {
            EmitVelocity::Directional {
                direction,
                spread,
                speed,
            } => {
                finite3("emitter.velocity.direction", direction)?;
                let d = direction.normalize_or_zero();
                if d == Vec3::ZERO {
                    return Err(Error::InvalidInput {
                        what: "emitter.velocity.direction",
                        value: format!("{direction}"),
                        fix: "pass a non-zero direction",
                    });
                }
                if !(0.0..=std::f32::consts::PI).contains(&spread) {
                    return Err(Error::InvalidInput {
                        what: "emitter.velocity.spread",
                        value: format!("{spread}"),
                        fix: "pass a half angle in radians in [0, π]",
                    });
                }
                // The cone of directions is drawn around +y, then turned onto `direction` and
                // into the world by one rotation.
                let q = (rotation * Quat::from_rotation_arc(Vec3::Y, d)).normalize();
                (velocity_code::DIRECTIONAL, q, spread, speed)
            }
            EmitVelocity::Radial { speed } => (velocity_code::RADIAL, rotation, 0.0, speed),
        };
        range(
            "emitter.velocity.speed",
            speed,
            "pass finite speeds, min <= max",
        )?;
        range(
            "emitter.lifetime",
            self.lifetime,
            "pass finite seconds, min <= max",
        )?;
        positive("emitter.lifetime", self.lifetime.0)?;
        range("emitter.size", self.size, "pass finite radii, min <= max")?;
        non_negative("emitter.size", self.size.0)?;
        range(
            "emitter.inverse_mass",
            self.inverse_mass,
            "pass finite inverse masses, min <= max",
        )?;
        non_negative("emitter.inverse_mass", self.inverse_mass.0)?;
        if !(self.colour.0.is_finite() && self.colour.1.is_finite()) {
            return Err(Error::InvalidInput {
                what: "emitter.colour",
                value: format!("{:?}", self.colour),
                fix: "pass finite colours",
            });
        }
        if !(0.0..=1.0).contains(&self.damping) {
            return Err(Error::InvalidInput {
                what: "emitter.damping",
                value: format!("{}", self.damping),
                fix: "pass a value in [0, 1]",
            });
        }
        finite3("emitter.acceleration", self.acceleration)?;
        finite3("emitter.position", self.position)?;
        self.curves()?;
        Ok(GpuEmitter {
            shape,
            velocity,
            kind: 0,
            _pad: 0,
            position: self.position.extend(spread.cos()),
            rotation: Vec4::from(rotation),
            dir_q: Vec4::from(dir_q),
            shape_a: a,
            shape_b: b,
            speed_life: Vec4::new(speed.0, speed.1, self.lifetime.0, self.lifetime.1),
            size_mass: Vec4::new(
                self.size.0,
                self.size.1,
                self.inverse_mass.0,
                self.inverse_mass.1,
            ),
            colour_min: self.colour.0,
            colour_max: self.colour.1,
            accel: self.acceleration.extend(self.damping),
            sub: [0; 4],
        })
    }
}

/// Checks a curve's keys: at least one, at most [`MAX_CURVE_KEYS`], times finite, ascending and
/// in [0, 1].
fn check_keys(what: &'static str, times: impl Iterator<Item = f32> + Clone) -> Result<()> {
    let n = times.clone().count();
    if n == 0 || n > MAX_CURVE_KEYS as usize {
        return Err(Error::InvalidInput {
            what,
            value: format!("{n} keys"),
            fix: "give 1 to MAX_CURVE_KEYS (8) keys, or None for no curve",
        });
    }
    let mut last = 0.0f32;
    for t in times {
        if !(t.is_finite() && (last..=1.0).contains(&t)) {
            return Err(Error::InvalidInput {
                what,
                value: format!("key time {t}"),
                fix: "give key times in [0, 1] (fractions of the lifetime), ascending",
            });
        }
        last = t;
    }
    Ok(())
}

impl Emitter {
    /// The life curves' record, or `None` when the emitter has none (checked).
    pub(crate) fn curves(&self) -> Result<Option<GpuCurves>> {
        if self.colour_over_life.is_none() && self.size_over_life.is_none() {
            return Ok(None);
        }
        let mut c = GpuCurves::default();
        if let Some(keys) = &self.colour_over_life {
            check_keys("emitter.colour_over_life", keys.iter().map(|k| k.0))?;
            for (k, &(t, colour)) in keys.iter().enumerate() {
                if !colour.is_finite() {
                    return Err(Error::InvalidInput {
                        what: "emitter.colour_over_life",
                        value: format!("{colour}"),
                        fix: "give finite colours",
                    });
                }
                c.colour[k] = colour;
                c.colour_t[k / 4][k % 4] = t;
            }
            c.counts[0] = keys.len() as u32;
        }
        if let Some(keys) = &self.size_over_life {
            check_keys("emitter.size_over_life", keys.iter().map(|k| k.0))?;
            for (k, &(t, size)) in keys.iter().enumerate() {
                non_negative("emitter.size_over_life", size)?;
                c.size[k / 4][k % 4] = size;
                c.size_t[k / 4][k % 4] = t;
            }
            c.counts[1] = keys.len() as u32;
        }
        Ok(Some(c))
    }
}

/// The colour of gradient `c` at life fraction `t` (the CPU twin of `curve_colour`).
pub fn curve_colour(c: &GpuCurves, t: f32) -> Vec4 {
    let n = c.counts[0] as usize;
    let time = |k: usize| c.colour_t[k / 4][k % 4];
    let mut out = c.colour[0];
    for k in 0..n.saturating_sub(1) {
        let (t0, t1) = (time(k), time(k + 1));
        if t >= t0 && t < t1 {
            out = c.colour[k] + (c.colour[k + 1] - c.colour[k]) * ((t - t0) / (t1 - t0));
        }
    }
    if n > 0 && t >= time(n - 1) {
        out = c.colour[n - 1];
    }
    out
}

/// The size of curve `c` at life fraction `t` (the CPU twin of `curve_size`).
pub fn curve_size(c: &GpuCurves, t: f32) -> f32 {
    let n = c.counts[1] as usize;
    let time = |k: usize| c.size_t[k / 4][k % 4];
    let value = |k: usize| c.size[k / 4][k % 4];
    let mut out = value(0);
    for k in 0..n.saturating_sub(1) {
        let (t0, t1) = (time(k), time(k + 1));
        if t >= t0 && t < t1 {
            let s0 = value(k);
            out = s0 + (value(k + 1) - s0) * ((t - t0) / (t1 - t0));
        }
    }
    if n > 0 && t >= time(n - 1) {
        out = value(n - 1);
    }
    out
}

/// The `kind` the particles of the emitter in table slot `slot` carry: 1 + the slot above
/// [`KIND_CURVES_SHIFT`], naming their life curves (a slot without curves has no keys) and the
/// bounds they count towards.
pub(crate) fn emitter_kind(slot: usize) -> u32 {
    (slot as u32 + 1) << KIND_CURVES_SHIFT
}

/// The record a world uploads for `e` (checked): the input of [`emitted_record`].
///
/// # Errors
/// As [`Emitter::validate`].
pub fn record(e: &Emitter) -> Result<GpuEmitter> {
    e.to_gpu()
}

/// `v` turned by the unit quaternion `q` (x, y, z, w): v + 2 q.xyz × (q.xyz × v + w v), the same
/// operations as `emit_rotate` in the WGSL.
fn rotate(q: Vec4, v: Vec3) -> Vec3 {
    let u = q.truncate();
    let t = u.cross(v) + v * q.w;
    v + u.cross(t) * 2.0
}

/// A uniform unit vector from two uniforms in [0, 1): z = 1 − 2a, longitude π(2b − 1) (inside
/// [−π, π), where WGSL bounds the error of `sin` and `cos`).
fn unit_dir(a: f32, b: f32) -> Vec3 {
    let z = 1.0 - 2.0 * a;
    let s = (1.0 - z * z).max(0.0).sqrt();
    let phi = std::f32::consts::PI * (2.0 * b - 1.0);
    Vec3::new(s * phi.cos(), s * phi.sin(), z)
}

fn lerp(lo: f32, hi: f32, u: f32) -> f32 {
    lo + (hi - lo) * u
}

/// The start point of a particle in the emitter's frame, from uniforms `u0..u2`.
pub fn shape_point(e: &GpuEmitter, u0: f32, u1: f32, u2: f32) -> Vec3 {
    let a = e.shape_a;
    match e.shape {
        shape_code::SPHERE => unit_dir(u1, u2) * (a.x * u0.powf(1.0 / 3.0)),
        shape_code::SHELL => unit_dir(u1, u2) * a.x,
        shape_code::DISC => {
            let r = a.x * u0.sqrt();
            let phi = std::f32::consts::PI * (2.0 * u1 - 1.0);
            Vec3::new(r * phi.cos(), 0.0, r * phi.sin())
        }
        shape_code::CONE => {
            // Height with density h² (uniform in the solid cone), then a disc of the cone's
            // radius at that height.
            let t = u0.powf(1.0 / 3.0);
            let r = a.x * t * u1.sqrt();
            let phi = std::f32::consts::PI * (2.0 * u2 - 1.0);
            Vec3::new(r * phi.cos(), a.y * t, r * phi.sin())
        }
        shape_code::BOX => a.truncate() * (Vec3::new(u0, u1, u2) * 2.0 - Vec3::ONE),
        shape_code::SEGMENT => {
            let b = e.shape_b.truncate();
            a.truncate() + (b - a.truncate()) * u0
        }
        _ => Vec3::ZERO,
    }
}

/// Stage `spawn_emitted` for one particle: emitter `e`'s particle with GPU serial `serial` at
/// `step`, drawn from `(seed, serial, step, k)` for k = 0..10, its colour and size taken from
/// `curves` at life fraction 0 where they have keys (the CPU twin of `emitted_record`).
pub fn emitted_record(
    e: &GpuEmitter,
    curves: Option<&GpuCurves>,
    seed: u32,
    serial: u32,
    step: u32,
) -> GpuSpawnRecord {
    emitted_record_at(e, curves, seed, serial, step, e.position.truncate())
}

/// [`emitted_record`] with the emitter's shape placed at `origin` (a sub-emitter's children
/// start around their parent; the CPU twin of `emitted_record_at`).
pub fn emitted_record_at(
    e: &GpuEmitter,
    curves: Option<&GpuCurves>,
    seed: u32,
    serial: u32,
    step: u32,
    origin: Vec3,
) -> GpuSpawnRecord {
    let u = |k: u32| rng_unit(seed, serial, step, k);
    let local = shape_point(e, u(0), u(1), u(2));
    let pos = origin + rotate(e.rotation, local);
    let speed = lerp(e.speed_life.x, e.speed_life.y, u(5));
    let dir = if e.velocity == velocity_code::RADIAL {
        let len = local.length();
        let d = if len > 0.0 {
            local / len
        } else {
            unit_dir(u(3), u(4))
        };
        rotate(e.rotation, d)
    } else {
        // Uniform over the cap of half angle `spread` around +y (cos of it in position.w).
        let c = 1.0 - u(3) * (1.0 - e.position.w);
        let s = (1.0 - c * c).max(0.0).sqrt();
        let phi = std::f32::consts::PI * (2.0 * u(4) - 1.0);
        rotate(e.dir_q, Vec3::new(s * phi.cos(), c, s * phi.sin()))
    };
    let mut colour = e.colour_min + (e.colour_max - e.colour_min) * u(8);
    let mut size = lerp(e.size_mass.x, e.size_mass.y, u(7));
    if let Some(c) = curves.filter(|_| e.kind >> KIND_CURVES_SHIFT != 0) {
        if c.counts[0] != 0 {
            colour = curve_colour(c, 0.0);
        }
        if c.counts[1] != 0 {
            size = curve_size(c, 0.0);
        }
    }
    GpuSpawnRecord {
        pos: pos.extend(1.0),
        vel: (dir * speed).extend(e.accel.w),
        acc: e
            .accel
            .truncate()
            .extend(lerp(e.size_mass.z, e.size_mass.w, u(9))),
        colour,
        life: GpuLife {
            age: 0.0,
            lifetime: lerp(e.speed_life.z, e.speed_life.w, u(6)),
            kind: e.kind,
            id: GPU_ID_BIT | (serial & !GPU_ID_BIT),
        },
        size,
        _pad: [0; 3],
    }
}

/// A slot of a world's emitter table. Slots never move, since a particle names its emitter's
/// life curves by slot; a removed emitter with curves keeps its slot (retired) until its last
/// particle must have died.
#[derive(Clone, Debug)]
pub(crate) enum EmitterSlot {
    Free,
    Used(Box<EmitterState>),
    /// Removed; its curves stay for its particles (which still name the slot) until the
    /// world's clock passes `until`.
    Retired {
        until: f64,
        curves: Box<GpuCurves>,
        /// Its particles' collision group and mask.
        groups: (u32, u32),
    },
}

/// An emitter in a world: its record, clock and what its rate has emitted so far.
#[derive(Clone, Debug)]
pub(crate) struct EmitterState {
    pub id: u32,
    pub desc: Emitter,
    pub gpu: GpuEmitter,
    pub curves: Option<GpuCurves>,
    /// Sub-emitters: (child emitter id, children) on death and on impact.
    pub on_death: Option<(u32, u32)>,
    pub on_impact: Option<(u32, u32)>,
    pub active: bool,
    /// Seconds on the emitter's clock (f64, so thousands of steps add no drift).
    pub time: f64,
    /// Particles the rate has asked for so far: floor(rate · time).
    pub from_rate: u64,
}

impl EmitterState {
    /// Particles wanted in a step of `dt` seconds (the rate's share and the bursts whose time
    /// falls in `[time, time + dt)`), advancing the clock. Nothing while paused.
    pub fn advance(&mut self, dt: f32) -> u64 {
        if !self.active {
            return 0;
        }
        let start = self.time;
        let end = start + f64::from(dt);
        let total = (f64::from(self.desc.rate) * end).floor().max(0.0) as u64;
        let mut n = total.saturating_sub(self.from_rate);
        self.from_rate = self.from_rate.max(total);
        for b in &self.desc.bursts {
            let t = f64::from(b.time);
            if start <= t && t < end {
                n = n.saturating_add(u64::from(b.count));
            }
        }
        self.time = end;
        n
    }
}
