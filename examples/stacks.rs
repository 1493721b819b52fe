//! Stacks (`scenes::rigid::stacks`) on the GPU rigid-body engine: four towers of 1 m cubes (4,
//! 8, 12 and 16 high), each capped with a ball, and a square pyramid of balls (3×3, 2×2, 1)
//! inside a fence of four static boxes. Everything should stand still and fall asleep (sleeping
//! bodies are drawn dimmed) until pushed.
//!
//! ```text
//! cargo run --release --example stacks                 # window; headless machines get a PNG
//! cargo run --release --example stacks -- --headless --frames 300 --out stacks.png
//! ```
//!
//! In the window: keys 1–4 push that tower (4 is the tallest; a click pushes it too), C toggles
//! the contact overlay, R rebuilds the stacks (and resets the camera); drag to orbit, the wheel
//! zooms, Esc quits. A push reads the bodies back once and sets each body of the tower moving
//! as if the tower were turning about its base, the top at 3 m/s. The title shows the engine's
//! counters and the time per step.
//!
//! Headless, nothing is pushed: the last frame shows whether the stacks stood.

mod common;
#[path = "common/rigid/mod.rs"]
mod rigid;

use common::{BoxError, OrbitCamera};
use glam::{Vec3, Vec4Swizzles};
use rigid::{key_is, report_title, RigidBuffers, RigidDemo};
use wgphys::gpu::GpuContext;
use wgphys::rigid::{BodyHandle, RigidStepReport, RigidWorld};
use wgphys::scenes::{self, rigid::stacks};
use wgphys::Backend;
use winit::keyboard::Key;

/// The towers as `scenes::rigid::stacks` builds them, in its order: the x of the tower and its
/// height in boxes (each followed by its ball).
const TOWERS: [(f32, usize); 4] = [(-6.0, 4), (-3.0, 8), (0.0, 12), (3.0, 16)];
/// How fast a push moves the top of a tower, m/s (towards −z, away from the camera).
const PUSH: f32 = 3.0;

struct Stacks {
    ctx: GpuContext,
    world: RigidWorld,
    bodies: Vec<BodyHandle>,
    report: RigidStepReport,
    pushes: u32,
}

impl Stacks {
    fn build(ctx: &GpuContext) -> Result<(RigidWorld, Vec<BodyHandle>), BoxError> {
        let (world, bodies) = stacks(Backend::Gpu(ctx.clone()))?;
        let towers: usize = TOWERS.iter().map(|(_, h)| h + 1).sum();
        if bodies.len() < towers {
            return Err(format!(
                "scenes::rigid::stacks built {} bodies, fewer than the {towers} of the towers \
                 this example expects; update TOWERS in examples/stacks.rs",
                bodies.len()
            )
            .into());
        }
        Ok((world, bodies))
    }

    /// Pushes tower `t` (0-based) over: every body of it moves as if the tower turned about
    /// the bottom edge on its −z side.
    fn push(&mut self, t: usize) -> Result<(), BoxError> {
        let start: usize = TOWERS[..t].iter().map(|(_, h)| h + 1).sum();
        let (x, height) = TOWERS[t];
        let all = self.world.read_bodies()?;
        let pivot = Vec3::new(x, 0.0, -0.5);
        let omega = Vec3::X * (-PUSH / height as f32);
        for &h in &self.bodies[start..=start + height] {
            let p = all[h.index() as usize].pos.xyz();
            self.world.set_linear_velocity(h, omega.cross(p - pivot))?;
            self.world.wake(h)?;
        }
        self.pushes += 1;
        Ok(())
    }
}

impl RigidDemo for Stacks {
    const NAME: &'static str = "stacks";
    const CONTROLS: &'static str =
        "1-4: push that tower (click: the tallest); C: contacts overlay; R: rebuild";

    fn new(ctx: &GpuContext, _headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let (world, bodies) = Self::build(ctx)?;
        Ok(Self {
            ctx: ctx.clone(),
            world,
            bodies,
            report: RigidStepReport::default(),
            pushes: 0,
        })
    }

    fn buffers(&self) -> RigidBuffers<'_> {
        RigidBuffers::of_world(&self.world)
    }

    fn camera(&self) -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(0.0, 7.3, 0.0),
            yaw: 0.2,
            pitch: 0.2,
            distance: 25.0,
            fov_y: 50f32.to_radians(),
        }
    }

    fn update(&mut self) -> Result<(), BoxError> {
        self.report = self.world.step(scenes::DT)?;
        Ok(())
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        if !pressed {
            return Ok(());
        }
        if let Some(t) = ['1', '2', '3', '4'].iter().position(|&c| key_is(key, c)) {
            self.push(t)?;
        } else if key_is(key, 'r') {
            (self.world, self.bodies) = Self::build(&self.ctx)?;
        }
        Ok(())
    }

    fn click(&mut self) -> Result<(), BoxError> {
        self.push(TOWERS.len() - 1)
    }

    fn count(&self) -> String {
        format!("{} bodies", self.bodies.len())
    }

    fn title(&self) -> String {
        report_title(&self.report)
    }

    fn summary(&self) -> String {
        format!(
            "{} bodies, {} pushes; {}",
            self.bodies.len(),
            self.pushes,
            report_title(&self.report)
        )
    }
}

fn main() -> Result<(), BoxError> {
    rigid::run::<Stacks>()
}
