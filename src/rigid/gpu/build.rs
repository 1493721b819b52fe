//! Building a [`GpuRigid`]: the buffers sized against the device's binding limit, the pass
//! records and the bind groups of every layout class.

use super::*;

fn checked_bytes(ctx: &GpuContext, what: &'static str, count: u64, stride: u64) -> Result<u64> {
    let bytes = count.saturating_mul(stride);
    if bytes > ctx.max_binding_bytes() {
        return Err(Error::InvalidInput {
            what,
            value: format!(
                "{count} slots need {bytes} bytes, the device binds at most {}",
                ctx.max_binding_bytes()
            ),
            fix: "lower the capacity",
        });
    }
    Ok(bytes)
}

impl GpuRigid {
    /// Creates every buffer and the bind groups; pipelines are compiled on first use.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when a buffer would exceed the device's binding limit or the grid
    /// spec is invalid.
    pub fn new(ctx: &GpuContext, sizes: GpuRigidSizes) -> Result<Self> {
        Self::with_program(ctx, sizes, std::sync::Arc::new(RigidProgram::new(ctx)?))
    }

    /// A backend of new sizes that shares this one's compiled pipelines (the state is not
    /// copied).
    ///
    /// # Errors
    /// As [`GpuRigid::new`].
    pub fn resized(&self, sizes: GpuRigidSizes) -> Result<Self> {
        Self::with_program(&self.ctx, sizes, self.program.clone())
    }

    fn with_program(
        ctx: &GpuContext,
        sizes: GpuRigidSizes,
        program: std::sync::Arc<RigidProgram>,
    ) -> Result<Self> {
        let device = &ctx.device;
        let body_bytes = checked_bytes(
            ctx,
            "body capacity",
            u64::from(sizes.bodies),
            size_of::<GpuBody>() as u64,
        )?;
        let shape_bytes = checked_bytes(
            ctx,
            "shape capacity",
            u64::from(sizes.shapes),
            size_of::<GpuShape>() as u64,
        )?;
        let xf_bytes = checked_bytes(ctx, "shape capacity", u64::from(sizes.shapes), 48)?;
        let pair_bytes = checked_bytes(ctx, "pair capacity", u64::from(sizes.pairs), 8)?;
        let manifold_bytes = checked_bytes(
            ctx,
            "pair capacity",
            u64::from(sizes.pairs),
            size_of::<GpuManifold>() as u64,
        )?;
        // The records are laid out by row (solve.wgsl SOLVE_RECORD_ROWS): a smaller buffer would
        // let one position's rows run into the next row's, silently.
        let records =
            u64::from(sizes.pairs) * u64::from(crate::rigid::solver::solver_record_rows());
        if sizes.solver_words < records {
            return Err(crate::Error::InvalidInput {
                what: "GpuRigidSizes::solver_words",
                value: format!("{} for {} pairs", sizes.solver_words, sizes.pairs),
                fix: "at least pairs × rigid::solver::solver_record_rows()",
            });
        }
        let solver_bytes = checked_bytes(
            ctx,
            "pair capacity (solver records)",
            sizes.solver_words,
            16,
        )?;
        let scratch_bytes = checked_bytes(
            ctx,
            "shape capacity (pair scratch)",
            sizes.pair_scratch_words,
            4,
        )?;
        let grid = GpuGrid::new(ctx, sizes.shapes.max(1), sizes.grid)?;
        let layout1 = &program.layout1;
        let params = buffer::zeroed(
            device,
            "rigid_params",
            size_of::<GpuRigidParams>() as u64,
            U::UNIFORM | U::COPY_DST,
        );
        let records: Vec<u8> = (0..PASS_RECORDS)
            .flat_map(|r| {
                let mut rec = vec![0u8; PASS_STRIDE as usize];
                let pass = GpuPass {
                    colour: r % WARM_PASS_RECORDS,
                    warm: u32::from(r >= WARM_PASS_RECORDS),
                    ..Default::default()
                };
                rec[..size_of::<GpuPass>()].copy_from_slice(bytemuck::bytes_of(&pass));
                rec
            })
            .collect();
        let pass_records = buffer::with_data(device, "rigid_pass_records", &records, U::UNIFORM);
        let explosion = buffer::zeroed(
            device,
            "rigid_explosion",
            size_of::<GpuExplosion>() as u64,
            U::UNIFORM | U::COPY_DST,
        );
        let bind1 = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("wgphys:bind_group:rigid_pass"),
            layout: layout1,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &pass_records,
                        offset: 0,
                        size: wgpu::BufferSize::new(size_of::<GpuPass>() as u64),
                    }),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: explosion.as_entire_binding(),
                },
            ],
        });
        let z = |name: &str, bytes: u64| buffer::zeroed(device, name, bytes, STATE);
        let bodies = z("rigid_bodies", body_bytes);
        let shapes = z("rigid_shapes", shape_bytes);
        let shape_pos = z("rigid_shape_pos", 16 * u64::from(sizes.shapes));
        let shape_xf = z("rigid_shape_xf", xf_bytes);
        let pairs = z("rigid_pairs", pair_bytes);
        let counters = z("rigid_counters", 4 * counter::LEN as u64);
        let manifolds = z("rigid_manifolds", manifold_bytes);
        let manifolds_prev = z("rigid_manifolds_prev", manifold_bytes);
        let solver = z("rigid_solver", solver_bytes);
        // 6 words per body (gpu/source.rs BINDINGS).
        let claims = z("rigid_claims", 24 * u64::from(sizes.bodies));
        // The colouring's sort by colour, whose output is `order` (see colour.wgsl).
        // With the block solver the keys are bins: see solver::block.
        let key_bits = match sizes.block_bins {
            0 => COLOUR_KEY_BITS,
            bins => crate::rigid::solver::block::key_bits(bins),
        };
        let colour_sort = GpuRadixSort::new(ctx, sizes.pairs.max(1), key_bits)?;
        let order = colour_sort.sorted_values().clone();
        let bins = u64::from(crate::rigid::solver::block::leftover_bin(
            sizes.block_bins.max(1),
        ));
        // Two words per bin, then per partition the list of its non-empty bins.
        let blocks = z("rigid_blocks", 8 * (bins + 2) + 4 * bins);
        let pair_scratch = z("rigid_pair_scratch", scratch_bytes);
        let joint_bytes = checked_bytes(
            ctx,
            "joint capacity",
            u64::from(sizes.joints.max(1)),
            size_of::<GpuJoint>() as u64,
        )?;
        let joints = z("rigid_joints", joint_bytes);
        let joint_filter = z(
            "rigid_joint_filter",
            16 * u64::from(sizes.joint_filter.max(1)),
        );
        let gen_bytes = checked_bytes(
            ctx,
            "force generator capacity",
            u64::from(sizes.generators.max(1)),
            size_of::<GpuForceGen>() as u64,
        )?;
        let force_gens = z("rigid_force_gens", gen_bytes);
        let index_words = u64::from(sizes.bodies) + 2 + 2 * u64::from(sizes.generators);
        let index_bytes = checked_bytes(ctx, "force generator index", index_words, 4)?;
        let generator_index = z("rigid_generator_index", index_bytes);
        let indirect = buffer::zeroed(
            device,
            "rigid_indirect",
            4 * counter::LEN as u64,
            STATE | U::INDIRECT,
        );
        let hulls = z("rigid_hulls", 16 * HULL_MIN_WORDS);
        let mut rigid = Self {
            ctx: ctx.clone(),
            sizes,
            program,
            pipelines: HashMap::new(),
            bind0: Vec::new(),
            flip: 0,
            bind1,
            params,
            bodies,
            shapes,
            shape_pos,
            shape_xf,
            pairs,
            counters,
            manifolds,
            manifolds_prev,
            solver,
            claims,
            order,
            blocks,
            pair_scratch,
            indirect,
            _pass_records: pass_records,
            explosion,
            joints,
            joint_filter,
            force_gens,
            generator_index,
            grid,
            colour_sort,
            compiled: None,
            timing: None,
            stage_timing: None,
            dispatch_timing: false,
            uploads: StepUploads::new(ctx, "wgphys:upload:rigid"),
            hulls,
            hull_capacity: HULL_MIN_WORDS,
            hull_words: 0,
        };
        rigid.bind0 = rigid.bind_groups()?;
        Ok(rigid)
    }

    /// Words of the hull store written to `hulls` (0 while the world has no hull: a renderer
    /// may then skip drawing hulls).
    pub fn hull_words(&self) -> u64 {
        self.hull_words
    }

    /// Group 0 of every layout class, twice (see `GpuRigid::bind0`), over the current buffers.
    ///
    /// # Errors
    /// As [`GpuRigid::make_bind0`].
    pub(super) fn bind_groups(&self) -> Result<Vec<[wgpu::BindGroup; 2]>> {
        let device = &self.ctx.device;
        self.program
            .classes
            .iter()
            .map(|class| {
                let groups = [false, true].map(|swap| {
                    let (m, prev) = if swap {
                        (&self.manifolds_prev, &self.manifolds)
                    } else {
                        (&self.manifolds, &self.manifolds_prev)
                    };
                    // Each binding's buffer, by the binding's name (gpu/source.rs `binding`).
                    let buffer_of = |index: u32| -> Option<&wgpu::Buffer> {
                        Some(match index {
                            binding::PARAMS => &self.params,
                            binding::BODIES => &self.bodies,
                            binding::SHAPES => &self.shapes,
                            binding::SHAPE_POS => &self.shape_pos,
                            binding::SHAPE_XF => &self.shape_xf,
                            binding::HULLS => &self.hulls,
                            binding::PAIRS => &self.pairs,
                            binding::COUNTERS | binding::COUNTERS_READ => &self.counters,
                            binding::MANIFOLDS => m,
                            binding::MANIFOLDS_PREV => prev,
                            binding::SOLVER | binding::SOLVER_ROWS => &self.solver,
                            binding::CLAIMS => &self.claims,
                            binding::ORDER | binding::ORDER_READ => &self.order,
                            binding::GRID_SORTED => self.grid.sorted_index(),
                            binding::GRID_START => self.grid.cell_start(),
                            binding::GRID_END => self.grid.cell_end(),
                            binding::PAIR_SCRATCH => &self.pair_scratch,
                            binding::COLOUR_KEYS => &self.colour_sort.keys,
                            binding::COLOUR_VALUES => &self.colour_sort.values,
                            binding::COLOUR_SORTED_KEYS => self.colour_sort.sorted_keys(),
                            binding::BLOCKS => &self.blocks,
                            binding::JOINTS => &self.joints,
                            binding::JOINT_FILTER => &self.joint_filter,
                            binding::FORCE_GENS => &self.force_gens,
                            binding::GENERATOR_INDEX => &self.generator_index,
                            _ => return None,
                        })
                    };
                    Self::make_bind0(device, class, &buffer_of)
                });
                let [a, b] = groups;
                Ok([a?, b?])
            })
            .collect()
    }

    /// Writes the hull store's words from word `from` on (the words before it are on the
    /// device already), growing the `hulls` buffer to the next power of two of words when they
    /// do not fit: then every word is written into the new buffer and the bind groups are made
    /// again over it. Steps recorded before keep the old buffer.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when the device cannot bind that many words; GPU errors.
    pub fn write_hulls(&mut self, words: &[glam::UVec4], from: usize) -> Result<()> {
        let need = words.len() as u64;
        self.hull_words = need;
        if need <= self.hull_capacity {
            let from = from.min(words.len());
            self.write_at(&self.hulls, 16 * from as u64, &words[from..]);
            return Ok(());
        }
        let cap = need.next_power_of_two().max(2 * self.hull_capacity);
        let cap = if 16 * cap > self.ctx.max_binding_bytes() {
            need
        } else {
            cap
        };
        let bytes = checked_bytes(&self.ctx, "hull store (words)", cap, 16)?;
        self.hulls = buffer::zeroed(&self.ctx.device, "rigid_hulls", bytes, STATE);
        self.hull_capacity = cap;
        self.bind0 = self.bind_groups()?;
        self.write(&self.hulls, words);
        Ok(())
    }

    /// Group 0 of one layout class: for each of [`BINDINGS`] the class holds, the buffer
    /// `buffer_of` names for its index.
    ///
    /// # Errors
    /// [`crate::Error::Gpu`] if a binding the class holds has no buffer (an engine bug: a binding
    /// declared without one).
    fn make_bind0<'b>(
        device: &wgpu::Device,
        class: &LayoutClass,
        buffer_of: &dyn Fn(u32) -> Option<&'b wgpu::Buffer>,
    ) -> Result<wgpu::BindGroup> {
        let mut entries = Vec::new();
        for b in BINDINGS
            .iter()
            .filter(|b| class.bindings.contains(&b.index))
        {
            let buffer = buffer_of(b.index).ok_or_else(|| {
                crate::Error::Gpu(format!("rigid binding `{}` has no buffer", b.name))
            })?;
            entries.push(wgpu::BindGroupEntry {
                binding: b.index,
                resource: buffer.as_entire_binding(),
            });
        }
        Ok(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("wgphys:bind_group:rigid"),
            layout: &class.layout0,
            entries: &entries,
        }))
    }
}
