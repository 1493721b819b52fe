//! Helpers shared by the integration tests: the GPU context, a seeded generator, snapshot
//! comparison with named tolerances, and an FNV-1a hash of a whole snapshot.
//!
//! Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

pub mod error_model;
pub mod rigid;

use glam::{Vec3, Vec4};
use wgphys::gpu::GpuContext;
use wgphys::particles::types::GpuCounters;
use wgphys::particles::{ParticleWorld, Snapshot, WorldConfig};
use wgphys::Backend;

/// A headless GPU context. GPU tests never skip: without an adapter they fail, saying how to
/// install one.
pub fn gpu() -> GpuContext {
    GpuContext::new().expect(
        "no wgpu adapter: these tests need a GPU or a software adapter. On Debian/Ubuntu run \
         `apt-get install -y mesa-vulkan-drivers` (lavapipe, Vulkan), or use Mesa's llvmpipe over \
         GL with WGPU_BACKEND=gl",
    )
}

/// A device a renderer made on the test adapter, with the adapter's limits as `limits` changes
/// them, and the adapter's info. Its instance keeps wgpu's default flags, as a renderer that
/// did not call `wgphys::gpu::skip_indirect_validation` would: the results must not depend on
/// it (only the speed does).
pub fn device_with(
    limits: impl FnOnce(wgpu::Limits) -> wgpu::Limits,
) -> (wgpu::Device, wgpu::Queue, wgpu::AdapterInfo) {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(
        &instance, None,
    ))
    .expect("an adapter (see gpu())");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: limits(adapter.limits()),
        ..Default::default()
    }))
    .expect("a device with the limits asked for");
    (device, queue, adapter.get_info())
}

/// One GPU context for the whole test process (made on first use), for tests that build many
/// worlds. NVIDIA's Vulkan driver (580, H200) stops handing out instances after some tens per
/// process: `particles_parity_stages`, which made a context for each of its ~100 GPU worlds, crashed
/// (SIGSEGV) or found no adapter from its 40th world on. A renderer makes one device too.
pub fn shared_gpu() -> GpuContext {
    static CTX: std::sync::OnceLock<GpuContext> = std::sync::OnceLock::new();
    CTX.get_or_init(gpu).clone()
}

/// The same configuration on the GPU (the process's [`shared_gpu`]) and on the CPU twin, as
/// (gpu, cpu).
pub fn pair(config: &WorldConfig) -> (ParticleWorld, ParticleWorld) {
    let g = ParticleWorld::new(Backend::Gpu(shared_gpu()), config.clone()).expect("GPU world");
    let c = ParticleWorld::new(Backend::Cpu, config.clone()).expect("CPU world");
    (g, c)
}

/// Both backends, for tests that run the same check on each (CPU first).
pub fn backends() -> [(&'static str, Backend); 2] {
    [("cpu", Backend::Cpu), ("gpu", Backend::Gpu(gpu()))]
}

/// SplitMix64: a tiny seeded generator, independent of the crate's own random numbers so the
/// test inputs do not move when the engine's generator changes.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / 16_777_216.0)
    }
    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    pub fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }
    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n)) as u32
    }
    /// True with probability p.
    pub fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }
}

/// A relative + absolute tolerance: |a - b| <= abs + rel * max(|a|, |b|).
#[derive(Clone, Copy, Debug)]
pub struct Tol {
    pub rel: f32,
    pub abs: f32,
}

impl Tol {
    /// Bitwise-equal up to the sign of zero.
    pub const EXACT: Tol = Tol { rel: 0.0, abs: 0.0 };
}

/// The largest differences a comparison saw, so tests can print what their tolerance covers.
#[derive(Clone, Copy, Debug, Default)]
pub struct MaxErr {
    /// Largest |a - b|.
    pub abs: f32,
    /// Largest |a - b| / max(|a|, |b|) over values with magnitude >= 1e-3.
    pub rel: f32,
    /// Largest |a - b| / allowed (1.0 is the tolerance edge).
    pub used: f32,
}

impl MaxErr {
    pub fn merge(&mut self, o: MaxErr) {
        self.abs = self.abs.max(o.abs);
        self.rel = self.rel.max(o.rel);
        self.used = self.used.max(o.used);
    }
}

/// Checks one float, naming the field and slot on failure; accumulates the largest errors.
pub fn check_f32(what: &str, field: &str, i: usize, a: f32, b: f32, tol: Tol, e: &mut MaxErr) {
    assert!(
        a.is_finite() == b.is_finite(),
        "{what}: slot {i} {field}: gpu {a} vs cpu {b} (one is not finite)"
    );
    if !a.is_finite() {
        return;
    }
    let d = (a - b).abs();
    let mag = a.abs().max(b.abs());
    let allowed = tol.abs + tol.rel * mag;
    assert!(
        d <= allowed,
        "{what}: slot {i} {field}: gpu {a} vs cpu {b}, |diff| {d:e} > allowed {allowed:e} \
         (rel {} abs {})",
        tol.rel,
        tol.abs
    );
    e.abs = e.abs.max(d);
    if mag >= 1e-3 {
        e.rel = e.rel.max(d / mag);
    }
    if allowed > 0.0 {
        e.used = e.used.max(d / allowed);
    }
}

pub fn check_v4(what: &str, field: &str, i: usize, a: Vec4, b: Vec4, tol: Tol, e: &mut MaxErr) {
    for (k, lane) in ["x", "y", "z", "w"].iter().enumerate() {
        check_f32(what, &format!("{field}.{lane}"), i, a[k], b[k], tol, e);
    }
}

/// Which tolerance each snapshot field gets. Ids and kinds are always compared exactly.
#[derive(Clone, Copy, Debug)]
pub struct SnapTol {
    pub pos: Tol,
    pub vel: Tol,
    /// Own acceleration (xyz) and inverse mass (w).
    pub acc: Tol,
    pub colour: Tol,
    pub size: Tol,
    pub age: Tol,
    pub lifetime: Tol,
}

impl SnapTol {
    /// Every field bit for bit (up to the sign of zero).
    pub const EXACT: SnapTol = SnapTol {
        pos: Tol::EXACT,
        vel: Tol::EXACT,
        acc: Tol::EXACT,
        colour: Tol::EXACT,
        size: Tol::EXACT,
        age: Tol::EXACT,
        lifetime: Tol::EXACT,
    };
}

/// The largest errors a snapshot comparison saw, per field.
#[derive(Clone, Copy, Debug, Default)]
pub struct SnapErr {
    pub pos: MaxErr,
    pub vel: MaxErr,
    pub acc: MaxErr,
    pub colour: MaxErr,
    pub size: MaxErr,
    pub age: MaxErr,
    pub lifetime: MaxErr,
}

impl SnapErr {
    pub fn merge(&mut self, o: SnapErr) {
        self.pos.merge(o.pos);
        self.vel.merge(o.vel);
        self.acc.merge(o.acc);
        self.colour.merge(o.colour);
        self.size.merge(o.size);
        self.age.merge(o.age);
        self.lifetime.merge(o.lifetime);
    }
}

impl std::fmt::Display for SnapErr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (name, e) in [
            ("pos", self.pos),
            ("vel", self.vel),
            ("acc", self.acc),
            ("colour", self.colour),
            ("size", self.size),
            ("age", self.age),
            ("lifetime", self.lifetime),
        ] {
            if e.abs == 0.0 {
                write!(f, "{name}: 0  ")?;
            } else {
                write!(
                    f,
                    "{name}: max |diff| {:.2e} ({:.0}% of tol)  ",
                    e.abs,
                    100.0 * e.used
                )?;
            }
        }
        Ok(())
    }
}

/// Compares two snapshots slot by slot: same length, identical ids and kinds, every float
/// field within its tolerance in `tol`. Returns the largest errors seen.
pub fn compare_snapshots(what: &str, gpu: &Snapshot, cpu: &Snapshot, tol: SnapTol) -> SnapErr {
    assert_eq!(
        gpu.len(),
        cpu.len(),
        "{what}: live count gpu {} vs cpu {}",
        gpu.len(),
        cpu.len()
    );
    for (name, n) in [
        ("vel", gpu.vel.len()),
        ("acc", gpu.acc.len()),
        ("life", gpu.life.len()),
        ("colour", gpu.colour.len()),
        ("size", gpu.size.len()),
    ] {
        assert_eq!(
            n,
            gpu.len(),
            "{what}: snapshot array {name} has {n} entries, pos has {}",
            gpu.len()
        );
    }
    let mut e = SnapErr::default();
    for i in 0..gpu.len() {
        let (lg, lc) = (gpu.life[i], cpu.life[i]);
        assert_eq!(
            lg.id, lc.id,
            "{what}: slot {i} life.id: gpu {:#x} vs cpu {:#x}",
            lg.id, lc.id
        );
        assert_eq!(
            lg.kind, lc.kind,
            "{what}: slot {i} life.kind: gpu {} vs cpu {}",
            lg.kind, lc.kind
        );
        check_f32(what, "life.age", i, lg.age, lc.age, tol.age, &mut e.age);
        check_f32(
            what,
            "life.lifetime",
            i,
            lg.lifetime,
            lc.lifetime,
            tol.lifetime,
            &mut e.lifetime,
        );
        check_v4(what, "pos", i, gpu.pos[i], cpu.pos[i], tol.pos, &mut e.pos);
        check_v4(what, "vel", i, gpu.vel[i], cpu.vel[i], tol.vel, &mut e.vel);
        check_v4(what, "acc", i, gpu.acc[i], cpu.acc[i], tol.acc, &mut e.acc);
        check_v4(
            what,
            "colour",
            i,
            gpu.colour[i],
            cpu.colour[i],
            tol.colour,
            &mut e.colour,
        );
        check_f32(
            what,
            "size",
            i,
            gpu.size[i],
            cpu.size[i],
            tol.size,
            &mut e.size,
        );
    }
    e
}

/// Asserts two counter blocks are identical, naming the first field that differs.
pub fn assert_counters_eq(what: &str, gpu: &GpuCounters, cpu: &GpuCounters) {
    let fields = |c: &GpuCounters| {
        [
            ("live", c.live),
            ("dead", c.dead),
            ("survivors", c.survivors),
            ("movers", c.movers),
            ("spawn_wanted", c.spawn_wanted),
            ("spawn_accepted", c.spawn_accepted),
            ("children_wanted", c.children_wanted),
            ("next_serial", c.next_serial),
            ("dropped_total", c.dropped_total),
            ("wanted_capacity", c.wanted_capacity),
            ("step", c.step),
            ("overflow_steps", c.overflow_steps),
            ("host_dropped_total", c.host_dropped_total),
        ]
    };
    for ((name, g), (_, c)) in fields(gpu).into_iter().zip(fields(cpu)) {
        assert_eq!(g, c, "{what}: counters.{name}: gpu {g} vs cpu {c}");
    }
}

/// FNV-1a (64-bit) over a byte stream.
pub struct Fnv(u64);

impl Fnv {
    pub fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
    pub fn u32(&mut self, x: u32) {
        for b in x.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    pub fn f32(&mut self, x: f32) {
        self.u32(x.to_bits());
    }
    pub fn v4(&mut self, v: Vec4) {
        for k in 0..4 {
            self.f32(v[k]);
        }
    }
    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv {
    fn default() -> Self {
        Self::new()
    }
}

/// Feeds every field of every live slot (as `to_bits`), in slot order, after the count.
pub fn hash_snapshot(h: &mut Fnv, s: &Snapshot) {
    h.u32(s.len() as u32);
    for i in 0..s.len() {
        h.v4(s.pos[i]);
        h.v4(s.vel[i]);
        h.v4(s.acc[i]);
        h.f32(s.life[i].age);
        h.f32(s.life[i].lifetime);
        h.u32(s.life[i].kind);
        h.u32(s.life[i].id);
        h.v4(s.colour[i]);
        h.f32(s.size[i]);
    }
}

/// FNV-1a of a world's whole observable state: its snapshot, then every pool counter.
pub fn state_hash(w: &ParticleWorld) -> u64 {
    let mut h = Fnv::new();
    hash_snapshot(&mut h, &w.read_snapshot().expect("snapshot"));
    let c = w.read_counters().expect("counters");
    for x in [
        c.live,
        c.dead,
        c.survivors,
        c.movers,
        c.spawn_wanted,
        c.spawn_accepted,
        c.children_wanted,
        c.next_serial,
        c.dropped_total,
        c.wanted_capacity,
        c.step,
        c.overflow_steps,
        c.host_dropped_total,
    ] {
        h.u32(x);
    }
    h.finish()
}

/// The unit roundoff of f32 (half an ulp of 1.0).
pub const U: f64 = f32::EPSILON as f64 / 2.0;

// ---- Mass-aggregate worlds (tests/aggregate_*.rs) ----

use wgphys::aggregate::AggSnapshot;

/// Compares two aggregate snapshots slot by slot: same length, the same alive flag (pos.w) and
/// damping (vel.w) bit for bit (both are copied, never computed), xyz within `pos` and `vel`.
/// Returns the largest errors seen (in `SnapErr::pos` and `SnapErr::vel`).
pub fn compare_agg(
    what: &str,
    gpu: &AggSnapshot,
    cpu: &AggSnapshot,
    pos: Tol,
    vel: Tol,
) -> SnapErr {
    assert_eq!(
        gpu.pos.len(),
        cpu.pos.len(),
        "{what}: slot count gpu {} vs cpu {}",
        gpu.pos.len(),
        cpu.pos.len()
    );
    assert_eq!(gpu.vel.len(), gpu.pos.len(), "{what}: gpu vel/pos lengths");
    assert_eq!(cpu.vel.len(), cpu.pos.len(), "{what}: cpu vel/pos lengths");
    let mut e = SnapErr::default();
    for i in 0..gpu.pos.len() {
        let (pg, pc, vg, vc) = (gpu.pos[i], cpu.pos[i], gpu.vel[i], cpu.vel[i]);
        assert_eq!(
            pg.w.to_bits(),
            pc.w.to_bits(),
            "{what}: slot {i} pos.w (alive): gpu {} vs cpu {}",
            pg.w,
            pc.w
        );
        assert_eq!(
            vg.w.to_bits(),
            vc.w.to_bits(),
            "{what}: slot {i} vel.w (damping): gpu {} vs cpu {}",
            vg.w,
            vc.w
        );
        for (k, lane) in ["x", "y", "z"].iter().enumerate() {
            check_f32(
                what,
                &format!("pos.{lane}"),
                i,
                pg[k],
                pc[k],
                pos,
                &mut e.pos,
            );
            check_f32(
                what,
                &format!("vel.{lane}"),
                i,
                vg[k],
                vc[k],
                vel,
                &mut e.vel,
            );
        }
    }
    e
}

/// FNV-1a of an aggregate snapshot (every lane's bits, in slot order, after the count).
pub fn hash_agg(s: &AggSnapshot) -> u64 {
    let mut h = Fnv::new();
    h.u32(s.pos.len() as u32);
    for (p, v) in s.pos.iter().zip(&s.vel) {
        h.v4(*p);
        h.v4(*v);
    }
    h.finish()
}

/// The largest distance between corresponding positions of two aggregate snapshots, and its
/// slot.
pub fn max_pos_diff(a: &AggSnapshot, b: &AggSnapshot) -> (f32, usize) {
    assert_eq!(a.pos.len(), b.pos.len(), "max_pos_diff: slot counts differ");
    a.pos
        .iter()
        .zip(&b.pos)
        .enumerate()
        .map(|(i, (p, q))| ((p.truncate() - q.truncate()).length(), i))
        .fold((0.0, 0), |m, x| if x.0 > m.0 { x } else { m })
}
