//! Inflow against its schedule: an emitter adds nozzle area × speed / (2r)³ particles per
//! second while it is free (within one layer), with its velocity; a timed block appears at its
//! start with its velocity, skipping sites already taken; ids are unique, dense and never
//! reused; results do not depend on the thread count.

use glam::Vec3A;
use pbf::solver::Solver;

mod common;

use common::{scene_from, state_on_threads};

/// A jet falling from a 10 x 10 cm nozzle at 1.5 m/s (gravity speeds it up, so every site is
/// always free), and a block that appears at 0.3 s falling at 1 m/s.
const JET: &str = r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [1.0, 1.5, 0.4]
[[fluid]]
min = [0.05, 0.0, 0.05]
max = [0.35, 0.2, 0.35]
[[fluid]]
min = [0.6, 0.8, 0.1]
max = [0.8, 1.0, 0.3]
velocity = [0.0, -1.0, 0.0]
start = 0.3
[particles]
radius = 0.0125
[time]
dt = 0.002
end = 1.0
[[emitter]]
shape = "rect"
center = [0.2, 1.2, 0.2]
direction = [0.0, -1.0, 0.0]
size = [0.1, 0.1]
speed = 1.5
start = 0.0
end = 0.6
"#;

#[test]
fn an_emitter_adds_area_times_speed_over_the_cell_volume_per_second() {
    let scene = scene_from(JET, &[]);
    let mut s = Solver::new(&scene).unwrap();
    let n0 = s.fluid.len();
    let block = scene.block_sites(1).len();
    let (area, speed, cell) = (0.1f64 * 0.1, 1.5f64, (2.0 * 0.0125f64).powi(3));
    let per_layer = 16.0; // (0.1 / 0.025)^2 sites
    let mut last_ids = 0;
    for _ in 0..400 {
        s.step();
        let t = s.time;
        let emitted = s.fluid.len() - n0 - if t >= 0.3 - 1e-9 { block } else { 0 };
        let schedule = area * speed * t.min(0.6) / cell;
        // Layer 0 leaves at the start, so the count leads the rate by up to one layer.
        assert!(
            (emitted as f64 - schedule).abs() <= per_layer + 0.01,
            "t = {t:.3}: {emitted} emitted, the schedule says {schedule:.1}"
        );
        // Ids: dense, unique, and the old ones kept.
        let mut ids = s.fluid.id.clone();
        ids.sort_unstable();
        assert!(ids.iter().enumerate().all(|(k, &id)| id as usize == k));
        assert!(ids.len() >= last_ids);
        last_ids = ids.len();
    }
    // 37 layers (t = 0, 1/60, ..., 0.6) of 16.
    assert_eq!(s.fluid.len(), n0 + block + 37 * 16);
    assert_eq!(s.inflow_added() as usize, block + 37 * 16);
}

#[test]
fn an_emitter_without_an_end_is_open_until_the_scene_ends() {
    // JET's nozzle with no `end`: open to time.end = 1.0 s, then closed (a run taken past the
    // scene's end adds nothing more).
    let scene = scene_from(&JET.replace("start = 0.0\nend = 0.6\n", ""), &[]);
    assert_eq!(scene.emitter[0].end, None);
    let mut s = Solver::new(&scene).unwrap();
    let n0 = s.fluid.len() + scene.block_sites(1).len();
    let per_layer = 16;
    for _ in 0..600 {
        s.step();
    }
    // Layers at t = 0, 1/60, ..., 1.0: 61 of 16 (area x speed / (2r)^3 = 960 per second).
    assert!((s.time - 1.2).abs() < 1e-6);
    assert_eq!(s.fluid.len(), n0 + 61 * per_layer);
}

/// A jet with nothing to speed it up: zero gravity, in `direction`, from a 10 x 10 cm nozzle at
/// 1.5 m/s for 0.6 s. (Before the nozzle's guide, PBF's artificial pressure pushed each new layer
/// back toward the nozzle and such a jet delivered 400 of its 592 particles.)
fn free_jet(direction: &str) -> String {
    format!(
        r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [1.5, 1.5, 1.5]
[particles]
radius = 0.0125
[physics]
gravity = [0.0, 0.0, 0.0]
[time]
dt = 0.002
end = 0.6
[[emitter]]
shape = "rect"
center = [0.5, 0.5, 0.5]
direction = {direction}
size = [0.1, 0.1]
speed = 1.5
start = 0.0
end = 0.6
"#
    )
}

#[test]
fn a_jet_without_gravity_delivers_its_schedule_in_any_direction() {
    for direction in ["[1.0, 0.0, 0.0]", "[0.0, 1.0, 0.0]", "[0.6, -0.3, 0.7]"] {
        let scene = scene_from(&free_jet(direction), &[]);
        let mut s = Solver::new(&scene).unwrap();
        let (area, speed, cell) = (0.1f64 * 0.1, 1.5f64, (2.0 * 0.0125f64).powi(3));
        for _ in 0..300 {
            s.step();
            let schedule = area * speed * s.time.min(0.6) / cell;
            let emitted = s.fluid.len() as f64;
            assert!(
                (emitted - schedule).abs() <= 16.01,
                "direction {direction}, t = {:.3}: {emitted} emitted, the schedule says {schedule:.1}",
                s.time
            );
        }
        assert_eq!(s.fluid.len(), 37 * 16, "direction {direction}");
        // Nothing slows a free jet: in its first half metre (its head, 0.9 m out, is pushed on
        // by the artificial pressure and may reach a wall) its particles keep the nozzle's
        // speed along its direction on average, and none has turned back.
        let d = scene.emitter[0].unit_direction();
        let c = Vec3A::from_array(scene.emitter[0].center);
        let along: Vec<f32> = (0..s.fluid.len())
            .filter(|&i| (s.fluid.x[i] - c).dot(d) < 0.5)
            .map(|i| s.fluid.v[i].dot(d))
            .collect();
        assert!(along.len() > 300, "direction {direction}: {}", along.len());
        let mean = along.iter().sum::<f32>() / along.len() as f32;
        assert!(
            (mean - 1.5).abs() < 0.05,
            "direction {direction}: mean speed along the jet {mean}"
        );
        assert!(along.iter().all(|&a| a > 0.0), "direction {direction}");
    }
}

/// `free_jet`'s scene with its 0.1 m square nozzle replaced by `nozzle` (its shape and size).
fn with_nozzle(free_jet: &str, nozzle: &str) -> String {
    let text = free_jet
        .replace("shape = \"rect\"\n", "")
        .replace("size = [0.1, 0.1]", nozzle);
    assert!(text.contains(nozzle) && text.matches("shape = ").count() == 1);
    text
}

#[test]
fn nozzles_of_any_size_carry_their_area_times_speed() {
    // Sides that are not whole spacings (s = 0.025: 4.4 x 3.4 spacings gives 4 x 3 sites,
    // 12 for an area of 14.96), a circle of 4.5 sites' area, and one smaller than a site (its
    // area is 0.13 of a site's: before, it found no lattice point nearer than its radius and
    // emitted nothing). Each particle holds s³, so the count must follow area × speed × t / s³
    // within one layer, for any count of sites.
    for nozzle in [
        "shape = \"rect\"\nsize = [0.11, 0.085]",
        "shape = \"circle\"\nradius = 0.03",
        "shape = \"circle\"\nradius = 0.005",
    ] {
        let text = with_nozzle(&free_jet("[0.6, -0.3, 0.7]"), nozzle);
        let scene = scene_from(&text, &[]);
        let e = &scene.emitter[0];
        let s3 = (scene.spacing() as f64).powi(3);
        let (area, layer) = (e.area() as f64, e.sites(scene.spacing()).len() as f64);
        assert!(layer >= 1.0, "{nozzle}: no site");
        let mut sim = Solver::new(&scene).unwrap();
        for _ in 0..300 {
            sim.step();
            let schedule = area * 1.5 * sim.time.min(0.6) / s3;
            let emitted = sim.fluid.len() as f64;
            assert!(
                (emitted - schedule).abs() <= layer + 0.01,
                "{nozzle}, t = {:.3}: {emitted} emitted, area x speed says {schedule:.1}",
                sim.time
            );
        }
    }
}

#[test]
fn a_round_jet_leaves_at_the_nozzle_speed() {
    // A radius of 2 spacings: 12 lattice points for an area of 12.6 spacings². Spaced s apart,
    // the layers closed up 4.5% to carry the flux, the jet left the nozzle 4.7% denser than the
    // water, and its core, let go at the end of the guide zone, reached 2.09 m/s. Without
    // gravity nothing else speeds a free jet up.
    let text = with_nozzle(
        &free_jet("[0.0, 1.0, 0.0]"),
        "shape = \"circle\"\nradius = 0.05",
    );
    let scene = scene_from(&text, &[]);
    let e = &scene.emitter[0];
    let s = scene.spacing();
    let sites = e.sites(s);
    assert_eq!(sites.len(), 12);
    // The sites tile the area: as many as it holds at their spacing, none past the radius.
    let across = e.circle_spacing(s, sites.len());
    assert!((sites.len() as f32 * across * across / e.area() - 1.0).abs() < 1e-5);
    let c = Vec3A::from_array(e.center);
    assert!(sites.iter().all(|p| p.distance(c) < 0.05));
    let mut sim = Solver::new(&scene).unwrap();
    let mut fastest = 0.0f32;
    for _ in 0..150 {
        sim.step();
        fastest = fastest.max(sim.max_speed());
    }
    assert!(sim.fluid.len() > 200, "{} particles", sim.fluid.len());
    assert!(
        fastest < 1.5 * 1.03,
        "the jet reached {fastest} m/s from a 1.5 m/s nozzle"
    );
}

/// A 20 cm box and a 10 cm nozzle 5 cm under its lid, open for 2 s at 1 m/s.
const FULL_TANK: &str = r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [0.2, 0.2, 0.2]
[particles]
radius = 0.0125
[time]
dt = 0.002
end = 2.0
[[emitter]]
shape = "rect"
center = [0.1, 0.15, 0.1]
direction = [0.0, -1.0, 0.0]
size = [0.1, 0.1]
speed = 1.0
start = 0.0
end = 2.0
"#;

#[test]
fn a_nozzle_into_a_full_tank_stops_at_the_tank_capacity_and_nothing_leaks() {
    // A 20 cm box, a jet filling it for 2 s at twice its volume: it can hold (0.2 / 2r)^3 = 512
    // lattice sites' worth (a little more, compressed), never the schedule. Once its nozzle is
    // under water and a layer finds no room, the nozzle is shut and lets go of the water in
    // its guide zone: nothing puts energy in any more, so the water comes to rest (held to the
    // nozzle's 1 m/s, the zone pumped it round at 0.44 m/s mean for as long as it was open).

    let scene = scene_from(FULL_TANK, &[]);
    let mut s = Solver::new(&scene).unwrap();
    let r = scene.particles.radius;
    for _ in 0..1000 {
        s.step();
        for p in &s.fluid.x {
            assert!(
                p.cmpge(Vec3A::splat(r * 0.99)).all()
                    && p.cmple(Vec3A::splat(0.2 - r * 0.99)).all(),
                "t = {:.3}: a particle at {p} is outside the tank",
                s.time
            );
        }
    }
    let schedule = 0.1f64 * 0.1 * 1.0 * 2.0 / (2.0 * r as f64).powi(3);
    let n = s.fluid.len();
    assert!(n as f64 <= 1.1 * 512.0, "{n} particles in room for 512");
    assert!(
        (n as f64) < 0.7 * schedule,
        "{n} of {schedule:.0} scheduled"
    );
    assert!(n >= 450, "only {n} particles: the tank is not full");
    let mean_speed = s.fluid.v.iter().map(|v| v.length()).sum::<f32>() / n as f32;
    assert!(
        mean_speed < 0.1,
        "the full tank's water still moves at {mean_speed} m/s on average"
    );
}

/// A shut nozzle stays shut across a checkpoint: the full tank above, its state taken after
/// 1.5 s (the nozzle under water and shut) and restored into a new solver, goes on bit for bit
/// as the run that never stopped.
#[test]
fn a_shut_nozzle_stays_shut_across_a_checkpoint() {
    let scene = scene_from(FULL_TANK, &[]);
    let mut a = Solver::new(&scene).unwrap();
    for _ in 0..750 {
        a.step();
    }
    let state = a.state();
    assert!(
        state.inflow.as_ref().is_some_and(|i| i.shut == [true]),
        "the nozzle is not shut at 1.5 s"
    );
    let mut b = Solver::new(&scene).unwrap();
    b.restore(&state).unwrap();
    for _ in 0..100 {
        a.step();
        b.step();
    }
    assert!(a.state() == b.state(), "the resumed run differs");
}

#[test]
fn a_timed_block_appears_at_its_start_with_its_velocity() {
    let scene = scene_from(JET, &[]);
    let mut s = Solver::new(&scene).unwrap();
    let block = scene.block_sites(1);
    assert_eq!(block.len(), 8 * 8 * 8); // a 0.2 m cube holds (0.2 / 2r)³ particles
    let in_block = |p: &Vec3A| p.x > 0.55 && p.z > 0.05 && p.z < 0.35 && p.y > 0.7;
    while s.time < 0.3 - 1e-9 {
        assert_eq!(s.fluid.x.iter().filter(|p| in_block(p)).count(), 0);
        s.step();
    }
    // Right after the step that reaches 0.3 s: the block, falling at 1 m/s.
    let new: Vec<usize> = (0..s.fluid.len())
        .filter(|&i| in_block(&s.fluid.x[i]))
        .collect();
    assert_eq!(new.len(), block.len());
    assert!(
        new.iter()
            .all(|&i| s.fluid.v[i] == Vec3A::new(0.0, -1.0, 0.0))
    );
}

#[test]
fn a_later_block_skips_the_sites_already_taken() {
    // A second block over the first, appearing at 0.1 s: only its sites farther than the
    // spacing from every particle get one.
    let text = r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [1.0, 1.0, 0.4]
[[fluid]]
min = [0.0, 0.0, 0.0]
max = [0.5, 0.3, 0.4]
[[fluid]]
min = [0.0, 0.0, 0.0]
max = [1.0, 0.3, 0.4]
start = 0.1
[particles]
radius = 0.0125
[time]
dt = 0.002
end = 1.0
"#;
    let scene = scene_from(text, &[]);
    let mut s = Solver::new(&scene).unwrap();
    while s.time < 0.1 - 1e-9 {
        s.step();
    }
    let added = s.inflow_added() as usize;
    let second = scene.block_sites(1).len();
    assert!(added > 0 && added < second, "{added} of {second} sites");
    // No two particles closer than the spacing right after the block appeared... among the
    // new ones and the old (the old ones moved, but none was within 0.999 s of a new one).
    let first_new = s.fluid.len() - added;
    let s_ = scene.spacing() * 0.999;
    for i in first_new..s.fluid.len() {
        for j in 0..first_new {
            assert!(
                s.fluid.x[i].distance(s.fluid.x[j]) >= s_,
                "new particle {i} on old {j}"
            );
        }
    }
}

#[test]
fn inflow_gives_the_same_bits_on_1_and_2_threads() {
    let scene = scene_from(JET, &[]);
    assert!(state_on_threads(&scene, 1, 250) == state_on_threads(&scene, 2, 250));
}

#[test]
fn a_circle_nozzle_has_its_area_in_sites() {
    let scene = scene_from(
        &JET.replace(
        "shape = \"rect\"\ncenter = [0.2, 1.2, 0.2]\ndirection = [0.0, -1.0, 0.0]\nsize = [0.1, 0.1]",
        "shape = \"circle\"\ncenter = [0.2, 1.2, 0.2]\ndirection = [1.0, -1.0, 0.5]\nradius = 0.1",
    ), &[]);
    let e = &scene.emitter[0];
    let sites = e.sites(scene.spacing());
    let area = std::f32::consts::PI * 0.1 * 0.1 / scene.spacing().powi(2);
    assert!(
        (sites.len() as f32 / area - 1.0).abs() < 0.1,
        "{} sites, area {area}",
        sites.len()
    );
    // All in the nozzle's plane, across the direction, within the radius.
    let (c, d) = (Vec3A::from_array(e.center), e.unit_direction());
    for p in &sites {
        assert!((*p - c).dot(d).abs() < 1e-5);
        assert!(p.distance(c) < 0.1);
    }
}

/// `JET`'s nozzle moved against the x = 0 wall and widened to 0.2 m: of its 8 x 4 sites
/// (x = 0.05 + (a − 3.5) · 0.025), the columns at x = −0.0375 and −0.0125 lie beyond the wall,
/// and the walls keep particles r = 0.0125 from them. (Before, the projection threw those sites'
/// particles back into the tank at 36 m/s.)
#[test]
fn a_nozzle_reaching_past_a_wall_emits_through_its_part_inside_only() {
    let scene = scene_from(
        &JET.replace("center = [0.2, 1.2, 0.2]", "center = [0.05, 1.2, 0.2]")
            .replace("size = [0.1, 0.1]", "size = [0.2, 0.1]"),
        &[],
    );
    let e = &scene.emitter[0];
    assert_eq!(e.sites(scene.spacing()).len(), 32);
    // The layers stay one spacing apart (the flux per area of the whole nozzle).
    assert!((e.pitch(scene.spacing()) - 0.025).abs() < 1e-6);
    let mut s = Solver::new(&scene).unwrap();
    let n0 = s.fluid.len();
    let block = scene.block_sites(1).len();
    let r = scene.particles.radius;
    for _ in 0..400 {
        s.step();
        // Nothing much faster than the water falls: the jet leaves its nozzle 1.2 m up,
        // sqrt(1.5² + 2 g 1.2) = 5.1 m/s at the floor; the timed block strikes the dry floor
        // at 4.1-4.5 m/s, and its bottom corners squirt out faster than that (in the
        // impulsive-pressure flow of a block striking a wall the corner's speed is singular):
        // up to 6.1 m/s along the floor for a few steps. A site's particle thrown back by the
        // projection left at 36 m/s.
        assert!(
            s.max_speed() < 8.0,
            "t = {:.3}: {} m/s",
            s.time,
            s.max_speed()
        );
        assert!(s.clearance().0 >= 0.999 * r);
    }
    // 37 layers (t = 0, 1/60, ..., 0.6) of the 6 x 4 sites inside.
    assert_eq!(s.fluid.len(), n0 + block + 37 * 24);
}

/// `JET`'s nozzle under a box that lies over it until t = 0.2 s and then slides away along x at
/// 2 m/s: the sites it covers give no particle while it is there (before, each was created in
/// the solid and thrown out), and the jet runs once it has passed.
#[test]
fn a_solid_over_a_nozzle_blocks_it_while_it_is_there() {
    let scene = scene_from(
        &format!(
            "{JET}
[[obstacle]]
shape = \"box\"
center = [0.2, 1.2, 0.2]
half_extents = [0.1, 0.05, 0.1]
motion = {{ type = \"linear\", velocity = [2.0, 0.0, 0.0], start = 0.2, end = 0.45 }}
"
        ),
        &[],
    );
    let mut s = Solver::new(&scene).unwrap();
    let n0 = s.fluid.len();
    let r = scene.particles.radius;
    let mut blocked_until = 0.0;
    for _ in 0..400 {
        s.step();
        let t = s.time;
        let emitted = s.inflow_added() as usize
            - if t >= 0.3 - 1e-9 {
                scene.block_sites(1).len()
            } else {
                0
            };
        if emitted == 0 {
            blocked_until = t;
        }
        // The bound of the test above (a particle created in the solid left at 32 m/s).
        assert!(s.max_speed() < 8.0, "t = {t:.3}: {} m/s", s.max_speed());
        assert!(
            s.clearance().1 >= 0.5 * r,
            "t = {t:.3}: {:?}",
            s.clearance()
        );
    }
    // The box (0.1 m half-width plus r) uncovers the nozzle's last column (x = 0.2375) when
    // its centre passes x = 0.35: at t = 0.2 + 0.15 / 2 = 0.275 s.
    assert!(
        (0.2..0.3).contains(&blocked_until),
        "the first particle came after t = {blocked_until}"
    );
    // From then on the jet delivers: (0.6 − 0.275) s × 960 particles/s = 312, within two layers.
    let emitted = (s.fluid.len() - n0 - scene.block_sites(1).len()) as f64;
    assert!(
        emitted > 280.0 && emitted <= 16.0 * 37.0,
        "{emitted} emitted"
    );
}

/// A jet that meets a wall close to its nozzle (a tap a few centimetres over the floor, a
/// nozzle facing a wall, a wide nozzle over the floor) moves no particle much faster than its
/// energy allows: the speed it leaves with plus what the fall from the nozzle adds,
/// `sqrt(U² + 2 g H)`, with a quarter to spare, once the first water has landed (a flat sheet
/// landing throws its edges faster than it fell: 3 m/s under the wide nozzle in its first
/// 0.1 s, then at most 2.0). Guided up to the wall, the jet was a piston: it squeezed the
/// water under it out at twice its speed (four times under the wide one, held a kernel radius
/// off), and facing a wall 5 cm away it drove layers onto each other and shot one out at
/// 20 m/s (`inflow::guide::Guides::velocity`).
#[test]
fn a_jet_close_to_a_wall_splashes_no_faster_than_its_energy_allows() {
    let u = 1.5f32;
    for (center, direction, size, height) in [
        (
            "[0.3, 0.06, 0.3]",
            "[0.0, -1.0, 0.0]",
            "[0.08, 0.08]",
            0.06f32,
        ),
        ("[0.05, 0.1, 0.3]", "[-1.0, 0.0, 0.0]", "[0.08, 0.08]", 0.1),
        ("[0.3, 0.08, 0.3]", "[0.0, -1.0, 0.0]", "[0.3, 0.3]", 0.08),
    ] {
        let text = format!(
            r#"
[tank]
min = [0.0, 0.0, 0.0]
max = [0.6, 0.6, 0.6]
[particles]
radius = 0.01
kernel_radius = 0.04
[time]
dt = 0.002
end = 0.6
[[emitter]]
shape = "rect"
center = {center}
direction = {direction}
size = {size}
speed = {u}
"#
        );
        let scene = scene_from(&text, &[]);
        // `pbf check` says the jet falls short of its schedule this close to the wall.
        let short = |scene: &pbf::scene::Scene| {
            (scene.warnings().iter()).any(|w| w.contains("emitter[0]") && w.contains("free run"))
        };
        assert!(short(&scene), "no warning for the nozzle at {center}");
        assert!(!short(&scene_from(JET, &[])), "a free jet is warned of");
        let mut s = Solver::new(&scene).unwrap();
        let most = (u * u + 2.0 * 9.81 * height).sqrt();
        for step in 0..300 {
            s.step();
            let fastest = s.max_speed();
            assert!(
                step < 100 || fastest <= 1.25 * most,
                "nozzle {size} at {center} toward {direction}, t = {:.3}: a particle at \
                 {fastest:.2} m/s, the jet's energy allows {most:.2}",
                s.time
            );
        }
        assert!(
            s.fluid.len() > 300,
            "{} particles: the jet stalled",
            s.fluid.len()
        );
    }
}
