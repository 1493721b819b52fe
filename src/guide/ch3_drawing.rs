//! # 3. Drawing from the engine's buffers
//!
//! On the GPU backend the state lives in storage buffers on the device. A renderer on the same
//! device ([`ch2_backends`](super::ch2_backends), "Borrowing your renderer's device") binds
//! them and draws: no state comes back to the host, and the draw reads what the last step
//! wrote. wgpu orders the work on a queue, so a render pass submitted after a step, or recorded
//! after it in the same encoder ([`ch4_encoding`](super::ch4_encoding)), sees the step's result.
//! On the CPU backend there are no such buffers: read the state
//! ([`read_snapshot`](crate::particles::ParticleWorld::read_snapshot),
//! [`read_bodies`](crate::rigid::RigidWorld::read_bodies), or `cpu_state()` for the twin's
//! arrays) and upload it yourself.
//!
//! ## Particles: [`RenderBuffers`](crate::particles::RenderBuffers) and one indirect draw
//!
//! [`ParticleWorld::render_buffers`](crate::particles::ParticleWorld::render_buffers) gives the
//! buffers (`None` on the CPU). The live particles are packed in slots `[0, live)`, and the
//! `draw_args` buffer holds `DrawIndirectArgs { vertex_count: 6, instance_count: live,
//! first_vertex: 0, first_instance: 0 }`, written by the step on the device. So the draw is one
//! `draw_indirect` with one instance per particle, and the host never needs to know `live`.
//!
//! | field | element | usage |
//! |---|---|---|
//! | `positions` | `vec4<f32>`: xyz in metres, w = 1 | STORAGE, VERTEX, COPY_SRC, COPY_DST |
//! | `colours` | `vec4<f32>`: linear RGBA | the same |
//! | `sizes` | `f32`: radius in metres | the same |
//! | `velocities` | `vec4<f32>`: m/s (xyz), damping (w) | the same |
//! | `draw_args` | the indirect arguments above | STORAGE, INDIRECT, COPY_SRC, COPY_DST |
//! | `order` | `u32` slots, back to front (with [`set_view_sort`](crate::particles::ParticleWorld::set_view_sort)) | STORAGE, COPY_SRC, COPY_DST |
//! | `trails` | `vec4<f32>`, [`trail_length`](crate::particles::WorldConfig::trail_length) positions per slot | STORAGE, VERTEX, COPY_SRC, COPY_DST |
//! | `emitter_bounds` | two `vec4<f32>` per emitter slot: its particles' box | STORAGE, COPY_SRC, COPY_DST |
//!
//! Bind the first three as per-instance vertex buffers (or as read-only storage indexed by
//! `instance_index`) and expand a quad from the vertex index in the vertex shader:
//!
//! ```
//! use wgphys::particles::ParticleWorld;
//!
//! // Per-instance layouts for `positions`, `colours` and `sizes` (shader locations 0, 1, 2).
//! const POSITION: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![0 => Float32x4];
//! const COLOUR: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![1 => Float32x4];
//! const SIZE: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![2 => Float32];
//! fn vertex_buffers() -> [wgpu::VertexBufferLayout<'static>; 3] {
//!     let layout = |array_stride, attributes| wgpu::VertexBufferLayout {
//!         array_stride,
//!         step_mode: wgpu::VertexStepMode::Instance,
//!         attributes,
//!     };
//!     [layout(16, &POSITION), layout(16, &COLOUR), layout(4, &SIZE)]
//! }
//!
//! /// Records the particles into a pass whose pipeline has `vertex_buffers()`.
//! fn draw_particles(pass: &mut wgpu::RenderPass<'_>, world: &ParticleWorld) {
//!     let Some(b) = world.render_buffers() else { return }; // a CPU world has none
//!     pass.set_vertex_buffer(0, b.positions.slice(..));
//!     pass.set_vertex_buffer(1, b.colours.slice(..));
//!     pass.set_vertex_buffer(2, b.sizes.slice(..));
//!     pass.draw_indirect(b.draw_args, 0); // 6 vertices, `live` instances
//! }
//! ```
//!
//! ```wgsl
//! @vertex
//! fn vs(@builtin(vertex_index) v: u32, @location(0) pos: vec4<f32>,
//!       @location(1) colour: vec4<f32>, @location(2) size: f32) -> Out {
//!     let corner = array(vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
//!                        vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0))[v];
//!     let world = pos.xyz + (camera.right * corner.x + camera.up * corner.y) * size;
//!     return Out(camera.view_proj * vec4(world, 1.0), colour, corner);
//! }
//! ```
//!
//! For alpha-blended particles (smoke), turn on the back-to-front order with
//! [`set_view_sort`](crate::particles::ParticleWorld::set_view_sort) and read the slot of
//! instance k from `order[k]` (bind `positions` and the rest as storage then). The order costs
//! a radix sort of the whole pool each step: use it for the layers you blend, in a world of
//! their own. Trails, velocities for stretched sprites, the emitters' boxes for culling and the
//! depth collider are described on [`RenderBuffers`](crate::particles::RenderBuffers) and in
//! the README ("Drawing the particles in your own render pass"); `examples/common/fx/` is a
//! complete HDR renderer that reads these buffers and nothing else.
//!
//! An aggregate world's
//! [`render_buffers`](crate::aggregate::AggregateWorld::render_buffers) is the same struct with
//! `positions`, `colours`, `sizes` and `draw_args` only: every slot in use is an instance, and a
//! removed particle has radius 0, so it draws as nothing.
//!
//! ## Rigid bodies: [`RigidWorld::render_buffers`](crate::rigid::RigidWorld::render_buffers), `bodies` and `shapes`
//!
//! [`RigidWorld::render_buffers`](crate::rigid::RigidWorld::render_buffers) returns the world's
//! [`RigidRenderBuffers`](crate::rigid::RigidRenderBuffers) (`None` on the CPU). Two of its
//! buffers are for drawing: [`bodies`](crate::rigid::RigidRenderBuffers::bodies), an
//! `array<Body>` of [`GpuBody`](crate::rigid::types::GpuBody) indexed by
//! [`BodyHandle::index`](crate::rigid::BodyHandle::index), and
//! [`shapes`](crate::rigid::RigidRenderBuffers::shapes), an `array<Shape>` of
//! [`GpuShape`](crate::rigid::types::GpuShape) indexed by shape slot. Their usage is STORAGE,
//! COPY_SRC and COPY_DST (not VERTEX): bind them as read-only storage in the vertex stage, draw
//! a unit mesh per shape kind with one instance per shape slot, and place each vertex from the
//! shape and its body. The slots in use are the host's shape table,
//! [`RigidWorld::shapes`](crate::rigid::RigidWorld::shapes) (no readback: shapes only change
//! when you add or remove bodies); a free slot has `kind` 0 and should produce no triangle.
//!
//! ```
//! use wgphys::rigid::types::{GpuBody, GpuShape};
//! assert_eq!(std::mem::size_of::<GpuBody>(), 240); // the `bodies` stride
//! assert_eq!(std::mem::size_of::<GpuShape>(), 80); // the `shapes` stride
//! ```
//!
//! The WGSL side mirrors the two structs field for field. Do not copy them: put
//! [`wgphys::rigid::wgsl::structs()`](crate::rigid::wgsl::structs) in front of your shader
//! source (the engine's own constants, structs and quaternion helpers, the source its kernels
//! are compiled from; [`hull_accessors`](crate::rigid::wgsl::hull_accessors) adds the hull
//! store's, to draw convex hulls). The field docs of [`GpuBody`](crate::rigid::types::GpuBody)
//! and [`GpuShape`](crate::rigid::types::GpuShape) say what each holds; in short:
//!
//! ```wgsl
//! struct Body {
//!     pos: vec4<f32>,        // centre of mass (xyz; the shapes' offsets are from it), inverse mass (w)
//!     orient: vec4<f32>,     // quaternion (x, y, z, w)
//!     lin_vel: vec4<f32>,
//!     ang_vel: vec4<f32>,
//!     inv_inertia: array<vec4<f32>, 3>,
//!     inv_inertia_world: array<vec4<f32>, 3>,
//!     force: vec4<f32>,
//!     torque: vec4<f32>,
//!     acc: vec4<f32>,
//!     last_acc: vec4<f32>,
//!     kind: u32,             // 0 dynamic, 1 static, 2 kinematic
//!     awake: u32,            // 1 awake, 0 asleep (dim sleeping bodies)
//!     can_sleep: u32,
//!     flags: u32,
//! }
//! struct Shape {
//!     kind: u32,             // 0 free, 1 sphere, 2 box, 3 capsule, 4 half-space, 5 plane
//!     body: u32,             // the owning body's slot
//!     group: u32,
//!     mask: u32,
//!     offset_pos: vec4<f32>, // position in the body's frame
//!     offset_rot: vec4<f32>, // rotation in the body's frame
//!     dims: vec4<f32>,       // sphere: radius (x); box: half extents (xyz); capsule: radius (x)
//!                            // and half the segment along local y (y); planes: normal, offset
//!     material: vec4<f32>,
//! }
//! @group(1) @binding(0) var<storage, read> bodies: array<Body>;
//! @group(1) @binding(1) var<storage, read> shapes: array<Shape>;
//!
//! fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
//!     let t = 2.0 * cross(q.xyz, v);
//!     return v + q.w * t + cross(q.xyz, t);
//! }
//!
//! // A unit cube's vertex for a box shape: scale by the half extents, then place it.
//! fn box_vertex(slot: u32, local_unit: vec3<f32>) -> vec3<f32> {
//!     let s = shapes[slot];
//!     let b = bodies[s.body];
//!     let centre = b.pos.xyz + quat_rotate(b.orient, s.offset_pos.xyz);
//!     let local = quat_rotate(s.offset_rot, local_unit * s.dims.xyz);
//!     return centre + quat_rotate(b.orient, local);
//! }
//! ```
//!
//! Both are the world's bodies as the last step on the device left them; the host's copy (what
//! [`RigidWorld::cast_ray`](crate::rigid::RigidWorld::cast_ray) uses) is only as new as your
//! last read. The examples' rigid renderer (`examples/common/rigid/`) draws every shape this
//! way, with shadows and a contact overlay from the `manifolds` and `counters` buffers.
//!
//! ## When the buffers change
//!
//! A world that grows replaces its buffers with larger ones and copies the state across on the
//! device: a particle world when it grows ([`ParticleWorld::grow`], or `auto_grow`, which the
//! step reports in [`ParticleStepReport::grew_to`](crate::particles::ParticleStepReport::grew_to)), a rigid
//! world when its bodies, shapes, pairs or joints grow (pairs grow from the step reports with
//! `auto_grow`, at any step). A bind group made over the old buffers keeps them alive and
//! draws stale data. Make the bind group again when the world's `buffers_generation()`
//! changes ([`RigidWorld`](crate::rigid::RigidWorld::buffers_generation),
//! [`ParticleWorld`](crate::particles::ParticleWorld::buffers_generation), which also counts
//! the back-to-front order buffer made when the order is turned on, and
//! [`AggregateWorld`](crate::aggregate::AggregateWorld::buffers_generation), whose buffers
//! never change), or key it on the buffers themselves (`wgpu::Buffer` compares by identity), which works for
//! every world, as the examples do:
//!
//! [`ParticleWorld::grow`]: crate::particles::ParticleWorld::grow
//!
//! ```
//! use wgphys::rigid::RigidWorld;
//!
//! /// The bind group over a rigid world's `bodies` and `shapes`, made again when they change.
//! #[derive(Default)]
//! struct BodyBinding {
//!     bound: Option<(u64, wgpu::BindGroup)>,
//! }
//!
//! impl BodyBinding {
//!     fn get(
//!         &mut self,
//!         device: &wgpu::Device,
//!         layout: &wgpu::BindGroupLayout,
//!         world: &RigidWorld,
//!     ) -> Option<&wgpu::BindGroup> {
//!         let bufs = world.render_buffers()?;
//!         if self.bound.as_ref().is_none_or(|(seen, _)| *seen != bufs.generation) {
//!             let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
//!                 label: Some("bodies and shapes"),
//!                 layout,
//!                 entries: &[
//!                     wgpu::BindGroupEntry { binding: 0, resource: bufs.bodies.as_entire_binding() },
//!                     wgpu::BindGroupEntry { binding: 1, resource: bufs.shapes.as_entire_binding() },
//!                 ],
//!             });
//!             self.bound = Some((bufs.generation, group));
//!         }
//!         self.bound.as_ref().map(|(_, group)| group)
//!     }
//! }
//!
//! /// One instance per shape slot in use; the vertex shader skips free slots.
//! fn draw_boxes(pass: &mut wgpu::RenderPass<'_>, world: &RigidWorld, cube_indices: u32) {
//!     let slots = world.render_buffers().map_or(0, |b| b.shape_slots);
//!     pass.draw_indexed(0..cube_indices, 0, 0..slots);
//! }
//! ```
