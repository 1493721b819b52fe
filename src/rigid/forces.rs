//! The book's three-phase explosion (catalogue §14.3) as a force generator on every body: an
//! implosion pulling inwards, an expanding concussion shell, and a convection chimney. The
//! piecewise forms are the errata's corrected ones (see `shaders/rigid/forces.wgsl`). Stage
//! `rigid_forces`, CPU twin of the WGSL with the same operation order.

use super::math::quat_rotate;
use super::types::*;
use crate::error::{finite3, non_negative, Result};
use crate::rng::hash_u32;
use glam::{Vec3, Vec4, Vec4Swizzles};

/// A three-phase explosion. Forces are in newtons; times in seconds from detonation.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Explosion {
    /// Where it goes off.
    pub detonation: Vec3,
    /// Bodies nearer than this are not pulled in (so nothing is drawn through the centre).
    pub implosion_min_radius: f32,
    /// Bodies farther than this are not pulled in.
    pub implosion_max_radius: f32,
    /// How long the implosion pulls.
    pub implosion_duration: f32,
    /// The (small) inward force.
    pub implosion_force: f32,
    /// Speed of the shock front, m/s.
    pub shockwave_speed: f32,
    /// Shell thickness w; at least the distance the front travels in one step, or bodies are
    /// skipped over.
    pub shockwave_thickness: f32,
    /// Force on a body at rest inside the shell.
    pub peak_concussion_force: f32,
    /// How long the shock wave lasts; its force fades over the last quarter.
    pub concussion_duration: f32,
    /// The tail-off width factor k: the force ramps over k·w on each side of the shell.
    pub tail_factor: f32,
    /// Force on the chimney's axis.
    pub peak_convection_force: f32,
    /// Chimney radius.
    pub chimney_radius: f32,
    /// Chimney height above the detonation.
    pub chimney_height: f32,
    /// How long convection lasts (the longest phase).
    pub convection_duration: f32,
    /// Distance from the centre of mass of the point the force acts on.
    pub lever_arm: f32,
}

impl Explosion {
    /// An explosion at `at` scaled for bodies of about 1 kg to 100 kg and a scene of some 10 m.
    #[must_use]
    pub fn at(at: Vec3) -> Self {
        Self {
            detonation: at,
            implosion_min_radius: 1.0,
            implosion_max_radius: 8.0,
            implosion_duration: 0.5,
            implosion_force: 50.0,
            shockwave_speed: 20.0,
            shockwave_thickness: 1.0,
            peak_concussion_force: 4000.0,
            concussion_duration: 1.2,
            tail_factor: 1.0,
            peak_convection_force: 300.0,
            chimney_radius: 3.0,
            chimney_height: 12.0,
            convection_duration: 4.0,
            lever_arm: 0.2,
        }
    }

    /// The GPU record at `t` seconds after detonation.
    ///
    /// # Errors
    /// [`crate::Error::InvalidInput`] for non-finite or negative parameters.
    pub fn to_gpu(&self, t: f32) -> Result<GpuExplosion> {
        finite3("explosion detonation", self.detonation)?;
        for (what, v) in [
            ("explosion implosion_min_radius", self.implosion_min_radius),
            ("explosion implosion_max_radius", self.implosion_max_radius),
            ("explosion implosion_duration", self.implosion_duration),
            ("explosion implosion_force", self.implosion_force),
            ("explosion shockwave_speed", self.shockwave_speed),
            ("explosion shockwave_thickness", self.shockwave_thickness),
            (
                "explosion peak_concussion_force",
                self.peak_concussion_force,
            ),
            ("explosion concussion_duration", self.concussion_duration),
            ("explosion tail_factor", self.tail_factor),
            (
                "explosion peak_convection_force",
                self.peak_convection_force,
            ),
            ("explosion chimney_radius", self.chimney_radius),
            ("explosion chimney_height", self.chimney_height),
            ("explosion convection_duration", self.convection_duration),
            ("explosion lever_arm", self.lever_arm),
        ] {
            non_negative(what, v)?;
        }
        Ok(GpuExplosion {
            detonation: self.detonation.extend(t),
            implosion: Vec4::new(
                self.implosion_min_radius,
                self.implosion_max_radius,
                self.implosion_duration,
                self.implosion_force,
            ),
            shock: Vec4::new(
                self.shockwave_speed,
                self.shockwave_thickness,
                self.peak_concussion_force,
                self.concussion_duration,
            ),
            convection: Vec4::new(
                self.peak_convection_force,
                self.chimney_radius,
                self.chimney_height,
                self.convection_duration,
            ),
            misc: Vec4::new(self.tail_factor, 1.0, self.lever_arm, 0.0),
        })
    }
}

/// The body-space point the explosion pushes on for body `i`.
pub fn explosion_arm(i: u32, arm: f32) -> Vec3 {
    let h = |k: u32| (hash_u32(3 * i + k) >> 8) as f32 * (1.0 / 16_777_216.0) - 0.5;
    let u = Vec3::new(h(0), h(1), h(2));
    let l = u.length();
    if l <= 0.0 {
        return Vec3::new(0.0, arm, 0.0);
    }
    u * (arm / l)
}

/// The explosion's force on a body at `p` moving at `v` (same operations as the WGSL).
pub fn explosion_force(e: &GpuExplosion, p: Vec3, v: Vec3) -> Vec3 {
    let t = e.detonation.w;
    let rel = p - e.detonation.xyz();
    let d = rel.length();
    let dir = if d > 0.0 { rel / d } else { Vec3::Y };
    let mut f = Vec3::ZERO;
    if t < e.implosion.z && d > e.implosion.x && d < e.implosion.y {
        f -= dir * e.implosion.w;
    }
    let speed = e.shock.x;
    let w = e.shock.y;
    let kw = e.misc.x * w;
    if t < e.shock.w && speed > 0.0 {
        let st = speed * t;
        let peak = e.shock.z * (1.0 - v.dot(dir) / speed).max(0.0);
        let fade = (4.0 * (e.shock.w - t) / e.shock.w).clamp(0.0, 1.0);
        let m = if d >= st - kw && d < st {
            peak * (1.0 - (st - d) / kw)
        } else if d >= st && d < st + w {
            peak
        } else if d >= st + w && d < st + w + kw {
            peak * (1.0 - (d - st - w) / kw)
        } else {
            0.0
        };
        f += dir * (m * fade);
    }
    let dxz = Vec3::new(rel.x, 0.0, rel.z).length();
    let radius = e.convection.y;
    if t < e.convection.w && dxz < radius && rel.y < e.convection.z && rel.y > -radius {
        f += dir * (e.convection.x * (1.0 - dxz / radius));
    }
    f
}

/// Stage `rigid_forces`: adds the explosion's force (and its torque about the fixed off-centre
/// point) to every dynamic body it reaches, waking it.
pub fn rigid_forces(params: &GpuRigidParams, e: &GpuExplosion, bodies: &mut [GpuBody]) {
    if e.misc.y == 0.0 {
        return;
    }
    for (i, b) in bodies
        .iter_mut()
        .enumerate()
        .take(params.body_count as usize)
    {
        if b.kind != body_kind::DYNAMIC {
            continue;
        }
        let f = explosion_force(e, b.pos.xyz(), b.lin_vel.xyz());
        if f.dot(f) == 0.0 {
            continue;
        }
        let r = quat_rotate(b.orient, explosion_arm(i as u32, e.misc.z));
        b.force = (b.force.xyz() + f).extend(b.force.w);
        b.torque = (b.torque.xyz() + r.cross(f)).extend(b.torque.w);
        if b.awake == 0 {
            b.awake = 1;
            b.last_acc.w = 2.0 * params.sleep_epsilon;
        }
    }
}
