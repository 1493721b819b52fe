// The FX renderer's static scene (fx/scene.rs): a sky with stars, lit boxes with windows, and
// fogged lines. Compiled after globals.wgsl (fx/wgsl.rs).

struct SkyOut {
    @builtin(position) pos: vec4<f32>,
};

@vertex
fn vs_sky(@builtin(vertex_index) vi: u32) -> SkyOut {
    let t = vec2<f32>(f32((vi << 1u) & 2u), f32(vi & 2u));
    return SkyOut(vec4<f32>(t * 2.0 - 1.0, 1.0, 1.0));
}

fn hash2(p: vec2<f32>) -> f32 {
    let q = fract(p * vec2<f32>(0.1031, 0.1030));
    let r = q + dot(q, q.yx + 33.33);
    return fract((r.x + r.y) * r.x);
}

@fragment
fn fs_sky(in: SkyOut) -> @location(0) vec4<f32> {
    let ndc = vec2<f32>(in.pos.x / g.viewport.x * 2.0 - 1.0, 1.0 - in.pos.y / g.viewport.y * 2.0);
    let far = g.inv_view_proj * vec4<f32>(ndc, 1.0, 1.0);
    let dir = normalize(far.xyz / far.w - g.eye.xyz);
    let up = clamp(dir.y, 0.0, 1.0);
    var c = mix(g.sky_horizon.rgb, g.sky_top.rgb, sqrt(up));
    // Stars on a grid of directions; a few cells hold one, twinkling slowly.
    let cell_size = 0.004;
    let uv = vec2<f32>(atan2(dir.z, dir.x), asin(clamp(dir.y, -1.0, 1.0))) / cell_size;
    let id = floor(uv);
    let h = hash2(id);
    if (h > 0.985) {
        let f = fract(uv) - vec2<f32>(0.5);
        let twinkle = 0.7 + 0.3 * sin(g.eye.w * (1.0 + 3.0 * h) + h * 100.0);
        let b = exp(-dot(f, f) * 30.0) * fract(h * 91.0) * twinkle;
        c += vec3<f32>(0.8, 0.85, 1.0) * b * g.sky_top.w * smoothstep(0.02, 0.25, dir.y);
    }
    return vec4<f32>(c, 1.0);
}

struct MeshOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) colour: vec4<f32>,
};

@vertex
fn vs_mesh(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>,
           @location(2) colour: vec4<f32>) -> MeshOut {
    return MeshOut(g.view_proj * vec4<f32>(position, 1.0), position, normal, colour);
}

fn fogged(c: vec3<f32>, p: vec3<f32>) -> vec3<f32> {
    let d = length(p - g.eye.xyz);
    return mix(c, g.sky_horizon.rgb, 1.0 - exp(-d * g.sky_horizon.w));
}

@fragment
fn fs_mesh(in: MeshOut) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    var c = in.colour.rgb * lighting(in.world, n, 0.0);
    // Windows: cells of 1.6 m x 2.2 m on the vertical faces, some of them lit.
    if (in.colour.a > 0.0 && abs(n.y) < 0.5) {
        let u = select(in.world.z, in.world.x, abs(n.z) > 0.5) / 1.6;
        let v = in.world.y / 2.2;
        let f = fract(vec2<f32>(u, v));
        let cell = floor(vec2<f32>(u, v)) + n.xz * 37.0;
        let h = hash2(cell);
        if (f.x > 0.25 && f.x < 0.75 && f.y > 0.3 && f.y < 0.75 && v > 0.5 && h < in.colour.a) {
            c += vec3<f32>(1.0, 0.62, 0.3) * (0.25 + 0.5 * fract(h * 57.0));
        }
    }
    return vec4<f32>(fogged(c, in.world), 1.0);
}

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
    @location(1) world: vec3<f32>,
};

@vertex
fn vs_line(@location(0) position: vec3<f32>, @location(1) colour: vec4<f32>) -> LineOut {
    return LineOut(g.view_proj * vec4<f32>(position, 1.0), colour, position);
}

@fragment
fn fs_line(in: LineOut) -> @location(0) vec4<f32> {
    return vec4<f32>(fogged(in.colour.rgb, in.world), in.colour.a);
}
