//! The GPU context: a device and queue, created headless or borrowed from the caller.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::gpu::shader::KernelNeeds;

/// The caller's own device-lost callback, run after the context has marked itself lost.
type LostHook = Box<dyn FnOnce(wgpu::DeviceLostReason, String) + Send + 'static>;

/// Whether the device was lost, and the caller's callback to run when it is.
#[derive(Default)]
struct Loss {
    lost: AtomicBool,
    hook: Mutex<Option<LostHook>>,
}

impl std::fmt::Debug for Loss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loss")
            .field("lost", &self.lost.load(Ordering::Acquire))
            .finish_non_exhaustive()
    }
}

/// A wgpu device and queue with the adapter facts the engine needs.
///
/// Create one with [`GpuContext::new`] (headless, adapter picked by wgpu's environment variables
/// such as `WGPU_BACKEND=vulkan|gl` and `WGPU_ADAPTER_NAME`), or wrap the device and queue your
/// renderer already has with [`GpuContext::from_device`]. Cloning is cheap: wgpu handles are
/// reference counted.
#[derive(Clone, Debug)]
pub struct GpuContext {
    /// The device every engine buffer and pipeline lives on.
    pub device: wgpu::Device,
    /// The queue the engine submits to.
    pub queue: wgpu::Queue,
    /// What the adapter says about itself.
    pub info: wgpu::AdapterInfo,
    /// Whether pass timestamp queries are available (used by benchmarks).
    pub timestamps: bool,
    /// Set by the device-lost callback the context installs.
    loss: Arc<Loss>,
}

/// Turns off wgpu's validation of indirect dispatches in `desc` (the flag
/// `wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL`, on by default), as [`GpuContext::new`]
/// does: call it on the descriptor of the instance your renderer creates before handing its
/// device to [`GpuContext::from_device`]. Not on Windows, and not when the environment sets
/// `WGPU_VALIDATION_INDIRECT_CALL` (to any value).
///
/// Why. wgpu checks every indirect dispatch with a dispatch of its own, which doubles the
/// dispatches of a rigid step (one indirect dispatch per colour and sweep). On Mesa's lavapipe
/// it costs far more than the extra dispatches: with the check on, the engine's kernels after it
/// ran many times slower and the process grew by 130–150 MB a step (Mesa 22.3.6; a 40-row
/// pyramid of 820 boxes: 925 ms a step and +130 MB a step, against 61 ms and none without the
/// check; a 100-row pyramid: 1,360 against 330 ms). Every indirect argument the engine uses is
/// written by its own kernels and bounded by the device's workgroup limit (the worlds refuse
/// capacities that could exceed it), so the check is not needed. It stays on Windows, where
/// D3D12's `num_workgroups` relies on it (the grid kernels read it).
pub fn skip_indirect_validation(desc: &mut wgpu::InstanceDescriptor) {
    if cfg!(not(target_os = "windows"))
        && std::env::var_os("WGPU_VALIDATION_INDIRECT_CALL").is_none()
    {
        desc.flags
            .remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    }
}

impl GpuContext {
    /// Whether `other` is this context or a clone of it (so the same device). wgpu's own
    /// comparison of devices reads ids that two instances may both hand out, so the context's
    /// own shared state decides.
    pub(crate) fn same_as(&self, other: &GpuContext) -> bool {
        Arc::ptr_eq(&self.loss, &other.loss) && self.device == other.device
    }

    /// Creates a headless device on the adapter wgpu's environment variables pick, requesting the
    /// adapter's own limits rather than the defaults so large particle buffers fit.
    ///
    /// # Errors
    /// [`Error::NoAdapter`] when no adapter exists (the message says how to install one), and
    /// [`Error::RequestDevice`] when the adapter refuses.
    pub fn new() -> Result<Self> {
        pollster::block_on(Self::new_async())
    }

    /// The async form of [`GpuContext::new`].
    ///
    /// # Errors
    /// As [`GpuContext::new`].
    pub async fn new_async() -> Result<Self> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        skip_indirect_validation(&mut desc);
        let instance = wgpu::Instance::new(desc);
        let adapter = wgpu::util::initialize_adapter_from_env_or_default(&instance, None)
            .await
            .map_err(|e| Error::NoAdapter(e.to_string()))?;
        Self::from_adapter(&adapter).await
    }

    /// Creates a device on a given adapter with the adapter's limits and the optional features
    /// the engine uses (timestamp queries, also inside passes) when present.
    ///
    /// # Errors
    /// [`Error::RequestDevice`] when the adapter refuses.
    pub async fn from_adapter(adapter: &wgpu::Adapter) -> Result<Self> {
        let info = adapter.get_info();
        let wanted =
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES;
        let features = adapter.features() & wanted;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("wgphys:device"),
                required_features: features,
                required_limits: adapter.limits(),
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|e| Error::RequestDevice(e.to_string()))?;
        Self::from_device(device, queue, info)
    }

    /// Wraps a caller's device and queue, so the engine's buffers live beside the caller's
    /// render resources. `info` is only used for reporting. Each world checks the device's
    /// limits against what its own kernels need when it is built ([`GpuContext::require`];
    /// WebGPU's defaults, `wgpu::Limits::default()`, are enough for every world), so a device
    /// too small for one world still serves the others.
    ///
    /// The context installs the device's lost callback (`wgpu::Device::set_device_lost_callback`),
    /// replacing one set before, so that every world's next step or read after a loss is an
    /// [`Error::Gpu`]: a program that wants its own callback gives it to
    /// [`GpuContext::on_device_lost`] instead.
    ///
    /// # Errors
    /// None today; the `Result` keeps room for checks a backend may need.
    pub fn from_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: wgpu::AdapterInfo,
    ) -> Result<Self> {
        let timestamps = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let loss = Arc::new(Loss::default());
        let marker = loss.clone();
        device.set_device_lost_callback(move |reason, message| {
            marker.lost.store(true, Ordering::Release);
            let hook = marker.hook.lock().ok().and_then(|mut h| h.take());
            if let Some(hook) = hook {
                hook(reason, message);
            }
        });
        Ok(Self {
            device,
            queue,
            info,
            timestamps,
            loss,
        })
    }

    /// Whether wgpu has reported the device lost: at once when the driver loses it, and for a
    /// device destroyed with `wgpu::Device::destroy` at the first poll after its queue has
    /// drained. A lost device stays lost.
    pub fn is_lost(&self) -> bool {
        self.loss.lost.load(Ordering::Acquire)
    }

    /// Runs `f` (once) when the device is lost, after the context has marked itself lost: the
    /// place for a program's own device-lost callback, since the context installs wgpu's.
    /// Replaces a callback given before.
    pub fn on_device_lost(&self, f: impl FnOnce(wgpu::DeviceLostReason, String) + Send + 'static) {
        if let Ok(mut hook) = self.loss.hook.lock() {
            *hook = Some(Box::new(f));
        }
    }

    /// One line naming the adapter, backend and device type, for logs and benchmark headers.
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?}, driver {} {})",
            self.info.name,
            self.info.backend,
            self.info.device_type,
            self.info.driver,
            self.info.driver_info
        )
    }

    /// Whether timestamps can be written between the dispatches of a pass (per-stage timing).
    pub fn timestamps_inside_passes(&self) -> bool {
        self.timestamps
            && self
                .device
                .features()
                .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES)
    }

    /// Whether a step may go to the GPU in several submissions as it is recorded (the rigid
    /// world's `GpuRigid::submit_step_by_phase`): on a hardware adapter
    /// the GPU starts on the first phases while the host records the rest. Not on a CPU
    /// adapter: Mesa's lavapipe orders a submission after the previous one by waiting on the
    /// host inside `submit`, so a 5k wall's step held the host 44 ms instead of 0.7 ms
    /// (BENCHMARKS.md, 2026-11-26).
    pub fn submits_overlap(&self) -> bool {
        self.info.device_type != wgpu::DeviceType::Cpu
    }

    /// The device's largest storage-buffer binding in bytes.
    pub fn max_binding_bytes(&self) -> u64 {
        let l = self.device.limits();
        l.max_storage_buffer_binding_size.min(l.max_buffer_size)
    }

    /// Runs `make` (which creates a world's layouts, pipelines, bind groups and buffers) inside
    /// a validation error scope, so a device that cannot hold what `what` needs (a renderer's
    /// device made with WebGPU's default limits has 8 storage buffers per shader stage) gives
    /// [`Error::Gpu`] naming the world, wgpu's message (which names the limit) and the fix,
    /// instead of wgpu's panic from its uncaptured-error handler.
    ///
    /// # Errors
    /// What `make` returns, else [`Error::Gpu`] when the device reported a validation error.
    pub fn checked<T>(&self, what: &str, make: impl FnOnce() -> Result<T>) -> Result<T> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let made = make();
        match pollster::block_on(scope.pop()) {
            None => made,
            Some(e) => Err(Error::Gpu(format!(
                "the device cannot hold {what}: {e}. Create the device with the adapter's limits \
                 (wgpu::Adapter::limits(), as GpuContext::new does) or at least the limit named \
                 above"
            ))),
        }
    }

    /// Refuses, before anything is built, a world whose kernels need more of a device than it
    /// has (`needs`, read from the world's WGSL: storage buffers per shader stage, WebGPU's
    /// default being 8, workgroup memory and size, uniform bindings, bind groups): the first
    /// limit short is an [`Error::DeviceLimit`].
    ///
    /// # Errors
    /// [`Error::DeviceLimit`] naming `what`, the limit, the need and the device's value.
    pub fn require(&self, what: &'static str, needs: &KernelNeeds) -> Result<()> {
        for (limit, need, have) in needs.against(&self.device.limits()) {
            if need > have {
                return Err(Error::DeviceLimit {
                    what,
                    limit,
                    need,
                    have,
                });
            }
        }
        Ok(())
    }

    /// Runs `f` inside validation, out-of-memory and internal error scopes (see [`scoped`]).
    /// A device wgpu has reported lost ([`GpuContext::is_lost`]) is an error before `f` runs
    /// and after it: wgpu reports a lost device through its callback, not its error scopes.
    ///
    /// # Errors
    /// What `f` returns, else [`Error::Gpu`] naming `what` and the device's error.
    pub fn guard<T>(&self, what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let lost = || {
            Error::Gpu(format!(
                "{what}: the device is lost. A lost or destroyed device stays unusable: build a \
                 new GpuContext and world"
            ))
        };
        if self.is_lost() {
            return Err(lost());
        }
        let result = scoped(&self.device, what, f);
        if result.is_ok() && self.is_lost() {
            return Err(lost());
        }
        result
    }

    /// Blocks until all submitted work has finished.
    ///
    /// # Errors
    /// [`Error::Gpu`] when the device is lost.
    pub fn wait(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| Error::Gpu(e.to_string()))
    }
}

/// Runs `f` inside validation, out-of-memory and internal error scopes on `device`, so an error
/// the device reports while `f` records, submits or reads (a lost or destroyed device, an
/// allocation that failed) becomes [`Error::Gpu`] naming `what`, instead of reaching wgpu's
/// uncaptured-error handler, which panics. wgpu reports these errors as the calls are made, so
/// popping the scopes waits for nothing.
///
/// # Errors
/// What `f` returns, else [`Error::Gpu`].
pub fn scoped<T>(device: &wgpu::Device, what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let result = f();
    // Innermost first: scopes pop in the reverse order of their pushes.
    let errors = [
        pollster::block_on(validation.pop()),
        pollster::block_on(memory.pop()),
        pollster::block_on(internal.pop()),
    ];
    match errors.into_iter().flatten().next() {
        None => result,
        Some(e) => Err(Error::Gpu(format!(
            "{what} failed on the device: {e}. A lost or destroyed device stays unusable: build a \
             new GpuContext and world"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flag goes, every other flag stays (unless the environment asks to keep the check).
    #[test]
    fn skip_indirect_validation_removes_only_that_flag() {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.flags = wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL | wgpu::InstanceFlags::DEBUG;
        skip_indirect_validation(&mut desc);
        assert!(desc.flags.contains(wgpu::InstanceFlags::DEBUG));
        let kept = cfg!(target_os = "windows")
            || std::env::var_os("WGPU_VALIDATION_INDIRECT_CALL").is_some();
        assert_eq!(
            desc.flags
                .contains(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL),
            kept
        );
    }
}
