//! Uploads that keep their place in the command stream.
//!
//! `queue.write_buffer` lands at the next submit, before every command of it. A step that
//! uploads its parameters that way is only right when it is the one step of its submission:
//! record two steps into one encoder and both run with the second step's parameters, and an
//! edit made between them lands before the first. [`StepUploads`] instead collects the writes
//! on the host, and [`StepUploads::record`] puts them into the caller's encoder as copies from
//! an upload buffer of their own. The copies run where they are recorded, so any number of
//! steps and edits recorded into one encoder run in the order they were made.
//!
//! Each recording takes an upload buffer nobody else uses: the write that fills it lands at the
//! next submit, and the buffer is handed out again only when the GPU has finished the work
//! recorded with it (or the encoder was dropped unsubmitted). In steady state the buffers are
//! reused; the ring grows while more recordings are in flight than it has buffers, up to
//! [`MAX_IN_FLIGHT`], and a recording beyond that waits for the device instead. A recording
//! above [`KEEP_MAX_BYTES`] takes a buffer of its own instead, outside the ring (it does not
//! wait), which is freed, with the host's copy of its bytes, once its copies have run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use super::GpuContext;

/// Recordings the host may run ahead of the device before a new one waits for it.
pub const MAX_IN_FLIGHT: usize = 8;

/// The largest upload buffer the ring keeps for reuse. A recording that needs more (a bulk
/// spawn: a 10M-particle cloud's records are about a gigabyte) gets a buffer of its own, which
/// wgpu frees when the work recorded with it is done, instead of the ring holding it for the
/// world's life. Steps and ordinary edits need a few kilobytes.
pub const KEEP_MAX_BYTES: u64 = 64 << 20;

/// Copies need 4-byte sizes and offsets (`wgpu::COPY_BUFFER_ALIGNMENT`).
const ALIGN: u64 = wgpu::COPY_BUFFER_ALIGNMENT;

/// One operation waiting for [`StepUploads::record`], in the order it was queued.
enum Pending {
    /// Bytes `start..start + len` of the queue's bytes to byte `offset` of `dst`.
    Write {
        dst: wgpu::Buffer,
        offset: u64,
        start: usize,
        len: usize,
    },
    /// A device-side copy (state carried from a buffer being replaced).
    Copy {
        src: wgpu::Buffer,
        dst: wgpu::Buffer,
        bytes: u64,
    },
    /// The queue of a backend being replaced, recorded first.
    Adopted(Box<StepUploads>),
}

/// An upload buffer and whether a recording that is not finished yet holds it.
struct Slot {
    buffer: wgpu::Buffer,
    busy: Arc<AtomicBool>,
}

/// Frees a slot when the work recorded with it is done, or when the encoder is dropped.
struct Release(Arc<AtomicBool>);

impl Drop for Release {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Host-side writes recorded into an encoder in order (see the module docs). Its methods take
/// `&self`, so a world can flush its edits before a readback it serves through `&self`.
pub struct StepUploads {
    ctx: GpuContext,
    label: &'static str,
    inner: Mutex<Queue>,
}

/// The queued bytes and the upload buffers.
#[derive(Default)]
struct Queue {
    bytes: Vec<u8>,
    pending: Vec<Pending>,
    slots: Vec<Slot>,
}

impl std::fmt::Debug for StepUploads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let q = self.queue();
        f.debug_struct("StepUploads")
            .field("label", &self.label)
            .field("pending", &q.pending.len())
            .field("buffers", &q.slots.len())
            .finish()
    }
}

impl StepUploads {
    /// An empty queue whose upload buffers carry `label`.
    #[must_use]
    pub fn new(ctx: &GpuContext, label: &'static str) -> Self {
        Self {
            ctx: ctx.clone(),
            label,
            inner: Mutex::new(Queue::default()),
        }
    }

    /// The queue (a poisoned lock only means a panic elsewhere; the queue itself stays whole).
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `data` for byte `offset` of `dst`; it reaches `dst` at the next
    /// [`record`](Self::record), in the order of the calls. A size that is not a multiple of 4
    /// bytes is padded with zeros (every GPU record here is made of 4-byte words).
    pub fn write<T: bytemuck::Pod>(&self, dst: &wgpu::Buffer, offset: u64, data: &[T]) {
        let raw: &[u8] = bytemuck::cast_slice(data);
        if raw.is_empty() {
            return;
        }
        let mut q = self.queue();
        let start = q.bytes.len();
        q.bytes.extend_from_slice(raw);
        let len = raw.len().next_multiple_of(ALIGN as usize);
        q.bytes.resize(start + len, 0);
        q.pending.push(Pending::Write {
            dst: dst.clone(),
            offset,
            start,
            len,
        });
    }

    /// Queues a device-side copy of the first `bytes` of `src` into `dst` (both need the copy
    /// usages), in order with the writes: how a backend rebuilt at new sizes carries the state
    /// of the one it replaces without a readback, even while steps recorded into it wait in an
    /// unsubmitted encoder. `bytes` is rounded down to a multiple of 4; 0 queues nothing.
    pub fn copy(&self, src: &wgpu::Buffer, dst: &wgpu::Buffer, bytes: u64) {
        let bytes = bytes - bytes % ALIGN;
        if bytes == 0 {
            return;
        }
        self.queue().pending.push(Pending::Copy {
            src: src.clone(),
            dst: dst.clone(),
            bytes,
        });
    }

    /// Takes over the queue of a backend being replaced: its operations are recorded before
    /// everything queued here afterwards.
    pub fn adopt(&self, older: StepUploads) {
        if !older.is_empty() {
            self.queue().pending.push(Pending::Adopted(Box::new(older)));
        }
    }

    /// Whether writes are waiting.
    pub fn is_empty(&self) -> bool {
        self.queue().pending.is_empty()
    }

    /// Records the queued operations into `encoder` in the order they were queued: writes as
    /// copies from an upload buffer, copies as copies, adopted queues where they were adopted.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut guard = self.queue();
        let q = &mut *guard;
        if q.pending.is_empty() {
            return;
        }
        let need = q.bytes.len() as u64;
        // Our handle on a one-off buffer is dropped at the end of this call; the encoder and,
        // once submitted, the queue keep it alive until the copies from it have run.
        let one_off;
        let source = if need == 0 {
            None
        } else if need > KEEP_MAX_BYTES {
            one_off = Self::upload_buffer(&self.ctx, self.label, need);
            Some(&one_off)
        } else {
            let i = Self::free_slot(&self.ctx, self.label, &mut q.slots, need);
            q.slots.get(i).map(|slot| {
                slot.busy.store(true, Ordering::Release);
                let release = Release(slot.busy.clone());
                encoder.on_submitted_work_done(move || drop(release));
                &slot.buffer
            })
        };
        if let Some(buffer) = source {
            self.ctx.queue.write_buffer(buffer, 0, &q.bytes);
        }
        for p in q.pending.drain(..) {
            match p {
                Pending::Write {
                    dst,
                    offset,
                    start,
                    len,
                } => {
                    if let Some(buffer) = source {
                        encoder.copy_buffer_to_buffer(
                            buffer,
                            start as u64,
                            &dst,
                            offset,
                            len as u64,
                        );
                    }
                }
                Pending::Copy { src, dst, bytes } => {
                    encoder.copy_buffer_to_buffer(&src, 0, &dst, 0, bytes);
                }
                Pending::Adopted(older) => older.record(encoder),
            }
        }
        if q.bytes.capacity() as u64 > KEEP_MAX_BYTES {
            // A bulk spawn's bytes: give the host memory back too.
            q.bytes = Vec::new();
        } else {
            q.bytes.clear();
        }
    }

    /// An upload buffer of `bytes` bytes (a multiple of 4).
    fn upload_buffer(ctx: &GpuContext, label: &'static str, bytes: u64) -> wgpu::Buffer {
        ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes,
            usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Bytes of the upload buffers the ring keeps for reuse (each at most
    /// [`KEEP_MAX_BYTES`]).
    pub fn held_bytes(&self) -> u64 {
        self.queue().slots.iter().map(|s| s.buffer.size()).sum()
    }

    /// A free upload buffer of at least `need` bytes: a free one that is big enough, else a
    /// new one in place of a free one that is too small, else a new one added to the ring.
    fn free_slot(ctx: &GpuContext, label: &'static str, slots: &mut Vec<Slot>, need: u64) -> usize {
        let free = |s: &Slot| !s.busy.load(Ordering::Acquire);
        if !slots.iter().any(free) && slots.len() >= MAX_IN_FLIGHT {
            // The host is MAX_IN_FLIGHT recordings ahead of the device: wait for it rather
            // than grow the ring without bound (the callbacks that free slots run in the poll).
            // Recordings still in an unsubmitted encoder are not freed by this; the ring grows
            // for those. Every world's step records uploads, so this also bounds how far steps
            // (and the particle world's status reads) run ahead of the device.
            let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
        }
        if let Some(i) = slots
            .iter()
            .position(|s| free(s) && s.buffer.size() >= need)
        {
            return i;
        }
        let buffer = Self::upload_buffer(ctx, label, need.next_power_of_two().max(256));
        match slots.iter().position(free) {
            Some(i) => {
                slots[i].buffer = buffer;
                i
            }
            None => {
                slots.push(Slot {
                    buffer,
                    busy: Arc::new(AtomicBool::new(false)),
                });
                slots.len() - 1
            }
        }
    }

    /// Records and submits the queued writes on their own (before a readback, so the host sees
    /// its own edits).
    pub fn submit(&self) {
        if self.is_empty() {
            return;
        }
        let mut encoder = self
            .ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(self.label),
            });
        self.record(&mut encoder);
        self.ctx.queue.submit([encoder.finish()]);
    }
}
