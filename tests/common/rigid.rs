//! Helpers of the rigid-body test binaries (`rigid_world`, `rigid_integrate`, `rigid_step`,
//! `rigid_bad_input`): a configuration, stepping, reading poses, angular momentum and a hash of
//! every body.
//!
//! The submodules hold the helpers each split test file shares with its sibling: `solver`
//! (`rigid_solver*`), `narrow` (`rigid_narrow*`), `queries` (`rigid_queries*`) and `broad`
//! (`rigid_broad*`). Their names overlap (`params`, `shape`, `body`), so each stays in its own
//! module.

pub mod broad;
pub mod draws;
pub mod narrow;
pub mod queries;
pub mod solver;
pub mod stages;

use super::Fnv;
use glam::{Mat3, Quat, Vec3, Vec4Swizzles};
use wgphys::rigid::types::GpuBody;
use wgphys::rigid::{BodyHandle, RigidConfig, RigidStepReport, RigidWorld};

pub const DT: f32 = 1.0 / 60.0;

/// Both backends, the GPU on the process's shared context (CPU first).
pub fn backends() -> [(&'static str, wgphys::Backend); 2] {
    [
        ("cpu", wgphys::Backend::Cpu),
        ("gpu", wgphys::Backend::Gpu(super::shared_gpu())),
    ]
}

/// An undamped dynamic body of `mass` at `at` that never sleeps (for closed forms).
pub fn free_body(at: Vec3, mass: f32) -> wgphys::rigid::RigidBody {
    wgphys::rigid::RigidBody::dynamic()
        .position(at)
        .mass(mass)
        .damping(1.0, 1.0)
        .can_sleep(false)
}
pub const G: f32 = 9.81;

pub fn config(bodies: u32) -> RigidConfig {
    RigidConfig {
        body_capacity: bodies.max(8),
        ..RigidConfig::default()
    }
}

pub fn run(w: &mut RigidWorld, steps: usize, dt: f32) -> RigidStepReport {
    let mut r = RigidStepReport::default();
    for _ in 0..steps {
        r = w.step(dt).expect("step");
    }
    r
}

pub fn pos(b: &GpuBody) -> Vec3 {
    b.pos.xyz()
}

pub fn quat(b: &GpuBody) -> Quat {
    Quat::from_xyzw(b.orient.x, b.orient.y, b.orient.z, b.orient.w)
}

/// World-space angular momentum of a body about its centre of mass, I_world·ω, with
/// I_world = R·I_body·Rᵀ (the body-space inverse inertia inverted in f64 to keep the measure
/// itself out of the error budget).
pub fn spin_momentum(b: &GpuBody) -> glam::DVec3 {
    let inv = Mat3::from_cols(
        b.inv_inertia[0].xyz(),
        b.inv_inertia[1].xyz(),
        b.inv_inertia[2].xyz(),
    )
    .as_dmat3();
    let r = glam::DMat3::from_quat(quat(b).as_dquat().normalize());
    (r * inv.inverse() * r.transpose()) * b.ang_vel.xyz().as_dvec3()
}

/// FNV-1a of every field of every body slot (all bits, in slot order, after the count).
pub fn hash_bodies(bodies: &[GpuBody]) -> u64 {
    let mut h = Fnv::new();
    h.u32(bodies.len() as u32);
    for b in bodies {
        for v in [
            b.pos,
            b.orient,
            b.lin_vel,
            b.ang_vel,
            b.inv_inertia[0],
            b.inv_inertia[1],
            b.inv_inertia[2],
            b.inv_inertia_world[0],
            b.inv_inertia_world[1],
            b.inv_inertia_world[2],
            b.force,
            b.torque,
            b.acc,
            b.last_acc,
        ] {
            h.v4(v);
        }
        for x in [b.kind, b.awake, b.can_sleep, b.flags] {
            h.u32(x);
        }
    }
    h.finish()
}

/// Positions of the given bodies.
pub fn positions(w: &mut RigidWorld, handles: &[BodyHandle]) -> Vec<Vec3> {
    let b = w.read_bodies().expect("bodies");
    handles
        .iter()
        .map(|h| pos(&b[h.index() as usize]))
        .collect()
}

/// (largest |Δp|, its index) between two position lists.
pub fn max_move(a: &[Vec3], b: &[Vec3]) -> (f32, usize) {
    a.iter()
        .zip(b)
        .map(|(p, q)| (*p - *q).length())
        .enumerate()
        .fold((0.0, 0), |m, (i, d)| if d > m.0 { (d, i) } else { m })
}

/// The body-space inertia tensor of `b` (the inverse of its stored inverse).
pub fn inertia_of(b: &GpuBody) -> Mat3 {
    Mat3::from_cols(
        b.inv_inertia[0].xyz(),
        b.inv_inertia[1].xyz(),
        b.inv_inertia[2].xyz(),
    )
    .inverse()
}

/// A tensor against a closed form, entry by entry relative to its largest moment: the
/// tensor is inverted twice in f64 and once rounded to f32 each way (the engine's stored
/// inverse, this test's inverse of it), with the parallel-axis sums in f32: some 20 roundings
/// of 6e-8, so 2e-6 of the largest moment.
pub fn close_tensor(got: Mat3, want: Mat3, what: &str) {
    let scale = want
        .to_cols_array()
        .iter()
        .fold(0.0f32, |a, v| a.max(v.abs()));
    let err = (got - want)
        .to_cols_array()
        .iter()
        .fold(0.0f32, |a, v| a.max(v.abs()));
    assert!(
        err <= 2e-6 * scale,
        "{what}: {got:?} against the closed form {want:?}"
    );
}

/// A closed box of triangles from `lo` to `hi`, each triangle wound counter-clockwise seen from
/// outside (its normal pointing away from the box's centre).
pub fn slab(lo: Vec3, hi: Vec3) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let v: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            )
        })
        .collect();
    let quads = [
        [0, 2, 6, 4],
        [1, 3, 7, 5],
        [0, 1, 5, 4],
        [2, 3, 7, 6],
        [0, 1, 3, 2],
        [4, 5, 7, 6],
    ];
    let centre = (lo + hi) * 0.5;
    let mut t = Vec::new();
    for q in quads {
        for tri in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
            let [a, b, c] = tri.map(|i| v[i as usize]);
            let outward = (a + b + c) / 3.0 - centre;
            if (b - a).cross(c - a).dot(outward) < 0.0 {
                t.push([tri[0], tri[2], tri[1]]);
            } else {
                t.push(tri);
            }
        }
    }
    (v, t)
}
