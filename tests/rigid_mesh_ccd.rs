//! Continuous collision against level geometry (issue 37, item 5; stage `ccd`, `level_toi`):
//! fast shapes are swept by conservative advancement against the triangles of meshes and
//! heightfields on both backends, so a box thrown at 100 m/s at a 5 cm mesh wall, and a ball
//! fired at 100 m/s into a heightfield, stop at the surface instead of passing through; the GPU
//! stops them where the CPU twin does.

mod common;

use common::rigid::*;
use glam::Vec3;
use wgphys::rigid::{Collider, RigidBody, RigidWorld};
use wgphys::Backend;

fn world(backend: Backend) -> RigidWorld {
    RigidWorld::new(backend, config(8)).expect("world")
}

/// A fast body without gravity or damping, continuous collision on.
fn bullet(at: Vec3, v: Vec3) -> RigidBody {
    RigidBody::dynamic()
        .position(at)
        .velocity(v)
        .acceleration(Vec3::ZERO)
        .damping(1.0, 1.0)
        .ccd(true)
}

/// A box of half size 0.25 thrown at 100 m/s along x at a wall of triangles 5 cm thick: 1.67 m
/// a step, so without the sweep it would be past the wall in its third step. The sweep stops it
/// within half the slop of the wall's face (plus the tolerance) and the solver takes over: its
/// front face never gets more than the slop into the wall, and it ends in front of the wall.
/// GPU and CPU stop it in the same place in the step it reaches the wall: the sweep's
/// arithmetic is the same, to a few ulps of the 5 m it travelled (1e-4 m).
#[test]
fn a_box_at_100_m_per_s_stops_at_a_5_cm_mesh_wall() {
    let (v, t) = slab(Vec3::new(5.0, -2.0, -2.0), Vec3::new(5.05, 2.0, 2.0));
    let wall = Collider::trimesh(&v, &t).expect("wall");
    let half = 0.25;
    let mut stops = Vec::new();
    for (name, backend) in backends() {
        let mut w = world(backend);
        w.add_body(RigidBody::fixed(), std::slice::from_ref(&wall))
            .unwrap();
        let h = w
            .add_body(
                bullet(Vec3::new(0.3, 0.0, 0.0), Vec3::new(100.0, 0.0, 0.0)),
                &[Collider::cuboid(Vec3::splat(half))],
            )
            .unwrap();
        let mut furthest = f32::MIN;
        let mut stop = Vec3::ZERO;
        for k in 0..30 {
            w.step(DT).unwrap();
            let at = w.read_body(h).unwrap().position;
            furthest = furthest.max(at.x);
            if k == 2 {
                // The step that reaches the wall: where the sweep put the box.
                stop = at;
            }
        }
        let slop = w.config().position_slop;
        assert!(
            furthest + half <= 5.0 + slop,
            "{name}: the box reached x = {furthest} (its face at {}), into the wall at 5",
            furthest + half
        );
        let end = w.read_body(h).unwrap();
        assert!(
            end.position.x < 5.0 - half + slop,
            "{name}: the box ended at {} (the wall's face at 5)",
            end.position
        );
        stops.push(stop);
    }
    assert!(
        (stops[0] - stops[1]).length() <= 1e-4,
        "the backends stopped the box at {} and {}",
        stops[0],
        stops[1]
    );
}

/// A sheet of two triangles in the plane x = 5 (no thickness), 4 m square, its front facing −x.
fn sheet(two_sided: bool) -> Collider {
    let v = [
        Vec3::new(5.0, -2.0, -2.0),
        Vec3::new(5.0, 2.0, -2.0),
        Vec3::new(5.0, 2.0, 2.0),
        Vec3::new(5.0, -2.0, 2.0),
    ];
    let t = [[0, 2, 1], [0, 3, 2]];
    if two_sided {
        Collider::two_sided_trimesh(&v, &t).expect("sheet")
    } else {
        Collider::trimesh(&v, &t).expect("sheet")
    }
}

/// A box of half size 0.25 thrown at 100 m/s (1.67 m a step) at a sheet of triangles with no
/// thickness: a two-sided sheet stops it from either side, its face never more than the slop
/// past the sheet and the box ending on the side it came from, on both backends; a one-sided
/// sheet stops it coming at its front and lets it through from behind (nothing there to meet).
#[test]
fn a_box_at_100_m_per_s_stops_at_either_side_of_a_two_sided_sheet() {
    let half = 0.25;
    for (name, backend) in backends() {
        for (two_sided, from) in [(true, -1.0f32), (true, 1.0), (false, -1.0), (false, 1.0)] {
            let mut w = world(backend.clone());
            w.add_body(RigidBody::fixed(), &[sheet(two_sided)]).unwrap();
            // From x = 0.3 going +x (the front), or from x = 9.7 going −x (the back).
            let h = w
                .add_body(
                    bullet(
                        Vec3::new(5.0 + 4.7 * from, 0.0, 0.0),
                        Vec3::new(-100.0 * from, 0.0, 0.0),
                    ),
                    &[Collider::cuboid(Vec3::splat(half))],
                )
                .unwrap();
            let slop = w.config().position_slop;
            let mut deepest = f32::MIN;
            for _ in 0..12 {
                w.step(DT).unwrap();
                let x = w.read_body(h).unwrap().position.x;
                // How far the box's leading face got past the sheet.
                deepest = deepest.max((5.0 - x) * from - half);
            }
            let end = w.read_body(h).unwrap().position.x;
            let what = format!("{name} two-sided {two_sided}, from the {from} side");
            if two_sided || from < 0.0 {
                assert!(
                    deepest <= slop,
                    "{what}: the face went {deepest} m past the sheet"
                );
                assert!((end - 5.0) * from > 0.0, "{what}: ended at x = {end}");
            } else {
                assert!(
                    (end - 5.0) * from < -10.0,
                    "{what}: the box should have passed the sheet's back, ended at x = {end}"
                );
            }
        }
    }
}

/// A ball of radius 0.2 fired straight down at 100 m/s onto a flat heightfield (1.67 m a step)
/// stops on it instead of tunnelling: its centre never goes below the surface plus its radius
/// less the slop, on both backends.
#[test]
fn a_ball_at_100_m_per_s_stops_on_a_heightfield() {
    let n = 9u32;
    let heights = vec![0.0f32; (n * n) as usize];
    let field = Collider::heightfield(n, n, &heights, Vec3::new(8.0, 1.0, 8.0)).expect("field");
    let r = 0.2;
    for (name, backend) in backends() {
        let mut w = world(backend);
        w.add_body(RigidBody::fixed(), std::slice::from_ref(&field))
            .unwrap();
        let h = w
            .add_body(
                bullet(Vec3::new(0.3, 4.1, -0.2), Vec3::new(0.0, -100.0, 0.0)),
                &[Collider::sphere(r)],
            )
            .unwrap();
        let slop = w.config().position_slop;
        let mut lowest = f32::MAX;
        for _ in 0..20 {
            w.step(DT).unwrap();
            lowest = lowest.min(w.read_body(h).unwrap().position.y);
        }
        assert!(
            lowest >= r - slop,
            "{name}: the ball's centre went down to {lowest} (the surface at 0, radius {r})"
        );
    }
}

/// Shape casts stop on level geometry where the closed forms say: straight down onto a flat
/// heightfield at height 0.5, a ball of radius 0.3 from y = 5 travels 5 − 0.5 − 0.3 and a box
/// turned 45° about z (its lowest edge 0.25·√2 below its centre) 5 − 0.5 − 0.25·√2; onto a mesh
/// ramp y = x/2, a ball above x = 1 travels 5 − 0.5 − 0.3·√(1 + 1/4) (it touches the plane when
/// its centre is r from it, r/cos θ above it). A cast stops within `CAST_REL_TOLERANCE` (1e-4)
/// of the smaller shape's bound short of touching (it never passes the surface): the caster's
/// bound, at most 0.36 m here, so 4e-5 m, plus f32 rounding of 5 m (1e-6 m). Casts see the
/// triangles' front faces only: from below the ramp the ball passes through, unless the ramp is
/// a two-sided mesh: then the cast from below stops where the plane's closed form says
/// (3.5 − 0.3·√(1 + 1/4) up from y = −3).
#[test]
fn shape_casts_stop_on_meshes_and_heightfields_as_the_closed_forms_say() {
    use wgphys::rigid::CAST_REL_TOLERANCE;
    use wgphys::rigid::{QueryFilter, Shape};
    let n = 9u32;
    let field = Collider::heightfield(
        n,
        n,
        &vec![0.5f32; (n * n) as usize],
        Vec3::new(8.0, 1.0, 8.0),
    )
    .expect("field");
    let ramp_v = [
        Vec3::new(-2.0, -1.0, -2.0),
        Vec3::new(4.0, 2.0, -2.0),
        Vec3::new(4.0, 2.0, 2.0),
        Vec3::new(-2.0, -1.0, 2.0),
    ];
    let ramp = Collider::trimesh(&ramp_v, &[[0, 2, 1], [0, 3, 2]]).expect("ramp");
    let ramp2 = Collider::two_sided_trimesh(&ramp_v, &[[0, 2, 1], [0, 3, 2]]).expect("ramp");
    let r = 0.3f32;
    let half = 0.25f32;
    let ball = Shape::Sphere { radius: r };
    let cube = Shape::Cuboid {
        half_extents: Vec3::splat(half),
    };
    let down = -Vec3::Y;
    let any = QueryFilter::default();
    for (name, backend) in backends() {
        let mut w = world(backend);
        w.add_body(RigidBody::fixed(), std::slice::from_ref(&field))
            .unwrap();
        w.add_body(
            RigidBody::fixed().position(Vec3::new(20.0, 0.0, 0.0)),
            std::slice::from_ref(&ramp),
        )
        .unwrap();
        let turned = glam::Quat::from_rotation_z(std::f32::consts::FRAC_PI_4);
        let cases = [
            (
                "ball on the field",
                &ball,
                Vec3::new(0.7, 5.0, -1.1),
                glam::Quat::IDENTITY,
                5.0 - 0.5 - r,
                r,
            ),
            (
                "turned box on the field",
                &cube,
                Vec3::new(-0.4, 5.0, 0.9),
                turned,
                5.0 - 0.5 - half * 2f32.sqrt(),
                half * 3f32.sqrt(),
            ),
            (
                "ball on the ramp",
                &ball,
                Vec3::new(21.0, 5.0, 0.3),
                glam::Quat::IDENTITY,
                5.0 - 0.5 - r * 1.25f32.sqrt(),
                r,
            ),
        ];
        for (what, shape, at, rot, want, bound) in cases {
            let hit = w
                .cast_shape(shape, at, rot, down, 10.0, &any)
                .unwrap()
                .unwrap_or_else(|| panic!("{name}: {what}: no hit"));
            let tol = CAST_REL_TOLERANCE * bound + 1e-6;
            assert!(
                hit.distance <= want + 1e-6 && hit.distance >= want - tol,
                "{name}: {what}: stopped after {} m, the closed form {want}",
                hit.distance
            );
        }
        // From below the ramp, upwards: its back faces do not stop the ball.
        let from_below = w
            .cast_shape(
                &ball,
                Vec3::new(21.0, -3.0, 0.3),
                glam::Quat::IDENTITY,
                Vec3::Y,
                3.5,
                &any,
            )
            .unwrap();
        assert!(
            from_below.is_none(),
            "{name}: stopped from behind: {from_below:?}"
        );
        w.add_body(
            RigidBody::fixed().position(Vec3::new(40.0, 0.0, 0.0)),
            std::slice::from_ref(&ramp2),
        )
        .unwrap();
        let want = 3.5 - r * 1.25f32.sqrt();
        let hit = w
            .cast_shape(
                &ball,
                Vec3::new(41.0, -3.0, 0.3),
                glam::Quat::IDENTITY,
                Vec3::Y,
                3.5,
                &any,
            )
            .unwrap()
            .unwrap_or_else(|| panic!("{name}: the two-sided ramp let the ball through"));
        let tol = CAST_REL_TOLERANCE * r + 1e-6;
        assert!(
            hit.distance <= want + 1e-6 && hit.distance >= want - tol,
            "{name}: from below the two-sided ramp: {} m, the closed form {want}",
            hit.distance
        );
    }
}
