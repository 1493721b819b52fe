//! Joints holding up a rope bridge and a swinging chain on the GPU rigid-body engine: a rope
//! bridge of 16 planks hinged end to end between two posts (`scenes::joints::rope_bridge`,
//! 10 m across, hanging 0.6 m), three crates dropped on it, and behind it a chain of 50 capsule
//! links (`scenes::joints::chain`, 0.15 m and 0.1 kg each, on ball joints) from a fixed point
//! with a 2 kg ball at its end, 20 links' mass, set swinging.
//!
//! ```text
//! cargo run --release --example chain                 # window; headless machines get a PNG
//! cargo run --release --example chain -- --headless --frames 90 --out chain.png
//! ```
//!
//! The world runs 8 substeps instead of 4. A joint gives way under a load F by F/(m·ω²), m the
//! effective mass of its row and ω the joint's stiffness, capped at half the substep rate; a
//! link joint of the chain has the mass of a link or less and carries the ball's weight and
//! its swing, so the chain is as long as the joints are stiff. Swinging this chain through
//! 10 s on the CPU twin, its end reached 1.9% past its rest length at 4 substeps, 0.47% at 8
//! and 0.12% at 16 (the stretch goes as 1/substeps²: the stiffness cap rises with the substep
//! rate). At 4 substeps the chain visibly pays out and takes up 14 cm on every swing; at 8 it
//! stays within 4 cm, which does not show at this distance, for half the cost of 16
//! (`tests/rigid_joints.rs` hangs the same chain at 8).
//!
//! In the window: B (or a click) drops a crate on the bridge, K kicks the ball sideways, J
//! toggles the joint overlay (each body's centre to its joints; a joint pulled apart shows
//! red), C the contact overlay, R rebuilds the scene (and resets the camera); drag to orbit,
//! the wheel zooms, Esc quits. The title shows the engine's counters and the time per step.
//!
//! Headless, the crates fall on the bridge and the chain swings; the run prints the chain's
//! length and the ball's swing, the bridge's lowest plank and the worst gap of any joint at
//! the last frame.

mod common;
#[path = "common/joint_state.rs"]
mod joint_state;
#[path = "common/rigid/mod.rs"]
mod rigid;

use common::{BoxError, OrbitCamera};
use glam::{Quat, Vec3, Vec4Swizzles};
use joint_state::{pose, summary, worst_error};
use rigid::{key_is, report_title, RigidBuffers, RigidDemo, RigidStyle};
use wgphys::gpu::GpuContext;
use wgphys::rigid::types::GpuBody;
use wgphys::rigid::RigidStepReport;
use wgphys::rigid::{BodyHandle, Collider, JointHandle, RigidBody, RigidConfig, RigidWorld};
use wgphys::scenes::joints::{chain, rope_bridge, Chain, RopeBridge};
use wgphys::scenes::{self, rigid::add_box, rigid::add_ground};
use wgphys::Backend;
use winit::keyboard::Key;

/// Substeps per step (see the module's docs).
const SUBSTEPS: u32 = 8;
/// The bridge: the middle of the line between the ends, span (m), planks, a plank's mass
/// (kg), how far the middle hangs below the ends (m).
const BRIDGE: Vec3 = Vec3::new(0.0, 3.0, 0.0);
const SPAN: f32 = 10.0;
const PLANKS: u32 = 16;
const PLANK_MASS: f32 = 10.0;
const SAG: f32 = 0.6;
/// The chain: its fixed point, links, a link's length (m) and mass (kg), the ball's mass (kg),
/// and the speed (m/s) the ball starts swinging at.
const TOP: Vec3 = Vec3::new(0.0, 9.5, -3.5);
const LINKS: u32 = 50;
const LINK: f32 = 0.15;
const LINK_MASS: f32 = 0.1;
const WEIGHT: f32 = 2.0;
const SWING: f32 = 5.0;
/// Crates: half size (m), and how many may be on the bridge at once.
const CRATE: f32 = 0.2;
const MAX_CRATES: usize = 10;

struct ChainDemo {
    ctx: GpuContext,
    world: RigidWorld,
    bridge: RopeBridge,
    chain: Chain,
    crates: Vec<BodyHandle>,
    /// Crates dropped so far (where the next one falls).
    dropped: u32,
    report: RigidStepReport,
    /// Headless: the step on which to read the world back, and what it read.
    last_step: Option<u32>,
    steps: u32,
    status: Option<String>,
}

/// A crate over the bridge, the `k`-th dropped: along the deck by a fixed stride, so they
/// spread over it.
fn crate_at(k: u32) -> Vec3 {
    let u = (0.37 + 0.618_034 * k as f32).fract() - 0.5;
    BRIDGE + Vec3::new(0.8 * SPAN * u, 1.0, 0.2 * ((k % 3) as f32 - 1.0))
}

impl ChainDemo {
    fn build(ctx: &GpuContext) -> Result<(RigidWorld, RopeBridge, Chain), BoxError> {
        let config = RigidConfig {
            substeps: SUBSTEPS,
            ..scenes::rigid::config(128)
        };
        let mut world = RigidWorld::new(Backend::Gpu(ctx.clone()), config)?;
        add_ground(&mut world)?;
        let bridge = rope_bridge(&mut world, BRIDGE, SPAN, PLANKS, PLANK_MASS, SAG)?;
        // A beam over the chain's fixed point, clear of the first link's round end.
        world.add_body(
            RigidBody::fixed().position(TOP + Vec3::Y * (0.2 * LINK + 0.12)),
            &[Collider::cuboid(Vec3::new(0.6, 0.1, 0.1))],
        )?;
        let chain = chain(&mut world, TOP, LINKS, LINK, LINK_MASS, WEIGHT)?;
        // Swinging as one body about the fixed point (about z, across the view), the ball at
        // SWING m/s.
        let bodies = world.read_bodies()?;
        let ball = chain.weight.ok_or("the chain has a weight")?;
        let reach = bodies[ball.index() as usize].pos.xyz().distance(TOP);
        let spin = Vec3::Z * (SWING / reach);
        for &h in chain.links.iter().chain([&ball]) {
            let p = bodies[h.index() as usize].pos.xyz();
            world.set_linear_velocity(h, spin.cross(p - TOP))?;
            world.set_angular_velocity(h, spin)?;
        }
        Ok((world, bridge, chain))
    }

    fn drop_crate(&mut self) -> Result<(), BoxError> {
        if self.crates.len() >= MAX_CRATES {
            let old = self.crates.remove(0);
            self.world.remove_body(old)?;
        }
        let at = crate_at(self.dropped);
        let turn = Quat::from_rotation_y(0.4 * self.dropped as f32);
        let body = add_box(&mut self.world, at, Vec3::splat(CRATE), turn)?;
        self.crates.push(body);
        self.dropped += 1;
        Ok(())
    }

    fn kick(&mut self) -> Result<(), BoxError> {
        if let Some(ball) = self.chain.weight {
            let v = self.world.read_body(ball)?.linear_velocity;
            self.world
                .set_linear_velocity(ball, v + Vec3::new(0.0, 0.0, 4.0))?;
        }
        Ok(())
    }

    /// What the headless run prints: the chain's length and swing, the bridge's lowest plank,
    /// the worst joint gap.
    fn read_status(&mut self) -> Result<String, BoxError> {
        let bodies = self.world.read_bodies()?;
        let joints = self.world.read_joints()?;
        let worst = |handles: &[JointHandle]| worst_error(&bodies, &joints, handles.to_vec()).0;
        let body = |h: BodyHandle| -> &GpuBody { &bodies[h.index() as usize] };
        let ball = body(self.chain.weight.ok_or("the chain has a weight")?);
        // The chain's length: from the fixed point along the joints' anchors on the links
        // (each link's lower end, the last one the ball's joint).
        let mut length = 0.0;
        let mut from = TOP;
        for j in &self.chain.joints[1..] {
            let jt = &joints[j.index() as usize];
            let (p, q) = pose(&bodies, jt.body_a);
            let to = p + Quat::from_vec4(q) * jt.anchor_a.truncate();
            length += from.distance(to);
            from = to;
        }
        let off = ball.pos.xyz() - TOP;
        let angle = off.x.atan2(-off.y).to_degrees();
        let lowest = self
            .bridge
            .planks
            .iter()
            .map(|&p| body(p).pos.y)
            .fold(f32::INFINITY, f32::min);
        Ok(format!(
            "chain: {:.4} m along its joints (rest {:.2} m), ball {angle:.1}° from the vertical \
             at {:.2} m/s, worst link joint gap {:.2} mm; bridge: lowest plank centre y = \
             {lowest:.3} m (ends at {:.1} m), worst hinge gap {:.2} mm; {} crates",
            length,
            LINKS as f32 * LINK,
            ball.lin_vel.xyz().length(),
            worst(&self.chain.joints) * 1e3,
            BRIDGE.y,
            worst(&self.bridge.joints) * 1e3,
            self.crates.len()
        ))
    }
}

impl RigidDemo for ChainDemo {
    const NAME: &'static str = "chain";
    const CONTROLS: &'static str = "B or click: drop a crate on the bridge; K: kick the ball; \
         J: joint overlay; C: contacts overlay; R: rebuild";
    const DEFAULT_FRAMES: u32 = 90;

    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let (world, bridge, chain) = Self::build(ctx)?;
        let mut demo = Self {
            ctx: ctx.clone(),
            world,
            bridge,
            chain,
            crates: Vec::new(),
            dropped: 0,
            report: RigidStepReport::default(),
            last_step: headless_frames,
            steps: 0,
            status: None,
        };
        for _ in 0..3 {
            demo.drop_crate()?;
        }
        Ok(demo)
    }

    fn buffers(&self) -> RigidBuffers<'_> {
        RigidBuffers::of_world(&self.world)
    }

    fn camera(&self) -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(0.0, 4.3, -1.5),
            yaw: 0.35,
            pitch: 0.3,
            distance: 16.5,
            fov_y: 50f32.to_radians(),
        }
    }

    fn style(&self) -> RigidStyle {
        RigidStyle {
            checker: 2.0,
            // The chain's links and ball in one hue.
            groups: Some((self.chain.links[0].index(), LINKS + 1, 1)),
            ..RigidStyle::default()
        }
    }

    fn update(&mut self) -> Result<(), BoxError> {
        self.report = self.world.step(scenes::DT)?;
        self.steps += 1;
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
            self.drop_crate()?;
        } else if key_is(key, 'k') {
            self.kick()?;
        } else if key_is(key, 'r') {
            (self.world, self.bridge, self.chain) = Self::build(&self.ctx)?;
            self.crates.clear();
            for _ in 0..3 {
                self.drop_crate()?;
            }
        }
        Ok(())
    }

    fn click(&mut self) -> Result<(), BoxError> {
        self.drop_crate()
    }

    fn count(&self) -> String {
        format!(
            "{} planks, {} links, {} crates",
            self.bridge.planks.len(),
            self.chain.links.len(),
            self.crates.len()
        )
    }

    fn title(&self) -> String {
        report_title(&self.report)
    }

    fn summary(&self) -> String {
        summary(self.status.as_deref(), &self.report)
    }
}

fn main() -> Result<(), BoxError> {
    rigid::run::<ChainDemo>()
}
