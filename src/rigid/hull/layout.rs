//! The hull data as one array of `vec4` words a GPU can read, and the host-side [`Hull`] it is
//! copied from.
//!
//! A [`HullStore`] holds every hull of a world in one array of [`UVec4`] words (the `hulls`
//! storage buffer, `array<vec4<u32>>` in WGSL; floats are stored as their bits). Each hull is one
//! block of words, opened by a [`GpuHullHeader`] of [`HULL_HEADER_WORDS`] words that gives its
//! counts and where its parts start (word offsets from the header, so a block does not change
//! when it is stored at another place); a shape names its hull by the word index of that header
//! (`GpuShape::dims.x`, see `shape_kind::HULL`). A block holds, in order:
//!
//! | part | words | each |
//! |---|---|---|
//! | header | 5 | [`GpuHullHeader`] |
//! | vertices | V | xyz (w 0) |
//! | face planes | F | unit outward normal (xyz), offset (w) |
//! | edges | ⌈E/4⌉ | one u32 per edge, four to a word: `v0 \| v1 << 8 \| f0 << 16 \| f1 << 24` ([`HullEdge`]) |
//! | faces | ⌈F/4⌉ | one u32 per face, four to a word: `first \| count << 16` ([`HullFace`]) |
//! | face loops | ⌈I/4⌉ | one u32 (a local vertex index) per loop entry, four to a word |
//!
//! Indices inside a hull are local to it (vertex 0 is the first vertex word of the block). The
//! store always begins with the unit cube (half extents 1) at word [`UNIT_CUBE`]: a box shape
//! meets a hull as that cube scaled by its half extents ([`HullRef::cuboid`]), so boxes need no
//! hull of their own.
//!
//! Limits, checked when a hull is cooked: at most [`MAX_HULL_VERTICES`] = 64 vertices and
//! [`MAX_HULL_FACES`] = 64 faces (PhysX's limit for GPU convex meshes; it keeps the per-pair
//! loops and the GPU's private arrays small, and every local index fits the byte an edge record
//! gives it), faces of at most [`MAX_FACE_VERTICES`] = 32 vertices (sizes the clipping buffers).
//! Euler's formula then bounds the edges by V + F − 2 = 126 and the face-loop indices by
//! 2E = 252.
//!
//! Reading: the per-pair routines read a hull only through [`HullWords`], implemented for
//! `[UVec4]`, whose accessors are the twins of the `hull_*` functions of
//! `shaders/rigid/hull/hull.wgsl`. Offsets add with u32 wrapping, as WGSL's do, and an index past
//! the end reads zero (robust buffer access may return any in-bounds value or zero) instead of
//! panicking.

use bytemuck::{Pod, Zeroable};
use glam::{Mat3, UVec4, Vec3, Vec4, Vec4Swizzles};

use crate::error::{Error, Result};
use crate::gpu::layout::gpu_struct;

/// Most vertices a hull may have (PhysX's GPU convex limit).
pub const MAX_HULL_VERTICES: u32 = 64;
/// Most faces a hull may have (PhysX's GPU convex limit).
pub const MAX_HULL_FACES: u32 = 64;
/// Most vertices one face may have.
pub const MAX_FACE_VERTICES: u32 = 32;
/// Most edges a hull may have: E = V + F − 2 (Euler, genus 0) ≤ 126.
pub const MAX_HULL_EDGES: u32 = MAX_HULL_VERTICES + MAX_HULL_FACES - 2;
/// Most face-loop indices a hull may have: every edge appears in two loops, 2E ≤ 252.
pub const MAX_HULL_INDICES: u32 = 2 * MAX_HULL_EDGES;
/// Words of a hull's header ([`GpuHullHeader`]); its vertices follow.
pub const HULL_HEADER_WORDS: u32 = 5;
/// Word index of the unit cube every store begins with.
pub const UNIT_CUBE: u32 = 0;
/// The largest header word index a shape can name: shapes keep it in an f32 (`dims.x`), exact
/// below 2^24 (a store of 2^24 words is 256 MiB, above WebGPU's default binding limit).
pub const MAX_HULL_WORD: u32 = 1 << 24;

gpu_struct! {
    /// The header of one hull's block in the `hulls` buffer (see the module docs). 80 bytes.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct GpuHullHeader as "HullHeader" {
        /// Vertices, faces, edges, face-loop indices.
        pub counts: UVec4,
        /// Word offsets from the header to the planes, the edges, the faces and the face loops
        /// (the vertices start at [`HULL_HEADER_WORDS`]).
        pub offsets: UVec4,
        /// Centre of mass of the solid hull at uniform density (xyz, local); bounding radius
        /// about it (w): every vertex lies within w of xyz.
        pub centre: Vec4,
        /// Local bounding box minimum (xyz); inner radius (w): the least distance from the
        /// centre of mass to a face plane, so the ball of that radius about it lies inside.
        pub aabb_min: Vec4,
        /// Local bounding box maximum (xyz); the distance the hull was checked to (w,
        /// [`Hull::tolerance`]).
        pub aabb_max: Vec4,
    }
}

/// One face's vertex loop: `count` local vertex indices starting at entry `first` of the hull's
/// face loops, counter-clockwise seen from outside. The face's plane has the same index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HullFace {
    /// Offset of the loop in the hull's face loops.
    pub first: u32,
    /// Vertices in the loop, 3..=[`MAX_FACE_VERTICES`].
    pub count: u32,
}

/// One edge, stored once: local vertices `v0`, `v1` and the two faces it joins. The loop of face
/// `f0` runs `v0 → v1`, the loop of `f1` runs `v1 → v0`, so `(v1 − v0)` is parallel to
/// `n(f0) × n(f1)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HullEdge {
    /// First vertex (local index).
    pub v0: u32,
    /// Second vertex (local index).
    pub v1: u32,
    /// The face whose loop runs v0 → v1 (local index).
    pub f0: u32,
    /// The face whose loop runs v1 → v0 (local index).
    pub f1: u32,
}

/// A hull as the per-pair routines see it: its header decoded ([`HullWords::hull`]), with the
/// parts' word indices made absolute, or a box as the scaled unit cube ([`HullRef::cuboid`]).
/// The twin of WGSL's `HullRef` (a function-local struct, not a buffer layout).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HullRef {
    /// Word index of the header.
    pub base: u32,
    /// Vertices, 4..=[`MAX_HULL_VERTICES`].
    pub vertex_count: u32,
    /// Faces, 4..=[`MAX_HULL_FACES`].
    pub face_count: u32,
    /// Edges, ≤ [`MAX_HULL_EDGES`].
    pub edge_count: u32,
    /// Face-loop indices, ≤ [`MAX_HULL_INDICES`].
    pub index_count: u32,
    /// Word index of the first vertex.
    pub vertices_at: u32,
    /// Word index of the first plane.
    pub planes_at: u32,
    /// Word index of the first edge word.
    pub edges_at: u32,
    /// Word index of the first face word.
    pub faces_at: u32,
    /// Word index of the first face-loop word.
    pub indices_at: u32,
    /// Scale of the vertices (xyz: 1 for a hull, a box's half extents on the unit cube); w is 1
    /// for a box, whose plane offsets then follow the scale, 0 otherwise.
    pub scale: Vec4,
    /// Centre of mass (xyz) and bounding radius (w), as in [`GpuHullHeader::centre`].
    pub centre: Vec4,
    /// Bounding box minimum (xyz) and inner radius (w).
    pub aabb_min: Vec4,
    /// Bounding box maximum (xyz).
    pub aabb_max: Vec4,
}

impl HullRef {
    /// The box of half extents `half` as the store's unit cube scaled (see the module docs):
    /// the cube's ±1 coordinates and axis normals scale exactly, so its vertices are ±half and
    /// its planes (n, |n|·half).
    pub fn cuboid(words: &[UVec4], half: Vec3) -> HullRef {
        let mut h = words.hull(UNIT_CUBE);
        h.scale = half.extend(1.0);
        h.centre = Vec4::new(0.0, 0.0, 0.0, half.dot(half).sqrt());
        h.aabb_min = (-half).extend(half.x.min(half.y).min(half.z));
        h.aabb_max = half.extend(0.0);
        h
    }
}

/// A cooked, checked hull on the host: made by [`super::convex_hull`], [`super::convex_mesh`] or
/// [`Hull::cuboid`], stored with [`HullStore::add`]. Indices are local.
#[derive(Clone, Debug, PartialEq)]
pub struct Hull {
    pub(crate) vertices: Vec<Vec3>,
    pub(crate) planes: Vec<Vec4>,
    pub(crate) faces: Vec<HullFace>,
    pub(crate) indices: Vec<u32>,
    pub(crate) edges: Vec<HullEdge>,
    pub(crate) centre: Vec3,
    pub(crate) radius: f32,
    pub(crate) inner_radius: f32,
    pub(crate) aabb_min: Vec3,
    pub(crate) aabb_max: Vec3,
    pub(crate) tolerance: f32,
    pub(crate) volume: f32,
    pub(crate) unit_inertia: Mat3,
}

impl Hull {
    /// The vertices (local frame).
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }
    /// Face planes: unit outward normal (xyz) and offset (w); a point p is behind face f when
    /// `n·p ≤ w`.
    pub fn planes(&self) -> &[Vec4] {
        &self.planes
    }
    /// Face loop ranges into [`Hull::indices`].
    pub fn faces(&self) -> &[HullFace] {
        &self.faces
    }
    /// All face loops, one after another.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }
    /// The unique edges.
    pub fn edges(&self) -> &[HullEdge] {
        &self.edges
    }
    /// Face `f`'s loop of vertex indices (empty for an index out of range).
    pub fn face_loop(&self, f: usize) -> &[u32] {
        match self.faces.get(f) {
            Some(face) => {
                let lo = face.first as usize;
                let hi = lo + face.count as usize;
                self.indices.get(lo..hi).unwrap_or(&[])
            }
            None => &[],
        }
    }
    /// Centre of mass at uniform density (local).
    pub fn centre(&self) -> Vec3 {
        self.centre
    }
    /// Volume of the solid hull.
    pub fn volume(&self) -> f32 {
        self.volume
    }
    /// Inertia tensor of the solid at mass 1 and uniform density, about [`Hull::centre`], axes
    /// of the hull's frame (scale it by a mass).
    pub fn unit_inertia(&self) -> Mat3 {
        self.unit_inertia
    }
    /// Largest distance from [`Hull::centre`] to a vertex.
    pub fn radius(&self) -> f32 {
        self.radius
    }
    /// Least distance from [`Hull::centre`] to a face plane.
    pub fn inner_radius(&self) -> f32 {
        self.inner_radius
    }
    /// Local bounding box (min, max).
    pub fn aabb(&self) -> (Vec3, Vec3) {
        (self.aabb_min, self.aabb_max)
    }
    /// The distance the hull was checked to: every face planar, every face a convex polygon,
    /// every vertex (and, from [`super::convex_hull`] without simplification, every input
    /// point) behind every face plane, all within this. 16 ulps of the input's magnitude unless
    /// near-degenerate input made the cooking retry at a coarser tolerance (see
    /// `quickhull.rs`).
    pub fn tolerance(&self) -> f32 {
        self.tolerance
    }
    /// Words the hull takes in a [`HullStore`].
    pub fn words(&self) -> u32 {
        let (v, f) = (self.vertices.len() as u32, self.planes.len() as u32);
        let (e, i) = (self.edges.len() as u32, self.indices.len() as u32);
        HULL_HEADER_WORDS + v + f + e.div_ceil(4) + f.div_ceil(4) + i.div_ceil(4)
    }

    /// A box of half extents `half` as an 8-vertex hull: vertex i has x negated by bit 0, y by
    /// bit 1, z by bit 2 (the engine's box vertex order); faces +x, −x, +y, −y, +z, −z.
    pub fn cuboid(half: Vec3) -> Result<Hull> {
        if !(half.is_finite() && half.min_element() > 0.0) {
            return Err(Error::InvalidInput {
                what: "cuboid half extents",
                value: format!("{half:?}"),
                fix: "pass finite half extents > 0",
            });
        }
        let vertices: Vec<Vec3> = (0..8u32)
            .map(|i| {
                let s = |bit: u32| if i & bit != 0 { -1.0 } else { 1.0 };
                Vec3::new(half.x * s(1), half.y * s(2), half.z * s(4))
            })
            .collect();
        // Loops counter-clockwise seen from outside.
        let loops: [[u32; 4]; 6] = [
            [0, 2, 6, 4], // +x
            [1, 5, 7, 3], // −x
            [0, 4, 5, 1], // +y
            [2, 3, 7, 6], // −y
            [0, 1, 3, 2], // +z
            [4, 6, 7, 5], // −z
        ];
        let loops: Vec<Vec<u32>> = loops.iter().map(|l| l.to_vec()).collect();
        let tol = super::faces::base_tolerance(&vertices);
        super::faces::hull_from_loops(&vertices, &loops, tol)
    }
}

/// Every hull of a world as one array of words, ready to upload (see the module docs). It
/// begins with the unit cube; [`HullStore::add`] appends a hull's block and nothing is ever
/// moved, so a header's word index stays valid. Dereferences to the words, which the per-pair
/// routines read through [`HullWords`].
#[derive(Clone, Debug, PartialEq)]
pub struct HullStore {
    words: Vec<UVec4>,
}

impl Default for HullStore {
    fn default() -> Self {
        Self::new()
    }
}

impl std::ops::Deref for HullStore {
    type Target = [UVec4];
    fn deref(&self) -> &[UVec4] {
        &self.words
    }
}

fn bits(v: Vec4) -> UVec4 {
    UVec4::new(v.x.to_bits(), v.y.to_bits(), v.z.to_bits(), v.w.to_bits())
}

/// Four u32 to a word, the last word padded with zeros.
fn pack4(values: impl Iterator<Item = u32>, out: &mut Vec<UVec4>) {
    let v: Vec<u32> = values.collect();
    for c in v.chunks(4) {
        let mut w = [0u32; 4];
        w[..c.len()].copy_from_slice(c);
        out.push(UVec4::from_array(w));
    }
}

impl HullStore {
    /// A store holding the unit cube alone.
    #[must_use]
    pub fn new() -> Self {
        let mut s = HullStore { words: Vec::new() };
        // The unit cube is a valid hull by construction (Hull::cuboid checks it like any other).
        if let Ok(cube) = Hull::cuboid(Vec3::ONE) {
            s.push(&cube);
        }
        s
    }

    /// A store holding `words` as saved (`crate::save`); the loader checks each hull shape's
    /// header index against their count.
    #[cfg(feature = "serde")]
    pub(crate) fn from_words(words: Vec<UVec4>) -> Self {
        Self { words }
    }

    /// The words, to upload.
    pub fn words(&self) -> &[UVec4] {
        &self.words
    }

    /// Appends `hull`'s block; returns its decoded header.
    ///
    /// # Errors
    /// [`Error::TooMany`] when the store would pass [`MAX_HULL_WORD`] words.
    pub fn add(&mut self, hull: &Hull) -> Result<HullRef> {
        let base = self.words.len() as u64;
        if base + u64::from(hull.words()) > u64::from(MAX_HULL_WORD) {
            return Err(Error::TooMany {
                what: "hull words in one world",
                count: (base + u64::from(hull.words())) as usize,
                max: MAX_HULL_WORD,
                fix: "share hulls between bodies (reuse one Collider's hull), or simplify them",
            });
        }
        let base = self.push(hull);
        Ok(self.hull(base))
    }

    /// Appends a block of words made elsewhere (a triangle mesh or heightfield,
    /// `crate::rigid::mesh::layout`); returns its first word's index.
    ///
    /// # Errors
    /// [`Error::TooMany`] when the store would pass [`MAX_HULL_WORD`] words.
    pub fn push_words(&mut self, words: &[UVec4]) -> Result<u32> {
        let base = self.words.len() as u64;
        if base + words.len() as u64 > u64::from(MAX_HULL_WORD) {
            return Err(Error::TooMany {
                what: "hull store words in one world (meshes, heightfields and hulls)",
                count: (base + words.len() as u64) as usize,
                max: MAX_HULL_WORD,
                fix: "share level geometry between bodies (clone one Collider), or split or \
                      simplify the meshes",
            });
        }
        self.words.extend_from_slice(words);
        Ok(base as u32)
    }

    fn push(&mut self, hull: &Hull) -> u32 {
        let base = self.words.len() as u32;
        let (v, f) = (hull.vertices.len() as u32, hull.planes.len() as u32);
        let (e, i) = (hull.edges.len() as u32, hull.indices.len() as u32);
        let planes = HULL_HEADER_WORDS + v;
        let edges = planes + f;
        let faces = edges + e.div_ceil(4);
        let loops = faces + f.div_ceil(4);
        let header = GpuHullHeader {
            counts: UVec4::new(v, f, e, i),
            offsets: UVec4::new(planes, edges, faces, loops),
            centre: hull.centre.extend(hull.radius),
            aabb_min: hull.aabb_min.extend(hull.inner_radius),
            aabb_max: hull.aabb_max.extend(hull.tolerance),
        };
        let header: [UVec4; HULL_HEADER_WORDS as usize] = bytemuck::cast(header);
        self.words.extend_from_slice(&header);
        self.words
            .extend(hull.vertices.iter().map(|p| bits(p.extend(0.0))));
        self.words.extend(hull.planes.iter().map(|p| bits(*p)));
        let edge = |x: &HullEdge| x.v0 | x.v1 << 8 | x.f0 << 16 | x.f1 << 24;
        pack4(hull.edges.iter().map(edge), &mut self.words);
        pack4(
            hull.faces.iter().map(|x| x.first | x.count << 16),
            &mut self.words,
        );
        pack4(hull.indices.iter().copied(), &mut self.words);
        base
    }

    /// A store holding `hull` after the unit cube, and its decoded header.
    ///
    /// # Errors
    /// As [`HullStore::add`].
    pub fn single(hull: &Hull) -> Result<(HullStore, HullRef)> {
        let mut s = HullStore::new();
        let r = s.add(hull)?;
        Ok((s, r))
    }
}

/// Reading hulls from their words: the accessors of the per-pair routines, twins of the `hull_*`
/// functions of `hull.wgsl` (see the module docs: wrapping offsets, zero past the end).
pub trait HullWords {
    /// Word `i`, or zero past the end.
    fn word(&self, i: u32) -> UVec4;
    /// The hull whose header is at word `base`.
    fn hull(&self, base: u32) -> HullRef {
        let c = self.word(base);
        let o = self.word(base.wrapping_add(1));
        let f = |w: UVec4| {
            Vec4::new(
                f32::from_bits(w.x),
                f32::from_bits(w.y),
                f32::from_bits(w.z),
                f32::from_bits(w.w),
            )
        };
        HullRef {
            base,
            vertex_count: c.x,
            face_count: c.y,
            edge_count: c.z,
            index_count: c.w,
            vertices_at: base.wrapping_add(HULL_HEADER_WORDS),
            planes_at: base.wrapping_add(o.x),
            edges_at: base.wrapping_add(o.y),
            faces_at: base.wrapping_add(o.z),
            indices_at: base.wrapping_add(o.w),
            scale: Vec4::new(1.0, 1.0, 1.0, 0.0),
            centre: f(self.word(base.wrapping_add(2))),
            aabb_min: f(self.word(base.wrapping_add(3))),
            aabb_max: f(self.word(base.wrapping_add(4))),
        }
    }
    /// Local vertex `i` of hull `h` (scaled by `h.scale`).
    fn vertex(&self, h: &HullRef, i: u32) -> Vec3 {
        let w = self.word(h.vertices_at.wrapping_add(i));
        Vec3::new(
            f32::from_bits(w.x),
            f32::from_bits(w.y),
            f32::from_bits(w.z),
        ) * h.scale.xyz()
    }
    /// Plane of face `f` of hull `h` (normal xyz, offset w; a box's offset from its scale).
    fn plane(&self, h: &HullRef, f: u32) -> Vec4 {
        let w = self.word(h.planes_at.wrapping_add(f));
        let n = Vec3::new(
            f32::from_bits(w.x),
            f32::from_bits(w.y),
            f32::from_bits(w.z),
        );
        if h.scale.w != 0.0 {
            n.extend(n.abs().dot(h.scale.xyz()))
        } else {
            n.extend(f32::from_bits(w.w))
        }
    }
    /// Loop range of face `f` of hull `h`.
    fn face(&self, h: &HullRef, f: u32) -> HullFace {
        let u = self.word(h.faces_at.wrapping_add(f >> 2))[(f & 3) as usize];
        HullFace {
            first: u & 0xffff,
            count: u >> 16,
        }
    }
    /// The `k`-th vertex index of the loop `face` (a face of hull `h`).
    fn loop_vertex(&self, h: &HullRef, face: &HullFace, k: u32) -> u32 {
        let j = face.first.wrapping_add(k);
        self.word(h.indices_at.wrapping_add(j >> 2))[(j & 3) as usize]
    }
    /// Edge `e` of hull `h`.
    fn edge(&self, h: &HullRef, e: u32) -> HullEdge {
        let u = self.word(h.edges_at.wrapping_add(e >> 2))[(e & 3) as usize];
        HullEdge {
            v0: u & 0xff,
            v1: (u >> 8) & 0xff,
            f0: (u >> 16) & 0xff,
            f1: u >> 24,
        }
    }
}

impl HullWords for [UVec4] {
    fn word(&self, i: u32) -> UVec4 {
        self.get(i as usize).copied().unwrap_or(UVec4::ZERO)
    }
}
