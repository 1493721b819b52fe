//! Every composed shader parses and validates with naga, with no adapter: a broken WGSL edit
//! fails here, on any machine, before a GPU test runs.

use naga::valid::{Capabilities, ValidationFlags, Validator};
use wgphys::particles::gpu::{shader_source, BINDINGS};
use wgphys::particles::types::WG;
use wgphys::shaders::all_shaders;

fn parse(name: &str, src: &str) -> naga::Module {
    naga::front::wgsl::parse_str(src)
        .unwrap_or_else(|e| panic!("shader {name} does not parse:\n{}", e.emit_to_string(src)))
}

fn validate(module: &naga::Module) -> Result<naga::valid::ModuleInfo, String> {
    // wgpu validates with its adapter's capabilities; the engine must run on every adapter, so
    // validate with none of the optional ones.
    Validator::new(ValidationFlags::all(), Capabilities::empty())
        .validate(module)
        .map_err(|e| format!("{e:?}"))
}

#[test]
fn every_shader_parses_and_validates() {
    let shaders = all_shaders();
    assert!(!shaders.is_empty(), "all_shaders() lists no shader");
    for (name, src) in &shaders {
        let module = parse(name, src);
        if let Err(e) = validate(&module) {
            panic!("shader {name} fails naga validation: {e}");
        }
        assert!(
            !module.entry_points.is_empty(),
            "shader {name} has no entry point"
        );
    }
}

/// The validator is not a no-op: a type error appended to a real shader is caught. Without this
/// the test above could pass on a validator that accepts everything.
#[test]
fn validation_rejects_a_broken_shader() {
    let (name, src) = &all_shaders()[0];
    let broken =
        format!("{src}\nfn wgphys_test_broken() -> u32 {{ let x: f32 = 1.0; return x; }}\n");
    let parsed = naga::front::wgsl::parse_str(&broken);
    let rejected = match parsed {
        Err(_) => true,
        Ok(m) => validate(&m).is_err(),
    };
    assert!(
        rejected,
        "a u32 function returning an f32 was accepted in shader {name}"
    );
}

/// The particle module exposes the six stage entry points the host compiles, each a compute
/// stage with `@workgroup_size(WG, 1, 1)` (the host's dispatch arithmetic assumes WG).
#[test]
fn particle_entry_points_match_the_host() {
    let src = shader_source();
    let module = parse("particles", &src);
    for stage in [
        "integrate",
        "scan_reduce",
        "scan_blocks",
        "emit",
        "compact",
        "append",
    ] {
        let ep = module
            .entry_points
            .iter()
            .find(|e| e.name == stage)
            .unwrap_or_else(|| panic!("entry point {stage} missing from the particle shader"));
        assert_eq!(
            ep.stage,
            naga::ShaderStage::Compute,
            "entry point {stage}: stage"
        );
        assert_eq!(
            ep.workgroup_size,
            [WG, 1, 1],
            "entry point {stage}: workgroup_size"
        );
    }
}

/// Every binding the host declares appears in the composed module at group 0 with its index.
#[test]
fn particle_bindings_match_the_host_table() {
    let src = shader_source();
    let module = parse("particles", &src);
    for b in BINDINGS {
        let (_, var) = module
            .global_variables
            .iter()
            .find(|(_, v)| v.name.as_deref() == Some(b.name))
            .unwrap_or_else(|| {
                panic!(
                    "binding {} ({}) missing from the particle shader",
                    b.index, b.name
                )
            });
        let rb = var
            .binding
            .as_ref()
            .unwrap_or_else(|| panic!("global {} has no @binding", b.name));
        assert_eq!(
            (rb.group, rb.binding),
            (0, b.index),
            "global {}: (group, binding)",
            b.name
        );
    }
}
