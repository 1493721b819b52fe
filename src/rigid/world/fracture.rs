//! The world's side of fracture ([`crate::rigid::fracture`]): the struck blocks the steps
//! listed are split into their 8 pieces (removed, the pieces added as ordinary bodies), and
//! `take_fractures` hands each split out once. On the CPU a block is split right after the
//! step that struck it; on the GPU when that step's report lands (a frame or two late), reading
//! the block's state from the device first (one blocking read per split, which only a fracture
//! costs). A block whose pieces do not fit (the world full with `auto_grow` off) stays whole and
//! struck, and the step reports the error; it is split when room is made.

use super::*;
use crate::rigid::fracture::{self, FractureEvent, MIN_PIECE_HALF};

/// A split block: the removed body, its pieces, where it was struck and how hard.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, PartialEq)]
pub struct Fracture {
    /// The block (removed).
    pub body: BodyHandle,
    /// Its 8 pieces.
    pub pieces: Vec<BodyHandle>,
    /// The struck point (world, where the block was when it was split).
    pub point: Vec3,
    /// The struck point in the block's frame.
    pub local_point: Vec3,
    /// The step that struck the block (on the GPU it is split when that step's report lands).
    pub step: u64,
    /// The contact's impulse over the step (N·s).
    pub impulse: f32,
    /// The block as it was when it was split.
    pub block: GpuBody,
}

/// What the world keeps of fracture.
#[derive(Default)]
pub(super) struct Fractures {
    /// Per body slot: the burst speed of a breakable body (`None`: not breakable).
    pub(super) burst: Vec<Option<f32>>,
    /// Events from the steps, with the step that found them, waiting to be split.
    pub(super) pending: Vec<(u64, FractureEvent)>,
    /// Some step struck more blocks than its counters list: the bodies are searched for the rest.
    pub(super) scan: bool,
    /// Splits not yet handed out.
    pub(super) done: Vec<Fracture>,
}

impl Fractures {
    /// Breakable bodies (the step runs stage `fracture` while there are any).
    pub(super) fn any(&self) -> bool {
        self.burst.iter().any(Option::is_some)
    }

    /// A step's counters: its listed events, and whether it struck more than it lists.
    pub(super) fn note_counters(&mut self, step: u64, counters: &[u32]) {
        let count = counters.get(counter::FRACTURES).copied().unwrap_or(0) as usize;
        let listed = count.min(counter::FRACTURE_EVENTS_MAX);
        let mut events: Vec<FractureEvent> = (0..listed)
            .filter_map(|i| FractureEvent::from_counters(counters, i))
            .collect();
        // The device lists them in the order its threads got there.
        events.sort_by_key(|e| e.body);
        self.pending.extend(events.into_iter().map(|e| (step, e)));
        if count > listed {
            self.scan = true;
        }
    }

    /// Events of CPU step `step`.
    pub(super) fn note_events(&mut self, step: u64, events: Vec<FractureEvent>) {
        self.pending.extend(events.into_iter().map(|e| (step, e)));
    }
}

impl RigidWorld {
    /// Splits the struck blocks the steps listed (see the module docs).
    ///
    /// # Errors
    /// [`Error::Full`] when a block's pieces do not fit (it stays whole and is split later);
    /// GPU readback errors.
    pub(super) fn split_struck(&mut self) -> Result<()> {
        if self.fracture.scan {
            self.fracture.scan = false;
            let bodies = self.read_bodies()?;
            for (i, b) in bodies.iter().enumerate() {
                let listed = self.fracture.pending.iter().any(|e| e.1.body == i as u32);
                let breakable = self.fracture.burst.get(i).copied().flatten().is_some();
                if b.acc.w < 0.0 && breakable && self.alive[i] && !listed {
                    // Not listed: split about the centre, across the local y axis.
                    let event = FractureEvent {
                        body: i as u32,
                        point: Vec3::ZERO,
                        normal: Vec3::Y,
                        impulse: -b.acc.w,
                    };
                    self.fracture.pending.push((self.steps, event));
                }
            }
        }
        let pending = std::mem::take(&mut self.fracture.pending);
        for (n, (step, event)) in pending.iter().enumerate() {
            if let Err(e) = self.split(*step, event) {
                // Kept for the next step, with every event after it.
                self.fracture.pending.extend_from_slice(&pending[n..]);
                return Err(e);
            }
        }
        Ok(())
    }

    /// Splits one struck block into its pieces.
    fn split(&mut self, step: u64, event: &FractureEvent) -> Result<()> {
        let i = event.body as usize;
        let Some(Some(burst)) = self.fracture.burst.get(i).copied() else {
            return Ok(());
        };
        if !self.alive[i] {
            return Ok(());
        }
        let h = BodyHandle {
            index: event.body,
            generation: self.generations[i],
            world: self.tag,
        };
        let body = self.body_raw(h)?;
        let Some(&shape) = self.body_shapes[i].first() else {
            return Ok(());
        };
        let s = self.shapes[shape as usize];
        let half = s.dims.xyz();
        let pieces = fracture::divide(&body, half, event, burst);
        let (orient, spin, (lin_damp, ang_damp), acc) = fracture::inherited(&body);
        let threshold = -body.acc.w;
        // Room for the 8 pieces before the block goes (the block's slot is reused).
        let bodies_needed = self.bodies.len() as u32 + 8;
        let shapes_needed = self.shapes.len() as u32 + 8;
        self.ensure_capacity(bodies_needed, shapes_needed)?;
        let struck = body.pos.xyz() + crate::rigid::math::quat_rotate(body.orient, event.point);
        self.remove_body(h)?;
        let mut handles = Vec::with_capacity(8);
        for p in pieces {
            let mut piece = RigidBody::dynamic()
                .position(p.centre)
                .rotation(glam::Quat::from_xyzw(orient.x, orient.y, orient.z, orient.w).normalize())
                .velocity(p.velocity)
                .angular_velocity(spin)
                .mass(p.mass)
                .damping(lin_damp, ang_damp)
                .acceleration(acc)
                .can_sleep(body.can_sleep != 0);
            if p.half.min_element() >= MIN_PIECE_HALF {
                piece = piece.breakable(threshold, burst);
            }
            let collider = Collider::cuboid(p.half)
                .material(s.material.x, s.material.y)
                .rolling_resistance(s.material.z)
                .groups(s.group, s.mask);
            handles.push(self.add_body(piece, &[collider])?);
        }
        self.fracture.done.push(Fracture {
            body: h,
            pieces: handles,
            point: struck,
            local_point: event.point,
            step,
            impulse: event.impulse,
            block: body,
        });
        Ok(())
    }

    /// The blocks split since the last call, each once, oldest first, with their pieces' handles.
    /// On the GPU a block is split when the report of the step that struck it lands (a frame or
    /// two late): call [`RigidWorld::poll_reports`] after a `wait` to see the newest.
    pub fn take_fractures(&mut self) -> Vec<Fracture> {
        std::mem::take(&mut self.fracture.done)
    }
}
