//! Getting a device: the adapter the environment asks for, the device with the limits the
//! engine needs, and pipeline layouts.

use super::*;
use wgphys::gpu::GpuContext;

/// The instance the renderer and the engine share, from `desc` with wgpu's validation of
/// indirect dispatches turned off ([`wgphys::gpu::skip_indirect_validation`] says why: on
/// lavapipe the pyramid demo stepped 15 times slower with it and grew by 130 MB a step).
pub fn instance(mut desc: wgpu::InstanceDescriptor) -> wgpu::Instance {
    wgphys::gpu::skip_indirect_validation(&mut desc);
    wgpu::Instance::new(desc)
}

/// Picks an adapter the way wgpu's environment variables say (`WGPU_BACKEND`,
/// `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`), compatible with `surface` when given.
pub fn adapter(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<wgpu::Adapter, BoxError> {
    pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(
        instance, surface,
    ))
    .map_err(|e| {
        format!(
            "no GPU adapter found ({e}). On Linux install a software adapter \
             (`apt-get install -y mesa-vulkan-drivers` for Vulkan/lavapipe), or pick one with \
             WGPU_BACKEND=vulkan|gl"
        )
        .into()
    })
}

/// A pipeline layout of `groups` (group 0 first), labelled `label`.
pub fn pipeline_layout(
    device: &wgpu::Device,
    label: &str,
    groups: &[&wgpu::BindGroupLayout],
) -> wgpu::PipelineLayout {
    let groups: Vec<Option<&wgpu::BindGroupLayout>> = groups.iter().copied().map(Some).collect();
    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &groups,
        immediate_size: 0,
    })
}

/// Creates the device the renderer and the engine share, with the adapter's own limits (the
/// engine's pools like large storage buffers) and wraps it for the engine.
pub fn device(adapter: &wgpu::Adapter) -> Result<GpuContext, BoxError> {
    // Timestamp queries only for a run that asks to time its steps (`--gpu-timing`): the demos
    // otherwise run on a device with no optional feature, as a renderer's may be.
    let timing = cli_switch("--gpu-timing");
    let features = if timing {
        adapter.features() & wgpu::Features::TIMESTAMP_QUERY
    } else {
        wgpu::Features::empty()
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("examples:device"),
        required_features: features,
        required_limits: adapter.limits(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    }))
    .map_err(|e| format!("the adapter could not create a device: {e}"))?;
    Ok(GpuContext::from_device(device, queue, adapter.get_info())?)
}
