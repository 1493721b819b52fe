//! Sensors (issue 34, item 4), on both backends: a body falls through a sensor exactly as
//! through nothing (bit for bit), and the overlap's start and end are reported as contact
//! events at the steps its heights say; a sensor wakes no sleeping body and stops no
//! continuous-collision sweep.

mod common;

use common::rigid::*;
use glam::Vec3;
use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
use wgphys::Backend;

/// A ball (r = 0.25) dropped from y = 10 through a fixed sensor box spanning y ∈ [4, 6] (with
/// or without the box).
fn drop_through(backend: Backend, with_sensor: bool) -> RigidWorld {
    let mut w = RigidWorld::new(backend, config(8)).expect("world");
    if with_sensor {
        w.add_body(
            RigidBody::fixed().position(Vec3::new(0.0, 5.0, 0.0)),
            &[Collider::cuboid(Vec3::new(2.0, 1.0, 2.0)).sensor(true)],
        )
        .unwrap();
    } else {
        // The same slot taken by a body far away, so the ball has the same slot in both.
        w.add_body(
            RigidBody::fixed().position(Vec3::new(100.0, 5.0, 0.0)),
            &[Collider::sphere(0.1)],
        )
        .unwrap();
    }
    w.add_body(
        RigidBody::dynamic()
            .position(Vec3::new(0.0, 10.0, 0.0))
            .can_sleep(false),
        &[Collider::sphere(0.25)],
    )
    .unwrap();
    w.set_contact_events(true);
    w
}

/// The ball's motion with the sensor is its motion without it, bit for bit, step by step; the
/// events come at the first step that starts with the ball overlapping the box and the first
/// that starts with it clear (a step's collision detection runs on the poses the last left).
#[test]
fn a_body_falls_through_a_sensor_as_through_nothing() {
    for (name, backend) in backends() {
        let mut with = drop_through(backend.clone(), true);
        let mut without = drop_through(backend, false);
        let mut events = Vec::new();
        let mut heights = Vec::new();
        for _ in 0..90 {
            // The step's collision detection runs at its start, on the poses the last step left:
            // what it finds is that step's event.
            let y = with.read_bodies().unwrap()[1].pos.y;
            heights.push((with.steps() + 1, y));
            with.step(DT).unwrap();
            without.step(DT).unwrap();
            let a = with.read_bodies().unwrap()[1];
            let b = without.read_bodies().unwrap()[1];
            assert_eq!(
                bytemuck::bytes_of(&a),
                bytemuck::bytes_of(&b),
                "{name}: the sensor changed the ball's motion"
            );
            with.poll_reports().unwrap();
            events.extend(with.take_contact_events());
        }
        // Touching: the ball's bottom at or below the box's top (6) and its top at or above
        // the box's bottom (4), i.e. 3.75 <= y <= 6.25 (a point at or past contact).
        let inside = |y: f32| (3.75..=6.25).contains(&y);
        let enter = heights
            .iter()
            .find(|h| inside(h.1))
            .expect("the ball reaches the box")
            .0;
        let leave = heights
            .iter()
            .skip_while(|h| !inside(h.1))
            .find(|h| !inside(h.1))
            .expect("the ball leaves the box")
            .0;
        let got: Vec<(u64, bool, bool)> = events
            .iter()
            .map(|e| (e.step, e.started, e.sensor))
            .collect();
        assert_eq!(got, [(enter, true, true), (leave, false, true)], "{name}");
        let c = with.contacts().unwrap();
        assert!(c.iter().all(|c| c.sensor || !c.touching), "{name}");
    }
}

/// A sensor moving through a sleeping box does not wake it; a solid one would.
#[test]
fn a_sensor_wakes_no_sleeping_body() {
    for (name, backend) in backends() {
        for sensor in [true, false] {
            let mut w = RigidWorld::new(backend.clone(), config(8)).unwrap();
            w.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
                .unwrap();
            let sleeper = w
                .add_body(
                    RigidBody::dynamic()
                        .position(Vec3::new(0.0, 0.5, 0.0))
                        .asleep(true),
                    &[Collider::cuboid(Vec3::splat(0.5))],
                )
                .unwrap();
            w.add_body(
                RigidBody::kinematic()
                    .position(Vec3::new(-3.0, 0.5, 0.0))
                    .velocity(Vec3::new(3.0, 0.0, 0.0)),
                &[Collider::sphere(0.4).sensor(sensor)],
            )
            .unwrap();
            run(&mut w, 60, DT);
            w.read_bodies().unwrap();
            let awake = w.body(sleeper).unwrap().awake;
            assert_eq!(
                awake, !sensor,
                "{name}: sensor {sensor}, the box awake: {awake}"
            );
        }
    }
}

/// A continuous-collision bullet passes a sensor wall (and stops at a solid one).
#[test]
fn a_sensor_stops_no_sweep() {
    for (name, backend) in backends() {
        for sensor in [true, false] {
            let cfg = RigidConfig {
                gravity: Vec3::ZERO,
                ..config(8)
            };
            let mut w = RigidWorld::new(backend.clone(), cfg).unwrap();
            w.add_body(
                RigidBody::fixed().position(Vec3::new(5.0, 0.0, 0.0)),
                &[Collider::cuboid(Vec3::new(0.02, 2.0, 2.0)).sensor(sensor)],
            )
            .unwrap();
            let bullet = w
                .add_body(
                    free_body(Vec3::ZERO, 0.01)
                        .velocity(Vec3::new(300.0, 0.0, 0.0))
                        .ccd(true),
                    &[Collider::sphere(0.02)],
                )
                .unwrap();
            run(&mut w, 3, DT);
            w.read_bodies().unwrap();
            let x = w.body(bullet).unwrap().position.x;
            assert_eq!(
                x > 5.0,
                sensor,
                "{name}: sensor {sensor}, the bullet at x = {x}"
            );
        }
    }
}
