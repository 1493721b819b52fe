//! The unit meshes the rigid renderer instances per shape slot: a cube and a "round" mesh
//! (two hemispheres joined by a band), in one vertex list and one index list.

use glam::Vec3;

/// One vertex of the unit meshes. 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub(super) struct MeshVertex {
    pos: [f32; 3],
    /// 0: cube, 1: round (sphere and capsule).
    part: u32,
    normal: [f32; 3],
    /// Capsule side: +1 top hemisphere, -1 bottom (the segment's half length is added along y).
    cap: f32,
}

/// Segments around the round mesh's axis.
const ROUND_SEGMENTS: u32 = 32;
/// Rings from pole to equator per hemisphere.
const ROUND_RINGS: u32 = 8;

/// The cube (±1) and the round mesh (unit hemispheres, equators duplicated and joined by a
/// band), in one vertex list and one index list, every triangle counter-clockwise from outside.
pub(super) fn unit_meshes() -> (Vec<MeshVertex>, Vec<u32>) {
    let mut v = Vec::new();
    let mut idx = Vec::new();
    // Cube: four vertices per face, flat normals.
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut n = [0.0; 3];
            n[axis] = sign;
            let (u, w) = ((axis + 1) % 3, (axis + 2) % 3);
            let base = v.len() as u32;
            for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let mut p = n;
                p[u] = a;
                p[w] = b;
                v.push(MeshVertex {
                    pos: p,
                    part: 0,
                    normal: n,
                    cap: 0.0,
                });
            }
            idx.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
    // Round: hemisphere `h` (0 top, 1 bottom), ring i from the pole, segment j.
    let base = v.len() as u32;
    let at = |h: u32, i: u32, j: u32| base + (h * (ROUND_RINGS + 1) + i) * ROUND_SEGMENTS + j;
    for cap in [1.0f32, -1.0] {
        for i in 0..=ROUND_RINGS {
            let phi = i as f32 / ROUND_RINGS as f32 * std::f32::consts::FRAC_PI_2;
            let (r, y) = (phi.sin(), cap * phi.cos());
            for j in 0..ROUND_SEGMENTS {
                let theta = j as f32 / ROUND_SEGMENTS as f32 * std::f32::consts::TAU;
                let p = [r * theta.cos(), y, r * theta.sin()];
                v.push(MeshVertex {
                    pos: p,
                    part: 1,
                    normal: p,
                    cap,
                });
            }
        }
    }
    let mut quad = |a: u32, b: u32, c: u32, d: u32| idx.extend([a, b, c, a, c, d]);
    for j in 0..ROUND_SEGMENTS {
        let k = (j + 1) % ROUND_SEGMENTS;
        for h in 0..2 {
            for i in 0..ROUND_RINGS {
                quad(at(h, i, j), at(h, i, k), at(h, i + 1, k), at(h, i + 1, j));
            }
        }
        quad(
            at(0, ROUND_RINGS, j),
            at(0, ROUND_RINGS, k),
            at(1, ROUND_RINGS, k),
            at(1, ROUND_RINGS, j),
        );
    }
    // Orient every triangle outwards, judged on a capsule of half length 1 (where the band has
    // area; the meshes are convex).
    let shaped = |m: &MeshVertex| Vec3::from(m.pos) + Vec3::new(0.0, m.cap, 0.0);
    for t in idx.chunks_exact_mut(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| shaped(&v[i as usize]));
        if (b - a).cross(c - a).dot(a + b + c) < 0.0 {
            t.swap(1, 2);
        }
    }
    (v, idx)
}
