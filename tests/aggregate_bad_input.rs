//! Bad input to the mass-aggregate world gives a clear, typed error and changes nothing.
//!
//! "Changes nothing" is checked against a control world built and driven identically except for
//! the failed call: right after the call the world's snapshot, slot count and link colours are
//! what they were, and after one more step on both its snapshot equals the control's bit for bit
//! (so nothing was half-added by the failed call). Every case runs on the CPU and on the GPU.

mod common;

use common::*;
use glam::Vec3;
use wgphys::aggregate::{
    AggregateConfig, AggregateWorld, Collisions, ForceGenerator, GeneratorId, Link, LinkId,
    ParticleId,
};
use wgphys::particles::{ForceField, Particle, ParticleCollider};
use wgphys::Backend;
use wgphys::Error;

const DT: f32 = 1.0 / 60.0;
/// Grid cell of the twins' collision grid: grains up to 0.1 m radius fit.
const CELL: f32 = 0.2;

/// The twins' configuration: gravity and a floor, and with `grid` particle–particle collisions
/// on a grid of cell `CELL` (only where a case needs it: a grid build is the most expensive part
/// of a step on llvmpipe's GL driver).
fn config(grid: bool) -> AggregateConfig {
    AggregateConfig {
        capacity: 16,
        fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
        colliders: vec![ParticleCollider::ground(0.5, 0.3)],
        collisions: grid.then(|| Collisions {
            cell_size: CELL,
            table_size: 64,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A world that receives the bad calls, its control, and the ids both hold.
struct Twin {
    name: &'static str,
    w: AggregateWorld,
    control: AggregateWorld,
    ids: Vec<ParticleId>,
    /// The spring between particles 0 and 1.
    spring: GeneratorId,
    /// The rod between particles 1 and 2.
    rod: LinkId,
}

impl Twin {
    /// Five grains, a spring (0–1), a rod (1–2), an anchored cable (3) and a fake spring (4),
    /// stepped once.
    fn new(name: &'static str, backend: impl Fn() -> Backend, grid: bool) -> Self {
        let build = |b: Backend| {
            let mut w = AggregateWorld::new(b, config(grid)).expect("world");
            let ps: Vec<Particle> = (0..5)
                .map(|i| {
                    Particle::new(Vec3::new(0.3 * i as f32, 1.0 + 0.1 * i as f32, 0.0))
                        .with_velocity(Vec3::new(1.0, 2.0, -1.0))
                        .with_size(0.05)
                })
                .collect();
            let ids = w.add_particles(&ps).expect("particles");
            let spring = w
                .add_generator(ForceGenerator::Spring {
                    a: ids[0],
                    b: ids[1],
                    stiffness: 20.0,
                    rest_length: 0.4,
                })
                .expect("spring");
            let rod = w
                .add_link(Link::Rod {
                    a: ids[1],
                    b: ids[2],
                    length: 0.35,
                })
                .expect("rod");
            w.add_link(Link::AnchoredCable {
                particle: ids[3],
                anchor: Vec3::new(1.0, 2.0, 0.0),
                max_length: 1.0,
                restitution: 0.5,
            })
            .expect("cable");
            w.add_generator(ForceGenerator::FakeSpring {
                particle: ids[4],
                anchor: Vec3::new(1.5, 1.5, 0.0),
                stiffness: 30.0,
                damping: 1.0,
            })
            .expect("fake spring");
            (w, ids, spring, rod)
        };
        let (w, ids, spring, rod) = build(backend());
        let (control, ids_c, _, _) = build(backend());
        assert!(
            ids.iter().zip(&ids_c).all(|(a, b)| a.index() == b.index()),
            "{name}: both worlds put the particles in the same slots"
        );
        let mut t = Self {
            name,
            w,
            control,
            ids,
            spring,
            rod,
        };
        t.step_both();
        t
    }

    fn step_both(&mut self) {
        self.w.step(DT).expect("step");
        self.control.step(DT).expect("control step");
    }

    /// Applies a legitimate call to both worlds.
    fn both<T>(&mut self, call: impl Fn(&mut AggregateWorld) -> Result<T, Error>) {
        call(&mut self.w).expect("call on the world");
        call(&mut self.control).expect("call on the control");
    }

    /// Makes a call that must fail with an error `want` accepts, then checks nothing changed.
    fn rejects<T: std::fmt::Debug>(
        &mut self,
        case: &str,
        call: impl FnOnce(&mut AggregateWorld) -> Result<T, Error>,
        want: impl Fn(&Error) -> bool,
    ) {
        let name = self.name;
        let before = self.w.read_snapshot().expect("snapshot");
        let (len, colours) = (self.w.len(), self.w.link_colours());
        match call(&mut self.w) {
            Ok(v) => panic!("{name}: {case}: accepted (returned {v:?}); expected an error"),
            Err(e) => {
                assert!(want(&e), "{name}: {case}: wrong error {e:?}");
                assert!(
                    !e.to_string().is_empty(),
                    "{name}: {case}: empty error message"
                );
            }
        }
        assert_eq!(self.w.len(), len, "{name}: {case}: the slot count moved");
        assert_eq!(
            self.w.link_colours(),
            colours,
            "{name}: {case}: the link colours changed"
        );
        let after = self.w.read_snapshot().expect("snapshot");
        compare_agg(
            &format!("{name}: {case}: right after the call, vs before it"),
            &after,
            &before,
            Tol::EXACT,
            Tol::EXACT,
        );
        self.step_both();
        let (a, b) = (
            self.w.read_snapshot().expect("snapshot"),
            self.control.read_snapshot().expect("snapshot"),
        );
        compare_agg(
            &format!("{name}: {case}: one step later, vs the control"),
            &a,
            &b,
            Tol::EXACT,
            Tol::EXACT,
        );
    }
}

fn twins() -> [Twin; 2] {
    [
        Twin::new("cpu", || Backend::Cpu, false),
        Twin::new("gpu", || Backend::Gpu(gpu()), false),
    ]
}

/// Twins with particle–particle collisions on the grid.
fn grid_twins() -> [Twin; 2] {
    [
        Twin::new("cpu", || Backend::Cpu, true),
        Twin::new("gpu", || Backend::Gpu(gpu()), true),
    ]
}

fn invalid(what: &'static str) -> impl Fn(&Error) -> bool {
    move |e| matches!(e, Error::InvalidInput { what: w, .. } if *w == what)
}

/// A stale or foreign handle of this kind.
fn stale(kind: &'static str) -> impl Fn(&Error) -> bool {
    move |e| matches!(e, Error::StaleHandle { kind: k, .. } if *k == kind)
}

/// The handle of the same item in `w`: the twins are built and edited alike, so it sits in the
/// same slot of each (a world refuses the other's handles).
trait Same {
    fn same(self, w: &AggregateWorld) -> Self;
}

impl Same for ParticleId {
    fn same(self, w: &AggregateWorld) -> Self {
        w.particle_handle_at(self.index()).expect("a live particle")
    }
}

impl Same for GeneratorId {
    fn same(self, w: &AggregateWorld) -> Self {
        w.generator_handle_at(self.index())
            .expect("a live generator")
    }
}

impl Same for LinkId {
    fn same(self, w: &AggregateWorld) -> Self {
        w.link_handle_at(self.index()).expect("a live link")
    }
}

/// Handles of another world are refused as stale handles naming the kind, the slots they name
/// in range (0 and 3) or not (5 and 19: they exist only in the bigger world).
#[test]
fn particle_ids_of_another_world_are_refused() {
    let mut big = AggregateWorld::new(
        Backend::Cpu,
        AggregateConfig {
            capacity: 32,
            ..Default::default()
        },
    )
    .expect("big world");
    let far = big
        .add_particles(&vec![Particle::new(Vec3::ZERO); 20])
        .expect("big world particles");
    for mut t in twins() {
        let a = t.ids[0];
        for &x in [far[0], far[3], far[5], far[19]].iter() {
            let i = x.index();
            t.rejects(
                &format!("spring to particle {i}"),
                |w| {
                    w.add_generator(ForceGenerator::Spring {
                        a,
                        b: x,
                        stiffness: 1.0,
                        rest_length: 1.0,
                    })
                },
                stale("aggregate particle"),
            );
            t.rejects(
                &format!("gravity generator on particle {i}"),
                |w| {
                    w.add_generator(ForceGenerator::Gravity {
                        particle: x,
                        g: Vec3::ONE,
                    })
                },
                stale("aggregate particle"),
            );
            t.rejects(
                &format!("rod from particle {i}"),
                |w| {
                    w.add_link(Link::Rod {
                        a: x,
                        b: a,
                        length: 1.0,
                    })
                },
                stale("aggregate particle"),
            );
            t.rejects(
                &format!("anchored cable on particle {i}"),
                |w| {
                    w.add_link(Link::AnchoredCable {
                        particle: x,
                        anchor: Vec3::ZERO,
                        max_length: 1.0,
                        restitution: 0.0,
                    })
                },
                stale("aggregate particle"),
            );
            t.rejects(
                &format!("remove particle {i}"),
                |w| w.remove_particle(x),
                stale("aggregate particle"),
            );
            t.rejects(
                &format!("set_inverse_mass of particle {i}"),
                |w| w.set_inverse_mass(x, 1.0),
                stale("aggregate particle"),
            );
        }
    }
}

#[test]
fn removing_a_particle_in_use_is_refused_until_its_users_are_gone() {
    for mut t in grid_twins() {
        let (p0, p2) = (t.ids[0], t.ids[2]);
        let in_use =
            |id: u32| move |e: &Error| matches!(e, Error::ParticleInUse { id: i, .. } if *i == id);
        t.rejects(
            "remove particle 0 (the spring's end)",
            |w| w.remove_particle(p0),
            in_use(0),
        );
        t.rejects(
            "remove particle 2 (the rod's end)",
            |w| w.remove_particle(p2),
            in_use(2),
        );
        // Once the users are gone, both worlds remove the particles and keep stepping alike.
        let (spring, rod) = (t.spring, t.rod);
        t.both(|w| w.remove_generator(spring.same(w)));
        t.both(|w| w.remove_particle(p0.same(w)));
        t.rejects(
            "remove particle 0 twice",
            |w| w.remove_particle(p0),
            stale("aggregate particle"),
        );
        t.rejects(
            "remove the spring twice",
            |w| w.remove_generator(spring),
            stale("force generator"),
        );
        t.both(|w| w.remove_link(rod.same(w)));
        t.rejects(
            "remove the rod twice",
            |w| w.remove_link(rod),
            stale("link"),
        );
        t.both(|w| w.remove_particle(p2.same(w)));
        t.step_both();
        let s = t.w.read_snapshot().expect("snapshot");
        assert_eq!(
            (s.pos[0].w, s.pos[2].w),
            (0.0, 0.0),
            "{}: removed slots are marked dead",
            t.name
        );
        assert_eq!(
            hash_agg(&s),
            hash_agg(&t.control.read_snapshot().expect("snapshot")),
            "{}: after the removals the world and the control differ",
            t.name
        );
    }
}

#[test]
fn non_positive_or_non_finite_time_steps_are_refused() {
    for mut t in twins() {
        for dt in [0.0, -0.0, -DT, f32::NAN, f32::INFINITY] {
            t.rejects(
                &format!("step({dt})"),
                |w| w.step(dt),
                |e| matches!(e, Error::InvalidTimeStep(_)),
            );
        }
    }
}

#[test]
fn particles_with_a_lifetime_are_refused() {
    for mut t in twins() {
        let good = Particle::new(Vec3::new(0.0, 2.0, 0.0)).with_size(0.05);
        let mortal = good.with_lifetime(1.0);
        t.rejects(
            "particle with a lifetime",
            |w| w.add_particle(mortal),
            invalid("particle.lifetime"),
        );
        t.rejects(
            "a batch whose second particle has a lifetime",
            |w| w.add_particles(&[good, mortal, good]),
            invalid("particle.lifetime"),
        );
    }
}

#[test]
fn grains_larger_than_half_the_grid_cell_are_refused() {
    for mut t in grid_twins() {
        let big = Particle::new(Vec3::new(0.0, 2.0, 0.0)).with_size(0.5 * CELL * 1.01);
        let fits = Particle::new(Vec3::new(0.5, 2.0, 0.0)).with_size(0.5 * CELL);
        t.rejects(
            "grain of radius 1.01 × half the cell",
            |w| w.add_particle(big),
            invalid("particle.size"),
        );
        t.rejects(
            "a batch holding one grain too large",
            |w| w.add_particles(&[fits, big]),
            invalid("particle.size"),
        );
        // Exactly half a cell fits, on both.
        t.both(|w| w.add_particle(fits));
        t.step_both();
    }
}

/// A particle can be joined by at most 64 links (one colour each). The 65th must be refused
/// when it is added, like every other bad link, so the world keeps stepping; a world that takes
/// it and fails at every later step has lost the ability to step.
#[test]
fn a_65th_link_on_one_particle_is_refused_when_added() {
    for mut t in twins() {
        let p = t.ids[4];
        for k in 0..64 {
            let anchor = Vec3::new(1.5, 1.5 + 0.01 * k as f32, 0.0);
            t.both(|w| {
                w.add_link(Link::AnchoredCable {
                    particle: p.same(w),
                    anchor,
                    max_length: 3.0,
                    restitution: 0.0,
                })
            });
        }
        t.step_both();
        assert_eq!(
            t.w.link_colours(),
            64,
            "{}: 64 links on one particle need 64 colours",
            t.name
        );
        t.rejects(
            "a 65th link on one particle",
            |w| {
                w.add_link(Link::AnchoredCable {
                    particle: p,
                    anchor: Vec3::new(1.5, 3.0, 0.0),
                    max_length: 3.0,
                    restitution: 0.0,
                })
            },
            invalid("links"),
        );
    }
}

/// `set_anchor` moves the anchor of an anchored generator. On a generator without one it must
/// be refused: the record's anchor slot holds other parameters there (a Gravity generator's
/// acceleration, a Buoyancy generator's g), which a silent write would overwrite.
#[test]
fn set_anchor_on_a_generator_without_an_anchor_is_refused() {
    for mut t in twins() {
        let (p, spring) = (t.ids[2], t.spring);
        // Generators go into the same slots in both worlds.
        let mut ids = Vec::new();
        for g in [
            ForceGenerator::Gravity {
                particle: p,
                g: Vec3::new(0.0, 3.0, 0.0),
            },
            ForceGenerator::Buoyancy {
                particle: p,
                max_depth: 0.5,
                volume: 0.001,
                water_height: 1.5,
                density: 1000.0,
                gravity: 9.81,
            },
        ] {
            let id = t.w.add_generator(g).expect("generator");
            let pc = p.same(&t.control);
            let gc = match g {
                ForceGenerator::Gravity { g, .. } => ForceGenerator::Gravity { particle: pc, g },
                ForceGenerator::Buoyancy {
                    max_depth,
                    volume,
                    water_height,
                    density,
                    gravity,
                    ..
                } => ForceGenerator::Buoyancy {
                    particle: pc,
                    max_depth,
                    volume,
                    water_height,
                    density,
                    gravity,
                },
                other => other,
            };
            let idc = t.control.add_generator(gc).expect("generator");
            assert_eq!(idc.index(), id.index());
            ids.push(id);
        }
        t.step_both();
        for (case, id) in [
            ("set_anchor on the two-particle spring", spring),
            ("set_anchor on a Gravity generator", ids[0]),
            ("set_anchor on a Buoyancy generator", ids[1]),
        ] {
            t.rejects(
                case,
                |w| w.set_anchor(id, Vec3::new(0.0, 5.0, 0.0)),
                invalid("generator id"),
            );
        }
    }
}

/// A capacity whose step could not be dispatched at once (one workgroup per 256 particles,
/// at most the device's workgroups per dispatch) is refused on the GPU when the world is built,
/// naming the most it can take, before anything is allocated.
#[test]
fn a_capacity_beyond_one_dispatch_is_refused_on_the_gpu() {
    let ctx = gpu();
    let groups = ctx.device.limits().max_compute_workgroups_per_dimension;
    let too_many = groups * wgphys::particles::types::WG + 1;
    let most = u64::from(groups) * u64::from(wgphys::particles::types::WG);
    match AggregateWorld::new(
        Backend::Gpu(ctx),
        AggregateConfig {
            capacity: too_many,
            ..config(false)
        },
    ) {
        Err(Error::InvalidCapacity { capacity, reason }) => {
            assert_eq!(capacity, too_many);
            assert!(reason.contains(&most.to_string()), "{reason}");
        }
        other => panic!("capacity {too_many} gave {:?}", other.map(|_| ())),
    }
}

/// The colliders are a uniform table of `MAX_COLLIDERS` entries on the GPU (as in the particle
/// world): one more is refused when the world is built, on both backends alike, naming the table
/// and its size. A full table works to its last entry: with `MAX_COLLIDERS - 1` spheres far
/// away and the ground last, grains of a grid world dropped from 1 m come to rest on the ground
/// with their centres one radius above it.
#[test]
fn colliders_beyond_the_table_are_refused_and_a_full_table_works() {
    use wgphys::particles::types::MAX_COLLIDERS;
    use wgphys::particles::ColliderShape;
    let far = ParticleCollider {
        shape: ColliderShape::Sphere {
            centre: Vec3::new(0.0, 1000.0, 0.0),
            radius: 0.5,
        },
        ..ParticleCollider::ground(0.0, 0.0)
    };
    for name in ["cpu", "gpu"] {
        let backend = || {
            if name == "cpu" {
                Backend::Cpu
            } else {
                Backend::Gpu(gpu())
            }
        };
        let too_many = MAX_COLLIDERS as usize + 1;
        match AggregateWorld::new(
            backend(),
            AggregateConfig {
                colliders: vec![far; too_many],
                ..config(true)
            },
        ) {
            Err(Error::TooMany {
                what, count, max, ..
            }) => {
                assert_eq!(what, "colliders", "{name}");
                assert_eq!((count, max), (too_many, MAX_COLLIDERS), "{name}");
            }
            other => panic!("{name}: {too_many} colliders gave {:?}", other.map(|_| ())),
        }
        let mut colliders = vec![far; MAX_COLLIDERS as usize - 1];
        colliders.push(ParticleCollider::ground(0.5, 0.0));
        let mut w = AggregateWorld::new(
            backend(),
            AggregateConfig {
                colliders,
                ..config(true)
            },
        )
        .expect("a full collider table is accepted");
        let radius = 0.05;
        let grains: Vec<Particle> = (0..3)
            .map(|i| Particle::new(Vec3::new(0.5 * i as f32, 1.0, 0.0)).with_size(radius))
            .collect();
        w.add_particles(&grains).expect("grains");
        for _ in 0..120 {
            w.step(DT).expect("step");
        }
        let s = w.read_snapshot().expect("snapshot");
        for (i, p) in s.pos.iter().enumerate() {
            // At rest on the plane y = 0 (restitution 0) each step's ground contact, the last
            // thing a step does to it, sets the centre to y + (radius - y): one subtraction and
            // one addition of numbers below 1, a few ulps of 1 (1.2e-7) with any rounding.
            assert!(
                (p.y - radius).abs() < 1e-6,
                "{name}: grain {i} at y = {} instead of resting at {radius}",
                p.y
            );
        }
    }
}

#[path = "aggregate_bad_input/coefficients.rs"]
mod coefficients;

/// A capacity the host cannot allocate is an error naming the bytes, not an abort: the CPU
/// world reserves its arrays before filling them. u32::MAX particles need 64 GiB for the
/// first array alone, more than any machine the tests run on offers (Linux's default
/// overcommit heuristic refuses a single allocation larger than memory and swap together).
#[test]
fn a_cpu_capacity_beyond_the_host_is_an_error() {
    let cfg = AggregateConfig {
        capacity: u32::MAX,
        collisions: None,
        ..config(false)
    };
    match AggregateWorld::new(Backend::Cpu, cfg) {
        Err(Error::HostMemory { capacity, bytes }) => {
            assert_eq!(capacity, u32::MAX);
            assert!(bytes > 1 << 36, "{bytes} bytes");
        }
        other => panic!("capacity u32::MAX gave {:?}", other.map(|_| ())),
    }
}
