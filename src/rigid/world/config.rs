//! Checking a [`RigidConfig`] before a world is built: every value a user may pass wrong is
//! refused with the field, the value and the fix.

use super::*;

pub(super) fn validate_config(c: &RigidConfig) -> Result<()> {
    use crate::error::{finite3, non_negative, positive};
    finite3("gravity", c.gravity)?;
    if c.substeps == 0 || c.velocity_iterations == 0 {
        return Err(Error::InvalidInput {
            what: "substeps / velocity_iterations",
            value: format!("{} / {}", c.substeps, c.velocity_iterations),
            fix: "use at least one substep and one velocity iteration",
        });
    }
    if c.block_cells != 0
        && !(c.block_cells.is_power_of_two() && (4..=1024).contains(&c.block_cells))
    {
        return Err(Error::InvalidInput {
            what: "block_cells",
            value: format!("{}", c.block_cells),
            fix: "pass 0 (no blocks, the default) or a power of two from 4 to 1024 (RigidConfig::with_blocks sets 16)",
        });
    }
    if c.block_cells != 0 && c.block_sweeps == 0 {
        return Err(Error::InvalidInput {
            what: "block_sweeps",
            value: "0".into(),
            fix: "pass at least 1 sweep per block and relax round (3 is the default)",
        });
    }
    if !(1..=MAX_COLOURS).contains(&c.colour_slots) {
        return Err(Error::InvalidInput {
            what: "colour_slots",
            value: format!("{}", c.colour_slots),
            fix: "pass 1 to 32 (the wall and box piles use about 10 colours; 8 is the default)",
        });
    }
    positive("contact_hertz", c.contact_hertz)?;
    non_negative("contact_damping_ratio", c.contact_damping_ratio)?;
    positive("max_push_out", c.max_push_out)?;
    // Infinity is the default: the cap (half the substep rate).
    if c.joint_hertz != f32::INFINITY {
        positive("joint_hertz", c.joint_hertz)?;
    }
    non_negative("joint_damping_ratio", c.joint_damping_ratio)?;
    non_negative("restitution_cutoff", c.restitution_cutoff)?;
    non_negative("contact_margin", c.contact_margin)?;
    positive("angular_limit", c.angular_limit)?;
    non_negative("position_slop", c.position_slop)?;
    non_negative("sleep_epsilon", c.sleep_epsilon)?;
    if !(c.position_relax > 0.0 && c.position_relax <= 1.0) {
        return Err(Error::InvalidInput {
            what: "position_relax",
            value: format!("{}", c.position_relax),
            fix: "pass a fraction in (0, 1]",
        });
    }
    if !(c.sleep_base_bias > 0.0 && c.sleep_base_bias < 1.0) {
        return Err(Error::InvalidInput {
            what: "sleep_base_bias",
            value: format!("{}", c.sleep_base_bias),
            fix: "pass a weight in (0, 1); the book suggests 0.5 to 0.8",
        });
    }
    Ok(())
}
