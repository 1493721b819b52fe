// Collision with the renderer's depth buffer (screen space): a particle in view that has gone
// behind what was drawn, by less than the thickness, is pushed back onto the drawn surface and
// bounces with restitution and friction (resolve_contact, as against a collider), or dies when
// the collider says so. The surface under the particle is the plane through the depth texel it
// projects to, with the normal from the texels to its right and below: exact for a drawn plane,
// an approximation at edges where the neighbours belong to another surface.
// CPU twin: src/particles/depth.rs `depth_contact`, the same operations.

/// The depth collider (src/particles/depth.rs `GpuDepth`): 160 bytes.
struct DepthParams {
    view_proj: mat4x4<f32>,
    inv_view_proj: mat4x4<f32>,
    restitution: f32,
    friction: f32,
    thickness: f32,
    /// 1: on; 2: particles die on contact.
    flags: u32,
    size: vec2<u32>,
    _pad: vec2<u32>,
}

fn depth_unproject(ndc: vec2<f32>, d: f32) -> vec3<f32> {
    let w = depth.inv_view_proj * vec4<f32>(ndc, d, 1.0);
    return w.xyz / w.w;
}

/// The depth texture is bound as an unfilterable float texture (WebGPU lets a depth view be
/// bound so), which every backend can `textureLoad`; GLSL has no plain load from a depth
/// texture type.
fn depth_texel(px: vec2<i32>) -> f32 {
    return textureLoad(depth_tex, px, 0).x;
}

/// (outward normal, penetration) of a sphere of radius `r` at `p` against the drawn surface
/// (negative: the gap, so a resting particle within the world's contact slop still counts as
/// touching, as against a collider); -1e30 when no surface is there.
fn depth_contact(p: vec3<f32>, r: f32) -> vec4<f32> {
    let none = vec4<f32>(0.0, 0.0, 0.0, -1.0e30);
    let clip = depth.view_proj * vec4<f32>(p, 1.0);
    if (clip.w <= 0.0) {
        return none;
    }
    let ndc = clip.xyz / clip.w;
    if (any(abs(ndc.xy) >= vec2<f32>(1.0)) || ndc.z < 0.0 || ndc.z > 1.0) {
        return none;
    }
    let size = vec2<f32>(depth.size);
    let px = vec2<i32>(floor(vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5) * size));
    // The normal needs the texels to the right and below.
    if (any(px < vec2<i32>(0)) || any(px + vec2<i32>(1) >= vec2<i32>(depth.size))) {
        return none;
    }
    let ds = depth_texel(px);
    if (ds >= 1.0) {
        return none; // nothing drawn there (the far plane)
    }
    let uv = (vec2<f32>(px) + vec2<f32>(0.5)) / size;
    let c = vec2<f32>(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0);
    let s = depth_unproject(c, ds);
    let sx = depth_unproject(c + vec2<f32>(2.0 / size.x, 0.0), depth_texel(px + vec2<i32>(1, 0)));
    let sy = depth_unproject(c - vec2<f32>(0.0, 2.0 / size.y), depth_texel(px + vec2<i32>(0, 1)));
    let m = cross(sx - s, sy - s);
    let len = length(m);
    if (!(len > 0.0)) {
        return none;
    }
    var n = m / len;
    // Towards the camera (the near plane along the same ray).
    if (dot(n, depth_unproject(c, 0.0) - s) < 0.0) {
        n = -n;
    }
    let pen = dot(s - p, n) + r;
    if (pen > depth.thickness + r) {
        return none; // well behind the surface: hidden, not touching
    }
    return vec4<f32>(n, pen);
}
