//! Colliders as things of their own (issue 34, item 3): a [`ColliderHandle`] for each, read
//! back as a [`Collider`], added to and removed from a live body, and changed between steps
//! (material, sensor flag, collision filter, shape). Each call checks the handle and the value
//! first and changes nothing on an error.
//!
//! A collider lives in a shape slot (`RigidWorld::shapes`, mirrored in the GPU `shapes`
//! buffer); its handle holds the slot, the slot's generation and the world's tag. Removing the
//! collider, or its body, frees the slot and raises its generation, so the old handle is refused
//! as [`Error::StaleHandle`] with `kind: "collider"`, as is a handle of another world.
//!
//! Anything that changes the body's mass distribution (adding, removing or reshaping a
//! collider, or turning it into a sensor or back) recomputes the body's mass, centre of mass
//! and inertia by the rules of [`crate::rigid::mass`], keeping a mass, centre or inertia the
//! user set explicitly. A change of the mass properties reads the body from the device first
//! on the GPU (blocking), so the new world-frame inertia is turned by the body's orientation
//! now, and a change that moves the centre moves the body's record and what hangs on it so
//! that nothing moves in the world (`world/centre.rs`). An edit that leaves them as they are
//! (a material, a filter) reads and writes nothing of the body but wakes it.

use super::*;
use crate::rigid::mass::{mass_properties, MassProps, ShapeMass};

impl RigidWorld {
    /// Puts `s` (with its part in its body's mass, `m`) into a free shape slot or a new one.
    pub(super) fn fill_shape_slot(&mut self, s: GpuShape, m: ShapeMass) -> u32 {
        match self.free_shapes.pop() {
            Some(id) => {
                self.shapes[id as usize] = s;
                self.shape_mass[id as usize] = m;
                id
            }
            None => {
                self.shapes.push(s);
                self.shape_mass.push(m);
                self.shape_generations.push(0);
                self.shapes.len() as u32 - 1
            }
        }
    }

    /// Frees shape slot `id` (its handles go stale); the caller writes it to the GPU.
    pub(super) fn free_shape_slot(&mut self, id: u32) {
        let i = id as usize;
        self.shapes[i] = GpuShape {
            body: NONE,
            ..Default::default()
        };
        self.shape_mass[i] = ShapeMass::default();
        self.shape_generations[i] = self.shape_generations[i].wrapping_add(1);
        self.free_shapes.push(id);
    }

    /// The shape slot of `h` and its body's slot.
    fn check_collider(&self, h: ColliderHandle) -> Result<(usize, usize)> {
        let i = h.index as usize;
        match self.shapes.get(i) {
            Some(s)
                if h.world == self.tag
                    && s.body != NONE
                    && self.shape_generations[i] == h.generation =>
            {
                Ok((i, s.body as usize))
            }
            _ => Err(Error::StaleHandle {
                kind: "collider",
                id: h.index,
            }),
        }
    }

    fn collider_handle(&self, id: u32) -> ColliderHandle {
        ColliderHandle {
            index: id,
            generation: self.shape_generations[id as usize],
            world: self.tag,
        }
    }

    fn body_handle(&self, i: usize) -> BodyHandle {
        BodyHandle {
            index: i as u32,
            generation: self.generations[i],
            world: self.tag,
        }
    }

    fn body_kind_at(&self, i: usize) -> BodyKind {
        match self.bodies[i].kind {
            body_kind::DYNAMIC => BodyKind::Dynamic,
            body_kind::KINEMATIC => BodyKind::Kinematic,
            _ => BodyKind::Static,
        }
    }

    /// The handle of the live collider in shape slot `slot` ([`ColliderHandle::index`]);
    /// `None` for a free or unused slot. A loaded world's colliders keep their saved slots and
    /// generations: this is the handle for a saved one's index.
    pub fn collider_handle_at(&self, slot: u32) -> Option<ColliderHandle> {
        let live = self
            .shapes
            .get(slot as usize)
            .is_some_and(|s| s.body != NONE);
        live.then(|| self.collider_handle(slot))
    }

    /// Whether `h` names a live collider of this world.
    pub fn contains_collider(&self, h: ColliderHandle) -> bool {
        self.check_collider(h).is_ok()
    }

    /// The handles of a body's colliders, in the order they were added (those given to
    /// [`RigidWorld::add_body`] first).
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for a removed body or another world's handle.
    pub fn colliders_of(&self, body: BodyHandle) -> Result<Vec<ColliderHandle>> {
        let i = self.check(body)?;
        Ok(self.body_shapes[i]
            .iter()
            .map(|&id| self.collider_handle(id))
            .collect())
    }

    /// The body a collider is attached to.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] (`kind: "collider"`) for a removed collider or another world's
    /// handle.
    pub fn collider_body(&self, h: ColliderHandle) -> Result<BodyHandle> {
        let (_, b) = self.check_collider(h)?;
        Ok(self.body_handle(b))
    }

    /// The collider as it is now: its shape, placement, material, filter, sensor flag and
    /// density. A plane's normal reads back normalised (its offset scaled with it); a hull of a
    /// loaded world is cooked again from the stored hull (the same solid, a new `Arc`).
    ///
    /// # Errors
    /// [`Error::StaleHandle`] (`kind: "collider"`) for a removed collider or another world's
    /// handle.
    pub fn collider(&self, h: ColliderHandle) -> Result<Collider> {
        let (i, _) = self.check_collider(h)?;
        let s = &self.shapes[i];
        let d = s.dims;
        let shape = match s.kind {
            shape_kind::SPHERE => Shape::Sphere { radius: d.x },
            shape_kind::BOX => Shape::Cuboid {
                half_extents: d.xyz(),
            },
            shape_kind::CAPSULE => Shape::Capsule {
                radius: d.x,
                half_height: d.y,
            },
            shape_kind::HALF_SPACE => Shape::HalfSpace {
                normal: d.xyz(),
                offset: d.w,
            },
            shape_kind::PLANE => Shape::Plane {
                normal: d.xyz(),
                offset: d.w,
            },
            shape_kind::MESH => Shape::TriMesh {
                mesh: self.hulls.mesh_at(d.x as u32)?,
            },
            shape_kind::HEIGHTFIELD => Shape::HeightField {
                field: self.hulls.heightfield_at(d.x as u32)?,
            },
            _ => Shape::ConvexHull {
                hull: self.hulls.hull_at(d.x as u32)?,
            },
        };
        let m = s.material;
        Ok(Collider {
            shape,
            // The slot's offset is taken from the body's centre of mass (`rigid::mass`).
            offset: s.offset_pos.xyz() + self.centre_at(s.body as usize),
            rotation: glam::Quat::from_vec4(s.offset_rot),
            friction: m.x,
            restitution: m.y,
            rolling_resistance: m.z,
            group: s.group,
            mask: s.mask,
            sensor: m.w != 0.0,
            density: self.shape_mass[i].density,
        })
    }

    /// Attaches `collider` to a live body, checked as the colliders of
    /// [`RigidWorld::add_body`] are, and recomputes the body's mass properties
    /// ([`crate::rigid::mass`]); wakes the body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] for the body; [`Error::InvalidInput`] for a bad collider (as
    /// `add_body`), a plane on a moving body, a breakable body (it keeps its one box), or
    /// mass properties the body cannot carry; [`Error::Full`] when the shape slots are full
    /// and `auto_grow` is off; [`Error::TooMany`] for a hull store that would overflow.
    pub fn add_collider(&mut self, body: BodyHandle, collider: Collider) -> Result<ColliderHandle> {
        self.on_device("adding a collider", |w| {
            w.add_collider_unguarded(body, collider)
        })
    }

    fn add_collider_unguarded(
        &mut self,
        body: BodyHandle,
        collider: Collider,
    ) -> Result<ColliderHandle> {
        let b = self.check(body)?;
        self.refuse_breakable(b, "adding a collider to")?;
        let mut s = collider.to_gpu(b as u32, self.body_kind_at(b))?;
        s.offset_pos -= self.centre_at(b).extend(0.0);
        self.hulls.check(std::slice::from_ref(&collider))?;
        let part = collider.mass_part();
        let mut parts = self.parts_of(b, None);
        parts.push(part);
        let mass = self.mass_of(b, &parts)?;
        self.sync_for_centre(b, &mass)?;
        let need = self.shapes.len() as u32 + u32::from(self.free_shapes.is_empty());
        self.ensure_capacity(self.bodies.len() as u32, need)?;
        self.hulls.store(
            std::slice::from_ref(&collider),
            std::slice::from_mut(&mut s),
        )?;
        if let Engine::Gpu(g) = &mut self.engine {
            self.hulls.upload(&mut g.rigid)?;
        }
        let before = self.ccd_convex_count(&self.bodies[b], &self.body_shapes[b]);
        let id = self.fill_shape_slot(s, part);
        self.body_shapes[b].push(id);
        let after = self.ccd_convex_count(&self.bodies[b], &self.body_shapes[b]);
        self.ccd_convex_shapes = self.ccd_convex_shapes - before + after;
        self.shape_changed(id);
        self.set_mass(b, mass)?;
        Ok(self.collider_handle(id))
    }

    /// Removes a collider from its body (its handle goes stale; the body stays, even with no
    /// collider left) and recomputes the body's mass properties ([`crate::rigid::mass`]);
    /// wakes the body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] (`kind: "collider"`); [`Error::InvalidInput`] for the box of a
    /// breakable body.
    pub fn remove_collider(&mut self, h: ColliderHandle) -> Result<()> {
        let (i, b) = self.check_collider(h)?;
        self.refuse_breakable(b, "removing a collider from")?;
        let parts = self.parts_of(b, Some(i as u32));
        let mass = self.mass_of(b, &parts)?;
        self.sync_for_centre(b, &mass)?;
        let before = self.ccd_convex_count(&self.bodies[b], &self.body_shapes[b]);
        self.body_shapes[b].retain(|&id| id as usize != i);
        let after = self.ccd_convex_count(&self.bodies[b], &self.body_shapes[b]);
        self.ccd_convex_shapes = self.ccd_convex_shapes - before + after;
        self.free_shape_slot(i as u32);
        self.shape_changed(i as u32);
        self.set_mass(b, mass)
    }

    /// Sets a collider's Coulomb friction (>= 0), as [`Collider::material`]; wakes its body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] (`kind: "collider"`); [`Error::InvalidInput`] for a negative or
    /// non-finite friction.
    pub fn set_collider_friction(&mut self, h: ColliderHandle, friction: f32) -> Result<()> {
        let mut c = self.collider(h)?;
        c.friction = friction;
        self.replace_collider(h, c, false)
    }

    /// Sets a collider's restitution (in [0, 1]), as [`Collider::material`]; wakes its body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] (`kind: "collider"`); [`Error::InvalidInput`] for a restitution
    /// outside [0, 1].
    pub fn set_collider_restitution(&mut self, h: ColliderHandle, restitution: f32) -> Result<()> {
        let mut c = self.collider(h)?;
        c.restitution = restitution;
        self.replace_collider(h, c, false)
    }

    /// Sets a collider's rolling resistance (>= 0, see [`Collider::rolling_resistance`]);
    /// wakes its body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] (`kind: "collider"`); [`Error::InvalidInput`] for a negative or
    /// non-finite coefficient.
    pub fn set_collider_rolling_resistance(
        &mut self,
        h: ColliderHandle,
        coefficient: f32,
    ) -> Result<()> {
        let mut c = self.collider(h)?;
        c.rolling_resistance = coefficient;
        self.replace_collider(h, c, false)
    }

    /// Makes a collider a sensor or a solid again ([`Collider::sensor`]): a sensor pushes
    /// nothing and has no mass, so the body's mass properties are recomputed; wakes its body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] (`kind: "collider"`); [`Error::InvalidInput`] when the body's
    /// mass properties would not be invertible.
    pub fn set_collider_sensor(&mut self, h: ColliderHandle, sensor: bool) -> Result<()> {
        let mut c = self.collider(h)?;
        c.sensor = sensor;
        self.replace_collider(h, c, false)
    }

    /// Sets a collider's collision group and mask bits ([`Collider::groups`]); wakes its body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] (`kind: "collider"`).
    pub fn set_collider_groups(&mut self, h: ColliderHandle, group: u32, mask: u32) -> Result<()> {
        let mut c = self.collider(h)?;
        c.group = group;
        c.mask = mask;
        self.replace_collider(h, c, false)
    }

    /// Gives a collider another shape or size, checked exactly as a new collider's, and
    /// recomputes its body's mass properties ([`crate::rigid::mass`]); wakes the body.
    ///
    /// # Errors
    /// [`Error::StaleHandle`] (`kind: "collider"`); [`Error::InvalidInput`] for a bad shape,
    /// a plane on a moving body, a breakable body's box made another shape; [`Error::TooMany`]
    /// for a hull store that would overflow.
    pub fn set_collider_shape(&mut self, h: ColliderHandle, shape: Shape) -> Result<()> {
        let mut c = self.collider(h)?;
        let (_, b) = self.check_collider(h)?;
        if !matches!(shape, Shape::Cuboid { .. }) {
            self.refuse_breakable(b, "changing the box of")?;
        }
        c.shape = shape;
        self.on_device("changing a collider's shape", |w| {
            w.replace_collider(h, c, true)
        })
    }

    /// Puts `c` in the place of `h`'s collider (its slot, handle and body kept), checked first;
    /// `reshape`: its shape is new (else the slot keeps its shape, and a hull its stored copy).
    fn replace_collider(&mut self, h: ColliderHandle, c: Collider, reshape: bool) -> Result<()> {
        let (i, b) = self.check_collider(h)?;
        let mut s = c.to_gpu(b as u32, self.body_kind_at(b))?;
        s.offset_pos -= self.centre_at(b).extend(0.0);
        if !reshape {
            s.dims = self.shapes[i].dims;
            let part = self.shape_mass[i];
            let mass = self.mass_of(
                b,
                &self.parts_with(
                    b,
                    i,
                    ShapeMass {
                        sensor: c.sensor,
                        ..part
                    },
                ),
            )?;
            self.sync_for_centre(b, &mass)?;
            self.shapes[i] = s;
            self.shape_mass[i].sensor = c.sensor;
            self.write_shape(i as u32);
            return self.set_mass(b, mass);
        }
        self.hulls.check(std::slice::from_ref(&c))?;
        let part = c.mass_part();
        let mass = self.mass_of(b, &self.parts_with(b, i, part))?;
        self.sync_for_centre(b, &mass)?;
        self.hulls
            .store(std::slice::from_ref(&c), std::slice::from_mut(&mut s))?;
        if let Engine::Gpu(g) = &mut self.engine {
            self.hulls.upload(&mut g.rigid)?;
        }
        let before = self.ccd_convex_count(&self.bodies[b], &self.body_shapes[b]);
        let old = self.shapes[i];
        self.shapes[i] = s;
        self.shape_mass[i] = part;
        let after = self.ccd_convex_count(&self.bodies[b], &self.body_shapes[b]);
        self.ccd_convex_shapes = self.ccd_convex_shapes - before + after;
        if old.kind != s.kind || old.dims != s.dims || old.offset_pos != s.offset_pos {
            self.plan_dirty = true;
        }
        self.write_shape(i as u32);
        self.set_mass(b, mass)
    }

    fn refuse_breakable(&self, b: usize, doing: &'static str) -> Result<()> {
        if self.fracture.burst.get(b).copied().flatten().is_some() {
            return Err(Error::InvalidInput {
                what: "collider change",
                value: format!("{doing} breakable body {b}"),
                fix: "a breakable body keeps its one box collider at its centre (a box may \
                      change size with set_collider_shape); make the body without \
                      .breakable(..) to change its colliders",
            });
        }
        Ok(())
    }

    /// The mass parts of body `b`'s colliders with shape slot `i`'s replaced by `part`.
    fn parts_with(&self, b: usize, i: usize, part: ShapeMass) -> Vec<ShapeMass> {
        self.body_shapes[b]
            .iter()
            .map(|&id| {
                if id as usize == i {
                    part
                } else {
                    self.shape_mass[id as usize]
                }
            })
            .collect()
    }

    /// The mass parts of body `b`'s colliders, without shape slot `without`.
    fn parts_of(&self, b: usize, without: Option<u32>) -> Vec<ShapeMass> {
        self.body_shapes[b]
            .iter()
            .filter(|&&id| Some(id) != without)
            .map(|&id| self.shape_mass[id as usize])
            .collect()
    }

    /// The mass properties of body `b` with the colliders `parts` (`None` for a body that is
    /// not dynamic).
    fn mass_of(&self, b: usize, parts: &[ShapeMass]) -> Result<Option<MassProps>> {
        if self.bodies[b].kind != body_kind::DYNAMIC {
            return Ok(None);
        }
        mass_properties(&self.mass_specs[b], parts).map(Some)
    }

    /// Reads body `b` from the device first (GPU) when `mass` changes its inertia or moves
    /// its centre of mass: the world-frame inertia and the centre's shift are turned by its
    /// orientation now (`world/centre.rs`). Called before anything changes, so a failed read
    /// changes nothing; an edit that leaves the mass properties as they are (a material, a
    /// filter) reads nothing.
    fn sync_for_centre(&mut self, b: usize, mass: &Option<MassProps>) -> Result<()> {
        match mass {
            Some(props) if self.mass_changes(b, props) => self.sync_body(b),
            _ => Ok(()),
        }
    }

    /// Whether `props` differ from body `b`'s record (inverse mass and inertia) or centre.
    fn mass_changes(&self, b: usize, props: &MassProps) -> bool {
        let body = &self.bodies[b];
        props.centre != self.centre_at(b)
            || body.pos.w != 1.0 / props.mass
            || body.inv_inertia != crate::rigid::math::cols_of(props.inv_inertia)
    }

    /// Writes body `b`'s new mass properties (if dynamic and changed), moving its centre of
    /// mass where they put it (`world/centre.rs`), and wakes it.
    fn set_mass(&mut self, b: usize, mass: Option<MassProps>) -> Result<()> {
        if let Some(props) = mass.filter(|p| self.mass_changes(b, p)) {
            self.move_centre(b, props.centre)?;
            let cols = crate::rigid::math::cols_of(props.inv_inertia);
            let world =
                crate::rigid::integrate::world_inverse_inertia(self.bodies[b].orient, &cols);
            self.write_field(b, offset_of!(GpuBody, pos) + 12, 1.0 / props.mass);
            self.write_field(b, offset_of!(GpuBody, inv_inertia), cols);
            self.write_field(b, offset_of!(GpuBody, inv_inertia_world), world);
        }
        self.wake_index(b);
        Ok(())
    }

    /// A shape slot added or freed: the broad phase is planned again and the slot written.
    fn shape_changed(&mut self, id: u32) {
        self.plan_dirty = true;
        self.write_shape(id);
    }

    /// Writes shape slot `id` to the GPU; the scene queries' grid is built again on the next
    /// query (a collider's size, groups or sensor flag are what it sorts and filters by).
    pub(super) fn write_shape(&mut self, id: u32) {
        self.query_epoch = self.query_epoch.wrapping_add(1);
        if let Engine::Gpu(g) = &self.engine {
            let r = &g.rigid;
            r.write_at(&r.shapes, shape_offset(id), &[self.shapes[id as usize]]);
        }
    }
}
