//! The force generators a world can attach ([`ForceGen`]), checked and turned into the
//! [`GpuForceGen`] record the `generators` stage reads.

use crate::error::{finite, finite3, non_negative, Error, Result};
use crate::rigid::math::from_quat;
use crate::rigid::model::BodyHandle;
use crate::rigid::types::{force_gen_kind as kind, GpuForceGen, NONE};
use glam::{Mat3, Quat, Vec3, Vec4};

/// A force generator (catalogue §7, §8): what it is, the bodies it acts on and its parameters.
/// Points on a body are in the body's frame, anchors and the wind in the world's. Attach one
/// with [`crate::rigid::RigidWorld::add_force_generator`].
///
/// The aerodynamic kinds give f = A·v in the surface's frame, v the velocity of the attachment
/// point relative to the air (the point's velocity minus the wind), so a tensor with negative
/// diagonal drags. The book adds the wind to the body's velocity instead (catalogue §20,
/// erratum 12): with its sign a wind pushes a body upwind.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ForceGen {
    /// A spring between a point of body `a` and a point of body `b`: each end is pulled
    /// towards the other by k·(l − l₀) (pushed apart when compressed, catalogue §20 erratum 1).
    /// It acts on both bodies, each through its own side.
    Spring {
        /// First body.
        a: BodyHandle,
        /// Its end, in a's frame.
        point_a: Vec3,
        /// Second body.
        b: BodyHandle,
        /// Its end, in b's frame.
        point_b: Vec3,
        /// Stiffness k, N/m (≥ 0).
        stiffness: f32,
        /// Rest length l₀, m (≥ 0).
        rest_length: f32,
    },
    /// A spring from a point of `body` to an anchor in the world (the book's camera spring),
    /// which [`crate::rigid::RigidWorld::set_generator_anchor`] moves between steps.
    AnchoredSpring {
        /// The body.
        body: BodyHandle,
        /// Its end, in the body's frame.
        point: Vec3,
        /// The anchor, in the world.
        anchor: Vec3,
        /// Stiffness k, N/m (≥ 0).
        stiffness: f32,
        /// Rest length l₀, m (≥ 0).
        rest_length: f32,
    },
    /// An aerodynamic tensor in body space at an attachment point (catalogue §8, `Aero`).
    Aero {
        /// The body.
        body: BodyHandle,
        /// A, body space.
        tensor: Mat3,
        /// Where the force acts, body space.
        point: Vec3,
        /// The air's velocity in the world, m/s.
        wind: Vec3,
    },
    /// A control surface (catalogue §8, `AeroControl`): the tensor is `base` at control 0,
    /// interpolated towards `min` as the control goes to −1 (by −c) and towards `max` as it goes
    /// to 1 (by c).
    AeroControl {
        /// The body.
        body: BodyHandle,
        /// The tensor at control −1.
        min: Mat3,
        /// The tensor at control 0.
        base: Mat3,
        /// The tensor at control 1.
        max: Mat3,
        /// Where the force acts, body space.
        point: Vec3,
        /// The air's velocity in the world, m/s.
        wind: Vec3,
        /// The control, in [−1, 1].
        control: f32,
    },
    /// A surface with its own orientation relative to the body (catalogue §8, `AngledAero`:
    /// a sail, a rudder): the tensor acts in the surface's frame.
    AngledAero {
        /// The body.
        body: BodyHandle,
        /// A, in the surface's frame.
        tensor: Mat3,
        /// The surface's rotation relative to the body.
        orientation: Quat,
        /// Where the force acts, body space.
        point: Vec3,
        /// The air's velocity in the world, m/s.
        wind: Vec3,
    },
    /// Buoyancy at a centre of buoyancy fixed in the body (catalogue §8 and §4.2 with the
    /// errata's corrected depth): out of the liquid above `water_height + max_depth`, fully
    /// submerged below `water_height − max_depth`, linear between; fully submerged it lifts
    /// with the weight of the displaced liquid, ρ·V·g (the book prints ρ·V, without g). Use
    /// several per body for the centre of buoyancy to shift as the body tilts.
    Buoyancy {
        /// The body.
        body: BodyHandle,
        /// The centre of buoyancy, body space.
        centre: Vec3,
        /// Half the depth over which the volume goes under, m (> 0).
        max_depth: f32,
        /// The volume, m³ (> 0).
        volume: f32,
        /// The liquid's surface height (y), m.
        water_height: f32,
        /// The liquid's density, kg/m³ (> 0; water 1000).
        density: f32,
    },
    /// A force fixed in the body's frame, acting at a body point: propulsion (the book
    /// hard-codes it in the flight demo; mini-project 11.1 makes it a generator), a throttle
    /// set between steps with [`crate::rigid::RigidWorld::set_generator_thrust`].
    Thrust {
        /// The body.
        body: BodyHandle,
        /// The force, body frame, N.
        force: Vec3,
        /// Where it acts, body frame.
        point: Vec3,
    },
}

fn positive(what: &'static str, v: f32, fix: &'static str) -> Result<()> {
    if v > 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(Error::InvalidInput {
            what,
            value: format!("{v}"),
            fix,
        })
    }
}

fn tensor(what: &'static str, m: Mat3) -> Result<[Vec4; 3]> {
    if m.is_finite() {
        Ok([
            m.x_axis.extend(0.0),
            m.y_axis.extend(0.0),
            m.z_axis.extend(0.0),
        ])
    } else {
        Err(Error::InvalidInput {
            what,
            value: format!("{m:?}"),
            fix: "pass a tensor of finite entries (not NaN or infinity)",
        })
    }
}

/// Checks a control setting: finite and in [−1, 1].
pub(crate) fn check_control(c: f32) -> Result<()> {
    if (-1.0..=1.0).contains(&c) {
        Ok(())
    } else {
        Err(Error::InvalidInput {
            what: "force generator control",
            value: format!("{c}"),
            fix: "pass a control in [-1, 1] (-1: the min tensor, 0: the base, 1: the max)",
        })
    }
}

/// Checks a surface orientation and normalizes it.
pub(crate) fn check_orientation(q: Quat) -> Result<Vec4> {
    let l = q.length();
    if q.is_finite() && l > 1e-6 {
        Ok(from_quat(q / l))
    } else {
        Err(Error::InvalidInput {
            what: "aerodynamic surface orientation",
            value: format!("{q:?}"),
            fix: "pass a finite, non-zero quaternion (it is normalized)",
        })
    }
}

impl ForceGen {
    /// A spring between `point_a` of body `a` and `point_b` of body `b` (points in each
    /// body's frame).
    #[must_use]
    pub fn spring(
        a: BodyHandle,
        point_a: Vec3,
        b: BodyHandle,
        point_b: Vec3,
        stiffness: f32,
        rest_length: f32,
    ) -> Self {
        Self::Spring {
            a,
            point_a,
            b,
            point_b,
            stiffness,
            rest_length,
        }
    }

    /// A spring from `point` of `body` (its frame) to `anchor` (the world).
    #[must_use]
    pub fn anchored_spring(
        body: BodyHandle,
        point: Vec3,
        anchor: Vec3,
        stiffness: f32,
        rest_length: f32,
    ) -> Self {
        Self::AnchoredSpring {
            body,
            point,
            anchor,
            stiffness,
            rest_length,
        }
    }

    /// An aerodynamic tensor at `point` of `body`, in still air.
    #[must_use]
    pub fn aero(body: BodyHandle, tensor: Mat3, point: Vec3) -> Self {
        Self::Aero {
            body,
            tensor,
            point,
            wind: Vec3::ZERO,
        }
    }

    /// A control surface at `point` of `body`, in still air, its control at 0.
    #[must_use]
    pub fn aero_control(body: BodyHandle, min: Mat3, base: Mat3, max: Mat3, point: Vec3) -> Self {
        Self::AeroControl {
            body,
            min,
            base,
            max,
            point,
            wind: Vec3::ZERO,
            control: 0.0,
        }
    }

    /// A surface turned by `orientation` relative to `body`, at `point`, in still air.
    #[must_use]
    pub fn angled_aero(body: BodyHandle, tensor: Mat3, orientation: Quat, point: Vec3) -> Self {
        Self::AngledAero {
            body,
            tensor,
            orientation,
            point,
            wind: Vec3::ZERO,
        }
    }

    /// A buoyancy point of `body` in water (density 1000 kg/m³).
    #[must_use]
    pub fn buoyancy(
        body: BodyHandle,
        centre: Vec3,
        max_depth: f32,
        volume: f32,
        water_height: f32,
    ) -> Self {
        Self::Buoyancy {
            body,
            centre,
            max_depth,
            volume,
            water_height,
            density: 1000.0,
        }
    }

    /// A thrust of `force` (body frame) at `point` of `body`.
    #[must_use]
    pub fn thrust(body: BodyHandle, force: Vec3, point: Vec3) -> Self {
        Self::Thrust { body, force, point }
    }

    /// The same generator with the wind `wind` (aerodynamic kinds; others unchanged).
    #[must_use]
    pub fn with_wind(mut self, w: Vec3) -> Self {
        match &mut self {
            Self::Aero { wind, .. }
            | Self::AeroControl { wind, .. }
            | Self::AngledAero { wind, .. } => *wind = w,
            _ => {}
        }
        self
    }

    /// The bodies it acts on: the first, and a two-body spring's second.
    pub fn bodies(&self) -> (BodyHandle, Option<BodyHandle>) {
        match *self {
            Self::Spring { a, b, .. } => (a, Some(b)),
            Self::AnchoredSpring { body, .. }
            | Self::Aero { body, .. }
            | Self::AeroControl { body, .. }
            | Self::AngledAero { body, .. }
            | Self::Buoyancy { body, .. }
            | Self::Thrust { body, .. } => (body, None),
        }
    }

    /// The bodies it acts on, to rewrite (a loaded world gives its handles its own tag).
    #[cfg(feature = "serde")]
    pub(crate) fn bodies_mut(&mut self) -> [Option<&mut BodyHandle>; 2] {
        match self {
            Self::Spring { a, b, .. } => [Some(a), Some(b)],
            Self::AnchoredSpring { body, .. }
            | Self::Aero { body, .. }
            | Self::AeroControl { body, .. }
            | Self::AngledAero { body, .. }
            | Self::Buoyancy { body, .. }
            | Self::Thrust { body, .. } => [Some(body), None],
        }
    }

    /// The record of this generator acting on body slot `a` (and `b`, a spring's second), with
    /// buoyancy weighing under gravity of `g` m/s². Every value is checked first.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] naming the field: a non-finite number, a negative stiffness or
    /// rest length, a control outside [−1, 1], a zero or non-finite surface orientation, a
    /// maximum depth, volume or density that is not positive.
    pub fn to_gpu(&self, a: u32, b: Option<u32>, g: f32) -> Result<GpuForceGen> {
        let identity = Vec4::new(0.0, 0.0, 0.0, 1.0);
        let mut r = GpuForceGen {
            body_a: a,
            body_b: NONE,
            orient: identity,
            ..Default::default()
        };
        match *self {
            Self::Spring {
                point_a,
                point_b,
                stiffness,
                rest_length,
                ..
            } => {
                finite3("spring point_a", point_a)?;
                finite3("spring point_b", point_b)?;
                non_negative("spring stiffness", stiffness)?;
                non_negative("spring rest length", rest_length)?;
                r.kind = kind::SPRING;
                r.body_b = b.unwrap_or(NONE);
                r.point_a = point_a.extend(stiffness);
                r.point_b = point_b.extend(rest_length);
            }
            Self::AnchoredSpring {
                point,
                anchor,
                stiffness,
                rest_length,
                ..
            } => {
                finite3("anchored spring point", point)?;
                finite3("anchored spring anchor", anchor)?;
                non_negative("spring stiffness", stiffness)?;
                non_negative("spring rest length", rest_length)?;
                r.kind = kind::ANCHORED_SPRING;
                r.point_a = point.extend(stiffness);
                r.point_b = anchor.extend(rest_length);
            }
            Self::Aero {
                tensor: t,
                point,
                wind,
                ..
            } => {
                r.kind = kind::AERO;
                aero_common(&mut r, point, wind)?;
                r.tensor[..3].copy_from_slice(&tensor("aero tensor", t)?);
            }
            Self::AeroControl {
                min,
                base,
                max,
                point,
                wind,
                control,
                ..
            } => {
                r.kind = kind::AERO_CONTROL;
                aero_common(&mut r, point, wind)?;
                check_control(control)?;
                r.wind.w = control;
                r.tensor[..3].copy_from_slice(&tensor("aero control base tensor", base)?);
                r.tensor[3..6].copy_from_slice(&tensor("aero control min tensor", min)?);
                r.tensor[6..].copy_from_slice(&tensor("aero control max tensor", max)?);
            }
            Self::AngledAero {
                tensor: t,
                orientation,
                point,
                wind,
                ..
            } => {
                r.kind = kind::ANGLED_AERO;
                aero_common(&mut r, point, wind)?;
                r.orient = check_orientation(orientation)?;
                r.tensor[..3].copy_from_slice(&tensor("angled aero tensor", t)?);
            }
            Self::Buoyancy {
                centre,
                max_depth,
                volume,
                water_height,
                density,
                ..
            } => {
                finite3("centre of buoyancy", centre)?;
                positive(
                    "buoyancy max depth",
                    max_depth,
                    "pass a positive maximum depth: half the depth over which the volume goes \
                     under (the book's maxDepth)",
                )?;
                positive(
                    "buoyancy volume",
                    volume,
                    "pass a positive volume in m³ (the displaced volume when fully submerged)",
                )?;
                finite("water height", water_height)?;
                positive(
                    "liquid density",
                    density,
                    "pass a positive density in kg/m³ (water 1000, sea water 1025)",
                )?;
                r.kind = kind::BUOYANCY;
                r.point_a = centre.extend(max_depth);
                r.point_b = Vec3::ZERO.extend(volume);
                r.wind = Vec4::new(water_height, density, g, 0.0);
            }
            Self::Thrust { force, point, .. } => {
                finite3("thrust force", force)?;
                finite3("thrust point", point)?;
                r.kind = kind::THRUST;
                r.point_a = point.extend(0.0);
                r.point_b = force.extend(0.0);
            }
        }
        Ok(r)
    }
}

fn aero_common(r: &mut GpuForceGen, point: Vec3, wind: Vec3) -> Result<()> {
    finite3("aero attachment point", point)?;
    finite3("wind", wind)?;
    r.point_a = point.extend(0.0);
    r.wind = wind.extend(0.0);
    Ok(())
}
