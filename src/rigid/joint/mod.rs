//! Joints (catalogue ch. 7's hard constraints, Box2D v3's soft joints): ball and socket, hinge,
//! fixed (weld), slider and distance (rod, rope, spring) joints between two bodies or a body and
//! the world, with limits, motors, springs, breaking and a collision filter.
//!
//! A joint is a row set the contact solver solves beside the contacts: stage `joint_slots`
//! gives each joint a manifold slot after the contacts, so the colouring puts joints and
//! contacts that share no dynamic body in one batch and the sweeps solve both (Box2D v3's
//! constraint graph); a joint's slot has no points and its sweep runs the joint's rows
//! (`shaders/rigid/joint.wgsl`, CPU twin [`solve`]). Every row is soft in the biased sweeps (a
//! spring of [`crate::rigid::RigidConfig::joint_hertz`] with its damping ratio, Box2D v3's soft
//! step) and rigid in the relax sweeps, accumulated, clamped where one-sided, and warm-started.
//! Stage `joint_break` then reads each joint's force and torque and breaks those past their
//! thresholds. Joined bodies do not collide unless [`Joint::collide_connected`] says so
//! ([`filter`]).
//!
//! Build a joint with one of the constructors, which place it in world space at the bodies'
//! poses when it is added (the frames coincide then: a hinge's angle and a slider's position
//! start at 0), or in each body's own frame with [`Joint::in_body_frames`]; add options with
//! the `with_` methods; add it with [`crate::rigid::RigidWorld::add_joint`].

pub mod filter;
pub mod solve;

use super::math::{from_quat, quat_mul, quat_rotate, quat_rotate_inv};
use super::types::*;
use crate::error::{finite3, non_negative, positive, Error, Result};
use glam::{Quat, Vec3, Vec4};

/// What a joint holds fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JointKind {
    /// Ball and socket: the anchors coincide; optional cone and twist limits about the
    /// joint's x axis.
    Ball,
    /// Hinge about the joint's x axis: optional angle limits, motor and spring.
    Hinge,
    /// Fixed (a weld): no relative motion.
    Fixed,
    /// Slider along the joint's x axis, without turning: optional position limits, motor and
    /// spring.
    Slider,
    /// The distance between the anchors between a least and a greatest length (a rod: both
    /// the length at creation; a rope: 0 to its length), optionally a spring to a rest length.
    Distance,
}

impl JointKind {
    fn code(self) -> u32 {
        match self {
            JointKind::Ball => joint_kind::BALL,
            JointKind::Hinge => joint_kind::HINGE,
            JointKind::Fixed => joint_kind::FIXED,
            JointKind::Slider => joint_kind::SLIDER,
            JointKind::Distance => joint_kind::DISTANCE,
        }
    }

    /// The kind of a [`GpuJoint::kind`] code.
    pub fn of_code(code: u32) -> Option<Self> {
        Some(match code {
            joint_kind::BALL => JointKind::Ball,
            joint_kind::HINGE => JointKind::Hinge,
            joint_kind::FIXED => JointKind::Fixed,
            joint_kind::SLIDER => JointKind::Slider,
            joint_kind::DISTANCE => JointKind::Distance,
            _ => return None,
        })
    }
}

/// Where a joint's frames are.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Placement {
    /// In world space at the bodies' poses when the joint is added: the anchors (the same
    /// point but for a distance joint) and the frame's rotation (its x axis the joint's axis).
    World {
        anchor_a: Vec3,
        anchor_b: Vec3,
        rotation: Quat,
    },
    /// In each body's frame (relative to its origin; the world's for no body).
    Local {
        anchor_a: Vec3,
        rot_a: Quat,
        anchor_b: Vec3,
        rot_b: Quat,
    },
}

/// A joint's description: what [`crate::rigid::RigidWorld::add_joint`] takes. Every value is
/// checked when the joint is added.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Joint {
    kind: JointKind,
    placement: Placement,
    limits: Option<(f32, f32)>,
    cone: Option<f32>,
    twist: Option<(f32, f32)>,
    motor: Option<(f32, f32)>,
    spring: Option<(f32, f32, f32)>,
    softness: Option<(f32, f32)>,
    breaking: Option<(f32, f32)>,
    collide: bool,
}

/// The rotation taking the x axis to `axis` (the shortest arc; `axis` need not be unit).
fn x_to(axis: Vec3) -> Quat {
    let n = axis.normalize_or_zero();
    if n == Vec3::ZERO {
        // No direction: a rotation that is not finite, which `check` refuses as a bad axis
        // when the joint is added.
        return Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
    }
    Quat::from_rotation_arc(Vec3::X, n)
}

impl Joint {
    fn new(kind: JointKind, anchor_a: Vec3, anchor_b: Vec3, axis: Vec3) -> Self {
        Self {
            kind,
            placement: Placement::World {
                anchor_a,
                anchor_b,
                rotation: x_to(axis),
            },
            limits: None,
            cone: None,
            twist: None,
            motor: None,
            spring: None,
            softness: None,
            breaking: None,
            collide: false,
        }
    }

    /// A ball and socket at world point `anchor`; its x axis (the cone's and the twist's) is
    /// the world's x until [`Joint::with_axis`].
    #[must_use]
    pub fn ball(anchor: Vec3) -> Self {
        Self::new(JointKind::Ball, anchor, anchor, Vec3::X)
    }

    /// A hinge at world point `anchor` turning about world direction `axis`.
    #[must_use]
    pub fn hinge(anchor: Vec3, axis: Vec3) -> Self {
        Self::new(JointKind::Hinge, anchor, anchor, axis)
    }

    /// A weld holding the bodies as they are, about world point `anchor`.
    #[must_use]
    pub fn fixed(anchor: Vec3) -> Self {
        Self::new(JointKind::Fixed, anchor, anchor, Vec3::X)
    }

    /// A slider through world point `anchor` along world direction `axis`.
    #[must_use]
    pub fn slider(anchor: Vec3, axis: Vec3) -> Self {
        Self::new(JointKind::Slider, anchor, anchor, axis)
    }

    /// A rod between world points `anchor_a` (on a) and `anchor_b` (on b): the distance between
    /// them stays what it is when the joint is added.
    #[must_use]
    pub fn distance(anchor_a: Vec3, anchor_b: Vec3) -> Self {
        Self::new(JointKind::Distance, anchor_a, anchor_b, Vec3::X)
    }

    /// A rope between world points `anchor_a` and `anchor_b`: they stay at most `length`
    /// apart, and may come closer.
    #[must_use]
    pub fn rope(anchor_a: Vec3, anchor_b: Vec3, length: f32) -> Self {
        Self::new(JointKind::Distance, anchor_a, anchor_b, Vec3::X).with_limits(0.0, length)
    }

    /// The joint's kind.
    pub fn kind(&self) -> JointKind {
        self.kind
    }

    /// Places the joint in each body's own frame instead: the anchors relative to each body's
    /// origin (its position; see [`crate::rigid::mass`] on the origin and the centre of mass)
    /// and the frames' rotations in each body's frame (for no body, the world's). The joint's
    /// axis is each frame's x axis.
    pub fn in_body_frames(
        mut self,
        anchor_a: Vec3,
        rot_a: Quat,
        anchor_b: Vec3,
        rot_b: Quat,
    ) -> Self {
        self.placement = Placement::Local {
            anchor_a,
            rot_a,
            anchor_b,
            rot_b,
        };
        self
    }

    /// Turns a world-placed joint's frame so its x axis is world direction `axis` (a ball's
    /// cone and twist axis; the axis of a hinge or slider).
    #[must_use]
    pub fn with_axis(mut self, axis: Vec3) -> Self {
        if let Placement::World { rotation, .. } = &mut self.placement {
            *rotation = x_to(axis);
        }
        self
    }

    /// A world-placed joint moved by a rigid transform: turned by `rotation` about the origin,
    /// then moved by `at` (a joint in a model's own coordinates put where the model is placed).
    /// A joint placed in its bodies' frames is left as it is.
    #[must_use]
    pub fn transformed(mut self, at: Vec3, rotation: Quat) -> Self {
        if let Placement::World {
            anchor_a,
            anchor_b,
            rotation: r,
        } = self.placement
        {
            self.placement = Placement::World {
                anchor_a: at + rotation * anchor_a,
                anchor_b: at + rotation * anchor_b,
                rotation: rotation * r,
            };
        }
        self
    }

    /// Limits: a hinge's angle (radians), a slider's position (metres from where the frames
    /// coincide), a distance joint's least and greatest length.
    #[must_use]
    pub fn with_limits(mut self, lower: f32, upper: f32) -> Self {
        self.limits = Some((lower, upper));
        self
    }

    /// A ball joint's cone: the angle between the frames' x axes stays at most `half_angle`
    /// (radians, in (0, π]).
    #[must_use]
    pub fn with_cone(mut self, half_angle: f32) -> Self {
        self.cone = Some(half_angle);
        self
    }

    /// A ball joint's twist about its x axis between `lower` and `upper` (radians, in
    /// [−π, π]).
    #[must_use]
    pub fn with_twist(mut self, lower: f32, upper: f32) -> Self {
        self.twist = Some((lower, upper));
        self
    }

    /// Joint friction: the joint resists turning (sliding, for a slider or distance joint) with
    /// a torque (force) of at most `max_torque`, so a limb's swing dies away while a stronger
    /// pull still moves it (a ragdoll's joints). On a ball joint, about every axis; on a hinge,
    /// slider or distance joint it is the motor at speed 0.
    #[must_use]
    pub fn with_friction(mut self, max_torque: f32) -> Self {
        self.motor = Some((0.0, max_torque));
        self
    }

    /// A motor driving a hinge's, slider's or distance joint's coordinate at `speed` (rad/s or
    /// m/s) with at most `max_force` (N·m or N). Speed 0 with a small force is joint friction.
    #[must_use]
    pub fn with_motor(mut self, speed: f32, max_force: f32) -> Self {
        self.motor = Some((speed, max_force));
        self
    }

    /// A spring pulling a hinge's, slider's or distance joint's coordinate to `target` (an
    /// angle, a position or a rest length) at `hertz` with `damping_ratio`.
    #[must_use]
    pub fn with_spring(mut self, hertz: f32, damping_ratio: f32, target: f32) -> Self {
        self.spring = Some((hertz, damping_ratio, target));
        self
    }

    /// The joint's own stiffness instead of the world's (`RigidConfig::joint_hertz`,
    /// `joint_damping_ratio`).
    #[must_use]
    pub fn with_softness(mut self, hertz: f32, damping_ratio: f32) -> Self {
        self.softness = Some((hertz, damping_ratio));
        self
    }

    /// Breaks the joint when the force it applies exceeds `force` (N) or its torque exceeds
    /// `torque` (N·m); pass `f32::INFINITY` for a threshold that never breaks.
    #[must_use]
    pub fn with_breaking(mut self, force: f32, torque: f32) -> Self {
        self.breaking = Some((force, torque));
        self
    }

    /// Whether the two bodies' shapes collide with each other (off by default: joined bodies
    /// usually overlap at the joint).
    #[must_use]
    pub fn collide_connected(mut self, collide: bool) -> Self {
        self.collide = collide;
        self
    }

    /// The joint's record for bodies at poses `a` and `b` ((centre of mass, orientation); the
    /// world's for no body) whose centres of mass lie at `centres` in their frames (zero for
    /// the world), every value checked. The record's anchors are measured from the centres,
    /// as the solver measures them (`rigid::mass`).
    pub(crate) fn to_gpu(
        self,
        body_a: u32,
        body_b: u32,
        a: (Vec3, Vec4),
        b: (Vec3, Vec4),
        centres: (Vec3, Vec3),
    ) -> Result<GpuJoint> {
        self.check()?;
        let (anchor_a, rot_a, anchor_b, rot_b) = match self.placement {
            Placement::World {
                anchor_a,
                anchor_b,
                rotation,
            } => {
                let r = from_quat(rotation);
                let inv = |q: Vec4| Vec4::new(-q.x, -q.y, -q.z, q.w);
                (
                    quat_rotate_inv(a.1, anchor_a - a.0),
                    quat_mul(inv(a.1), r),
                    quat_rotate_inv(b.1, anchor_b - b.0),
                    quat_mul(inv(b.1), r),
                )
            }
            Placement::Local {
                anchor_a,
                rot_a,
                anchor_b,
                rot_b,
            } => (
                anchor_a - centres.0,
                from_quat(rot_a.normalize()),
                anchor_b - centres.1,
                from_quat(rot_b.normalize()),
            ),
        };
        let mut flags = 0;
        let mut limits = Vec4::ZERO;
        if let Some((lo, hi)) = self.limits {
            flags |= joint_flag::LIMITS;
            limits.x = lo;
            limits.y = hi;
        } else if self.kind == JointKind::Distance {
            // A rod: the length at creation.
            let world_a = a.0 + quat_rotate(a.1, anchor_a);
            let world_b = b.0 + quat_rotate(b.1, anchor_b);
            let len = (world_b - world_a).length();
            flags |= joint_flag::LIMITS;
            limits.x = len;
            limits.y = len;
        }
        if let Some(cone) = self.cone {
            flags |= joint_flag::CONE;
            limits.x = cone;
        }
        if let Some((lo, hi)) = self.twist {
            flags |= joint_flag::TWIST;
            limits.y = lo;
            limits.z = hi;
        }
        let mut drive = Vec4::ZERO;
        let mut softness = Vec4::ZERO;
        if let Some((speed, most)) = self.motor {
            flags |= joint_flag::MOTOR;
            drive.x = speed;
            drive.y = most;
        }
        if let Some((hz, zeta, target)) = self.spring {
            flags |= joint_flag::SPRING;
            softness.z = hz;
            softness.w = zeta;
            drive.z = target;
        }
        if let Some((hz, zeta)) = self.softness {
            softness.x = hz;
            softness.y = zeta;
        }
        let mut breaking = Vec4::ZERO;
        if let Some((force, torque)) = self.breaking {
            flags |= joint_flag::BREAKABLE;
            // 0 never breaks (the shader's test is threshold > 0).
            breaking.x = if force.is_finite() { force } else { 0.0 };
            breaking.y = if torque.is_finite() { torque } else { 0.0 };
        }
        if self.collide {
            flags |= joint_flag::COLLIDE;
        }
        Ok(GpuJoint {
            body_a,
            body_b,
            kind: self.kind.code(),
            flags,
            anchor_a: anchor_a.extend(0.0),
            rot_a,
            anchor_b: anchor_b.extend(0.0),
            rot_b,
            softness,
            limits,
            drive,
            breaking,
            ..GpuJoint::default()
        })
    }

    /// Every value, and the options that make no sense for the kind.
    fn check(&self) -> Result<()> {
        let bad = |what: &'static str, value: String, fix: &'static str| {
            Err(Error::InvalidInput { what, value, fix })
        };
        match self.placement {
            Placement::World {
                anchor_a,
                anchor_b,
                rotation,
            } => {
                finite3("joint anchor", anchor_a)?;
                finite3("joint anchor", anchor_b)?;
                if !rotation.is_finite() {
                    return bad(
                        "joint axis",
                        format!("{rotation:?}"),
                        "pass a finite, non-zero axis",
                    );
                }
            }
            Placement::Local {
                anchor_a,
                rot_a,
                anchor_b,
                rot_b,
            } => {
                finite3("joint anchor_a", anchor_a)?;
                finite3("joint anchor_b", anchor_b)?;
                for q in [rot_a, rot_b] {
                    if !q.is_finite() || q.length_squared() < 1e-12 {
                        return bad(
                            "joint frame rotation",
                            format!("{q:?}"),
                            "pass a finite, non-zero quaternion",
                        );
                    }
                }
            }
        }
        let axial = matches!(
            self.kind,
            JointKind::Hinge | JointKind::Slider | JointKind::Distance
        );
        if let Some((lo, hi)) = self.limits {
            if !axial {
                return bad(
                    "joint limits",
                    format!("{:?} joint", self.kind),
                    "limits are for hinges, sliders and distance joints; a ball joint takes \
                     with_cone and with_twist",
                );
            }
            crate::error::finite("joint lower limit", lo)?;
            crate::error::finite("joint upper limit", hi)?;
            if lo > hi || (self.kind == JointKind::Distance && lo < 0.0) {
                return bad(
                    "joint limits",
                    format!("{lo} to {hi}"),
                    "pass lower <= upper (a distance joint's lengths >= 0)",
                );
            }
        }
        if self.cone.is_some() || self.twist.is_some() {
            if self.kind != JointKind::Ball {
                return bad(
                    "joint cone / twist",
                    format!("{:?} joint", self.kind),
                    "cone and twist limits are for ball joints; a hinge takes with_limits",
                );
            }
            if let Some(cone) = self.cone {
                if !(cone > 0.0 && cone <= std::f32::consts::PI) {
                    return bad(
                        "joint cone half-angle",
                        format!("{cone}"),
                        "pass an angle in (0, π] radians",
                    );
                }
            }
            if let Some((lo, hi)) = self.twist {
                let pi = std::f32::consts::PI;
                if !(lo.is_finite() && hi.is_finite() && -pi <= lo && lo <= hi && hi <= pi) {
                    return bad(
                        "joint twist limits",
                        format!("{lo} to {hi}"),
                        "pass -π <= lower <= upper <= π radians",
                    );
                }
            }
        }
        let ball_friction = self.kind == JointKind::Ball && self.motor.is_some_and(|m| m.0 == 0.0);
        if (self.motor.is_some() && !axial && !ball_friction) || (self.spring.is_some() && !axial) {
            return bad(
                "joint motor / spring",
                format!("{:?} joint", self.kind),
                "motors and springs are for hinges, sliders and distance joints (a ball joint \
                 takes with_friction)",
            );
        }
        if let Some((speed, most)) = self.motor {
            crate::error::finite("joint motor speed", speed)?;
            non_negative("joint motor max force", most)?;
        }
        if let Some((hz, zeta, target)) = self.spring {
            positive("joint spring hertz", hz)?;
            non_negative("joint spring damping ratio", zeta)?;
            crate::error::finite("joint spring target", target)?;
        }
        if let Some((hz, zeta)) = self.softness {
            positive("joint softness hertz", hz)?;
            non_negative("joint softness damping ratio", zeta)?;
        }
        if let Some((force, torque)) = self.breaking {
            for (what, v) in [("joint break force", force), ("joint break torque", torque)] {
                if v.is_nan() || v <= 0.0 {
                    return bad(
                        what,
                        format!("{v}"),
                        "pass a threshold > 0 (f32::INFINITY: never)",
                    );
                }
            }
        }
        Ok(())
    }
}

/// A joint in a [`crate::rigid::RigidWorld`]: its slot and that slot's generation, so the
/// handle of a removed joint is refused rather than reaching the slot's next owner.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JointHandle {
    pub(crate) index: u32,
    pub(crate) generation: u32,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) world: u32,
}

impl JointHandle {
    /// The joint's slot: its index in the GPU `joints` buffer.
    pub fn index(&self) -> u32 {
        self.index
    }
}

/// What a joint did in the last step: the force and torque it applied (in its last substep)
/// and the step it broke at.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JointFeedback {
    /// Force (N).
    pub force: f32,
    /// Torque (N·m).
    pub torque: f32,
    /// The step (1-based, as [`crate::rigid::RigidWorld::steps`]) at which it broke; `None`
    /// while whole.
    pub broken_at: Option<u64>,
}

impl JointFeedback {
    /// The feedback a joint record holds.
    #[must_use]
    pub fn of(jt: &GpuJoint) -> Self {
        let step = jt.feedback.z.to_bits();
        Self {
            force: jt.feedback.x,
            torque: jt.feedback.y,
            broken_at: (step != 0).then_some(u64::from(step)),
        }
    }
}

/// Where a joint stands at its bodies' poses: how far it is from holding, and its coordinate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JointState {
    /// The gap the joint should close (m): between the anchors (ball, hinge, fixed), off the
    /// slider's axis, or outside a distance joint's lengths.
    pub linear_error: f32,
    /// The turn it should undo (rad): between a hinge's axes, between the frames of a fixed
    /// joint or slider, or past a ball joint's cone or twist limits.
    pub angular_error: f32,
    /// A hinge's angle, a slider's position or a distance joint's length (0 for the others).
    pub coordinate: f32,
}

impl JointState {
    /// The state of joint `jt` with bodies at poses `a` and `b` ((centre, orientation); the
    /// world's for no body). Limits of hinges and sliders count as linear or angular error when
    /// passed.
    #[must_use]
    pub fn of(jt: &GpuJoint, a: (Vec3, Vec4), b: (Vec3, Vec4)) -> Self {
        let inv = |q: Vec4| Vec4::new(-q.x, -q.y, -q.z, q.w);
        let ra = quat_rotate(a.1, jt.anchor_a.truncate());
        let rb = quat_rotate(b.1, jt.anchor_b.truncate());
        let d = (b.0 + rb) - (a.0 + ra);
        let qa = quat_mul(a.1, jt.rot_a);
        let qb = quat_mul(b.1, jt.rot_b);
        let (xa, ya, za) = (
            quat_rotate(qa, Vec3::X),
            quat_rotate(qa, Vec3::Y),
            quat_rotate(qa, Vec3::Z),
        );
        let (xb, yb) = (quat_rotate(qb, Vec3::X), quat_rotate(qb, Vec3::Y));
        // The turn between the two frames, the short way round.
        let rel = quat_mul(qb, inv(qa));
        let turn = 2.0 * rel.truncate().length().atan2(rel.w.abs());
        let outside = |v: f32, lo: f32, hi: f32| (lo - v).max(v - hi).max(0.0);
        let limited = jt.flags & joint_flag::LIMITS != 0;
        let mut s = JointState::default();
        match jt.kind {
            joint_kind::BALL => {
                s.linear_error = d.length();
                let phi = xa.cross(xb).length().atan2(xa.dot(xb));
                if jt.flags & joint_flag::CONE != 0 {
                    s.angular_error = (phi - jt.limits.x).max(0.0);
                }
                if jt.flags & joint_flag::TWIST != 0 {
                    let mut q = quat_mul(inv(qa), qb);
                    if q.w < 0.0 {
                        q = -q;
                    }
                    let twist = 2.0 * q.x.atan2(q.w);
                    s.angular_error = s
                        .angular_error
                        .max(outside(twist, jt.limits.y, jt.limits.z));
                }
            }
            joint_kind::HINGE => {
                s.linear_error = d.length();
                s.coordinate = yb.dot(za).atan2(yb.dot(ya));
                s.angular_error = xa.cross(xb).length().atan2(xa.dot(xb));
                if limited {
                    let past = outside(s.coordinate, jt.limits.x, jt.limits.y);
                    s.angular_error = s.angular_error.max(past);
                }
            }
            joint_kind::FIXED => {
                s.linear_error = d.length();
                s.angular_error = turn;
            }
            joint_kind::SLIDER => {
                s.coordinate = d.dot(xa);
                s.linear_error = (d - xa * s.coordinate).length();
                if limited {
                    let past = outside(s.coordinate, jt.limits.x, jt.limits.y);
                    s.linear_error = s.linear_error.max(past);
                }
                s.angular_error = turn;
            }
            joint_kind::DISTANCE => {
                s.coordinate = d.length();
                if limited {
                    s.linear_error = outside(s.coordinate, jt.limits.x, jt.limits.y);
                }
            }
            _ => {}
        }
        s
    }
}
