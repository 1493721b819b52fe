//! Parity of the integrate stage alone: free flight, no fields or colliders.

use super::*;

#[test]
fn integrate_alone() {
    integrate_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn integrate_alone_fused_cpu() {
    integrate_case(CpuRounding::Fused);
}

fn integrate_case(rounding: CpuRounding) {
    // Tolerance of the f64 reference check, either side: the f32 update rounds v·dt and the
    // sum (u each, of values ≤ |p0| + |v0·dt|), a·dt, the sum and the product (u each, of
    // values ≤ |v0| + |a·dt|), and the damping factor is within 5 ulp of pow's exact value on
    // a GPU (cost::POW less glibc's ulp: 10u, of |v1| ≤ |v0| + |a·dt|): 13u of the terms'
    // magnitudes.
    const REFERENCE_REL: f64 = 13.0 * U;
    for n in SIZES {
        let mut rng = Rng::new(0x1_0000 + u64::from(n));
        let ps: Vec<Particle> = (0..n)
            .map(|_| random_particle(&mut rng, -50.0, 50.0))
            .collect();
        let (mut g, mut c) = spawn_both(&config(n), &ps, rounding);
        let (sg, sc) = step_and_compare(
            &format!("integrate n={n} ({rounding:?} CPU)"),
            &mut g,
            &mut c,
            INTEGRATE,
        );
        // Physics: one step of the book's integrator, p1 = p0 + v0 dt, v1 = (v0 + a dt) d^dt,
        // evaluated in f64; immovable particles (inverse mass 0) do not move at all.
        for (i, p) in ps.iter().enumerate() {
            for (name, s) in [("gpu", &sg), ("cpu", &sc)] {
                if p.inverse_mass == 0.0 {
                    assert_eq!(
                        s.pos[i].truncate(),
                        p.position,
                        "{name} n={n}: immovable slot {i} pos moved"
                    );
                    assert_eq!(
                        s.vel[i].truncate(),
                        p.velocity,
                        "{name} n={n}: immovable slot {i} vel changed"
                    );
                    continue;
                }
                let dt = f64::from(DT);
                let keep = f64::from(p.damping).powf(dt);
                for k in 0..3 {
                    let (p0, v0, a) = (
                        f64::from(p.position[k]),
                        f64::from(p.velocity[k]),
                        f64::from(p.acceleration[k]),
                    );
                    let want_p = p0 + v0 * dt;
                    let want_v = (v0 + a * dt) * keep;
                    let tol_p = REFERENCE_REL * (p0.abs() + (v0 * dt).abs());
                    let tol_v = REFERENCE_REL * (v0.abs() + (a * dt).abs());
                    let (got_p, got_v) = (f64::from(s.pos[i][k]), f64::from(s.vel[i][k]));
                    assert!(
                        (got_p - want_p).abs() <= tol_p,
                        "{name} n={n}: slot {i} pos[{k}] {got_p} vs f64 {want_p}"
                    );
                    assert!(
                        (got_v - want_v).abs() <= tol_v,
                        "{name} n={n}: slot {i} vel[{k}] {got_v} vs f64 {want_v}"
                    );
                }
            }
        }
    }
}
