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
//! colouring of `AggregateWorld`), run once as written and `DRAWS` times with every operation's
//! result moved by a uniform draw within what it may differ by between the sides (model 2 of
//! `common::error_model`: ±ROUND·u for `+`, `−`, `*`, ±CONTRACT·u more for a product a compiler
//! may fuse, DOT3, LENGTH and DIV for the dot products, lengths and quotients, POW for the
//! damping factor; relative to the result). The decisions go whichever way their perturbed
//! values say, so the draws flip the links that sit at their length as often as the two sides
//! may. The bound on each of position and velocity is the RMS over the draws of the largest
//! difference from the unperturbed run, times the Gaussian factor one value exceeds with
//! probability 10⁻³ (`common::error_model::tail_factor`), as the rigid solver's model does.
//! The unperturbed mirror must itself agree with the twin within the bound: a mirror that
//! drifted from the solver it models would not.

use super::links::LinkSpec;
use super::*;
use common::error_model::{tail_factor, UNIT_ROUNDOFF as UR};

/// Perturbed runs of the mirror.
const DRAWS: u64 = 32;

/// The mirror's arithmetic: as written (`rng` None), or each result moved by a uniform draw of
/// ±cost·u of itself.
struct Arith {
    rng: Option<Rng>,
}

impl Arith {
    fn r(&mut self, x: f64, cost: f64) -> f64 {
        match &mut self.rng {
            None => x,
            Some(rng) => x * (1.0 + cost * UR * (2.0 * f64::from(rng.unit()) - 1.0)),
        }
    }
    fn r3(&mut self, v: DVec3, cost: f64) -> DVec3 {
        DVec3::new(self.r(v.x, cost), self.r(v.y, cost), self.r(v.z, cost))
    }
    /// `a·b + c` per lane: the product may be fused (CONTRACT), the sum rounds.
    fn madd3(&mut self, a: DVec3, b: f64, c: DVec3) -> DVec3 {
        let p = self.r3(a * b, CONTRACT);
        self.r3(p + c, ROUND)
    }
    fn dot(&mut self, a: DVec3, b: DVec3) -> f64 {
        self.r(a.dot(b), DOT3)
    }
    fn length(&mut self, a: DVec3) -> f64 {
        self.r(a.length(), LENGTH)
    }
}

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
fn run(ps: &[Particle], order: &[LinkSpec], iterations: u32, ar: &mut Arith) -> State {
    let dt = f64::from(DT);
    let mut s = State {
        pos: ps.iter().map(|p| d3(p.position)).collect(),
        vel: ps.iter().map(|p| d3(p.velocity)).collect(),
        w: ps.iter().map(|p| f64::from(p.inverse_mass)).collect(),
    };
    for i in 0..ps.len() {
        if s.w[i] > 0.0 {
            let keep = ar.r(1.0, POW);
            let v = ar.r3(s.vel[i] * keep, ROUND);
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
            let d = ar.r3(pb - pa, ROUND);
            let len = ar.length(d);
            if len <= 0.0 {
                continue;
            }
            let normal = ar.r3(d / len, DIV);
            let length = f64::from(l.length);
            let (n, pen, e) = if !l.rod {
                if len < length {
                    continue;
                }
                (normal, ar.r(len - length, ROUND), f64::from(l.restitution))
            } else if len == length {
                continue;
            } else if len < length {
                (-normal, ar.r(length - len, ROUND), 0.0)
            } else {
                (normal, ar.r(len - length, ROUND), 0.0)
            };
            let (mut pa, mut va) = (pa, s.vel[a]);
            let (mut pb, mut vb) = (pb, l.b.map_or(DVec3::ZERO, |b| s.vel[b as usize]));
            let rel = ar.r3(va - vb, ROUND);
            let sep = ar.dot(rel, n);
            if sep <= 0.0 {
                // No accelerations here: acc_caused is 0, the resting fix does not apply.
                let new_sep = ar.r(-sep * e, ROUND);
                let change = ar.r(new_sep - sep, ROUND);
                let impulse = ar.r(change / total, DIV);
                let (ia, ib) = (ar.r(impulse * wa, ROUND), ar.r(impulse * wb, ROUND));
                va = ar.madd3(n, ia, va);
                vb = ar.madd3(n, -ib, vb);
            }
            if pen > 0.0 {
                let per_w = ar.r(pen / total, DIV);
                let move_per_w = ar.r3(n * per_w, ROUND);
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
    let base = run(ps, &order, iterations, &mut Arith { rng: None });
    let mut sum_sq = [0.0f64; 2];
    for k in 0..DRAWS {
        let mut ar = Arith {
            rng: Some(Rng::new(seed ^ (0x11_7e5 + k))),
        };
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
