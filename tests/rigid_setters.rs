//! A body's properties changed between steps (issue 34, item 3), on both backends, against
//! closed forms: an impulse changes momentum by exactly J over the next step (and an angular
//! one ω by I⁻¹L, with the inertia of a rotation set just before), damping keeps its fraction
//! per second, a gravity scale scales the fall, CCD switched on stops a bullet that passed
//! through, sleeping can be forbidden; and stale handles or bad values change nothing.

mod common;

use common::rigid::*;
use glam::{Mat3, Quat, Vec3, Vec4Swizzles};
use wgphys::rigid::{Body, BodyHandle, Collider, RigidBody, RigidConfig, RigidWorld};
use wgphys::{Backend, Error};

/// No gravity: the closed forms below are of free bodies.
fn space(backend: Backend) -> RigidWorld {
    let cfg = RigidConfig {
        gravity: Vec3::ZERO,
        ..config(8)
    };
    RigidWorld::new(backend, cfg).expect("world")
}

fn read(w: &mut RigidWorld, h: BodyHandle) -> Body {
    w.read_bodies().expect("read");
    w.body(h).expect("body")
}

/// Relative error of a velocity after one step of a few operations: J/dt, then per substep
/// v += (F·m⁻¹)·h, four substeps, each rounding to 2⁻²⁴ ≈ 6e-8 of its value: some 15
/// roundings, 1e-6 if all had one sign; 1e-5 leaves room for the GPU's contracted multiply-adds.
const ONE_STEP: f32 = 1e-5;

fn close(a: Vec3, b: Vec3, what: &str) {
    let scale = b.length().max(1e-6);
    assert!(
        (a - b).length() <= ONE_STEP * scale,
        "{what}: {a} against the closed form {b}"
    );
}

#[test]
fn an_impulse_changes_momentum_by_exactly_j() {
    for (name, backend) in backends() {
        let mut w = space(backend);
        let m = 2.0;
        let r = 0.5;
        let ball = w
            .add_body(free_body(Vec3::ZERO, m), &[Collider::sphere(r)])
            .unwrap();
        let j = Vec3::new(3.0, -1.0, 0.5);
        w.apply_impulse(ball, j).unwrap();
        w.step(DT).unwrap();
        let b = read(&mut w, ball);
        close(b.linear_velocity, j / m, &format!("{name}: v after J"));
        assert_eq!(
            b.angular_velocity,
            Vec3::ZERO,
            "{name}: no spin from J at the centre"
        );
        // Nothing is left queued: the next step keeps the velocity.
        w.step(DT).unwrap();
        close(
            read(&mut w, ball).linear_velocity,
            j / m,
            &format!("{name}: v one step on"),
        );
        // An impulse at a point on the surface: the same Δv, and Δω = I⁻¹ (r × J) with
        // I = 2/5 m r² for a solid sphere.
        let before = read(&mut w, ball);
        let point = before.position + Vec3::new(0.0, r, 0.0);
        let kick = Vec3::new(1.0, 0.0, 0.0);
        w.apply_impulse_at_point(ball, kick, point).unwrap();
        w.step(DT).unwrap();
        let b = read(&mut w, ball);
        close(
            b.linear_velocity,
            before.linear_velocity + kick / m,
            &format!("{name}: v after J at a point"),
        );
        let inertia = 0.4 * m * r * r;
        let dw = Vec3::new(0.0, r, 0.0).cross(kick) / inertia;
        close(
            b.angular_velocity,
            dw,
            &format!("{name}: ω after J at a point"),
        );
    }
}

/// A box of half extents (1, 0.5, 0.25) turned a quarter about z by `set_rotation`: its long
/// axis now lies along world y, so an angular impulse about world y meets the inertia of the
/// body's x axis, m(b² + c²)/3 with the half extents b, c of the other two axes.
#[test]
fn an_angular_impulse_meets_the_inertia_of_the_rotation_set() {
    for (name, backend) in backends() {
        let mut w = space(backend);
        let m = 3.0;
        let half = Vec3::new(1.0, 0.5, 0.25);
        let b = w
            .add_body(free_body(Vec3::ZERO, m), &[Collider::cuboid(half)])
            .unwrap();
        let q = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        w.set_rotation(b, q).unwrap();
        let set = read(&mut w, b).rotation;
        assert!(
            set.angle_between(q) < 1e-6,
            "{name}: the rotation set reads back"
        );
        let l = Vec3::new(0.0, 0.7, 0.0);
        w.apply_torque_impulse(b, l).unwrap();
        w.step(DT).unwrap();
        let got = read(&mut w, b);
        // It turned about y (its own x axis, a principal axis: the inertia about the spin axis
        // stays i_x and no gyroscopic torque acts) by at most ω·dt.
        let turned = got.rotation.angle_between(q);
        assert!(
            turned <= l.y / (m * (half.y * half.y + half.z * half.z) / 3.0) * DT,
            "{name}: {turned}"
        );
        let i_x = m * (half.y * half.y + half.z * half.z) / 3.0;
        close(
            got.angular_velocity,
            l / i_x,
            &format!("{name}: ω about the long axis"),
        );
        // The same through the inertia tensor: R I_body Rᵀ applied to ω gives L back.
        let i_body = Mat3::from_diagonal(
            Vec3::new(
                half.y * half.y + half.z * half.z,
                half.x * half.x + half.z * half.z,
                half.x * half.x + half.y * half.y,
            ) * (m / 3.0),
        );
        let r = Mat3::from_quat(got.rotation);
        let l_back = r * i_body * r.transpose() * got.angular_velocity;
        close(l_back, l, &format!("{name}: I_world ω = L"));
    }
}

/// Damping d keeps the fraction d of the velocity per second: 60 steps of 1/60 s with
/// d = 0.5 halve it. Each substep multiplies by d^h (h = 1/240 s), a powf and a product
/// rounded, 240 times: about 500 roundings of 6e-8, 3e-5 if all had one sign; 1e-4 allows
/// the GPU's powf (a few ulp).
#[test]
fn damping_keeps_its_fraction_per_second() {
    for (name, backend) in backends() {
        let mut w = space(backend);
        let h = w
            .add_body(
                free_body(Vec3::ZERO, 1.0).velocity(Vec3::new(4.0, 0.0, 0.0)),
                &[Collider::sphere(0.5)],
            )
            .unwrap();
        w.set_damping(h, 0.5, 1.0).unwrap();
        run(&mut w, 60, DT);
        let v = read(&mut w, h).linear_velocity.x;
        assert!(
            (v - 2.0).abs() <= 1e-4 * 2.0,
            "{name}: {v} m/s, not half of 4"
        );
        assert_eq!(w.body(h).unwrap().linear_damping, 0.5);
    }
}

/// A gravity scale of 0 floats a body; of 2, it falls at 2g: after n steps v = −2g·n·dt (each
/// substep adds a·h, 240 additions of a rounded term: 1e-5 relative as for one step, growing
/// with the count to about 240 × 6e-8 = 1.4e-5; 1e-4 allows it).
#[test]
fn a_gravity_scale_scales_the_fall() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(8)).expect("world");
        let float = w
            .add_body(
                free_body(Vec3::new(0.0, 5.0, 0.0), 1.0),
                &[Collider::sphere(0.5)],
            )
            .unwrap();
        let fall = w
            .add_body(
                free_body(Vec3::new(3.0, 5.0, 0.0), 1.0),
                &[Collider::sphere(0.5)],
            )
            .unwrap();
        w.set_gravity_scale(float, 0.0).unwrap();
        w.set_gravity_scale(fall, 2.0).unwrap();
        run(&mut w, 60, DT);
        let f = read(&mut w, float);
        assert_eq!(f.position, Vec3::new(0.0, 5.0, 0.0), "{name}: floats");
        let v = read(&mut w, fall).linear_velocity.y;
        let want = -2.0 * G * 1.0;
        assert!(
            (v - want).abs() <= 1e-4 * want.abs(),
            "{name}: {v} against {want}"
        );
    }
}

/// A 2 cm ball at 300 m/s towards a 4 cm wall: it moves 1.25 m a substep, so without
/// continuous collision it passes through; `set_ccd` on the body made without it stops it.
#[test]
fn ccd_switched_on_stops_a_bullet() {
    for (name, backend) in backends() {
        let mut ends = Vec::new();
        for ccd in [false, true] {
            let mut w = space(backend.clone());
            w.add_body(
                RigidBody::fixed().position(Vec3::new(5.0, 0.0, 0.0)),
                &[Collider::cuboid(Vec3::new(0.02, 2.0, 2.0))],
            )
            .unwrap();
            let bullet = w
                .add_body(
                    free_body(Vec3::ZERO, 0.01).velocity(Vec3::new(300.0, 0.0, 0.0)),
                    &[Collider::sphere(0.02)],
                )
                .unwrap();
            if ccd {
                w.set_ccd(bullet, true).unwrap();
            }
            run(&mut w, 3, DT);
            ends.push(read(&mut w, bullet).position.x);
        }
        assert!(
            ends[0] > 5.0,
            "{name}: without CCD the bullet passes ({})",
            ends[0]
        );
        assert!(
            ends[1] < 5.0,
            "{name}: with CCD it stops at the wall ({})",
            ends[1]
        );
    }
}

/// A box resting on the ground falls asleep within 3 s; forbidden to, it stays awake.
#[test]
fn sleeping_can_be_forbidden() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(8)).expect("world");
        w.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
            .unwrap();
        let cube = Collider::cuboid(Vec3::splat(0.5));
        let a = w
            .add_body(
                RigidBody::dynamic().position(Vec3::new(0.0, 0.5, 0.0)),
                std::slice::from_ref(&cube),
            )
            .unwrap();
        let b = w
            .add_body(
                RigidBody::dynamic().position(Vec3::new(3.0, 0.5, 0.0)),
                &[cube],
            )
            .unwrap();
        w.set_can_sleep(b, false).unwrap();
        run(&mut w, 180, DT);
        w.read_bodies().unwrap();
        assert!(!w.body(a).unwrap().awake, "{name}: the box sleeps");
        assert!(
            w.body(b).unwrap().awake,
            "{name}: the box forbidden to sleep is awake"
        );
    }
}

/// Bad values and stale handles are refused and change nothing; an impulse queued for a body
/// removed before the step does not reach the body that takes its slot.
#[test]
fn bad_input_changes_nothing() {
    let mut w = space(Backend::Cpu);
    let a = w
        .add_body(free_body(Vec3::ZERO, 1.0), &[Collider::sphere(0.5)])
        .unwrap();
    let before = w.read_bodies().unwrap();
    for e in [
        w.set_damping(a, 0.0, 1.0),
        w.set_damping(a, 1.0, 1.5),
        w.set_rotation(a, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
        w.set_acceleration(a, Vec3::new(f32::NAN, 0.0, 0.0)),
        w.set_gravity_scale(a, f32::INFINITY),
        w.apply_impulse(a, Vec3::splat(f32::NAN)),
        w.apply_impulse_at_point(a, Vec3::X, Vec3::splat(f32::INFINITY)),
    ] {
        assert!(matches!(e, Err(Error::InvalidInput { .. })), "{e:?}");
    }
    assert_eq!(
        w.read_bodies().unwrap(),
        before,
        "the refused calls changed nothing"
    );
    w.apply_impulse(a, Vec3::X * 10.0).unwrap();
    w.remove_body(a).unwrap();
    assert!(matches!(
        w.apply_impulse(a, Vec3::X),
        Err(Error::StaleHandle {
            kind: "rigid body",
            ..
        })
    ));
    assert!(matches!(w.set_ccd(a, true), Err(Error::StaleHandle { .. })));
    let b = w
        .add_body(free_body(Vec3::ZERO, 1.0), &[Collider::sphere(0.5)])
        .unwrap();
    assert_eq!(a.index(), b.index(), "the slot is reused");
    w.step(DT).unwrap();
    let v = w.read_bodies().unwrap()[b.index() as usize].lin_vel.xyz();
    assert_eq!(
        v,
        Vec3::ZERO,
        "the removed body's impulse reached its slot's next body"
    );
}

/// A kinematic box told a target each step ends each step at it: the position to rounding (a
/// subtraction, a division by dt and a multiply-add back of numbers near 3 m: a few ulp,
/// 1e-5 m), the orientation to the first-order error of the quaternion update, θ − 2·atan(θ/2)
/// ≈ θ³/12 for a turn θ a step (bound: θ³/6 + 1e-6 rad of rounding); given no target after
/// that, it stands exactly at the last one with no velocity.
#[test]
fn a_kinematic_body_follows_its_targets() {
    for (name, backend) in backends() {
        let mut w = space(backend);
        let k = w
            .add_body(
                RigidBody::kinematic().position(Vec3::new(1.0, 2.0, 0.0)),
                &[Collider::cuboid(Vec3::splat(0.5))],
            )
            .unwrap();
        let turn = 0.05f32;
        let mut last = (Vec3::ZERO, Quat::IDENTITY);
        for s in 1..=30 {
            let t = s as f32 * DT;
            let p = Vec3::new(1.0 + t, 2.0 + 0.5 * t, -t);
            let q = Quat::from_rotation_y(turn * s as f32);
            w.set_kinematic_target(k, p, q).unwrap();
            w.step(DT).unwrap();
            let b = read(&mut w, k);
            assert!(
                (b.position - p).length() <= 1e-5,
                "{name} step {s}: {} vs {p}",
                b.position
            );
            // The angle of the relative rotation from its vector part (acos of a dot product
            // near 1 loses the small angles f32 can hold).
            let err = 2.0 * (q.inverse() * b.rotation).xyz().length().min(1.0).asin();
            assert!(
                err <= turn.powi(3) / 6.0 + 1e-6,
                "{name} step {s}: {err} rad"
            );
            last = (p, q);
        }
        w.step(DT).unwrap();
        w.step(DT).unwrap();
        let b = read(&mut w, k);
        assert_eq!(b.position, last.0, "{name}: it stands at its last target");
        assert_eq!(
            (b.linear_velocity, b.angular_velocity),
            (Vec3::ZERO, Vec3::ZERO)
        );
        // Only kinematic bodies take targets.
        let d = w
            .add_body(free_body(Vec3::ZERO, 1.0), &[Collider::sphere(0.5)])
            .unwrap();
        assert!(matches!(
            w.set_kinematic_target(d, Vec3::ONE, Quat::IDENTITY),
            Err(Error::InvalidInput { .. })
        ));
    }
}

/// A lift: a kinematic platform driven up at 1 m/s by its targets carries a box resting on it;
/// after 1 s the box still rests on the platform (its bottom within the contact margin of the
/// platform's top: a resting soft contact sinks millimetres) and has risen with it.
#[test]
fn a_kinematic_lift_carries_a_box() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(8)).expect("world");
        let lift = w
            .add_body(
                RigidBody::kinematic(),
                &[Collider::cuboid(Vec3::new(2.0, 0.1, 2.0))],
            )
            .unwrap();
        let cube = w
            .add_body(
                RigidBody::dynamic().position(Vec3::new(0.0, 0.6, 0.0)),
                &[Collider::cuboid(Vec3::splat(0.5))],
            )
            .unwrap();
        run(&mut w, 30, DT);
        for s in 1..=60 {
            w.set_kinematic_target(lift, Vec3::new(0.0, s as f32 * DT, 0.0), Quat::IDENTITY)
                .unwrap();
            w.step(DT).unwrap();
        }
        let top = read(&mut w, lift).position.y + 0.1;
        let bottom = read(&mut w, cube).position.y - 0.5;
        let margin = w.config().contact_margin;
        assert!(
            (top - 1.1).abs() <= 1e-4,
            "{name}: the lift's top rose to {top}, not 1.1"
        );
        assert!(
            (bottom - top).abs() <= margin,
            "{name}: the box's bottom {bottom} against {top}"
        );
    }
}
