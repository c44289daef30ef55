//! Scene files: the shipped configs load with the particle counts SPlisHSPlasH gives for the same
//! blocks, overrides apply, and each kind of bad input gets its own error naming file and key,
//! both from the library and from `pbf check` (exit code 2).

use pbf::scene::{Format, Scene, SceneError};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root: scenes are named as a user names them from there.
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The warnings of the scene `text` (written into `dir`).
fn warnings_of(dir: &Path, text: &str) -> Vec<String> {
    Scene::load(&write(dir, "s.toml", text), &[])
        .unwrap()
        .warnings()
}

/// `w` is one warning holding each of `words` (`what` says which scene, on failure).
fn one_warning(w: Vec<String>, what: &str, words: &[&str]) {
    assert_eq!(w.len(), 1, "{what}: {w:?}");
    for word in words {
        assert!(w[0].contains(word), "{what}: {}", w[0]);
    }
}

fn small() -> String {
    std::fs::read_to_string(root().join("configs/dam_break_small.toml")).unwrap()
}

#[test]
fn shipped_configs_load() {
    let s = Scene::load(&root().join("configs/dam_break.toml"), &[]).unwrap();
    assert_eq!(s.name, "dam_break");
    // SPlisHSPlasH fills this block with 117,649 (49^3) particles at r = 0.01.
    assert_eq!(s.sample_fluid().len(), 117_649);
    assert_eq!(s.kernel_radius(), 0.04);
    assert_eq!(s.output.format, Format::Vtu);
    let s = Scene::load(&root().join("configs/dam_break_small.toml"), &[]).unwrap();
    assert_eq!(s.sample_fluid().len(), 6_859);
    // Every particle inside its block, r in from the walls.
    let pts = s.sample_fluid();
    for p in &pts {
        for a in 0..3 {
            assert!(
                p[a] >= s.fluid[0].min[a] + 0.0249 && p[a] <= s.fluid[0].max[a] - 0.0249,
                "{p}"
            );
        }
    }
    // The lattice is centered in the block (as SPlisHSPlasH's): the block is symmetric about
    // z = 0, so is the lattice, and its x and y extremes sit equally far from the block's faces.
    let b = &s.fluid[0];
    for a in 0..3 {
        let lo = pts.iter().map(|p| p[a]).fold(f32::MAX, f32::min);
        let hi = pts.iter().map(|p| p[a]).fold(f32::MIN, f32::max);
        assert!(
            ((lo - b.min[a]) - (b.max[a] - hi)).abs() < 1e-5,
            "axis {a}: {} in from min, {} in from max",
            lo - b.min[a],
            b.max[a] - hi
        );
    }
    let mut z: Vec<f32> = pts.iter().map(|p| p.z).collect();
    z.sort_by(f32::total_cmp);
    assert!(
        z.iter()
            .zip(z.iter().rev())
            .all(|(a, b)| (a + b).abs() < 1e-5)
    );
}

#[test]
fn a_time_step_too_long_for_the_neighbor_search_is_flagged() {
    // No shipped scene is flagged, but for the small plates scene's side slots: at its r =
    // 0.02 the paper's 0.075 m between each plate and the side walls holds one layer of
    // particles and not two (the paper's scale: 15).
    for f in std::fs::read_dir(root().join("configs")).unwrap() {
        let f = f.unwrap().path();
        let s = Scene::load(&f, &[]).unwrap();
        let w = s.warnings();
        if f.ends_with("paper_3_plates_small.toml") {
            assert!(
                w.len() == 4 && w.iter().all(|w| w.contains("room for one layer")),
                "{w:?}"
            );
        } else {
            assert!(w.is_empty(), "{}: {w:?}", f.display());
        }
    }
    // The reference tank is 3 m high: a fall through it reaches sqrt(2 g 3 m) = 7.672 m/s,
    // which moves h = 0.04 m in 5.214 ms.
    let v = (2.0f64 * 9.81 * 3.0).sqrt();
    let limit = 0.04 / v;
    assert!((limit - 5.214e-3).abs() < 1e-6);
    let with = |dt: f64, extra: &[&str]| {
        let mut sets = vec![format!("time.dt={dt}")];
        sets.extend(extra.iter().map(|s| s.to_string()));
        Scene::load(&root().join("configs/dam_break.toml"), &sets)
            .unwrap()
            .warnings()
    };
    assert!(with(limit * 0.99, &[]).is_empty());
    let w = with(limit * 1.01, &[]);
    assert_eq!(w.len(), 1);
    assert!(
        w[0].contains("time.dt") && w[0].contains("5.21e-3"),
        "{}",
        w[0]
    );
    // Sideways gravity falls through the tank's 4 m length instead; none, no fall at all.
    assert_eq!(
        with(
            0.04 / (2.0f64 * 9.81 * 4.0).sqrt() * 1.01,
            &["physics.gravity=[-9.81, 0.0, 0.0]"]
        )
        .len(),
        1
    );
    assert!(
        with(
            0.04 / (2.0f64 * 9.81 * 4.0).sqrt() * 0.99,
            &["physics.gravity=[-9.81, 0.0, 0.0]"]
        )
        .is_empty()
    );
    // (A frame a second: at 30 a second a step of 1 s would be flagged for the frames.)
    assert!(with(1.0, &["physics.gravity=[0.0, 0.0, 0.0]", "output.fps=1"]).is_empty());
}

#[test]
fn overrides_apply_by_dotted_path() {
    let sets = [
        "particles.radius=0.05".to_string(),
        "pbf.iterations=5".into(),
        "search.mode=unpruned".into(),
        "output.format=\"none\"".into(),
    ];
    let s = Scene::load(&root().join("configs/dam_break_small.toml"), &sets).unwrap();
    assert_eq!(s.particles.radius, 0.05);
    assert_eq!(s.pbf.iterations, 5);
    assert_eq!(s.search.mode, nsearch::SearchMode::Unpruned);
    assert_eq!(s.output.format, Format::None);
    assert_eq!(s.sample_fluid().len(), 9 * 9 * 9);
    // A number in the path picks a [[block]] or an element; the rest of the block is kept.
    let sets = [
        "obstacle.1.radius=0.07".to_string(),
        "obstacle.0.center.1=0.3".into(),
    ];
    let s = Scene::load(&root().join("configs/obstacles_small.toml"), &sets).unwrap();
    assert_eq!(s.obstacle[1].radius, Some(0.07));
    assert_eq!(s.obstacle[0].center, [-0.5, 0.3, 0.0]);
    assert_eq!(s.obstacle[0].half_extents, Some([0.02, 0.25, 0.5]));
}

#[test]
fn bad_scenes_get_specific_errors() {
    let dir = tempfile::tempdir().unwrap();
    let base = small();
    let cases: Vec<(PathBuf, Vec<String>, &str)> = vec![
        (
            write(
                dir.path(),
                "unknown.toml",
                &base.replace("[time]", "[time]\nspeed = 2"),
            ),
            vec![],
            "unknown field `speed`",
        ),
        (
            write(
                dir.path(),
                "type.toml",
                &base.replace("iterations = 3 ", "iterations = \"three\" "),
            ),
            vec![],
            "invalid type",
        ),
        (
            write(
                dir.path(),
                "outside.toml",
                &base.replace("min = [-1.95, 0.05, -0.5]", "min = [-2.5, 0.05, -0.5]"),
            ),
            vec![],
            "fluid[0]: block min [-2.5, 0.05, -0.5]",
        ),
        (
            write(
                dir.path(),
                "negative.toml",
                &base.replace("radius = 0.025 ", "radius = -0.025 "),
            ),
            vec![],
            "particles.radius: must be positive",
        ),
        (
            write(
                dir.path(),
                "shape.toml",
                &(base.clone()
                    + "\n[[obstacle]]\nshape = \"cone\"\ncenter = [0, 0.5, 0]\nradius = 0.1\n"),
            ),
            vec![],
            "unknown variant `cone`",
        ),
        (
            write(
                dir.path(),
                "nobox.toml",
                &(base.clone() + "\n[[obstacle]]\nshape = \"box\"\ncenter = [0, 0.5, 0]\n"),
            ),
            vec![],
            "obstacle[0].half_extents: a box needs half_extents",
        ),
        (
            write(
                dir.path(),
                "negbox.toml",
                &(base.clone()
                    + "\n[[obstacle]]\nshape = \"box\"\ncenter = [0, 0.5, 0]\nhalf_extents = [0.1, -0.1, 0.1]\n"),
            ),
            vec![],
            "obstacle[0].half_extents: must be positive",
        ),
        (
            write(
                dir.path(),
                "nocyl.toml",
                &(base.clone()
                    + "\n[[obstacle]]\nshape = \"cylinder\"\ncenter = [0, 0.5, 0]\nradius = 0.1\n"),
            ),
            vec![],
            "obstacle[0].half_length: a cylinder needs a half_length",
        ),
        (
            write(
                dir.path(),
                "negsphere.toml",
                &(base.clone()
                    + "\n[[obstacle]]\nshape = \"sphere\"\ncenter = [0, 0.5, 0]\nradius = 0\n"),
            ),
            vec![],
            "obstacle[0].radius: must be positive",
        ),
        (
            write(
                dir.path(),
                "mixed.toml",
                &(base.clone()
                    + "\n[[obstacle]]\nshape = \"sphere\"\ncenter = [0, 0.5, 0]\nradius = 0.1\nhalf_extents = [1, 1, 1]\n"),
            ),
            vec![],
            "obstacle[0].half_extents: is not a key of a sphere",
        ),
        (
            write(
                dir.path(),
                "period.toml",
                &(base.clone()
                    + "\n[[obstacle]]\nshape = \"sphere\"\ncenter = [0, 0.5, 0]\nradius = 0.1\nmotion = { type = \"sine\", amplitude = [0.1, 0, 0], period = 0 }\n"),
            ),
            vec![],
            "obstacle[0].motion.period: must be positive",
        ),
        (
            write(
                dir.path(),
                "linear.toml",
                &(base.clone()
                    + "\n[[obstacle]]\nshape = \"sphere\"\ncenter = [0, 0.5, 0]\nradius = 0.1\nmotion = { type = \"linear\", velocity = [1, 0, 0], start = 1.0, end = 0.5 }\n"),
            ),
            vec![],
            "obstacle[0].motion.end: must be at least start",
        ),
        (
            write(
                dir.path(),
                "pathlen.toml",
                &(base.clone()
                    + "\n[[obstacle]]\nshape = \"sphere\"\ncenter = [0, 0.5, 0]\nradius = 0.1\nmotion = { type = \"path\", times = [0, 1], positions = [[0, 0, 0]] }\n"),
            ),
            vec![],
            "obstacle[0].motion.times: needs one time per position",
        ),
        (
            write(
                dir.path(),
                "pathorder.toml",
                &(base.clone()
                    + "\n[[obstacle]]\nshape = \"sphere\"\ncenter = [0, 0.5, 0]\nradius = 0.1\nmotion = { type = \"path\", times = [0, 1, 1], positions = [[0, 0, 0], [1, 0, 0], [0, 0, 0]] }\n"),
            ),
            vec![],
            "obstacle[0].motion.times: must be finite and increasing",
        ),
        (
            write(
                dir.path(),
                "motiontype.toml",
                &(base.clone()
                    + "\n[[obstacle]]\nshape = \"sphere\"\ncenter = [0, 0.5, 0]\nradius = 0.1\nmotion = { type = \"spin\", rate = 1 }\n"),
            ),
            vec![],
            "unknown variant `spin`",
        ),
        (
            write(
                dir.path(),
                "obstaclekey.toml",
                &(base.clone()
                    + "\n[[obstacle]]\nshape = \"sphere\"\ncenter = [0, 0.5, 0]\nradius = 0.1\ncolour = \"red\"\n"),
            ),
            vec![],
            "unknown field `colour`",
        ),
        (
            write(
                dir.path(),
                "emitdir.toml",
                &(base.clone()
                    + "\n[[emitter]]\nshape = \"rect\"\ncenter = [0, 1, 0]\ndirection = [0, 0, 0]\nsize = [0.1, 0.1]\nspeed = 1\nend = 1\n"),
            ),
            vec![],
            "emitter[0].direction: must be a nonzero vector",
        ),
        (
            write(
                dir.path(),
                "emitend.toml",
                &(base.clone()
                    + "\n[[emitter]]\nshape = \"rect\"\ncenter = [0, 1, 0]\ndirection = [0, -1, 0]\nsize = [0.1, 0.1]\nspeed = 1\nstart = 2\nend = 1\n"),
            ),
            vec![],
            "emitter[0].end: must be at least start",
        ),
        (
            write(
                dir.path(),
                "emitout.toml",
                &(base.clone()
                    + "\n[[emitter]]\nshape = \"circle\"\ncenter = [0, 5, 0]\ndirection = [0, -1, 0]\nradius = 0.1\nspeed = 1\nend = 1\n"),
            ),
            vec![],
            "emitter[0].center: [0.0, 5.0, 0.0] is not inside the tank",
        ),
        (
            write(
                dir.path(),
                "emitsize.toml",
                &(base.clone()
                    + "\n[[emitter]]\nshape = \"rect\"\ncenter = [0, 1, 0]\ndirection = [0, -1, 0]\nspeed = 1\nend = 1\n"),
            ),
            vec![],
            "emitter[0].size: a rect nozzle needs size",
        ),
        (
            write(
                dir.path(),
                "emitshape.toml",
                &(base.clone()
                    + "\n[[emitter]]\nshape = \"star\"\ncenter = [0, 1, 0]\ndirection = [0, -1, 0]\nspeed = 1\nend = 1\n"),
            ),
            vec![],
            "unknown variant `star`",
        ),
        (
            write(
                dir.path(),
                "blockstart.toml",
                &(base.clone()
                    + "\n[[fluid]]\nmin = [0, 1, 0]\nmax = [0.2, 1.2, 0.2]\nstart = -1\n"),
            ),
            vec![],
            "fluid[1].start: must be >= 0",
        ),
        (
            dir.path().join("missing.toml"),
            vec![],
            "cannot read the scene file",
        ),
        (
            write(
                dir.path(),
                "syntax.toml",
                &base.replace("[output]", "[output"),
            ),
            vec![],
            "line",
        ),
        (
            write(dir.path(), "ok.toml", &base),
            vec!["time.dt=0".into()],
            "time.dt: must be positive",
        ),
        (
            write(dir.path(), "ok2.toml", &base),
            vec!["novalue".into()],
            "expected key.path=value",
        ),
    ];
    for (path, sets, expect) in cases {
        let err = Scene::load(&path, &sets).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(path.file_name().unwrap().to_str().unwrap()),
            "{msg}"
        );
        assert!(msg.contains(expect), "expected '{expect}' in: {msg}");
        if path.ends_with("unknown.toml")
            || path.ends_with("type.toml")
            || path.ends_with("syntax.toml")
        {
            assert!(matches!(err, SceneError::Parse { .. }));
            assert!(
                msg.contains("line"),
                "toml errors carry line and column: {msg}"
            );
        }
        // The CLI: exit code 2, the same message, nothing on stdout.
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pbf"));
        cmd.current_dir(root());
        cmd.arg("check").arg(&path);
        for s in &sets {
            cmd.arg("--set").arg(s);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{msg}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(expect));
        assert!(out.stdout.is_empty());
        // `pbf run` on the same input: exit 2 and nothing written.
        let target = path.with_extension("out");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pbf"));
        cmd.current_dir(root());
        cmd.arg("run")
            .arg(&path)
            .arg("--quiet")
            .arg("-o")
            .arg(&target);
        for s in &sets {
            cmd.arg("--set").arg(s);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{msg}");
        assert!(!target.exists(), "a bad scene wrote {target:?}");
    }
}

#[test]
fn check_prints_the_summary() {
    let out = Command::new(env!("CARGO_BIN_EXE_pbf"))
        .current_dir(root())
        .args(["check", "configs/dam_break.toml"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("particles   117649"), "{text}");
    assert!(text.contains("100 x 75 x 38"), "{text}");
}

/// Issue 18's defect 12: a block's particles hold its volume. Each particle stands for a cube
/// of side 2r, so along each axis the lattice covers the block's side within half a spacing,
/// and a block against a wall has its outer layer r from it (where the wall keeps particles).
/// Before the fix, Martin & Moyce's column (a = 0.2 m) held 6,669 particles: 17% short.
#[test]
fn a_block_holds_its_volume_within_half_a_layer() {
    // The lattice as laid out, before the hydrostatic start moves layers toward the floor.
    let flat = ["particles.start_compression=none".to_string()];
    let s = Scene::load(&root().join("configs/martin_moyce.toml"), &flat).unwrap();
    let (r, b) = (s.particles.radius, &s.fluid[0]);
    let pts = s.sample_fluid();
    let cell = (2.0 * r as f64).powi(3);
    let volume: f64 = (0..3).map(|a| (b.max[a] - b.min[a]) as f64).product();
    let held = pts.len() as f64 * cell;
    assert!(
        (held / volume - 1.0).abs() < 0.01,
        "{} particles hold {held} m³ of the column's {volume}",
        pts.len()
    );
    // Against the tank's walls (x = 0, the floor, both sides): the outer layers r from them.
    let lo = |a: usize| pts.iter().map(|p| p[a]).fold(f32::MAX, f32::min);
    let hi = |a: usize| pts.iter().map(|p| p[a]).fold(f32::MIN, f32::max);
    for a in 0..3 {
        assert!((lo(a) - (b.min[a] + r)).abs() < 1e-5, "axis {a}: {}", lo(a));
        assert!((hi(a) - (b.max[a] - r)).abs() < 1e-5, "axis {a}: {}", hi(a));
    }
    // Sides that are not whole spacings, as users write them: within half a spacing per axis.
    let tmp = tempfile::tempdir().unwrap();
    for (size, radius) in [([0.37, 0.23, 0.51], 0.01), ([1.0, 0.05, 0.333], 0.007)] {
        let text = format!(
            "[tank]\nmin = [0.0, 0.0, 0.0]\nmax = [2.0, 2.0, 2.0]\n[[fluid]]\nmin = [0.0, 0.0, 0.0]\nmax = [{}, {}, {}]\n[particles]\nradius = {radius}\n[time]\ndt = 0.001\nend = 0.1\n",
            size[0], size[1], size[2]
        );
        let s = Scene::load(&write(tmp.path(), "block.toml", &text), &flat).unwrap();
        let pts = s.sample_fluid();
        let sp = 2.0 * radius;
        let mut n = [0usize; 3];
        for (a, k) in n.iter_mut().enumerate() {
            let mut v: Vec<i64> = pts
                .iter()
                .map(|p| (p[a] / sp as f32).floor() as i64)
                .collect();
            v.sort_unstable();
            v.dedup();
            *k = v.len();
            assert!(
                (*k as f64 * sp - size[a]).abs() <= 0.5 * sp + 1e-9,
                "side {} m at r = {radius}: {k} layers",
                size[a]
            );
        }
        assert_eq!(pts.len(), n.iter().product::<usize>());
    }
}

/// Sources that give no water, or give it into a solid, are flagged before a run: a block or
/// an emitter starting at or after the end, a block wholly inside an obstacle (beside one that
/// gives water), a nozzle inside one when it opens, a nozzle under water when it opens, a block
/// thinner than r (it gives more water, not none), a nozzle over another open at the same time.
#[test]
fn sources_that_give_no_water_are_flagged() {
    let tmp = tempfile::tempdir().unwrap();
    let base = "[tank]\nmin = [0.0, 0.0, 0.0]\nmax = [1.0, 1.0, 1.0]\n[time]\ndt = 0.002\nend = 1.0\n[particles]\nradius = 0.01\n";
    let block = "[[fluid]]\nmin = [0.0, 0.0, 0.0]\nmax = [0.5, 0.5, 0.5]\n";
    let nozzle = "[[emitter]]\nshape = \"rect\"\ncenter = [0.5, 0.8, 0.5]\ndirection = [0.0, -1.0, 0.0]\nsize = [0.1, 0.1]\nspeed = 1.0\n";
    let warnings = |extra: &str| warnings_of(tmp.path(), &format!("{base}{extra}"));
    let one = |extra: &str, words: &[&str]| one_warning(warnings(extra), extra, words);
    // As written, nothing to say.
    assert!(warnings(&format!("{block}{nozzle}end = 0.5\n")).is_empty());
    one(
        &format!("{block}start = 1.0\n"),
        &["fluid[0].start", "appears only"],
    );
    one(
        &format!("{block}{nozzle}start = 1.2\nend = 1.5\n"),
        &["emitter[0].start", "opens only"],
    );
    // A block wholly inside a solid beside one that gives water (with no other water the scene
    // is refused: faults.rs).
    let solid = "[[obstacle]]\nshape = \"box\"\ncenter = [0.25, 0.25, 0.25]\nhalf_extents = [0.3, 0.3, 0.3]\n";
    let beside = "[[fluid]]\nmin = [0.65, 0.0, 0.65]\nmax = [0.95, 0.3, 0.95]\n";
    one(
        &format!("{block}{beside}{solid}"),
        &["fluid[0]", "no particle"],
    );
    // A sphere around the nozzle's centre takes some of its 5 x 5 sites (spacing 0.02 m).
    let sphere = "[[obstacle]]\nshape = \"sphere\"\ncenter = [0.5, 0.8, 0.5]\nradius = 0.02\n";
    one(
        &format!("{block}{sphere}{nozzle}end = 0.5\n"),
        &["emitter[0]", "of its 25 sites", "obstacle[0]"],
    );
    // The nozzle in the middle of the block: under water.
    one(
        &format!(
            "{block}{}end = 0.5\n",
            nozzle.replace("[0.5, 0.8, 0.5]", "[0.25, 0.25, 0.25]")
        ),
        &["emitter[0]", "25 of its 25 sites", "inside fluid[0]"],
    );
    // A film 5 mm thick at r = 10 mm: one layer of 50 x 50 sites, 2r thick, four times its water.
    let film = "[[fluid]]\nmin = [0.0, 0.1, 0.0]\nmax = [1.0, 0.105, 1.0]\n";
    one(
        film,
        &[
            "fluid[0] is thinner than r",
            "0.0050 m along y",
            "4.0 times",
        ],
    );
    let scene = Scene::load(
        &write(tmp.path(), "film.toml", &format!("{base}{film}")),
        &[],
    )
    .unwrap();
    assert_eq!(scene.sample_fluid().len(), 50 * 50);
    // A second nozzle over the first (copied and moved by 0.03 m): of its 5 x 5 sites, the
    // 5 x 4 within 0.02 m of the first's take only the room that one leaves. Beside it (moved
    // by its width, 0.1 m), or open after the first closes, it has its own. `two(dx, open)`:
    // the first open to 0.5 s, the second at x = dx, open as `open` says.
    let two = |dx: &str, open: &str| {
        let second = nozzle.replace("[0.5, 0.8", &format!("[{dx}, 0.8"));
        warnings(&format!("{nozzle}end = 0.5\n{second}{open}\n"))
    };
    one_warning(
        two("0.53", "end = 0.5"),
        "a nozzle 0.03 m beside another",
        &[
            "emitter[1]",
            "20 of its 25 sites",
            "emitter[0]",
            "0 s to 0.5 s",
        ],
    );
    assert!(two("0.6", "end = 0.5").is_empty());
    assert!(two("0.53", "start = 0.6").is_empty());
}

/// What moves faster than the step follows, or shuts water against a wall: a block, a jet or a
/// solid moving more than h in one step; a solid sliding toward a wall with water between them (but
/// not a paddle sliding into the wall behind it, as the wave scene's does); a nozzle reaching
/// past the tank's walls.
#[test]
fn motions_the_step_cannot_follow_are_flagged() {
    let tmp = tempfile::tempdir().unwrap();
    // h = 0.04 m, dt = 0.002 s: anything faster than 20 m/s crosses h in one step.
    let base = "[tank]\nmin = [0.0, 0.0, 0.0]\nmax = [1.0, 1.0, 1.0]\n[time]\ndt = 0.002\nend = 1.0\n[particles]\nradius = 0.01\n[[fluid]]\nmin = [0.0, 0.0, 0.0]\nmax = [0.5, 0.3, 1.0]\n";
    let warnings = |extra: &str| warnings_of(tmp.path(), &format!("{base}{extra}"));
    let one = |extra: &str, words: &[&str]| one_warning(warnings(extra), extra, words);
    let jet = |speed: f32| {
        format!(
            "[[emitter]]\nshape = \"rect\"\ncenter = [0.5, 0.8, 0.5]\ndirection = [0.0, -1.0, 0.0]\nsize = [0.1, 0.1]\nspeed = {speed}\nend = 0.5\n"
        )
    };
    assert!(warnings(&jet(19.0)).is_empty());
    one(
        "[[fluid]]\nmin = [0.6, 0.6, 0.6]\nmax = [0.8, 0.8, 0.8]\nvelocity = [0.0, -30.0, 0.0]\n",
        &["fluid[1].velocity", "30 m/s"],
    );
    one(&jet(25.0), &["emitter[0].speed", "dt <= 1.60e-3"]);
    // A nozzle from x = -0.05 to 0.15 against the x = 0 wall: 10 x 5 sites, the 3 columns at
    // x = -0.04, -0.02 and 0.0 closer than r to it.
    one(
        &jet(1.0)
            .replace("center = [0.5", "center = [0.05")
            .replace("size = [0.1, 0.1]", "size = [0.2, 0.1]"),
        &["emitter[0]", "15 of its 50 sites", "outside the tank"],
    );
    // On the floor, pointing up: none of its sites is r inside.
    one(
        &jet(1.0)
            .replace("center = [0.5, 0.8, 0.5]", "center = [0.5, 0.005, 0.5]")
            .replace("[0.0, -1.0, 0.0]", "[0.0, 1.0, 0.0]"),
        &["emitter[0]", "none of its 25 sites", "never emits"],
    );
    // A paddle spanning the tank's depth, right of the water.
    let paddle = |motion: &str| {
        format!(
            "[[obstacle]]\nshape = \"box\"\ncenter = [0.7, 0.5, 0.5]\nhalf_extents = [0.02, 0.5, 0.5]\nmotion = {motion}\n"
        )
    };
    // A stroke of 0.15 m at 1.2 s: fine. 0.15 m at 0.02 s: 47 m/s.
    assert!(
        warnings(&paddle(
            "{ type = \"sine\", amplitude = [0.15, 0.0, 0.0], period = 1.2 }"
        ))
        .is_empty()
    );
    one(
        &paddle("{ type = \"sine\", amplitude = [0.15, 0.0, 0.0], period = 0.02 }"),
        &["obstacle[0].motion reaches 4", "m/s"],
    );
    // A period that divides the checks' sample spacing (1 s / 2000) looks still when sampled:
    // its speed is the sine's, 2 π 0.15 / 0.0005 = 1885 m/s.
    one(
        &paddle("{ type = \"sine\", amplitude = [0.15, 0.0, 0.0], period = 0.0005 }"),
        &["obstacle[0].motion reaches 1884.9", "m/s"],
    );
    // Pushing the water all the way to the x = 0 wall: its box comes within 2r of it at
    // t = (0.68 - 0.02) / 1 = 0.66 s, with the whole block (25 x 15 x 50) between.
    one(
        &paddle("{ type = \"linear\", velocity = [-1.0, 0.0, 0.0], start = 0.0, end = 1.0 }"),
        &["x-min wall", "t = 0.66", "18750 particles"],
    );
    // Sliding into the x = 1 wall behind it, where there is no water: fine.
    assert!(
        warnings(&paddle(
            "{ type = \"linear\", velocity = [1.0, 0.0, 0.0], start = 0.0, end = 1.0 }"
        ))
        .is_empty()
    );
}

/// The size estimate that refuses scenes too big for the machine counts at least the particles
/// a fill gives, for either fill (before, it counted the peer's `ceil(L / 2r) − 1` sites a side
/// for the volume fill's `round(L / 2r)` too, a layer short on each axis).
#[test]
fn the_size_estimate_holds_every_particle_of_either_fill() {
    let tmp = tempfile::tempdir().unwrap();
    for fill in ["volume", "splishsplash"] {
        for side in [0.2, 0.25, 0.31, 0.5] {
            let text = format!(
                "[tank]\nmin = [0.0, 0.0, 0.0]\nmax = [1.0, 1.0, 1.0]\n[time]\ndt = 0.002\nend = 1.0\n[particles]\nradius = 0.01\nfill = \"{fill}\"\n[[fluid]]\nmin = [0.1, 0.1, 0.1]\nmax = [{0}, {0}, {0}]\n",
                0.1 + side
            );
            let s = Scene::load(&write(tmp.path(), "s.toml", &text), &[]).unwrap();
            let (est, n) = (s.memory_estimate().particles_start, s.sample_fluid().len());
            assert!(est >= n as f64, "{fill}, side {side}: estimate {est} < {n}");
        }
    }
}

#[test]
fn frames_asked_for_more_often_than_the_steps_come_are_flagged() {
    let dir = tempfile::tempdir().unwrap();
    // dam_break_small: dt 4 ms, so at most 250 frames a second.
    for (fps, flagged) in [
        ("30.0", false),
        ("250.0", false),
        ("251.0", true),
        ("1000", true),
    ] {
        let text = small().replace("fps = 30.0", &format!("fps = {fps}"));
        assert!(text.contains(&format!("fps = {fps}")));
        let w = warnings_of(dir.path(), &text);
        if flagged {
            one_warning(w, fps, &["output.fps", "one a step", "250 per second"]);
        } else {
            assert!(w.is_empty(), "fps {fps}: {w:?}");
        }
    }
    // With dt = 0.01 (0.0099999998 as f32), 100 frames a second is one a step, not more.
    let text = small()
        .replace("fps = 30.0", "fps = 100.0")
        .replace("dt = 0.004", "dt = 0.01");
    assert!(warnings_of(dir.path(), &text).is_empty());
}
