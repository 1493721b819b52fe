//! Rigid queries: inertia tensors against independent numeric integration and the catalogue's
//! capsule vectors, and ray casts against hand-computed answers and a marching reference. The
//! `ccd` stage is in `rigid_ccd`.

mod common;

use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};

use common::rigid::queries::{body_at, close3, shape};
use common::Rng;
use glam::{DMat3, DQuat, DVec3, Mat3, Quat, Vec3, Vec4};
use wgphys::rigid::inertia;
use wgphys::rigid::math::from_quat;
use wgphys::rigid::ray::{cast_ray, ray_shape, Ray};
use wgphys::rigid::types::{body_kind, shape_kind, NONE};
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

fn ray(o: Vec3, d: Vec3) -> Ray {
    Ray::new(o, d, f32::INFINITY).expect("valid ray")
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
    let (t, n) = ray_shape(&ray(Vec3::new(-5.0, 2.5, 3.0), Vec3::X), &s, &body, &[]).expect("hit");
    assert!(
        (t - 5.0).abs() < 1e-5 && close3(n, -Vec3::X, 1e-5),
        "t {t} n {n}"
    );
    // Off-centre by 0.6: enters at x = 1 − 0.8.
    let (t, n) = ray_shape(&ray(Vec3::new(-5.0, 3.1, 3.0), Vec3::X), &s, &body, &[]).expect("hit");
    assert!(
        (t - 5.2).abs() < 1e-5 && close3(n, Vec3::new(-0.8, 0.6, 0.0), 1e-5),
        "t {t} n {n}"
    );
    // Miss (passes at distance 1.01), behind, and beyond max_t.
    assert!(ray_shape(&ray(Vec3::new(-5.0, 3.51, 3.0), Vec3::X), &s, &body, &[]).is_none());
    assert!(ray_shape(&ray(Vec3::new(-5.0, 2.5, 3.0), -Vec3::X), &s, &body, &[]).is_none());
    let short = Ray::new(Vec3::new(-5.0, 2.5, 3.0), Vec3::X, 4.9).expect("ray");
    assert!(ray_shape(&short, &s, &body, &[]).is_none());
    // Inside: t = 0, normal opposite the direction.
    let (t, n) =
        ray_shape(&ray(Vec3::new(1.2, 2.5, 3.0), Vec3::Y), &s, &body, &[]).expect("inside");
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
        let (t, n) = ray_shape(&ray(o, d), &s, &body, &[]).expect("box hit");
        assert!(
            (t - t_want).abs() < 1e-5 && close3(n, n_want, 1e-5),
            "{o} {d}: t {t} n {n}"
        );
    }
    assert!(ray_shape(&ray(Vec3::new(10.0, 0.0, 1.1), -Vec3::X), &s, &body, &[]).is_none());
    assert!(ray_shape(&ray(Vec3::new(10.0, 0.0, 0.0), Vec3::X), &s, &body, &[]).is_none());
    // 45° about z, unit cube: a ray at y = 0.3 from +x meets the face x + y = √2.
    let body = body_at(
        Vec3::ZERO,
        Quat::from_rotation_z(FRAC_PI_4),
        body_kind::STATIC,
    );
    let s = shape(shape_kind::BOX, 0, Vec4::new(1.0, 1.0, 1.0, 0.0));
    let (t, n) = ray_shape(&ray(Vec3::new(10.0, 0.3, 0.0), -Vec3::X), &s, &body, &[]).expect("hit");
    let want_t = 10.0 - (2f32.sqrt() - 0.3);
    let want_n = Vec3::new(1.0, 1.0, 0.0).normalize();
    assert!(
        (t - want_t).abs() < 1e-5 && close3(n, want_n, 1e-5),
        "t {t} n {n}"
    );
    let (t, n) =
        ray_shape(&ray(Vec3::new(0.2, 0.1, 0.0), Vec3::Z), &s, &body, &[]).expect("inside");
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
        let (t, n) = ray_shape(&ray(o, d), &s, &body, &[]).expect("capsule hit");
        assert!(
            (t - t_want).abs() < 1e-5 && close3(n, n_want, 1e-5),
            "{o} {d}: t {t} n {n}"
        );
    }
    assert!(ray_shape(&ray(Vec3::new(1.6, 5.0, 2.0), -Vec3::Y), &s, &body, &[]).is_none());
    assert!(ray_shape(&ray(Vec3::new(0.0, 0.51, -3.0), Vec3::Z), &s, &body, &[]).is_none());
    let (t, n) =
        ray_shape(&ray(Vec3::new(1.2, 0.0, 2.0), Vec3::Y), &s, &body, &[]).expect("inside");
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
        let (t, n) =
            ray_shape(&ray(Vec3::new(3.0, -2.0, 5.0), -Vec3::Z), s, &body, &[]).expect("hit");
        assert!(
            (t - 4.5).abs() < 1e-5 && close3(n, Vec3::Z, 1e-5),
            "kind {}: t {t} n {n}",
            s.kind
        );
        let slanted = ray(Vec3::new(0.0, 0.0, 2.5), Vec3::new(1.0, 0.0, -1.0));
        let (t, _) = ray_shape(&slanted, s, &body, &[]).expect("slanted hit");
        assert!((t - 2.0 * 2f32.sqrt()).abs() < 1e-5, "slanted t {t}");
        assert!(ray_shape(&ray(Vec3::new(0.0, 0.0, 5.0), Vec3::Z), s, &body, &[]).is_none());
        assert!(ray_shape(&ray(Vec3::new(0.0, 0.0, 5.0), Vec3::X), s, &body, &[]).is_none());
    }
    // From below: the half-space reports "inside", the thin plane is hit from its back.
    let up = ray(Vec3::new(0.0, 0.0, -5.0), Vec3::Z);
    let (t, n) = ray_shape(&up, &hs, &body, &[]).expect("inside");
    assert!(t == 0.0 && close3(n, -Vec3::Z, 1e-6));
    let (t, n) = ray_shape(&up, &pl, &body, &[]).expect("plane from below");
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
    let hit = cast_ray(&r, &shapes, &bodies, &[]).expect("hit");
    assert_eq!((hit.shape, hit.body), (2, 1), "{hit:?}");
    assert!(close3(hit.point, r.at(hit.t), 1e-6));
    // Without the box, the sphere; aimed past everything but the world plane, the plane.
    let hit = cast_ray(&r, &shapes[..2], &bodies, &[]).expect("hit");
    assert_eq!((hit.shape, hit.body, hit.t), (0, 0, 4.0));
    let hit = cast_ray(
        &ray(Vec3::new(0.0, 3.0, 0.0), Vec3::X),
        &shapes,
        &bodies,
        &[],
    )
    .expect("plane");
    assert_eq!((hit.shape, hit.body), (5, NONE));
    assert!((hit.t - 10.0).abs() < 1e-6 && close3(hit.normal, -Vec3::X, 0.0));
    assert!(cast_ray(
        &ray(Vec3::new(0.0, 3.0, 0.0), -Vec3::X),
        &shapes,
        &bodies,
        &[]
    )
    .is_none());
    // Ties go to the lower index.
    let twin = vec![shapes[0], shapes[0]];
    assert_eq!(cast_ray(&r, &twin, &bodies, &[]).map(|h| h.shape), Some(0));
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
            let got = ray_shape(&r, &s, &body, &[]);
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
