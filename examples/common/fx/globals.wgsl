// What every FX module starts with (fx/wgsl.rs): the frame's uniform block (group 0,
// binding 0), the lighting of the scene and the smoke, and pixel <-> clip helpers.

struct Globals {
    view_proj: mat4x4<f32>,
    inv_view_proj: mat4x4<f32>,
    // eye position, time (s)
    eye: vec4<f32>,
    // width, height (pixels), focal length (pixels), unused
    viewport: vec4<f32>,
    // view distance of a depth-buffer value z: depth.y / (z + depth.x)
    depth: vec4<f32>,
    // zenith colour, star brightness
    sky_top: vec4<f32>,
    // horizon colour, fog density (1/m)
    sky_horizon: vec4<f32>,
    // ambient light, light count
    ambient: vec4<f32>,
    // position, range (m)
    lights: array<vec4<f32>, 8>,
    // colour (linear, intensity included)
    light_colours: array<vec4<f32>, 8>,
};

@group(0) @binding(0) var<uniform> g: Globals;

// Light reaching `p` on a surface of normal `n`; `wrap` 1 ignores the normal (smoke).
fn lighting(p: vec3<f32>, n: vec3<f32>, wrap: f32) -> vec3<f32> {
    var c = g.ambient.rgb * (0.75 + 0.25 * n.y);
    let count = u32(g.ambient.w);
    for (var i = 0u; i < count; i = i + 1u) {
        let d = g.lights[i].xyz - p;
        let r = g.lights[i].w;
        let att = 1.0 / (1.0 + dot(d, d) / (r * r));
        let facing = mix(max(dot(n, normalize(d)), 0.0), 1.0, wrap);
        c += g.light_colours[i].rgb * att * facing;
    }
    return c;
}

// Pixels from the target's centre (y up) of a clip-space point.
fn to_px(c: vec4<f32>) -> vec2<f32> {
    return c.xy / c.w * 0.5 * g.viewport.xy;
}

// The clip-space point at pixel offset `px` from the centre, at the depth of `c`.
fn from_px(px: vec2<f32>, c: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(px / (0.5 * g.viewport.xy) * c.w, c.z, c.w);
}
