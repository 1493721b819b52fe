//! [`RigidRenderer`]: draws every shape slot of a rigid world from the engine's buffers
//! ([`RigidBuffers`]) and a static level's triangles ([`RigidRenderer::set_level`]), with
//! shadows from one light and optional contact, joint and line overlays, in the look of a
//! [`RigidStyle`].

use glam::{Mat4, Vec3, Vec4};
use wgphys::gpu::GpuContext;
use wgphys::rigid::types::{GpuJoint, GpuManifold, GpuShape};
use wgphys::rigid::RigidWorld;
use wgphys::scenes::level::LevelVertex;
use wgpu::util::DeviceExt;

use super::depth::{depth_texture, vertex_storage_entry};
use super::mesh::{unit_meshes, MeshVertex};
use super::shader::shader_source;
use crate::common::{
    line_buffer_layout, pipeline_layout, render_pipeline, upload, DepthUse, LineVertex,
    OrbitCamera, PipelineSpec, Uniforms,
};

/// The uniform block of `rigid.wgsl` (`Globals`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct RigidGlobals {
    view_proj: Mat4,
    light_proj: Mat4,
    eye: Vec4,
    light: Vec4,
    ground: Vec4,
    background: Vec4,
    style: Vec4,
    groups: [u32; 4],
}

/// What [`RigidRenderer::render`] draws: the engine's buffers, bound as they are.
#[derive(Clone, Copy, Debug)]
pub struct RigidBuffers<'a> {
    /// `array<Body>` ([`wgphys::rigid::RigidRenderBuffers::bodies`]).
    pub bodies: &'a wgpu::Buffer,
    /// `array<Shape>` ([`wgphys::rigid::RigidRenderBuffers::shapes`]).
    pub shapes: &'a wgpu::Buffer,
    /// Shape slots to draw (from slot 0): the slots in use, or the capacity. Empty slots
    /// (kind 0) cost a little vertex work and draw nothing.
    pub shape_slots: u32,
    /// The manifolds and the counters (`RigidRenderBuffers::manifolds` and `counters`), for
    /// the contact overlay ([`RigidStyle::contacts`]).
    pub contacts: Option<(&'a wgpu::Buffer, &'a wgpu::Buffer)>,
    /// The hull store (`RigidRenderBuffers::hulls`): hull slots are drawn from it (`None`: no hull draw,
    /// as for a world without hulls).
    pub hulls: Option<&'a wgpu::Buffer>,
    /// The joints (`RigidRenderBuffers::joints`) and the slots to draw, for the joint overlay
    /// ([`RigidStyle::joints`]).
    pub joints: Option<(&'a wgpu::Buffer, u32)>,
}

impl<'a> RigidBuffers<'a> {
    /// The shape slots in use of a world on the GPU backend, contacts and joints included
    /// ([`RigidWorld::render_buffers`]).
    ///
    /// # Panics
    /// If `world` runs on the CPU backend (the demos run on the GPU).
    pub fn of_world(world: &'a RigidWorld) -> Self {
        let b = world
            .render_buffers()
            .expect("the demo runs on the GPU backend");
        Self {
            bodies: b.bodies,
            shapes: b.shapes,
            shape_slots: b.shape_slots,
            contacts: Some((b.manifolds, b.counters)),
            hulls: b.hulls,
            joints: Some((b.joints, b.joint_slots)),
        }
    }
}

/// The look of a [`RigidRenderer`]; change it freely between frames.
#[derive(Clone, Copy, Debug)]
pub struct RigidStyle {
    /// Clear and fog colour (linear RGB).
    pub background: Vec3,
    /// Direction towards the light (normalized when used).
    pub light: Vec3,
    /// Share of the sky/ground ambient in the lighting, 0..1.
    pub ambient: f32,
    /// Shadows from the light.
    pub shadows: bool,
    /// Fog distance as a multiple of the camera distance (0: no fog).
    pub fog: f32,
    /// Checker cell size on planes, metres (0: plain).
    pub checker: f32,
    /// Width of the dark box edges, pixels (0: none).
    pub edge_px: f32,
    /// Draw the engine's contacts (needs [`RigidBuffers::contacts`]).
    pub contacts: bool,
    /// Length of the drawn contact normals, metres.
    pub contact_length: f32,
    /// Draw the engine's joints (needs [`RigidBuffers::joints`]): each body's centre to its
    /// anchors, and the gap between a joint's two anchors.
    pub joints: bool,
    /// `Some((first, size, count))`: `count` groups of `size` consecutive body slots from slot
    /// `first` on take a hue a group (a ragdoll's bones, a chain's links); every other body,
    /// and every body for `None`, a hue of its own.
    pub groups: Option<(u32, u32, u32)>,
}

impl Default for RigidStyle {
    fn default() -> Self {
        Self {
            background: Vec3::new(0.045, 0.05, 0.065),
            light: Vec3::new(0.45, 1.0, 0.35),
            ambient: 0.32,
            shadows: true,
            fog: 6.0,
            checker: 1.0,
            edge_px: 1.2,
            contacts: false,
            contact_length: 0.3,
            joints: false,
            groups: None,
        }
    }
}

/// Vertices drawn per shape slot for hulls: three per triangle of the fans of a hull's faces,
/// at most 2·64 − 4 triangles (`rigid.wgsl` `HULL_TRIANGLES`).
const HULL_VERTICES: u32 = 3 * (2 * wgphys::rigid::hull::MAX_HULL_VERTICES - 4);

/// Size of the square shadow map, texels.
const SHADOW_SIZE: u32 = 2048;

/// The bind group of the engine's buffers, kept while they stay the same buffers.
struct Bound {
    key: [wgpu::Buffer; 6],
    group: wgpu::BindGroup,
}

/// Draws rigid bodies from a [`RigidBuffers`] (and debug lines) into a colour target with a
/// depth buffer, casting shadows from one directional light.
pub struct RigidRenderer {
    uniforms: Uniforms,
    storage_layout: wgpu::BindGroupLayout,
    shadow_bind: wgpu::BindGroup,
    shadow_view: wgpu::TextureView,
    shapes: wgpu::RenderPipeline,
    shadow: wgpu::RenderPipeline,
    /// Hull slots, drawn from the hull store (`vs_hull`, `vs_hull_shadow`).
    hulls: wgpu::RenderPipeline,
    hull_shadow: wgpu::RenderPipeline,
    planes: wgpu::RenderPipeline,
    contacts: wgpu::RenderPipeline,
    joints: wgpu::RenderPipeline,
    line: wgpu::RenderPipeline,
    /// Static level triangles (`vs_level`, `vs_level_shadow`) and their vertex buffer.
    level: wgpu::RenderPipeline,
    level_shadow: wgpu::RenderPipeline,
    level_vertices: Option<(wgpu::Buffer, u32)>,
    mesh: wgpu::Buffer,
    index: wgpu::Buffer,
    index_count: u32,
    /// Stand-ins for the contact and joint buffers and the hull store when none are given.
    no_contacts: [wgpu::Buffer; 4],
    bound: Option<Bound>,
    lines: Option<(wgpu::Buffer, u32)>,
    depth: wgpu::TextureView,
    width: u32,
    height: u32,
    /// The look.
    pub style: RigidStyle,
}

impl RigidRenderer {
    /// Builds the pipelines for a colour target of `format` and size `width` x `height`. The
    /// adapter must read storage buffers in vertex shaders
    /// ([`wgpu::DownlevelFlags::VERTEX_STORAGE`]; [`RigidApp`](super::RigidApp) checks).
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
    ) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("examples:rigid"),
            source: wgpu::ShaderSource::Wgsl(shader_source().into()),
        });
        let uniforms = Uniforms::new(
            device,
            "examples:rigid-globals",
            std::mem::size_of::<RigidGlobals>() as u64,
        );
        let storage = vertex_storage_entry;
        let storage_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("examples:rigid-buffers"),
            entries: &[
                storage(0),
                storage(1),
                storage(2),
                storage(3),
                storage(4),
                storage(5),
            ],
        });
        let shadow_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("examples:rigid-shadow"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                    count: None,
                },
            ],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("examples:rigid-shadow"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let shadow_group = |view: &wgpu::TextureView| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("examples:rigid-shadow"),
                layout: &shadow_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Sampler(&sampler),
                    },
                ],
            })
        };
        let shadow_view = depth_texture(
            device,
            "examples:rigid-shadow-map",
            SHADOW_SIZE,
            SHADOW_SIZE,
            wgpu::TextureUsages::TEXTURE_BINDING,
        )
        .create_view(&Default::default());
        let shadow_bind = shadow_group(&shadow_view);

        let layout = pipeline_layout(
            device,
            "examples:rigid",
            &[&uniforms.layout, &storage_layout, &shadow_layout],
        );
        let mesh_attributes = wgpu::vertex_attr_array![
            0 => Float32x3, 1 => Uint32, 2 => Float32x3, 3 => Float32
        ];
        let mesh_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<MeshVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &mesh_attributes,
        })];
        let tri = wgpu::PrimitiveTopology::TriangleList;
        let spec = |label, vs, buffers, fs, topology, cull| PipelineSpec {
            label,
            layout: &layout,
            vs,
            buffers,
            fs,
            format: Some(format),
            blend: wgpu::BlendState::REPLACE,
            topology,
            depth: Some(DepthUse {
                test: true,
                write: true,
            }),
            cull,
        };
        let back = Some(wgpu::Face::Back);
        let shapes = render_pipeline(
            device,
            &module,
            &spec(
                "examples:rigid-shapes",
                "vs_shape",
                &mesh_buffers,
                "fs_shape",
                tri,
                back,
            ),
        );
        let hulls = render_pipeline(
            device,
            &module,
            &spec(
                "examples:rigid-hulls",
                "vs_hull",
                &[],
                "fs_shape",
                tri,
                back,
            ),
        );
        let planes = render_pipeline(
            device,
            &module,
            &spec(
                "examples:rigid-planes",
                "vs_plane",
                &[],
                "fs_plane",
                tri,
                None,
            ),
        );
        let lines = wgpu::PrimitiveTopology::LineList;
        // Overlays drawn over everything, no depth.
        let overlay = |label, vs| {
            render_pipeline(
                device,
                &module,
                &PipelineSpec {
                    depth: Some(DepthUse {
                        test: false,
                        write: false,
                    }),
                    ..spec(label, vs, &[], "fs_flat", lines, None)
                },
            )
        };
        let contacts = overlay("examples:rigid-contacts", "vs_contact");
        let joints = overlay("examples:rigid-joints", "vs_joint");
        let line_buffers = [Some(line_buffer_layout())];
        let line = render_pipeline(
            device,
            &module,
            &PipelineSpec {
                blend: wgpu::BlendState::ALPHA_BLENDING,
                depth: Some(DepthUse {
                    test: true,
                    write: false,
                }),
                ..spec(
                    "examples:rigid-lines",
                    "vs_line",
                    &line_buffers,
                    "fs_flat",
                    lines,
                    None,
                )
            },
        );
        // Depth only: no colour target, and no shadow map to read.
        let depth_only = pipeline_layout(
            device,
            "examples:rigid-shadow",
            &[&uniforms.layout, &storage_layout],
        );
        let shadow = render_pipeline(
            device,
            &module,
            &PipelineSpec {
                layout: &depth_only,
                format: None,
                ..spec(
                    "examples:rigid-shadow",
                    "vs_shadow",
                    &mesh_buffers,
                    "",
                    tri,
                    back,
                )
            },
        );

        let hull_shadow = render_pipeline(
            device,
            &module,
            &PipelineSpec {
                layout: &depth_only,
                format: None,
                ..spec(
                    "examples:rigid-hull-shadow",
                    "vs_hull_shadow",
                    &[],
                    "",
                    tri,
                    back,
                )
            },
        );
        let level_attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
        let level_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<[[f32; 3]; 2]>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &level_attributes,
        })];
        let level = render_pipeline(
            device,
            &module,
            &spec(
                "examples:rigid-level",
                "vs_level",
                &level_buffers,
                "fs_level",
                tri,
                back,
            ),
        );
        let level_shadow = render_pipeline(
            device,
            &module,
            &PipelineSpec {
                layout: &depth_only,
                format: None,
                ..spec(
                    "examples:rigid-level-shadow",
                    "vs_level_shadow",
                    &level_buffers,
                    "",
                    tri,
                    back,
                )
            },
        );
        let (vertices, indices) = unit_meshes();
        let init = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let mesh = init(
            "examples:rigid-mesh",
            bytemuck::cast_slice(&vertices),
            wgpu::BufferUsages::VERTEX,
        );
        let index = init(
            "examples:rigid-index",
            bytemuck::cast_slice(&indices),
            wgpu::BufferUsages::INDEX,
        );
        let no_contacts = [
            init(
                "examples:rigid-no-manifolds",
                bytemuck::bytes_of(&GpuManifold::default()),
                wgpu::BufferUsages::STORAGE,
            ),
            init(
                "examples:rigid-no-counters",
                &[0; 16],
                wgpu::BufferUsages::STORAGE,
            ),
            init(
                "examples:rigid-no-joints",
                bytemuck::bytes_of(&GpuJoint::default()),
                wgpu::BufferUsages::STORAGE,
            ),
            init(
                "examples:rigid-no-hulls",
                &[0; 16],
                wgpu::BufferUsages::STORAGE,
            ),
        ];
        Self {
            uniforms,
            storage_layout,
            shadow_bind,
            shadow_view,
            shapes,
            shadow,
            hulls,
            hull_shadow,
            planes,
            contacts,
            joints,
            line,
            level,
            level_shadow,
            level_vertices: None,
            mesh,
            index,
            index_count: indices.len() as u32,
            no_contacts,
            bound: None,
            lines: None,
            depth: depth_texture(
                device,
                "examples:rigid-depth",
                width,
                height,
                wgpu::TextureUsages::empty(),
            )
            .create_view(&Default::default()),
            width: width.max(1),
            height: height.max(1),
            style: RigidStyle::default(),
        }
    }

    /// Matches a new target size (recreates the depth buffer).
    pub fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        self.width = width.max(1);
        self.height = height.max(1);
        self.depth = depth_texture(
            device,
            "examples:rigid-depth",
            self.width,
            self.height,
            wgpu::TextureUsages::empty(),
        )
        .create_view(&Default::default());
    }

    /// Replaces the debug lines (a line list, drawn over the bodies; cheap to call every frame:
    /// the buffer is reused when it fits).
    pub fn set_lines(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, lines: &[LineVertex]) {
        let old = self.lines.take();
        self.lines = upload(
            device,
            queue,
            "examples:rigid-lines",
            wgpu::BufferUsages::VERTEX,
            lines,
            old,
        );
    }

    /// Sets the static level drawn under the bodies: world-space triangles, three corners
    /// each, counter-clockwise seen from the side drawn (a scene's `LevelScene::level`).
    /// Uploaded once; an empty slice draws none.
    pub fn set_level(&mut self, device: &wgpu::Device, level: &[LevelVertex]) {
        let data: Vec<[[f32; 3]; 2]> = level
            .iter()
            .map(|v| [v.position.to_array(), v.normal.to_array()])
            .collect();
        self.level_vertices = (!data.is_empty()).then(|| {
            let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("examples:rigid-level"),
                contents: bytemuck::cast_slice(&data),
                usage: wgpu::BufferUsages::VERTEX,
            });
            (buffer, data.len() as u32)
        });
    }

    /// The bind group over `bufs`, made again only when the engine's buffers change (a world
    /// that grows replaces them).
    fn bind(&mut self, device: &wgpu::Device, bufs: &RigidBuffers<'_>) -> &wgpu::BindGroup {
        let (manifolds, counters) = bufs
            .contacts
            .unwrap_or((&self.no_contacts[0], &self.no_contacts[1]));
        let joints = bufs.joints.map_or(&self.no_contacts[2], |(j, _)| j);
        let hulls = bufs.hulls.unwrap_or(&self.no_contacts[3]);
        let key = [bufs.bodies, bufs.shapes, manifolds, counters, joints, hulls].map(Clone::clone);
        if self.bound.as_ref().is_none_or(|b| b.key != key) {
            let entries: Vec<wgpu::BindGroupEntry<'_>> = key
                .iter()
                .enumerate()
                .map(|(i, b)| wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: b.as_entire_binding(),
                })
                .collect();
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("examples:rigid-buffers"),
                layout: &self.storage_layout,
                entries: &entries,
            });
            self.bound = Some(Bound { key, group });
        }
        &self.bound.as_ref().expect("bound above").group
    }

    /// Records one frame into `encoder`: the shadow map, then planes, shapes, contacts, joints
    /// and debug lines, all from the engine's buffers in `bufs`.
    pub fn render(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        camera: &OrbitCamera,
        bufs: RigidBuffers<'_>,
    ) {
        let s = self.style;
        let (w, h) = (self.width as f32, self.height as f32);
        let light = s.light.normalize_or(Vec3::Y);
        // The shadow map covers a box around the target, sized by how far the camera is.
        let reach = camera.distance * 1.1;
        let light_view = glam::camera::rh::view::look_at_mat4(
            camera.target + light * 4.0 * reach,
            camera.target,
            if light.y.abs() > 0.99 {
                Vec3::Z
            } else {
                Vec3::Y
            },
        );
        let light_proj = glam::camera::rh::proj::directx::orthographic(
            -reach,
            reach,
            -reach,
            reach,
            0.0,
            8.0 * reach,
        ) * light_view;
        let globals = RigidGlobals {
            view_proj: camera.view_proj(w / h),
            light_proj,
            eye: camera.eye().extend(s.fog * camera.distance),
            light: light.extend(s.ambient.clamp(0.0, 1.0)),
            ground: camera.target.extend(camera.distance * 12.0 + 50.0),
            background: s.background.extend(s.checker),
            style: Vec4::new(
                s.contact_length,
                2.0 * reach / SHADOW_SIZE as f32,
                f32::from(u8::from(s.shadows)),
                s.edge_px,
            ),
            groups: match s.groups {
                Some((first, size, count)) => [first, size, count, 0],
                None => [0; 4],
            },
        };
        ctx.queue
            .write_buffer(&self.uniforms.buffer, 0, bytemuck::bytes_of(&globals));
        let slots = bufs
            .shape_slots
            .min((bufs.shapes.size() / std::mem::size_of::<GpuShape>() as u64) as u32);
        let contacts = match (s.contacts, bufs.contacts) {
            (true, Some((manifolds, _))) => {
                let n = manifolds.size() / std::mem::size_of::<GpuManifold>() as u64;
                n as u32 * wgphys::rigid::types::MAX_POINTS
            }
            _ => 0,
        };
        let joints = match (s.joints, bufs.joints) {
            (true, Some((buffer, slots))) => {
                slots.min((buffer.size() / std::mem::size_of::<GpuJoint>() as u64) as u32)
            }
            _ => 0,
        };
        self.bind(&ctx.device, &bufs);
        let storage = &self.bound.as_ref().expect("bound above").group;

        if s.shadows {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("examples:rigid-shadow"),
                color_attachments: &[],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.shadow_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.shadow);
            pass.set_bind_group(0, &self.uniforms.bind, &[]);
            pass.set_bind_group(1, storage, &[]);
            pass.set_vertex_buffer(0, self.mesh.slice(..));
            pass.set_index_buffer(self.index.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..self.index_count, 0, 0..slots);
            if bufs.hulls.is_some() {
                pass.set_pipeline(&self.hull_shadow);
                pass.draw(0..HULL_VERTICES, 0..slots);
            }
            if let Some((buffer, count)) = &self.level_vertices {
                pass.set_pipeline(&self.level_shadow);
                pass.set_vertex_buffer(0, buffer.slice(..));
                pass.draw(0..*count, 0..1);
            }
        }

        let bg = s.background.as_dvec3();
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("examples:rigid-frame"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: bg.x,
                        g: bg.y,
                        b: bg.z,
                        a: 1.0,
                    }),
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
        pass.set_bind_group(0, &self.uniforms.bind, &[]);
        pass.set_bind_group(1, storage, &[]);
        pass.set_bind_group(2, &self.shadow_bind, &[]);
        pass.set_pipeline(&self.shapes);
        pass.set_vertex_buffer(0, self.mesh.slice(..));
        pass.set_index_buffer(self.index.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..self.index_count, 0, 0..slots);
        if bufs.hulls.is_some() {
            pass.set_pipeline(&self.hulls);
            pass.draw(0..HULL_VERTICES, 0..slots);
        }
        if let Some((buffer, count)) = &self.level_vertices {
            pass.set_pipeline(&self.level);
            pass.set_vertex_buffer(0, buffer.slice(..));
            pass.draw(0..*count, 0..1);
        }
        pass.set_pipeline(&self.planes);
        pass.draw(0..6, 0..slots);
        if contacts > 0 {
            pass.set_pipeline(&self.contacts);
            pass.draw(0..2, 0..contacts);
        }
        if joints > 0 {
            pass.set_pipeline(&self.joints);
            pass.draw(0..6, 0..joints);
        }
        if let Some((buffer, count)) = &self.lines {
            pass.set_pipeline(&self.line);
            pass.set_vertex_buffer(0, buffer.slice(..));
            pass.draw(0..*count, 0..1);
        }
    }
}
