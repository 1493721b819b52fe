//! Pairs with a hull (part of stage `narrow`; WGSL twin in `shaders/rigid/narrow/hull_pairs.wgsl`,
//! over the hull routines of `crate::rigid::hull` and `shaders/rigid/hull/`). The pair arrives
//! turned by [`shape_kind::order`] (sphere < box < capsule < hull < half-space < plane), so the
//! hull is shape b unless a half-space or plane is:
//!
//! | pair | method | features |
//! |---|---|---|
//! | sphere–hull | GJK from the sphere's centre to the hull; EPA when the centre is inside | 0 |
//! | box–hull, hull–hull | SAT over face normals and Gauss-map-pruned edge pairs, face clipping to four points ([`hull::hull_hull`]; a box is the store's unit cube scaled) | [`hull::manifold`]'s face and edge ids |
//! | capsule–hull | GJK from the capsule's segment, EPA when it pierces the hull; a normal within [`FACE_EPS`] of a hull face's clips the segment to that face (two contacts for a capsule lying on it) | 0; clipped: 2 + 2·face + end |
//! | hull–half-space / plane | every vertex within the margin, the four deepest kept (as box–plane) | vertex index (+64 on a plane's negative side) |
//!
//! Round shapes (spheres, capsules) meet a hull through their core (a point, a segment), so
//! GJK and EPA run on polytopes and the radius is subtracted after: separated shapes get one
//! speculative contact while the gap is below the margin, like the other round pairs. Each
//! contact lies halfway between the two surfaces. A hull shape's `dims.x` names its header in
//! `hulls` (see `shape_kind::HULL`).

use super::*;
use crate::rigid::hull::{
    self, epa, gjk, ConvexShape, Frame, HullManifold, HullRef, HullWords, MAX_HULL_FACES,
    MAX_HULL_VERTICES,
};
use glam::UVec4;

/// A contact normal within this of a hull face's (`n·n_f ≥ 1 − FACE_EPS`) is that face: the
/// capsule is clipped to it (box–capsule's rule).
pub const HULL_FACE_EPS: f32 = FACE_EPS;

/// The hull a shape names: a hull shape's header (`dims.x`), or a box as the scaled unit cube.
pub fn shape_hull(words: &[UVec4], s: &GpuShape) -> HullRef {
    if s.kind == shape_kind::BOX {
        HullRef::cuboid(words, s.dims.xyz())
    } else {
        words.hull(s.dims.x as u32)
    }
}

/// The support-function view of a bounded shape at `pose` (GJK, EPA, conservative
/// advancement): a sphere is a point with its radius, a capsule a segment along local y with
/// its radius, a box a box core, a hull its hull.
pub fn convex_of(words: &[UVec4], s: &GpuShape, pose: Pose) -> ConvexShape {
    let frame = Frame::from_pose(pose.pos, pose.rot);
    match s.kind {
        shape_kind::SPHERE => ConvexShape::sphere(frame, s.dims.x),
        shape_kind::CAPSULE => ConvexShape::capsule(frame, s.dims.y, s.dims.x),
        shape_kind::BOX => ConvexShape::cuboid(frame, s.dims.xyz()),
        _ => ConvexShape::hull(frame, words.hull(s.dims.x as u32)),
    }
}

/// The manifold of a pair whose shape b (or a, before a plane) is a hull; `sa` comes first in
/// the narrow phase's order (see the module docs).
#[allow(clippy::too_many_arguments)]
pub(super) fn hull_pair(
    m: &mut GpuManifold,
    words: &[UVec4],
    margin: f32,
    sa: &GpuShape,
    pa: Pose,
    sb: &GpuShape,
    pb: Pose,
) {
    use shape_kind::*;
    match (sa.kind, sb.kind) {
        (HULL, HALF_SPACE) | (HULL, PLANE) => {
            let (n, off) = plane_world(pb, sb.dims);
            hull_plane(m, words, margin, sa, pa, n, off, sb.kind == PLANE);
        }
        (BOX, HULL) | (HULL, HULL) => {
            let ha = shape_hull(words, sa);
            let hb = shape_hull(words, sb);
            let fa = Frame::from_pose(pa.pos, pa.rot);
            let fb = Frame::from_pose(pb.pos, pb.rot);
            let hm = hull::hull_hull(words, &ha, &fa, &hb, &fb, margin);
            copy_manifold(m, &hm);
        }
        (SPHERE, HULL) | (CAPSULE, HULL) => {
            let a = convex_of(words, sa, pa);
            let b = convex_of(words, sb, pb);
            round_hull(m, words, margin, &a, &b);
        }
        _ => {}
    }
}

/// The points, depths, ids and normal of a hull manifold into the engine's manifold.
fn copy_manifold(m: &mut GpuManifold, hm: &HullManifold) {
    for i in 0..hm.count.min(4) as usize {
        add_contact(m, hm.points[i].xyz(), hm.points[i].w, hm.features[i]);
    }
    if m.count > 0 {
        m.normal = hm.normal.extend(0.0);
    }
}

/// A sphere or capsule `a` against hull `b` (see the module docs).
fn round_hull(m: &mut GpuManifold, words: &[UVec4], margin: f32, a: &ConvexShape, b: &ConvexShape) {
    let g = gjk::gjk(words, a, b);
    let mut n = g.normal;
    let mut pen = -g.distance;
    let mut pa = g.point_a;
    let mut pb = g.point_b;
    if g.overlap {
        let Some(e) = epa::epa(words, a, b, &g) else {
            return;
        };
        n = e.normal;
        pen = e.depth;
        pa = e.point_a;
        pb = e.point_b;
    }
    if -pen >= margin {
        return;
    }
    if a.kind == hull::support::core::SEGMENT && capsule_on_face(m, words, margin, a, b, n) {
        return;
    }
    m.normal = n.extend(0.0);
    add_contact(m, (pa + pb) * 0.5, pen, 0);
}

/// A capsule `a` whose contact normal `n` (from the hull `b` to it) is a face normal of the hull:
/// its segment clipped to that face's side planes, a contact at each end of what is left
/// within the margin. False (nothing added) when `n` is no face's normal or the clip is empty.
fn capsule_on_face(
    m: &mut GpuManifold,
    words: &[UVec4],
    margin: f32,
    a: &ConvexShape,
    b: &ConvexShape,
    n: Vec3,
) -> bool {
    let h = &b.hull;
    let nl = b.frame.inv_dir(n);
    let mut face = 0u32;
    let mut best = words.plane(h, 0).xyz().dot(nl);
    for f in 1..h.face_count.min(MAX_HULL_FACES) {
        let d = words.plane(h, f).xyz().dot(nl);
        if beats(d, best) {
            best = d;
            face = f;
        }
    }
    if best < 1.0 - HULL_FACE_EPS {
        return false;
    }
    let pl = words.plane(h, face);
    let nf = pl.xyz();
    // The segment in the hull's frame.
    let half = a.frame.dir(Vec3::new(0.0, a.dims.y, 0.0));
    let p0 = b.frame.inv_point(a.frame.pos - half);
    let d = b.frame.inv_point(a.frame.pos + half) - p0;
    let loop_ = words.face(h, face);
    let nv = loop_.count.min(MAX_HULL_VERTICES);
    let mut t0 = 0.0f32;
    let mut t1 = 1.0f32;
    for k in 0..nv {
        let v0 = words.vertex(h, words.loop_vertex(h, &loop_, k));
        let v1 = words.vertex(h, words.loop_vertex(h, &loop_, (k + 1) % nv));
        let side = (v1 - v0).cross(nf);
        let s0 = side.dot(p0 - v0);
        let sd = side.dot(d);
        if sd.abs() <= 1e-12 {
            if s0 > 0.0 {
                t0 = 1.0;
                t1 = 0.0;
            }
        } else {
            let t = -s0 / sd;
            if sd > 0.0 {
                t1 = t1.min(t);
            } else {
                t0 = t0.max(t);
            }
        }
    }
    if t0 > t1 {
        return false;
    }
    let r = a.dims.w;
    let c0 = m.count;
    let mut t = t0;
    for e in 0..2u32 {
        if e == 1 {
            if t1 - t0 <= 1e-6 {
                break;
            }
            t = t1;
        }
        let p = p0 + d * t;
        let height = nf.dot(p) - pl.w;
        if height - r < margin {
            let mid = p - nf * ((r + height) * 0.5);
            add_contact(m, b.frame.point(mid), r - height, 2 + 2 * face + e);
        }
    }
    if m.count > c0 {
        m.normal = b.frame.dir(nf).extend(0.0);
        return true;
    }
    false
}

/// A hull and a half-space or two-sided plane: every vertex within the margin, the four deepest
/// kept (box–plane's rule; a plane's side is the side of the hull's origin).
#[allow(clippy::too_many_arguments)]
fn hull_plane(
    m: &mut GpuManifold,
    words: &[UVec4],
    margin: f32,
    s: &GpuShape,
    pa: Pose,
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
        side = 64;
    }
    let h = shape_hull(words, s);
    let f = Frame::from_pose(pa.pos, pa.rot);
    for i in 0..h.vertex_count.min(MAX_HULL_VERTICES) {
        let v = f.point(words.vertex(&h, i));
        let depth = off - n.dot(v);
        if depth > -margin {
            add_contact(m, v + n * (depth * 0.5), depth, i + side);
        }
    }
    if m.count > 0 {
        m.normal = n.extend(0.0);
    }
}
