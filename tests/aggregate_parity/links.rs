//! Parity of `solve_links`: a random network of rods and cables (anchored and not, some
//! particles pinned), one step with one link iteration and with eight.

use super::*;

/// A link by slot indices (ids are issued by each world).
#[derive(Clone, Copy, Debug)]
pub(super) struct LinkSpec {
    pub a: u32,
    /// Second particle, or `None` for an anchored link.
    pub b: Option<u32>,
    pub anchor: Vec3,
    pub rod: bool,
    pub length: f32,
    pub restitution: f32,
}

impl LinkSpec {
    fn link(&self, ids: &[ParticleId]) -> Link {
        let a = ids[self.a as usize];
        match (self.b, self.rod) {
            (Some(b), true) => Link::Rod {
                a,
                b: ids[b as usize],
                length: self.length,
            },
            (Some(b), false) => Link::Cable {
                a,
                b: ids[b as usize],
                max_length: self.length,
                restitution: self.restitution,
            },
            (None, true) => Link::AnchoredRod {
                particle: a,
                anchor: self.anchor,
                length: self.length,
            },
            (None, false) => Link::AnchoredCable {
                particle: a,
                anchor: self.anchor,
                max_length: self.length,
                restitution: self.restitution,
            },
        }
    }
}

/// A random network in a 4 m box: `n` particles (masses 0.5–5 kg, speeds to 1 m/s, no damping
/// so the integrate stage leaves velocities alone), ~2n rods and cables between random pairs
/// with lengths 70–120% of the current distance (so most are violated), and with `anchored`
/// n/4 anchored rods and cables and one particle in ten pinned.
fn link_network(rng: &mut Rng, n: u32, anchored: bool) -> (Vec<Particle>, Vec<LinkSpec>) {
    let ps: Vec<Particle> = (0..n)
        .map(|_| {
            let p = Particle::new(rng.vec3(-2.0, 2.0))
                .with_velocity(rng.vec3(-1.0, 1.0))
                .with_size(0.05);
            if anchored && rng.chance(0.1) {
                p.with_inverse_mass(0.0)
            } else {
                p.with_mass(rng.range(0.5, 5.0))
            }
        })
        .collect();
    let mut links = Vec::new();
    let mut add = |rng: &mut Rng, a: u32, b: Option<u32>, anchor: Vec3| {
        let other = b.map_or(anchor, |b| ps[b as usize].position);
        let dist = (ps[a as usize].position - other).length();
        let rod = rng.chance(0.5);
        let length = dist
            * if rod {
                rng.range(0.8, 1.2)
            } else {
                rng.range(0.7, 1.1)
            };
        links.push(LinkSpec {
            a,
            b,
            anchor,
            rod,
            length,
            restitution: if rod { 0.0 } else { rng.unit() },
        });
    };
    for a in 0..n {
        for _ in 0..2 {
            let b = rng.below(n);
            if b != a {
                add(rng, a, Some(b), Vec3::ZERO);
            }
        }
    }
    if anchored {
        for _ in 0..n / 4 {
            let (a, anchor) = (rng.below(n), rng.vec3(-2.0, 2.0));
            add(rng, a, None, anchor);
        }
    }
    (ps, links)
}

fn link_case(n: u32, iterations: u32, anchored: bool, seed: u64, rounding: CpuRounding) {
    let mut rng = Rng::new(seed);
    let (ps, links) = link_network(&mut rng, n, anchored);
    let config = AggregateConfig {
        capacity: n,
        link_iterations: iterations,
        ..Default::default()
    };
    let (mut g, mut c) = both(&config, rounding, &ps, |w, ids| {
        for l in &links {
            w.add_link(l.link(ids)).expect("add_link");
        }
    });
    let label = format!(
        "links n={n} links={} iterations={iterations} anchored={anchored} ({rounding:?} CPU)",
        links.len(),
    );
    // Every slot's position and velocity within the link model's bounds (link_model.rs: the
    // solve's own propagation of what each operation may differ by, decisions included), the
    // alive flags and damping exactly. The unperturbed mirror of the solve must agree with the
    // twin within the same bounds.
    let ([pos_bound, vel_bound], mirror_pos, mirror_vel) =
        super::link_model::link_bound(&ps, &links, iterations, seed);
    let tol = |x: f64| Tol {
        rel: 0.0,
        abs: x as f32,
    };
    let (sg, sc) = step_compare(&label, &mut g, &mut c, tol(pos_bound), tol(vel_bound));
    let mirror_err = (0..ps.len())
        .map(|i| {
            let dp = (d3(sc.pos[i].xyz()) - mirror_pos[i]).abs().max_element();
            let dv = (d3(sc.vel[i].xyz()) - mirror_vel[i]).abs().max_element();
            (dp, dv)
        })
        .fold((0.0f64, 0.0f64), |m, x| (m.0.max(x.0), m.1.max(x.1)));
    eprintln!(
        "[measure] {label}: model bounds {pos_bound:.2e} m, {vel_bound:.2e} m/s; the f64 mirror \
         against the twin {:.2e} m, {:.2e} m/s",
        mirror_err.0, mirror_err.1
    );
    assert!(
        mirror_err.0 <= pos_bound && mirror_err.1 <= vel_bound,
        "{label}: the model's mirror of the solve is {mirror_err:?} from the twin, beyond its \
         bounds: it does not model this solve"
    );
    assert_eq!(
        g.link_colours(),
        c.link_colours(),
        "{label}: both backends colour the links alike"
    );
    assert!(
        c.link_colours() >= 4,
        "{label}: only {} colours; the case is meant to exercise many batches",
        c.link_colours()
    );
    // The solve must act: most links start violated and many particles move by centimetres or
    // more beyond the free flight p0 + v0·dt.
    let moved = ps
        .iter()
        .enumerate()
        .filter(|(i, p)| (sc.pos[*i].xyz() - (p.position + p.velocity * DT)).length() > 1e-2)
        .count();
    eprintln!(
        "[measure] {label}: {} colours, {moved} of {} particles moved by the links",
        c.link_colours(),
        ps.len()
    );
    assert!(
        2 * moved >= ps.len(),
        "{label}: only {moved} of {} particles were moved by the links",
        ps.len()
    );
    if !anchored {
        // Every link exchanges equal and opposite impulses and mass-weighted position
        // corrections: total momentum and the centre of mass's free flight survive the solve.
        for (name, s) in [("gpu", &sg), ("cpu", &sc)] {
            let (mut p0, mut p1, mut x0, mut x1, mut scale_p, mut scale_x) = (
                DVec3::ZERO,
                DVec3::ZERO,
                DVec3::ZERO,
                DVec3::ZERO,
                0.0f64,
                0.0f64,
            );
            for (i, p) in ps.iter().enumerate() {
                let m = 1.0 / f64::from(p.inverse_mass);
                p0 += d3(p.velocity) * m;
                p1 += d3(s.vel[i].xyz()) * m;
                x0 += (d3(p.position) + d3(p.velocity) * f64::from(DT)) * m;
                x1 += d3(s.pos[i].xyz()) * m;
                scale_p += m * d3(s.vel[i].xyz()).length().max(d3(p.velocity).length());
                scale_x += m * d3(s.pos[i].xyz()).length().max(d3(p.position).length());
            }
            let (dp, dx) = ((p1 - p0).length() / scale_p, (x1 - x0).length() / scale_x);
            eprintln!("[measure] {label} {name}: momentum drift {dp:.2e}, centre-of-mass drift {dx:.2e} (relative)");
            assert!(
                dp <= CONSERVED,
                "{label} {name}: total momentum {p1:?} vs {p0:?} before the solve (relative {dp:e})"
            );
            assert!(
                dx <= CONSERVED,
                "{label} {name}: mass-weighted position sum {x1:?} vs {x0:?} (relative {dx:e})"
            );
        }
    }
}

/// Relative drift of total momentum and of Σ m·p through a link solve. Each link resolution
/// changes the two ends by exactly opposite amounts up to rounding, so each adds an ulp or so
/// of the particles' momentum; with ~4 links per particle and up to eight iterations, that is a
/// few dozen roundings of terms the size of the scale. 1e-5 relative is 80 ulps; an impulse
/// applied to one end only breaks it by the impulse itself, percent of the scale.
const CONSERVED: f64 = 1e-5;

#[test]
fn links_one_iteration() {
    link_case(300, 1, false, 0xb_0100, CpuRounding::Separate);
    link_case(300, 1, true, 0xb_0200, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn links_one_iteration_fused_cpu() {
    link_case(300, 1, false, 0xb_0100, CpuRounding::Fused);
    link_case(300, 1, true, 0xb_0200, CpuRounding::Fused);
}

#[test]
fn links_eight_iterations() {
    link_case(300, 8, false, 0xb_0300, CpuRounding::Separate);
    link_case(300, 8, true, 0xb_0400, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model): the fused twin
/// decides a few links the other way, as the model's draws do (link_model.rs).
#[test]
fn links_eight_iterations_fused_cpu() {
    link_case(300, 8, false, 0xb_0300, CpuRounding::Fused);
    link_case(300, 8, true, 0xb_0400, CpuRounding::Fused);
}
