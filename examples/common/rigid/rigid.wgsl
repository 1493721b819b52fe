// The rigid renderer (rigid/renderer.rs): every shape slot drawn from the engine's `Body` and
// `Shape` buffers, with shadows, checkered planes, and the contact and line overlays. Compiled
// after the engine's constants, shaders/rigid/types.wgsl and shaders/rigid/math.wgsl
// (rigid/shader.rs).

struct Globals {
    view_proj: mat4x4<f32>,
    // the light's view-projection (shadow map)
    light_proj: mat4x4<f32>,
    // eye position (xyz), fog distance (w, 0: no fog)
    eye: vec4<f32>,
    // unit direction towards the light (xyz), ambient share (w)
    light: vec4<f32>,
    // where the ground quads are centred (xyz), their half size (w)
    ground: vec4<f32>,
    // clear / fog colour (rgb), checker cell size (w, 0: plain)
    background: vec4<f32>,
    // contact normal length (x), shadow map texel size (y), shadow on (z), edge width px (w)
    style: vec4<f32>,
    // z groups of y consecutive bodies from index x share a hue each (y = 0: none)
    groups: vec4<u32>,
};

@group(0) @binding(0) var<uniform> g: Globals;
@group(1) @binding(0) var<storage, read> bodies: array<Body>;
@group(1) @binding(1) var<storage, read> shapes: array<Shape>;
@group(1) @binding(2) var<storage, read> manifolds: array<Manifold>;
@group(1) @binding(3) var<storage, read> counters: array<u32>;
@group(1) @binding(4) var<storage, read> joints: array<Joint>;
@group(2) @binding(0) var shadow_map: texture_depth_2d;
@group(2) @binding(1) var shadow_sampler: sampler_comparison;

// A vertex outside the clip volume: whole triangles of these are dropped.
const OUTSIDE: vec4<f32> = vec4<f32>(2.0, 2.0, 2.0, 1.0);

struct Pose {
    pos: vec3<f32>,
    rot: vec4<f32>,
};

// The body's pose; the identity for NONE (the static world).
fn body_pose(b: u32) -> Pose {
    if (b >= arrayLength(&bodies)) {
        return Pose(vec3<f32>(0.0), vec4<f32>(0.0, 0.0, 0.0, 1.0));
    }
    let body = bodies[b];
    return Pose(body.pos.xyz, quat_normalize(body.orient));
}

// body pose ∘ shape offset
fn shape_pose(s: Shape) -> Pose {
    let p = body_pose(s.body);
    return Pose(
        p.pos + quat_rotate(p.rot, s.offset_pos.xyz),
        quat_mul(p.rot, quat_normalize(s.offset_rot)),
    );
}

fn hash(x: u32) -> u32 {
    var h = x * 747796405u + 2891336453u;
    h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
    return (h >> 22u) ^ h;
}

fn hsv(h: f32, s: f32, v: f32) -> vec3<f32> {
    let p = abs(fract(vec3<f32>(h) + vec3<f32>(1.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - 3.0);
    return v * mix(vec3<f32>(1.0), clamp(p - 1.0, vec3<f32>(0.0), vec3<f32>(1.0)), s);
}

// Linear albedo of a body: hues spread by the golden ratio (neighbouring indices differ most, or
// neighbouring groups when g.groups says so: a ragdoll's bones share a hue), jittered by a hash;
// static bodies grey; sleeping bodies dimmed and greyed.
fn body_colour(b: u32) -> vec3<f32> {
    if (b >= arrayLength(&bodies)) {
        return vec3<f32>(0.33, 0.34, 0.36);
    }
    let body = bodies[b];
    if (body.kind == BODY_STATIC) {
        return vec3<f32>(0.33, 0.34, 0.36);
    }
    let h = hash(b);
    let jitter = vec3<f32>(vec3<u32>(h & 0xffu, (h >> 8u) & 0xffu, (h >> 16u) & 0xffu)) / 255.0;
    var key = b;
    if (g.groups.y > 0u && b >= g.groups.x && (b - g.groups.x) / g.groups.y < g.groups.z) {
        key = g.groups.x + (b - g.groups.x) / g.groups.y;
    }
    let hue = fract(0.61803399 * f32(key) + 0.05 * jitter.x);
    var c = pow(hsv(hue, 0.5 + 0.25 * jitter.y, 0.82 + 0.15 * jitter.z), vec3<f32>(2.2));
    if (body.kind == BODY_KINEMATIC) {
        c = mix(c, vec3<f32>(0.9, 0.9, 0.95), 0.5);
    }
    if (body.awake == 0u) {
        c = mix(vec3<f32>(dot(c, vec3<f32>(0.2126, 0.7152, 0.0722))), c, 0.35) * 0.6;
    }
    return c;
}

struct MeshIn {
    // position on the unit mesh, which mesh (0 cube, 1 round), normal, capsule side (±1)
    @location(0) pos: vec3<f32>,
    @location(1) part: u32,
    @location(2) normal: vec3<f32>,
    @location(3) cap: f32,
};

struct Placed {
    ok: bool,
    world: vec3<f32>,
    normal: vec3<f32>,
    local: vec3<f32>,
};

// Places one vertex of the unit meshes for shape slot `slot`; `ok` is false when the vertex's
// mesh is not the one of the slot's kind (or the slot is empty, or a plane).
fn place(slot: u32, v: MeshIn) -> Placed {
    var out = Placed(false, vec3<f32>(0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0));
    let s = shapes[slot];
    var local: vec3<f32>;
    if (s.kind == SHAPE_BOX && v.part == 0u) {
        local = v.pos * s.dims.xyz;
    } else if (s.kind == SHAPE_SPHERE && v.part == 1u) {
        local = v.pos * s.dims.x;
    } else if (s.kind == SHAPE_CAPSULE && v.part == 1u) {
        local = v.pos * s.dims.x + vec3<f32>(0.0, v.cap * s.dims.y, 0.0);
    } else {
        return out;
    }
    let p = shape_pose(s);
    out.ok = true;
    out.world = p.pos + quat_rotate(p.rot, local);
    out.normal = quat_rotate(p.rot, v.normal);
    out.local = local;
    return out;
}

struct ShapeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) colour: vec3<f32>,
    // shape-local position; half extents (xyz) and kind (w) of the shape
    @location(3) local: vec3<f32>,
    @location(4) dims: vec4<f32>,
};

@vertex
fn vs_shape(@builtin(instance_index) slot: u32, v: MeshIn) -> ShapeOut {
    var out: ShapeOut;
    let p = place(slot, v);
    out.clip = OUTSIDE;
    out.world = p.world;
    out.normal = p.normal;
    out.local = p.local;
    out.colour = vec3<f32>(0.0);
    out.dims = vec4<f32>(0.0);
    if (!p.ok) {
        return out;
    }
    let s = shapes[slot];
    out.clip = g.view_proj * vec4<f32>(p.world, 1.0);
    out.colour = body_colour(s.body);
    out.dims = vec4<f32>(s.dims.xyz, f32(s.kind));
    return out;
}

// Vertex `v` of a hull slot (a non-indexed draw of `HULL_VERTICES` per slot, renderer.rs): the
// corner v % 3 of triangle v / 3 of the fans of the hull's faces, read from the engine's hull
// store; flat, with the face's normal. Not a hull, or past its triangles: `ok` false.
fn place_hull(slot: u32, v: u32) -> Placed {
    var out = Placed(false, vec3<f32>(0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0));
    let s = shapes[slot];
    if (s.kind != SHAPE_HULL) {
        return out;
    }
    let h = hull_ref(u32(s.dims.x));
    let t = v / 3u;
    var first = 0u;
    for (var f = 0u; f < min(h.face_count, HULL_MAX_FACES); f++) {
        let face = hull_face(h, f);
        let n = face.y - 2u;
        if (t < first + n) {
            let corner = v % 3u;
            let k = select(0u, t - first + corner, corner > 0u);
            let local = hull_vertex(h, hull_loop_vertex(h, face, k));
            let p = shape_pose(s);
            out.ok = true;
            out.world = p.pos + quat_rotate(p.rot, local);
            out.normal = quat_rotate(p.rot, hull_plane(h, f).xyz);
            out.local = local;
            return out;
        }
        first += n;
    }
    return out;
}

@vertex
fn vs_hull(@builtin(instance_index) slot: u32, @builtin(vertex_index) v: u32) -> ShapeOut {
    var out: ShapeOut;
    let p = place_hull(slot, v);
    out.clip = OUTSIDE;
    out.world = p.world;
    out.normal = p.normal;
    out.local = p.local;
    out.colour = vec3<f32>(0.0);
    out.dims = vec4<f32>(0.0, 0.0, 0.0, f32(SHAPE_HULL));
    if (!p.ok) {
        return out;
    }
    out.clip = g.view_proj * vec4<f32>(p.world, 1.0);
    out.colour = body_colour(shapes[slot].body);
    return out;
}

@vertex
fn vs_hull_shadow(@builtin(instance_index) slot: u32,
                  @builtin(vertex_index) v: u32) -> @builtin(position) vec4<f32> {
    let p = place_hull(slot, v);
    if (!p.ok) {
        return OUTSIDE;
    }
    return g.light_proj * vec4<f32>(p.world, 1.0);
}

// Depth only, from the light.
@vertex
fn vs_shadow(@builtin(instance_index) slot: u32, v: MeshIn) -> @builtin(position) vec4<f32> {
    let p = place(slot, v);
    if (!p.ok) {
        return OUTSIDE;
    }
    return g.light_proj * vec4<f32>(p.world, 1.0);
}

// Fraction of light reaching `world` (1: lit), 3x3 PCF over the shadow map.
fn sunlight(world: vec3<f32>, normal: vec3<f32>) -> f32 {
    if (g.style.z == 0.0) {
        return 1.0;
    }
    let texel = g.style.y;
    // Pushed along the normal by about a texel against acne.
    let lp = g.light_proj * vec4<f32>(world + normal * (1.5 * texel), 1.0);
    let ndc = lp.xyz / lp.w;
    let uv = vec2<f32>(0.5 + 0.5 * ndc.x, 0.5 - 0.5 * ndc.y);
    var sum = 0.0;
    for (var y = -1; y <= 1; y++) {
        for (var x = -1; x <= 1; x++) {
            let o = vec2<f32>(f32(x), f32(y)) / vec2<f32>(textureDimensions(shadow_map));
            sum += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + o, ndc.z - 0.002);
        }
    }
    let inside = all(uv >= vec2<f32>(0.0)) && all(uv <= vec2<f32>(1.0)) && ndc.z <= 1.0;
    return select(1.0, sum / 9.0, inside);
}

// Sky/ground ambient, sun diffuse (shadowed), a little specular, then fog.
fn shade(albedo: vec3<f32>, world: vec3<f32>, n_in: vec3<f32>, gloss: f32) -> vec3<f32> {
    let to_eye = normalize(g.eye.xyz - world);
    let n = normalize(n_in);
    let l = g.light.xyz;
    let sun = sunlight(world, n) * max(dot(n, l), 0.0);
    let sky = mix(vec3<f32>(0.30, 0.28, 0.26), vec3<f32>(0.62, 0.70, 0.85), 0.5 + 0.5 * n.y);
    let h = normalize(l + to_eye);
    let spec = gloss * sun * pow(max(dot(n, h), 0.0), 40.0);
    let lit = albedo * (g.light.w * sky + (1.0 - g.light.w) * 1.1 * sun) + vec3<f32>(spec);
    if (g.eye.w <= 0.0) {
        return lit;
    }
    let d = length(g.eye.xyz - world) / g.eye.w;
    return mix(lit, g.background.rgb, 1.0 - exp(-d * d));
}

@fragment
fn fs_shape(in: ShapeOut) -> @location(0) vec4<f32> {
    // Derivatives first (uniform control flow).
    let fw = fwidth(in.local);
    let px = max(max(fw.x, fw.y), max(fw.z, 1e-6));
    var albedo = in.colour;
    if (u32(in.dims.w + 0.5) == SHAPE_BOX) {
        // Distance to the nearest edge: on a face one axis is ~0 away, the middle one counts.
        let d = in.dims.xyz - abs(in.local);
        let edge = d.x + d.y + d.z - min(d.x, min(d.y, d.z)) - max(d.x, max(d.y, d.z));
        albedo *= mix(0.45, 1.0, smoothstep(0.5, 1.5, edge / (px * g.style.w)));
    } else if (u32(in.dims.w + 0.5) == SHAPE_HULL) {
        // Flat faces: the shading shows them.
    } else {
        // Octants in two tones, so a spinning ball shows its spin.
        let o = in.local.x * in.local.y * in.local.z;
        albedo *= select(1.0, 0.78, o > 0.0);
    }
    return vec4<f32>(shade(albedo, in.world, in.normal, 0.35), 1.0);
}

// Static level geometry (triangle meshes and heightfields, shape kinds SHAPE_MESH and
// SHAPE_HEIGHTFIELD, which `place`, `place_hull` and `vs_plane` all skip): the level's
// world-space triangles, uploaded once by the renderer (`RigidRenderer::set_level`), a
// position and a normal a corner.
struct LevelIn {
    @location(0) pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
};

struct LevelOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
};

@vertex
fn vs_level(v: LevelIn) -> LevelOut {
    var out: LevelOut;
    out.clip = g.view_proj * vec4<f32>(v.pos, 1.0);
    out.world = v.pos;
    out.normal = v.normal;
    return out;
}

@vertex
fn vs_level_shadow(v: LevelIn) -> @builtin(position) vec4<f32> {
    return g.light_proj * vec4<f32>(v.pos, 1.0);
}

@fragment
fn fs_level(in: LevelOut) -> @location(0) vec4<f32> {
    // Derivatives first (uniform control flow).
    let cell = max(g.background.w, 1e-3) * 2.0;
    let uv = in.world.xz / cell;
    let fw = max(fwidth(uv), vec2<f32>(1e-6));
    let n = normalize(in.normal);
    // Grass on the flats, rock and earth where it steepens; a faint grid of `2 × checker`
    // metres shows scale and slope.
    let steep = smoothstep(0.80, 0.95, n.y);
    var albedo = mix(vec3<f32>(0.36, 0.30, 0.24), vec3<f32>(0.30, 0.42, 0.22), steep);
    albedo *= 0.92 + 0.08 * sin(0.7 * in.world.y);
    let d = abs(fract(uv + 0.5) - 0.5) / fw;
    let line = 1.0 - smoothstep(0.5, 1.5, min(d.x, d.y));
    albedo *= 1.0 - 0.25 * line;
    return vec4<f32>(shade(albedo, in.world, n, 0.05), 1.0);
}

struct PlaneOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // position in the plane's own 2D frame, metres
    @location(2) uv: vec2<f32>,
};

// Corner k of a quad made of two triangles, in [-1, 1]^2.
fn corner_of(vi: u32) -> vec2<f32> {
    let i = vi % 6u;
    return vec2<f32>(
        select(-1.0, 1.0, i == 1u || i == 2u || i == 4u),
        select(-1.0, 1.0, i == 2u || i == 4u || i == 5u),
    );
}

// Half-spaces and planes: a square of half size g.ground.w on the plane, centred under
// g.ground.xyz. Points p of the plane have p·n = offset in the body's frame.
@vertex
fn vs_plane(@builtin(vertex_index) vi: u32, @builtin(instance_index) slot: u32) -> PlaneOut {
    var out: PlaneOut;
    out.clip = OUTSIDE;
    out.world = vec3<f32>(0.0);
    out.normal = vec3<f32>(0.0, 1.0, 0.0);
    out.uv = vec2<f32>(0.0);
    let s = shapes[slot];
    if ((s.kind != SHAPE_HALF_SPACE && s.kind != SHAPE_PLANE) || dot(s.dims.xyz, s.dims.xyz) == 0.0) {
        return out;
    }
    let body = body_pose(s.body);
    let n = normalize(quat_rotate(body.rot, s.dims.xyz));
    let origin = body.pos + n * s.dims.w;
    // A tangent frame that is the world's x and z for a horizontal ground.
    let helper = select(vec3<f32>(0.0, 0.0, 1.0), vec3<f32>(1.0, 0.0, 0.0), abs(n.x) < 0.9);
    let t = normalize(cross(helper, n));
    let b = cross(n, t);
    let centre = g.ground.xyz - n * dot(g.ground.xyz - origin, n);
    let c = corner_of(vi) * g.ground.w;
    let world = centre + t * c.x + b * c.y;
    out.clip = g.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.normal = n;
    out.uv = vec2<f32>(dot(world - origin, t), dot(world - origin, b));
    return out;
}

// A box-filtered checker (the xor of two square waves integrated over the pixel).
fn checker(p: vec2<f32>) -> f32 {
    let w = max(fwidth(p), vec2<f32>(1e-5));
    let i = 2.0 * (abs(fract((p - 0.5 * w) * 0.5) - 0.5) - abs(fract((p + 0.5 * w) * 0.5) - 0.5)) / w;
    return 0.5 - 0.5 * i.x * i.y;
}

@fragment
fn fs_plane(in: PlaneOut) -> @location(0) vec4<f32> {
    let cell = g.background.w;
    let k = select(0.0, checker(in.uv / max(cell, 1e-6)), cell > 0.0);
    let albedo = mix(vec3<f32>(0.105, 0.11, 0.125), vec3<f32>(0.15, 0.155, 0.17), k);
    // Two-sided: light the side facing the eye.
    let n = select(-in.normal, in.normal, dot(g.eye.xyz - in.world, in.normal) >= 0.0);
    return vec4<f32>(shade(albedo, in.world, n, 0.0), 1.0);
}

struct FlatOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
};

// Contacts: one instance per (manifold slot, point), a segment from the point along the normal.
// Slots past the engine's pair counter hold stale manifolds and are skipped.
@vertex
fn vs_contact(@builtin(vertex_index) vi: u32, @builtin(instance_index) i: u32) -> FlatOut {
    var out: FlatOut;
    out.clip = OUTSIDE;
    out.colour = vec4<f32>(0.0);
    let slot = i / MAX_POINTS;
    let k = i % MAX_POINTS;
    if (slot >= counters[COUNTER_PAIRS] || slot >= arrayLength(&manifolds)) {
        return out;
    }
    let m = manifolds[slot];
    if (k >= m.count) {
        return out;
    }
    let p = m.points[k];
    let tip = vi == 1u;
    let world = p.xyz + m.normal.xyz * select(0.0, g.style.x, tip);
    out.clip = g.view_proj * vec4<f32>(world, 1.0);
    // Red at the point (brighter the deeper), yellow at the normal's tip.
    let deep = clamp(p.w * 20.0, 0.0, 1.0);
    out.colour = select(vec4<f32>(0.8 + 0.2 * deep, 0.15, 0.1, 1.0), vec4<f32>(1.0, 0.9, 0.2, 1.0), tip);
    return out;
}

// Joints: one instance per joint slot, three segments: body a's centre to its anchor, body b's
// centre to its anchor (pale: the skeleton), and anchor a to anchor b (red: how far the joint is
// pulled apart; a distance joint's rope or rod, pale blue). Free, disabled and broken slots
// draw nothing; the world (NONE) has no centre, so its segment has no length.
@vertex
fn vs_joint(@builtin(vertex_index) vi: u32, @builtin(instance_index) j: u32) -> FlatOut {
    var out: FlatOut;
    out.clip = OUTSIDE;
    out.colour = vec4<f32>(0.0);
    if (j >= arrayLength(&joints)) {
        return out;
    }
    let jt = joints[j];
    if (jt.kind == 0u || jt.body_a == jt.body_b || (jt.flags & JOINT_FLAG_DISABLED) != 0u
        || bitcast<u32>(jt.feedback.z) != 0u) {
        return out;
    }
    let a = body_pose(jt.body_a);
    let b = body_pose(jt.body_b);
    let anchor_a = a.pos + quat_rotate(a.rot, jt.anchor_a.xyz);
    let anchor_b = b.pos + quat_rotate(b.rot, jt.anchor_b.xyz);
    let segment = vi / 2u;
    let end = (vi & 1u) == 1u;
    var world: vec3<f32>;
    if (segment == 0u) {
        world = select(a.pos, anchor_a, end || jt.body_a == NONE);
        out.colour = vec4<f32>(1.0, 0.92, 0.55, 1.0);
    } else if (segment == 1u) {
        world = select(b.pos, anchor_b, end);
        out.colour = vec4<f32>(1.0, 0.92, 0.55, 1.0);
    } else {
        world = select(anchor_a, anchor_b, end);
        out.colour = select(
            vec4<f32>(1.0, 0.1, 0.1, 1.0),
            vec4<f32>(0.55, 0.8, 1.0, 1.0),
            jt.kind == JOINT_KIND_DISTANCE,
        );
    }
    out.clip = g.view_proj * vec4<f32>(world, 1.0);
    return out;
}

// Debug lines: a plain line list.
@vertex
fn vs_line(@location(0) position: vec3<f32>, @location(1) colour: vec4<f32>) -> FlatOut {
    var out: FlatOut;
    out.clip = g.view_proj * vec4<f32>(position, 1.0);
    out.colour = colour;
    return out;
}

@fragment
fn fs_flat(in: FlatOut) -> @location(0) vec4<f32> {
    return in.colour;
}
