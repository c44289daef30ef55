//! The density solve against what it must do (release mode): stay calm with wide kernels
//! (`pbf.omega = "auto"` under-relaxes the Jacobi iterations by the rest lattice's gain), and
//! reach the density error it is asked for (`pbf.max_density_error`), and leave water at rest
//! at rest when nothing acts on it (no gravity, no surface tension).

use pbf::scene::Scene;
use pbf::solver::Solver;
mod common;

use common::{ZERO_G_CUBE, scene_from};

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

/// A 1 m column, 0.2 m square, filling the tank's width (r = 0.01 m), at dt 2 ms.
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
end = 0.6
"#,
        extra,
    )
}

/// Mean density in the bottom 0.1 m of the column, sampled every 10 ms from 0.2 s to 0.6 s
/// (the mean, the least and the largest of the samples), the solves' largest reported error
/// and their iteration range over all the steps.
fn bottom_density(scene: &Scene) -> (f32, f32, f32, f64, u32, u32) {
    let dt = scene.time.dt as f64;
    let (from, to, every) = (
        (0.2 / dt).round() as usize,
        (0.6 / dt).round() as usize,
        (0.01 / dt).round() as usize,
    );
    let mut s = Solver::new(scene).unwrap();
    let (mut worst, mut lo, mut hi) = (0.0f64, u32::MAX, 0u32);
    let mut samples = Vec::new();
    for step in 1..=to {
        let (t, _) = s.step();
        worst = worst.max(t.solve.density_error);
        lo = lo.min(t.solve.iterations);
        hi = hi.max(t.solve.iterations);
        if step >= from && step % every == 0 {
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
    let least = samples.iter().copied().fold(f32::MAX, f32::min);
    let most = samples.iter().copied().fold(f32::MIN, f32::max);
    (mean, least, most, worst, lo, hi)
}

/// Issue 19's density item: with `max_density_error = 0.1` (percent, of the mean excess) the
/// bottom of a 1 m column stays within 0.3% of ρ0 at every sample over 0.2-0.6 s, at dt 2 ms
/// and 1 ms; with the fixed 3 iterations it is 2% dense.
///
/// The default fewest iterations is the count at which the column at rest carries at most 4/5
/// of the error (`Scene::min_iterations`). Below it the control falls into a limit cycle of
/// short solves and solves that run to the maximum: with 5 (this project's default before stop
/// 29) at 1 ms, where the bottom swung between 993 and 1002.5 kg/m³ (999.1 to 1002.1 since the
/// walls carry the pressure gradient, stop 37, against 1000.9 to 1001.3 at the default); with a
/// minimum of 2 (SPlisHSPlasH's) at 2 ms it rang between 998 and 1003.8 before stop 37, and no
/// longer does.
#[test]
fn error_control_reaches_the_density_asked_for() {
    let rho0 = 1000.0;
    let (fixed, _, _, _, lo, hi) = bottom_density(&column(&[]));
    assert_eq!((lo, hi), (3, 3), "a fixed count is the count");
    let within = |x: f32| (x / rho0 - 1.0).abs() < 0.003;
    for dt in ["0.002", "0.001"] {
        let set_dt = format!("time.dt={dt}");
        let scene = column(&["pbf.max_density_error=0.1", &set_dt]);
        let min = scene.min_iterations();
        let (ctl, least, most, worst, lo, hi) = bottom_density(&scene);
        let ringing = if dt == "0.002" { 2 } else { 5 };
        let set_min = format!("pbf.min_iterations={ringing}");
        let below = column(&["pbf.max_density_error=0.1", &set_dt, &set_min]);
        let (_, least_b, most_b, _, lo_b, _) = bottom_density(&below);
        eprintln!(
            "dt {dt}: bottom {fixed} (3 iterations), {ctl} in {least}..{most} (0.1%: {lo}..{hi} \
             iterations, worst {worst}); at least {ringing} iterations: {least_b}..{most_b}"
        );
        // Every solve stops on the error asked for (or at max_iterations, 100).
        assert!(
            worst <= 0.001 || hi == 100,
            "worst {worst} in {hi} iterations"
        );
        assert_eq!(lo, min, "the default minimum is the scene's");
        assert!(min > 5, "a 1 m column at dt {dt} needs more than 5 ({min})");
        assert_eq!(lo_b, ringing, "min_iterations as set");
        assert!(
            within(ctl) && within(least) && within(most),
            "dt {dt}: bottom {ctl} kg/m³ on average, {least} to {most}"
        );
        // Below the minimum the bottom swings (at 1 ms; at 2 ms a minimum of 2 rang only
        // before the walls carried the pressure gradient, stop 37).
        if dt == "0.001" {
            assert!(
                most_b - least_b > 3.0 * (most - least),
                "dt {dt}: at least {ringing} iterations swings {least_b} to {most_b}, no more \
                 than the default minimum's {least} to {most}: test not sensitive"
            );
        }
        assert!(
            below
                .warnings()
                .iter()
                .any(|w| w.contains("min_iterations")),
            "no warning for a minimum of {ringing} at dt {dt}"
        );
        assert!(scene.warnings().is_empty(), "{:?}", scene.warnings());
        assert!(
            fixed > most,
            "3 iterations ({fixed}) as dense as the controlled solve ({most})?"
        );
    }
}

/// [`ZERO_G_CUBE`] (surface tension off) with the kernel pair `kernel`: (fastest particle,
/// lowest densest-particle density) over 1 s.
fn block_in_zero_gravity(kernel: &str) -> (f32, f32) {
    let scene = scene_from(ZERO_G_CUBE, &[&format!("pbf.kernel=\"{kernel}\"")]);
    let mut s = Solver::new(&scene).unwrap();
    let (mut vmax, mut densest) = (0.0f32, f32::INFINITY);
    for _ in 0..250 {
        s.step();
        let m = s.measures();
        vmax = vmax.max(m.speed_max);
        densest = densest.min(m.density_max);
    }
    (vmax, densest)
}

#[test]
fn a_block_at_rest_in_zero_gravity_stays_at_rest() {
    // Nothing acts on it: it sits at its rest density, and the one-sided constraint has no
    // pressure to give. Before the artificial pressure was bounded by the pair's own pressure
    // (`Correction::bounded`), s_corr pushed its surface out unanswered and the block
    // evaporated (the default pair: 0.105 m/s, the densest particle down to 383 kg/m³ in 1 s).
    for kernel in ["poly6_spiky", "cubic_spline", "wendland_c2"] {
        let (vmax, densest) = block_in_zero_gravity(kernel);
        eprintln!("{kernel}: fastest {vmax} m/s, densest particle down to {densest} kg/m³");
        assert!(vmax < 1e-3, "{kernel}: fastest particle {vmax} m/s");
        assert!(
            densest > 995.0,
            "{kernel}: densest particle {densest} kg/m³"
        );
    }
}
