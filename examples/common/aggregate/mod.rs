//! The aggregate examples' family (`bridge`, `platform`, `blob`, `sand`): the [`AggregateDemo`]
//! trait, a renderer for [`AggregateWorld`]s ([`AggRenderer`], its WGSL is `aggregate.wgsl`) and
//! [`run`].
//!
//! The renderer draws every particle as a shaded ball (a camera-facing quad whose fragments
//! write the sphere's depth), straight from the engine's buffers with `draw_indirect`. Rods,
//! cables and springs are thick screen-space lines whose ends are [`Attach`] points: a fixed
//! offset plus up to four weighted particle positions, read in the vertex shader from the
//! engine's positions storage buffer. "Markers" (the character on the bridge, the platform's
//! mass) are balls placed the same way. So a frame reads nothing back from the GPU, and the
//! endpoint tables are built once.

use std::time::{Duration, Instant};

use wgphys::aggregate::AggregateWorld;
use wgphys::gpu::GpuContext;
use winit::keyboard::Key;

use crate::common::{run_app, App, BoxError, LineVertex, OrbitCamera, DEFAULT_FRAMES};

#[path = "../depth.rs"]
mod depth;
mod renderer;
mod scene;

pub use renderer::AggRenderer;
pub use scene::{Attach, LinkLine};

/// An aggregate-world scene the shared app runs, in a window or headless.
pub trait AggregateDemo: Sized {
    /// Short name: window title, default PNG name, usage text.
    const NAME: &'static str;
    /// Controls, printed when the window opens.
    const CONTROLS: &'static str;
    /// Frames rendered headless when `--frames` is not given.
    const DEFAULT_FRAMES: u32 = DEFAULT_FRAMES;

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
    /// Advances one fixed step of [`wgphys::scenes::DT`].
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
    run_app::<AggregateApp<D>>()
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
