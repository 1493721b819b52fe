// Stage file narrow.wgsl: filled by its stage.
