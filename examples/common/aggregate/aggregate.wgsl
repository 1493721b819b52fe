// The aggregate renderer (aggregate/renderer.rs): the engine's particles as shaded balls that
// write their sphere's depth, markers (balls placed from particle positions), thick link lines
// between attached points, and flat scenery lines. Positions are read from the engine's storage
// buffer, so a frame reads nothing back.

struct Globals {
    view: mat4x4<f32>,
    proj: mat4x4<f32>,
    view_proj: mat4x4<f32>,
    // width, height (pixels), focal length (pixels), smallest ball radius (pixels)
    viewport: vec4<f32>,
    // direction towards the light in view space (xyz), ambient share (w)
    light: vec4<f32>,
    // height shading: brightness goes from z at y = x up to 1 at y = y; off when w = 0
    shade: vec4<f32>,
};

@group(0) @binding(0) var<uniform> g: Globals;
@group(1) @binding(0) var<storage, read> positions: array<vec4<f32>>;

const NONE: u32 = 0xffffffffu;

// An Attach point: offset + sum of weight * particle position (unused slots are NONE).
fn attached(idx: vec4<u32>, w: vec4<f32>, offset: vec3<f32>) -> vec3<f32> {
    var p = offset;
    for (var k = 0u; k < 4u; k++) {
        if (idx[k] != NONE) {
            p += w[k] * positions[idx[k]].xyz;
        }
    }
    return p;
}

// Corner k of a quad made of two triangles, in [-1, 1]^2.
fn corner_of(vi: u32) -> vec2<f32> {
    let i = vi % 6u;
    return vec2<f32>(
        select(-1.0, 1.0, i == 1u || i == 2u || i == 4u),
        select(-1.0, 1.0, i == 2u || i == 4u || i == 5u),
    );
}

struct BallOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) colour: vec4<f32>,
    // view-space centre and radius as drawn
    @location(2) centre: vec3<f32>,
    @location(3) radius: f32,
    // brightness from the height shading
    @location(4) bright: f32,
};

fn ball(vi: u32, world: vec3<f32>, radius: f32, colour: vec4<f32>) -> BallOut {
    let corner = corner_of(vi);
    let c = (g.view * vec4<f32>(world, 1.0)).xyz;
    var out: BallOut;
    out.uv = corner;
    out.colour = colour;
    out.centre = c;
    out.radius = 0.0;
    let h = clamp((world.y - g.shade.x) / max(g.shade.y - g.shade.x, 1e-6), 0.0, 1.0);
    out.bright = select(1.0, mix(g.shade.z, 1.0, h), g.shade.w != 0.0);
    let dist = -c.z;
    if (radius <= 0.0 || dist <= 1e-3) {
        // Removed particle, or behind the eye: a degenerate vertex outside the clip volume.
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    // Never smaller than the pixel floor, so far balls stay visible.
    let r = max(radius, g.viewport.w * dist / g.viewport.z);
    out.radius = r;
    out.clip = g.proj * vec4<f32>(c + vec3<f32>(corner * r, 0.0), 1.0);
    return out;
}

// The engine's particles: per-instance position, colour, radius.
@vertex
fn vs_ball(
    @builtin(vertex_index) vi: u32,
    @location(0) position: vec4<f32>,
    @location(1) colour: vec4<f32>,
    @location(2) radius: f32,
) -> BallOut {
    return ball(vi, position.xyz, radius, colour);
}

// Markers: balls placed from particle positions.
@vertex
fn vs_marker(
    @builtin(vertex_index) vi: u32,
    @location(0) idx: vec4<u32>,
    @location(1) w: vec4<f32>,
    @location(2) offset_size: vec4<f32>,
    @location(3) colour: vec4<f32>,
) -> BallOut {
    return ball(vi, attached(idx, w, offset_size.xyz), offset_size.w, colour);
}

struct BallFrag {
    @location(0) colour: vec4<f32>,
    @builtin(frag_depth) depth: f32,
};

@fragment
fn fs_ball(in: BallOut) -> BallFrag {
    let r2 = dot(in.uv, in.uv);
    if (r2 >= 1.0) {
        discard;
    }
    let n = vec3<f32>(in.uv, sqrt(1.0 - r2));
    let clip = g.proj * vec4<f32>(in.centre + n * in.radius, 1.0);
    let l = normalize(g.light.xyz);
    let diffuse = max(dot(n, l), 0.0);
    let h = normalize(l + vec3<f32>(0.0, 0.0, 1.0));
    let spec = 0.25 * pow(max(dot(n, h), 0.0), 24.0);
    let rgb = in.colour.rgb * in.bright * (g.light.w + (1.0 - g.light.w) * diffuse)
        + vec3<f32>(spec * in.bright);
    var out: BallFrag;
    out.colour = vec4<f32>(rgb, 1.0);
    out.depth = clip.z / clip.w;
    return out;
}

struct FlatOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
};

// Links: one instance per segment, two Attach ends, extruded to `size` pixels on screen.
@vertex
fn vs_link(
    @builtin(vertex_index) vi: u32,
    @location(0) ia: vec4<u32>,
    @location(1) wa: vec4<f32>,
    @location(2) oa: vec4<f32>,
    @location(3) ca: vec4<f32>,
    @location(4) ib: vec4<u32>,
    @location(5) wb: vec4<f32>,
    @location(6) ob: vec4<f32>,
    @location(7) cb: vec4<f32>,
) -> FlatOut {
    let corner = corner_of(vi);
    let end_b = corner.x > 0.0;
    let a = g.view_proj * vec4<f32>(attached(ia, wa, oa.xyz), 1.0);
    let b = g.view_proj * vec4<f32>(attached(ib, wb, ob.xyz), 1.0);
    var out: FlatOut;
    out.colour = select(ca, cb, end_b);
    if (a.w <= 1e-3 || b.w <= 1e-3) {
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    let half = 0.5 * g.viewport.xy;
    let d = b.xy / b.w * half - a.xy / a.w * half;
    let len = length(d);
    let dir = select(vec2<f32>(1.0, 0.0), d / len, len > 1e-6);
    let normal = vec2<f32>(-dir.y, dir.x);
    let width = select(oa.w, ob.w, end_b);
    let clip = select(a, b, end_b);
    out.clip = clip + vec4<f32>(normal * corner.y * 0.5 * width / half * clip.w, 0.0, 0.0);
    return out;
}

// Scenery: a plain line list.
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
