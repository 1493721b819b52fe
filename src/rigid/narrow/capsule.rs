//! Pairs with a capsule (CPU twins of the capsule pairs in `shaders/rigid/narrow.wgsl`): a
//! capsule on a plane, two capsules, and a box and a capsule (the segment clipped to the box's
//! faces, the box's edges against the segment).

use super::*;

/// A capsule and a half-space or two-sided plane: both segment ends.
pub(super) fn capsule_plane(
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
pub(super) fn capsule_capsule(
    m: &mut GpuManifold,
    margin: f32,
    pa: Pose,
    da: Vec4,
    pb: Pose,
    db: Vec4,
) {
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
pub(super) fn box_capsule(
    m: &mut GpuManifold,
    margin: f32,
    pa: Pose,
    h: Vec3,
    pb: Pose,
    dims: Vec4,
) {
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
