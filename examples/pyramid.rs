//! A pyramid of boxes (`scenes::rigid::pyramid`) on the GPU rigid-body engine: 20 rows of 1 m
//! cubes by default (210 boxes) that settle, stand and fall asleep; sleeping bodies are drawn
//! dimmed.
//!
//! ```text
//! cargo run --release --example pyramid                 # window; headless machines get a PNG
//! cargo run --release --example pyramid -- --rows 30
//! cargo run --release --example pyramid -- --rows 100 --blocks   # the block solver
//! cargo run --release --example pyramid -- --headless --frames 300 --out pyramid.png
//! ```
//!
//! In the window: B (or a click) fires a heavy ball at the pyramid, W wakes every box, C
//! toggles the contact overlay, R rebuilds the pyramid (and resets the camera); drag to orbit,
//! the wheel zooms, Esc quits. The title shows the awake bodies, pairs, manifolds and solver
//! colours (the engine's counters, read back asynchronously a frame or two late) and the time
//! per step.
//!
//! Headless, the pyramid just stands for `--frames` steps and the last frame goes to the PNG;
//! the run prints how far the top box moved.

#[path = "common/cli_option.rs"]
mod cli_option;
mod common;
#[path = "common/rigid/mod.rs"]
mod rigid;

use cli_option::cli_number;
use common::{BoxError, OrbitCamera};
use glam::Vec3;
use rigid::{key_is, report_title, RigidBuffers, RigidDemo};
use wgphys::gpu::GpuContext;
use wgphys::rigid::{BodyHandle, RigidStepReport, RigidWorld};
use wgphys::scenes::{self, rigid::add_sphere};
use wgphys::Backend;
use winit::keyboard::Key;

/// Rows when `--rows` is not given.
const ROWS: u32 = 20;
/// Half size of the cubes, m.
const HALF: f32 = 0.5;
/// The ball B fires: radius (m), speed (m/s), and how many may be in the scene at once.
const BALL_RADIUS: f32 = 0.6;
const BALL_SPEED: f32 = 25.0;
const MAX_BALLS: usize = 4;

struct Pyramid {
    ctx: GpuContext,
    rows: u32,
    world: RigidWorld,
    boxes: Vec<BodyHandle>,
    balls: Vec<BodyHandle>,
    report: RigidStepReport,
    /// Headless: the step on which to read the top box back, and what it read.
    last_step: Option<u32>,
    steps: u32,
    top_moved: Option<(Vec3, Vec3)>,
}

impl Pyramid {
    fn build(ctx: &GpuContext, rows: u32) -> Result<(RigidWorld, Vec<BodyHandle>), BoxError> {
        let backend = Backend::Gpu(ctx.clone());
        if !std::env::args().skip(1).any(|a| a == "--blocks") {
            return Ok(scenes::rigid::pyramid(backend, rows, HALF)?);
        }
        // The block solver (RigidConfig::with_blocks), with more pair slots than the
        // one-workgroup solver takes, so that the step runs block by block.
        let n = rows * (rows + 1) / 2 + 1;
        let config = scenes::rigid::config(n).with_blocks();
        let config = wgphys::rigid::RigidConfig {
            pair_capacity: config.pair_capacity.max(8 * 2 * n).max(8192),
            ..config
        };
        let mut world = RigidWorld::new(backend, config)?;
        let boxes = scenes::rigid::pyramid_in(&mut world, rows, HALF)?;
        Ok((world, boxes))
    }

    /// The height of the pyramid's top, m.
    fn height(&self) -> f32 {
        2.0 * HALF * self.rows as f32
    }

    /// Fires a ball from in front of the pyramid at its middle, a little off-centre.
    fn fire(&mut self) -> Result<(), BoxError> {
        if self.balls.len() >= MAX_BALLS {
            let old = self.balls.remove(0);
            self.world.remove_body(old)?;
        }
        let h = self.height();
        let from = Vec3::new(-0.1 * h, 0.35 * h, 1.5 * h);
        let aim = Vec3::new(0.0, 0.3 * h, 0.0);
        let ball = add_sphere(&mut self.world, from, BALL_RADIUS)?;
        self.world
            .set_linear_velocity(ball, (aim - from).normalize() * BALL_SPEED)?;
        self.balls.push(ball);
        Ok(())
    }
}

impl RigidDemo for Pyramid {
    const NAME: &'static str = "pyramid";
    const CONTROLS: &'static str =
        "B or click: fire a ball at the pyramid; W: wake every box; C: contacts overlay; \
         R: rebuild";
    const OPTIONS: &'static [&'static str] = &[
        "--rows N   rows of boxes (default 20)",
        "--blocks   the block solver (RigidConfig::with_blocks)",
    ];

    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let rows = cli_number("--rows", 1..=200)?.unwrap_or(ROWS);
        let (world, boxes) = Self::build(ctx, rows)?;
        Ok(Self {
            ctx: ctx.clone(),
            rows,
            world,
            boxes,
            balls: Vec::new(),
            report: RigidStepReport::default(),
            last_step: headless_frames,
            steps: 0,
            top_moved: None,
        })
    }

    fn buffers(&self) -> RigidBuffers<'_> {
        RigidBuffers::of_world(&self.world)
    }

    fn camera(&self) -> OrbitCamera {
        let h = self.height();
        OrbitCamera {
            target: Vec3::new(0.0, 0.42 * h, 0.0),
            yaw: 0.45,
            pitch: 0.22,
            distance: 1.3 * h + 4.0,
            fov_y: 50f32.to_radians(),
        }
    }

    fn update(&mut self) -> Result<(), BoxError> {
        self.report = self.world.step(scenes::DT)?;
        self.steps += 1;
        if Some(self.steps) == self.last_step {
            let top = *self.boxes.last().expect("a pyramid has boxes");
            let start = Vec3::new(0.0, self.height() - HALF, 0.0);
            let now = self.world.read_body(top)?.position;
            self.top_moved = Some((start, now));
            self.report = self.world.read_report()?;
        }
        Ok(())
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        if !pressed {
            return Ok(());
        }
        if key_is(key, 'b') {
            self.fire()?;
        } else if key_is(key, 'w') {
            for &b in &self.boxes {
                self.world.wake(b)?;
            }
        } else if key_is(key, 'r') {
            (self.world, self.boxes) = Self::build(&self.ctx, self.rows)?;
            self.balls.clear();
        }
        Ok(())
    }

    fn click(&mut self) -> Result<(), BoxError> {
        self.fire()
    }

    fn count(&self) -> String {
        format!("{} boxes ({} rows)", self.boxes.len(), self.rows)
    }

    fn title(&self) -> String {
        report_title(&self.report)
    }

    fn summary(&self) -> String {
        let mut s = format!("{} boxes: {}", self.boxes.len(), report_title(&self.report));
        if let Some((start, now)) = self.top_moved {
            s.push_str(&format!(
                "\ntop box: built at {start:.2}, now at {now:.2} ({:.3} m away)",
                now.distance(start)
            ));
        }
        s
    }
}

fn main() -> Result<(), BoxError> {
    rigid::run::<Pyramid>()
}
