//! A bounding-volume hierarchy over triangles, built on the host by the surface-area heuristic
//! and laid out for a stackless walk (DESIGN.md, "Shapes are data").
//!
//! # Layout
//! Nodes are stored depth first: a node's left child is the next node, and every node holds
//! its *escape* index, the node that follows its whole subtree. A walk therefore needs no
//! stack: at node `i`, if the query misses the node's box or the node is a leaf, go to
//! `escape`; else go to `i + 1`. The walk ends at `escape == nodes.len()`. Each node is two
//! `vec4` words on the GPU ([`BvhNode`]): the box, the escape index and, for a leaf, the range
//! of its triangles in the mesh's reordered triangle list.
//!
//! # Build
//! Binned SAH (Wald 2007): at each node the centroids' extent on each axis is cut into
//! [`BINS`] bins, and the cut with the smallest `area(left)·n_left + area(right)·n_right` is
//! taken if it beats making a leaf (`n · area(node)` with a traversal cost of one triangle);
//! a node of at most [`LEAF_SIZE`] triangles that no cut improves becomes a leaf, and a node of
//! more than [`LEAF_SIZE`] always splits (at the median when every centroid coincides), so
//! leaves hold at most [`LEAF_SIZE`] triangles and the walk's cost per leaf is bounded. The
//! build is iterative (an explicit stack), so a deep tree cannot overflow the host's stack.

use glam::Vec3;

/// Triangles a leaf holds at most (Jolt's ConvexVsMesh scene uses 4).
pub const LEAF_SIZE: usize = 4;
/// SAH bins per axis.
pub const BINS: usize = 12;

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Aabb {
    /// The empty box (grows to anything).
    pub const EMPTY: Aabb = Aabb {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    /// The smallest box holding `a` and `b`.
    #[must_use]
    pub fn union(self, b: Aabb) -> Aabb {
        Aabb {
            min: self.min.min(b.min),
            max: self.max.max(b.max),
        }
    }

    /// The box grown to hold `p`.
    #[must_use]
    pub fn with(self, p: Vec3) -> Aabb {
        Aabb {
            min: self.min.min(p),
            max: self.max.max(p),
        }
    }

    /// Whether the boxes overlap (touching counts).
    pub fn overlaps(&self, b: &Aabb) -> bool {
        self.min.cmple(b.max).all() && b.min.cmple(self.max).all()
    }

    /// Half the surface area (what the SAH compares); 0 for an empty box.
    pub fn half_area(&self) -> f32 {
        let d = (self.max - self.min).max(Vec3::ZERO);
        d.x * d.y + d.y * d.z + d.z * d.x
    }

    /// The ray parameters `[t0, t1]` where `origin + t·dir` is inside the box, clipped to
    /// `[0, max_t]`; `None` when it misses. `inv_dir` is `1/dir` per axis (±∞ for a zero
    /// component, which the slab test handles).
    pub fn ray_interval(&self, origin: Vec3, inv_dir: Vec3, max_t: f32) -> Option<(f32, f32)> {
        let a = (self.min - origin) * inv_dir;
        let b = (self.max - origin) * inv_dir;
        // 0·∞ is NaN when the origin lies on a slab plane of an axis the ray does not move
        // along: min/max drop NaN, so that axis does not narrow the interval.
        let t0 = a.min(b).max_element().max(0.0);
        let t1 = a.max(b).min_element().min(max_t);
        (t0 <= t1).then_some((t0, t1))
    }
}

/// One node of the flattened tree (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BvhNode {
    /// The box of every triangle below.
    pub bounds: Aabb,
    /// The node after this subtree.
    pub escape: u32,
    /// First triangle (in the reordered list) of a leaf.
    pub first: u32,
    /// Triangles of a leaf; 0 for an inner node (whose left child is the next node).
    pub count: u32,
}

/// The flattened tree and the order of the triangles its leaves name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bvh {
    /// Nodes, depth first.
    pub nodes: Vec<BvhNode>,
    /// `order[k]`: the input triangle at position k of the leaves' ranges.
    pub order: Vec<u32>,
}

impl Bvh {
    /// Builds the tree over `boxes` (one per triangle).
    pub fn build(boxes: &[Aabb]) -> Bvh {
        let mut order: Vec<u32> = (0..boxes.len() as u32).collect();
        let centre = |i: u32| {
            let b = boxes[i as usize];
            (b.min + b.max) * 0.5
        };
        let mut nodes: Vec<BvhNode> = Vec::with_capacity(2 * boxes.len().max(1));
        // (range start, range end, parent slot whose escape is patched when the subtree ends)
        // Depth first: push the right range, then the left, so the left child follows its
        // parent. A node's escape is known when the next node after its subtree is made:
        // `open` holds (node, subtree end in triangles) and a node closes when the build moves
        // past its range.
        let mut stack: Vec<(usize, usize)> = vec![(0, boxes.len())];
        let mut open: Vec<(usize, usize)> = Vec::new();
        while let Some((lo, hi)) = stack.pop() {
            let here = nodes.len() as u32;
            while let Some(&(node, end)) = open.last() {
                if lo >= end {
                    nodes[node].escape = here;
                    open.pop();
                } else {
                    break;
                }
            }
            let bounds = order[lo..hi]
                .iter()
                .fold(Aabb::EMPTY, |a, &i| a.union(boxes[i as usize]));
            let n = hi - lo;
            let split = if n <= 1 {
                None
            } else {
                sah_split(&mut order[lo..hi], boxes, &centre, bounds, n > LEAF_SIZE)
            };
            match split {
                Some(mid) => {
                    nodes.push(BvhNode {
                        bounds,
                        escape: 0,
                        first: 0,
                        count: 0,
                    });
                    open.push((here as usize, hi));
                    stack.push((lo + mid, hi));
                    stack.push((lo, lo + mid));
                }
                None => nodes.push(BvhNode {
                    bounds,
                    escape: here + 1,
                    first: lo as u32,
                    count: n as u32,
                }),
            }
        }
        let end = nodes.len() as u32;
        for (node, _) in open {
            nodes[node].escape = end;
        }
        Bvh { nodes, order }
    }

    /// Calls `hit(k)` for the position `k` (in [`Bvh::order`]) of every triangle whose leaf box
    /// overlaps `query`, by the stackless walk.
    pub fn query_aabb(&self, query: &Aabb, mut hit: impl FnMut(u32)) {
        let mut i = 0usize;
        while i < self.nodes.len() {
            let node = &self.nodes[i];
            if !node.bounds.overlaps(query) {
                i = node.escape as usize;
            } else if node.count > 0 {
                for k in node.first..node.first + node.count {
                    hit(k);
                }
                i = node.escape as usize;
            } else {
                i += 1;
            }
        }
    }

    /// The stackless walk for a ray: calls `hit(k, t_max)` for every triangle of every leaf
    /// the ray reaches within the current `t_max`; `hit` returns the new `t_max` (smaller
    /// after a hit), so boxes beyond the nearest hit so far are skipped.
    pub fn query_ray(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_t: f32,
        mut hit: impl FnMut(u32, f32) -> f32,
    ) {
        let inv = dir.recip();
        let mut t_max = max_t;
        let mut i = 0usize;
        while i < self.nodes.len() {
            let node = &self.nodes[i];
            if node.bounds.ray_interval(origin, inv, t_max).is_none() {
                i = node.escape as usize;
            } else if node.count > 0 {
                for k in node.first..node.first + node.count {
                    t_max = hit(k, t_max);
                }
                i = node.escape as usize;
            } else {
                i += 1;
            }
        }
    }
}

/// Partitions `order` by the best SAH cut and returns the size of the left part, or `None`
/// for a leaf. With `must`, a cut is made even if a leaf is cheaper (median split when all
/// centroids coincide).
fn sah_split(
    order: &mut [u32],
    boxes: &[Aabb],
    centre: &impl Fn(u32) -> Vec3,
    bounds: Aabb,
    must: bool,
) -> Option<usize> {
    let n = order.len();
    let cbox = order.iter().fold(Aabb::EMPTY, |a, &i| a.with(centre(i)));
    let extent = cbox.max - cbox.min;
    let mut best: Option<(f32, usize, usize)> = None; // (cost, axis, bins on the left)
    for axis in 0..3 {
        if extent[axis] <= 0.0 {
            continue;
        }
        let scale = BINS as f32 / extent[axis];
        let bin_of = |i: u32| (((centre(i)[axis] - cbox.min[axis]) * scale) as usize).min(BINS - 1);
        let mut counts = [0usize; BINS];
        let mut bin_boxes = [Aabb::EMPTY; BINS];
        for &i in order.iter() {
            let b = bin_of(i);
            counts[b] += 1;
            bin_boxes[b] = bin_boxes[b].union(boxes[i as usize]);
        }
        // Sweep from the right for the right-hand areas, then from the left for the costs.
        let mut right_area = [0.0f32; BINS];
        let mut right_count = [0usize; BINS];
        let (mut acc, mut cnt) = (Aabb::EMPTY, 0usize);
        for b in (1..BINS).rev() {
            acc = acc.union(bin_boxes[b]);
            cnt += counts[b];
            right_area[b] = acc.half_area();
            right_count[b] = cnt;
        }
        let (mut acc, mut cnt) = (Aabb::EMPTY, 0usize);
        for b in 0..BINS - 1 {
            acc = acc.union(bin_boxes[b]);
            cnt += counts[b];
            if cnt == 0 || right_count[b + 1] == 0 {
                continue;
            }
            let cost = acc.half_area() * cnt as f32 + right_area[b + 1] * right_count[b + 1] as f32;
            if best.is_none_or(|(c, _, _)| cost < c) {
                best = Some((cost, axis, b + 1));
            }
        }
    }
    let leaf_cost = bounds.half_area() * n as f32;
    match best {
        Some((cost, axis, left_bins)) if must || cost < leaf_cost => {
            let scale = BINS as f32 / extent[axis];
            let left = |i: &u32| {
                (((centre(*i)[axis] - cbox.min[axis]) * scale) as usize).min(BINS - 1) < left_bins
            };
            let mut mid = 0;
            for k in 0..n {
                if left(&order[k]) {
                    order.swap(k, mid);
                    mid += 1;
                }
            }
            Some(mid)
        }
        _ if must => Some(n / 2),
        _ => None,
    }
}
