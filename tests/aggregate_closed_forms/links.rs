//! Rods and cables under load (every link within its tolerance at every step), and the two
//! link orders' common rest state.

use super::*;

// ---------------------------------------------------------------------------------------------
// Rods and cables under load
// ---------------------------------------------------------------------------------------------

/// The worst link of `snap`: (largest relative rod length error, its link index) and (largest
/// relative cable excess over the maximum length, its link index).
fn link_errors(snap: &AggSnapshot, links: &[(Link, usize, Option<usize>)]) -> [(f32, usize); 2] {
    let mut worst = [(0.0f32, 0usize); 2];
    for (k, (l, a, b)) in links.iter().enumerate() {
        let pa = snap.pos[*a].xyz();
        let other = |anchor: Vec3| b.map_or(anchor, |b| snap.pos[b].xyz());
        let (e, slot) = match *l {
            Link::Rod { length, .. } => (
                ((pa - other(Vec3::ZERO)).length() - length).abs() / length,
                0,
            ),
            Link::AnchoredRod { anchor, length, .. } => {
                (((pa - other(anchor)).length() - length).abs() / length, 0)
            }
            Link::Cable { max_length, .. } => (
                ((pa - other(Vec3::ZERO)).length() - max_length) / max_length,
                1,
            ),
            Link::AnchoredCable {
                anchor, max_length, ..
            } => (((pa - other(anchor)).length() - max_length) / max_length, 1),
        };
        if e > worst[slot].0 {
            worst[slot] = (e, k);
        }
    }
    worst
}

/// Tracks the worst link error over a run: (error, link, step) for rods and for cables.
#[derive(Default)]
struct WorstLinks([(f32, usize, u32); 2]);

impl WorstLinks {
    fn update(&mut self, step: u32, snap: &AggSnapshot, links: &[(Link, usize, Option<usize>)]) {
        for (w, (e, k)) in self.0.iter_mut().zip(link_errors(snap, links)) {
            if e > w.0 {
                *w = (e, k, step);
            }
        }
    }
}

/// Builds `specs` (rods/cables by particle index) in `w`, returning them with their indices.
fn add_links(
    w: &mut AggregateWorld,
    ids: &[ParticleId],
    specs: &[(bool, usize, Option<usize>, Vec3, f32)],
) -> Vec<(Link, usize, Option<usize>)> {
    specs
        .iter()
        .map(|&(rod, a, b, anchor, length)| {
            let l = match (rod, b) {
                (true, Some(b)) => Link::Rod {
                    a: ids[a],
                    b: ids[b],
                    length,
                },
                (false, Some(b)) => Link::Cable {
                    a: ids[a],
                    b: ids[b],
                    max_length: length,
                    restitution: 0.3,
                },
                (true, None) => Link::AnchoredRod {
                    particle: ids[a],
                    anchor,
                    length,
                },
                (false, None) => Link::AnchoredCable {
                    particle: ids[a],
                    anchor,
                    max_length: length,
                    restitution: 0.3,
                },
            };
            w.add_link(l).expect("link");
            (l, a, b)
        })
        .collect()
}

/// Relative tolerance of a rod's length under load, every step: the requirement.
const ROD_TOL: f32 = 1e-3;
/// How far a cable may exceed its maximum length, relative, every step: the same requirement as
/// a rod's (a cable is a one-sided rod), the solver being the same.
const CABLE_TOL: f32 = 1e-3;

/// Particles 0..=n hanging from `anchor`: 0 on its own link of `len0` to the anchor (a
/// pendulum), 1..=n a horizontal chain of `n` links of 0.5 m from the anchor (1 kg each), all
/// released at rest. Returns the world's particles and the link list.
fn pendulum_and_chain(
    w: &mut AggregateWorld,
    anchor: Vec3,
    rods: bool,
    bob: Particle,
    len0: f32,
    n: usize,
) -> Vec<(Link, usize, Option<usize>)> {
    let mut ps = vec![bob];
    for i in 1..=n {
        ps.push(Particle::new(anchor + Vec3::new(0.0, 0.0, 0.5 * i as f32)));
    }
    let ids = w.add_particles(&ps).expect("particles");
    let mut specs = vec![(rods, 0, None, anchor, len0), (rods, 1, None, anchor, 0.5)];
    for i in 1..n {
        specs.push((rods, i, Some(i + 1), Vec3::ZERO, 0.5));
    }
    add_links(w, &ids, &specs)
}

/// A world of 8 particles under gravity, for the pendulum and the chain.
fn hanging_world(backend: Backend) -> AggregateWorld {
    world(
        backend,
        AggregateConfig {
            capacity: 8,
            fields: gravity(),
            ..Default::default()
        },
    )
}

/// A pendulum (a 10 kg bob on a 1 m anchored rod, released horizontally) and a chain of four
/// 1 kg particles on four 0.5 m rods from the same anchor, released horizontally, so the swing
/// loads every rod with several times its weight. Every step for 5 s, every rod within 1e-3
/// of its length. Default settings: 8 link iterations, 60 Hz.
#[test]
fn rods_keep_their_length_under_load() {
    let anchor = Vec3::new(0.0, 3.0, 0.0);
    // Both backends run before anything is asserted, so a failure reports both.
    let mut results = Vec::new();
    for (name, backend) in backends() {
        let mut w = hanging_world(backend);
        let bob = Particle::new(anchor + Vec3::new(1.0, 0.0, 0.0)).with_mass(10.0);
        let links = pendulum_and_chain(&mut w, anchor, true, bob, 1.0, 4);
        let (mut worst, mut lowest) = (WorstLinks::default(), f32::INFINITY);
        run(&mut w, 1.0 / 60.0, 300, |s, snap| {
            worst.update(s, snap, &links);
            lowest = lowest.min(snap.pos[0].y).min(snap.pos[4].y);
        });
        let (e, k, s) = worst.0[0];
        eprintln!(
            "[measure] {name}: rods, largest relative length error {e:e} (link {k}, step {s})"
        );
        results.push((name, e, k, s, lowest));
    }
    for (name, e, k, s, lowest) in results {
        // The load is real: the pendulum and the chain swung down.
        assert!(
            lowest < anchor.y - 0.9,
            "{name}: neither the pendulum nor the chain swung below y = {}",
            anchor.y - 0.9
        );
        assert!(
            e <= ROD_TOL,
            "{name}: rod {k} (0 the pendulum, 1..=4 the chain from the anchor down) is off its \
             length by {e:e} relative at step {s} (tolerance {ROD_TOL:e})"
        );
    }
}

/// A 2 kg mass dropped from beside its anchor on a 1.5 m cable (restitution 0.3) jerks it taut
/// at ~5 m/s, and a chain of four 1 kg particles on 0.5 m cables swings from horizontal. Every
/// step for 4 s, no cable longer than its maximum by more than 1e-3.
#[test]
fn cables_never_exceed_their_length() {
    let anchor = Vec3::new(0.0, 3.0, 0.0);
    let mut results = Vec::new();
    for (name, backend) in backends() {
        let mut w = hanging_world(backend);
        let bob = Particle::new(anchor + Vec3::new(0.2, 0.0, 0.0)).with_mass(2.0);
        let links = pendulum_and_chain(&mut w, anchor, false, bob, 1.5, 4);
        let (mut worst, mut taut) = (WorstLinks::default(), 0u32);
        run(&mut w, 1.0 / 60.0, 240, |s, snap| {
            worst.update(s, snap, &links);
            if (snap.pos[0].xyz() - anchor).length() > 1.5 * 0.999 {
                taut += 1;
            }
        });
        let (e, k, s) = worst.0[1];
        eprintln!("[measure] {name}: cables, largest relative excess {e:e} (link {k}, step {s})");
        results.push((name, e, k, s, taut));
    }
    for (name, e, k, s, taut) in results {
        assert!(
            taut > 10,
            "{name}: the dropped mass's cable was taut in only {taut} steps; the load never came on"
        );
        assert!(
            e <= CABLE_TOL,
            "{name}: cable {k} (0 the dropped mass, 1..=4 the chain from the anchor down) \
             exceeds its maximum length by {e:e} relative at step {s} (tolerance {CABLE_TOL:e})"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Link resolution orders
// ---------------------------------------------------------------------------------------------

/// A chain hanging between two anchors: an anchored rod, then alternating rods and cables
/// (0.5 m each), and an anchored cable from the last particle to a second anchor 2.5 m away,
/// released horizontally and strongly damped (5% of the velocity kept per second). After 10 s
/// the CPU world with the book's most-severe-first resolver and the one with the GPU's coloured
/// batches must both be at rest, in the same shape.
#[test]
fn both_link_orders_settle_to_the_same_rest_state() {
    // The rest shape is fixed by the lengths, the anchors and gravity; what the two resolvers
    // leave unresolved each step (at most ~1e-3 of a length, see the rod test) may differ.
    // A millimetre is that much of a 0.5 m link, and a hundredth of one: a different
    // equilibrium (a cable slack in one, taut in the other) is centimetres away.
    const REST_TOL: f32 = 1e-3;
    // At rest: no particle moves more than 10 µm over the last second.
    const REST_DRIFT: f32 = 1e-5;
    let (a, b) = (Vec3::new(0.0, 3.0, 0.0), Vec3::new(2.5, 3.0, 0.0));
    let rest = |order: ResolveOrder| {
        let mut w = world(
            Backend::Cpu,
            AggregateConfig {
                capacity: 8,
                fields: gravity(),
                order,
                ..Default::default()
            },
        );
        let ps: Vec<Particle> = (0..6)
            .map(|i| {
                Particle::new(a + Vec3::new(0.5 * (i + 1) as f32, 0.0, 0.0)).with_damping(0.05)
            })
            .collect();
        let ids = w.add_particles(&ps).expect("particles");
        let mut specs = vec![(true, 0, None, a, 0.5)];
        for i in 0..5usize {
            specs.push((i.is_multiple_of(2), i, Some(i + 1), Vec3::ZERO, 0.5));
        }
        specs.push((false, 5, None, b, 0.5));
        let links = add_links(&mut w, &ids, &specs);
        for _ in 0..540 {
            w.step(1.0 / 60.0).expect("step");
        }
        let before = w.read_snapshot().expect("snapshot");
        for _ in 0..60 {
            w.step(1.0 / 60.0).expect("step");
        }
        let s = w.read_snapshot().expect("snapshot");
        let [rod, cable] = link_errors(&s, &links);
        let (drift, i) = max_pos_diff(&before, &s);
        eprintln!(
            "[measure] {order:?} at rest: worst rod error {:e}, cable excess {:e}, drift over \
             the last second {drift:e} m",
            rod.0, cable.0
        );
        assert!(
            drift <= REST_DRIFT,
            "{order:?}: slot {i} still moved {drift} m over the last second of 10"
        );
        s
    };
    let (batches, severe) = (
        rest(ResolveOrder::Batches),
        rest(ResolveOrder::MostSevereFirst),
    );
    let (d, i) = max_pos_diff(&batches, &severe);
    eprintln!("[measure] link orders: rest states {d:e} m apart (slot {i})");
    assert!(
        d <= REST_TOL,
        "rest states differ by {d} m at slot {i}: batches {:?}, most severe first {:?}",
        batches.pos[i].xyz(),
        severe.pos[i].xyz()
    );
    // The chain hangs: its middle sags well below the anchors.
    let sag = 3.0 - batches.pos[2].y;
    assert!(sag > 0.5, "the chain's middle sags only {sag} m");
}
