//! The crate's error type. Every message says what was wrong and how to fix it.

use thiserror::Error;

/// Everything that can go wrong in wgphys, as a value.
///
/// Non-exhaustive: later versions may add variants, so a `match` on it outside the crate needs
/// a wildcard arm.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// No GPU adapter was found.
    #[error(
        "no GPU adapter found ({0}). On Linux install a software adapter: \
         `apt-get install -y mesa-vulkan-drivers` (Vulkan, lavapipe) or Mesa's libgl1-mesa-dri \
         (GL, llvmpipe), or pick a backend with WGPU_BACKEND=vulkan|gl"
    )]
    NoAdapter(String),
    /// The adapter refused to create a device.
    #[error("the adapter could not create a device: {0}")]
    RequestDevice(String),
    /// The adapter lacks a feature or limit the engine needs.
    #[error("the adapter is not capable enough: {0}")]
    Unsupported(String),
    /// A requested capacity needs a buffer larger than the device allows.
    #[error(
        "capacity {capacity} needs a {needed_bytes}-byte buffer but the device allows at most \
         {max_bytes} bytes per buffer; lower the capacity to at most {max_capacity}"
    )]
    CapacityTooLarge {
        /// The capacity asked for.
        capacity: u32,
        /// The size of the largest buffer it needs.
        needed_bytes: u64,
        /// The device's limit.
        max_bytes: u64,
        /// The largest capacity that fits.
        max_capacity: u32,
    },
    /// The host could not allocate the CPU backend's arrays.
    #[error(
        "could not allocate {bytes} bytes on the host for capacity {capacity}; lower the capacity"
    )]
    HostMemory {
        /// The capacity asked for.
        capacity: u32,
        /// Bytes the arrays need.
        bytes: u64,
    },
    /// A capacity of zero, or one smaller than what the world already holds.
    #[error("invalid capacity {capacity}: {reason}")]
    InvalidCapacity {
        /// The capacity asked for.
        capacity: u32,
        /// Why it was refused.
        reason: String,
    },
    /// A time step that is not a positive finite number.
    #[error("time step dt = {0} is invalid: pass a finite number of seconds greater than 0")]
    InvalidTimeStep(f32),
    /// A field of user input is NaN, infinite or out of range.
    #[error("invalid {what}: {value} ({fix})")]
    InvalidInput {
        /// Which field, for example `particle.position`.
        what: &'static str,
        /// The offending value, printed.
        value: String,
        /// How to fix it.
        fix: &'static str,
    },
    /// A handle whose item (a particle, an emitter, a rigid body, ...) was removed or has
    /// expired, or one this world never issued.
    #[error(
        "stale {kind} handle {id}: the {kind} was removed (or, for a particle, expired), or the \
         handle comes from another world; use the handle of a live {kind} of this world"
    )]
    StaleHandle {
        /// What the handle names: `"particle"`, `"emitter"`, `"rigid body"`, ...
        kind: &'static str,
        /// The handle's id (a particle's host id, an emitter's or a body's slot).
        id: u32,
    },
    /// A firework type with no rule.
    #[error("unknown firework type {ty}: the rule table has types 1..={max}; add a rule first")]
    UnknownFireworkType {
        /// The type asked for.
        ty: u32,
        /// The highest type with a rule.
        max: u32,
    },
    /// More spawns were queued before a step than the pool can hold.
    #[error(
        "{queued} spawns are queued for one step but the capacity is {capacity}: call step() to \
         flush them, or grow the pool with ParticleWorld::grow"
    )]
    SpawnQueueFull {
        /// Spawns already queued.
        queued: u32,
        /// Pool capacity.
        capacity: u32,
    },
    /// More colliders, firework rules or payload entries than a uniform table holds.
    #[error("{count} {what} given but at most {max} fit; {fix}")]
    TooMany {
        /// What there are too many of.
        what: &'static str,
        /// How many were given.
        count: usize,
        /// How many fit.
        max: u32,
        /// What to do instead.
        fix: &'static str,
    },
    /// More force fields than the uniform block holds.
    #[error("{count} force fields given but at most {max} fit; combine fields (gravity adds up)")]
    TooManyFields {
        /// Fields given.
        count: usize,
        /// Most allowed.
        max: u32,
    },
    /// A fixed-size pool is full.
    #[error("the {what} pool is full at {capacity}; build the world with a larger capacity")]
    Full {
        /// Which pool.
        what: &'static str,
        /// Its capacity.
        capacity: u32,
    },
    /// A particle cannot be removed while force generators or links use it.
    #[error("particle {id} is still used by {by}; remove those first")]
    ParticleInUse {
        /// The particle.
        id: u32,
        /// What uses it.
        by: String,
    },
    /// A GPU-only call on a CPU world.
    #[error("{0} needs a GPU world; create it with Backend::Gpu")]
    NeedsGpu(&'static str),
    /// A GPU operation failed (device lost, map failure, validation error).
    #[error("GPU operation failed: {0}")]
    Gpu(String),
    /// The device's limits are below what a world's kernels need, found before anything is
    /// built.
    #[error(
        "the device cannot run {what}: it needs {limit} >= {need}, the device has {have}. \
         Create the device with the adapter's limits (wgpu::Adapter::limits(), as \
         GpuContext::new does) or at least {limit} = {need}"
    )]
    DeviceLimit {
        /// The world (or component) that needs it.
        what: &'static str,
        /// The `wgpu::Limits` field.
        limit: &'static str,
        /// The value the kernels need.
        need: u32,
        /// The device's value.
        have: u32,
    },
    /// A saved world (`wgphys::save`, the `serde` feature) that cannot be loaded: truncated,
    /// corrupt, from a newer version, for another kind of world, or holding a value a world
    /// refuses.
    #[error("cannot load the saved world: at `{field}`, {reason}")]
    Load {
        /// The field, as a path into the saved state (`bodies[3].pos`), or `header`.
        field: String,
        /// What is wrong and what to do.
        reason: String,
    },
}

/// Shorthand for results in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The floats the input checks take: `f32`, the simulation's precision, and `f64`, the host-side
/// helpers' (`crate::gameplay`), which would misreport large finite values as infinite if
/// narrowed to `f32` only to be checked.
pub(crate) trait Real: Copy + PartialOrd + std::fmt::Display {
    /// Zero.
    const ZERO: Self;
    /// Neither NaN nor infinite.
    fn finite(self) -> bool;
}

impl Real for f32 {
    const ZERO: Self = 0.0;
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl Real for f64 {
    const ZERO: Self = 0.0;
    fn finite(self) -> bool {
        self.is_finite()
    }
}

/// The vectors the input checks take (`Vec3`, and `DVec3` for the host-side helpers).
pub(crate) trait RealVec: Copy + std::fmt::Debug {
    /// Every lane finite.
    fn finite(self) -> bool;
}

impl RealVec for glam::Vec3 {
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl RealVec for glam::DVec3 {
    fn finite(self) -> bool {
        self.is_finite()
    }
}

/// Checks that a float is finite, naming the field in the error.
pub(crate) fn finite<T: Real>(what: &'static str, v: T) -> Result<()> {
    if v.finite() {
        Ok(())
    } else {
        Err(Error::InvalidInput {
            what,
            value: format!("{v}"),
            fix: "pass a finite number (not NaN or infinity)",
        })
    }
}

/// Checks that every lane of a vector is finite, naming the field in the error.
pub(crate) fn finite3<V: RealVec>(what: &'static str, v: V) -> Result<()> {
    if v.finite() {
        Ok(())
    } else {
        Err(Error::InvalidInput {
            what,
            value: format!("{v:?}"),
            fix: "pass finite components (not NaN or infinity)",
        })
    }
}

/// Checks that a float is finite and not negative, naming the field in the error.
pub(crate) fn non_negative<T: Real>(what: &'static str, v: T) -> Result<()> {
    if v >= T::ZERO && v.finite() {
        Ok(())
    } else {
        Err(Error::InvalidInput {
            what,
            value: format!("{v}"),
            fix: "pass a finite value >= 0",
        })
    }
}

/// Checks that a float is finite and positive, naming the field in the error.
pub(crate) fn positive<T: Real>(what: &'static str, v: T) -> Result<()> {
    if v > T::ZERO && v.finite() {
        Ok(())
    } else {
        Err(Error::InvalidInput {
            what,
            value: format!("{v}"),
            fix: "pass a finite value > 0",
        })
    }
}
