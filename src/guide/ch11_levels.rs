//! # 11. Levels: triangle meshes and heightfields
//!
//! A game's level is static geometry: a triangle mesh for buildings, caves and props, a
//! heightfield for terrain. Both are colliders of a [`RigidBody::fixed`](crate::rigid::RigidBody::fixed)
//! body (a dynamic or kinematic body with one is refused) and add no mass.
//!
//! | constructor | what | notes |
//! |---|---|---|
//! | [`Collider::trimesh(&vertices, &indices)`](crate::rigid::Collider::trimesh) | a mesh, one-sided | degenerate triangles dropped and counted ([`TriMesh::dropped`](crate::rigid::mesh::TriMesh::dropped)) |
//! | [`Collider::two_sided_trimesh`](crate::rigid::Collider::two_sided_trimesh) | a mesh met from both sides | walls, platforms, ceilings |
//! | [`Collider::heightfield(rows, columns, &heights, scale)`](crate::rigid::Collider::heightfield) | terrain, met from above | rows along z, `scale` = (size x, height scale, size z), centred on the collider's frame |
//! | [`Collider::heightfield_with_holes`](crate::rigid::Collider::heightfield_with_holes) | terrain with cells cut out | holes by (row, column) of cells |
//! | [`Collider::of_trimesh(arc)`](crate::rigid::Collider::of_trimesh), [`of_heightfield`](crate::rigid::Collider::of_heightfield) | geometry cooked once, shared | a world stores each distinct `Arc` once |
//!
//! Building a mesh cooks it: a bounding-volume hierarchy (binned surface-area heuristic, walked
//! without a stack on both backends) and a flag for every edge. Cook a large mesh once with
//! [`TriMesh::new`](crate::rigid::mesh::TriMesh::new), keep the `Arc`, and hand it to as many
//! colliders and worlds as need it. Bad geometry (no triangles, an index past the vertices, a
//! vertex that is not finite, a heightfield of fewer than 2 × 2 samples or with a NaN height) is
//! an error naming the problem, and the world is left as it was.
//!
//! ## Sides
//!
//! Triangles are wound counter-clockwise seen from their front. A one-sided triangle meets only
//! shapes whose centre is in front of its plane: a shape behind it passes through, as it would
//! come out of the inside of a closed surface. That is what a closed level surface wants (no
//! body caught inside a wall it tunnelled into) and what a terrain is: heightfields are
//! one-sided, facing up. A sheet a body can meet from either side (a thin wall, a floating
//! platform, a cave's ceiling over the player) is a two-sided mesh
//! ([`TriMesh::with_two_sided`](crate::rigid::mesh::TriMesh::with_two_sided)): each triangle is
//! met from the side the shape is on.
//!
//! ## Seams
//!
//! A ball rolling over the seam of two coplanar triangles must not hop, and a box sliding
//! across it must not catch. When the mesh is cooked, every edge is classified from the two
//! triangles that share it: a boundary, a convex fold, a concave fold, or flat (normals within
//! 5°). A contact on an edge that may not push (flat or concave on a one-sided mesh; flat on a
//! two-sided one) takes the face's normal instead, so the seam feels like the plane. This is
//! rapier's `FIX_INTERNAL_EDGES` and Jolt's active edges, always on. Two things make it work:
//!
//! - **Share vertices.** Edges are matched by vertex index: a triangle soup (three vertices of
//!   its own per triangle) has nothing but boundaries, every seam active, and bodies bump on
//!   them. Weld duplicate vertices before building the mesh.
//! - **Wind consistently.** An edge shared by triangles wound the same way round, or by more
//!   than two triangles, is treated as a boundary.
//!
//! ## Contacts, fast bodies and queries
//!
//! Spheres, boxes, capsules and hulls collide with level geometry (two levels do not collide
//! with each other or with planes). Each pair of a shape and a level collider gets one manifold
//! of up to four points (one for a sphere), taken about the deepest contact's normal. A body marked
//! [`ccd(true)`](crate::rigid::RigidBody::ccd) is swept against the triangles its path may reach,
//! so a crate thrown at 100 m/s stops at a 5 cm wall. Rays
//! ([`cast_ray`](crate::rigid::RigidWorld::cast_ray), which hit both sides of any triangle),
//! shape casts ([`cast_shape`](crate::rigid::RigidWorld::cast_shape), one-sided as contacts are)
//! and the other scene queries see level geometry, and saves hold it (a load cooks it again and
//! checks it against what was stored).
//!
//! ```
//! use glam::Vec3;
//! use std::sync::Arc;
//! use wgphys::Backend;
//! use wgphys::rigid::mesh::TriMesh;
//! use wgphys::rigid::{Collider, RigidBody, RigidConfig, RigidWorld};
//!
//! let mut world = RigidWorld::new(Backend::Cpu, RigidConfig::default())?;
//! // Flat terrain 8 m square at y = 0 (5 × 5 samples, 2 m cells) with the centre-right cell cut
//! // out (row 1, column 2: x from 0 to 2, z from −2 to 0).
//! let field = Collider::heightfield_with_holes(
//!     5, 5, &[0.0; 25], Vec3::new(8.0, 1.0, 8.0), &[(1, 2)],
//! )?;
//! world.add_body(RigidBody::fixed(), &[field])?;
//! // A platform 2 m up: a two-sided square sheet of two triangles, facing up.
//! let sheet = [
//!     Vec3::new(-4.0, 2.0, 2.0), Vec3::new(-4.0, 2.0, 4.0),
//!     Vec3::new(-2.0, 2.0, 4.0), Vec3::new(-2.0, 2.0, 2.0),
//! ];
//! let platform = Arc::new(TriMesh::new(&sheet, &[[0, 1, 2], [0, 2, 3]])?.with_two_sided(true));
//! world.add_body(RigidBody::fixed(), &[Collider::of_trimesh(platform.clone())])?;
//!
//! let r = 0.25;
//! let ball = |world: &mut RigidWorld, at: Vec3, v: Vec3| {
//!     let body = RigidBody::dynamic().position(at).velocity(v).can_sleep(false);
//!     world.add_body(body, &[Collider::sphere(r)])
//! };
//! let on_ground = ball(&mut world, Vec3::new(-1.0, 1.0, 1.0), Vec3::ZERO)?;
//! let over_hole = ball(&mut world, Vec3::new(1.0, 1.0, -1.0), Vec3::ZERO)?;
//! let on_platform = ball(&mut world, Vec3::new(-3.5, 3.0, 3.5), Vec3::ZERO)?;
//! // Thrown up at the platform's underside: it meets the sheet's back and falls back.
//! let thrown_up = ball(&mut world, Vec3::new(-2.5, 0.3, 2.5), Vec3::new(0.0, 6.0, 0.0))?;
//! for _ in 0..90 {
//!     world.step(1.0 / 60.0)?;
//! }
//! let y = |h| world.body(h).map(|b| b.position.y);
//! // Resting bodies sit within the contact slop (2 mm) of touching: a centimetre is plenty.
//! assert!((y(on_ground)? - r).abs() < 0.01); // on the terrain
//! assert!(y(over_hole)? < -2.0); // fell through the hole
//! assert!((y(on_platform)? - (2.0 + r)).abs() < 0.01); // on the platform's top
//! assert!((y(thrown_up)? - r).abs() < 0.01); // stopped by the underside, back on the ground
//! # Ok::<(), wgphys::Error>(())
//! ```
//!
//! ## Cost
//!
//! A level is stored once as words of the world's hull store (the GPU's `hulls` buffer), so it
//! needs no binding of its own and a renderer can keep drawing its own copy of the triangles.
//! The broad phase pairs each moving shape with each level collider whose box it overlaps; the
//! narrow phase then walks the mesh's hierarchy or the heightfield's cells under the shape. On
//! the GPU these pairs run in a kernel of their own, `narrow_mesh`, which only the steps of
//! worlds holding level geometry run (and so compile; `precompile` compiles every kernel).
//! Two limits bound the work a pair may do on any adapter: a leaf of the hierarchy holds at
//! most four triangles, and a walk of a heightfield meets at most 256 of the cells under its
//! box, the first 256 row by row from the box's low-z row, each row from its low-x end. The
//! same limit holds for a fast body's sweep (the box around its path) and a shape cast (the
//! box around the whole cast), so keep cells large enough that a body's box, and the box a
//! fast body sweeps in one step, spans fewer than 16 × 16 of them, and cast over terrain in
//! short hops. Split a very large level into several meshes so that each body's box overlaps
//! few of them.
//!
//! The `terrain` example tumbles rocks, crates and balls down a heightfield into a mesh bowl,
//! and `BENCHMARKS.md` has the `convex vs mesh` (Jolt's scene: 1,764 bodies on 20,000
//! triangles) and `terrain` rows beside rapier's `TriMesh` and `HeightField`.
