//! The blob of the book's §8.2.3 (Millington, *Game Physics Engine Development*) on the GPU:
//! five particles held together by damped springs and slack cables, under reduced gravity,
//! colliding with a row of tilted box platforms (static colliders) and the ground. The player
//! pushes the blob's head particle around.
//!
//! ```text
//! cargo run --release --example blob                 # window; headless machines get a PNG
//! cargo run --release --example blob -- --headless --frames 240 --out blob.png
//! ```
//!
//! In the window: left/right arrows (or A/D) push the head sideways, up (or W / Space) pushes it
//! upwards to hop onto the next platform, down (or S) pushes it down; drag with the mouse to
//! orbit, the wheel zooms, R resets the camera, Esc quits.
//!
//! The push is the head particle's own acceleration (`AggregateWorld::set_acceleration`), set
//! whenever the keys change. Springs are drawn as lines placed in a vertex shader from the engine's positions
//! buffer, the platforms as box outlines from the world's colliders, so no frame reads anything
//! back. Headless (no display, or `--headless`), a scripted player pushes the blob right and
//! hops it along the platforms; the last frame goes to `blob.png`.

#[path = "common/aggregate/mod.rs"]
mod aggregate;
mod common;
#[path = "common/lines.rs"]
mod lines;
#[path = "common/aggregate/rig.rs"]
mod rig;

use aggregate::{AggregateDemo, Attach, LinkLine};
use common::{BoxError, LineVertex, OrbitCamera};
use glam::Vec3;
use lines::segment;
use rig::{ground_grid, Held};
use wgphys::aggregate::{AggregateWorld, ParticleId};
use wgphys::gpu::GpuContext;
use wgphys::particles::{ColliderShape, ParticleCollider};
use wgphys::scenes;
use wgphys::Backend;
use winit::keyboard::Key;

/// Sideways push on the head, m/s² (the blob's gravity is 0.4 g = 3.9 m/s²).
const PUSH_SIDEWAYS: f32 = 40.0;
/// Upward push on the head, m/s² (beats gravity on the whole blob's fifth share).
const PUSH_UP: f32 = 80.0;
/// Downward push, m/s².
const PUSH_DOWN: f32 = 20.0;

/// The headless player's hops: (start, end of the upward push, end of the sideways push), s.
const HOPS: &[(f32, f32, f32)] = &[(0.8, 1.25, 1.7), (2.1, 2.55, 3.0)];

/// The head's push for the held keys (up and down push vertically).
fn push(held: Held) -> Vec3 {
    let (sideways, down) = held.axes();
    let vertical = if down < 0.0 {
        PUSH_UP
    } else if down > 0.0 {
        -PUSH_DOWN
    } else {
        0.0
    };
    Vec3::new(sideways * PUSH_SIDEWAYS, vertical, 0.0)
}

struct Blob {
    world: AggregateWorld,
    particles: Vec<ParticleId>,
    held: Held,
    /// The acceleration the head is pushed with now.
    push: Vec3,
    /// `Some(frames)` when running headless: the scripted player.
    auto: Option<u32>,
    steps: u32,
}

impl Blob {
    /// The scripted player of headless runs: let the blob land, then hop right onto the next
    /// platforms (times in seconds).
    fn script(&self) -> Held {
        let t = self.steps as f32 * scenes::DT;
        let mut held = Held::default();
        for &(start, hop_end, end) in HOPS {
            if (start..end).contains(&t) {
                held.right = true;
                held.forward = t < hop_end;
            }
        }
        held
    }

    /// Makes the head's push match the keys: the head's own acceleration is the push.
    fn apply_push(&mut self) -> wgphys::Result<()> {
        let want = push(self.held);
        if want != self.push {
            self.world.set_acceleration(self.particles[0], want)?;
            self.push = want;
        }
        Ok(())
    }
}

impl AggregateDemo for Blob {
    const NAME: &'static str = "blob";
    const CONTROLS: &'static str =
        "left/right or A/D: push the head sideways; up, W or Space: push it up; down or S: down";
    // The scripted hops end at 3 s; the blob has settled on its platform by 5 s.
    const DEFAULT_FRAMES: u32 = 300;

    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let scene = scenes::aggregate::blob(Backend::Gpu(ctx.clone()))?;
        Ok(Self {
            world: scene.world,
            particles: scene.particles,
            held: Held::default(),
            push: Vec3::ZERO,
            auto: headless_frames,
            steps: 0,
        })
    }

    fn world(&self) -> &AggregateWorld {
        &self.world
    }

    fn camera(&self) -> OrbitCamera {
        // The platforms run from x = -19.6 to 19.6 at heights 1 to 2.5.
        OrbitCamera {
            target: Vec3::new(0.0, 1.6, 0.0),
            yaw: 0.0,
            pitch: 0.3,
            distance: 31.0,
            fov_y: 45f32.to_radians(),
        }
    }

    fn scenery(&self) -> Vec<LineVertex> {
        let mut v = Vec::new();
        ground_grid(&mut v, 0.0, 22.0, 2.0, [0.06, 0.07, 0.09, 1.0]);
        for c in &self.world.config().colliders {
            box_outline(&mut v, c, [0.85, 0.8, 0.6, 1.0]);
            // A post under each platform, so its height reads against the ground.
            if let ColliderShape::Box { centre, .. } = c.shape {
                let foot = Vec3::new(centre.x, 0.0, centre.z);
                segment(&mut v, centre, foot, [0.3, 0.3, 0.3, 1.0]);
            }
        }
        v
    }

    fn links(&self) -> Vec<LinkLine> {
        // Every pair is joined by a damped spring and a cable (`scenes::aggregate::blob`).
        let colour = [0.55, 1.0, 0.6, 0.8];
        let p = &self.particles;
        let mut out = Vec::new();
        for i in 0..p.len() {
            for j in i + 1..p.len() {
                out.push([
                    Attach::particle(p[i], 2.0, colour),
                    Attach::particle(p[j], 2.0, colour),
                ]);
            }
        }
        out
    }

    fn markers(&self) -> Vec<Attach> {
        // The head, marked by a smaller yellow ball inside it.
        vec![Attach::particle(
            self.particles[0],
            0.42,
            [1.0, 0.85, 0.2, 1.0],
        )]
    }

    fn step(&mut self) -> wgphys::Result<()> {
        if self.auto.is_some() {
            self.held = self.script();
        }
        self.apply_push()?;
        self.steps += 1;
        self.world.step(scenes::DT).map(|_| ())
    }

    fn key(&mut self, key: &Key, pressed: bool) -> wgphys::Result<()> {
        self.held.set(key, pressed);
        Ok(())
    }

    fn release_keys(&mut self) {
        self.held = Held::default();
    }

    fn title(&self) -> String {
        let a = push(self.held);
        format!("push ({:.0}, {:.0}) m/s² on the head", a.x, a.y)
    }

    fn summary(&self) -> String {
        // One blocking read at the end of the run (frames never read back).
        match self.world.read_snapshot() {
            Ok(s) => {
                let n = self.particles.len() as f32;
                let centre = self
                    .particles
                    .iter()
                    .map(|p| s.pos[p.index() as usize].truncate())
                    .sum::<Vec3>()
                    / n;
                format!(
                    "blob centre at ({:.2}, {:.2}, {:.2}) after {} steps",
                    centre.x, centre.y, centre.z, self.steps
                )
            }
            Err(e) => format!("could not read the blob back: {e}"),
        }
    }
}

/// Appends the twelve edges of a box collider (an oriented box; other shapes add nothing).
fn box_outline(out: &mut Vec<LineVertex>, collider: &ParticleCollider, colour: [f32; 4]) {
    if let ColliderShape::Box {
        centre,
        half_extents,
        rotation,
    } = collider.shape
    {
        let corner = |i: u32| {
            let s = Vec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            );
            centre + rotation * (s * half_extents)
        };
        for i in 0..8u32 {
            for bit in [1u32, 2, 4] {
                if i & bit == 0 {
                    segment(out, corner(i), corner(i | bit), colour);
                }
            }
        }
    }
}

fn main() -> Result<(), BoxError> {
    aggregate::run::<Blob>()
}
