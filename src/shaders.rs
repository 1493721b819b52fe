//! Every WGSL module the engine compiles, in one list, and what the engine as a whole needs of
//! a device. The GPU plumbing (`crate::gpu`) knows no domain; this catalogue, at the crate's
//! root, is where the domains meet: the naga validation test walks [`all_shaders`] without a
//! GPU, and [`engine_needs`] is the most any world's kernels need (each world checks its own
//! when it is built).

use crate::error::Result;
use crate::gpu::shader::KernelNeeds;

/// Every composed shader of the engine, as (name, WGSL source).
pub fn all_shaders() -> Vec<(&'static str, String)> {
    vec![
        ("particles", crate::particles::gpu::shader_source()),
        ("sort", crate::gpu::sort::shader_source()),
        (
            "sort_gpu_shape",
            crate::gpu::sort::shader_source_for(crate::gpu::sort::SortShape::GPU),
        ),
        ("grid", crate::grid::gpu::shader_source()),
        ("aggregate", crate::aggregate::gpu::shader_source()),
        ("rigid", crate::rigid::gpu::shader_source()),
    ]
}

/// The most any world's kernels need of a device: the particle world's, the gridded aggregate
/// world's and the rigid world's, each as the world checks it.
///
/// # Errors
/// [`crate::Error::Gpu`] if a module does not validate (an engine bug).
pub fn engine_needs() -> Result<KernelNeeds> {
    Ok(crate::particles::shader::kernel_needs()?
        .max(&crate::aggregate::gpu::kernel_needs(true)?)
        .max(&crate::rigid::gpu::kernel_needs()?))
}
