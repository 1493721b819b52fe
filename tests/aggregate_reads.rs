//! Reading the aggregate state without stalls (issue 34, item 2): copies taken by the steps
//! land a frame or two later, each equal to a blocking read of the step it names; steps
//! recorded into a caller's encoder copy into it; no step waits; the CPU answers at once.

mod common;

use common::shared_gpu;
use wgphys::aggregate::AggregateWorld;
use wgphys::scenes::aggregate as sc;
use wgphys::Backend;

const DT: f32 = 1.0 / 60.0;

fn bridge(backend: Backend) -> AggregateWorld {
    sc::bridge(backend).expect("bridge").world
}

/// Copies taken while the bridge steps (never waiting) equal a blocking read of the same step
/// of a second bridge stepped alike, bit for bit; after a wait the newest is the last step's.
#[test]
fn a_landed_copy_is_the_blocking_read_of_its_step() {
    let ctx = shared_gpu();
    let steps = 10;
    let mut reference = bridge(Backend::Gpu(ctx.clone()));
    let mut at_step = vec![reference.read_snapshot().expect("step 0")];
    for _ in 0..steps {
        reference.step(DT).expect("reference step");
        at_step.push(reference.read_snapshot().expect("reference read"));
    }
    let mut w = bridge(Backend::Gpu(ctx.clone()));
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
    assert_eq!(w.steps(), steps);
    assert_eq!(w.snapshot_reads_in_flight(), 0);
    println!(
        "copies seen: {:?}",
        seen.iter().map(|s| s.0).collect::<Vec<_>>()
    );
    for (s, snapshot) in seen.iter().chain([&last]) {
        assert!(
            *snapshot == at_step[*s as usize],
            "the copy of step {s} against a blocking read of it"
        );
    }
}

/// Steps recorded into one encoder each copy into it: nothing lands before the submit, the
/// ring holds one copy per step, and after the submit the newest is the last step's. One
/// request gives one copy.
#[test]
fn encoded_steps_copy_into_the_callers_encoder() {
    let ctx = shared_gpu();
    let mut reference = bridge(Backend::Gpu(ctx.clone()));
    for _ in 0..3 {
        reference.step(DT).expect("step");
    }
    let want = reference.read_snapshot().expect("reference");
    let mut w = bridge(Backend::Gpu(ctx.clone()));
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

    w.set_snapshot_tracking(false);
    w.request_snapshot();
    for _ in 0..3 {
        w.step(DT).expect("step");
    }
    ctx.wait().expect("wait");
    assert_eq!(
        w.poll_snapshot().map(|s| s.0),
        Some(4),
        "one copy, of the first"
    );
}

/// On the CPU the same calls answer with the state now, unasked.
#[test]
fn the_cpu_answers_at_once() {
    let mut w = bridge(Backend::Cpu);
    for k in 1..=3 {
        w.step(DT).expect("step");
        let (s, snapshot) = w.latest_snapshot().expect("always");
        assert_eq!(s, k);
        assert!(snapshot == w.read_snapshot().expect("read"));
    }
    assert_eq!(w.snapshot_reads_in_flight(), 0);
}
