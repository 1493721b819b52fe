use wgphys::particles::{Backend, ParticleWorld};
use wgphys::scenes;

#[test]
fn fireworks_gpu_vs_cpu() {
    let ctx = wgphys::gpu::GpuContext::new().unwrap();
    println!("{}", ctx.describe());
    let mut g = ParticleWorld::new(Backend::Gpu(ctx), scenes::fireworks_config(20000, 3)).unwrap();
    let mut c = ParticleWorld::new(Backend::Cpu, scenes::fireworks_config(20000, 3)).unwrap();
    for s in 0..300 {
        scenes::fireworks_tick(&mut g).unwrap();
        scenes::fireworks_tick(&mut c).unwrap();
        g.step(scenes::DT).unwrap();
        c.step(scenes::DT).unwrap();
        if s % 50 == 49 {
            let gc = g.read_counters().unwrap();
            let cc = c.read_counters().unwrap();
            println!("step {s} gpu {:?}\n        cpu {:?}", gc, cc);
        }
    }
    let a = g.read_snapshot().unwrap();
    let b = c.read_snapshot().unwrap();
    assert_eq!(a.len(), b.len());
    let mut maxd = 0.0f32;
    for i in 0..a.len() {
        maxd = maxd.max((a.pos[i] - b.pos[i]).length());
        assert_eq!(a.life[i].id, b.life[i].id, "id at {i}");
    }
    println!("live {} max pos diff {maxd}", a.len());
}
