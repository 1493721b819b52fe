//! The book's flight simulator (catalogue §8, Fig 11.1) on the GPU rigid-body engine: a model
//! aircraft whose every force is an engine force generator (`scenes::flight::aircraft`: two
//! wings with control surfaces, a tailplane, a rudder and a propulsion thrust), flying over a
//! ground it can land on. A follow camera hangs behind it on a spring (host side: the camera's
//! eye is pulled towards a point behind and above the aircraft, critically damped).
//!
//! ```text
//! cargo run --release --example flightsim                # window; headless machines get a PNG
//! cargo run --release --example flightsim -- --headless --frames 240 --out flightsim.png
//! ```
//!
//! In the window: W/S pitch (both wings' controls alike), A/D roll (the wings in opposition),
//! Q/E yaw (the rudder), Z/X throttle down/up, R starts again; Esc quits. Each control goes
//! back to 0 when its key is released; a changed control is an upload of that generator's
//! record (and wakes the aircraft).
//!
//! Headless, the aircraft cruises from 6 m up, banked for a second; the run prints its height, speed and the frame it
//! touched the ground (if it did).

mod common;
#[path = "common/lines.rs"]
mod lines;
#[path = "common/rigid/mod.rs"]
mod rigid;

use common::{BoxError, LineVertex, OrbitCamera};
use glam::Vec3;
use lines::segment;
use rigid::{key_is, report_title, RigidBuffers, RigidDemo, RigidStyle};
use wgphys::gpu::GpuContext;
use wgphys::rigid::Body;
use wgphys::rigid::{RigidStepReport, RigidWorld};
use wgphys::scenes::flight::{aircraft, Aircraft};
use wgphys::scenes::{self, rigid::add_ground};
use wgphys::Backend;
use winit::keyboard::Key;

/// Where the aircraft starts, and how fast (m/s along −x).
const START: Vec3 = Vec3::new(40.0, 6.0, 0.0);
const SPEED: f32 = 10.0;
/// The throttle at the start: about level flight (thrust against the damping at 10 m/s, where
/// the lift of the wings and tail, 3·v N, carries the 24.5 N aircraft).
const CRUISE: f32 = 0.55;
/// The camera spring's natural frequency (rad/s); critically damped.
const CAMERA_OMEGA: f32 = 3.0;

struct Flight {
    ctx: GpuContext,
    world: RigidWorld,
    plane: Aircraft,
    /// The aircraft's state, read back every step for the camera.
    body: Body,
    /// Keys held: pitch, roll, yaw (−1, 0, 1 each).
    held: [f32; 3],
    throttle: f32,
    /// The camera's eye and its velocity (the host-side spring).
    eye: Vec3,
    eye_vel: Vec3,
    headless: bool,
    steps: u32,
    landed: Option<u32>,
    report: RigidStepReport,
}

fn build(ctx: &GpuContext) -> Result<(RigidWorld, Aircraft), BoxError> {
    let mut world = RigidWorld::new(Backend::Gpu(ctx.clone()), scenes::rigid::config(4))?;
    // Every step copies the bodies back asynchronously: `body(h)` reads the newest copy.
    world.set_body_tracking(true);
    add_ground(&mut world)?;
    let plane = aircraft(&mut world, START, SPEED)?;
    Ok((world, plane))
}

impl Flight {
    /// Where the camera wants to be: 14 m behind the aircraft along its flight path and 4 m up.
    fn wanted_eye(&self) -> Vec3 {
        let v = self.body.linear_velocity;
        let back = if v.length() > 1.0 {
            -v.normalize()
        } else {
            self.body.rotation * Vec3::X
        };
        self.body.position + 14.0 * back + Vec3::Y * 4.0
    }
}

impl RigidDemo for Flight {
    const NAME: &'static str = "flightsim";
    const CONTROLS: &'static str =
        "W/S: pitch; A/D: roll; Q/E: yaw (rudder); Z/X: throttle; R: start again";
    const DEFAULT_FRAMES: u32 = 240;

    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let (world, plane) = build(ctx)?;
        let body = world.body(plane.body)?;
        let mut me = Self {
            ctx: ctx.clone(),
            world,
            plane,
            body,
            held: [0.0; 3],
            throttle: CRUISE,
            eye: Vec3::ZERO,
            eye_vel: Vec3::ZERO,
            headless: headless_frames.is_some(),
            steps: 0,
            landed: None,
            report: RigidStepReport::default(),
        };
        me.eye = me.wanted_eye();
        Ok(me)
    }

    fn buffers(&self) -> RigidBuffers<'_> {
        RigidBuffers::of_world(&self.world)
    }

    fn camera(&self) -> OrbitCamera {
        OrbitCamera {
            target: START,
            yaw: 0.0,
            pitch: 0.3,
            distance: 15.0,
            fov_y: 55f32.to_radians(),
        }
    }

    fn follow(&self, orbit: &OrbitCamera) -> Option<OrbitCamera> {
        let target = self.body.position;
        let d = self.eye - target;
        let distance = d.length().max(1.0);
        Some(OrbitCamera {
            target,
            yaw: d.x.atan2(d.z),
            pitch: (d.y / distance).asin(),
            distance,
            fov_y: orbit.fov_y,
        })
    }

    fn style(&self) -> RigidStyle {
        RigidStyle {
            background: Vec3::new(0.45, 0.62, 0.85),
            checker: 4.0,
            fog: 8.0,
            ..RigidStyle::default()
        }
    }

    fn lines(&self, out: &mut Vec<LineVertex>) {
        // The flight path's direction and the way down to the ground.
        let p = self.body.position;
        segment(
            out,
            p,
            p + self.body.linear_velocity * 0.3,
            [1.0, 0.9, 0.2, 1.0],
        );
        segment(out, p, Vec3::new(p.x, 0.02, p.z), [0.2, 0.2, 0.2, 1.0]);
    }

    fn update(&mut self) -> Result<(), BoxError> {
        let [mut pitch, mut roll, yaw] = self.held;
        if self.headless {
            // Nose down a little against the climb the lift gives at full speed, with a bank
            // and back.
            let t = self.steps as f32 * scenes::DT;
            pitch = 0.0;
            roll = if (1.0..2.0).contains(&t) { 0.8 } else { 0.0 };
        }
        self.plane
            .set_controls(&mut self.world, pitch, roll, yaw, self.throttle)?;
        self.report = self.world.step(scenes::DT)?;
        self.steps += 1;
        // The newest copy of the body (a frame or two old, never a stall), for the camera and
        // the overlay.
        self.body = self.world.body(self.plane.body)?;
        if self.landed.is_none() && self.body.position.y < 0.6 {
            self.landed = Some(self.steps);
        }
        // The camera spring: x'' = ω²(wanted − x) − 2ω·x', semi-implicit.
        let dt = scenes::DT;
        let w = CAMERA_OMEGA;
        let acc = w * w * (self.wanted_eye() - self.eye) - 2.0 * w * self.eye_vel;
        self.eye_vel += acc * dt;
        self.eye += self.eye_vel * dt;
        Ok(())
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        let v = if pressed { 1.0 } else { 0.0 };
        for (c, axis, sign) in [
            ('w', 0, -1.0),
            ('s', 0, 1.0),
            ('a', 1, -1.0),
            ('d', 1, 1.0),
            ('q', 2, -1.0),
            ('e', 2, 1.0),
        ] {
            if key_is(key, c) {
                self.held[axis] = sign * v;
            }
        }
        if pressed && key_is(key, 'z') {
            self.throttle = (self.throttle - 0.1).max(0.0);
        } else if pressed && key_is(key, 'x') {
            self.throttle = (self.throttle + 0.1).min(1.0);
        } else if pressed && key_is(key, 'r') {
            (self.world, self.plane) = build(&self.ctx)?;
            self.body = self.world.body(self.plane.body)?;
            self.eye = self.wanted_eye();
            self.eye_vel = Vec3::ZERO;
            self.landed = None;
        }
        Ok(())
    }

    fn release_keys(&mut self) {
        self.held = [0.0; 3];
    }

    fn count(&self) -> String {
        format!(
            "throttle {:.0}%, {:.1} m up, {:.1} m/s",
            100.0 * self.throttle,
            self.body.position.y,
            self.body.linear_velocity.length()
        )
    }

    fn title(&self) -> String {
        report_title(&self.report)
    }

    fn summary(&self) -> String {
        let landed = match self.landed {
            Some(s) => format!("touched the ground at frame {s}"),
            None => "still flying".into(),
        };
        format!(
            "aircraft at {:.1} m up, {:.1} m/s, flew {:.1} m along -x; {landed}",
            self.body.position.y,
            self.body.linear_velocity.length(),
            START.x - self.body.position.x
        )
    }
}

fn main() -> Result<(), BoxError> {
    rigid::run::<Flight>()
}
