// The particle sprite renderer of `ballistics` (particles/renderer.rs): additive camera-facing
// sprites from the engine's per-instance buffers, their soft afterglow, the afterglow's fade and
// composite, and scenery lines.

struct Globals {
    view_proj: mat4x4<f32>,
    // width, height (pixels), focal length (pixels), smallest sprite radius (pixels)
    viewport: vec4<f32>,
    // sprite radius / particle radius, sprite brightness, afterglow gain, unused
    style: vec4<f32>,
};

@group(0) @binding(0) var<uniform> g: Globals;
@group(1) @binding(0) var afterglow: texture_2d<f32>;

struct SpriteOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) colour: vec4<f32>,
};

// One particle = one instance of 6 vertices: two triangles of a camera-facing quad.
@vertex
fn vs_sprite(
    @builtin(vertex_index) vi: u32,
    @location(0) position: vec4<f32>,
    @location(1) colour: vec4<f32>,
    @location(2) radius: f32,
) -> SpriteOut {
    let i = vi % 6u;
    let corner = vec2<f32>(
        select(-1.0, 1.0, i == 1u || i == 2u || i == 4u),
        select(-1.0, 1.0, i == 2u || i == 4u || i == 5u),
    );
    let centre = g.view_proj * vec4<f32>(position.xyz, 1.0);
    var out: SpriteOut;
    out.uv = corner;
    out.colour = colour;
    if (centre.w <= 1e-4) {
        // Behind the eye: emit a degenerate vertex outside the clip volume.
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    // The sprite's radius in pixels, never below the floor, so far particles stay visible.
    let r_px = max(radius * g.style.x * g.viewport.z / centre.w, g.viewport.w);
    let r_ndc = 2.0 * r_px / g.viewport.xy;
    out.clip = centre + vec4<f32>(corner * r_ndc * centre.w, 0.0, 0.0);
    return out;
}

@fragment
fn fs_sprite(in: SpriteOut) -> @location(0) vec4<f32> {
    let r2 = dot(in.uv, in.uv);
    if (r2 >= 1.0) {
        discard;
    }
    // Soft halo plus a hot core that goes white when the colour is bright.
    let halo = (1.0 - r2) * (1.0 - r2);
    let core = exp(-r2 * 14.0);
    let k = g.style.y * in.colour.a;
    let peak = max(in.colour.r, max(in.colour.g, in.colour.b));
    let rgb = (in.colour.rgb * (0.55 * halo + core) + vec3<f32>(0.6 * core * core * peak)) * k;
    return vec4<f32>(rgb, halo);
}

// The afterglow's profile: the halo without the hot core, so the trail of a fast particle
// reads as a streak rather than a string of beads.
@fragment
fn fs_sprite_soft(in: SpriteOut) -> @location(0) vec4<f32> {
    let r2 = dot(in.uv, in.uv);
    if (r2 >= 1.0) {
        discard;
    }
    let halo = (1.0 - r2) * (1.0 - r2);
    return vec4<f32>(in.colour.rgb * (halo * g.style.y * in.colour.a), halo);
}

// A triangle covering the whole target.
@vertex
fn vs_fullscreen(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((vi << 1u) & 2u), f32(vi & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

// Blended as dst * constant: decays the afterglow.
@fragment
fn fs_fade() -> @location(0) vec4<f32> {
    return vec4<f32>(0.0);
}

// Adds the afterglow under the live sprites.
@fragment
fn fs_composite(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let c = textureLoad(afterglow, vec2<i32>(p.xy), 0);
    return vec4<f32>(c.rgb * g.style.z, 0.0);
}

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
};

@vertex
fn vs_line(@location(0) position: vec3<f32>, @location(1) colour: vec4<f32>) -> LineOut {
    var out: LineOut;
    out.clip = g.view_proj * vec4<f32>(position, 1.0);
    out.colour = colour;
    return out;
}

@fragment
fn fs_line(in: LineOut) -> @location(0) vec4<f32> {
    return in.colour;
}
