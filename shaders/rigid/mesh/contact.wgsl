// A ball's and a capsule's contacts with one triangle of level geometry, under the
// internal-edge rule. CPU twin: src/rigid/mesh/contact.rs (read its docs for the rule), same
// functions in the same operation order. A region is coded 0 for the face, 1 + e for edge e,
// 4 + v for vertex v (narrow/mesh.rs `region_code`).

const REGION_FACE: u32 = 0u;

struct TriangleContact {
    normal: vec3<f32>,
    depth: f32,
    point: vec3<f32>,
    region: u32,
    hit: bool,
}

struct ClosestOnTriangle {
    q: vec3<f32>,
    region: u32,
}

fn closest_on_triangle(p: vec3<f32>, a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> ClosestOnTriangle {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        return ClosestOnTriangle(a, 4u);
    }
    let bp = p - b;
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        return ClosestOnTriangle(b, 5u);
    }
    let vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        let v = d1 / (d1 - d3);
        return ClosestOnTriangle(a + ab * v, 1u);
    }
    let cp = p - c;
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        return ClosestOnTriangle(c, 6u);
    }
    let vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        let w = d2 / (d2 - d6);
        return ClosestOnTriangle(a + ac * w, 3u);
    }
    let va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return ClosestOnTriangle(b + (c - b) * w, 2u);
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    return ClosestOnTriangle(a + ab * v + ac * w, REGION_FACE);
}

fn region_is_active(region: u32, edges: u32) -> bool {
    if (region == REGION_FACE) {
        return true;
    }
    if (region < 4u) {
        return (edges & (1u << (region - 1u))) != 0u;
    }
    let v = region - 4u;
    return (edges & ((1u << v) | (1u << ((v + 2u) % 3u)))) != 0u;
}

fn mesh_normalize_or_zero(v: vec3<f32>) -> vec3<f32> {
    let l = length(v);
    if (l > 0.0 && l < 3.4e38) {
        return v * (1.0 / l);
    }
    return vec3<f32>(0.0);
}

fn sphere_triangle(centre: vec3<f32>, radius: f32, t: MeshTriangle, margin: f32) -> TriangleContact {
    var out: TriangleContact;
    out.hit = false;
    let face0 = mesh_normalize_or_zero(cross(t.b - t.a, t.c - t.a));
    if (all(face0 == vec3<f32>(0.0))) {
        return out;
    }
    let height = dot(face0, centre - t.a);
    if (height < 0.0) {
        return out;
    }
    let cl = closest_on_triangle(centre, t.a, t.b, t.c);
    let d = centre - cl.q;
    let dist = length(d);
    if (dist > radius + margin) {
        return out;
    }
    if (region_is_active(cl.region, t.edges) && cl.region != REGION_FACE) {
        var n = face0;
        if (dist > 0.0) {
            n = d / dist;
        }
        out.normal = n;
        out.depth = radius - dist;
    } else {
        out.normal = face0;
        out.depth = radius - abs(height);
    }
    out.point = cl.q;
    out.region = cl.region;
    out.hit = true;
    return out;
}

/// contact.rs `closest_segments`: the parameters (s, t) of the closest points.
fn mesh_closest_params(p0: vec3<f32>, p1: vec3<f32>, q0: vec3<f32>, q1: vec3<f32>) -> vec2<f32> {
    let eps = 1.1920929e-7;
    let d1 = p1 - p0;
    let d2 = q1 - q0;
    let r = p0 - q0;
    let a = dot(d1, d1);
    let e = dot(d2, d2);
    let f = dot(d2, r);
    if (a <= eps && e <= eps) {
        return vec2<f32>(0.0);
    }
    if (a <= eps) {
        return vec2<f32>(0.0, clamp(f / e, 0.0, 1.0));
    }
    let c = dot(d1, r);
    if (e <= eps) {
        return vec2<f32>(clamp(-c / a, 0.0, 1.0), 0.0);
    }
    let b = dot(d1, d2);
    let denom = a * e - b * b;
    var s = 0.0;
    if (denom > 0.0) {
        s = clamp((b * f - c * e) / denom, 0.0, 1.0);
    }
    var t = (b * s + f) / e;
    if (t < 0.0) {
        t = 0.0;
        s = clamp(-c / a, 0.0, 1.0);
    } else if (t > 1.0) {
        t = 1.0;
        s = clamp((b - c) / a, 0.0, 1.0);
    }
    return vec2<f32>(s, t);
}
