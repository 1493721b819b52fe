//! The particle sprite renderer of `ballistics`: additive sprites with an afterglow, and
//! scenery lines (its WGSL is `sprites.wgsl`).

use glam::{Mat4, Vec4};
use wgphys::particles::RenderBuffers;

use crate::common::{
    line_buffer_layout, pipeline_layout, render_pipeline, upload, LineVertex, OrbitCamera,
    PipelineSpec, Uniforms,
};

/// The WGSL of every pipeline the renderer uses.
const SHADER: &str = include_str!("sprites.wgsl");

/// The uniform block of `sprites.wgsl` (`Globals`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Globals {
    view_proj: Mat4,
    viewport: Vec4,
    style: Vec4,
}

/// How a demo wants its particles drawn.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Clear colour (linear).
    pub background: wgpu::Color,
    /// Sprite radius as a multiple of the particle radius (the halo is larger than the body).
    pub glow: f32,
    /// Smallest sprite radius on screen, pixels.
    pub min_radius_px: f32,
    /// Sprite brightness.
    pub intensity: f32,
    /// Afterglow decay time constant, seconds (0 turns it off).
    pub afterglow_s: f32,
    /// Brightness of the afterglow relative to the live sprites.
    pub afterglow_gain: f32,
}

struct Afterglow {
    view: wgpu::TextureView,
    bind_group: wgpu::BindGroup,
    fresh: bool,
}

/// Draws a [`ParticleWorld`](wgphys::particles::ParticleWorld)'s render buffers (and optional scenery lines) into a colour target.
pub struct Renderer {
    globals: wgpu::Buffer,
    globals_bind: wgpu::BindGroup,
    afterglow_layout: wgpu::BindGroupLayout,
    afterglow_format: Option<wgpu::TextureFormat>,
    afterglow: Option<Afterglow>,
    sprite_add: wgpu::RenderPipeline,
    sprite_max: Option<wgpu::RenderPipeline>,
    fade: Option<wgpu::RenderPipeline>,
    composite: wgpu::RenderPipeline,
    line: wgpu::RenderPipeline,
    lines: Option<(wgpu::Buffer, u32)>,
    last_view_proj: Mat4,
    width: u32,
    height: u32,
    /// The look; change it freely between frames.
    pub style: Style,
}

const ADD: wgpu::BlendComponent = wgpu::BlendComponent {
    src_factor: wgpu::BlendFactor::One,
    dst_factor: wgpu::BlendFactor::One,
    operation: wgpu::BlendOperation::Add,
};
const MAX: wgpu::BlendComponent = wgpu::BlendComponent {
    src_factor: wgpu::BlendFactor::One,
    dst_factor: wgpu::BlendFactor::One,
    operation: wgpu::BlendOperation::Max,
};
const DECAY: wgpu::BlendComponent = wgpu::BlendComponent {
    src_factor: wgpu::BlendFactor::Zero,
    dst_factor: wgpu::BlendFactor::Constant,
    operation: wgpu::BlendOperation::Add,
};

/// The afterglow texture's format when the adapter can render to it, blend into it and read it
/// back in a shader; `None` turns the afterglow off.
pub fn afterglow_format(adapter: &wgpu::Adapter) -> Option<wgpu::TextureFormat> {
    let format = wgpu::TextureFormat::Rgba16Float;
    let f = adapter.get_texture_format_features(format);
    let usable = f
        .allowed_usages
        .contains(wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING)
        && f.flags.contains(wgpu::TextureFormatFeatureFlags::BLENDABLE);
    usable.then_some(format)
}

impl Renderer {
    /// Builds the pipelines for a colour target of `format` and size `width` x `height`.
    /// `afterglow` is the persistence texture's format ([`afterglow_format`]), or `None`.
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        afterglow: Option<wgpu::TextureFormat>,
        width: u32,
        height: u32,
        style: Style,
    ) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("examples:sprites"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        let Uniforms {
            buffer: globals,
            layout: globals_layout,
            bind: globals_bind,
        } = Uniforms::new(
            device,
            "examples:globals",
            std::mem::size_of::<Globals>() as u64,
        );
        let afterglow_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("examples:afterglow"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        let layout = pipeline_layout(device, "examples:globals", &[&globals_layout]);
        let composite_layout = pipeline_layout(
            device,
            "examples:composite",
            &[&globals_layout, &afterglow_layout],
        );

        let instance_buffers = [
            Some(wgpu::VertexBufferLayout {
                array_stride: 16,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &[wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x4,
                    offset: 0,
                    shader_location: 0,
                }],
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: 16,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &[wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x4,
                    offset: 0,
                    shader_location: 1,
                }],
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: 4,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &[wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32,
                    offset: 0,
                    shader_location: 2,
                }],
            }),
        ];
        let line_buffers = [Some(line_buffer_layout())];

        let pipeline = |label: &str,
                        layout: &wgpu::PipelineLayout,
                        vs: &str,
                        buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
                        fs: &str,
                        format: wgpu::TextureFormat,
                        blend: wgpu::BlendState,
                        topology: wgpu::PrimitiveTopology| {
            render_pipeline(
                device,
                &module,
                &PipelineSpec {
                    label,
                    layout,
                    vs,
                    buffers,
                    fs,
                    format: Some(format),
                    blend,
                    topology,
                    depth: None,
                    cull: None,
                },
            )
        };
        let tri = wgpu::PrimitiveTopology::TriangleList;
        let additive = wgpu::BlendState {
            color: ADD,
            alpha: ADD,
        };
        let sprite_add = pipeline(
            "examples:sprites",
            &layout,
            "vs_sprite",
            &instance_buffers,
            "fs_sprite",
            format,
            additive,
            tri,
        );
        let composite = pipeline(
            "examples:composite",
            &composite_layout,
            "vs_fullscreen",
            &[],
            "fs_composite",
            format,
            additive,
            tri,
        );
        let line = pipeline(
            "examples:lines",
            &layout,
            "vs_line",
            &line_buffers,
            "fs_line",
            format,
            wgpu::BlendState::ALPHA_BLENDING,
            wgpu::PrimitiveTopology::LineList,
        );
        let sprite_max = afterglow.map(|f| {
            let max = wgpu::BlendState {
                color: MAX,
                alpha: MAX,
            };
            pipeline(
                "examples:afterglow-sprites",
                &layout,
                "vs_sprite",
                &instance_buffers,
                "fs_sprite_soft",
                f,
                max,
                tri,
            )
        });
        let fade = afterglow.map(|f| {
            let decay = wgpu::BlendState {
                color: DECAY,
                alpha: DECAY,
            };
            pipeline(
                "examples:afterglow-fade",
                &layout,
                "vs_fullscreen",
                &[],
                "fs_fade",
                f,
                decay,
                tri,
            )
        });

        let mut renderer = Self {
            globals,
            globals_bind,
            afterglow_layout,
            afterglow_format: afterglow,
            afterglow: None,
            sprite_add,
            sprite_max,
            fade,
            composite,
            line,
            lines: None,
            last_view_proj: Mat4::ZERO,
            width: width.max(1),
            height: height.max(1),
            style,
        };
        renderer.resize(device, width, height);
        renderer
    }

    /// Matches a new target size (recreates the afterglow texture).
    pub fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        self.width = width.max(1);
        self.height = height.max(1);
        self.afterglow = self.afterglow_format.map(|format| {
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("examples:afterglow"),
                size: wgpu::Extent3d {
                    width: self.width,
                    height: self.height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            });
            let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("examples:afterglow"),
                layout: &self.afterglow_layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view),
                }],
            });
            Afterglow {
                view,
                bind_group,
                fresh: true,
            }
        });
    }

    /// Replaces the scenery lines (a line list).
    pub fn set_lines(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        vertices: &[LineVertex],
    ) {
        self.lines = upload(
            device,
            queue,
            "examples:lines",
            wgpu::BufferUsages::VERTEX,
            vertices,
            None,
        );
    }

    /// Records one frame into `encoder`: scenery, afterglow and the particles of `particles`
    /// (drawn with `draw_indirect` from the engine's own buffers). `frame_dt` is the time since
    /// the previous frame, which sets how much the afterglow decays.
    pub fn render(
        &mut self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        camera: &OrbitCamera,
        particles: Option<RenderBuffers<'_>>,
        frame_dt: f32,
    ) {
        let (w, h) = (self.width as f32, self.height as f32);
        let focal = 0.5 * h / (0.5 * camera.fov_y).tan();
        let s = self.style;
        let view_proj = camera.view_proj(w / h);
        // The afterglow lives in screen space: start it afresh whenever the camera moves.
        if view_proj != self.last_view_proj {
            self.last_view_proj = view_proj;
            if let Some(glow) = &mut self.afterglow {
                glow.fresh = true;
            }
        }
        let globals = Globals {
            view_proj,
            viewport: Vec4::new(w, h, focal, s.min_radius_px),
            style: Vec4::new(s.glow, s.intensity, s.afterglow_gain, 0.0),
        };
        queue.write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));

        let glow_on = s.afterglow_s > 0.0;
        if let (Some(glow), Some(fade), Some(sprite_max), true) =
            (&mut self.afterglow, &self.fade, &self.sprite_max, glow_on)
        {
            let load = if glow.fresh {
                wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT)
            } else {
                wgpu::LoadOp::Load
            };
            glow.fresh = false;
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("examples:afterglow"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &glow.view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            let k = f64::from((-frame_dt.max(0.0) / s.afterglow_s).exp());
            pass.set_bind_group(0, &self.globals_bind, &[]);
            pass.set_pipeline(fade);
            pass.set_blend_constant(wgpu::Color {
                r: k,
                g: k,
                b: k,
                a: k,
            });
            pass.draw(0..3, 0..1);
            if let Some(bufs) = particles {
                draw_particles(&mut pass, sprite_max, &self.globals_bind, bufs);
            }
        }

        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("examples:frame"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(s.background),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.globals_bind, &[]);
        if let Some((buffer, count)) = &self.lines {
            pass.set_pipeline(&self.line);
            pass.set_vertex_buffer(0, buffer.slice(..));
            pass.draw(0..*count, 0..1);
        }
        if let (Some(glow), true) = (&self.afterglow, glow_on) {
            pass.set_pipeline(&self.composite);
            pass.set_bind_group(1, &glow.bind_group, &[]);
            pass.draw(0..3, 0..1);
        }
        if let Some(bufs) = particles {
            draw_particles(&mut pass, &self.sprite_add, &self.globals_bind, bufs);
        }
    }
}

/// Binds the engine's buffers as instance data and draws `draw_args.instance_count` sprites.
fn draw_particles(
    pass: &mut wgpu::RenderPass<'_>,
    pipeline: &wgpu::RenderPipeline,
    globals: &wgpu::BindGroup,
    bufs: RenderBuffers<'_>,
) {
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, globals, &[]);
    pass.set_vertex_buffer(0, bufs.positions.slice(..));
    pass.set_vertex_buffer(1, bufs.colours.slice(..));
    pass.set_vertex_buffer(2, bufs.sizes.slice(..));
    pass.draw_indirect(bufs.draw_args, 0);
}
