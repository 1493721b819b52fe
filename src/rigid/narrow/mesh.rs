//! Pairs with level geometry (part of stage `narrow`; WGSL twin in
//! `shaders/rigid/narrow/mesh.wgsl`, run by the `narrow_mesh` kernel, same functions in the
//! same operation order): a sphere, box, capsule or hull against a
//! static triangle mesh ([`shape_kind::MESH`]) or heightfield ([`shape_kind::HEIGHTFIELD`]). The
//! pair arrives turned by [`shape_kind::order`] (level geometry sorts last), so the convex shape
//! is a and the geometry b; pairs of level geometry with a plane, a half-space or each other
//! give no contacts.
//!
//! # Method
//! 1. The convex shape is taken into the geometry's frame, and its box there (as the broad
//!    phase bounds it) grown by the contact margin is the query.
//! 2. The triangles that may touch it: for a mesh, the stackless BVH walk over the stored
//!    words ([`layout::mesh_walk`], at most one trip per node); for a heightfield, the cells
//!    under the query's footprint ([`layout::heightfield_cells`]; at most [`MESH_MAX_CELLS`],
//!    the first row by row from the low-z row, each row from its low-x end). Each triangle whose own box
//!    meets the query is tested.
//! 3. Contacts with one triangle (its normal from the triangle to the shape; one-sided: a
//!    shape whose centre is behind the triangle's plane makes none; a two-sided mesh's
//!    triangle comes turned to face the shape's centre, [`layout::mesh_facing`]):
//!    - sphere: [`sphere_triangle`]; capsule: [`capsule_triangle_slots`]; both with the
//!      internal-edge rule of `crate::rigid::mesh`;
//!    - box and hull (a box is the store's unit cube scaled): SAT over the triangle's normal,
//!      the polytope's face normals and the crosses of its edges with the triangle's, only
//!      those pairs that build a face of the Minkowski difference (Gauss-map pruning,
//!      `edge_axis`), as the hull–hull SAT does. Only the triangle's normal projects the
//!      polytope; a polytope face's extent is its plane and an edge pair's overlap is the
//!      edges' distance along the axis. The triangle's normal is kept unless another axis is
//!      shallower by [`MESH_AXIS_REL`] of it plus [`MESH_AXIS_ABS`], polytope faces before edge
//!      pairs. The
//!      triangle's normal clips the polytope's incident face (its face most against the normal)
//!      to the triangle; a polytope face clips the triangle to that face; an edge pair gives
//!      one point between the two edges. Then the internal-edge rule: when the axis is not the
//!      triangle's normal and the triangle's feature on it (the triangle's support along the
//!      normal: a vertex or an edge, or the edge of an edge pair) is inactive, the triangle's
//!      normal is taken instead, and the contacts are the face case's, depths along it.
//! 4. One manifold for the pair: the deepest contact's normal (near-ties keep the earlier
//!    contact), the contacts whose normal is within [`MESH_NORMAL_COS`] of it, and of those the
//!    four spread by the hull manifold's reduction (`hull::manifold::reduce4`: the deepest, the
//!    farthest from it, the largest triangle, the farthest outside it). A sphere keeps its
//!    deepest contact alone. Each point lies halfway between the surfaces.
//!
//! **One normal per pair.** A shape touching the geometry along two directions at once (a box
//! wedged in a V-shaped valley, a ball in a corner) gets only the contacts near the deepest
//! one's normal this step; the others are found when they become the deepest. Level geometry
//! is static, so a resting body settles against one side and stays.
//!
//! Feature ids: `triangle id · 256 + local`, the triangle's id in the mesh's numbering (a
//! heightfield's triangle slot), `local`: for a sphere its region (0 face, 1 + edge,
//! 4 + vertex); for a capsule 8·slot + region (slot 0 and 1 the ends, 2 the middle); for a box
//! or hull 32 + k for the incident face's k-th clipped point, 128 + k for the triangle's k-th
//! clipped point against a polytope face, 192 + 16·(triangle edge) + (polytope edge mod 16)
//! for an edge pair. Only ids within one manifold need to differ.
//!
//! **Software adapters.** Mesa's lavapipe and llvmpipe break every loop of a SIMD group of 8
//! invocations after 65,535 iterations in all. Projecting the polytope on every axis cost a
//! hull of 24 points about 6,000 trips a triangle, enough for a group of 8 level pairs with
//! hulls to run past the limit and keep one contact a pair (bodies sank there). The SAT above
//! costs such a hull one trip per vertex (the triangle's normal), per face and per edge, about
//! 24 + 44 + 66 a triangle, and the three triangle edges of a polytope edge are written out in
//! the WGSL rather than looped; `rigid_mesh_gpu`'s full groups of polytope pairs hold the GPU
//! to the twin with eight such pairs to every group.

use super::*;
use crate::rigid::broad::half_extent;
use crate::rigid::hull::manifold::{reduce4, MAX_CLIP};
use crate::rigid::hull::{HullRef, HullWords, MAX_HULL_EDGES, MAX_HULL_FACES, MAX_HULL_VERTICES};
use crate::rigid::mesh::layout;
use crate::rigid::mesh::{
    capsule_triangle_slots, region_is_active, sphere_triangle, Aabb, TriangleContact,
    TriangleRegion,
};

/// Contacts within this cosine of the deepest one's normal (25°) join its manifold.
pub const MESH_NORMAL_COS: f32 = 0.906_307_8;
/// A SAT axis replaces the triangle's normal (or a polytope face) only when shallower by this
/// fraction of the current best overlap...
pub const MESH_AXIS_REL: f32 = 0.05;
/// ... plus this (metres): a rounding-sized margin, so a box flat on a triangle keeps the
/// triangle's normal.
pub const MESH_AXIS_ABS: f32 = 1e-4;
/// Heightfield cells one pair, sweep or cast walks at most (a bound for software adapters' loop
/// limits): of more cells under its box, the first row by row from the box's low-z row, each
/// row from its low-x end (size heightfield cells so a body's box spans fewer than 16 × 16).
pub const MESH_MAX_CELLS: u32 = 256;
/// Polygon points a clip may hold: a hull face (32 vertices) clipped by three sides, or a
/// triangle clipped by a face's 32 sides.
const CLIP_POINTS: usize = MAX_CLIP + 4;

/// The contacts found so far for one pair, in the geometry's frame: at most [`MAX_CLIP`]; a
/// new one beyond that replaces the shallowest when deeper.
struct Candidates {
    n: usize,
    point: [Vec3; MAX_CLIP],
    normal: [Vec3; MAX_CLIP],
    depth: [f32; MAX_CLIP],
    feature: [u32; MAX_CLIP],
}

impl Candidates {
    fn new() -> Self {
        Self {
            n: 0,
            point: [Vec3::ZERO; MAX_CLIP],
            normal: [Vec3::ZERO; MAX_CLIP],
            depth: [0.0; MAX_CLIP],
            feature: [0; MAX_CLIP],
        }
    }

    fn add(&mut self, point: Vec3, normal: Vec3, depth: f32, feature: u32) {
        let mut k = self.n;
        if self.n == MAX_CLIP {
            k = 0;
            for i in 1..MAX_CLIP {
                if self.depth[i] < self.depth[k] {
                    k = i;
                }
            }
            if depth <= self.depth[k] {
                return;
            }
        } else {
            self.n += 1;
        }
        self.point[k] = point;
        self.normal[k] = normal;
        self.depth[k] = depth;
        self.feature[k] = feature;
    }
}

/// A box's or hull's vertices and face planes in the geometry's frame.
struct Polytope {
    hull: HullRef,
    vertex_count: u32,
    face_count: u32,
    vertices: [Vec3; MAX_HULL_VERTICES as usize],
    planes: [Vec4; MAX_HULL_FACES as usize],
    /// A point inside (the shape's centre of mass), for the one-sided test.
    centre: Vec3,
    /// Its bounding radius, the scale of its tolerances.
    size: f32,
}

impl Polytope {
    fn new(words: &[UVec4], s: &GpuShape, pose: Pose) -> Self {
        let hull = shape_hull(words, s);
        let vertex_count = hull.vertex_count.min(MAX_HULL_VERTICES);
        let face_count = hull.face_count.min(MAX_HULL_FACES);
        let mut vertices = [Vec3::ZERO; MAX_HULL_VERTICES as usize];
        let mut planes = [Vec4::ZERO; MAX_HULL_FACES as usize];
        let mut size = 0.0f32;
        for i in 0..vertex_count {
            let v = words.vertex(&hull, i);
            size = size.max(v.length());
            vertices[i as usize] = pose.pos + quat_rotate(pose.rot, v);
        }
        for f in 0..face_count {
            let p = words.plane(&hull, f);
            let n = quat_rotate(pose.rot, p.xyz());
            planes[f as usize] = n.extend(p.w + n.dot(pose.pos));
        }
        let c = if s.kind == shape_kind::BOX {
            Vec3::ZERO
        } else {
            hull.centre.xyz()
        };
        Self {
            hull,
            vertex_count,
            face_count,
            vertices,
            planes,
            centre: pose.pos + quat_rotate(pose.rot, c),
            size,
        }
    }

    /// The polytope's interval along `axis`.
    fn interval(&self, axis: Vec3) -> (f32, f32) {
        let mut lo = f32::INFINITY;
        let mut hi = f32::NEG_INFINITY;
        for i in 0..self.vertex_count as usize {
            let d = axis.dot(self.vertices[i]);
            lo = lo.min(d);
            hi = hi.max(d);
        }
        (lo, hi)
    }
}

/// The manifold of convex shape `sa` (at `pa`) with the mesh or heightfield `sb` (at `pb`);
/// see the module docs.
#[allow(clippy::too_many_arguments)]
pub(super) fn mesh_pair(
    m: &mut GpuManifold,
    words: &[UVec4],
    margin: f32,
    sa: &GpuShape,
    pa: Pose,
    sb: &GpuShape,
    pb: Pose,
) {
    use shape_kind::*;
    if !matches!(sa.kind, SPHERE | BOX | CAPSULE | HULL) {
        return;
    }
    // Shape a in the geometry's frame.
    let conj = Vec4::new(-pb.rot.x, -pb.rot.y, -pb.rot.z, pb.rot.w);
    let local = Pose {
        pos: quat_rotate_inv(pb.rot, pa.pos - pb.pos),
        rot: quat_mul(conj, pa.rot),
    };
    let ext = half_extent(sa.kind, sa.dims, local.rot) + Vec3::splat(margin);
    let query = Aabb {
        min: local.pos - ext,
        max: local.pos + ext,
    };
    let poly = if sa.kind == BOX || sa.kind == HULL {
        Some(Polytope::new(words, sa, local))
    } else {
        None
    };
    let mut c = Candidates::new();
    let mut each = |tri: [Vec3; 3], active: u32, id: u32| {
        let b = Aabb::EMPTY.with(tri[0]).with(tri[1]).with(tri[2]);
        if !b.overlaps(&query) {
            return;
        }
        let base = id.wrapping_mul(256);
        match &poly {
            Some(p) => polytope_triangle(&mut c, p, words, margin, tri, active, base),
            None => round_triangle(&mut c, sa, local, margin, tri, active, base),
        }
    };
    // A two-sided mesh's triangles face the point the one-sided tests measure from.
    let toward = poly.as_ref().map_or(local.pos, |p| p.centre);
    let block = sb.dims.x as u32;
    layout::visit_triangles(
        words,
        sb.kind,
        block,
        &query,
        MESH_MAX_CELLS,
        toward,
        &mut each,
    );
    finish(m, &c, pb, sa.kind == SPHERE);
}

/// A region's code in a feature id: 0 face, 1 + edge, 4 + vertex.
fn region_code(r: TriangleRegion) -> u32 {
    match r {
        TriangleRegion::Face => 0,
        TriangleRegion::Edge(e) => 1 + u32::from(e),
        TriangleRegion::Vertex(v) => 4 + u32::from(v),
    }
}

/// A triangle contact of the ball of radius `r` about `centre` as a candidate halfway between
/// the surfaces along its normal, under the centre: where a plane of that normal would put it.
/// (The triangle's closest point is not used: on an inactive edge it lies beside the ball,
/// and a contact there would give the ball a lever arm it does not have on the plane.)
fn add_round(c: &mut Candidates, centre: Vec3, r: f32, t: &TriangleContact, feature: u32) {
    c.add(
        centre - t.normal * (r - 0.5 * t.depth),
        t.normal,
        t.depth,
        feature,
    );
}

/// A sphere's or capsule's contacts with one triangle.
#[allow(clippy::too_many_arguments)]
fn round_triangle(
    c: &mut Candidates,
    s: &GpuShape,
    local: Pose,
    margin: f32,
    tri: [Vec3; 3],
    active: u32,
    base: u32,
) {
    let act = active as u8;
    if s.kind == shape_kind::SPHERE {
        if let Some(t) = sphere_triangle(local.pos, s.dims.x, tri, act, false, margin) {
            add_round(c, local.pos, s.dims.x, &t, base + region_code(t.region));
        }
        return;
    }
    let (p0, p1) = capsule_ends(local, s.dims);
    let slots = capsule_triangle_slots(p0, p1, s.dims.x, tri, act, false, margin);
    for (k, t) in slots.iter().enumerate() {
        if let Some((centre, t)) = t {
            add_round(
                c,
                *centre,
                s.dims.x,
                t,
                base + 8 * k as u32 + region_code(t.region),
            );
        }
    }
}

/// Which SAT axis won.
#[derive(Clone, Copy, PartialEq)]
enum Axis {
    /// The triangle's normal.
    Triangle,
    /// Polytope face `f` (the normal is minus its outward normal).
    Face(u32),
    /// Polytope edge `e` with triangle edge `j`.
    Edges(u32, u32),
}

/// A box's or hull's contacts with one triangle (see the module docs).
#[allow(clippy::too_many_arguments)]
fn polytope_triangle(
    c: &mut Candidates,
    p: &Polytope,
    words: &[UVec4],
    margin: f32,
    tri: [Vec3; 3],
    active: u32,
    base: u32,
) {
    let [a, b, cc] = tri;
    let nf = (b - a).cross(cc - a).normalize_or_zero();
    if nf == Vec3::ZERO || nf.dot(p.centre - a) < 0.0 {
        return;
    }
    let tri_interval = |axis: Vec3| {
        let (x, y, z) = (axis.dot(a), axis.dot(b), axis.dot(cc));
        (x.min(y).min(z), x.max(y).max(z))
    };
    // The triangle's normal: push along +nf only (one-sided).
    let (plo, phi) = p.interval(nf);
    let plane = nf.dot(a);
    if phi - plane < -margin {
        return;
    }
    let mut best = plane - plo;
    if best < -margin {
        return;
    }
    let mut axis = Axis::Triangle;
    let mut normal = nf;
    let better = |o: f32, best: f32| o < best - (MESH_AXIS_REL * best.abs() + MESH_AXIS_ABS);
    // Polytope faces: push along −n_f (the face towards the triangle). The polytope's extent
    // along its own face normal is the plane's offset, so the face needs no projection. The
    // other side of the axis (pushing along +n_f, the triangle deeper than the polytope's
    // middle) is not a face of the Minkowski difference and is left out, as in hull–hull SAT.
    for f in 0..p.face_count {
        let pl = p.planes[f as usize];
        let n = pl.xyz();
        let (tlo, _) = tri_interval(n);
        let o = pl.w - tlo;
        if o < -margin {
            return;
        }
        if better(o, best) {
            best = o;
            axis = Axis::Face(f);
            normal = -n;
        }
    }
    // Edge pairs that build a face of the Minkowski difference (Gauss-map pruning, see
    // `edge_axis`): the edges are then each shape's support feature along the axis, so the
    // overlap is their distance along it, with no projection of the polytope.
    let h = &p.hull;
    let ne = h.edge_count.min(MAX_HULL_EDGES);
    let last_face = p.face_count.max(1) as usize - 1;
    for e in 0..ne {
        let ed = words.edge(h, e);
        let q0 = p.vertices[(ed.v0 as usize).min(63)];
        let d = q0 - p.vertices[(ed.v1 as usize).min(63)];
        let fa = p.planes[(ed.f0 as usize).min(last_face)].xyz();
        let fb = p.planes[(ed.f1 as usize).min(last_face)].xyz();
        for j in 0..3u32 {
            let t0 = tri[j as usize];
            let u = edge_axis(fa, fb, d, tri[((j + 1) % 3) as usize] - t0, nf);
            if u == Vec3::ZERO {
                continue;
            }
            let o = u.dot(q0 - t0);
            if o < -margin {
                return;
            }
            if better(o, best) {
                best = o;
                axis = Axis::Edges(e, j);
                normal = -u;
            }
        }
    }
    // The internal-edge rule.
    if axis != Axis::Triangle {
        let region = match axis {
            Axis::Edges(_, j) => TriangleRegion::Edge(j as u8),
            _ => support_region(tri, normal, p.size),
        };
        if !region_is_active(region, active as u8) {
            axis = Axis::Triangle;
            normal = nf;
        }
    }
    match axis {
        Axis::Triangle => incident_face_clip(c, p, words, margin, tri, nf, base),
        Axis::Face(f) => triangle_clip(c, p, words, margin, tri, f, base),
        Axis::Edges(e, j) => {
            let ed = words.edge(h, e);
            let (q0, q1) = (
                p.vertices[(ed.v0 as usize).min(63)],
                p.vertices[(ed.v1 as usize).min(63)],
            );
            let (t0, t1) = (tri[j as usize], tri[((j + 1) % 3) as usize]);
            let (on_p, on_t) = closest_segments(q0, q1, t0, t1);
            c.add(
                (on_p + on_t) * 0.5,
                normal,
                best,
                base + 192 + 16 * j + (e & 15),
            );
        }
    }
}

/// The axis of a polytope edge and a triangle edge when the pair builds a face of the Minkowski
/// difference, pointing out of the polytope (towards the triangle); zero when it does not, or the
/// edges are near parallel. The polytope edge (direction `d`) spans the arc of outward normals
/// between its faces' normals `fa` and `fb`; the triangle edge (direction `te`, the triangle's
/// normal `nf`) is the support of the half circle of directions at right angles to it through
/// its outward side (`te × nf`, both faces of the flat triangle). They build a face when the
/// first arc crosses the plane at right angles to `te` (`fa·te`, `fb·te` of opposite signs), at
/// a direction `x` whose opposite lies in the second half circle (`x·(te × nf) < 0`). Every
/// edge-pair direction left out (either way round) is one along which the overlap exceeds the
/// penetration, so the deepest axis and the separation test are those of all edge pairs tried
/// both ways round. (An earlier form oriented each pair's axis towards the polytope's centre;
/// the kept axis may now lean behind the triangle at an active edge, as the Minkowski face
/// does.)
fn edge_axis(fa: Vec3, fb: Vec3, d: Vec3, te: Vec3, nf: Vec3) -> Vec3 {
    let s = fa.dot(te);
    let t = fb.dot(te);
    if s * t >= 0.0 {
        return Vec3::ZERO;
    }
    let mut x = fb * s - fa * t;
    if s < 0.0 {
        x = -x;
    }
    if x.dot(te.cross(nf)) >= 0.0 {
        return Vec3::ZERO;
    }
    let c = d.cross(te);
    let l2 = c.dot(c);
    if l2 <= PARALLEL_EPS * d.dot(d) * te.dot(te) {
        return Vec3::ZERO;
    }
    let u = c / l2.sqrt();
    if u.dot(x) < 0.0 {
        -u
    } else {
        u
    }
}

/// The triangle's feature farthest along `n` (towards the polytope): a vertex, or an edge
/// when two corners tie within a rounding-sized margin of the shapes' scale (a face for
/// three).
fn support_region(tri: [Vec3; 3], n: Vec3, size: f32) -> TriangleRegion {
    let s = [n.dot(tri[0]), n.dot(tri[1]), n.dot(tri[2])];
    let top = s[0].max(s[1]).max(s[2]);
    let scale = size
        + tri[0]
            .abs()
            .max(tri[1].abs())
            .max(tri[2].abs())
            .max_element();
    let tol = 1e-5 * (1.0 + scale);
    let near = [top - s[0] <= tol, top - s[1] <= tol, top - s[2] <= tol];
    match near {
        [true, true, true] => TriangleRegion::Face,
        [true, true, false] => TriangleRegion::Edge(0),
        [false, true, true] => TriangleRegion::Edge(1),
        [true, false, true] => TriangleRegion::Edge(2),
        [true, false, false] => TriangleRegion::Vertex(0),
        [false, true, false] => TriangleRegion::Vertex(1),
        _ => TriangleRegion::Vertex(2),
    }
}

/// Clips polygon `src[..n]` to the side `side·(x − at) ≥ 0`; returns the points kept in `dst`.
fn clip_side(
    src: &[Vec3; CLIP_POINTS],
    n: usize,
    side: Vec3,
    at: Vec3,
    dst: &mut [Vec3; CLIP_POINTS],
) -> usize {
    let mut out = 0usize;
    for k in 0..n {
        let cur = src[k];
        let next = src[(k + 1) % n];
        let dc = side.dot(cur - at);
        let dn = side.dot(next - at);
        if dc >= 0.0 && out < CLIP_POINTS {
            dst[out] = cur;
            out += 1;
        }
        if ((dc < 0.0 && dn > 0.0) || (dc > 0.0 && dn < 0.0)) && out < CLIP_POINTS {
            dst[out] = cur + (next - cur) * (dc / (dc - dn));
            out += 1;
        }
    }
    out
}

/// The triangle's normal wins: the polytope's face most against it, clipped to the
/// triangle's sides; each point within the margin of the triangle's plane is a contact.
fn incident_face_clip(
    c: &mut Candidates,
    p: &Polytope,
    words: &[UVec4],
    margin: f32,
    tri: [Vec3; 3],
    nf: Vec3,
    base: u32,
) {
    let mut inc = 0u32;
    let mut low = p.planes[0].xyz().dot(nf);
    for f in 1..p.face_count {
        let d = p.planes[f as usize].xyz().dot(nf);
        if beats(-d, -low) {
            low = d;
            inc = f;
        }
    }
    let h = &p.hull;
    let face = words.face(h, inc);
    let nv = face.count.min(MAX_CLIP as u32) as usize;
    let mut buf_a = [Vec3::ZERO; CLIP_POINTS];
    let mut buf_b = [Vec3::ZERO; CLIP_POINTS];
    for (k, slot) in buf_a.iter_mut().enumerate().take(nv) {
        let v = words.loop_vertex(h, &face, k as u32);
        *slot = p.vertices[(v as usize).min(63)];
    }
    let mut n = nv;
    for j in 0..3usize {
        let (v0, v1) = (tri[j], tri[(j + 1) % 3]);
        let side = nf.cross(v1 - v0);
        if j % 2 == 0 {
            n = clip_side(&buf_a, n, side, v0, &mut buf_b);
        } else {
            n = clip_side(&buf_b, n, side, v0, &mut buf_a);
        }
    }
    // Three clips end in buf_b.
    let plane = nf.dot(tri[0]);
    for (k, q) in buf_b.iter().take(n).enumerate() {
        let depth = plane - nf.dot(*q);
        if depth > -margin {
            c.add(*q + nf * (0.5 * depth), nf, depth, base + 32 + k as u32);
        }
    }
}

/// Polytope face `f` wins: the triangle clipped to the face's sides; each point within the
/// margin below the face is a contact, the normal minus the face's.
fn triangle_clip(
    c: &mut Candidates,
    p: &Polytope,
    words: &[UVec4],
    margin: f32,
    tri: [Vec3; 3],
    f: u32,
    base: u32,
) {
    let pl = p.planes[f as usize];
    let nfc = pl.xyz();
    let h = &p.hull;
    let face = words.face(h, f);
    let nv = face.count.min(MAX_CLIP as u32);
    let mut buf = [[Vec3::ZERO; CLIP_POINTS]; 2];
    buf[0][..3].copy_from_slice(&tri);
    let mut n = 3usize;
    let mut src = 0usize;
    for k in 0..nv {
        let v0 = p.vertices[(words.loop_vertex(h, &face, k) as usize).min(63)];
        let v1 = p.vertices[(words.loop_vertex(h, &face, (k + 1) % nv) as usize).min(63)];
        let side = nfc.cross(v1 - v0);
        let (s, d) = if src == 0 {
            let (x, y) = buf.split_at_mut(1);
            (&x[0], &mut y[0])
        } else {
            let (x, y) = buf.split_at_mut(1);
            (&y[0], &mut x[0])
        };
        n = clip_side(s, n, side, v0, d);
        src = 1 - src;
    }
    for (k, q) in buf[src].iter().take(n).enumerate() {
        let depth = pl.w - nfc.dot(*q);
        if depth > -margin {
            c.add(*q + nfc * (0.5 * depth), -nfc, depth, base + 128 + k as u32);
        }
    }
}

/// The pair's one manifold from its candidates (see the module docs), back in the world.
fn finish(m: &mut GpuManifold, c: &Candidates, pb: Pose, single: bool) {
    if c.n == 0 {
        return;
    }
    let mut i0 = 0usize;
    for k in 1..c.n {
        if beats(c.depth[k], c.depth[i0]) {
            i0 = k;
        }
    }
    let n0 = c.normal[i0];
    let mut poly = [Vec4::ZERO; 2 * MAX_CLIP];
    let mut depth = [0.0f32; MAX_CLIP];
    let mut from = [0usize; MAX_CLIP];
    let mut kept = 0usize;
    if single {
        from[0] = i0;
        kept = 1;
    } else {
        for k in 0..c.n {
            if c.normal[k].dot(n0) >= MESH_NORMAL_COS {
                poly[kept] = c.point[k].extend(0.0);
                depth[kept] = c.depth[k];
                from[kept] = k;
                kept += 1;
            }
        }
    }
    let picks = if kept <= 4 {
        [0, 1, 2, 3]
    } else {
        reduce4(&poly, 0, &depth, kept, n0)
    };
    for t in 0..kept.min(4) {
        let k = picks[t];
        if picks[..t].contains(&k) {
            continue;
        }
        let i = from[k];
        add_contact(
            m,
            pb.pos + quat_rotate(pb.rot, c.point[i]),
            c.depth[i],
            c.feature[i],
        );
    }
    m.normal = quat_rotate(pb.rot, n0).extend(0.0);
}
