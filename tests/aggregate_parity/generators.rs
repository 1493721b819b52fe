//! Parity of `agg_integrate` once per force-generator kind, GPU against CPU and both against
//! the f64 reference ([`super::generator_model`]).

use super::generator_model::*;
use super::*;

/// A random particle in a 10 m box: speeds to ~9 m/s, own accelerations to 2 m/s², damping in
/// [0.5, 1] (exactly 1 for one in five), masses 0.5–10 kg, one in ten immovable.
fn random_particle(rng: &mut Rng) -> Particle {
    let damping = if rng.chance(0.2) {
        1.0
    } else {
        rng.range(0.5, 1.0)
    };
    let p = Particle::new(rng.vec3(-5.0, 5.0))
        .with_velocity(rng.vec3(-5.0, 5.0))
        .with_acceleration(rng.vec3(-2.0, 2.0))
        .with_damping(damping)
        .with_size(0.1);
    if rng.chance(0.1) {
        p.with_inverse_mass(0.0)
    } else {
        p.with_mass(rng.range(0.5, 10.0))
    }
}

/// One step of `agg_integrate` with random generators of `kind`, GPU vs CPU and both vs the f64
/// reference, each slot within the model's bound ([`expected_step`]).
fn generator_case(kind: Kind, seed: u64, rounding: CpuRounding) {
    let ids = |n: u32| -> Vec<ParticleId> {
        // Ids are slot indices in add order (checked in `both`); a throwaway world issues them.
        let mut w = AggregateWorld::new(
            Backend::Cpu,
            AggregateConfig {
                capacity: n,
                ..Default::default()
            },
        )
        .expect("id world");
        w.add_particles(&vec![Particle::new(Vec3::ZERO); n as usize])
            .expect("ids")
    };
    let sizes: [u32; 3] = if kind.two_ended() {
        [2, 63, 1000]
    } else {
        [1, 63, 1000]
    };
    for n in sizes {
        let mut rng = Rng::new(seed + u64::from(n));
        let ps: Vec<Particle> = (0..n).map(|_| random_particle(&mut rng)).collect();
        // Three generators per particle on average (at least three in all), so most particles
        // gather several, and two-ended ones are shared by both ends.
        let count = (3 * n).max(3);
        let ids = ids(n);
        let gens: Vec<ForceGenerator> = (0..count)
            .map(|_| random_gen(kind, &mut rng, &ids))
            .collect();
        let config = AggregateConfig {
            capacity: n,
            ..Default::default()
        };
        let (mut g, mut c) = both(&config, rounding, &ps, |w, own| {
            for gen in &gens {
                // The throwaway world's handles, as this world's (the same slots).
                let gen = gen.map_particles(|p| own[p.index() as usize]);
                w.add_generator(gen).expect("add_generator");
            }
        });
        let label = format!("{kind:?} n={n} generators={count} ({rounding:?} CPU)");
        g.step(DT).expect("gpu step");
        c.step(DT).expect("cpu step");
        let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
        let exp = expected_step(kind, &ps, &gens);
        let [dp, dv, used] = check_parity(&label, &sg, &sc, &exp);
        let used_c = check_reference(&format!("cpu {label}"), &sc, &ps, &exp);
        let used_g = check_reference(&format!("gpu {label}"), &sg, &ps, &exp);
        eprintln!(
            "[measure] {label}: pos max |diff| {dp:.2e}, vel max |diff| {dv:.2e} ({:.1}% of the \
             model); vs f64 reference, cpu {:.1}% gpu {:.1}%",
            100.0 * used,
            100.0 * used_c,
            100.0 * used_g
        );
        // The generators must act: particles they touch leave the generator-free update by far
        // more than any bound (1e-3 m/s).
        let mut touched = vec![false; n as usize];
        for gen in &gens {
            let (a, b) = gen.particles();
            touched[a.index() as usize] = true;
            if let Some(b) = b {
                touched[b.index() as usize] = true;
            }
        }
        let (mut acted, mut eligible) = (0, 0);
        for (i, p) in ps.iter().enumerate() {
            if !touched[i] || p.inverse_mass == 0.0 {
                continue;
            }
            let free = (p.velocity + p.acceleration * DT) * p.damping.powf(DT);
            eligible += 1;
            acted += usize::from((sc.vel[i].xyz() - free).length() > 1e-3);
        }
        assert!(
            2 * acted >= eligible,
            "{label}: the generators changed only {acted} of {eligible} velocities"
        );
    }
}

#[test]
fn generator_spring() {
    generator_case(Kind::Spring, 0xa_0100, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_spring_fused_cpu() {
    generator_case(Kind::Spring, 0xa_0100, CpuRounding::Fused);
}

#[test]
fn generator_anchored_spring() {
    generator_case(Kind::AnchoredSpring, 0xa_0200, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_anchored_spring_fused_cpu() {
    generator_case(Kind::AnchoredSpring, 0xa_0200, CpuRounding::Fused);
}

#[test]
fn generator_bungee() {
    generator_case(Kind::Bungee, 0xa_0300, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_bungee_fused_cpu() {
    generator_case(Kind::Bungee, 0xa_0300, CpuRounding::Fused);
}

#[test]
fn generator_anchored_bungee() {
    generator_case(Kind::AnchoredBungee, 0xa_0400, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_anchored_bungee_fused_cpu() {
    generator_case(Kind::AnchoredBungee, 0xa_0400, CpuRounding::Fused);
}

#[test]
fn generator_buoyancy() {
    generator_case(Kind::Buoyancy, 0xa_0500, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_buoyancy_fused_cpu() {
    generator_case(Kind::Buoyancy, 0xa_0500, CpuRounding::Fused);
}

#[test]
fn generator_fake_spring() {
    generator_case(Kind::FakeSpring, 0xa_0600, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_fake_spring_fused_cpu() {
    generator_case(Kind::FakeSpring, 0xa_0600, CpuRounding::Fused);
}

#[test]
fn generator_damped_spring() {
    generator_case(Kind::DampedSpring, 0xa_0700, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_damped_spring_fused_cpu() {
    generator_case(Kind::DampedSpring, 0xa_0700, CpuRounding::Fused);
}

#[test]
fn generator_anchored_damped_spring() {
    generator_case(Kind::AnchoredDampedSpring, 0xa_0800, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_anchored_damped_spring_fused_cpu() {
    generator_case(Kind::AnchoredDampedSpring, 0xa_0800, CpuRounding::Fused);
}

#[test]
fn generator_gravity() {
    generator_case(Kind::Gravity, 0xa_0900, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_gravity_fused_cpu() {
    generator_case(Kind::Gravity, 0xa_0900, CpuRounding::Fused);
}

#[test]
fn generator_drag() {
    generator_case(Kind::Drag, 0xa_0a00, CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn generator_drag_fused_cpu() {
    generator_case(Kind::Drag, 0xa_0a00, CpuRounding::Fused);
}
