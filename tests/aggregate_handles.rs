//! Handles of the aggregate world: particles, force generators and links carry their slot, the
//! slot's generation and their world. Removed slots are reused lowest first with the generation
//! bumped; a removed item's handle, or another world's, is `Error::StaleHandle` naming the kind
//! and changes nothing. Every case runs on the CPU and on the GPU, against a host model of the
//! slots.

mod common;

use common::*;
use glam::{Vec3, Vec4};
use wgphys::aggregate::{
    AggSnapshot, AggregateConfig, AggregateWorld, ForceGenerator, GeneratorId, Link, LinkId,
    ParticleId,
};
use wgphys::particles::Particle;
use wgphys::{Backend, Error};

const DT: f32 = 1.0 / 60.0;

fn backends() -> [(&'static str, Backend); 2] {
    [("cpu", Backend::Cpu), ("gpu", Backend::Gpu(gpu()))]
}

fn world(backend: Backend, capacity: u32) -> AggregateWorld {
    AggregateWorld::new(
        backend,
        AggregateConfig {
            capacity,
            ..Default::default()
        },
    )
    .expect("world")
}

/// Everything a refused call must leave as it was: the particle state, the counts, the link
/// colours, the links (with their handles) and the live handles of every table.
#[derive(Debug, PartialEq)]
struct Seen {
    snapshot: AggSnapshot,
    counts: [usize; 4],
    links: Vec<(LinkId, Link)>,
    particles: Vec<ParticleId>,
    generators: Vec<Option<GeneratorId>>,
}

fn seen(w: &AggregateWorld, gen_slots: u32) -> Seen {
    Seen {
        snapshot: w.read_snapshot().expect("snapshot"),
        counts: [
            w.len(),
            w.slots() as usize,
            w.generator_count(),
            w.link_count(),
        ],
        links: w.links().collect(),
        particles: w.particle_handles().collect(),
        generators: (0..gen_slots).map(|i| w.generator_handle_at(i)).collect(),
    }
}

fn is_stale(e: &Error, kind: &str, index: u32) -> bool {
    matches!(e, Error::StaleHandle { kind: k, id } if *k == kind && *id == index)
}

/// One table of the host model: per slot, whether it is live and its generation.
#[derive(Default)]
struct ModelTable(Vec<(bool, u32)>);

impl ModelTable {
    /// The slot and generation the world must give the next add: the lowest removed slot,
    /// one generation on, else a new slot of generation 0.
    fn add(&mut self) -> (u32, u32) {
        match self.0.iter().position(|&(live, _)| !live) {
            Some(i) => {
                self.0[i] = (true, self.0[i].1 + 1);
                (i as u32, self.0[i].1)
            }
            None => {
                self.0.push((true, 0));
                (self.0.len() as u32 - 1, 0)
            }
        }
    }

    fn live(&self) -> usize {
        self.0.iter().filter(|s| s.0).count()
    }
}

/// Random adds and removals of particles, springs and rods (a removed particle first loses its
/// users), with stale handles thrown in, on both backends: every handle the world gives has the
/// slot and generation of the model; every stale handle is refused naming its kind and leaves
/// the world as it was; both backends end with the same handles and the same live slots.
#[test]
fn random_adds_and_removals_reuse_slots_and_refuse_stale_handles() {
    let mut ends = Vec::new();
    for (name, backend) in backends() {
        let mut w = world(backend, 12);
        let mut r = Rng::new(0x5107);
        let (mut mp, mut mg, mut ml) = (
            ModelTable::default(),
            ModelTable::default(),
            ModelTable::default(),
        );
        let mut particles: Vec<ParticleId> = Vec::new();
        let mut gens: Vec<(GeneratorId, ParticleId, ParticleId)> = Vec::new();
        let mut links: Vec<(LinkId, ParticleId, ParticleId)> = Vec::new();
        let (mut dead_p, mut dead_g, mut dead_l) = (Vec::new(), Vec::new(), Vec::new());
        let mut refused = 0;
        for op in 0..300 {
            match r.below(8) {
                0 | 1 if mp.live() < 12 => {
                    let p = Particle::new(r.vec3(-1.0, 1.0)).with_velocity(r.vec3(-1.0, 1.0));
                    let id = w.add_particle(p).expect("add particle");
                    assert_eq!((id.index(), id.generation()), mp.add(), "{name} op {op}");
                    particles.push(id);
                }
                2 if particles.len() >= 2 => {
                    let (a, b) = (
                        r.below(particles.len() as u32),
                        1 + r.below(particles.len() as u32 - 1),
                    );
                    let (a, b) = (
                        particles[a as usize],
                        particles[((a + b) as usize) % particles.len()],
                    );
                    let g = ForceGenerator::Spring {
                        a,
                        b,
                        stiffness: 2.0,
                        rest_length: 0.5,
                    };
                    let id = w.add_generator(g).expect("add generator");
                    assert_eq!((id.index(), id.generation()), mg.add(), "{name} op {op}");
                    gens.push((id, a, b));
                }
                3 if particles.len() >= 2 => {
                    let a = r.below(particles.len() as u32) as usize;
                    let b =
                        (a + 1 + r.below(particles.len() as u32 - 1) as usize) % particles.len();
                    let (a, b) = (particles[a], particles[b]);
                    let id = w
                        .add_link(Link::Rod { a, b, length: 0.7 })
                        .expect("add link");
                    assert_eq!((id.index(), id.generation()), ml.add(), "{name} op {op}");
                    links.push((id, a, b));
                }
                4 if !gens.is_empty() => {
                    let (id, ..) = gens.swap_remove(r.below(gens.len() as u32) as usize);
                    w.remove_generator(id).expect("remove generator");
                    mg.0[id.index() as usize].0 = false;
                    dead_g.push(id);
                }
                5 if !links.is_empty() => {
                    let (id, ..) = links.swap_remove(r.below(links.len() as u32) as usize);
                    w.remove_link(id).expect("remove link");
                    ml.0[id.index() as usize].0 = false;
                    dead_l.push(id);
                }
                6 if !particles.is_empty() => {
                    // Its users go first (a particle in use is refused).
                    let p = particles.swap_remove(r.below(particles.len() as u32) as usize);
                    for (id, ..) in gens.iter().filter(|g| g.1 == p || g.2 == p) {
                        w.remove_generator(*id).expect("remove a user");
                        mg.0[id.index() as usize].0 = false;
                        dead_g.push(*id);
                    }
                    gens.retain(|g| g.1 != p && g.2 != p);
                    for (id, ..) in links.iter().filter(|l| l.1 == p || l.2 == p) {
                        w.remove_link(*id).expect("remove a user");
                        ml.0[id.index() as usize].0 = false;
                        dead_l.push(*id);
                    }
                    links.retain(|l| l.1 != p && l.2 != p);
                    w.remove_particle(p).expect("remove particle");
                    mp.0[p.index() as usize].0 = false;
                    dead_p.push(p);
                }
                7 => {
                    // A stale handle of each kind, where there is one: refused, nothing changes.
                    let before = seen(&w, mg.0.len() as u32);
                    if let Some(&p) = dead_p.get(r.below(dead_p.len().max(1) as u32) as usize) {
                        let e = w.set_velocity(p, Vec3::ONE).expect_err("stale particle");
                        assert!(
                            is_stale(&e, "aggregate particle", p.index()),
                            "{name}: {e:?}"
                        );
                        let e = w.remove_particle(p).expect_err("stale particle");
                        assert!(
                            is_stale(&e, "aggregate particle", p.index()),
                            "{name}: {e:?}"
                        );
                        if let Some(&q) = particles.first() {
                            let e = w
                                .add_link(Link::Cable {
                                    a: q,
                                    b: p,
                                    max_length: 1.0,
                                    restitution: 0.0,
                                })
                                .expect_err("a link to a stale particle");
                            assert!(is_stale(&e, "aggregate particle", p.index()), "{e:?}");
                        }
                        refused += 1;
                    }
                    if let Some(&g) = dead_g.get(r.below(dead_g.len().max(1) as u32) as usize) {
                        let e = w.remove_generator(g).expect_err("stale generator");
                        assert!(is_stale(&e, "force generator", g.index()), "{name}: {e:?}");
                        let e = w.set_anchor(g, Vec3::ZERO).expect_err("stale generator");
                        assert!(is_stale(&e, "force generator", g.index()), "{name}: {e:?}");
                        refused += 1;
                    }
                    if let Some(&l) = dead_l.get(r.below(dead_l.len().max(1) as u32) as usize) {
                        let e = w.remove_link(l).expect_err("stale link");
                        assert!(is_stale(&e, "link", l.index()), "{name}: {e:?}");
                        refused += 1;
                    }
                    assert_eq!(
                        seen(&w, mg.0.len() as u32),
                        before,
                        "{name} op {op}: changed"
                    );
                }
                _ => {
                    w.step(DT).expect("step");
                }
            }
            assert_eq!(
                [w.len(), w.generator_count(), w.link_count()],
                [mp.live(), mg.live(), ml.live()],
                "{name} op {op}: live counts"
            );
            assert_eq!(w.slots(), mp.0.len() as u32, "{name} op {op}: slots");
        }
        assert!(
            refused > 20,
            "{name}: only {refused} stale handles were tried"
        );
        assert!(
            mp.0.iter().any(|s| s.1 > 0) && mg.0.iter().any(|s| s.1 > 0),
            "{name}: the sequence reused no particle or generator slot"
        );
        let alive: Vec<bool> = (w.read_snapshot().expect("snapshot").pos.iter())
            .map(|p| p.w == 1.0)
            .collect();
        let handles: Vec<(u32, u32)> = w
            .particle_handles()
            .map(|p| (p.index(), p.generation()))
            .collect();
        ends.push((
            alive,
            handles,
            w.links()
                .map(|(l, _)| (l.index(), l.generation()))
                .collect::<Vec<_>>(),
        ));
    }
    assert_eq!(
        ends[0], ends[1],
        "the two backends' slots and handles differ"
    );
}

/// A handle from another world is refused by every call that takes one, naming its kind,
/// even where the slot it names is live in this world; the world is unchanged.
#[test]
fn handles_of_another_world_are_refused() {
    for (name, backend) in backends() {
        let mut a = world(backend.clone(), 8);
        let mut b = world(backend, 8);
        let ps = Particle::new(Vec3::ZERO);
        let (pa, qa) = (
            a.add_particle(ps).expect("a"),
            a.add_particle(ps).expect("a"),
        );
        let (pb, qb) = (
            b.add_particle(ps).expect("b"),
            b.add_particle(ps).expect("b"),
        );
        assert_eq!((pa.index(), pa.generation()), (pb.index(), pb.generation()));
        let anchored = ForceGenerator::AnchoredSpring {
            particle: pa,
            anchor: Vec3::Y,
            stiffness: 1.0,
            rest_length: 0.5,
        };
        let ga = a.add_generator(anchored).expect("generator");
        let la = a
            .add_link(Link::Rod {
                a: pa,
                b: qa,
                length: 1.0,
            })
            .expect("link");
        b.add_generator(ForceGenerator::AnchoredSpring {
            particle: pb,
            anchor: Vec3::Y,
            stiffness: 1.0,
            rest_length: 0.5,
        })
        .expect("generator");
        b.add_link(Link::Rod {
            a: pb,
            b: qb,
            length: 1.0,
        })
        .expect("link");
        b.step(DT).expect("step");
        let before = seen(&b, 1);
        let p = "aggregate particle";
        let checks: Vec<(&str, &str, Result<(), Error>)> = vec![
            ("remove_particle", p, b.remove_particle(pa)),
            ("set_position", p, b.set_position(pa, Vec3::ONE)),
            ("set_velocity", p, b.set_velocity(pa, Vec3::ONE)),
            ("set_inverse_mass", p, b.set_inverse_mass(pa, 2.0)),
            ("set_acceleration", p, b.set_acceleration(pa, Vec3::ONE)),
            ("add_generator", p, b.add_generator(anchored).map(|_| ())),
            (
                "add_link",
                p,
                b.add_link(Link::Rod {
                    a: pb,
                    b: qa,
                    length: 1.0,
                })
                .map(|_| ()),
            ),
            (
                "remove_generator",
                "force generator",
                b.remove_generator(ga),
            ),
            (
                "set_anchor",
                "force generator",
                b.set_anchor(ga, Vec3::ZERO),
            ),
            ("remove_link", "link", b.remove_link(la)),
        ];
        for (call, kind, r) in checks {
            let e = r.expect_err(call);
            assert!(
                matches!(e, Error::StaleHandle { kind: k, .. } if k == kind),
                "{name}: {call}: {e:?}"
            );
            let text = e.to_string();
            assert!(
                text.contains(kind),
                "{name}: {call}: `{text}` names no {kind}"
            );
        }
        assert!(!b.contains_particle(pa) && b.contains_particle(pb));
        assert_eq!(
            seen(&b, 1),
            before,
            "{name}: a refused call changed the world"
        );
    }
}

/// f32's unit roundoff.
const U: f64 = f32::EPSILON as f64 / 2.0;

/// A particle moved (`set_position`, `set_velocity`) mid-flight then falls as from rest at the
/// new place: with the semi-implicit integrator (v += a·dt, then x += v·dt, no damping) after n
/// steps x = x0 + v0·t + g·dt²·n(n+1)/2, which is x0 + v0·t + g·t²/2 plus the integrator's
/// own g·t·dt/2.
#[test]
fn a_moved_particle_falls_from_where_it_was_put() {
    let g = Vec3::new(0.3, -9.81, 0.0);
    for (name, backend) in backends() {
        let mut w = world(backend, 4);
        let other = w
            .add_particle(Particle::new(Vec3::new(5.0, 0.0, 0.0)))
            .expect("particle");
        let id = w
            .add_particle(
                Particle::new(Vec3::new(-3.0, 7.0, 2.0))
                    .with_velocity(Vec3::new(4.0, 0.0, -1.0))
                    .with_acceleration(g),
            )
            .expect("particle");
        for _ in 0..7 {
            w.step(DT).expect("step");
        }
        let (x0, v0) = (Vec3::new(1.0, 2.0, -0.5), Vec3::new(-0.5, 3.0, 0.25));
        w.set_position(id, x0).expect("set_position");
        w.set_velocity(id, v0).expect("set_velocity");
        let still = w.read_snapshot().expect("snapshot");
        assert_eq!(
            (still.pos[1], still.vel[1]),
            (x0.extend(1.0), v0.extend(1.0)),
            "{name}: the set state, with the alive flag and damping kept"
        );
        let n = 40u32;
        for _ in 0..n {
            w.step(DT).expect("step");
        }
        let s = w.read_snapshot().expect("snapshot");
        let (dt, nf) = (f64::from(DT), f64::from(n));
        let t = nf * dt;
        for k in 0..3 {
            let (x0, v0, g) = (f64::from(x0[k]), f64::from(v0[k]), f64::from(g[k]));
            let want = x0 + v0 * t + g * dt * dt * nf * (nf + 1.0) / 2.0;
            // Each step rounds v (one multiply-add: at most 2u of |v| + |g|·dt, fused or not)
            // and x (one multiply-add: 2u of |x| + |v|·dt); the error in v after k steps,
            // k·2u·vmax, reaches x times dt. Summed over n steps:
            // 2u·n·(xmax + dt·vmax) + u·dt·n(n+1)·vmax.
            let vmax = v0.abs() + g.abs() * t + g.abs() * dt;
            let xmax = x0.abs() + v0.abs() * t + g.abs() * t * t;
            let tol = 2.0 * U * nf * (xmax + dt * vmax) + U * dt * nf * (nf + 1.0) * vmax;
            let got = f64::from(s.pos[1][k]);
            assert!(
                (got - want).abs() <= tol,
                "{name}: axis {k}: x = {got}, closed form {want}, tolerance {tol}"
            );
            let v_want = v0 + g * t;
            let v_tol = 2.0 * U * nf * vmax;
            let v_got = f64::from(s.vel[1][k]);
            assert!(
                (v_got - v_want).abs() <= v_tol,
                "{name}: axis {k}: v = {v_got}, closed form {v_want}, tolerance {v_tol}"
            );
        }
        // The other particle never moved.
        assert_eq!(s.pos[other.index() as usize], Vec4::new(5.0, 0.0, 0.0, 1.0));
        // Bad values are refused and change nothing.
        for bad in [
            Vec3::new(f32::NAN, 0.0, 0.0),
            Vec3::new(0.0, f32::INFINITY, 0.0),
        ] {
            assert!(matches!(
                w.set_position(id, bad),
                Err(Error::InvalidInput { .. })
            ));
            assert!(matches!(
                w.set_velocity(id, bad),
                Err(Error::InvalidInput { .. })
            ));
        }
        assert_eq!(
            w.read_snapshot().expect("snapshot"),
            s,
            "{name}: bad values changed it"
        );
    }
}

/// A removed particle's slot is taken by the next add, which starts from its own state (the
/// removed particle's velocity or acceleration do not leak into it), and the removed handle
/// stays refused while the new one works.
#[test]
fn a_reused_slot_starts_fresh() {
    for (name, backend) in backends() {
        let mut w = world(backend, 4);
        let ids = w
            .add_particles(&[
                Particle::new(Vec3::ZERO),
                Particle::new(Vec3::X)
                    .with_velocity(Vec3::new(0.0, 5.0, 0.0))
                    .with_acceleration(Vec3::new(0.0, -9.81, 0.0)),
                Particle::new(Vec3::Y),
            ])
            .expect("particles");
        w.step(DT).expect("step");
        w.remove_particle(ids[1]).expect("remove");
        assert_eq!((w.len(), w.slots()), (2, 3), "{name}");
        let fresh = w
            .add_particle(Particle::new(Vec3::new(0.0, 0.0, 3.0)))
            .expect("add");
        assert_eq!((fresh.index(), fresh.generation()), (1, 1), "{name}");
        assert_eq!((w.len(), w.slots()), (3, 3), "{name}");
        for _ in 0..5 {
            w.step(DT).expect("step");
        }
        let s = w.read_snapshot().expect("snapshot");
        assert_eq!(
            s.pos[1],
            Vec4::new(0.0, 0.0, 3.0, 1.0),
            "{name}: the new particle moved"
        );
        assert_eq!(s.vel[1], Vec4::new(0.0, 0.0, 0.0, 1.0), "{name}");
        assert!(matches!(
            w.set_velocity(ids[1], Vec3::ONE),
            Err(Error::StaleHandle { .. })
        ));
        w.set_velocity(fresh, Vec3::ONE).expect("the new handle");
        // A batch fills the removed slots first, then new ones.
        w.remove_particle(ids[0]).expect("remove");
        w.remove_particle(ids[2]).expect("remove");
        let batch = w
            .add_particles(&[Particle::new(Vec3::ZERO); 3])
            .expect("batch");
        let got: Vec<(u32, u32)> = batch.iter().map(|p| (p.index(), p.generation())).collect();
        assert_eq!(got, [(0, 1), (2, 1), (3, 0)], "{name}");
        assert!(
            matches!(
                w.add_particle(Particle::new(Vec3::ZERO)),
                Err(Error::Full { .. })
            ),
            "{name}: 4 live particles fill 4 slots"
        );
    }
}

/// A loaded world keeps every slot and generation: the saved world's handles are refused by it
/// (it is another world), the same items' handles are found by slot, and its next adds reuse
/// the same slots with the same generations as the saved world's next adds.
#[cfg(feature = "serde")]
#[test]
fn a_loaded_world_keeps_slots_and_generations() {
    use wgphys::save::SaveFormat;
    for (name, backend) in backends() {
        let mut w = world(backend.clone(), 6);
        let ids = w
            .add_particles(&[Particle::new(Vec3::ZERO); 5])
            .expect("particles");
        let rod = w
            .add_link(Link::Rod {
                a: ids[0],
                b: ids[1],
                length: 1.0,
            })
            .expect("rod");
        let cable = w
            .add_link(Link::AnchoredCable {
                particle: ids[2],
                anchor: Vec3::Y,
                max_length: 2.0,
                restitution: 0.0,
            })
            .expect("cable");
        w.remove_link(rod).expect("remove rod");
        w.remove_particle(ids[3]).expect("remove");
        let again = w.add_particle(Particle::new(Vec3::X)).expect("reuse");
        w.remove_particle(again).expect("remove again");
        w.step(DT).expect("step");
        let bytes = w.save(SaveFormat::Binary).expect("save");
        let mut l = AggregateWorld::load(backend, &bytes).expect("load");
        assert!(
            matches!(
                l.remove_link(cable),
                Err(Error::StaleHandle { kind: "link", .. })
            ),
            "{name}: the saved world's handle"
        );
        let found = l.link_handle_at(cable.index()).expect("the cable's slot");
        assert_eq!((found.index(), found.generation()), (1, 0), "{name}");
        assert!(
            l.link_handle_at(rod.index()).is_none(),
            "{name}: the removed rod"
        );
        assert!(
            l.particle_handle_at(3).is_none(),
            "{name}: the removed particle"
        );
        assert_eq!((l.len(), l.slots(), l.link_count()), (4, 5, 1), "{name}");
        for world in [&mut w, &mut l] {
            let p = world.add_particle(Particle::new(Vec3::Z)).expect("add");
            assert_eq!(
                (p.index(), p.generation()),
                (3, 2),
                "{name}: slot 3, third owner"
            );
            let a = world.particle_handle_at(0).expect("particle 0");
            let link = world
                .add_link(Link::Rod {
                    a,
                    b: p,
                    length: 1.0,
                })
                .expect("link");
            assert_eq!(
                (link.index(), link.generation()),
                (0, 1),
                "{name}: the rod's slot"
            );
            world.step(DT).expect("step");
        }
        assert_eq!(
            w.save(SaveFormat::Binary).expect("save"),
            l.save(SaveFormat::Binary).expect("save"),
            "{name}: the saved and the loaded world went on alike"
        );
    }
}

/// A link that `add_link` accepts always fits the step's colouring (at most 64 colours), also
/// when it lands in a reused slot and is coloured before later links: on a dense web of cables
/// between 40 particles (degree up to 39, where first-fit colouring can need up to 77 colours),
/// after every accepted add the step succeeds. (A removal can itself push the first-fit
/// colouring of the links after it past 64, first-fit not being monotone: the step then says
/// so, and the test removes another link, as a user would.)
#[test]
fn accepted_links_always_colour_in_reused_slots() {
    let mut rng = Rng::new(41);
    let mut w = world(Backend::Cpu, 64);
    let ps: Vec<ParticleId> = (0..40)
        .map(|i| {
            w.add_particle(Particle::new(Vec3::new(i as f32, 0.0, 0.0)))
                .unwrap()
        })
        .collect();
    let mut links: Vec<LinkId> = Vec::new();
    let (mut refused, mut accepted, mut reused) = (0, 0, 0);
    for round in 0..3000 {
        if !links.is_empty() && rng.chance(0.3) {
            let k = rng.below(links.len() as u32) as usize;
            w.remove_link(links.swap_remove(k)).unwrap();
            while let Err(e) = w.step(DT) {
                assert!(format!("{e}").contains("colour"), "{e}");
                let k = rng.below(links.len() as u32) as usize;
                w.remove_link(links.swap_remove(k)).unwrap();
            }
            continue;
        }
        let a = rng.below(40) as usize;
        let b = (a + 1 + rng.below(39) as usize) % 40;
        let l = Link::Cable {
            a: ps[a],
            b: ps[b],
            max_length: 100.0,
            restitution: 0.0,
        };
        match w.add_link(l) {
            Ok(id) => {
                reused += usize::from(id.generation() > 0);
                links.push(id);
                accepted += 1;
                w.step(DT).unwrap_or_else(|e| {
                    panic!("round {round}: an accepted link broke the step: {e}")
                });
            }
            Err(e) => {
                assert!(format!("{e}").contains("colour"), "{e}");
                refused += 1;
            }
        }
    }
    assert!(
        refused > 0 && accepted > 500 && reused > 100,
        "the web reached the limit ({accepted} in, {reused} in reused slots, {refused} refused)"
    );
}
