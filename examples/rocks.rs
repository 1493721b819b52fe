//! A pit of convex rocks (`scenes::rocks::rock_pit`) on the GPU rigid-body engine: 2,000 rocks
//! by default, each its own hull of 8 to 32 random points cooked by quickhull, poured into a
//! pit, tumbling and settling into a heap; sleeping rocks are drawn dimmed. The renderer draws
//! every hull from the engine's hull store.
//!
//! ```text
//! cargo run --release --example rocks                   # window; headless machines get a PNG
//! cargo run --release --example rocks -- --rocks 5000
//! cargo run --release --example rocks -- --headless --frames 480 --out rocks.png
//! ```
//!
//! In the window: B (or a click) drops a boulder onto the heap, W wakes every rock, C toggles
//! the contact overlay, R pours the rocks again (and resets the camera); drag to orbit, the
//! wheel zooms, Esc quits. The title shows the awake bodies, pairs, manifolds and solver
//! colours (the engine's counters, read back a frame or two late).
//!
//! Headless, the rocks pour for `--frames` steps and the last frame goes to the PNG; the run
//! prints how many rocks are still awake and the heap's height.

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
use wgphys::scenes::{self, rocks};
use wgphys::Backend;
use winit::keyboard::Key;

/// Rocks when `--rocks` is not given.
const ROCKS: u32 = 2000;
/// The seed of the rocks' shapes and turns.
const SEED: u32 = 11;

struct Rocks {
    ctx: GpuContext,
    count: u32,
    world: RigidWorld,
    rocks: Vec<BodyHandle>,
    boulders: u32,
    report: RigidStepReport,
    /// Headless: the step on which to read the heap back, and what it read (awake, height).
    last_step: Option<u32>,
    steps: u32,
    heap: Option<(usize, f32)>,
}

impl Rocks {
    fn build(ctx: &GpuContext, count: u32) -> Result<(RigidWorld, Vec<BodyHandle>), BoxError> {
        Ok(rocks::rock_pit(Backend::Gpu(ctx.clone()), count, SEED)?)
    }

    /// Drops a boulder (a rock of 32 points, 1.2 m across) above the middle of the pit.
    fn drop_boulder(&mut self) -> Result<(), BoxError> {
        let c = rocks::rock(SEED + 1, self.boulders, 32, Vec3::splat(0.6))?;
        let mass = rocks::ROCK_DENSITY * c.shape.volume();
        let at = Vec3::new(0.3 * (self.boulders % 3) as f32 - 0.3, 12.0, 0.0);
        self.world.add_body(
            RigidBody::dynamic()
                .position(at)
                .rotation(Quat::from_rotation_x(0.7))
                .velocity(Vec3::new(0.0, -10.0, 0.0))
                .mass(mass),
            &[c],
        )?;
        self.boulders += 1;
        Ok(())
    }
}

impl RigidDemo for Rocks {
    const NAME: &'static str = "rocks";
    const CONTROLS: &'static str =
        "B or click: drop a boulder; W: wake every rock; C: contacts overlay; R: pour again";
    const DEFAULT_FRAMES: u32 = 480;
    const OPTIONS: &'static [&'static str] = &["--rocks N   rocks to pour (default 2000)"];

    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let count = cli_number("--rocks", 1..=100_000)?.unwrap_or(ROCKS);
        let (world, rocks) = Self::build(ctx, count)?;
        Ok(Self {
            ctx: ctx.clone(),
            count,
            world,
            rocks,
            boulders: 0,
            report: RigidStepReport::default(),
            last_step: headless_frames,
            steps: 0,
            heap: None,
        })
    }

    fn buffers(&self) -> RigidBuffers<'_> {
        RigidBuffers::of_world(&self.world)
    }

    fn camera(&self) -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(0.0, 0.5, 0.0),
            yaw: 0.6,
            pitch: 0.6,
            distance: 24.0,
            fov_y: 50f32.to_radians(),
        }
    }

    fn update(&mut self) -> Result<(), BoxError> {
        self.report = self.world.step(scenes::DT)?;
        self.steps += 1;
        if Some(self.steps) == self.last_step {
            let bodies = self.world.read_bodies()?;
            let awake = self
                .rocks
                .iter()
                .filter(|h| bodies[h.index() as usize].awake != 0)
                .count();
            let top = self
                .rocks
                .iter()
                .map(|h| bodies[h.index() as usize].pos.y)
                .fold(0.0f32, f32::max);
            self.heap = Some((awake, top));
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
            for &r in &self.rocks {
                self.world.wake(r)?;
            }
        } else if key_is(key, 'r') {
            (self.world, self.rocks) = Self::build(&self.ctx, self.count)?;
            self.boulders = 0;
        }
        Ok(())
    }

    fn click(&mut self) -> Result<(), BoxError> {
        self.drop_boulder()
    }

    fn count(&self) -> String {
        format!("{} rocks", self.rocks.len())
    }

    fn title(&self) -> String {
        report_title(&self.report)
    }

    fn summary(&self) -> String {
        let mut s = format!("{} rocks: {}", self.rocks.len(), report_title(&self.report));
        if let Some((awake, top)) = self.heap {
            s.push_str(&format!(
                "\nafter {} steps: {awake} rocks awake, the highest rock's centre at {top:.2} m",
                self.steps
            ));
        }
        s
    }
}

fn main() -> Result<(), BoxError> {
    rigid::run::<Rocks>()
}
