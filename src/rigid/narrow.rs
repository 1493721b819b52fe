//! Stage `narrow`: one manifold of up to four contacts per broad-phase pair (catalogue §10).
//! Reads `shapes`, `bodies` and `pairs`; writes `manifolds[k]` for pair k. The WGSL twin is
//! `shaders/rigid/narrow.wgsl`, with the same functions in the same operation order.
//!
//! Conventions (see `types.rs`): the normal points from shape b to shape a (it pushes a out);
//! penetration is positive when overlapping. A pair is reordered so the lower shape kind comes
//! first (sphere < box < capsule < half-space < plane; ties keep the pair's order), so the
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
//!   gives one contact between the segment and the box edge.
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
//!
//! A face code is 2·axis + 1 for the negative side (axis in SAT numbering for the reference,
//! 0..3 for the incident face); an edge is 4·axis + sign bits of the other two coordinates. A
//! clipped face point is named by geometry, not by its clipping history: incident vertex k
//! (0..4) when it lies near that vertex, else 4 + its quadrant about the clipped polygon's
//! centroid (16 added while the id is taken in the manifold). Corners of a box stacked flush
//! keep their ids while they jitter across the sides of the face below (clipped one step, not
//! the next), and so do the corners of a half-offset stack.
//!
//! The shapes' world pose is recomputed from their bodies (body position + rotated offset,
//! body orientation · offset rotation) rather than read from `shape_xf`, so the stage does not
//! depend on the broad phase having run in the same step.

use glam::{Mat3, Vec3, Vec4, Vec4Swizzles};

use super::material::combine;
use super::math::{quat_mul, quat_rotate, quat_rotate_inv, quat_to_mat3};
use super::types::{shape_kind, GpuBody, GpuManifold, GpuRigidParams, GpuShape, NONE};

mod box_box;
pub use box_box::{box_box_sat, BoxBoxSat};

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
/// bodies (see the module docs).
pub fn narrow(
    params: &GpuRigidParams,
    shapes: &[GpuShape],
    bodies: &[GpuBody],
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
        manifolds[k] = collide_shapes(params, shapes, bodies, shape_xf, a, b);
    }
}

/// The manifold of shapes `a` and `b` (indices into `shapes`): bodies, shapes (reordered by kind,
/// see the module docs), combined friction (normal.w) and restitution (material.x), and up to
/// four contacts. `count` is 0 when they are apart by `contact_margin` or more, when an index is
/// out of range, when both shapes belong to the same body, or for pairs of half-spaces and
/// planes. `colour` is [`NONE`] and the impulses
/// are zero (the solver warm-starts them by feature id).
pub fn collide_shapes(
    params: &GpuRigidParams,
    shapes: &[GpuShape],
    bodies: &[GpuBody],
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
    let (ia, ib, sa, sb) = if s1.kind < s0.kind {
        (b, a, s1, s0)
    } else {
        (a, b, s0, s1)
    };
    m.shape_a = ia;
    m.shape_b = ib;
    m.body_a = sa.body;
    m.body_b = sb.body;
    let friction = combine(params.combine_friction, sa.material.x, sb.material.x);
    m.material = Vec4::new(
        combine(params.combine_restitution, sa.material.y, sb.material.y),
        0.0,
        0.0,
        0.0,
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
        _ => {}
    }
    m.normal.w = friction;
    m
}

// ---------------------------------------------------------------------------------------------
// Small helpers (each has a WGSL twin of the same name).

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
fn closest_on_segment(p: Vec3, s0: Vec3, s1: Vec3) -> Vec3 {
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

/// A capsule and a half-space or two-sided plane: both segment ends.
fn capsule_plane(
    m: &mut GpuManifold,
    margin: f32,
    pa: Pose,
    dims: Vec4,
    n0: Vec3,
    off0: f32,
    two_sided: bool,
) {
    let mut n = n0;
    let mut off = off0;
    if two_sided && n.dot(pa.pos) - off < 0.0 {
        n = -n;
        off = -off;
    }
    let r = dims.x;
    let (e0, e1) = capsule_ends(pa, dims);
    let d0 = n.dot(e0) - off;
    if d0 - r < margin {
        add_contact(m, e0 - n * ((r + d0) * 0.5), r - d0, 0);
    }
    let d1 = n.dot(e1) - off;
    if d1 - r < margin {
        add_contact(m, e1 - n * ((r + d1) * 0.5), r - d1, 1);
    }
    if m.count > 0 {
        m.normal = n.extend(0.0);
    }
}

/// Two capsules: closest points of the segments; near-parallel segments give a contact at each
/// end of their common stretch.
fn capsule_capsule(m: &mut GpuManifold, margin: f32, pa: Pose, da: Vec4, pb: Pose, db: Vec4) {
    let (a0, a1) = capsule_ends(pa, da);
    let (b0, b1) = capsule_ends(pb, db);
    let ua = a1 - a0;
    let ub = b1 - b0;
    let la = ua.dot(ua);
    let lb = ub.dot(ub);
    let cr = ua.cross(ub);
    if la > SEG_EPS && lb > SEG_EPS && cr.dot(cr) <= PARALLEL_EPS * la * lb {
        // Parallel: b's ends projected on a's line, clipped to a, give the common stretch.
        let t0 = clampf((b0 - a0).dot(ua) / la, 0.0, 1.0);
        let t1 = clampf((b1 - a0).dot(ua) / la, 0.0, 1.0);
        if (t1 - t0).abs() * la.sqrt() > 1e-4 {
            let p0 = a0 + ua * t0;
            let p1 = a0 + ua * t1;
            let q0 = closest_on_segment(p0, b0, b1);
            let q1 = closest_on_segment(p1, b0, b1);
            sphere_sphere(m, margin, p0, da.x, q0, db.x);
            let n0 = m.normal;
            let c0 = m.count;
            sphere_sphere(m, margin, p1, da.x, q1, db.x);
            if m.count > c0 {
                m.features[c0 as usize] = 1;
                if c0 > 0 {
                    // One normal per manifold: the pair's average, both nearly equal.
                    let avg = n0.xyz() + m.normal.xyz();
                    let l2 = avg.dot(avg);
                    if l2 > 0.0 {
                        m.normal = unit(avg).extend(0.0);
                    } else {
                        m.normal = n0;
                    }
                }
            }
            return;
        }
    }
    let (ca, cb) = closest_segments(a0, a1, b0, b1);
    sphere_sphere(m, margin, ca, da.x, cb, db.x);
}

/// Clips the segment p0 + t·d, t ∈ [0, 1], to the slabs |x_j| ≤ h_j of the two axes other than
/// `i`; returns (t0, t1), empty when t0 > t1.
fn clip_segment_to_face(p0: Vec3, d: Vec3, h: Vec3, i: u32) -> (f32, f32) {
    let mut t0 = 0.0f32;
    let mut t1 = 1.0f32;
    for k in 1..3u32 {
        let j = (i + k) % 3;
        let p = comp(p0, j);
        let dj = comp(d, j);
        let hj = comp(h, j);
        if dj.abs() <= 1e-12 {
            if p.abs() > hj {
                t0 = 1.0;
                t1 = 0.0;
            }
        } else {
            let ta = (-hj - p) / dj;
            let tb = (hj - p) / dj;
            t0 = t0.max(ta.min(tb));
            t1 = t1.min(ta.max(tb));
        }
    }
    (t0, t1)
}

/// Whether the segment p0 + t·d, t ∈ [0, 1], meets the box |x| ≤ h (slab test).
fn segment_hits_box(p0: Vec3, d: Vec3, h: Vec3) -> bool {
    let mut t0 = 0.0f32;
    let mut t1 = 1.0f32;
    for j in 0..3u32 {
        let p = comp(p0, j);
        let dj = comp(d, j);
        let hj = comp(h, j);
        if dj.abs() <= 1e-12 {
            if p.abs() > hj {
                return false;
            }
        } else {
            let ta = (-hj - p) / dj;
            let tb = (hj - p) / dj;
            t0 = t0.max(ta.min(tb));
            t1 = t1.min(ta.max(tb));
        }
    }
    t0 <= t1
}

/// The ends of box edge `k` (0..12): parallel to axis k / 4, the other two coordinates' signs
/// from bits 0 and 1 of k % 4 (set = negative).
fn box_edge(h: Vec3, k: u32) -> (Vec3, Vec3) {
    let i = k / 4;
    let j = (i + 1) % 3;
    let l = (i + 2) % 3;
    let sj = if (k & 1) != 0 { -1.0 } else { 1.0 };
    let sl = if (k & 2) != 0 { -1.0 } else { 1.0 };
    let base = with_comp(
        with_comp(Vec3::ZERO, j, sj * comp(h, j)),
        l,
        sl * comp(h, l),
    );
    (
        with_comp(base, i, -comp(h, i)),
        with_comp(base, i, comp(h, i)),
    )
}

/// Box (a) and capsule (b), in the box frame; see the module docs for the method. Normals are
/// computed from box to capsule (`nl`) and flipped to push the box out.
fn box_capsule(m: &mut GpuManifold, margin: f32, pa: Pose, h: Vec3, pb: Pose, dims: Vec4) {
    let r = dims.x;
    let (w0, w1) = capsule_ends(pb, dims);
    let p0 = quat_rotate_inv(pa.rot, w0 - pa.pos);
    let p1 = quat_rotate_inv(pa.rot, w1 - pa.pos);
    let d = p1 - p0;
    let face: u32;
    let face_sign: f32;
    if !segment_hits_box(p0, d, h) {
        // Separated segment: the exact closest points (ends against the box, then the edges).
        let mut s = p0;
        let mut q = Vec3::new(
            clampf(p0.x, -h.x, h.x),
            clampf(p0.y, -h.y, h.y),
            clampf(p0.z, -h.z, h.z),
        );
        let mut best = (s - q).dot(s - q);
        let mut feature = 0u32;
        let q1 = Vec3::new(
            clampf(p1.x, -h.x, h.x),
            clampf(p1.y, -h.y, h.y),
            clampf(p1.z, -h.z, h.z),
        );
        let e1 = (p1 - q1).dot(p1 - q1);
        // Near-ties keep the earlier candidate (a box vertex is the end of three edges).
        if beats(best, e1) {
            best = e1;
            s = p1;
            q = q1;
            feature = 1;
        }
        for k in 0..12u32 {
            let (ea, eb) = box_edge(h, k);
            let (cs, ce) = closest_segments(p0, p1, ea, eb);
            let e = (cs - ce).dot(cs - ce);
            if beats(best, e) {
                best = e;
                s = cs;
                q = ce;
                feature = 2 + k;
            }
        }
        let dist = best.sqrt();
        if dist - r >= margin || dist <= 0.0 {
            return;
        }
        let nl = (s - q) / dist;
        let mut fi = 0u32;
        for i in 1..3u32 {
            if comp(nl, i).abs() > comp(nl, fi).abs() {
                fi = i;
            }
        }
        if comp(nl, fi).abs() >= 1.0 - FACE_EPS {
            face = fi;
            face_sign = sign_of(comp(nl, fi));
        } else {
            let n = -quat_rotate(pa.rot, nl);
            m.normal = n.extend(0.0);
            let p = ((s - nl * r) + q) * 0.5;
            add_contact(m, pa.pos + quat_rotate(pa.rot, p), r - dist, feature);
            return;
        }
    } else {
        // Intersecting segment: SAT over the box faces and the segment × face-axis crosses.
        let c = (p0 + p1) * 0.5;
        let half = d * 0.5;
        let hmin = h.x.min(h.y).min(h.z);
        let mut best_face = 0u32;
        let mut best_face_o = BIG;
        let mut best_edge = 3u32;
        let mut best_edge_o = BIG;
        let mut best_edge_axis = Vec3::X;
        for i in 0..6u32 {
            let mut axis = basis(i % 3);
            if i >= 3 {
                axis = d.cross(axis);
                let l2 = axis.dot(axis);
                if l2 < PARALLEL_EPS * d.dot(d) || l2 <= 0.0 {
                    continue;
                }
                axis = unit(axis);
            }
            let o = h.x * axis.x.abs()
                + h.y * axis.y.abs()
                + h.z * axis.z.abs()
                + r
                + half.dot(axis).abs()
                - c.dot(axis).abs();
            if i < 3 {
                if o < best_face_o {
                    best_face_o = o;
                    best_face = i;
                }
            } else if o < best_edge_o {
                best_edge_o = o;
                best_edge = i - 3;
                best_edge_axis = axis;
            }
        }
        if best_edge_o < best_face_o - (BIAS_REL * best_face_o.abs() + BIAS_ABS * hmin) {
            // Segment against the box edge parallel to axis best_edge on the segment's side.
            let mut nl = best_edge_axis;
            if c.dot(nl) < 0.0 {
                nl = -nl;
            }
            let i = best_edge;
            let j = (i + 1) % 3;
            let l = (i + 2) % 3;
            let base = with_comp(
                with_comp(Vec3::ZERO, j, sign_of(comp(nl, j)) * comp(h, j)),
                l,
                sign_of(comp(nl, l)) * comp(h, l),
            );
            let ea = with_comp(base, i, -comp(h, i));
            let eb = with_comp(base, i, comp(h, i));
            let (cs, ce) = closest_segments(p0, p1, ea, eb);
            let n = -quat_rotate(pa.rot, nl);
            m.normal = n.extend(0.0);
            let p = ((cs - nl * r) + ce) * 0.5;
            let sj = if comp(nl, j) < 0.0 { 1u32 } else { 0 };
            let sl = if comp(nl, l) < 0.0 { 2u32 } else { 0 };
            add_contact(
                m,
                pa.pos + quat_rotate(pa.rot, p),
                best_edge_o,
                2 + 4 * i + sj + sl,
            );
            return;
        }
        face = best_face;
        face_sign = sign_of(comp(c, best_face));
    }
    // Face case: the segment clipped to the face's rectangle, a contact at each end.
    let nl = basis(face) * face_sign;
    let n = -quat_rotate(pa.rot, nl);
    let hf = comp(h, face);
    let (t0, t1) = clip_segment_to_face(p0, d, h, face);
    let code = 16 + 2 * face + if face_sign < 0.0 { 1 } else { 0 };
    if t0 <= t1 {
        let mut t = t0;
        for e in 0..2u32 {
            if e == 1 {
                if t1 - t0 <= 1e-6 {
                    break;
                }
                t = t1;
            }
            let p = p0 + d * t;
            let height = face_sign * comp(p, face) - hf;
            if height - r < margin {
                let on_face = with_comp(p, face, face_sign * hf);
                let mid = ((p - nl * r) + on_face) * 0.5;
                add_contact(
                    m,
                    pa.pos + quat_rotate(pa.rot, mid),
                    r - height,
                    code * 2 + e,
                );
            }
        }
    } else {
        // Numerically outside the face: the end deeper along −nl, clamped onto the face.
        let mut p = p0;
        if face_sign * comp(p1, face) < face_sign * comp(p0, face) {
            p = p1;
        }
        let height = face_sign * comp(p, face) - hf;
        if height - r < margin {
            let on_face = Vec3::new(
                clampf(p.x, -h.x, h.x),
                clampf(p.y, -h.y, h.y),
                clampf(p.z, -h.z, h.z),
            );
            let on_face = with_comp(on_face, face, face_sign * hf);
            let mid = ((p - nl * r) + on_face) * 0.5;
            add_contact(m, pa.pos + quat_rotate(pa.rot, mid), r - height, code * 2);
        }
    }
    if m.count > 0 {
        m.normal = n.extend(0.0);
    }
}
