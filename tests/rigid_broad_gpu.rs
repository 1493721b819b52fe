//! The rigid broad phase on the GPU: the WGSL constants and entry points against the Rust ones,
//! and the GPU kernels against the CPU twins (identical pairs).

mod common;

use common::rigid::broad::{
    cpu_aabbs, first_difference, grid_pairs, scene, scene_spread, Cpu, Scene,
};
use glam::Vec4;
use std::collections::HashMap;
use wgphys::gpu::buffer::{self, STATE};
use wgphys::gpu::kernel::{Dispatch, Kernel};
use wgphys::gpu::GpuContext;
use wgphys::grid::{CpuGrid, GpuGrid};
use wgphys::rigid::broad::*;
use wgphys::rigid::gpu::shader_source;
use wgphys::rigid::types::*;

// ---------------------------------------------------------------------------------------------
// WGSL

fn parse_rigid() -> (naga::Module, naga::valid::ModuleInfo) {
    let src = shader_source();
    let module = naga::front::wgsl::parse_str(&src)
        .unwrap_or_else(|e| panic!("rigid shader: {}", e.emit_to_string(&src)));
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("rigid shader fails validation: {e:?}"));
    (module, info)
}

fn wgsl_u32_const(module: &naga::Module, name: &str) -> u32 {
    let (_, c) = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("const {name} missing from the rigid shader"));
    match module.global_expressions[c.init] {
        naga::Expression::Literal(naga::Literal::U32(v)) => v,
        ref e => panic!("const {name}: not a u32 literal: {e:?}"),
    }
}

#[test]
fn wgsl_constants_and_entry_points_match_the_rust_side() {
    let (module, _) = parse_rigid();
    assert_eq!(wgsl_u32_const(&module, "BROAD_BATCH"), PARTNER_BATCH);
    assert_eq!(wgsl_u32_const(&module, "BROAD_CHUNK"), LARGE_CHUNK);
    assert_eq!(
        wgsl_u32_const(&module, "BROAD_SCAN_PER_THREAD") * RIGID_WG,
        SCAN_BLOCK
    );
    let mut names = vec![shape_aabbs_pass(1).0];
    names.extend(broad_gpu_passes(1, 0).iter().map(|p| p.0));
    for name in names {
        let ep = module
            .entry_points
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("entry point {name} missing"));
        assert_eq!(
            ep.workgroup_size,
            [RIGID_WG, 1, 1],
            "{name}: workgroup size"
        );
    }
    let passes = broad_gpu_passes(1_000_000, 3);
    assert_eq!(
        passes[0],
        ("broad_count", broad_items(1_000_000, 3).div_ceil(RIGID_WG))
    );
    assert_eq!(passes[2], ("broad_scan_sums", 1));
    assert_eq!(broad_gpu_passes(u32::MAX / 2, 0)[0].1, MAX_GROUPS);
}

// ---------------------------------------------------------------------------------------------
// GPU against CPU

fn gpu() -> GpuContext {
    GpuContext::new().expect(
        "no GPU adapter: apt-get install -y mesa-vulkan-drivers (lavapipe) or use WGPU_BACKEND=gl",
    )
}

/// Group-0 bindings each entry point uses, from naga (the derived layouts hold exactly these).
fn used_bindings() -> HashMap<String, Vec<u32>> {
    let (module, info) = parse_rigid();
    let mut out = HashMap::new();
    for (i, ep) in module.entry_points.iter().enumerate() {
        let fi = info.get_entry_point(i);
        let mut used = Vec::new();
        for (h, var) in module.global_variables.iter() {
            if let Some(rb) = &var.binding {
                if rb.group == 0 && !fi[h].is_empty() {
                    used.push(rb.binding);
                }
            }
        }
        out.insert(ep.name.clone(), used);
    }
    out
}

struct GpuRun {
    shape_pos: Vec<Vec4>,
    shape_xf: Vec<Vec4>,
    grid: CpuGrid,
    pairs: Vec<[u32; 2]>,
    counters: [u32; 2],
    scratch: Vec<u32>,
    truncated: u32,
}

fn run_gpu(ctx: &GpuContext, s: &Scene, c: &Cpu) -> GpuRun {
    use wgphys::rigid::gpu::binding as b;
    let dev = &ctx.device;
    let n = s.shapes.len() as u32;
    let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("wgphys:test:rigid"),
        source: wgpu::ShaderSource::Wgsl(shader_source().into()),
    });
    let params = buffer::with_data(
        dev,
        "params",
        bytemuck::bytes_of(&c.params),
        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    );
    let bodies = buffer::with_data(dev, "bodies", bytemuck::cast_slice(&s.bodies), STATE);
    let shapes = buffer::with_data(dev, "shapes", bytemuck::cast_slice(&s.shapes), STATE);
    let shape_pos = buffer::zeroed(dev, "shape_pos", 16 * u64::from(n), STATE);
    let shape_xf = buffer::zeroed(dev, "shape_xf", 48 * u64::from(n), STATE);
    let pairs = buffer::zeroed(dev, "pairs", 8 * u64::from(c.params.pair_capacity), STATE);
    let counters = buffer::zeroed(dev, "counters", 4 * counter::LEN as u64, STATE);
    // The large list heads the scratch (see shaders/rigid/broad.wgsl).
    let mut scratch_words = c.plan.large.clone();
    scratch_words.resize(pair_scratch_words(n, c.plan.large.len() as u32) as usize, 0);
    let scratch = buffer::with_data(
        dev,
        "pair_scratch",
        bytemuck::cast_slice(&scratch_words),
        STATE,
    );
    let mut grid = GpuGrid::new(ctx, n.max(1), c.spec).expect("GPU grid");
    let uses = used_bindings();
    let kernel = |entry: &'static str, grid: &GpuGrid| {
        let mut k = Kernel::new(dev, &module, entry);
        let all: [(u32, &wgpu::Buffer); 11] = [
            (b::PARAMS, &params),
            (b::BODIES, &bodies),
            (b::SHAPES, &shapes),
            (b::SHAPE_POS, &shape_pos),
            (b::SHAPE_XF, &shape_xf),
            (b::PAIRS, &pairs),
            (b::COUNTERS, &counters),
            (b::GRID_SORTED, grid.sorted_index()),
            (b::GRID_START, grid.cell_start()),
            (b::GRID_END, grid.cell_end()),
            (b::PAIR_SCRATCH, &scratch),
        ];
        let used = &uses[entry];
        let entries: Vec<_> = all
            .iter()
            .filter(|(i, _)| used.contains(i))
            .copied()
            .collect();
        assert_eq!(entries.len(), used.len(), "{entry}: binds {used:?}");
        k.bind(dev, &entries);
        k
    };
    let submit = |record: &dyn Fn(&mut wgpu::CommandEncoder)| {
        let mut enc = dev.create_command_encoder(&Default::default());
        record(&mut enc);
        ctx.queue.submit([enc.finish()]);
    };
    let (entry, groups) = shape_aabbs_pass(n);
    let k = kernel(entry, &grid);
    submit(&|enc| k.record(enc, Dispatch::Direct(groups), None));
    let mut enc = dev.create_command_encoder(&Default::default());
    grid.encode_build(&mut enc, &shape_pos, n)
        .expect("grid build");
    ctx.queue.submit([enc.finish()]);
    let passes: Vec<_> = broad_gpu_passes(n, c.plan.large.len() as u32)
        .into_iter()
        .map(|(e, g)| (kernel(e, &grid), g))
        .collect();
    submit(&|enc| {
        for (k, g) in &passes {
            k.record(enc, Dispatch::Direct(*g), None);
        }
    });
    let read_vec4 = |buf: &wgpu::Buffer, count: usize| -> Vec<Vec4> {
        buffer::read_vec::<[f32; 4]>(dev, &ctx.queue, buf, count)
            .expect("readback")
            .into_iter()
            .map(Vec4::from_array)
            .collect()
    };
    let cnt: Vec<u32> = buffer::read_vec(dev, &ctx.queue, &counters, 2).expect("counters");
    let shapes_after: Vec<GpuShape> =
        buffer::read_vec(dev, &ctx.queue, &shapes, s.shapes.len()).expect("shapes");
    assert!(
        shapes_after == s.shapes,
        "the broad phase wrote into `shapes`"
    );
    let bodies_after: Vec<GpuBody> =
        buffer::read_vec(dev, &ctx.queue, &bodies, s.bodies.len()).expect("bodies");
    assert!(
        bodies_after == s.bodies,
        "the broad phase wrote into `bodies`"
    );
    let written = cnt[1].min(c.params.pair_capacity) as usize;
    let raw: Vec<[u32; 2]> = buffer::read_vec(dev, &ctx.queue, &pairs, written).expect("pairs");
    let mut run = GpuRun {
        shape_pos: read_vec4(&shape_pos, n as usize),
        shape_xf: read_vec4(&shape_xf, 3 * n as usize),
        grid: grid.read(n).expect("grid readback"),
        pairs: raw,
        scratch: buffer::read_vec(
            dev,
            &ctx.queue,
            &scratch,
            pair_scratch_words(n, c.plan.large.len() as u32) as usize,
        )
        .expect("scratch"),
        truncated: 0,
        counters: [cnt[counter::PAIRS], cnt[counter::PAIRS_WANTED]],
    };
    run.truncated = run.scratch[truncated_word(n, c.plan.large.len() as u32) as usize];
    run
}

/// `shape_aabbs`' outputs of one shape, GPU against CPU, each lane within what its operations
/// may differ by (error model, tests/common/error_model.rs, in units of u):
///
/// * the world centre c = body.pos + quat_rotate(orient, offset): QUAT (34u) of |offset| and
///   ROUND of c's lane; its w, the bounding radius: a box's |dims| (LENGTH of it), a sphere's
///   and a capsule's radius + half length (the same operands on both sides: exact);
/// * the world rotation q = orient·offset_rot (xyz: four products and three sums of terms ≤ 1,
///   each product CONTRACT + ROUND, each sum ROUND; w the same): 18u;
/// * the AABB c ∓ e: c's difference, e's and ROUND of the result. A box's e = Σ |R col j|·dⱼ
///   (R's columns quat_rotate(q, basis): QUAT and q's own 18u twice, the rotation being quadratic
///   in q: 70u per entry; the products and sums: 3u and 2 × 2u), a capsule's |axis|·d.y + d.x
///   (70u of d.y, the product and sum), a sphere's d.x: exact; + margin: ROUND of e. The flags
///   and motion in w: small integers, copied: exact. Planes' boxes are constants: exact.
fn assert_aabbs_close(what: &str, s: &Scene, gpu: (&[Vec4], &[Vec4]), cpu: (&[Vec4], &[Vec4])) {
    use common::error_model::cost::{CONTRACT, LENGTH, ROUND};
    use common::error_model::UNIT_ROUNDOFF as U;
    const QUAT: f64 = 34.0;
    const QUAT_MUL: f64 = 4.0 * (CONTRACT + ROUND) + 3.0 * ROUND;
    const ROTATION: f64 = QUAT + 2.0 * QUAT_MUL;
    assert_eq!(gpu.0.len(), cpu.0.len(), "{what}: shape_pos length");
    assert_eq!(gpu.1.len(), cpu.1.len(), "{what}: shape_xf length");
    let mut used = 0.0f64;
    let mut check = |field: &str, i: usize, g: Vec4, c: Vec4, tol: [f64; 4]| {
        for k in 0..4 {
            let d = f64::from((g[k] - c[k]).abs());
            assert!(
                d <= tol[k] || g[k] == c[k],
                "{what}: shape {i} {field}[{k}]: gpu {g}, cpu {c} (bound {:e})",
                tol[k]
            );
            if d > 0.0 {
                used = used.max(d / tol[k]);
            }
        }
    };
    for (i, sh) in s.shapes.iter().enumerate().take(cpu.0.len()) {
        let (cp, cq, clo, chi) = (cpu.0[i], cpu.1[3 * i], cpu.1[3 * i + 1], cpu.1[3 * i + 2]);
        let live = sh.kind != 0
            && (sh.body as usize) < s.bodies.len()
            && cp.w.is_finite()
            && cp.x.abs() < 1e29;
        if !live {
            check("shape_pos", i, gpu.0[i], cp, [0.0; 4]);
            for j in 0..3 {
                check("shape_xf", i, gpu.1[3 * i + j], cpu.1[3 * i + j], [0.0; 4]);
            }
            continue;
        }
        let offset = f64::from(sh.offset_pos.truncate().length());
        let lane = |v: Vec4, k: usize| f64::from(v[k].abs());
        let centre: [f64; 3] = std::array::from_fn(|k| (QUAT * offset + ROUND * lane(cp, k)) * U);
        let d = sh.dims;
        let radius = if sh.kind == shape_kind::BOX {
            LENGTH * f64::from(d.truncate().length()) * U
        } else {
            0.0
        };
        check(
            "shape_pos",
            i,
            gpu.0[i],
            cp,
            [centre[0], centre[1], centre[2], radius],
        );
        check(
            "shape_xf (rotation)",
            i,
            gpu.1[3 * i],
            cq,
            [QUAT_MUL * U; 4],
        );
        let plane = sh.kind == shape_kind::HALF_SPACE || sh.kind == shape_kind::PLANE;
        let e = match sh.kind {
            shape_kind::BOX => {
                (ROTATION + CONTRACT + ROUND) * f64::from(d.x + d.y + d.z) * U
                    + 2.0 * ROUND * f64::from(d.truncate().length()) * U
            }
            shape_kind::CAPSULE => {
                ((ROTATION + CONTRACT + ROUND) * f64::from(d.y) + ROUND * f64::from(d.x + d.y)) * U
            }
            _ => 0.0,
        };
        for (field, c, sign) in [("shape_xf (min)", clo, -1.0), ("shape_xf (max)", chi, 1.0)] {
            let tol = if plane {
                [0.0; 4]
            } else {
                let margin_round = ROUND * f64::from(d.truncate().length() + 1.0) * U;
                std::array::from_fn(|k| {
                    if k == 3 {
                        0.0
                    } else {
                        centre[k] + e + margin_round + ROUND * lane(c, k) * U
                    }
                })
            };
            let _ = sign;
            check(
                field,
                i,
                gpu.1[3 * i + if sign < 0.0 { 1 } else { 2 }],
                c,
                tol,
            );
        }
    }
    eprintln!(
        "[measure] {what}: largest share of a lane's bound used {:.0}%",
        100.0 * used
    );
}

/// `shape_aabbs` matches the CPU within its operations' bounds (flags and motion exactly), the grid built over
/// the GPU's `shape_pos` matches the CPU's build, and the pair list and counters equal
/// `broad_pairs` run on the GPU's AABBs, pair for pair, including on overflow.
#[test]
fn gpu_broad_phase_matches_the_cpu() {
    let ctx = gpu();
    eprintln!("adapter: {}", ctx.describe());
    // Densities from packed to sparse, an overflow, a large scene with many large shapes and
    // scan blocks, and a stress scene (radii over 100x, ~100 shapes per cell) that may exceed
    // llvmpipe's loop limit: it must then raise the truncation flag.
    let mut cases = vec![
        (scene(41, 37, 3.0), u32::MAX / 64, false),
        (scene(42, 500, 8.0), u32::MAX / 64, false),
        (scene(43, 900, 40.0), u32::MAX / 64, false),
        (scene(44, 400, 8.0), 100, false),
    ];
    let mut big = scene_spread(45, 12_000, 25.0, 10.0);
    for sh in big.shapes.iter_mut().skip(2).step_by(150) {
        if sh.kind != 0 {
            sh.dims *= 8.0;
        }
    }
    cases.push((big, u32::MAX / 64, false));
    cases.push((scene(46, 12_000, 60.0), u32::MAX / 64, true));
    for (ci, (s, cap, stress)) in cases.iter().enumerate() {
        let mut c = cpu_aabbs(s, 0);
        let full = grid_pairs(s, &c, &c.shape_pos, &c.shape_xf).1;
        c.params.pair_capacity = (*cap).min(full + 10);
        let g = run_gpu(&ctx, s, &c);
        let what = format!(
            "case {ci} ({} shapes, {} large, capacity {}, wanted {full})",
            s.shapes.len(),
            c.plan.large.len(),
            c.params.pair_capacity
        );
        assert_aabbs_close(
            &what,
            s,
            (&g.shape_pos, &g.shape_xf),
            (&c.shape_pos, &c.shape_xf),
        );
        for i in 0..s.shapes.len() {
            assert_eq!(
                g.shape_xf[3 * i + 1].w,
                c.shape_xf[3 * i + 1].w,
                "{what}: large flag of shape {i}"
            );
        }
        let cpu_grid = CpuGrid::build(&g.shape_pos, &c.spec).expect("grid");
        if *stress && g.truncated != 0 {
            eprintln!("{what}: truncated by the adapter's loop limit, and flagged");
            continue;
        }
        assert_eq!(g.truncated, 0, "{what}: truncation flag");
        assert!(
            cpu_grid == g.grid,
            "{what}: GPU grid differs from the CPU grid"
        );
        let (pairs, wanted) = grid_pairs(s, &c, &g.shape_pos, &g.shape_xf);
        {
            let input = BroadInput::new(&c.params, &s.bodies, &s.shapes, &g.shape_pos, &g.shape_xf);
            let mut counts = Vec::new();
            broad_count(&input, &c.plan.large, &cpu_grid, &c.spec, &mut counts);
            let items = counts.len();
            let blocks = items.div_ceil(SCAN_BLOCK as usize);
            let mut offsets = counts.clone();
            broad_scan(&mut offsets);
            // pair_scratch: the large list, the item offsets, the block offsets, the
            // truncation flag, the total.
            let base = c.plan.large.len();
            let gpu_off: Vec<u32> = (0..items)
                .map(|t| g.scratch[base + t] + g.scratch[base + items + t / SCAN_BLOCK as usize])
                .collect();
            assert_eq!(
                g.scratch.len(),
                base + items + blocks + 2,
                "{what}: scratch length"
            );
            assert_eq!(
                &g.scratch[..base],
                &c.plan.large[..],
                "{what}: the large list at the head of the scratch is left as written"
            );
            assert_eq!(
                g.scratch[base + items + blocks + 1],
                wanted,
                "{what}: the total after the flag"
            );
            if let Some(t) = (0..items).find(|&t| gpu_off[t] != offsets[t]) {
                panic!(
                    "{what}: offset of item {t} ({:?}): gpu {}, cpu {} (count {}); prev gpu {:?}",
                    broad_item(t as u32, s.shapes.len() as u32, &c.plan.large),
                    gpu_off[t],
                    offsets[t],
                    counts[t],
                    &gpu_off[t.saturating_sub(3)..t]
                );
            }
        }
        assert_eq!(g.counters[1], wanted, "{what}: counters[PAIRS_WANTED]");
        assert_eq!(
            g.counters[0],
            wanted.min(c.params.pair_capacity),
            "{what}: counters[PAIRS]"
        );
        if g.pairs != pairs {
            let input = BroadInput::new(&c.params, &s.bodies, &s.shapes, &g.shape_pos, &g.shape_xf);
            let mut offsets = Vec::new();
            broad_count(&input, &c.plan.large, &cpu_grid, &c.spec, &mut offsets);
            let counts = offsets.clone();
            broad_scan(&mut offsets);
            let bad: Vec<usize> = (0..pairs.len())
                .filter(|&i| g.pairs[i] != pairs[i])
                .collect();
            eprintln!("{} bad slots", bad.len());
            let mut seen = std::collections::BTreeSet::new();
            for &i in &bad {
                let t = offsets.partition_point(|&o| o as usize <= i) - 1;
                if seen.insert(t) {
                    let it = broad_item(t as u32, s.shapes.len() as u32, &c.plan.large);
                    let o = offsets[t] as usize;
                    let n = counts[t] as usize;
                    let wrong = (o..o + n).filter(|&k| g.pairs[k] != pairs[k]).count();
                    if let Some(k) = (o..o + n).find(|&k| g.pairs[k] != pairs[k]) {
                        eprintln!(
                            "  first wrong slot {} of item: gpu {:?} cpu {:?}",
                            k - o,
                            &g.pairs[k.saturating_sub(2)..(k + 6).min(o + n)],
                            &pairs[k.saturating_sub(2)..(k + 6).min(o + n)]
                        );
                    }
                    eprintln!(
                        "item {t} {it:?} offset {o} count {n}: {wrong} wrong; gpu {:?} cpu {:?}",
                        &g.pairs[o..(o + n).min(o + 20)],
                        &pairs[o..(o + n).min(o + 20)]
                    );
                }
                if seen.len() > 12 {
                    break;
                }
            }
        }
        assert!(
            g.pairs == pairs,
            "{what}: GPU pairs vs CPU: {}",
            first_difference(&g.pairs, &pairs)
        );
        eprintln!("{what}: {} pairs identical", g.pairs.len());
    }
}

/// The same parity through the world's own GPU host ([`GpuRigid`]: its buffers, bind groups and
/// grid): `shape_aabbs`, the grid build over `shape_pos`, then [`broad_gpu_passes`], as
/// `RigidWorld::step` records them.
#[test]
fn gpu_rigid_host_broad_phase_matches_the_cpu() {
    use wgphys::rigid::gpu::{GpuRigid, GpuRigidSizes, Pass};
    let ctx = gpu();
    for (ci, (s, overflow)) in [(scene(51, 700, 12.0), false), (scene(52, 300, 6.0), true)]
        .iter()
        .enumerate()
    {
        let mut c = cpu_aabbs(s, 0);
        let full = grid_pairs(s, &c, &c.shape_pos, &c.shape_xf).1;
        c.params.pair_capacity = if *overflow { full / 3 } else { full + 5 };
        let n = s.shapes.len() as u32;
        let k = c.plan.large.len() as u32;
        let mut g = GpuRigid::new(
            &ctx,
            GpuRigidSizes {
                bodies: s.bodies.len() as u32,
                shapes: n,
                pairs: c.params.pair_capacity,
                solver_words: u64::from(c.params.pair_capacity)
                    * u64::from(wgphys::rigid::solver::solver_record_rows()),
                pair_scratch_words: pair_scratch_words(n, k),
                grid: c.spec,
                block_bins: 0,
                joints: 0,
                joint_filter: 0,
                generators: 0,
            },
        )
        .expect("GpuRigid");
        g.write(&g.params, &[c.params]);
        g.write(&g.bodies, &s.bodies);
        g.write(&g.shapes, &s.shapes);
        g.write(&g.pair_scratch, &c.plan.large);
        let (entry, groups) = shape_aabbs_pass(n);
        g.run(&[Pass::direct(entry, groups)]).expect("shape_aabbs");
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        g.record_grid(&mut enc, n).expect("grid");
        ctx.queue.submit([enc.finish()]);
        let passes: Vec<Pass> = broad_gpu_passes(n, k)
            .into_iter()
            .map(|(e, w)| Pass::direct(e, w))
            .collect();
        g.run(&passes).expect("broad passes");
        let to_vec4 = |v: Vec<[f32; 4]>| v.into_iter().map(Vec4::from_array).collect::<Vec<_>>();
        let shape_pos = to_vec4(g.read(&g.shape_pos, n as usize).expect("shape_pos"));
        let shape_xf = to_vec4(g.read(&g.shape_xf, 3 * n as usize).expect("shape_xf"));
        let counters: Vec<u32> = g.read(&g.counters, 2).expect("counters");
        let written = counters[counter::PAIRS] as usize;
        let pairs: Vec<[u32; 2]> = g.read(&g.pairs, written).expect("pairs");
        let scratch: Vec<u32> = g
            .read(&g.pair_scratch, pair_scratch_words(n, k) as usize)
            .expect("scratch");
        let what = format!(
            "host case {ci} ({n} shapes, capacity {})",
            c.params.pair_capacity
        );
        assert_aabbs_close(
            &what,
            s,
            (&shape_pos, &shape_xf),
            (&c.shape_pos, &c.shape_xf),
        );
        let (cpu_pairs, wanted) = grid_pairs(s, &c, &shape_pos, &shape_xf);
        assert_eq!(wanted, full, "{what}: CPU wanted on GPU AABBs");
        assert_eq!(
            counters[counter::PAIRS_WANTED],
            wanted,
            "{what}: PAIRS_WANTED"
        );
        assert_eq!(
            counters[counter::PAIRS],
            wanted.min(c.params.pair_capacity),
            "{what}: PAIRS"
        );
        assert_eq!(
            scratch[truncated_word(n, k) as usize],
            0,
            "{what}: truncation flag"
        );
        assert!(
            pairs == cpu_pairs,
            "{what}: {}",
            first_difference(&pairs, &cpu_pairs)
        );
        eprintln!("{what}: {} pairs identical, {wanted} wanted", pairs.len());
    }
}

/// A broad phase cut short (what a software adapter's loop limit does to a very crowded cell)
/// leaves no pair of an earlier step for the narrow phase and is reported. The cut is forced
/// through the passes: `broad_count` and its scans count the pairs of 64 overlapping spheres,
/// then the spheres move apart and `broad_write` finds none of the counted pairs, so every
/// counted slot is left unwritten, as a cut-short item's are. The step before filled those
/// slots with real pairs; the narrow phase consumed them as it read them, so the slots now
/// hold no pair, give empty manifolds, and the narrow phase reports the cut.
#[test]
fn a_cut_short_broad_phase_leaves_no_stale_pair_and_is_reported() {
    use common::rigid::broad::{body, shape};
    use wgphys::rigid::gpu::{GpuRigid, GpuRigidSizes, Pass};
    let ctx = gpu();
    let lattice = |spacing: f32| {
        let mut s = Scene {
            bodies: Vec::new(),
            shapes: Vec::new(),
        };
        for i in 0..64u32 {
            let at = glam::UVec3::new(i % 4, (i / 4) % 4, i / 16).as_vec3() * spacing;
            s.bodies.push(body(
                body_kind::DYNAMIC,
                true,
                at,
                Vec4::new(0.0, 0.0, 0.0, 1.0),
            ));
            s.shapes
                .push(shape(shape_kind::SPHERE, i, Vec4::new(0.5, 0.0, 0.0, 0.0)));
        }
        s
    };
    let (close, apart) = (lattice(0.9), lattice(3.0));
    let c = cpu_aabbs(&close, 4096);
    let (close_pairs, wanted) = grid_pairs(&close, &c, &c.shape_pos, &c.shape_xf);
    assert!(
        wanted > 100,
        "the lattice's neighbours overlap: {wanted} pairs"
    );
    let mut params = c.params;
    params.pair_capacity = wanted + 8;
    let n = close.shapes.len() as u32;
    let mut g = GpuRigid::new(
        &ctx,
        GpuRigidSizes {
            bodies: 64,
            shapes: n,
            pairs: params.pair_capacity,
            solver_words: u64::from(params.pair_capacity)
                * u64::from(wgphys::rigid::solver::solver_record_rows()),
            pair_scratch_words: pair_scratch_words(n, 0),
            grid: c.spec,
            block_bins: 0,
            joints: 0,
            joint_filter: 0,
            generators: 0,
        },
    )
    .expect("GpuRigid");
    g.write(&g.params, &[params]);
    g.write(&g.shapes, &close.shapes);
    let (aabbs, groups) = shape_aabbs_pass(n);
    let broad: Vec<Pass> = broad_gpu_passes(n, 0)
        .into_iter()
        .map(|(e, w)| Pass::direct(e, w))
        .collect();
    // The bodies at new poses: their shapes' AABBs and the grid.
    let at_poses = |g: &mut GpuRigid, bodies: &[GpuBody]| {
        g.write(&g.bodies, bodies);
        g.run(&[Pass::direct(aabbs, groups)]).expect("shape_aabbs");
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        g.record_grid(&mut enc, n).expect("grid");
        ctx.queue.submit([enc.finish()]);
    };
    let narrow = Pass::over("narrow", params.pair_capacity);
    // Step 1: the whole broad phase, then the narrow phase.
    at_poses(&mut g, &close.bodies);
    g.run(&broad).expect("broad");
    let written: Vec<[u32; 2]> = g.read(&g.pairs, wanted as usize).expect("pairs");
    assert!(
        written == close_pairs,
        "step 1: {}",
        first_difference(&written, &close_pairs)
    );
    g.run(&[narrow]).expect("narrow");
    // Step 2: counted at the close poses, written at the spread ones.
    g.run(&broad[..3]).expect("broad_count and the scans");
    at_poses(&mut g, &apart.bodies);
    g.run(&broad[3..]).expect("broad_write");
    let counters: Vec<u32> = g.read(&g.counters, counter::LEN).expect("counters");
    assert_eq!(counters[counter::PAIRS], wanted, "the slots counted");
    let slots: Vec<[u32; 2]> = g.read(&g.pairs, wanted as usize).expect("pairs");
    let stale = slots.iter().filter(|p| **p != [NONE, NONE]).count();
    assert_eq!(
        stale,
        0,
        "unwritten slots kept {stale} pairs of step 1: {:?}",
        &slots[..8]
    );
    let scratch: Vec<u32> = g
        .read(&g.pair_scratch, pair_scratch_words(n, 0) as usize)
        .expect("scratch");
    assert_eq!(
        scratch[truncated_word(n, 0) as usize],
        1,
        "broad_write's flag"
    );
    g.run(&[narrow]).expect("narrow");
    let counters: Vec<u32> = g.read(&g.counters, counter::LEN).expect("counters");
    assert_eq!(
        counters[counter::BROAD_TRUNCATED],
        1,
        "the narrow phase reports the cut"
    );
    let manifolds: Vec<GpuManifold> = g.read(g.current_manifolds(), wanted as usize).expect("m");
    assert!(
        manifolds.iter().all(|m| m.count == 0),
        "an unwritten slot made contacts"
    );
    // A whole step at the spread poses clears the report.
    g.run(&broad).expect("broad");
    g.run(&[narrow]).expect("narrow");
    let counters: Vec<u32> = g.read(&g.counters, counter::LEN).expect("counters");
    assert_eq!(
        counters[counter::BROAD_TRUNCATED],
        0,
        "a whole broad phase is not cut"
    );
}
