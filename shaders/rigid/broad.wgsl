// Stage file broad.wgsl: filled by its stage.
