//! Bad inputs and faults, as a user meets them: each case runs `pbf` against a folder that holds
//! an earlier run's output and asserts the exit code, the message, and what happened to that
//! output (refused input leaves every file byte for byte as it was). The cases marked "fixed"
//! failed before the trust work (issue 18): they wiped the earlier frames, panicked, accepted
//! nonsense or wrote garbage with exit 0. The others behaved already and are kept so.
//! `docs/faults.md` lists them with their outcomes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn pbf(args: &[String]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_pbf"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stderr).to_string() + &String::from_utf8_lossy(&o.stdout);
    (o.status.code(), text)
}

/// Every file under `dir` (relative name -> contents).
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if e.file_type().unwrap().is_file() {
                m.insert(
                    e.file_name().to_string_lossy().to_string(),
                    std::fs::read(e.path()).unwrap(),
                );
            }
        }
    }
    m
}

/// A folder holding a finished short run of the small dam break (frames 0-2, series, summary).
fn earlier_run(parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(name);
    let (code, text) = pbf(&args(&[
        "run",
        "configs/dam_break_small.toml",
        "--until",
        "0.07",
        "--quiet",
        "-o",
        dir.to_str().unwrap(),
    ]));
    assert_eq!(code, Some(0), "{text}");
    assert!(dir.join("frame_00002.vtu").exists());
    dir
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// A scene file in `dir`: the small dam break with `edit` applied to its text.
fn scene(dir: &Path, name: &str, edit: impl Fn(String) -> String) -> String {
    let text = std::fs::read_to_string(root().join("configs/dam_break_small.toml")).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, edit(text)).unwrap();
    path.to_str().unwrap().to_string()
}

/// Refused input: exit 2, the message, and the earlier output untouched.
struct Refused {
    what: &'static str,
    args: Vec<String>,
    expect: &'static str,
}

#[test]
fn refused_input_names_the_problem_and_leaves_earlier_output_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let out = earlier_run(t, "out");
    let o = out.to_str().unwrap().to_string();
    let before = snapshot(&out);
    let small = "configs/dam_break_small.toml";
    let run = |extra: &[&str]| {
        let mut a = args(&["run", small, "--quiet", "-o", &o]);
        a.extend(args(extra));
        a
    };
    let run_scene = |path: &str| args(&["run", path, "--quiet", "-o", &o]);
    let blocker = t.join("a_file");
    std::fs::write(&blocker, "x").unwrap();
    let empty = t.join("empty.xyz");
    std::fs::write(&empty, b"").unwrap();
    let text = t.join("text.xyz");
    std::fs::write(&text, "0.1 0.2 0.3\n0.4 0.5 0.6\n1.0 2.0 3.0\n").unwrap();
    let odd = t.join("odd.xyz");
    std::fs::write(&odd, [0u8; 13]).unwrap();
    let nan = t.join("nan.xyz");
    std::fs::write(
        &nan,
        [0.0f32, 1.0, f32::NAN]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    // 300,000 copies of one point: n² = 9e10 neighbor pairs.
    let same = t.join("same.xyz");
    std::fs::write(
        &same,
        [0.5f32; 3].map(f32::to_le_bytes).concat().repeat(300_000),
    )
    .unwrap();
    let with_extra = |name: &'static str, from: &'static str, to: &'static str| {
        scene(t, name, move |s| s.replace(from, to))
    };
    let cases = vec![
        // Fixed: each of these used to wipe out/ before failing, panic, or run anyway.
        Refused {
            what: "fixed: --threads 0 wiped the earlier frames",
            args: run(&["--threads", "0"]),
            expect: "--threads must be from 1 to 1024, got 0",
        },
        Refused {
            what: "fixed: --threads 100000 aborted in rayon",
            args: run(&["--threads", "100000"]),
            expect: "--threads must be from 1 to 1024",
        },
        Refused {
            what: "fixed: a radius too small to run ran out of memory (and wiped out/)",
            args: run(&["--set", "particles.radius=5e-5"]),
            expect: "more than the",
        },
        Refused {
            what: "fixed: pbf check ran out of memory on a tiny radius",
            args: args(&["check", small, "--set", "particles.radius=5e-5"]),
            expect: "use a larger particles.radius",
        },
        Refused {
            what: "fixed: a tank far larger than its water was refused with advice about the radius",
            args: args(&[
                "check",
                small,
                "--set",
                "tank.max=[100.0, 100.0, 100.0]",
                "--set",
                "particles.radius=0.005",
            ]),
            expect: "its grid over the tank",
        },
        Refused {
            what: "fixed: a name with .. wrote outside the output folder",
            args: run(&["--set", "name=\"../../escape\""]),
            expect: "name: must be a plain file name",
        },
        Refused {
            what: "fixed: a name with a slash",
            args: run(&["--set", "name=\"a/b\""]),
            expect: "name: must be a plain file name",
        },
        Refused {
            what: "fixed: extra array elements were dropped silently",
            args: run_scene(&with_extra(
                "extra.toml",
                "gravity = [0.0, -9.81, 0.0]",
                "gravity = [0.0, -9.81, 0.0, \"junk\", 42]",
            )),
            expect: "physics.gravity: expected 3 elements, got 5",
        },
        Refused {
            what: "fixed: extra elements in a block's corner",
            args: run_scene(&with_extra(
                "extra_min.toml",
                "min = [-1.95, 0.05, -0.5]",
                "min = [-1.95, 0.05, -0.5, 7.0]",
            )),
            expect: "fluid[0].min: expected 3 elements, got 4",
        },
        Refused {
            what: "fixed: overlapping blocks doubled the particles there",
            args: run_scene(&scene(t, "overlap.toml", |s| {
                s + "\n[[fluid]]\nmin = [-1.5, 0.5, -0.4]\nmax = [-0.5, 1.5, 0.4]\n"
            })),
            expect: "fluid[1]: overlaps fluid[0] and appears at the same time",
        },
        Refused {
            what: "fixed: -o under a file was a failure (exit 1), not bad input",
            args: args(&[
                "run",
                small,
                "--quiet",
                "-o",
                blocker.join("sub").to_str().unwrap(),
            ]),
            expect: "-o: cannot create the output folder",
        },
        Refused {
            what: "fixed: -o naming a file said 'cannot create the output folder ... File exists'",
            args: args(&["run", small, "--quiet", "-o", blocker.to_str().unwrap()]),
            expect: "is a file, not a folder",
        },
        Refused {
            what: "fixed: an empty point file was searched",
            args: args(&["bench-search", empty.to_str().unwrap(), "--radius", "0.1"]),
            expect: "holds no points",
        },
        Refused {
            what: "fixed: a text file read as binary points",
            args: args(&["bench-search", text.to_str().unwrap(), "--radius", "0.1"]),
            expect: "looks like a text file",
        },
        Refused {
            what: "fixed: many coincident points asked for n² memory and were killed",
            args: args(&["bench-search", same.to_str().unwrap(), "--radius", "0.1"]),
            expect: "candidate pairs), more than the",
        },
        Refused {
            what: "fixed: --reps 0 ran one repetition",
            args: args(&["bench-search", "--lattice", "5", "--reps", "0"]),
            expect: "--reps",
        },
        Refused {
            what: "fixed: compare's --threads 0 after creating the folder",
            args: args(&["compare", small, "--steps", "2", "--threads", "0", "-o", &o]),
            expect: "--threads must be from 1",
        },
        Refused {
            what: "fixed: scaling --threads beyond the cap",
            args: args(&["scaling", small, "--threads", "5000", "-o", &o]),
            expect: "--threads needs counts from 1 to 1024",
        },
        // Kept: these behaved already.
        Refused {
            what: "unknown key",
            args: run_scene(&with_extra("unknown.toml", "[time]", "[time]\nspeed = 2")),
            expect: "unknown field `speed`",
        },
        Refused {
            what: "wrong type",
            args: run_scene(&with_extra(
                "type.toml",
                "iterations = 3 ",
                "iterations = \"three\" ",
            )),
            expect: "invalid type",
        },
        Refused {
            what: "TOML syntax",
            args: run_scene(&with_extra("syntax.toml", "[time]", "[time\n")),
            expect: "line",
        },
        Refused {
            what: "missing scene file",
            args: run_scene("configs/no_such_scene.toml"),
            expect: "cannot read the scene file",
        },
        Refused {
            what: "negative radius",
            args: run(&["--set", "particles.radius=-0.025"]),
            expect: "particles.radius: must be positive",
        },
        Refused {
            what: "kernel radius below the spacing",
            args: run(&["--set", "particles.kernel_radius=0.04"]),
            expect: "particles.kernel_radius: must exceed the spacing",
        },
        Refused {
            what: "zero time step",
            args: run(&["--set", "time.dt=0"]),
            expect: "time.dt: must be positive",
        },
        Refused {
            what: "zero iterations",
            args: run(&["--set", "pbf.iterations=0"]),
            expect: "pbf.iterations: must be at least 1",
        },
        Refused {
            what: "artificial pressure exponent out of range",
            args: run(&["--set", "pbf.scorr_n=40"]),
            expect: "pbf.scorr_n",
        },
        Refused {
            what: "brute search in a scene",
            args: run(&["--set", "search.mode=\"brute\""]),
            expect: "must be pruned or unpruned",
        },
        Refused {
            what: "zero frame rate",
            args: run(&["--set", "output.fps=0"]),
            expect: "output.fps: must be positive",
        },
        Refused {
            what: "a block outside the tank",
            args: run_scene(&with_extra(
                "outside.toml",
                "min = [-1.95, 0.05, -0.5]",
                "min = [-2.5, 0.05, -0.5]",
            )),
            expect: "is not inside the tank",
        },
        Refused {
            what: "a bad --set path",
            args: run(&["--set", "nonsense"]),
            expect: "--set nonsense",
        },
        Refused {
            what: "a --set of a list's key without an index",
            args: run(&["--set", "fluid.min=[0.0, 0.0, 0.0]"]),
            expect: "'fluid' is a list of 1: give an index from 0 to 0, e.g. fluid.0.min",
        },
        Refused {
            what: "a --set of a list entry past its end",
            args: run(&["--set", "fluid.3.min=[0.0, 0.0, 0.0]"]),
            expect: "'fluid' has 1 entries (indices 0 to 0), got index 3",
        },
        Refused {
            what: "a --set of an entry of a list the file does not give",
            args: run(&["--set", "obstacle.0.radius=0.1"]),
            expect: "'obstacle' is not given in the file",
        },
        Refused {
            what: "a --set value of the wrong shape in a list entry",
            args: run(&["--set", "fluid.0.velocity=[1.0, 2.0]"]),
            expect: "after --set overrides: fluid[0].velocity: invalid length 2",
        },
        Refused {
            what: "an unknown backend",
            args: run(&["--backend", "gpu"]),
            expect: "invalid value 'gpu'",
        },
        Refused {
            what: "a negative --until",
            args: run(&["--until", "-1"]),
            expect: "--until must be >= 0",
        },
        Refused {
            what: "--until with --steps",
            args: run(&["--until", "1", "--steps", "3"]),
            expect: "cannot be used with",
        },
        Refused {
            what: "an emitter with no direction",
            args: run_scene(&scene(t, "emitter.toml", |s| {
                s + "\n[[emitter]]\nshape = \"rect\"\ncenter = [0.0, 2.0, 0.0]\ndirection = [0.0, 0.0, 0.0]\nsize = [0.2, 0.2]\nspeed = 1.0\nend = 1.0\n"
            })),
            expect: "emitter[0].direction: must be a nonzero vector",
        },
        Refused {
            what: "an obstacle of an unknown shape",
            args: run_scene(&scene(t, "cone.toml", |s| {
                s + "\n[[obstacle]]\nshape = \"cone\"\ncenter = [0, 0.5, 0]\nradius = 0.1\n"
            })),
            expect: "unknown variant `cone`",
        },
        Refused {
            what: "a path motion whose times do not increase",
            args: run_scene(&scene(t, "path.toml", |s| {
                s + "\n[[obstacle]]\nshape = \"sphere\"\ncenter = [1.0, 0.5, 0]\nradius = 0.1\nmotion = { type = \"path\", times = [0.0, 1.0, 0.5], positions = [[0,0,0], [0.1,0,0], [0,0,0]] }\n"
            })),
            expect: "obstacle[0].motion",
        },
        Refused {
            what: "compare of zero steps",
            args: args(&["compare", small, "--steps", "0", "-o", &o]),
            expect: "nothing to compare",
        },
        Refused {
            what: "bench-search with nothing to search",
            args: args(&["bench-search"]),
            expect: "required arguments were not provided",
        },
        Refused {
            what: "a point file without --radius",
            args: args(&["bench-search", nan.to_str().unwrap()]),
            expect: "not finite",
        },
        Refused {
            what: "a point file of an odd size",
            args: args(&["bench-search", odd.to_str().unwrap(), "--radius", "0.1"]),
            expect: "not a multiple of 12",
        },
        Refused {
            what: "a lattice of zero points",
            args: args(&["bench-search", "--lattice", "0"]),
            expect: "--lattice must be at least 1",
        },
        Refused {
            what: "a point file of an unknown type",
            args: args(&["bench-search", "Cargo.toml", "--radius", "0.1"]),
            expect: "unknown point file type",
        },
        Refused {
            what: "scaling to zero particles",
            args: args(&["scaling", small, "--particles", "0", "-o", &o]),
            expect: "--particles needs counts of at least 1",
        },
        Refused {
            what: "fixed: scaling a scene whose water all enters later (was 'radius: got 0')",
            args: args(&[
                "scaling",
                &scene(t, "nozzle_only.toml", |s| {
                    s.replace("[[fluid]]", "[[fluid]]\nstart = 1.0")
                }),
                "-o",
                &o,
            ]),
            expect: "no particle at t = 0",
        },
        Refused {
            what: "water only inside a solid (was: a warning, then empty frames)",
            args: args(&[
                "run",
                &scene(t, "buried.toml", |s| {
                    s + "\n[[obstacle]]\nshape = \"box\"\ncenter = [-1.45, 0.55, 0.0]\nhalf_extents = [0.6, 0.6, 0.6]\n"
                }),
                "-o",
                &o,
            ]),
            expect: "the scene has no water",
        },
        Refused {
            what: "validate with a bad scene",
            args: args(&["validate", "configs/no_such_scene.toml", "-o", &o]),
            expect: "cannot read the scene file",
        },
        Refused {
            what: "validate of water filling the tank's length (no floor for a surge)",
            args: args(&[
                "validate",
                &with_extra(
                    "filled.toml",
                    "max = [-0.95, 1.05, 0.5]",
                    "max = [1.95, 1.05, 0.5]",
                ),
                "-o",
                &o,
            ]),
            expect: "leaves the surge no room before the far wall",
        },
    ];
    let n = cases.len();
    for c in cases {
        let (code, text) = pbf(&c.args);
        assert_eq!(code, Some(2), "{}: exit {code:?}: {text}", c.what);
        assert!(
            text.contains(c.expect),
            "{}: expected '{}' in: {text}",
            c.what,
            c.expect
        );
        assert!(!text.contains("panicked"), "{}: {text}", c.what);
        assert!(
            snapshot(&out) == before,
            "{}: the earlier run's output changed",
            c.what
        );
    }
    assert!(n >= 40, "{n} cases");
    assert!(!t.join("escape").exists() && !root().join("../escape").exists());
}

#[test]
fn a_blow_up_stops_the_run_naming_step_particle_and_last_whole_frame() {
    // Fixed: XSPH of 1e30 made velocities infinite while the tank kept positions finite, and
    // the run wrote NaN frames and exited 0. Since XSPH's sum is normalised by the particle's
    // own density the velocities stay finite (about 1e27 m/s) and the walls keep projecting the
    // particles back: without the speed check the run went on for hours at nonsense speeds.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("blow");
    let (code, text) = pbf(&args(&[
        "run",
        "configs/dam_break_small.toml",
        "--set",
        "pbf.xsph=1e30",
        "--quiet",
        "-o",
        out.to_str().unwrap(),
    ]));
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("diverged at step 1 (t = 0.0040 s)")
            && text.contains("crosses the whole domain")
            && text.contains("the last whole frame is frame_00000.vtu"),
        "{text}"
    );
    // Only the whole frame 0 is there; no frame holds a non-finite value.
    assert!(out.join("frame_00000.vtu").exists() && !out.join("frame_00001.vtu").exists());
    let f0 = std::fs::read_to_string(out.join("frame_00000.vtu")).unwrap();
    assert!(!f0.contains("nan") && !f0.contains("inf"));
}

#[test]
fn a_run_replaces_the_earlier_output_whatever_its_format_or_scene() {
    let tmp = tempfile::tempdir().unwrap();
    let out = earlier_run(tmp.path(), "out");
    let o = out.to_str().unwrap();
    // A killed run's temporary file, left behind.
    std::fs::write(out.join(".frame_00003.vtu.part"), b"half a frame").unwrap();
    // Fixed: --format none left the earlier frames and series beside the new summary.
    let (code, text) = pbf(&args(&[
        "run",
        "configs/dam_break_small.toml",
        "--steps",
        "2",
        "--format",
        "none",
        "--quiet",
        "-o",
        o,
    ]));
    assert_eq!(code, Some(0), "{text}");
    let left: Vec<String> = snapshot(&out).into_keys().collect();
    assert_eq!(
        left,
        [
            "energy.csv",
            "energy.svg",
            "forces.csv",
            "forces.svg",
            "summary.json"
        ],
        "{left:?}"
    );
    // Fixed: another scene into the same folder left the first scene's series file, listing
    // frames that are now the second scene's.
    let out = earlier_run(tmp.path(), "out2");
    let (code, text) = pbf(&args(&[
        "run",
        "configs/martin_moyce.toml",
        "--steps",
        "2",
        "--quiet",
        "-o",
        out.to_str().unwrap(),
    ]));
    assert_eq!(code, Some(0), "{text}");
    assert!(!out.join("dam_break_small.pvd").exists());
    assert!(out.join("martin_moyce.pvd").exists() && out.join("frame_00000.vtu").exists());
    // A user's own files stay.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let (code, _) = pbf(&args(&[
        "run",
        "configs/martin_moyce.toml",
        "--steps",
        "2",
        "--quiet",
        "-o",
        out.to_str().unwrap(),
    ]));
    assert_eq!(code, Some(0));
    assert!(out.join("notes.txt").exists());
}

#[test]
fn a_particle_crossing_the_kernel_radius_in_one_step_is_reported() {
    // Fixed: nothing said so; the neighbors of such a particle, found once per step, can miss
    // some. At dt = 0.02 s the small dam break's front (h = 0.1 m) runs at over 5 m/s.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("fast");
    let (code, text) = pbf(&args(&[
        "run",
        "configs/dam_break_small.toml",
        "--set",
        "time.dt=0.02",
        "--until",
        "1",
        "-o",
        out.to_str().unwrap(),
    ]));
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("kernel radii in one step"), "{text}");
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let fast = s["fast_steps"].as_u64().unwrap();
    assert!(fast > 0 && fast < s["steps"].as_u64().unwrap(), "{s}");
    // The shipped step does not trigger it.
    let (code, text) = pbf(&args(&[
        "run",
        "configs/dam_break_small.toml",
        "--until",
        "1",
        "--quiet",
        "-o",
        out.to_str().unwrap(),
    ]));
    assert_eq!(code, Some(0));
    assert!(!text.contains("kernel radii in one step"), "{text}");
}

/// The largest rise of `energy.csv`'s kinetic + potential energy above its first row, as a
/// fraction of it (the first row counts: 0 when it only falls).
fn largest_rise(dir: &Path) -> f64 {
    let text = std::fs::read_to_string(dir.join("energy.csv")).unwrap();
    let mut rows = text.lines().skip(1).map(|l| {
        let c: Vec<f64> = l.split(',').map(|x| x.parse().unwrap()).collect();
        c[2] + c[3] // kinetic_J + potential_J
    });
    let e0 = rows.next().unwrap();
    rows.fold(0.0, |m, e| f64::max(m, (e - e0) / e0))
}

#[test]
fn energy_put_into_a_closed_scene_is_reported() {
    // Fixed: a setting that pumps (vorticity confinement 100 times the default) tripled the
    // small dam break's energy by 1 s with no warning; nothing in that scene can put energy in
    // (no inflow, no late blocks, no moving solid, no surface tension), so kinetic + potential
    // can only fall, and a rise is the solver's doing.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("pump");
    let run = |until: &str, extra: &[&str]| {
        let mut a = vec![
            "run",
            "configs/dam_break_small.toml",
            "--until",
            until,
            "--set",
            "output.format=\"none\"",
            "-o",
            out.to_str().unwrap(),
        ];
        a.extend_from_slice(extra);
        let (code, text) = pbf(&args(&a));
        assert_eq!(code, Some(0), "{text}");
        let s: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
        (text, s["energy_gain"].clone(), largest_rise(&out))
    };
    let (text, gain, rise) = run("1", &["--set", "pbf.vorticity=1.0"]);
    assert!(rise > 0.5, "the pumping setting no longer pumps: {rise}");
    assert!(
        text.contains("mechanical energy") && text.contains("nothing to put energy in"),
        "{text}"
    );
    let pct = gain["max_pct"].as_f64().unwrap();
    assert!(
        (pct - 100.0 * rise).abs() < 1e-3 * pct,
        "{gain} against energy.csv's {rise}"
    );
    // Seen only at the run's last look (no frame time between the start and the end): still
    // said, once.
    let (text, _, rise) = run(
        "0.9",
        &["--set", "pbf.vorticity=1.0", "--set", "output.fps=1"],
    );
    assert!(rise > 0.05, "{rise}");
    assert_eq!(
        text.matches("above its start").count(),
        2,
        "warning and closing line: {text}"
    );
    // The shipped settings lose energy: no warning, and the summary's largest rise is 0.
    let (text, gain, rise) = run("1", &["--quiet"]);
    assert!(
        rise < 0.05 && !text.contains("nothing to put energy in"),
        "{text}"
    );
    assert!(
        gain["max_pct"].as_f64().unwrap() <= 100.0 * rise + 1e-9,
        "{gain}"
    );
    // `check` says which scenes are watched, and why not.
    for (config, says) in [
        ("configs/dam_break_small.toml", "energy      watched"),
        ("configs/piston_flume.toml", "not watched (moving solids"),
        (
            "configs/thin_sheet.toml",
            "not watched (no gravity and water at rest",
        ),
    ] {
        let (code, text) = pbf(&args(&["check", config]));
        assert!(code == Some(0) && text.contains(says), "{config}: {text}");
    }
    // Surface tension turns surface energy into motion: not watched.
    let (text, gain, _) = run(
        "0.1",
        &["--quiet", "--set", "surface_tension.method=\"akinci2013\""],
    );
    assert!(
        gain.is_null() && !text.contains("nothing to put energy in"),
        "{gain} {text}"
    );
}

#[test]
fn a_stop_request_is_honoured_within_one_constraint_iteration() {
    // Fixed: with a billion iterations the first step never ended and Ctrl-C was only looked at
    // between steps. Now the step under way is abandoned (and undone) at its next iteration.
    use std::io::BufRead;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("long");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbf"))
        .current_dir(root())
        .args(["run", "configs/dam_break_small.toml", "--quiet", "-o"])
        .arg(&out)
        .args([
            "--set",
            "pbf.iterations=1000000000",
            "--checkpoint-every",
            "5",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupts are caught once the header is out (not printed with --quiet): wait for frame 0.
    let t = std::time::Instant::now();
    while !out.join("frame_00000.vtu").exists() {
        assert!(t.elapsed().as_secs() < 30);
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let sent = std::time::Instant::now();
    assert!(
        Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    // Waited for at most 10 s (a regression must fail, not hang the suite).
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if sent.elapsed().as_secs() > 10 {
            let _ = child.kill();
            panic!("the run ignored the interrupt for 10 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let took = sent.elapsed();
    let mut err = String::new();
    for l in std::io::BufReader::new(child.stderr.take().unwrap()).lines() {
        err += &l.unwrap();
    }
    assert_eq!(code, Some(130), "{err}");
    assert!(took.as_secs_f64() < 5.0, "took {took:?} to stop");
    // No step was completed: the summary says 0 steps.
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["steps"], 0, "{s}");
    assert_eq!(s["interrupted"], true);
}
