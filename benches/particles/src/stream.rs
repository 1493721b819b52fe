//! The streaming kernel of the `stream_probe` binary (issue 10's cloud cliff), shared with
//! `bench --probe-after`: the cloud's bytes (reads of 68 and writes of 52 bytes an element, in
//! four `vec4` arrays and two scalar arrays) through one kernel (`stream.wgsl`), the arrays in
//! six buffers (`split`) or in one (`one`).

use std::error::Error;
use wgphys::gpu::timing::StepTimer;
use wgphys::gpu::GpuContext;

const WG: u32 = 256;
/// Bytes each element moves: reads of four `vec4`s and one scalar, writes of three `vec4`s
/// and one scalar.
pub const BYTES_PER_ELEMENT: u64 = 4 * 16 + 4 + 3 * 16 + 4;

const SHADER: &str = include_str!("stream.wgsl");

/// The six arrays' element sizes, in binding order.
const ELEMENT_BYTES: [u64; 6] = [16, 16, 16, 16, 4, 4];

/// The streaming kernel's pipelines, made once per device.
pub struct Probe {
    stream: wgpu::ComputePipeline,
    /// The fill kernel when the data is to be random.
    fill: Option<wgpu::ComputePipeline>,
    timer: StepTimer,
}

impl Probe {
    /// The pipelines on `ctx`; `random` fills each size's arrays with values that differ
    /// element by element before timing (else they stay as allocated, zeros).
    ///
    /// # Errors
    /// When the adapter has no timestamp queries.
    pub fn new(ctx: &GpuContext, random: bool) -> Result<Self, Box<dyn Error>> {
        let module = ctx
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("stream_probe"),
                source: wgpu::ShaderSource::Wgsl(SHADER.into()),
            });
        let make = |entry: &str| {
            ctx.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry),
                    layout: None,
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                })
        };
        let timer = StepTimer::new(ctx, "stream_probe", 1)
            .ok_or("the adapter has no timestamp queries; the probe needs them")?;
        Ok(Self {
            stream: make("stream"),
            fill: random.then(|| make("fill")),
            timer,
        })
    }

    /// The median GPU ms of `steps` dispatches over `n` elements in `layout`.
    pub fn median_ms(
        &self,
        ctx: &GpuContext,
        n: u32,
        layout: &str,
        steps: usize,
    ) -> Result<f64, Box<dyn Error>> {
        let pipelines = self;
        let timer = &self.timer;
        let groups = n.div_ceil(WG);
        if groups > ctx.device.limits().max_compute_workgroups_per_dimension {
            return Err(format!("{groups} workgroups exceed the device's dispatch limit").into());
        }
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let align = u64::from(ctx.device.limits().min_storage_buffer_offset_alignment);
        let sizes: Vec<u64> = ELEMENT_BYTES.iter().map(|b| b * u64::from(n)).collect();
        let make = |label: &str, size: u64| {
            ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        // (buffer index, offset) of each array.
        let (buffers, ranges): (Vec<wgpu::Buffer>, Vec<(usize, u64)>) = match layout {
            "split" => (
                sizes
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| make(&format!("stream_probe_{i}"), s))
                    .collect(),
                (0..sizes.len()).map(|i| (i, 0)).collect(),
            ),
            _ => {
                let mut offsets = Vec::new();
                let mut end = 0u64;
                for &s in &sizes {
                    offsets.push((0, end));
                    end = (end + s).div_ceil(align) * align;
                }
                if end > ctx.device.limits().max_buffer_size {
                    return Err(format!("{end} bytes exceed the device's largest buffer").into());
                }
                (vec![make("stream_probe_one", end)], offsets)
            }
        };
        let params = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("stream_probe_params"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let words = [n, (1.0f32 / 60.0).to_bits(), 0, 0];
        ctx.queue
            .write_buffer(&params, 0, bytemuck::cast_slice(&words));
        let mut entries: Vec<wgpu::BindGroupEntry> = ranges
            .iter()
            .zip(&sizes)
            .enumerate()
            .map(|(binding, (&(b, offset), &size))| wgpu::BindGroupEntry {
                binding: binding as u32,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &buffers[b],
                    offset,
                    size: wgpu::BufferSize::new(size),
                }),
            })
            .collect();
        entries.push(wgpu::BindGroupEntry {
            binding: 6,
            resource: params.as_entire_binding(),
        });
        let bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("stream_probe"),
            layout: &pipelines.stream.get_bind_group_layout(0),
            entries: &entries,
        });
        if let Some(fill) = &pipelines.fill {
            let bind_fill = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("stream_probe_fill"),
                layout: &fill.get_bind_group_layout(0),
                entries: &entries,
            });
            let mut encoder = ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
                pass.set_pipeline(fill);
                pass.set_bind_group(0, &bind_fill, &[]);
                pass.dispatch_workgroups(groups, 1, 1);
            }
            ctx.queue.submit([encoder.finish()]);
        }
        let pipeline = &pipelines.stream;
        let mut ms = Vec::with_capacity(steps);
        for k in 0..steps + 5 {
            let mut encoder = ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("stream_probe"),
                    timestamp_writes: Some(timer.writes(0, true, true)),
                });
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, &bind, &[]);
                pass.dispatch_workgroups(groups, 1, 1);
            }
            timer.resolve(&mut encoder);
            ctx.queue.submit([encoder.finish()]);
            let t = timer.read_ms(ctx)?;
            if k >= 5 {
                ms.push(t.first().copied().unwrap_or(f64::NAN));
            }
        }
        ms.sort_by(f64::total_cmp);
        Ok(ms.get(ms.len() / 2).copied().unwrap_or(f64::NAN))
    }
}
