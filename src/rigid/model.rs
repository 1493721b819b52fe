//! The public description of rigid bodies and their colliders: builders validated at the API
//! boundary, and handles (the world configuration is `config.rs`).

use super::mass::{check_density, mass_properties, MassSpec, ShapeMass, DEFAULT_DENSITY};
use super::math::*;
use super::types::*;
use crate::error::{finite, finite3, non_negative, positive, Error, Result};
use glam::{Mat3, Quat, Vec3, Vec4};
use std::sync::Arc;

/// How a body moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BodyKind {
    /// Moved by forces and contacts.
    #[default]
    Dynamic,
    /// Never moves; infinite mass. Planes and half-spaces belong to static bodies.
    Static,
    /// Moves with the velocity you give it; pushes dynamic bodies, is never pushed.
    Kinematic,
}

/// A collision primitive's geometry. Cheap to clone: a convex hull is shared, not copied.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A solid sphere.
    Sphere {
        /// Radius (> 0).
        radius: f32,
    },
    /// A solid box.
    Cuboid {
        /// Half extents along the collider's axes (each > 0).
        half_extents: Vec3,
    },
    /// A solid capsule: a segment along the collider's y axis swept by a sphere.
    Capsule {
        /// Radius (> 0).
        radius: f32,
        /// Half the segment length (>= 0; 0 is a sphere).
        half_height: f32,
    },
    /// Everything on the far side of a plane is solid: points p with p·normal <= offset.
    /// Static bodies only.
    HalfSpace {
        /// Outward normal (normalized on entry).
        normal: Vec3,
        /// Plane offset along the normal.
        offset: f32,
    },
    /// A two-sided thin plane p·normal = offset. Static bodies only.
    Plane {
        /// Normal (normalized on entry).
        normal: Vec3,
        /// Offset along the normal.
        offset: f32,
    },
    /// A solid convex polyhedron, cooked and checked on the host ([`Collider::convex_hull`],
    /// [`Collider::convex_mesh`]); its vertices are in the collider's frame. A world stores each
    /// distinct hull (each `Arc`) once, however many colliders share it.
    ConvexHull {
        /// The cooked hull.
        hull: Arc<super::hull::Hull>,
    },
    /// A static triangle mesh ([`Collider::trimesh`]), in the collider's frame; static bodies
    /// only, no mass. A world stores each distinct mesh (each `Arc`) once.
    TriMesh {
        /// The cooked mesh.
        mesh: Arc<super::mesh::TriMesh>,
    },
    /// A static heightfield ([`Collider::heightfield`]), centred on the collider's origin;
    /// static bodies only, no mass. A world stores each distinct field (each `Arc`) once.
    HeightField {
        /// The cooked field.
        field: Arc<super::mesh::HeightField>,
    },
}

impl Shape {
    /// The shape's volume (0 for planes), used to share a body's mass among its colliders.
    pub fn volume(&self) -> f32 {
        use std::f32::consts::PI;
        match *self {
            Shape::Sphere { radius } => 4.0 / 3.0 * PI * radius.powi(3),
            Shape::Cuboid { half_extents: h } => 8.0 * h.x * h.y * h.z,
            Shape::Capsule {
                radius,
                half_height,
            } => PI * radius * radius * (4.0 / 3.0 * radius + 2.0 * half_height),
            Shape::HalfSpace { .. } | Shape::Plane { .. } => 0.0,
            Shape::TriMesh { .. } | Shape::HeightField { .. } => 0.0,
            Shape::ConvexHull { ref hull } => hull.volume(),
        }
    }

    /// Where the solid's centre of mass lies in the collider's frame: the origin, except for a
    /// hull, whose vertices may be anywhere about it.
    pub fn centre_of_mass(&self) -> Vec3 {
        match self {
            Shape::ConvexHull { hull } => hull.centre(),
            _ => Vec3::ZERO,
        }
    }

    fn is_plane(&self) -> bool {
        matches!(self, Shape::HalfSpace { .. } | Shape::Plane { .. })
    }

    /// Whether the shape is level geometry (a triangle mesh or heightfield): static only.
    pub(crate) fn is_level(&self) -> bool {
        matches!(self, Shape::TriMesh { .. } | Shape::HeightField { .. })
    }

    pub(crate) fn validate(&self) -> Result<()> {
        match *self {
            // Cooked and checked when the collider was made.
            Shape::ConvexHull { .. } | Shape::TriMesh { .. } | Shape::HeightField { .. } => Ok(()),
            Shape::Sphere { radius } => positive("sphere radius", radius),
            Shape::Cuboid { half_extents: h } => {
                if h.is_finite() && h.min_element() > 0.0 {
                    Ok(())
                } else {
                    Err(Error::InvalidInput {
                        what: "cuboid half_extents",
                        value: format!("{h:?}"),
                        fix: "pass three finite half extents > 0",
                    })
                }
            }
            Shape::Capsule {
                radius,
                half_height,
            } => {
                positive("capsule radius", radius)?;
                non_negative("capsule half_height", half_height)
            }
            Shape::HalfSpace { normal, offset } | Shape::Plane { normal, offset } => {
                finite("plane offset", offset)?;
                if normal.is_finite() && normal.length_squared() > 1e-12 {
                    Ok(())
                } else {
                    Err(Error::InvalidInput {
                        what: "plane normal",
                        value: format!("{normal:?}"),
                        fix: "pass a finite, non-zero normal",
                    })
                }
            }
        }
    }

    /// Inertia tensor of the solid about its own centre of mass ([`Shape::centre_of_mass`]), in
    /// its own axes, for `mass`.
    pub fn inertia(&self, mass: f32) -> Mat3 {
        match *self {
            Shape::ConvexHull { ref hull } => hull.unit_inertia() * mass,
            Shape::Sphere { radius } => super::inertia::solid_sphere(mass, radius),
            Shape::Cuboid { half_extents } => super::inertia::cuboid(mass, half_extents),
            Shape::Capsule {
                radius,
                half_height,
            } => super::inertia::capsule(mass, radius, half_height),
            Shape::HalfSpace { .. } | Shape::Plane { .. } => Mat3::ZERO,
            Shape::TriMesh { .. } | Shape::HeightField { .. } => Mat3::ZERO,
        }
    }
}

/// A collider: a shape placed on a body, with its material and collision groups. Cheap to clone
/// (a hull's data is shared).
#[derive(Clone, Debug, PartialEq)]
pub struct Collider {
    /// Geometry.
    pub shape: Shape,
    /// Position in the body's frame (relative to the body's origin, its position).
    pub offset: Vec3,
    /// Rotation in the body's frame.
    pub rotation: Quat,
    /// Coulomb friction coefficient (>= 0).
    pub friction: f32,
    /// Restitution in [0, 1].
    pub restitution: f32,
    /// Rolling resistance (>= 0, default 0: none): a round collider (sphere, capsule) rolling
    /// on anything is braked by a torque up to this times its radius times the normal force,
    /// so a ball rolled at v on level ground stops after v² / (2·a) with
    /// a = g·c / (1 + I/(m·r²)) (5/7·g·c for a solid ball). A pair takes the larger of its two
    /// colliders' coefficients and the larger round radius (Box2D v3's rule); flat shapes on
    /// flat shapes are not braked.
    pub rolling_resistance: f32,
    /// Group bits; two colliders touch when each one's group meets the other's mask.
    pub group: u32,
    /// Mask bits.
    pub mask: u32,
    /// A sensor reports overlaps (contact events, contact reads) and pushes nothing; it has
    /// no mass.
    pub sensor: bool,
    /// The collider's density (kg/m³, > 0), or `None` for its body's (see
    /// [`crate::rigid::mass`]).
    pub density: Option<f32>,
}

impl Collider {
    /// A collider of `shape` at the body's centre, friction 0.5, restitution 0.
    #[must_use]
    pub fn new(shape: Shape) -> Self {
        Self {
            shape,
            offset: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            friction: 0.5,
            restitution: 0.0,
            rolling_resistance: 0.0,
            group: u32::MAX,
            mask: u32::MAX,
            sensor: false,
            density: None,
        }
    }
    /// Sets the collider's density in kg/m³ (> 0; water 1000, wood about 600, steel 7850): its
    /// part of its body's mass is this times its volume, whatever the body's density (see
    /// [`crate::rigid::mass`]). A density that is not positive is refused when the collider
    /// is added.
    #[must_use]
    pub fn density(mut self, density: f32) -> Self {
        self.density = Some(density);
        self
    }
    /// Makes the collider a sensor (or not): its contacts are found and reported
    /// ([`crate::rigid::RigidWorld::take_contact_events`], [`crate::rigid::RigidWorld::contacts`])
    /// but never solved, so bodies pass through it; it wakes no sleeping body and stops no
    /// continuous-collision sweep. A trigger volume is a sensor on a fixed body.
    #[must_use]
    pub fn sensor(mut self, yes: bool) -> Self {
        self.sensor = yes;
        self
    }
    /// A sphere.
    #[must_use]
    pub fn sphere(radius: f32) -> Self {
        Self::new(Shape::Sphere { radius })
    }
    /// A box with the given half extents.
    #[must_use]
    pub fn cuboid(half_extents: Vec3) -> Self {
        Self::new(Shape::Cuboid { half_extents })
    }
    /// A capsule along local y, as rapier's `ColliderBuilder::capsule_y(half_height, radius)`:
    /// `half_height` is half the segment between the caps' centres, so the capsule is
    /// `2·(half_height + radius)` tall. (This was `capsule(radius, half_height)`, the other way
    /// round; the name changed with the order so that old calls stop compiling instead of
    /// swapping silently.)
    #[must_use]
    pub fn capsule_y(half_height: f32, radius: f32) -> Self {
        Self::new(Shape::Capsule {
            radius,
            half_height,
        })
    }
    /// A half-space (solid below the plane p·normal = offset).
    #[must_use]
    pub fn half_space(normal: Vec3, offset: f32) -> Self {
        Self::new(Shape::HalfSpace { normal, offset })
    }
    /// A two-sided plane.
    #[must_use]
    pub fn plane(normal: Vec3, offset: f32) -> Self {
        Self::new(Shape::Plane { normal, offset })
    }
    /// Places the collider in the body's frame.
    #[must_use]
    pub fn at(mut self, offset: Vec3, rotation: Quat) -> Self {
        self.offset = offset;
        self.rotation = rotation;
        self
    }
    /// Sets Coulomb `friction` (>= 0) and `restitution` (in [0, 1]), in that order: friction
    /// first, restitution second, as everywhere in the API (and in rapier).
    #[must_use]
    pub fn material(mut self, friction: f32, restitution: f32) -> Self {
        self.friction = friction;
        self.restitution = restitution;
        self
    }
    /// Sets the rolling resistance (see [`Collider::rolling_resistance`], the field).
    #[must_use]
    pub fn rolling_resistance(mut self, coefficient: f32) -> Self {
        self.rolling_resistance = coefficient;
        self
    }
    /// Sets the collision group and mask bits.
    #[must_use]
    pub fn groups(mut self, group: u32, mask: u32) -> Self {
        self.group = group;
        self.mask = mask;
        self
    }

    /// Moves the collider so that its solid's centre of mass sits at the body's origin: the
    /// offset becomes `−rotation·centre`. Only a hull's centre can lie off its collider's
    /// origin; other shapes are left alone. (A body turns about its colliders' centre of mass
    /// wherever it lies; this makes a lone hull's body's origin that centre.)
    #[must_use]
    pub fn centred(mut self) -> Self {
        if let Shape::ConvexHull { hull } = &self.shape {
            self.offset = -(self.rotation * hull.centre());
        }
        self
    }

    /// The collider's part in its body's mass (see [`crate::rigid::mass`]).
    pub(crate) fn mass_part(&self) -> ShapeMass {
        ShapeMass::of(
            &self.shape,
            self.offset,
            self.rotation,
            self.density,
            self.sensor,
        )
    }

    pub(crate) fn to_gpu(&self, body: u32, kind: BodyKind) -> Result<GpuShape> {
        self.shape.validate()?;
        if let Some(d) = self.density {
            check_density("collider density", d)?;
        }
        finite3("collider offset", self.offset)?;
        let rot = unit_quat("collider rotation", self.rotation)?;
        non_negative("collider friction", self.friction)?;
        non_negative("collider rolling_resistance", self.rolling_resistance)?;
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(Error::InvalidInput {
                what: "collider restitution",
                value: format!("{}", self.restitution),
                fix: "pass a restitution in [0, 1]",
            });
        }
        if self.shape.is_plane() && kind != BodyKind::Static {
            return Err(Error::InvalidInput {
                what: "collider shape",
                value: format!("{:?} on a {kind:?} body", self.shape),
                fix: "planes and half-spaces have no mass: put them on a RigidBody::fixed() body",
            });
        }
        if self.shape.is_level() && kind != BodyKind::Static {
            return Err(level_on_moving_body(kind));
        }
        let (kind_code, dims) = match self.shape {
            // dims.x, the header's word in the world's hull store, is set when the world stores
            // the hull (see `shape_kind::HULL`).
            Shape::ConvexHull { ref hull } => (
                shape_kind::HULL,
                Vec4::new(
                    0.0,
                    hull.centre().length() + hull.radius(),
                    hull.inner_radius(),
                    0.0,
                ),
            ),
            Shape::Sphere { radius } => (shape_kind::SPHERE, Vec4::new(radius, 0.0, 0.0, 0.0)),
            Shape::Cuboid { half_extents } => (shape_kind::BOX, half_extents.extend(0.0)),
            Shape::Capsule {
                radius,
                half_height,
            } => (
                shape_kind::CAPSULE,
                Vec4::new(radius, half_height, 0.0, 0.0),
            ),
            Shape::HalfSpace { normal, offset } => {
                let l = normal.length();
                (shape_kind::HALF_SPACE, (normal / l).extend(offset / l))
            }
            Shape::Plane { normal, offset } => {
                let l = normal.length();
                (shape_kind::PLANE, (normal / l).extend(offset / l))
            }
            // dims.x, the block's first word in the world's hull store, is set when the world
            // stores the geometry (see `shape_kind::MESH`).
            Shape::TriMesh { ref mesh } => {
                let r = mesh
                    .vertices()
                    .iter()
                    .fold(0.0f32, |r, v| r.max(v.length()));
                (shape_kind::MESH, Vec4::new(0.0, r, 0.0, 0.0))
            }
            Shape::HeightField { ref field } => {
                let b = field.aabb();
                let r = b.min.abs().max(b.max.abs()).length();
                (shape_kind::HEIGHTFIELD, Vec4::new(0.0, r, 0.0, 0.0))
            }
        };
        Ok(GpuShape {
            kind: kind_code,
            body,
            group: self.group,
            mask: self.mask,
            offset_pos: self.offset.extend(0.0),
            offset_rot: rot,
            dims,
            material: Vec4::new(
                self.friction,
                self.restitution,
                self.rolling_resistance,
                if self.sensor { 1.0 } else { 0.0 },
            ),
        })
    }
}

/// The error for level geometry on a body that moves.
fn level_on_moving_body(kind: BodyKind) -> Error {
    Error::InvalidInput {
        what: "collider shape",
        value: format!("a triangle mesh or heightfield on a {kind:?} body"),
        fix: "level geometry is static and has no mass: put it on a RigidBody::fixed() body",
    }
}

/// A damping: the fraction of velocity kept per second, in (0, 1].
pub(crate) fn check_damping(what: &'static str, d: f32) -> Result<()> {
    if !(d > 0.0 && d <= 1.0) {
        return Err(Error::InvalidInput {
            what,
            value: format!("{d}"),
            fix: "pass the fraction of velocity kept per second, in (0, 1]",
        });
    }
    Ok(())
}

pub(crate) fn unit_quat(what: &'static str, q: Quat) -> Result<Vec4> {
    let v = from_quat(q);
    if !v.is_finite() || v.length_squared() < 1e-12 {
        return Err(Error::InvalidInput {
            what,
            value: format!("{q:?}"),
            fix: "pass a finite, non-zero quaternion (it is normalized for you)",
        });
    }
    Ok(quat_normalize(v))
}

/// A rigid body's description. Build with [`RigidBody::dynamic`], [`RigidBody::fixed`] or
/// [`RigidBody::kinematic`], then chain setters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidBody {
    /// How it moves.
    pub kind: BodyKind,
    /// The body's origin in the world: the point its colliders, joint frames and generator
    /// points are placed from (its centre of mass is wherever its colliders put it; see
    /// [`crate::rigid::mass`]).
    pub position: Vec3,
    /// Orientation.
    pub rotation: Quat,
    /// Linear velocity.
    pub linear_velocity: Vec3,
    /// Angular velocity (world).
    pub angular_velocity: Vec3,
    /// An explicit mass (dynamic bodies; > 0), or `None` (the default) for the colliders'
    /// volume times their density (see [`crate::rigid::mass`]).
    pub mass: Option<f32>,
    /// Inertia tensor about the centre of mass, in the body's axes; `None` derives it from the
    /// colliders and the mass.
    pub inertia: Option<Mat3>,
    /// An explicit centre of mass in the body's frame (dynamic bodies); `None` (the default)
    /// for the colliders' (see [`crate::rigid::mass`]).
    pub centre_of_mass: Option<Vec3>,
    /// Linear damping: the fraction of linear velocity kept per second, in (0, 1] (1 = none;
    /// default 0.99). Not a rate: rapier's linear damping c corresponds to about e^(−c).
    pub linear_damping: f32,
    /// Angular damping: the fraction of angular velocity kept per second, in (0, 1] (1 = none;
    /// default 0.99). Not a rate: rapier's angular damping c corresponds to about e^(−c).
    pub angular_damping: f32,
    /// Constant acceleration; `None` uses the world's gravity.
    pub acceleration: Option<Vec3>,
    /// Whether the body may fall asleep.
    pub can_sleep: bool,
    /// Continuous collision for a fast body (its spheres, boxes, capsules and hulls; `rigid::ccd`).
    pub ccd: bool,
    /// Start asleep (levels may start at rest).
    pub asleep: bool,
    /// Fracture: the breaking impulse (N·s) and the burst speed (m/s) of a breakable box (see
    /// [`RigidBody::breakable`]); `None`: the body does not break.
    pub breaking: Option<(f32, f32)>,
    /// The density (kg/m³, > 0) of the body's colliders that set none of their own, or `None`
    /// for [`crate::rigid::mass::DEFAULT_DENSITY`] (1 kg/m³, as rapier's); see
    /// [`RigidBody::density`].
    pub density: Option<f32>,
}

impl RigidBody {
    fn of(kind: BodyKind) -> Self {
        Self {
            kind,
            position: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            linear_velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            mass: None,
            inertia: None,
            centre_of_mass: None,
            linear_damping: 0.99,
            angular_damping: 0.99,
            acceleration: None,
            can_sleep: true,
            ccd: false,
            asleep: false,
            breaking: None,
            density: None,
        }
    }
    /// A dynamic body at the origin, its mass its colliders' volume times their density (1
    /// kg/m³ unless set; see [`crate::rigid::mass`]).
    #[must_use]
    pub fn dynamic() -> Self {
        Self::of(BodyKind::Dynamic)
    }
    /// A static body.
    #[must_use]
    pub fn fixed() -> Self {
        Self::of(BodyKind::Static)
    }
    /// A kinematic body.
    #[must_use]
    pub fn kinematic() -> Self {
        Self::of(BodyKind::Kinematic)
    }
    /// Sets the position.
    #[must_use]
    pub fn position(mut self, p: Vec3) -> Self {
        self.position = p;
        self
    }
    /// Sets the orientation.
    #[must_use]
    pub fn rotation(mut self, q: Quat) -> Self {
        self.rotation = q;
        self
    }
    /// Sets the linear velocity.
    #[must_use]
    pub fn velocity(mut self, v: Vec3) -> Self {
        self.linear_velocity = v;
        self
    }
    /// Sets the angular velocity.
    #[must_use]
    pub fn angular_velocity(mut self, w: Vec3) -> Self {
        self.angular_velocity = w;
        self
    }
    /// Sets the mass explicitly (and forgets a density set before): the inertia is then the
    /// colliders' scaled to this mass, unless set with [`RigidBody::inertia`]. It stays as set
    /// when colliders are added, removed or changed.
    #[must_use]
    pub fn mass(mut self, m: f32) -> Self {
        self.mass = Some(m);
        self.density = None;
        self
    }
    /// Fills the body's colliders (those without a density of their own,
    /// [`Collider::density`]) at `density` kg/m³ (> 0; water 1000, wood about 600, steel 7850)
    /// instead of the default 1 kg/m³, and forgets a mass set before: the body weighs the sum of
    /// its solid colliders' volume times density (see [`crate::rigid::mass`]).
    #[must_use]
    pub fn density(mut self, density: f32) -> Self {
        self.density = Some(density);
        self.mass = None;
        self
    }
    /// Sets the inertia tensor explicitly: about the centre of mass, in the body's axes.
    #[must_use]
    pub fn inertia(mut self, i: Mat3) -> Self {
        self.inertia = Some(i);
        self
    }
    /// Sets the centre of mass explicitly, in the body's frame (a car's low centre, a
    /// weighted toy), instead of the colliders' mass-weighted centre; a derived inertia is then
    /// taken about it. It stays as set when colliders change. Static and kinematic bodies
    /// ignore it.
    #[must_use]
    pub fn centre_of_mass(mut self, local: Vec3) -> Self {
        self.centre_of_mass = Some(local);
        self
    }
    /// Sets linear and angular damping: the fraction of velocity kept per second, each in
    /// (0, 1] (1 = none; the default is 0.99). Not a rate: rapier's linear damping c
    /// corresponds to about e^(−c), so rapier's `linear_damping(0.5)` is
    /// `damping((-0.5f32).exp(), ..)` here.
    #[must_use]
    pub fn damping(mut self, linear: f32, angular: f32) -> Self {
        self.linear_damping = linear;
        self.angular_damping = angular;
        self
    }
    /// Sets a constant acceleration instead of the world's gravity.
    #[must_use]
    pub fn acceleration(mut self, a: Vec3) -> Self {
        self.acceleration = Some(a);
        self
    }
    /// Allows or forbids sleeping.
    #[must_use]
    pub fn can_sleep(mut self, yes: bool) -> Self {
        self.can_sleep = yes;
        self
    }
    /// Turns continuous collision on (for fast small bodies: see `rigid::ccd`).
    #[must_use]
    pub fn ccd(mut self, yes: bool) -> Self {
        self.ccd = yes;
        self
    }
    /// Makes the body breakable (catalogue §14.2, [`super::fracture`]): a contact that strikes it
    /// with more than `impulse` (N·s) over a step splits it into 8 boxes, which fly apart at
    /// `burst` m/s (the book's demo: 10) and break again under the same impulse while their
    /// smallest half size is at least [`super::fracture::MIN_PIECE_HALF`]. The body must be
    /// dynamic with one box collider at its centre.
    #[must_use]
    pub fn breakable(mut self, impulse: f32, burst: f32) -> Self {
        self.breaking = Some((impulse, burst));
        self
    }

    /// Starts the body asleep.
    #[must_use]
    pub fn asleep(mut self, yes: bool) -> Self {
        self.asleep = yes;
        self
    }

    /// What the user set of the body's mass properties, checked.
    pub(crate) fn mass_spec(&self) -> Result<MassSpec> {
        if let Some(d) = self.density {
            check_density("body density", d)?;
        }
        Ok(MassSpec {
            mass: self.mass,
            inertia: self.inertia,
            density: self.density.unwrap_or(DEFAULT_DENSITY),
            centre: self.centre_of_mass,
        })
    }

    /// The GPU record of this body with its colliders, validated, and its centre of mass in
    /// its frame (zero for static and kinematic bodies). The record's position is the centre's
    /// (see [`crate::rigid::mass`]); the colliders' offsets are to be taken from it.
    pub(crate) fn to_gpu(
        self,
        colliders: &[Collider],
        gravity: Vec3,
        sleep_epsilon: f32,
    ) -> Result<(GpuBody, Vec3)> {
        finite3("body position", self.position)?;
        finite3("body linear velocity", self.linear_velocity)?;
        finite3("body angular velocity", self.angular_velocity)?;
        let q = unit_quat("body rotation", self.rotation)?;
        check_damping("body linear damping", self.linear_damping)?;
        check_damping("body angular damping", self.angular_damping)?;
        let acc = self.acceleration.unwrap_or(gravity);
        finite3("body acceleration", acc)?;
        if let Some((impulse, burst)) = self.breaking {
            positive("body breaking impulse", impulse)?;
            non_negative("body burst speed", burst)?;
            let one_box = matches!(
                colliders,
                [c] if matches!(c.shape, Shape::Cuboid { .. })
                    && c.offset == Vec3::ZERO
                    && c.rotation == Quat::IDENTITY
            );
            if self.kind != BodyKind::Dynamic || !one_box {
                return Err(Error::InvalidInput {
                    what: "breakable body",
                    value: format!("a {:?} body with {} colliders", self.kind, colliders.len()),
                    fix: "make a breakable body dynamic, with one box collider at its centre \
                          (Collider::cuboid without an offset or rotation)",
                });
            }
            if self.centre_of_mass.is_some_and(|c| c != Vec3::ZERO) {
                return Err(Error::InvalidInput {
                    what: "breakable body",
                    value: format!("centre of mass set at {:?}", self.centre_of_mass),
                    fix: "a breakable box splits about its centre: leave its centre of mass \
                          unset (or at the origin)",
                });
            }
        }
        if self.kind != BodyKind::Static && colliders.iter().any(|c| c.shape.is_level()) {
            return Err(level_on_moving_body(self.kind));
        }
        let spec = self.mass_spec()?;
        let (inv_mass, inv_inertia, centre) = match self.kind {
            BodyKind::Dynamic => {
                // A bad shape is named as itself (a zero-size box is its size, not a missing
                // inertia).
                for c in colliders {
                    c.shape.validate()?;
                    if let Some(d) = c.density {
                        check_density("collider density", d)?;
                    }
                }
                let parts: Vec<ShapeMass> = colliders.iter().map(Collider::mass_part).collect();
                let props = mass_properties(&spec, &parts)?;
                (1.0 / props.mass, props.inv_inertia, props.centre)
            }
            BodyKind::Static | BodyKind::Kinematic => (0.0, Mat3::ZERO, Vec3::ZERO),
        };
        let inv_inertia = cols_of(inv_inertia);
        let kind = match self.kind {
            BodyKind::Dynamic => body_kind::DYNAMIC,
            BodyKind::Static => body_kind::STATIC,
            BodyKind::Kinematic => body_kind::KINEMATIC,
        };
        let (lin, ang) = if self.kind == BodyKind::Static {
            (Vec3::ZERO, Vec3::ZERO)
        } else {
            (self.linear_velocity, self.angular_velocity)
        };
        let at = self.position + super::math::quat_rotate(q, centre);
        finite3("body centre of mass in the world", at)?;
        let record = GpuBody {
            pos: at.extend(inv_mass),
            orient: q,
            lin_vel: lin.extend(self.linear_damping),
            ang_vel: ang.extend(self.angular_damping),
            inv_inertia,
            inv_inertia_world: super::integrate::world_inverse_inertia(q, &inv_inertia),
            force: Vec4::ZERO,
            torque: Vec4::ZERO,
            acc: acc.extend(self.breaking.map_or(0.0, |b| b.0)),
            last_acc: Vec4::new(0.0, 0.0, 0.0, 2.0 * sleep_epsilon),
            kind,
            awake: u32::from(!self.asleep && self.kind != BodyKind::Static),
            can_sleep: u32::from(self.can_sleep),
            flags: u32::from(self.ccd),
        };
        Ok((record, centre))
    }
}

/// A body in a [`super::RigidWorld`]: its slot and the generation of that slot, so a handle of
/// a removed body is refused rather than reaching the slot's next owner.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BodyHandle {
    pub(crate) index: u32,
    pub(crate) generation: u32,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) world: u32,
}

impl BodyHandle {
    /// The body's slot: its index in the GPU `bodies` buffer and in [`super::RigidWorld::read_bodies`].
    pub fn index(&self) -> u32 {
        self.index
    }
}

/// A collider in a [`super::RigidWorld`]: its shape slot (its index in the GPU `shapes`
/// buffer), the generation of that slot and the world's tag, so a handle of a removed collider
/// (or of a collider of a removed body) or of another world is refused as
/// [`Error::StaleHandle`] with `kind: "collider"` rather than reaching the slot's next owner.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ColliderHandle {
    pub(crate) index: u32,
    pub(crate) generation: u32,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) world: u32,
}

impl ColliderHandle {
    /// The collider's shape slot: its index in the GPU `shapes` buffer.
    pub fn index(&self) -> u32 {
        self.index
    }
}

pub use super::config::RigidConfig;
