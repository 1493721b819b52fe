//! The aggregate step walks its stage list (`aggregate::step`) on both backends: for a world
//! that uses every stage (a grid, colliders, links), the stages the CPU twin ran and the ones
//! the GPU recorded are the same sequence, `AggStage::ALL`, step after step.

mod common;

use glam::{Vec3, Vec4};
use wgphys::aggregate::{
    AggStage, AggStep, AggregateConfig, AggregateWorld, Collisions, Link, ParticleId,
};
use wgphys::colliders::ParticleCollider;
use wgphys::fields::ForceField;
use wgphys::particles::Particle;
use wgphys::Backend;

const DT: f32 = 1.0 / 60.0;

fn aggregate_world(backend: Backend) -> (AggregateWorld, Vec<ParticleId>) {
    let mut w = AggregateWorld::new(
        backend,
        AggregateConfig {
            capacity: 64,
            fields: vec![ForceField::Gravity(Vec3::new(0.0, -9.81, 0.0))],
            colliders: vec![ParticleCollider::ground(0.5, 0.3)],
            collisions: Some(Collisions {
                cell_size: 0.2,
                table_size: 256,
                ..Default::default()
            }),
            ..Default::default()
        },
    )
    .expect("world");
    let ps: Vec<Particle> = (0..8)
        .map(|i| {
            Particle::new(Vec3::new(0.15 * i as f32, 0.5, 0.0))
                .with_size(0.05)
                .with_colour(Vec4::ONE)
        })
        .collect();
    let ids = w.add_particles(&ps).expect("particles");
    w.add_link(Link::Rod {
        a: ids[0],
        b: ids[1],
        length: 0.15,
    })
    .expect("rod");
    (w, ids)
}

#[test]
fn both_aggregate_backends_run_the_stage_list_in_order() {
    let full = AggStep {
        collide: true,
        gridded: true,
        links: true,
    };
    assert_eq!(full.sequence(), AggStage::ALL.to_vec());
    let (mut g, _) = aggregate_world(Backend::Gpu(common::shared_gpu()));
    let (mut c, _) = aggregate_world(Backend::Cpu);
    for s in 0..3 {
        g.step(DT).expect("gpu step");
        c.step(DT).expect("cpu step");
        assert_eq!(g.last_stages(), c.last_stages(), "step {s}");
        assert_eq!(c.last_stages(), AggStage::ALL, "step {s}");
    }
}
