// Stage `collide`: particle-particle contacts found on the uniform grid, and contacts with the
// static colliders, one thread per particle, Jacobi style: every thread reads the previous
// iterate (pos_in, vel_in) and writes only its own particle (pos_out, vel_out).
//
// Impacts (contacts closing faster than `impact_speed2`'s speed) get the book's velocity
// response (restitution with the resting-contact fix, Coulomb friction) and their penetration
// pushed out; their shares are averaged over the grain's engaged contacts. Without
// acceleration every closing contact is an impact and penetrations are pushed out without
// touching the velocity: the stage is then the book's impulse response alone (Newton's
// cradle).
//
// Resting contacts are position based (Macklin et al., "Unified Particle Physics for
// Real-Time Applications", 2014): the penetration is projected out, friction cancels the
// step's relative tangential displacement (v dt) up to friction x penetration, and the
// velocity follows every such correction (v += dx/dt). So after the last iteration
// v = (x_end - x_start)/dt: a grain held in place by its neighbours is at rest instead of
// keeping a velocity its position never shows, which is what kept a pile jittering. Their
// shares are summed and divided by max(1, n/RELAXATION) over the grain's n engaged contacts
// (averaging with over-relaxation, never above the plain sum), so a grain wedged in a pile is
// not pushed once per neighbour.
//
// The response is continuous in the contacts' speeds and depths, so that one bit of rounding
// cannot change a grain's fate: between the impact speed and sqrt(2) times it a contact is
// part impact, part resting (`impact_weight`), and n counts a resting contact in proportion to
// its depth up to REST_DEPTH x the two radii, a closing one that does not penetrate yet by its
// impact weight (a projected contact is left touching, its depth 0 give or take the last bit).
//
// Neighbours are visited in a fixed order (cells dz, dy, dx, then sorted order within a
// cell), so the sums are deterministic. Static colliders are applied afterwards, unaveraged,
// so walls stay hard. RELAXATION and REST_DEPTH come from src/aggregate/model.rs.
// CPU twin: src/aggregate/cpu.rs `collide`.

/// (1 + x/16)^16 with x clamped to [-16, 16]: close to e^x for the small arguments stack
/// scaling uses, and built from one exact scaling, one add and four squarings, which round the
/// same on every adapter and on the CPU (exp() does not: a one-ulp difference changes which
/// contacts count in a Jacobi iteration).
fn stack_weight(x: f32) -> f32 {
    var t = 1.0 + clamp(x, -16.0, 16.0) * 0.0625;
    t = t * t;
    t = t * t;
    t = t * t;
    return t * t;
}

/// The square of the impact speed between i (field acceleration `a_i`) and j: the speed the
/// larger of their two accelerations adds in two steps; 0 when neither accelerates (then every
/// closing contact is an impact). Squared so that no square root is compared.
fn impact_speed2(a_i: vec3<f32>, j: u32) -> f32 {
    let a_j = accel_field(j);
    let reach = 2.0 * params.dt;
    return reach * reach * max(dot(a_i, a_i), dot(a_j, a_j));
}

/// How much of a contact closing at `vn` is an impact, from 0 (resting) to 1: 0 when parting,
/// 1 when neither grain accelerates (impact2 = 0), else rising linearly in vn^2 from the
/// impact speed to sqrt(2) times it, so that the response stays continuous in vn.
fn impact_weight(vn: f32, impact2: f32) -> f32 {
    if (vn >= 0.0) {
        return 0.0;
    }
    if (impact2 == 0.0) {
        return 1.0;
    }
    return clamp((vn * vn - impact2) / impact2, 0.0, 1.0);
}

@compute @workgroup_size(WG)
fn collide(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.n) {
        return;
    }
    let dt = params.dt;
    let pv = pos_in[i];
    let vv = vel_in[i];
    let w = acc[i].w;
    let r = radius[i];
    var p = pv.xyz;
    var v = vv.xyz;
    if (pv.w != 0.0 && w > 0.0) {
        let a_i = accel_field(i);
        var dv = vec3<f32>(0.0);
        var dp = vec3<f32>(0.0);
        var dpr = vec3<f32>(0.0);
        var count = 0.0;
        if (params.collisions != 0u) {
            var keys = grid_neighbour_keys(grid_cell(p, params.inv_cell_size), params.table_mask);
            for (var m = 0u; m < 27u; m = m + 1u) {
                if (grid_key_is_repeat(&keys, m)) {
                    continue;
                }
                let key = keys[m];
                let start = grid_start[key];
                let end = grid_end[key];
                for (var s = start; s < end; s = s + 1u) {
                    let j = grid_sorted[s];
                    let pj = pos_in[j];
                    if (j == i || pj.w == 0.0) {
                        continue;
                    }
                    let rr = r + radius[j];
                    let d = p - pj.xyz;
                    let dist2 = dot(d, d);
                    let reach = rr + params.contact_slop;
                    if (dist2 > reach * reach) {
                        continue;
                    }
                    let dist = sqrt(dist2);
                    var n = vec3<f32>(0.0, select(-1.0, 1.0, i < j), 0.0);
                    if (dist > 0.0) {
                        n = d / dist;
                    }
                    // Stack scaling: the lower grain counts as heavier by about e^(k dy).
                    let wj = acc[j].w * stack_weight(params.stack_scaling * (pj.y - p.y));
                    let share = w / (w + wj);
                    let rel = v - vel_in[j].xyz;
                    let vn = dot(rel, n);
                    let pen = rr - dist;
                    let impact2 = impact_speed2(a_i, j);
                    let wi = impact_weight(vn, impact2);
                    if (wi > 0.0) {
                        var new_vn = -params.restitution * vn;
                        // The gravity fields act on both particles alike and cancel here.
                        let acc_vn = dot(acc[i].xyz - acc[j].xyz, n) * dt;
                        if (acc_vn < 0.0) {
                            new_vn = max(new_vn + params.restitution * acc_vn, 0.0);
                        }
                        let dvn = new_vn - vn;
                        var dvc = n * dvn;
                        let vt = rel - n * vn;
                        let vt_len = length(vt);
                        if (vt_len > 0.0) {
                            dvc = dvc - vt * (min(vt_len, params.friction * dvn) / vt_len);
                        }
                        let sw = share * wi;
                        dv = dv + dvc * sw;
                        if (pen > 0.0) {
                            dp = dp + n * (pen * sw);
                        }
                    }
                    if (impact2 == 0.0) {
                        // Without acceleration, the book's response alone.
                        if (wi > 0.0) {
                            count = count + 1.0;
                        } else if (pen > 0.0) {
                            dp = dp + n * (pen * share);
                            count = count + 1.0;
                        }
                    } else {
                        if (wi < 1.0 && pen > 0.0) {
                            var dpc = n * pen;
                            let vt = rel - n * vn;
                            let slip = length(vt) * dt;
                            if (slip > 0.0) {
                                dpc = dpc - vt * (dt * min(slip, params.friction * pen) / slip);
                            }
                            dpr = dpr + dpc * (share * (1.0 - wi));
                        }
                        count = count + max(wi, clamp(pen / (rr * REST_DEPTH), 0.0, 1.0));
                    }
                }
            }
        }
        if (count > 0.0) {
            let k = 1.0 / max(count / RELAXATION, 1.0);
            // The velocity follows the resting corrections: one division per grain.
            let dpk = dpr * k;
            v = v + dv / count + dpk / dt;
            p = p + dp / count + dpk;
        }
        for (var c = 0u; c < params.collider_count; c = c + 1u) {
            let col = colliders[c];
            let contact = collider_contact(col, p, r);
            if (contact.w > -params.contact_slop) {
                let b = resolve_contact(Body(p, v), col, contact, a_i, dt);
                p = b.p;
                v = b.v;
            }
        }
    }
    pos_out[i] = vec4<f32>(p, pv.w);
    vel_out[i] = vec4<f32>(v, vv.w);
}
