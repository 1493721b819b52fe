// The streaming kernel of `stream_probe` and `bench --probe-after` (stream.rs): the particle
// cloud's bytes through one dispatch, and a fill with values that differ element by element.

struct Params { n: u32, dt: f32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<storage, read_write> pos: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> vel: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> acc: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> col: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> life: array<f32>;
@group(0) @binding(5) var<storage, read_write> flags: array<u32>;
@group(0) @binding(6) var<uniform> p: Params;

@compute @workgroup_size(256)
fn stream(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if (i >= p.n) {
        return;
    }
    let v = vel[i] + acc[i] * p.dt;
    pos[i] = pos[i] + v * p.dt;
    vel[i] = v;
    col[i] = col[i] * 0.999 + vec4<f32>(life[i]);
    flags[i] = u32(life[i]) + 1u;
}

fn hash(x: u32) -> u32 {
    var h = x * 747796405u + 2891336453u;
    h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
    return (h >> 22u) ^ h;
}

fn unit(i: u32, k: u32) -> f32 {
    return f32(hash(i * 17u + k) >> 8u) / 16777216.0 - 0.5;
}

// `--fill random`: values that do not compress (every element differs).
@compute @workgroup_size(256)
fn fill(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if (i >= p.n) {
        return;
    }
    pos[i] = vec4<f32>(unit(i, 0u), unit(i, 1u), unit(i, 2u), 1.0) * 100.0;
    vel[i] = vec4<f32>(unit(i, 3u), unit(i, 4u), unit(i, 5u), 0.0) * 10.0;
    acc[i] = vec4<f32>(unit(i, 6u), unit(i, 7u), unit(i, 8u), 0.0);
    col[i] = vec4<f32>(unit(i, 9u), unit(i, 10u), unit(i, 11u), unit(i, 12u));
    life[i] = unit(i, 13u) * 1000.0;
    flags[i] = hash(i + 99u);
}
