//! GPU host code for the aggregate stages: buffers, kernels and the step recorder. The
//! stages and their order match `AggregateWorld::step` on the CPU.
//!
//! With a grid, the collide iterations run in a spatial order of the particles, on packed
//! copies of their state (see `shaders/aggregate/order.wgsl`): after the grid build, a sort
//! by block Morton code, a gather into that order, the grid keys' slot lists, the iterations,
//! and a scatter back into particle order.

use super::step::{AggStage, AggStep};
use super::types::WG;
use super::types::*;
use crate::colliders::{collider_kind, GpuCollider};
use crate::error::Result;
use crate::gpu::buffer::{self, STATE};
use crate::gpu::kernel::{Dispatch, Kernel};
use crate::gpu::timing::StepTimer;
use crate::gpu::upload::StepUploads;
use crate::gpu::GpuContext;
use crate::grid::gpu::GpuGrid;
use crate::grid::GridSpec;
use glam::{Vec3, Vec4};
use std::mem::size_of;
use wgpu::BufferUsages as U;

use super::near::{candidates_buffer, cells_buffer, Near};
pub use super::near::{NearTables, DEFAULT_LIST_CAPACITY};
use super::shader::MAX_GROUPS;
pub use super::shader::{
    binding, kernel_needs, shader_source, storage_buffers_per_stage, BINDINGS, CELL_ENTRY_BYTES,
    NEAR_KEY_BITS, NEAR_STATE_BYTES,
};

/// A collide entry point (`collide`, `collide_near`) compiled for the world's collider table:
/// without the spheres' and boxes' code when `solids` is false (`COLLIDER_SOLIDS`,
/// colliders.wgsl), which changes no result where the table holds half-spaces alone. The 100k
/// sand box's collide iterations on lavapipe: BENCHMARKS.md, 2026-11-27, `3d54c37`. With `shared` (only
/// `collide_near` reads it) for a world without own accelerations: a neighbour's acceleration
/// is the grain's own and the read is left out of the kernel (`SHARED_ACCELERATION`,
/// collide.wgsl), the same bits.
pub(super) fn collide_kernel(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    entry: &'static str,
    solids: bool,
    shared: bool,
) -> Kernel {
    Kernel::with_flags(
        device,
        module,
        entry,
        &[
            ("COLLIDER_SOLIDS", "+solids", solids),
            ("SHARED_ACCELERATION", "+shared_acceleration", shared),
        ],
    )
}

/// The static tables, as the host last set them.
pub struct Tables<'a> {
    /// Force generators (dead ones have kind 0).
    pub gens: &'a [GpuGen],
    /// CSR offsets, n + 1.
    pub gen_offsets: &'a [u32],
    /// CSR entries.
    pub gen_refs: &'a [u32],
    /// Links sorted by colour.
    pub links: &'a [GpuLink],
    /// Colour ranges.
    pub colour_start: &'a [u32],
    /// Colliders.
    pub colliders: &'a [GpuCollider],
}

struct Kernels {
    integrate: Kernel,
    collide_b_to_a: Kernel,
    collide_a_to_b: Kernel,
    solve_links: Kernel,
}

/// The GPU backend of an aggregate world.
pub struct GpuAggregate {
    pub(crate) ctx: GpuContext,
    /// The stages the last encoded step ran, in order.
    pub(crate) last_stages: Vec<AggStage>,
    capacity: u32,
    params: wgpu::Buffer,
    pub(crate) pos_a: wgpu::Buffer,
    pub(crate) vel_a: wgpu::Buffer,
    pos_b: wgpu::Buffer,
    vel_b: wgpu::Buffer,
    pub(crate) acc: wgpu::Buffer,
    pub(crate) radius: wgpu::Buffer,
    pub(crate) colour: wgpu::Buffer,
    pub(crate) draw_args: wgpu::Buffer,
    gens: wgpu::Buffer,
    gen_offsets: wgpu::Buffer,
    gen_refs: wgpu::Buffer,
    links: wgpu::Buffer,
    colour_start: wgpu::Buffer,
    colliders: wgpu::Buffer,
    grid: Option<GpuGrid>,
    /// With a grid: the spatial order the collide iterations run in.
    near: Option<Near>,
    kernels: Kernels,
    /// The step's GPU time (see [`GpuAggregate::enable_timing`]).
    timing: Option<StepTimer>,
    /// Timestamps between the stages inside the passes (timing on, and an adapter with
    /// `TIMESTAMP_QUERY_INSIDE_PASSES`).
    stages: Option<StageMarks>,
    /// Edits and step parameters, recorded in order into the next step's encoder.
    uploads: StepUploads,
    /// Whether no particle has an own acceleration ([`GpuAggregate::set_shared_acceleration`]).
    shared_acceleration: bool,
}

/// The most timestamps one step writes between its stages (a step with more collide
/// iterations than fit leaves the rest unmarked).
const MAX_MARKS: u32 = 128;

/// Stage timestamps: a query set written inside the passes, and what each span measured.
struct StageMarks {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    /// Queries written by the last step.
    written: u32,
    /// (first query, second query, stage name, collide iteration or 0) of each span.
    spans: Vec<(u32, u32, &'static str, u32)>,
}

impl StageMarks {
    /// Writes a timestamp into `pass` and returns its index (`None` when the set is full).
    fn mark(&mut self, pass: &mut wgpu::ComputePass<'_>) -> Option<u32> {
        (self.written < MAX_MARKS).then(|| {
            pass.write_timestamp(&self.queries, self.written);
            self.written += 1;
            self.written - 1
        })
    }

    /// Closes the span that began at `start` with a new timestamp, naming it.
    fn span(
        &mut self,
        pass: &mut wgpu::ComputePass<'_>,
        start: Option<u32>,
        stage: &'static str,
        iteration: u32,
    ) -> Option<u32> {
        let end = self.mark(pass);
        if let (Some(a), Some(b)) = (start, end) {
            self.spans.push((a, b, stage, iteration));
        }
        end
    }
}

fn table(ctx: &GpuContext, name: &str, data: &[u8]) -> wgpu::Buffer {
    buffer::with_data(&ctx.device, name, data, STATE)
}

/// The colliders' uniform table (`MAX_COLLIDERS` entries; the world checks the count).
fn collider_table(ctx: &GpuContext, items: &[GpuCollider]) -> wgpu::Buffer {
    buffer::uniform_table(
        &ctx.device,
        "agg_colliders",
        items,
        crate::colliders::MAX_COLLIDERS,
    )
}

impl GpuAggregate {
    /// Creates buffers and kernels for `capacity` particles; `turbulence`: whether the world's
    /// fields include turbulence (else the integrate kernel is compiled without it).
    ///
    /// # Errors
    /// [`crate::Error::InvalidCapacity`] beyond one dispatch's workgroups;
    /// [`crate::Error::CapacityTooLarge`] when a binding would exceed the device's limit (with
    /// a grid, [`NEAR_STATE_BYTES`] per slot); grid-creation errors.
    pub fn new(
        ctx: &GpuContext,
        capacity: u32,
        grid: Option<GridSpec>,
        t: &Tables,
        turbulence: bool,
    ) -> Result<Self> {
        // The step dispatches one workgroup per WG particle slots directly: more would exceed
        // the device's workgroups per dispatch (a validation error at the step).
        let groups = ctx.device.limits().max_compute_workgroups_per_dimension;
        if capacity.div_ceil(WG) > groups {
            return Err(crate::Error::InvalidCapacity {
                capacity,
                reason: format!(
                    "an aggregate step dispatches one workgroup per {WG} particles and this \
                     device allows {groups} workgroups per dispatch: use at most {} particles",
                    u64::from(groups) * u64::from(WG)
                ),
            });
        }
        // The largest binding per particle slot: with a grid the spatial order's packed state
        // (positions and velocities as the halves of one binding), else a vec4 array. Checked
        // before anything is allocated.
        let per_slot = if grid.is_some() { NEAR_STATE_BYTES } else { 16 };
        let (needed, max) = (per_slot * u64::from(capacity), ctx.max_binding_bytes());
        if needed > max {
            return Err(crate::Error::CapacityTooLarge {
                capacity,
                needed_bytes: needed,
                max_bytes: max,
                max_capacity: u32::try_from(max / per_slot).unwrap_or(u32::MAX),
            });
        }
        let device = &ctx.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgphys:shader:aggregate"),
            source: wgpu::ShaderSource::Wgsl(shader_source().into()),
        });
        let n = u64::from(capacity);
        let v4 = |name: &str, extra: U| buffer::zeroed(device, name, 16 * n, STATE | extra);
        // The collider table is fixed for the world's life: with half-spaces alone (the sand
        // box) the collide kernels are compiled without the spheres' and boxes' code.
        let solids = t
            .colliders
            .iter()
            .any(|c| c.kind != collider_kind::HALF_SPACE);
        let (grid, near) = match grid {
            Some(spec) => (
                Some(GpuGrid::new(ctx, capacity, spec)?),
                Some(Near::new(ctx, &module, capacity, &spec, solids)?),
            ),
            None => (None, None),
        };
        let collide = collide_kernel(device, &module, "collide", solids, false);
        let mut me = Self {
            last_stages: Vec::new(),
            ctx: ctx.clone(),
            capacity,
            params: buffer::zeroed(
                device,
                "agg_params",
                size_of::<GpuAggParams>() as u64,
                U::UNIFORM | U::COPY_DST,
            ),
            pos_a: v4("agg_pos", U::VERTEX),
            vel_a: v4("agg_vel", U::empty()),
            pos_b: v4("agg_pos_next", U::empty()),
            vel_b: v4("agg_vel_next", U::empty()),
            acc: v4("agg_acc", U::empty()),
            radius: buffer::zeroed(device, "agg_radius", 4 * n, STATE | U::VERTEX),
            colour: v4("agg_colour", U::VERTEX),
            draw_args: buffer::zeroed(device, "agg_draw_args", 16, STATE | U::INDIRECT),
            gens: table(ctx, "agg_gens", bytemuck::cast_slice(t.gens)),
            gen_offsets: table(ctx, "agg_gen_offsets", bytemuck::cast_slice(t.gen_offsets)),
            gen_refs: table(ctx, "agg_gen_refs", bytemuck::cast_slice(t.gen_refs)),
            links: table(ctx, "agg_links", bytemuck::cast_slice(t.links)),
            colour_start: table(
                ctx,
                "agg_colour_start",
                bytemuck::cast_slice(t.colour_start),
            ),
            colliders: collider_table(ctx, t.colliders),
            grid,
            near,
            kernels: Kernels {
                // The field table is fixed for the world's life: without a turbulence field the
                // kernel is compiled without the noise's code (`FIELD_TURBULENCE`, fields.wgsl).
                integrate: Kernel::with_flags(
                    device,
                    &module,
                    "agg_integrate",
                    &[("FIELD_TURBULENCE", "+turbulence", turbulence)],
                ),
                collide_b_to_a: collide.sibling(),
                collide_a_to_b: collide,
                solve_links: Kernel::new(device, &module, "solve_links"),
            },
            timing: None,
            stages: None,
            uploads: StepUploads::new(ctx, "wgphys:upload:aggregate"),
            shared_acceleration: false,
        };
        me.bind_all();
        Ok(me)
    }

    fn bind_all(&mut self) {
        use binding::*;
        let d = &self.ctx.device;
        let k = &mut self.kernels;
        k.integrate.bind(
            d,
            &[
                (PARAMS, &self.params),
                (POS_IN, &self.pos_a),
                (VEL_IN, &self.vel_a),
                (POS_OUT, &self.pos_b),
                (VEL_OUT, &self.vel_b),
                (ACC, &self.acc),
                (GENS, &self.gens),
                (GEN_OFFSETS, &self.gen_offsets),
                (GEN_REFS, &self.gen_refs),
            ],
        );
        for (kernel, (pi, vi, po, vo)) in [
            (
                &mut k.collide_b_to_a,
                (&self.pos_b, &self.vel_b, &self.pos_a, &self.vel_a),
            ),
            (
                &mut k.collide_a_to_b,
                (&self.pos_a, &self.vel_a, &self.pos_b, &self.vel_b),
            ),
        ] {
            kernel.bind(
                d,
                &[
                    (PARAMS, &self.params),
                    (POS_IN, pi),
                    (VEL_IN, vi),
                    (POS_OUT, po),
                    (VEL_OUT, vo),
                    (ACC, &self.acc),
                    (RADIUS, &self.radius),
                    (COLLIDERS, &self.colliders),
                ],
            );
        }
        if let (Some(near), Some(grid)) = (&mut self.near, &self.grid) {
            let order = near.sort.sorted_values();
            near.keys.bind(
                d,
                &[
                    (PARAMS, &self.params),
                    (POS_IN, &self.pos_b),
                    (ORDER_KEYS, &near.sort.keys),
                    (ORDER_IDS, &near.sort.values),
                ],
            );
            near.gather.bind(
                d,
                &[
                    (PARAMS, &self.params),
                    (ORDER, order),
                    (POS_IN, &self.pos_b),
                    (VEL_IN, &self.vel_b),
                    (ACC, &self.acc),
                    (RADIUS, &self.radius),
                    (NEAR_OUT, &near.state[0]),
                    (NEAR_ACC_OUT, &near.acc),
                    (NEAR_SLOT, &near.slot),
                ],
            );
            near.cells_kernel.bind(
                d,
                &[
                    (PARAMS, &self.params),
                    (GRID_SORTED, grid.sorted_index()),
                    (GRID_START, grid.cell_start()),
                    (GRID_END, grid.cell_end()),
                    (NEAR_SLOT, &near.slot),
                    (CELLS_OUT, &near.cells),
                    (CELL_SLOTS_OUT, &near.cell_slots),
                ],
            );
            near.list.bind(
                d,
                &[
                    (PARAMS, &self.params),
                    (NEAR_IN, &near.state[0]),
                    (ORDER, order),
                    (CELLS, &near.cells),
                    (CELL_SLOTS, &near.cell_slots),
                    (CANDIDATES_OUT, &near.candidates),
                ],
            );
            for k in 0..2 {
                for variant in &mut near.collide {
                    variant[k].bind(
                        d,
                        &[
                            (PARAMS, &self.params),
                            (NEAR_IN, &near.state[k]),
                            (NEAR_OUT, &near.state[1 - k]),
                            (NEAR_ACC, &near.acc),
                            (COLLIDERS, &self.colliders),
                            (CELLS, &near.cells),
                            (CELL_SLOTS, &near.cell_slots),
                            (CANDIDATES, &near.candidates),
                            (POS_IN, &self.pos_b),
                        ],
                    );
                }
                near.scatter[k].bind(
                    d,
                    &[
                        (PARAMS, &self.params),
                        (ORDER, order),
                        (NEAR_IN, &near.state[k]),
                        (POS_IN, &self.pos_b),
                        (VEL_IN, &self.vel_b),
                        (POS_OUT, &self.pos_a),
                        (VEL_OUT, &self.vel_a),
                    ],
                );
            }
        }
        k.solve_links.bind(
            d,
            &[
                (PARAMS, &self.params),
                (POS_OUT, &self.pos_a),
                (VEL_OUT, &self.vel_a),
                (ACC, &self.acc),
                (LINKS, &self.links),
                (COLOUR_START, &self.colour_start),
            ],
        );
    }

    /// Rebuilds the grid for a new spec (the automatic cell size is settled by the first
    /// particles).
    ///
    /// # Errors
    /// Grid-creation errors.
    pub fn set_grid_spec(&mut self, spec: GridSpec) -> Result<()> {
        let cells = cells_buffer(&self.ctx, &spec)?;
        self.grid = Some(GpuGrid::new(&self.ctx, self.capacity, spec)?);
        if let Some(near) = &mut self.near {
            near.cells = cells;
        }
        self.bind_all();
        Ok(())
    }

    /// Sets how many candidates a slot's list holds on the GPU (`near_list`; default
    /// [`DEFAULT_LIST_CAPACITY`], fewer where the device's binding limit needs it). Slots with
    /// more walk the grid in the collide stage and reach the same result, slower. Worlds
    /// without a grid ignore it.
    ///
    /// # Errors
    /// [`crate::Error::InvalidInput`] when the lists would exceed the device's binding limit.
    pub fn set_list_capacity(&mut self, list_capacity: u32) -> Result<()> {
        if let Some(near) = &mut self.near {
            near.candidates = candidates_buffer(&self.ctx, self.capacity, list_capacity)?;
            near.list_capacity = list_capacity;
        }
        self.bind_all();
        Ok(())
    }

    /// Replaces the static tables (after generators, links or colliders change).
    pub fn set_tables(&mut self, t: &Tables) {
        self.gens = table(&self.ctx, "agg_gens", bytemuck::cast_slice(t.gens));
        self.gen_offsets = table(
            &self.ctx,
            "agg_gen_offsets",
            bytemuck::cast_slice(t.gen_offsets),
        );
        self.gen_refs = table(&self.ctx, "agg_gen_refs", bytemuck::cast_slice(t.gen_refs));
        self.links = table(&self.ctx, "agg_links", bytemuck::cast_slice(t.links));
        self.colour_start = table(
            &self.ctx,
            "agg_colour_start",
            bytemuck::cast_slice(t.colour_start),
        );
        self.colliders = collider_table(&self.ctx, t.colliders);
        self.bind_all();
    }

    /// Rewrites one generator record in place (a moved anchor); lands in order with the steps.
    pub fn write_gen(&self, index: u32, g: &GpuGen) {
        self.uploads.write(
            &self.gens,
            u64::from(index) * size_of::<GpuGen>() as u64,
            &[*g],
        );
    }

    /// Writes the full state of consecutive slots starting at `first`.
    pub fn write_particles(
        &self,
        first: u32,
        pos: &[Vec4],
        vel: &[Vec4],
        acc: &[Vec4],
        radius: &[f32],
        colour: &[Vec4],
    ) {
        let u = &self.uploads;
        let o = u64::from(first) * 16;
        u.write(&self.pos_a, o, pos);
        u.write(&self.vel_a, o, vel);
        u.write(&self.acc, o, acc);
        u.write(&self.colour, o, colour);
        u.write(&self.radius, u64::from(first) * 4, radius);
    }

    /// Marks a slot removed: alive flag (pos.w), inverse mass, radius and colour to zero.
    pub fn kill(&self, i: u32) {
        let u = &self.uploads;
        let o = u64::from(i) * 16;
        u.write(&self.pos_a, o + 12, &[0.0f32]);
        u.write(&self.acc, o, &[Vec4::ZERO]);
        u.write(&self.colour, o, &[Vec4::ZERO]);
        u.write(&self.radius, u64::from(i) * 4, &[0.0f32]);
    }

    /// Writes one particle's position, or with `velocity` its velocity (xyz: the alive flag
    /// and the damping in w stay).
    pub fn write_xyz(&self, velocity: bool, i: u32, x: Vec3) {
        let buffer = if velocity { &self.vel_a } else { &self.pos_a };
        self.uploads.write(buffer, u64::from(i) * 16, &x.to_array());
    }

    /// Says whether every particle's own acceleration is +0 (the world keeps count), so that
    /// the collide iterations take a neighbour's acceleration from the grain's own and skip the
    /// read (`SHARED_ACCELERATION`, collide.wgsl). Off until set; with it on while a particle
    /// has an own acceleration, the contacts would use the wrong one.
    pub fn set_shared_acceleration(&mut self, shared: bool) {
        self.shared_acceleration = shared;
    }

    /// Writes one particle's acceleration and inverse mass.
    pub fn write_acc(&self, i: u32, acc: Vec4) {
        self.uploads.write(&self.acc, u64::from(i) * 16, &[acc]);
    }

    /// Publishes the draw arguments for `n` slots.
    pub fn write_draw_args(&self, n: u32) {
        self.uploads.write(&self.draw_args, 0, &[6u32, n, 0, 0]);
    }

    /// Submits the edits not yet recorded into a step, so a readback sees them.
    pub fn flush_edits(&self) {
        self.uploads.submit();
    }

    /// Records one step as at most two compute passes: `aggregate_step` (integrate, then the
    /// grid build, the spatial order, the candidate lists and the collision iterations), then, after the copy back
    /// when the iterations ended in the second buffer pair, `aggregate_links` (the link solver,
    /// when the world has links). Returns the number of dispatches recorded (the grid build's
    /// included). With timing on, the step's span opens with the first pass and closes with the
    /// last.
    ///
    /// # Errors
    /// Propagates grid build errors.
    pub fn encode(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        params: &GpuAggParams,
        collide: bool,
    ) -> Result<u32> {
        let params = &GpuAggParams {
            list_capacity: self.near.as_ref().map_or(0, |k| k.list_capacity),
            ..*params
        };
        self.uploads.write(&self.params, 0, &[*params]);
        self.uploads.record(encoder);
        let n = params.n;
        let groups = Dispatch::Direct(n.div_ceil(WG).max(1));
        let iterations = params.collide_iterations.max(1);
        let stages = AggStep {
            collide,
            gridded: self.grid.is_some() && self.near.is_some() && n > 0,
            links: params.link_count > 0 && params.link_iterations > 0,
        };
        let sequence = stages.sequence();
        if sequence.contains(&AggStage::GridBuild) {
            if let Some(grid) = &mut self.grid {
                grid.prepare_build(encoder, &self.pos_b, n)?;
            }
            if let Some(near) = &self.near {
                near.sort.prepare(encoder, n)?;
            }
        }
        let mut dispatches = 1;
        let mut in_b = true;
        let mut marks = self.stages.take();
        if let Some(m) = &mut marks {
            m.written = 0;
            m.spans.clear();
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wgphys:pass:aggregate_step"),
                timestamp_writes: self
                    .timing
                    .as_ref()
                    .map(|t| t.writes(0, true, !stages.links)),
            });
            // Each stage's span closes with a timestamp after its dispatches (`span`).
            let mut at = marks.as_mut().and_then(|m| m.mark(&mut pass));
            let mut span =
                |pass: &mut wgpu::ComputePass<'_>, at: &mut Option<u32>, stage: AggStage, i| {
                    if let Some(m) = &mut marks {
                        *at = m.span(pass, *at, stage.name(), i);
                    }
                };
            // The collide iterations of the spatial order ping-pong between two buffers.
            let mut cur = 0;
            for &stage in sequence.iter().filter(|&&s| s != AggStage::Links) {
                match (stage, &self.grid, &self.near) {
                    (AggStage::Integrate, _, _) => {
                        self.kernels.integrate.dispatch_in(&mut pass, groups)
                    }
                    (AggStage::GridBuild, Some(grid), _) => {
                        grid.dispatch_build_in(&mut pass, n);
                        dispatches += grid.dispatches();
                    }
                    (AggStage::NearOrder, _, Some(k)) => {
                        let table = params.table_mask.wrapping_add(1).max(n);
                        k.keys.dispatch_in(&mut pass, groups);
                        k.sort.dispatch_in(&mut pass, n);
                        k.gather.dispatch_in(&mut pass, groups);
                        let cell_groups = table.div_ceil(WG).clamp(1, MAX_GROUPS);
                        k.cells_kernel
                            .dispatch_in(&mut pass, Dispatch::Direct(cell_groups));
                    }
                    (AggStage::NearList, _, Some(k)) => k.list.dispatch_in(&mut pass, groups),
                    (AggStage::Collide, _, Some(k)) if stages.gridded => {
                        let collide = &k.collide[usize::from(self.shared_acceleration)];
                        for i in 0..iterations {
                            collide[cur].dispatch_in(&mut pass, groups);
                            span(&mut pass, &mut at, stage, i + 1);
                            cur = 1 - cur;
                        }
                        dispatches += k.dispatches(iterations);
                        continue;
                    }
                    (AggStage::Collide, _, _) => {
                        for i in 0..iterations {
                            let k = if in_b {
                                &self.kernels.collide_b_to_a
                            } else {
                                &self.kernels.collide_a_to_b
                            };
                            k.dispatch_in(&mut pass, groups);
                            span(&mut pass, &mut at, stage, i + 1);
                            dispatches += 1;
                            in_b = !in_b;
                        }
                        continue;
                    }
                    (AggStage::NearScatter, _, Some(k)) => {
                        k.scatter[cur].dispatch_in(&mut pass, groups);
                        in_b = false;
                    }
                    _ => {}
                }
                span(&mut pass, &mut at, stage, 0);
            }
        }
        if in_b {
            let bytes = u64::from(n) * 16;
            encoder.copy_buffer_to_buffer(&self.pos_b, 0, &self.pos_a, 0, bytes);
            encoder.copy_buffer_to_buffer(&self.vel_b, 0, &self.vel_a, 0, bytes);
        }
        if sequence.contains(&AggStage::Links) {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wgphys:pass:aggregate_links"),
                timestamp_writes: self.timing.as_ref().map(|t| t.writes(0, false, true)),
            });
            let at = marks.as_mut().and_then(|m| m.mark(&mut pass));
            self.kernels
                .solve_links
                .dispatch_in(&mut pass, Dispatch::Direct(1));
            if let Some(m) = &mut marks {
                m.span(&mut pass, at, AggStage::Links.name(), 0);
            }
            dispatches += 1;
        }
        self.last_stages = sequence;
        if let Some(t) = &self.timing {
            t.resolve(encoder);
        }
        if let Some(m) = &marks {
            if m.written > 0 {
                encoder.resolve_query_set(&m.queries, 0..m.written, &m.resolve, 0);
            }
        }
        self.stages = marks;
        Ok(dispatches)
    }

    /// Turns on GPU timestamps for the step (first pass to last), if the adapter has
    /// timestamp queries; returns whether timing is on.
    pub fn enable_timing(&mut self) -> bool {
        self.timing = StepTimer::new(&self.ctx, "aggregate_step", 1);
        self.stages =
            (self.timing.is_some() && self.ctx.timestamps_inside_passes()).then(|| StageMarks {
                queries: self.ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("wgphys:queries:aggregate_stages"),
                    ty: wgpu::QueryType::Timestamp,
                    count: MAX_MARKS,
                }),
                resolve: buffer::zeroed(
                    &self.ctx.device,
                    "aggregate_stage_timestamps",
                    8 * u64::from(MAX_MARKS),
                    U::QUERY_RESOLVE | U::COPY_SRC,
                ),
                written: 0,
                spans: Vec::new(),
            });
        self.timing.is_some()
    }

    /// GPU milliseconds of each stage of the last step recorded with timing on, in step
    /// order: `integrate`, `grid_build`, `near_order` (keys, sort, gather, cell lists),
    /// `near_list` (the candidate lists), `collide` once per iteration (numbered from 1), `near_scatter`, `links`; each from a
    /// timestamp written inside the pass after the stage's dispatches (approximate where a GPU
    /// overlaps dispatches). Needs `TIMESTAMP_QUERY_INSIDE_PASSES`.
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] when timing is off or the adapter cannot write
    /// timestamps inside passes; [`crate::Error::Gpu`] when the readback fails.
    pub fn last_step_stage_ms(&self) -> Result<Vec<(&'static str, u32, f64)>> {
        let m = self.stages.as_ref().ok_or_else(|| {
            crate::Error::Unsupported(
                "aggregate stage timing needs timing on (enable_timing) and an adapter with \
                 TIMESTAMP_QUERY_INSIDE_PASSES"
                    .into(),
            )
        })?;
        let ts: Vec<u64> = buffer::read_vec(
            &self.ctx.device,
            &self.ctx.queue,
            &m.resolve,
            m.written as usize,
        )?;
        let period = f64::from(self.ctx.queue.get_timestamp_period());
        Ok(m.spans
            .iter()
            .filter_map(|&(a, b, stage, i)| {
                let (ta, tb) = (ts.get(a as usize)?, ts.get(b as usize)?);
                Some((stage, i, tb.wrapping_sub(*ta) as f64 * period / 1e6))
            })
            .collect())
    }

    /// GPU milliseconds of the last step recorded with timing on (blocking readback;
    /// benchmarks and tools).
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] when timing is off; [`crate::Error::Gpu`] when the readback
    /// fails.
    pub fn last_step_gpu_ms(&self) -> Result<f64> {
        let t = self.timing.as_ref().ok_or_else(|| {
            crate::Error::Unsupported("timestamp queries are off or unavailable".into())
        })?;
        Ok(t.read_ms(&self.ctx)?.iter().sum())
    }

    /// Blocking read of the first `n` slots: (positions, velocities).
    ///
    /// # Errors
    /// [`crate::Error::Gpu`] on readback failure.
    pub fn read(&self, n: usize) -> Result<(Vec<Vec4>, Vec<Vec4>)> {
        self.flush_edits();
        let (d, q) = (&self.ctx.device, &self.ctx.queue);
        Ok((
            buffer::read_vec(d, q, &self.pos_a, n)?,
            buffer::read_vec(d, q, &self.vel_a, n)?,
        ))
    }

    /// Blocking read of the spatial order of the last step (worlds with a grid; `None`
    /// without one): `n` slots of `order`, the slot table's `table_size` entries, and `n`
    /// entries of `cell_slots` (tests; see [`cpu::near_order`](super::cpu::near_order) and
    /// [`cpu::near_cells`](super::cpu::near_cells) for their meaning).
    ///
    /// # Errors
    /// [`crate::Error::Gpu`] on readback failure.
    pub fn read_near(&self, n: u32) -> Result<Option<NearTables>> {
        let (Some(near), Some(grid)) = (&self.near, &self.grid) else {
            return Ok(None);
        };
        let (d, q) = (&self.ctx.device, &self.ctx.queue);
        let n = n.min(self.capacity) as usize;
        Ok(Some(NearTables {
            order: buffer::read_vec(d, q, near.sort.sorted_values(), n)?,
            cells: buffer::read_vec(d, q, &near.cells, grid.spec().table_size as usize)?,
            cell_slots: buffer::read_vec(d, q, &near.cell_slots, n)?,
            candidates: buffer::read_vec(
                d,
                q,
                &near.candidates,
                (2 + near.list_capacity as usize) * n,
            )?,
            list_capacity: near.list_capacity,
        }))
    }

    /// Particle capacity.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }
}
