//! An effect as plain data: the emitters (with their sub-emitter links), force fields,
//! colliders, kill bounds, trails and view sort of a particle world, to keep in a file and load
//! at run time. With the `serde` feature the description (and every type in it) serialises with
//! serde, and `EffectDesc::from_json` / `EffectDesc::from_ron` load one, naming the field at
//! fault when the file is wrong.

use crate::error::{Error, Result};
use crate::particles::fireworks::MAX_CHILDREN_PER_RULE;
use crate::particles::types::MAX_TRAIL;
use crate::particles::{
    Emitter, EmitterHandle, ForceField, KillBounds, ParticleCollider, ParticleWorld, SubTrigger,
    ViewSort, WorldConfig,
};

/// Emitters, force fields, colliders and world settings of a particle effect. Missing parts are
/// empty or `None` (a file written before a part existed still loads), and a missing emitter
/// field takes [`Emitter::default`]'s value. Since 2026-11-29 that default carries no
/// acceleration (a world's gravity is its `ForceField::Gravity`): an older file that left
/// `acceleration` out, counting on the default's gravity, now needs it written, or the world's
/// gravity field.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct EffectDesc {
    /// Emitters, added in order.
    pub emitters: Vec<Emitter>,
    /// Force fields (replace the world's).
    pub fields: Vec<ForceField>,
    /// Static colliders (replace the world's).
    pub colliders: Vec<ParticleCollider>,
    /// Sub-emitters between the effect's emitters ([`ParticleWorld::set_sub_emitter`]).
    pub sub_emitters: Vec<SubEmitterLink>,
    /// Particles leaving this box die ([`ParticleWorld::set_kill_bounds`]); `None` leaves the
    /// world's as they are.
    pub kill_bounds: Option<KillBounds>,
    /// Positions each particle's trail keeps ([`WorldConfig::trail_length`]). Trails are sized
    /// when a world is built: build it from [`EffectDesc::world_config`]; `None` takes the
    /// world's.
    pub trail_length: Option<u32>,
    /// The back-to-front order ([`ParticleWorld::set_view_sort`]); `None` leaves the world's as
    /// it is.
    pub view_sort: Option<ViewSort>,
}

/// A sub-emitter of an effect: the particles of `emitters[parent]` emit `count` particles of
/// `emitters[child]` on `trigger` (see [`ParticleWorld::set_sub_emitter`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct SubEmitterLink {
    /// The index of the parent emitter in [`EffectDesc::emitters`].
    pub parent: u32,
    /// When its particles emit.
    pub trigger: SubTrigger,
    /// The index of the child emitter in [`EffectDesc::emitters`].
    pub child: u32,
    /// Children per parent particle (at most [`MAX_CHILDREN_PER_RULE`]).
    pub count: u32,
}

/// Prefixes an input error with where in the description it is (`emitters[2]`, ...).
fn at(place: String) -> impl Fn(Error) -> Error {
    move |e| match e {
        Error::InvalidInput { what, value, fix } => Error::InvalidInput {
            what,
            value: format!("{place}: {value}"),
            fix,
        },
        other => other,
    }
}

impl EffectDesc {
    /// Checks every emitter, field, collider, sub-emitter link and world setting; the first bad
    /// one is an [`Error::InvalidInput`] naming the field, its place (`emitters[1]: ...`,
    /// `sub_emitters[0]: ...`) and the fix.
    ///
    /// # Errors
    /// [`Error::InvalidInput`].
    pub fn validate(&self) -> Result<()> {
        for (i, e) in self.emitters.iter().enumerate() {
            e.validate().map_err(at(format!("emitters[{i}]")))?;
        }
        let mut scratch = ParticleWorld::new(
            crate::Backend::Cpu,
            crate::particles::WorldConfig {
                capacity: 1,
                ..Default::default()
            },
        )?;
        for (i, f) in self.fields.iter().enumerate() {
            scratch
                .set_fields(vec![*f])
                .map_err(at(format!("fields[{i}]")))?;
        }
        for (i, c) in self.colliders.iter().enumerate() {
            scratch
                .set_colliders(vec![*c])
                .map_err(at(format!("colliders[{i}]")))?;
        }
        let n = self.emitters.len();
        for (i, link) in self.sub_emitters.iter().enumerate() {
            let place = at(format!("sub_emitters[{i}]"));
            for (what, index) in [
                ("sub_emitter.parent", link.parent),
                ("sub_emitter.child", link.child),
            ] {
                if index as usize >= n {
                    return Err(place(Error::InvalidInput {
                        what,
                        value: format!("emitter {index} of {n}"),
                        fix: "name an emitter of the effect by its index in `emitters` (from 0)",
                    }));
                }
            }
            if link.count > MAX_CHILDREN_PER_RULE {
                return Err(place(Error::InvalidInput {
                    what: "sub_emitter.count",
                    value: format!("{}", link.count),
                    fix: "emit at most MAX_CHILDREN_PER_RULE (4096) children per parent; for \
                          more, emit several parents together or chain sub-emitters",
                }));
            }
        }
        scratch
            .set_kill_bounds(self.kill_bounds)
            .map_err(at("kill_bounds".into()))?;
        if let Some(k) = self.trail_length.filter(|&k| k > MAX_TRAIL) {
            return Err(Error::InvalidInput {
                what: "trail_length",
                value: format!("{k}"),
                fix: "keep at most MAX_TRAIL (64) positions per trail",
            });
        }
        scratch
            .set_view_sort(self.view_sort)
            .map_err(at("view_sort".into()))?;
        Ok(())
    }

    /// `base` with the effect's world settings: its fields, colliders, and, where the effect
    /// gives them, its kill bounds and trail length. Build the world the effect goes into from
    /// it when the effect has trails (they are sized when a world is built), then
    /// [`EffectDesc::apply`] the effect.
    #[must_use]
    pub fn world_config(&self, base: WorldConfig) -> WorldConfig {
        WorldConfig {
            fields: self.fields.clone(),
            colliders: self.colliders.clone(),
            kill_bounds: self.kill_bounds.or(base.kill_bounds),
            trail_length: self.trail_length.unwrap_or(base.trail_length),
            ..base
        }
    }

    /// Puts the effect into `world`: its fields and colliders replace the world's, its
    /// emitters are added and wired by its sub-emitter links, and its kill bounds and view sort,
    /// where given, replace the world's. All or nothing: the description is checked first, and
    /// a world without room for every emitter, or built with other trails than the effect's, is
    /// left as it was.
    ///
    /// # Errors
    /// As [`EffectDesc::validate`]; [`Error::TooMany`] when the world's emitter table has no
    /// room for them all; [`Error::InvalidInput`] when the effect's trail length is not the
    /// world's (build the world from [`EffectDesc::world_config`]).
    pub fn apply(&self, world: &mut ParticleWorld) -> Result<Vec<EmitterHandle>> {
        self.validate()?;
        if let Some(k) = self
            .trail_length
            .filter(|&k| k != world.config().trail_length)
        {
            return Err(Error::InvalidInput {
                what: "trail_length",
                value: format!(
                    "the effect's trails keep {k} positions, the world's {}",
                    world.config().trail_length
                ),
                fix: "trails are sized when a world is built: build the world from \
                      EffectDesc::world_config",
            });
        }
        let room = crate::particles::types::MAX_EMITTERS as usize - world.emitter_count();
        if self.emitters.len() > room {
            return Err(Error::TooMany {
                what: "emitters in the effect",
                count: self.emitters.len(),
                max: room as u32,
                fix: "remove emitters from the world first, or split the effect",
            });
        }
        world.set_fields(self.fields.clone())?;
        world.set_colliders(self.colliders.clone())?;
        let mut handles = Vec::with_capacity(self.emitters.len());
        for e in &self.emitters {
            match world.add_emitter(e.clone()) {
                Ok(h) => handles.push(h),
                Err(err) => {
                    // A slot still held by a removed emitter's particles: undo the adds.
                    for h in handles {
                        world.remove_emitter(h)?;
                    }
                    return Err(err);
                }
            }
        }
        for (i, link) in self.sub_emitters.iter().enumerate() {
            // `validate` held both indices below the emitters' count, one handle each.
            let handle = |index: u32| {
                handles
                    .get(index as usize)
                    .copied()
                    .ok_or_else(|| Error::InvalidInput {
                        what: "sub_emitter",
                        value: format!("sub_emitters[{i}]: emitter {index}"),
                        fix: "name an emitter of the effect by its index in `emitters` (from 0)",
                    })
            };
            let (parent, child) = (handle(link.parent)?, handle(link.child)?);
            world.set_sub_emitter(parent, link.trigger, Some((child, link.count)))?;
        }
        if self.kill_bounds.is_some() {
            world.set_kill_bounds(self.kill_bounds)?;
        }
        if self.view_sort.is_some() {
            world.set_view_sort(self.view_sort)?;
        }
        Ok(handles)
    }
}

#[cfg(feature = "serde")]
impl EffectDesc {
    /// Reads a description from JSON and checks it.
    ///
    /// # Errors
    /// [`Error::InvalidInput`]: for a malformed file the message is the parser's, naming the
    /// field (an unknown or misspelt one, a wrong type) and the line; then as
    /// [`EffectDesc::validate`].
    pub fn from_json(text: &str) -> Result<Self> {
        let desc: Self = serde_json::from_str(text).map_err(|e| Error::InvalidInput {
            what: "effect file (JSON)",
            value: e.to_string(),
            fix: "write the fields of wgphys::effect::EffectDesc (emitters, fields, colliders)",
        })?;
        desc.validate()?;
        Ok(desc)
    }

    /// Reads a description from RON and checks it.
    ///
    /// # Errors
    /// As [`EffectDesc::from_json`].
    pub fn from_ron(text: &str) -> Result<Self> {
        let desc: Self = ron::from_str(text).map_err(|e| Error::InvalidInput {
            what: "effect file (RON)",
            value: e.to_string(),
            fix: "write the fields of wgphys::effect::EffectDesc (emitters, fields, colliders)",
        })?;
        desc.validate()?;
        Ok(desc)
    }

    /// The description as pretty JSON.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for a value JSON cannot hold (a non-finite number).
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).map_err(|e| Error::InvalidInput {
            what: "effect description",
            value: e.to_string(),
            fix: "keep every number finite",
        })
    }

    /// The description as pretty RON.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when serialising fails.
    pub fn to_ron(&self) -> Result<String> {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default()).map_err(|e| {
            Error::InvalidInput {
                what: "effect description",
                value: e.to_string(),
                fix: "keep every number finite",
            }
        })
    }
}
