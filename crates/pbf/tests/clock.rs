//! The clock against the times a scene writes: a run to `time.end` takes `end / dt` steps, the
//! simulated time after n steps is `n × dt`, and what is due at a written time (a timed block,
//! a frame) happens at the step that reaches it, whatever the binary rounding of `dt` (0.01,
//! 0.005, 0.02 and 0.0025 read as f32 fall just short of the decimal).

use pbf::run::steps_until;
use pbf::solver::Solver;

mod common;

use common::scene_from;

/// A 0.1 m block at rest in a 0.4 m box and another appearing over it at `start`, on `dt`.
fn scene(dt: &str, end: &str, start: &str) -> pbf::scene::Scene {
    let text = format!(
        r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [0.4, 0.4, 0.4]
[[fluid]]
min = [0.0, 0.0, 0.0]
max = [0.4, 0.1, 0.4]
[[fluid]]
min = [0.1, 0.25, 0.1]
max = [0.2, 0.35, 0.2]
start = {start}
[particles]
radius = 0.0125
[time]
dt = {dt}
end = {end}
"#
    );
    scene_from(&text, &[])
}

#[test]
fn a_run_to_the_end_takes_end_over_dt_steps() {
    for (dt, end, steps) in [
        ("0.01", "2.0", 200),
        ("0.005", "1.0", 200),
        ("0.02", "2.0", 100),
        ("0.0025", "0.1", 40),
        ("0.004", "4.0", 1000),
        ("0.002", "2.0", 1000),
        // Not a whole number of steps: the last step passes the end.
        ("0.003", "0.01", 4),
        ("0.3", "1.0", 4),
    ] {
        assert_eq!(
            steps_until(&scene(dt, end, "0.5"), None),
            steps,
            "dt = {dt}, end = {end}"
        );
    }
    assert_eq!(steps_until(&scene("0.01", "2.0", "0.5"), Some(0.3)), 30);
}

#[test]
fn the_time_after_n_steps_is_n_dt_and_a_block_appears_at_its_start() {
    for dt in ["0.01", "0.005", "0.0025", "0.004"] {
        let scene = scene(dt, "1.0", "0.3");
        let dt: f64 = dt.parse().unwrap();
        let due = (0.3 / dt).round() as u64;
        let mut s = Solver::new(&scene).unwrap();
        let first = s.fluid.len();
        for n in 1..=due + 2 {
            s.step();
            assert!(
                (s.time - n as f64 * dt).abs() < 1e-12,
                "dt = {dt}: after {n} steps t = {}",
                s.time
            );
            // Added after the step that reaches its start, not one later.
            assert_eq!(s.fluid.len() > first, n >= due, "dt = {dt}, step {n}");
        }
    }
}
