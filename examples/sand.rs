//! A sand pile on the GPU: 100,000 grains poured into a box, colliding with each other on the
//! engine's uniform grid (particle–particle contacts with friction) and with the box's floor
//! and walls, settling into a pile.
//!
//! ```text
//! cargo run --release --example sand                 # window; headless machines get a PNG
//! cargo run --release --example sand -- --headless --frames 300 --out sand.png
//! ```
//!
//! Grains arrive in sheets of 1,500 from a nozzle above the box centre
//! (`scenes::aggregate::sand_pour`, every third step, the most it allows) until the world's
//! 100,000 slots are full (200 steps); the default headless run then lets the pile settle for
//! another 100. In the window: P pauses or resumes the pour, drag with the mouse to orbit, the
//! wheel zooms, R resets the camera, Esc quits. The title shows the grains poured and the time
//! per step (GPU work included).
//!
//! The grains are drawn as shaded balls straight from the engine's buffers with `draw_indirect`,
//! darker low in the pile so its shape reads; nothing is read back per frame. Headless (no
//! display, or `--headless`) it writes the last frame to `sand.png` and prints the grains
//! poured, the time per step and the pile's height profile (one readback at the end).
//!
//! Cost: on an H100 the 300-frame default takes a few seconds (milliseconds per step). A
//! software adapter (lavapipe, llvmpipe) needs a few tenths of a second per step at 15,000
//! grains and several seconds per step near 100,000, so there `--frames 30` is the quick look.

#[path = "common/aggregate/mod.rs"]
mod aggregate;
mod common;
#[path = "common/lines.rs"]
mod lines;

use aggregate::{AggregateDemo, LinkLine};
use common::{BoxError, LineVertex, OrbitCamera};
use glam::{IVec3, Vec3};
use lines::segment;
use std::collections::HashMap;
use wgphys::aggregate::AggregateWorld;
use wgphys::gpu::GpuContext;
use wgphys::particles::ColliderShape;
use wgphys::scenes;
use wgphys::Backend;
use winit::keyboard::Key;

/// Particle slots: the grains poured in all.
const CAPACITY: u32 = 100_000;
/// Grain radius, m.
const RADIUS: f32 = 0.02;
/// Grains per sheet.
const POUR: u32 = 1_500;
/// Steps between sheets (a sheet needs about two steps to clear the nozzle).
const POUR_EVERY: u32 = 3;
/// Height of the drawn walls, m.
const WALL_HEIGHT: f32 = 0.8;

struct Sand {
    world: AggregateWorld,
    /// Half the box's inner width, m (from the world's wall colliders).
    half: f32,
    pouring: bool,
    steps: u32,
}

impl AggregateDemo for Sand {
    const NAME: &'static str = "sand";
    const CONTROLS: &'static str = "P: pause or resume the pour";
    // 100,000 grains take 200 steps to pour; the pile has settled by 300.
    const DEFAULT_FRAMES: u32 = 300;

    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError> {
        if ctx.info.device_type == wgpu::DeviceType::Cpu {
            eprintln!(
                "note: {} is a software adapter; colliding grains cost a few tenths of a second \
                 per step at 15,000 and seconds per step near 100,000 on it{}",
                ctx.info.name,
                if headless_frames.is_some_and(|f| f > 60) {
                    " (use --frames 30 for a quick look)"
                } else {
                    ""
                }
            );
        }
        let world = scenes::aggregate::sand(Backend::Gpu(ctx.clone()), CAPACITY, RADIUS)?;
        // The walls are half-spaces n·p >= offset with n = ±x, ±z: the box is |x|, |z| <= half.
        let half = world
            .config()
            .colliders
            .iter()
            .filter_map(|c| match c.shape {
                ColliderShape::HalfSpace { normal, offset } if normal.y == 0.0 => Some(-offset),
                _ => None,
            })
            .fold(0.0f32, f32::max);
        Ok(Self {
            world,
            half,
            pouring: true,
            steps: 0,
        })
    }

    fn world(&self) -> &AggregateWorld {
        &self.world
    }

    fn camera(&self) -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(0.0, 0.15, 0.0),
            yaw: 0.6,
            pitch: 0.45,
            distance: 2.9 * self.half,
            fov_y: 45f32.to_radians(),
        }
    }

    fn background(&self) -> wgpu::Color {
        wgpu::Color {
            r: 0.02,
            g: 0.025,
            b: 0.035,
            a: 1.0,
        }
    }

    fn height_shade(&self) -> Option<(f32, f32, f32)> {
        // Grains low in the heap darker, the crest brighter, so its slopes read.
        Some((0.0, 0.5, 0.35))
    }

    fn scenery(&self) -> Vec<LineVertex> {
        let mut v = Vec::new();
        let h = self.half;
        let colour = [0.55, 0.6, 0.7, 1.0];
        let corners = [(-h, -h), (h, -h), (h, h), (-h, h)];
        for k in 0..4 {
            let (x0, z0) = corners[k];
            let (x1, z1) = corners[(k + 1) % 4];
            for y in [0.0, WALL_HEIGHT] {
                segment(&mut v, Vec3::new(x0, y, z0), Vec3::new(x1, y, z1), colour);
            }
            segment(
                &mut v,
                Vec3::new(x0, 0.0, z0),
                Vec3::new(x0, WALL_HEIGHT, z0),
                colour,
            );
        }
        // A faint grid on the floor.
        let grid = [0.12, 0.13, 0.16, 1.0];
        let n = 8;
        for i in 1..n {
            let t = -h + 2.0 * h * i as f32 / n as f32;
            segment(&mut v, Vec3::new(t, 0.0, -h), Vec3::new(t, 0.0, h), grid);
            segment(&mut v, Vec3::new(-h, 0.0, t), Vec3::new(h, 0.0, t), grid);
        }
        v
    }

    fn links(&self) -> Vec<LinkLine> {
        Vec::new()
    }

    fn step(&mut self) -> wgphys::Result<()> {
        let room = CAPACITY - self.world.len() as u32;
        if self.pouring && room > 0 && self.steps.is_multiple_of(POUR_EVERY) {
            scenes::aggregate::sand_pour(&mut self.world, POUR.min(room), RADIUS, self.steps)?;
        }
        self.steps += 1;
        self.world.step(scenes::DT).map(|_| ())
    }

    fn key(&mut self, key: &Key, pressed: bool) -> wgphys::Result<()> {
        if let (Key::Character(c), true) = (key, pressed) {
            if c.eq_ignore_ascii_case("p") {
                self.pouring = !self.pouring;
            }
        }
        Ok(())
    }

    fn count(&self) -> String {
        format!("{} grains", self.world.len())
    }

    fn title(&self) -> String {
        let state = if self.world.len() as u32 >= CAPACITY {
            "box full, settling"
        } else if self.pouring {
            "pouring (P: pause)"
        } else {
            "pour paused (P: resume)"
        };
        state.into()
    }

    fn summary(&self) -> String {
        // One blocking read at the end of the run (frames never read back).
        let s = match self.world.read_snapshot() {
            Ok(s) => s,
            Err(e) => return format!("could not read the grains back: {e}"),
        };
        // The heap's profile: the highest resting grain (slower than 0.3 m/s) in rings about
        // the box's axis.
        let resting: Vec<Vec3> = s
            .pos
            .iter()
            .zip(&s.vel)
            .filter(|(_, v)| v.truncate().length() < 0.3)
            .map(|(p, _)| p.truncate())
            .collect();
        let top_within = |r0: f32, r1: f32| {
            resting
                .iter()
                .filter(|p| (r0..r1).contains(&p.x.hypot(p.z)))
                .map(|p| p.y + RADIUS)
                .fold(0.0f32, f32::max)
        };
        let outside = s
            .pos
            .iter()
            .filter(|p| p.x.abs().max(p.z.abs()) > self.half + RADIUS || p.y < -RADIUS)
            .count();
        format!(
            "grains poured: {} (radius {RADIUS} m, box {:.1} m wide) after {} steps; {} resting, \
             {outside} outside the box\n\
             heap height (m) at 0 / 0.5 / 1.0 / 1.5 / 2.0 m from the axis: \
             {:.2} / {:.2} / {:.2} / {:.2} / {:.2}\n\
             mean overlap with the nearest grain: {:.0}% of a diameter",
            s.pos.len(),
            2.0 * self.half,
            self.steps,
            resting.len(),
            top_within(0.0, 0.2),
            top_within(0.4, 0.6),
            top_within(0.9, 1.1),
            top_within(1.4, 1.6),
            top_within(1.9, 2.1),
            100.0 * mean_overlap(&resting),
        )
    }
}

/// The mean of 1 − (distance to the nearest other grain) / (2 · radius), floored at 0, over
/// `grains` (a hashed grid of cells one diameter wide).
fn mean_overlap(grains: &[Vec3]) -> f32 {
    let d = 2.0 * RADIUS;
    let cell = |p: Vec3| (p / d).floor().as_ivec3();
    let mut grid: HashMap<IVec3, Vec<usize>> = HashMap::new();
    for (i, &p) in grains.iter().enumerate() {
        grid.entry(cell(p)).or_default().push(i);
    }
    let mut sum = 0.0;
    for (i, &p) in grains.iter().enumerate() {
        let c = cell(p);
        let mut nearest = d;
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let Some(js) = grid.get(&(c + IVec3::new(dx, dy, dz))) else {
                        continue;
                    };
                    for &j in js {
                        if j != i {
                            nearest = nearest.min(p.distance(grains[j]));
                        }
                    }
                }
            }
        }
        sum += 1.0 - nearest / d;
    }
    sum / grains.len().max(1) as f32
}

fn main() -> Result<(), BoxError> {
    aggregate::run::<Sand>()
}
