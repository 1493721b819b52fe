//! Saving and loading whole worlds (the `serde` feature).
//!
//! Every world saves its full state — what the user added (bodies, colliders, joints,
//! generators, particles, emitters, links), handles with their generations, and what carries
//! from one step to the next (warm-start impulses, random counters, emitter clocks) — and loads
//! it back into a world that continues **bit-identically** on the same backend and adapter.
//!
//! Two formats hold the same state:
//! - [`SaveFormat::Binary`]: compact ([postcard](https://docs.rs/postcard): little-endian
//!   floats, variable-length integers) behind an 8-byte magic, the format version and the world's
//!   kind;
//! - [`SaveFormat::Text`]: a header line (`wgphys-save <version> <world>`) and then the state as
//!   [RON](https://docs.rs/ron), to read, diff or edit by hand.
//!
//! A file from a newer version, a file for another kind of world, a truncated or malformed file,
//! or one holding a NaN or an out-of-range index is an [`Error::Load`] naming the field
//! (`bodies[3].pos`); the loaded state is checked like a world built through the API before any
//! world is built from it.
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! use wgphys::prelude::*;
//! use wgphys::save::SaveFormat;
//! let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?;
//! world.add_body(RigidBody::dynamic(), &[Collider::sphere(0.5)])?;
//! world.step(1.0 / 60.0)?;
//! let bytes = world.save(SaveFormat::Binary)?;
//! let mut copy = RigidWorld::load(Backend::Cpu, &bytes)?;
//! world.step(1.0 / 60.0)?;
//! copy.step(1.0 / 60.0)?;
//! assert_eq!(world.save(SaveFormat::Binary)?, copy.save(SaveFormat::Binary)?);
//! # }
//! # Ok::<(), wgphys::Error>(())
//! ```

use crate::error::{Error, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The version of the save format this build writes, and the only one it reads. Format 2
/// (2026-11-29) added collider handles and mass settings to rigid saves and generations to the
/// aggregate world's handles; format 3 (2026-11-29) holds each rigid body's centre of mass in
/// its record, its shapes' offsets taken from it, and an explicit centre in its mass settings
/// (`rigid::mass`). Older files are refused by their version.
pub const SAVE_VERSION: u32 = 3;

/// The first bytes of a binary save.
pub const MAGIC: [u8; 8] = *b"WGPHYS\0S";

/// Which format [`crate::rigid::RigidWorld::save`] and its siblings write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SaveFormat {
    /// Compact binary (postcard behind a header).
    Binary,
    /// Human-readable text (a header line, then RON).
    Text,
}

/// The kind of world a save holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorldKind {
    /// [`crate::rigid::RigidWorld`].
    Rigid,
    /// [`crate::particles::ParticleWorld`].
    Particles,
    /// [`crate::aggregate::AggregateWorld`].
    Aggregate,
}

impl WorldKind {
    fn code(self) -> u8 {
        match self {
            Self::Rigid => 1,
            Self::Particles => 2,
            Self::Aggregate => 3,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        [Self::Rigid, Self::Particles, Self::Aggregate]
            .into_iter()
            .find(|k| k.code() == code)
    }

    /// The name in a text save's header.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rigid => "rigid",
            Self::Particles => "particles",
            Self::Aggregate => "aggregate",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        [Self::Rigid, Self::Particles, Self::Aggregate]
            .into_iter()
            .find(|k| k.name() == name)
    }

    fn load_fn(self) -> &'static str {
        match self {
            Self::Rigid => "RigidWorld::load",
            Self::Particles => "ParticleWorld::load",
            Self::Aggregate => "AggregateWorld::load",
        }
    }
}

/// A load error at `field`.
pub(crate) fn load_error(field: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::Load {
        field: field.into(),
        reason: reason.into(),
    }
}

/// `state` in `format`, with the header naming `kind`.
pub(crate) fn encode<T: Serialize>(
    kind: WorldKind,
    state: &T,
    format: SaveFormat,
) -> Result<Vec<u8>> {
    match format {
        SaveFormat::Binary => {
            let mut out = Vec::with_capacity(64);
            out.extend_from_slice(&MAGIC);
            out.extend_from_slice(&SAVE_VERSION.to_le_bytes());
            out.push(kind.code());
            postcard::to_extend(state, out).map_err(|e| Error::InvalidInput {
                what: "world state (binary save)",
                value: e.to_string(),
                fix: "report this as a bug: every saved field has a binary form",
            })
        }
        SaveFormat::Text => {
            let body = ron::ser::to_string_pretty(state, ron::ser::PrettyConfig::default())
                .map_err(|e| Error::InvalidInput {
                    what: "world state (text save)",
                    value: e.to_string(),
                    fix: "a world with a NaN or infinite value cannot be written as text; \
                          save it as SaveFormat::Binary",
                })?;
            let mut out = format!("wgphys-save {SAVE_VERSION} {}\n", kind.name()).into_bytes();
            out.extend_from_slice(body.as_bytes());
            out.push(b'\n');
            Ok(out)
        }
    }
}

fn version_check(version: u32) -> Result<()> {
    if version > SAVE_VERSION {
        return Err(load_error(
            "header.version",
            format!(
                "the file is save format {version} but this build of wgphys reads at most \
                 {SAVE_VERSION}; load it with a newer wgphys"
            ),
        ));
    }
    if (1..SAVE_VERSION).contains(&version) {
        return Err(load_error(
            "header.version",
            format!(
                "the file is save format {version}, written by an older wgphys (before rigid \
                 bodies' centres of mass came from their colliders); this build reads format \
                 {SAVE_VERSION} only, and an older save cannot be read: build the world again"
            ),
        ));
    }
    if version == 0 {
        return Err(load_error(
            "header.version",
            "format version 0 was never written: the file is not a wgphys save",
        ));
    }
    Ok(())
}

fn kind_check(found: WorldKind, kind: WorldKind) -> Result<()> {
    if found != kind {
        return Err(load_error(
            "header.world",
            format!(
                "the file holds a {} world, not a {} one; load it with {}",
                found.name(),
                kind.name(),
                found.load_fn()
            ),
        ));
    }
    Ok(())
}

/// Which format `bytes` are in, by their first bytes.
pub fn detect(bytes: &[u8]) -> Option<SaveFormat> {
    if bytes.starts_with(&MAGIC) {
        Some(SaveFormat::Binary)
    } else if bytes.starts_with(b"wgphys-save ") {
        Some(SaveFormat::Text)
    } else {
        None
    }
}

/// The state of a `kind` world from `bytes` in either format (found from the header).
pub(crate) fn decode<T: DeserializeOwned>(kind: WorldKind, bytes: &[u8]) -> Result<T> {
    match detect(bytes) {
        Some(SaveFormat::Binary) => {
            let head = MAGIC.len() + 5;
            if bytes.len() < head {
                return Err(load_error(
                    "header",
                    "the file ends inside its header: it is truncated",
                ));
            }
            let mut v = [0u8; 4];
            v.copy_from_slice(&bytes[MAGIC.len()..MAGIC.len() + 4]);
            version_check(u32::from_le_bytes(v))?;
            let code = bytes[MAGIC.len() + 4];
            let found = WorldKind::from_code(code)
                .ok_or_else(|| load_error("header.world", format!("unknown world kind {code}")))?;
            kind_check(found, kind)?;
            let mut de = postcard::Deserializer::from_bytes(&bytes[head..]);
            let state: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
                let reason = match e.inner() {
                    postcard::Error::DeserializeUnexpectedEnd => {
                        "the file ends here: it is truncated".to_string()
                    }
                    other => format!("{other}: the file is corrupt"),
                };
                load_error(path_name(e.path()), reason)
            })?;
            let rest = de
                .finalize()
                .map_err(|e| load_error("(end)", e.to_string()))?;
            if !rest.is_empty() {
                return Err(load_error(
                    "(end)",
                    format!("{} bytes follow the state: the file is corrupt", rest.len()),
                ));
            }
            Ok(state)
        }
        Some(SaveFormat::Text) => {
            let text = std::str::from_utf8(bytes)
                .map_err(|e| load_error("(text)", format!("not UTF-8 text: {e}")))?;
            let (header, body) = text.split_once('\n').ok_or_else(|| {
                load_error(
                    "header",
                    "the file ends after its header line: it is truncated",
                )
            })?;
            let mut words = header.split_whitespace().skip(1);
            let version = words
                .next()
                .and_then(|w| w.parse::<u32>().ok())
                .ok_or_else(|| {
                    load_error("header.version", "the header line has no format version")
                })?;
            version_check(version)?;
            let name = words.next().unwrap_or("");
            let found = WorldKind::from_name(name).ok_or_else(|| {
                load_error(
                    "header.world",
                    format!("unknown world kind `{name}` (rigid, particles or aggregate)"),
                )
            })?;
            kind_check(found, kind)?;
            let mut de = ron::Deserializer::from_str(body)
                .map_err(|e| load_error("(text)", e.to_string()))?;
            let state: T = serde_path_to_error::deserialize(&mut de)
                .map_err(|e| load_error(path_name(e.path()), e.inner().to_string()))?;
            de.end()
                .map_err(|e| load_error("(end)", format!("{e}: text follows the state")))?;
            Ok(state)
        }
        None => Err(load_error(
            "header",
            "the file does not start with a wgphys save header (binary magic `WGPHYS\\0S` or \
             the text line `wgphys-save`): it is not a wgphys save",
        )),
    }
}

fn path_name(path: &serde_path_to_error::Path) -> String {
    let s = path.to_string();
    if s == "." || s.is_empty() {
        "(state)".into()
    } else {
        s
    }
}

/// Checks of loaded state, each naming the field it refuses.
pub(crate) mod check {
    use super::load_error;
    use crate::error::Result;
    use glam::Vec4;

    /// Every component of `values` is finite.
    pub(crate) fn finite(field: &str, i: usize, values: &[f32]) -> Result<()> {
        if let Some(v) = values.iter().find(|v| !v.is_finite()) {
            return Err(load_error(
                format!("{field}[{i}]"),
                format!("{v} is not a finite number"),
            ));
        }
        Ok(())
    }

    /// Every component of every vector is finite.
    pub(crate) fn finite4(field: &str, i: usize, values: &[Vec4]) -> Result<()> {
        for v in values {
            finite(field, i, &v.to_array())?;
        }
        Ok(())
    }

    /// `value < len` (`what` names what the index counts).
    pub(crate) fn index(field: &str, i: usize, value: u32, len: usize, what: &str) -> Result<()> {
        if value as usize >= len {
            return Err(load_error(
                format!("{field}[{i}]"),
                format!("index {value} is out of range: there are {len} {what}"),
            ));
        }
        Ok(())
    }

    /// `a == b` for two lengths that must agree.
    pub(crate) fn same_len(field: &str, len: usize, other: &str, other_len: usize) -> Result<()> {
        if len != other_len {
            return Err(load_error(
                field,
                format!("{len} entries but {other} has {other_len}: the file is corrupt"),
            ));
        }
        Ok(())
    }
}
