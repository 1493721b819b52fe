// Stage file solve.wgsl: filled by its stage.
