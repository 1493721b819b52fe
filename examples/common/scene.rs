//! The static scene under the FX particles ([`super::fx`]): a sky (gradient and stars), lit
//! boxes (ground, buildings with lit windows, blocks) and lines, drawn into the HDR target and
//! the depth buffer that the particles fade against and the engine's depth collider reads.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use super::bloom::HDR;
use super::fx::GLOBALS_WGSL;
use super::{line_buffer_layout, render_pipeline, DepthUse, LineVertex, PipelineSpec};

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

const SHADER: &str = r#"
struct SkyOut {
    @builtin(position) pos: vec4<f32>,
};

@vertex
fn vs_sky(@builtin(vertex_index) vi: u32) -> SkyOut {
    let t = vec2<f32>(f32((vi << 1u) & 2u), f32(vi & 2u));
    return SkyOut(vec4<f32>(t * 2.0 - 1.0, 1.0, 1.0));
}

fn hash2(p: vec2<f32>) -> f32 {
    let q = fract(p * vec2<f32>(0.1031, 0.1030));
    let r = q + dot(q, q.yx + 33.33);
    return fract((r.x + r.y) * r.x);
}

@fragment
fn fs_sky(in: SkyOut) -> @location(0) vec4<f32> {
    let ndc = vec2<f32>(in.pos.x / g.viewport.x * 2.0 - 1.0, 1.0 - in.pos.y / g.viewport.y * 2.0);
    let far = g.inv_view_proj * vec4<f32>(ndc, 1.0, 1.0);
    let dir = normalize(far.xyz / far.w - g.eye.xyz);
    let up = clamp(dir.y, 0.0, 1.0);
    var c = mix(g.sky_horizon.rgb, g.sky_top.rgb, sqrt(up));
    // Stars on a grid of directions; a few cells hold one, twinkling slowly.
    let cell_size = 0.004;
    let uv = vec2<f32>(atan2(dir.z, dir.x), asin(clamp(dir.y, -1.0, 1.0))) / cell_size;
    let id = floor(uv);
    let h = hash2(id);
    if (h > 0.985) {
        let f = fract(uv) - vec2<f32>(0.5);
        let twinkle = 0.7 + 0.3 * sin(g.eye.w * (1.0 + 3.0 * h) + h * 100.0);
        let b = exp(-dot(f, f) * 30.0) * fract(h * 91.0) * twinkle;
        c += vec3<f32>(0.8, 0.85, 1.0) * b * g.sky_top.w * smoothstep(0.02, 0.25, dir.y);
    }
    return vec4<f32>(c, 1.0);
}

struct MeshOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) colour: vec4<f32>,
};

@vertex
fn vs_mesh(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>,
           @location(2) colour: vec4<f32>) -> MeshOut {
    return MeshOut(g.view_proj * vec4<f32>(position, 1.0), position, normal, colour);
}

fn fogged(c: vec3<f32>, p: vec3<f32>) -> vec3<f32> {
    let d = length(p - g.eye.xyz);
    return mix(c, g.sky_horizon.rgb, 1.0 - exp(-d * g.sky_horizon.w));
}

@fragment
fn fs_mesh(in: MeshOut) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    var c = in.colour.rgb * lighting(in.world, n, 0.0);
    // Windows: cells of 1.6 m x 2.2 m on the vertical faces, some of them lit.
    if (in.colour.a > 0.0 && abs(n.y) < 0.5) {
        let u = select(in.world.z, in.world.x, abs(n.z) > 0.5) / 1.6;
        let v = in.world.y / 2.2;
        let f = fract(vec2<f32>(u, v));
        let cell = floor(vec2<f32>(u, v)) + n.xz * 37.0;
        let h = hash2(cell);
        if (f.x > 0.25 && f.x < 0.75 && f.y > 0.3 && f.y < 0.75 && v > 0.5 && h < in.colour.a) {
            c += vec3<f32>(1.0, 0.62, 0.3) * (0.25 + 0.5 * fract(h * 57.0));
        }
    }
    return vec4<f32>(fogged(c, in.world), 1.0);
}

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
    @location(1) world: vec3<f32>,
};

@vertex
fn vs_line(@location(0) position: vec3<f32>, @location(1) colour: vec4<f32>) -> LineOut {
    return LineOut(g.view_proj * vec4<f32>(position, 1.0), colour, position);
}

@fragment
fn fs_line(in: LineOut) -> @location(0) vec4<f32> {
    return vec4<f32>(fogged(in.colour.rgb, in.world), in.colour.a);
}
"#;

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
    /// [`GLOBALS_WGSL`]) and uploads `scene`.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        globals: &wgpu::BindGroupLayout,
        scene: &Scene,
    ) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("examples:fx-scene"),
            source: wgpu::ShaderSource::Wgsl(format!("{GLOBALS_WGSL}{SHADER}").into()),
        });
        let layout = super::pipeline_layout(device, "examples:fx-scene", &[globals]);
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
                DepthUse::Overlay,
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
                DepthUse::Write,
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
                DepthUse::Test,
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
            boxes: super::upload(device, queue, "examples:fx-boxes", usage, &vertices, None),
            lines: super::upload(
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
