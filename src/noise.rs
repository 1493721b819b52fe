//! Curl noise, the CPU twin of `shaders/common/noise.wgsl` (the turbulence field): three
//! value-noise potentials on the integer lattice with quintic fades and analytic gradients,
//! and their curl, which is divergence free. The same operations in the same order as the WGSL.

use crate::rng::hash_u32;
use glam::{IVec3, Vec3, Vec4};

/// The lattice value of channel `ch` at integer point `c`, uniform in [-1, 1).
pub fn noise_lattice(c: IVec3, ch: u32) -> f32 {
    let h = hash_u32(
        ((c.x as u32).wrapping_mul(0x8da6_b343))
            ^ ((c.y as u32).wrapping_mul(0xd816_3841))
            ^ ((c.z as u32).wrapping_mul(0xcb1a_b31f))
            ^ ch.wrapping_mul(0x1656_67b1),
    );
    (h >> 8) as f32 * (2.0 / 16_777_216.0) - 1.0
}

/// Value noise of channel `ch` at `x`: (value, d/dx, d/dy, d/dz).
pub fn noise_value_grad(x: Vec3, ch: u32) -> Vec4 {
    let fl = x.floor();
    let i = fl.as_ivec3();
    let f = x - fl;
    let u = f * f * f * (f * (f * 6.0 - Vec3::splat(15.0)) + Vec3::splat(10.0));
    let du = 30.0 * f * f * (f * (f - Vec3::splat(2.0)) + Vec3::ONE);
    let c = |dx: i32, dy: i32, dz: i32| noise_lattice(i + IVec3::new(dx, dy, dz), ch);
    let (c000, c100, c010, c110) = (c(0, 0, 0), c(1, 0, 0), c(0, 1, 0), c(1, 1, 0));
    let (c001, c101, c011, c111) = (c(0, 0, 1), c(1, 0, 1), c(0, 1, 1), c(1, 1, 1));
    let k1 = c100 - c000;
    let k2 = c010 - c000;
    let k3 = c001 - c000;
    let k4 = c000 - c100 - c010 + c110;
    let k5 = c000 - c010 - c001 + c011;
    let k6 = c000 - c100 - c001 + c101;
    let k7 = -c000 + c100 + c010 - c110 + c001 - c101 - c011 + c111;
    let value = c000
        + k1 * u.x
        + k2 * u.y
        + k3 * u.z
        + k4 * u.x * u.y
        + k5 * u.y * u.z
        + k6 * u.z * u.x
        + k7 * u.x * u.y * u.z;
    let gx = du.x * (k1 + k4 * u.y + k6 * u.z + k7 * u.y * u.z);
    let gy = du.y * (k2 + k5 * u.z + k4 * u.x + k7 * u.z * u.x);
    let gz = du.z * (k3 + k6 * u.x + k5 * u.y + k7 * u.x * u.y);
    Vec4::new(value, gx, gy, gz)
}

/// The curl of the potential (noise 0, noise 1, noise 2) at `x`, in noise units.
pub fn curl_noise(x: Vec3) -> Vec3 {
    let grad = |ch: u32| {
        let g = noise_value_grad(x, ch);
        Vec3::new(g.y, g.z, g.w)
    };
    let (g1, g2, g3) = (grad(0), grad(1), grad(2));
    Vec3::new(g3.y - g2.z, g1.z - g3.x, g2.x - g1.y)
}
