//! Four contacts' arithmetic at once, one per lane of a SIMD vector, for the CPU twin's
//! velocity stages ([`super::velocity`]), in either of the twin's roundings
//! ([`crate::rounding::CpuRounding`]).
//!
//! [`W3`] and [`WMat3`] are glam's `Vec3` and `Mat3` operations written per component in the
//! same order, so each lane rounds as the scalar code does. [`Ar`] is where the stages' WGSL
//! has a product feeding a sum, a division or a square root: under `Separate` it is the plain
//! expression (the same bits as before the mode existed), under `Fused` it rounds as the
//! scalar helpers of `crate::rounding` do (fused multiply-adds, a reciprocal then a product,
//! the square root through the inverse square root), lane by lane.

use glam::{BVec4A, Vec3, Vec4};

/// A 3-vector per lane. The operations are glam's `Vec3` ones written per component in the
/// same order, so each lane rounds as the scalar code does.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct W3 {
    pub(super) x: Vec4,
    pub(super) y: Vec4,
    pub(super) z: Vec4,
}

impl W3 {
    pub(super) fn add(self, o: W3) -> W3 {
        W3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
    pub(super) fn sub(self, o: W3) -> W3 {
        W3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
    pub(super) fn scale(self, s: Vec4) -> W3 {
        W3 {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }
    pub(super) fn dot(self, o: W3) -> Vec4 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    pub(super) fn cross(self, o: W3) -> W3 {
        W3 {
            x: self.y * o.z - o.y * self.z,
            y: self.z * o.x - o.z * self.x,
            z: self.x * o.y - o.x * self.y,
        }
    }
    pub(super) fn select(mask: BVec4A, a: W3, b: W3) -> W3 {
        W3 {
            x: Vec4::select(mask, a.x, b.x),
            y: Vec4::select(mask, a.y, b.y),
            z: Vec4::select(mask, a.z, b.z),
        }
    }
    pub(super) fn set(&mut self, lane: usize, v: Vec3) {
        self.x[lane] = v.x;
        self.y[lane] = v.y;
        self.z[lane] = v.z;
    }
    pub(super) fn get(&self, lane: usize) -> Vec3 {
        Vec3::new(self.x[lane], self.y[lane], self.z[lane])
    }
}

/// A 3×3 matrix per lane, by columns; `mul` is glam's `Mat3 * Vec3` order.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct WMat3 {
    pub(super) c: [W3; 3],
}

impl WMat3 {
    pub(super) fn mul(&self, v: W3) -> W3 {
        self.c[0]
            .scale(v.x)
            .add(self.c[1].scale(v.y))
            .add(self.c[2].scale(v.z))
    }
}

/// The rounding of a stage's lane arithmetic: [`Separate`] or [`Fused`], chosen once per
/// stage from the thread's [`crate::rounding`] mode, so that each stage is compiled for each
/// rounding and its inner loops test nothing.
pub(super) trait Ar: Copy {
    /// Whether the arithmetic rounds as `CpuRounding::Fused`.
    const FUSED: bool;

    /// `a * b + c`.
    fn madd(self, a: Vec4, b: Vec4, c: Vec4) -> Vec4 {
        if Self::FUSED {
            a.mul_add(b, c)
        } else {
            a * b + c
        }
    }

    /// `a * s + c` per component.
    fn madd3(self, a: W3, s: Vec4, c: W3) -> W3 {
        W3 {
            x: self.madd(a.x, s, c.x),
            y: self.madd(a.y, s, c.y),
            z: self.madd(a.z, s, c.z),
        }
    }

    /// The dot product, as `crate::rounding::dot`.
    fn dot(self, u: W3, v: W3) -> Vec4 {
        if Self::FUSED {
            u.z.mul_add(v.z, u.y.mul_add(v.y, u.x * v.x))
        } else {
            u.dot(v)
        }
    }

    /// The cross product, as `crate::rounding::cross`.
    fn cross(self, u: W3, v: W3) -> W3 {
        if Self::FUSED {
            W3 {
                x: u.y.mul_add(v.z, -(v.y * u.z)),
                y: u.z.mul_add(v.x, -(v.z * u.x)),
                z: u.x.mul_add(v.y, -(v.x * u.y)),
            }
        } else {
            u.cross(v)
        }
    }

    /// `m * v`: the columns scaled by v's components and summed, the sum as a chain of fused
    /// multiply-adds under `Fused`.
    fn mat(self, m: &WMat3, v: W3) -> W3 {
        if Self::FUSED {
            let [c0, c1, c2] = m.c;
            W3 {
                x: c2.x.mul_add(v.z, c1.x.mul_add(v.y, c0.x * v.x)),
                y: c2.y.mul_add(v.z, c1.y.mul_add(v.y, c0.y * v.x)),
                z: c2.z.mul_add(v.z, c1.z.mul_add(v.y, c0.z * v.x)),
            }
        } else {
            m.mul(v)
        }
    }

    /// `a / b`, or `a * (1 / b)`.
    fn div(self, a: Vec4, b: Vec4) -> Vec4 {
        if Self::FUSED {
            a * b.recip()
        } else {
            a / b
        }
    }

    /// `sqrt(x)`, or `x * (1 / sqrt(x))` where x > 0 (as `crate::rounding::sqrt`).
    fn sqrt(self, x: Vec4) -> Vec4 {
        if Self::FUSED {
            Vec4::select(x.cmpgt(Vec4::ZERO), x * x.sqrt().recip(), x.sqrt())
        } else {
            x.sqrt()
        }
    }
}

/// Every operation rounded as written (`CpuRounding::Separate`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Separate;

impl Ar for Separate {
    const FUSED: bool = false;
}

/// Rounded as a GPU compiler may (`CpuRounding::Fused`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Fused;

impl Ar for Fused {
    const FUSED: bool = true;
}
