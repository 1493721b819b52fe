//! [`App`]: what the shared loops ([`run_app`]) drive, each family of examples through its own
//! implementation (`particles`, `aggregate`, `rigid`, `fx`).

use super::*;
use std::time::Duration;
use wgphys::gpu::GpuContext;
use winit::keyboard::Key;

/// What the shared loops ([`run_app`]) drive: a scene together with its renderer, built on the
/// loop's device. Each family's demo trait becomes one through the family's `run` (the particle
/// demos' `particles::run`, the aggregate demos' `aggregate::run`, ...).
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
