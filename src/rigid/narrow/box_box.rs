//! Box–box contact (part of stage `narrow`; WGSL twin in `shaders/rigid/box_box.wgsl`): the
//! separating-axis test over the 15 axes with the book's bias towards face axes, then the
//! incident face clipped against the reference face's side planes for face contacts, or the
//! closest points of the two edges for an edge–edge contact. Feature ids come from geometry, so
//! warm starting matches points across steps.

use super::*;

/// The SAT verdict for two boxes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxBoxSat {
    /// Axis index in the book's numbering: 0–2 box a's faces, 3–5 box b's, 6 + 3i + j the cross
    /// of a's axis i with b's axis j.
    pub axis: u32,
    /// The axis as a unit normal from b to a.
    pub normal: Vec3,
    /// Overlap along it (positive when overlapping; down to −margin).
    pub overlap: f32,
}

/// Σ h_k·|axis·x_k|: the half width of a box's projection on `axis`.
fn box_radius(r: &Mat3, h: Vec3, axis: Vec3) -> f32 {
    h.x * axis.dot(r.x_axis).abs() + h.y * axis.dot(r.y_axis).abs() + h.z * axis.dot(r.z_axis).abs()
}

/// SAT axis `i` (book numbering), not normalized.
fn sat_axis(ra: &Mat3, rb: &Mat3, i: u32) -> Vec3 {
    if i < 3 {
        col(ra, i)
    } else if i < 6 {
        col(rb, i - 3)
    } else {
        col(ra, (i - 6) / 3).cross(col(rb, (i - 6) % 3))
    }
}

/// SAT over the 15 axes of boxes (centre, rotation columns, half extents) a and b. `None` when
/// an axis separates them by `margin` or more. Otherwise the least-overlap axis, preferring a's
/// faces, then b's, then edges: a later group wins only when shallower by
/// `BIAS_REL·|overlap| + BIAS_ABS·(smallest half extent)`, so resting boxes keep their
/// reference face from frame to frame.
pub fn box_box_sat(
    ca: Vec3,
    ra: &Mat3,
    ha: Vec3,
    cb: Vec3,
    rb: &Mat3,
    hb: Vec3,
    margin: f32,
) -> Option<BoxBoxSat> {
    let t = cb - ca;
    let mut best = [0u32, 3, 6];
    let mut best_o = [BIG; 3];
    let mut best_axis = [Vec3::ZERO; 3];
    for i in 0..15u32 {
        let mut axis = sat_axis(ra, rb, i);
        if i >= 6 {
            let l2 = axis.dot(axis);
            if l2 < PARALLEL_EPS {
                continue;
            }
            axis = unit(axis);
        }
        let o = box_radius(ra, ha, axis) + box_radius(rb, hb, axis) - t.dot(axis).abs();
        if o < -margin {
            return None;
        }
        let g = if i < 3 {
            0
        } else if i < 6 {
            1
        } else {
            2
        };
        if o < best_o[g] {
            best_o[g] = o;
            best[g] = i;
            best_axis[g] = axis;
        }
    }
    let hmin = ha.min_element().min(hb.min_element());
    let mut g = 0usize;
    for k in 1..3usize {
        if best_o[k] < best_o[g] - (BIAS_REL * best_o[g].abs() + BIAS_ABS * hmin) {
            g = k;
        }
    }
    let mut n = best_axis[g];
    if n.dot(t) > 0.0 {
        n = -n;
    }
    Some(BoxBoxSat {
        axis: best[g],
        normal: n,
        overlap: best_o[g],
    })
}

/// One Sutherland–Hodgman step: keeps the part of polygon `src[..n]` (xyz relative to the
/// reference box) with `sgn·(p·axis) ≤ h`, writing it to `dst`; returns its length (at most 8).
fn clip_polygon(src: &[Vec4; 8], n: u32, dst: &mut [Vec4; 8], axis: Vec3, sgn: f32, h: f32) -> u32 {
    let mut out = 0u32;
    for e in 0..n {
        let cur = src[e as usize];
        let nxt = src[((e + 1) % n) as usize];
        let dc = sgn * cur.xyz().dot(axis) - h;
        let dn = sgn * nxt.xyz().dot(axis) - h;
        if dc <= 0.0 && out < 8 {
            dst[out as usize] = cur;
            out += 1;
        }
        if (dc <= 0.0) != (dn <= 0.0) && out < 8 {
            let t = dc / (dc - dn);
            dst[out as usize] = (cur.xyz() + (nxt.xyz() - cur.xyz()) * t).extend(0.0);
            out += 1;
        }
    }
    out
}

/// The id of a face contact whose incident-face point is `p` (relative to the reference box):
/// the incident vertex k (0..4) when p lies within `near` of it, else 4 + the quadrant of p
/// about `centre` (the clipped polygon's centroid) along the reference face's sides `s1`, `s2`.
/// Named by geometry rather than by clipping history, a point keeps its id while a corner of a
/// box stacked flush jitters across a side of the face below (which makes it a clipped point
/// one step and a vertex the next), and the corners of an offset stack (centred on no face) are
/// still told apart.
#[allow(clippy::too_many_arguments)]
fn face_point_id(
    p: Vec3,
    fc: Vec3,
    u: Vec3,
    v: Vec3,
    near: f32,
    centre: Vec3,
    s1: Vec3,
    s2: Vec3,
) -> u32 {
    for k in 0..4u32 {
        let su = if k == 1 || k == 2 { -1.0 } else { 1.0 };
        let sv = if k >= 2 { -1.0 } else { 1.0 };
        let e = p - (fc + u * su + v * sv);
        if e.dot(e) < near * near {
            return k;
        }
    }
    let d = p - centre;
    4 + if d.dot(s1) < 0.0 { 1 } else { 0 } + if d.dot(s2) < 0.0 { 2 } else { 0 }
}

/// Adds a face contact, moving its id up by 16 while another point of the manifold has it.
fn add_face_contact(m: &mut GpuManifold, p: Vec3, pen: f32, feature: u32) {
    let mut f = feature;
    for _ in 0..4 {
        let mut dup = false;
        for i in 0..m.count.min(4) as usize {
            if m.features[i] == f {
                dup = true;
            }
        }
        if !dup {
            break;
        }
        f += 16;
    }
    add_contact(m, p, pen, f);
}

/// Vertex–face contacts of reference box r's face (axis `ref_axis`, sign `ref_sign`, facing the
/// incident box i) against i's most anti-parallel face. `code` is the feature's top part.
#[allow(clippy::too_many_arguments)]
fn box_face_contacts(
    m: &mut GpuManifold,
    margin: f32,
    cr: Vec3,
    rr: &Mat3,
    hr: Vec3,
    ref_axis: u32,
    ref_sign: f32,
    ci: Vec3,
    ri: &Mat3,
    hi: Vec3,
    code: u32,
) {
    let n_ref = col(rr, ref_axis) * ref_sign;
    let mut inc = 0u32;
    let mut inc_dot = col(ri, 0).dot(n_ref);
    for k in 1..3u32 {
        let dk = col(ri, k).dot(n_ref);
        if beats(dk.abs(), inc_dot.abs()) {
            inc = k;
            inc_dot = dk;
        }
    }
    let inc_sign = if inc_dot > 0.0 { -1.0 } else { 1.0 };
    let fc = (ci - cr) + col(ri, inc) * (inc_sign * comp(hi, inc));
    let u = col(ri, (inc + 1) % 3) * comp(hi, (inc + 1) % 3);
    let v = col(ri, (inc + 2) % 3) * comp(hi, (inc + 2) % 3);
    let mut pa = [Vec4::ZERO; 8];
    let mut pb = [Vec4::ZERO; 8];
    pa[0] = (fc + u + v).extend(0.0);
    pa[1] = (fc - u + v).extend(0.0);
    pa[2] = (fc - u - v).extend(0.0);
    pa[3] = (fc + u - v).extend(0.0);
    let j1 = (ref_axis + 1) % 3;
    let j2 = (ref_axis + 2) % 3;
    let mut n = clip_polygon(&pa, 4, &mut pb, col(rr, j1), 1.0, comp(hr, j1));
    n = clip_polygon(&pb, n, &mut pa, col(rr, j1), -1.0, comp(hr, j1));
    n = clip_polygon(&pa, n, &mut pb, col(rr, j2), 1.0, comp(hr, j2));
    n = clip_polygon(&pb, n, &mut pa, col(rr, j2), -1.0, comp(hr, j2));
    // Keep the points within the margin: pa keeps the incident point, pb (midpoint, depth).
    let hf = comp(hr, ref_axis);
    let mut kept = 0u32;
    for k in 0..n {
        let p = pa[k as usize];
        let depth = hf - p.xyz().dot(n_ref);
        if depth > -margin {
            pa[kept as usize] = p;
            pb[kept as usize] = (p.xyz() + n_ref * (depth * 0.5)).extend(depth);
            kept += 1;
        }
    }
    let inc_code = 2 * inc + if inc_sign < 0.0 { 1 } else { 0 };
    let top = (code << 16) | (inc_code << 8);
    let near = VERTEX_NEAR * comp(hi, (inc + 1) % 3).min(comp(hi, (inc + 2) % 3));
    let s1 = col(rr, j1);
    let s2 = col(rr, j2);
    let mut centre = Vec3::ZERO;
    for k in 0..kept {
        centre += pa[k as usize].xyz();
    }
    if kept > 0 {
        centre /= kept as f32;
    }
    if kept == 0 {
        // Clipping lost every point (grazing, numerically): the deepest incident vertex.
        let mut best = fc + u + v;
        let mut best_d = hf - best.dot(n_ref);
        let mut best_id = 0u32;
        for k in 1..4u32 {
            let su = if k == 1 || k == 2 { -1.0 } else { 1.0 };
            let sv = if k >= 2 { -1.0 } else { 1.0 };
            let p = fc + u * su + v * sv;
            let dk = hf - p.dot(n_ref);
            if dk > best_d {
                best = p;
                best_d = dk;
                best_id = k;
            }
        }
        if best_d > -margin {
            add_contact(m, cr + best + n_ref * (best_d * 0.5), best_d, top | best_id);
        }
        return;
    }
    if kept <= 4 {
        for k in 0..kept {
            let q = pb[k as usize];
            let id = face_point_id(pa[k as usize].xyz(), fc, u, v, near, centre, s1, s2);
            add_face_contact(m, cr + q.xyz(), q.w, top | id);
        }
        return;
    }
    // Reduce to four spread points: the deepest, the farthest from it, the one making the
    // largest triangle with those two, then the one farthest outside that triangle. Near-ties
    // go to the earlier point (`beats`), because clipped box faces tie exactly (parallel sides,
    // equal depths) and rounding must not pick differently from frame to frame or CPU to GPU.
    let mut i0 = 0u32;
    for k in 1..kept {
        if beats(pb[k as usize].w, pb[i0 as usize].w) {
            i0 = k;
        }
    }
    let q0 = pb[i0 as usize].xyz();
    let mut i1 = i0;
    let mut far = 0.0f32;
    for k in 0..kept {
        let e = pb[k as usize].xyz() - q0;
        let d2 = e.dot(e);
        if beats(d2, far) {
            far = d2;
            i1 = k;
        }
    }
    let q1 = pb[i1 as usize].xyz() - q0;
    let mut i2 = i0;
    let mut amax = 0.0f32;
    for k in 0..kept {
        let a = q1.cross(pb[k as usize].xyz() - q0).dot(n_ref).abs();
        if beats(a, amax) {
            amax = a;
            i2 = k;
        }
    }
    let q2 = pb[i2 as usize].xyz() - q0;
    // Orientation of the triangle (0, 1, 2) about n_ref; "outside" edge e means s·area < 0.
    let s = sign_of(q1.cross(q2).dot(n_ref));
    let mut i3 = i0;
    let mut out_best = 0.0f32;
    for k in 0..kept {
        let p = pb[k as usize].xyz() - q0;
        let a01 = s * q1.cross(p).dot(n_ref);
        let a12 = s * (q2 - q1).cross(p - q1).dot(n_ref);
        let a20 = s * (-q2).cross(p - q2).dot(n_ref);
        let outside = -a01.min(a12).min(a20);
        if beats(outside, out_best) {
            out_best = outside;
            i3 = k;
        }
    }
    let picks = [i0, i1, i2, i3];
    for (t, &k) in picks.iter().enumerate() {
        let mut dup = false;
        for &earlier in picks.iter().take(t) {
            if earlier == k {
                dup = true;
            }
        }
        if !dup {
            let q = pb[k as usize];
            let id = face_point_id(pa[k as usize].xyz(), fc, u, v, near, centre, s1, s2);
            add_face_contact(m, cr + q.xyz(), q.w, top | id);
        }
    }
}

/// Two boxes: SAT, then face clipping or one edge–edge contact.
pub(super) fn box_box(m: &mut GpuManifold, margin: f32, pa: Pose, ha: Vec3, pb: Pose, hb: Vec3) {
    let ra = quat_to_mat3(pa.rot);
    let rb = quat_to_mat3(pb.rot);
    let Some(sat) = box_box_sat(pa.pos, &ra, ha, pb.pos, &rb, hb, margin) else {
        return;
    };
    let n = sat.normal;
    m.normal = n.extend(0.0);
    if sat.axis < 3 {
        // a's face is the reference; it faces b, against the normal.
        let ref_sign = if col(&ra, sat.axis).dot(n) > 0.0 {
            -1.0
        } else {
            1.0
        };
        let code = 2 * sat.axis + if ref_sign < 0.0 { 1 } else { 0 };
        box_face_contacts(
            m, margin, pa.pos, &ra, ha, sat.axis, ref_sign, pb.pos, &rb, hb, code,
        );
    } else if sat.axis < 6 {
        let k = sat.axis - 3;
        let ref_sign = if col(&rb, k).dot(n) < 0.0 { -1.0 } else { 1.0 };
        let code = 2 * sat.axis + if ref_sign < 0.0 { 1 } else { 0 };
        box_face_contacts(
            m, margin, pb.pos, &rb, hb, k, ref_sign, pa.pos, &ra, ha, code,
        );
    } else {
        // Edge–edge: a's edge nearest b (against n), b's edge nearest a (along n).
        let i = (sat.axis - 6) / 3;
        let j = (sat.axis - 6) % 3;
        let mut ea = Vec3::ZERO;
        let mut eb = Vec3::ZERO;
        let mut ida = 4 * i;
        let mut idb = 4 * j;
        for k in 0..3u32 {
            if k != i {
                let s = if col(&ra, k).dot(n) > 0.0 { -1.0 } else { 1.0 };
                ea = with_comp(ea, k, s * comp(ha, k));
                if s < 0.0 {
                    ida += if k == (i + 1) % 3 { 1 } else { 2 };
                }
            }
            if k != j {
                let s = if col(&rb, k).dot(n) < 0.0 { -1.0 } else { 1.0 };
                eb = with_comp(eb, k, s * comp(hb, k));
                if s < 0.0 {
                    idb += if k == (j + 1) % 3 { 1 } else { 2 };
                }
            }
        }
        let da = col(&ra, i) * comp(ha, i);
        let db = col(&rb, j) * comp(hb, j);
        let wa = pa.pos + quat_rotate(pa.rot, ea);
        let wb = pb.pos + quat_rotate(pb.rot, eb);
        let (c1, c2) = closest_segments(wa - da, wa + da, wb - db, wb + db);
        add_contact(
            m,
            (c1 + c2) * 0.5,
            sat.overlap,
            FEATURE_EDGE | (sat.axis << 16) | (ida << 8) | idb,
        );
    }
    if m.count == 0 {
        m.normal = Vec4::ZERO;
    }
}
