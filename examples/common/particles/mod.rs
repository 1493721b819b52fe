//! The particle-world demos' family (`ballistics`): the [`Demo`] trait, the sprite
//! [`Renderer`] (its WGSL is `sprites.wgsl`) and [`run`].
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

mod renderer;

pub use renderer::*;

use std::time::{Duration, Instant};

use wgphys::gpu::GpuContext;
use wgphys::particles::{ParticleStepReport, ParticleWorld};
use winit::keyboard::Key;

use crate::common::{run_app, App, BoxError, LineVertex, OrbitCamera};

/// A particle-world scene the shared app runs, in a window or headless.
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
    /// Advances one fixed step of [`wgphys::scenes::DT`]: queues launches or shots, then steps the world.
    fn step(&mut self) -> wgphys::Result<ParticleStepReport>;
    /// A key was pressed (Escape and R are handled by the app).
    fn key(&mut self, key: &Key) -> wgphys::Result<()>;
    /// The left mouse button was clicked (pressed and released without dragging).
    fn click(&mut self) -> wgphys::Result<()>;
    /// Extra text for the window title (mode, selection).
    fn title(&self) -> String;
}

/// Runs a demo as the command line and the environment say: in a window when a display is
/// available, otherwise (or with `--headless`) offscreen into a PNG.
pub fn run<D: Demo>() -> Result<(), BoxError> {
    run_app::<ParticleApp<D>>()
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
