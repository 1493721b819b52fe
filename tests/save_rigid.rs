//! Saving and loading a rigid world (issue 39, the `serde` feature): a loaded world continues
//! bit-identically on the backend it was saved from (both formats, random scenes with removed
//! slots, joints, generators and hulls), within the GPU/CPU parity bound on the other backend;
//! bad files are errors naming the field, and no bytes make `load` panic.
#![cfg(feature = "serde")]

mod common;

use common::rigid::*;
use common::shared_gpu as gpu;
use glam::{Quat, Vec3, Vec4Swizzles};
use proptest::prelude::*;
use wgphys::rigid::generators::ForceGen;
use wgphys::rigid::types::{GpuBody, GpuJoint};
use wgphys::rigid::{BodyHandle, Collider, Joint, RigidBody, RigidConfig, RigidWorld};
use wgphys::save::{SaveFormat, SAVE_VERSION};
use wgphys::{Backend, Error};

/// A scene with every kind of state a save holds: a ground, a resting box stack, a rolling
/// ball, a capsule and a hull falling, a fast CCD sphere, a chain of ball joints, a motor, a
/// breakable weld, a spring generator, and a removed body, joint and generator (free slots).
fn scene(backend: Backend) -> (RigidWorld, Vec<BodyHandle>) {
    let cfg = RigidConfig {
        auto_grow: true,
        ..config(32)
    };
    let mut w = RigidWorld::new(backend, cfg).expect("world");
    let mut hs = Vec::new();
    w.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
        .expect("ground");
    for i in 0..3 {
        let at = Vec3::new(0.0, 0.5 + 1.0 * i as f32, 0.0);
        hs.push(
            w.add_body(
                RigidBody::dynamic().position(at),
                &[Collider::cuboid(Vec3::splat(0.5))],
            )
            .expect("box"),
        );
    }
    let ball = RigidBody::dynamic()
        .position(Vec3::new(3.0, 0.25, 0.0))
        .velocity(Vec3::new(2.0, 0.0, 0.0));
    hs.push(w.add_body(ball, &[Collider::sphere(0.25)]).expect("ball"));
    let tilted = RigidBody::dynamic()
        .position(Vec3::new(-3.0, 2.0, 0.0))
        .rotation(Quat::from_rotation_z(0.4));
    hs.push(
        w.add_body(tilted, &[Collider::capsule_y(0.4, 0.2)])
            .expect("capsule"),
    );
    let rock = Collider::convex_hull(&[
        Vec3::new(0.4, 0.0, 0.0),
        Vec3::new(-0.3, 0.1, 0.2),
        Vec3::new(0.0, 0.5, -0.2),
        Vec3::new(0.1, -0.3, 0.3),
        Vec3::new(-0.2, -0.2, -0.3),
    ])
    .expect("hull");
    let r = RigidBody::dynamic().position(Vec3::new(-1.5, 1.5, 1.0));
    hs.push(w.add_body(r, &[rock]).expect("rock"));
    let fast = RigidBody::dynamic()
        .position(Vec3::new(2.0, 3.0, 2.0))
        .velocity(Vec3::new(0.0, -30.0, 0.0))
        .ccd(true);
    hs.push(w.add_body(fast, &[Collider::sphere(0.1)]).expect("fast"));
    let doomed = w
        .add_body(
            RigidBody::dynamic().position(Vec3::new(9.0, 1.0, 0.0)),
            &[Collider::sphere(0.3)],
        )
        .expect("doomed");
    // The chain of ball joints from a fixed point, swinging.
    let top = Vec3::new(0.0, 6.0, 3.0);
    let mut above = None;
    for i in 0..4 {
        let c = top + Vec3::new(0.1 * (i + 1) as f32, -0.3 * (i + 1) as f32, 0.0);
        let link = w
            .add_body(free_body(c, 0.5), &[Collider::capsule_y(0.1, 0.05)])
            .expect("link");
        let anchor = top + Vec3::new(0.1 * i as f32, -0.3 * i as f32, 0.0);
        w.add_joint(above, link, Joint::ball(anchor))
            .expect("ball joint");
        above = Some(link);
        hs.push(link);
    }
    let hub = Vec3::new(-4.0, 4.0, -3.0);
    let wheel = w
        .add_body(free_body(hub, 2.0), &[Collider::sphere(0.3)])
        .expect("wheel");
    w.add_joint(
        None,
        wheel,
        Joint::hinge(hub, Vec3::Z).with_motor(1.5, 20.0),
    )
    .expect("motor");
    let a = w
        .add_body(
            free_body(Vec3::new(5.0, 5.0, -3.0), 1.0),
            &[Collider::sphere(0.2)],
        )
        .expect("weld a");
    let b = w
        .add_body(
            free_body(Vec3::new(5.5, 5.0, -3.0), 1.0),
            &[Collider::sphere(0.2)],
        )
        .expect("weld b");
    w.add_joint(
        Some(a),
        b,
        Joint::fixed(Vec3::new(5.25, 5.0, -3.0)).with_breaking(40.0, 40.0),
    )
    .expect("weld");
    w.add_force_generator(ForceGen::spring(a, Vec3::ZERO, wheel, Vec3::ZERO, 3.0, 1.0))
        .expect("spring");
    let gone = w
        .add_force_generator(ForceGen::anchored_spring(
            b,
            Vec3::ZERO,
            Vec3::Y * 8.0,
            5.0,
            1.0,
        ))
        .expect("anchored");
    let dropped = w
        .add_joint(None, doomed, Joint::ball(Vec3::new(9.0, 2.0, 0.0)))
        .expect("j");
    w.remove_joint(dropped).expect("remove joint");
    w.remove_force_generator(gone).expect("remove generator");
    w.remove_body(doomed).expect("remove body");
    hs.extend([wheel, a, b]);
    // A hammer built from its handle's end, so its centre of mass is off its origin, pulled by
    // a spring at its head (a point given from the origin).
    let hammer = w
        .add_body(
            RigidBody::dynamic().position(Vec3::new(-6.0, 1.0, 4.0)),
            &[
                Collider::cuboid(Vec3::new(0.05, 0.5, 0.05)).at(Vec3::Y * 0.5, Quat::IDENTITY),
                Collider::cuboid(Vec3::new(0.2, 0.1, 0.1))
                    .density(20.0)
                    .at(Vec3::Y * 1.1, Quat::IDENTITY),
            ],
        )
        .expect("hammer");
    w.add_force_generator(ForceGen::anchored_spring(
        hammer,
        Vec3::Y * 1.1,
        Vec3::new(-5.0, 4.0, 4.0),
        5.0,
        1.0,
    ))
    .expect("hammer spring");
    hs.push(hammer);
    (w, hs)
}

fn bits<T: bytemuck::Pod>(v: &[T]) -> Vec<u32> {
    bytemuck::cast_slice(v).to_vec()
}

/// Steps `a` and `b` `n` steps each and asserts every body and joint bit-equal after each.
fn step_both_bit_equal(a: &mut RigidWorld, b: &mut RigidWorld, n: usize, what: &str) {
    for s in 0..n {
        a.step(DT).expect("step original");
        b.step(DT).expect("step loaded");
        let (ba, bb) = (a.read_bodies().expect("a"), b.read_bodies().expect("b"));
        if let Some(i) = (0..ba.len()).find(|&i| bits(&ba[i..=i]) != bits(&bb[i..=i])) {
            panic!(
                "{what}: body {i} differs {s} steps after the load:\n{:?}\n{:?}",
                ba[i], bb[i]
            );
        }
        assert_eq!(ba.len(), bb.len(), "{what}: body slots");
        let (ja, jb) = (a.read_joints().expect("a"), b.read_joints().expect("b"));
        assert_eq!(
            bits(&ja),
            bits(&jb),
            "{what}: joints {s} steps after the load"
        );
    }
}

/// Asserts that `a` and `b` save the same bytes, naming the first line of their text saves
/// that differs when they do not.
fn same_saves(a: &mut RigidWorld, b: &mut RigidWorld, what: &str) {
    if a.save(SaveFormat::Binary).unwrap() != b.save(SaveFormat::Binary).unwrap() {
        let ta = String::from_utf8(a.save(SaveFormat::Text).unwrap()).unwrap();
        let tb = String::from_utf8(b.save(SaveFormat::Text).unwrap()).unwrap();
        let line = ta
            .lines()
            .zip(tb.lines())
            .enumerate()
            .find(|(_, (x, y))| x != y);
        panic!("{what}: the saves differ, first at line {line:?}");
    }
}

/// Save after 40 steps (the stack resting and warm-started, the chain swinging, the fast
/// sphere landed), load, and 30 more steps of both are bit-identical; then both save the
/// same bytes. On the CPU both formats, on the GPU the binary one (the text one is the same
/// state, checked on the CPU).
#[test]
fn a_loaded_world_continues_bit_identically() {
    for (name, backend) in backends() {
        let formats: &[SaveFormat] = if name == "cpu" {
            &[SaveFormat::Binary, SaveFormat::Text]
        } else {
            &[SaveFormat::Binary]
        };
        for &format in formats {
            let (mut w, _) = scene(backend.clone());
            run(&mut w, 40, DT);
            let bytes = w.save(format).expect("save");
            let mut loaded = RigidWorld::load(backend.clone(), &bytes).expect("load");
            assert_eq!(loaded.steps(), w.steps());
            assert_eq!(loaded.len(), w.len());
            let what = format!("{name} {format:?}");
            step_both_bit_equal(&mut w, &mut loaded, 30, &what);
            same_saves(&mut w, &mut loaded, &what);
        }
    }
}

/// The text and the binary save of one world load to the same state (the text's floats are
/// written in the shortest form that reads back to the same bits).
#[test]
fn text_and_binary_hold_the_same_state() {
    let (mut w, _) = scene(Backend::Cpu);
    run(&mut w, 25, DT);
    let text = w.save(SaveFormat::Text).expect("text");
    assert!(text.starts_with(format!("wgphys-save {SAVE_VERSION} rigid\n").as_bytes()));
    let mut from_text = RigidWorld::load(Backend::Cpu, &text).expect("load text");
    same_saves(&mut w, &mut from_text, "text");
}

/// The handles: a loaded world's body in a saved handle's slot is live with the saved
/// generation, and the saved world's handles are not the loaded world's.
#[test]
fn handles_carry_their_slots_and_generations() {
    let (mut w, hs) = scene(Backend::Cpu);
    run(&mut w, 5, DT);
    let mut loaded = RigidWorld::load(Backend::Cpu, &w.save(SaveFormat::Binary).unwrap()).unwrap();
    for h in &hs {
        let mine = loaded
            .body_handle_at(h.index())
            .expect("a live body in the slot");
        // The origin and the centre of mass (the hammer's and the rock's differ): the
        // loaded world derives each body's centre again from the same mass parts.
        let (got, want) = (loaded.body(mine).unwrap(), w.body(*h).unwrap());
        assert_eq!(
            (got.position, got.centre_of_mass),
            (want.position, want.centre_of_mass)
        );
        assert!(
            !loaded.contains(*h),
            "a saved world's handle is not the loaded world's"
        );
    }
    // The removed body's slot is free in both: a body added to each takes it.
    let a = w
        .add_body(RigidBody::dynamic(), &[Collider::sphere(0.1)])
        .unwrap();
    let b = loaded
        .add_body(RigidBody::dynamic(), &[Collider::sphere(0.1)])
        .unwrap();
    assert_eq!(
        (a.index(), loaded.body_handle_at(a.index())),
        (b.index(), Some(b))
    );
}

/// The bound on a GPU-against-CPU difference, as `rigid_joints_parity`'s (argued there: about
/// 1e3 roundings of a few ulp per step at the quantity's scale, not compounding in the smooth
/// motion of the chain, the motor and resting contacts), over 30 steps.
const PARITY: f32 = 1e-3;

/// A save of the GPU loads on the CPU twin (and the other way) and the two continue within the
/// parity bound, in a smooth scene: the chain, the motor and the resting stack (the ball, the
/// falling capsule, rock and fast sphere tumble chaotically and are left out).
#[test]
fn a_save_loads_on_the_other_backend() {
    let (mut g, hs) = scene(Backend::Gpu(gpu()));
    run(&mut g, 20, DT);
    let bytes = g.save(SaveFormat::Binary).expect("save");
    let mut on_gpu = RigidWorld::load(Backend::Gpu(gpu()), &bytes).expect("gpu load");
    let mut on_cpu = RigidWorld::load(Backend::Cpu, &bytes).expect("cpu load");
    run(&mut on_gpu, 30, DT);
    run(&mut on_cpu, 30, DT);
    let (bg, bc) = (on_gpu.read_bodies().unwrap(), on_cpu.read_bodies().unwrap());
    let smooth: Vec<usize> = (0..3)
        .chain(7..hs.len())
        .map(|k| hs[k].index() as usize)
        .collect();
    let vmax = smooth
        .iter()
        .map(|&i| bc[i].lin_vel.xyz().length())
        .fold(1.0f32, f32::max);
    for &i in &smooth {
        let dp = (bg[i].pos.xyz() - bc[i].pos.xyz()).length();
        let dv = (bg[i].lin_vel.xyz() - bc[i].lin_vel.xyz()).length() / vmax;
        assert!(dp <= 5.0 * PARITY, "body {i}: position differs by {dp} m");
        assert!(
            dv <= PARITY,
            "body {i}: velocity differs by {dv} of the largest"
        );
    }
    // And a CPU save on the GPU: the loaded state is the saved one, bit for bit.
    let cpu_bytes = on_cpu.save(SaveFormat::Binary).unwrap();
    let mut back = RigidWorld::load(Backend::Gpu(gpu()), &cpu_bytes).expect("cpu save on gpu");
    assert_eq!(bits(&back.read_bodies().unwrap()), bits(&bc));
    let jc: Vec<GpuJoint> = on_cpu.read_joints().unwrap();
    assert_eq!(bits(&back.read_joints().unwrap()), bits(&jc));
    run(&mut back, 2, DT);
}

/// A random scene for the property: boxes and spheres dropped on a ground, some removed, some
/// joined to the one before by a ball joint.
fn random_scene(seed: &[(u8, f32, f32, bool, bool)]) -> RigidWorld {
    let mut w = RigidWorld::new(Backend::Cpu, config(8)).expect("world");
    w.add_body(RigidBody::fixed(), &[Collider::half_space(Vec3::Y, 0.0)])
        .unwrap();
    let mut prev: Option<BodyHandle> = None;
    let mut removed = Vec::new();
    for (k, &(kind, x, z, remove, join)) in seed.iter().enumerate() {
        let at = Vec3::new(x, 0.6 + 0.9 * k as f32, z);
        let collider = match kind % 3 {
            0 => Collider::sphere(0.3),
            1 => Collider::cuboid(Vec3::new(0.3, 0.2, 0.4)),
            _ => Collider::capsule_y(0.3, 0.2),
        };
        let h = w
            .add_body(RigidBody::dynamic().position(at), &[collider])
            .unwrap();
        if join {
            if let Some(p) = prev {
                w.add_joint(
                    Some(p),
                    h,
                    Joint::ball((at + w.body(p).unwrap().position) * 0.5),
                )
                .unwrap();
            }
        }
        if remove {
            removed.push(h);
        }
        prev = Some(h);
    }
    for h in removed.into_iter().step_by(2) {
        w.remove_body(h).unwrap();
    }
    w
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// Random scenes (grown past their first capacity, with freed slots and joints) saved at a
    /// random step continue bit-identically.
    #[test]
    fn random_scenes_continue_bit_identically(
        seed in proptest::collection::vec((0u8..3, -1.0f32..1.0, -1.0f32..1.0, any::<bool>(), any::<bool>()), 1..14),
        before in 0usize..30,
        text in any::<bool>(),
    ) {
        let mut w = random_scene(&seed);
        run(&mut w, before, DT);
        let format = if text { SaveFormat::Text } else { SaveFormat::Binary };
        let mut loaded = RigidWorld::load(Backend::Cpu, &w.save(format).unwrap()).unwrap();
        step_both_bit_equal(&mut w, &mut loaded, 12, "random scene");
    }
}

fn load_err(bytes: &[u8]) -> (String, String) {
    match RigidWorld::load(Backend::Cpu, bytes) {
        Err(Error::Load { field, reason }) => (field, reason),
        Err(e) => panic!("not a load error: {e}"),
        Ok(_) => panic!("loaded a bad file"),
    }
}

/// Every prefix of a save is refused as truncated (or corrupt), never loaded and never a panic.
#[test]
fn truncated_files_are_errors() {
    let (mut w, _) = scene(Backend::Cpu);
    run(&mut w, 3, DT);
    let bytes = w.save(SaveFormat::Binary).unwrap();
    for n in (0..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
        let (field, reason) = load_err(&bytes[..n]);
        assert!(!field.is_empty() && !reason.is_empty());
    }
    let text = w.save(SaveFormat::Text).unwrap();
    for n in (0..text.len()).step_by(997) {
        load_err(&text[..n]);
    }
}

/// A newer or an older format, another kind of world, a NaN and an index out of range are each refused
/// naming the field.
#[test]
fn bad_files_name_the_field() {
    let (mut w, _) = scene(Backend::Cpu);
    run(&mut w, 3, DT);
    let mut bytes = w.save(SaveFormat::Binary).unwrap();
    bytes[8..12].copy_from_slice(&(SAVE_VERSION + 1).to_le_bytes());
    let (field, reason) = load_err(&bytes);
    assert_eq!(field, "header.version", "{reason}");
    assert!(reason.contains("newer"), "{reason}");
    // Older formats (1: before collider handles; 2: before centres of mass came from the
    // colliders, so a record's position meant the origin) are refused by their version, not
    // by a field inside.
    for older in 1..SAVE_VERSION {
        bytes[8..12].copy_from_slice(&older.to_le_bytes());
        let (field, reason) = load_err(&bytes);
        assert_eq!(field, "header.version", "{reason}");
        assert!(reason.contains("older"), "{reason}");
    }
    let text = String::from_utf8(w.save(SaveFormat::Text).unwrap()).unwrap();
    let (field, _) = load_err(text.replacen(" rigid\n", " particles\n", 1).as_bytes());
    assert_eq!(field, "header.world");
    // The first body's position, x: the ground at the origin ("pos: (0.0," in RON).
    let nan = text.replacen("pos: (0.0,", "pos: (NaN,", 1);
    assert_ne!(nan, text, "the edit found its place");
    let (field, reason) = load_err(nan.as_bytes());
    assert_eq!(field, "bodies[0]", "{reason}");
    // The first shape's owner: body 0 → 999.
    let far = text.replacen("body: 0,", "body: 999,", 1);
    assert_ne!(far, text, "the edit found its place");
    let (field, reason) = load_err(far.as_bytes());
    assert_eq!(field, "shapes.body[0]", "{reason}");
    // A misspelt field of the state itself: named in the error.
    let misspelt = text.replacen("\n    steps:", "\n    stepz:", 1);
    assert_ne!(misspelt, text, "the edit found its place");
    let (field, reason) = load_err(misspelt.as_bytes());
    assert!(
        reason.contains("steps") || field.contains("steps"),
        "{field}: {reason}"
    );
    let (field, _) = load_err(b"not a save");
    assert_eq!(field, "header");
}

/// Random byte flips in a binary save: `load` returns, never panics; what it loads steps
/// (a flip that made a value a world refuses is an error instead).
#[test]
fn fuzzed_bytes_never_panic() {
    let (mut w, _) = scene(Backend::Cpu);
    run(&mut w, 3, DT);
    let bytes = w.save(SaveFormat::Binary).unwrap();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut loaded, mut refused) = (0, 0);
    for _ in 0..3000 {
        let mut b = bytes.clone();
        for _ in 0..1 + next() % 4 {
            let at = 13 + (next() as usize) % (b.len() - 13);
            b[at] ^= 1 << (next() % 8);
        }
        match RigidWorld::load(Backend::Cpu, &b) {
            Ok(mut x) => {
                loaded += 1;
                if loaded % 10 == 0 {
                    let _ = x.step(DT);
                }
            }
            Err(_) => refused += 1,
        }
    }
    assert!(refused > 0 && loaded + refused == 3000);
}

/// A sanity check of the scene: the bodies the bit-identity test compares move.
#[test]
fn the_scene_moves() {
    let (mut w, hs) = scene(Backend::Cpu);
    let before: Vec<GpuBody> = w.read_bodies().unwrap();
    run(&mut w, 10, DT);
    let after = w.read_bodies().unwrap();
    let moved = hs
        .iter()
        .filter(|h| before[h.index() as usize].pos != after[h.index() as usize].pos)
        .count();
    assert!(moved >= hs.len() - 3, "{moved} of {} moved", hs.len());
}
