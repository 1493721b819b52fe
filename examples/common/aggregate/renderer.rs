//! [`AggRenderer`]: draws an [`AggregateWorld`](wgphys::aggregate::AggregateWorld) straight
//! from the engine's buffers, with scenery lines, links and markers.

use glam::{Mat4, Vec3, Vec4};
use wgphys::gpu::GpuContext;
use wgphys::particles::RenderBuffers;

use super::depth::{depth_texture, vertex_storage_entry};
use super::scene::{Attach, LinkLine};
use crate::common::{
    line_buffer_layout, pipeline_layout, render_pipeline, upload, DepthUse, LineVertex,
    OrbitCamera, PipelineSpec, Uniforms,
};

/// The WGSL of the aggregate renderer: shaded balls, thick link lines and markers placed from
/// the engine's positions, and flat scenery lines.
const SHADER: &str = include_str!("aggregate.wgsl");

/// The uniform block of `aggregate.wgsl` (`Globals`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct AggGlobals {
    view: Mat4,
    proj: Mat4,
    view_proj: Mat4,
    viewport: Vec4,
    light: Vec4,
    shade: Vec4,
}

/// Draws an [`AggregateWorld`](wgphys::aggregate::AggregateWorld): shaded balls with depth, scenery lines, links and markers.
pub struct AggRenderer {
    globals: wgpu::Buffer,
    globals_bind: wgpu::BindGroup,
    /// Group 1 (the positions storage buffer) and the pipelines that read it; `None` where the
    /// adapter cannot read storage buffers in vertex shaders.
    attached: Option<Attached>,
    balls: wgpu::RenderPipeline,
    line: wgpu::RenderPipeline,
    scenery: Option<(wgpu::Buffer, u32)>,
    links: Option<(wgpu::Buffer, u32)>,
    markers: Option<(wgpu::Buffer, u32)>,
    depth: wgpu::TextureView,
    width: u32,
    height: u32,
    /// Clear colour (linear).
    pub background: wgpu::Color,
    /// Smallest ball radius on screen, pixels.
    pub min_radius_px: f32,
    /// Height shading of the balls: `(y0, y1, dim)` darkens a ball at height y0 to `dim` of its
    /// colour, rising linearly to full colour at y1, so a heap's shape reads; `None`: off.
    pub height_shade: Option<(f32, f32, f32)>,
}

struct Attached {
    layout: wgpu::BindGroupLayout,
    link: wgpu::RenderPipeline,
    marker: wgpu::RenderPipeline,
}

impl AggRenderer {
    /// Builds the pipelines for a colour target of `format` and size `width` x `height`.
    /// `vertex_storage`: whether the adapter has [`wgpu::DownlevelFlags::VERTEX_STORAGE`]
    /// (links and markers need it).
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
        vertex_storage: bool,
        background: wgpu::Color,
    ) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("examples:aggregate"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        let Uniforms {
            buffer: globals,
            layout: globals_layout,
            bind: globals_bind,
        } = Uniforms::new(
            device,
            "examples:aggregate-globals",
            std::mem::size_of::<AggGlobals>() as u64,
        );
        let layout = pipeline_layout(device, "examples:aggregate", &[&globals_layout]);

        let pipeline = |label: &str,
                        layout: &wgpu::PipelineLayout,
                        vs: &str,
                        buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
                        fs: &str,
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
                    depth: Some(DepthUse {
                        test: true,
                        write: true,
                    }),
                    cull: None,
                },
            )
        };
        let tri = wgpu::PrimitiveTopology::TriangleList;
        let opaque = wgpu::BlendState::REPLACE;
        let alpha = wgpu::BlendState::ALPHA_BLENDING;

        let (a0, a1, a2) = (
            wgpu::vertex_attr_array![0 => Float32x4],
            wgpu::vertex_attr_array![1 => Float32x4],
            wgpu::vertex_attr_array![2 => Float32],
        );
        let per_instance = |array_stride: u64, attributes| {
            Some(wgpu::VertexBufferLayout {
                array_stride,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes,
            })
        };
        // The engine's positions, colours and radii, one instance per particle.
        let ball_buffers = [
            per_instance(16, &a0[..]),
            per_instance(16, &a1[..]),
            per_instance(4, &a2[..]),
        ];
        let balls = pipeline(
            "examples:aggregate-balls",
            &layout,
            "vs_ball",
            &ball_buffers,
            "fs_ball",
            opaque,
            tri,
        );
        let line_buffers = [Some(line_buffer_layout())];
        let line = pipeline(
            "examples:aggregate-lines",
            &layout,
            "vs_line",
            &line_buffers,
            "fs_flat",
            alpha,
            wgpu::PrimitiveTopology::LineList,
        );

        let attached = vertex_storage.then(|| {
            let storage_layout =
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("examples:aggregate-positions"),
                    entries: &[vertex_storage_entry(0)],
                });
            let with_positions = pipeline_layout(
                device,
                "examples:aggregate-attached",
                &[&globals_layout, &storage_layout],
            );
            let marker_attributes = wgpu::vertex_attr_array![
                0 => Uint32x4, 1 => Float32x4, 2 => Float32x4, 3 => Float32x4
            ];
            let marker_buffers = [Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<Attach>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &marker_attributes,
            })];
            let marker = pipeline(
                "examples:aggregate-markers",
                &with_positions,
                "vs_marker",
                &marker_buffers,
                "fs_ball",
                opaque,
                tri,
            );
            let link_attributes = wgpu::vertex_attr_array![
                0 => Uint32x4, 1 => Float32x4, 2 => Float32x4, 3 => Float32x4,
                4 => Uint32x4, 5 => Float32x4, 6 => Float32x4, 7 => Float32x4
            ];
            let link_buffers = [Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<LinkLine>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &link_attributes,
            })];
            let link = pipeline(
                "examples:aggregate-links",
                &with_positions,
                "vs_link",
                &link_buffers,
                "fs_flat",
                alpha,
                tri,
            );
            Attached {
                layout: storage_layout,
                link,
                marker,
            }
        });

        let depth = depth_texture(
            device,
            "examples:aggregate-depth",
            width,
            height,
            wgpu::TextureUsages::empty(),
        )
        .create_view(&Default::default());
        Self {
            globals,
            globals_bind,
            attached,
            balls,
            line,
            scenery: None,
            links: None,
            markers: None,
            depth,
            width: width.max(1),
            height: height.max(1),
            background,
            min_radius_px: 1.5,
            height_shade: None,
        }
    }

    /// Matches a new target size (recreates the depth buffer).
    pub fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        self.width = width.max(1);
        self.height = height.max(1);
        self.depth = depth_texture(
            device,
            "examples:aggregate-depth",
            self.width,
            self.height,
            wgpu::TextureUsages::empty(),
        )
        .create_view(&Default::default());
    }

    /// Replaces the scenery lines (a line list).
    pub fn set_scenery(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        vertices: &[LineVertex],
    ) {
        self.scenery = upload(
            device,
            queue,
            "examples:scenery",
            wgpu::BufferUsages::VERTEX,
            vertices,
            None,
        );
    }

    /// Replaces the links.
    pub fn set_links(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, links: &[LinkLine]) {
        self.links = upload(
            device,
            queue,
            "examples:links",
            wgpu::BufferUsages::VERTEX,
            links,
            None,
        );
    }

    /// Replaces the markers (cheap to call every frame: the buffer is reused when it fits).
    pub fn set_markers(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, markers: &[Attach]) {
        let old = self.markers.take();
        self.markers = upload(
            device,
            queue,
            "examples:markers",
            wgpu::BufferUsages::VERTEX,
            markers,
            old,
        );
    }

    /// Records one frame into `encoder`: scenery, the particles of `particles` (drawn with
    /// `draw_indirect` from the engine's own buffers), links and markers.
    pub fn render(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        camera: &OrbitCamera,
        particles: Option<RenderBuffers<'_>>,
    ) {
        let (w, h) = (self.width as f32, self.height as f32);
        let focal = 0.5 * h / (0.5 * camera.fov_y).tan();
        let view = glam::camera::rh::view::look_at_mat4(camera.eye(), camera.target, Vec3::Y);
        let view_proj = camera.view_proj(w / h);
        let globals = AggGlobals {
            view,
            proj: view_proj * view.inverse(),
            view_proj,
            viewport: Vec4::new(w, h, focal, self.min_radius_px),
            // Light from above, behind the viewer's right shoulder.
            light: (view * Vec3::new(0.4, 1.0, 0.6).normalize().extend(0.0))
                .truncate()
                .extend(0.3),
            shade: self
                .height_shade
                .map_or(Vec4::ZERO, |(y0, y1, dim)| Vec4::new(y0, y1, dim, 1.0)),
        };
        ctx.queue
            .write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));
        let positions = match (&self.attached, particles) {
            (Some(a), Some(bufs)) => {
                Some(ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("examples:aggregate-positions"),
                    layout: &a.layout,
                    entries: &[wgpu::BindGroupEntry {
                        binding: 0,
                        resource: bufs.positions.as_entire_binding(),
                    }],
                }))
            }
            _ => None,
        };

        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("examples:aggregate-frame"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(self.background),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.globals_bind, &[]);
        if let Some(bufs) = particles {
            pass.set_pipeline(&self.balls);
            pass.set_vertex_buffer(0, bufs.positions.slice(..));
            pass.set_vertex_buffer(1, bufs.colours.slice(..));
            pass.set_vertex_buffer(2, bufs.sizes.slice(..));
            pass.draw_indirect(bufs.draw_args, 0);
        }
        if let (Some(a), Some(positions)) = (&self.attached, &positions) {
            pass.set_bind_group(1, positions, &[]);
            if let Some((buffer, count)) = &self.markers {
                pass.set_pipeline(&a.marker);
                pass.set_vertex_buffer(0, buffer.slice(..));
                pass.draw(0..6, 0..*count);
            }
            if let Some((buffer, count)) = &self.links {
                pass.set_pipeline(&a.link);
                pass.set_vertex_buffer(0, buffer.slice(..));
                pass.draw(0..6, 0..*count);
            }
        }
        if let Some((buffer, count)) = &self.scenery {
            pass.set_pipeline(&self.line);
            pass.set_vertex_buffer(0, buffer.slice(..));
            pass.draw(0..*count, 0..1);
        }
    }
}
