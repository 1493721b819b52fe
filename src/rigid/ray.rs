//! Ray casts against every rigid shape kind (sphere, box, capsule, half-space, plane, convex
//! hull), and the
//! geometric core that the `ccd` stage reuses: a ray against a shape **inflated** by a radius is
//! a sphere swept against that shape (articles 001-A, Minkowski sum).
//!
//! The tests are the parametric-ray-into-implicit-surface substitutions of articles 002-11:
//! - sphere: the quadratic `|o + t·d − c|² = R²`; with a unit direction its leading coefficient
//!   is 1, and the discriminant is formed as `R² − |f|²` where `f = (o − c) − ((o − c)·d)·d` is
//!   the offset of the closest approach, which stays accurate for far rays (the textbook
//!   `b² − c` cancels there);
//! - half-space and plane: the ray–plane formula `t = −(n·o − w)/(n·d)` (with `z0`, not the
//!   seed's `y0`, erratum 9), a zero denominator meaning parallel;
//! - box: the slab test, in the box's frame;
//! - capsule: the union of a finite cylinder (the same quadratic restricted to the directions
//!   perpendicular to the axis) and the two end spheres;
//! - convex hull: the ray clipped by every face plane (Cyrus–Beck: the latest entry and the
//!   earliest exit over the half-spaces whose intersection the hull is; the entering face's
//!   plane gives the normal). A hull is never inflated: the `ccd` stage sweeps spheres against
//!   hulls by conservative advancement instead, so this test has no WGSL twin.
//!
//! Every test runs in the shape's local frame (the ray is rotated by the inverse of the shape's
//! world rotation; distances are preserved, so `t` is the world distance) and the normal is
//! rotated back. A ray starting inside (or on) a solid reports `t = 0` with the normal `−dir`:
//! there is no surface crossing to report, and `−dir` is the direction that leads back out the
//! way the ray came, which keeps the normal unit and well defined (a query that needs the exit
//! point casts from outside instead). The thin two-sided [`shape_kind::PLANE`] is "inside" only
//! for an origin exactly on it.
//!
//! CPU twin of the `ccd_ray_*` functions in `shaders/rigid/ccd.wgsl`: same operation order.

use glam::{UVec4, Vec3, Vec4, Vec4Swizzles};

use super::hull::{HullWords, MAX_HULL_FACES};
use super::math::{quat_mul, quat_rotate, quat_rotate_inv, QUAT_IDENTITY};
use super::types::{shape_kind, GpuBody, GpuShape, NONE};
use crate::error::{Error, Result};

/// Direction components below this are treated as parallel to a slab or axis (the direction is
/// unit, so at least one component is ≥ 0.57).
pub(crate) const PARALLEL_EPS: f32 = 1e-12;

/// A ray: an origin, a **unit** direction and the farthest distance it reaches. Built only by
/// [`Ray::new`], which validates and normalizes, so every `Ray` is usable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    origin: Vec3,
    dir: Vec3,
    max_t: f32,
}

impl Ray {
    /// A ray from `origin` along `dir` (normalized here; any positive length) up to distance
    /// `max_t` (`f32::INFINITY` for an unbounded ray).
    ///
    /// Errors: a non-finite origin or direction, a zero direction, and a `max_t` that is
    /// negative or NaN.
    pub fn new(origin: Vec3, dir: Vec3, max_t: f32) -> Result<Ray> {
        crate::error::finite3("ray.origin", origin)?;
        crate::error::finite3("ray.dir", dir)?;
        // Scale by the largest component first, so very long and very short (but non-zero)
        // directions normalize without overflow or underflow.
        let big = dir.abs().max_element();
        if big == 0.0 {
            return Err(Error::InvalidInput {
                what: "ray.dir",
                value: format!("{dir:?}"),
                fix: "pass a non-zero direction (its length does not matter; it is normalized)",
            });
        }
        let scaled = dir / big;
        if max_t.is_nan() || max_t < 0.0 {
            return Err(Error::InvalidInput {
                what: "ray.max_t",
                value: format!("{max_t}"),
                fix: "pass a distance >= 0, or f32::INFINITY for an unbounded ray",
            });
        }
        Ok(Ray {
            origin,
            dir: scaled * (1.0 / scaled.dot(scaled).sqrt()),
            max_t,
        })
    }

    /// Where the ray starts.
    pub fn origin(&self) -> Vec3 {
        self.origin
    }

    /// The unit direction.
    pub fn dir(&self) -> Vec3 {
        self.dir
    }

    /// The farthest distance along [`Ray::dir`] that counts as a hit.
    pub fn max_t(&self) -> f32 {
        self.max_t
    }

    /// The point at distance `t`.
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }
}

/// The nearest hit of [`cast_ray`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Distance along the ray (0 when the ray starts inside a solid).
    pub t: f32,
    /// World hit point, `origin + t·dir`.
    pub point: Vec3,
    /// Unit outward surface normal at the hit (`−dir` when the ray starts inside).
    pub normal: Vec3,
    /// The hit shape's body ([`NONE`] for a shape owned by the world).
    pub body: u32,
    /// Index of the hit shape in the slice given to [`cast_ray`].
    pub shape: u32,
}

/// World pose of a shape: centre `body.pos + R_body·offset_pos` and rotation
/// `q_body·offset_rot`. The same arithmetic as `ccd_shape_pose` in `ccd.wgsl`.
pub fn shape_pose(shape: &GpuShape, body: &GpuBody) -> (Vec3, Vec4) {
    let c = body.pos.xyz() + quat_rotate(body.orient, shape.offset_pos.xyz());
    let q = quat_mul(body.orient, shape.offset_rot);
    (c, q)
}

/// A body at the origin with the identity rotation, the frame of shapes owned by the world
/// (`shape.body == NONE`).
fn world_body() -> GpuBody {
    GpuBody {
        orient: QUAT_IDENTITY,
        ..GpuBody::default()
    }
}

/// The ray against one shape of `body`: the distance to the first hit and the unit outward
/// normal there, or `None` for a miss (including hits beyond `max_t` and removed or unknown
/// shape kinds). A ray starting inside the solid reports `(0, −dir)` (see the module docs).
/// `body` must be the shape's owning body (for a world-owned shape, a body at the origin);
/// `hulls` the hull store a hull shape names (empty without hulls).
pub fn ray_shape(
    ray: &Ray,
    shape: &GpuShape,
    body: &GpuBody,
    hulls: &[UVec4],
) -> Option<(f32, Vec3)> {
    let (c, q) = shape_pose(shape, body);
    let o = quat_rotate_inv(q, ray.origin - c);
    let d = quat_rotate_inv(q, ray.dir);
    let (t, n) = if shape.kind == shape_kind::HULL {
        ray_hull(o, d, hulls, shape.dims.x as u32, ray.max_t)?
    } else if shape.kind == shape_kind::MESH || shape.kind == shape_kind::HEIGHTFIELD {
        ray_level(o, d, hulls, shape, ray.max_t)?
    } else {
        ray_local(shape.kind, shape.dims, 0.0, o, d, ray.max_t)?
    };
    if t <= 0.0 {
        return Some((0.0, -ray.dir));
    }
    Some((t, quat_rotate(q, n)))
}

/// The nearest hit of the ray among `shapes` (each posed by its owning body in `bodies`), or
/// `None`. Removed shapes (kind 0) and shapes whose body index is neither in `bodies` nor
/// [`NONE`] are skipped. Equal distances go to the lower shape index, so the answer does not
/// depend on anything but the inputs. `hulls` is the hull store hull shapes name.
pub fn cast_ray(
    ray: &Ray,
    shapes: &[GpuShape],
    bodies: &[GpuBody],
    hulls: &[UVec4],
) -> Option<RayHit> {
    let world = world_body();
    let mut best: Option<RayHit> = None;
    for (si, shape) in shapes.iter().enumerate() {
        let body = if shape.body == NONE {
            &world
        } else {
            match bodies.get(shape.body as usize) {
                Some(b) => b,
                None => continue,
            }
        };
        let Some((t, normal)) = ray_shape(ray, shape, body, hulls) else {
            continue;
        };
        if best.is_none_or(|b| t < b.t) {
            best = Some(RayHit {
                t,
                point: ray.at(t),
                normal,
                body: shape.body,
                shape: si as u32,
            });
        }
    }
    best
}

/// The core: a ray (origin `o`, unit direction `d`, both in the shape's local frame) against the
/// shape of `kind` and `dims` grown by `inflate` in every direction (0 for a plain ray cast; a
/// sphere's radius for a sphere sweep). Returns the entry distance and the local outward normal;
/// an origin inside (or on) the grown solid returns `t = 0` and `−d`.
///
/// Twin of `ccd_ray_local` in `ccd.wgsl`.
pub(crate) fn ray_local(
    kind: u32,
    dims: Vec4,
    inflate: f32,
    o: Vec3,
    d: Vec3,
    max_t: f32,
) -> Option<(f32, Vec3)> {
    match kind {
        shape_kind::SPHERE => ray_sphere(o, d, Vec3::ZERO, dims.x + inflate, max_t),
        shape_kind::BOX => ray_box(o, d, dims.xyz(), inflate, max_t),
        shape_kind::CAPSULE => {
            let a = Vec3::new(0.0, -dims.y, 0.0);
            let b = Vec3::new(0.0, dims.y, 0.0);
            ray_capsule(o, d, a, b, dims.x + inflate, max_t)
        }
        shape_kind::HALF_SPACE => ray_half_space(o, d, dims.xyz(), dims.w + inflate, max_t),
        shape_kind::PLANE => ray_plane(o, d, dims.xyz(), dims.w, inflate, max_t),
        _ => None,
    }
}

/// Ray against a triangle mesh or heightfield shape stored in `hulls` (local frame): the
/// nearest triangle crossed from either side (`mesh::layout`'s walks); the normal faces the
/// ray. A surface has no inside, so a hit is never at `t = 0` unless the origin is on it.
fn ray_level(
    o: Vec3,
    d: Vec3,
    hulls: &[UVec4],
    shape: &GpuShape,
    max_t: f32,
) -> Option<(f32, Vec3)> {
    use super::mesh::layout;
    let base = shape.dims.x as u32;
    let hit = if shape.kind == shape_kind::MESH {
        layout::mesh_cast_ray(hulls, &layout::mesh_ref(hulls, base), o, d, max_t)
    } else {
        layout::heightfield_cast_ray(hulls, &layout::heightfield_ref(hulls, base), o, d, max_t)
    }?;
    let n = if hit.normal.dot(d) > 0.0 {
        -hit.normal
    } else {
        hit.normal
    };
    // A hit exactly at the origin would read as "inside" (t = 0): nudge it to the smallest
    // positive distance, as a surface holds no solid.
    Some((hit.t.max(f32::MIN_POSITIVE), n))
}

/// Ray against the hull whose header is word `base` of `hulls` (local frame): Cyrus–Beck over
/// its face planes (see the module docs). A hull with no faces (a bad index) is missed.
pub(crate) fn ray_hull(
    o: Vec3,
    d: Vec3,
    hulls: &[UVec4],
    base: u32,
    max_t: f32,
) -> Option<(f32, Vec3)> {
    let h = hulls.hull(base);
    let nf = h.face_count.min(MAX_HULL_FACES);
    if nf == 0 {
        return None;
    }
    let mut t_in = 0.0f32;
    let mut t_out = max_t;
    let mut n_in = -d;
    let mut inside = true;
    for f in 0..nf {
        let p = hulls.plane(&h, f);
        let s = p.xyz().dot(o) - p.w;
        let dn = p.xyz().dot(d);
        if s > 0.0 {
            inside = false;
        }
        if dn.abs() <= PARALLEL_EPS {
            if s > 0.0 {
                return None;
            }
            continue;
        }
        let t = -s / dn;
        if dn < 0.0 {
            if t > t_in {
                t_in = t;
                n_in = p.xyz();
            }
        } else if t < t_out {
            t_out = t;
        }
    }
    if inside {
        return Some((0.0, -d));
    }
    if t_in > t_out {
        return None;
    }
    Some((t_in, n_in))
}

/// Ray against the sphere of centre `c` and radius `r`.
pub(crate) fn ray_sphere(o: Vec3, d: Vec3, c: Vec3, r: f32, max_t: f32) -> Option<(f32, Vec3)> {
    let m = o - c;
    let cc = m.dot(m) - r * r;
    if cc <= 0.0 {
        return Some((0.0, -d));
    }
    let hb = m.dot(d);
    // Outside and not approaching: both roots are negative or complex.
    if hb >= 0.0 || r <= 0.0 {
        return None;
    }
    let f = m - d * hb;
    let disc = r * r - f.dot(f);
    if disc < 0.0 {
        return None;
    }
    let t = -hb - disc.sqrt();
    if t > max_t {
        return None;
    }
    let t = t.max(0.0);
    Some((t, (m + d * t) * (1.0 / r)))
}

/// Ray against the capsule of segment `a`–`b` and radius `r`: the union of the finite cylinder
/// and the two end spheres. The origin is first tested for being inside; outside the union it is
/// outside every part, so the union's entry is the nearest part entry.
pub(crate) fn ray_capsule(
    o: Vec3,
    d: Vec3,
    a: Vec3,
    b: Vec3,
    r: f32,
    max_t: f32,
) -> Option<(f32, Vec3)> {
    let e = b - a;
    let ee = e.dot(e);
    let m = o - a;
    let me = m.dot(e);
    // Inside: distance from the origin to the segment at most r.
    let s0 = if ee > 0.0 {
        (me / ee).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let q = m - e * s0;
    if q.dot(q) <= r * r {
        return Some((0.0, -d));
    }
    if r <= 0.0 {
        return None;
    }
    let mut best: Option<(f32, Vec3)> = None;
    if ee > 0.0 {
        // The parts of m and d perpendicular to the axis; the cylinder is |w + t·v| = r.
        let de = d.dot(e);
        let w = m - e * (me / ee);
        let v = d - e * (de / ee);
        let qa = v.dot(v);
        let hb = w.dot(v);
        let qc = w.dot(w) - r * r;
        if qa > PARALLEL_EPS && qc > 0.0 && hb < 0.0 {
            let disc = hb * hb - qa * qc;
            if disc >= 0.0 {
                let t = (-hb - disc.sqrt()) / qa;
                let s = (me + t * de) / ee;
                if (0.0..=1.0).contains(&s) && t <= max_t {
                    let t = t.max(0.0);
                    best = Some((t, (w + v * t) * (1.0 / r)));
                }
            }
        }
    }
    for end in [a, b] {
        if let Some(h) = ray_sphere(o, d, end, r, max_t) {
            if best.is_none_or(|bh| h.0 < bh.0) {
                best = Some(h);
            }
        }
    }
    best
}

/// Slab test of a ray against the box `[−h, h]` (local frame). The entry is the largest of the
/// per-axis entries, the exit the smallest of the exits; the normal is the entering axis, facing
/// the ray.
pub(crate) fn ray_slab(o: Vec3, d: Vec3, h: Vec3, max_t: f32) -> Option<(f32, Vec3)> {
    let mut t_in = f32::MIN;
    let mut t_out = max_t;
    let mut n = Vec3::ZERO;
    for i in 0..3 {
        let (oi, di, hi) = (o[i], d[i], h[i]);
        if di.abs() < PARALLEL_EPS {
            if oi.abs() > hi {
                return None;
            }
            continue;
        }
        let inv = 1.0 / di;
        let mut t1 = (-hi - oi) * inv;
        let mut t2 = (hi - oi) * inv;
        if t1 > t2 {
            std::mem::swap(&mut t1, &mut t2);
        }
        if t1 > t_in {
            t_in = t1;
            n = Vec3::ZERO;
            n[i] = if di > 0.0 { -1.0 } else { 1.0 };
        }
        t_out = t_out.min(t2);
        if t_in > t_out {
            return None;
        }
    }
    if t_out < 0.0 {
        // The box lies behind the origin.
        return None;
    }
    if t_in <= 0.0 {
        // Every slab holds the origin: inside.
        return Some((0.0, -d));
    }
    Some((t_in, n))
}

/// Ray against the box of half extents `h` grown by `r` (a rounded box: the box swept by a
/// sphere). With `r = 0` this is the slab test. Otherwise the rounded box is the union of three
/// boxes (the box grown by `r` along one axis each: the face regions) and twelve capsules of
/// radius `r` on the edges (the edge and corner regions), so its entry is the nearest part
/// entry once the origin is known to be outside (distance to the box greater than `r`).
pub(crate) fn ray_box(o: Vec3, d: Vec3, h: Vec3, r: f32, max_t: f32) -> Option<(f32, Vec3)> {
    let ex = (o.abs() - h).max(Vec3::ZERO);
    if ex.dot(ex) <= r * r {
        return Some((0.0, -d));
    }
    if r <= 0.0 {
        return ray_slab(o, d, h, max_t);
    }
    let mut best: Option<(f32, Vec3)> = None;
    for axis in 0..3 {
        let mut g = h;
        g[axis] += r;
        if let Some(hit) = ray_slab(o, d, g, max_t) {
            if best.is_none_or(|b| hit.0 < b.0) {
                best = Some(hit);
            }
        }
    }
    // Edges parallel to `axis`, at the four sign combinations of the other two axes.
    for axis in 0..3 {
        let (j, k) = ((axis + 1) % 3, (axis + 2) % 3);
        for corner in 0..4 {
            let mut a = Vec3::ZERO;
            a[j] = if corner & 1 == 0 { -h[j] } else { h[j] };
            a[k] = if corner & 2 == 0 { -h[k] } else { h[k] };
            let mut b = a;
            a[axis] = -h[axis];
            b[axis] = h[axis];
            if let Some(hit) = ray_capsule(o, d, a, b, r, max_t) {
                if best.is_none_or(|bh| hit.0 < bh.0) {
                    best = Some(hit);
                }
            }
        }
    }
    best
}

/// Ray against the half-space `p·n <= w` (solid below the plane).
pub(crate) fn ray_half_space(o: Vec3, d: Vec3, n: Vec3, w: f32, max_t: f32) -> Option<(f32, Vec3)> {
    let s = o.dot(n) - w;
    if s <= 0.0 {
        return Some((0.0, -d));
    }
    let dn = d.dot(n);
    if dn >= 0.0 {
        return None;
    }
    let t = -s / dn;
    if t > max_t {
        return None;
    }
    Some((t, n))
}

/// Ray against the two-sided plane `p·n = w` thickened to `|p·n − w| <= r` (r = 0 for a ray
/// cast). The normal faces the side the ray comes from.
pub(crate) fn ray_plane(
    o: Vec3,
    d: Vec3,
    n: Vec3,
    w: f32,
    r: f32,
    max_t: f32,
) -> Option<(f32, Vec3)> {
    let s = o.dot(n) - w;
    if s.abs() <= r {
        return Some((0.0, -d));
    }
    let dn = d.dot(n);
    let (t, normal) = if s > 0.0 {
        if dn >= 0.0 {
            return None;
        }
        ((r - s) / dn, n)
    } else {
        if dn <= 0.0 {
            return None;
        }
        ((-r - s) / dn, -n)
    };
    if t > max_t {
        return None;
    }
    Some((t, normal))
}
