//! The small versions of the paper's scenes (`configs/paper_*_small.toml`: the full-scale
//! layouts at 4x the particle radius), run as the full ones are: every particle finite, inside
//! the tank and never within r/2 of an obstacle, ids dense and unique, the inflow never above its
//! schedule and the jets exactly on theirs (nozzle area × speed / (2r)³ per second: their nozzles
//! stay free), and the same bits on 1 and 2 threads.

use glam::Vec3A;
use pbf::solver::Solver;
mod common;

use common::{scene, scene_with, state_on_threads};

/// Run `steps` steps of `name`, checking every step; returns the final state.
fn run_checked(name: &str, steps: usize) -> (Vec<Vec3A>, Vec<Vec3A>, Vec<u32>) {
    let sc = scene(name);
    let r = sc.particles.radius;
    let (lo, hi) = (
        Vec3A::from_array(sc.tank.min),
        Vec3A::from_array(sc.tank.max),
    );
    let most = sc.sample_fluid().len() + pbf::scene::build::inflow(&sc).map_or(0, |i| i.most());
    let mut s = Solver::new(&sc).unwrap();
    for _ in 0..steps {
        s.step();
        let t = s.time;
        let placed: Vec<_> = sc.obstacle.iter().map(|o| o.placed_at(t)).collect();
        for (k, &p) in s.fluid.x.iter().enumerate() {
            assert!(p.is_finite(), "{name}: particle {k} not finite at t = {t}");
            assert!(
                p.cmpge(lo).all() && p.cmple(hi).all(),
                "{name}: particle {k} at {p} left the tank at t = {t}"
            );
            for (o, obstacle) in placed.iter().enumerate() {
                let d = obstacle.distance(p);
                assert!(
                    d >= 0.5 * r,
                    "{name}: particle {k} {d} m from obstacle {o} at t = {t} (r = {r})"
                );
            }
        }
        assert!(
            s.fluid.len() <= most,
            "{name}: more particles than the schedule allows"
        );
        if sc.fluid.is_empty() {
            // A jet scene: a layer of the nozzle's sites every pitch / speed from its start
            // (the jet's volume flux against area × speed: tests/inflow.rs).
            let due: usize = sc
                .emitter
                .iter()
                .map(|e| {
                    let period = e.pitch(sc.spacing()) as f64 / e.speed as f64;
                    let open = t.min(e.closes(sc.time.end) as f64) - e.start as f64;
                    let layers = if open < -1e-9 {
                        0
                    } else {
                        (open / period + 1e-9).floor() as usize + 1
                    };
                    layers * e.sites(sc.spacing()).len()
                })
                .sum();
            assert_eq!(s.fluid.len(), due, "{name}: t = {t:.3}");
        }
    }
    let mut ids = s.fluid.id.clone();
    ids.sort_unstable();
    assert!(
        ids.iter().enumerate().all(|(k, &id)| id as usize == k),
        "{name}: ids"
    );
    (s.fluid.x, s.fluid.v, s.fluid.id)
}

#[test]
fn the_small_paper_scenes_stay_sound() {
    // 1.2 s each: chunks dropped and landed, plates and cylinders under their jets, two wall
    // strokes.
    for name in [
        "paper_2_chunks_small",
        "paper_3_plates_small",
        "paper_4_wave_small",
        "paper_5_cylinders_small",
    ] {
        run_checked(name, 300);
    }
}

#[test]
fn the_small_paper_scenes_give_the_same_bits_on_1_and_2_threads() {
    for name in [
        "paper_2_chunks_small",
        "paper_3_plates_small",
        "paper_4_wave_small",
        "paper_5_cylinders_small",
    ] {
        let sc = scene(name);
        assert!(
            state_on_threads(&sc, 1, 150) == state_on_threads(&sc, 2, 150),
            "{name}: 1 and 2 threads differ"
        );
    }
}

/// The other pairs of kernels (`pbf.kernel = "cubic_spline"`, `"wendland_c2"`) keep every
/// pass a gather: the same bits on 1 and 2 threads, with an emitter and solids (cylinders) and
/// a moving paddle (wave).
#[test]
fn the_other_kernels_give_the_same_bits_on_1_and_2_threads() {
    for (name, kernel) in [
        ("paper_4_wave_small", "cubic_spline"),
        ("paper_5_cylinders_small", "cubic_spline"),
        ("paper_5_cylinders_small", "wendland_c2"),
    ] {
        let sc = scene_with(name, &[&format!("pbf.kernel={kernel}")]);
        assert!(
            state_on_threads(&sc, 1, 150) == state_on_threads(&sc, 2, 150),
            "{name}, {kernel}: 1 and 2 threads differ"
        );
    }
}
