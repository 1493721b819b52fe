//! The perturbed-draw error model shared by the narrow stage's GPU-against-twin tests
//! (`rigid_hull_gpu`, `rigid_mesh_gpu`): the twin is run on inputs each moved by uniform draws
//! within the longest chain of roundings from the poses to a contact (`k` units u of the scene's
//! `extent`), and a GPU result may differ from the twin's by the draws' RMS spread times the
//! tail factor. Also the narrow-stage backend both tests run the kernels on.

use crate::common::error_model::{tail_factor, UNIT_ROUNDOFF as U};
use crate::common::{gpu, Rng};
use glam::{UVec4, Vec4};
use wgphys::grid::GridSpec;
use wgphys::rigid::gpu::{GpuRigid, GpuRigidSizes};
use wgphys::rigid::types::*;

/// The rounding chain of a scene: `k` units u of its `extent` (m).
#[derive(Clone, Copy)]
pub struct Chain {
    /// Roundings from the poses to a contact, in units of u.
    pub k: f64,
    /// The scene's extent, m.
    pub extent: f64,
}

/// A random unit quaternion (x, y, z, w).
pub fn random_quat(rng: &mut Rng) -> Vec4 {
    let q = Vec4::new(
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
    );
    q.normalize_or(Vec4::W)
}

/// `v` with its first `lanes` lanes moved by uniform draws of ±k·u·`scale`.
pub fn jitter(rng: &mut Rng, chain: Chain, v: Vec4, scale: f32, lanes: usize) -> Vec4 {
    let k = (chain.k * U) as f32;
    let mut out = v;
    for i in 0..lanes {
        out[i] += scale * k * (2.0 * rng.unit() - 1.0);
    }
    out
}

/// Bodies and shapes with every input moved within the chain: positions by the extent,
/// rotations and a plane's normal by unit scale, a plane's offset by the extent, and the sizes
/// of spheres, boxes and capsules relatively (a hull's and level geometry's stored words stay).
pub fn perturbed(
    rng: &mut Rng,
    chain: Chain,
    bodies: &[GpuBody],
    shapes: &[GpuShape],
) -> (Vec<GpuBody>, Vec<GpuShape>) {
    let e = chain.extent as f32;
    let b = bodies
        .iter()
        .map(|b| GpuBody {
            pos: jitter(rng, chain, b.pos, e, 3),
            orient: jitter(rng, chain, b.orient, 1.0, 4).normalize(),
            ..*b
        })
        .collect();
    let s = shapes
        .iter()
        .map(|s| {
            use shape_kind::*;
            let mut dims = s.dims;
            if s.kind == HALF_SPACE || s.kind == PLANE {
                let n = jitter(rng, chain, dims.truncate().extend(0.0), 1.0, 3)
                    .truncate()
                    .normalize();
                dims = n.extend(jitter(rng, chain, dims, e, 4).w);
            } else if !matches!(s.kind, HULL | MESH | HEIGHTFIELD) {
                for i in 0..3 {
                    dims[i] *= 1.0 + (chain.k * U) as f32 * (2.0 * rng.unit() - 1.0);
                }
            }
            GpuShape {
                offset_pos: jitter(rng, chain, s.offset_pos, e, 3),
                offset_rot: jitter(rng, chain, s.offset_rot, 1.0, 4).normalize(),
                dims,
                ..*s
            }
        })
        .collect();
    (b, s)
}

/// RMS over the draws times the tail factor, per item and field.
pub fn bounds(draws: &[Vec<Vec<f32>>], items: usize, fields: usize) -> Vec<Vec<f32>> {
    let tail = tail_factor(items as f64, 1e-3);
    (0..items)
        .map(|k| {
            (0..fields)
                .map(|f| {
                    let sq: f64 = draws.iter().map(|d| f64::from(d[k][f]).powi(2)).sum();
                    (tail * (sq / draws.len() as f64).sqrt()) as f32
                })
                .collect()
        })
        .collect()
}

/// A GPU backend for `n` bodies and shapes and `cap` pairs, holding the hull store's `hulls`.
pub fn narrow_backend(n: u32, cap: u32, hulls: &[UVec4]) -> GpuRigid {
    let mut g = GpuRigid::new(
        &gpu(),
        GpuRigidSizes {
            bodies: n,
            shapes: n,
            pairs: cap,
            solver_words: u64::from(cap) * u64::from(wgphys::rigid::solver::solver_record_rows()),
            pair_scratch_words: 64,
            grid: GridSpec::new(1.0, 64).expect("grid"),
            block_bins: 0,
            joints: 0,
            joint_filter: 0,
            generators: 0,
        },
    )
    .expect("gpu backend");
    g.write_hulls(hulls, 0).expect("hulls");
    g
}
