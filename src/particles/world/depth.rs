//! Collision with the renderer's depth buffer (see [`crate::particles::depth`]).

use super::*;
use crate::particles::depth::{check_texture, DepthCollider, DepthSource};

impl ParticleWorld {
    /// Makes the particles in view collide with what the renderer drew: each step, a particle
    /// that has gone behind the depth buffer's surface (by less than `thickness`) is pushed back
    /// onto it and bounces with the collider's restitution and friction, or dies when `kill`
    /// is set. Call it again each frame with the new depth and view-projection (the texture
    /// is read by the steps recorded after the call); `None` turns it off. A GPU world takes
    /// the texture itself ([`DepthSource::Texture`]), a CPU world its values
    /// ([`DepthSource::Image`]).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] naming the field: a texture that is not `Depth32Float`, lacks
    /// `TEXTURE_BINDING` or is multisampled, an image whose size does not match its values,
    /// the wrong source for the backend, a view-projection that cannot be inverted, restitution
    /// outside [0, 1], negative friction, a thickness that is not positive. Nothing changes
    /// then.
    pub fn set_depth_collider(&mut self, collider: Option<DepthCollider>) -> Result<()> {
        let Some(c) = collider else {
            if let Engine::Gpu(g) = &mut self.engine {
                g.set_depth(None);
            }
            self.depth_cpu = None;
            return Ok(());
        };
        let wrong = |fix: &'static str| Error::InvalidInput {
            what: "depth_collider.source",
            value: "a source for the other backend".into(),
            fix,
        };
        match (&mut self.engine, &c.source) {
            (Engine::Gpu(g), DepthSource::Texture(t)) => {
                let record = c.to_gpu(check_texture(t)?)?;
                g.set_depth(Some((t, record)));
                self.mortal |= c.kill;
            }
            (Engine::Cpu(_), DepthSource::Image(image)) => {
                if image.depth.len() as u64 != u64::from(image.width) * u64::from(image.height) {
                    return Err(Error::InvalidInput {
                        what: "depth_collider.source",
                        value: format!(
                            "{} values for {}x{} texels",
                            image.depth.len(),
                            image.width,
                            image.height
                        ),
                        fix: "give width * height depths, row by row from the top",
                    });
                }
                let record = c.to_gpu([image.width, image.height])?;
                self.depth_cpu = Some((record, image.clone()));
                // Particles it kills die in the lifecycle stages.
                self.mortal |= c.kill;
            }
            (Engine::Gpu(_), DepthSource::Image(_)) => {
                return Err(wrong(
                    "give a GPU world the depth texture (DepthSource::Texture)",
                ))
            }
            (Engine::Cpu(_), DepthSource::Texture(_)) => {
                return Err(wrong(
                    "give a CPU world the depth values (DepthSource::Image)",
                ))
            }
        }
        Ok(())
    }
}
