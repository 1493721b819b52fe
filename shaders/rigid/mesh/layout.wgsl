// Level geometry's stored words in `hulls`: a triangle mesh's block (triangles in BVH leaf
// order, the stackless BVH's nodes) and a heightfield's (samples, per-triangle flag nibbles).
// CPU twin: src/rigid/mesh/layout.rs (read its docs for the layout), same functions in the
// same operation order; reads past the end give zero (`hull_word`). MESH_SOLID (the flag of a
// solid cell) and MESH_HEADER_WORDS come from the prelude.

struct MeshAabb {
    lo: vec3<f32>,
    hi: vec3<f32>,
}

fn mesh_aabb_overlaps(a: MeshAabb, b: MeshAabb) -> bool {
    return all(a.lo <= b.hi) && all(b.lo <= a.hi);
}

fn mesh_vec3(w: vec4<u32>) -> vec3<f32> {
    return bitcast<vec3<f32>>(w.xyz);
}

struct MeshRef {
    triangle_count: u32,
    node_count: u32,
    triangles_at: u32,
    nodes_at: u32,
    bounds: MeshAabb,
    two_sided: bool,
}

fn mesh_ref(base: u32) -> MeshRef {
    let h = hull_word(base);
    let room = select(0u, arrayLength(&hulls) - base, arrayLength(&hulls) > base);
    var m: MeshRef;
    m.triangle_count = min(h.x, room / 3u);
    m.node_count = min(h.y, room / 2u);
    m.triangles_at = base + MESH_HEADER_WORDS;
    m.nodes_at = base + h.z;
    m.bounds = MeshAabb(mesh_vec3(hull_word(base + 1u)), mesh_vec3(hull_word(base + 2u)));
    m.two_sided = (h.w & 1u) != 0u;
    return m;
}

struct MeshTriangle {
    a: vec3<f32>,
    b: vec3<f32>,
    c: vec3<f32>,
    edges: u32,
    id: u32,
}

fn mesh_triangle(m: MeshRef, k: u32) -> MeshTriangle {
    let at = m.triangles_at + k * 3u;
    let w0 = hull_word(at);
    let w1 = hull_word(at + 1u);
    let w2 = hull_word(at + 2u);
    return MeshTriangle(mesh_vec3(w0), mesh_vec3(w1), mesh_vec3(w2), w0.w & 7u, w1.w);
}

/// Stored triangle k as a shape at `toward` meets it: a two-sided mesh's triangle whose plane
/// `toward` lies behind comes turned round, its edge bits renumbered (layout.rs `mesh_facing`).
fn mesh_facing(m: MeshRef, k: u32, toward: vec3<f32>) -> MeshTriangle {
    let t = mesh_triangle(m, k);
    if (!m.two_sided) {
        return t;
    }
    let n = cross(t.b - t.a, t.c - t.a);
    if (dot(n, toward - t.a) >= 0.0) {
        return t;
    }
    let e = t.edges;
    let turned = ((e >> 2u) & 1u) | (e & 2u) | ((e & 1u) << 2u);
    return MeshTriangle(t.a, t.c, t.b, turned, t.id);
}

struct MeshNode {
    bounds: MeshAabb,
    escape: u32,
    first: u32,
    count: u32,
}

fn mesh_node(m: MeshRef, i: u32) -> MeshNode {
    let at = m.nodes_at + i * 2u;
    let lo = hull_word(at);
    let hi = hull_word(at + 1u);
    return MeshNode(MeshAabb(mesh_vec3(lo), mesh_vec3(hi)), lo.w, hi.w & 0x00ffffffu,
                    min(hi.w >> 24u, MESH_LEAF_SIZE));
}

struct HeightFieldRef {
    rows: u32,
    columns: u32,
    samples_at: u32,
    flags_at: u32,
    scale: vec3<f32>,
    bounds: MeshAabb,
}

fn heightfield_ref(base: u32) -> HeightFieldRef {
    let h = hull_word(base);
    return HeightFieldRef(h.x, h.y, base + h.z, base + h.w, mesh_vec3(hull_word(base + 1u)),
                          MeshAabb(mesh_vec3(hull_word(base + 2u)),
                                   mesh_vec3(hull_word(base + 3u))));
}

fn heightfield_point(f: HeightFieldRef, r: u32, c: u32) -> vec3<f32> {
    let i = r * f.columns + c;
    let h = bitcast<f32>(hull_word(f.samples_at + i / 4u)[i % 4u]);
    return vec3<f32>((f32(c) / f32(max(f.columns, 2u) - 1u) - 0.5) * f.scale.x,
                     h * f.scale.y,
                     (f32(r) / f32(max(f.rows, 2u) - 1u) - 0.5) * f.scale.z);
}

fn heightfield_flags(f: HeightFieldRef, t: u32) -> u32 {
    let word = hull_word(f.flags_at + t / 32u);
    let u = word[(t / 8u) % 4u];
    return (u >> (4u * (t % 8u))) & 15u;
}

/// Triangle slot t; `edges` 0xffffffff for a hole or a slot past the end.
fn heightfield_triangle(f: HeightFieldRef, t: u32) -> MeshTriangle {
    var out: MeshTriangle;
    out.edges = 0xffffffffu;
    let cols = select(0u, f.columns - 1u, f.columns > 0u);
    let rows = select(0u, f.rows - 1u, f.rows > 0u);
    if (cols == 0u || rows == 0u || t / 2u >= rows * cols) {
        return out;
    }
    let flags = heightfield_flags(f, t);
    if ((flags & MESH_SOLID) == 0u) {
        return out;
    }
    let k = t / 2u;
    let r = k / cols;
    let c = k % cols;
    if (t % 2u == 0u) {
        out.a = heightfield_point(f, r, c);
        out.b = heightfield_point(f, r + 1u, c);
        out.c = heightfield_point(f, r + 1u, c + 1u);
    } else {
        out.a = heightfield_point(f, r, c);
        out.b = heightfield_point(f, r + 1u, c + 1u);
        out.c = heightfield_point(f, r, c + 1u);
    }
    out.edges = flags & 7u;
    out.id = t;
    return out;
}

fn heightfield_index(v: f32, lo: f32, size: f32, n: u32) -> u32 {
    return min(u32(max(floor((v - lo) / size), 0.0)), n - 1u);
}

/// The cells under a query box's footprint (layout.rs `heightfield_cells`): rows r0..=r1 and
/// columns c0..=c1 of the field's `cols` cell columns; `hit` false when the box misses it.
struct HeightfieldCells {
    r0: u32,
    r1: u32,
    c0: u32,
    c1: u32,
    cols: u32,
    hit: bool,
}

fn heightfield_cells(f: HeightFieldRef, query: MeshAabb) -> HeightfieldCells {
    var out: HeightfieldCells;
    let rows = select(0u, f.rows - 1u, f.rows > 0u);
    let cols = select(0u, f.columns - 1u, f.columns > 0u);
    out.cols = cols;
    out.hit = rows > 0u && cols > 0u && mesh_aabb_overlaps(f.bounds, query);
    if (out.hit) {
        let b = f.bounds;
        let cw = (b.hi.x - b.lo.x) / f32(cols);
        let cd = (b.hi.z - b.lo.z) / f32(rows);
        out.r0 = heightfield_index(query.lo.z, b.lo.z, cd, rows);
        out.r1 = heightfield_index(query.hi.z, b.lo.z, cd, rows);
        out.c0 = heightfield_index(query.lo.x, b.lo.x, cw, cols);
        out.c1 = heightfield_index(query.hi.x, b.lo.x, cw, cols);
    }
    return out;
}

/// The stackless walk of a mesh's BVH for a box, a leaf at a time (layout.rs `mesh_walk`): each
/// call of `mesh_next_leaf` moves the walk to the next leaf whose box meets the query, its
/// triangles `first .. first + count`, and returns true, or false when the walk is done. At most
/// `node_count` trips in all over the calls (each visits a node and moves forward: to the next
/// node or to the escape, which lies past the node).
struct MeshWalk {
    i: u32,
    trips: u32,
    first: u32,
    count: u32,
}

fn mesh_walk_start() -> MeshWalk {
    return MeshWalk(0u, 0u, 0u, 0u);
}

fn mesh_next_leaf(m: MeshRef, query: MeshAabb, w: ptr<function, MeshWalk>) -> bool {
    loop {
        if ((*w).trips >= m.node_count || (*w).i >= m.node_count) {
            return false;
        }
        (*w).trips += 1u;
        let node = mesh_node(m, (*w).i);
        if (!mesh_aabb_overlaps(node.bounds, query)) {
            (*w).i = max(node.escape, (*w).i + 1u);
        } else if (node.count > 0u) {
            (*w).i = max(node.escape, (*w).i + 1u);
            (*w).first = node.first;
            (*w).count = node.count;
            return true;
        } else {
            (*w).i += 1u;
        }
    }
    return false; // not reached: the loop returns
}

/// How many of the cells under a query a walk meets: at most MESH_MAX_CELLS, the first in
/// row-major order (layout.rs `visit_triangles`).
fn heightfield_cell_count(hc: HeightfieldCells) -> u32 {
    if (!hc.hit || hc.r1 < hc.r0 || hc.c1 < hc.c0) {
        return 0u;
    }
    return min((hc.r1 - hc.r0 + 1u) * (hc.c1 - hc.c0 + 1u), MESH_MAX_CELLS);
}

/// The n-th of those cells, row-major from (r0, c0): its index row·cols + column.
fn heightfield_cell(hc: HeightfieldCells, n: u32) -> u32 {
    let w = hc.c1 - hc.c0 + 1u;
    return (hc.r0 + n / w) * hc.cols + hc.c0 + n % w;
}
