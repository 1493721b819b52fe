//! Public types of the mass-aggregate world (book ch. 5–8): force generators, links, the
//! collision settings and the world configuration, each validated and converted to its GPU
//! mirror in one place.

use super::types::{GpuGen, GpuLink, NONE};
use crate::colliders::ParticleCollider;
use crate::error::{finite, finite3, non_negative, positive, Error, Result};
use crate::fields::ForceField;
use glam::{Vec3, Vec4};

/// Declares a handle of an aggregate world's table (particles, force generators, links): the
/// slot, the slot's generation (bumped each time the slot is reused, so a handle of a removed
/// item is refused rather than reaching the slot's next owner) and the tag of the world that
/// issued it (a handle of another world is refused). The tag is not saved: a handle read back
/// with serde names no world until it is found again (see [`super::AggregateWorld::load`]).
macro_rules! aggregate_handle {
    ($(#[$doc:meta])* $name:ident, $kind:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub struct $name {
            pub(crate) index: u32,
            pub(crate) generation: u32,
            #[cfg_attr(feature = "serde", serde(skip))]
            pub(crate) world: u32,
        }

        impl $name {
            /// What [`crate::Error::StaleHandle`] calls this kind of handle.
            pub const KIND: &'static str = $kind;

            /// The slot index (the same in every GPU buffer and table of the world).
            pub fn index(self) -> u32 {
                self.index
            }

            /// The slot's generation: how many earlier owners the slot had.
            pub fn generation(self) -> u32 {
                self.generation
            }
        }
    };
}

aggregate_handle!(
    /// A particle of an aggregate world: its slot (which never changes while it lives), the
    /// slot's generation and its world. A removed particle's slot is reused by a later add.
    ParticleId,
    "aggregate particle"
);

aggregate_handle!(
    /// A force generator, from [`crate::aggregate::AggregateWorld::add_generator`].
    GeneratorId,
    "force generator"
);

aggregate_handle!(
    /// A link, from [`crate::aggregate::AggregateWorld::add_link`].
    LinkId,
    "link"
);

/// Force generators (book §5–6, with the catalogue's corrected forms).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ForceGenerator {
    /// Hooke spring between two particles: f_a = −k(|d| − l₀)·d̂ with d = p_a − p_b (it pushes
    /// when compressed; the book's `abs` is an erratum).
    Spring {
        /// One end.
        a: ParticleId,
        /// Other end.
        b: ParticleId,
        /// Stiffness k, N/m.
        stiffness: f32,
        /// Rest length l₀, m.
        rest_length: f32,
    },
    /// Spring to a movable anchor point (move it with `set_anchor`).
    AnchoredSpring {
        /// The particle.
        particle: ParticleId,
        /// Anchor, m.
        anchor: Vec3,
        /// Stiffness k, N/m.
        stiffness: f32,
        /// Rest length, m.
        rest_length: f32,
    },
    /// A spring that only pulls, when stretched beyond its rest length (the book's printed
    /// bungee pushes: an erratum).
    Bungee {
        /// One end.
        a: ParticleId,
        /// Other end.
        b: ParticleId,
        /// Stiffness, N/m.
        stiffness: f32,
        /// Rest length, m.
        rest_length: f32,
    },
    /// A bungee to a movable anchor.
    AnchoredBungee {
        /// The particle.
        particle: ParticleId,
        /// Anchor, m.
        anchor: Vec3,
        /// Stiffness, N/m.
        stiffness: f32,
        /// Rest length, m.
        rest_length: f32,
    },
    /// Buoyancy of a liquid whose surface is the plane y = `water_height` (book §6.2.4,
    /// corrected): submerged fraction d = (y_w + s − y)/(2s) clamped to [0, 1], upward force
    /// d·ρ·V·g. The book prints ρV without g; pass your world's gravity magnitude.
    Buoyancy {
        /// The particle.
        particle: ParticleId,
        /// Depth s at which the object is fully submerged, m.
        max_depth: f32,
        /// Volume V, m³.
        volume: f32,
        /// Liquid surface height, m.
        water_height: f32,
        /// Liquid density ρ, kg/m³ (water 1000).
        density: f32,
        /// Gravity magnitude g, m/s².
        gravity: f32,
    },
    /// The book's fake stiff spring (§6.3): a damped harmonic oscillator of zero rest length
    /// to an anchor, solved in closed form over the step (p̈ = −k·p − d·ṗ; k per unit mass).
    FakeSpring {
        /// The particle.
        particle: ParticleId,
        /// Anchor, m.
        anchor: Vec3,
        /// Stiffness k, 1/s².
        stiffness: f32,
        /// Damping d, 1/s: a spring's damping coefficient (a rate), not the fraction of
        /// velocity kept per second of [`Particle::damping`](crate::particles::Particle::damping).
        damping: f32,
    },
    /// The improved damped spring (articles 002-12): f = −(m_red/Δt²)·C_k·x − (m_red/Δt)·C_d·v
    /// along the spring, with m_red the reduced mass; stable for C_k, C_d in [0, 1].
    DampedSpring {
        /// One end.
        a: ParticleId,
        /// Other end.
        b: ParticleId,
        /// Rest length, m.
        rest_length: f32,
        /// C_k in [0, 1] (1 closes the gap in one step).
        stiffness: f32,
        /// C_d in [0, 1]: the spring's damping along its length (1 removes the relative velocity
        /// in one step), not the fraction of velocity kept per second of
        /// [`Particle::damping`](crate::particles::Particle::damping).
        damping: f32,
    },
    /// The improved damped spring to a movable anchor (m_red = the particle's mass).
    AnchoredDampedSpring {
        /// The particle.
        particle: ParticleId,
        /// Anchor, m.
        anchor: Vec3,
        /// Rest length, m.
        rest_length: f32,
        /// C_k in [0, 1].
        stiffness: f32,
        /// C_d in [0, 1]: the spring's damping along its length (1 removes the relative velocity
        /// in one step), not the fraction of velocity kept per second of
        /// [`Particle::damping`](crate::particles::Particle::damping).
        damping: f32,
    },
    /// Gravity on one particle: f = m·g.
    Gravity {
        /// The particle.
        particle: ParticleId,
        /// Acceleration, m/s².
        g: Vec3,
    },
    /// Drag on one particle: f = −v̂(k₁|v| + k₂|v|²).
    Drag {
        /// The particle.
        particle: ParticleId,
        /// Linear coefficient.
        k1: f32,
        /// Quadratic coefficient.
        k2: f32,
    },
}

fn unit(what: &'static str, v: f32) -> Result<()> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(Error::InvalidInput {
            what,
            value: format!("{v}"),
            fix: "pass a coefficient in [0, 1]",
        })
    }
}

fn distinct(what: &'static str, a: ParticleId, b: ParticleId) -> Result<()> {
    if a == b {
        return Err(Error::InvalidInput {
            what,
            value: format!("both ends are particle {}", a.index),
            fix: "connect two different particles, or use the anchored form to tie one particle to a point",
        });
    }
    Ok(())
}

impl ForceGenerator {
    /// The same generator with each particle `p` it touches replaced by `f(p)`: for example
    /// a generator of one world rebuilt in a world loaded from its save, with
    /// `|p| loaded.particle_handle_at(p.index())`.
    pub fn map_particles(mut self, mut f: impl FnMut(ParticleId) -> ParticleId) -> Self {
        use ForceGenerator::*;
        match &mut self {
            Spring { a, b, .. } | Bungee { a, b, .. } | DampedSpring { a, b, .. } => {
                *a = f(*a);
                *b = f(*b);
            }
            AnchoredSpring { particle, .. }
            | AnchoredBungee { particle, .. }
            | Buoyancy { particle, .. }
            | FakeSpring { particle, .. }
            | AnchoredDampedSpring { particle, .. }
            | Gravity { particle, .. }
            | Drag { particle, .. } => *particle = f(*particle),
        }
        self
    }

    /// The particles it touches (one or two).
    pub fn particles(&self) -> (ParticleId, Option<ParticleId>) {
        use ForceGenerator::*;
        match *self {
            Spring { a, b, .. } | Bungee { a, b, .. } | DampedSpring { a, b, .. } => (a, Some(b)),
            AnchoredSpring { particle, .. }
            | AnchoredBungee { particle, .. }
            | Buoyancy { particle, .. }
            | FakeSpring { particle, .. }
            | AnchoredDampedSpring { particle, .. }
            | Gravity { particle, .. }
            | Drag { particle, .. } => (particle, None),
        }
    }

    /// Validates the parameters and builds the GPU record (particle indices are checked by the
    /// world).
    pub(crate) fn to_gpu(self) -> Result<GpuGen> {
        use ForceGenerator::*;
        let (a, b) = self.particles();
        let mut g = GpuGen {
            a: a.index,
            b: b.map_or(NONE, |b| b.index),
            ..Default::default()
        };
        match self {
            Spring {
                a,
                b,
                stiffness,
                rest_length,
            }
            | Bungee {
                a,
                b,
                stiffness,
                rest_length,
            } => {
                distinct("spring ends", a, b)?;
                non_negative("spring.stiffness", stiffness)?;
                non_negative("spring.rest_length", rest_length)?;
                g.kind = if matches!(self, Spring { .. }) { 1 } else { 3 };
                g.k = Vec4::new(stiffness, rest_length, 0.0, 0.0);
            }
            AnchoredSpring {
                anchor,
                stiffness,
                rest_length,
                ..
            }
            | AnchoredBungee {
                anchor,
                stiffness,
                rest_length,
                ..
            } => {
                finite3("spring.anchor", anchor)?;
                non_negative("spring.stiffness", stiffness)?;
                non_negative("spring.rest_length", rest_length)?;
                g.kind = if matches!(self, AnchoredSpring { .. }) {
                    2
                } else {
                    4
                };
                g.k = Vec4::new(stiffness, rest_length, 0.0, 0.0);
                g.anchor = anchor.extend(0.0);
            }
            Buoyancy {
                max_depth,
                volume,
                water_height,
                density,
                gravity,
                ..
            } => {
                positive("buoyancy.max_depth", max_depth)?;
                non_negative("buoyancy.volume", volume)?;
                finite("buoyancy.water_height", water_height)?;
                non_negative("buoyancy.density", density)?;
                non_negative("buoyancy.gravity", gravity)?;
                g.kind = 5;
                g.k = Vec4::new(max_depth, volume, water_height, density);
                g.anchor = Vec4::new(gravity, 0.0, 0.0, 0.0);
            }
            FakeSpring {
                anchor,
                stiffness,
                damping,
                ..
            } => {
                finite3("fake_spring.anchor", anchor)?;
                non_negative("fake_spring.stiffness", stiffness)?;
                non_negative("fake_spring.damping", damping)?;
                if damping * damping >= 4.0 * stiffness {
                    return Err(Error::InvalidInput {
                        what: "fake_spring.damping",
                        value: format!("{damping} with stiffness {stiffness}"),
                        fix: "the fake spring is the underdamped oscillator: keep damping below 2·sqrt(stiffness)",
                    });
                }
                g.kind = 6;
                g.k = Vec4::new(stiffness, 0.0, damping, 0.0);
                g.anchor = anchor.extend(0.0);
            }
            DampedSpring {
                a,
                b,
                rest_length,
                stiffness,
                damping,
            } => {
                distinct("damped spring ends", a, b)?;
                non_negative("damped_spring.rest_length", rest_length)?;
                unit("damped_spring.stiffness (C_k)", stiffness)?;
                unit("damped_spring.damping (C_d)", damping)?;
                g.kind = 7;
                g.k = Vec4::new(stiffness, rest_length, damping, 0.0);
            }
            AnchoredDampedSpring {
                anchor,
                rest_length,
                stiffness,
                damping,
                ..
            } => {
                finite3("damped_spring.anchor", anchor)?;
                non_negative("damped_spring.rest_length", rest_length)?;
                unit("damped_spring.stiffness (C_k)", stiffness)?;
                unit("damped_spring.damping (C_d)", damping)?;
                g.kind = 8;
                g.k = Vec4::new(stiffness, rest_length, damping, 0.0);
                g.anchor = anchor.extend(0.0);
            }
            Gravity { g: acc, .. } => {
                finite3("gravity.g", acc)?;
                g.kind = 9;
                g.anchor = acc.extend(0.0);
            }
            Drag { k1, k2, .. } => {
                non_negative("drag.k1", k1)?;
                non_negative("drag.k2", k2)?;
                g.kind = 10;
                g.k = Vec4::new(k1, k2, 0.0, 0.0);
            }
        }
        Ok(g)
    }
}

/// Hard constraints between two particles or a particle and a fixed point (book §7.4).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Link {
    /// Never longer than `max_length`; bounces back with `restitution` when taut.
    Cable {
        /// One end.
        a: ParticleId,
        /// Other end.
        b: ParticleId,
        /// Maximum length, m.
        max_length: f32,
        /// Restitution in [0, 1].
        restitution: f32,
    },
    /// Always `length` long (restitution 0).
    Rod {
        /// One end.
        a: ParticleId,
        /// Other end.
        b: ParticleId,
        /// Length, m (> 0).
        length: f32,
    },
    /// A cable to a fixed anchor.
    AnchoredCable {
        /// The particle.
        particle: ParticleId,
        /// Anchor, m.
        anchor: Vec3,
        /// Maximum length, m.
        max_length: f32,
        /// Restitution in [0, 1].
        restitution: f32,
    },
    /// A rod to a fixed anchor.
    AnchoredRod {
        /// The particle.
        particle: ParticleId,
        /// Anchor, m.
        anchor: Vec3,
        /// Length, m (> 0).
        length: f32,
    },
}

impl Link {
    /// The same link with each particle `p` it joins replaced by `f(p)` (see
    /// [`ForceGenerator::map_particles`]).
    pub fn map_particles(mut self, mut f: impl FnMut(ParticleId) -> ParticleId) -> Self {
        match &mut self {
            Link::Cable { a, b, .. } | Link::Rod { a, b, .. } => {
                *a = f(*a);
                *b = f(*b);
            }
            Link::AnchoredCable { particle, .. } | Link::AnchoredRod { particle, .. } => {
                *particle = f(*particle)
            }
        }
        self
    }

    /// The particles it joins.
    pub fn particles(&self) -> (ParticleId, Option<ParticleId>) {
        match *self {
            Link::Cable { a, b, .. } | Link::Rod { a, b, .. } => (a, Some(b)),
            Link::AnchoredCable { particle, .. } | Link::AnchoredRod { particle, .. } => {
                (particle, None)
            }
        }
    }

    pub(crate) fn to_gpu(self) -> Result<GpuLink> {
        let (a, b) = self.particles();
        let mut l = GpuLink {
            a: a.index,
            b: b.map_or(NONE, |b| b.index),
            ..Default::default()
        };
        match self {
            Link::Cable {
                a,
                b,
                max_length,
                restitution,
            } => {
                distinct("cable ends", a, b)?;
                positive("cable.max_length", max_length)?;
                unit("cable.restitution", restitution)?;
                l.kind = 1;
                l.length = max_length;
                l.restitution = restitution;
            }
            Link::AnchoredCable {
                anchor,
                max_length,
                restitution,
                ..
            } => {
                finite3("cable.anchor", anchor)?;
                positive("cable.max_length", max_length)?;
                unit("cable.restitution", restitution)?;
                l.kind = 1;
                l.length = max_length;
                l.restitution = restitution;
                l.anchor = anchor.extend(0.0);
            }
            Link::Rod { a, b, length } => {
                distinct("rod ends", a, b)?;
                rod_length(length)?;
                l.kind = 2;
                l.length = length;
            }
            Link::AnchoredRod { anchor, length, .. } => {
                finite3("rod.anchor", anchor)?;
                rod_length(length)?;
                l.kind = 2;
                l.length = length;
                l.anchor = anchor.extend(0.0);
            }
        }
        Ok(l)
    }
}

fn rod_length(length: f32) -> Result<()> {
    if length > 0.0 && length.is_finite() {
        Ok(())
    } else {
        Err(Error::InvalidInput {
            what: "rod.length",
            value: format!("{length}"),
            fix: "a rod needs a finite length > 0 (a zero-length rod has no direction)",
        })
    }
}

/// Over-relaxation ω of the collide stage's resting contacts: a grain's summed position
/// corrections are divided by max(1, n/ω) over its n engaged contacts (the constraint
/// averaging of Macklin et al. 2014, §4.2, with the factor capped at 1 so a grain on one
/// contact is not pushed past it). Plain averaging (ω = 1) converges too slowly for a pile to
/// hold its own weight in a few iterations; ω = 2 lets a grain in a groove of two overshoot
/// both contacts together and bounce (2·cos²θ > 1 for contact normals θ < 45° off vertical).
pub const COLLIDE_RELAXATION: f32 = 1.5;

/// Depth, as a fraction (2^-10) of the two radii, from which a resting contact counts fully
/// towards its grain's engaged contacts in the collide stage; shallower ones count in
/// proportion. A projected contact is left touching, its penetration 0 give or take the last
/// bit: counting it as 0 or 1 would change every other share of the grain on one bit of
/// rounding, and a GPU would part from the CPU within a few steps of a pour. A power of two,
/// so that scaling by it rounds nowhere.
pub const COLLIDE_REST_DEPTH: f32 = 0.0009765625;

/// The skin of the collide stage's candidate lists (`near_list`), as a fraction of the grid
/// cell: a grain's candidates for a step are the grains within a cell size plus the contact
/// slop plus this skin of it along every axis, as the grid was built. The list is fixed for
/// the step while the iterations move the grains, so the skin is what a pair may close in by
/// and still be found: a quarter cell, half the largest radius. The stencil the iterations
/// used before the lists (the 27 cells around a grain's current cell) follows the grains
/// instead; without a skin a pour into the sand box had grains step into neighbours they did
/// not list and its pile flickered twice as often (12 of 38 seconds above the rest test's
/// bound, against 6 for the old stencil and 5 with this skin, one 40 s run each).
pub const NEAR_SKIN: f32 = 0.25;

/// Units per grid cell in which `near_list` measures a candidate's distance: each coordinate
/// difference (exact) times `NEAR_UNITS / cell` (one multiplication, correctly rounded on every
/// adapter), rounded down to a whole unit, so that the squared distance is an exact integer
/// and the same on every adapter and on the CPU, whether or not a compiler fuses multiply-adds.
/// A unit is 1/256 of a cell: the sphere's edge is blurred by at most √3 units (0.7% of the
/// cell), well inside the skin.
pub const NEAR_UNITS: f32 = 256.0;

/// The most grid cells the candidate search walks along an axis (`near_list`): the box spans
/// 2.5 cells plus twice the contact slop, so eight cells cover it unless the slop exceeds 2.25
/// cells (the default slop is 0.1 mm); the cap keeps the walk bounded at a non-finite
/// position.
pub const NEAR_SPAN: u32 = 8;

/// Particle–particle collisions on the uniform grid.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Collisions {
    /// Grid cell size, m; at least twice the largest radius (0 picks exactly that).
    pub cell_size: f32,
    /// Hash-table size (power of two; 0 picks the next power of two ≥ 2 × capacity).
    pub table_size: u32,
    /// Restitution between particles, [0, 1].
    pub restitution: f32,
    /// Coulomb friction between particles.
    pub friction: f32,
    /// Jacobi iterations per step.
    pub iterations: u32,
    /// Stack mass scaling k in 1/m (0: off). Between two grains in contact, the lower one
    /// counts as heavier by e^{k·Δy} when their contact correction is shared, so a pile's support
    /// reaches its top in a few Jacobi iterations instead of sagging (the mass-scaling trick of
    /// unified particle solvers). It changes how corrections are shared, never the real masses;
    /// keep it 0 where grains at different heights must exchange momentum exactly. For a pile of
    /// grains of radius r, 2/r to 4/r: the higher, the less a deep heap sinks into itself and
    /// the more slowly it comes to rest (the sand box, `scenes::aggregate::sand`, uses 3/r).
    pub stack_scaling: f32,
}

impl Default for Collisions {
    fn default() -> Self {
        Self {
            cell_size: 0.0,
            table_size: 0,
            restitution: 0.2,
            friction: 0.4,
            iterations: 4,
            stack_scaling: 0.0,
        }
    }
}

/// How velocities and positions are advanced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Integrator {
    /// The book's order: p += v·dt with the old velocity, then v += a·dt.
    Book,
    /// Semi-implicit Euler: v += a·dt, then p += v·dt. Springs keep their energy, and the
    /// improved damped spring's one-step property (002-12) holds.
    #[default]
    SemiImplicit,
}

/// How the CPU backend orders link resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ResolveOrder {
    /// Coloured batches, exactly as the GPU runs them.
    #[default]
    Batches,
    /// The book's resolver: always the most severe contact next (CPU only).
    MostSevereFirst,
}

/// How an aggregate world is built.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AggregateConfig {
    /// Particle slots.
    pub capacity: u32,
    /// Force fields on every particle (gravity, drag, wind, attractor).
    pub fields: Vec<ForceField>,
    /// Static colliders (planes, spheres, boxes) every particle collides with, applied in this
    /// order; at most [`crate::colliders::MAX_COLLIDERS`] (a uniform table on the GPU;
    /// more is [`crate::Error::TooMany`] when the world is built).
    pub colliders: Vec<ParticleCollider>,
    /// Particle–particle collisions; `None` turns them off.
    pub collisions: Option<Collisions>,
    /// Link-resolution iterations per step (each runs every colour once).
    pub link_iterations: u32,
    /// The integrator.
    pub integrator: Integrator,
    /// Link resolution order on the CPU backend.
    pub order: ResolveOrder,
    /// Distance within which a contact counts as touching, m.
    pub contact_slop: f32,
    /// How the CPU twin rounds (ignored on the GPU): as written, or as a GPU compiler may
    /// (fused multiply-adds, reciprocal division); see [`crate::rounding`].
    pub cpu_rounding: crate::CpuRounding,
}

impl Default for AggregateConfig {
    fn default() -> Self {
        Self {
            capacity: 4096,
            fields: Vec::new(),
            colliders: Vec::new(),
            collisions: None,
            link_iterations: 64,
            integrator: Integrator::SemiImplicit,
            order: ResolveOrder::Batches,
            contact_slop: 1e-4,
            cpu_rounding: crate::CpuRounding::Separate,
        }
    }
}
