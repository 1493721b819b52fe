//! The world's joints: adding and removing them, changing their limits, motors and springs
//! between steps, reading their force and torque, and the joints the steps broke, each handed
//! out once. On the GPU the host writes a joint's definition (the words before its impulses)
//! and the device owns its impulses and feedback, so an edit never undoes what the device did.

use super::*;
use crate::rigid::joint::{filter, Joint, JointFeedback, JointHandle, JointState};

/// The joint slots of a world, host side.
pub(super) struct JointTable {
    /// The records in slot order (on the GPU the definition is the host's; the impulses and
    /// feedback are what the host last wrote or read).
    pub(super) table: Vec<GpuJoint>,
    pub(super) generations: Vec<u32>,
    pub(super) alive: Vec<bool>,
    pub(super) free: Vec<u32>,
    /// Slots on the device (grown with `auto_grow`).
    pub(super) capacity: u32,
    /// The filter's table (`joint::filter`), rebuilt when the joints change.
    pub(super) filter: Vec<[u32; 4]>,
    /// The filter changed since it was last written to the device.
    pub(super) filter_dirty: bool,
    /// Joints that broke and were not yet handed out by `take_broken_joints`.
    pub(super) broken: Vec<JointHandle>,
    /// Per slot: its break was reported (each is handed out once).
    pub(super) reported: Vec<bool>,
    /// Some step broke more joints than its counters list: the next `take_broken_joints`
    /// reads the joint table for the rest.
    pub(super) scan: bool,
}

impl JointTable {
    pub(super) fn new(capacity: u32) -> Self {
        Self {
            table: Vec::new(),
            generations: Vec::new(),
            alive: Vec::new(),
            free: Vec::new(),
            capacity,
            filter: Vec::new(),
            filter_dirty: false,
            broken: Vec::new(),
            reported: Vec::new(),
            scan: false,
        }
    }

    /// Joint slots in use (live or freed): the joint count the step runs over.
    pub(super) fn slots(&self) -> u32 {
        self.table.len() as u32
    }

    fn handle(&self, j: u32, world: u32) -> JointHandle {
        JointHandle {
            index: j,
            generation: self.generations.get(j as usize).copied().unwrap_or(0),
            world,
        }
    }

    /// Notes joints `broken` (slot indices) as broken, each once, for `take_broken_joints`.
    pub(super) fn note_broken(&mut self, broken: &[u32], world: u32) {
        for &j in broken {
            let i = j as usize;
            if i < self.alive.len() && self.alive[i] && !self.reported[i] {
                self.reported[i] = true;
                self.broken.push(self.handle(j, world));
            }
        }
    }

    /// A step's counters: the broken count and the listed indices (more broken than listed:
    /// scan the table later).
    pub(super) fn note_counters(&mut self, counters: &[u32], world: u32) {
        let count = counters.get(counter::JOINTS_BROKEN).copied().unwrap_or(0) as usize;
        let listed = count.min(counter::JOINT_EVENTS_MAX);
        let start = counter::JOINT_EVENTS;
        if let Some(list) = counters.get(start..start + listed) {
            let mut list = list.to_vec();
            // The device lists them in the order its threads got there.
            list.sort_unstable();
            self.note_broken(&list, world);
        }
        if count > listed {
            self.scan = true;
        }
    }

    pub(super) fn rebuild_filter(&mut self) {
        self.filter = filter::build(&self.table, &self.alive);
        self.filter_dirty = true;
    }
}

fn joint_offset(j: u32) -> u64 {
    u64::from(j) * std::mem::size_of::<GpuJoint>() as u64
}

/// Bytes of a joint record the host owns: everything before the impulses.
const DEFINITION_BYTES: usize = offset_of!(GpuJoint, impulse_lin);

impl RigidWorld {
    /// Adds a joint between body `a` (`None`: the world) and body `b`, and wakes both. A joint
    /// placed in world space ([`Joint::ball`], [`Joint::hinge`], ...) takes its frames from the
    /// bodies' current poses (read from the device first on the GPU if the world has stepped).
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed body or another world's; [`Error::InvalidInput`]
    /// for a joint from a body to itself, or bad values (see [`Joint`]); [`Error::Full`] when
    /// the joint slots are full and `auto_grow` is off. Nothing changes on an error.
    pub fn add_joint(
        &mut self,
        a: Option<BodyHandle>,
        b: BodyHandle,
        joint: Joint,
    ) -> Result<JointHandle> {
        self.on_device("adding a joint", |w| w.add_joint_unguarded(a, b, joint))
    }

    fn add_joint_unguarded(
        &mut self,
        a: Option<BodyHandle>,
        b: BodyHandle,
        joint: Joint,
    ) -> Result<JointHandle> {
        let ib = self.check(b)?;
        let ia = match a {
            Some(h) => Some(self.check(h)?),
            None => None,
        };
        if ia == Some(ib) {
            return Err(Error::InvalidInput {
                what: "joint bodies",
                value: format!("body {ib} to itself"),
                fix: "join two different bodies, or pass None for body a to join b to the world",
            });
        }
        let pose = |w: &mut Self, i: Option<usize>| -> Result<(Vec3, Vec4)> {
            let Some(i) = i else {
                return Ok((Vec3::ZERO, crate::rigid::math::QUAT_IDENTITY));
            };
            if w.steps > 0 && matches!(w.engine, Engine::Gpu(_)) {
                let h = BodyHandle {
                    index: i as u32,
                    generation: w.generations[i],
                    world: w.tag,
                };
                w.body_raw(h)?;
            }
            let body = &w.bodies[i];
            Ok((body.pos.xyz(), body.orient))
        };
        let pa = pose(self, ia)?;
        let pb = pose(self, Some(ib))?;
        let body_a = ia.map_or(NONE, |i| i as u32);
        let centres = (
            ia.map_or(Vec3::ZERO, |i| self.centre_at(i)),
            self.centre_at(ib),
        );
        let record = joint.to_gpu(body_a, ib as u32, pa, pb, centres)?;
        let index = match self.joints.free.last() {
            Some(&j) => j,
            None => self.joints.slots(),
        };
        if index >= self.joints.capacity {
            self.grow_joints(index + 1)?;
        }
        let t = &mut self.joints;
        t.free.pop();
        let i = index as usize;
        if i == t.table.len() {
            t.table.push(record);
            t.generations.push(0);
            t.alive.push(true);
            t.reported.push(false);
        } else {
            t.table[i] = record;
            t.generations[i] = t.generations[i].wrapping_add(1);
            t.alive[i] = true;
            t.reported[i] = false;
        }
        t.rebuild_filter();
        if let Engine::Gpu(g) = &self.engine {
            let r = &g.rigid;
            r.write_at(&r.joints, joint_offset(index), &[record]);
        }
        if let Some(i) = ia {
            self.wake_index(i);
        }
        self.wake_index(ib);
        Ok(self.joints.handle(index, self.tag))
    }

    /// Grows the joint slots to at least `need` (a power of two, at least 16) when
    /// `auto_grow` is on; on the GPU the backend is rebuilt and every joint carried over.
    fn grow_joints(&mut self, need: u32) -> Result<()> {
        if !self.config.auto_grow {
            return Err(Error::Full {
                what: "joints (RigidConfig::joint_capacity)",
                capacity: self.joints.capacity,
            });
        }
        let capacity = need.clamp(16, 1 << 31).next_power_of_two();
        let before = self.joints.capacity;
        self.joints.capacity = capacity;
        let (bodies, shapes, pairs) = (self.body_capacity, self.shape_capacity, self.pair_capacity);
        if let Err(e) = self.regrow(bodies, shapes, pairs) {
            // Nothing changes on an error.
            self.joints.capacity = before;
            return Err(e);
        }
        Ok(())
    }

    fn check_joint(&self, h: JointHandle) -> Result<usize> {
        let i = h.index as usize;
        let t = &self.joints;
        if h.world == self.tag
            && i < t.alive.len()
            && t.alive[i]
            && t.generations[i] == h.generation
        {
            Ok(i)
        } else {
            Err(Error::StaleHandle {
                kind: "joint",
                id: h.index,
            })
        }
    }

    /// Whether `h` names a live joint of this world (a broken joint is live until removed).
    pub fn contains_joint(&self, h: JointHandle) -> bool {
        self.check_joint(h).is_ok()
    }

    /// Live joints (broken ones included until removed).
    pub fn joint_count(&self) -> usize {
        self.joints.alive.iter().filter(|&&a| a).count()
    }

    /// Joint slots now: `RigidConfig::joint_capacity`, or more after `auto_grow`.
    pub fn joint_capacity(&self) -> u32 {
        self.joints.capacity
    }

    /// Removes a joint; its bodies are woken and its slot is reused by a later `add_joint`.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed joint or another world's handle.
    pub fn remove_joint(&mut self, h: JointHandle) -> Result<()> {
        let i = self.check_joint(h)?;
        self.free_joint(i);
        Ok(())
    }

    fn free_joint(&mut self, i: usize) {
        let t = &mut self.joints;
        t.alive[i] = false;
        t.free.push(i as u32);
        let (a, b) = (t.table[i].body_a, t.table[i].body_b);
        t.table[i] = GpuJoint {
            body_a: NONE,
            body_b: NONE,
            flags: joint_flag::DISABLED,
            ..GpuJoint::default()
        };
        let record = t.table[i];
        t.broken.retain(|h| h.index as usize != i);
        t.rebuild_filter();
        if let Engine::Gpu(g) = &self.engine {
            let r = &g.rigid;
            r.write_at(&r.joints, joint_offset(i as u32), &[record]);
        }
        for body in [a, b] {
            if (body as usize) < self.bodies.len() && self.alive[body as usize] {
                self.wake_index(body as usize);
            }
        }
    }

    /// Moves the anchors body `i`'s joints hold in its frame by `-d` (its centre of mass moved
    /// by `d`), writes them, and keeps the joints' other words.
    pub(super) fn shift_joint_anchors(&mut self, i: u32, d: Vec3) {
        for j in 0..self.joints.table.len() {
            if !self.joints.alive[j] {
                continue;
            }
            let jt = &mut self.joints.table[j];
            let mut moved = false;
            if jt.body_a == i {
                jt.anchor_a -= d.extend(0.0);
                moved = true;
            }
            if jt.body_b == i {
                jt.anchor_b -= d.extend(0.0);
                moved = true;
            }
            if moved {
                if let Engine::Gpu(g) = &self.engine {
                    let bytes = &bytemuck::bytes_of(&self.joints.table[j])[..DEFINITION_BYTES];
                    let r = &g.rigid;
                    r.write_at(&r.joints, joint_offset(j as u32), bytes);
                }
            }
        }
    }

    /// Removes every joint of body `i` (the body is being removed).
    pub(super) fn remove_joints_of(&mut self, i: u32) {
        let attached: Vec<usize> = (0..self.joints.table.len())
            .filter(|&j| {
                let jt = &self.joints.table[j];
                self.joints.alive[j] && (jt.body_a == i || jt.body_b == i)
            })
            .collect();
        for j in attached {
            self.free_joint(j);
        }
    }

    /// Changes a joint's definition (host-owned words) with `edit`, writes it, wakes its bodies.
    fn edit_joint(&mut self, h: JointHandle, edit: impl FnOnce(&mut GpuJoint)) -> Result<()> {
        let i = self.check_joint(h)?;
        let mut record = self.joints.table[i];
        edit(&mut record);
        self.joints.table[i] = record;
        self.joints.rebuild_filter();
        if let Engine::Gpu(g) = &self.engine {
            let bytes = &bytemuck::bytes_of(&record)[..DEFINITION_BYTES];
            let r = &g.rigid;
            r.write_at(&r.joints, joint_offset(i as u32), bytes);
        }
        for body in [record.body_a, record.body_b] {
            if (body as usize) < self.bodies.len() {
                self.wake_index(body as usize);
            }
        }
        Ok(())
    }

    /// The kind a setter needs, or an error naming the setter.
    fn joint_kind_is(&self, h: JointHandle, what: &'static str, axial: bool) -> Result<()> {
        let i = self.check_joint(h)?;
        let kind = self.joints.table[i].kind;
        let ok = if axial {
            matches!(
                kind,
                joint_kind::HINGE | joint_kind::SLIDER | joint_kind::DISTANCE
            )
        } else {
            kind == joint_kind::BALL
        };
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidInput {
                what,
                value: format!("joint kind {kind}"),
                fix: if axial {
                    "limits, motors and springs are for hinges, sliders and distance joints"
                } else {
                    "cone and twist limits are for ball joints"
                },
            })
        }
    }

    /// Sets (`Some((lower, upper))`) or clears a hinge's, slider's or distance joint's limits
    /// (a distance joint without limits keeps no distance at all), and wakes its bodies.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for another kind, non-finite limits or
    /// lower > upper.
    pub fn set_joint_limits(&mut self, h: JointHandle, limits: Option<(f32, f32)>) -> Result<()> {
        self.joint_kind_is(h, "joint limits", true)?;
        if let Some((lo, hi)) = limits {
            crate::error::finite("joint lower limit", lo)?;
            crate::error::finite("joint upper limit", hi)?;
            if lo > hi {
                return Err(Error::InvalidInput {
                    what: "joint limits",
                    value: format!("{lo} to {hi}"),
                    fix: "pass lower <= upper",
                });
            }
        }
        self.edit_joint(h, |jt| match limits {
            Some((lo, hi)) => {
                jt.flags |= joint_flag::LIMITS;
                jt.limits.x = lo;
                jt.limits.y = hi;
            }
            None => jt.flags &= !joint_flag::LIMITS,
        })
    }

    /// Sets (`Some((speed, max_force))`) or clears a hinge's, slider's or distance joint's
    /// motor, and wakes its bodies.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for another kind, a non-finite speed or
    /// a negative or non-finite force.
    pub fn set_joint_motor(&mut self, h: JointHandle, motor: Option<(f32, f32)>) -> Result<()> {
        self.joint_kind_is(h, "joint motor", true)?;
        if let Some((speed, most)) = motor {
            crate::error::finite("joint motor speed", speed)?;
            crate::error::non_negative("joint motor max force", most)?;
        }
        self.edit_joint(h, |jt| match motor {
            Some((speed, most)) => {
                jt.flags |= joint_flag::MOTOR;
                jt.drive.x = speed;
                jt.drive.y = most;
            }
            None => jt.flags &= !joint_flag::MOTOR,
        })
    }

    /// Sets (`Some((hertz, damping_ratio, target))`) or clears a hinge's, slider's or distance
    /// joint's spring, and wakes its bodies.
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; [`Error::InvalidInput`] for another kind, a non-positive
    /// stiffness, a negative damping ratio or a non-finite target.
    pub fn set_joint_spring(
        &mut self,
        h: JointHandle,
        spring: Option<(f32, f32, f32)>,
    ) -> Result<()> {
        self.joint_kind_is(h, "joint spring", true)?;
        if let Some((hz, zeta, target)) = spring {
            crate::error::positive("joint spring hertz", hz)?;
            crate::error::non_negative("joint spring damping ratio", zeta)?;
            crate::error::finite("joint spring target", target)?;
        }
        self.edit_joint(h, |jt| match spring {
            Some((hz, zeta, target)) => {
                jt.flags |= joint_flag::SPRING;
                jt.softness.z = hz;
                jt.softness.w = zeta;
                jt.drive.z = target;
            }
            None => jt.flags &= !joint_flag::SPRING,
        })
    }

    /// Turns a joint off (it stops acting, and its bodies collide again) or back on.
    ///
    /// # Errors
    /// [`Error::StaleHandle`].
    pub fn set_joint_enabled(&mut self, h: JointHandle, enabled: bool) -> Result<()> {
        self.edit_joint(h, |jt| {
            if enabled {
                jt.flags &= !joint_flag::DISABLED;
            } else {
                jt.flags |= joint_flag::DISABLED;
            }
        })
    }

    /// Whether the joint's two bodies' shapes collide.
    ///
    /// # Errors
    /// [`Error::StaleHandle`].
    pub fn set_joint_collide_connected(&mut self, h: JointHandle, collide: bool) -> Result<()> {
        self.edit_joint(h, |jt| {
            if collide {
                jt.flags |= joint_flag::COLLIDE;
            } else {
                jt.flags &= !joint_flag::COLLIDE;
            }
        })
    }

    /// The joint's record as the last step left it (blocking on the GPU).
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; GPU readback errors.
    pub fn joint(&mut self, h: JointHandle) -> Result<GpuJoint> {
        let i = self.check_joint(h)?;
        self.sync_joints()?;
        Ok(self.joints.table[i])
    }

    /// The force and torque the joint applied in the last step and the step it broke at
    /// (blocking on the GPU).
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; GPU readback errors.
    pub fn joint_feedback(&mut self, h: JointHandle) -> Result<JointFeedback> {
        Ok(JointFeedback::of(&self.joint(h)?))
    }

    /// Where the joint stands at its bodies' current poses: its errors and its coordinate (a
    /// hinge's angle, a slider's position, a distance joint's length). Blocking on the GPU (it
    /// reads both bodies).
    ///
    /// # Errors
    /// [`Error::StaleHandle`]; GPU readback errors.
    pub fn joint_state(&mut self, h: JointHandle) -> Result<JointState> {
        let i = self.check_joint(h)?;
        let jt = self.joints.table[i];
        let bodies = self.read_bodies()?;
        let pose = |b: u32| {
            bodies
                .get(b as usize)
                .map_or((Vec3::ZERO, crate::rigid::math::QUAT_IDENTITY), |body| {
                    (body.pos.xyz(), body.orient)
                })
        };
        Ok(JointState::of(&jt, pose(jt.body_a), pose(jt.body_b)))
    }

    /// Every joint slot in slot order, as the last step left them (blocking on the GPU); see
    /// [`JointHandle::index`]. Free slots are disabled records.
    ///
    /// # Errors
    /// GPU readback errors.
    pub fn read_joints(&mut self) -> Result<Vec<GpuJoint>> {
        self.sync_joints()?;
        Ok(self.joints.table.clone())
    }

    /// Reads the device's impulses and feedback into the host table (the definitions are the
    /// host's already).
    pub(super) fn sync_joints(&mut self) -> Result<()> {
        if let Engine::Gpu(g) = &self.engine {
            let n = self.joints.table.len();
            let device: Vec<GpuJoint> = g.rigid.read(&g.rigid.joints, n)?;
            for (host, dev) in self.joints.table.iter_mut().zip(device) {
                host.impulse_lin = dev.impulse_lin;
                host.impulse_ang = dev.impulse_ang;
                host.impulse_limit = dev.impulse_limit;
                host.feedback = dev.feedback;
            }
        }
        Ok(())
    }

    /// The joints that broke since the last call, each once, in the order their steps'
    /// reports came (on the GPU a report lands a frame or two late: call
    /// [`RigidWorld::poll_reports`] after a `wait` to see the newest). A broken joint acts no
    /// more from the step it broke at; remove it to free its slot.
    ///
    /// # Errors
    /// GPU readback errors, when a step broke more joints than its report lists
    /// ([`counter::JOINT_EVENTS_MAX`]) and the rest are read from the joint table.
    pub fn take_broken_joints(&mut self) -> Result<Vec<JointHandle>> {
        if self.joints.scan {
            self.joints.scan = false;
            self.sync_joints()?;
            let broken: Vec<u32> = (0..self.joints.table.len())
                .filter(|&j| self.joints.table[j].feedback.z.to_bits() != 0)
                .map(|j| j as u32)
                .collect();
            self.joints.note_broken(&broken, self.tag);
        }
        Ok(std::mem::take(&mut self.joints.broken))
    }

    /// Writes the filter's table to the device when the joints changed (before a step).
    pub(super) fn upload_joint_filter(&mut self) {
        if !self.joints.filter_dirty {
            return;
        }
        self.joints.filter_dirty = false;
        if let Engine::Gpu(g) = &self.engine {
            if !self.joints.filter.is_empty() {
                let r = &g.rigid;
                r.write(&r.joint_filter, &self.joints.filter);
            }
        }
    }
}
