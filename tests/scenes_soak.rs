//! The soak's short variant: 1,000 steps of each soak scene (the fireworks show with host
//! spawns and removals, the sand box being poured, the box rain with boxes replaced) on the
//! GPU, sampled after 200 steps and at the end, waiting for the device after each step (see
//! `SoakPlan::paced`). `benches/particles/src/soak.rs` runs 100,000, unpaced.
//!
//! What must hold: no component of any position or velocity is NaN or infinite, the population
//! stays what the scene makes it, and the bytes the device's allocator holds at the end are
//! those it held after the warm-up: every per-step path reuses its buffers (upload ring, status
//! ring, readbacks freed once done). Where the backend gives no allocator report (GL) the byte
//! check has nothing to compare and only the other checks run.

mod common;

use wgphys::scenes::soak::{soak, SoakPlan, SoakScene};
use wgphys::Backend;

#[test]
fn a_thousand_steps_of_each_soak_scene_stay_finite_and_flat() {
    for scene in SoakScene::ALL {
        let name = scene.name();
        let plan = SoakPlan {
            steps: 1_000,
            warmup: 200,
            every: 400,
            paced: true,
        };
        let r = soak(scene, Backend::Gpu(common::gpu()), plan, |_| {})
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        println!("{name}: {r:?}");
        assert_eq!(r.worst_non_finite, 0, "{name}: non-finite state");
        assert!(r.end.population > 0, "{name}: the scene emptied");
        if let (Some(a), Some(b)) = (r.start.gpu_bytes, r.end.gpu_bytes) {
            assert_eq!(
                b, a,
                "{name}: GPU allocator bytes after warm-up vs at the end"
            );
        }
    }
}
