//! Parity of the lifecycle stages: fireworks bursting into children, and deaths and removals
//! compacting the pool.

use super::*;

/// Launch velocities (lane bound) and gravity of the fireworks spawned by
/// `firework_burst_spawns_identical_children`.
const FW_V: f64 = 10.0;
const FW_G: f64 = 9.81;
/// The book's rules: the widest launch range of a lane (vmax − vmin, types 4 and 5) and the
/// fastest launch lane (type 7), m/s.
const RULE_SPREAD: f64 = 40.0;
const RULE_V: f64 = 60.0;

/// The parents before they burst: at most two integration steps ([`step_model`]); their colour
/// rule.colour·clamp(1 − age/lifetime, 0, 1), recomputed every step from an age and a fuse that
/// are the same bits on both sides (the age one correctly rounded add of dt, the fuse the
/// host's), with age/lifetime ≤ 1 and colours ≤ 1: DIV of the quotient, ROUND of the
/// difference, ROUND of the product, absolute. The acceleration (the rule's gravity, inverse
/// mass 1), size, age and fuse are copies or the same add: exact.
const FIREWORK_PARENTS: SnapTol = {
    let m = step_model(2, FW_V + 2.0 * FW_G * DT64, FW_G);
    SnapTol {
        pos: tol(m[0], m[1]),
        vel: tol(m[2], m[3]),
        colour: tol(0.0, DIV + 2.0 * ROUND),
        ..SnapTol::EXACT
    }
};

/// The children: their parent's position after three steps ([`step_model`]); velocity =
/// parent v + (vmin + (vmax − vmin)·u), the parent's difference after three steps (absolute, at
/// parent speeds ≤ 10.5 m/s), the launch's multiply-add (CONTRACT of ≤ 40 m/s and ROUND of
/// ≤ 60 m/s) and ROUND of the sum; lifetime = amin + (amax − amin)·u, CONTRACT + ROUND of the
/// lifetime (the difference amax − amin is the same bits on both sides); colour, size and
/// acceleration copied from the rule, age 0: exact.
const FIREWORK_CHILDREN: SnapTol = {
    let v = FW_V + 3.0 * FW_G * DT64;
    let m = step_model(3, v, FW_G);
    SnapTol {
        pos: tol(m[0], m[1]),
        vel: tol(
            ROUND,
            m[2] * v + m[3] + CONTRACT * RULE_SPREAD + ROUND * RULE_V,
        ),
        lifetime: tol(CONTRACT + ROUND, 0.0),
        ..SnapTol::EXACT
    }
};

/// `n` fireworks of random types with fuses of 2.5 steps all burst in the 4th step (ages after
/// the integrate steps are 1, 2, 3 dt); their children land in the pool in the same step.
#[test]
fn firework_burst_spawns_identical_children() {
    firework_burst_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn firework_burst_spawns_identical_children_fused_cpu() {
    firework_burst_case(CpuRounding::Fused);
}

fn firework_burst_case(rounding: CpuRounding) {
    let rules = wgphys::fireworks::FireworkRules::book();
    let children = |ty: u32| -> u32 {
        rules.rules[ty as usize - 1]
            .payload
            .iter()
            .map(|&(_, c)| c)
            .sum()
    };
    for n in SIZES {
        let mut rng = Rng::new(0xb_0000 + u64::from(n));
        let fw: Vec<(u32, Vec3, Vec3)> = (0..n)
            .map(|_| {
                (
                    1 + rng.below(9),
                    rng.vec3(-20.0, 20.0) + Vec3::new(0.0, 40.0, 0.0),
                    rng.vec3(-10.0, 10.0),
                )
            })
            .collect();
        let wanted: u32 = fw.iter().map(|f| children(f.0)).sum();
        // The largest case holds fewer children than wanted, so overflow is compared too.
        let capacity = if n > 10_000 { 2 * n } else { n + wanted };
        let (mut g, mut c) = pair(&WorldConfig {
            capacity,
            seed: 77,
            ..WorldConfig::default()
        });
        c.set_cpu_rounding(rounding);
        for &(ty, p, v) in &fw {
            g.spawn_firework(ty, p, v, 2.5 * DT).unwrap();
            c.spawn_firework(ty, p, v, 2.5 * DT).unwrap();
        }
        let label = |s: u32| format!("fireworks n={n} step {s} ({rounding:?} CPU)");
        for s in 1..=3 {
            g.step(DT).unwrap();
            c.step(DT).unwrap();
            let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
            assert_eq!(
                sc.len(),
                n as usize,
                "{}: no firework may burst before its fuse",
                label(s)
            );
            let e = compare_snapshots(&label(s), &sg, &sc, FIREWORK_PARENTS);
            assert_counters_eq(
                &label(s),
                &g.read_counters().unwrap(),
                &c.read_counters().unwrap(),
            );
            report(&label(s), e);
        }
        g.step(DT).unwrap();
        c.step(DT).unwrap();
        let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
        let e = compare_snapshots(&label(4), &sg, &sc, FIREWORK_CHILDREN);
        let (cg, cc) = (g.read_counters().unwrap(), c.read_counters().unwrap());
        assert_counters_eq(&label(4), &cg, &cc);
        report(&label(4), e);

        // Bookkeeping: every parent died, every child was wanted, as many as fit were accepted.
        let accepted = wanted.min(capacity);
        assert_eq!(cc.dead, n, "{}: counters.dead", label(4));
        assert_eq!(
            cc.children_wanted,
            wanted,
            "{}: counters.children_wanted",
            label(4)
        );
        assert_eq!(
            cc.spawn_accepted,
            accepted,
            "{}: counters.spawn_accepted",
            label(4)
        );
        assert_eq!(cc.live, accepted, "{}: counters.live", label(4));
        assert_eq!(
            cc.dropped_total,
            wanted - accepted,
            "{}: counters.dropped_total",
            label(4)
        );
        assert_eq!(cc.next_serial, wanted, "{}: counters.next_serial", label(4));
        // Children: serial ids in payload-rank order, their type's colour, size and fuse range.
        let mut slot = 0usize;
        'parents: for &(ty, ..) in &fw {
            let first = slot;
            for &(cty, count) in &rules.rules[ty as usize - 1].payload {
                for _ in 0..count {
                    if slot >= accepted as usize {
                        break 'parents;
                    }
                    let r = &rules.rules[cty as usize - 1];
                    let l = sc.life[slot];
                    assert_eq!(
                        l.id,
                        GPU_ID_BIT | slot as u32,
                        "{}: slot {slot} life.id",
                        label(4)
                    );
                    assert_eq!(l.kind, cty, "{}: slot {slot} life.kind", label(4));
                    assert!(
                        l.lifetime >= r.age.0 && l.lifetime <= r.age.1,
                        "{}: slot {slot} life.lifetime {} outside {:?}",
                        label(4),
                        l.lifetime,
                        r.age
                    );
                    assert_eq!(
                        sc.colour[slot],
                        r.colour,
                        "{}: slot {slot} colour",
                        label(4)
                    );
                    assert_eq!(sc.size[slot], r.size, "{}: slot {slot} size", label(4));
                    assert_eq!(
                        sc.pos[slot],
                        sc.pos[first],
                        "{}: slot {slot} pos differs from its sibling at {first}",
                        label(4)
                    );
                    slot += 1;
                }
            }
        }
    }
}

/// The lifecycle stages at scale: random lifetimes and random removals kill particles across
/// many scan blocks; survivors compact into the holes and the slot order must be identical.
#[test]
fn deaths_and_removals_compact_identically() {
    deaths_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn deaths_and_removals_compact_identically_fused_cpu() {
    deaths_case(CpuRounding::Fused);
}

fn deaths_case(rounding: CpuRounding) {
    for n in SIZES {
        let mut rng = Rng::new(0xc_0000 + u64::from(n));
        let ps: Vec<Particle> = (0..n)
            .map(|_| {
                let p = random_particle(&mut rng, -50.0, 50.0);
                if rng.chance(0.3) {
                    p.with_lifetime(DT * (0.5 + rng.below(3) as f32))
                } else {
                    p
                }
            })
            .collect();
        let (mut g, mut c, handles) = spawn_both_with_handles(&config(n), &ps, rounding);
        for s in 0..3 {
            let label = format!("deaths n={n} step {s} ({rounding:?} CPU)");
            let live: Vec<u32> = c
                .read_snapshot()
                .unwrap()
                .life
                .iter()
                .map(|l| l.id)
                .collect();
            let mut removed = Vec::new();
            for &id in &live {
                let (hg, hc) = handles[id as usize];
                if rng.chance(0.2) && c.contains(hc) {
                    g.remove(hg).unwrap();
                    c.remove(hc).unwrap();
                    removed.push(id);
                }
            }
            let (sg, sc) = step_and_compare(&label, &mut g, &mut c, THREE_STEPS);
            let ids: std::collections::HashSet<u32> = sc.life.iter().map(|l| l.id).collect();
            assert_eq!(
                ids.len(),
                sc.len(),
                "{label}: duplicate ids after compaction"
            );
            assert_eq!(
                sg.len(),
                c.read_counters().unwrap().live as usize,
                "{label}: snapshot length vs counters.live"
            );
            for id in removed {
                assert!(
                    !ids.contains(&id),
                    "{label}: removed id {id} is still in the pool"
                );
            }
        }
    }
}
