// Bloom and tone mapping of the FX renderer (fx/bloom.rs): a soft-knee prefilter, a 13-tap
// downsampling chain, tent upsampling, and the composite that exposes and tone maps (ACES).

struct Params {
    threshold: f32,
    knee: f32,
    strength: f32,
    exposure: f32,
    radius: f32,
    levels: f32,
};

@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var samp: sampler;
@group(0) @binding(2) var<uniform> prm: Params;
// The composite's second input: the top of the bloom chain.
@group(1) @binding(0) var bloom_src: texture_2d<f32>;

struct V {
    @builtin(position) pos: vec4<f32>,
    @location(0) uv: vec2<f32>,
};

// A triangle covering the target; uv (0, 0) at the top left.
@vertex
fn vs(@builtin(vertex_index) vi: u32) -> V {
    let t = vec2<f32>(f32((vi << 1u) & 2u), f32(vi & 2u));
    var out: V;
    out.pos = vec4<f32>(t * 2.0 - 1.0, 0.0, 1.0);
    out.uv = vec2<f32>(t.x, 1.0 - t.y);
    return out;
}

fn tap(t: texture_2d<f32>, uv: vec2<f32>) -> vec3<f32> {
    return textureSampleLevel(t, samp, uv, 0.0).rgb;
}

// Jimenez's 13-tap downsample (Call of Duty: Advanced Warfare): five overlapping 2x2 boxes.
fn down13(t: texture_2d<f32>, uv: vec2<f32>) -> vec3<f32> {
    let s = 1.0 / vec2<f32>(textureDimensions(t));
    let a = tap(t, uv + s * vec2<f32>(-2.0, -2.0));
    let b = tap(t, uv + s * vec2<f32>(0.0, -2.0));
    let c = tap(t, uv + s * vec2<f32>(2.0, -2.0));
    let d = tap(t, uv + s * vec2<f32>(-2.0, 0.0));
    let e = tap(t, uv);
    let f = tap(t, uv + s * vec2<f32>(2.0, 0.0));
    let g = tap(t, uv + s * vec2<f32>(-2.0, 2.0));
    let h = tap(t, uv + s * vec2<f32>(0.0, 2.0));
    let i = tap(t, uv + s * vec2<f32>(2.0, 2.0));
    let j = tap(t, uv + s * vec2<f32>(-1.0, -1.0));
    let k = tap(t, uv + s * vec2<f32>(1.0, -1.0));
    let l = tap(t, uv + s * vec2<f32>(-1.0, 1.0));
    let m = tap(t, uv + s * vec2<f32>(1.0, 1.0));
    return e * 0.125 + (a + c + g + i) * 0.03125 + (b + d + f + h) * 0.0625
        + (j + k + l + m) * 0.125;
}

// A 3x3 tent, `prm.radius` texels of `t` wide.
fn tent(t: texture_2d<f32>, uv: vec2<f32>) -> vec3<f32> {
    let s = prm.radius / vec2<f32>(textureDimensions(t));
    var c = tap(t, uv) * 4.0;
    c += (tap(t, uv + vec2<f32>(s.x, 0.0)) + tap(t, uv - vec2<f32>(s.x, 0.0))
        + tap(t, uv + vec2<f32>(0.0, s.y)) + tap(t, uv - vec2<f32>(0.0, s.y))) * 2.0;
    c += tap(t, uv + s) + tap(t, uv - s) + tap(t, uv + vec2<f32>(s.x, -s.y))
        + tap(t, uv + vec2<f32>(-s.x, s.y));
    return c / 16.0;
}

// The first level: what rises above the threshold (a soft knee), from the HDR scene.
@fragment
fn fs_prefilter(in: V) -> @location(0) vec4<f32> {
    let c = min(down13(src, in.uv), vec3<f32>(2000.0));
    let bright = max(c.r, max(c.g, c.b));
    var soft = clamp(bright - prm.threshold + prm.knee, 0.0, 2.0 * prm.knee);
    soft = soft * soft / (4.0 * prm.knee + 1e-5);
    let keep = max(soft, bright - prm.threshold) / max(bright, 1e-5);
    return vec4<f32>(c * keep, 1.0);
}

@fragment
fn fs_down(in: V) -> @location(0) vec4<f32> {
    return vec4<f32>(down13(src, in.uv), 1.0);
}

// Added (blend One, One) into the next larger level.
@fragment
fn fs_up(in: V) -> @location(0) vec4<f32> {
    return vec4<f32>(tent(src, in.uv), 1.0);
}

// Narkowicz's fit of the ACES filmic curve.
fn aces(x: vec3<f32>) -> vec3<f32> {
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), vec3<f32>(0.0),
        vec3<f32>(1.0));
}

// ACES per channel turns every bright colour white; the curve applied to the largest channel
// keeps the hue. Mostly the latter, so overlapping red sparks stay red, with a little of the
// former, so the hottest cores still burn white.
fn tone_map(x: vec3<f32>) -> vec3<f32> {
    let m = max(max(x.r, max(x.g, x.b)), 1e-6);
    let hue = x * (aces(vec3<f32>(m)).r / m);
    return mix(hue, aces(x), 0.3);
}

@fragment
fn fs_composite(in: V) -> @location(0) vec4<f32> {
    let hdr = tap(src, in.uv);
    let bloom = tent(bloom_src, in.uv) / prm.levels;
    let c = tone_map((hdr + bloom * prm.strength) * prm.exposure);
    return vec4<f32>(c, 1.0);
}
