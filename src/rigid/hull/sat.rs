//! The separating-axis test between two hulls (catalogue 001-A, book §10; Gregorius, "The
//! Separating Axis Test between Convex Polyhedra", GDC 2013): the face normals of both hulls,
//! then the cross products of edge pairs, keeping only the pairs whose edges build a face of
//! the Minkowski difference. That Gauss-map test is what makes the edge separation exact: an
//! edge pair's separation u·(q0 − p0) is the gap between the hulls' projections on u only when
//! both edges support the hulls along u, which is when the arcs of the two edges' face normals
//! (hull b's negated) cross on the unit sphere. It also prunes E_a·E_b pairs to about
//! E_a + E_b real candidates. For overlapping hulls the largest separation over these axes is
//! exactly minus the penetration depth (they are the face normals of A − B).
//!
//! Work is done in hull a's frame (hull b's data rotated into it on the fly), so the rounding
//! depends on the pair's relative placement only. The face query of b against a runs in b's
//! frame with the same function.
//!
//! The choice between the three groups (a's faces, b's faces, edge pairs) is biased towards
//! faces as the engine's box–box is (`narrow/box_box.rs`): a later group wins only when its
//! overlap is smaller by `BIAS_REL·|overlap| + BIAS_ABS·h`, h the smaller of the two hulls'
//! inner radii (a box's smallest half extent, as box–box uses), so a resting hull keeps its
//! reference face from frame to frame. Within a group, near-ties keep the earlier axis
//! ([`beats`]).
//!
//! Near-parallel edges: a pair with |e_a × e_b|² < `EDGE_PARALLEL`·|e_a|²|e_b|² (sine below
//! 1e-3) is skipped. Parallel edges build a Minkowski face of no area, which the face axes
//! already cover; below that sine the normalised cross product would carry ε/sin ≈ 1e-4 of
//! rounding in its direction, and the skipped axis can differ from a face axis by at most that
//! angle's worth of overlap. (Box–box skips below sin ≈ 0.03, where its face bias would win
//! anyway; hulls have less symmetry to lean on, so the limit is tighter.)
//!
//! WGSL: two nested loops over at most 126 × 126 edge pairs and two loops over at most 64
//! faces, each with a linear support scan; early outs when an axis separates by the margin.

// Index loops, as the WGSL twin writes them.
#![allow(clippy::needless_range_loop)]

use glam::{UVec4, Vec3, Vec4Swizzles};

use super::beats;
use super::layout::{HullRef, HullWords, MAX_HULL_EDGES, MAX_HULL_FACES};
use super::support::{hull_support, Frame};

/// Relative part of the face bias (the engine's box–box value).
pub const BIAS_REL: f32 = 0.05;
/// Absolute part of the face bias, as a fraction of the smaller inner radius (box–box's value).
pub const BIAS_ABS: f32 = 0.005;
/// Edge pairs with a squared sine below this are skipped (see the module docs).
pub const EDGE_PARALLEL: f32 = 1e-6;
/// SAT verdict: a face of hull a is the reference.
pub const SAT_FACE_A: u32 = 0;
/// SAT verdict: a face of hull b is the reference.
pub const SAT_FACE_B: u32 = 1;
/// SAT verdict: an edge of a against an edge of b.
pub const SAT_EDGE: u32 = 2;
/// "No axis": more separated than any real one is overlapping.
const NO_AXIS: f32 = -3.0e38;
/// Index meaning "none".
pub const NONE: u32 = u32::MAX;

/// The best face of one hull against the other.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceQuery {
    /// Face index in its hull.
    pub index: u32,
    /// Largest separation of the other hull from that face's plane (negative: overlap).
    pub separation: f32,
}

/// The best edge pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeQuery {
    /// Edge of hull a ([`NONE`] when no pair builds a Minkowski face).
    pub edge_a: u32,
    /// Edge of hull b.
    pub edge_b: u32,
    /// Separation along the pair's axis (`NO_AXIS`, about −3e38, when there is none).
    pub separation: f32,
    /// Unit axis in hull a's frame, pointing from a to b.
    pub axis: Vec3,
}

/// The chosen axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HullSat {
    /// [`SAT_FACE_A`], [`SAT_FACE_B`] or [`SAT_EDGE`].
    pub kind: u32,
    /// Face of a (face kind a) or edge of a (edge kind); else [`NONE`].
    pub index_a: u32,
    /// Face of b (face kind b) or edge of b (edge kind); else [`NONE`].
    pub index_b: u32,
    /// Separation along the axis (negative: overlap); above −margin… below margin.
    pub separation: f32,
    /// World unit normal from b to a.
    pub normal: Vec3,
    /// The edge axis in a's frame (a to b), for the edge kind.
    pub axis_a: Vec3,
}

/// Faces of `ha` against `hb`, with `hb` placed in `ha`'s frame by `b_in_a`: for each face, the
/// distance of hb's deepest point (support along −n) from the plane. Stops at the first face
/// separating by more than `margin`.
pub fn query_faces(
    store: &[UVec4],
    ha: &HullRef,
    hb: &HullRef,
    b_in_a: &Frame,
    margin: f32,
) -> FaceQuery {
    let mut best = FaceQuery {
        index: 0,
        separation: NO_AXIS,
    };
    let nf = ha.face_count.min(MAX_HULL_FACES);
    for f in 0..nf {
        let pl = store.plane(ha, f);
        let n = pl.xyz();
        let v = b_in_a.point(hull_support(store, hb, b_in_a.inv_dir(-n)));
        let sep = n.dot(v) - pl.w;
        if f == 0 || beats(sep, best.separation) {
            best = FaceQuery {
                index: f,
                separation: sep,
            };
        }
        if sep > margin {
            return FaceQuery {
                index: f,
                separation: sep,
            };
        }
    }
    best
}

/// Edge pairs of `ha` and `hb` (`hb` placed in `ha`'s frame by `b_in_a`) that build a face of
/// the Minkowski difference; the largest separation. Stops at the first pair separating by more
/// than `margin`.
pub fn query_edges(
    store: &[UVec4],
    ha: &HullRef,
    hb: &HullRef,
    b_in_a: &Frame,
    margin: f32,
) -> EdgeQuery {
    let mut best = EdgeQuery {
        edge_a: NONE,
        edge_b: NONE,
        separation: NO_AXIS,
        axis: Vec3::ZERO,
    };
    let ca = ha.centre.xyz();
    let neb = hb.edge_count.min(MAX_HULL_EDGES);
    let nea = ha.edge_count.min(MAX_HULL_EDGES);
    for jb in 0..neb {
        let eb = store.edge(hb, jb);
        let q0 = b_in_a.point(store.vertex(hb, eb.v0));
        let q1 = b_in_a.point(store.vertex(hb, eb.v1));
        // Gauss map of −b: the negated face normals.
        let c = -b_in_a.dir(store.plane(hb, eb.f0).xyz());
        let d = -b_in_a.dir(store.plane(hb, eb.f1).xyz());
        let dxc = d.cross(c);
        let eb_dir = q1 - q0;
        for ia in 0..nea {
            let ea = store.edge(ha, ia);
            let a = store.plane(ha, ea.f0).xyz();
            let b = store.plane(ha, ea.f1).xyz();
            let bxa = b.cross(a);
            let cba = c.dot(bxa);
            let dba = d.dot(bxa);
            let adc = a.dot(dxc);
            let bdc = b.dot(dxc);
            // Arcs a–b and c–d cross: c, d on opposite sides of the plane of a, b; a, b on
            // opposite sides of the plane of c, d; and on the same hemisphere.
            if !(cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0) {
                continue;
            }
            let p0 = store.vertex(ha, ea.v0);
            let p1 = store.vertex(ha, ea.v1);
            let ea_dir = p1 - p0;
            let mut axis = ea_dir.cross(eb_dir);
            let l2 = axis.dot(axis);
            if l2 < EDGE_PARALLEL * ea_dir.dot(ea_dir) * eb_dir.dot(eb_dir) || l2 <= 0.0 {
                continue;
            }
            axis /= l2.sqrt();
            if axis.dot(p0 - ca) < 0.0 {
                axis = -axis;
            }
            let sep = axis.dot(q0 - p0);
            if best.edge_a == NONE || beats(sep, best.separation) {
                best = EdgeQuery {
                    edge_a: ia,
                    edge_b: jb,
                    separation: sep,
                    axis,
                };
            }
            if sep > margin {
                return EdgeQuery {
                    edge_a: ia,
                    edge_b: jb,
                    separation: sep,
                    axis,
                };
            }
        }
    }
    best
}

/// The three unbiased queries of hulls `ha` (placed by `fa`) and `hb` (by `fb`), without early
/// outs: a's faces, b's faces, edge pairs. The largest of the three separations is the hulls'
/// SAT separation (minus the penetration depth when they overlap).
pub fn hull_queries(
    store: &[UVec4],
    ha: &HullRef,
    fa: &Frame,
    hb: &HullRef,
    fb: &Frame,
) -> (FaceQuery, FaceQuery, EdgeQuery) {
    let b_in_a = fa.relative(fb);
    let a_in_b = fb.relative(fa);
    let inf = f32::INFINITY;
    (
        query_faces(store, ha, hb, &b_in_a, inf),
        query_faces(store, hb, ha, &a_in_b, inf),
        query_edges(store, ha, hb, &b_in_a, inf),
    )
}

/// SAT for hulls `ha` (placed by `fa`) and `hb` (by `fb`): `None` when an axis separates them
/// by more than `margin`; otherwise the chosen axis with the face bias (see the module docs).
pub fn hull_sat(
    store: &[UVec4],
    ha: &HullRef,
    fa: &Frame,
    hb: &HullRef,
    fb: &Frame,
    margin: f32,
) -> Option<HullSat> {
    let b_in_a = fa.relative(fb);
    let qa = query_faces(store, ha, hb, &b_in_a, margin);
    if qa.separation > margin {
        return None;
    }
    let a_in_b = fb.relative(fa);
    let qb = query_faces(store, hb, ha, &a_in_b, margin);
    if qb.separation > margin {
        return None;
    }
    let qe = query_edges(store, ha, hb, &b_in_a, margin);
    if qe.separation > margin {
        return None;
    }
    let overlap = [-qa.separation, -qb.separation, -qe.separation];
    let h = ha.aabb_min.w.min(hb.aabb_min.w);
    let mut g = 0usize;
    for k in 1..3usize {
        if overlap[k] < overlap[g] - (BIAS_REL * overlap[g].abs() + BIAS_ABS * h) {
            g = k;
        }
    }
    Some(match g {
        0 => HullSat {
            kind: SAT_FACE_A,
            index_a: qa.index,
            index_b: NONE,
            separation: qa.separation,
            normal: -fa.dir(store.plane(ha, qa.index).xyz()),
            axis_a: Vec3::ZERO,
        },
        1 => HullSat {
            kind: SAT_FACE_B,
            index_a: NONE,
            index_b: qb.index,
            separation: qb.separation,
            normal: fb.dir(store.plane(hb, qb.index).xyz()),
            axis_a: Vec3::ZERO,
        },
        _ => HullSat {
            kind: SAT_EDGE,
            index_a: qe.edge_a,
            index_b: qe.edge_b,
            separation: qe.separation,
            normal: -fa.dir(qe.axis),
            axis_a: qe.axis,
        },
    })
}
