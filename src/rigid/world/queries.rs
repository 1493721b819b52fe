//! Scene queries with a filter, answered with handles: the nearest ray hit, every ray hit, the
//! colliders holding a point, the colliders whose bounding boxes meet a box. They read the
//! newest bodies the host has without blocking: on the CPU the bodies now; on the GPU the
//! newest copy that landed ([`RigidWorld::latest_bodies`]: turn on
//! [`RigidWorld::set_body_tracking`] for one every frame, a frame or two behind) or the last
//! blocking read, else the host's copy. They visit the shapes near them through the broad
//! phase's grid, rebuilt on the host over those bodies (`query_grid.rs`), with the same answers
//! as a test of every shape.

use super::query_grid::{QueryGrid, QueryKey};
use super::*;
use crate::rigid::ray::{ray_shape, Ray};
use std::sync::{Arc, Mutex};

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

/// The host's query index, kept between queries (see `query_grid.rs`).
#[derive(Default)]
pub(super) struct QueryCache(Mutex<Option<Arc<QueryGrid>>>);

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

    /// Calls `f` with the bodies queries read and the grid over them (built when they or the
    /// shapes changed since the last query).
    pub(super) fn with_query_grid<R>(
        &self,
        f: impl FnOnce(&[GpuBody], &QueryGrid) -> R,
    ) -> Result<R> {
        let snapshot = self.query_snapshot();
        let bodies = snapshot.as_ref().map_or(&self.bodies[..], |s| s.raw());
        let key = QueryKey {
            epoch: self.query_epoch,
            snapshot: snapshot.clone(),
            margin: self.config.contact_margin,
            shapes: self.shapes.len(),
            bodies: bodies.len(),
        };
        let grid = {
            let mut cache = self
                .query_cache
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match cache.as_ref() {
                Some(g) if g.fits(&key) => Arc::clone(g),
                _ => {
                    let g = Arc::new(QueryGrid::build(&self.shapes, bodies, key)?);
                    *cache = Some(Arc::clone(&g));
                    g
                }
            }
        };
        Ok(f(bodies, &grid))
    }

    /// Which shapes `filter` lets a query see: shape slot to its body's handle, `None` for a
    /// shape it does not see (or a removed one).
    pub(super) fn query_sees<'a>(
        &'a self,
        filter: &'a QueryFilter,
    ) -> Result<impl Fn(u32) -> Option<BodyHandle> + 'a> {
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
        Ok(move |i: u32| {
            let s = self.shapes.get(i as usize)?;
            if s.kind == 0 {
                return None;
            }
            let h = self.body_handle_at(s.body)?;
            let groups = filter
                .groups
                .is_none_or(|(group, mask)| s.group & mask != 0 && group & s.mask != 0);
            let kind = self.bodies[h.index as usize].kind;
            (groups
                && !filter.exclude.contains(&h)
                && (!filter.dynamic_only || kind == body_kind::DYNAMIC))
                .then_some(h)
        })
    }

    /// Every collider `filter` sees that `ray` hits within its length, nearest first (equal
    /// distances by shape slot).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for a filter that sees nothing (a zero group or mask).
    pub fn cast_ray_all(&self, ray: &Ray, filter: &QueryFilter) -> Result<Vec<QueryHit>> {
        self.ray_hits(ray, filter, false)
    }

    /// The nearest collider `filter` sees that `ray` hits, with its body's handle (equal
    /// distances: the lower shape slot). The walk along the ray stops at the first cell past
    /// the nearest hit.
    ///
    /// # Errors
    /// As [`RigidWorld::cast_ray_all`].
    pub fn cast_ray_filtered(&self, ray: &Ray, filter: &QueryFilter) -> Result<Option<QueryHit>> {
        Ok(self.ray_hits(ray, filter, true)?.into_iter().next())
    }

    /// The hits of `ray`, sorted by (distance, shape slot); with `nearest`, at least the
    /// nearest (the walk stops once the cells ahead cannot hold a nearer one).
    fn ray_hits(&self, ray: &Ray, filter: &QueryFilter, nearest: bool) -> Result<Vec<QueryHit>> {
        let sees = self.query_sees(filter)?;
        let words = self.hulls.words();
        let mut hits = self.with_query_grid(|bodies, grid| {
            let mut hits: Vec<QueryHit> = Vec::new();
            let test = |hits: &mut Vec<QueryHit>, i: u32| {
                let Some(h) = sees(i) else { return };
                let body = &bodies[h.index as usize];
                if let Some((t, normal)) = ray_shape(ray, &self.shapes[i as usize], body, words) {
                    hits.push(QueryHit {
                        body: h,
                        shape: i,
                        t,
                        point: ray.at(t),
                        normal,
                    });
                }
            };
            for &i in &grid.large {
                test(&mut hits, i);
            }
            let walked = grid.walk_ray(ray, |t_enter, shapes| {
                // Every hit nearer than this cell's entry was found in the cells before it.
                if nearest && hits.iter().any(|h| h.t < t_enter) {
                    return false;
                }
                for &i in shapes {
                    test(&mut hits, i);
                }
                true
            });
            if !walked {
                hits.clear();
                for i in 0..self.shapes.len() as u32 {
                    test(&mut hits, i);
                }
            }
            hits
        })?;
        hits.sort_by(|a, b| a.t.total_cmp(&b.t).then(a.shape.cmp(&b.shape)));
        Ok(hits)
    }

    /// The colliders `filter` sees that hold `point` (inside or on the surface), by shape slot.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for a non-finite point or a filter that sees nothing.
    pub fn intersect_point(&self, point: Vec3, filter: &QueryFilter) -> Result<Vec<QueryHit>> {
        crate::error::finite3("query point", point)?;
        // A ray from the point reports a distance of 0 exactly when it starts inside.
        let ray = Ray::new(point, Vec3::Y, f32::MIN_POSITIVE)?;
        let sees = self.query_sees(filter)?;
        let words = self.hulls.words();
        self.with_query_grid(|bodies, grid| {
            grid.box_candidates(point, point)
                .into_iter()
                .filter_map(|i| {
                    let h = sees(i)?;
                    let body = &bodies[h.index as usize];
                    ray_shape(&ray, &self.shapes[i as usize], body, words)
                        .is_some_and(|r| r.0 == 0.0)
                        .then_some(QueryHit {
                            body: h,
                            shape: i,
                            t: 0.0,
                            point,
                            normal: Vec3::ZERO,
                        })
                })
                .collect()
        })
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
        let sees = self.query_sees(filter)?;
        self.with_query_grid(|_, grid| {
            grid.box_candidates(min, max)
                .into_iter()
                .filter_map(|i| {
                    let h = sees(i)?;
                    let k = 3 * i as usize;
                    let (lo, hi) = (grid.xf[k + 1].xyz(), grid.xf[k + 2].xyz());
                    (lo.cmple(max).all() && hi.cmpge(min).all()).then_some(QueryHit {
                        body: h,
                        shape: i,
                        t: 0.0,
                        point: min.midpoint(max),
                        normal: Vec3::ZERO,
                    })
                })
                .collect()
        })
    }
}
