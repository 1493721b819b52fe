//! The error model of the rope bridge's run (`scenes::aggregate::bridge`): a mirror of its
//! steps in f64 (`agg_integrate`, semi-implicit Euler under gravity with damping 0.9, then
//! `solve_links`' iterations over the links in colour order, the resting fix of the anchored
//! cables included), operation by operation in the twin's order, run as written and `DRAWS`
//! times with every operation's result moved within what it may differ by between the sides
//! (`common::error_model::Perturbed`; the link solve's model in tests/aggregate_parity/
//! link_model.rs, over a whole run). At each checkpoint the bound on positions and on velocities
//! is the RMS over the draws of the largest difference from the exact run, times the factor one
//! value exceeds with probability 10⁻³. The draws decide the cables' taut or slack and the
//! closing or opening of their ends the way their perturbed values say, so a cable the two
//! sides resolve differently is in the bound with what it does to the run after it.
//!
//! Why not model 2 alone (the drift of the integration's roundings, as before): every step's
//! 64 link iterations round too, the damping factor's difference is the same every step, and a
//! cable at its length decides by rounding; the integration's walk is the smallest part.

use super::*;
use common::error_model::{tail_factor, Perturbed};
use glam::DVec3;
use wgphys::aggregate::Link;

/// Perturbed runs of the mirror.
const DRAWS: u64 = 24;

#[derive(Clone, Copy)]
struct MirrorLink {
    a: usize,
    b: Option<usize>,
    anchor: DVec3,
    rod: bool,
    length: f64,
    restitution: f64,
}

/// The bridge's links in visit order (greedy colours in the order added, then by colour).
fn links(w: &AggregateWorld) -> Vec<MirrorLink> {
    let mut out = Vec::new();
    for (_, l) in w.links() {
        out.push(match l {
            Link::Rod { a, b, length } => MirrorLink {
                a: a.index() as usize,
                b: Some(b.index() as usize),
                anchor: DVec3::ZERO,
                rod: true,
                length: f64::from(length),
                restitution: 0.0,
            },
            Link::Cable {
                a,
                b,
                max_length,
                restitution,
            } => MirrorLink {
                a: a.index() as usize,
                b: Some(b.index() as usize),
                anchor: DVec3::ZERO,
                rod: false,
                length: f64::from(max_length),
                restitution: f64::from(restitution),
            },
            Link::AnchoredRod {
                particle,
                anchor,
                length,
            } => MirrorLink {
                a: particle.index() as usize,
                b: None,
                anchor: anchor.as_dvec3(),
                rod: true,
                length: f64::from(length),
                restitution: 0.0,
            },
            Link::AnchoredCable {
                particle,
                anchor,
                max_length,
                restitution,
            } => MirrorLink {
                a: particle.index() as usize,
                b: None,
                anchor: anchor.as_dvec3(),
                rod: false,
                length: f64::from(max_length),
                restitution: f64::from(restitution),
            },
        });
    }
    let mut used = vec![0u64; 64];
    let mut coloured: Vec<(u32, MirrorLink)> = out
        .into_iter()
        .map(|l| {
            let mut mask = used[l.a];
            if let Some(b) = l.b {
                mask |= used[b];
            }
            let c = (!mask).trailing_zeros();
            used[l.a] |= 1 << c;
            if let Some(b) = l.b {
                used[b] |= 1 << c;
            }
            (c, l)
        })
        .collect();
    coloured.sort_by_key(|(c, _)| *c);
    coloured.into_iter().map(|(_, l)| l).collect()
}

/// Positions and velocities of every slot at one checkpoint.
type Checkpoint = (Vec<DVec3>, Vec<DVec3>);

/// One run of `steps` steps from the bridge's start; the positions and velocities at every
/// 10th step.
fn run(
    start: &AggSnapshot,
    order: &[MirrorLink],
    iterations: u32,
    steps: u32,
    ar: &mut Perturbed,
) -> Vec<Checkpoint> {
    let dt = f64::from(DT);
    let g = DVec3::new(0.0, -9.81, 0.0);
    let mut pos: Vec<DVec3> = start.pos.iter().map(|p| p.xyz().as_dvec3()).collect();
    let mut vel: Vec<DVec3> = start.vel.iter().map(|v| v.xyz().as_dvec3()).collect();
    let damping: Vec<f64> = start.vel.iter().map(|v| f64::from(v.w)).collect();
    // Every deck particle has a mass of 1 kg (the scene's), no force generator, gravity alone.
    let w = 1.0;
    let mut out = Vec::new();
    for s in 1..=steps {
        for i in 0..pos.len() {
            let keep = ar.pow(damping[i], dt);
            let v = ar.madd3(g, dt, vel[i]);
            vel[i] = ar.scale3(v, keep);
            pos[i] = ar.madd3(vel[i], dt, pos[i]);
        }
        for _ in 0..iterations {
            for l in order {
                let total = w + if l.b.is_some() { w } else { 0.0 };
                let pa = pos[l.a];
                let pb = l.b.map_or(l.anchor, |b| pos[b]);
                let d = ar.sub3(pb, pa);
                let len2 = ar.dot3(d, d);
                let len = ar.sqrt(len2);
                if len <= 0.0 {
                    continue;
                }
                let normal = DVec3::new(ar.div(d.x, len), ar.div(d.y, len), ar.div(d.z, len));
                let (n, pen, e) = if !l.rod {
                    if len < l.length {
                        continue;
                    }
                    (normal, ar.sub(len, l.length), l.restitution)
                } else if len == l.length {
                    continue;
                } else if len < l.length {
                    (-normal, ar.sub(l.length, len), 0.0)
                } else {
                    (normal, ar.sub(len, l.length), 0.0)
                };
                let (mut pa, mut va) = (pa, vel[l.a]);
                let (mut pb, mut vb) = (pb, l.b.map_or(DVec3::ZERO, |b| vel[b]));
                let rel = ar.sub3(va, vb);
                let sep = ar.dot3(rel, n);
                if sep <= 0.0 {
                    let mut new_sep = ar.mul(-sep, e);
                    // aa − ab: 0 between two deck particles (both feel g alone, the same bits),
                    // g for an anchored link.
                    if l.b.is_none() {
                        let an = ar.dot3(g, n);
                        let acc_caused = ar.mul(an, dt);
                        if acc_caused < 0.0 {
                            let fix = ar.mul(e, acc_caused);
                            new_sep = ar.add(fix, new_sep).max(0.0);
                        }
                    }
                    let change = ar.sub(new_sep, sep);
                    let impulse = ar.div(change, total);
                    let (ia, ib) = (ar.mul(impulse, w), ar.mul(impulse, w));
                    va = ar.madd3(n, ia, va);
                    if l.b.is_some() {
                        vb = ar.madd3(n, -ib, vb);
                    }
                }
                if pen > 0.0 {
                    let per_w = ar.div(pen, total);
                    let m = ar.scale3(n, per_w);
                    pa = ar.madd3(m, w, pa);
                    if l.b.is_some() {
                        pb = ar.madd3(m, -w, pb);
                    }
                }
                pos[l.a] = pa;
                vel[l.a] = va;
                if let Some(b) = l.b {
                    pos[b] = pb;
                    vel[b] = vb;
                }
            }
        }
        if s % 10 == 0 {
            out.push((pos.clone(), vel.clone()));
        }
    }
    out
}

/// The bounds (position m, velocity m/s) at every 10th of `steps` steps of the bridge in
/// `world` (at its start), and the exact mirror's states there.
pub(super) fn bridge_bounds(
    world: &AggregateWorld,
    steps: u32,
) -> (Vec<[f64; 2]>, Vec<Checkpoint>) {
    let start = world.read_snapshot().expect("snapshot");
    let order = links(world);
    let iterations = world.config().link_iterations;
    let exact = run(&start, &order, iterations, steps, &mut Perturbed::exact());
    let mut sum_sq = vec![[0.0f64; 2]; exact.len()];
    for k in 0..DRAWS {
        let drawn = run(
            &start,
            &order,
            iterations,
            steps,
            &mut Perturbed::drawn(0xb21d + k),
        );
        for (c, ((p, v), (pe, ve))) in drawn.iter().zip(&exact).enumerate() {
            let worst = |a: &[DVec3], b: &[DVec3]| {
                a.iter()
                    .zip(b)
                    .map(|(x, y)| (*x - *y).abs().max_element())
                    .fold(0.0f64, f64::max)
            };
            sum_sq[c][0] += worst(p, pe).powi(2);
            sum_sq[c][1] += worst(v, ve).powi(2);
        }
    }
    let tail = tail_factor(1.0, 1e-3);
    let bounds = sum_sq
        .iter()
        .map(|s| s.map(|x| tail * (x / DRAWS as f64).sqrt()))
        .collect();
    (bounds, exact)
}
