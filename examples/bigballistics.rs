//! The book's bigballistic demo (Millington, *Game Physics Engine Development*, §4.1, Fig 4.2;
//! catalogue §3.1) on the GPU rigid-body engine: the four weapons of the ballistic demo fire
//! rigid spheres (`scenes::rigid::fire`) down a range at three 2 m boxes
//! (`scenes::rigid::bigballistics`), each with a different impact.
//!
//! ```text
//! cargo run --release --example bigballistics                 # window; headless gets a PNG
//! cargo run --release --example bigballistics -- --headless --frames 300 --out bigballistics.png
//! ```
//!
//! In the window: keys 1–4 pick the shot (1 pistol, 2 artillery, 3 fireball, 4 laser), a click
//! or Space fires it from (0, 1.5, 0) along +z, C toggles the contact overlay, R rebuilds the
//! range (and resets the camera); drag to orbit, the wheel zooms, Esc quits. The title shows the
//! shot type, the shots in flight, the engine's counters and the time per step.
//!
//! Shots that leave the range (y < −5 or z > 200, as in the book) are removed; the positions are
//! read back twice a second for that (one blocking read, never per step). At most 16 shots live
//! at once (the book's pool); firing a 17th removes the oldest. Headless, a scripted salvo
//! (pistol, laser, fireball, artillery, pistol, pistol) is fired over the run so the last frame
//! shows the impacts.

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
use wgphys::rigid::{BodyHandle, RigidStepReport, RigidWorld};
use wgphys::scenes::{
    self,
    rigid::{fire, Shot},
};
use wgphys::Backend;
use winit::keyboard::{Key, NamedKey};

/// The book's pool of rounds.
const MAX_SHOTS: usize = 16;
/// Steps between the read-backs that find shots which left the range.
const SWEEP_EVERY: u32 = 30;
/// A shot is gone below this height or beyond this range (the book's bounds), m.
const FLOOR: f32 = -5.0;
const RANGE: f32 = 200.0;
/// The headless salvo: (fraction of the run, shot).
/// The last pistol round is still in flight at the end.
const SCRIPT: [(f32, Shot); 6] = [
    (0.03, Shot::Pistol),
    (0.20, Shot::Laser),
    (0.33, Shot::Fireball),
    (0.45, Shot::Artillery),
    (0.55, Shot::Pistol),
    (0.88, Shot::Pistol),
];

struct BigBallistics {
    ctx: GpuContext,
    world: RigidWorld,
    boxes: Vec<BodyHandle>,
    /// Live shots, oldest first.
    shots: Vec<BodyHandle>,
    shot: Shot,
    report: RigidStepReport,
    steps: u32,
    /// Headless: the salvo's steps, in order, still to fire.
    script: Vec<(u32, Shot)>,
    fired: u32,
    removed: u32,
}

impl BigBallistics {
    fn fire(&mut self, shot: Shot) -> Result<(), BoxError> {
        if self.shots.len() >= MAX_SHOTS {
            let old = self.shots.remove(0);
            self.world.remove_body(old)?;
            self.removed += 1;
        }
        self.shots.push(fire(&mut self.world, shot)?);
        self.fired += 1;
        Ok(())
    }

    /// Removes the shots that left the range (one blocking read of the bodies).
    fn sweep(&mut self) -> Result<(), BoxError> {
        if self.shots.is_empty() {
            return Ok(());
        }
        let bodies = self.world.read_bodies()?;
        let mut kept = Vec::with_capacity(self.shots.len());
        for h in std::mem::take(&mut self.shots) {
            let p = bodies[h.index() as usize].pos;
            if p.y < FLOOR || p.z > RANGE || p.x.abs() > RANGE {
                self.world.remove_body(h)?;
                self.removed += 1;
            } else {
                kept.push(h);
            }
        }
        self.shots = kept;
        Ok(())
    }

    fn name(shot: Shot) -> &'static str {
        match shot {
            Shot::Pistol => "pistol",
            Shot::Artillery => "artillery",
            Shot::Fireball => "fireball",
            Shot::Laser => "laser",
        }
    }
}

impl RigidDemo for BigBallistics {
    const NAME: &'static str = "bigballistics";
    const CONTROLS: &'static str = "1-4: pick the shot (pistol, artillery, fireball, laser); \
        click or Space: fire; C: contacts overlay; R: rebuild the range";
    const DEFAULT_FRAMES: u32 = 300;

    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let (world, boxes) = scenes::rigid::bigballistics(Backend::Gpu(ctx.clone()))?;
        let script = match headless_frames {
            Some(frames) => SCRIPT
                .iter()
                .map(|&(at, shot)| ((at * frames as f32) as u32, shot))
                .collect(),
            None => Vec::new(),
        };
        Ok(Self {
            ctx: ctx.clone(),
            world,
            boxes,
            shots: Vec::new(),
            shot: Shot::Pistol,
            report: RigidStepReport::default(),
            steps: 0,
            script,
            fired: 0,
            removed: 0,
        })
    }

    fn buffers(&self) -> RigidBuffers<'_> {
        RigidBuffers::of_world(&self.world)
    }

    fn camera(&self) -> OrbitCamera {
        // Behind and above the gun, looking down the range.
        OrbitCamera {
            target: Vec3::new(0.0, 1.2, 14.0),
            yaw: std::f32::consts::PI - 0.18,
            pitch: 0.17,
            distance: 17.0,
            fov_y: 40f32.to_radians(),
        }
    }

    fn lines(&self, out: &mut Vec<LineVertex>) {
        // The gun, and range marks every 5 m on the ground.
        let gun = [1.0, 0.85, 0.3, 1.0];
        let muzzle = Vec3::new(0.0, 1.5, 0.0);
        segment(out, Vec3::new(0.0, 0.0, 0.0), muzzle, gun);
        segment(out, muzzle - Vec3::Z * 0.8, muzzle + Vec3::Z * 0.4, gun);
        let mark = [0.55, 0.6, 0.7, 1.0];
        for k in 1..=8 {
            let z = 5.0 * k as f32;
            segment(out, Vec3::new(-2.5, 0.03, z), Vec3::new(2.5, 0.03, z), mark);
        }
    }

    fn update(&mut self) -> Result<(), BoxError> {
        while let Some(&(at, shot)) = self.script.first() {
            if at > self.steps {
                break;
            }
            self.script.remove(0);
            self.fire(shot)?;
        }
        self.report = self.world.step(scenes::DT)?;
        self.steps += 1;
        if self.steps.is_multiple_of(SWEEP_EVERY) {
            self.sweep()?;
        }
        Ok(())
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        if !pressed {
            return Ok(());
        }
        let pick = [
            ('1', Shot::Pistol),
            ('2', Shot::Artillery),
            ('3', Shot::Fireball),
            ('4', Shot::Laser),
        ];
        if let Some(&(_, shot)) = pick.iter().find(|(c, _)| key_is(key, *c)) {
            self.shot = shot;
        } else if matches!(key, Key::Named(NamedKey::Space)) {
            self.fire(self.shot)?;
        } else if key_is(key, 'r') {
            (self.world, self.boxes) =
                scenes::rigid::bigballistics(Backend::Gpu(self.ctx.clone()))?;
            self.shots.clear();
        }
        Ok(())
    }

    fn click(&mut self) -> Result<(), BoxError> {
        self.fire(self.shot)
    }

    fn count(&self) -> String {
        format!(
            "{} boxes, {} shots in flight",
            self.boxes.len(),
            self.shots.len()
        )
    }

    fn title(&self) -> String {
        format!("{} | {}", Self::name(self.shot), report_title(&self.report))
    }

    fn summary(&self) -> String {
        format!(
            "{} shots fired, {} removed (left the range or pool full), {} in flight; {}",
            self.fired,
            self.removed,
            self.shots.len(),
            report_title(&self.report)
        )
    }
}

fn main() -> Result<(), BoxError> {
    rigid::run::<BigBallistics>()
}
