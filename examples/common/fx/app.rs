//! Running an [`FxDemo`] (particle worlds drawn by the HDR [`FxRenderer`]) in the shared window
//! loop ([`run_app`]) or headless, where it can also write every k-th frame
//! (`--out-dir DIR --every K`).
//!
//! Headless, only the frames written are drawn (the renderer keeps nothing from frame to
//! frame), plus one frame before the first step, so that a demo colliding with the depth
//! buffer has one from the start.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use glam::Mat4;
use wgphys::gpu::GpuContext;
use winit::keyboard::Key;

use super::cli_option::{cli_number, cli_option};
use super::renderer::{FxRenderer, Layer, Light, Look};
use super::scene::Scene;
use crate::common::{
    adapter, device, display_available, instance, run_app, App, BoxError, Cli, Offscreen,
    OrbitCamera, Readable, DEFAULT_FRAMES, HEIGHT, WIDTH,
};

/// The options every FX demo takes (list them in [`FxDemo::OPTIONS`]).
pub const OUT_DIR_OPTION: &str = "--out-dir DIR   headless: also write every k-th frame into DIR";
/// See [`OUT_DIR_OPTION`].
pub const EVERY_OPTION: &str = "--every K   the k of --out-dir (default 10)";

/// A scene of particle worlds the FX app runs.
pub trait FxDemo: Sized {
    /// Short name: window title, default PNG name, usage text.
    const NAME: &'static str;
    /// Controls, printed when the window opens.
    const CONTROLS: &'static str;
    /// Frames rendered headless when `--frames` is not given.
    const DEFAULT_FRAMES: u32 = DEFAULT_FRAMES;
    /// The demo's options (see [`Cli::parse_with`]); include [`OUT_DIR_OPTION`] and
    /// [`EVERY_OPTION`].
    const OPTIONS: &'static [&'static str] = &[OUT_DIR_OPTION, EVERY_OPTION];

    /// Builds the scene on `ctx` (the renderer's device) of `adapter`; `headless` runs get no
    /// input.
    fn new(ctx: &GpuContext, adapter: &wgpu::AdapterInfo, headless: bool)
        -> Result<Self, BoxError>;
    /// Where the camera starts (and returns to on `R`).
    fn camera(&self) -> OrbitCamera;
    /// Sky, fog, ambient light, bloom.
    fn look(&self) -> Look;
    /// The static scene.
    fn scene(&self) -> Scene;
    /// The worlds drawn, in order (smoke before the additive sparks).
    fn layers(&self) -> Vec<Layer<'_>>;
    /// The lights of this frame.
    fn lights(&self) -> Vec<Light> {
        Vec::new()
    }
    /// The depth buffer the last frame left, drawn with `view_proj`: for
    /// [`wgphys::particles::ParticleWorld::set_depth_collider`]. Called before each step whenever
    /// a frame has been drawn into the current depth buffer; does nothing by default.
    fn depth(&mut self, _depth: &wgpu::Texture, _view_proj: Mat4) -> wgphys::Result<()> {
        Ok(())
    }
    /// Advances one fixed step of [`wgphys::scenes::DT`]; `camera` is the camera of the last
    /// frame drawn.
    fn step(&mut self, camera: &OrbitCamera) -> wgphys::Result<()>;
    /// A key was pressed (Escape and R are handled by the app).
    fn key(&mut self, key: &Key) -> wgphys::Result<()>;
    /// Extra text for the window title.
    fn title(&self) -> String;
    /// Prints what a headless run reports at the end (reads back, blocking).
    fn report(&self) -> Result<(), BoxError> {
        for layer in self.layers() {
            let s = layer.world.read_status()?;
            println!(
                "live particles: {} (capacity {}) after {} steps",
                s.live, s.capacity, s.step
            );
        }
        Ok(())
    }
}

/// An [`FxDemo`] and its [`FxRenderer`], as an [`App`].
pub struct FxApp<D: FxDemo> {
    demo: D,
    renderer: FxRenderer,
    camera: OrbitCamera,
    view_proj: Mat4,
    drawn: bool,
    time: f32,
}

impl<D: FxDemo> App for FxApp<D> {
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
        let demo = D::new(ctx, &adapter.get_info(), headless_frames.is_some())?;
        let renderer = FxRenderer::new(
            &ctx.device,
            &ctx.queue,
            format,
            width,
            height,
            demo.look(),
            &demo.scene(),
        );
        let camera = demo.camera();
        Ok(Self {
            view_proj: renderer.view_proj(&camera),
            demo,
            renderer,
            camera,
            drawn: false,
            time: 0.0,
        })
    }

    fn camera(&self) -> OrbitCamera {
        self.demo.camera()
    }

    fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        self.renderer.resize(device, width, height);
        // The new depth buffer holds nothing yet.
        self.drawn = false;
    }

    fn step(&mut self) -> Result<Duration, BoxError> {
        // Host time: encode and submit (the GPU runs behind).
        let t = Instant::now();
        if self.drawn {
            self.demo
                .depth(self.renderer.depth_texture(), self.view_proj)?;
        }
        self.demo.step(&self.camera)?;
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
        self.time += frame_dt;
        self.camera = *camera;
        self.view_proj = self.renderer.view_proj(camera);
        self.renderer.look = self.demo.look();
        self.renderer.render(
            &ctx.device,
            &ctx.queue,
            encoder,
            target,
            camera,
            &self.demo.layers(),
            &self.demo.lights(),
            self.time,
        );
        self.drawn = true;
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        if pressed {
            self.demo.key(key)?;
        }
        Ok(())
    }

    fn click(&mut self) -> Result<(), BoxError> {
        Ok(())
    }

    fn count(&self) -> String {
        // From the engine's asynchronous status (read every `status_interval` steps).
        let mut live = 0u64;
        for layer in self.demo.layers() {
            match layer.world.latest_status() {
                Some(s) => live += u64::from(s.live),
                None => return "? live".into(),
            }
        }
        format!("{live} live")
    }

    fn title(&self) -> String {
        self.demo.title()
    }

    fn report(&self, _steps: u32, _step_time: Duration) -> Result<(), BoxError> {
        self.demo.report()
    }
}

/// Runs an FX demo as the command line and the environment say: in a window when a display is
/// available, otherwise (or with `--headless`) offscreen into PNGs.
pub fn run<D: FxDemo>() -> Result<(), BoxError> {
    let cli = Cli::parse_with(D::NAME, D::DEFAULT_FRAMES, D::OPTIONS)
        .map_err(|e| Box::new(Readable(e)) as BoxError)?;
    if !cli.headless && display_available() {
        return run_app::<FxApp<D>>();
    }
    if !cli.headless {
        eprintln!(
            "no display (DISPLAY and WAYLAND_DISPLAY are unset): rendering {} frames offscreen instead",
            cli.frames
        );
    }
    headless::<D>(&cli).map_err(|e| Box::new(Readable(e)) as BoxError)
}

fn headless<D: FxDemo>(cli: &Cli) -> Result<(), BoxError> {
    let out_dir = cli_option("--out-dir").map(PathBuf::from);
    let every = cli_number("--every", 1..=u32::MAX)?.unwrap_or(10);
    if let Some(dir) = &out_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let instance = instance(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = adapter(&instance, None)?;
    let ctx = device(&adapter)?;
    let mut app = FxApp::<D>::new(
        &ctx,
        &adapter,
        Offscreen::FORMAT,
        WIDTH,
        HEIGHT,
        Some(cli.frames),
    )?;
    let target = Offscreen::new(&ctx.device, WIDTH, HEIGHT);
    let camera = app.camera();
    // Draws the frame after `steps` steps.
    let draw = |app: &mut FxApp<D>, steps: u32| {
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("examples:frame"),
            });
        app.time = steps as f32 * wgphys::scenes::DT;
        app.render(&ctx, &mut encoder, &target.view, &camera, 0.0);
        ctx.queue.submit([encoder.finish()]);
    };

    let start = Instant::now();
    let mut step_time = Duration::ZERO;
    let mut written = 0;
    draw(&mut app, 0);
    for frame in 1..=cli.frames {
        step_time += app.step()?;
        let dump = out_dir.as_ref().filter(|_| frame % every == 0);
        if dump.is_some() || frame == cli.frames {
            draw(&mut app, frame);
        }
        if let Some(dir) = dump {
            target.write_png(&ctx, &dir.join(format!("{}_{frame:05}.png", D::NAME)))?;
            written += 1;
        }
    }
    target.write_png(&ctx, &cli.out)?;
    println!(
        "wrote {} ({WIDTH}x{HEIGHT}, the last of {} frames, {:.2} s){}",
        cli.out.display(),
        cli.frames,
        start.elapsed().as_secs_f64(),
        match &out_dir {
            Some(dir) => format!(", and {written} frames into {}", dir.display()),
            None => String::new(),
        }
    );
    println!("adapter: {}", ctx.describe());
    app.demo.report()
}
