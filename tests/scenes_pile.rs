//! The pile measure (`src/scenes/pile.rs`) that the benchmark's pour reports: closed forms on
//! built piles. The physics of a poured pile at rest is in `tests/aggregate_closed_forms.rs`.

use glam::{Vec3, Vec4Swizzles};
use wgphys::scenes::pile::pile_metrics;

/// The pile measure the benchmark reports (`scenes::pile::pile_metrics`) on piles whose
/// answers are known in closed form.
///
/// A cone of slope 30° built from columns of grains at ring radii ρ = (k + ½)·d whose top
/// grain sits exactly on the surface h(ρ) = (R − ρ)·tan 30°: the top surface is that line, so
/// the least-squares fit returns tan 30° up to f32 rounding of a few dozen operations on
/// heights below 1 m (relative 1e-6, far under the 0.01° allowed). Three loose grains: two
/// overlapping by 10% of a diameter and one apart give one touching pair of overlap 0.1, and
/// velocities (1, 0, 0), (0, 2, 0), 0 give a mean ½|v|² of (1 + 4)/6.
#[test]
fn the_pile_measure_reads_a_built_cone_and_a_known_pair() {
    let r = 0.02f32;
    let d = 2.0 * r;
    let slope = 30f32.to_radians().tan();
    let rings = 40;
    let big_r = rings as f32 * d;
    let mut pos = Vec::new();
    for k in 0..rings {
        let rho = (k as f32 + 0.5) * d;
        let h = (big_r - rho) * slope;
        // Around the ring, grains a diameter apart; each a column down from the surface.
        let around = ((std::f32::consts::TAU * rho / d) as usize).max(1);
        for a in 0..around {
            let phi = std::f32::consts::TAU * a as f32 / around as f32;
            let mut y = h;
            while y >= 0.0 {
                pos.push(Vec3::new(rho * phi.cos(), y, rho * phi.sin()).extend(0.0));
                y -= d;
            }
        }
    }
    let vel = vec![glam::Vec4::ZERO; pos.len()];
    let m = pile_metrics(&pos, &vel, r, 0.001).expect("a valid cone");
    let angle = m.repose_degrees.expect("a cone has a flank");
    assert!(
        (angle - 30.0).abs() < 0.01,
        "the cone's flank reads {angle}°, not 30°"
    );

    let loose = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(0.9 * d, 0.0, 0.0),
        Vec3::new(10.0, 0.0, 0.0),
    ]
    .map(|p| p.extend(0.0));
    let v = [Vec3::X, 2.0 * Vec3::Y, Vec3::ZERO].map(|v| v.extend(0.0));
    let m = pile_metrics(&loose, &v, r, 0.001).expect("valid grains");
    assert_eq!(m.touching_pairs, 1);
    assert!(
        (m.mean_overlap - 0.1).abs() < 1e-5,
        "overlap {}",
        m.mean_overlap
    );
    assert!(
        (m.worst_overlap - 0.1).abs() < 1e-5,
        "worst {}",
        m.worst_overlap
    );
    assert!((m.mean_kinetic_energy - 5.0 / 6.0).abs() < 1e-6);
    assert_eq!(m.repose_degrees, None, "three grains on a line are no heap");
}

/// The cell search finds every touching pair: on a random cloud around the origin (negative
/// coordinates included, grains on cell boundaries by chance) its pair count and summed overlap
/// equal a brute-force loop over all pairs. Exact: both sides test the same distances.
#[test]
fn the_pile_measure_finds_every_pair_a_brute_force_loop_finds() {
    let (r, slop) = (0.05f32, 0.002f32);
    let mut state = 0x2545_f491u32;
    let mut unit = || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state as f32 / u32::MAX as f32
    };
    let pos: Vec<glam::Vec4> = (0..1500)
        .map(|_| Vec3::new(unit() - 0.5, unit() - 0.5, unit() - 0.5).extend(0.0))
        .collect();
    let vel = vec![glam::Vec4::ZERO; pos.len()];
    let m = pile_metrics(&pos, &vel, r, slop).expect("a valid cloud");
    let (mut pairs, mut worst) = (0u64, 0.0f32);
    for a in 0..pos.len() {
        for b in a + 1..pos.len() {
            let d = (pos[a].xyz() - pos[b].xyz()).length();
            if d < 2.0 * r + slop {
                pairs += 1;
                worst = worst.max((2.0 * r - d).max(0.0));
            }
        }
    }
    assert!(pairs > 100, "the cloud should hold touching pairs, {pairs}");
    assert_eq!(m.touching_pairs, pairs);
    assert_eq!(m.worst_overlap, worst / (2.0 * r));
}

/// Bad input is refused with the field named, not measured into nonsense or a panic.
#[test]
fn the_pile_measure_refuses_bad_input() {
    use wgphys::Error;
    let p = [Vec3::ZERO.extend(0.0), Vec3::X.extend(0.0)];
    let v = [glam::Vec4::ZERO; 2];
    let what = |e: Error| match e {
        Error::InvalidInput { what, .. } => what,
        other => panic!("expected InvalidInput, got {other:?}"),
    };
    let bad = |r: wgphys::Result<_>| what(r.expect_err("bad input was measured"));
    assert_eq!(bad(pile_metrics(&p, &v, 0.0, 0.0)), "pile radius");
    assert_eq!(bad(pile_metrics(&p, &v, f32::NAN, 0.0)), "pile radius");
    assert_eq!(bad(pile_metrics(&p, &v, 0.1, -1.0)), "pile contact slop");
    assert_eq!(bad(pile_metrics(&p, &v[..1], 0.1, 0.0)), "pile velocities");
    let far = [
        Vec3::ZERO.extend(0.0),
        Vec3::new(f32::INFINITY, 0.0, 0.0).extend(0.0),
    ];
    assert_eq!(bad(pile_metrics(&far, &v, 0.1, 0.0)), "pile position");
    let fast = [glam::Vec4::ZERO, glam::Vec4::new(f32::NAN, 0.0, 0.0, 0.0)];
    assert_eq!(bad(pile_metrics(&p, &fast, 0.1, 0.0)), "pile velocity");
    // A finite grain far from the heap is measured, not allocated ring by ring.
    let lone = [
        Vec3::ZERO.extend(0.0),
        Vec3::new(1e30, 0.0, 0.0).extend(0.0),
    ];
    assert!(pile_metrics(&lone, &v, 0.1, 0.0).is_ok());
}
