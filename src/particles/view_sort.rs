//! Sorting for alpha blending: an optional back-to-front order of the live particles along a
//! view direction, recomputed every step on the device (stage `depth_keys`, then the radix sort
//! of [`crate::gpu::sort`]) and published as a buffer of slot indices for the renderer. The CPU
//! twin computes the same keys and sorts them with the same passes.

use crate::error::{finite3, Error, Result};
use crate::gpu::sort::{sort_pairs_cpu, GpuRadixSort};
use bytemuck::{Pod, Zeroable};
use glam::{Vec3, Vec4};

/// Where the camera is and where it looks: the live particles are ordered by view depth
/// `(p − eye) · forward`, farthest first.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ViewSort {
    /// The camera's position, metres.
    pub eye: Vec3,
    /// The direction it looks along (normalised for you).
    pub forward: Vec3,
}

/// The view uniform of `depth_keys`. 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GpuView {
    /// Camera position (xyz).
    pub eye: Vec4,
    /// Unit view direction (xyz).
    pub forward: Vec4,
}

impl ViewSort {
    /// The uniform record (checked).
    pub(crate) fn to_gpu(self) -> Result<GpuView> {
        finite3("view_sort.eye", self.eye)?;
        finite3("view_sort.forward", self.forward)?;
        let f = self.forward.normalize_or_zero();
        if f == Vec3::ZERO {
            return Err(Error::InvalidInput {
                what: "view_sort.forward",
                value: format!("{}", self.forward),
                fix: "pass a non-zero view direction",
            });
        }
        Ok(GpuView {
            eye: self.eye.extend(0.0),
            forward: f.extend(0.0),
        })
    }
}

/// The key of a particle at `p` (the CPU twin of `depth_keys`'s arithmetic).
pub fn depth_key(view: &GpuView, p: Vec3) -> u32 {
    let d = (p - view.eye.truncate()).dot(view.forward.truncate());
    let b = d.to_bits();
    let ascending = if b & 0x8000_0000 != 0 {
        !b
    } else {
        b | 0x8000_0000
    };
    !ascending
}

/// Stage `depth_keys` and the sort on the CPU: the order of the `live` first slots of `pos`
/// (of `capacity`), farthest first, ties in slot order.
///
/// # Errors
/// As [`sort_pairs_cpu`] (never for these inputs).
pub fn cpu_order(view: &GpuView, pos: &[Vec4], live: u32, capacity: u32) -> Result<Vec<u32>> {
    let keys: Vec<u32> = (0..capacity as usize)
        .map(|i| match pos.get(i) {
            Some(p) if i < live as usize => depth_key(view, p.truncate()),
            _ => u32::MAX,
        })
        .collect();
    let values: Vec<u32> = (0..capacity).collect();
    let (_, order) = sort_pairs_cpu(&keys, &values, 32)?;
    Ok(order.into_iter().take(live as usize).collect())
}

/// The device side: the view uniform, the radix sort sized for the pool, and the kernel that
/// writes its input.
pub(crate) struct GpuViewSort {
    pub view: wgpu::Buffer,
    pub sort: GpuRadixSort,
}
