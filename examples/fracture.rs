//! The book's fracture demo (catalogue §14.2, `scenes::rigid::fracture_scene`): a ball fired at
//! a concrete block splits it into 8 boxes about the point it struck, which burst apart; the
//! pieces break again when struck, until they are small. The split is the engine's: the GPU
//! finds the struck block in the step, and the world splits it when the step's report lands,
//! a frame or two later (`RigidWorld::take_fractures`).
//!
//! ```text
//! cargo run --release --example fracture                 # window; headless machines get a PNG
//! cargo run --release --example fracture -- --headless --frames 120 --out fracture.png
//! ```
//!
//! In the window: B (or a click) fires a ball at the biggest piece, R rebuilds the block; drag
//! to orbit, the wheel zooms, Esc quits. The title shows the bodies and the splits so far.
//!
//! Headless, a ball is fired on the 10th frame and on the 70th; the run prints the splits and
//! the bodies, and the last frame goes to the PNG.

mod common;
#[path = "common/rigid/mod.rs"]
mod rigid;

use common::{BoxError, OrbitCamera};
use glam::Vec3;
use rigid::{key_is, report_title, RigidBuffers, RigidDemo};
use wgphys::gpu::GpuContext;
use wgphys::rigid::{BodyHandle, RigidStepReport, RigidWorld};
use wgphys::scenes::{self, rigid::fire_at_block};
use wgphys::Backend;
use winit::keyboard::Key;

/// Frames (headless) on which a ball is fired.
const SHOTS: [u32; 2] = [10, 70];
/// Balls in the scene at once.
const MAX_BALLS: usize = 4;

struct Fracture {
    ctx: GpuContext,
    world: RigidWorld,
    /// The block and its pieces, alive.
    blocks: Vec<BodyHandle>,
    balls: Vec<BodyHandle>,
    splits: u32,
    report: RigidStepReport,
    headless: bool,
    frames: u32,
}

impl Fracture {
    fn build(ctx: &GpuContext) -> Result<(RigidWorld, BodyHandle), BoxError> {
        Ok(scenes::rigid::fracture_scene(Backend::Gpu(ctx.clone()))?)
    }

    /// Fires a ball at the biggest piece (the block at first), from the front and a little
    /// above.
    fn fire(&mut self) -> Result<(), BoxError> {
        if self.balls.len() >= MAX_BALLS {
            let old = self.balls.remove(0);
            self.world.remove_body(old)?;
        }
        let bodies = self.world.read_bodies()?;
        let target = self
            .blocks
            .iter()
            .map(|h| &bodies[h.index() as usize])
            .max_by(|a, b| b.pos.w.total_cmp(&a.pos.w))
            .map_or(Vec3::new(0.0, 1.5, 0.0), |b| b.pos.truncate());
        let from = target + Vec3::new(-6.0, 1.5, 2.0);
        let aim = target + Vec3::new(0.0, 0.3, 0.2);
        self.balls.push(fire_at_block(&mut self.world, from, aim)?);
        Ok(())
    }

    /// Takes in the splits the world made: the block out, its pieces in.
    fn take_splits(&mut self) {
        for f in self.world.take_fractures() {
            self.splits += 1;
            self.blocks.retain(|h| *h != f.body);
            self.blocks.extend(f.pieces);
        }
    }
}

impl RigidDemo for Fracture {
    const NAME: &'static str = "fracture";
    const CONTROLS: &'static str = "B or click: fire a ball at the biggest piece; R: rebuild";
    const OPTIONS: &'static [&'static str] = &[];

    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let (world, block) = Self::build(ctx)?;
        Ok(Self {
            ctx: ctx.clone(),
            world,
            blocks: vec![block],
            balls: Vec::new(),
            splits: 0,
            report: RigidStepReport::default(),
            headless: headless_frames.is_some(),
            frames: 0,
        })
    }

    fn buffers(&self) -> RigidBuffers<'_> {
        RigidBuffers::of_world(&self.world)
    }

    fn camera(&self) -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(0.0, 1.2, 0.0),
            yaw: -0.55,
            pitch: 0.3,
            distance: 12.0,
            fov_y: 50f32.to_radians(),
        }
    }

    fn update(&mut self) -> Result<(), BoxError> {
        self.frames += 1;
        if self.headless && SHOTS.contains(&self.frames) {
            self.fire()?;
        }
        self.report = self.world.step(scenes::DT)?;
        self.take_splits();
        Ok(())
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        if !pressed {
            return Ok(());
        }
        if key_is(key, 'b') {
            self.fire()?;
        } else if key_is(key, 'r') {
            let (world, block) = Self::build(&self.ctx)?;
            self.world = world;
            self.blocks = vec![block];
            self.balls.clear();
            self.splits = 0;
        }
        Ok(())
    }

    fn click(&mut self) -> Result<(), BoxError> {
        self.fire()
    }

    fn count(&self) -> String {
        format!("{} pieces, {} splits", self.blocks.len(), self.splits)
    }

    fn title(&self) -> String {
        format!(
            "{} pieces, {} splits; {}",
            self.blocks.len(),
            self.splits,
            report_title(&self.report)
        )
    }

    fn summary(&self) -> String {
        format!(
            "{} splits: {} pieces from one block, {} bodies in the world",
            self.splits,
            self.blocks.len(),
            self.world.len()
        )
    }
}

fn main() -> Result<(), BoxError> {
    rigid::run::<Fracture>()
}
