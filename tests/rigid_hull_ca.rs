//! Conservative advancement: the time of impact of a fast small hull against a thin slab (with
//! and without spin), the misses, and the `ccd` stage's sweep (`sweep_toi`): a turning bar is
//! stopped before a wall, the integrator's turn is what `integrator_turn` says, and a box
//! sliding along a floor is left alone while one falling fast onto it is held. Every tolerance
//! says why it is that size.

#[path = "rigid_hull/reference.rs"]
mod reference;

use glam::{Quat, Vec3, Vec4};
use reference::*;
use wgphys::rigid::hull::*;
use wgphys::rigid::math::{from_quat, quat_add_scaled, quat_normalize};

// ---------------------------------------------------------------------------------------------
// Conservative advancement.

/// A small hull (about 0.1 across) fired at 3 units per step at a slab 0.02 thick: without CCD
/// it would be past the slab at the end of the step; the TOI stops it within the target
/// distance, never closer, and (without spin) at the analytic time.
#[test]
fn ca_stops_a_fast_small_hull_before_a_thin_slab() {
    let mut rng = Rng::new(40);
    let slab = Hull::cuboid(Vec3::new(0.01, 2.0, 2.0)).unwrap();
    let stop = TimeOfImpact::new(0.001, 0.0005).unwrap();
    for trial in 0..60 {
        let small = random_hull(&mut rng, 12, 0.05);
        let mut store = HullStore::new();
        let ra = store.add(&small).unwrap();
        let rb = store.add(&slab).unwrap();
        let spin = if trial % 2 == 0 {
            Vec3::ZERO
        } else {
            rng.on_sphere() * 20.0
        };
        let sa = Sweep::new(
            Vec3::new(-1.0, rng.range(-0.5, 0.5), rng.range(-0.5, 0.5)),
            rng.rotation(),
            Vec3::new(3.0, 0.0, 0.0),
            spin,
        )
        .unwrap();
        let sb = Sweep::new(Vec3::ZERO, Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO).unwrap();
        let a = ConvexShape::hull(sa.frame_at(0.0), ra);
        let b = ConvexShape::hull(sb.frame_at(0.0), rb);
        // Not vacuous: at the end of the step the hull is wholly past the slab.
        let end = sa.frame_at(1.0);
        let min_x = small
            .vertices()
            .iter()
            .map(|v| end.point(*v).x)
            .fold(f32::MAX, f32::min);
        assert!(min_x > 0.01);
        let hit = time_of_impact(&store, &a, &sa, &b, &sb, &stop).expect("it hits");
        assert!((0.0..1.0).contains(&hit.t));
        let at = |t: f32| {
            let mut a2 = a;
            a2.frame = sa.frame_at(t);
            gjk(&store, &a2, &b)
        };
        let g = at(hit.t);
        // GJK's stopping gap plus the placement's rounding at unit distances.
        let e = g.tolerance + 1e-6;
        assert!(!g.overlap);
        assert!(g.distance >= stop.target - e && g.distance <= stop.target + stop.tolerance + e);
        // Conservative: never closer than the target before t (sampled).
        for k in 0..200 {
            let s = hit.t * k as f32 / 200.0;
            let gs = at(s);
            assert!(
                !gs.overlap && gs.distance >= stop.target - e,
                "closer at {s}"
            );
        }
        if spin == Vec3::ZERO {
            let f0 = sa.frame_at(0.0);
            let max_x = small
                .vertices()
                .iter()
                .map(|v| f0.point(*v).x)
                .fold(f32::MIN, f32::max);
            let gap0 = -0.01 - max_x;
            let lo = (gap0 - stop.target - stop.tolerance - e) / 3.0;
            let hi = (gap0 - stop.target + e) / 3.0;
            assert!(
                hit.t >= lo && hit.t <= hi,
                "t {} not in [{lo}, {hi}]",
                hit.t
            );
        }
    }
}

/// No TOI when the hull moves away, or moves parallel to the slab and never comes near.
#[test]
fn ca_misses() {
    let slab = Hull::cuboid(Vec3::new(0.01, 2.0, 2.0)).unwrap();
    let small = Hull::cuboid(Vec3::splat(0.05)).unwrap();
    let mut store = HullStore::new();
    let ra = store.add(&small).unwrap();
    let rb = store.add(&slab).unwrap();
    let stop = TimeOfImpact::new(0.001, 0.0005).unwrap();
    let sb = Sweep::new(Vec3::ZERO, Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO).unwrap();
    let b = ConvexShape::hull(sb.frame_at(0.0), rb);
    for lin in [Vec3::new(-3.0, 0.0, 0.0), Vec3::new(0.0, 3.0, 0.0)] {
        let sa = Sweep::new(Vec3::new(-1.0, 0.0, 0.0), Quat::IDENTITY, lin, Vec3::ZERO).unwrap();
        let a = ConvexShape::hull(sa.frame_at(0.0), ra);
        assert!(
            time_of_impact(&store, &a, &sa, &b, &sb, &stop).is_none(),
            "{lin:?}"
        );
    }
    assert!(TimeOfImpact::new(-1.0, 0.1).is_err());
    assert!(Sweep::new(Vec3::NAN, Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO).is_err());
}

/// A bar (half extents 0.5 × 0.02 × 0.02) whose body turns 0.6 rad about z in a step about its
/// centre, 0.3 below a wall 0.02 thick: at the end its tip reaches 0.6 (into and past the wall's
/// underside at 0.54), at the start it is 0.22 clear. `sweep_toi` stops it at a fraction where the gap is the target (within the stopping
/// band), and it is never nearer before (sampled), so the tip does not enter the wall.
#[test]
fn sweep_toi_stops_a_turning_bar_before_a_wall() {
    let mut store = HullStore::new();
    let bar = store
        .add(&Hull::cuboid(Vec3::new(0.5, 0.02, 0.02)).unwrap())
        .unwrap();
    let wall = store
        .add(&Hull::cuboid(Vec3::new(2.0, 0.01, 2.0)).unwrap())
        .unwrap();
    let centre = Vec3::new(0.0, 0.3, 0.0);
    let theta = Vec3::new(0.0, 0.0, 0.6);
    let end = Frame::new(centre, Quat::from_rotation_z(0.6));
    let a = ConvexShape::hull(end, bar);
    let b = SweepTarget::Convex(ConvexShape::hull(
        Frame::new(Vec3::new(0.0, 0.55, 0.0), Quat::IDENTITY),
        wall,
    ));
    let (gap, tol) = (0.001, 0.001);
    let arm = 0.51;
    let at = |t: f32| {
        let mut s = a;
        s.frame = sweep_frame(&end, centre, Vec3::ZERO, theta, t);
        match b {
            SweepTarget::Convex(w) => gjk(&store, &s, &w),
            SweepTarget::Plane(..) => unreachable!(),
        }
    };
    // Not vacuous: overlapping at the end, clear at the start.
    assert!(at(1.0).overlap, "the bar's end pose should be in the wall");
    assert!(at(0.0).distance > 0.2, "start gap {}", at(0.0).distance);
    let t = sweep_toi(&store, &a, centre, Vec3::ZERO, theta, arm, &b, gap, tol).expect("a hit");
    let g = at(t);
    // GJK's stopping gap and the placement's rounding at unit distances.
    let e = g.tolerance + 1e-6;
    assert!(
        !g.overlap && g.distance >= gap - e && g.distance <= gap + tol + e,
        "{t}: {g:?}"
    );
    for k in 0..200 {
        let s = t * k as f32 / 200.0;
        assert!(at(s).distance >= gap - e, "nearer than the gap at {s}");
    }
}

/// `rigid_integrate` turns q by ½·(ω·h, 0)·q and normalizes: the same rotation as
/// `quat_from_rotation(integrator_turn(ω·h))`, within 8 ulps per lane (two products and a
/// normalization on each side), for turns up to 2 rad a step.
#[test]
fn the_integrators_turn_is_integrator_turn() {
    let mut rng = Rng::new(8);
    for _ in 0..200 {
        let q0 = from_quat(rng.rotation());
        let w_dt = rng.on_sphere() * rng.range(0.0, 2.0);
        let integrated = quat_normalize(quat_add_scaled(q0, w_dt, 1.0));
        let r = quat_from_rotation(integrator_turn(w_dt));
        let turned = quat_normalize(wgphys::rigid::math::quat_mul(r, q0));
        let d = (integrated - turned).abs().max_element();
        assert!(
            d <= 8.0 * f32::EPSILON,
            "{w_dt:?}: {integrated:?} vs {turned:?}"
        );
    }
    assert_eq!(integrator_turn(Vec3::ZERO), Vec3::ZERO);
    assert_eq!(quat_from_rotation(Vec3::ZERO), Vec4::W);
}

/// A box 1 mm above a floor (within the stopping band of 1 mm + 1 mm) sliding fast along it is
/// left alone (its extent towards the floor does not grow); falling fast onto it, it is held
/// at the start; 10 cm above and falling 30 cm in the step, it stops 1 to 2 mm above, at the
/// fraction (0.099 − gap)/0.3 of the plane's exact linear gap within the band.
#[test]
fn sweep_toi_on_a_floor_slides_holds_and_stops() {
    let store = HullStore::new();
    let floor = SweepTarget::Plane(Vec3::Y, 0.0);
    let (gap, tol) = (0.001, 0.001);
    let cube = |y: f32| {
        ConvexShape::cuboid(
            Frame::new(Vec3::new(0.0, y, 0.0), Quat::IDENTITY),
            Vec3::splat(0.1),
        )
    };
    // The end poses: the sweep runs back from them.
    let slide = Vec3::new(0.5, 0.0, 0.0);
    let a = cube(0.101);
    let c = a.frame.pos;
    assert_eq!(
        sweep_toi(&store, &a, c, slide, Vec3::ZERO, 0.2, &floor, gap, tol),
        None
    );
    let fall = Vec3::new(0.0, -0.3, 0.0);
    let a = cube(0.101 - 0.3);
    let c = a.frame.pos;
    assert_eq!(
        sweep_toi(&store, &a, c, fall, Vec3::ZERO, 0.2, &floor, gap, tol),
        Some(0.0)
    );
    let a = cube(0.2 - 0.3);
    let c = a.frame.pos;
    let t = sweep_toi(&store, &a, c, fall, Vec3::ZERO, 0.2, &floor, gap, tol).expect("a hit");
    let height = 0.2 - 0.3 * (1.0 - (1.0 - t)) - 0.1;
    // f32 positions near 0.2: a few ulps of it.
    let e = 1e-6;
    assert!(
        height >= gap - e && height <= gap + tol + e,
        "t {t}: {height} above the floor"
    );
}
