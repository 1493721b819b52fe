//! The static scene under the FX particles (its WGSL is `scene.wgsl`): a sky (gradient and
//! stars), lit boxes (ground, buildings with lit windows, blocks) and lines, drawn into the HDR
//! target and the depth buffer that the particles fade against and the engine's depth collider
//! reads.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use super::bloom::HDR;
use super::wgsl;
use crate::common::{
    line_buffer_layout, pipeline_layout, render_pipeline, upload, DepthUse, LineVertex,
    PipelineSpec,
};

/// An axis-aligned box of the scene.
#[derive(Clone, Copy, Debug)]
pub struct SceneBox {
    /// Centre, metres.
    pub centre: Vec3,
    /// Half extents, metres.
    pub half: Vec3,
    /// Albedo (linear).
    pub colour: Vec3,
    /// Fraction of window cells lit on the vertical faces (0: none; buildings at night).
    pub windows: f32,
}

impl SceneBox {
    /// A plain box.
    pub fn new(centre: Vec3, half: Vec3, colour: Vec3) -> Self {
        Self {
            centre,
            half,
            colour,
            windows: 0.0,
        }
    }
}

/// What the scene holds; fixed once the renderer is built.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// Boxes (write depth).
    pub boxes: Vec<SceneBox>,
    /// Lines (a line list; depth tested).
    pub lines: Vec<LineVertex>,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct MeshVertex {
    position: [f32; 3],
    normal: [f32; 3],
    /// Albedo, window fraction.
    colour: [f32; 4],
}

const MESH_ATTRIBUTES: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x4];

/// The six faces of a box: (normal, the two in-face axes).
const FACES: [(Vec3, Vec3, Vec3); 6] = [
    (Vec3::X, Vec3::Y, Vec3::Z),
    (Vec3::NEG_X, Vec3::Z, Vec3::Y),
    (Vec3::Y, Vec3::Z, Vec3::X),
    (Vec3::NEG_Y, Vec3::X, Vec3::Z),
    (Vec3::Z, Vec3::X, Vec3::Y),
    (Vec3::NEG_Z, Vec3::Y, Vec3::X),
];

fn box_vertices(b: &SceneBox, out: &mut Vec<MeshVertex>) {
    let colour = b.colour.extend(b.windows).to_array();
    for (n, u, v) in FACES {
        // u × v = n, so (c − u − v, c + u − v, c + u + v) winds counter-clockwise seen from
        // outside.
        let c = b.centre + n * b.half;
        let (u, v) = (u * b.half, v * b.half);
        let corners = [c - u - v, c + u - v, c + u + v, c - u + v];
        for i in [0, 1, 2, 0, 2, 3] {
            out.push(MeshVertex {
                position: corners[i].to_array(),
                normal: n.to_array(),
                colour,
            });
        }
    }
}

/// The scene's pipelines and buffers.
pub struct SceneRenderer {
    sky: wgpu::RenderPipeline,
    mesh: wgpu::RenderPipeline,
    line: wgpu::RenderPipeline,
    boxes: Option<(wgpu::Buffer, u32)>,
    lines: Option<(wgpu::Buffer, u32)>,
}

impl SceneRenderer {
    /// Builds the pipelines (group 0: `globals`, the uniform block of
    /// `globals.wgsl`) and uploads `scene`.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        globals: &wgpu::BindGroupLayout,
        scene: &Scene,
    ) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("examples:fx-scene"),
            source: wgpu::ShaderSource::Wgsl(wgsl::scene().into()),
        });
        let layout = pipeline_layout(device, "examples:fx-scene", &[globals]);
        let mesh_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<MeshVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &MESH_ATTRIBUTES,
        })];
        let line_buffers = [Some(line_buffer_layout())];
        let spec = |label, vs, fs, buffers, depth, topology, blend, cull| PipelineSpec {
            label,
            layout: &layout,
            vs,
            buffers,
            fs,
            format: Some(HDR),
            blend,
            topology,
            depth,
            cull,
        };
        let tri = wgpu::PrimitiveTopology::TriangleList;
        let sky = render_pipeline(
            device,
            &module,
            &spec(
                "examples:fx-sky",
                "vs_sky",
                "fs_sky",
                &[],
                Some(DepthUse {
                    test: false,
                    write: false,
                }),
                tri,
                wgpu::BlendState::REPLACE,
                None,
            ),
        );
        let mesh = render_pipeline(
            device,
            &module,
            &spec(
                "examples:fx-boxes",
                "vs_mesh",
                "fs_mesh",
                &mesh_buffers,
                Some(DepthUse {
                    test: true,
                    write: true,
                }),
                tri,
                wgpu::BlendState::REPLACE,
                Some(wgpu::Face::Back),
            ),
        );
        let line = render_pipeline(
            device,
            &module,
            &spec(
                "examples:fx-lines",
                "vs_line",
                "fs_line",
                &line_buffers,
                Some(DepthUse {
                    test: true,
                    write: false,
                }),
                wgpu::PrimitiveTopology::LineList,
                wgpu::BlendState::ALPHA_BLENDING,
                None,
            ),
        );
        let mut vertices = Vec::new();
        for b in &scene.boxes {
            box_vertices(b, &mut vertices);
        }
        let usage = wgpu::BufferUsages::VERTEX;
        Self {
            sky,
            mesh,
            line,
            boxes: upload(device, queue, "examples:fx-boxes", usage, &vertices, None),
            lines: upload(
                device,
                queue,
                "examples:fx-lines",
                usage,
                &scene.lines,
                None,
            ),
        }
    }

    /// Draws the sky, the boxes and the lines (group 0 is `globals`).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, globals: &wgpu::BindGroup) {
        pass.set_bind_group(0, globals, &[]);
        pass.set_pipeline(&self.sky);
        pass.draw(0..3, 0..1);
        for (pipeline, buffer) in [(&self.mesh, &self.boxes), (&self.line, &self.lines)] {
            if let Some((buffer, count)) = buffer {
                pass.set_pipeline(pipeline);
                pass.set_vertex_buffer(0, buffer.slice(..));
                pass.draw(0..*count, 0..1);
            }
        }
    }
}
