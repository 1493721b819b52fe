//! Scene queries with a filter, answered with handles: the nearest ray hit, every ray hit, the
//! colliders holding a point, the colliders whose bounding boxes meet a box. They read the
//! newest bodies the host has without blocking: on the CPU the bodies now; on the GPU the
//! newest copy that landed ([`RigidWorld::latest_bodies`]: turn on
//! [`RigidWorld::set_body_tracking`] for one every frame, a frame or two behind) or the last
//! blocking read, else the host's copy. Each walks every shape (no acceleration structure yet).

use super::*;
use crate::rigid::ray::{ray_shape, Ray};

/// Which colliders a query sees: those whose collision groups pass `groups` as two colliders'
/// would ([`Collider::groups`](crate::rigid::Collider::groups)), not on an excluded body, and
/// (with [`QueryFilter::dynamic_only`]) on dynamic bodies only.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryFilter {
    /// (group, mask) of the query: a collider is seen when `collider.group & mask != 0` and
    /// `group & collider.mask != 0`; `None` sees every collider.
    pub groups: Option<(u32, u32)>,
    /// Bodies whose colliders are not seen (the caster itself, say).
    pub exclude: Vec<BodyHandle>,
    /// See the colliders of dynamic bodies only.
    pub dynamic_only: bool,
}

impl QueryFilter {
    /// A filter that sees every collider.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sees only colliders whose groups pass (group, mask), as a collider of those groups would.
    #[must_use]
    pub fn groups(mut self, group: u32, mask: u32) -> Self {
        self.groups = Some((group, mask));
        self
    }
    /// Does not see `body`'s colliders.
    #[must_use]
    pub fn exclude(mut self, body: BodyHandle) -> Self {
        self.exclude.push(body);
        self
    }
    /// Sees only the colliders of dynamic bodies.
    #[must_use]
    pub fn dynamic_only(mut self) -> Self {
        self.dynamic_only = true;
        self
    }
}

/// A collider a query found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueryHit {
    /// Its body.
    pub body: BodyHandle,
    /// Its shape slot.
    pub shape: u32,
    /// Distance along the ray (0 for a ray starting inside, and for point and box queries).
    pub t: f32,
    /// The hit point (the query point for point and box queries).
    pub point: Vec3,
    /// The outward normal at the hit (zero for point and box queries).
    pub normal: Vec3,
}

impl RigidWorld {
    /// On the GPU, the newest copy of the bodies that landed when it holds every slot (queries
    /// read it; else, and on the CPU, the host's table: see the module docs). An `Arc` of the
    /// copy, not the bodies themselves.
    fn query_snapshot(&self) -> Option<crate::rigid::BodySnapshot> {
        match &self.engine {
            Engine::Gpu(_) => self
                .latest_bodies()
                .filter(|s| s.raw().len() == self.bodies.len()),
            Engine::Cpu(_) => None,
        }
    }

    /// The shapes `filter` lets a query see, with their bodies' handles.
    fn query_shapes(&self, filter: &QueryFilter) -> Result<Vec<(usize, BodyHandle)>> {
        if let Some((group, mask)) = filter.groups {
            if group == 0 || mask == 0 {
                return Err(Error::InvalidInput {
                    what: "query filter groups",
                    value: format!("group {group:#x}, mask {mask:#x}"),
                    fix: "a zero group or mask sees no collider: give both at least one bit \
                          (QueryFilter::new() sees every collider)",
                });
            }
        }
        Ok(self
            .shapes
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind != 0)
            .filter_map(|(i, s)| Some((i, self.body_handle_at(s.body)?, s)))
            .filter(|(_, h, s)| {
                let groups = filter
                    .groups
                    .is_none_or(|(group, mask)| s.group & mask != 0 && group & s.mask != 0);
                let kind = self.bodies[h.index as usize].kind;
                groups
                    && !filter.exclude.contains(h)
                    && (!filter.dynamic_only || kind == body_kind::DYNAMIC)
            })
            .map(|(i, h, _)| (i, h))
            .collect())
    }

    /// Every collider `filter` sees that `ray` hits within its length, nearest first (equal
    /// distances by shape slot).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for a filter that sees nothing (a zero group or mask).
    pub fn cast_ray_all(&self, ray: &Ray, filter: &QueryFilter) -> Result<Vec<QueryHit>> {
        let snapshot = self.query_snapshot();
        let bodies = snapshot.as_ref().map_or(&self.bodies[..], |s| s.raw());
        let mut hits: Vec<QueryHit> = self
            .query_shapes(filter)?
            .into_iter()
            .filter_map(|(i, h)| {
                let body = &bodies[h.index as usize];
                let (t, normal) = ray_shape(ray, &self.shapes[i], body, self.hulls.words())?;
                Some(QueryHit {
                    body: h,
                    shape: i as u32,
                    t,
                    point: ray.at(t),
                    normal,
                })
            })
            .collect();
        hits.sort_by(|a, b| a.t.total_cmp(&b.t).then(a.shape.cmp(&b.shape)));
        Ok(hits)
    }

    /// The nearest collider `filter` sees that `ray` hits, with its body's handle.
    ///
    /// # Errors
    /// As [`RigidWorld::cast_ray_all`].
    pub fn cast_ray_filtered(&self, ray: &Ray, filter: &QueryFilter) -> Result<Option<QueryHit>> {
        Ok(self.cast_ray_all(ray, filter)?.into_iter().next())
    }

    /// The colliders `filter` sees that hold `point` (inside or on the surface), by shape slot.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for a non-finite point or a filter that sees nothing.
    pub fn intersect_point(&self, point: Vec3, filter: &QueryFilter) -> Result<Vec<QueryHit>> {
        crate::error::finite3("query point", point)?;
        // A ray from the point reports a distance of 0 exactly when it starts inside.
        let ray = Ray::new(point, Vec3::Y, f32::MIN_POSITIVE)?;
        let snapshot = self.query_snapshot();
        let bodies = snapshot.as_ref().map_or(&self.bodies[..], |s| s.raw());
        Ok(self
            .query_shapes(filter)?
            .into_iter()
            .filter(|&(i, h)| {
                let body = &bodies[h.index as usize];
                ray_shape(&ray, &self.shapes[i], body, self.hulls.words())
                    .is_some_and(|r| r.0 == 0.0)
            })
            .map(|(i, h)| QueryHit {
                body: h,
                shape: i as u32,
                t: 0.0,
                point,
                normal: Vec3::ZERO,
            })
            .collect())
    }

    /// The colliders `filter` sees whose bounding boxes (as the broad phase bounds them, without
    /// its margin) meet the box from `min` to `max`, by shape slot: a broad query, which may
    /// hold colliders near the box as well as in it.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for a non-finite box, one with `min` above `max`, or a filter
    /// that sees nothing.
    pub fn intersect_aabb(
        &self,
        min: Vec3,
        max: Vec3,
        filter: &QueryFilter,
    ) -> Result<Vec<QueryHit>> {
        crate::error::finite3("query box min", min)?;
        crate::error::finite3("query box max", max)?;
        if min.cmpgt(max).any() {
            return Err(Error::InvalidInput {
                what: "query box",
                value: format!("min {min}, max {max}"),
                fix: "give min at or below max on every axis",
            });
        }
        let snapshot = self.query_snapshot();
        let bodies = snapshot.as_ref().map_or(&self.bodies[..], |s| s.raw());
        let params = GpuRigidParams {
            body_count: bodies.len() as u32,
            shape_count: self.shapes.len() as u32,
            ..GpuRigidParams::default()
        };
        let n = self.shapes.len();
        let mut pos = vec![Vec4::ZERO; n];
        let mut xf = vec![Vec4::ZERO; 3 * n];
        broad::shape_aabbs(&params, bodies, &self.shapes, &[], &mut pos, &mut xf);
        Ok(self
            .query_shapes(filter)?
            .into_iter()
            .filter(|&(i, _)| {
                let (lo, hi) = (xf[3 * i + 1].xyz(), xf[3 * i + 2].xyz());
                lo.cmple(max).all() && hi.cmpge(min).all()
            })
            .map(|(i, h)| QueryHit {
                body: h,
                shape: i as u32,
                t: 0.0,
                point: min.midpoint(max),
                normal: Vec3::ZERO,
            })
            .collect())
    }
}
