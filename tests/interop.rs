//! Render and device interop: a world on a caller's device, its step recorded into a caller's
//! encoder, and the render buffers a renderer binds (positions, colours, sizes, draw args).

mod common;

use glam::Vec3;
use wgphys::gpu::buffer::read_vec;
use wgphys::gpu::GpuContext;
use wgphys::particles::{Backend, Particle, ParticleWorld, WorldConfig};
use wgphys::scenes;

fn caller_device() -> GpuContext {
    // A device the "renderer" made for itself; the engine only borrows it.
    let ctx = common::gpu();
    GpuContext::from_device(ctx.device.clone(), ctx.queue.clone(), ctx.info.clone())
}

/// `encode_step` into the caller's encoder, submitted by the caller, gives bit-identical state
/// to `step` (which submits on its own), step after step of the fireworks show.
#[test]
fn encode_step_into_callers_encoder_matches_step() {
    let ctx = caller_device();
    let config = scenes::fireworks_config(4096, 5);
    let mut own = ParticleWorld::new(Backend::Gpu(ctx.clone()), config.clone()).expect("world");
    let mut borrowed = ParticleWorld::new(Backend::Gpu(ctx.clone()), config).expect("world");
    for _ in 0..150 {
        scenes::fireworks_tick(&mut own).expect("tick");
        scenes::fireworks_tick(&mut borrowed).expect("tick");
        own.step(scenes::DT).expect("step");
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("caller"),
            });
        borrowed
            .encode_step(scenes::DT, &mut encoder)
            .expect("encode");
        ctx.queue.submit([encoder.finish()]);
    }
    let a = own.read_snapshot().expect("read");
    let b = borrowed.read_snapshot().expect("read");
    assert!(
        !a.is_empty(),
        "the show should have live particles after 150 steps"
    );
    assert_eq!(a, b, "encode_step and step diverged");
}

/// The draw arguments hold (6 vertices, live instances, 0, 0), the position, colour and size
/// buffers hold the live particles in slots [0, live), and all three can be bound as vertex
/// buffers.
#[test]
fn render_buffers_describe_the_live_particles() {
    let ctx = caller_device();
    let mut world = ParticleWorld::new(
        Backend::Gpu(ctx.clone()),
        WorldConfig {
            capacity: 64,
            ..WorldConfig::default()
        },
    )
    .expect("world");
    let mut handles = Vec::new();
    for i in 0..10 {
        let p = Particle::new(Vec3::new(i as f32, 2.0, 0.0))
            .with_size(0.1 + i as f32 * 0.01)
            .with_colour(glam::Vec4::new(1.0, 0.5, 0.25, 1.0));
        handles.push(world.spawn(p).expect("spawn"));
    }
    world.step(1e-3).expect("step");
    world.remove(handles[3]).expect("remove");
    world.step(1e-3).expect("step");
    let b = world
        .render_buffers()
        .expect("GPU world has render buffers");
    for (name, buf) in [
        ("positions", b.positions),
        ("colours", b.colours),
        ("sizes", b.sizes),
    ] {
        assert!(
            buf.usage()
                .contains(wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::STORAGE),
            "{name} usage {:?}",
            buf.usage()
        );
    }
    assert!(
        b.draw_args.usage().contains(wgpu::BufferUsages::INDIRECT),
        "draw_args usage {:?}",
        b.draw_args.usage()
    );
    let args: Vec<u32> = read_vec(&ctx.device, &ctx.queue, b.draw_args, 4).expect("read");
    assert_eq!(
        args,
        vec![6, 9, 0, 0],
        "draw args after removing one of ten"
    );
    let pos: Vec<glam::Vec4> = read_vec(&ctx.device, &ctx.queue, b.positions, 9).expect("read");
    let sizes: Vec<f32> = read_vec(&ctx.device, &ctx.queue, b.sizes, 9).expect("read");
    let mut xs: Vec<i32> = pos.iter().map(|p| p.x.round() as i32).collect();
    xs.sort_unstable();
    assert_eq!(
        xs,
        vec![0, 1, 2, 4, 5, 6, 7, 8, 9],
        "slots [0, live) hold exactly the live particles"
    );
    for (k, p) in pos.iter().enumerate() {
        let i = p.x.round();
        assert!(
            (sizes[k] - (0.1 + i * 0.01)).abs() < 1e-6,
            "size of slot {k} follows its particle"
        );
        assert_eq!(p.w, 1.0, "position.w of slot {k}");
    }
}

/// `encode_step` on a CPU world is a clear error, not a panic.
#[test]
fn encode_step_needs_a_gpu_world() {
    let ctx = common::gpu();
    let mut world = ParticleWorld::new(Backend::Cpu, WorldConfig::default()).expect("world");
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    let err = world
        .encode_step(0.01, &mut encoder)
        .expect_err("CPU world cannot encode");
    assert!(err.to_string().contains("needs a GPU world"), "{err}");
}

/// A device a renderer made on the test adapter, with the adapter's limits as `limits` changes
/// them, and the adapter's info.
fn device_with(
    limits: impl FnOnce(wgpu::Limits) -> wgpu::Limits,
) -> (wgpu::Device, wgpu::Queue, wgpu::AdapterInfo) {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(
        &instance, None,
    ))
    .expect("an adapter (see tests/common/mod.rs)");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: limits(adapter.limits()),
        ..Default::default()
    }))
    .expect("a device with the limits asked for");
    (device, queue, adapter.get_info())
}

/// A renderer's device made with WebGPU's default of 8 storage buffers per shader stage (the
/// rest of its limits the adapter's): every world either builds and steps on it or returns
/// `Error::DeviceLimit` naming the world and the limit to raise; the aggregate world, with or
/// without a grid, builds and steps. Nothing panics, and no GPU error escapes to the
/// device's uncaptured-error handler (whose default is a panic).
#[test]
fn worlds_on_a_device_with_webgpu_storage_limits_error_instead_of_panicking() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::{Arc, Mutex};
    use wgphys::aggregate::{AggSnapshot, AggregateConfig, AggregateWorld};
    use wgphys::rigid::{RigidConfig, RigidWorld};
    use wgphys::Error;

    let webgpu = wgpu::Limits::default().max_storage_buffers_per_shader_stage;
    let (device, queue, info) = device_with(|adapter| wgpu::Limits {
        max_storage_buffers_per_shader_stage: webgpu,
        ..adapter
    });
    let escaped = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = escaped.clone();
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        if let Ok(mut v) = sink.lock() {
            v.push(e.to_string());
        }
    }));
    let ctx = GpuContext::from_device(device, queue, info);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let particles = ParticleWorld::new(Backend::Gpu(ctx.clone()), WorldConfig::default())
            .map(|_| ())
            .err();
        // A world that builds also steps there.
        let aggregate = AggregateWorld::new(Backend::Gpu(ctx.clone()), AggregateConfig::default())
            .and_then(|mut w| w.step(1.0 / 60.0))
            .err();
        let rigid = RigidWorld::new(Backend::Gpu(ctx.clone()), RigidConfig::default())
            .map(|_| ())
            .err();
        [
            ("particle", particles),
            ("aggregate", aggregate),
            ("rigid", rigid),
        ]
    }));
    let outcome = outcome.expect("building worlds on a limited device must not panic");
    let needs = [
        wgphys::particles::gpu::storage_buffers_per_stage().expect("particle shader"),
        wgphys::aggregate::gpu::storage_buffers_per_stage(false).expect("aggregate shader"),
        wgphys::rigid::gpu::storage_buffers_per_stage().expect("rigid shader"),
    ];
    for ((world, err), need) in outcome.iter().zip(needs) {
        println!("{world} world (needs {need}): {err:?}");
        match err {
            None => assert!(need <= webgpu, "{world}: built although it needs {need}"),
            Some(
                e @ Error::DeviceLimit {
                    limit,
                    need: n,
                    have,
                    ..
                },
            ) => {
                assert_eq!(
                    (*limit, *n, *have),
                    ("max_storage_buffers_per_shader_stage", need, webgpu),
                    "{world}: {e}"
                );
                let msg = e.to_string();
                assert!(
                    msg.contains(&format!("{world} world")) && msg.contains("Adapter::limits"),
                    "{world}: the message names the world and the fix: {msg}"
                );
            }
            Some(other) => panic!("{world}: unexpected error {other}"),
        }
    }
    // With a grid too: the spatial-order kernels bind at most 8 (positions and velocities of
    // the packed state share one binding), so a gridded world builds and steps here, grains
    // landing and stacking, and gives the bits it gives on a device with the adapter's limits.
    let gridded = wgphys::aggregate::gpu::storage_buffers_per_stage(true).expect("shader");
    assert!(
        gridded <= webgpu,
        "a gridded aggregate world needs {gridded} storage buffers per stage, over {webgpu}"
    );
    let sand = |backend: Backend| -> wgphys::Result<AggSnapshot> {
        let mut w = scenes::aggregate::sand(backend, 256, 0.05)?;
        for step in 0..80 {
            if step % 5 == 0 && step < 40 {
                scenes::aggregate::sand_pour(&mut w, 32, 0.05, step)?;
            }
            w.step(1.0 / 60.0)?;
        }
        w.read_snapshot()
    };
    let limited = catch_unwind(AssertUnwindSafe(|| sand(Backend::Gpu(ctx.clone()))))
        .expect("a gridded aggregate world on a limited device must not panic")
        .expect("a gridded aggregate world builds and steps with WebGPU's 8 storage buffers");
    let full = sand(Backend::Gpu(common::gpu())).expect("the same world with the adapter's limits");
    assert_eq!(limited.pos.len(), 256);
    // The pours land in columns: grains rest on the ground (centre at one radius) and on each
    // other (the gridded grain-grain contacts), none sinks through the ground.
    let heights: Vec<f32> = limited.pos.iter().map(|p| p.y).collect();
    assert!(
        heights.iter().all(|&y| y > 0.04) && heights.iter().filter(|&&y| y > 0.14).count() >= 32,
        "grains rest on the ground and on each other: heights {heights:?}"
    );
    assert_eq!(
        common::hash_agg(&limited),
        common::hash_agg(&full),
        "the gridded world on the limited device differs from the same world on the adapter's limits"
    );
    // The rigid shader binds 16 storage buffers in one stage: it cannot build here.
    assert!(
        outcome[2].1.is_some(),
        "the rigid world needs more than {webgpu} storage buffers per stage"
    );
    let escaped = escaped.lock().map(|v| v.clone()).unwrap_or_default();
    assert!(escaped.is_empty(), "GPU errors escaped: {escaped:?}");
}

/// With a grid, the aggregate world's spatial order keeps positions and velocities as the two
/// halves of one binding, 32 bytes per particle slot (so that its kernels bind at most 8
/// storage buffers per stage). On a device whose storage binding cannot hold that, the
/// capacity is refused when the world is built, naming the most that fits; that capacity
/// builds and steps, and so does the refused one without a grid (16 bytes per slot).
#[test]
fn an_aggregate_capacity_beyond_the_devices_binding_size_is_refused() {
    use wgphys::aggregate::{AggregateConfig, AggregateWorld, Collisions};
    use wgphys::Error;

    const BINDING: u64 = 1 << 20;
    let (device, queue, info) = device_with(|adapter| wgpu::Limits {
        max_storage_buffer_binding_size: BINDING,
        ..adapter
    });
    let ctx = GpuContext::from_device(device, queue, info);
    let most = (BINDING / wgphys::aggregate::gpu::NEAR_STATE_BYTES) as u32;
    let build = |capacity: u32, grid: bool| {
        AggregateWorld::new(
            Backend::Gpu(ctx.clone()),
            AggregateConfig {
                capacity,
                collisions: grid.then(|| Collisions {
                    cell_size: 0.2,
                    table_size: 64,
                    ..Default::default()
                }),
                ..Default::default()
            },
        )
    };
    match build(most + 1, true) {
        Err(
            e @ Error::CapacityTooLarge {
                capacity,
                needed_bytes,
                max_bytes,
                max_capacity,
            },
        ) => {
            assert_eq!(
                (capacity, needed_bytes, max_bytes, max_capacity),
                (most + 1, 32 * u64::from(most + 1), BINDING, most),
                "{e}"
            );
            assert!(e.to_string().contains(&most.to_string()), "{e}");
        }
        other => panic!("capacity {} gave {:?}", most + 1, other.map(|_| ())),
    }
    build(most, true)
        .and_then(|mut w| w.step(1.0 / 60.0))
        .expect("the most that fits, with a grid");
    build(most + 1, false)
        .and_then(|mut w| w.step(1.0 / 60.0))
        .expect("the same capacity without a grid");
}

/// A device that is gone (destroyed here; a lost device behaves the same) makes every world's
/// next step and read an `Error::Gpu` naming the call, never a panic from wgpu's uncaptured-
/// error handler and never a hang. The particle, aggregate and rigid worlds, each on its own
/// device.
#[test]
fn a_destroyed_device_gives_errors_not_panics() {
    fn own_device() -> GpuContext {
        GpuContext::new().expect("a second device on the test adapter")
    }
    fn check<T: std::fmt::Debug>(what: &str, r: std::thread::Result<wgphys::Result<T>>) {
        match r {
            Ok(Err(wgphys::Error::Gpu(msg))) => assert!(
                msg.contains("new GpuContext"),
                "{what}: the message says what to do: {msg}"
            ),
            Ok(other) => panic!("{what}: expected Error::Gpu, got {other:?}"),
            Err(_) => panic!("{what}: panicked"),
        }
    }
    let guard = |f: &mut dyn FnMut() -> wgphys::Result<()>| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
    };

    let ctx = own_device();
    let mut particles =
        ParticleWorld::new(Backend::Gpu(ctx.clone()), scenes::fireworks_config(1024, 3))
            .expect("world");
    particles.launch(1).expect("launch");
    particles.step(scenes::DT).expect("step");
    ctx.device.destroy();
    check(
        "particle step",
        guard(&mut || particles.step(scenes::DT).map(|_| ())),
    );
    check(
        "particle read",
        guard(&mut || particles.read_snapshot().map(|_| ())),
    );

    let ctx = own_device();
    let mut sand =
        scenes::aggregate::sand(Backend::Gpu(ctx.clone()), 256, 0.05).expect("sand world");
    scenes::aggregate::sand_pour(&mut sand, 16, 0.05, 0).expect("pour");
    sand.step(scenes::DT).expect("step");
    ctx.device.destroy();
    check("aggregate step", guard(&mut || sand.step(scenes::DT)));
    check(
        "aggregate read",
        guard(&mut || sand.read_snapshot().map(|_| ())),
    );

    let ctx = own_device();
    let (mut rigid, _) =
        scenes::rigid::pyramid(Backend::Gpu(ctx.clone()), 3, 0.5).expect("pyramid");
    rigid.step(scenes::DT).expect("step");
    ctx.device.destroy();
    check(
        "rigid step",
        guard(&mut || rigid.step(scenes::DT).map(|_| ())),
    );
    check("rigid read", guard(&mut || rigid.read_bodies().map(|_| ())));
}
