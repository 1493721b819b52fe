// The FX particle layers (fx/sprites.rs): sparks (soft and stretched sprites), ribbons through
// the engine's trails and sorted, lit smoke, all read from the engine's storage buffers and
// faded against the scene's depth. Compiled after globals.wgsl (fx/wgsl.rs).

struct LayerLook {
    // sprite radius / particle radius, smallest radius (px), brightness or opacity, soft (m)
    look: vec4<f32>,
    // stretch (s), longest stretch (px), lit, unused
    motion: vec4<f32>,
    // ribbon half-width / particle radius, smallest half-width (px), brightness, unused
    ribbon: vec4<f32>,
    // newest trail entry, trail length K, unused, unused
    trail: vec4<u32>,
};

// The depth buffer, bound as an unfilterable float texture (WebGPU allows it for a depth view),
// which every backend can `textureLoad` (GLSL cannot load from a depth texture type).
@group(0) @binding(1) var scene_depth: texture_2d<f32>;
@group(1) @binding(0) var<uniform> layer: LayerLook;
@group(1) @binding(1) var<storage, read> positions: array<vec4<f32>>;
@group(1) @binding(2) var<storage, read> colours: array<vec4<f32>>;
@group(1) @binding(3) var<storage, read> sizes: array<f32>;
@group(1) @binding(4) var<storage, read> velocities: array<vec4<f32>>;
@group(1) @binding(5) var<storage, read> order: array<u32>;
@group(1) @binding(6) var<storage, read> trails: array<vec4<f32>>;

// Soft particles: 1 well in front of the scene's surface at this pixel, fading to 0 at it
// (and 0 behind it); `d` is the fragment's distance along the view.
fn soft_fade(frag: vec4<f32>, d: f32) -> f32 {
    let z = textureLoad(scene_depth, vec2<i32>(frag.xy), 0).x;
    let gap = g.depth.y / (z + g.depth.x) - d;
    if (layer.look.w <= 0.0) {
        return select(0.0, 1.0, gap > 0.0);
    }
    return clamp(gap / layer.look.w, 0.0, 1.0);
}

struct SpriteOut {
    @builtin(position) clip: vec4<f32>,
    // pixels from the sprite's centre line: along the stretch, across it
    @location(0) q: vec2<f32>,
    @location(1) colour: vec4<f32>,
    // half the stretch (px), radius (px), view distance (m)
    @location(2) shape: vec3<f32>,
    @location(3) light: vec3<f32>,
    @location(4) @interpolate(flat) seed: u32,
};

fn sprite(vi: u32, slot: u32) -> SpriteOut {
    let i = vi % 6u;
    let corner = vec2<f32>(
        select(-1.0, 1.0, i == 1u || i == 2u || i == 4u),
        select(-1.0, 1.0, i == 2u || i == 4u || i == 5u),
    );
    let p = positions[slot].xyz;
    let centre = g.view_proj * vec4<f32>(p, 1.0);
    var out: SpriteOut;
    out.colour = colours[slot];
    out.seed = slot;
    if (centre.w <= 1e-3) {
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    let r_px = max(sizes[slot] * layer.look.x * g.viewport.z / centre.w, layer.look.y);
    var axis = vec2<f32>(1.0, 0.0);
    var half = 0.0;
    var mid = to_px(centre);
    if (layer.motion.x > 0.0) {
        // Where the particle was `stretch` seconds ago, on screen: the capsule spans it.
        let back = g.view_proj * vec4<f32>(p - velocities[slot].xyz * layer.motion.x, 1.0);
        if (back.w > 1e-3) {
            let d = mid - to_px(back);
            let len = length(d);
            if (len > 0.5) {
                axis = d / len;
                half = 0.5 * min(len, layer.motion.y);
                mid = mid - axis * half;
            }
        }
    }
    let q = vec2<f32>(corner.x * (half + r_px), corner.y * r_px);
    out.clip = from_px(mid + axis * q.x + vec2<f32>(-axis.y, axis.x) * q.y, centre);
    out.q = q;
    out.shape = vec3<f32>(half, r_px, centre.w);
    out.light = mix(vec3<f32>(1.0), lighting(p, vec3<f32>(0.0, 1.0, 0.0), 1.0), layer.motion.z);
    return out;
}

@vertex
fn vs_sprite(@builtin(vertex_index) vi: u32, @builtin(instance_index) k: u32) -> SpriteOut {
    return sprite(vi, k);
}

@vertex
fn vs_sprite_sorted(@builtin(vertex_index) vi: u32, @builtin(instance_index) k: u32) -> SpriteOut {
    return sprite(vi, order[k]);
}

// Squared distance from the capsule's centre line, in radii.
fn capsule_r2(in: SpriteOut) -> f32 {
    let dx = max(abs(in.q.x) - in.shape.x, 0.0);
    return (dx * dx + in.q.y * in.q.y) / (in.shape.y * in.shape.y);
}

// Additive: a soft halo and a hot core that goes white when the colour is bright.
@fragment
fn fs_spark(in: SpriteOut) -> @location(0) vec4<f32> {
    let fade = soft_fade(in.clip, in.shape.z);
    let r2 = capsule_r2(in);
    if (r2 >= 1.0) {
        discard;
    }
    let halo = (1.0 - r2) * (1.0 - r2);
    let core = exp(-r2 * 14.0);
    // A stretched sprite spreads its light over its length.
    let spread = sqrt(in.shape.y / (in.shape.y + in.shape.x));
    let k = layer.look.z * in.colour.a * fade * spread;
    let peak = max(in.colour.r, max(in.colour.g, in.colour.b));
    let rgb = (in.colour.rgb * (0.55 * halo + core) + vec3<f32>(0.6 * core * core * peak)) * k;
    return vec4<f32>(max(rgb, vec3<f32>(0.0)), 0.0);
}

fn hash3(p: vec3<f32>) -> f32 {
    let q = fract(p * vec3<f32>(0.1031, 0.1030, 0.0973));
    let r = q + dot(q, q.yxz + 33.33);
    return fract((r.x + r.y) * r.z);
}

// Value noise over the sprite, different per particle and slowly turning, so a puff is not a
// disc.
fn puff_noise(uv: vec2<f32>, seed: u32) -> f32 {
    let s = f32(seed % 1024u) * 7.31;
    let p = uv * 2.2 + vec2<f32>(s, s * 0.37);
    let i = floor(p);
    let f = fract(p);
    let u = f * f * (3.0 - 2.0 * f);
    let a = hash3(vec3<f32>(i, s));
    let b = hash3(vec3<f32>(i + vec2<f32>(1.0, 0.0), s));
    let c = hash3(vec3<f32>(i + vec2<f32>(0.0, 1.0), s));
    let d = hash3(vec3<f32>(i + vec2<f32>(1.0, 1.0), s));
    return mix(mix(a, b, u.x), mix(c, d, u.x), u.y);
}

// Premultiplied alpha, lit: smoke.
@fragment
fn fs_smoke(in: SpriteOut) -> @location(0) vec4<f32> {
    let fade = soft_fade(in.clip, in.shape.z);
    let r2 = capsule_r2(in);
    if (r2 >= 1.0) {
        discard;
    }
    let body = (1.0 - r2) * sqrt(1.0 - r2);
    let n = puff_noise(in.q / in.shape.y, in.seed);
    let a = clamp(in.colour.a * layer.look.z * body * (0.45 + 0.9 * n) * fade, 0.0, 1.0);
    return vec4<f32>(in.colour.rgb * in.light * a, a);
}

struct RibbonOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
    // -1 .. 1 across the ribbon
    @location(1) across: f32,
    @location(2) dist: f32,
};

// Entry j of a slot's trail, j = 0 the newest.
fn trail_point(slot: u32, j: u32) -> vec3<f32> {
    let k = layer.trail.y;
    return trails[slot * k + (layer.trail.x + k - j) % k].xyz;
}

// Instance = slot; vertex v: quad v / 6 between trail entries j and j + 1.
@vertex
fn vs_ribbon(@builtin(vertex_index) vi: u32, @builtin(instance_index) slot: u32) -> RibbonOut {
    let k = layer.trail.y;
    let c = vi % 6u;
    let j = vi / 6u + select(0u, 1u, c == 1u || c == 2u || c == 4u);
    let side = select(-1.0, 1.0, c == 2u || c == 4u || c == 5u);
    var out: RibbonOut;
    out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    out.across = side;
    let clip = g.view_proj * vec4<f32>(trail_point(slot, j), 1.0);
    // The direction on screen from the neighbours, the same for both quads meeting at an
    // entry, so the strip has no gaps.
    let newer = g.view_proj * vec4<f32>(trail_point(slot, max(j, 1u) - 1u), 1.0);
    let older = g.view_proj * vec4<f32>(trail_point(slot, min(j + 1u, k - 1u)), 1.0);
    if (clip.w <= 1e-3 || newer.w <= 1e-3 || older.w <= 1e-3) {
        return out;
    }
    let t = to_px(newer) - to_px(older);
    let len = length(t);
    let age = f32(j) / f32(k - 1u);
    var w = max(sizes[slot] * layer.ribbon.x * g.viewport.z / clip.w, layer.ribbon.y);
    w = w * (1.0 - 0.6 * age);
    var n = vec2<f32>(0.0);
    if (len > 1e-3) {
        n = vec2<f32>(-t.y, t.x) / len;
    }
    out.clip = from_px(to_px(clip) + n * side * w, clip);
    let fade = 1.0 - age;
    out.colour = colours[slot] * vec4<f32>(1.0, 1.0, 1.0, fade * fade);
    out.dist = clip.w;
    return out;
}

@fragment
fn fs_ribbon(in: RibbonOut) -> @location(0) vec4<f32> {
    let fade = soft_fade(in.clip, in.dist);
    let k = layer.ribbon.z * in.colour.a * fade * (1.0 - in.across * in.across);
    return vec4<f32>(max(in.colour.rgb * k, vec3<f32>(0.0)), 0.0);
}
