// Convex hulls as the per-pair routines read them: the `hulls` words (one array of vec4<u32>,
// floats as bits), placements, and convex shapes as support functions. CPU twins:
// src/rigid/hull/layout.rs (`HullWords`, `HullRef::cuboid`) and src/rigid/hull/support.rs
// (`Frame`, `ConvexShape`, `hull_support`), same operation order. Read layout.rs for the block
// of one hull (header, vertices, planes, packed edges, faces and loops) and support.rs for the
// shapes. A word past the end of `hulls` reads zero, as on the CPU.

// The limits (HULL_MAX_VERTICES, HULL_MAX_FACES, HULL_MAX_FACE_VERTICES, HULL_MAX_EDGES),
// HULL_HEADER_WORDS, HULL_UNIT_CUBE and the ConvexShape cores (CORE_POINT, CORE_SEGMENT,
// CORE_BOX, CORE_HULL) come from the Rust side in the prelude (src/rigid/gpu/source.rs).

/// The header of one hull's block in `hulls`, HULL_HEADER_WORDS words (layout.rs
/// `GpuHullHeader`; tests/layout.rs holds the two to one layout). `hull_ref` reads its words in
/// this order: counts (vertices, faces, edges, loop indices), offsets from the header (planes,
/// edges, faces, loops), centre of mass and bounding radius, AABB min and inner radius, AABB
/// max and the cooking tolerance.
struct HullHeader {
    counts: vec4<u32>,
    offsets: vec4<u32>,
    centre: vec4<f32>,
    aabb_min: vec4<f32>,
    aabb_max: vec4<f32>,
}

/// A hull's header decoded, its parts' word indices absolute (layout.rs `HullRef`).
struct HullRef {
    base: u32,
    vertex_count: u32,
    face_count: u32,
    edge_count: u32,
    index_count: u32,
    vertices_at: u32,
    planes_at: u32,
    edges_at: u32,
    faces_at: u32,
    indices_at: u32,
    // xyz the vertices' scale (1, or a box's half extents on the unit cube); w 1 for a box
    scale: vec4<f32>,
    centre: vec4<f32>,
    aabb_min: vec4<f32>,
    aabb_max: vec4<f32>,
}

/// A placement: world = pos + rot · local (support.rs `Frame`).
struct HullFrame {
    pos: vec3<f32>,
    rot: mat3x3<f32>,
}

/// A core placed by `frame`, inflated by `dims.w` (support.rs `ConvexShape`).
struct ConvexShape {
    kind: u32,
    hull: HullRef,
    dims: vec4<f32>,
    frame: HullFrame,
}

fn hull_word(i: u32) -> vec4<u32> {
    if (i < arrayLength(&hulls)) {
        return hulls[i];
    }
    return vec4<u32>(0u);
}

fn hull_floats(w: vec4<u32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(w);
}

/// The hull whose header is word `base` (`HullWords::hull`).
fn hull_ref(base: u32) -> HullRef {
    let c = hull_word(base);
    let o = hull_word(base + 1u);
    var h: HullRef;
    h.base = base;
    h.vertex_count = c.x;
    h.face_count = c.y;
    h.edge_count = c.z;
    h.index_count = c.w;
    h.vertices_at = base + HULL_HEADER_WORDS;
    h.planes_at = base + o.x;
    h.edges_at = base + o.y;
    h.faces_at = base + o.z;
    h.indices_at = base + o.w;
    h.scale = vec4<f32>(1.0, 1.0, 1.0, 0.0);
    h.centre = hull_floats(hull_word(base + 2u));
    h.aabb_min = hull_floats(hull_word(base + 3u));
    h.aabb_max = hull_floats(hull_word(base + 4u));
    return h;
}

/// A box of half extents `half` as the unit cube scaled (`HullRef::cuboid`).
fn hull_cuboid(half: vec3<f32>) -> HullRef {
    var h = hull_ref(HULL_UNIT_CUBE);
    h.scale = vec4<f32>(half, 1.0);
    h.centre = vec4<f32>(0.0, 0.0, 0.0, sqrt(dot(half, half)));
    h.aabb_min = vec4<f32>(-half, min(min(half.x, half.y), half.z));
    h.aabb_max = vec4<f32>(half, 0.0);
    return h;
}

fn hull_vertex(h: HullRef, i: u32) -> vec3<f32> {
    let w = hull_word(h.vertices_at + i);
    return bitcast<vec3<f32>>(w.xyz) * h.scale.xyz;
}

fn hull_plane(h: HullRef, f: u32) -> vec4<f32> {
    let w = hull_word(h.planes_at + f);
    let n = bitcast<vec3<f32>>(w.xyz);
    if (h.scale.w != 0.0) {
        return vec4<f32>(n, dot(abs(n), h.scale.xyz));
    }
    return vec4<f32>(n, bitcast<f32>(w.w));
}

/// Face f's loop: (first, count).
fn hull_face(h: HullRef, f: u32) -> vec2<u32> {
    let u = hull_word(h.faces_at + (f >> 2u))[f & 3u];
    return vec2<u32>(u & 0xffffu, u >> 16u);
}

fn hull_loop_vertex(h: HullRef, face: vec2<u32>, k: u32) -> u32 {
    let j = face.x + k;
    return hull_word(h.indices_at + (j >> 2u))[j & 3u];
}

/// Edge e: (v0, v1, f0, f1).
fn hull_edge(h: HullRef, e: u32) -> vec4<u32> {
    let u = hull_word(h.edges_at + (e >> 2u))[e & 3u];
    return vec4<u32>(u & 0xffu, (u >> 8u) & 0xffu, (u >> 16u) & 0xffu, u >> 24u);
}

/// Whether x beats best by more than a rounding-sized margin (hull/mod.rs `beats`).
fn hull_beats(x: f32, best: f32) -> bool {
    return x > best + 1e-5 * (1.0 + abs(best));
}

fn hull_frame(pos: vec3<f32>, q: vec4<f32>) -> HullFrame {
    return HullFrame(pos, quat_to_mat3(q));
}

fn hull_frame_dir(f: HullFrame, d: vec3<f32>) -> vec3<f32> {
    return f.rot[0] * d.x + f.rot[1] * d.y + f.rot[2] * d.z;
}

fn hull_frame_point(f: HullFrame, p: vec3<f32>) -> vec3<f32> {
    return f.pos + hull_frame_dir(f, p);
}

fn hull_frame_inv_dir(f: HullFrame, d: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(dot(f.rot[0], d), dot(f.rot[1], d), dot(f.rot[2], d));
}

fn hull_frame_inv_point(f: HullFrame, p: vec3<f32>) -> vec3<f32> {
    return hull_frame_inv_dir(f, p - f.pos);
}

/// `o` expressed in `f` (`Frame::relative`).
fn hull_frame_relative(f: HullFrame, o: HullFrame) -> HullFrame {
    return HullFrame(
        hull_frame_inv_point(f, o.pos),
        mat3x3<f32>(
            hull_frame_inv_dir(f, o.rot[0]),
            hull_frame_inv_dir(f, o.rot[1]),
            hull_frame_inv_dir(f, o.rot[2]),
        ),
    );
}

/// The support vertex of hull h in its local direction d: a linear scan, the first of equal
/// vertices kept.
fn hull_support(h: HullRef, d: vec3<f32>) -> vec3<f32> {
    let n = min(h.vertex_count, HULL_MAX_VERTICES);
    var best = hull_vertex(h, 0u);
    var best_d = dot(best, d);
    for (var i = 1u; i < n; i++) {
        let v = hull_vertex(h, i);
        let dv = dot(v, d);
        if (dv > best_d) {
            best = v;
            best_d = dv;
        }
    }
    return best;
}

fn cs_sphere(frame: HullFrame, r: f32) -> ConvexShape {
    var h: HullRef;
    return ConvexShape(CORE_POINT, h, vec4<f32>(0.0, 0.0, 0.0, r), frame);
}

fn cs_capsule(frame: HullFrame, half_length: f32, r: f32) -> ConvexShape {
    var h: HullRef;
    return ConvexShape(CORE_SEGMENT, h, vec4<f32>(0.0, half_length, 0.0, r), frame);
}

fn cs_cuboid(frame: HullFrame, half: vec3<f32>) -> ConvexShape {
    var h: HullRef;
    return ConvexShape(CORE_BOX, h, vec4<f32>(half, 0.0), frame);
}

fn cs_hull(frame: HullFrame, hull: HullRef) -> ConvexShape {
    return ConvexShape(CORE_HULL, hull, vec4<f32>(0.0), frame);
}

/// A flat triangle: frame.pos and frame.pos plus the frame's first and second columns
/// (support.rs `ConvexShape::triangle`; the frame is not a rotation).
fn cs_triangle(frame: HullFrame) -> ConvexShape {
    var h: HullRef;
    return ConvexShape(CORE_TRIANGLE, h, vec4<f32>(0.0), frame);
}

fn cs_support_local(s: ConvexShape, d: vec3<f32>) -> vec3<f32> {
    switch s.kind {
        case CORE_SEGMENT: {
            return vec3<f32>(0.0, select(-s.dims.y, s.dims.y, d.y >= 0.0), 0.0);
        }
        case CORE_BOX: {
            return vec3<f32>(
                select(-s.dims.x, s.dims.x, d.x >= 0.0),
                select(-s.dims.y, s.dims.y, d.y >= 0.0),
                select(-s.dims.z, s.dims.z, d.z >= 0.0),
            );
        }
        case CORE_HULL: {
            return hull_support(s.hull, d);
        }
        case CORE_TRIANGLE: {
            var p = vec3<f32>(0.0);
            var best = 0.0;
            if (d.x > best) {
                p = vec3<f32>(1.0, 0.0, 0.0);
                best = d.x;
            }
            if (d.y > best) {
                p = vec3<f32>(0.0, 1.0, 0.0);
            }
            return p;
        }
        default: {
            return vec3<f32>(0.0);
        }
    }
}

fn cs_support(s: ConvexShape, d: vec3<f32>) -> vec3<f32> {
    return hull_frame_point(s.frame, cs_support_local(s, hull_frame_inv_dir(s.frame, d)));
}

fn cs_centre(s: ConvexShape) -> vec3<f32> {
    if (s.kind == CORE_HULL) {
        return hull_frame_point(s.frame, s.hull.centre.xyz);
    }
    return s.frame.pos;
}

fn cs_core_bound(s: ConvexShape) -> f32 {
    switch s.kind {
        case CORE_SEGMENT: {
            return abs(s.dims.y);
        }
        case CORE_BOX: {
            return sqrt(dot(s.dims.xyz, s.dims.xyz));
        }
        case CORE_HULL: {
            return sqrt(dot(s.hull.centre.xyz, s.hull.centre.xyz)) + s.hull.centre.w;
        }
        case CORE_TRIANGLE: {
            let e1 = s.frame.rot[0];
            let e2 = s.frame.rot[1];
            return max(sqrt(dot(e1, e1)), sqrt(dot(e2, e2)));
        }
        default: {
            return 0.0;
        }
    }
}
