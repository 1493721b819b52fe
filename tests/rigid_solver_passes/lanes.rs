//! The CPU twin's velocity stages run four contacts at a time in SIMD lanes
//! (`solver::VelocitySet`). Lane arithmetic rounds as scalar arithmetic does, so the packed set
//! must give the same bits as a plain scalar solve of the same contacts, written here as the
//! WGSL (`shaders/rigid/solve.wgsl`) reads, and as the packed set with one contact per group.

use super::*;
use glam::{Mat3, Vec2};
use wgphys::rigid::math::quat_rotate;

// ---------------------------------------------------------------------------------------------
// The scalar reference: solve.wgsl's solve_warm_manifold, solve_contact_manifold and
// solve_restitution_manifold, one manifold after another in the colouring's order.

struct RefBody {
    pos: Vec3,
    orient: Vec4,
    lin: Vec3,
    ang: Vec3,
    inv_mass: f32,
    inv_inertia: Mat3,
    dynamic: bool,
}

/// Body i as the sweeps load it: `dynamic` is the manifold's bit for it, which the colouring
/// set from the body's kind and awake flag.
fn load(bodies: &[GpuBody], i: u32, dynamic: bool) -> RefBody {
    let mut s = RefBody {
        pos: Vec3::ZERO,
        orient: Vec4::new(0.0, 0.0, 0.0, 1.0),
        lin: Vec3::ZERO,
        ang: Vec3::ZERO,
        inv_mass: 0.0,
        inv_inertia: Mat3::ZERO,
        dynamic: false,
    };
    let Some(b) = (i != NONE).then(|| bodies.get(i as usize)).flatten() else {
        return s;
    };
    s.pos = b.pos.xyz();
    s.orient = b.orient;
    s.lin = b.lin_vel.xyz();
    s.ang = b.ang_vel.xyz();
    if dynamic {
        s.inv_mass = b.pos.w;
        let c = b.inv_inertia_world;
        s.inv_inertia = Mat3::from_cols(c[0].xyz(), c[1].xyz(), c[2].xyz());
        s.dynamic = true;
    }
    s
}

fn store(bodies: &mut [GpuBody], i: u32, s: &RefBody) {
    if s.dynamic && i != NONE {
        let b = &mut bodies[i as usize];
        b.lin_vel = s.lin.extend(b.lin_vel.w);
        b.ang_vel = s.ang.extend(b.ang_vel.w);
    }
}

fn base(k: usize, i: usize) -> usize {
    (k * MAX_POINTS as usize + i) * ROWS_PER_POINT as usize
}

fn arms(a: &RefBody, b: &RefBody, n: Vec3, rows: &[Vec4], at: usize) -> (Vec3, Vec3, f32) {
    let ra = quat_rotate(a.orient, rows[at].xyz());
    let rb = quat_rotate(b.orient, rows[at + 1].xyz());
    (ra, rb, rows[at + 1].w - n.dot((a.pos + ra) - (b.pos + rb)))
}

fn rel(a: &RefBody, b: &RefBody, ra: Vec3, rb: Vec3) -> Vec3 {
    (a.lin + a.ang.cross(ra)) - (b.lin + b.ang.cross(rb))
}

fn apply(a: &mut RefBody, b: &mut RefBody, g: Vec3, ra: Vec3, rb: Vec3) {
    a.lin += g * a.inv_mass;
    a.ang += a.inv_inertia * ra.cross(g);
    b.lin -= g * b.inv_mass;
    b.ang -= b.inv_inertia * rb.cross(g);
}

/// Which reference stage a sweep runs.
#[derive(Clone, Copy)]
enum Stage {
    Warm,
    Contact,
    Relax,
    Restitution,
}

fn reference_sweep(
    p: &GpuRigidParams,
    c: &Colouring,
    stage: Stage,
    bodies: &mut [GpuBody],
    ms: &mut [GpuManifold],
    rows: &[Vec4],
) {
    for colour in 0..c.colour_count {
        for &k in c.batch(colour) {
            let k = k as usize;
            let m = ms[k];
            let mut a = load(bodies, m.body_a, m.dynamic & MANIFOLD_DYNAMIC_A != 0);
            let mut b = load(bodies, m.body_b, m.dynamic & MANIFOLD_DYNAMIC_B != 0);
            let n = m.normal.xyz();
            let mu = m.normal.w;
            let (t1, t2) = contact_basis(n);
            let soft = if a.dynamic && b.dynamic {
                p.soft
            } else {
                p.soft_static
            };
            if matches!(stage, Stage::Restitution) && m.material.x <= 0.0 {
                continue;
            }
            for i in 0..m.count.min(MAX_POINTS) as usize {
                let at = base(k, i);
                let (ra, rb, pen) = arms(&a, &b, n, rows, at);
                let old = ms[k].impulses[i];
                let kd = rows[at + 2];
                match stage {
                    Stage::Warm => {
                        apply(&mut a, &mut b, n * old.x + t1 * old.y + t2 * old.z, ra, rb);
                    }
                    Stage::Contact | Stage::Relax => {
                        let s = p.position_slop - pen;
                        let (bias, mass_scale, impulse_scale) = if s > 0.0 {
                            (s * p.inv_dt, 1.0, 0.0)
                        } else if matches!(stage, Stage::Contact) {
                            ((soft.x * s).max(-soft.w), soft.y, soft.z)
                        } else {
                            (0.0, 1.0, 0.0)
                        };
                        let vn = rel(&a, &b, ra, rb).dot(n);
                        let mut normal = old.x;
                        if kd.x > 0.0 {
                            normal =
                                (old.x - mass_scale * (vn + bias) / kd.x - impulse_scale * old.x)
                                    .max(0.0);
                        }
                        apply(&mut a, &mut b, n * (normal - old.x), ra, rb);
                        let dv = rel(&a, &b, ra, rb);
                        let mut tan = Vec2::new(old.y, old.z);
                        if kd.y > 0.0 {
                            tan.x -= dv.dot(t1) / kd.y;
                        }
                        if kd.z > 0.0 {
                            tan.y -= dv.dot(t2) / kd.z;
                        }
                        let limit = mu * normal;
                        let planar = tan.length();
                        if planar > limit {
                            tan *= if planar > 0.0 { limit / planar } else { 0.0 };
                        }
                        apply(
                            &mut a,
                            &mut b,
                            t1 * (tan.x - old.y) + t2 * (tan.y - old.z),
                            ra,
                            rb,
                        );
                        ms[k].impulses[i] = Vec4::new(normal, tan.x, tan.y, old.w.max(normal));
                    }
                    Stage::Restitution => {
                        let (e, vn0) = (m.material.x, rows[at].w);
                        if -vn0 < p.restitution_cutoff || old.w <= 0.0 || kd.x <= 0.0 {
                            continue;
                        }
                        let vn = rel(&a, &b, ra, rb).dot(n);
                        let normal = (old.x - (vn + e * vn0) / kd.x).max(0.0);
                        let tan = Vec2::new(old.y, old.z);
                        let planar = tan.length();
                        let mut kept = tan;
                        if planar > mu * normal {
                            kept *= if planar > 0.0 {
                                mu * normal / planar
                            } else {
                                0.0
                            };
                        }
                        let g =
                            n * (normal - old.x) + t1 * (kept.x - tan.x) + t2 * (kept.y - tan.y);
                        apply(&mut a, &mut b, g, ra, rb);
                        ms[k].impulses[i] = Vec4::new(normal, kept.x, kept.y, old.w);
                    }
                }
            }
            store(bodies, m.body_a, &a);
            store(bodies, m.body_b, &b);
        }
    }
}

/// The packed set, the set with one contact per group and the scalar reference give the same
/// bits through every velocity stage on a scene with dynamic, kinematic and static partners,
/// bouncy points closing above the cut-off, and the sequential colour (whose contacts share
/// body 0 and must not share a group). It fails if the packing puts two contacts of one dynamic
/// body into a group, or if a lane's arithmetic leaves the WGSL's order.
#[test]
fn packing_contacts_in_lanes_changes_no_bit() {
    let mut rng = Rng::new(11);
    let (mut bodies, mut ms, prev) = parity_scene(&mut rng);
    let p = params(bodies.len() as u32, ms.len() as u32);
    // Closing velocities above the cut-off, so restitution acts.
    for (i, b) in bodies.iter_mut().enumerate() {
        let s = if i % 2 == 0 { 1.0 } else { -1.0 };
        b.lin_vel = (rng.vec3(-2.0, 2.0) * s).extend(b.lin_vel.w);
    }
    solver::warm_start(&p, &mut ms, &prev);
    let c = colour(&bodies, &mut ms);
    assert!(
        c.uncoloured > 0,
        "the scene should fill the sequential colour"
    );
    let mut rows = vec![Vec4::ZERO; ms.len() * solver_rows_per_manifold() as usize];
    solve_prepare(&p, &bodies, &ms, &mut rows);
    let stages = [
        Stage::Warm,
        Stage::Contact,
        Stage::Contact,
        Stage::Contact,
        Stage::Relax,
        Stage::Relax,
        Stage::Restitution,
    ];
    let run = |mut set: VelocitySet| {
        let (mut b, mut m) = (bodies.clone(), ms.clone());
        for stage in stages {
            for k in 0..c.colour_count {
                match stage {
                    Stage::Warm => set.solve_warm_apply(&p, k),
                    Stage::Contact => set.solve_contact(&p, k),
                    Stage::Relax => set.solve_relax(&p, k),
                    Stage::Restitution => set.solve_restitution(&p, k),
                }
            }
        }
        set.store_velocities(&mut b);
        set.store_impulses(&mut m);
        (b, m)
    };
    let set = VelocitySet::new(&p, &c, &bodies, &ms, &rows);
    assert!(
        set.group_count() * 2 < c.order.len(),
        "the packing should fill lanes: {} groups for {} contacts",
        set.group_count(),
        c.order.len()
    );
    let packed = run(set);
    let single = run(VelocitySet::one_lane(&p, &c, &bodies, &ms, &rows));
    let scalar = {
        let (mut b, mut m) = (bodies.clone(), ms.clone());
        for stage in stages {
            reference_sweep(&p, &c, stage, &mut b, &mut m, &rows);
        }
        (b, m)
    };
    for (name, other) in [
        ("one contact per group", &single),
        ("the scalar reference", &scalar),
    ] {
        for (i, (x, y)) in packed.0.iter().zip(&other.0).enumerate() {
            assert!(
                bytemuck::bytes_of(x) == bytemuck::bytes_of(y),
                "body {i}: packed {x:?}, {name} {y:?}"
            );
        }
        for (k, (x, y)) in packed.1.iter().zip(&other.1).enumerate() {
            assert!(
                bytemuck::bytes_of(x) == bytemuck::bytes_of(y),
                "manifold {k}: packed {:?}, {name} {:?}",
                x.impulses,
                y.impulses
            );
        }
    }
    // And the solve did something: velocities moved, points pushed, and something bounced.
    assert!(packed
        .0
        .iter()
        .zip(&bodies)
        .any(|(a, b)| a.lin_vel != b.lin_vel));
    assert!(packed.1.iter().any(|m| m.impulses[0].x > 0.0));
    assert!(
        ms.iter().any(|m| m.material.x > 0.0 && m.colour != NONE),
        "the scene should hold bouncy contacts"
    );
}
