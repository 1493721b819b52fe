//! Effects as files (the `serde` feature): a description survives JSON and RON unchanged, a
//! file with a misspelt or mistyped field is refused naming it, a file with a bad value is
//! refused naming the field and its place, and a loaded effect runs in a world.
#![cfg(feature = "serde")]

use glam::{Quat, Vec3, Vec4};
use wgphys::effect::{EffectDesc, SubEmitterLink};
use wgphys::particles::{
    Burst, EmitShape, EmitVelocity, Emitter, ForceField, KillBounds, ParticleCollider,
    ParticleWorld, SubTrigger, ViewSort, WorldConfig,
};
use wgphys::Backend;
use wgphys::Error;

fn sample() -> EffectDesc {
    EffectDesc {
        emitters: vec![
            Emitter {
                rate: 250.0,
                bursts: vec![Burst {
                    time: 0.5,
                    count: 40,
                }],
                shape: EmitShape::Cone {
                    half_angle: 0.3,
                    height: 0.2,
                },
                velocity: EmitVelocity::Directional {
                    direction: Vec3::new(0.2, 1.0, 0.0),
                    spread: 0.4,
                    speed: (2.0, 4.0),
                },
                colour_over_life: Some(vec![(0.0, Vec4::ONE), (1.0, Vec4::ZERO)]),
                size_over_life: Some(vec![(0.0, 0.02), (0.5, 0.05)]),
                rotation: Quat::from_rotation_z(0.3),
                acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                collision_groups: (0b10, 0b101),
                ..Emitter::default()
            },
            Emitter {
                shape: EmitShape::Segment {
                    a: Vec3::new(-1.0, 0.0, 0.0),
                    b: Vec3::new(1.0, 0.0, 0.0),
                },
                velocity: EmitVelocity::Radial { speed: (0.5, 1.0) },
                fields: vec![ForceField::Vortex {
                    centre: Vec3::ZERO,
                    axis: Vec3::X,
                    strength: 3.0,
                    softening: 0.1,
                }],
                acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
                ..Emitter::default()
            },
        ],
        fields: vec![
            ForceField::Turbulence {
                scale: 0.8,
                strength: 2.0,
                scroll: Vec3::Y,
            },
            ForceField::Drag { k1: 0.1, k2: 0.0 },
        ],
        colliders: vec![ParticleCollider::ground(0.2, 0.3)],
        sub_emitters: vec![SubEmitterLink {
            parent: 0,
            trigger: SubTrigger::Death,
            child: 1,
            count: 3,
        }],
        kill_bounds: Some(KillBounds {
            min: Vec3::splat(-50.0),
            max: Vec3::splat(50.0),
        }),
        trail_length: Some(4),
        view_sort: Some(ViewSort {
            eye: Vec3::new(0.0, 1.0, -5.0),
            forward: Vec3::Z,
        }),
    }
}

#[test]
fn a_description_survives_json_and_ron() {
    let d = sample();
    let json = d.to_json().expect("to JSON");
    assert_eq!(EffectDesc::from_json(&json).expect("from JSON"), d);
    let ron = d.to_ron().expect("to RON");
    assert_eq!(EffectDesc::from_ron(&ron).expect("from RON"), d);
}

#[test]
fn a_malformed_file_is_refused_naming_the_field() {
    // A misspelt field, in an emitter where every other field takes its default.
    let e = EffectDesc::from_json(r#"{ "emitters": [ { "rat": 10.0 } ] }"#).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidInput { what: "effect file (JSON)", value, .. } if value.contains("rat")),
        "{e}"
    );
    // A wrong type.
    let e = EffectDesc::from_json(r#"{ "emitters": [ { "rate": "fast" } ] }"#).unwrap_err();
    assert!(
        e.to_string().contains("fast") || e.to_string().contains("f32"),
        "{e}"
    );
    let e = EffectDesc::from_ron("(emitters: [(lifetime: 3.0)])").unwrap_err();
    assert!(
        matches!(
            &e,
            Error::InvalidInput {
                what: "effect file (RON)",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn a_bad_value_is_refused_naming_the_field_and_its_place() {
    let e = EffectDesc::from_json(r#"{ "emitters": [ {}, { "rate": -5.0 } ] }"#).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidInput { what: "emitter.rate", value, .. } if value.starts_with("emitters[1]")),
        "{e}"
    );
    let e = EffectDesc::from_ron(
        "(fields: [Turbulence(scale: 0.0, strength: 1.0, scroll: (0.0, 0.0, 0.0))])",
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidInput { what: "field.turbulence.scale", value, .. } if value.starts_with("fields[0]")),
        "{e}"
    );
}

#[test]
fn a_loaded_effect_runs() {
    let d = EffectDesc::from_json(&sample().to_json().expect("json")).expect("load");
    let mut w = ParticleWorld::new(
        Backend::Cpu,
        d.world_config(WorldConfig {
            capacity: 2048,
            ..WorldConfig::default()
        }),
    )
    .expect("world");
    let handles = d.apply(&mut w).expect("apply");
    assert_eq!(handles.len(), 2);
    for _ in 0..60 {
        w.step(1.0 / 60.0).expect("step");
    }
    // One second: 250 + 100 from the rates, 40 from the burst; lifetimes are at least 1 s and
    // the first particles have aged 59 steps, so none has died: the pool holds them all.
    let live = w.read_counters().expect("counters").live;
    assert_eq!(live, 390, "live after 1 s");
}

#[test]
fn a_file_without_the_later_parts_still_loads() {
    let d = EffectDesc::from_json(r#"{ "emitters": [ {} ] }"#).expect("load");
    assert_eq!(d.emitters.len(), 1);
    assert!(d.sub_emitters.is_empty());
    assert_eq!(
        (d.kill_bounds, d.trail_length, d.view_sort),
        (None, None, None)
    );
}

#[test]
fn a_bad_link_or_setting_is_refused_naming_it() {
    let e = EffectDesc::from_ron(
        "(emitters: [(), ()], sub_emitters: [(parent: 0, trigger: Death, child: 1, count: 2), \
         (parent: 2, trigger: Impact, child: 0, count: 1)])",
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidInput { what: "sub_emitter.parent", value, .. } if value.starts_with("sub_emitters[1]")),
        "{e}"
    );
    let e = EffectDesc::from_ron(
        "(emitters: [()], sub_emitters: [(parent: 0, trigger: Death, child: 0, count: 5000)])",
    )
    .unwrap_err();
    assert!(
        matches!(
            &e,
            Error::InvalidInput {
                what: "sub_emitter.count",
                ..
            }
        ),
        "{e}"
    );
    let e = EffectDesc::from_json(r#"{ "trail_length": 65 }"#).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::InvalidInput {
                what: "trail_length",
                ..
            }
        ),
        "{e}"
    );
    let e = EffectDesc::from_json(
        r#"{ "view_sort": { "eye": [0.0, 0.0, 0.0], "forward": [0.0, 0.0, 0.0] } }"#,
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidInput { what: "view_sort.forward", value, .. } if value.starts_with("view_sort")),
        "{e}"
    );
}

/// An applied effect runs as the same world wired through the API: sub-emitters on death and
/// on impact, kill bounds, trails and the view sort; every particle, trail and the order equal
/// after every step (the same calls in the same order: the same bits), and the sub-emitter's
/// children appear.
#[test]
fn an_effect_wires_what_the_api_wires() {
    let parent = Emitter {
        rate: 60.0,
        lifetime: (0.2, 0.4),
        velocity: EmitVelocity::Directional {
            direction: Vec3::new(0.3, 1.0, 0.0),
            spread: 0.5,
            speed: (3.0, 5.0),
        },
        position: Vec3::new(0.0, 0.5, 0.0),
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..Emitter::default()
    };
    let child = Emitter {
        rate: 0.0,
        lifetime: (0.1, 0.2),
        velocity: EmitVelocity::Radial { speed: (0.5, 1.0) },
        acceleration: glam::Vec3::new(0.0, -9.81, 0.0),
        ..Emitter::default()
    };
    let bounds = KillBounds {
        min: Vec3::new(-1.0, -1.0, -1.0),
        max: Vec3::new(1.0, 3.0, 1.0),
    };
    let view = ViewSort {
        eye: Vec3::new(0.0, 1.0, -4.0),
        forward: Vec3::Z,
    };
    let d = EffectDesc {
        emitters: vec![parent.clone(), child.clone()],
        colliders: vec![ParticleCollider::ground(0.2, 0.4)],
        sub_emitters: vec![
            SubEmitterLink {
                parent: 0,
                trigger: SubTrigger::Death,
                child: 1,
                count: 3,
            },
            SubEmitterLink {
                parent: 0,
                trigger: SubTrigger::Impact,
                child: 1,
                count: 1,
            },
        ],
        kill_bounds: Some(bounds),
        trail_length: Some(3),
        view_sort: Some(view),
        ..EffectDesc::default()
    };
    let base = WorldConfig {
        capacity: 1024,
        ..WorldConfig::default()
    };
    let mut a = ParticleWorld::new(Backend::Cpu, d.world_config(base.clone())).expect("world");
    d.apply(&mut a).expect("apply");
    let mut b = ParticleWorld::new(
        Backend::Cpu,
        WorldConfig {
            colliders: vec![ParticleCollider::ground(0.2, 0.4)],
            trail_length: 3,
            ..base
        },
    )
    .expect("world");
    let p = b.add_emitter(parent).expect("parent");
    let c = b.add_emitter(child).expect("child");
    b.set_sub_emitter(p, SubTrigger::Death, Some((c, 3)))
        .expect("on death");
    b.set_sub_emitter(p, SubTrigger::Impact, Some((c, 1)))
        .expect("on impact");
    b.set_kill_bounds(Some(bounds)).expect("kill bounds");
    b.set_view_sort(Some(view)).expect("view sort");
    let mut children = 0;
    for s in 1..=60 {
        a.step(1.0 / 60.0).expect("step");
        b.step(1.0 / 60.0).expect("step");
        let (sa, sb) = (a.read_snapshot().expect("a"), b.read_snapshot().expect("b"));
        assert_eq!(sa, sb, "step {s}: particles");
        assert_eq!(
            a.read_trails().expect("a"),
            b.read_trails().expect("b"),
            "step {s}: trails"
        );
        assert_eq!(
            a.read_order().expect("a"),
            b.read_order().expect("b"),
            "step {s}: order"
        );
        assert!(
            a.read_order().expect("a").is_some(),
            "the effect's view sort is on"
        );
        // The child emitter is slot 1: its particles' kind names slot 1 + 1 above bit 16.
        children += sa.life.iter().filter(|l| l.kind >> 16 == 2).count();
    }
    assert!(children > 0, "the sub-emitter's children never appeared");
    assert_eq!(a.config().kill_bounds, Some(bounds));
    assert_eq!(a.config().trail_length, 3);
}

#[test]
fn apply_refuses_a_world_with_other_trails() {
    let d = EffectDesc {
        emitters: vec![Emitter::default()],
        trail_length: Some(4),
        ..EffectDesc::default()
    };
    let mut w = ParticleWorld::new(
        Backend::Cpu,
        WorldConfig {
            capacity: 64,
            ..WorldConfig::default()
        },
    )
    .expect("world");
    let e = d.apply(&mut w).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::InvalidInput {
                what: "trail_length",
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(w.emitter_count(), 0, "the world is left as it was");
}
