//! What `energy.csv` reports, against physics worked out by hand: a block of water in free
//! fall (nothing touched, so only gravity acts on it as a whole) has the potential energy of
//! its centre of mass on the integrator's discrete trajectory, and at least that centre's
//! kinetic energy.

use pbf::solver::Solver;
mod common;

use common::scene_from;

#[test]
fn free_fall_energies_follow_the_discrete_trajectory() {
    // A 0.2 m cube of water 1.5 m above the floor of a tall tank; 25 steps of 4 ms fall 12 cm.
    let scene = scene_from(
        r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [1.0, 2.0, 1.0]
[[fluid]]
min = [0.4, 1.5, 0.4]
max = [0.6, 1.7, 0.6]
[particles]
radius = 0.01
[time]
dt = 0.004
end = 0.1
"#,
        &[],
    );
    let mut s = Solver::new(&scene).unwrap();
    let (g, dt, m) = (9.81f64, 0.004f64, s.mass() as f64);
    let n = s.fluid.len() as f64;
    let y0: f64 = s.fluid.x.iter().map(|p| p.y as f64).sum::<f64>() / n;
    let start = s.measures();
    assert_eq!(start.kinetic, 0.0);
    let rel = |a: f64, b: f64| (a / b - 1.0).abs();
    assert!(rel(start.potential, n * m * g * y0) < 1e-6, "{start:?}");
    assert_eq!(start.particles, 1000); // (0.2 m / 2r)³
    for k in 1..=25u32 {
        s.step();
        let e = s.measures();
        // Symplectic Euler: v_k = g k dt, y_k = y_0 - g dt² k (k + 1) / 2.
        let k = k as f64;
        let v = g * k * dt;
        let y = y0 - g * dt * dt * k * (k + 1.0) / 2.0;
        // The internal pushes (artificial pressure, XSPH, vorticity) are pairwise and cancel:
        // the centre of mass keeps the free-fall trajectory, and the potential with it.
        assert!(rel(e.potential, n * m * g * y) < 1e-5, "step {k}: {e:?}");
        // They do stir the block a little: the kinetic energy is the centre of mass's and a
        // few percent more, never less.
        let rigid = 0.5 * n * m * v * v;
        assert!(
            e.kinetic >= rigid * (1.0 - 1e-4) && e.kinetic < 1.05 * rigid,
            "step {k}: {e:?}, rigid {rigid}"
        );
        assert!(rel(e.speed_mean, v) < 0.02, "step {k}: {e:?}");
        assert!(e.density_error_pct < 0.01, "free water compressed: {e:?}");
    }
}

/// Heights and potential energy are taken from the tank's lowest corner along gravity, whichever
/// way gravity points: with gravity along +x that is the tank's upper x face, and every height
/// is `x_max − x`.
#[test]
fn heights_are_measured_up_from_the_lowest_corner_along_gravity() {
    let scene = scene_from(
        r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [0.4, 0.3, 0.3]
[[fluid]]
min = [0.1, 0.0, 0.0]
max = [0.3, 0.2, 0.2]
[particles]
radius = 0.01
[physics]
gravity = [9.81, 0.0, 0.0]
[time]
dt = 0.004
end = 0.1
"#,
        &[],
    );
    let s = Solver::new(&scene).unwrap();
    let m = s.mass() as f64;
    let heights: Vec<f64> = s.fluid.x.iter().map(|p| 0.4 - p.x as f64).collect();
    let e = s.measures();
    let potential: f64 = heights.iter().map(|h| m * 9.81 * h).sum();
    assert!((e.potential / potential - 1.0).abs() < 1e-6, "{e:?}");
    let top = heights.iter().copied().fold(f64::MIN, f64::max);
    assert!((e.top as f64 - top).abs() < 1e-6, "{e:?}, top {top}");
    assert!(e.top > 0.0 && e.potential > 0.0);
}
