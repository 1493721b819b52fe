//! CPU broad phases besides the grid: every pair by brute force (the reference the others are
//! checked against), sweep and prune on the axis of largest spread, and a dynamic AABB tree
//! (insert, remove, update, query). The step runs the grid (the parent module); these serve
//! tools, CPU users and tests.

use super::*;

/// Every pair by testing all `n²/2` combinations: the reference the other broad phases are
/// checked against. Sorted by (a, b), a < b.
pub fn brute_force_pairs(input: &BroadInput) -> Vec<[u32; 2]> {
    let n = input.shape_count;
    let mut pairs = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            if input.pair_ok(a, b) {
                pairs.push([a, b]);
            }
        }
    }
    pairs
}

/// Sweep and prune: live shapes sorted by AABB min on the axis where the AABB centres (planes
/// left out) spread most, then one sweep that keeps the shapes whose interval is still open.
/// Sorted by (a, b), a < b; the same set as [`brute_force_pairs`].
pub fn sweep_and_prune(input: &BroadInput) -> Vec<[u32; 2]> {
    let live: Vec<u32> = (0..input.shape_count)
        .filter(|&i| input.side(i).kind != 0)
        .collect();
    let axis = sweep_axis(input, &live);
    let lo = |i: u32| input.aabb_min(i)[axis];
    let hi = |i: u32| input.aabb_max(i)[axis];
    let mut order = live;
    order.sort_by(|&a, &b| lo(a).total_cmp(&lo(b)).then(a.cmp(&b)));
    let mut open: Vec<u32> = Vec::new();
    let mut pairs = Vec::new();
    for &b in &order {
        let start = lo(b);
        // Intervals are closed: one that ends exactly where b starts still touches it.
        open.retain(|&a| hi(a) >= start);
        for &a in &open {
            if input.pair_ok(a, b) {
                pairs.push([a.min(b), a.max(b)]);
            }
        }
        open.push(b);
    }
    pairs.sort_unstable();
    pairs
}

/// The axis (0, 1, 2) with the largest variance of bounded AABB centres; 0 when none.
fn sweep_axis(input: &BroadInput, live: &[u32]) -> usize {
    let mut sum = [0f64; 3];
    let mut sq = [0f64; 3];
    let mut n = 0f64;
    for &i in live {
        let (lo, hi) = input.aabb(i);
        let c = (lo.as_dvec3() + hi.as_dvec3()) * 0.5;
        if !(lo.is_finite() && hi.is_finite()) || lo.x <= -FAR || hi.x >= FAR {
            continue;
        }
        for k in 0..3 {
            sum[k] += c[k];
            sq[k] += c[k] * c[k];
        }
        n += 1.0;
    }
    if n == 0.0 {
        return 0;
    }
    let var = |k: usize| sq[k] / n - (sum[k] / n) * (sum[k] / n);
    let mut axis = 0;
    for k in 1..3 {
        if var(k) > var(axis) {
            axis = k;
        }
    }
    axis
}

/// Index of "no node" in the tree.
const NIL: usize = usize::MAX;

/// A node of [`AabbTree`]: a leaf holds a shape, a branch two children.
#[derive(Clone, Copy, Debug)]
struct Node {
    min: Vec3,
    max: Vec3,
    parent: usize,
    children: [usize; 2],
    /// The shape of a leaf; [`NONE`] for a branch.
    shape: u32,
}

impl Node {
    fn is_leaf(&self) -> bool {
        self.shape != NONE
    }
}

/// The book's size of a volume (§12.3 `getSize`): the AABB's volume, in f64 so that the
/// ±`f32::MAX` boxes of planes stay finite.
fn volume(min: Vec3, max: Vec3) -> f64 {
    let e = max.as_dvec3() - min.as_dvec3();
    e.x.max(0.0) * e.y.max(0.0) * e.z.max(0.0)
}

fn overlaps(a: &Node, b: &Node) -> bool {
    a.min.cmple(b.max).all() && b.min.cmple(a.max).all()
}

/// A dynamic AABB tree (the book's bounding volume hierarchy, §12.3, with boxes instead of
/// spheres): a binary tree with shapes at the leaves, each branch's box the union of its
/// children's.
///
/// - `insert` follows the book: at a leaf, the leaf becomes a branch holding the old leaf and
///   the new one; at a branch, descend into the child whose volume grows least (child 0 on a
///   tie). Boxes are refit on the way back up.
/// - `remove` follows the book's corrected removal: the sibling takes the parent's place.
/// - `update` re-inserts a shape whose box changed.
/// - `pairs` is the book's `getPotentialContacts` completed to recurse into every branch (the
///   printed version only pairs across the root's two subtrees), with an explicit stack because
///   insertion alone does not balance the tree.
#[derive(Clone, Debug, Default)]
pub struct AabbTree {
    nodes: Vec<Node>,
    free: Vec<usize>,
    root: usize,
    /// Per shape index, its leaf ([`NIL`] when absent).
    leaf_of: Vec<usize>,
    len: usize,
}

impl AabbTree {
    /// An empty tree.
    #[must_use]
    pub fn new() -> Self {
        Self {
            root: NIL,
            ..Self::default()
        }
    }

    /// A tree of every live shape of `input` (its AABB from `shape_xf`), inserted in index
    /// order.
    #[must_use]
    pub fn from_input(input: &BroadInput) -> Self {
        let mut tree = Self::new();
        for i in 0..input.shape_count {
            if input.side(i).kind != 0 {
                tree.insert(i, input.aabb_min(i), input.aabb_max(i));
            }
        }
        tree
    }

    /// Shapes in the tree.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the tree holds no shape.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `shape` is in the tree.
    pub fn contains(&self, shape: u32) -> bool {
        self.leaf_of.get(shape as usize).is_some_and(|&l| l != NIL)
    }

    fn alloc(&mut self, node: Node) -> usize {
        if let Some(i) = self.free.pop() {
            self.nodes[i] = node;
            i
        } else {
            self.nodes.push(node);
            self.nodes.len() - 1
        }
    }

    /// Refits the boxes of `i` and its ancestors to their children.
    fn refit(&mut self, mut i: usize) {
        while i != NIL {
            let [c0, c1] = self.nodes[i].children;
            let (a, b) = (self.nodes[c0], self.nodes[c1]);
            self.nodes[i].min = a.min.min(b.min);
            self.nodes[i].max = a.max.max(b.max);
            i = self.nodes[i].parent;
        }
    }

    /// Inserts `shape` with AABB `[min, max]`; a shape already in the tree is moved instead.
    pub fn insert(&mut self, shape: u32, min: Vec3, max: Vec3) {
        if shape == NONE {
            return;
        }
        if self.contains(shape) {
            self.remove(shape);
        }
        let leaf = self.alloc(Node {
            min,
            max,
            parent: NIL,
            children: [NIL, NIL],
            shape,
        });
        let s = shape as usize;
        if self.leaf_of.len() <= s {
            self.leaf_of.resize(s + 1, NIL);
        }
        self.leaf_of[s] = leaf;
        self.len += 1;
        if self.root == NIL {
            self.root = leaf;
            return;
        }
        // Descend by least growth of the book's size.
        let mut at = self.root;
        while !self.nodes[at].is_leaf() {
            let [c0, c1] = self.nodes[at].children;
            let growth = |c: usize| {
                let n = &self.nodes[c];
                volume(n.min.min(min), n.max.max(max)) - volume(n.min, n.max)
            };
            at = if growth(c1) < growth(c0) { c1 } else { c0 };
        }
        // The leaf `at` becomes a branch over (old leaf, new leaf): a new branch node takes its
        // place under its parent.
        let parent = self.nodes[at].parent;
        let branch = self.alloc(Node {
            min,
            max,
            parent,
            children: [at, leaf],
            shape: NONE,
        });
        self.nodes[at].parent = branch;
        self.nodes[leaf].parent = branch;
        if parent == NIL {
            self.root = branch;
        } else {
            let slot = usize::from(self.nodes[parent].children[1] == at);
            self.nodes[parent].children[slot] = branch;
        }
        self.refit(branch);
    }

    /// Removes `shape`; returns whether it was in the tree.
    pub fn remove(&mut self, shape: u32) -> bool {
        let Some(&leaf) = self.leaf_of.get(shape as usize) else {
            return false;
        };
        if leaf == NIL {
            return false;
        }
        self.leaf_of[shape as usize] = NIL;
        self.len -= 1;
        self.free.push(leaf);
        let parent = self.nodes[leaf].parent;
        if parent == NIL {
            self.root = NIL;
            return true;
        }
        let [c0, c1] = self.nodes[parent].children;
        let sibling = if c0 == leaf { c1 } else { c0 };
        let grand = self.nodes[parent].parent;
        self.nodes[sibling].parent = grand;
        self.free.push(parent);
        if grand == NIL {
            self.root = sibling;
        } else {
            let slot = usize::from(self.nodes[grand].children[1] == parent);
            self.nodes[grand].children[slot] = sibling;
            self.refit(grand);
        }
        true
    }

    /// Moves `shape` to AABB `[min, max]` (inserting it if absent). Unchanged boxes cost
    /// nothing; changed ones are removed and re-inserted.
    pub fn update(&mut self, shape: u32, min: Vec3, max: Vec3) {
        if let Some(&leaf) = self.leaf_of.get(shape as usize) {
            if leaf != NIL && self.nodes[leaf].min == min && self.nodes[leaf].max == max {
                return;
            }
        }
        self.insert(shape, min, max);
    }

    /// Every pair of leaves whose boxes overlap and that [`BroadInput::pair_ok`] accepts,
    /// sorted by (a, b), a < b. The tree's boxes must be those of `input`'s `shape_xf`.
    pub fn pairs(&self, input: &BroadInput) -> Vec<[u32; 2]> {
        let mut pairs = Vec::new();
        let mut stack: Vec<(usize, usize)> = Vec::new();
        let mut branches = Vec::new();
        if self.root != NIL {
            branches.push(self.root);
        }
        while let Some(i) = branches.pop() {
            let n = self.nodes[i];
            if n.is_leaf() {
                continue;
            }
            branches.extend(n.children);
            stack.push((n.children[0], n.children[1]));
            while let Some((x, y)) = stack.pop() {
                let (nx, ny) = (self.nodes[x], self.nodes[y]);
                if !overlaps(&nx, &ny) {
                    continue;
                }
                match (nx.is_leaf(), ny.is_leaf()) {
                    (true, true) => {
                        if input.pair_ok(nx.shape, ny.shape) {
                            pairs.push([nx.shape.min(ny.shape), nx.shape.max(ny.shape)]);
                        }
                    }
                    // Descend into the branch, or into the bigger one when both are branches.
                    (false, true) => stack.extend(nx.children.map(|c| (c, y))),
                    (true, false) => stack.extend(ny.children.map(|c| (x, c))),
                    (false, false) => {
                        if volume(nx.min, nx.max) >= volume(ny.min, ny.max) {
                            stack.extend(nx.children.map(|c| (c, y)));
                        } else {
                            stack.extend(ny.children.map(|c| (x, c)));
                        }
                    }
                }
            }
        }
        pairs.sort_unstable();
        pairs
    }
}
