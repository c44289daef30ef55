//! A scene placed far from the origin runs exactly as the same scene at the origin: the solver
//! works in coordinates relative to a point near the tank (`Scene::origin`), so positions keep
//! their precision, and frames and checkpoints carry the scene's own coordinates.

use glam::Vec3A;
use pbf::solver::Solver;
mod common;

use common::scene_from;

/// A small dam break in a 0.75 x 0.5 x 0.25 m tank whose low corner is at `at` (1,000
/// particles, r = 0.0125; every coordinate a multiple of 2^-13, so moving the tank by whole
/// kilometres is exact).
fn dam_break_at(at: [f32; 3]) -> Solver {
    let p = |x: [f32; 3]| -> String {
        format!("[{}, {}, {}]", at[0] + x[0], at[1] + x[1], at[2] + x[2])
    };
    let text = format!(
        "[tank]\nmin = {}\nmax = {}\n[[fluid]]\nmin = {}\nmax = {}\n\
         [particles]\nradius = 0.0125\n[time]\ndt = 0.002\nend = 1.0\n",
        p([0.0; 3]),
        p([0.75, 0.5, 0.25]),
        p([0.0; 3]),
        p([0.25, 0.25, 0.25]),
    );
    Solver::new(&scene_from(&text, &[])).unwrap()
}

#[test]
fn a_scene_kilometres_from_the_origin_runs_as_it_does_at_the_origin() {
    let far_at = [1024.0, 2048.0, -4096.0];
    let (mut near, mut far) = (dam_break_at([0.0; 3]), dam_break_at(far_at));
    assert_eq!(near.origin(), Vec3A::ZERO);
    assert_eq!(far.origin(), Vec3A::from_array(far_at));
    for _ in 0..150 {
        near.step();
        far.step();
    }
    // The same simulation, bit for bit (at 4 km an f32 position is good to 5e-4 m, 4% of r:
    // simulated there, the collapse would differ from the first steps).
    assert_eq!(far.fluid.x, near.fluid.x);
    assert_eq!(far.fluid.v, near.fluid.v);
    // Frames are in the scene's coordinates.
    let (a, b) = (
        near.fluid.frame(1, near.time, near.origin()),
        far.fluid.frame(1, far.time, far.origin()),
    );
    let o = Vec3A::from_array(far_at);
    assert!(a.points.iter().zip(&b.points).all(|(&p, &q)| p + o == q));
    assert!(b.points.iter().all(|p| (p.x - 1024.0).abs() < 1.0));

    // A checkpoint holds the solver's coordinates with their origin and resumes exactly.
    let saved = far.state();
    assert_eq!(saved.origin, far_at);
    let mut resumed = dam_break_at(far_at);
    resumed.restore(&saved).unwrap();
    // One written before origins existed holds the scene's coordinates, origin 0: they are
    // moved into the solver's (to within the f32 rounding of the scene's coordinates).
    let mut old = saved.clone();
    old.origin = [0.0; 3];
    old.x = saved
        .x
        .iter()
        .map(|p| std::array::from_fn(|a| p[a] + far_at[a]))
        .collect();
    let mut from_old = dam_break_at(far_at);
    from_old.restore(&old).unwrap();
    assert!(
        from_old
            .fluid
            .x
            .iter()
            .zip(&far.fluid.x)
            .all(|(p, q)| (*p - *q).abs().max_element() < 1e-3)
    );
    for _ in 0..20 {
        far.step();
        resumed.step();
    }
    assert_eq!(resumed.fluid.x, far.fluid.x);
}
