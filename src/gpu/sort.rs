//! A stable LSD radix sort of `(u32 key, u32 value)` pairs on the GPU, and its CPU twin.
//!
//! Only the low `key_bits` bits of a key decide the order; pairs with equal (masked) keys keep
//! their input order. The sorted order is therefore unique, and both backends produce it bit for
//! bit: the GPU passes place every pair from prefix sums over per-block digit counts, never
//! through atomics (see `shaders/gpu/radix_sort.wgsl`).
//!
//! ```no_run
//! use wgphys::gpu::{sort::GpuRadixSort, GpuContext};
//! let ctx = GpuContext::new()?;
//! let sort = GpuRadixSort::new(&ctx, 1000, 16)?;
//! let keys: Vec<u32> = (0..1000u32).map(|i| (i * 7919) % 65536).collect();
//! let values: Vec<u32> = (0..1000).collect();
//! ctx.queue.write_buffer(&sort.keys, 0, bytemuck::cast_slice(&keys));
//! ctx.queue.write_buffer(&sort.values, 0, bytemuck::cast_slice(&values));
//! let mut encoder = ctx.device.create_command_encoder(&Default::default());
//! sort.encode(&mut encoder, 1000)?;
//! ctx.queue.submit([encoder.finish()]);
//! let (sorted_keys, sorted_values) = sort.read(1000)?;
//! # Ok::<(), wgphys::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::gpu::buffer::{self, STATE};
use crate::gpu::shader::{compose, prelude, BindingDecl};
use crate::gpu::upload::StepUploads;
use crate::gpu::GpuContext;
use std::mem::size_of;
use wgpu::BufferUsages as U;

/// The shape of the sort's kernels, chosen per adapter ([`SortShape::for_adapter`]): every
/// shape sorts the same pairs into the same (unique, stable) order; only the speed differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortShape {
    /// Threads per workgroup.
    pub threads: u32,
    /// Consecutive pairs each thread ranks serially (a multiple of 4: they are loaded as
    /// vec4s).
    pub items: u32,
    /// Bits of the key sorted per pass.
    pub radix_bits: u32,
}

impl SortShape {
    /// Tuned on Mesa's CPU adapters, where a workgroup runs as 8-lane SIMD on one core and
    /// every load or store of a lane is an instruction of its own: 8-bit digits halve the
    /// passes of 4-bit ones (three passes sort a 2^17..2^24 grid table), eight threads (one
    /// SIMD vector) make barriers nearly free (llvmpipe over GL slows down by 10-100x with
    /// 256-thread workgroups that synchronise), and long per-thread chunks amortise the
    /// per-block histogram scan.
    pub const CPU: Self = Self {
        threads: 8,
        items: 1024,
        radix_bits: 8,
    };
    /// For GPUs, where the CPU shape's serial walk of 1,024 pairs per thread leaves a million
    /// pairs to about a thousand threads, each waiting on one load after another (2.7 ms per
    /// million-pair sort on an H200): 128 threads of 8 pairs per block give every pair's
    /// latency a thread of its own to hide behind, adjacent threads read adjacent 32-byte
    /// runs, and 4-bit digits keep the per-thread counters (16 x 128 x 4 bytes = 8 KiB)
    /// within WebGPU's 16 KiB of workgroup memory, for twice the passes.
    pub const GPU: Self = Self {
        threads: 128,
        items: 8,
        radix_bits: 4,
    };

    /// [`SortShape::CPU`] on a CPU adapter (lavapipe, llvmpipe, WARP), else
    /// [`SortShape::GPU`].
    #[must_use]
    pub fn for_adapter(ctx: &GpuContext) -> Self {
        if ctx.info.device_type == wgpu::DeviceType::Cpu {
            Self::CPU
        } else {
            Self::GPU
        }
    }

    /// Pairs per block, the unit of the per-digit counts: `threads * items`.
    pub fn block(self) -> u32 {
        self.threads * self.items
    }

    /// Digits per pass: `1 << radix_bits`.
    pub fn radix(self) -> u32 {
        1 << self.radix_bits
    }

    /// Radix passes needed for `key_bits` bits: `ceil(key_bits / radix_bits)`.
    pub fn passes_for(self, key_bits: u32) -> u32 {
        key_bits.div_ceil(self.radix_bits)
    }

    /// Bytes of workgroup memory the kernels declare: the per-thread digit counters
    /// (`radix * threads`), the scan's row (`threads`), the block's digit bases (`radix`) and
    /// one word.
    pub fn workgroup_bytes(self) -> u32 {
        4 * (self.radix() * self.threads + self.threads + self.radix() + 1)
    }

    fn check(self, ctx: &GpuContext) -> Result<()> {
        let limits = ctx.device.limits();
        let ok = self.items > 0
            && self.items.is_multiple_of(4)
            && (1..=8).contains(&self.radix_bits)
            && self.threads.is_power_of_two()
            && self.threads <= limits.max_compute_workgroup_size_x
            && self.threads <= limits.max_compute_invocations_per_workgroup
            && self.workgroup_bytes() <= limits.max_compute_workgroup_storage_size;
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidInput {
                what: "radix sort shape",
                value: format!("{self:?}"),
                fix: "use SortShape::CPU or SortShape::GPU, or a shape with items a multiple \
                      of 4, 1 to 8 radix bits, a power-of-two thread count and workgroup memory \
                      within the device's limits",
            })
        }
    }
}

/// The most workgroups one dimension of a dispatch may have on every adapter.
const MAX_GROUPS: u32 = 65_535;

/// Binding indices of the sort's group 0, named once.
pub mod binding {
    #![allow(missing_docs)]
    pub const PARAMS: u32 = 0;
    pub const SRC_KEYS: u32 = 1;
    pub const SRC_VALUES: u32 = 2;
    pub const DST_KEYS: u32 = 3;
    pub const DST_VALUES: u32 = 4;
    pub const DIGIT_COUNTS: u32 = 5;
}

const RW: &str = "storage, read_write";
const RO: &str = "storage, read";

/// The sort's bindings, emitted into the WGSL prelude.
pub const BINDINGS: &[BindingDecl] = &[
    BindingDecl {
        index: binding::PARAMS,
        name: "params",
        space: "uniform",
        ty: "SortParams",
    },
    BindingDecl {
        index: binding::SRC_KEYS,
        name: "src_keys",
        space: RO,
        ty: "array<vec4<u32>>",
    },
    BindingDecl {
        index: binding::SRC_VALUES,
        name: "src_values",
        space: RO,
        ty: "array<vec4<u32>>",
    },
    BindingDecl {
        index: binding::DST_KEYS,
        name: "dst_keys",
        space: RW,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::DST_VALUES,
        name: "dst_values",
        space: RW,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::DIGIT_COUNTS,
        name: "digit_counts",
        space: RW,
        ty: "array<u32>",
    },
];

/// Mirror of WGSL `SortParams` in `shaders/gpu/radix_sort.wgsl`: one uniform block per pass.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuSortParams {
    /// Pairs to sort.
    pub n: u32,
    /// Lowest bit of this pass's digit.
    pub shift: u32,
    /// Blocks of [`SortShape::block`] pairs: `ceil(n / block)`.
    pub blocks: u32,
    /// Mask of the key bits that take part in the order.
    pub key_mask: u32,
}

/// What the sort's kernels need of a device (both its shapes), read from their WGSL once.
///
/// # Errors
/// [`crate::Error::Gpu`] if a module does not validate (an engine bug).
pub fn kernel_needs() -> Result<crate::gpu::shader::KernelNeeds> {
    use crate::gpu::shader::{kernel_needs_once, KernelTable};
    static ONE: std::sync::OnceLock<KernelTable> = std::sync::OnceLock::new();
    static GPU_SHAPE: std::sync::OnceLock<KernelTable> = std::sync::OnceLock::new();
    let one = kernel_needs_once(&ONE, shader_source)?.most(&[]);
    let gpu = kernel_needs_once(&GPU_SHAPE, || shader_source_for(SortShape::GPU))?.most(&[]);
    Ok(one.max(&gpu))
}

/// The composed WGSL module of the sort in its CPU shape (the shader checks).
pub fn shader_source() -> String {
    shader_source_for(SortShape::CPU)
}

/// The composed WGSL module of the sort for `shape`.
pub fn shader_source_for(shape: SortShape) -> String {
    let consts = [
        ("SORT_WG", shape.threads),
        ("SORT_ITEMS", shape.items),
        ("SORT_BLOCK", shape.block()),
        ("RADIX", shape.radix()),
        ("SORT_HIST", shape.radix() * shape.threads),
    ];
    compose(
        &prelude(&consts, BINDINGS),
        &[include_str!("../../shaders/gpu/radix_sort.wgsl")],
    )
}

/// Bits per pass of the CPU twin, [`sort_pairs_cpu`] (its order does not depend on them).
const CPU_RADIX_BITS: u32 = 8;

/// The mask of the low `key_bits` bits.
pub fn key_mask(key_bits: u32) -> u32 {
    if key_bits >= 32 {
        u32::MAX
    } else {
        (1u32 << key_bits) - 1
    }
}

fn check_key_bits(key_bits: u32) -> Result<()> {
    if (1..=32).contains(&key_bits) {
        Ok(())
    } else {
        Err(Error::InvalidInput {
            what: "radix sort key_bits",
            value: key_bits.to_string(),
            fix: "pass the number of low key bits to sort by, from 1 to 32",
        })
    }
}

/// The CPU twin of [`GpuRadixSort`]: the same passes (`sort_count`, `sort_scan`,
/// `sort_scatter` per digit of 8 bits), with one block spanning the whole input. A stable sort's
/// order is unique, so it matches every [`SortShape`].
/// Returns the pairs stably sorted by `key & key_mask(key_bits)`, which is the same as sorting by
/// `(key & mask, input position)`; keys come out whole, unmasked.
///
/// # Errors
/// [`Error::InvalidInput`] when `key_bits` is not in `1..=32` or the slices differ in length.
pub fn sort_pairs_cpu(keys: &[u32], values: &[u32], key_bits: u32) -> Result<(Vec<u32>, Vec<u32>)> {
    check_key_bits(key_bits)?;
    if keys.len() != values.len() {
        return Err(Error::InvalidInput {
            what: "radix sort input",
            value: format!("{} keys, {} values", keys.len(), values.len()),
            fix: "pass as many values as keys",
        });
    }
    let mask = key_mask(key_bits);
    let mut src = (keys.to_vec(), values.to_vec());
    let mut dst = (vec![0u32; keys.len()], vec![0u32; keys.len()]);
    const RADIX: u32 = 1 << CPU_RADIX_BITS;
    for pass in 0..key_bits.div_ceil(CPU_RADIX_BITS) {
        let shift = pass * CPU_RADIX_BITS;
        let digit = |key: u32| (((key & mask) >> shift) & (RADIX - 1)) as usize;
        // sort_count
        let mut offsets = [0u32; RADIX as usize];
        for &key in &src.0 {
            offsets[digit(key)] += 1;
        }
        // sort_scan
        let mut run = 0;
        for o in &mut offsets {
            let count = *o;
            *o = run;
            run += count;
        }
        // sort_scatter
        for (&key, &value) in src.0.iter().zip(&src.1) {
            let d = digit(key);
            let slot = offsets[d] as usize;
            offsets[d] += 1;
            dst.0[slot] = key;
            dst.1[slot] = value;
        }
        std::mem::swap(&mut src, &mut dst);
    }
    Ok(src)
}

/// One compiled sort entry point with a bind group per pass (the passes differ in their
/// source and destination buffers and in their uniform block).
#[derive(Debug)]
struct Stage {
    name: &'static str,
    pipeline: wgpu::ComputePipeline,
    groups: Vec<wgpu::BindGroup>,
}

impl Stage {
    fn new(device: &wgpu::Device, module: &wgpu::ShaderModule, name: &'static str) -> Self {
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&format!("wgphys:pipeline:{name}")),
            layout: None,
            module,
            entry_point: Some(name),
            compilation_options: Default::default(),
            cache: None,
        });
        Self {
            name,
            pipeline,
            groups: Vec::new(),
        }
    }

    fn add_group(&mut self, device: &wgpu::Device, entries: &[(u32, &wgpu::Buffer)]) {
        let layout = self.pipeline.get_bind_group_layout(0);
        let entries: Vec<wgpu::BindGroupEntry> = entries
            .iter()
            .map(|(binding, buffer)| wgpu::BindGroupEntry {
                binding: *binding,
                resource: buffer.as_entire_binding(),
            })
            .collect();
        self.groups
            .push(device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&format!(
                    "wgphys:bind_group:{}:{}",
                    self.name,
                    self.groups.len()
                )),
                layout: &layout,
                entries: &entries,
            }));
    }

    fn dispatch_in(&self, pass: &mut wgpu::ComputePass<'_>, group: usize, workgroups: u32) {
        if let Some(g) = self.groups.get(group) {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, g, &[]);
            pass.dispatch_workgroups(workgroups, 1, 1);
        }
    }
}

/// A GPU radix sort of up to `capacity` `(u32 key, u32 value)` pairs by their low `key_bits`
/// bits, with every buffer and bind group made at construction.
///
/// Write the input pairs into [`keys`](Self::keys) and [`values`](Self::values) (with
/// `queue.write_buffer`, a copy, or your own kernel), record [`encode`](Self::encode), and read
/// the result from [`sorted_keys`](Self::sorted_keys) and [`sorted_values`](Self::sorted_values).
/// The input buffers are left unchanged.
#[derive(Debug)]
pub struct GpuRadixSort {
    ctx: GpuContext,
    capacity: u32,
    key_bits: u32,
    shape: SortShape,
    /// Input keys, `array<u32>` of `capacity` entries (storage, copy source and destination).
    pub keys: wgpu::Buffer,
    /// Input values, `array<u32>` of `capacity` entries (storage, copy source and destination).
    pub values: wgpu::Buffer,
    out_keys: wgpu::Buffer,
    out_values: wgpu::Buffer,
    // The ping-pong partners of out_* (so the last pass always lands in out_*) and the digit
    // counts; only the bind groups use them.
    _scratch: [wgpu::Buffer; 3],
    params: Vec<wgpu::Buffer>,
    // The n the per-pass parameters hold (0: none written yet).
    /// The per-pass parameters, recorded into the encoder of each sort.
    uploads: StepUploads,
    count: Stage,
    scan: Stage,
    scatter: Stage,
}

impl GpuRadixSort {
    /// Creates the buffers, pipelines and per-pass bind groups for sorting up to `capacity`
    /// pairs by their low `key_bits` bits, in the adapter's shape
    /// ([`SortShape::for_adapter`]; [`SortShape::passes_for`]`(key_bits)` passes of three
    /// dispatches).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when `key_bits` is not in `1..=32`;
    /// [`Error::InvalidCapacity`] for a capacity of 0 or one needing more than 65535 blocks;
    /// [`Error::CapacityTooLarge`] when a buffer exceeds the device's binding limit.
    pub fn new(ctx: &GpuContext, capacity: u32, key_bits: u32) -> Result<Self> {
        Self::with_shape(ctx, capacity, key_bits, SortShape::for_adapter(ctx))
    }

    /// As [`new`](Self::new), in a given shape (tests run both shapes on one adapter).
    ///
    /// # Errors
    /// As [`new`](Self::new), and [`Error::InvalidInput`] for a shape the device cannot run.
    pub fn with_shape(
        ctx: &GpuContext,
        capacity: u32,
        key_bits: u32,
        shape: SortShape,
    ) -> Result<Self> {
        check_key_bits(key_bits)?;
        shape.check(ctx)?;
        check_capacity(ctx, capacity, shape)?;
        let device = &ctx.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgphys:shader:sort"),
            source: wgpu::ShaderSource::Wgsl(shader_source_for(shape).into()),
        });
        // Whole vec4s: the passes read their source four pairs at a time.
        let bytes = 4 * u64::from(capacity).next_multiple_of(4);
        let blocks = capacity.div_ceil(shape.block());
        let make = |name: &str| buffer::zeroed(device, name, bytes, STATE);
        let pairs = [
            make("sort_keys"),
            make("sort_values"),
            make("sort_out_keys"),
            make("sort_out_values"),
            make("sort_tmp_keys"),
            make("sort_tmp_values"),
        ];
        let digit_counts = buffer::zeroed(
            device,
            "sort_digit_counts",
            4 * u64::from(shape.radix() * blocks),
            STATE,
        );
        let passes = shape.passes_for(key_bits);
        let params: Vec<wgpu::Buffer> = (0..passes)
            .map(|p| {
                buffer::zeroed(
                    device,
                    &format!("sort_params{p}"),
                    size_of::<GpuSortParams>() as u64,
                    U::UNIFORM | U::COPY_DST,
                )
            })
            .collect();
        let mut count = Stage::new(device, &module, "sort_count");
        let mut scan = Stage::new(device, &module, "sort_scan");
        let mut scatter = Stage::new(device, &module, "sort_scatter");
        {
            use binding::*;
            let counts = &digit_counts;
            for (p, params) in (0..passes).zip(&params) {
                let [sk, sv, dk, dv] = pass_buffers(&pairs, passes, p);
                count.add_group(
                    device,
                    &[(PARAMS, params), (SRC_KEYS, sk), (DIGIT_COUNTS, counts)],
                );
                scan.add_group(device, &[(PARAMS, params), (DIGIT_COUNTS, counts)]);
                scatter.add_group(
                    device,
                    &[
                        (PARAMS, params),
                        (SRC_KEYS, sk),
                        (SRC_VALUES, sv),
                        (DST_KEYS, dk),
                        (DST_VALUES, dv),
                        (DIGIT_COUNTS, counts),
                    ],
                );
            }
        }
        let [keys, values, out_keys, out_values, tmp_keys, tmp_values] = pairs;
        Ok(Self {
            ctx: ctx.clone(),
            capacity,
            key_bits,
            shape,
            keys,
            values,
            out_keys,
            out_values,
            _scratch: [tmp_keys, tmp_values, digit_counts],
            params,
            uploads: StepUploads::new(ctx, "wgphys:upload:sort"),
            count,
            scan,
            scatter,
        })
    }

    /// The most pairs one [`encode`](Self::encode) sorts.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// The number of low key bits that decide the order.
    pub fn key_bits(&self) -> u32 {
        self.key_bits
    }

    /// The shape of the kernels.
    pub fn shape(&self) -> SortShape {
        self.shape
    }

    /// Radix passes per sort; each records three dispatches.
    pub fn passes(&self) -> u32 {
        self.shape.passes_for(self.key_bits)
    }

    /// Dispatches one [`encode`](Self::encode) records for `n > 0` pairs.
    pub fn dispatches(&self) -> u32 {
        3 * self.passes()
    }

    /// Sorted keys after [`encode`](Self::encode): `array<u32>`, the first `n` entries valid.
    pub fn sorted_keys(&self) -> &wgpu::Buffer {
        &self.out_keys
    }

    /// Values in sorted-key order after [`encode`](Self::encode): `array<u32>`, the first `n`
    /// entries valid.
    pub fn sorted_values(&self) -> &wgpu::Buffer {
        &self.out_values
    }

    /// Records the sort of the first `n` pairs of [`keys`](Self::keys) / [`values`](Self::values)
    /// into `encoder`, as one compute pass labelled `wgphys:pass:sort` holding every radix
    /// pass's `sort_count`, `sort_scan` and `sort_scatter` dispatches. `n = 0` records nothing.
    ///
    /// `n` reaches the GPU as a copy recorded into `encoder` ahead of the pass, so sorts of
    /// different counts may be recorded into one encoder.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when `n` exceeds the capacity.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, n: u32) -> Result<()> {
        self.prepare(encoder, n)?;
        if n == 0 {
            return Ok(());
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wgphys:pass:sort"),
            timestamp_writes: None,
        });
        self.dispatch_in(&mut pass, n);
        Ok(())
    }

    /// Checks `n` and records the copies of the per-pass parameters for sorting `n` pairs into
    /// `encoder`. Call before [`dispatch_in`](Self::dispatch_in) (outside its pass).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when `n` exceeds the capacity.
    pub fn prepare(&self, encoder: &mut wgpu::CommandEncoder, n: u32) -> Result<()> {
        if n > self.capacity {
            return Err(Error::InvalidInput {
                what: "radix sort count n",
                value: format!("{n} (capacity {})", self.capacity),
                fix:
                    "sort at most `capacity` pairs, or create a GpuRadixSort with a larger capacity",
            });
        }
        if n == 0 {
            return Ok(());
        }
        let blocks = n.div_ceil(self.shape.block());
        for p in 0..self.passes() {
            let params = GpuSortParams {
                n,
                shift: p * self.shape.radix_bits,
                blocks,
                key_mask: key_mask(self.key_bits),
            };
            self.uploads.write(&self.params[p as usize], 0, &[params]);
        }
        self.uploads.record(encoder);
        Ok(())
    }

    /// Records the sort's dispatches (three per radix pass) into an open compute pass, after
    /// [`prepare`](Self::prepare) with the same `n`. `n = 0` records nothing.
    pub fn dispatch_in(&self, pass: &mut wgpu::ComputePass<'_>, n: u32) {
        if n == 0 {
            return;
        }
        let blocks = n.div_ceil(self.shape.block());
        for p in 0..self.passes() as usize {
            self.count.dispatch_in(pass, p, blocks);
            self.scan.dispatch_in(pass, p, 1);
            self.scatter.dispatch_in(pass, p, blocks);
        }
    }

    /// Blocking read of the first `n` sorted (keys, values) (tests and explicit reads).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when `n` exceeds the capacity; [`Error::Gpu`] on readback
    /// failure.
    pub fn read(&self, n: u32) -> Result<(Vec<u32>, Vec<u32>)> {
        if n > self.capacity {
            return Err(Error::InvalidInput {
                what: "radix sort read count n",
                value: format!("{n} (capacity {})", self.capacity),
                fix: "read at most `capacity` pairs",
            });
        }
        let (d, q) = (&self.ctx.device, &self.ctx.queue);
        Ok((
            buffer::read_vec(d, q, &self.out_keys, n as usize)?,
            buffer::read_vec(d, q, &self.out_values, n as usize)?,
        ))
    }
}

/// The (source keys, source values, destination keys, destination values) of pass `p` among
/// `pairs` = [input keys, input values, out keys, out values, tmp keys, tmp values]: the first
/// pass reads the input, and the destinations alternate so that the last pass writes `out`.
fn pass_buffers(pairs: &[wgpu::Buffer; 6], passes: u32, p: u32) -> [&wgpu::Buffer; 4] {
    let writes_out = |q: u32| (passes - 1 - q).is_multiple_of(2);
    let dst = |q: u32| if writes_out(q) { 2 } else { 4 };
    let src = if p == 0 { 0 } else { dst(p - 1) };
    let d = dst(p);
    [&pairs[src], &pairs[src + 1], &pairs[d], &pairs[d + 1]]
}

fn check_capacity(ctx: &GpuContext, capacity: u32, shape: SortShape) -> Result<()> {
    if capacity == 0 {
        return Err(Error::InvalidCapacity {
            capacity,
            reason: "a radix sort needs room for at least one pair".into(),
        });
    }
    let block = shape.block();
    if capacity.div_ceil(block) > MAX_GROUPS {
        return Err(Error::InvalidCapacity {
            capacity,
            reason: format!(
                "a radix sort handles at most {} pairs (65535 blocks of {block})",
                u64::from(MAX_GROUPS) * u64::from(block)
            ),
        });
    }
    let max = ctx.max_binding_bytes();
    let needed = 4 * u64::from(capacity);
    if needed > max {
        return Err(Error::CapacityTooLarge {
            capacity,
            needed_bytes: needed,
            max_bytes: max,
            max_capacity: u32::try_from(max / 4).unwrap_or(u32::MAX),
        });
    }
    Ok(())
}
