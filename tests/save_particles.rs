#![cfg(feature = "serde")]
//! Saving and loading a particle world (`ParticleWorld::save` / `load`, the `serde` feature).
//!
//! - A world saved after N steps and loaded into a new world continues bit-identically on the
//!   same backend: stepped M more times beside the original, with the same calls between steps
//!   (spawns, removals by handle, launches, emitters paused and removed), every particle field,
//!   trail, counter and the back-to-front order are bit-equal after every step, and the two
//!   worlds' saves are byte-equal at the end. Random CPU scenes (proptest) and one GPU scene
//!   with every feature the save carries (emitters with sub-emitters, life curves and local
//!   fields, fireworks, removed particles, live handles, trails, kill bounds, the view sort).
//! - Loading a GPU save on the CPU (and a CPU save on the GPU) continues within the GPU/CPU
//!   parity bounds of `tests/particles_parity_end_to_end.rs`.
//! - Both formats round-trip: loading either gives a world whose save is the original's bytes.
//! - Damaged files are `Error::Load` naming the field, never a panic: every truncation of a
//!   binary save, a sample of a text save's, a newer format version (`header.version`), a NaN
//!   written into a particle's position (`particles[0].position`), a capacity below the live
//!   count (`particles`), and thousands of random byte flips (a flip the checks cannot tell from
//!   a real state must load into a world that steps without panicking).

mod common;

use common::error_model::cost::{CONTRACT, DIV, ROUND};
use common::error_model::{trajectory_drift, Drift, UNIT_ROUNDOFF};
use common::{assert_counters_eq, compare_snapshots, Rng, SnapTol, Tol};
use glam::{Vec3, Vec4};
use proptest::prelude::*;
use wgphys::gpu::GpuContext;
use wgphys::particles::fireworks::FireworkRules;
use wgphys::particles::{
    Burst, ColliderShape, EmitShape, EmitVelocity, Emitter, ForceField, KillBounds, Particle,
    ParticleCollider, ParticleWorld, Snapshot, SubTrigger, ViewSort, WorldConfig,
};
use wgphys::save::{SaveFormat, SAVE_VERSION};
use wgphys::{scenes, Backend, Error};

const DT: f32 = 1.0 / 60.0;

/// A scene: what the world holds and how long it runs before and after the save.
#[derive(Clone, Debug)]
struct Scene {
    seed: u32,
    capacity: u32,
    trail_length: u32,
    kill_bounds: bool,
    turbulence: bool,
    emitters: bool,
    view_sort: bool,
    auto_grow: bool,
    before: u64,
    after: u64,
}

/// Every feature on, for the GPU and the format tests.
const FULL: Scene = Scene {
    seed: 7,
    capacity: 96,
    trail_length: 3,
    kill_bounds: true,
    turbulence: true,
    emitters: true,
    view_sort: true,
    auto_grow: false,
    before: 14,
    after: 12,
};

fn build(backend: Backend, s: &Scene) -> ParticleWorld {
    let mut fields = vec![
        ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0)),
        ForceField::Drag { k1: 0.05, k2: 0.01 },
    ];
    if s.turbulence {
        fields.push(ForceField::Turbulence {
            scale: 0.7,
            strength: 3.0,
            scroll: Vec3::new(0.3, 0.0, 0.1),
        });
    }
    let config = WorldConfig {
        capacity: s.capacity,
        seed: s.seed,
        fields,
        colliders: vec![
            ParticleCollider::ground(0.3, 0.5),
            ParticleCollider {
                shape: ColliderShape::Sphere {
                    centre: Vec3::new(0.5, 0.4, 0.0),
                    radius: 0.3,
                },
                restitution: 0.6,
                friction: 0.1,
            },
        ],
        fireworks: FireworkRules::book(),
        kill_bounds: s.kill_bounds.then_some(KillBounds {
            min: Vec3::splat(-6.0),
            max: Vec3::splat(6.0),
        }),
        trail_length: s.trail_length,
        auto_grow: s.auto_grow,
        ..WorldConfig::default()
    };
    let mut w = ParticleWorld::new(backend, config).expect("world");
    if s.emitters {
        let child = w
            .add_emitter(Emitter {
                rate: 0.0,
                shape: EmitShape::Sphere { radius: 0.05 },
                velocity: EmitVelocity::Radial { speed: (0.5, 1.0) },
                lifetime: (0.1, 0.3),
                ..Emitter::default()
            })
            .expect("child emitter");
        let parent = w
            .add_emitter(Emitter {
                rate: 40.0,
                bursts: vec![Burst {
                    time: 0.1,
                    count: 6,
                }],
                shape: EmitShape::Cone {
                    half_angle: 0.3,
                    height: 0.2,
                },
                lifetime: (0.2, 0.6),
                colour_over_life: Some(vec![
                    (0.0, Vec4::ONE),
                    (1.0, Vec4::new(1.0, 0.5, 0.0, 0.0)),
                ]),
                size_over_life: Some(vec![(0.0, 0.02), (1.0, 0.05)]),
                fields: vec![ForceField::Vortex {
                    centre: Vec3::ZERO,
                    axis: Vec3::Y,
                    strength: 2.0,
                    softening: 0.1,
                }],
                position: Vec3::new(1.0, 0.5, 0.0),
                ..Emitter::default()
            })
            .expect("parent emitter");
        w.set_sub_emitter(parent, SubTrigger::Death, Some((child, 2)))
            .expect("on death");
        w.set_sub_emitter(parent, SubTrigger::Impact, Some((child, 1)))
            .expect("on impact");
    }
    if s.view_sort {
        w.set_view_sort(Some(ViewSort {
            eye: Vec3::new(0.0, 2.0, -10.0),
            forward: Vec3::new(0.0, -0.1, 1.0),
        }))
        .expect("view sort");
    }
    w
}

/// The calls before the world's next step: drawn from the scene's seed and the step, and from
/// the world's own handles, so a world and its loaded copy get the same calls. A GPU world
/// first takes in every report (so both know the same handles whatever the timing).
fn tick(w: &mut ParticleWorld, s: &Scene) {
    w.wait().expect("wait");
    w.poll_reports();
    let step = w.steps();
    let mut rng = Rng::new(u64::from(s.seed) << 32 ^ step);
    for _ in 0..rng.below(4) {
        let mut p = Particle::new(rng.vec3(-2.0, 2.0) + Vec3::Y * 1.5)
            .with_velocity(rng.vec3(-3.0, 3.0))
            .with_damping(0.9);
        if rng.chance(0.5) {
            p = p.with_lifetime(rng.range(0.05, 0.5));
        }
        let _ = w.spawn(p);
    }
    if rng.chance(0.15) {
        let _ = w.launch(1 + rng.below(9));
    }
    if rng.chance(0.1) {
        let _ = w.spawn_firework(3, rng.vec3(-1.0, 1.0) + Vec3::Y * 2.0, Vec3::ZERO, 0.1);
    }
    let handles = w.particle_handles();
    if !handles.is_empty() && rng.chance(0.4) {
        let h = handles[rng.below(handles.len() as u32) as usize];
        w.remove(h).expect("a live handle");
    }
    if let Some(parent) = w.emitter_handle(1) {
        if step == 20 {
            w.remove_emitter(parent).expect("remove the parent emitter");
        } else if rng.chance(0.1) {
            w.set_emitter_active(parent, rng.chance(0.6))
                .expect("pause or resume");
        }
    }
}

/// Each field of a snapshot as bits, with its name and its words per particle.
fn fields(s: &Snapshot) -> [(&'static str, usize, Vec<u32>); 6] {
    let v4 = |v: &[Vec4]| -> Vec<u32> {
        v.iter()
            .flat_map(|x| x.to_array().map(f32::to_bits))
            .collect()
    };
    [
        ("pos", 4, v4(&s.pos)),
        ("vel", 4, v4(&s.vel)),
        ("acc", 4, v4(&s.acc)),
        ("colour", 4, v4(&s.colour)),
        (
            "life (age, lifetime, kind, id)",
            4,
            s.life
                .iter()
                .flat_map(|l| [l.age.to_bits(), l.lifetime.to_bits(), l.kind, l.id])
                .collect(),
        ),
        ("size", 1, s.size.iter().map(|x| x.to_bits()).collect()),
    ]
}

/// Every particle field bit for bit, naming the first slot and field that differ.
fn assert_same_bits(what: &str, a: &Snapshot, b: &Snapshot) {
    assert_eq!(a.len(), b.len(), "{what}: live particles");
    for ((name, width, x), (_, _, y)) in fields(a).into_iter().zip(fields(b)) {
        if let Some(j) = x.iter().zip(&y).position(|(p, q)| p != q) {
            panic!(
                "{what}: slot {} {name}[{}]: {:#010x} vs {:#010x}",
                j / width,
                j % width,
                x[j],
                y[j]
            );
        }
    }
}

fn trail_bits(w: &ParticleWorld) -> Vec<u32> {
    w.read_trails()
        .expect("trails")
        .iter()
        .flat_map(|x| x.to_array().map(f32::to_bits))
        .collect()
}

fn ids(w: &ParticleWorld) -> Vec<u32> {
    w.particle_handles().iter().map(|h| h.id()).collect()
}

/// The boxes of the scene's emitters (ids 0 and 1) that are in the world.
fn emitter_boxes(w: &ParticleWorld) -> Vec<Option<(Vec3, Vec3)>> {
    (0..2)
        .filter_map(|id| w.emitter_handle(id))
        .map(|h| w.read_emitter_bounds(h).expect("emitter bounds"))
        .collect()
}

/// Runs `s` on `backend`: saves after `before` steps, loads, steps both `after` more times and
/// holds them bit-equal. Returns the live count and the capacity at the save (to show what the
/// scene did).
fn continues_bit_identically(backend: impl Fn() -> Backend, s: &Scene) -> (usize, u32) {
    let mut a = build(backend(), s);
    for _ in 0..s.before {
        tick(&mut a, s);
        a.step(DT).expect("step");
    }
    let live = (a.read_snapshot().expect("snapshot").len(), a.capacity());
    let saved = a.save(SaveFormat::Binary).expect("save");
    let mut b = ParticleWorld::load(backend(), &saved).expect("load");
    assert_eq!(
        b.save(SaveFormat::Binary).expect("save the copy"),
        saved,
        "a loaded world saves the bytes it was loaded from"
    );
    assert_eq!(ids(&a), ids(&b), "the live handles' ids");
    assert_eq!(b.steps(), a.steps());
    assert_eq!(
        emitter_boxes(&a),
        emitter_boxes(&b),
        "emitter boxes after the load"
    );
    for k in 1..=s.after {
        tick(&mut a, s);
        tick(&mut b, s);
        let (ra, rb) = (a.step(DT).expect("step"), b.step(DT).expect("step"));
        let what = format!("{s:?}, step {k} after the save");
        if !a.is_gpu() {
            // On the GPU the status in a report is whichever read has landed (timing).
            assert_eq!(ra, rb, "{what}: step reports");
        }
        assert_same_bits(
            &what,
            &a.read_snapshot().expect("snapshot"),
            &b.read_snapshot().expect("snapshot"),
        );
        assert_eq!(trail_bits(&a), trail_bits(&b), "{what}: trails");
        assert_eq!(
            a.read_counters().expect("counters"),
            b.read_counters().expect("counters"),
            "{what}: counters"
        );
        assert_eq!(
            a.read_order().expect("order"),
            b.read_order().expect("order"),
            "{what}: back-to-front order"
        );
        assert_eq!(ids(&a), ids(&b), "{what}: live handles");
        assert_eq!(
            emitter_boxes(&a),
            emitter_boxes(&b),
            "{what}: emitter boxes"
        );
    }
    assert_eq!(
        a.save(SaveFormat::Binary).expect("save"),
        b.save(SaveFormat::Binary).expect("save"),
        "{s:?}: the two worlds' saves after {} more steps",
        s.after
    );
    live
}

fn scene() -> impl Strategy<Value = Scene> {
    (
        any::<u32>(),
        24u32..128,
        0u32..4,
        any::<[bool; 5]>(),
        1u64..30,
        1u64..30,
    )
        .prop_map(|(seed, capacity, trail_length, f, before, after)| Scene {
            seed,
            capacity,
            trail_length,
            kill_bounds: f[0],
            turbulence: f[1],
            emitters: f[2],
            view_sort: f[3],
            auto_grow: f[4],
            before,
            after,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random CPU scenes continue bit-identically after a save and a load.
    #[test]
    fn cpu_world_continues_bit_identically_after_load(s in scene()) {
        continues_bit_identically(|| Backend::Cpu, &s);
    }
}

/// The full scene on the CPU, saved after the parent emitter was removed (its slot retired,
/// holding its life curves for the particles still alive) and with a grown pool.
#[test]
fn cpu_world_with_a_retired_emitter_continues_bit_identically() {
    let s = Scene {
        capacity: 16,
        auto_grow: true,
        before: 25,
        after: 20,
        ..FULL
    };
    let (live, capacity) = continues_bit_identically(|| Backend::Cpu, &s);
    assert!(
        live >= 10 && capacity > 16,
        "{live} live, capacity {capacity}"
    );
    let mut w = build(Backend::Cpu, &s);
    for _ in 0..s.before {
        tick(&mut w, &s);
        w.step(DT).expect("step");
    }
    let text = String::from_utf8(w.save(SaveFormat::Text).expect("text")).expect("utf-8");
    assert!(text.contains("Retired("), "the save holds the retired slot");
}

/// A GPU context, or `None` (the GPU tests say so and skip) on a machine without an adapter.
fn gpu() -> Option<GpuContext> {
    match GpuContext::new() {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            eprintln!(
                "skipped: no wgpu adapter ({e}); install Mesa's lavapipe \
                 (`apt-get install -y mesa-vulkan-drivers`) to run the GPU half"
            );
            None
        }
    }
}

/// The full scene on the GPU continues bit-identically after a save and a load (same adapter).
#[test]
fn gpu_world_continues_bit_identically_after_load() {
    let Some(ctx) = gpu() else { return };
    let (live, _) = continues_bit_identically(|| Backend::Gpu(ctx.clone()), &FULL);
    assert!(
        live >= 10,
        "only {live} particles at the save: the scene did not run"
    );
    // A pool that fills and grows (auto_grow) before and after the save.
    let growing = Scene {
        capacity: 16,
        auto_grow: true,
        before: 20,
        after: 20,
        ..FULL
    };
    let (_, capacity) = continues_bit_identically(|| Backend::Gpu(ctx.clone()), &growing);
    assert!(capacity > 16, "the pool did not grow before the save");
}

/// The fireworks show's GPU/CPU bounds, as `tests/particles_parity_end_to_end.rs` argues them
/// (`fireworks_bounds`, which see): a lineage lives at most 300 steps, and the runs here are
/// 80 + 80 steps of the same show, so its bounds hold with room. The loaded world starts from
/// the saved bits, so the pair (source backend, other backend) is a parity pair from that state
/// on: ids, kinds and counters exact; position and velocity within the trajectory drift and a
/// burst's launch rounding; a child's lifetime within CONTRACT + ROUND; colour within its fade's
/// roundings.
fn fireworks_tol() -> SnapTol {
    let dt = f64::from(scenes::DT);
    let Drift { pos, vel } = trajectory_drift(300, dt, 90.0, 200.0, 3, 1_000);
    let burst = 2.0 * (CONTRACT * 40.0 + ROUND * 60.0 + ROUND * 90.0) * UNIT_ROUNDOFF;
    let u = |x: f64| (x * UNIT_ROUNDOFF) as f32;
    SnapTol {
        pos: Tol {
            rel: 0.0,
            abs: (pos + burst * 300.0 * dt) as f32,
        },
        vel: Tol {
            rel: 0.0,
            abs: (vel + burst) as f32,
        },
        colour: Tol {
            rel: 0.0,
            abs: u(DIV + CONTRACT + 3.0 * ROUND),
        },
        lifetime: Tol {
            rel: u(CONTRACT + ROUND),
            abs: 0.0,
        },
        ..SnapTol::EXACT
    }
}

/// A GPU save loaded on the CPU, and a CPU save loaded on the GPU, continue beside their
/// source within the parity bounds.
#[test]
fn save_loads_on_the_other_backend_within_parity() {
    let Some(ctx) = gpu() else { return };
    let gpu = || Backend::Gpu(ctx.clone());
    for (name, from, to) in [
        ("gpu save on the cpu", gpu(), Backend::Cpu),
        ("cpu save on the gpu", Backend::Cpu, gpu()),
    ] {
        let mut a = ParticleWorld::new(from, scenes::fireworks_config(2048, 3)).expect("world");
        for _ in 0..80 {
            scenes::fireworks_tick(&mut a).expect("launch");
            a.step(scenes::DT).expect("step");
        }
        let mut b = ParticleWorld::load(to, &a.save(SaveFormat::Binary).expect("save"))
            .expect("load on the other backend");
        assert_ne!(a.is_gpu(), b.is_gpu());
        let mut max_live = 0;
        for k in 1..=80 {
            scenes::fireworks_tick(&mut a).expect("launch");
            scenes::fireworks_tick(&mut b).expect("launch");
            a.step(scenes::DT).expect("step");
            b.step(scenes::DT).expect("step");
            let what = format!("{name}, step {k} after the load");
            let (ca, cb) = (a.read_counters().expect("c"), b.read_counters().expect("c"));
            assert_counters_eq(&what, &ca, &cb);
            if k % 20 == 0 {
                let (sa, sb) = (a.read_snapshot().expect("s"), b.read_snapshot().expect("s"));
                max_live = max_live.max(sa.len());
                compare_snapshots(&what, &sa, &sb, fireworks_tol());
            }
        }
        assert!(
            max_live >= 20,
            "{name}: at most {max_live} live; the show did not run"
        );
    }
}

/// A small CPU world with every feature, saved after a few steps.
fn small_world() -> ParticleWorld {
    let s = Scene {
        capacity: 24,
        trail_length: 2,
        before: 8,
        ..FULL
    };
    let mut w = build(Backend::Cpu, &s);
    for _ in 0..s.before {
        tick(&mut w, &s);
        w.step(DT).expect("step");
    }
    assert!(
        w.read_counters().expect("counters").live >= 3,
        "the scene ran"
    );
    w
}

fn load_error(bytes: &[u8]) -> (String, String) {
    match ParticleWorld::load(Backend::Cpu, bytes) {
        Err(Error::Load { field, reason }) => (field, reason),
        Err(other) => panic!("not a load error: {other}"),
        Ok(_) => panic!("a damaged file loaded"),
    }
}

/// Both formats load into the same world: its binary and text saves are the original's.
#[test]
fn both_formats_round_trip() {
    let mut w = small_world();
    let binary = w.save(SaveFormat::Binary).expect("binary");
    let text = w.save(SaveFormat::Text).expect("text");
    assert!(text.starts_with(format!("wgphys-save {SAVE_VERSION} particles\n").as_bytes()));
    assert_eq!(wgphys::save::detect(&binary), Some(SaveFormat::Binary));
    assert_eq!(wgphys::save::detect(&text), Some(SaveFormat::Text));
    for (name, bytes) in [("binary", &binary), ("text", &text)] {
        let mut copy = ParticleWorld::load(Backend::Cpu, bytes).expect("load");
        assert_eq!(
            copy.save(SaveFormat::Binary).expect("save"),
            binary,
            "loaded from {name}: binary"
        );
        assert_eq!(
            copy.save(SaveFormat::Text).expect("save"),
            text,
            "loaded from {name}: text"
        );
    }
    // A rigid world's loader refuses it by its header.
    let mut other = binary.clone();
    other[12] = 1;
    assert_eq!(load_error(&other).0, "header.world");
}

/// Every truncation of a binary save, and a sample of a text save's, is a load error.
#[test]
fn truncated_files_are_load_errors() {
    let mut w = small_world();
    let binary = w.save(SaveFormat::Binary).expect("binary");
    for n in 0..binary.len() {
        load_error(&binary[..n]);
    }
    let text = w.save(SaveFormat::Text).expect("text");
    // The text ends in `)` and a newline: any cut before the `)` leaves the state unfinished.
    let end = text
        .iter()
        .rposition(|&c| c == b')')
        .expect("the state's end");
    for n in (0..end).step_by(13) {
        load_error(&text[..n]);
    }
}

/// A file from a newer wgphys is refused at `header.version`, in both formats.
#[test]
fn newer_version_names_header_version() {
    let mut w = small_world();
    let mut binary = w.save(SaveFormat::Binary).expect("binary");
    binary[8..12].copy_from_slice(&(SAVE_VERSION + 1).to_le_bytes());
    let (field, reason) = load_error(&binary);
    assert_eq!(field, "header.version", "{reason}");
    assert!(reason.contains("newer wgphys"), "{reason}");
    let text = String::from_utf8(w.save(SaveFormat::Text).expect("text")).expect("utf-8");
    let newer = text.replacen(
        &format!("wgphys-save {SAVE_VERSION} "),
        &format!("wgphys-save {} ", SAVE_VERSION + 1),
        1,
    );
    assert_eq!(load_error(newer.as_bytes()).0, "header.version");
}

/// Values edited into a text save are refused naming their field: a NaN in a particle's
/// position, a capacity below the live particles, trails of the wrong length, a firework type
/// beyond the rule table.
#[test]
fn edited_values_name_their_field() {
    let mut w = small_world();
    let text = String::from_utf8(w.save(SaveFormat::Text).expect("text")).expect("utf-8");
    let at = text.find("particles: [").expect("the particles");
    let pos = at + text[at..].find("position: (").expect("a position") + "position: (".len();
    let comma = pos + text[pos..].find(',').expect("a component");
    let nan = format!("{}NaN{}", &text[..pos], &text[comma..]);
    let (field, reason) = load_error(nan.as_bytes());
    assert_eq!(field, "particles[0].position", "{reason}");
    assert!(reason.contains("NaN"), "{reason}");

    let small = text.replacen("capacity: 24,", "capacity: 2,", 1);
    assert_ne!(small, text, "the capacity is in the text");
    let (field, reason) = load_error(small.as_bytes());
    assert_eq!(field, "particles", "{reason}");

    // Trails of another length than the configuration's.
    let longer = text.replacen("trail_length: 2,", "trail_length: 3,", 1);
    assert_ne!(longer, text, "the trail length is in the text");
    let (field, reason) = load_error(longer.as_bytes());
    assert_eq!(field, "particles[0].trail", "{reason}");

    // A firework type beyond the rule table (the book's nine).
    let kind = at + text[at..].find("kind: ").expect("a kind") + "kind: ".len();
    let end = kind + text[kind..].find(',').expect("the kind's end");
    let beyond = format!("{}200{}", &text[..kind], &text[end..]);
    let (field, reason) = load_error(beyond.as_bytes());
    assert_eq!(field, "particles[0].life.kind", "{reason}");
    assert!(reason.contains("firework type 200"), "{reason}");
}

/// Random byte flips never panic: each damaged file is an error, or (a flip into a value the
/// checks cannot tell from a real one) a world that steps.
#[test]
fn random_byte_flips_never_panic() {
    let mut w = small_world();
    let binary = w.save(SaveFormat::Binary).expect("binary");
    let text = w.save(SaveFormat::Text).expect("text");
    let mut rng = Rng::new(0x5eed);
    let (mut loaded, mut refused) = (0, 0);
    for i in 0..3000 {
        let mut bytes = if i % 4 == 3 {
            text.clone()
        } else {
            binary.clone()
        };
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(bytes.len() as u32) as usize;
            bytes[at] ^= 1 << rng.below(8);
        }
        match ParticleWorld::load(Backend::Cpu, &bytes) {
            Ok(mut world) => {
                loaded += 1;
                for _ in 0..2 {
                    let _ = world.step(DT);
                }
            }
            Err(Error::Load { .. }) => refused += 1,
            Err(other) => panic!("flip {i}: not a load error: {other}"),
        }
    }
    eprintln!("[measure] byte flips: {refused} refused, {loaded} loaded and stepped");
    assert!(refused > 1000, "{refused} refused, {loaded} loaded");
}
