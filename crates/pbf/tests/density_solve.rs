//! The density solve against what it must do (release mode): stay calm with wide kernels
//! (`pbf.omega = "auto"` under-relaxes the Jacobi iterations by the rest lattice's gain), and
//! reach the density error it is asked for (`pbf.max_density_error`).

use pbf::scene::Scene;
use pbf::solver::Solver;
mod common;

use common::scene_from;

/// A 0.4 x 0.8 x 0.4 m block of water at rest in a tank as wide, r = 0.01 m (16,000
/// particles, 40 layers), h = 5.4 r as in the AABB paper's scenes (about 80 neighbors).
fn deep_wide_kernel(extra: &[&str]) -> Scene {
    scene_from(
        r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [0.4, 1.0, 0.4]
[[fluid]]
min = [0.0, 0.0, 0.0]
max = [0.4, 0.8, 0.4]
[particles]
radius = 0.01
kernel_radius = 0.054
[time]
dt = 0.002
end = 0.4
"#,
        extra,
    )
}

/// The fastest particle over `steps` steps.
fn fastest(scene: &Scene, steps: usize) -> f32 {
    let mut s = Solver::new(scene).unwrap();
    let mut vmax = 0.0f32;
    for _ in 0..steps {
        s.step();
        vmax = vmax.max(s.measures().speed_max);
    }
    vmax
}

#[test]
fn water_at_rest_stays_calm_with_a_wide_kernel() {
    // Settling from the lattice: about the free-fall speed over a layer or two (sqrt(2 g 4r)
    // = 0.9 m/s). Before ω (Jacobi with ω = 1 overshoots a pattern 5.1-fold at 5.4 r), the
    // same water threw particles at 29 m/s within 0.2 s.
    let scene = deep_wide_kernel(&[]);
    let w = scene.omega();
    assert!((w - 1.5 / 5.118).abs() < 0.01, "omega {w}");
    let calm = fastest(&scene, 200);
    let plain = fastest(&deep_wide_kernel(&["pbf.omega=1"]), 200);
    eprintln!("fastest: {calm} m/s (auto), {plain} m/s (omega = 1)");
    assert!(calm < 2.0, "fastest particle {calm} m/s in water at rest");
    assert!(
        plain > 3.0 * calm,
        "omega = 1 calm too ({plain} m/s)? test not sensitive"
    );
}

/// A 1 m column, 0.2 m square, filling the tank's width (r = 0.01 m).
fn column(extra: &[&str]) -> Scene {
    scene_from(
        r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [0.2, 1.2, 0.2]
[[fluid]]
min = [0.0, 0.0, 0.0]
max = [0.2, 1.0, 0.2]
[particles]
radius = 0.01
[time]
dt = 0.002
end = 0.5
"#,
        extra,
    )
}

/// Mean density in the bottom 0.1 m of the column, sampled every 5 steps from `from` to `to`
/// (the mean and the largest of the samples), the solves' largest reported error and their
/// iteration range over all `to` steps.
fn bottom_density(scene: &Scene, from: usize, to: usize) -> (f32, f32, f64, u32, u32) {
    let mut s = Solver::new(scene).unwrap();
    let (mut worst, mut lo, mut hi) = (0.0f64, u32::MAX, 0u32);
    let mut samples = Vec::new();
    for step in 1..=to {
        let (t, _) = s.step();
        worst = worst.max(t.solve.density_error);
        lo = lo.min(t.solve.iterations);
        hi = hi.max(t.solve.iterations);
        if step >= from && step % 5 == 0 {
            let (mut sum, mut k) = (0.0f32, 0);
            for (x, &rho) in s.fluid.x.iter().zip(&s.fluid.density) {
                if x.y < 0.1 {
                    sum += rho;
                    k += 1;
                }
            }
            samples.push(sum / k as f32);
        }
    }
    let mean = samples.iter().sum::<f32>() / samples.len() as f32;
    let most = samples.iter().copied().fold(f32::MIN, f32::max);
    (mean, most, worst, lo, hi)
}

/// Issue 19's density item: with `max_density_error = 0.1` (percent, of the mean excess) the
/// bottom of a 1 m column stays within 0.3% of ρ0, sampled every 5 steps over 0.2-0.6 s; with
/// the fixed 3 iterations it is 2% dense. With `min_iterations = 2` (SPlisHSPlasH's and, before
/// stop 27, this project's default) the control falls into a limit cycle of short and long
/// solves and the bottom swings to 0.35%: the default is 5 for that reason.
#[test]
fn error_control_reaches_the_density_asked_for() {
    let rho0 = 1000.0;
    let (fixed, _, _, lo, hi) = bottom_density(&column(&[]), 100, 300);
    assert_eq!((lo, hi), (3, 3), "a fixed count is the count");
    let (ctl, most, worst, lo, hi) =
        bottom_density(&column(&["pbf.max_density_error=0.1"]), 100, 300);
    let (_, most2, _, lo2, _) = bottom_density(
        &column(&["pbf.max_density_error=0.1", "pbf.min_iterations=2"]),
        100,
        300,
    );
    eprintln!(
        "bottom: {fixed} (3 iterations), {ctl}, at most {most} (0.1%: {lo}..{hi} iterations, \
         worst {worst}); at least 2 iterations: at most {most2}"
    );
    // Every solve stops on the error asked for (or at max_iterations, 100).
    assert!(
        worst <= 0.001 || hi == 100,
        "worst {worst} in {hi} iterations"
    );
    assert_eq!((lo, lo2), (5, 2), "min_iterations: 5 by default, or as set");
    assert!(
        (ctl / rho0 - 1.0).abs() < 0.003,
        "bottom at {ctl} kg/m³ on average"
    );
    assert!(
        (most / rho0 - 1.0).abs() < 0.003,
        "bottom at {most} kg/m³ at most"
    );
    assert!(
        fixed > most,
        "3 iterations ({fixed}) as dense as the controlled solve ({most})?"
    );
}
