//! An effect as plain data: the emitters, force fields and colliders of a particle world, to
//! keep in a file and load at run time. With the `serde` feature the description (and every
//! type in it) serialises with serde, and `EffectDesc::from_json` / `EffectDesc::from_ron`
//! load one, naming the field at fault when the file is wrong.

use crate::error::{Error, Result};
use crate::particles::{Collider, Emitter, EmitterHandle, ForceField, ParticleWorld};

/// Emitters, force fields and colliders of a particle effect. Missing parts are empty, and a
/// missing emitter field takes [`Emitter::default`]'s value.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct EffectDesc {
    /// Emitters, added in order.
    pub emitters: Vec<Emitter>,
    /// Force fields (replace the world's).
    pub fields: Vec<ForceField>,
    /// Static colliders (replace the world's).
    pub colliders: Vec<Collider>,
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
    /// Checks every emitter, field and collider; the first bad one is an
    /// [`Error::InvalidInput`] naming the field, its place (`emitters[1]: ...`) and the fix.
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
        Ok(())
    }

    /// Puts the effect into `world`: its fields and colliders replace the world's, and its
    /// emitters are added. All or nothing: the description is checked first, and a world
    /// without room for every emitter is left as it was.
    ///
    /// # Errors
    /// As [`EffectDesc::validate`]; [`Error::TooMany`] when the world's emitter table has no
    /// room for them all.
    pub fn apply(&self, world: &mut ParticleWorld) -> Result<Vec<EmitterHandle>> {
        self.validate()?;
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
