//! What the shared loops run: a particle-world [`Demo`], the general [`App`], and the
//! [`ParticleApp`] that turns the one into the other.

use super::*;
use std::time::{Duration, Instant};
use wgphys::gpu::GpuContext;
use wgphys::particles::{ParticleWorld, StepReport};
use winit::keyboard::Key;

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
