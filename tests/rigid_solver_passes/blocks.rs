//! The block solver (`solver::block`) on the GPU against its CPU twin.

use super::*;

/// The block solver (`solver::block`): the parity scene's contacts (random pairs of bodies up
/// to 10 m apart, a hub of 40, more than a bin's 31 independent colours) in blocks of 4
/// one-metre cells hashed into 4 bins per partition, so that every partition, the leftover bin,
/// the sequential colour and bins holding several blocks all occur; 2 sweeps per block and
/// relax round. The GPU's colours and order are the twin's exactly (integer keys, a stable
/// sort, first fit in slot order per bin), its bodies and impulses agree within the error
/// model's bound (`model_tolerance`; the same operations as the colour-by-colour solver, in
/// another order), and a rerun is bit-identical.
#[test]
fn the_gpu_block_solver_matches_the_cpu_twin() {
    let (bodies, ms, prev, p) = block_scene();
    assert!(wgphys::rigid::step::block_solver(&p));
    let mut want_bodies = bodies.clone();
    let mut want_ms = ms.clone();
    solve(&p, &mut want_bodies, &mut want_ms, &prev);
    // The twin's block order and colours.
    let mut cpu_ms = ms.clone();
    solver::warm_start(&p, &mut cpu_ms, &prev);
    let blocks = solver::block::block_colour(&p, &bodies, &mut cpu_ms);
    assert!(
        blocks.batches.uncoloured > 0,
        "the hub's 40 contacts in the leftover bin should overflow into the sequential colour"
    );
    for part in 0..=solver::block::PARTITIONS {
        assert!(
            blocks.bins.iter().any(|b| b.0 == part),
            "the scene should put contacts in partition {part} (4: the leftover bin)"
        );
    }
    assert!(
        blocks.bins.iter().any(|(_, batches)| {
            let first = blocks.batches.batch(batches.start);
            batches.clone().any(|j| {
                blocks.batches.batch(j).iter().chain(first).any(|&k| {
                    let key = |k: u32| {
                        let m = &cpu_ms[k as usize];
                        let a = &bodies[m.body_a as usize];
                        (a.pos.xyz() / 4.0).floor()
                    };
                    key(k) != key(first[0])
                })
            })
        }),
        "some bin should hold contacts of more than one block"
    );
    let passes = solver_passes(&p);
    let names: Vec<&str> = passes.iter().map(entry).collect();
    assert!(names.contains(&"block_colour") && names.contains(&"solve_relax_block"));
    assert!(
        !names.contains(&"colour_round") && !names.contains(&"colour_round_listed"),
        "no colouring rounds with blocks"
    );
    assert!(
        !names.contains(&"solve_relax"),
        "no per-colour sweep with blocks"
    );
    let first = run_gpu(&p, &passes, &bodies, &ms, &prev);
    let tol = model_tolerance(&bodies, &ms, |m| {
        let (mut b, mut m) = (bodies.clone(), m.to_vec());
        solve(&p, &mut b, &mut m, &prev);
        (b, m)
    });
    let d = max_rel_diff((&first.bodies, &first.manifolds), (&want_bodies, &want_ms));
    eprintln!("[measure] block solver: GPU–twin {d}");
    eprintln!("[measure] block solver: the model's bounds {tol}");
    assert_eq!(
        &first.order[..blocks.batches.order.len()],
        &blocks.batches.order[..],
        "the block order"
    );
    for (k, (g, c)) in first.manifolds.iter().zip(&cpu_ms).enumerate() {
        assert_eq!(g.colour, c.colour, "the colour of manifold {k}");
        assert_eq!(g.dynamic, c.dynamic, "the dynamic bits of manifold {k}");
    }
    assert_solve_close(
        "blocks",
        tol,
        (&first.bodies, &first.manifolds),
        (&want_bodies, &want_ms),
    );
    let again = run_gpu(&p, &passes, &bodies, &ms, &prev);
    assert!(
        bytemuck::cast_slice::<GpuBody, u8>(&again.bodies)
            == bytemuck::cast_slice::<GpuBody, u8>(&first.bodies)
            && bytemuck::cast_slice::<GpuManifold, u8>(&again.manifolds)
                == bytemuck::cast_slice::<GpuManifold, u8>(&first.manifolds),
        "a rerun of the block solver is not bit-identical"
    );
}

/// The block solver's sort keys: every key of bin b lies in bin b's range of keys and below
/// the empty key, whatever the slot's shuffle bucket, and up to 4,096 bins per partition (a
/// world of 131,072 body slots) the keys take at most 16 bits: two radix passes of 8 bits.
#[test]
fn block_sort_keys_stay_in_their_bin_and_in_16_bits() {
    use solver::block::{empty_key, key_bits, leftover_bin, shuffle_bits, sort_key, KEY_BITS};
    for bins in (0..=14).map(|e| 1u32 << e) {
        let s = shuffle_bits(bins);
        assert!((1..=5).contains(&s));
        for bin in [0, bins - 1, leftover_bin(bins)] {
            for k in 0..64 {
                let key = sort_key(bin, k, bins);
                assert_eq!(key >> s, bin, "bins {bins}, bin {bin}, slot {k}");
                assert!(key < empty_key(bins));
            }
        }
        if bins <= 4096 {
            assert!(
                key_bits(bins) <= KEY_BITS,
                "{bins} bins: {} bits",
                key_bits(bins)
            );
        }
    }
}

/// `RigidWorld::set_block_staging` (`StepShape::block_stage`, the `_staged` entries): the
/// velocity stages solved against a workgroup copy of each bin's bodies give the same bits as
/// solved from the bodies buffer (the same operations on the same values in the same order). In the
/// parity scene every bin is staged: every partition, bins of several blocks, and the
/// leftover bin with its sequential colour. With 120 more contacts between 240 more bodies in
/// one block, that bin holds more bodies than the copy takes (112) and is solved from the
/// buffer, while the other bins of its dispatches are staged. A bin of 270 contacts between
/// 12 bodies holds more contacts than a staged bin may (256) and is solved from the buffer. A
/// manifold whose two bodies are one (stored a then b) is staged like any other.
#[test]
fn block_staging_changes_no_bit() {
    let (bodies, ms, prev, p) = block_scene();
    staged_matches_unstaged(&p, &bodies, &ms, &prev, false);
    let template = bodies[4];
    assert_eq!(template.kind, body_kind::DYNAMIC);
    let at = |pos: Vec3, lin: Vec3, ang: Vec3| GpuBody {
        pos: pos.extend(template.pos.w),
        lin_vel: lin.extend(template.lin_vel.w),
        ang_vel: ang.extend(template.ang_vel.w),
        ..template
    };
    // A body touching itself, in body 4's bin.
    let (mut one, mut one_ms) = (bodies.clone(), ms.clone());
    let pos = template.pos.xyz();
    one.push(at(pos, Vec3::ZERO, Vec3::new(0.3, -0.2, 0.1)));
    let me = one.len() as u32 - 1;
    let point = [(pos + Vec3::new(0.0, 0.4, 0.0), 0.01)];
    let m = manifold(me, me, (0, 0), Vec3::Y, &point, 0.5, 0.3);
    push_manifold(&mut one_ms, m);
    staged_matches_unstaged(&p, &one, &one_ms, &prev, false);
    // 12 bodies in one cell, 270 manifolds between them.
    let (mut dense, mut dense_ms) = (bodies.clone(), ms.clone());
    let first = dense.len() as u32;
    for i in 0..12 {
        let pos = Vec3::new(0.2 + 0.05 * i as f32, 0.5, 0.5);
        dense.push(at(pos, Vec3::ZERO, Vec3::ZERO));
    }
    for j in 0..270u32 {
        let a = j % 12;
        let b = (a + 1 + j / 12 % 11) % 12;
        let point = [(Vec3::new(0.5, 0.5, 0.5), 0.01)];
        let m = manifold(first + a, first + b, (0, 0), Vec3::Y, &point, 0.5, 0.3);
        push_manifold(&mut dense_ms, m);
    }
    staged_matches_unstaged(&p, &dense, &dense_ms, &prev, true);
    // 120 pairs of bodies in the block [0, 4)³ of partition 0, both of a pair in one cell.
    let (mut crowd, mut crowd_ms) = (bodies, ms);
    let mut rng = Rng::new(5);
    for j in 0..120u32 {
        let cell = Vec3::new((j % 4) as f32, ((j / 4) % 4) as f32, ((j / 16) % 4) as f32);
        let a = crowd.len() as u32;
        for dy in [0.25, 0.75] {
            let (lin, ang) = (rng.vec3(-1.0, 1.0), rng.vec3(-1.0, 1.0));
            crowd.push(at(cell + Vec3::new(0.5, dy, 0.5), lin, ang));
        }
        let point = [(cell + Vec3::new(0.5, 0.5, 0.5), 0.01)];
        let m = manifold(a, a + 1, (0, 0), Vec3::Y, &point, 0.5, 0.3);
        push_manifold(&mut crowd_ms, m);
    }
    staged_matches_unstaged(&p, &crowd, &crowd_ms, &prev, true);
}

/// Appends `m` with shape ids that keep the manifolds sorted by shape pair.
fn push_manifold(ms: &mut Vec<GpuManifold>, mut m: GpuManifold) {
    let k = ms.len() as u32;
    m.shape_a = 2 * k;
    m.shape_b = 2 * k + 1;
    ms.push(m);
}

/// Runs the block solver's passes with staging off and on: the same bits, and what the
/// counters say was staged (some bins, and `crowded`: some bins solved from the buffer).
fn staged_matches_unstaged(
    p: &GpuRigidParams,
    bodies: &[GpuBody],
    ms: &[GpuManifold],
    prev: &[GpuManifold],
    crowded: bool,
) {
    let p = &GpuRigidParams {
        body_count: bodies.len() as u32,
        ..*p
    };
    assert!(wgphys::rigid::step::block_solver(p));
    let staged = solver_passes_staged(p, true);
    let names: Vec<&str> = staged.iter().map(entry).collect();
    assert!(names.contains(&"solve_relax_block_staged") && !names.contains(&"solve_relax_block"));
    let off = run_gpu(p, &solver_passes(p), bodies, ms, prev);
    let on = run_gpu(p, &staged, bodies, ms, prev);
    let counts = |o: &GpuOut| {
        (
            o.counters[counter::STAGED_BINS],
            o.counters[counter::UNSTAGED_BINS],
        )
    };
    eprintln!(
        "[measure] block staging ({} bodies): (staged, unstaged) bins {:?}",
        bodies.len(),
        counts(&on)
    );
    assert_eq!(counts(&off), (0, 0), "nothing is staged with staging off");
    assert!(counts(&on).0 > 0, "staging on should stage some bins");
    assert_eq!(
        counts(&on).1 > 0,
        crowded,
        "bins solved from the buffer with staging on"
    );
    assert!(
        bytemuck::cast_slice::<GpuBody, u8>(&on.bodies)
            == bytemuck::cast_slice::<GpuBody, u8>(&off.bodies),
        "staged bodies differ from unstaged ones"
    );
    assert!(
        bytemuck::cast_slice::<GpuManifold, u8>(&on.manifolds)
            == bytemuck::cast_slice::<GpuManifold, u8>(&off.manifolds),
        "staged impulses differ from unstaged ones"
    );
}

/// The block solver's parity scene (see `the_gpu_block_solver_matches_the_cpu_twin`): bodies,
/// manifolds, last step's manifolds and the parameters.
fn block_scene() -> (
    Vec<GpuBody>,
    Vec<GpuManifold>,
    Vec<GpuManifold>,
    GpuRigidParams,
) {
    let mut rng = Rng::new(21);
    let (mut bodies, mut ms, prev) = super::rolling_parity_scene(&mut rng);
    // Pairs of dynamic bodies in neighbouring cells that only partition 1, 2 or 3 holds:
    // partition k's block boundaries lie where cell + k is a multiple of 4, so a step from
    // cell 3 to 4 along an axis is split by partition 0, from 2 to 3 by partition 1, from 1 to
    // 2 by partition 2.
    let pairs = [
        (4, 6, Vec3::new(3.5, 0.5, 0.5), Vec3::new(4.5, 0.5, 0.5)),
        (8, 9, Vec3::new(3.5, 2.5, 0.5), Vec3::new(4.5, 3.5, 0.5)),
        (1, 2, Vec3::new(3.5, 2.5, 1.5), Vec3::new(4.5, 3.5, 2.5)),
    ];
    for (a, b, pa, pb) in pairs {
        assert_eq!(bodies[a].kind, body_kind::DYNAMIC);
        assert_eq!(bodies[b].kind, body_kind::DYNAMIC);
        bodies[a].pos = pa.extend(bodies[a].pos.w);
        bodies[b].pos = pb.extend(bodies[b].pos.w);
        let k = ms.len() as u32;
        let point = [((pa + pb) * 0.5, 0.01)];
        let mut m = manifold(a as u32, b as u32, (0, 0), Vec3::Y, &point, 0.5, 0.0);
        m.shape_a = 2 * k;
        m.shape_b = 2 * k + 1;
        ms.push(m);
    }
    let n = ms.len() as u32;
    let p = GpuRigidParams {
        pair_capacity: FUSED_MAX_MANIFOLDS + 1,
        inv_cell_size: 1.0,
        block_shift: 2,
        block_bins: 4,
        block_sweeps: 2,
        ..params(bodies.len() as u32, n)
    };
    (bodies, ms, prev, p)
}
