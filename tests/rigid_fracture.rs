//! Fracture (issue 35, catalogue §14.2), on both backends: the book's demo, a ball fired at a
//! concrete block that splits into 8 boxes; the pieces carry the block's mass and linear
//! momentum (within 1e-4 relative), tile the block, and are ordinary bodies whose handles the
//! world hands out once; a block at rest does not break under its own weight; bad breakable
//! bodies are refused.

mod common;

use common::rigid::*;
use glam::{Vec3, Vec4Swizzles};
use wgphys::rigid::fracture::{divide, FractureEvent};
use wgphys::rigid::types::GpuBody;
use wgphys::rigid::{Collider, RigidBody, RigidWorld};
use wgphys::Error;

/// The block of the demo: 1 m half size, 200 kg (the book's block is 100 kg at 4 m half size),
/// breaking at 100 N·s, on the ground.
fn block_world(backend: wgphys::Backend) -> (RigidWorld, wgphys::rigid::BodyHandle) {
    let mut w = RigidWorld::new(backend, config(32)).expect("world");
    wgphys::scenes::rigid::add_ground(&mut w).expect("ground");
    let block = w
        .add_body(
            RigidBody::dynamic()
                .position(Vec3::new(0.0, 1.0, 0.0))
                .mass(200.0)
                .breakable(100.0, 10.0),
            &[Collider::cuboid(Vec3::ONE).material(0.9, 0.2)],
        )
        .expect("block");
    (w, block)
}

/// The demo's ball: 5 kg, radius 0.25, at 40 m/s at the block's −x face.
fn fire(w: &mut RigidWorld) {
    w.add_body(
        RigidBody::dynamic()
            .position(Vec3::new(-3.0, 1.2, 0.1))
            .velocity(Vec3::X * 40.0)
            .mass(5.0),
        &[Collider::sphere(0.25).material(0.9, 0.2)],
    )
    .expect("ball");
}

/// Steps until the world reports a split (within `steps`), returning it.
fn until_split(w: &mut RigidWorld, steps: usize) -> Option<wgphys::rigid::Fracture> {
    for _ in 0..steps {
        w.step(DT).expect("step");
        if let Some(g) = w.gpu() {
            g.ctx.wait().expect("wait");
            w.poll_reports().expect("poll");
        }
        let mut done = w.take_fractures();
        if let Some(f) = done.pop() {
            assert!(done.is_empty(), "one block, one split: {done:?}");
            return Some(f);
        }
    }
    None
}

/// Mass and linear momentum of bodies.
fn mass_momentum(bodies: &[GpuBody]) -> (f64, glam::DVec3) {
    let mut m = 0.0f64;
    let mut p = glam::DVec3::ZERO;
    for b in bodies {
        let mass = 1.0 / f64::from(b.pos.w);
        m += mass;
        p += b.lin_vel.xyz().as_dvec3() * mass;
    }
    (m, p)
}

/// The book's demo: a 5 kg ball of radius 0.25 fired at 40 m/s (200 N·s; stopping it against
/// the block takes 195 N·s) at the block's face splits it on impact; the pieces carry the block's mass and momentum as it was split, within
/// 1e-4 relative (the masses are the block's times each piece's share of its volume, 8 products
/// and a sum, and the velocities the block's rigid motion plus a burst whose mass-weighted mean
/// is taken out: a few roundings of f32, 1e-6 relative, and the momentum's scale is at least
/// the ball's share). Before the ball arrives the block rests on the ground for 30 steps without
/// breaking (its contact's impulse a step is its weight's, 1962 N · dt = 33 N·s < 100). The
/// block's handle goes stale; the pieces are 8 live bodies that tile it.
#[test]
fn a_ball_splits_the_block_into_eight_pieces_that_keep_its_mass_and_momentum() {
    for (name, backend) in backends() {
        let (mut w, block) = block_world(backend);
        let rest = until_split(&mut w, 30);
        assert!(
            rest.is_none(),
            "{name}: the block broke at rest: {:?}",
            rest.map(|f| (f.impulse, w.steps()))
        );
        fire(&mut w);
        let split = until_split(&mut w, 30).unwrap_or_else(|| panic!("{name}: no split"));
        assert_eq!(split.body, block, "{name}: the wrong body split");
        assert!(!w.contains(block), "{name}: the block lives on");
        assert_eq!(split.pieces.len(), 8);
        let bodies = w.read_bodies().expect("bodies");
        let pieces: Vec<GpuBody> = split
            .pieces
            .iter()
            .map(|h| {
                assert!(w.contains(*h), "{name}: a piece is not alive");
                bodies[h.index() as usize]
            })
            .collect();
        let (m, p) = mass_momentum(&pieces);
        let (m0, p0) = mass_momentum(&[split.block]);
        println!(
            "{name}: split by {} N·s at {:?}; pieces' mass {m} (block {m0}), momentum {p:?} \
             (block {p0:?})",
            split.impulse, split.point
        );
        assert!(((m - m0) / m0).abs() < 1e-4, "{name}: mass {m} vs {m0}");
        let scale = p0.length().max(1.0);
        assert!(
            (p - p0).length() / scale < 1e-4,
            "{name}: momentum {p:?} vs {p0:?}"
        );
        // Struck on its −x face, near its middle.
        let local = split.point - split.block.pos.xyz();
        assert!(local.x < -0.8, "{name}: struck at {local:?}");
        // The pieces fly apart (the burst) and stay whole bodies that rest again.
        run(&mut w, 240, DT);
        let after = w.read_bodies().expect("bodies");
        for h in &split.pieces {
            let b = after[h.index() as usize];
            assert!(
                b.pos.y > 0.0 && b.pos.is_finite(),
                "{name}: a piece went astray: {b:?}"
            );
        }
    }
}

/// The 8 pieces of a spinning, moving block tile it: their volumes add up to the block's, each
/// lies inside it, and together they carry its mass and linear momentum (1e-6 relative: a few
/// roundings), whatever face it is struck on.
#[test]
fn the_pieces_tile_the_block_and_carry_its_momentum() {
    let half = Vec3::new(0.5, 0.8, 0.3);
    let q = glam::Quat::from_rotation_y(0.4) * glam::Quat::from_rotation_x(0.3);
    let body = GpuBody {
        pos: Vec3::new(1.0, 2.0, 3.0).extend(1.0 / 12.0),
        orient: glam::Vec4::new(q.x, q.y, q.z, q.w),
        lin_vel: Vec3::new(1.0, -2.0, 0.5).extend(1.0),
        ang_vel: Vec3::new(0.3, 2.0, -1.0).extend(1.0),
        ..GpuBody::default()
    };
    for (point, normal) in [
        (Vec3::new(-0.5, 0.2, 0.1), Vec3::X),
        (Vec3::new(0.1, 0.8, -0.2), -Vec3::Y),
        (Vec3::new(0.45, 0.79, 0.3), Vec3::Z),
    ] {
        let event = FractureEvent {
            body: 0,
            point,
            normal,
            impulse: 1.0,
        };
        let pieces = divide(&body, half, &event, 10.0);
        let volume: f32 = pieces
            .iter()
            .map(|p| 8.0 * p.half.x * p.half.y * p.half.z)
            .sum();
        let block_volume = 8.0 * half.x * half.y * half.z;
        assert!((volume - block_volume).abs() / block_volume < 1e-6);
        let mass: f32 = pieces.iter().map(|p| p.mass).sum();
        assert!((mass - 12.0).abs() / 12.0 < 1e-6, "mass {mass}");
        let momentum: Vec3 = pieces.iter().map(|p| p.velocity * p.mass).sum();
        let want = body.lin_vel.xyz() * 12.0;
        assert!(
            (momentum - want).length() / want.length() < 1e-5,
            "momentum {momentum:?} vs {want:?}"
        );
        for p in &pieces {
            let local = q.inverse() * (p.centre - body.pos.xyz());
            assert!(
                (local.abs() + p.half - half).max_element() < 1e-5,
                "a piece sticks out: centre {local:?}, half {:?}",
                p.half
            );
            assert!(p.half.min_element() > 0.0);
        }
    }
}

/// A breakable body must be a dynamic box: two colliders, a sphere, an offset box, a centre of
/// mass set off the box's centre, a static body, a non-positive impulse or a negative burst are
/// refused, the world unchanged.
#[test]
fn bad_breakable_bodies_are_refused() {
    for (name, backend) in backends() {
        let mut w = RigidWorld::new(backend, config(8)).expect("world");
        let cube = Collider::cuboid(Vec3::splat(0.5));
        let cases: Vec<(&str, RigidBody, Vec<Collider>)> = vec![
            (
                "two colliders",
                RigidBody::dynamic().breakable(10.0, 1.0),
                vec![cube.clone(), cube.clone()],
            ),
            (
                "a sphere",
                RigidBody::dynamic().breakable(10.0, 1.0),
                vec![Collider::sphere(0.5)],
            ),
            (
                "an offset box",
                RigidBody::dynamic().breakable(10.0, 1.0),
                vec![cube.clone().at(Vec3::X, glam::Quat::IDENTITY)],
            ),
            (
                "a centre of mass off the box's centre",
                RigidBody::dynamic()
                    .breakable(10.0, 1.0)
                    .centre_of_mass(Vec3::Y * 0.2),
                vec![cube.clone()],
            ),
            (
                "a static body",
                RigidBody::fixed().breakable(10.0, 1.0),
                vec![cube.clone()],
            ),
            (
                "zero impulse",
                RigidBody::dynamic().breakable(0.0, 1.0),
                vec![cube.clone()],
            ),
            (
                "NaN impulse",
                RigidBody::dynamic().breakable(f32::NAN, 1.0),
                vec![cube.clone()],
            ),
            (
                "negative burst",
                RigidBody::dynamic().breakable(10.0, -1.0),
                vec![cube.clone()],
            ),
        ];
        for (what, body, colliders) in cases {
            let err = w.add_body(body, &colliders).expect_err(what);
            println!("{name}: {what}: {err}");
            assert!(
                matches!(err, Error::InvalidInput { .. }),
                "{name}: {what}: {err:?}"
            );
            assert!(w.is_empty(), "{name}: {what}: a body was added");
        }
    }
}

/// Stage `fracture` on both backends: the same block struck at the same step, by the same
/// impulse and at the same point of the block, within the solver's parity budget (1e-3 of the
/// impulse, 1e-3 m: the contact's impulses are sums of the sweeps' roundings, as in
/// `rigid_solver_passes.rs`; the point is the contact's, from the narrow phase at the same
/// poses).
#[test]
fn the_fracture_stage_agrees_on_both_backends() {
    let mut found = Vec::new();
    for (name, backend) in backends() {
        let (mut w, _) = block_world(backend);
        fire(&mut w);
        let split = until_split(&mut w, 30).unwrap_or_else(|| panic!("{name}: no split"));
        println!(
            "{name}: struck at step {} by {} N·s at {:?} (block frame)",
            split.step, split.impulse, split.local_point
        );
        found.push(split);
    }
    let (c, g) = (&found[0], &found[1]);
    assert_eq!(c.step, g.step, "struck at different steps");
    assert_eq!(c.body.index(), g.body.index());
    assert!(
        ((c.impulse - g.impulse) / c.impulse).abs() < 1e-3,
        "impulse {} vs {}",
        c.impulse,
        g.impulse
    );
    assert!(
        (c.local_point - g.local_point).length() < 1e-3,
        "point {:?} vs {:?}",
        c.local_point,
        g.local_point
    );
}
