//! Shape casts: a sphere, box, capsule or stored hull moved along a straight line through the
//! scene, answered with the first collider it meets (its handle, shape slot, the distance
//! travelled, a witness point and the normal there).
//!
//! Method: the candidates are the colliders whose bounding boxes meet the box swept by the
//! caster's bounding sphere (through the query grid, `query_grid.rs`). Against each bounded one,
//! conservative advancement along the line (the crate's GJK distance, as the CCD stage uses it):
//! at distance s the shapes are `g` apart with normal n (from the collider to the caster); the
//! caster moving along the unit direction d closes that gap at most at rate `−d·n` per unit
//! travelled, so advancing by `g / (−d·n)` cannot make them overlap, and `−d·n ≤ 0` means the
//! separating plane of normal n is never crossed: a miss. The walk stops when the gap is within
//! [`CAST_REL_TOLERANCE`] of the smaller shape's size (and 8 ulps of the larger one's). A plane or half-space is met in closed
//! form: the caster's extent along the plane's normal (its support points) reaches the plane
//! after the distance between them over the closing speed. The nearest hit wins (equal
//! distances: the lower shape slot). A caster that starts touching or inside a collider
//! reports distance 0 with the normal `−d` (as a ray starting inside).
//!
//! After [`CAST_MAX_ITERATIONS`] steps without converging (a path that grazes a collider) the
//! distance reached is reported: the caster does not overlap the collider there (each step is
//! conservative), it only stops early.
//!
//! Against a triangle mesh or heightfield the caster advances against each triangle its path
//! may reach (each a flat convex core for GJK, `ConvexShape::triangle`; one-sided, as the
//! narrow phase: a triangle whose plane the caster's centre starts behind is passed, a
//! two-sided mesh's triangles turned to face it first), and the nearest wins.

use super::*;
use crate::rigid::hull::{gjk, ConvexShape, Frame, HullWords};
use crate::rigid::narrow::{convex_of, Pose};
use crate::rigid::ray::shape_pose;
use glam::{Quat, UVec4};

/// The cast stops when the caster is within this fraction of the smaller of the two shapes'
/// bounds (each shape's bounding radius about its frame) of touching a collider: 1e-4, ten times GJK's own
/// relative tolerance (`hull::gjk::GJK_REL_TOL`, the accuracy of the distances it advances by)
/// and far below any contact margin.
pub const CAST_REL_TOLERANCE: f32 = 1e-4;
/// Most advancement steps against one collider (see the module docs).
pub const CAST_MAX_ITERATIONS: u32 = 64;

/// The first collider a shape cast meets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeCastHit {
    /// Its body.
    pub body: BodyHandle,
    /// Its shape slot.
    pub shape: u32,
    /// How far the caster travelled along the (unit) direction before touching it (0 when it
    /// starts touching or inside).
    pub distance: f32,
    /// The witness point: the point of the collider nearest the caster at that distance (the
    /// cast's start position when it starts inside).
    pub point: Vec3,
    /// The collider's outward normal there (from the collider towards the caster; `−direction`
    /// when the caster starts inside).
    pub normal: Vec3,
}

/// Where a cast met one collider: distance, witness point, normal.
type Meet = (f32, Vec3, Vec3);

impl RigidWorld {
    /// Moves `shape`, placed at `position` with `rotation` (its collider frame), along
    /// `direction` for at most `max_distance`, and returns the first collider `filter` sees that
    /// it meets (see the module docs for the method and its tolerance). A sphere, box or capsule
    /// casts as given; a hull must be one a body of this world already uses (it names the
    /// world's stored copy).
    ///
    /// # Errors
    /// [`Error::InvalidInput`], the world unchanged, for: a plane or half-space, a shape of zero
    /// size (a zero radius or half extent), an invalid shape (negative or non-finite sizes), a
    /// hull this world does not store, a non-finite position, a zero or non-finite rotation
    /// (others are normalized), a zero or non-finite direction, a `max_distance` that is not finite and
    /// greater than 0, a filter that sees nothing.
    pub fn cast_shape(
        &self,
        shape: &Shape,
        position: Vec3,
        rotation: Quat,
        direction: Vec3,
        max_distance: f32,
        filter: &QueryFilter,
    ) -> Result<Option<ShapeCastHit>> {
        crate::error::finite3("shape cast position", position)?;
        let rot = crate::rigid::model::unit_quat("shape cast rotation", rotation)?;
        crate::error::finite3("shape cast direction", direction)?;
        let d = direction.normalize_or_zero();
        if d == Vec3::ZERO {
            return Err(Error::InvalidInput {
                what: "shape cast direction",
                value: format!("{direction}"),
                fix: "pass a non-zero direction (it is normalized); for a shape that stays \
                      put, test overlaps with intersect_aabb",
            });
        }
        crate::error::positive("shape cast max_distance", max_distance)?;
        let caster = self.caster(shape, Frame::from_pose(position, rot))?;
        let sees = self.query_sees(filter)?;
        let words = self.hulls.words();
        let end = position + d * max_distance;
        let reach = Vec3::splat(caster.bound());
        let (lo, hi) = (position.min(end) - reach, position.max(end) + reach);
        self.with_query_grid(|bodies, grid| {
            let mut best: Option<ShapeCastHit> = None;
            for i in grid.box_candidates(lo, hi) {
                let Some(h) = sees(i) else { continue };
                let k = 3 * i as usize;
                if !(grid.xf[k + 1].xyz().cmple(hi).all() && grid.xf[k + 2].xyz().cmpge(lo).all()) {
                    continue;
                }
                let s = &self.shapes[i as usize];
                let (c, q) = shape_pose(s, &bodies[h.index as usize]);
                let meet = if s.kind == shape_kind::MESH || s.kind == shape_kind::HEIGHTFIELD {
                    cast_level(words, &caster, d, max_distance, s, Pose { pos: c, rot: q })
                } else if broad::is_plane(s.kind) {
                    let (n, w) = broad::world_plane(s.dims, c, q);
                    cast_plane(words, &caster, d, max_distance, n, w, s.kind)
                } else {
                    let target = convex_of(words, s, Pose { pos: c, rot: q });
                    cast_convex(words, &caster, d, max_distance, &target)
                };
                let Some((distance, point, normal)) = meet else {
                    continue;
                };
                let (point, normal) = if distance == 0.0 && normal == Vec3::ZERO {
                    (position, -d)
                } else {
                    (point, normal)
                };
                if best.is_none_or(|b| distance < b.distance) {
                    best = Some(ShapeCastHit {
                        body: h,
                        shape: i,
                        distance,
                        point,
                        normal,
                    });
                }
            }
            best
        })
    }

    /// The support-function view of the cast shape at `frame`, refusing what cannot be cast.
    fn caster(&self, shape: &Shape, frame: Frame) -> Result<ConvexShape> {
        let refuse = |fix: &'static str| Error::InvalidInput {
            what: "shape cast shape",
            value: format!("{shape:?}"),
            fix,
        };
        let zero = "cast a shape of positive size; for a point moving along a line use \
                    cast_ray_filtered";
        match shape {
            Shape::Sphere { radius } if *radius == 0.0 => Err(refuse(zero)),
            Shape::Cuboid { half_extents } if half_extents.min_element() == 0.0 => {
                Err(refuse(zero))
            }
            Shape::Capsule { radius, .. } if *radius == 0.0 => Err(refuse(zero)),
            Shape::HalfSpace { .. } | Shape::Plane { .. } => Err(refuse(
                "cast a sphere, box, capsule or hull: a plane or half-space is unbounded",
            )),
            Shape::TriMesh { .. } | Shape::HeightField { .. } => Err(refuse(
                "cast a sphere, box, capsule or hull: level geometry is not convex",
            )),
            Shape::Sphere { radius } => {
                shape.validate()?;
                Ok(ConvexShape::sphere(frame, *radius))
            }
            Shape::Cuboid { half_extents } => {
                shape.validate()?;
                Ok(ConvexShape::cuboid(frame, *half_extents))
            }
            Shape::Capsule {
                radius,
                half_height,
            } => {
                shape.validate()?;
                Ok(ConvexShape::capsule(frame, *half_height, *radius))
            }
            Shape::ConvexHull { hull } => match self.hulls.header_of(hull) {
                Some(base) => Ok(ConvexShape::hull(frame, self.hulls.words().hull(base))),
                None => Err(Error::InvalidInput {
                    what: "shape cast hull",
                    value: format!("a hull of {} vertices", hull.vertices().len()),
                    fix: "cast a hull a body of this world uses (clone that collider's \
                          shape), or add a body with it first",
                }),
            },
        }
    }
}

/// Where a cast stops short of a collider: [`CAST_REL_TOLERANCE`] of the smaller of the two
/// shapes' bounds, so a small probe cast onto a large floor stops as close as onto a small box,
/// but no closer than 8 ulps of the larger bound (what GJK's distances round to at that
/// scale: 0.7 mm at a 700 m floor).
pub(crate) fn cast_tolerance(caster_bound: f32, target_bound: f32) -> f32 {
    (CAST_REL_TOLERANCE * caster_bound.min(target_bound))
        .max(8.0 * f32::EPSILON * caster_bound.max(target_bound))
}

/// Conservative advancement of `caster` along unit `d` (at most `max`) against the still
/// convex `target` (see the module docs). A zero normal means the caster started touching.
fn cast_convex(
    words: &[UVec4],
    caster: &ConvexShape,
    d: Vec3,
    max: f32,
    target: &ConvexShape,
) -> Option<Meet> {
    let tol = cast_tolerance(caster.bound(), target.bound());
    let start = caster.frame.pos;
    let mut moved = *caster;
    let mut s = 0.0f32;
    // The witness of the last step, for a stop where GJK finds the cores touching (no normal).
    let mut last = (Vec3::ZERO, Vec3::ZERO);
    for _ in 0..CAST_MAX_ITERATIONS {
        moved.frame.pos = start + d * s;
        let g = gjk(words, &moved, target);
        if g.overlap || g.distance <= tol {
            if s == 0.0 {
                return Some((0.0, Vec3::ZERO, Vec3::ZERO));
            }
            if g.overlap {
                return Some((s, last.0, last.1));
            }
            return Some((s, g.point_b, g.normal));
        }
        last = (g.point_b, g.normal);
        let closing = -d.dot(g.normal);
        if closing <= 0.0 {
            return None;
        }
        s += g.distance / closing;
        if s > max {
            return None;
        }
    }
    // Not converged (a grazing path): the distance reached, conservative.
    moved.frame.pos = start + d * s;
    let g = gjk(words, &moved, target);
    if g.overlap {
        return Some((s, last.0, last.1));
    }
    Some((s, g.point_b, g.normal))
}

/// `caster` along unit `d` (at most `max`) against the level geometry `s` at `pose`: the
/// nearest meeting over the triangles in the box of its path (see the module docs).
fn cast_level(
    words: &[UVec4],
    caster: &ConvexShape,
    d: Vec3,
    max: f32,
    s: &GpuShape,
    pose: Pose,
) -> Option<Meet> {
    use crate::rigid::math::quat_rotate_inv;
    use crate::rigid::mesh::{layout, Aabb};
    let reach = Vec3::splat(caster.bound());
    let a = quat_rotate_inv(pose.rot, caster.frame.pos - pose.pos);
    let b = quat_rotate_inv(pose.rot, caster.frame.pos + d * max - pose.pos);
    let query = Aabb {
        min: a.min(b) - reach,
        max: a.max(b) + reach,
    };
    let mut best: Option<Meet> = None;
    let cells = crate::rigid::narrow::MESH_MAX_CELLS;
    layout::visit_triangles(
        words,
        s.kind,
        s.dims.x as u32,
        &query,
        cells,
        a,
        |tri, _, _| {
            let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
            if n.dot(a - tri[0]) < 0.0 {
                return;
            }
            let target = ConvexShape::triangle_at(pose.pos, pose.rot, tri);
            if let Some(m) = cast_convex(words, caster, d, max, &target) {
                if best.is_none_or(|b| m.0 < b.0) {
                    best = Some(m);
                }
            }
        },
    );
    best
}

/// `caster` along unit `d` (at most `max`) against the plane `p·n = w` of a half-space (solid
/// below) or a two-sided plane (`kind`), in closed form from the caster's extent along `n`.
fn cast_plane(
    words: &[UVec4],
    caster: &ConvexShape,
    d: Vec3,
    max: f32,
    n: Vec3,
    w: f32,
    kind: u32,
) -> Option<Meet> {
    let r = caster.radius();
    let below = caster.support(words, -n);
    let above = caster.support(words, n);
    let lo = n.dot(below) - r;
    let hi = n.dot(above) + r;
    let speed = d.dot(n);
    let half_space = kind == shape_kind::HALF_SPACE;
    if lo <= w && (half_space || hi >= w) {
        return Some((0.0, Vec3::ZERO, Vec3::ZERO));
    }
    if lo > w {
        // Above the plane: its lowest point comes down to it.
        if speed >= 0.0 {
            return None;
        }
        let s = (lo - w) / -speed;
        let touch = below - n * r + d * s;
        return (s <= max).then_some((s, touch - n * (n.dot(touch) - w), n));
    }
    // Below a two-sided plane: its highest point comes up to it.
    if speed <= 0.0 {
        return None;
    }
    let s = (w - hi) / speed;
    let touch = above + n * r + d * s;
    (s <= max).then_some((s, touch - n * (n.dot(touch) - w), -n))
}
