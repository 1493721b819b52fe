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

    /// The pipeline of `entry` in `variant` (its [`Variant`] bits set the WGSL overrides),
    /// compiled on first use.
    pub(super) fn pipeline(
        &self,
        device: &wgpu::Device,
        entry: &'static str,
        variant: u8,
    ) -> wgpu::ComputePipeline {
        let mut map = match self.pipelines.lock() {
            Ok(m) => m,
            Err(poisoned) => poisoned.into_inner(),
        };
        let class = self.class(entry);
        let on = |bit: u8| if variant & bit != 0 { 1.0 } else { 0.0 };
        let constants = [
            ("SOLVE_JOINTS", on(Variant::JOINTS)),
            ("CCD_CONVEX", on(Variant::CCD_CONVEX)),
            ("CCD_LEVEL", on(Variant::CCD_LEVEL)),
        ];
        map.entry((entry, variant))
            .or_insert_with(|| {
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&format!("wgphys:pipeline:{entry}")),
                    layout: self.classes.get(class).map(|c| &c.pipeline_layout),
                    module: &self.module,
                    entry_point: Some(entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        ..Default::default()
                    },
                    cache: None,
                })
            })
            .clone()
    }
}

/// The bits of a pipeline variant: which optional code the rigid kernels are compiled with
/// (pipeline-overridable constants, so a world without joints or convex sweeps runs kernels
/// without their code; the results are the same bits either way when the feature is unused).
pub(crate) struct Variant;

impl Variant {
    /// The velocity sweeps' joint rows (WGSL `SOLVE_JOINTS`).
    pub(crate) const JOINTS: u8 = 1;
    /// The ccd stage's conservative advancement (WGSL `CCD_CONVEX`).
    pub(crate) const CCD_CONVEX: u8 = 2;
    /// The ccd stage's sweeps against level geometry (WGSL `CCD_LEVEL`): only worlds holding
    /// triangle meshes or heightfields step with it. It is not part of [`Self::ALL`] (the
    /// passes recorded one by one, and one of the variants `precompile` compiles for every
    /// world); `precompile` compiles it through the world's own variant.
    pub(crate) const CCD_LEVEL: u8 = 4;
    /// Every optional part but [`Self::CCD_LEVEL`].
    pub(crate) const ALL: u8 = Self::JOINTS | Self::CCD_CONVEX;

    /// The variant a step of `shape` needs.
    pub(crate) fn of(shape: &crate::rigid::step::StepShape) -> u8 {
        let mut v = 0;
        if shape.joints > 0 {
            v |= Self::JOINTS;
        }
        if shape.ccd_convex {
            v |= Self::CCD_CONVEX;
        }
        if shape.level {
            v |= Self::CCD_LEVEL;
        }
        v
    }
}
