//! Fireworks (book §4.2): rule types whose fuses burst into payloads of other types.
//!
//! A firework is a particle whose `kind` names its rule. When its fuse runs out, or it falls
//! below y = 0, the GPU spawns its payload in the same step (see the `emit` stage), with child
//! slots from a prefix sum, never from atomic races.

use crate::error::{Error, Result};
use crate::particles::types::{
    GpuLife, GpuPayload, GpuRule, GpuSpawnRecord, MAX_PAYLOADS, MAX_RULES,
};
use crate::rng::rng_unit;
use glam::{Vec3, Vec4};

/// Most children one parent may spawn: a firework rule's payload, a sub-emitter's count. One
/// `emit` thread writes the children of [`ITEMS`](crate::particles::types::ITEMS) consecutive
/// parents one after the other, and software adapters stop an invocation's loops after about
/// 65,535 iterations (a loop of sub-emitter children was cut at about 21,840 on lavapipe and
/// llvmpipe alike, the rest left unwritten); `ITEMS` × this stays below that
/// (`tests/particles_sub_emitters.rs` fills it).
pub const MAX_CHILDREN_PER_RULE: u32 = 4096;

/// The book's gravity for fireworks, m/s².
pub const GRAVITY: Vec3 = Vec3::new(0.0, -9.81, 0.0);

/// A rule: how a firework of one type is made and what it bursts into.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FireworkRule {
    /// Fuse range in seconds (age drawn uniformly).
    pub age: (f32, f32),
    /// Launch velocity range relative to the parent (per component, uniform).
    pub velocity: (Vec3, Vec3),
    /// Fraction of velocity kept per second.
    pub damping: f32,
    /// Payload: (child type, count) pairs; types are 1-based indices into the table.
    pub payload: Vec<(u32, u32)>,
    /// Colour at spawn, fading to black with age.
    pub colour: Vec4,
    /// Radius.
    pub size: f32,
    /// Acceleration, usually [`GRAVITY`]; upward for smoke.
    pub gravity: Vec3,
}

/// The rule table (type `t` is `rules[t - 1]`).
#[derive(Clone, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FireworkRules {
    /// The rules.
    pub rules: Vec<FireworkRule>,
}

fn rule(
    age: (f32, f32),
    vmin: [f32; 3],
    vmax: [f32; 3],
    damping: f32,
    payload: &[(u32, u32)],
    colour: [f32; 3],
    size: f32,
) -> FireworkRule {
    FireworkRule {
        age,
        velocity: (Vec3::from(vmin), Vec3::from(vmax)),
        damping,
        payload: payload.to_vec(),
        colour: Vec3::from(colour).extend(1.0),
        size,
        gravity: GRAVITY,
    }
}

impl FireworkRules {
    /// The book's nine types (catalogue §3.2; types 4–9 from the book's source).
    #[must_use]
    pub fn book() -> Self {
        Self {
            rules: vec![
                rule(
                    (0.5, 1.4),
                    [-5.0, 25.0, -5.0],
                    [5.0, 28.0, 5.0],
                    0.1,
                    &[(3, 5), (5, 5)],
                    [1.0, 0.3, 0.2],
                    0.12,
                ),
                rule(
                    (0.5, 1.0),
                    [-5.0, 10.0, -5.0],
                    [5.0, 20.0, 5.0],
                    0.8,
                    &[(4, 2)],
                    [1.0, 0.6, 0.1],
                    0.10,
                ),
                rule(
                    (0.5, 1.5),
                    [-5.0, -5.0, -5.0],
                    [5.0, 5.0, 5.0],
                    0.1,
                    &[],
                    [1.0, 1.0, 0.3],
                    0.08,
                ),
                rule(
                    (0.25, 0.5),
                    [-20.0, 5.0, -5.0],
                    [20.0, 5.0, 5.0],
                    0.2,
                    &[],
                    [0.3, 1.0, 0.3],
                    0.08,
                ),
                rule(
                    (0.5, 1.0),
                    [-20.0, 2.0, -5.0],
                    [20.0, 18.0, 5.0],
                    0.01,
                    &[(3, 5)],
                    [0.3, 0.6, 1.0],
                    0.10,
                ),
                rule(
                    (3.0, 5.0),
                    [-5.0, 5.0, -5.0],
                    [5.0, 10.0, 5.0],
                    0.95,
                    &[],
                    [0.9, 0.3, 1.0],
                    0.08,
                ),
                rule(
                    (4.0, 5.0),
                    [-5.0, 50.0, -5.0],
                    [5.0, 60.0, 5.0],
                    0.01,
                    &[(8, 10)],
                    [0.3, 1.0, 1.0],
                    0.14,
                ),
                rule(
                    (0.25, 0.5),
                    [-1.0, -1.0, -1.0],
                    [1.0, 1.0, 1.0],
                    0.01,
                    &[],
                    [1.0, 1.0, 1.0],
                    0.08,
                ),
                rule(
                    (3.0, 5.0),
                    [-15.0, 10.0, -5.0],
                    [15.0, 15.0, 5.0],
                    0.95,
                    &[],
                    [1.0, 0.5, 0.7],
                    0.08,
                ),
            ],
        }
    }

    /// Highest valid type.
    pub fn max_type(&self) -> u32 {
        self.rules.len() as u32
    }

    /// Checks every rule and returns the GPU tables (rules, payload entries).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] naming the rule and field at fault.
    pub fn to_gpu(&self) -> Result<(Vec<GpuRule>, Vec<GpuPayload>)> {
        let bad = |what: &'static str, value: String, fix: &'static str| Error::InvalidInput {
            what,
            value,
            fix,
        };
        if self.rules.len() > MAX_RULES as usize {
            return Err(Error::TooMany {
                what: "firework rules",
                count: self.rules.len(),
                max: MAX_RULES,
                fix: "a particle world's rule table is a uniform array of MAX_RULES entries: \
                      share rules between types or split the show across worlds",
            });
        }
        let entries: usize = self.rules.iter().map(|r| r.payload.len()).sum();
        if entries > MAX_PAYLOADS as usize {
            return Err(Error::TooMany {
                what: "firework payload entries (over all rules)",
                count: entries,
                max: MAX_PAYLOADS,
                fix: "the payload table is a uniform array of MAX_PAYLOADS entries: merge \
                      entries of the same type within a rule, or share rules",
            });
        }
        let mut rules = Vec::with_capacity(self.rules.len());
        let mut payloads = Vec::new();
        for (i, r) in self.rules.iter().enumerate() {
            let t = i + 1;
            if !(r.age.0 > 0.0 && r.age.1 >= r.age.0 && r.age.1.is_finite()) {
                return Err(bad(
                    "firework rule age",
                    format!("type {t}: {:?}", r.age),
                    "pass 0 < min <= max, finite",
                ));
            }
            if !(r.velocity.0.is_finite() && r.velocity.1.is_finite())
                || r.velocity.0.cmpgt(r.velocity.1).any()
            {
                return Err(bad(
                    "firework rule velocity",
                    format!("type {t}: {:?}", r.velocity),
                    "pass finite bounds with min <= max per component",
                ));
            }
            if !(0.0..=1.0).contains(&r.damping) {
                return Err(bad(
                    "firework rule damping",
                    format!("type {t}: {}", r.damping),
                    "pass a value in [0, 1]",
                ));
            }
            if !(r.size >= 0.0
                && r.size.is_finite()
                && r.colour.is_finite()
                && r.gravity.is_finite())
            {
                return Err(bad(
                    "firework rule size/colour/gravity",
                    format!("type {t}"),
                    "pass finite values, size >= 0",
                ));
            }
            let mut children = 0u32;
            for &(ty, count) in &r.payload {
                if ty == 0 || ty as usize > self.rules.len() {
                    return Err(bad(
                        "firework payload type",
                        format!("type {t} names type {ty}"),
                        "payload types must name rules in the table (1-based)",
                    ));
                }
                children = children.saturating_add(count);
            }
            if children > MAX_CHILDREN_PER_RULE {
                return Err(bad(
                    "firework payload size",
                    format!("type {t}: {children} children"),
                    "keep a rule's payload at or below MAX_CHILDREN_PER_RULE",
                ));
            }
            rules.push(GpuRule {
                age_min: r.age.0,
                age_max: r.age.1,
                damping: r.damping,
                size: r.size,
                payload_start: payloads.len() as u32,
                payload_len: r.payload.len() as u32,
                children,
                _pad: 0,
                vel_min: r.velocity.0.extend(0.0),
                vel_max: r.velocity.1.extend(0.0),
                colour: r.colour,
                gravity: r.gravity.extend(0.0),
            });
            payloads.extend(
                r.payload
                    .iter()
                    .map(|&(ty, count)| GpuPayload { ty, count }),
            );
        }
        Ok((rules, payloads))
    }
}

/// A firework launched from the ground (book: x = −5, 0 or 5, y = 0), drawn from the
/// counter-based generator keyed by (seed, `serial`, `step`).
pub fn launch_record(
    rule: &GpuRule,
    ty: u32,
    id: u32,
    seed: u32,
    serial: u32,
    step: u32,
) -> GpuSpawnRecord {
    let u = |k: u32| rng_unit(seed, serial, step, k);
    let column = (u(4) * 3.0).floor().min(2.0);
    let x = 5.0 * (column - 1.0);
    let lifetime = rule.age_min + (rule.age_max - rule.age_min) * u(0);
    let v = rule.vel_min.truncate()
        + (rule.vel_max.truncate() - rule.vel_min.truncate()) * Vec3::new(u(1), u(2), u(3));
    GpuSpawnRecord {
        pos: Vec4::new(x, 0.0, 0.0, 1.0),
        vel: v.extend(rule.damping),
        acc: rule.gravity.truncate().extend(1.0),
        colour: rule.colour,
        life: GpuLife {
            age: 0.0,
            lifetime,
            kind: ty,
            id,
        },
        size: rule.size,
        _pad: [0; 3],
    }
}
