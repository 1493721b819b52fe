//! GPU-vs-CPU parity of the `narrow` kernel over random pairs of every shape combination, every
//! field of every manifold, with bounds from a model of what the two sides' roundings may do.
//!
//! **The model** ([`narrow_model`]). A contact is computed from the shapes' poses through a
//! chain of roundings at the scene's magnitudes: the shape's world pose (a quaternion turn of
//! its offset, QUAT = 34u of it, and ROUND of the sum), the other shape's pose in its frame
//! (another turn and ROUND), the separating-axis or closest-feature arithmetic (a dot product,
//! DOT3, a box's support radius, a clip's interpolation t = d₀/(d₀ − d₁), CONTRACT + ROUND +
//! DIV), and the turn back to the world (QUAT and ROUND): about 124u of the scene's extent
//! along the longest chain, taken as K = 128. The twin is run again with every input moved by
//! a uniform draw within that (body and offset positions by ±K·u of the extent per lane,
//! orientations by a turn of ±K·u per quaternion lane, dimensions by ±K·u of themselves), which
//! moves every contact as much as that chain's roundings could; the bound on each field of each
//! pair is the RMS over the draws of its difference from the unperturbed twin, times the
//! Gaussian factor one of the pairs' values exceeds with probability 10⁻³ (as the rigid
//! solver's model, per pair).
//!
//! **Decisions.** The count and feature ids of a manifold come from decisions (which axis
//! separates least, which features clip, whether a point is within the margin). A pair whose
//! count or features change in any draw sits within rounding of such a decision: it is counted
//! as divergent (model 3 of `common::error_model`): its ids must match, the rest may differ.
//! Every other pair must match its count and features exactly and its numbers within the
//! bounds; a defect moves every pair of the kinds it touches, far beyond both.
//!
//! The twin's narrow phase rounds only as written (it does not route through
//! `wgphys::rounding`), so this model, not the fused twin, stands for a compiler that contracts.

use super::*;
use common::error_model::{tail_factor, UNIT_ROUNDOFF as U};
use wgphys::rigid::narrow::collide_shapes;

/// The longest chain of roundings from the poses to a contact, in units of u of the scene's
/// extent (see the module docs).
const K: f64 = 128.0;
/// The scene's extent: body positions within ±1.5 m, offsets 0.3 m, sizes to 1 m (box half
/// extents), so points within 3 m of the origin.
const EXTENT: f64 = 3.0;
/// Perturbed runs of the twin.
const DRAWS: u64 = 24;

/// The combined friction (normal.w) and restitution (material.x): both weighted rules
/// (x·wₓ + y·w_y)/(wₓ + w_y) with weights √2·t + 1 ≤ 2.42 of materials t in [0, 1): a weight
/// CONTRACT of ≤ 1.42 and ROUND of ≤ 2.42 (6.3u), the numerator the weights' differences times
/// values < 1, CONTRACT of ≤ 2.42 and ROUND of ≤ 4.84 (24.7u), the denominator the weights' and
/// ROUND of ≤ 4.84 (22.3u), the quotient (≤ 1, denominator ≥ 2) (24.7 + 22.3)/2 and DIV: 31u
/// absolute, taken as 32u. The round radii and the rolling resistance (a product of the same
/// operands on both sides) are copies or the same bits: exact.
const MATERIAL: f64 = 32.0;

/// Per-field bounds: normal (per lane), point (per lane), penetration.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    normal: f32,
    point: f32,
    pen: f32,
}

/// `v` with its first `lanes` lanes moved by uniform draws of ±K·u·`scale`.
fn jitter(rng: &mut Rng, v: Vec4, scale: f32, lanes: usize) -> Vec4 {
    let k = (K * U) as f32;
    let mut out = v;
    for i in 0..lanes {
        out[i] += scale * k * (2.0 * rng.unit() - 1.0);
    }
    out
}

/// The scene with every input moved within the model's chain (see the module docs).
fn perturbed(
    rng: &mut Rng,
    bodies: &[GpuBody],
    shapes: &[GpuShape],
) -> (Vec<GpuBody>, Vec<GpuShape>) {
    let e = EXTENT as f32;
    let b: Vec<GpuBody> = bodies
        .iter()
        .map(|b| GpuBody {
            pos: jitter(rng, b.pos, e, 3),
            orient: jitter(rng, b.orient, 1.0, 4).normalize(),
            ..*b
        })
        .collect();
    let s: Vec<GpuShape> = shapes
        .iter()
        .map(|s| {
            let dims = if s.kind == shape_kind::HALF_SPACE || s.kind == shape_kind::PLANE {
                let n = jitter(rng, s.dims.truncate().extend(0.0), 1.0, 3)
                    .truncate()
                    .normalize();
                n.extend(jitter(rng, s.dims, e, 4).w)
            } else {
                // Radii, half lengths and half extents: ±K·u of themselves.
                let mut d = s.dims;
                for i in 0..3 {
                    d[i] *= 1.0 + (K * U) as f32 * (2.0 * rng.unit() - 1.0);
                }
                d
            };
            GpuShape {
                offset_pos: jitter(rng, s.offset_pos, e, 3),
                offset_rot: jitter(rng, s.offset_rot, 1.0, 4).normalize(),
                dims,
                ..*s
            }
        })
        .collect();
    (b, s)
}

/// The model's bounds for the scene, and which pairs sit within rounding of a decision.
fn narrow_model(
    params: &GpuRigidParams,
    bodies: &[GpuBody],
    shapes: &[GpuShape],
    pairs: &[[u32; 2]],
    want: &[GpuManifold],
    seed: u64,
) -> (Vec<Bounds>, Vec<bool>) {
    let mut divergent = vec![false; pairs.len()];
    let mut draws: Vec<Vec<[f32; 3]>> = Vec::new();
    let mut rng = Rng::new(seed ^ 0x9a77);
    for _ in 0..DRAWS {
        let (b, s) = perturbed(&mut rng, bodies, shapes);
        let mut diffs = vec![[0.0f32; 3]; pairs.len()];
        for (k, &[x, y]) in pairs.iter().enumerate() {
            let m = collide_shapes(params, &s, &b, &[], &[], x, y);
            let w = &want[k];
            if (m.count, m.features) != (w.count, w.features) {
                divergent[k] = true;
                continue;
            }
            let mut d = [
                (m.normal - w.normal).truncate().abs().max_element(),
                0.0,
                0.0,
            ];
            for i in 0..w.count.min(MAX_POINTS) as usize {
                let (p, q) = (m.points[i], w.points[i]);
                d[1] = d[1].max((p - q).truncate().abs().max_element());
                d[2] = d[2].max((p.w - q.w).abs());
            }
            diffs[k] = d;
        }
        draws.push(diffs);
    }
    // Per pair and field: the RMS over the draws times the factor one of the pairs' values
    // exceeds with probability 10⁻³ in all (a pair near an ill-conditioned configuration, two
    // sphere centres nearly together, two capsules nearly parallel, gets the large bound its
    // contact's sensitivity gives it; the others keep theirs).
    let tail = tail_factor(pairs.len() as f64, 1e-3);
    let bounds = (0..pairs.len())
        .map(|k| {
            let rms = |f: usize| {
                let sq: f64 = draws.iter().map(|d| f64::from(d[k][f]).powi(2)).sum();
                (tail * (sq / DRAWS as f64).sqrt()) as f32
            };
            Bounds {
                normal: rms(0),
                point: rms(1),
                pen: rms(2),
            }
        })
        .collect();
    (bounds, divergent)
}

/// Random bodies and shapes of every kind, placed close enough that most pairs touch.
fn random_scene(rng: &mut Rng, n: u32) -> (Vec<GpuBody>, Vec<GpuShape>) {
    let mut bodies = Vec::new();
    let mut shapes = Vec::new();
    for i in 0..n {
        let q = random_quat(rng);
        bodies.push(body(rng.vec3(-1.5, 1.5), q));
        let kind = 1 + i % 5;
        let dims = match kind {
            shape_kind::SPHERE => Vec4::new(rng.range(0.1, 0.8), 0.0, 0.0, 0.0),
            shape_kind::BOX => rng.vec3(0.1, 1.0).extend(0.0),
            shape_kind::CAPSULE => Vec4::new(rng.range(0.1, 0.5), rng.range(0.0, 1.0), 0.0, 0.0),
            _ => {
                let nrm = rng.vec3(-1.0, 1.0).normalize_or(Vec3::Y);
                nrm.extend(rng.range(-0.5, 0.5))
            }
        };
        let mut s = shape(kind, i, dims);
        // Some shapes sit off their body's origin, rotated in its frame.
        if i % 3 == 0 {
            s.offset_pos = rng.vec3(-0.3, 0.3).extend(0.0);
            s.offset_rot = random_quat(rng);
        }
        s.material = Vec4::new(rng.unit(), rng.unit(), 0.0, 0.0);
        shapes.push(s);
    }
    (bodies, shapes)
}

#[test]
fn narrow_matches_the_cpu_twin() {
    // Eight scenes, margins 0, 2 cm and 10 cm.
    for seed in 31u64..39 {
        let margin = [0.0f32, 0.02, 0.1][(seed % 3) as usize];
        narrow_parity(seed, margin);
    }
}

fn narrow_parity(seed: u64, margin: f32) {
    let mut rng = Rng::new(seed);
    let n_shapes = 60u32;
    let (bodies, shapes) = random_scene(&mut rng, n_shapes);
    let mut pairs = Vec::new();
    for a in 0..n_shapes {
        for b in a + 1..n_shapes {
            pairs.push([a, b]);
        }
    }
    // A pair count that is not a multiple of the workgroup, and spare slots after it.
    pairs.truncate(1700 - 3);
    let cap = 1700u32;
    let params = GpuRigidParams {
        contact_margin: margin,
        pair_capacity: cap,
        shape_count: n_shapes,
        body_count: n_shapes,
        combine_friction: Combine::WeightedFriction.code(),
        combine_restitution: Combine::WeightedRestitution.code(),
        ..Default::default()
    };
    let mut g = GpuRigid::new(
        &gpu(),
        GpuRigidSizes {
            bodies: n_shapes,
            shapes: n_shapes,
            pairs: cap,
            solver_words: u64::from(cap) * u64::from(wgphys::rigid::solver::solver_record_rows()),
            pair_scratch_words: 64,
            grid: GridSpec::new(1.0, 64).expect("grid"),
            block_bins: 0,
            joints: 0,
            joint_filter: 0,
            generators: 0,
        },
    )
    .expect("gpu backend");
    let sentinel = GpuManifold {
        count: 99,
        ..Default::default()
    };
    let mut counters = vec![0u32; counter::LEN];
    counters[counter::PAIRS] = pairs.len() as u32;
    let flat: Vec<u32> = pairs.iter().flatten().copied().collect();
    g.write(&g.params, &[params]);
    g.write(&g.bodies, &bodies);
    g.write(&g.shapes, &shapes);
    g.write(&g.pairs, &flat);
    g.write(&g.counters, &counters);
    g.write(&g.manifolds, &vec![sentinel; cap as usize]);
    g.run(&[Pass::over("narrow", cap)]).expect("run");
    let got: Vec<GpuManifold> = g.read(&g.manifolds, cap as usize).expect("read");
    let mut want = vec![sentinel; cap as usize];
    narrow(&params, &shapes, &bodies, &[], &[], &[], &pairs, &mut want);
    let (bounds, divergent) = narrow_model(&params, &bodies, &shapes, &pairs, &want, seed);
    let material = (MATERIAL * U) as f32;
    let mut touching = [0u32; 6 * 6];
    let (mut worst, mut used, mut flagged) = ([0.0f32; 4], [0.0f32; 3], 0usize);
    for (k, (a, c)) in got.iter().zip(&want).enumerate() {
        let kinds = if k < pairs.len() {
            format!(
                "kinds {}–{}",
                shapes[c.shape_a as usize].kind, shapes[c.shape_b as usize].kind
            )
        } else {
            String::from("spare slot")
        };
        let kinds = format!("seed {seed}, {kinds}");
        assert_eq!(
            (a.body_a, a.body_b, a.shape_a, a.shape_b, a.colour),
            (c.body_a, c.body_b, c.shape_a, c.shape_b, c.colour),
            "manifold {k} ({kinds}): ids"
        );
        if divergent.get(k).copied().unwrap_or(false) {
            flagged += 1;
            continue;
        }
        // Spare slots past the pairs: untouched sentinels on both sides.
        let bound = bounds.get(k).copied().unwrap_or(Bounds {
            normal: 0.0,
            point: 0.0,
            pen: 0.0,
        });
        assert_eq!(
            (a.count, a.features, a.dynamic),
            (c.count, c.features, c.dynamic),
            "manifold {k} ({kinds}) fields count, features, dynamic:\ngpu {a:?}\ncpu {c:?}"
        );
        // The impulses and rolling impulse start at zero (no warm start here): copied.
        assert_eq!(
            (a.impulses, a.rolling),
            (c.impulses, c.rolling),
            "manifold {k} ({kinds}) fields impulses, rolling"
        );
        let dn = (a.normal - c.normal).truncate().abs().max_element();
        assert!(
            dn <= bound.normal,
            "manifold {k} ({kinds}) field normal: gpu {:?} cpu {:?} (bound {:e})",
            a.normal,
            c.normal,
            bound.normal
        );
        if dn > 0.0 {
            used[0] = used[0].max(dn / bound.normal);
        }
        let dm = (a.material - c.material)
            .abs()
            .max_element()
            .max((a.normal.w - c.normal.w).abs());
        assert!(
            dm <= material,
            "manifold {k} ({kinds}) field material / friction: gpu {:?} {} cpu {:?} {} (bound \
             {material:e})",
            a.material,
            a.normal.w,
            c.material,
            c.normal.w
        );
        worst[0] = worst[0].max(dn);
        worst[3] = worst[3].max(dm);
        for i in 0..MAX_POINTS as usize {
            let (p, q) = (a.points[i], c.points[i]);
            if i >= c.count.min(MAX_POINTS) as usize {
                assert_eq!(p, q, "manifold {k} ({kinds}) unused points[{i}]");
                continue;
            }
            let (dp, dpen) = ((p - q).truncate().abs().max_element(), (p.w - q.w).abs());
            assert!(
                dp <= bound.point && dpen <= bound.pen,
                "manifold {k} ({kinds}) field points[{i}]: gpu {p:?} cpu {q:?} (bounds {:e} m, \
                 {:e} m)",
                bound.point,
                bound.pen
            );
            if dp > 0.0 {
                used[1] = used[1].max(dp / bound.point);
            }
            if dpen > 0.0 {
                used[2] = used[2].max(dpen / bound.pen);
            }
            worst[1] = worst[1].max(dp);
            worst[2] = worst[2].max(dpen);
        }
        if k < pairs.len() && c.count > 0 {
            let ka = shapes[c.shape_a as usize].kind as usize;
            let kb = shapes[c.shape_b as usize].kind as usize;
            touching[ka * 6 + kb] += 1;
        }
    }
    let median = |f: fn(&Bounds) -> f32| {
        let mut v: Vec<f32> = bounds.iter().map(f).filter(|x| *x > 0.0).collect();
        v.sort_by(f32::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    eprintln!(
        "[measure] narrow seed {seed}: {flagged} of {} pairs within rounding of a decision; \
         GPU–twin normal {:.1e}, point {:.1e} m, penetration {:.1e} m (largest share of a pair's \
         bound {:.0}%, {:.0}%, {:.0}%; median bounds {:.1e}, {:.1e} m, {:.1e} m), material \
         {:.1e} ({material:.1e})",
        pairs.len(),
        worst[0],
        worst[1],
        worst[2],
        100.0 * used[0],
        100.0 * used[1],
        100.0 * used[2],
        median(|b| b.normal),
        median(|b| b.point),
        median(|b| b.pen),
        worst[3]
    );
    assert!(
        flagged * 20 <= pairs.len(),
        "seed {seed}: {flagged} of {} pairs within rounding of a decision",
        pairs.len()
    );
    // Every pair kind with contacts was exercised.
    use shape_kind::*;
    for (ka, kb) in [
        (SPHERE, SPHERE),
        (SPHERE, BOX),
        (SPHERE, CAPSULE),
        (SPHERE, HALF_SPACE),
        (SPHERE, PLANE),
        (BOX, BOX),
        (BOX, CAPSULE),
        (BOX, HALF_SPACE),
        (BOX, PLANE),
        (CAPSULE, CAPSULE),
        (CAPSULE, HALF_SPACE),
        (CAPSULE, PLANE),
    ] {
        assert!(
            touching[(ka * 6 + kb) as usize] > 0,
            "no touching pair of kinds {ka}–{kb} in the scene"
        );
    }
}
