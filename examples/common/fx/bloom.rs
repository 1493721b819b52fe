//! Bloom and tone mapping for the HDR renderer (the WGSL is `bloom.wgsl`): the float16 scene is
//! thresholded into a half-resolution texture (a soft knee, 13-tap filter), blurred down a chain
//! of ever smaller textures (13 taps each) and back up (a 3x3 tent added into the next larger
//! level), and the result is added to the scene, exposed and tone mapped into the output
//! target (ACES, fitted, mostly on the largest channel so that bright colours keep their hue).
//! Everything stays on the GPU; one render pass per level and direction.

use bytemuck::{Pod, Zeroable};

use crate::common::pipeline_layout;

/// The HDR format the scene, the particles and the bloom chain are drawn in.
pub const HDR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

/// Most levels of the chain (the first is half the target's size).
const MAX_LEVELS: usize = 6;

/// How the bloom and the tone map look.
#[derive(Clone, Copy, Debug)]
pub struct BloomLook {
    /// Brightness (the largest channel) above which light blooms.
    pub threshold: f32,
    /// Width of the soft knee below the threshold.
    pub knee: f32,
    /// How much of the blurred light is added back.
    pub strength: f32,
    /// Exposure before the tone map.
    pub exposure: f32,
    /// Radius of the upsampling tent, in texels of the smaller level (1 is the usual).
    pub radius: f32,
}

impl Default for BloomLook {
    fn default() -> Self {
        Self {
            threshold: 0.8,
            knee: 0.5,
            strength: 0.6,
            exposure: 1.0,
            radius: 1.0,
        }
    }
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Params {
    threshold: f32,
    knee: f32,
    strength: f32,
    exposure: f32,
    radius: f32,
    levels: f32,
    _pad: [f32; 2],
}

const SHADER: &str = include_str!("bloom.wgsl");

struct Level {
    view: wgpu::TextureView,
    /// This level as the source of the next pass.
    source: wgpu::BindGroup,
}

/// The bloom chain and the tone map into the output.
pub struct Bloom {
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    params: wgpu::Buffer,
    prefilter: wgpu::RenderPipeline,
    down: wgpu::RenderPipeline,
    up: wgpu::RenderPipeline,
    composite: wgpu::RenderPipeline,
    levels: Vec<Level>,
    hdr_source: Option<wgpu::BindGroup>,
}

impl Bloom {
    /// The pipelines, tone mapping into a target of `output` format. Call
    /// [`Bloom::resize`] before the first frame.
    pub fn new(device: &wgpu::Device, output: wgpu::TextureFormat) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("examples:bloom"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("examples:bloom"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("examples:bloom"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("examples:bloom"),
            size: std::mem::size_of::<Params>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let one = pipeline_layout(device, "examples:bloom", &[&layout]);
        let two = pipeline_layout(device, "examples:bloom-composite", &[&layout, &layout]);
        let pipeline = |label: &str,
                        layout: &wgpu::PipelineLayout,
                        fs: &str,
                        format: wgpu::TextureFormat,
                        blend: Option<wgpu::BlendState>| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let add = wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::One,
            operation: wgpu::BlendOperation::Add,
        };
        Self {
            prefilter: pipeline("examples:bloom-prefilter", &one, "fs_prefilter", HDR, None),
            down: pipeline("examples:bloom-down", &one, "fs_down", HDR, None),
            up: pipeline(
                "examples:bloom-up",
                &one,
                "fs_up",
                HDR,
                Some(wgpu::BlendState {
                    color: add,
                    alpha: add,
                }),
            ),
            composite: pipeline(
                "examples:bloom-composite",
                &two,
                "fs_composite",
                output,
                None,
            ),
            layout,
            sampler,
            params,
            levels: Vec::new(),
            hdr_source: None,
        }
    }

    fn source(&self, device: &wgpu::Device, view: &wgpu::TextureView) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("examples:bloom-source"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: self.params.as_entire_binding(),
                },
            ],
        })
    }

    /// Rebuilds the chain for an HDR scene `hdr` of `width` x `height`.
    pub fn resize(
        &mut self,
        device: &wgpu::Device,
        hdr: &wgpu::TextureView,
        width: u32,
        height: u32,
    ) {
        self.hdr_source = Some(self.source(device, hdr));
        self.levels.clear();
        let (mut w, mut h) = (width.max(2) / 2, height.max(2) / 2);
        while self.levels.len() < MAX_LEVELS && w >= 4 && h >= 4 {
            let view = device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some("examples:bloom-level"),
                    size: wgpu::Extent3d {
                        width: w,
                        height: h,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format: HDR,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                        | wgpu::TextureUsages::TEXTURE_BINDING,
                    view_formats: &[],
                })
                .create_view(&wgpu::TextureViewDescriptor::default());
            let source = self.source(device, &view);
            self.levels.push(Level { view, source });
            w /= 2;
            h /= 2;
        }
    }

    /// Records the chain and the composite of the HDR scene into `target`.
    pub fn render(
        &self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        look: &BloomLook,
    ) {
        let (Some(hdr), Some(top)) = (&self.hdr_source, self.levels.first()) else {
            return;
        };
        let params = Params {
            threshold: look.threshold,
            knee: look.knee.max(1e-3),
            strength: look.strength,
            exposure: look.exposure,
            radius: look.radius,
            levels: self.levels.len() as f32,
            _pad: [0.0; 2],
        };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        let pass = |encoder: &mut wgpu::CommandEncoder,
                    label: &str,
                    view: &wgpu::TextureView,
                    load: wgpu::LoadOp<wgpu::Color>,
                    pipeline: &wgpu::RenderPipeline,
                    sources: &[&wgpu::BindGroup]| {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some(label),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(pipeline);
            for (i, s) in sources.iter().enumerate() {
                pass.set_bind_group(i as u32, *s, &[]);
            }
            pass.draw(0..3, 0..1);
        };
        let clear = wgpu::LoadOp::Clear(wgpu::Color::BLACK);
        pass(
            encoder,
            "examples:bloom-prefilter",
            &top.view,
            clear,
            &self.prefilter,
            &[hdr],
        );
        for pair in self.levels.windows(2) {
            pass(
                encoder,
                "examples:bloom-down",
                &pair[1].view,
                clear,
                &self.down,
                &[&pair[0].source],
            );
        }
        for pair in self.levels.windows(2).rev() {
            pass(
                encoder,
                "examples:bloom-up",
                &pair[0].view,
                wgpu::LoadOp::Load,
                &self.up,
                &[&pair[1].source],
            );
        }
        pass(
            encoder,
            "examples:bloom-composite",
            target,
            clear,
            &self.composite,
            &[hdr, &top.source],
        );
    }
}
