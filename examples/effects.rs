//! GPU emitters: particles spawned on the device at a rate and in bursts, from shapes, with
//! colour and size curves over their life. Nothing is spawned from the host and nothing is read
//! back per frame: the host counts what each emitter emits (exactly, the fraction carried) and
//! the `spawn_emitted` kernel draws every particle from the counter-based generator.
//!
//! ```text
//! cargo run --release --example effects                 # window; headless machines get a PNG
//! cargo run --release --example effects -- --headless --frames 180 --out effects.png
//! ```
//!
//! The scene: a grinder's sparks (a cone spraying 1,500 sparks a second along a turning
//! direction, white-hot fading to red, bouncing off the ground), a smoke column (a disc,
//! drifting up, growing and fading), and a ring of embers bursting every half second (a shell,
//! radial), all stirred by a curl-noise turbulence field. In the window: space pauses and resumes the grinder, drag orbits, the wheel zooms,
//! Esc quits.

mod common;

use common::{segment, BoxError, Demo, LineVertex, OrbitCamera, Style};
use glam::{Quat, Vec3, Vec4};
use wgphys::gpu::GpuContext;
use wgphys::particles::{
    Backend, Burst, Collider, EmitShape, EmitVelocity, Emitter, EmitterHandle, ForceField,
    ParticleWorld, StepReport, WorldConfig,
};
use wgphys::scenes;
use winit::keyboard::{Key, NamedKey};

struct Effects {
    world: ParticleWorld,
    grinder: EmitterHandle,
    grinding: bool,
    t: f32,
}

fn grinder(angle: f32) -> Emitter {
    Emitter {
        rate: 1500.0,
        shape: EmitShape::Cone {
            half_angle: 0.1,
            height: 0.05,
        },
        velocity: EmitVelocity::Directional {
            direction: Vec3::new(angle.cos(), 0.6, angle.sin()),
            spread: 12f32.to_radians(),
            speed: (5.0, 9.0),
        },
        lifetime: (0.6, 1.4),
        size: (0.015, 0.025),
        colour_over_life: Some(vec![
            (0.0, Vec4::new(1.0, 1.0, 0.9, 1.0)),
            (0.3, Vec4::new(1.0, 0.6, 0.2, 1.0)),
            (1.0, Vec4::new(0.6, 0.05, 0.0, 0.0)),
        ]),
        size_over_life: Some(vec![(0.0, 0.025), (1.0, 0.01)]),
        damping: 0.7,
        position: Vec3::new(0.0, 1.0, 0.0),
        ..Emitter::default()
    }
}

impl Demo for Effects {
    const NAME: &'static str = "effects";
    const CONTROLS: &'static str = "space: pause or resume the grinder";

    fn new(ctx: &GpuContext, _headless: bool) -> Result<Self, BoxError> {
        let mut world = ParticleWorld::new(
            Backend::Gpu(ctx.clone()),
            WorldConfig {
                capacity: 1 << 15,
                status_interval: 30,
                auto_grow: true,
                colliders: vec![Collider::ground(0.35, 0.3)],
                // Curl-noise turbulence stirs the smoke (and nudges the sparks), drifting up.
                fields: vec![ForceField::Turbulence {
                    scale: 0.8,
                    strength: 1.5,
                    scroll: Vec3::new(0.0, 0.4, 0.0),
                }],
                ..WorldConfig::default()
            },
        )?;
        let grinder = world.add_emitter(grinder(0.0))?;
        world.add_emitter(Emitter {
            rate: 80.0,
            shape: EmitShape::Disc { radius: 0.4 },
            velocity: EmitVelocity::Directional {
                direction: Vec3::Y,
                spread: 0.3,
                speed: (0.3, 0.7),
            },
            lifetime: (2.5, 4.0),
            // The sprites add up (additive blending): smoke is a dim grey that fades.
            colour_over_life: Some(vec![
                (0.0, Vec4::new(0.0, 0.0, 0.0, 0.0)),
                (0.15, Vec4::new(0.05, 0.05, 0.06, 0.35)),
                (1.0, Vec4::new(0.0, 0.0, 0.0, 0.0)),
            ]),
            size_over_life: Some(vec![(0.0, 0.08), (1.0, 0.45)]),
            inverse_mass: (20.0, 30.0),
            damping: 0.5,
            acceleration: Vec3::new(0.25, 0.35, 0.0),
            position: Vec3::new(-3.0, 0.1, -1.0),
            ..Emitter::default()
        })?;
        world.add_emitter(Emitter {
            rate: 0.0,
            bursts: (0..40)
                .map(|k| Burst {
                    time: 0.5 * k as f32,
                    count: 150,
                })
                .collect(),
            shape: EmitShape::Shell { radius: 0.15 },
            velocity: EmitVelocity::Radial { speed: (2.0, 2.6) },
            lifetime: (0.9, 1.3),
            colour_over_life: Some(vec![
                (0.0, Vec4::new(0.4, 0.9, 1.0, 1.0)),
                (1.0, Vec4::new(0.6, 0.2, 1.0, 0.0)),
            ]),
            size: (0.02, 0.03),
            damping: 0.4,
            acceleration: Vec3::new(0.0, -2.0, 0.0),
            position: Vec3::new(3.0, 3.0, 0.0),
            rotation: Quat::from_rotation_x(0.4),
            ..Emitter::default()
        })?;
        Ok(Self {
            world,
            grinder,
            grinding: true,
            t: 0.0,
        })
    }

    fn world(&self) -> &ParticleWorld {
        &self.world
    }

    fn camera(&self) -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(0.0, 1.5, 0.0),
            yaw: 0.3,
            pitch: 0.25,
            distance: 11.0,
            fov_y: 50f32.to_radians(),
        }
    }

    fn style(&self) -> Style {
        Style {
            background: wgpu::Color {
                r: 0.004,
                g: 0.004,
                b: 0.01,
                a: 1.0,
            },
            glow: 2.0,
            min_radius_px: 2.0,
            intensity: 1.4,
            afterglow_s: 0.15,
            afterglow_gain: 0.5,
        }
    }

    fn lines(&self) -> Vec<LineVertex> {
        let mut v = Vec::new();
        let colour = [0.03, 0.035, 0.05, 1.0];
        for i in -5..=5 {
            let t = i as f32;
            segment(
                &mut v,
                Vec3::new(t, 0.0, -5.0),
                Vec3::new(t, 0.0, 5.0),
                colour,
            );
            segment(
                &mut v,
                Vec3::new(-5.0, 0.0, t),
                Vec3::new(5.0, 0.0, t),
                colour,
            );
        }
        v
    }

    fn step(&mut self) -> wgphys::Result<StepReport> {
        // The grinder's direction turns slowly: a moving emitter, set each frame.
        self.t += scenes::DT;
        self.world
            .set_emitter(self.grinder, grinder(0.6 * self.t.sin()))?;
        self.world.step(scenes::DT)
    }

    fn key(&mut self, key: &Key) -> wgphys::Result<()> {
        if let Key::Named(NamedKey::Space) = key {
            self.grinding = !self.grinding;
            self.world.set_emitter_active(self.grinder, self.grinding)?;
        }
        Ok(())
    }

    fn click(&mut self) -> wgphys::Result<()> {
        Ok(())
    }

    fn title(&self) -> String {
        if self.grinding {
            "grinder on (space: pause)".into()
        } else {
            "grinder paused (space: resume)".into()
        }
    }
}

fn main() -> Result<(), BoxError> {
    common::run::<Effects>()
}
