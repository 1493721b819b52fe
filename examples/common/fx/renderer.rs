//! [`FxRenderer`]: targets, the scene, the particle layers and the bloom of a frame, and the
//! looks that drive them ([`Look`], [`SpriteLook`], [`Light`]).

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4};
use wgphys::particles::ParticleWorld;

use super::bloom::{Bloom, BloomLook, HDR};
use super::depth::depth_texture;
use super::scene::{Scene, SceneRenderer};
use super::sprites::Sprites;
use crate::common::{uniform_entry, OrbitCamera, Uniforms};

/// Lights a frame may hold (the brightest are kept).
pub const MAX_LIGHTS: usize = 8;

/// The uniform block of `globals.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Globals {
    view_proj: Mat4,
    inv_view_proj: Mat4,
    eye: Vec4,
    viewport: Vec4,
    depth: Vec4,
    sky_top: Vec4,
    sky_horizon: Vec4,
    ambient: Vec4,
    lights: [Vec4; MAX_LIGHTS],
    light_colours: [Vec4; MAX_LIGHTS],
}

/// The look of a frame: sky, fog, ambient light, bloom.
#[derive(Clone, Copy, Debug)]
pub struct Look {
    /// Sky colour at the zenith (linear).
    pub sky_top: Vec3,
    /// Sky colour at the horizon, also the fog's colour.
    pub sky_horizon: Vec3,
    /// Brightness of the stars (0: none).
    pub stars: f32,
    /// Fog density, 1/m.
    pub fog: f32,
    /// Ambient light on the scene and the smoke.
    pub ambient: Vec3,
    /// Bloom and tone map.
    pub bloom: BloomLook,
}

/// A point light on the scene and the smoke (a burst, a grinder).
#[derive(Clone, Copy, Debug)]
pub struct Light {
    /// Where, metres.
    pub position: Vec3,
    /// Colour times intensity (linear).
    pub colour: Vec3,
    /// Distance at which it has fallen to half, metres.
    pub range: f32,
}

/// How a layer is blended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blend {
    /// Added into the target in any order (sparks, rain).
    Additive,
    /// Alpha-blended (premultiplied), back to front in the engine's view order
    /// ([`ParticleWorld::set_view_sort`]; in slot order while it has none): smoke.
    Sorted,
}

/// Ribbons drawn through the engine's trails ([`wgphys::particles::RenderBuffers::trails`]).
#[derive(Clone, Copy, Debug)]
pub struct RibbonLook {
    /// Half-width at the head, as a multiple of the particle's radius.
    pub width: f32,
    /// Smallest half-width, pixels.
    pub min_px: f32,
    /// Brightness.
    pub intensity: f32,
}

/// How a layer's particles are drawn.
#[derive(Clone, Copy, Debug)]
pub struct SpriteLook {
    /// Additive or sorted alpha.
    pub blend: Blend,
    /// Sprite radius as a multiple of the particle radius.
    pub glow: f32,
    /// Smallest sprite radius, pixels.
    pub min_px: f32,
    /// Brightness (additive) or opacity (sorted).
    pub intensity: f32,
    /// Soft particles: the sprite fades over this distance (m) in front of the scene's
    /// surface; 0 only hides what is behind it.
    pub soft: f32,
    /// Stretch along the velocity: the sprite covers where the particle was this many
    /// seconds ago (0: round sprites).
    pub stretch: f32,
    /// Longest stretch, pixels.
    pub stretch_max_px: f32,
    /// How much the frame's lights colour it (0: emissive, 1: lit, like smoke).
    pub lit: f32,
    /// Ribbons through the trails, when the world keeps them.
    pub ribbon: Option<RibbonLook>,
}

impl Default for SpriteLook {
    fn default() -> Self {
        Self {
            blend: Blend::Additive,
            glow: 2.0,
            min_px: 1.5,
            intensity: 1.0,
            soft: 0.3,
            stretch: 0.0,
            stretch_max_px: 64.0,
            lit: 0.0,
            ribbon: None,
        }
    }
}

/// A world drawn one way.
pub struct Layer<'a> {
    /// The world (a GPU world; a CPU world draws nothing).
    pub world: &'a ParticleWorld,
    /// How.
    pub look: SpriteLook,
}

/// The distance along the view of a depth-buffer value z is `b / (z + a)`; returns (a, b).
fn depth_params(view_proj: Mat4, eye: Vec3, forward: Vec3) -> (f32, f32) {
    let b = (view_proj * eye.extend(1.0)).z;
    let a = b - (view_proj * (eye + forward).extend(1.0)).z;
    (a, b)
}

/// The renderer: targets, the scene, the particle layers and the bloom.
pub struct FxRenderer {
    /// The uniform block; its bind group is group 0 of the scene pass.
    globals: Uniforms,
    /// Group 0 of the particle pass: the uniform block and the scene's depth.
    particle_layout: wgpu::BindGroupLayout,
    particle_bind: wgpu::BindGroup,
    hdr: wgpu::TextureView,
    depth_texture: wgpu::Texture,
    depth: wgpu::TextureView,
    scene: SceneRenderer,
    sprites: Sprites,
    bloom: Bloom,
    width: u32,
    height: u32,
    /// The look; change it freely between frames.
    pub look: Look,
}

/// The HDR colour target and the depth buffer of `width` x `height`.
fn targets(
    device: &wgpu::Device,
    width: u32,
    height: u32,
) -> (wgpu::TextureView, wgpu::Texture, wgpu::TextureView) {
    let hdr = device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("examples:hdr"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: HDR,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
        .create_view(&Default::default());
    let depth = depth_texture(
        device,
        "examples:fx-depth",
        width,
        height,
        wgpu::TextureUsages::TEXTURE_BINDING,
    );
    let depth_view = depth.create_view(&Default::default());
    (hdr, depth, depth_view)
}

impl FxRenderer {
    /// Builds the pipelines for an `output` target of `width` x `height`, and uploads the
    /// static `scene`.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        output: wgpu::TextureFormat,
        width: u32,
        height: u32,
        look: Look,
        scene: &Scene,
    ) -> Self {
        let (width, height) = (width.max(1), height.max(1));
        let globals = Uniforms::new(
            device,
            "examples:fx-globals",
            std::mem::size_of::<Globals>() as u64,
        );
        let particle_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("examples:fx-particles"),
            entries: &[
                uniform_entry(0),
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
            ],
        });
        let (hdr, depth_texture, depth) = targets(device, width, height);
        let particle_bind = Self::particle_bind(device, &particle_layout, &globals.buffer, &depth);
        let mut bloom = Bloom::new(device, output);
        bloom.resize(device, &hdr, width, height);
        Self {
            scene: SceneRenderer::new(device, queue, &globals.layout, scene),
            sprites: Sprites::new(device, &particle_layout),
            globals,
            particle_layout,
            particle_bind,
            hdr,
            depth_texture,
            depth,
            bloom,
            width,
            height,
            look,
        }
    }

    fn particle_bind(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        globals: &wgpu::Buffer,
        depth: &wgpu::TextureView,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("examples:fx-particles"),
            layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: globals.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(depth),
                },
            ],
        })
    }

    /// Matches a new target size (new HDR, depth and bloom textures).
    pub fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        self.width = width.max(1);
        self.height = height.max(1);
        let (hdr, depth_texture, depth) = targets(device, self.width, self.height);
        self.particle_bind =
            Self::particle_bind(device, &self.particle_layout, &self.globals.buffer, &depth);
        self.bloom.resize(device, &hdr, self.width, self.height);
        self.hdr = hdr;
        self.depth_texture = depth_texture;
        self.depth = depth;
    }

    /// The scene's depth buffer (`Depth32Float`, `TEXTURE_BINDING`), as the last frame left
    /// it: what [`ParticleWorld::set_depth_collider`] takes. It is replaced on resize.
    pub fn depth_texture(&self) -> &wgpu::Texture {
        &self.depth_texture
    }

    /// The view-projection of `camera` on this target.
    pub fn view_proj(&self, camera: &OrbitCamera) -> Mat4 {
        camera.view_proj(self.width as f32 / self.height as f32)
    }

    /// Records a frame: the scene, `layers` in order, bloom and tone map into `target`.
    /// `lights` light the scene and lit layers (the first [`MAX_LIGHTS`]); `time` animates
    /// the sky.
    #[allow(clippy::too_many_arguments)]
    pub fn render(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        camera: &OrbitCamera,
        layers: &[Layer<'_>],
        lights: &[Light],
        time: f32,
    ) {
        let (w, h) = (self.width as f32, self.height as f32);
        let view_proj = self.view_proj(camera);
        let eye = camera.eye();
        let forward = (camera.target - eye).normalize_or(Vec3::NEG_Z);
        let (a, b) = depth_params(view_proj, eye, forward);
        let l = &self.look;
        let mut globals = Globals {
            view_proj,
            inv_view_proj: view_proj.inverse(),
            eye: eye.extend(time),
            viewport: Vec4::new(w, h, 0.5 * h / (0.5 * camera.fov_y).tan(), 0.0),
            depth: Vec4::new(a, b, 0.0, 0.0),
            sky_top: l.sky_top.extend(l.stars),
            sky_horizon: l.sky_horizon.extend(l.fog),
            ambient: l.ambient.extend(lights.len().min(MAX_LIGHTS) as f32),
            lights: [Vec4::ZERO; MAX_LIGHTS],
            light_colours: [Vec4::ZERO; MAX_LIGHTS],
        };
        for (i, light) in lights.iter().take(MAX_LIGHTS).enumerate() {
            globals.lights[i] = light.position.extend(light.range.max(1e-3));
            globals.light_colours[i] = light.colour.extend(0.0);
        }
        queue.write_buffer(&self.globals.buffer, 0, bytemuck::bytes_of(&globals));
        self.sprites.prepare(device, queue, encoder, layers);

        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("examples:fx-scene"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.hdr,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            self.scene.draw(&mut pass, &self.globals.bind);
        }
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("examples:fx-particles"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.hdr,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            self.sprites.draw(&mut pass, &self.particle_bind, layers);
        }
        self.bloom.render(queue, encoder, target, &self.look.bloom);
    }
}
