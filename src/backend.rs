//! Which backend runs a world's stages: the GPU (WGSL compute shaders on a device) or the CPU
//! twin, the same stages in the same order. Every world takes one.

use crate::gpu::GpuContext;

/// Which backend runs the stages.
// Passed once at construction, so the size of the GPU variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Backend {
    /// The CPU twin.
    Cpu,
    /// WGSL compute shaders on this context's device.
    Gpu(GpuContext),
}
