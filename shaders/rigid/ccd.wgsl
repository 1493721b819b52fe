// Stage file ccd.wgsl: filled by its stage.
