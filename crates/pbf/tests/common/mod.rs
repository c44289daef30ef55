//! What the solver's integration tests share: scenes by name or from text, a run on a given
//! number of threads, the water's weight, the mean forces over a span of steps.

#![allow(dead_code)]

use glam::Vec3A;
use pbf::scene::Scene;
use pbf::solver::Solver;
use std::path::Path;

/// The workspace root: scenes are named as a user names them from there.
pub fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// `configs/<name>.toml`.
pub fn scene(name: &str) -> Scene {
    Scene::load(&root().join(format!("configs/{name}.toml")), &[]).unwrap()
}

/// `configs/<name>.toml` with overrides (`key=value`, as `--set` takes them).
pub fn scene_with(name: &str, sets: &[&str]) -> Scene {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scene::load(&root().join(format!("configs/{name}.toml")), &sets).unwrap()
}

/// A scene from TOML text (written to a temporary file, as a user's would be), with overrides.
pub fn scene_from(text: &str, sets: &[&str]) -> Scene {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scene.toml");
    std::fs::write(&path, text).unwrap();
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scene::load(&path, &sets).unwrap()
}

/// A 0.3 m cube of water (2,744 particles, r = 0.01) at rest in the middle of a 1 m box, zero
/// gravity: nothing touches it but what the fluid does to itself.
pub const ZERO_G_CUBE: &str = r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [1.0, 1.0, 1.0]
[[fluid]]
min = [0.35, 0.35, 0.35]
max = [0.65, 0.65, 0.65]
[particles]
radius = 0.01
[physics]
gravity = [0.0, 0.0, 0.0]
[time]
dt = 0.004
end = 2.0
"#;

/// What `f` gives run on a pool of `threads` threads.
pub fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(f)
}

/// The state (positions, velocities, ids) after `steps` steps of `scene` on `threads` threads.
pub fn state_on_threads(
    scene: &Scene,
    threads: usize,
    steps: usize,
) -> (Vec<Vec3A>, Vec<Vec3A>, Vec<u32>) {
    on_threads(threads, || {
        let mut s = Solver::new(scene).unwrap();
        for _ in 0..steps {
            s.step();
        }
        (s.fluid.x, s.fluid.v, s.fluid.id)
    })
}

/// The impulses `take` gives (`Solver::take_impulse`, ...) after each of the first `steps`
/// steps of `scene` on `threads` threads.
pub fn impulses_on_threads(
    scene: &Scene,
    threads: usize,
    steps: usize,
    take: fn(&mut Solver) -> Vec<glam::DVec3>,
) -> Vec<Vec<glam::DVec3>> {
    on_threads(threads, || {
        let mut s = Solver::new(scene).unwrap();
        (0..steps)
            .map(|_| {
                s.step();
                take(&mut s)
            })
            .collect()
    })
}

/// The weight (N) of `s`'s water under the scenes' default gravity, 9.81 m/s².
pub fn weight(s: &Solver) -> f64 {
    s.fluid.len() as f64 * s.mass() as f64 * 9.81
}

/// The mean force (N) on each body `take` gives the impulses of (`Solver::take_solid_impulse`,
/// `Solver::take_wall_impulse`) over steps `from..to` of `s`, the steps before run first.
pub fn mean_forces(
    s: &mut Solver,
    from: usize,
    to: usize,
    take: fn(&mut Solver) -> Vec<glam::DVec3>,
) -> Vec<glam::DVec3> {
    for _ in 0..from {
        s.step();
    }
    s.take_impulse();
    for _ in from..to {
        s.step();
    }
    let seconds = (to - from) as f64 * s.dt() as f64;
    take(s).into_iter().map(|j| -j / seconds).collect()
}
