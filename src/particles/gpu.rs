//! GPU host code for the particle stages: buffers, kernels and the step recorder. The stages and
//! their order match src/particles/cpu.rs; the WGSL lives in shaders/particles/.

use super::depth::GpuDepth;
use super::types::*;
use super::view_sort::{GpuView, GpuViewSort};
use crate::error::{Error, Result};
use crate::gpu::buffer::{self, STATE};
use crate::gpu::kernel::{Dispatch, Kernel};
use crate::gpu::shader::{compose, prelude, BindingDecl};
use crate::gpu::sort::GpuRadixSort;
use crate::gpu::timing::StepTimer;
use crate::gpu::upload::StepUploads;
use crate::gpu::GpuContext;
use std::mem::size_of;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use wgpu::BufferUsages as U;

/// Binding indices of the particle domain's group 0, named once.
pub mod binding {
    #![allow(missing_docs)]
    pub const PARAMS: u32 = 0;
    pub const POS: u32 = 1;
    pub const VEL: u32 = 2;
    pub const ACC: u32 = 3;
    pub const LIFE: u32 = 4;
    pub const COLOUR: u32 = 5;
    pub const SIZE: u32 = 6;
    pub const COUNTERS: u32 = 7;
    pub const SCRATCH: u32 = 8;
    pub const STAGING: u32 = 9;
    pub const ARGS_APPEND: u32 = 10;
    pub const COLLIDERS: u32 = 11;
    pub const RULES: u32 = 12;
    pub const PAYLOADS: u32 = 13;
    pub const DEATHS: u32 = 14;
    pub const EMITTERS: u32 = 15;
    pub const CURVES: u32 = 16;
    pub const VIEW: u32 = 17;
    pub const SORT_KEYS: u32 = 18;
    pub const SORT_VALUES: u32 = 19;
    pub const BOUNDS_KEYS: u32 = 20;
    pub const EMITTER_BOUNDS: u32 = 21;
    pub const DEPTH_TEX: u32 = 22;
    pub const DEPTH: u32 = 23;
    pub const TRAILS: u32 = 24;
}

const RW: &str = "storage, read_write";

macro_rules! decl {
    ($index:expr, $name:literal, $space:expr, $ty:literal) => {
        BindingDecl {
            index: $index,
            name: $name,
            space: $space,
            ty: $ty,
        }
    };
}

/// The particle domain's bindings, emitted into the WGSL prelude.
///
/// Every kernel binds at most 8 storage buffers (WebGPU's default per stage): the static tables
/// (colliders, firework rules and payloads) are uniform arrays of fixed size
/// ([`MAX_COLLIDERS`], [`MAX_RULES`], [`MAX_PAYLOADS`]), and the per-step arrays of u32 (flags,
/// block sums, holes, removals) share the `scratch` binding ([`ScratchLayout`]).
pub const BINDINGS: &[BindingDecl] = &[
    decl!(binding::PARAMS, "params", "uniform", "Params"),
    decl!(binding::POS, "pos", RW, "array<vec4<f32>>"),
    decl!(binding::VEL, "vel", RW, "array<vec4<f32>>"),
    decl!(binding::ACC, "acc", RW, "array<vec4<f32>>"),
    decl!(binding::LIFE, "life", RW, "array<Life>"),
    decl!(binding::COLOUR, "colour", RW, "array<vec4<f32>>"),
    decl!(binding::SIZE, "size", RW, "array<f32>"),
    decl!(binding::COUNTERS, "counters", RW, "Counters"),
    decl!(binding::SCRATCH, "scratch", RW, "array<u32>"),
    decl!(binding::STAGING, "staging", RW, "array<SpawnRecord>"),
    decl!(binding::ARGS_APPEND, "args_append", RW, "array<u32>"),
    decl!(
        binding::COLLIDERS,
        "colliders",
        "uniform",
        "array<Collider, MAX_COLLIDERS>"
    ),
    decl!(binding::RULES, "rules", "uniform", "array<Rule, MAX_RULES>"),
    decl!(binding::DEATHS, "deaths", RW, "array<atomic<u32>>"),
    decl!(
        binding::EMITTERS,
        "emitters",
        "uniform",
        "array<Emitter, MAX_EMITTERS>"
    ),
    decl!(
        binding::CURVES,
        "curves",
        "uniform",
        "array<Curves, MAX_EMITTERS>"
    ),
    decl!(binding::VIEW, "view", "uniform", "View"),
    decl!(binding::SORT_KEYS, "sort_keys", RW, "array<u32>"),
    decl!(binding::SORT_VALUES, "sort_values", RW, "array<u32>"),
    decl!(
        binding::BOUNDS_KEYS,
        "bounds_keys",
        RW,
        "array<atomic<u32>>"
    ),
    decl!(
        binding::EMITTER_BOUNDS,
        "emitter_bounds_out",
        RW,
        "array<vec4<f32>>"
    ),
    decl!(binding::DEPTH_TEX, "depth_tex", "", "texture_2d<f32>"),
    decl!(binding::DEPTH, "depth", "uniform", "DepthParams"),
    decl!(binding::TRAILS, "trails", RW, "array<vec4<f32>>"),
    decl!(
        binding::PAYLOADS,
        "payloads",
        "uniform",
        "array<vec4<u32>, PAYLOAD_QUADS>"
    ),
];

/// Where the per-step arrays sit in the `scratch` binding, in u32 words; a function of the
/// capacity alone, computed the same way by `block_base`, `hole_base` and `removal_base` in
/// `shaders/particles/types.wgsl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScratchLayout {
    /// First word of the block sums (the flags take `[0, capacity)`).
    pub block_base: u64,
    /// First word of the hole slots.
    pub hole_base: u64,
    /// First word of the step's removals.
    pub removal_base: u64,
}

impl ScratchLayout {
    /// The layout for a pool of `capacity` particles.
    pub fn new(capacity: u32) -> Self {
        let n = u64::from(capacity);
        let block_base = n;
        let hole_base = block_base + 2 * n.div_ceil(u64::from(BLOCK));
        Self {
            block_base,
            hole_base,
            removal_base: hole_base + n,
        }
    }

    /// Bytes of a scratch buffer with room for `removals` ids.
    pub fn bytes(&self, removals: u32) -> u64 {
        4 * (self.removal_base + u64::from(removals))
    }
}

/// The most storage buffers one of the particle kernels binds in a shader stage (layouts are
/// derived per entry point), checked against the device before a world is built.
///
/// # Errors
/// [`crate::Error::Gpu`] if the module does not validate (an engine bug).
pub fn storage_buffers_per_stage() -> crate::error::Result<u32> {
    static FOUND: std::sync::OnceLock<crate::gpu::shader::StorageBuffers> =
        std::sync::OnceLock::new();
    Ok(crate::gpu::shader::storage_buffers_once(&FOUND, shader_source)?.most(&[]))
}

/// The composed WGSL module of the particle domain.
pub fn shader_source() -> String {
    let consts = [
        ("WG", WG),
        ("ITEMS", ITEMS),
        ("BLOCK", BLOCK),
        ("MAX_FIELDS", MAX_FIELDS),
        ("MAX_COLLIDERS", MAX_COLLIDERS),
        ("MAX_RULES", MAX_RULES),
        ("PAYLOAD_QUADS", MAX_PAYLOADS / 2),
        ("MAX_EMITTERS", MAX_EMITTERS),
        ("EMIT_FIRST_QUADS", MAX_EMITTERS / 4),
        ("MAX_CURVE_KEYS", MAX_CURVE_KEYS),
        ("CURVE_QUADS", MAX_CURVE_KEYS / 4),
        ("KIND_CURVES_SHIFT", KIND_CURVES_SHIFT),
        ("KIND_FIREWORK_MASK", KIND_FIREWORK_MASK),
        ("BOUNDS_KEYS", 6 * MAX_EMITTERS),
        ("GPU_ID_BIT", GPU_ID_BIT),
    ];
    // WGSL resolves module-scope names in any order, so the prelude may name structs declared
    // later in types.wgsl.
    compose(
        &prelude(&consts, BINDINGS),
        &[
            include_str!("../../shaders/particles/types.wgsl"),
            include_str!("../../shaders/common/rng.wgsl"),
            include_str!("../../shaders/common/noise.wgsl"),
            include_str!("../../shaders/common/forces.wgsl"),
            include_str!("../../shaders/particles/integrate.wgsl"),
            include_str!("../../shaders/particles/lifecycle.wgsl"),
            include_str!("../../shaders/particles/emitter.wgsl"),
            include_str!("../../shaders/particles/view_sort.wgsl"),
            include_str!("../../shaders/particles/bounds.wgsl"),
            include_str!("../../shaders/particles/depth.wgsl"),
            include_str!("../../shaders/particles/trails.wgsl"),
        ],
    )
}

/// Every buffer of a GPU particle world. The render-facing ones (`pos`, `colour`, `size`,
/// `draw_args`) are documented on [`crate::particles::ParticleWorld::render_buffers`].
#[derive(Debug)]
pub struct Buffers {
    pub(crate) params: wgpu::Buffer,
    pub(crate) pos: wgpu::Buffer,
    pub(crate) vel: wgpu::Buffer,
    pub(crate) acc: wgpu::Buffer,
    pub(crate) life: wgpu::Buffer,
    pub(crate) colour: wgpu::Buffer,
    pub(crate) size: wgpu::Buffer,
    pub(crate) counters: wgpu::Buffer,
    pub(crate) scratch: wgpu::Buffer,
    pub(crate) colliders: wgpu::Buffer,
    pub(crate) rules: wgpu::Buffer,
    pub(crate) payloads: wgpu::Buffer,
    pub(crate) emitters: wgpu::Buffer,
    pub(crate) curves: wgpu::Buffer,
    /// Per emitter slot, six ordered-float keys of its particles' box (see bounds.wgsl).
    pub(crate) bounds_keys: wgpu::Buffer,
    /// Per emitter slot, its particles' box: (min, 1) and (max, 1), or (+inf, 0), (-inf, 0).
    pub(crate) emitter_bounds: wgpu::Buffer,
    /// Trails: `trail_length` positions per slot (see trails.wgsl).
    pub(crate) trails: wgpu::Buffer,
    pub(crate) staging: wgpu::Buffer,
    pub(crate) args_step: wgpu::Buffer,
    pub(crate) args_append: wgpu::Buffer,
    /// The step's handle deaths by the bounds: a count, then that many host ids.
    pub(crate) deaths: wgpu::Buffer,
    pub(crate) draw_args: wgpu::Buffer,
}

/// Bytes of per-particle storage for `capacity` particles, per array, largest first.
pub fn largest_buffer_bytes(capacity: u32) -> u64 {
    u64::from(capacity) * size_of::<GpuSpawnRecord>() as u64
}

struct Kernels {
    integrate: Kernel,
    scan_reduce: Kernel,
    scan_blocks: Kernel,
    emit: Kernel,
    spawn_emitted: Kernel,
    compact: Kernel,
    append: Kernel,
    depth_keys: Kernel,
    emitter_bounds: Kernel,
    bounds_publish: Kernel,
    trail_compact: Kernel,
    trail_append: Kernel,
    trail_push: Kernel,
}

/// An asynchronous counters read: copied at one step and mapped when the submission that holds
/// the copy is done (`map_buffer_on_submit`), so a slot is never mapped while an unsubmitted
/// encoder still copies into it, however many steps go into one encoder.
struct StatusSlot {
    buffer: wgpu::Buffer,
    state: SlotState,
    map: Arc<AtomicU8>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SlotState {
    Free,
    /// (host step, handle deaths the copy has room for).
    Mapping(u64, u32),
}

/// `StatusSlot::map` values.
const MAP_PENDING: u8 = 0;
const MAP_READY: u8 = 1;
/// The map failed, or the encoder was dropped without a submit: the slot is free again.
const MAP_GONE: u8 = 2;

/// Marks a status slot's map as gone if its callback is dropped without running.
struct MapGuard(Arc<AtomicU8>);

impl Drop for MapGuard {
    fn drop(&mut self) {
        let _ = self
            .0
            .compare_exchange(MAP_PENDING, MAP_GONE, Ordering::AcqRel, Ordering::Acquire);
    }
}

/// The GPU backend of a particle world.
pub struct GpuParticles {
    pub(crate) ctx: GpuContext,
    pub(crate) capacity: u32,
    pub(crate) bufs: Buffers,
    removal_capacity: u32,
    kernels: Kernels,
    status: Vec<StatusSlot>,
    timing: Option<StepTimer>,
    uploads: StepUploads,
    /// The back-to-front order, when on.
    view_sort: Option<GpuViewSort>,
    /// Positions per trail (0: none).
    pub(crate) trail_length: u32,
    /// The depth collider's uniform and the depth texture it reads (a 2x2 stand-in when off).
    depth: wgpu::Buffer,
    depth_view: wgpu::TextureView,
}

/// What one step hands to the GPU.
pub struct Frame<'a> {
    /// The uniform block.
    pub params: GpuParams,
    /// Host spawns for staging[0..n).
    pub spawns: &'a [GpuSpawnRecord],
    /// Sorted ids to remove.
    pub removals: &'a [u32],
    /// Whether the lifecycle stages must run (something may die or spawn).
    pub lifecycle: bool,
    /// Host step index (for status bookkeeping).
    pub step: u64,
    /// Whether to copy the counters for an asynchronous status read this step.
    pub want_status: bool,
    /// Handle deaths by the bounds the status copy makes room for (the host handles that may
    /// be in the pool; 0 without kill bounds).
    pub deaths_room: u32,
    /// Whether to reduce each emitter's box after the step (the world has emitter slots).
    pub bounds: bool,
}

/// What one asynchronous status read brings back.
pub struct Landed {
    /// The host step it describes.
    pub step: u64,
    /// The counters after that step.
    pub counters: GpuCounters,
    /// Host ids of the particles with handles the bounds killed in that step, ascending.
    pub deaths: Vec<u32>,
}

fn storage(ctx: &GpuContext, name: &str, bytes: u64, extra: U) -> wgpu::Buffer {
    buffer::zeroed(&ctx.device, name, bytes, STATE | extra)
}

/// A 2x2 depth texture the integrate kernel binds while no depth collider is set (the
/// collider is off then, so it is never read).
fn stand_in_depth(device: &wgpu::Device) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("wgphys:depth_stand_in"),
            size: wgpu::Extent3d {
                width: 2,
                height: 2,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Depth32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
        .create_view(&wgpu::TextureViewDescriptor::default())
}

/// A uniform table of `max` entries, `items` first and zeroes after (the world checks that
/// `items` fits; any excess would be left out here rather than overrun the buffer).
fn table<T: bytemuck::Pod + Default>(
    d: &wgpu::Device,
    name: &str,
    items: &[T],
    max: u32,
) -> wgpu::Buffer {
    let mut all = vec![T::default(); max as usize];
    for (slot, item) in all.iter_mut().zip(items) {
        *slot = *item;
    }
    buffer::with_data(
        d,
        name,
        bytemuck::cast_slice(&all),
        U::UNIFORM | U::COPY_DST,
    )
}

impl GpuParticles {
    /// Creates the buffers and kernels for `capacity` particles with the given static tables.
    ///
    /// # Errors
    /// [`Error::CapacityTooLarge`] when a buffer would exceed the device's binding limit.
    pub fn new(
        ctx: &GpuContext,
        capacity: u32,
        colliders: &[GpuCollider],
        rules: &[GpuRule],
        payloads: &[GpuPayload],
        trail_length: u32,
    ) -> Result<Self> {
        check_capacity(ctx, capacity)?;
        let trail_bytes = 16 * u64::from(capacity) * u64::from(trail_length);
        if trail_bytes > ctx.max_binding_bytes() {
            return Err(Error::CapacityTooLarge {
                capacity,
                needed_bytes: trail_bytes,
                max_bytes: ctx.max_binding_bytes(),
                max_capacity: u32::try_from(
                    ctx.max_binding_bytes() / (16 * u64::from(trail_length)),
                )
                .unwrap_or(u32::MAX),
            });
        }
        let device = &ctx.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgphys:shader:particles"),
            source: wgpu::ShaderSource::Wgsl(shader_source().into()),
        });
        let kernels = Kernels {
            integrate: Kernel::new(device, &module, "integrate"),
            scan_reduce: Kernel::new(device, &module, "scan_reduce"),
            scan_blocks: Kernel::new(device, &module, "scan_blocks"),
            emit: Kernel::new(device, &module, "emit"),
            spawn_emitted: Kernel::new(device, &module, "spawn_emitted"),
            depth_keys: Kernel::new(device, &module, "depth_keys"),
            emitter_bounds: Kernel::new(device, &module, "emitter_bounds"),
            bounds_publish: Kernel::new(device, &module, "bounds_publish"),
            trail_compact: Kernel::new(device, &module, "trail_compact"),
            trail_append: Kernel::new(device, &module, "trail_append"),
            trail_push: Kernel::new(device, &module, "trail_push"),
            compact: Kernel::new(device, &module, "compact"),
            append: Kernel::new(device, &module, "append"),
        };
        let bufs = Self::make_buffers(ctx, capacity, colliders, rules, payloads, 64, trail_length);
        let mut me = Self {
            ctx: ctx.clone(),
            capacity,
            bufs,
            removal_capacity: 64,
            kernels,
            status: Vec::new(),
            timing: None,
            uploads: StepUploads::new(ctx, "wgphys:upload:particles"),
            view_sort: None,
            trail_length,
            depth: buffer::zeroed(
                &ctx.device,
                "depth",
                size_of::<GpuDepth>() as u64,
                U::UNIFORM | U::COPY_DST,
            ),
            depth_view: stand_in_depth(&ctx.device),
        };
        me.bind_all();
        Ok(me)
    }

    fn make_buffers(
        ctx: &GpuContext,
        capacity: u32,
        colliders: &[GpuCollider],
        rules: &[GpuRule],
        payloads: &[GpuPayload],
        removal_capacity: u32,
        trail_length: u32,
    ) -> Buffers {
        let n = u64::from(capacity);
        let d = &ctx.device;
        let v4 = 16 * n;
        let scratch = ScratchLayout::new(capacity).bytes(removal_capacity);
        Buffers {
            params: buffer::zeroed(
                d,
                "params",
                size_of::<GpuParams>() as u64,
                U::UNIFORM | U::COPY_DST,
            ),
            pos: storage(ctx, "pos", v4, U::VERTEX),
            vel: storage(ctx, "vel", v4, U::empty()),
            acc: storage(ctx, "acc", v4, U::empty()),
            life: storage(ctx, "life", n * size_of::<GpuLife>() as u64, U::empty()),
            colour: storage(ctx, "colour", v4, U::VERTEX),
            size: storage(ctx, "size", 4 * n, U::VERTEX),
            counters: storage(ctx, "counters", size_of::<GpuCounters>() as u64, U::empty()),
            scratch: storage(ctx, "scratch", scratch, U::empty()),
            colliders: table(d, "colliders", colliders, MAX_COLLIDERS),
            rules: table(d, "rules", rules, MAX_RULES),
            payloads: table(d, "payloads", payloads, MAX_PAYLOADS),
            emitters: table::<GpuEmitter>(d, "emitters", &[], MAX_EMITTERS),
            curves: table::<GpuCurves>(d, "curves", &[], MAX_EMITTERS),
            bounds_keys: storage(ctx, "bounds_keys", 24 * u64::from(MAX_EMITTERS), U::empty()),
            emitter_bounds: storage(
                ctx,
                "emitter_bounds",
                32 * u64::from(MAX_EMITTERS),
                U::empty(),
            ),
            trails: storage(
                ctx,
                "trails",
                (16 * n * u64::from(trail_length)).max(16),
                U::VERTEX,
            ),
            staging: storage(ctx, "staging", largest_buffer_bytes(capacity), U::empty()),
            args_step: storage(ctx, "args_step", 24, U::INDIRECT),
            args_append: storage(ctx, "args_append", 12, U::INDIRECT),
            draw_args: storage(ctx, "draw_args", 16, U::INDIRECT),
            deaths: storage(ctx, "deaths", 4 * (n + 1), U::empty()),
        }
    }

    fn bind_all(&mut self) {
        use binding::*;
        let b = &self.bufs;
        let d = &self.ctx.device;
        let k = &mut self.kernels;
        let state = [
            (POS, &b.pos),
            (VEL, &b.vel),
            (ACC, &b.acc),
            (LIFE, &b.life),
            (COLOUR, &b.colour),
            (SIZE, &b.size),
        ];
        fn join<'a>(
            a: &[(u32, &'a wgpu::Buffer)],
            b: &[(u32, &'a wgpu::Buffer)],
        ) -> Vec<(u32, &'a wgpu::Buffer)> {
            a.iter().chain(b).copied().collect()
        }
        let mut integrate: Vec<(u32, wgpu::BindingResource)> = join(
            &state,
            &[
                (PARAMS, &b.params),
                (COUNTERS, &b.counters),
                (SCRATCH, &b.scratch),
                (COLLIDERS, &b.colliders),
                (RULES, &b.rules),
                (CURVES, &b.curves),
                (EMITTERS, &b.emitters),
                (DEPTH, &self.depth),
            ],
        )
        .into_iter()
        .map(|(i, buf)| (i, buf.as_entire_binding()))
        .collect();
        integrate.push((
            DEPTH_TEX,
            wgpu::BindingResource::TextureView(&self.depth_view),
        ));
        k.integrate.bind_resources(d, integrate);
        k.scan_reduce.bind(
            d,
            &[
                (PARAMS, &b.params),
                (COUNTERS, &b.counters),
                (SCRATCH, &b.scratch),
            ],
        );
        k.scan_blocks.bind(
            d,
            &[
                (PARAMS, &b.params),
                (COUNTERS, &b.counters),
                (SCRATCH, &b.scratch),
                (ARGS_APPEND, &b.args_append),
                (DEATHS, &b.deaths),
            ],
        );
        k.emit.bind(
            d,
            &[
                (PARAMS, &b.params),
                (POS, &b.pos),
                (VEL, &b.vel),
                (LIFE, &b.life),
                (COUNTERS, &b.counters),
                (SCRATCH, &b.scratch),
                (STAGING, &b.staging),
                (RULES, &b.rules),
                (PAYLOADS, &b.payloads),
                (DEATHS, &b.deaths),
                (EMITTERS, &b.emitters),
                (CURVES, &b.curves),
            ],
        );
        k.spawn_emitted.bind(
            d,
            &[
                (PARAMS, &b.params),
                (COUNTERS, &b.counters),
                (STAGING, &b.staging),
                (EMITTERS, &b.emitters),
                (CURVES, &b.curves),
            ],
        );
        k.compact.bind(
            d,
            &join(
                &state,
                &[
                    (PARAMS, &b.params),
                    (COUNTERS, &b.counters),
                    (SCRATCH, &b.scratch),
                ],
            ),
        );
        k.trail_compact.bind(
            d,
            &[
                (PARAMS, &b.params),
                (COUNTERS, &b.counters),
                (SCRATCH, &b.scratch),
                (TRAILS, &b.trails),
            ],
        );
        k.trail_append.bind(
            d,
            &[
                (PARAMS, &b.params),
                (COUNTERS, &b.counters),
                (STAGING, &b.staging),
                (TRAILS, &b.trails),
            ],
        );
        k.trail_push.bind(
            d,
            &[
                (PARAMS, &b.params),
                (POS, &b.pos),
                (COUNTERS, &b.counters),
                (TRAILS, &b.trails),
            ],
        );
        k.emitter_bounds.bind(
            d,
            &[
                (POS, &b.pos),
                (LIFE, &b.life),
                (COUNTERS, &b.counters),
                (BOUNDS_KEYS, &b.bounds_keys),
            ],
        );
        k.bounds_publish.bind(
            d,
            &[
                (BOUNDS_KEYS, &b.bounds_keys),
                (EMITTER_BOUNDS, &b.emitter_bounds),
            ],
        );
        if let Some(vs) = &self.view_sort {
            k.depth_keys.bind(
                d,
                &[
                    (PARAMS, &b.params),
                    (POS, &b.pos),
                    (COUNTERS, &b.counters),
                    (VIEW, &vs.view),
                    (SORT_KEYS, &vs.sort.keys),
                    (SORT_VALUES, &vs.sort.values),
                ],
            );
        }
        k.append.bind(
            d,
            &join(
                &state,
                &[
                    (PARAMS, &b.params),
                    (STAGING, &b.staging),
                    (COUNTERS, &b.counters),
                ],
            ),
        );
    }

    /// Replaces the emitter table (at most [`MAX_EMITTERS`]; the world checks), in order with
    /// the steps recorded around it.
    pub fn set_emitters(&mut self, emitters: &[GpuEmitter], curves: &[GpuCurves]) {
        let n = emitters.len().min(MAX_EMITTERS as usize);
        if let Some(head) = emitters.get(..n) {
            self.uploads.write(&self.bufs.emitters, 0, head);
        }
        let n = curves.len().min(MAX_EMITTERS as usize);
        if let Some(head) = curves.get(..n) {
            self.uploads.write(&self.bufs.curves, 0, head);
        }
    }

    /// Replaces the collider table (at most [`MAX_COLLIDERS`]; the world checks), in order with
    /// the steps recorded around it.
    pub fn set_colliders(&mut self, colliders: &[GpuCollider]) {
        let n = colliders.len().min(MAX_COLLIDERS as usize);
        if let Some(head) = colliders.get(..n) {
            self.uploads.write(&self.bufs.colliders, 0, head);
        }
    }

    /// Grows every per-particle buffer to `capacity`, keeping the live particles and counters.
    ///
    /// # Errors
    /// [`Error::CapacityTooLarge`] beyond the device limit; [`Error::Gpu`] if waiting fails.
    pub fn grow(&mut self, capacity: u32) -> Result<()> {
        check_capacity(&self.ctx, capacity)?;
        let old = &self.bufs;
        let new = Self::make_buffers(
            &self.ctx,
            capacity,
            &[],
            &[],
            &[],
            self.removal_capacity,
            self.trail_length,
        );
        // The live state moves over by device-side copies recorded at the head of the next
        // step (or submitted before the next read), so steps recorded into an encoder that is
        // not submitted yet keep their effect.
        let n = u64::from(self.capacity);
        for (src, dst, bytes) in [
            (&old.pos, &new.pos, 16 * n),
            (&old.vel, &new.vel, 16 * n),
            (&old.acc, &new.acc, 16 * n),
            (&old.life, &new.life, 16 * n),
            (&old.colour, &new.colour, 16 * n),
            (&old.size, &new.size, 4 * n),
            (
                &old.counters,
                &new.counters,
                size_of::<GpuCounters>() as u64,
            ),
            (&old.args_step, &new.args_step, 24),
            (&old.draw_args, &new.draw_args, 16),
            (
                &old.trails,
                &new.trails,
                16 * n * u64::from(self.trail_length),
            ),
        ] {
            self.uploads.copy(src, dst, bytes);
        }
        let keep = Buffers {
            colliders: old.colliders.clone(),
            rules: old.rules.clone(),
            payloads: old.payloads.clone(),
            emitters: old.emitters.clone(),
            curves: old.curves.clone(),
            emitter_bounds: old.emitter_bounds.clone(),
            ..new
        };
        self.bufs = keep;
        self.capacity = capacity;
        if let Some(vs) = &mut self.view_sort {
            vs.sort = GpuRadixSort::new(&self.ctx, capacity, 32)?;
        }
        self.bind_all();
        Ok(())
    }

    /// Sets the depth collider (`None`: off); see
    /// [`crate::particles::ParticleWorld::set_depth_collider`].
    pub fn set_depth(&mut self, depth: Option<(&wgpu::Texture, GpuDepth)>) {
        match depth {
            Some((t, record)) => {
                self.depth_view = t.create_view(&wgpu::TextureViewDescriptor {
                    label: Some("wgphys:depth_collider"),
                    aspect: wgpu::TextureAspect::DepthOnly,
                    ..Default::default()
                });
                self.uploads.write(&self.depth, 0, &[record]);
            }
            None => {
                self.depth_view = stand_in_depth(&self.ctx.device);
                self.uploads.write(&self.depth, 0, &[GpuDepth::default()]);
            }
        }
        self.bind_all();
    }

    /// Turns the back-to-front order on (with this camera) or off; see
    /// [`crate::particles::ParticleWorld::set_view_sort`].
    ///
    /// # Errors
    /// As [`GpuRadixSort::new`] for the pool's capacity.
    pub fn set_view_sort(&mut self, view: Option<GpuView>) -> Result<()> {
        match view {
            None => self.view_sort = None,
            Some(v) => {
                if self.view_sort.is_none() {
                    self.view_sort = Some(GpuViewSort {
                        view: buffer::zeroed(
                            &self.ctx.device,
                            "view",
                            size_of::<GpuView>() as u64,
                            U::UNIFORM | U::COPY_DST,
                        ),
                        sort: GpuRadixSort::new(&self.ctx, self.capacity, 32)?,
                    });
                    self.bind_all();
                }
                if let Some(vs) = &self.view_sort {
                    self.uploads.write(&vs.view, 0, &[v]);
                }
            }
        }
        Ok(())
    }

    /// The slots of the first `n` particles of the back-to-front order (blocking; `None` when
    /// the order is off).
    ///
    /// # Errors
    /// [`Error::Gpu`] on readback failure.
    pub fn read_order(&self, n: u32) -> Result<Option<Vec<u32>>> {
        self.flush_uploads();
        match &self.view_sort {
            None => Ok(None),
            Some(vs) => Ok(Some(vs.sort.read(n)?.1)),
        }
    }

    /// The buffer of the back-to-front order, when on.
    pub fn order_buffer(&self) -> Option<&wgpu::Buffer> {
        self.view_sort.as_ref().map(|vs| vs.sort.sorted_values())
    }

    /// Submits the uploads not yet recorded into a step (a grow's copies), so a readback sees
    /// them.
    pub fn flush_uploads(&self) {
        self.uploads.submit();
    }

    /// Turns on per-step GPU timestamps (first pass start to last pass end), if the adapter
    /// supports them. Returns whether timing is on.
    pub fn enable_timing(&mut self) -> bool {
        self.timing = StepTimer::new(&self.ctx, "step", 1);
        self.timing.is_some()
    }

    /// GPU milliseconds of the last step (blocking readback; benchmarks only).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when timing is off; [`Error::Gpu`] on readback failure.
    pub fn last_step_gpu_ms(&self) -> Result<f64> {
        let t = self
            .timing
            .as_ref()
            .ok_or_else(|| Error::Unsupported("timestamp queries are off or unavailable".into()))?;
        Ok(t.read_ms(&self.ctx)?.iter().sum())
    }

    /// Uploads the frame's inputs and records the step into `encoder` as one compute pass
    /// (`wgphys:pass:particle_step`) holding its dispatches in stage order: `integrate`, then
    /// with the lifecycle `scan_reduce`, `scan_blocks`, `emit`, `spawn_emitted` (when the
    /// emitters want particles), `compact` and `append`. wgpu
    /// keeps the order of dispatches inside a pass and makes each see the writes of the ones
    /// before it (the indirect arguments `scan_blocks` writes included).
    pub fn encode(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &Frame) {
        self.upload(encoder, frame);
        let b = &self.bufs;
        let k = &self.kernels;
        let particles = Dispatch::Indirect(&b.args_step, 0);
        let blocks = Dispatch::Indirect(&b.args_step, 12);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wgphys:pass:particle_step"),
                timestamp_writes: self.timing.as_ref().map(|t| t.writes(0, true, true)),
            });
            k.integrate.dispatch_in(&mut pass, particles);
            if frame.lifecycle {
                k.scan_reduce.dispatch_in(&mut pass, blocks);
                k.scan_blocks.dispatch_in(&mut pass, Dispatch::Direct(1));
                k.emit.dispatch_in(&mut pass, blocks);
                if frame.params.emitted > 0 {
                    // Only slots below the capacity can be accepted: no more threads than that.
                    let threads = frame.params.emitted.min(self.capacity);
                    k.spawn_emitted
                        .dispatch_in(&mut pass, Dispatch::Direct(threads.div_ceil(WG)));
                }
                k.compact.dispatch_in(&mut pass, blocks);
                if self.trail_length > 0 {
                    k.trail_compact.dispatch_in(&mut pass, blocks);
                }
                k.append
                    .dispatch_in(&mut pass, Dispatch::Indirect(&b.args_append, 0));
                if self.trail_length > 0 {
                    k.trail_append
                        .dispatch_in(&mut pass, Dispatch::Indirect(&b.args_append, 0));
                }
            }
            if self.trail_length > 0 {
                k.trail_push
                    .dispatch_in(&mut pass, Dispatch::Direct(self.capacity.div_ceil(WG)));
            }
            if self.view_sort.is_some() {
                k.depth_keys
                    .dispatch_in(&mut pass, Dispatch::Direct(self.capacity.div_ceil(WG)));
            }
        }
        if frame.lifecycle {
            // `append` left the next step's indirect arguments in the counters; the indirect
            // buffers take them here, outside the pass (one buffer cannot be a dispatch's
            // indirect source and one of its storage bindings).
            encoder.copy_buffer_to_buffer(
                &b.counters,
                std::mem::offset_of!(GpuCounters, step_args) as u64,
                &b.args_step,
                0,
                24,
            );
            encoder.copy_buffer_to_buffer(
                &b.counters,
                std::mem::offset_of!(GpuCounters, draw_args) as u64,
                &b.draw_args,
                0,
                16,
            );
        }
        if frame.bounds {
            // After the step: the box of each emitter's live particles (bounds.wgsl), over
            // the new live count (the indirect arguments were just copied).
            encoder.clear_buffer(&b.bounds_keys, 0, None);
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wgphys:pass:emitter_bounds"),
                timestamp_writes: None,
            });
            k.emitter_bounds
                .dispatch_in(&mut pass, Dispatch::Indirect(&b.args_step, 0));
            k.bounds_publish
                .dispatch_in(&mut pass, Dispatch::Direct(MAX_EMITTERS.div_ceil(WG)));
        }
        if let Some(vs) = &self.view_sort {
            // The pairs `depth_keys` wrote, sorted over the whole pool (slots past the live ones
            // carry the largest key). The count is the sort's own capacity, which it never
            // refuses.
            let _ = vs.sort.encode(encoder, self.capacity);
        }
        if let Some(t) = &self.timing {
            t.resolve(encoder);
        }
        if frame.want_status {
            let room = if frame.lifecycle {
                frame.deaths_room.min(self.capacity)
            } else {
                0
            };
            let slot = self.free_status_slot(room);
            if let Some(slot) = self.status.get_mut(slot) {
                let counters = size_of::<GpuCounters>() as u64;
                encoder.copy_buffer_to_buffer(&self.bufs.counters, 0, &slot.buffer, 0, counters);
                if room > 0 {
                    encoder.copy_buffer_to_buffer(
                        &self.bufs.deaths,
                        0,
                        &slot.buffer,
                        counters,
                        4 * (1 + u64::from(room)),
                    );
                }
                slot.map.store(MAP_PENDING, Ordering::Release);
                let guard = MapGuard(slot.map.clone());
                encoder.map_buffer_on_submit(&slot.buffer, wgpu::MapMode::Read, .., move |r| {
                    let state = if r.is_ok() { MAP_READY } else { MAP_GONE };
                    guard.0.store(state, Ordering::Release);
                });
                slot.state = SlotState::Mapping(frame.step, room);
            }
        }
    }

    /// A free status slot with room for the counters and `deaths` handle deaths, adding one
    /// when all are in flight (the ring grows to the number of steps in flight and is reused
    /// from then on, so no step's counters are skipped); a free slot too small is replaced.
    fn free_status_slot(&mut self, deaths: u32) -> usize {
        let bytes = size_of::<GpuCounters>() as u64 + 4 * (1 + u64::from(deaths));
        let fresh = |ctx: &GpuContext| StatusSlot {
            buffer: buffer::zeroed(&ctx.device, "status", bytes, U::MAP_READ | U::COPY_DST),
            state: SlotState::Free,
            map: Arc::new(AtomicU8::new(MAP_GONE)),
        };
        let free = self.status.iter().position(|s| s.state == SlotState::Free);
        match free {
            Some(i) => {
                if self.status[i].buffer.size() < bytes {
                    self.status[i] = fresh(&self.ctx);
                }
                i
            }
            None => {
                self.status.push(fresh(&self.ctx));
                self.status.len() - 1
            }
        }
    }

    /// Records the step's uploads into `encoder` ahead of its pass (see [`StepUploads`]).
    fn upload(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &Frame) {
        self.uploads.write(&self.bufs.params, 0, &[frame.params]);
        self.uploads.write(&self.bufs.staging, 0, frame.spawns);
        if !frame.removals.is_empty() {
            let layout = ScratchLayout::new(self.capacity);
            if frame.removals.len() as u32 > self.removal_capacity {
                // The scratch words hold nothing from one step to the next: a larger buffer
                // replaces it without a copy.
                self.removal_capacity = (frame.removals.len() as u32).next_power_of_two();
                self.bufs.scratch = buffer::zeroed(
                    &self.ctx.device,
                    "scratch",
                    layout.bytes(self.removal_capacity),
                    STATE,
                );
                self.bind_all();
            }
            self.uploads
                .write(&self.bufs.scratch, 4 * layout.removal_base, frame.removals);
        }
        self.uploads.record(encoder);
    }

    /// Advances the asynchronous status reads without blocking; returns every one that landed,
    /// oldest first.
    pub fn poll_status(&mut self) -> Vec<Landed> {
        let _ = self.ctx.device.poll(wgpu::PollType::Poll);
        let mut landed: Vec<Landed> = Vec::new();
        for slot in &mut self.status {
            let SlotState::Mapping(step, room) = slot.state else {
                continue;
            };
            match slot.map.load(Ordering::Acquire) {
                MAP_GONE => slot.state = SlotState::Free,
                MAP_READY => {
                    if let Ok(view) = slot.buffer.get_mapped_range(..) {
                        let at = size_of::<GpuCounters>();
                        let counters: GpuCounters = bytemuck::pod_read_unaligned(&view[..at]);
                        let word = |k: usize| -> u32 {
                            view.get(at + 4 * k..at + 4 * k + 4)
                                .map_or(0, bytemuck::pod_read_unaligned)
                        };
                        let mut deaths = Vec::new();
                        if room > 0 {
                            let n = word(0).min(room) as usize;
                            deaths = (1..=n).map(word).collect();
                            deaths.sort_unstable();
                        }
                        drop(view);
                        landed.push(Landed {
                            step,
                            counters,
                            deaths,
                        });
                    }
                    slot.buffer.unmap();
                    slot.state = SlotState::Free;
                }
                _ => {}
            }
        }
        landed.sort_by_key(|l| l.step);
        landed
    }

    /// Blocking read of the counters (tests and explicit reads).
    ///
    /// # Errors
    /// [`Error::Gpu`] on readback failure.
    pub fn read_counters(&self) -> Result<GpuCounters> {
        self.flush_uploads();
        let v: Vec<GpuCounters> =
            buffer::read_vec(&self.ctx.device, &self.ctx.queue, &self.bufs.counters, 1)?;
        v.first()
            .copied()
            .ok_or_else(|| Error::Gpu("empty counters readback".into()))
    }

    /// Blocking read of the first `n` particles' state.
    ///
    /// # Errors
    /// [`Error::Gpu`] on readback failure.
    pub fn read_state(&self, n: usize) -> Result<super::Snapshot> {
        self.flush_uploads();
        let (d, q, b) = (&self.ctx.device, &self.ctx.queue, &self.bufs);
        Ok(super::Snapshot {
            pos: buffer::read_vec(d, q, &b.pos, n)?,
            vel: buffer::read_vec(d, q, &b.vel, n)?,
            acc: buffer::read_vec(d, q, &b.acc, n)?,
            life: buffer::read_vec(d, q, &b.life, n)?,
            colour: buffer::read_vec(d, q, &b.colour, n)?,
            size: buffer::read_vec(d, q, &b.size, n)?,
        })
    }
}

fn check_capacity(ctx: &GpuContext, capacity: u32) -> Result<()> {
    let max = ctx.max_binding_bytes();
    let needed = largest_buffer_bytes(capacity);
    if needed > max {
        let per = size_of::<GpuSpawnRecord>() as u64;
        return Err(Error::CapacityTooLarge {
            capacity,
            needed_bytes: needed,
            max_bytes: max,
            max_capacity: u32::try_from(max / per).unwrap_or(u32::MAX),
        });
    }
    // The step dispatches one workgroup per WG live slots, indirectly: more would exceed the
    // device's workgroups per dispatch (wgpu skips such a dispatch, or without its indirect
    // validation the result is undefined).
    let groups = ctx.device.limits().max_compute_workgroups_per_dimension;
    if capacity.div_ceil(WG) > groups {
        return Err(Error::InvalidCapacity {
            capacity,
            reason: format!(
                "a step dispatches one workgroup per {WG} particles and this device allows {groups} \
                 workgroups per dispatch: use at most {} particles per world",
                u64::from(groups) * u64::from(WG)
            ),
        });
    }
    Ok(())
}
