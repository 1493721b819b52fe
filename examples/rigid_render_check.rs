//! Temporary: renders a hand-written GpuRigid with the rigid renderer.

mod common;

use common::rigid::{self, RigidBuffers, RigidDemo, RigidStyle};
use common::{BoxError, LineVertex, OrbitCamera};
use glam::{Quat, Vec3, Vec4};
use wgphys::gpu::GpuContext;
use wgphys::grid::GridSpec;
use wgphys::rigid::gpu::{GpuRigid, GpuRigidSizes};
use wgphys::rigid::types::{body_kind, shape_kind, GpuBody, GpuManifold, GpuShape};

struct Check {
    gpu: GpuRigid,
}

fn q(axis: Vec3, deg: f32) -> Vec4 {
    let q = Quat::from_axis_angle(axis.normalize(), deg.to_radians());
    Vec4::new(q.x, q.y, q.z, q.w)
}

impl RigidDemo for Check {
    const NAME: &'static str = "rigid_render_check";
    const CONTROLS: &'static str = "";
    const DEFAULT_FRAMES: u32 = 1;

    fn new(ctx: &GpuContext, _headless: Option<u32>) -> Result<Self, BoxError> {
        let gpu = GpuRigid::new(
            ctx,
            GpuRigidSizes {
                bodies: 32,
                shapes: 40,
                pairs: 32,
                solver_words: 64,
                pair_scratch_words: 64,
                grid: GridSpec::new(1.0, 64)?,
            },
        )?;
        let id = Vec4::new(0.0, 0.0, 0.0, 1.0);
        let mut bodies = vec![GpuBody {
            pos: Vec4::new(0.0, 0.0, 0.0, 0.0),
            orient: id,
            kind: body_kind::STATIC,
            awake: 1,
            ..Default::default()
        }];
        let mut shapes = vec![GpuShape {
            kind: shape_kind::HALF_SPACE,
            body: 0,
            offset_rot: id,
            dims: Vec4::new(0.0, 1.0, 0.0, 0.0),
            ..Default::default()
        }];
        let mut add = |pos: Vec3, orient: Vec4, kind: u32, dims: Vec4, awake: bool| {
            let b = bodies.len() as u32;
            bodies.push(GpuBody {
                pos: pos.extend(1.0),
                orient,
                kind: body_kind::DYNAMIC,
                awake: u32::from(awake),
                ..Default::default()
            });
            shapes.push(GpuShape {
                kind,
                body: b,
                offset_rot: id,
                dims,
                ..Default::default()
            });
        };
        // A stack of boxes.
        for i in 0..4 {
            let y = 0.5 + i as f32;
            add(
                Vec3::new(-3.0, y, 0.0),
                q(Vec3::Y, 12.0 * i as f32),
                shape_kind::BOX,
                Vec4::new(0.5, 0.5, 0.5, 0.0),
                i != 3,
            );
        }
        // A plank leaning.
        add(
            Vec3::new(0.0, 1.0, -1.5),
            q(Vec3::Z, 30.0),
            shape_kind::BOX,
            Vec4::new(1.5, 0.1, 0.6, 0.0),
            true,
        );
        // Spheres.
        for i in 0..5 {
            let r = 0.3 + 0.1 * i as f32;
            add(
                Vec3::new(-1.5 + 1.2 * i as f32, r, 1.8),
                q(Vec3::new(1.0, 1.0, 0.0), 40.0 * i as f32),
                shape_kind::SPHERE,
                Vec4::new(r, 0.0, 0.0, 0.0),
                i != 4,
            );
        }
        // Capsules: lying, standing, tilted, in the air.
        add(
            Vec3::new(2.5, 0.35, 0.0),
            q(Vec3::Z, 90.0),
            shape_kind::CAPSULE,
            Vec4::new(0.35, 0.8, 0.0, 0.0),
            true,
        );
        add(
            Vec3::new(3.5, 1.3, -1.5),
            id,
            shape_kind::CAPSULE,
            Vec4::new(0.3, 1.0, 0.0, 0.0),
            true,
        );
        add(
            Vec3::new(1.0, 2.8, 0.5),
            q(Vec3::new(1.0, 0.0, 1.0), 50.0),
            shape_kind::CAPSULE,
            Vec4::new(0.25, 0.6, 0.0, 0.0),
            true,
        );
        // A box in the air, rotated about everything.
        add(
            Vec3::new(-0.8, 3.2, -0.5),
            q(Vec3::new(1.0, 2.0, 0.5), 35.0),
            shape_kind::BOX,
            Vec4::new(0.6, 0.3, 0.4, 0.0),
            true,
        );
        // A compound: a dumbbell (two spheres offset from one body, a capsule between).
        let b = bodies.len() as u32;
        bodies.push(GpuBody {
            pos: Vec4::new(0.5, 0.4, 3.5, 1.0),
            orient: q(Vec3::Y, 20.0),
            kind: body_kind::DYNAMIC,
            awake: 1,
            ..Default::default()
        });
        for (x, kind, dims, rot) in [
            (-0.8, shape_kind::SPHERE, Vec4::new(0.4, 0.0, 0.0, 0.0), id),
            (0.8, shape_kind::SPHERE, Vec4::new(0.4, 0.0, 0.0, 0.0), id),
            (
                0.0,
                shape_kind::CAPSULE,
                Vec4::new(0.12, 0.8, 0.0, 0.0),
                q(Vec3::Z, 90.0),
            ),
        ] {
            shapes.push(GpuShape {
                kind,
                body: b,
                offset_pos: Vec4::new(x, 0.0, 0.0, 0.0),
                offset_rot: rot,
                dims,
                ..Default::default()
            });
        }
        gpu.write(&gpu.bodies, &bodies);
        gpu.write(&gpu.shapes, &shapes);
        // Fake contacts under the five spheres (slot 4 is past the pair counter: not drawn).
        let manifolds: Vec<GpuManifold> = (0..5)
            .map(|i| {
                let mut m = GpuManifold {
                    count: 1 + i % 2,
                    normal: Vec4::new(0.0, 1.0, 0.0, 0.5),
                    ..Default::default()
                };
                for k in 0..2 {
                    m.points[k] = Vec4::new(-1.5 + 1.2 * i as f32 + 0.2 * k as f32, 0.0, 1.8, 0.01);
                }
                m
            })
            .collect();
        gpu.write(&gpu.manifolds, &manifolds);
        gpu.write(&gpu.counters, &[4u32]);
        Ok(Self { gpu })
    }

    fn buffers(&self) -> RigidBuffers<'_> {
        RigidBuffers::of(&self.gpu)
    }

    fn camera(&self) -> OrbitCamera {
        OrbitCamera {
            target: Vec3::new(0.0, 1.0, 0.5),
            yaw: 0.5,
            pitch: 0.42,
            distance: 10.5,
            fov_y: 50f32.to_radians(),
        }
    }

    fn style(&self) -> RigidStyle {
        RigidStyle {
            contacts: true,
            ..RigidStyle::default()
        }
    }

    fn lines(&self, out: &mut Vec<LineVertex>) {
        common::segment(
            out,
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, 4.0, 0.0),
            [1.0, 1.0, 1.0, 0.5],
        );
    }

    fn update(&mut self) -> Result<(), BoxError> {
        Ok(())
    }
}

fn main() -> Result<(), BoxError> {
    rigid::run::<Check>()
}
