//! The particle step walks its stage list (`particles::step`) on both backends: for a world
//! that uses every stage, the stages the CPU twin ran and the ones the GPU recorded are the same
//! sequence, in `ALL`'s order, step after step, and a world that needs only the integrator runs
//! only it.

mod common;

use glam::Vec3;
use wgphys::colliders::ParticleCollider;
use wgphys::fields::ForceField;
use wgphys::particles::{
    Emitter, Particle, ParticleStage, ParticleStep, ParticleWorld, ViewSort, WorldConfig,
};
use wgphys::Backend;

const DT: f32 = 1.0 / 60.0;

fn particle_world(backend: Backend, full: bool) -> ParticleWorld {
    let mut w = ParticleWorld::new(
        backend,
        WorldConfig {
            capacity: 1024,
            fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
            colliders: vec![ParticleCollider::ground(0.3, 0.5)],
            trail_length: if full { 4 } else { 0 },
            ..WorldConfig::default()
        },
    )
    .expect("world");
    if full {
        w.add_emitter(Emitter::default()).expect("emitter");
        w.set_view_sort(Some(ViewSort {
            eye: Vec3::new(0.0, 2.0, 8.0),
            forward: Vec3::new(0.0, 0.0, -1.0),
        }))
        .expect("view sort");
        w.launch(1).expect("firework");
    } else {
        for i in 0..10 {
            w.spawn(Particle::new(Vec3::new(i as f32, 2.0, 0.0)))
                .expect("particle");
        }
    }
    w
}

#[test]
fn both_particle_backends_run_the_stage_list_in_order() {
    let full = ParticleStep {
        lifecycle: true,
        emitted: true,
        trails: true,
        view_sort: true,
        bounds: true,
        rigid: true,
        rigid_cells: true,
    };
    // The grid's two stages and the brute-force contacts are the two ways of one contact
    // stage: a step runs one of them, every other stage in the order of ALL.
    let without = |skip: &[ParticleStage]| -> Vec<ParticleStage> {
        ParticleStage::ALL
            .into_iter()
            .filter(|s| !skip.contains(s))
            .collect()
    };
    assert_eq!(full.sequence(), without(&[ParticleStage::RigidContacts]));
    let brute = ParticleStep {
        rigid_cells: false,
        ..full
    };
    assert_eq!(
        brute.sequence(),
        without(&[ParticleStage::RigidCells, ParticleStage::RigidContactsCells])
    );
    let mut g = particle_world(Backend::Gpu(common::shared_gpu()), true);
    let mut c = particle_world(Backend::Cpu, true);
    for s in 0..4 {
        g.step(DT).expect("gpu step");
        c.step(DT).expect("cpu step");
        assert_eq!(g.last_stages(), c.last_stages(), "step {s}");
        let ran = c.last_stages();
        assert!(
            ran.windows(2).all(|w| {
                let at = |x| ParticleStage::ALL.iter().position(|&s| s == x);
                at(w[0]) < at(w[1])
            }),
            "step {s}: out of order: {ran:?}"
        );
        assert!(ran.contains(&ParticleStage::TrailPush) && ran.contains(&ParticleStage::ViewSort));
    }
    // Spawned before the first step and immortal, the plain particles need the lifecycle only
    // for that step's spawns; afterwards a step is the integrator alone.
    let mut g = particle_world(Backend::Gpu(common::shared_gpu()), false);
    let mut c = particle_world(Backend::Cpu, false);
    for _ in 0..3 {
        g.step(DT).expect("gpu step");
        c.step(DT).expect("cpu step");
    }
    assert_eq!(c.last_stages(), [ParticleStage::Integrate]);
    assert_eq!(g.last_stages(), c.last_stages());
}
