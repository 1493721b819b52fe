//! Mass from density (issue 34, item 3; `rigid::mass`), on both backends (the mass properties
//! are computed on the host and written to the body's record, so both read the same bits): a
//! dynamic body with no mass set weighs ρ·V of its solid colliders, 1 kg/m³ unless a density
//! is set on the body or on a collider; sensors weigh nothing; a body with no solid collider
//! weighs 1 kg; an explicit mass or inertia is kept when colliders change; bad densities are
//! refused and change nothing.

mod common;

use common::rigid::*;
use glam::{Mat3, Quat, Vec3, Vec4Swizzles};
use std::f32::consts::PI;
use wgphys::rigid::inertia;
use wgphys::rigid::mass::{DEFAULT_DENSITY, FALLBACK_MASS, FALLBACK_RADIUS};
use wgphys::rigid::types::GpuBody;
use wgphys::rigid::{BodyHandle, Collider, RigidBody, RigidWorld, Shape};
use wgphys::{Backend, Error};

fn world(backend: Backend) -> RigidWorld {
    RigidWorld::new(backend, config(16)).expect("world")
}

fn raw(w: &mut RigidWorld, h: BodyHandle) -> GpuBody {
    w.read_bodies().expect("read")[h.index() as usize]
}

fn mass(w: &mut RigidWorld, h: BodyHandle) -> f32 {
    1.0 / raw(w, h).pos.w
}

/// Relative error of a mass: ρ·V is a product and sum of a handful of f32 roundings on each
/// side (the closed form here, the engine's there), and the reciprocal read back (1/(1/m)) two
/// more: about 10 roundings of 6e-8, so 1e-6.
const MASS: f32 = 1e-6;

fn close(got: f32, want: f32, tol: f32, what: &str) {
    assert!(
        (got - want).abs() <= tol * want.abs(),
        "{what}: {got} against the closed form {want}"
    );
}

/// The default density is rapier's 1 kg/m³: each solid weighs its volume.
#[test]
fn mass_is_density_times_volume() {
    let hull_points = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(0.0, 2.0, 0.0),
        Vec3::new(0.0, 0.0, 2.0),
    ];
    // A right tetrahedron of legs 2: V = 2³/6.
    let tetra = Collider::convex_hull(&hull_points).expect("hull");
    let cases: Vec<(&str, Collider, f32)> = vec![
        (
            "sphere r 0.5",
            Collider::sphere(0.5),
            4.0 / 3.0 * PI * 0.125,
        ),
        (
            "box 1 × 0.5 × 2",
            Collider::cuboid(Vec3::new(0.5, 0.25, 1.0)),
            1.0,
        ),
        (
            "capsule r 0.3 h 0.4",
            Collider::capsule_y(0.4, 0.3),
            PI * 0.09 * (4.0 / 3.0 * 0.3 + 0.8),
        ),
        ("tetrahedron hull", tetra, 8.0 / 6.0),
    ];
    assert_eq!(DEFAULT_DENSITY, 1.0);
    for (name, backend) in backends() {
        let mut w = world(backend);
        for (k, (what, c, volume)) in cases.iter().enumerate() {
            let at = Vec3::new(4.0 * k as f32, 5.0, 0.0);
            let d = w
                .add_body(RigidBody::dynamic().position(at), std::slice::from_ref(c))
                .unwrap();
            close(
                mass(&mut w, d),
                *volume,
                MASS,
                &format!("{name} {what}, 1 kg/m³"),
            );
            // A density on the body, then one on the collider, which wins over the body's.
            let body = w
                .add_body(
                    RigidBody::dynamic()
                        .position(at + Vec3::Z * 4.0)
                        .density(600.0),
                    std::slice::from_ref(c),
                )
                .unwrap();
            close(
                mass(&mut w, body),
                600.0 * volume,
                MASS,
                &format!("{name} {what}, body ρ"),
            );
            let own = w
                .add_body(
                    RigidBody::dynamic()
                        .position(at + Vec3::Z * 8.0)
                        .density(600.0),
                    &[c.clone().density(7850.0)],
                )
                .unwrap();
            close(
                mass(&mut w, own),
                7850.0 * volume,
                MASS,
                &format!("{name} {what}, collider ρ"),
            );
        }
    }
}

/// A compound of a steel ball and a wooden box (each its own density) and a sensor weighs
/// ρ₁V₁ + ρ₂V₂; its inertia is each solid's own tensor for its mass, moved to the body's
/// origin by the parallel-axis theorem; the sensor adds nothing.
#[test]
fn a_compound_weighs_its_solids_and_not_its_sensor() {
    let r = 0.25;
    let half = Vec3::new(0.5, 0.25, 0.25);
    let ball_at = Vec3::new(0.0, 1.0, 0.0);
    let box_at = Vec3::new(-0.5, 0.0, 0.0);
    let (m_ball, m_box) = (
        7850.0 * 4.0 / 3.0 * PI * r * r * r,
        600.0 * 8.0 * half.x * half.y * half.z,
    );
    // The centre of mass is the mass-weighted mean of the solids' centres (the sensor has no
    // mass), and each solid's tensor is moved to it.
    let centre = (ball_at * m_ball + box_at * m_box) / (m_ball + m_box);
    let want = inertia::parallel_axis(inertia::solid_sphere(m_ball, r), m_ball, ball_at - centre)
        + inertia::parallel_axis(inertia::cuboid(m_box, half), m_box, box_at - centre);
    for (name, backend) in backends() {
        let mut w = world(backend);
        let b = w
            .add_body(
                RigidBody::dynamic(),
                &[
                    Collider::sphere(r)
                        .density(7850.0)
                        .at(ball_at, Quat::IDENTITY),
                    Collider::cuboid(half)
                        .density(600.0)
                        .at(box_at, Quat::IDENTITY),
                    Collider::sphere(3.0).sensor(true),
                ],
            )
            .unwrap();
        let got = raw(&mut w, b);
        close(
            1.0 / got.pos.w,
            m_ball + m_box,
            MASS,
            &format!("{name}: compound mass"),
        );
        close_tensor(inertia_of(&got), want, &format!("{name}: compound inertia"));
        // The body's origin is where it was put and its centre where the solids balance: the
        // mean is a few f32 products and sums of values below 2, so 1e-6 m.
        let body = w.read_body(b).unwrap();
        assert_eq!(body.position, Vec3::ZERO, "{name}: the origin stays");
        assert!(
            (body.centre_of_mass - centre).abs().max_element() <= 1e-6,
            "{name}: centre {} against {centre}",
            body.centre_of_mass
        );
        // The same from colliders added one by one to a body with none: the same mass
        // properties, bit for bit (the same sums in the same order).
        let built = w
            .add_body(RigidBody::dynamic().position(Vec3::X * 9.0), &[])
            .unwrap();
        for c in [
            Collider::sphere(r)
                .density(7850.0)
                .at(ball_at, Quat::IDENTITY),
            Collider::cuboid(half)
                .density(600.0)
                .at(box_at, Quat::IDENTITY),
            Collider::sphere(3.0).sensor(true),
        ] {
            w.add_collider(built, c).unwrap();
        }
        let again = raw(&mut w, built);
        assert_eq!(
            (again.pos.w, again.inv_inertia),
            (got.pos.w, got.inv_inertia),
            "{name}: added one by one"
        );
        // Making the ball a sensor leaves the box's mass, its centre the box's.
        let ball = w.colliders_of(b).unwrap()[0];
        w.set_collider_sensor(ball, true).unwrap();
        let only_box = raw(&mut w, b);
        close(
            1.0 / only_box.pos.w,
            m_box,
            MASS,
            &format!("{name}: ball made a sensor"),
        );
        let box_alone = inertia::cuboid(m_box, half);
        close_tensor(
            inertia_of(&only_box),
            box_alone,
            &format!("{name}: box alone"),
        );
        w.set_collider_sensor(ball, false).unwrap();
        let back = raw(&mut w, b);
        assert_eq!(
            (back.pos.w, back.inv_inertia),
            (got.pos.w, got.inv_inertia),
            "{name}: the ball solid again"
        );
    }
}

/// Reshaping a collider recomputes ρ·V; removing one leaves the rest's; a body with no solid
/// collider left (or none at all) weighs 1 kg with a unit ball's inertia (2/5 kg·m²).
#[test]
fn colliders_changed_recompute_the_mass() {
    for (name, backend) in backends() {
        let mut w = world(backend);
        let b = w
            .add_body(
                RigidBody::dynamic().density(1000.0),
                &[Collider::sphere(0.5), Collider::cuboid(Vec3::splat(0.5))],
            )
            .unwrap();
        let [ball, cube] = w.colliders_of(b).unwrap()[..] else {
            panic!("two colliders")
        };
        let v_ball = 4.0 / 3.0 * PI * 0.125;
        close(
            mass(&mut w, b),
            1000.0 * (v_ball + 1.0),
            MASS,
            &format!("{name}: both"),
        );
        w.set_collider_shape(
            cube,
            Shape::Cuboid {
                half_extents: Vec3::new(1.0, 0.5, 0.5),
            },
        )
        .unwrap();
        close(
            mass(&mut w, b),
            1000.0 * (v_ball + 2.0),
            MASS,
            &format!("{name}: box doubled"),
        );
        w.remove_collider(cube).unwrap();
        close(
            mass(&mut w, b),
            1000.0 * v_ball,
            MASS,
            &format!("{name}: ball alone"),
        );
        w.remove_collider(ball).unwrap();
        let none = raw(&mut w, b);
        assert_eq!(1.0 / none.pos.w, FALLBACK_MASS, "{name}: no collider left");
        let unit_ball = inertia::solid_sphere(FALLBACK_MASS, FALLBACK_RADIUS);
        close_tensor(
            inertia_of(&none),
            unit_ball,
            &format!("{name}: no collider left"),
        );
        let bare = w
            .add_body(RigidBody::dynamic().position(Vec3::X * 5.0), &[])
            .unwrap();
        let sensor_only = w
            .add_body(
                RigidBody::dynamic().position(Vec3::X * 10.0),
                &[Collider::sphere(2.0).sensor(true)],
            )
            .unwrap();
        for (what, h) in [("no collider", bare), ("only a sensor", sensor_only)] {
            let got = raw(&mut w, h);
            assert_eq!(
                (got.pos.w, got.inv_inertia),
                (none.pos.w, none.inv_inertia),
                "{name}: {what}"
            );
        }
    }
}

/// An explicit mass stays as set when colliders change, the inertia scaled from the colliders'
/// shape to it; an explicit inertia stays too.
#[test]
fn an_explicit_mass_or_inertia_is_kept() {
    for (name, backend) in backends() {
        let mut w = world(backend);
        let m = 3.0;
        let half = Vec3::new(1.0, 0.5, 0.25);
        let b = w
            .add_body(RigidBody::dynamic().mass(m), &[Collider::cuboid(half)])
            .unwrap();
        close_tensor(
            inertia_of(&raw(&mut w, b)),
            inertia::cuboid(m, half),
            &format!("{name}: box of mass 3"),
        );
        // A second, equal box 2 m up: the mass stays 3, shared equally (equal ρ·V), the
        // centre halfway, each half moved to it by the parallel-axis theorem.
        let up = Vec3::Y * 2.0;
        w.add_collider(b, Collider::cuboid(half).at(up, Quat::IDENTITY))
            .unwrap();
        let got = raw(&mut w, b);
        assert_eq!(got.pos.w, 1.0 / m, "{name}: the mass set stays");
        let want = inertia::parallel_axis(inertia::cuboid(m / 2.0, half), m / 2.0, -up / 2.0)
            + inertia::parallel_axis(inertia::cuboid(m / 2.0, half), m / 2.0, up / 2.0);
        close_tensor(
            inertia_of(&got),
            want,
            &format!("{name}: two boxes of mass 3"),
        );
        let i = Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0));
        let fixed = w
            .add_body(
                RigidBody::dynamic()
                    .position(Vec3::X * 5.0)
                    .mass(m)
                    .inertia(i),
                &[Collider::sphere(0.5)],
            )
            .unwrap();
        let before = raw(&mut w, fixed);
        w.add_collider(fixed, Collider::cuboid(half).at(up, Quat::IDENTITY))
            .unwrap();
        let after = raw(&mut w, fixed);
        assert_eq!(
            (after.pos.w, after.inv_inertia),
            (before.pos.w, before.inv_inertia),
            "{name}: the mass and inertia set stay"
        );
    }
}

/// A density that is not positive is refused with an error naming it, on a body, on a new
/// collider and on a collider added to a live body, and the world is unchanged.
#[test]
fn bad_densities_are_refused() {
    for (name, backend) in backends() {
        let mut w = world(backend);
        let b = w
            .add_body(RigidBody::dynamic(), &[Collider::sphere(0.5)])
            .unwrap();
        let before = w.read_bodies().unwrap();
        let colliders = w.colliders_of(b).unwrap();
        for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            let e = w.add_body(RigidBody::dynamic().density(bad), &[Collider::sphere(0.5)]);
            assert!(
                matches!(
                    e,
                    Err(Error::InvalidInput {
                        what: "body density",
                        ..
                    })
                ),
                "{name}: body density {bad}: {e:?}"
            );
            for e in [
                w.add_body(RigidBody::dynamic(), &[Collider::sphere(0.5).density(bad)]),
                w.add_collider(b, Collider::sphere(0.5).density(bad))
                    .map(|_| b),
            ] {
                assert!(
                    matches!(
                        e,
                        Err(Error::InvalidInput {
                            what: "collider density",
                            ..
                        })
                    ),
                    "{name}: collider density {bad}: {e:?}"
                );
            }
        }
        assert_eq!(w.len(), 1, "{name}: nothing added");
        assert_eq!(w.read_bodies().unwrap(), before, "{name}: bodies unchanged");
        assert_eq!(
            w.colliders_of(b).unwrap(),
            colliders,
            "{name}: colliders unchanged"
        );
    }
}

/// The inertia of a box turned about z and set off the body's origin, against the tensor
/// worked out by hand (not with the engine's helpers): in the box's frame diag(m/3·(b² + c²),
/// m/3·(a² + c²), m/3·(a² + b²)); turned by θ about z, I'xx = Ixx·cos²θ + Iyy·sin²θ,
/// I'yy = Ixx·sin²θ + Iyy·cos²θ, I'xy = (Ixx − Iyy)·sinθ·cosθ. The box is the body's only
/// solid, so its centre, d, is the body's centre of mass and the tensor is taken there: no
/// parallel-axis term. The engine stores the inverse: its inverse is compared, each entry
/// within 1e-5 of the largest (f32 products and one 3 × 3 inversion, a few ulps each); the
/// centre read back is d·m/m plus the origin: within 2 ulps of |d|.
#[test]
fn a_turned_offset_box_has_the_hand_computed_tensor() {
    let (a, b, c, m) = (0.6f32, 0.2f32, 0.35f32, 7.5f32);
    let theta = 0.4f32;
    let d = Vec3::new(0.3, -0.5, 0.8);
    let (ixx, iyy, izz) = (
        m / 3.0 * (b * b + c * c),
        m / 3.0 * (a * a + c * c),
        m / 3.0 * (a * a + b * b),
    );
    let (s, co) = theta.sin_cos();
    let mut want = [[0.0f32; 3]; 3];
    want[0][0] = ixx * co * co + iyy * s * s;
    want[1][1] = ixx * s * s + iyy * co * co;
    want[2][2] = izz;
    want[0][1] = (ixx - iyy) * s * co;
    want[1][0] = want[0][1];
    for backend in [Backend::Cpu, Backend::Gpu(common::gpu())] {
        let mut w = world(backend);
        let h = w
            .add_body(
                RigidBody::dynamic().mass(m),
                &[Collider::cuboid(Vec3::new(a, b, c)).at(d, Quat::from_rotation_z(theta))],
            )
            .unwrap();
        let body = w.read_body(h).unwrap();
        assert_eq!(body.position, Vec3::ZERO);
        assert!(
            (body.centre_of_mass - d).abs().max_element() <= 2.0 * f32::EPSILON * d.length(),
            "centre {} against {d}",
            body.centre_of_mass
        );
        let r = raw(&mut w, h);
        let inv = Mat3::from_cols(
            r.inv_inertia[0].xyz(),
            r.inv_inertia[1].xyz(),
            r.inv_inertia[2].xyz(),
        );
        let got = inv.inverse();
        let scale = want.iter().flatten().fold(0.0f32, |x, v| x.max(v.abs()));
        for (i, row) in want.iter().enumerate() {
            for (j, &w) in row.iter().enumerate() {
                let g = got.col(j)[i];
                assert!(
                    (g - w).abs() <= 1e-5 * scale,
                    "I[{i}][{j}] = {g} against {w}"
                );
            }
        }
    }
}
