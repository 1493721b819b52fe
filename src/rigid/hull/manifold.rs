//! Hull–hull contact manifold (and hull–box, with the box as an 8-vertex hull from
//! [`super::Hull::cuboid`]): SAT ([`super::hull_sat`]), then for a face axis the incident face
//! clipped against the reference face's side planes (Sutherland–Hodgman), up to 4 points kept
//! as box–box keeps them; for an edge axis one contact at the closest points of the two edges.
//! This is the engine's box–box (`narrow/box_box.rs`) generalised from boxes to polyhedra.
//!
//! - The reference face is the SAT face; the incident face is the other hull's face most
//!   anti-parallel to it (near-ties keep the earlier face).
//! - Clipping runs in the reference hull's frame. Each clipped point is kept while its depth
//!   below the reference plane exceeds −margin; the contact is the midpoint between it and its
//!   projection on the reference plane, with that depth.
//! - Before the reduction, while more than 4 points remain, a point within `near` of the
//!   previous one or within [`STRAIGHT`] of the line through its neighbours is dropped: it adds
//!   nothing to the contact polygon, and where an incident edge crosses a nearly parallel
//!   reference side (a flush stack) such a crossing slides along the edge from frame to frame
//!   and would otherwise be picked instead of the corner next to it, changing the ids.
//! - More than 4 points are reduced like box–box: the deepest, the farthest from it, the one
//!   making the largest triangle with those two, then the one farthest outside that triangle;
//!   near-ties go to the earlier point ([`beats`]).
//! - If clipping leaves nothing (grazing, numerically), the deepest incident vertex within the
//!   margin is the one contact.
//!
//! Feature ids (warm starting matches them from frame to frame):
//!
//! | contact | id |
//! |---|---|
//! | face | [`FEATURE_REF_B`] if b's face is the reference · reference face << 24 · incident face << 18 · point code (12 bits), + 4096 per earlier point with the same id |
//! | edge | [`FEATURE_EDGE`] · edge of a << 16 · edge of b |
//!
//! A point code names the two lines the point lies on in the incident face's plane: incident
//! loop edge k (from loop vertex k to k + 1) is line k, reference side s is line 32 + s; the
//! code is lo | hi << 6. An incident vertex k is lines (k − 1, k); a point where incident edge k
//! leaves the reference face is (k, 32 + s); a reference corner inside the incident face is
//! (32 + s, 32 + s + 1). Clipping carries the codes along: a point made on the segment between
//! two polygon vertices takes the line they share. Then, as in box–box, a point within
//! `VERTEX_NEAR` of the incident face's shortest edge from an incident vertex takes that
//! vertex's code, so a corner jittering across a side of the face below (clipped one step, not
//! the next) keeps its id.
//!
//! Buffers: the clipped polygon holds up to [`MAX_CLIP`] = 32 points: every contact of faces
//! with at most 32 vertices together (see there for the rare larger pair; writes past it are
//! dropped, as box–box's, also for polygons made non-convex by rounding). The polygon lives in one array of 2 × [`MAX_CLIP`] points, each step reading one
//! half and writing the other, with its point code in w (an integer below 2^12, exact in f32):
//! no buffer is ever copied, and the WGSL twin has one clipping call and one private array,
//! which keeps its compile time on software adapters (LLVM) in seconds.

// Index loops, as the WGSL twin writes them.
#![allow(clippy::needless_range_loop)]

use glam::{UVec4, Vec3, Vec4, Vec4Swizzles};

use super::beats;
use super::layout::{HullRef, HullWords, MAX_FACE_VERTICES, MAX_HULL_FACES};
use super::sat::{hull_sat, SAT_EDGE, SAT_FACE_A};
use super::support::Frame;
use crate::rigid::narrow::closest_segments;

/// Feature-id flag of an edge–edge contact (as box–box's).
pub const FEATURE_EDGE: u32 = 0x8000_0000;
/// Feature-id flag of a face contact whose reference face belongs to hull b.
pub const FEATURE_REF_B: u32 = 0x4000_0000;
/// Clipping buffer size: points the clipped polygon may hold. The polygon of two faces has at
/// most as many corners as the two faces together, so this is exact while they have at most 32
/// vertices between them (any two faces of rocks, two 16-gons); beyond, a clipping step drops
/// the points past it, and the polygon kept is the convex hull of some of the true corners:
/// inside the real contact region, only not spanning all of it (two cylinders' 24-gon caps on
/// each other). Not 64, the sum of two faces of the limit: a software adapter's compiler (Mesa's
/// LLVM) spends time on a private array in proportion to its length at every access, and the
/// polygon's two halves of 64 points took 18 s to compile against 6 s for two of 32 (lavapipe,
/// the `narrow_hull` kernel).
pub const MAX_CLIP: usize = 32;
/// A clipped point within this fraction of the incident face's shortest edge from an incident
/// vertex is named after that vertex (box–box's value).
pub const VERTEX_NEAR: f32 = 0.05;
/// A clipped point within this fraction of the incident face's shortest edge from the line
/// through its neighbours is dropped before the reduction (see `face_contacts`): well below
/// any contact's lever arm (0.1% of the face), well above the jitter of resting contacts.
pub const STRAIGHT: f32 = 1e-3;

/// Up to four contacts between two hulls, in the engine's manifold conventions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HullManifold {
    /// Points in use, 0..=4.
    pub count: u32,
    /// Unit normal from b to a (pushes a out); zero when there are no points.
    pub normal: Vec3,
    /// World contact point (xyz, halfway between the surfaces) and penetration (w, positive
    /// when overlapping, down to −margin).
    pub points: [Vec4; 4],
    /// Feature id per point (see the module docs).
    pub features: [u32; 4],
}

impl HullManifold {
    fn add(&mut self, p: Vec3, depth: f32, feature: u32) {
        let mut f = feature;
        for _ in 0..4 {
            let mut dup = false;
            for i in 0..self.count.min(4) as usize {
                if self.features[i] == f {
                    dup = true;
                }
            }
            if !dup {
                break;
            }
            f += 4096;
        }
        if self.count < 4 {
            let c = self.count as usize;
            self.points[c] = p.extend(depth);
            self.features[c] = f;
            self.count += 1;
        }
    }
}

/// The code of the two lines `l0`, `l1` (see the module docs).
fn line_pair(l0: u32, l1: u32) -> u32 {
    l0.min(l1) | (l0.max(l1) << 6)
}

/// The line shared by the points coded `c1` and `c2` (the first line of c1 if they share none).
fn shared_line(c1: u32, c2: u32) -> u32 {
    let l0 = c1 & 63;
    if l0 == (c2 & 63) || l0 == (c2 >> 6) {
        l0
    } else {
        c1 >> 6
    }
}

/// One Sutherland–Hodgman step: the part of the polygon `poly[src..src + n]` with
/// `side·p ≤ off`, into `poly[dst..]`; a point made on an edge gets the code of that edge's line
/// and `line`. Returns the new count.
#[allow(clippy::too_many_arguments)]
fn clip(
    poly: &mut [Vec4; 2 * MAX_CLIP],
    src: usize,
    n: usize,
    dst: usize,
    side: Vec3,
    off: f32,
    line: u32,
) -> usize {
    let mut out = 0usize;
    for e in 0..n {
        let cur = poly[src + e];
        let nxt = poly[src + (e + 1) % n];
        let dc = side.dot(cur.xyz()) - off;
        let dn = side.dot(nxt.xyz()) - off;
        if dc <= 0.0 && out < MAX_CLIP {
            poly[dst + out] = cur;
            out += 1;
        }
        if ((dc < 0.0 && dn > 0.0) || (dc > 0.0 && dn < 0.0)) && out < MAX_CLIP {
            let t = dc / (dc - dn);
            let p = cur.xyz() + (nxt.xyz() - cur.xyz()) * t;
            let code = line_pair(shared_line(cur.w as u32, nxt.w as u32), line);
            poly[dst + out] = p.extend(code as f32);
            out += 1;
        }
    }
    out
}

/// Hull–hull manifold of `ha` placed by `fa` and `hb` placed by `fb`: contacts while the SAT
/// separation is below `margin` (see the module docs).
pub fn hull_hull(
    store: &[UVec4],
    ha: &HullRef,
    fa: &Frame,
    hb: &HullRef,
    fb: &Frame,
    margin: f32,
) -> HullManifold {
    let mut m = HullManifold::default();
    let Some(sat) = hull_sat(store, ha, fa, hb, fb, margin) else {
        return m;
    };
    m.normal = sat.normal;
    if sat.kind == SAT_EDGE {
        let b_in_a = fa.relative(fb);
        let ea = store.edge(ha, sat.index_a);
        let eb = store.edge(hb, sat.index_b);
        let (c1, c2) = closest_segments(
            store.vertex(ha, ea.v0),
            store.vertex(ha, ea.v1),
            b_in_a.point(store.vertex(hb, eb.v0)),
            b_in_a.point(store.vertex(hb, eb.v1)),
        );
        m.add(
            fa.point((c1 + c2) * 0.5),
            -sat.separation,
            FEATURE_EDGE | (sat.index_a << 16) | sat.index_b,
        );
    } else if sat.kind == SAT_FACE_A {
        face_contacts(&mut m, store, margin, ha, fa, sat.index_a, hb, fb, 0);
    } else {
        face_contacts(
            &mut m,
            store,
            margin,
            hb,
            fb,
            sat.index_b,
            ha,
            fa,
            FEATURE_REF_B,
        );
    }
    if m.count == 0 {
        m.normal = Vec3::ZERO;
    }
    m
}

/// Face contacts of reference face `rf` of hull `hr` (placed by `fr`) against hull `hi`
/// (placed by `fi`); `flag` is the feature id's top bit.
#[allow(clippy::too_many_arguments)]
fn face_contacts(
    m: &mut HullManifold,
    store: &[UVec4],
    margin: f32,
    hr: &HullRef,
    fr: &Frame,
    rf: u32,
    hi: &HullRef,
    fi: &Frame,
    flag: u32,
) {
    let inc_in_ref = fr.relative(fi);
    let pl = store.plane(hr, rf);
    let n_ref = pl.xyz();
    let d_ref = pl.w;
    // Incident face: the most anti-parallel (near-ties keep the earlier).
    let mut inc = 0u32;
    let mut inc_dot = inc_in_ref.dir(store.plane(hi, 0).xyz()).dot(n_ref);
    for k in 1..hi.face_count.min(MAX_HULL_FACES) {
        let dk = inc_in_ref.dir(store.plane(hi, k).xyz()).dot(n_ref);
        if beats(-dk, -inc_dot) {
            inc = k;
            inc_dot = dk;
        }
    }
    let inc_face = store.face(hi, inc);
    let ni = (inc_face.count.min(MAX_FACE_VERTICES)) as usize;
    let mut poly = [Vec4::ZERO; 2 * MAX_CLIP];
    let mut shortest = f32::MAX;
    for k in 0..ni {
        let v = inc_in_ref.point(store.vertex(hi, store.loop_vertex(hi, &inc_face, k as u32)));
        poly[k] = v.extend(line_pair(((k + ni - 1) % ni) as u32, k as u32) as f32);
    }
    for k in 0..ni {
        let e = poly[(k + 1) % ni].xyz() - poly[k].xyz();
        shortest = shortest.min(e.dot(e));
    }
    let near = VERTEX_NEAR * shortest.sqrt();
    // Clip against the reference face's sides, each step from one half of `poly` to the other.
    let ref_face = store.face(hr, rf);
    let nr = (ref_face.count.min(MAX_FACE_VERTICES)) as usize;
    let mut n = ni;
    let mut src = 0usize;
    for s in 0..nr {
        let v0 = store.vertex(hr, store.loop_vertex(hr, &ref_face, s as u32));
        let v1 = store.vertex(hr, store.loop_vertex(hr, &ref_face, ((s + 1) % nr) as u32));
        let side = (v1 - v0).cross(n_ref);
        n = clip(
            &mut poly,
            src,
            n,
            MAX_CLIP - src,
            side,
            side.dot(v0),
            32 + s as u32,
        );
        src = MAX_CLIP - src;
    }
    // Drop points that add nothing to the contact polygon: within `near` of the previous kept
    // point, or within `STRAIGHT` of the incident face's shortest edge from the line through
    // the previous kept point and the next point (where an incident edge crosses a nearly
    // parallel reference side, as in a flush stack, the crossing slides along the edge from
    // frame to frame; the corners around it carry the same support). Only while more than 4
    // remain, so the reduction below still sees every corner.
    if n > 4 {
        let straight = STRAIGHT * shortest.sqrt();
        let dst = MAX_CLIP - src;
        let mut m_cnt = 0usize;
        for k in 0..n {
            let p = poly[src + k].xyz();
            let prev = if m_cnt > 0 {
                poly[dst + m_cnt - 1].xyz()
            } else {
                poly[src + n - 1].xyz()
            };
            let next = poly[src + (k + 1) % n].xyz();
            let e = next - prev;
            let l2 = e.dot(e);
            let off = (p - prev).cross(e);
            let d_prev = (p - prev).dot(p - prev);
            let redundant = d_prev < near * near || off.dot(off) < straight * straight * l2;
            let left = m_cnt + (n - k);
            if redundant && left > 4 {
                continue;
            }
            poly[dst + m_cnt] = poly[src + k];
            m_cnt += 1;
        }
        n = m_cnt;
        src = dst;
    }
    // Keep points within the margin: the other half gets the midpoint and the id, `dep` the
    // depth.
    let dst = MAX_CLIP - src;
    let mut dep = [0.0f32; MAX_CLIP];
    let mut kept = 0usize;
    for k in 0..n {
        let p = poly[src + k].xyz();
        let depth = d_ref - p.dot(n_ref);
        if depth > -margin {
            let mut code = poly[src + k].w as u32;
            for j in 0..ni {
                let v =
                    inc_in_ref.point(store.vertex(hi, store.loop_vertex(hi, &inc_face, j as u32)));
                let e = p - v;
                if e.dot(e) < near * near {
                    code = line_pair(((j + ni - 1) % ni) as u32, j as u32);
                    break;
                }
            }
            poly[dst + kept] = (p + n_ref * (depth * 0.5)).extend(code as f32);
            dep[kept] = depth;
            kept += 1;
        }
    }
    let top = flag | (rf << 24) | (inc << 18);
    if kept == 0 {
        // Clipping kept nothing: the deepest incident vertex, if within the margin.
        let mut best = 0usize;
        let mut best_d = -f32::MAX;
        for k in 0..ni {
            let v = inc_in_ref.point(store.vertex(hi, store.loop_vertex(hi, &inc_face, k as u32)));
            let dk = d_ref - v.dot(n_ref);
            if k == 0 || beats(dk, best_d) {
                best = k;
                best_d = dk;
            }
        }
        if best_d > -margin {
            let v =
                inc_in_ref.point(store.vertex(hi, store.loop_vertex(hi, &inc_face, best as u32)));
            let code = line_pair(((best + ni - 1) % ni) as u32, best as u32);
            m.add(fr.point(v + n_ref * (best_d * 0.5)), best_d, top | code);
        }
        return;
    }
    let picks = if kept <= 4 {
        [0, 1, 2, 3]
    } else {
        reduce4(&poly, dst, &dep, kept, n_ref)
    };
    for t in 0..kept.min(4) {
        let k = picks[t];
        let mut dup = false;
        for u in 0..t {
            if picks[u] == k {
                dup = true;
            }
        }
        if !dup {
            let q = poly[dst + k];
            m.add(fr.point(q.xyz()), dep[k], top | q.w as u32);
        }
    }
}

/// Four spread points of `poly[at..at + n]` (depths `depth[..n]`; indices from `at`), as
/// box–box picks them: the deepest, the farthest from it, the one making the largest triangle
/// (about `normal`) with those two, and the one farthest outside that triangle. Near-ties keep
/// the earlier point.
pub(crate) fn reduce4(
    poly: &[Vec4; 2 * MAX_CLIP],
    at: usize,
    depth: &[f32; MAX_CLIP],
    n: usize,
    normal: Vec3,
) -> [usize; 4] {
    let mut i0 = 0usize;
    for k in 1..n {
        if beats(depth[k], depth[i0]) {
            i0 = k;
        }
    }
    let q0 = poly[at + i0].xyz();
    let mut i1 = i0;
    let mut far = 0.0f32;
    for k in 0..n {
        let e = poly[at + k].xyz() - q0;
        let d2 = e.dot(e);
        if beats(d2, far) {
            far = d2;
            i1 = k;
        }
    }
    let q1 = poly[at + i1].xyz() - q0;
    let mut i2 = i0;
    let mut amax = 0.0f32;
    for k in 0..n {
        let a = q1.cross(poly[at + k].xyz() - q0).dot(normal).abs();
        if beats(a, amax) {
            amax = a;
            i2 = k;
        }
    }
    let q2 = poly[at + i2].xyz() - q0;
    let s = if q1.cross(q2).dot(normal) >= 0.0 {
        1.0
    } else {
        -1.0
    };
    let mut i3 = i0;
    let mut out_best = 0.0f32;
    for k in 0..n {
        let r = poly[at + k].xyz() - q0;
        let a01 = s * q1.cross(r).dot(normal);
        let a12 = s * (q2 - q1).cross(r - q1).dot(normal);
        let a20 = s * (-q2).cross(r - q2).dot(normal);
        let outside = -a01.min(a12).min(a20);
        if beats(outside, out_best) {
            out_best = outside;
            i3 = k;
        }
    }
    [i0, i1, i2, i3]
}
