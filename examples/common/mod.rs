//! Code shared by the examples: command-line parsing, an orbit camera, the particle sprite
//! renderer of `ballistics` (its WGSL is [`SHADER`] below), an offscreen target with a PNG
//! writer ([`offscreen`]), and the two ways to run a [`Demo`]: in a winit window, or headless
//! into a PNG.
//!
//! The renderer draws particles straight from the engine's buffers
//! ([`ParticleWorld::render_buffers`]): positions, colours and sizes are bound as per-instance
//! vertex buffers and the engine's `draw_args` buffer drives `draw_indirect`, so a frame never
//! reads anything back from the GPU. Each particle is a camera-facing quad (two triangles built
//! from `vertex_index`) with a soft round falloff, blended additively.
//!
//! A short "afterglow" makes motion readable: every frame the sprites are also drawn with `max`
//! blending into a persistence texture that decays exponentially, and that texture is added
//! under the live sprites. It too reads nothing back, and it restarts whenever the camera moves
//! (it is kept in screen space).
//!
//! `fireworks` and `effects` use the HDR effects renderer instead ([`fx`], run by [`fx_app`]):
//! ribbons through the trails, soft and stretched sprites, sorted smoke, bloom.
//!
//! The aggregate examples (`bridge`, `platform`, `blob`, `sand`) use [`aggregate`]: shaded balls
//! with depth, and rods, cables and markers placed on the GPU from the engine's positions.
//! The rigid examples use [`rigid`]: every shape slot drawn by reading the engine's shapes and
//! bodies in the vertex shader, with shadows. All kinds run through the same loops ([`App`],
//! [`run_app`]) and build their pipelines with the same helpers ([`render_pipeline`],
//! [`Uniforms`], [`depth_view`], [`upload`]).

// Every example compiles this module and each uses only part of it.
#![allow(dead_code)]

pub mod aggregate;
pub mod bloom;
pub mod fx;
pub mod fx_app;
pub mod offscreen;
pub mod rigid;
pub mod scene;
pub mod sprites;

pub use offscreen::Offscreen;

use std::error::Error;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use glam::{Mat4, Vec3, Vec4};
use wgphys::gpu::GpuContext;
use wgphys::particles::{ParticleWorld, RenderBuffers, StepReport};
use wgphys::scenes::DT;
use winit::application::ApplicationHandler;
use winit::dpi::{LogicalSize, PhysicalPosition, PhysicalSize};
use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

/// The error type of the examples' setup and loops.
pub type BoxError = Box<dyn Error>;

/// Frames rendered headless when `--frames` is not given.
pub const DEFAULT_FRAMES: u32 = 240;
/// Size of the headless image and of the window's initial client area.
pub const WIDTH: u32 = 1280;
/// See [`WIDTH`].
pub const HEIGHT: u32 = 720;
/// Most simulation steps one window frame may catch up on (the rest of the backlog is dropped).
const MAX_STEPS_PER_FRAME: u32 = 8;

// ---------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------

/// What the command line asked for.
#[derive(Clone, Debug)]
pub struct Cli {
    /// Render offscreen into a PNG instead of opening a window.
    pub headless: bool,
    /// Frames (one simulation step each) to run headless.
    pub frames: u32,
    /// Where the headless PNG goes.
    pub out: PathBuf,
}

impl Cli {
    /// Parses `--headless`, `--frames N` and `--out FILE.png` (also `--frames=N`, `--out=FILE`).
    /// Giving `--frames` or `--out` implies `--headless`. `--help` prints usage and exits.
    pub fn parse(name: &str) -> Result<Self, BoxError> {
        Self::parse_with(name, DEFAULT_FRAMES, &[])
    }

    /// [`Cli::parse`] with `default_frames` frames when `--frames` is not given, also accepting
    /// the demo's own `options`: usage lines such as `"--rows N   rows of boxes (default 20)"`
    /// (the flag and its value, two or more spaces, the help), each a flag taking one value
    /// (read it with [`cli_option`]), or a switch when no value is named (`"--show   ..."`).
    pub fn parse_with(name: &str, default_frames: u32, options: &[&str]) -> Result<Self, BoxError> {
        // (flag, whether it takes a value)
        let flags: Vec<(&str, bool)> = options
            .iter()
            .filter_map(|o| {
                let mut words = o.split("  ").next().unwrap_or(o).split_whitespace();
                Some((words.next()?, words.next().is_some()))
            })
            .collect();
        let extra: String = options.iter().map(|o| format!("\n  {o}")).collect();
        let usage = format!(
            "usage: cargo run --release --example {name} -- [--headless] [--frames N] [--out FILE.png]{}\n\
             \n\
             Opens a window when a display is available; otherwise, or with --headless, renders\n\
             N frames (default {default_frames}) offscreen and writes the last one to FILE.png\n\
             (default {name}.png). --frames or --out imply --headless.{}",
            options
                .iter()
                .map(|o| format!(" [{}]", o.split("  ").next().unwrap_or(o).trim()))
                .collect::<String>(),
            if extra.is_empty() { String::new() } else { format!("\n\nOptions:{extra}") }
        );
        let mut cli = Cli {
            headless: false,
            frames: default_frames,
            out: PathBuf::from(format!("{name}.png")),
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ => (arg.clone(), None),
            };
            let mut value = |what: &str| -> Result<String, BoxError> {
                inline
                    .clone()
                    .or_else(|| args.next())
                    .ok_or_else(|| format!("{flag} needs {what}; see --help").into())
            };
            match flag.as_str() {
                "--headless" => cli.headless = true,
                "--frames" => {
                    let v = value("a number of frames")?;
                    cli.frames = v.parse().map_err(|_| {
                        format!("--frames {v}: expected a whole number of frames; see --help")
                    })?;
                    if cli.frames == 0 {
                        return Err("--frames must be at least 1; see --help".into());
                    }
                    cli.headless = true;
                }
                "--out" => {
                    cli.out = PathBuf::from(value("a file name")?);
                    cli.headless = true;
                }
                f if flags.contains(&(f, true)) => {
                    value("a value")?;
                }
                f if flags.contains(&(f, false)) => {}
                "-h" | "--help" => {
                    println!("{usage}");
                    std::process::exit(0);
                }
                _ => return Err(format!("unknown argument `{arg}`; see --help").into()),
            }
        }
        Ok(cli)
    }
}

/// The value given to a demo's own option `flag` (`--flag V` or `--flag=V`), if any; the flag
/// must be listed in the app's `OPTIONS` for [`Cli::parse_with`] to accept it.
pub fn cli_option(flag: &str) -> Option<String> {
    let mut args = std::env::args().skip(1);
    let mut found = None;
    while let Some(arg) = args.next() {
        if arg == flag {
            found = args.next();
        } else if let Some(v) = arg.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
            found = Some(v.to_string());
        }
    }
    found
}

/// Whether a window system looks reachable. On Linux and the BSDs that needs `DISPLAY` (X11) or
/// `WAYLAND_DISPLAY`; elsewhere we just try.
pub fn display_available() -> bool {
    if cfg!(all(
        unix,
        not(any(
            target_os = "macos",
            target_os = "ios",
            target_os = "android"
        ))
    )) {
        let set = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
        set("DISPLAY") || set("WAYLAND_DISPLAY")
    } else {
        true
    }
}

// ---------------------------------------------------------------------------------------------
// Camera
// ---------------------------------------------------------------------------------------------

/// A camera orbiting a target point: yaw about +y, pitch above the horizon, distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// The point looked at, metres.
    pub target: Vec3,
    /// Angle about +y, radians; 0 puts the eye on the +z side of the target.
    pub yaw: f32,
    /// Angle above the horizontal, radians.
    pub pitch: f32,
    /// Distance from the target, metres.
    pub distance: f32,
    /// Vertical field of view, radians.
    pub fov_y: f32,
}

impl OrbitCamera {
    /// Where the eye is.
    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + self.distance * Vec3::new(cp * sy, sp, cp * cy)
    }

    /// Projection times view, for a viewport of the given aspect (wgpu clip space, depth 0..1).
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        let near = (self.distance * 1e-3).max(0.05);
        let far = self.distance * 20.0 + 1000.0;
        // wgpu's clip space is DirectX's: y up, depth 0..1.
        let proj = glam::camera::rh::proj::directx::perspective(self.fov_y, aspect, near, far);
        proj * glam::camera::rh::view::look_at_mat4(self.eye(), self.target, Vec3::Y)
    }

    /// Orbits by a mouse drag of (dx, dy) pixels.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.005;
        self.pitch = (self.pitch + dy * 0.005).clamp(-1.45, 1.45);
    }

    /// Zooms by wheel steps (positive: closer).
    pub fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * 0.88f32.powf(steps)).clamp(1.0, 5000.0);
    }
}

// ---------------------------------------------------------------------------------------------
// Render plumbing shared by the renderers
// ---------------------------------------------------------------------------------------------

/// The depth format of the renderers that test depth.
pub const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The vertex attributes of a [`LineVertex`].
pub const LINE_ATTRIBUTES: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4];

/// The vertex buffer layout of a line list of [`LineVertex`]es.
pub fn line_buffer_layout() -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: std::mem::size_of::<LineVertex>() as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &LINE_ATTRIBUTES,
    }
}

/// A renderer's uniform block (bound as group 0, visible to both stages).
pub struct Uniforms {
    /// The buffer; write it with `queue.write_buffer`.
    pub buffer: wgpu::Buffer,
    /// Its bind group layout.
    pub layout: wgpu::BindGroupLayout,
    /// Its bind group.
    pub bind: wgpu::BindGroup,
}

impl Uniforms {
    /// A uniform buffer of `size` bytes with its layout and bind group.
    pub fn new(device: &wgpu::Device, label: &str, size: u64) -> Self {
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(label),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        });
        Self {
            buffer,
            layout,
            bind,
        }
    }
}

/// How a pipeline uses the pass's [`DEPTH`] buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthUse {
    /// The pass has no depth buffer.
    Off,
    /// Hidden behind nearer surfaces, writes no depth.
    Test,
    /// Hidden behind nearer surfaces, writes its depth.
    Write,
    /// Drawn over everything (debug overlays), writes no depth.
    Overlay,
}

/// How [`render_pipeline`] builds one pipeline.
pub struct PipelineSpec<'a> {
    /// Label (`examples:...`).
    pub label: &'a str,
    /// The pipeline layout.
    pub layout: &'a wgpu::PipelineLayout,
    /// Vertex entry point.
    pub vs: &'a str,
    /// Vertex buffers.
    pub buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    /// Fragment entry point.
    pub fs: &'a str,
    /// The colour target's format; `None`: no fragment stage (a depth-only pass).
    pub format: Option<wgpu::TextureFormat>,
    /// Blending.
    pub blend: wgpu::BlendState,
    /// Primitive topology.
    pub topology: wgpu::PrimitiveTopology,
    /// How the pipeline uses a [`DEPTH`] buffer.
    pub depth: DepthUse,
    /// Which faces to cull (counter-clockwise faces are front faces).
    pub cull: Option<wgpu::Face>,
}

/// A render pipeline from `module` as `spec` says; one colour target.
pub fn render_pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    spec: &PipelineSpec<'_>,
) -> wgpu::RenderPipeline {
    let targets = spec.format.map(|format| {
        [Some(wgpu::ColorTargetState {
            format,
            blend: Some(spec.blend),
            write_mask: wgpu::ColorWrites::ALL,
        })]
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(spec.label),
        layout: Some(spec.layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(spec.vs),
            compilation_options: Default::default(),
            buffers: spec.buffers,
        },
        primitive: wgpu::PrimitiveState {
            topology: spec.topology,
            cull_mode: spec.cull,
            ..Default::default()
        },
        depth_stencil: (spec.depth != DepthUse::Off).then(|| wgpu::DepthStencilState {
            format: DEPTH,
            depth_write_enabled: Some(spec.depth == DepthUse::Write),
            depth_compare: Some(if spec.depth == DepthUse::Overlay {
                wgpu::CompareFunction::Always
            } else {
                wgpu::CompareFunction::LessEqual
            }),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }),
        multisample: wgpu::MultisampleState::default(),
        fragment: targets.as_ref().map(|targets| wgpu::FragmentState {
            module,
            entry_point: Some(spec.fs),
            compilation_options: Default::default(),
            targets,
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// A [`DEPTH`] buffer of `width` x `height` to render into (and use as `extra` says).
pub fn depth_view(
    device: &wgpu::Device,
    label: &str,
    width: u32,
    height: u32,
    extra: wgpu::TextureUsages,
) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: width.max(1),
                height: height.max(1),
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | extra,
            view_formats: &[],
        })
        .create_view(&wgpu::TextureViewDescriptor::default())
}

/// Uploads `items` into a buffer of `usage` (plus `COPY_DST`), reusing `old` when it is big
/// enough; `None` when `items` is empty. Returns the buffer and the item count.
pub fn upload<T: bytemuck::Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    usage: wgpu::BufferUsages,
    items: &[T],
    old: Option<(wgpu::Buffer, u32)>,
) -> Option<(wgpu::Buffer, u32)> {
    if items.is_empty() {
        return None;
    }
    let bytes: &[u8] = bytemuck::cast_slice(items);
    let buffer = match old {
        Some((b, _)) if b.size() >= bytes.len() as u64 && b.usage().contains(usage) => b,
        _ => device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.len() as u64,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        }),
    };
    queue.write_buffer(&buffer, 0, bytes);
    Some((buffer, items.len() as u32))
}

// ---------------------------------------------------------------------------------------------
// Renderer
// ---------------------------------------------------------------------------------------------

/// The WGSL of every pipeline the renderer uses.
pub const SHADER: &str = r#"
struct Globals {
    view_proj: mat4x4<f32>,
    // width, height (pixels), focal length (pixels), smallest sprite radius (pixels)
    viewport: vec4<f32>,
    // sprite radius / particle radius, sprite brightness, afterglow gain, unused
    style: vec4<f32>,
};

@group(0) @binding(0) var<uniform> g: Globals;
@group(1) @binding(0) var afterglow: texture_2d<f32>;

struct SpriteOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) colour: vec4<f32>,
};

// One particle = one instance of 6 vertices: two triangles of a camera-facing quad.
@vertex
fn vs_sprite(
    @builtin(vertex_index) vi: u32,
    @location(0) position: vec4<f32>,
    @location(1) colour: vec4<f32>,
    @location(2) radius: f32,
) -> SpriteOut {
    let i = vi % 6u;
    let corner = vec2<f32>(
        select(-1.0, 1.0, i == 1u || i == 2u || i == 4u),
        select(-1.0, 1.0, i == 2u || i == 4u || i == 5u),
    );
    let centre = g.view_proj * vec4<f32>(position.xyz, 1.0);
    var out: SpriteOut;
    out.uv = corner;
    out.colour = colour;
    if (centre.w <= 1e-4) {
        // Behind the eye: emit a degenerate vertex outside the clip volume.
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    // The sprite's radius in pixels, never below the floor, so far particles stay visible.
    let r_px = max(radius * g.style.x * g.viewport.z / centre.w, g.viewport.w);
    let r_ndc = 2.0 * r_px / g.viewport.xy;
    out.clip = centre + vec4<f32>(corner * r_ndc * centre.w, 0.0, 0.0);
    return out;
}

@fragment
fn fs_sprite(in: SpriteOut) -> @location(0) vec4<f32> {
    let r2 = dot(in.uv, in.uv);
    if (r2 >= 1.0) {
        discard;
    }
    // Soft halo plus a hot core that goes white when the colour is bright.
    let halo = (1.0 - r2) * (1.0 - r2);
    let core = exp(-r2 * 14.0);
    let k = g.style.y * in.colour.a;
    let peak = max(in.colour.r, max(in.colour.g, in.colour.b));
    let rgb = (in.colour.rgb * (0.55 * halo + core) + vec3<f32>(0.6 * core * core * peak)) * k;
    return vec4<f32>(rgb, halo);
}

// The afterglow's profile: the halo without the hot core, so the trail of a fast particle
// reads as a streak rather than a string of beads.
@fragment
fn fs_sprite_soft(in: SpriteOut) -> @location(0) vec4<f32> {
    let r2 = dot(in.uv, in.uv);
    if (r2 >= 1.0) {
        discard;
    }
    let halo = (1.0 - r2) * (1.0 - r2);
    return vec4<f32>(in.colour.rgb * (halo * g.style.y * in.colour.a), halo);
}

// A triangle covering the whole target.
@vertex
fn vs_fullscreen(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((vi << 1u) & 2u), f32(vi & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

// Blended as dst * constant: decays the afterglow.
@fragment
fn fs_fade() -> @location(0) vec4<f32> {
    return vec4<f32>(0.0);
}

// Adds the afterglow under the live sprites.
@fragment
fn fs_composite(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let c = textureLoad(afterglow, vec2<i32>(p.xy), 0);
    return vec4<f32>(c.rgb * g.style.z, 0.0);
}

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
};

@vertex
fn vs_line(@location(0) position: vec3<f32>, @location(1) colour: vec4<f32>) -> LineOut {
    var out: LineOut;
    out.clip = g.view_proj * vec4<f32>(position, 1.0);
    out.colour = colour;
    return out;
}

@fragment
fn fs_line(in: LineOut) -> @location(0) vec4<f32> {
    return in.colour;
}
"#;

/// The uniform block of [`SHADER`] (`Globals`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Globals {
    view_proj: Mat4,
    viewport: Vec4,
    style: Vec4,
}

/// One vertex of the scenery lines (ground grid, range markers).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LineVertex {
    /// Position, metres.
    pub position: [f32; 3],
    /// Linear RGBA (alpha blended).
    pub colour: [f32; 4],
}

/// Appends a line segment (a pair of vertices of a line list).
pub fn segment(out: &mut Vec<LineVertex>, a: Vec3, b: Vec3, colour: [f32; 4]) {
    out.push(LineVertex {
        position: a.to_array(),
        colour,
    });
    out.push(LineVertex {
        position: b.to_array(),
        colour,
    });
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

/// Draws a [`ParticleWorld`]'s render buffers (and optional scenery lines) into a colour target.
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
                    depth: DepthUse::Off,
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
        self.lines = (!vertices.is_empty()).then(|| {
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("examples:lines"),
                size: std::mem::size_of_val(vertices) as u64,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            queue.write_buffer(&buffer, 0, bytemuck::cast_slice(vertices));
            (buffer, vertices.len() as u32)
        });
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

// ---------------------------------------------------------------------------------------------
// Device
// ---------------------------------------------------------------------------------------------

/// Picks an adapter the way wgpu's environment variables say (`WGPU_BACKEND`,
/// `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`), compatible with `surface` when given.
pub fn adapter(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<wgpu::Adapter, BoxError> {
    pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(
        instance, surface,
    ))
    .map_err(|e| {
        format!(
            "no GPU adapter found ({e}). On Linux install a software adapter \
             (`apt-get install -y mesa-vulkan-drivers` for Vulkan/lavapipe), or pick one with \
             WGPU_BACKEND=vulkan|gl"
        )
        .into()
    })
}

/// A pipeline layout of `groups` (group 0 first), labelled `label`.
pub fn pipeline_layout(
    device: &wgpu::Device,
    label: &str,
    groups: &[&wgpu::BindGroupLayout],
) -> wgpu::PipelineLayout {
    let groups: Vec<Option<&wgpu::BindGroupLayout>> = groups.iter().copied().map(Some).collect();
    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &groups,
        immediate_size: 0,
    })
}

/// A read-only storage buffer at `binding`, visible to the vertex stage (the engine's buffers
/// a renderer draws from).
pub fn vertex_storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Creates the device the renderer and the engine share, with the adapter's own limits (the
/// engine's pools like large storage buffers) and wraps it for the engine.
pub fn device(adapter: &wgpu::Adapter) -> Result<GpuContext, BoxError> {
    // Timestamp queries only for a run that asks to time its steps (`--gpu-timing`): the demos
    // otherwise run on a device with no optional feature, as a renderer's may be.
    let timing = std::env::args().any(|a| a == "--gpu-timing");
    let features = if timing {
        adapter.features() & wgpu::Features::TIMESTAMP_QUERY
    } else {
        wgpu::Features::empty()
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("examples:device"),
        required_features: features,
        required_limits: adapter.limits(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    }))
    .map_err(|e| format!("the adapter could not create a device: {e}"))?;
    Ok(GpuContext::from_device(device, queue, adapter.get_info())?)
}

// ---------------------------------------------------------------------------------------------
// Demos and how to run them
// ---------------------------------------------------------------------------------------------

/// A particle-world scene the shared app runs, in a window or headless (the aggregate examples
/// use [`aggregate::AggregateDemo`] instead).
pub trait Demo: Sized {
    /// Short name: window title, default PNG name, usage text.
    const NAME: &'static str;
    /// Controls, printed when the window opens.
    const CONTROLS: &'static str;

    /// Builds the scene on `ctx` (the renderer's device). `headless` runs get no input, so a demo
    /// may turn on an automatic mode for them.
    fn new(ctx: &GpuContext, headless: bool) -> Result<Self, BoxError>;
    /// The world drawn each frame.
    fn world(&self) -> &ParticleWorld;
    /// Where the camera starts (and returns to on `R`).
    fn camera(&self) -> OrbitCamera;
    /// The look.
    fn style(&self) -> Style;
    /// Scenery lines (a line list) drawn under the particles.
    fn lines(&self) -> Vec<LineVertex>;
    /// Advances one fixed step of [`DT`]: queues launches or shots, then steps the world.
    fn step(&mut self) -> wgphys::Result<StepReport>;
    /// A key was pressed (Escape and R are handled by the app).
    fn key(&mut self, key: &Key) -> wgphys::Result<()>;
    /// The left mouse button was clicked (pressed and released without dragging).
    fn click(&mut self) -> wgphys::Result<()>;
    /// Extra text for the window title (mode, selection).
    fn title(&self) -> String;
}

/// What the shared loops ([`run_app`]) drive: a scene together with its renderer, built on the
/// loop's device. [`Demo`]s become one through [`run`], aggregate demos through
/// [`aggregate::run`].
pub trait App: Sized {
    /// Short name: window title, default PNG name, usage text.
    const NAME: &'static str;
    /// Controls, printed when the window opens.
    const CONTROLS: &'static str;
    /// Frames rendered headless when `--frames` is not given.
    const DEFAULT_FRAMES: u32 = DEFAULT_FRAMES;
    /// The app's own command-line options (see [`Cli::parse_with`]).
    const OPTIONS: &'static [&'static str] = &[];

    /// Builds the scene and a renderer for a `format` target of `width` x `height`.
    /// `headless_frames` is `Some(frames)` for an offscreen run of that many frames (no input).
    fn new(
        ctx: &GpuContext,
        adapter: &wgpu::Adapter,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
        headless_frames: Option<u32>,
    ) -> Result<Self, BoxError>;
    /// Where the camera starts (and returns to on `R`).
    fn camera(&self) -> OrbitCamera;
    /// The target changed size.
    fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32);
    /// Advances one fixed step of [`DT`] and returns how long it took, as the app measures it.
    fn step(&mut self) -> Result<Duration, BoxError>;
    /// Records one frame into `encoder`; `frame_dt` is the time since the previous frame.
    fn render(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        camera: &OrbitCamera,
        frame_dt: f32,
    );
    /// A key went down (`pressed`) or up; Escape and R are handled by the loop, key repeats are
    /// dropped.
    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError>;
    /// The window lost the keyboard: forget the keys held down.
    fn release_keys(&mut self) {}
    /// The left mouse button was clicked (pressed and released without dragging).
    fn click(&mut self) -> Result<(), BoxError>;
    /// The count shown in the title ("1234 live").
    fn count(&self) -> String;
    /// Extra text for the window title (mode, selection).
    fn title(&self) -> String;
    /// Prints what a headless run reports after writing the PNG; `steps` steps took
    /// `step_time` in all (as [`App::step`] measured them).
    fn report(&self, steps: u32, step_time: Duration) -> Result<(), BoxError>;
}

/// A [`Demo`] and the sprite [`Renderer`], as an [`App`].
pub struct ParticleApp<D: Demo> {
    demo: D,
    renderer: Renderer,
}

impl<D: Demo> App for ParticleApp<D> {
    const NAME: &'static str = D::NAME;
    const CONTROLS: &'static str = D::CONTROLS;

    fn new(
        ctx: &GpuContext,
        adapter: &wgpu::Adapter,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
        headless_frames: Option<u32>,
    ) -> Result<Self, BoxError> {
        let demo = D::new(ctx, headless_frames.is_some())?;
        let mut renderer = Renderer::new(
            &ctx.device,
            format,
            afterglow_format(adapter),
            width,
            height,
            demo.style(),
        );
        renderer.set_lines(&ctx.device, &ctx.queue, &demo.lines());
        Ok(Self { demo, renderer })
    }

    fn camera(&self) -> OrbitCamera {
        self.demo.camera()
    }

    fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        self.renderer.resize(device, width, height);
    }

    fn step(&mut self) -> Result<Duration, BoxError> {
        // Host time: encode and submit (the GPU runs behind).
        let t = Instant::now();
        self.demo.step()?;
        Ok(t.elapsed())
    }

    fn render(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        camera: &OrbitCamera,
        frame_dt: f32,
    ) {
        self.renderer.render(
            &ctx.queue,
            encoder,
            target,
            camera,
            self.demo.world().render_buffers(),
            frame_dt,
        );
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        if pressed {
            self.demo.key(key)?;
        }
        Ok(())
    }

    fn click(&mut self) -> Result<(), BoxError> {
        Ok(self.demo.click()?)
    }

    fn count(&self) -> String {
        // The live count comes from the engine's asynchronous status (read back every
        // `status_interval` steps), never from a per-frame readback.
        let live = self
            .demo
            .world()
            .latest_status()
            .map_or_else(|| "?".to_string(), |s| s.live.to_string());
        format!("{live} live")
    }

    fn title(&self) -> String {
        self.demo.title()
    }

    fn report(&self, _steps: u32, _step_time: Duration) -> Result<(), BoxError> {
        // One blocking read at the end; the frames themselves never read anything back.
        let status = self.demo.world().read_status()?;
        println!(
            "live particles: {} (capacity {}) after {} steps",
            status.live, status.capacity, status.step
        );
        if let Some(advice) = status.advice() {
            eprintln!("{advice}");
        }
        Ok(())
    }
}

/// An error whose `Debug` is its message, so `main` returning it prints a readable line.
pub struct Readable(pub BoxError);

impl std::fmt::Debug for Readable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::fmt::Display for Readable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Error for Readable {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.0.source()
    }
}

/// Runs a demo as the command line and the environment say: in a window when a display is
/// available, otherwise (or with `--headless`) offscreen into a PNG.
pub fn run<D: Demo>() -> Result<(), BoxError> {
    run_app::<ParticleApp<D>>()
}

/// Runs an [`App`] as the command line and the environment say (see [`run`]).
pub fn run_app<A: App>() -> Result<(), BoxError> {
    run_inner::<A>().map_err(|e| Box::new(Readable(e)) as BoxError)
}

fn run_inner<A: App>() -> Result<(), BoxError> {
    let cli = Cli::parse_with(A::NAME, A::DEFAULT_FRAMES, A::OPTIONS)?;
    if cli.headless {
        return run_headless::<A>(&cli);
    }
    if !display_available() {
        eprintln!("no display (DISPLAY and WAYLAND_DISPLAY are unset): rendering {} frames offscreen instead", cli.frames);
        return run_headless::<A>(&cli);
    }
    match run_windowed::<A>() {
        Ok(()) => Ok(()),
        Err(Windowed::Setup(e)) => {
            eprintln!(
                "could not open a window ({e}): rendering {} frames offscreen instead",
                cli.frames
            );
            run_headless::<A>(&cli)
        }
        Err(Windowed::Failed(e)) => Err(e),
    }
}

/// Runs `cli.frames` frames of one step each offscreen and writes the last one to `cli.out`.
pub fn run_headless<A: App>(cli: &Cli) -> Result<(), BoxError> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = adapter(&instance, None)?;
    let ctx = device(&adapter)?;
    let mut app = A::new(
        &ctx,
        &adapter,
        Offscreen::FORMAT,
        WIDTH,
        HEIGHT,
        Some(cli.frames),
    )?;
    let target = Offscreen::new(&ctx.device, WIDTH, HEIGHT);
    let camera = app.camera();

    let start = Instant::now();
    let mut step_time = Duration::ZERO;
    for _ in 0..cli.frames {
        step_time += app.step()?;
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("examples:frame"),
            });
        app.render(&ctx, &mut encoder, &target.view, &camera, DT);
        ctx.queue.submit([encoder.finish()]);
    }
    target.write_png(&ctx, &cli.out)?;
    println!(
        "wrote {} ({WIDTH}x{HEIGHT}, the last of {} frames, {:.2} s)",
        cli.out.display(),
        cli.frames,
        start.elapsed().as_secs_f64()
    );
    println!("adapter: {}", ctx.describe());
    app.report(cli.frames, step_time)
}

enum Windowed {
    /// No window could be made (no event loop, window or surface): try headless.
    Setup(BoxError),
    /// The window ran and something failed.
    Failed(BoxError),
}

fn run_windowed<A: App>() -> Result<(), Windowed> {
    let event_loop = EventLoop::new().map_err(|e| Windowed::Setup(e.into()))?;
    let mut app = WindowApp::<A> {
        state: None,
        setup_error: None,
        error: None,
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| Windowed::Failed(e.into()))?;
    if let Some(e) = app.error {
        return Err(Windowed::Failed(e));
    }
    if let Some(e) = app.setup_error {
        return Err(Windowed::Setup(e));
    }
    Ok(())
}

struct WindowApp<A: App> {
    state: Option<Running<A>>,
    setup_error: Option<BoxError>,
    error: Option<BoxError>,
}

/// Frame statistics for the title, reset every half second.
struct Stats {
    since: Instant,
    frames: u32,
    steps: u32,
    step_time: Duration,
}

struct Running<A: App> {
    // The surface borrows nothing (it holds an Arc of the window) but must go before it.
    surface: wgpu::Surface<'static>,
    window: Arc<Window>,
    instance: wgpu::Instance,
    config: wgpu::SurfaceConfiguration,
    view_format: wgpu::TextureFormat,
    ctx: GpuContext,
    app: A,
    camera: OrbitCamera,
    cursor: PhysicalPosition<f64>,
    drag: Option<f64>,
    last_frame: Instant,
    accumulator: f32,
    stats: Stats,
}

impl<A: App> Running<A> {
    fn new(event_loop: &ActiveEventLoop) -> Result<Self, BoxError> {
        let attributes = Window::default_attributes()
            .with_title(format!("wgphys {}", A::NAME))
            .with_inner_size(LogicalSize::new(WIDTH as f64, HEIGHT as f64));
        let window = Arc::new(event_loop.create_window(attributes)?);
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                Box::new(event_loop.owned_display_handle()),
            ));
        let surface = instance.create_surface(window.clone())?;
        let adapter = adapter(&instance, Some(&surface))?;
        let ctx = device(&adapter)?;

        let caps = surface.get_capabilities(&adapter);
        let format = *caps
            .formats
            .iter()
            .find(|f| f.is_srgb())
            .or(caps.formats.first())
            .ok_or("the window's surface is not supported by the adapter")?;
        let PhysicalSize { width, height } = window.inner_size();
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: width.max(1),
            height: height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: vec![],
        };
        surface.configure(&ctx.device, &config);

        let app = A::new(&ctx, &adapter, format, config.width, config.height, None)?;
        let camera = app.camera();
        println!("{} on {}", A::NAME, ctx.describe());
        println!("{}", A::CONTROLS);
        println!("mouse: drag to orbit, wheel to zoom; R resets the camera; Esc quits");
        Ok(Self {
            surface,
            window,
            instance,
            config,
            view_format: format,
            ctx,
            app,
            camera,
            cursor: PhysicalPosition::new(0.0, 0.0),
            drag: None,
            last_frame: Instant::now(),
            accumulator: 0.0,
            stats: Stats {
                since: Instant::now(),
                frames: 0,
                steps: 0,
                step_time: Duration::ZERO,
            },
        })
    }

    fn resize(&mut self, size: PhysicalSize<u32>) {
        if size.width == 0 || size.height == 0 {
            return;
        }
        self.config.width = size.width;
        self.config.height = size.height;
        self.surface.configure(&self.ctx.device, &self.config);
        self.app.resize(&self.ctx.device, size.width, size.height);
    }

    fn frame(&mut self) -> Result<(), BoxError> {
        let now = Instant::now();
        let dt = (now - self.last_frame).as_secs_f32().min(0.25);
        self.last_frame = now;

        // Fixed steps of DT from an accumulator; a slow machine drops the backlog.
        self.accumulator += dt;
        let mut steps = 0;
        while self.accumulator >= DT && steps < MAX_STEPS_PER_FRAME {
            self.stats.step_time += self.app.step()?;
            self.stats.steps += 1;
            self.accumulator -= DT;
            steps += 1;
        }
        if steps == MAX_STEPS_PER_FRAME {
            self.accumulator = self.accumulator.min(DT);
        }

        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f) => f,
            wgpu::CurrentSurfaceTexture::Suboptimal(f) => {
                drop(f);
                self.surface.configure(&self.ctx.device, &self.config);
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(())
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.resize(self.window.inner_size());
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                self.surface = self.instance.create_surface(self.window.clone())?;
                self.surface.configure(&self.ctx.device, &self.config);
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                return Err("validation error while acquiring the next frame".into())
            }
        };
        let view = frame.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.view_format),
            ..Default::default()
        });
        let mut encoder = self
            .ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("examples:frame"),
            });
        self.app
            .render(&self.ctx, &mut encoder, &view, &self.camera, dt);
        self.ctx.queue.submit([encoder.finish()]);
        self.window.pre_present_notify();
        self.ctx.queue.present(frame);

        self.stats.frames += 1;
        let elapsed = self.stats.since.elapsed();
        if elapsed >= Duration::from_millis(500) {
            let ms = if self.stats.steps > 0 {
                self.stats.step_time.as_secs_f64() * 1e3 / f64::from(self.stats.steps)
            } else {
                0.0
            };
            let fps = f64::from(self.stats.frames) / elapsed.as_secs_f64();
            self.window.set_title(&format!(
                "wgphys {} | {} | {ms:.3} ms/step | {fps:.0} fps | {}",
                A::NAME,
                self.app.count(),
                self.app.title()
            ));
            self.stats = Stats {
                since: Instant::now(),
                frames: 0,
                steps: 0,
                step_time: Duration::ZERO,
            };
        }
        Ok(())
    }

    fn window_event(
        &mut self,
        event_loop: &ActiveEventLoop,
        event: WindowEvent,
    ) -> Result<(), BoxError> {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => self.resize(size),
            WindowEvent::RedrawRequested => self.frame()?,
            WindowEvent::Focused(false) => self.app.release_keys(),
            WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        logical_key,
                        state,
                        repeat: false,
                        ..
                    },
                ..
            } => match (&logical_key, state) {
                (Key::Named(NamedKey::Escape), ElementState::Pressed) => event_loop.exit(),
                (Key::Character(c), ElementState::Pressed) if c.eq_ignore_ascii_case("r") => {
                    // The camera goes back; the app hears R too (a demo may reset its scene).
                    self.camera = self.app.camera();
                    self.app.key(&logical_key, true)?;
                }
                (key, state) => self.app.key(key, state == ElementState::Pressed)?,
            },
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => match state {
                ElementState::Pressed => self.drag = Some(0.0),
                ElementState::Released => {
                    if self.drag.take().is_some_and(|moved| moved < 5.0) {
                        self.app.click()?;
                    }
                }
            },
            WindowEvent::CursorMoved { position, .. } => {
                let (dx, dy) = (position.x - self.cursor.x, position.y - self.cursor.y);
                self.cursor = position;
                if let Some(moved) = &mut self.drag {
                    *moved += dx.hypot(dy);
                    self.camera.orbit(dx as f32, dy as f32);
                }
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.camera.zoom(steps);
            }
            _ => {}
        }
        Ok(())
    }
}

impl<A: App> ApplicationHandler for WindowApp<A> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        match Running::new(event_loop) {
            Ok(state) => self.state = Some(state),
            Err(e) => {
                self.setup_error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(state) = &mut self.state else { return };
        if let Err(e) = state.window_event(event_loop, event) {
            self.error = Some(e);
            event_loop.exit();
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(state) = &self.state {
            state.window.request_redraw();
        }
    }
}
