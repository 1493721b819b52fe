//! The book's sailboat (catalogue §8, Fig 11.3) on the GPU rigid-body engine: a catamaran
//! (`scenes::sailing::catamaran`) floating on four buoyancy generators (fore and aft on each
//! hull), driven by a sail and steered by a rudder, both angled aerodynamic surfaces, on a
//! water plane (drawn only: the buoyancy generators are the water). The wind changes slowly and
//! randomly (`scenes::sailing::Wind`, recency weighted) and is drawn as an arrow above the boat;
//! the sail's generator gets the new wind every step (an upload of its record).
//!
//! ```text
//! cargo run --release --example sailboat                 # window; headless machines get a PNG
//! cargo run --release --example sailboat -- --headless --frames 300 --out sailboat.png
//! ```
//!
//! In the window: A/D turn the sail, Q/E the rudder (each by 0.1 rad a press, within ±1.4 and
//! ±0.6 rad), R starts again; drag to orbit, the wheel zooms, Esc quits.
//!
//! Headless, the sail is sheeted at 0.6 rad and the rudder straight; the run prints the boat's
//! position, speed, heel and how deep it floats.

mod common;
#[path = "common/lines.rs"]
mod lines;
#[path = "common/rigid/mod.rs"]
mod rigid;

use common::{BoxError, LineVertex, OrbitCamera};
use glam::{Quat, Vec3};
use lines::segment;
use rigid::{key_is, report_title, RigidBuffers, RigidDemo, RigidStyle};
use wgphys::gpu::GpuContext;
use wgphys::rigid::Body;
use wgphys::rigid::{RigidStepReport, RigidWorld};
use wgphys::scenes::sailing::{add_water, catamaran, Catamaran, Wind};
use wgphys::scenes::{self};
use wgphys::Backend;
use winit::keyboard::Key;

/// The wind at the start, m/s.
const WIND: Vec3 = Vec3::new(-2.0, 0.0, 5.0);

struct Sailboat {
    ctx: GpuContext,
    world: RigidWorld,
    boat: Catamaran,
    wind: Wind,
    /// The boat, read back every step (for the camera and the arrow).
    body: Body,
    sail: f32,
    rudder: f32,
    steps: u32,
    report: RigidStepReport,
}

fn build(ctx: &GpuContext) -> Result<(RigidWorld, Catamaran), BoxError> {
    let mut world = RigidWorld::new(Backend::Gpu(ctx.clone()), scenes::rigid::config(4))?;
    // Every step copies the bodies back asynchronously: `body(h)` reads the newest copy.
    world.set_body_tracking(true);
    add_water(&mut world)?;
    let boat = catamaran(&mut world, Vec3::ZERO, 0.0)?;
    world.set_generator_wind(boat.sail, WIND)?;
    Ok((world, boat))
}

impl Sailboat {
    fn set_controls(&mut self) -> Result<(), BoxError> {
        let b = self.boat.clone();
        self.world
            .set_generator_orientation(b.sail, Quat::from_rotation_y(self.sail))?;
        self.world
            .set_generator_orientation(b.rudder, Quat::from_rotation_y(self.rudder))?;
        Ok(())
    }
}

impl RigidDemo for Sailboat {
    const NAME: &'static str = "sailboat";
    const CONTROLS: &'static str = "A/D: turn the sail; Q/E: turn the rudder; R: start again";
    const DEFAULT_FRAMES: u32 = 300;

    fn new(ctx: &GpuContext, _headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let (world, boat) = build(ctx)?;
        let body = world.body(boat.body)?;
        let mut me = Self {
            ctx: ctx.clone(),
            world,
            boat,
            wind: Wind::new(WIND, 7),
            body,
            sail: 0.6,
            rudder: 0.0,
            steps: 0,
            report: RigidStepReport::default(),
        };
        me.set_controls()?;
        Ok(me)
    }

    fn buffers(&self) -> RigidBuffers<'_> {
        RigidBuffers::of_world(&self.world)
    }

    fn camera(&self) -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(0.0, 1.0, 0.0),
            yaw: 0.2,
            pitch: 0.3,
            distance: 13.0,
            fov_y: 50f32.to_radians(),
        }
    }

    fn follow(&self, orbit: &OrbitCamera) -> Option<OrbitCamera> {
        // The orbit camera the mouse moves, centred on the boat.
        Some(OrbitCamera {
            target: self.body.position + Vec3::Y,
            ..*orbit
        })
    }

    fn style(&self) -> RigidStyle {
        RigidStyle {
            background: Vec3::new(0.55, 0.7, 0.85),
            checker: 3.0,
            fog: 5.0,
            ..RigidStyle::default()
        }
    }

    fn lines(&self, out: &mut Vec<LineVertex>) {
        // The wind: a red arrow 3.5 m above the boat, 0.6 m per m/s, drawn a few times side by
        // side to be seen.
        let at = self.body.position + Vec3::Y * 3.5;
        let v = self.wind.now * 0.6;
        let dir = v.normalize_or_zero();
        let side = Vec3::Y.cross(dir) * 0.5;
        let red = [0.9, 0.1, 0.1, 1.0];
        for k in 0..4 {
            let off = Vec3::Y * (0.02 * k as f32);
            let (a, tip) = (at + off - v * 0.5, at + off + v * 0.5);
            segment(out, a, tip, red);
            segment(out, tip, tip - dir * 0.8 + side, red);
            segment(out, tip, tip - dir * 0.8 - side, red);
        }
        // The sail, a triangle from the mast to the boom's end, filled with lines, and the
        // rudder below the stern.
        let q = self.body.rotation;
        let p = self.body.position;
        let boom = q * (Quat::from_rotation_y(self.sail) * -Vec3::X) * 1.6;
        let foot = p + q * Vec3::new(0.3, 0.45, 0.0);
        let head = p + q * Vec3::new(0.3, 3.2, 0.0);
        let cloth = [1.0, 0.95, 0.8, 1.0];
        for k in 0..=24 {
            let u = k as f32 / 24.0;
            segment(out, head, foot + boom * u, cloth);
        }
        let rudder = q * (Quat::from_rotation_y(self.rudder) * -Vec3::X) * 0.6;
        let post = p + q * Vec3::new(-1.8, -0.1, 0.0);
        for k in 0..6 {
            let down = q * Vec3::new(0.0, -0.1 * k as f32, 0.0);
            segment(out, post + down, post + down + rudder, [1.0, 0.5, 0.1, 1.0]);
        }
    }

    fn update(&mut self) -> Result<(), BoxError> {
        let wind = self.wind.step(scenes::DT);
        self.world.set_generator_wind(self.boat.sail, wind)?;
        self.report = self.world.step(scenes::DT)?;
        self.steps += 1;
        self.body = self.world.body(self.boat.body)?;
        Ok(())
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        if !pressed {
            return Ok(());
        }
        if key_is(key, 'a') {
            self.sail = (self.sail + 0.1).min(1.4);
        } else if key_is(key, 'd') {
            self.sail = (self.sail - 0.1).max(-1.4);
        } else if key_is(key, 'q') {
            self.rudder = (self.rudder + 0.1).min(0.6);
        } else if key_is(key, 'e') {
            self.rudder = (self.rudder - 0.1).max(-0.6);
        } else if key_is(key, 'r') {
            (self.world, self.boat) = build(&self.ctx)?;
            self.wind = Wind::new(WIND, 7);
            self.body = self.world.body(self.boat.body)?;
        }
        self.set_controls()
    }

    fn count(&self) -> String {
        format!(
            "wind {:.1} m/s, boat {:.1} m/s, sail {:.1} rad, rudder {:.1} rad",
            self.wind.now.length(),
            self.body.linear_velocity.length(),
            self.sail,
            self.rudder
        )
    }

    fn title(&self) -> String {
        report_title(&self.report)
    }

    fn summary(&self) -> String {
        let up = self.body.rotation * Vec3::Y;
        format!(
            "boat at ({:.1}, {:.2}, {:.1}) m, {:.2} m/s, heeled {:.1} deg; wind {:.1} m/s",
            self.body.position.x,
            self.body.position.y,
            self.body.position.z,
            self.body.linear_velocity.length(),
            up.angle_between(Vec3::Y).to_degrees(),
            self.wind.now.length()
        )
    }
}

fn main() -> Result<(), BoxError> {
    rigid::run::<Sailboat>()
}
