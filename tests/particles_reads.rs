//! Reading the live particles without stalls (issue 34, item 2): copies taken by the steps
//! land a frame or two later, each equal to a blocking read of the step it names (deaths and
//! the packing included); steps recorded into a caller's encoder copy into it; the CPU answers
//! at once.

mod common;

use common::shared_gpu;
use glam::Vec3;
use wgphys::particles::{Particle, ParticleWorld, WorldConfig};
use wgphys::Backend;

const DT: f32 = 1.0 / 60.0;

/// 40 particles thrown up and sideways, a third of them dying within 0.1 s.
fn spray(backend: Backend) -> ParticleWorld {
    let mut w = ParticleWorld::new(
        backend,
        WorldConfig {
            capacity: 64,
            ..WorldConfig::default()
        },
    )
    .expect("world");
    for i in 0..40 {
        let f = i as f32;
        let mut p = Particle::new(Vec3::new(0.1 * f, 0.0, 0.0)).with_velocity(Vec3::new(
            f.sin(),
            5.0 + 0.1 * f,
            f.cos(),
        ));
        if i % 3 == 0 {
            p = p.with_lifetime(0.02 + 0.002 * f);
        }
        w.spawn(p).expect("spawn");
    }
    w
}

/// Copies taken while the spray steps (never waiting) equal a blocking read of the same step
/// of a second spray stepped alike, bit for bit; after a wait the newest is the last step's.
#[test]
fn a_landed_copy_is_the_blocking_read_of_its_step() {
    let ctx = shared_gpu();
    let steps = 10;
    let mut reference = spray(Backend::Gpu(ctx.clone()));
    let mut at_step = vec![reference.read_snapshot().expect("step 0")];
    for _ in 0..steps {
        reference.step(DT).expect("reference step");
        at_step.push(reference.read_snapshot().expect("reference read"));
    }
    assert!(at_step[steps as usize].len() < 40, "some died");
    let mut w = spray(Backend::Gpu(ctx.clone()));
    w.set_snapshot_tracking(true);
    assert!(w.latest_snapshot().is_none());
    let mut seen = Vec::new();
    for k in 1..=steps {
        w.step(DT).expect("step");
        if let Some((s, snapshot)) = w.latest_snapshot() {
            assert!(s <= k, "a copy of step {s} after step {k}");
            seen.push((s, snapshot));
        }
    }
    ctx.wait().expect("wait");
    let last = w.poll_snapshot().expect("landed");
    assert_eq!(last.0, steps);
    assert_eq!(w.snapshot_reads_in_flight(), 0);
    println!(
        "copies seen: {:?}",
        seen.iter().map(|s| s.0).collect::<Vec<_>>()
    );
    for (s, snapshot) in seen.iter().chain([&last]) {
        assert!(
            *snapshot == at_step[*s as usize],
            "the copy of step {s} ({} live) against a blocking read of it ({} live)",
            snapshot.len(),
            at_step[*s as usize].len()
        );
    }
}

/// Steps recorded into one encoder each copy into it: nothing lands before the submit, the
/// ring holds one copy per step, and after the submit the newest is the last step's.
#[test]
fn encoded_steps_copy_into_the_callers_encoder() {
    let ctx = shared_gpu();
    let mut reference = spray(Backend::Gpu(ctx.clone()));
    for _ in 0..3 {
        reference.step(DT).expect("step");
    }
    let want = reference.read_snapshot().expect("reference");
    let mut w = spray(Backend::Gpu(ctx.clone()));
    w.set_snapshot_tracking(true);
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    for k in 1..=3 {
        w.encode_step(DT, &mut encoder).expect("encode");
        assert!(
            w.poll_snapshot().is_none(),
            "a copy landed before the submit"
        );
        assert_eq!(
            w.snapshot_reads_in_flight(),
            k,
            "the ring grows, never stalls"
        );
    }
    ctx.queue.submit([encoder.finish()]);
    ctx.wait().expect("wait");
    let (step, got) = w.poll_snapshot().expect("landed");
    assert_eq!(step, 3);
    assert!(
        got == want,
        "the encoded steps' copy against a blocking read"
    );
}

/// On the CPU the same calls answer with the state now, unasked.
#[test]
fn the_cpu_answers_at_once() {
    let mut w = spray(Backend::Cpu);
    for k in 1..=3 {
        w.step(DT).expect("step");
        let (s, snapshot) = w.latest_snapshot().expect("always");
        assert_eq!(s, k);
        assert!(snapshot == w.read_snapshot().expect("read"));
    }
    assert_eq!(w.snapshot_reads_in_flight(), 0);
}
