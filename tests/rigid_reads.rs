//! Typed reads of the rigid bodies without stalls (issue 34, item 2): the typed view against
//! the raw record on both backends, the body ring's copies against blocking reads of the same
//! steps, removed and reused slots, steps recorded into a caller's encoder, and steps that
//! never wait for a copy.

mod common;

use common::rigid::*;
use common::shared_gpu;
use glam::{Quat, Vec3, Vec4Swizzles};
use wgphys::rigid::types::GpuBody;
use wgphys::rigid::{
    Body, BodyHandle, BodyKind, BodySnapshot, Collider, RigidBody, RigidConfig, RigidWorld,
};
use wgphys::scenes::rigid as scenes;
use wgphys::{Backend, Error};

/// A ground, a fixed crate, a kinematic paddle, a damped spinning box falling on the ground and
/// a ball: every kind of body, with damping and rotation to read.
fn scene(backend: Backend) -> (RigidWorld, Vec<BodyHandle>) {
    let mut w = RigidWorld::new(backend, config(16)).expect("world");
    let ground = scenes::add_ground(&mut w).expect("ground");
    let crate_ = w
        .add_body(
            RigidBody::fixed().position(Vec3::new(4.0, 0.5, 0.0)),
            &[Collider::cuboid(Vec3::splat(0.5))],
        )
        .expect("crate");
    let paddle = w
        .add_body(
            RigidBody::kinematic()
                .position(Vec3::new(-4.0, 1.0, 0.0))
                .velocity(Vec3::X)
                .angular_velocity(Vec3::Y),
            &[Collider::cuboid(Vec3::new(1.0, 0.1, 0.5))],
        )
        .expect("paddle");
    let spinner = w
        .add_body(
            RigidBody::dynamic()
                .position(Vec3::new(0.0, 2.0, 0.0))
                .mass(3.0)
                .damping(0.8, 0.6)
                .angular_velocity(Vec3::new(0.5, 2.0, 0.0)),
            &[Collider::cuboid(Vec3::new(0.5, 0.3, 0.4))],
        )
        .expect("spinner");
    let ball = w
        .add_body(
            RigidBody::dynamic()
                .position(Vec3::new(1.5, 1.0, 0.0))
                .mass(0.5)
                .ccd(true),
            &[Collider::sphere(0.25)],
        )
        .expect("ball");
    (w, vec![ground, crate_, paddle, spinner, ball])
}

fn assert_typed_is_raw(what: &str, h: BodyHandle, b: &Body, raw: &GpuBody) {
    assert_eq!(b.handle, h, "{what}: handle");
    assert_eq!(b.position, raw.pos.xyz(), "{what}: position");
    assert_eq!(b.rotation, Quat::from_vec4(raw.orient), "{what}: rotation");
    assert_eq!(
        b.linear_velocity,
        raw.lin_vel.xyz(),
        "{what}: linear velocity"
    );
    assert_eq!(
        b.angular_velocity,
        raw.ang_vel.xyz(),
        "{what}: angular velocity"
    );
    assert_eq!(b.inverse_mass, raw.pos.w, "{what}: inverse mass");
    let mass = if raw.pos.w > 0.0 {
        1.0 / raw.pos.w
    } else {
        0.0
    };
    assert_eq!(b.mass, mass, "{what}: mass");
    assert_eq!(
        (b.linear_damping, b.angular_damping),
        (raw.lin_vel.w, raw.ang_vel.w),
        "{what}: damping"
    );
    assert_eq!(b.acceleration, raw.acc.xyz(), "{what}: acceleration");
    assert_eq!(b.awake, raw.awake != 0, "{what}: awake");
    assert_eq!(b.can_sleep, raw.can_sleep != 0, "{what}: can sleep");
    assert_eq!(b.ccd, raw.flags & 1 != 0, "{what}: ccd");
}

/// The same bodies in the same slots (of two worlds built alike), with the step in the message.
fn assert_same_bodies(what: &str, got: &BodySnapshot, want: &BodySnapshot) {
    assert_eq!(got.step(), want.step(), "{what}: step");
    let slots = |s: &BodySnapshot| s.iter().map(|b| b.handle.index()).collect::<Vec<_>>();
    assert_eq!(slots(got), slots(want), "{what}: live slots");
    for (i, (a, b)) in got.raw().iter().zip(want.raw()).enumerate() {
        assert_eq!(a, b, "{what}: slot {i} at step {}", got.step());
    }
    assert_eq!(got.raw().len(), want.raw().len(), "{what}: slots");
}

/// The typed view is the raw record's fields in their types, on both backends: the position,
/// the rotation from `orient`, the mass as 1 / inverse mass (0 for the fixed and kinematic
/// bodies), the damping, `awake` as a bool, the kind; `body` (after a blocking read) and a
/// snapshot's `get` give the same.
#[test]
fn the_typed_view_is_the_raw_record() {
    for (name, backend) in backends() {
        let (mut w, hs) = scene(backend);
        run(&mut w, 20, DT);
        let snapshot = w.read_snapshot().expect("snapshot");
        assert_eq!(snapshot.step(), 20, "{name}");
        assert_eq!(snapshot.len(), hs.len(), "{name}");
        for &h in &hs {
            let raw = w.body_raw(h).expect("raw");
            let typed = w.read_body(h).expect("typed");
            let what = format!("{name} body {}", h.index());
            assert_typed_is_raw(&what, h, &typed, &raw);
            assert_eq!(w.body(h).expect("body"), typed, "{what}: body(h)");
            assert_eq!(snapshot.get(h), Some(typed), "{what}: snapshot");
        }
        let kinds: Vec<BodyKind> = hs.iter().map(|&h| w.body(h).expect("b").kind).collect();
        use BodyKind::*;
        assert_eq!(
            kinds,
            [Static, Static, Kinematic, Dynamic, Dynamic],
            "{name}"
        );
        let spinner = w.body(hs[3]).expect("spinner");
        assert_eq!(
            (
                spinner.mass,
                spinner.linear_damping,
                spinner.angular_damping
            ),
            (3.0, 0.8, 0.6),
            "{name}"
        );
        assert!(spinner.rotation.is_normalized() && spinner.rotation != Quat::IDENTITY);
        let paddle = w.body(hs[2]).expect("paddle");
        assert_eq!((paddle.mass, paddle.inverse_mass), (0.0, 0.0), "{name}");
        assert!(w.body(hs[4]).expect("ball").ccd, "{name}");
        assert!(!w.body(hs[0]).expect("ground").awake, "{name}");
    }
}

/// The body ring's copies, taken in while the world steps (never waiting), are blocking reads
/// of the steps they name: a second world stepped alike and read after every step gives the
/// same bodies bit for bit. After a wait the newest copy is the last step's.
#[test]
fn a_landed_copy_is_the_blocking_read_of_its_step() {
    let ctx = shared_gpu();
    let steps = 12;
    let (mut reference, _) = scene(Backend::Gpu(ctx.clone()));
    let mut at_step = vec![reference.read_snapshot().expect("step 0")];
    for _ in 0..steps {
        reference.step(DT).expect("reference step");
        at_step.push(reference.read_snapshot().expect("reference read"));
    }
    let (mut w, hs) = scene(Backend::Gpu(ctx.clone()));
    w.set_body_tracking(true);
    assert!(w.latest_bodies().is_none(), "no copy before a step");
    let mut seen = Vec::new();
    for k in 1..=steps {
        w.step(DT).expect("step");
        if let Some(s) = w.latest_bodies() {
            assert!(s.step() <= k, "a copy of step {} after step {k}", s.step());
            seen.push(s);
        }
    }
    ctx.wait().expect("wait");
    let last = w.poll_bodies().expect("the copies landed");
    assert_eq!(last.step(), steps, "the newest copy after the wait");
    assert_eq!(w.body_reads_in_flight(), 0);
    println!(
        "copies seen while stepping: {:?}",
        seen.iter().map(|s| s.step()).collect::<Vec<_>>()
    );
    for s in seen.iter().chain([&last]) {
        assert_same_bodies("ring copy", s, &at_step[s.step() as usize]);
    }
    for &h in &hs {
        assert_eq!(
            w.body(h).ok(),
            last.get(h),
            "body({}) reads the copy",
            h.index()
        );
    }
}

/// A copy never reports a body removed before it was taken, nor a body added later in a
/// reused slot under the old handle (or the old body under the new one); stale handles are
/// errors for `body` and `read_body`.
#[test]
fn removed_and_reused_slots_are_never_misreported() {
    for (name, backend) in backends() {
        let (mut w, hs) = scene(backend);
        let ctx = w.gpu().map(|g| g.ctx.clone());
        let land = |w: &mut RigidWorld| {
            if let Some(ctx) = &ctx {
                ctx.wait().expect("wait");
            }
            w.poll_bodies().expect("a copy")
        };
        w.set_body_tracking(true);
        run(&mut w, 3, DT);
        let before = land(&mut w);
        let gone = hs[4];
        assert!(before.get(gone).is_some(), "{name}");
        w.remove_body(gone).expect("remove");
        assert!(
            matches!(w.body(gone), Err(Error::StaleHandle { .. })),
            "{name}"
        );
        assert!(
            matches!(w.read_body(gone), Err(Error::StaleHandle { .. })),
            "{name}"
        );
        w.step(DT).expect("step");
        let after = land(&mut w);
        assert_eq!(after.step(), 4, "{name}");
        assert!(after.get(gone).is_none(), "{name}: the removed body");
        assert_eq!(after.len(), hs.len() - 1, "{name}");
        assert!(after.iter().all(|b| b.handle != gone), "{name}: iter");
        // The old copy still describes the body as it was.
        assert_eq!(before.get(gone).map(|b| b.mass), Some(0.5), "{name}");

        let new = w
            .add_body(
                RigidBody::dynamic()
                    .position(Vec3::new(-2.0, 3.0, 1.0))
                    .mass(7.0),
                &[Collider::sphere(0.3)],
            )
            .expect("new body");
        assert_eq!(new.index(), gone.index(), "{name}: the slot is reused");
        // Not in the newest copy yet: read from the host's copy, as added.
        let fresh = w.body(new).expect("new body before a copy");
        assert_eq!(fresh.position, Vec3::new(-2.0, 3.0, 1.0), "{name}");
        assert!((fresh.mass - 7.0).abs() < 1e-5, "{name}: {fresh:?}");
        assert!(
            before.get(new).is_none() && after.get(new).is_none(),
            "{name}"
        );
        w.step(DT).expect("step");
        let reused = land(&mut w);
        assert!(
            reused.get(gone).is_none(),
            "{name}: the old handle on a reused slot"
        );
        let b = reused.get(new).expect("the new body");
        assert!((b.mass - 7.0).abs() < 1e-5, "{name}: {b:?}");
        assert!(b.position.y < 3.0 && b.position.x == -2.0, "{name}: {b:?}");
        assert_eq!(w.body(new).ok(), Some(b), "{name}");
        let mut other = RigidWorld::new(Backend::Cpu, RigidConfig::default()).expect("world");
        let foreign = other
            .add_body(RigidBody::dynamic(), &[Collider::sphere(1.0)])
            .expect("foreign");
        assert!(
            reused.get(foreign).is_none(),
            "{name}: another world's handle"
        );
    }
}

/// Steps recorded into the caller's encoder copy the bodies into it too: nothing lands (and
/// nothing waits) before the submit, the ring holds one copy per step in flight, and after the
/// submit and a wait the newest copy is the last encoded step's, equal to a blocking read of a
/// world stepped alike. `request_bodies` asks for one copy only.
#[test]
fn encoded_steps_copy_into_the_callers_encoder() {
    let ctx = shared_gpu();
    let steps = 4;
    let (mut reference, _) = scene(Backend::Gpu(ctx.clone()));
    run(&mut reference, steps as usize, DT);
    let want = reference.read_snapshot().expect("reference");

    let (mut w, _) = scene(Backend::Gpu(ctx.clone()));
    w.set_body_tracking(true);
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    for k in 1..=steps {
        w.encode_step(DT, &mut encoder).expect("encode");
        // A wait here would never end: the copy is in an encoder not yet submitted.
        assert!(
            w.poll_bodies().is_none(),
            "step {k}: a copy landed before the submit"
        );
        assert_eq!(
            w.body_reads_in_flight(),
            k as usize,
            "the ring grows, never stalls"
        );
    }
    ctx.queue.submit([encoder.finish()]);
    ctx.wait().expect("wait");
    let got = w.poll_bodies().expect("landed");
    assert_same_bodies("encoded", &got, &want);
    assert_eq!(w.body_reads_in_flight(), 0);

    // One request, two encoded steps: one copy, of the first.
    w.set_body_tracking(false);
    w.request_bodies();
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    w.encode_step(DT, &mut encoder).expect("encode");
    w.encode_step(DT, &mut encoder).expect("encode");
    assert_eq!(w.body_reads_in_flight(), 1, "one copy asked for");
    ctx.queue.submit([encoder.finish()]);
    ctx.wait().expect("wait");
    assert_eq!(w.poll_bodies().map(|s| s.step()), Some(steps + 1));
    assert_eq!(w.steps(), steps + 2);
}

/// Many steps taken with `step` and the bodies tracked: every step returns without waiting for
/// its copy (the ring holds the copies in flight instead: how many depends on the adapter; on
/// GL a submit's maps are done by the next poll), every copy taken in is of a step already
/// taken, and none is lost: after a wait the newest is the last.
#[test]
fn no_step_waits_for_a_copy() {
    let ctx = shared_gpu();
    let (mut w, _) = scenes::pyramid(Backend::Gpu(ctx.clone()), 5, 0.5).expect("pyramid");
    w.set_body_tracking(true);
    let mut most = 0;
    let mut newest = 0;
    for k in 1..=30 {
        w.step(DT).expect("step");
        most = most.max(w.body_reads_in_flight());
        if let Some(s) = w.latest_bodies() {
            assert!(
                s.step() >= newest && s.step() <= k,
                "copy of step {} at {k}",
                s.step()
            );
            newest = s.step();
        }
    }
    ctx.wait().expect("wait");
    let s = w.poll_bodies().expect("landed");
    println!("most copies in flight: {most}; newest before the wait: step {newest}");
    assert!(most <= 30);
    assert_eq!(s.step(), 30);
    assert_eq!(s.len(), 16, "15 boxes and the ground");
    assert_eq!(w.body_reads_in_flight(), 0);
}

/// On the CPU the same calls answer at once with the state now, unasked.
#[test]
fn the_cpu_answers_at_once() {
    let (mut w, hs) = scene(Backend::Cpu);
    assert_eq!(w.latest_bodies().map(|s| s.step()), Some(0));
    for k in 1..=5u64 {
        w.step(DT).expect("step");
        let s = w.latest_bodies().expect("always");
        assert_eq!(s.step(), k);
        let raw = w.read_bodies().expect("raw");
        assert_eq!(s.raw(), &raw[..]);
        for &h in &hs {
            assert_typed_is_raw(
                "cpu",
                h,
                &w.body(h).expect("body"),
                &raw[h.index() as usize],
            );
        }
    }
    assert_eq!(w.body_reads_in_flight(), 0);
}

/// A copy recorded into an encoder that is dropped without a submit never lands and holds no
/// slot: the next copies land as usual.
#[test]
fn a_dropped_encoder_frees_its_copy() {
    let ctx = shared_gpu();
    let (mut w, hs) = scene(Backend::Gpu(ctx.clone()));
    w.request_bodies();
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    w.encode_step(DT, &mut encoder).expect("encode");
    assert_eq!(w.body_reads_in_flight(), 1);
    drop(encoder);
    w.request_bodies();
    w.step(DT).expect("step");
    ctx.wait().expect("wait");
    let s = w.poll_bodies().expect("the second copy");
    assert_eq!(s.step(), 2);
    assert_eq!(
        w.body_reads_in_flight(),
        0,
        "the dropped copy's slot is free"
    );
    assert_eq!(s.len(), hs.len());
}
