//! The tilting platform of the book's Fig 8.2 (Millington, *Game Physics Engine Development*,
//! §8.2.2) on the GPU: six particles joined by fifteen rods into a rigid frame that pivots on
//! two fixed particles, with a 10 kg mass moved along its top. The mass is spread bilinearly
//! over the four top particles (their inverse masses change; `scenes::aggregate::load_deck`),
//! so the frame tips towards the loaded end.
//!
//! ```text
//! cargo run --release --example platform                 # window; headless machines get a PNG
//! cargo run --release --example platform -- --headless --frames 240 --out platform.png
//! ```
//!
//! In the window: arrow keys or A/D move the mass along the platform, W/S (or up/down) across
//! it; drag with the mouse to orbit, the wheel zooms, R resets the camera, Esc quits. The title
//! shows where the mass is and the time per step (GPU work included).
//!
//! Rods and the mass are placed in a vertex shader from the engine's positions buffer, so no
//! frame reads anything back. Headless (no display, or `--headless`), the mass travels from the
//! left end to the right end and the last frame goes to `platform.png`.

#[path = "common/aggregate/mod.rs"]
mod aggregate;
mod common;
#[path = "common/aggregate/deck.rs"]
mod deck;
#[path = "common/lines.rs"]
mod lines;
#[path = "common/aggregate/rig.rs"]
mod rig;

use aggregate::{AggregateDemo, Attach, LinkLine};
use common::{BoxError, LineVertex, OrbitCamera};
use deck::deck_weights;
use glam::Vec3;
use rig::{ground_grid, Held};
use wgphys::aggregate::{AggregateWorld, Link, ParticleId};
use wgphys::gpu::GpuContext;
use wgphys::scenes::{self, aggregate::load_deck};
use wgphys::Backend;
use winit::keyboard::Key;

/// The x of the platform's two columns of movable particles (2, 3 at -3; 4, 5 at +4).
const XS: [f32; 2] = [-3.0, 4.0];
/// The particles' own mass, kg (the scene's inverse mass 1).
const BASE_MASS: f32 = 1.0;
/// The extra mass, kg.
const EXTRA_MASS: f32 = 10.0;
/// Drawn radius of the mass, m.
const MASS_RADIUS: f32 = 0.3;
/// Radius of the platform's particles in the scene, m.
const PARTICLE_RADIUS: f32 = 0.2;
/// Speed of the mass along and across the platform, m/s.
const SPEED: (f32, f32) = (2.5, 1.2);
struct Platform {
    world: AggregateWorld,
    particles: Vec<ParticleId>,
    /// The top's particles in `load_deck` order: pairs (z = -1, z = +1) at x = -3, then x = 4.
    top: Vec<ParticleId>,
    /// The mass's place: x along the platform (-3..4), z across it (-1..1).
    x: f32,
    z: f32,
    loaded_at: Option<(f32, f32)>,
    held: Held,
    /// `Some(frames)` when running headless: move by the clock.
    auto: Option<u32>,
    steps: u32,
}

impl Platform {
    fn move_mass(&mut self) {
        if let Some(frames) = self.auto {
            // Start on the left end, then travel to the right end over the middle of the run
            // and stay there: the frame tips left, then over to the right.
            let s = ((self.steps as f32 / frames as f32 - 0.25) / 0.5).clamp(0.0, 1.0);
            self.x = XS[0] + (XS[1] - XS[0]) * s;
            self.z = 0.0;
            return;
        }
        let dt = scenes::DT;
        let (along, across) = self.held.axes();
        self.x = (self.x + along * SPEED.0 * dt).clamp(XS[0], XS[1]);
        self.z = (self.z + across * SPEED.1 * dt).clamp(-1.0, 1.0);
    }
}

impl AggregateDemo for Platform {
    const NAME: &'static str = "platform";
    const CONTROLS: &'static str =
        "arrows or A/D/W/S: move the mass along (left/right) and across (up/down) the platform";

    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let scene = scenes::aggregate::platform(Backend::Gpu(ctx.clone()))?;
        if scene.world.config().colliders.is_empty() {
            // The book's demo stops the tipping frame on the ground (ground contacts).
            eprintln!(
                "note: scenes::aggregate::platform has no ground collider: the loaded end can \
                 swing through the floor and the frame turn over"
            );
        }
        let p = &scene.particles;
        // 2, 4 sit at z = +1 and 3, 5 at z = -1; load_deck wants z = -1 first in each pair.
        let top = vec![p[3], p[2], p[5], p[4]];
        Ok(Self {
            world: scene.world,
            particles: scene.particles,
            top,
            x: XS[0],
            z: 0.0,
            loaded_at: None,
            held: Held::default(),
            auto: headless_frames,
            steps: 0,
        })
    }

    fn world(&self) -> &AggregateWorld {
        &self.world
    }

    fn camera(&self) -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(0.5, 1.3, 0.0),
            yaw: 0.3,
            pitch: 0.2,
            distance: 12.5,
            fov_y: 50f32.to_radians(),
        }
    }

    fn scenery(&self) -> Vec<LineVertex> {
        let mut v = Vec::new();
        ground_grid(&mut v, 0.0, 8.0, 1.0, [0.06, 0.07, 0.09, 1.0]);
        v
    }

    fn links(&self) -> Vec<LinkLine> {
        // The top's four edges bold, the struts down to the pivots thin.
        let top = [0.55, 0.85, 1.0, 1.0];
        let strut = [0.3, 0.5, 0.7, 1.0];
        let mut out: Vec<LinkLine> = self
            .world
            .links()
            .filter_map(|(_, link)| match link {
                Link::Rod { a, b, .. } => Some((a, b)),
                _ => None,
            })
            .map(|(a, b)| {
                // Particles 0 and 1 are the pivots; the rest form the top.
                let (width, colour) = if a.index() >= 2 && b.index() >= 2 {
                    (6.0, top)
                } else {
                    (2.0, strut)
                };
                [
                    Attach::particle(a, width, colour),
                    Attach::particle(b, width, colour),
                ]
            })
            .collect();
        // The hinge: the axis through the two fixed particles.
        let hinge = [0.6, 0.6, 0.62, 1.0];
        out.push([
            Attach::point(Vec3::new(0.0, 0.0, -1.6), 4.0, hinge),
            Attach::point(Vec3::new(0.0, 0.0, 1.6), 4.0, hinge),
        ]);
        out
    }

    fn markers(&self) -> Vec<Attach> {
        // The mass sits on the top between its four particles (the same weights as its load).
        let parts = deck_weights(&self.top, &XS, self.x, self.z);
        let lift = Vec3::new(0.0, PARTICLE_RADIUS + MASS_RADIUS, 0.0);
        vec![Attach::blend(
            &parts,
            lift,
            MASS_RADIUS,
            [0.95, 0.55, 0.1, 1.0],
        )]
    }

    fn step(&mut self) -> wgphys::Result<()> {
        self.move_mass();
        if self.loaded_at != Some((self.x, self.z)) {
            load_deck(
                &mut self.world,
                &self.top,
                BASE_MASS,
                EXTRA_MASS,
                self.x,
                self.z,
                &XS,
            )?;
            self.loaded_at = Some((self.x, self.z));
        }
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
        format!("mass at ({:.1}, {:.1})", self.x, self.z)
    }

    fn summary(&self) -> String {
        // One blocking read at the end of the run (frames never read back).
        match self.world.read_snapshot() {
            Ok(s) => {
                let p = |i: usize| s.pos[self.particles[i].index() as usize].truncate();
                let (left, right) = (0.5 * (p(2) + p(3)), 0.5 * (p(4) + p(5)));
                let d = right - left;
                format!(
                    "mass at x = {:.2}, z = {:.2}; top ends at y = {:.2} (x = -3 end) and {:.2} \
                     (x = 4 end): tilted {:.1} degrees (positive: right end up)",
                    self.x,
                    self.z,
                    left.y,
                    right.y,
                    d.y.atan2(d.x).to_degrees()
                )
            }
            Err(e) => format!("could not read the platform back: {e}"),
        }
    }
}

fn main() -> Result<(), BoxError> {
    aggregate::run::<Platform>()
}
