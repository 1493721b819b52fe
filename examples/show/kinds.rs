//! The show's effects as data: the shell kinds (each a launcher emitter whose shells burst,
//! through a death sub-emitter, into a star emitter), the crackle, the ground pieces, the
//! smoke, and the program of cues.

use glam::{Quat, Vec3, Vec4};
use wgphys::particles::{EmitShape, EmitVelocity, Emitter};

/// Standard gravity.
const G: Vec3 = Vec3::new(0.0, -9.81, 0.0);

/// How a kind's stars fly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pattern {
    /// A sphere of stars.
    Peony,
    /// Slow, long-lived, drooping gold.
    Willow,
    /// A flat ring, tilted towards the audience.
    Ring,
    /// A few heavy comets.
    Palm,
}

/// A shell kind.
#[derive(Clone, Copy, Debug)]
pub struct Kind {
    /// The stars' colour (linear; the curve brightens it).
    pub colour: Vec3,
    /// Stars per shell at scale 1.
    pub stars: u32,
    /// How they fly.
    pub pattern: Pattern,
    /// Whether each star dies in a crackle of glitter.
    pub crackle: bool,
}

/// The kinds, in the order the program names them.
pub const KINDS: [Kind; 9] = [
    // 0 red, 1 green, 2 blue, 3 purple: peonies
    Kind {
        colour: Vec3::new(1.0, 0.12, 0.08),
        stars: 16_000,
        pattern: Pattern::Peony,
        crackle: false,
    },
    Kind {
        colour: Vec3::new(0.15, 1.0, 0.25),
        stars: 16_000,
        pattern: Pattern::Peony,
        crackle: false,
    },
    Kind {
        colour: Vec3::new(0.2, 0.35, 1.0),
        stars: 16_000,
        pattern: Pattern::Peony,
        crackle: false,
    },
    Kind {
        colour: Vec3::new(0.75, 0.25, 1.0),
        stars: 16_000,
        pattern: Pattern::Peony,
        crackle: false,
    },
    // 4 gold crackle peony
    Kind {
        colour: Vec3::new(1.0, 0.7, 0.3),
        stars: 12_000,
        pattern: Pattern::Peony,
        crackle: true,
    },
    // 5 gold willow
    Kind {
        colour: Vec3::new(1.0, 0.55, 0.18),
        stars: 14_000,
        pattern: Pattern::Willow,
        crackle: false,
    },
    // 6 cyan ring, 7 magenta ring
    Kind {
        colour: Vec3::new(0.2, 0.9, 1.0),
        stars: 8_000,
        pattern: Pattern::Ring,
        crackle: false,
    },
    Kind {
        colour: Vec3::new(1.0, 0.2, 0.7),
        stars: 8_000,
        pattern: Pattern::Ring,
        crackle: true,
    },
    // 8 gold palm
    Kind {
        colour: Vec3::new(1.0, 0.6, 0.25),
        stars: 400,
        pattern: Pattern::Palm,
        crackle: false,
    },
];

/// How much of its speed a shell keeps per second.
pub const SHELL_DAMPING: f32 = 0.85;

/// The launch speed (m/s) of a shell with a fuse of `fuse` seconds, so that it bursts near the
/// top of its climb: 25 m/s for 2.15 s (27 m up), 45 m/s for 3.4 s (70 m up).
pub fn shell_speed(fuse: f32) -> f32 {
    (15.6 * fuse - 8.6).max(10.0)
}

/// The launcher of a kind: no rate; the show sets its position, direction, fuse and a burst
/// at each cue. Its shells are gold comets that leave a ribbon as they rise.
pub fn launcher() -> Emitter {
    Emitter {
        rate: 0.0,
        velocity: EmitVelocity::Directional {
            direction: Vec3::Y,
            spread: 0.0,
            speed: (40.0, 40.0),
        },
        lifetime: (2.8, 2.8),
        size: (0.15, 0.15),
        colour: (Vec4::new(2.5, 1.5, 0.6, 1.0), Vec4::new(2.5, 1.5, 0.6, 1.0)),
        damping: SHELL_DAMPING,
        acceleration: G,
        ..Emitter::default()
    }
}

/// The stars of a kind (only ever emitted as a launcher's death sub-emitter).
pub fn stars(kind: &Kind) -> Emitter {
    let c = kind.colour;
    // The stars start together in a small ball: they fade in as they fly apart (the burst's
    // flash is a light, see `Show::lights`).
    let hot = (c * 2.0 + Vec3::splat(0.5)).extend(0.0);
    let curve = |keys: &[(f32, f32, f32)]| -> Vec<(f32, Vec4)> {
        // (life, brightness, alpha) keys of the kind's colour, after the flash.
        let mut v = vec![(0.0, hot)];
        v.extend(keys.iter().map(|&(t, b, a)| (t, (c * b).extend(a))));
        v
    };
    let base = Emitter {
        rate: 0.0,
        shape: EmitShape::Sphere { radius: 0.4 },
        velocity: EmitVelocity::Radial {
            speed: (15.0, 17.0),
        },
        lifetime: (1.8, 2.6),
        colour_over_life: Some(curve(&[(0.15, 4.0, 1.0), (0.6, 2.6, 1.0), (1.0, 0.8, 0.0)])),
        size_over_life: Some(vec![(0.0, 0.16), (0.2, 0.12), (1.0, 0.06)]),
        damping: 0.3,
        acceleration: G * 0.5,
        ..Emitter::default()
    };
    match kind.pattern {
        Pattern::Peony => base,
        Pattern::Willow => Emitter {
            velocity: EmitVelocity::Radial { speed: (9.0, 12.0) },
            lifetime: (3.2, 4.4),
            colour_over_life: Some(curve(&[(0.05, 3.0, 1.0), (0.5, 1.6, 1.0), (1.0, 0.4, 0.0)])),
            damping: 0.45,
            acceleration: G * 0.35,
            ..base
        },
        Pattern::Ring => Emitter {
            shape: EmitShape::Disc { radius: 0.3 },
            velocity: EmitVelocity::Radial {
                speed: (17.0, 17.5),
            },
            // Seen from the audience (along -z), tilted back a little.
            rotation: Quat::from_rotation_x(1.25),
            ..base
        },
        Pattern::Palm => Emitter {
            velocity: EmitVelocity::Radial {
                speed: (12.0, 16.0),
            },
            lifetime: (2.4, 3.0),
            colour_over_life: Some(curve(&[(0.05, 3.5, 1.0), (0.7, 2.0, 1.0), (1.0, 0.5, 0.0)])),
            size_over_life: Some(vec![(0.0, 0.4), (1.0, 0.15)]),
            damping: 0.5,
            acceleration: G * 0.6,
            ..base
        },
    }
}

/// Glitter: a star's death, a few short white-gold sparks.
pub fn crackle() -> Emitter {
    Emitter {
        rate: 0.0,
        shape: EmitShape::Sphere { radius: 0.05 },
        velocity: EmitVelocity::Radial { speed: (2.0, 4.5) },
        lifetime: (0.3, 0.7),
        colour_over_life: Some(vec![
            (0.0, Vec4::new(6.0, 6.0, 5.0, 1.0)),
            (0.3, Vec4::new(4.0, 2.6, 1.0, 1.0)),
            (1.0, Vec4::new(1.0, 0.3, 0.05, 0.0)),
        ]),
        size_over_life: Some(vec![(0.0, 0.08), (1.0, 0.03)]),
        damping: 0.3,
        acceleration: G * 0.3,
        ..Emitter::default()
    }
}

/// A fountain (gerb) on the ground: a cone of gold and silver sparks, `rate` per second.
pub fn fountain(position: Vec3, rate: f32) -> Emitter {
    Emitter {
        rate,
        shape: EmitShape::Cone {
            half_angle: 0.15,
            height: 0.2,
        },
        velocity: EmitVelocity::Directional {
            direction: Vec3::Y,
            spread: 0.22,
            speed: (10.0, 15.0),
        },
        lifetime: (1.0, 1.7),
        colour_over_life: Some(vec![
            (0.0, Vec4::new(5.0, 4.5, 3.5, 1.0)),
            (0.4, Vec4::new(3.0, 1.8, 0.7, 1.0)),
            (1.0, Vec4::new(0.8, 0.25, 0.05, 0.0)),
        ]),
        size_over_life: Some(vec![(0.0, 0.1), (1.0, 0.05)]),
        damping: 0.6,
        acceleration: G,
        position,
        ..Emitter::default()
    }
}

/// The flash of a launch: a short cone of sparks at the mortar (bursts set per cue).
pub fn lift() -> Emitter {
    Emitter {
        rate: 0.0,
        shape: EmitShape::Point,
        velocity: EmitVelocity::Directional {
            direction: Vec3::Y,
            spread: 0.35,
            speed: (4.0, 12.0),
        },
        lifetime: (0.2, 0.5),
        colour_over_life: Some(vec![
            (0.0, Vec4::new(6.0, 5.0, 3.0, 1.0)),
            (1.0, Vec4::new(2.0, 0.6, 0.1, 0.0)),
        ]),
        size_over_life: Some(vec![(0.0, 0.12), (1.0, 0.05)]),
        damping: 0.3,
        acceleration: G,
        ..Emitter::default()
    }
}

/// A mine: a fan of stars shot up from the ground (bursts set per cue).
pub fn mine(colour: Vec3) -> Emitter {
    Emitter {
        rate: 0.0,
        shape: EmitShape::Point,
        velocity: EmitVelocity::Directional {
            direction: Vec3::Y,
            spread: 0.3,
            speed: (18.0, 30.0),
        },
        lifetime: (1.2, 1.9),
        colour_over_life: Some(vec![
            (0.0, Vec4::new(4.0, 4.0, 3.5, 1.0)),
            (0.1, (colour * 4.0).extend(1.0)),
            (1.0, (colour * 0.8).extend(0.0)),
        ]),
        size_over_life: Some(vec![(0.0, 0.14), (1.0, 0.06)]),
        damping: 0.5,
        acceleration: G * 0.6,
        ..Emitter::default()
    }
}

/// Smoke of a burst: big puffs expanding from a ball (its radius and position set per burst).
pub fn burst_smoke() -> Emitter {
    Emitter {
        rate: 0.0,
        shape: EmitShape::Sphere { radius: 6.0 },
        velocity: EmitVelocity::Radial { speed: (0.5, 2.5) },
        lifetime: (6.0, 9.0),
        colour_over_life: Some(vec![
            (0.0, Vec4::new(0.5, 0.5, 0.55, 0.0)),
            (0.06, Vec4::new(0.45, 0.45, 0.5, 0.12)),
            (0.5, Vec4::new(0.4, 0.4, 0.45, 0.09)),
            (1.0, Vec4::new(0.35, 0.35, 0.4, 0.0)),
        ]),
        size_over_life: Some(vec![(0.0, 2.5), (1.0, 7.0)]),
        damping: 0.6,
        acceleration: Vec3::new(0.0, 0.15, 0.0),
        ..Emitter::default()
    }
}

/// Smoke near the ground: launch puffs and the fountains' plumes (`rate` per second).
pub fn ground_smoke(position: Vec3, rate: f32) -> Emitter {
    Emitter {
        rate,
        shape: EmitShape::Sphere { radius: 0.8 },
        velocity: EmitVelocity::Directional {
            direction: Vec3::Y,
            spread: 0.6,
            speed: (1.0, 3.0),
        },
        lifetime: (3.0, 5.0),
        colour_over_life: Some(vec![
            (0.0, Vec4::new(0.55, 0.55, 0.6, 0.0)),
            (0.1, Vec4::new(0.5, 0.5, 0.55, 0.3)),
            (1.0, Vec4::new(0.4, 0.4, 0.45, 0.0)),
        ]),
        size_over_life: Some(vec![(0.0, 0.8), (1.0, 4.0)]),
        damping: 0.5,
        acceleration: Vec3::new(0.0, 0.4, 0.0),
        position,
        ..Emitter::default()
    }
}

/// What happens at a moment of the program.
#[derive(Clone, Copy, Debug)]
pub enum Cue {
    /// One shell of `kind` from the mortar at `x`, leaning `lean` radians towards +x.
    Shell {
        kind: usize,
        x: f32,
        lean: f32,
        fuse: f32,
    },
    /// `count` shells of `kind` from mortars spread along x in [-half, half], leaning up to
    /// `lean`, their payload `boost` times the kind's.
    Salvo {
        kind: usize,
        count: u32,
        half: f32,
        lean: f32,
        fuse: f32,
        boost: f32,
    },
    /// A mine of colour `mine` (0 or 1) at `x`.
    Mine { mine: usize, x: f32, stars: u32 },
    /// The fountains on or off.
    Fountains(bool),
}

/// Where the fountains stand.
pub const FOUNTAINS: [f32; 6] = [-35.0, -21.0, -7.0, 7.0, 21.0, 35.0];
/// The fountains' distance in front of the mortars, metres.
pub const FOUNTAIN_Z: f32 = 14.0;
/// The length of the program, seconds; then it starts again.
pub const PERIOD: f32 = 52.0;

/// The program: (time, cue), in time order.
pub fn program() -> Vec<(f32, Cue)> {
    let mut cues = vec![(0.0, Cue::Fountains(true)), (13.0, Cue::Fountains(false))];
    // A little deterministic variety.
    let mut seed = 0x2545_f491u32;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed >> 8) as f32 / (1 << 24) as f32
    };
    // Act 1, 1-13 s: single shells walking across the sky.
    let singles = [0, 1, 2, 6, 3, 4, 1, 0, 7, 2, 3, 5, 4, 6, 1];
    for (i, &kind) in singles.iter().enumerate() {
        let x = -36.0 + 72.0 * ((i * 7) % 15) as f32 / 14.0;
        cues.push((
            1.0 + 0.8 * i as f32,
            Cue::Shell {
                kind,
                x,
                lean: -x * 0.003,
                fuse: 2.4 + 1.0 * rand(),
            },
        ));
    }
    // Act 2, 14-25 s: willows in pairs leaning outwards, palms and crackle between them.
    for i in 0..8 {
        let t = 14.0 + 1.4 * i as f32;
        let x = 14.0 + 14.0 * rand();
        cues.push((
            t,
            Cue::Shell {
                kind: 5,
                x: -x,
                lean: -0.12,
                fuse: 3.1,
            },
        ));
        cues.push((
            t,
            Cue::Shell {
                kind: 5,
                x,
                lean: 0.12,
                fuse: 3.1,
            },
        ));
        let kind = if i % 2 == 0 { 8 } else { 4 };
        cues.push((
            t + 0.7,
            Cue::Shell {
                kind,
                x: 10.0 * (rand() - 0.5),
                lean: 0.0,
                fuse: 2.6,
            },
        ));
    }
    // Act 3, 26-33 s: mines from the ground, rings above.
    for i in 0..14 {
        let t = 26.0 + 0.5 * i as f32;
        let side = if i % 2 == 0 { -1.0 } else { 1.0 };
        cues.push((
            t,
            Cue::Mine {
                mine: i % 2,
                x: side * (10.0 + 25.0 * rand()),
                stars: 3000,
            },
        ));
        if i % 3 == 0 {
            cues.push((
                t + 0.2,
                Cue::Shell {
                    kind: 6 + (i / 3) % 2,
                    x: 30.0 * (rand() - 0.5),
                    lean: 0.0,
                    fuse: 3.3,
                },
            ));
        }
    }
    cues.push((33.0, Cue::Fountains(true)));
    // Act 4, 34-41 s: the build-up, faster and faster.
    let mut t = 34.0;
    let mut gap = 0.6;
    while t < 41.0 {
        let kind = (rand() * 8.0) as usize % 8;
        let x = 70.0 * (rand() - 0.5);
        cues.push((
            t,
            Cue::Shell {
                kind,
                x,
                lean: 0.15 * (rand() - 0.5),
                fuse: 2.3 + 1.2 * rand(),
            },
        ));
        t += gap;
        gap = (gap * 0.9f32).max(0.2);
    }
    // The finale, 41-42 s: three waves of every kind, low and wide, middle, high.
    for (kind, k) in KINDS.iter().enumerate().take(8) {
        let count = if k.pattern == Pattern::Ring { 2 } else { 4 };
        let (at, fuse, half) = match kind % 2 {
            0 => (41.0, 2.3, 55.0),
            _ => (41.4, 2.9, 45.0),
        };
        cues.push((
            at,
            Cue::Salvo {
                kind,
                count,
                half,
                lean: 0.15,
                fuse,
                boost: 1.25,
            },
        ));
    }
    for kind in [0, 1, 2, 3, 4, 5] {
        cues.push((
            42.0,
            Cue::Salvo {
                kind,
                count: 4,
                half: 35.0,
                lean: 0.3,
                fuse: 3.2,
                boost: 1.25,
            },
        ));
    }
    cues.push((48.0, Cue::Fountains(false)));
    cues.sort_by(|a, b| a.0.total_cmp(&b.0));
    cues
}
