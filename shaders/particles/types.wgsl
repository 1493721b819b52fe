// Particle-domain structs. Mirrored by src/particles/types.rs; tests/layout.rs checks every
// field offset and size against the Rust side, so edit both or the test fails.

/// Per-particle bookkeeping: 16 bytes.
struct Life {
    /// Seconds since spawn.
    age: f32,
    /// Seconds to live; negative means immortal.
    lifetime: f32,
    /// Firework type (1-based rule index); 0 for a plain particle.
    kind: u32,
    /// Host handle id (bit 31 clear) or GPU serial (bit 31 set).
    id: u32,
}

/// Per-step uniform block: 1664 bytes.
struct Params {
    dt: f32,
    step: u32,
    seed: u32,
    capacity: u32,
    host_spawn: u32,
    removal_count: u32,
    field_count: u32,
    collider_count: u32,
    rule_count: u32,
    kill_bounds: u32,
    contact_slop: f32,
    lifecycle: u32,
    emitted: u32,
    emitter_count: u32,
    trail_length: u32,
    rigid_shape_count: u32,
    kill_min: vec4<f32>,
    kill_max: vec4<f32>,
    fields: array<Field, MAX_FIELDS>,
    emit_first: array<vec4<u32>, EMIT_FIRST_QUADS>,
    /// Stage `rigid_cells`: 1 / the cell size, the hash table's buckets (0: no grid).
    rigid_cell_inv: f32,
    rigid_buckets: u32,
    _pad_rigid: vec2<u32>,
    /// (group, mask) of the particles of emitter tag e at [e / 2][2 (e % 2)], the next word.
    rigid_groups: array<vec4<u32>, GROUP_QUADS>,
}

/// An emitter (src/particles/emitter.rs): 192 bytes.
struct Emitter {
    shape: u32,
    velocity: u32,
    kind: u32,
    _pad0: u32,
    position: vec4<f32>,
    rotation: vec4<f32>,
    dir_q: vec4<f32>,
    shape_a: vec4<f32>,
    shape_b: vec4<f32>,
    speed_life: vec4<f32>,
    size_mass: vec4<f32>,
    colour_min: vec4<f32>,
    colour_max: vec4<f32>,
    accel: vec4<f32>,
    /// On death: (1 + child slot, children); on impact: the same (z, w). 0: none.
    sub: vec4<u32>,
}

/// A firework rule: 96 bytes.
struct Rule {
    age_min: f32,
    age_max: f32,
    damping: f32,
    size: f32,
    payload_start: u32,
    payload_len: u32,
    children: u32,
    _pad: u32,
    vel_min: vec4<f32>,
    vel_max: vec4<f32>,
    colour: vec4<f32>,
    gravity: vec4<f32>,
}

/// One payload entry of a rule: `count` children of type `ty`. 8 bytes.
struct Payload {
    ty: u32,
    count: u32,
}

/// A particle waiting to be appended (host spawn or firework child): 96 bytes.
struct SpawnRecord {
    pos: vec4<f32>,
    vel: vec4<f32>,
    acc: vec4<f32>,
    colour: vec4<f32>,
    life: Life,
    size: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

/// Pool counters, written by the lifecycle stages, read back asynchronously: 112 bytes.
struct Counters {
    live: u32,
    dead: u32,
    survivors: u32,
    movers: u32,
    spawn_wanted: u32,
    spawn_accepted: u32,
    children_wanted: u32,
    next_serial: u32,
    dropped_total: u32,
    wanted_capacity: u32,
    step: u32,
    overflow_steps: u32,
    host_dropped_total: u32,
    emitted: u32,
    _pad1: u32,
    _pad2: u32,
    /// The step's indirect dispatch arguments, written by `append` and copied after the pass
    /// into the indirect buffer (a buffer cannot be both the indirect source and a storage
    /// binding of one dispatch): live particles in groups of WG, then in blocks of BLOCK.
    step_args: array<u32, 6>,
    /// The indirect draw arguments (6 vertices, `live` instances), copied the same way into the
    /// renderer's `draw_args` buffer.
    draw_args: array<u32, 4>,
    _pad3: u32,
    _pad4: u32,
}

// The `scratch` binding holds four per-step arrays of u32 back to back, so the fused kernels
// fit WebGPU's default of 8 storage buffers per stage. Its layout is a function of the pool's
// capacity alone (src/particles/gpu.rs `ScratchLayout` computes the same offsets):
//   [0, capacity)                      flags: dead bit | payload count << 1, per slot
//   [block_base, + 2 * blocks)         block_sums: (dead, payload) prefix per block of BLOCK
//   [hole_base, + capacity)            hole_slot: the k-th dead slot below `survivors`
//   [removal_base, + removal_count)    removals: the host's sorted ids to remove this step
fn block_base() -> u32 {
    return params.capacity;
}

fn hole_base() -> u32 {
    return block_base() + 2u * ((params.capacity + BLOCK - 1u) / BLOCK);
}

fn removal_base() -> u32 {
    return hole_base() + params.capacity;
}

fn block_sum(b: u32) -> vec2<u32> {
    let at = block_base() + 2u * b;
    return vec2<u32>(scratch[at], scratch[at + 1u]);
}

fn set_block_sum(b: u32, v: vec2<u32>) {
    let at = block_base() + 2u * b;
    scratch[at] = v.x;
    scratch[at + 1u] = v.y;
}

/// Payload entry `k` of the uniform payload table (two 8-byte entries per 16-byte element, as
/// a uniform array's stride is a multiple of 16).
fn payload_at(k: u32) -> Payload {
    let q = payloads[k / 2u];
    if ((k & 1u) == 0u) {
        return Payload(q.x, q.y);
    }
    return Payload(q.z, q.w);
}

/// Life curves of an emitter's particles (src/particles/types.rs `GpuCurves`): 240 bytes.
struct Curves {
    colour: array<vec4<f32>, MAX_CURVE_KEYS>,
    colour_t: array<vec4<f32>, CURVE_QUADS>,
    size: array<vec4<f32>, CURVE_QUADS>,
    size_t: array<vec4<f32>, CURVE_QUADS>,
    counts: vec4<u32>,
}

// The curve helpers read the `curves` table through references (index `cs`), so the keys
// are indexed in place rather than copied into a local array.

/// The colour of emitter slot `cs`'s gradient at life fraction `t`: linear between keys, held
/// before the first and after the last.
fn curve_colour(cs: u32, t: f32) -> vec4<f32> {
    let n = curves[cs].counts.x;
    var out = curves[cs].colour[0];
    for (var k = 0u; k + 1u < n; k = k + 1u) {
        let t0 = curves[cs].colour_t[k / 4u][k % 4u];
        let t1 = curves[cs].colour_t[(k + 1u) / 4u][(k + 1u) % 4u];
        if (t >= t0 && t < t1) {
            let c0 = curves[cs].colour[k];
            out = c0 + (curves[cs].colour[k + 1u] - c0) * ((t - t0) / (t1 - t0));
        }
    }
    if (t >= curves[cs].colour_t[(n - 1u) / 4u][(n - 1u) % 4u]) {
        out = curves[cs].colour[n - 1u];
    }
    return out;
}

/// The size of emitter slot `cs`'s curve at life fraction `t`, as `curve_colour`.
fn curve_size(cs: u32, t: f32) -> f32 {
    let n = curves[cs].counts.y;
    var out = curves[cs].size[0].x;
    for (var k = 0u; k + 1u < n; k = k + 1u) {
        let t0 = curves[cs].size_t[k / 4u][k % 4u];
        let t1 = curves[cs].size_t[(k + 1u) / 4u][(k + 1u) % 4u];
        if (t >= t0 && t < t1) {
            let s0 = curves[cs].size[k / 4u][k % 4u];
            let s1 = curves[cs].size[(k + 1u) / 4u][(k + 1u) % 4u];
            out = s0 + (s1 - s0) * ((t - t0) / (t1 - t0));
        }
    }
    if (t >= curves[cs].size_t[(n - 1u) / 4u][(n - 1u) % 4u]) {
        out = curves[cs].size[(n - 1u) / 4u][(n - 1u) % 4u];
    }
    return out;
}
