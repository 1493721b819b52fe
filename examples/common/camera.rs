//! The orbit camera every example views its scene through.

use glam::{Mat4, Vec3};

/// A camera orbiting a target point: yaw about +y, pitch above the horizon, distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// The point looked at, metres.
    pub target: Vec3,
    /// Angle about +y, radians; 0 puts the eye on the +z side of the target.
    pub yaw: f32,
    /// Angle above the horizontal, radians.
    pub pitch: f32,
    /// Distance from the target, metres.
    pub distance: f32,
    /// Vertical field of view, radians.
    pub fov_y: f32,
}

impl OrbitCamera {
    /// Where the eye is.
    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + self.distance * Vec3::new(cp * sy, sp, cp * cy)
    }

    /// Projection times view, for a viewport of the given aspect (wgpu clip space, depth 0..1).
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        let near = (self.distance * 1e-3).max(0.05);
        let far = self.distance * 20.0 + 1000.0;
        // wgpu's clip space is DirectX's: y up, depth 0..1.
        let proj = glam::camera::rh::proj::directx::perspective(self.fov_y, aspect, near, far);
        proj * glam::camera::rh::view::look_at_mat4(self.eye(), self.target, Vec3::Y)
    }

    /// Orbits by a mouse drag of (dx, dy) pixels.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.005;
        self.pitch = (self.pitch + dy * 0.005).clamp(-1.45, 1.45);
    }

    /// Zooms by wheel steps (positive: closer).
    pub fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * 0.88f32.powf(steps)).clamp(1.0, 5000.0);
    }
}
