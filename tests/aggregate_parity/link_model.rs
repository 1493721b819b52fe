//! The error model of a link solve (replacing bounds read from adapters): what the GPU's and
//! the twin's positions and velocities may differ by after `agg_integrate` and `solve_links`,
//! propagated by the solve itself.
//!
//! **Why not a worst case.** A visit moves its link's ends by a depth measured along the normal
//! of positions earlier visits moved, so every visit passes its ends' differences on. In the
//! worst case (all aligned) a visit maps the ends' differences (δa, δb) to ones up to √(1 + s²)
//! times the larger (s the end's share of the inverse mass: the normal and perpendicular parts
//! mix differently), and a compressed rod stretches them by 1 + s(L/len − 1); over the ~32
//! visits a particle sees in eight iterations that is 10⁴-fold and more, while the solve
//! averages differences much more than it aligns them. And a link left at its rest length by an
//! earlier iteration decides by rounding whether it pushes or pulls (a rod) or is taut (a
//! cable): a flip changes the ends' velocities by up to (1 + e)·s·|va − vb|, a jump no
//! derivative bounds, on as many links as sit at their length.
//!
//! **The model** ([`link_bound`]): a mirror of the two stages in f64, the same operations in the
//! same order (visits colour by colour, links within a colour in the order added: the greedy
//! colouring of `AggregateWorld`), run once as written and `DRAWS` times with every elementary
//! operation's result moved by a uniform draw within what it may differ by between the sides
//! (`common::error_model::Perturbed`: ±ROUND·u for `+` and `−`, ±(ROUND + CONTRACT)·u for a
//! product a compiler may fuse, DIV, SQRT and POW, each relative to its own result). The decisions go whichever way their perturbed
//! values say, so the draws flip the links that sit at their length as often as the two sides
//! may. The bound on each of position and velocity is the RMS over the draws of the largest
//! difference from the unperturbed run, times the Gaussian factor one value exceeds with
//! probability 10⁻³ (`common::error_model::tail_factor`), as the rigid solver's model does.
//! The unperturbed mirror must itself agree with the twin within the bound: a mirror that
//! drifted from the solver it models would not.

use super::links::LinkSpec;
use super::*;
use common::error_model::{tail_factor, Perturbed};

/// Perturbed runs of the mirror.
const DRAWS: u64 = 32;

/// The mirror's state.
#[derive(Clone)]
struct State {
    pos: Vec<DVec3>,
    vel: Vec<DVec3>,
    w: Vec<f64>,
}

/// The links in the order the solve visits them: greedy colours in the order added (the lowest
/// colour free at both ends), then by colour, stably.
fn visit_order(links: &[LinkSpec], n: usize) -> Vec<LinkSpec> {
    let mut used = vec![0u64; n];
    let mut coloured: Vec<(u32, LinkSpec)> = Vec::new();
    for l in links {
        let mut mask = used[l.a as usize];
        if let Some(b) = l.b {
            mask |= used[b as usize];
        }
        let c = (!mask).trailing_zeros();
        used[l.a as usize] |= 1 << c;
        if let Some(b) = l.b {
            used[b as usize] |= 1 << c;
        }
        coloured.push((c, *l));
    }
    coloured.sort_by_key(|(c, _)| *c);
    coloured.into_iter().map(|(_, l)| l).collect()
}

/// `agg_integrate` (semi-implicit, no forces: v·pow(1, dt), then p + v·dt) and `solve_links`
/// (`solve_link` in src/aggregate/cpu.rs, line by line) in f64 with `ar`'s arithmetic.
fn run(ps: &[Particle], order: &[LinkSpec], iterations: u32, ar: &mut Perturbed) -> State {
    let dt = f64::from(DT);
    let mut s = State {
        pos: ps.iter().map(|p| d3(p.position)).collect(),
        vel: ps.iter().map(|p| d3(p.velocity)).collect(),
        w: ps.iter().map(|p| f64::from(p.inverse_mass)).collect(),
    };
    for i in 0..ps.len() {
        if s.w[i] > 0.0 {
            let keep = ar.pow(1.0, dt);
            let v = ar.scale3(s.vel[i], keep);
            s.vel[i] = v;
            s.pos[i] = ar.madd3(v, dt, s.pos[i]);
        }
    }
    for _ in 0..iterations {
        for l in order {
            let a = l.a as usize;
            let wa = s.w[a];
            let wb = l.b.map_or(0.0, |b| s.w[b as usize]);
            let total = wa + wb; // the same operands on both sides: the same bits
            if total <= 0.0 {
                continue;
            }
            let pa = s.pos[a];
            let pb = l.b.map_or(d3(l.anchor), |b| s.pos[b as usize]);
            let d = ar.sub3(pb, pa);
            let len2 = ar.dot3(d, d);
            let len = ar.sqrt(len2);
            if len <= 0.0 {
                continue;
            }
            let normal = DVec3::new(ar.div(d.x, len), ar.div(d.y, len), ar.div(d.z, len));
            let length = f64::from(l.length);
            let (n, pen, e) = if !l.rod {
                if len < length {
                    continue;
                }
                (normal, ar.sub(len, length), f64::from(l.restitution))
            } else if len == length {
                continue;
            } else if len < length {
                (-normal, ar.sub(length, len), 0.0)
            } else {
                (normal, ar.sub(len, length), 0.0)
            };
            let (mut pa, mut va) = (pa, s.vel[a]);
            let (mut pb, mut vb) = (pb, l.b.map_or(DVec3::ZERO, |b| s.vel[b as usize]));
            let rel = ar.sub3(va, vb);
            let sep = ar.dot3(rel, n);
            if sep <= 0.0 {
                // No accelerations here: acc_caused is 0, the resting fix does not apply.
                let new_sep = ar.mul(-sep, e);
                let change = ar.sub(new_sep, sep);
                let impulse = ar.div(change, total);
                let (ia, ib) = (ar.mul(impulse, wa), ar.mul(impulse, wb));
                va = ar.madd3(n, ia, va);
                vb = ar.madd3(n, -ib, vb);
            }
            if pen > 0.0 {
                let per_w = ar.div(pen, total);
                let move_per_w = ar.scale3(n, per_w);
                pa = ar.madd3(move_per_w, wa, pa);
                pb = ar.madd3(move_per_w, -wb, pb);
            }
            s.pos[a] = pa;
            s.vel[a] = va;
            if let Some(b) = l.b {
                s.pos[b as usize] = pb;
                s.vel[b as usize] = vb;
            }
        }
    }
    s
}

/// The model's bounds (position m, velocity m/s) for a solve of `links` over `ps`, and the
/// unperturbed mirror's state (positions, velocities).
pub(super) fn link_bound(
    ps: &[Particle],
    links: &[LinkSpec],
    iterations: u32,
    seed: u64,
) -> ([f64; 2], Vec<DVec3>, Vec<DVec3>) {
    let order = visit_order(links, ps.len());
    let base = run(ps, &order, iterations, &mut Perturbed::exact());
    let mut sum_sq = [0.0f64; 2];
    for k in 0..DRAWS {
        let mut ar = Perturbed::drawn(seed ^ (0x11_7e5 + k));
        let s = run(ps, &order, iterations, &mut ar);
        let worst = |a: &[DVec3], b: &[DVec3]| {
            a.iter()
                .zip(b)
                .map(|(x, y)| (*x - *y).abs().max_element())
                .fold(0.0f64, f64::max)
        };
        let (dp, dv) = (worst(&s.pos, &base.pos), worst(&s.vel, &base.vel));
        sum_sq[0] += dp * dp;
        sum_sq[1] += dv * dv;
    }
    let tail = tail_factor(1.0, 1e-3);
    let bound = sum_sq.map(|x| tail * (x / DRAWS as f64).sqrt());
    (bound, base.pos, base.vel)
}
