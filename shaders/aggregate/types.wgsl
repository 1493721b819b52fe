// Aggregate-domain structs. Mirrored by src/aggregate/types.rs; tests/layout.rs checks them.

/// Per-step uniform block: 592 bytes.
struct AggParams {
    dt: f32,
    n: u32,
    link_count: u32,
    colour_count: u32,
    link_iterations: u32,
    collide_iterations: u32,
    collider_count: u32,
    field_count: u32,
    restitution: f32,
    friction: f32,
    inv_cell_size: f32,
    table_mask: u32,
    contact_slop: f32,
    integrator: u32,
    collisions: u32,
    stack_scaling: f32,
    near_reach: f32,
    list_capacity: u32,
    near_scale: f32,
    near_reach2: u32,
    fields: array<Field, MAX_FIELDS>,
}

/// A force generator: 48 bytes. kind: 1 spring, 2 anchored spring, 3 bungee, 4 anchored bungee,
/// 5 buoyancy, 6 fake stiff spring, 7 improved damped spring, 8 anchored improved damped
/// spring, 9 gravity, 10 drag.
struct Gen {
    kind: u32,
    a: u32,
    b: u32,
    _pad: u32,
    k: vec4<f32>,
    anchor: vec4<f32>,
}

/// A link: 48 bytes. kind: 1 cable, 2 rod; b = NONE for an anchored link.
struct Link {
    kind: u32,
    a: u32,
    b: u32,
    _pad0: u32,
    length: f32,
    restitution: f32,
    _pad1: u32,
    _pad2: u32,
    anchor: vec4<f32>,
}
