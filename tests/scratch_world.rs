use std::collections::HashMap;
use wgphys::particles::Backend;
use wgphys::scenes::rigid as scenes;

#[test]
fn scratch_tower() {
    for n in [4u32, 8] {
        let (mut world, boxes) = scenes::tower(Backend::Cpu, n, 0.5).unwrap();
        let mut prev: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
        let (mut matched, mut total) = (0u32, 0u32);
        for _ in 0..600 {
            world.step(1.0 / 60.0).unwrap();
            let ms = world.read_manifolds().unwrap();
            let mut now = HashMap::new();
            for m in &ms {
                if m.count == 0 {
                    continue;
                }
                let f: Vec<u32> = m.features[..m.count as usize].to_vec();
                if let Some(p) = prev.get(&(m.shape_a, m.shape_b)) {
                    for x in &f {
                        total += 1;
                        if p.contains(x) {
                            matched += 1;
                        }
                    }
                }
                now.insert((m.shape_a, m.shape_b), f);
            }
            prev = now;
        }
        let top = world.body(boxes[boxes.len() - 1]).unwrap();
        eprintln!(
            "tower {n}: top at {:?}; features matched {matched}/{total}",
            top.pos
        );
    }
}
