// Conservative advancement for the `ccd` stage: the time of impact of a convex shape swept back
// along its body's motion over the (sub)step (translation and the integrator's turn about the
// centre of mass) against a still convex shape or a plane. CPU twin: src/rigid/hull/ca.rs
// (`integrator_turn`, `quat_from_rotation`, `sweep_frame`, `sweep_toi`; read its docs), same
// operation order; at most CA_MAX_ITERATIONS (prelude) GJK calls.

/// ca.rs `integrator_turn`: the rotation vector rigid_integrate turns a body by for ω·h.
fn ca_integrator_turn(w_dt: vec3<f32>) -> vec3<f32> {
    let a = sqrt(dot(w_dt, w_dt));
    if (a <= 0.0) {
        return vec3<f32>(0.0);
    }
    return w_dt * (2.0 * atan(0.5 * a) / a);
}

/// ca.rs `quat_from_rotation`.
fn ca_quat_from_rotation(phi: vec3<f32>) -> vec4<f32> {
    let a = sqrt(dot(phi, phi));
    if (a <= 0.0) {
        return vec4<f32>(0.0, 0.0, 0.0, 1.0);
    }
    let h = 0.5 * a;
    return vec4<f32>(phi * (sin(h) / a), cos(h));
}

/// ca.rs `sweep_frame`: the shape's frame at fraction t of the body's motion.
fn ca_sweep_frame(end: HullFrame, centre: vec3<f32>, disp: vec3<f32>, theta: vec3<f32>,
                  t: f32) -> HullFrame {
    let back = 1.0 - t;
    let turn = hull_frame(vec3<f32>(0.0), ca_quat_from_rotation(theta * -back));
    let c = centre - disp * back;
    return HullFrame(
        c + hull_frame_dir(turn, end.pos - centre),
        mat3x3<f32>(
            hull_frame_dir(turn, end.rot[0]),
            hull_frame_dir(turn, end.rot[1]),
            hull_frame_dir(turn, end.rot[2]),
        ),
    );
}

/// ca.rs `sweep_toi`: the fraction at which a comes within gap + tolerance of the target (the
/// convex shape b, or with `plane_target` the plane p·n = w of `plane`); −1 for none.
fn ca_sweep_toi(a: ConvexShape, centre: vec3<f32>, disp: vec3<f32>, theta: vec3<f32>,
                arm: f32, plane_target: bool, b: ConvexShape, plane: vec4<f32>, gap: f32,
                tolerance: f32) -> f32 {
    let spin = sqrt(dot(theta, theta)) * arm;
    var sa = a;
    var t = 0.0;
    for (var it = 0u; it < CA_MAX_ITERATIONS; it++) {
        sa.frame = ca_sweep_frame(a.frame, centre, disp, theta, t);
        var distance: f32;
        var normal: vec3<f32>;
        var overlap: bool;
        if (plane_target) {
            distance = dot(plane.xyz, cs_support(sa, -plane.xyz)) - plane.w - sa.dims.w;
            normal = plane.xyz;
            overlap = distance <= 0.0;
        } else {
            let g = gjk(sa, b);
            distance = g.distance;
            normal = g.normal;
            overlap = g.overlap;
        }
        if (overlap) {
            if (t > 0.0) {
                return t;
            }
            return -1.0;
        }
        let mu = -dot(disp, normal) + spin;
        if (mu <= 0.0) {
            return -1.0;
        }
        if (distance <= gap + tolerance) {
            if (t > 0.0) {
                return t;
            }
            let closes = dot(normal, cs_support(a, -normal) - cs_support(sa, -normal));
            if (closes < -(gap + tolerance)) {
                return t;
            }
            return -1.0;
        }
        t += (distance - gap) / mu;
        if (t >= 1.0) {
            return -1.0;
        }
    }
    return t;
}
