//! Filled by its stage.
