//! Lifecycle: expiry by age, removal by handle, overflow reporting, growing the pool, on both
//! backends (and the GPU against the CPU where both run).

mod common;

use common::*;
use glam::{Vec3, Vec4};
use std::collections::HashSet;
use wgphys::particles::{
    Burst, Emitter, Particle, ParticleHandle, ParticleWorld, Snapshot, WorldConfig,
};
use wgphys::Backend;

fn ids(s: &Snapshot) -> Vec<u32> {
    s.life.iter().map(|l| l.id).collect()
}

/// A particle of index `i` with a recognisable, distinct state.
fn particle(i: u32) -> Particle {
    let f = i as f32;
    Particle::new(Vec3::new(f, 1.0 + 0.5 * f, -f))
        .with_velocity(Vec3::new(0.1 * f, 0.0, 1.0))
        .with_colour(Vec4::new(f / 100.0, 0.5, 1.0, 1.0))
        .with_size(0.01 + f / 1000.0)
}

/// With dt = 1/64 s a particle's age after j steps is exactly j/64, so "dies when age >=
/// lifetime" pins the step: a lifetime of L steps (L may be fractional) is alive after steps
/// 1..ceil(L)−1 of its life and gone after step ceil(L). Checked every step, on both backends,
/// with `contains` agreeing.
#[test]
fn particles_expire_exactly_when_age_reaches_lifetime() {
    let dt = 1.0f32 / 64.0;
    let lifetimes_in_steps = [1.0f32, 2.0, 2.5, 3.0, 4.5, 5.0, 7.99, 8.0];
    for (name, backend) in backends() {
        let mut w = ParticleWorld::new(
            backend,
            WorldConfig {
                capacity: 64,
                ..WorldConfig::default()
            },
        )
        .unwrap();
        let hs: Vec<(ParticleHandle, f32)> = lifetimes_in_steps
            .iter()
            .enumerate()
            .map(|(i, &l)| {
                (
                    w.spawn(particle(i as u32).with_lifetime(l * dt)).unwrap(),
                    l,
                )
            })
            .collect();
        let immortal = w.spawn(particle(99)).unwrap();
        w.step(dt).unwrap(); // joins the pool with age 0
        for j in 1..=10u32 {
            w.step(dt).unwrap();
            let s = w.read_snapshot().unwrap();
            let present: HashSet<u32> = ids(&s).into_iter().collect();
            for &(h, l) in &hs {
                let alive = (j as f32) < l;
                assert_eq!(
                    present.contains(&h.id()),
                    alive,
                    "{name}: lifetime {l} steps, after step {j}: in the pool"
                );
                assert_eq!(
                    w.contains(h),
                    alive,
                    "{name}: lifetime {l} steps, after step {j}: contains()"
                );
            }
            assert!(
                present.contains(&immortal.id()),
                "{name}: the immortal particle died at step {j}"
            );
            for (i, l) in s.life.iter().enumerate() {
                assert_eq!(
                    l.age,
                    j as f32 * dt,
                    "{name}: after step {j}: slot {i} life.age"
                );
            }
            assert_eq!(
                s.len(),
                w.read_counters().unwrap().live as usize,
                "{name}: step {j}: counters.live"
            );
        }
    }
}

/// `contains` and `remove` must agree with the pool at any step length: a handle whose particle
/// is still in the pool (and drawn) is not stale. With dt = 1/60 s the device's f32 age and the
/// host's f64 clock disagree about the step a particle expires in.
#[test]
fn handles_agree_with_the_pool_at_a_non_dyadic_step() {
    let dt = 1.0f32 / 60.0;
    let mut w = ParticleWorld::new(
        Backend::Cpu,
        WorldConfig {
            capacity: 512,
            ..WorldConfig::default()
        },
    )
    .unwrap();
    let hs: Vec<ParticleHandle> = (1..=300)
        .map(|k| {
            w.spawn(Particle::new(Vec3::ZERO).with_lifetime(k as f32 / 60.0))
                .unwrap()
        })
        .collect();
    let mut mismatches = Vec::new();
    for step in 1..=310 {
        w.step(dt).unwrap();
        let present: HashSet<u32> = ids(&w.read_snapshot().unwrap()).into_iter().collect();
        for (k, h) in hs.iter().enumerate() {
            if w.contains(*h) != present.contains(&h.id()) {
                mismatches.push((step, k + 1, w.contains(*h)));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} (step, lifetime in 60ths of a second, contains) pairs where contains() disagrees with \
         the pool, first {:?}: remove() would call the handle of a particle still in the pool stale",
        mismatches.len(),
        &mismatches[..mismatches.len().min(5)]
    );
}

/// Removing by handle: the removed ids vanish, every other id stays exactly once, the live
/// particles stay packed in [0, live) (the draw arguments hold the live count), and both backends
/// agree slot by slot.
#[test]
fn remove_by_handle_keeps_the_rest_packed() {
    let ctx = gpu();
    let cfg = WorldConfig {
        capacity: 128,
        ..WorldConfig::default()
    };
    let mut g = ParticleWorld::new(Backend::Gpu(ctx.clone()), cfg.clone()).unwrap();
    let mut c = ParticleWorld::new(Backend::Cpu, cfg).unwrap();
    let mut handles = Vec::new();
    for i in 0..100 {
        handles.push((g.spawn(particle(i)).unwrap(), c.spawn(particle(i)).unwrap()));
    }
    g.step(1.0 / 60.0).unwrap();
    c.step(1.0 / 60.0).unwrap();
    let mut gone = HashSet::new();
    // First, last, and in between, over two steps (the last slots are movers, the first holes).
    for batch in [&[0usize, 3, 50, 98, 99][..], &[1, 2, 97, 60]] {
        for &k in batch {
            g.remove(handles[k].0).unwrap();
            c.remove(handles[k].1).unwrap();
            gone.insert(k as u32);
        }
        g.step(1.0 / 60.0).unwrap();
        c.step(1.0 / 60.0).unwrap();
        for (name, w) in [("gpu", &g), ("cpu", &c)] {
            let s = w.read_snapshot().unwrap();
            let live = w.read_counters().unwrap().live;
            assert_eq!(
                live as usize,
                100 - gone.len(),
                "{name}: counters.live after removing {gone:?}"
            );
            assert_eq!(s.len(), live as usize, "{name}: snapshot length");
            let got: HashSet<u32> = ids(&s).into_iter().collect();
            assert_eq!(got.len(), s.len(), "{name}: an id appears twice");
            let want: HashSet<u32> = (0..100).filter(|i| !gone.contains(i)).collect();
            assert_eq!(got, want, "{name}: ids in the pool");
            // Each survivor still carries its own state (moved whole, not mixed with another).
            for (slot, l) in s.life.iter().enumerate() {
                let p = particle(l.id);
                assert_eq!(
                    s.size[slot], p.size,
                    "{name}: slot {slot} (id {}) size",
                    l.id
                );
                assert_eq!(
                    s.colour[slot], p.colour,
                    "{name}: slot {slot} (id {}) colour",
                    l.id
                );
                assert_eq!(
                    s.acc[slot],
                    p.acceleration.extend(p.inverse_mass),
                    "{name}: slot {slot} (id {}) acc",
                    l.id
                );
            }
        }
        // Two integration steps at most (the spawn step appends after integrating), at lane
        // speeds up to 9.9 m/s (particle 99) with no acceleration: the error model's step
        // model. Not exact: a compiler may contract p + v·dt (and the damping factor pow(1, dt)
        // is only as exact as the adapter's pow). Everything else is copied: exact.
        compare_snapshots(
            "remove",
            &g.read_snapshot().unwrap(),
            &c.read_snapshot().unwrap(),
            steps_tol(2, 9.9, 0.0),
        );
        let rb = g.render_buffers().expect("gpu render buffers");
        let args: Vec<u32> =
            wgphys::gpu::buffer::read_vec(&ctx.device, &ctx.queue, rb.draw_args, 4).unwrap();
        assert_eq!(
            args,
            vec![6, 100 - gone.len() as u32, 0, 0],
            "gpu draw_args (vertex_count, instance_count, first_vertex, first_instance)"
        );
    }
}

/// Nothing is lost in silence. A spawn the host's own count says cannot fit is an
/// `Error::Full` and leaves the world as it was. Spawns the host counted as fitting, but that
/// the step has no room for because firework children (which the host does not count) took it,
/// are refused from the tail of the step's queue: their handles stop being valid and the report
/// names them (at the end of the step on the CPU; when the step's status lands on the GPU,
/// within a few steps), while the status counts them and `advice` names the knobs.
#[test]
fn overflow_is_reported_never_silent() {
    let dt = 1.0 / 60.0;
    for (name, backend) in backends() {
        let is_cpu = matches!(backend, Backend::Cpu);
        let mut w = ParticleWorld::new(
            backend,
            WorldConfig {
                capacity: 16,
                ..WorldConfig::default()
            },
        )
        .unwrap();
        let early: Vec<ParticleHandle> = (0..6).map(|i| w.spawn(particle(i)).unwrap()).collect();
        // A type-1 firework whose fuse ends in the next step bursts into 10 children.
        w.spawn_firework(1, Vec3::new(0.0, 10.0, 0.0), Vec3::ZERO, 0.5 / 60.0)
            .unwrap();
        w.step(dt).unwrap();
        w.step(dt).unwrap();
        let st = w.read_status().unwrap();
        assert_eq!(
            (st.live, st.overflowed()),
            (16, false),
            "{name}: 6 particles and 10 children fill the pool exactly, with no overflow"
        );
        assert_eq!(st.advice(), None, "{name}: advice without an overflow");

        // The host counts only its own 6 handles: ten more fit by its count, an eleventh not.
        let late: Vec<ParticleHandle> = (6..16).map(|i| w.spawn(particle(i)).unwrap()).collect();
        let err = w
            .spawn(particle(99))
            .expect_err("the host's count says the pool is full");
        let msg = err.to_string();
        assert!(
            msg.contains("16") && msg.contains("WorldConfig::capacity"),
            "{name}: {msg}"
        );

        let first = w.step(dt).unwrap();
        let st = w.read_status().unwrap();
        assert_eq!(
            (
                st.live,
                st.dropped_total,
                st.host_dropped_total,
                st.wanted_capacity
            ),
            (16, 10, 10, 26),
            "{name}: (live, dropped_total, host_dropped_total, wanted_capacity)"
        );
        let mut refused: Vec<ParticleHandle> = w.refused_spawns().to_vec();
        if is_cpu {
            assert_eq!(
                first.refused_spawns, 10,
                "{name}: the CPU knows at the end of the step"
            );
        }
        // The GPU's status of that step is copied with it and read without blocking: waiting
        // for the device between steps makes it land by the second step after, so 8 is a bound.
        let mut reported = first.status.filter(|s| s.overflowed());
        for _ in 0..8 {
            if refused.len() == late.len() && reported.is_some() {
                break;
            }
            w.wait().unwrap();
            let r = w.step(dt).unwrap();
            refused.extend_from_slice(w.refused_spawns());
            assert_eq!(r.refused_spawns as usize, w.refused_spawns().len());
            reported = reported.or(r.status.filter(|s| s.overflowed()));
        }
        assert_eq!(
            refused, late,
            "{name}: the refused handles are the ten late spawns, in queue order (and the \
             eleventh, refused by the call, was never queued)"
        );
        assert_eq!(
            w.spawns_unconfirmed(),
            0,
            "{name}: every spawn's step has landed"
        );
        assert!(
            late.iter().all(|&h| !w.contains(h)),
            "{name}: a refused spawn's handle is no longer valid"
        );
        assert!(
            early.iter().all(|&h| w.contains(h)),
            "{name}: the particles already alive keep their handles"
        );
        let present: HashSet<u32> = ids(&w.read_snapshot().unwrap()).into_iter().collect();
        assert!(
            (0..6).all(|i| present.contains(&i)) && (6..16).all(|i| !present.contains(&i)),
            "{name}: the pool holds the early particles and none of the refused ones"
        );
        let reported = reported.unwrap_or_else(|| panic!("{name}: step() never reported it"));
        assert_eq!(reported.dropped_total, 10, "{name}: reported dropped_total");
        let advice = reported.advice().expect("advice after an overflow");
        for knob in [
            "WorldConfig::capacity",
            "grow(26)",
            "auto_grow",
            "10 spawns refused",
        ] {
            assert!(
                advice.contains(knob),
                "{name}: advice {advice:?} does not mention {knob:?}"
            );
        }

        // Firework children that do not fit are counted too, apart from host spawns.
        let mut f = ParticleWorld::new(
            Backend::Cpu,
            WorldConfig {
                capacity: 8,
                ..WorldConfig::default()
            },
        )
        .unwrap();
        f.spawn_firework(1, Vec3::new(0.0, 10.0, 0.0), Vec3::ZERO, 0.5 / 60.0)
            .unwrap();
        f.step(dt).unwrap();
        f.step(dt).unwrap();
        let st = f.read_status().unwrap();
        assert_eq!(
            (st.live, st.dropped_total, st.host_dropped_total),
            (8, 2, 0),
            "{name}: type-1 burst of 10 into 8 slots: (live, dropped_total, host_dropped_total)"
        );
    }
}

/// Spawns into a full pool, where the host's queue (spawns and a launch, in queue order) and
/// an emitter's burst compete for the last two free slots. Both backends run the same
/// `plan_pool` (the queue first, from its head; then children; then the emitters' particles),
/// so they must end the same handles. The GPU learns which when the step's counters come back:
/// after `wait` and `poll_reports` its handles answer as the CPU's did at the end of the step.
/// (`fuzz_worlds`' regression 72c453dc: a second removal of a refused spawn's handle was an
/// error on the CPU and, before the GPU had taken that step's counters in, no call on the GPU.)
#[test]
fn both_backends_end_the_same_spawns_in_a_full_pool() {
    let dt = 1.0 / 60.0;
    let config = WorldConfig {
        capacity: 16,
        ..WorldConfig::default()
    };
    let (gpu, cpu) = pair(&config);
    let mut pools = Vec::new();
    for (name, mut w) in [("cpu", cpu), ("gpu", gpu)] {
        // Step 1: four host particles and a burst of ten take 14 of the 16 slots. Step 2: the
        // queue is spawn a, a launch, spawns b and c, and a burst of five is due; nothing dies
        // (lifetimes of 10 s, a firework's fuse of at least 0.5 s).
        w.add_emitter(Emitter {
            rate: 0.0,
            bursts: vec![
                Burst {
                    time: 0.0,
                    count: 10,
                },
                Burst {
                    time: 1.5 * dt,
                    count: 5,
                },
            ],
            lifetime: (10.0, 10.0),
            acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
            ..Emitter::default()
        })
        .unwrap();
        let mut hs: Vec<ParticleHandle> = (0..4).map(|i| w.spawn(particle(i)).unwrap()).collect();
        w.step(dt).unwrap();
        hs.push(w.spawn(particle(4)).unwrap());
        w.launch(1).unwrap();
        hs.extend((5..7).map(|i| w.spawn(particle(i)).unwrap()));
        w.step(dt).unwrap();
        let mut refused = w.refused_spawns().to_vec();
        w.wait().unwrap();
        w.poll_reports();
        refused.extend_from_slice(w.refused_spawns());

        let st = w.read_status().unwrap();
        assert_eq!(
            (st.live, st.spawned, st.dropped_total, st.host_dropped_total),
            (16, 2, 7, 2),
            "{name}: (live, spawned, dropped_total, host_dropped_total) after step 2"
        );
        let alive: Vec<bool> = hs.iter().map(|&h| w.contains(h)).collect();
        assert_eq!(
            alive,
            [true, true, true, true, true, false, false],
            "{name}: the two slots went to the queue's head (spawn a, the launch); b and c \
             were refused, as was the whole burst"
        );
        assert_eq!(refused, hs[5..], "{name}: the refused handles reported");
        pools.push(ids(&w.read_snapshot().unwrap()));
        // A second removal of a refused spawn's handle is stale; a placed one's is not.
        let again = w.remove(hs[5]);
        assert!(
            matches!(again, Err(wgphys::Error::StaleHandle { kind: "particle", id }) if id == hs[5].id()),
            "{name}: removing refused spawn b gave {again:?}"
        );
        w.remove(hs[4]).unwrap();
    }
    assert_eq!(
        pools[0], pools[1],
        "the pool's ids in slot order, cpu against gpu"
    );
}

/// `grow` keeps every live particle bit for bit, and the grown pool takes more.
#[test]
fn grow_keeps_every_live_particle() {
    let cfg = WorldConfig {
        capacity: 100,
        ..WorldConfig::default()
    };
    let (mut g, mut c) = pair(&cfg);
    for i in 0..100 {
        g.spawn(particle(i).with_acceleration(Vec3::new(0.0, -9.81, 0.0)))
            .unwrap();
        c.spawn(particle(i).with_acceleration(Vec3::new(0.0, -9.81, 0.0)))
            .unwrap();
    }
    for _ in 0..3 {
        g.step(1.0 / 60.0).unwrap();
        c.step(1.0 / 60.0).unwrap();
    }
    for (name, w) in [("gpu", &mut g), ("cpu", &mut c)] {
        let before = w.read_snapshot().unwrap();
        let counters = w.read_counters().unwrap();
        w.grow(1000).unwrap();
        assert_eq!(w.capacity(), 1000, "{name}: capacity after grow");
        assert_eq!(
            w.read_snapshot().unwrap(),
            before,
            "{name}: snapshot changed by grow"
        );
        assert_counters_eq(
            &format!("{name}: grow"),
            &w.read_counters().unwrap(),
            &counters,
        );
        for i in 100..600 {
            w.spawn(particle(i)).unwrap();
        }
        w.step(1.0 / 60.0).unwrap();
        let present: HashSet<u32> = ids(&w.read_snapshot().unwrap()).into_iter().collect();
        assert_eq!(
            present,
            (0..600).collect(),
            "{name}: ids after growing and spawning 500 more"
        );
    }
    // And the grown worlds still agree.
    g.step(1.0 / 60.0).unwrap();
    c.step(1.0 / 60.0).unwrap();
    // Particles 0..100 have been integrated four times (three steps before the grow, the first
    // of them the spawn step, then two), at lane speeds up to 9.9 + 4·9.81·dt m/s under
    // 9.81 m/s²; particles 100..600 once, at lane speeds up to 59.9 m/s with none. The error
    // model's step model at the larger of each (it grows with all three), positions up to
    // 599 m: ROUND·k of the position and the speeds' share. Everything else is copied: exact.
    compare_snapshots(
        "after grow",
        &g.read_snapshot().unwrap(),
        &c.read_snapshot().unwrap(),
        steps_tol(4, 59.9 + 4.0 * 9.81 / 60.0, 9.81),
    );
}

/// The error model's `step_model` (tests/common/error_model.rs) for `k` integration steps at
/// dt = 1/60 s, lane speeds up to `v` and accelerations up to `a`, as snapshot tolerances:
/// positions and velocities within the model; the acceleration, colour, size and lifetime are
/// copied from the spawn and the age is one correctly rounded add of the same operands on both
/// sides, so those are exact.
fn steps_tol(k: u32, v: f64, a: f64) -> SnapTol {
    let m = error_model::step_model(k, v, a, 1.0 / 60.0);
    let tol = |rel: f64, abs: f64| Tol {
        rel: (rel * U) as f32,
        abs: (abs * U) as f32,
    };
    SnapTol {
        pos: tol(m[0], m[1]),
        vel: tol(m[2], m[3]),
        ..SnapTol::EXACT
    }
}

/// With `auto_grow` the pool never refuses what the host counts: the spawn that would not
/// fit grows it at once (to the next power of two at least twice the capacity). Room taken by
/// firework children, which the host does not count, grows it when the step's status shows
/// the refusal (within a few steps), and the refused spawns then fit.
#[test]
fn auto_grow_grows_after_an_overflow() {
    let dt = 1.0 / 60.0;
    for (name, backend) in backends() {
        let config = WorldConfig {
            capacity: 16,
            auto_grow: true,
            ..WorldConfig::default()
        };
        let mut w = ParticleWorld::new(backend.clone(), config.clone()).unwrap();
        for i in 0..16 {
            w.spawn(particle(i)).unwrap();
        }
        w.step(dt).unwrap();
        w.spawn(particle(16)).unwrap();
        assert_eq!(w.capacity(), 32, "{name}: the 17th spawn grew the pool");
        for i in 17..26 {
            w.spawn(particle(i)).unwrap();
        }
        w.step(dt).unwrap();
        let st = w.read_status().unwrap();
        assert_eq!(
            (st.live, st.dropped_total),
            (26, 0),
            "{name}: (live, dropped_total) in the grown pool"
        );
        let present: HashSet<u32> = ids(&w.read_snapshot().unwrap()).into_iter().collect();
        assert_eq!(present, (0..26).collect(), "{name}: every spawn is live");

        // Children fill the pool behind the host's back: 6 particles and a 10-child burst.
        let mut w = ParticleWorld::new(backend, config).unwrap();
        for i in 0..6 {
            w.spawn(particle(i)).unwrap();
        }
        w.spawn_firework(1, Vec3::new(0.0, 10.0, 0.0), Vec3::ZERO, 0.5 / 60.0)
            .unwrap();
        w.step(dt).unwrap();
        w.step(dt).unwrap();
        for i in 6..16 {
            w.spawn(particle(i)).unwrap();
        }
        let mut grew = w.step(dt).unwrap().grew_to;
        for _ in 0..8 {
            if grew.is_some() {
                break;
            }
            w.wait().unwrap(); // see overflow_is_reported_never_silent
            grew = w.step(dt).unwrap().grew_to;
        }
        assert_eq!(
            grew,
            Some(32),
            "{name}: grew_to after 10 spawns were refused in a pool of 16"
        );
        for i in 6..16 {
            w.spawn(particle(i)).unwrap();
        }
        w.step(dt).unwrap();
        let st = w.read_status().unwrap();
        assert_eq!(
            (st.live, st.dropped_total),
            (26, 10),
            "{name}: (live, dropped_total) after respawning into the grown pool"
        );
    }
}

/// A particle the kill bounds kill ends its handle, and the step's report names it: on the CPU
/// at the end of that step, on the GPU when that step's counters come back. With dt = 1/64 s
/// and speeds of 8 m/s, x after j steps is exactly j/8 (each position step adds 0.125, no
/// rounding), so the crossing step is known: A (+x) and C (−x) cross |x| = 1 at step 9. D
/// crosses at step 3, the step its lifetime (3/64 s) runs out: the host knew that death, so it
/// is not reported as a bounds kill. B stays at rest inside.
#[test]
fn a_particle_the_kill_bounds_kill_ends_its_handle_and_is_reported() {
    use wgphys::particles::KillBounds;
    let dt = 1.0f32 / 64.0;
    for (name, backend) in backends() {
        let gpu = name == "gpu";
        let mut w = ParticleWorld::new(
            backend,
            WorldConfig {
                capacity: 16,
                kill_bounds: Some(KillBounds {
                    min: Vec3::new(-1.0, -10.0, -10.0),
                    max: Vec3::new(1.0, 10.0, 10.0),
                }),
                ..WorldConfig::default()
            },
        )
        .expect("world");
        let at_rest = Particle::new(Vec3::ZERO);
        let a = w
            .spawn(at_rest.with_velocity(Vec3::new(8.0, 0.0, 0.0)))
            .expect("A");
        let b = w.spawn(at_rest).expect("B");
        let c = w
            .spawn(at_rest.with_velocity(Vec3::new(-8.0, 0.0, 0.0)))
            .expect("C");
        let d = w
            .spawn(Particle {
                lifetime: Some(3.0 * dt),
                ..at_rest.with_velocity(Vec3::new(32.0, 0.0, 0.0))
            })
            .expect("D");
        // The spawns join at the end of step 1; their first move is in step 2, so "j steps of
        // motion" is step j + 1.
        let mut killed: Vec<(u64, ParticleHandle)> = Vec::new();
        for _ in 0..14 {
            let report = w.step(dt).expect("step");
            let names = w.killed_by_bounds().to_vec();
            assert_eq!(report.killed_by_bounds as usize, names.len(), "{name}");
            killed.extend(names.iter().map(|&h| (report.step, h)));
            if gpu {
                // Waits for the device, so this step's counters are back by the next call.
                w.read_counters().expect("counters");
            }
            let step = report.step;
            let crossed = step >= 10;
            for (label, h) in [("A", a), ("C", c)] {
                let reported = killed.iter().any(|&(_, k)| k == h);
                assert_eq!(w.contains(h), !reported, "{name} step {step}: {label}");
                assert!(
                    !reported || crossed,
                    "{name} step {step}: {label} reported before it crossed"
                );
            }
            assert!(w.contains(b), "{name} step {step}: B is inside");
            assert_eq!(w.contains(d), step < 4, "{name} step {step}: D's lifetime");
        }
        let mut want = vec![a, c];
        want.sort_by_key(|h| format!("{h:?}"));
        let mut got: Vec<ParticleHandle> = killed.iter().map(|&(_, h)| h).collect();
        got.sort_by_key(|h| format!("{h:?}"));
        assert_eq!(got, want, "{name}: A and C are reported once each, D never");
        let steps: HashSet<u64> = killed.iter().map(|&(s, _)| s).collect();
        // The CPU reports in the crossing step; the GPU once that step's counters are back (the
        // next call, after the blocking read above).
        let expect = if gpu { 11 } else { 10 };
        assert_eq!(
            steps,
            HashSet::from([expect]),
            "{name}: reported at step {expect}"
        );
        assert_eq!(
            w.read_snapshot().expect("snapshot").len(),
            1,
            "{name}: B alone is left"
        );
    }
}

/// The pool's totals since creation (spawns refused, host spawns refused, steps that refused)
/// saturate at u32::MAX instead of wrapping back to a small count that would hide the refusals
/// (issue 32): the CPU twin's `scan_blocks` on counters one short of the top, with 5 host
/// spawns and no room. The WGSL does the same with its `saturating_add`.
#[test]
fn refusal_totals_saturate_instead_of_wrapping() {
    use wgphys::particles::cpu::{scan_blocks, CpuState};
    use wgphys::particles::types::GpuParams;
    let mut s = CpuState::new(8).expect("state");
    s.counters.live = 8;
    s.counters.dropped_total = u32::MAX - 2;
    s.counters.host_dropped_total = u32::MAX - 1;
    s.counters.overflow_steps = u32::MAX;
    let params = GpuParams {
        capacity: 8,
        host_spawn: 5,
        ..bytemuck::Zeroable::zeroed()
    };
    scan_blocks(&mut s, &params);
    assert_eq!(s.counters.spawn_accepted, 0, "a full pool takes no spawn");
    assert_eq!(s.counters.dropped_total, u32::MAX);
    assert_eq!(s.counters.host_dropped_total, u32::MAX);
    assert_eq!(s.counters.overflow_steps, u32::MAX);
}
