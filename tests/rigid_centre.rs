//! The centre of mass from the colliders (issue 34, item 3; `rigid::mass`, "The body's origin
//! and its centre of mass"), on both backends: a body turns about its centre of mass, not its
//! origin; a body rests on an off-centre collider without turning; a pendulum hung from its
//! origin keeps the physical pendulum's period; a collider change moves the centre and keeps the
//! origin and the motion; rotations keep the origin; an explicit centre is kept.

mod common;

use common::rigid::*;
use glam::{Quat, Vec3};
use std::f32::consts::PI;
use wgphys::rigid::inertia;
use wgphys::rigid::{Collider, ForceGen, Joint, Ray, RigidBody, RigidWorld};
use wgphys::Backend;

fn world(backend: Backend) -> RigidWorld {
    RigidWorld::new(backend, config(8)).expect("world")
}

/// A dynamic body that keeps its motion: no gravity, no damping, no sleep.
fn drifting(v: Vec3, omega: Vec3) -> RigidBody {
    RigidBody::dynamic()
        .acceleration(Vec3::ZERO)
        .damping(1.0, 1.0)
        .can_sleep(false)
        .velocity(v)
        .angular_velocity(omega)
}

/// A hammer in its own frame: a handle from the origin up to y = 1 and a steel head on top.
fn hammer() -> (Vec<Collider>, Vec3) {
    let handle = Vec3::new(0.05, 0.5, 0.05);
    let head = Vec3::new(0.2, 0.1, 0.1);
    let (handle_at, head_at) = (Vec3::Y * 0.5, Vec3::Y * 1.1);
    let m_handle = 500.0 * 8.0 * handle.x * handle.y * handle.z;
    let m_head = 7850.0 * 8.0 * head.x * head.y * head.z;
    let centre = (handle_at * m_handle + head_at * m_head) / (m_handle + m_head);
    (
        vec![
            Collider::cuboid(handle)
                .density(500.0)
                .at(handle_at, Quat::IDENTITY),
            Collider::cuboid(head)
                .density(7850.0)
                .at(head_at, Quat::IDENTITY),
        ],
        centre,
    )
}

/// A hammer spun about z in free fall without gravity turns about its centre of mass: the centre
/// stays where it is (it has no velocity, and nothing pushes it: exactly, up to the reads'
/// rounding, 1e-6 m) while the origin, the handle's end, circles it at |c| and the angle grows as
/// ω·t. The hammer is symmetric in x and z, so z is a principal axis and the spin stays about it.
/// The angle's tolerance: each step's normalised first-order quaternion update turns by
/// 2·atan(ω·dt/2) = ω·dt − (ω·dt)³/12 + …, 60 steps of ω·dt = 1/30 lose 60·(1/30)³/12 = 2e-4
/// rad, plus f32 rounding of 60 updates (1e-5): 3e-4 rad.
#[test]
fn a_spun_hammer_turns_about_its_centre_of_mass() {
    let (colliders, c) = hammer();
    let omega = 2.0;
    for (name, backend) in backends() {
        let mut w = world(backend);
        let h = w
            .add_body(drifting(Vec3::ZERO, Vec3::Z * omega), &colliders)
            .unwrap();
        let start = w.read_body(h).unwrap();
        assert_eq!(
            start.position,
            Vec3::ZERO,
            "{name}: the origin is where it was put"
        );
        assert!(
            (start.centre_of_mass - c).length() <= 1e-6,
            "{name}: centre {} against the weighted mean {c}",
            start.centre_of_mass
        );
        run(&mut w, 60, DT);
        let end = w.read_body(h).unwrap();
        assert!(
            (end.centre_of_mass - c).length() <= 1e-6,
            "{name}: the centre of mass moved to {}",
            end.centre_of_mass
        );
        let (axis, angle) = end.rotation.to_axis_angle();
        let turned = angle * axis.z.signum();
        assert!(
            (turned - omega * 1.0).abs() <= 3e-4,
            "{name}: turned {turned} rad in 1 s at {omega} rad/s"
        );
        let want_origin = c - Quat::from_rotation_z(omega) * c;
        assert!(
            (end.position - want_origin).length() <= 3e-4 * c.length() + 1e-6,
            "{name}: origin at {} against {want_origin} (circling the centre)",
            end.position
        );
    }
}

/// A ball whose collider sits 0.7 m off the body's origin, dropped on the ground, rests where it
/// lands: its weight acts at the ball's centre, straight over the contact, so nothing turns it
/// (had the weight acted at the origin it would roll away at once: a lever of 0.7 m). The
/// bounds are the solver's rest, not a fit: the contact pushes along the normal through the
/// centre, so any turn comes only from the impact's rounding; 1 mm and 1 mrad over 2 s.
#[test]
fn an_off_centre_ball_rests_where_it_lands() {
    let r = 0.5;
    let off = Vec3::X * 0.7;
    for (name, backend) in backends() {
        let mut w = world(backend);
        w.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
            .unwrap();
        let h = w
            .add_body(
                RigidBody::dynamic().position(Vec3::new(-0.7, r + 0.05, 0.0)),
                &[Collider::sphere(r).at(off, Quat::IDENTITY)],
            )
            .unwrap();
        run(&mut w, 120, DT);
        let b = w.read_body(h).unwrap();
        let (_, angle) = b.rotation.to_axis_angle();
        assert!(angle.abs() <= 1e-3, "{name}: turned {angle} rad");
        assert!(
            (b.centre_of_mass.x).abs() <= 1e-3 && b.centre_of_mass.z.abs() <= 1e-3,
            "{name}: the ball moved to {}",
            b.centre_of_mass
        );
        // The origin is read as centre − R·offset: within the turn's 1 mrad times 0.7 m.
        assert!(
            (b.position - (b.centre_of_mass - off)).length() <= 1e-3 * off.length() + 1e-6,
            "{name}: origin {} against centre − offset",
            b.position
        );
    }
}

/// A rod hung from the end that is its body's origin (a ball joint at the origin, placed in the
/// body's frame) swings as the physical pendulum: T = 2π·√(I_pivot / (m·g·d)), d = 0.5 m from
/// pivot to centre, I_pivot = I_centre + m·d². Released at 5°, the finite amplitude lengthens the
/// period by θ₀²/16 = 5e-4; the integrator's phase error at 240 Hz substeps is (ω·h)²/24 below
/// 1e-5; the crossings are found by linear interpolation between 60 Hz samples, the angle's
/// curvature there costing under 1e-3 of a period over two periods: under 2e-3 in all, and
/// 0.5% leaves the joint's compliance the rest. Had the rod turned
/// about its origin, gravity would act at the pivot and it would not swing at all.
#[test]
fn a_rod_hung_from_its_origin_keeps_the_physical_pendulum_period() {
    let half = Vec3::new(0.05, 0.5, 0.05);
    let d = 0.5;
    let pivot = Vec3::Y * 2.0;
    let theta0 = 5f32.to_radians();
    let m = 1000.0 * 8.0 * half.x * half.y * half.z;
    let i_centre = m / 3.0 * (half.x * half.x + half.y * half.y);
    let period = 2.0 * PI * ((i_centre + m * d * d) / (m * G * d)).sqrt();
    for (name, backend) in backends() {
        let mut w = world(backend);
        let q = Quat::from_rotation_z(theta0);
        let h = w
            .add_body(
                RigidBody::dynamic()
                    .position(pivot)
                    .rotation(q)
                    .density(1000.0)
                    .damping(1.0, 1.0)
                    .can_sleep(false),
                &[Collider::cuboid(half).at(-Vec3::Y * d, Quat::IDENTITY)],
            )
            .unwrap();
        w.add_joint(
            None,
            h,
            Joint::ball(Vec3::ZERO).in_body_frames(
                pivot,
                Quat::IDENTITY,
                Vec3::ZERO,
                Quat::IDENTITY,
            ),
        )
        .unwrap();
        let angle = |w: &mut RigidWorld| {
            let b = w.read_body(h).unwrap();
            (b, 2.0 * b.rotation.z.atan2(b.rotation.w))
        };
        let (mut last_t, mut last) = (0.0f32, theta0);
        let mut crossings = Vec::new();
        let steps = (2.4 * period / DT) as usize;
        let mut worst_pivot = 0.0f32;
        for k in 1..=steps {
            w.step(DT).unwrap();
            let t = k as f32 * DT;
            let (b, a) = angle(&mut w);
            worst_pivot = worst_pivot.max((b.position - pivot).length());
            if last > 0.0 && a <= 0.0 {
                crossings.push(last_t + DT * last / (last - a));
            }
            (last_t, last) = (t, a);
        }
        assert!(crossings.len() >= 3, "{name}: crossings {crossings:?}");
        let got = crossings[2] - crossings[0];
        assert!(
            (got - 2.0 * period).abs() <= 0.005 * 2.0 * period,
            "{name}: two periods in {got} s against 2T = {} s",
            2.0 * period
        );
        // The joint holds the origin at the pivot: the rod's end moves at most ω·d·θ₀ ≈ 0.02
        // m/s, so a step's drift before the joint corrects it is v·dt ≈ 3e-4 m; a centimetre
        // is thirty of those.
        assert!(
            worst_pivot <= 0.01,
            "{name}: origin left the pivot by {worst_pivot} m"
        );
    }
}

/// A collider added to a spinning body moves its centre of mass to the new weighted mean and
/// changes nothing in the world: the origin and the other collider stay where they are, the new
/// centre takes the velocity its point of the body had, v + ω × Δ, and the collider reads back
/// with the offset it was given. Removing it brings the first centre back. The host turns the
/// shift by the body's orientation read from the device, in f32: 1e-5 m on positions of a metre,
/// 1e-5 m/s on velocities of a few m/s.
#[test]
fn a_collider_change_keeps_the_origin_and_moves_the_centre() {
    let omega = Vec3::Z * 1.5;
    let v = Vec3::new(0.5, 0.0, 0.0);
    for (name, backend) in backends() {
        let mut w = world(backend);
        let h = w
            .add_body(drifting(v, omega), &[Collider::cuboid(Vec3::splat(0.25))])
            .unwrap();
        run(&mut w, 10, DT);
        let before = w.read_body(h).unwrap();
        assert!(
            (before.position - before.centre_of_mass).length() <= 1e-6,
            "{name}: one centred box: the centre is the origin"
        );
        let extra_at = Vec3::new(1.0, 0.0, 0.0);
        let extra = w
            .add_collider(
                h,
                Collider::cuboid(Vec3::splat(0.25)).at(extra_at, Quat::IDENTITY),
            )
            .unwrap();
        let after = w.read_body(h).unwrap();
        assert!(
            (after.position - before.position).length() <= 1e-5,
            "{name}: the origin moved from {} to {}",
            before.position,
            after.position
        );
        // Two equal boxes: the centre halfway, turned with the body.
        let shift = before.rotation * (extra_at * 0.5);
        assert!(
            (after.centre_of_mass - (before.position + shift)).length() <= 1e-5,
            "{name}: centre {} against {}",
            after.centre_of_mass,
            before.position + shift
        );
        let want_v = before.linear_velocity + before.angular_velocity.cross(shift);
        assert!(
            (after.linear_velocity - want_v).length() <= 1e-5,
            "{name}: the new centre moves at {} against v + ω × Δ = {want_v}",
            after.linear_velocity
        );
        assert_eq!(
            w.collider(extra).unwrap().offset,
            extra_at,
            "{name}: offset read back"
        );
        // Where the world has the boxes: a ray straight down through each box's centre, 2 m
        // above it, meets its top face (turned with the body, normal n) at 2 − 0.25/n_y.
        let n_y = (after.rotation * Vec3::Y).y;
        for at in [Vec3::ZERO, extra_at] {
            let top = after.position + after.rotation * at + Vec3::Y * 2.0;
            let hit = w.cast_ray(&Ray::new(top, -Vec3::Y, 5.0).unwrap());
            let want = 2.0 - 0.25 / n_y;
            assert!(
                hit.is_some_and(|hit| (hit.t - want).abs() <= 1e-4),
                "{name}: the box at {at} in the body's frame is not where it was put: \
                 {hit:?}, want t = {want}"
            );
        }
        w.remove_collider(extra).unwrap();
        let back = w.read_body(h).unwrap();
        assert!(
            (back.centre_of_mass - back.position).length() <= 1e-5,
            "{name}: the centre back on the origin"
        );
        assert!(
            (back.position - before.position).length() <= 1e-5,
            "{name}: the origin still where it was"
        );
    }
}

/// `set_rotation` turns a body about its origin and `set_position` places its origin: the
/// centre follows, at origin + q·c. An explicit centre of mass is kept, and a derived inertia is
/// taken about it (the box's own plus m·(|d|²·E − d·dᵀ), d from that centre to the box's),
/// within `close_tensor`'s bound.
#[test]
fn poses_place_the_origin_and_an_explicit_centre_is_kept() {
    let (colliders, c) = hammer();
    let half = Vec3::new(0.5, 0.25, 0.25);
    let low = Vec3::new(0.0, -0.4, 0.0);
    for (name, backend) in backends() {
        let mut w = world(backend);
        let h = w.add_body(RigidBody::dynamic(), &colliders).unwrap();
        let q = Quat::from_rotation_x(0.8);
        let p = Vec3::new(1.0, 2.0, 3.0);
        w.set_position(h, p).unwrap();
        w.set_rotation(h, q).unwrap();
        let b = w.read_body(h).unwrap();
        assert!(
            (b.position - p).length() <= 1e-6,
            "{name}: origin {}",
            b.position
        );
        assert!(
            (b.centre_of_mass - (p + q * c)).length() <= 1e-5,
            "{name}: centre {} against {}",
            b.centre_of_mass,
            p + q * c
        );
        let toy = w
            .add_body(
                RigidBody::dynamic()
                    .position(Vec3::X * 5.0)
                    .mass(2.0)
                    .centre_of_mass(low),
                &[Collider::cuboid(half)],
            )
            .unwrap();
        let b = w.read_body(toy).unwrap();
        assert_eq!(
            b.centre_of_mass,
            Vec3::X * 5.0 + low,
            "{name}: explicit centre"
        );
        let raw = w.read_bodies().unwrap()[toy.index() as usize];
        let want = inertia::parallel_axis(inertia::cuboid(2.0, half), 2.0, -low);
        close_tensor(inertia_of(&raw), want, &format!("{name}: inertia"));
        // It stays when a collider is added.
        w.add_collider(toy, Collider::sphere(0.3).at(Vec3::Y, Quat::IDENTITY))
            .unwrap();
        let b = w.read_body(toy).unwrap();
        assert!(
            (b.centre_of_mass - (Vec3::X * 5.0 + low)).length() <= 1e-6,
            "{name}: explicit centre kept, {}",
            b.centre_of_mass
        );
    }
}

/// On the GPU, a collider edit that changes a spinning body's inertia writes the world-frame
/// inverse inertia turned by the body's orientation on the device, not by the host's stale
/// copy (the host never read the body after it was added, with no rotation). The record read
/// back holds R·I⁻¹·Rᵀ of its own orientation: the same f32 arithmetic on the same inputs, so
/// equal up to the device's fused multiply-adds, 1e-5 of the largest entry.
#[test]
fn a_collider_edit_on_the_gpu_turns_the_inertia_by_the_device_orientation() {
    let backend = Backend::Gpu(common::shared_gpu());
    let mut w = world(backend);
    let h = w
        .add_body(
            drifting(Vec3::ZERO, Vec3::new(0.0, 0.0, 3.0)),
            &[Collider::cuboid(Vec3::new(1.0, 0.2, 0.2))],
        )
        .unwrap();
    // Half a second at 3 rad/s: turned 1.5 rad about z on the device only.
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    w.add_collider(h, Collider::cuboid(Vec3::new(0.2, 0.2, 1.0)))
        .unwrap();
    let raw = w.read_bodies().unwrap()[h.index() as usize];
    let want = wgphys::rigid::integrate::world_inverse_inertia(raw.orient, &raw.inv_inertia);
    let scale = want
        .iter()
        .fold(0.0f32, |a, c| a.max(c.truncate().abs().max_element()));
    for (k, (got, want)) in raw.inv_inertia_world.iter().zip(&want).enumerate() {
        let err = (*got - *want).truncate().abs().max_element();
        assert!(
            err <= 1e-5 * scale,
            "column {k}: {got:?} against R·I⁻¹·Rᵀ {want:?}"
        );
    }
}

/// Joints placed in a body's frame and springs on a body's points are given from its origin:
/// a distance joint in body frames on the off-centre hammer starts at its length with no error,
/// and a collider that moves the hammer's centre leaves the joint and an anchored spring exactly
/// where they were. The spring starts at its rest length and the joint at its length, so nothing
/// pulls: after the edit and 10 steps the hammer still rests, up to the rounding of the forces
/// (k = 50 N/m on anchors placed to 1e-6 m: 5e-5 N on a 2 kg hammer, 1e-5 m/s over the steps)
/// and the joint's error stays at the rounding of the anchors' sums, 1e-5 m.
#[test]
fn a_collider_edit_keeps_joints_and_springs_in_place() {
    let (colliders, _) = hammer();
    for (name, backend) in backends() {
        let mut w = world(backend);
        let origin = Vec3::new(0.0, 2.0, 0.0);
        let h = w
            .add_body(
                drifting(Vec3::ZERO, Vec3::ZERO).position(origin),
                &colliders,
            )
            .unwrap();
        let fixed = Vec3::new(-1.0, 2.0, 0.0);
        let j = w
            .add_joint(
                None,
                h,
                Joint::distance(Vec3::ZERO, Vec3::ZERO).in_body_frames(
                    fixed,
                    Quat::IDENTITY,
                    Vec3::ZERO,
                    Quat::IDENTITY,
                ),
            )
            .unwrap();
        let start = w.joint_state(j).unwrap();
        assert!(
            start.linear_error.abs() <= 1e-5 && (start.coordinate - 1.0).abs() <= 1e-5,
            "{name}: a rod from the origin to 1 m away starts at 1 m: {start:?}"
        );
        let point = Vec3::Y * 1.1;
        w.add_force_generator(ForceGen::anchored_spring(
            h,
            point,
            origin + point + Vec3::X * 0.5,
            50.0,
            0.5,
        ))
        .unwrap();
        w.add_collider(
            h,
            Collider::sphere(0.3)
                .density(3000.0)
                .at(Vec3::new(0.0, -0.5, 0.6), Quat::IDENTITY),
        )
        .unwrap();
        run(&mut w, 10, DT);
        let b = w.read_body(h).unwrap();
        assert!(
            b.linear_velocity.length() <= 1e-4 && b.angular_velocity.length() <= 1e-4,
            "{name}: the edit left a pull: v {}, ω {}",
            b.linear_velocity,
            b.angular_velocity
        );
        assert!(
            (b.position - origin).length() <= 1e-4,
            "{name}: moved to {}",
            b.position
        );
        let after = w.joint_state(j).unwrap();
        assert!(
            after.linear_error.abs() <= 1e-5,
            "{name}: the joint's error after the edit: {after:?}"
        );
    }
}
