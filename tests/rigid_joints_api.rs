//! Joints through the world's API (issue 35), on both backends: a joint breaks at its
//! threshold within a step, stops acting from then on and is handed out once; limits, motors
//! and springs change between steps; joined bodies do not collide unless asked to; the joint
//! slots are counted and grown like the pairs; removing a body removes its joints; and bad
//! input is refused with the world unchanged.

mod common;

use common::rigid::*;
use glam::Vec3;
use wgphys::rigid::{Collider, Joint, JointHandle, RigidConfig, RigidWorld};
use wgphys::Error;

/// Steps once and collects the joints reported broken so far (on the GPU the report of a step
/// lands a frame or two late; `wait` then `poll_reports` brings it in).
fn step_and_collect(w: &mut RigidWorld, broken: &mut Vec<(u64, JointHandle)>) {
    w.step(DT).expect("step");
    if let Some(g) = w.gpu() {
        g.ctx.wait().expect("wait");
        w.poll_reports().expect("poll");
    }
    let step = w.steps();
    for h in w.take_broken_joints().expect("broken") {
        broken.push((step, h));
    }
}

/// A 1 kg bob hanging still on a ball joint that breaks above 30 N, pulled down by a force that
/// grows by 1 N a step: the joint's load is m·g + F (the bob is held still, so the joint
/// carries both; the feedback reads it within 1e-3 relative, the stretch's dynamics being
/// settled), so it breaks at the first step whose load passes 30 N, F = 21 N (m·g + 20 =
/// 29.81 N, + 21 = 30.81 N). It is reported once, its feedback names that step, and from then on
/// the bob falls freely: its speed grows by (g + F/m)·dt a step.
#[test]
fn a_joint_breaks_at_its_threshold_and_is_reported_once() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(4)).expect("world");
        let pivot = Vec3::new(0.0, 5.0, 0.0);
        let bob = w
            .add_body(free_body(pivot - Vec3::Y, 1.0), &[Collider::sphere(0.1)])
            .expect("bob");
        let j = w
            .add_joint(
                None,
                bob,
                Joint::ball(pivot).with_breaking(30.0, f32::INFINITY),
            )
            .expect("joint");
        let mut broken = Vec::new();
        // Settle under gravity alone.
        for _ in 0..30 {
            step_and_collect(&mut w, &mut broken);
        }
        let settled = w.joint_feedback(j).expect("feedback");
        assert!(
            ((settled.force - G) / G).abs() < 1e-3,
            "{name}: the joint carries {} N, the bob weighs {G} N",
            settled.force
        );
        let mut pull = 0.0f32;
        let mut broke_at_pull = None;
        for _ in 0..25 {
            pull += 1.0;
            w.add_force(bob, -Vec3::Y * pull).expect("pull");
            step_and_collect(&mut w, &mut broken);
            if broke_at_pull.is_none() && w.joint_feedback(j).expect("feedback").broken_at.is_some()
            {
                broke_at_pull = Some(pull);
            }
        }
        // Another few steps: nothing more is reported.
        for _ in 0..5 {
            step_and_collect(&mut w, &mut broken);
        }
        let fb = w.joint_feedback(j).expect("feedback");
        println!(
            "{name}: broke at pull {broke_at_pull:?} N (step {:?}); reported {broken:?}",
            fb.broken_at
        );
        assert_eq!(broke_at_pull, Some(21.0), "{name}: broke at the wrong load");
        assert_eq!(broken.len(), 1, "{name}: reported {broken:?}, want once");
        assert_eq!(broken[0].1, j, "{name}: reported the wrong joint");
        assert_eq!(
            fb.broken_at,
            Some(30 + 21),
            "{name}: the feedback names the wrong step"
        );
        // Free fall with the last pull acting for one more step.
        let v0 = w.body_raw(bob).expect("bob").lin_vel.y;
        w.add_force(bob, -Vec3::Y * pull).expect("pull");
        w.step(DT).expect("step");
        let v1 = w.body_raw(bob).expect("bob").lin_vel.y;
        let want = -(G + pull) * DT;
        assert!(
            ((v1 - v0 - want) / want).abs() < 1e-3,
            "{name}: after breaking the bob's speed changed by {} m/s a step, free fall {want}",
            v1 - v0
        );
    }
}

/// Limits, a motor and a spring change between steps, each taking effect the next step: a
/// wheel's motor is switched on (it reaches its speed), its speed changed, then switched off
/// (the wheel coasts, gravity off); a pendulum's hinge limits are narrowed (it stops at the
/// new one); a slider's spring is set and its target moved (the cart settles there).
#[test]
fn limits_motors_and_springs_change_between_steps() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(8)).expect("world");
        let centre = Vec3::new(0.0, 2.0, 0.0);
        let wheel = w
            .add_body(
                free_body(centre, 2.0).acceleration(Vec3::ZERO),
                &[Collider::sphere(0.5)],
            )
            .expect("wheel");
        let hinge = w
            .add_joint(None, wheel, Joint::hinge(centre, Vec3::Z))
            .expect("hinge");
        run(&mut w, 10, DT);
        assert!(w.body_raw(wheel).expect("wheel").ang_vel.z.abs() < 1e-6);
        w.set_joint_motor(hinge, Some((2.0, 10.0)))
            .expect("motor on");
        run(&mut w, 10, DT);
        let spin = w.body_raw(wheel).expect("wheel").ang_vel.z;
        assert!((spin - 2.0).abs() < 1e-4, "{name}: motor on: {spin} rad/s");
        w.set_joint_motor(hinge, Some((-1.0, 10.0)))
            .expect("motor speed");
        run(&mut w, 10, DT);
        let spin = w.body_raw(wheel).expect("wheel").ang_vel.z;
        assert!(
            (spin + 1.0).abs() < 1e-4,
            "{name}: motor reversed: {spin} rad/s"
        );
        w.set_joint_motor(hinge, None).expect("motor off");
        run(&mut w, 10, DT);
        let spin = w.body_raw(wheel).expect("wheel").ang_vel.z;
        assert!((spin + 1.0).abs() < 1e-4, "{name}: coasting: {spin} rad/s");

        // A rod spinning on a hinge meets limits set while it turns.
        w.set_joint_limits(hinge, Some((-0.5, 0.5)))
            .expect("limits");
        w.set_joint_motor(hinge, Some((3.0, 100.0))).expect("motor");
        run(&mut w, 60, DT);
        let angle = w.joint_state(hinge).expect("state").coordinate;
        assert!(
            (angle - 0.5).abs() < 1e-2,
            "{name}: the motor should hold the wheel at the upper limit, angle {angle}"
        );

        // A slider's spring, its target moved.
        let start = Vec3::new(5.0, 2.0, 0.0);
        let cart = w
            .add_body(
                free_body(start, 1.0).acceleration(Vec3::ZERO),
                &[Collider::cuboid(Vec3::splat(0.1))],
            )
            .expect("cart");
        let slider = w
            .add_joint(None, cart, Joint::slider(start, Vec3::X))
            .expect("slider");
        w.set_joint_spring(slider, Some((2.0, 1.0, 0.3)))
            .expect("spring");
        run(&mut w, 240, DT);
        let x = w.joint_state(slider).expect("state").coordinate;
        assert!(
            (x - 0.3).abs() < 1e-3,
            "{name}: the spring settled at {x}, target 0.3"
        );
        w.set_joint_spring(slider, Some((2.0, 1.0, -0.2)))
            .expect("spring target");
        run(&mut w, 240, DT);
        let x = w.joint_state(slider).expect("state").coordinate;
        assert!(
            (x + 0.2).abs() < 1e-3,
            "{name}: the spring settled at {x}, target -0.2"
        );
    }
}

/// Two boxes overlapping by 5 cm, welded: by default their shapes do not collide (no manifold,
/// and the weld holds them where they are); with `collide_connected` they collide, and the
/// contact fights the weld. A broken or removed joint lets them collide again.
#[test]
fn joined_bodies_collide_only_when_asked() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(4)).expect("world");
        let a = w
            .add_body(
                free_body(Vec3::new(0.0, 2.0, 0.0), 1.0).acceleration(Vec3::ZERO),
                &[Collider::cuboid(Vec3::splat(0.5))],
            )
            .expect("a");
        let b = w
            .add_body(
                free_body(Vec3::new(0.95, 2.0, 0.0), 1.0).acceleration(Vec3::ZERO),
                &[Collider::cuboid(Vec3::splat(0.5))],
            )
            .expect("b");
        let weld = w
            .add_joint(Some(a), b, Joint::fixed(Vec3::new(0.5, 2.0, 0.0)))
            .expect("weld");
        run(&mut w, 10, DT);
        let report = w.read_report().expect("report");
        assert_eq!(report.manifolds, 0, "{name}: welded bodies collided");
        let gap = w.body_raw(b).expect("b").pos.x - w.body_raw(a).expect("a").pos.x;
        assert!((gap - 0.95).abs() < 1e-4, "{name}: the weld moved: {gap}");
        w.set_joint_collide_connected(weld, true).expect("collide");
        run(&mut w, 10, DT);
        let report = w.read_report().expect("report");
        assert!(
            report.manifolds > 0,
            "{name}: asked to collide, they did not"
        );
        w.set_joint_collide_connected(weld, false)
            .expect("no collide");
        run(&mut w, 2, DT);
        assert_eq!(w.read_report().expect("report").manifolds, 0);
        w.remove_joint(weld).expect("remove");
        run(&mut w, 2, DT);
        assert!(
            w.read_report().expect("report").manifolds > 0,
            "{name}: removed, still filtered"
        );
    }
}

/// The joint slots grow like the pairs: with `auto_grow` a world made with room for none takes
/// 40 joints (its capacity reported), and without it the joint past the capacity is refused
/// with `Error::Full` naming `RigidConfig::joint_capacity`, the world unchanged. Growing the
/// GPU backend keeps every joint's state (the pendulums keep swinging as a world that never
/// grew).
#[test]
fn joint_slots_grow_and_overflow_is_reported() {
    for (name, backend) in backends() {
        let mut grown = RigidWorld::new(backend.clone(), config(64)).expect("world");
        let mut fixed = RigidWorld::new(
            backend.clone(),
            RigidConfig {
                joint_capacity: 64,
                ..config(64)
            },
        )
        .expect("world");
        let pendulums = |w: &mut RigidWorld, from: u32, to: u32| {
            for i in from..to {
                let pivot = Vec3::new(i as f32 * 2.0, 5.0, 0.0);
                let bob = w
                    .add_body(
                        free_body(pivot + Vec3::new(0.3, -1.0, 0.0), 1.0),
                        &[Collider::sphere(0.1)],
                    )
                    .expect("bob");
                w.add_joint(None, bob, Joint::ball(pivot)).expect("joint");
            }
        };
        pendulums(&mut grown, 0, 10);
        pendulums(&mut fixed, 0, 10);
        run(&mut grown, 20, DT);
        run(&mut fixed, 20, DT);
        pendulums(&mut grown, 10, 40);
        pendulums(&mut fixed, 10, 40);
        assert!(
            grown.joint_capacity() >= 40,
            "{name}: capacity {}",
            grown.joint_capacity()
        );
        assert_eq!(grown.joint_count(), 40);
        run(&mut grown, 20, DT);
        run(&mut fixed, 20, DT);
        let (a, b) = (
            grown.read_bodies().expect("a"),
            fixed.read_bodies().expect("b"),
        );
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert_eq!(
                x.pos, y.pos,
                "{name}: body {i} moved differently in the grown world"
            );
        }

        let mut full = RigidWorld::new(
            backend,
            RigidConfig {
                auto_grow: false,
                joint_capacity: 2,
                ..config(8)
            },
        )
        .expect("world");
        pendulums(&mut full, 0, 2);
        let bob = full
            .add_body(
                free_body(Vec3::new(9.0, 4.0, 0.0), 1.0),
                &[Collider::sphere(0.1)],
            )
            .expect("bob");
        let err = full
            .add_joint(None, bob, Joint::ball(Vec3::new(9.0, 5.0, 0.0)))
            .expect_err("full");
        assert!(
            matches!(err, Error::Full { what, capacity: 2 } if what.contains("joint_capacity")),
            "{name}: {err}"
        );
        assert_eq!(
            full.joint_count(),
            2,
            "{name}: the refused joint changed the world"
        );
    }
}

/// Removing a body removes its joints (their handles go stale), and removing a joint frees its
/// slot for the next one (a new handle; the old one stays stale).
#[test]
fn removing_a_body_removes_its_joints() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(8)).expect("world");
        let a = w
            .add_body(
                free_body(Vec3::new(0.0, 2.0, 0.0), 1.0),
                &[Collider::sphere(0.1)],
            )
            .expect("a");
        let b = w
            .add_body(
                free_body(Vec3::new(1.0, 2.0, 0.0), 1.0),
                &[Collider::sphere(0.1)],
            )
            .expect("b");
        let j1 = w
            .add_joint(None, a, Joint::ball(Vec3::new(0.0, 3.0, 0.0)))
            .expect("j1");
        let j2 = w
            .add_joint(Some(a), b, Joint::ball(Vec3::new(0.5, 2.0, 0.0)))
            .expect("j2");
        run(&mut w, 5, DT);
        w.remove_body(a).expect("remove a");
        assert!(
            !w.contains_joint(j1) && !w.contains_joint(j2),
            "{name}: joints of a removed body live on"
        );
        assert_eq!(w.joint_count(), 0);
        assert!(matches!(
            w.remove_joint(j1),
            Err(Error::StaleHandle { kind: "joint", .. })
        ));
        let j3 = w
            .add_joint(None, b, Joint::ball(Vec3::new(1.0, 3.0, 0.0)))
            .expect("j3");
        assert!(
            w.contains_joint(j3) && !w.contains_joint(j2),
            "{name}: a reused slot's old handle works"
        );
        run(&mut w, 60, DT);
        let st = w.joint_state(j3).expect("state");
        assert!(
            st.linear_error < 1e-3,
            "{name}: the new joint does not hold: {st:?}"
        );
    }
}

/// Bad input is refused with an error naming the problem, and the world is unchanged: a joint
/// from a body to itself, to a removed body or another world's, a NaN anchor, limits with
/// lower > upper, a non-positive break threshold or stiffness, options for the wrong kind.
#[test]
fn bad_joints_are_refused_and_change_nothing() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend.clone(), config(8)).expect("world");
        let mut other = RigidWorld::new(backend, config(8)).expect("other");
        let a = w
            .add_body(
                free_body(Vec3::new(0.0, 2.0, 0.0), 1.0),
                &[Collider::sphere(0.1)],
            )
            .expect("a");
        let gone = w
            .add_body(
                free_body(Vec3::new(2.0, 2.0, 0.0), 1.0),
                &[Collider::sphere(0.1)],
            )
            .expect("gone");
        w.remove_body(gone).expect("remove");
        let foreign = other
            .add_body(free_body(Vec3::ZERO, 1.0), &[Collider::sphere(0.1)])
            .expect("foreign");
        let p = Vec3::new(0.0, 3.0, 0.0);
        let cases: Vec<(
            &str,
            Option<wgphys::rigid::BodyHandle>,
            wgphys::rigid::BodyHandle,
            Joint,
        )> = vec![
            ("to itself", Some(a), a, Joint::ball(p)),
            ("to a removed body", Some(a), gone, Joint::ball(p)),
            ("from a removed body", Some(gone), a, Joint::ball(p)),
            ("to another world's body", None, foreign, Joint::ball(p)),
            (
                "NaN anchor",
                None,
                a,
                Joint::ball(Vec3::new(f32::NAN, 0.0, 0.0)),
            ),
            ("zero axis", None, a, Joint::hinge(p, Vec3::ZERO)),
            (
                "lower > upper",
                None,
                a,
                Joint::hinge(p, Vec3::Z).with_limits(1.0, -1.0),
            ),
            (
                "zero break force",
                None,
                a,
                Joint::ball(p).with_breaking(0.0, 1.0),
            ),
            (
                "negative break torque",
                None,
                a,
                Joint::ball(p).with_breaking(1.0, -1.0),
            ),
            (
                "zero stiffness",
                None,
                a,
                Joint::ball(p).with_softness(0.0, 1.0),
            ),
            (
                "negative spring stiffness",
                None,
                a,
                Joint::hinge(p, Vec3::Z).with_spring(-1.0, 1.0, 0.0),
            ),
            (
                "limits on a ball joint",
                None,
                a,
                Joint::ball(p).with_limits(-1.0, 1.0),
            ),
            (
                "a cone on a hinge",
                None,
                a,
                Joint::hinge(p, Vec3::Z).with_cone(0.5),
            ),
            (
                "a motor on a weld",
                None,
                a,
                Joint::fixed(p).with_motor(1.0, 1.0),
            ),
            ("a cone past π", None, a, Joint::ball(p).with_cone(4.0)),
            (
                "a NaN motor speed",
                None,
                a,
                Joint::hinge(p, Vec3::Z).with_motor(f32::NAN, 1.0),
            ),
        ];
        for (what, ba, bb, joint) in cases {
            let before = w.read_bodies().expect("bodies");
            let err = w.add_joint(ba, bb, joint).expect_err(what);
            let text = err.to_string();
            println!("{name}: {what}: {text}");
            assert!(
                matches!(err, Error::InvalidInput { .. } | Error::StaleHandle { .. }),
                "{name}: {what}: {err:?}"
            );
            assert_eq!(w.joint_count(), 0, "{name}: {what}: a joint was added");
            assert_eq!(
                w.read_bodies().expect("bodies"),
                before,
                "{name}: {what}: bodies changed"
            );
        }
        // Setters refuse the wrong kind and bad values too, changing nothing.
        let ball = w.add_joint(None, a, Joint::ball(p)).expect("ball");
        let hinge_body = w
            .add_body(
                free_body(Vec3::new(4.0, 2.0, 0.0), 1.0),
                &[Collider::sphere(0.1)],
            )
            .expect("b");
        let hinge = w
            .add_joint(
                None,
                hinge_body,
                Joint::hinge(Vec3::new(4.0, 3.0, 0.0), Vec3::Z),
            )
            .expect("hinge");
        let before = w.read_joints().expect("joints");
        assert!(w.set_joint_motor(ball, Some((1.0, 1.0))).is_err());
        assert!(w.set_joint_limits(hinge, Some((1.0, 0.0))).is_err());
        assert!(w.set_joint_spring(hinge, Some((0.0, 1.0, 0.0))).is_err());
        assert!(w.set_joint_motor(hinge, Some((1.0, -1.0))).is_err());
        assert_eq!(
            w.read_joints().expect("joints"),
            before,
            "{name}: a refused edit changed a joint"
        );
    }
}
