//! Every GPU struct's layout matches its Rust mirror, byte for byte, as naga lays the composed
//! particle shader out: member offsets and sizes by name, padding bytes, struct size, and the
//! element stride of every array the host fills from a Rust slice. No adapter needed.

use glam::Vec4;
use naga::{Module, TypeInner};
use std::collections::{BTreeMap, BTreeSet};
use std::mem::{align_of, offset_of, size_of, size_of_val};
use wgphys::particles::gpu::{shader_source, BINDINGS};
use wgphys::particles::types::*;

/// A Rust struct's layout: size, alignment and (name, offset, size) of every field.
struct RustLayout {
    name: &'static str,
    size: usize,
    align: usize,
    fields: Vec<(&'static str, usize, usize)>,
}

/// Lists every field of a Pod struct with its offset and size. The test checks that the listed
/// sizes add up to the struct's size, and Pod forbids implicit padding, so a field added to the
/// Rust struct but not to this list fails the test.
macro_rules! rust_layout {
    ($t:ty { $($f:ident),* $(,)? }) => {{
        let z: $t = bytemuck::Zeroable::zeroed();
        RustLayout {
            name: stringify!($t),
            size: size_of::<$t>(),
            align: align_of::<$t>(),
            fields: vec![$((stringify!($f), offset_of!($t, $f), size_of_val(&z.$f))),*],
        }
    }};
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
    check(
        &m,
        &layouter(&m),
        "Life",
        rust_layout!(GpuLife {
            age,
            lifetime,
            kind,
            id
        }),
    );
}

#[test]
fn field_layout() {
    let m = module();
    check(
        &m,
        &layouter(&m),
        "Field",
        rust_layout!(GpuField {
            kind,
            k1,
            k2,
            radius,
            v,
            w
        }),
    );
}

#[test]
fn params_layout() {
    let m = module();
    let r = rust_layout!(GpuParams {
        dt,
        step,
        seed,
        capacity,
        host_spawn,
        removal_count,
        field_count,
        collider_count,
        rule_count,
        kill_bounds,
        contact_slop,
        lifecycle,
        emitted,
        emitter_count,
        trail_length,
        _pad,
        kill_min,
        kill_max,
        fields,
        emit_first,
    });
    check(&m, &layouter(&m), "Params", r);
}

#[test]
fn emitter_layout() {
    let m = module();
    let r = rust_layout!(GpuEmitter {
        shape,
        velocity,
        kind,
        _pad,
        position,
        rotation,
        dir_q,
        shape_a,
        shape_b,
        speed_life,
        size_mass,
        colour_min,
        colour_max,
        accel,
        sub,
    });
    check(&m, &layouter(&m), "Emitter", r);
}

#[test]
fn depth_params_layout() {
    use wgphys::particles::depth::GpuDepth;
    let m = module();
    let r = rust_layout!(GpuDepth {
        view_proj,
        inv_view_proj,
        restitution,
        friction,
        thickness,
        flags,
        size,
        _pad,
    });
    check(&m, &layouter(&m), "DepthParams", r);
}

#[test]
fn curves_layout() {
    let m = module();
    let r = rust_layout!(GpuCurves {
        colour,
        colour_t,
        size,
        size_t,
        counts,
    });
    check(&m, &layouter(&m), "Curves", r);
}

#[test]
fn collider_layout() {
    let m = module();
    check(
        &m,
        &layouter(&m),
        "Collider",
        rust_layout!(GpuCollider {
            kind,
            restitution,
            friction,
            _pad,
            a,
            b,
            q
        }),
    );
}

#[test]
fn rule_layout() {
    let m = module();
    let r = rust_layout!(GpuRule {
        age_min,
        age_max,
        damping,
        size,
        payload_start,
        payload_len,
        children,
        _pad,
        vel_min,
        vel_max,
        colour,
        gravity,
    });
    check(&m, &layouter(&m), "Rule", r);
}

#[test]
fn payload_layout() {
    let m = module();
    check(
        &m,
        &layouter(&m),
        "Payload",
        rust_layout!(GpuPayload { ty, count }),
    );
}

#[test]
fn spawn_record_layout() {
    let m = module();
    check(
        &m,
        &layouter(&m),
        "SpawnRecord",
        rust_layout!(GpuSpawnRecord {
            pos,
            vel,
            acc,
            colour,
            life,
            size,
            _pad
        }),
    );
}

#[test]
fn counters_layout() {
    let m = module();
    let r = rust_layout!(GpuCounters {
        live,
        dead,
        survivors,
        movers,
        spawn_wanted,
        spawn_accepted,
        children_wanted,
        next_serial,
        dropped_total,
        wanted_capacity,
        step,
        overflow_steps,
        host_dropped_total,
        emitted,
        _pad,
        step_args,
        draw_args,
        _pad2,
    });
    check(&m, &layouter(&m), "Counters", r);
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
    let r = rust_layout!(GpuAggParams {
        dt,
        n,
        link_count,
        colour_count,
        link_iterations,
        collide_iterations,
        collider_count,
        field_count,
        restitution,
        friction,
        inv_cell_size,
        table_mask,
        contact_slop,
        integrator,
        collisions,
        stack_scaling,
        near_reach,
        list_capacity,
        near_scale,
        near_reach2,
        fields,
    });
    check(&m, &layouter(&m), "AggParams", r);
}

#[test]
fn agg_gen_layout() {
    use wgphys::aggregate::types::GpuGen;
    let m = agg_module();
    check(
        &m,
        &layouter(&m),
        "Gen",
        rust_layout!(GpuGen {
            kind,
            a,
            b,
            _pad,
            k,
            anchor
        }),
    );
}

#[test]
fn agg_link_layout() {
    use wgphys::aggregate::types::GpuLink;
    let m = agg_module();
    check(
        &m,
        &layouter(&m),
        "Link",
        rust_layout!(GpuLink {
            kind,
            a,
            b,
            _pad0,
            length,
            restitution,
            _pad1,
            _pad2,
            anchor
        }),
    );
}

/// The structs the aggregate shader shares with the particle shader (through
/// shaders/common/colliders.wgsl and fields.wgsl) have the same layout there too.
#[test]
fn agg_shared_structs_layout() {
    let m = agg_module();
    let lay = layouter(&m);
    check(
        &m,
        &lay,
        "Field",
        rust_layout!(GpuField {
            kind,
            k1,
            k2,
            radius,
            v,
            w
        }),
    );
    check(
        &m,
        &lay,
        "Collider",
        rust_layout!(GpuCollider {
            kind,
            restitution,
            friction,
            _pad,
            a,
            b,
            q
        }),
    );
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
    check(
        &m,
        &lay,
        "Body",
        rust_layout!(GpuBody {
            pos,
            orient,
            lin_vel,
            ang_vel,
            inv_inertia,
            inv_inertia_world,
            force,
            torque,
            acc,
            last_acc,
            kind,
            awake,
            can_sleep,
            flags
        }),
    );
    check(
        &m,
        &lay,
        "Shape",
        rust_layout!(GpuShape {
            kind,
            body,
            group,
            mask,
            offset_pos,
            offset_rot,
            dims,
            material
        }),
    );
    check(
        &m,
        &lay,
        "Manifold",
        rust_layout!(GpuManifold {
            body_a,
            body_b,
            count,
            colour,
            shape_a,
            shape_b,
            dynamic,
            _pad1,
            normal,
            material,
            points,
            features,
            impulses,
            rolling
        }),
    );
    check(
        &m,
        &lay,
        "RigidParams",
        rust_layout!(GpuRigidParams {
            dt,
            body_count,
            shape_count,
            pair_capacity,
            velocity_iterations,
            position_iterations,
            large_count,
            combine_friction,
            combine_restitution,
            restitution_cutoff,
            inv_cell_size,
            table_mask,
            contact_margin,
            angular_limit,
            position_relax,
            position_slop,
            sleep_epsilon,
            sleep_bias,
            step,
            warm_start,
            substeps,
            colour_slots,
            relax_iterations,
            inv_dt,
            soft,
            soft_static,
            block_shift,
            block_bins,
            block_sweeps,
            _pad0
        }),
    );
    check(
        &m,
        &lay,
        "Pass",
        rust_layout!(GpuPass {
            colour,
            warm,
            _pad1,
            _pad2
        }),
    );
    check(
        &m,
        &lay,
        "Explosion",
        rust_layout!(GpuExplosion {
            detonation,
            implosion,
            shock,
            convection,
            misc
        }),
    );
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
    ]
    .into_iter()
    .collect();
    check_binding_strides(&m, "rigid", RIGID_BINDINGS, &rust_elem);
}
