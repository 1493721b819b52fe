//! The book's fireworks (Millington, *Game Physics Engine Development*, §4.2) on the GPU.
//!
//! Nine firework types whose fuses burst into payloads of other types; the bursts are spawned by
//! the engine's compute shaders, and the renderer draws the live particles straight from the
//! engine's buffers with `draw_indirect` (additive, camera-facing sprites), so no frame reads
//! anything back. An automatic show runs by default.
//!
//! ```text
//! cargo run --release --example fireworks                 # window; headless machines get a PNG
//! cargo run --release --example fireworks -- --headless --frames 240 --out fireworks.png
//! ```
//!
//! In the window: keys 1–9 launch a firework of that type, A toggles the automatic show, drag
//! with the mouse to orbit, the wheel zooms, R resets the camera, Esc quits. The title shows the
//! live particle count (from the engine's asynchronous status, read every 30 steps) and the
//! host time per simulation step (encode and submit).
//!
//! Without a display (no `DISPLAY` / `WAYLAND_DISPLAY`, or the window cannot be opened), or with
//! `--headless`, it renders the automatic show offscreen at 1280x720 and writes the last frame to
//! `fireworks.png` (or `--out`), then prints the adapter and the live particle count.

mod common;

use common::{segment, BoxError, Demo, LineVertex, OrbitCamera, Style};
use glam::Vec3;
use wgphys::gpu::GpuContext;
use wgphys::particles::{Backend, ParticleWorld, StepReport, WorldConfig};
use wgphys::scenes;
use winit::keyboard::Key;

struct Fireworks {
    world: ParticleWorld,
    /// Whether the automatic show launches fireworks.
    show: bool,
}

impl Demo for Fireworks {
    const NAME: &'static str = "fireworks";
    const CONTROLS: &'static str =
        "keys 1-9: launch a firework of that type; A: toggle the automatic show";

    fn new(ctx: &GpuContext, _headless: bool) -> Result<Self, BoxError> {
        let config = WorldConfig {
            // Live counts are read back asynchronously every 30 steps, never per frame.
            status_interval: 30,
            auto_grow: true,
            ..scenes::fireworks_config(16_384, 7)
        };
        let world = ParticleWorld::new(Backend::Gpu(ctx.clone()), config)?;
        Ok(Self { world, show: true })
    }

    fn world(&self) -> &ParticleWorld {
        &self.world
    }

    fn camera(&self) -> OrbitCamera {
        // Launch columns are at x = -5, 0, 5; bursts spread about 20 m sideways and rise to
        // about 15 m.
        OrbitCamera {
            target: Vec3::new(-1.0, 6.5, 0.0),
            yaw: 0.25,
            pitch: 0.1,
            distance: 25.0,
            fov_y: 50f32.to_radians(),
        }
    }

    fn style(&self) -> Style {
        Style {
            background: wgpu::Color {
                r: 0.002,
                g: 0.002,
                b: 0.008,
                a: 1.0,
            },
            glow: 2.2,
            min_radius_px: 3.0,
            intensity: 1.6,
            afterglow_s: 0.3,
            afterglow_gain: 0.6,
        }
    }

    fn lines(&self) -> Vec<LineVertex> {
        let mut v = Vec::new();
        let colour = [0.02, 0.025, 0.04, 1.0];
        for i in -6..=6 {
            let t = i as f32 * 5.0;
            segment(
                &mut v,
                Vec3::new(t, 0.0, -30.0),
                Vec3::new(t, 0.0, 30.0),
                colour,
            );
            segment(
                &mut v,
                Vec3::new(-30.0, 0.0, t),
                Vec3::new(30.0, 0.0, t),
                colour,
            );
        }
        v
    }

    fn step(&mut self) -> wgphys::Result<StepReport> {
        if self.show {
            scenes::fireworks_tick(&mut self.world)?;
        }
        self.world.step(scenes::DT)
    }

    fn key(&mut self, key: &Key) -> wgphys::Result<()> {
        if let Key::Character(c) = key {
            match c.as_str() {
                "a" | "A" => self.show = !self.show,
                s => {
                    if let Ok(ty @ 1..=9) = s.parse::<u32>() {
                        self.world.launch(ty)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn click(&mut self) -> wgphys::Result<()> {
        Ok(())
    }

    fn title(&self) -> String {
        if self.show {
            "auto show (A: off), 1-9 launch".into()
        } else {
            "1-9 launch (A: auto show)".into()
        }
    }
}

fn main() -> Result<(), BoxError> {
    common::run::<Fireworks>()
}
