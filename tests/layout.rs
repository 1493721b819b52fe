//! Every GPU struct's layout matches its Rust mirror, byte for byte, as naga lays the composed
//! particle shader out: member offsets and sizes by name, padding bytes, struct size, and the
//! element stride of every array the host fills from a Rust slice. No adapter needed.

use glam::Vec4;
use naga::{Module, TypeInner};
use std::collections::{BTreeMap, BTreeSet};
use std::mem::{align_of, size_of};
use wgphys::gpu::layout::GpuLayout;
use wgphys::particles::gpu::{shader_source, BINDINGS};
use wgphys::particles::types::*;

/// A Rust struct's layout: size, alignment and (name, offset, size) of every field.
struct RustLayout {
    name: &'static str,
    size: usize,
    align: usize,
    fields: Vec<(&'static str, usize, usize)>,
}

/// A GPU struct's layout from its declaration (`wgphys::gpu::layout`: the field table that
/// `gpu_struct!` emits beside the struct, so no field list is written here). The test checks
/// that the fields' sizes add up to the struct's size, and Pod forbids implicit padding.
fn rust_of<T: GpuLayout>() -> RustLayout {
    RustLayout {
        name: std::any::type_name::<T>(),
        size: size_of::<T>(),
        align: align_of::<T>(),
        fields: T::fields(),
    }
}

fn module() -> Module {
    let src = shader_source();
    naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| {
        panic!(
            "particle shader does not parse:\n{}",
            e.emit_to_string(&src)
        )
    })
}

fn layouter(m: &Module) -> naga::proc::Layouter {
    let mut l = naga::proc::Layouter::default();
    l.update(m.to_ctx()).expect("naga layout");
    l
}

fn find_struct<'m>(m: &'m Module, name: &str) -> (&'m [naga::StructMember], u32) {
    m.types
        .iter()
        .find_map(|(_, t)| match (&t.name, &t.inner) {
            (Some(n), TypeInner::Struct { members, span }) if n == name => {
                Some((members.as_slice(), *span))
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("struct {name} not found in the particle shader"))
}

/// Byte ranges covered by padding members (names starting with `_`), merged.
fn pad_bytes(ranges: impl Iterator<Item = (usize, usize)>) -> BTreeSet<usize> {
    ranges.flat_map(|(off, size)| off..off + size).collect()
}

fn check(m: &Module, lay: &naga::proc::Layouter, wgsl: &str, rust: RustLayout) {
    let (members, span) = find_struct(m, wgsl);
    let r = &rust;
    let listed: usize = r.fields.iter().map(|f| f.2).sum();
    assert_eq!(
        listed, r.size,
        "{}: listed Rust fields cover {listed} of {} bytes; list every field",
        r.name, r.size
    );
    assert_eq!(
        span as usize, r.size,
        "{wgsl} vs {}: struct size (WGSL span {span}, Rust size_of {})",
        r.name, r.size
    );

    let w: BTreeMap<&str, (usize, usize)> = members
        .iter()
        .map(|mb| {
            let name = mb.name.as_deref().expect("struct member without a name");
            (name, (mb.offset as usize, lay[mb.ty].size as usize))
        })
        .collect();
    let real = |n: &&str| !n.starts_with('_');
    let w_names: BTreeSet<&str> = w.keys().copied().filter(real).collect();
    let r_names: BTreeSet<&str> = r.fields.iter().map(|f| f.0).filter(real).collect();
    assert_eq!(
        w_names, r_names,
        "{wgsl} vs {}: member names differ",
        r.name
    );
    for &(name, off, size) in r.fields.iter().filter(|f| real(&f.0)) {
        let (w_off, w_size) = w[name];
        assert_eq!(
            w_off, off,
            "{wgsl}.{name}: offset (WGSL {w_off}, Rust {off})"
        );
        assert_eq!(
            w_size, size,
            "{wgsl}.{name}: size (WGSL {w_size}, Rust {size})"
        );
    }
    let w_pad = pad_bytes(w.iter().filter(|(n, _)| !real(n)).map(|(_, &v)| v));
    let r_pad = pad_bytes(r.fields.iter().filter(|f| !real(&f.0)).map(|f| (f.1, f.2)));
    assert_eq!(
        w_pad, r_pad,
        "{wgsl} vs {}: padding members cover different bytes",
        r.name
    );

    // A Rust array of the mirror must have the WGSL array stride, so the alignments must agree.
    let handle = m
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(wgsl))
        .expect("struct type")
        .0;
    let w_align: u32 = lay[handle].alignment * 1; // Alignment as bytes
    assert_eq!(
        w_align as usize, r.align,
        "{wgsl} vs {}: alignment (WGSL {w_align}, Rust {})",
        r.name, r.align
    );
}

#[test]
fn life_layout() {
    let m = module();
    check(&m, &layouter(&m), GpuLife::WGSL, rust_of::<GpuLife>());
}

#[test]
fn field_layout() {
    let m = module();
    check(&m, &layouter(&m), GpuField::WGSL, rust_of::<GpuField>());
}

#[test]
fn params_layout() {
    let m = module();
    check(&m, &layouter(&m), GpuParams::WGSL, rust_of::<GpuParams>());
}

#[test]
fn emitter_layout() {
    let m = module();
    check(&m, &layouter(&m), GpuEmitter::WGSL, rust_of::<GpuEmitter>());
}

#[test]
fn depth_params_layout() {
    use wgphys::particles::depth::GpuDepth;
    let m = module();
    check(&m, &layouter(&m), GpuDepth::WGSL, rust_of::<GpuDepth>());
}

#[test]
fn curves_layout() {
    let m = module();
    check(&m, &layouter(&m), GpuCurves::WGSL, rust_of::<GpuCurves>());
}

#[test]
fn collider_layout() {
    let m = module();
    check(
        &m,
        &layouter(&m),
        GpuCollider::WGSL,
        rust_of::<GpuCollider>(),
    );
}

#[test]
fn rule_layout() {
    let m = module();
    check(&m, &layouter(&m), GpuRule::WGSL, rust_of::<GpuRule>());
}

#[test]
fn payload_layout() {
    let m = module();
    check(&m, &layouter(&m), GpuPayload::WGSL, rust_of::<GpuPayload>());
}

#[test]
fn spawn_record_layout() {
    let m = module();
    check(
        &m,
        &layouter(&m),
        GpuSpawnRecord::WGSL,
        rust_of::<GpuSpawnRecord>(),
    );
}

#[test]
fn counters_layout() {
    let m = module();
    check(
        &m,
        &layouter(&m),
        GpuCounters::WGSL,
        rust_of::<GpuCounters>(),
    );
}

/// Every binding in `bindings` has, in module `m`, the Rust element size `rust_elem[name]` as its
/// WGSL array stride (or, for a non-array such as a uniform block, as its size).
fn check_binding_strides(
    m: &Module,
    shader: &str,
    bindings: &[wgphys::gpu::shader::BindingDecl],
    rust_elem: &BTreeMap<&str, usize>,
) {
    let lay = layouter(m);
    // Textures have no element stride.
    for b in bindings.iter().filter(|b| !b.space.is_empty()) {
        let want = *rust_elem.get(b.name).unwrap_or_else(|| {
            panic!(
                "{shader} binding {} has no Rust element size in this test",
                b.name
            )
        });
        let (_, var) = m
            .global_variables
            .iter()
            .find(|(_, v)| v.name.as_deref() == Some(b.name))
            .expect("binding global");
        let got = match &m.types[var.ty].inner {
            TypeInner::Array { stride, .. } => *stride as usize,
            _ => lay[var.ty].size as usize,
        };
        assert_eq!(
            got, want,
            "{shader} binding {} ({}): WGSL element stride/size {got} vs Rust {want}",
            b.index, b.name
        );
    }
}

/// Every binding the host fills from (or reads into) a Rust slice has the Rust element size as
/// its WGSL element stride, and the two single-struct bindings have the Rust struct size.
#[test]
fn binding_strides_match_rust_elements() {
    let m = module();
    let rust_elem: BTreeMap<&str, usize> = [
        ("params", size_of::<GpuParams>()),
        ("pos", size_of::<Vec4>()),
        ("vel", size_of::<Vec4>()),
        ("acc", size_of::<Vec4>()),
        ("life", size_of::<GpuLife>()),
        ("colour", size_of::<Vec4>()),
        ("size", size_of::<f32>()),
        ("counters", size_of::<GpuCounters>()),
        ("scratch", size_of::<u32>()),
        ("colliders", size_of::<GpuCollider>()),
        ("rules", size_of::<GpuRule>()),
        // Two 8-byte payload entries per 16-byte element of the uniform array.
        ("payloads", 2 * size_of::<GpuPayload>()),
        ("staging", size_of::<GpuSpawnRecord>()),
        ("args_append", size_of::<u32>()),
        ("deaths", size_of::<u32>()),
        ("emitters", size_of::<GpuEmitter>()),
        ("curves", size_of::<GpuCurves>()),
        ("view", size_of::<wgphys::particles::view_sort::GpuView>()),
        ("sort_keys", size_of::<u32>()),
        ("sort_values", size_of::<u32>()),
        ("bounds_keys", size_of::<u32>()),
        ("trails", size_of::<Vec4>()),
        ("depth", size_of::<wgphys::particles::depth::GpuDepth>()),
        ("emitter_bounds_out", size_of::<Vec4>()),
        // Stage `rigid_contacts` binds the rigid world's own buffers.
        ("rigid_bodies", size_of::<wgphys::rigid::types::GpuBody>()),
        ("rigid_shapes", size_of::<wgphys::rigid::types::GpuShape>()),
        // Stage `rigid_cells`' grid: words (src/particles/rigid_cells.rs).
        ("rigid_cells_buf", size_of::<u32>()),
        ("rigid_cells_ro", size_of::<u32>()),
    ]
    .into_iter()
    .collect();
    check_binding_strides(&m, "particle", BINDINGS, &rust_elem);
}

// ---- The mass-aggregate shader (src/aggregate/types.rs vs shaders/aggregate/types.wgsl) ----

fn agg_module() -> Module {
    let src = wgphys::aggregate::gpu::shader_source();
    naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| {
        panic!(
            "aggregate shader does not parse:\n{}",
            e.emit_to_string(&src)
        )
    })
}

#[test]
fn agg_params_layout() {
    use wgphys::aggregate::types::GpuAggParams;
    let m = agg_module();
    check(
        &m,
        &layouter(&m),
        GpuAggParams::WGSL,
        rust_of::<GpuAggParams>(),
    );
}

#[test]
fn agg_gen_layout() {
    use wgphys::aggregate::types::GpuGen;
    let m = agg_module();
    check(&m, &layouter(&m), GpuGen::WGSL, rust_of::<GpuGen>());
}

#[test]
fn agg_link_layout() {
    use wgphys::aggregate::types::GpuLink;
    let m = agg_module();
    check(&m, &layouter(&m), GpuLink::WGSL, rust_of::<GpuLink>());
}

/// The structs the aggregate shader shares with the particle shader (through
/// shaders/common/colliders.wgsl and fields.wgsl) have the same layout there too.
#[test]
fn agg_shared_structs_layout() {
    let m = agg_module();
    let lay = layouter(&m);
    check(&m, &lay, GpuField::WGSL, rust_of::<GpuField>());
    check(&m, &lay, GpuCollider::WGSL, rust_of::<GpuCollider>());
}

/// Every aggregate binding the host fills from a Rust slice has the Rust element size as its
/// WGSL element stride, and the uniform block has the Rust struct size.
#[test]
fn agg_binding_strides_match_rust_elements() {
    use wgphys::aggregate::gpu::BINDINGS as AGG_BINDINGS;
    use wgphys::aggregate::types::{GpuAggParams, GpuGen, GpuLink};
    let m = agg_module();
    let rust_elem: BTreeMap<&str, usize> = [
        ("params", size_of::<GpuAggParams>()),
        ("pos_in", size_of::<Vec4>()),
        ("vel_in", size_of::<Vec4>()),
        ("pos_out", size_of::<Vec4>()),
        ("vel_out", size_of::<Vec4>()),
        ("acc", size_of::<Vec4>()),
        ("radius", size_of::<f32>()),
        ("gens", size_of::<GpuGen>()),
        ("gen_offsets", size_of::<u32>()),
        ("gen_refs", size_of::<u32>()),
        ("links", size_of::<GpuLink>()),
        ("colour_start", size_of::<u32>()),
        ("colliders", size_of::<GpuCollider>()),
        ("grid_sorted", size_of::<u32>()),
        ("grid_start", size_of::<u32>()),
        ("grid_end", size_of::<u32>()),
        ("order_keys", size_of::<u32>()),
        ("order_ids", size_of::<u32>()),
        ("order", size_of::<u32>()),
        // Positions then velocities, two halves of one binding (NEAR_STATE_BYTES per slot).
        ("near_in", size_of::<Vec4>()),
        ("near_out", size_of::<Vec4>()),
        ("near_acc", size_of::<Vec4>()),
        ("near_acc_out", size_of::<Vec4>()),
        ("near_slot", size_of::<u32>()),
        ("cells", size_of::<[u32; 2]>()),
        ("cells_out", size_of::<[u32; 2]>()),
        ("cell_slots", size_of::<u32>()),
        ("cell_slots_out", size_of::<u32>()),
        ("candidates", size_of::<u32>()),
        ("candidates_out", size_of::<u32>()),
    ]
    .into_iter()
    .collect();
    check_binding_strides(&m, "aggregate", AGG_BINDINGS, &rust_elem);
}

/// Every aggregate kernel binds at most WebGPU's default of 8 storage buffers per shader stage
/// (the spatial order's positions and velocities share one binding), so an aggregate world,
/// with or without a grid, builds on a device made with the default limits.
#[test]
fn every_aggregate_kernel_binds_at_most_webgpus_8_storage_buffers() {
    use wgphys::aggregate::gpu::{shader_source, storage_buffers_per_stage};
    let webgpu = wgpu::Limits::default().max_storage_buffers_per_shader_stage;
    let found = wgphys::gpu::shader::storage_buffers(&shader_source()).expect("validates");
    println!("aggregate kernels' storage buffers: {:?}", found.per_entry);
    for name in ["collide_near", "near_gather", "agg_integrate"] {
        assert!(
            found.per_entry.iter().any(|(e, _)| e == name),
            "{name} is an entry point"
        );
    }
    for (entry, n) in &found.per_entry {
        assert!(
            *n <= webgpu,
            "{entry} binds {n} storage buffers, over {webgpu}"
        );
    }
    for gridded in [false, true] {
        let need = storage_buffers_per_stage(gridded).expect("validates");
        assert!(need <= webgpu, "gridded {gridded}: {need}");
    }
}

// ---- The rigid shader (src/rigid/types.rs vs shaders/rigid/types.wgsl) ----

fn rigid_module() -> Module {
    let src = wgphys::rigid::gpu::shader_source();
    naga::front::wgsl::parse_str(&src)
        .unwrap_or_else(|e| panic!("rigid shader does not parse:\n{}", e.emit_to_string(&src)))
}

#[test]
fn rigid_structs_layout() {
    use wgphys::rigid::types::*;
    let m = rigid_module();
    let lay = layouter(&m);
    check(&m, &lay, GpuBody::WGSL, rust_of::<GpuBody>());
    check(&m, &lay, GpuShape::WGSL, rust_of::<GpuShape>());
    check(&m, &lay, GpuManifold::WGSL, rust_of::<GpuManifold>());
    check(&m, &lay, GpuRigidParams::WGSL, rust_of::<GpuRigidParams>());
    check(&m, &lay, GpuPass::WGSL, rust_of::<GpuPass>());
    check(&m, &lay, GpuExplosion::WGSL, rust_of::<GpuExplosion>());
    check(&m, &lay, GpuJoint::WGSL, rust_of::<GpuJoint>());
    use wgphys::rigid::hull::GpuHullHeader;
    check(&m, &lay, GpuHullHeader::WGSL, rust_of::<GpuHullHeader>());
    check(&m, &lay, GpuForceGen::WGSL, rust_of::<GpuForceGen>());
}

/// The WGSL a renderer includes (`wgphys::rigid::wgsl::structs`, with the hull accessors over
/// a `hulls` binding) validates on its own with a vertex shader that reads bodies and shapes,
/// and lays the buffers' structs out as their Rust mirrors.
#[test]
fn rigid_render_structs_layout() {
    use wgphys::rigid::types::*;
    let src = format!(
        "{}@group(0) @binding(0) var<storage, read> bodies: array<Body>;\n\
         @group(0) @binding(1) var<storage, read> shapes: array<Shape>;\n\
         @group(0) @binding(2) var<storage, read> hulls: array<vec4<u32>>;\n{}\n\
         @vertex fn vs(@builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> {{\n\
             let s = shapes[i];\n\
             let b = bodies[s.body];\n\
             return vec4<f32>(b.pos.xyz + quat_rotate(b.orient, s.offset_pos.xyz), 1.0);\n\
         }}\n",
        wgphys::rigid::wgsl::structs(),
        wgphys::rigid::wgsl::hull_accessors()
    );
    let m = naga::front::wgsl::parse_str(&src)
        .unwrap_or_else(|e| panic!("render WGSL does not parse:\n{}", e.emit_to_string(&src)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&m)
    .unwrap_or_else(|e| panic!("render WGSL does not validate: {e:?}"));
    let lay = layouter(&m);
    check(&m, &lay, GpuBody::WGSL, rust_of::<GpuBody>());
    check(&m, &lay, GpuShape::WGSL, rust_of::<GpuShape>());
    check(&m, &lay, GpuManifold::WGSL, rust_of::<GpuManifold>());
    check(&m, &lay, GpuJoint::WGSL, rust_of::<GpuJoint>());
}

/// Every rigid binding the host fills from a Rust slice has the Rust element size as its WGSL
/// element stride, and the uniform block has the Rust struct size.
#[test]
fn rigid_binding_strides_match_rust_elements() {
    use wgphys::rigid::gpu::BINDINGS as RIGID_BINDINGS;
    use wgphys::rigid::types::*;
    let m = rigid_module();
    let rust_elem: BTreeMap<&str, usize> = [
        ("params", size_of::<GpuRigidParams>()),
        ("bodies", size_of::<GpuBody>()),
        ("shapes", size_of::<GpuShape>()),
        ("shape_pos", size_of::<Vec4>()),
        ("shape_xf", size_of::<Vec4>()),
        ("hulls", size_of::<glam::UVec4>()),
        ("pairs", 2 * size_of::<u32>()),
        ("counters", size_of::<u32>()),
        ("manifolds", size_of::<GpuManifold>()),
        ("manifolds_prev", size_of::<GpuManifold>()),
        ("solver", size_of::<Vec4>()),
        ("claims", size_of::<u32>()),
        ("order", size_of::<u32>()),
        ("grid_sorted", size_of::<u32>()),
        ("grid_start", size_of::<u32>()),
        ("grid_end", size_of::<u32>()),
        ("pair_scratch", size_of::<u32>()),
        ("colour_sort_keys", size_of::<u32>()),
        ("colour_sort_values", size_of::<u32>()),
        ("colour_sorted_keys", size_of::<u32>()),
        ("blocks", size_of::<u32>()),
        ("solver_rows", size_of::<Vec4>()),
        ("order_read", size_of::<u32>()),
        ("counters_read", size_of::<u32>()),
        ("joints", size_of::<GpuJoint>()),
        ("joint_filter", 4 * size_of::<u32>()),
        ("force_gens", size_of::<GpuForceGen>()),
        ("generator_index", size_of::<u32>()),
    ]
    .into_iter()
    .collect();
    check_binding_strides(&m, "rigid", RIGID_BINDINGS, &rust_elem);
}
