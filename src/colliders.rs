//! Static colliders (half-spaces, spheres, oriented boxes) that particles and aggregate
//! particles bounce off, rest on and slide along: as a user describes them ([`ParticleCollider`]) and
//! as the GPU's uniform table holds them ([`GpuCollider`]), with the CPU twins of the contact
//! functions in `shaders/common/colliders.wgsl`. The particle and aggregate worlds both use
//! them.

use crate::error::{finite, finite3, non_negative, positive, Error, Result};
use crate::gpu::layout::gpu_struct;
use crate::rounding as fm;
use bytemuck::{Pod, Zeroable};
use glam::{Quat, Vec3, Vec4, Vec4Swizzles};

/// Most static colliders a particle world holds (a uniform table of 64-byte entries: 16 KiB,
/// the most a uniform binding may take on every wgpu backend).
pub const MAX_COLLIDERS: u32 = 256;

/// [`GpuCollider::kind`] values (the WGSL writes them as literals).
pub mod collider_kind {
    /// A half-space: normal and offset in `a`.
    pub const HALF_SPACE: u32 = 1;
    /// A sphere: centre and radius in `a`.
    pub const SPHERE: u32 = 2;
    /// An oriented box: centre in `a`, half extents in `b`, rotation in `q`.
    pub const BOX: u32 = 3;
}

gpu_struct! {
    /// A static collider. 64 bytes. `kind`: a [`collider_kind`].
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuCollider as "Collider" {
        /// ParticleCollider kind.
        pub kind: u32,
        /// Coefficient of restitution.
        pub restitution: f32,
        /// Coulomb friction coefficient.
        pub friction: f32,
        /// Padding.
        pub _pad: u32,
        /// Half-space: normal and offset; sphere: centre and radius; box: centre.
        pub a: Vec4,
        /// Box half extents.
        pub b: Vec4,
        /// Box orientation (x, y, z, w).
        pub q: Vec4,
    }
}

/// The shape of a static collider.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ColliderShape {
    /// Solid below the plane n·p = offset (n is normalised for you).
    HalfSpace {
        /// Outward normal.
        normal: Vec3,
        /// Plane offset along the normal.
        offset: f32,
    },
    /// Solid sphere.
    Sphere {
        /// Centre.
        centre: Vec3,
        /// Radius (> 0).
        radius: f32,
    },
    /// Solid oriented box.
    Box {
        /// Centre.
        centre: Vec3,
        /// Half extents (each > 0).
        half_extents: Vec3,
        /// Orientation.
        rotation: Quat,
    },
}

/// A static collider with its material.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ParticleCollider {
    /// Its shape.
    pub shape: ColliderShape,
    /// Coefficient of restitution in [0, 1].
    pub restitution: f32,
    /// Coulomb friction coefficient (>= 0).
    pub friction: f32,
}

impl ParticleCollider {
    /// The ground plane y = 0, solid below, with Coulomb `friction` (>= 0) and coefficient of
    /// `restitution` (in [0, 1]), in that order: friction first, restitution second, like the
    /// rigid [`crate::rigid::Collider::material`] and rapier's `ColliderBuilder`.
    ///
    /// ```
    /// let ground = wgphys::particles::ParticleCollider::ground(0.3, 0.5); // friction, restitution
    /// assert_eq!((ground.friction, ground.restitution), (0.3, 0.5));
    /// ```
    #[must_use]
    pub fn ground(friction: f32, restitution: f32) -> Self {
        Self {
            shape: ColliderShape::HalfSpace {
                normal: Vec3::Y,
                offset: 0.0,
            },
            restitution,
            friction,
        }
    }

    pub(crate) fn to_gpu(self) -> Result<GpuCollider> {
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(Error::InvalidInput {
                what: "collider.restitution",
                value: format!("{}", self.restitution),
                fix: "pass a coefficient of restitution in [0, 1]",
            });
        }
        non_negative("collider.friction", self.friction)?;
        let base = GpuCollider {
            restitution: self.restitution,
            friction: self.friction,
            ..Default::default()
        };
        Ok(match self.shape {
            ColliderShape::HalfSpace { normal, offset } => {
                finite3("collider.normal", normal)?;
                finite("collider.offset", offset)?;
                let n = normal.try_normalize().ok_or(Error::InvalidInput {
                    what: "collider.normal",
                    value: format!("{normal:?}"),
                    fix: "pass a non-zero normal",
                })?;
                GpuCollider {
                    kind: collider_kind::HALF_SPACE,
                    a: n.extend(offset),
                    ..base
                }
            }
            ColliderShape::Sphere { centre, radius } => {
                finite3("collider.centre", centre)?;
                positive("collider.radius", radius)?;
                GpuCollider {
                    kind: collider_kind::SPHERE,
                    a: centre.extend(radius),
                    ..base
                }
            }
            ColliderShape::Box {
                centre,
                half_extents,
                rotation,
            } => {
                finite3("collider.centre", centre)?;
                finite3("collider.half_extents", half_extents)?;
                if half_extents.min_element() <= 0.0 {
                    return Err(Error::InvalidInput {
                        what: "collider.half_extents",
                        value: format!("{half_extents:?}"),
                        fix: "every half extent must be > 0",
                    });
                }
                let q = Vec4::from(rotation);
                if !q.is_finite() || q.length_squared() < 1e-12 {
                    return Err(Error::InvalidInput {
                        what: "collider.rotation",
                        value: format!("{rotation:?}"),
                        fix: "pass a finite, non-zero quaternion",
                    });
                }
                GpuCollider {
                    kind: collider_kind::BOX,
                    a: centre.extend(0.0),
                    b: half_extents.extend(0.0),
                    q: q.normalize(),
                    ..base
                }
            }
        })
    }
}

/// The colliders as the GPU tables hold them (the particle and the aggregate worlds), at most
/// [`MAX_COLLIDERS`].
pub(crate) fn colliders_to_gpu(colliders: &[ParticleCollider]) -> Result<Vec<GpuCollider>> {
    if colliders.len() > MAX_COLLIDERS as usize {
        return Err(Error::TooMany {
            what: "colliders",
            count: colliders.len(),
            max: MAX_COLLIDERS,
            fix: "the collider table is a uniform array of MAX_COLLIDERS entries: merge \
                  colliders (one box for a row of them), or use rigid bodies for large scenes",
        });
    }
    colliders.iter().map(|c| c.to_gpu()).collect()
}

fn quat_rotate(q: Vec4, v: Vec3) -> Vec3 {
    let t = 2.0 * fm::cross(q.xyz(), v);
    fm::madd3(t, q.w, v) + fm::cross(q.xyz(), t)
}

/// A half-space's penetration of a sphere of radius `r` at `p` (twin of `half_space_depth` in
/// colliders.wgsl): the one expression [`collider_contact`] and [`collider_in_reach`] evaluate.
fn half_space_depth(c: &GpuCollider, p: Vec3, r: f32) -> f32 {
    r - (fm::dot(c.a.xyz(), p) - c.a.w)
}

/// Slack of [`collider_in_reach`]'s distance tests on the squared distance: 1 + 2^-9, so 0.1%
/// of the distance. The contact's own distance differs from the test's by a few roundings (a
/// square root, a dot product a compiler may fuse, for a box a rotation by a unit quaternion),
/// each a few 1e-7 of the distance; the slack is a thousand times that, and exact in binary.
/// The GPU's `collider_in_reach` (colliders.wgsl) reads the same value, written into its module.
pub const REACH_SLACK: f32 = 1.0 + 1.0 / 512.0;

/// [`REACH_SLACK`] as a WGSL declaration, for the modules that include colliders.wgsl.
pub(crate) fn reach_slack_source() -> String {
    format!("const REACH_SLACK: f32 = {REACH_SLACK:?};\n")
}

/// Whether collider `c` may touch a sphere of radius `r` at `p` within `slop` (twin of
/// `collider_in_reach` in colliders.wgsl): false only where [`collider_contact`] gives a depth of
/// −slop or less, so skipping the colliders it refuses leaves the same bits. A half-space:
/// its depth above −slop. A sphere: the centre within radius + r + slop; a box: within the
/// half-extents' length (the farthest any point of the box is from its centre) + r + slop;
/// both with [`REACH_SLACK`] on the squared distance.
pub fn collider_in_reach(c: &GpuCollider, p: Vec3, r: f32, slop: f32) -> bool {
    if c.kind == collider_kind::HALF_SPACE {
        return half_space_depth(c, p, r) > -slop;
    }
    let bound = if c.kind == collider_kind::SPHERE {
        c.a.w
    } else {
        fm::length(c.b.xyz())
    };
    let d = p - c.a.xyz();
    let ext = bound + r + slop;
    fm::dot(d, d) <= ext * ext * REACH_SLACK
}

/// Penetration (w, positive when overlapping) and outward normal (xyz) of a sphere of radius `r`
/// at `p` against a collider.
pub fn collider_contact(c: &GpuCollider, p: Vec3, r: f32) -> Vec4 {
    if c.kind == collider_kind::HALF_SPACE {
        return c.a.xyz().extend(half_space_depth(c, p, r));
    }
    if c.kind == collider_kind::SPHERE {
        let d = p - c.a.xyz();
        let len = fm::length(d);
        let mut n = Vec3::Y;
        if len > 0.0 {
            n = fm::div3(d, len);
        }
        return n.extend(c.a.w + r - len);
    }
    let conj = Vec4::new(-c.q.x, -c.q.y, -c.q.z, c.q.w);
    let lp = quat_rotate(conj, p - c.a.xyz());
    let h = c.b.xyz();
    let closest = lp.clamp(-h, h);
    let diff = lp - closest;
    let dist = fm::length(diff);
    if dist > 0.0 {
        return quat_rotate(c.q, fm::div3(diff, dist)).extend(r - dist);
    }
    let depth = h - lp.abs();
    let mut axis = 0usize;
    if depth.y < depth.x {
        axis = 1;
    }
    if depth[2] < depth[axis] {
        axis = 2;
    }
    let mut n_local = Vec3::ZERO;
    n_local[axis] = if lp[axis] >= 0.0 { 1.0 } else { -1.0 };
    quat_rotate(c.q, n_local).extend(depth[axis] + r)
}

/// Pushes a sphere out of a collider and applies restitution (with the resting-contact fix)
/// and Coulomb friction (twin of `resolve_contact` in colliders.wgsl).
pub fn resolve_contact(
    p: &mut Vec3,
    v: &mut Vec3,
    c: &GpuCollider,
    contact: Vec4,
    acc_total: Vec3,
    dt: f32,
) {
    let n = contact.xyz();
    let pen = contact.w;
    if pen > 0.0 {
        *p = fm::madd3(n, pen, *p);
    }
    let vn = fm::dot(*v, n);
    if vn < 0.0 {
        let mut new_vn = -c.restitution * vn;
        let acc_vn = fm::dot(acc_total, n) * dt;
        if acc_vn < 0.0 {
            new_vn = fm::madd(c.restitution, acc_vn, new_vn).max(0.0);
        }
        let vt = fm::madd3(n, -vn, *v);
        let vt_len = fm::length(vt);
        let mut scale = 0.0;
        if vt_len > 0.0 {
            scale = fm::div(fm::madd(-c.friction, new_vn - vn, vt_len).max(0.0), vt_len);
        }
        *v = fm::madd3(vt, scale, n * new_vn);
    }
}
