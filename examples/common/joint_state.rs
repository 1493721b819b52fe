//! Reading joints back for a headless summary, for the examples that have joints (`ragdoll`,
//! `chain`): an example declares this module (`#[path = "common/joint_state.rs"] mod
//! joint_state;`) beside `common`.

use glam::{Vec3, Vec4, Vec4Swizzles};
use wgphys::rigid::types::{GpuBody, GpuJoint};
use wgphys::rigid::{JointHandle, JointState, RigidStepReport};

/// Body `b`'s pose (centre, orientation) in `bodies`; the world's for no body.
pub fn pose(bodies: &[GpuBody], b: u32) -> (Vec3, Vec4) {
    bodies
        .get(b as usize)
        .map_or((Vec3::ZERO, Vec4::W), |x| (x.pos.xyz(), x.orient))
}

/// The worst gap between anchors (m) and turn past the limits (rad) of `handles` among
/// `joints` (as `RigidWorld::read_joints` gives them), the bodies at `bodies`.
pub fn worst_error(
    bodies: &[GpuBody],
    joints: &[GpuJoint],
    handles: impl IntoIterator<Item = JointHandle>,
) -> (f32, f32) {
    handles
        .into_iter()
        .filter_map(|h| joints.get(h.index() as usize))
        .map(|jt| JointState::of(jt, pose(bodies, jt.body_a), pose(bodies, jt.body_b)))
        .fold((0.0f32, 0.0f32), |(lin, ang), s| {
            (lin.max(s.linear_error), ang.max(s.angular_error))
        })
}

/// What a headless run prints: the status the demo read at its last step, if any, over the
/// report's title line.
pub fn summary(status: Option<&str>, report: &RigidStepReport) -> String {
    let title = crate::rigid::report_title(report);
    match status {
        Some(status) => format!("{status}\n{title}"),
        None => title,
    }
}
