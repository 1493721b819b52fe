//! Lifecycle: expiry by age, removal by handle, overflow reporting, growing the pool, on both
//! backends (and the GPU against the CPU where both run).

mod common;

use common::*;
use glam::{Vec3, Vec4};
use std::collections::HashSet;
use wgphys::particles::{Backend, Particle, ParticleHandle, ParticleWorld, Snapshot, WorldConfig};

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
        compare_snapshots(
            "remove",
            &g.read_snapshot().unwrap(),
            &c.read_snapshot().unwrap(),
            SnapTol::EXACT,
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

/// A full pool refuses spawns and says so: the status counts them (host spawns and firework
/// children separately), `advice` names the knobs, and the asynchronous GPU status reports it
/// within a few steps.
#[test]
fn overflow_is_reported_never_silent() {
    for (name, backend) in backends() {
        let mut w = ParticleWorld::new(
            backend,
            WorldConfig {
                capacity: 16,
                ..WorldConfig::default()
            },
        )
        .unwrap();
        for i in 0..16 {
            w.spawn(particle(i)).unwrap();
        }
        w.step(1.0 / 60.0).unwrap();
        assert!(
            !w.read_status().unwrap().overflowed(),
            "{name}: a pool filled exactly reports an overflow"
        );
        assert_eq!(
            w.read_status().unwrap().advice(),
            None,
            "{name}: advice without an overflow"
        );
        for i in 16..26 {
            w.spawn(particle(i)).unwrap();
        }
        w.step(1.0 / 60.0).unwrap();
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
        let present: HashSet<u32> = ids(&w.read_snapshot().unwrap()).into_iter().collect();
        assert_eq!(
            present,
            (0..16).collect(),
            "{name}: the particles already alive keep their slots"
        );
        let advice = st.advice().expect("advice after an overflow");
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
        // The status that `step` reports (asynchronous on the GPU) catches up within a few steps.
        let mut reported = None;
        // The status read is asynchronous: copied in one step, mapped in the next, read in the
        // one after. Waiting for the device between steps makes that a fixed three steps
        // whatever the machine's load, so 8 is a bound, not a timing guess.
        for _ in 0..8 {
            w.wait().unwrap();
            let r = w.step(1.0 / 60.0).unwrap();
            if let Some(s) = r.status.filter(|s| s.overflowed()) {
                reported = Some(s);
                break;
            }
        }
        let reported =
            reported.unwrap_or_else(|| panic!("{name}: step() never reported the overflow"));
        assert_eq!(reported.dropped_total, 10, "{name}: reported dropped_total");

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
        f.step(1.0 / 60.0).unwrap();
        f.step(1.0 / 60.0).unwrap();
        let st = f.read_status().unwrap();
        assert_eq!(
            (st.live, st.dropped_total, st.host_dropped_total),
            (8, 2, 0),
            "{name}: type-1 burst of 10 into 8 slots: (live, dropped_total, host_dropped_total)"
        );
    }
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
    const ONE_STEP: Tol = Tol {
        rel: 1e-6,
        abs: 4e-6,
    }; // as INTEGRATE in parity_stages.rs
    compare_snapshots(
        "after grow",
        &g.read_snapshot().unwrap(),
        &c.read_snapshot().unwrap(),
        SnapTol {
            pos: ONE_STEP,
            vel: ONE_STEP,
            other: Tol::EXACT,
        },
    );
}

/// With `auto_grow`, an overflow grows the pool (to the next power of two at least twice the
/// capacity) within a few steps, and the same spawns then fit.
#[test]
fn auto_grow_grows_after_an_overflow() {
    for (name, backend) in backends() {
        let mut w = ParticleWorld::new(
            backend,
            WorldConfig {
                capacity: 16,
                auto_grow: true,
                ..WorldConfig::default()
            },
        )
        .unwrap();
        for i in 0..16 {
            w.spawn(particle(i)).unwrap();
        }
        w.step(1.0 / 60.0).unwrap();
        for i in 16..26 {
            w.spawn(particle(i)).unwrap();
        }
        let mut grew = None;
        for _ in 0..8 {
            w.wait().unwrap(); // see overflow_is_reported_never_silent
            if let Some(cap) = w.step(1.0 / 60.0).unwrap().grew_to {
                grew = Some(cap);
                break;
            }
        }
        assert_eq!(
            grew,
            Some(32),
            "{name}: grew_to after refusing 10 of 26 spawns in a pool of 16"
        );
        assert_eq!(w.capacity(), 32, "{name}: capacity()");
        let before: HashSet<u32> = ids(&w.read_snapshot().unwrap()).into_iter().collect();
        assert_eq!(
            before,
            (0..16).collect(),
            "{name}: live ids kept through the growth"
        );
        for i in 26..36 {
            w.spawn(particle(i)).unwrap();
        }
        w.step(1.0 / 60.0).unwrap();
        let st = w.read_status().unwrap();
        assert_eq!(
            (st.live, st.dropped_total),
            (26, 10),
            "{name}: (live, dropped_total) after respawning into the grown pool"
        );
    }
}
