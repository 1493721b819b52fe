//! The FX particle layers ([`FxRenderer`]; their WGSL is `sprites.wgsl`): sprites and ribbons
//! drawn straight from the engine's buffers ([`RenderBuffers`]), read as storage buffers in the
//! vertex shader, counted by the engine's indirect-draw arguments (nothing is read back).
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
//!
//! [`FxRenderer`]: super::renderer::FxRenderer
//! [`SpriteLook::stretch`]: super::renderer::SpriteLook::stretch
//! [`SpriteLook::soft`]: super::renderer::SpriteLook::soft
//! [`SpriteLook::ribbon`]: super::renderer::SpriteLook::ribbon

use bytemuck::{Pod, Zeroable};
use glam::Vec4;
use wgphys::particles::RenderBuffers;

use super::bloom::HDR;
use super::depth::vertex_storage_entry;
use super::renderer::{Blend, Layer, RibbonLook};
use super::wgsl;
use crate::common::{pipeline_layout, render_pipeline, uniform_entry, PipelineSpec};

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
        let storage = vertex_storage_entry;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("examples:fx-layer"),
            entries: &[
                uniform_entry(0),
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
            source: wgpu::ShaderSource::Wgsl(wgsl::sprites().into()),
        });
        let pipeline_layout = pipeline_layout(device, "examples:fx-sprites", &[globals, &layout]);
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
            render_pipeline(
                device,
                &module,
                &PipelineSpec {
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
                    depth: None,
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
            let ribbon = look.ribbon.unwrap_or(RibbonLook {
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
