//! The engine's WGSL for renderers: what a shader includes to read the rigid world's buffers
//! (bind [`RigidRenderBuffers::bodies`](crate::rigid::RigidRenderBuffers::bodies) and
//! [`shapes`](crate::rigid::RigidRenderBuffers::shapes) as storage and draw each shape slot), the
//! same source the engine's kernels are compiled from, so it cannot drift from the buffers'
//! layout.
//!
//! ```
//! // A vertex shader that places each body's shapes: the structs first, then your code.
//! let source = format!(
//!     "{}\n@group(0) @binding(0) var<storage, read> bodies: array<Body>;\n\
//!      @group(0) @binding(1) var<storage, read> shapes: array<Shape>;\n\
//!      @vertex fn vs(@builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> {{\n\
//!          let s = shapes[i];\n\
//!          let b = bodies[s.body];\n\
//!          let centre = b.pos.xyz + quat_rotate(b.orient, s.offset_pos.xyz);\n\
//!          return vec4<f32>(centre, 1.0);\n\
//!      }}\n",
//!     wgphys::rigid::wgsl::structs()
//! );
//! assert!(source.contains("struct Body"));
//! ```
//!
//! Which buffers a world holds can change when it grows (or is loaded): see
//! [`RigidWorld::buffers_generation`](crate::rigid::RigidWorld::buffers_generation) to know when
//! to rebuild a bind group.

/// The constants (`SHAPE_SPHERE`, `BODY_STATIC`, `NONE`, ...), the structs of the GPU buffers
/// (`Body`, `Shape`, `Manifold`, `Joint`, `ForceGen`, ... as in [`crate::rigid::types`]) and the
/// quaternion helpers (`quat_rotate`, `quat_mul`, ...) of the rigid domain, as one WGSL source
/// with no bindings: put your own after it.
pub fn structs() -> String {
    let mut s = String::from("// wgphys::rigid::wgsl::structs(): the engine's own source\n");
    for (name, value) in crate::rigid::gpu::wgsl_constants() {
        s.push_str(&format!("const {name}: u32 = {value}u;\n"));
    }
    s.push_str(include_str!("../../shaders/rigid/types.wgsl"));
    s.push_str(include_str!("../../shaders/rigid/math.wgsl"));
    s
}

/// The accessors of the hull store (a convex hull shape's vertices, faces and planes:
/// `crate::rigid::hull::layout`), to draw hulls. They read a global
/// `hulls: array<vec4<u32>>`, which your source declares (bound to
/// [`RigidRenderBuffers::hulls`](crate::rigid::RigidRenderBuffers::hulls)) between [`structs`] and these.
pub fn hull_accessors() -> &'static str {
    include_str!("../../shaders/rigid/hull/hull.wgsl")
}
