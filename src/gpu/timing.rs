//! GPU time of a step from timestamp queries: each timed span (a phase, or a whole step) gets a
//! begin and an end query written by the compute passes that open and close it, resolved into a
//! buffer at the end of the step and read back on demand (blocking: benchmarks and tools only).
//! Needs `wgpu::Features::TIMESTAMP_QUERY` ([`GpuContext::timestamps`]).

use super::buffer;
use super::GpuContext;
use crate::error::Result;

/// Timestamp queries for `spans` spans of one step.
pub struct StepTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    spans: u32,
}

impl StepTimer {
    /// A timer of `spans` spans (at least 1), or `None` when the adapter has no timestamp
    /// queries.
    pub fn new(ctx: &GpuContext, name: &str, spans: u32) -> Option<Self> {
        if !ctx.timestamps {
            return None;
        }
        let spans = spans.max(1);
        let queries = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some(&format!("wgphys:queries:{name}")),
            ty: wgpu::QueryType::Timestamp,
            count: 2 * spans,
        });
        let resolve = buffer::zeroed(
            &ctx.device,
            &format!("{name}_timestamps"),
            16 * u64::from(spans),
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        );
        Some(Self {
            queries,
            resolve,
            spans,
        })
    }

    /// How many spans the timer holds.
    pub fn spans(&self) -> u32 {
        self.spans
    }

    /// The timestamp writes of a compute pass that opens span `span` (when `begin`) and/or
    /// closes it (when `end`).
    pub fn writes(
        &self,
        span: u32,
        begin: bool,
        end: bool,
    ) -> wgpu::ComputePassTimestampWrites<'_> {
        let span = span.min(self.spans - 1);
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: begin.then_some(2 * span),
            end_of_pass_write_index: end.then_some(2 * span + 1),
        }
    }

    /// Resolves every span's queries into the readback buffer; record it after the step's last
    /// pass.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.queries, 0..2 * self.spans, &self.resolve, 0);
    }

    /// Milliseconds of each span of the last resolved step (blocking readback).
    ///
    /// # Errors
    /// [`crate::Error::Gpu`] when the readback fails.
    pub fn read_ms(&self, ctx: &GpuContext) -> Result<Vec<f64>> {
        let ts: Vec<u64> = buffer::read_vec(
            &ctx.device,
            &ctx.queue,
            &self.resolve,
            2 * self.spans as usize,
        )?;
        let period = f64::from(ctx.queue.get_timestamp_period());
        Ok(ts
            .chunks_exact(2)
            .map(|t| t[1].wrapping_sub(t[0]) as f64 * period / 1e6)
            .collect())
    }
}
