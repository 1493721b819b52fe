//! [`RigidProgram`]: the rigid shader module compiled once, with a group-0 layout per distinct
//! set of bindings its entry points use and the pipelines made from it.

use super::*;

fn layout_entry(b: &BindingDecl) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding: b.index,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: if b.space == "uniform" {
                wgpu::BufferBindingType::Uniform
            } else {
                wgpu::BufferBindingType::Storage {
                    read_only: b.space == RO,
                }
            },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

impl RigidProgram {
    /// Parses the rigid shader and creates a group-0 layout per distinct set of bindings its
    /// entry points use.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the engine's WGSL does not validate (an engine bug).
    pub fn new(ctx: &GpuContext) -> Result<Self> {
        let device = &ctx.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgphys:shader:rigid"),
            source: wgpu::ShaderSource::Wgsl(shader_source().into()),
        });
        let layout1 = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wgphys:bind_group_layout:rigid_pass"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: wgpu::BufferSize::new(size_of::<GpuPass>() as u64),
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let mut classes: Vec<LayoutClass> = Vec::new();
        let mut class_of = HashMap::new();
        for (entry, bindings) in entry_bindings()? {
            let class = match classes.iter().position(|c| c.bindings == *bindings) {
                Some(c) => c,
                None => {
                    let entries: Vec<wgpu::BindGroupLayoutEntry> = BINDINGS
                        .iter()
                        .filter(|b| bindings.contains(&b.index))
                        .map(layout_entry)
                        .collect();
                    let layout0 =
                        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                            label: Some("wgphys:bind_group_layout:rigid"),
                            entries: &entries,
                        });
                    let pipeline_layout =
                        device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                            label: Some("wgphys:pipeline_layout:rigid"),
                            bind_group_layouts: &[Some(&layout0), Some(&layout1)],
                            immediate_size: 0,
                        });
                    classes.push(LayoutClass {
                        bindings: bindings.clone(),
                        layout0,
                        pipeline_layout,
                    });
                    classes.len() - 1
                }
            };
            class_of.insert(entry.as_str(), class);
        }
        Ok(Self {
            module,
            layout1,
            classes,
            class_of,
            pipelines: std::sync::Mutex::new(HashMap::new()),
        })
    }

    /// The layout class of `entry` (0 for a name the shader does not have; creating its
    /// pipeline then fails inside the world's error scope, naming the entry point).
    pub(super) fn class(&self, entry: &str) -> usize {
        self.class_of.get(entry).copied().unwrap_or(0)
    }

    pub(super) fn pipeline(
        &self,
        device: &wgpu::Device,
        entry: &'static str,
    ) -> wgpu::ComputePipeline {
        let mut map = match self.pipelines.lock() {
            Ok(m) => m,
            Err(poisoned) => poisoned.into_inner(),
        };
        let class = self.class(entry);
        map.entry(entry)
            .or_insert_with(|| {
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&format!("wgphys:pipeline:{entry}")),
                    layout: self.classes.get(class).map(|c| &c.pipeline_layout),
                    module: &self.module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
            .clone()
    }
}
