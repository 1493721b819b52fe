//! The step recorder: a [`StepPlan`] compiled once per [`StepShape`] into pipelines and
//! dispatch records, then recorded step after step as one compute pass per phase, with
//! timestamps per phase when timing is on.

use super::*;

/// A [`StepPlan`] turned into pipelines and dispatches once, recorded by
/// [`GpuRigid::encode_step`] step after step with no allocation, lookup or label formatting.
pub(super) struct CompiledStep {
    plan: StepPlan,
    pipelines: Vec<wgpu::ComputePipeline>,
    phases: Vec<CompiledPhase>,
}

pub(super) struct CompiledPhase {
    label: &'static str,
    flip_manifolds: bool,
    copy_indirect: bool,
    ops: Vec<CompiledOp>,
    /// Where a run of one stage starts (or, with dispatch timing, every op): (op index,
    /// stage, entry point). With stage timing, a timestamp is written before each and one at
    /// the end of the pass.
    marks: Vec<(usize, RigidStage, &'static str)>,
}

/// Timestamps between the stages of a step, inside its passes (adapters with
/// `TIMESTAMP_QUERY_INSIDE_PASSES`), sized for the compiled plan.
pub(super) struct StageTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    count: u32,
}

pub(super) enum CompiledOp {
    Kernel {
        pipeline: usize,
        /// The kernel's group-0 layout class (index into `GpuRigid::bind0`).
        class: usize,
        dispatch: PassDispatch,
        offset: u32,
    },
    Grid {
        shapes: u32,
    },
    ColourSort {
        slots: u32,
    },
}

impl GpuRigid {
    /// The GPU step for `shape` at this backend's sizes (see [`step_plan`]).
    pub fn plan(&self, shape: StepShape) -> StepPlan {
        step_plan(shape, self.grid.dispatches(), self.colour_sort.dispatches())
    }

    /// Records one step of the plan for `shape` into `encoder`: one compute pass per phase,
    /// from pipelines and dispatches resolved the first time this shape is seen (and again
    /// only when it changes: new sizes, an explosion starting or stopping, another colour
    /// count), so a step allocates, looks up and formats nothing.
    ///
    /// # Errors
    /// As [`GpuGrid::prepare_build`] (a shape count above the grid's capacity).
    pub fn encode_step(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        shape: StepShape,
    ) -> Result<()> {
        self.record_step(encoder, shape, false)
    }

    /// [`GpuRigid::encode_step`], submitting the broad phase as soon as it is recorded and the
    /// phases up to the solver's as soon as they are (the solve phase stays in `encoder` for
    /// the caller to submit), so the GPU runs the broad, collide and colour phases while the
    /// host records the solver's dispatches. The same passes and dispatches in the same order;
    /// only the command buffers differ. On an H100 a 5k wall's step spent 0.9 ms recording
    /// before any GPU work began (BENCHMARKS.md, 2026-11-27, `7b9c45c`).
    ///
    /// # Errors
    /// As [`GpuRigid::encode_step`].
    pub fn submit_step_by_phase(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        shape: StepShape,
    ) -> Result<()> {
        self.record_step(encoder, shape, true)
    }

    fn record_step(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        shape: StepShape,
        submit_phases: bool,
    ) -> Result<()> {
        if self.compiled.as_ref().is_none_or(|c| c.plan.shape != shape) {
            let plan = self.plan(shape);
            self.compiled = Some(self.compile(&plan));
        }
        let Some(compiled) = self.compiled.as_ref() else {
            return Ok(());
        };
        self.record_uploads(encoder);
        for op in compiled.phases.iter().flat_map(|p| &p.ops) {
            match op {
                CompiledOp::Grid { shapes } => {
                    self.grid.prepare_build(encoder, &self.shape_pos, *shapes)?
                }
                CompiledOp::ColourSort { slots } => self.colour_sort.prepare(encoder, *slots)?,
                CompiledOp::Kernel { .. } => {}
            }
        }
        let stages = self.stage_timing.as_ref();
        let mut query = 0u32;
        for (i, phase) in compiled.phases.iter().enumerate() {
            if phase.flip_manifolds {
                self.flip ^= 1;
            }
            if phase.copy_indirect {
                self.record_indirect_copy(encoder);
            }
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(phase.label),
                timestamp_writes: self.timing.as_ref().map(|t| t.writes(i as u32, true, true)),
            });
            // What the pass has bound, so a run of dispatches of one pipeline, layout class and
            // colour sets nothing twice (the grid's kernels bind their own group 0).
            let mut bound_pipeline = usize::MAX;
            let mut bound_class = usize::MAX;
            let mut bound_offset = u32::MAX;
            let mut next_mark = 0;
            for (j, op) in phase.ops.iter().enumerate() {
                if let Some(t) = stages {
                    if phase.marks.get(next_mark).is_some_and(|m| m.0 == j) {
                        pass.write_timestamp(&t.queries, query);
                        query += 1;
                        next_mark += 1;
                    }
                }
                match op {
                    CompiledOp::Grid { shapes } => {
                        self.grid.dispatch_build_in(&mut pass, *shapes);
                        bound_pipeline = usize::MAX;
                        bound_class = usize::MAX;
                    }
                    CompiledOp::ColourSort { slots } => {
                        self.colour_sort.dispatch_in(&mut pass, *slots);
                        bound_pipeline = usize::MAX;
                        bound_class = usize::MAX;
                    }
                    CompiledOp::Kernel {
                        pipeline,
                        class,
                        dispatch,
                        offset,
                    } => {
                        if let PassDispatch::Direct(0) = dispatch {
                            continue;
                        }
                        if bound_pipeline != *pipeline {
                            pass.set_pipeline(&compiled.pipelines[*pipeline]);
                            bound_pipeline = *pipeline;
                        }
                        if bound_class != *class {
                            if let Some(group) = self.bind0.get(*class) {
                                pass.set_bind_group(0, &group[self.flip], &[]);
                            }
                            bound_class = *class;
                        }
                        if bound_offset != *offset {
                            pass.set_bind_group(1, &self.bind1, &[*offset]);
                            bound_offset = *offset;
                        }
                        match dispatch {
                            PassDispatch::Direct(x) => pass.dispatch_workgroups(*x, 1, 1),
                            PassDispatch::Indirect(word) => pass
                                .dispatch_workgroups_indirect(&self.indirect, 4 * u64::from(*word)),
                        }
                    }
                }
            }
            if let Some(t) = stages {
                pass.write_timestamp(&t.queries, query);
                query += 1;
            }
            drop(pass);
            // After the broad phase, and after the phase before the solver's: the GPU starts
            // early, and the solver's long recording overlaps the phases before it.
            let n = compiled.phases.len();
            if submit_phases && i + 1 < n && (i == 0 || i + 2 == n) {
                let next =
                    self.ctx
                        .device
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("wgphys:rigid_step"),
                        });
                let done = std::mem::replace(encoder, next);
                self.ctx.queue.submit([done.finish()]);
            }
        }
        if let Some(t) = &self.timing {
            t.resolve(encoder);
        }
        if let Some(t) = stages {
            encoder.resolve_query_set(&t.queries, 0..t.count, &t.resolve, 0);
        }
        Ok(())
    }

    /// Turns on a timestamp before every dispatch of the step as well as the phases' (a
    /// profiling mode; see [`GpuRigid::last_step_dispatch_ms`]); returns whether the adapter
    /// can write timestamps inside passes.
    pub fn enable_dispatch_timing(&mut self) -> bool {
        self.dispatch_timing = true;
        self.enable_timing() && self.ctx.timestamps_inside_passes()
    }

    /// GPU milliseconds of the last step per entry point (`grid_build` and `colour_sort` for
    /// the grid's and the colour sort's own kernels), summed over its dispatches, with the
    /// dispatch count, in the order the step first reaches each; recorded with
    /// [`GpuRigid::enable_dispatch_timing`]. Each figure is the time from the dispatch being
    /// reached to the next one's, so it includes the wait for the previous dispatch's writes.
    ///
    /// # Errors
    /// As [`GpuRigid::last_step_stage_ms`], and [`Error::Unsupported`] without dispatch
    /// timing.
    pub fn last_step_dispatch_ms(&self) -> Result<Vec<(&'static str, u32, f64)>> {
        if !self.dispatch_timing {
            return Err(Error::Unsupported(
                "per-dispatch timing is off (enable_dispatch_timing)".into(),
            ));
        }
        let mut out: Vec<(&'static str, u32, f64)> = Vec::new();
        self.for_each_mark_ms(|_, entry, ms| match out.iter_mut().find(|e| e.0 == entry) {
            Some(e) => {
                e.1 += 1;
                e.2 += ms;
            }
            None => out.push((entry, 1, ms)),
        })?;
        Ok(out)
    }

    /// Calls `f(stage, entry, ms)` for each timed mark of the last step.
    fn for_each_mark_ms(&self, mut f: impl FnMut(RigidStage, &'static str, f64)) -> Result<()> {
        let (Some(t), Some(c)) = (&self.stage_timing, &self.compiled) else {
            return Err(Error::Unsupported(
                "rigid stage timing needs timing on (enable_timing), an adapter with \
                 TIMESTAMP_QUERY_INSIDE_PASSES and a recorded step"
                    .into(),
            ));
        };
        let ts: Vec<u64> = buffer::read_vec(
            &self.ctx.device,
            &self.ctx.queue,
            &t.resolve,
            t.count as usize,
        )?;
        let period = f64::from(self.ctx.queue.get_timestamp_period());
        let mut query = 0usize;
        for phase in &c.phases {
            for (k, (_, stage, entry)) in phase.marks.iter().enumerate() {
                if let (Some(a), Some(b)) = (ts.get(query + k), ts.get(query + k + 1)) {
                    f(*stage, entry, b.wrapping_sub(*a) as f64 * period / 1e6);
                }
            }
            query += phase.marks.len() + 1;
        }
        Ok(())
    }

    /// Turns on GPU timestamps for every phase of the step (one compute pass each), if the
    /// adapter has timestamp queries; returns whether timing is on.
    pub fn enable_timing(&mut self) -> bool {
        self.timing = StepTimer::new(&self.ctx, "rigid_step", MAX_PHASES);
        // Stage timestamps are sized for a plan: the next step compiles one.
        self.compiled = None;
        self.timing.is_some()
    }

    /// GPU milliseconds of each stage of the last step recorded with timing on, summed over
    /// its runs (the substeps), in the order of [`RigidStage::ALL`]: timestamps written inside
    /// the passes between runs of stages, so each figure is the time from a stage's first
    /// dispatch being reached to the next stage's (approximate where a GPU overlaps
    /// dispatches). Needs `TIMESTAMP_QUERY_INSIDE_PASSES` (see
    /// [`GpuContext::timestamps_inside_passes`]).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when timing is off, the adapter cannot write timestamps inside
    /// passes, or no step was recorded; [`Error::Gpu`] when the readback fails.
    pub fn last_step_stage_ms(&self) -> Result<Vec<(&'static str, f64)>> {
        let mut per_stage = vec![0.0f64; RigidStage::ALL.len()];
        self.for_each_mark_ms(|stage, _, ms| {
            if let Some(s) = RigidStage::ALL.iter().position(|x| *x == stage) {
                per_stage[s] += ms;
            }
        })?;
        let Some(c) = &self.compiled else {
            return Ok(Vec::new());
        };
        Ok(RigidStage::ALL
            .iter()
            .zip(per_stage)
            .filter(|(s, _)| c.phases.iter().any(|p| p.marks.iter().any(|m| m.1 == **s)))
            .map(|(s, ms)| (s.name(), ms))
            .collect())
    }

    /// GPU milliseconds of each phase of the last step recorded with timing on, labelled as
    /// its compute pass (blocking readback: benchmarks and tools).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when timing is off or no step was recorded; [`Error::Gpu`] when
    /// the readback fails.
    pub fn last_step_phase_ms(&self) -> Result<Vec<(&'static str, f64)>> {
        let (Some(t), Some(c)) = (&self.timing, &self.compiled) else {
            return Err(Error::Unsupported(
                "rigid step timing is off (enable_timing) or no step was recorded".into(),
            ));
        };
        let ms = t.read_ms(&self.ctx)?;
        Ok(c.phases
            .iter()
            .zip(ms)
            .map(|(p, ms)| (p.label, ms))
            .collect())
    }

    fn compile(&mut self, plan: &StepPlan) -> CompiledStep {
        // Without joints or convex sweeps the kernels are compiled without their code.
        let variant = super::program::Variant::of(&plan.shape);
        let mut entries: Vec<&'static str> = Vec::new();
        let mut pipelines = Vec::new();
        let phases: Vec<CompiledPhase> = plan
            .phases
            .iter()
            .map(|phase| CompiledPhase {
                label: phase.label,
                flip_manifolds: phase.flip_manifolds,
                copy_indirect: phase.copy_indirect,
                marks: stage_marks(&phase.ops, self.dispatch_timing),
                ops: phase
                    .ops
                    .iter()
                    .map(|op| match *op {
                        StepOp::GridBuild { shapes } => CompiledOp::Grid { shapes },
                        StepOp::ColourSort { slots } => CompiledOp::ColourSort { slots },
                        StepOp::Kernel {
                            entry,
                            dispatch,
                            record,
                            ..
                        } => {
                            let pipeline = match entries.iter().position(|e| *e == entry) {
                                Some(i) => i,
                                None => {
                                    self.pipeline(entry, variant);
                                    if let Some(p) = self.pipelines.get(&(entry, variant)) {
                                        pipelines.push(p.clone());
                                    }
                                    entries.push(entry);
                                    entries.len() - 1
                                }
                            };
                            CompiledOp::Kernel {
                                pipeline,
                                class: self.program.class(entry),
                                dispatch,
                                offset: (record.min(PASS_RECORDS - 1) as u64 * PASS_STRIDE) as u32,
                            }
                        }
                    })
                    .collect(),
            })
            .collect();
        self.stage_timing = None;
        let count: u32 = phases.iter().map(|p| p.marks.len() as u32 + 1).sum();
        // A query set holds at most QUERY_SET_MAX_QUERIES timestamps: a plan with more marks
        // (per-dispatch timing with many substeps and sweeps) is timed per phase only, and the
        // stage and dispatch figures answer Unsupported.
        if self.timing.is_some()
            && self.ctx.timestamps_inside_passes()
            && count <= wgpu::QUERY_SET_MAX_QUERIES
        {
            self.stage_timing = Some(StageTimer {
                queries: self.ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("wgphys:queries:rigid_stages"),
                    ty: wgpu::QueryType::Timestamp,
                    count,
                }),
                resolve: buffer::zeroed(
                    &self.ctx.device,
                    "rigid_stage_timestamps",
                    8 * u64::from(count),
                    U::QUERY_RESOLVE | U::COPY_SRC,
                ),
                count,
            });
        }
        CompiledStep {
            plan: plan.clone(),
            pipelines,
            phases,
        }
    }
}

/// The op indices where a run of one stage starts (every op with `every`), with the stage and
/// the entry point.
fn stage_marks(ops: &[StepOp], every: bool) -> Vec<(usize, RigidStage, &'static str)> {
    let mut marks: Vec<(usize, RigidStage, &'static str)> = Vec::new();
    for (j, op) in ops.iter().enumerate() {
        let (stage, entry) = match op {
            StepOp::GridBuild { .. } => (RigidStage::GridBuild, "grid_build"),
            StepOp::ColourSort { .. } => (RigidStage::Colour, "colour_sort"),
            StepOp::Kernel { stage, entry, .. } => (*stage, *entry),
        };
        if every || marks.last().is_none_or(|m| m.1 != stage) {
            marks.push((j, stage, entry));
        }
    }
    marks
}
