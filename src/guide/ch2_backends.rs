//! # 2. Choosing a backend
//!
//! Every world takes a [`Backend`](crate::Backend) when it is built, and keeps it:
//!
//! - [`Backend::Cpu`](crate::Backend::Cpu): the CPU twin. The same stages in the same order
//!   as the GPU's kernels, written in Rust on the world's own arrays, on the calling thread
//!   (one core; the rigid contact solver works on four contacts at once in SIMD lanes). The
//!   state is in host memory, so every read is free.
//! - [`Backend::Gpu(ctx)`](crate::Backend::Gpu): WGSL compute shaders on the device of a
//!   [`GpuContext`](crate::gpu::GpuContext). The state lives in GPU buffers that your renderer
//!   can draw straight from ([`ch3_drawing`](super::ch3_drawing)); reading it on the host costs
//!   a wait for the device ([`ch5_reading`](super::ch5_reading)).
//!
//! The public API is the same on both: a program written against `Backend::Cpu` runs on the
//! GPU by changing that one argument. The few calls that only make sense on one side say so
//! (`render_buffers` and `gpu()` are `None` on the CPU, where `encode_step` runs the step at
//! once and leaves the encoder alone; `cpu_state` is `None` on the GPU).
//!
//! ## Which to choose
//!
//! Use the GPU when the world is large (tens of thousands of particles or bodies and more) or
//! when a renderer on the same device draws it: nothing crosses the bus each frame. Use the CPU
//! when there is no usable GPU, when the world is small enough that a dispatch costs more than
//! the work, when game logic needs the state of many objects on the host every frame, or when
//! you need the same bits on every machine ([`ch7_determinism`](super::ch7_determinism)). Both
//! backends make the same bookkeeping decisions (which spawns fit, which handles die) and agree
//! on the state within the bounds the parity tests check, so a world can be developed and
//! tested on the CPU and shipped on the GPU.
//!
//! ## Making a context
//!
//! [`GpuContext::new`](crate::gpu::GpuContext::new) creates a headless device on the adapter
//! wgpu's environment variables pick (`WGPU_BACKEND=vulkan|gl|metal|dx12`,
//! `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`), asking for the adapter's own limits rather than
//! WebGPU's defaults, so large pools fit, and for timestamp queries when the adapter has them.
//! It fails with [`Error::NoAdapter`](crate::Error::NoAdapter) (whose message says how to
//! install a software adapter) rather than panicking. A context is cheap to clone (wgpu's
//! handles are reference counted): build one and give a clone to every world. Do not make a
//! context per world: some drivers stop handing out devices after a dozen or so per process
//! (NVIDIA's does, which is why the tests share one).
//!
//! ```no_run
//! use wgphys::Backend;
//! use wgphys::gpu::GpuContext;
//! use wgphys::particles::{ParticleWorld, WorldConfig};
//! use wgphys::rigid::{RigidConfig, RigidWorld};
//!
//! let ctx = GpuContext::new()?;
//! println!("running on {}", ctx.describe()); // adapter, backend, device type, driver
//! let sparks = ParticleWorld::new(Backend::Gpu(ctx.clone()), WorldConfig::default())?;
//! let props = RigidWorld::new(Backend::Gpu(ctx.clone()), RigidConfig::default())?;
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! [`GpuContext::new_async`](crate::gpu::GpuContext::new_async) is the same without blocking,
//! and [`GpuContext::from_adapter`](crate::gpu::GpuContext::from_adapter) makes the device on an
//! adapter you picked.
//!
//! ## Borrowing your renderer's device
//!
//! To draw from the engine's buffers, the engine must run on the renderer's device.
//! [`GpuContext::from_device`](crate::gpu::GpuContext::from_device) wraps the device and queue
//! you already have (the `AdapterInfo` is only used in messages and logs). Two things to do
//! when you create them:
//!
//! - pass the instance's descriptor through
//!   [`skip_indirect_validation`](crate::gpu::skip_indirect_validation) before creating the
//!   instance, as `GpuContext::new` does. wgpu otherwise checks every indirect dispatch with a
//!   dispatch of its own; the results are the same, but a rigid step's dispatches double, and
//!   on Mesa's lavapipe the pyramid demo stepped 15 times slower and grew by 130 MB a step.
//! - ask for the adapter's limits (`adapter.limits()`) if the worlds are large. Every world
//!   runs on `wgpu::Limits::default()` (what a browser gives), but then a particle or aggregate
//!   world holds at most 256 static colliders and a gridded aggregate world about 4.2 million
//!   grains. Each world checks the device when it is built and returns
//!   [`Error::DeviceLimit`](crate::Error::DeviceLimit) naming the limit that is short, so a
//!   device too small for one world still serves the others.
//!
//! ```
//! use wgphys::gpu::GpuContext;
//!
//! /// The renderer's instance, adapter and device, shared with the engine.
//! type Shared = (wgpu::Instance, wgpu::Adapter, GpuContext);
//!
//! fn shared_device() -> Result<Shared, Box<dyn std::error::Error>> {
//!     let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
//!     wgphys::gpu::skip_indirect_validation(&mut desc);
//!     let instance = wgpu::Instance::new(desc);
//!     // With a window, pass its surface here so the adapter can present to it.
//!     let adapter = pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(
//!         &instance, None,
//!     ))?;
//!     let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
//!         label: Some("renderer"),
//!         required_limits: adapter.limits(),
//!         ..Default::default()
//!     }))?;
//!     let ctx = GpuContext::from_device(device, queue, adapter.get_info())?;
//!     Ok((instance, adapter, ctx))
//! }
//! ```
//!
//! The examples build their device this way (`examples/common/device.rs`). A device error
//! while the engine records, submits or reads (a lost device, an allocation that failed) comes
//! back as [`Error::Gpu`](crate::Error::Gpu) from that call, never as wgpu's panic; a lost
//! device stays lost, so build a new context and new worlds.
//!
//! ## Software adapters
//!
//! Without a GPU, Mesa's software rasterisers run the GPU path on the CPU: lavapipe over
//! Vulkan (`apt-get install -y mesa-vulkan-drivers`) and llvmpipe over GL (usually installed,
//! `WGPU_BACKEND=gl`). wgpu reports them with `device_type == wgpu::DeviceType::Cpu`. They are
//! good for running and testing the GPU path where there is none: CI, the parity tests (which
//! run on both), headless screenshots of the examples. They are not a fast way to simulate:
//! on a 2-core VM the CPU twin steps the 5,050-box wall in 71 ms where the GPU path on lavapipe
//! takes 97 ms (README, Benchmarks), so on a machine without a GPU choose `Backend::Cpu`.
//!
//! What to know when you run on one:
//!
//! - they round every operation as written, like the CPU twin in its default
//!   [`CpuRounding::Separate`](crate::CpuRounding::Separate) mode; a hardware GPU may fuse
//!   multiply-adds ([`ch7_determinism`](super::ch7_determinism));
//! - they stop a shader invocation after about 65,535 loop iterations. The engine keeps its
//!   loops below that, and reports the one place a crowded scene can still reach it
//!   ([`rigid::RigidStepReport::broad_truncated`](crate::rigid::RigidStepReport::broad_truncated));
//! - compiling a kernel can take up to a second: call `precompile()` on a particle or rigid
//!   world while the game loads;
//! - lavapipe makes a submission wait on the host for the previous one, so on a CPU-type
//!   adapter the rigid world submits its step whole instead of phase by phase
//!   ([`GpuContext::submits_overlap`](crate::gpu::GpuContext::submits_overlap));
//! - over GL, run tests with `--test-threads=1`: wgpu's GL backend panics when a thread waits
//!   more than 6 s for a context another test holds.
