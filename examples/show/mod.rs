//! The choreographed fireworks show of `fireworks --show`: two particle worlds on the GPU,
//! driven by a program of cues ([`kinds::program`]).
//!
//! - **sparks** (trails on, drawn additive with ribbons): per shell kind a launcher emitter
//!   whose shells (gold comets) burst on death into the kind's star emitter
//!   (`set_sub_emitter`, [`SubTrigger::Death`]); crackling kinds' stars die in turn into
//!   glitter; fountains, mines and launch flashes are emitters on the ground. At scale 1 the
//!   finale peaks at about a million live sparks.
//! - **smoke** (drawn alpha-blended in the engine's back-to-front order, lit by the bursts):
//!   puffs where each shell bursts, at the mortars and over the fountains, drifting in the
//!   wind.
//!
//! The host never reads a particle back. It knows where a single shell bursts because it
//! fired it: a launcher's direction, speed and fuse are exact (no spread), so integrating that
//! one particle as the engine does gives the place and the step of its burst, where the
//! smoke and the light of the burst go. A cue sets an emitter's position, velocity and a
//! burst on its clock (`set_emitter`); everything else is spawned on the device.

pub mod kinds;

use glam::Vec3;
use kinds::{Cue, Pattern, KINDS};
use wgphys::gpu::GpuContext;
use wgphys::particles::{
    Burst, EmitShape, EmitVelocity, Emitter, EmitterHandle, ForceField, ParticleCollider,
    ParticleWorld, SubTrigger, ViewSort, WorldConfig,
};
use wgphys::scenes::DT;
use wgphys::Backend;

use crate::common::OrbitCamera;
use crate::fx::renderer::Light;

/// Positions each spark's trail keeps (the ribbons).
pub const TRAIL: u32 = 16;
/// The sparks world's capacity per unit of scale (the finale peaks at about a million), and
/// what it holds beyond that.
const PEAK_ROOM: f32 = 1_200_000.0;
const MARGIN: u32 = 16_384;
/// Where the mortars stand (z) and how high their muzzles are.
const MORTAR_Z: f32 = 0.0;
const MORTAR_Y: f32 = 0.6;

/// Emitters used in turns, several a step.
struct Pool {
    handles: Vec<EmitterHandle>,
    next: usize,
    /// The step each was last set for.
    used: Vec<u64>,
}

impl Pool {
    fn new(handles: Vec<EmitterHandle>) -> Self {
        let used = vec![u64::MAX; handles.len()];
        Self {
            handles,
            next: 0,
            used,
        }
    }

    /// The next emitter not yet set this step.
    fn take(&mut self, step: u64) -> Option<EmitterHandle> {
        for _ in 0..self.handles.len() {
            let i = self.next;
            self.next = (self.next + 1) % self.handles.len();
            if self.used[i] != step {
                self.used[i] = step;
                return Some(self.handles[i]);
            }
        }
        None
    }
}

/// A burst the host expects: where and when, for its smoke and its light.
struct Expected {
    step: u64,
    position: Vec3,
    colour: Vec3,
    radius: f32,
}

/// A light fading after a burst.
struct Flash {
    position: Vec3,
    colour: Vec3,
    born: f64,
}

/// The show.
pub struct Show {
    /// The sparks: shells, stars, glitter, fountains, mines.
    pub sparks: ParticleWorld,
    /// The smoke.
    pub smoke: ParticleWorld,
    scale: f32,
    launchers: Vec<EmitterHandle>,
    stars: Vec<EmitterHandle>,
    /// The payload each launcher's shells carry now.
    payload: Vec<u32>,
    mines: Vec<EmitterHandle>,
    fountains: Vec<EmitterHandle>,
    lifts: Pool,
    burst_smoke: Pool,
    launch_smoke: Pool,
    program: Vec<(f32, Cue)>,
    next: usize,
    /// Seconds on every emitter's clock (they were all added before the first step).
    clock: f64,
    /// The clock when the program last started.
    started: f64,
    step: u64,
    /// Launchers (by kind) and mines set this step.
    busy: Vec<u64>,
    expected: Vec<Expected>,
    flashes: Vec<Flash>,
    fountains_on: bool,
    sorted_for: Option<OrbitCamera>,
    peak: u32,
    /// With `--gpu-timing`: (live sparks at the latest status, GPU ms of the step's two
    /// worlds) per step, from timestamp queries.
    timings: Option<Vec<(u32, f64)>>,
}

fn count(n: f32) -> u32 {
    n.round().max(1.0) as u32
}

/// The most stars a shell carries: the engine's cap on children per parent
/// (`set_sub_emitter` refuses more; one `emit` thread writes a few parents' children one after
/// the other). A cue that wants more stars fires several coinciding shells that burst together.
const MAX_PAYLOAD: u32 = wgphys::fireworks::MAX_CHILDREN_PER_RULE;

/// `stars` split over as few shells as the cap allows: (shells, stars per shell).
fn shells_for(stars: u32) -> (u32, u32) {
    let shells = stars.div_ceil(MAX_PAYLOAD).max(1);
    (shells, stars.div_ceil(shells))
}

impl Show {
    /// The largest scale the device's buffers hold: the trails (16 bytes a position) are the
    /// largest buffer of the sparks world.
    pub fn max_scale(ctx: &GpuContext) -> f32 {
        let limits = ctx.device.limits();
        let bytes = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let capacity = bytes / (16 * u64::from(TRAIL));
        (capacity.saturating_sub(u64::from(MARGIN)) as f32 / PEAK_ROOM).max(0.001)
    }

    /// Builds both worlds on `ctx` with every count times `scale` (at most
    /// [`Show::max_scale`]).
    pub fn new(ctx: &GpuContext, scale: f32) -> wgphys::Result<Self> {
        // The finale's peak is about a million at scale 1: room for it from the start.
        let capacity = (PEAK_ROOM * scale) as u32 + MARGIN;
        let mut sparks = ParticleWorld::new(
            Backend::Gpu(ctx.clone()),
            WorldConfig {
                capacity,
                seed: 11,
                status_interval: 30,
                auto_grow: true,
                trail_length: TRAIL,
                colliders: vec![ParticleCollider::ground(0.4, 0.3)],
                ..WorldConfig::default()
            },
        )?;
        let mut launchers = Vec::new();
        let mut stars = Vec::new();
        let mut payload = Vec::new();
        let glitter = sparks.add_emitter(kinds::crackle())?;
        for kind in &KINDS {
            let launcher = sparks.add_emitter(kinds::launcher())?;
            let star = sparks.add_emitter(kinds::stars(kind))?;
            let n = count(kind.stars as f32 * scale).min(MAX_PAYLOAD);
            sparks.set_sub_emitter(launcher, SubTrigger::Death, Some((star, n)))?;
            if kind.crackle {
                sparks.set_sub_emitter(star, SubTrigger::Death, Some((glitter, 3)))?;
            }
            launchers.push(launcher);
            stars.push(star);
            payload.push(n);
        }
        let mines = vec![
            sparks.add_emitter(kinds::mine(Vec3::new(1.0, 0.15, 0.1)))?,
            sparks.add_emitter(kinds::mine(Vec3::new(0.2, 1.0, 0.3)))?,
        ];
        let mut fountains = Vec::new();
        let mut lifts = Vec::new();
        for _ in 0..8 {
            lifts.push(sparks.add_emitter(kinds::lift())?);
        }
        let rate = (2500.0 * scale).max(60.0);
        let mut smoke = ParticleWorld::new(
            Backend::Gpu(ctx.clone()),
            WorldConfig {
                capacity: 4096,
                seed: 12,
                status_interval: 30,
                auto_grow: true,
                colliders: vec![ParticleCollider::ground(0.8, 0.0)],
                fields: vec![
                    ForceField::Wind {
                        velocity: Vec3::new(1.2, 0.0, -0.3),
                        k1: 0.25,
                        k2: 0.0,
                    },
                    ForceField::Turbulence {
                        scale: 7.0,
                        strength: 0.4,
                        scroll: Vec3::new(1.0, 0.2, 0.0),
                    },
                ],
                ..WorldConfig::default()
            },
        )?;
        for x in kinds::FOUNTAINS {
            let p = Vec3::new(x, 1.0, kinds::FOUNTAIN_Z);
            let f = sparks.add_emitter(kinds::fountain(p, rate))?;
            sparks.set_emitter_active(f, false)?;
            fountains.push(f);
            let s = smoke.add_emitter(kinds::ground_smoke(p + Vec3::Y * 2.0, 4.0))?;
            smoke.set_emitter_active(s, false)?;
            fountains.push(s);
        }
        let mut burst_smoke = Vec::new();
        let mut launch_smoke = Vec::new();
        for _ in 0..12 {
            burst_smoke.push(smoke.add_emitter(kinds::burst_smoke())?);
        }
        for _ in 0..8 {
            launch_smoke.push(smoke.add_emitter(kinds::ground_smoke(Vec3::ZERO, 0.0))?);
        }
        Ok(Self {
            sparks,
            smoke,
            scale,
            launchers,
            stars,
            payload,
            mines,
            fountains,
            lifts: Pool::new(lifts),
            burst_smoke: Pool::new(burst_smoke),
            launch_smoke: Pool::new(launch_smoke),
            program: kinds::program(),
            next: 0,
            clock: 0.0,
            started: 0.0,
            step: 0,
            busy: vec![u64::MAX; KINDS.len() + 2],
            expected: Vec::new(),
            flashes: Vec::new(),
            fountains_on: false,
            sorted_for: None,
            peak: 0,
            timings: None,
        })
    }

    /// The most live sparks any status has shown so far.
    /// Turns on per-step GPU timestamps in both worlds (`--gpu-timing`); false where the
    /// adapter has no timestamp queries.
    pub fn enable_timing(&mut self) -> bool {
        let on = self.sparks.enable_gpu_timing() && self.smoke.enable_gpu_timing();
        self.timings = on.then(Vec::new);
        on
    }

    /// With timing on: (median GPU ms per step over the steps whose latest status had at
    /// least 90% of the peak's live sparks, the number of such steps, median over all steps).
    pub fn timing_summary(&self) -> Option<(f64, usize, f64)> {
        let t = self.timings.as_ref().filter(|t| !t.is_empty())?;
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let near: Vec<f64> = t
            .iter()
            .filter(|(live, _)| u64::from(*live) * 10 >= u64::from(self.peak) * 9)
            .map(|&(_, ms)| ms)
            .collect();
        let n = near.len();
        let all = median(t.iter().map(|&(_, ms)| ms).collect());
        Some((if n > 0 { median(near) } else { f64::NAN }, n, all))
    }

    pub fn peak(&self) -> u32 {
        self.peak
    }

    /// Seconds into the program.
    pub fn time(&self) -> f32 {
        (self.clock - self.started) as f32
    }

    /// A burst at this step, on an emitter's clock (mid-step, clear of rounding).
    fn bursts(&self, count: u32) -> Vec<Burst> {
        vec![Burst {
            time: (self.clock + 0.5 * f64::from(DT)) as f32,
            count,
        }]
    }

    /// Sets the shells of `kind` to carry `n` stars.
    fn set_payload(&mut self, kind: usize, n: u32) -> wgphys::Result<()> {
        if self.payload[kind] != n {
            self.sparks.set_sub_emitter(
                self.launchers[kind],
                SubTrigger::Death,
                Some((self.stars[kind], n)),
            )?;
            self.payload[kind] = n;
        }
        Ok(())
    }

    /// The flash and the smoke of a launch from `at`, `n` shells along `segment` (0: one).
    fn launch_effects(&mut self, at: Vec3, half: f32, n: u32) -> wgphys::Result<()> {
        let shape = if half > 0.0 {
            EmitShape::Segment {
                a: Vec3::new(-half, 0.0, 0.0),
                b: Vec3::new(half, 0.0, 0.0),
            }
        } else {
            EmitShape::Point
        };
        if let Some(lift) = self.lifts.take(self.step) {
            let desc = Emitter {
                position: at,
                shape,
                bursts: self.bursts(count(60.0 * self.scale) * n),
                ..kinds::lift()
            };
            self.sparks.set_emitter(lift, desc)?;
        }
        if let Some(puff) = self.launch_smoke.take(self.step) {
            let desc = Emitter {
                shape: if half > 0.0 {
                    shape
                } else {
                    EmitShape::Sphere { radius: 0.8 }
                },
                bursts: self.bursts(4 * n),
                ..kinds::ground_smoke(at, 0.0)
            };
            self.smoke.set_emitter(puff, desc)?;
        }
        Ok(())
    }

    /// Where and after how many steps a shell launched from `at` along `dir` bursts: the
    /// engine's integrator on the one particle (its age is an f32 sum of the steps).
    fn flight(at: Vec3, dir: Vec3, fuse: f32) -> (Vec3, u64) {
        let (mut p, mut v) = (at, dir * kinds::shell_speed(fuse));
        let keep = kinds::SHELL_DAMPING.powf(DT);
        let (mut age, mut steps) = (0.0f32, 0u64);
        while age < fuse {
            age += DT;
            p += v * DT;
            v = (v + Vec3::new(0.0, -9.81, 0.0) * DT) * keep;
            steps += 1;
        }
        (p, steps)
    }

    fn expect(&mut self, kind: usize, position: Vec3, steps: u64) {
        let radius = match KINDS[kind].pattern {
            Pattern::Peony | Pattern::Ring => 12.0,
            Pattern::Willow => 9.0,
            Pattern::Palm => 10.0,
        };
        self.expected.push(Expected {
            step: self.step + steps,
            position,
            colour: KINDS[kind].colour,
            radius,
        });
    }

    /// Carries out `cue`; `false` when an emitter it needs is already set this step (then it
    /// waits for the next).
    fn cue(&mut self, cue: Cue) -> wgphys::Result<bool> {
        let step = self.step;
        match cue {
            Cue::Shell {
                kind,
                x,
                lean,
                fuse,
            } => {
                if self.busy[kind] == step {
                    return Ok(false);
                }
                self.busy[kind] = step;
                let (shells, per_shell) = shells_for(count(KINDS[kind].stars as f32 * self.scale));
                self.set_payload(kind, per_shell)?;
                let at = Vec3::new(x, MORTAR_Y, MORTAR_Z);
                let dir = Vec3::new(lean.sin(), lean.cos(), 0.0);
                let desc = Emitter {
                    position: at,
                    velocity: EmitVelocity::Directional {
                        direction: dir,
                        spread: 0.0,
                        speed: (kinds::shell_speed(fuse), kinds::shell_speed(fuse)),
                    },
                    lifetime: (fuse, fuse),
                    bursts: self.bursts(shells),
                    ..kinds::launcher()
                };
                self.sparks.set_emitter(self.launchers[kind], desc)?;
                self.launch_effects(at, 0.0, 1)?;
                let (burst, steps) = Self::flight(at, dir, fuse);
                self.expect(kind, burst, steps);
            }
            Cue::Salvo {
                kind,
                count: n,
                half,
                lean,
                fuse,
                boost,
            } => {
                if self.busy[kind] == step {
                    return Ok(false);
                }
                self.busy[kind] = step;
                let stars = count(KINDS[kind].stars as f32 * self.scale * boost);
                let (shells, per_shell) = shells_for(stars);
                self.set_payload(kind, per_shell)?;
                let at = Vec3::new(0.0, MORTAR_Y, MORTAR_Z);
                let shape = EmitShape::Segment {
                    a: Vec3::new(-half, 0.0, 0.0),
                    b: Vec3::new(half, 0.0, 0.0),
                };
                let desc = Emitter {
                    position: at,
                    shape,
                    velocity: EmitVelocity::Directional {
                        direction: Vec3::Y,
                        spread: lean,
                        speed: (
                            kinds::shell_speed(fuse) * 0.95,
                            kinds::shell_speed(fuse) * 1.05,
                        ),
                    },
                    lifetime: (fuse * 0.9, fuse * 1.1),
                    bursts: self.bursts(n * shells),
                    ..kinds::launcher()
                };
                self.sparks.set_emitter(self.launchers[kind], desc)?;
                self.launch_effects(at, half, n)?;
                // Where they burst is drawn on the GPU: expect them along the rack.
                for i in 0..n {
                    let x = -half + 2.0 * half * (i as f32 + 0.5) / n as f32;
                    let (burst, steps) = Self::flight(at + Vec3::X * x, Vec3::Y, fuse);
                    self.expect(kind, burst, steps);
                }
            }
            Cue::Mine { mine, x, stars } => {
                let slot = KINDS.len() + mine;
                if self.busy[slot] == step {
                    return Ok(false);
                }
                self.busy[slot] = step;
                let colour = [Vec3::new(1.0, 0.15, 0.1), Vec3::new(0.2, 1.0, 0.3)][mine];
                let at = Vec3::new(x, 0.5, MORTAR_Z + 4.0);
                let desc = Emitter {
                    position: at,
                    bursts: self.bursts(count(stars as f32 * self.scale)),
                    ..kinds::mine(colour)
                };
                self.sparks.set_emitter(self.mines[mine], desc)?;
                self.flashes.push(Flash {
                    position: at + Vec3::Y * 6.0,
                    colour: colour * 0.5,
                    born: self.clock,
                });
                self.launch_effects(at, 0.0, 2)?;
            }
            Cue::Fountains(on) => {
                self.fountains_on = on;
                for (i, f) in self.fountains.iter().enumerate() {
                    // Even: the sparks; odd: their smoke.
                    let world = if i % 2 == 0 {
                        &mut self.sparks
                    } else {
                        &mut self.smoke
                    };
                    world.set_emitter_active(*f, on)?;
                }
            }
        }
        Ok(true)
    }

    /// Runs the cues due, the smoke and light of the bursts due, then one step of both
    /// worlds. `camera` is where the smoke is sorted for.
    pub fn step(&mut self, camera: &OrbitCamera) -> wgphys::Result<()> {
        if self.sorted_for != Some(*camera) {
            let eye = camera.eye();
            self.smoke.set_view_sort(Some(ViewSort {
                eye,
                forward: camera.target - eye,
            }))?;
            self.sorted_for = Some(*camera);
        }
        if self.next == self.program.len() && self.time() >= kinds::PERIOD {
            self.next = 0;
            self.started = self.clock;
        }
        while let Some(&(at, cue)) = self.program.get(self.next) {
            if at > self.time() || !self.cue(cue)? {
                break;
            }
            self.next += 1;
        }
        let due: Vec<Expected> = {
            let step = self.step;
            let (due, later) = std::mem::take(&mut self.expected)
                .into_iter()
                .partition(|e| e.step <= step);
            self.expected = later;
            due
        };
        for e in due {
            if let Some(smoke) = self.burst_smoke.take(self.step) {
                let desc = Emitter {
                    position: e.position,
                    shape: EmitShape::Sphere {
                        radius: e.radius * 0.5,
                    },
                    bursts: self.bursts(14),
                    ..kinds::burst_smoke()
                };
                self.smoke.set_emitter(smoke, desc)?;
            }
            self.flashes.push(Flash {
                position: e.position,
                colour: e.colour,
                born: self.clock,
            });
        }
        self.sparks.step(DT)?;
        self.smoke.step(DT)?;
        if let Some(t) = &mut self.timings {
            // Blocking readbacks: a benchmark mode, never the window's default.
            let ms = self.sparks.last_step_gpu_ms()? + self.smoke.last_step_gpu_ms()?;
            let live = self.sparks.latest_status().map_or(0, |s| s.live);
            t.push((live, ms));
        }
        self.clock += f64::from(DT);
        self.step += 1;
        let clock = self.clock;
        self.flashes.retain(|f| clock - f.born < 4.0);
        if let Some(s) = self.sparks.latest_status() {
            self.peak = self.peak.max(s.live);
        }
        Ok(())
    }

    /// Launches one shell of `kind` from a mortar picked by the clock (the window's keys).
    pub fn launch(&mut self, kind: usize) -> wgphys::Result<()> {
        let x = ((self.step * 37) % 61) as f32 - 30.0;
        self.cue(Cue::Shell {
            kind: kind % KINDS.len(),
            x,
            lean: 0.0,
            fuse: 2.8,
        })
        .map(|_| ())
    }

    /// The lights of this moment: the brightest fading bursts, and the fountains.
    pub fn lights(&self) -> Vec<Light> {
        let mut lights: Vec<Light> = self
            .flashes
            .iter()
            .map(|f| {
                let age = (self.clock - f.born) as f32;
                let k = 3.0 * (-age / 0.2).exp() + 0.8 * (-age / 1.0).exp();
                Light {
                    position: f.position,
                    colour: f.colour * k,
                    range: 18.0,
                }
            })
            .collect();
        lights.sort_by(|a, b| b.colour.element_sum().total_cmp(&a.colour.element_sum()));
        lights.truncate(6);
        if self.fountains_on {
            for x in [-21.0, 21.0] {
                lights.push(Light {
                    position: Vec3::new(x, 4.0, kinds::FOUNTAIN_Z),
                    colour: Vec3::new(1.5, 0.9, 0.4),
                    range: 10.0,
                });
            }
        }
        lights
    }
}
