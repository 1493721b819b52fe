//! The whole WGSL module the rigid renderer is compiled from ([`shader_source`]): the renderer's
//! own `rigid.wgsl` reads the engine's `Body`, `Shape`, `Manifold` and `Joint` and uses its
//! quaternions, so the engine's structs and constants (`wgphys::rigid::wgsl::structs`) go in
//! front of it, and it draws convex hulls through the engine's own hull accessors
//! (`wgphys::rigid::wgsl::hull_accessors`, over the `hulls` buffer it binds).
//! `tests/examples_wgsl.rs` validates `rigid.wgsl` through this same function.

/// The renderer's own WGSL.
const RIGID_SHADER: &str = include_str!("rigid.wgsl");

/// The whole WGSL module: the engine's structs and constants, its hull accessors over the
/// renderer's `hulls` binding, then `rigid.wgsl`.
pub fn shader_source() -> String {
    let mut src = wgphys::rigid::wgsl::structs();
    src.push_str("@group(1) @binding(5) var<storage, read> hulls: array<vec4<u32>>;\n");
    src.push_str(wgphys::rigid::wgsl::hull_accessors());
    src.push_str(RIGID_SHADER);
    src
}
