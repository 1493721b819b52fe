//! The FX particle layers ([`super::fx`]): sprites and ribbons drawn straight from the engine's
//! buffers ([`RenderBuffers`]), read as storage buffers in the vertex shader, counted by the
//! engine's indirect-draw arguments (nothing is read back).
//!
//! - **Sprites**: a camera-facing quad per particle. With [`SpriteLook::stretch`] the quad is
//!   stretched along the particle's screen-space motion (from the engine's `velocities`) into
//!   a capsule covering where it was `stretch` seconds ago, its brightness spread over the
//!   length. **Soft particles**: every fragment reads the scene's depth buffer and fades out
//!   over [`SpriteLook::soft`] metres in front of the surface (and vanishes behind it), so
//!   sparks landing on the ground and smoke resting on it show no hard edge.
//! - **Ribbons** ([`SpriteLook::ribbon`]): a strip through each particle's trail (the
//!   engine's `trails`, K positions per slot, newest at `(steps − 1) mod K`), K − 1 quads per
//!   particle, tapering and fading with age. The vertex count is K − 1 quads, the instance
//!   count the engine's live count, copied on the GPU from its `draw_args` into this layer's
//!   own indirect buffer each frame.
//! - **Sorted alpha** ([`Blend::Sorted`]): instance k draws slot `order[k]` of the engine's
//!   back-to-front order, premultiplied alpha, lit by the frame's lights (smoke).

use bytemuck::{Pod, Zeroable};
use glam::Vec4;
use wgphys::particles::RenderBuffers;

use super::bloom::HDR;
use super::fx::{Blend, Layer, GLOBALS_WGSL};

const SHADER: &str = r#"
struct LayerLook {
    // sprite radius / particle radius, smallest radius (px), brightness or opacity, soft (m)
    look: vec4<f32>,
    // stretch (s), longest stretch (px), lit, unused
    motion: vec4<f32>,
    // ribbon half-width / particle radius, smallest half-width (px), brightness, unused
    ribbon: vec4<f32>,
    // newest trail entry, trail length K, unused, unused
    trail: vec4<u32>,
};

// The depth buffer, bound as an unfilterable float texture (WebGPU allows it for a depth view),
// which every backend can `textureLoad` (GLSL cannot load from a depth texture type).
@group(0) @binding(1) var scene_depth: texture_2d<f32>;
@group(1) @binding(0) var<uniform> layer: LayerLook;
@group(1) @binding(1) var<storage, read> positions: array<vec4<f32>>;
@group(1) @binding(2) var<storage, read> colours: array<vec4<f32>>;
@group(1) @binding(3) var<storage, read> sizes: array<f32>;
@group(1) @binding(4) var<storage, read> velocities: array<vec4<f32>>;
@group(1) @binding(5) var<storage, read> order: array<u32>;
@group(1) @binding(6) var<storage, read> trails: array<vec4<f32>>;

// Soft particles: 1 well in front of the scene's surface at this pixel, fading to 0 at it
// (and 0 behind it); `d` is the fragment's distance along the view.
fn soft_fade(frag: vec4<f32>, d: f32) -> f32 {
    let z = textureLoad(scene_depth, vec2<i32>(frag.xy), 0).x;
    let gap = g.depth.y / (z + g.depth.x) - d;
    if (layer.look.w <= 0.0) {
        return select(0.0, 1.0, gap > 0.0);
    }
    return clamp(gap / layer.look.w, 0.0, 1.0);
}

struct SpriteOut {
    @builtin(position) clip: vec4<f32>,
    // pixels from the sprite's centre line: along the stretch, across it
    @location(0) q: vec2<f32>,
    @location(1) colour: vec4<f32>,
    // half the stretch (px), radius (px), view distance (m)
    @location(2) shape: vec3<f32>,
    @location(3) light: vec3<f32>,
    @location(4) @interpolate(flat) seed: u32,
};

fn sprite(vi: u32, slot: u32) -> SpriteOut {
    let i = vi % 6u;
    let corner = vec2<f32>(
        select(-1.0, 1.0, i == 1u || i == 2u || i == 4u),
        select(-1.0, 1.0, i == 2u || i == 4u || i == 5u),
    );
    let p = positions[slot].xyz;
    let centre = g.view_proj * vec4<f32>(p, 1.0);
    var out: SpriteOut;
    out.colour = colours[slot];
    out.seed = slot;
    if (centre.w <= 1e-3) {
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    let r_px = max(sizes[slot] * layer.look.x * g.viewport.z / centre.w, layer.look.y);
    var axis = vec2<f32>(1.0, 0.0);
    var half = 0.0;
    var mid = to_px(centre);
    if (layer.motion.x > 0.0) {
        // Where the particle was `stretch` seconds ago, on screen: the capsule spans it.
        let back = g.view_proj * vec4<f32>(p - velocities[slot].xyz * layer.motion.x, 1.0);
        if (back.w > 1e-3) {
            let d = mid - to_px(back);
            let len = length(d);
            if (len > 0.5) {
                axis = d / len;
                half = 0.5 * min(len, layer.motion.y);
                mid = mid - axis * half;
            }
        }
    }
    let q = vec2<f32>(corner.x * (half + r_px), corner.y * r_px);
    out.clip = from_px(mid + axis * q.x + vec2<f32>(-axis.y, axis.x) * q.y, centre);
    out.q = q;
    out.shape = vec3<f32>(half, r_px, centre.w);
    out.light = mix(vec3<f32>(1.0), lighting(p, vec3<f32>(0.0, 1.0, 0.0), 1.0), layer.motion.z);
    return out;
}

@vertex
fn vs_sprite(@builtin(vertex_index) vi: u32, @builtin(instance_index) k: u32) -> SpriteOut {
    return sprite(vi, k);
}

@vertex
fn vs_sprite_sorted(@builtin(vertex_index) vi: u32, @builtin(instance_index) k: u32) -> SpriteOut {
    return sprite(vi, order[k]);
}

// Squared distance from the capsule's centre line, in radii.
fn capsule_r2(in: SpriteOut) -> f32 {
    let dx = max(abs(in.q.x) - in.shape.x, 0.0);
    return (dx * dx + in.q.y * in.q.y) / (in.shape.y * in.shape.y);
}

// Additive: a soft halo and a hot core that goes white when the colour is bright.
@fragment
fn fs_spark(in: SpriteOut) -> @location(0) vec4<f32> {
    let fade = soft_fade(in.clip, in.shape.z);
    let r2 = capsule_r2(in);
    if (r2 >= 1.0) {
        discard;
    }
    let halo = (1.0 - r2) * (1.0 - r2);
    let core = exp(-r2 * 14.0);
    // A stretched sprite spreads its light over its length.
    let spread = sqrt(in.shape.y / (in.shape.y + in.shape.x));
    let k = layer.look.z * in.colour.a * fade * spread;
    let peak = max(in.colour.r, max(in.colour.g, in.colour.b));
    let rgb = (in.colour.rgb * (0.55 * halo + core) + vec3<f32>(0.6 * core * core * peak)) * k;
    return vec4<f32>(max(rgb, vec3<f32>(0.0)), 0.0);
}

fn hash3(p: vec3<f32>) -> f32 {
    let q = fract(p * vec3<f32>(0.1031, 0.1030, 0.0973));
    let r = q + dot(q, q.yxz + 33.33);
    return fract((r.x + r.y) * r.z);
}

// Value noise over the sprite, different per particle and slowly turning, so a puff is not a
// disc.
fn puff_noise(uv: vec2<f32>, seed: u32) -> f32 {
    let s = f32(seed % 1024u) * 7.31;
    let p = uv * 2.2 + vec2<f32>(s, s * 0.37);
    let i = floor(p);
    let f = fract(p);
    let u = f * f * (3.0 - 2.0 * f);
    let a = hash3(vec3<f32>(i, s));
    let b = hash3(vec3<f32>(i + vec2<f32>(1.0, 0.0), s));
    let c = hash3(vec3<f32>(i + vec2<f32>(0.0, 1.0), s));
    let d = hash3(vec3<f32>(i + vec2<f32>(1.0, 1.0), s));
    return mix(mix(a, b, u.x), mix(c, d, u.x), u.y);
}

// Premultiplied alpha, lit: smoke.
@fragment
fn fs_smoke(in: SpriteOut) -> @location(0) vec4<f32> {
    let fade = soft_fade(in.clip, in.shape.z);
    let r2 = capsule_r2(in);
    if (r2 >= 1.0) {
        discard;
    }
    let body = (1.0 - r2) * sqrt(1.0 - r2);
    let n = puff_noise(in.q / in.shape.y, in.seed);
    let a = clamp(in.colour.a * layer.look.z * body * (0.45 + 0.9 * n) * fade, 0.0, 1.0);
    return vec4<f32>(in.colour.rgb * in.light * a, a);
}

struct RibbonOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
    // -1 .. 1 across the ribbon
    @location(1) across: f32,
    @location(2) dist: f32,
};

// Entry j of a slot's trail, j = 0 the newest.
fn trail_point(slot: u32, j: u32) -> vec3<f32> {
    let k = layer.trail.y;
    return trails[slot * k + (layer.trail.x + k - j) % k].xyz;
}

// Instance = slot; vertex v: quad v / 6 between trail entries j and j + 1.
@vertex
fn vs_ribbon(@builtin(vertex_index) vi: u32, @builtin(instance_index) slot: u32) -> RibbonOut {
    let k = layer.trail.y;
    let c = vi % 6u;
    let j = vi / 6u + select(0u, 1u, c == 1u || c == 2u || c == 4u);
    let side = select(-1.0, 1.0, c == 2u || c == 4u || c == 5u);
    var out: RibbonOut;
    out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    out.across = side;
    let clip = g.view_proj * vec4<f32>(trail_point(slot, j), 1.0);
    // The direction on screen from the neighbours, the same for both quads meeting at an
    // entry, so the strip has no gaps.
    let newer = g.view_proj * vec4<f32>(trail_point(slot, max(j, 1u) - 1u), 1.0);
    let older = g.view_proj * vec4<f32>(trail_point(slot, min(j + 1u, k - 1u)), 1.0);
    if (clip.w <= 1e-3 || newer.w <= 1e-3 || older.w <= 1e-3) {
        return out;
    }
    let t = to_px(newer) - to_px(older);
    let len = length(t);
    let age = f32(j) / f32(k - 1u);
    var w = max(sizes[slot] * layer.ribbon.x * g.viewport.z / clip.w, layer.ribbon.y);
    w = w * (1.0 - 0.6 * age);
    var n = vec2<f32>(0.0);
    if (len > 1e-3) {
        n = vec2<f32>(-t.y, t.x) / len;
    }
    out.clip = from_px(to_px(clip) + n * side * w, clip);
    let fade = 1.0 - age;
    out.colour = colours[slot] * vec4<f32>(1.0, 1.0, 1.0, fade * fade);
    out.dist = clip.w;
    return out;
}

@fragment
fn fs_ribbon(in: RibbonOut) -> @location(0) vec4<f32> {
    let fade = soft_fade(in.clip, in.dist);
    let k = layer.ribbon.z * in.colour.a * fade * (1.0 - in.across * in.across);
    return vec4<f32>(max(in.colour.rgb * k, vec3<f32>(0.0)), 0.0);
}
"#;

/// The uniform block of one layer (`LayerLook`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct LayerUniform {
    look: Vec4,
    motion: Vec4,
    ribbon: Vec4,
    trail: [u32; 4],
}

/// What a layer's bind group was built from: rebuilt when the engine replaces a buffer
/// (the pool grew, the view order was turned on).
type Key = [Option<wgpu::Buffer>; 6];

struct LayerGpu {
    uniform: wgpu::Buffer,
    bind: wgpu::BindGroup,
    key: Key,
    /// `DrawIndirectArgs` of the ribbons: 6·(K − 1) vertices, the live count copied in.
    ribbon_args: wgpu::Buffer,
    /// Whether this frame draws ribbons.
    ribbons: bool,
    /// Whether this frame draws in the engine's order.
    sorted: bool,
}

/// The particle pipelines and each layer's bindings.
pub struct Sprites {
    layout: wgpu::BindGroupLayout,
    spark: wgpu::RenderPipeline,
    smoke: wgpu::RenderPipeline,
    smoke_sorted: wgpu::RenderPipeline,
    ribbon: wgpu::RenderPipeline,
    /// Bound where a world has no order or no trails.
    stand_in: wgpu::Buffer,
    layers: Vec<Option<LayerGpu>>,
}

impl Sprites {
    /// The pipelines; group 0 is `globals` (the uniform block and the scene's depth).
    pub fn new(device: &wgpu::Device, globals: &wgpu::BindGroupLayout) -> Self {
        let storage = super::vertex_storage_entry;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("examples:fx-layer"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage(1),
                storage(2),
                storage(3),
                storage(4),
                storage(5),
                storage(6),
            ],
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("examples:fx-sprites"),
            source: wgpu::ShaderSource::Wgsl(format!("{GLOBALS_WGSL}{SHADER}").into()),
        });
        let pipeline_layout =
            super::pipeline_layout(device, "examples:fx-sprites", &[globals, &layout]);
        let additive = wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::One,
            operation: wgpu::BlendOperation::Add,
        };
        let over = wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
            operation: wgpu::BlendOperation::Add,
        };
        let pipeline = |label: &str, vs: &str, fs: &str, blend: wgpu::BlendComponent| {
            super::render_pipeline(
                device,
                &module,
                &super::PipelineSpec {
                    label,
                    layout: &pipeline_layout,
                    vs,
                    buffers: &[],
                    fs,
                    format: Some(HDR),
                    blend: wgpu::BlendState {
                        color: blend,
                        alpha: blend,
                    },
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    depth: super::DepthUse::Off,
                    cull: None,
                },
            )
        };
        let stand_in = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("examples:fx-stand-in"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        Self {
            spark: pipeline("examples:fx-sparks", "vs_sprite", "fs_spark", additive),
            smoke: pipeline("examples:fx-smoke", "vs_sprite", "fs_smoke", over),
            smoke_sorted: pipeline(
                "examples:fx-smoke-sorted",
                "vs_sprite_sorted",
                "fs_smoke",
                over,
            ),
            ribbon: pipeline("examples:fx-ribbons", "vs_ribbon", "fs_ribbon", additive),
            layout,
            stand_in,
            layers: Vec::new(),
        }
    }

    fn build(&self, device: &wgpu::Device, key: Key) -> LayerGpu {
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("examples:fx-layer"),
            size: std::mem::size_of::<LayerUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: uniform.as_entire_binding(),
        }];
        for (i, b) in key.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: i as u32 + 1,
                resource: b.as_ref().unwrap_or(&self.stand_in).as_entire_binding(),
            });
        }
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("examples:fx-layer"),
            layout: &self.layout,
            entries: &entries,
        });
        let ribbon_args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("examples:fx-ribbon-args"),
            size: 16,
            usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        LayerGpu {
            uniform,
            bind,
            key,
            ribbon_args,
            ribbons: false,
            sorted: false,
        }
    }

    /// Updates each layer's bindings and uniform, and records the copies of the live counts
    /// into the ribbons' indirect arguments (before the render pass).
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        layers: &[Layer<'_>],
    ) {
        self.layers.resize_with(layers.len(), || None);
        for (i, layer) in layers.iter().enumerate() {
            let Some(bufs) = layer.world.render_buffers() else {
                self.layers[i] = None;
                continue;
            };
            let key = key_of(&bufs);
            if self.layers[i].as_ref().is_none_or(|l| l.key != key) {
                self.layers[i] = Some(self.build(device, key));
            }
            let Some(gpu) = self.layers[i].as_mut() else {
                continue;
            };
            let look = &layer.look;
            let k = layer.world.config().trail_length;
            gpu.ribbons = look.ribbon.is_some() && bufs.trails.is_some() && k >= 2;
            gpu.sorted = look.blend == Blend::Sorted && bufs.order.is_some();
            let ribbon = look.ribbon.unwrap_or(super::fx::RibbonLook {
                width: 0.0,
                min_px: 0.0,
                intensity: 0.0,
            });
            let steps = layer.world.steps();
            let head = if k > 0 {
                (steps.max(1) - 1) % u64::from(k)
            } else {
                0
            };
            let uniform = LayerUniform {
                look: Vec4::new(look.glow, look.min_px, look.intensity, look.soft),
                motion: Vec4::new(look.stretch, look.stretch_max_px, look.lit, 0.0),
                ribbon: Vec4::new(ribbon.width, ribbon.min_px, ribbon.intensity, 0.0),
                trail: [head as u32, k.max(1), 0, 0],
            };
            queue.write_buffer(&gpu.uniform, 0, bytemuck::bytes_of(&uniform));
            if gpu.ribbons {
                queue.write_buffer(&gpu.ribbon_args, 0, bytemuck::cast_slice(&[6 * (k - 1)]));
                // The engine's live count (instance_count) into ours, on the GPU.
                encoder.copy_buffer_to_buffer(bufs.draw_args, 4, &gpu.ribbon_args, 4, 4);
            }
        }
    }

    /// Draws the layers prepared by [`Sprites::prepare`] (group 0 is `globals`).
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        globals: &wgpu::BindGroup,
        layers: &[Layer<'_>],
    ) {
        pass.set_bind_group(0, globals, &[]);
        for (layer, gpu) in layers.iter().zip(&self.layers) {
            let (Some(gpu), Some(bufs)) = (gpu, layer.world.render_buffers()) else {
                continue;
            };
            pass.set_bind_group(1, &gpu.bind, &[]);
            if gpu.ribbons {
                pass.set_pipeline(&self.ribbon);
                pass.draw_indirect(&gpu.ribbon_args, 0);
            }
            let pipeline = match (layer.look.blend, gpu.sorted) {
                (Blend::Additive, _) => &self.spark,
                (Blend::Sorted, true) => &self.smoke_sorted,
                (Blend::Sorted, false) => &self.smoke,
            };
            pass.set_pipeline(pipeline);
            pass.draw_indirect(bufs.draw_args, 0);
        }
    }
}

fn key_of(b: &RenderBuffers<'_>) -> Key {
    [
        Some(b.positions.clone()),
        Some(b.colours.clone()),
        Some(b.sizes.clone()),
        b.velocities.cloned(),
        b.order.cloned(),
        b.trails.cloned(),
    ]
}
