//! The solver against physics it must respect (release mode: `cargo test --release`): a settled
//! column at rest density away from the free surface and along the walls, the small dam break's
//! front, containment, finiteness, particle conservation, no pile-up in corners, a tank
//! sloshing at the period of linear theory, walls that do no work on water at rest, and a
//! sluice gate discharging what the textbook says, and two blocks colliding in zero gravity
//! with their momentum kept.

use glam::Vec3A;
use pbf::scene::Scene;
use pbf::solver::Solver;
mod common;

use common::{root, scene, scene_from};

fn column(extra: &[&str]) -> Scene {
    scene_from(
        r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [0.5, 1.0, 0.5]
[[fluid]]
min = [0.0, 0.0, 0.0]
max = [0.5, 0.4, 0.5]
[particles]
radius = 0.025
[time]
dt = 0.004
end = 2.0
"#,
        extra,
    )
}

/// Mean density of particles at least `h` below the free surface, and of those also within `h`
/// of a side wall or the floor.
fn settled_densities(s: &Solver, scene: &Scene) -> (f32, f32, usize, usize) {
    let h = scene.kernel_radius();
    let top = s.fluid.x.iter().map(|p| p.y).fold(f32::MIN, f32::max);
    let (tmin, tmax) = (
        Vec3A::from_array(scene.tank.min),
        Vec3A::from_array(scene.tank.max),
    );
    let (mut deep, mut wall) = (Vec::new(), Vec::new());
    for (p, &rho) in s.fluid.x.iter().zip(&s.fluid.density) {
        if p.y > top - h {
            continue;
        }
        deep.push(rho);
        let d = (*p - tmin).min(tmax - *p);
        if d.x < h || d.z < h || d.y < h {
            wall.push(rho);
        }
    }
    let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len() as f32;
    (mean(&deep), mean(&wall), deep.len(), wall.len())
}

#[test]
fn settled_column_keeps_rest_density() {
    let scene = column(&[]);
    let mut s = Solver::new(&scene).unwrap();
    let n = s.fluid.len();
    for _ in 0..500 {
        s.step();
    }
    assert_eq!(s.fluid.len(), n);
    let rho0 = scene.particles.rest_density;
    let (deep, wall, nd, nw) = settled_densities(&s, &scene);
    eprintln!("deep {deep} ({nd} particles), wall {wall} ({nw} particles)");
    assert!(
        nd > n / 3 && nw > nd / 3,
        "enough particles measured: {nd} deep, {nw} at walls"
    );
    assert!(
        (deep / rho0 - 1.0).abs() < 0.01,
        "mean density below the surface {deep} vs {rho0}"
    );
    assert!(
        (wall / rho0 - 1.0).abs() < 0.03,
        "mean density along the walls {wall} vs {rho0}"
    );
    // At rest: velocities small against the free-fall speed of the column height.
    let vmax = s.fluid.v.iter().map(|v| v.length()).fold(0.0, f32::max);
    assert!(vmax < 0.3, "column not at rest: max speed {vmax} m/s");
}

#[test]
fn small_dam_break_reaches_the_far_wall() {
    let scene = Scene::load(&root().join("configs/dam_break_small.toml"), &[]).unwrap();
    let mut s = Solver::new(&scene).unwrap();
    let n = s.fluid.len();
    let r = scene.particles.radius;
    let (tmin, tmax) = (
        Vec3A::from_array(scene.tank.min),
        Vec3A::from_array(scene.tank.max),
    );
    let mut front = f32::MIN;
    // Mechanical energy per unit mass, kinetic plus potential above the floor: PBF only
    // dissipates (the constraint projection, XSPH), so it must never grow between checks.
    let g = -scene.physics.gravity[1];
    let energy = |s: &Solver| -> f64 {
        let e: f64 = s
            .fluid
            .x
            .iter()
            .zip(&s.fluid.v)
            .map(|(x, v)| (0.5 * v.length_squared() + g * (x.y - tmin.y)) as f64)
            .sum();
        e / s.fluid.len() as f64
    };
    let e0 = energy(&s);
    let mut e_prev = e0;
    while s.time < 1.0 - 1e-6 {
        s.step();
        if s.steps.is_multiple_of(10) {
            let e = energy(&s);
            assert!(
                e <= e_prev * 1.001,
                "energy grew from {e_prev} to {e} J/kg by t = {}",
                s.time
            );
            e_prev = e;
        }
        for p in &s.fluid.x {
            assert!(p.is_finite(), "non-finite position at t = {}", s.time);
            assert!(
                p.cmpge(tmin + r * 0.999).all() && p.cmple(tmax - r * 0.999).all(),
                "particle {p} left the tank at t = {}",
                s.time
            );
        }
        front = s.fluid.x.iter().map(|p| p.x).fold(f32::MIN, f32::max);
    }
    assert_eq!(s.fluid.len(), n);
    let mut ids = s.fluid.id.clone();
    ids.sort_unstable();
    assert!(
        ids.iter().enumerate().all(|(k, &id)| id as usize == k),
        "ids are a permutation"
    );
    assert!(front >= 1.8, "front at x = {front} by t = 1.0 s");
    // A dam break that has hit the far wall has turned a good part of its energy into heat
    // (measured: 5.15 -> 3.38 J/kg by t = 1.0 s).
    assert!(
        e_prev < 0.9 * e0,
        "energy {e0} -> {e_prev} J/kg: too little dissipated"
    );
}

/// Particles that overshoot an edge or a corner of the tank must not pile up there: clamping them
/// onto the walls once stacked about a thousand particles on one point in the full dam break.
/// Here a block is thrown into a corner by a diagonal gravity of 20 g.
#[test]
fn no_pile_up_in_a_corner() {
    let scene = scene_from(
        r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [0.4, 0.4, 0.4]
[[fluid]]
min = [0.0, 0.28, 0.0]
max = [0.12, 0.4, 0.12]
[particles]
radius = 0.01
[physics]
gravity = [200.0, -200.0, 200.0]
[time]
dt = 0.004
end = 1.0
"#,
        &[],
    );
    let mut s = Solver::new(&scene).unwrap();
    // Over the run: the closest pair, and the most particles within a tenth of the spacing of
    // one particle (neighbor lists are in slot order, positions too).
    let (mut closest, mut crowd) = (f32::MAX, 0usize);
    let near = 0.1 * scene.spacing();
    for _ in 0..150 {
        s.step();
        let lists = s.neighbor_search().lists();
        for i in 0..s.fluid.len() {
            let mut k = 0;
            for &j in lists.neighbors(i) {
                if j as usize != i {
                    let d = s.fluid.x[i].distance(s.fluid.x[j as usize]);
                    closest = closest.min(d);
                    k += (d < near) as usize;
                }
            }
            crowd = crowd.max(k);
        }
    }
    eprintln!("closest pair: {closest} m, most within a tenth of the spacing: {crowd}");
    // Clamping onto the corner maps every particle that reaches it onto one point (the bug
    // fixed in 0e42242: about 1,000 stacked in the full dam break; here 13 within a tenth of
    // the spacing of one, the closest pair at exactly 0). At 35 g three under-relaxed
    // iterations leave the water squeezed (measured: 7 within a tenth of the spacing, the
    // closest 1.2e-5 m apart; with ω = 1, 3 and 4.9e-4 m), but never on one point.
    assert!(
        closest > 0.0,
        "particles on one point (closest pair {closest} m)"
    );
    assert!(
        crowd < 10,
        "{crowd} particles stacked on one (closest pair {closest} m)"
    );
}

/// A 0.6 m tank, its water 0.22 m deep in the left half and 0.18 m in the right (r = 0.005):
/// the step starts the first sloshing mode, whose period linear theory gives as
/// `2π / √(g k tanh(k H))`, `k = π / L`: 0.992 s for L = 0.6 m, H = 0.2 m.
const SLOSH: &str = r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [0.6, 0.5, 0.1]
[[fluid]]
min = [0.0, 0.0, 0.0]
max = [0.3, 0.22, 0.1]
[[fluid]]
min = [0.3, 0.0, 0.0]
max = [0.6, 0.18, 0.1]
[particles]
radius = 0.005
[time]
dt = 0.002
end = 2.2
"#;

#[test]
fn a_tank_sloshes_at_the_period_of_linear_theory() {
    let scene = scene_from(SLOSH, &[]);
    let mut s = Solver::new(&scene).unwrap();
    let n = s.fluid.len() as f64;
    // The centre of mass along the tank, every 10 steps (0.02 s).
    let mut com = Vec::new();
    for step in 1..=1100 {
        s.step();
        if step % 10 == 0 {
            com.push(s.fluid.x.iter().map(|p| p.x as f64).sum::<f64>() / n);
        }
    }
    let rest = com[35..].iter().sum::<f64>() / (com.len() - 35) as f64;
    // Upward crossings of the rest position after the first 0.1 s, interpolated.
    let up: Vec<f64> = (5..com.len() - 1)
        .filter(|&i| com[i] < rest && com[i + 1] >= rest)
        .map(|i| 0.02 * (i + 1) as f64 + 0.02 * (rest - com[i]) / (com[i + 1] - com[i]))
        .collect();
    assert!(up.len() >= 2, "crossings {up:?}");
    let (g, l, h) = (9.81f64, 0.6, 0.2);
    let k = std::f64::consts::PI / l;
    let theory = 2.0 * std::f64::consts::PI / (g * k * (k * h).tanh()).sqrt();
    let period = up[1] - up[0];
    // Measured 0.967 s at this amplitude (15 mm at the centre of mass; SPlisHSPlasH's PBF in
    // the same tank 1.012); the period shortens as the slosh dies out, to 0.88 s at 3 mm, and
    // less at a finer r (docs/results.md, stop 43).
    assert!(
        (period / theory - 1.0).abs() < 0.05,
        "period {period:.3} s, linear theory {theory:.3} s"
    );
}

/// Energy gain rate (J/kg per s) of a closed tank of water at rest, least squares over 2-6 s.
fn closed_tank_gain_rate(walls: &str) -> f64 {
    let scene = scene_from(
        r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [0.3, 0.3, 0.3]
[[fluid]]
min = [0.0, 0.0, 0.0]
max = [0.3, 0.3, 0.3]
[particles]
radius = 0.01
kernel_radius = 0.054
[time]
dt = 0.004
end = 6.0
"#,
        &[&format!("pbf.walls=\"{walls}\"")],
    );
    let g = -scene.physics.gravity[1];
    let mut s = Solver::new(&scene).unwrap();
    let (mut ts, mut es) = (Vec::new(), Vec::new());
    while s.time < 6.0 - 1e-6 {
        s.step();
        if s.time >= 2.0 - 1e-6 && s.steps.is_multiple_of(5) {
            let e: f64 = s
                .fluid
                .x
                .iter()
                .zip(&s.fluid.v)
                .map(|(x, v)| (0.5 * v.length_squared() + g * x.y) as f64)
                .sum();
            ts.push(s.time);
            es.push(e / s.fluid.len() as f64);
        }
    }
    let n = ts.len() as f64;
    let (mt, me) = (ts.iter().sum::<f64>() / n, es.iter().sum::<f64>() / n);
    let cov: f64 = ts.iter().zip(&es).map(|(t, e)| (t - mt) * (e - me)).sum();
    let var: f64 = ts.iter().map(|t| (t - mt) * (t - mt)).sum();
    cov / var
}

/// A tank filled to its lid is a closed system: once the start's compression has settled (by
/// 2 s), nothing may add energy to water at rest. With the walls as mirrors of the water
/// (`pbf.walls = "mirror"`), each wall term is the gradient of the same constraints as the
/// fluid's, and the energy stays flat (measured 3.7e-5 J/kg per s, the slope of its
/// fluctuations; flat to 10 s). The lattice walls' pressure support is not such a gradient: at
/// the paper scenes' h = 5.4r it pumps a circulation past the walls (2.9e-4 J/kg per s here,
/// mean speed 0.12 m/s at 4 s against 0.034 with mirrors).
#[test]
fn mirror_walls_do_no_work_on_water_at_rest() {
    let rate = closed_tank_gain_rate("mirror");
    eprintln!("energy gain {rate:.3e} J/kg per s");
    // 1e-4 J/kg per s: the kinetic energy of water at 0.014 m/s gained every second.
    assert!(rate < 1e-4, "the closed tank gains {rate:.3e} J/kg per s");
}

/// `configs/sluice_gate.toml`: water held behind a plate (a solid) whose lower edge stands
/// `a` above the floor runs out under it at `q = Cd a sqrt(2 g H)` per metre of width, with
/// `Cd = Cc / sqrt(1 + Cc a / H)` for free flow and the jet's contraction `Cc ~ 0.61`
/// (Henry's measurements, in any open-channel text). The outflow is counted past the gate and
/// the depth `H` taken from the water left behind it (its volume over the reservoir's floor),
/// from 0.2 s, when the flow under the gate is established, to 0.6 s, before the jet comes
/// back from the far wall.
#[test]
fn a_sluice_gate_discharges_at_the_textbook_coefficient() {
    let scene = scene("sluice_gate");
    let mut s = Solver::new(&scene).unwrap();
    let (r, dt) = (scene.particles.radius as f64, scene.time.dt as f64);
    let width = (scene.tank.max[2] - scene.tank.min[2]) as f64;
    let gate = &scene.obstacle[0];
    let (gate_x, half_thick) = (gate.center[0] as f64, gate.half_extents.unwrap()[0] as f64);
    let a = (gate.center[1] - gate.half_extents.unwrap()[1]) as f64;
    let upstream = gate_x - half_thick;
    let volume = (2.0 * r).powi(3);
    let n = s.fluid.len();
    // Particles past the gate, and the depth of the water behind it.
    let measure = |s: &Solver| {
        let past = s
            .fluid
            .x
            .iter()
            .filter(|p| p.x as f64 > gate_x + half_thick)
            .count();
        let behind = s.fluid.x.iter().filter(|p| (p.x as f64) < upstream).count();
        (past, behind as f64 * volume / (width * upstream))
    };
    let (mut out0, mut root_depth, mut samples) = (0, 0.0, 0);
    let mut depth = 0.0;
    let steps = (0.6 / dt).round() as usize;
    for step in 1..=steps {
        s.step();
        if step * 5 >= steps * 2 {
            let (past, h) = measure(&s);
            if samples == 0 {
                out0 = past;
            }
            root_depth += h.sqrt();
            samples += 1;
            depth = h;
        }
    }
    let (out1, _) = measure(&s);
    assert_eq!(s.fluid.len(), n);
    let seconds = (samples - 1) as f64 * dt;
    let q = (out1 - out0) as f64 * volume / width / seconds;
    let g = 9.81f64;
    let cd = q / (a * (2.0 * g).sqrt() * root_depth / samples as f64);
    let cc = 0.61;
    let theory = cc / (1.0 + cc * a / depth).sqrt();
    println!("Cd {cd:.3}, theory {theory:.3} (q {q:.5} m²/s at H {depth:.3} m)");
    // Within 12% of the theory at three particles across the opening: measured 0.548 (0.92
    // of the theory's 0.594), with four 0.569, with six 0.58-0.61 (docs/results.md, stop 57).
    // A gate that leaked would pass more, sticky walls or a gate that held the water back less.
    assert!(
        (cd / theory - 1.0).abs() < 0.12,
        "Cd {cd:.3}, theory {theory:.3} (q {q:.5} m²/s at H {depth:.3} m)"
    );
}

/// A block of water thrown at another at rest, in zero gravity and clear of the walls: the
/// density constraints and the surface tension act in equal and opposite pairs, so the
/// collision keeps the total momentum `m Σ v`. (Vorticity confinement adds a force of its own,
/// and XSPH divides each particle's sum by its own density, `Δv_i = c (1/ρ_i) Σ_j m (v_j − v_i)
/// W_ij`, so a pair of unequal densities is lopsided: 2.4e-4 of the momentum over this run with
/// both at their defaults.)
#[test]
fn two_blocks_colliding_in_zero_gravity_keep_their_momentum() {
    let text = r#"
[tank]
min = [0.0, -0.5, -0.5]
max = [2.0, 1.5, 1.5]
[physics]
gravity = [0.0, 0.0, 0.0]
[[fluid]]
min = [0.3, 0.35, 0.35]
max = [0.6, 0.65, 0.65]
velocity = [1.0, 0.2, 0.0]
[[fluid]]
min = [0.9, 0.4, 0.3]
max = [1.2, 0.6, 0.6]
[particles]
radius = 0.01
[time]
dt = 0.002
end = 0.6
"#;
    for sets in [
        &["pbf.vorticity=0", "pbf.xsph=0"][..],
        &[
            "pbf.vorticity=0",
            "pbf.xsph=0",
            "surface_tension.method=\"akinci2013\"",
        ][..],
    ] {
        let scene = scene_from(text, sets);
        let mut s = Solver::new(&scene).unwrap();
        let momentum = |s: &Solver| s.fluid.v.iter().map(|v| v.as_dvec3()).sum::<glam::DVec3>();
        let start = momentum(&s);
        let energy = |s: &Solver| {
            s.fluid
                .v
                .iter()
                .map(|v| v.length_squared() as f64)
                .sum::<f64>()
        };
        let e0 = energy(&s);
        let (tmin, tmax) = (Vec3A::from(scene.tank.min), Vec3A::from(scene.tank.max));
        let h = scene.kernel_radius();
        for step in 1..=300 {
            s.step();
            // Clear of the walls (nothing else may push).
            if step % 10 == 0 {
                for p in &s.fluid.x {
                    let clear = p.cmpgt(tmin + h).all() && p.cmplt(tmax - h).all();
                    assert!(clear, "{p} near a wall at step {step}");
                }
            }
        }
        // The blocks did collide: some of the kinetic energy went into the water's churning
        // (7% by 0.6 s).
        let lost = 1.0 - energy(&s) / e0;
        assert!(
            lost > 0.03,
            "{sets:?}: kinetic energy lost {lost:.3}: no collision"
        );
        let drift = (momentum(&s) - start).length() / start.length();
        println!("{sets:?}: drift {drift:.2e}, lost {lost:.3}");
        assert!(
            drift < 5e-5,
            "{sets:?}: momentum {start} -> {}",
            momentum(&s)
        );
    }
}
