//! How the CPU twin rounds: as written ([`CpuRounding::Separate`], the default), or the way a
//! GPU compiler may legally evaluate the same WGSL ([`CpuRounding::Fused`]).
//!
//! WGSL lets an implementation contract `a * b + c` into one fused multiply-add, evaluate a
//! division as a multiply by a reciprocal (2.5 ulp) and a square root through the inverse square
//! root (WGSL § "Floating point accuracy"). Mesa's lavapipe and llvmpipe round every operation
//! like the CPU; NVIDIA contracts and approximates. A bound that holds for one rounding only is
//! a bound tuned to one adapter, so the tests run the CPU twin both ways against the same bounds
//! (the `*_fused_*` tests of `tests/particles_parity_end_to_end.rs`, `tests/aggregate_end_to_end.rs` and
//! others), and the error model in `tests/common/error_model.rs` is written
//! for both.
//!
//! The twin's stages call the helpers here wherever the WGSL has a multiply-add, a dot product,
//! a length, a division or a square root on a path that decides the physics (integration,
//! force fields, collider contacts, the aggregate world's contacts and links, the rigid
//! integrators and contact solver, the depth collider's contact). In `Separate` mode each helper is the plain expression, bit
//! for bit what the twin computed before the mode existed, so every golden hash stays. The mode
//! is the world's ([`crate::particles::WorldConfig::cpu_rounding`],
//! [`crate::aggregate::AggregateConfig::cpu_rounding`],
//! [`crate::rigid::RigidConfig::cpu_rounding`]); a world's CPU step sets it for its thread while
//! it runs (`scope`), and [`with_cpu_rounding`] around a direct call of a twin's stage
//! functions.

use glam::Vec3;
use std::cell::Cell;

/// How the CPU twin rounds its arithmetic.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CpuRounding {
    /// Every operation rounded as written, left to right (how Mesa's software adapters run the
    /// WGSL too). The default.
    #[default]
    Separate,
    /// One rounding a GPU compiler may choose: `a * b + c` as a fused multiply-add (dot products
    /// as a chain of them), `a / b` as `a * (1 / b)`, `sqrt(x)` as `x * (1 / sqrt(x))`. Not the
    /// worst case WGSL allows; a second, different rounding of the same stages, so that a bound
    /// fitted to one rounding fails.
    Fused,
}

thread_local! {
    static MODE: Cell<CpuRounding> = const { Cell::new(CpuRounding::Separate) };
}

/// Restores the thread's previous mode when dropped.
pub(crate) struct Scope(CpuRounding);

impl Drop for Scope {
    fn drop(&mut self) {
        MODE.with(|m| m.set(self.0));
    }
}

/// Runs `f` with this thread's CPU twin rounding as `mode` (restored after): for calling the
/// twin's stage functions directly (`wgphys::rigid::solver::solve`, for example), where no
/// world's configuration sets it.
pub fn with_cpu_rounding<R>(mode: CpuRounding, f: impl FnOnce() -> R) -> R {
    let _scope = scope(mode);
    f()
}

/// Sets this thread's rounding until the returned guard is dropped.
pub(crate) fn scope(mode: CpuRounding) -> Scope {
    Scope(MODE.with(|m| m.replace(mode)))
}

/// Whether this thread's CPU twin rounds as [`CpuRounding::Fused`].
#[inline]
pub(crate) fn fused() -> bool {
    MODE.with(|m| m.get()) == CpuRounding::Fused
}

/// `a * b + c`.
#[inline]
pub(crate) fn madd(a: f32, b: f32, c: f32) -> f32 {
    if fused() {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// `a * b + c` per lane, `b` a scalar.
#[inline]
pub(crate) fn madd3(a: Vec3, b: f32, c: Vec3) -> Vec3 {
    if fused() {
        Vec3::new(
            a.x.mul_add(b, c.x),
            a.y.mul_add(b, c.y),
            a.z.mul_add(b, c.z),
        )
    } else {
        a * b + c
    }
}

/// The dot product: `x·x' + y·y' + z·z'` left to right, or as a chain of fused multiply-adds.
#[inline]
pub(crate) fn dot(a: Vec3, b: Vec3) -> f32 {
    if fused() {
        a.z.mul_add(b.z, a.y.mul_add(b.y, a.x * b.x))
    } else {
        a.dot(b)
    }
}

/// The cross product; each lane `a·b − c·d`, or `fma(a, b, −c·d)`.
#[inline]
pub(crate) fn cross(a: Vec3, b: Vec3) -> Vec3 {
    if fused() {
        Vec3::new(
            a.y.mul_add(b.z, -(b.y * a.z)),
            a.z.mul_add(b.x, -(b.z * a.x)),
            a.x.mul_add(b.y, -(b.x * a.y)),
        )
    } else {
        a.cross(b)
    }
}

/// `sqrt(x)`, or `x * (1 / sqrt(x))` (0 for x = 0).
#[inline]
pub(crate) fn sqrt(x: f32) -> f32 {
    if fused() && x > 0.0 {
        x * (1.0 / x.sqrt())
    } else {
        x.sqrt()
    }
}

/// The length `sqrt(dot(v, v))`.
#[inline]
pub(crate) fn length(v: Vec3) -> f32 {
    sqrt(dot(v, v))
}

/// `m * v`: the columns scaled by v's components and summed (glam's order), the sum as a chain
/// of fused multiply-adds.
#[inline]
pub(crate) fn mat3_mul(m: glam::Mat3, v: Vec3) -> Vec3 {
    if fused() {
        madd3(m.z_axis, v.z, madd3(m.y_axis, v.y, m.x_axis * v.x))
    } else {
        m * v
    }
}

/// `m * v` for a 4×4 matrix: the columns scaled by v's components and summed (glam's order),
/// the sum as a chain of fused multiply-adds.
#[inline]
pub(crate) fn mat4_mul(m: glam::Mat4, v: glam::Vec4) -> glam::Vec4 {
    if fused() {
        let madd4 = |a: glam::Vec4, b: f32, c: glam::Vec4| {
            glam::Vec4::new(
                a.x.mul_add(b, c.x),
                a.y.mul_add(b, c.y),
                a.z.mul_add(b, c.z),
                a.w.mul_add(b, c.w),
            )
        };
        madd4(
            m.w_axis,
            v.w,
            madd4(m.z_axis, v.z, madd4(m.y_axis, v.y, m.x_axis * v.x)),
        )
    } else {
        m * v
    }
}

/// `a / b`, or `a * (1 / b)`.
#[inline]
pub(crate) fn div(a: f32, b: f32) -> f32 {
    if fused() {
        a * (1.0 / b)
    } else {
        a / b
    }
}

/// `v / s` per lane, or `v * (1 / s)`.
#[inline]
pub(crate) fn div3(v: Vec3, s: f32) -> Vec3 {
    if fused() {
        v * (1.0 / s)
    } else {
        v / s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two modes differ where a product's low bits matter, and the scope restores the mode.
    #[test]
    fn fused_rounds_once_and_the_scope_restores() {
        // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24: the product's 2^-24 is lost when it rounds first.
        let a = 1.0 + f32::EPSILON * 2048.0;
        let exact = 2.0f32.powi(-11) + 2.0f32.powi(-24);
        assert_eq!(madd(a, a, -1.0), 2.0f32.powi(-11));
        {
            let _s = scope(CpuRounding::Fused);
            assert_eq!(madd(a, a, -1.0), exact);
            {
                let _inner = scope(CpuRounding::Separate);
                assert_eq!(madd(a, a, -1.0), 2.0f32.powi(-11));
            }
            assert_eq!(madd(a, a, -1.0), exact);
        }
        assert_eq!(madd(a, a, -1.0), 2.0f32.powi(-11));
    }
}
