//! Building scenery lines, for the examples that draw some: an example declares this module
//! (`#[path = "common/lines.rs"] mod lines;`) beside `common`.

use glam::Vec3;

use crate::common::LineVertex;

/// Appends a line segment (a pair of vertices of a line list).
pub fn segment(out: &mut Vec<LineVertex>, a: Vec3, b: Vec3, colour: [f32; 4]) {
    out.push(LineVertex {
        position: a.to_array(),
        colour,
    });
    out.push(LineVertex {
        position: b.to_array(),
        colour,
    });
}
