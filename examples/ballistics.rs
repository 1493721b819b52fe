//! The book's ballistics demo (Millington, *Game Physics Engine Development*, §3.2): pistol,
//! artillery, fireball and laser shots fired down a 200 m range from the engine's particle pool,
//! on the GPU. Shots die below the ground or beyond z = 200 m (`scenes::ballistics_config`); the
//! renderer draws them straight from the engine's buffers with `draw_indirect`, so no frame reads
//! anything back.
//!
//! ```text
//! cargo run --release --example ballistics                # window; headless machines get a PNG
//! cargo run --release --example ballistics -- --headless --frames 240 --out ballistics.png
//! ```
//!
//! In the window: keys 1–4 select the shot type (pistol, artillery, fireball, laser), a click or
//! Space fires, A toggles automatic fire; drag to orbit, the wheel zooms, R resets the camera,
//! Esc quits. The title shows the live count (the engine's asynchronous status, read every 30
//! steps) and the host time per simulation step.
//!
//! Headless (no display, or `--headless`), it fires each type in turn every 30 frames and writes
//! the last frame to `ballistics.png` (or `--out`), so the picture shows several shots in flight.

mod common;
#[path = "common/lines.rs"]
mod lines;
#[path = "common/particles/mod.rs"]
mod particles;

use common::{BoxError, LineVertex, OrbitCamera};
use glam::Vec3;
use lines::segment;
use particles::{Demo, Style};
use wgphys::gpu::GpuContext;
use wgphys::particles::{ParticleStepReport, ParticleWorld, WorldConfig};
use wgphys::scenes::{self, Shot};
use wgphys::Backend;
use winit::keyboard::{Key, NamedKey};

/// Frames between shots in automatic fire.
const AUTO_FIRE_EVERY: u64 = 30;

struct Ballistics {
    world: ParticleWorld,
    /// The selected shot type.
    shot: Shot,
    /// Fire each type in turn every [`AUTO_FIRE_EVERY`] steps.
    auto: bool,
}

impl Ballistics {
    fn fire(&mut self, shot: Shot) -> wgphys::Result<()> {
        // The world is the round pool: a shot is a particle that lives until it leaves the range
        // or its 5 s run out.
        self.world.spawn(shot.particle())?;
        Ok(())
    }
}

impl Demo for Ballistics {
    const NAME: &'static str = "ballistics";
    const CONTROLS: &'static str =
        "keys 1-4: pistol, artillery, fireball, laser; click or Space: fire; A: toggle automatic fire";

    fn new(ctx: &GpuContext, headless: bool) -> Result<Self, BoxError> {
        // Live counts are read back asynchronously every 30 steps, never per frame.
        let config = WorldConfig {
            status_interval: 30,
            ..scenes::ballistics_config(1)
        };
        let world = ParticleWorld::new(Backend::Gpu(ctx.clone()), config)?;
        Ok(Self {
            world,
            shot: Shot::Pistol,
            auto: headless,
        })
    }

    fn world(&self) -> &ParticleWorld {
        &self.world
    }

    fn camera(&self) -> OrbitCamera {
        // From the side (-x) and a little above, so +z runs left to right and the whole
        // 200 m range and the artillery arc (about 25 m high) are in view.
        let yaw = -std::f32::consts::FRAC_PI_2 + 0.05;
        OrbitCamera {
            target: Vec3::new(0.0, 8.0, 100.0),
            yaw,
            pitch: 0.3,
            distance: 130.0,
            fov_y: 50f32.to_radians(),
        }
    }

    fn style(&self) -> Style {
        Style {
            background: wgpu::Color {
                r: 0.003,
                g: 0.004,
                b: 0.006,
                a: 1.0,
            },
            glow: 2.5,
            min_radius_px: 3.0,
            intensity: 1.4,
            afterglow_s: 1.2,
            afterglow_gain: 0.5,
        }
    }

    fn lines(&self) -> Vec<LineVertex> {
        // The range: rails along z every 5 m across, cross lines every 10 m, brighter every 50 m.
        let mut v = Vec::new();
        let dim = [0.05, 0.07, 0.05, 1.0];
        let bright = [0.12, 0.2, 0.12, 1.0];
        for i in -2..=2 {
            let x = i as f32 * 5.0;
            segment(
                &mut v,
                Vec3::new(x, 0.0, 0.0),
                Vec3::new(x, 0.0, 200.0),
                dim,
            );
        }
        for k in 0..=20 {
            let z = k as f32 * 10.0;
            let colour = if k % 5 == 0 { bright } else { dim };
            segment(
                &mut v,
                Vec3::new(-10.0, 0.0, z),
                Vec3::new(10.0, 0.0, z),
                colour,
            );
        }
        // The gun: a short post at the muzzle height.
        segment(
            &mut v,
            Vec3::ZERO,
            Vec3::new(0.0, 1.5, 0.0),
            [0.5, 0.5, 0.5, 1.0],
        );
        v
    }

    fn step(&mut self) -> wgphys::Result<ParticleStepReport> {
        let step = self.world.steps();
        if self.auto && step.is_multiple_of(AUTO_FIRE_EVERY) {
            let shot = Shot::ALL[((step / AUTO_FIRE_EVERY) % 4) as usize];
            self.fire(shot)?;
        }
        self.world.step(scenes::DT)
    }

    fn key(&mut self, key: &Key) -> wgphys::Result<()> {
        match key {
            Key::Named(NamedKey::Space) => self.fire(self.shot)?,
            Key::Character(c) => match c.as_str() {
                "a" | "A" => self.auto = !self.auto,
                s => {
                    if let Ok(n @ 1..=4) = s.parse::<usize>() {
                        self.shot = Shot::ALL[n - 1];
                    }
                }
            },
            _ => {}
        }
        Ok(())
    }

    fn click(&mut self) -> wgphys::Result<()> {
        self.fire(self.shot)
    }

    fn title(&self) -> String {
        let auto = if self.auto {
            ", auto fire (A: off)"
        } else {
            ""
        };
        format!("{:?} selected (1-4), click/Space fires{auto}", self.shot)
    }
}

fn main() -> Result<(), BoxError> {
    particles::run::<Ballistics>()
}
