//! What a run reports: one [`Row`] per engine and scene, the engine-neutral [`State`] of the
//! bodies and the stability figure taken from it, and the table the rows print as.

use std::fmt::Write as _;

use wgphys::scenes::joints::RagdollRain;

use crate::joints::{grid_side, Link};
use crate::Scene;

/// One engine's result on one scene.
pub(crate) struct Row {
    pub(crate) scene: Scene,
    pub(crate) bodies: usize,
    pub(crate) engine: String,
    pub(crate) steps: usize,
    pub(crate) timed: usize,
    pub(crate) ms: f64,
    pub(crate) stability: String,
    pub(crate) awake: String,
    pub(crate) dispatches: String,
    /// Host ms to record and submit one step (median), GPU rows only.
    pub(crate) host_ms: String,
    /// GPU ms per step from timestamp queries (median), per phase, GPU rows where the adapter
    /// has timestamps.
    pub(crate) gpu_ms: String,
    pub(crate) colours: String,
}

/// Where the dynamic bodies are and how fast they move, engine-neutral.
#[derive(Clone, Copy)]
pub(crate) struct State {
    pub(crate) pos: [f32; 3],
    pub(crate) speed: f32,
}

/// The stability figure of the scene of `size` from the state at t = 1 s (if reached) and at
/// the end.
pub(crate) fn stability(
    scene: Scene,
    size: u32,
    settled: Option<&[State]>,
    end: &[State],
) -> String {
    let vmax = end.iter().map(|s| s.speed).fold(0.0f32, f32::max);
    match scene {
        Scene::Pyramid => match settled {
            Some(s) => {
                let drifts: Vec<f64> = s
                    .iter()
                    .zip(end)
                    .map(|(a, b)| {
                        let d = [
                            a.pos[0] - b.pos[0],
                            a.pos[1] - b.pos[1],
                            a.pos[2] - b.pos[2],
                        ];
                        f64::from((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt())
                    })
                    .collect();
                let max = drifts.iter().copied().fold(0.0, f64::max);
                let moved = drifts.iter().filter(|&&d| d > 0.01).count();
                format!(
                    "max drift {:.1} mm, median {:.2} mm, {moved} moved > 1 cm",
                    max * 1e3,
                    median(drifts) * 1e3
                )
            }
            None => "– (run shorter than 1 s)".into(),
        },
        Scene::Rain
        | Scene::RagdollRain
        | Scene::ConvexPile
        | Scene::Fleet
        | Scene::ConvexVsMesh
        | Scene::Terrain => {
            let mean_y = end.iter().map(|s| s.pos[1]).sum::<f32>() / end.len().max(1) as f32;
            format!("max speed {vmax:.3} m/s, mean height {mean_y:.2} m")
        }
        Scene::JointGrid => {
            // The bottom row is built at y = −(n − 1).
            let rest = -((grid_side(size) - 1) as f32);
            let low = end.iter().map(|s| s.pos[1]).fold(f32::INFINITY, f32::min);
            format!(
                "bottom row {:.1} mm below its place, max speed {vmax:.3} m/s",
                (rest - low) * 1e3
            )
        }
    }
}

/// The jointed scenes' figures after the stability: the worst gap of a joint (`gap`, m) and
/// the rain's drops after the first; nothing for a scene without joints.
pub(crate) fn joint_figures(links: &[Link], gap: f32, rain: Option<&RagdollRain>) -> String {
    if links.is_empty() {
        return String::new();
    }
    let mut s = format!(", worst joint gap {:.2} mm", gap * 1e3);
    if let Some(rain) = rain {
        let _ = write!(s, ", {} dropped again", rain.recycled);
    }
    s
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

pub(crate) fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| scene | bodies | engine / backend | steps (timed) | ms/step (median) | bodies·steps/s | \
         stability | awake at end | dispatches/step | host ms/step (record + submit) | \
         GPU ms/step (timestamps) | colours |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let rate = r.bodies as f64 / (r.ms / 1e3);
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} ({}) | {:.2} | {:.3e} | {} | {} | {} | {} | {} | {} |",
            r.scene.name(),
            r.bodies,
            r.engine,
            r.steps,
            r.timed,
            r.ms,
            rate,
            r.stability,
            r.awake,
            r.dispatches,
            r.host_ms,
            r.gpu_ms,
            r.colours
        );
    }
    s
}
