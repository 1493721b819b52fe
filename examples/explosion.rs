//! The book's explosion demo (Millington, *Game Physics Engine Development*, §17.2.3,
//! Fig 17.7–17.8; catalogue §14.3) on the GPU rigid-body engine: a field of crates and balls
//! (`scenes::rigid::explosion_scene`) and the three-phase [`Explosion`] at its centre: a short
//! implosion pulling inwards, the concussion shell expanding at 20 m/s and pushing at a fixed
//! off-centre point of each body (so they spin), then the long, gentle convection chimney that
//! lifts what is above the blast.
//!
//! ```text
//! cargo run --release --example explosion                 # window; headless machines get a PNG
//! cargo run --release --example explosion -- --headless --frames 45 --out explosion.png
//! ```
//!
//! In the window: E or Space detonates at the centre (again: a new explosion replaces the
//! running one), C toggles the contact overlay, R rebuilds the field (and resets the camera);
//! drag to orbit, the wheel zooms, Esc quits. While the explosion runs, rings on the ground show
//! the shock front (orange) and the chimney (blue). The title shows the time since detonation,
//! the phases still running, the engine's counters and the time per step.
//!
//! Headless, the explosion goes off on frame 20 and the last frame (45 by default, 0.4 s later)
//! catches the bodies in the air.

mod common;
#[path = "common/lines.rs"]
mod lines;
#[path = "common/rigid/mod.rs"]
mod rigid;

use common::{BoxError, LineVertex, OrbitCamera};
use glam::Vec3;
use lines::segment;
use rigid::{key_is, report_title, RigidBuffers, RigidDemo};
use wgphys::gpu::GpuContext;
use wgphys::rigid::{BodyHandle, Explosion, RigidStepReport, RigidWorld};
use wgphys::scenes::{self, rigid::explosion_scene};
use wgphys::Backend;
use winit::keyboard::{Key, NamedKey};

/// Where the explosion goes off: under the middle of the field, so the shell pushes upwards as
/// well as outwards.
const DETONATION: Vec3 = Vec3::new(0.0, -0.5, 0.0);
/// Headless: the frame on which it goes off.
const DETONATE_AT: u32 = 20;

struct ExplosionDemo {
    ctx: GpuContext,
    world: RigidWorld,
    bodies: Vec<BodyHandle>,
    explosion: Explosion,
    /// Seconds since detonation, while one runs.
    since: Option<f32>,
    report: RigidStepReport,
    steps: u32,
    headless: bool,
}

impl ExplosionDemo {
    fn detonate(&mut self) -> Result<(), BoxError> {
        self.world.set_explosion(Some(self.explosion))?;
        self.since = Some(0.0);
        Ok(())
    }

    /// The phases still running at `t` seconds.
    fn phases(&self, t: f32) -> String {
        let e = &self.explosion;
        let running: Vec<&str> = [
            (e.implosion_duration, "implosion"),
            (e.concussion_duration, "shock wave"),
            (e.convection_duration, "convection"),
        ]
        .iter()
        .filter(|(until, _)| t < *until)
        .map(|(_, name)| *name)
        .collect();
        if running.is_empty() {
            "over".into()
        } else {
            running.join(" + ")
        }
    }
}

/// A horizontal circle of radius `r` around `centre` as line segments.
fn circle(out: &mut Vec<LineVertex>, centre: Vec3, r: f32, colour: [f32; 4]) {
    const N: usize = 64;
    let at = |k: usize| {
        let a = k as f32 / N as f32 * std::f32::consts::TAU;
        centre + r * Vec3::new(a.cos(), 0.0, a.sin())
    };
    for k in 0..N {
        segment(out, at(k), at(k + 1), colour);
    }
}

impl RigidDemo for ExplosionDemo {
    const NAME: &'static str = "explosion";
    const CONTROLS: &'static str =
        "E or Space: detonate at the centre; C: contacts overlay; R: rebuild the field";
    const DEFAULT_FRAMES: u32 = 45;

    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let (world, bodies) = explosion_scene(Backend::Gpu(ctx.clone()))?;
        Ok(Self {
            ctx: ctx.clone(),
            world,
            bodies,
            explosion: Explosion::at(DETONATION),
            since: None,
            report: RigidStepReport::default(),
            steps: 0,
            headless: headless_frames.is_some(),
        })
    }

    fn buffers(&self) -> RigidBuffers<'_> {
        RigidBuffers::of_world(&self.world)
    }

    fn camera(&self) -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(0.0, 1.5, 0.0),
            yaw: 0.6,
            pitch: 0.4,
            distance: 23.0,
            fov_y: 50f32.to_radians(),
        }
    }

    fn lines(&self, out: &mut Vec<LineVertex>) {
        let Some(t) = self.since else {
            return;
        };
        let e = &self.explosion;
        let ground = Vec3::new(e.detonation.x, 0.02, e.detonation.z);
        if t < e.concussion_duration {
            // Where the front meets the ground.
            let r = e.shockwave_speed * t;
            let h = e.detonation.y;
            if r > h.abs() {
                let on_ground = (r * r - h * h).sqrt();
                circle(out, ground, on_ground, [1.0, 0.55, 0.15, 1.0]);
            }
        }
        if t < e.convection_duration {
            circle(out, ground, e.chimney_radius, [0.35, 0.6, 1.0, 1.0]);
        }
    }

    fn update(&mut self) -> Result<(), BoxError> {
        if self.headless && self.steps == DETONATE_AT {
            self.detonate()?;
        }
        self.report = self.world.step(scenes::DT)?;
        self.steps += 1;
        if let Some(t) = &mut self.since {
            *t += scenes::DT;
        }
        Ok(())
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        if !pressed {
            return Ok(());
        }
        if key_is(key, 'e') || matches!(key, Key::Named(NamedKey::Space)) {
            self.detonate()?;
        } else if key_is(key, 'r') {
            (self.world, self.bodies) = explosion_scene(Backend::Gpu(self.ctx.clone()))?;
            self.since = None;
        }
        Ok(())
    }

    fn click(&mut self) -> Result<(), BoxError> {
        self.detonate()
    }

    fn count(&self) -> String {
        format!("{} bodies", self.bodies.len())
    }

    fn title(&self) -> String {
        let phase = match self.since {
            Some(t) => format!("t = {t:.2} s: {}", self.phases(t)),
            None => "press E to detonate".into(),
        };
        format!("{phase} | {}", report_title(&self.report))
    }

    fn summary(&self) -> String {
        let phase = match self.since {
            Some(t) => format!("{:.2} s after detonation ({})", t, self.phases(t)),
            None => "not detonated (fewer frames than the detonation frame)".into(),
        };
        format!(
            "{} bodies, {phase}; {}",
            self.bodies.len(),
            report_title(&self.report)
        )
    }
}

fn main() -> Result<(), BoxError> {
    rigid::run::<ExplosionDemo>()
}
