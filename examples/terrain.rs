//! Level geometry on the GPU rigid-body engine (`scenes::level::terrain`): 3,000 rocks, crates
//! and balls by default, dropped over the top of a heightfield slope, tumbling down it into a
//! triangle-mesh bowl. The renderer draws the level from the scene's world-space triangles
//! (`RigidRenderer::set_level`) and the bodies from the engine's buffers; sleeping bodies are
//! drawn dimmed.
//!
//! ```text
//! cargo run --release --example terrain                   # window; headless machines get a PNG
//! cargo run --release --example terrain -- --bodies 6000
//! cargo run --release --example terrain -- --headless --frames 300 --out terrain.png
//! ```
//!
//! In the window: B (or a click) drops a boulder at the top of the slope, W wakes every body,
//! C toggles the contact overlay, R drops the bodies again (and resets the camera); drag to
//! orbit, the wheel zooms, Esc quits. The title shows the awake bodies, pairs, manifolds and
//! solver colours (the engine's counters, read back a frame or two late).
//!
//! Headless, the bodies tumble for `--frames` steps and the last frame goes to the PNG; the run
//! prints how many bodies reached the bowl, how many are still awake, and the lowest body's
//! height over the level under it (negative would be a body through the level).

#[path = "common/cli_option.rs"]
mod cli_option;
mod common;
#[path = "common/rigid/mod.rs"]
mod rigid;

use cli_option::cli_number;
use common::{BoxError, OrbitCamera};
use glam::{Quat, Vec3};
use rigid::{key_is, report_title, RigidBuffers, RigidDemo};
use wgphys::gpu::GpuContext;
use wgphys::rigid::{BodyHandle, RigidBody, RigidStepReport, RigidWorld};
use wgphys::scenes::level::{self, LevelScene, LevelVertex};
use wgphys::scenes::{self, rocks};
use wgphys::Backend;
use winit::keyboard::Key;

/// Bodies when `--bodies` is not given.
const BODIES: u32 = 3000;
/// The seed of the bodies' shapes and turns.
const SEED: u32 = 17;

/// What a headless run reads back at its last step: bodies in the bowl, awake, and the lowest
/// centre's height over the level.
struct Tally {
    in_bowl: usize,
    awake: usize,
    lowest: f32,
}

struct Terrain {
    ctx: GpuContext,
    count: u32,
    world: RigidWorld,
    bodies: Vec<BodyHandle>,
    level: Vec<LevelVertex>,
    boulders: u32,
    report: RigidStepReport,
    last_step: Option<u32>,
    steps: u32,
    tally: Option<Tally>,
}

impl Terrain {
    fn build(ctx: &GpuContext, count: u32) -> Result<LevelScene, BoxError> {
        Ok(level::terrain(Backend::Gpu(ctx.clone()), count, SEED)?)
    }

    /// Drops a boulder (a rock of 32 points, 1.6 m across) at the top of the slope.
    fn drop_boulder(&mut self) -> Result<(), BoxError> {
        let c = rocks::rock(SEED + 1, self.boulders, 32, Vec3::splat(0.8))?
            .material(level::LEVEL_FRICTION, 0.0);
        let mass = rocks::ROCK_DENSITY * c.shape.volume();
        let z = 2.0 * (self.boulders % 5) as f32 - 4.0;
        let x = -level::SLOPE_HALF + 2.0;
        let at = Vec3::new(x, level::terrain_height(x, z) + 4.0, z);
        self.bodies.push(
            self.world.add_body(
                RigidBody::dynamic()
                    .position(at)
                    .rotation(Quat::from_rotation_x(0.7))
                    .velocity(Vec3::new(4.0, -2.0, 0.0))
                    .mass(mass),
                &[c],
            )?,
        );
        self.boulders += 1;
        Ok(())
    }
}

impl RigidDemo for Terrain {
    const NAME: &'static str = "terrain";
    const CONTROLS: &'static str =
        "B or click: drop a boulder; W: wake every body; C: contacts overlay; R: drop again";
    const DEFAULT_FRAMES: u32 = 300;
    const OPTIONS: &'static [&'static str] = &["--bodies N  bodies to drop (default 3000)"];

    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let count = cli_number("--bodies", 1..=100_000)?.unwrap_or(BODIES);
        let s = Self::build(ctx, count)?;
        Ok(Self {
            ctx: ctx.clone(),
            count,
            world: s.world,
            bodies: s.bodies,
            level: s.level,
            boulders: 0,
            report: RigidStepReport::default(),
            last_step: headless_frames,
            steps: 0,
            tally: None,
        })
    }

    fn buffers(&self) -> RigidBuffers<'_> {
        RigidBuffers::of_world(&self.world)
    }

    fn level(&self) -> Vec<LevelVertex> {
        self.level.clone()
    }

    fn camera(&self) -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(22.0, 0.0, 0.0),
            yaw: 0.35,
            pitch: 0.65,
            distance: 64.0,
            fov_y: 50f32.to_radians(),
        }
    }

    fn update(&mut self) -> Result<(), BoxError> {
        self.report = self.world.step(scenes::DT)?;
        self.steps += 1;
        if Some(self.steps) == self.last_step {
            let all = self.world.read_bodies()?;
            let mine: Vec<_> = self
                .bodies
                .iter()
                .map(|h| &all[h.index() as usize])
                .collect();
            self.tally = Some(Tally {
                in_bowl: mine.iter().filter(|b| b.pos.x > level::SLOPE_HALF).count(),
                awake: mine.iter().filter(|b| b.awake != 0).count(),
                lowest: mine
                    .iter()
                    .map(|b| b.pos.y - level::terrain_height(b.pos.x, b.pos.z))
                    .fold(f32::INFINITY, f32::min),
            });
            self.report = self.world.read_report()?;
        }
        Ok(())
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        if !pressed {
            return Ok(());
        }
        if key_is(key, 'b') {
            self.drop_boulder()?;
        } else if key_is(key, 'w') {
            for &b in &self.bodies {
                self.world.wake(b)?;
            }
        } else if key_is(key, 'r') {
            let s = Self::build(&self.ctx, self.count)?;
            (self.world, self.bodies) = (s.world, s.bodies);
            self.boulders = 0;
        }
        Ok(())
    }

    fn click(&mut self) -> Result<(), BoxError> {
        self.drop_boulder()
    }

    fn count(&self) -> String {
        format!("{} bodies", self.bodies.len())
    }

    fn title(&self) -> String {
        report_title(&self.report)
    }

    fn summary(&self) -> String {
        let mut s = format!(
            "{} bodies: {}",
            self.bodies.len(),
            report_title(&self.report)
        );
        if let Some(t) = &self.tally {
            s.push_str(&format!(
                "\nafter {} steps: {} bodies in the bowl, {} awake, the lowest centre {:.3} m \
                 over the level",
                self.steps, t.in_bowl, t.awake, t.lowest
            ));
        }
        s
    }
}

fn main() -> Result<(), BoxError> {
    rigid::run::<Terrain>()
}
