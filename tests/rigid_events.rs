//! Contact events and contact reads (issue 34, item 4), on both backends: the events a world
//! hands out are exactly the changes of the touching pairs its contact reads show step by step
//! (a brute-force reference), on random scenes of bouncing balls and boxes; a GPU step that
//! finds more than it lists counts the rest; a resting box's contact impulses carry its
//! weight; a removed body's contacts stop.

mod common;

use common::rigid::*;
use glam::Vec3;
use std::collections::BTreeSet;
use wgphys::rigid::{Collider, ContactEvent, RigidBody, RigidConfig, RigidWorld};
use wgphys::Backend;

type Pair = (u32, u32);

/// The touching shape pairs of the last step, from the contact reads.
fn touching(w: &mut RigidWorld) -> BTreeSet<Pair> {
    w.contacts()
        .expect("contacts")
        .into_iter()
        .filter(|c| c.touching)
        .map(|c| (c.shapes.0.min(c.shapes.1), c.shapes.0.max(c.shapes.1)))
        .collect()
}

/// Events handed out so far (on the GPU, after the reports landed).
fn events(w: &mut RigidWorld) -> Vec<ContactEvent> {
    w.poll_reports().expect("poll");
    w.take_contact_events()
}

/// Balls (restitution 0.7, bouncing several times) and boxes dropped on a ground from random
/// heights.
fn scene(backend: Backend, seed: u64, n: usize) -> RigidWorld {
    let mut w = RigidWorld::new(backend, config(n as u32 + 1)).expect("world");
    w.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
        .unwrap();
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f32 / (1u64 << 53) as f32
    };
    for i in 0..n {
        let at = Vec3::new(1.5 * i as f32, 0.6 + 2.0 * rnd(), 1.5 * rnd());
        let c = if i % 2 == 0 {
            Collider::sphere(0.3).material(0.5, 0.7)
        } else {
            Collider::cuboid(Vec3::new(0.3, 0.2, 0.25))
        };
        w.add_body(RigidBody::dynamic().position(at), &[c]).unwrap();
    }
    w
}

/// Steps `w` `steps` times with events on and checks every step's events against the change
/// of its touching pairs; returns the events.
fn run_against_reference(w: &mut RigidWorld, steps: usize, what: &str) -> Vec<ContactEvent> {
    w.set_contact_events(true);
    let mut before = BTreeSet::new();
    let mut want = Vec::new();
    let mut got = Vec::new();
    for _ in 0..steps {
        w.step(DT).expect("step");
        let now = touching(w);
        let step = w.steps();
        want.extend(now.difference(&before).map(|&p| (step, true, p)));
        want.extend(before.difference(&now).map(|&p| (step, false, p)));
        before = now;
        got.extend(events(w));
    }
    assert_eq!(w.report().contact_events_missed, 0, "{what}");
    let got_keys: Vec<(u64, bool, Pair)> =
        got.iter().map(|e| (e.step, e.started, e.shapes)).collect();
    assert_eq!(
        got_keys, want,
        "{what}: the events are not the touching pairs' changes"
    );
    got
}

#[test]
fn events_are_the_changes_of_the_touching_pairs() {
    for (name, backend) in backends() {
        for seed in 1..=3 {
            let mut w = scene(backend.clone(), seed, 8);
            let got = run_against_reference(&mut w, 90, &format!("{name} seed {seed}"));
            let started = got.iter().filter(|e| e.started).count();
            let stopped = got.len() - started;
            // Every body lands; the balls bounce (each bounce stops and starts a contact).
            assert!(
                started >= 8 && stopped >= 2,
                "{name}: {started} started, {stopped} stopped"
            );
            for e in &got {
                assert!(
                    e.bodies.0.is_some() && e.bodies.1.is_some(),
                    "{name}: {e:?}"
                );
            }
        }
    }
}

/// The same scene on both backends gives the same events (the landings are steps apart from
/// any tie: the heights differ by whole centimetres of fall).
#[test]
fn both_backends_give_the_same_events() {
    let mut lists = Vec::new();
    for (_, backend) in backends() {
        let mut w = scene(backend, 7, 6);
        let e = run_against_reference(&mut w, 40, "parity");
        lists.push(
            e.iter()
                .map(|e| (e.step, e.started, e.shapes))
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(lists[0], lists[1]);
}

/// 300 balls land on the ground in the same step: the GPU lists 256 of the 300 contacts that
/// start and counts the other 44 in the report, which advises; the CPU lists all 300.
#[test]
fn a_gpu_step_counts_the_events_it_cannot_list() {
    for (name, backend) in backends() {
        let cfg = RigidConfig {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            ..config(301)
        };
        let mut w = RigidWorld::new(backend, cfg).unwrap();
        w.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
            .unwrap();
        for i in 0..300 {
            let at = Vec3::new((i % 20) as f32, 0.5, (i / 20) as f32);
            w.add_body(RigidBody::dynamic().position(at), &[Collider::sphere(0.3)])
                .unwrap();
        }
        w.set_contact_events(true);
        let mut landed = None;
        for _ in 0..40 {
            w.step(DT).unwrap();
            let n = touching(&mut w).len();
            let listed = events(&mut w).len();
            if n > 0 {
                landed = Some((n, listed, w.report()));
                break;
            }
        }
        let (n, listed, report) = landed.expect("the balls land");
        assert_eq!(n, 300, "{name}: every ball lands in the same step");
        let missed = report.contact_events_missed as usize;
        if name == "gpu" {
            assert_eq!((listed, missed), (256, 44), "{name}");
            assert!(report.advice().unwrap().contains("contact events"));
        } else {
            assert_eq!((listed, missed), (300, 0), "{name}");
        }
    }
}

/// A 2 kg box resting on the ground: one contact, its normal up, its normal impulses over a
/// substep carrying the weight m·g·h (the soft contact at rest holds the box at a fixed depth,
/// so its impulse balances gravity's each substep; 1% allows the residual motion of a box that
/// settled 2 s ago); removing the box stops the contact.
#[test]
fn a_resting_box_s_contact_carries_its_weight() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(4)).unwrap();
        let ground = w
            .add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
            .unwrap();
        let m = 2.0;
        let b = w
            .add_body(
                RigidBody::dynamic()
                    .position(Vec3::new(0.0, 0.25, 0.0))
                    .mass(m)
                    .can_sleep(false),
                &[Collider::cuboid(Vec3::new(0.5, 0.25, 0.5))],
            )
            .unwrap();
        run(&mut w, 120, DT);
        w.set_contact_events(true);
        let contacts = w.contacts_between(b, ground).unwrap();
        assert_eq!(contacts.len(), 1, "{name}");
        let c = &contacts[0];
        assert!(c.touching && c.points.len() == 4, "{name}: {c:?}");
        let up = if c.bodies.0 == Some(b) { 1.0 } else { -1.0 };
        assert!(
            (c.normal - Vec3::Y * up).length() < 1e-3,
            "{name}: normal {}",
            c.normal
        );
        let h = DT / w.config().substeps as f32;
        let sum: f32 = c.points.iter().map(|p| p.normal_impulse).sum();
        let weight = m * G * h;
        assert!(
            (sum - weight).abs() <= 0.01 * weight,
            "{name}: {sum} N·s against m·g·h = {weight}"
        );
        w.step(DT).unwrap();
        events(&mut w);
        w.remove_body(b).unwrap();
        w.step(DT).unwrap();
        touching(&mut w);
        let e = events(&mut w);
        assert_eq!(e.len(), 1, "{name}: {e:?}");
        let gone = e[0].bodies.0.is_none() || e[0].bodies.1.is_none();
        assert!(
            !e[0].started && gone,
            "{name}: the removed box's contact stopped: {e:?}"
        );
    }
}

/// Events off (the default): nothing is listed and the stage does not run.
#[test]
fn events_are_off_by_default() {
    let mut w = scene(Backend::Cpu, 3, 4);
    run(&mut w, 60, DT);
    assert!(!w.contact_events_on());
    assert!(w.take_contact_events().is_empty());
    let trace = w.cpu_stage_trace().unwrap().to_vec();
    assert!(trace.contains(&wgphys::rigid::step::RigidStage::ContactEvents));
}
