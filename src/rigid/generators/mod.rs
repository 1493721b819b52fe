//! Stage `generators`: rigid force generators (catalogue §7–§8: springs, the aerodynamic
//! tensor and its control and angled surfaces, buoyancy, thrust), evaluated every substep before
//! `integrate_velocity` and applied to the velocities of awake dynamic bodies. WGSL twin:
//! `shaders/rigid/generators.wgsl`, the same operations in the same order; tests:
//! `tests/rigid_generators.rs` (closed forms, bad input) and `tests/rigid_generators_parity.rs`.
//!
//! The stage is a gather, one invocation per body and no atomics: the host lists each body's
//! generators in a compressed index ([`build_index`]; a two-body spring is in both bodies'
//! lists and each body sums its own side), rebuilt only when the set of generators or the body
//! count changes. A generator's parameters (a control, the wind, an anchor, the water height)
//! change by an upload of its record alone. A body sums its generators' forces and torques in
//! list order (slot order) and adds f·m⁻¹·h to its velocity and I⁻¹·τ·h to its spin, h the
//! substep: a spring is evaluated at every substep's positions, so it oscillates with the
//! substep's accuracy, not the step's. The body's own force accumulators (`add_force`) are
//! not touched: the generators' forces act inside the stage.
//!
//! A body's generators read the other body of a spring only through its position and
//! orientation, which this stage does not write (it writes velocities), so the invocations do
//! not race. Removing a body removes the generators that act on it.

mod kinds;

pub use kinds::ForceGen;
pub(crate) use kinds::{check_control, check_orientation};

use crate::rigid::math::{mat3_cols, quat_mul, quat_rotate, quat_rotate_inv};
use crate::rigid::types::{
    body_kind, force_gen_kind as kind, GpuBody, GpuForceGen, GpuRigidParams,
};
use crate::rounding;
use glam::{Mat3, Vec3, Vec4Swizzles};

/// A force generator in a [`crate::rigid::RigidWorld`]: its slot and the generation of that
/// slot, so a handle of a removed generator (or of one removed with its body) is refused.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ForceGenHandle {
    pub(crate) index: u32,
    pub(crate) generation: u32,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) world: u32,
}

impl ForceGenHandle {
    /// The generator's slot in the `generators` buffer.
    pub fn index(&self) -> u32 {
        self.index
    }
}

/// The compressed index of which generators act on which body, for `bodies` body slots:
/// word 0 holds `bodies`; words 1..=bodies + 1 each body's first position in the array and
/// the end of the last; then the generator slots, body by body, each body's in slot order.
/// A two-body spring is listed under both bodies. Removed slots (kind 0) are left out.
pub fn build_index(gens: &[GpuForceGen], bodies: u32) -> Vec<u32> {
    let n = bodies as usize;
    let mut count = vec![0u32; n];
    let each = |g: &GpuForceGen, f: &mut dyn FnMut(usize)| {
        if g.kind == 0 {
            return;
        }
        for b in [g.body_a, g.body_b] {
            if (b as usize) < n {
                f(b as usize);
            }
        }
    };
    for g in gens {
        each(g, &mut |b| count[b] += 1);
    }
    let head = n + 2;
    let total: u32 = count.iter().sum();
    let mut out = vec![0u32; head + total as usize];
    out[0] = bodies;
    let mut at = head as u32;
    for (b, c) in count.iter().enumerate() {
        out[1 + b] = at;
        at += c;
    }
    out[1 + n] = at;
    let mut fill: Vec<u32> = out[1..1 + n].to_vec();
    for (slot, g) in gens.iter().enumerate() {
        each(g, &mut |b| {
            out[fill[b] as usize] = slot as u32;
            fill[b] += 1;
        });
    }
    out
}

/// The tensor of an aerodynamic record: the base, or for a control surface the base
/// interpolated towards the minimum by −c (c < 0) or towards the maximum by c (c > 0).
pub fn aero_tensor(g: &GpuForceGen) -> Mat3 {
    let col = |k: usize| g.tensor[k].xyz();
    let base = Mat3::from_cols(col(0), col(1), col(2));
    let c = g.wind.w;
    if g.kind != kind::AERO_CONTROL || c == 0.0 {
        return base;
    }
    let (to, s) = if c < 0.0 { (3, -c) } else { (6, c) };
    let lerp = |k: usize| rounding::madd3(col(to + k) - col(k), s, col(k));
    Mat3::from_cols(lerp(0), lerp(1), lerp(2))
}

/// The world position of body point `p` (body frame) of `b`.
fn world_point(b: &GpuBody, p: Vec3) -> Vec3 {
    b.pos.xyz() + quat_rotate(b.orient, p)
}

/// The force (world) and torque (about the centre of mass) generator `g` puts on body `i`
/// (`bodies[i]`), reading only the positions and orientations of other bodies.
pub fn generator_force(g: &GpuForceGen, i: u32, bodies: &[GpuBody]) -> (Vec3, Vec3) {
    let none = (Vec3::ZERO, Vec3::ZERO);
    let Some(b) = bodies.get(i as usize) else {
        return none;
    };
    match g.kind {
        kind::SPRING | kind::ANCHORED_SPRING => {
            let (own, other) = if g.kind == kind::ANCHORED_SPRING {
                (g.point_a.xyz(), g.point_b.xyz())
            } else {
                let (own, other, j) = if i == g.body_a {
                    (g.point_a, g.point_b, g.body_b)
                } else {
                    (g.point_b, g.point_a, g.body_a)
                };
                let Some(o) = bodies.get(j as usize) else {
                    return none;
                };
                (own.xyz(), world_point(o, other.xyz()))
            };
            let r = quat_rotate(b.orient, own);
            let d = (b.pos.xyz() + r) - other;
            let l = rounding::length(d);
            if l <= 0.0 {
                return none;
            }
            let m = rounding::div(-g.point_a.w * (l - g.point_b.w), l);
            let f = d * m;
            (f, rounding::cross(r, f))
        }
        kind::AERO | kind::AERO_CONTROL | kind::ANGLED_AERO => {
            let r = quat_rotate(b.orient, g.point_a.xyz());
            let v = (b.lin_vel.xyz() + rounding::cross(b.ang_vel.xyz(), r)) - g.wind.xyz();
            let frame = if g.kind == kind::ANGLED_AERO {
                quat_mul(b.orient, g.orient)
            } else {
                b.orient
            };
            let local = quat_rotate_inv(frame, v);
            let f = quat_rotate(frame, rounding::mat3_mul(aero_tensor(g), local));
            (f, rounding::cross(r, f))
        }
        kind::BUOYANCY => {
            let r = quat_rotate(b.orient, g.point_a.xyz());
            let y = b.pos.y + r.y;
            let s = g.point_a.w;
            let top = g.wind.x + s;
            if y >= top {
                return none;
            }
            let d = rounding::div(top - y, 2.0 * s).min(1.0);
            let f = Vec3::new(0.0, g.wind.y * g.point_b.w * g.wind.z * d, 0.0);
            (f, rounding::cross(r, f))
        }
        kind::THRUST => {
            let r = quat_rotate(b.orient, g.point_a.xyz());
            let f = quat_rotate(b.orient, g.point_b.xyz());
            (f, rounding::cross(r, f))
        }
        _ => none,
    }
}

/// Stage `generators`: every awake dynamic body sums the forces and torques of the generators
/// `index` lists for it ([`build_index`]), in order, and adds f·m⁻¹·h to its velocity and
/// I⁻¹_world·τ·h to its spin (h = `params.dt`, the substep). Bodies past the index's count
/// have none.
pub fn generators(
    params: &GpuRigidParams,
    gens: &[GpuForceGen],
    index: &[u32],
    bodies: &mut [GpuBody],
) {
    let Some(&listed) = index.first() else {
        return;
    };
    let dt = params.dt;
    // A malformed index (tests may hand-build one) acts on nothing rather than panicking.
    let n = params
        .body_count
        .min(listed)
        .min(bodies.len() as u32)
        .min((index.len() as u32).saturating_sub(2));
    for i in 0..n {
        let b = &bodies[i as usize];
        let (start, end) = (index[1 + i as usize], index[2 + i as usize]);
        if b.kind != body_kind::DYNAMIC || b.awake == 0 || start == end {
            continue;
        }
        let (mut f, mut t) = (Vec3::ZERO, Vec3::ZERO);
        let listed = index.get(start as usize..end as usize).unwrap_or(&[]);
        for &slot in listed {
            if let Some(g) = gens.get(slot as usize) {
                let (fk, tk) = generator_force(g, i, bodies);
                f += fk;
                t += tk;
            }
        }
        let b = &mut bodies[i as usize];
        let acc = f * b.pos.w;
        let ang = rounding::mat3_mul(mat3_cols(&b.inv_inertia_world), t);
        let v = rounding::madd3(acc, dt, b.lin_vel.xyz());
        let w = rounding::madd3(ang, dt, b.ang_vel.xyz());
        b.lin_vel = v.extend(b.lin_vel.w);
        b.ang_vel = w.extend(b.ang_vel.w);
    }
}
