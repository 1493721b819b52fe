//! GPU host code for the aggregate stages: buffers, kernels and the step recorder. The
//! stages and their order match `AggregateWorld::step` on the CPU.

use super::types::*;
use crate::error::Result;
use crate::gpu::buffer::{self, STATE};
use crate::gpu::kernel::{Dispatch, Kernel};
use crate::gpu::shader::{compose, prelude, BindingDecl};
use crate::gpu::GpuContext;
use crate::grid::gpu::GpuGrid;
use crate::grid::GridSpec;
use crate::particles::types::{GpuCollider, MAX_FIELDS, WG};
use glam::Vec4;
use std::mem::size_of;
use wgpu::BufferUsages as U;

/// Binding indices of the aggregate domain's group 0, named once.
pub mod binding {
    #![allow(missing_docs)]
    pub const PARAMS: u32 = 0;
    pub const POS_IN: u32 = 1;
    pub const VEL_IN: u32 = 2;
    pub const POS_OUT: u32 = 3;
    pub const VEL_OUT: u32 = 4;
    pub const ACC: u32 = 5;
    pub const RADIUS: u32 = 6;
    pub const GENS: u32 = 7;
    pub const GEN_OFFSETS: u32 = 8;
    pub const GEN_REFS: u32 = 9;
    pub const LINKS: u32 = 10;
    pub const COLOUR_START: u32 = 11;
    pub const COLLIDERS: u32 = 12;
    pub const GRID_SORTED: u32 = 13;
    pub const GRID_START: u32 = 14;
    pub const GRID_END: u32 = 15;
}

const RW: &str = "storage, read_write";
/// Inputs no aggregate kernel writes: declared read-only so the compiler may keep them in
/// registers and reorder loads around the output stores.
const RO: &str = "storage, read";

/// The aggregate domain's bindings, emitted into the WGSL prelude.
pub const BINDINGS: &[BindingDecl] = &[
    BindingDecl {
        index: binding::PARAMS,
        name: "params",
        space: "uniform",
        ty: "AggParams",
    },
    BindingDecl {
        index: binding::POS_IN,
        name: "pos_in",
        space: RO,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::VEL_IN,
        name: "vel_in",
        space: RO,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::POS_OUT,
        name: "pos_out",
        space: RW,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::VEL_OUT,
        name: "vel_out",
        space: RW,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::ACC,
        name: "acc",
        space: RO,
        ty: "array<vec4<f32>>",
    },
    BindingDecl {
        index: binding::RADIUS,
        name: "radius",
        space: RO,
        ty: "array<f32>",
    },
    BindingDecl {
        index: binding::GENS,
        name: "gens",
        space: RO,
        ty: "array<Gen>",
    },
    BindingDecl {
        index: binding::GEN_OFFSETS,
        name: "gen_offsets",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::GEN_REFS,
        name: "gen_refs",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::LINKS,
        name: "links",
        space: RO,
        ty: "array<Link>",
    },
    BindingDecl {
        index: binding::COLOUR_START,
        name: "colour_start",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::COLLIDERS,
        name: "colliders",
        space: RO,
        ty: "array<Collider>",
    },
    BindingDecl {
        index: binding::GRID_SORTED,
        name: "grid_sorted",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::GRID_START,
        name: "grid_start",
        space: RO,
        ty: "array<u32>",
    },
    BindingDecl {
        index: binding::GRID_END,
        name: "grid_end",
        space: RO,
        ty: "array<u32>",
    },
];

/// The composed WGSL module of the aggregate domain.
pub fn shader_source() -> String {
    let consts = [("WG", WG), ("MAX_FIELDS", MAX_FIELDS), ("NONE", NONE)];
    // The collide stage's float constants, defined once in model.rs.
    let relaxation = format!(
        "const RELAXATION: f32 = {:?};\nconst REST_DEPTH: f32 = {:?};\n",
        super::model::COLLIDE_RELAXATION,
        super::model::COLLIDE_REST_DEPTH
    );
    compose(
        &(prelude(&consts, BINDINGS) + &relaxation),
        &[
            include_str!("../../shaders/aggregate/types.wgsl"),
            include_str!("../../shaders/common/forces.wgsl"),
            &crate::grid::gpu::common_source(),
            include_str!("../../shaders/aggregate/integrate.wgsl"),
            include_str!("../../shaders/aggregate/links.wgsl"),
            include_str!("../../shaders/aggregate/collide.wgsl"),
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
    grid_dummy: wgpu::Buffer,
    kernels: Kernels,
}

fn table(ctx: &GpuContext, name: &str, data: &[u8]) -> wgpu::Buffer {
    buffer::with_data(&ctx.device, name, data, STATE)
}

impl GpuAggregate {
    /// Creates buffers and kernels for `capacity` particles.
    ///
    /// # Errors
    /// Propagates grid-creation errors.
    pub fn new(
        ctx: &GpuContext,
        capacity: u32,
        grid: Option<GridSpec>,
        t: &Tables,
    ) -> Result<Self> {
        let device = &ctx.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("wgphys:shader:aggregate"),
            source: wgpu::ShaderSource::Wgsl(shader_source().into()),
        });
        let n = u64::from(capacity);
        let v4 = |name: &str, extra: U| buffer::zeroed(device, name, 16 * n, STATE | extra);
        let grid = match grid {
            Some(spec) => Some(GpuGrid::new(ctx, capacity, spec)?),
            None => None,
        };
        let mut me = Self {
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
            colliders: table(ctx, "agg_colliders", bytemuck::cast_slice(t.colliders)),
            grid,
            grid_dummy: buffer::zeroed(device, "agg_grid_dummy", 16, STATE),
            kernels: Kernels {
                integrate: Kernel::new(device, &module, "agg_integrate"),
                collide_b_to_a: Kernel::new(device, &module, "collide"),
                collide_a_to_b: Kernel::new(device, &module, "collide"),
                solve_links: Kernel::new(device, &module, "solve_links"),
            },
        };
        me.bind_all();
        Ok(me)
    }

    fn bind_all(&mut self) {
        use binding::*;
        let d = &self.ctx.device;
        let (sorted, start, end) = match &self.grid {
            Some(g) => (g.sorted_index(), g.cell_start(), g.cell_end()),
            None => (&self.grid_dummy, &self.grid_dummy, &self.grid_dummy),
        };
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
                    (GRID_SORTED, sorted),
                    (GRID_START, start),
                    (GRID_END, end),
                ],
            );
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
        self.grid = Some(GpuGrid::new(&self.ctx, self.capacity, spec)?);
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
        self.colliders = table(
            &self.ctx,
            "agg_colliders",
            bytemuck::cast_slice(t.colliders),
        );
        self.bind_all();
    }

    /// Rewrites one generator record in place (a moved anchor).
    pub fn write_gen(&self, index: u32, g: &GpuGen) {
        self.ctx.queue.write_buffer(
            &self.gens,
            u64::from(index) * size_of::<GpuGen>() as u64,
            bytemuck::bytes_of(g),
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
        let q = &self.ctx.queue;
        let o = u64::from(first) * 16;
        q.write_buffer(&self.pos_a, o, bytemuck::cast_slice(pos));
        q.write_buffer(&self.vel_a, o, bytemuck::cast_slice(vel));
        q.write_buffer(&self.acc, o, bytemuck::cast_slice(acc));
        q.write_buffer(&self.colour, o, bytemuck::cast_slice(colour));
        q.write_buffer(
            &self.radius,
            u64::from(first) * 4,
            bytemuck::cast_slice(radius),
        );
    }

    /// Marks a slot removed: alive flag (pos.w), inverse mass, radius and colour to zero.
    pub fn kill(&self, i: u32) {
        let q = &self.ctx.queue;
        let o = u64::from(i) * 16;
        q.write_buffer(&self.pos_a, o + 12, bytemuck::bytes_of(&0.0f32));
        q.write_buffer(&self.acc, o, bytemuck::bytes_of(&Vec4::ZERO));
        q.write_buffer(&self.colour, o, bytemuck::bytes_of(&Vec4::ZERO));
        q.write_buffer(&self.radius, u64::from(i) * 4, bytemuck::bytes_of(&0.0f32));
    }

    /// Writes one particle's acceleration and inverse mass.
    pub fn write_acc(&self, i: u32, acc: Vec4) {
        self.ctx
            .queue
            .write_buffer(&self.acc, u64::from(i) * 16, bytemuck::bytes_of(&acc));
    }

    /// Publishes the draw arguments for `n` slots.
    pub fn write_draw_args(&self, n: u32) {
        self.ctx
            .queue
            .write_buffer(&self.draw_args, 0, bytemuck::cast_slice(&[6u32, n, 0, 0]));
    }

    /// Records one step: integrate, then (grid build and) collision iterations, then links.
    /// Returns the number of dispatches recorded (the grid build's included).
    ///
    /// # Errors
    /// Propagates grid build errors.
    pub fn encode(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        params: &GpuAggParams,
        collide: bool,
    ) -> Result<u32> {
        self.ctx
            .queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(params));
        let n = params.n;
        let groups = Dispatch::Direct(n.div_ceil(WG).max(1));
        let mut dispatches = 1;
        self.kernels.integrate.record(encoder, groups, None);
        let mut in_b = true;
        if collide {
            if params.collisions != 0 {
                if let Some(grid) = &mut self.grid {
                    grid.encode_build(encoder, &self.pos_b, n)?;
                    dispatches += grid.dispatches();
                }
            }
            for _ in 0..params.collide_iterations.max(1) {
                let k = if in_b {
                    &self.kernels.collide_b_to_a
                } else {
                    &self.kernels.collide_a_to_b
                };
                k.record(encoder, groups, None);
                dispatches += 1;
                in_b = !in_b;
            }
        }
        if in_b {
            let bytes = u64::from(n) * 16;
            encoder.copy_buffer_to_buffer(&self.pos_b, 0, &self.pos_a, 0, bytes);
            encoder.copy_buffer_to_buffer(&self.vel_b, 0, &self.vel_a, 0, bytes);
        }
        if params.link_count > 0 && params.link_iterations > 0 {
            self.kernels
                .solve_links
                .record(encoder, Dispatch::Direct(1), None);
            dispatches += 1;
        }
        Ok(dispatches)
    }

    /// Blocking read of the first `n` slots: (positions, velocities).
    ///
    /// # Errors
    /// [`crate::Error::Gpu`] on readback failure.
    pub fn read(&self, n: usize) -> Result<(Vec<Vec4>, Vec<Vec4>)> {
        let (d, q) = (&self.ctx.device, &self.ctx.queue);
        Ok((
            buffer::read_vec(d, q, &self.pos_a, n)?,
            buffer::read_vec(d, q, &self.vel_a, n)?,
        ))
    }

    /// Particle capacity.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }
}
