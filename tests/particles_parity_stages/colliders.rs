//! Parity of the collider contact stage: half-spaces, spheres and rotated boxes, alone and
//! together, on inputs kept away from ill-conditioned contacts.

use super::*;

/// Restitution and friction of the colliders here at their largest ([`half_space`],
/// [`sphere`], [`rotated_box`]).
const E_MAX: f64 = 0.7;
const MU_MAX: f64 = 0.5;

/// What `quat_rotate(q, v)` may differ by, per lane, in units of u·|v| (|q| = 1): t =
/// 2·cross(q, v), each lane a·b − c·d contracted or not (CONTRACT + ROUND of values ≤ |v|,
/// doubled: 6); v + q.w·t (CONTRACT of |t| ≤ 2, ROUND of ≤ 3: 8, and t's 6); cross(q, t) (its
/// own 6, and t's 6 through it, ≤ √3·6 as a vector); the final sum (ROUND): 34 in all.
const QUAT: f64 = 34.0;

/// The model for one step against the colliders of `collider_case`, at the magnitudes of the
/// four cases (centres within 9.6 m of the origin after a step, speeds up to
/// |v| ≤ √3·(20 + 19.81·dt) m/s, accelerations |a + g| ≤ √(10² + 19.81² + 10²) m/s²).
///
/// The contact's normal n may differ by (u, unit vector): 0 on a half-space (the host's
/// normalised normal, copied); on a box face LENGTH + DIV for the local normal diff/|diff| and
/// QUAT for its rotation; on a sphere 2·|Δd|/|d| + LENGTH + DIV for d = p − c, which
/// [`well_conditioned`] keeps at |d| ≥ 1 m, where |Δd| (ROUND of |p| ≤ |c| + 1 and of |d|, and
/// CONTRACT of |v·dt|) makes it less than the box's. The response
/// (`error_model::contact_response`) maps the integration's velocity difference with Lipschitz
/// constant L_V, the normal's with N_SENS times the speed, and adds its own roundings.
///
/// Velocities: L_V·STEP_V (the integration's difference) + the response's roundings + N_SENS
/// times the normal's, all of the speed. Positions: the push-out p + n·pen adds to the
/// integration's difference (ROUND of |p|, CONTRACT of v·dt) the depth's difference (per shape
/// below), pen times the normal's, CONTRACT of pen and ROUND of the result; the largest of the
/// three shapes. Free particles keep [`INTEGRATE`]'s relative parts.
fn colliders_tol() -> SnapTol {
    let speed = 3f64.sqrt() * (V_LANE + (A_LANE + 9.81) * DT64);
    let accel = (2.0 * A_LANE * A_LANE + (A_LANE + 9.81).powi(2)).sqrt();
    let [l_v, n_sens, resolve] = error_model::contact_response(E_MAX, MU_MAX);
    let box_normal = QUAT + LENGTH + DIV;
    // The resting-contact fix's dot(a, n)·dt: DOT3 + ROUND of |a|·dt and the normal's
    // difference, times e and the friction's μ.
    let rest = E_MAX * (1.0 + MU_MAX) * accel * DT64 * (box_normal + DOT3 + ROUND);
    let vel_abs = (l_v * STEP_V + resolve + n_sens * box_normal) * speed + rest;

    // An integrated centre's difference.
    let moved = |p: f64| ROUND * p + CONTRACT * speed * DT64;
    // Half-space (the lowest corners of the "half-space" and "all" boxes: |p| ≤ 9.6 m, the
    // offset 4.5 m, depth ≤ 6.1 m): pen = r − (dot(n, p) − offset), DOT3 of |p|, ROUND of the
    // difference and of pen.
    let (p, off, pen) = (9.6, 4.5, 6.1);
    let pen_diff = moved(p) + DOT3 * p + ROUND * (p + off) + ROUND * pen;
    let half_space = moved(p) + pen_diff + CONTRACT * pen + ROUND * (p + pen);
    // Sphere ("all": centre 3.54 m from the origin, radius 2 m; "sphere": 0.4 m, 2.5 m): at
    // |d| ≥ 1 m the depth R + r − |d| is at most 2 m; d = p − c ROUND of |d| ≤ 3 m, |d| LENGTH.
    let (c, d_max, pen) = (3.54, 3.0, 2.0);
    let d_diff = |d: f64| moved(c + d) + ROUND * d;
    let normal = 2.0 * d_diff(1.0) + LENGTH + DIV;
    let pen_diff = d_diff(d_max) + LENGTH * d_max + ROUND * (d_max + pen);
    let sphere = moved(c + d_max) + pen * normal + pen_diff + CONTRACT * pen + ROUND * (c + d_max);
    // Box ("rotated box": |p| ≤ 3.8 m, |p − c| ≤ |h| + r ≤ 3.2 m; depth ≤ min h + r = 1.5 m):
    // the local position quat_rotate(conj, p − c) (ROUND + QUAT of |p − c|), then |diff|
    // (LENGTH of ≤ r) or the face depth (ROUND), ROUND of pen.
    let (p, local, pen) = (3.8, 3.2, 1.5);
    let pen_diff = moved(p) + (ROUND + QUAT) * local + LENGTH * 0.5 + 2.0 * ROUND * pen;
    let boxed = moved(p) + pen * box_normal + pen_diff + CONTRACT * pen + ROUND * p;
    let pos_abs = half_space.max(sphere).max(boxed);

    let free = step_model(1, V_LANE, A_LANE + 9.81);
    // The other fields are exact as in [`steps_tol`]: a contact changes only position and
    // velocity.
    SnapTol {
        pos: tol(free[0], pos_abs),
        vel: tol(free[2], vel_abs),
        ..SnapTol::EXACT
    }
}

fn half_space(offset: f32) -> ParticleCollider {
    ParticleCollider {
        shape: ColliderShape::HalfSpace {
            normal: Vec3::new(0.2, 1.0, -0.1),
            offset,
        },
        restitution: 0.6,
        friction: 0.4,
    }
}

fn sphere(centre: Vec3, radius: f32) -> ParticleCollider {
    ParticleCollider {
        shape: ColliderShape::Sphere { centre, radius },
        restitution: 0.7,
        friction: 0.2,
    }
}

fn rotated_box(centre: Vec3, half_extents: Vec3) -> ParticleCollider {
    ParticleCollider {
        shape: ColliderShape::Box {
            centre,
            half_extents,
            rotation: Quat::from_euler(EulerRot::XYZ, 0.3, 0.7, -0.4),
        },
        restitution: 0.4,
        friction: 0.5,
    }
}

/// Signed penetration of a ball of radius `r` at `p` into a collider, written independently of
/// the engine (positive: overlapping).
fn penetration(c: &ParticleCollider, p: Vec3, r: f32) -> f32 {
    match c.shape {
        ColliderShape::HalfSpace { normal, offset } => r - (normal.normalize().dot(p) - offset),
        ColliderShape::Sphere { centre, radius } => radius + r - (p - centre).length(),
        ColliderShape::Box {
            centre,
            half_extents,
            rotation,
        } => {
            let l = rotation.normalize().inverse() * (p - centre);
            let outside = (l.abs() - half_extents).max(Vec3::ZERO).length();
            if outside > 0.0 {
                r - outside
            } else {
                r + (half_extents - l.abs()).min_element()
            }
        }
    }
}

/// Whether a ball of radius `r` centred at `p` gives a contact whose outcome is a
/// well-conditioned function of `p`.
///
/// Three configurations are not, on any hardware. The contact test `penetration > −slop` is a
/// decision: a centre within rounding of it is resolved on one side and not on the other (model
/// 3 of tests/common/error_model.rs). Beside a box's edge or corner the normal is
/// `diff / |diff|` of a short vector whose components carry the rounding of the box-local
/// position (an ulp of ~2 m is 2.4e-7), so its direction is only good to ulp/|diff| — arbitrarily
/// bad as the centre nears the edge; and inside the box the exit face is the smallest depth, a
/// choice that flips on a rounding error when two depths tie. The random inputs avoid these by a
/// wide margin (`EDGE_MARGIN`, a thousand times the depth's difference in [`colliders_tol`]), so
/// the comparison measures arithmetic, not luck. A sphere's normal d/|d| carries the centre's
/// rounding divided by |d|: the inputs stay 1 m from its centre, where that is below a box
/// normal's difference ([`colliders_tol`]). Faces of boxes and half-spaces are well-conditioned
/// everywhere.
fn well_conditioned(c: &ParticleCollider, p: Vec3, r: f32) -> bool {
    const EDGE_MARGIN: f32 = 1e-3;
    let slop = WorldConfig::default().contact_slop;
    if (penetration(c, p, r) + slop).abs() <= EDGE_MARGIN {
        return false;
    }
    match c.shape {
        ColliderShape::HalfSpace { .. } => true,
        ColliderShape::Sphere { centre, .. } => (p - centre).length() > 1.0,
        ColliderShape::Box {
            centre,
            half_extents,
            rotation,
        } => {
            let l = (rotation.normalize().inverse() * (p - centre)).abs();
            let out = l - half_extents;
            let outside_axes = (0..3).filter(|&k| out[k] > -EDGE_MARGIN).count();
            if out.max_element() > 0.0 {
                // Outside: fine in a face region (one axis out, the others clearly in), or far
                // enough away that no particle reaches it (radius 0.5 + slop).
                outside_axes <= 1 || out.max(Vec3::ZERO).length() > 1.0
            } else {
                let mut d = [-out.x, -out.y, -out.z];
                d.sort_by(f32::total_cmp);
                d[1] - d[0] > EDGE_MARGIN
            }
        }
    }
}

/// After the contact stage no particle overlaps a lone collider by more than this: the push-out
/// lands on the surface up to rounding of coordinates below 8 m (ulp 4.8e-7), a few ulps.
const RESOLVED_OVERLAP: f32 = 1e-5;

/// Particles start in the box `lo..hi`, chosen per case so that a good share of them overlap a
/// collider after one free-flight step. In the case with several colliders the shapes are at
/// least 1.6 m apart (more than two radii plus a step's travel), so a particle meets at most one.
fn collider_case(
    name: &str,
    colliders: Vec<ParticleCollider>,
    lo: Vec3,
    hi: Vec3,
    seed: u64,
    rounding: CpuRounding,
) {
    for n in SIZES {
        let mut rng = Rng::new(seed + u64::from(n));
        let ps: Vec<Particle> = (0..n)
            .map(|_| loop {
                let p = random_particle(&mut rng, 0.0, 1.0);
                let p = Particle {
                    position: lo + (hi - lo) * p.position,
                    ..p
                };
                if colliders
                    .iter()
                    .all(|c| well_conditioned(c, p.position + p.velocity * DT, p.size))
                {
                    break p;
                }
            })
            .collect();
        let cfg = WorldConfig {
            colliders: colliders.clone(),
            fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
            ..config(n)
        };
        let (mut g, mut c) = spawn_both(&cfg, &ps, rounding);
        let (sg, sc) = step_and_compare(
            &format!("colliders {name} n={n} ({rounding:?} CPU)"),
            &mut g,
            &mut c,
            colliders_tol(),
        );
        // The case must exercise contacts: count particles whose free-flight position (p + v dt)
        // overlaps a collider.
        let hits = ps
            .iter()
            .filter(|p| {
                p.inverse_mass > 0.0
                    && colliders
                        .iter()
                        .any(|col| penetration(col, p.position + p.velocity * DT, p.size) > 0.0)
            })
            .count();
        if n >= 63 {
            assert!(hits * 5 >= n as usize, "colliders {name} n={n}: only {hits} particles touch a collider; the case tests nothing");
        }
        // Physics: nothing movable is left overlapping a collider.
        for (label, s) in [("gpu", &sg), ("cpu", &sc)] {
            for (i, p) in ps.iter().enumerate().filter(|(_, p)| p.inverse_mass > 0.0) {
                for (k, col) in colliders.iter().enumerate() {
                    let pen = penetration(col, s.pos[i].truncate(), p.size);
                    assert!(pen <= RESOLVED_OVERLAP, "{label} colliders {name} n={n}: slot {i} still overlaps collider {k} by {pen} m");
                }
            }
        }
    }
}

fn half_space_case(rounding: CpuRounding) {
    collider_case(
        "half-space",
        vec![half_space(0.5)],
        Vec3::splat(-4.0),
        Vec3::splat(4.0),
        0x7_0000,
        rounding,
    );
}

#[test]
fn colliders_half_space() {
    half_space_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn colliders_half_space_fused_cpu() {
    half_space_case(CpuRounding::Fused);
}

fn sphere_case(rounding: CpuRounding) {
    let c = Vec3::new(0.3, -0.2, 0.1);
    collider_case(
        "sphere",
        vec![sphere(c, 2.5)],
        c - 2.5,
        c + 2.5,
        0x8_0000,
        rounding,
    );
}

#[test]
fn colliders_sphere() {
    sphere_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn colliders_sphere_fused_cpu() {
    sphere_case(CpuRounding::Fused);
}

fn rotated_box_case(rounding: CpuRounding) {
    let c = Vec3::new(0.5, -0.2, 0.3);
    collider_case(
        "rotated box",
        vec![rotated_box(c, Vec3::new(2.0, 1.0, 1.5))],
        c - 2.2,
        c + 2.2,
        0x9_0000,
        rounding,
    );
}

#[test]
fn colliders_rotated_box() {
    rotated_box_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn colliders_rotated_box_fused_cpu() {
    rotated_box_case(CpuRounding::Fused);
}

/// A tilted ground below a sphere and a rotated box side by side (gaps of 1.9 m and more).
fn all_colliders_case(rounding: CpuRounding) {
    let colliders = vec![
        half_space(-4.5),
        sphere(Vec3::new(-3.5, 0.5, 0.0), 2.0),
        rotated_box(Vec3::new(3.5, 0.5, 0.0), Vec3::new(1.5, 1.0, 1.2)),
    ];
    collider_case(
        "all",
        colliders,
        Vec3::new(-6.0, -6.0, -3.0),
        Vec3::new(6.0, 3.0, 3.0),
        0xa_0000,
        rounding,
    );
}

#[test]
fn colliders_all_together() {
    all_colliders_case(CpuRounding::Separate);
}

/// The same bounds with the CPU twin rounding as NVIDIA may (error model).
#[test]
fn colliders_all_together_fused_cpu() {
    all_colliders_case(CpuRounding::Fused);
}

/// `collider_in_reach`, which lets the integrate and collide stages skip the contacts of a
/// particle no collider is near, must never refuse a collider whose contact would act (depth
/// above −slop): then skipping leaves the same bits. Points are drawn on shells within ±2% of
/// the reach of each shape (for boxes also in the corner directions, where the bounding
/// sphere is tight), with radii from 0 to 0.5 m and slops from 0.1 mm to 10 cm, in both CPU
/// roundings; far points (three times the reach) must be refused, or the skip skips nothing.
#[test]
fn collider_reach_never_refuses_an_acting_contact() {
    use wgphys::particles::cpu::{collider_contact, collider_in_reach};
    use wgphys::particles::types::GpuCollider;
    for rounding in [CpuRounding::Separate, CpuRounding::Fused] {
        wgphys::rounding::with_cpu_rounding(rounding, || {
            let mut rng = Rng::new(91);
            let (mut acting, mut far, mut refused_far) = (0u32, 0u32, 0u32);
            for case in 0..3000u32 {
                let kind = 1 + case % 3;
                let centre = rng.vec3(-50.0, 50.0);
                let h = Vec3::new(
                    rng.range(0.05, 4.0),
                    rng.range(0.05, 4.0),
                    rng.range(0.05, 4.0),
                );
                let q = Quat::from_euler(
                    EulerRot::XYZ,
                    rng.range(-3.0, 3.0),
                    rng.range(-3.0, 3.0),
                    rng.range(-3.0, 3.0),
                );
                let normal = rng.vec3(-1.0, 1.0).try_normalize().unwrap_or(Vec3::Y);
                let c = GpuCollider {
                    kind,
                    a: match kind {
                        1 => normal.extend(rng.range(-20.0, 20.0)),
                        2 => centre.extend(rng.range(0.05, 5.0)),
                        _ => centre.extend(0.0),
                    },
                    b: h.extend(0.0),
                    q: Vec4::from(q).normalize(),
                    ..Default::default()
                };
                let r = if rng.chance(0.1) {
                    0.0
                } else {
                    rng.range(0.0, 0.5)
                };
                let slop = [1e-4, 1e-3, 0.1][rng.below(3) as usize];
                for _ in 0..20 {
                    let dir = if kind == 3 && rng.chance(0.5) {
                        // A corner's direction in world space.
                        let s = |b: bool| if b { 1.0 } else { -1.0 };
                        q * (h * Vec3::new(
                            s(rng.chance(0.5)),
                            s(rng.chance(0.5)),
                            s(rng.chance(0.5)),
                        ))
                    } else {
                        rng.vec3(-1.0, 1.0)
                    };
                    let Some(dir) = dir.try_normalize() else {
                        continue;
                    };
                    let shell = rng.range(0.98, 1.02);
                    let p = match kind {
                        1 => normal * (c.a.w + r + slop * shell) + dir.cross(normal) * 30.0,
                        2 => centre + dir * (c.a.w + r + slop) * shell,
                        _ => {
                            // Out from the box's surface along `dir` by (r + slop)·shell.
                            let local = q.inverse() * dir;
                            let t = (h / local.abs().max(Vec3::splat(1e-6))).min_element();
                            centre + dir * (t + (r + slop) * shell)
                        }
                    };
                    if collider_contact(&c, p, r).w > -slop {
                        acting += 1;
                        assert!(
                            collider_in_reach(&c, p, r, slop),
                            "{rounding:?}: collider {c:?} refused at {p:?} (r {r}, slop {slop}), \
                             though its contact acts (depth {})",
                            collider_contact(&c, p, r).w
                        );
                    }
                    if kind != 1 {
                        far += 1;
                        let reach = if kind == 2 { c.a.w } else { h.length() } + r + slop;
                        if !collider_in_reach(&c, centre + dir * 3.0 * reach, r, slop) {
                            refused_far += 1;
                        }
                    }
                }
            }
            // About half the shell points act (inside the reach), and every far point of a
            // sphere or box is refused.
            assert!(
                acting > 10_000,
                "{rounding:?}: only {acting} acting contacts drawn"
            );
            assert_eq!(refused_far, far, "{rounding:?}: far points in reach");
        });
    }
}
