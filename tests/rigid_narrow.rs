//! The narrow phase (`narrow`, `collide_shapes`) and material combination: closed cases per
//! shape pair, the stage's slot handling, and the WGSL constants against the Rust ones. The
//! random-pair checks (brute forces and GPU parity) are in `rigid_narrow_random`.

mod common;

use common::rigid::narrow::{
    body, capsule, collide2, cuboid, near, near3, params, points, shape, sphere, ID,
};
use glam::{Quat, Vec3, Vec4, Vec4Swizzles};
use wgphys::rigid::gpu::shader_source;
use wgphys::rigid::material::Combine;
use wgphys::rigid::math::{from_quat, quat_rotate};
use wgphys::rigid::narrow::{
    collide_shapes, narrow, BIAS_ABS, BIAS_REL, PARALLEL_EPS, VERTEX_NEAR,
};
use wgphys::rigid::types::*;

// ---------------------------------------------------------------------------------------------
// Scene helpers.

/// The ground y ≤ 0 as a half-space (or a two-sided plane) on body `body`.
fn ground(kind: u32, body: u32) -> GpuShape {
    shape(kind, body, Vec4::new(0.0, 1.0, 0.0, 0.0))
}

fn rot(axis: Vec3, angle: f32) -> Vec4 {
    from_quat(Quat::from_axis_angle(axis.normalize(), angle))
}

// ---------------------------------------------------------------------------------------------
// Closed cases.

#[test]
fn sphere_rests_on_a_half_space() {
    let m = collide2(
        ground(shape_kind::HALF_SPACE, 0),
        body(Vec3::ZERO, ID),
        sphere(1, 0.5),
        body(Vec3::new(1.0, 0.45, 2.0), ID),
        0.0,
    );
    // The pair arrived as (ground, sphere): the manifold names the sphere as a.
    assert_eq!((m.shape_a, m.shape_b, m.body_a, m.body_b), (1, 0, 1, 0));
    assert_eq!(m.count, 1);
    near3(m.normal.xyz(), Vec3::Y, 1e-6, "normal pushes the sphere up");
    near(m.points[0].w, 0.05, 1e-6, "penetration");
    near3(
        m.points[0].xyz(),
        Vec3::new(1.0, -0.025, 2.0),
        1e-6,
        "point halfway between the sphere bottom and the plane",
    );
    assert_eq!(m.colour, NONE);
}

#[test]
fn sphere_and_two_sided_plane_from_below() {
    let m = collide2(
        sphere(0, 0.5),
        body(Vec3::new(0.0, -0.4, 0.0), ID),
        ground(shape_kind::PLANE, 1),
        body(Vec3::ZERO, ID),
        0.0,
    );
    assert_eq!(m.count, 1);
    near3(
        m.normal.xyz(),
        -Vec3::Y,
        1e-6,
        "normal pushes the sphere down",
    );
    near(m.points[0].w, 0.1, 1e-6, "penetration");
    // A half-space holds the same sphere deep inside: r + 0.4.
    let h = collide2(
        sphere(0, 0.5),
        body(Vec3::new(0.0, -0.4, 0.0), ID),
        ground(shape_kind::HALF_SPACE, 1),
        body(Vec3::ZERO, ID),
        0.0,
    );
    near3(h.normal.xyz(), Vec3::Y, 1e-6, "half-space normal");
    near(h.points[0].w, 0.9, 1e-6, "half-space penetration");
}

#[test]
fn offset_and_rotated_planes_use_the_world_pose() {
    // A half-space whose body is rotated 90° about z: its local +y normal becomes world −x,
    // and the body sits at x = 3, so the solid is x ≥ 3.
    let m = collide2(
        sphere(0, 0.5),
        body(Vec3::new(2.6, 0.0, 0.0), ID),
        ground(shape_kind::HALF_SPACE, 1),
        body(
            Vec3::new(3.0, 7.0, 0.0),
            rot(Vec3::Z, std::f32::consts::FRAC_PI_2),
        ),
        0.0,
    );
    assert_eq!(m.count, 1);
    near3(m.normal.xyz(), -Vec3::X, 1e-6, "normal");
    near(m.points[0].w, 0.1, 1e-5, "penetration");
}

#[test]
fn contacts_within_the_margin_have_negative_penetration() {
    let mk = |y: f32| {
        collide2(
            sphere(0, 0.5),
            body(Vec3::new(0.0, y, 0.0), ID),
            ground(shape_kind::HALF_SPACE, 1),
            body(Vec3::ZERO, ID),
            0.01,
        )
    };
    let m = mk(0.505);
    assert_eq!(m.count, 1, "5 mm apart, 10 mm margin");
    near(m.points[0].w, -0.005, 1e-6, "negative penetration");
    assert_eq!(mk(0.52).count, 0, "20 mm apart");
    assert_eq!(
        mk(0.52).normal,
        Vec4::new(0.0, 0.0, 0.0, 0.5),
        "no contact: zero normal"
    );
}

#[test]
fn spheres() {
    let m = collide2(
        sphere(0, 0.5),
        body(Vec3::new(0.9, 0.0, 0.0), ID),
        sphere(1, 0.5),
        body(Vec3::ZERO, ID),
        0.0,
    );
    assert_eq!(m.count, 1);
    near3(m.normal.xyz(), Vec3::X, 1e-6, "normal from b to a");
    near(m.points[0].w, 0.1, 1e-6, "penetration");
    near3(m.points[0].xyz(), Vec3::new(0.45, 0.0, 0.0), 1e-6, "point");
    let apart = collide2(
        sphere(0, 0.5),
        body(Vec3::new(1.1, 0.0, 0.0), ID),
        sphere(1, 0.5),
        body(Vec3::ZERO, ID),
        0.0,
    );
    assert_eq!(apart.count, 0);
    // Coincident centres still give a contact (pushed along +y), not a NaN.
    let same = collide2(
        sphere(0, 0.5),
        body(Vec3::ZERO, ID),
        sphere(1, 0.25),
        body(Vec3::ZERO, ID),
        0.0,
    );
    assert_eq!(same.count, 1);
    near(same.points[0].w, 0.75, 1e-6, "coincident penetration");
    assert!(same.points[0].is_finite());
}

#[test]
fn sphere_and_box() {
    let b = body(Vec3::ZERO, rot(Vec3::Y, 0.3));
    // On the top face.
    let m = collide2(
        sphere(0, 0.5),
        body(Vec3::new(0.1, 1.45, 0.0), ID),
        cuboid(1, Vec3::ONE),
        b,
        0.0,
    );
    assert_eq!(m.count, 1);
    near3(m.normal.xyz(), Vec3::Y, 1e-5, "face normal");
    near(m.points[0].w, 0.05, 1e-5, "face penetration");
    // Near a corner: the normal points from the corner to the centre.
    let corner = quat_rotate(b.orient, Vec3::ONE);
    let dir = Vec3::new(1.0, 1.0, 1.0).normalize();
    let m = collide2(
        sphere(0, 0.5),
        body(corner + dir * 0.4, ID),
        cuboid(1, Vec3::ONE),
        b,
        0.0,
    );
    assert_eq!(m.count, 1);
    near3(m.normal.xyz(), dir, 1e-4, "corner normal");
    near(m.points[0].w, 0.1, 1e-5, "corner penetration");
    // Centre inside the box, nearest the +x face: out through it, penetration r + depth.
    let m = collide2(
        sphere(0, 0.5),
        body(quat_rotate(b.orient, Vec3::new(0.8, 0.1, 0.0)), ID),
        cuboid(1, Vec3::ONE),
        b,
        0.0,
    );
    assert_eq!(m.count, 1);
    near3(
        m.normal.xyz(),
        quat_rotate(b.orient, Vec3::X),
        1e-5,
        "inside normal",
    );
    near(m.points[0].w, 0.5 + 0.2, 1e-5, "inside penetration");
}

#[test]
fn box_rests_on_a_half_space_with_four_corners() {
    let m = collide2(
        cuboid(0, Vec3::new(0.5, 0.5, 0.5)),
        body(Vec3::new(0.0, 0.49, 0.0), ID),
        ground(shape_kind::HALF_SPACE, 1),
        body(Vec3::ZERO, ID),
        0.0,
    );
    assert_eq!(m.count, 4);
    near3(m.normal.xyz(), Vec3::Y, 1e-6, "normal");
    let mut feats = m.features.to_vec();
    feats.sort_unstable();
    assert_eq!(
        feats,
        vec![2, 3, 6, 7],
        "the four bottom vertices (y bit set)"
    );
    for p in points(&m) {
        near(p.w, 0.01, 1e-6, "penetration");
        near(p.y, -0.005, 1e-6, "point height");
        near(p.x.abs(), 0.5, 1e-6, "corner x");
        near(p.z.abs(), 0.5, 1e-6, "corner z");
    }
    // Tilted onto an edge (45° about z): two contacts.
    let m = collide2(
        cuboid(0, Vec3::new(0.5, 0.5, 0.5)),
        body(
            Vec3::new(0.0, 0.5 * 2f32.sqrt() - 0.01, 0.0),
            rot(Vec3::Z, std::f32::consts::FRAC_PI_4),
        ),
        ground(shape_kind::HALF_SPACE, 1),
        body(Vec3::ZERO, ID),
        0.0,
    );
    assert_eq!(m.count, 2);
    for p in points(&m) {
        near(p.w, 0.01, 1e-5, "edge penetration");
        near(p.x, 0.0, 1e-5, "edge x");
    }
    // Deep in a half-space: still only the four deepest.
    let m = collide2(
        cuboid(0, Vec3::new(0.5, 0.5, 0.5)),
        body(Vec3::new(0.0, -3.0, 0.0), rot(Vec3::X, 0.2)),
        ground(shape_kind::HALF_SPACE, 1),
        body(Vec3::ZERO, ID),
        0.0,
    );
    assert_eq!(m.count, 4);
    let min_kept = points(&m).iter().map(|p| p.w).fold(f32::MAX, f32::min);
    assert!(
        min_kept > 3.0,
        "the four kept are the bottom ones: {min_kept}"
    );
}

#[test]
fn box_under_a_two_sided_plane() {
    let m = collide2(
        cuboid(0, Vec3::new(0.5, 0.5, 0.5)),
        body(Vec3::new(0.0, -0.49, 0.0), ID),
        ground(shape_kind::PLANE, 1),
        body(Vec3::ZERO, ID),
        0.0,
    );
    assert_eq!(m.count, 4);
    near3(m.normal.xyz(), -Vec3::Y, 1e-6, "normal pushes the box down");
    for p in points(&m) {
        near(p.w, 0.01, 1e-6, "penetration");
    }
}

#[test]
fn stacked_boxes_give_four_face_contacts_either_order() {
    let h = Vec3::new(0.5, 0.5, 0.5);
    let top = body(Vec3::new(0.1, 0.99, -0.05), rot(Vec3::Y, 0.1));
    let bottom = body(Vec3::ZERO, ID);
    let m = collide2(cuboid(0, h), top, cuboid(1, h), bottom, 0.0);
    assert_eq!(m.count, 4);
    near3(m.normal.xyz(), Vec3::Y, 1e-5, "top box is a: pushed up");
    for p in points(&m) {
        near(p.w, 0.01, 1e-5, "penetration");
        near(p.y, 0.495, 1e-5, "halfway between the faces");
    }
    let m2 = collide2(cuboid(0, h), bottom, cuboid(1, h), top, 0.0);
    assert_eq!(m2.count, 4);
    near3(
        m2.normal.xyz(),
        -Vec3::Y,
        1e-5,
        "bottom box is a: pushed down",
    );
    // A small box on a big one clips to the small face: all four of its corners.
    let m = collide2(
        cuboid(0, Vec3::new(0.2, 0.2, 0.2)),
        body(Vec3::new(0.3, 0.69, 0.1), rot(Vec3::Y, 0.7)),
        cuboid(1, h),
        bottom,
        0.0,
    );
    assert_eq!(m.count, 4);
    for p in points(&m) {
        near(p.w, 0.01, 1e-5, "small box penetration");
    }
    // Overhanging: the top box half off the edge keeps points on the bottom face.
    let m = collide2(
        cuboid(0, h),
        body(Vec3::new(0.8, 0.99, 0.0), ID),
        cuboid(1, h),
        bottom,
        0.0,
    );
    assert_eq!(m.count, 4);
    for p in points(&m) {
        assert!(p.x >= 0.3 - 1e-5 && p.x <= 0.5 + 1e-5, "clipped x {p:?}");
    }
}

/// The face bias keeps the upper box's bottom face as the reference while the lower box's top
/// face is marginally shallower, and small motions keep the same feature ids (warm starting
/// matches contacts by them).
#[test]
fn resting_boxes_keep_their_reference_face_and_features() {
    let h = Vec3::new(0.5, 0.5, 0.5);
    let bottom = body(Vec3::ZERO, ID);
    // Flush, then offset by half a box (a pyramid's rows): corners on the face's sides, and
    // corners on the faces' centre lines.
    for offset in [0.0f32, 0.5] {
        let mut first: Option<Vec<u32>> = None;
        for step in 0..21 {
            let tilt = (step as f32 - 10.0) * 0.0004;
            let shift = Vec3::new(step as f32 * 1e-4 - 1e-3, 0.0, -(step as f32) * 5e-5);
            let m = collide2(
                cuboid(0, h),
                body(
                    Vec3::new(offset, 0.995, 0.0) + shift,
                    rot(Vec3::new(1.0, 0.3, 0.2), tilt),
                ),
                cuboid(1, h),
                bottom,
                0.0,
            );
            assert_eq!(m.count, 4, "offset {offset}, tilt {tilt}: {m:?}");
            let mut feats = m.features.to_vec();
            for f in &feats {
                // Reference code 3: axis 1 (a's y) with the negative sign (its bottom face).
                assert_eq!(f >> 16, 3, "tilt {tilt}: reference face of feature {f:#x}");
            }
            feats.sort_unstable();
            match &first {
                None => first = Some(feats),
                Some(f0) => assert_eq!(&feats, f0, "offset {offset}, tilt {tilt}: ids moved"),
            }
        }
    }
}

#[test]
fn box_edge_on_box_face_gives_two_contacts() {
    let h = Vec3::new(0.5, 0.5, 0.5);
    let m = collide2(
        cuboid(0, h),
        body(
            Vec3::new(0.0, 0.5 + 0.5 * 2f32.sqrt() - 0.02, 0.0),
            rot(Vec3::Z, std::f32::consts::FRAC_PI_4),
        ),
        cuboid(1, Vec3::new(2.0, 0.5, 2.0)),
        body(Vec3::ZERO, ID),
        0.0,
    );
    assert_eq!(m.count, 2, "{m:?}");
    near3(m.normal.xyz(), Vec3::Y, 1e-5, "normal");
    for p in points(&m) {
        near(p.w, 0.02, 1e-5, "penetration");
        near(p.z.abs(), 0.5, 1e-5, "edge ends");
    }
}

#[test]
fn crossed_box_edges_give_one_edge_edge_contact() {
    let h = Vec3::new(0.5, 0.5, 0.5);
    let s2 = 2f32.sqrt();
    // a: rotated about z, its lowest edge runs along z; b: rotated about x, its top edge runs
    // along x. They cross at the origin with 0.01 of overlap.
    let m = collide2(
        cuboid(0, h),
        body(
            Vec3::new(0.0, 0.5 * s2 - 0.005, 0.0),
            rot(Vec3::Z, std::f32::consts::FRAC_PI_4),
        ),
        cuboid(1, h),
        body(
            Vec3::new(0.0, -0.5 * s2 + 0.005, 0.0),
            rot(Vec3::X, std::f32::consts::FRAC_PI_4),
        ),
        0.0,
    );
    assert_eq!(m.count, 1, "{m:?}");
    assert_ne!(m.features[0] & 0x8000_0000, 0, "an edge–edge feature");
    near3(m.normal.xyz(), Vec3::Y, 1e-4, "normal");
    near(m.points[0].w, 0.01, 1e-4, "penetration");
    near3(
        m.points[0].xyz(),
        Vec3::ZERO,
        1e-4,
        "point where the edges cross",
    );
}

#[test]
fn capsule_lying_on_a_plane_gives_two_contacts() {
    let lying = rot(Vec3::Z, std::f32::consts::FRAC_PI_2);
    for kind in [shape_kind::HALF_SPACE, shape_kind::PLANE] {
        let m = collide2(
            capsule(0, 0.25, 0.5),
            body(Vec3::new(0.0, 0.24, 0.0), lying),
            ground(kind, 1),
            body(Vec3::ZERO, ID),
            0.0,
        );
        assert_eq!(m.count, 2);
        assert_eq!(&m.features[..2], &[0, 1]);
        near3(m.normal.xyz(), Vec3::Y, 1e-6, "normal");
        for p in points(&m) {
            near(p.w, 0.01, 1e-6, "penetration");
            near(p.x.abs(), 0.5, 1e-6, "segment ends");
            near(p.y, -0.005, 1e-6, "height");
        }
    }
    // Standing: only the bottom end.
    let m = collide2(
        capsule(0, 0.25, 0.5),
        body(Vec3::new(0.0, 0.74, 0.0), ID),
        ground(shape_kind::HALF_SPACE, 1),
        body(Vec3::ZERO, ID),
        0.0,
    );
    assert_eq!(m.count, 1);
    near(m.points[0].w, 0.01, 1e-6, "standing penetration");
}

#[test]
fn capsules() {
    let lying_x = rot(Vec3::Z, std::f32::consts::FRAC_PI_2);
    let lying_z = rot(Vec3::X, std::f32::consts::FRAC_PI_2);
    // Crossed: one contact at the crossing.
    let m = collide2(
        capsule(0, 0.25, 1.0),
        body(Vec3::new(0.0, 0.49, 0.0), lying_x),
        capsule(1, 0.25, 1.0),
        body(Vec3::ZERO, lying_z),
        0.0,
    );
    assert_eq!(m.count, 1);
    near3(m.normal.xyz(), Vec3::Y, 1e-5, "normal");
    near(m.points[0].w, 0.01, 1e-5, "penetration");
    near3(m.points[0].xyz(), Vec3::new(0.0, 0.245, 0.0), 1e-5, "point");
    // Parallel, side by side and shifted: two contacts at the ends of the common stretch.
    let m = collide2(
        capsule(0, 0.25, 1.0),
        body(Vec3::new(0.5, 0.49, 0.0), lying_x),
        capsule(1, 0.25, 1.0),
        body(Vec3::ZERO, lying_x),
        0.0,
    );
    assert_eq!(m.count, 2);
    near3(m.normal.xyz(), Vec3::Y, 1e-5, "parallel normal");
    let mut xs: Vec<f32> = points(&m).iter().map(|p| p.x).collect();
    xs.sort_by(f32::total_cmp);
    near(xs[0], -0.5, 1e-5, "stretch start");
    near(xs[1], 1.0, 1e-5, "stretch end");
    for p in points(&m) {
        near(p.w, 0.01, 1e-5, "parallel penetration");
    }
    // Sphere against a capsule's side.
    let m = collide2(
        sphere(0, 0.5),
        body(Vec3::new(0.3, 0.7, 0.0), ID),
        capsule(1, 0.25, 1.0),
        body(Vec3::ZERO, lying_x),
        0.0,
    );
    assert_eq!(m.count, 1);
    near3(m.normal.xyz(), Vec3::Y, 1e-5, "sphere–capsule normal");
    near(m.points[0].w, 0.05, 1e-5, "sphere–capsule penetration");
}

#[test]
fn capsule_and_box() {
    let h = Vec3::new(1.0, 0.5, 1.0);
    let lying_x = rot(Vec3::Z, std::f32::consts::FRAC_PI_2);
    // Lying on the top face: two contacts, normal pushes the box (a) down.
    let m = collide2(
        cuboid(0, h),
        body(Vec3::ZERO, ID),
        capsule(1, 0.25, 0.5),
        body(Vec3::new(0.2, 0.74, 0.3), lying_x),
        0.0,
    );
    assert_eq!(m.count, 2, "{m:?}");
    near3(m.normal.xyz(), -Vec3::Y, 1e-5, "normal pushes the box out");
    for p in points(&m) {
        near(p.w, 0.01, 1e-5, "penetration");
    }
    // Lying across the edge: clipped to the face, the overhanging end not in contact.
    let m = collide2(
        cuboid(0, h),
        body(Vec3::ZERO, ID),
        capsule(1, 0.25, 0.5),
        body(Vec3::new(1.2, 0.74, 0.0), lying_x),
        0.0,
    );
    assert_eq!(m.count, 2, "{m:?}");
    let mut xs: Vec<f32> = points(&m).iter().map(|p| p.x).collect();
    xs.sort_by(f32::total_cmp);
    near(xs[0], 0.7, 1e-5, "inner end");
    near(xs[1], 1.0, 1e-5, "clipped at the box edge");
    // Standing on the face: one contact.
    let m = collide2(
        cuboid(0, h),
        body(Vec3::ZERO, ID),
        capsule(1, 0.25, 0.5),
        body(Vec3::new(0.0, 1.24, 0.0), ID),
        0.0,
    );
    assert_eq!(m.count, 1);
    near(m.points[0].w, 0.01, 1e-5, "standing penetration");
    // Against a vertical box edge from the diagonal: one contact, diagonal normal.
    let d = Vec3::new(1.0, 0.0, 1.0).normalize();
    let m = collide2(
        cuboid(0, h),
        body(Vec3::ZERO, ID),
        capsule(1, 0.25, 0.5),
        body(Vec3::new(1.0, 0.0, 1.0) + d * 0.2, ID),
        0.0,
    );
    assert_eq!(m.count, 1);
    near3(m.normal.xyz(), -d, 1e-5, "edge normal");
    near(m.points[0].w, 0.05, 1e-5, "edge penetration");
    // Stuck through the top face: the segment intersects the box, the face axis wins.
    let m = collide2(
        cuboid(0, h),
        body(Vec3::ZERO, ID),
        capsule(1, 0.25, 0.5),
        body(Vec3::new(0.0, 0.6, 0.0), ID),
        0.0,
    );
    assert_eq!(m.count, 1, "{m:?}");
    near3(m.normal.xyz(), -Vec3::Y, 1e-5, "deep normal");
    near(m.points[0].w, 0.25 + 0.4, 1e-5, "deep penetration");
}

#[test]
fn static_pairs_and_bad_indices_make_nothing() {
    let bodies = [body(Vec3::ZERO, ID), body(Vec3::ZERO, ID)];
    let shapes = [
        ground(shape_kind::HALF_SPACE, 0),
        ground(shape_kind::PLANE, 1),
    ];
    let m = collide_shapes(&params(0.1), &shapes, &bodies, &[], &[], 0, 1);
    assert_eq!(m.count, 0);
    let m = collide_shapes(&params(0.1), &shapes, &bodies, &[], &[], 0, 9);
    assert_eq!((m.count, m.body_a, m.body_b), (0, NONE, NONE));
    // Two overlapping parts of one body.
    let parts = [sphere(0, 0.5), cuboid(0, Vec3::ONE)];
    let m = collide_shapes(&params(0.1), &parts, &bodies, &[], &[], 0, 1);
    assert_eq!((m.count, m.body_a, m.body_b), (0, 0, 0));
}

#[test]
fn manifolds_carry_combined_materials() {
    let mut a = sphere(0, 0.5);
    let mut b = ground(shape_kind::HALF_SPACE, 1);
    a.material = Vec4::new(0.0, 0.2, 0.0, 0.0);
    b.material = Vec4::new(1.0, 0.9, 0.0, 0.0);
    let bodies = [body(Vec3::new(0.0, 0.4, 0.0), ID), body(Vec3::ZERO, ID)];
    for (f, r) in [
        (Combine::WeightedFriction, Combine::WeightedRestitution),
        (Combine::Min, Combine::PiecewiseRestitution),
        (Combine::Geometric, Combine::Average),
    ] {
        let p = GpuRigidParams {
            combine_friction: f.code(),
            combine_restitution: r.code(),
            ..params(0.0)
        };
        let m = collide_shapes(&p, &[a, b], &bodies, &[], &[], 1, 0);
        near(m.normal.w, f.apply(0.0, 1.0), 1e-7, "friction");
        near(m.material.x, r.apply(0.2, 0.9), 1e-7, "restitution");
    }
}

#[test]
fn the_stage_writes_pair_slots_and_leaves_the_rest() {
    let bodies = [
        body(Vec3::new(0.0, 0.45, 0.0), ID),
        body(Vec3::ZERO, ID),
        body(Vec3::new(0.9, 0.45, 0.0), ID),
    ];
    let shapes = [
        sphere(0, 0.5),
        ground(shape_kind::HALF_SPACE, 1),
        sphere(2, 0.5),
    ];
    let pairs = [[0u32, 1], [1, 2], [0, 2]];
    let sentinel = GpuManifold {
        count: 77,
        ..Default::default()
    };
    let mut manifolds = vec![sentinel; 5];
    narrow(
        &params(0.0),
        &shapes,
        &bodies,
        &[],
        &[],
        &[],
        &pairs,
        &mut manifolds,
    );
    assert_eq!(manifolds[0].count, 1);
    assert_eq!((manifolds[1].shape_a, manifolds[1].shape_b), (2, 1));
    assert_eq!(manifolds[2].count, 1);
    assert_eq!(manifolds[3].count, 77, "slot past the pairs untouched");
    let capped = GpuRigidParams {
        pair_capacity: 1,
        ..params(0.0)
    };
    let mut manifolds = vec![sentinel; 3];
    narrow(
        &capped,
        &shapes,
        &bodies,
        &[],
        &[],
        &[],
        &pairs,
        &mut manifolds,
    );
    assert_eq!(manifolds[1].count, 77, "slot past the capacity untouched");
}

/// The WGSL combine codes equal the Rust ones (the shader declares its own constants).
#[test]
fn wgsl_combine_codes_match_rust() {
    let src = shader_source();
    for (name, rule) in [
        ("COMBINE_MIN", Combine::Min),
        ("COMBINE_AVERAGE", Combine::Average),
        ("COMBINE_GEOMETRIC", Combine::Geometric),
        ("COMBINE_WEIGHTED_FRICTION", Combine::WeightedFriction),
        (
            "COMBINE_PIECEWISE_RESTITUTION",
            Combine::PiecewiseRestitution,
        ),
        ("COMBINE_WEIGHTED_RESTITUTION", Combine::WeightedRestitution),
    ] {
        let decl = format!("const {name}: u32 = {}u;", rule.code());
        assert!(src.contains(&decl), "narrow.wgsl lacks `{decl}`");
    }
}

/// The f32 tuning constants the shader declares itself equal the Rust ones.
#[test]
fn wgsl_narrow_constants_match_rust() {
    let src = shader_source();
    for (name, value) in [
        ("NC_PARALLEL_EPS", PARALLEL_EPS),
        ("NC_BIAS_REL", BIAS_REL),
        ("NC_BIAS_ABS", BIAS_ABS),
        ("NC_VERTEX_NEAR", VERTEX_NEAR),
    ] {
        let decl = format!("const {name}: f32 = ");
        let at = src
            .find(&decl)
            .unwrap_or_else(|| panic!("narrow.wgsl lacks `{decl}`"));
        let lit = &src[at + decl.len()..];
        let lit = &lit[..lit.find(';').expect("a terminated constant")];
        let parsed: f32 = lit.trim().parse().expect("a float literal");
        assert_eq!(parsed, value, "{name}: WGSL {lit}, Rust {value}");
    }
}
