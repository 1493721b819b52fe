//! Nothing the rigid world does is lost without a word (issue 32): a renderer that only records
//! steps into its own encoders gets the same reports and the same growth as `step()` gives, and
//! a broad phase cut short by a software adapter's loop limit is reported and leaves no pair of
//! an earlier step for the narrow phase.

mod common;

use common::rigid::*;
use common::shared_gpu;
use glam::{Quat, Vec3};
use wgphys::rigid::{RigidConfig, RigidStepReport, RigidWorld};
use wgphys::scenes::rigid as scenes;
use wgphys::Backend;

/// A 6-row pyramid of unit boxes on the ground (21 boxes, 41 touching pairs at rest) in a world
/// of `pair_capacity` slots.
fn pyramid(pair_capacity: u32) -> RigidWorld {
    let cfg = RigidConfig {
        pair_capacity,
        ..config(32)
    };
    let mut w = RigidWorld::new(Backend::Gpu(shared_gpu()), cfg).expect("world");
    scenes::pyramid_in(&mut w, 6, 0.5).expect("pyramid");
    w
}

/// A renderer's frame loop that only records each step into its own encoder and submits it,
/// never calling `step()` or a blocking read: the pyramid's pairs overflow the 8 slots it was
/// given, the encoded steps' reports say so (naming the knob) a frame or two later, the pair
/// buffer grows from them, and from then on every pair the broad phase finds is kept. A world
/// that never overflowed, stepped with `step()`, finds the same pairs.
#[test]
fn a_renderer_loop_that_only_encodes_is_told_of_overflow_and_grows() {
    let ctx = shared_gpu();
    let mut w = pyramid(8);
    let mut reference = pyramid(4096);
    let mut reports: Vec<RigidStepReport> = Vec::new();
    let frames = 24;
    for _ in 0..frames {
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        let r = w.encode_step(DT, &mut encoder).expect("encode");
        ctx.queue.submit([encoder.finish()]);
        reports.push(r);
        reference.step(DT).expect("reference step");
    }
    ctx.wait().expect("wait");
    let last = w.poll_reports().expect("poll");
    let want = reference.read_report().expect("reference report");
    println!(
        "reports by frame: {:?}",
        reports
            .iter()
            .map(|r| (r.step, r.pairs, r.pairs_wanted))
            .collect::<Vec<_>>()
    );
    let overflow = reports
        .iter()
        .find(|r| r.pairs_wanted > r.pairs)
        .expect("an encoded step's report showed the overflow");
    let advice = overflow.advice().expect("advice");
    assert!(advice.contains("pair_capacity"), "{advice}");
    // Reports land a frame or two after their step, and the pair buffer grows when one does.
    assert!(
        overflow.step >= 1
            && reports
                .iter()
                .position(|r| r.step == overflow.step)
                .unwrap_or(99)
                <= 4,
        "the overflow of step {} was reported late: {reports:?}",
        overflow.step
    );
    assert!(
        w.pair_capacity() >= want.pairs_wanted,
        "grown to {}",
        w.pair_capacity()
    );
    let grown = reports
        .iter()
        .position(|r| r.pairs == r.pairs_wanted && r.step > overflow.step)
        .expect("a report after growing");
    assert!(
        grown <= 8,
        "no complete step reported by frame 8: {reports:?}"
    );
    for r in &reports[grown..] {
        assert_eq!(
            r.pairs, r.pairs_wanted,
            "a pair was dropped after growing: {r:?}"
        );
    }
    assert_eq!(
        last.step, frames,
        "the last encoded step's report landed after the wait"
    );
    assert_eq!(
        (last.pairs, last.pairs_wanted, last.manifolds),
        (want.pairs, want.pairs_wanted, want.manifolds),
        "the encoded world's last step against step() at a capacity that never overflowed"
    );
    assert!(last.advice().is_none(), "{last:?}");
}

/// Steps recorded into one encoder each copy their counters: after one submit and a wait, the
/// newest report is the last step's, whatever the number of steps in the encoder (the ring
/// grows to hold them all instead of skipping).
#[test]
fn every_step_of_a_full_encoder_reports() {
    let ctx = shared_gpu();
    for steps in [1u64, 3, 9] {
        let mut w = pyramid(4096);
        scenes::add_box(
            &mut w,
            Vec3::new(5.0, 3.0, 0.0),
            Vec3::splat(0.3),
            Quat::IDENTITY,
        )
        .expect("box");
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        for _ in 0..steps {
            w.encode_step(DT, &mut encoder).expect("encode");
        }
        ctx.queue.submit([encoder.finish()]);
        ctx.wait().expect("wait");
        let r = w.poll_reports().expect("poll");
        assert_eq!(
            r.step, steps,
            "{steps} steps in one encoder: newest report {r:?}"
        );
        assert_eq!(r.awake, 22, "{r:?}");
    }
}

/// A report of a cut-short broad phase says what happened and what to do.
#[test]
fn a_cut_short_broad_phase_is_advised() {
    let mut r = RigidStepReport::default();
    r.broad_truncated = true;
    let advice = r.advice().expect("advice");
    assert!(
        advice.contains("loop limit") && advice.contains("hardware adapter"),
        "{advice}"
    );
    assert!(RigidStepReport::default().advice().is_none());
}
