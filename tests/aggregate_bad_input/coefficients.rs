//! Springs, rods, cables and damped springs with bad coefficients or ends: refused with an
//! error naming the problem, on both backends.

use super::*;

#[test]
fn zero_length_and_bad_rods_are_refused() {
    for mut t in twins() {
        let (a, b) = (t.ids[0], t.ids[2]);
        for length in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            t.rejects(
                &format!("rod of length {length}"),
                |w| w.add_link(Link::Rod { a, b, length }),
                invalid("rod.length"),
            );
            t.rejects(
                &format!("anchored rod of length {length}"),
                |w| {
                    w.add_link(Link::AnchoredRod {
                        particle: a,
                        anchor: Vec3::ZERO,
                        length,
                    })
                },
                invalid("rod.length"),
            );
        }
        t.rejects(
            "cable of length 0",
            |w| {
                w.add_link(Link::Cable {
                    a,
                    b,
                    max_length: 0.0,
                    restitution: 0.5,
                })
            },
            invalid("cable.max_length"),
        );
        t.rejects(
            "cable restitution 1.5",
            |w| {
                w.add_link(Link::Cable {
                    a,
                    b,
                    max_length: 1.0,
                    restitution: 1.5,
                })
            },
            invalid("cable.restitution"),
        );
        t.rejects(
            "anchored cable with a NaN anchor",
            |w| {
                w.add_link(Link::AnchoredCable {
                    particle: a,
                    anchor: Vec3::new(0.0, f32::NAN, 0.0),
                    max_length: 1.0,
                    restitution: 0.5,
                })
            },
            invalid("cable.anchor"),
        );
    }
}

#[test]
fn springs_and_links_from_a_particle_to_itself_are_refused() {
    for mut t in twins() {
        let a = t.ids[1];
        t.rejects(
            "spring a–a",
            |w| {
                w.add_generator(ForceGenerator::Spring {
                    a,
                    b: a,
                    stiffness: 1.0,
                    rest_length: 1.0,
                })
            },
            invalid("spring ends"),
        );
        t.rejects(
            "bungee a–a",
            |w| {
                w.add_generator(ForceGenerator::Bungee {
                    a,
                    b: a,
                    stiffness: 1.0,
                    rest_length: 1.0,
                })
            },
            invalid("spring ends"),
        );
        t.rejects(
            "damped spring a–a",
            |w| {
                w.add_generator(ForceGenerator::DampedSpring {
                    a,
                    b: a,
                    rest_length: 1.0,
                    stiffness: 0.5,
                    damping: 0.5,
                })
            },
            invalid("damped spring ends"),
        );
        t.rejects(
            "rod a–a",
            |w| {
                w.add_link(Link::Rod {
                    a,
                    b: a,
                    length: 1.0,
                })
            },
            invalid("rod ends"),
        );
        t.rejects(
            "cable a–a",
            |w| {
                w.add_link(Link::Cable {
                    a,
                    b: a,
                    max_length: 1.0,
                    restitution: 0.0,
                })
            },
            invalid("cable ends"),
        );
    }
}

#[test]
fn negative_stiffness_damping_and_other_bad_coefficients_are_refused() {
    for mut t in twins() {
        let (a, b) = (t.ids[0], t.ids[3]);
        let cases: Vec<(&str, ForceGenerator, &'static str)> = vec![
            (
                "spring stiffness -1",
                ForceGenerator::Spring {
                    a,
                    b,
                    stiffness: -1.0,
                    rest_length: 1.0,
                },
                "spring.stiffness",
            ),
            (
                "spring rest length -1",
                ForceGenerator::Spring {
                    a,
                    b,
                    stiffness: 1.0,
                    rest_length: -1.0,
                },
                "spring.rest_length",
            ),
            (
                "anchored spring stiffness NaN",
                ForceGenerator::AnchoredSpring {
                    particle: a,
                    anchor: Vec3::ZERO,
                    stiffness: f32::NAN,
                    rest_length: 1.0,
                },
                "spring.stiffness",
            ),
            (
                "bungee stiffness -5",
                ForceGenerator::Bungee {
                    a,
                    b,
                    stiffness: -5.0,
                    rest_length: 1.0,
                },
                "spring.stiffness",
            ),
            (
                "anchored bungee stiffness -inf",
                ForceGenerator::AnchoredBungee {
                    particle: a,
                    anchor: Vec3::ZERO,
                    stiffness: f32::NEG_INFINITY,
                    rest_length: 1.0,
                },
                "spring.stiffness",
            ),
            (
                "fake spring stiffness -1",
                ForceGenerator::FakeSpring {
                    particle: a,
                    anchor: Vec3::ZERO,
                    stiffness: -1.0,
                    damping: 0.1,
                },
                "fake_spring.stiffness",
            ),
            (
                "fake spring damping -0.1",
                ForceGenerator::FakeSpring {
                    particle: a,
                    anchor: Vec3::ZERO,
                    stiffness: 1.0,
                    damping: -0.1,
                },
                "fake_spring.damping",
            ),
            (
                "drag k1 -1",
                ForceGenerator::Drag {
                    particle: a,
                    k1: -1.0,
                    k2: 0.0,
                },
                "drag.k1",
            ),
            (
                "drag k2 NaN",
                ForceGenerator::Drag {
                    particle: a,
                    k1: 0.1,
                    k2: f32::NAN,
                },
                "drag.k2",
            ),
            (
                "buoyancy max depth 0",
                ForceGenerator::Buoyancy {
                    particle: a,
                    max_depth: 0.0,
                    volume: 1.0,
                    water_height: 0.0,
                    density: 1000.0,
                    gravity: 9.81,
                },
                "buoyancy.max_depth",
            ),
            (
                "buoyancy density -1000",
                ForceGenerator::Buoyancy {
                    particle: a,
                    max_depth: 1.0,
                    volume: 1.0,
                    water_height: 0.0,
                    density: -1000.0,
                    gravity: 9.81,
                },
                "buoyancy.density",
            ),
            (
                "gravity generator with an infinite g",
                ForceGenerator::Gravity {
                    particle: a,
                    g: Vec3::new(0.0, f32::INFINITY, 0.0),
                },
                "gravity.g",
            ),
        ];
        for (case, g, what) in cases {
            t.rejects(case, |w| w.add_generator(g), invalid(what));
        }
    }
}

#[test]
fn damped_spring_coefficients_outside_zero_one_are_refused() {
    for mut t in twins() {
        let (a, b) = (t.ids[0], t.ids[3]);
        for (ck, cd) in [
            (1.5, 0.5),
            (-0.1, 0.5),
            (0.5, 1.01),
            (0.5, -1.0),
            (f32::NAN, 0.5),
            (0.5, f32::NAN),
        ] {
            let what = if (0.0..=1.0).contains(&ck) {
                "damped_spring.damping (C_d)"
            } else {
                "damped_spring.stiffness (C_k)"
            };
            t.rejects(
                &format!("damped spring C_k {ck} C_d {cd}"),
                |w| {
                    w.add_generator(ForceGenerator::DampedSpring {
                        a,
                        b,
                        rest_length: 1.0,
                        stiffness: ck,
                        damping: cd,
                    })
                },
                invalid(what),
            );
            t.rejects(
                &format!("anchored damped spring C_k {ck} C_d {cd}"),
                |w| {
                    w.add_generator(ForceGenerator::AnchoredDampedSpring {
                        particle: a,
                        anchor: Vec3::ONE,
                        rest_length: 1.0,
                        stiffness: ck,
                        damping: cd,
                    })
                },
                invalid(what),
            );
        }
    }
}
