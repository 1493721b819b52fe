//! Collision with the renderer's depth buffer: the test draws a tilted plane into a depth
//! texture with a real render pass, then drops particles on it. On both backends (the GPU reads
//! the texture, the CPU twin the same plane's depths computed on the host), no particle ever
//! gets behind the drawn surface, they come to rest on it, and with `kill` they die where they
//! land. `parity`: the GPU against the CPU twin on the same depth image, every field.

mod common;

#[path = "particles_depth/parity.rs"]
mod parity;

use common::*;
use glam::{Mat4, Vec3, Vec4};
use wgphys::gpu::GpuContext;
use wgphys::particles::{
    DepthCollider, DepthImage, DepthSource, ForceField, Particle, ParticleWorld, WorldConfig,
};
use wgphys::Backend;
use wgphys::Error;

const SIZE: u32 = 256;
const DT: f32 = 1.0 / 60.0;
/// The drawn plane: n·p = 0 with n along (−0.3, 1, 0), a slope of 0.3 (below friction 0.5).
fn plane_normal() -> Vec3 {
    Vec3::new(-0.3, 1.0, 0.0).normalize()
}

fn view_proj() -> Mat4 {
    glam::camera::rh::proj::directx::perspective(60f32.to_radians(), 1.0, 0.1, 100.0)
        * glam::camera::rh::view::look_at_mat4(Vec3::new(0.0, 6.0, 12.0), Vec3::ZERO, Vec3::Y)
}

/// Draws the plane (a 40 m square on it) into a `SIZE`² Depth32Float texture with a render
/// pass, and returns it with the same plane's depths for the CPU twin.
fn draw_plane(ctx: &GpuContext, usage: wgpu::TextureUsages) -> (wgpu::Texture, DepthImage) {
    let d = &ctx.device;
    let texture = d.create_texture(&wgpu::TextureDescriptor {
        label: Some("test depth"),
        size: wgpu::Extent3d {
            width: SIZE,
            height: SIZE,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Depth32Float,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | usage,
        view_formats: &[],
    });
    // Clip-space corners, computed here: the vertex shader passes them through.
    let vp = view_proj();
    let on_plane = |x: f32, z: f32| Vec3::new(x, 0.3 * x, z);
    let corners = [
        on_plane(-20.0, -20.0),
        on_plane(20.0, -20.0),
        on_plane(20.0, 20.0),
        on_plane(-20.0, -20.0),
        on_plane(20.0, 20.0),
        on_plane(-20.0, 20.0),
    ];
    let clip: Vec<Vec4> = corners.iter().map(|&p| vp * p.extend(1.0)).collect();
    let vertices = wgphys::gpu::buffer::with_data(
        d,
        "test plane",
        bytemuck::cast_slice(&clip),
        wgpu::BufferUsages::VERTEX,
    );
    let module = d.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("test depth shader"),
        source: wgpu::ShaderSource::Wgsl(
            "@vertex fn vs(@location(0) p: vec4<f32>) -> @builtin(position) vec4<f32> { return p; }"
                .into(),
        ),
    });
    let pipeline = d.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("test depth pipeline"),
        layout: None,
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: 16,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x4],
            })],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: Some(wgpu::DepthStencilState {
            format: wgpu::TextureFormat::Depth32Float,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: None,
        multiview_mask: None,
        cache: None,
    });
    let view = texture.create_view(&Default::default());
    let mut enc = d.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("test depth pass"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_vertex_buffer(0, vertices.slice(..));
        pass.draw(0..6, 0..1);
    }
    ctx.queue.submit([enc.finish()]);
    (texture, plane_image())
}

/// The plane's depths computed on the host, texel centre by texel centre (the ray through the
/// centre met with the plane; GL adapters cannot copy a depth texture into a buffer, and the
/// CPU twin needs the values, not the rasteriser's exact bits).
fn plane_image() -> DepthImage {
    let vp = view_proj();
    let inv = vp.inverse();
    let n = plane_normal();
    let unproject = |x: f32, y: f32, z: f32| {
        let w = inv * Vec4::new(x, y, z, 1.0);
        w.truncate() / w.w
    };
    let mut depth = Vec::with_capacity((SIZE * SIZE) as usize);
    for row in 0..SIZE {
        for col in 0..SIZE {
            let x = (col as f32 + 0.5) / SIZE as f32 * 2.0 - 1.0;
            let y = 1.0 - (row as f32 + 0.5) / SIZE as f32 * 2.0;
            let (a, b) = (unproject(x, y, 0.0), unproject(x, y, 1.0));
            let t = -n.dot(a) / n.dot(b - a);
            let hit = a + (b - a) * t;
            let clip = vp * hit.extend(1.0);
            let inside = (0.0..=1.0).contains(&t) && hit.x.abs() <= 20.0 && hit.z.abs() <= 20.0;
            depth.push(if inside { clip.z / clip.w } else { 1.0 });
        }
    }
    DepthImage {
        width: SIZE,
        height: SIZE,
        depth,
    }
}

fn collider(source: DepthSource, kill: bool) -> DepthCollider {
    DepthCollider {
        source,
        view_proj: view_proj(),
        restitution: 0.2,
        friction: 0.5,
        thickness: 0.5,
        kill,
    }
}

/// A 10 × 10 grid dropped from 1.5 to 2.5 m above the plane, in view of the camera.
fn drop_grid(w: &mut ParticleWorld) {
    for i in 0..10 {
        for k in 0..10 {
            let (x, z) = (-3.0 + 0.6 * i as f32, -3.0 + 0.6 * k as f32);
            let p = Vec3::new(x, 0.3 * x + 1.5 + 0.1 * ((i + k) % 10) as f32, z);
            w.spawn(Particle::new(p).with_size(0.05)).expect("spawn");
        }
    }
}

fn world(backend: Backend) -> ParticleWorld {
    ParticleWorld::new(
        backend,
        WorldConfig {
            capacity: 256,
            fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
            ..WorldConfig::default()
        },
    )
    .expect("world")
}

/// Every step, every particle's centre stays at least its radius above the drawn plane, less
/// what the depth buffer can resolve: the plane is rebuilt from three neighbouring texels of
/// 32-bit depth at about 13 m with the near plane at 0.1 m, a position error of about
/// 1e-4 m (6e-8 · 13² / 0.1) and a normal tilted by that over a texel's 5 cm, so 1e-3 m. After
/// 2 s (restitution 0.2, friction 0.5 above the slope's 0.3) every particle rests on it: its
/// centre at most a step of gravity's travel (g·dt² = 2.7 mm, the reach of a resting contact)
/// more above one radius, its speed below 0.05 m/s.
#[test]
fn particles_stop_on_the_drawn_surface_and_never_pass_behind_it() {
    let ctx = gpu();
    let (texture, image) = draw_plane(&ctx, wgpu::TextureUsages::TEXTURE_BINDING);
    let n = plane_normal();
    for (name, backend, source) in [
        (
            "gpu",
            Backend::Gpu(ctx.clone()),
            DepthSource::Texture(texture.clone()),
        ),
        ("cpu", Backend::Cpu, DepthSource::Image(image.clone())),
    ] {
        let mut w = world(backend);
        w.set_depth_collider(Some(collider(source.clone(), false)))
            .expect("depth collider");
        drop_grid(&mut w);
        for s in 1..=120 {
            if s % 10 == 0 {
                // A renderer hands over its depth buffer frame after frame: the same texture
                // again only updates the record.
                let again = match &source {
                    DepthSource::Texture(t) => DepthSource::Texture(t.clone()),
                    DepthSource::Image(i) => DepthSource::Image(i.clone()),
                };
                w.set_depth_collider(Some(collider(again, false)))
                    .expect("depth collider again");
            }
            w.step(DT).expect("step");
            let snap = w.read_snapshot().expect("snapshot");
            assert_eq!(snap.len(), 100, "{name} step {s}");
            for (i, p) in snap.pos.iter().enumerate() {
                let above = n.dot(p.truncate());
                assert!(
                    above >= 0.05 - 1e-3,
                    "{name} step {s}: particle {i} is {above} m from the plane"
                );
                if s == 120 {
                    let speed = snap.vel[i].truncate().length();
                    assert!(
                        above - 0.05 <= 9.81 * DT * DT + 1e-3 && speed < 0.05,
                        "{name}: particle {i} is not at rest on the plane ({above} m, {speed} m/s)"
                    );
                }
            }
        }
    }
}

/// With `kill`, every particle dies in the step it reaches the surface.
#[test]
fn with_kill_particles_die_where_they_land() {
    let ctx = gpu();
    let (texture, image) = draw_plane(&ctx, wgpu::TextureUsages::TEXTURE_BINDING);
    for (name, backend, source) in [
        (
            "gpu",
            Backend::Gpu(ctx.clone()),
            DepthSource::Texture(texture.clone()),
        ),
        ("cpu", Backend::Cpu, DepthSource::Image(image.clone())),
    ] {
        let mut w = world(backend);
        w.set_depth_collider(Some(collider(source, true)))
            .expect("depth collider");
        drop_grid(&mut w);
        for _ in 0..60 {
            w.step(DT).expect("step");
        }
        assert_eq!(w.read_counters().expect("counters").live, 0, "{name}");
    }
}

/// A depth texture of the wrong format or usage, the wrong source for the backend, or an
/// image whose size does not match its values: refused naming the source, nothing changes.
#[test]
fn a_bad_depth_source_is_refused() {
    let ctx = gpu();
    let (texture, image) = draw_plane(&ctx, wgpu::TextureUsages::empty());
    let what = |r: wgphys::Result<()>| match r {
        Err(Error::InvalidInput { what, .. }) => what,
        other => panic!("expected InvalidInput, got {other:?}"),
    };
    let mut g = world(Backend::Gpu(ctx.clone()));
    assert_eq!(
        what(g.set_depth_collider(Some(collider(DepthSource::Texture(texture), false)))),
        "depth_collider.source",
        "no TEXTURE_BINDING"
    );
    let colour = ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: 4,
            height: 4,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::R32Float,
        usage: wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    assert_eq!(
        what(g.set_depth_collider(Some(collider(DepthSource::Texture(colour), false)))),
        "depth_collider.source",
        "an R32Float texture"
    );
    assert_eq!(
        what(g.set_depth_collider(Some(collider(DepthSource::Image(image.clone()), false)))),
        "depth_collider.source",
        "values for a GPU world"
    );
    let mut c = world(Backend::Cpu);
    let short = DepthImage {
        depth: image.depth[..10].to_vec(),
        ..image.clone()
    };
    assert_eq!(
        what(c.set_depth_collider(Some(collider(DepthSource::Image(short), false)))),
        "depth_collider.source",
        "too few values"
    );
    let mut flat = collider(DepthSource::Image(image), false);
    flat.view_proj = Mat4::ZERO;
    assert_eq!(
        what(c.set_depth_collider(Some(flat))),
        "depth_collider.view_proj"
    );
}
