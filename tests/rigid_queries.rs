//! Rigid queries: inertia tensors against independent numeric integration and the catalogue's
//! capsule vectors, ray casts against hand-computed answers and a marching reference, and the
//! `ccd` stage (sphere time of impact) against closed forms and the bullet-through-a-wall case.

mod common;

use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};

use common::Rng;
use glam::{DMat3, DQuat, DVec3, Mat3, Quat, Vec3, Vec4, Vec4Swizzles};
use wgphys::rigid::ccd::{ccd, sweep_sphere, CCD_FLAG};
use wgphys::rigid::inertia;
use wgphys::rigid::math::{from_quat, QUAT_IDENTITY};
use wgphys::rigid::ray::{cast_ray, ray_shape, Ray};
use wgphys::rigid::types::{body_kind, shape_kind, GpuBody, GpuRigidParams, GpuShape, NONE};
use wgphys::Error;

// ---------------------------------------------------------------------------------------------
// Inertia

/// Grid (midpoint) quadrature of a solid given by an inside test over the box `lo..hi`, in f64:
/// (volume, centre of mass, tensor per unit mass about the centre of mass). Independent of the
/// library: it integrates `∫(|r|²E − r·rᵀ) dV` directly.
fn grid_inertia(
    inside: impl Fn(DVec3) -> bool,
    lo: DVec3,
    hi: DVec3,
    n: usize,
) -> (f64, DVec3, DMat3) {
    let step = (hi - lo) / n as f64;
    let cell = step.x * step.y * step.z;
    let mut vol = 0.0;
    let mut first = DVec3::ZERO;
    let mut second = DMat3::ZERO; // ∫ r rᵀ
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let p = lo + step * DVec3::new(i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5);
                if inside(p) {
                    vol += cell;
                    first += p * cell;
                    second += DMat3::from_cols(p * p.x, p * p.y, p * p.z) * cell;
                }
            }
        }
    }
    let com = first / vol;
    // Second moment about the centre of mass: ∫ r rᵀ − V c cᵀ.
    let about = second - DMat3::from_cols(com * com.x, com * com.y, com * com.z) * vol;
    let tr = about.x_axis.x + about.y_axis.y + about.z_axis.z;
    let tensor = (DMat3::from_diagonal(DVec3::splat(tr)) - about) * (1.0 / vol);
    (vol, com, tensor)
}

/// Asserts every entry of `got` (per unit mass) is within `rel` of the largest moment of `want`.
fn assert_tensor(what: &str, got: Mat3, mass: f32, want_per_mass: DMat3, rel: f64) {
    let got = got.as_dmat3() * (1.0 / mass as f64);
    let scale = want_per_mass
        .to_cols_array()
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()));
    let worst = (got - want_per_mass)
        .to_cols_array()
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        / scale;
    println!(
        "{what}: worst entry differs from numeric integration by {worst:.2e} of the largest moment"
    );
    for c in 0..3 {
        for r in 0..3 {
            let (g, w) = (got.col(c)[r], want_per_mass.col(c)[r]);
            assert!(
                (g - w).abs() <= rel * scale,
                "{what}: entry ({r},{c}) = {g} but numeric integration gives {w} \
                 (tolerance {rel} of {scale})\n got {got:?}\nwant {want_per_mass:?}"
            );
        }
    }
}

const GRID: usize = 150;

#[test]
fn solids_match_numeric_integration() {
    let m = 2.5f32;
    let d3 = |v: Vec3| v.as_dvec3();
    // (name, tensor, inside test, bounds, expected centre of mass)
    type Inside = Box<dyn Fn(DVec3) -> bool>;
    let r = 0.7f32;
    let half = Vec3::new(0.3, 0.8, 0.5);
    let radii = Vec3::new(0.4, 0.9, 0.6);
    let (cr, ch) = (0.5f32, 1.6f32);
    let (ro, ri, th) = (0.6f32, 0.35f32, 1.1f32);
    let (kr, kh) = (0.6f32, 1.5f32);
    let (caps_r, caps_hl) = (0.4f32, 0.6f32);
    let cases: Vec<(&str, Mat3, Inside, DVec3, DVec3)> = vec![
        (
            "solid sphere",
            inertia::solid_sphere(m, r),
            Box::new(move |p: DVec3| p.length() <= r as f64),
            DVec3::splat(-(r as f64)),
            DVec3::splat(r as f64),
        ),
        (
            "cuboid",
            inertia::cuboid(m, half),
            Box::new(move |p: DVec3| p.abs().cmple(d3(half)).all()),
            -d3(half),
            d3(half),
        ),
        (
            "ellipsoid",
            inertia::ellipsoid(m, radii),
            Box::new(move |p: DVec3| (p / d3(radii)).length_squared() <= 1.0),
            -d3(radii),
            d3(radii),
        ),
        (
            "cylinder",
            inertia::cylinder(m, cr, ch),
            Box::new(move |p: DVec3| {
                p.x * p.x + p.z * p.z <= (cr * cr) as f64 && p.y.abs() <= ch as f64 / 2.0
            }),
            DVec3::new(-cr as f64, -ch as f64 / 2.0, -cr as f64),
            DVec3::new(cr as f64, ch as f64 / 2.0, cr as f64),
        ),
        (
            "tube",
            inertia::tube(m, ro, ri, th),
            Box::new(move |p: DVec3| {
                let rr = p.x * p.x + p.z * p.z;
                rr <= (ro * ro) as f64 && rr >= (ri * ri) as f64 && p.y.abs() <= th as f64 / 2.0
            }),
            DVec3::new(-ro as f64, -th as f64 / 2.0, -ro as f64),
            DVec3::new(ro as f64, th as f64 / 2.0, ro as f64),
        ),
        (
            // Placed as documented: base centre at y = −h/4, tip at 3h/4.
            "cone",
            inertia::cone(m, kr, kh),
            Box::new(move |p: DVec3| {
                let (h, base) = (kh as f64, -(inertia::cone_com_height(kh) as f64));
                let up = p.y - base;
                up >= 0.0 && up <= h && (p.x * p.x + p.z * p.z).sqrt() <= kr as f64 * (1.0 - up / h)
            }),
            DVec3::new(-kr as f64, -(kh as f64) / 4.0, -kr as f64),
            DVec3::new(kr as f64, 3.0 * kh as f64 / 4.0, kr as f64),
        ),
        (
            // Placed as documented: flat face at y = −3r/8.
            "hemisphere",
            inertia::hemisphere(m, r),
            Box::new(move |p: DVec3| {
                let face = -(inertia::hemisphere_com_height(r) as f64);
                p.y >= face && (p - DVec3::new(0.0, face, 0.0)).length() <= r as f64
            }),
            DVec3::new(-r as f64, -3.0 * r as f64 / 8.0, -r as f64),
            DVec3::new(r as f64, 5.0 * r as f64 / 8.0, r as f64),
        ),
        (
            "capsule",
            inertia::capsule(m, caps_r, caps_hl),
            Box::new(move |p: DVec3| {
                let y = p.y.clamp(-(caps_hl as f64), caps_hl as f64);
                (p - DVec3::new(0.0, y, 0.0)).length() <= caps_r as f64
            }),
            DVec3::new(-caps_r as f64, -(caps_hl + caps_r) as f64, -caps_r as f64),
            DVec3::new(caps_r as f64, (caps_hl + caps_r) as f64, caps_r as f64),
        ),
    ];
    for (name, tensor, inside, lo, hi) in cases {
        let (vol, com, want) = grid_inertia(inside, lo, hi, GRID);
        assert!(vol > 0.0, "{name}: empty solid");
        let size = (hi - lo).max_element();
        assert!(
            com.length() <= 0.01 * size,
            "{name}: the documented placement should put the centre of mass at the origin, \
             numeric integration puts it at {com:?}"
        );
        assert_tensor(name, tensor, m, want, 0.01);
    }
}

/// The spherical shell is a surface: integrate over it with a midpoint grid in (z, φ), which is
/// area-uniform on a sphere (Archimedes).
#[test]
fn hollow_sphere_matches_surface_quadrature() {
    let (m, r) = (3.0f32, 0.8f64);
    let n = 600;
    let mut second = DMat3::ZERO;
    for i in 0..n {
        let z = -1.0 + 2.0 * (i as f64 + 0.5) / n as f64;
        let s = (1.0 - z * z).sqrt();
        for j in 0..n {
            let phi = 2.0 * std::f64::consts::PI * (j as f64 + 0.5) / n as f64;
            let p = DVec3::new(s * phi.cos(), s * phi.sin(), z) * r;
            second += DMat3::from_cols(p * p.x, p * p.y, p * p.z);
        }
    }
    let about = second * (1.0 / (n * n) as f64);
    let tr = about.x_axis.x + about.y_axis.y + about.z_axis.z;
    let want = DMat3::from_diagonal(DVec3::splat(tr)) - about;
    assert_tensor(
        "hollow sphere",
        inertia::hollow_sphere(m, r as f32),
        m,
        want,
        0.01,
    );
}

/// The cone's I_zz is the book's erratum: it must equal I_xx by symmetry.
#[test]
fn cone_izz_is_the_corrected_form() {
    let t = inertia::cone(2.0, 0.5, 1.2);
    assert_eq!(t.z_axis.z, t.x_axis.x, "cone I_zz must equal I_xx");
    let printed = 3.0 / 5.0 * 2.0 * 1.2 * 1.2 + 3.0 / 20.0 * 2.0 * 0.5 * 0.5;
    assert!(
        (t.z_axis.z - printed).abs() > 0.1,
        "the book's misprinted I_zz crept back in"
    );
}

/// The catalogue's capsule vectors (002-8), as (H, R, ρ) → mass, I_xx = I_zz, I_yy.
#[test]
fn capsule_matches_the_catalogue_vectors() {
    let rows = [
        (0.0, 1.0, 1.0, 4.18879, 1.67552, 1.67552),
        (1.0, 1.0, 1.0, 7.33038, 5.34071, 3.24631),
        (2.0, 0.5, 1.0, 2.09440, 1.39408, 0.24871),
        (2.0, 1.0, 1.0, 10.47198, 12.67109, 4.81711),
    ];
    for (h, r, rho, mass, ixx, iyy) in rows {
        let (m, t) = inertia::capsule_from_density(h, r, rho);
        let close = |a: f32, b: f32| (a - b).abs() <= 1e-4 * b.abs().max(1.0);
        assert!(
            close(m, mass),
            "capsule H={h} R={r}: mass {m}, catalogue {mass}"
        );
        assert!(
            close(t.x_axis.x, ixx),
            "capsule H={h} R={r}: I_xx {}, catalogue {ixx}",
            t.x_axis.x
        );
        assert!(
            close(t.z_axis.z, ixx),
            "capsule H={h} R={r}: I_zz {}, catalogue {ixx}",
            t.z_axis.z
        );
        assert!(
            close(t.y_axis.y, iyy),
            "capsule H={h} R={r}: I_yy {}, catalogue {iyy}",
            t.y_axis.y
        );
        let off = [
            t.x_axis.y, t.x_axis.z, t.y_axis.x, t.y_axis.z, t.z_axis.x, t.z_axis.y,
        ];
        assert!(
            off.iter().all(|v| *v == 0.0),
            "capsule products of inertia must be 0"
        );
        // The by-mass constructor (half length = H/2) agrees.
        let by_mass = inertia::capsule(m, r, h / 2.0);
        assert!(
            (by_mass - t)
                .to_cols_array()
                .iter()
                .all(|d| d.abs() <= 1e-4 * ixx),
            "capsule(mass, r, H/2) disagrees with capsule_from_density: {by_mass:?} vs {t:?}"
        );
    }
    // H = 0 is a solid sphere.
    let (m, t) = inertia::capsule_from_density(0.0, 0.7, 2.0);
    let s = inertia::solid_sphere(m, 0.7);
    assert!((t - s).to_cols_array().iter().all(|d| d.abs() < 1e-5));
}

/// A rotated, offset cuboid about the origin: `parallel_axis(rotate(cuboid))` against numeric
/// integration of the moved solid, products of inertia (and their sign) included.
#[test]
fn parallel_axis_and_rotation_match_numeric_integration() {
    let m = 1.5f32;
    let half = Vec3::new(0.2, 0.5, 0.3);
    let q = Quat::from_euler(glam::EulerRot::XYZ, 0.4, -0.7, 1.1);
    let offset = Vec3::new(0.6, -0.3, 0.45);
    let lib = inertia::parallel_axis(
        inertia::rotate(inertia::cuboid(m, half), from_quat(q)),
        m,
        offset,
    );
    let qd = q.as_dquat();
    let (hd, od) = (half.as_dvec3(), offset.as_dvec3());
    let inside = move |p: DVec3| (qd.inverse() * (p - od)).abs().cmple(hd).all();
    let reach = hd.length();
    // Integrate about the origin: the grid's own tensor is about its centre of mass, so add the
    // parallel-axis term back by hand from the numeric centre of mass (independent arithmetic).
    let (_, com, about_com) = grid_inertia(
        inside,
        od - DVec3::splat(reach),
        od + DVec3::splat(reach),
        GRID,
    );
    let shift = DMat3::from_diagonal(DVec3::splat(com.dot(com)))
        - DMat3::from_cols(com * com.x, com * com.y, com * com.z);
    assert!(
        (com - od).length() < 1e-3,
        "numeric centre of mass {com:?} vs offset {od:?}"
    );
    assert_tensor("offset rotated cuboid", lib, m, about_com + shift, 0.01);
    assert!(
        lib.x_axis.y.abs() > 1e-3,
        "the rotation should give products of inertia"
    );
}

#[test]
fn inverse_inertia_accepts_valid_and_rejects_bad_tensors() {
    let t = inertia::rotate(
        inertia::cuboid(2.0, Vec3::new(0.1, 0.5, 1.0)),
        from_quat(Quat::from_rotation_y(0.3)),
    );
    let inv = inertia::inverse_inertia(t).expect("a cuboid tensor is invertible");
    assert!((t * inv - Mat3::IDENTITY)
        .to_cols_array()
        .iter()
        .all(|d| d.abs() < 1e-5));
    // A thin rod is anisotropic but fine.
    inertia::inverse_inertia(inertia::capsule(1.0, 0.002, 1.0)).expect("thin capsule");

    let bad = [
        ("zero", Mat3::ZERO),
        ("negative", inertia::solid_sphere(-1.0, 1.0)),
        ("NaN", Mat3::from_diagonal(Vec3::new(1.0, f32::NAN, 1.0))),
        (
            "infinite",
            Mat3::from_diagonal(Vec3::new(1.0, 1.0, f32::INFINITY)),
        ),
        ("rank 2", Mat3::from_diagonal(Vec3::new(1.0, 1.0, 0.0))),
        (
            "asymmetric",
            Mat3::from_cols(Vec3::new(1.0, 0.5, 0.0), Vec3::Y, Vec3::Z),
        ),
        (
            "indefinite",
            Mat3::from_cols(Vec3::new(1.0, 2.0, 0.0), Vec3::new(2.0, 1.0, 0.0), Vec3::Z),
        ),
        ("zero mass", inertia::cuboid(0.0, Vec3::ONE)),
        ("flat box", inertia::cuboid(1.0, Vec3::new(1.0, 0.0, 0.0))),
    ];
    for (name, t) in bad {
        match inertia::inverse_inertia(t) {
            Err(Error::InvalidInput { what, fix, .. }) => {
                assert_eq!(what, "inertia tensor", "{name}");
                assert!(!fix.is_empty(), "{name}: the error must say how to fix it");
            }
            other => panic!("{name} tensor {t:?} was not rejected: {other:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Scene helpers

fn body_at(pos: Vec3, q: Quat, kind: u32) -> GpuBody {
    GpuBody {
        pos: pos.extend(if kind == body_kind::DYNAMIC { 1.0 } else { 0.0 }),
        orient: from_quat(q),
        lin_vel: Vec4::new(0.0, 0.0, 0.0, 1.0),
        ang_vel: Vec4::new(0.0, 0.0, 0.0, 1.0),
        kind,
        awake: 1,
        can_sleep: 1,
        ..GpuBody::default()
    }
}

fn bullet(pos: Vec3, vel: Vec3) -> GpuBody {
    let mut b = body_at(pos, Quat::IDENTITY, body_kind::DYNAMIC);
    b.lin_vel = vel.extend(1.0);
    b.flags = CCD_FLAG;
    b
}

fn shape(kind: u32, body: u32, dims: Vec4) -> GpuShape {
    GpuShape {
        kind,
        body,
        group: 1,
        mask: u32::MAX,
        offset_pos: Vec4::ZERO,
        offset_rot: QUAT_IDENTITY,
        dims,
        material: Vec4::new(0.5, 0.2, 0.0, 0.0),
    }
}

fn ray(o: Vec3, d: Vec3) -> Ray {
    Ray::new(o, d, f32::INFINITY).expect("valid ray")
}

fn close3(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).abs().max_element() <= tol
}

// ---------------------------------------------------------------------------------------------
// Ray casts

#[test]
fn ray_new_rejects_bad_input() {
    let cases = [
        ("ray.origin", Vec3::new(f32::NAN, 0.0, 0.0), Vec3::X, 1.0),
        ("ray.dir", Vec3::ZERO, Vec3::ZERO, 1.0),
        (
            "ray.dir",
            Vec3::ZERO,
            Vec3::new(0.0, f32::INFINITY, 0.0),
            1.0,
        ),
        ("ray.max_t", Vec3::ZERO, Vec3::X, -1.0),
        ("ray.max_t", Vec3::ZERO, Vec3::X, f32::NAN),
    ];
    for (field, o, d, max_t) in cases {
        match Ray::new(o, d, max_t) {
            Err(Error::InvalidInput { what, .. }) => assert_eq!(what, field, "{o:?} {d:?} {max_t}"),
            other => panic!("Ray::new({o:?}, {d:?}, {max_t}) should fail on {field}: {other:?}"),
        }
    }
    let r = Ray::new(Vec3::ONE, Vec3::new(0.0, 3.0, 4.0), 2.0).expect("valid");
    assert!(
        close3(r.dir(), Vec3::new(0.0, 0.6, 0.8), 1e-7),
        "direction is normalized"
    );
    assert_eq!(r.max_t(), 2.0);
    // Any non-zero length normalizes, however long or short.
    for scale in [1e-38f32, 1e-30, 1e30, 5e37] {
        let r = Ray::new(Vec3::ZERO, Vec3::new(0.0, 3.0, 4.0) * scale, 1.0).expect("valid");
        assert!(
            close3(r.dir(), Vec3::new(0.0, 0.6, 0.8), 1e-6),
            "scale {scale}: {}",
            r.dir()
        );
    }
}

#[test]
fn ray_hits_sphere_in_a_rotated_frame() {
    // Body rotated 90° about z: the shape offset (0.5, 0, 0) lands at (0, 0.5, 0).
    let body = body_at(
        Vec3::new(1.0, 2.0, 3.0),
        Quat::from_rotation_z(FRAC_PI_2),
        body_kind::STATIC,
    );
    let mut s = shape(shape_kind::SPHERE, 0, Vec4::new(1.0, 0.0, 0.0, 0.0));
    s.offset_pos = Vec4::new(0.5, 0.0, 0.0, 0.0);
    s.offset_rot = from_quat(Quat::from_rotation_x(0.7));
    let (t, n) = ray_shape(&ray(Vec3::new(-5.0, 2.5, 3.0), Vec3::X), &s, &body).expect("hit");
    assert!(
        (t - 5.0).abs() < 1e-5 && close3(n, -Vec3::X, 1e-5),
        "t {t} n {n}"
    );
    // Off-centre by 0.6: enters at x = 1 − 0.8.
    let (t, n) = ray_shape(&ray(Vec3::new(-5.0, 3.1, 3.0), Vec3::X), &s, &body).expect("hit");
    assert!(
        (t - 5.2).abs() < 1e-5 && close3(n, Vec3::new(-0.8, 0.6, 0.0), 1e-5),
        "t {t} n {n}"
    );
    // Miss (passes at distance 1.01), behind, and beyond max_t.
    assert!(ray_shape(&ray(Vec3::new(-5.0, 3.51, 3.0), Vec3::X), &s, &body).is_none());
    assert!(ray_shape(&ray(Vec3::new(-5.0, 2.5, 3.0), -Vec3::X), &s, &body).is_none());
    let short = Ray::new(Vec3::new(-5.0, 2.5, 3.0), Vec3::X, 4.9).expect("ray");
    assert!(ray_shape(&short, &s, &body).is_none());
    // Inside: t = 0, normal opposite the direction.
    let (t, n) = ray_shape(&ray(Vec3::new(1.2, 2.5, 3.0), Vec3::Y), &s, &body).expect("inside");
    assert!(t == 0.0 && close3(n, -Vec3::Y, 1e-6), "t {t} n {n}");
}

#[test]
fn ray_hits_box_in_rotated_frames() {
    // 90° about y: local x → world −z, local z → world x. World half extents (3, 2, 1).
    let body = body_at(
        Vec3::ZERO,
        Quat::from_rotation_y(FRAC_PI_2),
        body_kind::STATIC,
    );
    let s = shape(shape_kind::BOX, 0, Vec4::new(1.0, 2.0, 3.0, 0.0));
    let cases = [
        (Vec3::new(10.0, 0.5, 0.2), -Vec3::X, 7.0, Vec3::X),
        (Vec3::new(0.3, 0.2, 10.0), -Vec3::Z, 9.0, Vec3::Z),
        (Vec3::new(0.3, -10.0, 0.1), Vec3::Y, 8.0, -Vec3::Y),
    ];
    for (o, d, t_want, n_want) in cases {
        let (t, n) = ray_shape(&ray(o, d), &s, &body).expect("box hit");
        assert!(
            (t - t_want).abs() < 1e-5 && close3(n, n_want, 1e-5),
            "{o} {d}: t {t} n {n}"
        );
    }
    assert!(ray_shape(&ray(Vec3::new(10.0, 0.0, 1.1), -Vec3::X), &s, &body).is_none());
    assert!(ray_shape(&ray(Vec3::new(10.0, 0.0, 0.0), Vec3::X), &s, &body).is_none());
    // 45° about z, unit cube: a ray at y = 0.3 from +x meets the face x + y = √2.
    let body = body_at(
        Vec3::ZERO,
        Quat::from_rotation_z(FRAC_PI_4),
        body_kind::STATIC,
    );
    let s = shape(shape_kind::BOX, 0, Vec4::new(1.0, 1.0, 1.0, 0.0));
    let (t, n) = ray_shape(&ray(Vec3::new(10.0, 0.3, 0.0), -Vec3::X), &s, &body).expect("hit");
    let want_t = 10.0 - (2f32.sqrt() - 0.3);
    let want_n = Vec3::new(1.0, 1.0, 0.0).normalize();
    assert!(
        (t - want_t).abs() < 1e-5 && close3(n, want_n, 1e-5),
        "t {t} n {n}"
    );
    let (t, n) = ray_shape(&ray(Vec3::new(0.2, 0.1, 0.0), Vec3::Z), &s, &body).expect("inside");
    assert!(t == 0.0 && close3(n, -Vec3::Z, 1e-6));
}

#[test]
fn ray_hits_capsule_in_a_rotated_frame() {
    // 90° about z: the capsule's local y axis lies along world −x; segment x ∈ [−1, 1].
    let body = body_at(
        Vec3::new(0.0, 0.0, 2.0),
        Quat::from_rotation_z(FRAC_PI_2),
        body_kind::STATIC,
    );
    let s = shape(shape_kind::CAPSULE, 0, Vec4::new(0.5, 1.0, 0.0, 0.0));
    let cases = [
        (Vec3::new(0.7, 5.0, 2.0), -Vec3::Y, 4.5, Vec3::Y),
        (Vec3::new(5.0, 0.0, 2.0), -Vec3::X, 3.5, Vec3::X),
        (
            Vec3::new(5.0, 0.3, 2.0),
            -Vec3::X,
            3.6,
            Vec3::new(0.8, 0.6, 0.0),
        ),
        (Vec3::new(-0.2, 0.0, -3.0), Vec3::Z, 4.5, -Vec3::Z),
    ];
    for (o, d, t_want, n_want) in cases {
        let (t, n) = ray_shape(&ray(o, d), &s, &body).expect("capsule hit");
        assert!(
            (t - t_want).abs() < 1e-5 && close3(n, n_want, 1e-5),
            "{o} {d}: t {t} n {n}"
        );
    }
    assert!(ray_shape(&ray(Vec3::new(1.6, 5.0, 2.0), -Vec3::Y), &s, &body).is_none());
    assert!(ray_shape(&ray(Vec3::new(0.0, 0.51, -3.0), Vec3::Z), &s, &body).is_none());
    let (t, n) = ray_shape(&ray(Vec3::new(1.2, 0.0, 2.0), Vec3::Y), &s, &body).expect("inside");
    assert!(t == 0.0 && close3(n, -Vec3::Y, 1e-6));
}

#[test]
fn ray_hits_half_space_and_plane() {
    // Body at (0,1,0) rotated 90° about x: the local normal y becomes world z; local offset 0.5
    // puts the surface at z = 0.5 (world), through x and y.
    let body = body_at(
        Vec3::new(0.0, 1.0, 0.0),
        Quat::from_rotation_x(FRAC_PI_2),
        body_kind::STATIC,
    );
    let hs = shape(shape_kind::HALF_SPACE, 0, Vec4::new(0.0, 1.0, 0.0, 0.5));
    let pl = shape(shape_kind::PLANE, 0, Vec4::new(0.0, 1.0, 0.0, 0.5));
    for s in [&hs, &pl] {
        let (t, n) = ray_shape(&ray(Vec3::new(3.0, -2.0, 5.0), -Vec3::Z), s, &body).expect("hit");
        assert!(
            (t - 4.5).abs() < 1e-5 && close3(n, Vec3::Z, 1e-5),
            "kind {}: t {t} n {n}",
            s.kind
        );
        let slanted = ray(Vec3::new(0.0, 0.0, 2.5), Vec3::new(1.0, 0.0, -1.0));
        let (t, _) = ray_shape(&slanted, s, &body).expect("slanted hit");
        assert!((t - 2.0 * 2f32.sqrt()).abs() < 1e-5, "slanted t {t}");
        assert!(ray_shape(&ray(Vec3::new(0.0, 0.0, 5.0), Vec3::Z), s, &body).is_none());
        assert!(ray_shape(&ray(Vec3::new(0.0, 0.0, 5.0), Vec3::X), s, &body).is_none());
    }
    // From below: the half-space reports "inside", the thin plane is hit from its back.
    let up = ray(Vec3::new(0.0, 0.0, -5.0), Vec3::Z);
    let (t, n) = ray_shape(&up, &hs, &body).expect("inside");
    assert!(t == 0.0 && close3(n, -Vec3::Z, 1e-6));
    let (t, n) = ray_shape(&up, &pl, &body).expect("plane from below");
    assert!(
        (t - 5.5).abs() < 1e-5 && close3(n, -Vec3::Z, 1e-5),
        "t {t} n {n}"
    );
}

#[test]
fn cast_ray_returns_the_nearest_of_many() {
    let bodies = vec![
        body_at(Vec3::new(5.0, 0.0, 0.0), Quat::IDENTITY, body_kind::DYNAMIC),
        body_at(
            Vec3::new(3.0, 0.0, 0.0),
            Quat::from_rotation_y(0.3),
            body_kind::DYNAMIC,
        ),
        body_at(Vec3::new(8.0, 0.0, 0.0), Quat::IDENTITY, body_kind::STATIC),
    ];
    let mut removed = shape(shape_kind::SPHERE, 1, Vec4::new(5.0, 0.0, 0.0, 0.0));
    removed.kind = 0;
    let shapes = vec![
        shape(shape_kind::SPHERE, 0, Vec4::new(1.0, 0.0, 0.0, 0.0)), // enters at 4
        removed,                                                     // ignored
        shape(shape_kind::BOX, 1, Vec4::new(0.5, 0.5, 0.5, 0.0)),    // enters before 2.5
        shape(shape_kind::SPHERE, 7, Vec4::new(9.0, 0.0, 0.0, 0.0)), // bad body: skipped
        shape(shape_kind::CAPSULE, 2, Vec4::new(0.5, 2.0, 0.0, 0.0)), // enters at 7.5
        shape(shape_kind::PLANE, NONE, Vec4::new(1.0, 0.0, 0.0, 10.0)), // world plane x = 10
    ];
    let r = ray(Vec3::ZERO, Vec3::X);
    let hit = cast_ray(&r, &shapes, &bodies).expect("hit");
    assert_eq!((hit.shape, hit.body), (2, 1), "{hit:?}");
    assert!(close3(hit.point, r.at(hit.t), 1e-6));
    // Without the box, the sphere; aimed past everything but the world plane, the plane.
    let hit = cast_ray(&r, &shapes[..2], &bodies).expect("hit");
    assert_eq!((hit.shape, hit.body, hit.t), (0, 0, 4.0));
    let hit = cast_ray(&ray(Vec3::new(0.0, 3.0, 0.0), Vec3::X), &shapes, &bodies).expect("plane");
    assert_eq!((hit.shape, hit.body), (5, NONE));
    assert!((hit.t - 10.0).abs() < 1e-6 && close3(hit.normal, -Vec3::X, 0.0));
    assert!(cast_ray(&ray(Vec3::new(0.0, 3.0, 0.0), -Vec3::X), &shapes, &bodies).is_none());
    // Ties go to the lower index.
    let twin = vec![shapes[0], shapes[0]];
    assert_eq!(cast_ray(&r, &twin, &bodies).map(|h| h.shape), Some(0));
}

/// Signed distance of a world point to a shape (f64, independent of the library's ray code);
/// for the thin plane, the signed height above it.
fn sdf(p: DVec3, kind: u32, dims: Vec4, c: DVec3, q: DQuat) -> f64 {
    let l = q.inverse() * (p - c);
    let d = dims.as_dvec4();
    match kind {
        shape_kind::SPHERE => l.length() - d.x,
        shape_kind::BOX => {
            let e = l.abs() - d.truncate();
            e.max(DVec3::ZERO).length() + e.max_element().min(0.0)
        }
        shape_kind::CAPSULE => {
            let y = l.y.clamp(-d.y, d.y);
            (l - DVec3::new(0.0, y, 0.0)).length() - d.x
        }
        _ => l.dot(d.truncate()) - d.w,
    }
}

#[test]
fn random_rays_match_a_marching_reference() {
    let mut rng = Rng::new(0x5eed_0042);
    let kinds = [
        shape_kind::SPHERE,
        shape_kind::BOX,
        shape_kind::CAPSULE,
        shape_kind::HALF_SPACE,
        shape_kind::PLANE,
    ];
    let step = 2e-3f64;
    let mut hits = [0u32; 5];
    for (ki, &kind) in kinds.iter().enumerate() {
        for _ in 0..150 {
            let dims = match kind {
                shape_kind::SPHERE => Vec4::new(rng.range(0.2, 1.5), 0.0, 0.0, 0.0),
                shape_kind::BOX => rng.vec3(0.1, 1.2).extend(0.0),
                shape_kind::CAPSULE => {
                    Vec4::new(rng.range(0.1, 0.8), rng.range(0.0, 1.2), 0.0, 0.0)
                }
                _ => rng.vec3(-1.0, 1.0).normalize().extend(rng.range(-0.5, 0.5)),
            };
            let q = Quat::from_euler(
                glam::EulerRot::ZYX,
                rng.range(-PI, PI),
                rng.range(-PI, PI),
                rng.range(-PI, PI),
            );
            let mut s = shape(kind, 0, dims);
            s.offset_pos = rng.vec3(-0.5, 0.5).extend(0.0);
            s.offset_rot = from_quat(Quat::from_rotation_x(rng.range(-1.0, 1.0)));
            let body = body_at(rng.vec3(-1.0, 1.0), q, body_kind::STATIC);
            let origin = rng.vec3(-4.0, 4.0);
            let aim = rng.vec3(-1.5, 1.5) + body.pos.truncate();
            let dir = (aim - origin).normalize();
            let max_t = 12.0f32;
            let r = Ray::new(origin, dir, max_t).expect("ray");
            // The reference pose in f64 from the same definition (body ∘ offset).
            let bq = q.as_dquat();
            let c = body.pos.truncate().as_dvec3() + bq * s.offset_pos.truncate().as_dvec3();
            let sq = bq
                * Quat::from_xyzw(
                    s.offset_rot.x,
                    s.offset_rot.y,
                    s.offset_rot.z,
                    s.offset_rot.w,
                )
                .as_dquat();
            let f = |t: f64| sdf(origin.as_dvec3() + dir.as_dvec3() * t, kind, dims, c, sq);
            let thin = kind == shape_kind::PLANE;
            // First sample inside (solids) or past a sign change (thin plane).
            let start = f(0.0);
            let mut first = None;
            let mut t = 0.0;
            while t <= max_t as f64 {
                let v = f(t);
                if (!thin && v < -1e-4) || (thin && v.signum() != start.signum() && v.abs() > 1e-4)
                {
                    first = Some(t);
                    break;
                }
                t += step;
            }
            let got = ray_shape(&r, &s, &body);
            match (got, first) {
                (Some((t, n)), _) => {
                    hits[ki] += 1;
                    let t64 = t as f64;
                    if t == 0.0 {
                        let on = if thin {
                            start.abs() <= 1e-4
                        } else {
                            start <= 1e-4
                        };
                        assert!(
                            on,
                            "kind {kind}: t = 0 but the origin is outside by {start}"
                        );
                        continue;
                    }
                    let dist = f(t64);
                    assert!(
                        dist.abs() < 1e-4,
                        "kind {kind}: the hit at t {t} is {dist} off the surface"
                    );
                    if let Some(tf) = first {
                        assert!(
                            tf >= t64 - 1e-4,
                            "kind {kind}: marching is inside at {tf} before the hit at {t}"
                        );
                    }
                    // The normal is the distance gradient (the plane's faces the ray origin).
                    let p = origin.as_dvec3() + dir.as_dvec3() * t64;
                    let g = |v: DVec3| {
                        sdf(p + v * 1e-5, kind, dims, c, sq) - sdf(p - v * 1e-5, kind, dims, c, sq)
                    };
                    let mut grad = DVec3::new(g(DVec3::X), g(DVec3::Y), g(DVec3::Z)).normalize();
                    if thin && start < 0.0 {
                        grad = -grad;
                    }
                    let cos = n.as_dvec3().dot(grad);
                    assert!(
                        cos > 0.99,
                        "kind {kind}: normal {n} vs distance gradient {grad}"
                    );
                }
                (None, Some(tf)) => panic!(
                    "kind {kind}: ray {origin} {dir} missed but marching is inside at t = {tf}"
                ),
                (None, None) => {}
            }
        }
    }
    assert!(
        hits.iter().all(|&h| h >= 20),
        "too few hits to mean anything: {hits:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Sweeps and the ccd stage

/// The 001-A circle vectors, in 3D: C1 from (0,0,0) to (10,0,0), r = 1, against a still unit
/// sphere.
#[test]
fn sphere_sphere_toi_matches_the_closed_form() {
    let mut s = shape(shape_kind::SPHERE, 0, Vec4::new(1.0, 0.0, 0.0, 0.0));
    // Put the target shape on an offset in a rotated body, so the pose path is exercised.
    s.offset_pos = Vec4::new(0.0, 1.0, 0.0, 0.0);
    let q = Quat::from_rotation_z(-FRAC_PI_2); // local y → world +x
    let (a, b) = (Vec3::ZERO, Vec3::new(10.0, 0.0, 0.0));
    let at = |c: Vec3| body_at(c - Vec3::X, q, body_kind::STATIC);
    let (t, n) = sweep_sphere(a, b, 1.0, &s, &at(Vec3::new(6.0, 0.0, 0.0))).expect("TOI");
    assert!(
        (t - 0.4).abs() < 1e-6 && close3(n, -Vec3::X, 1e-6),
        "t {t} n {n}"
    );
    let (t, _) = sweep_sphere(a, b, 1.0, &s, &at(Vec3::new(6.0, 2.0, 0.0))).expect("graze");
    // A double root is ill-conditioned: a rounding of ε in the target's pose (it sits on a
    // rotated offset) moves it by about √ε·scale, so this tolerance is √(f32 ε)-sized.
    assert!((t - 0.6).abs() < 2e-3, "grazing double root: t {t}");
    // Without the rotated offset the root is exact.
    let plain = shape(shape_kind::SPHERE, 0, Vec4::new(1.0, 0.0, 0.0, 0.0));
    let still = body_at(Vec3::new(6.0, 2.0, 0.0), Quat::IDENTITY, body_kind::STATIC);
    let (t, _) = sweep_sphere(a, b, 1.0, &plain, &still).expect("graze");
    assert!(
        (t - 0.6).abs() < 1e-6,
        "grazing double root, plain pose: t {t}"
    );
    assert!(sweep_sphere(a, b, 1.0, &s, &at(Vec3::new(6.0, 3.0, 0.0))).is_none());
    // Out of reach within the step, and already overlapping at the start.
    assert!(sweep_sphere(
        a,
        Vec3::new(3.0, 0.0, 0.0),
        1.0,
        &s,
        &at(Vec3::new(6.0, 0.0, 0.0))
    )
    .is_none());
    let (t, _) = sweep_sphere(
        Vec3::new(5.0, 0.0, 0.0),
        b,
        1.0,
        &s,
        &at(Vec3::new(6.0, 0.0, 0.0)),
    )
    .expect("overlap");
    assert_eq!(t, 0.0);
}

#[test]
fn sphere_plane_and_half_space_toi_match_the_closed_form() {
    let ground = body_at(Vec3::ZERO, Quat::IDENTITY, body_kind::STATIC);
    let (h0, h1, r) = (3.0f32, -7.0f32, 0.25f32);
    let want = (h0 - r) / (h0 - h1);
    for kind in [shape_kind::HALF_SPACE, shape_kind::PLANE] {
        let s = shape(kind, 0, Vec4::new(0.0, 1.0, 0.0, 0.0));
        let (t, n) = sweep_sphere(
            Vec3::new(0.0, h0, 0.0),
            Vec3::new(4.0, h1, 1.0),
            r,
            &s,
            &ground,
        )
        .expect("TOI");
        assert!(
            (t - want).abs() < 1e-6 && close3(n, Vec3::Y, 1e-6),
            "kind {kind}: t {t} n {n}"
        );
    }
    // The thin plane from below, tilted 30° about z.
    let tilted = body_at(
        Vec3::ZERO,
        Quat::from_rotation_z(PI / 6.0),
        body_kind::STATIC,
    );
    let s = shape(shape_kind::PLANE, 0, Vec4::new(0.0, 1.0, 0.0, 0.0));
    let n_w = Quat::from_rotation_z(PI / 6.0) * Vec3::Y;
    let (a, b) = (-2.0 * n_w, 3.0 * n_w);
    let (t, n) = sweep_sphere(a, b, r, &s, &tilted).expect("TOI");
    assert!(
        (t - (2.0 - r) / 5.0).abs() < 1e-6 && close3(n, -n_w, 1e-6),
        "t {t} n {n}"
    );
}

#[test]
fn sphere_box_toi_uses_the_rounded_box() {
    // Unit box (half 1), sphere r = 0.5 moving along x from −5 to 5 (10 units) at height (y, z).
    let cases = [
        (0.0, 0.0, Some(0.35)),                                // face: x = −1.5
        (1.3, 0.0, Some(0.36)),                                // edge: (x+1)² + 0.09 = 0.25
        (1.2, 1.2, Some((5.0 - 1.0 - 0.17f32.sqrt()) / 10.0)), // corner
        (1.4, 1.4, None), // inside the inflated AABB but outside the rounded corner
    ];
    for q in [
        Quat::IDENTITY,
        Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 0.8),
    ] {
        let centre = Vec3::new(2.0, -1.0, 0.5);
        let body = body_at(centre, q, body_kind::STATIC);
        let s = shape(shape_kind::BOX, 0, Vec4::new(1.0, 1.0, 1.0, 0.0));
        for (y, z, want) in cases {
            let a = centre + q * Vec3::new(-5.0, y, z);
            let b = centre + q * Vec3::new(5.0, y, z);
            let got = sweep_sphere(a, b, 0.5, &s, &body).map(|h| h.0);
            match (got, want) {
                (Some(t), Some(w)) => assert!((t - w).abs() < 2e-6, "y {y} z {z}: t {t} want {w}"),
                (None, None) => {}
                _ => panic!("y {y} z {z} q {q}: got {got:?}, want {want:?}"),
            }
        }
    }
}

#[test]
fn sphere_capsule_toi_matches_the_closed_form() {
    // Capsule along world z (local y rotated by 90° about x), r 0.3, half length 2.
    let body = body_at(
        Vec3::ZERO,
        Quat::from_rotation_x(FRAC_PI_2),
        body_kind::STATIC,
    );
    let s = shape(shape_kind::CAPSULE, 0, Vec4::new(0.3, 2.0, 0.0, 0.0));
    // Side: approach along x at z = 1: touches at x = −(0.3 + 0.2).
    let (t, n) = sweep_sphere(
        Vec3::new(-4.5, 0.0, 1.0),
        Vec3::new(5.5, 0.0, 1.0),
        0.2,
        &s,
        &body,
    )
    .expect("side");
    assert!(
        (t - 0.4).abs() < 1e-6 && close3(n, -Vec3::X, 1e-5),
        "t {t} n {n}"
    );
    // End cap: approach along z: touches at z = 2.5.
    let (t, n) = sweep_sphere(
        Vec3::new(0.0, 0.0, 7.5),
        Vec3::new(0.0, 0.0, -2.5),
        0.2,
        &s,
        &body,
    )
    .expect("cap");
    assert!(
        (t - 0.5).abs() < 1e-6 && close3(n, Vec3::Z, 1e-5),
        "t {t} n {n}"
    );
}

fn params(dt: f32, bodies: usize, shapes: usize) -> GpuRigidParams {
    GpuRigidParams {
        dt,
        body_count: bodies as u32,
        shape_count: shapes as u32,
        contact_margin: 0.01,
        position_slop: 0.002,
        ..GpuRigidParams::default()
    }
}

/// The catalogue's tunnelling case: a 300 m/s bullet (r = 0.01) against a 5 cm static wall at
/// dt = 1/60 travels 5 m per step, a hundred times the wall's thickness.
#[test]
fn fast_bullet_stops_at_the_wall_face() {
    let dt = 1.0 / 60.0;
    let v = Vec3::new(300.0, 0.0, 0.0);
    let r = 0.01f32;
    let face = -0.025f32;
    for wall_q in [Quat::IDENTITY, Quat::from_rotation_x(0.9)] {
        // The integrator already moved the bullet from x = −2 to x = 3 (through the wall).
        let start = Vec3::new(-2.0, 0.1, -0.2);
        let mut bodies = vec![
            bullet(start + v * dt, v),
            body_at(Vec3::ZERO, wall_q, body_kind::STATIC),
        ];
        let shapes = vec![
            shape(shape_kind::SPHERE, 0, Vec4::new(r, 0.0, 0.0, 0.0)),
            shape(shape_kind::BOX, 1, Vec4::new(0.025, 1.0, 1.0, 0.0)),
        ];
        let p = params(dt, bodies.len(), shapes.len());
        let skin = 0.5 * p.position_slop.min(r);
        let before = bodies.clone();
        ccd(&p, &mut bodies, &shapes);
        let x = bodies[0].pos.x;
        assert!(
            x >= face - r + skin - 1e-5 && x <= face - r + skin + 1e-5,
            "bullet should sit {skin} into the face at x = {face}: centre x = {x}"
        );
        assert!(x + r < face + 2.0 * skin, "the bullet passed the face");
        assert_eq!(
            bodies[0].pos.yzw(),
            before[0].pos.yzw(),
            "only x moves, inverse mass kept"
        );
        assert_eq!(
            bodies[0].lin_vel, before[0].lin_vel,
            "velocity kept for the solver"
        );
        assert_eq!(bodies[1], before[1], "the wall is untouched");
    }
}

/// Every target kind: the stage places the bullet `skin` into the surface along its path.
#[test]
fn ccd_places_the_sphere_at_contact_for_every_target_kind() {
    let dt = 0.01;
    let r = 0.05f32;
    let v = Vec3::new(0.0, -400.0, 0.0); // 4 m per step
    let targets = [
        (shape_kind::SPHERE, Vec4::new(0.3, 0.0, 0.0, 0.0), 0.3 + r),
        (shape_kind::BOX, Vec4::new(0.5, 0.2, 0.5, 0.0), 0.2 + r),
        (shape_kind::CAPSULE, Vec4::new(0.2, 1.0, 0.0, 0.0), 0.2 + r), // rotated to lie along x
        (shape_kind::HALF_SPACE, Vec4::new(0.0, 1.0, 0.0, 0.0), r),
        (shape_kind::PLANE, Vec4::new(0.0, 1.0, 0.0, 0.0), r),
    ];
    for (kind, dims, contact_y) in targets {
        let q = if kind == shape_kind::CAPSULE {
            Quat::from_rotation_z(FRAC_PI_2)
        } else {
            Quat::IDENTITY
        };
        let mut bodies = vec![
            body_at(Vec3::ZERO, q, body_kind::STATIC),
            bullet(Vec3::new(0.0, 2.0, 0.0) + v * dt, v),
        ];
        let shapes = vec![
            shape(kind, 0, dims),
            shape(shape_kind::SPHERE, 1, Vec4::new(r, 0.0, 0.0, 0.0)),
        ];
        let p = params(dt, 2, 2);
        let skin = 0.5 * p.position_slop.min(r);
        ccd(&p, &mut bodies, &shapes);
        let y = bodies[1].pos.y;
        assert!(
            (y - (contact_y - skin)).abs() < 2e-5,
            "kind {kind}: bullet centre y = {y}, want {}",
            contact_y - skin
        );
    }
}

#[test]
fn slow_sleeping_unflagged_and_filtered_bodies_are_untouched() {
    let dt = 1.0 / 60.0;
    let wall = shape(shape_kind::BOX, 0, Vec4::new(0.025, 1.0, 1.0, 0.0));
    let ball = |b: u32| shape(shape_kind::SPHERE, b, Vec4::new(0.1, 0.0, 0.0, 0.0));
    let fast = Vec3::new(300.0, 0.0, 0.0);
    let cases: Vec<(&str, GpuBody, GpuShape)> = vec![
        // Travels 0.083 per step < r = 0.1: the discrete phase cannot miss it.
        (
            "slow",
            bullet(Vec3::new(-0.09, 0.0, 0.0), Vec3::new(5.0, 0.0, 0.0)),
            ball(1),
        ),
        (
            "unflagged",
            {
                let mut b = bullet(Vec3::new(3.0, 0.0, 0.0), fast);
                b.flags = 0;
                b
            },
            ball(1),
        ),
        (
            "asleep",
            {
                let mut b = bullet(Vec3::new(3.0, 0.0, 0.0), fast);
                b.awake = 0;
                b
            },
            ball(1),
        ),
        (
            "kinematic",
            {
                let mut b = bullet(Vec3::new(3.0, 0.0, 0.0), fast);
                b.kind = body_kind::KINEMATIC;
                b
            },
            ball(1),
        ),
        ("filtered", bullet(Vec3::new(3.0, 0.0, 0.0), fast), {
            let mut s = ball(1);
            s.group = 2;
            s
        }),
        (
            "not a sphere",
            bullet(Vec3::new(3.0, 0.0, 0.0), fast),
            shape(shape_kind::BOX, 1, Vec4::splat(0.1)),
        ),
        // Already touching the face and leaving fast (e.g. after the solver bounced it).
        (
            "leaving",
            bullet(Vec3::new(-0.12, 0.0, 0.0) - fast * dt, -fast),
            ball(1),
        ),
        // Shapes past shape_count are not looked at.
        (
            "counted out",
            bullet(Vec3::new(3.0, 0.0, 0.0), fast),
            ball(1),
        ),
    ];
    for (name, b, s) in cases {
        let mut wall_shape = wall;
        wall_shape.mask = !2; // the "filtered" ball's group
        let mut shapes = vec![wall_shape, s];
        let mut bodies = vec![body_at(Vec3::ZERO, Quat::IDENTITY, body_kind::STATIC), b];
        let mut p = params(dt, 2, 2);
        if name == "counted out" {
            shapes.swap(0, 1);
            p.shape_count = 1;
        }
        let before = bodies.clone();
        ccd(&p, &mut bodies, &shapes);
        assert_eq!(bodies, before, "{name}: the body should be untouched");
    }
}

#[test]
fn ccd_picks_the_earliest_hit_and_handles_moving_targets() {
    let dt = 0.01;
    let v = Vec3::new(500.0, 0.0, 0.0); // 5 m per step, from x = 0 to x = 5
    let r = 0.02;
    let wall = |b: u32| shape(shape_kind::BOX, b, Vec4::new(0.05, 1.0, 1.0, 0.0));
    let mut bodies = vec![
        body_at(Vec3::new(3.0, 0.0, 0.0), Quat::IDENTITY, body_kind::STATIC),
        body_at(Vec3::new(1.0, 0.0, 0.0), Quat::IDENTITY, body_kind::STATIC),
        bullet(v * dt, v),
    ];
    let shapes = vec![
        wall(0),
        wall(1),
        shape(shape_kind::SPHERE, 2, Vec4::new(r, 0.0, 0.0, 0.0)),
    ];
    let p = params(dt, 3, 3);
    let skin = 0.5 * p.position_slop;
    ccd(&p, &mut bodies, &shapes);
    assert!(
        (bodies[2].pos.x - (0.95 - r + skin)).abs() < 1e-5,
        "nearest wall: x = {}",
        bodies[2].pos.x
    );

    // A wall moving toward the bullet at 100 m/s (now at x = 2, it was at 3): relative to the
    // wall the bullet starts at x = 1 and the contact is at the wall's current face.
    let mut moving = body_at(
        Vec3::new(2.0, 0.0, 0.0),
        Quat::IDENTITY,
        body_kind::KINEMATIC,
    );
    moving.lin_vel = Vec4::new(-100.0, 0.0, 0.0, 1.0);
    let mut bodies = vec![moving, bullet(v * dt, v)];
    let shapes = vec![
        wall(0),
        shape(shape_kind::SPHERE, 1, Vec4::new(r, 0.0, 0.0, 0.0)),
    ];
    ccd(&params(dt, 2, 2), &mut bodies, &shapes);
    assert!(
        (bodies[1].pos.x - (1.95 - r + skin)).abs() < 1e-5,
        "moving wall: x = {}",
        bodies[1].pos.x
    );

    // Two bullets do not sweep against each other (the discrete phase handles them).
    let mut bodies = vec![
        bullet(Vec3::new(2.5, 0.0, 0.0), v),
        bullet(Vec3::new(2.5, 0.0, 0.0), -v),
    ];
    let shapes = vec![
        shape(shape_kind::SPHERE, 0, Vec4::new(r, 0.0, 0.0, 0.0)),
        shape(shape_kind::SPHERE, 1, Vec4::new(r, 0.0, 0.0, 0.0)),
    ];
    let before = bodies.clone();
    ccd(&params(dt, 2, 2), &mut bodies, &shapes);
    assert_eq!(bodies, before);
}

/// A CCD body with two spheres on offsets: the one that leads after the body's rotation hits
/// first, and the body is placed so that sphere sits at the face. Bodies past `body_count` are
/// not looked at.
#[test]
fn ccd_uses_the_leading_sphere_of_a_rotated_body() {
    let dt = 0.01;
    let v = Vec3::new(400.0, 0.0, 0.0);
    let r = 0.05;
    // Rotated 180° about y: the offset (−0.5, 0, 0) now leads along +x.
    let mut b = bullet(Vec3::new(1.0, 0.0, 0.0), v);
    b.orient = from_quat(Quat::from_rotation_y(PI));
    let mut lead = shape(shape_kind::SPHERE, 1, Vec4::new(r, 0.0, 0.0, 0.0));
    lead.offset_pos = Vec4::new(-0.5, 0.0, 0.0, 0.0);
    let mut tail = lead;
    tail.offset_pos = Vec4::new(0.5, 0.0, 0.0, 0.0);
    let wall = shape(shape_kind::BOX, 0, Vec4::new(0.05, 1.0, 1.0, 0.0));
    let shapes = vec![wall, tail, lead];
    let mut bodies = vec![
        body_at(Vec3::new(-1.0, 0.0, 0.0), Quat::IDENTITY, body_kind::STATIC),
        b,
    ];
    let p = params(dt, 2, 3);
    let skin = 0.5 * p.position_slop;
    ccd(&p, &mut bodies, &shapes);
    // The leading sphere's centre at −1.05 − r + skin; the body centre is 0.5 behind it.
    let want = -1.05 - r + skin - 0.5;
    assert!(
        (bodies[1].pos.x - want).abs() < 1e-5,
        "body x {} want {want}",
        bodies[1].pos.x
    );

    let mut bodies = vec![
        body_at(Vec3::new(-1.0, 0.0, 0.0), Quat::IDENTITY, body_kind::STATIC),
        b,
    ];
    let before = bodies.clone();
    ccd(&params(dt, 1, 3), &mut bodies, &shapes);
    assert_eq!(bodies, before, "body 1 is past body_count");
}

// ---------------------------------------------------------------------------------------------
// GPU parity

/// A seeded scene for the parity test: `n` bodies (not a multiple of the workgroup size) mixing
/// fast CCD bullets (one or two spheres, offsets), slow ones, asleep and unflagged ones, and
/// static, kinematic and dynamic targets of every shape kind in random orientations.
fn random_ccd_scene(rng: &mut Rng, n: usize) -> (Vec<GpuBody>, Vec<GpuShape>) {
    // Keep the density of the 301-body scene whatever n, so small scenes still collide.
    let spread = 6.0 * (n as f32 / 301.0).cbrt();
    let mut bodies = Vec::with_capacity(n);
    let mut shapes = Vec::new();
    for i in 0..n {
        let q = Quat::from_euler(
            glam::EulerRot::ZYX,
            rng.range(-PI, PI),
            rng.range(-PI, PI),
            rng.range(-PI, PI),
        );
        let pos = rng.vec3(-spread, spread);
        let roll = rng.unit();
        if roll < 0.35 {
            // A bullet: 100–400 m/s aimed roughly through the middle of the scene.
            let speed = rng.range(100.0, 400.0);
            let dir = (rng.vec3(-0.3, 0.3) * spread - pos).normalize_or(Vec3::X);
            let mut b = bullet(pos, dir * speed);
            b.orient = from_quat(q);
            if rng.chance(0.15) {
                b.lin_vel = (dir * 2.0).extend(1.0); // slow: untouched
            }
            if rng.chance(0.1) {
                b.awake = 0;
            }
            bodies.push(b);
            let r = rng.range(0.01, 0.1);
            let mut s = shape(shape_kind::SPHERE, i as u32, Vec4::new(r, 0.0, 0.0, 0.0));
            if rng.chance(0.3) {
                s.offset_pos = rng.vec3(-0.2, 0.2).extend(0.0);
                let mut s2 = s;
                s2.offset_pos = -s.offset_pos;
                shapes.push(s2);
            }
            shapes.push(s);
        } else {
            let kind = if roll < 0.6 {
                body_kind::STATIC
            } else if roll < 0.8 {
                body_kind::KINEMATIC
            } else {
                body_kind::DYNAMIC
            };
            let mut b = body_at(pos, q, kind);
            if kind != body_kind::STATIC {
                b.lin_vel = rng.vec3(-5.0, 5.0).extend(1.0);
            }
            bodies.push(b);
            let k = match rng.below(20) {
                0 => shape_kind::HALF_SPACE,
                1 => shape_kind::PLANE,
                2..=7 => shape_kind::SPHERE,
                8..=13 => shape_kind::CAPSULE,
                _ => shape_kind::BOX,
            };
            let dims = match k {
                shape_kind::SPHERE => Vec4::new(rng.range(0.2, 1.0), 0.0, 0.0, 0.0),
                shape_kind::CAPSULE => {
                    Vec4::new(rng.range(0.1, 0.5), rng.range(0.2, 1.0), 0.0, 0.0)
                }
                shape_kind::BOX => rng.vec3(0.05, 1.0).extend(0.0),
                _ => rng
                    .vec3(-1.0, 1.0)
                    .normalize_or(Vec3::Y)
                    .extend(-spread * rng.range(1.0, 1.3)),
            };
            let mut s = shape(k, i as u32, dims);
            s.offset_pos = rng.vec3(-0.3, 0.3).extend(0.0);
            s.offset_rot = from_quat(Quat::from_rotation_y(rng.range(-1.0, 1.0)));
            shapes.push(s);
        }
    }
    (bodies, shapes)
}

/// Stage `ccd`: the WGSL kernel, run through the rigid pass runner (`GpuRigid::run`, the same
/// explicit layout and bind group the world's step uses), against its CPU twin on seeded random
/// scenes whose body counts are not multiples of the workgroup size.
#[test]
fn ccd_gpu_matches_cpu() {
    use wgphys::grid::GridSpec;
    use wgphys::rigid::gpu::{GpuRigid, GpuRigidSizes, Pass};

    let ctx = common::gpu();
    let mut rng = Rng::new(0xccd0_2026);
    for n in [100usize, 301] {
        let (bodies, shapes) = random_ccd_scene(&mut rng, n);
        let p = params(1.0 / 60.0, bodies.len(), shapes.len());

        let mut cpu = bodies.clone();
        ccd(&p, &mut cpu, &shapes);
        let moved = cpu
            .iter()
            .zip(&bodies)
            .filter(|(a, b)| a.pos != b.pos)
            .count();
        assert!(
            moved >= n / 20,
            "n {n}: the scene should exercise the stage: {moved} moved"
        );

        let sizes = GpuRigidSizes {
            bodies: n as u32,
            shapes: shapes.len() as u32,
            pairs: 64,
            solver_words: 64,
            pair_scratch_words: 64,
            grid: GridSpec::new(1.0, 64).expect("grid"),
        };
        let mut g = GpuRigid::new(&ctx, sizes).expect("gpu backend");
        g.write(&g.params, &[p]);
        g.write(&g.bodies, &bodies);
        g.write(&g.shapes, &shapes);
        g.run(&[Pass::over("ccd", n as u32)]).expect("run ccd");
        let gpu: Vec<GpuBody> = g.read(&g.bodies, n).expect("read bodies");

        let mut worst = 0.0f32;
        let exact = gpu.iter().zip(&cpu).filter(|(g, c)| g.pos == c.pos).count();
        for (i, ((g, c), b)) in gpu.iter().zip(&cpu).zip(&bodies).enumerate() {
            // Most bodies agree to 2 ulps; a time of impact at a grazing angle divides by a
            // small n·d (or takes the root of a small discriminant), which amplifies the
            // per-operation differences (FMA contraction, GPU sqrt and division precision) to a
            // few tens of ulps of the swept length. Hence a tolerance that grows with travel.
            let travel = (b.lin_vel.truncate() * p.dt).length();
            let tol = 2e-5 + 4e-6 * travel;
            let err = (g.pos - c.pos).abs().max_element();
            worst = worst.max(err / tol);
            assert!(
                err <= tol,
                "ccd parity n {n}: body {i} field pos: gpu {} cpu {} (was {}), |diff| {err} > {tol}",
                g.pos,
                c.pos,
                b.pos
            );
            let mut g_rest = *g;
            g_rest.pos = c.pos;
            assert_eq!(
                &g_rest, c,
                "ccd parity n {n}: body {i}: fields other than pos changed"
            );
        }
        println!(
            "ccd parity on {}: n {n}, {moved} bodies moved, {exact} bit-identical; worst |diff| \
             {worst:.3} of tolerance",
            ctx.describe()
        );
    }
}
