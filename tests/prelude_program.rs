//! A user program written only with `wgphys::prelude`, as the README shows: a rigid scene read
//! through typed views, an effect drawn from the engine's buffers, and an aggregate rope. It
//! must build from the prelude alone (no other `wgphys::` path below) and behave as physics
//! says.

use wgphys::prelude::*;

/// A box dropped on the ground comes to rest on it (its centre half a size up), read through
/// the typed view; a ray from above finds it by handle.
#[test]
fn a_rigid_scene_from_the_prelude() -> Result<()> {
    let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?;
    world.add_body(
        RigidBody::fixed(),
        &[Collider::half_space(Vec3::Y, 0.0).material(0.8, 0.0)],
    )?;
    let crate_box = world.add_body(
        RigidBody::dynamic().position(Vec3::new(0.0, 1.0, 0.0)),
        &[Collider::cuboid(Vec3::splat(0.25)).material(0.8, 0.0)],
    )?;
    for _ in 0..120 {
        world.step(1.0 / 60.0)?;
    }
    let b: Body = world.body(crate_box)?;
    // At rest on the ground: the centre 0.25 m up, within the contact slop the solver allows
    // (RigidConfig::position_slop, 5 mm by default, plus rounding).
    assert!((b.position.y - 0.25).abs() < 0.01, "{}", b.position);
    assert!(b.linear_velocity.length() < 0.05, "{}", b.linear_velocity);
    let ray = Ray::new(Vec3::new(0.0, 5.0, 0.0), -Vec3::Y, 10.0)?;
    let hit = world
        .cast_ray_filtered(&ray, &QueryFilter::new())?
        .expect("the box is below");
    assert_eq!(hit.body, crate_box);
    Ok(())
}

/// An effect on the GPU hands its buffers to a renderer: positions, colours, sizes and the
/// indirect draw arguments, without a readback; the emitted sparks fall under the world's
/// gravity field.
#[test]
fn an_effect_drawn_from_the_engine_buffers() -> Result<()> {
    let ctx = GpuContext::new()?;
    let mut world = ParticleWorld::new(
        Backend::Gpu(ctx),
        WorldConfig {
            capacity: 1024,
            fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
            colliders: vec![ParticleCollider::ground(0.3, 0.5)],
            ..WorldConfig::default()
        },
    )?;
    world.add_emitter(Emitter {
        rate: 600.0,
        position: Vec3::new(0.0, 2.0, 0.0),
        ..Emitter::default()
    })?;
    for _ in 0..30 {
        world.step(1.0 / 60.0)?;
    }
    let buffers = world
        .render_buffers()
        .expect("a GPU world draws from its buffers");
    assert!(
        buffers.positions.size() >= 1024 * 16,
        "a vec4 position per slot"
    );
    assert!(buffers.draw_args.size() >= 16, "DrawIndirectArgs");
    let snapshot = world.read_snapshot()?;
    assert!(
        snapshot.len() > 200,
        "about 300 sparks emitted, {} live",
        snapshot.len()
    );
    Ok(())
}

/// A rope of rods hanging from a fixed point swings down and keeps its lengths.
#[test]
fn an_aggregate_rope_from_the_prelude() -> Result<()> {
    let mut world = AggregateWorld::new(
        Backend::Cpu,
        AggregateConfig {
            capacity: 16,
            fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
            ..AggregateConfig::default()
        },
    )?;
    let knots = (0..8)
        .map(|i| {
            world.add_particle(Particle::new(Vec3::new(0.5 * i as f32, 5.0, 0.0)).with_mass(0.1))
        })
        .collect::<Result<Vec<_>>>()?;
    world.add_link(Link::AnchoredRod {
        particle: knots[0],
        anchor: Vec3::new(0.0, 5.0, 0.0),
        length: 0.0001,
    })?;
    for pair in knots.windows(2) {
        world.add_link(Link::Rod {
            a: pair[0],
            b: pair[1],
            length: 0.5,
        })?;
    }
    // The end of a 3.5 m rope released horizontally falls through the bottom of its swing
    // (1.5 m up, straight below the anchor) within the first second or so, and, with no
    // energy put in, never climbs above the height it started from.
    let (mut lowest, mut highest) = (f32::INFINITY, f32::NEG_INFINITY);
    for _ in 0..120 {
        world.step(1.0 / 60.0)?;
        let s = world.read_snapshot()?;
        let end = s.pos[7].truncate();
        lowest = lowest.min(end.y);
        highest = highest.max(end.y);
        let span = (s.pos[7].truncate() - Vec3::new(0.0, 5.0, 0.0)).length();
        // Seven rods of 0.5 m and the anchor rod: the end is never farther than 3.5 m.
        assert!(span <= 3.5 + 0.01, "the rope stretched to {span} m");
    }
    assert!(lowest < 2.0, "the end swung down to {lowest} m");
    assert!(highest <= 5.0 + 0.01, "the end rose to {highest} m");
    Ok(())
}
