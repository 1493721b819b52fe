//! The rigid examples' family (`pyramid`, `stacks`, `explosion`, `bigballistics`, `ragdoll`,
//! `chain`, `rocks`, `terrain`): the [`RigidDemo`] trait, a renderer for rigid bodies
//! ([`RigidRenderer`], its WGSL is `rigid.wgsl` after the engine's own struct and quaternion
//! sources: `shader.rs`) and [`run`].
//!
//! Every shape slot is one instance. The vertex shader reads the slot's `Shape` and its body's
//! `Body` straight from the engine's storage buffers, so a frame reads nothing back and the
//! renderer never learns where anything is: world = body pose ∘ shape offset, then the unit mesh
//! scaled by the shape's dimensions. One index buffer holds two unit meshes, a cube and a "round"
//! mesh (two hemispheres joined by a cylinder band whose height is zero for a sphere and the
//! capsule's segment for a capsule); each vertex is tagged with its mesh, and a vertex whose mesh
//! does not fit the slot's kind (and every vertex of an empty slot) collapses outside the clip
//! volume. Half-spaces and planes are a large checkered quad around the camera's target. Convex
//! hulls are a second, non-indexed draw per slot that reads each hull's faces from the engine's
//! hull store (`vs_hull`, through the engine's `shaders/rigid/hull/hull.wgsl`). Triangle meshes
//! and heightfields (shape kinds `MESH` and `HEIGHTFIELD`) are skipped by all three; a demo
//! with a static level hands its world-space triangles over once ([`RigidDemo::level`],
//! `RigidRenderer::set_level`), drawn lit and shadowed by `vs_level`.
//!
//! Colours come from a hash of the body index (static bodies are grey, sleeping bodies dimmed),
//! boxes get dark edges and round shapes an octant pattern so that spin shows. The light casts
//! shadows from a depth map rendered with the same vertex shader. Optional debug overlays: the
//! engine's contact points and normals (read from its manifolds, as many as its pair counter
//! says), its joints (each body's centre to its anchors, and the gap between a joint's two
//! anchors, from the joint table) and user line lists ([`LineVertex`]).

use std::time::{Duration, Instant};

use wgphys::gpu::GpuContext;
use wgphys::rigid::RigidStepReport;
use winit::keyboard::Key;

use crate::common::{run_app, App, BoxError, LineVertex, OrbitCamera, DEFAULT_FRAMES};

#[path = "../depth.rs"]
mod depth;
mod mesh;
mod renderer;
mod shader;

pub use renderer::{RigidBuffers, RigidRenderer, RigidStyle};

/// A rigid-body scene the shared app runs, in a window or headless. The scene owns its world
/// (or only its buffers); the app draws what [`RigidDemo::buffers`] names.
pub trait RigidDemo: Sized {
    /// Short name: window title, default PNG name, usage text.
    const NAME: &'static str;
    /// Controls, printed when the window opens.
    const CONTROLS: &'static str;
    /// Frames rendered headless when `--frames` is not given.
    const DEFAULT_FRAMES: u32 = DEFAULT_FRAMES;
    /// The demo's own command-line options (see [`crate::common::Cli::parse_with`]; read them with
    /// `cli_option`, from `common/cli_option.rs`).
    const OPTIONS: &'static [&'static str] = &[];

    /// Builds the scene on `ctx`. `headless_frames` is `Some(frames)` for an offscreen run of
    /// that many frames: no input comes, so the demo drives itself over those frames.
    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError>;
    /// The engine's buffers to draw (asked every frame; [`RigidBuffers::of`] a `GpuRigid`).
    fn buffers(&self) -> RigidBuffers<'_>;
    /// Where the camera starts (and returns to on `R`).
    fn camera(&self) -> OrbitCamera;
    /// A camera that follows the scene (asked every frame): `Some` replaces the orbit camera
    /// the window's mouse moves, which is passed in (`None` by default: the orbit camera).
    fn follow(&self, _orbit: &OrbitCamera) -> Option<OrbitCamera> {
        None
    }
    /// The look (asked every frame, so keys may toggle contacts or shadows).
    fn style(&self) -> RigidStyle {
        RigidStyle::default()
    }
    /// Debug lines (a line list) to draw this frame, appended to `out` (empty by default).
    fn lines(&self, _out: &mut Vec<LineVertex>) {}
    /// Advances one fixed step of [`wgphys::scenes::DT`].
    fn update(&mut self) -> Result<(), BoxError>;
    /// A key went down (`pressed`) or up. Escape is handled by the app, and so are C and J (the
    /// contact and joint overlays, flipped from [`RigidDemo::style`]); R resets the camera and is
    /// passed on (pressed only), so a demo may reset its scene too.
    fn key(&mut self, _key: &Key, _pressed: bool) -> Result<(), BoxError> {
        Ok(())
    }
    /// Forget the keys held down (the window lost the keyboard).
    fn release_keys(&mut self) {}
    /// The left mouse button was clicked (pressed and released without dragging).
    fn click(&mut self) -> Result<(), BoxError> {
        Ok(())
    }
    /// The static level to draw under the bodies (world-space triangles, three corners each;
    /// none by default), taken once when the app starts.
    fn level(&self) -> Vec<wgphys::scenes::level::LevelVertex> {
        Vec::new()
    }
    /// The count shown in the title.
    fn count(&self) -> String {
        format!("{} shape slots", self.buffers().shape_slots)
    }
    /// Extra text for the window title.
    fn title(&self) -> String {
        String::new()
    }
    /// What a headless run prints at the end (may read the world back once).
    fn summary(&self) -> String {
        String::new()
    }
}

/// Runs a rigid demo: in a window when a display is available, otherwise (or with
/// `--headless`) offscreen into a PNG.
pub fn run<D: RigidDemo>() -> Result<(), BoxError> {
    run_app::<RigidApp<D>>()
}

/// A [`RigidDemo`] and a [`RigidRenderer`], as an [`App`].
pub struct RigidApp<D: RigidDemo> {
    demo: D,
    renderer: RigidRenderer,
    lines: Vec<LineVertex>,
    ctx: GpuContext,
    /// C flips the contact overlay of the demo's style.
    flip_contacts: bool,
    /// J flips the joint overlay of the demo's style.
    flip_joints: bool,
}

impl<D: RigidDemo> App for RigidApp<D> {
    const NAME: &'static str = D::NAME;
    const CONTROLS: &'static str = D::CONTROLS;
    const DEFAULT_FRAMES: u32 = D::DEFAULT_FRAMES;
    const OPTIONS: &'static [&'static str] = D::OPTIONS;

    fn new(
        ctx: &GpuContext,
        adapter: &wgpu::Adapter,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
        headless_frames: Option<u32>,
    ) -> Result<Self, BoxError> {
        if !adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::VERTEX_STORAGE)
        {
            return Err(
                "this adapter cannot read storage buffers in vertex shaders, which the \
                        rigid renderer needs; try WGPU_BACKEND=vulkan"
                    .into(),
            );
        }
        let demo = D::new(ctx, headless_frames)?;
        let mut renderer = RigidRenderer::new(&ctx.device, format, width, height);
        renderer.set_level(&ctx.device, &demo.level());
        Ok(Self {
            demo,
            renderer,
            lines: Vec::new(),
            ctx: ctx.clone(),
            flip_contacts: false,
            flip_joints: false,
        })
    }

    fn camera(&self) -> OrbitCamera {
        self.demo.camera()
    }

    fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        self.renderer.resize(device, width, height);
    }

    fn step(&mut self) -> Result<Duration, BoxError> {
        // Wall time of the step with its GPU work (waiting is no readback).
        self.ctx.wait()?;
        let t = Instant::now();
        self.demo.update()?;
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
        self.renderer.style = self.demo.style();
        self.renderer.style.contacts ^= self.flip_contacts;
        self.renderer.style.joints ^= self.flip_joints;
        self.lines.clear();
        self.demo.lines(&mut self.lines);
        self.renderer
            .set_lines(&ctx.device, &ctx.queue, &self.lines);
        let camera = self.demo.follow(camera).unwrap_or(*camera);
        self.renderer
            .render(ctx, encoder, target, &camera, self.demo.buffers());
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        if pressed && key_is(key, 'c') {
            self.flip_contacts = !self.flip_contacts;
            return Ok(());
        }
        if pressed && key_is(key, 'j') {
            self.flip_joints = !self.flip_joints;
            return Ok(());
        }
        self.demo.key(key, pressed)
    }

    fn release_keys(&mut self) {
        self.demo.release_keys();
    }

    fn click(&mut self) -> Result<(), BoxError> {
        self.demo.click()
    }

    fn count(&self) -> String {
        self.demo.count()
    }

    fn title(&self) -> String {
        self.demo.title()
    }

    fn report(&self, steps: u32, step_time: Duration) -> Result<(), BoxError> {
        let summary = self.demo.summary();
        if !summary.is_empty() {
            println!("{summary}");
        }
        println!(
            "{:.3} ms/step (mean over {steps} steps, GPU work included)",
            step_time.as_secs_f64() * 1e3 / f64::from(steps.max(1))
        );
        Ok(())
    }
}

/// Whether `key` is the character `c` (either case).
pub fn key_is(key: &Key, c: char) -> bool {
    match key {
        Key::Character(s) => {
            let mut chars = s.chars();
            chars.next().is_some_and(|k| k.eq_ignore_ascii_case(&c)) && chars.next().is_none()
        }
        _ => false,
    }
}

/// The title text of a [`RigidStepReport`]: awake bodies, pairs, manifolds and solver colours (the
/// GPU's counts arrive a frame or two late).
pub fn report_title(r: &RigidStepReport) -> String {
    let mut t = format!(
        "{} awake | {} pairs | {} manifolds | {} colours",
        r.awake, r.pairs, r.manifolds, r.colours
    );
    if r.uncoloured > 0 {
        t.push_str(&format!(" (+{} serial)", r.uncoloured));
    }
    if let Some(advice) = r.advice() {
        t.push_str(" | ");
        t.push_str(&advice);
    }
    t
}
