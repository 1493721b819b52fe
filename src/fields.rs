//! Force fields (book ch. 5's generators that act on every particle): gravity, drag, wind,
//! an attractor, curl-noise turbulence and a vortex, as a user describes them
//! ([`ForceField`]) and as the GPU's uniform table holds them ([`GpuField`]), with the CPU
//! twin of `field_accel_one` in `shaders/common/fields.wgsl`. The particle and aggregate
//! worlds both use them.

use crate::error::{finite, finite3, non_negative, positive, Error, Result};
use crate::gpu::layout::gpu_struct;
use crate::rounding as fm;
use bytemuck::{Pod, Zeroable};
use glam::{Vec3, Vec4, Vec4Swizzles};

/// Force fields a world can hold (uniform array length).
pub const MAX_FIELDS: u32 = 16;
/// The bits of [`GpuField::kind`] that hold the field's kind; above them
/// ([`FIELD_EMITTER_SHIFT`]), 0 for a field acting on every particle, or 1 + the emitter slot
/// of a local field ([`crate::particles::Emitter::fields`]) that acts only on that emitter's particles.
pub const FIELD_KIND_MASK: u32 = 0xff;
/// Where a field's emitter tag starts in [`GpuField::kind`].
pub const FIELD_EMITTER_SHIFT: u32 = 8;
/// [`GpuField::kind`] of curl-noise turbulence (its low byte).
pub const FIELD_KIND_TURBULENCE: u32 = 5;

gpu_struct! {
    /// A force field. 48 bytes. `kind` (its low byte, [`FIELD_KIND_MASK`]): 1 gravity, 2 drag,
    /// 3 wind, 4 attractor, 5 turbulence, 6 vortex; above it ([`FIELD_EMITTER_SHIFT`]) 0, or 1 +
    /// the emitter slot of a local field.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuField as "Field" {
        /// Field kind.
        pub kind: u32,
        /// Linear drag coefficient (drag, wind).
        pub k1: f32,
        /// Quadratic drag coefficient (drag, wind).
        pub k2: f32,
        /// Softening radius (attractor).
        pub radius: f32,
        /// Gravity: acceleration; wind: air velocity; attractor and vortex: centre and strength
        /// (w); turbulence: scroll velocity.
        pub v: Vec4,
        /// Vortex: unit axis; turbulence: the scroll's offset at the step (set each step, see
        /// [`fields_at`]).
        pub w: Vec4,
    }
}

/// Whether the first `count` fields of a field table hold turbulence (the integrate kernels
/// are compiled without its code when none does: `FIELD_TURBULENCE` in fields.wgsl).
pub(crate) fn fields_turbulent(fields: &[GpuField], count: usize) -> bool {
    fields
        .iter()
        .take(count)
        .any(|f| f.kind & FIELD_KIND_MASK == FIELD_KIND_TURBULENCE)
}

/// `fields` as a step starting at `time` seconds sees them: each turbulence field's noise
/// offset is its scroll velocity times the time (the rest are unchanged).
pub fn fields_at(
    fields: &[GpuField; MAX_FIELDS as usize],
    time: f32,
) -> [GpuField; MAX_FIELDS as usize] {
    let mut out = *fields;
    for f in out
        .iter_mut()
        .filter(|f| f.kind & FIELD_KIND_MASK == FIELD_KIND_TURBULENCE)
    {
        f.w = (f.v.truncate() * time).extend(0.0);
    }
    out
}

/// A force field acting on every particle.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ForceField {
    /// Uniform acceleration, independent of mass (m/s²).
    Gravity(Vec3),
    /// Drag force −(k1|v| + k2|v|²) v̂ (book §5.2.2).
    Drag {
        /// Linear coefficient, N·s/m.
        k1: f32,
        /// Quadratic coefficient, N·s²/m².
        k2: f32,
    },
    /// Drag against moving air: the drag law on the velocity relative to `velocity`.
    Wind {
        /// Air velocity, m/s.
        velocity: Vec3,
        /// Linear coefficient.
        k1: f32,
        /// Quadratic coefficient.
        k2: f32,
    },
    /// Softened inverse-square pull towards `centre`: a = s·d/(|d|² + r²)^{3/2}.
    Attractor {
        /// Centre, metres.
        centre: Vec3,
        /// Strength s in m³/s² (negative repels).
        strength: f32,
        /// Softening radius r, metres (> 0 keeps the pull finite at the centre).
        softening: f32,
    },
    /// Curl-noise turbulence: a = strength · curl N((p − scroll·t) / scale), N three value-noise
    /// potentials on a lattice of spacing `scale`. Divergence free (it stirs without bunching
    /// particles), deterministic (a function of position and time), mass independent.
    Turbulence {
        /// Size of the eddies (the lattice spacing), metres (> 0).
        scale: f32,
        /// Acceleration scale, m/s² (the curl's typical size is a few units).
        strength: f32,
        /// Velocity the pattern drifts with, m/s.
        scroll: Vec3,
    },
    /// A vortex around the line through `centre` along `axis`: tangential acceleration
    /// a = s·(n × d)/sqrt(|n × d|² + r²), d = p − centre: s far from the axis, 0 on it.
    Vortex {
        /// A point on the axis, metres.
        centre: Vec3,
        /// Axis direction (normalised for you; turns counter-clockwise about it for s > 0).
        axis: Vec3,
        /// Strength s, m/s².
        strength: f32,
        /// Softening radius r, metres (> 0 keeps it finite near the axis).
        softening: f32,
    },
}

/// A softening radius: positive and finite, so the field stays finite at its centre or axis.
fn softening_radius(what: &'static str, r: f32) -> Result<()> {
    if !(r > 0.0 && r.is_finite()) {
        return Err(Error::InvalidInput {
            what,
            value: format!("{r}"),
            fix: "pass a positive softening radius so the field stays finite at its centre",
        });
    }
    Ok(())
}

impl ForceField {
    /// The field given in a frame at `position` turned by `rotation`, in world coordinates:
    /// points (centres) are moved and turned, directions (gravity, wind, the vortex axis, the
    /// turbulence scroll) turned; drag and the turbulence lattice do not depend on the frame.
    #[must_use]
    pub fn in_frame(self, position: Vec3, rotation: glam::Quat) -> ForceField {
        let point = |p: Vec3| position + rotation * p;
        match self {
            Self::Gravity(g) => Self::Gravity(rotation * g),
            Self::Drag { .. } => self,
            Self::Wind { velocity, k1, k2 } => Self::Wind {
                velocity: rotation * velocity,
                k1,
                k2,
            },
            Self::Attractor {
                centre,
                strength,
                softening,
            } => Self::Attractor {
                centre: point(centre),
                strength,
                softening,
            },
            Self::Turbulence {
                scale,
                strength,
                scroll,
            } => Self::Turbulence {
                scale,
                strength,
                scroll: rotation * scroll,
            },
            Self::Vortex {
                centre,
                axis,
                strength,
                softening,
            } => Self::Vortex {
                centre: point(centre),
                axis: rotation * axis,
                strength,
                softening,
            },
        }
    }

    pub(crate) fn to_gpu(self) -> Result<GpuField> {
        Ok(match self {
            Self::Gravity(g) => {
                finite3("field.gravity", g)?;
                GpuField {
                    kind: 1,
                    v: g.extend(0.0),
                    ..Default::default()
                }
            }
            Self::Drag { k1, k2 } => {
                non_negative("field.drag.k1", k1)?;
                non_negative("field.drag.k2", k2)?;
                GpuField {
                    kind: 2,
                    k1,
                    k2,
                    ..Default::default()
                }
            }
            Self::Wind { velocity, k1, k2 } => {
                finite3("field.wind.velocity", velocity)?;
                non_negative("field.wind.k1", k1)?;
                non_negative("field.wind.k2", k2)?;
                GpuField {
                    kind: 3,
                    k1,
                    k2,
                    v: velocity.extend(0.0),
                    ..Default::default()
                }
            }
            Self::Attractor {
                centre,
                strength,
                softening,
            } => {
                finite3("field.attractor.centre", centre)?;
                finite("field.attractor.strength", strength)?;
                softening_radius("field.attractor.softening", softening)?;
                GpuField {
                    kind: 4,
                    radius: softening,
                    v: centre.extend(strength),
                    ..Default::default()
                }
            }
            Self::Turbulence {
                scale,
                strength,
                scroll,
            } => {
                positive("field.turbulence.scale", scale)?;
                finite("field.turbulence.strength", strength)?;
                finite3("field.turbulence.scroll", scroll)?;
                GpuField {
                    kind: 5,
                    k1: 1.0 / scale,
                    k2: strength,
                    v: scroll.extend(0.0),
                    ..Default::default()
                }
            }
            Self::Vortex {
                centre,
                axis,
                strength,
                softening,
            } => {
                finite3("field.vortex.centre", centre)?;
                finite3("field.vortex.axis", axis)?;
                finite("field.vortex.strength", strength)?;
                let n = axis.normalize_or_zero();
                if n == Vec3::ZERO {
                    return Err(Error::InvalidInput {
                        what: "field.vortex.axis",
                        value: format!("{axis}"),
                        fix: "pass a non-zero axis direction",
                    });
                }
                softening_radius("field.vortex.softening", softening)?;
                GpuField {
                    kind: 6,
                    radius: softening,
                    v: centre.extend(strength),
                    w: n.extend(0.0),
                    ..Default::default()
                }
            }
        })
    }
}

/// Acceleration one force field gives a particle (twin of `field_accel_one` in fields.wgsl).
pub fn field_accel_one(fld: &GpuField, p: Vec3, v: Vec3, inv_mass: f32) -> Vec3 {
    let kind = fld.kind & FIELD_KIND_MASK;
    if kind == 1 {
        return fld.v.xyz();
    }
    if kind == 2 || kind == 3 {
        let mut u = v;
        if kind == 3 {
            u = v - fld.v.xyz();
        }
        let speed = fm::length(u);
        if speed > 0.0 {
            let mag = fm::madd(fld.k2 * speed, speed, fld.k1 * speed);
            return -u * fm::div(mag, speed) * inv_mass;
        }
        return Vec3::ZERO;
    }
    if kind == 4 {
        let d = fld.v.xyz() - p;
        let r2 = fm::madd(fld.radius, fld.radius, fm::dot(d, d));
        return d * fm::div(fld.v.w, r2 * fm::sqrt(r2));
    }
    if kind == 5 {
        return crate::noise::curl_noise((p - fld.w.xyz()) * fld.k1) * fld.k2;
    }
    if kind == 6 {
        let t = fm::cross(fld.w.xyz(), p - fld.v.xyz());
        return t * fm::div(
            fld.v.w,
            fm::sqrt(fm::madd(fld.radius, fld.radius, fm::dot(t, t))),
        );
    }
    Vec3::ZERO
}
