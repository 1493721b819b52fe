//! Stage `colour` (`src/rigid/colour.rs`, `shaders/rigid/colour.wgsl`): the greedy colouring
//! that batches contacts sharing no moving body, on hand-built and random scenes: every batch
//! independent, the result deterministic and the first-fit order of the claim priorities, and
//! a body with more contacts than the colours overflowing into the sequential colour. The GPU's
//! rounds against the CPU twin are in `rigid_solver_passes`.

mod common;

use common::rigid::solver::{dynamic, manifold, params, random_scene, static_body};
use common::Rng;
use glam::Vec3;
use wgphys::rigid::solver::*;
use wgphys::rigid::types::*;

fn sphere(pos: Vec3, mass: f32, r: f32) -> GpuBody {
    dynamic(
        pos,
        mass,
        Vec3::splat(0.4 * mass * r * r),
        glam::Quat::IDENTITY,
    )
}

// ---------------------------------------------------------------------------------------------
// Colouring.

fn check_colouring(bodies: &[GpuBody], ms: &[GpuManifold], c: &Colouring) {
    // Sleeping dynamic bodies count as static in the solver (they are never written), so only
    // awake ones must be kept apart.
    let dynamic = |i: u32| {
        i != NONE && bodies[i as usize].kind == body_kind::DYNAMIC && bodies[i as usize].awake != 0
    };
    for col in 0..SEQUENTIAL_COLOUR {
        let mut seen = std::collections::HashSet::new();
        for &k in c.batch(col) {
            let m = &ms[k as usize];
            assert_eq!(m.colour, col, "manifold {k} sorted into colour {col}");
            for b in [m.body_a, m.body_b] {
                if dynamic(b) {
                    assert!(
                        seen.insert(b),
                        "colour {col}: dynamic body {b} in two manifolds (second: {k})"
                    );
                }
            }
        }
    }
    // Every manifold with points and an awake dynamic body is in exactly one batch.
    let mut placed = vec![0u32; ms.len()];
    for &k in &c.order {
        placed[k as usize] += 1;
    }
    for (k, m) in ms.iter().enumerate() {
        let needs = m.count > 0
            && [m.body_a, m.body_b]
                .iter()
                .any(|&b| dynamic(b) && bodies[b as usize].awake != 0);
        assert_eq!(
            placed[k],
            u32::from(needs),
            "manifold {k} placed {} times",
            placed[k]
        );
    }
    assert_eq!(c.colour_start[MAX_COLOURS as usize] as usize, c.order.len());
}

#[test]
fn colouring_separates_dynamic_bodies_and_is_deterministic() {
    let mut rng = Rng::new(3);
    for (n, pairs) in [(10u32, 30u32), (50, 200), (200, 300)] {
        let (mut bodies, mut ms) = random_scene(&mut rng, n, pairs);
        bodies[1].awake = 0;
        ms[2].count = 0;
        let c1 = colour(&bodies, &mut ms);
        check_colouring(&bodies, &ms, &c1);
        let c2 = colour(&bodies, &mut ms.clone());
        assert_eq!(c1, c2, "colouring is not deterministic");
        assert_eq!(c1.uncoloured, 0);
        assert!(
            c1.colour_count < SEQUENTIAL_COLOUR,
            "{} colours",
            c1.colour_count
        );
    }
    // An index-ordered chain (manifold k joins bodies k and k+1) needs few colours.
    let bodies: Vec<GpuBody> = (0..101)
        .map(|i| sphere(Vec3::new(i as f32, 0.0, 0.0), 1.0, 0.5))
        .collect();
    let mut ms: Vec<GpuManifold> = (0..100)
        .map(|k| {
            manifold(
                k,
                k + 1,
                (k, k + 1),
                Vec3::X,
                &[(Vec3::ZERO, 0.01)],
                0.5,
                0.0,
            )
        })
        .collect();
    let c = colour(&bodies, &mut ms);
    check_colouring(&bodies, &ms, &c);
    assert!(
        c.colour_count <= 4,
        "a chain took {} colours",
        c.colour_count
    );
}

/// The colouring is the greedy (first-fit) colouring in decreasing claim priority: the
/// parallel rounds reach the same colours as this one-at-a-time reference.
#[test]
fn colouring_rounds_give_the_greedy_colouring_in_priority_order() {
    let mut rng = Rng::new(17);
    for (n, pairs) in [(30u32, 60u32), (200, 600), (1000, 4000)] {
        let (bodies, mut ms) = random_scene(&mut rng, n, pairs);
        let c = colour(&bodies, &mut ms);
        check_colouring(&bodies, &ms, &c);
        assert!(
            c.rounds < COLOUR_ROUNDS && c.uncoloured == 0,
            "{n} bodies: {} rounds, {} uncoloured",
            c.rounds,
            c.uncoloured
        );
        let dynamic = |i: u32| {
            i != NONE
                && bodies[i as usize].kind == body_kind::DYNAMIC
                && bodies[i as usize].awake != 0
        };
        let mut by_priority: Vec<usize> = (0..ms.len())
            .filter(|&k| ms[k].count > 0 && (dynamic(ms[k].body_a) || dynamic(ms[k].body_b)))
            .collect();
        by_priority.sort_by_key(|&k| std::cmp::Reverse(claim_priority(k as u32)));
        let mut masks = vec![0u32; bodies.len()];
        let mut want = vec![NONE; ms.len()];
        for k in by_priority {
            let m = &ms[k];
            let ends: Vec<usize> = [m.body_a, m.body_b]
                .into_iter()
                .filter(|&b| dynamic(b))
                .map(|b| b as usize)
                .collect();
            let used = ends.iter().fold(0, |acc, &b| acc | masks[b]);
            let col = (!used).trailing_zeros();
            for &b in &ends {
                masks[b] |= 1 << col;
            }
            want[k] = col;
        }
        assert_eq!(c.colours, want, "{n} bodies: not the greedy colouring");
        assert_eq!(c.colours_wanted, c.colour_count);
    }
}

#[test]
fn a_star_of_100_contacts_overflows_into_the_sequential_colour() {
    let bodies: Vec<GpuBody> = (0..101)
        .map(|i| sphere(Vec3::new(i as f32, 0.0, 0.0), 1.0, 0.5))
        .collect();
    let mut ms: Vec<GpuManifold> = (1..101)
        .map(|k| manifold(0, k, (0, k), Vec3::X, &[(Vec3::ZERO, 0.01)], 0.5, 0.0))
        .collect();
    let c = colour(&bodies, &mut ms);
    check_colouring(&bodies, &ms, &c);
    assert_eq!(c.colour_count, MAX_COLOURS);
    assert_eq!(c.uncoloured, 100 - (MAX_COLOURS - 1));
    assert_eq!(c.batch(SEQUENTIAL_COLOUR).len() as u32, c.uncoloured);
    let batch = c.batch(SEQUENTIAL_COLOUR);
    assert!(
        batch.windows(2).all(|w| w[0] < w[1]),
        "sequential colour not in index order"
    );
    for col in 0..SEQUENTIAL_COLOUR {
        assert_eq!(c.batch(col).len(), 1, "colour {col}");
    }
    let mut b2 = bodies.clone();
    let report = solve(&params(101, 100), &mut b2, &mut ms, &[]);
    assert_eq!(
        report.uncoloured, c.uncoloured,
        "the report names the overflow"
    );
    // A static hub is shared freely: one colour.
    let mut bodies = bodies;
    bodies[0] = static_body(Vec3::ZERO);
    let c = colour(&bodies, &mut ms);
    assert_eq!((c.colour_count, c.uncoloured), (1, 0));
}
