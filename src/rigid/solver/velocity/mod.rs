//! The velocity stages of the contact solver on the CPU (twins of `solve_warm_apply`,
//! `solve_contact`, `solve_relax` and `solve_restitution` in `shaders/rigid/solve.wgsl`), run
//! over a [`VelocitySet`]: the coloured contacts copied once per step into the order the solver
//! visits them, four at a time in the lanes of a SIMD vector, beside a compact copy of the
//! bodies' velocities.
//!
//! Why it is shaped so:
//! - A point's solve is a chain of about forty dependent operations with three divisions and
//!   a square root, so one contact at a time leaves the CPU waiting on latency. Contacts of a
//!   colour share no dynamic body, so four of them can go through the chain together, one per
//!   lane (Box2D v3's wide solver does the same). Each lane performs the WGSL's operations on
//!   its own contact in the WGSL's order: lane-wise IEEE additions, products, quotients and
//!   square roots round exactly as the scalar ones do, so for finite values the result is the
//!   same bits as solving the contacts one by one (`tests/rigid_solver_passes.rs` checks it
//!   against a scalar reference). A NaN may come out differently: SSE's lane maximum returns its
//!   second operand where `f32::max` returns the number.
//! - Consecutive contacts of the colouring's order are packed into a group of up to four until
//!   one would share a dynamic body with the group; groups run in order. That keeps the
//!   sequential colour (whose contacts do share bodies) exactly sequential, and makes the
//!   packing safe whatever the colouring did.
//! - A sweep streams through the groups in order and touches a compact copy of the bodies
//!   (velocities, inverse mass and world inverse inertia), instead of walking `manifolds`,
//!   `rows` and 240-byte bodies in colour order. What the stages derive from the poses (the arms,
//!   the overlap, the basis) is computed whenever the poses change, with the WGSL's operations
//!   (the GPU recomputes them in every sweep).

use super::lanes::{Ar, Fused, Separate, WMat3, W3};
use super::{contact_basis, point_base, row};
use crate::rigid::colour::Colouring;
use crate::rigid::joint::solve::{self as joint, JointBody};
use crate::rigid::types::*;
use glam::{BVec4A, Mat3, Vec3, Vec4, Vec4Swizzles};

mod rows;
use rows::*;

/// Calls `self.method(ar, args…)` with the lane arithmetic of the rounding the CPU twin is
/// set to ([`crate::rounding`]): [`Fused`] (fused multiply-adds) or [`Separate`]. Each stage is
/// written once, generic over [`Ar`], and monomorphised for both.
macro_rules! in_rounding {
    ($self:ident . $method:ident ( $($arg:expr),* )) => {
        if crate::rounding::fused() {
            $self.$method(Fused, $($arg),*)
        } else {
            $self.$method(Separate, $($arg),*)
        }
    };
}

/// Lanes per group.
const LANES: usize = 4;
const MP: usize = MAX_POINTS as usize;

/// A body as the velocity stages see it: velocities, and the inverse mass and world inverse
/// inertia (zero unless the body is dynamic and awake).
#[derive(Clone, Copy, Debug)]
struct Vel {
    lin: Vec3,
    ang: Vec3,
    inv_mass: f32,
    inv_inertia: Mat3,
    dynamic: bool,
}

impl Vel {
    const WORLD: Vel = Vel {
        lin: Vec3::ZERO,
        ang: Vec3::ZERO,
        inv_mass: 0.0,
        inv_inertia: Mat3::ZERO,
        dynamic: false,
    };
}

/// The bodies on one side of a group's contacts, one per lane.
#[derive(Clone, Copy, Debug, Default)]
struct WBody {
    lin: W3,
    ang: W3,
    inv_mass: Vec4,
    inv_inertia: WMat3,
}

impl WBody {
    fn load(vel: &[Vel], ids: &[u32; LANES]) -> WBody {
        let mut w = WBody::default();
        for (lane, &i) in ids.iter().enumerate() {
            let v = vel.get(i as usize).unwrap_or(&Vel::WORLD);
            w.lin.set(lane, v.lin);
            w.ang.set(lane, v.ang);
            w.inv_mass[lane] = v.inv_mass;
            for (col, c) in w.inv_inertia.c.iter_mut().enumerate() {
                c.set(lane, v.inv_inertia.col(col));
            }
        }
        w
    }

    /// Writes the lanes' velocities back, dynamic bodies only.
    fn store(&self, vel: &mut [Vel], ids: &[u32; LANES], lanes: usize) {
        for (lane, &i) in ids.iter().enumerate().take(lanes) {
            if let Some(v) = vel.get_mut(i as usize) {
                if v.dynamic {
                    v.lin = self.lin.get(lane);
                    v.ang = self.ang.get(lane);
                }
            }
        }
    }
}

/// Up to four contacts solved together: their bodies (indices into the set's bodies, the
/// static world last), basis, friction, restitution and soft-contact coefficients per lane.
#[derive(Clone, Copy, Debug, Default)]
struct Group {
    a: [u32; LANES],
    b: [u32; LANES],
    manifold: [u32; LANES],
    count: [u32; LANES],
    lanes: u32,
    n: W3,
    t1: W3,
    t2: W3,
    mu: Vec4,
    restitution: Vec4,
    /// The radii of the two sides' round surfaces (0 for flat ones; `solver::point_rounds`).
    radius_a: Vec4,
    radius_b: Vec4,
    /// The rolling resistance: the most rolling torque per unit normal impulse (0: none).
    rolling: Vec4,
    /// The soft contact (bias rate, mass scale, impulse scale, max push-out) per lane.
    soft: [Vec4; 4],
}

/// A group's accumulated rolling-resistance impulse, about tangent 1 and tangent 2 per lane.
#[derive(Clone, Copy, Debug, Default)]
struct Roll {
    x: Vec4,
    y: Vec4,
    /// The step's normal impulse so far, added by the warm start while bodies may break
    /// (`GpuManifold::rolling` z; WGSL `solve_warm_bodies`).
    step: Vec4,
}

/// What a colour's sweep visits, in the colouring's order: a run of contact groups
/// (`groups[start..end]`), or a joint's slot (its index in the joint table and its bodies,
/// indices into the set's bodies: `solver::velocity` solves it with `joint::solve`'s rows).
#[derive(Clone, Copy, Debug)]
enum Item {
    Groups(usize, usize),
    Joint(u32, u32, u32),
}

/// Point `i` of a group's contacts: the arms and overlap at the current poses, the diagonal of
/// K, the largest normal impulse so far this step (`kd_w`, kept where the solver rows' unused
/// fourth word was; it goes out in the impulse's fourth word), the start normal velocity, the
/// accumulated impulse in the contact basis (x normal, y and z the tangents), and which lanes
/// have it.
#[derive(Clone, Copy, Debug)]
struct Point {
    ra: W3,
    rb: W3,
    pen: Vec4,
    kd: W3,
    kd_w: Vec4,
    vn0: Vec4,
    impulse: W3,
    live: BVec4A,
}

impl Default for Point {
    fn default() -> Self {
        Point {
            ra: W3::default(),
            rb: W3::default(),
            pen: Vec4::ZERO,
            kd: W3::default(),
            kd_w: Vec4::ZERO,
            vn0: Vec4::ZERO,
            impulse: W3::default(),
            live: BVec4A::FALSE,
        }
    }
}

/// Point `i` of a group's contacts in the bodies' frames, from `solve_prepare`'s rows: the
/// anchors (the arms turned back by the orientations) and the overlap when the narrow phase
/// ran.
#[derive(Clone, Copy, Debug, Default)]
struct Anchor {
    la: W3,
    lb: W3,
    pen0: Vec4,
}

/// The coloured contacts of one step in the solver's order, packed in groups of four, with
/// what the velocity stages read and write. Built by [`VelocitySet::new`] after
/// `solve_prepare`; the impulses (with the largest normal impulses in their fourth words) go
/// back to `manifolds` with [`VelocitySet::store_impulses`].
///
/// The packing and the bodies' roles (dynamic or not, the static world's index) are fixed when
/// the set is built: build a new set when bodies are added, removed, woken or put to sleep
/// (the step does once per step, and nothing of the kind happens inside its substeps).
#[derive(Clone, Debug, Default)]
pub struct VelocitySet {
    groups: Vec<Group>,
    /// `MAX_POINTS` per group.
    points: Vec<Point>,
    /// Beside `points`: the anchors the arms are turned from.
    anchors: Vec<Anchor>,
    /// Beside `groups`: the rolling-resistance impulses.
    rolls: Vec<Roll>,
    /// Per body, then the static world: centre of mass and orientation.
    poses: Vec<(Vec3, Vec4)>,
    /// What each colour visits: `items[colour_items[c]..colour_items[c + 1]]`.
    items: Vec<Item>,
    colour_items: Vec<usize>,
    /// Per body, then the static world.
    vel: Vec<Vel>,
    /// The joint table the joint slots index ([`VelocitySet::load_joints`]; their impulses go
    /// back with [`VelocitySet::store_joints`]).
    joints: Vec<GpuJoint>,
    /// Bodies may break: the warm start adds up each contact's normal impulses
    /// (`GpuRigidParams::fracture`).
    fracture: bool,
}

impl VelocitySet {
    /// Copies the coloured manifolds in `colouring`'s order, with their impulses (from the warm
    /// start), `rows`' diagonals and start velocities, the arms at the bodies' current poses
    /// and the bodies' velocities.
    pub fn new(
        params: &GpuRigidParams,
        colouring: &Colouring,
        bodies: &[GpuBody],
        manifolds: &[GpuManifold],
        rows: &[Vec4],
    ) -> Self {
        Self::packed(params, colouring, bodies, manifolds, rows, LANES)
    }

    /// [`VelocitySet::new`] with one contact per group: the contacts solved one by one, which
    /// is what the packed set must reproduce bit for bit (tests).
    pub fn one_lane(
        params: &GpuRigidParams,
        colouring: &Colouring,
        bodies: &[GpuBody],
        manifolds: &[GpuManifold],
        rows: &[Vec4],
    ) -> Self {
        Self::packed(params, colouring, bodies, manifolds, rows, 1)
    }

    fn packed(
        params: &GpuRigidParams,
        colouring: &Colouring,
        bodies: &[GpuBody],
        manifolds: &[GpuManifold],
        rows: &[Vec4],
        max_lanes: usize,
    ) -> Self {
        let mut set = VelocitySet {
            fracture: params.fracture != 0,
            ..VelocitySet::default()
        };
        let world = bodies.len() as u32;
        let dynamic = |i: u32| {
            bodies
                .get(i as usize)
                .is_some_and(|b| b.kind == body_kind::DYNAMIC && b.awake != 0)
        };
        let index = |i: u32| {
            if (i as usize) < bodies.len() {
                i
            } else {
                world
            }
        };
        set.colour_items.push(0);
        for c in 0..colouring.colour_count {
            let mut open: Option<Group> = None;
            let mut run = set.groups.len();
            for &k in colouring.batch(c) {
                let Some(m) = manifolds.get(k as usize) else {
                    continue;
                };
                let (a, b) = (index(m.body_a), index(m.body_b));
                if m.joint != 0 {
                    // A joint's slot ends the run of groups before it, in the colour's order.
                    set.push_group(open.take(), manifolds, rows);
                    set.end_run(&mut run);
                    set.items.push(Item::Joint(m.joint - 1, a, b));
                    continue;
                }
                // A contact that shares a dynamic body with the open group starts a new one.
                if let Some(g) = &open {
                    let lanes = g.lanes as usize;
                    let shares = |i: u32| {
                        dynamic(i) && (g.a[..lanes].contains(&i) || g.b[..lanes].contains(&i))
                    };
                    if lanes >= max_lanes.clamp(1, LANES) || shares(a) || shares(b) {
                        set.push_group(open.take(), manifolds, rows);
                    }
                }
                let g = open.get_or_insert_with(|| Group {
                    a: [world; LANES],
                    b: [world; LANES],
                    ..Group::default()
                });
                let lane = g.lanes as usize;
                g.lanes += 1;
                g.a[lane] = a;
                g.b[lane] = b;
                g.manifold[lane] = k;
                g.count[lane] = m.count.min(MAX_POINTS);
                let n = m.normal.xyz();
                let (t1, t2) = contact_basis(n);
                g.n.set(lane, n);
                g.t1.set(lane, t1);
                g.t2.set(lane, t2);
                g.mu[lane] = m.normal.w;
                g.restitution[lane] = m.material.x;
                g.radius_a[lane] = m.material.y;
                g.radius_b[lane] = m.material.z;
                g.rolling[lane] = m.material.w;
                let soft = if dynamic(a) && dynamic(b) {
                    params.soft
                } else {
                    params.soft_static
                };
                for (f, s) in g.soft.iter_mut().enumerate() {
                    s[lane] = soft[f];
                }
            }
            set.push_group(open, manifolds, rows);
            set.end_run(&mut run);
            set.colour_items.push(set.items.len());
        }
        set.refresh_poses(bodies);
        set.load_velocities(bodies);
        set
    }

    /// Closes the run of groups from `run` to the last one (if any) and starts the next.
    fn end_run(&mut self, run: &mut usize) {
        if self.groups.len() > *run {
            self.items.push(Item::Groups(*run, self.groups.len()));
        }
        *run = self.groups.len();
    }

    /// Copies the joint table the joint slots index (their impulses from the warm start or the
    /// last step).
    pub fn load_joints(&mut self, joints: &[GpuJoint]) {
        self.joints.clear();
        self.joints.extend_from_slice(joints);
    }

    /// Writes the joints' accumulated impulses back into `joints`.
    pub fn store_joints(&self, joints: &mut [GpuJoint]) {
        for (out, jt) in joints.iter_mut().zip(&self.joints) {
            out.impulse_lin = jt.impulse_lin;
            out.impulse_ang = jt.impulse_ang;
            out.impulse_limit = jt.impulse_limit;
        }
    }

    /// Body `i` of the set (the static world last) as a joint's rows see it.
    fn joint_body(&self, i: u32) -> JointBody {
        let v = self.vel.get(i as usize).copied().unwrap_or(Vel::WORLD);
        let (pos, orient) = self
            .poses
            .get(i as usize)
            .copied()
            .unwrap_or((Vec3::ZERO, Vec4::new(0.0, 0.0, 0.0, 1.0)));
        JointBody {
            pos,
            orient,
            lin: v.lin,
            ang: v.ang,
            inv_mass: v.inv_mass,
            inv_inertia: v.inv_inertia,
        }
    }

    fn store_joint_body(&mut self, i: u32, body: &JointBody) {
        if let Some(v) = self.vel.get_mut(i as usize) {
            if v.dynamic {
                v.lin = body.lin;
                v.ang = body.ang;
            }
        }
    }

    /// A velocity stage on joint `j` between bodies `a` and `b`: the warm start (`stage`
    /// [`JointStage::Warm`]) or a biased or relax sweep.
    fn joint_item(&mut self, params: &GpuRigidParams, stage: JointStage, j: u32, a: u32, b: u32) {
        let Some(mut jt) = self.joints.get(j as usize).copied() else {
            return;
        };
        if j >= params.joint_count {
            return;
        }
        let (mut ba, mut bb) = (self.joint_body(a), self.joint_body(b));
        match stage {
            JointStage::Warm => joint::warm_bodies(&jt, &mut ba, &mut bb),
            JointStage::Solve(use_bias) => {
                joint::solve_bodies(params, &mut jt, use_bias, &mut ba, &mut bb)
            }
        }
        self.store_joint_body(a, &ba);
        self.store_joint_body(b, &bb);
        self.joints[j as usize] = jt;
    }

    /// The items of colour `c`.
    fn colour_range(&self, c: u32) -> std::ops::Range<usize> {
        let c = c as usize;
        match (self.colour_items.get(c), self.colour_items.get(c + 1)) {
            (Some(&s), Some(&e)) => s..e,
            _ => 0..0,
        }
    }

    /// Appends a filled group with its points (impulses, `rows`' data, arms).
    fn push_group(&mut self, group: Option<Group>, manifolds: &[GpuManifold], rows: &[Vec4]) {
        let Some(g) = group else {
            return;
        };
        for i in 0..MP {
            let mut p = Point::default();
            let mut anchor = Anchor::default();
            let mut live = [false; LANES];
            for (lane, flag) in live.iter_mut().enumerate().take(g.lanes as usize) {
                let k = g.manifold[lane] as usize;
                if (i as u32) >= g.count[lane] {
                    continue;
                }
                *flag = true;
                let base = point_base(k, i);
                let (r0, r1) = (row(rows, base), row(rows, base + 1));
                anchor.la.set(lane, r0.xyz());
                anchor.lb.set(lane, r1.xyz());
                anchor.pen0[lane] = r1.w;
                let kd = row(rows, base + 2);
                p.kd.set(lane, kd.xyz());
                p.kd_w[lane] = manifolds.get(k).map_or(0.0, |m| m.impulses[i].w);
                p.vn0[lane] = r0.w;
                if let Some(m) = manifolds.get(k) {
                    p.impulse.set(lane, m.impulses[i].xyz());
                }
            }
            p.live = BVec4A::from_array(live);
            self.points.push(p);
            self.anchors.push(anchor);
        }
        let mut roll = Roll::default();
        for lane in 0..g.lanes as usize {
            if let Some(m) = manifolds.get(g.manifold[lane] as usize) {
                roll.x[lane] = m.rolling.x;
                roll.y[lane] = m.rolling.y;
                roll.step[lane] = m.rolling.z;
            }
        }
        self.rolls.push(roll);
        self.groups.push(g);
    }

    /// Groups of contacts the set holds (at most four contacts each): what the packing achieved.
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// Recomputes every point's arms and overlap from the bodies' current poses (after
    /// `integrate_position` and `ccd` moved them): r = the anchor turned by the orientation and
    /// stepped out to a round surface ([`super::arm`]), pen = pen₀ − n·((x_a + r_a) − (x_b +
    /// r_b)), as `solve_contact_bodies` in solve.wgsl does in every sweep.
    pub fn refresh_poses(&mut self, bodies: &[GpuBody]) {
        in_rounding!(self.refresh_poses_in(bodies));
    }

    fn refresh_poses_in(&mut self, ar: impl Ar, bodies: &[GpuBody]) {
        self.poses.clear();
        self.poses
            .extend(bodies.iter().map(|b| (b.pos.xyz(), b.orient)));
        self.poses.push((Vec3::ZERO, Vec4::new(0.0, 0.0, 0.0, 1.0)));
        let poses = &self.poses;
        let gather = |ids: &[u32; LANES]| {
            let (mut x, mut u, mut w) = (W3::default(), W3::default(), Vec4::ZERO);
            for (lane, &i) in ids.iter().enumerate() {
                let (p, q) = poses.get(i as usize).copied().unwrap_or_default();
                x.set(lane, p);
                u.set(lane, q.xyz());
                w[lane] = q.w;
            }
            (x, u, w)
        };
        let zero = Vec4::ZERO;
        let groups = self.groups.iter();
        let slots = self
            .points
            .chunks_exact_mut(MP)
            .zip(self.anchors.chunks_exact(MP));
        for (g, (pts, anchors)) in groups.zip(slots) {
            let (xa, ua, wa) = gather(&g.a);
            let (xb, ub, wb) = gather(&g.b);
            for (p, an) in pts.iter_mut().zip(anchors) {
                if !p.live.any() {
                    continue;
                }
                let half = Vec4::splat(0.5) * an.pen0;
                let round_a = Vec4::select(g.radius_a.cmpne(zero), g.radius_a - half, zero);
                let round_b = -Vec4::select(g.radius_b.cmpne(zero), g.radius_b - half, zero);
                p.ra = arm(ar, ua, wa, an.la, g.n, round_a);
                p.rb = arm(ar, ub, wb, an.lb, g.n, round_b);
                p.pen = an.pen0 - ar.dot(g.n, xa.add(p.ra).sub(xb.add(p.rb)));
            }
        }
    }

    /// Copies the bodies' velocities, inverse masses and world inverse inertias in (after
    /// `integrate_velocity` or `integrate_position` changed them).
    pub fn load_velocities(&mut self, bodies: &[GpuBody]) {
        self.vel.clear();
        self.vel.extend(bodies.iter().map(|b| {
            let mut v = Vel {
                lin: b.lin_vel.xyz(),
                ang: b.ang_vel.xyz(),
                ..Vel::WORLD
            };
            if b.kind == body_kind::DYNAMIC && b.awake != 0 {
                v.inv_mass = b.pos.w;
                v.inv_inertia = Mat3::from_cols(
                    b.inv_inertia_world[0].xyz(),
                    b.inv_inertia_world[1].xyz(),
                    b.inv_inertia_world[2].xyz(),
                );
                v.dynamic = true;
            }
            v
        }));
        self.vel.push(Vel::WORLD);
    }

    /// Writes the dynamic bodies' velocities back.
    pub fn store_velocities(&self, bodies: &mut [GpuBody]) {
        for (b, v) in bodies.iter_mut().zip(&self.vel) {
            if v.dynamic {
                b.lin_vel = v.lin.extend(b.lin_vel.w);
                b.ang_vel = v.ang.extend(b.ang_vel.w);
            }
        }
    }

    /// Writes the accumulated impulses into `manifolds`, where the next step's warm start finds
    /// them, with each point's largest normal impulse of this step in the fourth word, as the
    /// GPU leaves it (the warm start sets it back to 0), and the rolling resistance's.
    pub fn store_impulses(&self, manifolds: &mut [GpuManifold]) {
        for (j, g) in self.groups.iter().enumerate() {
            for lane in 0..g.lanes as usize {
                let k = g.manifold[lane] as usize;
                let Some(m) = manifolds.get_mut(k) else {
                    continue;
                };
                let r = &self.rolls[j];
                if g.rolling[lane] > 0.0 {
                    m.rolling = Vec4::new(r.x[lane], r.y[lane], m.rolling.z, m.rolling.w);
                }
                if self.fracture {
                    m.rolling.z = r.step[lane];
                }
                for i in 0..g.count[lane] as usize {
                    let p = &self.points[j * MP + i];
                    m.impulses[i] = p.impulse.get(lane).extend(p.kd_w[lane]);
                }
            }
        }
    }

    /// Groups `s..e` with their points and rolling impulses, and the bodies.
    fn run(&mut self, s: usize, e: usize) -> (&[Group], &mut [Point], &mut [Roll], &mut [Vel]) {
        (
            &self.groups[s..e],
            &mut self.points[s * MP..e * MP],
            &mut self.rolls[s..e],
            &mut self.vel,
        )
    }

    /// Stage `solve_warm_apply` for colour `c`: applies each point's accumulated impulse (set
    /// by `warm_start`) once, before the substep's first velocity iteration.
    pub fn solve_warm_apply(&mut self, params: &GpuRigidParams, c: u32) {
        for i in self.colour_range(c) {
            match self.items[i] {
                Item::Groups(s, e) => in_rounding!(self.warm_apply_in(s, e)),
                Item::Joint(j, a, b) => self.joint_item(params, JointStage::Warm, j, a, b),
            }
        }
    }

    fn warm_apply_in(&mut self, ar: impl Ar, s: usize, e: usize) {
        let fracture = self.fracture;
        let (groups, points, rolls, vel) = self.run(s, e);
        let slots = points.chunks_exact(MP).zip(rolls.iter_mut());
        for (g, (pts, roll)) in groups.iter().zip(slots) {
            let (mut a, mut b) = (WBody::load(vel, &g.a), WBody::load(vel, &g.b));
            // A lane without point i adds +0, as the WGSL's loop ends at its count.
            let mut total = Vec4::ZERO;
            for p in pts.iter().filter(|p| p.live.any()) {
                let i = p.impulse;
                let imp = ar.madd3(g.t2, i.z, ar.madd3(g.t1, i.y, g.n.scale(i.x)));
                apply_impulse(ar, &mut a, &mut b, imp, p.ra, p.rb, p.live);
                total += Vec4::select(p.live, i.x, Vec4::ZERO);
            }
            if fracture {
                roll.step += total;
            }
            let rolling = g.rolling.cmpgt(Vec4::ZERO);
            if rolling.any() {
                let imp = ar.madd3(g.t2, roll.y, g.t1.scale(roll.x));
                apply_angular(ar, &mut a, &mut b, imp, rolling);
            }
            a.store(vel, &g.a, g.lanes as usize);
            b.store(vel, &g.b, g.lanes as usize);
        }
    }

    /// Stage `solve_contact` for colour `c`, one biased iteration of the soft step: per point,
    /// the normal row, then the friction rows.
    ///
    /// The normal row sees the point's current overlap, tracked from the anchors as the bodies
    /// move through the substeps (pen = pen₀ − n·((x_a + r_a) − (x_b + r_b)), the anchors'
    /// world positions coincided when the narrow phase ran), minus `position_slop`. Apart
    /// (s > 0) the bias lets the gap close within the substep and no faster (speculative
    /// contact); overlapping, the soft contact of [`super::soft_contact`] pushes out at most at
    /// `max_push_out`. The accumulated normal impulse stays ≥ 0. Friction is rigid, each
    /// tangent with its own effective mass, accumulated and clamped to the disc μ·λn
    /// (isotropic Coulomb). Only increments are applied.
    pub fn solve_contact(&mut self, params: &GpuRigidParams, c: u32) {
        self.sweep(params, c, true);
    }

    /// Stage `solve_relax` for colour `c`: [`Self::solve_contact`] without the soft bias (a
    /// rigid constraint on the normal velocity; a gap still closes no faster than it allows),
    /// after the substep's positions moved, so the speed the push-out gave does not carry into
    /// the next substep as a bounce.
    pub fn solve_relax(&mut self, params: &GpuRigidParams, c: u32) {
        self.sweep(params, c, false);
    }

    fn sweep(&mut self, params: &GpuRigidParams, c: u32, use_bias: bool) {
        for i in self.colour_range(c) {
            match self.items[i] {
                Item::Groups(s, e) => in_rounding!(self.sweep_in(params, s, e, use_bias)),
                Item::Joint(j, a, b) => {
                    self.joint_item(params, JointStage::Solve(use_bias), j, a, b)
                }
            }
        }
    }

    fn sweep_in(
        &mut self,
        ar: impl Ar,
        params: &GpuRigidParams,
        s: usize,
        e: usize,
        use_bias: bool,
    ) {
        let (groups, points, rolls, vel) = self.run(s, e);
        let slots = points.chunks_exact_mut(MP).zip(rolls.iter_mut());
        for (g, (pts, roll)) in groups.iter().zip(slots) {
            let (mut a, mut b) = (WBody::load(vel, &g.a), WBody::load(vel, &g.b));
            // The points' normal impulses after this sweep, summed in point order as the WGSL
            // does (a lane without point i adds +0, which changes no sum of impulses ≥ 0).
            let mut total_normal = Vec4::ZERO;
            for p in pts.iter_mut().filter(|p| p.live.any()) {
                contact_point(ar, params, use_bias, g, &mut a, &mut b, p);
                total_normal += Vec4::select(p.live, p.impulse.x, Vec4::ZERO);
            }
            let rolling = g.rolling.cmpgt(Vec4::ZERO);
            if rolling.any() {
                rolling_row(ar, g, &mut a, &mut b, roll, total_normal, rolling);
            }
            a.store(vel, &g.a, g.lanes as usize);
            b.store(vel, &g.b, g.lanes as usize);
        }
    }

    /// Stage `solve_restitution` for colour `c`, once per step after the substeps: a point that
    /// closed faster than `restitution_cutoff` when the step began and that the substeps pushed
    /// on gets the normal velocity −e·v_n(start), through the accumulated normal impulse (which
    /// stays ≥ 0). Closing speeds below the cut-off do not bounce (the book's resting-contact
    /// rule).
    /// Joints have no restitution.
    pub fn solve_restitution(&mut self, params: &GpuRigidParams, c: u32) {
        for i in self.colour_range(c) {
            if let Item::Groups(s, e) = self.items[i] {
                in_rounding!(self.restitution_in(params, s, e));
            }
        }
    }

    fn restitution_in(&mut self, ar: impl Ar, params: &GpuRigidParams, s: usize, e: usize) {
        let (groups, points, _, vel) = self.run(s, e);
        let zero = Vec4::ZERO;
        for (g, pts) in groups.iter().zip(points.chunks_exact_mut(MP)) {
            let e = g.restitution;
            // Each mask is the negation of the scalar code's skip condition, so a NaN skips or
            // solves as it does there.
            let bouncy = !e.cmple(zero);
            if !bouncy.any() {
                continue;
            }
            let (mut a, mut b) = (WBody::load(vel, &g.a), WBody::load(vel, &g.b));
            for p in pts.iter_mut() {
                let slow = (-p.vn0).cmplt(Vec4::splat(params.restitution_cutoff));
                let idle = p.kd_w.cmple(zero) | p.kd.x.cmple(zero);
                let live = p.live & bouncy & !(slow | idle);
                if !live.any() {
                    continue;
                }
                let vn = ar.dot(relative_velocity(ar, &a, &b, p.ra, p.rb), g.n);
                let old = p.impulse;
                let normal = (old.x - ar.div(ar.madd(e, p.vn0, vn), p.kd.x)).max(zero);
                // Keep the accumulated pair inside the cone when the bounce lowered λn.
                let planar = ar.sqrt(ar.madd(old.z, old.z, old.y * old.y));
                let limit = g.mu * normal;
                let shrink = Vec4::select(planar.cmpgt(zero), ar.div(limit, planar), zero);
                let over = planar.cmpgt(limit);
                let kept_y = Vec4::select(over, old.y * shrink, old.y);
                let kept_z = Vec4::select(over, old.z * shrink, old.z);
                let imp = ar.madd3(
                    g.t2,
                    kept_z - old.z,
                    ar.madd3(g.t1, kept_y - old.y, g.n.scale(normal - old.x)),
                );
                apply_impulse(ar, &mut a, &mut b, imp, p.ra, p.rb, live);
                let new = W3 {
                    x: normal,
                    y: kept_y,
                    z: kept_z,
                };
                p.impulse = W3::select(live, new, old);
            }
            a.store(vel, &g.a, g.lanes as usize);
            b.store(vel, &g.b, g.lanes as usize);
        }
    }
}

/// Which velocity stage a joint's slot runs.
#[derive(Clone, Copy, Debug)]
enum JointStage {
    /// `solve_warm_apply`.
    Warm,
    /// `solve_contact` (true: biased) or `solve_relax`.
    Solve(bool),
}
