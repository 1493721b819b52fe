//! Stage `narrow`: one manifold of up to four contacts per broad-phase pair (catalogue §10).
//! Reads `shapes`, `bodies`, `pairs` and the hull store `hulls`; writes `manifolds[k]` for pair
//! k. The WGSL twin is
//! `shaders/rigid/narrow.wgsl`, with the same functions in the same operation order.
//!
//! Conventions (see `types.rs`): the normal points from shape b to shape a (it pushes a out);
//! penetration is positive when overlapping. A pair is reordered so the lower shape kind comes
//! first (sphere < box < capsule < hull < half-space < plane < mesh < heightfield,
//! [`shape_kind::order`]; ties keep
//! the pair's order), so the
//! manifold's `shape_a` / `body_a` may be the pair's second entry. Contacts are made whenever
//! the separation is below `contact_margin`, so penetration may be slightly negative. Every
//! contact point lies halfway between the two surfaces along the normal, so both bodies get a
//! symmetric lever arm.
//!
//! Methods per pair:
//! - sphere–sphere, sphere–capsule: closest points (the capsule's segment point nearest the
//!   sphere centre), one contact;
//! - sphere–half-space / plane: signed distance of the centre (the plane is two-sided: the side
//!   of the centre decides the normal);
//! - sphere–box: closest point of the box in its frame; with the centre inside, the face of least
//!   depth (penetration r + depth, the corrected form);
//! - box–half-space / plane: the eight vertices, keeping the four deepest (book order of
//!   vertices, vertex index as feature); a plane's side is the side of the box centre;
//! - box–box: SAT over 15 axes (3 + 3 faces, 9 edge crosses, near-parallel crosses skipped) with
//!   a bias towards face axes (box a's faces, then box b's, then edges) for frame-to-frame
//!   coherence; a face axis clips the incident face against the reference face's side planes
//!   (Sutherland–Hodgman, at most 8 points, reduced to 4: the deepest, the farthest from it,
//!   the one making the largest triangle with those two, the one farthest outside that
//!   triangle); an edge axis gives one contact at the closest points of the two edges
//!   (segments, clamped to the edges' lengths);
//! - capsule–half-space / plane: both segment ends;
//! - capsule–capsule: closest points of the segments; near-parallel segments give two contacts
//!   at the ends of their common stretch;
//! - box–capsule: in the box frame, the exact segment–box distance (segment ends against the
//!   box, segment against the 12 edges; a slab test for intersection). Separated: the closest
//!   points give the normal, and when it is a face normal the segment is clipped to that face
//!   (two contacts for a capsule lying on a box). Intersecting: SAT over the 3 box face axes
//!   and the 3 crosses of the segment with them; a face axis clips as before, a cross axis
//!   gives one contact between the segment and the box edge;
//! - every pair with a convex hull: `hull.rs` (SAT with face clipping for box–hull and
//!   hull–hull, GJK and EPA for sphere–hull and capsule–hull, the deepest vertices for
//!   hull–plane).
//! - every pair with a static triangle mesh or heightfield: `mesh.rs` (the triangles under the
//!   shape from the BVH or the cells, per-triangle contacts with the internal-edge rule, one
//!   manifold of up to four points about the deepest contact's normal).
//!
//! Shapes of one body never collide with each other (count 0). Discrete choices between
//! near-equal candidates (deepest point, incident face, closest box feature) keep the earlier
//! candidate unless the later one wins by a rounding-sized margin, so exact geometric ties
//! (parallel sides, a vertex shared by three edges) resolve the same way on CPU and GPU and from
//! frame to frame.
//!
//! Feature ids (stable per contact while the configuration holds; warm starting matches them):
//!
//! | pair | feature |
//! |---|---|
//! | round shapes | 0 (capsule–capsule parallel: 0 and 1) |
//! | box–half-space / plane | vertex index 0..8 (+8 on a plane's negative side) |
//! | capsule–half-space / plane | segment end 0 or 1 |
//! | box–box face | reference face code << 16 \| incident face code << 8 \| point id |
//! | box–box edge | [`FEATURE_EDGE`] \| axis << 16 \| edge of a << 8 \| edge of b |
//! | box–capsule | segment end 0/1, 2 + box edge, or 2·(16 + face code) + clipped end |
//! | pairs with a hull | see `hull.rs` (the SAT manifold's face and edge ids, vertex index, ...) |
//! | pairs with a mesh or heightfield | triangle id · 256 + a local feature (see `mesh.rs`) |
//!
//! A face code is 2·axis + 1 for the negative side (axis in SAT numbering for the reference,
//! 0..3 for the incident face); an edge is 4·axis + sign bits of the other two coordinates. A
//! clipped face point is named by geometry, not by its clipping history: incident vertex k
//! (0..4) when it lies near that vertex, else 4 + its quadrant about the clipped polygon's
//! centroid (16 added while the id is taken in the manifold). Corners of a box stacked flush
//! keep their ids while they jitter across the sides of the face below (clipped one step, not
//! the next), and so do the corners of a half-offset stack.
//!
//! On the GPU the stage is up to three kernels: `narrow` over every pair, then (in worlds with
//! hulls) `narrow_hull`, which gives the pairs with a hull their contacts
//! (`shaders/rigid/narrow/hull_pairs.wgsl`), then (in worlds with meshes or heightfields)
//! `narrow_mesh`, which gives the pairs with level geometry theirs (`mesh.wgsl`); here
//! [`collide_shapes`] does all for each pair.
//!
//! The shapes' world pose is recomputed from their bodies (body position + rotated offset,
//! body orientation · offset rotation) rather than read from `shape_xf`, so the stage does not
//! depend on the broad phase having run in the same step.

use glam::{Mat3, UVec4, Vec3, Vec4, Vec4Swizzles};

use super::material::combine;
use super::math::{quat_mul, quat_rotate, quat_rotate_inv, quat_to_mat3};
use super::types::{
    shape_kind, GpuBody, GpuManifold, GpuRigidParams, GpuShape, MANIFOLD_SENSOR, NONE,
};

mod box_box;
mod capsule;
mod hull;
mod mesh;
pub use box_box::{box_box_sat, BoxBoxSat};
use capsule::{box_capsule, capsule_capsule, capsule_plane};
pub use hull::{convex_of, shape_hull, HULL_FACE_EPS};
pub use mesh::{MESH_AXIS_ABS, MESH_AXIS_REL, MESH_MAX_CELLS, MESH_NORMAL_COS};

/// Edge crosses with |a × b|² below this are skipped (near-parallel edges; the book's 0.001).
pub const PARALLEL_EPS: f32 = 1e-3;
/// Squared segment lengths below this count as points.
const SEG_EPS: f32 = 1e-12;
/// Relative part of the face-axis bias: a later axis must be this fraction shallower.
pub const BIAS_REL: f32 = 0.05;
/// Absolute part of the face-axis bias, as a fraction of the smallest half extent.
pub const BIAS_ABS: f32 = 0.005;
/// A closest-point normal within this of a box face normal (|n_i| ≥ 1 − eps) is that face.
const FACE_EPS: f32 = 1e-4;
/// A face contact within this fraction of the incident face's smaller half edge from an
/// incident vertex is named after that vertex (see `face_point_id`).
pub const VERTEX_NEAR: f32 = 0.05;
/// "No axis yet": larger than any overlap.
const BIG: f32 = 1e30;
/// Feature-id flag of an edge–edge contact.
pub const FEATURE_EDGE: u32 = 0x8000_0000;

/// A shape's world position and rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// World position of the shape's origin.
    pub pos: Vec3,
    /// World rotation quaternion (x, y, z, w).
    pub rot: Vec4,
}

/// The world pose of `shape`: body position + body rotation applied to the offset, and body
/// rotation · offset rotation. A shape whose body is [`NONE`] (or out of range) is placed by its
/// offset alone.
pub fn shape_pose(shape: &GpuShape, bodies: &[GpuBody]) -> Pose {
    match bodies.get(shape.body as usize) {
        Some(body) if shape.body != NONE => Pose {
            pos: body.pos.xyz() + quat_rotate(body.orient, shape.offset_pos.xyz()),
            rot: quat_mul(body.orient, shape.offset_rot),
        },
        _ => Pose {
            pos: shape.offset_pos.xyz(),
            rot: shape.offset_rot,
        },
    }
}

/// Runs the stage: `manifolds[k] = collide_shapes(pairs[k])` for every pair slot below
/// `min(pairs.len(), params.pair_capacity, manifolds.len())`; later slots are left alone, as on
/// the GPU. `shape_pos` and `shape_xf` are the stage's bindings but the pose comes from the
/// bodies (see the module docs); `hulls` is the world's hull store (empty without hulls).
#[allow(clippy::too_many_arguments)]
pub fn narrow(
    params: &GpuRigidParams,
    shapes: &[GpuShape],
    bodies: &[GpuBody],
    hulls: &[UVec4],
    _shape_pos: &[Vec4],
    shape_xf: &[Vec4],
    pairs: &[[u32; 2]],
    manifolds: &mut [GpuManifold],
) {
    let n = pairs
        .len()
        .min(params.pair_capacity as usize)
        .min(manifolds.len());
    for k in 0..n {
        let [a, b] = pairs[k];
        manifolds[k] = collide_shapes(params, shapes, bodies, hulls, shape_xf, a, b);
    }
}

/// The manifold of shapes `a` and `b` (indices into `shapes`): bodies, shapes (reordered by kind,
/// see the module docs), combined friction (normal.w), restitution (material.x), the radii of
/// the two shapes' round surfaces (material.y for a, material.z for b; 0 for a flat shape, see
/// [`round_radius`]), the rolling resistance (material.w: the larger of the two coefficients
/// times the larger radius, the most torque per unit normal impulse, as Box2D v3), and up to
/// four contacts. `count` is 0 when they are apart by `contact_margin` or more, when an index is
/// out of range, when both shapes belong to the same body, or for pairs of half-spaces and
/// planes. `colour` is [`NONE`] and the impulses
/// are zero (the solver warm-starts them by feature id).
pub fn collide_shapes(
    params: &GpuRigidParams,
    shapes: &[GpuShape],
    bodies: &[GpuBody],
    hulls: &[UVec4],
    _shape_xf: &[Vec4],
    a: u32,
    b: u32,
) -> GpuManifold {
    let mut m = GpuManifold {
        body_a: NONE,
        body_b: NONE,
        colour: NONE,
        shape_a: a,
        shape_b: b,
        ..Default::default()
    };
    let (Some(s0), Some(s1)) = (shapes.get(a as usize), shapes.get(b as usize)) else {
        return m;
    };
    let (ia, ib, sa, sb) = if shape_kind::order(s1.kind) < shape_kind::order(s0.kind) {
        (b, a, s1, s0)
    } else {
        (a, b, s0, s1)
    };
    m.shape_a = ia;
    m.shape_b = ib;
    m.body_a = sa.body;
    m.body_b = sb.body;
    if sa.material.w != 0.0 || sb.material.w != 0.0 {
        m.dynamic = MANIFOLD_SENSOR;
    }
    let friction = combine(params.combine_friction, sa.material.x, sb.material.x);
    let (round_a, round_b) = (round_radius(sa), round_radius(sb));
    m.material = Vec4::new(
        combine(params.combine_restitution, sa.material.y, sb.material.y),
        round_a,
        round_b,
        sa.material.z.max(sb.material.z) * round_a.max(round_b),
    );
    if sa.body == sb.body && sa.body != NONE {
        // Parts of one body never collide with each other (the book's primitive assemblies).
        m.normal.w = friction;
        return m;
    }
    let pa = shape_pose(sa, bodies);
    let pb = shape_pose(sb, bodies);
    let margin = params.contact_margin;
    use shape_kind::*;
    match (sa.kind, sb.kind) {
        (SPHERE, SPHERE) => sphere_sphere(&mut m, margin, pa.pos, sa.dims.x, pb.pos, sb.dims.x),
        (SPHERE, BOX) => sphere_box(&mut m, margin, pa.pos, sa.dims.x, pb, sb.dims.xyz()),
        (SPHERE, CAPSULE) => sphere_capsule(&mut m, margin, pa.pos, sa.dims.x, pb, sb.dims),
        (SPHERE, HALF_SPACE) | (SPHERE, PLANE) => {
            let (n, off) = plane_world(pb, sb.dims);
            sphere_plane(&mut m, margin, pa.pos, sa.dims.x, n, off, sb.kind == PLANE);
        }
        (BOX, BOX) => box_box::box_box(&mut m, margin, pa, sa.dims.xyz(), pb, sb.dims.xyz()),
        (BOX, CAPSULE) => box_capsule(&mut m, margin, pa, sa.dims.xyz(), pb, sb.dims),
        (BOX, HALF_SPACE) | (BOX, PLANE) => {
            let (n, off) = plane_world(pb, sb.dims);
            box_plane(&mut m, margin, pa, sa.dims.xyz(), n, off, sb.kind == PLANE);
        }
        (CAPSULE, CAPSULE) => capsule_capsule(&mut m, margin, pa, sa.dims, pb, sb.dims),
        (CAPSULE, HALF_SPACE) | (CAPSULE, PLANE) => {
            let (n, off) = plane_world(pb, sb.dims);
            capsule_plane(&mut m, margin, pa, sa.dims, n, off, sb.kind == PLANE);
        }
        (SPHERE | BOX | CAPSULE | HULL, HULL) | (HULL, HALF_SPACE | PLANE) => {
            hull::hull_pair(&mut m, hulls, margin, sa, pa, sb, pb);
        }
        (SPHERE | BOX | CAPSULE | HULL, MESH | HEIGHTFIELD) => {
            mesh::mesh_pair(&mut m, hulls, margin, sa, pa, sb, pb);
        }
        _ => {}
    }
    m.normal.w = friction;
    m
}

// ---------------------------------------------------------------------------------------------
// Small helpers (each has a WGSL twin of the same name).

/// The radius of a shape's round surface (a sphere's, a capsule's), 0 for flat shapes. A
/// contact keeps its lever arm at the contact point while a round body turns under it: the
/// solver turns the anchor of the round surface's centre with the body and steps back out to
/// the surface along the normal by this much (`solver::arm`).
pub fn round_radius(s: &GpuShape) -> f32 {
    if s.kind == shape_kind::SPHERE || s.kind == shape_kind::CAPSULE {
        s.dims.x
    } else {
        0.0
    }
}

/// `min(max(x, lo), hi)`, WGSL's `clamp`, without `f32::clamp`'s panic on odd bounds.
fn clampf(x: f32, lo: f32, hi: f32) -> f32 {
    x.max(lo).min(hi)
}

/// +1 for x ≥ 0, −1 otherwise (WGSL's `sign` gives 0 at 0, which no caller wants).
fn sign_of(x: f32) -> f32 {
    if x >= 0.0 {
        1.0
    } else {
        -1.0
    }
}

/// `v / |v|`, written out so both sides round alike.
fn unit(v: Vec3) -> Vec3 {
    v / v.dot(v).sqrt()
}

/// Component `i` of `v` (0, 1, 2).
fn comp(v: Vec3, i: u32) -> f32 {
    match i {
        0 => v.x,
        1 => v.y,
        _ => v.z,
    }
}

/// `v` with component `i` replaced by `x`.
fn with_comp(v: Vec3, i: u32, x: f32) -> Vec3 {
    match i {
        0 => Vec3::new(x, v.y, v.z),
        1 => Vec3::new(v.x, x, v.z),
        _ => Vec3::new(v.x, v.y, x),
    }
}

/// Unit vector along axis `i`.
fn basis(i: u32) -> Vec3 {
    with_comp(Vec3::ZERO, i, 1.0)
}

/// Column `i` of `m`.
fn col(m: &Mat3, i: u32) -> Vec3 {
    m.col(i as usize)
}

/// The world normal and offset of a half-space / plane shape (points p with p·n ≤ offset are
/// behind it).
fn plane_world(pose: Pose, dims: Vec4) -> (Vec3, f32) {
    let n = quat_rotate(pose.rot, dims.xyz());
    (n, dims.w + n.dot(pose.pos))
}

/// Adds a contact; with four already, replaces the shallowest when the new one is deeper.
fn add_contact(m: &mut GpuManifold, p: Vec3, pen: f32, feature: u32) {
    if m.count < 4 {
        let c = m.count as usize;
        m.points[c] = p.extend(pen);
        m.features[c] = feature;
        m.count += 1;
        return;
    }
    let mut k = 0usize;
    for i in 1..4 {
        if m.points[i].w < m.points[k].w {
            k = i;
        }
    }
    if pen > m.points[k].w {
        m.points[k] = p.extend(pen);
        m.features[k] = feature;
    }
}

/// Closest points of segments p1–q1 and p2–q2 (Ericson's clamped form): returns the point on
/// each. Zero-length segments count as points; parallel ones pick s = 0.
pub fn closest_segments(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> (Vec3, Vec3) {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    let mut s = 0.0;
    let mut t = 0.0;
    if a <= SEG_EPS {
        if e > SEG_EPS {
            t = clampf(f / e, 0.0, 1.0);
        }
    } else {
        let c = d1.dot(r);
        if e <= SEG_EPS {
            s = clampf(-c / a, 0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            if denom > 0.0 {
                s = clampf((b * f - c * e) / denom, 0.0, 1.0);
            }
            t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = clampf(-c / a, 0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = clampf((b - c) / a, 0.0, 1.0);
            }
        }
    }
    (p1 + d1 * s, p2 + d2 * t)
}

/// The point of segment s0–s1 closest to p.
pub(crate) fn closest_on_segment(p: Vec3, s0: Vec3, s1: Vec3) -> Vec3 {
    let d = s1 - s0;
    let l2 = d.dot(d);
    if l2 <= SEG_EPS {
        return s0;
    }
    s0 + d * clampf((p - s0).dot(d) / l2, 0.0, 1.0)
}

/// Whether `x` is larger than `best` by more than a rounding-sized margin (1e-5·(1 + |best|)),
/// so near-ties keep the earlier candidate on both CPU and GPU.
fn beats(x: f32, best: f32) -> bool {
    x > best + 1e-5 * (1.0 + best.abs())
}

/// The ends of a capsule's segment (local y, half length `dims.y`).
fn capsule_ends(pose: Pose, dims: Vec4) -> (Vec3, Vec3) {
    let h = quat_rotate(pose.rot, Vec3::new(0.0, dims.y, 0.0));
    (pose.pos - h, pose.pos + h)
}

// ---------------------------------------------------------------------------------------------
// Round shapes.

/// Two spheres (or a sphere and a capsule's nearest segment point). Coincident centres push
/// along +y.
fn sphere_sphere(m: &mut GpuManifold, margin: f32, pa: Vec3, ra: f32, pb: Vec3, rb: f32) {
    let d = pa - pb;
    let d2 = d.dot(d);
    let mut n = Vec3::Y;
    let mut dist = 0.0;
    if d2 > 0.0 {
        dist = d2.sqrt();
        n = d / dist;
    }
    let sep = dist - ra - rb;
    if sep >= margin {
        return;
    }
    m.normal = n.extend(0.0);
    let p = ((pa - n * ra) + (pb + n * rb)) * 0.5;
    add_contact(m, p, -sep, 0);
}

/// A sphere and a capsule: the sphere against the segment's nearest point.
fn sphere_capsule(m: &mut GpuManifold, margin: f32, pa: Vec3, ra: f32, pb: Pose, dims: Vec4) {
    let (e0, e1) = capsule_ends(pb, dims);
    let c = closest_on_segment(pa, e0, e1);
    sphere_sphere(m, margin, pa, ra, c, dims.x);
}

/// A sphere and a half-space, or a two-sided plane (`two_sided`).
fn sphere_plane(
    m: &mut GpuManifold,
    margin: f32,
    p: Vec3,
    r: f32,
    n0: Vec3,
    off: f32,
    two_sided: bool,
) {
    let mut n = n0;
    let mut dist = n.dot(p) - off;
    if two_sided && dist < 0.0 {
        n = -n;
        dist = -dist;
    }
    let sep = dist - r;
    if sep >= margin {
        return;
    }
    m.normal = n.extend(0.0);
    add_contact(m, p - n * ((r + dist) * 0.5), -sep, 0);
}

/// A sphere and a box: closest point in the box frame; a centre inside the box leaves by the
/// face of least depth.
fn sphere_box(m: &mut GpuManifold, margin: f32, pa: Vec3, r: f32, pb: Pose, h: Vec3) {
    let rel = quat_rotate_inv(pb.rot, pa - pb.pos);
    let q = Vec3::new(
        clampf(rel.x, -h.x, h.x),
        clampf(rel.y, -h.y, h.y),
        clampf(rel.z, -h.z, h.z),
    );
    let diff = rel - q;
    let d2 = diff.dot(diff);
    let n_local;
    let surface;
    let sep;
    if d2 > 0.0 {
        let d = d2.sqrt();
        n_local = diff / d;
        surface = q;
        sep = d - r;
    } else {
        let mut k = 0u32;
        let mut best = h.x - rel.x.abs();
        for i in 1..3u32 {
            let depth = comp(h, i) - comp(rel, i).abs();
            if depth < best {
                best = depth;
                k = i;
            }
        }
        let s = sign_of(comp(rel, k));
        n_local = basis(k) * s;
        surface = with_comp(rel, k, s * comp(h, k));
        sep = -best - r;
    }
    if sep >= margin {
        return;
    }
    let n = quat_rotate(pb.rot, n_local);
    m.normal = n.extend(0.0);
    let deepest = pa - n * r;
    let on_box = pb.pos + quat_rotate(pb.rot, surface);
    add_contact(m, (deepest + on_box) * 0.5, -sep, 0);
}

// ---------------------------------------------------------------------------------------------
// Boxes, capsules and planes.

/// Box vertex `i` in the book's order: x negated by bit 0, y by bit 1, z by bit 2.
fn box_vertex(h: Vec3, i: u32) -> Vec3 {
    let sx = if (i & 1) != 0 { -1.0 } else { 1.0 };
    let sy = if (i & 2) != 0 { -1.0 } else { 1.0 };
    let sz = if (i & 4) != 0 { -1.0 } else { 1.0 };
    Vec3::new(h.x * sx, h.y * sy, h.z * sz)
}

/// A box and a half-space or two-sided plane: every vertex within the margin, four deepest kept.
fn box_plane(
    m: &mut GpuManifold,
    margin: f32,
    pa: Pose,
    h: Vec3,
    n0: Vec3,
    off0: f32,
    two_sided: bool,
) {
    let mut n = n0;
    let mut off = off0;
    let mut side = 0u32;
    if two_sided && n.dot(pa.pos) - off < 0.0 {
        n = -n;
        off = -off;
        side = 8;
    }
    for i in 0..8u32 {
        let v = pa.pos + quat_rotate(pa.rot, box_vertex(h, i));
        let depth = off - n.dot(v);
        if depth > -margin {
            add_contact(m, v + n * (depth * 0.5), depth, i + side);
        }
    }
    if m.count > 0 {
        m.normal = n.extend(0.0);
    }
}
