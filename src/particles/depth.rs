//! Collision with the renderer's depth buffer (issue 12.4): the description, its checks, the
//! uniform record and the CPU twin of `shaders/particles/depth.wgsl`.

use crate::error::{Error, Result};
use crate::gpu::layout::gpu_struct;
use crate::rounding as fm;
use bytemuck::{Pod, Zeroable};
use glam::{IVec2, Mat4, Vec2, Vec3, Vec4, Vec4Swizzles};

/// Where the depth comes from: the renderer's texture on the GPU, its values on the CPU.
#[derive(Clone, Debug)]
pub enum DepthSource {
    /// A `Depth32Float` texture with `TEXTURE_BINDING` usage and one sample, on the world's
    /// device (a GPU world).
    Texture(wgpu::Texture),
    /// The same depths on the host, row by row from the top (a CPU world).
    Image(DepthImage),
}

/// Depth values in [0, 1] (WebGPU's range), `width × height`, rows from the top.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthImage {
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `width · height` depths.
    pub depth: Vec<f32>,
}

/// Particles in view collide with what the renderer drew into `source` with `view_proj`.
#[derive(Clone, Debug)]
pub struct DepthCollider {
    /// The depth buffer.
    pub source: DepthSource,
    /// The view-projection the depth was drawn with (clip depth in [0, 1]).
    pub view_proj: Mat4,
    /// Coefficient of restitution, [0, 1].
    pub restitution: f32,
    /// Coulomb friction coefficient, >= 0.
    pub friction: f32,
    /// How far behind the drawn surface a particle still collides, metres (> 0): farther back
    /// it counts as hidden behind the surface, not touching it. About a step's travel.
    pub thickness: f32,
    /// Particles die on contact (rain that vanishes where it lands).
    pub kill: bool,
}

gpu_struct! {
    /// The uniform record of the depth collider. 160 bytes.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuDepth as "DepthParams" {
        /// View-projection.
        pub view_proj: Mat4,
        /// Its inverse.
        pub inv_view_proj: Mat4,
        /// Restitution.
        pub restitution: f32,
        /// Friction.
        pub friction: f32,
        /// Thickness, metres.
        pub thickness: f32,
        /// 1: on; 2: kill on contact.
        pub flags: u32,
        /// Texels (width, height).
        pub size: [u32; 2],
        /// Padding.
        pub _pad: [u32; 2],
    }
}

impl DepthCollider {
    /// The uniform record for a depth buffer of `size` texels (checked).
    pub(crate) fn to_gpu(&self, size: [u32; 2]) -> Result<GpuDepth> {
        let bad = |what, value: String, fix| Error::InvalidInput { what, value, fix };
        if !self.view_proj.is_finite() || self.view_proj.determinant().abs() < f32::MIN_POSITIVE {
            return Err(bad(
                "depth_collider.view_proj",
                format!("{:?}", self.view_proj),
                "pass the finite, invertible view-projection the depth was drawn with",
            ));
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(bad(
                "depth_collider.restitution",
                format!("{}", self.restitution),
                "pass a coefficient of restitution in [0, 1]",
            ));
        }
        crate::error::non_negative("depth_collider.friction", self.friction)?;
        crate::error::positive("depth_collider.thickness", self.thickness)?;
        if size[0] < 2 || size[1] < 2 {
            return Err(bad(
                "depth_collider.source",
                format!("{}x{} texels", size[0], size[1]),
                "pass a depth buffer of at least 2x2 texels",
            ));
        }
        Ok(GpuDepth {
            view_proj: self.view_proj,
            inv_view_proj: self.view_proj.inverse(),
            restitution: self.restitution,
            friction: self.friction,
            thickness: self.thickness,
            flags: 1 | (u32::from(self.kill) << 1),
            size,
            _pad: [0; 2],
        })
    }
}

/// Checks a GPU depth texture: its format, usage and sample count.
pub(crate) fn check_texture(t: &wgpu::Texture) -> Result<[u32; 2]> {
    let bad = |value: String, fix| Error::InvalidInput {
        what: "depth_collider.source",
        value,
        fix,
    };
    if t.format() != wgpu::TextureFormat::Depth32Float {
        return Err(bad(
            format!("a {:?} texture", t.format()),
            "draw the depth into a Depth32Float texture (or copy it into one)",
        ));
    }
    if !t.usage().contains(wgpu::TextureUsages::TEXTURE_BINDING) {
        return Err(bad(
            format!("usage {:?}", t.usage()),
            "create the depth texture with TextureUsages::TEXTURE_BINDING",
        ));
    }
    if t.sample_count() != 1 || t.dimension() != wgpu::TextureDimension::D2 {
        return Err(bad(
            format!("{} samples, {:?}", t.sample_count(), t.dimension()),
            "pass a single-sampled 2D depth texture (resolve a multisampled one first)",
        ));
    }
    Ok([t.width(), t.height()])
}

fn unproject(d: &GpuDepth, ndc: Vec2, z: f32) -> Vec3 {
    let w = fm::mat4_mul(d.inv_view_proj, Vec4::new(ndc.x, ndc.y, z, 1.0));
    fm::div3(w.xyz(), w.w)
}

/// (outward normal, penetration) of a sphere of radius `r` at `p` against the drawn surface
/// in `image` (negative: the gap); -1e30 when no surface is there (the CPU twin of
/// `depth_contact`).
pub fn depth_contact(d: &GpuDepth, image: &DepthImage, p: Vec3, r: f32) -> Vec4 {
    let none = Vec4::new(0.0, 0.0, 0.0, -1.0e30);
    let clip = fm::mat4_mul(d.view_proj, p.extend(1.0));
    if clip.w <= 0.0 {
        return none;
    }
    let ndc = fm::div3(clip.xyz(), clip.w);
    if ndc.x.abs() >= 1.0 || ndc.y.abs() >= 1.0 || ndc.z < 0.0 || ndc.z > 1.0 {
        return none;
    }
    let size = Vec2::new(d.size[0] as f32, d.size[1] as f32);
    let px = (Vec2::new(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5) * size)
        .floor()
        .as_ivec2();
    let (w, h) = (d.size[0] as i32, d.size[1] as i32);
    if px.x < 0 || px.y < 0 || px.x + 1 >= w || px.y + 1 >= h {
        return none;
    }
    let texel = |q: IVec2| {
        image
            .depth
            .get((q.y * w + q.x) as usize)
            .copied()
            .unwrap_or(1.0)
    };
    let ds = texel(px);
    if ds >= 1.0 {
        return none;
    }
    let uv = (px.as_vec2() + Vec2::splat(0.5)) / size;
    let c = Vec2::new(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0);
    let s = unproject(d, c, ds);
    let sx = unproject(
        d,
        c + Vec2::new(2.0 / size.x, 0.0),
        texel(px + IVec2::new(1, 0)),
    );
    let sy = unproject(
        d,
        c - Vec2::new(0.0, 2.0 / size.y),
        texel(px + IVec2::new(0, 1)),
    );
    let m = fm::cross(sx - s, sy - s);
    let len = fm::length(m);
    if len.is_nan() || len <= 0.0 {
        return none;
    }
    let mut n = fm::div3(m, len);
    if fm::dot(n, unproject(d, c, 0.0) - s) < 0.0 {
        n = -n;
    }
    let pen = fm::dot(s - p, n) + r;
    if pen > d.thickness + r {
        return none;
    }
    n.extend(pen)
}
