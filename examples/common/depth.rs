//! What the renderers with a depth buffer share (`aggregate`, `rigid` and `fx`; the particle
//! sprites of `particles` draw without one): the depth target, and the layout entry of an
//! engine buffer that their vertex shaders read. A family declares this module itself
//! (`#[path = "../depth.rs"] mod depth;`), so an example without depth does not compile it.

use crate::common::DEPTH;

/// A [`DEPTH`] texture of `width` x `height` to render into (and use as `extra` says).
pub fn depth_texture(
    device: &wgpu::Device,
    label: &str,
    width: u32,
    height: u32,
    extra: wgpu::TextureUsages,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: width.max(1),
            height: height.max(1),
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: DEPTH,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | extra,
        view_formats: &[],
    })
}

/// A read-only storage buffer at `binding`, visible to the vertex stage (the engine's buffers
/// a renderer draws from).
pub fn vertex_storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}
