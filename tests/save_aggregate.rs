#![cfg(feature = "serde")]
//! Saving and loading the mass-aggregate world (`AggregateWorld::save` / `load`).
//!
//! * Bit identity: a world saved after N steps and loaded into a new world on the same backend
//!   continues bit for bit: M more steps of both (with the same edits through handles taken
//!   before the save: a moved anchor, a removed link, a new link and particle, a new own
//!   acceleration) leave every particle field equal bit for bit, and both save the same bytes.
//!   Random scenes on the CPU (proptest), one scene on the GPU; each scene has springs, rods,
//!   cables, every generator kind, removed particles, links and generators, fields (turbulence,
//!   which drifts with the seconds stepped), a ground plane and, in some, grid collisions.
//! * Both formats: the text and the binary save of a world load to the same state (the other
//!   format's save of the loaded world is byte-equal to the original's).
//! * Across backends: the rope bridge saved on one backend and loaded on the other starts bit
//!   for bit where the saved world is and stays within the bridge's GPU/CPU error model
//!   (tests/aggregate_end_to_end/bridge_model.rs) over 30 more steps.
//! * Refusals: every truncation of a small save, a newer format version, a NaN in a position,
//!   a link to a slot that does not exist or was removed are `Error::Load` naming the field; a
//!   few thousand random byte flips never panic (loading or stepping what loads).

mod common;

#[path = "aggregate_end_to_end/bridge_model.rs"]
mod bridge_model;

use common::*;
use glam::{Vec3, Vec4, Vec4Swizzles};
use proptest::prelude::{any, proptest, ProptestConfig};
use wgphys::aggregate::{
    AggSnapshot, AggregateConfig, AggregateWorld, Collisions, ForceGenerator, GeneratorId, Link,
    LinkId, ParticleId,
};
use wgphys::particles::{ForceField, Particle, ParticleCollider};
use wgphys::save::{SaveFormat, SAVE_VERSION};
use wgphys::{Backend, Error};

const DT: f32 = 1.0 / 60.0;

/// Handles a scene keeps to edit the world after a save.
struct Handles {
    particles: Vec<ParticleId>,
    anchored: GeneratorId,
    link: LinkId,
}

impl Handles {
    /// The same items' handles in `w`, a world loaded from a save of theirs: found again by
    /// slot, as `AggregateWorld::load` says. The saved world's own handles are refused there.
    fn in_world(&self, w: &AggregateWorld) -> Handles {
        assert!(
            self.particles.iter().all(|&p| !w.contains_particle(p)),
            "a handle of another world is refused by the loaded one"
        );
        Handles {
            particles: (self.particles.iter())
                .map(|p| w.particle_handle_at(p.index()).expect("particle slot"))
                .collect(),
            anchored: (w.generator_handle_at(self.anchored.index())).expect("generator slot"),
            link: w.link_handle_at(self.link.index()).expect("link slot"),
        }
    }
}

/// A small random scene: `count` particles (one of them removed), springs, bungees, every other
/// generator kind, rods and cables between particles and to anchors, one removed generator and
/// one removed link, gravity and turbulence fields, a ground plane, and with `collisions` the
/// grid.
fn scene(backend: Backend, seed: u64, count: u32, collisions: bool) -> (AggregateWorld, Handles) {
    let mut r = Rng::new(seed);
    let config = AggregateConfig {
        capacity: 40,
        fields: vec![
            ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0)),
            ForceField::Turbulence {
                scale: 0.7,
                strength: 2.0,
                scroll: Vec3::new(0.3, 0.0, 0.1),
            },
        ],
        colliders: vec![ParticleCollider::ground(0.5, 0.3)],
        collisions: collisions.then_some(Collisions {
            iterations: 3,
            ..Default::default()
        }),
        link_iterations: 6,
        ..Default::default()
    };
    let mut w = AggregateWorld::new(backend, config).expect("world");
    let ps: Vec<Particle> = (0..count)
        .map(|i| {
            let mut p = Particle::new(r.vec3(-1.0, 1.0) + Vec3::Y * 1.5)
                .with_velocity(r.vec3(-1.0, 1.0))
                .with_damping(r.range(0.8, 1.0))
                .with_mass(r.range(0.5, 2.0))
                .with_size(0.1)
                .with_colour(Vec4::new(r.unit(), r.unit(), r.unit(), 1.0));
            if i % 5 == 3 {
                p = p.with_acceleration(r.vec3(-0.5, 0.5));
            }
            if i % 7 == 6 {
                p = p.with_inverse_mass(0.0);
            }
            p
        })
        .collect();
    let ids = w.add_particles(&ps).expect("particles");
    let pick2 = |r: &mut Rng| {
        let a = r.below(count - 1);
        let b = a + 1 + r.below(count - 1 - a);
        (ids[a as usize], ids[b as usize])
    };
    let mut gens = Vec::new();
    for k in 0..10 {
        let (a, b) = pick2(&mut r);
        let anchor = r.vec3(-1.0, 1.0) + Vec3::Y * 2.0;
        let g = match k {
            0 => ForceGenerator::Spring {
                a,
                b,
                stiffness: 20.0,
                rest_length: 0.5,
            },
            1 => ForceGenerator::AnchoredSpring {
                particle: a,
                anchor,
                stiffness: 10.0,
                rest_length: 0.3,
            },
            2 => ForceGenerator::Bungee {
                a,
                b,
                stiffness: 15.0,
                rest_length: 0.4,
            },
            3 => ForceGenerator::AnchoredBungee {
                particle: b,
                anchor,
                stiffness: 8.0,
                rest_length: 0.6,
            },
            4 => ForceGenerator::Buoyancy {
                particle: a,
                max_depth: 0.2,
                volume: 0.001,
                water_height: 1.0,
                density: 1000.0,
                gravity: 9.81,
            },
            5 => ForceGenerator::FakeSpring {
                particle: b,
                anchor,
                stiffness: 4.0,
                damping: 0.5,
            },
            6 => ForceGenerator::DampedSpring {
                a,
                b,
                rest_length: 0.5,
                stiffness: 0.3,
                damping: 0.2,
            },
            7 => ForceGenerator::AnchoredDampedSpring {
                particle: a,
                anchor,
                rest_length: 0.2,
                stiffness: 0.4,
                damping: 0.1,
            },
            8 => ForceGenerator::Gravity {
                particle: b,
                g: Vec3::new(0.5, 0.0, 0.0),
            },
            _ => ForceGenerator::Drag {
                particle: a,
                k1: 0.1,
                k2: 0.05,
            },
        };
        gens.push(w.add_generator(g).expect("generator"));
    }
    let mut links = Vec::new();
    for k in 0..8 {
        let (a, b) = pick2(&mut r);
        let anchor = r.vec3(-1.0, 1.0) + Vec3::Y * 3.0;
        let l = match k % 4 {
            0 => Link::Rod { a, b, length: 0.6 },
            1 => Link::Cable {
                a,
                b,
                max_length: 0.9,
                restitution: 0.3,
            },
            2 => Link::AnchoredRod {
                particle: a,
                anchor,
                length: 1.5,
            },
            _ => Link::AnchoredCable {
                particle: b,
                anchor,
                max_length: 2.0,
                restitution: 0.5,
            },
        };
        links.push(w.add_link(l).expect("link"));
    }
    w.remove_generator(gens[2]).expect("remove generator");
    w.remove_link(links[1]).expect("remove link");
    // One particle nothing uses, removed (its slot stays).
    let spare = w
        .add_particle(Particle::new(Vec3::new(0.0, 3.0, 0.0)).with_size(0.05))
        .expect("spare");
    w.remove_particle(spare).expect("remove particle");
    let anchored = gens[1];
    (
        w,
        Handles {
            particles: ids,
            anchored,
            link: links[2],
        },
    )
}

/// Every lane of every slot's position and velocity, as bits.
fn bits(s: &AggSnapshot) -> Vec<[u32; 8]> {
    s.pos
        .iter()
        .zip(&s.vel)
        .map(|(p, v)| {
            let (p, v) = (p.to_array(), v.to_array());
            std::array::from_fn(|k| if k < 4 { p[k] } else { v[k - 4] }.to_bits())
        })
        .collect()
}

/// Every particle field the world holds (positions and velocities read back; on the CPU also
/// accelerations, radii and colours), as bits.
fn fields(w: &AggregateWorld) -> Vec<u32> {
    let mut out: Vec<u32> = bits(&w.read_snapshot().expect("snapshot"))
        .into_iter()
        .flatten()
        .collect();
    if let Some(s) = w.cpu_state() {
        let n = w.len();
        for v in [&s.acc[..n], &s.colour[..n]] {
            out.extend(v.iter().flat_map(|x| x.to_array().map(f32::to_bits)));
        }
        out.extend(s.radius[..n].iter().map(|x| x.to_bits()));
    }
    out
}

/// The same edit on a world, through handles taken before the save.
fn edit(w: &mut AggregateWorld, h: &Handles, k: u32) {
    match k {
        1 => w
            .set_anchor(h.anchored, Vec3::new(0.2, 2.5, -0.1))
            .expect("set_anchor"),
        2 => w.remove_link(h.link).expect("remove_link"),
        3 => {
            let p = w
                .add_particle(Particle::new(Vec3::new(0.5, 2.0, 0.5)).with_size(0.1))
                .expect("add_particle");
            w.add_link(Link::Rod {
                a: h.particles[0],
                b: p,
                length: 0.8,
            })
            .expect("add_link");
        }
        4 => w
            .set_acceleration(h.particles[1], Vec3::new(0.0, 1.0, 0.0))
            .expect("set_acceleration"),
        _ => {}
    }
}

/// Steps `a` (the saved world) and `b` (loaded from its save) `m` times with the same edits,
/// requiring every particle field bit-equal after every step, then the same saves in both
/// formats.
fn continue_together(
    label: &str,
    a: &mut AggregateWorld,
    b: &mut AggregateWorld,
    h: &Handles,
    m: u32,
) {
    assert_eq!(fields(a), fields(b), "{label}: right after loading");
    assert_eq!(a.steps(), b.steps(), "{label}: steps");
    let hb = h.in_world(b);
    for k in 0..m {
        edit(a, h, k);
        edit(b, &hb, k);
        a.step(DT).expect("step saved world");
        b.step(DT).expect("step loaded world");
        assert_eq!(
            fields(a),
            fields(b),
            "{label}: step {} after loading: a particle field differs",
            k + 1
        );
    }
    for format in [SaveFormat::Binary, SaveFormat::Text] {
        assert!(
            a.save(format).expect("save a") == b.save(format).expect("save b"),
            "{label}: {format:?} saves differ after {m} steps"
        );
    }
}

/// Save after `n` steps, load on the same backend from both formats, continue `m` steps.
fn round_trip(
    label: &str,
    backend: impl Fn() -> Backend,
    seed: u64,
    collisions: bool,
    n: u32,
    m: u32,
) {
    let (mut w, h) = scene(backend(), seed, 10 + (seed % 8) as u32, collisions);
    for _ in 0..n {
        w.step(DT).expect("step");
    }
    let binary = w.save(SaveFormat::Binary).expect("binary save");
    let text = w.save(SaveFormat::Text).expect("text save");
    let mut from_text = AggregateWorld::load(backend(), &text).expect("load text");
    // Both formats hold the same state: each loaded world saves the other's bytes.
    assert!(
        from_text.save(SaveFormat::Binary).expect("save") == binary,
        "{label}: the text save loads to another state than the binary one"
    );
    let mut from_binary = AggregateWorld::load(backend(), &binary).expect("load binary");
    assert!(
        from_binary.save(SaveFormat::Text).expect("save") == text,
        "{label}: the binary save loads to another state than the text one"
    );
    continue_together(
        &format!("{label} (binary)"),
        &mut w,
        &mut from_binary,
        &h,
        m,
    );
    // The text-loaded world against a fresh load of the binary save, both from step N.
    let mut again = AggregateWorld::load(backend(), &binary).expect("load binary again");
    let h_again = h.in_world(&again);
    continue_together(
        &format!("{label} (text)"),
        &mut again,
        &mut from_text,
        &h_again,
        m,
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Random CPU scenes: save after N steps, load, M more steps bit for bit.
    #[test]
    fn cpu_save_load_continues_bit_for_bit(
        seed in any::<u64>(),
        collisions in any::<bool>(),
        n in 0u32..6,
        m in 1u32..6,
    ) {
        round_trip(&format!("cpu seed {seed:#x}"), || Backend::Cpu, seed, collisions, n, m);
    }
}

/// One GPU scene with the grid: save after 3 steps, load, 5 more steps bit for bit.
#[test]
fn gpu_save_load_continues_bit_for_bit() {
    round_trip("gpu", || Backend::Gpu(shared_gpu()), 0x5a7e, true, 3, 5);
}

/// The rope bridge saved after 20 steps on `from` and loaded on `to`: it starts bit for bit
/// where the saved world is, then both run 30 more steps; at every 10th, every slot within the
/// bridge's GPU/CPU error model from that start (tests/aggregate_end_to_end/bridge_model.rs:
/// the bound the end-to-end test holds the two backends to over a whole run, here over the
/// steps after the load, from the loaded state).
fn across(label: &str, from: Backend, to: Backend) {
    let mut saved = wgphys::scenes::aggregate::bridge(from)
        .expect("bridge")
        .world;
    for _ in 0..20 {
        saved.step(DT).expect("step");
    }
    let bytes = saved.save(SaveFormat::Binary).expect("save");
    let mut loaded = AggregateWorld::load(to, &bytes).expect("load on the other backend");
    let start = saved.read_snapshot().expect("snapshot");
    assert_eq!(
        bits(&start),
        bits(&loaded.read_snapshot().expect("snapshot")),
        "{label}: the loaded world does not start where the saved one is"
    );
    let cpu = if loaded.cpu_state().is_some() {
        &loaded
    } else {
        &saved
    };
    let (bounds, _) = bridge_model::bridge_bounds(cpu, 30);
    let mut used = 0.0f32;
    for s in 1..=30u32 {
        saved.step(DT).expect("step saved");
        loaded.step(DT).expect("step loaded");
        if s % 10 != 0 {
            continue;
        }
        let [pos, vel] = bounds[(s / 10 - 1) as usize];
        let tol = |x: f64| Tol {
            rel: 0.0,
            abs: x as f32,
        };
        let (a, b) = (
            saved.read_snapshot().expect("snapshot"),
            loaded.read_snapshot().expect("snapshot"),
        );
        let e = compare_agg(&format!("{label} step {s}"), &a, &b, tol(pos), tol(vel));
        used = used.max(e.pos.used).max(e.vel.used);
    }
    eprintln!(
        "[measure] {label}: at most {:.0}% of the bridge model's bounds",
        100.0 * used
    );
    assert_eq!(
        loaded.steps(),
        50,
        "{label}: steps counted on from the save"
    );
}

#[test]
fn gpu_save_loads_on_the_cpu() {
    across(
        "gpu save on the cpu",
        Backend::Gpu(shared_gpu()),
        Backend::Cpu,
    );
}

#[test]
fn cpu_save_loads_on_the_gpu() {
    across(
        "cpu save on the gpu",
        Backend::Cpu,
        Backend::Gpu(shared_gpu()),
    );
}

/// A small CPU world: 4 particles (the last removed), a spring and a rod between 0 and 1, a
/// step taken.
fn small() -> AggregateWorld {
    let mut w = AggregateWorld::new(
        Backend::Cpu,
        AggregateConfig {
            capacity: 8,
            fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
            link_iterations: 4,
            ..Default::default()
        },
    )
    .expect("world");
    let ids = w
        .add_particles(&[
            Particle::new(Vec3::new(0.0, 1.0, 0.0)),
            Particle::new(Vec3::new(1.0, 1.0, 0.0)),
            Particle::new(Vec3::new(2.0, 1.0, 0.0)),
            Particle::new(Vec3::new(3.0, 1.0, 0.0)),
        ])
        .expect("particles");
    w.add_generator(ForceGenerator::Spring {
        a: ids[0],
        b: ids[1],
        stiffness: 5.0,
        rest_length: 1.0,
    })
    .expect("spring");
    w.add_link(Link::Rod {
        a: ids[0],
        b: ids[1],
        length: 1.0,
    })
    .expect("rod");
    w.remove_particle(ids[3]).expect("remove");
    w.step(DT).expect("step");
    w
}

/// The field of a load error; panics naming `what` for anything else.
fn load_field(what: &str, r: Result<AggregateWorld, Error>) -> String {
    match r {
        Err(Error::Load { field, reason }) => {
            assert!(!reason.is_empty(), "{what}: empty reason");
            field
        }
        Err(e) => panic!("{what}: not a load error: {e}"),
        Ok(_) => panic!("{what}: loaded"),
    }
}

fn text(w: &mut AggregateWorld) -> String {
    String::from_utf8(w.save(SaveFormat::Text).expect("text save")).expect("utf-8")
}

#[test]
fn every_truncation_is_a_load_error() {
    let mut w = small();
    let binary = w.save(SaveFormat::Binary).expect("save");
    for len in 0..binary.len() {
        load_field(
            &format!("binary cut at {len} of {}", binary.len()),
            AggregateWorld::load(Backend::Cpu, &binary[..len]),
        );
    }
    // The text's last line is its closing parenthesis and a newline; a cut anywhere before
    // that parenthesis leaves the state unfinished.
    let t = text(&mut w);
    let end = t.rfind(')').expect("a closing parenthesis");
    for len in 0..=end {
        load_field(
            &format!("text cut at {len} of {}", t.len()),
            AggregateWorld::load(Backend::Cpu, &t.as_bytes()[..len]),
        );
    }
}

#[test]
fn a_newer_version_is_refused_naming_the_header() {
    let mut w = small();
    let mut binary = w.save(SaveFormat::Binary).expect("save");
    binary[8..12].copy_from_slice(&(SAVE_VERSION + 1).to_le_bytes());
    assert_eq!(
        load_field("binary v+1", AggregateWorld::load(Backend::Cpu, &binary)),
        "header.version"
    );
    let t = text(&mut w).replacen(
        &format!("wgphys-save {SAVE_VERSION} "),
        &format!("wgphys-save {} ", SAVE_VERSION + 1),
        1,
    );
    assert_eq!(
        load_field("text v+1", AggregateWorld::load(Backend::Cpu, t.as_bytes())),
        "header.version"
    );
    let t = text(&mut w).replacen(" aggregate\n", " rigid\n", 1);
    assert_eq!(
        load_field(
            "a rigid header",
            AggregateWorld::load(Backend::Cpu, t.as_bytes())
        ),
        "header.world"
    );
}

/// The text with the first number after `marker` (and after the `(` that opens its value)
/// replaced by `value`.
fn replace_after(t: &str, marker: &str, value: &str) -> String {
    let at = t
        .find(marker)
        .unwrap_or_else(|| panic!("no `{marker}` in\n{t}"))
        + marker.len();
    let open = at + t[at..].find('(').expect("a parenthesis") + 1;
    let start = open
        + t[open..]
            .find(|c: char| !c.is_whitespace())
            .expect("a value");
    let len = t[start..]
        .find(|c: char| c == ',' || c == ')' || c.is_whitespace())
        .expect("the value's end");
    format!("{}{value}{}", &t[..start], &t[start + len..])
}

#[test]
fn a_nan_position_is_refused_naming_the_field() {
    let mut w = small();
    let t = text(&mut w);
    let bad = replace_after(&t, "pos:", "NaN");
    assert_ne!(bad, t);
    assert_eq!(
        load_field(
            "NaN in pos",
            AggregateWorld::load(Backend::Cpu, bad.as_bytes())
        ),
        "particles.pos[0]"
    );
}

/// How the text save writes a generator's or link's end `name` naming slot `index` (a handle:
/// its slot, then its generation on the next line).
fn end(name: &str, index: u32) -> String {
    format!("{name}: (\n                index: {index},")
}

#[test]
fn a_link_index_out_of_range_is_refused_naming_the_field() {
    let mut w = small();
    let t = text(&mut w);
    // The rod joins slots 0 and 1; there are 4 slots (slot 3 removed).
    let links = t.find("links:").expect("links");
    let (head, tail) = t.split_at(links);
    let far = tail.replacen(&end("b", 1), &end("b", 9), 1);
    assert_ne!(far, tail, "no `b: (1)` in the links of\n{t}");
    assert_eq!(
        load_field(
            "link to slot 9",
            AggregateWorld::load(Backend::Cpu, format!("{head}{far}").as_bytes())
        ),
        "links[0].b"
    );
    let removed = tail.replacen(&end("b", 1), &end("b", 3), 1);
    assert_eq!(
        load_field(
            "link to the removed slot 3",
            AggregateWorld::load(Backend::Cpu, format!("{head}{removed}").as_bytes())
        ),
        "links[0].b"
    );
    // A live slot, but of another generation than the slot's: a handle no world issued.
    let b = end("b", 1);
    let other = tail.replacen(
        &format!("{b}\n                generation: 0,"),
        &format!("{b}\n                generation: 5,"),
        1,
    );
    assert_ne!(other, tail, "no generation after `b: (1)` in\n{t}");
    assert_eq!(
        load_field(
            "link to slot 1 of generation 5",
            AggregateWorld::load(Backend::Cpu, format!("{head}{other}").as_bytes())
        ),
        "links[0].b"
    );
    // The generator's end too, and a slot count above the capacity.
    let gens = t.find("generators:").expect("generators");
    let (head, tail) = t.split_at(gens);
    let far = tail.replacen(&end("a", 0), &end("a", 4), 1);
    assert_eq!(
        load_field(
            "spring from slot 4",
            AggregateWorld::load(Backend::Cpu, format!("{head}{far}").as_bytes())
        ),
        "generators[0].a"
    );
    let small_cap = t.replacen("capacity: 8,", "capacity: 3,", 1);
    assert_eq!(
        load_field(
            "capacity 3 for 4 slots",
            AggregateWorld::load(Backend::Cpu, small_cap.as_bytes())
        ),
        "particles.pos"
    );
}

/// A particle in 65 links needs 65 colours: the API refuses the 65th link, and so does a load.
#[test]
fn links_no_step_could_colour_are_refused_naming_the_link() {
    let mut w = AggregateWorld::new(
        Backend::Cpu,
        AggregateConfig {
            capacity: 80,
            ..Default::default()
        },
    )
    .expect("world");
    let ids = w
        .add_particles(&vec![Particle::new(Vec3::ZERO); 67])
        .expect("particles");
    for &b in &ids[1..65] {
        w.add_link(Link::Cable {
            a: ids[0],
            b,
            max_length: 1.0,
            restitution: 0.0,
        })
        .expect("one of 64 colours");
    }
    w.add_link(Link::Cable {
        a: ids[65],
        b: ids[66],
        max_length: 1.0,
        restitution: 0.0,
    })
    .expect("a link apart");
    let t = text(&mut w);
    AggregateWorld::load(Backend::Cpu, t.as_bytes()).expect("64 colours load");
    let bad = t.replacen(&end("a", 65), &end("a", 0), 1);
    assert_ne!(bad, t);
    assert_eq!(
        load_field(
            "65 colours",
            AggregateWorld::load(Backend::Cpu, bad.as_bytes())
        ),
        "links[64]"
    );
}

#[test]
fn lengths_that_disagree_are_refused_naming_the_field() {
    let mut w = small();
    let t = text(&mut w);
    // Drops the first radius: 3 radii for 4 positions.
    let at = t.find("radius: [").expect("radii") + "radius: [".len();
    let first_end = at + 1 + t[at + 1..].find('\n').expect("a line");
    let bad = format!("{}{}", &t[..at], &t[first_end..]);
    assert_eq!(
        load_field(
            "3 radii",
            AggregateWorld::load(Backend::Cpu, bad.as_bytes())
        ),
        "particles.radius"
    );
}

/// Random byte changes (1 to 3 per try) of small saves (the small world in both formats, a
/// scene with every generator kind and the grid in binary) never panic, in loading or in a
/// step of what loads; what fails is a load error.
#[test]
fn random_byte_flips_never_panic() {
    let mut w = small();
    let (mut grid, _) = scene(Backend::Cpu, 0xf1, 10, true);
    grid.step(DT).expect("step");
    let saves = [
        (w.save(SaveFormat::Binary).expect("save"), 2000),
        (grid.save(SaveFormat::Binary).expect("save"), 1500),
        (w.save(SaveFormat::Text).expect("save"), 500),
    ];
    let mut r = Rng::new(0xf11b);
    let mut loaded = 0;
    for (clean, tries) in &saves {
        for t in 0..*tries {
            let mut bytes = clean.clone();
            for _ in 0..1 + r.below(3) {
                let i = r.below(bytes.len() as u32) as usize;
                bytes[i] ^= 1 + r.below(255) as u8;
            }
            let outcome = std::panic::catch_unwind(|| {
                AggregateWorld::load(Backend::Cpu, &bytes).and_then(|mut w| w.step(DT))
            });
            match outcome {
                Err(_) => panic!("try {t}: loading (or stepping) changed bytes panicked"),
                Ok(Ok(_)) => loaded += 1,
                Ok(Err(Error::Load { .. })) => {}
                Ok(Err(e)) => panic!("try {t}: not a load error: {e}"),
            }
        }
    }
    let total: u32 = saves.iter().map(|(_, n)| n).sum();
    eprintln!("[measure] byte flips: {loaded} of {total} changed saves loaded (a value changed)");
}

#[test]
fn a_world_with_nothing_in_it_round_trips() {
    let mut w = AggregateWorld::new(Backend::Cpu, AggregateConfig::default()).expect("world");
    for format in [SaveFormat::Binary, SaveFormat::Text] {
        let bytes = w.save(format).expect("save");
        let mut l = AggregateWorld::load(Backend::Cpu, &bytes).expect("load");
        assert!(l.is_empty());
        assert!(l.save(format).expect("save") == bytes);
    }
}
