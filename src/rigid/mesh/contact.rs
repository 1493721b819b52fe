//! Contacts of round shapes against one triangle of a mesh or heightfield, with the
//! internal-edge rule (DESIGN.md, "Shapes are data"; see [`super::classify_edges`]).
//!
//! The closest point of a triangle to a point lies in one of seven regions: the face, one of
//! three edges or one of three vertices (Ericson, *Real-Time Collision Detection* §5.1.5). A
//! contact's normal is the direction from that point to the shape, except where that would
//! push the shape against geometry the mesh continues smoothly across:
//! - on an **inactive edge** (flat or concave), and on a **vertex both of whose edges are
//!   inactive**, the normal is the triangle's face normal and the depth is measured to the
//!   triangle's plane (Jolt's active edges: "whenever a body hits an inactive edge, the contact
//!   normal is the face normal");
//! - a shape whose centre lies behind a one-sided triangle's plane makes no contact with it.
//!
//! So a ball resting on the seam of two coplanar triangles gets the plane's normal from both,
//! never the tilted normal of the edge it is beside, and rolls across as on a plane.

use glam::Vec3;

/// Where on a triangle the closest point lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriangleRegion {
    /// Inside the face.
    Face,
    /// On edge `e` (from vertex e to vertex (e + 1) % 3), strictly between its ends.
    Edge(u8),
    /// At vertex `v`.
    Vertex(u8),
}

/// The point of triangle `(a, b, c)` closest to `p`, and its region (Ericson §5.1.5, by
/// barycentric tests in the order vertex a, b, edge ab, vertex c, edge ac, edge bc, face).
pub fn closest_on_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (Vec3, TriangleRegion) {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, TriangleRegion::Vertex(0));
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, TriangleRegion::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (a + ab * v, TriangleRegion::Edge(0));
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, TriangleRegion::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        // Edge a–c is the triangle's edge 2 (from c to a).
        return (a + ac * w, TriangleRegion::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * w, TriangleRegion::Edge(1));
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    (a + ab * v + ac * w, TriangleRegion::Face)
}

/// A contact of a shape against a triangle: the normal points from the triangle to the shape
/// (it pushes the shape out), the depth is positive when they overlap, and the point lies on
/// the triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleContact {
    /// Unit normal, from the triangle towards the shape.
    pub normal: Vec3,
    /// Overlap along the normal (negative: a gap, within the margin).
    pub depth: f32,
    /// The contact point on the triangle.
    pub point: Vec3,
    /// Where on the triangle the point lies.
    pub region: TriangleRegion,
}

/// Whether the feature of `region` may push along its own normal, given the triangle's
/// active-edge bits: the face always; an edge when its bit is set; a vertex when either of its
/// two edges is active (vertex v joins edges v and (v + 2) % 3).
pub fn region_is_active(region: TriangleRegion, active: u8) -> bool {
    match region {
        TriangleRegion::Face => true,
        TriangleRegion::Edge(e) => active & (1 << e) != 0,
        TriangleRegion::Vertex(v) => active & ((1 << v) | (1 << ((v + 2) % 3))) != 0,
    }
}

/// The contact of a ball (centre, radius) with triangle `(a, b, c)` whose active-edge bits are
/// `active`, if its surface is within `margin` of the triangle; `two_sided` lets a centre
/// behind the plane touch (with the reversed face normal). See the module docs for the rule.
pub fn sphere_triangle(
    centre: Vec3,
    radius: f32,
    tri: [Vec3; 3],
    active: u8,
    two_sided: bool,
    margin: f32,
) -> Option<TriangleContact> {
    let [a, b, c] = tri;
    let face = (b - a).cross(c - a).normalize_or_zero();
    if face == Vec3::ZERO {
        return None;
    }
    let height = face.dot(centre - a);
    let face = if height < 0.0 {
        if !two_sided {
            return None;
        }
        -face
    } else {
        face
    };
    let (q, region) = closest_on_triangle(centre, a, b, c);
    let d = centre - q;
    let dist = d.length();
    if dist > radius + margin {
        return None;
    }
    let (normal, depth) = if region_is_active(region, active) && region != TriangleRegion::Face {
        // A convex edge or vertex: the direction to the centre (the face's normal when the
        // centre sits on the feature itself).
        let n = if dist > 0.0 { d / dist } else { face };
        (n, radius - dist)
    } else {
        // The face, or a feature the mesh continues across: push along the face normal, by
        // the depth below the plane.
        (face, radius - height.abs())
    };
    Some(TriangleContact {
        normal,
        depth,
        point: q,
        region,
    })
}

/// The points of segment `p0–p1` and segment `q0–q1` closest to each other, as parameters
/// `(s, t)` in [0, 1] along each (Ericson §5.1.9, clamped; a degenerate segment is a point).
pub fn closest_segments(p0: Vec3, p1: Vec3, q0: Vec3, q1: Vec3) -> (f32, f32) {
    let d1 = p1 - p0;
    let d2 = q1 - q0;
    let r = p0 - q0;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    if a <= f32::EPSILON && e <= f32::EPSILON {
        return (0.0, 0.0);
    }
    if a <= f32::EPSILON {
        return (0.0, (f / e).clamp(0.0, 1.0));
    }
    let c = d1.dot(r);
    if e <= f32::EPSILON {
        return ((-c / a).clamp(0.0, 1.0), 0.0);
    }
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let mut s = if denom > 0.0 {
        ((b * f - c * e) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (s, t)
}

/// The contacts of a capsule (segment `p0–p1`, radius) with a triangle, under the same rule as
/// [`sphere_triangle`]: one at each end of the segment that is within reach, and one at the
/// segment's point closest to the triangle's edges when that point is between the ends and
/// deeper than both (a capsule lying across a ridge). At most three; a capsule lying on a face
/// gets its two ends, so it rests without rocking.
pub fn capsule_triangle(
    p0: Vec3,
    p1: Vec3,
    radius: f32,
    tri: [Vec3; 3],
    active: u8,
    two_sided: bool,
    margin: f32,
) -> Vec<TriangleContact> {
    capsule_triangle_slots(p0, p1, radius, tri, active, two_sided, margin)
        .into_iter()
        .flatten()
        .map(|(_, c)| c)
        .collect()
}

/// [`capsule_triangle`]'s contacts by where they come from: the end `p0`, the end `p1`, the
/// point between them (a narrow phase names a contact by its slot, so it keeps its feature id
/// from step to step), each with the point of the segment it is the ball about.
pub fn capsule_triangle_slots(
    p0: Vec3,
    p1: Vec3,
    radius: f32,
    tri: [Vec3; 3],
    active: u8,
    two_sided: bool,
    margin: f32,
) -> [Option<(Vec3, TriangleContact)>; 3] {
    let e0 = sphere_triangle(p0, radius, tri, active, two_sided, margin);
    let e1 = sphere_triangle(p1, radius, tri, active, two_sided, margin);
    // The segment's point nearest any edge of the triangle, between the ends.
    let [a, b, c] = tri;
    let mut best: Option<(f32, Vec3)> = None;
    for (s0, s1) in [(a, b), (b, c), (c, a)] {
        let (s, t) = closest_segments(p0, p1, s0, s1);
        if s > 0.0 && s < 1.0 {
            let on_capsule = p0 + (p1 - p0) * s;
            let dist = (on_capsule - (s0 + (s1 - s0) * t)).length();
            if best.is_none_or(|(d, _)| dist < d) {
                best = Some((dist, on_capsule));
            }
        }
    }
    let mid = best
        .and_then(|(_, mid)| {
            sphere_triangle(mid, radius, tri, active, two_sided, margin).map(|m| (mid, m))
        })
        .filter(|(_, m)| [e0, e1].iter().flatten().all(|e| m.depth > e.depth));
    [e0.map(|c| (p0, c)), e1.map(|c| (p1, c)), mid]
}
