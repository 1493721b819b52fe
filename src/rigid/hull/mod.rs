//! Convex hulls: cooking on the host, and the CPU twins of the hull narrow phase.
//!
//! A hull is cooked once on the host ([`convex_hull`] by quickhull, or [`convex_mesh`] for a
//! polyhedron made elsewhere), checked there, and copied into the one shared array of `vec4`
//! words of a [`HullStore`] (the `hulls` storage buffer); a shape names its hull by the word
//! index of the hull's header, which [`HullWords::hull`] decodes into a [`HullRef`] of ranges
//! (DESIGN.md, "Shapes are data"). The GPU only reads those words. Users meet hulls through
//! `Collider::convex_hull` and `Collider::convex_mesh` (`rigid::model`), which cook them, and
//! the world, which stores each distinct hull once. Every routine that runs per pair (support
//! functions, GJK, EPA, SAT and face clipping, conservative advancement) is written so that it
//! ports line for line to WGSL: no recursion, no heap, fixed-size local arrays whose bounds are
//! stated next to them, index loops with fixed maximum trip counts, and data read from the store
//! by index ranges through accessors that never panic (u32 offsets wrap as in WGSL; an index
//! past the end reads zero, one of the values WGSL's robust buffer access may return). Their
//! WGSL twins are `shaders/rigid/hull/` (`hull.wgsl` the accessors and support functions,
//! `gjk.wgsl`, `epa.wgsl`, `sat.wgsl`, `manifold.wgsl`, `ca.wgsl`), same functions in the same
//! operation order with an `hull_` / `gjk_` / ... prefix.
//!
//! Files, one concept each:
//!
//! | file | what | source of the algorithm |
//! |---|---|---|
//! | `layout.rs` | [`Hull`] (host), [`GpuHullHeader`], [`HullRef`], [`HullFace`], [`HullEdge`], [`HullStore`], [`HullWords`]; the limits | PhysX GPU limits (64 vertices, 64 faces), Bullet3 OpenCL / nexus range layouts |
//! | `quickhull.rs` | [`convex_hull`], [`convex_hull_with`] and [`HullOptions::simplify_to`] | quickhull (Barber, Dobkin, Huhdanpaa 1996), catalogue 001-A |
//! | `faces.rs` | triangles → merged convex polygon faces, edges, bounds | coplanar-face merging as in Box3D / Gregorius |
//! | `mesh.rs` | [`convex_mesh`] and the checks every cooked hull passes | — |
//! | `mass.rs` | [`mass_properties`]: volume, centre of mass, inertia | tetrahedral decomposition (covariance of the canonical tetrahedron) |
//! | `support.rs` | [`Frame`], [`ConvexShape`] and support functions | catalogue 001-A (support mappings) |
//! | `gjk.rs` | [`gjk()`] distance, closest points, normal | GJK (Gilbert, Johnson, Keerthi 1988; van den Bergen 1999), Voronoi-region sub-simplex solvers (Ericson 2005) |
//! | `epa.rs` | [`epa()`] penetration depth and normal | EPA (van den Bergen 2001), catalogue 001-A |
//! | `sat.rs` | [`hull_sat`] and [`hull_queries`]: face and edge axes with Gauss-map pruning | SAT (catalogue 001-A, book §10), Gregorius GDC 2013 |
//! | `manifold.rs` | [`hull_hull`]: reference/incident face clipping, 4-point reduction, feature ids | book §10, the engine's box–box |
//! | `ca.rs` | [`time_of_impact`] by conservative advancement; [`sweep_toi`], the `ccd` stage's sweep | catalogue 001-A (Mirtich; Coumans) |
//!
//! Conventions are the engine's narrow phase (`src/rigid/narrow/mod.rs`): a manifold's normal points
//! from shape b to shape a (it pushes a out); penetration is positive when overlapping; contacts
//! are made while the separation is below the contact margin; each contact point lies halfway
//! between the two surfaces; feature ids name geometry so warm starting matches points from
//! frame to frame; near-ties keep the earlier candidate unless the later one wins by a
//! rounding-sized margin ([`beats`]).
//!
//! Limits (see `layout.rs`): 64 vertices and 64 faces per hull (PhysX's GPU limit), faces of at
//! most 32 vertices; hence at most 126 edges (Euler) and 252 face-loop indices. A round hull
//! (triangulated everywhere) reaches the face limit first: F = 2V − 4 ≤ 64 allows 34 vertices,
//! which is what [`HullOptions::simplify_to`] then keeps.
//!
//! Why shaped so: the per-pair routines are the CPU twins of WGSL kernels, so they take the
//! store and [`HullRef`]s rather than a [`Hull`], build no intermediate buffers, and break
//! near-ties the same way on both sides. Cooking is host-only and free to use f64, hash maps
//! and retries: it checks every hull it returns (planar convex faces, every vertex and input
//! point behind every plane, V − E + F = 2, within [`Hull::tolerance`]) so the GPU never sees a
//! malformed one.
//!
//! Fitting into the engine: [`Frame`] is the engine's pose with the quaternion already turned
//! into a matrix (`quat_to_mat3`); [`HullManifold`] holds the `normal`, `points`, `features`
//! and `count` fields of `GpuManifold`; a box shape collides with a hull as the store's unit
//! cube scaled by its half extents ([`HullRef::cuboid`]). The narrow phase's hull pairs are
//! `narrow/hull.rs`, the `ccd` stage's sweeps of boxes, capsules and hulls [`sweep_toi`].

pub mod ca;
mod collider;
pub mod epa;
mod faces;
pub mod gjk;
pub mod layout;
pub mod manifold;
pub mod mass;
pub mod mesh;
pub mod quickhull;
pub mod sat;
pub mod support;
mod unstore;

pub use ca::{
    integrator_turn, quat_from_rotation, sweep_frame, sweep_toi, time_of_impact, Impact, Sweep,
    SweepTarget, TimeOfImpact,
};
pub use epa::{epa, penetration, EpaOutput};
pub use gjk::{gjk, GjkOutput, Simplex};
pub use layout::{
    GpuHullHeader, Hull, HullEdge, HullFace, HullRef, HullStore, HullWords, HULL_HEADER_WORDS,
    MAX_FACE_VERTICES, MAX_HULL_EDGES, MAX_HULL_FACES, MAX_HULL_INDICES, MAX_HULL_VERTICES,
    MAX_HULL_WORD, UNIT_CUBE,
};
pub use manifold::{hull_hull, HullManifold, FEATURE_EDGE, FEATURE_REF_B};
pub use mass::{mass_properties, MassProperties};
pub use mesh::convex_mesh;
pub use quickhull::{convex_hull, convex_hull_with, HullOptions};
pub use sat::{hull_queries, hull_sat, EdgeQuery, FaceQuery, HullSat};
pub use support::{hull_support, ConvexShape, Frame};

/// Whether `x` is larger than `best` by more than a rounding-sized margin,
/// 1e-5·(1 + |best|), the engine's near-tie rule (`narrow/mod.rs`): exact geometric ties (parallel
/// faces, equal depths) keep the earlier candidate on both CPU and GPU and from frame to frame,
/// whichever way rounding falls.
pub fn beats(x: f32, best: f32) -> bool {
    x > best + 1e-5 * (1.0 + best.abs())
}
