//! The rapier3d side: the wgphys world mirrored body by body into rapier, with integration
//! parameters matched to wgphys' or rapier's defaults, stepped and timed ([`run_rapier`]).

use std::time::Instant;

use rapier3d::prelude as rp;
use wgphys::rigid::types::{body_kind, shape_kind};
use wgphys::rigid::RigidWorld;
use wgphys::Backend;

use crate::args::Tuning;
use crate::joints::{mirror_joints, recycle_rapier, worst_gap, RECYCLE_EVERY};
use crate::report::{joint_figures, median, stability, Row, State};
use crate::run_wgphys::{build, Built};
use crate::{Res, Scene, DT, SETTLE_STEP};

/// rapier's integration parameters for the wgphys configuration `config`: "matched" maps
/// substeps → `num_solver_iterations`, biased velocity iterations →
/// `num_internal_pgs_iterations` and relax iterations → `num_internal_stabilization_iterations`
/// (both solvers are soft steps: biased, then unbiased); otherwise rapier's defaults
/// (4 substeps of 1 + 1) with our dt.
fn rapier_params(config: &wgphys::rigid::RigidConfig, matched: bool) -> rp::IntegrationParameters {
    let mut p = rp::IntegrationParameters {
        dt: DT,
        ..Default::default()
    };
    if matched {
        p.num_solver_iterations = config.substeps as usize;
        p.num_internal_pgs_iterations = config.velocity_iterations as usize;
        p.num_internal_stabilization_iterations = config.relax_iterations as usize;
    }
    p
}

fn combine(c: wgphys::rigid::Combine) -> Res<rp::CoefficientCombineRule> {
    use wgphys::rigid::Combine as C;
    Ok(match c {
        C::Average => rp::CoefficientCombineRule::Average,
        C::Min => rp::CoefficientCombineRule::Min,
        C::Geometric => rp::CoefficientCombineRule::GeometricMean,
        other => return Err(format!("rapier has no combine rule like {other:?}").into()),
    })
}

/// Mirrors a wgphys world (bodies, boxes, capsules, spheres, hulls, meshes, heightfields and the
/// ground plane) into a rapier world: a hull as a `ConvexPolyhedron` of its vertices, a mesh as
/// a `TriMesh` and a heightfield as a `HeightField` (`level.rs`), all read from the world's hull
/// store. Returns the rapier world and, for each wgphys body slot, its rapier handle.
fn mirror(world: &mut RigidWorld) -> Res<(rp::PhysicsWorld, Vec<Option<rp::RigidBodyHandle>>)> {
    let config = world.config().clone();
    let bodies = world.read_bodies()?;
    let shapes = world.shapes().to_vec();
    let words = world.hull_words().to_vec();
    let mut rw = rp::PhysicsWorld::new();
    rw.gravity = rp::Vector::new(config.gravity.x, config.gravity.y, config.gravity.z);
    let friction_rule = combine(config.combine_friction)?;
    let restitution_rule = combine(config.combine_restitution)?;
    // Extent of the scene, for the ground cuboid standing in for the half-space.
    let reach = bodies
        .iter()
        .map(|b| b.pos.x.abs().max(b.pos.z.abs()))
        .fold(10.0f32, f32::max)
        * 2.0
        + 100.0;
    let mut handles = vec![None; bodies.len()];
    for (i, b) in bodies.iter().enumerate() {
        let mine: Vec<_> = shapes
            .iter()
            .filter(|s| s.kind != 0 && s.body as usize == i)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let pos = rp::Vector::new(b.pos.x, b.pos.y, b.pos.z);
        let rot = rp::Rotation::from_xyzw(b.orient.x, b.orient.y, b.orient.z, b.orient.w);
        let builder = match b.kind {
            body_kind::DYNAMIC => rp::RigidBodyBuilder::dynamic(),
            body_kind::KINEMATIC => rp::RigidBodyBuilder::kinematic_velocity_based(),
            _ => rp::RigidBodyBuilder::fixed(),
        }
        .pose(rp::Pose::from_parts(pos, rot))
        .can_sleep(b.can_sleep != 0);
        let h = rw.insert_body(builder);
        let mass = if b.kind == body_kind::DYNAMIC && b.pos.w > 0.0 {
            1.0 / b.pos.w
        } else {
            0.0
        };
        let n_shapes = mine.len() as f32;
        for s in mine {
            let offset = rp::Pose::from_parts(
                rp::Vector::new(s.offset_pos.x, s.offset_pos.y, s.offset_pos.z),
                rp::Rotation::from_xyzw(
                    s.offset_rot.x,
                    s.offset_rot.y,
                    s.offset_rot.z,
                    s.offset_rot.w,
                ),
            );
            let c = match s.kind {
                shape_kind::BOX => {
                    rp::ColliderBuilder::cuboid(s.dims.x, s.dims.y, s.dims.z).position(offset)
                }
                shape_kind::SPHERE => rp::ColliderBuilder::ball(s.dims.x).position(offset),
                shape_kind::HULL => {
                    use wgphys::rigid::hull::HullWords;
                    let h = words.hull(s.dims.x as u32);
                    let points: Vec<rp::Vector> = (0..h.vertex_count)
                        .map(|i| {
                            let v = words.vertex(&h, i);
                            rp::Vector::new(v.x, v.y, v.z)
                        })
                        .collect();
                    rp::ColliderBuilder::convex_hull(&points)
                        .ok_or("rapier could not cook a hull")?
                        .position(offset)
                }
                shape_kind::CAPSULE => {
                    rp::ColliderBuilder::capsule_y(s.dims.y, s.dims.x).position(offset)
                }
                shape_kind::HALF_SPACE => {
                    // The half-space p·n <= d, as a thick static slab (the scenes' planes are
                    // the ground, n = +y).
                    if (s.dims.y - 1.0).abs() > 1e-6 {
                        return Err("only a +y ground plane is mirrored into rapier".into());
                    }
                    rp::ColliderBuilder::cuboid(reach, 1.0, reach).position(
                        rp::Pose::from_translation(rp::Vector::new(0.0, s.dims.w - 1.0, 0.0)),
                    )
                }
                shape_kind::MESH => crate::level::mesh_collider(&words, s)?.position(offset),
                shape_kind::HEIGHTFIELD => {
                    crate::level::heightfield_collider(&words, s).position(offset)
                }
                k => return Err(format!("shape kind {k} is not mirrored into rapier").into()),
            }
            .friction(s.material.x)
            .restitution(s.material.y)
            .friction_combine_rule(friction_rule)
            .restitution_combine_rule(restitution_rule);
            let c = if mass > 0.0 {
                c.mass(mass / n_shapes)
            } else {
                c
            };
            rw.insert_collider(c, Some(h));
        }
        handles[i] = Some(h);
    }
    Ok((rw, handles))
}

fn rapier_states(
    rw: &rp::PhysicsWorld,
    handles: &[Option<rp::RigidBodyHandle>],
    slots: &[usize],
) -> Vec<State> {
    slots
        .iter()
        .filter_map(|&i| handles.get(i).copied().flatten())
        .filter_map(|h| rw.bodies.get(h))
        .map(|b| {
            let t = b.translation();
            State {
                pos: [t.x, t.y, t.z],
                speed: b.linvel().length(),
            }
        })
        .collect()
}

pub(crate) fn run_rapier(
    scene: Scene,
    n: u32,
    matched: bool,
    steps: usize,
    warmup: usize,
    relax: Tuning,
) -> Res<Row> {
    let Built {
        world: mut source,
        slots,
        links,
        mut rain,
        ..
    } = build(scene, n, Backend::Cpu, relax)?;
    let params = rapier_params(source.config(), matched);
    let (mut rw, handles) = mirror(&mut source)?;
    if !links.is_empty() {
        mirror_joints(&source.read_joints()?, &handles, &mut rw)?;
    }
    rw.integration_parameters = params;
    let mut times = Vec::with_capacity(steps);
    let mut settled = None;
    for k in 1..=steps {
        let t0 = Instant::now();
        rw.step();
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if k > warmup {
            times.push(ms);
        }
        // The rain's ragdolls are dropped again between timed steps, as in wgphys.
        if let Some(rain) = rain.as_mut().filter(|_| k.is_multiple_of(RECYCLE_EVERY)) {
            recycle_rapier(rain, k as u64, &handles, &mut rw);
        }
        // The drift is measured from t = 1 s to the last step: none when that is t = 1 s.
        if k == SETTLE_STEP && steps > SETTLE_STEP {
            settled = Some(rapier_states(&rw, &handles, &slots));
        }
    }
    let end = rapier_states(&rw, &handles, &slots);
    let awake = slots
        .iter()
        .filter_map(|&i| handles.get(i).copied().flatten())
        .filter_map(|h| rw.bodies.get(h))
        .filter(|b| !b.is_sleeping())
        .count();
    let p = &rw.integration_parameters;
    Ok(Row {
        scene,
        bodies: slots.len(),
        engine: format!(
            "rapier3d 0.36 {} ({} substep × {} PGS + {} stab., 1 thread)",
            if matched { "matched" } else { "default" },
            p.num_solver_iterations,
            p.num_internal_pgs_iterations,
            p.num_internal_stabilization_iterations
        ),
        steps,
        timed: times.len(),
        ms: median(times),
        stability: stability(scene, n, settled.as_deref(), &end)
            + &joint_figures(
                &links,
                worst_gap(&links, |i| {
                    let b = rw.bodies.get(handles.get(i).copied().flatten()?)?;
                    let (t, r) = (b.translation(), b.rotation());
                    Some((
                        glam::Vec3::new(t.x, t.y, t.z),
                        glam::Quat::from_xyzw(r.x, r.y, r.z, r.w),
                    ))
                }),
                rain.as_ref(),
            ),
        awake: awake.to_string(),
        dispatches: "–".into(),
        host_ms: "–".into(),
        gpu_ms: "–".into(),
        colours: "–".into(),
    })
}
