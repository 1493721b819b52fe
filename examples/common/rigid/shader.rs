//! The whole WGSL module the rigid renderer is compiled from ([`shader_source`]): the renderer's
//! own `rigid.wgsl` reads the engine's `Body`, `Shape`, `Manifold` and `Joint` and uses its
//! quaternions, so the engine's constants, `shaders/rigid/types.wgsl` and
//! `shaders/rigid/math.wgsl` go in front of it, and it draws convex hulls through the engine's
//! own hull accessors (`shaders/rigid/hull/hull.wgsl`, over the `hulls` buffer it binds).
//! `tests/examples_wgsl.rs` validates `rigid.wgsl` through this same function.

use wgphys::rigid::hull::{self, support::core};
use wgphys::rigid::types::{body_kind, counter, joint_flag, joint_kind, shape_kind, NONE};

/// The renderer's own WGSL.
const RIGID_SHADER: &str = include_str!("rigid.wgsl");

/// The whole WGSL module: constants from the engine, its struct and quaternion sources, then
/// `rigid.wgsl`.
pub fn shader_source() -> String {
    let consts = [
        ("NONE", NONE),
        ("MAX_POINTS", wgphys::rigid::types::MAX_POINTS),
        ("COUNTER_PAIRS", counter::PAIRS as u32),
        ("SHAPE_SPHERE", shape_kind::SPHERE),
        ("SHAPE_BOX", shape_kind::BOX),
        ("SHAPE_CAPSULE", shape_kind::CAPSULE),
        ("SHAPE_HALF_SPACE", shape_kind::HALF_SPACE),
        ("SHAPE_PLANE", shape_kind::PLANE),
        ("SHAPE_HULL", shape_kind::HULL),
        ("HULL_HEADER_WORDS", hull::HULL_HEADER_WORDS),
        ("HULL_UNIT_CUBE", hull::UNIT_CUBE),
        ("HULL_MAX_VERTICES", hull::MAX_HULL_VERTICES),
        ("HULL_MAX_FACES", hull::MAX_HULL_FACES),
        ("HULL_MAX_FACE_VERTICES", hull::MAX_FACE_VERTICES),
        ("HULL_MAX_EDGES", hull::MAX_HULL_EDGES),
        ("CORE_POINT", core::POINT),
        ("CORE_SEGMENT", core::SEGMENT),
        ("CORE_BOX", core::BOX),
        ("CORE_HULL", core::HULL),
        ("BODY_STATIC", body_kind::STATIC),
        ("BODY_KINEMATIC", body_kind::KINEMATIC),
        ("JOINT_DISABLED", joint_flag::DISABLED),
        ("JOINT_DISTANCE", joint_kind::DISTANCE),
    ];
    let mut src: String = consts
        .iter()
        .map(|(name, v)| format!("const {name}: u32 = {v}u;\n"))
        .collect();
    src.push_str(include_str!("../../../shaders/rigid/types.wgsl"));
    src.push_str(include_str!("../../../shaders/rigid/math.wgsl"));
    src.push_str("@group(1) @binding(5) var<storage, read> hulls: array<vec4<u32>>;\n");
    src.push_str(include_str!("../../../shaders/rigid/hull/hull.wgsl"));
    src.push_str(RIGID_SHADER);
    src
}
