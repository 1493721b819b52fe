//! The radix sort and the uniform grid: GPU against the CPU twin (bit for bit), the grid's
//! neighbour search against brute force, the WGSL neighbour loop against the CPU one, the
//! uniform-block layouts against naga, and bad input.

use glam::{Vec3, Vec4};
use std::collections::BTreeSet;
use wgphys::gpu::buffer;
use wgphys::gpu::kernel::{Dispatch, Kernel};
use wgphys::gpu::shader::{compose, prelude, BindingDecl};
use wgphys::gpu::sort::{key_mask, sort_pairs_cpu, GpuRadixSort, GpuSortParams, SortShape};
use wgphys::gpu::GpuContext;
use wgphys::grid::gpu::GpuGridParams;
use wgphys::grid::{cell_key, cell_of, CpuGrid, GpuGrid, GridSpec};
use wgphys::Error;

/// Counts that are not multiples of the workgroup or block size, from one pair to many blocks.
const SIZES: [u32; 5] = [1, 63, 1000, 65537, 300_000];

fn gpu() -> GpuContext {
    GpuContext::new().expect("no GPU adapter: apt-get install -y mesa-vulkan-drivers")
}

/// SplitMix64: seeded test input, independent of the engine's own generator.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.unit(), self.unit(), self.unit()) * (hi - lo) + Vec3::splat(lo)
    }
}

fn first_mismatch(a: &[u32], b: &[u32]) -> Option<(usize, u32, u32)> {
    a.iter()
        .zip(b)
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| (i, *x, *y))
}

fn assert_same(what: &str, gpu: &[u32], cpu: &[u32]) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: length");
    if let Some((i, g, c)) = first_mismatch(gpu, cpu) {
        panic!("{what}: first mismatch at {i}: gpu {g}, cpu {c}");
    }
}

// ---------------------------------------------------------------------------------------------
// Radix sort

/// Input keys for one case: `name` says what the distribution stresses.
fn sort_input(name: &str, n: u32, rng: &mut Rng) -> Vec<u32> {
    (0..n)
        .map(|i| match name {
            "uniform" => rng.u32(),
            // Six distinct keys: long runs of equal keys, so any instability shows.
            "few_distinct" => (rng.u32() % 6) * 0x0101_0101,
            // Garbage above the sorted bits must not take part in the order.
            "high_garbage" => rng.u32() | 0xf000_0000,
            "descending" => u32::MAX - i,
            _ => unreachable!(),
        })
        .collect()
}

/// The reference: std's stable sort by the masked key.
fn stable_reference(keys: &[u32], values: &[u32], key_bits: u32) -> (Vec<u32>, Vec<u32>) {
    let mask = key_mask(key_bits);
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| keys[i] & mask);
    (
        order.iter().map(|&i| keys[i]).collect(),
        order.iter().map(|&i| values[i]).collect(),
    )
}

#[test]
fn radix_sort_gpu_matches_cpu_and_is_stable() {
    let ctx = gpu();
    let mut rng = Rng(0x5eed_0001);
    let capacity = *SIZES.iter().max().unwrap_or(&1);
    // Both kernel shapes on this adapter: the one a CPU adapter gets and the one a GPU gets
    // (SortShape::for_adapter picks one; the other would go untested here).
    for (shape, key_bits, dist) in [SortShape::CPU, SortShape::GPU].into_iter().flat_map(|s| {
        [
            (1, "uniform"),
            (4, "few_distinct"),
            (7, "high_garbage"),
            (16, "uniform"),
            (20, "few_distinct"),
            (32, "descending"),
            (32, "few_distinct"),
        ]
        .map(|(k, d)| (s, k, d))
    }) {
        let sort = GpuRadixSort::with_shape(&ctx, capacity, key_bits, shape).expect("sort");
        for n in SIZES {
            let keys = sort_input(dist, n, &mut rng);
            // Values are the input positions, so a stable order is the only correct one.
            let values: Vec<u32> = (0..n).collect();
            let case = format!("{shape:?}, key_bits {key_bits}, {dist}, n {n}");
            let cpu = sort_pairs_cpu(&keys, &values, key_bits).expect("cpu sort");
            let reference = stable_reference(&keys, &values, key_bits);
            assert_same(
                &format!("cpu keys vs std stable sort ({case})"),
                &cpu.0,
                &reference.0,
            );
            assert_same(
                &format!("cpu values vs std stable sort ({case})"),
                &cpu.1,
                &reference.1,
            );

            ctx.queue
                .write_buffer(&sort.keys, 0, bytemuck::cast_slice(&keys));
            ctx.queue
                .write_buffer(&sort.values, 0, bytemuck::cast_slice(&values));
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            sort.encode(&mut enc, n).expect("encode");
            ctx.queue.submit([enc.finish()]);
            let (gk, gv) = sort.read(n).expect("read");
            assert_same(&format!("sorted keys ({case})"), &gk, &cpu.0);
            assert_same(&format!("sorted values ({case})"), &gv, &cpu.1);
        }
        // The input buffers are left as they were.
        let kept: Vec<u32> =
            buffer::read_vec(&ctx.device, &ctx.queue, &sort.keys, 63).expect("read input");
        assert_eq!(kept.len(), 63, "input keys readback");
    }
}

#[test]
fn radix_sort_rejects_bad_input() {
    let ctx = gpu();
    // A shape the kernels cannot run: items not a multiple of 4, no radix bits, a thread count
    // that is not a power of two, per-thread counters beyond the device's workgroup memory.
    for shape in [
        SortShape {
            items: 6,
            ..SortShape::GPU
        },
        SortShape {
            radix_bits: 0,
            ..SortShape::GPU
        },
        SortShape {
            threads: 96,
            ..SortShape::GPU
        },
        SortShape {
            threads: 256,
            radix_bits: 8,
            ..SortShape::GPU
        },
    ] {
        let r = GpuRadixSort::with_shape(&ctx, 16, 8, shape);
        assert!(
            matches!(
                r,
                Err(Error::InvalidInput {
                    what: "radix sort shape",
                    ..
                })
            ),
            "GpuRadixSort::with_shape accepted {shape:?}"
        );
    }
    for key_bits in [0, 33] {
        assert!(
            matches!(
                GpuRadixSort::new(&ctx, 16, key_bits),
                Err(Error::InvalidInput { .. })
            ),
            "GpuRadixSort::new accepted key_bits {key_bits}"
        );
        assert!(
            matches!(
                sort_pairs_cpu(&[1], &[1], key_bits),
                Err(Error::InvalidInput { .. })
            ),
            "sort_pairs_cpu accepted key_bits {key_bits}"
        );
    }
    assert!(matches!(
        sort_pairs_cpu(&[1, 2], &[1], 8),
        Err(Error::InvalidInput { .. })
    ));
    assert!(matches!(
        GpuRadixSort::new(&ctx, 0, 8),
        Err(Error::InvalidCapacity { .. })
    ));
    let sort = GpuRadixSort::new(&ctx, 16, 8).expect("sort");
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    assert!(matches!(
        sort.encode(&mut enc, 17),
        Err(Error::InvalidInput { .. })
    ));
    assert!(sort.encode(&mut enc, 0).is_ok(), "an empty sort is fine");
}

// ---------------------------------------------------------------------------------------------
// Scenes

fn v4(p: Vec3) -> Vec4 {
    p.extend(1.0)
}

/// Uniform in a cube of side `side` centred on the origin.
fn uniform_scene(n: u32, side: f32, rng: &mut Rng) -> Vec<Vec4> {
    (0..n)
        .map(|_| v4(rng.vec3(-0.5 * side, 0.5 * side)))
        .collect()
}

/// `clusters` blobs of roughly normal spread `spread` around random centres.
fn clustered_scene(n: u32, clusters: u32, side: f32, spread: f32, rng: &mut Rng) -> Vec<Vec4> {
    let centres: Vec<Vec3> = (0..clusters)
        .map(|_| rng.vec3(-0.5 * side, 0.5 * side))
        .collect();
    (0..n)
        .map(|i| {
            let c = centres[(i % clusters) as usize];
            let bump = (0..4).map(|_| rng.vec3(-1.0, 1.0)).sum::<Vec3>() * 0.5 * spread;
            v4(c + bump)
        })
        .collect()
}

/// Points exactly on a lattice of pitch `pitch` (= the cell size), so neighbours sit exactly at
/// the search radius and on cell boundaries; starts at negative coordinates.
fn lattice_scene(side: u32, pitch: f32) -> Vec<Vec4> {
    let mut out = Vec::new();
    for z in 0..side {
        for y in 0..side {
            for x in 0..side {
                let c = Vec3::new(x as f32, y as f32, z as f32) - Vec3::splat(side as f32 / 2.0);
                out.push(v4(c * pitch));
            }
        }
    }
    out
}

/// Coordinates that stress the cell function: signed zeros, subnormals, cell boundaries, and
/// values beyond the i32 cell range.
fn awkward_points() -> Vec<Vec4> {
    let tiny = f32::from_bits(1); // the smallest subnormal
    [
        Vec3::ZERO,
        Vec3::splat(-0.0),
        Vec3::new(tiny, -tiny, 1e-39),
        Vec3::new(-1e-39, 1e-38, -1e-38),
        Vec3::new(0.5, -0.5, 1.0),
        Vec3::new(1e12, -1e12, 3e38),
        Vec3::new(-3e38, 2.1e9, -2.2e9),
    ]
    .into_iter()
    .map(v4)
    .collect()
}

fn upload(ctx: &GpuContext, positions: &[Vec4]) -> wgpu::Buffer {
    buffer::with_data(
        &ctx.device,
        "test_positions",
        bytemuck::cast_slice(positions),
        buffer::STATE,
    )
}

fn gpu_build(ctx: &GpuContext, grid: &mut GpuGrid, positions: &wgpu::Buffer, n: u32) -> CpuGrid {
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    grid.encode_build(&mut enc, positions, n)
        .expect("encode_build");
    ctx.queue.submit([enc.finish()]);
    grid.read(n).expect("grid read")
}

fn assert_grid_eq(what: &str, gpu: &CpuGrid, cpu: &CpuGrid) {
    assert_same(
        &format!("{what}: sorted_keys"),
        &gpu.sorted_keys,
        &cpu.sorted_keys,
    );
    assert_same(
        &format!("{what}: sorted_index"),
        &gpu.sorted_index,
        &cpu.sorted_index,
    );
    assert_same(
        &format!("{what}: cell_start"),
        &gpu.cell_start,
        &cpu.cell_start,
    );
    assert_same(&format!("{what}: cell_end"), &gpu.cell_end, &cpu.cell_end);
}

// ---------------------------------------------------------------------------------------------
// Grid build

#[test]
fn cell_function_handles_awkward_coordinates() {
    let s = 0.5;
    assert_eq!(
        cell_of(Vec3::new(-0.0, 1e-40, -1e-40), s),
        glam::IVec3::ZERO,
        "signed zero and subnormals"
    );
    assert_eq!(
        cell_of(Vec3::new(0.5, -0.5, 0.49999997), s),
        glam::IVec3::new(1, -1, 0),
        "boundaries"
    );
    assert_eq!(
        cell_of(Vec3::new(1e30, -1e30, 0.0), s),
        glam::IVec3::new(2_147_483_520, i32::MIN, 0),
        "beyond the i32 range"
    );
    assert!(cell_key(glam::IVec3::new(3, -7, 11), 1024) < 1024);
}

#[test]
fn grid_build_gpu_matches_cpu() {
    let ctx = gpu();
    let mut rng = Rng(0x5eed_0002);
    let capacity = *SIZES.iter().max().unwrap_or(&1);
    // A roomy table, and a tiny one where most cells share keys.
    for spec in [GridSpec::new(1.0, 1 << 19), GridSpec::new(0.25, 64)] {
        let spec = spec.expect("spec");
        let mut grid = GpuGrid::new(&ctx, capacity, spec).expect("grid");
        // Sizes up, then down again: each build must clear what the previous one wrote.
        for (step, n) in SIZES
            .into_iter()
            .chain(SIZES.into_iter().rev().skip(1))
            .enumerate()
        {
            // About 1.5 particles per cell; awkward points first.
            let side = (n as f32 / 1.5).cbrt().max(1.0) * spec.cell_size;
            let mut positions = awkward_points();
            positions.truncate(n as usize);
            positions.extend(uniform_scene(n - positions.len() as u32, side, &mut rng));
            // A new buffer each build: the grid rebinds its positions.
            let buf = upload(&ctx, &positions);
            let cpu = CpuGrid::build(&positions, &spec).expect("cpu grid");
            let got = gpu_build(&ctx, &mut grid, &buf, n);
            assert_grid_eq(
                &format!("table {} build {step} n {n}", spec.table_size),
                &got,
                &cpu,
            );
        }
        // An empty build leaves an empty table.
        let buf = upload(&ctx, &[]);
        let got = gpu_build(&ctx, &mut grid, &buf, 0);
        assert!(
            got.cell_start.iter().chain(&got.cell_end).all(|&v| v == 0),
            "empty build: table not cleared"
        );
    }
}

#[test]
fn grid_rejects_bad_input() {
    for (cell_size, table_size) in [
        (0.0, 16),
        (-1.0, 16),
        (f32::NAN, 16),
        (f32::INFINITY, 16),
        (1e-40, 16),
        (1.0, 0),
        (1.0, 3),
        (1.0, 1000),
    ] {
        let err = GridSpec::new(cell_size, table_size).expect_err("bad spec accepted");
        let msg = err.to_string();
        let field = if table_size.is_power_of_two() {
            "cell_size"
        } else {
            "table_size"
        };
        assert!(
            msg.contains(field),
            "error for ({cell_size}, {table_size}) does not name {field}: {msg}"
        );
        let spec = GridSpec {
            cell_size,
            table_size,
        };
        assert!(
            CpuGrid::build(&[Vec4::ZERO], &spec).is_err(),
            "CpuGrid::build accepted {spec:?}"
        );
    }
    assert!(GridSpec::new(1.0, 1).is_ok(), "a one-key table is valid");
    let ctx = gpu();
    let bad = GridSpec {
        cell_size: 1.0,
        table_size: 3,
    };
    assert!(matches!(
        GpuGrid::new(&ctx, 16, bad),
        Err(Error::InvalidInput { .. })
    ));
    let spec = GridSpec::new(1.0, 16).expect("spec");
    assert!(matches!(
        GpuGrid::new(&ctx, 0, spec),
        Err(Error::InvalidCapacity { .. })
    ));
    let mut grid = GpuGrid::new(&ctx, 64, spec).expect("grid");
    // Four positions, padded to 256 bytes: room for 16.
    let small = upload(&ctx, &[Vec4::ZERO; 4]);
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    assert!(
        matches!(
            grid.encode_build(&mut enc, &small, 65),
            Err(Error::InvalidInput { .. })
        ),
        "n above capacity"
    );
    assert!(
        matches!(
            grid.encode_build(&mut enc, &small, 17),
            Err(Error::InvalidInput { .. })
        ),
        "positions too small"
    );
    let uniform_only = buffer::zeroed(
        &ctx.device,
        "not_storage",
        1024,
        wgpu::BufferUsages::UNIFORM,
    );
    assert!(
        matches!(
            grid.encode_build(&mut enc, &uniform_only, 4),
            Err(Error::InvalidInput { .. })
        ),
        "positions without STORAGE usage"
    );
}

// ---------------------------------------------------------------------------------------------
// Neighbour search

/// Every j != i within `radius` of i, by brute force, with the same distance test as the grid.
fn brute_force(positions: &[Vec4], radius: f32) -> Vec<Vec<u32>> {
    let r2 = radius * radius;
    (0..positions.len())
        .map(|i| {
            let pi = positions[i].truncate();
            (0..positions.len())
                .filter(|&j| j != i && (positions[j].truncate() - pi).length_squared() <= r2)
                .map(|j| j as u32)
                .collect()
        })
        .collect()
}

/// The grid's neighbours of every particle, in visiting order; panics on a repeat.
fn grid_neighbours(
    what: &str,
    grid: &CpuGrid,
    positions: &[Vec4],
    spec: &GridSpec,
    radius: f32,
) -> Vec<Vec<u32>> {
    (0..positions.len())
        .map(|i| {
            let mut seen = BTreeSet::new();
            let mut order = Vec::new();
            grid.for_each_neighbour(positions, spec, i, radius, |j| {
                assert!(
                    seen.insert(j),
                    "{what}: particle {i} visited neighbour {j} twice"
                );
                order.push(j as u32);
            });
            order
        })
        .collect()
}

/// Order-sensitive digest of a visiting sequence (count, FNV-1a of the indices), as the WGSL
/// test kernel computes it.
fn digest(order: &[u32]) -> [u32; 2] {
    let mut h = 0x811c_9dc5u32;
    for &j in order {
        h = (h ^ j).wrapping_mul(0x0100_0193);
    }
    [order.len() as u32, h]
}

/// A test kernel that walks every particle's neighbours with the loop documented in
/// grid_common.wgsl, writing (count, digest of the visiting order) per particle.
const WALK_WGSL: &str = r#"
struct WalkParams { n: u32, table_mask: u32, inv_cell_size: f32, radius: f32 }

@compute @workgroup_size(64)
fn grid_walk(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= walk.n) {
        return;
    }
    let pi = positions[i].xyz;
    var keys = grid_neighbour_keys(grid_cell(pi, walk.inv_cell_size), walk.table_mask);
    var count = 0u;
    var h = 0x811c9dc5u;
    for (var m = 0u; m < 27u; m = m + 1u) {
        if (grid_key_is_repeat(&keys, m)) {
            continue;
        }
        let k = keys[m];
        for (var s = cell_start[k]; s < cell_end[k]; s = s + 1u) {
            let j = sorted_index[s];
            let d = positions[j].xyz - pi;
            if (j != i && d.x * d.x + d.y * d.y + d.z * d.z <= walk.radius * walk.radius) {
                count = count + 1u;
                h = (h ^ j) * 0x01000193u;
            }
        }
    }
    out[i] = vec2<u32>(count, h);
}
"#;

fn walk_on_gpu(
    ctx: &GpuContext,
    grid: &GpuGrid,
    positions: &wgpu::Buffer,
    n: u32,
    radius: f32,
) -> Vec<[u32; 2]> {
    const RO: &str = "storage, read";
    let bindings = [
        BindingDecl {
            index: 0,
            name: "walk",
            space: "uniform",
            ty: "WalkParams",
        },
        BindingDecl {
            index: 1,
            name: "positions",
            space: RO,
            ty: "array<vec4<f32>>",
        },
        BindingDecl {
            index: 2,
            name: "sorted_index",
            space: RO,
            ty: "array<u32>",
        },
        BindingDecl {
            index: 3,
            name: "cell_start",
            space: RO,
            ty: "array<u32>",
        },
        BindingDecl {
            index: 4,
            name: "cell_end",
            space: RO,
            ty: "array<u32>",
        },
        BindingDecl {
            index: 5,
            name: "out",
            space: "storage, read_write",
            ty: "array<vec2<u32>>",
        },
    ];
    let src = compose(
        &prelude(&[], &bindings),
        &[&wgphys::grid::gpu::common_source(), WALK_WGSL],
    );
    let module = ctx
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgphys:shader:test_grid_walk"),
            source: wgpu::ShaderSource::Wgsl(src.into()),
        });
    let spec = grid.spec();
    let params: [u32; 4] = [
        n,
        spec.table_mask(),
        spec.inv_cell_size().to_bits(),
        radius.to_bits(),
    ];
    let params = buffer::with_data(
        &ctx.device,
        "walk_params",
        bytemuck::cast_slice(&params),
        wgpu::BufferUsages::UNIFORM,
    );
    let out = buffer::zeroed(&ctx.device, "walk_out", 8 * u64::from(n), buffer::STATE);
    let mut kernel = Kernel::new(&ctx.device, &module, "grid_walk");
    kernel.bind(
        &ctx.device,
        &[
            (0, &params),
            (1, positions),
            (2, grid.sorted_index()),
            (3, grid.cell_start()),
            (4, grid.cell_end()),
            (5, &out),
        ],
    );
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    kernel.record(&mut enc, Dispatch::Direct(n.div_ceil(64)), None);
    ctx.queue.submit([enc.finish()]);
    let flat: Vec<u32> =
        buffer::read_vec(&ctx.device, &ctx.queue, &out, 2 * n as usize).expect("walk readback");
    flat.chunks(2).map(|c| [c[0], c[1]]).collect()
}

#[test]
fn grid_finds_exactly_the_brute_force_pairs() {
    let ctx = gpu();
    let mut rng = Rng(0x5eed_0003);
    // (name, positions, radius, table_size); the cell size is twice the radius, as for spheres
    // of that radius, except the lattice, whose pitch is the cell size and the search radius.
    let scenes: Vec<(&str, Vec<Vec4>, f32, u32)> = vec![
        ("sparse", uniform_scene(2000, 40.0, &mut rng), 0.5, 4096),
        ("dense", uniform_scene(2000, 3.0, &mut rng), 0.15, 4096),
        (
            "clustered",
            clustered_scene(2000, 7, 20.0, 0.4, &mut rng),
            0.1,
            4096,
        ),
        (
            "collisions (table 8)",
            uniform_scene(1500, 4.0, &mut rng),
            0.3,
            8,
        ),
        (
            "one key (table 1)",
            clustered_scene(1000, 3, 5.0, 0.5, &mut rng),
            0.2,
            1,
        ),
        ("lattice", lattice_scene(11, 0.5), 0.25, 256),
    ];
    for (name, positions, r, table_size) in scenes {
        let (cell_size, radius) = if name == "lattice" {
            (0.5, 0.5)
        } else {
            (2.0 * r, 2.0 * r)
        };
        let spec = GridSpec::new(cell_size, table_size).expect("spec");
        let expected = brute_force(&positions, radius);
        let pairs: usize = expected.iter().map(Vec::len).sum();
        assert!(
            pairs > 0,
            "{name}: the scene has no pairs, so it tests nothing"
        );

        let cpu = CpuGrid::build(&positions, &spec).expect("cpu grid");
        let n = positions.len() as u32;
        let buf = upload(&ctx, &positions);
        let mut grid = GpuGrid::new(&ctx, n, spec).expect("grid");
        let gpu_grid = gpu_build(&ctx, &mut grid, &buf, n);
        assert_grid_eq(name, &gpu_grid, &cpu);

        for (backend, built) in [("cpu", &cpu), ("gpu-built", &gpu_grid)] {
            let found = grid_neighbours(name, built, &positions, &spec, radius);
            for (i, (f, e)) in found.iter().zip(&expected).enumerate() {
                let mut sorted = f.clone();
                sorted.sort_unstable();
                assert_eq!(
                    &sorted, e,
                    "{name} ({backend} ranges): neighbours of particle {i}"
                );
            }
        }

        let walked = walk_on_gpu(&ctx, &grid, &buf, n, radius);
        let found = grid_neighbours(name, &cpu, &positions, &spec, radius);
        for (i, (w, f)) in walked.iter().zip(&found).enumerate() {
            assert_eq!(
                *w,
                digest(f),
                "{name}: WGSL walk of particle {i} (count, order digest) differs from the CPU walk"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Layout

/// Checks that WGSL struct `name` in `src` has exactly `fields` (name, byte offset), in order,
/// and a size of `size` bytes.
fn assert_struct_layout(src: &str, name: &str, fields: &[(&str, usize)], size: usize) {
    let module = naga::front::wgsl::parse_str(src)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(src)));
    let ty = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("struct {name} missing from its shader"))
        .1;
    let naga::TypeInner::Struct { members, span } = &ty.inner else {
        panic!("{name} is not a struct");
    };
    assert_eq!(*span as usize, size, "{name}: size");
    assert_eq!(members.len(), fields.len(), "{name}: field count");
    for (m, &(field, offset)) in members.iter().zip(fields) {
        assert_eq!(m.name.as_deref(), Some(field), "{name}: field order");
        assert_eq!(m.offset as usize, offset, "{name}.{field}: offset");
    }
}

/// The uniform blocks' Rust mirrors match the WGSL structs, field by field.
#[test]
fn uniform_blocks_match_wgsl_layout() {
    use std::mem::{offset_of, size_of};
    assert_struct_layout(
        &wgphys::gpu::sort::shader_source(),
        "SortParams",
        &[
            ("n", offset_of!(GpuSortParams, n)),
            ("shift", offset_of!(GpuSortParams, shift)),
            ("blocks", offset_of!(GpuSortParams, blocks)),
            ("key_mask", offset_of!(GpuSortParams, key_mask)),
        ],
        size_of::<GpuSortParams>(),
    );
    assert_struct_layout(
        &wgphys::grid::gpu::shader_source(),
        "GridParams",
        &[
            ("n", offset_of!(GpuGridParams, n)),
            ("table_mask", offset_of!(GpuGridParams, table_mask)),
            ("inv_cell_size", offset_of!(GpuGridParams, inv_cell_size)),
            ("pad", offset_of!(GpuGridParams, pad)),
        ],
        size_of::<GpuGridParams>(),
    );
}
