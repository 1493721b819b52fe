//! Input checks for the f64 helpers of this module: the crate's checks ([`crate::error`]),
//! which take `f64` as well as `f32` (narrowing the helpers' inputs to `f32` just to check them
//! would misreport large finite values as infinite), and the direction check.

use crate::error::{Error, Result};
use glam::DVec3;

pub(crate) use crate::error::{
    finite as finite_f64, finite3 as finite_dvec3, non_negative as non_negative_f64,
    positive as positive_f64,
};

/// Checks that a vector is finite and not zero, for directions and normals.
pub(crate) fn direction_dvec3(what: &'static str, v: DVec3) -> Result<()> {
    finite_dvec3(what, v)?;
    if v.length_squared() > 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidInput {
            what,
            value: format!("{v:?}"),
            fix: "pass a non-zero vector: a direction needs a length",
        })
    }
}
