//! The kernel helper: one compute pipeline per WGSL entry point, a bind group built from named
//! bindings, and dispatch in a labelled pass.

/// How a kernel is launched.
#[derive(Clone, Copy, Debug)]
pub enum Dispatch<'a> {
    /// A fixed workgroup count.
    Direct(u32),
    /// Workgroup count read from `buffer` at byte `offset` (three u32s) on the GPU.
    Indirect(&'a wgpu::Buffer, u64),
}

/// A compiled entry point and the bind group that feeds it.
#[derive(Debug)]
pub struct Kernel {
    /// Stage name: WGSL entry point, pass label suffix and CPU twin share it.
    pub name: &'static str,
    pipeline: wgpu::ComputePipeline,
    bind_group: Option<wgpu::BindGroup>,
    label: String,
}

impl Kernel {
    /// Compiles `entry` of `module` with a layout derived from the bindings the entry uses.
    #[must_use]
    pub fn new(device: &wgpu::Device, module: &wgpu::ShaderModule, entry: &'static str) -> Self {
        Self::specialised(device, module, entry, "", &[])
    }

    /// As [`Kernel::new`], with the module's pipeline-overridable constants set to `constants`
    /// (the others keep their defaults); `variant` names the choice in the pipeline's label
    /// (`wgphys:pipeline:{entry}{variant}`). The stage's name and pass label stay the entry's.
    pub fn specialised(
        device: &wgpu::Device,
        module: &wgpu::ShaderModule,
        entry: &'static str,
        variant: &str,
        constants: &[(&str, f64)],
    ) -> Self {
        let label = format!("wgphys:pipeline:{entry}{variant}");
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&label),
            layout: None,
            module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants,
                ..Default::default()
            },
            cache: None,
        });
        Self {
            name: entry,
            pipeline,
            bind_group: None,
            label: format!("wgphys:pass:{entry}"),
        }
    }

    /// As [`Kernel::specialised`] for boolean pipeline-overridable constants: each flag is
    /// (constant, label, on); the constant is set to `on`, and the labels of the flags that are
    /// on, in order, name the variant (a feature's code is compiled out where its flag is off).
    pub fn with_flags(
        device: &wgpu::Device,
        module: &wgpu::ShaderModule,
        entry: &'static str,
        flags: &[(&str, &str, bool)],
    ) -> Self {
        let constants: Vec<(&str, f64)> = flags
            .iter()
            .map(|&(name, _, on)| (name, f64::from(u8::from(on))))
            .collect();
        let variant: String = flags
            .iter()
            .filter(|&&(_, _, on)| on)
            .map(|&(_, label, _)| label)
            .collect();
        Self::specialised(device, module, entry, &variant, &constants)
    }

    /// The same compiled pipeline without a bind group, for a second set of buffers (a
    /// ping-pong pair): one compilation serves both.
    #[must_use]
    pub fn sibling(&self) -> Self {
        Self {
            name: self.name,
            pipeline: self.pipeline.clone(),
            bind_group: None,
            label: self.label.clone(),
        }
    }

    /// (Re)binds the kernel's buffers; `entries` name exactly the bindings the entry point uses.
    pub fn bind(&mut self, device: &wgpu::Device, entries: &[(u32, &wgpu::Buffer)]) {
        let resources: Vec<(u32, wgpu::BindingResource)> = entries
            .iter()
            .map(|(binding, buffer)| (*binding, buffer.as_entire_binding()))
            .collect();
        self.bind_resources(device, resources);
    }

    /// (Re)binds the kernel's resources (buffers, texture views), as [`Kernel::bind`].
    pub fn bind_resources(
        &mut self,
        device: &wgpu::Device,
        entries: Vec<(u32, wgpu::BindingResource<'_>)>,
    ) {
        let layout = self.pipeline.get_bind_group_layout(0);
        let entries: Vec<wgpu::BindGroupEntry> = entries
            .into_iter()
            .map(|(binding, resource)| wgpu::BindGroupEntry { binding, resource })
            .collect();
        self.bind_group = Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&format!("wgphys:bind_group:{}", self.name)),
            layout: &layout,
            entries: &entries,
        }));
    }

    /// Records one dispatch of the kernel into an open compute pass (its pipeline and bind
    /// group set first). wgpu keeps the order of the dispatches inside a pass and makes each
    /// see the writes of the ones before it, so a phase of several stages costs one pass.
    pub fn dispatch_in(&self, pass: &mut wgpu::ComputePass<'_>, dispatch: Dispatch<'_>) {
        pass.set_pipeline(&self.pipeline);
        if let Some(bg) = &self.bind_group {
            pass.set_bind_group(0, bg, &[]);
        }
        match dispatch {
            Dispatch::Direct(x) => pass.dispatch_workgroups(x, 1, 1),
            Dispatch::Indirect(buffer, offset) => pass.dispatch_workgroups_indirect(buffer, offset),
        }
    }

    /// Records the kernel in its own labelled compute pass, with optional timestamp writes.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        dispatch: Dispatch<'_>,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(&self.label),
            timestamp_writes: timestamps,
        });
        self.dispatch_in(&mut pass, dispatch);
    }
}
