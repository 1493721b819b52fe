//! Stages `warm_start` and `solve_prepare`, once per step before the substeps: last step's
//! impulses matched by feature, and each coloured contact's anchors, start velocity and
//! effective masses. WGSL twin: `shaders/rigid/solver/prepare.wgsl`, same names and operation
//! order.

use super::*;

/// The previous point nearest to `point` closer than `radius` (first on ties).
fn nearest_point(p: &GpuManifold, point: Vec4, radius: f32) -> Option<usize> {
    let mut best = None;
    let mut best_d2 = radius * radius;
    for j in 0..p.count.min(MAX_POINTS) as usize {
        let d = p.points[j].xyz() - point.xyz();
        let d2 = d.dot(d);
        if d2 < best_d2 {
            best_d2 = d2;
            best = Some(j);
        }
    }
    best
}

/// Stage `warm_start`: copies each point's accumulated impulse from last step's manifold of the
/// same shape pair (binary search: both lists are sorted by pair), matched by feature id, else
/// by the nearest previous point closer than `max(contact_margin, position_slop)` (resting
/// points barely move, and feature ids of clipped
/// box faces can change when a face pair is a near tie, and a stack without warm starting
/// sinks and topples), and zero otherwise (or everywhere when `params.warm_start` is 0). The
/// tangential part is carried through world space, so a normal that turned a little keeps its
/// friction direction.
pub fn warm_start(params: &GpuRigidParams, manifolds: &mut [GpuManifold], prev: &[GpuManifold]) {
    for m in manifolds.iter_mut() {
        if m.joint != 0 {
            // A joint's slot keeps its impulses in the joint (joint::solve).
            continue;
        }
        let count = m.count.min(MAX_POINTS) as usize;
        let mut found: Option<&GpuManifold> = None;
        if params.warm_start != 0 && count > 0 {
            let key = search_key(m);
            let (mut lo, mut hi) = (0usize, prev.len());
            while lo < hi {
                let mid = (lo + hi) / 2;
                if search_key(&prev[mid]) < key {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            // The same bodies in the same roles, else the normal's sign may mean the opposite.
            if let Some(p) = prev.get(lo) {
                if search_key(p) == key && p.body_a == m.body_a && p.body_b == m.body_b {
                    found = Some(p);
                }
            }
        }
        let n = m.normal.xyz();
        let (t1, t2) = contact_basis(n);
        m.rolling = Vec4::ZERO;
        if let (Some(p), true) = (found, m.material.w > 0.0) {
            let (p1, p2) = contact_basis(p.normal.xyz());
            let tw = rounding::madd3(p2, p.rolling.y, p1 * p.rolling.x);
            m.rolling = Vec4::new(rounding::dot(tw, t1), rounding::dot(tw, t2), 0.0, 0.0);
        }
        let radius = params.contact_margin.max(params.position_slop);
        for i in 0..MAX_POINTS as usize {
            let mut imp = Vec4::ZERO;
            if let (Some(p), true) = (found, i < count) {
                let pc = p.count.min(MAX_POINTS) as usize;
                let by_feature = (0..pc).find(|&j| p.features[j] == m.features[i]);
                if let Some(j) = by_feature.or_else(|| nearest_point(p, m.points[i], radius)) {
                    let (p1, p2) = contact_basis(p.normal.xyz());
                    let old = p.impulses[j];
                    let tw = rounding::madd3(p2, old.z, p1 * old.y);
                    imp = Vec4::new(old.x, rounding::dot(tw, t1), rounding::dot(tw, t2), 0.0);
                }
            }
            m.impulses[i] = imp;
        }
    }
}

/// Stage `solve_prepare`, once per step after the colouring: per point of every coloured
/// manifold, the anchors in body space (the arms r_a and r_b turned back by the bodies'
/// orientations), the relative normal velocity at the step's start (what restitution reverses),
/// the penetration when the narrow phase ran, and the diagonal of the velocity change per unit
/// impulse K in contact coordinates (the effective masses, held for the whole step as Box2D
/// does). The fourth word of the third row is 0; the largest normal impulse the substeps apply
/// (restitution only acts on points that pushed) collects in the fourth word of each point's
/// impulse, which the warm start leaves at 0. Writes `rows` (`solver_rows_per_manifold()` per
/// manifold).
pub fn solve_prepare(
    params: &GpuRigidParams,
    bodies: &[GpuBody],
    manifolds: &[GpuManifold],
    rows: &mut [Vec4],
) {
    for (k, m) in manifolds.iter().enumerate() {
        // A joint's slot records no points: the sweeps solve the joint.
        if m.colour == NONE || m.joint != 0 {
            continue;
        }
        prepare_manifold(params, bodies, m, k, rows);
    }
}

fn prepare_manifold(
    _params: &GpuRigidParams,
    bodies: &[GpuBody],
    m: &GpuManifold,
    k: usize,
    rows: &mut [Vec4],
) {
    let a = load_body(bodies, m.body_a);
    let b = load_body(bodies, m.body_b);
    let n = m.normal.xyz();
    let (t1, t2) = contact_basis(n);
    let e = [n, t1, t2];
    let inv_mass = a.inv_mass + b.inv_mass;
    for i in 0..m.count.min(MAX_POINTS) as usize {
        let p = m.points[i];
        let point = p.xyz();
        let ra = point - a.pos;
        let rb = point - b.pos;
        let (round_a, round_b) = point_rounds(m.material, p.w);
        let la = centre_anchor(a.orient, ra, n, round_a);
        let lb = centre_anchor(b.orient, rb, n, round_b);
        let ka = angular_row(ra, a.inv_inertia, e);
        let kb = angular_row(rb, b.inv_inertia, e);
        // Columns of K (symmetric, so rows too).
        let k0 = ka[0] + kb[0] + Vec3::new(inv_mass, 0.0, 0.0);
        let k1 = ka[1] + kb[1] + Vec3::new(0.0, inv_mass, 0.0);
        let k2 = ka[2] + kb[2] + Vec3::new(0.0, 0.0, inv_mass);
        let dv = (a.lin_vel + rounding::cross(a.ang_vel, ra))
            - (b.lin_vel + rounding::cross(b.ang_vel, rb));
        let vn = rounding::dot(dv, n);
        let base = point_base(k, i);
        set_row(rows, base, la.extend(vn));
        set_row(rows, base + 1, lb.extend(p.w));
        set_row(rows, base + 2, Vec4::new(k0.x, k1.y, k2.z, 0.0));
    }
}
