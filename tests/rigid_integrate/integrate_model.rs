//! The error model of one rigid integration (`integrate_velocity` then `integrate_position`,
//! src/rigid/integrate.rs; shaders/rigid/integrate.wgsl): a mirror of both in f64, operation by
//! operation in the twin's order (`common::error_model::Perturbed`), run as written and
//! `DRAWS` times with every operation's result moved within what it may differ by between the
//! sides. Each body's bound on each field is the RMS of its draws' differences from the exact
//! run, times the factor one of the bodies' values exceeds with probability 10⁻³.
//!
//! Why a propagation and not a hand count: the implicit gyroscopic term solves a 3×3 system by
//! three Newton steps whose Jacobian (I + h/2·(m×·I − (I·m)×)) is as ill-conditioned as the
//! body's inertia and its spin make it; its residual I·(x − ω_b) + h·m × I·m cancels two terms
//! of about h·|ω|²·I, and the turns into and out of the body frame, the normalisation of the
//! orientation (WGSL's inverseSqrt is allowed 2 ulp) and R·I⁻¹·Rᵀ each add their own roundings.
//! The mirror carries each through what follows it.

use super::*;
use common::error_model::{tail_factor, Perturbed};
use glam::{DMat3, DVec3, DVec4};

/// Perturbed runs of the mirror.
const DRAWS: u64 = 32;

fn d4(v: Vec4) -> DVec4 {
    v.as_dvec4()
}

fn quat_rotate(a: &mut Perturbed, q: DVec4, v: DVec3) -> DVec3 {
    let u = q.truncate();
    let t = a.cross3(u, v) * 2.0;
    let s = a.madd3(t, q.w, v);
    let c = a.cross3(u, t);
    a.add3(s, c)
}

fn quat_rotate_inv(a: &mut Perturbed, q: DVec4, v: DVec3) -> DVec3 {
    quat_rotate(a, DVec4::new(-q.x, -q.y, -q.z, q.w), v)
}

fn quat_mul(a: &mut Perturbed, p: DVec4, q: DVec4) -> DVec4 {
    let (pv, qv) = (p.truncate(), q.truncate());
    let x = a.scale3(qv, p.w);
    let y = a.scale3(pv, q.w);
    let s = a.add3(x, y);
    let c = a.cross3(pv, qv);
    let v = a.add3(s, c);
    let ww = a.mul(p.w, q.w);
    let d = a.dot3(pv, qv);
    v.extend(a.sub(ww, d))
}

fn quat_normalize(a: &mut Perturbed, q: DVec4) -> DVec4 {
    let (x, y, z, w) = (
        a.mul(q.x, q.x),
        a.mul(q.y, q.y),
        a.mul(q.z, q.z),
        a.mul(q.w, q.w),
    );
    let s = a.add(x, y);
    let s = a.add(s, z);
    let l2 = a.add(s, w);
    let root = a.sqrt(l2);
    let inv = a.div(1.0, root);
    DVec4::new(
        a.mul(q.x, inv),
        a.mul(q.y, inv),
        a.mul(q.z, inv),
        a.mul(q.w, inv),
    )
}

fn mat3_mul_mat(a: &mut Perturbed, m: DMat3, n: DMat3) -> DMat3 {
    DMat3::from_cols(
        a.mat3_mul(m, n.x_axis),
        a.mat3_mul(m, n.y_axis),
        a.mat3_mul(m, n.z_axis),
    )
}

fn mat3_inverse(a: &mut Perturbed, m: DMat3) -> Option<DMat3> {
    let (c0, c1, c2) = (m.x_axis, m.y_axis, m.z_axis);
    let r0 = a.cross3(c1, c2);
    let r1 = a.cross3(c2, c0);
    let r2 = a.cross3(c0, c1);
    let det = a.dot3(c0, r0);
    if det == 0.0 {
        return None;
    }
    let inv = a.div(1.0, det);
    let t = DMat3::from_cols(r0, r1, r2).transpose();
    Some(DMat3::from_cols(
        a.scale3(t.x_axis, inv),
        a.scale3(t.y_axis, inv),
        a.scale3(t.z_axis, inv),
    ))
}

fn cols(c: &[Vec4; 3]) -> DMat3 {
    DMat3::from_cols(
        c[0].truncate().as_dvec3(),
        c[1].truncate().as_dvec3(),
        c[2].truncate().as_dvec3(),
    )
}

fn gyroscopic(a: &mut Perturbed, q: DVec4, inv_body: &[Vec4; 3], w: DVec3, h: f64) -> DVec3 {
    let Some(inertia) = mat3_inverse(a, cols(inv_body)) else {
        return w;
    };
    let w0 = quat_rotate_inv(a, q, w);
    let half = 0.5 * h;
    let mut x = w0;
    for _ in 0..wgphys::rigid::integrate::GYROSCOPIC_ITERATIONS {
        let m = a.add3(w0, x) * 0.5;
        let l = a.mat3_mul(inertia, m);
        let dx = a.sub3(x, w0);
        let i = a.mat3_mul(inertia, dx);
        let c = a.cross3(m, l);
        let g = a.madd3(c, h, i);
        let mut col = |k: usize, axis: DVec3| {
            let c = inertia.col(k);
            let p = a.cross3(m, c);
            let q = a.cross3(l, axis);
            let d = a.sub3(p, q);
            a.madd3(d, half, c)
        };
        let j = DMat3::from_cols(col(0, DVec3::X), col(1, DVec3::Y), col(2, DVec3::Z));
        match mat3_inverse(a, j) {
            Some(ji) => {
                let s = a.mat3_mul(ji, g);
                x = a.sub3(x, s);
            }
            None => return w,
        }
    }
    quat_rotate(a, q, x)
}

/// One body through both halves of the integrator with `a`'s arithmetic: position,
/// orientation, linear and angular velocity, last acceleration, world inverse inertia.
fn integrate(a: &mut Perturbed, b: &GpuBody, dt: f64) -> [DVec4; 8] {
    let (mut p, mut q) = (d4(b.pos), d4(b.orient));
    let (mut v, mut w) = (d4(b.lin_vel).truncate(), d4(b.ang_vel).truncate());
    let mut last = d4(b.last_acc);
    let mut iw = cols(&b.inv_inertia_world);
    if b.kind == body_kind::DYNAMIC && b.awake != 0 {
        let la = a.madd3(
            d4(b.force).truncate(),
            f64::from(b.pos.w),
            d4(b.acc).truncate(),
        );
        let aa = a.mat3_mul(iw, d4(b.torque).truncate());
        v = a.madd3(la, dt, v);
        w = a.madd3(aa, dt, w);
        w = gyroscopic(a, q, &b.inv_inertia, w, dt);
        let kv = a.pow(f64::from(b.lin_vel.w), dt);
        let kw = a.pow(f64::from(b.ang_vel.w), dt);
        v = a.scale3(v, kv);
        w = a.scale3(w, kw);
        last = la.extend(last.w);
    }
    if b.kind != body_kind::STATIC && b.awake != 0 {
        p = a.madd3(v, dt, p.truncate()).extend(p.w);
        let ws = a.scale3(w, dt);
        let d = quat_mul(a, ws.extend(0.0), q);
        let added = a.add3(q.truncate(), d.truncate() * 0.5);
        let qw = a.add(q.w, 0.5 * d.w);
        q = quat_normalize(a, added.extend(qw));
        let r = DMat3::from_cols(
            quat_rotate(a, q, DVec3::X),
            quat_rotate(a, q, DVec3::Y),
            quat_rotate(a, q, DVec3::Z),
        );
        let ri = mat3_mul_mat(a, r, cols(&b.inv_inertia));
        iw = mat3_mul_mat(a, ri, r.transpose());
    }
    [
        p,
        q,
        v.extend(0.0),
        w.extend(0.0),
        last,
        iw.x_axis.extend(0.0),
        iw.y_axis.extend(0.0),
        iw.z_axis.extend(0.0),
    ]
}

/// Each body's bound on each of its fields (position, orientation, linear and angular
/// velocity, last acceleration, the world inverse inertia's three columns), per lane, and the
/// exact mirror's values.
pub(super) fn integrate_bounds(bodies: &[GpuBody], dt: f32) -> (Vec<[f64; 8]>, Vec<[DVec4; 8]>) {
    let dt = f64::from(dt);
    let exact: Vec<[DVec4; 8]> = bodies
        .iter()
        .map(|b| integrate(&mut Perturbed::exact(), b, dt))
        .collect();
    let mut sum_sq = vec![[0.0f64; 8]; bodies.len()];
    for k in 0..DRAWS {
        let mut a = Perturbed::drawn(0x1_9e7 + k);
        for (i, b) in bodies.iter().enumerate() {
            let got = integrate(&mut a, b, dt);
            for f in 0..8 {
                sum_sq[i][f] += (got[f] - exact[i][f]).abs().max_element().powi(2);
            }
        }
    }
    let tail = tail_factor(8.0 * bodies.len() as f64, 1e-3);
    let bounds = sum_sq
        .iter()
        .map(|s| s.map(|x| tail * (x / DRAWS as f64).sqrt()))
        .collect();
    (bounds, exact)
}
