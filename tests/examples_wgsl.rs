//! Every `.wgsl` file of the examples and the benchmarks parses and validates with naga, with
//! no adapter: their renderers and probes keep their WGSL in files beside the Rust that loads
//! them (`include_str!`), and a broken edit fails here, on any machine, before anything runs.
//!
//! A file that is only a piece of a module is validated as its example composes it, through the
//! same function: the FX scene and particle layers after `globals.wgsl`
//! (`examples/common/fx/wgsl.rs`), the rigid renderer after the engine's constants, types and
//! quaternions (`examples/common/rigid/shader.rs`). Every other file is a module by itself.

use std::path::{Path, PathBuf};

use naga::valid::{Capabilities, ValidationFlags, Validator};

#[path = "../examples/common/fx/wgsl.rs"]
mod fx_wgsl;
#[path = "../examples/common/rigid/shader.rs"]
mod rigid_shader;

/// The folders walked, relative to the crate root.
const ROOTS: [&str; 2] = ["examples", "benches"];

/// Files the walk must find at least: the examples' seven (`particles/sprites`,
/// `aggregate/aggregate`, `rigid/rigid`, and `fx/` `globals`, `scene`, `sprites`, `bloom`) and
/// the particle benchmark's `stream`. A walk that finds fewer is looking in the wrong place.
const AT_LEAST: usize = 8;

/// What builds a piece's module, as the example does.
type Compose = fn() -> String;

/// The pieces, by path from the crate root, and the module each is compiled as.
const PIECES: [(&str, Compose); 3] = [
    ("examples/common/fx/scene.wgsl", fx_wgsl::scene),
    ("examples/common/fx/sprites.wgsl", fx_wgsl::sprites),
    (
        "examples/common/rigid/rigid.wgsl",
        rigid_shader::shader_source,
    ),
];

/// The `.wgsl` files under `dir`, recursively (build output skipped).
fn wgsl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("cannot read an entry of {}: {e}", dir.display()))
            .path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                wgsl_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "wgsl") {
            out.push(path);
        }
    }
}

/// Every `.wgsl` file under [`ROOTS`], as (path from the crate root with `/`, full path).
fn all_files() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ROOTS {
        wgsl_files(&root.join(dir), &mut files);
    }
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|path| {
            let rel = path
                .strip_prefix(root)
                .expect("a file under the crate root");
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            (rel.join("/"), path)
        })
        .collect();
    named.sort();
    named
}

/// Parses and validates `src` (compiled from the file `name`) with none of the optional
/// capabilities: the examples must run on every adapter, as the engine must.
fn check(name: &str, src: &str) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(src)
        .map_err(|e| format!("{name} does not parse:\n{}", e.emit_to_string(src)))?;
    Validator::new(ValidationFlags::all(), Capabilities::empty())
        .validate(&module)
        .map_err(|e| format!("{name} fails naga validation:\n{}", e.emit_to_string(src)))?;
    Ok(())
}

#[test]
fn every_wgsl_file_of_the_examples_and_benchmarks_validates() {
    let files = all_files();
    assert!(
        files.len() >= AT_LEAST,
        "found {} .wgsl files under {ROOTS:?}, expected at least {AT_LEAST}: {:?}",
        files.len(),
        files.iter().map(|(rel, _)| rel).collect::<Vec<_>>()
    );
    let mut failures = Vec::new();
    for (rel, path) in &files {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let (name, src) = match PIECES.iter().find(|(piece, _)| piece == rel) {
            Some((_, compose)) => (
                format!("{rel} (as composed; lines count from the module's first)"),
                compose(),
            ),
            None => (rel.clone(), text),
        };
        if let Err(e) = check(&name, &src) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Each piece is where the list says and is part of the module it is validated as, so a rename
/// or a composition that drops it cannot leave it unchecked.
#[test]
fn every_piece_is_found_and_composed() {
    let files = all_files();
    for (piece, compose) in PIECES {
        let (_, path) = files
            .iter()
            .find(|(rel, _)| rel == piece)
            .unwrap_or_else(|| panic!("{piece} is listed as a piece but the walk did not find it"));
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        assert!(
            compose().contains(&text),
            "{piece}: the module it is validated as does not hold the file's text"
        );
    }
}

/// The check is not a no-op: a type error appended to a real file is caught.
#[test]
fn a_broken_file_is_rejected() {
    let files = all_files();
    let (rel, path) = files
        .iter()
        .find(|(rel, _)| !PIECES.iter().any(|(piece, _)| piece == rel))
        .expect("a file that is a module by itself");
    let text = std::fs::read_to_string(path).expect("readable");
    let broken = format!("{text}\nfn broken() -> u32 {{ let x: f32 = 1.0; return x; }}\n");
    assert!(
        check(rel, &broken).is_err(),
        "{rel} with a u32 function returning an f32 was accepted"
    );
}
