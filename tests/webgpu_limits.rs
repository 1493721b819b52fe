//! Every world runs inside a device a renderer made with WebGPU's default limits
//! (`wgpu::Limits::default()`: 8 storage buffers per shader stage, 128 MiB per storage binding,
//! 16 KiB of workgroup memory, 256 invocations per workgroup), and gives there the bits it gives
//! on a device with the adapter's own limits: the kernels are the same, only the device's
//! validation differs. A device below what a world needs is a typed error naming the limit,
//! never a panic. No GPU error may escape to the device's uncaptured-error handler (whose
//! default is a panic): the tests install one that records them and expect none.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use wgphys::aggregate::AggSnapshot;
use wgphys::gpu::GpuContext;
use wgphys::particles::ParticleWorld;
use wgphys::rigid::{Explosion, RigidWorld};
use wgphys::Backend;
use wgphys::{scenes, Error};

const DT: f32 = 1.0 / 60.0;

type Escaped = Arc<Mutex<Vec<String>>>;

/// A renderer's device with `limits` (clamped to what the adapter allows), its queue and
/// adapter info, and the list the device's uncaptured GPU errors go to.
fn renderer_device(
    limits: wgpu::Limits,
) -> (wgpu::Device, wgpu::Queue, wgpu::AdapterInfo, Escaped) {
    let (device, queue, info) =
        common::device_with(|adapter| limits.or_worse_values_from(&adapter));
    let escaped = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = escaped.clone();
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        if let Ok(mut v) = sink.lock() {
            v.push(e.to_string());
        }
    }));
    (device, queue, info, escaped)
}

/// `err` is the refusal of a device with `have` storage buffers per stage, for a need of
/// `need`: `Error::DeviceLimit` naming the limit, the values, `names` and the fix.
fn storage_limit_refusal(what: &str, err: Option<Error>, need: u32, have: u32, names: &str) {
    match err {
        Some(
            e @ Error::DeviceLimit {
                limit,
                need: n,
                have: h,
                ..
            },
        ) => {
            assert_eq!(
                (limit, n, h),
                ("max_storage_buffers_per_shader_stage", need, have),
                "{what}: {e}"
            );
            let msg = e.to_string();
            assert!(
                msg.contains(names) && msg.contains("Adapter::limits"),
                "{what}: the message names {names} and the fix: {msg}"
            );
        }
        other => panic!("{what}: expected Error::DeviceLimit, got {other:?}"),
    }
}

fn none_escaped(escaped: &Escaped) {
    let escaped = escaped.lock().map(|v| v.clone()).unwrap_or_default();
    assert!(escaped.is_empty(), "GPU errors escaped: {escaped:?}");
}

/// 150 steps of the fireworks show (launches, bursts into payloads, deaths, compaction): the
/// hash of every live particle's state.
fn fireworks(backend: Backend) -> wgphys::Result<u64> {
    let mut w = ParticleWorld::new(backend, scenes::fireworks_config(4096, 7))?;
    for _ in 0..150 {
        scenes::fireworks_tick(&mut w)?;
        w.step(DT)?;
    }
    let s = w.read_snapshot()?;
    let mut h = common::Fnv::new();
    common::hash_snapshot(&mut h, &s);
    Ok(h.finish())
}

/// 80 steps of sand poured onto the ground with the grain grid on (the spatial-order kernels).
fn sand(backend: Backend) -> wgphys::Result<AggSnapshot> {
    let mut w = scenes::aggregate::sand(backend, 256, 0.05)?;
    for step in 0..80 {
        if step % 5 == 0 && step < 40 {
            scenes::aggregate::sand_pour(&mut w, 32, 0.05, step)?;
        }
        w.step(DT)?;
    }
    w.read_snapshot()
}

/// The explosion scene, every rigid kernel compiled up front, 50 steps with the blast set off
/// at step 10: the hash of every body slot.
fn explosion(backend: Backend) -> wgphys::Result<u64> {
    let (mut w, _) = scenes::rigid::explosion_scene(backend)?;
    w.precompile()?;
    for step in 0..50 {
        if step == 10 {
            w.set_explosion(Some(Explosion::at(glam::Vec3::new(0.0, 0.3, 0.0))))?;
        }
        w.step(DT)?;
    }
    Ok(common::rigid::hash_bodies(&w.read_bodies()?))
}

#[test]
fn every_world_runs_on_a_device_with_webgpus_default_limits() {
    let webgpu = wgpu::Limits::default();
    // What the kernels need, read from their WGSL, against WebGPU's defaults.
    let needs = wgphys::shaders::engine_needs().expect("the engine's WGSL validates");
    for (limit, need, default) in needs.against(&webgpu) {
        println!("{limit}: the engine needs {need}, WebGPU's default is {default}");
        assert!(
            need <= default,
            "{limit}: the engine needs {need}, WebGPU gives {default}"
        );
    }
    let (device, queue, info, escaped) = renderer_device(webgpu.clone());
    let ctx = GpuContext::from_device(device, queue, info)
        .expect("WebGPU's default limits are enough for every kernel of the engine");
    let have = ctx.device.limits();
    println!(
        "device: {} storage buffers per stage, {} bytes per storage binding, {} bytes of \
         workgroup memory, {} invocations per workgroup",
        have.max_storage_buffers_per_shader_stage,
        have.max_storage_buffer_binding_size,
        have.max_compute_workgroup_storage_size,
        have.max_compute_invocations_per_workgroup
    );
    assert!(
        have.max_storage_buffers_per_shader_stage <= webgpu.max_storage_buffers_per_shader_stage,
        "the device keeps WebGPU's storage-buffer limit"
    );
    let full = common::gpu();
    let limited = Backend::Gpu(ctx.clone());
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        (
            fireworks(limited.clone()),
            sand(limited.clone()),
            explosion(limited.clone()),
        )
    }))
    .expect("no world may panic on a device with WebGPU's default limits");
    let (f, s, e) = outcome;
    let f = f.expect("the particle world builds and steps with WebGPU's default limits");
    let s = s.expect("the gridded aggregate world builds and steps with WebGPU's default limits");
    let e = e.expect("the rigid world builds and steps with WebGPU's default limits");
    none_escaped(&escaped);
    assert_eq!(
        f,
        fireworks(Backend::Gpu(full.clone())).expect("fireworks, adapter limits"),
        "fireworks: the limited device gives other bits than the adapter's limits"
    );
    let s_full = sand(Backend::Gpu(full.clone())).expect("sand, adapter limits");
    assert_eq!(
        common::hash_agg(&s),
        common::hash_agg(&s_full),
        "sand: the limited device gives other bits than the adapter's limits"
    );
    // The pours land in columns: grains rest on the ground (centre at one radius) and on each
    // other (the gridded grain-grain contacts); none sinks through the ground.
    assert!(
        s.pos.iter().all(|p| p.y > 0.04) && s.pos.iter().filter(|p| p.y > 0.14).count() >= 32,
        "grains rest on the ground and on each other"
    );
    assert_eq!(
        e,
        explosion(Backend::Gpu(full)).expect("explosion, adapter limits"),
        "explosion: the limited device gives other bits than the adapter's limits"
    );
}

/// Below what the worlds need (4 storage buffers per stage, under the kernels' 8):
/// `GpuContext::from_device` takes the device (a world that needed less could use it), and
/// each world is refused when built with `Error::DeviceLimit` naming the world, the limit, its
/// need and the device's value. Never a panic.
#[test]
fn a_device_below_the_engines_needs_is_a_typed_error() {
    use wgphys::aggregate::{AggregateConfig, AggregateWorld};
    use wgphys::particles::WorldConfig;
    use wgphys::rigid::RigidConfig;
    const HAVE: u32 = 4;
    let (device, queue, info, escaped) = renderer_device(wgpu::Limits {
        max_storage_buffers_per_shader_stage: HAVE,
        ..wgpu::Limits::default()
    });
    let need = wgphys::shaders::engine_needs()
        .expect("the engine's WGSL validates")
        .storage_buffers;
    assert_eq!(
        need, 8,
        "the kernels bind at most WebGPU's 8 storage buffers, and some 8"
    );
    let ctx = GpuContext::from_device(device, queue, info)
        .expect("a device is taken; each world checks its own needs");
    let backend = || Backend::Gpu(ctx.clone());
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        [
            (
                "particle",
                ParticleWorld::new(backend(), WorldConfig::default()).err(),
                wgphys::particles::gpu::storage_buffers_per_stage(),
            ),
            (
                "aggregate",
                AggregateWorld::new(backend(), AggregateConfig::default()).err(),
                wgphys::aggregate::gpu::storage_buffers_per_stage(false),
            ),
            (
                "rigid",
                RigidWorld::new(backend(), RigidConfig::default()).err(),
                wgphys::rigid::gpu::storage_buffers_per_stage(),
            ),
        ]
    }))
    .expect("building worlds on a device below their needs must not panic");
    for (world, err, need) in outcome {
        let need = need.expect("the engine's WGSL validates");
        assert!(
            need > HAVE && need <= 8,
            "{world}: needs {need} storage buffers per stage"
        );
        storage_limit_refusal(world, err, need, HAVE, &format!("{world} world"));
    }
    none_escaped(&escaped);
}
