//! Ragdolls down a flight of stairs on the GPU rigid-body engine: the book's ragdoll
//! (`scenes::joints::ragdoll`, 12 boxes and 11 limited joints: ball joints at the spine, neck,
//! shoulders and hips, hinges at the elbows and knees) thrown from the top of
//! `scenes::joints::stairs` (10 steps of 0.3 m by 0.5 m) to tumble down onto the ground. They
//! come to rest and fall asleep (sleeping bodies are drawn dimmed). With `--rain N`, the
//! benchmarks' ragdoll rain instead (`scenes::joints::ragdoll_rain`): N ragdolls dropped over
//! longer stairs, each dropped again from its spot once asleep or 5 s after its last drop.
//!
//! ```text
//! cargo run --release --example ragdoll                 # window; headless machines get a PNG
//! cargo run --release --example ragdoll -- --count 8
//! cargo run --release --example ragdoll -- --rain 100
//! cargo run --release --example ragdoll -- --headless --frames 120 --out ragdoll.png
//! ```
//!
//! In the window: B (or a click) throws a heavy ball up the stairs at the ragdolls, W wakes
//! every bone, J toggles the joint overlay (each bone to its joints; a joint pulled apart
//! shows red), C the contact overlay, R throws the ragdolls again (and resets the camera); drag
//! to orbit, the wheel zooms, Esc quits. The title shows the engine's counters and the time per
//! step.
//!
//! Headless, the ragdolls are thrown and nothing else happens; the run prints how many are
//! asleep, how far down the stairs they got, the lowest bone and the joints' worst error at
//! the last frame (`wgphys::rigid::JointState`: the gap between a joint's anchors and the turn
//! past its limits). The rain drops its ragdolls again every 30 frames (a read back each
//! time), in the window and headless alike, and prints how many it dropped again.

#[path = "common/cli_option.rs"]
mod cli_option;
mod common;
#[path = "common/joint_state.rs"]
mod joint_state;
#[path = "common/rigid/mod.rs"]
mod rigid;

use cli_option::cli_number;
use common::{BoxError, OrbitCamera};
use glam::{Quat, Vec3, Vec4Swizzles};
use joint_state::{summary, worst_error};
use rigid::{key_is, report_title, RigidBuffers, RigidDemo, RigidStyle};
use wgphys::gpu::GpuContext;
use wgphys::rigid::{BodyHandle, RigidStepReport, RigidWorld};
use wgphys::scenes::joints::{
    ragdoll, ragdoll_rain, rain_grid, stairs, Ragdoll, RagdollRain, RAGDOLL_BONES, RAIN_PITCH,
    RAIN_RISE,
};
use wgphys::scenes::{self, rigid::add_ground, rigid::add_sphere};
use wgphys::Backend;
use winit::keyboard::Key;

/// Ragdolls when `--count` is not given.
const COUNT: u32 = 5;
/// The stairs: steps, rise and run of each (m), width (m). The top is `STEPS × RISE` high at
/// z = 0, the foot at z = `STEPS × RUN`.
const STEPS: u32 = 10;
const RISE: f32 = 0.3;
const RUN: f32 = 0.5;
const WIDTH: f32 = 7.0;
/// The ball B throws: radius (m), speed (m/s), and how many may be in the scene at once.
const BALL_RADIUS: f32 = 0.25;
const BALL_SPEED: f32 = 14.0;
const MAX_BALLS: usize = 4;
/// The rain drops its ragdolls again every this many steps.
const RECYCLE_EVERY: u32 = 30;

/// What is thrown down the stairs.
enum Scene {
    /// `--count` ragdolls from the top of a short flight.
    Stairs(Vec<Ragdoll>),
    /// `--rain N`: the benchmarks' ragdoll rain.
    Rain(RagdollRain),
}

impl Scene {
    fn dolls(&self) -> &[Ragdoll] {
        match self {
            Scene::Stairs(dolls) => dolls,
            Scene::Rain(rain) => &rain.ragdolls,
        }
    }
}

struct Ragdolls {
    ctx: GpuContext,
    count: u32,
    /// `--rain N` given.
    rain: bool,
    world: RigidWorld,
    scene: Scene,
    balls: Vec<BodyHandle>,
    report: RigidStepReport,
    /// Headless: the step on which to read the world back, and what it read.
    last_step: Option<u32>,
    steps: u32,
    status: Option<String>,
}

/// The ground, the stairs and `count` ragdolls thrown from the top step, side by side across
/// the stairs, each turned and leaning its own way.
fn build(ctx: &GpuContext, count: u32, rain: bool) -> Result<(RigidWorld, Scene), BoxError> {
    let bodies = 1 + STEPS.max(count) + count * RAGDOLL_BONES + MAX_BALLS as u32;
    let mut world = RigidWorld::new(Backend::Gpu(ctx.clone()), scenes::rigid::config(bodies))?;
    if rain {
        let rain = ragdoll_rain(&mut world, count)?;
        return Ok((world, Scene::Rain(rain)));
    }
    add_ground(&mut world)?;
    stairs(&mut world, STEPS, RISE, RUN, WIDTH)?;
    let top = STEPS as f32 * RISE;
    let span = (WIDTH - 2.0).min(1.4 * count as f32);
    let mut dolls = Vec::with_capacity(count as usize);
    for i in 0..count {
        let u = if count > 1 {
            i as f32 / (count - 1) as f32 - 0.5
        } else {
            0.0
        };
        // Feet a little above the top step's front half, leaning forward down the stairs
        // (a turn about +x tips the head towards +z), some turned sideways.
        let at = Vec3::new(u * span, top + 0.1 + 0.15 * (i % 3) as f32, 0.1);
        let turn = Quat::from_rotation_y(1.1 * u + 0.4 * (i % 2) as f32)
            * Quat::from_rotation_x(0.35 + 0.2 * (i % 3) as f32);
        let throw = Vec3::new(-0.4 * u, 1.0, 2.2 + 0.3 * (i % 2) as f32);
        dolls.push(ragdoll(&mut world, at, turn, throw)?);
    }
    Ok((world, Scene::Stairs(dolls)))
}

impl Ragdolls {
    /// Throws a ball from the foot of the stairs up at the ragdolls' middle (read back once).
    fn throw_ball(&mut self) -> Result<(), BoxError> {
        if self.balls.len() >= MAX_BALLS {
            let old = self.balls.remove(0);
            self.world.remove_body(old)?;
        }
        let bodies = self.world.read_bodies()?;
        let pelvises: Vec<Vec3> = self
            .scene
            .dolls()
            .iter()
            .map(|d| bodies[d.bones[0].index() as usize].pos.xyz())
            .collect();
        let aim = pelvises.iter().sum::<Vec3>() / pelvises.len().max(1) as f32;
        let foot = match &self.scene {
            Scene::Stairs(_) => STEPS as f32 * RUN,
            Scene::Rain(_) => rain_grid(self.count).0 as f32 * RAIN_PITCH,
        };
        let from = Vec3::new(0.8, 1.2, foot + 4.0);
        // Aimed a little above the target so the arc (about 0.4 s of flight) drops onto it.
        let flight = aim.distance(from) / BALL_SPEED;
        let lift = Vec3::Y * (0.5 * 9.81 * flight * flight);
        let ball = add_sphere(&mut self.world, from, BALL_RADIUS)?;
        self.world
            .set_linear_velocity(ball, (aim + lift - from).normalize() * BALL_SPEED)?;
        self.balls.push(ball);
        Ok(())
    }

    /// What the headless run prints: sleepers, how far down they got, the lowest bone and the
    /// joints' worst error now.
    fn read_status(&mut self) -> Result<String, BoxError> {
        let bodies = self.world.read_bodies()?;
        let joints = self.world.read_joints()?;
        let handles = self.scene.dolls().iter().flat_map(|d| d.joints.clone());
        let (lin, ang) = worst_error(&bodies, &joints, handles);
        let bone = |h: &BodyHandle| &bodies[h.index() as usize];
        let asleep = self
            .scene
            .dolls()
            .iter()
            .filter(|d| d.bones.iter().all(|b| bone(b).awake == 0))
            .count();
        let lowest = self
            .scene
            .dolls()
            .iter()
            .flat_map(|d| d.bones.iter().map(|b| bone(b).pos.y))
            .fold(f32::INFINITY, f32::min);
        let reach: Vec<String> = self
            .scene
            .dolls()
            .iter()
            .map(|d| format!("{:.2}", bone(&d.bones[0]).pos.z))
            .collect();
        let errors = format!(
            "lowest bone centre y = {lowest:.3} m; worst joint error {:.2} mm, {:.3} rad",
            lin * 1e3,
            ang
        );
        let dolls = self.scene.dolls().len();
        Ok(match &self.scene {
            Scene::Stairs(_) => format!(
                "{dolls} ragdolls, {asleep} asleep; pelvis z (the foot of the stairs is at {:.1} \
                 m): {}; {errors}",
                STEPS as f32 * RUN,
                reach.join(", "),
            ),
            Scene::Rain(rain) => format!(
                "ragdoll rain: {dolls} ragdolls, {asleep} asleep, {} dropped again so far; \
                 {errors}",
                rain.recycled
            ),
        })
    }
}

impl RigidDemo for Ragdolls {
    const NAME: &'static str = "ragdoll";
    const CONTROLS: &'static str = "B or click: throw a ball at the ragdolls; W: wake every bone; \
         J: joint overlay; C: contacts overlay; R: throw the ragdolls again";
    const DEFAULT_FRAMES: u32 = 120;
    const OPTIONS: &'static [&'static str] = &[
        "--count N  ragdolls (default 5, at most 40)",
        "--rain N   the ragdoll rain of the benchmarks, N ragdolls (at most 1000)",
    ];

    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let count = cli_number("--count", 1..=40)?.unwrap_or(COUNT);
        let rain = cli_number("--rain", 1..=1000)?;
        let (count, rain) = rain.map_or((count, false), |n| (n, true));
        let (world, scene) = build(ctx, count, rain)?;
        Ok(Self {
            ctx: ctx.clone(),
            count,
            rain,
            world,
            scene,
            balls: Vec::new(),
            report: RigidStepReport::default(),
            last_step: headless_frames,
            steps: 0,
            status: None,
        })
    }

    fn buffers(&self) -> RigidBuffers<'_> {
        RigidBuffers::of_world(&self.world)
    }

    fn camera(&self) -> OrbitCamera {
        if self.rain {
            let (rows, cols) = rain_grid(self.count);
            let deep = rows as f32 * RAIN_PITCH;
            let size = deep.max(cols as f32 * RAIN_PITCH);
            return OrbitCamera {
                target: Vec3::new(0.0, 0.2 * rows as f32 * RAIN_RISE + 1.0, 0.55 * deep),
                yaw: 0.9,
                pitch: 0.45,
                distance: 0.75 * size + 5.0,
                fov_y: 50f32.to_radians(),
            };
        }
        OrbitCamera {
            target: Vec3::new(0.0, 1.3, 0.5 * STEPS as f32 * RUN + 0.4),
            yaw: 0.95,
            pitch: 0.33,
            distance: 8.5,
            fov_y: 50f32.to_radians(),
        }
    }

    fn style(&self) -> RigidStyle {
        RigidStyle {
            // Each ragdoll in a hue of its own: its bones follow the ground and the stairs.
            groups: self.scene.dolls().first().map(|d| {
                (
                    d.bones[0].index(),
                    RAGDOLL_BONES,
                    self.scene.dolls().len() as u32,
                )
            }),
            ..RigidStyle::default()
        }
    }

    fn update(&mut self) -> Result<(), BoxError> {
        self.report = self.world.step(scenes::DT)?;
        self.steps += 1;
        if let Scene::Rain(rain) = &mut self.scene {
            if self.steps.is_multiple_of(RECYCLE_EVERY) {
                rain.recycle(&mut self.world)?;
            }
        }
        if Some(self.steps) == self.last_step {
            self.status = Some(self.read_status()?);
            self.report = self.world.read_report()?;
        }
        Ok(())
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        if !pressed {
            return Ok(());
        }
        if key_is(key, 'b') {
            self.throw_ball()?;
        } else if key_is(key, 'w') {
            for d in self.scene.dolls() {
                for &b in &d.bones {
                    self.world.wake(b)?;
                }
            }
        } else if key_is(key, 'r') {
            (self.world, self.scene) = build(&self.ctx, self.count, self.rain)?;
            self.balls.clear();
        }
        Ok(())
    }

    fn click(&mut self) -> Result<(), BoxError> {
        self.throw_ball()
    }

    fn count(&self) -> String {
        format!("{} ragdolls", self.scene.dolls().len())
    }

    fn title(&self) -> String {
        report_title(&self.report)
    }

    fn summary(&self) -> String {
        summary(self.status.as_deref(), &self.report)
    }
}

fn main() -> Result<(), BoxError> {
    rigid::run::<Ragdolls>()
}
