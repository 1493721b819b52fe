// Rigid-domain structs. Mirrored by src/rigid/types.rs (read its conventions); tests/layout.rs
// checks them.

/// A rigid body: 240 bytes.
struct Body {
    pos: vec4<f32>,
    orient: vec4<f32>,
    lin_vel: vec4<f32>,
    ang_vel: vec4<f32>,
    inv_inertia: array<vec4<f32>, 3>,
    inv_inertia_world: array<vec4<f32>, 3>,
    force: vec4<f32>,
    torque: vec4<f32>,
    acc: vec4<f32>,
    last_acc: vec4<f32>,
    kind: u32,
    awake: u32,
    can_sleep: u32,
    flags: u32,
}

/// A collision primitive: 80 bytes.
struct Shape {
    kind: u32,
    body: u32,
    group: u32,
    mask: u32,
    offset_pos: vec4<f32>,
    offset_rot: vec4<f32>,
    dims: vec4<f32>,
    material: vec4<f32>,
}

/// The contacts of one shape pair: 240 bytes.
struct Manifold {
    body_a: u32,
    body_b: u32,
    count: u32,
    colour: u32,
    shape_a: u32,
    shape_b: u32,
    dynamic: u32,
    joint: u32,
    normal: vec4<f32>,
    material: vec4<f32>,
    points: array<vec4<f32>, 4>,
    features: vec4<u32>,
    impulses: array<vec4<f32>, 4>,
    rolling: vec4<f32>,
}

/// Per-step uniform block: 176 bytes.
struct RigidParams {
    dt: f32,
    body_count: u32,
    shape_count: u32,
    pair_capacity: u32,
    velocity_iterations: u32,
    position_iterations: u32,
    large_count: u32,
    combine_friction: u32,
    combine_restitution: u32,
    restitution_cutoff: f32,
    inv_cell_size: f32,
    table_mask: u32,
    contact_margin: f32,
    angular_limit: f32,
    position_relax: f32,
    position_slop: f32,
    sleep_epsilon: f32,
    sleep_bias: f32,
    step: u32,
    warm_start: u32,
    substeps: u32,
    colour_slots: u32,
    relax_iterations: u32,
    inv_dt: f32,
    // bias rate, mass scale, impulse scale, maximum push-out speed
    soft: vec4<f32>,
    // the same against static, kinematic and sleeping bodies (twice as stiff)
    soft_static: vec4<f32>,
    // the block solver (solver/block.rs): log2 of the block edge in cells (0: off), bins per
    // partition, sweeps per block in a relax dispatch
    block_shift: u32,
    block_bins: u32,
    block_sweeps: u32,
    // joints (src/rigid/joint/): the table's count, the manifold slots held for them, the
    // slots of the collision filter's table; whether bodies may break (fracture.wgsl);
    // padding; the joints' default softness
    joint_count: u32,
    joint_capacity: u32,
    joint_filter_size: u32,
    fracture: u32,
    _pad2: u32,
    joint_soft: vec4<f32>,
}

/// Per-dispatch solver uniform (group 1, dynamic offset): 16 bytes.
struct Pass {
    colour: u32,
    warm: u32,
    _pad1: u32,
    _pad2: u32,
}

/// The three-phase explosion (group 1, binding 1): 80 bytes.
struct Explosion {
    detonation: vec4<f32>,
    implosion: vec4<f32>,
    shock: vec4<f32>,
    convection: vec4<f32>,
    misc: vec4<f32>,
}

/// A joint (src/rigid/types.rs GpuJoint): 208 bytes.
struct Joint {
    body_a: u32,
    body_b: u32,
    kind: u32,
    flags: u32,
    anchor_a: vec4<f32>,
    rot_a: vec4<f32>,
    anchor_b: vec4<f32>,
    rot_b: vec4<f32>,
    softness: vec4<f32>,
    limits: vec4<f32>,
    drive: vec4<f32>,
    breaking: vec4<f32>,
    impulse_lin: vec4<f32>,
    impulse_ang: vec4<f32>,
    impulse_limit: vec4<f32>,
    feedback: vec4<f32>,
}

/// A force generator (src/rigid/types.rs GpuForceGen): 224 bytes.
struct ForceGen {
    kind: u32,
    body_a: u32,
    body_b: u32,
    flags: u32,
    point_a: vec4<f32>,
    point_b: vec4<f32>,
    wind: vec4<f32>,
    orient: vec4<f32>,
    tensor: array<vec4<f32>, 9>,
}
