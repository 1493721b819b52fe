//! The aggregate examples' half of the shared code: the [`AggregateDemo`] trait, a renderer for
//! [`AggregateWorld`]s ([`AggRenderer`], its WGSL is [`AGG_SHADER`]) and [`run`].
//!
//! The renderer draws every particle as a shaded ball (a camera-facing quad whose fragments
//! write the sphere's depth), straight from the engine's buffers with `draw_indirect`. Rods,
//! cables and springs are thick screen-space lines whose ends are [`Attach`] points: a fixed
//! offset plus up to four weighted particle positions, read in the vertex shader from the
//! engine's positions storage buffer. "Markers" (the character on the bridge, the platform's
//! mass) are balls placed the same way. So a frame reads nothing back from the GPU, and the
//! endpoint tables are built once.

use std::time::{Duration, Instant};

use glam::{Mat4, Vec3, Vec4};
use wgphys::aggregate::{AggregateWorld, ParticleId};
use wgphys::gpu::GpuContext;
use wgphys::particles::{Collider, ColliderShape, RenderBuffers};
use winit::keyboard::{Key, NamedKey};

use super::{
    depth_view, line_buffer_layout, render_pipeline, segment, upload, App, BoxError, DepthUse,
    LineVertex, OrbitCamera, PipelineSpec, Uniforms,
};

/// "No particle" in an [`Attach`] slot.
const NONE: u32 = u32::MAX;

/// The WGSL of the aggregate renderer.
pub const AGG_SHADER: &str = r#"
struct Globals {
    view: mat4x4<f32>,
    proj: mat4x4<f32>,
    view_proj: mat4x4<f32>,
    // width, height (pixels), focal length (pixels), smallest ball radius (pixels)
    viewport: vec4<f32>,
    // direction towards the light in view space (xyz), ambient share (w)
    light: vec4<f32>,
    // height shading: brightness goes from z at y = x up to 1 at y = y; off when w = 0
    shade: vec4<f32>,
};

@group(0) @binding(0) var<uniform> g: Globals;
@group(1) @binding(0) var<storage, read> positions: array<vec4<f32>>;

const NONE: u32 = 0xffffffffu;

// An Attach point: offset + sum of weight * particle position (unused slots are NONE).
fn attached(idx: vec4<u32>, w: vec4<f32>, offset: vec3<f32>) -> vec3<f32> {
    var p = offset;
    for (var k = 0u; k < 4u; k++) {
        if (idx[k] != NONE) {
            p += w[k] * positions[idx[k]].xyz;
        }
    }
    return p;
}

// Corner k of a quad made of two triangles, in [-1, 1]^2.
fn corner_of(vi: u32) -> vec2<f32> {
    let i = vi % 6u;
    return vec2<f32>(
        select(-1.0, 1.0, i == 1u || i == 2u || i == 4u),
        select(-1.0, 1.0, i == 2u || i == 4u || i == 5u),
    );
}

struct BallOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) colour: vec4<f32>,
    // view-space centre and radius as drawn
    @location(2) centre: vec3<f32>,
    @location(3) radius: f32,
    // brightness from the height shading
    @location(4) bright: f32,
};

fn ball(vi: u32, world: vec3<f32>, radius: f32, colour: vec4<f32>) -> BallOut {
    let corner = corner_of(vi);
    let c = (g.view * vec4<f32>(world, 1.0)).xyz;
    var out: BallOut;
    out.uv = corner;
    out.colour = colour;
    out.centre = c;
    out.radius = 0.0;
    let h = clamp((world.y - g.shade.x) / max(g.shade.y - g.shade.x, 1e-6), 0.0, 1.0);
    out.bright = select(1.0, mix(g.shade.z, 1.0, h), g.shade.w != 0.0);
    let dist = -c.z;
    if (radius <= 0.0 || dist <= 1e-3) {
        // Removed particle, or behind the eye: a degenerate vertex outside the clip volume.
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    // Never smaller than the pixel floor, so far balls stay visible.
    let r = max(radius, g.viewport.w * dist / g.viewport.z);
    out.radius = r;
    out.clip = g.proj * vec4<f32>(c + vec3<f32>(corner * r, 0.0), 1.0);
    return out;
}

// The engine's particles: per-instance position, colour, radius.
@vertex
fn vs_ball(
    @builtin(vertex_index) vi: u32,
    @location(0) position: vec4<f32>,
    @location(1) colour: vec4<f32>,
    @location(2) radius: f32,
) -> BallOut {
    return ball(vi, position.xyz, radius, colour);
}

// Markers: balls placed from particle positions.
@vertex
fn vs_marker(
    @builtin(vertex_index) vi: u32,
    @location(0) idx: vec4<u32>,
    @location(1) w: vec4<f32>,
    @location(2) offset_size: vec4<f32>,
    @location(3) colour: vec4<f32>,
) -> BallOut {
    return ball(vi, attached(idx, w, offset_size.xyz), offset_size.w, colour);
}

struct BallFrag {
    @location(0) colour: vec4<f32>,
    @builtin(frag_depth) depth: f32,
};

@fragment
fn fs_ball(in: BallOut) -> BallFrag {
    let r2 = dot(in.uv, in.uv);
    if (r2 >= 1.0) {
        discard;
    }
    let n = vec3<f32>(in.uv, sqrt(1.0 - r2));
    let clip = g.proj * vec4<f32>(in.centre + n * in.radius, 1.0);
    let l = normalize(g.light.xyz);
    let diffuse = max(dot(n, l), 0.0);
    let h = normalize(l + vec3<f32>(0.0, 0.0, 1.0));
    let spec = 0.25 * pow(max(dot(n, h), 0.0), 24.0);
    let rgb = in.colour.rgb * in.bright * (g.light.w + (1.0 - g.light.w) * diffuse)
        + vec3<f32>(spec * in.bright);
    var out: BallFrag;
    out.colour = vec4<f32>(rgb, 1.0);
    out.depth = clip.z / clip.w;
    return out;
}

struct FlatOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
};

// Links: one instance per segment, two Attach ends, extruded to `size` pixels on screen.
@vertex
fn vs_link(
    @builtin(vertex_index) vi: u32,
    @location(0) ia: vec4<u32>,
    @location(1) wa: vec4<f32>,
    @location(2) oa: vec4<f32>,
    @location(3) ca: vec4<f32>,
    @location(4) ib: vec4<u32>,
    @location(5) wb: vec4<f32>,
    @location(6) ob: vec4<f32>,
    @location(7) cb: vec4<f32>,
) -> FlatOut {
    let corner = corner_of(vi);
    let end_b = corner.x > 0.0;
    let a = g.view_proj * vec4<f32>(attached(ia, wa, oa.xyz), 1.0);
    let b = g.view_proj * vec4<f32>(attached(ib, wb, ob.xyz), 1.0);
    var out: FlatOut;
    out.colour = select(ca, cb, end_b);
    if (a.w <= 1e-3 || b.w <= 1e-3) {
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    let half = 0.5 * g.viewport.xy;
    let d = b.xy / b.w * half - a.xy / a.w * half;
    let len = length(d);
    let dir = select(vec2<f32>(1.0, 0.0), d / len, len > 1e-6);
    let normal = vec2<f32>(-dir.y, dir.x);
    let width = select(oa.w, ob.w, end_b);
    let clip = select(a, b, end_b);
    out.clip = clip + vec4<f32>(normal * corner.y * 0.5 * width / half * clip.w, 0.0, 0.0);
    return out;
}

// Scenery: a plain line list.
@vertex
fn vs_line(@location(0) position: vec3<f32>, @location(1) colour: vec4<f32>) -> FlatOut {
    var out: FlatOut;
    out.clip = g.view_proj * vec4<f32>(position, 1.0);
    out.colour = colour;
    return out;
}

@fragment
fn fs_flat(in: FlatOut) -> @location(0) vec4<f32> {
    return in.colour;
}
"#;

/// The uniform block of [`AGG_SHADER`] (`Globals`).
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

/// A point the GPU places from particle positions: `offset` + Σ `weight[k]` · position of
/// particle `index[k]` (unused slots hold `u32::MAX`). As a link end, `size` is the line width
/// in pixels; as a marker, the ball's radius in metres. 64 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Attach {
    /// Particle slots (`u32::MAX`: unused).
    pub index: [u32; 4],
    /// Weights of those particles' positions.
    pub weight: [f32; 4],
    /// Added to the weighted sum, metres.
    pub offset: [f32; 3],
    /// Line width (pixels) or ball radius (metres).
    pub size: f32,
    /// Linear RGBA.
    pub colour: [f32; 4],
}

impl Attach {
    /// Follows one particle.
    pub fn particle(id: ParticleId, size: f32, colour: [f32; 4]) -> Self {
        Self::blend(&[(id, 1.0)], Vec3::ZERO, size, colour)
    }

    /// A fixed point (an anchor).
    pub fn point(p: Vec3, size: f32, colour: [f32; 4]) -> Self {
        Self::blend(&[], p, size, colour)
    }

    /// `offset` plus a weighted sum of up to four particles' positions (more are ignored).
    pub fn blend(parts: &[(ParticleId, f32)], offset: Vec3, size: f32, colour: [f32; 4]) -> Self {
        let mut a = Self {
            index: [NONE; 4],
            weight: [0.0; 4],
            offset: offset.to_array(),
            size,
            colour,
        };
        for (k, &(id, w)) in parts.iter().take(4).enumerate() {
            a.index[k] = id.index();
            a.weight[k] = w;
        }
        a
    }
}

/// A line segment between two attached points.
pub type LinkLine = [Attach; 2];

/// Appends the twelve edges of a box collider (an oriented box; other shapes add nothing).
pub fn box_outline(out: &mut Vec<LineVertex>, collider: &Collider, colour: [f32; 4]) {
    if let ColliderShape::Box {
        centre,
        half_extents,
        rotation,
    } = collider.shape
    {
        let corner = |i: u32| {
            let s = Vec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            );
            centre + rotation * (s * half_extents)
        };
        for i in 0..8u32 {
            for bit in [1u32, 2, 4] {
                if i & bit == 0 {
                    segment(out, corner(i), corner(i | bit), colour);
                }
            }
        }
    }
}

/// The four deck particles around a load at (`x`, `z`) and their bilinear shares, exactly as
/// `scenes::aggregate::load_deck` spreads the load: `deck` holds pairs of particles (z = -1
/// first, then z = +1) column by column at the x positions `xs`. A marker blended with these
/// weights sits where the load acts.
pub fn deck_weights(deck: &[ParticleId], xs: &[f32], x: f32, z: f32) -> [(ParticleId, f32); 4] {
    let columns = deck.len() / 2;
    let span = xs[columns - 1] - xs[0];
    let t = ((x - xs[0]) / span * (columns - 1) as f32).clamp(0.0, (columns - 1) as f32 - 1e-3);
    let c = t.floor() as usize;
    let fx = t - c as f32;
    let fz = (z * 0.5 + 0.5).clamp(0.0, 1.0);
    [
        (deck[2 * c], (1.0 - fx) * (1.0 - fz)),
        (deck[2 * c + 1], (1.0 - fx) * fz),
        (deck[2 * c + 2], fx * (1.0 - fz)),
        (deck[2 * c + 3], fx * fz),
    ]
}

/// Appends a square grid on the plane y = `y`: `half` metres each way, lines every `step`.
pub fn ground_grid(out: &mut Vec<LineVertex>, y: f32, half: f32, step: f32, colour: [f32; 4]) {
    let n = (half / step).round() as i32;
    for i in -n..=n {
        let t = i as f32 * step;
        segment(out, Vec3::new(t, y, -half), Vec3::new(t, y, half), colour);
        segment(out, Vec3::new(-half, y, t), Vec3::new(half, y, t), colour);
    }
}

/// An aggregate-world scene the shared app runs, in a window or headless.
pub trait AggregateDemo: Sized {
    /// Short name: window title, default PNG name, usage text.
    const NAME: &'static str;
    /// Controls, printed when the window opens.
    const CONTROLS: &'static str;
    /// Frames rendered headless when `--frames` is not given.
    const DEFAULT_FRAMES: u32 = super::DEFAULT_FRAMES;

    /// Builds the scene on `ctx`. `headless_frames` is `Some(frames)` for an offscreen run of
    /// that many frames: no input comes, so the demo drives itself over those frames.
    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError>;
    /// The world drawn each frame.
    fn world(&self) -> &AggregateWorld;
    /// Where the camera starts (and returns to on `R`).
    fn camera(&self) -> OrbitCamera;
    /// Clear colour (linear).
    fn background(&self) -> wgpu::Color {
        wgpu::Color {
            r: 0.012,
            g: 0.014,
            b: 0.02,
            a: 1.0,
        }
    }
    /// Height shading of the particles (see [`AggRenderer::height_shade`]).
    fn height_shade(&self) -> Option<(f32, f32, f32)> {
        None
    }
    /// Static scenery (a line list): ground, colliders, the box.
    fn scenery(&self) -> Vec<LineVertex>;
    /// Segments that follow particles (rods, cables, springs); asked once.
    fn links(&self) -> Vec<LinkLine>;
    /// Balls placed from particle positions (a load on the deck); asked every frame.
    fn markers(&self) -> Vec<Attach> {
        Vec::new()
    }
    /// Advances one fixed step of [`super::DT`].
    fn step(&mut self) -> wgphys::Result<()>;
    /// A key went down (`pressed`) or up (Escape and R are handled by the app).
    fn key(&mut self, key: &Key, pressed: bool) -> wgphys::Result<()>;
    /// Forget the keys held down (the window lost the keyboard).
    fn release_keys(&mut self) {}
    /// The count shown in the title.
    fn count(&self) -> String {
        format!("{} particles", self.world().len())
    }
    /// Extra text for the window title.
    fn title(&self) -> String;
    /// What a headless run prints at the end (one or more lines).
    fn summary(&self) -> String;
}

/// Runs an aggregate demo: in a window when a display is available, otherwise (or with
/// `--headless`) offscreen into a PNG.
pub fn run<D: AggregateDemo>() -> Result<(), BoxError> {
    super::run_app::<AggregateApp<D>>()
}

/// An [`AggregateDemo`] and an [`AggRenderer`], as an [`App`].
pub struct AggregateApp<D: AggregateDemo> {
    demo: D,
    renderer: AggRenderer,
    ctx: GpuContext,
}

impl<D: AggregateDemo> App for AggregateApp<D> {
    const NAME: &'static str = D::NAME;
    const CONTROLS: &'static str = D::CONTROLS;
    const DEFAULT_FRAMES: u32 = D::DEFAULT_FRAMES;

    fn new(
        ctx: &GpuContext,
        adapter: &wgpu::Adapter,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
        headless_frames: Option<u32>,
    ) -> Result<Self, BoxError> {
        let demo = D::new(ctx, headless_frames)?;
        let vertex_storage = adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::VERTEX_STORAGE);
        if !vertex_storage {
            eprintln!(
                "this adapter cannot read storage buffers in vertex shaders: links and markers \
                 are not drawn"
            );
        }
        let mut renderer = AggRenderer::new(
            &ctx.device,
            format,
            width,
            height,
            vertex_storage,
            demo.background(),
        );
        renderer.height_shade = demo.height_shade();
        renderer.set_scenery(&ctx.device, &ctx.queue, &demo.scenery());
        renderer.set_links(&ctx.device, &ctx.queue, &demo.links());
        Ok(Self {
            demo,
            renderer,
            ctx: ctx.clone(),
        })
    }

    fn camera(&self) -> OrbitCamera {
        self.demo.camera()
    }

    fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        self.renderer.resize(device, width, height);
    }

    fn step(&mut self) -> Result<Duration, BoxError> {
        // Wall time of the step with its GPU work: finish what is queued (the last frame), then
        // time the step up to the GPU going idle. A wait is no readback.
        self.ctx.wait()?;
        let t = Instant::now();
        self.demo.step()?;
        self.ctx.wait()?;
        Ok(t.elapsed())
    }

    fn render(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        camera: &OrbitCamera,
        _frame_dt: f32,
    ) {
        self.renderer
            .set_markers(&ctx.device, &ctx.queue, &self.demo.markers());
        self.renderer.render(
            ctx,
            encoder,
            target,
            camera,
            self.demo.world().render_buffers(),
        );
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        Ok(self.demo.key(key, pressed)?)
    }

    fn release_keys(&mut self) {
        self.demo.release_keys();
    }

    fn click(&mut self) -> Result<(), BoxError> {
        Ok(())
    }

    fn count(&self) -> String {
        self.demo.count()
    }

    fn title(&self) -> String {
        self.demo.title()
    }

    fn report(&self, steps: u32, step_time: Duration) -> Result<(), BoxError> {
        println!("{}", self.demo.summary());
        println!(
            "{:.3} ms/step (mean over {steps} steps, GPU work included)",
            step_time.as_secs_f64() * 1e3 / f64::from(steps.max(1))
        );
        Ok(())
    }
}

/// Draws an [`AggregateWorld`]: shaded balls with depth, scenery lines, links and markers.
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
            source: wgpu::ShaderSource::Wgsl(AGG_SHADER.into()),
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
        let layout = super::pipeline_layout(device, "examples:aggregate", &[&globals_layout]);

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
                    depth: DepthUse::Write,
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
                    entries: &[super::vertex_storage_entry(0)],
                });
            let with_positions = super::pipeline_layout(
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

        let depth = depth_view(
            device,
            "examples:aggregate-depth",
            width,
            height,
            wgpu::TextureUsages::empty(),
        );
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
        self.depth = depth_view(
            device,
            "examples:aggregate-depth",
            self.width,
            self.height,
            wgpu::TextureUsages::empty(),
        );
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

/// Direction keys held down: arrows or WASD (Space counts as up/forward), shared by the
/// interactive aggregate demos.
#[derive(Clone, Copy, Debug, Default)]
pub struct Held {
    /// Left arrow or A.
    pub left: bool,
    /// Right arrow or D.
    pub right: bool,
    /// Up arrow, W or Space.
    pub forward: bool,
    /// Down arrow or S.
    pub back: bool,
}

impl Held {
    /// Records a key press or release; other keys are ignored.
    pub fn set(&mut self, key: &Key, pressed: bool) {
        match key {
            Key::Named(NamedKey::ArrowLeft) => self.left = pressed,
            Key::Named(NamedKey::ArrowRight) => self.right = pressed,
            Key::Named(NamedKey::ArrowUp) | Key::Named(NamedKey::Space) => self.forward = pressed,
            Key::Named(NamedKey::ArrowDown) => self.back = pressed,
            Key::Character(c) => match c.to_ascii_lowercase().as_str() {
                "a" => self.left = pressed,
                "d" => self.right = pressed,
                "w" | " " => self.forward = pressed,
                "s" => self.back = pressed,
                _ => {}
            },
            _ => {}
        }
    }

    /// (right − left, back − forward) as −1, 0 or 1 each.
    pub fn axes(self) -> (f32, f32) {
        let f = |b: bool| f32::from(u8::from(b));
        (f(self.right) - f(self.left), f(self.back) - f(self.forward))
    }
}
