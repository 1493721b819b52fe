//! Level geometry as words of the world's hull store, and the decoder every walk reads it
//! through (DESIGN.md, "Shapes are data").
//!
//! A triangle mesh or heightfield collider is one block of `vec4<u32>` words appended to the
//! world's [`crate::rigid::hull::HullStore`] (the GPU's `hulls` buffer), so level geometry needs
//! no binding of its own. The shape names its block by the word index of its first word
//! (`GpuShape::dims.x`, exact in f32 as a hull's header is) and keeps a bounding radius about
//! its origin in `dims.y` (see `shape_kind::MESH`). Floats are stored as their bits; offsets
//! are word offsets from the block's first word, so a block does not change where it is stored.
//!
//! # Mesh block ([`mesh_words`], read by [`mesh_ref`])
//! | word | x | y | z | w |
//! |---|---|---|---|---|
//! | 0 | triangle count T | node count N | offset of the nodes | 1 when two-sided, else 0 |
//! | 1 | box min x | y | z | 0 |
//! | 2 | box max x | y | z | 0 |
//! | 3 + 3k + j | corner j of triangle k: x | y | z | j = 0: active-edge bits ([`TriMesh::active_edges`]); j = 1: the triangle's id; j = 2: 0 |
//! | nodes + 2i | node i's box min x | y | z | escape index |
//! | nodes + 2i + 1 | node i's box max x | y | z | `first \| count << 24` (count 0: inner node) |
//!
//! Triangles are stored in the BVH's leaf order ([`super::Bvh::order`]), so a leaf's range
//! names stored triangles directly; each keeps its id in the mesh's own numbering (what a
//! contact's feature id and a ray hit report). The nodes are the BVH's, depth first with
//! escape indices: the walk ([`mesh_walk`]) is a loop of at most N trips with no stack.
//!
//! # Heightfield block ([`heightfield_words`], read by [`heightfield_ref`])
//! | word | x | y | z | w |
//! |---|---|---|---|---|
//! | 0 | rows | columns | offset of the samples | offset of the flags |
//! | 1 | scale x | y | z | 0 |
//! | 2 | box min x | y | z | 0 |
//! | 3 | box max x | y | z | 0 |
//! | samples + i/4 | heights (as given, unscaled), four to a word, row-major | | | |
//! | flags + t/32 | a nibble per triangle slot t, eight to a u32, 32 to a word: bits 0–2 the active-edge bits, bit 3 set when the cell is solid (not a hole) | | | |
//!
//! Points are rebuilt with the arithmetic of [`super::HeightField::point`], so the stored
//! field's triangles are bit for bit the host field's.
//!
//! # Reading
//! Every accessor reads through [`HullWords::word`]: an index past the end reads zero, offsets
//! add with u32 wrapping (as WGSL's do), and loops are bounded by counts clamped to what the
//! words could hold, so a corrupt or truncated block gives wrong geometry, never a panic or an
//! endless walk. A zero flag nibble is a hole, so a field read past its end is empty.

use super::heightfield::cast_ray_cells;
use super::{ray_triangle, Aabb, BvhNode, HeightField, TriMesh, TriangleHit, LEAF_SIZE};
use crate::rigid::hull::HullWords;
use glam::{UVec4, Vec3};

/// Words before a mesh block's triangles.
pub const MESH_HEADER_WORDS: u32 = 3;
/// Words before a heightfield block's samples.
pub const HEIGHTFIELD_HEADER_WORDS: u32 = 4;
/// The flag-nibble bit of a solid (not a hole) heightfield cell.
pub const HEIGHTFIELD_SOLID: u32 = 8;

fn bits3(v: Vec3, w: u32) -> UVec4 {
    UVec4::new(v.x.to_bits(), v.y.to_bits(), v.z.to_bits(), w)
}

fn vec3_of(w: UVec4) -> Vec3 {
    Vec3::new(
        f32::from_bits(w.x),
        f32::from_bits(w.y),
        f32::from_bits(w.z),
    )
}

/// The words of `mesh`'s block (see the module docs).
pub fn mesh_words(mesh: &TriMesh) -> Vec<UVec4> {
    let bvh = mesh.bvh();
    let t = bvh.order.len() as u32;
    let nodes_at = MESH_HEADER_WORDS + 3 * t;
    let mut out = Vec::with_capacity((nodes_at as usize) + 2 * bvh.nodes.len());
    let b = mesh.aabb();
    let sides = u32::from(mesh.is_two_sided());
    out.push(UVec4::new(t, bvh.nodes.len() as u32, nodes_at, sides));
    out.push(bits3(b.min, 0));
    out.push(bits3(b.max, 0));
    for &id in &bvh.order {
        let corners = mesh.triangle(id).unwrap_or([Vec3::ZERO; 3]);
        out.push(bits3(corners[0], u32::from(mesh.active_edges(id))));
        out.push(bits3(corners[1], id));
        out.push(bits3(corners[2], 0));
    }
    for n in &bvh.nodes {
        out.push(bits3(n.bounds.min, n.escape));
        out.push(bits3(n.bounds.max, n.first | n.count << 24));
    }
    out
}

/// The words of `field`'s block (see the module docs).
pub fn heightfield_words(field: &HeightField) -> Vec<UVec4> {
    let heights = field.heights();
    let sample_words = heights.len().div_ceil(4) as u32;
    let slots = field.triangle_slots();
    let samples_at = HEIGHTFIELD_HEADER_WORDS;
    let flags_at = samples_at + sample_words;
    let b = field.aabb();
    let mut out = vec![
        UVec4::new(field.rows(), field.columns(), samples_at, flags_at),
        bits3(field.scale(), 0),
        bits3(b.min, 0),
        bits3(b.max, 0),
    ];
    for c in heights.chunks(4) {
        let mut w = [0u32; 4];
        for (k, h) in c.iter().enumerate() {
            w[k] = h.to_bits();
        }
        out.push(UVec4::from_array(w));
    }
    let mut flags = vec![0u32; slots.div_ceil(8) as usize];
    for t in 0..slots {
        let solid = if field.is_hole(t) {
            0
        } else {
            HEIGHTFIELD_SOLID
        };
        let nibble = u32::from(field.active_edges(t)) | solid;
        flags[(t / 8) as usize] |= nibble << (4 * (t % 8));
    }
    for c in flags.chunks(4) {
        let mut w = [0u32; 4];
        w[..c.len()].copy_from_slice(c);
        out.push(UVec4::from_array(w));
    }
    out
}

/// A mesh block decoded: its counts and where its parts start (absolute word indices).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshRef {
    /// Triangles, clamped to what the words after the header could hold.
    pub triangle_count: u32,
    /// BVH nodes, clamped likewise.
    pub node_count: u32,
    /// Word of triangle 0's first corner.
    pub triangles_at: u32,
    /// Word of node 0.
    pub nodes_at: u32,
    /// The mesh's box in its own frame.
    pub bounds: Aabb,
    /// Whether shapes meet the triangles' backs too ([`TriMesh::with_two_sided`]).
    pub two_sided: bool,
}

/// The mesh block whose first word is `base` (see the module docs).
pub fn mesh_ref(words: &[UVec4], base: u32) -> MeshRef {
    let h = words.word(base);
    let room = (words.len() as u32).saturating_sub(base);
    MeshRef {
        triangle_count: h.x.min(room / 3),
        node_count: h.y.min(room / 2),
        triangles_at: base.wrapping_add(MESH_HEADER_WORDS),
        nodes_at: base.wrapping_add(h.z),
        bounds: Aabb {
            min: vec3_of(words.word(base.wrapping_add(1))),
            max: vec3_of(words.word(base.wrapping_add(2))),
        },
        two_sided: h.w & 1 != 0,
    }
}

/// Stored triangle `k` (leaf order) of mesh `m`: its corners, active-edge bits and id.
pub fn mesh_triangle(words: &[UVec4], m: &MeshRef, k: u32) -> ([Vec3; 3], u32, u32) {
    let at = m.triangles_at.wrapping_add(k.wrapping_mul(3));
    let w0 = words.word(at);
    let w1 = words.word(at.wrapping_add(1));
    let w2 = words.word(at.wrapping_add(2));
    ([vec3_of(w0), vec3_of(w1), vec3_of(w2)], w0.w & 7, w1.w)
}

/// Stored triangle `k` of mesh `m` as a shape at `toward` (a point in the mesh's frame) meets
/// it: as [`mesh_triangle`], but a two-sided mesh's triangle whose plane `toward` lies behind
/// comes turned round (corners a, c, b) with its active-edge bits renumbered to match (edge 0
/// of the turned triangle is the stored edge 2, edge 2 the stored edge 0; a two-sided mesh's
/// bits hold from both sides, see [`TriMesh::with_two_sided`]). Every walk that meets shapes
/// reads triangles through this, so from then on a triangle is one-sided.
pub fn mesh_facing(words: &[UVec4], m: &MeshRef, k: u32, toward: Vec3) -> ([Vec3; 3], u32, u32) {
    let (tri, active, id) = mesh_triangle(words, m, k);
    if !m.two_sided {
        return (tri, active, id);
    }
    let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
    if n.dot(toward - tri[0]) >= 0.0 {
        return (tri, active, id);
    }
    let turned = (active >> 2 & 1) | (active & 2) | (active & 1) << 2;
    ([tri[0], tri[2], tri[1]], turned, id)
}

/// Node `i` of mesh `m`'s BVH.
pub fn mesh_node(words: &[UVec4], m: &MeshRef, i: u32) -> BvhNode {
    let at = m.nodes_at.wrapping_add(i.wrapping_mul(2));
    let lo = words.word(at);
    let hi = words.word(at.wrapping_add(1));
    BvhNode {
        bounds: Aabb {
            min: vec3_of(lo),
            max: vec3_of(hi),
        },
        escape: lo.w,
        first: hi.w & 0x00ff_ffff,
        count: (hi.w >> 24).min(LEAF_SIZE as u32),
    }
}

/// The stackless walk of mesh `m`'s BVH for box `query`: calls `visit(k)` for every stored
/// triangle `k` of every leaf whose box overlaps `query`. A loop of at most `node_count` trips
/// (each trip visits a node and moves forward: to the next node or to the escape, which lies
/// past the node), each leaf at most [`LEAF_SIZE`] triangles; the fixed bounds are what a GPU
/// twin needs.
pub fn mesh_walk(words: &[UVec4], m: &MeshRef, query: &Aabb, mut visit: impl FnMut(u32)) {
    let mut i = 0u32;
    for _ in 0..m.node_count {
        if i >= m.node_count {
            break;
        }
        let node = mesh_node(words, m, i);
        if !node.bounds.overlaps(query) {
            i = node.escape.max(i + 1);
        } else if node.count > 0 {
            for j in 0..node.count {
                visit(node.first.wrapping_add(j));
            }
            i = node.escape.max(i + 1);
        } else {
            i += 1;
        }
    }
}

/// The nearest triangle of mesh `m` that `origin + t·dir` crosses for `t` in `[0, max_t]`,
/// from either side (ties to the lower id), by the stackless walk with boxes beyond the
/// nearest hit so far skipped: the twin of [`TriMesh::cast_ray`] over the stored words.
pub fn mesh_cast_ray(
    words: &[UVec4],
    m: &MeshRef,
    origin: Vec3,
    dir: Vec3,
    max_t: f32,
) -> Option<TriangleHit> {
    let inv = dir.recip();
    let mut best: Option<TriangleHit> = None;
    let mut i = 0u32;
    for _ in 0..m.node_count {
        if i >= m.node_count {
            break;
        }
        let node = mesh_node(words, m, i);
        let t_max = best.map_or(max_t, |h| h.t);
        if node.bounds.ray_interval(origin, inv, t_max).is_none() {
            i = node.escape.max(i + 1);
        } else if node.count > 0 {
            for j in 0..node.count {
                let ([a, b, c], _, id) = mesh_triangle(words, m, node.first.wrapping_add(j));
                let limit = best.map_or(max_t, |h| h.t);
                if let Some(t) = ray_triangle(origin, dir, limit, a, b, c) {
                    if best.is_none_or(|h| t < h.t || (t == h.t && id < h.triangle)) {
                        best = Some(TriangleHit {
                            t,
                            triangle: id,
                            normal: (b - a).cross(c - a).normalize_or_zero(),
                        });
                    }
                }
            }
            i = node.escape.max(i + 1);
        } else {
            i += 1;
        }
    }
    best
}

/// A heightfield block decoded (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeightFieldRef {
    /// Samples along z (0 or 1: no cells).
    pub rows: u32,
    /// Samples along x.
    pub columns: u32,
    /// Word of the first samples.
    pub samples_at: u32,
    /// Word of the first flags.
    pub flags_at: u32,
    /// The field's size along x, height scale, size along z.
    pub scale: Vec3,
    /// The field's box in its own frame.
    pub bounds: Aabb,
}

impl HeightFieldRef {
    /// Cells along z.
    pub fn cell_rows(&self) -> u32 {
        self.rows.saturating_sub(1)
    }
    /// Cells along x.
    pub fn cell_columns(&self) -> u32 {
        self.columns.saturating_sub(1)
    }
}

/// The heightfield block whose first word is `base`.
pub fn heightfield_ref(words: &[UVec4], base: u32) -> HeightFieldRef {
    let h = words.word(base);
    HeightFieldRef {
        rows: h.x,
        columns: h.y,
        samples_at: base.wrapping_add(h.z),
        flags_at: base.wrapping_add(h.w),
        scale: vec3_of(words.word(base.wrapping_add(1))),
        bounds: Aabb {
            min: vec3_of(words.word(base.wrapping_add(2))),
            max: vec3_of(words.word(base.wrapping_add(3))),
        },
    }
}

/// Sample `(r, c)` of field `f` in its frame ([`HeightField::point`]'s arithmetic).
pub fn heightfield_point(words: &[UVec4], f: &HeightFieldRef, r: u32, c: u32) -> Vec3 {
    let i = r.wrapping_mul(f.columns).wrapping_add(c);
    let h = f32::from_bits(words.word(f.samples_at.wrapping_add(i / 4))[(i % 4) as usize]);
    Vec3::new(
        (c as f32 / f.columns.saturating_sub(1).max(1) as f32 - 0.5) * f.scale.x,
        h * f.scale.y,
        (r as f32 / f.rows.saturating_sub(1).max(1) as f32 - 0.5) * f.scale.z,
    )
}

/// Triangle slot `t`'s flag nibble: active-edge bits, and [`HEIGHTFIELD_SOLID`].
pub fn heightfield_flags(words: &[UVec4], f: &HeightFieldRef, t: u32) -> u32 {
    let word = words.word(f.flags_at.wrapping_add(t / 32));
    let u = word[((t / 8) % 4) as usize];
    (u >> (4 * (t % 8))) & 15
}

/// Triangle slot `t` of field `f` (the numbering of [`HeightField`]): corners and
/// active-edge bits, or `None` for a hole or a slot past the end.
pub fn heightfield_triangle(
    words: &[UVec4],
    f: &HeightFieldRef,
    t: u32,
) -> Option<([Vec3; 3], u32)> {
    let cols = f.cell_columns();
    let slots = 2u64 * u64::from(f.cell_rows()) * u64::from(cols);
    if u64::from(t) >= slots {
        return None;
    }
    let flags = heightfield_flags(words, f, t);
    if flags & HEIGHTFIELD_SOLID == 0 {
        return None;
    }
    let k = t / 2;
    let (r, c) = (k / cols, k % cols);
    let p = |dr, dc| heightfield_point(words, f, r + dr, c + dc);
    let corners = if t.is_multiple_of(2) {
        [p(0, 0), p(1, 0), p(1, 1)]
    } else {
        [p(0, 0), p(1, 1), p(0, 1)]
    };
    Some((corners, flags & 7))
}

/// The cells (rows `r0..=r1`, columns `c0..=c1`) under `query`'s footprint, `None` when it
/// misses the field's box ([`HeightField::query_aabb`]'s range).
pub fn heightfield_cells(f: &HeightFieldRef, query: &Aabb) -> Option<(u32, u32, u32, u32)> {
    let (rows, cols) = (f.cell_rows(), f.cell_columns());
    if rows == 0 || cols == 0 || !f.bounds.overlaps(query) {
        return None;
    }
    let b = f.bounds;
    let cw = (b.max.x - b.min.x) / cols as f32;
    let cd = (b.max.z - b.min.z) / rows as f32;
    let idx =
        |v: f32, lo: f32, size: f32, n: u32| (((v - lo) / size).floor().max(0.0) as u32).min(n - 1);
    Some((
        idx(query.min.z, b.min.z, cd, rows),
        idx(query.max.z, b.min.z, cd, rows),
        idx(query.min.x, b.min.x, cw, cols),
        idx(query.max.x, b.min.x, cw, cols),
    ))
}

/// The nearest triangle of field `f` the ray crosses ([`HeightField::cast_ray`] over the
/// stored words).
pub fn heightfield_cast_ray(
    words: &[UVec4],
    f: &HeightFieldRef,
    origin: Vec3,
    dir: Vec3,
    max_t: f32,
) -> Option<TriangleHit> {
    cast_ray_cells(
        f.bounds,
        f.cell_rows(),
        f.cell_columns(),
        |t| heightfield_triangle(words, f, t).map(|(c, _)| c),
        origin,
        dir,
        max_t,
    )
}

/// Calls `visit(corners, active-edge bits, id)` for every triangle of the level block at word
/// `block` (of a shape of kind `kind`: [`crate::rigid::types::shape_kind::MESH`] or
/// `HEIGHTFIELD`) that the walk reaches for `query` (a box in the geometry's frame): the
/// mesh's leaves whose boxes overlap it ([`mesh_walk`]), or the heightfield's cells under it
/// ([`heightfield_cells`], at most `max_cells` of them, holes skipped). A two-sided mesh's
/// triangles come facing `toward` (the shape's centre in the geometry's frame; see
/// [`mesh_facing`]). The narrow phase, the continuous collision stage and the shape casts walk
/// level geometry through this.
pub fn visit_triangles(
    words: &[UVec4],
    kind: u32,
    block: u32,
    query: &Aabb,
    max_cells: u32,
    toward: Vec3,
    mut visit: impl FnMut([Vec3; 3], u32, u32),
) {
    use crate::rigid::types::shape_kind;
    if kind == shape_kind::MESH {
        let m = mesh_ref(words, block);
        mesh_walk(words, &m, query, |k| {
            let (tri, active, id) = mesh_facing(words, &m, k, toward);
            visit(tri, active, id);
        });
    } else if kind == shape_kind::HEIGHTFIELD {
        let f = heightfield_ref(words, block);
        let Some((r0, r1, c0, c1)) = heightfield_cells(&f, query) else {
            return;
        };
        let cols = f.cell_columns();
        let mut cells = 0u32;
        for r in r0..=r1 {
            for col in c0..=c1 {
                cells += 1;
                if cells > max_cells {
                    break;
                }
                let k = r * cols + col;
                for t in [2 * k, 2 * k + 1] {
                    if let Some((tri, active)) = heightfield_triangle(words, &f, t) {
                        visit(tri, active, t);
                    }
                }
            }
        }
    }
}
