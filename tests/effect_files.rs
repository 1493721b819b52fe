//! Effects as files (the `serde` feature): a description survives JSON and RON unchanged, a
//! file with a misspelt or mistyped field is refused naming it, a file with a bad value is
//! refused naming the field and its place, and a loaded effect runs in a world.
#![cfg(feature = "serde")]

use glam::{Quat, Vec3, Vec4};
use wgphys::effect::EffectDesc;
use wgphys::particles::{
    Burst, Collider, EmitShape, EmitVelocity, Emitter, ForceField, ParticleWorld, WorldConfig,
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
        colliders: vec![Collider::ground(0.3, 0.2)],
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
        WorldConfig {
            capacity: 2048,
            ..WorldConfig::default()
        },
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
