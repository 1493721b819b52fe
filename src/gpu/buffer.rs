//! Buffer creation and blocking readback (tests and explicit `read_*` calls only).

use crate::error::{Error, Result};
use wgpu::util::DeviceExt;

/// Creates a zeroed buffer of `bytes` (at least 256) with the given usage and a namespaced label.
pub fn zeroed(
    device: &wgpu::Device,
    name: &str,
    bytes: u64,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(&format!("wgphys:buffer:{name}")),
        size: bytes.max(256).next_multiple_of(4),
        usage,
        mapped_at_creation: false,
    })
}

/// Creates a buffer holding `data` (padded to at least 256 bytes, so any struct array binds).
pub fn with_data(
    device: &wgpu::Device,
    name: &str,
    data: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    let mut bytes = data.to_vec();
    if bytes.len() < 256 {
        bytes.resize(256, 0);
    }
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(&format!("wgphys:buffer:{name}")),
        contents: &bytes,
        usage,
    })
}

/// A uniform table of `max` entries: `items` first, zeroes after. The worlds check that `items`
/// fits before they get here; any excess would be left out rather than overrun the buffer.
pub fn uniform_table<T: bytemuck::Pod + Default>(
    device: &wgpu::Device,
    name: &str,
    items: &[T],
    max: u32,
) -> wgpu::Buffer {
    let mut all = vec![T::default(); max as usize];
    for (slot, item) in all.iter_mut().zip(items) {
        *slot = *item;
    }
    with_data(
        device,
        name,
        bytemuck::cast_slice(&all),
        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    )
}

/// Storage usage for simulation state: shader read/write, copies both ways.
pub const STATE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// Copies `bytes` from the start of `src` to the host, blocking until done.
///
/// # Errors
/// [`Error::Gpu`] when mapping fails or the device is lost.
pub fn read_bytes(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    src: &wgpu::Buffer,
    bytes: u64,
) -> Result<Vec<u8>> {
    super::context::scoped(device, "a readback", || {
        read_unscoped(device, queue, src, bytes)
    })
}

fn read_unscoped(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    src: &wgpu::Buffer,
    bytes: u64,
) -> Result<Vec<u8>> {
    if bytes == 0 {
        return Ok(Vec::new());
    }
    let size = bytes.next_multiple_of(4);
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("wgphys:buffer:readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("wgphys:readback"),
    });
    encoder.copy_buffer_to_buffer(src, 0, &staging, 0, size);
    queue.submit([encoder.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| Error::Gpu(format!("poll during readback: {e}")))?;
    rx.recv()
        .map_err(|e| Error::Gpu(format!("readback callback dropped: {e}")))?
        .map_err(|e| Error::Gpu(format!("map for readback: {e}")))?;
    let view = staging
        .get_mapped_range(..)
        .map_err(|e| Error::Gpu(format!("mapped range: {e}")))?;
    let mut out = view.to_vec();
    drop(view);
    staging.unmap();
    out.truncate(bytes as usize);
    Ok(out)
}

/// Reads `count` elements of a Pod type from the start of `src`.
///
/// # Errors
/// As [`read_bytes`].
pub fn read_vec<T: bytemuck::Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    src: &wgpu::Buffer,
    count: usize,
) -> Result<Vec<T>> {
    let bytes = read_bytes(
        device,
        queue,
        src,
        (count * std::mem::size_of::<T>()) as u64,
    )?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}
