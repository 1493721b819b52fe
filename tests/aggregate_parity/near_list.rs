//! The collide stage's candidate lists (`near_list`, shaders/aggregate/near_list.wgsl): what
//! the GPU lists against the CPU twin and against the definition, and the collide stage's walk
//! of the grid for a slot whose list overflowed against its reading of the list.

use glam::{Vec3, Vec4};
use wgphys::aggregate::cpu::{near_list, AggState};
use wgphys::aggregate::gpu::{GpuAggregate, NearTables, Tables, DEFAULT_LIST_CAPACITY};
use wgphys::aggregate::types::GpuAggParams;
use wgphys::grid::{CpuGrid, GridSpec};

use super::common::{shared_gpu, Rng};
use super::DT;

const CELL: f32 = 0.1;
const RADIUS: f32 = 0.045;
const SLOP: f32 = 1e-4;

fn no_tables(n: u32) -> (Vec<u32>, [u32; 1]) {
    (vec![0u32; n as usize + 1], [0])
}

fn params(n: u32, spec: &GridSpec, iterations: u32) -> GpuAggParams {
    let mut p: GpuAggParams = bytemuck::Zeroable::zeroed();
    p.dt = DT;
    p.n = n;
    p.collide_iterations = iterations;
    p.inv_cell_size = spec.inv_cell_size();
    p.table_mask = spec.table_mask();
    p.collisions = 1;
    p.contact_slop = SLOP;
    p.set_near_reach(spec.cell_size, SLOP);
    p
}

/// A GPU aggregate holding `pos` (w: alive), at rest, inverse masses `inv_mass`, accelerations
/// `gravity`, with `list_capacity` candidates per slot.
fn gpu_world(
    spec: GridSpec,
    pos: &[Vec4],
    inv_mass: &[f32],
    gravity: Vec3,
    list_capacity: u32,
) -> GpuAggregate {
    let n = pos.len() as u32;
    let (offsets, colour_start) = no_tables(n);
    let tables = Tables {
        gens: &[],
        gen_offsets: &offsets,
        gen_refs: &[],
        links: &[],
        colour_start: &colour_start,
        colliders: &[],
    };
    let mut g =
        GpuAggregate::new(&shared_gpu(), n, Some(spec), &tables, false).expect("gpu aggregate");
    g.set_list_capacity(list_capacity).expect("list capacity");
    let acc: Vec<Vec4> = inv_mass.iter().map(|&w| gravity.extend(w)).collect();
    let zero = vec![Vec4::ZERO; pos.len()];
    g.write_particles(0, pos, &zero, &acc, &vec![RADIUS; pos.len()], &zero);
    for (i, p) in pos.iter().enumerate() {
        if p.w == 0.0 {
            g.kill(i as u32);
        }
    }
    g
}

fn step(g: &mut GpuAggregate, p: &GpuAggParams) {
    let ctx = shared_gpu();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    g.encode(&mut encoder, p, true).expect("encode");
    ctx.queue.submit([encoder.finish()]);
}

/// Slot s's list as particle indices, or `None` when it overflowed (then only its count).
fn listed(t: &NearTables, n: usize, s: usize) -> (u32, Option<Vec<u32>>) {
    let count = t.candidates[s];
    let entries = (count <= t.list_capacity).then(|| {
        (0..count as usize)
            .map(|e| t.order[t.candidates[(2 + e) * n + s] as usize])
            .collect()
    });
    (count, entries)
}

/// After one step of grains that start at rest (so the lists are built from the positions as
/// added), the GPU's lists equal the CPU twin's slot by slot: the particle in each slot, each
/// slot's count, and, where the list holds them, its candidates in order. Scattered grains, a
/// clump of 40 within 2 cm (more candidates than a list holds: those slots keep only their
/// count), 20 coincident pairs, removed and immovable grains (no list), in a 4096-key table and
/// a 64-key one (dozens of cells per key: the cell test must keep other cells' grains out).
///
/// And the lists hold exactly the grains their measure admits (every pair tested without the
/// grid, so no cell the walk visits or skips loses one), and that measure holds what it
/// promises (src/aggregate/model.rs `NEAR_SKIN`, `NEAR_UNITS`), checked pair by pair in f64: every pair within a cell and the slop (every pair that can
/// touch) is listed, and no pair beyond the reach (a cell, the slop and a quarter cell) plus
/// the measure's blur (√3 units of a 256th of a cell, plus an ulp of the coordinates) is.
#[test]
fn candidate_lists_match_the_cpu_twin_and_their_definition() {
    let n = 1500u32;
    for (table, seed) in [(4096u32, 0x11_0001u64), (64, 0x11_0002)] {
        let spec = GridSpec::new(CELL, table).expect("spec");
        let mut rng = Rng::new(seed);
        let mut pos: Vec<Vec4> = (0..n).map(|_| rng.vec3(-0.7, 0.7).extend(1.0)).collect();
        let clump = rng.vec3(-0.5, 0.5);
        for p in pos.iter_mut().skip(100).take(40) {
            *p = (clump + rng.vec3(-0.01, 0.01)).extend(1.0);
        }
        for k in 0..20 {
            pos[10 * k + 301] = pos[10 * k + 300];
        }
        for i in (3..n as usize).step_by(97) {
            pos[i].w = 0.0;
        }
        let inv_mass: Vec<f32> = (0..n)
            .map(|i| if i % 89 == 5 { 0.0 } else { 1.0 })
            .collect();
        let mut g = gpu_world(spec, &pos, &inv_mass, Vec3::ZERO, DEFAULT_LIST_CAPACITY);
        let p = params(n, &spec, 2);
        step(&mut g, &p);
        let got = g.read_near(n).expect("read").expect("a world with a grid");
        assert_eq!(got.list_capacity, DEFAULT_LIST_CAPACITY);

        let state = AggState {
            pos: pos.clone(),
            acc: inv_mass
                .iter()
                .map(|&w| Vec4::new(0.0, 0.0, 0.0, w))
                .collect(),
            ..Default::default()
        };
        let grid = CpuGrid::build(&pos, &spec).expect("cpu grid");
        let want = near_list(&state, &p, &grid, &spec);
        let (mut full, mut overflowed, mut empty) = (0, 0, 0);
        for s in 0..n as usize {
            let i = got.order[s] as usize;
            assert_eq!(
                got.candidates[n as usize + s],
                i as u32,
                "table {table}: slot {s}'s particle"
            );
            let (count, entries) = listed(&got, n as usize, s);
            assert_eq!(
                count as usize,
                want.of(i).len(),
                "table {table}: particle {i}'s count"
            );
            match entries {
                Some(e) => {
                    assert_eq!(e, want.of(i), "table {table}: particle {i}'s candidates");
                    if count == 0 {
                        empty += 1;
                    } else {
                        full += 1;
                    }
                }
                None => overflowed += 1,
            }
        }
        eprintln!(
            "[measure] table {table}: {full} lists with candidates, {empty} empty, {overflowed} \
             overflowed (capacity {})",
            got.list_capacity
        );
        assert!(
            full > 500 && overflowed >= 40 && empty > 0,
            "{full} / {overflowed} / {empty}"
        );

        // The definition: the measure near_list.wgsl documents (whole units of 1/near_scale,
        // each axis within near_reach first), pair by pair, without the grid: the lists hold
        // exactly these grains, so the walk (its cells, and the cells it skips) drops none.
        let measure = |a: Vec4, b: Vec4| {
            let d = (a - b).truncate().abs();
            let h = p.near_reach;
            if !(d.x <= h && d.y <= h && d.z <= h) {
                return false;
            }
            let q = (d * p.near_scale).floor();
            let (x, y, z) = (q.x as u32, q.y as u32, q.z as u32);
            x * x + y * y + z * z <= p.near_reach2
        };
        for i in 0..n as usize {
            let runs = pos[i].w != 0.0 && inv_mass[i] > 0.0;
            let mut defined: Vec<u32> = (0..n)
                .filter(|&j| runs && j as usize != i && pos[j as usize].w != 0.0)
                .filter(|&j| measure(pos[i], pos[j as usize]))
                .collect();
            let mut got = want.of(i).to_vec();
            defined.sort_unstable();
            got.sort_unstable();
            assert_eq!(
                got, defined,
                "table {table}: particle {i}'s candidates as a set"
            );
        }
        // And the measure is what it promises, in f64 from the positions.
        let reach = f64::from(p.near_reach);
        let blur = 3f64.sqrt() * f64::from(CELL) / 256.0 + 1e-6;
        let touch = f64::from(CELL + SLOP);
        let at = |k: usize| pos[k].truncate().as_dvec3();
        for i in 0..n as usize {
            let list = want.of(i);
            let runs = pos[i].w != 0.0 && inv_mass[i] > 0.0;
            for (j, pj) in pos.iter().enumerate() {
                if j == i || pj.w == 0.0 {
                    continue;
                }
                let d = (at(i) - at(j)).length();
                let has = list.contains(&(j as u32));
                if runs && d <= touch {
                    assert!(has, "table {table}: {i} does not list {j}, {d} m away");
                }
                if d > reach + blur {
                    assert!(
                        !has,
                        "table {table}: {i} lists {j}, {d} m away (reach {reach})"
                    );
                }
            }
            assert!(
                runs || list.is_empty(),
                "table {table}: {i} runs no contacts"
            );
            let mut sorted = list.to_vec();
            sorted.dedup();
            assert_eq!(
                sorted.len(),
                list.len(),
                "table {table}: {i} lists a grain twice"
            );
        }
    }
}

/// A slot whose list overflowed walks the grid in the collide stage instead (collide.wgsl):
/// the same candidates in the same order, so the same bits. Three GPU worlds that differ only
/// in their list capacity (16, 2 and 0: every slot with a candidate walks) run three steps of
/// a heap of overlapping grains under gravity (four collide iterations each) and must end
/// bit-identical, on any adapter (the arithmetic is the same; only where the candidates are
/// read from changes). The contacts must have acted (at most half the overlapping pairs are
/// left), and at capacity 2 both kinds of slot must occur.
#[test]
fn a_slot_that_walks_the_grid_reaches_the_bits_its_list_would() {
    let n = 600u32;
    let spec = GridSpec::new(CELL, 1024).expect("spec");
    let mut rng = Rng::new(0x11_0003);
    let pos: Vec<Vec4> = (0..n).map(|_| rng.vec3(-0.55, 0.55).extend(1.0)).collect();
    let overlapping = |p: &[Vec4]| {
        let mut k = 0;
        for i in 0..p.len() {
            for j in 0..i {
                k += usize::from((p[i] - p[j]).truncate().length() < 2.0 * RADIUS);
            }
        }
        k
    };
    let inv_mass = vec![1.0f32; n as usize];
    let gravity = Vec3::new(0.0, -9.81, 0.0);
    let p = params(n, &spec, 4);
    let mut worlds: Vec<GpuAggregate> = [16, 2, 0]
        .iter()
        .map(|&k| gpu_world(spec, &pos, &inv_mass, gravity, k))
        .collect();
    for _ in 0..3 {
        for g in &mut worlds {
            step(g, &p);
        }
    }
    let near = worlds[1].read_near(n).expect("read").expect("grid");
    let walked = (0..n as usize).filter(|&s| near.candidates[s] > 2).count();
    let listed = (0..n as usize)
        .filter(|&s| (1..=2).contains(&near.candidates[s]))
        .count();
    eprintln!("[measure] capacity 2: {listed} slots read their lists, {walked} walk the grid");
    assert!(walked > 0 && listed > 0, "{listed} / {walked}");
    let (p16, v16) = worlds[0].read(n as usize).expect("read");
    let (before, after) = (overlapping(&pos), overlapping(&p16));
    eprintln!("[measure] overlapping pairs: {before} before, {after} after");
    assert!(before > 50 && 2 * after <= before, "{before} -> {after}");
    for (k, g) in worlds.iter().enumerate().skip(1) {
        let (pk, vk) = g.read(n as usize).expect("read");
        for (what, got, want) in [("position", &pk, &p16), ("velocity", &vk, &v16)] {
            let same = |a: &Vec4, b: &Vec4| {
                a.to_array().map(f32::to_bits) == b.to_array().map(f32::to_bits)
            };
            if let Some(i) = (0..n as usize).find(|&i| !same(&got[i], &want[i])) {
                panic!(
                    "world {k}: grain {i}'s {what} {:?} differs from the listed world's {:?}",
                    got[i], want[i]
                );
            }
        }
    }
}
