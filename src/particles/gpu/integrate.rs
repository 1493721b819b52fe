//! Stage `integrate`'s compiled variants. The kernel handles turbulence fields, the depth
//! collider, fireworks and the emitters' particles (life curves, sub-emitters); each is behind a
//! pipeline-overridable constant (`FIELD_TURBULENCE` in fields.wgsl, `DEPTH_COLLIDER`,
//! `FIREWORKS` and `EMITTERS` in integrate.wgsl), and a step runs the kernel compiled for what
//! it needs, compiled the first time a step needs it.
//!
//! Why: the code of a feature costs where it is compiled in, even when no particle takes its
//! branch. On lavapipe the 1M cloud (none of the four) steps in 45 ms with all four compiled
//! out against 82 ms with all four in (BENCHMARKS.md, 2026-11-27, `f3b1e53`). A variant without a feature
//! is only run where that feature's branch cannot be taken, so every variant gives the same
//! bits as the full kernel.

use super::super::types::{fields_turbulent, GpuField};
use super::{binding, state_bindings, Buffers};
use crate::gpu::kernel::Kernel;

/// What stage `integrate` binds (every variant the same).
pub(crate) fn resources<'a>(
    b: &'a Buffers,
    depth: &'a wgpu::Buffer,
    depth_view: &'a wgpu::TextureView,
) -> Vec<(u32, wgpu::BindingResource<'a>)> {
    use binding::*;
    let tables = [
        (PARAMS, &b.params),
        (COUNTERS, &b.counters),
        (SCRATCH, &b.scratch),
        (COLLIDERS, &b.colliders),
        (RULES, &b.rules),
        (CURVES, &b.curves),
        (EMITTERS, &b.emitters),
        (DEPTH, depth),
    ];
    let mut r: Vec<(u32, wgpu::BindingResource)> = state_bindings(b)
        .into_iter()
        .chain(tables)
        .map(|(i, buf)| (i, buf.as_entire_binding()))
        .collect();
    r.push((DEPTH_TEX, wgpu::BindingResource::TextureView(depth_view)));
    r
}

/// What a step's integrate kernel must handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Features {
    /// A field of the step's table is turbulence.
    pub turbulence: bool,
    /// The depth collider is on.
    pub depth: bool,
    /// The world has firework rules (a launched firework's kind names one).
    pub fireworks: bool,
    /// The world has had an emitter (its particles carry the emitter's slot, for their life
    /// curves and sub-emitters, and may outlive it).
    pub emitters: bool,
}

impl Features {
    /// Whether the first `count` fields of `fields` (a step's table) hold turbulence.
    pub fn turbulent(fields: &[GpuField], count: u32) -> bool {
        fields_turbulent(fields, count as usize)
    }

    fn flags(self) -> [bool; 4] {
        [self.turbulence, self.depth, self.fireworks, self.emitters]
    }

    fn index(self) -> usize {
        self.flags()
            .iter()
            .enumerate()
            .map(|(bit, &on)| usize::from(on) << bit)
            .sum()
    }
}

/// The overridable constants, in the order of [`Features::flags`], and the names that label
/// a variant's pipeline.
const CONSTANTS: [(&str, &str); 4] = [
    ("FIELD_TURBULENCE", "+turbulence"),
    ("DEPTH_COLLIDER", "+depth"),
    ("FIREWORKS", "+fireworks"),
    ("EMITTERS", "+emitters"),
];

/// The integrate kernel's variants compiled so far (at most 16).
#[derive(Debug, Default)]
pub(crate) struct IntegrateKernels {
    variants: [Option<Kernel>; 16],
}

impl IntegrateKernels {
    /// The variant for `features`, compiled from `module` and bound by `bind` if this is its
    /// first use.
    pub fn variant(
        &mut self,
        device: &wgpu::Device,
        module: &wgpu::ShaderModule,
        features: Features,
        bind: impl FnOnce(&mut Kernel),
    ) -> &Kernel {
        self.variants[features.index()].get_or_insert_with(|| {
            let flags: Vec<(&str, &str, bool)> = CONSTANTS
                .iter()
                .zip(features.flags())
                .map(|(&(name, label), on)| (name, label, on))
                .collect();
            let mut kernel = Kernel::with_flags(device, module, "integrate", &flags);
            bind(&mut kernel);
            kernel
        })
    }

    /// The variants compiled so far (to bind them again when buffers change).
    pub fn compiled_mut(&mut self) -> impl Iterator<Item = &mut Kernel> {
        self.variants.iter_mut().flatten()
    }
}
