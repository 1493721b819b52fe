//! The effect fields: curl-noise turbulence and the vortex. Turbulence's gradients are the
//! derivatives of its noise (second-order finite differences converge on them), so its curl is
//! divergence free; both fields match their closed forms, and the GPU matches the CPU twin.

mod common;

use common::*;
use glam::Vec3;
use wgphys::noise::{curl_noise, noise_value_grad};
use wgphys::particles::{ForceField, Particle, ParticleWorld, WorldConfig};
use wgphys::Backend;
use wgphys::Error;

const DT: f32 = 1.0 / 60.0;

/// Random points in a few lattice cells, away from cell faces by nothing in particular.
fn points(n: usize, seed: u64) -> Vec<Vec3> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.vec3(-3.7, 3.7)).collect()
}

/// Central differences with step h of channel `ch` at `x`, in f64 from the f32 noise.
fn fd_grad(x: Vec3, ch: u32, h: f32) -> [f64; 3] {
    let mut g = [0.0; 3];
    for (axis, gi) in g.iter_mut().enumerate() {
        let mut e = Vec3::ZERO;
        e[axis] = h;
        let (a, b) = (noise_value_grad(x + e, ch).x, noise_value_grad(x - e, ch).x);
        *gi = (f64::from(a) - f64::from(b)) / (2.0 * f64::from(h));
    }
    g
}

/// The analytic gradient is the noise's derivative: the central difference's error shrinks as
/// h² (its truncation term is h²/6 · f'''), so halving h from 0.02 to 0.01 cuts the largest
/// error about four times (more than three here: the f32 rounding of the samples, about
/// 1e-7 / h = 1e-5, stays well below it), and the error at h = 0.01 is a small fraction of the
/// gradient's size. A wrong derivative (a missing fade factor, a swapped coefficient) leaves
/// an O(1) error that does not shrink.
#[test]
fn turbulence_gradients_are_the_noises_derivatives() {
    let pts = points(400, 3);
    for ch in 0..3 {
        let mut worst = [0.0f64; 2];
        let mut size = 0.0f64;
        for &x in &pts {
            let g = noise_value_grad(x, ch);
            let analytic = [f64::from(g.y), f64::from(g.z), f64::from(g.w)];
            for (k, h) in [0.02f32, 0.01].into_iter().enumerate() {
                let fd = fd_grad(x, ch, h);
                for axis in 0..3 {
                    worst[k] = worst[k].max((fd[axis] - analytic[axis]).abs());
                    size = size.max(analytic[axis].abs());
                }
            }
        }
        eprintln!(
            "[measure] channel {ch}: largest FD error {:.3e} (h 0.02), {:.3e} (h 0.01), largest gradient {size:.3}",
            worst[0], worst[1]
        );
        assert!(
            worst[0] > 3.0 * worst[1],
            "channel {ch}: the FD error does not converge as h²: {worst:?}"
        );
        assert!(
            worst[1] < 1e-2 * size,
            "channel {ch}: the FD error {} is not small against the gradient {size}",
            worst[1]
        );
    }
}

/// The curl of a potential is divergence free: the finite-difference divergence of the
/// turbulence (h = 0.01) is the sum of three central-difference errors, each of the size the
/// gradient test above bounds, against diagonal derivatives of order one.
#[test]
fn turbulence_is_divergence_free() {
    let h = 0.01f32;
    let (mut div_sum, mut diag_sum) = (0.0f64, 0.0f64);
    let pts = points(400, 5);
    for &x in &pts {
        let mut div = 0.0f64;
        for axis in 0..3 {
            let mut e = Vec3::ZERO;
            e[axis] = h;
            let d = (f64::from(curl_noise(x + e)[axis]) - f64::from(curl_noise(x - e)[axis]))
                / (2.0 * f64::from(h));
            div += d;
            diag_sum += d.abs();
        }
        div_sum += div.abs();
    }
    let (div, diag) = (
        div_sum / pts.len() as f64,
        diag_sum / (3 * pts.len()) as f64,
    );
    eprintln!("[measure] turbulence: mean |div| {div:.3e}, mean |diagonal derivative| {diag:.3}");
    assert!(
        diag > 0.1,
        "the field is not trivial: mean diagonal derivative {diag}"
    );
    assert!(
        div < 1e-2 * diag,
        "mean |div| {div} against diagonal derivatives of {diag}"
    );
}

/// The turbulence the world tests stir with: scale 0.7 m, strength 5 m/s², scrolling.
const SCALE: f32 = 0.7;
const STRENGTH: f32 = 5.0;
const SCROLL: Vec3 = Vec3::new(0.3, -0.2, 0.5);

fn turbulence() -> ForceField {
    ForceField::Turbulence {
        scale: SCALE,
        strength: STRENGTH,
        scroll: SCROLL,
    }
}

/// The velocity change [`turbulence`] gives a particle at rest at `p` in one step starting at
/// time `t`: strength · curl N((p − scroll·t)/scale) · dt.
fn stirred_dv(p: Vec3, t: f32) -> Vec3 {
    curl_noise((p - SCROLL * t) * (1.0 / SCALE)) * STRENGTH * DT
}

/// `n` particles at rest at seeded points, and the points.
fn at_rest(n: usize, seed: u64) -> (Vec<Vec3>, Vec<Particle>) {
    let starts = points(n, seed);
    let particles = starts.iter().map(|&p| Particle::new(p)).collect();
    (starts, particles)
}

fn world(backend: Backend, fields: Vec<ForceField>, particles: &[Particle]) -> ParticleWorld {
    let mut w = ParticleWorld::new(
        backend,
        WorldConfig {
            capacity: 1024,
            fields,
            ..WorldConfig::default()
        },
    )
    .expect("world");
    for p in particles {
        w.spawn(*p).expect("spawn");
    }
    w.step(DT).expect("the spawn step");
    w
}

/// One step in a turbulence field that has scrolled for a while: the velocity change is
/// strength · curl N((p − scroll·t)/scale) · dt with t the time at the step's start, on both
/// backends, and the GPU agrees with the CPU twin. The noise is about 60 roundings of values
/// of a few units (about 2e-5 relative at strength 5), times dt: 1e-5 m/s covers it with
/// room, on top of an ulp of the velocity.
#[test]
fn turbulence_moves_particles_as_its_closed_form_on_both_backends() {
    let field = turbulence();
    let (_, particles) = at_rest(200, 9);
    let mut snaps = Vec::new();
    for (name, backend) in backends() {
        let mut w = world(backend, vec![field], &particles);
        // 20 steps: the pattern has scrolled by 20·dt·scroll; then one more step, checked.
        for _ in 0..20 {
            w.step(DT).expect("step");
        }
        let before = w.read_snapshot().expect("snapshot");
        let t = 21.0 * DT; // the world's time at the next step's start: 21 steps taken
        w.step(DT).expect("step");
        let after = w.read_snapshot().expect("snapshot");
        for i in 0..before.len() {
            let p = before.pos[i].truncate();
            let want = stirred_dv(p, t);
            let got = (after.vel[i] - before.vel[i]).truncate();
            assert!(
                (got - want).abs().max_element() <= 1e-5 + 1e-6 * before.vel[i].length(),
                "{name} particle {i}: Δv {got} vs {want}"
            );
        }
        snaps.push(after);
    }
    let e = compare_snapshots(
        "turbulence",
        &snaps[1],
        &snaps[0],
        SnapTol {
            // 21 steps of the above per step, fed back through the positions (the field's
            // gradient is a few strength/scale, 30 s⁻², so over 0.35 s a difference grows at
            // most tenfold): 1e-5 · 21 · 10 on velocities, and dt of that on positions.
            pos: Tol {
                rel: 0.0,
                abs: 4e-5,
            },
            vel: Tol {
                rel: 0.0,
                abs: 2.1e-3,
            },
            ..SnapTol::EXACT
        },
    );
    eprintln!("[measure] turbulence, GPU vs CPU after 22 steps: {e}");
}

/// Turbulence given to a world that has stepped without it, then taken away: the GPU compiles
/// its integrate kernel without the noise while no field is turbulence and switches to the
/// kernel with it from the step the field appears. That step's velocity change is the closed
/// form's (the bound of the test above), and once the field is gone velocities stay as they are
/// (no field, no damping: exactly), on both backends.
#[test]
fn turbulence_added_and_removed_mid_run_acts_exactly_while_present() {
    let field = turbulence();
    let (_, particles) = at_rest(100, 11);
    for (name, backend) in backends() {
        let mut w = world(backend, Vec::new(), &particles);
        for _ in 0..5 {
            w.step(DT).expect("step");
        }
        let still = w.read_snapshot().expect("snapshot");
        assert!(
            still.vel.iter().all(|v| v.truncate() == Vec3::ZERO),
            "{name}: no field, no motion"
        );
        w.set_fields(vec![field]).expect("fields");
        // Compiled here on the GPU (the variant with turbulence), rather than by the step.
        w.precompile().expect("precompile");
        let t = 6.0 * DT; // the spawn step and five more
        w.step(DT).expect("step");
        let stirred = w.read_snapshot().expect("snapshot");
        for i in 0..still.len() {
            let p = still.pos[i].truncate();
            let want = stirred_dv(p, t);
            let got = stirred.vel[i].truncate();
            assert!(
                (got - want).abs().max_element() <= 1e-5,
                "{name} particle {i}: Δv {got} vs {want}"
            );
        }
        w.set_fields(Vec::new()).expect("fields");
        w.step(DT).expect("step");
        let after = w.read_snapshot().expect("snapshot");
        for i in 0..after.len() {
            assert_eq!(
                after.vel[i], stirred.vel[i],
                "{name} particle {i}: the velocity changed with no field"
            );
        }
    }
}

/// The aggregate world compiles its integrate kernel with the turbulence field's code only when
/// its (fixed) fields hold turbulence: with some, the first step's velocity change is the
/// closed form's on both backends (the bound of the tests above); a world of the same particles
/// under gravity alone gets g·dt exactly.
#[test]
fn aggregate_particles_feel_turbulence_only_where_it_is() {
    use wgphys::aggregate::{AggregateConfig, AggregateWorld};
    let field = turbulence();
    let g = Vec3::new(0.0, -9.81, 0.0);
    let (starts, particles) = at_rest(64, 13);
    for (name, backend) in backends() {
        for stirred in [true, false] {
            let fields = if stirred {
                vec![field]
            } else {
                vec![ForceField::Gravity(g)]
            };
            let mut w = AggregateWorld::new(
                backend.clone(),
                AggregateConfig {
                    capacity: 64,
                    fields,
                    ..Default::default()
                },
            )
            .expect("aggregate world");
            w.add_particles(&particles).expect("particles");
            w.step(DT).expect("step");
            let snap = w.read_snapshot().expect("snapshot");
            for (i, p) in starts.iter().enumerate() {
                let got = snap.vel[i].truncate();
                if stirred {
                    let want = stirred_dv(*p, 0.0);
                    assert!(
                        (got - want).abs().max_element() <= 1e-5,
                        "{name} particle {i}: Δv {got} vs {want}"
                    );
                } else {
                    assert_eq!(got, g * DT, "{name} particle {i}: gravity alone");
                }
            }
        }
    }
}

/// A vortex about the y axis through (1, 0, 0): a particle at rest at distance d from the axis
/// gains s·dt·d/sqrt(d² + r²) in one step, tangentially (perpendicular to the axis and to the
/// radius, counter-clockwise seen from +y), on both backends.
#[test]
fn a_vortex_turns_particles_about_its_axis() {
    let (centre, strength, softening) = (Vec3::new(1.0, 0.0, 0.0), 4.0f32, 0.5f32);
    let field = ForceField::Vortex {
        centre,
        axis: Vec3::new(0.0, 2.0, 0.0),
        strength,
        softening,
    };
    let offsets = [
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, -0.3),
        Vec3::new(-0.1, -2.0, 0.1),
    ];
    let particles: Vec<Particle> = offsets.iter().map(|&d| Particle::new(centre + d)).collect();
    for (name, backend) in backends() {
        let mut w = world(backend, vec![field], &particles);
        w.step(DT).expect("step");
        let s = w.read_snapshot().expect("snapshot");
        for (i, d) in offsets.iter().enumerate() {
            let radial = Vec3::new(d.x, 0.0, d.z);
            let r = radial.length();
            let tangent = Vec3::Y.cross(radial) / r;
            let want = tangent * (strength * DT * r / (r * r + softening * softening).sqrt());
            let got = s.vel[i].truncate();
            assert!(
                (got - want).abs().max_element() <= 1e-6,
                "{name} particle {i}: v {got} vs {want}"
            );
        }
    }
}

/// Bad fields are refused naming the field; the world is unchanged.
#[test]
fn bad_effect_fields_are_refused() {
    let cases = [
        (
            ForceField::Turbulence {
                scale: 0.0,
                strength: 1.0,
                scroll: Vec3::ZERO,
            },
            "field.turbulence.scale",
        ),
        (
            ForceField::Turbulence {
                scale: 1.0,
                strength: f32::NAN,
                scroll: Vec3::ZERO,
            },
            "field.turbulence.strength",
        ),
        (
            ForceField::Vortex {
                centre: Vec3::ZERO,
                axis: Vec3::ZERO,
                strength: 1.0,
                softening: 0.1,
            },
            "field.vortex.axis",
        ),
        (
            ForceField::Vortex {
                centre: Vec3::ZERO,
                axis: Vec3::Y,
                strength: 1.0,
                softening: 0.0,
            },
            "field.vortex.softening",
        ),
    ];
    let mut w = world(Backend::Cpu, Vec::new(), &[]);
    for (f, what) in cases {
        let r = w.set_fields(vec![f]);
        assert!(
            matches!(&r, Err(Error::InvalidInput { what: w, .. }) if *w == what),
            "{what}: {r:?}"
        );
        assert!(w.config().fields.is_empty(), "{what}: the old fields stay");
    }
}
