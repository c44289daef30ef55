//! Every kind of step advances the simulation the same way: `pbf compare`'s step (two searches,
//! timed) must leave exactly the state `pbf run`'s step leaves, with a nozzle whose layers fall
//! between steps (its guide set per step) and with moving obstacles. (Compare once skipped the
//! nozzle's guide and delivered two thirds of a jet's schedule while run delivered all of it.)

use nsearch::SearchMode;
use pbf::scene::Scene;
use pbf::solver::Solver;
mod common;

use common::{scene, scene_from};

fn same_after_both_steps(scene: &Scene, steps: usize) {
    let mut run = Solver::new(scene).unwrap();
    let mut cmp = Solver::new(scene).unwrap();
    let mut other = cmp.new_search(SearchMode::Unpruned);
    for k in 0..steps {
        run.step();
        let c = cmp.step_compare(&mut other, k % 2 == 1);
        assert_eq!(c.mismatch, None, "{}: step {k}", scene.name);
        assert_eq!(run.fluid.len(), cmp.fluid.len(), "{}: step {k}", scene.name);
    }
    assert_eq!(run.fluid.id, cmp.fluid.id, "{}", scene.name);
    assert_eq!(run.fluid.x, cmp.fluid.x, "{}", scene.name);
    assert_eq!(run.fluid.v, cmp.fluid.v, "{}", scene.name);
}

#[test]
fn compare_steps_leave_the_state_run_steps_leave() {
    // A layer every 25 / 1.5 = 16.7 ms, steps of 2 ms: layers leave between steps.
    let jet = scene_from(
        r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [1.0, 1.0, 1.0]
[particles]
radius = 0.0125
[physics]
gravity = [0.0, 0.0, 0.0]
[time]
dt = 0.002
end = 0.4
[[emitter]]
shape = "rect"
center = [0.3, 0.5, 0.5]
direction = [0.6, -0.3, 0.7]
size = [0.1, 0.1]
speed = 1.5
end = 0.4
"#,
        &[],
    );
    same_after_both_steps(&jet, 200);
    assert!(Solver::new(&jet).unwrap().fluid.is_empty());
    same_after_both_steps(&scene("obstacles_small"), 100);
}
