use wgphys::particles::Backend;
use wgphys::scenes::aggregate as sc;

fn ctx() -> wgphys::gpu::GpuContext {
    wgphys::gpu::GpuContext::new().unwrap()
}

#[test]
fn bridge_parity() {
    let mut g = sc::bridge(Backend::Gpu(ctx())).unwrap();
    let mut c = sc::bridge(Backend::Cpu).unwrap();
    for _ in 0..300 {
        g.world.step(1.0 / 60.0).unwrap();
        c.world.step(1.0 / 60.0).unwrap();
    }
    let a = g.world.read_snapshot().unwrap();
    let b = c.world.read_snapshot().unwrap();
    let mut m = 0.0f32;
    for i in 0..a.pos.len() {
        m = m.max((a.pos[i] - b.pos[i]).length());
    }
    println!(
        "bridge colours {} dispatches {} max diff {m} y0 {:?}",
        g.world.link_colours(),
        g.world.last_dispatches(),
        b.pos[0]
    );
}

#[test]
fn cradle() {
    for backend in [Backend::Cpu] {
        let mut w = sc::cradle(backend, 5, 0.5, 1.0).unwrap();
        for _ in 0..120 {
            w.step(1.0 / 60.0).unwrap();
        }
        let s = w.read_snapshot().unwrap();
        println!(
            "cradle v {:?}",
            s.vel.iter().map(|v| v.x).collect::<Vec<_>>()
        );
    }
}

#[test]
fn sand_small() {
    let r = 0.05;
    for backend in [Backend::Cpu] {
        let mut w = sc::sand(backend, 4000, r).unwrap();
        let t = std::time::Instant::now();
        for s in 0..400 {
            if w.len() < 4000 {
                sc::sand_pour(&mut w, 100, r, s).unwrap();
            }
            w.step(1.0 / 60.0).unwrap();
        }
        let snap = w.read_snapshot().unwrap();
        let ke: f32 = snap
            .vel
            .iter()
            .map(|v| 0.5 * v.truncate().length_squared())
            .sum();
        let maxy = snap.pos.iter().map(|p| p.y).fold(f32::MIN, f32::max);
        let miny = snap.pos.iter().map(|p| p.y).fold(f32::MAX, f32::min);
        println!(
            "sand n {} ke {ke} y {miny}..{maxy} in {:?}",
            snap.pos.len(),
            t.elapsed()
        );
    }
}
