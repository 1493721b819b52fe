//! The rope bridge of the book's Fig 8.1 (Millington, *Game Physics Engine Development*, §8.2.1)
//! on the GPU: twelve deck particles in pairs, a rod across each pair, cables along the deck and
//! cables up to the supports, with a 10 kg "character" standing on the deck. Its mass is spread
//! bilinearly over the four deck particles around it (`scenes::aggregate::load_deck`), so the
//! deck sags where it stands.
//!
//! ```text
//! cargo run --release --example bridge                 # window; headless machines get a PNG
//! cargo run --release --example bridge -- --headless --frames 240 --out bridge.png
//! ```
//!
//! In the window: arrow keys or A/D move the character along the deck, W/S (or up/down) across
//! it; drag with the mouse to orbit, the wheel zooms, R resets the camera, Esc quits. The title
//! shows the character's place and the time per step (GPU work included).
//!
//! Particles, rods and cables are drawn from the engine's buffers: the lines' ends and the
//! character are placed in a vertex shader that reads the positions storage buffer, so no frame
//! reads anything back. Headless (no display, or `--headless`), the character walks from the
//! left end to just past the middle over the frames and the last frame goes to `bridge.png`.

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
use lines::segment;
use rig::{ground_grid, Held};
use wgphys::aggregate::{AggregateWorld, ParticleId};
use wgphys::gpu::GpuContext;
use wgphys::scenes::{self, aggregate::load_deck};
use wgphys::Backend;
use winit::keyboard::Key;

/// The deck's column x positions (pairs of particles, as `scenes::aggregate::bridge` builds them).
const XS: [f32; 6] = [-5.0, -3.0, -1.0, 1.0, 3.0, 5.0];
/// The deck particles' mass, kg.
const BASE_MASS: f32 = 1.0;
/// The character's mass, kg.
const CHARACTER_MASS: f32 = 10.0;
/// Drawn radius of the character, m.
const CHARACTER_RADIUS: f32 = 0.35;
/// Radius of the deck particles in the scene, m.
const DECK_RADIUS: f32 = 0.2;
/// Walking speed along and across the deck, m/s.
const SPEED: (f32, f32) = (2.5, 1.2);

/// Where `scenes::aggregate::bridge` anchors the cable of deck particle `i`.
fn support_anchor(i: usize) -> Vec3 {
    Vec3::new((i / 2) as f32 * 2.2 - 5.5, 6.0, (i % 2) as f32 * 1.6 - 0.8)
}

struct Bridge {
    world: AggregateWorld,
    deck: Vec<ParticleId>,
    /// The character's place: x along the deck (-5..5), z across it (-1..1).
    x: f32,
    z: f32,
    /// Where the load was last spread (None: not yet).
    loaded_at: Option<(f32, f32)>,
    held: Held,
    /// `Some(frames)` when running headless: walk by the clock.
    auto: Option<u32>,
    steps: u32,
}

impl Bridge {
    fn move_character(&mut self) {
        let dt = scenes::DT;
        if let Some(frames) = self.auto {
            // Walk from the left end to just past the middle over three quarters of the run,
            // then stand there, so the last frame shows the sag under the load.
            let s = (self.steps as f32 / (0.75 * frames as f32)).min(1.0);
            self.x = -5.0 + 6.0 * s;
            self.z = 0.0;
            return;
        }
        let (along, across) = self.held.axes();
        self.x = (self.x + along * SPEED.0 * dt).clamp(XS[0], XS[5]);
        self.z = (self.z + across * SPEED.1 * dt).clamp(-1.0, 1.0);
    }
}

impl AggregateDemo for Bridge {
    const NAME: &'static str = "bridge";
    const CONTROLS: &'static str =
        "arrows or A/D/W/S: move the character along (left/right) and across (up/down) the deck";

    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError> {
        let scene = scenes::aggregate::bridge(Backend::Gpu(ctx.clone()))?;
        Ok(Self {
            world: scene.world,
            deck: scene.deck,
            x: -5.0,
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
            target: Vec3::new(0.0, 3.4, 0.0),
            yaw: 0.45,
            pitch: 0.25,
            distance: 13.0,
            fov_y: 50f32.to_radians(),
        }
    }

    fn scenery(&self) -> Vec<LineVertex> {
        let mut v = Vec::new();
        ground_grid(&mut v, 0.0, 10.0, 1.0, [0.06, 0.07, 0.09, 1.0]);
        // The frame that holds the support cables: two beams over the deck, posts at the ends.
        let frame = [0.45, 0.45, 0.5, 1.0];
        for side in 0..2 {
            let (first, last) = (support_anchor(side), support_anchor(10 + side));
            segment(&mut v, first, last, frame);
            for end in [first, last] {
                segment(&mut v, end, Vec3::new(end.x, 0.0, end.z), frame);
            }
        }
        v
    }

    fn links(&self) -> Vec<LinkLine> {
        // The scene's links, as `scenes::aggregate::bridge` adds them (the world does not list
        // its links).
        let rod = [0.85, 0.62, 0.32, 1.0];
        let cable = [0.75, 0.72, 0.62, 1.0];
        let support = [0.5, 0.55, 0.62, 1.0];
        let d = &self.deck;
        let mut out = Vec::new();
        for i in 0..6 {
            out.push([
                Attach::particle(d[2 * i], 5.0, rod),
                Attach::particle(d[2 * i + 1], 5.0, rod),
            ]);
        }
        for i in 0..10 {
            out.push([
                Attach::particle(d[i], 3.0, cable),
                Attach::particle(d[i + 2], 3.0, cable),
            ]);
        }
        for (i, &p) in d.iter().enumerate() {
            out.push([
                Attach::point(support_anchor(i), 1.5, support),
                Attach::particle(p, 1.5, support),
            ]);
        }
        out
    }

    fn markers(&self) -> Vec<Attach> {
        // The character stands on the deck surface between its four particles: the same
        // bilinear weights as its load, lifted by the deck's and its own radius.
        let parts = deck_weights(&self.deck, &XS, self.x, self.z);
        let lift = Vec3::new(0.0, DECK_RADIUS + CHARACTER_RADIUS, 0.0);
        let mut out = vec![Attach::blend(
            &parts,
            lift,
            CHARACTER_RADIUS,
            [0.9, 0.2, 0.15, 1.0],
        )];
        // The anchors on the frame.
        out.extend((0..12).map(|i| Attach::point(support_anchor(i), 0.08, [0.6, 0.6, 0.65, 1.0])));
        out
    }

    fn step(&mut self) -> wgphys::Result<()> {
        self.move_character();
        if self.loaded_at != Some((self.x, self.z)) {
            load_deck(
                &mut self.world,
                &self.deck,
                BASE_MASS,
                CHARACTER_MASS,
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
        format!("character ({:.1}, {:.1}) on the deck", self.x, self.z)
    }

    fn summary(&self) -> String {
        // One blocking read at the end of the run (frames never read back).
        let deck: Vec<f32> = match self.world.read_snapshot() {
            Ok(s) => self
                .deck
                .iter()
                .map(|p| s.pos[p.index() as usize].y)
                .collect(),
            Err(e) => return format!("could not read the deck back: {e}"),
        };
        let heights: Vec<String> = deck
            .chunks(2)
            .map(|pair| format!("{:.2}", 0.5 * (pair[0] + pair[1])))
            .collect();
        format!(
            "character at x = {:.2}, z = {:.2}; deck height per column (m, x = -5..5): {}",
            self.x,
            self.z,
            heights.join(" ")
        )
    }
}

fn main() -> Result<(), BoxError> {
    aggregate::run::<Bridge>()
}
