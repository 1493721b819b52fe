//! wgpu plumbing every domain uses: the context, the kernel helper, buffers, readback and shader
//! composition.

pub mod buffer;
pub mod context;
pub mod kernel;
pub mod layout;
pub mod shader;
pub mod sort;
pub mod status;
pub mod timing;
pub mod upload;

pub use context::{skip_indirect_validation, GpuContext};
