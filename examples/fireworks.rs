//! Fireworks on the GPU, drawn by the examples' HDR renderer (`examples/common/fx.rs`):
//! sparks with ribbons through the engine's trails, additive in a float16 target, smoke
//! alpha-blended back to front, bloom and a tone map. No frame reads anything back.
//!
//! ```text
//! cargo run --release --example fireworks                  # the book's fireworks, in a window
//! cargo run --release --example fireworks -- --show        # the choreographed show
//! cargo run --release --example fireworks -- --show --scale 0.05   # a lighter show
//! cargo run --release --example fireworks -- --headless --frames 240 --out fireworks.png
//! cargo run --release --example fireworks -- --show --headless --frames 2600 \
//!     --out show.png --out-dir frames --every 30
//! ```
//!
//! **The book** (Millington, *Game Physics Engine Development*, §4.2; the default): nine
//! firework types whose fuses burst into payloads of other types, spawned by the engine's
//! compute shaders. An automatic show runs; keys 1–9 launch a firework of that type, A
//! toggles the automatic show.
//!
//! **The show** (`--show`, see `examples/show/`): a 52-second program, looping, of shells
//! (peonies, willows, rings, palms, crackle), ground fountains and mines, all GPU emitters,
//! the bursts spawned by sub-emitters when the shells die; the finale peaks at about a million
//! live sparks. `--scale S` multiplies every count (default 1 on a GPU, 0.05 on a software
//! adapter such as lavapipe). In the window: keys 1–9 launch a shell of that kind.
//!
//! Drag with the mouse to orbit, the wheel zooms, R resets the camera, Esc quits. The title
//! shows the live count (the engine's asynchronous status, read every 30 steps).
//!
//! Without a display, or with `--headless`, it renders offscreen at 1280x720 and writes the last
//! frame to `fireworks.png` (or `--out`), and every k-th frame into `--out-dir` with
//! `--every k`.

mod common;
#[path = "common/fx/mod.rs"]
mod fx;
#[path = "common/lines.rs"]
mod lines;
mod show;

use common::{cli_switch, BoxError, OrbitCamera};
use fx::app::{FxDemo, EVERY_OPTION, OUT_DIR_OPTION};
use fx::bloom::BloomLook;
use fx::cli_option::cli_option;
use fx::renderer::{Blend, Layer, Light, Look, RibbonLook, SpriteLook};
use fx::scene::{Scene, SceneBox};
use glam::Vec3;
use lines::segment;
use show::Show;
use wgphys::gpu::GpuContext;
use wgphys::particles::{ParticleWorld, WorldConfig};
use wgphys::scenes;
use wgphys::Backend;
use winit::keyboard::Key;

enum Mode {
    /// The book's rules, launched by `scenes::fireworks_tick`.
    Book {
        world: Box<ParticleWorld>,
        /// Whether the automatic show launches fireworks.
        auto: bool,
    },
    /// The choreographed show.
    Show(Box<Show>),
}

struct Fireworks {
    mode: Mode,
    scale: f32,
}

impl Fireworks {
    fn is_show(&self) -> bool {
        matches!(self.mode, Mode::Show(_))
    }
}

/// Scale of the show when `--scale` is not given: the full show on a GPU, a twentieth of it on
/// a software adapter.
fn default_scale(adapter: &wgpu::AdapterInfo) -> f32 {
    if adapter.device_type == wgpu::DeviceType::Cpu {
        0.05
    } else {
        1.0
    }
}

impl FxDemo for Fireworks {
    const NAME: &'static str = "fireworks";
    const CONTROLS: &'static str =
        "keys 1-9: launch a firework (a shell with --show); A: toggle the automatic show (book)";
    const OPTIONS: &'static [&'static str] = &[
        "--show   the choreographed show (GPU emitters and sub-emitters) instead of the book's fireworks",
        "--scale S   multiply the show's counts (default 1 on a GPU, 0.05 on a software adapter)",
        "--gpu-timing   time each step of the show with timestamp queries and report the median at its peak",
        OUT_DIR_OPTION,
        EVERY_OPTION,
    ];

    fn new(ctx: &GpuContext, adapter: &wgpu::AdapterInfo, _: bool) -> Result<Self, BoxError> {
        let mut scale = match cli_option("--scale") {
            Some(v) => v
                .parse::<f32>()
                .ok()
                .filter(|s| *s > 0.0 && *s <= 4.0)
                .ok_or_else(|| format!("--scale {v}: expected a number in (0, 4]"))?,
            None => default_scale(adapter),
        };
        let mode = if cli_switch("--show") {
            let most = Show::max_scale(ctx);
            if scale > most {
                eprintln!(
                    "--scale {scale} needs larger buffers than this device allows: scale {most:.3} instead"
                );
                scale = (most * 1000.0).floor() / 1000.0;
            }
            println!("the show at scale {scale} (--scale)");
            let mut show = Box::new(Show::new(ctx, scale)?);
            if cli_switch("--gpu-timing") && !show.enable_timing() {
                eprintln!("--gpu-timing: this adapter has no timestamp queries; no GPU times");
            }
            Mode::Show(show)
        } else {
            let config = WorldConfig {
                // Live counts are read back asynchronously every 30 steps, never per frame.
                status_interval: 30,
                auto_grow: true,
                trail_length: 32,
                ..scenes::fireworks_config(16_384, 7)
            };
            Mode::Book {
                world: Box::new(ParticleWorld::new(Backend::Gpu(ctx.clone()), config)?),
                auto: true,
            }
        };
        Ok(Self { mode, scale })
    }

    fn camera(&self) -> OrbitCamera {
        if self.is_show() {
            // Mortars along x at z = 0; shells burst 40 to 60 m up, 10-15 m wide.
            OrbitCamera {
                target: Vec3::new(0.0, 36.0, 0.0),
                yaw: 0.0,
                pitch: -0.12,
                distance: 100.0,
                fov_y: 55f32.to_radians(),
            }
        } else {
            // Launch columns at x = -5, 0, 5; bursts spread about 20 m sideways and rise to
            // about 15 m.
            OrbitCamera {
                target: Vec3::new(-1.0, 6.5, 0.0),
                yaw: 0.25,
                pitch: 0.1,
                distance: 25.0,
                fov_y: 50f32.to_radians(),
            }
        }
    }

    fn look(&self) -> Look {
        Look {
            sky_top: Vec3::new(0.0008, 0.0012, 0.004),
            sky_horizon: Vec3::new(0.008, 0.01, 0.02),
            stars: 0.5,
            fog: if self.is_show() { 0.003 } else { 0.01 },
            ambient: Vec3::new(0.02, 0.022, 0.03),
            bloom: BloomLook {
                threshold: 1.0,
                knee: 0.7,
                strength: 0.5,
                exposure: 0.9,
                radius: 1.0,
            },
        }
    }

    fn scene(&self) -> Scene {
        let mut lines = Vec::new();
        let mut boxes = vec![SceneBox::new(
            Vec3::new(0.0, -0.5, 0.0),
            Vec3::new(400.0, 0.5, 400.0),
            Vec3::new(0.05, 0.05, 0.055),
        )];
        if self.is_show() {
            // The mortar rack, the fountains' stands and a skyline behind.
            boxes.push(SceneBox::new(
                Vec3::new(0.0, 0.3, 0.0),
                Vec3::new(42.0, 0.3, 1.0),
                Vec3::new(0.12, 0.1, 0.08),
            ));
            for x in show::kinds::FOUNTAINS {
                boxes.push(SceneBox::new(
                    Vec3::new(x, 0.5, show::kinds::FOUNTAIN_Z),
                    Vec3::new(0.4, 0.5, 0.4),
                    Vec3::new(0.15, 0.12, 0.1),
                ));
            }
            let mut seed = 7u32;
            let mut x = -170.0;
            while x < 170.0 {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let r = (seed >> 8) as f32 / (1 << 24) as f32;
                let w = 6.0 + 8.0 * r;
                let h = 6.0 + 22.0 * r * r + 8.0 * (1.0 - (x / 170.0f32).abs());
                boxes.push(SceneBox {
                    centre: Vec3::new(x + w, h * 0.5, -150.0 - 25.0 * r),
                    half: Vec3::new(w * 0.9, h * 0.5, 6.0),
                    colour: Vec3::new(0.08, 0.08, 0.09),
                    windows: 0.25,
                });
                x += 2.0 * w;
            }
        } else {
            let colour = [0.02, 0.025, 0.04, 1.0];
            for i in -6..=6 {
                let t = i as f32 * 5.0;
                segment(
                    &mut lines,
                    Vec3::new(t, 0.01, -30.0),
                    Vec3::new(t, 0.01, 30.0),
                    colour,
                );
                segment(
                    &mut lines,
                    Vec3::new(-30.0, 0.01, t),
                    Vec3::new(30.0, 0.01, t),
                    colour,
                );
            }
        }
        Scene { boxes, lines }
    }

    fn layers(&self) -> Vec<Layer<'_>> {
        match &self.mode {
            Mode::Book { world, .. } => vec![Layer {
                world,
                look: SpriteLook {
                    glow: 2.2,
                    min_px: 2.0,
                    intensity: 2.0,
                    soft: 0.3,
                    ribbon: Some(RibbonLook {
                        width: 1.0,
                        min_px: 1.0,
                        intensity: 1.2,
                    }),
                    ..SpriteLook::default()
                },
            }],
            Mode::Show(show) => {
                // A denser show adds up brighter: each spark dims as the scale grows.
                let dim = (0.1 / self.scale).powf(0.9).clamp(0.05, 2.0);
                vec![
                    Layer {
                        world: &show.smoke,
                        look: SpriteLook {
                            blend: Blend::Sorted,
                            glow: 1.0,
                            min_px: 2.0,
                            intensity: 1.0,
                            soft: 3.0,
                            lit: 1.0,
                            ..SpriteLook::default()
                        },
                    },
                    Layer {
                        world: &show.sparks,
                        look: SpriteLook {
                            glow: 2.0,
                            min_px: 1.2,
                            intensity: 1.0 * dim,
                            soft: 1.0,
                            ribbon: Some(RibbonLook {
                                width: 0.8,
                                min_px: 0.6,
                                intensity: 0.6 * dim,
                            }),
                            ..SpriteLook::default()
                        },
                    },
                ]
            }
        }
    }

    fn lights(&self) -> Vec<Light> {
        match &self.mode {
            Mode::Book { .. } => Vec::new(),
            Mode::Show(show) => show.lights(),
        }
    }

    fn step(&mut self, camera: &OrbitCamera) -> wgphys::Result<()> {
        match &mut self.mode {
            Mode::Book { world, auto } => {
                if *auto {
                    scenes::fireworks_tick(world)?;
                }
                world.step(scenes::DT)?;
            }
            Mode::Show(show) => show.step(camera)?,
        }
        Ok(())
    }

    fn key(&mut self, key: &Key) -> wgphys::Result<()> {
        let Key::Character(c) = key else {
            return Ok(());
        };
        match (&mut self.mode, c.as_str()) {
            (Mode::Book { auto, .. }, "a" | "A") => *auto = !*auto,
            (mode, s) => {
                if let Ok(n @ 1..=9) = s.parse::<u32>() {
                    match mode {
                        Mode::Book { world, .. } => world.launch(n)?,
                        Mode::Show(show) => show.launch(n as usize - 1)?,
                    }
                }
            }
        }
        Ok(())
    }

    fn title(&self) -> String {
        match &self.mode {
            Mode::Book { auto: true, .. } => "auto show (A: off), 1-9 launch".into(),
            Mode::Book { auto: false, .. } => "1-9 launch (A: auto show)".into(),
            Mode::Show(show) => format!("show at {:.1} s, scale {}", show.time(), self.scale),
        }
    }

    fn report(&self) -> Result<(), BoxError> {
        for layer in self.layers() {
            let s = layer.world.read_status()?;
            println!(
                "live particles: {} (capacity {}) after {} steps",
                s.live, s.capacity, s.step
            );
            if let Some(advice) = s.advice() {
                eprintln!("{advice}");
            }
        }
        if let Mode::Show(show) = &self.mode {
            println!(
                "show: {:.1} s into the program, scale {}, peak {} live sparks (statuses every 30 steps)",
                show.time(),
                self.scale,
                show.peak()
            );
            if let Some((peak_ms, n, all_ms)) = show.timing_summary() {
                println!(
                    "show GPU ms per step (sparks + smoke, timestamps): median {peak_ms:.3} over the {n} steps at >= 90% of the peak, median {all_ms:.3} over all steps"
                );
            }
        }
        Ok(())
    }
}

fn main() -> Result<(), BoxError> {
    fx::app::run::<Fireworks>()
}
