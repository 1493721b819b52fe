//! The rigid examples' half of the shared code: the [`RigidDemo`] trait, a renderer for rigid
//! bodies ([`RigidRenderer`], its WGSL is [`RIGID_SHADER`] after the engine's own struct and
//! quaternion sources) and [`run`].
//!
//! Every shape slot is one instance. The vertex shader reads the slot's `Shape` and its body's
//! `Body` straight from the engine's storage buffers, so a frame reads nothing back and the
//! renderer never learns where anything is: world = body pose ∘ shape offset, then the unit mesh
//! scaled by the shape's dimensions. One index buffer holds two unit meshes, a cube and a "round"
//! mesh (two hemispheres joined by a cylinder band whose height is zero for a sphere and the
//! capsule's segment for a capsule); each vertex is tagged with its mesh, and a vertex whose mesh
//! does not fit the slot's kind (and every vertex of an empty slot) collapses outside the clip
//! volume. Half-spaces and planes are a large checkered quad around the camera's target.
//!
//! Colours come from a hash of the body index (static bodies are grey, sleeping bodies dimmed),
//! boxes get dark edges and round shapes an octant pattern so that spin shows. The light casts
//! shadows from a depth map rendered with the same vertex shader. Optional debug overlays: the
//! engine's contact points and normals (read from its manifolds, as many as its pair counter
//! says) and user line lists ([`LineVertex`]).

use std::time::{Duration, Instant};

use glam::{Mat4, Vec3, Vec4};
use wgphys::gpu::GpuContext;
use wgphys::rigid::gpu::GpuRigid;
use wgphys::rigid::types::{body_kind, counter, shape_kind, GpuManifold, GpuShape, NONE};
use wgphys::rigid::StepReport;
use wgpu::util::DeviceExt;
use winit::keyboard::Key;

use super::{
    depth_view, line_buffer_layout, render_pipeline, upload, App, BoxError, DepthUse, LineVertex,
    OrbitCamera, PipelineSpec, Uniforms,
};

/// The renderer's own WGSL; [`shader_source`] puts the constants, the engine's
/// `shaders/rigid/types.wgsl` (`Body`, `Shape`, `Manifold`) and `shaders/rigid/math.wgsl`
/// (quaternions) in front of it.
pub const RIGID_SHADER: &str = r#"
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
};

@group(0) @binding(0) var<uniform> g: Globals;
@group(1) @binding(0) var<storage, read> bodies: array<Body>;
@group(1) @binding(1) var<storage, read> shapes: array<Shape>;
@group(1) @binding(2) var<storage, read> manifolds: array<Manifold>;
@group(1) @binding(3) var<storage, read> counters: array<u32>;
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

// Linear albedo of a body: hues spread by the golden ratio (neighbouring indices differ most),
// jittered by a hash; static bodies grey; sleeping bodies dimmed and greyed.
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
    let hue = fract(0.61803399 * f32(b) + 0.05 * jitter.x);
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
    } else {
        // Octants in two tones, so a spinning ball shows its spin.
        let o = in.local.x * in.local.y * in.local.z;
        albedo *= select(1.0, 0.78, o > 0.0);
    }
    return vec4<f32>(shade(albedo, in.world, in.normal, 0.35), 1.0);
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
"#;

/// The whole WGSL module: constants from the engine, its struct and quaternion sources, then
/// [`RIGID_SHADER`].
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
        ("BODY_STATIC", body_kind::STATIC),
        ("BODY_KINEMATIC", body_kind::KINEMATIC),
    ];
    let mut src: String = consts
        .iter()
        .map(|(name, v)| format!("const {name}: u32 = {v}u;\n"))
        .collect();
    src.push_str(include_str!("../../shaders/rigid/types.wgsl"));
    src.push_str(include_str!("../../shaders/rigid/math.wgsl"));
    src.push_str(RIGID_SHADER);
    src
}

/// The uniform block of [`RIGID_SHADER`] (`Globals`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct RigidGlobals {
    view_proj: Mat4,
    light_proj: Mat4,
    eye: Vec4,
    light: Vec4,
    ground: Vec4,
    background: Vec4,
    style: Vec4,
}

/// One vertex of the unit meshes. 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct MeshVertex {
    pos: [f32; 3],
    /// 0: cube, 1: round (sphere and capsule).
    part: u32,
    normal: [f32; 3],
    /// Capsule side: +1 top hemisphere, -1 bottom (the segment's half length is added along y).
    cap: f32,
}

/// Segments around the round mesh's axis.
const ROUND_SEGMENTS: u32 = 32;
/// Rings from pole to equator per hemisphere.
const ROUND_RINGS: u32 = 8;

/// The cube (±1) and the round mesh (unit hemispheres, equators duplicated and joined by a
/// band), in one vertex list and one index list, every triangle counter-clockwise from outside.
fn unit_meshes() -> (Vec<MeshVertex>, Vec<u32>) {
    let mut v = Vec::new();
    let mut idx = Vec::new();
    // Cube: four vertices per face, flat normals.
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut n = [0.0; 3];
            n[axis] = sign;
            let (u, w) = ((axis + 1) % 3, (axis + 2) % 3);
            let base = v.len() as u32;
            for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let mut p = n;
                p[u] = a;
                p[w] = b;
                v.push(MeshVertex {
                    pos: p,
                    part: 0,
                    normal: n,
                    cap: 0.0,
                });
            }
            idx.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
    // Round: hemisphere `h` (0 top, 1 bottom), ring i from the pole, segment j.
    let base = v.len() as u32;
    let at = |h: u32, i: u32, j: u32| base + (h * (ROUND_RINGS + 1) + i) * ROUND_SEGMENTS + j;
    for cap in [1.0f32, -1.0] {
        for i in 0..=ROUND_RINGS {
            let phi = i as f32 / ROUND_RINGS as f32 * std::f32::consts::FRAC_PI_2;
            let (r, y) = (phi.sin(), cap * phi.cos());
            for j in 0..ROUND_SEGMENTS {
                let theta = j as f32 / ROUND_SEGMENTS as f32 * std::f32::consts::TAU;
                let p = [r * theta.cos(), y, r * theta.sin()];
                v.push(MeshVertex {
                    pos: p,
                    part: 1,
                    normal: p,
                    cap,
                });
            }
        }
    }
    let mut quad = |a: u32, b: u32, c: u32, d: u32| idx.extend([a, b, c, a, c, d]);
    for j in 0..ROUND_SEGMENTS {
        let k = (j + 1) % ROUND_SEGMENTS;
        for h in 0..2 {
            for i in 0..ROUND_RINGS {
                quad(at(h, i, j), at(h, i, k), at(h, i + 1, k), at(h, i + 1, j));
            }
        }
        quad(
            at(0, ROUND_RINGS, j),
            at(0, ROUND_RINGS, k),
            at(1, ROUND_RINGS, k),
            at(1, ROUND_RINGS, j),
        );
    }
    // Orient every triangle outwards, judged on a capsule of half length 1 (where the band has
    // area; the meshes are convex).
    let shaped = |m: &MeshVertex| Vec3::from(m.pos) + Vec3::new(0.0, m.cap, 0.0);
    for t in idx.chunks_exact_mut(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| shaped(&v[i as usize]));
        if (b - a).cross(c - a).dot(a + b + c) < 0.0 {
            t.swap(1, 2);
        }
    }
    (v, idx)
}

/// What [`RigidRenderer::render`] draws: the engine's buffers, bound as they are.
#[derive(Clone, Copy, Debug)]
pub struct RigidBuffers<'a> {
    /// `array<Body>` ([`GpuRigid::bodies`]).
    pub bodies: &'a wgpu::Buffer,
    /// `array<Shape>` ([`GpuRigid::shapes`]).
    pub shapes: &'a wgpu::Buffer,
    /// Shape slots to draw (from slot 0): the slots in use, or the capacity. Empty slots
    /// (kind 0) cost a little vertex work and draw nothing.
    pub shape_slots: u32,
    /// The manifolds and the counters ([`GpuRigid::manifolds`], [`GpuRigid::counters`]), for
    /// the contact overlay ([`RigidStyle::contacts`]).
    pub contacts: Option<(&'a wgpu::Buffer, &'a wgpu::Buffer)>,
}

impl<'a> RigidBuffers<'a> {
    /// Every slot of a [`GpuRigid`], contacts included.
    pub fn of(gpu: &'a GpuRigid) -> Self {
        Self {
            bodies: &gpu.bodies,
            shapes: &gpu.shapes,
            shape_slots: gpu.sizes().shapes,
            contacts: Some((&gpu.manifolds, &gpu.counters)),
        }
    }
}

/// The look of a [`RigidRenderer`]; change it freely between frames.
#[derive(Clone, Copy, Debug)]
pub struct RigidStyle {
    /// Clear and fog colour (linear RGB).
    pub background: Vec3,
    /// Direction towards the light (normalized when used).
    pub light: Vec3,
    /// Share of the sky/ground ambient in the lighting, 0..1.
    pub ambient: f32,
    /// Shadows from the light.
    pub shadows: bool,
    /// Fog distance as a multiple of the camera distance (0: no fog).
    pub fog: f32,
    /// Checker cell size on planes, metres (0: plain).
    pub checker: f32,
    /// Width of the dark box edges, pixels (0: none).
    pub edge_px: f32,
    /// Draw the engine's contacts (needs [`RigidBuffers::contacts`]).
    pub contacts: bool,
    /// Length of the drawn contact normals, metres.
    pub contact_length: f32,
}

impl Default for RigidStyle {
    fn default() -> Self {
        Self {
            background: Vec3::new(0.045, 0.05, 0.065),
            light: Vec3::new(0.45, 1.0, 0.35),
            ambient: 0.32,
            shadows: true,
            fog: 6.0,
            checker: 1.0,
            edge_px: 1.2,
            contacts: false,
            contact_length: 0.3,
        }
    }
}

/// Size of the square shadow map, texels.
const SHADOW_SIZE: u32 = 2048;

/// The bind group of the engine's buffers, kept while they stay the same buffers.
struct Bound {
    key: [wgpu::Buffer; 4],
    group: wgpu::BindGroup,
}

/// Draws rigid bodies from a [`RigidBuffers`] (and debug lines) into a colour target with a
/// depth buffer, casting shadows from one directional light.
pub struct RigidRenderer {
    uniforms: Uniforms,
    storage_layout: wgpu::BindGroupLayout,
    shadow_bind: wgpu::BindGroup,
    shadow_view: wgpu::TextureView,
    shapes: wgpu::RenderPipeline,
    shadow: wgpu::RenderPipeline,
    planes: wgpu::RenderPipeline,
    contacts: wgpu::RenderPipeline,
    line: wgpu::RenderPipeline,
    mesh: wgpu::Buffer,
    index: wgpu::Buffer,
    index_count: u32,
    /// Stand-ins for the contact buffers when none are given.
    no_contacts: [wgpu::Buffer; 2],
    bound: Option<Bound>,
    lines: Option<(wgpu::Buffer, u32)>,
    depth: wgpu::TextureView,
    width: u32,
    height: u32,
    /// The look.
    pub style: RigidStyle,
}

impl RigidRenderer {
    /// Builds the pipelines for a colour target of `format` and size `width` x `height`. The
    /// adapter must read storage buffers in vertex shaders
    /// ([`wgpu::DownlevelFlags::VERTEX_STORAGE`]; [`RigidApp`] checks).
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
    ) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("examples:rigid"),
            source: wgpu::ShaderSource::Wgsl(shader_source().into()),
        });
        let uniforms = Uniforms::new(
            device,
            "examples:rigid-globals",
            std::mem::size_of::<RigidGlobals>() as u64,
        );
        let storage = super::vertex_storage_entry;
        let storage_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("examples:rigid-buffers"),
            entries: &[storage(0), storage(1), storage(2), storage(3)],
        });
        let shadow_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("examples:rigid-shadow"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                    count: None,
                },
            ],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("examples:rigid-shadow"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let shadow_group = |view: &wgpu::TextureView| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("examples:rigid-shadow"),
                layout: &shadow_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Sampler(&sampler),
                    },
                ],
            })
        };
        let shadow_view = depth_view(
            device,
            "examples:rigid-shadow-map",
            SHADOW_SIZE,
            SHADOW_SIZE,
            wgpu::TextureUsages::TEXTURE_BINDING,
        );
        let shadow_bind = shadow_group(&shadow_view);

        let layout = super::pipeline_layout(
            device,
            "examples:rigid",
            &[&uniforms.layout, &storage_layout, &shadow_layout],
        );
        let mesh_attributes = wgpu::vertex_attr_array![
            0 => Float32x3, 1 => Uint32, 2 => Float32x3, 3 => Float32
        ];
        let mesh_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<MeshVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &mesh_attributes,
        })];
        let tri = wgpu::PrimitiveTopology::TriangleList;
        let spec = |label, vs, buffers, fs, topology, cull| PipelineSpec {
            label,
            layout: &layout,
            vs,
            buffers,
            fs,
            format: Some(format),
            blend: wgpu::BlendState::REPLACE,
            topology,
            depth: DepthUse::Write,
            cull,
        };
        let back = Some(wgpu::Face::Back);
        let shapes = render_pipeline(
            device,
            &module,
            &spec(
                "examples:rigid-shapes",
                "vs_shape",
                &mesh_buffers,
                "fs_shape",
                tri,
                back,
            ),
        );
        let planes = render_pipeline(
            device,
            &module,
            &spec(
                "examples:rigid-planes",
                "vs_plane",
                &[],
                "fs_plane",
                tri,
                None,
            ),
        );
        let lines = wgpu::PrimitiveTopology::LineList;
        let contacts = render_pipeline(
            device,
            &module,
            &PipelineSpec {
                depth: DepthUse::Overlay,
                ..spec(
                    "examples:rigid-contacts",
                    "vs_contact",
                    &[],
                    "fs_flat",
                    lines,
                    None,
                )
            },
        );
        let line_buffers = [Some(line_buffer_layout())];
        let line = render_pipeline(
            device,
            &module,
            &PipelineSpec {
                blend: wgpu::BlendState::ALPHA_BLENDING,
                depth: DepthUse::Test,
                ..spec(
                    "examples:rigid-lines",
                    "vs_line",
                    &line_buffers,
                    "fs_flat",
                    lines,
                    None,
                )
            },
        );
        // Depth only: no colour target, and no shadow map to read.
        let depth_only = super::pipeline_layout(
            device,
            "examples:rigid-shadow",
            &[&uniforms.layout, &storage_layout],
        );
        let shadow = render_pipeline(
            device,
            &module,
            &PipelineSpec {
                layout: &depth_only,
                format: None,
                ..spec(
                    "examples:rigid-shadow",
                    "vs_shadow",
                    &mesh_buffers,
                    "",
                    tri,
                    back,
                )
            },
        );

        let (vertices, indices) = unit_meshes();
        let init = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let mesh = init(
            "examples:rigid-mesh",
            bytemuck::cast_slice(&vertices),
            wgpu::BufferUsages::VERTEX,
        );
        let index = init(
            "examples:rigid-index",
            bytemuck::cast_slice(&indices),
            wgpu::BufferUsages::INDEX,
        );
        let no_contacts = [
            init(
                "examples:rigid-no-manifolds",
                bytemuck::bytes_of(&GpuManifold::default()),
                wgpu::BufferUsages::STORAGE,
            ),
            init(
                "examples:rigid-no-counters",
                &[0; 16],
                wgpu::BufferUsages::STORAGE,
            ),
        ];
        Self {
            uniforms,
            storage_layout,
            shadow_bind,
            shadow_view,
            shapes,
            shadow,
            planes,
            contacts,
            line,
            mesh,
            index,
            index_count: indices.len() as u32,
            no_contacts,
            bound: None,
            lines: None,
            depth: depth_view(
                device,
                "examples:rigid-depth",
                width,
                height,
                wgpu::TextureUsages::empty(),
            ),
            width: width.max(1),
            height: height.max(1),
            style: RigidStyle::default(),
        }
    }

    /// Matches a new target size (recreates the depth buffer).
    pub fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        self.width = width.max(1);
        self.height = height.max(1);
        self.depth = depth_view(
            device,
            "examples:rigid-depth",
            self.width,
            self.height,
            wgpu::TextureUsages::empty(),
        );
    }

    /// Replaces the debug lines (a line list, drawn over the bodies; cheap to call every frame:
    /// the buffer is reused when it fits).
    pub fn set_lines(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, lines: &[LineVertex]) {
        let old = self.lines.take();
        self.lines = upload(
            device,
            queue,
            "examples:rigid-lines",
            wgpu::BufferUsages::VERTEX,
            lines,
            old,
        );
    }

    /// The bind group over `bufs`, made again only when the engine's buffers change (a world
    /// that grows replaces them).
    fn bind(&mut self, device: &wgpu::Device, bufs: &RigidBuffers<'_>) -> &wgpu::BindGroup {
        let (manifolds, counters) = bufs
            .contacts
            .unwrap_or((&self.no_contacts[0], &self.no_contacts[1]));
        let key = [bufs.bodies, bufs.shapes, manifolds, counters].map(Clone::clone);
        if self.bound.as_ref().is_none_or(|b| b.key != key) {
            let entries: Vec<wgpu::BindGroupEntry<'_>> = key
                .iter()
                .enumerate()
                .map(|(i, b)| wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: b.as_entire_binding(),
                })
                .collect();
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("examples:rigid-buffers"),
                layout: &self.storage_layout,
                entries: &entries,
            });
            self.bound = Some(Bound { key, group });
        }
        &self.bound.as_ref().expect("bound above").group
    }

    /// Records one frame into `encoder`: the shadow map, then planes, shapes, contacts and
    /// debug lines, all from the engine's buffers in `bufs`.
    pub fn render(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        camera: &OrbitCamera,
        bufs: RigidBuffers<'_>,
    ) {
        let s = self.style;
        let (w, h) = (self.width as f32, self.height as f32);
        let light = s.light.normalize_or(Vec3::Y);
        // The shadow map covers a box around the target, sized by how far the camera is.
        let reach = camera.distance * 1.1;
        let light_view = glam::camera::rh::view::look_at_mat4(
            camera.target + light * 4.0 * reach,
            camera.target,
            if light.y.abs() > 0.99 {
                Vec3::Z
            } else {
                Vec3::Y
            },
        );
        let light_proj = glam::camera::rh::proj::directx::orthographic(
            -reach,
            reach,
            -reach,
            reach,
            0.0,
            8.0 * reach,
        ) * light_view;
        let globals = RigidGlobals {
            view_proj: camera.view_proj(w / h),
            light_proj,
            eye: camera.eye().extend(s.fog * camera.distance),
            light: light.extend(s.ambient.clamp(0.0, 1.0)),
            ground: camera.target.extend(camera.distance * 12.0 + 50.0),
            background: s.background.extend(s.checker),
            style: Vec4::new(
                s.contact_length,
                2.0 * reach / SHADOW_SIZE as f32,
                f32::from(u8::from(s.shadows)),
                s.edge_px,
            ),
        };
        ctx.queue
            .write_buffer(&self.uniforms.buffer, 0, bytemuck::bytes_of(&globals));
        let slots = bufs
            .shape_slots
            .min((bufs.shapes.size() / std::mem::size_of::<GpuShape>() as u64) as u32);
        let contacts = match (s.contacts, bufs.contacts) {
            (true, Some((manifolds, _))) => {
                let n = manifolds.size() / std::mem::size_of::<GpuManifold>() as u64;
                n as u32 * wgphys::rigid::types::MAX_POINTS
            }
            _ => 0,
        };
        self.bind(&ctx.device, &bufs);
        let storage = &self.bound.as_ref().expect("bound above").group;

        if s.shadows {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("examples:rigid-shadow"),
                color_attachments: &[],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.shadow_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.shadow);
            pass.set_bind_group(0, &self.uniforms.bind, &[]);
            pass.set_bind_group(1, storage, &[]);
            pass.set_vertex_buffer(0, self.mesh.slice(..));
            pass.set_index_buffer(self.index.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..self.index_count, 0, 0..slots);
        }

        let bg = s.background.as_dvec3();
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("examples:rigid-frame"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: bg.x,
                        g: bg.y,
                        b: bg.z,
                        a: 1.0,
                    }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.uniforms.bind, &[]);
        pass.set_bind_group(1, storage, &[]);
        pass.set_bind_group(2, &self.shadow_bind, &[]);
        pass.set_pipeline(&self.shapes);
        pass.set_vertex_buffer(0, self.mesh.slice(..));
        pass.set_index_buffer(self.index.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..self.index_count, 0, 0..slots);
        pass.set_pipeline(&self.planes);
        pass.draw(0..6, 0..slots);
        if contacts > 0 {
            pass.set_pipeline(&self.contacts);
            pass.draw(0..2, 0..contacts);
        }
        if let Some((buffer, count)) = &self.lines {
            pass.set_pipeline(&self.line);
            pass.set_vertex_buffer(0, buffer.slice(..));
            pass.draw(0..*count, 0..1);
        }
    }
}

/// A rigid-body scene the shared app runs, in a window or headless. The scene owns its world
/// (or a bare [`GpuRigid`]); the app draws what [`RigidDemo::buffers`] names.
pub trait RigidDemo: Sized {
    /// Short name: window title, default PNG name, usage text.
    const NAME: &'static str;
    /// Controls, printed when the window opens.
    const CONTROLS: &'static str;
    /// Frames rendered headless when `--frames` is not given.
    const DEFAULT_FRAMES: u32 = super::DEFAULT_FRAMES;
    /// The demo's own command-line options (see [`super::Cli::parse_with`]; read them with
    /// [`super::cli_option`]).
    const OPTIONS: &'static [&'static str] = &[];

    /// Builds the scene on `ctx`. `headless_frames` is `Some(frames)` for an offscreen run of
    /// that many frames: no input comes, so the demo drives itself over those frames.
    fn new(ctx: &GpuContext, headless_frames: Option<u32>) -> Result<Self, BoxError>;
    /// The engine's buffers to draw (asked every frame; [`RigidBuffers::of`] a [`GpuRigid`]).
    fn buffers(&self) -> RigidBuffers<'_>;
    /// Where the camera starts (and returns to on `R`).
    fn camera(&self) -> OrbitCamera;
    /// The look (asked every frame, so keys may toggle contacts or shadows).
    fn style(&self) -> RigidStyle {
        RigidStyle::default()
    }
    /// Debug lines (a line list) to draw this frame, appended to `out` (empty by default).
    fn lines(&self, _out: &mut Vec<LineVertex>) {}
    /// Advances one fixed step of [`super::DT`].
    fn update(&mut self) -> Result<(), BoxError>;
    /// A key went down (`pressed`) or up. Escape is handled by the app, and so is C (the
    /// contact overlay, flipped from [`RigidDemo::style`]); R resets the camera and is passed on
    /// (pressed only), so a demo may reset its scene too.
    fn key(&mut self, _key: &Key, _pressed: bool) -> Result<(), BoxError> {
        Ok(())
    }
    /// Forget the keys held down (the window lost the keyboard).
    fn release_keys(&mut self) {}
    /// The left mouse button was clicked (pressed and released without dragging).
    fn click(&mut self) -> Result<(), BoxError> {
        Ok(())
    }
    /// The count shown in the title.
    fn count(&self) -> String {
        format!("{} shape slots", self.buffers().shape_slots)
    }
    /// Extra text for the window title.
    fn title(&self) -> String {
        String::new()
    }
    /// What a headless run prints at the end (may read the world back once).
    fn summary(&self) -> String {
        String::new()
    }
}

/// Runs a rigid demo: in a window when a display is available, otherwise (or with
/// `--headless`) offscreen into a PNG.
pub fn run<D: RigidDemo>() -> Result<(), BoxError> {
    super::run_app::<RigidApp<D>>()
}

/// A [`RigidDemo`] and a [`RigidRenderer`], as an [`App`].
pub struct RigidApp<D: RigidDemo> {
    demo: D,
    renderer: RigidRenderer,
    lines: Vec<LineVertex>,
    ctx: GpuContext,
    /// C flips the contact overlay of the demo's style.
    flip_contacts: bool,
}

impl<D: RigidDemo> App for RigidApp<D> {
    const NAME: &'static str = D::NAME;
    const CONTROLS: &'static str = D::CONTROLS;
    const DEFAULT_FRAMES: u32 = D::DEFAULT_FRAMES;
    const OPTIONS: &'static [&'static str] = D::OPTIONS;

    fn new(
        ctx: &GpuContext,
        adapter: &wgpu::Adapter,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
        headless_frames: Option<u32>,
    ) -> Result<Self, BoxError> {
        if !adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::VERTEX_STORAGE)
        {
            return Err(
                "this adapter cannot read storage buffers in vertex shaders, which the \
                        rigid renderer needs; try WGPU_BACKEND=vulkan"
                    .into(),
            );
        }
        let demo = D::new(ctx, headless_frames)?;
        let renderer = RigidRenderer::new(&ctx.device, format, width, height);
        Ok(Self {
            demo,
            renderer,
            lines: Vec::new(),
            ctx: ctx.clone(),
            flip_contacts: false,
        })
    }

    fn camera(&self) -> OrbitCamera {
        self.demo.camera()
    }

    fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        self.renderer.resize(device, width, height);
    }

    fn step(&mut self) -> Result<Duration, BoxError> {
        // Wall time of the step with its GPU work (waiting is no readback).
        self.ctx.wait()?;
        let t = Instant::now();
        self.demo.update()?;
        self.ctx.wait()?;
        Ok(t.elapsed())
    }

    fn render(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        camera: &OrbitCamera,
        _frame_dt: f32,
    ) {
        self.renderer.style = self.demo.style();
        self.renderer.style.contacts ^= self.flip_contacts;
        self.lines.clear();
        self.demo.lines(&mut self.lines);
        self.renderer
            .set_lines(&ctx.device, &ctx.queue, &self.lines);
        self.renderer
            .render(ctx, encoder, target, camera, self.demo.buffers());
    }

    fn key(&mut self, key: &Key, pressed: bool) -> Result<(), BoxError> {
        if pressed && key_is(key, 'c') {
            self.flip_contacts = !self.flip_contacts;
            return Ok(());
        }
        self.demo.key(key, pressed)
    }

    fn release_keys(&mut self) {
        self.demo.release_keys();
    }

    fn click(&mut self) -> Result<(), BoxError> {
        self.demo.click()
    }

    fn count(&self) -> String {
        self.demo.count()
    }

    fn title(&self) -> String {
        self.demo.title()
    }

    fn report(&self, steps: u32, step_time: Duration) -> Result<(), BoxError> {
        let summary = self.demo.summary();
        if !summary.is_empty() {
            println!("{summary}");
        }
        println!(
            "{:.3} ms/step (mean over {steps} steps, GPU work included)",
            step_time.as_secs_f64() * 1e3 / f64::from(steps.max(1))
        );
        Ok(())
    }
}

/// Whether `key` is the character `c` (either case).
pub fn key_is(key: &Key, c: char) -> bool {
    match key {
        Key::Character(s) => {
            let mut chars = s.chars();
            chars.next().is_some_and(|k| k.eq_ignore_ascii_case(&c)) && chars.next().is_none()
        }
        _ => false,
    }
}

/// The title text of a [`StepReport`]: awake bodies, pairs, manifolds and solver colours (the
/// GPU's counts arrive a frame or two late).
pub fn report_title(r: &StepReport) -> String {
    let mut t = format!(
        "{} awake | {} pairs | {} manifolds | {} colours",
        r.awake, r.pairs, r.manifolds, r.colours
    );
    if r.uncoloured > 0 {
        t.push_str(&format!(" (+{} serial)", r.uncoloured));
    }
    if let Some(advice) = r.advice() {
        t.push_str(" | ");
        t.push_str(&advice);
    }
    t
}
