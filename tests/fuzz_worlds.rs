//! Fuzzed API sequences (proptest): each world is driven on the CPU and on the GPU by the same
//! random sequence of calls (add, remove, spawn, launch, set, step, several steps recorded into
//! one encoder, grow, particle emitters added, removed (twice), paused and moved, and bad
//! values), and after every call:
//! - nothing panicked, and both backends gave `Ok` or both an `Err`;
//! - an `Err` left the world as it was (what the caller can observe: counts, handles, state);
//! - a handle is valid until it is removed (or its spawn is reported refused), and not after;
//! - after every step the two backends hold the same number of live particles or bodies;
//! - the particle world's backends hold the same handles valid before every call, once each
//!   has taken in its landed step reports (`poll_reports`: the GPU learns of a refused spawn
//!   when its step's counters come back, the CPU at the end of the step).
//!
//! `WGPHYS_FUZZ_CASES` sets the sequences per world (default 256, each run on both backends;
//! about 90 s on lavapipe for the three worlds). A failing seed is written by proptest into its
//! regression file for this test (`tests/fuzz_worlds.proptest-regressions`); commit it, and it
//! is replayed before the random cases from then on.

mod common;

use glam::{Quat, Vec3};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wgphys::aggregate::{AggregateConfig, AggregateWorld, ParticleId};
use wgphys::gpu::GpuContext;
use wgphys::particles::{
    Emitter, EmitterHandle, ForceField, Particle, ParticleHandle, ParticleWorld, WorldConfig,
};
use wgphys::rigid::{BodyHandle, Collider, RigidBody, RigidConfig, RigidWorld};
use wgphys::Backend;

const DT: f32 = 1.0 / 60.0;

thread_local! {
    /// One device per test (a device per case would cost more than the cases). It lives in the
    /// test's thread and is dropped when that test ends: a device kept in a process-wide static
    /// is still alive when the process exits, and lavapipe's exit handlers then tear down its
    /// worker threads under it (a SIGSEGV after every test had passed, seen on CI).
    static CTX: GpuContext = common::gpu();
}

fn ctx() -> GpuContext {
    CTX.with(GpuContext::clone)
}

fn config() -> ProptestConfig {
    let cases = std::env::var("WGPHYS_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        max_shrink_iters: 256,
        ..ProptestConfig::default()
    }
}

/// A time step: mostly good, sometimes one the worlds must refuse.
#[derive(Clone, Copy, Debug)]
enum Dt {
    Good,
    Zero,
    Negative,
    NaN,
}

impl Dt {
    fn value(self) -> f32 {
        match self {
            Dt::Good => DT,
            Dt::Zero => 0.0,
            Dt::Negative => -DT,
            Dt::NaN => f32::NAN,
        }
    }
}

fn dt() -> impl Strategy<Value = Dt> {
    prop_oneof![8 => Just(Dt::Good), 1 => Just(Dt::Zero), 1 => Just(Dt::Negative), 1 => Just(Dt::NaN)]
}

/// A coordinate, or NaN when `bad`.
fn coord(x: f32, bad: bool) -> f32 {
    if bad {
        f32::NAN
    } else {
        x
    }
}

/// Records `n` steps into one encoder and submits it (GPU); `n` steps on the CPU.
fn steps_in_one_encoder<T>(
    gpu: bool,
    n: u8,
    mut step: impl FnMut() -> wgphys::Result<T>,
    mut encode: impl FnMut(&mut wgpu::CommandEncoder) -> wgphys::Result<T>,
) -> wgphys::Result<()> {
    if !gpu {
        for _ in 0..n {
            step()?;
        }
        return Ok(());
    }
    let c = ctx();
    let mut encoder = c
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("fuzz"),
        });
    let mut result = Ok(());
    for _ in 0..n {
        if let Err(e) = encode(&mut encoder) {
            result = Err(e);
            break;
        }
    }
    c.queue.submit([encoder.finish()]);
    result
}

// ---------------------------------------------------------------------------------------------
// The particle world

#[derive(Clone, Debug)]
enum POp {
    Spawn { x: f32, bad: bool },
    Remove(usize),
    RemoveAgain(usize),
    Launch(u32),
    Step(Dt),
    Encode(u8),
    Grow(u32),
    AddEmitter { rate: f32, bad: bool },
    RemoveEmitter(usize),
    RemoveEmitterAgain(usize),
    PauseEmitter(usize, bool),
    MoveEmitter { k: usize, x: f32, bad: bool },
}

fn p_op() -> impl Strategy<Value = POp> {
    prop_oneof![
        6 => (-5.0f32..5.0, prop::bool::weighted(0.1)).prop_map(|(x, bad)| POp::Spawn { x, bad }),
        2 => any::<usize>().prop_map(POp::Remove),
        1 => any::<usize>().prop_map(POp::RemoveAgain),
        2 => (0u32..12).prop_map(POp::Launch),
        4 => dt().prop_map(POp::Step),
        1 => (1u8..4).prop_map(POp::Encode),
        1 => (0u32..200).prop_map(POp::Grow),
        1 => (0.0f32..300.0, prop::bool::weighted(0.2))
            .prop_map(|(rate, bad)| POp::AddEmitter { rate, bad }),
        1 => any::<usize>().prop_map(POp::RemoveEmitter),
        1 => any::<usize>().prop_map(POp::RemoveEmitterAgain),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(k, on)| POp::PauseEmitter(k, on)),
        1 => (any::<usize>(), -3.0f32..3.0, prop::bool::weighted(0.2))
            .prop_map(|(k, x, bad)| POp::MoveEmitter { k, x, bad }),
    ]
}

/// What a caller can see of a particle world without stepping it.
fn p_seen(w: &ParticleWorld, handles: &[ParticleHandle]) -> (u64, u32, Vec<bool>, usize) {
    let alive = handles.iter().map(|&h| w.contains(h)).collect();
    (w.steps(), w.capacity(), alive, w.emitter_count())
}

/// Takes each backend's landed step reports into its model of valid handles, checks the
/// model against `contains`, then that both backends hold the same handles valid. The read of
/// the status after every step op waits for the device, so by the next call the GPU's reports
/// have landed: without taking them in, a spawn refused in the last step is already invalid
/// on the CPU (reported at the end of its step) and still valid on the GPU (reported at its
/// next step call), and an op picking a handle from the models picks differently on the two.
fn p_take_reports(
    worlds: &mut [ParticleWorld; 2],
    handles: &[Vec<ParticleHandle>; 2],
    valid: &mut [Vec<bool>; 2],
    after: Option<&POp>,
) -> Result<(), TestCaseError> {
    for b in 0..2 {
        let w = &mut worlds[b];
        w.poll_reports();
        for &h in w.refused_spawns() {
            if let Some(i) = handles[b].iter().position(|&x| x == h) {
                valid[b][i] = false;
            }
        }
        for (i, &h) in handles[b].iter().enumerate() {
            prop_assert_eq!(
                w.contains(h),
                valid[b][i],
                "handle {} once the reports after {:?} are in",
                i,
                after
            );
        }
    }
    prop_assert_eq!(
        &valid[0],
        &valid[1],
        "backends disagree on which handles are valid after {:?}",
        after
    );
    Ok(())
}

fn fuzz_particles(ops: &[POp]) -> Result<(), TestCaseError> {
    let cfg = WorldConfig {
        capacity: 40,
        seed: 5,
        fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
        ..WorldConfig::default()
    };
    let mut worlds = [
        ParticleWorld::new(Backend::Cpu, cfg.clone()).map_err(fail)?,
        ParticleWorld::new(Backend::Gpu(ctx()), cfg).map_err(fail)?,
    ];
    // Per backend: every handle handed out, and which the model says are valid.
    let mut handles: [Vec<ParticleHandle>; 2] = [Vec::new(), Vec::new()];
    let mut valid: [Vec<bool>; 2] = [Vec::new(), Vec::new()];
    // Per backend: emitters handed out, and whether each is still there.
    let mut emitters: [Vec<(EmitterHandle, bool)>; 2] = [Vec::new(), Vec::new()];
    let mut last = None;
    for op in ops {
        p_take_reports(&mut worlds, &handles, &mut valid, last)?;
        last = Some(op);
        let mut oks = [false; 2];
        for b in 0..2 {
            let (w, hs) = (&mut worlds[b], &handles[b]);
            let before = p_seen(w, hs);
            let live: Vec<usize> = (0..hs.len()).filter(|&i| valid[b][i]).collect();
            let gone: Vec<usize> = (0..hs.len()).filter(|&i| !valid[b][i]).collect();
            // Spawns refused during any of an op's step calls: each call reports the refusals
            // it found (`refused_spawns` lists the last call's), so an op of several steps
            // collects them after every call.
            let refused = std::cell::RefCell::new(Vec::new());
            let r: wgphys::Result<()> = match *op {
                POp::Spawn { x, bad } => {
                    let p = Particle::new(Vec3::new(coord(x, bad), 2.0, 0.0));
                    w.spawn(p).map(|h| {
                        handles[b].push(h);
                        valid[b].push(true);
                    })
                }
                POp::Remove(k) if !live.is_empty() => {
                    let i = live[k % live.len()];
                    w.remove(handles[b][i]).map(|()| valid[b][i] = false)
                }
                POp::RemoveAgain(k) if !gone.is_empty() => w.remove(hs[gone[k % gone.len()]]),
                POp::Remove(_) | POp::RemoveAgain(_) => Ok(()),
                POp::Launch(ty) => w.launch(ty),
                POp::Step(d) => w.step(d.value()).map(|_| ()),
                POp::Encode(n) => {
                    let gpu = w.is_gpu();
                    let w = std::cell::RefCell::new(w);
                    let seen = |w: &ParticleWorld| {
                        refused.borrow_mut().extend_from_slice(w.refused_spawns())
                    };
                    steps_in_one_encoder(
                        gpu,
                        n,
                        || {
                            let r = w.borrow_mut().step(DT);
                            seen(&w.borrow());
                            r
                        },
                        |e| {
                            let r = w.borrow_mut().encode_step(DT, e);
                            seen(&w.borrow());
                            r
                        },
                    )
                }
                POp::Grow(c) => w.grow(c),
                POp::AddEmitter { rate, bad } => w
                    .add_emitter(Emitter {
                        rate: coord(rate, bad),
                        lifetime: (0.05, 0.3),
                        ..Emitter::default()
                    })
                    .map(|h| emitters[b].push((h, true))),
                POp::RemoveEmitter(k) | POp::RemoveEmitterAgain(k) if emitters[b].is_empty() => {
                    let _ = k;
                    Ok(())
                }
                POp::RemoveEmitter(k) => {
                    let i = k % emitters[b].len();
                    let (h, _) = emitters[b][i];
                    let r = w.remove_emitter(h);
                    if r.is_ok() {
                        emitters[b][i].1 = false;
                    }
                    r
                }
                POp::RemoveEmitterAgain(k) => {
                    // Any emitter, removed or not: the model says which succeeds.
                    let i = k % emitters[b].len();
                    let (h, there) = emitters[b][i];
                    let r = w.remove_emitter(h);
                    prop_assert!(
                        there == r.is_ok(),
                        "removing an emitter that is {} gave {:?}",
                        if there { "there" } else { "gone" },
                        r
                    );
                    emitters[b][i].1 = false;
                    r
                }
                POp::PauseEmitter(k, on) if !emitters[b].is_empty() => {
                    let (h, _) = emitters[b][k % emitters[b].len()];
                    w.set_emitter_active(h, on)
                }
                POp::MoveEmitter { k, x, bad } if !emitters[b].is_empty() => {
                    let (h, _) = emitters[b][k % emitters[b].len()];
                    w.set_emitter_transform(h, Vec3::new(coord(x, bad), 1.0, 0.0), Quat::IDENTITY)
                }
                POp::PauseEmitter(..) | POp::MoveEmitter { .. } => Ok(()),
            };

            let w = &worlds[b];
            if r.is_err() {
                prop_assert_eq!(
                    p_seen(w, &handles[b]),
                    before,
                    "{:?} failed and changed",
                    op
                );
            }
            // Spawns the step had no room for: their handles are no longer valid.
            for &h in w.refused_spawns().iter().chain(refused.borrow().iter()) {
                if let Some(i) = handles[b].iter().position(|&x| x == h) {
                    valid[b][i] = false;
                }
            }
            for (i, &h) in handles[b].iter().enumerate() {
                prop_assert_eq!(w.contains(h), valid[b][i], "handle {} after {:?}", i, op);
            }
            oks[b] = r.is_ok();
        }
        prop_assert_eq!(oks[0], oks[1], "backends disagree on {:?}", op);
        if matches!(op, POp::Step(_) | POp::Encode(_)) {
            let live = [&worlds[0], &worlds[1]].map(|w| w.read_status().map(|s| s.live));
            prop_assert_eq!(
                live[0].as_ref().map_err(|e| e.to_string()),
                live[1].as_ref().map_err(|e| e.to_string()),
                "live particles after {:?}",
                op
            );
        }
    }
    p_take_reports(&mut worlds, &handles, &mut valid, last)
}

// ---------------------------------------------------------------------------------------------
// The aggregate world

#[derive(Clone, Debug)]
enum AOp {
    Add { x: f32, bad: bool },
    Remove(usize),
    RemoveAgain(usize),
    Push { k: usize, bad: bool },
    Step(Dt),
    Encode(u8),
}

fn a_op() -> impl Strategy<Value = AOp> {
    prop_oneof![
        5 => (-1.0f32..1.0, prop::bool::weighted(0.1)).prop_map(|(x, bad)| AOp::Add { x, bad }),
        2 => any::<usize>().prop_map(AOp::Remove),
        1 => any::<usize>().prop_map(AOp::RemoveAgain),
        2 => (any::<usize>(), prop::bool::weighted(0.2)).prop_map(|(k, bad)| AOp::Push { k, bad }),
        4 => dt().prop_map(AOp::Step),
        1 => (1u8..4).prop_map(AOp::Encode),
    ]
}

fn a_seen(w: &AggregateWorld) -> Result<(usize, String), TestCaseError> {
    let s = w.read_snapshot().map_err(fail)?;
    Ok((w.len(), format!("{:?}{:?}", s.pos, s.vel)))
}

fn fuzz_aggregate(ops: &[AOp]) -> Result<(), TestCaseError> {
    let cfg = AggregateConfig {
        capacity: 24,
        fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
        colliders: vec![wgphys::particles::ParticleCollider::ground(0.5, 0.3)],
        ..AggregateConfig::default()
    };
    let mut worlds = [
        AggregateWorld::new(Backend::Cpu, cfg.clone()).map_err(fail)?,
        AggregateWorld::new(Backend::Gpu(ctx()), cfg).map_err(fail)?,
    ];
    let mut ids: [Vec<ParticleId>; 2] = [Vec::new(), Vec::new()];
    let mut valid: Vec<bool> = Vec::new();
    for op in ops {
        let mut oks = [false; 2];
        let live: Vec<usize> = (0..valid.len()).filter(|&i| valid[i]).collect();
        let gone: Vec<usize> = (0..valid.len()).filter(|&i| !valid[i]).collect();
        for b in 0..2 {
            let w = &mut worlds[b];
            let before = a_seen(w)?;
            let r: wgphys::Result<()> = match *op {
                AOp::Add { x, bad } => {
                    let p = Particle::new(Vec3::new(coord(x, bad), 0.5, 0.0)).with_size(0.05);
                    w.add_particle(p).map(|id| ids[b].push(id))
                }
                AOp::Remove(k) if !live.is_empty() => {
                    w.remove_particle(ids[b][live[k % live.len()]])
                }
                AOp::RemoveAgain(k) if !gone.is_empty() => {
                    w.remove_particle(ids[b][gone[k % gone.len()]])
                }
                AOp::Push { k, bad } if !live.is_empty() => {
                    let a = Vec3::new(coord(1.0, bad), 2.0, 0.0);
                    w.set_acceleration(ids[b][live[k % live.len()]], a)
                }
                AOp::Remove(_) | AOp::RemoveAgain(_) | AOp::Push { .. } => Ok(()),
                AOp::Step(d) => w.step(d.value()).map(|_| ()),
                AOp::Encode(n) => {
                    let gpu = b == 1;
                    let w = std::cell::RefCell::new(w);
                    steps_in_one_encoder(
                        gpu,
                        n,
                        || w.borrow_mut().step(DT),
                        |e| w.borrow_mut().encode_step(DT, e),
                    )
                }
            };
            if r.is_err() {
                prop_assert_eq!(a_seen(&worlds[b])?, before, "{:?} failed and changed", op);
            }
            oks[b] = r.is_ok();
        }
        prop_assert_eq!(oks[0], oks[1], "backends disagree on {:?}", op);
        match (op, oks[0]) {
            (AOp::Add { .. }, true) => valid.push(true),
            (AOp::Remove(k), true) if !live.is_empty() => valid[live[k % live.len()]] = false,
            _ => {}
        }
        prop_assert_eq!(worlds[0].len(), worlds[1].len(), "slots after {:?}", op);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The rigid world

#[derive(Clone, Debug)]
enum ROp {
    AddBox { x: f32, half: f32 },
    AddSphere { x: f32, radius: f32 },
    Remove(usize),
    RemoveAgain(usize),
    Push { k: usize, bad: bool },
    Step(Dt),
    Encode(u8),
}

/// A size: mostly good, sometimes zero, negative or NaN.
fn size() -> impl Strategy<Value = f32> {
    prop_oneof![8 => 0.1f32..0.6, 1 => Just(0.0), 1 => Just(-0.2), 1 => Just(f32::NAN)]
}

fn r_op() -> impl Strategy<Value = ROp> {
    prop_oneof![
        4 => (-3.0f32..3.0, size()).prop_map(|(x, half)| ROp::AddBox { x, half }),
        2 => (-3.0f32..3.0, size()).prop_map(|(x, radius)| ROp::AddSphere { x, radius }),
        2 => any::<usize>().prop_map(ROp::Remove),
        1 => any::<usize>().prop_map(ROp::RemoveAgain),
        2 => (any::<usize>(), prop::bool::weighted(0.2)).prop_map(|(k, bad)| ROp::Push { k, bad }),
        4 => dt().prop_map(ROp::Step),
        1 => (1u8..4).prop_map(ROp::Encode),
    ]
}

fn r_seen(
    w: &mut RigidWorld,
    hs: &[BodyHandle],
) -> Result<(usize, Vec<bool>, Vec<u8>), TestCaseError> {
    let bodies = w.read_bodies().map_err(fail)?;
    let alive = hs.iter().map(|&h| w.contains(h)).collect();
    Ok((w.len(), alive, bytemuck::cast_slice(&bodies).to_vec()))
}

fn fuzz_rigid(ops: &[ROp], grow: bool, blocks: bool, staged: bool) -> Result<(), TestCaseError> {
    let mut cfg = RigidConfig {
        body_capacity: 8,
        auto_grow: grow,
        ..RigidConfig::default()
    };
    if blocks {
        // The block solver, with more pair slots than the one-workgroup solver takes, so the
        // step runs block by block.
        cfg = RigidConfig {
            pair_capacity: 4160,
            ..cfg.with_blocks()
        };
    }
    let mut worlds = [
        RigidWorld::new(Backend::Cpu, cfg.clone()).map_err(fail)?,
        RigidWorld::new(Backend::Gpu(ctx()), cfg).map_err(fail)?,
    ];
    // With blocks, the GPU world's bins solved against a workgroup copy of their bodies half
    // the time (RigidWorld::set_block_staging).
    worlds[1].set_block_staging(blocks && staged);
    let ground =
        |w: &mut RigidWorld| w.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)]);
    let mut handles: [Vec<BodyHandle>; 2] = [Vec::new(), Vec::new()];
    for (b, w) in worlds.iter_mut().enumerate() {
        handles[b].push(ground(w).map_err(fail)?);
    }
    let mut valid: Vec<bool> = vec![true];
    for op in ops {
        let mut oks = [false; 2];
        let live: Vec<usize> = (1..valid.len()).filter(|&i| valid[i]).collect();
        let gone: Vec<usize> = (0..valid.len()).filter(|&i| !valid[i]).collect();
        for b in 0..2 {
            let before = r_seen(&mut worlds[b], &handles[b])?;
            let w = &mut worlds[b];
            let at = |x: f32| RigidBody::dynamic().position(Vec3::new(x, 1.0, 0.0));
            let r: wgphys::Result<()> = match *op {
                ROp::AddBox { x, half } => w
                    .add_body(at(x), &[Collider::cuboid(Vec3::splat(half))])
                    .map(|h| handles[b].push(h)),
                ROp::AddSphere { x, radius } => w
                    .add_body(at(x), &[Collider::sphere(radius)])
                    .map(|h| handles[b].push(h)),
                ROp::Remove(k) if !live.is_empty() => {
                    w.remove_body(handles[b][live[k % live.len()]])
                }
                ROp::RemoveAgain(k) if !gone.is_empty() => {
                    w.remove_body(handles[b][gone[k % gone.len()]])
                }
                ROp::Push { k, bad } if !live.is_empty() => {
                    let v = Vec3::new(coord(1.0, bad), 0.0, 0.0);
                    w.set_linear_velocity(handles[b][live[k % live.len()]], v)
                }
                ROp::Remove(_) | ROp::RemoveAgain(_) | ROp::Push { .. } => Ok(()),
                ROp::Step(d) => w.step(d.value()).map(|_| ()),
                ROp::Encode(n) => {
                    let gpu = b == 1;
                    let w = std::cell::RefCell::new(w);
                    steps_in_one_encoder(
                        gpu,
                        n,
                        || w.borrow_mut().step(DT).map(|_| ()),
                        |e| w.borrow_mut().encode_step(DT, e).map(|_| ()),
                    )
                }
            };
            if r.is_err() {
                prop_assert_eq!(
                    r_seen(&mut worlds[b], &handles[b])?,
                    before,
                    "{:?} failed and changed",
                    op
                );
            }
            oks[b] = r.is_ok();
        }
        prop_assert_eq!(oks[0], oks[1], "backends disagree on {:?}", op);
        match (op, oks[0]) {
            (ROp::AddBox { .. } | ROp::AddSphere { .. }, true) => valid.push(true),
            (ROp::Remove(k), true) if !live.is_empty() => valid[live[k % live.len()]] = false,
            _ => {}
        }
        for (b, w) in worlds.iter().enumerate() {
            for (i, &h) in handles[b].iter().enumerate() {
                prop_assert_eq!(w.contains(h), valid[i], "body {} after {:?}", i, op);
            }
        }
        prop_assert_eq!(worlds[0].len(), worlds[1].len(), "bodies after {:?}", op);
    }
    Ok(())
}

fn fail(e: wgphys::Error) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn particle_world_survives_random_call_sequences(ops in prop::collection::vec(p_op(), 1..40)) {
        fuzz_particles(&ops)?;
    }

    #[test]
    fn aggregate_world_survives_random_call_sequences(ops in prop::collection::vec(a_op(), 1..40)) {
        fuzz_aggregate(&ops)?;
    }

    #[test]
    fn rigid_world_survives_random_call_sequences(
        ops in prop::collection::vec(r_op(), 1..30),
        grow in any::<bool>(),
        blocks in any::<bool>(),
        staged in any::<bool>(),
    ) {
        fuzz_rigid(&ops, grow, blocks, staged)?;
    }
}
