//! Running an [`App`]: headless into a PNG, or in a winit window with fixed steps, an orbit
//! camera and keys; and [`Readable`], the error `main` returns.

use super::*;
use std::error::Error;
use std::sync::Arc;
use std::time::{Duration, Instant};
use wgphys::gpu::GpuContext;
use winit::application::ApplicationHandler;
use winit::dpi::{LogicalSize, PhysicalPosition, PhysicalSize};
use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

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

/// Runs an [`App`] as the command line and the environment say: in a window when a display is
/// available, otherwise (or with `--headless`) offscreen into a PNG.
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
fn run_headless<A: App>(cli: &Cli) -> Result<(), BoxError> {
    let instance = instance(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
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
        let instance = instance(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
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
