//! Parity of the collide stage: a few hundred random overlapping grains over a floor, one step,
//! against each other and the error model; and the spatial order and slot table.

use super::*;

/// `COLLIDE_REST_DEPTH` (src/aggregate/model.rs): the depth, as a fraction of the two radii,
/// from which a resting contact counts fully towards its grain's engaged contacts.
const REST_DEPTH: f32 = 1.0 / 1024.0;
/// `COLLIDE_RELAXATION` (src/aggregate/model.rs).
const RELAXATION: f64 = 1.5;
/// The grains' gravity (`grain_config`), m/s².
const GRAIN_G: f32 = 9.81;

/// The square of the speed that separates an impact from a resting contact for two grains
/// under gravity alone (`impact_speed2`): (2·dt·g)².
fn impact_speed2() -> f32 {
    let s = 2.0 * DT * GRAIN_G;
    s * s
}

/// A grain after the integrate stage (semi-implicit Euler under gravity): (p1, v1).
fn free_flight(p: &Particle) -> (Vec3, Vec3) {
    if p.inverse_mass == 0.0 {
        return (p.position, p.velocity);
    }
    let v = p.velocity + Vec3::new(0.0, -GRAIN_G, 0.0) * DT;
    (p.position + v * DT, v)
}

/// Whether the collide stage's response to the pair `a`, `b` is a smooth function of their
/// state after the integrate stage. Three windows are not, on any hardware (rounding within
/// them moves the response by more than the model can bound, or by a whole decision; model 3
/// of tests/common/error_model.rs): the reach rr + slop, where a closing contact switches on
/// whole; a contact within reach but not penetrating past the depth ramp (rr·2⁻¹⁰), whose
/// count moves by its depth over rr·2⁻¹⁰, ~10⁴ per metre (and a lone closing one gets the whole
/// impact response as soon as it closes faster than the impact speed: count = wi, dv ∝ wi);
/// and an impact weight on its ramp, vn² between the impact speed² and twice it, whose
/// response moves by ~10² times vn's difference. The grains avoid all three by margins far
/// beyond the differences [`collide_model`] bounds (1e-5 m, 1e-2 m/s), so the comparison
/// measures arithmetic, not luck.
fn smooth_pair(a: &Particle, b: &Particle) -> bool {
    const DEPTH_MARGIN: f32 = 1e-5;
    const SPEED_MARGIN: f32 = 1e-2;
    let ((pa, va), (pb, vb)) = (free_flight(a), free_flight(b));
    let rr = a.size + b.size;
    let d = pa - pb;
    let pen = rr - d.length();
    let slop = AggregateConfig::default().contact_slop;
    if pen < -slop - DEPTH_MARGIN {
        return true;
    }
    if pen < rr * REST_DEPTH + DEPTH_MARGIN {
        return false;
    }
    let closing = -(va - vb).dot(d.normalize());
    let (lo, hi) = (impact_speed2().sqrt(), (2.0 * impact_speed2()).sqrt());
    closing < lo - SPEED_MARGIN || closing > hi + SPEED_MARGIN
}

/// `n` random grains of radius 5–8 cm in a 1.2 m × 0.95 m × 1.2 m box above the floor: about a
/// third of the box filled, so most grains overlap two or three others. Speeds to 2 m/s, masses
/// 0.1–1 kg, one grain in twenty immovable. A grain is drawn again until its contacts with
/// those drawn before are [`smooth_pair`]s and it is clear of the floor's reach (the same
/// decision as a grain's: r − y against −slop, with the same margin).
fn random_grains(rng: &mut Rng, n: u32, radius: Option<f32>) -> Vec<Particle> {
    let mut grains: Vec<Particle> = Vec::with_capacity(n as usize);
    while grains.len() < n as usize {
        let r = radius.unwrap_or_else(|| rng.range(0.05, 0.08));
        let p = Particle::new(Vec3::new(
            rng.range(-0.6, 0.6),
            rng.range(0.05, 1.0),
            rng.range(-0.6, 0.6),
        ))
        .with_velocity(rng.vec3(-2.0, 2.0))
        .with_size(r);
        let p = if rng.chance(0.05) {
            p.with_inverse_mass(0.0)
        } else {
            p.with_mass(rng.range(0.1, 1.0))
        };
        let floor = r - free_flight(&p).0.y + AggregateConfig::default().contact_slop;
        if floor.abs() > 1e-5 && grains.iter().all(|q| smooth_pair(&p, q)) {
            grains.push(p);
        }
    }
    grains
}

/// The collide stage's model for one Jacobi iteration over grains drawn by [`random_grains`]
/// (every contact out of reach, or penetrating past the depth ramp and closing slower than the
/// impact speed or faster than √2 times it: each contact is a whole impact or a whole resting
/// contact, and a grain's count is its number of contacts, on both sides alike), per grain,
/// first order, worst case, from the error model's costs (tests/common/error_model.rs):
///
/// * the integrate stage: a velocity difference of STEP_V = ROUND + POW + ROUND of |v1| and
///   CONTRACT of g·dt, a position difference of dt times that, ROUND of |p1| and CONTRACT of
///   |v1|·dt;
/// * each contact with grain j: d = p − p_j (both grains' differences and ROUND of |d|), |d|
///   (LENGTH), the depth (ROUND), the normal d/|d| (2·|Δd|/|d| + LENGTH + DIV: a short d
///   carries the positions' difference as a direction), the relative velocity (both grains'
///   differences and ROUND), vn = rel·n (DOT3, and |rel| times the normal's), the share
///   w/(w + w_j) (ROUND + DIV);
/// * an impact's velocity change −(1 + e)·vn·n less the friction's projection of vt onto the
///   ball of radius μ·(1 + e)·|vn|: Lipschitz (1 + e) + 1 + μ(1 + e) in the relative velocity,
///   2(1 + e) + 2 + μ(1 + e) times |rel| in the normal, and its eleven roundings of values up to
///   (1 + e)(1 + μ)·|rel| (as `contact_response`'s); its push-out n·pen·share (the normal's and
///   the depth's differences, ROUND);
/// * a resting contact's correction n·pen − vt·(dt·min(|vt|·dt, μ·pen)/(|vt|·dt)): the normal's,
///   (1 + μ) times the depth's, dt times vt's, and its roundings (ROUND of pen; μ·pen's LENGTH,
///   three ROUNDs, DIV, CONTRACT + ROUND);
/// * the sums over the grain's m contacts (a multiply-add each, CONTRACT + ROUND of the running
///   sum), k = 1/max(m/1.5, 1) (two DIVs), the resting sum times k (ROUND), v += dv/m + dpk/dt
///   and p += dp/m + dpk (DIV each, two ROUNDs each): the resting corrections reach the
///   velocity divided by dt;
/// * the floor, for a grain the contacts may bring within its reach: `contact_response` on the
///   velocity (its normal copied), the depth's difference (ROUND of y and of the depth) on the
///   position.
///
/// Immovable grains: exact (`None`).
fn collide_model(ps: &[Particle], config: &AggregateConfig) -> Expected {
    let col = config.collisions.expect("collisions");
    let (e, mu) = (f64::from(col.restitution), f64::from(col.friction));
    let floor = &config.colliders[0];
    let [floor_lv, _, floor_rounds] =
        error_model::contact_response(f64::from(floor.restitution), f64::from(floor.friction));
    let slop = f64::from(config.contact_slop);
    let (dt, g) = (f64::from(DT), f64::from(GRAIN_G));
    let flights: Vec<(DVec3, DVec3)> = ps
        .iter()
        .map(|p| {
            let (p1, v1) = free_flight(p);
            (d3(p1), d3(v1))
        })
        .collect();
    let integrated: Vec<(f64, f64)> = ps
        .iter()
        .zip(&flights)
        .map(|(p, (p1, v1))| {
            if p.inverse_mass == 0.0 {
                return (0.0, 0.0);
            }
            let dv = (STEP_V * v1.abs().max_element() + CONTRACT * g * dt) * U;
            let dp = dv * dt
                + (ROUND * p1.abs().max_element() + CONTRACT * v1.abs().max_element() * dt) * U;
            (dp, dv)
        })
        .collect();
    let l_res = (1.0 + e) + 1.0 + mu * (1.0 + e);
    let n_res = 2.0 * (1.0 + e) + 2.0 + mu * (1.0 + e);
    let r_res = (1.0 + e)
        * (1.0 + mu)
        * (l_res * DOT3
            + 2.0 * (1.0 + mu) * ROUND
            + ROUND
            + (CONTRACT + ROUND)
            + LENGTH
            + ROUND
            + DIV
            + (CONTRACT + ROUND));
    let r_dpc = ROUND + mu * (LENGTH + 3.0 * ROUND + DIV + CONTRACT + ROUND);
    let acc = CONTRACT + ROUND;
    let slots = ps
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if p.inverse_mass == 0.0 {
                return None;
            }
            let ((p1, v1), (dp1, dv1)) = (flights[i], integrated[i]);
            let w = f64::from(p.inverse_mass);
            // Sums of magnitudes and of differences: impacts (dv, dp) and resting (dr).
            let [mut dv_sum, mut dv_err, mut dp_sum, mut dp_err, mut dr_sum, mut dr_err] = [0.0; 6];
            let mut m = 0u32;
            for (j, q) in ps.iter().enumerate() {
                let rr = f64::from(p.size + q.size);
                let d = p1 - flights[j].0;
                let dist = d.length();
                let pen = rr - dist;
                if j == i || pen <= -slop {
                    continue;
                }
                let rel = v1 - flights[j].1;
                let (rel_len, vn) = (rel.length(), rel.dot(d / dist));
                let share = w / (w + f64::from(q.inverse_mass));
                let dd = dp1 + integrated[j].0 + ROUND * U * dist;
                let dpen = dd + (LENGTH + ROUND) * U * dist;
                let dn = 2.0 * dd / dist + (LENGTH + DIV) * U;
                let drel = dv1 + integrated[j].1 + ROUND * U * rel_len;
                let dvn = drel + rel_len * dn + DOT3 * U * rel_len;
                let dshare = (ROUND + DIV) * U * share;
                if vn < 0.0 && vn * vn > f64::from(impact_speed2()) {
                    let mag = (1.0 + e) * (1.0 + mu) * rel_len;
                    dv_err += (l_res * drel + n_res * rel_len * dn + r_res * U * rel_len) * share
                        + mag * dshare;
                    dv_sum += mag * share;
                    dp_err +=
                        pen * share * dn + share * dpen + pen * dshare + ROUND * U * pen * share;
                    dp_sum += pen * share;
                } else {
                    let dvt = dvn + drel + rel_len * dn + (CONTRACT + ROUND) * U * rel_len;
                    let dpc = pen * dn + (1.0 + mu) * dpen + dt * dvt + r_dpc * U * pen;
                    dr_err += dpc * share + (1.0 + mu) * pen * dshare;
                    dr_sum += (1.0 + mu) * pen * share;
                }
                m += 1;
            }
            let (mut dp, mut dv, mut moved, mut speed) = (dp1, dv1, 0.0, v1.length());
            if m > 0 {
                let mf = f64::from(m);
                dv_err += acc * U * mf * dv_sum;
                dp_err += acc * U * mf * dp_sum;
                dr_err += acc * U * mf * dr_sum;
                let k = 1.0 / (mf / RELAXATION).max(1.0);
                let dk = 2.0 * DIV * U * k;
                let dpk = dr_sum * k;
                let dpk_err = dr_err * k + dr_sum * dk + ROUND * U * dpk;
                speed += dv_sum / mf + dpk / dt;
                moved = dp_sum / mf + dpk;
                dv += dv_err / mf
                    + DIV * U * dv_sum / mf
                    + dpk_err / dt
                    + DIV * U * dpk / dt
                    + 2.0 * ROUND * U * speed;
                dp += dp_err / mf
                    + DIV * U * dp_sum / mf
                    + dpk_err
                    + 2.0 * ROUND * U * (p1.abs().max_element() + moved);
            }
            let r = f64::from(p.size);
            if r - (p1.y - moved) > -slop {
                // The floor's normal is copied; its resting-contact fix rounds g·dt's dot.
                let (fe, fmu) = (f64::from(floor.restitution), f64::from(floor.friction));
                dv = floor_lv * dv
                    + floor_rounds * U * speed
                    + fe * (1.0 + fmu) * g * dt * (DOT3 + ROUND) * U;
                // The depth r − y carries the position's difference (and ROUND of y and of the
                // depth), and the push-out adds it again.
                let depth = r + moved;
                dp = 2.0 * dp
                    + ROUND * U * (p1.y.abs() + moved + depth)
                    + (CONTRACT + ROUND) * U * depth;
            }
            Some((p1, v1, dp, dv))
        })
        .collect();
    Expected { slots }
}

fn grain_config(n: u32, cell_size: f32, iterations: u32) -> AggregateConfig {
    AggregateConfig {
        capacity: n,
        fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
        colliders: vec![ParticleCollider::ground(0.5, 0.3)],
        collisions: Some(Collisions {
            cell_size,
            table_size: 1024,
            restitution: 0.3,
            friction: 0.5,
            iterations,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Total overlap Σ max(0, r_i + r_j − |p_i − p_j|) over all pairs (brute force).
fn total_overlap(pos: &[Vec3], radius: &[f32]) -> f64 {
    let mut sum = 0.0;
    for i in 0..pos.len() {
        for j in i + 1..pos.len() {
            let pen = radius[i] + radius[j] - (pos[i] - pos[j]).length();
            sum += f64::from(pen.max(0.0));
        }
    }
    sum
}

/// One step of the collide stage (`iterations` Jacobi iterations), GPU vs CPU, with the
/// physical checks: the stage removes overlap, nothing ends inside the floor, immovable grains
/// stay put. Returns the total overlap (after the integrate stage, after the collide stage).
fn collide_case(
    label: &str,
    ps: &[Particle],
    config: &AggregateConfig,
    rounding: CpuRounding,
) -> (f64, f64) {
    let label = &format!("{label} ({rounding:?} CPU)");
    let (mut g, mut c) = both(config, rounding, ps, |_, _| {});
    g.step(DT).expect("gpu step");
    c.step(DT).expect("cpu step");
    let (sg, sc) = (g.read_snapshot().unwrap(), c.read_snapshot().unwrap());
    let [dp, dv, used] = check_parity(label, &sg, &sc, &collide_model(ps, config));
    eprintln!(
        "[measure] {label}: pos max |diff| {dp:.2e}, vel max |diff| {dv:.2e} ({:.1}% of the \
         model)",
        100.0 * used
    );
    let radius: Vec<f32> = ps.iter().map(|p| p.size).collect();
    // Overlap after the integrate stage alone (free flight under gravity, semi-implicit Euler),
    // against overlap after the collision iterations.
    let g_acc = Vec3::new(0.0, -9.81, 0.0);
    let free: Vec<Vec3> = ps
        .iter()
        .map(|p| {
            if p.inverse_mass == 0.0 {
                p.position
            } else {
                p.position + (p.velocity + g_acc * DT) * DT
            }
        })
        .collect();
    let before = total_overlap(&free, &radius);
    let mut after_cpu = 0.0;
    for (name, s) in [("gpu", &sg), ("cpu", &sc)] {
        let after = total_overlap(&s.pos.iter().map(|p| p.xyz()).collect::<Vec<_>>(), &radius);
        eprintln!(
            "[measure] {label} {name}: total overlap {before:.4} m before the collide stage, \
             {after:.4} m after"
        );
        assert!(
            after < before || before == 0.0 && after == 0.0,
            "{label} {name}: total overlap {after} m after the collide stage vs {before} m before"
        );
        after_cpu = after;
        for (i, p) in ps.iter().enumerate() {
            if p.inverse_mass == 0.0 {
                assert_eq!(
                    s.pos[i].xyz(),
                    p.position,
                    "{label} {name}: immovable slot {i} moved"
                );
                continue;
            }
            // The floor is applied last in every iteration: nothing ends inside it.
            assert!(
                s.pos[i].y >= p.size - 1e-6,
                "{label} {name}: slot {i} pos.y {} is below its radius {} above the floor",
                s.pos[i].y,
                p.size
            );
        }
    }
    (before, after_cpu)
}

// More iterations per step are compared end to end, with a drift budget, in
// `aggregate_end_to_end.rs`: after the first iteration the grains' contacts sit wherever it
// left them, in the windows [`smooth_pair`] keeps the inputs out of.

/// The collide stage alone (one Jacobi iteration), GPU vs CPU, on 1 and 400 random overlapping
/// grains; then the same grains with four iterations, where the CPU and the GPU must each
/// remove more overlap than one iteration did.
#[test]
fn collide_stage() {
    collide_stage_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn collide_stage_fused_cpu() {
    collide_stage_case(CpuRounding::Fused);
}

fn collide_stage_case(rounding: CpuRounding) {
    let mut rng = Rng::new(0xc_0100);
    let ps = random_grains(&mut rng, 1, None);
    collide_case(
        "collide n=1 iterations=1",
        &ps,
        &grain_config(1, 0.2, 1),
        rounding,
    );
    let mut rng = Rng::new(0xc_0200);
    let ps = random_grains(&mut rng, 400, None);
    let (before, one) = collide_case(
        "collide n=400 iterations=1",
        &ps,
        &grain_config(400, 0.2, 1),
        rounding,
    );
    // Four iterations: no parity (see above), but more overlap removed on both sides
    // (the CPU twin rounding as in the one-iteration comparison).
    let config = AggregateConfig {
        cpu_rounding: rounding,
        ..grain_config(400, 0.2, 4)
    };
    for (name, backend) in backends() {
        let mut w = AggregateWorld::new(backend, config.clone()).expect("world");
        w.add_particles(&ps).expect("add_particles");
        w.step(DT).expect("step");
        let s = w.read_snapshot().expect("snapshot");
        let radius: Vec<f32> = ps.iter().map(|p| p.size).collect();
        let four = total_overlap(&s.pos.iter().map(|p| p.xyz()).collect::<Vec<_>>(), &radius);
        eprintln!("[measure] collide n=400 {name} ({rounding:?} CPU): overlap {before:.4} m -> {one:.4} m (1 iteration) -> {four:.4} m (4 iterations)");
        assert!(
            four < one,
            "collide n=400 {name}: four iterations leave {four} m of overlap, one left {one} m"
        );
    }
}

/// `Collisions::cell_size: 0` picks twice the first grain's radius when the first particles
/// arrive; the GPU must then build and search the same grid as the CPU.
#[test]
fn collide_with_automatic_cell_size() {
    automatic_cell_size_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn collide_with_automatic_cell_size_fused_cpu() {
    automatic_cell_size_case(CpuRounding::Fused);
}

fn automatic_cell_size_case(rounding: CpuRounding) {
    let mut rng = Rng::new(0xc_0300);
    let ps = random_grains(&mut rng, 400, Some(0.06));
    collide_case(
        "collide n=400 automatic cell size",
        &ps,
        &grain_config(400, 0.0, 1),
        rounding,
    );
}

/// Coincident grains part along ±y, the one in the lower slot of the spatial order up: the GPU
/// compares slots, the twin the spatial keys and then the particles (`NearList::slot_before`).
/// Two grains added at one place share a key, so particle 0 comes first and goes up. Two such
/// pairs (one near the origin, one metres out), no gravity, one step: each pair has parted the
/// same way on both backends, to the same height within a few roundings of the push-out.
#[test]
fn coincident_grains_part_the_same_way_on_both_backends() {
    let config = AggregateConfig {
        fields: Vec::new(),
        colliders: Vec::new(),
        ..grain_config(4, 0.2, 4)
    };
    let at = [Vec3::new(0.03, 0.5, -0.02), Vec3::new(-3.1, 2.2, 4.05)];
    let grains: Vec<Particle> = at
        .iter()
        .flat_map(|&p| [p, p])
        .map(|p| Particle::new(p).with_size(0.05))
        .collect();
    let mut heights = Vec::new();
    for backend in [Backend::Cpu, Backend::Gpu(shared_gpu())] {
        let mut w = AggregateWorld::new(backend, config.clone()).expect("world");
        w.add_particles(&grains).expect("grains");
        w.step(DT).expect("step");
        let s = w.read_snapshot().expect("snapshot");
        for pair in 0..2 {
            let (lo, hi) = (s.pos[2 * pair], s.pos[2 * pair + 1]);
            assert!(
                lo.y > hi.y,
                "pair {pair}: particle {} at y {} should be above particle {} at y {}",
                2 * pair,
                lo.y,
                2 * pair + 1,
                hi.y
            );
        }
        heights.push(s.pos.iter().map(|p| p.y).collect::<Vec<f32>>());
    }
    for (k, (g, c)) in heights[1].iter().zip(&heights[0]).enumerate() {
        // Each grain moves by its depth share over its contact count (a division, a product
        // and a sum) per iteration, four iterations, at heights below 3 m: a few ulps of 3 m.
        assert!(
            (g - c).abs() <= 8.0 * f32::EPSILON * 3.0,
            "grain {k}: gpu y {g} cpu y {c}"
        );
    }
}

/// The spatial order the GPU runs its collide iterations in (shaders/aggregate/order.wgsl) and
/// the grid keys' slot table, read back after one step, against their CPU twins
/// (`cpu::near_order`, `cpu::near_cells`), exactly. Resting immovable grains, so the step's
/// integrate leaves every position as added. A 4096-key table holds keys with one, two and
/// more grains; a 64-key table lists dozens in every key. Coordinates on both sides of zero,
/// some grains coincident, some removed.
#[test]
fn spatial_order_and_slot_table_match_the_cpu_twin() {
    use glam::Vec4;
    use wgphys::aggregate::cpu::{near_cells, near_order};
    use wgphys::aggregate::gpu::{GpuAggregate, Tables};
    use wgphys::aggregate::types::{GpuAggParams, CELL_LISTED};
    use wgphys::grid::{CpuGrid, GridSpec};

    let ctx = shared_gpu();
    let n = 1500u32;
    for (table, seed) in [(4096u32, 0xe0_0001u64), (64, 0xe0_0002)] {
        let spec = GridSpec::new(0.1, table).expect("spec");
        let mut rng = Rng::new(seed);
        let mut pos: Vec<Vec4> = (0..n).map(|_| rng.vec3(-1.4, 1.4).extend(1.0)).collect();
        for k in 0..20 {
            pos[10 * k + 1] = pos[10 * k];
        }
        let radius = vec![0.05f32; n as usize];
        let zero = vec![Vec4::ZERO; n as usize];
        let offsets = vec![0u32; n as usize + 1];
        let tables = Tables {
            gens: &[],
            gen_offsets: &offsets,
            gen_refs: &[],
            links: &[],
            colour_start: &[0],
            colliders: &[],
        };
        let mut g = GpuAggregate::new(&ctx, n, Some(spec), &tables, false).expect("gpu aggregate");
        g.write_particles(0, &pos, &zero, &zero, &radius, &zero);
        for i in (3..n).step_by(97) {
            g.kill(i);
            pos[i as usize].w = 0.0;
        }
        let mut params: GpuAggParams = bytemuck::Zeroable::zeroed();
        params.dt = DT;
        params.n = n;
        params.collide_iterations = 2;
        params.inv_cell_size = spec.inv_cell_size();
        params.table_mask = spec.table_mask();
        params.collisions = 1;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        g.encode(&mut encoder, &params, true).expect("encode");
        ctx.queue.submit([encoder.finish()]);
        let got = g.read_near(n).expect("read").expect("a world with a grid");

        let order = near_order(&pos, &spec);
        assert_eq!(got.order, order, "table {table}: spatial order");
        let mut slot_of = vec![0u32; n as usize];
        for (s, &i) in order.iter().enumerate() {
            slot_of[i as usize] = s as u32;
        }
        let grid = CpuGrid::build(&pos, &spec).expect("cpu grid");
        let (cells, cell_slots) = near_cells(&grid, table, &slot_of);
        assert_eq!(got.cell_slots, cell_slots, "table {table}: cell_slots");
        assert_eq!(got.cells, cells, "table {table}: slot table");
        let kinds = |pred: &dyn Fn(&[u32; 2]) -> bool| cells.iter().filter(|c| pred(c)).count();
        let one = kinds(&|c| c[1] < CELL_LISTED && c[0] == c[1]);
        let two = kinds(&|c| c[1] < CELL_LISTED && c[0] != c[1]);
        let many = kinds(&|c| c[1] > CELL_LISTED + 2);
        eprintln!("[measure] table {table}: keys with one grain {one}, two {two}, more {many}");
        if table == 4096 {
            assert!(
                one > 0 && two > 0 && many > 0,
                "table {table}: {one} / {two} / {many}"
            );
        } else {
            assert!(many > 0, "table {table}: no listed key");
        }
        // The step left every grain in place and untouched.
        let (p, v) = g.read(n as usize).expect("read state");
        assert_eq!(p, pos, "table {table}: positions after the step");
        assert_eq!(v, zero, "table {table}: velocities after the step");
    }
}
