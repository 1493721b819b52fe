//! The fleet on a wavy sea (`wgphys::scenes::sailing::fleet`): catamarans with two
//! aerodynamic surfaces and four buoyancy points each, built straight on the backend measured.
//! wgphys only: rapier has no force generators to mirror them with.

use wgphys::rigid::RigidWorld;
use wgphys::scenes::rigid as scenes;
use wgphys::scenes::sailing::fleet;
use wgphys::Backend;

use crate::args::Tuning;
use crate::run_wgphys::{tuned, Built, PAIRS_PER_BODY};
use crate::Res;

/// `size` catamarans (6 generators each) on `backend`.
pub(crate) fn build_fleet(size: u32, backend: Backend, tuning: Tuning) -> Res<Built> {
    let mut config = scenes::config(size);
    config.pair_capacity = PAIRS_PER_BODY * config.body_capacity;
    config.generator_capacity = 6 * size;
    let mut world = RigidWorld::new(backend, tuned(config, tuning))?;
    let f = fleet(&mut world, size)?;
    let slots = f.boats.iter().map(|b| b.body.index() as usize).collect();
    Ok(Built {
        world,
        slots,
        links: Vec::new(),
        rain: None,
        fleet: Some(f),
    })
}
