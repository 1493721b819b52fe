// Static colliders, shared by the particle and aggregate worlds: the table's struct, the
// contact of a sphere with a collider and the response to it. Functions only (no bindings);
// each domain loops over its own table. CPU twin: src/colliders.rs (`collider_in_reach`,
// `collider_contact`, `resolve_contact`).

/// A static collider: 64 bytes. kind: 1 half-space, 2 sphere, 3 box.
struct Collider {
    kind: u32,
    restitution: f32,
    friction: f32,
    _pad: u32,
    /// half-space: normal (xyz) and offset (w); sphere: centre and radius; box: centre.
    a: vec4<f32>,
    /// box: half extents.
    b: vec4<f32>,
    /// box: orientation quaternion (x, y, z, w).
    q: vec4<f32>,
}

fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

/// Spheres and boxes may be in the collider table. A kernel compiled with false leaves their
/// code out and treats every collider as a half-space: only for a table of half-spaces alone
/// (the aggregate world's, fixed for its life, when it holds nothing else), where the results
/// are the same bits; on software adapters the code costs where it is compiled in.
override COLLIDER_SOLIDS: bool = true;

/// A half-space's penetration of a sphere of radius `r` at `p` (positive when overlapping), `a`
/// its normal (xyz) and offset (w): the one expression both `collider_contact` and
/// `collider_in_reach` evaluate, so they decide alike.
fn half_space_depth(a: vec4<f32>, p: vec3<f32>, r: f32) -> f32 {
    return r - (dot(a.xyz, p) - a.w);
}

/// Whether collider `c` may touch a sphere of radius `r` at `p` within `slop`: false only where
/// `collider_contact` would give a depth of −slop or less, so a loop that asks it first can
/// skip the contacts of a particle no collider is near and leave the same bits (CPU twin:
/// `particles::cpu::collider_in_reach`). A half-space: its depth above −slop (the expression
/// `collider_contact` evaluates). A sphere: the centre within radius + r + slop. A box: the
/// centre within the half-extents' length (the farthest any point of the box is from its
/// centre) + r + slop. Both with `REACH_SLACK` (the host's `particles::cpu::REACH_SLACK`,
/// written into the module) on the squared distance. Written without branches: the loops that
/// ask it run on software adapters too, which evaluate every branch of a loop's body.
fn collider_in_reach(c: Collider, p: vec3<f32>, r: f32, slop: f32) -> bool {
    let plane = half_space_depth(c.a, p, r) > -slop;
    if (!COLLIDER_SOLIDS) {
        return plane;
    }
    let bound = select(length(c.b.xyz), c.a.w, c.kind == 2u);
    let d = p - c.a.xyz;
    let ext = bound + r + slop;
    return select(dot(d, d) <= ext * ext * REACH_SLACK, plane, c.kind == 1u);
}

/// Penetration (positive when overlapping) and outward normal of a sphere of radius `r` at `p`.
fn collider_contact(c: Collider, p: vec3<f32>, r: f32) -> vec4<f32> {
    if (!COLLIDER_SOLIDS || c.kind == 1u) {
        return vec4<f32>(c.a.xyz, half_space_depth(c.a, p, r));
    }
    if (c.kind == 2u) {
        let d = p - c.a.xyz;
        let len = length(d);
        var n = vec3<f32>(0.0, 1.0, 0.0);
        if (len > 0.0) {
            n = d / len;
        }
        return vec4<f32>(n, c.a.w + r - len);
    }
    // Oriented box: work in box space.
    let conj = vec4<f32>(-c.q.xyz, c.q.w);
    let lp = quat_rotate(conj, p - c.a.xyz);
    let h = c.b.xyz;
    let closest = clamp(lp, -h, h);
    let diff = lp - closest;
    let dist = length(diff);
    if (dist > 0.0) {
        return vec4<f32>(quat_rotate(c.q, diff / dist), r - dist);
    }
    // Centre inside: leave through the nearest face.
    let depth = h - abs(lp);
    var axis = 0u;
    if (depth.y < depth.x) {
        axis = 1u;
    }
    if (depth.z < depth[axis]) {
        axis = 2u;
    }
    var n_local = vec3<f32>(0.0);
    n_local[axis] = select(-1.0, 1.0, lp[axis] >= 0.0);
    return vec4<f32>(quat_rotate(c.q, n_local), depth[axis] + r);
}

struct Body {
    p: vec3<f32>,
    v: vec3<f32>,
}

/// Pushes the particle out along the normal and applies restitution and Coulomb friction. The
/// velocity that this step's acceleration built along the normal is taken out of the rebound
/// (the book's resting-contact fix), so a resting particle stays put instead of jittering.
fn resolve_contact(b_in: Body, c: Collider, contact: vec4<f32>, acc_total: vec3<f32>, dt: f32) -> Body {
    var b = b_in;
    let n = contact.xyz;
    let pen = contact.w;
    if (pen > 0.0) {
        b.p = b.p + n * pen;
    }
    let vn = dot(b.v, n);
    if (vn < 0.0) {
        var new_vn = -c.restitution * vn;
        let acc_vn = dot(acc_total, n) * dt;
        if (acc_vn < 0.0) {
            new_vn = max(new_vn + c.restitution * acc_vn, 0.0);
        }
        let vt = b.v - n * vn;
        let vt_len = length(vt);
        var scale = 0.0;
        if (vt_len > 0.0) {
            scale = max(vt_len - c.friction * (new_vn - vn), 0.0) / vt_len;
        }
        b.v = vt * scale + n * new_vn;
    }
    return b;
}
