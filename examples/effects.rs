//! GPU emitters: particles spawned on the device at a rate and in bursts, from shapes, with
//! colour and size curves over their life, colliding with what the renderer drew. Nothing is
//! spawned from the host and nothing is read back per frame: the host counts what each emitter
//! emits (exactly, the fraction carried) and the `spawn_emitted` kernel draws every particle
//! from the counter-based generator.
//!
//! ```text
//! cargo run --release --example effects                 # window; headless machines get a PNG
//! cargo run --release --example effects -- --headless --frames 180 --out effects.png
//! ```
//!
//! The scene, three worlds drawn by the HDR renderer (`examples/common/fx.rs`):
//!
//! - **sparks**: a grinder on a workbench (a cone spraying 1,500 sparks a second along a
//!   turning direction, white-hot fading to red) and a ring of embers bursting every half
//!   second, stirred by curl-noise turbulence; drawn additive and stretched along their
//!   velocity. They bounce off the ground and, through the renderer's depth buffer
//!   (`set_depth_collider`), off everything drawn: the bench, the crates, the steps;
//! - **smoke**: a column rising from a barrel, alpha-blended back to front in the engine's view
//!   order (`set_view_sort`), lit by the grinder and the embers, fading softly where it meets
//!   the ground (soft particles);
//! - **rain**: drops falling from a box above the scene, stretched into streaks, that die on
//!   contact with the depth buffer (`kill`), each death spawning a splash of droplets through
//!   a sub-emitter (`set_sub_emitter`, `SubTrigger::Death`).
//!
//! In the window: space pauses and resumes the grinder, drag orbits, the wheel zooms, Esc
//! quits.

mod common;
#[path = "common/fx/mod.rs"]
mod fx;
#[path = "common/lines.rs"]
mod lines;

use common::{BoxError, OrbitCamera};
use fx::app::FxDemo;
use fx::bloom::BloomLook;
use fx::renderer::{Blend, Layer, Light, Look, SpriteLook};
use fx::scene::{Scene, SceneBox};
use glam::{Mat4, Quat, Vec3, Vec4};
use lines::segment;
use wgphys::gpu::GpuContext;
use wgphys::particles::{
    Burst, DepthCollider, DepthSource, EmitShape, EmitVelocity, Emitter, EmitterHandle, ForceField,
    KillBounds, ParticleCollider, ParticleWorld, SubTrigger, ViewSort, WorldConfig,
};
use wgphys::scenes;
use wgphys::Backend;
use winit::keyboard::{Key, NamedKey};

struct Effects {
    sparks: ParticleWorld,
    smoke: ParticleWorld,
    rain: ParticleWorld,
    grinder: EmitterHandle,
    grinding: bool,
    /// The camera of the last view order.
    sorted_for: Option<OrbitCamera>,
    t: f32,
}

/// The grinder, its spray turned `angle` radians about +y.
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
        position: GRINDER,
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..Emitter::default()
    }
}

/// Where the grinder's wheel touches the work.
const GRINDER: Vec3 = Vec3::new(0.0, 1.0, 0.0);
/// The ember ring's centre.
const EMBERS: Vec3 = Vec3::new(3.0, 3.0, 0.0);
/// The smoking barrel's top.
const BARREL: Vec3 = Vec3::new(-3.0, 0.9, -1.0);

fn sparks_world(ctx: &GpuContext) -> Result<(ParticleWorld, EmitterHandle), BoxError> {
    let mut world = ParticleWorld::new(
        Backend::Gpu(ctx.clone()),
        WorldConfig {
            capacity: 1 << 14,
            status_interval: 30,
            auto_grow: true,
            colliders: vec![ParticleCollider::ground(0.3, 0.35)],
            // Curl-noise turbulence nudges the sparks, drifting up.
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
        rate: 0.0,
        bursts: (0..2000)
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
        position: EMBERS,
        rotation: Quat::from_rotation_x(0.4),
        ..Emitter::default()
    })?;
    Ok((world, grinder))
}

fn smoke_world(ctx: &GpuContext) -> Result<ParticleWorld, BoxError> {
    let mut world = ParticleWorld::new(
        Backend::Gpu(ctx.clone()),
        WorldConfig {
            capacity: 1024,
            status_interval: 30,
            auto_grow: true,
            colliders: vec![ParticleCollider::ground(0.5, 0.0)],
            fields: vec![ForceField::Turbulence {
                scale: 0.8,
                strength: 1.5,
                scroll: Vec3::new(0.0, 0.4, 0.0),
            }],
            ..WorldConfig::default()
        },
    )?;
    world.add_emitter(Emitter {
        rate: 60.0,
        shape: EmitShape::Disc { radius: 0.3 },
        velocity: EmitVelocity::Directional {
            direction: Vec3::Y,
            spread: 0.3,
            speed: (0.3, 0.7),
        },
        lifetime: (3.0, 4.5),
        // Alpha-blended: a grey that thickens, then thins out as it grows.
        colour_over_life: Some(vec![
            (0.0, Vec4::new(0.5, 0.5, 0.52, 0.0)),
            (0.12, Vec4::new(0.45, 0.45, 0.48, 0.55)),
            (0.6, Vec4::new(0.4, 0.4, 0.43, 0.3)),
            (1.0, Vec4::new(0.35, 0.35, 0.38, 0.0)),
        ]),
        size_over_life: Some(vec![(0.0, 0.15), (1.0, 0.7)]),
        inverse_mass: (20.0, 30.0),
        damping: 0.5,
        acceleration: Vec3::new(0.25, 0.35, 0.0),
        position: BARREL,
        ..Emitter::default()
    })?;
    Ok(world)
}

fn rain_world(ctx: &GpuContext) -> Result<ParticleWorld, BoxError> {
    let mut world = ParticleWorld::new(
        Backend::Gpu(ctx.clone()),
        WorldConfig {
            capacity: 1 << 13,
            seed: 3,
            status_interval: 30,
            auto_grow: true,
            // Drops that land out of view (where there is no depth to hit) end below the ground.
            kill_bounds: Some(KillBounds {
                min: Vec3::new(-50.0, -0.5, -50.0),
                max: Vec3::new(50.0, 50.0, 50.0),
            }),
            ..WorldConfig::default()
        },
    )?;
    let drops = world.add_emitter(Emitter {
        rate: 1200.0,
        shape: EmitShape::Box {
            half_extents: Vec3::new(6.0, 0.5, 5.0),
        },
        velocity: EmitVelocity::Directional {
            direction: Vec3::new(0.08, -1.0, 0.03),
            spread: 0.02,
            speed: (8.0, 10.0),
        },
        lifetime: (2.0, 2.0),
        size: (0.006, 0.009),
        colour: (
            Vec4::new(0.55, 0.65, 0.85, 0.7),
            Vec4::new(0.6, 0.7, 0.9, 0.9),
        ),
        damping: 0.9,
        position: Vec3::new(0.0, 8.0, 0.0),
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..Emitter::default()
    })?;
    let splash = world.add_emitter(Emitter {
        rate: 0.0,
        shape: EmitShape::Point,
        velocity: EmitVelocity::Directional {
            direction: Vec3::Y,
            spread: 70f32.to_radians(),
            speed: (0.8, 1.8),
        },
        lifetime: (0.25, 0.45),
        size: (0.008, 0.012),
        colour_over_life: Some(vec![
            (0.0, Vec4::new(0.7, 0.8, 1.0, 1.0)),
            (1.0, Vec4::new(0.5, 0.6, 0.8, 0.0)),
        ]),
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..Emitter::default()
    })?;
    world.set_sub_emitter(drops, SubTrigger::Death, Some((splash, 4)))?;
    Ok(world)
}

impl FxDemo for Effects {
    const NAME: &'static str = "effects";
    const CONTROLS: &'static str = "space: pause or resume the grinder";
    const DEFAULT_FRAMES: u32 = 180;

    fn new(ctx: &GpuContext, _: &wgpu::AdapterInfo, _headless: bool) -> Result<Self, BoxError> {
        let (sparks, grinder) = sparks_world(ctx)?;
        Ok(Self {
            sparks,
            smoke: smoke_world(ctx)?,
            rain: rain_world(ctx)?,
            grinder,
            grinding: true,
            sorted_for: None,
            t: 0.0,
        })
    }

    fn camera(&self) -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(0.0, 1.2, 0.0),
            yaw: 0.3,
            pitch: 0.28,
            distance: 10.0,
            fov_y: 50f32.to_radians(),
        }
    }

    fn look(&self) -> Look {
        Look {
            sky_top: Vec3::new(0.002, 0.003, 0.008),
            sky_horizon: Vec3::new(0.012, 0.014, 0.022),
            stars: 0.0,
            fog: 0.02,
            ambient: Vec3::new(0.05, 0.055, 0.075),
            bloom: BloomLook {
                threshold: 0.9,
                knee: 0.6,
                strength: 0.7,
                exposure: 1.3,
                radius: 1.0,
            },
        }
    }

    fn scene(&self) -> Scene {
        let b = |c: [f32; 3], h: [f32; 3], col: [f32; 3]| {
            SceneBox::new(Vec3::from(c), Vec3::from(h), Vec3::from(col))
        };
        let mut lines = Vec::new();
        let colour = [0.02, 0.022, 0.03, 1.0];
        for i in -6..=6 {
            let t = i as f32;
            segment(
                &mut lines,
                Vec3::new(t, 0.002, -6.0),
                Vec3::new(t, 0.002, 6.0),
                colour,
            );
            segment(
                &mut lines,
                Vec3::new(-6.0, 0.002, t),
                Vec3::new(6.0, 0.002, t),
                colour,
            );
        }
        Scene {
            boxes: vec![
                // ground, workbench, crates, steps, the barrel
                b([0.0, -0.5, 0.0], [40.0, 0.5, 40.0], [0.16, 0.16, 0.17]),
                b([-0.2, 0.45, 0.0], [0.7, 0.45, 0.45], [0.35, 0.25, 0.18]),
                b([-1.6, 0.35, 1.6], [0.35, 0.35, 0.35], [0.4, 0.3, 0.2]),
                b([-1.0, 0.25, 2.3], [0.25, 0.25, 0.25], [0.4, 0.3, 0.2]),
                b([2.2, 0.2, 1.8], [1.0, 0.2, 0.6], [0.3, 0.3, 0.32]),
                b([2.2, 0.6, 1.5], [1.0, 0.2, 0.3], [0.3, 0.3, 0.32]),
                b(
                    [BARREL.x, 0.45, BARREL.z],
                    [0.3, 0.45, 0.3],
                    [0.25, 0.12, 0.08],
                ),
            ],
            lines,
        }
    }

    fn layers(&self) -> Vec<Layer<'_>> {
        vec![
            Layer {
                world: &self.smoke,
                look: SpriteLook {
                    blend: Blend::Sorted,
                    glow: 1.0,
                    min_px: 1.0,
                    intensity: 1.0,
                    soft: 0.3,
                    lit: 1.0,
                    ..SpriteLook::default()
                },
            },
            Layer {
                world: &self.rain,
                look: SpriteLook {
                    glow: 1.5,
                    min_px: 0.8,
                    intensity: 0.5,
                    soft: 0.05,
                    stretch: 0.035,
                    stretch_max_px: 60.0,
                    ..SpriteLook::default()
                },
            },
            Layer {
                world: &self.sparks,
                look: SpriteLook {
                    glow: 2.2,
                    min_px: 1.2,
                    intensity: 1.6,
                    soft: 0.05,
                    stretch: 0.02,
                    stretch_max_px: 40.0,
                    ..SpriteLook::default()
                },
            },
        ]
    }

    fn lights(&self) -> Vec<Light> {
        let flicker = 0.8 + 0.2 * (self.t * 37.0).sin() * (self.t * 23.0).cos();
        let grinder = if self.grinding { 1.0 } else { 0.0 };
        // The embers flash every half second and fade.
        let since = self.t % 0.5;
        vec![
            Light {
                position: GRINDER + Vec3::new(0.4, 0.3, 0.0),
                colour: Vec3::new(2.0, 1.0, 0.3) * flicker * grinder,
                range: 1.2,
            },
            Light {
                position: EMBERS,
                colour: Vec3::new(0.5, 0.9, 1.5) * (-since * 5.0).exp(),
                range: 2.0,
            },
        ]
    }

    fn depth(&mut self, depth: &wgpu::Texture, view_proj: Mat4) -> wgphys::Result<()> {
        // Sparks bounce off what was drawn; rain dies on it (and splashes).
        for (world, restitution, kill) in
            [(&mut self.sparks, 0.35, false), (&mut self.rain, 0.0, true)]
        {
            world.set_depth_collider(Some(DepthCollider {
                source: DepthSource::Texture(depth.clone()),
                view_proj,
                restitution,
                friction: 0.3,
                thickness: 0.3,
                kill,
            }))?;
        }
        Ok(())
    }

    fn step(&mut self, camera: &OrbitCamera) -> wgphys::Result<()> {
        // The grinder's direction turns slowly: a moving emitter, set each frame.
        self.t += scenes::DT;
        self.sparks
            .set_emitter(self.grinder, grinder(0.6 * self.t.sin()))?;
        if self.sorted_for != Some(*camera) {
            let eye = camera.eye();
            self.smoke.set_view_sort(Some(ViewSort {
                eye,
                forward: camera.target - eye,
            }))?;
            self.sorted_for = Some(*camera);
        }
        for world in [&mut self.sparks, &mut self.smoke, &mut self.rain] {
            world.step(scenes::DT)?;
        }
        Ok(())
    }

    fn key(&mut self, key: &Key) -> wgphys::Result<()> {
        if let Key::Named(NamedKey::Space) = key {
            self.grinding = !self.grinding;
            self.sparks
                .set_emitter_active(self.grinder, self.grinding)?;
        }
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
    fx::app::run::<Effects>()
}
