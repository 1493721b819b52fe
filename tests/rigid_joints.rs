//! Joints do the physics a player sees (issue 35), on both backends: a pendulum on a ball joint
//! keeps its period, a rod on a hinge swings with the compound pendulum's, a door's hinge holds
//! its axis under the door's weight, a hinge stops at its limits and its motor reaches its
//! speed against a load, a slider keeps its axis, distance joints hold rods, ropes and springs,
//! a chain of 50 links holds a weight of 20 links, and a ragdoll dropped from 2 m comes to rest
//! and sleeps. Each check is a closed form; each tolerance says beside it where it comes from.
//!
//! The scenes run at the world's defaults (60 Hz, 4 substeps of h = 1/240 s, joints as stiff
//! as the substep allows: 120 Hz, damping ratio 2) with damping off where a closed form needs
//! none. Two numbers recur in the bounds: a soft joint stretches under a load F by F/(m·ω²), m
//! its row's effective mass and ω = 2π·120 = 754 s⁻¹ (`joint::solve::soft`; ω² = 5.7e5 s⁻²),
//! and symplectic Euler's period error for an oscillation of ω₀ at step h is (ω₀h)²/24
//! relative.

mod common;

use common::rigid::*;
use glam::{Quat, Vec3, Vec3Swizzles, Vec4Swizzles};
use std::f32::consts::PI;
use wgphys::rigid::{Collider, Joint, RigidConfig, RigidWorld};

/// The times (s) at which `x` crossed 0 going up, interpolated linearly between steps, over
/// `steps` steps of `DT`, `x` read after each step.
fn upward_crossings(
    w: &mut RigidWorld,
    steps: usize,
    mut x: impl FnMut(&mut RigidWorld) -> f32,
) -> Vec<f32> {
    let mut last = x(w);
    let mut out = Vec::new();
    for s in 0..steps {
        w.step(DT).expect("step");
        let now = x(w);
        if last < 0.0 && now >= 0.0 {
            out.push((s as f32 + (-last) / (now - last)) * DT);
        }
        last = now;
    }
    out
}

/// The mean of the periods between successive crossings.
fn mean_period(crossings: &[f32]) -> f32 {
    assert!(crossings.len() >= 3, "too few swings: {crossings:?}");
    (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f32
}

/// A bob of radius r on a massless rod of length L from a ball joint, released at θ₀ = 0.1 rad,
/// swings with the period of a pendulum of moment I = m(L² + 2r²/5) about the pivot, T =
/// 2π·√(I/(m·g·L))·(1 + θ₀²/16) (the amplitude's first correction). Bound 1e-3 relative, from
/// the sum of: the joint's stretch under the bob's weight, g/ω² = 17 µm on L (1.7e-5, half
/// that on T); symplectic Euler's (ω₀h)²/24 = 7e-6 at ω₀ = 3.1 s⁻¹; the series' next term
/// 11θ₀⁴/3072 = 4e-7; the crossings' interpolation, whose error is third order in ω₀·DT at a
/// crossing (x'' = 0 there), 5e-7; all under 1e-4 together, so 1e-3 has room for the f32
/// rounding of the poses.
#[test]
fn a_pendulum_on_a_ball_joint_keeps_its_period() {
    let (l, r, theta) = (1.0f32, 0.05f32, 0.1f32);
    let pivot = Vec3::new(0.0, 3.0, 0.0);
    let inertia = l * l + 0.4 * r * r;
    let want = 2.0 * PI * (inertia / (G * l)).sqrt() * (1.0 + theta * theta / 16.0);
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(4)).expect("world");
        let at = pivot + l * Vec3::new(theta.sin(), -theta.cos(), 0.0);
        let bob = w
            .add_body(free_body(at, 1.0), &[Collider::sphere(r)])
            .expect("bob");
        w.add_joint(None, bob, Joint::ball(pivot)).expect("joint");
        let crossings = upward_crossings(&mut w, 560, |w| w.body_raw(bob).expect("bob").pos.x);
        let t = mean_period(&crossings);
        println!("{name}: pendulum period {t} s, closed form {want} s");
        assert!(
            ((t - want) / want).abs() < 1e-3,
            "{name}: period {t} s vs {want} s"
        );
    }
}

/// A rod of length L = 1 m (a 0.1 × 1 × 0.1 box) on a hinge at its top end, released at θ₀ =
/// 0.1 rad, swings with the compound pendulum's period T = 2π·√(I/(m·g·d))·(1 + θ₀²/16), with I
/// = m(L² + w²)/12 + m·d² about the hinge and d = L/2 from the hinge to the centre. Bound 1e-3
/// relative, argued as for the simple pendulum (the hinge's stretch under the rod's weight is
/// g/ω² along the rod, 3.4e-5 of d; symplectic Euler's error (ω₀h)²/24 = 1e-5 at ω₀ = 3.8 s⁻¹).
#[test]
fn a_rod_on_a_hinge_swings_with_the_compound_pendulum_period() {
    let (l, wd, theta) = (1.0f32, 0.1f32, 0.1f32);
    let d = 0.5 * l;
    let inertia = (l * l + wd * wd) / 12.0 + d * d;
    let want = 2.0 * PI * (inertia / (G * d)).sqrt() * (1.0 + theta * theta / 16.0);
    let pivot = Vec3::new(0.0, 3.0, 0.0);
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(4)).expect("world");
        let rot = Quat::from_rotation_z(theta);
        let centre = pivot + rot * Vec3::new(0.0, -d, 0.0);
        let rod = w
            .add_body(
                free_body(centre, 1.0).rotation(rot),
                &[Collider::cuboid(Vec3::new(0.5 * wd, 0.5 * l, 0.5 * wd))],
            )
            .expect("rod");
        w.add_joint(None, rod, Joint::hinge(pivot, Vec3::Z))
            .expect("hinge");
        let crossings = upward_crossings(&mut w, 560, |w| w.body_raw(rod).expect("rod").pos.x);
        let t = mean_period(&crossings);
        println!("{name}: compound pendulum period {t} s, closed form {want} s");
        assert!(
            ((t - want) / want).abs() < 1e-3,
            "{name}: period {t} s vs {want} s"
        );
    }
}

/// A door (1 m wide, 2 m tall, 20 kg) on a vertical hinge at its edge, swinging open at 1
/// rad/s: its weight, 98 N·m about the horizontal, is what the hinge's angular rows hold, and
/// the hinge's axis stays vertical within 1e-3 rad for 2 s (the bound; the soft rows
/// lean by τ/(I·ω²) = 98 / (8.3 · 5.7e5) = 2e-5 rad). Gravity has no moment about the hinge's
/// axis, so the swing keeps its rate within 1% (what the point's soft sag and the lean can
/// take from a rotation about a vertical axis is of the order of that lean, 1e-4).
#[test]
fn a_hinge_keeps_its_axis_under_load() {
    let half = Vec3::new(0.5, 1.0, 0.05);
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(4)).expect("world");
        let door = w
            .add_body(
                // Turning about the hinge: the centre, 0.5 m out, moves at ω × r.
                free_body(Vec3::new(0.5, 2.0, 0.0), 20.0)
                    .angular_velocity(Vec3::Y)
                    .velocity(Vec3::Y.cross(Vec3::X * 0.5)),
                &[Collider::cuboid(half)],
            )
            .expect("door");
        w.add_joint(None, door, Joint::hinge(Vec3::new(0.0, 2.0, 0.0), Vec3::Y))
            .expect("hinge");
        let (mut lean, mut rate) = (0.0f32, (f32::MAX, 0.0f32));
        for _ in 0..120 {
            w.step(DT).expect("step");
            let b = w.body_raw(door).expect("door");
            let up = quat(&b) * Vec3::Y;
            lean = lean.max(up.cross(Vec3::Y).length().asin());
            let wy = b.ang_vel.y;
            rate = (rate.0.min(wy), rate.1.max(wy));
        }
        println!("{name}: door lean ≤ {lean:.3e} rad, swing rate {rate:?} rad/s");
        assert!(lean < 1e-3, "{name}: the hinge's axis leaned {lean} rad");
        assert!(
            (rate.0 - 1.0).abs() < 0.01 && (rate.1 - 1.0).abs() < 0.01,
            "{name}: swing rate {rate:?}, set to 1 rad/s"
        );
    }
}

/// A rod on a hinge with limits ±0.3 rad, kicked to 5 rad/s (it would swing to 1.1 rad free):
/// it stops at the limit. The limit's row is speculative (apart, it lets the gap close within
/// the substep and no faster), so the rod reaches the limit without passing it but for the
/// soft row's give under the rod's push, I·Δω/(h·I·ω²)·h = Δω/ω² ≈ 5/5.7e5 = 9e-6 rad; bound
/// 1e-2 rad, with room for the point's soft sag.
#[test]
fn a_hinge_stops_at_its_limits() {
    let pivot = Vec3::new(0.0, 3.0, 0.0);
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(4)).expect("world");
        let rod = w
            .add_body(
                free_body(pivot - Vec3::Y * 0.5, 1.0).angular_velocity(Vec3::Z * 5.0),
                &[Collider::cuboid(Vec3::new(0.05, 0.5, 0.05))],
            )
            .expect("rod");
        let j = w
            .add_joint(
                None,
                rod,
                Joint::hinge(pivot, Vec3::Z).with_limits(-0.3, 0.3),
            )
            .expect("hinge");
        let (mut lo, mut hi) = (0.0f32, 0.0f32);
        for _ in 0..180 {
            w.step(DT).expect("step");
            let angle = w.joint_state(j).expect("state").coordinate;
            lo = lo.min(angle);
            hi = hi.max(angle);
        }
        println!("{name}: hinge angle within [{lo}, {hi}] rad, limits ±0.3");
        assert!(
            hi > 0.29,
            "{name}: the kick did not reach the upper limit ({hi})"
        );
        assert!(
            hi < 0.3 + 1e-2 && lo > -0.3 - 1e-2,
            "{name}: the hinge passed its limits: [{lo}, {hi}]"
        );
    }
}

/// A wheel (a sphere, I = 2/5·m·r² = 0.2 kg·m²) on a hinge at its centre, gravity off, loaded
/// by a braking torque of 1 N·m: a motor of 5 N·m brings it to its target speed, 3 rad/s, and
/// holds it there (the motor's row is rigid on the velocity: the speed after the solve is the
/// target but for rounding, bound 1e-4 relative); a motor of 0.5 N·m cannot hold the load,
/// and the wheel turns backwards at the net torque over I, α = (0.5 − 1)/0.2 = −2.5 rad/s²
/// (after 1 s, within 1%: the motor's bound is applied per substep as τ·h, the load through
/// the integrator, both exactly).
#[test]
fn a_hinge_motor_reaches_its_speed_against_a_load() {
    for (name, backend) in backends() {
        for (most, want) in [(5.0f32, None), (0.5, Some(-2.5f32))] {
            let mut w = RigidWorld::new(backend.clone(), config(4)).expect("world");
            let wheel = w
                .add_body(
                    free_body(Vec3::new(0.0, 2.0, 0.0), 2.0).acceleration(Vec3::ZERO),
                    &[Collider::sphere(0.5)],
                )
                .expect("wheel");
            let motor = Joint::hinge(Vec3::new(0.0, 2.0, 0.0), Vec3::Z).with_motor(3.0, most);
            w.add_joint(None, wheel, motor).expect("motor");
            for _ in 0..60 {
                w.add_torque(wheel, -Vec3::Z).expect("load");
                w.step(DT).expect("step");
            }
            let spin = w.body_raw(wheel).expect("wheel").ang_vel.z;
            match want {
                None => {
                    println!("{name}: motor of {most} N·m: {spin} rad/s (target 3)");
                    assert!(
                        ((spin - 3.0) / 3.0).abs() < 1e-4,
                        "{name}: motor speed {spin} rad/s, target 3"
                    );
                }
                Some(alpha) => {
                    println!("{name}: motor of {most} N·m: {spin} rad/s after 1 s (α = {alpha})");
                    assert!(
                        ((spin - alpha) / alpha).abs() < 0.01,
                        "{name}: {spin} rad/s after 1 s, want {alpha}"
                    );
                }
            }
        }
    }
}

/// A 2 kg box on a horizontal slider along x, pushed along it by 4 N and pulled across it by
/// gravity: it moves along x as x = ½(F/m)t² (within 1%: the push goes through the
/// integrator exactly; the slider's perpendicular rows take none of it) and stays on its axis
/// within 1e-3 m (the perpendicular rows sag by g/ω² = 17 µm) without turning (1e-3 rad).
#[test]
fn a_slider_keeps_its_axis() {
    let start = Vec3::new(0.0, 2.0, 0.0);
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(4)).expect("world");
        let cart = w
            .add_body(free_body(start, 2.0), &[Collider::cuboid(Vec3::splat(0.2))])
            .expect("cart");
        w.add_joint(None, cart, Joint::slider(start, Vec3::X))
            .expect("slider");
        let (mut off, mut turn) = (0.0f32, 0.0f32);
        for _ in 0..60 {
            w.add_force(cart, Vec3::X * 4.0).expect("push");
            w.step(DT).expect("step");
            let b = w.body_raw(cart).expect("cart");
            off = off.max((pos(&b) - start).yz().length());
            turn = turn.max(2.0 * b.orient.xyz().length().asin());
        }
        let x = w.body_raw(cart).expect("cart").pos.x - start.x;
        // Symplectic Euler over n substeps of h: x = a·h²·n(n+1)/2.
        let (n, h) = (240.0f32, DT / 4.0);
        let want = 2.0 * h * h * n * (n + 1.0) / 2.0;
        println!("{name}: slider x {x} m (want {want}), off axis {off:.3e} m, turn {turn:.3e} rad");
        assert!(((x - want) / want).abs() < 0.01, "{name}: x {x} vs {want}");
        assert!(off < 1e-3, "{name}: off the axis by {off} m");
        assert!(turn < 1e-3, "{name}: turned by {turn} rad");
    }
}

/// Distance joints: a rod keeps a bob at its length (within the stretch under the bob's weight
/// and its swing, (g + v²/L)/ω² = 24 µm, bound 1e-3 m); a rope of 1 m lets a bob thrown up come closer and holds it at
/// 1 m when taut (bound 1e-3 m); a spring of 2 Hz with no damping on a bob with gravity off
/// oscillates with period 0.5 s (within 1%: the implicit soft spring's period error at
/// ω₀h = 0.05 is of the order (ω₀h)², 3e-3).
#[test]
fn distance_joints_hold_rods_ropes_and_springs() {
    let pivot = Vec3::new(0.0, 3.0, 0.0);
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend.clone(), config(8)).expect("world");
        let bob = w
            .add_body(
                free_body(pivot - Vec3::Y, 1.0).velocity(Vec3::X * 2.0),
                &[Collider::sphere(0.05)],
            )
            .expect("rod's bob");
        let rod = w
            .add_joint(None, bob, Joint::distance(pivot, pivot - Vec3::Y))
            .expect("rod");
        let hanging = w
            .add_body(
                free_body(pivot - Vec3::Y + Vec3::X * 3.0, 1.0).velocity(Vec3::Y * 3.0),
                &[Collider::sphere(0.05)],
            )
            .expect("rope's bob");
        let top = pivot + Vec3::X * 3.0;
        let rope = w
            .add_joint(None, hanging, Joint::rope(top, top - Vec3::Y, 1.0))
            .expect("rope");
        let (mut rod_err, mut rope_min, mut rope_max) = (0.0f32, f32::MAX, 0.0f32);
        for _ in 0..120 {
            w.step(DT).expect("step");
            rod_err = rod_err.max((w.joint_state(rod).expect("rod").coordinate - 1.0).abs());
            let len = w.joint_state(rope).expect("rope").coordinate;
            rope_min = rope_min.min(len);
            rope_max = rope_max.max(len);
        }
        println!(
            "{name}: rod length error {rod_err:.3e} m; rope length in [{rope_min}, {rope_max}]"
        );
        assert!(
            rod_err < 1e-3,
            "{name}: the rod's length moved by {rod_err} m"
        );
        assert!(
            rope_min < 0.8,
            "{name}: the rope held the bob away ({rope_min} m)"
        );
        assert!(
            rope_max < 1.0 + 1e-3,
            "{name}: the rope stretched to {rope_max} m"
        );

        // The spring: the bob starts 0.1 m past its rest length, gravity off.
        let mut w = RigidWorld::new(backend, config(4)).expect("world");
        let bob = w
            .add_body(
                free_body(pivot - Vec3::Y * 1.1, 1.0).acceleration(Vec3::ZERO),
                &[Collider::sphere(0.05)],
            )
            .expect("spring's bob");
        let spring = Joint::distance(pivot, pivot - Vec3::Y * 1.1)
            .with_limits(0.0, 10.0)
            .with_spring(2.0, 0.0, 1.0);
        w.add_joint(None, bob, spring).expect("spring");
        let crossings =
            upward_crossings(&mut w, 180, |w| 2.0 - w.body_raw(bob).expect("bob").pos.y);
        let t = mean_period(&crossings);
        println!("{name}: spring period {t} s (want 0.5)");
        assert!(
            ((t - 0.5) / 0.5).abs() < 0.01,
            "{name}: spring period {t} s"
        );
    }
}

/// A chain of 50 capsule links (0.1 m, 0.1 kg) from a fixed point holding a 2 kg ball (20
/// links' mass) hangs still, its length within 1% of its rest length, 5 m. A soft joint
/// stretches by F/(m·ω²) under load F: the joints between two links (m ≈ 0.05 kg) carry 20 to
/// 70 N, so at 4 substeps (120 Hz) the chain hangs 1.6% long, and at Box2D's 60 Hz 6%. This is
/// the mass-ratio problem of every iterative solver, and the cure is the stiffness more
/// substeps allow, as Box2D advises: at 8 substeps the cap is 240 Hz, ω² 4 times larger, and
/// the chain hangs about 0.4% long. After 2 s of settling every body moves
/// slower than 1 mm/s for the next second: no jitter (a link shaking by 1 mm at 60 Hz would
/// move at 6 cm/s).
#[test]
fn a_chain_of_fifty_links_holds_twenty_times_a_links_mass() {
    let top = Vec3::new(0.0, 6.0, 0.0);
    for (name, backend) in backends() {
        let cfg = RigidConfig {
            substeps: 8,
            ..config(64)
        };
        let mut w = RigidWorld::new(backend, cfg).expect("world");
        let chain = wgphys::scenes::joints::chain(&mut w, top, 50, 0.1, 0.1, 2.0).expect("chain");
        let weight = chain.weight.expect("weight");
        run(&mut w, 120, DT);
        let mut fastest = 0.0f32;
        for _ in 0..60 {
            w.step(DT).expect("step");
            let bodies = w.read_bodies().expect("bodies");
            for b in &bodies {
                fastest = fastest.max(b.lin_vel.xyz().length());
            }
        }
        // The chain ends at the weight's joint, one link's length above the ball's centre.
        let end = w.body_raw(weight).expect("weight").pos.y + 0.1;
        let length = top.y - end;
        println!("{name}: chain length {length} m (rest 5), fastest {fastest:.2e} m/s");
        assert!(
            ((length - 5.0) / 5.0).abs() < 0.01,
            "{name}: the chain hangs {length} m long, rest 5 m"
        );
        assert!(fastest < 1e-3, "{name}: a body moves at {fastest} m/s");
    }
}

/// The book's ragdoll (12 boxes, 11 joints) dropped from 2 m, tilted, onto the ground comes to
/// rest and sleeps within 6 s, and no joint opens further than its allowed error: 5 cm and 0.25
/// rad past its limits at any step (the impact at 6 m/s; a soft joint gives way by about v/ω =
/// 0.8 cm under such a blow, and a limit hit at a relative turn rate ω_r by about ω_r/ω per
/// substep), and 1 mm and 0.01 rad at rest (the stretch under the bones' weights, F/(m·ω²)
/// with F ≤ 300 N and m ≥ 1.5 kg: 0.35 mm; a limit holding a limb's weight leans about as much
/// in angle over the bone's length).
#[test]
fn a_ragdoll_dropped_from_two_metres_comes_to_rest_and_sleeps() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(16)).expect("world");
        wgphys::scenes::rigid::add_ground(&mut w).expect("ground");
        let tilt = Quat::from_rotation_x(0.3) * Quat::from_rotation_z(0.2);
        let doll = wgphys::scenes::joints::ragdoll(&mut w, Vec3::Y * 2.0, tilt, Vec3::ZERO)
            .expect("ragdoll");
        let (mut lin, mut ang) = (0.0f32, 0.0f32);
        let mut asleep_at = None;
        for s in 0..360 {
            w.step(DT).expect("step");
            for &j in &doll.joints {
                let st = w.joint_state(j).expect("joint");
                lin = lin.max(st.linear_error);
                ang = ang.max(st.angular_error);
            }
            let bodies = w.read_bodies().expect("bodies");
            if asleep_at.is_none()
                && doll
                    .bones
                    .iter()
                    .all(|b| bodies[b.index() as usize].awake == 0)
            {
                asleep_at = Some(s);
            }
        }
        let (mut rest_lin, mut rest_ang) = (0.0f32, 0.0f32);
        for &j in &doll.joints {
            let st = w.joint_state(j).expect("joint");
            rest_lin = rest_lin.max(st.linear_error);
            rest_ang = rest_ang.max(st.angular_error);
        }
        println!(
            "{name}: ragdoll asleep at step {asleep_at:?}; worst joint error {lin:.3e} m, {ang:.3e} \
             rad; at rest {rest_lin:.3e} m, {rest_ang:.3e} rad"
        );
        assert!(
            asleep_at.is_some(),
            "{name}: the ragdoll is still awake after 6 s"
        );
        assert!(
            lin < 0.05 && ang < 0.25,
            "{name}: a joint opened by {lin} m, {ang} rad"
        );
        assert!(
            rest_lin < 1e-3 && rest_ang < 0.01,
            "{name}: at rest a joint is open by {rest_lin} m, {rest_ang} rad"
        );
    }
}

/// Joined bodies wake together: a ragdoll asleep on the ground whose pelvis is kicked to 4 m/s
/// (40 N·s) is awake in every bone after the next step (the wake stage's rounds over the joints
/// reach four joints from the pelvis, and a hand is four away), and it carries the kick: after
/// one step its momentum along the kick is at least 40 N·s less what friction can take in a
/// step, μ·M·g·dt = 0.6 × 71 kg × 9.81 / 60 = 7 N·s. (With sleeping bones as static anchors
/// the pelvis would be held where it lay.)
#[test]
fn a_sleeping_ragdoll_wakes_as_a_whole_when_kicked() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(16)).expect("world");
        wgphys::scenes::rigid::add_ground(&mut w).expect("ground");
        let doll = wgphys::scenes::joints::ragdoll(
            &mut w,
            Vec3::Y * 0.5,
            Quat::from_rotation_x(-1.5),
            Vec3::ZERO,
        )
        .expect("ragdoll");
        let mut asleep = false;
        for _ in 0..600 {
            w.step(DT).expect("step");
            let bodies = w.read_bodies().expect("bodies");
            if doll
                .bones
                .iter()
                .all(|b| bodies[b.index() as usize].awake == 0)
            {
                asleep = true;
                break;
            }
        }
        assert!(asleep, "{name}: the ragdoll did not fall asleep in 10 s");
        w.set_linear_velocity(doll.bones[0], Vec3::X * 4.0)
            .expect("kick");
        w.step(DT).expect("step");
        let bodies = w.read_bodies().expect("bodies");
        let awake = doll
            .bones
            .iter()
            .filter(|b| bodies[b.index() as usize].awake != 0)
            .count();
        let momentum: f32 = doll
            .bones
            .iter()
            .map(|b| {
                let body = &bodies[b.index() as usize];
                body.lin_vel.x / body.pos.w
            })
            .sum();
        println!("{name}: after the kick {awake} of 12 bones awake, momentum {momentum} N·s");
        assert_eq!(awake, 12, "{name}: {awake} of 12 bones woke");
        assert!(
            momentum > 40.0 - 7.0,
            "{name}: the ragdoll took {momentum} N·s of 40"
        );
    }
}
