//! Render plumbing shared by the renderers: the depth format, line vertices, uniform buffers,
//! the render-pipeline builder and one-shot uploads.

/// The depth format of the renderers that test depth.
pub const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// One vertex of the scenery lines (ground grid, range markers).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LineVertex {
    /// Position, metres.
    pub position: [f32; 3],
    /// Linear RGBA (alpha blended).
    pub colour: [f32; 4],
}

/// The vertex attributes of a [`LineVertex`].
pub const LINE_ATTRIBUTES: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4];

/// The vertex buffer layout of a line list of [`LineVertex`]es.
pub fn line_buffer_layout() -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: std::mem::size_of::<LineVertex>() as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &LINE_ATTRIBUTES,
    }
}

/// A uniform buffer at `binding`, visible to both stages.
pub fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A renderer's uniform block (bound as group 0, visible to both stages).
pub struct Uniforms {
    /// The buffer; write it with `queue.write_buffer`.
    pub buffer: wgpu::Buffer,
    /// Its bind group layout.
    pub layout: wgpu::BindGroupLayout,
    /// Its bind group.
    pub bind: wgpu::BindGroup,
}

impl Uniforms {
    /// A uniform buffer of `size` bytes with its layout and bind group.
    pub fn new(device: &wgpu::Device, label: &str, size: u64) -> Self {
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(label),
            entries: &[uniform_entry(0)],
        });
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        });
        Self {
            buffer,
            layout,
            bind,
        }
    }
}

/// How a pipeline uses the pass's [`DEPTH`] buffer (see [`PipelineSpec::depth`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthUse {
    /// Hidden behind nearer surfaces; `false`: drawn over everything (the sky, overlays).
    pub test: bool,
    /// Writes its depth.
    pub write: bool,
}

/// How [`render_pipeline`] builds one pipeline.
pub struct PipelineSpec<'a> {
    /// Label (`examples:...`).
    pub label: &'a str,
    /// The pipeline layout.
    pub layout: &'a wgpu::PipelineLayout,
    /// Vertex entry point.
    pub vs: &'a str,
    /// Vertex buffers.
    pub buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    /// Fragment entry point.
    pub fs: &'a str,
    /// The colour target's format; `None`: no fragment stage (a depth-only pass).
    pub format: Option<wgpu::TextureFormat>,
    /// Blending.
    pub blend: wgpu::BlendState,
    /// Primitive topology.
    pub topology: wgpu::PrimitiveTopology,
    /// How the pipeline uses the pass's [`DEPTH`] buffer; `None`: the pass has none.
    pub depth: Option<DepthUse>,
    /// Which faces to cull (counter-clockwise faces are front faces).
    pub cull: Option<wgpu::Face>,
}

/// A render pipeline from `module` as `spec` says; one colour target.
pub fn render_pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    spec: &PipelineSpec<'_>,
) -> wgpu::RenderPipeline {
    let targets = spec.format.map(|format| {
        [Some(wgpu::ColorTargetState {
            format,
            blend: Some(spec.blend),
            write_mask: wgpu::ColorWrites::ALL,
        })]
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(spec.label),
        layout: Some(spec.layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(spec.vs),
            compilation_options: Default::default(),
            buffers: spec.buffers,
        },
        primitive: wgpu::PrimitiveState {
            topology: spec.topology,
            cull_mode: spec.cull,
            ..Default::default()
        },
        depth_stencil: spec.depth.map(|depth| wgpu::DepthStencilState {
            format: DEPTH,
            depth_write_enabled: Some(depth.write),
            depth_compare: Some(if depth.test {
                wgpu::CompareFunction::LessEqual
            } else {
                wgpu::CompareFunction::Always
            }),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }),
        multisample: wgpu::MultisampleState::default(),
        fragment: targets.as_ref().map(|targets| wgpu::FragmentState {
            module,
            entry_point: Some(spec.fs),
            compilation_options: Default::default(),
            targets,
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// Uploads `items` into a buffer of `usage` (plus `COPY_DST`), reusing `old` when it is big
/// enough; `None` when `items` is empty. Returns the buffer and the item count.
pub fn upload<T: bytemuck::Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    usage: wgpu::BufferUsages,
    items: &[T],
    old: Option<(wgpu::Buffer, u32)>,
) -> Option<(wgpu::Buffer, u32)> {
    if items.is_empty() {
        return None;
    }
    let bytes: &[u8] = bytemuck::cast_slice(items);
    let buffer = match old {
        Some((b, _)) if b.size() >= bytes.len() as u64 && b.usage().contains(usage) => b,
        _ => device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.len() as u64,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        }),
    };
    queue.write_buffer(&buffer, 0, bytes);
    Some((buffer, items.len() as u32))
}
