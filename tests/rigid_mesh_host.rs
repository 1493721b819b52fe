//! Level geometry cooked on the host (`wgphys::rigid::mesh`): the BVH and the heightfield's
//! cell walk against brute force over every triangle, the BVH's structure, the internal-edge
//! flags on shapes whose edges are known, and bad input.

mod common;

use common::Rng;
use glam::Vec3;
use wgphys::rigid::mesh::{
    classify_edges, ray_triangle, triangle_box, Aabb, EdgeKind, HeightField, TriMesh, LEAF_SIZE,
};
use wgphys::Error;

/// A soup of `n` random triangles in a 20 m box, some large and some tiny, plus a few
/// degenerate ones (which the mesh drops and counts).
fn soup(rng: &mut Rng, n: usize) -> (Vec<Vec3>, Vec<[u32; 3]>, u32) {
    let mut v = Vec::new();
    let mut t = Vec::new();
    let mut degenerate = 0;
    for i in 0..n {
        let c = rng.vec3(-10.0, 10.0);
        let size = if rng.chance(0.2) { 3.0 } else { 0.3 };
        let base = v.len() as u32;
        v.push(c + rng.vec3(-size, size));
        v.push(c + rng.vec3(-size, size));
        if i % 97 == 5 {
            // On the line through the first two: no area.
            v.push(v[base as usize] * 0.5 + v[base as usize + 1] * 0.5);
            degenerate += 1;
        } else {
            v.push(c + rng.vec3(-size, size));
        }
        t.push([base, base + 1, base + 2]);
    }
    (v, t, degenerate)
}

/// A flat square grid of `n × n` quads (two triangles each, facing +y) over [0, n]².
fn grid(n: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let id = |r: u32, c: u32| r * (n + 1) + c;
    let v = (0..=n)
        .flat_map(|r| (0..=n).map(move |c| Vec3::new(c as f32, 0.0, r as f32)))
        .collect();
    let mut t = Vec::new();
    for r in 0..n {
        for c in 0..n {
            t.push([id(r, c), id(r + 1, c), id(r + 1, c + 1)]);
            t.push([id(r, c), id(r + 1, c + 1), id(r, c + 1)]);
        }
    }
    (v, t)
}

/// The nearest hit over every triangle, ties to the lower index.
fn brute_ray(tris: &[[Vec3; 3]], o: Vec3, d: Vec3, max_t: f32) -> Option<(f32, u32)> {
    let mut best: Option<(f32, u32)> = None;
    for (i, [a, b, c]) in tris.iter().enumerate() {
        if let Some(t) = ray_triangle(o, d, max_t, *a, *b, *c) {
            if best.is_none_or(|(bt, _)| t < bt) {
                best = Some((t, i as u32));
            }
        }
    }
    best
}

#[test]
fn the_bvh_is_well_formed() {
    let mut rng = Rng::new(11);
    for n in [1, 2, 5, 64, 1000] {
        let (v, t, degenerate) = soup(&mut rng, n);
        let mesh = TriMesh::new(&v, &t).expect("mesh");
        assert_eq!(mesh.dropped(), degenerate);
        let bvh = mesh.bvh();
        let mut seen = vec![false; mesh.triangles().len()];
        for &o in &bvh.order {
            assert!(!seen[o as usize], "order is a permutation");
            seen[o as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        for (i, node) in bvh.nodes.iter().enumerate() {
            assert!(node.escape as usize > i && node.escape as usize <= bvh.nodes.len());
            if node.count > 0 {
                assert!(
                    node.count as usize <= LEAF_SIZE,
                    "leaves hold at most {LEAF_SIZE}"
                );
                assert_eq!(
                    node.escape as usize,
                    i + 1,
                    "a leaf escapes to the next node"
                );
                for k in node.first..node.first + node.count {
                    let tri = mesh.triangles()[bvh.order[k as usize] as usize];
                    let b = triangle_box(mesh.vertices(), &tri);
                    assert!(
                        node.bounds.min.cmple(b.min).all() && b.max.cmple(node.bounds.max).all()
                    );
                }
            } else {
                // The left child follows; the right child is the left's escape; both inside.
                let left = &bvh.nodes[i + 1];
                let right = &bvh.nodes[left.escape as usize];
                for child in [left, right] {
                    assert!(node.bounds.min.cmple(child.bounds.min).all());
                    assert!(child.bounds.max.cmple(node.bounds.max).all());
                }
                assert_eq!(
                    right.escape, node.escape,
                    "the right child ends the subtree"
                );
            }
        }
    }
}

#[test]
fn bvh_box_queries_equal_brute_force() {
    let mut rng = Rng::new(12);
    for n in [1, 7, 300, 2000] {
        let (v, t, _) = soup(&mut rng, n);
        let mesh = TriMesh::new(&v, &t).expect("mesh");
        for _ in 0..200 {
            let c = rng.vec3(-12.0, 12.0);
            let h = rng.vec3(0.0, 2.5);
            let q = Aabb {
                min: c - h,
                max: c + h,
            };
            let want: Vec<u32> = (0..mesh.triangles().len() as u32)
                .filter(|&i| {
                    triangle_box(mesh.vertices(), &mesh.triangles()[i as usize]).overlaps(&q)
                })
                .collect();
            assert_eq!(mesh.query_aabb(&q), want, "{n} triangles, query {q:?}");
        }
    }
}

#[test]
fn bvh_ray_casts_equal_brute_force() {
    let mut rng = Rng::new(13);
    let mut hits = 0;
    for n in [1, 9, 400, 2000] {
        let (v, t, _) = soup(&mut rng, n);
        let mesh = TriMesh::new(&v, &t).expect("mesh");
        let tris: Vec<[Vec3; 3]> = (0..mesh.triangles().len() as u32)
            .map(|i| mesh.triangle(i).unwrap())
            .collect();
        for _ in 0..300 {
            let o = rng.vec3(-15.0, 15.0);
            let d = (rng.vec3(-12.0, 12.0) - o).normalize();
            let max_t = rng.range(5.0, 40.0);
            let got = mesh.cast_ray(o, d, max_t).map(|h| (h.t, h.triangle));
            // The same test on the same triangles: the walk only skips boxes the ray misses,
            // so the nearest hit and its triangle are the same bits.
            assert_eq!(
                got,
                brute_ray(&tris, o, d, max_t),
                "{n} triangles, ray {o} {d}"
            );
            hits += usize::from(got.is_some());
        }
    }
    assert!(hits > 100, "the rays hit something ({hits})");
}

#[test]
fn edges_of_known_shapes_are_classified() {
    // A flat grid: the interior edges are flat, the 4n border edges boundaries.
    let n = 6;
    let (v, t) = grid(n);
    let kinds = classify_edges(&v, &t);
    let count = |k: EdgeKind| kinds.iter().flatten().filter(|&&x| x == k).count();
    assert_eq!(count(EdgeKind::Boundary), 4 * n as usize);
    assert_eq!(count(EdgeKind::Flat), 3 * t.len() - 4 * n as usize);
    let mesh = TriMesh::new(&v, &t).unwrap();
    let active: u32 = (0..t.len() as u32)
        .map(|i| mesh.active_edges(i).count_ones())
        .sum();
    assert_eq!(active, 4 * n);

    // A closed unit cube, outward: its 12 edges are convex (each seen from two triangles),
    // the 6 face diagonals flat.
    let cube: Vec<Vec3> = (0..8)
        .map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32))
        .collect();
    let quads = [
        [0, 2, 3, 1], // z = 0, facing −z
        [4, 5, 7, 6], // z = 1, +z
        [0, 1, 5, 4], // y = 0, −y
        [2, 6, 7, 3], // y = 1, +y
        [0, 4, 6, 2], // x = 0, −x
        [1, 3, 7, 5], // x = 1, +x
    ];
    let tris: Vec<[u32; 3]> = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    let kinds = classify_edges(&cube, &tris);
    let count = |k: EdgeKind| kinds.iter().flatten().filter(|&&x| x == k).count();
    assert_eq!(count(EdgeKind::Convex), 24);
    assert_eq!(count(EdgeKind::Flat), 12);

    // Two quads folded along x = 0, each tilted by ±angle (so their normals differ by twice
    // it): up (a valley) is concave, down (a ridge) convex, beyond 5°; flat below it.
    for (deg, want) in [
        (10.0f32, [EdgeKind::Concave, EdgeKind::Convex]),
        (2.0, [EdgeKind::Flat, EdgeKind::Flat]),
    ] {
        for (sign, kind) in [(1.0f32, want[0]), (-1.0, want[1])] {
            let rise = sign * deg.to_radians().tan();
            let v = vec![
                Vec3::new(-1.0, rise, 0.0),
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(1.0, rise, 0.0),
                Vec3::new(-1.0, rise, 1.0),
                Vec3::new(0.0, 0.0, 1.0),
                Vec3::new(1.0, rise, 1.0),
            ];
            let t = vec![[0, 3, 4], [0, 4, 1], [1, 4, 5], [1, 5, 2]];
            let k = classify_edges(&v, &t);
            // The fold is edge 1→4: edge 1 of triangle 1 ([0, 4, 1]: 4→1) and edge 0 of
            // triangle 2 ([1, 4, 5]: 1→4).
            assert_eq!((k[1][1], k[2][0]), (kind, kind), "{deg}° with sign {sign}");
            // One-sided, the fold pushes only where it is convex; two-sided, wherever it is a
            // fold (either side may be met), and a flat fold never.
            let one = TriMesh::new(&v, &t).unwrap();
            let two = one.clone().with_two_sided(true);
            let fold = |m: &TriMesh| (m.active_edges(1) >> 1 & 1, m.active_edges(2) & 1);
            let (f1, f2) = match kind {
                EdgeKind::Convex => (1, 1),
                EdgeKind::Concave => (0, 1),
                _ => (0, 0),
            };
            assert_eq!(
                (fold(&one), fold(&two)),
                ((f1, f1), (f2, f2)),
                "{deg}° with sign {sign}"
            );
            bits_follow_the_turned_triangles(&two);
        }
    }
}

/// A two-sided mesh's stored triangles read from behind (`layout::mesh_facing` with a point
/// below every triangle of the fold) come turned round, and each edge of a turned triangle
/// carries the flag of the stored edge between the same two corners; from the front they come
/// as stored.
fn bits_follow_the_turned_triangles(mesh: &TriMesh) {
    use wgphys::rigid::mesh::layout::{mesh_facing, mesh_ref, mesh_triangle, mesh_words};
    let words = mesh_words(mesh);
    let m = mesh_ref(&words, 0);
    assert!(m.two_sided);
    for k in 0..m.triangle_count {
        let stored = mesh_triangle(&words, &m, k);
        assert_eq!(mesh_facing(&words, &m, k, Vec3::new(0.0, 5.0, 0.5)), stored);
        let (turned, bits, id) = mesh_facing(&words, &m, k, Vec3::new(0.0, -5.0, 0.5));
        let [a, b, c] = stored.0;
        assert_eq!((turned, id), ([a, c, b], stored.2));
        let flags = mesh.active_edges(id);
        for e in 0..3 {
            let (p, q) = (turned[e], turned[(e + 1) % 3]);
            let was = (0..3)
                .find(|&s| {
                    let (u, w) = (stored.0[s], stored.0[(s + 1) % 3]);
                    (u, w) == (p, q) || (u, w) == (q, p)
                })
                .expect("the same edge");
            assert_eq!(
                bits >> e & 1,
                u32::from(flags >> was & 1),
                "triangle {id}: turned edge {e} is stored edge {was}"
            );
        }
    }
}

/// Heights `h(x, z)` sampled on a `rows × columns` grid (rows along z).
fn terrain(rows: u32, columns: u32, f: impl Fn(f32, f32) -> f32) -> Vec<f32> {
    (0..rows)
        .flat_map(|r| (0..columns).map(move |c| (r, c)))
        .map(|(r, c)| f(c as f32, r as f32))
        .collect()
}

#[test]
fn heightfield_queries_equal_brute_force() {
    let mut rng = Rng::new(14);
    let (rows, columns) = (17, 23);
    let heights = terrain(rows, columns, |x, z| {
        (0.4 * x).sin() * (0.3 * z).cos() + 0.1 * x
    });
    let scale = Vec3::new(44.0, 2.0, 32.0);
    let holes = [(3, 4), (10, 10), (15, 21)];
    let field = HeightField::with_holes(rows, columns, &heights, scale, &holes).expect("field");
    let tris: Vec<[Vec3; 3]> = (0..field.triangle_slots())
        .map(|t| field.triangle(t).unwrap_or([Vec3::NAN; 3]))
        .collect();
    assert_eq!(
        tris.iter().filter(|t| t[0].is_nan()).count(),
        2 * holes.len()
    );
    let mut hits = 0;
    for _ in 0..2000 {
        let o = rng.vec3(-30.0, 30.0) + Vec3::Y * 5.0;
        let d = (rng.vec3(-25.0, 25.0) * Vec3::new(1.0, 0.2, 1.0) - o).normalize();
        let max_t = rng.range(10.0, 80.0);
        let got = field.cast_ray(o, d, max_t).map(|h| (h.t, h.triangle));
        let want = brute_ray(&tris, o, d, max_t);
        // The cell walk tests the same triangles in the order the ray crosses their cells, so
        // it finds the same nearest hit; only a hit on a shared edge may be found in the
        // neighbouring triangle (same point, the other triangle's rounding).
        match (got, want) {
            (Some((tg, ig)), Some((tw, iw))) => {
                assert!((tg - tw).abs() <= 1e-5 * tw.max(1.0), "t {tg} against {tw}");
                if ig != iw {
                    let p = o + d * tw;
                    let shares = tris[ig as usize]
                        .iter()
                        .filter(|v| tris[iw as usize].contains(v))
                        .count();
                    assert!(
                        shares >= 1,
                        "hit {p} in {ig} against {iw}, which share no corner"
                    );
                }
            }
            (None, None) => {}
            other => panic!("ray {o} {d} {max_t}: {other:?}"),
        }
        hits += usize::from(want.is_some());
    }
    assert!(hits > 500, "most rays hit the terrain ({hits})");
    for _ in 0..300 {
        let c = rng.vec3(-25.0, 25.0);
        let h = rng.vec3(0.0, 4.0);
        let q = Aabb {
            min: c - h,
            max: c + h,
        };
        let want: Vec<u32> = (0..field.triangle_slots())
            .filter(|&t| {
                field
                    .triangle(t)
                    .is_some_and(|tri| tri.iter().fold(Aabb::EMPTY, |b, &p| b.with(p)).overlaps(&q))
            })
            .collect();
        assert_eq!(field.query_aabb(&q), want, "query {q:?}");
    }
}

#[test]
fn heightfield_layout_holes_and_edges() {
    // A flat 3 × 4 field 6 m by 4 m at height 0.5·2: a ray down the middle of cell (1, 1)
    // lands at y = 1 on that cell's triangles, facing +y.
    let field = HeightField::new(3, 4, &[0.5; 12], Vec3::new(6.0, 2.0, 4.0)).unwrap();
    let hit = field
        .cast_ray(Vec3::new(0.3, 5.0, 0.9), -Vec3::Y, 10.0)
        .expect("hit");
    assert!((hit.t - 4.0).abs() <= 4.0 * f32::EPSILON * 5.0, "{}", hit.t);
    assert_eq!(hit.triangle / 2, 4, "cell (1, 1) is cell 4 of 3 a row");
    assert!((hit.normal - Vec3::Y).length() < 1e-6);
    // Interior edges of a flat field are flat; the border's 2·(2 + 3) edges are active.
    let active: u32 = (0..field.triangle_slots())
        .map(|t| field.active_edges(t).count_ones())
        .sum();
    assert_eq!(active, 10);
    // A hole lets the same ray through.
    let holed =
        HeightField::with_holes(3, 4, &[0.5; 12], Vec3::new(6.0, 2.0, 4.0), &[(1, 1)]).unwrap();
    assert_eq!(
        holed.cast_ray(Vec3::new(0.3, 5.0, 0.9), -Vec3::Y, 10.0),
        None
    );
    // The hole, on the border row, takes its border side away and makes its other three
    // sides boundaries: 10 − 1 + 3.
    let active: u32 = (0..holed.triangle_slots())
        .map(|t| holed.active_edges(t).count_ones())
        .sum();
    assert_eq!(active, 12);
}

#[test]
fn bad_meshes_and_heightfields_are_refused_by_name() {
    let tri = [Vec3::ZERO, Vec3::X, Vec3::Z];
    let what = |e: Error| match e {
        Error::InvalidInput { what, .. } => what,
        other => panic!("expected InvalidInput, got {other}"),
    };
    assert_eq!(what(TriMesh::new(&[], &[]).unwrap_err()), "triangle mesh");
    assert_eq!(
        what(TriMesh::new(&tri, &[[0, 1, 3]]).unwrap_err()),
        "triangle mesh index"
    );
    assert_eq!(
        what(TriMesh::new(&[Vec3::ZERO, Vec3::X, Vec3::NAN], &[[0, 1, 2]]).unwrap_err()),
        "triangle mesh vertex"
    );
    let line = [Vec3::ZERO, Vec3::X, Vec3::X * 2.0];
    assert_eq!(
        what(TriMesh::new(&line, &[[0, 1, 2], [0, 0, 1]]).unwrap_err()),
        "triangle mesh"
    );
    let one = TriMesh::new(&tri, &[[0, 1, 2], [0, 0, 1]]).unwrap();
    assert_eq!((one.triangles().len(), one.dropped()), (1, 1));

    let s = Vec3::ONE;
    assert_eq!(
        what(HeightField::new(1, 5, &[0.0; 5], s).unwrap_err()),
        "heightfield size"
    );
    assert_eq!(
        what(HeightField::new(2, 2, &[0.0; 3], s).unwrap_err()),
        "heightfield heights"
    );
    assert_eq!(
        what(HeightField::new(2, 2, &[0.0, f32::NAN, 0.0, 0.0], s).unwrap_err()),
        "heightfield height"
    );
    assert_eq!(
        what(HeightField::new(2, 2, &[0.0; 4], Vec3::new(1.0, 0.0, 1.0)).unwrap_err()),
        "heightfield scale"
    );
    assert_eq!(
        what(HeightField::with_holes(2, 2, &[0.0; 4], s, &[(1, 0)]).unwrap_err()),
        "heightfield hole"
    );
}

/// The closest point of a triangle equals the best of a fine barycentric sampling of it (to
/// the sampling's spacing), and lies in the region it names.
#[test]
fn closest_points_on_triangles_match_sampling() {
    use wgphys::rigid::mesh::{closest_on_triangle, TriangleRegion};
    let mut rng = Rng::new(15);
    let n = 200;
    for _ in 0..200 {
        let [a, b, c] = [
            rng.vec3(-1.0, 1.0),
            rng.vec3(-1.0, 1.0),
            rng.vec3(-1.0, 1.0),
        ];
        let p = rng.vec3(-2.0, 2.0);
        let (q, region) = closest_on_triangle(p, a, b, c);
        let mut best = f32::INFINITY;
        for i in 0..=n {
            for j in 0..=n - i {
                let (u, v) = (i as f32 / n as f32, j as f32 / n as f32);
                best = best.min((a + (b - a) * u + (c - a) * v - p).length());
            }
        }
        // The sampling's points are at most one spacing (the longest edge / n) from any point
        // of the triangle, so the sampled best exceeds the true distance by at most that.
        let spacing = (b - a).length().max((c - a).length()).max((c - b).length()) / n as f32;
        let got = (q - p).length();
        assert!(
            got <= best + 1e-5 && got >= best - spacing - 1e-5,
            "{got} against {best}"
        );
        match region {
            TriangleRegion::Vertex(v) => assert_eq!(q, [a, b, c][v as usize]),
            TriangleRegion::Edge(e) => {
                let (s, t) = ([a, b, c][e as usize], [a, b, c][(e as usize + 1) % 3]);
                let off = (q - s).cross(t - s).length() / (t - s).length();
                assert!(off < 1e-5, "on edge {e}: {off} off the line");
            }
            TriangleRegion::Face => {}
        }
    }
}

/// A ball sliding across the seams of a flat grid mesh (and of a flat heightfield) touches
/// every triangle it reaches with the plane's normal and the plane's depth: no seam pushes it
/// sideways or up. With every edge counted active, the triangles beside a seam push it
/// sideways, which is the bump the flags remove.
#[test]
fn a_ball_across_seams_feels_only_the_plane() {
    use wgphys::rigid::mesh::sphere_triangle;
    let (v, t) = grid(8);
    let mesh = TriMesh::new(&v, &t).unwrap();
    let field = HeightField::new(9, 9, &[0.0; 81], Vec3::new(8.0, 1.0, 8.0)).unwrap();
    let (r, sink, margin) = (0.5f32, 0.002f32, 0.01f32);
    let mut tilted_without_flags = 0;
    for k in 0..400 {
        // Along a line crossing the seams between x = 1 and 7, at z between rows.
        let x = 1.0 + 6.0 * k as f32 / 400.0;
        let centre = Vec3::new(x, r - sink, 3.3);
        let q = Aabb {
            min: centre - Vec3::splat(r + margin),
            max: centre + Vec3::splat(r + margin),
        };
        for tri in mesh.query_aabb(&q) {
            let corners = mesh.triangle(tri).unwrap();
            if let Some(c) =
                sphere_triangle(centre, r, corners, mesh.active_edges(tri), false, margin)
            {
                // The plane's normal exactly, and the depth below it to rounding of r − h.
                assert_eq!(c.normal, Vec3::Y, "x = {x}, triangle {tri}: {c:?}");
                assert!((c.depth - sink).abs() < 1e-6, "x = {x}: depth {}", c.depth);
            }
            if let Some(c) = sphere_triangle(centre, r, corners, 0b111, false, margin) {
                tilted_without_flags += usize::from(c.normal.y < 0.999);
            }
        }
        // The heightfield is centred on its origin: the same line, shifted by half its size.
        let centre = centre - Vec3::new(4.0, 0.0, 4.0);
        let q = Aabb {
            min: centre - Vec3::splat(r + margin),
            max: centre + Vec3::splat(r + margin),
        };
        for tri in field.query_aabb(&q) {
            let corners = field.triangle(tri).unwrap();
            if let Some(c) =
                sphere_triangle(centre, r, corners, field.active_edges(tri), false, margin)
            {
                assert_eq!(c.normal, Vec3::Y, "heightfield, x = {x}: {c:?}");
                assert!(
                    (c.depth - sink).abs() < 1e-6,
                    "heightfield, x = {x}: depth {}",
                    c.depth
                );
            }
        }
    }
    assert!(
        tilted_without_flags > 100,
        "without flags the seams push ({tilted_without_flags})"
    );
}

/// On a convex edge (a cube's) the ball is pushed along the direction from the edge to its
/// centre, as on a real corner; behind a one-sided triangle it touches nothing.
#[test]
fn convex_edges_push_and_backs_are_one_sided() {
    use wgphys::rigid::mesh::{sphere_triangle, TriangleRegion};
    // Two faces of a unit cube meeting at the edge x = 1, y = 1 (top: +y, side: +x).
    let v = vec![
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 1.0, 1.0),
        Vec3::new(1.0, 1.0, 1.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(1.0, 0.0, 1.0),
        Vec3::new(1.0, 0.0, 0.0),
    ];
    let t = vec![[0, 1, 2], [0, 2, 3], [3, 2, 4], [3, 4, 5]];
    let mesh = TriMesh::new(&v, &t).unwrap();
    let centre = Vec3::new(1.3, 1.3, 0.5);
    let r = 0.45;
    let contact = (0..4u32)
        .filter_map(|i| {
            sphere_triangle(
                centre,
                r,
                mesh.triangle(i).unwrap(),
                mesh.active_edges(i),
                false,
                0.0,
            )
        })
        .next()
        .expect("touching the edge");
    let diagonal = Vec3::new(1.0, 1.0, 0.0).normalize();
    assert!((contact.normal - diagonal).length() < 1e-6, "{contact:?}");
    assert!(matches!(contact.region, TriangleRegion::Edge(_)));
    assert!((contact.depth - (r - 0.3 * 2f32.sqrt())).abs() < 1e-6);
    // Below the top face, one-sided: nothing; two-sided: the face, reversed.
    let below = Vec3::new(0.5, 0.8, 0.5);
    assert_eq!(
        sphere_triangle(below, 0.3, mesh.triangle(0).unwrap(), 0b111, false, 0.0),
        None
    );
    let back = sphere_triangle(below, 0.3, mesh.triangle(0).unwrap(), 0b111, true, 0.0).unwrap();
    assert_eq!(back.normal, -Vec3::Y);
}

/// A capsule lying on a flat grid across its seams rests on its two ends, each pushed along
/// the plane's normal by the plane's depth; lying across a convex ridge (two quads folded down
/// by 10°), it touches the ridge at its middle with the ridge's bisecting normal.
#[test]
fn a_capsule_rests_on_its_ends_and_rides_a_ridge() {
    use wgphys::rigid::mesh::{capsule_triangle, closest_segments};
    // The closest points of two crossing segments.
    let (s, t) = closest_segments(
        Vec3::new(-1.0, 0.0, 0.0),
        Vec3::X,
        Vec3::new(0.0, 1.0, -1.0),
        Vec3::new(0.0, 1.0, 1.0),
    );
    assert_eq!((s, t), (0.5, 0.5));
    let (v, t) = grid(8);
    let mesh = TriMesh::new(&v, &t).unwrap();
    let (r, sink) = (0.3f32, 0.002f32);
    for k in 0..50 {
        let x = 2.0 + 3.0 * k as f32 / 50.0;
        let (p0, p1) = (
            Vec3::new(x, r - sink, 2.1),
            Vec3::new(x + 1.7, r - sink, 3.4),
        );
        let mut points = Vec::new();
        for tri in 0..mesh.triangles().len() as u32 {
            for c in capsule_triangle(
                p0,
                p1,
                r,
                mesh.triangle(tri).unwrap(),
                mesh.active_edges(tri),
                false,
                0.01,
            ) {
                assert_eq!(c.normal, Vec3::Y, "x = {x}: {c:?}");
                assert!((c.depth - sink).abs() < 1e-6, "x = {x}: {c:?}");
                points.push(c.point);
            }
        }
        // Both ends are touched (by the triangle under each), nothing in between pushes more.
        for end in [p0, p1] {
            let below = Vec3::new(end.x, 0.0, end.z);
            assert!(
                points.iter().any(|p| (*p - below).length() < 1e-5),
                "x = {x}: no contact under {end}"
            );
        }
    }
    // The ridge along z at x = 0, each side falling 10° away; the capsule across it along x.
    let drop = 10f32.to_radians().tan();
    let v = vec![
        Vec3::new(-1.0, -drop, 0.0),
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, -drop, 0.0),
        Vec3::new(-1.0, -drop, 1.0),
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::new(1.0, -drop, 1.0),
    ];
    let t = vec![[0, 3, 4], [0, 4, 1], [1, 4, 5], [1, 5, 2]];
    let ridge = TriMesh::new(&v, &t).unwrap();
    let (p0, p1) = (
        Vec3::new(-0.8, r - sink, 0.5),
        Vec3::new(0.8, r - sink, 0.5),
    );
    let mut deepest: Option<f32> = None;
    for tri in 0..4 {
        for c in capsule_triangle(
            p0,
            p1,
            r,
            ridge.triangle(tri).unwrap(),
            ridge.active_edges(tri),
            false,
            0.0,
        ) {
            if c.point.x.abs() < 1e-5 {
                // On the ridge: straight up (the bisector of the two faces' normals).
                assert!((c.normal - Vec3::Y).length() < 1e-5, "{c:?}");
                deepest = Some(deepest.map_or(c.depth, |d: f32| d.max(c.depth)));
            } else {
                // The ends hang over the falling sides: any contact there is shallower.
                assert!(c.depth < sink, "{c:?}");
            }
        }
    }
    assert!((deepest.expect("the ridge holds the capsule") - sink).abs() < 1e-6);
}
